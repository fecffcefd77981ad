"""Workload 14: L-BFGS logistic regression on a 10-million-row dask array, the gradient by
`jitad.dask.value_and_grad` on 1 and 2 worker processes.

X: 10,000,000 x 16 standard normal (1.28 GB), y = sign(X w* + noise), both made by the
workers (`dask.array.random`, chunks of 250,000 rows) and persisted there: they never reach
the client. The loss is the plain sum over rows `np.sum(np.log1p(np.exp(-y * (X @ w))))`,
the ridge term `0.5 * np.sum(w * w)` goes in `reg=`; `scipy.optimize.minimize(...,
jac=True, method="L-BFGS-B")` from w = 0 to convergence. Rows: `jitad.value_and_grad` on the
same data as NumPy arrays in this process (the reference), and `jd.value_and_grad` on a
`LocalCluster` of 1 and 2 workers (one thread each), both alive at once and measured in
turns, so that the two see the same background load of a shared machine. Time: the median
seconds per L-BFGS iteration over three runs (each iteration costs about one gradient; the
function evaluations are counted in the notes). The slowest worker's CPU time per gradient
beside its wall time shows how the work split, whatever share of a core the worker got.
Checked: the value and gradient at w* against the reference.
"""
import logging
import time

import numpy as np

import jitad
from benchmarks import common as C

NAME = "dask_lbfgs"
TITLE = "L-BFGS logistic regression on a 10-million-row dask array (jitad.dask.value_and_grad)"
N_ROWS, N_FEATURES, CHUNK = 10_000_000, 16, 250_000


def logistic(w, X, y):
    return np.sum(np.log1p(np.exp(-y * (X @ w))))


def ridge(w):
    return 0.5 * np.sum(w * w)


def logistic_ridge(w, X, y):
    return logistic(w, X, y) + ridge(w)


def w_true(d):
    return np.linspace(-1.0, 1.0, d)


def dask_data(n, d, chunk, seed=0):
    import dask.array as da
    rs = da.random.default_rng(seed)
    X = rs.standard_normal((n, d), chunks=(chunk, d))
    y = da.sign(X @ w_true(d) + rs.standard_normal(n, chunks=chunk))
    return X, y


def jitad_first_call():
    X = np.ones((3, 2))
    return jitad.value_and_grad(logistic_ridge)(np.zeros(2), X, np.ones(3))


def _minimize(vg, d, runs=3):
    from scipy.optimize import minimize
    per_it, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = minimize(vg, np.zeros(d), jac=True, method="L-BFGS-B")
        per_it.append((time.perf_counter() - t0) / max(out.nit, 1))
    return per_it, out


