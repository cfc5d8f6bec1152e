//! The simulator's CI side over plain HTTP: the redirect to blob storage on another port and
//! what the storage records, Range answers, completing a check through `/_sim/checks/complete`,
//! logs read from `log_file`, and the Forgejo description listing the Actions routes.

use crate::common;

use resolve_pr_forge_sim::{Scenario, Sim, SimHandle};
use serde_json::Value;

fn no_redirects() -> reqwest::Client {
    common::install_crypto();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn start(name: &str) -> SimHandle {
    Sim::start(Scenario::builtin(name).unwrap()).await.unwrap()
}

#[tokio::test]
async fn job_logs_redirect_to_storage_on_another_port_which_honours_ranges() {
    let sim = start("ci_failing").await;
    let client = no_redirects();
    let answer = client
        .get(format!(
            "{}/repos/acme/widgets/actions/jobs/9201/logs",
            sim.base_url()
        ))
        .bearer_auth("ghp_write")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 302);
    let location = answer.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with(&sim.storage_url()), "{location}");
    assert_ne!(sim.storage_url(), sim.base_url());

    let whole = client.get(&location).send().await.unwrap();
    assert_eq!(whole.status(), 200);
    let text = whole.text().await.unwrap();
    assert!(text.contains("##[group]Run pytest"));

    let tail = client
        .get(&location)
        .header("range", "bytes=-46")
        .bearer_auth("ghp_write")
        .send()
        .await
        .unwrap();
    assert_eq!(tail.status(), 206);
    let range = tail.headers()["content-range"].to_str().unwrap().to_owned();
    assert_eq!(
        range,
        format!(
            "bytes {}-{}/{}",
            text.len() - 46,
            text.len() - 1,
            text.len()
        )
    );
    assert_eq!(
        tail.text().await.unwrap(),
        &text[text.len() - 46..],
        "the last 46 bytes"
    );

    let seen = sim.storage_requests();
    assert_eq!(seen.len(), 2);
    assert!(!seen[0].authorization);
    assert!(seen[1].authorization, "recorded when a client sends it");
    assert_eq!(seen[1].range.as_deref(), Some("bytes=-46"));
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

#[tokio::test]
async fn checks_complete_through_the_control_endpoint() {
    let sim = start("ci_running").await;
    let client = common::client();
    let list = |client: reqwest::Client, base: String| async move {
        let v: Value = client
            .get(format!(
                "{base}/repos/acme/widgets/commits/b2c3d4e5f60718293a4b5c6d7e8f901234567890/check-runs"
            ))
            .bearer_auth("ghp_write")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["check_runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "test / e2e")
            .cloned()
            .unwrap()
    };
    let before = list(client.clone(), sim.base_url()).await;
    assert_eq!(before["status"], "queued");
    let done = client
        .post(format!("{}/_sim/checks/complete", sim.base_url()))
        .body(r#"{"name": "test / e2e", "conclusion": "failure"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 200);
    let after = list(client.clone(), sim.base_url()).await;
    assert_eq!(
        (after["status"].as_str(), after["conclusion"].as_str()),
        (Some("completed"), Some("failure"))
    );
    let unknown = client
        .post(format!("{}/_sim/checks/complete", sim.base_url()))
        .body(r#"{"name": "nope"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(sim.contract_violations(), Vec::<String>::new());
}

#[tokio::test]
async fn logs_can_come_from_a_file_next_to_the_scenario() {
    let dir = std::env::temp_dir().join(format!("forge-sim-log-file-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(dir.join("logs/job.log"), "hello from a file\n").unwrap();
    std::fs::write(
        dir.join("scenario.yaml"),
        r#"
forge: github
tokens: [{token: t, login: alice, permission: read}]
repos:
  - owner: o
    name: r
    pulls:
      - number: 1
        title: t
        author: alice
        head: {ref: h, sha: "1111111111111111111111111111111111111111"}
        base: {ref: main, sha: "2222222222222222222222222222222222222222"}
        created_at: "2024-01-01T00:00:00Z"
        workflow_jobs:
          - {id: 5, run_id: 6, name: build, conclusion: failure, log_file: logs/job.log}
        check_runs:
          - {name: build, job_id: 5, conclusion: failure}
"#,
    )
    .unwrap();
    let scenario = Scenario::from_file(&dir.join("scenario.yaml")).unwrap();
    let sim = Sim::start(scenario).await.unwrap();
    let client = common::client();
    let text = client
        .get(format!("{}/repos/o/r/actions/jobs/5/logs", sim.base_url()))
        .bearer_auth("t")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(text, "hello from a file\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_check_run_id_that_differs_from_its_job_is_rejected() {
    let text = r#"
forge: github
repos:
  - owner: o
    name: r
    pulls:
      - number: 1
        title: t
        author: a
        head: {ref: h, sha: "1"}
        base: {ref: main, sha: "2"}
        created_at: "2024-01-01T00:00:00Z"
        workflow_jobs: [{id: 5, name: build}]
        check_runs: [{id: 4, name: build, job_id: 5}]
"#;
    let err = Scenario::from_yaml(text).unwrap_err().to_string();
    assert!(err.contains("differs from job_id"), "{err}");
}

#[tokio::test]
async fn forgejo_describes_its_actions_api_and_gitea_does_not() {
    let client = common::client();
    for (name, has_actions) in [("ci_failing_forgejo", true), ("ci_failing_gitea", false)] {
        let sim = start(name).await;
        let doc: Value = client
            .get(format!("{}/swagger.v1.json", sim.base_url()))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let paths = doc["paths"].as_object().unwrap();
        assert!(paths.contains_key("/repos/{owner}/{repo}/commits/{ref}/statuses"));
        assert_eq!(
            paths.contains_key("/repos/{owner}/{repo}/actions/jobs/{job_id}/logs"),
            has_actions,
            "{name}"
        );
        let logs = client
            .get(format!(
                "{}/api/v1/repos/acme/widgets/actions/jobs/3011/logs",
                sim.base_url()
            ))
            .header("authorization", "token fj_write")
            .send()
            .await
            .unwrap();
        assert_eq!(logs.status().as_u16(), if has_actions { 200 } else { 404 });
        assert_eq!(sim.contract_violations(), Vec::<String>::new());
    }
}
