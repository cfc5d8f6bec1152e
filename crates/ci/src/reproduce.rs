//! The commands that rerun one test, one function per framework. Test ids, paths and
//! packages come from a log that anything a job runs can write to, so each lands where its
//! tool reads an operand or an option's value, never an option:
//! - a relative path that starts with `-` gets `./` in front ([`path`]);
//! - an option value that starts with `-` is attached (`--grep=-x`, `--package=-p`), since
//!   most parsers (clap, yargs, cac) refuse to take `-x` as the value of a separate option;
//! - a name that is not a path goes after `--`, for the tools whose parser honours it
//!   (libtest, unittest's argparse) — pytest does not: it drops what follows `--`.
//!
//! Checked against the real tools (pytest, unittest, cargo and libtest, jest, vitest, mocha)
//! with a test file named `-rf…`, and against the docs of the others: Go's `go test` passes
//! `--` on to the test binary, and an import path cannot start with `-`, so a package that
//! does is no package and gets no command.

use resolve_pr_core::ShellCommand;

/// Whether a parser would read `arg` as an option.
fn dashed(arg: &str) -> bool {
    arg.starts_with('-')
}

/// A relative path as an operand: `./-rf.py` for `-rf.py`.
pub(crate) fn path(p: &str) -> String {
    if dashed(p) {
        format!("./{p}")
    } else {
        p.to_owned()
    }
}

/// `flag value`, or `long=value` when the value would read as an option.
fn option(cmd: ShellCommand, flag: &str, long: &str, value: &str) -> ShellCommand {
    if dashed(value) {
        cmd.arg(format!("{long}={value}"))
    } else {
        cmd.arg(flag).arg(value)
    }
}

/// The arguments of an option whose value comes from a log, for selectors kept as lists
/// (cargo's `-p crate`).
pub(crate) fn option_args(flag: &str, long: &str, value: &str) -> Vec<String> {
    option(ShellCommand::new(""), flag, long, value).argv()[1..].to_vec()
}

/// `python -m pytest <node id>`. A node id starts with its file's path.
pub(crate) fn pytest(node_id: &str) -> Option<String> {
    ShellCommand::new("python")
        .args(["-m", "pytest"])
        .arg(path(node_id))
        .render()
        .ok()
}

/// `python -m unittest <dotted name>`, after `--` when the name starts with `-`.
pub(crate) fn unittest(name: &str) -> Option<String> {
    let mut cmd = ShellCommand::new("python").args(["-m", "unittest"]);
    if dashed(name) {
        cmd = cmd.arg("--");
    }
    cmd.arg(name).render().ok()
}

/// `cargo test <selector> -- --exact <name>`: the selector from [`option_args`] (and plain
/// flags such as `--lib`); libtest takes the name after its own `--` when it starts with `-`.
pub(crate) fn cargo_test(selector: &[String], name: &str) -> Option<String> {
    let mut cmd = ShellCommand::new("cargo")
        .arg("test")
        .args(selector.iter().cloned())
        .args(["--", "--exact"]);
    if dashed(name) {
        cmd = cmd.arg("--");
    }
    cmd.arg(name).render().ok()
}

/// `cargo nextest run -p <crate> -E '<filterset>'`. A filterset starts with a function name
/// (`test(`, `binary_id(`), never with `-`.
pub(crate) fn nextest(krate: &str, filterset: &str) -> Option<String> {
    let cmd = ShellCommand::new("cargo").args(["nextest", "run"]);
    option(cmd, "-p", "--package", krate)
        .arg("-E")
        .arg(filterset)
        .render()
        .ok()
}

/// `npx jest [<file>] -t <pattern>`.
pub(crate) fn jest(file: Option<&str>, pattern: &str) -> Option<String> {
    let mut cmd = ShellCommand::new("npx").arg("jest");
    if let Some(f) = file {
        cmd = cmd.arg(path(f));
    }
    option(cmd, "-t", "--testNamePattern", pattern)
        .render()
        .ok()
}

/// `npx jest <file>`: a whole test file (one that failed to run).
pub(crate) fn jest_file(file: &str) -> Option<String> {
    ShellCommand::new("npx")
        .arg("jest")
        .arg(path(file))
        .render()
        .ok()
}

/// `npx vitest run <file>`: a whole test file (one that failed to load).
pub(crate) fn vitest_file(file: &str) -> Option<String> {
    ShellCommand::new("npx")
        .args(["vitest", "run"])
        .arg(path(file))
        .render()
        .ok()
}

/// `npx vitest run <file> -t <pattern>`.
pub(crate) fn vitest(file: &str, pattern: &str) -> Option<String> {
    let cmd = ShellCommand::new("npx")
        .args(["vitest", "run"])
        .arg(path(file));
    option(cmd, "-t", "--testNamePattern", pattern)
        .render()
        .ok()
}

