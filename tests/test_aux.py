"""JAX's names in jitad's API: `has_aux=True` (f returns `(value, aux)`; the gradient is the
value's) and `argnums=` (wrt), in both modes, against finite differences."""
import numpy as np
import pytest

import jitad
from tests.harness import central_fd

rng = np.random.default_rng(61)
w, X = rng.normal(size=3), rng.normal(size=(5, 3))


def loss_with_aux(w, X):
    pred = np.tanh(X @ w)
    return np.sum(pred ** 2), pred, int(np.argmax(pred))     # aux: (pred, k)


def plain(w, X):
    return loss_with_aux(w, X)[0]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux(mode):
    g, (pred, k) = jitad.grad(loss_with_aux, has_aux=True, mode=mode)(w, X)
    np.testing.assert_allclose(g, central_fd(plain, (w, X), (0,), eps=1e-5, order=4)[0], rtol=1e-6)
    np.testing.assert_allclose(pred, np.tanh(X @ w), rtol=1e-12)
    assert k == np.argmax(np.tanh(X @ w))
    (v, aux), (gw, gX) = jitad.value_and_grad(loss_with_aux, argnums=(0, 1), has_aux=True,
                                              mode=mode)(w, X)
    assert v == pytest.approx(plain(w, X), rel=1e-12)
    np.testing.assert_allclose(gX, central_fd(plain, (w, X), (1,), eps=1e-5, order=4)[0],
                               rtol=1e-6)


def test_argnums_is_wrt():
    J = jitad.jacrev(lambda w, X: np.tanh(X @ w), argnums=1)(w, X)
    J2 = jitad.jacrev(lambda w, X: np.tanh(X @ w), wrt=1)(w, X)
    np.testing.assert_allclose(J, J2)
    H = jitad.hessian(plain, argnums=0)(w, X)
    np.testing.assert_allclose(H, jitad.hessian(plain)(w, X))
    with pytest.raises(jitad.JitadError, match="not both"):
        jitad.grad(plain, wrt=1, argnums=0)


def test_has_aux_needs_a_pair_and_grad_says_so():
    with pytest.raises(jitad.JitadError, match="has_aux=True"):
        jitad.grad(loss_with_aux)(w, X)
    with pytest.raises(jitad.JitadError, match=r"\(value, aux\)"):
        jitad.grad(plain, has_aux=True)(w, X)
