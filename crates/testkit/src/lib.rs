//! What the tests of several resolve-pr crates share. A dev-dependency only.

#[cfg(feature = "forge")]
pub mod forge;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Writes an executable script through a child `sh`, so no write descriptor to it is ever
/// open in the (multi-threaded) test process: one inherited by another test thread's fork
/// would make exec fail with "Text file busy" (ETXTBSY) until that child execs.
pub fn write_script(path: &Path, text: &str) {
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(text.as_bytes())
        .expect("script written");
    assert!(
        child.wait().expect("sh ends").success(),
        "could not write {}",
        path.display()
    );
}

/// A remote that accepts connections and never answers, as `http://127.0.0.1:PORT{path}`
/// (`path` starts with `/`). The connections stay open for the rest of the test process.
pub fn silent_http_remote(path: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = listener.local_addr().expect("bound").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    format!("http://127.0.0.1:{port}{path}")
}

/// The command lines of the live processes (zombies have no command line and no working
/// directory) that name `needle` in their command line, or whose working directory is
/// inside `dir`.
pub fn processes(needle: &str, dir: Option<&Path>) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let line = String::from_utf8_lossy(&bytes).replace('\0', " ");
        let in_dir = dir.is_some_and(|dir| {
            std::fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd.starts_with(dir))
        });
        if !line.is_empty() && (line.contains(needle) || in_dir) {
            found.push(line);
        }
    }
    found
}

/// Waits up to 2 s for every process [`processes`] finds to be gone; panics naming those left.
pub fn assert_no_processes(needle: &str, dir: Option<&Path>) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        let left = processes(needle, dir);
        if left.is_empty() {
            return;
        }
        assert!(std::time::Instant::now() < end, "still running: {left:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_written_script_runs() {
        let dir = std::env::temp_dir().join(format!("testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hello");
        super::write_script(&path, "#!/bin/sh\necho \"hi $1\"\n");
        let out = std::process::Command::new(&path)
            .arg("there")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "hi there\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
