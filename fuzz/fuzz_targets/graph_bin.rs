//! The `graph` artifact (graph.bin) loaded from arbitrary bytes; a loaded graph must be usable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = litnav_fuzz::empty_dir("graph");
    std::fs::write(dir.join("graph.bin"), data).expect("a scratch file");
    let Ok(graph) = litnav_graph::store::load(&dir) else { return };
    for node in graph.nodes() {
        for &cited in graph.references(node) {
            assert!(graph.cites(node, cited));
        }
        let _ = (graph.id(node), graph.year(node), graph.venue(node), graph.in_degree(node));
    }
    let _ = litnav_graph::disruption::disruption_all(&graph, Default::default());
});
