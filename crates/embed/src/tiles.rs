//! Matrix products on Intel AMX tiles that keep f32's accuracy. With `gemm.rs` and `kernels.rs`
//! the only modules of this crate that use `unsafe`: the tile kernels (inline assembly) and the
//! request to the kernel for the tiles' register state, each behind bounds checked in safe code.
//!
//! A tile multiply-add (`TDPBF16PS`) takes bfloat16 operands — f32 with 8 significant bits — and
//! accumulates in f32, sixteen times the multiply-adds of the AVX-512 FMA units a cycle. Each f32
//! operand is therefore split into three bfloat16 parts, `x = x₀ + x₁ + x₂` (each part the
//! rounded remainder of the ones before: 24 of f32's significant bits), and a product keeps the
//! six partial products whose order of magnitude is at least 2⁻¹⁶ of the largest:
//! `a·b ≈ a₀b₀ + a₀b₁ + a₀b₂ + a₁b₀ + a₁b₁ + a₂b₀`. What is dropped is below 3·2⁻²⁴ of `|a·b|`,
//! the size of an f32 rounding, so the sum is as accurate as an f32 product computed with FMA
//! (the unit tests bound it against f64), at about two and a half times the AVX-512 FMA units'
//! peak for f32 (618–630 against 240 GFLOP/s a core measured here: BENCHMARKS.md).
//!
//! Every product here is `c = a · wᵀ + bias` like [`crate::gemm::Packed`]'s: `w` is packed once
//! ([`TilePacked`]) into tiles of 16 outputs × 32 inputs per part, in the pair-interleaved layout
//! the instruction reads; a block of rows' inputs is split and packed per call. Each output
//! element is the same sequence of operations in any batch (the bias, then per 32 inputs the six
//! partial products in one order), so a text's vector does not depend on what it is batched with.
#![allow(unsafe_code)]

use crate::gemm::{View, pad_bias};
use std::sync::OnceLock;

/// Outputs per panel: one accumulator tile's 16 f32 columns.
const PANEL: usize = 16;
/// Inputs per chunk: one tile row of 32 bfloat16 values.
const CHUNK: usize = 32;
/// Rows per tile.
const TILE_ROWS: usize = 16;
/// Parts an f32 is split into.
const PARTS: usize = 3;
/// bfloat16 values in one tile (16 rows × 64 bytes).
const TILE: usize = TILE_ROWS * CHUNK;
/// Row tiles one kernel call accumulates (four accumulators, three weight parts and one input
/// part fill the eight tile registers).
const GROUP_TILES: usize = 4;
/// Bytes of split inputs per block of rows: a block stays in the core's L2 cache (2 MB on the CPUs
/// with AMX) while every panel of weights passes, so the weights are read from beyond L2 once per
/// block; `finish` then sees the block's outputs while they are in cache.
const BLOCK_BYTES: usize = 1 << 20;

/// Rows per block when a block's inputs are split `chunks` chunks at a time: as many groups of
/// 64 rows as fit [`BLOCK_BYTES`], at least one.
fn row_block(chunks: usize) -> usize {
    let group_rows = GROUP_TILES * TILE_ROWS;
    let per_row = chunks * CHUNK * PARTS * 2;
    (BLOCK_BYTES / per_row / group_rows).max(1) * group_rows
}

/// Cache lines of the next panel's weights that one group's kernel asks for per chunk, ahead of
/// their use ([`ahead_share`]): the kernels' eight `prefetcht1`, which this must match.
const AHEAD_LINES: usize = 8;
/// bfloat16 values in one 64-byte cache line.
const LINE_VALUES: usize = 32;
/// Cache lines of one chunk's three weight tiles.
const CHUNK_LINES: usize = PARTS * TILE / LINE_VALUES;

/// Where in each chunk of the next panel's weights group `g`'s kernel starts asking for its
/// [`AHEAD_LINES`] lines, in bfloat16 values. A panel's weights come from beyond L2 when its
/// first group loads them, and that group's multiply-adds wait; so while a panel runs its groups
/// (seven in a block of 448 rows), each asks the L2 cache for a different sixth of the next
/// panel's weights, six groups covering all of them (measured: 2–4% more passages a second).
fn ahead_share(g: usize) -> usize {
    (g * AHEAD_LINES) % CHUNK_LINES * LINE_VALUES
}

/// Chunks per span of the inputs at most: a block of rows is multiplied one span of its inputs
/// at a time (the outputs accumulating across spans), so that a long product (1,536 inputs) keeps
/// as many rows per block as a short one and reads its weights from beyond L2 as rarely.
const SPAN_CHUNKS: usize = 12;

/// A span of the inputs: its first chunk and how many chunks.
struct Span {
    first: usize,
    chunks: usize,
}

/// `chunks` chunks cut into spans of at most [`SPAN_CHUNKS`], as equal as they can be.
fn depth_spans(chunks: usize) -> Vec<Span> {
    let count = chunks.div_ceil(SPAN_CHUNKS).max(1);
    let size = chunks.div_ceil(count);
    (0..chunks).step_by(size.max(1)).map(|first| Span { first, chunks: size.min(chunks - first) }).collect()
}

/// Set to `0`, `off` or `false` to leave the tiles unused (the FMA product of `gemm.rs` runs
/// instead): a knob for comparing the two products and for a system whose tiles misbehave.
const DISABLE_VARIABLE: &str = "LITNAV_AMX";

/// Whether the tile product runs here: the CPU has AMX-TILE and AMX-BF16, the operating system
/// granted this process the tiles' register state, and [`DISABLE_VARIABLE`] does not turn them
/// off. Checked once per process; the first call asks the kernel (Linux's `arch_prctl`), so call
/// it early, before other threads with small signal stacks exist (the kernel refuses otherwise,
/// and litnav then runs the FMA product).
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let disabled = std::env::var(DISABLE_VARIABLE).is_ok_and(|v| matches!(v.trim(), "0" | "off" | "false"));
        !disabled && cpu_has_amx_bf16() && os_grants_tiles()
    })
}

