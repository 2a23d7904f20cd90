//! The encoder against sentence-transformers' own vectors (`../shared/reference/minilm_vectors.json`).

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_core::vector::cosine;
use litnav_embed::Encoder;
use litnav_testkit::{encoder, model_dir};

fn reference() -> Vec<(String, Vec<f32>)> {
    let path = litnav_testkit::reference().join("minilm_vectors.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let vector = item["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            (item["text"].as_str().unwrap().to_string(), vector)
        })
        .collect()
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn vectors_match_sentence_transformers() {
    let reference = reference();
    assert_eq!(reference.len(), 35);
    let texts: Vec<&str> = reference.iter().map(|(t, _)| t.as_str()).collect();
    let ours = encoder().embed(&texts);
    let (mut worst_diff, mut worst_cos) = (0.0f32, 1.0f32);
    for ((text, expected), got) in reference.iter().zip(&ours) {
        assert_eq!(got.len(), 384);
        let diff = expected.iter().zip(got).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        let cos = cosine(expected, got);
        let shown: String = text.chars().take(60).collect();
        assert!(diff <= 1e-6, "{shown:?}: max abs difference {diff:e}");
        assert!(cos >= 0.999_999, "{shown:?}: cosine {cos}");
        worst_diff = worst_diff.max(diff);
        worst_cos = worst_cos.min(cos);
    }
    eprintln!("35 reference strings: worst max-abs difference {worst_diff:e}, worst cosine {worst_cos}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn half_precision_queries_stay_close_and_documents_stay_exact() {
    let reference = reference();
    let texts: Vec<&str> = reference.iter().map(|(t, _)| t.as_str()).collect();
    let half = encoder().clone().with_query_precision(litnav_embed::Precision::Half);
    assert_eq!(half.embed(&texts), encoder().embed(&texts), "documents are always encoded in f32");
    assert_eq!(encoder().embed_queries(&texts), encoder().embed(&texts), "f32 queries are the model's vectors");
    let queries = half.embed_queries(&texts);
    let mut worst = 0.0f32;
    for ((text, expected), got) in reference.iter().zip(&queries) {
        let diff = expected.iter().zip(got).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff <= 1e-3 && cosine(expected, got) >= 0.9999, "{text:?}: {diff:e}");
        worst = worst.max(diff);
    }
    assert!(worst > 1e-6, "half-precision weights must change something ({worst:e})");
    eprintln!("35 reference strings as f16 queries: worst max-abs difference {worst:e}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn batching_and_threads_do_not_change_vectors() {
    let texts: Vec<String> = reference().into_iter().map(|(t, _)| t).collect();
    let together = encoder().embed(&texts);
    // Every output element is the same sequence of operations in any batch (see gemm.rs).
    for (text, batched) in texts.iter().zip(&together).take(8) {
        assert_eq!(&encoder().embed(&[text])[0], batched, "batch composition changed {text:?}");
    }
    let single = Encoder::load(model_dir()).unwrap().with_threads(1).embed(&texts);
    assert_eq!(single, together, "thread count must not change vectors");
    assert_eq!(encoder().embed(&texts), together, "embedding is deterministic");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn truncation_is_at_256_tokens() {
    let long = "transformer ".repeat(400);
    assert_eq!(encoder().tokens(&long).len(), 256);
    assert_eq!(encoder().tokens("").len(), 2, "[CLS] [SEP]");
}

#[test]
fn missing_model_says_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let message = Encoder::load(dir.path()).err().unwrap().to_string();
    assert!(message.contains("model.safetensors is missing"), "{message}");
    let kind = litnav_core::HasKind::kind(&Encoder::load(dir.path()).err().unwrap());
    assert_eq!(kind, litnav_core::ErrorKind::NotFound, "a missing model is something to install, not bad input");
    std::fs::write(dir.path().join("model.safetensors"), b"garbage").unwrap();
    std::fs::write(dir.path().join("vocab.txt"), b"[PAD]\n").unwrap();
    std::fs::write(dir.path().join("config.json"), b"{}").unwrap();
    let message = Encoder::load(dir.path()).err().unwrap().to_string();
    assert!(message.contains("damaged"), "{message}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn truncated_weights_are_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let source = model_dir();
    for file in ["vocab.txt", "config.json"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let weights = std::fs::read(source.join("model.safetensors")).unwrap();
    std::fs::write(dir.path().join("model.safetensors"), &weights[..weights.len() / 2]).unwrap();
    let message = Encoder::load(dir.path()).err().unwrap().to_string();
    assert!(message.contains("truncated or corrupt"), "{message}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn a_differently_configured_tokenizer_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = model_dir();
    for file in ["vocab.txt", "config.json", "model.safetensors"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let original = std::fs::read_to_string(source.join("tokenizer.json")).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&original).unwrap();
    config["normalizer"]["lowercase"] = serde_json::Value::Bool(false);
    std::fs::write(dir.path().join("tokenizer.json"), config.to_string()).unwrap();
    let message = Encoder::load(dir.path()).err().unwrap().to_string();
    assert!(message.contains("normalizer.lowercase is true"), "{message}");
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn filling_the_cache_stores_as_it_goes_stops_when_asked_and_resumes() {
    use litnav_embed::{CACHE_CHUNK, Error, cache::VectorCache};
    use std::ops::ControlFlow;
    let texts: Vec<String> = (0..300).map(|i| format!("paper {i} on graph neural networks, part {}", i % 7)).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vectors.bin");
    let mut cache = VectorCache::open(&path, 384).unwrap();
    let mut seen = Vec::new();
    let stopped = litnav_embed::embed_into_cache(encoder(), &mut cache, &texts, |done, total| {
        seen.push((done, total));
        if done > 0 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    let Err(Error::Stopped { done, total: 300 }) = stopped else { panic!("expected a stop, got {stopped:?}") };
    // The stop comes at the first store: everything encoded by then is stored, nothing more.
    // Progress is heard after every batch, before any store too.
    assert!((CACHE_CHUNK..300).contains(&done), "{done} texts stored before the stop");
    assert_eq!((seen.first(), seen.last()), (Some(&(0, 300)), Some(&(done, 300))));
    assert!(seen[..seen.len() - 1].iter().all(|&(stored, _)| stored == 0), "{seen:?}");
    // A stop asked before anything is stored is honoured after the batch under way: what was
    // encoded is stored, well short of a chunk.
    let early = tempfile::tempdir().unwrap();
    let mut cache = VectorCache::open(&early.path().join("vectors.bin"), 384).unwrap();
    let mut calls = 0;
    let stopped = litnav_embed::embed_into_cache(encoder(), &mut cache, &texts, |_, _| {
        calls += 1;
        if calls > 1 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    });
    let Err(Error::Stopped { done: early_done, .. }) = stopped else { panic!("expected a stop, got {stopped:?}") };
    assert!((1..CACHE_CHUNK).contains(&early_done) && cache.len() == early_done, "{early_done}");
    let expected = encoder().embed(&texts);
    let reopened = VectorCache::open(&path, 384).unwrap();
    assert_eq!(reopened.len(), done, "what the stop reported is what the file holds");
    let key = |text: &str| VectorCache::key(litnav_embed::MODEL_NAME, text);
    let stored = texts.iter().zip(&expected).filter(|(t, _)| reopened.get(&key(t)).is_some()).count();
    assert_eq!(stored, done);
    for (text, vector) in texts.iter().zip(&expected) {
        if let Some(got) = reopened.get(&key(text)) {
            assert_eq!(got, vector.as_slice(), "{text:?}");
        }
    }
    // Resuming encodes only the rest, and every vector is the encoder's.
    let mut cache = VectorCache::open(&path, 384).unwrap();
    let mut last = (0, 0);
    let fill = litnav_embed::embed_into_cache(encoder(), &mut cache, &texts, |done, total| {
        assert!(done >= last.0, "progress never goes back");
        last = (done, total);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!((fill.texts, fill.cached, fill.encoded), (300, done, 300 - done));
    assert_eq!(last, (300 - done, 300 - done));
    for (text, vector) in texts.iter().zip(&expected) {
        assert_eq!(cache.get(&key(text)).unwrap(), vector.as_slice(), "{text:?}");
    }
}