/// `npx mocha [<file>] --grep <pattern>`.
pub(crate) fn mocha(file: Option<&str>, pattern: &str) -> Option<String> {
    let mut cmd = ShellCommand::new("npx").arg("mocha");
    if let Some(f) = file {
        cmd = cmd.arg(path(f));
    }
    option(cmd, "--grep", "--grep", pattern).render().ok()
}

/// `go test <package> [-run <pattern>]`. Go's flag package takes the next argument as
/// `-run`'s value whatever it is, and the pattern starts with `^` anyway; a package that
/// starts with `-` is not an import path, and `go test` has no way to name it as one.
pub(crate) fn go_test(package: &str, run: Option<&str>) -> Option<String> {
    if dashed(package) {
        return None;
    }
    let mut cmd = ShellCommand::new("go").arg("test").arg(package);
    if let Some(pattern) = run {
        cmd = cmd.arg("-run").arg(pattern);
    }
    cmd.render().ok()
}

/// What `bundle exec rspec` is given: a `path:line` target, or an example's full name.
pub(crate) enum RspecTarget<'a> {
    Location(&'a str),
    Example(&'a str),
}

/// `bundle exec rspec <path:line>` or `bundle exec rspec -e <name>`.
pub(crate) fn rspec(target: RspecTarget<'_>) -> Option<String> {
    let cmd = ShellCommand::new("bundle").args(["exec", "rspec"]);
    match target {
        RspecTarget::Location(t) => cmd.arg(path(t)),
        RspecTarget::Example(name) => option(cmd, "-e", "--example", name),
    }
    .render()
    .ok()
}

/// `vendor/bin/phpunit --filter <filter> [<file>]`.
pub(crate) fn phpunit(filter: &str, file: Option<&str>) -> Option<String> {
    let mut cmd = option(
        ShellCommand::new("vendor/bin/phpunit"),
        "--filter",
        "--filter",
        filter,
    );
    if let Some(f) = file {
        cmd = cmd.arg(path(f));
    }
    cmd.render().ok()
}

/// `mvn test -Dtest=<Class>#<method>`: the value is part of the `-D` argument.
pub(crate) fn surefire(class: &str, method: &str) -> Option<String> {
    ShellCommand::new("mvn")
        .arg("test")
        .arg(format!("-Dtest={class}#{method}"))
        .render()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::OnceLock;

    /// A scratch directory whose `bin/` holds stand-ins for every tool the commands run (and
    /// `vendor/bin/phpunit`), each printing its arguments NUL-separated.
    fn sandbox() -> &'static Path {
        static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
        DIR.get_or_init(|| {
            let dir = tempfile::tempdir().expect("scratch dir");
            let script = "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\n";
            let bin = dir.path().join("bin");
            let vendor = dir.path().join("vendor/bin");
            std::fs::create_dir_all(&bin).unwrap();
            std::fs::create_dir_all(&vendor).unwrap();
            let stubs: Vec<PathBuf> = ["python", "cargo", "npx", "go", "bundle", "mvn"]
                .iter()
                .map(|t| bin.join(t))
                .chain([vendor.join("phpunit")])
                .collect();
            for stub in stubs {
                resolve_pr_testkit::write_script(&stub, script);
            }
            dir
        })
        .path()
    }

    /// The arguments `line` hands its program when a real bash runs it.
    fn argv_through_bash(line: &str) -> Vec<String> {
        let dir = sandbox();
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-c", line])
            .current_dir(dir)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", dir.join("bin").display()),
            )
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{line}");
        let mut args: Vec<String> = out
            .stdout
            .split(|&b| b == 0)
            .map(|s| String::from_utf8(s.to_vec()).expect("utf-8"))
            .collect();
        args.pop();
        args
    }

    /// How one tool reads its arguments, as strictly as the strictest parser: an argument
    /// that starts with `-` is an option until `--` (where honoured), and an option that
    /// takes a value refuses one that starts with `-`.
    struct Grammar {
        valued: &'static [&'static str],
        terminator: bool,
    }

    #[derive(Debug, PartialEq)]
    enum Arg {
        Opt(String, Option<String>),
        Operand(String),
    }

    fn read(args: &[String], g: &Grammar) -> std::result::Result<Vec<Arg>, String> {
        let mut out = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if g.terminator && a == "--" {
                out.extend(it.map(|a| Arg::Operand(a.clone())));
                break;
            }
            if !a.starts_with('-') {
                out.push(Arg::Operand(a.clone()));
                continue;
            }
            if let Some((name, value)) = a.split_once('=').filter(|_| a.starts_with("--")) {
                out.push(Arg::Opt(name.to_owned(), Some(value.to_owned())));
            } else if g.valued.contains(&a.as_str()) {
                match it.next() {
                    Some(v) if !v.starts_with('-') => {
                        out.push(Arg::Opt(a.clone(), Some(v.clone())))
                    }
                    other => return Err(format!("{a} has no value it would take: {other:?}")),
                }
            } else {
                out.push(Arg::Opt(a.clone(), None));
            }
        }
        Ok(out)
    }

    /// `line`'s arguments after `prefix` (program and fixed subcommand), read by `g`.
    fn parsed(line: &str, prefix: &[&str], g: &Grammar) -> Vec<Arg> {
        let argv = argv_through_bash(line);
        assert!(
            argv.len() >= prefix.len() - 1 && argv[..prefix.len() - 1] == prefix[1..],
            "{line}: {argv:?}"
        );
        read(&argv[prefix.len() - 1..], g).unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    fn operand(a: &str) -> Arg {
        Arg::Operand(a.to_owned())
    }

    fn opt(name: &str, value: &str) -> Arg {
        Arg::Opt(name.to_owned(), Some(value.to_owned()))
    }

    /// The option `name` (either spelling) with value `v`.
    fn either(a: &Arg, names: &[&str], v: &str) -> bool {
        matches!(a, Arg::Opt(n, Some(value)) if names.contains(&n.as_str()) && value == v)
    }

    const NO_OPTIONS: Grammar = Grammar {
        valued: &[],
        terminator: false,
    };

    /// Every framework's command, given hostile values where a log supplies them: each value
    /// reaches its tool as the operand or option value it was meant to be.
    fn check_all(name: &str, file: &str, package: &str) {
        // pytest: the node id is the one operand (with `./` when it starts with `-`).
        let got = parsed(
            &pytest(&format!("{file}::{name}")).unwrap(),
            &["python", "-m", "pytest"],
            &NO_OPTIONS,
        );
        assert_eq!(got, [operand(&path(&format!("{file}::{name}")))]);

        let unittest_grammar = Grammar {
            valued: &[],
            terminator: true,
        };
        let got = parsed(
            &unittest(name).unwrap(),
            &["python", "-m", "unittest"],
            &unittest_grammar,
        );
        assert_eq!(got, [operand(name)]);

        // cargo test: cargo's own options, then libtest's after the first `--`.
        let cargo = Grammar {
            valued: &["-p", "--package", "--test", "-E"],
            terminator: true,
        };
        let mut selector = option_args("-p", "--package", package);
        selector.push("--lib".to_owned());
        let got = parsed(
            &cargo_test(&selector, name).unwrap(),
            &["cargo", "test"],
            &cargo,
        );
        let split = got
            .iter()
            .position(|a| matches!(a, Arg::Operand(o) if o == "--exact"))
            .expect("libtest's arguments");
        assert!(either(&got[0], &["-p", "--package"], package), "{got:?}");
        assert_eq!(got[1], Arg::Opt("--lib".into(), None));
        assert_eq!(split, 2, "{got:?}");
        let libtest: Vec<String> = got[split..]
            .iter()
            .map(|a| match a {
                Arg::Operand(o) => o.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            read(&libtest, &unittest_grammar).unwrap(),
            [Arg::Opt("--exact".into(), None), operand(name)]
        );

        let filterset = format!("test(={name})");
        let got = parsed(
            &nextest(package, &filterset).unwrap(),
            &["cargo", "nextest", "run"],
            &cargo,
        );
        assert!(either(&got[0], &["-p", "--package"], package), "{got:?}");
        assert_eq!(got[1], opt("-E", &filterset));
        assert_eq!(got.len(), 2);

        let node = Grammar {
            valued: &["-t", "--testNamePattern", "--grep"],
            terminator: true,
        };
        let pattern = name;
        for (line, prefix) in [
            (jest(Some(file), pattern).unwrap(), &["npx", "jest"][..]),
            (
                vitest(file, pattern).unwrap(),
                &["npx", "vitest", "run"][..],
            ),
        ] {
            let got = parsed(&line, prefix, &node);
            assert_eq!(got[0], operand(&path(file)), "{line}");
            assert!(
                either(&got[1], &["-t", "--testNamePattern"], pattern),
                "{line}"
            );
            assert_eq!(got.len(), 2, "{line}");
        }
        let got = parsed(
            &mocha(Some(file), pattern).unwrap(),
            &["npx", "mocha"],
            &node,
        );
        assert_eq!(got, [operand(&path(file)), opt("--grep", pattern)]);

        // go test: no `--` for packages; a dashed one is no import path.
        let go = Grammar {
            valued: &["-run"],
            terminator: false,
        };
        let run = format!("^{name}$");
        match go_test(package, Some(&run)) {
            Some(line) => {
                let got = parsed(&line, &["go", "test"], &go);
                assert_eq!(got, [operand(package), opt("-run", &run)]);
            }
            None => assert!(package.starts_with('-')),
        }

        let ruby = Grammar {
            valued: &["-e", "--example"],
            terminator: true,
        };
        let target = format!("{file}:12");
        let got = parsed(
            &rspec(RspecTarget::Location(&target)).unwrap(),
            &["bundle", "exec", "rspec"],
            &ruby,
        );
        assert_eq!(got, [operand(&path(&target))]);
        let got = parsed(
            &rspec(RspecTarget::Example(name)).unwrap(),
            &["bundle", "exec", "rspec"],
            &ruby,
        );
        assert!(either(&got[0], &["-e", "--example"], name), "{got:?}");
        assert_eq!(got.len(), 1);

        let php = Grammar {
            valued: &["--filter"],
            terminator: true,
        };
        let got = parsed(
            &phpunit(name, Some(file)).unwrap(),
            &["vendor/bin/phpunit"],
            &php,
        );
        assert_eq!(got, [opt("--filter", name), operand(&path(file))]);

        let got = parsed(
            &surefire(name, "testIt").unwrap(),
            &["mvn", "test"],
            &NO_OPTIONS,
        );
        assert_eq!(got, [Arg::Opt(format!("-Dtest={name}#testIt"), None)]);
    }

    #[test]
    fn names_paths_and_packages_that_look_like_options_stay_values() {
        for (name, file, package) in [
            ("test_dash", "-rf.py", "-rf"),
            ("-rf", "tests/x.py", "pkg"),
            ("--help", "--collect-only", "--workspace"),
            ("-", "-", "-"),
            ("--", "--", "--"),
            ("-k=x", "--version=1", "-p=evil"),
            ("$(touch pwned)", "`id`.py", "a;rm -rf ~"),
        ] {
            check_all(name, file, package);
        }
    }

    #[test]
    fn plain_values_keep_the_familiar_form() {
        assert_eq!(
            pytest("tests/test_x.py::test_y").unwrap(),
            "python -m pytest tests/test_x.py::test_y"
        );
        assert_eq!(
            cargo_test(&option_args("-p", "--package", "alpha"), "tests::it").unwrap(),
            "cargo test -p alpha -- --exact tests::it"
        );
        assert_eq!(
            cargo_test(&option_args("-p", "--package", "-rf"), "-x").unwrap(),
            "cargo test '--package=-rf' -- --exact -- -x"
        );
        assert_eq!(go_test("-rf", Some("^TestX$")), None);
        assert_eq!(
            mocha(Some("-a.js"), "-b").unwrap(),
            "npx mocha ./-a.js '--grep=-b'"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn any_hostile_value_stays_a_value(
            parts in prop::collection::vec(
                prop::collection::vec(prop::sample::select(vec![
                    "-", "--", "=", "-rf", "--help", "$", "(", ")", "`", ";", "'", "\"", " ",
                    "\n", "\\", "|", "&", "*", "~", "#", "a", "é", "::", "/", ".",
                ]), 1..8).prop_map(|p| p.concat()),
                3,
            )
        ) {
            check_all(&parts[0], &parts[1], &parts[2]);
        }
    }
}

#[cfg(test)]
mod from_logs {
    /// `(framework, reproduce command)` of every failure in `log`.
    fn commands(log: &str) -> Vec<(crate::Framework, Option<String>)> {
        crate::parse_log(log.as_bytes())
            .into_iter()
            .map(|f| (f.framework, f.reproduce_command))
            .collect()
    }

    /// Failures whose file, package or name starts with `-`, in each framework's own output
    /// shape, get commands where those stay values.
    #[test]
    fn dashed_names_from_real_output_shapes() {
        let pytest = "\
=========================== short test summary info ============================
FAILED -rf.py::test_dash - AssertionError: dash ran
============================== 1 failed in 0.02s ===============================
";
        let go = "\
--- FAIL: TestDash (0.00s)
    x_test.go:5: boom
FAIL
FAIL\t-rf\t0.003s
";
        let jest = "\
FAIL -rf.test.js
  ● -dash name

    dash ran

      at Object.<anonymous> (-rf.test.js:1:40)

Tests:       1 failed, 1 total
";
        use crate::Framework::*;
        assert_eq!(
            commands(pytest),
            [(Pytest, Some("python -m pytest ./-rf.py::test_dash".into()))]
        );
        // `-rf` is no Go import path: no command rather than `go test -rf`.
        assert_eq!(commands(go), [(GoTest, None)]);
        assert_eq!(
            commands(jest),
            [(
                Jest,
                Some("npx jest ./-rf.test.js '--testNamePattern=-dash name'".into())
            )]
        );
    }
}
