//! The BERT encoder forward pass (all-MiniLM-L6-v2: 6 layers, hidden 384, 12 heads,
//! intermediate 1536, GELU, layer-norm ε = 1e-12), on *packed* batches.
//!
//! Packing: the token rows of all sequences in a batch are stacked into one matrix with no
//! padding. Every step but attention works row by row (embeddings, linear layers, GELU, layer
//! norm), so it runs as one large matrix product over all tokens of the batch; attention runs per
//! sequence on that sequence's rows. This computes exactly what a padded, masked batch computes
//! for the real tokens — without spending anything on padding.

use crate::gemm::{View, gemm};
use crate::kernels;
use crate::safetensors::Tensor;
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

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

struct Linear {
    /// `[out × in]`, row-major, as stored (PyTorch `nn.Linear`).
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

impl Linear {
    /// `out[rows × outputs] = input[rows × inputs] · weightᵀ + bias`.
    fn apply(&self, input: &[f32], rows: usize, out: &mut Vec<f32>) {
        out.clear();
        for _ in 0..rows {
            out.extend_from_slice(&self.bias);
        }
        let a = View::rows(input, rows, self.inputs, self.inputs);
        let b = View::rows(&self.weight, self.outputs, self.inputs, self.inputs).t();
        gemm(1.0, a, b, 1.0, out, self.outputs);
    }
}

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
        Ok(Linear {
            weight: self.take(&format!("{name}.weight"), &[outputs, inputs])?,
            bias: self.take(&format!("{name}.bias"), &[outputs])?,
            inputs,
            outputs,
        })
    }

    fn norm(&mut self, name: &str, width: usize) -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: self.take(&format!("{name}.weight"), &[width])?,
            beta: self.take(&format!("{name}.bias"), &[width])?,
        })
    }

    fn layer(&mut self, prefix: &str, hidden: usize, intermediate: usize) -> Result<Layer> {
        let q = self.linear(&format!("{prefix}.attention.self.query"), hidden, hidden)?;
        let k = self.linear(&format!("{prefix}.attention.self.key"), hidden, hidden)?;
        let v = self.linear(&format!("{prefix}.attention.self.value"), hidden, hidden)?;
        Ok(Layer {
            qkv: Linear {
                weight: [q.weight, k.weight, v.weight].concat(),
                bias: [q.bias, k.bias, v.bias].concat(),
                inputs: hidden,
                outputs: 3 * hidden,
            },
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
}

/// The encoder's weights.
pub struct Bert {
    dims: Dims,
    word_embeddings: Vec<f32>,
    position_embeddings: Vec<f32>,
    token_type_embedding: Vec<f32>,
    embedding_norm: LayerNorm,
    layers: Vec<Layer>,
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
        })
    }

    /// The model's dimensions.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Mean-pooled, L2-normalized sentence vectors of a packed batch of token sequences.
    /// Sequences must be non-empty and at most `max_positions` long.
    pub fn embed_batch(&self, sequences: &[&[u32]], scratch: &mut Scratch) -> Vec<Vec<f32>> {
        let h = self.dims.hidden;
        let total: usize = sequences.iter().map(|s| s.len()).sum();
        self.embed_tokens(sequences, &mut scratch.hidden);
        for layer in &self.layers {
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
        layer.qkv.apply(&s.hidden, total, &mut s.qkv);
        s.context.clear();
        s.context.resize(total * h, 0.0);
        let mut offset = 0;
        for sequence in sequences {
            self.attention(&s.qkv, offset, sequence.len(), &mut s.context, &mut s.scores);
            offset += sequence.len();
        }
        layer.attention_out.apply(&s.context, total, &mut s.projected);
        add_in_place(&mut s.projected, &s.hidden);
        layer.attention_norm.apply(&mut s.projected);
        std::mem::swap(&mut s.hidden, &mut s.projected);

        layer.intermediate.apply(&s.hidden, total, &mut s.intermediate);
        kernels::gelu(&mut s.intermediate);
        layer.output.apply(&s.intermediate, total, &mut s.projected);
        add_in_place(&mut s.projected, &s.hidden);
        layer.output_norm.apply(&mut s.projected);
        std::mem::swap(&mut s.hidden, &mut s.projected);
    }

    /// Multi-head self-attention of one sequence occupying rows `offset..offset + len`.
    fn attention(&self, qkv: &[f32], offset: usize, len: usize, context: &mut [f32], scores: &mut Vec<f32>) {
        let h = self.dims.hidden;
        let head_dim = h / self.dims.heads;
        let scale = 1.0 / (head_dim as f32).sqrt();
        let rows = &qkv[offset * 3 * h..(offset + len) * 3 * h];
        if len <= DIRECT_ATTENTION_MAX_LEN {
            kernels::attention_direct(rows, len, h, self.dims.heads, &mut context[offset * h..], h);
            return;
        }
        scores.clear();
        scores.resize(len * len, 0.0);
        for head in 0..self.dims.heads {
            let q =
                View { data: &rows[head * head_dim..], rows: len, cols: head_dim, row_stride: 3 * h, col_stride: 1 };
            let k = View {
                data: &rows[h + head * head_dim..],
                rows: len,
                cols: head_dim,
                row_stride: 3 * h,
                col_stride: 1,
            };
            let v = View {
                data: &rows[2 * h + head * head_dim..],
                rows: len,
                cols: head_dim,
                row_stride: 3 * h,
                col_stride: 1,
            };
            gemm(scale, q, k.t(), 0.0, scores, len);
            kernels::softmax_rows(scores, len);
            let out = &mut context[offset * h + head * head_dim..];
            gemm(1.0, View::rows(scores, len, len, len), v, 0.0, out, h);
        }
    }
}

fn add_in_place(x: &mut [f32], y: &[f32]) {
    x.iter_mut().zip(y).for_each(|(a, b)| *a += b);
}
