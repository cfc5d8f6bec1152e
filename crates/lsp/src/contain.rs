//! Containing what the code tools start: a language server, and whatever it starts in turn
//! (tsserver, rust-analyzer's `cargo check` and the build scripts it runs, a `setsid`
//! daemon a build script leaves behind), goes when the server is stopped and when this
//! process dies, even by SIGKILL.
//!
//! Three layers, each catching what the one before misses:
//! - its own process group, killed with it (what stays in the group);
//! - a cgroup v2 of its own under this process's cgroup, where the kernel lets us make one:
//!   `cgroup.kill` ends every member, a process that left the group or session included,
//!   and nothing can leave a cgroup it cannot write to;
//! - a mark in the environment (`RESOLVE_PR_CONTAINER=<id>`) every descendant inherits:
//!   without a cgroup, a process that left the group is found by it in `/proc`.
//!
//! Each started process has a watchdog (a shell reading a pipe only this process holds)
//! that does all three when the pipe ends. What can still escape, and only without a
//! cgroup, is a process that leaves its group *and* clears its environment;
//! [`Containment::escapes`] says so for `health_check`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::process::Child;

/// The variable whose value marks every process one started program descends from.
pub const MARK: &str = "RESOLVE_PR_CONTAINER";

/// Set (to anything) to leave cgroups alone, as on a machine that has none: the tests of
/// the other layers run this way.
pub const NO_CGROUP: &str = "RESOLVE_PR_NO_CGROUP";

/// Where started programs go: this process's own cgroup v2 directory, when it may make
/// child cgroups there.
fn cgroup_base() -> Option<&'static Path> {
    static BASE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BASE.get_or_init(|| {
        if std::env::var_os(NO_CGROUP).is_some() {
            return None;
        }
        let base = own_cgroup_dir()?;
        // Leftovers of a process that died before its watchdog could remove them.
        sweep(&base);
        // Whether this process may make a cgroup there, move a process into it (which also
        // needs write access to our own cgroup), and remove it.
        let probe = base.join(format!("resolve-pr-{}-probe", std::process::id()));
        std::fs::create_dir(&probe).ok()?;
        let moved = std::process::Command::new("/bin/sh")
            .args(["-c", "echo 0 > \"$1/cgroup.procs\"", "resolve-pr-probe"])
            .arg(&probe)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        // The probe shell has exited: the cgroup is empty again.
        let removed = std::fs::remove_dir(&probe).is_ok();
        (moved && removed).then_some(base)
    })
    .as_deref()
}

/// `<cgroup2 mount><path of this process's cgroup>`, from `/proc/self/cgroup` and
/// `/proc/self/mountinfo`.
fn own_cgroup_dir() -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // `id parent major:minor root mountpoint options ... - fstype source super-options`
    let mount = mounts.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        if right.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let mut fields = left.split_whitespace();
        let root = fields.nth(3)?;
        let mountpoint = fields.next()?;
        // Only a mount of the hierarchy's root (or of an ancestor of ours) shows our path.
        path.starts_with(root).then(|| {
            let rest = path.strip_prefix(root).unwrap_or(path);
            PathBuf::from(unescape(mountpoint)).join(rest.trim_start_matches('/'))
        })
    })?;
    mount.is_dir().then_some(mount)
}

/// mountinfo writes space, tab, newline and backslash as octal escapes.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let bytes = field.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && let Ok(code) = u8::from_str_radix(&field[i + 1..i + 4], 8)
        {
            out.push(char::from(code));
            i += 4;
            continue;
        }
        out.push(char::from(bytes[i]));
        i += 1;
    }
    out
}

/// Removes the cgroups `resolve-pr-<pid>-<n>` under `base` whose process is gone, killing
/// what is still in them.
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name
            .to_str()
            .and_then(|n| n.strip_prefix("resolve-pr-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if owner == std::process::id() || Path::new(&format!("/proc/{owner}")).exists() {
            continue;
        }
        let dir = entry.path();
        let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        let _ = std::fs::remove_dir(&dir);
    }
}

