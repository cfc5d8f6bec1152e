//! Forgejo/Gitea's glob for required status contexts (gobwas/glob without separators): a
//! pure matcher, public at the crate root so that whoever judges a branch rule's required
//! checks (the `pr` crate's readiness) matches them as the forge client and the server do.

/// Whether a required context pattern matches a status context, as Forgejo/Gitea (1.19 and
/// later) match them: a glob compiled without separators (gobwas/glob), so `*` and `**` match
/// any run of characters, `/` included; `?` one character; `[abc]`, `[a-z]`, `[!a]` a class;
/// `{a,b}` alternatives; `\` escapes the next character. A pattern that does not compile
/// matches nothing (the server logs it and skips it).
pub fn context_glob(pattern: &str, name: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let Some(tokens) = parse_glob(&chars, &mut 0, false) else {
        return false;
    };
    let name: Vec<char> = name.chars().collect();
    matches_seq(&tokens, &name)
}

#[derive(Debug, Clone)]
enum Tok {
    Char(char),
    Any,
    One,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Alt(Vec<Vec<Tok>>),
}

/// Parses until the end (or, inside `{…}`, until `,`/`}`, left unconsumed).
fn parse_glob(p: &[char], i: &mut usize, in_alt: bool) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    while *i < p.len() {
        let c = p[*i];
        match c {
            ',' | '}' if in_alt => return Some(out),
            '*' => {
                while *i < p.len() && p[*i] == '*' {
                    *i += 1;
                }
                out.push(Tok::Any);
                continue;
            }
            '?' => out.push(Tok::One),
            '\\' => {
                *i += 1;
                out.push(Tok::Char(*p.get(*i)?));
            }
            '[' => {
                *i += 1;
                let negated = p.get(*i) == Some(&'!');
                if negated {
                    *i += 1;
                }
                let mut ranges = Vec::new();
                loop {
                    let lo = *p.get(*i)?;
                    if lo == ']' {
                        break;
                    }
                    if p.get(*i + 1) == Some(&'-') && p.get(*i + 2).is_some_and(|&h| h != ']') {
                        ranges.push((lo, p[*i + 2]));
                        *i += 3;
                    } else {
                        ranges.push((lo, lo));
                        *i += 1;
                    }
                }
                if ranges.is_empty() {
                    return None;
                }
                out.push(Tok::Class { negated, ranges });
            }
            '{' => {
                *i += 1;
                let mut alts = Vec::new();
                loop {
                    alts.push(parse_glob(p, i, true)?);
                    match p.get(*i)? {
                        ',' => *i += 1,
                        _ => break,
                    }
                }
                out.push(Tok::Alt(alts));
            }
            c => out.push(Tok::Char(c)),
        }
        *i += 1;
    }
    (!in_alt).then_some(out)
}

fn matches_seq(tokens: &[Tok], name: &[char]) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return name.is_empty();
    };
    match first {
        Tok::Char(c) => name.first() == Some(c) && matches_seq(rest, &name[1..]),
        Tok::One => !name.is_empty() && matches_seq(rest, &name[1..]),
        Tok::Any => (0..=name.len()).any(|k| matches_seq(rest, &name[k..])),
        Tok::Class { negated, ranges } => name.first().is_some_and(|&c| {
            let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
            inside != *negated && matches_seq(rest, &name[1..])
        }),
        Tok::Alt(alts) => alts.iter().any(|alt| {
            let mut joined = alt.clone();
            joined.extend_from_slice(rest);
            matches_seq(&joined, name)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_globs_match_as_gitea_does() {
        assert!(context_glob("ci/build", "ci/build"));
        assert!(!context_glob("ci/build", "ci/build2"));
        // No separators: `*` crosses `/`.
        assert!(context_glob("ci/*", "ci/test/unit"));
        assert!(context_glob("*", "anything / at all (push)"));
        assert!(context_glob("test (?)", "test (1)"));
        assert!(!context_glob("test (?)", "test (12)"));
        assert!(context_glob("lint-[a-c]", "lint-b"));
        assert!(!context_glob("lint-[!a-c]", "lint-b"));
        assert!(context_glob("{build,test} / *", "test / linux"));
        assert!(!context_glob("{build,test} / *", "deploy / linux"));
        assert!(context_glob(r"a\*b", "a*b"));
        assert!(!context_glob(r"a\*b", "axb"));
        // Does not compile: matches nothing.
        assert!(!context_glob("{open", "{open"));
        assert!(!context_glob("[", "["));
    }
}
