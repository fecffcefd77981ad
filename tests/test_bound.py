"""functools.partial and bound methods as functions to differentiate (jitad/bound.py): the
gradient is the underlying function's with the bound arguments, against finite differences and
eager mode, in every transformation; a method's object is read at every call."""
import functools

import numpy as np
import pytest

import jitad
from tests.harness import central_fd

rng = np.random.default_rng(51)
X, y = rng.normal(size=(6, 3)), rng.normal(size=6)


def ridge(w, X, y, lam=0.1):
    r = np.tanh(X @ w) - y
    return np.sum(r ** 2) + lam * np.sum(w ** 2)


def _residual(w, X, y):
    return np.tanh(X @ w) - y


class Ridge:
    lam = 0.1                          # a class attribute

    def __init__(self, X, y):
        self.X, self.y = X, y

    def loss(self, w):
        r = _residual(w, self.X, self.y)
        return np.sum(r ** 2) + self.lam * np.sum(w ** 2)

    def loss_scaled(self, w, scale):
        return scale * _loss_of(self, w)            # `self` handed on whole

    def loss_by_method(self, w):
        return self.loss(w)                         # another method of self: a helper


def _loss_of(model, w):
    return np.sum(_residual(w, model.X, model.y) ** 2) + model.lam * np.sum(w ** 2)


def fd(f, w):
    return central_fd(f, (w,), (0,), eps=1e-5, order=4)[0]


def test_partial_with_keywords_and_positions():
    w = rng.normal(size=3)
    g = jitad.grad(functools.partial(ridge, X=X, y=y))(w)
    np.testing.assert_allclose(g, fd(lambda v: ridge(v, X, y), w), rtol=1e-6)
    # bound positionally: wrt=0 is the first argument the caller gives
    g2 = jitad.grad(functools.partial(ridge, w), wrt=0)(X, y)
    np.testing.assert_allclose(g2, central_fd(lambda A: ridge(w, A, y), (X,), (0,), eps=1e-5,
                                              order=4)[0], rtol=1e-6)
    # a keyword the caller gives wins over the bound one; wrt by name
    vg = jitad.value_and_grad(functools.partial(ridge, lam=0.5), wrt=("w", "lam"))
    v, (gw, glam) = vg(w, X, y, lam=0.3)
    assert v == pytest.approx(ridge(w, X, y, 0.3), rel=1e-12)
    assert glam == pytest.approx(np.sum(w ** 2), rel=1e-12)
    assert vg.specialize(w, X, y, 0.3).compiled_ran


def test_partial_in_every_transformation():
    p = functools.partial(ridge, X=X, y=y)
    w, v = rng.normal(size=3), rng.normal(size=3)
    H = jitad.hessian(p)(w)
    Hfd = np.array([central_fd(lambda u: jitad.grad(p)(u)[i], (w,), (0,), eps=1e-5, order=4)[0]
                    for i in range(3)])
    np.testing.assert_allclose(H, Hfd, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(H @ v, jitad.hvp(p)(w, v=v), rtol=1e-9)
    _, t = jitad.jvp(p)(w, tangents=v)
    assert t == pytest.approx(jitad.grad(p)(w) @ v, rel=1e-9)
    ge = jitad.grad(p, mode="eager")(w)
    np.testing.assert_allclose(jitad.grad(p)(w), ge, rtol=1e-10)
    d = jitad.differentiable(functools.partial(ridge, lam=0.2))
    assert d(w, X, y) == pytest.approx(ridge(w, X, y, 0.2), rel=1e-12)


def test_bound_method_reads_its_object_at_every_call():
    model = Ridge(X, y)
    w = rng.normal(size=3)
    g = jitad.grad(model.loss)
    np.testing.assert_allclose(g(w), fd(model.loss, w), rtol=1e-6)
    np.testing.assert_allclose(g(w), jitad.grad(model.loss, mode="eager")(w), rtol=1e-10)
    assert jitad.value_and_grad(model.loss).specialize(w).compiled_ran
    model.X = X * 2.0                  # rebound
    model.lam = 0.7                    # an instance attribute now shadows the class one
    np.testing.assert_allclose(g(w), fd(model.loss, w), rtol=1e-6)
    model.y[0] += 1.0                  # changed in place
    np.testing.assert_allclose(g(w), fd(model.loss, w), rtol=1e-6)
    s = 1.7
    gs = jitad.grad(model.loss_scaled)(w, s)        # `self` handed on whole to a helper
    np.testing.assert_allclose(gs, fd(lambda u: model.loss_scaled(u, s), w), rtol=1e-6)
    H = jitad.hessian(model.loss)(w)
    np.testing.assert_allclose(H, H.T, atol=1e-10)


class Counter:
    def __init__(self):
        self.calls = 0

    def loss(self, w):
        self.calls = self.calls + 1
        return np.sum(w ** 2)


def test_a_method_writing_its_object_is_refused():
    with pytest.raises(jitad.JitadError, match="assigns self.calls"):
        jitad.grad(Counter().loss)(np.ones(2))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_calling_another_method_of_self(mode):
    """`self.loss(w)`: the class's plain function, given the object (tests/test_heldout10.py
    has the wider cases: static methods, an override refused)."""
    model = Ridge(X, y)
    w = np.array([0.3, -0.2, 0.5])
    g = jitad.grad(model.loss_by_method, mode=mode)(w)
    np.testing.assert_allclose(g, jitad.grad(model.loss, mode=mode)(w), rtol=1e-12)
    np.testing.assert_allclose(g, fd(model.loss_by_method, w), rtol=1e-6)


