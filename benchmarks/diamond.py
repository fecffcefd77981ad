"""Workload 6: a diamond graph of depth n (the seed's design): both compiled and eager must be
linear in n.

    def diamond(x, w, n):
        for k in range(n):
            a = (1.0 - w) * x       # x fans out to two branches ...
            b = w * math.sin(x)
            x = a + b               # ... that join again
        return x

Every level uses x twice, so a reverse pass that revisits shared nodes instead of visiting
them in topological order costs 2^n; a correct one costs O(n). Gradient wrt (x, w) at
x = 1.0, w = 0.5. The fixed point x = 0 is marginal (d level / dx = 1 there), so x decays like
1/sqrt(k) and d/dx like n^-3: nothing underflows to denormals at any n. Reported: time vs n (log-log) and the fitted exponent of time ~ n^p over the
measured sizes (p = 1: linear).
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "diamond"
TITLE = ("Diamond graph of depth n (`a = (1-w)*x; b = w*sin(x); x = a + b`), "
         "gradient wrt (x, w)")
X0, W0 = 1.0, 0.5


def diamond(x, w, n):
    for k in range(n):
        a = (1.0 - w) * x
        b = w * math.sin(x)
        x = a + b
    return x


@numba.njit
def diamond_handwritten(x, w, n):
    tape = np.empty(n)
    for k in range(n):
        tape[k] = x
        x = (1.0 - w) * x + w * math.sin(x)
    dx = 1.0
    dw = 0.0
    for k in range(n - 1, -1, -1):
        xk = tape[k]
        dw += dx * (math.sin(xk) - xk)
        dx = dx * ((1.0 - w) + w * math.cos(xk))
    return x, (dx, dw)


def jitad_first_call():
    return jitad.value_and_grad(diamond, wrt=(0, 1))(X0, W0, 100)


def _jax_step(x, w):
    import jax.numpy as jnp
    return (1.0 - w) * x + w * jnp.sin(x)


def systems(ctx):
    slow = 1000 if ctx.quick else 10_000
    tslow = 1000 if ctx.quick else 100_000      # Tangent: ~0.4 µs per level
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda n: C.Case(lambda: diamond_handwritten(X0, W0, n)))]
    vg = jitad.value_and_grad(diamond, wrt=(0, 1))
    out.append(C.System("jitad compiled", make=lambda n: C.Case(lambda: vg(X0, W0, n))))
    ve = jitad.value_and_grad(diamond, wrt=(0, 1), mode="eager")
    out.append(C.System("jitad eager", max_size=10_000 if ctx.quick else 100_000,
                        make=lambda n: C.Case(lambda: ve(X0, W0, n))))

    out += C.scalar_loop_peers(diamond, X0, W0, _jax_step, slow, tslow,
                               autograd_max=100 if ctx.quick else slow)
    return out


def exponent(row, sizes):
    """Least-squares slope of log(time) vs log(n) over the measured (not scaled) sizes with
    n >= 1,000 (below that the per-call cost dominates), or the two largest measured sizes."""
    pts = [(s, row["results"][str(s)]["median_s"]) for s in sizes
           if str(s) in row["results"] and "median_s" in row["results"][str(s)]
           and "scaled_from" not in row["results"][str(s)]]
    big = [p for p in pts if p[0] >= 1000]
    pts = big if len(big) >= 2 else pts[-2:]
    if len(pts) < 2:
        return None
    x = np.log([p[0] for p in pts])
    y = np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def run(ctx):
    sizes = [10, 100, 1000, 10_000] if ctx.quick else [10, 100, 1000, 10_000, 100_000, 1_000_000]
    rows = C.run_systems(ctx, systems(ctx), sizes, rtol=1e-9)
    slopes = {}
    for row in rows:
        if row["status"] == C.OK:
            p = exponent(row, sizes)
            slopes[row["system"]] = p
            if p is not None:
                row["note"] = (row["note"] + "; " if row["note"] else "") + f"time ∝ n^{p:.2f}"
    fmt = "n^{:.2f}"
    fd = C.fd_check(diamond, (X0, W0, 10), (0, 1), diamond_handwritten(X0, W0, 10)[1], "n = 10")
    return {"title": TITLE, "size_label": "n", "sizes": sizes, "rows": rows, "plot": "loglog",
            "reference_fd": fd,
            "reference": "hand-written Numba", "slopes": slopes,
            "description": "The exponent p in the notes is fitted over the measured (not scaled) "
                           "sizes with n ≥ 1,000 (else the two largest); p ≈ 1 is linear (an exponential reverse pass could not even "
                           "finish n = 100).",
            "goals": [C.goal("jitad compiled linear in n (fitted exponent ≤ 1.15)",
                             slopes.get("jitad compiled"), 1.15, fmt=fmt),
                      C.goal("jitad eager linear in n (fitted exponent ≤ 1.15)",
                             slopes.get("jitad eager"), 1.15, fmt=fmt)]}
