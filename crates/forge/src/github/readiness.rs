//! PLACEHOLDER: what a GitHub pull request's merge needs (`Repository::merge_facts`).

use resolve_pr_core::PrRef;

use super::GitHub;
use crate::repository::MergeFacts;
use crate::{Error, Result};

pub(crate) async fn merge_facts(_forge: &GitHub, _pr: &PrRef) -> Result<MergeFacts> {
    Err(Error::unsupported(
        "merge_facts",
        "github",
        "not implemented yet",
    ))
}
