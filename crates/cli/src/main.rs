//! `litnav`: the command-line face of litnav. Thin by design: parse flags, call the application
//! layer (`litnav-app`), print. Errors print as one readable message with its causes (and, where
//! it helps, the flag or command that fixes it) and exit 1; a closed pipe (`litnav search … |
//! head`) exits quietly.

mod commands;
mod hints;
mod progress;

use clap::Parser;
use commands::Command;

/// litnav finds the papers that matter for a topic, organizes them, relates them through their
/// citations and measures all of it against expert surveys. Offline by default.
#[derive(Debug, Parser)]
#[command(name = "litnav", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Set (to anything) to have litnav print its peak resident memory on standard error as it exits
/// (`litnav bench memory` reads it from every command it runs).
const PEAK_MEMORY_VARIABLE: &str = "LITNAV_PEAK_MEMORY";

fn main() {
    let cli = Cli::parse();
    let outcome = commands::run(cli.command);
    if std::env::var_os(PEAK_MEMORY_VARIABLE).is_some()
        && let Some(mib) = litnav_core::memory::peak_resident_mib()
    {
        eprintln!("{}{mib:.1} MiB", litnav_bench::memory::PEAK_LINE);
    }
    if let Err(error) = outcome {
        if is_broken_pipe(&error) {
            std::process::exit(0);
        }
        eprint!("{}", hints::explain(&error));
        std::process::exit(1);
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
