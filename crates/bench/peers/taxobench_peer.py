"""Python peer for `litnav bench eval --peer`: TaxoBench's metrics written from the seed paper's
definitions (the way a researcher would script them: sentence-transformers, scikit-learn, SciPy,
difflib), timed on the same files in the same command. Reads a JSON job on stdin, prints a JSON
report on stdout. Labels are embedded once per run (a fair, cached implementation)."""

import difflib
import json
import re
import sys
import time


def main() -> None:
    job = json.load(sys.stdin)
    runs = []
    for _ in range(job["repeats"]):
        started = time.perf_counter()
        summary = score(job)
        runs.append(time.perf_counter() - started)
    runs.sort()
    import sentence_transformers
    import sklearn
    json.dump({"library": f"sentence-transformers {sentence_transformers.__version__}, scikit-learn {sklearn.__version__}",
               "seconds": runs[len(runs) // 2], "summary": summary}, sys.stdout)


def score(job):
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    from sentence_transformers import SentenceTransformer
    from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure

    model = SentenceTransformer(job["model"], device="cpu")
    gold = {str(d["id"]): d["gt"] for d in map(json.loads, open(job["data"]))}
    pred = {str(p["id"]): p["hierarchy_tree"] for p in map(json.loads, open(job["predictions"]))}
    ids = [i for i in gold if i in pred]

    def labels(node, out):
        out.append(node.get("name") or "")
        for child in node.get("subtopics") or []:
            labels(child, out)
        return out

    all_labels = sorted({l for i in ids for t in (gold[i], pred[i]) for l in labels(t, [])})
    vectors = model.encode(all_labels, normalize_embeddings=True)
    index = {l: k for k, l in enumerate(all_labels)}
    sims = np.clip(vectors @ vectors.T, 0, None)
    sim = lambda a, b: float(sims[index[a], index[b]])

    def norm(t):
        return " ".join(re.sub(r"[^\w]", " ", t.lower()).split())

    def papers(node, chain, out, pos):
        here = pos[0]
        pos[0] += 1
        chain = chain + [node.get("name") or ""]
        for p in node.get("papers") or []:
            title = p if isinstance(p, str) else p["title"]
            out.append((title, here, chain))
        for child in node.get("subtopics") or []:
            papers(child, chain, out, pos)
        return out

    def size(node):
        return 1 + sum(size(c) for c in node.get("subtopics") or [])

    def ted(u, v):
        cost = 1 - sim(u.get("name") or "", v.get("name") or "")
        cu, cv = u.get("subtopics") or [], v.get("subtopics") or []
        k = max(len(cu), len(cv))
        if k == 0:
            return cost
        c = np.zeros((k, k))
        for i in range(k):
            for j in range(k):
                if i < len(cu) and j < len(cv):
                    c[i, j] = ted(cu[i], cv[j])
                elif i < len(cu):
                    c[i, j] = size(cu[i])
                elif j < len(cv):
                    c[i, j] = size(cv[j])
        r, s = linear_sum_assignment(c)
        return cost + c[r, s].sum()

    def chain_cost(a, b):
        if len(a) > len(b):
            a, b = b, a
        p, q = len(a), len(b)
        d = np.full((p + 1, q + 1), np.inf)
        d[0, :] = 0
        for i in range(1, p + 1):
            for j in range(i, q + 1):
                d[i, j] = min(d[i - 1, j - 1] + 1 - sim(a[i - 1], b[j - 1]), d[i, j - 1])
        return d[p, q] + (q - p)

    def soft_card(ls):
        return sum(1 / sum(sim(a, b) for b in ls) for a in ls)

    keys = ["leaf_ari", "leaf_v_measure", "leaf_homogeneity", "leaf_completeness", "sem_path", "retrieval_recall",
            "retrieval_precision", "retrieval_f1", "leaf_ari_cap", "us_ted", "us_nted", "nsr", "nsp", "soft_f1"]
    totals = {k: 0.0 for k in keys}
    for i in ids:
        gp, pp = papers(gold[i], [], [], [0]), papers(pred[i], [], [], [0])
        seen = set()
        gp_unique = [x for x in gp if not (norm(x[0]) in seen or seen.add(norm(x[0])))]
        seen = set()
        pp_unique = [x for x in pp if not (norm(x[0]) in seen or seen.add(norm(x[0])))]
        taken, align = set(), []
        for title, _, _ in gp_unique:
            n, best = norm(title), None
            for j, (ptitle, _, _) in enumerate(pp_unique):
                if j in taken:
                    continue
                m = norm(ptitle)
                s = 1.0 if (n == m or n in m or m in n) else difflib.SequenceMatcher(None, n, m).ratio()
                if best is None or s > best[1]:
                    best = (j, s)
            if best and best[1] >= 0.92:
                taken.add(best[0])
                align.append(best[0])
            else:
                align.append(None)
        truth = [x[1] for x in gp_unique]
        e2e = [pp_unique[a][1] if a is not None else -1 for a in align]
        h, c, v = homogeneity_completeness_v_measure(truth, e2e)
        cap = [k for k, a in enumerate(align) if a is not None]
        n_al = len(cap)
        rec, prec = n_al / len(gp_unique), n_al / len(pp_unique)
        chains_g, chains_p = {}, {}
        for t, _, ch in gp:
            chains_g.setdefault(norm(t), []).append(ch)
        for t, _, ch in pp:
            chains_p.setdefault(norm(t), []).append(ch)
        sem = [1 / (1 + min(chain_cost(a, b) for a in chains_g[norm(gp_unique[k][0])] for b in chains_p[norm(pp_unique[align[k]][0])])) for k in cap]
        la, lb = labels(gold[i], []), labels(pred[i], [])
        ca, cb, cu = soft_card(la), soft_card(lb), soft_card(la + lb)
        nsr, nsp = (ca + cb - cu) / ca, (ca + cb - cu) / cb
        t = ted(gold[i], pred[i])
        values = {"leaf_ari": adjusted_rand_score(truth, e2e), "leaf_v_measure": v, "leaf_homogeneity": h,
                  "leaf_completeness": c, "sem_path": sum(sem) / len(sem), "retrieval_recall": rec,
                  "retrieval_precision": prec, "retrieval_f1": 2 * rec * prec / (rec + prec),
                  "leaf_ari_cap": adjusted_rand_score([truth[k] for k in cap], [e2e[k] for k in cap]),
                  "us_ted": t, "us_nted": t / (size(gold[i]) + size(pred[i])), "nsr": nsr, "nsp": nsp,
                  "soft_f1": 2 * nsr * nsp / (nsr + nsp)}
        for k in keys:
            totals[k] += values[k]
    return {k: totals[k] / len(ids) for k in keys}


if __name__ == "__main__":
    main()
