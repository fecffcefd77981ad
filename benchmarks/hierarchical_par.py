"""Issue 15's benchmark: the hierarchical classifier's columns as independent helper calls, one
mini-batch at a time, sequential vs `parallel=True` (the columns' forward and backward halves
dispatched on 2 threads), and small functions that must not slow down.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.hierarchical_par [--rounds 7] [--batches 32]

The model is `examples/hierarchical_classifier.py`'s `skipping_loss` with `columns_sum` written
as `columns` calls of one `column` helper (2 and 4 columns), so the monadic form has them as
one applicative group. Per configuration: an epoch of SGD (lr 0.01) over `--batches`
mini-batches of 16, each step `value_and_grad` of the eight parameters then `p -= lr * g` in
NumPy; configurations alternate round by round (the first round compiles) and a cell is the
median over rounds of the time per mini-batch, wall and CPU (process time: the parallel rows
spend CPU on 2 cores). Checked: the parallel gradient equals the sequential one bit for bit at
every step, so the parameters after an epoch are identical; the sequential gradient matches the
hand-written NumPy backprop of `benchmarks/hierarchical.py` to 1e-9.
The fit rows: the same epochs through `jitad.fit(jitad.train_step(loss, optimizer=SGD(lr),
parallel=...), batch_size=16)` (the step and the update compiled in one epoch loop, no Python
between mini-batches); checked: identical parameters after the first epoch.
The small rows: a function of two tiny matrix helpers (4 x 4) and one of two vector helpers
(no matrix: not a branch), called 20,000 times, parallel=True over sequential (goal <= 1.05).
"""
import argparse
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import jitad  # noqa: E402
from benchmarks import hierarchical as HB  # noqa: E402

H = HB.H
softmax_xent = H.softmax_xent


def column(W1, b1, W2, b2, X):
    a = np.maximum(X @ W1 + b1, 0.0)
    return np.maximum(a @ W2 + b2, 0.0)


def head(h, Wc, bc, Wf, bf, coarse, fine):
    c = coarse[0]
    zf = h @ Wf[c] + bf[c]
    return softmax_xent(h @ Wc + bc, coarse) + softmax_xent(zf, fine)


