"""Shared fixtures: the datasets beside the checkout, the litnav command for `--json` comparisons."""

import csv
import json
import os
import pathlib
import subprocess

import pytest

import litnav

SHARED = pathlib.Path(os.environ.get("LITNAV_SHARED", pathlib.Path(__file__).resolve().parents[4] / "../shared")).resolve()


@pytest.fixture(scope="session")
def datasets() -> pathlib.Path:
    path = SHARED / "datasets"
    assert (path / "litbench" / "corpus.jsonl").is_file(), f"the shared datasets are missing at {path}"
    return path


@pytest.fixture(scope="session")
def peers() -> pathlib.Path:
    return SHARED / "peers"


@pytest.fixture(scope="session")
def cli():
    """Run the litnav command and parse its JSON output."""
    binary = os.environ.get("LITNAV_BIN")
    assert binary and os.path.isfile(binary), "LITNAV_BIN must name the litnav binary (the Rust test driver sets it)"

    def run(*args: str):
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"litnav {' '.join(args)} failed: {done.stderr}"
        return json.loads(done.stdout)

    return run


@pytest.fixture(scope="session")
def acl(datasets, tmp_path_factory):
    """ACL's papers of AAN (ids starting with P) and the citations among them, as files and as
    lists, and a corpus ingested from the files through the binding."""
    root = datasets / "citations" / "aan"
    papers = [p for p in map(json.loads, open(root / "papers.jsonl", encoding="utf-8")) if p["id"].startswith("P")]
    ids = {p["id"] for p in papers}
    with open(root / "citations.csv", encoding="utf-8") as handle:
        edges = [(r["citing_id"], r["cited_id"]) for r in csv.DictReader(handle)
                 if r["citing_id"] in ids and r["cited_id"] in ids]
    folder = tmp_path_factory.mktemp("acl")
    with open(folder / "papers.jsonl", "w", encoding="utf-8") as out:
        for paper in papers:
            out.write(json.dumps(paper) + "\n")
    with open(folder / "edges.csv", "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["citing_id", "cited_id"])
        writer.writerows(edges)
    report = litnav.ingest(folder / "corpus", [folder / "papers.jsonl", folder / "edges.csv"])
    return {"papers": papers, "edges": edges, "corpus": folder / "corpus", "report": report}


def most_cited(edges, n):
    counts = {}
    for _, cited in edges:
        counts[cited] = counts.get(cited, 0) + 1
    return sorted(counts, key=lambda p: (-counts[p], p))[:n]
