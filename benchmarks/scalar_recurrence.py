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


def systems(ctx):
    slow = 1000 if ctx.quick else 10_000         # eager systems: ~10-100 µs per step
    tslow = 1000 if ctx.quick else 100_000       # Tangent: ~4 µs per step
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda n: C.Case(lambda: recurrence_handwritten(X0, A, n)))]

    vg = jitad.value_and_grad(recurrence, wrt=(0, 1))
    out.append(C.System("jitad compiled", make=lambda n: C.Case(lambda: vg(X0, A, n))))
    ve = jitad.value_and_grad(recurrence, wrt=(0, 1), mode="eager")
    out.append(C.System("jitad eager", max_size=slow, make=lambda n: C.Case(lambda: ve(X0, A, n))))

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, anp = C.autograd_namespaces()
        ga = autograd.value_and_grad(C.rebind(recurrence, math=am), argnum=(0, 1))
        out.append(C.System("autograd", max_size=slow, version=C.peer_version("autograd"),
                            make=lambda n: C.Case(lambda: ga(X0, A, n))))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, _ = C.torch_namespaces()
        ft = C.rebind(recurrence, math=tm)

        def torch_case(n):
            def run():
                x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
                a = torch.tensor(A, dtype=torch.float64, requires_grad=True)
                y = ft(x, a, n)
                gx, ga_ = torch.autograd.grad(y, (x, a))
                return y.item(), (gx.item(), ga_.item())
            return C.Case(run)
        out.append(C.System("torch eager", max_size=slow, version=C.peer_version("torch"),
                            make=torch_case))

    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit(grad), lax.fori_loop", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        from jax import lax

        def jax_case(n):
            def f(x, a):
                return lax.fori_loop(0, n, lambda k, x: a * x + 0.01 * jnp.sin(x), x)
            g = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))   # n is static: one compile per n
            return C.Case(lambda: jax.block_until_ready(g(X0, A)))
        out.append(C.System("JAX jit(grad), lax.fori_loop", version=C.peer_version("jax"),
                            make=jax_case, note="n static (one compile per n)"))

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent", status=C.SKIPPED, note=why))
    else:
        def tangent_case(n):
            try:
                g = tangent.grad(C.rebind(recurrence, math=np), wrt=(0, 1), preserve_result=True,
                                 verbose=0)
            except Exception as e:
                raise C.Unsupported(C._err_text(e))

            def run():
                dx, da, y = g(X0, A, n)
                return y, (dx, da)
            return C.Case(run)
        out.append(C.System("Tangent", max_size=tslow, version=C.peer_version("tangent"),
                            make=tangent_case, note="`math` bound to NumPy (no `math.*` rules)"))
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
