"""The CD index, vectors and corpus search from Python, against cdindex, `litnav embed` and `litnav search`."""

import csv
import json
import random

import numpy
import pytest

import litnav


def aan(datasets):
    root = datasets / "citations" / "aan"
    with open(root / "citations.csv", encoding="utf-8") as handle:
        edges = [(row["citing_id"], row["cited_id"]) for row in csv.DictReader(handle)]
    papers = [json.loads(line) for line in open(next(root.glob("papers*.jsonl")), encoding="utf-8")]
    return edges, {p["id"]: p.get("year") for p in papers}


def test_cd_index_equals_the_cdindex_package_on_aan(datasets):
    import cdindex

    edges, years = aan(datasets)
    ours = litnav.cd_index(numpy.array(edges), years, window=5)
    graph = cdindex.Graph()
    dated = {paper: year for paper, year in years.items() if year is not None}
    for paper, year in dated.items():
        graph.add_vertex(paper, year)
    for citing, cited in sorted(set(edges)):
        if citing in dated and cited in dated and citing != cited:
            graph.add_edge(citing, cited)
    sample = random.Random(7).sample(sorted(dated), 3000)
    compared = 0
    for paper in sample:
        theirs = graph.cdindex(paper, 5)
        mine = ours[paper]
        if mine is None:
            continue
        assert abs(mine - theirs) <= 1e-12, (paper, mine, theirs)
        compared += 1
    assert compared > 500


def test_cd_index_reads_pairs_and_refuses_ragged_input():
    values = litnav.cd_index([("b", "a"), ("c", "b"), ("d", "b")], {"a": 2000, "b": 2001, "c": 2002, "d": 2003})
    assert values["b"] == 1.0 and values["d"] is None
    with pytest.raises(litnav.InputError, match=r"edges\[1\]"):
        litnav.cd_index([("b", "a"), ("c",)], {"a": 2000, "b": 2001, "c": 2002})
    with pytest.raises(litnav.InputError, match=r"edges\[0\].*\"z\""):
        litnav.cd_index([("z", "a")], {"a": 2000})
    with pytest.raises(litnav.InputError, match=r"times\[0\]"):
        litnav.cd_index([], {"a": 2000.5})
    with pytest.raises(litnav.InputError, match="window"):
        litnav.cd_index([], {}, window=-1)


def test_encode_equals_litnav_embed(cli):
    texts = ["Graph neural networks for molecules", "A survey on vision transformer", "ß and ü, accents"]
    vectors = litnav.encode(texts)
    assert vectors.dtype == numpy.float32 and vectors.shape == (3, 384)
    printed = cli("embed", "--json", *[arg for text in texts for arg in ("-t", text)])
    for row, entry in zip(vectors, printed):
        assert numpy.max(numpy.abs(row - numpy.array(entry["vector"], dtype=numpy.float32))) <= 1e-6
    with pytest.raises(litnav.InputError, match=r"texts\[1\]"):
        litnav.encode(["fine", 3])


@pytest.mark.parametrize("mode", [None, "bm25", "hybrid"])
def test_corpus_search_equals_litnav_search(cli, mode):
    corpus = litnav.Corpus()
    assert len(corpus) == 3967
    options = {} if mode is None else {"mode": mode}
    hits = corpus.search("continual learning without forgetting", k=15, **options)
    args = ["search", "-q", "continual learning without forgetting", "-k", "15", "--json"]
    if mode is not None:
        args += ["--mode", mode]
    printed = cli(*args)
    assert [h["id"] for h in hits] == [p["id"] for p in printed]
    for ours, theirs in zip(hits, printed):
        assert abs(ours["score"] - theirs["score"]) <= 1e-6
        assert set(ours) == {"id", "title", "year", "score"}


def test_papers_like_one_equal_litnav_search_like(cli):
    corpus = litnav.Corpus()
    vit = "p0c6cf3b71649"  # An Image is Worth 16x16 Words
    hits = corpus.like(vit, k=12, before=2022)
    printed = cli("search", "--like", vit, "-k", "12", "--before", "2022", "--json")
    assert [h["id"] for h in hits] == [p["id"] for p in printed] and len(hits) == 12
    assert vit not in [h["id"] for h in hits]
    assert all(h["year"] < 2022 for h in hits)
    with pytest.raises(litnav.NotFoundError, match="no-such-paper"):
        corpus.like("no-such-paper")


