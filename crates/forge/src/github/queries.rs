//! Every GraphQL document the GitHub client sends, in one place, so a test can validate each
//! against GitHub's published schema and a reviewer sees the whole GraphQL surface at once.
//!
//! Review threads are only in GraphQL (REST has no thread ids and no resolution state), so
//! listing, replying and resolving all go through the documents below. Each document carries
//! the fragments it uses, so every one is complete on its own.

/// The login behind the token: a cheap way to check a token works.
pub const VIEWER: &str = "query Viewer { viewer { login } }";

/// The GraphQL rate-limit budget of the token (GraphQL has its own, point-based limit).
pub const RATE_LIMIT: &str = "query RateLimit { rateLimit { limit remaining resetAt cost } }";

/// The fields of one review comment; `author` is null for a deleted account. `fullDatabaseId`
/// (a BigInt string), not the deprecated 32-bit `databaseId`: comment ids outgrew 32 bits.
/// No `replyTo`: every reply in a thread answers its first comment (as REST's
/// `in_reply_to_id` says), so the client knows it without asking.
macro_rules! comment_fragment {
    () => {
        "fragment ReviewCommentFields on PullRequestReviewComment { \
         id fullDatabaseId body createdAt updatedAt url diffHunk authorAssociation \
         author { login __typename } commit { oid } isMinimized minimizedReason \
         reactionGroups { content reactors { totalCount } } }"
    };
}

/// The fields of one thread with its first 100 comments; the rest are paged with
/// `REVIEW_THREAD_COMMENTS`.
macro_rules! thread_fragment {
    () => {
        "fragment ReviewThreadFields on PullRequestReviewThread { \
         id isResolved isOutdated path line startLine originalLine originalStartLine diffSide \
         subjectType \
         viewerCanResolve viewerCanUnresolve viewerCanReply resolvedBy { login __typename } \
         comments(first: 100) { totalCount pageInfo { hasNextPage endCursor } \
         nodes { ...ReviewCommentFields } } }"
    };
}

/// One page (100) of a pull request's review threads. A null `pullRequest` means the
/// number is not a pull request.
pub const REVIEW_THREADS: &str = concat!(
    "query ReviewThreads($owner: String!, $name: String!, $number: Int!, $after: String) { \
     repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
     reviewThreads(first: 100, after: $after) { pageInfo { hasNextPage endCursor } \
     nodes { ...ReviewThreadFields } } } } } ",
    thread_fragment!(),
    " ",
    comment_fragment!()
);

/// The next page (100) of one thread's comments, for threads longer than the first page.
pub const REVIEW_THREAD_COMMENTS: &str = concat!(
    "query ReviewThreadComments($id: ID!, $after: String) { node(id: $id) { \
     ... on PullRequestReviewThread { comments(first: 100, after: $after) { \
     pageInfo { hasNextPage endCursor } nodes { ...ReviewCommentFields } } } } } ",
    comment_fragment!()
);

/// One thread by node id, with the pull request it belongs to so a thread of another PR is
/// told apart from a missing one.
pub const REVIEW_THREAD: &str = concat!(
    "query ReviewThread($id: ID!) { node(id: $id) { __typename \
     ... on PullRequestReviewThread { ...ReviewThreadFields \
     pullRequest { number repository { nameWithOwner } } } } } ",
    thread_fragment!(),
    " ",
    comment_fragment!()
);

/// Posts a reply at the end of a thread.
pub const ADD_REVIEW_THREAD_REPLY: &str = concat!(
    "mutation AddReviewThreadReply($id: ID!, $body: String!) { \
     addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) { \
     comment { ...ReviewCommentFields } } } ",
    comment_fragment!()
);

/// Marks a thread resolved and returns it afterwards.
pub const RESOLVE_REVIEW_THREAD: &str = concat!(
    "mutation ResolveReviewThread($id: ID!) { resolveReviewThread(input: {threadId: $id}) { \
     thread { ...ReviewThreadFields } } } ",
    thread_fragment!(),
    " ",
    comment_fragment!()
);

