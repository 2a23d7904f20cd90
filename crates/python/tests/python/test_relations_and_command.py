"""Citation measures of an edge list and of a corpus, ingesting and expanding from Python, and the
`litnav` command the package carries — each against the `litnav` command's JSON on the same input."""

import json
import os
import subprocess
import sys

import numpy
import pytest

import litnav
from conftest import most_cited


def test_ingest_reports_what_it_read_and_the_corpus_holds_the_graph(acl):
    report = acl["report"]
    assert report["manifest"]["papers"] == len(acl["papers"]), report["manifest"]
    corpus = litnav.Corpus(acl["corpus"])
    assert len(corpus) == len(acl["papers"])
    with pytest.raises(litnav.InputError, match="format"):
        litnav.ingest(acl["corpus"], [], format="word")
    with pytest.raises(litnav.InputError, match=r"files\[0\]"):
        litnav.ingest(acl["corpus"], [3])


def test_corpus_relations_equal_litnav_relations(cli, acl):
    corpus = litnav.Corpus(acl["corpus"])
    where = ["--corpus", str(acl["corpus"]), "--json"]
    classic, second = most_cited(acl["edges"], 2)
    assert corpus.paper(classic) == cli("relations", "paper", classic, *where)
    assert corpus.paper(classic, window=5, units="references") == cli(
        "relations", "paper", classic, "--window", "5", "--units", "references", *where)
    for measure in ("disruption", "novelty", "citations"):
        assert corpus.rank(measure, k=25) == cli("relations", measure, "-k", "25", *where)
    assert corpus.rank("disruption", topic="statistical machine translation", k=10) == cli(
        "relations", "disruption", "--topic", "statistical machine translation", "-k", "10", *where)
    assert corpus.neighbours(classic) == cli("relations", "co-cited", classic, *where)
    assert corpus.neighbours(classic, "coupled", k=5) == cli("relations", "coupled", classic, "-k", "5", *where)
    assert corpus.pair(classic, second) == cli("relations", "pair", classic, second, *where)
    assert corpus.citers(classic) == cli("relations", "citers", classic, *where)
    citing = next(a for a, b in acl["edges"] if b == classic)
    assert corpus.citation_path(citing, classic) == cli("relations", "path", citing, classic, *where)
    with pytest.raises(litnav.InputError, match="measure"):
        corpus.rank("fame")
    with pytest.raises(litnav.NotFoundError):
        corpus.paper("no-such-paper")


def test_an_edge_list_gives_the_values_of_the_corpus_of_the_same_graph(cli, acl):
    papers, edges = acl["papers"], acl["edges"]
    graph = litnav.CitationGraph(edges, {p["id"]: p["year"] for p in papers}, venues={p["id"]: p["venue"] for p in papers})
    assert len(graph) == len(papers) and graph.edge_count == len(set(e for e in edges if e[0] != e[1]))
    novelty, disruption = graph.novelty(), graph.disruption(window=None)
    where = ["--corpus", str(acl["corpus"]), "--json"]
    for paper in most_cited(edges, 4):
        printed = cli("relations", "paper", paper, *where)
        assert novelty[paper] == printed["novelty"], paper
        assert disruption[paper] == printed["disruption"], paper
    classic = most_cited(edges, 1)[0]
    citing = next(a for a, b in edges if b == classic)
    ours, theirs = graph.citation_path(citing, classic), cli("relations", "path", citing, classic, *where)
    ids = lambda papers: [p["id"] for p in papers]  # noqa: E731
    assert ids(ours["max_citation_path"]["papers"]) == ids(theirs["max_citation_path"]["papers"])
    assert [ids(p) for p in ours["shortest_paths"]] == [ids(p) for p in theirs["shortest_paths"]]
    assert ours["citation_distance"] == theirs["citation_distance"]


