"""Forward mode: `jvp` (compiled and eager), `jacfwd`, `jacrev`, the tangent rules' coverage.

The compiled jvp is checked against `grad . v` (scalar outputs) and against central finite
differences of the directional derivative, on functions with a `while` until convergence,
branches, `break`, early `return`, a helper, recursion, array writes, reductions with an axis
and matrix products; the eager jvp (the same tangent rules, interpreted) against the compiled
one. The tangent rules of the scans, sorts, decompositions and the multivariate normal are
checked against the eager `grad . v` and finite differences in both modes (the decompositions
compiled with JITAD_PRIMITIVES_FULL=1 only: LAPACK compiles for minutes); the generated jvp
calls each rule's helper on the primal line's operands. Structured arguments (a dict, a tuple)
as the wrt argument: eager == compiled == finite differences, for jvp and for jacfwd/jacrev
(a Jacobian per leaf, in the argument's structure). Each function is compiled once
per mode (one signature): the file stays cheap."""
import math
import os

import numpy as np
import pytest
import scipy.stats

import jitad
from jitad.primitives import tangents

from .harness import assert_unchanged, snapshot


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


def quantiles(x):                               # the median's tangent: the middle entries
    return np.median(x) * np.quantile(x, 0.3) + np.sum(np.median(np.outer(x, x), axis=0))


def powers(x, w):
    # the result overwrites an operand that its tangent reads along with the result
    # (d_w * y * log(x) of the old x): the tangent must not read the new x
    for k in range(2):
        x = x ** w
    s = 1.2 + w * w
    s = s ** w
    return np.sum(x) + s


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
    (quantiles, (X3,), 0, V3),
    (powers, (np.array([1.3, 0.7, 1.1]), 0.8), (0, 1), (V3, 2.0)),
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


def clash(y, k, seed):      # parameters named like the Jacobian loop's own locals
    return np.sin(y * k) + seed[0] * y


def test_jacobian_kernels_are_callable_from_njit_code():
    """`jacrev(f, wrt).compiled(...)` / `jacfwd`: the Jacobian loop as a kernel, one block per
    wrt parameter ((y.size, x.size) for jacrev, (x.size, y.size) for jacfwd); its own locals
    never take a parameter's name."""
    import numba
    y, seed = np.array([0.3, -0.7, 1.1]), np.array([0.5])
    jr, jf = jitad.jacrev(clash, wrt=(0, 1, 2)), jitad.jacfwd(clash, wrt=(0, 1, 2))
    want = jr(y, 0.8, seed)
    kr, kf = jr.compiled(y, 0.8, seed), jf.compiled(y, 0.8, seed)

    @numba.njit
    def both(y, k, seed):
        return kr(y, k, seed), kf(y, k, seed)

    blocks_r, blocks_f = both(y, 0.8, seed)
    for Jw, br, bf in zip(want, blocks_r, blocks_f):
        assert np.allclose(br.reshape(Jw.shape), Jw, rtol=1e-12)
        assert np.allclose(bf.T.reshape(Jw.shape), Jw, rtol=1e-12)
    fd = _fd(clash, (y, 0.8, seed), 1, 1.0)
    assert np.allclose(want[1], fd, rtol=1e-6)


def test_the_generated_tangent_code_reads_like_a_dual_number_loop():
    text = jitad.source(glide, "jvp", args=(3.0, 0.8), wrt=(0, 1))
    assert "def glide_jvp(x, w, d_x, d_w):" in text
    assert "while x > 0.5:" in text and "d_t = d_t + d_x" in text and "tape" not in text


# -- the tangent rules of the scans, sorts, decompositions and the multivariate normal ---------
# (their adjoints were there first; each term weights its result unevenly, so every entry of
# the tangent counts, and the eigen- and singular vectors enter sign-invariantly: V ** 2, U Vh)

def scans(x, M):
    a = np.cumprod(x) @ np.arange(1.0, 5.0) + np.sum(np.cumprod(M) * np.arange(6.0))
    b = np.sum(np.maximum.accumulate(M, axis=1) * M) + np.sum(np.minimum.accumulate(x) * x)
    c = np.sum(np.vander(x, 3) * np.arange(12.0).reshape(4, 3)) + np.sum(np.vander(x, increasing=True)[1:] ** 2)
    d = np.sort(x) @ np.arange(1.0, 5.0) + np.sum(np.sort(M, axis=0) * M) + np.sum(np.sort(M, axis=None)[:3] ** 2)
    return a + b + c + d


