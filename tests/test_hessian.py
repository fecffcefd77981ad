"""Second derivatives over the corpus of tests/hessian_funcs.py: `hessian`, `hvp`,
`grad(grad(f))`, `jacfwd(grad(f))`/`jacrev(grad(f))`, in both modes.

Per case (every one, on the Python backend -- the generated code run as Python, no Numba
compile):
  * the Hessian's blocks are shaped `a.shape + b.shape`, symmetric to rounding;
  * it equals central finite differences of `jitad.grad` (step 1e-5 scaled, rtol 1e-5 plus
    an atol scaled by the Hessian's size) and, where the same source runs under autograd,
    autograd's Hessian (rtol 1e-8);
  * `hvp(v)` equals `H @ v` for a random v;
  * `mode="eager"` (hessian and hvp) equals the generated code's result;
  * the arguments are unchanged by every call.
The Numba subset (`numba=True`: kepler -- a `while` until convergence, piecewise -- branches,
mlp_tanh -- a net; helpers' Numba Hessian is test_hessian_lanes' helper_energy, against this
file's python-backend Hessian; the ODE integrators and linear algebra run on the
Python backend by default; every case with `JITAD_HESSIAN_FULL=1`: ~14 min, 5-100 s of Numba
compile each)
compiles `hessian` (one specialization per case, shared by its assertions), asserts the
Numba-compiled code ran, and compares it with the Python backend's Hessian, the finite
differences and eager mode.
Then transformations of transformed functions: `jacfwd(grad(f)) == jacrev(grad(f)) ==
hessian(f)`, `grad(grad(f))` of float arguments (mixed wrt too) against finite differences,
a third derivative, and one of each compiled with Numba. Structured arguments (a tuple, or a dict
holding a tuple and a float): `hessian` in JAX's layout against finite differences of grad,
`hvp` and eager mode.

A case jitad cannot do yet stays in the corpus marked `xfail(strict=True)` with the exact
error; fixing it turns the test into an unexpected pass, which fails until the mark goes.
Numba's bounds checking is on (tests/conftest.py).
"""
from __future__ import annotations

import math
import os

import numpy as np
import pytest

import jitad
from jitad import runtime as rt
from jitad.ad.tapes import TAPE_CHUNK

from . import hessian_funcs as hf
from .harness import assert_unchanged, autograd_hessian, central_fd, fd_hessian, snapshot

FULL = os.environ.get("JITAD_HESSIAN_FULL", "") not in ("", "0")
CASES = {c.name: c for c in hf.HCASES}


def _param(c):
    marks = [pytest.mark.xfail(strict=True, raises=jitad.JitadError, reason=c.xfail)] \
        if c.xfail else []
    return pytest.param(c, id=c.name, marks=marks)


# ---------------------------------------------------------------------------
# shared per case: the Python-backend function, its Hessian, the FD reference
# ---------------------------------------------------------------------------

_MEMO: dict = {}


def _memo(key, make):
    if key not in _MEMO:
        _MEMO[key] = make()
    return _MEMO[key]


def python_fn(case):
    """The case's function on the Python backend (one `Differentiable` per function)."""
    return _memo(("py", case.fn), lambda: jitad.differentiable(backend="python")(case.fn))


def blocks(H, case):
    """A Hessian as the tuple of tuples of blocks `H[a][b]`, whatever the wrt."""
    return H if isinstance(case.wrt, tuple) else ((H,),)


def full_matrix(B, case, args):
    """The blocks as one (N, N) matrix over the flattened wrt arguments."""
    sizes = [int(np.prod(np.shape(args[i]))) for i in case.wrt_tuple]
    return np.block([[np.asarray(B[a][b], dtype=np.float64).reshape(sizes[a], sizes[b])
                      for b in range(len(sizes))] for a in range(len(sizes))])


def fd_reference(case):
    """Central differences of the (Python-backend) gradient, computed once per case."""
    def make():
        args = case.make_args()
        g = jitad.grad(python_fn(case), wrt=case.wrt)
        return fd_hessian(g, args, case.wrt_tuple, eps=1e-5)
    return _memo(("fd", case.name), make)


