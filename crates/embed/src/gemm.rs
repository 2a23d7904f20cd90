//! Matrix products against operands packed once on the FMA units, and the FMA peak they are
//! measured against. With `kernels.rs` (instruction-set dispatch), `tiles.rs` (the AMX product)
//! and `mapped.rs` (read-only file maps) the only modules of this crate that use `unsafe`: the
//! AVX2 and AVX-512 micro-kernels, each behind bounds checked in safe code.
//!
//! Every product here is `c = a · wᵀ (+ bias)`, with `w` an `[outputs × inputs]` matrix in
//! PyTorch's layout. `w` is *packed* first ([`Packed`]): cut into panels of 16 outputs, each
//! panel storing its 16 weights of input 0, then of input 1, and so on — the order the
//! micro-kernel reads them in. The encoder packs its weights once at load time, so a forward
//! pass only streams them; attention packs a head's keys and values (a few kilobytes) per
//! sequence.
//!
//! The micro-kernel computes a tile of 6 rows × 16 outputs in twelve 8-lane registers (AVX2) or
//! of 14 rows × two panels (32 outputs) in 28 16-lane registers (AVX-512) with fused
//! multiply-adds. The rows' inputs are packed too, per block of rows and inputs, so that the
//! kernel reads them in one sequential stream. Every output element is the same
//! sequence of operations — the bias, then one fused multiply-add per input in input order —
//! whatever tile, block or batch it falls in, so a text's vector does not depend on what it is
//! batched with. CPUs without AVX2, FMA and F16C run the same loops in portable code (same
//! order, separate multiply and add).
//!
//! Weights may also be kept in half precision ([`Packed::to_half`]): half the bytes to stream,
//! widened to f32 as the kernel loads them, every product still accumulated in f32.
#![allow(unsafe_code)]

use crate::half::{from_half, to_half};
use crate::kernels::{has_avx2_fma, has_avx512, has_f16c};

/// A read-only strided matrix view: element (i, j) is `data[i * row_stride + j * col_stride]`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a> View<'a> {
    /// A row-major matrix with `cols` columns whose rows are `row_stride` apart.
    pub fn rows(data: &'a [f32], rows: usize, cols: usize, row_stride: usize) -> Self {
        View { data, rows, cols, row_stride, col_stride: 1 }
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        View { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride, ..self }
    }

    /// The largest index the view touches, plus one (0 for an empty view).
    fn extent(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        (self.rows - 1) * self.row_stride + (self.cols - 1) * self.col_stride + 1
    }
}

/// Outputs per panel: two 8-lane registers.
const PANEL: usize = 16;
/// Rows per micro-tile at most (the AVX-512 kernel's; the others take fewer, [`Kernel::tile_rows`]):
/// 14 rows × 2 panels of accumulators, 2 registers of weights and one broadcast use 31 of the 32
/// registers. Against 12 rows, 3–5% faster products (each weight loaded is used 14 times).
const MAX_TILE_ROWS: usize = 14;
/// Inputs per block: a pair of panels' block (32 KiB) and a row block's packed inputs (28 KiB)
/// stay close (L1/L2) while the tiles reuse them. Measured against 128 and 384 (BENCHMARKS.md),
/// and against 128 and 192 with the two-panel AVX-512 kernel (no difference).
const DEPTH_BLOCK: usize = 256;
/// Rows per row block (two AVX-512 tiles): its packed inputs stay in the L1 cache across the
/// panels, its outputs in L2 for the block's epilogue (48 was measurably slower with the AVX2
/// kernel; 48, 56 and 96 gave nothing with the AVX-512 one).
const ROW_BLOCK: usize = 28;

