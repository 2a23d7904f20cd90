//! How long operations report what they do, and how they learn that the user wants them to stop.

/// What long operations report as they go. Every method has a do-nothing default; the CLI draws
/// spinners and bars, the server streams events to the browser.
pub trait Progress: Sync {
    /// A new step begins (`"retrieving papers"`).
    fn stage(&self, _what: &str) {}
    /// `done` of `total` units of the current step are finished.
    fn advance(&self, _done: usize, _total: usize) {}
    /// Something the user should know that is not a result (`"built the default corpus at …"`).
    fn notice(&self, _message: &str) {}
    /// Whether the user asked to stop. Long operations look between steps and end with an error
    /// of kind [`litnav_core::ErrorKind::Cancelled`] (see [`Progress::check`]).
    fn cancelled(&self) -> bool {
        false
    }
    /// Begin the step `what`, unless the user asked to stop.
    fn check(&self, what: &str) -> crate::Result<()> {
        if self.cancelled() {
            return Err(crate::Error::cancelled(format!("stopped before {what}")));
        }
        self.stage(what);
        Ok(())
    }
}

/// Progress that nobody watches.
pub struct Quiet;

impl Progress for Quiet {}

/// The turn `lock` gives (heavy work that takes every core, one at a time), waited for between
/// looks at `progress`'s stop: the wait is one step, "waiting for {waiting_for}", shown once, and
/// a stop meanwhile ends it with a cancelled error. A poisoned lock still gives its turn (it
/// guards no data).
pub fn take_turn<'a>(
    lock: &'a std::sync::Mutex<()>,
    progress: &dyn Progress,
    waiting_for: &str,
) -> crate::Result<std::sync::MutexGuard<'a, ()>> {
    let mut told = false;
    loop {
        match lock.try_lock() {
            Ok(turn) => return Ok(turn),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => return Ok(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                if !told {
                    progress.stage(&format!("waiting for {waiting_for}"));
                    told = true;
                }
                if progress.cancelled() {
                    return Err(crate::Error::cancelled(format!("stopped while waiting for {waiting_for}")));
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
}
