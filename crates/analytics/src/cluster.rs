//! A Ballista cluster from litnav's own binary: `litnav cluster scheduler` and `litnav cluster
//! executor` start Ballista's scheduler and executor processes with litnav's functions
//! registered (the scheduler plans with them, the executors run them); `--engine ballista
//! --scheduler df://HOST:PORT` sends plans to it. Executors read the Parquet tables by path, so
//! the tables must be at the same path on every executor's machine (a shared disk).

use crate::{Error, Result};
use crate::{litnav_aggregates, litnav_functions};
use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::FunctionRegistry;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The default scheduler port (Ballista's).
pub const SCHEDULER_PORT: u16 = 50050;

/// A client session on the scheduler at `url` (`df://host:port`), with litnav's functions.
///
/// Its jobs are planned by Ballista's static planner. The adaptive one (Ballista 55's default)
/// never finishes some of litnav's jobs: it re-plans a running stage and then rejects its tasks'
/// metrics ("task metrics array size … does not equal with the stage metrics array size …"; CD
/// with one-year ranges, one per job), and it would cancel the stages after an empty one, which
/// it does not implement.
pub(crate) async fn client(url: &str) -> Result<SessionContext> {
    let config = SessionConfig::new_with_ballista().with_ballista_adaptive_query_planner(false);
    let state = SessionStateBuilder::new().with_default_features().with_config(config).build();
    SessionContext::remote_with_state(url, state)
        .await
        .map_err(|e| Error::Cluster(format!("cannot reach the Ballista scheduler at {url}: {e}")))
}

/// How long the scheduler waits before it declares a silent executor dead (seconds). Ballista's
/// default is 180; a cluster of litnav jobs prefers to learn of a lost executor sooner.
const EXECUTOR_TIMEOUT_SECONDS: u64 = 30;

/// Run a scheduler on `addr` until the process is stopped.
pub fn run_scheduler(addr: SocketAddr) -> Result<()> {
    log_to_stderr();
    let config = SchedulerConfig {
        bind_host: addr.ip().to_string(),
        bind_port: addr.port(),
        external_host: addr.ip().to_string(),
        executor_timeout_seconds: EXECUTOR_TIMEOUT_SECONDS,
        expire_dead_executor_interval_seconds: 5,
        no_executors_grace_period_seconds: EXECUTOR_TIMEOUT_SECONDS,
        ..SchedulerConfig::default()
    };
    let config = config.with_override_session_builder(Arc::new(|session_config| {
        let mut state = default_session_builder(session_config)?;
        for function in litnav_functions() {
            state.register_udf(function)?;
        }
        for function in litnav_aggregates() {
            state.register_udaf(function)?;
        }
        Ok(state)
    }));
    runtime()?.block_on(async move {
        let cluster = BallistaCluster::new_from_config(&config).await.map_err(cluster_error)?;
        start_server(cluster, addr, Arc::new(config)).await.map_err(cluster_error)
    })
}

/// Where an executor listens and whom it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecutorOptions {
    /// The scheduler's host.
    pub scheduler_host: String,
    /// The scheduler's port.
    pub scheduler_port: u16,
    /// The address the executor binds (loopback by default).
    pub bind_host: String,
    /// The Arrow Flight port other executors fetch shuffle data from.
    pub flight_port: u16,
    /// The gRPC port the scheduler talks to.
    pub grpc_port: u16,
    /// Tasks run at once (default: the cores).
    pub slots: usize,
    /// Memory the executor's tasks may hold before spilling (bytes; Ballista's default is 70% of
    /// the machine per executor, too much for several executors on one machine).
    pub memory: Option<u64>,
    /// Where shuffle files go.
    pub work_dir: Option<PathBuf>,
}

/// Run an executor until the process is stopped.
pub fn run_executor(options: ExecutorOptions) -> Result<()> {
    log_to_stderr();
    let mut registry = BallistaFunctionRegistry::default();
    for function in litnav_functions() {
        registry.scalar_functions.insert(function.name().to_string(), function);
    }
    for function in litnav_aggregates() {
        registry.aggregate_functions.insert(function.name().to_string(), function);
    }
    let config = ExecutorProcessConfig {
        bind_host: options.bind_host.clone(),
        external_host: Some(options.bind_host),
        port: options.flight_port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler_host,
        scheduler_port: options.scheduler_port,
        scheduler_connect_timeout_seconds: 30,
        vcores: options.slots.max(1),
        work_dir: options.work_dir.map(|d| d.to_string_lossy().into_owned()),
        memory_pool_size: options.memory,
        executor_heartbeat_interval_seconds: 5,
        override_function_registry: Some(Arc::new(registry)),
        ..ExecutorProcessConfig::default()
    };
    runtime()?.block_on(async move { start_executor_process(Arc::new(config)).await.map_err(cluster_error) })
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 * 1024 * 1024)
        .build()
        .map_err(|e| Error::Cluster(format!("cannot start the async runtime: {e}")))
}

fn cluster_error(error: ballista_core::error::BallistaError) -> Error {
    Error::Cluster(error.to_string())
}

/// A scheduler and executors started as separate processes of a litnav binary on loopback — for
/// tests and `bench scale`; every process is stopped when this is dropped.
pub struct LocalCluster {
    scheduler: std::process::Child,
    executors: Vec<std::process::Child>,
    port: u16,
    work: tempfile::TempDir,
}

