//! Which diff hunks to show within a line budget.

use resolve_pr_forge::{ChangedFile, FileStatus};

use super::category::{FileCategory, file_category};
use super::focus::{FocusKind, focus_points, mask_secrets};
use super::patch::hunks;

/// What is shown of one file's patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The hunks shown, whole or cut, in patch order, each with its `@@` header; a cut hunk
    /// ends with a marker line (see [`plan_excerpts`]).
    pub text: String,
    /// Lines in `text`, headers and markers included.
    pub lines: usize,
    /// Hunks in `text`, cut ones included.
    pub hunks_shown: usize,
    /// Of `hunks_shown`, those cut short.
    pub hunks_cut: usize,
    pub hunks_total: usize,
    /// Lines in the whole patch, headers included.
    pub lines_total: usize,
}

/// Why some or all of a file's patch is not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OmissionReason {
    /// A lockfile: resolver output, never shown.
    Lockfile,
    /// The line budget ran out.
    Budget,
    /// The forge gave no patch though lines changed (GitHub leaves out large diffs).
    NoPatch,
    /// No patch and no changed lines: a binary file, as forges report one.
    Binary,
}

impl OmissionReason {
    pub fn as_str(self) -> &'static str {
        match self {
            OmissionReason::Lockfile => "lockfile",
            OmissionReason::Budget => "budget",
            OmissionReason::NoPatch => "no patch from the forge",
            OmissionReason::Binary => "binary",
        }
    }
}

/// What of one file is not shown, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omission {
    pub path: String,
    /// Whole hunks left out (0 when the forge gave no patch).
    pub hunks: usize,
    /// Lines left out, headers included, the cut-off part of cut hunks too; for a file
    /// without a patch, its additions plus deletions.
    pub lines: usize,
    pub reason: OmissionReason,
}

/// The excerpts of every file and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptPlan {
    /// One entry per file, in the order given: `None` when nothing of it is shown.
    pub per_file: Vec<Option<Excerpt>>,
    /// Lines shown in all, headers and markers included; never more than the budget.
    pub lines_shown: usize,
    /// Lines of every patch, headers included.
    pub lines_total: usize,
    /// In file order, at most one entry per file.
    pub omitted: Vec<Omission>,
}

/// The smallest cut hunk: its header, one line and the marker.
const MIN_CUT: usize = 3;

fn tier(category: FileCategory) -> u8 {
    match category {
        FileCategory::Source | FileCategory::Test => 0,
        FileCategory::Config | FileCategory::Docs | FileCategory::Build => 1,
        FileCategory::Generated | FileCategory::Vendored => 2,
        FileCategory::Lock => 3,
    }
}

struct Candidate {
    file: usize,
    hunk: usize,
    tier: u8,
    focused: bool,
    lines: usize,
    /// Its place among its file's hunks: focused ones first, then smaller ones.
    rank: usize,
}

