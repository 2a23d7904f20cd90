"""Runs the public `taxobench` scorer (KongLongGeFDU/TaxoBench) unchanged, through its own
command-line entry point, on the job's files: its printed summary and per-survey rows are
returned with the time from reading the files to the summary (the interpreter and the package's
imports are excluded, as on litnav's side there is no start-up to exclude).

Job: {"package": DIR holding the `taxobench` package, "data", "predictions", "repeats"}."""

import contextlib
import io
import json
import os
import sys
import tempfile
import time

job = json.load(sys.stdin)
sys.path.insert(0, job["package"])
import sklearn  # noqa: E402
from taxobench import score  # noqa: E402

times = []
summary = None
rows = []
with tempfile.TemporaryDirectory() as scratch:
    per_survey = os.path.join(scratch, "per.jsonl")
    for _ in range(job["repeats"]):
        sys.argv = ["taxobench-score", "--data", job["data"], "--predictions", job["predictions"],
                    "--output", per_survey]
        printed = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(printed):
            score.main()
        times.append(time.perf_counter() - started)
        summary = json.loads(printed.getvalue())
    with open(per_survey, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]

times.sort()
print(json.dumps({
    "library": f"taxobench (public scorer), scikit-learn {sklearn.__version__}",
    "seconds": times[(len(times) - 1) // 2],
    "summary": summary,
    "rows": rows,
}))
