//! The vector cache file opened from arbitrary bytes, then appended to and reopened.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_embed::cache::VectorCache;

fuzz_target!(|data: &[u8]| {
    let dim = 4;
    let path = litnav_fuzz::file("vectors/cache.bin", data);
    let Ok(mut cache) = VectorCache::open(&path, dim) else { return };
    let before = cache.len();
    let key = VectorCache::key("m", "a new text");
    let fresh = cache.get(&key).is_none();
    cache.append(&[(key, vec![0.5; dim])]).expect("appending to an opened cache");
    let reopened = VectorCache::open(&path, dim).expect("a cache litnav wrote opens");
    assert_eq!(reopened.len(), before + usize::from(fresh));
    assert!(reopened.get(&key).is_some());
});
