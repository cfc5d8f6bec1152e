//! kill -9 at every step of an apply: the next open leaves each touched file exactly as
//! before (or, once the apply committed, exactly as after), never a mix.

use super::*;

const CHILD: &str = "RESOLVE_PR_EDIT_KILL_AT";

fn step_name(step: Step) -> String {
    match step {
        Step::Journaled => "journaled".into(),
        Step::Wrote(n) => format!("wrote-{n}"),
        Step::Cleaned => "cleaned".into(),
        Step::Committed => "committed".into(),
    }
}

/// Run as a child process by the test below: applies the stored plan and stops dead at
/// the step it is told, after saying so.
#[test]
fn child_applies_until_killed() {
    let Ok(at) = std::env::var(CHILD) else {
        return;
    };
    let root = PathBuf::from(std::env::var("KILL_ROOT").unwrap());
    let state = PathBuf::from(std::env::var("KILL_STATE").unwrap());
    let plan_id = std::env::var("KILL_PLAN").unwrap();
    let (checkout, _) = Checkout::open(&root, &state).unwrap();
    let plan = checkout.load_plan(&plan_id).unwrap();
    let marker = state.join("reached");
    checkout
        .apply(&plan, &|step| {
            if step_name(step) == at {
                fs::write(&marker, &at).unwrap();
                std::thread::sleep(Duration::from_secs(120));
            }
        })
        .unwrap();
}

#[test]
fn kill_9_at_every_step_leaves_each_file_as_before_or_after() {
    let probe = busy_fixture();
    let before = hash_tree(&probe.root);
    let (checkout, _) = Checkout::open(&probe.root, &probe.state).unwrap();
    let plan = checkout.plan(busy_change(), meta()).unwrap();
    checkout.apply(&plan, &|_| {}).unwrap();
    let after = hash_tree(&probe.root);
    let writes = busy_change().changes.len() + 1; // the rename is a write and a removal

    let mut steps = vec![Step::Journaled];
    steps.extend((0..writes).map(Step::Wrote));
    steps.extend([Step::Cleaned, Step::Committed]);
    let mut table = Vec::new();
    for step in steps {
        let f = busy_fixture();
        let (checkout, _) = Checkout::open(&f.root, &f.state).unwrap();
        let plan = checkout.plan(busy_change(), meta()).unwrap();
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "kill::child_applies_until_killed",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, step_name(step))
            .env("KILL_ROOT", &f.root)
            .env("KILL_STATE", &f.state)
            .env("KILL_PLAN", &plan.id)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while !f.state.join("reached").exists() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "{step:?} never reached"
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the child ended before {step:?}: {status}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();

        // The next start recovers every checkout with an unfinished apply.
        let at_start = Checkout::recover_all(&f.state);
        let recovered = match at_start.as_slice() {
            [] => Vec::new(),
            [(root, result)] => {
                assert_eq!(root, &f.root);
                result.as_ref().unwrap().clone()
            }
            more => panic!("{more:?}"),
        };
        assert!(Checkout::recover_all(&f.state).is_empty(), "recovered once");
        let now = hash_tree(&f.root);
        if step == Step::Committed {
            assert!(recovered.is_empty(), "{step:?}: {recovered:?}");
            assert_eq!(now, after, "killed after the commit: everything as after");
        } else {
            assert_eq!(recovered.len(), 1, "{step:?}");
            assert!(recovered[0].conflicts.is_empty(), "{step:?}: {recovered:?}");
            assert_eq!(now, before, "killed at {step:?}: everything as before");
        }
        table.push(format!(
            "{:>10}: {}",
            step_name(step),
            recovered
                .first()
                .map_or("committed, nothing to recover".to_owned(), |r| format!(
                    "{} restored, {} not reached",
                    r.restored.len(),
                    r.unchanged.len()
                ))
        ));
    }
    println!(
        "kill -9 at each step of a 6-write apply:\n{}",
        table.join("\n")
    );
}