def test_whole_number_ids_from_numpy_arrow_and_pandas_cross_as_blocks_and_agree(acl):
    import pandas
    import pyarrow

    papers, edges = acl["papers"], acl["edges"]
    number = {p["id"]: i * 7 + 3 for i, p in enumerate(papers)}
    years = {p["id"]: p["year"] for p in papers}
    by_text = litnav.cd_index(edges, years, window=5)
    ids = numpy.array([number[p["id"]] for p in papers], dtype=numpy.int64)
    year_column = numpy.array([p["year"] for p in papers], dtype=numpy.float64)
    pairs = numpy.array([(number[a], number[b]) for a, b in edges], dtype=numpy.int64)
    from_numpy = litnav.cd_index(pairs, pandas.Series(year_column, index=ids), window=5)
    expected = {number[p]: v for p, v in by_text.items()}
    assert from_numpy == expected and all(isinstance(k, int) for k in from_numpy)
    table = pyarrow.table({"citing": pairs[:, 0], "cited": pairs[:, 1]})
    times = pyarrow.table({"id": ids, "year": year_column})
    assert litnav.cd_index(table, times, window=5) == expected
    frame = pandas.DataFrame({"cited": pairs[:, 1], "citing": pairs[:, 0]})
    assert litnav.CitationGraph(frame, pandas.Series(year_column, index=ids)).cd_index(window=5) == expected


def test_bad_graph_input_names_the_argument_and_position():
    with pytest.raises(litnav.InputError, match=r"shape \(n, 2\), not \(2, 3\)"):
        litnav.CitationGraph(numpy.zeros((2, 3), dtype=numpy.int64), {1: 2000})
    with pytest.raises(litnav.InputError, match=r"times\[1\].*whole number"):
        litnav.CitationGraph([], {"a": 2000, "b": 2000.5})
    with pytest.raises(litnav.InputError, match=r"times\[0\].*not a number"):
        litnav.CitationGraph([], {"a": "two thousand"})
    with pytest.raises(litnav.InputError, match=r"edges\[0\].*no time"):
        litnav.CitationGraph(numpy.array([[1, 9]], dtype=numpy.int64), {1: 2000, 2: 2001}).cd_index()
    with pytest.raises(litnav.InputError, match=r"edges\[0\].*no time"):
        litnav.CitationGraph(numpy.array([[1, 9]]), __import__("pandas").Series([2000.0, 2001.0], index=[1, 2]))
    with pytest.raises(litnav.InputError, match=r"times\[1\].*twice"):
        litnav.CitationGraph([], [("a", 2000), ("a", 2001)])
    with pytest.raises(litnav.InputError, match="units"):
        litnav.CitationGraph([], {"a": 2000}).novelty(units="journals")
    with pytest.raises(litnav.NotFoundError, match="zz"):
        litnav.CitationGraph([("b", "a")], {"a": 2000, "b": 2001}).citation_path("b", "zz")
    with pytest.raises(litnav.InputError, match="nulls"):
        litnav.CitationGraph([], {"a": 2000}).novelty(nulls=0)


def test_expand_equals_litnav_expand(cli, tmp_path):
    corpus = litnav.Corpus()
    mapped = corpus.map("continual learning", k=120)
    subtopic = mapped["subtopics"][0]["id"]
    expansion = corpus.expand(mapped, subtopic, k=40)
    saved = tmp_path / "map.json"
    saved.write_text(json.dumps(mapped), encoding="utf-8")
    printed = cli("expand", "--map", str(saved), "--subtopic", subtopic, "-k", "40", "--json")
    assert expansion["map"] == printed
    assert expansion["retrieved"] > 0 and expansion["query_by"] == "offline"
    with pytest.raises(litnav.NotFoundError, match="t99"):
        corpus.expand(mapped, "t99", k=10)


def run_command(*args, **extra):
    environment = dict(os.environ, **extra)
    return subprocess.run([sys.executable, "-m", "litnav", *args], capture_output=True, text=True, timeout=600,
                          env=environment)


def test_the_package_carries_the_litnav_command(cli):
    done = run_command("search", "-q", "vision transformer", "-k", "5", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == cli("search", "-q", "vision transformer", "-k", "5", "--json")
    version = run_command("--version")
    assert version.returncode == 0 and version.stdout.startswith("litnav ")
    refused = run_command("search", "--no-such-flag")
    assert refused.returncode == 2 and "--no-such-flag" in refused.stderr
    failed = run_command("search", "-q", "x", "--corpus", "/nonexistent/corpus")
    assert failed.returncode == 1 and "nonexistent" in failed.stderr