def decomps(A, B):                       # A square, B tall (B.T wide)
    w, V = np.linalg.eigh(A @ A.T + np.eye(3))
    Q, R = np.linalg.qr(B)
    U, s, Vh = np.linalg.svd(B, full_matrices=False)
    U2, s2, Vh2 = np.linalg.svd(B.T, full_matrices=False)
    e = np.sum(V ** 2 * np.arange(9.0).reshape(3, 3)) + np.sum(w * w)
    q = np.sum(Q * B) + np.sum(R * np.arange(9.0).reshape(3, 3))
    u = (np.sum((U * s) @ Vh * B) + np.sum(U[:, :1] * Vh[:1, :] ** 2)
         + np.sum((U2[:, 1:] @ Vh2[1:, :]) ** 2 * B.T) + np.sum(s2 ** 3))
    v = np.sum(np.linalg.svd(A, compute_uv=False) ** 2) + np.sum(np.linalg.svdvals(B) * np.arange(3.0))
    p = np.sum(np.linalg.pinv(B) * B.T) + np.sum(np.linalg.pinv(B.T) ** 2)
    return e + q + u + v + p


def mvn(x, X, m, C):                     # a vector and rows; the covariance made SPD
    S = C @ C.T + np.eye(2)
    return (scipy.stats.multivariate_normal.logpdf(x, m, S)
            + np.sum(scipy.stats.multivariate_normal.logpdf(X, m, S) * np.arange(1.0, 4.0)))


R2 = np.random.default_rng(2)
RULE_CASES = [
    (scans, (R2.normal(size=4), R2.normal(size=(2, 3))), False),
    (mvn, (R2.normal(size=2), R2.normal(size=(3, 2)), R2.normal(size=2), R2.normal(size=(2, 2))), False),
    # LAPACK's decompositions compile for a minute or two: compiled with JITAD_PRIMITIVES_FULL=1
    # only, as in test_primitives; eager (the same templates) always
    (decomps, (R2.normal(size=(3, 3)), R2.normal(size=(4, 3))), True),
]
FULL = os.environ.get("JITAD_PRIMITIVES_FULL", "") not in ("", "0")


@pytest.mark.parametrize("f, args, heavy", RULE_CASES, ids=[c[0].__name__ for c in RULE_CASES])
def test_tangent_rules_of_scans_sorts_decompositions(f, args, heavy):
    wrt = tuple(range(len(args)))
    tans = tuple(R2.normal(size=np.shape(a)) for a in args)
    snap = snapshot(args)
    fd = _fd(f, args, wrt, tans, h=1e-5)
    g = jitad.grad(f, wrt=wrt, mode="eager")(*args)
    gv = sum(_dot(a, b) for a, b in zip(g, tans))
    modes = ["eager"] + (["compiled"] if FULL or not heavy else [])
    for mode in modes:
        jv = jitad.jvp(f, wrt=wrt, mode=mode)
        y, yd = jv(*args, tangents=tans)
        assert_unchanged(args, snap, f"{f.__name__}: {mode} jvp")
        if mode == "compiled":
            assert jv.specialize(*args).compiled_ran
        assert np.isclose(y, f(*args), rtol=1e-12)
        assert np.isclose(yd, gv, rtol=1e-9, atol=1e-12), (mode, yd, gv)
        assert np.isclose(yd, fd, rtol=1e-6, atol=1e-8), (mode, yd, fd)


def test_the_new_rules_read_as_one_tangent_line_per_primal_line():
    """The generated jvp calls each rule's helper once per primitive, beside the primal line."""
    text = jitad.source(scans, "jvp", args=RULE_CASES[0][1], wrt=(0, 1))
    for helper in ("cumprod_tangent", "cummax_tangent(M, d_M, 1)", "cummax_tangent(-x, d_x, 0)",
                   "vander_tangent", "sort_tangent(x, d_x, 0)"):
        assert "rt." + helper in text, helper
    text = jitad.source(decomps, "jvp", args=RULE_CASES[2][1], wrt=(0, 1))
    for helper in ("eigh_v_tangent", "qr_tangent(B, d_B)[0]", "qr_tangent(B, d_B)[1]",
                   "svd_tangent_vh(B, d_B, False)", "pinv_tangent(B, p_pinv, d_B)"):
        assert "rt." + helper in text, helper
    text = jitad.source(mvn, "jvp", args=RULE_CASES[1][1], wrt=(0, 1, 2, 3))
    assert "rt.mvn_cov_tangent(X, m, S, d_S)" in text
    assert "tape" not in text