def python_hessian(case):
    return _memo(("H", case.name),
                 lambda: jitad.hessian(python_fn(case), wrt=case.wrt)(*case.make_args()))


def assert_close(actual, expected, rtol, atol, label):
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    assert a.shape == e.shape, f"[{label}] shape {a.shape} != {e.shape}"
    assert np.all(np.isfinite(a)), f"[{label}] non-finite values:\n{a}"
    err = np.abs(a - e)
    bad = err > atol + rtol * np.abs(e)
    if np.any(bad):
        worst = np.argmax(err - atol - rtol * np.abs(e))
        k = np.unravel_index(worst, err.shape) if err.ndim else ()
        raise AssertionError(f"[{label}] mismatch (rtol={rtol}, atol={atol:.1e}) at {k}: "
                             f"{a[k]!r} vs {e[k]!r}\nactual=\n{a}\nexpected=\n{e}")


def assert_blocks_close(A, E, case, args, rtol, atol_rel, label):
    """Two Hessians (blocks) equal: elementwise, atol scaled by the expected's largest entry."""
    fa, fe = full_matrix(A, case, args), full_matrix(E, case, args)
    assert_close(fa, fe, rtol, atol_rel * max(1.0, np.max(np.abs(fe))), label)


def random_v(case, args, seed=7):
    rng = np.random.default_rng(seed)
    vs = tuple(rng.normal(size=np.shape(args[i])) if np.ndim(args[i]) else float(rng.normal())
               for i in case.wrt_tuple)
    return vs[0] if not isinstance(case.wrt, tuple) else vs


def flat_v(v, case):
    vs = v if isinstance(case.wrt, tuple) else (v,)
    return np.concatenate([np.ravel(np.asarray(t, dtype=np.float64)) for t in vs])


def hessian_compiled(h, args):
    """The `Compiled` the Hessian object `h` runs for `args` (`compiled_ran` says whether its
    Numba code ran)."""
    return h.specialize(*args)


# ---------------------------------------------------------------------------
# every case, Python backend
# ---------------------------------------------------------------------------

# cases whose Hessian keeps the one-column loop, and the reason `gen.hessian_loop` gives
# (test_hessian_lanes' other cases of what the lanes do not cover): RK4's four inlined steps
# would be too many lane loops for Numba to compile. Asserted here, where its costly Hessian
# is generated anyway, not generated again in test_hessian_lanes.
KEEPS_THE_LOOP = {"ode_rk4": "lane loops"}


@pytest.mark.parametrize("case", [_param(c) for c in hf.HCASES])
def test_hessian_python_backend(case, monkeypatch):
    monkeypatch.delenv("JITAD_HESSIAN_LANES", raising=False)
    args = case.make_args()
    snap = snapshot(args)
    fp = python_fn(case)
    h = jitad.hessian(fp, wrt=case.wrt)
    H = h(*args)
    assert_unchanged(args, snap, "hessian")
    if case.name in KEEPS_THE_LOOP:
        gen = h.specialize(*args).gen
        assert gen.hessian_lanes is None and KEEPS_THE_LOOP[case.name] in gen.hessian_loop
    B = blocks(H, case)
    for a, i in enumerate(case.wrt_tuple):
        for b, j in enumerate(case.wrt_tuple):
            assert np.shape(B[a][b]) == np.shape(args[i]) + np.shape(args[j]), (a, b)
    M = full_matrix(B, case, args)
    scale = max(1.0, np.max(np.abs(M)))
    assert_close(M, M.T, 0.0, 1e-10 * scale, "symmetric")
    assert_blocks_close(B, fd_reference(case), case, args, 1e-5, 1e-6, "vs FD of grad")
    if case.autograd:
        ag = autograd_hessian(case.fn, case.make_args(), case.wrt_tuple)
        assert_blocks_close(B, ag, case, args, 1e-8, 1e-10, "vs autograd")
    # hvp == H v, without forming H
    v = random_v(case, args)
    hv = jitad.hvp(fp, wrt=case.wrt)(*args, v=v)
    assert_unchanged(args, snap, "hvp")
    assert_close(flat_v(hv, case), M @ flat_v(v, case), 1e-9, 1e-11 * scale, "hvp vs H v")
    # eager mode: the recorded backward pass of the tangent code
    He = jitad.hessian(fp, wrt=case.wrt, mode="eager")(*args)
    assert_unchanged(args, snap, "eager hessian")
    assert_blocks_close(blocks(He, case), B, case, args, 1e-10, 1e-12, "eager vs compiled")
    hve = jitad.hvp(fp, wrt=case.wrt, mode="eager")(*args, v=v)
    assert_close(flat_v(hve, case), flat_v(hv, case), 1e-10, 1e-12 * scale, "eager hvp")


