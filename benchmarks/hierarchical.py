"""Workload 8: the DeepLearning.scala paper's benchmark network, trained with jitad.fit.

The model is `examples/hierarchical_classifier.py` (imported from there, not copied): `columns`
parallel columns of two dense + ReLU layers (3072 -> 64 -> 64) are summed, a 20-way coarse
classifier reads the sum, and of the 20 fine 5-way classifiers only the mini-batch's one runs
(`skipping_loss`; `all_fine_loss` runs all 20 and uses that one). Mini-batches of 16 that share
their coarse class, synthetic CIFAR-100-shaped data, SGD with lr = 0.01, float64.

Rows, at 1, 2 and 4 columns: a hand-written NumPy backprop looping over the same shuffled
mini-batches (the reference every jitad row is checked against: the loss and all eight
parameters after one epoch); `jitad.fit(..., batch_size=16)` on 1 and 2 threads (Hogwild:
the threads update the shared parameters lock-free; fit's default for a dense model on threads,
`accumulate=4`); 1 thread running all 20 fine classifiers; with the full run also 2 threads with
`accumulate=1` (every step writes every weight), and (1 column) 1 and 2
threads with scipy's OpenBLAS -- the BLAS Numba's `@` calls -- switched to 2 threads at run time,
which is what a script that does not set OPENBLAS_NUM_THREADS=1 gets on 2 cores.

Every configuration runs one epoch per round, round-robin (the first round is the warm-up,
with the compile), so slow drifts of a shared VM hit all of them alike; a cell is the median
time per mini-batch over the rounds. The paper's two tables (mini-batches/s) are rendered below
the timing table. Goals: 2 threads >= 1.6x faster than 1 at every column count (fit's default);
skipping faster than running all 20 fine classifiers by at least the share of the FLOPs it
skips (the two run back to back in every round; the goal's value is the median over rounds of
their time ratio); the final loss of 2 threads within noise of 1 thread's (seed-to-seed spread).
Each round is one `fit` call, so the 2-thread rows include starting their 2 worker threads.
"""
import ctypes
import glob
import importlib.util
import math
import os
import statistics
import sys
import time

import numpy as np

import jitad
from benchmarks import common as C

NAME = "hierarchical"
TITLE = ("Hierarchical classifier (the DeepLearning.scala benchmark network): jitad.fit, "
         "1 vs 2 threads, skipping 19 of 20 fine classifiers")
LR = 0.01


def _load_example():
    """examples/hierarchical_classifier.py as a module (examples/ is not a package)."""
    name = "hierarchical_classifier"
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(C.REPO, "examples", f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod          # so inspect/linecache find the functions' source
    spec.loader.exec_module(mod)
    return mod


H = _load_example()
B, D, HID, NC, NF = H.BATCH, H.FEATURES, H.HIDDEN, H.COARSE, H.FINE


# ---------------------------------------------------------------------------
# the reference: backprop written by hand in NumPy
# ---------------------------------------------------------------------------
def _xent(z, labels):
    """Mean softmax cross-entropy of the rows of z and its gradient wrt z."""
    n = z.shape[0]
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    rows = np.arange(n)
    loss = float(np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, labels]))
    dz = e / s
    dz[rows, labels] -= 1.0
    return loss, dz / n