#[cfg(target_arch = "x86_64")]
fn cpu_has_amx_bf16() -> bool {
    // CPUID leaf 7, sub-leaf 0: EDX bit 22 is AMX-BF16, bit 24 AMX-TILE.
    // AVX-512 (which every CPU with AMX has) splits the inputs.
    let leaf = std::arch::x86_64::__cpuid_count(7, 0);
    leaf.edx & (1 << 22) != 0
        && leaf.edx & (1 << 24) != 0
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_has_amx_bf16() -> bool {
    false
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn os_grants_tiles() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: a system call that only changes which register state this process may use.
    unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0 }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn os_grants_tiles() -> bool {
    false
}

/// `x` rounded to bfloat16 (nearest, ties to even), as its bit pattern.
#[inline(always)]
fn to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    (bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}

#[inline(always)]
fn from_bf16(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// The three bfloat16 parts of `x`: each the rounded remainder of the ones before (the
/// subtractions are exact).
#[inline(always)]
fn split(x: f32) -> [u16; PARTS] {
    let first = to_bf16(x);
    let rest = x - from_bf16(first);
    let second = to_bf16(rest);
    [first, second, to_bf16(rest - from_bf16(second))]
}

/// Where value `k` (of a chunk's 32 inputs) of output `n` (of a panel's 16) goes in a weight tile:
/// the instruction reads inputs in pairs, so row `k / 2` holds each output's pair side by side.
#[inline(always)]
fn weight_slot(k: usize, n: usize) -> usize {
    (k / 2) * (2 * PANEL) + 2 * n + k % 2
}

/// Where a weight's parts go in a [`TilePacked`]: the first value of its panel's and chunk's
/// block of three tiles, its row (output) and column (input), and its place in each tile.
struct Slot {
    block: usize,
    row: usize,
    col: usize,
    slot: usize,
}

/// The [`Slot`] of every weight of an `[outputs × inputs]` matrix, block by block.
fn slots(outputs: usize, inputs: usize) -> impl Iterator<Item = Slot> {
    let chunks = inputs.div_ceil(CHUNK);
    (0..outputs.div_ceil(PANEL) * chunks).flat_map(move |index| {
        let (panel, chunk) = (index / chunks, index % chunks);
        (0..(outputs - panel * PANEL).min(PANEL)).flat_map(move |n| {
            (0..(inputs - chunk * CHUNK).min(CHUNK)).map(move |k| Slot {
                block: index * PARTS * TILE,
                row: panel * PANEL + n,
                col: chunk * CHUNK + k,
                slot: weight_slot(k, n),
            })
        })
    })
}

/// One cache line of bfloat16 values: the unit of the tile buffers, so that every tile row starts
/// on a cache line (a row across two lines costs the kernel two thirds more time, measured).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u16; 32]);

/// A buffer of bfloat16 bit patterns aligned to cache lines.
#[derive(Default)]
struct Lines(Vec<Line>);

impl Lines {
    /// Make it `len` values long (a multiple of 32), all zero.
    fn zeroed(&mut self, len: usize) {
        self.0.clear();
        self.resize(len);
    }

    /// Make it `len` values long (a multiple of 32): values already there keep what they hold.
    fn resize(&mut self, len: usize) {
        debug_assert_eq!(len % 32, 0);
        self.0.resize(len / 32, Line([0; 32]));
    }

    fn values(&self) -> &[u16] {
        // SAFETY: `Line` is 32 `u16`s with no padding (size 64, alignment 64).
        unsafe { std::slice::from_raw_parts(self.0.as_ptr().cast::<u16>(), self.0.len() * 32) }
    }

    fn values_mut(&mut self) -> &mut [u16] {
        // SAFETY: as in `values`; the borrow is unique.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u16>(), self.0.len() * 32) }
    }
}

/// A group's outputs as the kernel stores them, aligned like its tiles.
#[repr(C, align(64))]
struct GroupOutputs([f32; GROUP_TILES * TILE_ROWS * PANEL]);

/// A weight matrix `[outputs × inputs]` split and packed for the tile kernel, with its bias
/// (zeros when it has none): for each panel of 16 outputs, for each chunk of 32 inputs, the three
/// parts' tiles, zero-padded past the last output and input.
pub(crate) struct TilePacked {
    tiles: Lines,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl TilePacked {
    /// Split and pack `w` (`[outputs × inputs]`) and its bias.
    pub fn new(w: View<'_>, bias: Option<&[f32]>) -> TilePacked {
        let (outputs, inputs) = (w.rows, w.cols);
        let (panels, chunks) = (outputs.div_ceil(PANEL), inputs.div_ceil(CHUNK));
        let mut tiles = Lines::default();
        tiles.zeroed(panels * chunks * PARTS * TILE);
        let values = tiles.values_mut();
        for Slot { block, row, col, slot } in slots(outputs, inputs) {
            let parts = split(w.data[row * w.row_stride + col * w.col_stride]);
            for (part, value) in parts.into_iter().enumerate() {
                values[block + part * TILE + slot] = value;
            }
        }
        let mut padded = Vec::new();
        pad_bias(bias, outputs, panels * PANEL, &mut padded);
        TilePacked { tiles, bias: padded, inputs, outputs }
    }

    /// Number of inputs (the depth of a product).
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The weights as they were given (`[outputs × inputs]`, row-major) and the bias: each weight
    /// the sum of its three parts, which gives a normal f32 value back bit for bit (the parts hold
    /// its 24 significant bits, eight each); a zero comes back positive and a subnormal value
    /// rounded to the parts' precision, as the tile product itself sees them (all-MiniLM-L6-v2's
    /// layers hold neither).
    pub fn unpacked(&self) -> (Vec<f32>, &[f32]) {
        let mut weights = vec![0.0; self.outputs * self.inputs];
        let values = self.tiles.values();
        for Slot { block, row, col, slot } in slots(self.outputs, self.inputs) {
            let [first, second, third] = [0, 1, 2].map(|part| from_bf16(values[block + part * TILE + slot]));
            weights[row * self.inputs + col] = first + second + third;
        }
        (weights, &self.bias[..self.outputs])
    }

    /// `c[rows × outputs] = a[rows × inputs] · wᵀ + bias`, as [`crate::gemm::Packed::product`]
    /// (same arguments, `finish` after each block of rows with the block's first row and its
    /// output rows). Call only where [`available`] is true.
    ///
    /// Panics if a slice is too short for its shape — a programming error in this crate.
    pub fn product(
        &self,
        a: &[f32],
        rows: usize,
        a_stride: usize,
        c: &mut [f32],
        c_stride: usize,
        finish: impl FnMut(usize, &mut [f32]),
    ) {
        self.product_by(Arithmetic::Tiles, a, rows, a_stride, c, c_stride, finish);
    }

    /// [`TilePacked::product`] with its multiply-adds carried out by `arithmetic`: everything else
    /// (splitting, packing, blocks, spans, panels, spill buffers) is the same code.
    #[allow(clippy::too_many_arguments)]
    fn product_by(
        &self,
        arithmetic: Arithmetic,
        a: &[f32],
        rows: usize,
        a_stride: usize,
        c: &mut [f32],
        c_stride: usize,
        mut finish: impl FnMut(usize, &mut [f32]),
    ) {
        let (inputs, outputs) = (self.inputs, self.outputs);
        if rows == 0 || outputs == 0 {
            return;
        }
        assert!(matches!(arithmetic, Arithmetic::Emulated) || available(), "the tile product needs AMX");
        assert!(a_stride >= inputs && (rows - 1) * a_stride + inputs <= a.len(), "input view out of bounds");
        assert!(c_stride >= outputs && (rows - 1) * c_stride + outputs <= c.len(), "output view out of bounds");
        let chunks = inputs.div_ceil(CHUNK);
        let panels = outputs.div_ceil(PANEL);
        let spans = depth_spans(chunks);
        let mut packed = split_buffers::take();
        let mut spill: Vec<GroupOutputs> = Vec::new();
        let block = row_block(spans[0].chunks);
        for first_row in (0..rows).step_by(block) {
            let block_rows = (rows - first_row).min(block);
            let groups = groups(block_rows);
            // Tiles with missing rows or outputs accumulate in a spill buffer each, copied out
            // when every span is done; whole tiles accumulate in place.
            let mut slots = vec![None; groups.len() * panels];
            for (index, slot) in slots.iter_mut().enumerate() {
                let (group, panel) = (&groups[index / panels], index % panels);
                if group.rows < group.tiles * TILE_ROWS || (panel + 1) * PANEL > outputs {
                    *slot = Some(spill.len());
                    spill.push(GroupOutputs([0.0; GROUP_TILES * TILE_ROWS * PANEL]));
                }
            }
            for (index, span) in spans.iter().enumerate() {
                let span_inputs = (inputs - span.first * CHUNK).min(span.chunks * CHUNK);
                let source = &a[first_row * a_stride + span.first * CHUNK..];
                pack_inputs(source, a_stride, block_rows, span_inputs, &groups, &mut packed);
                let session = matches!(arithmetic, Arithmetic::Tiles).then(Configured::new);
                for panel in 0..panels {
                    let weights = &self.tiles.values()[(panel * chunks + span.first) * PARTS * TILE..];
                    // The weights the next panel (or the next span's first) reads, which this
                    // panel's groups ask the cache for while they compute.
                    let next = if panel + 1 < panels {
                        (panel + 1) * chunks + span.first
                    } else if let Some(following) = spans.get(index + 1) {
                        following.first
                    } else {
                        panel * chunks + span.first
                    };
                    let next_weights = (self.tiles.values().get(next * PARTS * TILE..))
                        .filter(|next| next.len() >= span.chunks * PARTS * TILE)
                        .unwrap_or(weights);
                    let start =
                        if index == 0 { Start::Bias(&self.bias[panel * PANEL..][..PANEL]) } else { Start::Output };
                    for (g, group) in groups.iter().enumerate() {
                        let inputs =
                            &packed.values()[group.start * span.chunks..][..group.tiles * span.chunks * PARTS * TILE];
                        let place = match slots[g * panels + panel] {
                            Some(slot) => Place { out: &mut spill[slot].0, stride: PANEL },
                            None => Place {
                                out: &mut c[(first_row + group.first_row) * c_stride + panel * PANEL..],
                                stride: c_stride,
                            },
                        };
                        let ahead = &next_weights[ahead_share(g)..];
                        let operands =
                            Operands { inputs, tiles: group.tiles, weights, ahead, chunks: span.chunks, start, place };
                        match &session {
                            Some(session) => group_kernel(session, operands),
                            None => emulated_kernel(operands),
                        }
                    }
                }
            }
            for (index, slot) in slots.iter().enumerate() {
                let (Some(slot), group, panel) = (*slot, &groups[index / panels], index % panels) else { continue };
                let columns = (outputs - panel * PANEL).min(PANEL);
                for r in 0..group.rows {
                    let place = (first_row + group.first_row + r) * c_stride + panel * PANEL;
                    c[place..][..columns].copy_from_slice(&spill[slot].0[r * PANEL..][..columns]);
                }
            }
            spill.clear();
            let end = (first_row + block_rows - 1) * c_stride + outputs;
            finish(first_row, &mut c[first_row * c_stride..end]);
        }
        split_buffers::give_back(packed);
    }
}

/// Up to [`GROUP_TILES`] row tiles of a block, multiplied together: where their inputs start in
/// the packed inputs (in tiles of a chunk's worth: times the span's chunks), how many tiles, the
/// block row of their first row, and how many rows are real.
struct Group {
    start: usize,
    tiles: usize,
    first_row: usize,
    rows: usize,
}

/// The groups of a block of `rows` rows.
fn groups(rows: usize) -> Vec<Group> {
    let row_tiles = rows.div_ceil(TILE_ROWS);
    (0..row_tiles)
        .step_by(GROUP_TILES)
        .map(|first_tile| {
            let tiles = (row_tiles - first_tile).min(GROUP_TILES);
            let first_row = first_tile * TILE_ROWS;
            Group {
                start: first_tile * PARTS * TILE,
                tiles,
                first_row,
                rows: (rows - first_row).min(tiles * TILE_ROWS),
            }
        })
        .collect()
}

/// Split and pack `rows` rows of `inputs` values (`stride` apart) by `groups`. Within a group, for
/// each chunk of 32 inputs, for each row tile, the three parts' tiles (16 rows × 32 values,
/// row-major) — the order the kernel reads them in. Missing rows and inputs are zeros.
fn pack_inputs(a: &[f32], stride: usize, rows: usize, inputs: usize, groups: &[Group], out: &mut Lines) {
    let chunks = inputs.div_ceil(CHUNK);
    let len = rows.div_ceil(TILE_ROWS) * chunks * PARTS * TILE;
    // Zeros are needed only where a row or input is missing; everything else is written below.
    if rows.is_multiple_of(TILE_ROWS) && inputs.is_multiple_of(CHUNK) {
        out.resize(len);
    } else {
        out.zeroed(len);
    }
    let out = out.values_mut();
    for group in groups {
        let packed = &mut out[group.start * chunks..][..group.tiles * chunks * PARTS * TILE];
        for r in 0..group.rows {
            let (tile, row_in_tile) = (r / TILE_ROWS, r % TILE_ROWS);
            let source = &a[(group.first_row + r) * stride..][..inputs];
            for (chunk, values) in source.chunks(CHUNK).enumerate() {
                let base = (chunk * group.tiles + tile) * PARTS * TILE + row_in_tile * CHUNK;
                let (first, rest) = packed[base..].split_at_mut(TILE);
                let (second, third) = rest.split_at_mut(TILE);
                split_values(values, first, second, third);
            }
        }
    }
}

/// Split `values` into their parts, the first parts into `first` and so on, with AVX-512 where the
/// CPU has it.
fn split_values(values: &[f32], first: &mut [u16], second: &mut [u16], third: &mut [u16]) {
    #[inline(always)]
    fn body(values: &[f32], first: &mut [u16], second: &mut [u16], third: &mut [u16]) {
        for (((&x, a), b), c) in values.iter().zip(first).zip(second).zip(third) {
            [*a, *b, *c] = split(x);
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        unsafe fn wide(values: &[f32], first: &mut [u16], second: &mut [u16], third: &mut [u16]) {
            body(values, first, second, third)
        }
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: the CPU has the features `wide` is compiled for (checked just above; where
            // the tiles run, `available` checked them too). The emulated product runs anywhere.
            return unsafe { wide(values, first, second, third) };
        }
        body(values, first, second, third)
    }
    #[cfg(not(target_arch = "x86_64"))]
    body(values, first, second, third)
}

per_thread_buffers!(
    /// Split inputs.
    split_buffers: super::Lines
);

/// Where a kernel stores its outputs: rows of 16 values from the start of `out`, `stride` values
/// apart.
struct Place<'a> {
    out: &'a mut [f32],
    stride: usize,
}

/// What a kernel's accumulators start from: the panel's bias (the first span of the inputs), or
/// the outputs already in its place (the spans after).
#[derive(Clone, Copy)]
enum Start<'a> {
    Bias(&'a [f32]),
    Output,
}

/// What one kernel call multiplies: a group's split inputs of a span (`tiles` row tiles ×
/// `chunks` chunks), the panel's weight tiles from the span's first chunk, where the
/// accumulators start from and where they go; and `ahead`, the weights (laid out as a panel's)
/// whose first [`AHEAD_LINES`] lines of each chunk it asks the L2 cache for as it goes.
struct Operands<'a> {
    inputs: &'a [u16],
    tiles: usize,
    weights: &'a [u16],
    ahead: &'a [u16],
    chunks: usize,
    start: Start<'a>,
    place: Place<'a>,
}

/// The tiles configured ([`CONFIG`]) on this thread until dropped, when their state is released.
/// Loading a configuration waits for every tile instruction before it, so it is done once per
/// span of a block rather than per kernel call (a tenth of the time, measured); in between, only
/// the kernels below use the tiles (nothing else in litnav does, and `finish` never runs while
/// they are configured).
struct Configured(std::marker::PhantomData<*const ()>);

impl Configured {
    fn new() -> Configured {
        assert!(available(), "the tile product needs AMX");
        // SAFETY: the CPU has AMX and the process may use it (asserted); the configuration is a
        // valid palette-1 configuration of 64 aligned bytes.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!("ldtilecfg [{config}]", config = in(reg) CONFIG.0.as_ptr(), options(nostack, readonly));
        }
        Configured(std::marker::PhantomData)
    }
}

impl Drop for Configured {
    fn drop(&mut self) {
        // SAFETY: the tiles were configured by `new` on this thread (the type is not `Send`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!("tilerelease", options(nostack, nomem));
        }
    }
}

