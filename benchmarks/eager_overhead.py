#!/usr/bin/env python
"""Workload 3: per-op overhead, in the style of autograd's benchmarks/bench_core.py.

Scalar functions whose cost is pure bookkeeping (recording + reverse pass):

  short  x ** 2                          (1 op: mostly the per-call cost)
  long   50 chained sin                  (50 ops)
  fan    x = (x + x) / 2, 10^4 times     (2 * 10^4 ops: fan-out / fan-in at every step)

Each time is a full gradient (forward + backward) at x = 2.0. jitad's eager mode is measured
two ways: the Var API (`x = Var(2.0, requires_grad=True); f(x).backward()`, NumPy calls
dispatched through __array_ufunc__) and `value_and_grad(..., mode="eager")` (which rebuilds f
with eager names on every call and pauses the cyclic GC for the call).

Standalone, the same as `python -m benchmarks eager_overhead [options]`:

    python benchmarks/eager_overhead.py [--quick] [--repeats R]   (--repeat R also accepted)
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
from jitad import eager  # noqa: E402

NAME = "eager_overhead"
TITLE = "Per-op overhead (autograd's bench_core style): scalar gradients"
FAN_N = 10_000
X0 = 2.0
OPS = {"short": 1, "long": 50, "fan": 2 * FAN_N}
SIZE_NAMES = {"short": "short: x**2 (1 op)", "long": "long: 50 chained sin (50 ops)",
              "fan": f"fan: (x+x)/2 ×{FAN_N:,} ({2 * FAN_N:,} ops)"}


def op_short(x):
    return x ** 2


def op_long(x):
    for k in range(50):
        x = math.sin(x)
    return x


def op_fan(x):
    for k in range(FAN_N):
        x = (x + x) / 2
    return x


FUNCS = {"short": op_short, "long": op_long, "fan": op_fan}


@numba.njit
def short_handwritten(x):
    return x ** 2, 2.0 * x


@numba.njit
def long_handwritten(x):
    tape = np.empty(50)
    for k in range(50):
        tape[k] = x
        x = math.sin(x)
    d = 1.0
    for k in range(49, -1, -1):
        d *= math.cos(tape[k])
    return x, d


@numba.njit
def fan_handwritten(x, n):
    for k in range(n):
        x = (x + x) / 2
    d = 1.0
    for k in range(n):
        d_sum = d / 2           # both uses of x receive d_sum
        d = d_sum + d_sum
    return x, d


HANDWRITTEN = {"short": lambda: short_handwritten(X0), "long": lambda: long_handwritten(X0),
               "fan": lambda: fan_handwritten(X0, FAN_N)}


def jitad_first_call():
    return jitad.value_and_grad(op_long)(X0)


def systems(ctx):
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda w: C.Case(HANDWRITTEN[w]))]
    vgs = {w: jitad.value_and_grad(f) for w, f in FUNCS.items()}
    out.append(C.System("jitad compiled", make=lambda w: C.Case(lambda: vgs[w](X0))))
    var_fns = {w: C.rebind(f, math=np) for w, f in FUNCS.items()}

    def var_case(w):
        f = var_fns[w]

        def run():
            x = eager.Var(X0, requires_grad=True)
            y = f(x)
            y.backward()
            return y.value, x.grad
        return C.Case(run)
    out.append(C.System("jitad eager (Var API)", make=var_case,
                        note="NumPy dispatch through __array_ufunc__"))
    ves = {w: jitad.value_and_grad(f, mode="eager") for w, f in FUNCS.items()}
    out.append(C.System("jitad eager (value_and_grad)", make=lambda w: C.Case(lambda: ves[w](X0)),
                        note="pauses the cyclic GC during a call"))

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, _ = C.autograd_namespaces()
        gas = {w: autograd.value_and_grad(C.rebind(f, math=am)) for w, f in FUNCS.items()}
        out.append(C.System("autograd", version=C.peer_version("autograd"),
                            make=lambda w: C.Case(lambda: gas[w](X0))))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, _ = C.torch_namespaces()
        fts = {w: C.rebind(f, math=tm) for w, f in FUNCS.items()}

        def torch_case(w):
            f = fts[w]

            def run():
                x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
                y = f(x)
                y.backward()
                return y.item(), x.grad.item()
            return C.Case(run)
        out.append(C.System("torch eager", version=C.peer_version("torch"), make=torch_case))

    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit(grad)", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        from jax import lax
        jfs = {"short": lambda x: x ** 2,
               "long": lambda x: lax.fori_loop(0, 50, lambda k, x: jnp.sin(x), x),
               "fan": lambda x: lax.fori_loop(0, FAN_N, lambda k, x: (x + x) / 2, x)}

        def jax_case(w):
            g = jax.jit(jax.value_and_grad(jfs[w]))
            return C.Case(lambda: jax.block_until_ready(g(X0)))
        out.append(C.System("JAX jit(grad)", version=C.peer_version("jax"), make=jax_case,
                            note="loops as lax.fori_loop; measures dispatch overhead"))

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent", status=C.SKIPPED, note=why))
    else:
        def tangent_case(w):
            try:
                g = tangent.grad(C.rebind(FUNCS[w], math=np), preserve_result=True, verbose=0)
            except Exception as e:
                raise C.Unsupported(C._err_text(e))
            return C.Case(lambda: g(X0)[::-1])
        out.append(C.System("Tangent", version=C.peer_version("tangent"), make=tangent_case,
                            note="`math` bound to NumPy"))
    return out


def run(ctx):
    sizes = ["short", "long", "fan"]
    rows = C.run_systems(ctx, systems(ctx), sizes, rtol=1e-12)
    goals = []
    for peer_name, limit, label in (("autograd", 1.0, "≤ autograd's"),
                                     ("torch eager", 2.0, "≤ 2× torch eager's")):
        worst = None
        for s in sizes:
            r = C.ratio(rows, "jitad eager (value_and_grad)", peer_name, s)
            if r is None:
                worst = None
                break
            worst = r if worst is None else max(worst, r)
        goals.append(C.goal(f"jitad eager per-op overhead {label} (worst of short/long/fan; "
                            f"eager_overhead.py's own goal)", worst, limit))
    fd = C.fd_check(op_long, (X0,), (0,), (long_handwritten(X0)[1],), "long")
    return {"title": TITLE, "sizes": sizes, "rows": rows, "ops": OPS, "size_names": SIZE_NAMES,
            "reference_fd": fd,
            "plot": "bars", "reference": "hand-written Numba", "goals": goals,
            "description": "Time per gradient call (per op in parentheses). Compiled systems "
                           "(hand-written Numba, jitad compiled, JAX) show their call overhead; "
                           "the eager systems pay it per recorded op."}


if __name__ == "__main__":
    from benchmarks.__main__ import main
    argv = [a.replace("--repeat", "--repeats", 1) if a == "--repeat" or a.startswith("--repeat=")
            else a for a in sys.argv[1:]]
    sys.exit(main([NAME] + argv))
