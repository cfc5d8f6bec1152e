//! How `detect_merge_conflicts` reports what `pr` found: each file's conflict with its
//! sides' previews and a suggested resolution, and the steps to resolve them locally.

use super::*;

pub(super) fn conflict(f: &FileConflict) -> Conflict {
    let first: Option<&Hunk> = f.hunks.as_ref().and_then(|h| h.hunks.first());
    let (suggested_resolution, resolution_confidence) = match f.fact {
        Some(fact) if f.reintroduced.is_empty() => {
            (Some(fact_text(fact).to_owned()), Some(Confidence::High))
        }
        Some(fact) => (
            Some(format!(
                "{} {}",
                fact_text(fact),
                reintroduced_text(fact, &f.reintroduced)
            )),
            Some(Confidence::Medium),
        ),
        None => (None, None),
    };
    let message = match (&f.message, mode_change(f)) {
        (Some(m), Some(change)) => Some(format!("{m} ({change})")),
        (None, Some(change)) => Some(change),
        (m, None) => m.clone(),
    };
    Conflict {
        file_path: f.path.clone(),
        conflict_type: conflict_type(&f.kind),
        message,
        base_content_preview: first.and_then(|h| {
            h.base
                .as_deref()
                .map(|b| preview(b, h.base_line, h.base_omitted))
        }),
        head_content_preview: first.map(|h| preview(&h.theirs, h.theirs_line, h.theirs_omitted)),
        target_content_preview: first.map(|h| preview(&h.ours, h.ours_line, h.ours_omitted)),
        start_line: first.map(|h| h.start_line as u64),
        end_line: first.map(|h| h.end_line as u64),
        regions: f.hunks.as_ref().map_or(0, |h| h.total as u64),
        suggested_resolution,
        resolution_confidence,
        // A fact says which side to take; a person or agent still takes it.
        can_auto_resolve: false,
    }
}

/// A mode one side changed beside a content conflict (git merged the mode cleanly: an
/// executable bit, say), in words; `None` when no side changed it.
fn mode_change(f: &FileConflict) -> Option<String> {
    if f.kind == ConflictKind::DistinctModes {
        return None;
    }
    let base = f.base_mode.as_deref()?;
    let target = f.target_mode.as_deref().filter(|m| *m != base);
    let head = f.head_mode.as_deref().filter(|m| *m != base);
    match (target, head) {
        (None, None) => None,
        (Some(t), Some(h)) if t != h => Some(format!(
            "the target changed the mode {base} to {t} and the PR to {h}"
        )),
        (Some(t), _) => Some(format!(
            "the target also changed the mode {base} to {t}; git merged the mode"
        )),
        (None, Some(h)) => Some(format!(
            "the PR also changed the mode {base} to {h}; git merged the mode"
        )),
    }
}

/// The names the kept side would bring back, as a warning after the fact.
fn reintroduced_text(fact: Fact, names: &[String]) -> String {
    const SHOWN: usize = 8;
    let (kept, other) = match fact {
        Fact::HeadOnlyWhitespace | Fact::HeadUnchanged => ("target's", "PR"),
        _ => ("PR's", "target"),
    };
    let mut list = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        list.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    format!(
        "But the {kept} side uses names the {other} removed from this file ({list}): keeping it \
         brings them back; check each before choosing."
    )
}

fn fact_text(fact: Fact) -> &'static str {
    match fact {
        Fact::SameChangeButWhitespace => {
            "Both sides made the same change but for whitespace: keep either side."
        }
        Fact::HeadUnchanged => {
            "The PR's text in these regions is the merge base's (it changed nothing there): \
             keeping the target's side loses nothing of the PR."
        }
        Fact::TargetUnchanged => {
            "The target's text in these regions is the merge base's (it changed nothing there): \
             keeping the PR's side loses nothing of the target."
        }
        Fact::HeadOnlyWhitespace => {
            "The PR changed only whitespace in these regions: keeping the target's side loses \
             nothing of the PR but whitespace."
        }
        Fact::TargetOnlyWhitespace => {
            "The target changed only whitespace in these regions: keeping the PR's side loses \
             nothing of the target but whitespace."
        }
        Fact::HeadDeleted => {
            "The PR deleted this file and the target changed it: keep the deletion (git rm) or \
             restore the target's version."
        }
        Fact::TargetDeleted => {
            "The target deleted this file and the PR changed it: keep the PR's version (git add) \
             or accept the deletion (git rm)."
        }
    }
}

