//! Stopping git commands that talk to a remote: a [`Cancellation`] the caller sets when it
//! gives up (an MCP call dropped), entered on the thread that runs the git work, and the
//! watch that kills a command's process group (git and its remote helpers) when it is
//! cancelled or outlives its deadline. The watch is a thread asleep on a condition variable
//! for as long as the command runs: nothing polls, and local commands never get one.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Set once by whoever gives up on the git work; every guarded git command of the threads
/// that [entered](Cancellation::enter) it is then killed with its process group, and one
/// about to start does not start.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: Mutex<bool>,
    changed: Condvar,
}

thread_local! {
    static CURRENT: RefCell<Option<Cancellation>> = const { RefCell::new(None) };
}

impl Cancellation {
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    /// Cancels: the commands running under it are killed now.
    pub fn cancel(&self) {
        *self.lock() = true;
        self.inner.changed.notify_all();
    }

    pub fn is_cancelled(&self) -> bool {
        *self.lock()
    }

    /// Makes this the cancellation of the git commands this thread runs until the returned
    /// guard is dropped (the previous one, if any, comes back then). A thread-local, so the
    /// git work in between needs no extra argument: `local::blocking` in the tools enters
    /// one on the blocking thread and cancels it when the call's future is dropped.
    pub fn enter(&self) -> Entered {
        let previous = CURRENT.with(|current| current.replace(Some(self.clone())));
        Entered {
            previous,
            _not_send: std::marker::PhantomData,
        }
    }

    /// The cancellation entered on this thread; a fresh one (never cancelled) when none is.
    pub(crate) fn current() -> Cancellation {
        CURRENT
            .with(|current| current.borrow().clone())
            .unwrap_or_default()
    }

    fn lock(&self) -> MutexGuard<'_, bool> {
        self.inner
            .cancelled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// While alive, [`Cancellation::enter`]'s cancellation is this thread's.
#[must_use = "the cancellation is this thread's only while the guard lives"]
pub struct Entered {
    previous: Option<Cancellation>,
    /// Entered on one thread, restored on the same one.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let previous = self.previous.take();
        CURRENT.with(|current| *current.borrow_mut() = previous);
    }
}

/// Why a guarded command was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    Cancelled,
    Deadline(Duration),
}

/// The watch over one running command, the leader of process group `group`.
pub(crate) struct Watch {
    cancellation: Cancellation,
    group: u32,
    deadline: Duration,
    started: Instant,
    /// Set (under the cancellation's lock) once the command has exited.
    done: std::sync::atomic::AtomicBool,
    stopped: Mutex<Option<Stop>>,
}

impl Watch {
    pub(crate) fn new(cancellation: Cancellation, group: u32, deadline: Duration) -> Watch {
        Watch {
            cancellation,
            group,
            deadline,
            started: Instant::now(),
            done: std::sync::atomic::AtomicBool::new(false),
            stopped: Mutex::new(None),
        }
    }

    /// Sleeps until the command is done, the cancellation is set or the deadline passes; in
    /// the last two cases kills the process group. Runs on its own (scoped) thread.
    pub(crate) fn run(&self) {
        use std::sync::atomic::Ordering;
        let end = self.started + self.deadline;
        let mut cancelled = self.cancellation.lock();
        let stop = loop {
            if self.done.load(Ordering::SeqCst) {
                return;
            }
            if *cancelled {
                break Stop::Cancelled;
            }
            let now = Instant::now();
            if now >= end {
                break Stop::Deadline(self.deadline);
            }
            cancelled = self
                .cancellation
                .inner
                .changed
                .wait_timeout(cancelled, end - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        };
        // Under the lock, so `finish` cannot mark the command done (and its process group
        // id be reused) between the check above and the signal.
        kill_group(self.group);
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) = Some(stop);
        drop(cancelled);
    }

    /// Called once the command has exited: ends the watch. Returns why the command was
    /// stopped, if the watch stopped it.
    pub(crate) fn finish(&self) -> Option<Stop> {
        {
            let _cancelled = self.cancellation.lock();
            self.done.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        self.cancellation.inner.changed.notify_all();
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// SIGKILL to the process group: git, its remote helper (`git-remote-https`), ssh, and a
/// lazy fetch's own git. An already empty group is not an error.
fn kill_group(group: u32) {
    let Some(pid) = i32::try_from(group)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return;
    };
    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entering_is_per_thread_and_restored() {
        let outer = Cancellation::new();
        let inner = Cancellation::new();
        assert!(!Cancellation::current().is_cancelled());
        let _a = outer.enter();
        {
            let _b = inner.enter();
            inner.cancel();
            assert!(Cancellation::current().is_cancelled());
            std::thread::spawn(|| assert!(!Cancellation::current().is_cancelled()))
                .join()
                .unwrap();
        }
        assert!(!Cancellation::current().is_cancelled());
        outer.cancel();
        assert!(Cancellation::current().is_cancelled());
    }
}
