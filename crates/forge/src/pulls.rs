//! What both clients decide alike about listing and retargeting pull requests: which listed
//! pull request a filter keeps, which base names are sent at all, and when a retarget is
//! refused before anything is written.

use resolve_pr_core::{PrRef, RepoRef};

use crate::wording::subject;
use crate::{Error, PrState, PullFilter, PullListState, PullRequest, Result};

/// Whether `pull` (listed in `repo`) passes `filter`. Applied to every listed pull request,
/// also where the forge filtered already, so a forge that ignores a filter parameter (older
/// Forgejo, Gitea) still gives the right answer.
pub(crate) fn keeps(filter: &PullFilter, repo: &RepoRef, pull: &PullRequest) -> bool {
    let state = match filter.state {
        PullListState::Open => pull.state == PrState::Open,
        PullListState::Closed => pull.state == PrState::Closed,
        PullListState::Merged => pull.state == PrState::Merged,
        PullListState::All => true,
    };
    let author = filter
        .author
        .as_deref()
        .is_none_or(|a| pull.author.login.eq_ignore_ascii_case(a));
    let draft = filter.draft.is_none_or(|d| pull.draft == d);
    let base = filter.base.as_deref().is_none_or(|b| pull.base_ref == b);
    // A head branch of the base repository: a fork's branch of the same name is another one.
    let head = filter.head.as_deref().is_none_or(|h| {
        pull.head_ref == h
            && pull
                .head_repo
                .as_deref()
                .is_some_and(|r| r.eq_ignore_ascii_case(&repo.full_name()))
    });
    state && base && head && author && draft
}

/// The `state` a listing asks the forge for: both forges list merged pull requests as
/// `closed`, so closed and merged are told apart here.
pub(crate) fn state_param(state: PullListState) -> &'static str {
    match state {
        PullListState::Open => "open",
        PullListState::Closed | PullListState::Merged => "closed",
        PullListState::All => "all",
    }
}

/// A branch name worth sending: git refuses whitespace and control characters in ref names,
/// so such a name is the caller's mistake, said before any request.
pub(crate) fn check_branch_name(what: &str, name: &str) -> Result<()> {
    let bad = name.is_empty()
        || name.len() > 255
        || name.chars().any(|c| c.is_whitespace() || c.is_control());
    if bad {
        return Err(Error::usage(format!(
            "{what} {name:?} is not a branch name (empty, too long, or with spaces or control \
             characters)"
        ))
        .with_detail("field", what.to_owned())
        .with_suggestion("Pass the name of an existing branch of the repository, e.g. `main`."));
    }
    Ok(())
}

/// Refuses to retarget a pull request that is not open: GitHub answers 422 for a closed
/// one, and Forgejo/Gitea leave a merged one as it is while answering success.
pub(crate) fn check_retargetable(pr: &PrRef, current: &PullRequest) -> Result<()> {
    let state = match current.state {
        PrState::Open => return Ok(()),
        PrState::Closed => "closed",
        PrState::Merged => "merged",
    };
    Err(Error::precondition(format!(
        "{} is {state}; only an open pull request can change its base branch",
        subject(pr)
    ))
    .with_detail("state", state)
    .with_suggestion("Reopen it first, or leave it: a merged pull request keeps its base."))
}

