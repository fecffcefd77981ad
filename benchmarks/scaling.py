"""`python -m benchmarks.scaling [RESULTS.json]`: the model of docs/scaling.md, fitted to a
`dask_bpr` run (default: benchmarks/results/latest.json), printed as the markdown tables the
document shows.

The model of one epoch of `jd.fit` with N replicas (one per machine or worker process) and R
rounds per epoch, on n samples of per-sample CPU cost s and P bytes of parameters:

    T(N, R) = n s / min(N, K)  +  R (a + c N + b B),     B = 2 N P bytes moved per round

-- the compute, split N ways over K cores (K = N for N machines), plus per round a fixed cost
a (a scatter, a gather, the client's bookkeeping), a cost per task c (scheduling one more
replica's task, its result) and a cost per byte b (serialising, sending and receiving the
parameters: one copy to each of N workers, one back from each). s comes from the 1-process
`jitad.fit`, a, b, c from rounds with (almost) no compute (`round_costs`), by non-negative
least squares. With the held-out AUC after each epoch, the time to reach an AUC is the
epochs it took times the epoch's time, measured and modelled.
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path=None):
    path = path or os.path.join(HERE, "results", "latest.json")
    with open(path) as fh:
        d = json.load(fh)
    return d["workloads"]["dask_bpr"]


def fit_round_costs(w):
    """(a, c, b) of `overhead = a + c N + b B` from the round-cost probes, and the points."""
    pts = [(int(n), p["bytes"], p["round_s"]) for n, ps in w["round_costs"].items() for p in ps]
    from scipy.optimize import nnls
    A = np.array([[1.0, n, b] for n, b, _ in pts])
    y = np.array([t for _, _, t in pts])
    (a, c, b), _ = nnls(A, y)        # costs are not negative
    return float(a), float(c), float(b), pts


def model(w, cores=2):
    a, c, b, pts = fit_round_costs(w)
    ref = w["runs"]["1 process"]
    n = ref["samples"]
    s = float(np.median(ref["seconds"][1:])) / n
    P = next(r["param_bytes"] for r in w["runs"].values() if "param_bytes" in r)

    def epoch(N, R, K=None, p_bytes=P, moved=None):
        """`moved`: the bytes a round moves, when measured (the replicas send back only the
        rows they changed); else 2 N P."""
        K = N if K is None else K
        return n * s / min(N, K) + R * (a + c * N + b * (2 * N * p_bytes if moved is None else moved))
    return {"a": a, "b": b, "c": c, "s": s, "n": n, "P": P, "points": pts, "epoch": epoch,
            "t1": float(np.median(ref["seconds"][1:])), "cores": cores}


def tables(w):
    m = model(w)
    out = []
    out.append(f"Fitted: per-sample compute s = {m['s'] * 1e9:.0f} ns (1-process jitad.fit, "
               f"{m['n']:,} samples: {m['t1']:.3f} s per epoch); per round a = "
               f"{m['a'] * 1e3:.1f} ms + c = {m['c'] * 1e3:.1f} ms per replica + b = "
               f"{m['b'] * 1e9:.2f} ns per byte moved ({1 / m['b'] / 1e9 if m['b'] > 0 else float('inf'):.2f} GB/s); "
               f"P = {m['P'] / 1e6:.2f} MB of parameters.")
    out.append("")
    out.append("Round costs with almost no compute (probes) against the fit:")
    out.append("")
    out.append("| workers | MB moved per round | measured | model |")
    out.append("|---|---|---|---|")
    for N, B, t in m["points"]:
        out.append(f"| {N} | {B / 1e6:.1f} | {t * 1e3:.1f} ms | "
                   f"{(m['a'] + m['c'] * N + m['b'] * B) * 1e3:.1f} ms |")
    out.append("")
    out.append("Epochs of the BPR runs against the model (K = 2 cores):")
    out.append("")
    out.append("| run | compute per round: wall / CPU (slowest replica) | rest of the round | "
               "MB received per round | epoch measured | epoch model | AUC after 10 |")
    out.append("|---|---|---|---|---|---|---|")
    for name, r in w["runs"].items():
        if name == "1 process":
            out.append(f"| {name} | | | | {m['t1']:.3f} s | {m['t1']:.3f} s | {r['auc']:.4f} |")
            continue
        N, R = r["workers"], r["rounds_per_epoch"]
        meas = float(np.median(r["seconds"][1:]))
        out.append(f"| {name} | {r['compute_s'] * 1e3:.0f} / {r['cpu_s'] * 1e3:.0f} ms | "
                   f"{r['overhead_s'] * 1e3:.1f} ms | "
                   f"{r['bytes_received'] / 1e6 if 'bytes_received' in r else N * m['P'] / 1e6:.2f} | "
                   f"{meas:.3f} s | "
                   f"{m['epoch'](N, R, K=m['cores'], moved=r.get('bytes')):.3f} s | {r['auc']:.4f} |")
    out.append("")
    out.append("The model for N machines (K = N), this workload's n, s and P:")
    out.append("")
    Ns = (1, 2, 4, 8, 16, 32)
    Rs = (1, 4, 16, 64)
    out.append("| rounds per epoch | " + " | ".join(f"N = {N}" for N in Ns) + " |")
    out.append("|---|" + "---|" * len(Ns))
    for R in Rs:
        out.append(f"| {R} | " + " | ".join(
            f"{m['epoch'](N, R):.3f} s ({m['t1'] / m['epoch'](N, R):.1f}×)" for N in Ns) + " |")
    out.append("")
    out.append("Break-even: the most rounds per epoch at which N machines still beat one process, "
               "R* = (T1 - n s / N) / (a + c N + 2 b N P):")
    out.append("")
    out.append("| N | " + " | ".join(str(N) for N in Ns[1:]) + " |")
    out.append("|---|" + "---|" * (len(Ns) - 1))
    rstar = []
    for N in Ns[1:]:
        per = m["a"] + m["c"] * N + m["b"] * 2 * N * m["P"]
        rstar.append(max(0.0, (m["t1"] - m["n"] * m["s"] / N) / per))
    out.append("| R* | " + " | ".join(f"{x:.1f}" for x in rstar) + " |")
    out.append("")
    ref_auc = w["runs"]["1 process"]["aucs"]
    targets = [round(ref_auc[-1] - 0.015, 2), round(ref_auc[-1] - 0.005, 3)]
    out.append("Time to a held-out AUC: epochs needed (of 10) x seconds per epoch, measured here "
               "(K = 2 cores, shared) and modelled for N machines:")
    out.append("")
    out.append("| run | " + " | ".join(f"AUC ≥ {t}: epochs, measured, N machines" for t in targets) + " |")
    out.append("|---|" + "---|" * len(targets))
    for name, r in w["runs"].items():
        cells = []
        meas = float(np.median(r["seconds"][1:]))
        mod = m["t1"] if name == "1 process" else m["epoch"](r["workers"], r["rounds_per_epoch"],
                                                             moved=r.get("bytes"))
        for t in targets:
            e = next((k + 1 for k, a in enumerate(r["aucs"]) if a >= t), None)
            cells.append("not reached" if e is None else f"{e}, {e * meas:.1f} s, {e * mod:.1f} s")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def rows_table(w):
    """Per jd.fit run: which rows the replicas changed in the last round, what came back, the
    AUC (runs recorded since jd.fit averages row by row; empty for older ones)."""
    runs = {k: r for k, r in w["runs"].items() if "rows_changed" in r}
    if not runs:
        return ""
    ref = w["runs"]["1 process"]["auc"]
    out = ["Rows the replicas changed in the last round (U's rows, then V's: by every replica / "
           "by some / by none), what they sent back, and the held-out AUC after 10 epochs "
           f"(one process: {ref:.4f}):", "",
           "| run | U rows: every / some / none | V rows: every / some / none | "
           "MB received per round | AUC after 10 | AUC gap to 1 process |",
           "|---|---|---|---|---|---|"]
    for name, r in runs.items():
        (u, v) = r["rows_changed"][:2]
        out.append(f"| {name} | {u[0]:,} / {u[1]:,} / {u[2]:,} | {v[0]:,} / {v[1]:,} / {v[2]:,} | "
                   f"{r['bytes_received'] / 1e6:.2f} | {r['auc']:.4f} | {abs(r['auc'] - ref):.4f} |")
    return "\n".join(out)


def main(argv):
    w = load(argv[0] if argv else None)
    print(tables(w))
    rows = rows_table(w)
    if rows:
        print()
        print(rows)


if __name__ == "__main__":
    main(sys.argv[1:])
