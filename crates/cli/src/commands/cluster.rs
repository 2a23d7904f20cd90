//! `litnav cluster …`: the processes of a Ballista cluster, with litnav's functions registered —
//! a scheduler and any number of executors. Needs the `analytics` build feature.

use anyhow::Result;
use std::net::SocketAddr;
use std::path::PathBuf;

/// A cluster role.
#[derive(Debug, clap::Subcommand)]
pub enum Role {
    /// Run a scheduler (until stopped). Plans are sent to it with `--engine ballista
    /// --scheduler df://ADDR`.
    Scheduler(SchedulerArgs),
    /// Run an executor (until stopped), registered with the scheduler.
    Executor(ExecutorArgs),
}

#[derive(Debug, clap::Args)]
pub struct SchedulerArgs {
    /// Address to listen on (loopback by default; another address exposes the cluster, which has
    /// no authentication, to that network).
    #[arg(long, default_value = "127.0.0.1:50050")]
    addr: SocketAddr,
}

#[derive(Debug, clap::Args)]
pub struct ExecutorArgs {
    /// The scheduler, HOST:PORT.
    #[arg(long, default_value = "127.0.0.1:50050")]
    scheduler: String,
    /// Host to bind and advertise (loopback by default).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port for shuffle data (Arrow Flight).
    #[arg(long, default_value_t = 50051)]
    port: u16,
    /// Port for the scheduler's calls (gRPC).
    #[arg(long, default_value_t = 50052)]
    grpc_port: u16,
    /// Tasks run at once (default: the cores).
    #[arg(long)]
    slots: Option<usize>,
    /// Memory for tasks before they spill, MiB (default: 70% of the machine, Ballista's).
    #[arg(long, value_name = "MIB")]
    memory: Option<u64>,
    /// Directory for shuffle files (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
}

pub fn run(role: Role) -> Result<()> {
    #[cfg(feature = "analytics")]
    {
        use litnav_analytics::cluster;
        match role {
            Role::Scheduler(args) => {
                eprintln!("litnav cluster scheduler on {}", args.addr);
                Ok(cluster::run_scheduler(args.addr)?)
            }
            Role::Executor(args) => {
                let (host, port) = args
                    .scheduler
                    .rsplit_once(':')
                    .and_then(|(host, port)| Some((host.to_string(), port.parse::<u16>().ok()?)))
                    .ok_or_else(|| anyhow::anyhow!("--scheduler `{}`: expected HOST:PORT", args.scheduler))?;
                eprintln!("litnav cluster executor on {}:{} for scheduler {host}:{port}", args.host, args.port);
                Ok(cluster::run_executor(cluster::ExecutorOptions {
                    scheduler_host: host,
                    scheduler_port: port,
                    bind_host: args.host,
                    flight_port: args.port,
                    grpc_port: args.grpc_port,
                    slots: args.slots.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                    memory: args.memory.map(|mib| mib << 20),
                    work_dir: args.work_dir,
                })?)
            }
        }
    }
    #[cfg(not(feature = "analytics"))]
    {
        let _ = role;
        Err(super::analytics::missing_feature())
    }
}