def numpy_grads(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    """(loss, gradients of the eight parameters) of `skipping_loss`, by hand."""
    K = W1.shape[0]
    a1, r1, a2 = [], [], []
    h = np.zeros((X.shape[0], W2.shape[2]))
    for k in range(K):
        a = X @ W1[k] + b1[k]
        r = np.maximum(a, 0.0)
        z = r @ W2[k] + b2[k]
        a1.append(a)
        r1.append(r)
        a2.append(z)
        h += np.maximum(z, 0.0)
    c = coarse[0]
    lc, dzc = _xent(h @ Wc + bc, coarse)
    lf, dzf = _xent(h @ Wf[c] + bf[c], fine)
    dWf, dbf = np.zeros_like(Wf), np.zeros_like(bf)
    dWf[c] = h.T @ dzf
    dbf[c] = dzf.sum(axis=0)
    dh = dzc @ Wc.T + dzf @ Wf[c].T
    dW1, db1, dW2, db2 = (np.zeros_like(p) for p in (W1, b1, W2, b2))
    for k in range(K):
        da2 = dh * (a2[k] > 0.0)
        dW2[k] = r1[k].T @ da2
        db2[k] = da2.sum(axis=0)
        da1 = (da2 @ W2[k].T) * (a1[k] > 0.0)
        dW1[k] = X.T @ da1
        db1[k] = da1.sum(axis=0)
    return lc + lf, (dW1, db1, dW2, db2, h.T @ dzc, dzc.sum(axis=0), dWf, dbf)


def numpy_epoch(params, X, coarse, fine, order):
    """One epoch of SGD over the mini-batches in `order` (fit's order for the same seed)."""
    total = 0.0
    for b in order:
        lo = b * B
        loss, grads = numpy_grads(*params, X[lo:lo + B], coarse[lo:lo + B], fine[lo:lo + B])
        for p, g in zip(params, grads):
            p -= LR * g
        total += loss
    return total / len(order)


# ---------------------------------------------------------------------------
# FLOPs: the share of a step that skipping the 19 unused fine classifiers avoids
# ---------------------------------------------------------------------------
def skipped_share(columns):
    """s = 19 * 2BHF / (K (2BDH + 2BHH) + 2BHC + 20 * 2BHF): the matmul FLOPs of 19 fine
    classifiers over those of an all-fine step (a training step costs ~3x its forward matmul
    FLOPs -- forward, input gradient, weight gradient -- for every layer alike, so the factor
    cancels; element-wise work is left out)."""
    column = 2 * B * D * HID + 2 * B * HID * HID
    coarse = 2 * B * HID * NC
    fine = 2 * B * HID * NF
    return 19 * fine / (columns * column + coarse + 20 * fine)


# ---------------------------------------------------------------------------
# scipy's OpenBLAS (what Numba's `@` calls), for the diagnostic rows
# ---------------------------------------------------------------------------
def _scipy_openblas():
    """(get_num_threads, set_num_threads, config string) of scipy's bundled OpenBLAS, or None."""
    try:
        import scipy
        import scipy.linalg.cython_blas  # noqa: F401  (loads the library)
        libs = glob.glob(os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)),
                                      "scipy.libs", "libscipy_openblas*.so*"))
        for path in libs:
            lib = ctypes.CDLL(path)
            for prefix in ("scipy_openblas", "openblas"):
                get = getattr(lib, f"{prefix}_get_num_threads", None)
                put = getattr(lib, f"{prefix}_set_num_threads", None)
                cfg = getattr(lib, f"{prefix}_get_config", None)
                if get and put:
                    text = ""
                    if cfg:
                        cfg.restype = ctypes.c_char_p
                        text = cfg().decode(errors="replace")
                    return get, put, text
    except Exception:
        return None
    return None


def _rusage():
    try:
        import resource
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_minflt, r.ru_stime
    except Exception:
        return 0, 0.0


# ---------------------------------------------------------------------------
# configurations, measured round-robin
# ---------------------------------------------------------------------------
class Config:
    def __init__(self, name, epoch, note="", reference=False, blas_threads=None):
        self.name, self.epoch, self.note, self.reference = name, epoch, note, reference
        self.blas_threads = blas_threads
        self.samples, self.first, self.faults, self.sys_s, self.loss = [], None, 0, 0.0, None


def _fit_epoch(step, threads, accumulate=None):
    def epoch(params, data, seed):
        h = jitad.fit(step, params, data=data, epochs=1, batch_size=B, threads=threads,
                      accumulate=accumulate, seed=seed, progress=False)
        return h.seconds[0], h.loss[0]
    return epoch


