//! Long operations (maps, expansions) as jobs: started by a request, run on a blocking thread,
//! watched through their state (`GET`) or a stream of it (SSE), cancellable. A job reports its
//! steps through litnav's [`Progress`], and looks at its cancel flag between steps. A job's id is
//! the id of the map it makes, so asking twice for the same map joins the job already running.

use crate::error::ApiError;
use litnav_app::Progress;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::watch;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for another job to finish.
    Queued,
    /// Working.
    Running,
    /// Finished; its map is ready.
    Done,
    /// Failed; see its error.
    Failed,
    /// Stopped at the user's request.
    Cancelled,
}

impl JobState {
    /// Whether the job has ended.
    pub fn is_final(self) -> bool {
        matches!(self, JobState::Done | JobState::Failed | JobState::Cancelled)
    }
}

/// One step of a job.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// What it does.
    pub name: String,
    /// Units done, when the step counts.
    pub done: Option<usize>,
    /// Units in all.
    pub total: Option<usize>,
}

/// The kind of the jobs that classify a paper's mentions (their outcome is a paper, not a map).
pub const SENTIMENT: &str = "sentiment";

/// What a client sees of a job.
#[derive(Debug, Clone, Serialize)]
pub struct JobView {
    /// Id (for map and expansion jobs, the id of the map it makes).
    pub id: String,
    /// `map`, `expand` or `sentiment`.
    pub kind: &'static str,
    /// What it is about (the topic, or the subtopic expanded).
    pub title: String,
    /// Where it is.
    pub state: JobState,
    /// Its steps so far, the current one last.
    pub steps: Vec<Step>,
    /// Notices along the way.
    pub notices: Vec<String>,
    /// The map made, once done (map and expansion jobs).
    pub map: Option<String>,
    /// The paper whose mentions were classified, once done (sentiment jobs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<String>,
    /// Why it failed.
    pub error: Option<ApiError>,
    /// Milliseconds since it started.
    pub elapsed_ms: u64,
}

/// A running or finished job.
pub struct Job {
    started: Instant,
    cancel: AtomicBool,
    view: watch::Sender<JobView>,
}

impl Job {
    /// The job's current view.
    pub fn view(&self) -> JobView {
        let mut view = self.view.borrow().clone();
        if !view.state.is_final() {
            view.elapsed_ms = self.started.elapsed().as_millis() as u64;
        }
        view
    }

    /// A receiver of every change.
    pub fn subscribe(&self) -> watch::Receiver<JobView> {
        self.view.subscribe()
    }

    /// Event streams following the job now (each holds a receiver; a stream whose client went
    /// away lets go of it).
    pub fn watchers(&self) -> usize {
        self.view.receiver_count()
    }

    /// Ask the job to stop at its next step.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    fn update(&self, change: impl FnOnce(&mut JobView)) {
        let elapsed = self.started.elapsed().as_millis() as u64;
        self.view.send_modify(|view| {
            change(view);
            view.elapsed_ms = elapsed;
        });
    }

    /// Record the outcome.
    pub fn finish(&self, outcome: Result<String, ApiError>) {
        self.update(|view| match outcome {
            Ok(made) => {
                view.state = JobState::Done;
                match view.kind {
                    SENTIMENT => view.paper = Some(made),
                    _ => view.map = Some(made),
                }
            }
            Err(error) if error.code == "cancelled" => {
                view.state = JobState::Cancelled;
                view.error = Some(error);
            }
            Err(error) => {
                view.state = JobState::Failed;
                view.error = Some(error);
            }
        });
    }

    /// Mark the job as working.
    pub fn running(&self) {
        self.update(|view| view.state = JobState::Running);
    }
}

impl Progress for Job {
    fn stage(&self, what: &str) {
        let name = crate::redact::scrub(what);
        self.update(|view| view.steps.push(Step { name, done: None, total: None }));
    }