/// The resolve mutation agents run themselves (`gh api graphql -f query=… -f id=…`, see
/// `github::commands`): only what `gh` prints back, no fragments.
pub const RESOLVE_REVIEW_THREAD_COMMAND: &str = "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }";

/// Marks a thread unresolved and returns it afterwards.
pub const UNRESOLVE_REVIEW_THREAD: &str = concat!(
    "mutation UnresolveReviewThread($id: ID!) { unresolveReviewThread(input: {threadId: $id}) { \
     thread { ...ReviewThreadFields } } } ",
    thread_fragment!(),
    " ",
    comment_fragment!()
);

/// Which checks of a pull request's head commit are required to merge it: one page (100)
/// of the head's check runs and commit statuses, each with `isRequired` for this pull
/// request, and the base's classic protection as those who may push see it
/// (`refUpdateRule`, with `viewerPermission` to tell "no rule" from "hidden"). REST's
/// classic protection needs admin rights; these need push (`refUpdateRule`) or read access
/// (`isRequired`, which knows only the checks that reported). `headRefOid` says which commit
/// the answer is for.
pub const REQUIRED_CHECKS: &str = "query RequiredChecks($owner: String!, $name: String!, \
     $number: Int!, $after: String) { repository(owner: $owner, name: $name) { \
     viewerPermission pullRequest(number: $number) { headRefOid \
     baseRef { refUpdateRule { requiredStatusCheckContexts } } statusCheckRollup { \
     contexts(first: 100, after: $after) { pageInfo { hasNextPage endCursor } \
     nodes { __typename ... on CheckRun { name isRequired(pullRequestNumber: $number) } \
     ... on StatusContext { context isRequired(pullRequestNumber: $number) } } } } } } }";
// What `find_unresolved_comments` reads, and only that. Points are what GitHub's published
// rule gives (each connection: one request per object of its enclosing connections; the sum
// / 100, rounded, at least 1): every document below costs 1 point. Reactions are kept out of
// the big pages on purpose: a reactions count under 100 threads x 100 comments is 10,000
// requests (100 points); asked for the listed comments by id, it is 1 point per 100.

/// Review comment fields as the feedback list reads them (no reactions: see below).
macro_rules! feedback_comment_fields {
    () => {
        "id fullDatabaseId body createdAt updatedAt url diffHunk authorAssociation \
         author { login __typename } commit { oid } isMinimized minimizedReason"
    };
}

/// A review thread's fields the feedback list shows (no `resolvedBy`: only unresolved threads
/// are listed), with its first 100 comments; longer threads continue in
/// [`review_feedback_round`].
macro_rules! feedback_thread_page {
    () => {
        concat!(
            "fragment FeedbackThreadPage on PullRequestReviewThreadConnection { \
             pageInfo { hasNextPage endCursor } nodes { \
             id isResolved isOutdated path line startLine originalLine originalStartLine \
             diffSide subjectType viewerCanResolve viewerCanUnresolve viewerCanReply \
             comments(first: 100) { totalCount pageInfo { hasNextPage endCursor } nodes { ",
            feedback_comment_fields!(),
            " } } } }"
        )
    };
}

/// Reviews that can carry feedback (CHANGES_REQUESTED, COMMENTED).
macro_rules! feedback_review_page {
    () => {
        "fragment FeedbackReviewPage on PullRequestReviewConnection { totalCount \
         pageInfo { hasNextPage endCursor } nodes { fullDatabaseId state body submittedAt \
         updatedAt url authorAssociation author { login __typename } commit { oid } \
         isMinimized minimizedReason } }"
    };
}

/// Conversation comments.
macro_rules! feedback_comment_page {
    () => {
        "fragment FeedbackCommentPage on IssueCommentConnection { totalCount \
         pageInfo { hasNextPage endCursor } nodes { fullDatabaseId body createdAt updatedAt url \
         authorAssociation author { login __typename } isMinimized minimizedReason } }"
    };
}