# -- structured arguments: a tuple, list or dict of arrays as the wrt argument -----------------

def net(params, X):
    W, b = params
    return np.sum(np.tanh(X @ W + b))


def dict_net(p, X):
    return np.sum(np.tanh(X @ p["W"]) * p["b"]) + p["c"] ** 2


W32 = RNG.normal(size=(3, 2))
X23 = RNG.normal(size=(2, 3))


def test_jvp_of_a_structured_argument_in_both_modes():
    p = {"W": W32, "b": np.array([0.5, -1.0]), "c": 0.3}
    v = {"W": RNG.normal(size=(3, 2)), "b": np.array([1.0, 2.0]), "c": -1.5}
    y, yd = jitad.jvp(dict_net)(p, X23, tangents=v)
    ye, yde = jitad.jvp(dict_net, mode="eager")(p, X23, tangents=v)
    fd = _fd(lambda W, b, c, X: dict_net({"W": W, "b": b, "c": c}, X),
             (p["W"], p["b"], p["c"], X23), (0, 1, 2), (v["W"], v["b"], v["c"]))
    assert np.isclose(ye, y, rtol=1e-12) and np.isclose(yde, yd, rtol=1e-10)
    assert np.isclose(yd, fd, rtol=1e-6)
    # a tuple whose leaves share a shape (the public entry's shape check reads it as one array),
    # and tangents for the structure and a plain argument together
    sq = (np.eye(3) * 0.5 + 0.1, np.full((3, 3), 0.2))
    dv = (RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)))
    X33 = RNG.normal(size=(3, 3))
    y, yd = jitad.jvp(net, wrt=(0, 1))(sq, X33, tangents=(dv, X33))
    ye, yde = jitad.jvp(net, wrt=(0, 1), mode="eager")(sq, X33, tangents=(dv, X33))
    assert np.isclose(ye, y, rtol=1e-12) and np.isclose(yde, yd, rtol=1e-10)
    fd = _fd(lambda W, b, X: net((W, b), X), (*sq, X33), (0, 1, 2), (*dv, X33))
    assert np.isclose(yd, fd, rtol=1e-6)
    with pytest.raises(jitad.JitadError, match="must have its structure"):
        jitad.jvp(dict_net, mode="eager")(p, X23, tangents={"W": v["W"], "b": v["b"]})


def test_jvp_of_a_tuple_of_differently_shaped_arrays():
    b = np.array([0.1, 0.2])
    v = (RNG.normal(size=(3, 2)), np.array([1.0, -1.0]))
    for mode in ("compiled", "eager"):
        y, yd = jitad.jvp(net, mode=mode)((W32, b), X23, tangents=v)
        assert np.isclose(yd, _fd(lambda W, b: net((W, b), X23), (W32, b), (0, 1), v), rtol=1e-6)


def test_eager_jvp_of_a_tuple_of_differently_shaped_arrays():
    """Eager forward mode itself takes the tuple leaf by leaf."""
    from jitad.eager.forward import jvp_eager
    b = np.array([0.1, 0.2])
    v = (RNG.normal(size=(3, 2)), np.array([1.0, -1.0]))
    y, yd = jvp_eager(net, ((W32, b), X23), (0,), (v,))
    assert np.isclose(y, net((W32, b), X23), rtol=1e-12)
    assert np.isclose(yd, _fd(lambda W, b: net((W, b), X23), (W32, b), (0, 1), v), rtol=1e-6)


def layer_out(params, data):
    W, b = params
    X, shift = data
    return np.tanh(X @ W + b).ravel() - shift


def test_jacobians_of_a_tuple_argument():
    """jacfwd/jacrev with a tuple wrt argument and a tuple of data: a Jacobian per leaf, in
    the argument's structure, shaped f(...).shape + leaf.shape; compiled == eager == FD."""
    params = (RNG.normal(size=(3, 2)), np.array([0.1, -0.3]))
    data = (RNG.normal(size=(4, 3)), 0.25)
    snap = snapshot((params, data))
    jf, jr = jitad.jacfwd(layer_out), jitad.jacrev(layer_out)
    Jf, Jr = jf(params, data), jr(params, data)
    assert_unchanged((params, data), snap, "structured jacobians")
    assert jf.specialize(params, data).compiled_ran and jr.specialize(params, data).compiled_ran
    assert isinstance(Jf, tuple) and [J.shape for J in Jf] == [(8, 3, 2), (8, 2)]
    Je = jitad.jacfwd(layer_out, mode="eager")(params, data)
    for k, (a, b, c) in enumerate(zip(Jf, Jr, Je)):
        assert np.allclose(a, b, rtol=1e-12, atol=1e-14) and np.allclose(a, c, rtol=1e-12)
        n = params[k].size
        fd = np.stack([_fd(lambda q, d, k=k: layer_out(params[:k] + (q,) + params[k + 1:], d),
                           (params[k], data), 0, e.reshape(params[k].shape))
                       for e in np.eye(n)], axis=-1)
        assert np.allclose(a, fd.reshape(a.shape), rtol=1e-6, atol=1e-8), k


