"""Shapes as values (`normalize.shape_values`): `s = x.shape` kept and reused, sliced
(`x.shape[1:]`), joined (`(n,) + s`), compared (`x.shape == y.shape`), looped over, starred
(`(*x.shape, 3)`), multiplied out (`np.prod(s)`), indexed by a computed axis, passed to and
returned from helpers, and given where NumPy takes a shape (`np.zeros(s)`, `x.reshape(s)`,
`np.reshape(g, w.shape)`) -- each in both modes against central finite differences and
autograd, forward mode too; two kitchen-sink functions compiled by Numba (UniTuple values);
what stays refused at its line in both modes (arithmetic of a shape, a slice with computed
bounds, a name that is a shape in one place and a number in another)."""
import math

import numpy as np
import pytest

import jitad

from .harness import (assert_grads_close, autograd_grad, central_fd, check_form_accepted,
                      check_form_refused, check_grads_both_modes, check_hessian)

rng = np.random.default_rng(1616)
nrm = rng.normal
LAYER_SHAPES = ((2, 3), (3,))          # a module-level constant shape (and a tuple of them)
OUT_SHAPE = (3, 2)


def kept_and_reshaped_back(x, w):
    shape = x.shape
    y = np.tanh(x.ravel() * w)
    return np.sum(y.reshape(shape) * x)


def zeros_of_shape_local(x):
    s = x.shape
    acc = np.zeros(s)
    for k in range(3):
        acc = acc + np.sin(x * (k + 1))
    return np.sum(acc * x) + np.sum(np.ones(s) * x) + np.sum(np.full(s, 0.5) * x ** 2)


def rest_of_shape_joined(x, b):
    n = 2
    h = np.zeros((n,) + x.shape[1:])
    h = h + x[:2] * b
    return np.sum(h ** 2)


def batch_reshape_minus_one(x, W):
    flat = x.reshape(x.shape[0], -1)
    return np.sum(np.tanh(flat @ W))


def index_len_and_last(x):
    s = x.shape
    return np.sum(x ** 2) * s[0] / s[-1] + len(s) * np.sum(x)


def loop_over_shape(x):
    n = 1
    for d in x.shape:
        n = n * d
    t = 0.0
    for k, d in enumerate(x.shape):
        t = t + d * np.sum(x ** (k + 1))
    return t / n


def prod_size_and_computed_axis(x):
    t = 0
    for k in range(x.ndim):
        t = t + x.shape[k]
    return np.sum(x) / np.prod(x.shape) + np.sum(x ** 2) / x.size * t


def empty_like_filled(x):
    y = np.empty_like(x)
    y[...] = np.sin(x)
    z = np.empty(x.shape)
    for i in range(x.shape[0]):
        z[i] = y[i] * x[i]
    return np.sum(z)


def shapes_compared(x, y):
    if x.shape == y.shape:
        return np.sum(x * y)
    if x.shape[1:] != y.shape[1:]:
        return np.sum(x) * np.sum(y)
    return np.sum(x[0] * y[0])


def tuple_and_star(x, c):
    s = tuple(x.shape)
    z = np.zeros((*s, 3)) + x[..., None] * c
    return np.sum(np.sin(z)) + np.sum(np.ones((2, *x.shape[1:])) * x[:1])


def _like(theta, k, w):
    """theta's next w.size entries shaped like w."""
    return np.reshape(theta[k:k + w.size], w.shape)


def _out_shape(a, k):
    return a.shape[:-1] + (k,)


def unflatten_through_helpers(theta, X, W, b):
    A = _like(theta, 0, W)
    c = _like(theta, W.size, b)
    h = np.tanh(X @ A + c)
    out = np.zeros(_out_shape(h, 1)) + h[:, :1]
    return np.sum(out ** 2) + np.sum(h)


def module_level_shapes(theta, x):
    W = theta[:6].reshape(LAYER_SHAPES[0])
    b = np.reshape(theta[6:9], LAYER_SHAPES[1])
    return np.sum(np.tanh(x @ W + b)) + np.sum(np.zeros(OUT_SHAPE) + theta[:2])


