//! Code owners files, read the way the forge that found them reads them.
//!
//! **GitHub** ([`OwnersSyntax::GitHub`]): each line is a gitignore-like pattern and its
//! owners (`@user`, `@org/team`, an email). A pattern with a `/` at its start or inside is
//! anchored at the root, otherwise it matches at any depth; a trailing `/` matches what is
//! under the directory; `*` and `?` stay within a segment, `**` crosses them; a pattern also
//! matches everything under what it names, except one whose last segment is `*` (`docs/*`
//! owns `docs/a.md` but not `docs/x/b.md`, as GitHub documents). The last matching line
//! wins; a line with no owners leaves its files unowned. What GitHub does not support (`!`,
//! `[ ]`, `\` escapes such as `\#`) and owners that are none of the three forms make the line
//! an error, skipped as GitHub skips it.
//!
//! **Gitea/Forgejo** ([`OwnersSyntax::Gitea`]), as Gitea's `TokenizeCodeOwnersLine` and
//! `ParseCodeOwnersLine` read it: a `\` escapes the next character (so a regexp's `\.` is
//! written `\\.`), an unescaped `#` ends the line, tokens are split at spaces and tabs. The
//! first token is a Go regular expression, compiled as `^PATTERN$` (unparenthesised, as Gitea
//! does), and a leading `!` negates it: the line then applies to every file it does *not*
//! match. Owners are users and `org/team` (the `@` is optional); a line with fewer than two
//! tokens, a regexp that does not compile, or no usable owner is an error. **Every** line
//! that applies to a file contributes its owners (Gitea requests review from all of them),
//! not only the last. Go's `\d`, `\w`, `\s` and `\b` are ASCII-only, so they are
//! spelled out before Rust's `regex` (whose classes are Unicode) compiles the line.

use regex::{Regex, RegexSet};
use resolve_pr_forge::repository::{CodeOwnersFile, OwnersSyntax};

/// A line of the file that is not used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnersError {
    /// From 1.
    pub line: usize,
    pub message: String,
}

/// Who owns a path, and by which line(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnersMatch {
    /// `@bob`, `@org/team`, or an email as written; empty when the deciding GitHub line has
    /// none (the path is then explicitly unowned).
    pub owners: Vec<String>,
    /// The deciding line (from 1): GitHub's last matching line; on Gitea the first line that
    /// applies.
    pub line: usize,
    /// That line's pattern, as written (with its `!` on Gitea).
    pub pattern: String,
    /// Every line that applies (Gitea: all of them, whose owners are united in `owners`;
    /// GitHub: only `line`).
    pub lines: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Rule {
    line: usize,
    pattern: String,
    regex: Regex,
    negative: bool,
    owners: Vec<String>,
}

/// A parsed code owners file.
#[derive(Debug, Clone)]
pub struct CodeOwners {
    path: String,
    syntax: OwnersSyntax,
    rules: Vec<Rule>,
    /// The rules' regexps in one set, matched in one pass (`None` if too big to build: then
    /// rule by rule).
    set: Option<RegexSet>,
    errors: Vec<OwnersError>,
}

impl CodeOwners {
    /// Reads the file in its forge's syntax. Never fails: lines that cannot be used are in
    /// [`CodeOwners::errors`].
    pub fn parse(file: &CodeOwnersFile) -> CodeOwners {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        for (i, text) in file.text.split('\n').enumerate() {
            let line = i + 1;
            let parsed = match file.syntax {
                OwnersSyntax::GitHub => github_line(text),
                OwnersSyntax::Gitea => gitea_line(text),
            };
            match parsed {
                Ok(None) => {}
                Ok(Some((pattern, regex, negative, owners))) => rules.push(Rule {
                    line,
                    pattern,
                    regex,
                    negative,
                    owners,
                }),
                Err(message) => errors.push(OwnersError { line, message }),
            }
        }
        let set = RegexSet::new(rules.iter().map(|r| r.regex.as_str())).ok();
        CodeOwners {
            path: file.path.clone(),
            syntax: file.syntax,
            rules,
            set,
            errors,
        }
    }

