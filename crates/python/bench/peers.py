"""litnav's Python bindings beside the field's own Python packages, in one process, on the same inputs.

Run with the Python tier's environment and a built package, e.g. after `pip install ./crates/python`:
    python crates/python/bench/peers.py [--shared ../shared] [--repeat 5] [--sample-seconds 0.2]
Prints, per binding: the peer's seconds a call, litnav's, the speed-up and the largest
difference. With --sample-seconds each side's calls are timed in loops, as timeit times them.
"""

import argparse
import csv
import json
import pathlib
import sys
import time

import litnav


SAMPLE_SECONDS = 0.0  # set by --sample-seconds


def best_of(repeat, function):
    """The fastest of `repeat` samples, in seconds a call, and the last value. A sample is one
    call, or with --sample-seconds S as many calls back to back as fill S seconds (counted once
    per function, as timeit's autorange does): on a busy 2-core machine a single call under a
    millisecond is timed as much by when the scheduler wakes its threads as by its own work."""
    calls, value = 1, None
    if SAMPLE_SECONDS > 0:
        start = time.perf_counter()
        while time.perf_counter() - start < SAMPLE_SECONDS:
            value = function()
            calls += 1
        calls = max(1, calls - 1)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            value = function()
        times.append((time.perf_counter() - start) / calls)
    return min(times), value


def taxobench_case(shared, repeat):
    sys.path.insert(0, str(shared / "peers" / "taxobench"))
    from taxobench.metrics.clustering import clustering_metrics
    from taxobench.metrics.retrieval import retrieval_metrics
    from taxobench.metrics.sem_path import sem_path_score
    from taxobench.metrics.tree import extract_papers

    data = [json.loads(line) for line in open(shared / "datasets/taxobench/data.jsonl", encoding="utf-8")]
    predictions = [json.loads(line) for line in open(shared / "datasets/taxobench/predictions_example.jsonl", encoding="utf-8")]
    by_id = {p["id"]: p for p in predictions}

    def peer():
        rows = []
        for reference in data:
            tree = by_id[reference["id"]]["hierarchy_tree"]
            row = {f"leaf_{k}": v for k, v in clustering_metrics(reference["gt"], tree).items()}
            row.update({f"sem_path_{k}": v for k, v in sem_path_score(reference["gt"], tree).items()})
            row.update({f"retrieval_{k}": v for k, v in retrieval_metrics(extract_papers(reference["gt"]), extract_papers(tree)).items()})
            rows.append(row)
        return {"leaf_ari": sum(r["leaf_ari"] for r in rows) / len(rows), "leaf_v_measure": sum(r["leaf_v_measure"] for r in rows) / len(rows),
                "sem_path": sum(r["sem_path_sem_path"] for r in rows) / len(rows), "retrieval_f1": sum(r["retrieval_f1"] for r in rows) / len(rows)}

    def ours():
        return litnav.score_taxobench(predictions, data, similarity="public")["summary"]

    peer_s, theirs = best_of(repeat, peer)
    ours_s, mine = best_of(repeat, ours)
    diff = max(abs(mine[k] - v) for k, v in theirs.items())
    return "score_taxobench (public) vs taxobench, 5 instances", peer_s, ours_s, diff


