//! Query vectors for dense and hybrid search: the encoder run on a query once (a bounded cache of
//! recent queries answers repeats — a server sees the same query again for every page, filter and
//! permalink of it) and by few threads at a time. Encoding a query costs milliseconds of CPU while
//! everything else a search does costs a fraction of one; without the bound, a burst of new
//! queries on a small machine would queue every cheap request behind them.

use litnav_embed::Encoder;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Queries whose vectors are kept.
pub const CACHED_QUERIES: usize = 4096;

/// An encoder of queries with a cache of recent vectors and a bound on concurrent encodes.
pub struct QueryEncoder {
    encoder: Encoder,
    cache: Mutex<Recent>,
    free_slots: Mutex<usize>,
    slot_freed: Condvar,
}

/// The most recent queries' vectors; the oldest is dropped first.
#[derive(Default)]
struct Recent {
    vectors: HashMap<String, Arc<[f32]>>,
    order: VecDeque<String>,
}

impl QueryEncoder {
    /// Encode with `encoder`, at most half the machine's cores at a time (at least one).
    pub fn new(encoder: Encoder) -> QueryEncoder {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        QueryEncoder::with_slots(encoder, (cores / 2).max(1))
    }

    /// Encode with `encoder`, at most `slots` queries at a time.
    pub fn with_slots(encoder: Encoder, slots: usize) -> QueryEncoder {
        QueryEncoder {
            encoder,
            cache: Mutex::new(Recent::default()),
            free_slots: Mutex::new(slots.max(1)),
            slot_freed: Condvar::new(),
        }
    }

    /// The encoder.
    pub fn encoder(&self) -> &Encoder {
        &self.encoder
    }

    /// The unit vector of `query` (from the cache when it was asked recently).
    pub fn vector(&self, query: &str) -> Arc<[f32]> {
        if let Some(vector) = self.cache.lock().unwrap_or_else(PoisonError::into_inner).vectors.get(query) {
            return Arc::clone(vector);
        }
        let vector: Arc<[f32]> = {
            let _slot = self.slot();
            self.encoder.embed(&[query]).pop().unwrap_or_default().into()
        };
        let mut recent = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if !recent.vectors.contains_key(query) {
            if recent.order.len() >= CACHED_QUERIES
                && let Some(oldest) = recent.order.pop_front()
            {
                recent.vectors.remove(&oldest);
            }
            recent.order.push_back(query.to_string());
            recent.vectors.insert(query.to_string(), Arc::clone(&vector));
        }
        vector
    }

    /// Queries cached now.
    pub fn cached(&self) -> usize {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner).vectors.len()
    }

    /// Wait for an encoding slot; it is given back when the guard drops.
    fn slot(&self) -> SlotGuard<'_> {
        let mut free = self.free_slots.lock().unwrap_or_else(PoisonError::into_inner);
        while *free == 0 {
            free = self.slot_freed.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
        SlotGuard { owner: self }
    }
}

struct SlotGuard<'a> {
    owner: &'a QueryEncoder,
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        *self.owner.free_slots.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        self.owner.slot_freed.notify_one();
    }
}
