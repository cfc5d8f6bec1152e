//! The client against a real rust-analyzer (installed by .ci/run): a small crate in a temporary
//! directory, each navigation question asked and checked against where things are.

use std::path::Path;
use std::time::Duration;

use resolve_pr_lsp::{Language, Pool, PoolConfig, Pos, Target};

fn project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/util.rs"),
        "pub fn add_numbers(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        "mod util;\nuse util::add_numbers;\n\nfn main() {\n    let x = add_numbers(1, 2);\n    let y = add_numbers(x, 3);\n    println!(\"{}\", add_numbers(x, y));\n}\n",
    )
    .unwrap();
}

#[tokio::test]
async fn rust_analyzer_answers_definition_references_and_symbols() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    project(&root);
    let pool = Pool::new(PoolConfig {
        ready_wait: Duration::from_secs(120),
        ..PoolConfig::default()
    });
    let server = pool
        .server(Language::Rust, &root)
        .await
        .expect("rust-analyzer starts");
    let main = root.join("src/main.rs");
    let def = server
        .definition(
            &main,
            Pos {
                line: 4,
                character: 12,
            },
        )
        .await
        .unwrap();
    assert_eq!(def.value.len(), 1, "{def:?}");
    assert_eq!(def.value[0].path, root.join("src/util.rs"));
    assert_eq!(def.value[0].range.start.line, 0);
    let refs = server
        .references(
            &main,
            Pos {
                line: 4,
                character: 12,
            },
            true,
        )
        .await
        .unwrap();
    let lines: Vec<(String, u32)> = refs
        .value
        .iter()
        .map(|l| {
            (
                l.path.file_name().unwrap().to_string_lossy().into_owned(),
                l.range.start.line,
            )
        })
        .collect();
    // Declaration, the use, two calls, and one inside println! (rust-analyzer does see that one).
    assert!(lines.contains(&("util.rs".into(), 0)), "{lines:?}");
    assert!(lines.contains(&("main.rs".into(), 4)), "{lines:?}");
    assert!(lines.contains(&("main.rs".into(), 5)), "{lines:?}");
    let resolved = server
        .resolve(&Target::Symbol {
            name: "add_numbers".into(),
            kind: None,
        })
        .await
        .unwrap();
    assert_eq!(resolved.path, root.join("src/util.rs"));
    assert_eq!(
        resolved.pos,
        Pos {
            line: 0,
            character: 7
        }
    );
    let failure = server
        .resolve(&Target::Failure {
            path: main.clone(),
            line: 5,
        })
        .await
        .unwrap();
    assert_eq!(failure.symbol.unwrap().name, "main");
    let pid = server.client.pid().unwrap();
    pool.shutdown_all().await;
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| s.contains(") Z "))
                .unwrap_or(true)
    );
}
