//! Query vectors for dense and hybrid search: the encoder run on a query once (a bounded cache of
//! recent queries answers repeats — a server sees the same query again for every page, filter and
//! permalink of it), by few threads at a time, and in batches. Encoding a query costs milliseconds
//! of CPU while everything else a search does costs a fraction of one; without the bound, a burst
//! of new queries on a small machine would queue every cheap request behind them. Queries that
//! arrive while an encode runs wait and are then encoded together by one caller: a batch of many
//! short queries costs a third of encoding them one by one (the encoder packs the weights once per
//! call), and its vectors are bit-identical to single encodes (packing adds no padding).

use litnav_embed::Encoder;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// Queries whose vectors are kept.
pub const CACHED_QUERIES: usize = 4096;

/// Queries encoded together at most (a batch of short queries stays well under the encoder's
/// tokens per batch).
pub const BATCH_QUERIES: usize = 64;

/// An encoder of queries with a cache of recent vectors, a bound on concurrent encodes, and
/// batching of the queries that wait.
pub struct QueryEncoder {
    encoder: Encoder,
    state: Mutex<State>,
    changed: Condvar,
}

/// The cache, the queries waiting for a slot, and the free slots.
struct State {
    recent: Recent,
    waiting: Vec<String>,
    /// Queries being encoded now.
    encoding: Vec<String>,
    free_slots: usize,
    /// Encodes finished; a waiter that finds neither its vector nor a free slot sleeps until
    /// this moves.
    batches_done: u64,
}

/// The most recent queries' vectors; the oldest is dropped first.
#[derive(Default)]
struct Recent {
    vectors: HashMap<String, Arc<[f32]>>,
    order: VecDeque<String>,
}

impl Recent {
    fn insert(&mut self, query: String, vector: Arc<[f32]>) {
        if self.vectors.contains_key(&query) {
            return;
        }
        if self.order.len() >= CACHED_QUERIES
            && let Some(oldest) = self.order.pop_front()
        {
            self.vectors.remove(&oldest);
        }
        self.order.push_back(query.clone());
        self.vectors.insert(query, vector);
    }
}

impl State {
    /// Queue `query` unless its vector is cached, queued or being computed.
    fn queue(&mut self, query: &str) {
        let known = |queries: &[String]| queries.iter().any(|q| q == query);
        if !self.recent.vectors.contains_key(query) && !known(&self.waiting) && !known(&self.encoding) {
            self.waiting.push(query.to_string());
        }
    }
}

impl QueryEncoder {
    /// Encode with `encoder`, at most half the machine's cores at a time (at least one).
    pub fn new(encoder: Encoder) -> QueryEncoder {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        QueryEncoder::with_slots(encoder, (cores / 2).max(1))
    }

    /// Encode with `encoder`, at most `slots` batches at a time.
    pub fn with_slots(encoder: Encoder, slots: usize) -> QueryEncoder {
        let state = State {
            recent: Recent::default(),
            waiting: Vec::new(),
            encoding: Vec::new(),
            free_slots: slots.max(1),
            batches_done: 0,
        };
        QueryEncoder { encoder, state: Mutex::new(state), changed: Condvar::new() }
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// The unit vector of `query` (from the cache when it was asked recently).
    pub fn vector(&self, query: &str) -> Arc<[f32]> {
        let mut state = self.lock();
        if let Some(vector) = state.recent.vectors.get(query) {
            return Arc::clone(vector);
        }
        state.queue(query);
        loop {
            if let Some(vector) = state.recent.vectors.get(query) {
                return Arc::clone(vector);
            }
            if state.free_slots > 0 && !state.waiting.is_empty() {
                self.encode_waiting(state);
                state = self.lock();
                continue;
            }
            // Not encoded yet and no slot: wait for a batch to finish (which may be ours, or free
            // a slot for us). A query evicted from the cache before its caller woke is queued again.
            let seen = state.batches_done;
            while state.batches_done == seen {
                state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
            }
            state.queue(query);
        }
    }

    /// Take a slot and up to [`BATCH_QUERIES`] waiting queries, encode them without the lock, and
    /// cache their vectors.
    fn encode_waiting(&self, mut state: MutexGuard<'_, State>) {
        let take = state.waiting.len().min(BATCH_QUERIES);
        let batch: Vec<String> = state.waiting.drain(..take).collect();
        state.encoding.extend(batch.iter().cloned());
        state.free_slots -= 1;
        drop(state);
        let _slot = SlotGuard { owner: self, batch: &batch };
        let vectors = self.encoder.embed_queries(&batch);
        let mut state = self.lock();
        for (query, vector) in batch.iter().zip(vectors) {
            state.recent.insert(query.clone(), vector.into());
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `query`'s vector is cached now (so [`QueryEncoder::vector`] would not wait).
    pub fn is_cached(&self, query: &str) -> bool {
        self.lock().recent.vectors.contains_key(query)
    }

    /// Queries cached now.
    pub fn cached(&self) -> usize {
        self.lock().recent.vectors.len()
    }
}

/// Gives an encoding slot back and wakes the waiting callers — also when an encode unwinds, so
/// that they queue their queries again instead of waiting for ever.
struct SlotGuard<'a> {
    owner: &'a QueryEncoder,
    batch: &'a [String],
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let mut state = self.owner.lock();
        state.encoding.retain(|q| !self.batch.contains(q));
        state.free_slots += 1;
        state.batches_done += 1;
        self.owner.changed.notify_all();
    }
}
