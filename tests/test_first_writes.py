"""`first_writes`: a loop filling an array just made writes each element for the first time.

Its writes are marked `init` (no tape of the old elements, no restores in the adjoint) only
when nothing can observe the old values: the array comes from a constant maker (np.empty,
np.zeros, np.zeros_like ...), nothing but its shape is read before the loop, and the loop's
only mention of it is `y[i] = v` at the loop variable. Gradients (compiled) against central
finite differences and eager mode, for marked loops and for the near misses that must stay
unmarked (a read of the array in the loop, a maker with an adjoint, a write at another index);
second derivatives through code that fills arrays (the tangent function of `hvp` does) against
finite differences of the gradient."""
import math

import numpy as np
import pytest

import jitad
from jitad import ir, pipeline
from jitad.types import ty_of_value

from .harness import assert_grads_close, central_fd


def filled(x, w):
    s = 0.0
    for t in range(3):
        out = np.empty(x.shape[0])
        n = out.shape[0]
        for i in range(n):
            out[i] = math.tanh(w * x[i] + t)
        x = out * 0.5 + x
        s = s + np.sum(out * out)
    return s


def filled_zeros_like(x, w):
    acc = np.zeros_like(x)
    for i in range(x.shape[0]):
        acc[i] = x[i] * w + math.sin(x[i])
    return np.sum(acc * x)


def reads_before_writing(x, w):
    out = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        out[i] = out[i - 1] * w + x[i]          # reads the array: not first writes
    return np.sum(out * out)


def maker_with_adjoint(x, w):
    out = x * w                                 # its elements' old values reach x's gradient
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]                    # every element overwritten, never read
    return np.sum(out) + w


def other_index(x, w):
    out = np.zeros(x.shape[0] + 1)
    for i in range(x.shape[0]):
        out[i + 1] = x[i] * w                   # not the loop variable itself
    out[0] = w
    return np.sum(out * out)


CASES = [(filled, True), (filled_zeros_like, True), (reads_before_writing, False),
         (maker_with_adjoint, False), (other_index, False)]


def _marked(fn, args):
    """Whether first_writes marks a write of the function's typed IR."""
    d = jitad.differentiable(fn)
    job = d.job(tuple(ty_of_value(a) for a in args), (0, 1))
    job = pipeline.run(pipeline.BACKEND, job, stop_after="maps")
    spec = job.entry
    return any(isinstance(s, ir.SetItem) and s.init for s in ir.walk(spec.ir.body))


@pytest.mark.parametrize("fn, marks", CASES, ids=[c[0].__name__ for c in CASES])
def test_first_writes_are_marked_and_the_gradients_are_right(fn, marks):
    x = np.array([0.3, -0.7, 1.1, 0.4])
    args = (x, 0.8)
    assert _marked(fn, args) is marks
    value, grads = jitad.value_and_grad(fn, wrt=(0, 1))(*args)
    assert np.isclose(value, fn(*args), rtol=1e-12)
    assert_grads_close(grads, central_fd(fn, args, (0, 1), eps=1e-4, order=4), rtol=1e-6,
                       atol=1e-8, label=fn.__name__)
    _, eager = jitad.value_and_grad(fn, wrt=(0, 1), mode="eager")(*args)
    assert_grads_close(grads, eager, rtol=1e-10, atol=1e-12, label=f"{fn.__name__} eager")
    src = jitad.source(fn, "adjoint", args=args, wrt=(0, 1))
    if marks:       # no element of the filled array taped or restored
        assert "tape_f[top_f] = out[" not in src and "tape_f[top_f] = acc[" not in src


def test_second_derivatives_through_filled_arrays():
    x = np.array([0.3, -0.7, 1.1, 0.4])
    v = np.array([0.5, -1.0, 0.25, 2.0])
    hv = jitad.hvp(filled, wrt=0)(x, 0.8, v=v)
    g = jitad.grad(filled, wrt=0)
    e = 1e-6
    fd = (g(x + e * v, 0.8) - g(x - e * v, 0.8)) / (2 * e)
    assert np.allclose(hv, fd, rtol=1e-6, atol=1e-8)
    H = jitad.hessian(filled, wrt=0)(x, 0.8)
    assert np.allclose(H @ v, hv, rtol=1e-10, atol=1e-12) and np.allclose(H, H.T, atol=1e-12)