def loss1(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    h = column(W1[0], b1[0], W2[0], b2[0], X)
    return head(h, Wc, bc, Wf, bf, coarse, fine)


def loss2(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    h0 = column(W1[0], b1[0], W2[0], b2[0], X)
    h1 = column(W1[1], b1[1], W2[1], b2[1], X)
    return head(h0 + h1, Wc, bc, Wf, bf, coarse, fine)


def loss4(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    h0 = column(W1[0], b1[0], W2[0], b2[0], X)
    h1 = column(W1[1], b1[1], W2[1], b2[1], X)
    h2 = column(W1[2], b1[2], W2[2], b2[2], X)
    h3 = column(W1[3], b1[3], W2[3], b2[3], X)
    return head(h0 + h1 + h2 + h3, Wc, bc, Wf, bf, coarse, fine)


LOSSES = {1: loss1, 2: loss2, 4: loss4}


def tiny(A, B, x):
    return A @ (B @ x)


def vec(u, v):
    return np.sum(np.tanh(u) * v)


def small2(A, B, C, D, x):
    return np.sum(tiny(A, B, x) + tiny(C, D, x))


def vec2(u, v, w):
    return vec(u, v) + vec(w, v)


def epoch(vg, params, data, lr, nb, grads_out=None):
    X, coarse, fine = data
    B = H.BATCH
    t0, c0 = time.perf_counter(), time.process_time()
    for b in range(nb):
        sl = slice(b * B, (b + 1) * B)
        _, grads = vg(*params, X[sl], coarse[sl], fine[sl])
        if grads_out is not None:
            grads_out.append([g.copy() for g in grads])
        for p, g in zip(params, grads):
            p -= lr * g
    return (time.perf_counter() - t0) / nb, (time.process_time() - c0) / nb


def measure_columns(columns, rounds, nb):
    data = H.make_data(nb)
    f = LOSSES[columns]
    wrt = tuple(range(8))
    vgs = {"sequential": jitad.value_and_grad(f, wrt=wrt),
           "parallel=True": jitad.value_and_grad(f, wrt=wrt, parallel=True)}
    # exactness: one epoch each from the same start, every step's gradient compared
    got = {}
    for name, vg in vgs.items():
        params, grads = H.init(columns), []
        epoch(vg, params, data, HB.LR, nb, grads)
        got[name] = (params, grads)
    same = all(np.array_equal(a, b) for a, b in zip(got["sequential"][0], got["parallel=True"][0])) \
        and all(np.array_equal(a, b) for ga, gb in zip(got["sequential"][1], got["parallel=True"][1])
                for a, b in zip(ga, gb))
    ref = H.init(columns)
    X, coarse, fine = data
    _, ref_g = HB.numpy_grads(*ref, X[:16], coarse[:16], fine[:16])
    _, g0 = vgs["sequential"](*H.init(columns), X[:16], coarse[:16], fine[:16])
    ref_ok = all(np.allclose(a, b, rtol=1e-9, atol=1e-12) for a, b in zip(g0, ref_g))
    times = {n: ([], []) for n in vgs}
    params = {n: H.init(columns) for n in vgs}
    for r in range(rounds):
        for n, vg in vgs.items():
            w, c = epoch(vg, params[n], data, HB.LR, nb)
            if r:
                times[n][0].append(w)
                times[n][1].append(c)
    med = {n: (statistics.median(w), statistics.median(c), min(w)) for n, (w, c) in times.items()}
    dec = vgs["parallel=True"].specialize(*H.init(columns), *(d[:16] for d in data)).gen.decisions
    return med, same, ref_ok, [d.note() for d in dec]


def measure_fit(columns, rounds, nb):
    """The same epochs through `jitad.fit(train_step(..., optimizer=SGD), batch_size=16)`: the
    step (forward, adjoint and the SGD update) compiled in one epoch loop, sequential vs
    parallel=True, alternating round by round; per mini-batch (wall, CPU, best wall), and
    whether the parameters after the first epoch are identical."""
    data = H.make_data(nb)
    f = LOSSES[columns]
    wrt = tuple(range(8))
    steps = {n: jitad.train_step(f, wrt=wrt, optimizer=jitad.optim.SGD(lr=HB.LR), parallel=par)
             for n, par in (("sequential", False), ("parallel=True", True))}
    params = {n: H.init(columns) for n in steps}
    times = {n: ([], []) for n in steps}
    for r in range(rounds + 1):
        for n, step in steps.items():
            t0, c0 = time.perf_counter(), time.process_time()
            jitad.fit(step, params[n], data=data, epochs=1, batch_size=H.BATCH, shuffle=False,
                      progress=False)
            if r:
                times[n][0].append((time.perf_counter() - t0) / nb)
                times[n][1].append((time.process_time() - c0) / nb)
        if r == 0:      # the first epoch (it compiles): the same parameters after it
            same = all(np.array_equal(a, b) for a, b in zip(params["sequential"],
                                                            params["parallel=True"]))
    return {n: (statistics.median(w), statistics.median(c), min(w))
            for n, (w, c) in times.items()}, same


def alternate(fns, args, n, rounds):
    """Each function of `fns` (name -> callable) called n times in turn, `rounds` times: the
    median time per call of each, in `fns`' order."""
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(n):
                fn(*args)
            times[k].append((time.perf_counter() - t0) / n)
    return [statistics.median(times[k]) for k in fns]


def measure_small(f, args, n=20000, rounds=7):
    vgs = {"sequential": jitad.grad(f, wrt=0), "parallel=True": jitad.grad(f, wrt=0, parallel=True)}
    for vg in vgs.values():
        vg(*args)
    s, p = alternate(vgs, args, n, rounds)
    dec = vgs["parallel=True"].specialize(*args).gen.decisions
    return s, p, [d.note() for d in dec]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batches", type=int, default=32)
    ap.add_argument("--columns", type=int, nargs="*", default=[1, 2, 4])
    ap.add_argument("--threshold", action="store_true", help="the threshold table only")
    ap.add_argument("--models", action="store_true",
                    help="the two-tower model and the trajectories only")
    args = ap.parse_args(argv)
    if args.models:
        print(f"load average {os.getloadavg()[0]:.2f}")
        other_models(args.rounds)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return
    if args.threshold:
        print(f"load average {os.getloadavg()[0]:.2f}")
        threshold_table()
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        return
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print("per mini-batch: median over rounds (CPU time), and the best round (the least "
          "disturbed by other processes)")
    print(f"{'columns':>7} {'sequential ms (cpu)':>20} {'parallel ms (cpu)':>19} {'speed-up':>8} "
          f"{'best seq':>8} {'best par':>8} {'best speed-up':>13} {'bitwise':>7} {'vs NumPy':>8}")
    for k in args.columns:
        med, same, ref_ok, notes = measure_columns(k, args.rounds, args.batches)
        (sw, sc, sb), (pw, pc, pb) = med["sequential"], med["parallel=True"]
        print(f"{k:>7} {sw * 1e3:>10.2f} ({sc * 1e3:6.2f}) {pw * 1e3:>9.2f} ({pc * 1e3:6.2f}) "
              f"{sw / pw:>7.2f}x {sb * 1e3:>8.2f} {pb * 1e3:>8.2f} {sb / pb:>12.2f}x "
              f"{str(same):>7} {str(ref_ok):>8}")
        for n in notes:
            print(f"        group: {n}")
    print("the same through jitad.fit(train_step(..., SGD, parallel=...), batch_size=16): "
          "step and update compiled in one epoch loop")
    for k in args.columns:
        med, same = measure_fit(k, args.rounds, args.batches)
        (sw, sc, sb), (pw, pc, pb) = med["sequential"], med["parallel=True"]
        print(f"{k:>7} {sw * 1e3:>10.2f} ({sc * 1e3:6.2f}) {pw * 1e3:>9.2f} ({pc * 1e3:6.2f}) "
              f"{sw / pw:>7.2f}x {sb * 1e3:>8.2f} {pb * 1e3:>8.2f} {sb / pb:>12.2f}x "
              f"{str(same):>7}")
    rng = np.random.default_rng(0)
    A, B_, C, D = (rng.normal(size=(4, 4)) for _ in range(4))
    for name, f, a in (("two 4x4 matrix helpers", small2, (A, B_, C, D, rng.normal(size=4))),
                       ("two vector helpers", vec2, tuple(rng.normal(size=8) for _ in range(3)))):
        s, p, notes = measure_small(f, a)
        print(f"small: {name}: sequential {s * 1e6:.2f} us, parallel=True {p * 1e6:.2f} us, "
              f"ratio {p / s:.3f} (goal <= 1.05); {'; '.join(notes) or 'no group'}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")




# ---------------------------------------------------------------------------
# the threshold: two independent dense layers of growing input width, dispatched always
# (threshold 0) vs sequential; where the speed-up crosses 1 is the smallest branch worth a
# thread (docs/parallel.md)
# ---------------------------------------------------------------------------
def layer(W, b, X):
    return np.tanh(X @ W + b)


def two_layers(Wa, ba, Wb, bb, X):
    return np.sum(layer(Wa, ba, X) * layer(Wb, bb, X))


def threshold_table(widths=(4, 16, 64, 256, 1024, 3072), rounds=7):
    os.environ["JITAD_PAR_THRESHOLD"] = "0"
    rng = np.random.default_rng(0)
    vgs = {"sequential": jitad.value_and_grad(two_layers, wrt=(0, 2)),
           "dispatched": jitad.value_and_grad(two_layers, wrt=(0, 2), parallel=True)}
    print(f"{'width':>6} {'work/branch':>15} {'sequential us (cpu)':>20} "
          f"{'dispatched us (cpu)':>20} {'speed-up':>8}")
    for k in widths:
        args = (rng.normal(size=(k, 64)), rng.normal(size=64), rng.normal(size=(k, 64)),
                rng.normal(size=64), rng.normal(size=(16, k)))
        n = max(20, min(20000, int(2e7 / (16 * k * 64 * 6))))
        times = {name: ([], []) for name in vgs}
        for vg in vgs.values():
            vg(*args)
        for _ in range(rounds):
            for name, vg in vgs.items():
                t0, c0 = time.perf_counter(), time.process_time()
                for _ in range(n):
                    vg(*args)
                times[name][0].append((time.perf_counter() - t0) / n)
                times[name][1].append((time.process_time() - c0) / n)
        (sw, sc), (pw, pc) = ((statistics.median(w), statistics.median(c))
                              for w, c in times.values())
        elems = 2 * 16 * k * 64 + k * 64 + 64 + 16 * k     # parallel.work: FLOPs + elements
        print(f"{k:>6} {elems:>15,} {sw * 1e6:>10.1f} ({sc * 1e6:7.1f}) "
              f"{pw * 1e6:>10.1f} ({pc * 1e6:7.1f}) {sw / pw:>7.2f}x")
    del os.environ["JITAD_PAR_THRESHOLD"]


# ---------------------------------------------------------------------------
# issue 15's other two models: a two-tower model (two independent dense stacks joined at the
# loss) and a batch of independent per-sample loops (ODE trajectories integrated by helpers)
# ---------------------------------------------------------------------------
def tower(W1, b1, W2, b2, X):
    return np.tanh(np.maximum(X @ W1 + b1, 0.0) @ W2 + b2)


def two_tower(Wu1, bu1, Wu2, bu2, Wi1, bi1, Wi2, bi2, U, I, y):
    u = tower(Wu1, bu1, Wu2, bu2, U)
    v = tower(Wi1, bi1, Wi2, bi2, I)
    z = np.sum(u * v, axis=1)
    return np.mean(np.log1p(np.exp(-y * z)))


def trajectory(k, y0, steps):
    """Explicit Euler on dy/dt = -k y + sin(y), `steps` steps of 0.01: a per-sample loop."""
    y = y0
    for _ in range(steps):
        y = y + 0.01 * (np.sin(y) - k * y)
    return y


def four_trajectories(k, Y0, target, steps):
    a = trajectory(k, Y0[0], steps)
    b = trajectory(k, Y0[1], steps)
    c = trajectory(k, Y0[2], steps)
    d = trajectory(k, Y0[3], steps)
    return np.sum((a - target) ** 2) + np.sum((b - target) ** 2) + \
        np.sum((c - target) ** 2) + np.sum((d - target) ** 2)


def stream_step(W, H, x):
    return np.tanh(H @ W + x)


def two_streams(Wa, Wb, X):
    """Two recurrences over the same inputs, stepped together: each step's two helper calls are
    independent, a group inside the loop (one dispatch per step, forward and adjoint)."""
    Ha = np.zeros((X.shape[1], Wa.shape[0]))
    Hb = np.zeros((X.shape[1], Wb.shape[0]))
    for t in range(X.shape[0]):
        Ha = stream_step(Wa, Ha, X[t])
        Hb = stream_step(Wb, Hb, X[t])
    return np.sum(Ha * Hb)


def measure_pair(f, args, wrt, rounds=7, target_s=0.2):
    """(sequential s/call, parallel s/call, bitwise equal, the group notes) for one function:
    value_and_grad sequential vs parallel=True, alternating round by round."""
    vgs = {"sequential": jitad.value_and_grad(f, wrt=wrt),
           "parallel=True": jitad.value_and_grad(f, wrt=wrt, parallel=True)}
    outs = [vg(*args) for vg in vgs.values()]
    same = outs[0][0] == outs[1][0] and all(
        np.array_equal(a, b) for a, b in zip(outs[0][1], outs[1][1]))
    t0 = time.perf_counter()
    vgs["sequential"](*args)
    n = max(3, int(target_s / max(time.perf_counter() - t0, 1e-6)))
    s, p = alternate(vgs, args, n, rounds)
    dec = vgs["parallel=True"].specialize(*args).gen.decisions
    return s, p, same, [d.note() for d in dec]


def models():
    """(name, function, arguments, wrt) of the two-tower model, the trajectories and the two
    streams (a group inside a loop)."""
    rng = np.random.default_rng(0)
    B, D, Hd, E = 256, 512, 256, 64
    towers = [a for _ in range(2) for a in (rng.normal(size=(D, Hd)) / np.sqrt(D),
                                           np.zeros(Hd), rng.normal(size=(Hd, E)) / np.sqrt(Hd),
                                           np.zeros(E))]
    U, I = rng.normal(size=(B, D)), rng.normal(size=(B, D))
    y = np.where(rng.random(B) < 0.5, -1.0, 1.0)
    traj = (0.7, rng.normal(size=(4, 4096)), np.zeros(4096), 200)
    Hs, Bs, T = 256, 64, 20
    streams = (rng.normal(size=(Hs, Hs)) / np.sqrt(Hs), rng.normal(size=(Hs, Hs)) / np.sqrt(Hs),
               rng.normal(size=(T, Bs, Hs)))
    return [(f"two towers ({B} x {D} -> {Hd} -> {E}, each)", two_tower,
             tuple(towers) + (U, I, y), tuple(range(8))),
            ("four trajectories (helpers with a 200-step loop, 4,096 samples each)",
             four_trajectories, traj, (0,)),
            (f"two streams stepped in one loop ({T} steps of {Bs} x {Hs} @ {Hs} x {Hs} each)",
             two_streams, streams, (0, 1))]


def other_models(rounds=7):
    print("issue 15's other models: value_and_grad per call, sequential vs parallel=True")
    for name, f, args, wrt in models():
        s, p, same, notes = measure_pair(f, args, wrt, rounds)
        print(f"{name}: sequential {s * 1e3:.2f} ms, parallel=True {p * 1e3:.2f} ms, speed-up "
              f"{s / p:.2f}x, bitwise {same}; {'; '.join(notes) or 'no group'}")


if __name__ == "__main__":
    main()
