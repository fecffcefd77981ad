"""A lambda as the function to differentiate: the `def` it stands for, in both modes, found
among several lambdas on its line; an array it closes over refused at its line in both modes."""
import math
import sys

import numpy as np
import pytest

import jitad

from .test_correctness import check

rng = np.random.default_rng(11)
x0 = rng.normal(size=4)


def loss(w, X, y, lam):
    r = X @ w - y
    return 0.5 * np.dot(r, r) + lam * np.sum(w ** 2)


def test_lambda_against_finite_differences_and_eager():
    check(lambda x: np.sum(np.sin(x) ** 2) + math.exp(x[0]), (x0,))
    X, y = rng.normal(size=(5, 4)), rng.normal(size=5)
    check(lambda w, X, y: loss(w, X, y, 0.1), (x0, X, y), wrt=(0,))


def test_lambda_reads_numbers_and_functions_around_it():
    lam = 0.25
    X, y = rng.normal(size=(5, 4)), rng.normal(size=5)
    g = jitad.grad(lambda w, X, y: loss(w, X, y, lam))(x0, X, y)
    np.testing.assert_allclose(g, X.T @ (X @ x0 - y) + 2 * lam * x0, rtol=1e-12)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="co_positions tells lambdas on one line apart")
def test_lambdas_on_one_line_and_nested():
    a, b = jitad.grad(lambda t: t ** 3)(2.0), jitad.grad(lambda s: 5.0 * s * s)(1.0)
    assert (a, b) == (12.0, 10.0)
    outer = lambda: jitad.grad(lambda t: t ** 4)(2.0)  # noqa: E731
    assert outer() == 32.0


def test_lambda_over_lines_and_second_order():
    f = jitad.hessian(lambda x: np.sum(
        x ** 3))
    np.testing.assert_allclose(f(x0), np.diag(6 * x0), rtol=1e-12)
    y, t = jitad.jvp(lambda x: np.tanh(x), wrt=0)(x0, tangents=np.ones(4))
    np.testing.assert_allclose(t, 1 - np.tanh(x0) ** 2, rtol=1e-12)
    assert "def lambda_" in jitad.source(lambda x: x * x, "adjoint", args=(1.0,))


def test_array_closed_over_is_read_at_each_call_in_both_modes():
    # (tests/test_closures.py covers arrays read from globals and closures in full)
    X = np.arange(12.0).reshape(3, 4)
    for kw in ({}, {"mode": "eager"}):
        np.testing.assert_allclose(jitad.grad(lambda w: np.sum(X @ w), **kw)(x0), X.sum(0))
