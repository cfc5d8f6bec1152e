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
         author { login __typename } commit { oid } \
         reactionGroups { content reactors { totalCount } } }"
    };
}

/// The fields of one thread with its first 100 comments; the rest are paged with
/// `REVIEW_THREAD_COMMENTS`.
macro_rules! thread_fragment {
    () => {
        "fragment ReviewThreadFields on PullRequestReviewThread { \
         id isResolved isOutdated path line startLine originalLine diffSide subjectType \
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
/// request. Branch rules answer this too, but classic branch protection needs admin rights;
/// `isRequired` needs only read access. `headRefOid` says which commit the answer is for.
pub const REQUIRED_CHECKS: &str = "query RequiredChecks($owner: String!, $name: String!, \
     $number: Int!, $after: String) { repository(owner: $owner, name: $name) { \
     pullRequest(number: $number) { headRefOid statusCheckRollup { \
     contexts(first: 100, after: $after) { pageInfo { hasNextPage endCursor } \
     nodes { __typename ... on CheckRun { name isRequired(pullRequestNumber: $number) } \
     ... on StatusContext { context isRequired(pullRequestNumber: $number) } } } } } } }";

/// `(name, document)` of every document above.
pub const ALL: &[(&str, &str)] = &[
    ("VIEWER", VIEWER),
    ("RATE_LIMIT", RATE_LIMIT),
    ("REVIEW_THREADS", REVIEW_THREADS),
    ("REVIEW_THREAD_COMMENTS", REVIEW_THREAD_COMMENTS),
    ("REVIEW_THREAD", REVIEW_THREAD),
    ("ADD_REVIEW_THREAD_REPLY", ADD_REVIEW_THREAD_REPLY),
    ("RESOLVE_REVIEW_THREAD", RESOLVE_REVIEW_THREAD),
    ("UNRESOLVE_REVIEW_THREAD", UNRESOLVE_REVIEW_THREAD),
    ("REQUIRED_CHECKS", REQUIRED_CHECKS),
];