/// A weight matrix `[outputs × inputs]` packed in panels of [`PANEL`] outputs, the last padded
/// with zeros, with its bias (zeros when it has none, always f32) padded the same way. The
/// weights are in `data`, or in `half` (binary16 bit patterns) after [`Packed::to_half`].
#[derive(Default)]
pub(crate) struct Packed {
    data: Vec<f32>,
    half: Vec<u16>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Packed {
    /// Pack `w` (`[outputs × inputs]`) and its bias.
    pub fn new(w: View<'_>, bias: Option<&[f32]>) -> Packed {
        let mut packed = Packed::default();
        packed.repack(w, bias);
        packed
    }

    /// Pack `w` into this buffer, reusing its memory.
    pub fn repack(&mut self, w: View<'_>, bias: Option<&[f32]>) {
        assert!(w.extent() <= w.data.len(), "weight view out of bounds");
        let (outputs, inputs) = (w.rows, w.cols);
        let panels = outputs.div_ceil(PANEL);
        // Only a partial last panel needs zeros: every other value is written below.
        self.data.truncate(panels * PANEL * inputs);
        self.data.resize(panels * PANEL * inputs, 0.0);
        for panel in 0..panels {
            let block = &mut self.data[panel * PANEL * inputs..][..PANEL * inputs];
            let first = panel * PANEL;
            let columns = (outputs - first).min(PANEL);
            if columns < PANEL {
                block.fill(0.0);
            }
            if w.col_stride == 1 {
                // Rows of `w` are contiguous (weights, keys): each goes to one lane of the panel.
                for j in 0..columns {
                    let row = &w.data[(first + j) * w.row_stride..][..inputs];
                    for (value, slot) in row.iter().zip(block.iter_mut().skip(j).step_by(PANEL)) {
                        *slot = *value;
                    }
                }
            } else {
                // Columns are contiguous (a transposed matrix, such as a head's values).
                assert_eq!(w.row_stride, 1, "a packed view has contiguous rows or columns");
                for (input, chunk) in block.chunks_exact_mut(PANEL).enumerate() {
                    chunk[..columns].copy_from_slice(&w.data[input * w.col_stride + first..][..columns]);
                }
            }
        }
        pad_bias(bias, outputs, panels * PANEL, &mut self.bias);
        self.half.clear();
        self.inputs = inputs;
        self.outputs = outputs;
    }

    /// The same f32 weights rounded to half precision (nearest, ties to even). A product then
    /// reads half the bytes — what a short product, which reads every weight once for a few rows,
    /// waits for — and computes as if the weights were the rounded values.
    pub fn to_half(&self) -> Packed {
        assert!(self.half.is_empty(), "the weights are in half precision already");
        let half = self.data.iter().map(|&w| to_half(w)).collect();
        Packed { data: Vec::new(), half, bias: self.bias.clone(), inputs: self.inputs, outputs: self.outputs }
    }

    /// Number of inputs (the depth of a product).
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Number of outputs (columns of a product).
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// `c[rows × outputs] = a[rows × inputs] · wᵀ + bias`, `a`'s rows `a_stride` apart and
    /// `c`'s `c_stride` apart. After each block of [`ROW_BLOCK`] rows, `finish` gets the index
    /// of the block's first row and the block's output rows (while they are in cache).
    ///
    /// Panics if a slice is too short for its shape — a programming error in this crate, never
    /// a consequence of user input.
    pub fn product(
        &self,
        a: &[f32],
        rows: usize,
        a_stride: usize,
        c: &mut [f32],
        c_stride: usize,
        finish: impl FnMut(usize, &mut [f32]),
    ) {
        self.product_with(a, rows, a_stride, c, c_stride, Kernel::here(), finish);
    }

    /// [`Packed::product`] on the micro-kernel `kernel` (which the CPU must run: see
    /// [`Kernel::here`]).
    #[allow(clippy::too_many_arguments)]
    fn product_with(
        &self,
        a: &[f32],
        rows: usize,
        a_stride: usize,
        c: &mut [f32],
        c_stride: usize,
        kernel: Kernel,
        mut finish: impl FnMut(usize, &mut [f32]),
    ) {
        let (inputs, outputs) = (self.inputs, self.outputs);
        if rows == 0 || outputs == 0 {
            return;
        }
        assert!(a_stride >= inputs && (rows - 1) * a_stride + inputs <= a.len(), "input view out of bounds");
        assert!(c_stride >= outputs && (rows - 1) * c_stride + outputs <= c.len(), "output view out of bounds");
        let depth_blocks = inputs.div_ceil(DEPTH_BLOCK).max(1);
        let depth = inputs.div_ceil(depth_blocks);
        // Packing the inputs pays when each is read by several panels.
        let pack = outputs >= PACK_INPUTS_FROM;
        let mut packed_inputs = input_buffers::take();
        let most = kernel.tile_rows();
        for first_row in (0..rows).step_by(ROW_BLOCK) {
            let block_rows = (rows - first_row).min(ROW_BLOCK);
            for start in (0..inputs.max(1)).step_by(depth.max(1)) {
                let span = Depth { start, len: depth.min(inputs - start), first: start == 0 };
                if pack {
                    pack_inputs(&a[first_row * a_stride..], a_stride, block_rows, span, most, &mut packed_inputs);
                }
                let panels = outputs.div_ceil(PANEL);
                let mut panel = 0;
                while panel < panels {
                    // The kernel's panels at once where they are all whole, else one.
                    let whole = (outputs - panel * PANEL) / PANEL;
                    let together = if whole >= kernel.panels() { kernel.panels() } else { 1 };
                    for tile in 0..block_rows.div_ceil(most) {
                        let row = first_row + tile * most;
                        let tile_rows = (block_rows - tile * most).min(most);
                        let inputs = if pack {
                            let tile_len = most * span.len;
                            Inputs {
                                data: &packed_inputs[tile * tile_len..][..tile_len],
                                row_step: 1,
                                input_step: most,
                            }
                        } else {
                            Inputs { data: &a[row * a_stride + span.start..], row_step: a_stride, input_step: 1 }
                        };
                        self.tile(inputs, row, c, c_stride, panel..panel + together, tile_rows, span, kernel);
                    }
                    panel += together;
                }
            }
            let end = (first_row + block_rows - 1) * c_stride + outputs;
            finish(first_row, &mut c[first_row * c_stride..end]);
        }
        input_buffers::give_back(packed_inputs);
    }

    /// One tile: `tile_rows` rows from `row` (their inputs of `span` in `inputs`), the outputs of
    /// `panels` (several only when they are all whole).
    #[allow(clippy::too_many_arguments)]
    fn tile(
        &self,
        inputs: Inputs<'_>,
        row: usize,
        c: &mut [f32],
        c_stride: usize,
        panels: std::ops::Range<usize>,
        tile_rows: usize,
        span: Depth,
        kernel: Kernel,
    ) {
        let (panel, count) = (panels.start, panels.len());
        let columns = (self.outputs - panel * PANEL).min(PANEL);
        let bias = span.first.then(|| &self.bias[panel * PANEL..][..count * PANEL]);
        let panel_stride = self.inputs * PANEL;
        let first = (panel * self.inputs + span.start) * PANEL;
        let range = first..first + (count - 1) * panel_stride + span.len * PANEL;
        let weights =
            if self.half.is_empty() { Weights::Single(&self.data[range]) } else { Weights::Half(&self.half[range]) };
        let operands = Operands { inputs, weights, depth: span.len, bias, panels: count, panel_stride };
        if columns == PANEL {
            // A whole panel: the kernel reads and writes the output in place.
            micro_kernel(operands, &mut c[row * c_stride + panel * PANEL..], c_stride, tile_rows, kernel);
            return;
        }
        // The last, partial panel goes through a buffer of whole rows.
        let mut buffer = [0.0f32; PANEL * MAX_TILE_ROWS];
        let place = |r: usize| (row + r) * c_stride + panel * PANEL;
        if !span.first {
            for r in 0..tile_rows {
                buffer[r * PANEL..][..columns].copy_from_slice(&c[place(r)..][..columns]);
            }
        }
        micro_kernel(operands, &mut buffer, PANEL, tile_rows, kernel);
        for r in 0..tile_rows {
            c[place(r)..][..columns].copy_from_slice(&buffer[r * PANEL..][..columns]);
        }
    }
}

/// Set `padded` to `bias` (or zeros where there is none) followed by zeros up to `len` values.
pub(crate) fn pad_bias(bias: Option<&[f32]>, outputs: usize, len: usize, padded: &mut Vec<f32>) {
    padded.clear();
    padded.resize(len, 0.0);
    if let Some(bias) = bias {
        assert_eq!(bias.len(), outputs, "one bias per output");
        padded[..outputs].copy_from_slice(bias);
    }
}

/// Where a tile's inputs are: row `r`'s input `k` is `data[r · row_step + k · input_step]` —
/// packed (`row_step` 1, `input_step` the kernel's tile rows, see [`pack_inputs`]) or in place.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    data: &'a [f32],
    row_step: usize,
    input_step: usize,
}

