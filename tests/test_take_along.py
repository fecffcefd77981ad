"""np.argsort(x, axis=k) and np.take_along_axis(x, idx, axis=k) (a top-k of each row, a
sort by another array's order): gradients against finite differences and eager mode, the
Hessian against differences of the gradient, both refused before."""
import numpy as np

import jitad

from .test_correctness import check

rng = np.random.default_rng(31)


def top_two_per_row(x):
    top = np.take_along_axis(x, np.argsort(x, axis=1), axis=1)[:, -2:]
    return np.sum(np.sin(top) * top)


def sorted_by_key(x, key):
    order = key.argsort(axis=0)
    return np.sum(np.take_along_axis(x, order, axis=0) * np.arange(12.0).reshape(4, 3))


def last_axis_negative_index(x):
    idx = np.argsort(x, axis=-1)
    return np.sum(np.take_along_axis(x, idx[:, ::-1], axis=-1) * np.arange(3.0))


def test_gradients():
    x = rng.normal(size=(4, 3))
    check(top_two_per_row, (x,))
    check(sorted_by_key, (x, rng.normal(size=(4, 3))), wrt=(0,))
    check(last_axis_negative_index, (x,))


def test_hessian_and_jvp():
    x = rng.normal(size=(4, 3))
    g = jitad.grad(top_two_per_row)
    H = jitad.hessian(top_two_per_row)(x).reshape(12, 12)
    ref = np.zeros((12, 12))
    for i in range(12):
        u, d = x.ravel().copy(), x.ravel().copy()
        u[i] += 1e-5
        d[i] -= 1e-5
        ref[:, i] = ((g(u.reshape(4, 3)) - g(d.reshape(4, 3))) / 2e-5).ravel()
    np.testing.assert_allclose(H, ref, atol=1e-6)
    _, t = jitad.jvp(top_two_per_row)(x, tangents=np.ones((4, 3)))
    np.testing.assert_allclose(t, np.sum(g(x)), rtol=1e-12)
