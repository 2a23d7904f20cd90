"""TaxoBench and retrieval scoring from Python, against the CLI's JSON and the field's own packages."""

import json
import math
import sys

import pytest

import litnav


def public_taxobench(peers, data_path, predictions_path, threshold=0.92):
    """The public taxobench scorer's summary and rows, computed in this process by its own functions."""
    sys.path.insert(0, str(peers / "taxobench"))
    try:
        from taxobench.metrics.clustering import clustering_metrics
        from taxobench.metrics.retrieval import retrieval_metrics
        from taxobench.metrics.sem_path import sem_path_score
        from taxobench.metrics.tree import extract_papers
    finally:
        sys.path.pop(0)
    load = lambda path: [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    predictions = {row["id"]: row for row in load(predictions_path)}
    rows = []
    for reference in load(data_path):
        prediction = predictions.get(reference["id"])
        if prediction is None:
            continue
        tree = prediction.get("hierarchy_tree") or prediction.get("tree")
        row = {"id": reference["id"]}
        row.update({f"leaf_{k}": v for k, v in clustering_metrics(reference["gt"], tree, threshold=threshold).items()})
        row.update({f"sem_path_{k}": v for k, v in sem_path_score(reference["gt"], tree, threshold=threshold).items()})
        retrieved = prediction.get("retrieved_papers") or extract_papers(tree)
        scores = retrieval_metrics(extract_papers(reference["gt"]), retrieved, threshold=threshold)
        row.update({f"retrieval_{k}": v for k, v in scores.items()})
        rows.append(row)
    mean = lambda key: sum(float(r[key]) for r in rows) / len(rows)
    summary = {key: mean(key) for key in ("leaf_ari", "leaf_v_measure", "leaf_homogeneity", "leaf_completeness",
                                          "retrieval_recall", "retrieval_precision", "retrieval_f1")}
    summary["sem_path"] = mean("sem_path_sem_path")
    return summary, rows


def test_taxobench_public_equals_the_public_scorer_to_the_last_digit(datasets, peers):
    data = datasets / "taxobench" / "data.jsonl"
    predictions = datasets / "taxobench" / "predictions_example.jsonl"
    scored = litnav.score_taxobench(predictions, data, similarity="public")
    summary, rows = public_taxobench(peers, data, predictions)
    assert scored["summary"]["n_scored"] == len(rows) == 5
    for key, value in summary.items():
        assert scored["summary"][key] == value, key
    by_id = {str(row["id"]): row for row in scored["per_instance"]}
    names = {"leaf_ari": "ari", "leaf_v_measure": "v_measure", "leaf_homogeneity": "homogeneity",
             "leaf_completeness": "completeness", "sem_path_sem_path": "sem_path", "retrieval_recall": "recall",
             "retrieval_precision": "precision", "retrieval_f1": "f1"}
    for row in rows:
        for theirs, ours in names.items():
            assert by_id[str(row["id"])][ours] == row[theirs], (row["id"], ours, row[theirs])


@pytest.mark.parametrize("similarity", ["public", "string", "embedding"])
def test_taxobench_equals_the_cli_and_parsed_lines_equal_paths(datasets, cli, similarity):
    data = datasets / "taxobench" / "data.jsonl"
    predictions = datasets / "taxobench" / "predictions_example.jsonl"
    from_paths = litnav.score_taxobench(str(predictions), str(data), similarity=similarity)
    parsed = lambda path: [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    from_lines = litnav.score_taxobench(parsed(predictions), parsed(data), similarity=similarity)
    assert from_paths["summary"] == from_lines["summary"]
    assert from_paths["per_instance"] == from_lines["per_instance"]
    printed = cli("eval", "taxobench", "--data", str(data), "--predictions", str(predictions),
                  "--similarity", similarity, "--json")
    assert from_paths["summary"] == printed


def test_taxobench_rows_feed_a_table_and_bad_lines_are_named(datasets):
    data = datasets / "taxobench" / "data.jsonl"
    lines = [json.loads(line) for line in open(data, encoding="utf-8") if line.strip()]
    predictions = [{"id": line["id"], "hierarchy_tree": line["gt"]} for line in lines]
    predictions[1] = {"id": lines[1]["id"]}
    scored = litnav.score_taxobench(predictions, lines, similarity="public")
    assert scored["summary"]["n_scored"] == 4
    assert any("predictions:2" in problem for problem in scored["problems"]), scored["problems"]
    assert all(row["ari"] == 1.0 for row in scored["per_instance"])
    with pytest.raises(litnav.InputError, match=r"predictions\[0\]"):
        litnav.score_taxobench(["not a line"], lines)
    with pytest.raises(litnav.InputError, match="similarity"):
        litnav.score_taxobench(predictions, lines, similarity="cosine")
    with pytest.raises(litnav.InputError, match="threshold"):
        litnav.score_taxobench(predictions, lines, threshold=float("nan"))
    with pytest.raises(litnav.NotFoundError):
        litnav.score_taxobench("/nonexistent/predictions.jsonl", lines)


def test_retrieval_equals_pytrec_eval(datasets, tmp_path):
    import pytrec_eval

    topics = [json.loads(line) for line in open(datasets / "litbench" / "topics.jsonl", encoding="utf-8")]
    papers = [json.loads(line)["id"] for line in open(datasets / "litbench" / "corpus.jsonl", encoding="utf-8")]
    qrels = {t["topic_id"]: {doc: 1 for doc in t["reference_ids"]} for t in topics}
    # A deterministic run with ties: every topic ranks a stride of the corpus with repeated scores.
    run = {t["topic_id"]: {papers[(i * 7 + j * 13) % len(papers)]: float((j * 31) % 50) for j in range(400)}
           for i, t in enumerate(topics)}
    # At a cut-off of 1 most topics hold no relevant document there: the first relevant one is
    # found beyond it (looked up from the judgments' side, ranked by counting, ties by id).
    first = litnav.score_retrieval(qrels, run, k=[1], per_query=True)
    at_one = pytrec_eval.RelevanceEvaluator(qrels, {"P.1", "recip_rank"}).evaluate(run)
    assert sum(m["P_1"] == 0.0 for m in at_one.values()) > len(at_one) // 2
    for row in first["per_query"]:
        assert row["scores"]["mrr"] == at_one[row["query"]]["recip_rank"], row["query"]
        assert row["scores"]["precision@1"] == at_one[row["query"]]["P_1"], row["query"]
    for query, docs in zip(qrels, run.values()):
        for doc in list(qrels[query])[:20]:
            docs[doc] = 60.0
    ours = litnav.score_retrieval(qrels, run, k=[10, 100], per_query=True)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"recall.10,100", "P.10,100", "ndcg_cut.10,100", "recip_rank"})
    theirs = evaluator.evaluate(run)
    names = {"recall_10": "recall@10", "recall_100": "recall@100", "P_10": "precision@10", "P_100": "precision@100",
             "ndcg_cut_10": "ndcg@10", "ndcg_cut_100": "ndcg@100", "recip_rank": "mrr"}
    rows = {row["query"]: row["scores"] for row in ours["per_query"]}
    for query, measures in theirs.items():
        for theirs_name, ours_name in names.items():
            assert math.isclose(rows[query][ours_name], measures[theirs_name], abs_tol=1e-12), (query, ours_name)
    with pytest.raises(litnav.InputError, match=r"run\['cs_01'\]"):
        litnav.score_retrieval(qrels, {"cs_01": {"p1": "high"}})
    # Dicts the module does not read in place (NumPy floats, a str subclass) are converted first:
    # the same answer.
    import numpy as np

    class Id(str):
        pass

    converted = {q: {Id(d): np.float64(s) for d, s in docs.items()} for q, docs in run.items()}
    assert litnav.score_retrieval(qrels, converted, k=[10, 100], per_query=True) == ours
    # The same judgments and run as TREC files, read natively and by pytrec_eval's own parsers.
    qrels_file, run_file = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_file.write_text("".join(f"{q} Q0 {d} {rank} {score!r} x\n" for q, docs in run.items()
                                for rank, (d, score) in enumerate(docs.items(), 1)))
    assert litnav.score_retrieval(qrels_file, run_file, k=[10, 100], per_query=True) == ours
    with open(qrels_file) as q, open(run_file) as r:
        assert pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(q), {"recip_rank"}).evaluate(
            pytrec_eval.parse_run(r)) == {query: {"recip_rank": m["recip_rank"]} for query, m in theirs.items()}
    with pytest.raises(litnav.InputError, match="two files or two mappings"):
        litnav.score_retrieval(qrels_file, run)


