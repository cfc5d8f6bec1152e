//! What the tools' simulator-backed tests share: loading a scenario (built in, a file in
//! forge-sim's scenarios, or inline YAML) and a tool context whose forges point at a running
//! simulator, with fast retries and no access to the developer's environment.

#![allow(dead_code, unused_macros)] // each test file uses a part

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use resolve_pr_core::CursorCodec;
use resolve_pr_forge::{ClientOptions, Config, Forges, RetryPolicy};
use resolve_pr_forge_sim::{Scenario, SimHandle};
use resolve_pr_tools::Context;

/// Declares `github::NAME` and `forgejo::NAME` tests for each `async fn NAME(Flavor)` listed.
/// The calling file must have `Flavor` in scope.
macro_rules! on_both_forges {
    ($($name:ident),* $(,)?) => {
        mod github {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::GitHub).await })*
        }
        mod forgejo {
            $(#[tokio::test] async fn $name() { super::$name(super::Flavor::Forgejo).await })*
        }
    };
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    GitHub,
    Forgejo,
}

/// A built-in scenario, a file in forge-sim's `scenarios/`, or inline YAML.
pub fn scenario(name_or_yaml: &str) -> Scenario {
    Scenario::builtin(name_or_yaml)
        .or_else(|| {
            let path = format!(
                "{}/../forge-sim/scenarios/{name_or_yaml}.yaml",
                env!("CARGO_MANIFEST_DIR")
            );
            Scenario::from_file(std::path::Path::new(&path)).ok()
        })
        .or_else(|| Scenario::from_yaml(name_or_yaml).ok())
        .unwrap_or_else(|| panic!("no scenario {name_or_yaml:?}"))
}

/// The YAML of a file in forge-sim's `scenarios/`.
pub fn scenario_text(name: &str) -> String {
    let path = format!(
        "{}/../forge-sim/scenarios/{name}.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A context whose forges are the simulator, reached with `token`. Cursors are signed with
/// `cursor_key`, so two contexts with the same key honour each other's cursors.
pub fn context(flavor: Flavor, sim: &SimHandle, token: &str, cursor_key: [u8; 32]) -> Context {
    let base = sim.base_url();
    let env: HashMap<String, String> = match flavor {
        Flavor::GitHub => HashMap::from([
            ("GITHUB_API_URL".to_owned(), base),
            ("GITHUB_TOKEN".to_owned(), token.to_owned()),
        ]),
        Flavor::Forgejo => HashMap::from([
            ("FORGEJO_HOST".to_owned(), base),
            ("FORGEJO_TOKEN".to_owned(), token.to_owned()),
        ]),
    };
    let env = Arc::new(env);
    let lookup = {
        let env = env.clone();
        move |k: &str| env.get(k).cloned()
    };
    let config = Config::from_parts(None, None, &lookup).expect("config");
    let options = ClientOptions {
        env: Arc::new(lookup),
        gh_cli: false,
        retry: RetryPolicy {
            max_retries: 2,
            max_total_wait: Duration::from_secs(2),
            min_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
        },
        ..ClientOptions::default()
    };
    Context::new(
        Arc::new(Forges::with_options(config, options)),
        CursorCodec::new(cursor_key),
    )
}
