//! The matrix products' timing probes, one thread each, rates on standard error:
//! `cargo bench -p litnav-embed --features probes`. The encoder's throughput against its peer is
//! `litnav bench embed`; these isolate its products.

fn main() {
    litnav_embed::probes::product_rates();
    litnav_embed::probes::tile_rates();
    litnav_embed::probes::layer_rates();
    litnav_embed::probes::kernel_rate();
}
