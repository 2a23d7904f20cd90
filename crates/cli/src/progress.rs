//! Progress display on standard error (hidden when it is not a terminal, so JSON output and
//! logs stay clean).

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A spinner that shows what long work is doing.
pub fn spinner(message: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}