def test_corpus_takes_the_commands_model_options(cli):
    query = "uncertainty of large language model answers"
    half = litnav.Corpus(query_precision="f16", threads=1).search(query, k=10, mode="dense")
    printed = cli("search", "-q", query, "-k", "10", "--mode", "dense", "--query-precision", "f16", "--json")
    assert [h["id"] for h in half] == [p["id"] for p in printed]
    exact = {h["id"]: h["score"] for h in litnav.Corpus().search(query, k=50, mode="dense")}
    for hit in half:
        assert abs(hit["score"] - exact[hit["id"]]) <= 1e-3
    with pytest.raises(litnav.InputError, match="f32, f16"):
        litnav.Corpus(query_precision="f8")
    with pytest.raises(litnav.InputError, match="threads"):
        litnav.Corpus(threads="two")


def test_corpus_errors_are_typed():
    with pytest.raises(litnav.NotFoundError, match="nonexistent") as missing:
        litnav.Corpus("/nonexistent/corpus")
    assert (missing.value.kind, missing.value.code) == ("not_found", "corpus_missing")
    corpus = litnav.Corpus()
    with pytest.raises(litnav.InputError, match="mode"):
        corpus.search("x", mode="nope")
    with pytest.raises(litnav.InputError, match="colour") as unknown:
        corpus.search("x", colour="red")
    assert unknown.value.code == "input"
    with pytest.raises(litnav.InputError, match="query"):
        corpus.search(42)


def test_cd_index_from_pandas_as_the_readme_shows(datasets):
    import pandas

    root = datasets / "citations" / "aan"
    edges = pandas.read_csv(root / "citations.csv", dtype=str)
    years = pandas.read_json(root / "papers.jsonl", lines=True, dtype={"id": str}).set_index("id")["year"]
    from_pandas = litnav.cd_index(edges, years, window=5)
    pairs, by_id = aan(datasets)
    assert from_pandas == litnav.cd_index(pairs, by_id, window=5)
    scored = pandas.DataFrame(litnav.score_taxobench(datasets / "taxobench" / "predictions_example.jsonl",
                                                     datasets / "taxobench" / "data.jsonl", similarity="public")["per_instance"])
    assert len(scored) == 5 and "ari" in scored.columns


def test_corpus_map_equals_litnav_map_and_writes_its_page(cli, tmp_path):
    topic = "continual learning"
    page = tmp_path / "map.html"
    mapped = litnav.Corpus().map(topic, k=120, html=page)
    printed = cli("map", "--topic", topic, "-k", "120", "--json")
    assert mapped == printed
    assert mapped["coverage"]["covered"] is True and mapped["subtopics"]
    walked = [paper for theme in mapped["subtopics"] for node in [theme, *theme.get("subtopics", [])]
              for paper in node.get("papers", [])]
    assert walked, "the themes hold papers"
    assert page.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    with pytest.raises(litnav.InputError, match="topic"):
        litnav.Corpus().map("  ")


def test_corpus_map_applies_an_edit_log_as_litnav_map_edits_does(cli, tmp_path):
    topic = "continual learning"
    first = litnav.Corpus().map(topic, k=120)["subtopics"][0]
    log = [{"op": "rename", "node": first["id"], "name": "Renamed by hand", "who": "pytest"}]
    edited = litnav.Corpus().map(topic, k=120, edits=log)
    assert edited["subtopics"][0]["name"] == "Renamed by hand"
    file = tmp_path / "edits.jsonl"
    file.write_text("\n".join(json.dumps(entry) for entry in log) + "\n", encoding="utf-8")
    from_file = litnav.Corpus().map(topic, k=120, edits=file)
    assert from_file["subtopics"] == edited["subtopics"]
    assert cli("map", "--topic", topic, "-k", "120", "--edits", str(file), "--json") == from_file
    with pytest.raises(litnav.InputError, match="no-such-node"):
        litnav.Corpus().map(topic, k=120, edits=[{"op": "rename", "node": "no-such-node", "name": "x"}])
    with pytest.raises(litnav.InputError, match=r"edits\[0\]"):
        litnav.Corpus().map(topic, k=120, edits=["rename"])