/// How this process contains what it starts, for `health_check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// A cgroup per started program, under this directory.
    Cgroup(PathBuf),
    /// Process groups and the environment mark only.
    GroupAndMark,
}

impl Mode {
    /// This process's mode (the cgroup check runs once).
    pub fn current() -> Mode {
        match cgroup_base() {
            Some(base) => Mode::Cgroup(base.to_owned()),
            None => Mode::GroupAndMark,
        }
    }

    /// What could outlive this process, said for people.
    pub fn escapes(&self) -> String {
        match self {
            Mode::Cgroup(base) => format!(
                "nothing: each language server runs in a cgroup of its own under {} that is \
                 killed whole with it, a process that left its process group included",
                base.display()
            ),
            Mode::GroupAndMark => format!(
                "a process that both leaves its process group (setsid) and clears its \
                 environment: there is no writable cgroup v2 here, so what a server starts is \
                 found by its process group and the {MARK} variable it inherits"
            ),
        }
    }
}

/// The containment of one started program: its cgroup (when there is one) and its mark.
#[derive(Debug)]
pub struct Containment {
    cgroup: Option<PathBuf>,
    mark: String,
}

impl Containment {
    /// A new one, with its own cgroup where cgroups can be made.
    pub fn new() -> Containment {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mark = format!("{}-{n}", std::process::id());
        let cgroup = cgroup_base().and_then(|base| {
            let dir = base.join(format!("resolve-pr-{mark}"));
            std::fs::create_dir(&dir).ok().map(|()| dir)
        });
        Containment { cgroup, mark }
    }

    /// The value of [`MARK`] its processes carry.
    pub fn mark(&self) -> &str {
        &self.mark
    }

    /// The cgroup its processes run in, when there is one.
    pub fn cgroup(&self) -> Option<&Path> {
        self.cgroup.as_deref()
    }

    /// `program args…` as started inside this containment: through `/bin/sh`, which moves
    /// itself into the cgroup and then becomes the program (same pid), with the mark set.
    /// The caller adds stdio, the process group and its own environment.
    pub fn command(&self, program: &Path, args: &[String]) -> tokio::process::Command {
        let mut command = match &self.cgroup {
            Some(cgroup) => {
                let mut c = tokio::process::Command::new("/bin/sh");
                c.arg("-c")
                    .arg("echo 0 > \"$1/cgroup.procs\" 2>/dev/null; shift; exec \"$@\"")
                    .arg("resolve-pr-contain")
                    .arg(cgroup)
                    .arg(program)
                    .args(args);
                c
            }
            None => {
                let mut c = tokio::process::Command::new(program);
                c.args(args);
                c
            }
        };
        command.env(MARK, &self.mark);
        command
    }

    /// Kills every process of the containment: the process group led by `leader`, the
    /// cgroup, and every process carrying the mark. Then removes the cgroup once it is empty
    /// (in the background: the kernel takes a moment to reap).
    pub fn kill(&self, leader: Option<u32>) {
        if let Some(pid) = leader
            .and_then(|p| i32::try_from(p).ok())
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        if let Some(cgroup) = &self.cgroup {
            let _ = std::fs::write(cgroup.join("cgroup.kill"), "1");
        }
        kill_marked(&self.mark);
    }