/// Outputs from which a product packs its inputs (below, each input is read by too few panels
/// to repay the copy: attention's weighted sum of 32 values).
const PACK_INPUTS_FROM: usize = 64;

/// A panel's weights for a block of inputs, `PANEL` per input, as stored.
#[derive(Clone, Copy)]
enum Weights<'a> {
    Single(&'a [f32]),
    /// Binary16 bit patterns.
    Half(&'a [u16]),
}

impl Weights<'_> {
    fn len(&self) -> usize {
        match self {
            Weights::Single(w) => w.len(),
            Weights::Half(w) => w.len(),
        }
    }

    /// The panel's weights of input `k`, as f32.
    fn of_input(&self, k: usize) -> [f32; PANEL] {
        match self {
            Weights::Single(w) => std::array::from_fn(|j| w[k * PANEL + j]),
            Weights::Half(w) => std::array::from_fn(|j| from_half(w[k * PANEL + j])),
        }
    }
}

/// What a micro-kernel multiplies: `depth` inputs of each of its rows, each of its `panels`
/// panels' `depth · PANEL` weights (`panel_stride` values apart in `weights`), and the bias to
/// start from (`None`: continue from the output).
#[derive(Clone, Copy)]
struct Operands<'a> {
    inputs: Inputs<'a>,
    weights: Weights<'a>,
    depth: usize,
    bias: Option<&'a [f32]>,
    panels: usize,
    panel_stride: usize,
}

impl Operands<'_> {
    /// What the SIMD kernels read, as raw parts: the inputs with their row and input steps, and
    /// the weights as f32 or as half-precision bit patterns (the other pointer null).
    fn pointers(&self) -> (*const f32, usize, usize, *const f32, *const u16) {
        let Inputs { data, row_step, input_step } = self.inputs;
        let (single, half) = match self.weights {
            Weights::Single(w) => (w.as_ptr(), std::ptr::null()),
            Weights::Half(w) => (std::ptr::null(), w.as_ptr()),
        };
        (data.as_ptr(), row_step, input_step, single, half)
    }
}

/// The micro-kernels a product can run on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// Plain loops (same order of operations, separate multiply and add).
    Portable,
    /// 6 rows × 16 outputs in twelve 8-lane registers (AVX2, FMA; F16C for half weights).
    Avx2,
    /// 14 rows × 32 outputs in 28 16-lane registers (AVX-512F): the same fused multiply-adds in
    /// the same order as [`Kernel::Avx2`], so the same bits, at twice the width and two panels.
    Avx512,
}

impl Kernel {
    /// The widest kernel this CPU runs.
    pub fn here() -> Kernel {
        if has_avx512() && has_f16c() {
            Kernel::Avx512
        } else if has_avx2_fma() && has_f16c() {
            Kernel::Avx2
        } else {
            Kernel::Portable
        }
    }

    /// Panels a micro-tile spans. The AVX-512 kernel takes two: per input, two weight loads and
    /// 14 broadcasts for 28 multiply-adds. One panel (a load for every multiply-add) held the
    /// products to 40% of the FMA peak on an Ice Lake core; two reach 60–70% (`product_rates`).
    fn panels(self) -> usize {
        match self {
            Kernel::Avx512 => 2,
            Kernel::Portable | Kernel::Avx2 => 1,
        }
    }

