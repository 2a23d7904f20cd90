//! Progress on standard error — spinners for steps, a bar for counted work — drawn only when
//! standard error is a terminal, so JSON output and logs stay clean.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;
use std::time::Duration;

/// The CLI's [`litnav_app::Progress`]: one line that shows the current step.
pub struct Terminal {
    bar: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    /// No step shown yet.
    pub fn new() -> Terminal {
        Terminal { bar: Mutex::new(None) }
    }

    /// Start a step with a message.
    pub fn start(message: &str) -> Terminal {
        let terminal = Terminal::new();
        litnav_app::Progress::stage(&terminal, message);
        terminal
    }

    fn replace(&self, bar: ProgressBar) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(old) = slot.replace(bar)
        {
            old.finish_and_clear();
        }
    }

    /// Clear the line.
    pub fn finish(&self) {
        if let Ok(mut slot) = self.bar.lock()
            && let Some(bar) = slot.take()
        {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.finish();
    }
}

impl litnav_app::Progress for Terminal {
    fn stage(&self, what: &str) {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        self.replace(bar);
    }

    fn advance(&self, done: usize, total: usize) {
        let Ok(mut slot) = self.bar.lock() else { return };
        let counting = slot.as_ref().is_some_and(|b| b.length() == Some(total as u64));
        if !counting {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} [{elapsed} < {eta}]")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            if let Some(old) = slot.replace(bar) {
                old.finish_and_clear();
            }
        }
        if let Some(bar) = slot.as_ref() {
            bar.set_position(done as u64);
        }
    }

    fn notice(&self, message: &str) {
        match self.bar.lock().ok().and_then(|slot| slot.clone()) {
            Some(bar) => bar.suspend(|| eprintln!("{message}")),
            None => eprintln!("{message}"),
        }
    }
}
