//! Tells the tests whether this machine's CPU has AMX-BF16 (`cfg(litnav_amx_cpu)`), so that the
//! tests of the tile instructions are reported as ignored, with the reason, where they cannot run
//! rather than passing without running. The product itself decides at run time (`tiles::available`).

fn main() {
    println!("cargo::rustc-check-cfg=cfg(litnav_amx_cpu)");
    println!("cargo::rerun-if-changed=build.rs");
    if cpu_has_amx_bf16() {
        println!("cargo::rustc-cfg=litnav_amx_cpu");
    }
}

#[cfg(target_arch = "x86_64")]
fn cpu_has_amx_bf16() -> bool {
    // CPUID leaf 7, sub-leaf 0: EDX bit 22 is AMX-BF16, bit 24 AMX-TILE (as `tiles::available`).
    let leaf = std::arch::x86_64::__cpuid_count(7, 0);
    leaf.edx & (1 << 22) != 0 && leaf.edx & (1 << 24) != 0
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has_amx_bf16() -> bool {
    false
}