/// One group × one panel × one span: the place gets `tiles · 16` rows of 16 outputs, the start
/// plus the span's partial products.
fn group_kernel(_configured: &Configured, operands: Operands<'_>) {
    let Operands { inputs, tiles, weights, ahead, chunks, start, place: Place { out, stride } } = operands;
    assert!((1..=GROUP_TILES).contains(&tiles) && chunks > 0, "a group has 1 to 4 row tiles and some inputs");
    assert!(inputs.len() >= tiles * chunks * PARTS * TILE, "group inputs out of bounds");
    assert!(weights.len() >= chunks * PARTS * TILE, "panel weights out of bounds");
    assert!(
        ahead.len() >= (chunks - 1) * PARTS * TILE + AHEAD_LINES * LINE_VALUES,
        "weights asked for ahead out of bounds"
    );
    assert!(stride >= PANEL && (tiles * TILE_ROWS - 1) * stride + PANEL <= out.len(), "group output out of bounds");
    let (first, first_stride) = match start {
        Start::Bias(bias) => {
            assert!(bias.len() >= PANEL, "a panel's bias out of bounds");
            (bias.as_ptr(), 0)
        }
        Start::Output => (out.as_ptr(), stride * 4),
    };
    let pointers = Pointers {
        inputs: inputs.as_ptr(),
        weights: weights.as_ptr(),
        ahead: ahead.as_ptr(),
        first,
        first_stride,
        out: out.as_mut_ptr(),
        out_stride: stride * 4,
        chunks,
    };
    // SAFETY: the tiles are configured on this thread (`_configured`); the asserts above keep
    // every tile load and store inside the slices: per chunk the kernel reads `tiles · 3` input
    // tiles and 3 weight tiles; it loads `tiles` tiles from where the accumulators start (the bias
    // row sixteen times, or the output rows) and stores `tiles` tiles to the output rows. Its
    // prefetches (hints, which never fault) stay inside `ahead`: per chunk [`AHEAD_LINES`] lines
    // from the chunk's start there.
    unsafe {
        match tiles {
            1 => kernel_1(pointers),
            2 => kernel_2(pointers),
            3 => kernel_3(pointers),
            _ => kernel_4(pointers),
        }
    }
}

