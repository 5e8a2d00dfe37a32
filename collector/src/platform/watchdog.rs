//! Samples that end on time whatever the kernel does.
//!
//! A sample runs on a thread of its own while the stage's thread waits for
//! it until the sample's deadline. A sample that is not back by then is
//! abandoned: the stage records what the sample had reported so far as a
//! timeout and goes on with the next sample. The abandoned thread may stay
//! blocked in a system call (a hung disk, a stopped device) for as long as
//! the kernel keeps it there; nothing waits for it. When it does come back,
//! its next [`Mailbox::update`] or [`Mailbox::abandoned`] tells it to stop,
//! so it competes with a later sample for the CPU they are both pinned to
//! for at most the stretch of work between two such checks.
//!
//! What the two threads share is only the mailbox: the sample's progress so
//! far behind a mutex, which the worker holds just long enough to copy a few
//! figures in (never across a system call), so taking it at the deadline
//! cannot block. Each sample gets a fresh mailbox, so a later sample shares
//! no state with an abandoned one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::Instant;

/// The sample's progress as its worker reported it, and whether the
/// watchdog has given up on the worker.
pub struct Mailbox<P> {
    progress: Mutex<P>,
    abandoned: AtomicBool,
}

impl<P> Mailbox<P> {
    /// Records progress. Returns `false` once the sample has been abandoned:
    /// the worker must then stop at once, since its result is no longer
    /// read and a later sample may be running on its CPU.
    pub fn update(&self, record: impl FnOnce(&mut P)) -> bool {
        if self.abandoned.load(Ordering::Acquire) {
            return false;
        }
        record(&mut self.progress.lock().unwrap_or_else(PoisonError::into_inner));
        true
    }

    /// Whether the watchdog has given up on this sample.
    pub fn abandoned(&self) -> bool {
        self.abandoned.load(Ordering::Acquire)
    }
}

/// How a watched sample ended.
pub enum Ended<T, P> {
    /// The worker returned `T` before the deadline.
    Finished(T),
    /// The deadline passed first; `P` is the progress it had reported.
    TimedOut(P),
}

/// Runs `work` on a thread named `name` and waits for it until `deadline`.
/// `progress` is what a sample that reports nothing has. A panic in `work`
/// is passed on to the caller, as if `work` had run on the caller's thread.
/// Fails only when the thread cannot be started.
pub fn run<T, P>(
    name: &str,
    deadline: Instant,
    progress: P,
    work: impl FnOnce(&Mailbox<P>) -> T + Send + 'static,
) -> std::io::Result<Ended<T, P>>
where
    T: Send + 'static,
    P: Clone + Send + 'static,
{
    let mailbox = Arc::new(Mailbox { progress: Mutex::new(progress), abandoned: AtomicBool::new(false) });
    let (done, finished) = mpsc::sync_channel(1);
    #[cfg(all(test, unix))]
    let stall = seam::take(name);
    let worker = {
        let mailbox = Arc::clone(&mailbox);
        std::thread::Builder::new().name(name.to_string()).spawn(move || {
            #[cfg(all(test, unix))]
            seam::arm(stall);
            // The receiver is gone once the sample was abandoned: nobody
            // wants the result any more.
            let _ = done.send(work(&mailbox));
        })?
    };
    match finished.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(result) => {
            // The worker has nothing left to do but exit.
            let _ = worker.join();
            Ok(Ended::Finished(result))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => {
            mailbox.abandoned.store(true, Ordering::Release);
            let progress = mailbox.progress.lock().unwrap_or_else(PoisonError::into_inner).clone();
            Ok(Ended::TimedOut(progress))
        }
        // The sender is dropped without a send only by a panic.
        Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("a worker that returns has sent its result"),
        },
    }
}

/// A test-only seam: a call that really blocks in the kernel, at a point of
/// the measuring code that the test names, in a sample that the test names.
#[cfg(all(test, unix))]
pub mod seam {
    use std::cell::Cell;
    use std::io::Read;

    thread_local! {
        /// On the stage's thread: the name of the watched runs meant, how
        /// many of them to let pass, and where the next one after them
        /// blocks.
        static PLANNED: Cell<Option<(&'static str, u32, &'static str)>> = const { Cell::new(None) };
        /// On a sample's thread: where it blocks.
        static ARMED: Cell<Option<&'static str>> = const { Cell::new(None) };
    }

    /// The `k`th (counted from 1) watched run named `run` ("cpu sample",
    /// "disk sample", "disk fill") started on this thread from now blocks
    /// for good at its first [`point`] named `at`.
    pub fn stall(run: &'static str, k: u32, at: &'static str) {
        PLANNED.set(Some((run, k - 1, at)));
    }

    /// Called when a watched run named `name` starts: where it blocks, if
    /// anywhere. Runs of other names do not count.
    pub(super) fn take(name: &str) -> Option<&'static str> {
        match PLANNED.get()? {
            (run, _, _) if run != name => None,
            (_, 0, at) => {
                PLANNED.set(None);
                Some(at)
            }
            (run, skip, at) => {
                PLANNED.set(Some((run, skip - 1, at)));
                None
            }
        }
    }

    pub(super) fn arm(at: Option<&'static str>) {
        ARMED.set(at);
    }

    /// A point where the measuring code may be made to block: a read from a
    /// socket whose other end stays open and silent never returns.
    pub fn point(name: &str) {
        if ARMED.get() == Some(name) {
            let (mut silent, other) = std::os::unix::net::UnixStream::pair().expect("socket pair");
            std::mem::forget(other);
            let _ = silent.read(&mut [0u8]);
            unreachable!("nothing ever writes to the other end");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_worker_back_in_time_gives_its_result() {
        let deadline = Instant::now() + Duration::from_secs(30);
        let ended = run("t", deadline, 0u32, |m| {
            assert!(m.update(|p| *p = 7));
            42
        })
        .unwrap();
        assert!(matches!(ended, Ended::Finished(42)));
    }

    #[test]
    fn a_late_worker_is_abandoned_with_its_progress_and_told_to_stop() {
        let (resume, wait) = mpsc::channel::<()>();
        let (told, stopped) = mpsc::channel::<bool>();
        let deadline = Instant::now() + Duration::from_millis(100);
        let ended = run("t", deadline, 0u32, move |m| {
            m.update(|p| *p = 3);
            wait.recv().unwrap();
            told.send(m.update(|p| *p = 4)).unwrap();
        })
        .unwrap();
        assert!(Instant::now() >= deadline);
        assert!(matches!(ended, Ended::TimedOut(3)));
        resume.send(()).unwrap();
        assert!(!stopped.recv().unwrap(), "the abandoned worker learns it on its next update");
    }

    #[test]
    #[should_panic(expected = "inside the sample")]
    fn a_panic_in_the_worker_reaches_the_caller() {
        let _ = run("t", Instant::now() + Duration::from_secs(30), (), |_| panic!("inside the sample"));
    }
}