@pytest.mark.parametrize("similarity", ["string", "embedding"])
def test_tree_scores_equal_the_cli_from_paths_and_from_dicts(datasets, cli, tmp_path, similarity):
    lines = [json.loads(line) for line in open(datasets / "taxobench" / "data.jsonl", encoding="utf-8")]
    predictions = [json.loads(line) for line in open(datasets / "taxobench" / "predictions_example.jsonl", encoding="utf-8")]
    reference, prediction = lines[0]["gt"], predictions[0]["hierarchy_tree"]
    (tmp_path / "reference.json").write_text(json.dumps(reference), encoding="utf-8")
    (tmp_path / "prediction.json").write_text(json.dumps(predictions[0]), encoding="utf-8")
    from_dicts = litnav.score_tree(reference, prediction, similarity=similarity)
    from_paths = litnav.score_tree(tmp_path / "reference.json", tmp_path / "prediction.json", similarity=similarity)
    assert from_dicts == from_paths
    printed = cli("eval", "tree", "--reference", str(tmp_path / "reference.json"),
                  "--prediction", str(tmp_path / "prediction.json"), "--similarity", similarity, "--json")
    assert from_dicts == printed
    assert from_dicts["nsr"] > 0.0  # soft cardinalities are not a measure: NSR may pass 1
    with pytest.raises(litnav.InputError, match="prediction"):
        litnav.score_tree(reference, {"name": 3})
    with pytest.raises(litnav.InputError, match="tsd_threshold"):
        litnav.score_tree(reference, prediction, tsd_threshold=None)


