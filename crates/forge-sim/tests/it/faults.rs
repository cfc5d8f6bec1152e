//! Injected faults over real HTTP: each kind, method/path matching, counting down, and the
//! control endpoints that out-of-process tests use. Also: a GitHub body that drifts from the
//! description is caught.

use crate::common;

use std::time::{Duration, Instant};

use resolve_pr_forge_sim::{
    Fault, FaultKind, ForgeFlavor, Scenario, Sim, SimHandle, validate_rest,
};
use serde_json::{Value, json};

const TOKEN: &str = "ghp_demo_write";
const PULL: &str = "/repos/acme/widgets/pulls/7";

async fn demo() -> SimHandle {
    Sim::start(Scenario::builtin("demo-github").unwrap())
        .await
        .unwrap()
}

fn fresh_client() -> reqwest::Client {
    // No pooling: a fault that closes a connection must not leak into the next request.
    common::install_crypto();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap()
}

async fn get(sim: &SimHandle, path: &str) -> reqwest::Result<reqwest::Response> {
    fresh_client()
        .get(format!("{}{path}", sim.base_url()))
        .bearer_auth(TOKEN)
        .send()
        .await
}

fn fault(path: &str, times: u32, kind: FaultKind) -> Fault {
    Fault {
        method: None,
        path: path.into(),
        times,
        kind,
    }
}

#[tokio::test]
async fn a_status_fault_answers_then_runs_out() {
    let sim = demo().await;
    sim.inject(fault(
        PULL,
        2,
        FaultKind::Status {
            code: 429,
            headers: vec![("retry-after".into(), "1".into())],
            body: r#"{"message":"slow down"}"#.into(),
        },
    ));
    for _ in 0..2 {
        let resp = get(&sim, PULL).await.unwrap();
        assert_eq!(resp.status(), 429);
        assert_eq!(resp.headers()["retry-after"], "1");
        assert_eq!(
            resp.json::<Value>().await.unwrap(),
            json!({"message": "slow down"})
        );
    }
    assert_eq!(get(&sim, PULL).await.unwrap().status(), 200);
    let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [429, 429, 200]);
    assert!(
        sim.contract_violations().is_empty(),
        "faults are deliberate, not drift"
    );
}

#[tokio::test]
async fn faults_match_by_method_and_path_prefix() {
    let sim = demo().await;
    sim.inject(Fault {
        method: Some("POST".into()),
        path: "/repos/acme/*".into(),
        times: 1,
        kind: FaultKind::Status {
            code: 502,
            headers: vec![],
            body: String::new(),
        },
    });
    assert_eq!(
        get(&sim, PULL).await.unwrap().status(),
        200,
        "GET does not match"
    );
    let resp = fresh_client()
        .post(format!(
            "{}/repos/acme/widgets/issues/7/comments",
            sim.base_url()
        ))
        .bearer_auth(TOKEN)
        .json(&json!({"body": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 502);
}

#[tokio::test]
async fn latency_delays_then_serves() {
    let sim = demo().await;
    sim.inject(fault(PULL, 1, FaultKind::Latency { ms: 150 }));
    let start = Instant::now();
    let resp = get(&sim, PULL).await.unwrap();
    assert!(start.elapsed() >= Duration::from_millis(150));
    assert_eq!(resp.status(), 200);
}

#[tokio::test]
async fn a_reset_connection_gets_no_response() {
    let sim = demo().await;
    sim.inject(fault(PULL, 1, FaultKind::ResetConnection));
    let err = get(&sim, PULL).await.unwrap_err();
    assert!(!err.is_status(), "{err:?}");
    assert_eq!(sim.requests()[0].status, 0);
    assert_eq!(get(&sim, PULL).await.unwrap().status(), 200);
}

#[tokio::test]
async fn a_truncated_body_fails_to_read() {
    let sim = demo().await;
    sim.inject(fault(PULL, 1, FaultKind::TruncatedBody));
    let resp = get(&sim, PULL).await.unwrap();
    assert_eq!(resp.status(), 200);
    let declared: usize = resp.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        resp.bytes().await.is_err(),
        "declared {declared} bytes, sent fewer"
    );
}

#[tokio::test]
async fn garbage_is_not_json() {
    let sim = demo().await;
    sim.inject(fault(PULL, 1, FaultKind::Garbage));
    let resp = get(&sim, PULL).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.json::<Value>().await.is_err());
}

#[tokio::test]
async fn control_endpoints_drive_an_out_of_process_simulator() {
    let sim = demo().await;
    let client = fresh_client();
    let base = sim.base_url();
    let fault =
        json!({"method": "GET", "path": PULL, "times": 1, "kind": {"status": {"code": 503}}});
    let added = client
        .post(format!("{base}/_sim/faults"))
        .json(&fault)
        .send()
        .await
        .unwrap();
    assert_eq!(added.status(), 201);
    assert_eq!(get(&sim, PULL).await.unwrap().status(), 503);

    let log: Vec<Value> = client
        .get(format!("{base}/_sim/requests"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        log,
        vec![json!({
            "method": "GET", "path": PULL, "query": null, "status": 503,
            "conditional": false, "authenticated": true, "token": TOKEN
        })]
    );
    let cleared = client
        .delete(format!("{base}/_sim/requests"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status(), 204);
    assert!(sim.requests().is_empty());
    let violations: Vec<String> = client
        .get(format!("{base}/_sim/violations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(violations.is_empty());
    let bad = client
        .post(format!("{base}/_sim/faults"))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
}

#[tokio::test]
async fn a_github_body_that_drifts_from_the_description_is_caught() {
    let sim = demo().await;
    let mut pull: Value = get(&sim, PULL).await.unwrap().json().await.unwrap();
    validate_rest(ForgeFlavor::Github, "GET", PULL, 200, &pull).unwrap();
    pull.as_object_mut().unwrap().remove("node_id");
    let err = validate_rest(ForgeFlavor::Github, "GET", PULL, 200, &pull).unwrap_err();
    assert!(err.contains("node_id"), "{err}");
    pull["node_id"] = json!("x");
    pull["state"] = json!("merged"); // REST says closed + merged: true
    assert!(validate_rest(ForgeFlavor::Github, "GET", PULL, 200, &pull).is_err());
}

#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let sim = demo().await;
    let base = sim.base_url();
    drop(sim);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        fresh_client()
            .get(format!("{base}/user"))
            .send()
            .await
            .is_err()
    );

    let sim = demo().await;
    let base = sim.base_url();
    sim.shutdown().await;
    assert!(
        fresh_client()
            .get(format!("{base}/user"))
            .send()
            .await
            .is_err()
    );
}
