"""Workload 14: L-BFGS logistic regression on a 10-million-row dask array, the gradient by
`jitad.dask.value_and_grad` on 1 and 2 worker processes.

X: 10,000,000 x 16 standard normal (1.28 GB), y = sign(X w* + noise), both made by the
workers (`dask.array.random`, chunks of 250,000 rows) and persisted there: they never reach
the client. The loss is the plain sum over rows `np.sum(np.log1p(np.exp(-y * (X @ w))))`,
the ridge term `0.5 * np.sum(w * w)` goes in `reg=`; `scipy.optimize.minimize(...,
jac=True, method="L-BFGS-B")` from w = 0 to convergence. Rows: `jitad.value_and_grad` on the
same data as NumPy arrays in this process (the reference), and `jd.value_and_grad` on a
`LocalCluster` of 1 and 2 workers (one thread each). Time: the median seconds per L-BFGS
iteration over three runs (each iteration costs about one gradient; the function evaluations
are counted in the notes). Checked: the value and gradient at w* against the reference.
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

    for n_workers in (1, 2):
        name = f"jd.value_and_grad, {n_workers} worker{'s' if n_workers > 1 else ''}"
        with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=logging.ERROR) as c, \
                Client(c) as client:
            t0 = time.perf_counter()
            X, y = client.persist(list(dask_data(n, d, chunk)))
            wait([X, y])
            t_data = time.perf_counter() - t0
            vg = jd.value_and_grad(logistic, wrt=0, reg=ridge, client=client)
            t0 = time.perf_counter()
            got = vg(ws, X, y)
            first = time.perf_counter() - t0
            ok, err, msg = C.compare(got, want, 1e-9)
            calls = []
            for k in range(7):
                t0 = time.perf_counter()
                vg(ws * (1.0 + 0.01 * k), X, y)
                calls.append(time.perf_counter() - t0)
            tasks = vg.last["tasks"]
            per_it, res = _minimize(lambda w: vg(w, X, y), d)
            runs[name] = {"workers": n_workers, "per_iteration_s": per_it, "nit": res.nit,
                          "nfev": res.nfev, "fun": float(res.fun), "per_call_s": calls,
                          "data_s": t_data, "first_call_s": first,
                          "task_compute_s": [t["compute_s"] for t in tasks],
                          "task_cpu_s": [t["cpu_s"] for t in tasks],
                          "max_rel_err": err}
            row = {"system": name, "status": C.OK if ok else C.FAILED, "reference": False,
                   "version": "",
                   "note": (f"{res.nit} iterations, {res.nfev} evaluations; f = {res.fun:.6g}; "
                            f"one gradient: {np.median(calls):.3f} s (per worker: compute "
                            + ", ".join(f"{t['compute_s']:.3f} s" for t in tasks) + ")")
                   if ok else f"wrong gradient: {msg}",
                   "results": {str(n): {"median_s": float(np.median(per_it)), "samples_s": per_it,
                                        "first_call_s": first,
                                        "check": {"ok": ok, "max_rel_err": err}}}}
            rows.append(row)
            ctx.log(f"    {name}: {np.median(per_it):.3f} s/iteration ({res.nit} iterations)")
    one = C.ratio(rows, "jd.value_and_grad, 1 worker", "jd.value_and_grad, 2 workers", n)
    return {"title": TITLE, "size_label": "rows", "sizes": [n], "rows": rows, "runs": runs,
            "size_names": {str(n): f"per L-BFGS iteration, {n:,} x {d} rows"}, "plot": "bars",
            "reference": "jitad.value_and_grad, 1 process (NumPy)",
            "description": (
                f"X: {n:,} x {d} float64 ({n * d * 8 / 1e9:.2f} GB) and y made and persisted "
                f"by the workers in chunks of {chunk:,} rows; the client sends w (128 bytes) "
                "and gets back one partial value and gradient per worker. Time: median over "
                "three runs of the seconds per L-BFGS iteration, from w = 0 to convergence. "
                "The 2-core VM was shared with other work; the per-worker CPU times in the "
                "JSON show how the work was split."),
            "goals": [C.goal("jd.value_and_grad: 2 workers ≥ 1.7× faster per iteration than 1",
                             one, 1.7, "higher")]}
