//! PLACEHOLDER: what a Forgejo pull request's merge needs (`Repository::merge_facts`).

use resolve_pr_core::PrRef;

use super::Forgejo;
use crate::repository::MergeFacts;
use crate::{Error, Result};

pub(crate) async fn merge_facts(_forge: &Forgejo, _pr: &PrRef) -> Result<MergeFacts> {
    Err(Error::unsupported(
        "merge_facts",
        "forgejo",
        "not implemented yet",
    ))
}