def test_ctrl_c_stops_a_long_call_and_keeps_what_was_computed(tmp_path):
    import shutil
    import signal
    import subprocess
    import sys
    import time

    built_in = litnav.Corpus().path
    corpus = tmp_path / "corpus"
    shutil.copytree(built_in, corpus, ignore=shutil.ignore_patterns("vectors", ".lock"))
    script = ("import litnav, sys; c = litnav.Corpus(sys.argv[1]); print('computing', flush=True); "
              "c.search('continual learning', mode='dense')")
    child = subprocess.Popen([sys.executable, "-c", script, str(corpus)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "computing"
    time.sleep(2)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, stderr = child.communicate(timeout=120)
    stopped_after = time.monotonic() - sent
    assert child.returncode != 0 and "KeyboardInterrupt" in stderr, stderr
    assert stopped_after < 30, f"Ctrl-C took {stopped_after:.1f} s to stop the call"
    vectors = corpus / "vectors" / "all-MiniLM-L6-v2.bin"
    assert vectors.is_file(), "the vectors computed before Ctrl-C are kept"
    assert vectors.stat().st_size < 16 + 3967 * (16 + 384 * 4), "it stopped before computing every vector"


def test_cd_index_readings_differ_where_an_earlier_paper_cites():
    # "early" (1999) cites the focal paper (2000) and nothing else: the all-time reading counts it,
    # the subsequent reading (cdindex's) does not.
    edges = [("focal", "old"), ("early", "focal"), ("later", "focal"), ("later", "old")]
    years = {"old": 1990, "focal": 2000, "early": 1999, "later": 2001}
    assert litnav.cd_index(edges, years, window=None)["focal"] == -1.0
    assert litnav.cd_index(edges, years, window=None, reading="all-time")["focal"] == 0.0
    with pytest.raises(litnav.InputError, match="reading"):
        litnav.cd_index(edges, years, reading="recent")


def test_vectors_written_by_numpy_and_pyarrow_are_ingested_and_ranked_as_numpy_ranks(tmp_path, datasets):
    import pyarrow
    import pyarrow.parquet

    lines = (datasets / "litbench" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:60]
    papers = tmp_path / "papers.jsonl"
    papers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records = [json.loads(line) for line in lines]
    ids = [r["id"] for r in records]
    # Vectors "from elsewhere": a model litnav does not run here (the encoder on titles alone).
    vectors = litnav.encode([r["title"] for r in records])
    numpy.save(tmp_path / "vectors.npy", vectors)
    order = list(range(len(ids)))
    random.Random(7).shuffle(order)  # a table names its papers: any order
    table = pyarrow.table({
        "id": [ids[i] for i in order],
        "vector": pyarrow.array([vectors[i].tolist() for i in order], type=pyarrow.list_(pyarrow.float32())),
    })
    pyarrow.parquet.write_table(table, tmp_path / "vectors.parquet")
    by_rows = litnav.ingest(tmp_path / "a", papers, vectors=tmp_path / "vectors.npy", vectors_model="titles-only")
    by_ids = litnav.ingest(tmp_path / "b", papers, vectors=tmp_path / "vectors.parquet", vectors_model="titles-only")
    assert by_rows["vectors"]["rows"] == by_ids["vectors"]["rows"] == 60
    # The nearest papers by NumPy's own dot products, the paper itself left out.
    scores = vectors @ vectors[0]
    expected = [ids[i] for i in numpy.argsort(-scores, kind="stable") if i != 0][:5]
    for corpus in ("a", "b"):
        hits = litnav.Corpus(tmp_path / corpus).like(ids[0], k=5)
        assert [h["id"] for h in hits] == expected
        assert all(abs(h["score"] - scores[ids.index(h["id"])]) < 1e-5 for h in hits)
    # A row naming a paper the corpus does not hold is named, and nothing is written.
    table = pyarrow.table({"id": ids[:3] + ["nope"], "vector": table["vector"].to_pylist()[:4]})
    pyarrow.parquet.write_table(table, tmp_path / "unknown.parquet")
    with pytest.raises(litnav.InputError, match=r"row 3 \(id `nope`\)"):
        litnav.ingest(tmp_path / "c", papers, vectors=tmp_path / "unknown.parquet", vectors_model="titles-only")
    assert not (tmp_path / "c" / "manifest.json").exists()