    /// The file's path in the repository (`.github/CODEOWNERS`).
    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn syntax(&self) -> OwnersSyntax {
        self.syntax
    }

    /// Lines that are not used, in file order.
    pub fn errors(&self) -> &[OwnersError] {
        &self.errors
    }

    /// Who owns `path` (repository-relative, `/`-separated); `None` when no line applies.
    pub fn owners_of(&self, path: &str) -> Option<OwnersMatch> {
        let path = path.trim_start_matches('/');
        let matched: Vec<bool> = match &self.set {
            Some(set) => {
                let hits = set.matches(path);
                (0..self.rules.len()).map(|i| hits.matched(i)).collect()
            }
            None => self.rules.iter().map(|r| r.regex.is_match(path)).collect(),
        };
        match self.syntax {
            OwnersSyntax::GitHub => {
                let i = matched.iter().rposition(|m| *m)?;
                let rule = &self.rules[i];
                Some(OwnersMatch {
                    owners: rule.owners.clone(),
                    line: rule.line,
                    pattern: rule.pattern.clone(),
                    lines: vec![rule.line],
                })
            }
            OwnersSyntax::Gitea => {
                let applying: Vec<&Rule> = self
                    .rules
                    .iter()
                    .zip(&matched)
                    .filter(|(r, m)| **m != r.negative)
                    .map(|(r, _)| r)
                    .collect();
                let first = applying.first()?;
                let mut owners: Vec<String> = Vec::new();
                for owner in applying.iter().flat_map(|r| &r.owners) {
                    if !owners.contains(owner) {
                        owners.push(owner.clone());
                    }
                }
                Some(OwnersMatch {
                    owners,
                    line: first.line,
                    pattern: first.pattern.clone(),
                    lines: applying.iter().map(|r| r.line).collect(),
                })
            }
        }
    }

    /// The text of line `line` as a reason quotes it: `line 4 (`/src/auth/ @bob`)`.
    pub fn describe(&self, m: &OwnersMatch) -> String {
        let file = &self.path;
        match m.lines.as_slice() {
            [_] | [] => format!(
                "{file} line {} (`{}`{})",
                m.line,
                m.pattern,
                self.owners_suffix(m.line)
            ),
            lines => format!(
                "{file} lines {}",
                lines
                    .iter()
                    .map(|l| {
                        let pattern = self
                            .rules
                            .iter()
                            .find(|r| r.line == *l)
                            .map_or("", |r| r.pattern.as_str());
                        format!("{l} (`{pattern}`{})", self.owners_suffix(*l))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn owners_suffix(&self, line: usize) -> String {
        self.rules
            .iter()
            .find(|r| r.line == line)
            .filter(|r| !r.owners.is_empty())
            .map(|r| format!(" {}", r.owners.join(" ")))
            .unwrap_or_default()
    }
}

type Parsed = Option<(String, Regex, bool, Vec<String>)>;

fn github_line(text: &str) -> Result<Parsed, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    if text.contains('\\') {
        return Err(
            "`\\` escapes (such as `\\#` or `\\ `) are not supported in GitHub's CODEOWNERS; \
             the line is skipped"
                .into(),
        );
    }
    // A `#` starts a comment (GitHub has no escape for it).
    let text = text.split('#').next().unwrap_or("");
    let mut tokens = text.split_whitespace();
    let Some(pattern) = tokens.next() else {
        return Ok(None);
    };
    if pattern.starts_with('!') {
        return Err(format!(
            "`{pattern}`: negation (`!`) is not supported in GitHub's CODEOWNERS; the line is \
             skipped"
        ));
    }
    if pattern.contains(['[', ']']) {
        return Err(format!(
            "`{pattern}`: character ranges (`[ ]`) are not supported in GitHub's CODEOWNERS; \
             the line is skipped"
        ));
    }
    let mut owners = Vec::new();
    for owner in tokens {
        if !is_github_owner(owner) {
            return Err(format!(
                "`{owner}` is not an owner (`@user`, `@org/team` or an email); GitHub skips the \
                 line"
            ));
        }
        owners.push(owner.to_owned());
    }
    let regex = github_regex(pattern)?;
    Ok(Some((pattern.to_owned(), regex, false, owners)))
}

fn is_name(s: &str, extra: &[char]) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c))
}

fn is_github_owner(owner: &str) -> bool {
    if let Some(handle) = owner.strip_prefix('@') {
        return match handle.split_once('/') {
            Some((org, team)) => is_name(org, &[]) && is_name(team, &['_', '.']),
            None => is_name(handle, &[]),
        };
    }
    match owner.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && domain.contains('.')
                && !domain.contains('@')
                && !domain.starts_with('.')
        }
        None => false,
    }
}

