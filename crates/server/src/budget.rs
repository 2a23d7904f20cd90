//! What a caller may spend of the owner's machine and allowance: jobs running at once, calls to
//! the scholarly source per day (OpenAlex charges the owner's key per call), map requests per
//! minute. The defaults are far above what one person at the page does; a script holding the
//! token meets them and is answered 429 with `Retry-After`.
//!
//! A caller is a token: a server has one token (or none, on loopback, where every local process
//! is one caller), so today the budgets are the server's. `GET /api/usage` shows what was spent.

use crate::error::ApiError;
use litnav_app::codes::Code;
use litnav_fetch::Allowance;
use serde::Serialize;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The owner's limits per caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budgets {
    /// Map, expansion and sentiment jobs queued or running at once.
    pub jobs_at_once: usize,
    /// Calls to the scholarly source per day (UTC), answers from the fetch cache not counted.
    pub fetch_calls_per_day: usize,
    /// Map and expansion requests per minute.
    pub maps_per_minute: usize,
}

impl Default for Budgets {
    /// A person at the page starts a few jobs and a fetch or two (about 300 calls each) a day.
    fn default() -> Self {
        Budgets { jobs_at_once: 8, fetch_calls_per_day: 20_000, maps_per_minute: 30 }
    }
}

/// What a caller spent.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Spent {
    /// Jobs queued or running now.
    pub jobs_running: usize,
    /// Calls to the source since midnight UTC.
    pub fetch_calls_today: usize,
    /// Map and expansion requests in the last 60 seconds.
    pub maps_last_minute: usize,
}

/// `GET /api/usage`.
#[derive(Debug, Clone, Serialize)]
pub struct UsageView {
    /// Who the figures are of (`token` or `loopback`).
    pub caller: &'static str,
    /// The limits.
    pub budgets: Budgets,
    /// What was spent.
    pub spent: Spent,
}

/// The window map requests are counted over.
const MINUTE: Duration = Duration::from_secs(60);

/// How long a caller refused for running too many jobs is told to wait.
const JOB_RETRY: Duration = Duration::from_secs(10);

/// The budgets and what was spent of them.
pub struct Usage {
    budgets: Budgets,
    caller: &'static str,
    maps: Mutex<VecDeque<Instant>>,
    /// Today's allowance of fetch calls, with its day (days since 1970, UTC).
    fetch: Mutex<(u64, Arc<Allowance>)>,
}

impl Usage {
    /// The usage of a server with these budgets, whose callers carry a token or not.
    pub fn new(budgets: Budgets, with_token: bool) -> Usage {
        Usage {
            budgets,
            caller: if with_token { "token" } else { "loopback" },
            maps: Mutex::new(VecDeque::new()),
            fetch: Mutex::new((today(), Arc::new(Allowance::new(budgets.fetch_calls_per_day)))),
        }
    }

    /// Count a map or expansion request, or refuse it when the minute's are spent.
    pub fn map_request(&self) -> Result<(), ApiError> {
        let mut maps = self.maps.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        while maps.front().is_some_and(|t| now.duration_since(*t) >= MINUTE) {
            maps.pop_front();
        }
        if maps.len() >= self.budgets.maps_per_minute {
            let wait = maps.front().map_or(MINUTE, |oldest| MINUTE.saturating_sub(now.duration_since(*oldest)));
            return Err(over_budget(
                format!("{} map requests a minute at most; ask again shortly", self.budgets.maps_per_minute),
                wait,
            ));
        }
        maps.push_back(now);
        Ok(())
    }

    /// Refuse a new job when `running` are already queued or running.
    pub fn new_job(&self, running: usize) -> Result<(), ApiError> {
        if running >= self.budgets.jobs_at_once {
            return Err(over_budget(
                format!("{} jobs at once at most: wait for one to finish, or cancel one", self.budgets.jobs_at_once),
                JOB_RETRY,
            ));
        }
        Ok(())
    }

    /// Today's allowance of fetch calls, or a refusal when it is spent.
    pub fn fetch_allowance(&self) -> Result<Arc<Allowance>, ApiError> {
        let allowance = self.today();
        if allowance.left() == 0 {
            return Err(over_budget(
                format!(
                    "{} calls to the source a day at most; they are spent until midnight UTC",
                    self.budgets.fetch_calls_per_day
                ),
                until_midnight(),
            ));
        }
        Ok(allowance)
    }

    fn today(&self) -> Arc<Allowance> {
        let mut fetch = self.fetch.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let day = today();
        if fetch.0 != day {
            *fetch = (day, Arc::new(Allowance::new(self.budgets.fetch_calls_per_day)));
        }
        Arc::clone(&fetch.1)
    }

    /// The budgets and what was spent, with `jobs_running` jobs queued or running.
    pub fn view(&self, jobs_running: usize) -> UsageView {
        let now = Instant::now();
        let maps = self.maps.lock().map_or(0, |m| m.iter().filter(|t| now.duration_since(**t) < MINUTE).count());
        let left = self.today().left();
        UsageView {
            caller: self.caller,
            budgets: self.budgets,
            spent: Spent {
                jobs_running,
                fetch_calls_today: self.budgets.fetch_calls_per_day.saturating_sub(left),
                maps_last_minute: maps,
            },
        }
    }
}

/// A 429 with `Retry-After` of `wait` (whole seconds, at least one).
fn over_budget(message: String, wait: Duration) -> ApiError {
    let mut error = ApiError::with_code(Code::OverBudget, message);
    error.retry_after = Some(wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).map(|s| s.max(1));
    error
}

fn seconds_since_epoch() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn today() -> u64 {
    seconds_since_epoch() / 86_400
}

fn until_midnight() -> Duration {
    Duration::from_secs(86_400 - seconds_since_epoch() % 86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_budget_refuses_with_429_and_a_retry_after() {
        let usage = Usage::new(Budgets { jobs_at_once: 2, fetch_calls_per_day: 3, maps_per_minute: 2 }, false);
        usage.map_request().unwrap();
        usage.map_request().unwrap();
        let refused = usage.map_request().unwrap_err();
        assert_eq!((refused.status.as_u16(), refused.code), (429, "over_budget"));
        assert!((1..=60).contains(&refused.retry_after.unwrap()), "{refused:?}");
        assert!(usage.new_job(1).is_ok());
        assert_eq!(usage.new_job(2).unwrap_err().retry_after, Some(10));
        let allowance = usage.fetch_allowance().unwrap();
        assert!(allowance.take() && allowance.take() && allowance.take() && !allowance.take(), "three calls");
        let spent = usage.fetch_allowance().unwrap_err();
        assert!(spent.retry_after.unwrap() <= 86_400 && spent.message.contains("midnight UTC"), "{spent:?}");
        let view = usage.view(1);
        assert_eq!(view.spent, Spent { jobs_running: 1, fetch_calls_today: 3, maps_last_minute: 2 });
        assert_eq!(view.caller, "loopback");
    }
}