    /// Rows per micro-tile.
    fn tile_rows(self) -> usize {
        match self {
            Kernel::Avx512 => MAX_TILE_ROWS,
            Kernel::Portable | Kernel::Avx2 => 6,
        }
    }

    /// The kernels this CPU runs, for tests and probes.
    #[cfg(any(test, feature = "probes"))]
    fn all_here() -> Vec<Kernel> {
        let mut kernels = vec![Kernel::Portable];
        if has_avx2_fma() && has_f16c() {
            kernels.push(Kernel::Avx2);
        }
        if Kernel::here() == Kernel::Avx512 {
            kernels.push(Kernel::Avx512);
        }
        kernels
    }
}

/// One tile of `rows` rows × the operands' panels of [`PANEL`] outputs into `out` (rows
/// `out_stride` apart), on `kernel`.
fn micro_kernel(operands: Operands<'_>, out: &mut [f32], out_stride: usize, rows: usize, kernel: Kernel) {
    let Operands { inputs, weights, depth, bias, panels, panel_stride } = operands;
    assert!((1..=kernel.tile_rows()).contains(&rows), "a tile has 1 to {} rows", kernel.tile_rows());
    assert!((1..=kernel.panels()).contains(&panels), "a tile has 1 to {} panels", kernel.panels());
    let Inputs { data, row_step, input_step } = inputs;
    assert!(depth == 0 || (rows - 1) * row_step + (depth - 1) * input_step < data.len(), "tile inputs out of bounds");
    let weights_end = (panels - 1) * panel_stride + depth * PANEL;
    assert!(panels == 1 || panel_stride >= depth * PANEL, "a tile's panels overlap");
    assert!(
        weights.len() >= weights_end && bias.is_none_or(|b| b.len() >= panels * PANEL),
        "tile weights out of bounds"
    );
    assert!((rows - 1) * out_stride + panels * PANEL <= out.len(), "tile output out of bounds");
    match kernel {
        // SAFETY: the CPU has AVX-512F and F16C (`Kernel::here` chose it), and the asserts above
        // keep every read and write of the kernel inside the slices.
        Kernel::Avx512 => unsafe { tile_avx512(operands, out.as_mut_ptr(), out_stride, rows) },
        // SAFETY: the CPU has AVX2, FMA and F16C (`Kernel::here` chose it), and the asserts above
        // keep every read and write of the kernel inside the slices.
        Kernel::Avx2 => unsafe { tile_avx2(operands, out.as_mut_ptr(), out_stride, rows) },
        Kernel::Portable => {
            for r in 0..rows {
                let lane = &mut out[r * out_stride..][..PANEL];
                if let Some(bias) = bias {
                    lane.copy_from_slice(&bias[..PANEL]);
                }
                for k in 0..depth {
                    let x = data[r * row_step + k * input_step];
                    for (o, w) in lane.iter_mut().zip(weights.of_input(k)) {
                        *o += x * w;
                    }
                }
            }
        }
    }
}

/// Call `$kernel::<R, HALF>` (or `$kernel::<R, P, HALF>` with the operands' number of panels `P`,
/// one of `panels [...]`) with the tile's number of rows `R` (one of `$counts`, else 1) and
/// `HALF` saying whether the weights are half precision: a const number of rows lets the compiler
/// keep the accumulators in registers, a const weight type keeps the load out of the loop's
/// branches.
macro_rules! by_rows_and_weights {
    // A kernel that also takes its number of panels (one of `$panels`) as a constant.
    ($kernel:ident, panels [$($panels:literal),+], $operands:expr, $out:expr, $stride:expr, $rows:expr, $counts:tt) => {
        match $operands.panels {
            $($panels => by_rows_and_weights!(@panels $panels, $kernel, $operands, $out, $stride, $rows, $counts),)+
            panels => unreachable!("no kernel spans {panels} panels"),
        }
    };
    (@panels $panels:literal, $kernel:ident, $operands:expr, $out:expr, $stride:expr, $rows:expr, [$($count:literal),+]) => {
        match ($rows, matches!($operands.weights, Weights::Half(_))) {
            $(
                ($count, false) => $kernel::<$count, $panels, false>($operands, $out, $stride),
                ($count, true) => $kernel::<$count, $panels, true>($operands, $out, $stride),
            )+
            (_, false) => $kernel::<1, $panels, false>($operands, $out, $stride),
            (_, true) => $kernel::<1, $panels, true>($operands, $out, $stride),
        }
    };
    // A kernel of rows and weights only.
    ($kernel:ident, $operands:expr, $out:expr, $stride:expr, $rows:expr, [$($count:literal),+]) => {
        match ($rows, matches!($operands.weights, Weights::Half(_))) {
            $(
                ($count, false) => $kernel::<$count, false>($operands, $out, $stride),
                ($count, true) => $kernel::<$count, true>($operands, $out, $stride),
            )+
            (_, false) => $kernel::<1, false>($operands, $out, $stride),
            (_, true) => $kernel::<1, true>($operands, $out, $stride),
        }
    };
}

