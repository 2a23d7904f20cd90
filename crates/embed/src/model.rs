//! The BERT encoder forward pass (all-MiniLM-L6-v2: 6 layers, hidden 384, 12 heads,
//! intermediate 1536, GELU, layer-norm ε = 1e-12), on *packed* batches.
//!
//! Packing: the token rows of all sequences in a batch are stacked into one matrix with no
//! padding. Every step but attention works row by row (embeddings, linear layers, GELU, layer
//! norm), so it runs as one large matrix product over all tokens of the batch; attention runs per
//! sequence on that sequence's rows. This computes exactly what a padded, masked batch computes
//! for the real tokens — without spending anything on padding.

use crate::gemm::{Packed, View};
use crate::kernels;
use crate::safetensors::Tensor;
use crate::tiles::{self, TilePacked};
use crate::{Error, Precision, Result};
use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

/// Model dimensions read from the weights.
#[derive(Debug, Clone, Copy)]
pub struct Dims {
    /// Hidden size (384).
    pub hidden: usize,
    /// Attention heads (12).
    pub heads: usize,
    /// Feed-forward size (1536).
    pub intermediate: usize,
    /// Longest position the position embeddings cover (512).
    pub max_positions: usize,
}

/// A linear layer `y = x · Wᵀ + b`, its weights packed once at load time for one product: split
/// for the tile product where the CPU has AMX (which then computes every f32 product of the
/// layer, so that a text's vector is the same whatever it is batched with), else for the FMA
/// product (AVX-512 or AVX2). Attention's products, per sequence, stay on the FMA product: its
/// keys and values would be split per head, which costs more than the tiles save on products of
/// 32 inputs (measured).
enum Linear {
    Fma(Packed),
    Tiles(TilePacked),
}

impl Linear {
    fn new(weight: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Linear {
        let view = View::rows(weight, outputs, inputs, inputs);
        if tiles::available() {
            Linear::Tiles(TilePacked::new(view, Some(bias)))
        } else {
            Linear::Fma(Packed::new(view, Some(bias)))
        }
    }

    /// The layer with its weights in half precision (always the FMA product, which widens them).
    /// Split weights are first put back together ([`TilePacked::unpacked`]: every normal weight
    /// bit for bit).
    fn to_half(&self) -> Linear {
        Linear::Fma(match self {
            Linear::Fma(packed) => packed.to_half(),
            Linear::Tiles(tiles) => {
                let (weights, bias) = tiles.unpacked();
                let (inputs, outputs) = (tiles.inputs(), tiles.outputs());
                Packed::new(View::rows(&weights, outputs, inputs, inputs), Some(bias)).to_half()
            }
        })
    }

    /// `out[rows × outputs] = input[rows × inputs] · Wᵀ + b`; `finish` gets each block of output
    /// rows while it is in cache (see [`Packed::product`]).
    fn apply(&self, input: &[f32], rows: usize, out: &mut Vec<f32>, finish: impl FnMut(usize, &mut [f32])) {
        let (inputs, outputs) = match self {
            Linear::Fma(packed) => (packed.inputs(), packed.outputs()),
            Linear::Tiles(tiles) => (tiles.inputs(), tiles.outputs()),
        };
        // Every element is written by the product: only grow the buffer, never clear it.
        out.truncate(rows * outputs);
        out.resize(rows * outputs, 0.0);
        match self {
            Linear::Fma(packed) => packed.product(input, rows, inputs, out, outputs, finish),
            Linear::Tiles(tiles) => tiles.product(input, rows, inputs, out, outputs, finish),
        }
    }
}

#[derive(Clone)]
struct LayerNorm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

const LAYER_NORM_EPS: f32 = 1e-12;

/// Sequences up to this many tokens get loop-based attention instead of two matrix products per
/// head (measured: labels of ~8 tokens encode 1.45× → see BENCHMARKS.md).
const DIRECT_ATTENTION_MAX_LEN: usize = 32;

impl LayerNorm {
    /// Normalize every row of `x` in place.
    fn apply(&self, x: &mut [f32]) {
        kernels::layer_norm(x, &self.gamma, &self.beta, LAYER_NORM_EPS);
    }
}

struct Layer {
    /// Query, key and value projections stacked: `[3·hidden × hidden]`.
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

impl Layer {
    /// The layer with the weights of its matrix products in half precision (the layer norms,
    /// a few hundred values, stay as they are).
    fn to_half(&self) -> Layer {
        Layer {
            qkv: self.qkv.to_half(),
            attention_out: self.attention_out.to_half(),
            attention_norm: self.attention_norm.clone(),
            intermediate: self.intermediate.to_half(),
            output: self.output.to_half(),
            output_norm: self.output_norm.clone(),
        }
    }
}

/// Tensors by name, taken out one at a time with their shapes checked.
struct Weights<'a> {
    tensors: HashMap<String, Tensor>,
    path: &'a Path,
}

impl Weights<'_> {
    fn key(&self, name: &str) -> String {
        let prefixed = format!("bert.{name}");
        if self.tensors.contains_key(&prefixed) { prefixed } else { name.to_string() }
    }