    fn advance(&self, done: usize, total: usize) {
        self.update(|view| {
            if let Some(step) = view.steps.last_mut() {
                step.done = Some(done);
                step.total = Some(total);
            }
        });
    }

    fn notice(&self, message: &str) {
        let message = crate::redact::scrub(message);
        self.update(|view| view.notices.push(message));
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }
}

/// Finished jobs remembered at most (their maps stay stored; a forgotten job's id answers 404
/// while `GET /api/maps/{id}` still has its map).
pub const FINISHED_JOBS_KEPT: usize = 1000;

/// Drop the oldest finished jobs beyond [`FINISHED_JOBS_KEPT`].
fn forget_oldest_finished(jobs: &mut HashMap<String, Arc<Job>>) {
    let mut finished: Vec<(Instant, String)> = jobs
        .iter()
        .filter(|(_, job)| job.view.borrow().state.is_final())
        .map(|(id, job)| (job.started, id.clone()))
        .collect();
    if finished.len() <= FINISHED_JOBS_KEPT {
        return;
    }
    finished.sort();
    for (_, id) in finished.iter().take(finished.len() - FINISHED_JOBS_KEPT) {
        jobs.remove(id);
    }
}

/// Every job of this server's life (the finished ones up to [`FINISHED_JOBS_KEPT`]).
#[derive(Default)]
pub struct Jobs {
    jobs: Mutex<HashMap<String, Arc<Job>>>,
}

impl Jobs {
    /// The job with this id.
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        self.jobs.lock().ok()?.get(id).cloned()
    }

    /// A new job with this id, or the one with this id still running (`false`: not new).
    pub fn start(&self, id: &str, kind: &'static str, title: &str) -> (Arc<Job>, bool) {
        let mut jobs = match self.jobs.lock() {
            Ok(jobs) => jobs,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(job) = jobs.get(id)
            && !job.view.borrow().state.is_final()
        {
            return (Arc::clone(job), false);
        }
        let view = JobView {
            id: id.to_string(),
            kind,
            title: title.to_string(),
            state: JobState::Queued,
            steps: Vec::new(),
            notices: Vec::new(),
            map: None,
            paper: None,
            error: None,
            elapsed_ms: 0,
        };
        let job =
            Arc::new(Job { started: Instant::now(), cancel: AtomicBool::new(false), view: watch::channel(view).0 });
        jobs.insert(id.to_string(), Arc::clone(&job));
        forget_oldest_finished(&mut jobs);
        (job, true)
    }

    /// A job that is already done: its map was stored before.
    pub fn done(&self, id: &str, kind: &'static str, title: &str) -> Arc<Job> {
        let (job, _) = self.start(id, kind, title);
        if !job.view.borrow().state.is_final() {
            job.finish(Ok(id.to_string()));
        }
        job
    }

    /// Ask every unfinished job to stop (the server is shutting down).
    pub fn cancel_all(&self) {
        if let Ok(jobs) = self.jobs.lock() {
            for job in jobs.values() {
                job.cancel();
            }
        }
    }

    /// Jobs not yet finished.
    pub fn running(&self) -> usize {
        self.jobs.lock().map_or(0, |jobs| jobs.values().filter(|j| !j.view.borrow().state.is_final()).count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_jobs_are_forgotten_oldest_first_and_running_ones_never() {
        let jobs = Jobs::default();
        let (running, _) = jobs.start("running", "map", "kept");
        for i in 0..FINISHED_JOBS_KEPT + 5 {
            let (job, _) = jobs.start(&format!("job {i}"), "map", "t");
            job.finish(Ok(String::new()));
        }
        jobs.start("one more", "map", "t");
        assert!(jobs.get("running").is_some(), "a running job is never forgotten");
        assert!(jobs.get("job 0").is_none() && jobs.get("job 4").is_none());
        assert!(jobs.get("job 5").is_some() && jobs.get(&format!("job {}", FINISHED_JOBS_KEPT + 4)).is_some());
        running.finish(Ok(String::new()));
    }
}
