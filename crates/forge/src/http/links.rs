//! `Link` headers (RFC 8288): how GitHub and Gitea say a list has another page.

/// The `(rel, url)` pairs of one `Link` header value (RFC 8288), as GitHub and Gitea send
/// them: `<https://...?page=2>; rel="next", <...>; rel="last"`.
pub(crate) fn link_rels(value: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        let url = &rest[start + 1..start + end];
        let after = &rest[start + end + 1..];
        // Parameters run up to the next link, which starts at the next '<'.
        let params_end = after.find('<').unwrap_or(after.len());
        for param in after[..params_end].split(';') {
            let param = param.trim().trim_end_matches(',').trim();
            if let Some((name, val)) = param.split_once('=')
                && name.trim().eq_ignore_ascii_case("rel")
            {
                // `rel` may hold several space-separated relation types.
                for rel in val.trim().trim_matches('"').split_whitespace() {
                    out.push((rel.to_ascii_lowercase(), url.to_owned()));
                }
            }
        }
        rest = &after[params_end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_header_rels() {
        let v = r#"<https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=1>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?page=5&per_page=1>; rel="last""#;
        let rels = link_rels(v);
        assert_eq!(
            rels,
            vec![
                (
                    "next".to_owned(),
                    "https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=1"
                        .to_owned()
                ),
                (
                    "last".to_owned(),
                    "https://api.github.com/repositories/1/issues/2/comments?page=5&per_page=1"
                        .to_owned()
                ),
            ]
        );
        assert!(
            link_rels(r#"<a?x=1,2>; rel="prev first""#)
                .contains(&("first".into(), "a?x=1,2".into()))
        );
        assert!(link_rels(r#"<a>;rel=next"#).contains(&("next".into(), "a".into())));
        assert!(link_rels("").is_empty());
        assert!(link_rels("garbage <unterminated").is_empty());
        assert!(
            !link_rels(r#"<a>; rel="prev""#)
                .iter()
                .any(|(r, _)| r == "next")
        );
    }
}