# ---------------------------------------------------------------------------
# the Numba subset (all of it with JITAD_HESSIAN_FULL=1)
# ---------------------------------------------------------------------------

NUMBA_CASES = [c for c in hf.HCASES if FULL or c.numba]


@pytest.mark.parametrize("case", [_param(c) for c in NUMBA_CASES])
def test_hessian_numba(case):
    args = case.make_args()
    snap = snapshot(args)
    h = jitad.hessian(case.fn, wrt=case.wrt)
    H = h(*args)
    assert_unchanged(args, snap, "numba hessian")
    assert hessian_compiled(h, args).compiled_ran, "the Numba-compiled Hessian did not run"
    B = blocks(H, case)
    assert_blocks_close(B, blocks(python_hessian(case), case), case, args, 1e-10, 1e-12,
                        "numba vs python backend")
    assert_blocks_close(B, fd_reference(case), case, args, 1e-5, 1e-6, "numba vs FD of grad")
    He = jitad.hessian(case.fn, wrt=case.wrt, mode="eager")(*args)
    assert_blocks_close(blocks(He, case), B, case, args, 1e-10, 1e-12, "eager vs numba")
    M = full_matrix(B, case, args)
    assert_close(M, M.T, 0.0, 1e-10 * max(1.0, np.max(np.abs(M))), "symmetric")


# ---------------------------------------------------------------------------
# transformations of transformed functions
# ---------------------------------------------------------------------------

JAC_OF_GRAD = ["newton_sqrt", "piecewise", "ode_euler", "rosenbrock_loop", "array_writes",
               "mlp_tanh", "var_sum_zeros", "reductions_axis_zeros", "cumulative_zero",
               "running_extremes", "sorts_and_quantiles"]


@pytest.mark.parametrize("name", JAC_OF_GRAD)
def test_jacobians_of_grad_are_the_hessian(name):
    case = CASES[name]
    args = case.make_args()
    snap = snapshot(args)
    g = jitad.grad(python_fn(case), wrt=case.wrt)
    H = python_hessian(case)
    Jf = jitad.jacfwd(g, wrt=case.wrt)(*args)
    Jr = jitad.jacrev(g, wrt=case.wrt)(*args)
    assert_unchanged(args, snap, "jacobians of grad")
    scale = max(1.0, np.max(np.abs(H)))
    assert_close(Jf, H, 1e-10, 1e-12 * scale, "jacfwd(grad) vs hessian")
    assert_close(Jr, H, 1e-10, 1e-12 * scale, "jacrev(grad) vs hessian")
    Je = jitad.jacfwd(g, wrt=case.wrt, mode="eager")(*args)
    assert_close(Je, H, 1e-10, 1e-12 * scale, "eager jacfwd(grad) vs hessian")
    # jvp of grad: the gradient and H v
    v = random_v(case, args)
    gv, Hv = jitad.jvp(g, wrt=case.wrt)(*args, tangents=v)
    assert_close(gv, g(*args), 1e-12, 1e-14, "jvp(grad) value")
    assert_close(np.ravel(Hv), full_matrix(blocks(H, case), case, args) @ flat_v(v, case),
                 1e-9, 1e-11 * scale, "jvp(grad) vs H v")