def _numpy_epoch(params, data, seed):
    order = np.random.default_rng(seed).permutation(len(data[0]) // B)
    t0 = time.perf_counter()
    loss = numpy_epoch(params, *data, order)
    return time.perf_counter() - t0, loss


def measure(configs, columns, data, nb, rounds, blas):
    """Round-robin: every configuration trains its own copy of the same initial parameters
    for one epoch per round (seed = round: the same shuffled order for all)."""
    params = {c.name: H.init(columns) for c in configs}
    for r in range(rounds):
        for c in configs:
            prev = None
            if c.blas_threads is not None:
                prev = blas[0]()
                blas[1](c.blas_threads)
            try:
                f0, s0 = _rusage()
                t0 = time.perf_counter()
                sec, loss = c.epoch(params[c.name], data, r)
                wall = time.perf_counter() - t0
                f1, s1 = _rusage()
            finally:
                if prev is not None:
                    blas[1](prev)
                    time.sleep(0.25)      # OpenBLAS's idle workers spin a while before sleeping
            if r == 0:
                c.first = wall
            else:
                c.samples.append(sec / nb)
                c.faults += f1 - f0
                c.sys_s += s1 - s0
            c.loss = loss
    for c in configs:
        n = max(1, (rounds - 1) * nb)
        c.faults, c.sys_s = c.faults / n, c.sys_s / n
    return params


def check(step_skip, step_all, data, columns):
    """One epoch from the same initial parameters in the same order: NumPy vs jitad (skip, 1
    thread) vs jitad (all 20 fine, 1 thread). Returns {name: (ok, max_rel_err)}."""
    ref_p = H.init(columns)
    order = np.random.default_rng(0).permutation(len(data[0]) // B)
    ref = (numpy_epoch(ref_p, *data, order), ref_p)
    out = {}
    for key, step in (("skip", step_skip), ("all", step_all)):
        if step is None:
            continue
        p = H.init(columns)
        h = jitad.fit(step, p, data=data, epochs=1, batch_size=B, seed=0, progress=False)
        ok, err, _ = C.compare((h.loss[0], p), ref, 1e-9)
        out[key] = (ok, err)
    return out


def loss_study(step, data, seeds, epochs):
    """Final training loss (mean over the last epoch) of 1 and 2 threads, one model per seed."""
    res = {}
    for threads in (1, 2):
        vals = []
        for s in seeds:
            p = H.init(1)
            h = jitad.fit(step, p, data=data, epochs=epochs, batch_size=B, threads=threads,
                          seed=s, progress=False)
            vals.append(h.loss[-1])
        res[threads] = vals
    return res


def jitad_first_call():
    X, coarse, fine = H.make_data(2)
    params = H.init(1)
    step = H.make_step(True, lr=LR)
    return step(*params, X[:B], coarse[:B], fine[:B], step.init(*params))


# ---------------------------------------------------------------------------
def _fmt_rate(c):
    return f"{1.0 / statistics.median(c.samples):,.0f}" if c and c.samples else "—"


def run(ctx):
    sizes = [1] if ctx.quick else [1, 2, 4]
    nb = 16 if ctx.quick else 128                  # mini-batches per epoch (16 samples each)
    rounds = ctx.repeats + 1
    X, coarse, fine = H.make_data(nb)
    data = (X, coarse, fine)
    step_skip = H.make_step(True, lr=LR)
    step_all = None if ctx.quick else H.make_step(False, lr=LR)
    blas = None if ctx.quick else _scipy_openblas()

    ONE, TWO, ALL = "jitad fit, 1 thread", "jitad fit, 2 threads (Hogwild)", \
        "jitad fit, 1 thread, all 20 fine classifiers"
    ACC1 = "jitad fit, 2 threads, accumulate=1"
    B1, B2 = "jitad fit, 1 thread, OpenBLAS 2 threads", "jitad fit, 2 threads, OpenBLAS 2 threads"
    REF = "NumPy hand-written, 1 thread"
    order_names = [REF, ONE, TWO, ALL, ACC1, B1, B2]
    rows = {n: {"system": n, "status": C.OK, "note": "", "version": "", "reference": n == REF,
                "results": {}} for n in order_names}
    rows[REF]["note"] = "backprop by hand, a Python loop over the same shuffled mini-batches"
    rows[TWO]["note"] = ("fit's default on threads for a dense model, accumulate=4: each thread "
                         "sums 4 mini-batches' gradients in its own buffers, then writes the "
                         "shared parameters lock-free")
    rows[ACC1]["note"] = "every mini-batch writes every shared weight"
    rows[B1]["note"] = rows[B2]["note"] = ("diagnostic, 1 column only: scipy's OpenBLAS set to "
                                           "2 threads at run time before this row's fit call")
    if ctx.quick:
        for n in (ALL, ACC1):
            rows[n].update(status=C.SKIPPED, note="not run with --quick (its cold compile "
                                                  "alone takes 15-20 s)")
        for n in (B1, B2):
            rows[n].update(status=C.SKIPPED, note="diagnostic, not run with --quick")
    if blas is None and not ctx.quick:
        for n in (B1, B2):
            rows[n].update(status=C.SKIPPED, note="scipy's OpenBLAS not found (ctypes)")

    measured = {}
    for cols in sizes:
        ok = check(step_skip, step_all, (X[:8 * B], coarse[:8 * B], fine[:8 * B]), cols)
        configs = [Config(REF, _numpy_epoch, reference=True),
                   Config(ONE, _fit_epoch(step_skip, 1))]
        if not ctx.quick:                 # right after ONE: their rounds are paired
            configs.append(Config(ALL, _fit_epoch(step_all, 1)))
        configs.append(Config(TWO, _fit_epoch(step_skip, 2)))
        if not ctx.quick:
            configs.append(Config(ACC1, _fit_epoch(step_skip, 2, accumulate=1)))
            if blas is not None and cols == 1:
                configs += [Config(B1, _fit_epoch(step_skip, 1), blas_threads=2),
                            Config(B2, _fit_epoch(step_skip, 2), blas_threads=2)]
        for c in configs:                 # a jitad row that fails its check is not timed
            key = "all" if c.name == ALL else "skip"
            if c.name != REF and not ok[key][0]:
                rows[c.name].update(status=C.FAILED, note=f"{cols} column(s): loss and "
                                    f"parameters after one epoch differ from NumPy's "
                                    f"(max relative error {ok[key][1]:.1e})")
        configs = [c for c in configs if rows[c.name]["status"] == C.OK]
        ctx.log(f"    {cols} column(s): measuring {', '.join(c.name for c in configs)}")
        measure(configs, cols, data, nb, rounds, blas)
        measured[cols] = {c.name: c for c in configs}
        for c in configs:
            key = "all" if c.name == ALL else "skip"
            chk = {"ok": True, "max_rel_err": 0.0} if c.name == REF else \
                {"ok": ok[key][0], "max_rel_err": ok[key][1],
                 **({"note": "checked with the same call on 1 thread"}
                    if c.name in (TWO, ACC1, B2) else {})}
            rows[c.name]["results"][str(cols)] = {
                "median_s": statistics.median(c.samples), "samples_s": c.samples, "inner": 1,
                "first_call_s": c.first, "check": chk, "final_loss": c.loss,
                "minor_faults_per_minibatch": c.faults, "sys_s_per_minibatch": c.sys_s}
            ctx.log(f"    {c.name} @ {cols}: {C.fmt_time(statistics.median(c.samples))} per "
                    f"mini-batch, {c.faults:.0f} page faults per mini-batch")

    # the final loss of 1 vs 2 threads, over shuffling seeds (1 column)
    seeds = list(range(2 if ctx.quick else 5))
    epochs = 2 if ctx.quick else 4
    study = loss_study(step_skip, data, seeds, epochs)
    m1, m2 = statistics.mean(study[1]), statistics.mean(study[2])
    sd1 = statistics.stdev(study[1]) if len(seeds) > 1 else 0.0
    sd2 = statistics.stdev(study[2]) if len(seeds) > 1 else 0.0
    se = math.sqrt((sd1 ** 2 + sd2 ** 2) / len(seeds))

    # FD check of the reference gradient
    p0 = H.init(1)
    args = (*p0, X[:B], coarse[:B], fine[:B])
    fd = C.fd_check(H.skipping_loss, args, tuple(range(8)), numpy_grads(*args)[1],
                    "6 random coordinates of each of the 8 parameters, 1 column")

    # goals
    goals = []
    speed, skip_ratio = {}, {}
    for cols in sizes:
        m = measured[cols]
        if ONE in m and TWO in m:
            speed[cols] = statistics.median(m[ONE].samples) / statistics.median(m[TWO].samples)
        goals.append(C.goal(f"2 threads ≥ 1.6× faster than 1 (fit's default, accumulate=4), {cols} column"
                            f"{'s' if cols > 1 else ''}", speed.get(cols), 1.6, "higher"))
    for cols in sizes:
        m = measured[cols]
        s = skipped_share(cols)
        if ONE in m and ALL in m:         # median over rounds of the back-to-back pair
            skip_ratio[cols] = statistics.median(a / b for a, b in zip(m[ALL].samples,
                                                                      m[ONE].samples))
        goals.append(C.goal(f"skipping ≥ 1/(1 − s) = {1 / (1 - s):.3f}× faster than all 20 "
                            f"fine classifiers (s = {100 * s:.2f}% of the FLOPs), {cols} column"
                            f"{'s' if cols > 1 else ''}, 1 thread", skip_ratio.get(cols),
                            1 / (1 - s), "higher", "{:.3f}×"))
    goals.append(C.goal("final loss of 2 threads within noise of 1 thread "
                        "(Δ of the means ≤ 2 standard errors of Δ)",
                        abs(m2 - m1) / se if se > 0 else None, 2.0, "lower", "{:.2f}"))

    # the paper's two tables, in mini-batches/s
    t1 = ["| columns | 1 thread | 2 threads | 2 threads / 1 | 2 threads, accumulate=1 |",
          "|---|---|---|---|---|"]
    t2 = ["| columns | skip 19 fine classifiers | run all 20 | all 20 time / skip time "
          "(median of paired rounds) | "
          "share skipped s (FLOPs) | bound 1/(1 − s) |", "|---|---|---|---|---|---|"]
    for cols in sizes:
        m = measured[cols]
        t1.append(f"| {cols} | {_fmt_rate(m.get(ONE))} | {_fmt_rate(m.get(TWO))} | "
                  f"{f'{speed[cols]:.2f}×' if cols in speed else '—'} | {_fmt_rate(m.get(ACC1))} |")
        s = skipped_share(cols)
        t2.append(f"| {cols} | {_fmt_rate(m.get(ONE))} | {_fmt_rate(m.get(ALL))} | "
                  f"{f'{skip_ratio[cols]:.3f}×' if cols in skip_ratio else '—'} | "
                  f"{100 * s:.2f}% | {1 / (1 - s):.3f}× |")
    diag = ""
    m1c = measured[sizes[0]]
    if B1 in m1c and B2 in m1c:
        r1, r2 = (1 / statistics.median(m1c[n].samples) for n in (B1, B2))
        diag = (f" With scipy's OpenBLAS at 2 threads (set at run time; what a script without "
                f"OPENBLAS_NUM_THREADS=1 gets on 2 cores), 1 column: 1 thread {r1:,.0f}, "
                f"2 threads {r2:,.0f} mini-batches/s ({r2 / r1:.2f}×). The 1-thread fit uses "
                f"OpenBLAS's two threads; with 2 fit threads, fit holds OpenBLAS at one thread "
                f"while they run (two threads' multi-threaded GEMMs would queue on OpenBLAS's "
                f"level-3 lock while its workers hold the cores: 0.3-0.45× before fit did so).")
    faults = {n: (max(v.get("minor_faults_per_minibatch", 0) for v in r["results"].values()),
                  max(v.get("sys_s_per_minibatch", 0) for v in r["results"].values()))
              for n, r in rows.items() if r["results"]}
    extra = "\n".join([
        "**Mini-batches/s** (the paper's first table; skipping, batch 16):", "",
        "\n".join(t1), "",
        "**Skipping vs running all 20 fine classifiers** (the paper's second table; 1 thread, "
        "mini-batches/s):", "", "\n".join(t2), "",
        f"Final training loss after {epochs} epochs (1 column, {len(seeds)} shuffling seeds): "
        f"1 thread {m1:.4f} ± {sd1:.4f}, 2 threads {m2:.4f} ± {sd2:.4f} (mean ± sd over "
        f"seeds).{diag} Minor page faults and system CPU time per mini-batch (max over column "
        f"counts; many faults mean glibc gave freed heap pages back to the kernel between "
        f"steps): " + "; ".join(f"{n}: {v:.0f}, {C.fmt_time(t)}" for n, (v, t) in faults.items())
        + "."])
    cfg = blas[2] if blas else ""
    return {"title": TITLE, "sizes": sizes, "size_label": "columns",
            "size_names": {str(c): f"{c} column{'s' if c > 1 else ''}: time per mini-batch"
                           for c in sizes},
            "rows": [rows[n] for n in order_names], "plot": "bars", "reference": REF,
            "reference_fd": fd, "extra_md": extra,
            "loss_study": {"seeds": seeds, "epochs": epochs, "final_loss": study},
            "description":
                f"Mini-batches of 16 sharing their coarse class, {nb} per epoch, 3072 "
                f"features, SGD lr {LR}, float64; every configuration trains its own copy of "
                f"the same initial parameters, one epoch per round, round-robin, "
                f"{rounds - 1} timed rounds after a warm-up round (its compile); a cell is the "
                f"median time per mini-batch (`History.seconds` / mini-batches). Checked: the "
                f"loss and all parameters after one epoch of jitad (skip and all-20, 1 "
                f"thread) equal NumPy's at rtol 1e-9; 2-thread rows run the same compiled "
                f"epoch and are nondeterministic. OPENBLAS_NUM_THREADS=1 as in every workload "
                f"(the BLAS of Numba's `@` is scipy's OpenBLAS{f', {cfg}' if cfg else ''}). "
                f"Share of a step that skipping avoids: s = 19·2BHF / (K(2BDH + 2BH²) + 2BHC + "
                f"20·2BHF) with B = 16, D = 3072, H = 64, C = 20, F = 5, K columns (matmul "
                f"FLOPs; the ×3 of a training step cancels): {100 * skipped_share(1):.2f}% at "
                f"1 column; the skip goal's value is the median over rounds of (all-20 time / "
                f"skip time), the two run back to back in each round. Each round is one `fit` "
                f"call: the 2-thread rows include starting their worker threads.",
            "goals": goals}