    /// The pids in the cgroup (empty without one).
    pub fn members(&self) -> Vec<u32> {
        let Some(cgroup) = &self.cgroup else {
            return Vec::new();
        };
        std::fs::read_to_string(cgroup.join("cgroup.procs"))
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// The watchdog of the program led by `leader`: a shell in its process group that reads
    /// a pipe only this process holds, and when it ends (this process exited or was killed,
    /// even by SIGKILL, or the containment was dropped) kills the cgroup, every process with
    /// the mark, and the group, itself last; then removes the cgroup. Started without the
    /// mark, so it never finds itself.
    #[cfg(unix)]
    pub fn watchdog(&self, leader: u32) -> std::io::Result<Child> {
        let group = i32::try_from(leader).map_err(std::io::Error::other)?;
        let cgroup: OsString = self
            .cgroup
            .as_ref()
            .map(|c| c.as_os_str().to_owned())
            .unwrap_or_default();
        tokio::process::Command::new("/bin/sh")
            .args(["-c", WATCHDOG, "resolve-pr-watchdog"])
            .arg(cgroup)
            .arg(format!("{MARK}={}", self.mark))
            .env_remove(MARK)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(group)
            .spawn()
    }

    #[cfg(not(unix))]
    pub fn watchdog(&self, _leader: u32) -> std::io::Result<Child> {
        Err(std::io::Error::other("process groups are a Unix feature"))
    }
}

impl Default for Containment {
    fn default() -> Self {
        Containment::new()
    }
}

impl Drop for Containment {
    fn drop(&mut self) {
        let Some(cgroup) = self.cgroup.take() else {
            return;
        };
        let _ = std::fs::write(cgroup.join("cgroup.kill"), "1");
        // A cgroup is removable once its last member is reaped: at once, usually.
        if std::fs::remove_dir(&cgroup).is_err() {
            std::thread::spawn(move || {
                for _ in 0..50 {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    if std::fs::remove_dir(&cgroup).is_ok() || !cgroup.exists() {
                        return;
                    }
                }
            });
        }
    }
}

/// What a watchdog runs (`$1`: the cgroup or empty, `$2`: `MARK=value`). Waits for the end
/// of its stdin; kills the cgroup, then twice every process whose environment holds the
/// mark (a process may fork while the first pass runs); removes the cgroup once its members
/// are reaped; then kills its own group, itself included.
const WATCHDOG: &str = r#"while read -r _; do :; done
[ -n "$1" ] && echo 1 > "$1/cgroup.kill" 2>/dev/null
for pass in 1 2; do
  for p in /proc/[0-9]*; do
    if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qxF "$2"; then kill -s KILL "${p#/proc/}" 2>/dev/null; fi
  done
done
if [ -n "$1" ]; then
  for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$1" 2>/dev/null && break; sleep 0.2; done
fi
kill -s KILL 0"#;

/// Every process's pid and `/proc` directory (none where there is no `/proc`).
fn processes() -> impl Iterator<Item = (u32, PathBuf)> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((pid, entry.path()))
        })
}

/// Kills every process whose environment holds `MARK=<mark>` (other than this one).
fn kill_marked(mark: &str) {
    let needle = format!("{MARK}={mark}");
    let me = std::process::id();
    for (pid, dir) in processes() {
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(dir.join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
            && let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Resident memory of this process and everything it started (its descendants, by parent
/// in `/proc`), in bytes; Linux only (0 elsewhere).
pub fn tree_resident_bytes() -> u64 {
    let me = std::process::id();
    // pid → (parent, resident bytes)
    let mut procs: Vec<(u32, u32, u64)> = Vec::new();
    for (pid, dir) in processes() {
        let Ok(status) = std::fs::read_to_string(dir.join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        };
        let parent = field("PPid:")
            .and_then(|p| u32::try_from(p).ok())
            .unwrap_or(0);
        procs.push((pid, parent, field("VmRSS:").unwrap_or(0) * 1024));
    }
    let mut tree = vec![me];
    let mut total = 0;
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        for (pid, ppid, rss) in &procs {
            if *pid == parent {
                total += rss;
            }
            if *ppid == parent && !tree.contains(pid) {
                tree.push(*pid);
            }
        }
        i += 1;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_escapes_are_read() {
        assert_eq!(unescape("/sys/fs/cgroup"), "/sys/fs/cgroup");
        assert_eq!(unescape("/mnt/with\\040space"), "/mnt/with space");
    }

    #[test]
    fn this_process_tree_has_memory() {
        if Path::new("/proc/self/status").exists() {
            assert!(tree_resident_bytes() > 0);
        }
    }
}