# float arguments: (case, wrt of the inner grad, wrt of the outer grad) for every pair
SCALAR_CASES = ["newton_cubic", "kepler", "helper_scalars", "math_scalars", "himmelblau",
                "ode_until_time", "babylon_break"]
GRAD_GRAD = [pytest.param(CASES[n], i, j, id=f"{n}-{i}{j}", marks=_param(CASES[n]).marks)
             for n in SCALAR_CASES for i in CASES[n].wrt_tuple for j in CASES[n].wrt_tuple]


@pytest.mark.parametrize("case, i, j", GRAD_GRAD)
def test_grad_of_grad_of_floats(case, i, j):
    args = case.make_args()
    fp = python_fn(case)
    inner = jitad.grad(fp, wrt=i)
    d2 = jitad.grad(inner, wrt=j)(*args)
    assert isinstance(d2, float)
    fd = fd_hessian(inner, args, (j,), eps=1e-5)[0][0]
    assert_close(d2, fd, 1e-5, 1e-6 * max(1.0, abs(fd)), "grad(grad) vs FD of grad")
    a, b = case.wrt_tuple.index(i), case.wrt_tuple.index(j)
    assert_close(d2, blocks(python_hessian(case), case)[a][b], 1e-10, 1e-12 * max(1.0, abs(d2)),
                 "grad(grad) vs hessian")
    d2e = jitad.grad(inner, wrt=j, mode="eager")(*args)
    assert_close(d2e, d2, 1e-10, 1e-12 * max(1.0, abs(d2)), "eager grad(grad)")


def test_third_derivatives():
    """grad(grad(grad(f))): Himmelblau's written out (d3/da3 = 24 a, d3/da2 db = 4) and a
    Newton solve's against finite differences of grad(grad(f))."""
    himmel = python_fn(CASES["himmelblau"])
    a, b = CASES["himmelblau"].make_args()
    d2a = jitad.grad(jitad.grad(himmel, wrt=0), wrt=0)
    assert_close(jitad.grad(d2a, wrt=0)(a, b), 24.0 * a, 1e-12, 1e-12, "d3/da3")
    assert_close(jitad.grad(d2a, wrt=1)(a, b), 4.0, 1e-12, 1e-12, "d3/da2db")
    newton = python_fn(CASES["newton_cubic"])
    d2 = jitad.grad(jitad.grad(newton))
    (x,) = CASES["newton_cubic"].make_args()
    d3 = jitad.grad(d2)(x)
    fd = fd_hessian(d2, (x,), (0,), eps=1e-4)[0][0]
    assert_close(d3, fd, 1e-5, 1e-6, "third derivative vs FD of grad(grad)")
    assert_close(jitad.grad(d2, mode="eager")(x), d3, 1e-10, 1e-12, "eager third derivative")


def helper_rules(x, d, M, D):
    """The runtime helpers of the product and scan rules, called as the generated jvp calls
    them (the front end reads each as its primitive); sorted by d (x ties at its zeros)."""
    return (np.sum(rt.prod_others(x) * d) + np.sum(rt.prod_others_axis(M, 1) * D)
            + np.sum(rt.cumprod_tangent(x, d) ** 2) + np.sum(rt.cummax_tangent(M, D, 0) * M)
            + np.sum(rt.sort_tangent(d, x, 0) * d))


def test_the_rules_of_the_product_and_scan_helpers():
    """Each helper primitive's adjoints (grad) and tangents (jvp) against finite differences,
    in both modes, at points with zeros (the products of the others are exact there)."""
    rng = np.random.default_rng(8)
    x, d = np.array([0.6, 0.0, -1.3, 0.9, 0.0]), rng.normal(size=5)
    M, D = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    M[1, 2] = 0.0
    args, wrt = (x, d, M, D), (0, 1, 2, 3)
    f = jitad.differentiable(backend="python")(helper_rules)
    g = jitad.grad(f, wrt=wrt)(*args)
    fd = central_fd(helper_rules, args, wrt)
    for a, b in zip(g, fd):
        assert_close(a, b, 1e-6, 1e-8, "grad of the helpers vs FD")
    for a, b in zip(jitad.grad(f, wrt=wrt, mode="eager")(*args), g):
        assert_close(a, b, 1e-12, 1e-12, "eager grad of the helpers")
    v = tuple(rng.normal(size=np.shape(a)) for a in args)
    _, t = jitad.jvp(f, wrt=wrt)(*args, tangents=v)
    assert_close(t, sum(np.sum(a * b) for a, b in zip(g, v)), 1e-10, 1e-12, "jvp == grad . v")
    _, te = jitad.jvp(f, wrt=wrt, mode="eager")(*args, tangents=v)
    assert_close(te, t, 1e-12, 1e-12, "eager jvp of the helpers")