/// The AVX2 micro-kernel.
///
/// # Safety
/// The CPU must have AVX2, FMA and F16C, and the extents asserted in [`micro_kernel`] must hold.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn tile_avx2(operands: Operands<'_>, out: *mut f32, out_stride: usize, rows: usize) {
    // SAFETY: forwarded from the caller.
    unsafe { by_rows_and_weights!(tile_rows_avx2, operands, out, out_stride, rows, [6, 5, 4, 3, 2]) }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn tile_avx2(_: Operands<'_>, _: *mut f32, _: usize, _: usize) {
    unreachable!("the AVX2 kernel is only chosen on x86-64")
}

/// The AVX-512 micro-kernel.
///
/// # Safety
/// The CPU must have AVX-512F and F16C, and the extents asserted in [`micro_kernel`] must hold.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,f16c")]
unsafe fn tile_avx512(operands: Operands<'_>, out: *mut f32, out_stride: usize, rows: usize) {
    // SAFETY: forwarded from the caller.
    unsafe {
        by_rows_and_weights!(
            tile_rows_avx512,
            panels [2, 1],
            operands,
            out,
            out_stride,
            rows,
            [14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]
        )
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn tile_avx512(_: Operands<'_>, _: *mut f32, _: usize, _: usize) {
    unreachable!("the AVX-512 kernel is only chosen on x86-64")
}

/// R rows of a tile in one 16-lane register per panel (P panels); `HALF` as in
/// [`tile_rows_avx2`]. Each output is still the bias and then one multiply-add per input in
/// input order, so P changes no bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,f16c")]
#[inline]
unsafe fn tile_rows_avx512<const R: usize, const P: usize, const HALF: bool>(
    operands: Operands<'_>,
    out: *mut f32,
    out_stride: usize,
) {
    use std::arch::x86_64::{
        __m256i, __m512, _mm256_loadu_si256, _mm512_cvtph_ps, _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_set1_ps,
        _mm512_storeu_ps,
    };
    let (a, row_step, input_step, single, half) = operands.pointers();
    // SAFETY (whole body): the caller guarantees AVX-512F/F16C, weights of the type `HALF` says,
    // and the extents of the operands and of `out` (R rows of PANEL values, `out_stride` apart).
    unsafe {
        let stride = operands.panel_stride;
        let start = |r: usize, p: usize| match operands.bias {
            Some(bias) => _mm512_loadu_ps(bias.as_ptr().add(p * PANEL)),
            None => _mm512_loadu_ps(out.add(r * out_stride + p * PANEL)),
        };
        let mut sums: [[__m512; P]; R] = std::array::from_fn(|r| std::array::from_fn(|p| start(r, p)));
        for k in 0..operands.depth {
            let w: [__m512; P] = std::array::from_fn(|p| {
                if HALF {
                    _mm512_cvtph_ps(_mm256_loadu_si256(half.add(p * stride + k * PANEL).cast::<__m256i>()))
                } else {
                    _mm512_loadu_ps(single.add(p * stride + k * PANEL))
                }
            });
            for (r, sum) in sums.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*a.add(r * row_step + k * input_step));
                for (sum, w) in sum.iter_mut().zip(w) {
                    *sum = _mm512_fmadd_ps(x, w, *sum);
                }
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            for (p, sum) in sum.iter().enumerate() {
                _mm512_storeu_ps(out.add(r * out_stride + p * PANEL), *sum);
            }
        }
    }
}

/// R rows of a tile; `HALF` says the weights are [`Weights::Half`] (else [`Weights::Single`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
unsafe fn tile_rows_avx2<const R: usize, const HALF: bool>(operands: Operands<'_>, out: *mut f32, out_stride: usize) {
    use std::arch::x86_64::{
        __m128i, __m256, _mm_loadu_si128, _mm256_broadcast_ss, _mm256_cvtph_ps, _mm256_fmadd_ps, _mm256_loadu_ps,
        _mm256_storeu_ps,
    };
    let (a, row_step, input_step, single, half) = operands.pointers();
    // SAFETY (whole body): the caller guarantees AVX2/FMA/F16C, weights of the type `HALF` says,
    // and the extents of the operands and of `out` (R rows of PANEL values, `out_stride` apart).
    unsafe {
        // A macro, not a closure, so that the loads compile with this function's features.
        macro_rules! weights {
            ($index:expr) => {
                if HALF {
                    _mm256_cvtph_ps(_mm_loadu_si128(half.add($index).cast::<__m128i>()))
                } else {
                    _mm256_loadu_ps(single.add($index))
                }
            };
        }
        let start = |r: usize, half: usize| match operands.bias {
            Some(bias) => _mm256_loadu_ps(bias.as_ptr().add(8 * half)),
            None => _mm256_loadu_ps(out.add(r * out_stride + 8 * half)),
        };
        let mut sums: [[__m256; 2]; R] = std::array::from_fn(|r| [start(r, 0), start(r, 1)]);
        for k in 0..operands.depth {
            let w0 = weights!(k * PANEL);
            let w1 = weights!(k * PANEL + 8);
            for (r, sum) in sums.iter_mut().enumerate() {
                let x = _mm256_broadcast_ss(&*a.add(r * row_step + k * input_step));
                sum[0] = _mm256_fmadd_ps(x, w0, sum[0]);
                sum[1] = _mm256_fmadd_ps(x, w1, sum[1]);
            }
        }
        for (r, sum) in sums.iter().enumerate() {
            _mm256_storeu_ps(out.add(r * out_stride), sum[0]);
            _mm256_storeu_ps(out.add(r * out_stride + 8), sum[1]);
        }
    }
}

/// Copy the inputs of `span` of `rows` rows (`stride` apart) into `out` as tiles: for each tile of
/// `tile_rows` rows, input 0 of each row, then input 1, … — so that the micro-kernel reads its
/// inputs in one sequential stream. A last tile's missing rows are zeros (never stored).
fn pack_inputs(a: &[f32], stride: usize, rows: usize, span: Depth, tile_rows: usize, out: &mut Vec<f32>) {
    let tile_len = tile_rows * span.len;
    out.truncate(rows.div_ceil(tile_rows) * tile_len);
    out.resize(rows.div_ceil(tile_rows) * tile_len, 0.0);
    for (tile, packed) in out.chunks_exact_mut(tile_len.max(1)).enumerate() {
        let first = tile * tile_rows;
        let count = (rows - first).min(tile_rows);
        let mut sources: [&[f32]; MAX_TILE_ROWS] = [&[]; MAX_TILE_ROWS];
        for (r, source) in sources.iter_mut().enumerate().take(count) {
            *source = &a[(first + r) * stride + span.start..][..span.len];
        }
        for (k, slot) in packed.chunks_exact_mut(tile_rows).enumerate() {
            for (r, value) in slot.iter_mut().enumerate() {
                *value = sources[r].get(k).copied().unwrap_or(0.0);
            }
        }
    }
}

per_thread_buffers!(
    /// Packed inputs.
    input_buffers: Vec<f32>
);

/// A block of inputs: where it starts, how many, and whether it is the first (the tile starts
/// from the bias) or a later one (the tile continues from the output).
#[derive(Clone, Copy)]
struct Depth {
    start: usize,
    len: usize,
    first: bool,
}

/// The arithmetic the widest FMA units here can do, in floating-point operations per second per
/// core: fused multiply-adds on independent registers (16 lanes with AVX-512, else 8 with AVX2)
/// for about `seconds`, so that a benchmark can say which fraction of that peak the encoder
/// reaches. `None` without AVX2 and FMA.
pub fn fma_peak_per_core(seconds: f64) -> Option<f64> {
    if !has_avx2_fma() {
        return None;
    }
    let wide = has_avx512();
    let started = std::time::Instant::now();
    let mut rounds = 0u64;
    let mut sink = 0.0f32;
    while started.elapsed().as_secs_f64() < seconds {
        // SAFETY: the CPU has AVX2 and FMA (checked above), and AVX-512F where `wide`.
        sink += unsafe { if wide { fma_chains_512(PEAK_ROUND) } else { fma_chains(PEAK_ROUND) } };
        rounds += 1;
    }
    std::hint::black_box(sink);
    let lanes = if wide { 16.0 } else { 8.0 };
    let operations = rounds as f64 * PEAK_ROUND as f64 * PEAK_CHAINS as f64 * lanes * 2.0;
    Some(operations / started.elapsed().as_secs_f64())
}

/// Independent accumulators: more than the FMA latency × pipes (4 × 2 on recent cores).
const PEAK_CHAINS: usize = 12;
const PEAK_ROUND: usize = 1 << 16;

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_chains(steps: usize) -> f32 {
    use std::arch::x86_64::{_mm256_add_ps, _mm256_cvtss_f32, _mm256_fmadd_ps, _mm256_set1_ps};
    // Opaque operands, so the compiler cannot fold the chains.
    let x = _mm256_set1_ps(std::hint::black_box(0.999_999));
    let y = _mm256_set1_ps(std::hint::black_box(1e-7));
    let mut sums = [_mm256_set1_ps(std::hint::black_box(1.0)); PEAK_CHAINS];
    for _ in 0..steps {
        for sum in &mut sums {
            *sum = _mm256_fmadd_ps(*sum, x, y);
        }
    }
    let total = sums.iter().fold(_mm256_set1_ps(0.0), |a, b| _mm256_add_ps(a, *b));
    _mm256_cvtss_f32(total)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn fma_chains_512(steps: usize) -> f32 {
    use std::arch::x86_64::{_mm512_add_ps, _mm512_fmadd_ps, _mm512_reduce_add_ps, _mm512_set1_ps};
    let x = _mm512_set1_ps(std::hint::black_box(0.999_999));
    let y = _mm512_set1_ps(std::hint::black_box(1e-7));
    let mut sums = [_mm512_set1_ps(std::hint::black_box(1.0)); PEAK_CHAINS];
    for _ in 0..steps {
        for sum in &mut sums {
            *sum = _mm512_fmadd_ps(*sum, x, y);
        }
    }
    _mm512_reduce_add_ps(sums.iter().fold(_mm512_set1_ps(0.0), |a, b| _mm512_add_ps(a, *b)))
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn fma_chains(_steps: usize) -> f32 {
    0.0
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn fma_chains_512(_steps: usize) -> f32 {
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a · wᵀ + bias` by the definition in f64, with the sum of the terms' magnitudes (what
    /// bounds an f32 sum's rounding error).
    fn naive(a: &[f32], rows: usize, inputs: usize, w: &[f32], outputs: usize, bias: &[f32]) -> Vec<(f64, f64)> {
        let mut c = vec![(0.0, 0.0); rows * outputs];
        for i in 0..rows {
            for j in 0..outputs {
                let terms = (0..inputs).map(|k| f64::from(a[i * inputs + k]) * f64::from(w[j * inputs + k]));
                let value = f64::from(bias[j]) + terms.clone().sum::<f64>();
                let magnitude = f64::from(bias[j]).abs() + terms.map(f64::abs).sum::<f64>();
                c[i * outputs + j] = (value, magnitude);
            }
        }
        c
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    #[test]
    fn packed_product_matches_the_definition_for_every_edge_shape() {
        // Rows and outputs that are not multiples of the tile, inputs over two depth blocks,
        // inputs read in place (few outputs) and packed.
        for (rows, inputs, outputs) in
            [(1, 3, 1), (7, 300, 21), (53, 520, 40), (6, 16, 16), (13, 1, 17), (31, 300, 70), (50, 600, 129)]
        {
            let a = values(rows * inputs, 1);
            let w = values(outputs * inputs, 2);
            let bias = values(outputs, 3);
            let packed = Packed::new(View::rows(&w, outputs, inputs, inputs), Some(&bias));
            let expected = naive(&a, rows, inputs, &w, outputs, &bias);
            for kernel in Kernel::all_here() {
                let mut c = vec![f32::NAN; rows * (outputs + 2)];
                let mut blocks = Vec::new();
                packed.product_with(&a, rows, inputs, &mut c, outputs + 2, kernel, |first, block| {
                    blocks.push((first, block.len()))
                });
                for i in 0..rows {
                    for j in 0..outputs {
                        let got = f64::from(c[i * (outputs + 2) + j]);
                        let (value, magnitude) = expected[i * outputs + j];
                        let bound = magnitude * f64::from(f32::EPSILON) * inputs as f64;
                        assert!((got - value).abs() <= bound, "{rows}x{inputs}x{outputs} ({i},{j}): {got} vs {value}");
                    }
                    assert!(c[i * (outputs + 2) + outputs].is_nan(), "a column past the outputs was written");
                }
                assert_eq!(blocks.first().map(|b| b.0), Some(0));
                assert_eq!(blocks.len(), rows.div_ceil(ROW_BLOCK));
            }
        }
    }

    #[test]
    fn every_kernel_computes_the_same_bits() {
        // The same fused multiply-adds in the same order, whatever the width: vectors do not
        // depend on which CPU computed them (the portable kernel rounds the product separately).
        let (rows, inputs, outputs) = (29, 300, 70);
        let a = values(rows * inputs, 21);
        let w = values(outputs * inputs, 22);
        let packed = Packed::new(View::rows(&w, outputs, inputs, inputs), Some(&values(outputs, 23)));
        let fused: Vec<Kernel> = Kernel::all_here().into_iter().filter(|k| *k != Kernel::Portable).collect();
        let results: Vec<Vec<f32>> = fused
            .iter()
            .map(|&kernel| {
                let mut c = vec![0.0; rows * outputs];
                packed.product_with(&a, rows, inputs, &mut c, outputs, kernel, |_, _| {});
                c
            })
            .collect();
        for (kernel, result) in fused.iter().zip(&results).skip(1) {
            assert_eq!(result, &results[0], "{kernel:?} against {:?}", fused[0]);
        }
    }

    #[test]
    fn a_rows_result_does_not_depend_on_its_batch() {
        let (inputs, outputs) = (384, 48);
        let a = values(11 * inputs, 5);
        let w = values(outputs * inputs, 6);
        let packed = Packed::new(View::rows(&w, outputs, inputs, inputs), None);
        let mut all = vec![0.0; 11 * outputs];
        packed.product(&a, 11, inputs, &mut all, outputs, |_, _| {});
        for i in 0..11 {
            let mut one = vec![0.0; outputs];
            packed.product(&a[i * inputs..], 1, inputs, &mut one, outputs, |_, _| {});
            assert_eq!(one, all[i * outputs..(i + 1) * outputs], "row {i}");
        }
    }

    #[test]
    fn half_weights_multiply_as_their_rounded_values() {
        // The half-precision product is the single-precision product of the rounded weights, bit
        // for bit, on either kernel.
        let (rows, inputs, outputs) = (9, 300, 37);
        let a = values(rows * inputs, 11);
        let w: Vec<f32> = values(outputs * inputs, 12).iter().map(|x| x * 0.3173).collect();
        let rounded: Vec<f32> = w.iter().map(|&x| from_half(to_half(x))).collect();
        assert_ne!(w, rounded, "the test needs weights that half precision changes");
        let bias = values(outputs, 13);
        let half = Packed::new(View::rows(&w, outputs, inputs, inputs), Some(&bias)).to_half();
        let single = Packed::new(View::rows(&rounded, outputs, inputs, inputs), Some(&bias));
        for kernel in Kernel::all_here() {
            let product = |packed: &Packed| {
                let mut c = vec![0.0; rows * outputs];
                packed.product_with(&a, rows, inputs, &mut c, outputs, kernel, |_, _| {});
                c
            };
            assert_eq!(product(&half), product(&single), "{kernel:?}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn software_half_conversions_equal_the_f16c_instructions() {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm256_loadu_ps,
            _mm256_storeu_ps,
        };
        if !has_f16c() {
            return;
        }
        #[target_feature(enable = "avx,f16c")]
        fn widen(h: [u16; 8]) -> [f32; 8] {
            let mut out = [0.0f32; 8];
            // SAFETY: the CPU has F16C (checked above); both arrays hold 8 lanes.
            unsafe {
                _mm256_storeu_ps(out.as_mut_ptr(), _mm256_cvtph_ps(_mm_loadu_si128(h.as_ptr().cast::<__m128i>())))
            };
            out
        }
        #[target_feature(enable = "avx,f16c")]
        fn narrow(x: [f32; 8]) -> [u16; 8] {
            let mut out = [0u16; 8];
            // SAFETY: as above; rounding mode 0 is to nearest, ties to even.
            unsafe {
                _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), _mm256_cvtps_ph::<0>(_mm256_loadu_ps(x.as_ptr())))
            };
            out
        }
        for first in (0..=u16::MAX).step_by(8) {
            let h: [u16; 8] = std::array::from_fn(|i| first + i as u16);
            // SAFETY: the CPU has F16C.
            let hardware = unsafe { widen(h) };
            for (bits, value) in h.iter().zip(hardware) {
                assert_eq!(from_half(*bits).to_bits(), value.to_bits(), "{bits:#06x}");
            }
        }
        // Every exponent and sign with the low mantissa bits at and around a normal half's
        // rounding boundary (ties with an even and an odd result), then pseudo-random patterns
        // over the subnormal halves' range, where the boundary moves.
        let lows = [0x1000, 0x3000, 0x0fff, 0x1001, 0x0000, 0x1fff, 0x2fff, 0x2001];
        let normal = (0..1u32 << 12).map(|high| lows.map(|low| (high << 20) | low));
        let mut state = 0x2545_f491u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        // Exponents 100..=113 (2⁻²⁷ to 2⁻¹⁴), any mantissa, either sign.
        let subnormal = (0..1 << 14).map(|_| {
            std::array::from_fn(|_| {
                let r = next();
                (r & 0x8000_0000) | ((100 + (r >> 23) % 14) << 23) | (next() & 0x7f_ffff)
            })
        });
        let mut checked = 0;
        for patterns in normal.chain(subnormal) {
            let x = patterns.map(f32::from_bits);
            // SAFETY: the CPU has F16C.
            let hardware = unsafe { narrow(x) };
            for (value, bits) in x.iter().zip(hardware) {
                if !value.is_nan() {
                    assert_eq!(to_half(*value), bits, "{:#010x}", value.to_bits());
                    checked += 1;
                }
            }
        }
        assert!(checked > 150_000, "{checked}");
    }

    #[test]
    fn the_fma_peak_is_a_plausible_rate() {
        if let Some(peak) = fma_peak_per_core(0.05) {
            // Between 1 GFLOP/s and 64 FLOP a cycle at 6 GHz.
            eprintln!("FMA peak of one core: {:.1} GFLOP/s", peak / 1e9);
            assert!((1e9..4e11).contains(&peak), "{peak:e}");
        }
    }

    #[test]
    fn transposed_views_pack_as_their_elements() {
        // w = vᵀ: packing a transposed view equals packing the transposed copy.
        let v = values(5 * 3, 9);
        let copy: Vec<f32> = (0..3).flat_map(|j| (0..5).map(move |i| (i, j))).map(|(i, j)| v[i * 3 + j]).collect();
        let a = Packed::new(View::rows(&v, 5, 3, 3).t(), None);
        let b = Packed::new(View::rows(&copy, 3, 5, 5), None);
        assert_eq!(a.data, b.data);
    }
}

/// Timing probes of the FMA product (`cargo bench -p litnav-embed --features probes`): rates
/// printed on standard error, nothing asserted.
#[cfg(feature = "probes")]
pub mod probes {
    use super::*;

    fn probe_values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    /// The FMA product's rate with every kernel this CPU runs, on the encoder's shapes, one thread.
    pub fn product_rates() {
        let peak = fma_peak_per_core(0.2).unwrap_or(f64::NAN);
        eprintln!("FMA peak of one core: {:.1} GMAC/s", peak / 2e9);
        for (rows, inputs, outputs) in
            [(1024, 384, 1536), (1024, 1536, 384), (1024, 384, 1152), (24, 384, 1536), (12, 384, 1536)]
        {
            let a = probe_values(rows * inputs, 1);
            let w = probe_values(outputs * inputs, 2);
            let packed = Packed::new(View::rows(&w, outputs, inputs, inputs), None);
            let mut c = vec![0.0; rows * outputs];
            let repeats = (50_000_000 / (rows * inputs * outputs)).max(1);
            let rates: Vec<String> = Kernel::all_here()
                .into_iter()
                .filter(|kernel| *kernel != Kernel::Portable)
                .map(|kernel| {
                    let mut best = f64::MAX;
                    for _ in 0..10 {
                        let t = std::time::Instant::now();
                        for _ in 0..repeats {
                            packed.product_with(&a, rows, inputs, &mut c, outputs, kernel, |_, _| {});
                        }
                        best = best.min(t.elapsed().as_secs_f64() / repeats as f64);
                    }
                    format!("{kernel:?} {:.1}", (rows * inputs * outputs) as f64 / best / 1e9)
                })
                .collect();
            eprintln!("{rows}x{inputs}x{outputs} GMAC/s: {}", rates.join(", "));
        }
    }
}
