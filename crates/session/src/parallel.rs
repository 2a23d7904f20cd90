//! Work shared between the calling thread and helper threads, for calls a person waits on that
//! last about a millisecond.
//!
//! `par_iter` called from a thread outside the pool (the Python module's caller, a server's
//! request thread) hands the whole job to the pool and puts the caller to sleep until it is done:
//! each such step costs a pool thread's wake-up and then the caller's. On a virtual machine
//! whose other CPUs sat idle, a wake-up can take as long as a quarter of such a call. [`shared`]
//! keeps the caller working instead: it takes items itself from the start, and helper threads
//! join in as soon as they are awake, so a late wake-up costs at most the item a helper is still
//! on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// `work` applied to each of `items`, in their order. The calling thread takes items one at a
/// time from a shared counter, and so do the [`helpers`] (none for a single item): with items
/// much smaller than the whole, the threads finish together, and if no helper wakes in time the
/// caller does everything. A panic in `work` reaches the caller once every started item has
/// ended.
pub fn shared<I: Send, T: Send>(items: Vec<I>, work: impl Fn(I) -> T + Sync) -> Vec<T> {
    CALLS.fetch_add(1, Ordering::Release);
    let count = items.len();
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Slot<I, T>>> = items.into_iter().map(|item| Mutex::new(Slot::Waiting(item))).collect();
    let take_items = || {
        while let Some(slot) = slots.get(next.fetch_add(1, Ordering::Relaxed)) {
            let Slot::Waiting(item) = std::mem::replace(&mut *lock(slot), Slot::Taken) else {
                unreachable!("the counter hands each slot out once")
            };
            let value = work(item);
            *lock(slot) = Slot::Done(value);
        }
    };
    match helpers() {
        Some(pool) if count > 1 => {
            let helpers = pool.current_num_threads().min(count - 1);
            let helpers_done = AtomicUsize::new(0);
            pool.in_place_scope(|scope| {
                for _ in 0..helpers {
                    scope.spawn(|_| {
                        take_items();
                        helpers_done.fetch_add(1, Ordering::Release);
                    });
                }
                take_items();
                await_briefly(|| helpers_done.load(Ordering::Acquire) == helpers);
            });
        }
        _ => take_items(),
    }
    wake_helpers();
    slots
        .into_iter()
        .map(|slot| match slot.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Slot::Done(value) => value,
            _ => unreachable!("every item ended before the scope did"),
        })
        .collect()
}

/// The threads that help callers of [`shared`]: one fewer than rayon's global pool has (a
/// thread per core, or `RAYON_NUM_THREADS`), so that with the caller each core has one thread
/// at work. Rayon's own pool would leave the caller and two workers to two cores: the worker
/// that finds the job wakes its idle neighbour to look for more, and that one's turns at
/// looking (it yields between them) preempt the working threads. `None` with one thread.
pub fn helpers() -> Option<&'static rayon::ThreadPool> {
    static HELPERS: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    HELPERS
        .get_or_init(|| {
            let threads = rayon::current_num_threads().checked_sub(1).filter(|&n| n > 0)?;
            let builder = rayon::ThreadPoolBuilder::new().num_threads(threads);
            builder.thread_name(|i| format!("litnav-helper-{i}")).build().ok()
        })
        .as_ref()
}

/// How many [`shared`] calls have started: a helper kept awake ([`wake_helpers`]) stops waiting
/// when it changes.
static CALLS: AtomicUsize = AtomicUsize::new(0);

/// How long helpers stay awake for a [`shared`] call that may follow ([`wake_helpers`]).
const KEEP_AWAKE: std::time::Duration = std::time::Duration::from_micros(500);

