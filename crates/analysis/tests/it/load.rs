use resolve_pr_analysis::{Skipped, Walk, load};

#[test]
fn load_parses_sources_once_skips_ignored_and_binary_files_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "gen/\n").unwrap();
    std::fs::create_dir_all(root.join("gen")).unwrap();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("gen/out.py"), "x = 1\n").unwrap();
    std::fs::write(root.join("src/a.py"), "def f():\n    return 1\n").unwrap();
    std::fs::write(root.join("src/b.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("src/c.py"), [0xff, 0xfe, 0x00]).unwrap();
    std::fs::write(root.join("notes.txt"), "not source").unwrap();
    let loaded = load(root, &Walk::sources(root), 100).unwrap();
    let paths: Vec<&str> = loaded.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["src/a.py", "src/b.rs"]);
    assert_eq!(
        loaded.skipped,
        [Skipped::NotText {
            path: "src/c.py".into()
        }]
    );
    assert!(!loaded.more);
    let cut = load(root, &Walk::sources(root), 1).unwrap();
    assert_eq!(cut.files.len(), 1);
    assert!(cut.more);
}

#[test]
fn positions_count_utf16_columns_from_zero() {
    let f = resolve_pr_analysis::SourceFile::parse(
        "a.py",
        resolve_pr_analysis::Dialect::Python,
        "s = '😀'; t = 1\nu = 2".to_owned(),
    )
    .unwrap();
    let t = f.text.find('t').unwrap();
    assert_eq!(
        f.pos(t),
        resolve_pr_analysis::Pos {
            line: 0,
            character: 10
        }
    );
    assert_eq!(f.line(1), "u = 2");
    assert_eq!(f.line_count(), 2);
}
