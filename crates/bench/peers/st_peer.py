"""Python peer for `litnav bench embed --peer`: sentence-transformers on the same weights, texts
and thread count. Reads a JSON job on stdin, prints a JSON report on stdout."""

import json
import os
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main() -> None:
    job = json.load(sys.stdin)
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(job["threads"])
    started = time.perf_counter()
    model = SentenceTransformer(job["model"], device="cpu")
    load_seconds = time.perf_counter() - started
    report = {"library": f"sentence-transformers {__import__('sentence_transformers').__version__}, torch {torch.__version__}",
              "load_seconds": load_seconds, "workloads": []}
    for workload in job["workloads"]:
        texts = workload["texts"]
        model.encode(texts[:16], batch_size=32)
        runs = []
        for _ in range(job["repeats"]):
            started = time.perf_counter()
            vectors = model.encode(texts, batch_size=32, normalize_embeddings=False)
            runs.append(time.perf_counter() - started)
        runs.sort()
        seconds = runs[len(runs) // 2]
        report["workloads"].append({
            "name": workload["name"],
            "texts_per_second": len(texts) / seconds,
            "sample_vectors": [v.tolist() for v in vectors[: job["sample"]]],
        })
    # One short query alone on one thread, as a server encodes a never-seen query.
    torch.set_num_threads(1)
    model.encode([job["query"]])
    runs = []
    for _ in range(job["query_runs"]):
        started = time.perf_counter()
        model.encode([job["query"]])
        runs.append((time.perf_counter() - started) * 1e3)
    runs.sort()
    report["query_ms"] = runs[len(runs) // 2]
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