/// How a group's multiply-adds are carried out.
#[derive(Clone, Copy)]
enum Arithmetic {
    /// On the tiles: the kernels' inline assembly.
    Tiles,
    /// In software, as Intel defines `TDPBF16PS` (in the tests, so that every layout and
    /// bookkeeping step of the tile product is checked on CPUs without AMX).
    #[cfg_attr(not(test), allow(dead_code))]
    Emulated,
}

/// What [`group_kernel`] computes, in software: for each row of each row tile and each chunk, the
/// six partial products in the kernel's order (input part 0 by weight parts 0, 1, 2, part 1 by 0,
/// 1, part 2 by 0), each a `TDPBF16PS` as Intel's manual defines it — per pair of inputs, the two
/// products (exact in f32) added to the accumulator one after the other, rounded to nearest even,
/// subnormal inputs read as zero and subnormal results flushed to zero. The operands are read
/// from the same packed layouts the kernels load their tiles from.
fn emulated_kernel(operands: Operands<'_>) {
    let Operands { inputs, tiles, weights, chunks, start, place: Place { out, stride }, .. } = operands;
    const ORDER: [(usize, &[usize]); PARTS] = [(0, &[0, 1, 2]), (1, &[0, 1]), (2, &[0])];
    let value = |bits: u16| flush_subnormal(from_bf16(bits));
    for row in 0..tiles * TILE_ROWS {
        let (tile, row_in_tile) = (row / TILE_ROWS, row % TILE_ROWS);
        let mut acc = [0.0f32; PANEL];
        acc.copy_from_slice(match start {
            Start::Bias(bias) => &bias[..PANEL],
            Start::Output => &out[row * stride..][..PANEL],
        });
        for chunk in 0..chunks {
            let input_tiles = &inputs[(chunk * tiles + tile) * PARTS * TILE..][..PARTS * TILE];
            let weight_tiles = &weights[chunk * PARTS * TILE..][..PARTS * TILE];
            for (input_part, weight_parts) in ORDER {
                let a = &input_tiles[input_part * TILE + row_in_tile * CHUNK..][..CHUNK];
                for &weight_part in weight_parts {
                    let w = &weight_tiles[weight_part * TILE..][..TILE];
                    for pair in 0..CHUNK / 2 {
                        for (n, sum) in acc.iter_mut().enumerate() {
                            for k in [2 * pair, 2 * pair + 1] {
                                *sum = flush_subnormal(*sum + value(a[k]) * value(w[weight_slot(k, n)]));
                            }
                        }
                    }
                }
            }
        }
        out[row * stride..][..PANEL].copy_from_slice(&acc);
    }
}