def scaled_prod(a):
    return np.prod(a * np.array([1.0, 2.0, 3.0]))


def test_a_third_derivative_past_the_product_rules_is_refused_at_the_users_line():
    """np.prod's second derivative is exact (6 a^3: 36 a); its third would differentiate the
    helper of prod_others' own tangent, which has no rule: refused at the user's line, through
    both levels of generated code."""
    f = jitad.differentiable(backend="python")(scaled_prod)
    d2 = jitad.grad(jitad.grad(f))
    assert_close(d2(0.7), 36.0 * 0.7, 1e-12, 1e-12, "d2 prod")
    with pytest.raises(jitad.JitadError, match="prod_others_tangent") as e:
        jitad.grad(d2)(0.7)
    assert e.value.loc.filename == __file__ and "np.prod(a * np.array" in str(e.value)


def test_second_derivatives_compiled_with_numba():
    """grad(grad(f)) and jacrev(grad(f)) of the plain functions (Numba backend): the compiled
    code ran and equals the Python backend's."""
    case = CASES["newton_cubic"]
    args = case.make_args()
    gg = jitad.grad(jitad.grad(case.fn))
    d2 = gg(*args)
    assert gg.specialize(*args).compiled_ran
    assert_close(d2, python_hessian(case), 1e-10, 1e-12, "numba grad(grad)")
    case = CASES["piecewise"]
    args = case.make_args()
    jr = jitad.jacrev(jitad.grad(case.fn))
    J = jr(*args)
    assert jr.specialize(*args).compiled_ran
    assert_close(J, python_hessian(case), 1e-10, 1e-12, "numba jacrev(grad)")


# ---------------------------------------------------------------------------
# structured arguments: hvp takes a tuple of parameter arrays (the usual `params`)
# ---------------------------------------------------------------------------

def tuple_net(params, X, y):
    W1, b1, w2 = params
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ w2 - y) ** 2)


def test_hvp_of_a_tuple_of_parameters():
    rng = np.random.default_rng(3)
    params = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4))
    X, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    v = tuple(rng.normal(size=np.shape(p)) for p in params)
    snap = snapshot((params, X, y))
    f = jitad.differentiable(backend="python")(tuple_net)
    hv = jitad.hvp(f)(params, X, y, v=v)
    assert_unchanged((params, X, y), snap, "structured hvp")
    assert isinstance(hv, tuple) and [np.shape(h) for h in hv] == [np.shape(p) for p in params]
    g, h = jitad.grad(f), 1e-6
    plus = g(tuple(p + h * d for p, d in zip(params, v)), X, y)
    minus = g(tuple(p - h * d for p, d in zip(params, v)), X, y)
    for got, a, b in zip(hv, plus, minus):
        assert np.allclose(got, (a - b) / (2 * h), rtol=1e-5, atol=1e-7)
    for got, e in zip(hv, jitad.hvp(tuple_net, mode="eager")(params, X, y, v=v)):
        assert np.allclose(got, e, rtol=1e-10, atol=1e-12)


# hessian of a structured argument: JAX's layout, H[p][q] shaped leaf p's shape + leaf q's (a
# dict by its keys, nested structures nested), H[i][p][j][q] for a tuple wrt

def nested_net(params, X, y):
    W1, b1 = params["layer"]
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ params["w"] - y) ** 2) + params["s"] ** 2 * np.sum(b1 * b1)