def run(ctx):
    try:
        import jitad.dask as jd
        from dask.distributed import Client, LocalCluster, wait
    except ImportError as e:
        return {"title": TITLE, "error": f"jitad.dask needs Dask: {e}", "rows": [], "goals": []}
    n, d, chunk = (400_000, N_FEATURES, 50_000) if ctx.quick else (N_ROWS, N_FEATURES, CHUNK)
    rows, runs = [], {}
    ws = w_true(d)

    # the reference: the same rows, computed by one process on NumPy arrays in this process
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None,
                      silence_logs=logging.ERROR) as c, Client(c) as client:
        X, y = dask_data(n, d, chunk)
        Xn, yn = client.compute([X, y], sync=True)     # only the reference gathers the data
    ref = jitad.value_and_grad(logistic_ridge)
    t0 = time.perf_counter()
    want = ref(ws, Xn, yn)
    first = time.perf_counter() - t0
    per_it, res = _minimize(lambda w: ref(w, Xn, yn), d)
    runs["1 process"] = {"per_iteration_s": per_it, "nit": res.nit, "nfev": res.nfev,
                         "fun": float(res.fun)}
    rows.append({"system": "jitad.value_and_grad, 1 process (NumPy)", "status": C.OK,
                 "reference": True, "version": "",
                 "note": f"{res.nit} iterations, {res.nfev} evaluations; f = {res.fun:.6g}",
                 "results": {str(n): {"median_s": float(np.median(per_it)), "samples_s": per_it,
                                      "first_call_s": first}}})
    del Xn, yn

    # both clusters at once, measured in turns: on a shared machine the two see the same load
    clusters, setups = {}, {}
    try:
        for n_workers in (1, 2):
            c = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                             dashboard_address=None, silence_logs=logging.ERROR)
            client = Client(c)
            clusters[n_workers] = (c, client)
            t0 = time.perf_counter()
            X, y = client.persist(list(dask_data(n, d, chunk)))
            wait([X, y])
            t_data = time.perf_counter() - t0
            vg = jd.value_and_grad(logistic, wrt=0, reg=ridge, client=client)
            t0 = time.perf_counter()
            got = vg(ws, X, y)
            first = time.perf_counter() - t0
            ok, err, msg = C.compare(got, want, 1e-9)
            setups[n_workers] = dict(X=X, y=y, vg=vg, data_s=t_data, first=first, ok=ok,
                                     err=err, msg=msg, calls=[], per_it=[], cpu=[], wall=[])
        for k in range(7):                       # single gradients, in turns
            for n_workers, st in setups.items():
                t0 = time.perf_counter()
                st["vg"](ws * (1.0 + 0.01 * k), st["X"], st["y"])
                st["calls"].append(time.perf_counter() - t0)
                st["wall"].append([t["compute_s"] for t in st["vg"].last["tasks"]])
                st["cpu"].append([t["cpu_s"] for t in st["vg"].last["tasks"]])
        for _ in range(3):                       # L-BFGS runs, in turns
            for n_workers, st in setups.items():
                vg, X, y = st["vg"], st["X"], st["y"]
                per_it, res = _minimize(lambda w: vg(w, X, y), d, runs=1)
                st["per_it"] += per_it
                st["res"] = res
    finally:
        for c, client in reversed(list(clusters.values())):   # each restores the log level it found
            client.close()
            c.close()
    for n_workers, st in setups.items():
        name = f"jd.value_and_grad, {n_workers} worker{'s' if n_workers > 1 else ''}"
        res, calls, per_it = st["res"], st["calls"], st["per_it"]
        cpu = [max(c) for c in st["cpu"]]
        wall = [max(c) for c in st["wall"]]
        runs[name] = {"workers": n_workers, "per_iteration_s": per_it, "nit": res.nit,
                      "nfev": res.nfev, "fun": float(res.fun), "per_call_s": calls,
                      "data_s": st["data_s"], "first_call_s": st["first"],
                      "task_compute_s": st["wall"], "task_cpu_s": st["cpu"],
                      "max_rel_err": st["err"]}
        ok = st["ok"]
        rows.append({"system": name, "status": C.OK if ok else C.FAILED, "reference": False,
                     "version": "",
                     "note": (f"{res.nit} iterations, {res.nfev} evaluations; f = {res.fun:.6g}; "
                              f"one gradient {np.median(calls):.3f} s, of which the slowest "
                              f"worker's compute {np.median(wall):.3f} s (CPU "
                              f"{np.median(cpu):.3f} s)") if ok else f"wrong gradient: {st['msg']}",
                     "results": {str(n): {"median_s": float(np.median(per_it)), "samples_s": per_it,
                                          "first_call_s": st["first"],
                                          "check": {"ok": ok, "max_rel_err": st["err"]}}}})
        ctx.log(f"    {name}: {np.median(per_it):.3f} s/iteration ({res.nit} iterations), one "
                f"gradient {np.median(calls):.3f} s (CPU {np.median(cpu):.3f} s)")
    cpu1 = np.median([max(c) for c in setups[1]["cpu"]])
    cpu2 = np.median([max(c) for c in setups[2]["cpu"]])
    one = C.ratio(rows, "jd.value_and_grad, 1 worker", "jd.value_and_grad, 2 workers", n)
    return {"title": TITLE, "size_label": "rows", "sizes": [n], "rows": rows, "runs": runs,
            "size_names": {str(n): f"per L-BFGS iteration, {n:,} x {d} rows"}, "plot": "bars",
            "reference": "jitad.value_and_grad, 1 process (NumPy)",
            "description": (
                f"X: {n:,} x {d} float64 ({n * d * 8 / 1e9:.2f} GB) and y made and persisted "
                f"by the workers in chunks of {chunk:,} rows; the client sends w (128 bytes) "
                "and gets back one partial value and gradient per worker. Time: median over "
                "three runs of the seconds per L-BFGS iteration, from w = 0 to convergence, "
                "the 1- and 2-worker clusters measured in turns. The 2-core VM was shared with "
                "other work: when a worker's CPU time is below its wall time, the difference is "
                "the share of a core it did not get."),
            "goals": [C.goal("jd.value_and_grad: 2 workers ≥ 1.7× faster per iteration than 1",
                             one, 1.7, "higher"),
                      C.goal("jd.value_and_grad: the slowest worker's CPU time per gradient on 2 "
                             "workers ≥ 1.7× less than on 1", float(cpu1 / cpu2), 1.7, "higher")]}