/// The pull request and the first page of each of its feedback lists, in one request. A null
/// `pullRequest` means the number is not a pull request.
pub const REVIEW_FEEDBACK: &str = concat!(
    "query ReviewFeedback($owner: String!, $name: String!, $number: Int!) { \
     repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
     number title body labels(first: 100) { nodes { name } } state isDraft url headRefName \
     headRefOid baseRefName baseRefOid updatedAt mergedAt mergeCommit { oid } mergeable \
     mergeStateStatus \
     baseRepository { nameWithOwner url } headRepository { nameWithOwner url } \
     author { login __typename } \
     reviewThreads(first: 100) { ...FeedbackThreadPage } \
     reviews(first: 100, states: [CHANGES_REQUESTED, COMMENTED]) { ...FeedbackReviewPage } \
     comments(first: 100) { ...FeedbackCommentPage } } } } ",
    feedback_thread_page!(),
    " ",
    feedback_review_page!(),
    " ",
    feedback_comment_page!()
);

/// Long threads' comment pages asked for in one round at most.
pub const FEEDBACK_THREADS_PER_ROUND: usize = 20;
/// Reaction lists (of 100 comments each) asked for in one round at most.
pub const FEEDBACK_REACTIONS_PER_ROUND: usize = 10;

/// What one round after [`REVIEW_FEEDBACK`] asks for, all in one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeedbackRound {
    /// The next page (100) of review threads (`$threads`: the cursor).
    pub threads: bool,
    /// The next page (100) of reviews (`$reviews`).
    pub reviews: bool,
    /// The next page (100) of conversation comments (`$comments`).
    pub comments: bool,
    /// Long threads' next comment pages: thread `$t0`… after `$a0`…, answered as `t0`….
    pub thread_comments: usize,
    /// Reactions of up to 100 review comments each, ids `$r0`…, answered as `r0`….
    pub reactions: usize,
}

impl FeedbackRound {
    pub fn is_empty(&self) -> bool {
        *self == FeedbackRound::default()
    }
}

/// One round of the feedback read after the first request: whatever the lists, the long
/// threads and the reactions still need, as aliases of one document, so a round trip is
/// paid once per round rather than once per list, thread and 100 reactions. Reactions are
/// asked for by id on purpose: a reactions count inside a page of 100 threads x 100 comments
/// is 10,000 requests (100 points), by id 1 per 100 comments. With at most
/// [`FEEDBACK_THREADS_PER_ROUND`] and [`FEEDBACK_REACTIONS_PER_ROUND`], a round costs 1
/// point (101 + 2 + 20 + 10 requests).
pub fn review_feedback_round(round: &FeedbackRound) -> String {
    let threads = round.thread_comments.min(FEEDBACK_THREADS_PER_ROUND);
    let reactions = round.reactions.min(FEEDBACK_REACTIONS_PER_ROUND);
    let mut vars = Vec::new();
    let mut fields = String::new();
    let mut fragments = String::new();
    let mut pull = String::new();
    if round.threads {
        vars.push("$threads: String!".to_owned());
        pull.push_str(" reviewThreads(first: 100, after: $threads) { ...FeedbackThreadPage }");
        fragments.push_str(concat!(" ", feedback_thread_page!()));
    }
    if round.reviews {
        vars.push("$reviews: String!".to_owned());
        pull.push_str(
            " reviews(first: 100, after: $reviews, states: [CHANGES_REQUESTED, COMMENTED]) \
             { ...FeedbackReviewPage }",
        );
        fragments.push_str(concat!(" ", feedback_review_page!()));
    }
    if round.comments {
        vars.push("$comments: String!".to_owned());
        pull.push_str(" comments(first: 100, after: $comments) { ...FeedbackCommentPage }");
        fragments.push_str(concat!(" ", feedback_comment_page!()));
    }
    if !pull.is_empty() {
        vars.splice(
            0..0,
            [
                "$owner: String!".to_owned(),
                "$name: String!".to_owned(),
                "$number: Int!".to_owned(),
            ],
        );
        fields.push_str(&format!(
            " repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{{pull} }} }}"
        ));
    }
    for i in 0..threads {
        vars.push(format!("$t{i}: ID!, $a{i}: String!"));
        fields.push_str(&format!(
            " t{i}: node(id: $t{i}) {{ ... on PullRequestReviewThread {{ \
             comments(first: 100, after: $a{i}) {{ pageInfo {{ hasNextPage endCursor }} \
             nodes {{ {} }} }} }} }}",
            feedback_comment_fields!()
        ));
    }
    for i in 0..reactions {
        vars.push(format!("$r{i}: [ID!]!"));
        fields.push_str(&format!(
            " r{i}: nodes(ids: $r{i}) {{ ... on PullRequestReviewComment {{ id \
             reactionGroups {{ content reactors {{ totalCount }} }} }} }}"
        ));
    }
    format!(
        "query ReviewFeedbackRound({}) {{{fields} }}{fragments}",
        vars.join(", ")
    )
}

