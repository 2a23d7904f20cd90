//! Waits that end when the caller asks to stop: a sleep, and blocking work (an HTTP exchange,
//! which cannot be interrupted) run on a thread of its own while the caller's thread watches.
//! Both look at the caller's check every [`STOP_CHECK`], so a stop is honoured within that —
//! the fetch client's and the LLM client's waits are these two.

use std::time::{Duration, Instant};

/// How often a wait looks whether the caller asked to stop.
pub const STOP_CHECK: Duration = Duration::from_millis(50);

/// Why a wait ended without its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The caller asked to stop.
    Stopped,
    /// The work's thread ended without a result (it panicked).
    Lost,
}

/// Sleep `pause`, ending early with [`Ended::Stopped`] when `stopped` says so (asked before the
/// first nap too, so a stop already asked for ends the wait at once).
pub fn sleep_unless(pause: Duration, stopped: &dyn Fn() -> bool) -> Result<(), Ended> {
    let end = Instant::now() + pause;
    loop {
        if stopped() {
            return Err(Ended::Stopped);
        }
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(());
        }
        std::thread::sleep(left.min(STOP_CHECK));
    }
}

/// `work`'s result, computed on a thread of its own while this one looks at `stopped`; on a stop
/// the work is left to end by itself (its own timeout) and its result is dropped.
pub fn run_unless<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
    stopped: &dyn Fn() -> bool,
) -> Result<T, Ended> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(work());
    });
    loop {
        if stopped() {
            return Err(Ended::Stopped);
        }
        match receiver.recv_timeout(STOP_CHECK) {
            Ok(done) => return Ok(done),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Err(Ended::Lost),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn a_wait_ends_with_its_result_or_soon_after_a_stop() {
        assert_eq!(run_unless(|| 7, &|| false), Ok(7));
        assert_eq!(sleep_unless(Duration::from_millis(10), &|| false), Ok(()));
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        });
        let started = Instant::now();
        let stopped = || stop.load(Ordering::SeqCst);
        let long = run_unless(|| std::thread::sleep(Duration::from_secs(30)), &stopped);
        assert_eq!(long, Err(Ended::Stopped));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(sleep_unless(Duration::from_secs(30), &stopped), Err(Ended::Stopped), "a stop already asked");
        let lost = run_unless(|| -> u8 { panic!("the work failed") }, &|| false);
        assert_eq!(lost, Err(Ended::Lost));
    }
}
