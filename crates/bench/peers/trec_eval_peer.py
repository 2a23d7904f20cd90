"""litnav bench researcharena: trec_eval itself (PyPI `pytrec-eval-terrier`) on litnav's files.

Job on stdin: {"qrels": path, "dir": directory, "runs": [name, ...]} where each run is
DIR/NAME.run in TREC format. Report on stdout: the seconds spent reading the files and
evaluating every run (interpreter start-up excluded), and per run, per topic, the measures
recall_10/100, P_10/100, ndcg_cut_10/30/100 and recip_rank.
"""
import json
import os
import sys
import time

try:
    import pytrec_eval
except ImportError:
    sys.exit("pytrec_eval is not installed (pip install pytrec-eval-terrier)")

MEASURES = {"recall.10,100", "P.10,100", "ndcg_cut.10,30,100", "recip_rank"}


def read_qrels(path):
    qrels = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 4:
                qrels.setdefault(fields[0], {})[fields[2]] = int(float(fields[3]))
    return qrels


def read_run(path):
    run = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6:
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return run


def main():
    job = json.load(sys.stdin)
    started = time.perf_counter()
    qrels = read_qrels(job["qrels"])
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, MEASURES)
    results = {}
    for name in job["runs"]:
        run = read_run(os.path.join(job["dir"], name + ".run"))
        results[name] = evaluator.evaluate(run)
    seconds = time.perf_counter() - started
    json.dump({"seconds": seconds, "runs": results}, sys.stdout)


if __name__ == "__main__":
    main()
