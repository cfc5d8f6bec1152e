//! The review checklist: questions per file category and focus area, each saying which
//! files it applies to.

use super::*;

/// Paths whose name says authentication, authorization, secrets or cryptography.
pub(super) fn is_security_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    [
        "auth",
        "login",
        "password",
        "secret",
        "crypto",
        "token",
        "session",
        "permission",
        "acl",
        "oauth",
        "saml",
        "jwt",
        "security",
    ]
    .iter()
    .any(|w| p.contains(w))
}

/// The checklist: a section per kind of file changed, per kind of focus point found, and per
/// focus area asked for; each item says what makes it apply.
pub(super) fn checklist(
    files: &[ChangedFile],
    categories: &[FileCategory],
    focus: &[Vec<review::FocusPoint>],
    breaking: bool,
    focus_areas: &[&str],
) -> Vec<ChecklistSection> {
    let mut sections: Vec<ChecklistSection> = Vec::new();
    let mut add = |category: &str, question: &str, guidance: &str, applies: String| {
        let item = ChecklistItem {
            question: question.to_owned(),
            guidance: guidance.to_owned(),
            applies_to: applies,
        };
        match sections.iter_mut().find(|s| s.category == category) {
            Some(s) => {
                if !s.items.iter().any(|i| i.question == item.question) {
                    s.items.push(item)
                }
            }
            None => sections.push(ChecklistSection {
                category: category.to_owned(),
                items: vec![item],
            }),
        }
    };
    let paths_of = |want: &dyn Fn(FileCategory) -> bool| -> Vec<&str> {
        files
            .iter()
            .zip(categories)
            .filter(|(_, c)| want(**c))
            .map(|(f, _)| f.path.as_str())
            .collect()
    };
    let list = |paths: &[&str]| -> String {
        let shown: Vec<&str> = paths.iter().take(5).copied().collect();
        let more = paths.len().saturating_sub(5);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    let source = paths_of(&|c| c == FileCategory::Source);
    let tests = paths_of(&|c| c == FileCategory::Test);
    if !source.is_empty() {
        add(
            "Correctness",
            "Does each changed function still do what its callers expect, including on empty, \
             missing and boundary inputs?",
            "Read the callers of changed functions; look for new branches without an else.",
            list(&source),
        );
        if tests.is_empty() {
            add(
                "Testing",
                "Is the changed behaviour covered by a test?",
                "No test file changed with the source; ask for one or find the existing test.",
                list(&source),
            );
        }
    }
    if !tests.is_empty() {
        add(
            "Testing",
            "Do the tests fail without the change, and assert outcomes rather than run code?",
            "Check each new assertion against the behaviour the PR claims.",
            list(&tests),
        );
    }
    let config = paths_of(&|c| matches!(c, FileCategory::Config | FileCategory::Build));
    if !config.is_empty() {
        add(
            "Configuration",
            "Are configuration and build changes intended for every environment they reach?",
            "CI workflows, build scripts and deploy files run with credentials: check triggers \
             and permissions.",
            list(&config),
        );
    }
    let lock = paths_of(&|c| c == FileCategory::Lock);
    if !lock.is_empty() {
        add(
            "Dependencies",
            "Are the dependency changes expected, and are new majors' breaking changes handled?",
            "analyze_pr_impact lists each update with its versions.",
            list(&lock),
        );
    }
    let database: Vec<&str> = files
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| {
            let lower = p.to_ascii_lowercase();
            lower.ends_with(".sql") || lower.contains("migration")
        })
        .collect();
    if !database.is_empty() {
        add(
            "Database",
            "Is the schema change safe on a large, live table, and can it be rolled back?",
            "Look for locks held by ALTER/CREATE INDEX, NOT NULL columns without defaults, and \
             a down migration or a plan to undo it.",
            list(&database),
        );
    }
    let docs = paths_of(&|c| c == FileCategory::Docs);
    if !docs.is_empty() {
        add(
            "Documentation",
            "Does the documentation match the code as changed?",
            "Check examples and option names against the diff.",
            list(&docs),
        );
    }
    if breaking {
        add(
            "Compatibility",
            "Are removed or changed exported symbols intended, and are their users updated?",
            "See files' api_changes; search the repository and dependents for each name; a \
             release note or a major version may be due.",
            "exported symbols removed or changed".to_owned(),
        );
    }
    let kinds = |k: &dyn Fn(FocusKind) -> bool| -> Vec<String> {
        files
            .iter()
            .zip(focus)
            .flat_map(|(f, points)| {
                points
                    .iter()
                    .filter(|p| k(p.kind))
                    .map(move |p| format!("{}:{}", f.path, p.line))
            })
            .collect()
    };
    let as_list = |v: &[String]| -> String {
        let refs: Vec<&str> = v.iter().map(String::as_str).collect();
        list(&refs)
    };
    let security = kinds(&|k| {
        matches!(
            k,
            FocusKind::Unsafe
                | FocusKind::DynamicCode
                | FocusKind::SqlConcatenation
                | FocusKind::SecretLike
        )
    });
    if !security.is_empty() || focus_areas.contains(&"security") {
        let applies = if security.is_empty() {
            "asked for (focus_areas)".to_owned()
        } else {
            as_list(&security)
        };
        let reach = kinds(&|k| {
            matches!(
                k,
                FocusKind::Unsafe | FocusKind::DynamicCode | FocusKind::SqlConcatenation
            )
        });
        let secrets = kinds(&|k| k == FocusKind::SecretLike);
        if !reach.is_empty() || security.is_empty() {
            add(
                "Security",
                "Can input from users or the network reach the flagged lines (SQL, eval/exec, unsafe)?",
                "Trace each flagged line's inputs back to their source; parameterised queries and \
                 argument vectors instead of strings.",
                if reach.is_empty() {
                    applies.clone()
                } else {
                    as_list(&reach)
                },
            );
        }
        if !secrets.is_empty() || security.is_empty() {
            add(
                "Security",
                "Is any secret, token or key committed?",
                "Secret-like strings are flagged; a real one must be revoked, not only removed.",
                if secrets.is_empty() {
                    applies
                } else {
                    as_list(&secrets)
                },
            );
        }
    }
    let removed_tests = kinds(&|k| k == FocusKind::RemovedTest);
    if !removed_tests.is_empty() {
        add(
            "Testing",
            "Why were these tests removed, and is what they covered still tested?",
            "A removed test needs a reason in the PR; look for its replacement.",
            as_list(&removed_tests),
        );
    }
    let panics = kinds(&|k| k == FocusKind::Panic);
    if !panics.is_empty() || focus_areas.contains(&"error_handling") {
        add(
            "Error handling",
            "Can the flagged unwrap/expect/panic be reached with bad input?",
            "Errors from I/O, parsing and the network should be returned, not panic.",
            if panics.is_empty() {
                "asked for (focus_areas)".to_owned()
            } else {
                as_list(&panics)
            },
        );
    }
    let todos = kinds(&|k| k == FocusKind::TodoAdded);
    if !todos.is_empty() {
        add(
            "Completeness",
            "Are the TODOs added tracked, and is the PR complete without them?",
            "Ask for an issue number next to each TODO.",
            as_list(&todos),
        );
    }
    for area in focus_areas {
        let asked = "asked for (focus_areas)".to_owned();
        match *area {
            "performance" => add(
                "Performance",
                "Does the change add work inside loops, per request, or on large inputs?",
                "Look for queries or allocations in loops and for unbounded collections.",
                asked,
            ),
            "testing" => add(
                "Testing",
                "Is the changed behaviour covered by a test that would fail without it?",
                "Run the tests against the base to see them fail.",
                asked,
            ),
            "documentation" => add(
                "Documentation",
                "Are public changes documented (README, docs, changelog)?",
                "Every changed option, flag or exported symbol needs its note.",
                asked,
            ),
            "compatibility" => add(
                "Compatibility",
                "Does anything that callers, stored data or other services rely on change?",
                "Exported symbols, wire formats, database schemas and configuration keys.",
                asked,
            ),
            "accessibility" => add(
                "Accessibility",
                "Do changed UI elements keep labels, focus order and contrast?",
                "Check new controls with a keyboard and a screen reader.",
                asked,
            ),
            "concurrency" => add(
                "Concurrency",
                "Is shared state changed without a lock, or a lock held across an await or I/O?",
                "Look for new shared mutable state and the order locks are taken in.",
                asked,
            ),
            _ => {}
        }
    }
    sections
}