    /// Number of values of a tensor (0 if absent).
    fn len(&self, name: &str) -> usize {
        self.tensors.get(&self.key(name)).map_or(0, |t| t.data.len())
    }

    /// Remove a tensor, checking its shape unless `shape` is empty.
    fn take(&mut self, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
        let key = self.key(name);
        let tensor = self
            .tensors
            .remove(&key)
            .ok_or_else(|| Error::model(self.path, format!("the weights have no tensor `{name}`")))?;
        if tensor.dtype != "F32" {
            return Err(Error::model(
                self.path,
                format!("tensor `{name}` has dtype {}; litnav reads F32 weights", tensor.dtype),
            ));
        }
        if !shape.is_empty() && tensor.shape != shape {
            return Err(Error::model(
                self.path,
                format!("tensor `{name}` has shape {:?}, expected {shape:?}", tensor.shape),
            ));
        }
        Ok(tensor.data)
    }

    fn linear(&mut self, name: &str, inputs: usize, outputs: usize) -> Result<Linear> {
        let weight = self.take(&format!("{name}.weight"), &[outputs, inputs])?;
        let bias = self.take(&format!("{name}.bias"), &[outputs])?;
        Ok(Linear::new(&weight, &bias, inputs, outputs))
    }

    /// The query, key and value projections of a layer as one `[3·hidden × hidden]` layer.
    fn qkv(&mut self, prefix: &str, hidden: usize) -> Result<Linear> {
        let mut weight = Vec::with_capacity(3 * hidden * hidden);
        let mut bias = Vec::with_capacity(3 * hidden);
        for part in ["query", "key", "value"] {
            weight.extend(self.take(&format!("{prefix}.attention.self.{part}.weight"), &[hidden, hidden])?);
            bias.extend(self.take(&format!("{prefix}.attention.self.{part}.bias"), &[hidden])?);
        }
        Ok(Linear::new(&weight, &bias, hidden, 3 * hidden))
    }

    fn norm(&mut self, name: &str, width: usize) -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: self.take(&format!("{name}.weight"), &[width])?,
            beta: self.take(&format!("{name}.bias"), &[width])?,
        })
    }

    fn layer(&mut self, prefix: &str, hidden: usize, intermediate: usize) -> Result<Layer> {
        Ok(Layer {
            qkv: self.qkv(prefix, hidden)?,
            attention_out: self.linear(&format!("{prefix}.attention.output.dense"), hidden, hidden)?,
            attention_norm: self.norm(&format!("{prefix}.attention.output.LayerNorm"), hidden)?,
            intermediate: self.linear(&format!("{prefix}.intermediate.dense"), hidden, intermediate)?,
            output: self.linear(&format!("{prefix}.output.dense"), intermediate, hidden)?,
            output_norm: self.norm(&format!("{prefix}.output.LayerNorm"), hidden)?,
        })
    }
}