def rank_in_a_conditional_expression(x):
    x = x[None, :] if x.ndim == 1 else x
    s = x.shape
    return np.sum(x ** 2) * s[0]


def reversed_and_reshape_star(x):
    s = x.shape
    return np.sum(x.reshape(*s) * x) + np.sum(x.reshape(s[::-1]) ** 2)


FORMS = [
    (kept_and_reshaped_back, (nrm(size=(2, 3)), 0.7), (0, 1)),
    (zeros_of_shape_local, (nrm(size=(2, 3)),), (0,)),
    (rest_of_shape_joined, (nrm(size=(3, 2, 2)), 0.8), (0, 1)),
    (batch_reshape_minus_one, (nrm(size=(2, 3, 2)), 0.5 * nrm(size=(6, 2))), (0, 1)),
    (index_len_and_last, (nrm(size=(2, 3)),), (0,)),
    (loop_over_shape, (nrm(size=(2, 3, 2)),), (0,)),
    (prod_size_and_computed_axis, (nrm(size=(3, 2)),), (0,)),
    (empty_like_filled, (nrm(size=(3, 2)),), (0,)),
    (shapes_compared, (nrm(size=(2, 3)), nrm(size=(2, 3))), (0, 1)),
    (shapes_compared, (nrm(size=(2, 3)), nrm(size=(2, 4))), (0, 1)),
    (shapes_compared, (nrm(size=(2, 3)), nrm(size=(4, 3))), (0, 1)),
    (tuple_and_star, (nrm(size=(2, 3)), np.array([0.5, -1.0, 2.0])), (0, 1)),
    (unflatten_through_helpers, (0.5 * nrm(size=10), nrm(size=(4, 2)), nrm(size=(2, 3)),
                                 nrm(size=3)), (0,)),
    (module_level_shapes, (0.5 * nrm(size=9), nrm(size=(4, 2))), (0,)),
    (rank_in_a_conditional_expression, (nrm(size=3),), (0,)),
    (rank_in_a_conditional_expression, (nrm(size=(2, 3)),), (0,)),
    (reversed_and_reshape_star, (nrm(size=(2, 3)),), (0,)),
]
# autograd runs these as written (it has no np.empty_like write, no helper of ours rebuilt)
NO_AUTOGRAD = {"empty_like_filled"}


@pytest.mark.parametrize("fn,args,wrt", FORMS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(FORMS)])
def test_shape_forms_both_modes(fn, args, wrt):
    """Compiled (the generated Python) and eager against central differences, the value and
    the arguments unchanged, forward mode along a direction; autograd agrees."""
    check_form_accepted(fn, args, wrt)
    if fn.__name__ not in NO_AUTOGRAD:
        ag = autograd_grad(fn, args, wrt)
        g = jitad.grad(jitad.differentiable(fn, backend="python"), wrt=wrt)(*args)
        assert_grads_close(g if isinstance(g, tuple) else (g,), ag, rtol=1e-8, atol=1e-10,
                           label="compiled vs autograd")


def numba_shapes(x, W, b):
    """Every shape operation in one Numba compile: a kept shape, its slice and a join, a loop
    over it, a computed axis, np.prod, ==, a star, a helper's shape, np.reshape(g, w.shape)."""
    s = x.shape
    rest = s[1:]
    h = np.zeros((s[0],) + rest) + np.tanh(x)
    n = 1
    for d in s:
        n = n * d
    t = 0
    for k in range(len(s)):
        t = t + x.shape[k]
    flat = h.reshape(s[0], -1) @ W
    c = np.reshape(flat[0, :b.size], b.shape) if flat.shape[1:] == b.shape else b
    z = np.zeros((*rest, 2)) + h[0][..., None]
    out = np.zeros(_out_shape(flat, 1)) + flat[:, :1]
    return (np.sum(h ** 2) / np.prod(s) + np.sum(c * b) + n * np.sum(z) / t
            + np.sum(out) + math.sqrt(x.size))


