//! Two export lists matched by name.

use crate::{Dialect, Export, SyntaxError, exports};

/// How one exported name changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiChange {
    Removed {
        before: Export,
    },
    /// Same name, another signature (or kind).
    Changed {
        before: Export,
        after: Export,
    },
    Added {
        after: Export,
    },
}

/// What changed in the exports from `before` to `after`: an error when either does not parse
/// (see [`exports`]).
///
/// Exports are matched by name. A name declared more than once (overloads, `cfg`
/// alternatives, getter and setter) is matched as a multiset: declarations with identical
/// signatures pair first, then the rest pair in source order as `Changed`, and what is left
/// is `Removed` or `Added`. A move within the file is not a change. Order: names as they
/// first appear in `before` (removed and changed), then names new in `after`, each in
/// source order.
pub fn compare(
    language: Dialect,
    before: &str,
    after: &str,
) -> Result<Vec<ApiChange>, SyntaxError> {
    let before = exports(language, before)?;
    let after = exports(language, after)?;
    Ok(diff(&before, &after))
}

pub(crate) fn diff(before: &[Export], after: &[Export]) -> Vec<ApiChange> {
    let mut names: Vec<&str> = Vec::new();
    for e in before.iter().chain(after) {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let mut changes = Vec::new();
    for name in names {
        let mut olds: Vec<&Export> = before.iter().filter(|e| e.name == name).collect();
        let mut news: Vec<&Export> = after.iter().filter(|e| e.name == name).collect();
        // Identical declarations pair first, wherever they moved.
        olds.retain(|old| {
            match news
                .iter()
                .position(|new| new.signature == old.signature && new.kind == old.kind)
            {
                Some(i) => {
                    news.remove(i);
                    false
                }
                None => true,
            }
        });
        let paired = olds.len().min(news.len());
        for (old, new) in olds.iter().zip(&news) {
            changes.push(ApiChange::Changed {
                before: (*old).clone(),
                after: (*new).clone(),
            });
        }
        for old in &olds[paired..] {
            changes.push(ApiChange::Removed {
                before: (*old).clone(),
            });
        }
        for new in &news[paired..] {
            changes.push(ApiChange::Added {
                after: (*new).clone(),
            });
        }
    }
    changes
}
