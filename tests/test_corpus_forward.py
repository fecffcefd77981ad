"""Forward mode and second derivatives over the whole gradient corpus (`tests/corpus.py`).

For every case: the jvp along a random direction of the differentiated arguments equals
the central finite-difference directional derivative and the gradient's dot product with
the direction, and the eager jvp (dual numbers over the IR) equals the generated one; the
Hessian-vector product (the generated jvp read again and differentiated in reverse) equals
finite differences of the gradient along the direction, in both modes.

The generated code runs on the Python backend here (the same source Numba compiles, without
the minutes of compiling 150 functions); tests/test_forward.py and tests/test_hessian.py run
the Numba-compiled kernels on representative functions. A case jitad refuses in forward mode
must be refused with a `JitadError` (never a crash), in both modes alike.
"""
import numpy as np
import pytest

import jitad
from jitad.differentiable import as_differentiable

from .corpus import CASES
from .harness import assert_unchanged, snapshot


def _direction(args, wrt, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in wrt:
        a = args[i]
        v = rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal())
        out.append(np.asarray(v, dtype=a.dtype) if isinstance(a, np.ndarray) else v)
    return tuple(out)


def _moved(args, wrt, vs, h):
    out = list(args)
    for i, v in zip(wrt, vs):
        a = args[i]
        out[i] = (np.asarray(a, dtype=np.float64) + h * np.asarray(v, dtype=np.float64)
                  if np.ndim(a) else float(a) + h * float(v))
    return tuple(out)


def _f64(args):
    return tuple(a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32
                 else a for a in args)


def _fd_directional(fn, args, wrt, vs, h=1e-4):
    """The 4-point central difference of fn along vs (float64 throughout)."""
    f = lambda s: float(fn(*_moved(_f64(args), wrt, vs, s)))  # noqa: E731
    return (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h)


def _tol(case, args):
    f32 = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    return (1e-3, 1e-4) if f32 else (max(case.rtol, 1e-6), max(case.atol, 1e-7))


def _refused_alike(run_generated, run_eager):
    """Both modes refuse with a JitadError, or neither does: (generated, eager) results."""
    outcomes = []
    for run in (run_generated, run_eager):
        try:
            outcomes.append(run())
        except jitad.JitadError as e:
            outcomes.append(e)
    refused = [isinstance(o, jitad.JitadError) for o in outcomes]
    return outcomes, refused


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_jvp(case):
    args = case.make_args()
    snap = snapshot(args)
    vs = _direction(args, case.wrt, 7)
    tans = vs[0] if len(vs) == 1 else vs
    wrt = case.wrt[0] if len(case.wrt) == 1 else case.wrt
    d = as_differentiable(case.fn, "python")
    (gen, eag), refused = _refused_alike(
        lambda: jitad.jvp(d, wrt=wrt)(*args, tangents=tans),
        lambda: jitad.jvp(case.fn, wrt=wrt, mode="eager")(*case.make_args(), tangents=tans))
    if any(refused):
        pytest.skip(f"forward mode refuses {case.name}: {gen if refused[0] else eag}")
    assert_unchanged(args, snap, case.name)
    rtol, atol = _tol(case, args)
    y, ydot = gen
    fd = _fd_directional(case.fn, case.make_args(), case.wrt, vs)
    assert float(ydot) == pytest.approx(fd, rel=rtol * 10, abs=atol * 10), "jvp vs finite differences"
    grads = jitad.grad(d, wrt=case.wrt)(*case.make_args())
    dot = sum(float(np.sum(np.asarray(g, dtype=np.float64) * np.asarray(v, dtype=np.float64)))
              for g, v in zip(grads, vs))
    assert float(ydot) == pytest.approx(dot, rel=rtol, abs=atol), "jvp vs grad . v"
    assert float(eag[1]) == pytest.approx(float(ydot), rel=max(rtol, 1e-9), abs=atol), \
        "eager jvp vs generated"


SMALL = [c for c in CASES
         if sum(int(np.size(c.make_args()[i])) for i in c.wrt) <= 12
         and not any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in c.make_args())]


@pytest.mark.parametrize("case", SMALL, ids=lambda c: c.name)
def test_hvp(case):
    args = case.make_args()
    vs = _direction(args, case.wrt, 11)
    v = vs[0] if len(vs) == 1 else vs
    wrt = case.wrt[0] if len(case.wrt) == 1 else case.wrt
    d = as_differentiable(case.fn, "python")
    (gen, eag), refused = _refused_alike(
        lambda: jitad.hvp(d, wrt=wrt)(*args, v=v),
        lambda: jitad.hvp(case.fn, wrt=wrt, mode="eager")(*case.make_args(), v=v))
    if any(refused):
        pytest.skip(f"second derivatives refuse {case.name}: {gen if refused[0] else eag}")
    gen = gen if isinstance(gen, tuple) else (gen,)
    eag = eag if isinstance(eag, tuple) else (eag,)
    grad = jitad.grad(d, wrt=case.wrt)
    h = 1e-5
    plus = grad(*_moved(args, case.wrt, vs, h))
    minus = grad(*_moved(args, case.wrt, vs, -h))
    for k, (hv, e) in enumerate(zip(gen, eag)):
        fd = (np.asarray(plus[k]) - np.asarray(minus[k])) / (2 * h)
        scale = 1.0 + np.max(np.abs(fd))
        assert np.max(np.abs(np.asarray(hv) - fd)) <= 1e-5 * scale, f"hvp[{k}] vs fd of grad"
        assert np.allclose(e, hv, rtol=1e-9, atol=1e-10 * scale), f"hvp[{k}]: eager vs generated"