def test_retrieval_reads_ids_that_are_not_str_by_their_str():
    # The fast path reads dicts of str; other keys are named as str() names them, so 1 and "1" meet.
    report = litnav.score_retrieval({"q1": {1: 1, 2: 1}}, {"q1": {"1": 2.0, "3": 1.0}}, k=[2])
    assert report["mean"]["recall@2"] == 0.5
    assert report == litnav.score_retrieval({"q1": {"1": 1, "2": 1}}, {"q1": {"1": 2.0, "3": 1.0}}, k=[2])


def test_retrieval_refuses_what_is_not_a_number_and_reads_large_ints():
    with pytest.raises(litnav.InputError, match=r"run\['q1'\]\['d1'\]"):
        litnav.score_retrieval({"q1": {"d1": 1}}, {"q1": {"d1": True}})
    report = litnav.score_retrieval({"q1": {"d1": 1}}, {"q1": {"d1": 10**30, "d2": 2}}, k=[1])
    assert report["mean"]["recall@1"] == 1.0
    with pytest.raises(litnav.InputError, match=r"run\['q1'\]\['d1'\]: an int too large"):
        litnav.score_retrieval({"q1": {"d1": 1}}, {"q1": {"d1": 10**400}})


def test_retrieval_refuses_nan_naming_the_query_and_document():
    with pytest.raises(litnav.InputError, match=r"run\['q1'\]\['d2'\]"):
        litnav.score_retrieval({"q1": {"d1": 1}}, {"q1": {"d1": 2.0, "d2": float("nan")}})
    with pytest.raises(litnav.InputError, match=r"qrels\['q1'\]\['d1'\]"):
        litnav.score_retrieval({"q1": {"d1": float("nan")}}, {"q1": {"d1": 2.0}})
    with pytest.raises(litnav.InputError, match=r"run\['q9'\]\['d1'\]"):
        litnav.score_retrieval({"q1": {"d1": 1}}, {"q1": {"d1": 2.0}, "q9": {"d1": float("nan")}})


