//! Reading the `.safetensors` format: an 8-byte little-endian header length, a JSON header
//! mapping tensor names to `{dtype, shape, data_offsets}`, then the raw little-endian data.

use crate::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// A tensor copied out of the file as f32 (tensors of other dtypes keep their dtype and no data).
#[derive(Debug, Clone)]
pub struct Tensor {
    /// The dtype as stored (`F32`, `I64`, …).
    pub dtype: String,
    /// Dimensions, outermost first.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<f32>,
}

/// Load a safetensors file: F32 tensors with their values, others (such as BERT's `I64`
/// `position_ids` buffer) by name and dtype only.
pub fn load(path: &Path) -> Result<HashMap<String, Tensor>> {
    let bad = |message: String| Error::model(path, message);
    let file = std::fs::File::open(path).map_err(|e| bad(format!("cannot open the weights: {e}")))?;
    let bytes = crate::mapped::map_file(&file).map_err(|e| bad(format!("cannot read the weights: {e}")))?;
    if bytes.len() < 8 {
        return Err(bad("is too short to be a safetensors file".into()));
    }
    let header_len = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default()) as usize;
    let data_start = 8usize.checked_add(header_len).filter(|&end| end <= bytes.len()).ok_or_else(|| {
        bad(format!("header length {header_len} runs past the end of the file (truncated download?)"))
    })?;
    let header: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&bytes[8..data_start])
        .map_err(|e| bad(format!("the safetensors header is not valid JSON: {e}")))?;
    let data = &bytes[data_start..];
    let mut tensors = HashMap::new();
    for (name, info) in &header {
        if name == "__metadata__" {
            continue;
        }
        let dtype = info["dtype"].as_str().unwrap_or("?").to_string();
        let shape: Vec<usize> =
            info["shape"].as_array().into_iter().flatten().filter_map(|d| d.as_u64()).map(|d| d as usize).collect();
        let offsets: Vec<usize> = info["data_offsets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_u64())
            .map(|d| d as usize)
            .collect();
        let [start, end] = offsets[..] else { return Err(bad(format!("tensor {name} has no data_offsets"))) };
        let count: usize = shape.iter().product();
        if dtype != "F32" {
            tensors.insert(name.clone(), Tensor { dtype, shape, data: Vec::new() });
            continue;
        }
        if end > data.len() || start > end || end - start != count * 4 {
            return Err(bad(format!("tensor {name} ({shape:?}) does not fit the file (truncated or corrupt)")));
        }
        let values = data[start..end].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        tensors.insert(name.clone(), Tensor { dtype, shape, data: values });
    }
    Ok(tensors)
}