impl LocalCluster {
    /// Start a scheduler and `executors` executors (each `slots` tasks at once and `memory_mib`
    /// for tasks) from `litnav`, waiting (at most 60 s) until every port accepts connections.
    pub fn start(litnav: &std::path::Path, executors: usize, slots: usize, memory_mib: u64) -> Result<LocalCluster> {
        use std::process::{Command, Stdio};
        let work = tempfile::tempdir().map_err(|e| Error::Cluster(format!("cannot make a work directory: {e}")))?;
        let port = free_port()?;
        let logs = work.path().to_path_buf();
        let log = |name: &str| -> Result<Stdio> {
            let path = logs.join(format!("{name}.log"));
            Ok(std::fs::File::create(&path).map_err(crate::io_error(&path))?.into())
        };
        let spawn = |command: &mut Command, name: &str| -> Result<std::process::Child> {
            command
                .stdout(log(name)?)
                .stderr(log(&format!("{name}.err"))?)
                .spawn()
                .map_err(|e| Error::Cluster(format!("cannot start {}: {e}", litnav.display())))
        };
        let scheduler = spawn(
            Command::new(litnav).args(["cluster", "scheduler", "--addr", &format!("127.0.0.1:{port}")]),
            "scheduler",
        )?;
        let mut cluster = LocalCluster { scheduler, executors: Vec::new(), port, work };
        wait_for_port(port)?;
        for i in 0..executors {
            let (flight, grpc) = (free_port()?, free_port()?);
            let dir = cluster.work.path().join(format!("executor-{i}"));
            std::fs::create_dir_all(&dir).map_err(crate::io_error(&dir))?;
            let child = spawn(
                Command::new(litnav).args([
                    "cluster",
                    "executor",
                    "--scheduler",
                    &format!("127.0.0.1:{port}"),
                    "--port",
                    &flight.to_string(),
                    "--grpc-port",
                    &grpc.to_string(),
                    "--slots",
                    &slots.to_string(),
                    "--memory",
                    &memory_mib.to_string(),
                    "--work-dir",
                    &dir.to_string_lossy(),
                ]),
                &format!("executor-{i}"),
            )?;
            cluster.executors.push(child);
            wait_for_port(flight)?;
            wait_for_port(grpc)?;
        }
        // Executors register with their first heartbeat, right after their servers start.
        std::thread::sleep(std::time::Duration::from_secs(2));
        Ok(cluster)
    }

    /// The scheduler's URL for `--engine ballista`.
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }

    /// The process ids: the scheduler's, then each executor's.
    pub fn pids(&self) -> Vec<u32> {
        std::iter::once(self.scheduler.id()).chain(self.executors.iter().map(std::process::Child::id)).collect()
    }

    /// Kill executor `index` at once (SIGKILL), as a crashed machine would vanish.
    pub fn kill_executor(&mut self, index: usize) -> Result<()> {
        let child = self.executors.get_mut(index).ok_or_else(|| Error::Cluster(format!("no executor {index}")))?;
        child.kill().map_err(|e| Error::Cluster(format!("cannot kill executor {index}: {e}")))?;
        let _ = child.wait();
        Ok(())
    }

    /// What the processes wrote (for a failure's message).
    pub fn logs(&self) -> String {
        let mut text = String::new();
        for entry in std::fs::read_dir(self.work.path()).into_iter().flatten().flatten() {
            if let Ok(content) = std::fs::read_to_string(entry.path()) {
                let tail: Vec<&str> = content.lines().rev().take(20).collect();
                text.push_str(&format!("--- {}\n", entry.file_name().to_string_lossy()));
                text.extend(tail.into_iter().rev().map(|l| format!("{l}\n")));
            }
        }
        text
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for child in self.executors.iter_mut().chain(std::iter::once(&mut self.scheduler)) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A loopback port free at the time of asking.
fn free_port() -> Result<u16> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| Error::Cluster(format!("no free port: {e}")))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| Error::Cluster(format!("no free port: {e}")))
}

/// Wait until `127.0.0.1:port` accepts connections (60 s at most).
fn wait_for_port(port: u16) -> Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(Error::Cluster(format!("nothing listens on 127.0.0.1:{port} after 60 s")))
}

/// Ballista's own log (task assignments, executor heartbeats and losses, stage retries) on
/// standard error, at the level `RUST_LOG` names (`error` … `trace`); silent when it is unset.
fn log_to_stderr() {
    let Some(level) = std::env::var("RUST_LOG").ok().and_then(|l| l.parse::<log::LevelFilter>().ok()) else {
        return;
    };
    // Fails only when a logger is already installed, which then keeps logging.
    if log::set_logger(Box::leak(Box::new(StderrLog(level)))).is_ok() {
        log::set_max_level(level);
    }
}

/// Log records at or above a level, one line each on standard error.
struct StderrLog(log::LevelFilter);

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= self.0
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            eprintln!("{:.3} {} {}: {}", seconds.as_secs_f64(), record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use ballista_core::extension::SessionConfigExt;

    #[test]
    fn client_sessions_plan_with_the_static_planner() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        // A session is made without reaching the scheduler; it connects when a job is sent.
        let context = runtime.block_on(super::client("df://127.0.0.1:50050")).unwrap();
        assert!(!context.state().config().ballista_adaptive_query_planner_enabled());
    }
}
