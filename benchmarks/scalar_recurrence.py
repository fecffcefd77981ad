#!/usr/bin/env python
"""Benchmark: gradient of a long scalar recurrence, jitad vs a hand-written
Numba adjoint.

    python benchmarks/scalar_recurrence.py [--quick] [--repeats R] [--reuse-cache]

The function is

    def recurrence(x, a, n):
        for k in range(n):
            x = a * x + 0.01 * math.sin(x)
        return x

and the gradient is taken with respect to ``x`` and ``a``.  Reported:

* steady-state time per call for n = 1e3, 1e4, 1e5, 1e6 (``--quick``: 1e3,
  1e4): hand-written adjoint, jitad, ratio (goal: ratio <= 1.2);
* cold compile: the first ``vg(...)`` call in this process (goal <= 1.5 s);
* cached first call: in a *second* process that imports numba first (timed
  separately), the time of ``import jitad`` + the first ``vg(...)`` call
  (goal <= 0.2 s).

Unless ``--reuse-cache`` is given, ``NUMBA_CACHE_DIR`` is pointed at a fresh
temporary directory shared by this process and the probe process, so the
cold number is not served from an earlier run's Numba cache and the probe
sees exactly the cache written by this run.  (If jitad keeps a cache of its
own elsewhere, clear it for a truly cold number.)

The exit status is 0 whether or not the goals are met; it is 1 only if jitad
fails or its gradient disagrees with the hand-written adjoint.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"

_PROBE = "--cached-probe" in sys.argv[1:]
_OWN_CACHE_DIR = None
if _PROBE:
    # second process: numba (and with it numpy) is imported first and timed
    # on its own; the clock for "import jitad + first call" starts after it
    _t0 = time.perf_counter()
    import numba  # noqa: E402,F401

    _NUMBA_IMPORT_S = time.perf_counter() - _t0
    _T_JITAD_START = time.perf_counter()
elif "--reuse-cache" not in sys.argv[1:] and "NUMBA_CACHE_DIR" not in os.environ:
    _OWN_CACHE_DIR = tempfile.mkdtemp(prefix="jitad-bench-numba-cache-")
    os.environ["NUMBA_CACHE_DIR"] = _OWN_CACHE_DIR

import numpy as np  # noqa: E402
import numba  # noqa: E402

try:
    import jitad  # noqa: E402
except ImportError:  # not installed: use the checkout this script lives in
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import jitad  # noqa: E402

X0 = 0.5
A = 0.995  # attracting fixed point x* ~ 1.895, no overflow/underflow in x

GOAL_RATIO = 1.2
GOAL_COLD_S = 1.5
GOAL_CACHED_S = 0.2


@jitad.differentiable
def recurrence(x, a, n):
    for k in range(n):
        x = a * x + 0.01 * math.sin(x)
    return x


@numba.njit
def recurrence_handwritten(x, a, n):
    # forward sweep: push every x onto a preallocated tape
    tape = np.empty(n, dtype=np.float64)
    for k in range(n):
        tape[k] = x
        x = a * x + 0.01 * math.sin(x)
    value = x
    # reverse sweep
    x_bar = 1.0
    a_bar = 0.0
    for k in range(n - 1, -1, -1):
        xk = tape[k]
        a_bar += x_bar * xk
        x_bar = x_bar * (a + 0.01 * math.cos(xk))
    return value, (x_bar, a_bar)


def _time_per_call(f, args, repeats, min_sample_s=0.02):
    """Median over ``repeats`` samples of the per-call time (seconds); each
    sample runs enough calls to last at least ``min_sample_s``."""
    inner = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(inner):
            f(*args)
        dt = time.perf_counter() - t0
        if dt >= min_sample_s or inner >= 1 << 20:
            break
        inner *= 2
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            f(*args)
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def _close(a, b, rtol=1e-9):
    return abs(a - b) <= rtol * abs(b) + 1e-300


def _goal(ok):
    return "ok" if ok else "MISSED"


def run_probe():
    vg = jitad.value_and_grad(recurrence, wrt=(0, 1))
    value, grads = vg(X0, A, 1000)
    total = time.perf_counter() - _T_JITAD_START
    ref_value, ref_grads = recurrence_handwritten.py_func(X0, A, 1000)
    correct = _close(value, ref_value) and all(_close(g, r) for g, r in zip(grads, ref_grads))
    print("CACHED_PROBE " + json.dumps({
        "numba_import_s": _NUMBA_IMPORT_S,
        "jitad_import_and_first_call_s": total,
        "correct": bool(correct),
    }))
    return 0


def run_cached_probe_subprocess():
    cmd = [sys.executable, os.path.abspath(__file__), "--cached-probe"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
    for line in proc.stdout.splitlines():
        if line.startswith("CACHED_PROBE "):
            return json.loads(line[len("CACHED_PROBE "):]), None
    return None, f"probe process failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n in 1e3, 1e4 only")
    parser.add_argument("--repeats", type=int, default=7, help="timing samples (>= 5)")
    parser.add_argument("--reuse-cache", action="store_true",
                        help="do not point NUMBA_CACHE_DIR at a fresh temporary directory")
    parser.add_argument("--cached-probe", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.cached_probe:
        return run_probe()
    repeats = max(5, opts.repeats)
    sizes = [10 ** 3, 10 ** 4] if opts.quick else [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6]
    status = 0

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    if _OWN_CACHE_DIR:
        print(f"NUMBA_CACHE_DIR={_OWN_CACHE_DIR} (fresh)")

    # -- cold compile ------------------------------------------------------
    t0 = time.perf_counter()
    vg = jitad.value_and_grad(recurrence, wrt=(0, 1))
    t_make = time.perf_counter() - t0
    t0 = time.perf_counter()
    vg(X0, A, sizes[0])
    t_cold = time.perf_counter() - t0
    print(f"jitad.value_and_grad(...) construction: {t_make:.3f} s")
    print(f"cold compile s (first vg call): {t_cold:.3f} s   "
          f"[goal <= {GOAL_COLD_S} s: {_goal(t_cold <= GOAL_COLD_S)}]")

    recurrence_handwritten(X0, A, 10)  # compile the reference outside the timings

    # -- steady state ------------------------------------------------------
    print()
    print(f"{'n':>9} {'hand-written ms':>16} {'jitad ms':>12} {'ratio':>8}   goal ratio <= {GOAL_RATIO}")
    for n in sizes:
        ref_value, ref_grads = recurrence_handwritten(X0, A, n)
        value, grads = vg(X0, A, n)
        grads = tuple(float(g) for g in grads)
        ok = _close(float(value), ref_value) and len(grads) == 2 and all(
            _close(g, r) for g, r in zip(grads, ref_grads))
        if not ok:
            print(f"{n:>9} GRADIENT MISMATCH: jitad value={value!r} grads={grads!r}; "
                  f"hand-written value={ref_value!r} grads={ref_grads!r}")
            status = 1
            continue
        for _ in range(3):  # warm-up
            recurrence_handwritten(X0, A, n)
            vg(X0, A, n)
        t_hand = _time_per_call(recurrence_handwritten, (X0, A, n), repeats)
        t_jit = _time_per_call(vg, (X0, A, n), repeats)
        ratio = t_jit / t_hand
        print(f"{n:>9} {t_hand * 1e3:>16.4f} {t_jit * 1e3:>12.4f} {ratio:>8.3f}   "
              f"{_goal(ratio <= GOAL_RATIO)}")

    # -- cached first call in a second process -------------------------------
    print()
    probe, err = run_cached_probe_subprocess()
    if probe is None:
        print(err)
        status = 1
    else:
        cached = probe["jitad_import_and_first_call_s"]
        print(f"numba import s (probe process): {probe['numba_import_s']:.3f} s")
        print(f"cached first call s (after numba import; import jitad + first vg call): "
              f"{cached:.3f} s   [goal <= {GOAL_CACHED_S} s: {_goal(cached <= GOAL_CACHED_S)}]")
        if not probe["correct"]:
            print("probe process: GRADIENT MISMATCH")
            status = 1

    print()
    print("summary: "
          f"cold compile {t_cold:.3f} s (goal <= {GOAL_COLD_S}), "
          + (f"cached first call {probe['jitad_import_and_first_call_s']:.3f} s "
             f"(goal <= {GOAL_CACHED_S})" if probe else "cached first call n/a"))
    if _OWN_CACHE_DIR:
        shutil.rmtree(_OWN_CACHE_DIR, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
