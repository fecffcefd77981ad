"""Second-order triage over a gradient corpus: which functions `jvp` / `hvp` reach.

Takes: module names of `tests/*_funcs` corpora (`python -m tests.second_triage
tests.heldout14_funcs tests.heldout15_funcs`; `V=1` prints the traceback of each crash).
Does: for every case (a function, its arguments, wrt) whose wrt arguments are floats or float
arrays and whose output is one finite float, runs `jvp` and `hvp` on the Python backend and in
eager mode along a random direction, against central differences of the function (jvp) and of
eager mode's gradient (hvp), and prints one line per case: `ok`, or per transformation `ok`,
`WRONG(relative error)`, `refused: <first line>` or `CRASH <exception>`.
Guarantees: a report, not a test (nothing is asserted, the arguments are copied before every
call); the directions come from one seeded generator, so two runs print the same lines.
Each finding fixed gets its regression test (tests/test_second_reach.py).
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback

import numpy as np

import jitad

H = 1e-5            # central-difference step
RTOL = 1e-4         # relative error above which a result is WRONG


def cases_of(modname):
    """(fn, args, wrt) of a corpus module: every public function taking no arguments that
    returns a list of such triples, and its `CASES` of (name, fn, make_args, wrt)."""
    m = importlib.import_module(modname)
    out = []
    for name, obj in list(vars(m).items()):
        if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != m.__name__:
            continue
        try:
            params = inspect.signature(obj).parameters.values()
        except (TypeError, ValueError):
            continue
        if any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in params):
            continue
        try:
            r = obj()
        except Exception:
            continue
        if isinstance(r, list) and r and all(isinstance(c, tuple) and len(c) == 3
                                             and callable(c[0]) for c in r):
            out += r
    for c in getattr(m, "CASES", ()):
        if isinstance(c, tuple) and len(c) == 4:
            _, fn, make, wrt = c
            try:
                out.append((fn, make(), wrt))
            except Exception:
                pass
    return out


def _float_arg(a) -> bool:
    return (isinstance(a, float) and not isinstance(a, bool)) or \
        (isinstance(a, np.ndarray) and a.dtype == np.float64)


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _moved(args, wrt, vs, h):
    a = list(_copy(args))
    for i, v in zip(wrt, vs):
        a[i] = a[i] + h * v
    return tuple(a)


def _flat(t):
    return np.concatenate([np.ravel(np.asarray(x, float)) for x in t]) if len(t) else np.zeros(0)


def _rel(a, b):
    return float(np.max(np.abs(a - b)) / (1e-8 + np.max(np.abs(b)))) if b.size else 0.0


def run(fn, args, wrt, rng):
    """The report line of one case, or None when it is out of scope."""
    name = getattr(fn, "__name__", "?")
    wrt = tuple(wrt) if isinstance(wrt, (tuple, list)) else (wrt,)
    if not all(isinstance(w, int) for w in wrt) or not all(_float_arg(args[w]) for w in wrt):
        return None
    try:
        y0 = fn(*_copy(args))
    except Exception:
        return None
    if not (isinstance(y0, float) or (np.ndim(y0) == 0 and np.isfinite(y0))):
        return None
    vs = tuple(rng.standard_normal(np.shape(args[w])) if np.ndim(args[w])
               else float(rng.standard_normal()) for w in wrt)
    single = len(wrt) == 1
    w = wrt[0] if single else wrt
    try:
        fd_jvp = (float(fn(*_moved(args, wrt, vs, H))) -
                  float(fn(*_moved(args, wrt, vs, -H)))) / (2 * H)
        ge = jitad.grad(fn, wrt=w, mode="eager")
        gp, gm = ge(*_moved(args, wrt, vs, H)), ge(*_moved(args, wrt, vs, -H))
        fd_hvp = (_flat((gp,) if single else gp) - _flat((gm,) if single else gm)) / (2 * H)
    except Exception as e:
        return f"{name:34s} reference failed: {type(e).__name__}: {str(e)[:80]}"
    res = {}
    for mode in ("compiled", "eager"):
        f2 = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
        for op in ("jvp", "hvp"):
            try:
                if op == "jvp":
                    _, yd = jitad.jvp(f2, wrt=w, mode=mode)(
                        *_copy(args), tangents=vs[0] if single else vs)
                    err = abs(float(yd) - fd_jvp) / (1e-6 + abs(fd_jvp))
                else:
                    hv = jitad.hvp(f2, wrt=w, mode=mode)(*_copy(args), v=vs[0] if single else vs)
                    err = _rel(_flat((hv,) if single else hv), fd_hvp)
                res[f"{op}-{mode}"] = "ok" if err < RTOL else f"WRONG({err:.2g})"
            except jitad.JitadError as ex:
                res[f"{op}-{mode}"] = "refused: " + str(ex).splitlines()[0][:90]
            except Exception as ex:
                res[f"{op}-{mode}"] = f"CRASH {type(ex).__name__}: {str(ex)[:90]}"
                if os.environ.get("V"):
                    traceback.print_exc()
    if all(v == "ok" for v in res.values()):
        return f"{name:34s} ok"
    return f"{name:34s} " + " | ".join(f"{k}={v}" for k, v in res.items())


def main(modules):
    rng = np.random.default_rng(0)
    for mod in modules:
        cases = cases_of(mod)
        print(f"## {mod}: {len(cases)} cases", flush=True)
        for fn, args, wrt in cases:
            try:
                line = run(fn, args, wrt, rng)
            except Exception as e:
                line = f"{getattr(fn, '__name__', '?'):34s} HARNESS {type(e).__name__}: {e}"
            if line:
                print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
