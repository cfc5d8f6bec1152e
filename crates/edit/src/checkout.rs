use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use resolve_pr_source::{Outcome, Tree, WorkspaceChange, checksum};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::fsx::{self, Disk};
use crate::journal::{self, Blob, Entry, Journal, State, Store};
use crate::plan::{Plan, PlanMeta, rel_string};
use crate::{Error, Result};

/// How long an apply waits for another one on the same checkout before it says so.
const LOCK_WAIT: Duration = Duration::from_secs(30);
/// Plans older than this are dropped from the store.
const PLAN_DAYS: u64 = 7;
/// Undo snapshots kept per checkout.
const SNAPSHOTS_KEPT: usize = 100;

/// A point of an apply, reported to the hook as it is passed (tests stop a process at each
/// one to prove recovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The journal is on disk; nothing of the checkout is written yet.
    Journaled,
    /// The checkout's `n`th write (a file written or removed) is done.
    Wrote(usize),
    /// Every write done; the emptied directories removed.
    Cleaned,
    /// The journal says the apply finished: it is an undo snapshot now.
    Committed,
}

/// What an apply (or an undo) changed: seed 002's Apply Response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub success: bool,
    pub plan_id: Option<String>,
    pub applied_files: Vec<String>,
    pub created_files: Vec<String>,
    pub deleted_files: Vec<String>,
    pub rollback_available: bool,
    pub snapshot_id: String,
}

/// An apply that never finished, found and rolled back when the checkout was opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recovered {
    pub snapshot_id: String,
    pub plan_id: Option<String>,
    /// Files the apply had written, put back as they were.
    pub restored: Vec<String>,
    /// Files the apply had not reached yet.
    pub unchanged: Vec<String>,
    /// Files changed by something else since: left as they are.
    pub conflicts: Vec<String>,
}

/// A checkout that plans are applied to, and the state kept for it.
#[derive(Debug, Clone)]
pub struct Checkout {
    root: PathBuf,
    state_home: PathBuf,
    store: Store,
}

