//! The prediction and the two restack engines agree, on generated histories: a branch and
//! trunk editing random lines of the same files, so some replays are clean, some stop on a
//! middle commit, some on the first. For each: `predict_replay` says clean exactly when
//! `restack` succeeds; when it does not, both engines stop on the predicted commit with the
//! predicted files; when it does, both engines give the same tree.

use crate::common;

use common::Fixture;
use resolve_pr_git::{Error, RestackBranch, RestackEngine};

/// A small deterministic generator (64-bit LCG), so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const FILES: [&str; 2] = ["a.txt", "b.txt"];
const LINES: u64 = 30;

fn edit(fixture: &Fixture, rng: &mut Lcg, tag: &str) {
    let file = FILES[rng.below(2) as usize];
    let path = fixture.path().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let line = rng.below(LINES) as usize;
    lines[line] = format!("{} {tag}", lines[line]);
    fixture.write(file, lines.join("\n") + "\n");
}

#[test]
fn prediction_and_both_engines_agree_on_generated_histories() {
    let mut outcomes = (0, 0);
    for seed in 1..=8u64 {
        let mut rng = Lcg(seed);
        let fixture = Fixture::new();
        fixture.git(&["config", "user.name", "Agreement"]);
        fixture.git(&["config", "user.email", "agreement@example.com"]);
        for file in FILES {
            let body: String = (0..LINES).map(|i| format!("{file} line {i}\n")).collect();
            fixture.write(file, body);
        }
        let base = fixture.commit("base");
        fixture.git(&["checkout", "-q", "-b", "topic"]);
        for i in 0..4 {
            edit(&fixture, &mut rng, &format!("topic{i}"));
            fixture.commit(&format!("topic {i}"));
        }
        let head = fixture.git(&["rev-parse", "HEAD"]).trim().to_string();
        fixture.checkout(&["main"]);
        for i in 0..3 {
            edit(&fixture, &mut rng, &format!("trunk{i}"));
            fixture.commit(&format!("trunk {i}"));
        }
        let repo = fixture.repository();
        let prediction = repo.predict_replay("main", &base, &head).unwrap();
        let branch = [RestackBranch {
            name: "topic".into(),
            head: head.clone(),
            old_base: base.clone(),
        }];
        let mut trees = Vec::new();
        for engine in [RestackEngine::Replay, RestackEngine::Rebase] {
            let result = repo
                .clone()
                .with_restack_engine(engine)
                .restack("main", &branch);
            match (prediction.clean, result) {
                (true, Ok(results)) => {
                    let tree = format!("{}^{{tree}}", results[0].new_head);
                    trees.push(fixture.git(&["rev-parse", &tree]));
                }
                (false, Err(Error::Conflict { commit, files, .. })) => {
                    let predicted = &prediction.conflicts[0];
                    assert_eq!(commit, predicted.commit, "seed {seed}, {engine:?}");
                    assert_eq!(files, predicted.files, "seed {seed}, {engine:?}");
                }
                (clean, other) => {
                    panic!("seed {seed}, {engine:?}: predicted clean={clean}, got {other:?}")
                }
            }
        }
        if prediction.clean {
            assert_eq!(trees[0], trees[1], "seed {seed}");
            outcomes.0 += 1;
        } else {
            outcomes.1 += 1;
        }
    }
    // The generated set holds both kinds, or it proves little.
    assert!(outcomes.0 > 0 && outcomes.1 > 0, "{outcomes:?}");
}
