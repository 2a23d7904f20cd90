"""Python peer for `litnav bench search --peer`: the same corpus and queries through bm25s.

bm25s is the fastest widely used pure-Python BM25 (sparse-matrix scoring on numpy/scipy). The
text, stop words and stemming match litnav's analyzer as closely as the library allows (English
stop words, Snowball English stemmer). Reads a JSON job on stdin, prints a JSON report on stdout.
"""

import json
import sys
import time


def main() -> None:
    job = json.load(sys.stdin)
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    docs = []
    with open(job["papers"], encoding="utf-8") as handle:
        for line in handle:
            paper = json.loads(line)
            docs.append(paper["title"] + " " + (paper.get("abstract") or ""))
    report = {"library": f"bm25s {bm25s.__version__}", "corpora": []}
    for size in job["sizes"]:
        corpus = [docs[i % len(docs)] for i in range(size)]
        builds = []
        for _ in range(job["builds"]):
            started = time.perf_counter()
            tokens = bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False)
            retriever = bm25s.BM25()
            retriever.index(tokens, show_progress=False)
            builds.append(time.perf_counter() - started)
        builds.sort()
        build = builds[len(builds) // 2]
        latencies = []
        for attempt in range(job["passes"] + 1):
            for query in job["queries"]:
                started = time.perf_counter()
                query_tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
                if len(query_tokens.vocab) == 0:
                    continue
                retriever.retrieve(query_tokens, k=min(job["k"], size), show_progress=False, n_threads=1)
                elapsed = (time.perf_counter() - started) * 1e3
                if attempt > 0:
                    latencies.append(elapsed)
        latencies.sort()
        rank = lambda p: latencies[max(1, min(len(latencies), -(-int(p * len(latencies)) // 100))) - 1]
        report["corpora"].append({
            "papers": size,
            "build_seconds": build,
            "docs_per_second": size / build,
            "queries": len(latencies),
            "p50_ms": rank(50),
            "p99_ms": rank(99),
        })
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()