/// What tells whether a snapshot of the feedback is still current, for 1 point per 100
/// threads: the head commit and `updatedAt` (new comments and reviews move it), every
/// thread's resolution (GitHub documents no `updatedAt` change when a thread is resolved),
/// and the count, edit times and minimized state of the first 100 items of every list. The
/// reviews and comments come with the first page (`$after` null) and are ignored on later
/// ones.
pub const REVIEW_FEEDBACK_VERSION: &str = "query ReviewFeedbackVersion($owner: String!, \
     $name: String!, $number: Int!, $after: String) { repository(owner: $owner, name: $name) { \
     pullRequest(number: $number) { headRefOid updatedAt \
     reviews(first: 100, states: [CHANGES_REQUESTED, COMMENTED]) { totalCount \
     nodes { updatedAt isMinimized } } \
     comments(first: 100) { totalCount nodes { updatedAt isMinimized } } \
     reviewThreads(first: 100, after: $after) { pageInfo { hasNextPage endCursor } \
     nodes { id isResolved comments(first: 100) { totalCount \
     nodes { updatedAt isMinimized } } } } } } }";

// Repository contents (impact and review). Paths and revisions are always variables, never
// text of the document: a path may hold quotes, braces or anything else git allows.

/// The fields read of a file at a revision.
const BLOB_FIELDS: &str = "... on Blob { text isBinary byteSize isTruncated }";

/// How many files `file_texts` asks for in one document.
pub const FILE_TEXTS_PER_QUERY: usize = 50;

/// How many paths `path_histories` asks about in one document.
pub const HISTORIES_PER_QUERY: usize = 20;

/// The texts of `count` files (1..=[`FILE_TEXTS_PER_QUERY`]): variables `$e0`… are object
/// expressions (`REV:PATH`), answered as aliases `f0`…; a missing file is `null`, a
/// binary one has a null `text`. `revision` (`$rev`) tells a missing revision from missing
/// files. Costs 1 point (no connection).
pub fn file_texts(count: usize) -> String {
    let count = count.clamp(1, FILE_TEXTS_PER_QUERY);
    let mut vars = String::new();
    let mut fields = String::new();
    for i in 0..count {
        vars.push_str(&format!(", $e{i}: String!"));
        fields.push_str(&format!(
            " f{i}: object(expression: $e{i}) {{ {BLOB_FIELDS} }}"
        ));
    }
    format!(
        "query FileTexts($owner: String!, $name: String!, $rev: String!{vars}) {{ \
         repository(owner: $owner, name: $name) {{ revision: object(expression: $rev) {{ oid }}\
         {fields} }} }}"
    )
}

/// The last `$n` commits (at most 100) of `$rev` that changed each of `count` paths
/// (1..=[`HISTORIES_PER_QUERY`]): variables `$p0`… are the paths, answered as aliases `h0`….
/// Each alias is one connection: 20 of them cost 1 point.
pub fn path_histories(count: usize) -> String {
    let count = count.clamp(1, HISTORIES_PER_QUERY);
    let mut vars = String::new();
    let mut fields = String::new();
    for i in 0..count {
        vars.push_str(&format!(", $p{i}: String!"));
        fields.push_str(&format!(
            " h{i}: history(first: $n, path: $p{i}) {{ nodes {{ ...HistoryCommit }} }}"
        ));
    }
    format!(
        "query PathHistories($owner: String!, $name: String!, $rev: String!, $n: Int!{vars}) {{ \
         repository(owner: $owner, name: $name) {{ object(expression: $rev) {{ \
         ... on Commit {{{fields} }} }} }} }} \
         fragment HistoryCommit on Commit {{ oid message authoredDate \
         author {{ name user {{ login }} }} }}"
    )
}

