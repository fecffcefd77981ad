#!/usr/bin/env python
"""Workload 1: the gradient of a long scalar recurrence, time vs n (log-log).

    def recurrence(x, a, n):
        for k in range(n):
            x = a * x + 0.01 * math.sin(x)
        return x

gradient with respect to (x, a) at x = 0.5, a = 0.99, n = 1e3, 1e4, 1e5, 1e6 (`--quick`: 1e3,
1e4). With a = 0.99 the fixed point x = 0 is marginal (derivative exactly 1): x decays like
1/sqrt(k) (0.017 at n = 1e6) and d/dx like n^-1.5, so no value underflows. (With a stable
fixed point, e.g. a = 0.995, the gradient underflows after ~10^5 steps and then sticks at the
smallest denormal: every later step runs on the CPU's slow denormal path, except in XLA, which
flushes denormals to zero -- a timing artifact, not a property of the systems.)

Standalone, the same as `python -m benchmarks scalar_recurrence [options]`:

    python benchmarks/scalar_recurrence.py [--quick] [--repeats R] [--reuse-cache]
"""
import os
import sys

if __name__ == "__main__":   # standalone: the suite's package importable, threads pinned first
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import benchmarks
    benchmarks.set_thread_env()

import math  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402

import jitad  # noqa: E402
from benchmarks import common as C  # noqa: E402

NAME = "scalar_recurrence"
# the goals of the earlier standalone script, checked by the suite after the cached probe
COMPILE_GOALS = {"cold_s": 1.5, "cached_s": 0.2}
TITLE = "Scalar recurrence `x = a*x + 0.01*sin(x)`, gradient wrt (x, a)"
X0 = 0.5
A = 0.99


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


def jitad_first_call():
    """Build the jitad gradient and call it once (what cold/cached compile time measures)."""
    vg = jitad.value_and_grad(recurrence, wrt=(0, 1))
    return vg(X0, A, 1000)


def _jax_step(x, a):
    import jax.numpy as jnp
    return a * x + 0.01 * jnp.sin(x)


def systems(ctx):
    slow = 1000 if ctx.quick else 10_000         # eager systems: ~10-100 µs per step
    tslow = 1000 if ctx.quick else 100_000       # Tangent: ~4 µs per step
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda n: C.Case(lambda: recurrence_handwritten(X0, A, n)))]

    vg = jitad.value_and_grad(recurrence, wrt=(0, 1))
    out.append(C.System("jitad compiled", make=lambda n: C.Case(lambda: vg(X0, A, n))))
    ve = jitad.value_and_grad(recurrence, wrt=(0, 1), mode="eager")
    out.append(C.System("jitad eager", max_size=slow, make=lambda n: C.Case(lambda: ve(X0, A, n))))

    out += C.scalar_loop_peers(recurrence, X0, A, _jax_step, slow, tslow,
                               tangent_note="`math` bound to NumPy (no `math.*` rules)")
    return out


def run(ctx):
    sizes = [10 ** 3, 10 ** 4] if ctx.quick else [10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6]
    rows = C.run_systems(ctx, systems(ctx), sizes, rtol=1e-9)
    big = sizes[-1]
    ratios = [C.ratio(rows, "jitad compiled", "hand-written Numba", n) for n in sizes]
    worst, at = (None, None) if any(r is None for r in ratios) else max(zip(ratios, sizes))
    goals = [
        C.goal("jitad ≤ 1.2× hand-written at every n", worst, 1.2,
               fmt="{:.2f}× (worst, n = " + (C.fmt_size(at) if at else "?") + ")"),
        C.goal(f"jitad ≥ 1,000× faster than torch eager (n = {C.fmt_size(big)})",
               C.ratio(rows, "torch eager", "jitad compiled", big), 1000, "higher", "{:,.0f}×"),
        C.goal(f"jitad ≥ 1,000× faster than autograd (n = {C.fmt_size(big)})",
               C.ratio(rows, "autograd", "jitad compiled", big), 1000, "higher", "{:,.0f}×"),
    ]
    fd = C.fd_check(recurrence, (X0, A, 200), (0, 1), recurrence_handwritten(X0, A, 200)[1],
                    "n = 200")
    return {"title": TITLE, "size_label": "n", "sizes": sizes, "rows": rows, "goals": goals,
            "reference_fd": fd,
            "plot": "loglog", "reference": "hand-written Numba", "unit": "time per gradient"}


if __name__ == "__main__":
    from benchmarks.__main__ import main
    sys.exit(main([NAME] + sys.argv[1:]))
