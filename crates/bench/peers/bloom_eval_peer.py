"""Runner for `litnav bench survey --peer`: Bloom-Eval's own scripts (feizhang18/Bloom-Eval,
`scripts/level*/run_*.py`, the copy in ../shared/peers/bloom-eval), each run as its command line
runs it, on the same survey pairs litnav scores, timed per pair. Reads a JSON job on stdin, prints
a JSON report on stdout.

STS imports sentence-transformers for all-MiniLM-L6-v2; PyTorch cannot be installed on these
machines, so a stand-in `sentence_transformers` module (written here, on the script's path only)
serves the same model's vectors as litnav computed them (litnav's encoder equals
sentence-transformers to 3e-7; `litnav bench embed` checks it). The tree edit distance and the
score formula are the script's own."""

import json
import os
import subprocess
import sys
import tempfile
import time

SHIM = '''
import json, os
import numpy as np
_VECTORS = json.load(open(os.environ["LITNAV_VECTORS"]))
class _Scalar(float):
    def item(self):
        return float(self)
class SentenceTransformer:
    def __init__(self, *args, **kwargs):
        pass
    def encode(self, text, convert_to_tensor=False, **kwargs):
        return np.array(_VECTORS[text], dtype=np.float32)
class util:
    @staticmethod
    def cos_sim(a, b):
        return _Scalar(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
'''


def run(python, script, args, env, scratch):
    out = tempfile.mkdtemp(dir=scratch)
    started = time.perf_counter()
    done = subprocess.run([python, script, *args, "--output_dir", out], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{os.path.basename(script)} failed: {done.stderr.strip().splitlines()[-1:]}")
    with open(os.path.join(out, "result.json"), encoding="utf-8") as f:
        return json.load(f)["results"], seconds


def main() -> None:
    job = json.load(sys.stdin)
    root = job["bloom_eval"]
    scripts = os.path.join(root, "scripts")
    python = sys.executable
    scratch = tempfile.mkdtemp()
    shim_dir = os.path.join(scratch, "shim", "sentence_transformers")
    os.makedirs(shim_dir)
    with open(os.path.join(shim_dir, "__init__.py"), "w") as f:
        f.write(SHIM)
    sts_env = dict(os.environ, PYTHONPATH=os.path.dirname(shim_dir), LITNAV_VECTORS=job["vectors"])
    env = dict(os.environ)
    pairs = []
    for pair in job["pairs"]:
        h, g = pair["expert"], pair["generated"]
        seconds = 0.0
        results = {}
        for name, script, args, script_env in [
            ("HIRC", "level1/run_HIRC.py", ["--reference_file_human", f"{h}/reference.json", "--reference_file_llm", f"{g}/reference.json"], env),
            ("DSI", "level3/run_DSI.py", ["--content_file_human", f"{h}/content.json", "--content_file_llm", f"{g}/content.json"], env),
            ("FMI", "level3/run_FMI.py", ["--content_file_human", f"{h}/content.json", "--content_file_llm", f"{g}/content.json",
                                         "--article_file_human", pair["expert_article"], "--article_file_llm", pair["generated_article"]], env),
            ("SCons", "level4/run_SCons.py", ["--outline_file_human", f"{h}/outline.json", "--outline_file_llm", f"{g}/outline.json"], env),
            ("STS", "level4/run_STS.py", ["--outline_file_human", f"{h}/outline.json", "--outline_file_llm", f"{g}/outline.json"], sts_env),
        ]:
            values, took = run(python, os.path.join(scripts, script), args, script_env, scratch)
            results[name] = values
            seconds += took
        pairs.append({"id": pair["id"], "seconds": seconds, "results": results})
    json.dump({"pairs": pairs}, sys.stdout)


main()