/// A GitHub pattern as an anchored regular expression over repository paths.
fn github_regex(pattern: &str) -> Result<Regex, String> {
    let (mut anchored, rest) = match pattern.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, pattern),
    };
    let (dir_only, body) = match rest.strip_suffix('/') {
        Some(body) => (true, body),
        None => (false, rest),
    };
    if body.is_empty() {
        return Err(format!("`{pattern}` matches no path"));
    }
    if body.contains('/') {
        anchored = true;
    }
    let mut re = String::from(if anchored { "^" } else { "^(?:.*/)?" });
    let segments: Vec<&str> = body.split('/').collect();
    let last = segments.len() - 1;
    for (i, segment) in segments.iter().enumerate() {
        if *segment == "**" {
            if i == last {
                // `a/**`: everything under a (the `/` before was written already).
                re.push_str(".*");
            } else {
                // `**/` (at the start, or between segments): zero or more directories.
                re.push_str("(?:.*/)?");
            }
            continue;
        }
        let mut chars = segment.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '*' => {
                    while chars.peek() == Some(&'*') {
                        chars.next();
                    }
                    re.push_str("[^/]*");
                }
                '?' => re.push_str("[^/]"),
                c => re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4]))),
            }
        }
        if i != last {
            re.push('/');
        }
    }
    let last_segment = segments[last];
    if dir_only {
        re.push_str("/.*");
    } else if last_segment != "*" && last_segment != "**" {
        re.push_str("(?:/.*)?");
    }
    re.push('$');
    Regex::new(&re).map_err(|e| format!("`{pattern}` cannot be read as a pattern: {e}"))
}

/// Gitea's tokenizer: trims, tabs are spaces, `\` escapes the next character, an unescaped
/// `#` ends the line.
fn gitea_tokens(text: &str) -> Vec<String> {
    let text = text.trim().replace('\t', " ");
    let mut tokens = Vec::new();
    let mut token = String::new();
    let mut escape = false;
    for c in text.chars() {
        if escape {
            token.push(c);
            escape = false;
        } else if c == '\\' {
            escape = true;
        } else if c == '#' {
            break;
        } else if c == ' ' {
            if !token.is_empty() {
                tokens.push(std::mem::take(&mut token));
            }
        } else {
            token.push(c);
        }
    }
    if !token.is_empty() {
        tokens.push(token);
    }
    tokens
}