/// `x`, or a zero of its sign when it is subnormal (the tile unit's DAZ and FTZ).
fn flush_subnormal(x: f32) -> f32 {
    if x.is_subnormal() { 0.0f32.copysign(x) } else { x }
}

/// A kernel's operands as pointers (strides in bytes; a zero `first_stride` reads one row
/// sixteen times).
struct Pointers {
    inputs: *const u16,
    weights: *const u16,
    ahead: *const u16,
    first: *const f32,
    first_stride: usize,
    out: *mut f32,
    out_stride: usize,
    chunks: usize,
}

/// The tile configuration the kernels run under: palette 1, eight tiles of 16 rows × 64 bytes.
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

const CONFIG: TileConfig = {
    let mut bytes = [0u8; 64];
    bytes[0] = 1;
    let mut tile = 0;
    while tile < 8 {
        bytes[16 + 2 * tile] = 64; // bytes per row (little-endian u16)
        bytes[48 + tile] = TILE_ROWS as u8;
        tile += 1;
    }
    TileConfig(bytes)
};

/// Load one input part of a row tile (at byte offset `$offset` from `{a}`) into tmm7 and multiply
/// it by the weight parts `$weights`, accumulating into tile `$acc`.
macro_rules! input_part {
    ($acc:literal, $offset:literal, [$($weights:literal),+]) => {
        concat!(
            "tileloadd tmm7, [{a} + {row}*1 + ", $offset, "]\n",
            $("tdpbf16ps ", $acc, ", tmm7, ", $weights, "\n",)+
        )
    };
}

/// The six partial products of one row tile of a chunk, accumulated into tile `$acc`: the input
/// parts are at byte offsets `$p0`, `$p1`, `$p2` from `{a}`; the weight parts are in tmm4–tmm6.
macro_rules! row_tile {
    ($acc:literal, $p0:literal, $p1:literal, $p2:literal) => {
        concat!(
            input_part!($acc, $p0, ["tmm4", "tmm5", "tmm6"]),
            input_part!($acc, $p1, ["tmm4", "tmm5"]),
            input_part!($acc, $p2, ["tmm4"]),
        )
    };
}

/// A kernel for a fixed number of row tiles: accumulators tmm0.. start from where [`Start`] says
/// (the bias loaded with a zero stride, the same row sixteen times, or the outputs so far), then
/// each chunk loads the panel's three weight parts and runs every row tile's six partial products;
/// the accumulators are stored last.
macro_rules! kernel {
    ($name:ident, $input_step:literal, [$(($acc:literal, $p0:literal, $p1:literal, $p2:literal)),+]) => {
        /// See [`group_kernel`].
        ///
        /// # Safety
        /// The tiles are configured on this thread ([`Configured`]); the pointers hold what
        /// [`group_kernel`] asserts.
        #[cfg(target_arch = "x86_64")]
        unsafe fn $name(pointers: Pointers) {
            let Pointers { inputs, weights, ahead, first, first_stride, out, out_stride, chunks } = pointers;
            // SAFETY: see the function's contract.
            unsafe {
                std::arch::asm!(
                    $(concat!("tileloadd ", $acc, ", [{first} + {first_stride}*1]\n", "add {first}, {first_step}"),)+
                    "2:",
                    "tileloadd tmm4, [{w} + {row}*1]",
                    "tileloadd tmm5, [{w} + {row}*1 + 1024]",
                    "tileloadd tmm6, [{w} + {row}*1 + 2048]",
                    "prefetcht1 [{ahead}]", "prefetcht1 [{ahead} + 64]", "prefetcht1 [{ahead} + 128]", "prefetcht1 [{ahead} + 192]",
                    "prefetcht1 [{ahead} + 256]", "prefetcht1 [{ahead} + 320]", "prefetcht1 [{ahead} + 384]", "prefetcht1 [{ahead} + 448]",
                    $(row_tile!($acc, $p0, $p1, $p2),)+
                    concat!("add {a}, ", $input_step),
                    "add {w}, 3072",
                    "add {ahead}, 3072",
                    "dec {chunks}",
                    "jnz 2b",
                    $(concat!("tilestored [{out} + {stride}*1], ", $acc, "\n", "add {out}, {step}"),)+
                    first = inout(reg) first => _,
                    first_stride = in(reg) first_stride,
                    first_step = in(reg) first_stride * TILE_ROWS,
                    row = in(reg) 64usize,
                    out = inout(reg) out => _,
                    stride = in(reg) out_stride,
                    step = in(reg) out_stride * TILE_ROWS,
                    a = inout(reg) inputs => _,
                    w = inout(reg) weights => _,
                    ahead = inout(reg) ahead => _,
                    chunks = inout(reg) chunks => _,
                    options(nostack),
                );
            }
        }

        #[cfg(not(target_arch = "x86_64"))]
        unsafe fn $name(_: Pointers) {
            unreachable!("AMX is only available on x86-64")
        }
    };
}