def test_clusters_equal_scikit_learn_and_the_cli(datasets, cli, tmp_path):
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    rows = [json.loads(line) for line in open(datasets / "litbench" / "assignments.jsonl", encoding="utf-8")]
    gold = {}
    for row in rows:
        if row.get("primary") and row["topic_id"] == "cs_07":
            gold.setdefault(row["paper_id"], row["section_path"][0])
    assert len(gold) > 100, "cs_07's papers have primary sections"
    papers = sorted(gold)
    predicted = {paper: str(i % 7) for i, paper in enumerate(papers)}
    scored = litnav.score_clusters(gold, predicted)
    truth, guess = [gold[p] for p in papers], [predicted[p] for p in papers]
    # To the last bit: scikit-learn's order of operations.
    assert scored["scores"]["ari"] == adjusted_rand_score(truth, guess)
    assert scored["scores"]["nmi"] == normalized_mutual_info_score(truth, guess)
    for name, clustering in (("gold", gold), ("predicted", predicted)):
        with open(tmp_path / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for paper, cluster in clustering.items():
                handle.write(json.dumps({"id": paper, "cluster": cluster}) + "\n")
    printed = cli("eval", "clusters", "--gold", str(tmp_path / "gold.jsonl"),
                  "--predicted", str(tmp_path / "predicted.jsonl"), "--json")
    from_paths = litnav.score_clusters(tmp_path / "gold.jsonl", tmp_path / "predicted.jsonl")
    assert from_paths == printed
    assert {k: v for k, v in scored.items() if k != "problems"} == {k: v for k, v in printed.items() if k != "problems"}
    with pytest.raises(litnav.InputError, match=r"predicted\[1\]: expected a \(document, cluster\) pair"):
        litnav.score_clusters(gold, [("a", "1"), ("b",)])
    with pytest.raises(litnav.InputError, match=r"gold\['b'\]: a cluster is a string or a whole number, not 1.5"):
        litnav.score_clusters({"a": 1, "b": 1.5}, {"a": 1})
    with pytest.raises(litnav.InputError, match=r"gold\['a'\]: an empty list of clusters"):
        litnav.score_clusters({"a": []}, {"a": 1})
    with pytest.raises(litnav.InputError, match=r"predicted\['a'\]: a cluster is a string or a whole number, not True"):
        litnav.score_clusters({"a": 1}, {"a": True})
    with pytest.raises(litnav.InputError, match="share no document"):
        litnav.score_clusters({"a": 1}, {"b": 1})


def test_clusters_of_numbers_equal_scikit_learn_in_every_form():
    """Whole-number clusters are ordered by value, as numpy orders them (with 40 clusters "10"
    sorts before "9" as text, which changes the order of the sums); NumPy integers, pairs and lists
    of clusters give the same answer as plain dicts; random_runs=0 leaves the baseline out."""
    import numpy as np
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    documents = [f"d{i:04d}" for i in range(2000)]
    truth = [(i * 7919 + 6) % 37 for i in range(2000)]
    guess = [((i * 104729 * 6) % 41 + (i % 3)) % 40 for i in range(2000)]
    gold, predicted = dict(zip(documents, truth)), dict(zip(documents, guess))
    scored = litnav.score_clusters(gold, predicted, random_runs=0)
    assert scored["scores"]["ari"] == adjusted_rand_score(truth, guess)
    assert scored["scores"]["nmi"] == normalized_mutual_info_score(truth, guess)
    # These labels were chosen so that text order gives another last bit (…533 instead of …53).
    as_text = normalized_mutual_info_score([str(t) for t in truth], [str(g) for g in guess])
    assert as_text != scored["scores"]["nmi"]
    texts = litnav.score_clusters({d: str(c) for d, c in gold.items()}, {d: str(c) for d, c in predicted.items()}, random_runs=0)
    assert texts["scores"]["nmi"] == as_text
    assert scored["random"] is None
    as_numpy = {d: np.int64(c) for d, c in predicted.items()}
    as_pairs = list(zip(documents, guess))
    as_lists = {d: [c] for d, c in predicted.items()}
    for other in (as_numpy, as_pairs, as_lists):
        assert litnav.score_clusters(gold, other, random_runs=0) == scored
    # The baseline deals documents in id order whatever order the dict has.
    shuffled = dict(sorted(predicted.items(), key=lambda item: item[0][::-1]))
    assert litnav.score_clusters(gold, shuffled) == litnav.score_clusters(gold, predicted)


@pytest.mark.parametrize("compat", ["seed", "bloom-eval"])
def test_survey_metrics_equal_the_cli(datasets, cli, compat):
    expert = datasets / "bloom-eval" / "cs_01" / "human"
    generated = datasets / "bloom-eval" / "cs_01" / "llm"
    metrics = ["HIRC", "TBal", "FMI", "DSI", "SCons"]
    scored = litnav.score_survey(expert, generated, metrics, compat=compat)
    printed = cli("eval", "survey", "--expert", str(expert), "--generated", str(generated),
                  "--metrics", ",".join(metrics), "--compat", compat, "--json")
    assert scored == printed
    ran = [m for tier in scored["tiers"] for m in tier["metrics"] if m.get("score") is not None]
    assert len(ran) >= 4, scored["tiers"]
    with pytest.raises(litnav.InputError, match="XYZ"):
        litnav.score_survey(expert, generated, ["XYZ"])
    with pytest.raises(litnav.InputError, match="compat"):
        litnav.score_survey(expert, generated, metrics, compat="scripts")


def test_check_tree_equals_eval_tree_without_a_reference(cli, datasets, tmp_path):
    line = json.loads(open(datasets / "taxobench" / "data.jsonl", encoding="utf-8").readline())
    saved = tmp_path / "expert.json"
    saved.write_text(json.dumps(line["gt"]), encoding="utf-8")
    checks = litnav.check_tree(line["gt"])
    assert checks == cli("eval", "tree", "--prediction", str(saved), "--json")["checks"]
    assert checks == litnav.check_tree(saved)
    assert checks["entailment_by"].startswith("offline") and checks["nodes"] > 3
    # Every problem says what, where and why; what it involves (`other`, `papers`) when anything.
    required, optional = {"kind", "node", "name", "reason"}, {"other", "papers"}
    assert all(required <= set(problem) <= required | optional for problem in checks["problems"])
    with pytest.raises(litnav.InputError, match="tree"):
        litnav.check_tree(["not", "a", "tree"])
