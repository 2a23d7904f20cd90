//! `litnav`: the command-line face of litnav. Thin by design: parse flags, call the application
//! layer (`litnav-app`), print. Errors print as one readable message with its causes (and, where
//! it helps, the flag or command that fixes it) and exit 1; a closed pipe (`litnav search … |
//! head`) exits quietly. The command is this library's [`main_with`], so that the Python package
//! can carry the same command (its `litnav` script calls it).

#[doc(hidden)]
#[allow(missing_docs)] // The subcommands, public for the CLI's tests; their docs are their help.
pub mod commands;
mod hints;
mod progress;

use clap::{CommandFactory, FromArgMatches, Parser};
use commands::Command;
use litnav_app::request::analytics::{AnalyticsQuery, EngineParams};
use litnav_app::request::{
    Defaults, ExpandParams, FetchParams, MapParams, MetricParams, PathParams, RankParams, SearchParams, show_defaults,
};

/// litnav finds the papers that matter for a topic, organizes them, relates them through their
/// citations and measures all of it against expert surveys. Offline by default.
#[derive(Debug, Parser)]
#[command(name = "litnav", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The command line's grammar: the derived one, with the defaults the application decides shown in
/// the help of the options that take them (the request types hold no clap defaults, so that every
/// default has one definition).
pub fn grammar() -> clap::Command {
    Cli::command()
        .mut_subcommand("search", defaults_of::<SearchParams>)
        .mut_subcommand("map", |map| defaults_of::<MapParams>(defaults_of::<FetchParams>(map)))
        .mut_subcommand("expand", defaults_of::<ExpandParams>)
        .mut_subcommand("relations", |relations| {
            ["disruption", "novelty", "citations"]
                .into_iter()
                .fold(relations, |relations, query| relations.mut_subcommand(query, defaults_of::<RankParams>))
                .mut_subcommand("paper", defaults_of::<MetricParams>)
                .mut_subcommand("path", defaults_of::<PathParams>)
        })
        .mut_subcommand("analytics", |analytics| {
            AnalyticsQuery::NAMES.into_iter().fold(analytics, |analytics, query| {
                let defaults = AnalyticsQuery::defaults(query).unwrap_or_default();
                analytics.mut_subcommand(query, |command| show_defaults(defaults_of::<EngineParams>(command), defaults))
            })
        })
        .mut_subcommand("fetch", |fetch| fetch.mut_subcommand("openalex", defaults_of::<FetchParams>))
}

/// `command`'s options of request type `T`, each help ending with its default.
fn defaults_of<T: Defaults>(command: clap::Command) -> clap::Command {
    show_defaults(command, T::defaults())
}

/// The command line `words` parsed as `litnav` parses it (the program's name first).
pub fn parse(words: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>) -> Result<Cli, clap::Error> {
    let matches = grammar().try_get_matches_from(words)?;
    Cli::from_arg_matches(&matches)
}

/// Run the command `words` (the program's name first) and answer its exit status: 0 when it
/// succeeded (or printed help), 1 when it failed (the error printed on standard error), 2 for a
/// command line clap refused.
pub fn main_with(words: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>) -> i32 {
    let cli = match parse(words) {
        Ok(cli) => cli,
        Err(refused) => {
            // Help and version print on standard output, refusals on standard error.
            let _ = refused.print();
            return refused.exit_code();
        }
    };
    let outcome = commands::run(cli.command);
    if std::env::var_os(litnav_core::memory::PEAK_MEMORY_VARIABLE).is_some()
        && let Some(mib) = litnav_core::memory::peak_resident_mib()
    {
        eprintln!("{}{mib:.1} MiB", litnav_core::memory::PEAK_LINE);
    }
    match outcome {
        Ok(()) => 0,
        Err(error) if is_broken_pipe(&error) => 0,
        Err(error) => {
            eprint!("{}", hints::explain(&error));
            1
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .any(|cause| cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}