def _leaf_paths(v, path=()):
    """(path, leaf) of a nested tuple/list/dict, depth first (dicts in key order)."""
    if isinstance(v, dict):
        return [x for k, a in v.items() for x in _leaf_paths(a, path + (k,))]
    if isinstance(v, (tuple, list)):
        return [x for k, a in enumerate(v) for x in _leaf_paths(a, path + (k,))]
    return [(path, v)]


def _at(v, path):
    for k in path:
        v = v[k]
    return v


def _with_leaves(like, values):
    it = iter(values)

    def build(v):
        if isinstance(v, dict):
            return {k: build(a) for k, a in v.items()}
        if isinstance(v, (tuple, list)):
            return type(v)(build(a) for a in v)
        return next(it)
    return build(like)


def _fd_structured(g, params, rest, eps=1e-5):
    """Central differences of the gradient `g(params, *rest)` (params' structure) over every
    element of every leaf: the (N, N) matrix over the leaves flattened in order."""
    paths = [p for p, _ in _leaf_paths(params)]
    flat = np.concatenate([np.ravel(np.asarray(x, dtype=float)) for _, x in _leaf_paths(params)])
    shapes = [np.shape(x) for _, x in _leaf_paths(params)]

    def unflat(z):
        out, k = [], 0
        for sh in shapes:
            n = int(np.prod(sh))
            out.append(z[k:k + n].reshape(sh) if sh else float(z[k]))
            k += n
        return _with_leaves(params, out)

    def gflat(z):
        gr = g(unflat(z), *rest)
        return np.concatenate([np.ravel(np.asarray(_at(gr, p), dtype=float)) for p in paths])

    cols = []
    for k in range(flat.size):
        h = eps * max(1.0, abs(flat[k]))
        zp, zm = flat.copy(), flat.copy()
        zp[k] += h
        zm[k] -= h
        cols.append((gflat(zp) - gflat(zm)) / (2 * h))
    return np.array(cols).T


def _structured_matrix(H, params):
    """The blocks H[p][q] (paths into params' structure) as one (N, N) matrix."""
    paths = [(p, np.size(x)) for p, x in _leaf_paths(params)]
    return np.block([[np.asarray(_at(_at(H, p), q), dtype=float).reshape(n, m)
                      for q, m in paths] for p, n in paths])


def _structured_args():
    rng = np.random.default_rng(4)
    params = {"layer": (rng.normal(size=(3, 2)), rng.normal(size=2)),
              "w": rng.normal(size=2), "s": 0.7}
    return params, rng.normal(size=(4, 3)), rng.normal(size=4)


NESTED = jitad.differentiable(backend="python")(nested_net)
TUPLE = jitad.differentiable(backend="python")(tuple_net)


def test_hessian_of_a_structured_argument():
    """A dict holding a tuple, an array and a float: blocks keyed like it, equal to finite
    differences of grad and to H v (hvp), in both modes; the arguments are unchanged."""
    args = _structured_args()
    params = args[0]
    snap = snapshot(args)
    H = jitad.hessian(NESTED)(*args)
    assert_unchanged(args, snap, "structured hessian")
    assert list(H) == ["layer", "w", "s"] and list(H["layer"][1]) == ["layer", "w", "s"]
    for p, x in _leaf_paths(params):
        for q, z in _leaf_paths(params):
            assert np.shape(_at(_at(H, p), q)) == np.shape(x) + np.shape(z), (p, q)
    M = _structured_matrix(H, params)
    scale = max(1.0, np.max(np.abs(M)))
    assert_close(M, M.T, 0.0, 1e-10 * scale, "symmetric")
    assert_close(M, _fd_structured(jitad.grad(NESTED), params, args[1:]), 1e-5, 1e-6 * scale,
                 "structured hessian vs FD of grad")
    rng = np.random.default_rng(5)
    v = _with_leaves(params, [rng.normal(size=np.shape(x)) if np.ndim(x) else float(rng.normal())
                              for _, x in _leaf_paths(params)])
    hv = jitad.hvp(NESTED)(*args, v=v)
    flat = lambda t: np.concatenate([np.ravel(np.asarray(x, dtype=float))   # noqa: E731
                                     for _, x in _leaf_paths(t)])
    assert_close(flat(hv), M @ flat(v), 1e-9, 1e-11 * scale, "hvp vs H v")
    He = jitad.hessian(NESTED, mode="eager")(*args)
    assert_unchanged(args, snap, "eager structured hessian")
    assert_close(_structured_matrix(He, params), M, 1e-10, 1e-12 * scale, "eager vs compiled")


