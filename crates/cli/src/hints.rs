//! Errors as the command line shows them: the message, each cause on its own line, and — where
//! the error's code has a remedy in the application's table of codes (`litnav_app::codes`) — that
//! remedy. The hint is chosen by code, never by reading the message.

use litnav_app::codes::Code;
use std::fmt::Write;

/// The whole error report, ready for standard error.
pub fn explain(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for (i, cause) in error.chain().enumerate() {
        let hint = Code::of_cause(cause).and_then(|code| code.row().hint);
        let line = format!("{cause}{}", hint.map(|h| format!("; {h}")).unwrap_or_default());
        let _ = if i == 0 { writeln!(out, "error: {line}") } else { writeln!(out, "  caused by: {line}") };
    }
    out
}
