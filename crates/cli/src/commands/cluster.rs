//! `litnav cluster …`: the processes of a Ballista cluster, with litnav's functions registered —
//! a scheduler and any number of executors. Needs the `analytics` build feature.

use anyhow::Result;
use litnav_app::request::analytics::{ExecutorParams, SchedulerParams};

/// A cluster role.
#[derive(Debug, clap::Subcommand)]
pub enum Role {
    /// Run a scheduler (until stopped). Plans are sent to it with `--engine ballista
    /// --scheduler df://ADDR`.
    Scheduler(SchedulerParams),
    /// Run an executor (until stopped), registered with the scheduler.
    Executor(ExecutorParams),
}

pub fn run(role: Role) -> Result<()> {
    match role {
        Role::Scheduler(params) => {
            eprintln!("litnav cluster scheduler on {}", params.addr);
            Ok(litnav_app::analytics::run_scheduler(&params)?)
        }
        Role::Executor(params) => {
            eprintln!("litnav cluster executor on {}:{} for scheduler {}", params.host, params.port, params.scheduler);
            Ok(litnav_app::analytics::run_executor(&params)?)
        }
    }
}