def test_hessian_of_a_tuple_with_a_tuple_wrt():
    """wrt=(0, 1) with a tuple first argument: H[i][p][j][q] (no leaf level for the plain X),
    the same numbers as the Hessian of the function taking the leaves one by one."""
    rng = np.random.default_rng(3)
    params = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4))
    X, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    H = jitad.hessian(TUPLE, wrt=(0, 1))(params, X, y)
    ref = jitad.hessian(jitad.differentiable(backend="python")(_tuple_net_flat),
                        wrt=(0, 1, 2, 3))(*params, X, y)
    assert isinstance(H, tuple) and len(H) == 2 and isinstance(H[0], tuple) and len(H[0]) == 3
    for p in range(4):                      # leaf p of (W1, b1, w2, X)
        for q in range(4):
            i, j = (0, p) if p < 3 else (1, None), (0, q) if q < 3 else (1, None)
            row = H[i[0]] if i[1] is None else H[i[0]][i[1]]
            block = row[j[0]] if j[1] is None else row[j[0]][j[1]]
            assert_close(block, ref[p][q], 1e-12, 1e-12, f"block {p} {q}")
    He = jitad.hessian(TUPLE, wrt=(0, 1), mode="eager")(params, X, y)
    assert_close(He[0][1][1], H[0][1][1], 1e-10, 1e-12, "eager block (b1, X)")
    assert_close(He[1][0][2], H[1][0][2], 1e-10, 1e-12, "eager block (X, w2)")


def _tuple_net_flat(W1, b1, w2, X, y):
    return tuple_net((W1, b1, w2), X, y)


def scalar_fit(a, data):
    X, y = data
    return np.sum((a * X[:, 0] + a * a * X[:, 1] - y) ** 2)


SCALAR_FIT = jitad.differentiable(backend="python")(scalar_fit)


def test_transformations_of_grad_with_structured_arguments():
    """grad(grad(f)) and jacfwd/jacrev(grad(f)) with a tuple of data (passed on leaf by leaf)
    against finite differences and hessian; jacfwd/jacrev(grad(f)) of a tuple wrt argument is
    its Hessian in hessian's layout (JAX's); both modes; another wrt is refused."""
    rng = np.random.default_rng(6)
    data = (rng.normal(size=(5, 2)), rng.normal(size=5))
    inner = jitad.grad(SCALAR_FIT)
    fd = fd_hessian(inner, (0.3, data), (0,), eps=1e-5)[0][0]
    H = jitad.hessian(SCALAR_FIT)(0.3, data)
    assert_close(H, fd, 1e-5, 1e-6 * max(1.0, abs(fd)), "hessian with data vs FD")
    for mode in ("compiled", "eager"):
        for d2 in (jitad.grad(inner, mode=mode)(0.3, data),
                   jitad.jacfwd(inner, mode=mode)(0.3, data),
                   jitad.jacrev(inner, mode=mode)(0.3, data)):
            assert_close(d2, H, 1e-10, 1e-12 * max(1.0, abs(H)), f"{mode} second derivative")
    params = (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4))
    X, y = rng.normal(size=(5, 3)), rng.normal(size=5)
    H = jitad.hessian(TUPLE)(params, X, y)
    g = jitad.grad(TUPLE)
    for J in (jitad.jacfwd(g)(params, X, y), jitad.jacrev(g)(params, X, y),
              jitad.jacfwd(g, mode="eager")(params, X, y)):
        for i in range(3):
            for j in range(3):
                assert_close(J[i][j], H[i][j], 1e-10, 1e-12, f"jacobian of grad [{i}][{j}]")
    with pytest.raises(jitad.JitadError, match="only with the gradient's own wrt"):
        jitad.jacfwd(g, wrt=(0, 1))(params, X, y)
    with pytest.raises(jitad.JitadError, match="its gradient is one too; use jitad.hessian"):
        jitad.jvp(g)(params, X, y, tangents=params)