kernel!(kernel_1, "3072", [("tmm0", "0", "1024", "2048")]);
kernel!(kernel_2, "6144", [("tmm0", "0", "1024", "2048"), ("tmm1", "3072", "4096", "5120")]);
kernel!(
    kernel_3,
    "9216",
    [("tmm0", "0", "1024", "2048"), ("tmm1", "3072", "4096", "5120"), ("tmm2", "6144", "7168", "8192")]
);
kernel!(
    kernel_4,
    "12288",
    [
        ("tmm0", "0", "1024", "2048"),
        ("tmm1", "3072", "4096", "5120"),
        ("tmm2", "6144", "7168", "8192"),
        ("tmm3", "9216", "10240", "11264")
    ]
);

/// The f32 arithmetic the tiles can do here, in floating-point operations per second per core
/// (two per multiply-add): bfloat16 tile multiply-adds into four independent accumulators for
/// about `seconds`, divided by the six partial products each f32 multiply-add costs. `None`
/// where the tiles do not run here (see [`crate::matrix_kernel`]).
pub fn tile_peak_per_core(seconds: f64) -> Option<f64> {
    if !available() {
        return None;
    }
    let zeros = Lines(vec![Line([0; 32]); TILE / 32]);
    let started = std::time::Instant::now();
    let mut rounds = 0u64;
    let configured = Configured::new();
    while started.elapsed().as_secs_f64() < seconds {
        // SAFETY: the tiles are configured on this thread; the loads read one 1 KiB tile of
        // zeros, inside `zeros`.
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!(
                "tileloadd tmm4, [{z} + {row}*1]",
                "tileloadd tmm7, [{z} + {row}*1]",
                "tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3",
                "2:",
                "tdpbf16ps tmm0, tmm7, tmm4", "tdpbf16ps tmm1, tmm7, tmm4",
                "tdpbf16ps tmm2, tmm7, tmm4", "tdpbf16ps tmm3, tmm7, tmm4",
                "dec {n}",
                "jnz 2b",
                z = in(reg) zeros.values().as_ptr(),
                row = in(reg) 64usize,
                n = inout(reg) PEAK_STEPS => _,
                options(nostack, readonly),
            );
        }
        rounds += 1;
    }
    drop(configured);
    let bf16_multiply_adds = rounds as f64 * PEAK_STEPS as f64 * 4.0 * (TILE_ROWS * PANEL * CHUNK) as f64;
    Some(bf16_multiply_adds / PARTIAL_PRODUCTS as f64 * 2.0 / started.elapsed().as_secs_f64())
}