def numba_unflatten(theta, W1, b1, W2, X):
    n1, n2 = W1.size, b1.size
    A = np.reshape(theta[:n1], W1.shape)
    c = theta[n1:n1 + n2].reshape(b1.shape)
    B = theta[n1 + n2:].reshape(W2.shape)
    return np.mean((np.tanh(X @ A + c) @ B) ** 2)


@pytest.mark.parametrize("fn,args,wrt", [
    (numba_shapes, (nrm(size=(2, 3, 2)), nrm(size=(6, 3)), nrm(size=3)), (0, 1, 2)),
    (numba_unflatten, (0.5 * nrm(size=15), nrm(size=(2, 3)), nrm(size=3), nrm(size=(3, 2)),
                       nrm(size=(4, 2))), (0, 4)),
], ids=["numba_shapes", "numba_unflatten"])
def test_numba_compiles_shape_values(fn, args, wrt):
    """Numba compiles shapes as UniTuple values (the compiled path asserted to run)."""
    check_grads_both_modes(fn, args, wrt, backend="numba")
    ag = autograd_grad(fn, args, wrt)
    g = jitad.grad(fn, wrt=wrt)(*args)
    assert_grads_close(g, ag, rtol=1e-8, atol=1e-10, label="numba vs autograd")


def test_generated_code_reads_shapes_as_python_does():
    """The generated code spells a shape as the user did (`(n,) + x.shape[1:]`) and
    tapes none of it: a shape is integers, never active."""
    src = jitad.source(jitad.differentiable(rest_of_shape_joined, backend="python"), "adjoint",
                       args=(np.ones((3, 2, 2)), 0.8))
    assert "np.zeros((n,) + x.shape[1:]" in src and "tape" not in src
    mon = jitad.source(jitad.differentiable(loop_over_shape, backend="python"), "monadic",
                       args=(np.ones((2, 3)),))
    assert "shape_of(x)" in mon


def test_hessian_through_shape_values():
    check_hessian(kept_and_reshaped_back, (nrm(size=(2, 3)), 0.7), (0,))
    check_hessian(rest_of_shape_joined, (nrm(size=(3, 2, 2)), 0.8), (0, 1))


def test_a_helper_returns_a_shape_both_modes():
    x, W = nrm(size=(4, 3)), nrm(size=(3, 2))

    def f(x, W):
        return np.sum(np.ones(_out_shape(x, W.shape[1])) * (x @ W) ** 2)
    for mode in ("compiled", "eager"):
        g = jitad.grad(jitad.differentiable(f, backend="python") if mode == "compiled" else f,
                       wrt=(0, 1), mode=mode)(x, W)
        assert_grads_close(g, central_fd(f, (x, W), (0, 1)), rtol=1e-6, atol=1e-8, label=mode)


# -- refused at the line, both modes -----------------------------------------------------------
def shape_times_two(x):
    s = x.shape
    return np.sum(np.zeros(s * 2)) + np.sum(x)  # ERR: * of a tuple (a shape) is not supported


def shape_summed(x):
    return np.sum(x) * np.sum(x.shape)  # ERR: sum of a tuple (a shape) is not supported


def shape_slice_computed(x, k):
    s = x.shape[k:]  # ERR: a slice of a shape takes bounds known when jitad compiles
    return np.sum(x) * len(s)


def shape_then_number(x, k):
    s = x.shape
    if k > 0:
        s = 3  # ERR: is (int, int) in one place and int here
    return np.sum(x) * s


# refused in both modes, with the same error (tests/test_parity.py reads this list too)
REFUSED = [
    (shape_times_two, (nrm(size=(2, 3)),)),
    (shape_summed, (nrm(size=(2, 3)),)),
    (shape_slice_computed, (nrm(size=(2, 3)), 1)),
    (shape_then_number, (nrm(size=(2, 3)), 1)),
]


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_shape_refusals(fn, args):
    check_form_refused(fn, args, __file__)