# ---------------------------------------------------------------------------
# a rebound global: second derivatives are made again, as first derivatives are
# ---------------------------------------------------------------------------

SCALE = 2.0


def scaled_cube(x):
    return SCALE * np.sum(x ** 3)


def test_a_rebound_global_is_seen_by_second_derivatives():
    global SCALE
    x = np.array([1.0, 2.0])
    f = jitad.differentiable(backend="python")(scaled_cube)
    hv = jitad.hvp(f)           # one object called again: its fast path sees the rebinding
    try:
        assert np.allclose(jitad.hessian(f)(x), np.diag(6.0 * SCALE * x))
        assert np.allclose(hv(x, v=np.ones(2)), 12.0 * x)
        assert np.allclose(hv(x, v=np.ones(2)), 12.0 * x)
        SCALE = 5.0
        assert np.allclose(jitad.hessian(f)(x), np.diag(30.0 * x))
        assert np.allclose(jitad.hvp(f)(x, v=np.ones(2)), 30.0 * x)
        assert np.allclose(hv(x, v=np.ones(2)), 30.0 * x)
        with pytest.raises(jitad.JitadError, match="must have its shape"):
            hv(x, v=np.ones(3))
    finally:
        SCALE = 2.0


# -- tapes of `while` loops, reserved a chunk of iterations at a time -------------------------

def damped(c, x, n):
    """A `while` whose trip count is the data's (n): its tapes are reserved once per
    `TAPE_CHUNK` iterations (`Reverse.chunked_while`), the loop running them reserves nothing."""
    k = 0
    v = 0.0
    while k < n:
        v = v + c * math.sin(x + v) - 0.01 * v * v
        x = x * 0.99 + 0.001 * c * x
        k = k + 1
    return v * x + c


@pytest.mark.parametrize("n", [0, 1, TAPE_CHUNK - 1, TAPE_CHUNK, TAPE_CHUNK + 1,
                               3 * TAPE_CHUNK])
def test_while_tapes_reserved_by_chunks(n):
    """Trip counts around the chunk's boundaries: the gradient, the Hessian-vector product and
    the Hessian of the loop (compiled) against finite differences and autograd; the generated
    code reserves outside the loop that pushes."""
    args = (0.7, 0.4, n)
    g = jitad.grad(damped, wrt=(0, 1))
    got = g(*args)
    fd = central_fd(damped, args, (0, 1))
    assert np.allclose(got, fd, rtol=1e-6, atol=1e-8)
    H = np.array(jitad.hessian(damped, wrt=(0, 1))(*args), dtype=float).reshape(2, 2)
    ag = np.array(autograd_hessian(damped, args, (0, 1)), dtype=float).reshape(2, 2)
    assert np.allclose(H, ag, rtol=1e-10, atol=1e-12)
    assert np.allclose(H, H.T, rtol=1e-12, atol=1e-14)
    hv = jitad.hvp(damped, wrt=(0, 1))(*args, v=(0.3, -1.2))
    assert np.allclose(np.array(hv, dtype=float), H @ np.array([0.3, -1.2]), rtol=1e-10,
                       atol=1e-12)
    src = jitad.source(damped, "adjoint", args=args, wrt=(0, 1))
    head = src[src.index("while True:"):src.index("while chunk > 0:")]
    assert "tape_f = rt.reserve(tape_f, top_f + " in head and f"chunk = {TAPE_CHUNK}" in head
    loop = src[src.index("while chunk > 0:"):src.index("if chunk > 0:")]
    assert "rt.reserve" not in loop and "tape_f[top_f] = " in loop
