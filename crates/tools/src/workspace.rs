//! What the workspace tools share: their refusals as categorized errors, the plan's meta
//! (its language chooses the ecosystem's checker), and reading a manifest.

use std::path::Path;

use resolve_pr_code::manifests::{Ecosystem, Refusal};
use resolve_pr_core::{Error, ErrorCode};
use resolve_pr_edit::{PlanMeta, Warning};

/// A refusal of the manifests layer: the field at fault in `details.field`.
pub(crate) fn refused(r: Refusal) -> Error {
    let code = match r.field {
        "path" | "source" | "target" | "manifest" | "directory" => ErrorCode::InvalidPath,
        _ => ErrorCode::InvalidArgument,
    };
    let mut e = Error::user(r.message)
        .with_code(code)
        .with_detail("field", r.field);
    if let Some(s) = r.suggestion {
        e = e.with_suggestion(s);
    }
    e
}

/// A field a plan needs (an apply by plan_id goes without).
pub(crate) fn needs(tool: &str, field: &'static str) -> Error {
    Error::user(format!(
        "{tool} needs {field} to plan; only an apply by plan_id goes without"
    ))
    .with_code(ErrorCode::InvalidArgument)
    .with_detail("field", field)
}

pub(crate) fn meta(
    plan_type: &str,
    kind: &str,
    eco: Ecosystem,
    warnings: Vec<Warning>,
) -> PlanMeta {
    PlanMeta {
        plan_type: plan_type.into(),
        kind: kind.into(),
        // The checker verify runs: the ecosystem's own tool on the workspace.
        language: Some(eco.check_language().into()),
        warnings,
    }
}

pub(crate) fn note(code: &str, message: impl Into<String>) -> Warning {
    Warning {
        code: code.into(),
        message: message.into(),
    }
}

/// A manifest's text, relative to the checkout.
pub(crate) fn read(root: &Path, rel: &Path, field: &'static str) -> Result<String, Error> {
    std::fs::read_to_string(root.join(rel)).map_err(|e| {
        Error::user(format!("{} cannot be read: {e}", rel.display()))
            .with_code(ErrorCode::InvalidPath)
            .with_detail("field", field)
    })
}

/// "nothing to change" with what was found instead.
pub(crate) fn nothing(tool: &str, why: &[String]) -> Error {
    Error::user(format!(
        "{tool} found nothing to change: {}",
        why.join("; ")
    ))
    .with_code(ErrorCode::NotSupported)
}