/// Tile multiply-adds per accumulator in one round of [`tile_peak_per_core`].
const PEAK_STEPS: usize = 1 << 12;
/// The partial products of one f32 multiply-add.
const PARTIAL_PRODUCTS: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::Packed;

    fn values(n: usize, seed: u32) -> Vec<f32> {
        // Values of several magnitudes, so that the split's lower parts matter.
        (0..n)
            .map(|i| {
                let r = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed);
                ((r % 2001) as f32 / 1000.0 - 1.0) * [1.0, 0.013, 37.0][(r >> 20) as usize % 3]
            })
            .collect()
    }

    #[test]
    #[cfg_attr(
        not(litnav_amx_cpu),
        ignore = "this CPU has no AMX-BF16: the tile instructions cannot run here (the emulated tests check the rest)"
    )]
    fn the_tile_peak_is_a_plausible_rate() {
        tiles_run_here();
        let peak = tile_peak_per_core(0.05).unwrap_or_default();
        // Between 1 GFLOP/s and the instruction's 1,024 bfloat16 multiply-adds a cycle at 6 GHz.
        assert!((1e9..2.1e12).contains(&peak), "{peak:e}");
    }

    #[test]
    fn the_three_parts_add_up_to_the_value() {
        for x in values(10_000, 7).into_iter().chain([0.0, -0.0, 1.0, f32::MIN_POSITIVE, 3.3e38, -1.17e-30]) {
            let [a, b, c] = split(x).map(from_bf16);
            let sum = f64::from(a) + f64::from(b) + f64::from(c);
            assert!((sum - f64::from(x)).abs() <= f64::from(x).abs() * 2f64.powi(-24), "{x:e}: {sum:e}");
        }
        assert_eq!(to_bf16(1.0), 0x3f80);
        assert_eq!(to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80, "a tie rounds to even");
        assert_eq!(to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82, "a tie rounds to even");
    }

    #[test]
    fn unpacked_weights_are_the_packed_ones() {
        let special = [0.0, -0.0, 1.0, -1.0, f32::MIN_POSITIVE, 1e-40, -3.3e38, 1.17e-30, 0.1, 1.0 / 3.0];
        for (outputs, inputs) in [(1, 1), (16, 32), (17, 33), (40, 70), (3, 100)] {
            let w: Vec<f32> = values(outputs * inputs, 11)
                .into_iter()
                .enumerate()
                .map(|(i, v)| if i % 7 == 0 { special[i / 7 % special.len()] } else { v })
                .collect();
            let bias = values(outputs, 5);
            let packed = TilePacked::new(View::rows(&w, outputs, inputs, inputs), Some(&bias));
            let (unpacked, unpacked_bias) = packed.unpacked();
            for (&u, &v) in unpacked.iter().zip(&w) {
                if v.is_normal() {
                    assert_eq!(u.to_bits(), v.to_bits(), "{v:e}");
                } else {
                    assert!((u - v).abs() < f32::MIN_POSITIVE, "{v:e} came back as {u:e}");
                }
            }
            assert_eq!(unpacked_bias, &bias[..]);
            assert_eq!((packed.inputs(), packed.outputs()), (inputs, outputs));
        }
    }

    /// Output `(i, j)` of `a · wᵀ + bias` in f64 (`inputs` deep), and the sum of its terms'
    /// magnitudes (the scale of an f32 sum's error).
    fn exact(a: &[f32], w: &[f32], bias: &[f32], inputs: usize, (i, j): (usize, usize)) -> (f64, f64) {
        let terms = (0..inputs).map(|k| f64::from(a[i * inputs + k]) * f64::from(w[j * inputs + k]));
        let value = f64::from(bias[j]) + terms.clone().sum::<f64>();
        (value, f64::from(bias[j]).abs() + terms.map(f64::abs).sum::<f64>())
    }

    /// Where the tiles should run, that they do (a machine whose kernel refuses the tiles' state,
    /// or `LITNAV_AMX=0`, fails here rather than passing without running them).
    fn tiles_run_here() {
        assert!(
            available(),
            "this CPU has AMX-BF16 but the tile product is not available (LITNAV_AMX=0, or the kernel refused the tiles' state)"
        );
    }

    /// Every edge shape's product by `arithmetic` within an f32 sum's error of the f64 value, the
    /// columns past the outputs untouched, `finish` called once per block.
    fn accurate_for_every_edge_shape(arithmetic: Arithmetic) {
        for (rows, inputs, outputs) in [
            (1, 3, 1),
            (7, 300, 21),
            (53, 520, 40),
            (16, 32, 16),
            (64, 384, 48),
            (129, 64, 17),
            (300, 1536, 33),
            (700, 384, 20),
            // Spans of 7 and 6 chunks, one panel and three: the next span's weights asked for ahead.
            (20, 416, 16),
            (80, 416, 40),
        ] {
            let a = values(rows * inputs, 1);
            let w = values(outputs * inputs, 2);
            let bias = values(outputs, 3);
            let tiles = TilePacked::new(View::rows(&w, outputs, inputs, inputs), Some(&bias));
            let stride = outputs + 2;
            let mut c = vec![f32::NAN; rows * stride];
            let mut blocks = Vec::new();
            tiles.product_by(arithmetic, &a, rows, inputs, &mut c, stride, |first, block| {
                blocks.push((first, block.len()))
            });
            for i in 0..rows {
                for j in 0..outputs {
                    let (value, magnitude) = exact(&a, &w, &bias, inputs, (i, j));
                    // An f32 sum's error bound (as for the FMA product), from the value's size.
                    let bound = magnitude * f64::from(f32::EPSILON) * (inputs as f64).sqrt().max(4.0);
                    let got = f64::from(c[i * stride + j]);
                    assert!((got - value).abs() <= bound, "{rows}x{inputs}x{outputs} ({i},{j}): {got} vs {value}");
                }
                assert!(c[i * stride + outputs].is_nan(), "a column past the outputs was written");
            }
            assert_eq!(blocks.first().map(|b| b.0), Some(0));
            assert_eq!(blocks.len(), rows.div_ceil(row_block(depth_spans(inputs.div_ceil(CHUNK))[0].chunks)));
        }
    }

    #[test]
    fn the_emulated_tile_product_is_as_accurate_as_f32_for_every_edge_shape() {
        accurate_for_every_edge_shape(Arithmetic::Emulated);
    }

    #[test]
    #[cfg_attr(
        not(litnav_amx_cpu),
        ignore = "this CPU has no AMX-BF16: the tile instructions cannot run here (the emulated tests check the rest)"
    )]
    fn the_tile_product_is_as_accurate_as_f32_for_every_edge_shape() {
        tiles_run_here();
        accurate_for_every_edge_shape(Arithmetic::Tiles);
    }

    #[test]
    #[cfg_attr(
        not(litnav_amx_cpu),
        ignore = "this CPU has no AMX-BF16: the tile instructions cannot run here (the emulated tests check the rest)"
    )]
    fn the_tiles_compute_what_the_emulation_computes() {
        tiles_run_here();
        let (rows, inputs, outputs) = (70, 416, 40);
        let (a, w, bias) = (values(rows * inputs, 21), values(outputs * inputs, 22), values(outputs, 23));
        let tiles = TilePacked::new(View::rows(&w, outputs, inputs, inputs), Some(&bias));
        let (mut emulated, mut real) = (vec![0.0; rows * outputs], vec![0.0; rows * outputs]);
        tiles.product_by(Arithmetic::Emulated, &a, rows, inputs, &mut emulated, outputs, |_, _| {});
        tiles.product_by(Arithmetic::Tiles, &a, rows, inputs, &mut real, outputs, |_, _| {});
        for (i, (e, r)) in emulated.iter().zip(&real).enumerate() {
            // The same partial products, but the order and rounding of the tile unit's additions
            // are the hardware's (they differ between AMX generations): each result is within an
            // f32 sum's error bound of the exact value (the accuracy tests above), so the two are
            // within twice that bound of each other.
            let (row, column) = (i / outputs, i % outputs);
            let magnitude: f64 = (0..inputs)
                .map(|k| (f64::from(a[row * inputs + k]) * f64::from(w[column * inputs + k])).abs())
                .sum::<f64>()
                + f64::from(bias[column].abs());
            let bound = 2.0 * magnitude * f64::from(f32::EPSILON) * (inputs as f64).sqrt();
            assert!(f64::from((e - r).abs()) <= bound, "element {i}: {e} vs {r} (bound {bound})");
        }
    }

    /// A row's outputs do not depend on the rows computed with it, by `arithmetic`.
    fn independent_of_the_batch(arithmetic: Arithmetic) {
        let (inputs, outputs) = (384, 48);
        let a = values(150 * inputs, 5);
        let w = values(outputs * inputs, 6);
        let tiles = TilePacked::new(View::rows(&w, outputs, inputs, inputs), None);
        let mut all = vec![0.0; 150 * outputs];
        tiles.product_by(arithmetic, &a, 150, inputs, &mut all, outputs, |_, _| {});
        for i in [0, 1, 15, 16, 63, 64, 127, 128, 149] {
            let mut one = vec![0.0; outputs];
            tiles.product_by(arithmetic, &a[i * inputs..], 1, inputs, &mut one, outputs, |_, _| {});
            assert_eq!(one, all[i * outputs..(i + 1) * outputs], "row {i}");
        }
    }

    #[test]
    fn an_emulated_rows_result_does_not_depend_on_its_batch() {
        independent_of_the_batch(Arithmetic::Emulated);
    }

    #[test]
    #[cfg_attr(
        not(litnav_amx_cpu),
        ignore = "this CPU has no AMX-BF16: the tile instructions cannot run here (the emulated tests check the rest)"
    )]
    fn a_rows_tile_result_does_not_depend_on_its_batch() {
        tiles_run_here();
        independent_of_the_batch(Arithmetic::Tiles);
    }

    /// The worst errors against f64 of the FMA product and of the tile product by `arithmetic`
    /// on the encoder's largest shape, relative to the sum of the terms' magnitudes.
    fn worst_errors(arithmetic: Arithmetic) -> (f64, f64) {
        let (rows, inputs, outputs) = (40, 1536, 384);
        let a = values(rows * inputs, 8);
        let w = values(outputs * inputs, 9);
        let bias = values(outputs, 10);
        let view = View::rows(&w, outputs, inputs, inputs);
        let (mut fma, mut tiled) = (vec![0.0; rows * outputs], vec![0.0; rows * outputs]);
        Packed::new(view, Some(&bias)).product(&a, rows, inputs, &mut fma, outputs, |_, _| {});
        TilePacked::new(view, Some(&bias)).product_by(arithmetic, &a, rows, inputs, &mut tiled, outputs, |_, _| {});
        let (mut fma_worst, mut tile_worst) = (0.0f64, 0.0f64);
        for i in 0..rows {
            for j in 0..outputs {
                let (value, magnitude) = exact(&a, &w, &bias, inputs, (i, j));
                fma_worst = fma_worst.max((f64::from(fma[i * outputs + j]) - value).abs() / magnitude);
                tile_worst = tile_worst.max((f64::from(tiled[i * outputs + j]) - value).abs() / magnitude);
            }
        }
        (fma_worst, tile_worst)
    }

    #[test]
    fn emulated_tile_products_are_as_close_to_the_exact_value_as_fma_products() {
        let (fma_worst, tile_worst) = worst_errors(Arithmetic::Emulated);
        assert!(tile_worst <= 2.0 * fma_worst, "emulated tiles {tile_worst:e} against FMA {fma_worst:e}");
    }

    #[test]
    #[cfg_attr(
        not(litnav_amx_cpu),
        ignore = "this CPU has no AMX-BF16: the tile instructions cannot run here (the emulated tests check the rest)"
    )]
    fn tile_products_are_as_close_to_the_exact_value_as_fma_products() {
        tiles_run_here();
        let (fma_worst, tile_worst) = worst_errors(Arithmetic::Tiles);
        assert!(tile_worst <= 2.0 * fma_worst, "tiles {tile_worst:e} against FMA {fma_worst:e}");
    }
}

