//! A tool's progress as MCP notifications, and the client's cancellation as litnav's stop.

use litnav_app::Progress;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// The least time between two notifications of one step's advance (a step's start is always
/// told): a map's encoder reports every batch, and a client need not hear of each.
const ADVANCE_EVERY: Duration = Duration::from_millis(200);

/// What a tool running on a blocking thread reports through. Notifications go, in order, to a
/// task that sends them to the client; they are sent only when the call carried a progress
/// token. The protocol wants each notification's progress larger than the last, so progress
/// counts notifications and the step and its counts are in the message.
pub struct ToolProgress {
    sender: Option<(UnboundedSender<ProgressNotificationParam>, ProgressToken)>,
    stop: CancellationToken,
    sent: AtomicU64,
    step: Mutex<(String, Option<Instant>)>,
}

impl ToolProgress {
    /// Progress for one call: notifications through `sender` under `token` (when the client gave
    /// one), stopped when `stop` says so.
    pub fn new(
        sender: Option<(UnboundedSender<ProgressNotificationParam>, ProgressToken)>,
        stop: CancellationToken,
    ) -> Self {
        ToolProgress { sender, stop, sent: AtomicU64::new(0), step: Mutex::new((String::new(), None)) }
    }

    fn send(&self, message: String) {
        let Some((sender, token)) = &self.sender else { return };
        let progress = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
        // A closed channel means the call has ended: nothing is left to tell.
        let _ = sender.send(ProgressNotificationParam::new(token.clone(), progress as f64).with_message(message));
    }
}

impl Progress for ToolProgress {
    fn stage(&self, what: &str) {
        if let Ok(mut step) = self.step.lock() {
            *step = (what.to_string(), None);
        }
        self.send(what.to_string());
    }

    fn advance(&self, done: usize, total: usize) {
        let message = {
            let Ok(mut step) = self.step.lock() else { return };
            let due = step.1.is_none_or(|last| last.elapsed() >= ADVANCE_EVERY) || done == total;
            if !due {
                return;
            }
            step.1 = Some(Instant::now());
            format!("{}: {done} of {total}", step.0)
        };
        self.send(message);
    }

    fn notice(&self, message: &str) {
        self.send(message.to_string());
    }

    fn cancelled(&self) -> bool {
        self.stop.is_cancelled()
    }
}
