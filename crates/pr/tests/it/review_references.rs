//! `review::references` and `review::breaking_changes`.

use resolve_pr_pr::review::{IssueRef, breaking_changes, references};
use resolve_pr_syntax::ApiChange;

fn here(number: u64) -> IssueRef {
    IssueRef { repo: None, number }
}

fn there(repo: &str, number: u64) -> IssueRef {
    IssueRef {
        repo: Some(repo.to_owned()),
        number,
    }
}

#[test]
fn closing_keywords_pulls_and_mentions() {
    let title = "Fix the cache eviction (#41)";
    let body = r#"## Summary

Fixes #12, and closes: acme/api#7.
RESOLVED https://github.com/acme/widgets/issues/9
fix https://forge.example.org/other/repo/issues/3

Follow-up to PR #30 and pull request #31; see https://github.com/acme/widgets/pull/32
and https://codeberg.org/acme/widgets/pulls/33. Related: #41, #12, other/lib#5.

# 1 is a heading-like line but #2 mentions
The fix for #99 is elsewhere (no keyword right before it).

```rust
// Fixes #500 inside a code block is not a reference
let x = a#501;
```
Inline `closes #600` is code too. <!-- fixes #700 in a comment -->
HTML &#123; entity, anchors https://example.com/page#800 and src/path/to#801, word#802.
"#;
    let commit = "Resolves #12\n\nAlso fixes ACME/Widgets#13.";
    let refs = references(&[title, body, commit], "acme/widgets");
    assert_eq!(
        refs.closes,
        [
            here(12),
            there("acme/api", 7),
            here(9),
            there("other/repo", 3),
            here(13)
        ]
    );
    assert_eq!(refs.pulls, [here(30), here(31), here(32), here(33)]);
    assert_eq!(
        refs.mentions,
        [here(41), there("other/lib", 5), here(2), here(99)]
    );
}

#[test]
fn nothing_to_find() {
    let refs = references(
        &["", "# Heading\n\nNo refs here; color #fff and #0."],
        "o/r",
    );
    assert!(
        refs.closes.is_empty() && refs.pulls.is_empty() && refs.mentions.is_empty(),
        "{refs:?}"
    );
    let refs = references(
        &["fixes #99999999999999999999999 and #18446744073709551615"],
        "o/r",
    );
    assert_eq!(refs.mentions, [here(u64::MAX)]);
    assert!(refs.closes.is_empty());
}

#[test]
fn breaking_changes_are_removed_and_changed_only() {
    let before = "pub fn keep() {}\npub fn gone() {}\npub fn grow(a: u8) {}\n";
    let after = "pub fn keep() {}\npub fn grow(a: u8, b: u8) {}\npub fn fresh() {}\n";
    let changes = breaking_changes("src/lib.rs", before, after).expect("rust is supported");
    let names: Vec<String> = changes
        .iter()
        .map(|c| match c {
            ApiChange::Removed { before } => format!("removed {}", before.name),
            ApiChange::Changed { before, .. } => format!("changed {}", before.name),
            ApiChange::Added { after } => format!("added {}", after.name),
        })
        .collect();
    assert_eq!(names, ["removed gone", "changed grow"]);
    assert_eq!(breaking_changes("README.md", "a", "b"), None);
    // C is a language tree-sitter scans, but its exports are not read.
    assert_eq!(breaking_changes("src/x.c", "int f(void);", ""), None);
    assert_eq!(breaking_changes("src/lib.rs", before, "pub fn (\n"), None);
    assert_eq!(
        breaking_changes("app/x.py", "def f(a): pass\n", "def f(a): return 1\n"),
        Some(vec![])
    );
}