/// Reusable buffers for one thread's forward passes (fresh allocations per batch cost page faults).
#[derive(Default)]
pub struct Scratch {
    hidden: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    intermediate: Vec<f32>,
    scores: Vec<f32>,
    keys: Packed,
    values: Packed,
}

/// The encoder's weights.
pub struct Bert {
    dims: Dims,
    word_embeddings: Vec<f32>,
    position_embeddings: Vec<f32>,
    token_type_embedding: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
    /// The layers in half precision, made on first use ([`Precision::Half`]).
    half_layers: OnceLock<Vec<Layer>>,
    vocab_size: usize,
}

impl Bert {
    /// Build the model from safetensors tensors named as sentence-transformers saves them (no
    /// `bert.` prefix; a `bert.` prefix is accepted too).
    pub fn from_tensors(tensors: HashMap<String, Tensor>, heads: usize, path: &Path) -> Result<Bert> {
        let mut w = Weights { tensors, path };
        let word_embeddings = w.take("embeddings.word_embeddings.weight", &[])?;
        let position_embeddings = w.take("embeddings.position_embeddings.weight", &[])?;
        let norm_gamma = w.take("embeddings.LayerNorm.weight", &[])?;
        let hidden = norm_gamma.len();
        if hidden == 0 || hidden % heads != 0 || word_embeddings.len() % hidden != 0 {
            return Err(Error::model(path, format!("hidden size {hidden} does not fit {heads} heads")));
        }
        let token_types = w.take("embeddings.token_type_embeddings.weight", &[])?;
        let embedding_norm = LayerNorm { gamma: norm_gamma, beta: w.take("embeddings.LayerNorm.bias", &[hidden])? };
        let intermediate = w.len("encoder.layer.0.intermediate.dense.bias");
        let mut layers = Vec::new();
        while w.len(&format!("encoder.layer.{}.attention.self.query.bias", layers.len())) > 0 {
            layers.push(w.layer(&format!("encoder.layer.{}", layers.len()), hidden, intermediate)?);
        }
        if layers.is_empty() || intermediate == 0 {
            return Err(Error::model(path, "the weights have no encoder layers".into()));
        }
        Ok(Bert {
            dims: Dims { hidden, heads, intermediate, max_positions: position_embeddings.len() / hidden },
            vocab_size: word_embeddings.len() / hidden,
            word_embeddings,
            position_embeddings,
            token_type_embedding: token_types[..hidden].to_vec(),
            embedding_norm,
            layers,
            half_layers: OnceLock::new(),
        })
    }

    /// The model's dimensions.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Floating-point operations of one forward pass over a sequence of `len` tokens: the
    /// layers' matrix products and attention's two, two per multiply-add (the element-wise steps
    /// are not counted, as a BLAS benchmark would not count them).
    pub fn flops(&self, len: usize) -> f64 {
        let (t, h, i) = (len as f64, self.dims.hidden as f64, self.dims.intermediate as f64);
        self.layers.len() as f64 * (2.0 * t * (4.0 * h * h + 2.0 * h * i) + 4.0 * t * t * h)
    }

    /// The layers whose matrix products have weights in `precision`.
    fn layers(&self, precision: Precision) -> &[Layer] {
        match precision {
            Precision::Single => &self.layers,
            Precision::Half => self.half_layers.get_or_init(|| self.layers.iter().map(Layer::to_half).collect()),
        }
    }

    /// Mean-pooled, L2-normalized sentence vectors of a packed batch of token sequences, the
    /// layers' weights in `precision`. Sequences must be non-empty and at most `max_positions`
    /// long.
    pub fn embed_batch(&self, sequences: &[&[u32]], precision: Precision, scratch: &mut Scratch) -> Vec<Vec<f32>> {
        let h = self.dims.hidden;
        let total: usize = sequences.iter().map(|s| s.len()).sum();
        self.embed_tokens(sequences, &mut scratch.hidden);
        for layer in self.layers(precision) {
            self.layer_forward(layer, sequences, total, scratch);
        }
        let mut vectors = Vec::with_capacity(sequences.len());
        let mut offset = 0;
        for sequence in sequences {
            let rows = &scratch.hidden[offset * h..(offset + sequence.len()) * h];
            let mut pooled = vec![0.0f32; h];
            for row in rows.chunks_exact(h) {
                for (p, v) in pooled.iter_mut().zip(row) {
                    *p += v;
                }
            }
            let count = (sequence.len() as f32).max(1e-9);
            pooled.iter_mut().for_each(|p| *p /= count);
            let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            pooled.iter_mut().for_each(|p| *p /= norm);
            vectors.push(pooled);
            offset += sequence.len();
        }
        vectors
    }