/// git's kind of conflict: a content conflict stays one when a side also changed the mode
/// (git merged the mode); `mode` is git's distinct-modes clash (file, symlink, submodule).
fn conflict_type(kind: &ConflictKind) -> ConflictType {
    match kind {
        ConflictKind::Content => ConflictType::Content,
        ConflictKind::AddAdd => ConflictType::AddAdd,
        ConflictKind::ModifyDelete => ConflictType::ModifyDelete,
        ConflictKind::RenameRename => ConflictType::RenameRename,
        ConflictKind::RenameDelete => ConflictType::RenameDelete,
        ConflictKind::RenameCollision => ConflictType::RenameCollision,
        ConflictKind::FileDirectory => ConflictType::FileDirectory,
        ConflictKind::DistinctModes => ConflictType::Mode,
        ConflictKind::Binary => ConflictType::Binary,
        ConflictKind::Submodule => ConflictType::Submodule,
        ConflictKind::DirectoryRename => ConflictType::DirectoryRename,
        _ => ConflictType::Other,
    }
}

pub(super) fn type_str(t: ConflictType) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

pub(super) fn state_str(s: MergeableState) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// "N| line" for the first lines of a region within [`PREVIEW_LINES`] and
/// [`PREVIEW_BYTES`], then `…[N more lines]` for what is left out here or was left out by
/// the merge's budget (`omitted` lines; a line shown in part ends with `…`).
fn preview(text: &str, first_line: usize, omitted: usize) -> String {
    // Room kept for the closing marker.
    const MARKER_ROOM: usize = 40;
    let partial_last = omitted > 0 && !text.is_empty() && !text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() - usize::from(partial_last) + omitted;
    let mut out = String::new();
    let mut whole = 0;
    for (i, line) in lines.iter().take(PREVIEW_LINES).enumerate() {
        let is_partial = partial_last && i + 1 == lines.len();
        let row = format!("{}| {line}", first_line + i);
        let room = PREVIEW_BYTES - MARKER_ROOM - out.len();
        if row.len() + 1 > room {
            if i == 0 {
                let mut end = room.saturating_sub("…\n".len());
                while !row.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&row[..end]);
                out.push_str("…\n");
            }
            break;
        }
        out.push_str(&row);
        if is_partial {
            out.push('…');
        } else {
            whole += 1;
        }
        out.push('\n');
    }
    let more = total - whole;
    if more > 0 {
        out.push_str(&format!(
            "…[{more} more line{}]\n",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

/// What to run to merge the target in and resolve by hand, with our commands quoted.
pub(super) fn instructions(
    pr: &PullRequest,
    remote: &str,
    target_branch: &str,
    files: &[FileConflict],
) -> Instructions {
    let render = |c: ShellCommand| c.render().unwrap_or_default();
    let mut steps = Vec::new();
    steps.push(render(ShellCommand::new("git").args([
        "fetch",
        "--end-of-options",
        remote,
        target_branch,
    ])));
    if pr.is_from_fork() {
        steps.push(render(
            ShellCommand::new("git")
                .args(["fetch", "--end-of-options", remote])
                .arg(format!("pull/{}/head", pr.number)),
        ));
        steps.push(render(ShellCommand::new("git").args([
            "switch",
            "--detach",
            "FETCH_HEAD",
        ])));
    } else {
        steps.push(render(ShellCommand::new("git").args([
            "switch",
            "--end-of-options",
            &pr.head_ref,
        ])));
    }
    steps.push(render(ShellCommand::new("git").args([
        "merge",
        "--no-ff",
        "--end-of-options",
        &format!("{remote}/{target_branch}"),
    ])));
    let paths: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let marked = files
        .iter()
        .filter(|f| f.hunks.as_ref().is_some_and(|h| h.total > 0))
        .count();
    if marked > 0 {
        steps.push(format!(
            "# resolve the regions between <<<<<<< and >>>>>>> in {marked} file{}",
            if marked == 1 { "" } else { "s" }
        ));
    }
    let unmarked = paths.len() - marked;
    if unmarked > 0 {
        steps.push(format!(
            "# {unmarked} file{} no markers (binary, deleted, renamed, mode): keep one side \
             with `git checkout --ours -- PATH` or `--theirs`, or `git rm -- PATH`",
            if unmarked == 1 { " has" } else { "s have" }
        ));
    }
    steps.push(render(
        ShellCommand::new("git")
            .args(["add", "--"])
            .args(paths.iter().cloned()),
    ));
    steps.push(render(
        ShellCommand::new("git").args(["commit", "--no-edit"]),
    ));
    if !pr.is_from_fork() {
        steps.push(render(ShellCommand::new("git").args([
            "push",
            "--end-of-options",
            remote,
            &pr.head_ref,
        ])));
    }
    let regions: usize = files
        .iter()
        .map(|f| f.hunks.as_ref().map_or(1, |h| h.total.max(1)))
        .sum();
    let estimated_time = match regions {
        0..=2 => "about 5 minutes",
        3..=10 => "10-20 minutes",
        _ => "30 minutes or more",
    }
    .to_owned();
    Instructions {
        resolution_steps: steps,
        estimated_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_number_lines_and_stop_at_ten() {
        let text: String = (1..=12).map(|i| format!("l{i}\n")).collect();
        let p = preview(&text, 40, 0);
        assert!(p.starts_with("40| l1\n41| l2\n"), "{p}");
        assert!(p.contains("49| l10\n…[2 more lines]"), "{p}");
        // Lines the merge's budget left out are counted too; a line cut short says so.
        assert_eq!(preview("a\nb\n", 5, 3), "5| a\n6| b\n…[3 more lines]\n");
        assert_eq!(preview("a\nbb", 5, 1), "5| a\n6| bb…\n…[1 more line]\n");
        assert_eq!(preview("", 5, 2), "…[2 more lines]\n");
        assert_eq!(preview("", 5, 0), "");
    }

    /// A content conflict whose first region's target side was cut by the merge's budget
    /// (as `resolve_pr_git` cuts it: 5 KB of 3,000 lines, one line shown in part).
    fn huge_target_side() -> FileConflict {
        let line = "let x = 1; // a long line of the target's side\n";
        let mut ours = line.repeat(110);
        ours.push_str("let x");
        FileConflict {
            path: "big.rs".into(),
            kind: ConflictKind::Content,
            message: None,
            target_mode: Some("100644".into()),
            base_mode: Some("100644".into()),
            head_mode: Some("100644".into()),
            hunks: Some(resolve_pr_git::Hunks {
                hunks: vec![Hunk {
                    start_line: 1,
                    end_line: 3006,
                    ours_line: 1,
                    base_line: 1,
                    theirs_line: 1,
                    ours,
                    base: Some("base line\n".into()),
                    theirs: "pr line\n".into(),
                    ours_omitted: 3000 - 110,
                    ..Hunk::default()
                }],
                total: 1,
                cut: true,
            }),
            fact: None,
            reintroduced: Vec::new(),
        }
    }

    #[test]
    fn every_side_keeps_a_preview_when_one_is_over_the_budget() {
        let c = conflict(&huge_target_side());
        let target = c.target_content_preview.unwrap();
        assert!(target.starts_with("1| let x = 1;"), "{target}");
        assert!(target.ends_with("\n…[2990 more lines]\n"), "{target}");
        assert!(target.len() <= PREVIEW_BYTES, "{}", target.len());
        assert_eq!(c.base_content_preview.as_deref(), Some("1| base line\n"));
        assert_eq!(c.head_content_preview.as_deref(), Some("1| pr line\n"));
    }

    fn file(kind: ConflictKind, modes: [&str; 3]) -> FileConflict {
        FileConflict {
            path: "run.sh".into(),
            kind,
            message: Some("CONFLICT (content): Merge conflict in run.sh".into()),
            target_mode: Some(modes[0].into()),
            base_mode: Some(modes[1].into()),
            head_mode: Some(modes[2].into()),
            hunks: None,
            fact: None,
            reintroduced: Vec::new(),
        }
    }

    #[test]
    fn an_executable_bit_beside_a_content_conflict_is_content() {
        let c = conflict(&file(ConflictKind::Content, ["100644", "100644", "100755"]));
        assert_eq!(c.conflict_type, ConflictType::Content);
        assert_eq!(
            c.message.as_deref(),
            Some(
                "CONFLICT (content): Merge conflict in run.sh (the PR also changed the mode \
                 100644 to 100755; git merged the mode)"
            )
        );
        let clash = conflict(&file(
            ConflictKind::DistinctModes,
            ["100644", "100644", "120000"],
        ));
        assert_eq!(clash.conflict_type, ConflictType::Mode);
        let same = conflict(&file(ConflictKind::Content, ["100644"; 3]));
        assert_eq!(
            same.message.as_deref(),
            Some("CONFLICT (content): Merge conflict in run.sh")
        );
    }

    #[test]
    fn resolutions_say_what_the_kept_side_brings_back() {
        let mut f = file(ConflictKind::Content, ["100644"; 3]);
        f.fact = Some(Fact::HeadOnlyWhitespace);
        let plain = conflict(&f);
        assert_eq!(plain.resolution_confidence, Some(Confidence::High));
        f.reintroduced = vec!["old_name".into()];
        let warned = conflict(&f);
        assert_eq!(warned.resolution_confidence, Some(Confidence::Medium));
        let text = warned.suggested_resolution.unwrap();
        assert!(
            text.contains("the target's side uses names the PR removed from this file (old_name)"),
            "{text}"
        );
        f.fact = Some(Fact::HeadUnchanged);
        f.reintroduced.clear();
        let unchanged = conflict(&f).suggested_resolution.unwrap();
        assert!(unchanged.contains("changed nothing there"), "{unchanged}");
        assert!(!unchanged.contains("whitespace"), "{unchanged}");
    }
}
