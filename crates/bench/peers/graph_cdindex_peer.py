"""litnav bench graph: the CD index by its authors' own package (PyPI `cdindex`, Funk's C code).

Job on stdin: {"citations": CSV path (citing_id,cited_id), "papers": JSONL path (id and year per
line), "deltas": [years, ...], "repeats": n}. Papers without a year cannot enter the package's
graph. Report on stdout: the package's version, seconds to build its graph, and per delta the
median seconds to compute CD for every paper and the values (null = undefined) in the order of
"ids"; mCD and the I-index at the first delta.
"""
import csv
import importlib.metadata
import json
import sys
import time

try:
    import cdindex
except ImportError:
    sys.exit("the cdindex package is not installed (pip install cdindex==1.0.20)")


def main():
    job = json.load(sys.stdin)
    with open(job["papers"], encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    started = time.perf_counter()
    graph = cdindex.Graph()
    ids = []
    for r in records:
        if r.get("year") is not None:
            graph.add_vertex(r["id"], int(r["year"]))
            ids.append(r["id"])
    known = set(ids)
    with open(job["citations"], encoding="utf-8", newline="") as f:
        rows = csv.reader(f)
        next(rows)
        seen = set()
        for citing, cited in rows:
            if citing in known and cited in known and citing != cited and (citing, cited) not in seen:
                seen.add((citing, cited))
                graph.add_edge(citing, cited)
    build = time.perf_counter() - started

    windows = []
    for delta in job["deltas"]:
        timings = []
        for _ in range(job.get("repeats", 1)):
            started = time.perf_counter()
            values = [graph.cdindex(i, delta) for i in ids]
            timings.append(time.perf_counter() - started)
        timings.sort()
        windows.append({"delta": delta, "seconds": timings[len(timings) // 2], "cd": values})
    first = job["deltas"][0]
    report = {
        "package": "cdindex " + importlib.metadata.version("cdindex"),
        "build_seconds": build,
        "ids": ids,
        "windows": windows,
        "mcd": [graph.mcdindex(i, first) for i in ids],
        "i_index": [graph.iindex(i, first) for i in ids],
    }
    json.dump(report, sys.stdout)


main()