/// Wake the helpers now and keep them awake, giving their turns away, until the next [`shared`]
/// call starts or 500 µs have passed. A helper woken by a call instead starts on it only after
/// the wake-up, which on a virtual machine whose other CPUs sat idle took 80-115 µs: a caller
/// that has something else to do first (read its files) wakes them before, and every call
/// leaves them awake for the next one (the next step of a job, or the next call of a loop).
pub fn wake_helpers() {
    let Some(pool) = helpers() else { return };
    let calls = CALLS.load(Ordering::Acquire);
    pool.spawn_broadcast(move |_| {
        let start = std::time::Instant::now();
        while CALLS.load(Ordering::Acquire) == calls && start.elapsed() < KEEP_AWAKE {
            std::thread::yield_now();
        }
    });
}

/// How long a caller that has run out of items waits for helpers by spinning rather than
/// sleeping: a helper still on its last item ends within an item's time, and a sleeping caller
/// would cost a wake-up as long as the item again.
const SPIN: std::time::Duration = std::time::Duration::from_millis(2);

/// Spin until `ready` holds or [`SPIN`] has passed.
fn await_briefly(ready: impl Fn() -> bool) {
    let start = std::time::Instant::now();
    while !ready() && start.elapsed() < SPIN {
        std::hint::spin_loop();
    }
}

/// An item of [`shared`]: waiting to be taken, being worked on, or its result.
enum Slot<I, T> {
    Waiting(I),
    Taken,
    Done(T),
}

/// A slot's lock; a panic while it was held is reported by the scope, not by the lock.
fn lock<I, T>(slot: &Mutex<Slot<I, T>>) -> std::sync::MutexGuard<'_, Slot<I, T>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_is_worked_once_and_kept_in_order() {
        let items: Vec<u64> = (0..1000).collect();
        let calls = AtomicUsize::new(0);
        let squares = shared(items.clone(), |n| {
            calls.fetch_add(1, Ordering::Relaxed);
            n * n
        });
        assert_eq!(squares, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert_eq!(calls.into_inner(), items.len());
        assert!(shared(Vec::<u8>::new(), |_| 0).is_empty());
        assert_eq!(shared(vec![7], |n| n + 1), [8]);
    }

    #[test]
    fn the_caller_and_the_helpers_take_items_from_outside_and_inside_a_pool() {
        let threads = Mutex::new(std::collections::HashSet::new());
        let items = vec![(); 64];
        let record = |_: ()| {
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        let expected = 1 + helpers().map_or(0, rayon::ThreadPool::current_num_threads);
        assert_eq!(expected, rayon::current_num_threads().max(1));
        shared(items.clone(), record);
        let seen = std::mem::take(&mut *threads.lock().unwrap());
        assert!(seen.contains(&std::thread::current().id()), "the caller took items");
        assert_eq!(seen.len(), expected, "each helper took items");
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let worker = pool.install(|| {
            shared(items, record);
            std::thread::current().id()
        });
        let seen = threads.into_inner().unwrap();
        assert!(seen.contains(&worker), "a pool's thread calling took items");
        assert_eq!(seen.len(), expected);
    }

    #[test]
    fn helpers_kept_awake_take_the_next_call_and_stop_waiting_without_one() {
        let threads = Mutex::new(std::collections::HashSet::new());
        wake_helpers();
        shared(vec![(); 64], |_| {
            threads.lock().unwrap().insert(std::thread::current().id());
            std::thread::sleep(std::time::Duration::from_millis(1));
        });
        let expected = 1 + helpers().map_or(0, rayon::ThreadPool::current_num_threads);
        assert_eq!(threads.into_inner().unwrap().len(), expected, "the caller and each helper took items");
        // With no call after it, every helper's wait ends by itself: a job for each of them runs.
        wake_helpers();
        let start = std::time::Instant::now();
        if let Some(pool) = helpers() {
            pool.broadcast(|_| ());
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(5), "the helpers stopped waiting");
    }

    #[test]
    fn a_panic_reaches_the_caller() {
        let items: Vec<usize> = (0..32).collect();
        let outcome = std::panic::catch_unwind(|| shared(items, |n| assert_ne!(n, 17, "item 17")));
        assert!(outcome.is_err());
    }
}