struct Lock(fs::File);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Checkout {
    /// The checkout at `root`, its state under `state_home` (`$XDG_STATE_HOME/resolve-pr`).
    /// Rolls back any apply a crash left unfinished, and says which.
    pub fn open(root: &Path, state_home: &Path) -> Result<(Checkout, Vec<Recovered>)> {
        let root = root
            .canonicalize()
            .map_err(|e| Error::io("opening the checkout", root, e))?;
        let digest = Sha256::digest(root.to_string_lossy().as_bytes());
        let dir = state_home.join("edit").join(hex(&digest[..8]));
        fs::create_dir_all(&dir).map_err(|e| Error::io("creating", &dir, e))?;
        let marker = dir.join("root");
        if fs::read(&marker).ok().as_deref() != Some(root.to_string_lossy().as_bytes()) {
            fsx::write_state(&marker, root.to_string_lossy().as_bytes())?;
        }
        let checkout = Checkout {
            root,
            state_home: state_home.to_owned(),
            store: Store { dir },
        };
        let recovered = {
            let _lock = checkout.lock()?;
            checkout.recover()?
        };
        Ok((checkout, recovered))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Opens every checkout with state under `state_home` that has an unfinished apply, so
    /// that a crash is recovered at the next start rather than at the next refactoring.
    /// Checkouts that are gone are skipped.
    pub fn recover_all(state_home: &Path) -> Vec<(PathBuf, Result<Vec<Recovered>>)> {
        let mut out = Vec::new();
        for dir in fs::read_dir(state_home.join("edit"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let store = Store { dir: dir.path() };
            let Some(root) = store
                .all()
                .into_iter()
                .find(|j| j.state == State::Applying)
                .map(|j| j.root)
            else {
                continue;
            };
            if !root.is_dir() {
                continue;
            }
            let recovered = Checkout::open(&root, state_home).map(|(_, r)| r);
            out.push((root, recovered));
        }
        out
    }

    /// A directory kept for this checkout's verifications (a scratch copy to build in).
    pub fn scratch_dir(&self) -> PathBuf {
        self.store.dir.join("scratch")
    }

    fn lock(&self) -> Result<Lock> {
        let path = self.store.dir.join("lock");
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("opening the lock", &path, e))?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Lock(file)),
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::Busy {
                        root: self.root.clone(),
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(Error::io("locking", &path, e)),
            }
        }
    }

    fn disk(&self) -> Disk<'_> {
        Disk { root: &self.root }
    }

    fn simulate(&self, change: &WorkspaceChange) -> Result<Outcome> {
        for path in change.named_paths() {
            fsx::check_inside(&self.root, path)?;
        }
        let outcome = change.simulate(&self.disk())?;
        for path in outcome.files.keys() {
            fsx::check_inside(&self.root, path)?;
        }
        Ok(outcome)
    }

    /// Plans `change` over the checkout as it is now, and keeps the plan in the store.
    /// Writes nothing into the checkout.
    pub fn plan(&self, change: WorkspaceChange, meta: PlanMeta) -> Result<Plan> {
        let outcome = self.simulate(&change)?;
        let plan = Plan::build(&self.root, change, &outcome, &self.disk(), meta);
        self.save_plan(&plan)?;
        Ok(plan)
    }

    /// Keeps `plan` (again, e.g. after its verification was recorded).
    pub fn save_plan(&self, plan: &Plan) -> Result<()> {
        let dir = self.store.dir.join("plans");
        let bytes = serde_json::to_vec(plan).unwrap_or_default();
        fsx::write_state(&dir.join(format!("{}.json", plan.id)), &bytes)?;
        let old = Duration::from_secs(PLAN_DAYS * 24 * 3600);
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let aged = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > old);
            if aged {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(())
    }

    /// A plan from this checkout's store.
    pub fn load_plan(&self, id: &str) -> Result<Plan> {
        let valid = id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let not_found = |elsewhere| Error::PlanNotFound {
            id: id.to_owned(),
            elsewhere,
        };
        if !valid {
            return Err(not_found(None));
        }
        let file = format!("{id}.json");
        let path = self.store.dir.join("plans").join(&file);
        match fs::read(&path) {
            Ok(bytes) => {
                let plan: Plan = serde_json::from_slice(&bytes).map_err(|e| Error::Damaged {
                    path,
                    message: e.to_string(),
                })?;
                if plan.root != self.root {
                    return Err(not_found(Some(plan.root)));
                }
                Ok(plan)
            }
            Err(_) => {
                // Another checkout's plan: say where it belongs.
                let elsewhere = fs::read_dir(self.state_home.join("edit"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .find_map(|d| {
                        let bytes = fs::read(d.path().join("plans").join(&file)).ok()?;
                        serde_json::from_slice::<Plan>(&bytes).ok().map(|p| p.root)
                    });
                Err(not_found(elsewhere))
            }
        }
    }

    /// Checks that every file is as the plan found it.
    fn check(&self, plan: &Plan) -> Result<()> {
        if plan.root != self.root {
            return Err(Error::PlanNotFound {
                id: plan.id.clone(),
                elsewhere: Some(plan.root.clone()),
            });
        }
        for (path, expected) in &plan.file_checksums {
            let actual = self
                .disk()
                .read(Path::new(path))
                .map_or_else(|| "nothing (the file is gone)".to_owned(), |b| checksum(&b));
            if &actual != expected {
                return Err(Error::ChecksumMismatch {
                    plan: plan.id.clone(),
                    path: path.clone(),
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        for path in &plan.absent {
            if fs::symlink_metadata(self.root.join(path)).is_ok() {
                return Err(Error::Stale {
                    plan: plan.id.clone(),
                    path: path.clone(),
                });
            }
        }
        Ok(())
    }

    /// What the checkout would hold after `plan`, checked against its checksums first (for
    /// verification on a scratch copy before applying).
    pub fn outcome(&self, plan: &Plan) -> Result<Outcome> {
        self.check(plan)?;
        self.simulate(&plan.change)
    }

    /// Applies exactly `plan`, under the checkout's lock; `hook` hears each step.
    pub fn apply(&self, plan: &Plan, hook: &dyn Fn(Step)) -> Result<Applied> {
        let _lock = self.lock()?;
        self.recover()?;
        self.check(plan)?;
        let outcome = self.simulate(&plan.change)?;
        let mut entries = Vec::new();
        for (path, after) in &outcome.files {
            let rel = rel_string(path);
            let before = journal::current(&self.root, &rel);
            let after = match &after.contents {
                None => None,
                Some(bytes) => {
                    let mode = after
                        .origin
                        .as_deref()
                        .and_then(|o| fsx::mode_of(&self.root.join(o)))
                        .unwrap_or(fsx::NEW_FILE_MODE);
                    Some(Blob {
                        checksum: self.store.put_blob(bytes)?,
                        mode,
                    })
                }
            };
            if before == after {
                continue;
            }
            if let Some(b) = &before {
                let bytes = fs::read(self.root.join(&rel))
                    .map_err(|e| Error::io("reading", self.root.join(&rel), e))?;
                self.store.put_blob(&bytes)?;
                debug_assert_eq!(checksum(&bytes), b.checksum);
            }
            entries.push(Entry {
                path: rel,
                before,
                after,
            });
        }
        // Writes first, removals after: a crash between them never loses contents.
        entries.sort_by_key(|e| e.after.is_none());
        let (created_dirs, removed_dirs) = self.directories(&entries);
        let stamp = chrono::Utc::now();
        let seed = format!(
            "{}{}",
            plan.id,
            stamp.timestamp_nanos_opt().unwrap_or_default()
        );
        let journal = Journal {
            snapshot_id: format!("snap-{}", &hex(&Sha256::digest(seed.as_bytes()))[..16]),
            plan_id: Some(plan.id.clone()),
            kind: plan.kind.clone(),
            root: self.root.clone(),
            state: State::Applying,
            created_at: stamp.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
            entries,
            created_dirs,
            removed_dirs,
            undo_of: None,
        };
        self.run(journal, hook)
    }

    /// The directories an apply creates (shallowest first) and those it empties (deepest
    /// first), so that a rollback can remove and recreate them.
    fn directories(&self, entries: &[Entry]) -> (Vec<String>, Vec<String>) {
        let mut created = BTreeSet::new();
        let mut written = Vec::new();
        let mut removed_files = BTreeSet::new();
        for entry in entries {
            let path = Path::new(&entry.path);
            if entry.after.is_some() {
                written.push(path.to_owned());
                let mut dir = path.parent();
                while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
                    if !self.root.join(d).is_dir() {
                        created.insert(d.to_owned());
                    }
                    dir = d.parent();
                }
            } else {
                removed_files.insert(path.to_owned());
            }
        }
        let mut candidates: Vec<PathBuf> = removed_files
            .iter()
            .flat_map(|p| p.ancestors().skip(1))
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_owned)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        candidates.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        let mut removed: Vec<PathBuf> = Vec::new();
        for dir in candidates {
            if written.iter().any(|w| w.starts_with(&dir)) {
                continue;
            }
            let Ok(list) = fs::read_dir(self.root.join(&dir)) else {
                continue;
            };
            let empties = list.flatten().all(|e| {
                let child = dir.join(e.file_name());
                removed_files.contains(&child) || removed.contains(&child)
            });
            if empties {
                removed.push(dir);
            }
        }
        let mut created: Vec<PathBuf> = created.into_iter().collect();
        created.sort_by_key(|d| d.components().count());
        (
            created.iter().map(|d| rel_string(d)).collect(),
            removed.iter().map(|d| rel_string(d)).collect(),
        )
    }

    /// Writes the journal, then the checkout; marks the journal applied. A failed write
    /// rolls everything back.
    fn run(&self, mut journal: Journal, hook: &dyn Fn(Step)) -> Result<Applied> {
        self.store.save(&journal)?;
        hook(Step::Journaled);
        if let Err((path, source)) = self.write(&journal, hook) {
            return match journal::roll_back(&self.store, &journal) {
                Ok(_) => {
                    let _ = fs::remove_file(self.store.journal_path(&journal.snapshot_id));
                    Err(Error::WriteFailed { path, source })
                }
                Err((path, source)) => Err(Error::RollbackFailed {
                    path,
                    journal: self.store.journal_path(&journal.snapshot_id),
                    source,
                }),
            };
        }
        hook(Step::Cleaned);
        journal.state = State::Applied;
        self.store.save(&journal)?;
        hook(Step::Committed);
        self.store.prune(SNAPSHOTS_KEPT);
        let pick = |f: fn(&Entry) -> bool| -> Vec<String> {
            journal
                .entries
                .iter()
                .filter(|e| f(e))
                .map(|e| e.path.clone())
                .collect()
        };
        Ok(Applied {
            success: true,
            plan_id: journal.plan_id.clone(),
            applied_files: pick(|e| e.before.is_some() && e.after.is_some()),
            created_files: pick(|e| e.before.is_none()),
            deleted_files: pick(|e| e.after.is_none()),
            rollback_available: true,
            snapshot_id: journal.snapshot_id,
        })
    }

    fn write(
        &self,
        journal: &Journal,
        hook: &dyn Fn(Step),
    ) -> Result<(), (String, std::io::Error)> {
        for dir in &journal.created_dirs {
            fs::create_dir_all(self.root.join(dir)).map_err(|e| (dir.clone(), e))?;
        }
        for (n, entry) in journal.entries.iter().enumerate() {
            let full = self.root.join(&entry.path);
            match &entry.after {
                Some(blob) => {
                    let bytes = self
                        .store
                        .blob(&blob.checksum)
                        .map_err(|e| (entry.path.clone(), std::io::Error::other(e.to_string())))?;
                    fsx::write_atomic(&full, &bytes, blob.mode)
                }
                None => fsx::remove_file(&full),
            }
            .map_err(|e| (entry.path.clone(), e))?;
            hook(Step::Wrote(n));
        }
        for dir in &journal.removed_dirs {
            fs::remove_dir(self.root.join(dir)).map_err(|e| (dir.clone(), e))?;
        }
        Ok(())
    }

    /// Rolls back every apply left unfinished. Called under the lock.
    fn recover(&self) -> Result<Vec<Recovered>> {
        let mut out = Vec::new();
        for journal in self.store.all() {
            if journal.state != State::Applying {
                continue;
            }
            match journal::roll_back(&self.store, &journal) {
                Ok(done) => {
                    let _ = fs::remove_file(self.store.journal_path(&journal.snapshot_id));
                    out.push(Recovered {
                        snapshot_id: journal.snapshot_id,
                        plan_id: journal.plan_id,
                        restored: done.restored,
                        unchanged: done.unchanged,
                        conflicts: done.conflicts,
                    });
                }
                Err((path, source)) => {
                    return Err(Error::RollbackFailed {
                        path,
                        journal: self.store.journal_path(&journal.snapshot_id),
                        source,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Undoes the apply that made `snapshot_id`: every file back as it was. Refused when
    /// a file changed since, unless `force`. The undo is journaled, and is itself a
    /// snapshot (so it can be undone).
    pub fn undo(&self, snapshot_id: &str, force: bool, hook: &dyn Fn(Step)) -> Result<Applied> {
        let valid = snapshot_id.len() <= 64
            && snapshot_id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        let not_found = || Error::SnapshotNotFound {
            id: snapshot_id.to_owned(),
        };
        if !valid {
            return Err(not_found());
        }
        let _lock = self.lock()?;
        self.recover()?;
        let mut done = self.store.load(snapshot_id)?.ok_or_else(not_found)?;
        match done.state {
            State::Applied => {}
            State::Undone => {
                return Err(Error::SnapshotUndone {
                    id: snapshot_id.to_owned(),
                });
            }
            State::Applying => return Err(not_found()),
        }
        let mut entries = Vec::new();
        let mut changed = Vec::new();
        for entry in done.entries.iter().rev() {
            let now = journal::current(&self.root, &entry.path);
            let as_left = match (&now, &entry.after) {
                (None, None) => true,
                (Some(a), Some(b)) => a.checksum == b.checksum,
                _ => false,
            };
            if !as_left {
                changed.push(entry.path.clone());
            }
            if now == entry.before {
                continue;
            }
            if let Some(n) = &now {
                let bytes = fs::read(self.root.join(&entry.path))
                    .map_err(|e| Error::io("reading", self.root.join(&entry.path), e))?;
                debug_assert_eq!(checksum(&bytes), n.checksum);
                self.store.put_blob(&bytes)?;
            }
            entries.push(Entry {
                path: entry.path.clone(),
                before: now,
                after: entry.before.clone(),
            });
        }
        if !changed.is_empty() && !force {
            changed.sort();
            return Err(Error::SnapshotStale {
                id: snapshot_id.to_owned(),
                paths: changed,
            });
        }
        entries.sort_by_key(|e| e.after.is_none());
        let (created_dirs, removed_dirs) = self.directories(&entries);
        let stamp = chrono::Utc::now();
        let journal = Journal {
            snapshot_id: format!(
                "snap-{}",
                &hex(&Sha256::digest(
                    format!(
                        "undo{snapshot_id}{}",
                        stamp.timestamp_nanos_opt().unwrap_or_default()
                    )
                    .as_bytes()
                ))[..16]
            ),
            plan_id: None,
            kind: format!("undo.{}", done.kind),
            root: self.root.clone(),
            state: State::Applying,
            created_at: stamp.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
            entries,
            created_dirs,
            removed_dirs,
            undo_of: Some(snapshot_id.to_owned()),
        };
        let applied = self.run(journal, hook)?;
        done.state = State::Undone;
        self.store.save(&done)?;
        Ok(applied)
    }
}
