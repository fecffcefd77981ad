"""The flat array tape (`ad/tapes.py`, `Tapes.flat`): a float vector or matrix that only its
variable ever holds (made new at every assignment, no other name, view or list of it) is
copied onto one float buffer when the forward reassigns it, and restored as a view of it;
any other array stays on its list. Gradients against central finite differences and eager
mode (`harness.check_grads_both_modes`), a Hessian-vector product against differences of
the gradient, and the runtime's push/pop round trip.
"""
import numpy as np

import jitad
from jitad import runtime

from .harness import check_grads_both_modes, check_hessian

RNG = np.random.default_rng(19)


def rnn(W, xs):
    h = np.zeros(W.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        s = s + h[0] * h[1]
    return s


def matrices(A, k):
    M = np.eye(A.shape[0])
    s = 0.0
    for i in range(k):
        M = np.sin(M @ A)
        s = s + np.sum(M * M)
    return s


def aliased(x, w):
    h = x * w
    s = 0.0
    for i in range(3):
        u = h               # another name for h's array: h stays on the list
        u[0] = w * i
        h = np.sin(u) * w
        s = s + np.sum(u * h)
    return s


def viewed(x, w):
    h = x * w
    s = 0.0
    for i in range(3):
        v = h[1:]           # a view of h's array: h stays on the list
        h = np.cos(h) + w
        s = s + np.sum(v * h[1:])
    return s


def _adjoint(fn, args):
    return jitad.source(fn, "adjoint", args=args, wrt=0)


def test_private_arrays_go_on_the_flat_tape():
    args = (0.5 * RNG.normal(size=(4, 4)), RNG.normal(size=(5, 4)))
    src = _adjoint(rnn, args)
    assert "rt.push_array(" in src and "rt.array_at1(" in src and ".append(" not in src
    check_grads_both_modes(rnn, args, (0, 1))
    args = (0.3 * RNG.normal(size=(3, 3)), 4)
    src = _adjoint(matrices, args)
    assert "rt.array_at2(" in src
    check_grads_both_modes(matrices, args, (0,))


def test_shared_arrays_stay_on_their_list():
    args = (RNG.normal(size=5), 0.7)
    for fn in (aliased, viewed):
        src = _adjoint(fn, args)
        assert "tape_f8_1d.append(h)" in src, fn.__name__
        check_grads_both_modes(fn, args, (0, 1))


def test_compiled_gradient_and_hvp():
    args = (0.5 * RNG.normal(size=(4, 4)), RNG.normal(size=(6, 4)))
    check_grads_both_modes(rnn, args, (0, 1), backend="numba")
    check_hessian(rnn, args, (0,), backend="numba")


def test_push_and_pop_round_trip():
    a, b = RNG.normal(size=5), RNG.normal(size=(3, 4))
    tape, top = np.empty(2), 0
    tape, top = runtime.push_array(tape, top, a)
    tape, top = runtime.push_array(tape, top, b.T)          # not contiguous: copied in C order
    tape, top = runtime.push_array(tape, top, np.empty(0))
    assert top == (1 + 5 + 1) + (2 + 12 + 1) + (1 + 0 + 1)
    top = runtime.drop_array(tape, top, 1)
    assert runtime.array_at1(tape, top).shape == (0,)
    top = runtime.drop_array(tape, top, 2)
    assert np.array_equal(runtime.array_at2(tape, top), b.T)
    top = runtime.drop_array(tape, top, 1)
    assert np.array_equal(runtime.array_at1(tape, top), a) and top == 0