# -- refusals and coverage -------------------------------------------------------------------

@jitad.primitive(x="g * (1.0 - np.tanh(x) ** 2)")
def squash(x):
    return np.tanh(x)


def squashed(x):
    return np.sum(squash(x))


def test_a_primitive_without_a_tangent_rule_is_refused_at_its_line():
    with pytest.raises(jitad.JitadError, match="no tangent rule for user.*squash") as e:
        jitad.jvp(squashed)(X3, tangents=V3)
    assert "return np.sum(squash(x))" in str(e.value)
    with pytest.raises(jitad.JitadError, match="no tangent rule for user.*squash"):
        jitad.jvp(squashed, mode="eager")(X3, tangents=V3)


def test_every_primitive_with_adjoints_has_tangents_but_the_listed_ones():
    builtin = [n for n in tangents.missing() if not n.startswith("user.")]   # @jitad.primitive
    assert builtin == sorted(tangents.NO_TANGENT_YET) == []


# -- the product rule's two products, fused (`runtime.SUMS_OF_PRODUCTS`) ----------------------

def products(W, h, A, B, u):
    for _ in range(3):
        h = np.tanh(W @ h)                 # matvec: dW @ h + W @ dh
    v = u @ A                              # vecmat: du @ A + u @ dA
    M = A @ B                              # matmat: dA @ B + A @ dB
    return np.sum(h) + np.sum(v * v) + np.sum(M * M)


def test_the_product_rule_is_one_fused_product_sum_with_the_same_numbers():
    """The jvp of products of two moving operands calls `rt.<product>_sum` (one loop, one
    array), equal to the two products' sum bit for bit; the jvp equals grad . v, finite
    differences and eager mode. Code read again (the tangent function of `hvp`) keeps the
    fused calls (primitives of their own, with each product's adjoints), and the hvp (wrt
    each operand kind) equals finite differences of grad, compiled and eager."""
    from jitad import _runtime_jit as rj
    W, h, A, B = (RNG.normal(size=s) * 0.4 for s in ((12, 12), (12,), (12, 12), (12, 9)))
    u = RNG.normal(size=12)
    args = (W, h, A, B, u)
    tans = tuple(RNG.normal(size=np.shape(a)) for a in args)
    wrt = (0, 1, 2, 3, 4)
    src = jitad.source(products, "jvp", args=args, wrt=wrt)
    for kind in ("matvec_sum", "vecmat_sum", "matmat_sum"):
        assert f"rt.{kind}(" in src, kind
    y, t = jitad.jvp(products, wrt=wrt)(*args, tangents=tans)
    assert np.isclose(y, products(*args), rtol=1e-13)
    g = jitad.grad(products, wrt=wrt)(*args)
    assert np.isclose(t, sum(_dot(a, b) for a, b in zip(g, tans)), rtol=1e-11)
    assert np.isclose(t, _fd(products, args, wrt, tans), rtol=1e-6)
    _, te = jitad.jvp(products, wrt=wrt, mode="eager")(*args, tangents=tans)
    assert np.isclose(t, te, rtol=1e-12)
    assert np.array_equal(rj.matvec_sum(W, h, A, u), rj.matvec(W, h) + rj.matvec(A, u))
    assert np.array_equal(rj.vecmat_sum(u, A, h, W), rj.vecmat(u, A) + rj.vecmat(h, W))
    for P, Q in ((A[:4, :5], B[:5, :3]), (A, B)):        # a small product, and a large one
        R, S = P * 0.5 + 1.0, Q - 0.25
        assert np.array_equal(rj.matmat_sum(P, Q, R, S), rj.matmat(P, Q) + rj.matmat(R, S))
    P, Q, R, S = A[:1], B, A * 0.5, B - 0.25              # a broadcast sum (1, 9) + (12, 9)
    assert np.array_equal(rj.matmat_sum(P, Q, R, S), rj.matmat(P, Q) + rj.matmat(R, S))
    with pytest.raises(ValueError):                      # (2, 9) + (12, 9): NumPy's error
        rj.matmat_sum(A[:2], B, R, S)
    hv = jitad.hvp(products, wrt=0)
    assert "rt.matvec_sum(" in jitad.source(hv, "jvp", args=args)
    ref = jitad.differentiable(products, backend="python")   # the references: no Numba compile
    for k in range(len(args)):
        hv = jitad.hvp(products, wrt=k)
        v = RNG.normal(size=args[k].shape)
        gk = jitad.grad(ref, wrt=k)
        e = 1e-6
        fd = (gk(*(a + e * v if i == k else a for i, a in enumerate(args)))
              - gk(*(a - e * v if i == k else a for i, a in enumerate(args)))) / (2 * e)
        got = hv(*args, v=v)
        assert hv.specialize(*args, v=v).compiled_ran
        assert np.allclose(got, fd, rtol=1e-5, atol=1e-7), k
        assert np.allclose(jitad.hvp(products, wrt=k, mode="eager")(*args, v=v), got,
                           rtol=1e-10, atol=1e-12), k