/// Go's `\d`, `\w`, `\s` and `\b` are ASCII-only where Rust's are Unicode: spelled out as
/// Go defines them (`\s` is `[\t\n\f\r ]`), in and outside brackets. Other escapes stay.
fn go_ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn gitea_line(text: &str) -> Result<Parsed, String> {
    let tokens = gitea_tokens(text);
    match tokens.len() {
        0 => return Ok(None),
        1 => {
            return Err(format!(
                "`{}` has no owners: a line is a regexp and at least one @user or @org/team \
                 (Gitea: incorrect format)",
                tokens[0]
            ));
        }
        _ => {}
    }
    let pattern = tokens[0].clone();
    let negative = pattern.starts_with('!');
    let source = pattern.strip_prefix('!').unwrap_or(&pattern);
    let regex = Regex::new(&format!("^{}$", go_ascii_classes(source)))
        .map_err(|e| format!("`{pattern}` is not a regular expression: {e}"))?;
    let mut owners = Vec::new();
    let mut bad = Vec::new();
    for token in &tokens[1..] {
        let name = token.strip_prefix('@').unwrap_or(token);
        let ok = match name.split_once('/') {
            Some((org, team)) => !org.is_empty() && !team.is_empty() && !team.contains('/'),
            None => !name.is_empty(),
        };
        if ok {
            let owner = format!("@{name}");
            if !owners.contains(&owner) {
                owners.push(owner);
            }
        } else {
            bad.push(token.as_str());
        }
    }
    if owners.is_empty() {
        return Err(format!(
            "`{pattern}`: no usable owner ({}): owners are @user or @org/team",
            bad.join(" ")
        ));
    }
    Ok(Some((pattern, regex, negative, owners)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(syntax: OwnersSyntax, text: &str) -> CodeOwners {
        CodeOwners::parse(&CodeOwnersFile {
            path: "CODEOWNERS".into(),
            text: text.into(),
            syntax,
        })
    }

    fn owners(co: &CodeOwners, path: &str) -> Option<(Vec<String>, usize)> {
        co.owners_of(path).map(|m| (m.owners, m.line))
    }

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    /// GitHub's documented example file (about-code-owners), line for line.
    const GITHUB_EXAMPLE: &str = "\
# This is a comment.
*       @global-owner1 @global-owner2
*.js    @js-owner #This is an inline comment.
*.go docs@example.com
*.txt @octo-org/octocats
/build/logs/ @doctocat
docs/*  docs@example.com
apps/ @octocat
/docs/ @doctocat
/scripts/ @doctocat @octocat
**/logs @octocat
/apps/ @octocat
/apps/github
/src/ @doctocat
/src/**/*.rb @octocat
";

    #[test]
    fn github_golden_documented_example() {
        let co = parse(OwnersSyntax::GitHub, GITHUB_EXAMPLE);
        assert!(co.errors().is_empty(), "{:?}", co.errors());
        let cases: &[(&str, &[&str], usize)] = &[
            ("README.md", &["@global-owner1", "@global-owner2"], 2),
            ("web/app.js", &["@js-owner"], 3),
            ("main.go", &["docs@example.com"], 4),
            ("notes/a.txt", &["@octo-org/octocats"], 5),
            // `/build/logs/` (line 6) matches, but `**/logs` (line 11) comes later and wins.
            ("build/logs/x/y.log", &["@octocat"], 11),
            ("deeply/nested/logs/a.md", &["@octocat"], 11),
            // `docs/*` owns direct files, `/docs/` (later) owns everything under docs/.
            ("docs/getting-started.md", &["@doctocat"], 9),
            ("scripts/deploy.sh", &["@doctocat", "@octocat"], 10),
            ("apps/web/index.html", &["@octocat"], 12),
            ("src/lib/thing.rb", &["@octocat"], 15),
            ("src/main.go", &["@doctocat"], 14),
        ];
        for (path, want, line) in cases {
            assert_eq!(
                owners(&co, path),
                Some((v(want), *line)),
                "owners of {path}"
            );
        }
        // A line without owners leaves its files unowned, and says which line did it.
        let m = co.owners_of("apps/github/readme.md").unwrap();
        assert_eq!(
            (m.owners.len(), m.line, m.pattern.as_str()),
            (0, 13, "/apps/github")
        );
        // `apps/` is any apps directory, not only the root's.
        assert_eq!(
            owners(&co, "nested/apps/a.txt"),
            Some((v(&["@octocat"]), 8))
        );
    }

    #[test]
    fn github_last_match_wins_over_earlier_more_specific_lines() {
        let co = parse(
            OwnersSyntax::GitHub,
            "/build/logs/ @doctocat\n*.log @logs\n",
        );
        assert_eq!(owners(&co, "build/logs/a.log"), Some((v(&["@logs"]), 2)));
        assert_eq!(
            owners(&co, "build/logs/a.txt"),
            Some((v(&["@doctocat"]), 1))
        );
    }

    #[test]
    fn github_docs_star_does_not_own_nested_files() {
        let co = parse(OwnersSyntax::GitHub, "docs/*  docs@example.com\n");
        assert!(co.owners_of("docs/getting-started.md").is_some());
        assert_eq!(co.owners_of("docs/build-app/troubleshooting.md"), None);
        assert_eq!(co.owners_of("other/docs/a.md"), None);
    }

    #[test]
    fn github_unsupported_syntax_is_an_error_line_not_a_guess() {
        let co = parse(
            OwnersSyntax::GitHub,
            "* @all\n!*.md @nobody\nsrc/[ab].rs @x\n\\#file @y\n*.rs not-an-owner\n/ @root\n",
        );
        let lines: Vec<usize> = co.errors().iter().map(|e| e.line).collect();
        assert_eq!(lines, [2, 3, 4, 5, 6], "{:?}", co.errors());
        assert!(co.errors()[0].message.contains("negation"));
        assert!(co.errors()[1].message.contains("ranges"));
        assert!(co.errors()[2].message.contains("escapes"));
        assert!(co.errors()[3].message.contains("not-an-owner"));
        // The skipped lines do not take effect: the first line still owns everything.
        assert_eq!(owners(&co, "README.md"), Some((v(&["@all"]), 1)));
        assert_eq!(owners(&co, "src/a.rs"), Some((v(&["@all"]), 1)));
    }

    #[test]
    fn github_patterns_are_literal_outside_wildcards() {
        let co = parse(OwnersSyntax::GitHub, "a+b.(c) @x\n/exact.txt @y\n");
        assert!(co.owners_of("dir/a+b.(c)").is_some());
        assert!(co.owners_of("dir/aab.(c)").is_none());
        assert!(co.owners_of("exact.txt").is_some());
        assert!(co.owners_of("sub/exact.txt").is_none());
        assert!(co.owners_of("exactXtxt").is_none());
    }

    /// Gitea's documented example file, with the `\\` escapes as its docs write them.
    const GITEA_EXAMPLE: &str = r".*\\.go @user1 @user2 # This is comment

# Comment too
# You can assigning code owning for users or teams
frontend/src/.*\\.js @org1/team1 @org1/team2 @user3

# You can use negative pattern
!frontend/src/.* @org1/team3 @user5

# You can use power of go regexp
docs/(aws|google|azure)/[^/]*\\.(md|txt) @user8 @org1/team4
!/assets/.*\\.(bin|exe|msi) @user9
dir/with\#hashtag @user1
path\ with\ space @user2
";

    #[test]
    fn gitea_golden_documented_example() {
        let co = parse(OwnersSyntax::Gitea, GITEA_EXAMPLE);
        assert!(co.errors().is_empty(), "{:?}", co.errors());
        // Every applying line counts: a .go file outside frontend/src gets line 1, the
        // negative line 8, and the negative line 12 (it is not under /assets/).
        let m = co.owners_of("cmd/main.go").unwrap();
        assert_eq!(m.lines, [1, 8, 12]);
        assert_eq!(
            m.owners,
            v(&["@user1", "@user2", "@org1/team3", "@user5", "@user9"])
        );
        assert_eq!((m.line, m.pattern.as_str()), (1, r".*\.go"));
        // Inside frontend/src the negative line 8 does not apply, line 5 does.
        let m = co.owners_of("frontend/src/app.js").unwrap();
        assert_eq!(m.lines, [5, 12]);
        assert_eq!(
            m.owners,
            v(&["@org1/team1", "@org1/team2", "@user3", "@user9"])
        );
        let m = co.owners_of("docs/aws/setup.md").unwrap();
        assert_eq!(m.lines, [8, 11, 12]);
        // `[^/]*`: not nested deeper.
        assert_eq!(co.owners_of("docs/aws/x/setup.md").unwrap().lines, [8, 12]);
        // Escapes: `\#` and `\ ` are literal.
        assert_eq!(co.owners_of("dir/with#hashtag").unwrap().lines, [8, 12, 13]);
        assert_eq!(co.owners_of("path with space").unwrap().lines, [8, 12, 14]);
    }

    #[test]
    fn gitea_anchors_like_gitea_and_unescapes_single_backslashes() {
        // `^a|b$` as Gitea compiles it: starts with a, or ends with b.
        let co = parse(OwnersSyntax::Gitea, "a|b @x\n");
        assert!(co.owners_of("a/anything").is_some());
        assert!(co.owners_of("x/ends-with-b").is_some());
        assert!(co.owners_of("middle-a-middle").is_none());
        // A single `\.` is unescaped to `.` by the tokenizer, so it matches any character.
        let co = parse(OwnersSyntax::Gitea, r"x\.go @x");
        assert!(co.owners_of("xago").is_some());
        // Owners without `@` are users too.
        let co = parse(OwnersSyntax::Gitea, ".* bob @org/team");
        assert_eq!(co.owners_of("a").unwrap().owners, v(&["@bob", "@org/team"]));
    }

    #[test]
    fn gitea_classes_are_ascii_as_in_go() {
        // Written `\\d` in the file: the tokenizer leaves `\d` for the regexp.
        let co = parse(
            OwnersSyntax::Gitea,
            r"v\\d+/.* @digits
name\\w\\.txt @word
[\\d_]x @cls
.*\\bend @b
",
        );
        assert!(co.errors().is_empty(), "{:?}", co.errors());
        assert_eq!(co.owners_of("v12/a").unwrap().lines, [1]);
        assert!(
            co.owners_of("v\u{663}/a").is_none(),
            "Arabic-Indic digit is not Go's \\d"
        );
        assert_eq!(co.owners_of("namea.txt").unwrap().lines, [2]);
        assert!(
            co.owners_of("name\u{e9}.txt").is_none(),
            "é is not Go's \\w"
        );
        assert_eq!(co.owners_of("7x").unwrap().lines, [3]);
        assert_eq!(co.owners_of("_x").unwrap().lines, [3]);
        assert_eq!(co.owners_of("a/end").unwrap().lines, [4]);
        // A literal backslash-d (`\\\\d` after unescaping is `\\d`) stays literal.
        assert_eq!(go_ascii_classes(r"a\\d"), r"a\\d");
    }

    #[test]
    fn gitea_bad_lines_are_errors() {
        let co = parse(
            OwnersSyntax::Gitea,
            "onlypattern\n(unclosed @x\n.* @a/b/c\n\t\n.* @ok\n",
        );
        let lines: Vec<usize> = co.errors().iter().map(|e| e.line).collect();
        assert_eq!(lines, [1, 2, 3], "{:?}", co.errors());
        assert!(co.errors()[0].message.contains("incorrect format"));
        assert!(co.errors()[1].message.contains("not a regular expression"));
        assert!(co.errors()[2].message.contains("no usable owner"));
        assert_eq!(co.owners_of("x").unwrap().lines, [5]);
    }

    #[test]
    fn describe_quotes_the_lines() {
        let co = parse(OwnersSyntax::GitHub, "* @a\n/src/auth/ @bob\n");
        let m = co.owners_of("src/auth/x.rs").unwrap();
        assert_eq!(co.describe(&m), "CODEOWNERS line 2 (`/src/auth/` @bob)");
        let co = parse(OwnersSyntax::Gitea, ".* @a\nsrc/.* @b\n");
        let m = co.owners_of("src/x").unwrap();
        assert_eq!(
            co.describe(&m),
            "CODEOWNERS lines 1 (`.*` @a), 2 (`src/.*` @b)"
        );
    }
}