/// Chooses which hunks of `files` to show in at most `max_lines` lines (headers and
/// markers count).
///
/// Files are taken by class: `Source` and `Test` first, then `Config`, `Docs` and `Build`,
/// then `Generated` and `Vendored`, lockfiles last ([`file_category`]); a class gets what the
/// classes before it left. Within a class, smaller hunks come first (a fix's one changed line
/// sits in a small hunk), each shown whole while it fits and while a line share stays for
/// every file not yet shown. From the first hunk that does not fit on, the hunks left share
/// what is left evenly (a hunk smaller than its share is shown whole, the rest of it goes to
/// the others), each cut at a line boundary: its header, its first lines and a marker line
/// `… N more lines of this hunk not shown`, at least 3 lines. When the rest is too small for
/// 3 lines each, every file's first hunk (by focus point ([`focus_points`]) other than a
/// public declaration, then size) gets its share before any file's second. Each file shows
/// its chosen hunks in patch order.
///
/// A lockfile's hunks are shown whole or not at all; what of a lockfile is not shown is left
/// out as "lockfile", and so is a lockfile without a patch. Another file
/// without a patch is left out as binary when it has no changed lines, else as "no patch
/// from the forge"; a renamed file without changes and a patch without hunks are shown as
/// an empty excerpt.
pub fn plan_excerpts(files: &[ChangedFile], max_lines: usize) -> ExcerptPlan {
    let parsed: Vec<Option<Vec<Vec<&str>>>> = files
        .iter()
        .map(|f| {
            f.patch.as_deref().map(|p| {
                hunks(p)
                    .into_iter()
                    .map(|h| std::iter::once(h.header).chain(h.body).collect())
                    .collect()
            })
        })
        .collect();
    let categories: Vec<FileCategory> = files.iter().map(|f| file_category(&f.path)).collect();
    let lines_total: usize = parsed
        .iter()
        .flatten()
        .flat_map(|hs| hs.iter().map(Vec::len))
        .sum();

    let mut candidates = Vec::new();
    for (file, (f, hs)) in files.iter().zip(&parsed).enumerate() {
        let Some(hs) = hs else { continue };
        let first = candidates.len();
        for (hunk, lines) in hs.iter().enumerate() {
            // Focus state (a Rust test module seen) is per hunk, so reading one hunk alone
            // finds the points the whole patch has in it. A public declaration alone does not
            // count: every `pub fn` of a new file has one, and the comparison of exported
            // symbols says which of them changed.
            let focused = focus_points(&f.path, &lines.join("\n"))
                .iter()
                .any(|p| p.kind != FocusKind::PublicSignature);
            candidates.push(Candidate {
                file,
                hunk,
                tier: tier(categories[file]),
                focused,
                lines: lines.len(),
                rank: 0,
            });
        }
        let own = &mut candidates[first..];
        own.sort_by_key(|c| (!c.focused, c.lines, c.hunk));
        for (rank, c) in own.iter_mut().enumerate() {
            c.rank = rank;
        }
    }
    // Smaller first: a small hunk shown whole says more than a large one's first lines.
    candidates.sort_by_key(|c| (c.tier, c.lines, !c.focused, c.file, c.hunk));

    // For each file's hunks: how many lines of it are shown (None: left out).
    let mut shown: Vec<Vec<Option<usize>>> = parsed
        .iter()
        .map(|hs| hs.as_ref().map_or_else(Vec::new, |hs| vec![None; hs.len()]))
        .collect();
    let mut left = max_lines;
    let lock = tier(FileCategory::Lock);
    let mut start = 0;
    while start < candidates.len() {
        let class = candidates[start].tier;
        let end = start + candidates[start..].partition_point(|c| c.tier == class);
        let class_hunks = &candidates[start..end];
        start = end;
        if class == lock {
            // Half a lockfile hunk says nothing.
            for c in class_hunks {
                if c.lines <= left {
                    shown[c.file][c.hunk] = Some(c.lines);
                    left -= c.lines;
                }
            }
            continue;
        }
        let mut has_share = vec![false; files.len()];
        let mut waiting = class_hunks
            .iter()
            .map(|c| c.file)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        for (i, c) in class_hunks.iter().enumerate() {
            // A share of MIN_CUT lines for every other file of the class not shown yet (all
            // of whose hunks are still ahead: every hunk before this one was shown).
            let others = waiting - usize::from(!has_share[c.file]);
            if c.lines + others * MIN_CUT <= left {
                shown[c.file][c.hunk] = Some(c.lines);
                left -= c.lines;
                if !has_share[c.file] {
                    has_share[c.file] = true;
                    waiting -= 1;
                }
                continue;
            }
            share_evenly(&class_hunks[i..], &mut shown, &mut left);
            break;
        }
    }
    let mut per_file = Vec::with_capacity(files.len());
    let mut omitted = Vec::new();
    let mut lines_shown = 0;
    for (file, f) in files.iter().enumerate() {
        let Some(hs) = &parsed[file] else {
            let changed =
                usize::try_from(f.additions.saturating_add(f.deletions)).unwrap_or(usize::MAX);
            if changed == 0 && f.status == FileStatus::Renamed {
                per_file.push(Some(empty_excerpt()));
            } else {
                // A lockfile is never shown, so that is the reason, patch or not.
                let reason = if categories[file] == FileCategory::Lock {
                    OmissionReason::Lockfile
                } else if changed == 0 {
                    OmissionReason::Binary
                } else {
                    OmissionReason::NoPatch
                };
                omitted.push(Omission {
                    path: f.path.clone(),
                    hunks: 0,
                    lines: changed,
                    reason,
                });
                per_file.push(None);
            }
            continue;
        };
        let file_total: usize = hs.iter().map(Vec::len).sum();
        let mut text = Vec::new();
        let (mut hunks_shown, mut hunks_cut, mut hunks_left_out, mut lines_left_out) = (0, 0, 0, 0);
        for (lines, taken) in hs.iter().zip(&shown[file]) {
            match *taken {
                // Credential-shaped values are masked here as in focus points.
                Some(n) if n == lines.len() => {
                    text.extend(lines.iter().map(|l| mask_secrets(l)));
                    hunks_shown += 1;
                }
                Some(n) => {
                    text.extend(lines[..n].iter().map(|l| mask_secrets(l)));
                    let rest = lines.len() - n;
                    text.push(format!("… {rest} more lines of this hunk not shown"));
                    hunks_shown += 1;
                    hunks_cut += 1;
                    lines_left_out += rest;
                }
                None => {
                    hunks_left_out += 1;
                    lines_left_out += lines.len();
                }
            }
        }
        if lines_left_out > 0 {
            omitted.push(Omission {
                path: f.path.clone(),
                hunks: hunks_left_out,
                lines: lines_left_out,
                // Lockfiles come last: what of them is left out, is left out as one.
                reason: if categories[file] == FileCategory::Lock {
                    OmissionReason::Lockfile
                } else {
                    OmissionReason::Budget
                },
            });
        }
        if hunks_shown == 0 && !hs.is_empty() {
            per_file.push(None);
            continue;
        }
        lines_shown += text.len();
        per_file.push(Some(Excerpt {
            lines: text.len(),
            text: text.join("\n"),
            hunks_shown,
            hunks_cut,
            hunks_total: hs.len(),
            lines_total: file_total,
        }));
    }
    ExcerptPlan {
        per_file,
        lines_shown,
        lines_total,
        omitted,
    }
}

