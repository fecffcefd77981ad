"""The gradient corpus, in both modes: every case through jitad's compiled path and through
eager mode, checked against central finite differences and (where the function is
expressible there) autograd, with the inputs left untouched; the compiled mode must have run
the Numba-compiled gradient (not a Python fallback), and eager must agree with it."""
import numpy as np
import pytest

import jitad

from .corpus import CASES
from .harness import assert_grads_close, assert_unchanged, autograd_grad, central_fd, snapshot


def _as_tuple(g):
    return tuple(g) if isinstance(g, tuple) else (g,)


def _compiled(case):
    vg = jitad.value_and_grad(case.fn, wrt=case.wrt)
    return vg, vg(*case.make_args())


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradient(case, mode):
    vg = jitad.value_and_grad(case.fn, wrt=case.wrt, mode=mode)
    args = case.make_args()
    snap = snapshot(args)
    value, grads = vg(*args)
    grads = _as_tuple(grads)
    assert_unchanged(args, snap, case.name)
    expected = float(case.fn(*case.make_args()))
    assert float(value) == pytest.approx(expected, rel=max(case.rtol, 1e-12), abs=case.atol)
    fd = central_fd(case.fn, case.make_args(), case.wrt, eps=1e-4, order=4)
    f32 = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    fd_rtol, fd_atol = (case.rtol, case.atol) if f32 else (max(case.rtol, 1e-6), max(case.atol, 1e-7))
    assert_grads_close(grads, fd, rtol=fd_rtol, atol=fd_atol, label=f"{case.name} vs finite differences")
    if case.autograd:
        ag = autograd_grad(case.fn, case.make_args(), case.wrt)
        assert_grads_close(grads, ag, rtol=case.rtol, atol=case.atol, label=f"{case.name} vs autograd")
    if mode == "compiled":
        spec = vg.specialize(*args)
        assert spec.backend == "numba" and spec.compiled_ran, "the compiled gradient did not run"
    else:
        _, (_, compiled) = _compiled(case)
        assert_grads_close(grads, _as_tuple(compiled), rtol=max(case.rtol, 1e-9), atol=case.atol,
                           label=f"{case.name}: eager vs compiled")