/// The forge answered a retarget with the pull request on another base than asked for.
pub(crate) fn check_retargeted(pr: &PrRef, base: &str, after: PullRequest) -> Result<PullRequest> {
    if after.base_ref == base {
        return Ok(after);
    }
    Err(Error::invalid_body(format!(
        "the forge accepted the new base {base:?} for {} but reports its base as {:?}",
        subject(pr),
        after.base_ref
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Actor;

    fn pull(number: u64, state: PrState, head: &str, head_repo: Option<&str>) -> PullRequest {
        PullRequest {
            number,
            title: String::new(),
            body: String::new(),
            labels: Vec::new(),
            state,
            draft: false,
            author: Actor {
                login: "a".into(),
                is_bot: false,
            },
            html_url: String::new(),
            head_ref: head.into(),
            head_sha: "1".into(),
            base_ref: "main".into(),
            base_sha: "2".into(),
            merged_at: None,
            merge_commit_sha: None,
            mergeable: None,
            mergeable_state: None,
            base_repo: "Acme/Widgets".into(),
            head_repo: head_repo.map(str::to_owned),
            base_clone_url: None,
            head_clone_url: None,
        }
    }

    #[test]
    fn a_head_filter_keeps_the_base_repositorys_branch_only() {
        let repo = RepoRef::parse("acme/widgets").unwrap();
        let filter = PullFilter {
            state: PullListState::All,
            head: Some("feature".into()),
            base: Some("main".into()),
            limit: 10,
            ..PullFilter::default()
        };
        assert!(keeps(
            &filter,
            &repo,
            &pull(1, PrState::Open, "feature", Some("ACME/widgets"))
        ));
        assert!(!keeps(
            &filter,
            &repo,
            &pull(2, PrState::Open, "feature", Some("fork/widgets"))
        ));
        assert!(!keeps(
            &filter,
            &repo,
            &pull(3, PrState::Open, "feature", None)
        ));
        assert!(!keeps(
            &filter,
            &repo,
            &pull(4, PrState::Open, "other", Some("acme/widgets"))
        ));
        let open = PullFilter {
            state: PullListState::Open,
            head: None,
            base: Some("develop".into()),
            limit: 10,
            ..PullFilter::default()
        };
        assert!(!keeps(
            &open,
            &repo,
            &pull(5, PrState::Open, "x", Some("acme/widgets"))
        ));
        let open = PullFilter { base: None, ..open };
        assert!(!keeps(
            &open,
            &repo,
            &pull(6, PrState::Merged, "x", Some("acme/widgets"))
        ));
    }

    #[test]
    fn closed_merged_author_and_draft_filters() {
        let repo = RepoRef::parse("acme/widgets").unwrap();
        let own = Some("acme/widgets");
        let keeps_state = |state, pr_state| {
            let filter = PullFilter {
                state,
                ..PullFilter::default()
            };
            keeps(&filter, &repo, &pull(1, pr_state, "x", own))
        };
        assert!(keeps_state(PullListState::Closed, PrState::Closed));
        assert!(!keeps_state(PullListState::Closed, PrState::Merged));
        assert!(keeps_state(PullListState::Merged, PrState::Merged));
        assert!(!keeps_state(PullListState::Merged, PrState::Open));
        let by_a = PullFilter {
            author: Some("A".into()),
            draft: Some(false),
            ..PullFilter::default()
        };
        assert!(keeps(&by_a, &repo, &pull(1, PrState::Open, "x", own)));
        let mut draft = pull(2, PrState::Open, "x", own);
        draft.draft = true;
        assert!(!keeps(&by_a, &repo, &draft));
        let by_b = PullFilter {
            author: Some("b".into()),
            ..PullFilter::default()
        };
        assert!(!keeps(&by_b, &repo, &pull(3, PrState::Open, "x", own)));
        assert_eq!(state_param(PullListState::Merged), "closed");
    }

    #[test]
    fn forks_are_told_apart_case_insensitively() {
        assert!(!pull(1, PrState::Open, "f", Some("acme/WIDGETS")).is_from_fork());
        assert!(pull(1, PrState::Open, "f", Some("other/widgets")).is_from_fork());
        assert!(pull(1, PrState::Open, "f", None).is_from_fork());
    }

    #[test]
    fn branch_names_that_git_refuses_are_usage_errors() {
        for bad in [
            "",
            "a b",
            "a;rm -rf ~",
            "tab\there",
            "nl\n",
            &"x".repeat(256),
        ] {
            let e = check_branch_name("base", bad).unwrap_err();
            assert!(matches!(e, Error::Usage { .. }), "{bad:?}: {e:?}");
        }
        for good in ["main", "-x", "$(id)", "feature/a.b", "ünïcode"] {
            check_branch_name("base", good).unwrap();
        }
    }

    #[test]
    fn only_open_pull_requests_are_retargeted() {
        let pr = PrRef::parse("acme/widgets#1").unwrap();
        check_retargetable(&pr, &pull(1, PrState::Open, "f", None)).unwrap();
        for state in [PrState::Closed, PrState::Merged] {
            let e = check_retargetable(&pr, &pull(1, state, "f", None)).unwrap_err();
            assert!(matches!(e, Error::Precondition { .. }), "{e:?}");
        }
        let e = check_retargeted(&pr, "develop", pull(1, PrState::Open, "f", None)).unwrap_err();
        assert!(matches!(e, Error::InvalidBody { .. }), "{e:?}");
    }
}
