"""litnav bench organize-speed: the BERTopic-style pipeline in Python on the same vectors.

Job on stdin: {"vectors": path of little-endian float32 rows, "n": rows, "dim": columns,
"texts": [title + abstract per row], "seed": int}. Runs UMAP (15 neighbours, 5 components,
min_dist 0, cosine) + HDBSCAN (min_cluster_size 10) + class-based TF-IDF over 1-3-grams, as
BERTopic does by default, and reports seconds per step (imports timed apart).
"""
import json
import sys
import time

started = time.perf_counter()
import numpy as np  # noqa: E402
import umap  # noqa: E402
from sklearn.cluster import HDBSCAN  # noqa: E402
from sklearn.feature_extraction.text import CountVectorizer  # noqa: E402
imports = time.perf_counter() - started


def main():
    job = json.load(sys.stdin)
    vectors = np.fromfile(job["vectors"], dtype="<f4").reshape(job["n"], job["dim"])
    t = time.perf_counter()
    reduced = umap.UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine",
                        random_state=job["seed"]).fit_transform(vectors)
    umap_seconds = time.perf_counter() - t
    t = time.perf_counter()
    labels = HDBSCAN(min_cluster_size=10).fit_predict(reduced)
    hdbscan_seconds = time.perf_counter() - t
    t = time.perf_counter()
    clusters = sorted(set(labels) - {-1})
    documents = [" ".join(job["texts"][i] for i in range(len(labels)) if labels[i] == c) for c in clusters]
    if documents:
        counts = CountVectorizer(ngram_range=(1, 3), stop_words="english").fit_transform(documents)
        tf = counts.multiply(1.0 / np.maximum(counts.sum(axis=1), 1)).tocsr()
        idf = np.log(1 + counts.sum(axis=1).mean() / np.maximum(np.asarray(counts.sum(axis=0)).ravel(), 1))
        _ = tf.multiply(idf).tocsr()
    ctfidf_seconds = time.perf_counter() - t
    json.dump({"imports_seconds": imports, "umap_seconds": umap_seconds, "hdbscan_seconds": hdbscan_seconds,
               "ctfidf_seconds": ctfidf_seconds, "clusters": len(clusters),
               "outliers": int((labels == -1).sum())}, sys.stdout)


main()