def cd_case(shared, repeat):
    import cdindex

    root = shared / "datasets/citations/aan"
    with open(root / "citations.csv", encoding="utf-8") as handle:
        edges = sorted({(r["citing_id"], r["cited_id"]) for r in csv.DictReader(handle) if r["citing_id"] != r["cited_id"]})
    years = {p["id"]: p["year"] for p in map(json.loads, open(root / "papers.jsonl", encoding="utf-8"))}

    def peer():
        graph = cdindex.Graph()
        for paper, year in years.items():
            graph.add_vertex(paper, year)
        for citing, cited in edges:
            if citing in years and cited in years:
                graph.add_edge(citing, cited)
        return {paper: graph.cdindex(paper, 5) for paper in years}

    peer_s, theirs = best_of(max(1, repeat // 5), peer)
    ours_s, mine = best_of(repeat, lambda: litnav.cd_index(edges, years, window=5))
    both = [(mine[p], v) for p, v in theirs.items() if v is not None]
    assert all(m is not None for m, _ in both) and sum(v is None for v in theirs.values()) == sum(v is None for v in mine.values())
    diff = max(abs(m - v) for m, v in both)
    return f"cd_index vs cdindex, AAN ({len(years)} papers, {len(edges)} edges, window 5)", peer_s, ours_s, diff


def cd_numbered_case(shared, repeat):
    """The AAN graph again with whole-number ids in NumPy arrays: what crosses is one block per
    column instead of a Python string per id."""
    import numpy

    import cdindex

    root = shared / "datasets/citations/aan"
    with open(root / "citations.csv", encoding="utf-8") as handle:
        edges = sorted({(r["citing_id"], r["cited_id"]) for r in csv.DictReader(handle) if r["citing_id"] != r["cited_id"]})
    years = {p["id"]: p["year"] for p in map(json.loads, open(root / "papers.jsonl", encoding="utf-8"))}
    number = {paper: i for i, paper in enumerate(years)}
    dated = [(number[c], number[d]) for c, d in edges if c in years and d in years]
    pairs = numpy.array(dated, dtype=numpy.int64)
    ids = numpy.arange(len(years), dtype=numpy.int64)
    year_column = numpy.array(list(years.values()), dtype=numpy.float64)  # AAN dates every paper

    def peer():
        graph = cdindex.Graph()
        for paper, year in zip(ids.tolist(), year_column.astype(numpy.int64).tolist()):
            graph.add_vertex(str(paper), year)
        for citing, cited in dated:
            graph.add_edge(str(citing), str(cited))
        return {paper: graph.cdindex(str(paper), 5) for paper in ids.tolist()}

    import pandas

    times = pandas.Series(year_column, index=ids)
    peer_s, theirs = best_of(max(1, repeat // 5), peer)
    ours_s, mine = best_of(repeat, lambda: litnav.cd_index(pairs, times, window=5))
    diff = max(abs(mine[p] - v) for p, v in theirs.items() if v is not None)
    return "cd_index vs cdindex, AAN with NumPy whole-number ids", peer_s, ours_s, diff


def synthetic_citations(papers, references, seed=7):
    """A citation graph of `papers` over 1990–2020 (ids in time order), each citing about
    `references` earlier papers, recent ones more often."""
    import numpy

    rng = numpy.random.default_rng(seed)
    years = numpy.sort(rng.integers(1990, 2021, papers)).astype(numpy.float64)
    citing = numpy.repeat(numpy.arange(papers, dtype=numpy.int64), references)
    cited = (citing * numpy.sqrt(rng.random(citing.size))).astype(numpy.int64)
    keep = cited < citing
    pairs = numpy.unique(numpy.stack([citing[keep], cited[keep]], axis=1), axis=0)  # cdindex refuses repeats
    return numpy.arange(papers, dtype=numpy.int64), years, pairs


def cd_large_case(papers, references):
    """A graph of Paperscape's order of size (about a million arXiv papers), synthetic: the
    datasets here hold none that large. One run each side (the peer takes minutes)."""
    import numpy
    import pandas

    import cdindex

    ids, years, pairs = synthetic_citations(papers, references)

    def peer():
        graph = cdindex.Graph()
        for paper, year in zip(ids.tolist(), years.astype(numpy.int64).tolist()):
            graph.add_vertex(str(paper), year)
        for citing, cited in pairs.tolist():
            graph.add_edge(str(citing), str(cited))
        return {paper: graph.cdindex(str(paper), 5) for paper in ids.tolist()}

    peer_s, theirs = best_of(1, peer)
    ours_s, mine = best_of(3, lambda: litnav.cd_index(pairs, pandas.Series(years, index=ids), window=5))
    both = [(mine[p], v) for p, v in theirs.items() if v is not None]
    assert all(m is not None for m, _ in both)
    diff = max(abs(m - v) for m, v in both)
    return f"cd_index vs cdindex, synthetic {papers:,} papers, {len(pairs):,} edges", peer_s, ours_s, diff


RETRIEVAL_MEASURES = {"recall.10,100", "P.10,100", "ndcg_cut.10,100", "recip_rank"}
RETRIEVAL_NAMES = {"recall_10": "recall@10", "P_100": "precision@100", "ndcg_cut_10": "ndcg@10", "ndcg_cut_100": "ndcg@100", "recip_rank": "mrr"}


def retrieval_inputs(shared):
    """litbench's 19 topics' references as qrels, and a deterministic run of 1,000 documents each."""
    topics = [json.loads(line) for line in open(shared / "datasets/litbench/topics.jsonl", encoding="utf-8")]
    papers = [json.loads(line)["id"] for line in open(shared / "datasets/litbench/corpus.jsonl", encoding="utf-8")]
    qrels = {t["topic_id"]: {doc: 1 for doc in t["reference_ids"]} for t in topics}
    run = {t["topic_id"]: {papers[(i * 7 + j * 13) % len(papers)]: float((j * 31) % 997) for j in range(1000)} for i, t in enumerate(topics)}
    return qrels, run


def retrieval_compared(repeat, peer, ours):
    peer_s, theirs = best_of(repeat, peer)
    ours_s, mine = best_of(repeat, ours)
    rows = {r["query"]: r["scores"] for r in mine["per_query"]}
    diff = max(abs(rows[q][o] - m[t]) for q, m in theirs.items() for t, o in RETRIEVAL_NAMES.items())
    return peer_s, ours_s, diff


def retrieval_case(shared, repeat):
    import pytrec_eval

    qrels, run = retrieval_inputs(shared)
    peer = lambda: pytrec_eval.RelevanceEvaluator(qrels, RETRIEVAL_MEASURES).evaluate(run)  # noqa: E731
    ours = lambda: litnav.score_retrieval(qrels, run, k=[10, 100], per_query=True)  # noqa: E731
    return ("score_retrieval vs pytrec_eval, 19 queries x 1,000 documents", *retrieval_compared(repeat, peer, ours))


def retrieval_files_case(shared, repeat):
    """The same judgments and run as TREC files: pytrec_eval's own parsers and evaluator against
    litnav reading the files natively."""
    import tempfile

    import pytrec_eval

    qrels, run = retrieval_inputs(shared)
    folder = pathlib.Path(tempfile.mkdtemp())
    qrels_file, run_file = folder / "qrels.txt", folder / "run.txt"
    qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_file.write_text("".join(f"{q} Q0 {d} {r} {s!r} x\n" for q, docs in run.items() for r, (d, s) in enumerate(docs.items(), 1)))

    def peer():
        with open(qrels_file) as q, open(run_file) as r:
            return pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(q), RETRIEVAL_MEASURES).evaluate(pytrec_eval.parse_run(r))

    ours = lambda: litnav.score_retrieval(qrels_file, run_file, k=[10, 100], per_query=True)  # noqa: E731
    return ("score_retrieval vs pytrec_eval, the same as TREC files", *retrieval_compared(repeat, peer, ours))


def clusters_inputs(shared):
    """Knowledge Navigator's pool on litbench (as `litnav bench clusters` builds it): up to 50 corpus
    papers each survey cites, papers two surveys cite left out, the survey as the gold cluster; the
    prediction is a deterministic assignment to as many clusters as surveys."""
    topics = [json.loads(line) for line in open(shared / "datasets/litbench/topics.jsonl", encoding="utf-8")]
    corpus = {json.loads(line)["id"] for line in open(shared / "datasets/litbench/corpus.jsonl", encoding="utf-8")}
    cited = {}
    for topic in topics:
        for paper in topic["reference_ids"]:
            cited.setdefault(paper, set()).add(topic["topic_id"])
    gold = {}
    for topic in topics:
        alone = [p for p in topic["reference_ids"] if p in corpus and len(cited[p]) == 1]
        gold.update({paper: topic["topic_id"] for paper in alone[:50]})
    predicted = {paper: f"c{(i * 7) % len(topics) if i % 3 else i % 5}" for i, paper in enumerate(sorted(gold))}
    return gold, predicted


def clusters_case(shared, repeat):
    """ARI and NMI against scikit-learn's (the Rc/Rv scores have no Python peer; the random
    baseline is off, as scikit-learn computes none)."""
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    gold, predicted = clusters_inputs(shared)
    papers = sorted(gold)

    def peer():
        truth, guess = [gold[p] for p in papers], [predicted[p] for p in papers]
        return {"ari": adjusted_rand_score(truth, guess), "nmi": normalized_mutual_info_score(truth, guess)}

    ours = lambda: litnav.score_clusters(gold, predicted, random_runs=0)["scores"]  # noqa: E731
    peer_s, theirs = best_of(repeat, peer)
    ours_s, mine = best_of(repeat, ours)
    diff = max(abs(mine[k] - v) for k, v in theirs.items())
    return f"score_clusters vs scikit-learn ARI + NMI, {len(gold)} papers", peer_s, ours_s, diff


SURVEY_METRICS = ["HIRC", "DSI", "FMI", "SCons"]


def survey_pairs(shared):
    """`litnav bench survey`'s pairs: each Bloom-Eval expert survey against itself, and cs_01's LLM
    survey against its expert one."""
    root = shared / "datasets/bloom-eval"
    experts = sorted(p / "human" for p in root.iterdir() if (p / "human/content.json").is_file())
    return [(e, e) for e in experts] + [(root / "cs_01/human", root / "cs_01/llm")]


def survey_case(shared, repeat):
    """Bloom-Eval's deterministic metrics through its scripts' own functions (imported, not run as
    programs) against `score_survey(..., compat="bloom-eval")`, every pair."""
    scripts = shared / "peers/bloom-eval/scripts"
    for level in ("", "level1", "level3", "level4"):
        sys.path.insert(0, str(scripts / level))
    import run_DSI
    import run_FMI
    import run_HIRC
    import run_SCons

    pairs = survey_pairs(shared)
    article = lambda folder: next((str(folder / n) for n in ("expert_article.json", "llm_article.json") if (folder / n).is_file()), None)  # noqa: E731

    def peer():
        values = []
        for expert, generated in pairs:
            hirc = run_HIRC.calculate_coverage(run_HIRC.load_references_from_file(str(expert / "reference.json")),
                                               run_HIRC.load_references_from_file(str(generated / "reference.json")))["metrics"]
            scons = run_SCons.calculate_granularity(run_SCons.parse_to_tree(run_SCons.load_outline(str(expert / "outline.json"))),
                                                    run_SCons.parse_to_tree(run_SCons.load_outline(str(generated / "outline.json"))))
            values.append({
                "HIRC.precision": hirc["precision"], "HIRC.recall": hirc["recall"], "HIRC.f1": hirc["f1_score"],
                "DSI.expert": run_DSI.get_dsi_score(str(expert / "content.json"))[0],
                "DSI.generated": run_DSI.get_dsi_score(str(generated / "content.json"))[0],
                "FMI.expert": run_FMI.get_fmi_score(str(expert / "content.json"), article(expert))[0],
                "FMI.generated": run_FMI.get_fmi_score(str(generated / "content.json"), article(generated))[0],
                "SCons.shape": scons["shape_consistency"], "SCons.depth": scons["depth_consistency"],
                "SCons.breadth": scons["breadth_consistency"],
            })
        return values

    def named(report):
        metric = {m["key"]: m for tier in report["tiers"] for m in tier["metrics"]}
        return {"HIRC.precision": metric["HIRC"]["precision"], "HIRC.recall": metric["HIRC"]["recall"], "HIRC.f1": metric["HIRC"]["f1"],
                "DSI.expert": metric["DSI"]["expert"], "DSI.generated": metric["DSI"]["generated"],
                "FMI.expert": metric["FMI"]["expert"], "FMI.generated": metric["FMI"]["generated"],
                "SCons.shape": metric["SCons"]["score"], "SCons.depth": metric["SCons"]["evidence"]["depth_consistency"],
                "SCons.breadth": metric["SCons"]["evidence"]["breadth_consistency"]}

    ours = lambda: [named(litnav.score_survey(e, g, SURVEY_METRICS, compat="bloom-eval", extras=False)) for e, g in pairs]  # noqa: E731
    peer_s, theirs = best_of(repeat, peer)
    ours_s, mine = best_of(repeat, ours)
    diff = max(abs(m[k] - t[k]) for m, t in zip(mine, theirs) for k in t)
    return f"score_survey vs Bloom-Eval's scripts (HIRC, DSI, FMI, SCons), {len(pairs)} pairs", peer_s, ours_s, diff


CASES = {"taxobench": taxobench_case, "cd": cd_case, "cd-numbered": cd_numbered_case,
         "retrieval": retrieval_case, "retrieval-files": retrieval_files_case,
         "clusters": clusters_case, "survey": survey_case}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parents[3] / "../shared")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--large", type=int, default=0, metavar="PAPERS",
                        help="also the CD index of a synthetic graph of this many papers (1000000: Paperscape's order)")
    parser.add_argument("--references", type=int, default=10, help="references per paper of the synthetic graph")
    parser.add_argument("--only", choices=sorted(CASES), action="append",
                        help="run only this case (repeatable; default: every case)")
    parser.add_argument("--sample-seconds", type=float, default=0.0, metavar="S",
                        help="time calls in loops that fill S seconds, a call's time their mean (default: one call a sample)")
    args = parser.parse_args()
    global SAMPLE_SECONDS
    SAMPLE_SECONDS = args.sample_seconds
    shared = args.shared.resolve()
    print(f"{'binding':<70} {'peer s':>9} {'litnav s':>9} {'speed-up':>9} {'largest difference':>19}", flush=True)
    cases = [lambda c=case: c(shared, args.repeat) for name, case in CASES.items() if name in (args.only or CASES)]
    if args.large:
        cases.append(lambda: cd_large_case(args.large, args.references))
    for case in cases:
        name, peer_s, ours_s, diff = case()
        print(f"{name:<70} {peer_s:>9.4g} {ours_s:>9.4g} {peer_s / ours_s:>8.1f}x {diff:>19.3g}", flush=True)


if __name__ == "__main__":
    main()