def stacked(x, a, b):       # a matrix output whose shape only running it tells (a list's length)
    rows = []
    for i in range(a.shape[0]):
        rows.append(np.sin(x * a[i]) * b)
    return np.stack(rows)


def test_jacfwd_calls_the_jvp_at_one_place():
    """jacfwd of several parameters (vectors and a number) is one loop over all their columns,
    calling the jvp once: `inline_once` writes it there, so the kernel is the only function
    Numba compiles for the call; an output of rank 2 whose shape only the first call tells is
    reshaped from the shape the kernel returns (`Generated.shaped`), not by running the jvp."""
    x, a, b = np.array([0.3, -0.7, 1.1]), np.array([0.5, 2.0]), 1.3
    jf = jitad.jacfwd(stacked, wrt=(0, 1, 2))
    Jx, Ja, Jb = jf(x, a, b)
    comp = jf.specialize(x, a, b)
    assert comp.compiled_ran and Jx.shape == (2, 3, 3) and Ja.shape == (2, 3, 2) \
        and Jb.shape == (2, 3)
    compiled = [n for n in comp.gen.functions if getattr(comp.fn(n), "signatures", ())]
    assert compiled == [comp.gen.shaped[comp.gen.jacfwd]]
    assert "_jvp(" not in comp.gen.functions[comp.gen.shaped[comp.gen.jacfwd]]
    for J, i, v in ((Jx, 0, None), (Ja, 1, None), (Jb, 2, 1.0)):
        cols = [v] if v is not None else list(np.eye(np.size((x, a, b)[i])))
        fd = np.stack([_fd(stacked, (x, a, b), i, e) for e in cols], axis=-1)
        assert np.allclose(J.reshape(fd.shape), fd, rtol=1e-6, atol=1e-8)
    for Jf, Jr in zip((Jx, Ja, Jb), jitad.jacrev(stacked, wrt=(0, 1, 2))(x, a, b)):
        assert np.allclose(Jf, Jr, rtol=1e-12, atol=1e-14)


def _rosen(x, a):
    u = x[1:] - x[:-1] ** 2
    b = 1.0 - x[:-1]
    return np.sum(a * u * u + b * b)


def test_tangent_sums_are_regrouped_by_tangent():
    """`factor`: the product rule's terms sharing a tangent are one product of that tangent
    (`d_u * (a * u + out_mul)`), the reduction keeps its one addition on the carried sum;
    the value is the primal's bit for bit, the tangent grad . v and finite differences."""
    x, a = RNG.uniform(-1.0, 1.5, 50), 100.0
    v = RNG.normal(size=50)
    src = jitad.source(_rosen, "jvp", args=(x, a))
    assert "d_u * (a * u + out_mul)" in src and "d_b * (b + b)" in src, src
    assert "d_out_sum_acc = d_out_sum_acc + (" in src, src
    snap = snapshot((x, a, v))
    jv = jitad.jvp(_rosen, wrt=0)
    y, t = jv(x, a, tangents=v)
    assert_unchanged((x, a, v), snap)
    assert jv.specialize(x, a).compiled_ran
    assert y == jitad.differentiable(_rosen)(x, a)
    assert np.isclose(t, _dot(jitad.grad(_rosen)(x, a), v), rtol=1e-12)
    assert np.isclose(t, _fd(_rosen, (x, a), 0, v), rtol=1e-6)