    fn embed_tokens(&self, sequences: &[&[u32]], out: &mut Vec<f32>) {
        let h = self.dims.hidden;
        out.clear();
        for sequence in sequences {
            for (position, &id) in sequence.iter().enumerate() {
                let id = (id as usize).min(self.vocab_size - 1);
                let position = position.min(self.dims.max_positions - 1);
                let word = &self.word_embeddings[id * h..(id + 1) * h];
                let pos = &self.position_embeddings[position * h..(position + 1) * h];
                out.extend(word.iter().zip(pos).zip(&self.token_type_embedding).map(|((w, p), t)| w + p + t));
            }
        }
        self.embedding_norm.apply(out);
    }

    fn layer_forward(&self, layer: &Layer, sequences: &[&[u32]], total: usize, s: &mut Scratch) {
        let h = self.dims.hidden;
        layer.qkv.apply(&s.hidden, total, &mut s.qkv, |_, _| {});
        s.context.truncate(total * h);
        s.context.resize(total * h, 0.0);
        let mut offset = 0;
        for sequence in sequences {
            self.attention(offset, sequence.len(), s);
            offset += sequence.len();
        }
        // The residual and the layer norm run on each block of rows as the product finishes it.
        let Scratch { hidden, context, projected, intermediate, .. } = s;
        layer.attention_out.apply(context, total, projected, |first, rows| {
            add_in_place(rows, &hidden[first * h..]);
            layer.attention_norm.apply(rows);
        });
        std::mem::swap(hidden, projected);

        layer.intermediate.apply(hidden, total, intermediate, |_, rows| kernels::gelu(rows));
        layer.output.apply(intermediate, total, projected, |first, rows| {
            add_in_place(rows, &hidden[first * h..]);
            layer.output_norm.apply(rows);
        });
        std::mem::swap(hidden, projected);
    }

    /// Multi-head self-attention of one sequence occupying rows `offset..offset + len` of
    /// `s.qkv`, into the same rows of `s.context`.
    ///
    /// Long sequences run per head as two packed products, fused by row blocks: a block of
    /// queries' scores against every key, their softmax and their weighted sum of the values are
    /// computed while the block is in cache, instead of in three passes over the whole score matrix.
    fn attention(&self, offset: usize, len: usize, s: &mut Scratch) {
        let h = self.dims.hidden;
        let head_dim = h / self.dims.heads;
        let scale = 1.0 / (head_dim as f32).sqrt();
        let rows = &s.qkv[offset * 3 * h..(offset + len) * 3 * h];
        if len <= DIRECT_ATTENTION_MAX_LEN {
            kernels::attention_direct(rows, len, h, self.dims.heads, &mut s.context[offset * h..], h);
            return;
        }
        s.scores.truncate(len * len);
        s.scores.resize(len * len, 0.0);
        for head in 0..self.dims.heads {
            let column = |part: usize| &rows[part * h + head * head_dim..];
            // Keys as weights (`[len × head_dim]`), values transposed (`[head_dim × len]`).
            s.keys.repack(View::rows(column(1), len, head_dim, 3 * h), None);
            s.values.repack(View::rows(column(2), len, head_dim, 3 * h).t(), None);
            let context = &mut s.context[offset * h + head * head_dim..];
            let values = &s.values;
            s.keys.product(column(0), len, 3 * h, &mut s.scores, len, |first, block| {
                kernels::softmax_rows(block, len, scale);
                values.product(block, block.len() / len, len, &mut context[first * h..], h, |_, _| {});
            });
        }
    }
}

fn add_in_place(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}
