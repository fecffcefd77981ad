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

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, _ = C.autograd_namespaces()
        ga = autograd.value_and_grad(C.rebind(diamond, math=am), argnum=(0, 1))
        out.append(C.System("autograd", max_size=100 if ctx.quick else slow,
                            version=C.peer_version("autograd"),
                            make=lambda n: C.Case(lambda: ga(X0, W0, n))))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, _ = C.torch_namespaces()
        ft = C.rebind(diamond, math=tm)

        def torch_case(n):
            def run():
                x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
                w = torch.tensor(W0, dtype=torch.float64, requires_grad=True)
                y = ft(x, w, n)
                gx, gw = torch.autograd.grad(y, (x, w))
                return y.item(), (gx.item(), gw.item())
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
            def f(x, w):
                return lax.fori_loop(0, n, lambda k, x: (1.0 - w) * x + w * jnp.sin(x), x)
            g = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))
            return C.Case(lambda: jax.block_until_ready(g(X0, W0)))
        out.append(C.System("JAX jit(grad), lax.fori_loop", version=C.peer_version("jax"),
                            make=jax_case, note="n static (one compile per n)"))

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent", status=C.SKIPPED, note=why))
    else:
        def tangent_case(n):
            try:
                g = tangent.grad(C.rebind(diamond, math=np), wrt=(0, 1), preserve_result=True,
                                 verbose=0)
            except Exception as e:
                raise C.Unsupported(C._err_text(e))

            def run():
                dx, dw, y = g(X0, W0, n)
                return y, (dx, dw)
            return C.Case(run)
        out.append(C.System("Tangent", max_size=tslow, version=C.peer_version("tangent"),
                            make=tangent_case, note="`math` bound to NumPy"))
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
