"""Forward mode: `jvp` (compiled and eager), `jacfwd`, `jacrev`, the tangent rules' coverage.

The compiled jvp is checked against `grad . v` (scalar outputs) and against central finite
differences of the directional derivative, on functions with a `while` until convergence,
branches, `break`, early `return`, a helper, recursion, array writes, reductions with an axis
and matrix products; the eager jvp (the same tangent rules, interpreted) against the compiled
one. Each function is compiled once per mode (one signature): the file stays cheap."""
import math

import numpy as np
import pytest

import jitad
from jitad.primitives import tangents


def glide(x, w):
    t = 0.0
    while x > 0.5:
        if x > 2.0:
            x = x * w + 0.1 * math.sin(x)
        else:
            x = x * w
        t = t + x
    return t


def newton_sqrt(a, y):
    while abs(y * y - a) > 1e-13 * a:          # until convergence: a data-dependent trip count
        y = 0.5 * (y + a / y)
    return y


def scale(a, b):
    return a * np.sin(b) + b


def unroll(x, n):
    if n <= 0:
        return x
    return unroll(x * x * 0.5 + 0.1, n - 1) + x


def mixed(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 5.0:
            break
        s = s + scale(x[i], w)
    if s > 100.0:
        return s
    z = np.cumsum(x) + unroll(w, 3)
    return s * np.sum(z * z, axis=0) + np.max(x)


def layer(x, W):
    M = np.tanh(W @ np.outer(x, x))
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.sum(M[i] * x) + np.mean(M, axis=0)[i]
    return np.sum(np.max(M, axis=1) * y) + np.sum(np.log1p(y * y))


def residual(x, W):                              # vector-valued
    h = np.tanh(W @ x)
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = h[i] * x[i] + np.sum(h)
    return y


RNG = np.random.default_rng(0)
X3 = np.array([0.3, -0.2, 0.5])
W33 = RNG.normal(size=(3, 3)) * 0.5
V3 = np.array([1.0, -0.5, 0.25])

# (function, args, wrt, tangents)
CASES = [
    (glide, (3.0, 0.8), (0, 1), (1.0, -0.5)),
    (newton_sqrt, (2.0, 1.0), 0, 1.0),
    (mixed, (X3, 0.7), (0, 1), (V3, 2.0)),
    (layer, (X3, W33), (0, 1), (V3, RNG.normal(size=(3, 3)))),
]


def _dot(a, b):
    return float(np.sum(np.asarray(a) * np.asarray(b)))


def _fd(f, args, wrt, tans, h=1e-6):
    wrt = (wrt,) if isinstance(wrt, int) else wrt
    tans = (tans,) if len(wrt) == 1 else tans

    def at(eps):
        a = list(args)
        for i, v in zip(wrt, tans):
            a[i] = a[i] + eps * v
        return np.asarray(f(*a), dtype=float)
    return (at(h) - at(-h)) / (2 * h)


@pytest.mark.parametrize("f, args, wrt, tans", CASES, ids=[c[0].__name__ for c in CASES])
def test_jvp_is_grad_dot_v_and_finite_differences_and_eager(f, args, wrt, tans):
    jv = jitad.jvp(f, wrt=wrt)
    y, yd = jv(*args, tangents=tans)
    assert jv.specialize(*args).compiled_ran
    assert np.isclose(y, f(*args), rtol=1e-12)
    gr = jitad.grad(f, wrt=wrt)
    g = gr(*args)
    assert gr.specialize(*args).compiled_ran
    pairs = zip(g, tans) if isinstance(wrt, tuple) else [(g, tans)]
    assert np.isclose(yd, sum(_dot(a, b) for a, b in pairs), rtol=1e-9, atol=1e-12)
    assert np.isclose(yd, _fd(f, args, wrt, tans), rtol=1e-5, atol=1e-7)
    ye, yde = jitad.jvp(f, wrt=wrt, mode="eager")(*args, tangents=tans)
    assert np.isclose(ye, y, rtol=1e-12) and np.isclose(yde, yd, rtol=1e-10, atol=1e-12)


def test_jacfwd_equals_jacrev_and_finite_differences():
    jf, jr = jitad.jacfwd(residual), jitad.jacrev(residual)
    assert jitad.jacobian is jitad.jacrev
    Jf, Jr = jf(X3, W33), jr(X3, W33)
    assert jf.specialize(X3, W33).compiled_ran and jr.specialize(X3, W33).compiled_ran
    assert Jf.shape == Jr.shape == (3, 3)
    fd = np.stack([_fd(residual, (X3, W33), 0, e) for e in np.eye(3)], axis=-1)
    assert np.allclose(Jf, Jr, rtol=1e-12, atol=1e-14)
    assert np.allclose(Jf, fd, rtol=1e-6, atol=1e-8)
    assert np.allclose(jitad.jacfwd(residual, mode="eager")(X3, W33), Jf, rtol=1e-12)
    # a matrix argument: shape f(x).shape + W.shape
    JW = jitad.jacfwd(residual, wrt=1)(X3, W33)
    assert JW.shape == (3, 3, 3)
    fdW = np.stack([_fd(residual, (X3, W33), 1, e.reshape(3, 3)) for e in np.eye(9)], axis=-1)
    assert np.allclose(JW, fdW.reshape(3, 3, 3), rtol=1e-6, atol=1e-8)
    yv, ydv = jitad.jvp(residual)(X3, W33, tangents=V3)
    assert np.allclose(ydv, Jf @ V3, rtol=1e-12)


def test_the_generated_tangent_code_reads_like_a_dual_number_loop():
    text = jitad.source(glide, "jvp", args=(3.0, 0.8), wrt=(0, 1))
    assert "def glide_jvp(x, w, d_x, d_w):" in text
    assert "while x > 0.5:" in text and "d_t = d_t + d_x" in text and "tape" not in text


def cumulative(x):
    return np.sum(np.cumprod(x))


def test_a_primitive_without_a_tangent_rule_is_refused_at_its_line():
    with pytest.raises(jitad.JitadError, match="no tangent rule for cumprod") as e:
        jitad.jvp(cumulative)(X3, tangents=V3)
    assert "return np.sum(np.cumprod(x))" in str(e.value)
    with pytest.raises(jitad.JitadError, match="no tangent rule for cumprod"):
        jitad.jvp(cumulative, mode="eager")(X3, tangents=V3)


def test_every_primitive_with_adjoints_has_tangents_but_the_listed_ones():
    builtin = [n for n in tangents.missing() if not n.startswith("user.")]   # @jitad.primitive
    assert builtin == sorted(tangents.NO_TANGENT_YET)