/// Timing probes of the tile product (`cargo bench -p litnav-embed --features probes`): rates
/// printed on standard error, nothing asserted.
#[cfg(feature = "probes")]
pub mod probes {
    use super::*;
    use crate::gemm::Packed;

    /// The rate of one layer's four products in turn over six layers' distinct weights (as the
    /// encoder runs them), one thread.
    pub fn layer_rates() {
        if !available() {
            eprintln!("no AMX tiles here: this tile probe does not run");
            return;
        }
        let rows = 1024;
        let shapes = [(384, 1152), (384, 384), (384, 1536), (1536, 384)];
        let layers: Vec<Vec<TilePacked>> = (0..6)
            .map(|l| {
                shapes
                    .iter()
                    .map(|&(inputs, outputs)| {
                        let w: Vec<f32> = (0..outputs * inputs).map(|i| ((i + l) % 5) as f32 * 0.1).collect();
                        TilePacked::new(View::rows(&w, outputs, inputs, inputs), None)
                    })
                    .collect()
            })
            .collect();
        let a: Vec<f32> = (0..rows * 1536).map(|i| (i % 7) as f32 * 0.1).collect();
        let mut c = vec![0.0; rows * 1536];
        let macs: f64 = shapes.iter().map(|&(i, o)| (rows * i * o) as f64).sum::<f64>() * 6.0;
        for _ in 0..3 {
            let t = std::time::Instant::now();
            for layer in &layers {
                for (product, &(inputs, outputs)) in layer.iter().zip(&shapes) {
                    product.product(&a, rows, inputs, &mut c, outputs, |_, _| {});
                }
            }
            eprintln!("six layers of 1,024 rows: {:.1} GMAC/s", macs / t.elapsed().as_secs_f64() / 1e9);
        }
    }

    /// The products' rates on the encoder's shapes, one thread.
    pub fn tile_rates() {
        if !available() {
            eprintln!("no AMX tiles here: this tile probe does not run");
            return;
        }
        for (rows, inputs, outputs) in
            [(1024, 384, 1536), (1024, 1536, 384), (1024, 384, 64), (4096, 384, 64), (128, 384, 1536), (12, 384, 1536)]
        {
            let a: Vec<f32> = (0..rows * inputs).map(|i| (i % 7) as f32 * 0.1).collect();
            let w: Vec<f32> = (0..outputs * inputs).map(|i| (i % 5) as f32 * 0.1).collect();
            let view = View::rows(&w, outputs, inputs, inputs);
            let tiles = TilePacked::new(view, None);
            let packed = Packed::new(view, None);
            let mut c = vec![0.0; rows * outputs];
            let macs = (rows * inputs * outputs) as f64;
            let time = |f: &mut dyn FnMut()| {
                let mut best = f64::MAX;
                for _ in 0..10 {
                    let t = std::time::Instant::now();
                    f();
                    best = best.min(t.elapsed().as_secs_f64());
                }
                best
            };
            let t_tiles = time(&mut || tiles.product(&a, rows, inputs, &mut c, outputs, |_, _| {}));
            let t_fma = time(&mut || packed.product(&a, rows, inputs, &mut c, outputs, |_, _| {}));
            eprintln!(
                "{rows}x{inputs}x{outputs}: tiles {:.1} GMAC/s, FMA {:.1} GMAC/s",
                macs / t_tiles / 1e9,
                macs / t_fma / 1e9
            );
        }
    }

    /// The kernel alone with its operands in L2, one thread.
    pub fn kernel_rate() {
        if !available() {
            eprintln!("no AMX tiles here: this tile probe does not run");
            return;
        }
        let chunks = 12;
        let (mut inputs, mut weights) = (Lines::default(), Lines::default());
        inputs.zeroed(4 * chunks * PARTS * TILE);
        weights.zeroed(chunks * PARTS * TILE);
        inputs.values_mut().iter_mut().enumerate().for_each(|(i, v)| *v = 0x3f80 + (i % 13) as u16);
        weights.values_mut().iter_mut().enumerate().for_each(|(i, v)| *v = 0x3f80 + (i % 11) as u16);
        let (inputs, weights) = (inputs.values(), weights.values());
        let bias = [0.0f32; PANEL];
        let mut out = GroupOutputs([0.0; GROUP_TILES * TILE_ROWS * PANEL]);
        let calls = 20_000;
        let t = std::time::Instant::now();
        let session = Configured::new();
        for _ in 0..calls {
            let place = Place { out: &mut out.0, stride: PANEL };
            group_kernel(
                &session,
                Operands { inputs, tiles: 4, weights, ahead: weights, chunks, start: Start::Bias(&bias), place },
            );
        }
        let s = t.elapsed().as_secs_f64();
        let tdps = (calls * chunks * 24) as f64;
        eprintln!(
            "{:.2} ns per TDP, {:.1} GMAC/s f32-equivalent",
            s / tdps * 1e9,
            (calls * chunks * 64 * 16 * 32) as f64 / s / 1e9
        );
    }
}
