//! This process's resident memory as Linux reports it (`/proc/self/status`): the current
//! resident set and its high-water mark, which [`reset_peak`] can lower to the current value so
//! that one step's peak can be measured in a longer run. Elsewhere the readings are `None`.

/// Resident memory now, MiB.
pub fn resident_mib() -> Option<f64> {
    status_kib("VmRSS:").map(|kib| kib / 1024.0)
}

/// Highest resident memory so far (since the start or the last [`reset_peak`]), MiB.
pub fn peak_resident_mib() -> Option<f64> {
    status_kib("VmHWM:").map(|kib| kib / 1024.0)
}

/// Lower the high-water mark to the current resident memory (Linux 4.0+); false when the
/// kernel does not allow it, and then [`peak_resident_mib`] keeps counting from the start.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Let the C allocator keep at most `arenas` heaps (glibc on Linux; elsewhere nothing happens).
/// glibc gives busy threads heaps of their own, up to eight per core; under a server's steady
/// load, freed memory scattered over many heaps is rarely given back and resident memory creeps
/// up for minutes (`litnav bench serve`, 600 s: +53 MiB and still rising with the default, flat
/// once the caches are full with two heaps). Call it before the threads start. True when the
/// allocator took the setting.
#[allow(unsafe_code)]
pub fn limit_allocator_arenas(arenas: usize) -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let arenas = libc::c_int::try_from(arenas.max(1)).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only changes an allocator parameter; it takes the allocator's own lock.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        let _ = arenas;
        false
    }
}

fn status_kib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix(field))?;
    line.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_allocation_raises_the_peak_and_a_reset_lowers_it() {
        let Some(before) = peak_resident_mib() else { return };
        let block = vec![1u8; 64 << 20];
        assert!(peak_resident_mib().unwrap() >= before.max(resident_mib().unwrap() - 1.0));
        let touched: u64 = block.iter().step_by(4096).map(|&b| b as u64).sum();
        assert_eq!(touched, (64 << 20) / 4096);
        let high = peak_resident_mib().unwrap();
        drop(block);
        if reset_peak() {
            assert!(peak_resident_mib().unwrap() < high - 32.0, "the reset lowers the mark");
        }
    }
}