/// The `$n` (at most 50) most recently updated closed or merged pull requests, each with
/// its first 100 changed paths: 1 + 50 connections, 1 point.
pub const RECENT_CLOSED_PULLS: &str = "query RecentClosedPulls($owner: String!, $name: String!, \
     $n: Int!) { repository(owner: $owner, name: $name) { \
     pullRequests(states: [MERGED, CLOSED], first: $n, \
     orderBy: {field: UPDATED_AT, direction: DESC}) { nodes { number title merged closedAt \
     files(first: 100) { nodes { path } } } } } }";

/// GitHub's three code owners locations at one revision, as `REV:PATH` expressions in
/// GitHub's order (`.github/`, root, `docs/`), and the revision itself (`revision`, null when
/// it does not exist). Costs 1 point.
pub const CODE_OWNERS: &str = "query CodeOwners($owner: String!, $name: String!, \
     $rev: String!, $github: String!, $root: String!, $docs: String!) { \
     repository(owner: $owner, name: $name) { revision: object(expression: $rev) { oid } \
     github: object(expression: $github) { ... on Blob { text isBinary byteSize isTruncated } } \
     root: object(expression: $root) { ... on Blob { text isBinary byteSize isTruncated } } \
     docs: object(expression: $docs) { ... on Blob { text isBinary byteSize isTruncated } } } }";
/// Everything `merge_facts` reads in one request: the pull request, its mergeability and
/// review decision, the latest opinionated review of each writer, pending review requests,
/// the first 100 checks of the head with `isRequired`, the first 100 review threads'
/// resolution, the viewer's permission, and the classic protection rule of the base branch:
/// as it binds the viewer (`refUpdateRule`, null to a reader) and whole (`branchProtectionRule`,
/// admins only); a FORBIDDEN error on either field alone leaves the rest usable.
/// Connections: 4 under one pull request, 1 point.
pub const MERGE_FACTS: &str = "query MergeFacts($owner: String!, $name: String!, \
     $number: Int!) { repository(owner: $owner, name: $name) { viewerPermission \
     pullRequest(number: $number) { \
     number title body labels(first: 100) { nodes { name } } state isDraft url headRefName headRefOid baseRefName baseRefOid \
     mergedAt mergeCommit { oid } mergeable mergeStateStatus reviewDecision isInMergeQueue \
     viewerCanMergeAsAdmin autoMergeRequest { mergeMethod } \
     baseRepository { nameWithOwner url } headRepository { nameWithOwner url } \
     author { login __typename } \
     latestOpinionatedReviews(first: 100, writersOnly: true) { pageInfo { hasNextPage } \
     nodes { state author { login __typename } commit { oid } } } \
     reviewRequests(first: 100) { nodes { requestedReviewer { __typename \
     ... on User { login } ... on Bot { login } ... on Mannequin { login } \
     ... on Team { combinedSlug } } } } \
     statusCheckRollup { contexts(first: 100) { pageInfo { hasNextPage endCursor } \
     nodes { __typename \
     ... on CheckRun { name status conclusion detailsUrl isRequired(pullRequestNumber: $number) } \
     ... on StatusContext { context state targetUrl isRequired(pullRequestNumber: $number) } } } } \
     reviewThreads(first: 100) { pageInfo { hasNextPage endCursor } nodes { isResolved } } \
     baseRef { refUpdateRule { requiredApprovingReviewCount requiredStatusCheckContexts \
     requiresCodeOwnerReviews requiresConversationResolution requiresLinearHistory \
     requiresSignatures } branchProtectionRule { isAdminEnforced requiresStrictStatusChecks \
     requiredApprovingReviewCount requiredStatusCheckContexts requiresCodeOwnerReviews \
     requiresConversationResolution requiresLinearHistory requiresCommitSignatures \
     dismissesStaleReviews } } } } }";