/// Shares `left` evenly among `rest` (in size order), each hunk cut to its share; when
/// `left` is too small for [`MIN_CUT`] lines each, those first by their file's rank (every
/// file's first hunk before any file's second) are taken.
fn share_evenly(rest: &[Candidate], shown: &mut [Vec<Option<usize>>], left: &mut usize) {
    let room = *left / MIN_CUT;
    let mut taken: Vec<&Candidate> = rest.iter().collect();
    if taken.len() > room {
        taken.sort_by_key(|c| (c.rank, !c.focused, c.lines, c.file, c.hunk));
        taken.truncate(room);
        taken.sort_by_key(|c| (c.lines, !c.focused, c.file, c.hunk));
    }
    let mut count = taken.len();
    for c in taken {
        let share = *left / count;
        count -= 1;
        if c.lines <= share {
            shown[c.file][c.hunk] = Some(c.lines);
            *left -= c.lines;
        } else {
            // Header and body lines, then the marker line.
            shown[c.file][c.hunk] = Some(share - 1);
            *left -= share;
        }
    }
}

fn empty_excerpt() -> Excerpt {
    Excerpt {
        text: String::new(),
        lines: 0,
        hunks_shown: 0,
        hunks_cut: 0,
        hunks_total: 0,
        lines_total: 0,
    }
}
