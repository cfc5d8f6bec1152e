//! What the tests of several resolve-pr crates share. A dev-dependency only.

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