/// A later page (100) of the head's checks for `merge_facts`.
pub const MERGE_FACTS_CHECKS: &str = "query MergeFactsChecks($owner: String!, \
     $name: String!, $number: Int!, $after: String!) { repository(owner: $owner, name: $name) { \
     pullRequest(number: $number) { headRefOid statusCheckRollup { \
     contexts(first: 100, after: $after) { pageInfo { hasNextPage endCursor } \
     nodes { __typename \
     ... on CheckRun { name status conclusion detailsUrl isRequired(pullRequestNumber: $number) } \
     ... on StatusContext { context state targetUrl isRequired(pullRequestNumber: $number) } \
     } } } } } }";

/// A later page (100) of review threads' resolution for `merge_facts`.
pub const MERGE_FACTS_THREADS: &str = "query MergeFactsThreads($owner: String!, \
     $name: String!, $number: Int!, $after: String!) { repository(owner: $owner, name: $name) { \
     pullRequest(number: $number) { reviewThreads(first: 100, after: $after) { \
     pageInfo { hasNextPage endCursor } nodes { isResolved } } } } }";

/// Mergeability alone, asked again after a pause while GitHub is still computing it.
pub const MERGE_FACTS_MERGEABLE: &str = "query MergeFactsMergeable($owner: String!, \
     $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { \
     pullRequest(number: $number) { mergeable mergeStateStatus } } }";

/// The first 100 force-pushes of a pull request's head branch: the head before and after
/// each (a commit GitHub no longer has is null). A null `pullRequest`: not a pull request.
pub const HEAD_FORCE_PUSHES: &str = "query HeadForcePushes($owner: String!, $name: String!, \
     $number: Int!) { repository(owner: $owner, name: $name) { pullRequest(number: $number) { \
     timelineItems(first: 100, itemTypes: [HEAD_REF_FORCE_PUSHED_EVENT]) { totalCount \
     nodes { __typename ... on HeadRefForcePushedEvent { beforeCommit { oid } \
     afterCommit { oid } } } } } } }";

/// `(name, document)` of every document above.
pub const ALL: &[(&str, &str)] = &[
    ("VIEWER", VIEWER),
    ("RATE_LIMIT", RATE_LIMIT),
    ("REVIEW_THREADS", REVIEW_THREADS),
    ("REVIEW_THREAD_COMMENTS", REVIEW_THREAD_COMMENTS),
    ("REVIEW_THREAD", REVIEW_THREAD),
    ("ADD_REVIEW_THREAD_REPLY", ADD_REVIEW_THREAD_REPLY),
    ("RESOLVE_REVIEW_THREAD", RESOLVE_REVIEW_THREAD),
    (
        "RESOLVE_REVIEW_THREAD_COMMAND",
        RESOLVE_REVIEW_THREAD_COMMAND,
    ),
    ("UNRESOLVE_REVIEW_THREAD", UNRESOLVE_REVIEW_THREAD),
    ("REQUIRED_CHECKS", REQUIRED_CHECKS),
    ("REVIEW_FEEDBACK", REVIEW_FEEDBACK),
    ("REVIEW_FEEDBACK_VERSION", REVIEW_FEEDBACK_VERSION),
    ("RECENT_CLOSED_PULLS", RECENT_CLOSED_PULLS),
    ("CODE_OWNERS", CODE_OWNERS),
    ("MERGE_FACTS", MERGE_FACTS),
    ("MERGE_FACTS_CHECKS", MERGE_FACTS_CHECKS),
    ("MERGE_FACTS_THREADS", MERGE_FACTS_THREADS),
    ("MERGE_FACTS_MERGEABLE", MERGE_FACTS_MERGEABLE),
    ("HEAD_FORCE_PUSHES", HEAD_FORCE_PUSHES),
];
