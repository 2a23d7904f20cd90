//! This process's resident memory as Linux reports it (`/proc/self/status`): the current
//! resident set and its high-water mark, which [`reset_peak`] can lower to the current value so
//! that one step's peak can be measured in a longer run. Elsewhere the readings are `None`.
//! Also the process-wide allocator settings: how many heaps glibc keeps
//! ([`limit_allocator_arenas`]) and huge pages under large blocks ([`LargePages`]).

/// Resident memory now, MiB.
pub fn resident_mib() -> Option<f64> {
    status_kib("VmRSS:").map(|kib| kib / 1024.0)
}

/// Highest resident memory so far (since the start or the last [`reset_peak`]), MiB.
pub fn peak_resident_mib() -> Option<f64> {
    status_kib("VmHWM:").map(|kib| kib / 1024.0)
}

/// The environment variable that makes a `litnav` process print its peak resident memory on
/// standard error as it exits (`litnav bench memory` sets it for every command it runs).
pub const PEAK_MEMORY_VARIABLE: &str = "LITNAV_PEAK_MEMORY";

/// The line a process prints then, followed by the peak in MiB.
pub const PEAK_LINE: &str = "litnav: peak resident memory ";

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

/// The system allocator, with large blocks (4 MiB and more) asking Linux for transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`, for the whole 2 MiB pages inside the block) before they are
/// touched. Where the kernel's setting is "madvise" (Debian's default) such a block is otherwise
/// backed by 4 KiB pages: one page fault per 4 KiB when it is filled, and a miss of the address
/// cache (TLB) on nearly every random read of a table of tens of megabytes. That is what CD on
/// ten million papers does, on the in-memory graph and in DataFusion's range kernel alike
/// (BENCHMARKS.md, "Beyond one machine"). Small blocks are left alone, so a process of many small
/// allocations (the server) is unchanged. The global allocator of the `litnav` command and of
/// the Python module, over the system allocator (`LargePages(System)`) or another (`A`).
pub struct LargePages<A = std::alloc::System>(pub A);

/// Blocks at least this large get huge pages: each holds at least one whole 2 MiB page.
const LARGE_BLOCK: usize = 4 << 20;
/// A transparent huge page on x86-64 and the usual arm64 kernels.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE_PAGE: usize = 2 << 20;

#[allow(unsafe_code)]
// SAFETY: every call is passed to the inner allocator unchanged; the advice only changes which
// pages later back the block, never its address, size or contents.
unsafe impl<A: std::alloc::GlobalAlloc> std::alloc::GlobalAlloc for LargePages<A> {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        advise_large(unsafe { self.0.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as above. The system allocator's calloc leaves a fresh mapping untouched (it is
        // zero already), so the advice still comes before the first touch.
        advise_large(unsafe { self.0.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.size() < LARGE_BLOCK && new_size >= LARGE_BLOCK {
            // A small block becoming a large one moves to a new mapping, which the system's
            // realloc would fill with the copy before the advice could come: advise it first.
            // SAFETY: `new_size` is non-zero and, with the layout's alignment, a valid layout (the
            // caller's contract for `realloc`); the old block is valid for `layout.size()` bytes
            // and the new one for more, and the two do not overlap.
            unsafe {
                let grown = std::alloc::Layout::from_size_align_unchecked(new_size, layout.align());
                let block = self.alloc(grown);
                if !block.is_null() {
                    std::ptr::copy_nonoverlapping(ptr, block, layout.size());
                    self.dealloc(ptr, layout);
                }
                return block;
            }
        }
        // SAFETY: the caller's contract for `realloc`, passed on. Under the system allocator a large
        // block growing keeps its pages (Linux moves the mapping), and its new tail gets the advice
        // before it is touched.
        advise_large(unsafe { self.0.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// Ask for huge pages under the whole 2 MiB pages of a block of `size` bytes at `block` (when it
/// is a large one); returns `block`.
#[allow(unsafe_code)]
fn advise_large(block: *mut u8, size: usize) -> *mut u8 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if size >= LARGE_BLOCK && !block.is_null() {
        let start = (block as usize).next_multiple_of(HUGE_PAGE);
        let end = (block as usize + size) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside the block just allocated; the advice is a hint
            // that cannot change its contents, and a refusal (an old kernel) changes nothing.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = size;
    block
}

fn status_kib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix(field))?;
    line.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command's allocator: huge-page advice over the system allocator.
    const PAGES: LargePages = LargePages(std::alloc::System);

    /// Whether the mapping holding `address` may be backed by huge pages (`THPeligible` in
    /// `/proc/self/smaps`); `None` where the kernel does not say.
    fn huge_page_eligible(address: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let first = line.split_whitespace().next().unwrap_or_default();
            // A mapping's own line starts with its address range; its fields follow, named.
            if let Some((from, to)) = first.split_once('-').filter(|_| !first.ends_with(':')) {
                let (from, to) = (usize::from_str_radix(from, 16).ok()?, usize::from_str_radix(to, 16).ok()?);
                inside = (from..to).contains(&address);
            } else if inside && first == "THPeligible:" {
                return Some(line.ends_with('1'));
            }
        }
        None
    }

    #[test]
    #[allow(unsafe_code)]
    fn large_blocks_ask_for_huge_pages_and_small_ones_do_not() {
        use std::alloc::{GlobalAlloc, Layout};
        // Only where the kernel gives huge pages to those who ask (its "madvise" setting) does
        // the advice decide; under "always" or "never" it changes nothing to see.
        let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !setting.contains("[madvise]") {
            return;
        }
        let large = Layout::from_size_align(64 << 20, 8).unwrap();
        let small = Layout::from_size_align(64 << 10, 8).unwrap();
        // SAFETY: the blocks are only written within their layouts and freed with them.
        unsafe {
            let block = PAGES.alloc(large);
            assert!(!block.is_null());
            block.write_bytes(1, large.size());
            let middle = block as usize + large.size() / 2;
            assert_eq!(huge_page_eligible(middle), Some(true), "a 64 MiB block may have huge pages");
            assert_eq!(*block.add(large.size() - 1), 1);
            PAGES.dealloc(block, large);
            let block = PAGES.alloc(small);
            block.write_bytes(2, small.size());
            assert_ne!(huge_page_eligible(block as usize), Some(true), "a 64 KiB block is left alone");
            PAGES.dealloc(block, small);
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn a_small_block_grown_large_keeps_its_contents_and_asks_for_huge_pages() {
        use std::alloc::{GlobalAlloc, Layout};
        let small = Layout::from_size_align(64 << 10, 16).unwrap();
        let large = 64 << 20;
        // SAFETY: the blocks are only read and written within their sizes and freed with their
        // layouts.
        unsafe {
            let block = PAGES.alloc(small);
            assert!(!block.is_null());
            for i in 0..small.size() {
                *block.add(i) = (i % 251) as u8;
            }
            let grown = PAGES.realloc(block, small, large);
            assert!(!grown.is_null());
            assert!((0..small.size()).all(|i| *grown.add(i) == (i % 251) as u8), "the contents moved with the block");
            grown.add(small.size()).write_bytes(3, large - small.size());
            let setting = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
            if setting.contains("[madvise]") {
                assert_eq!(huge_page_eligible(grown as usize + large / 2), Some(true));
            }
            let shrunk = PAGES.realloc(grown, Layout::from_size_align(large, 16).unwrap(), 4096);
            assert_eq!(*shrunk.add(4095), (4095 % 251) as u8);
            PAGES.dealloc(shrunk, Layout::from_size_align(4096, 16).unwrap());
        }
    }

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
