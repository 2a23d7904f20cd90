"""litnav bench graph: the plain-Python CD index (dict of sets), the peer litnav is compared with.

Job on stdin: {"citations": CSV path (citing_id,cited_id), "papers": JSONL path (id and year per
line)}. CD as the index defines it: only papers published after the focal one count, and papers
without a year take no part. Report on stdout: seconds to build the sets, the median seconds to
compute CD for every paper over `repeats` runs, and checksums.
"""
import csv
import json
import sys
import time


def main():
    job = json.load(sys.stdin)
    with open(job["papers"], encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    year = {r["id"]: r["year"] for r in records if r.get("year") is not None}
    papers = list(year)
    started = time.perf_counter()
    cites = {p: set() for p in papers}
    cited_by = {p: set() for p in papers}
    with open(job["citations"], encoding="utf-8", newline="") as f:
        rows = csv.reader(f)
        next(rows)
        for citing, cited in rows:
            if citing in cites and cited in cites and citing != cited:
                cites[citing].add(cited)
                cited_by[cited].add(citing)
    build = time.perf_counter() - started

    timings = []
    for _ in range(job.get("repeats", 1)):
        started = time.perf_counter()
        defined, total, n_sum = cd_all(papers, year, cites, cited_by)
        timings.append(time.perf_counter() - started)
    timings.sort()
    json.dump({"build_seconds": build, "cd_seconds": timings[len(timings) // 2], "defined": defined,
               "cd_sum": total, "count_sum": n_sum}, sys.stdout)


def cd_all(papers, year, cites, cited_by):
    """CD for every paper: (papers with a value, sum of values, sum of n_i + n_j + n_k)."""
    defined, total, n_sum = 0, 0.0, 0
    for focal in papers:
        t = year[focal]
        citers = {c for c in cited_by[focal] if year[c] > t}
        cite_refs = set()
        for r in cites[focal]:
            cite_refs |= cited_by[r]
        cite_refs = {c for c in cite_refs if year[c] > t}
        n_j = len(citers & cite_refs)
        n_i = len(citers) - n_j
        n_k = len(cite_refs) - n_j
        n_sum += n_i + n_j + n_k
        if n_i + n_j + n_k:
            defined += 1
            total += (n_i - n_j) / (n_i + n_j + n_k)
    return defined, total, n_sum


main()
