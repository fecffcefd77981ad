"""Held-out corpus #14's findings (tests/heldout14_funcs.py: MGH and CUTEst-style objectives,
everyday scientific models), fixed in both modes:
  * `y[i]` of a tuple of numbers (`y = (1.5, 2.25, 2.625)` in MGH Beale's loop, or a
    module-level one) by a computed index reads the array of those numbers (integers if all
    are, so `x[PERM[i]]` indexes); it was refused as "a tuple is ... not an operand here";
  * eager mode: a list of numbers given to a primitive (`np.convolve(u, [1.0, -2.0, 1.0])`) is
    the float array compiled mode stacks; it crashed with AttributeError (no JitadError);
  * `np.linalg.norm`'s slope at x = 0 is 0 (as abs's, a subgradient), in reverse and forward
    mode, both modes: an n-body potential whose zero pairwise distances are overwritten by
    `np.fill_diagonal` had a nan gradient (0 * 0 / 0);
  * `scipy.special.log_expit`, `scipy.optimize.rosen`, `scipy.linalg.cho_factor` /
    `cho_solve` are defined by NumPy (`jitad/prelude.py`), and a prelude definition returning
    a tuple is a tuple local (`cf = cho_factor(K); cho_solve(cf, y)`).
What stays refused, each at its line in both modes: `with np.errstate(divide="raise")` (one
that only silences warnings is its body since corpus 22's session), `np.roll` by a
tuple of shifts and axes, `np.add.reduce` (its default axis is 0, not np.sum's None),
`np.polynomial.chebyshev.chebval`.
Each gradient against central finite differences, compiled (Numba for one of each mechanism,
the generated Python for the rest) and eager, the arguments unchanged; the API forms users of
objectives want (hessian, hvp, jacfwd / jacrev of residual vectors, jvp, wrt by name); the
whole corpus once through both modes."""
import numpy as np
import pytest
from scipy.special import log_expit

import jitad

from . import heldout14_funcs as hf
from .harness import (assert_unchanged, central_fd, check_form_accepted, check_form_refused,
                      check_grads_both_modes, snapshot)

rng = np.random.default_rng(1414)
nrm = rng.normal


def _py(fn):
    return jitad.differentiable(fn, backend="python")


# -- the fixed findings ------------------------------------------------------------------------
FIXED = [
    (hf.mgh_beale_loop, (np.array([1.0, 0.8]),), (0,)),
    (hf.nbody_potential_fill_diagonal, (nrm(size=(4, 2)), np.array([1.0, 2.0, 0.5, 1.5])),
     (0, 1)),
    (hf.gp_nlml_cho_factor_kept, (-0.2, nrm(size=(5, 2)), nrm(size=5)), (0, 2)),
]
NUMBA_FIXED = {"nbody_potential_fill_diagonal"}     # norm's rule as Numba compiles it


@pytest.mark.parametrize("fn,args,wrt", FIXED, ids=[c[0].__name__ for c in FIXED])
def test_fixed_findings(fn, args, wrt):
    check_form_accepted(fn, args, wrt, backend="numba" if fn.__name__ in NUMBA_FIXED else "python")


PERM = (2, 0, 1)
SCALES = (0.5, -1.0, 2.0)


def tuple_of_ints_as_index(x):
    s = 0.0
    for i in range(3):
        s += x[PERM[i]] * (i + 1.0) * x[i]
    return s


def tuple_read_by_computed_index(x, k):
    y = (0.5, -1.0, 2.0)
    return y[k] * x[0] ** 2 + SCALES[-k - 1] * x[1] + y[k + 1] * np.sum(x)


def tuple_in_a_while(x):
    c = (1, 2, 3)
    s = 0.0
    j = 0
    while j < 3:
        s += c[j] * np.sin(x[j])
        j += 1
    return s


def convolve_with_lists(u, w):
    return np.sum(np.convolve(u, [1.0, -2.0, 1.0], mode="same") ** 2) \
        + np.sum(np.convolve(u, [1, 2]) * w)


def log_expit_by_name(w, X):
    # a ufunc imported by name: eager mode reaches it through NumPy's dispatch
    return np.sum(log_expit(X @ w) * np.tanh(w[0]))


def norms_at_zero(x):
    d = x[:, None] - x[None, :]
    r = np.linalg.norm(d[..., None] * np.ones(2), axis=-1)     # zero on the diagonal
    return np.sum(r) + np.linalg.norm(x - x) + np.linalg.norm(x)


ACCEPTED = [
    (tuple_of_ints_as_index, (nrm(size=3),), (0,)),
    (tuple_read_by_computed_index, (nrm(size=3), 1), (0,)),
    (tuple_in_a_while, (nrm(size=3),), (0,)),
    (convolve_with_lists, (nrm(size=5), nrm(size=6)), (0, 1)),
    (norms_at_zero, (np.array([0.3, -0.4, 1.2]),), (0,)),
    (hf.logistic_log_expit, (nrm(size=3), nrm(size=(6, 3)), (nrm(size=6) > 0) * 1.0), (0,)),
    (hf.rosen_by_scipy, (nrm(size=5),), (0,)),
    (log_expit_by_name, (nrm(size=3), nrm(size=(4, 3))), (0,)),
    (hf.gp_nlml_cho_factor, (0.1, nrm(size=(5, 2)), nrm(size=5)), (0, 2)),
    (hf.heat_by_convolve, (nrm(size=7),), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[c[0].__name__ for c in ACCEPTED])
def test_accepted_forms(fn, args, wrt):
    check_form_accepted(fn, args, wrt, backend="python")


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_norm_slope_at_zero_is_zero(mode):
    def f(x):
        return np.linalg.norm(x - x) + np.sum(np.linalg.norm(np.outer(x, x) * 0.0, axis=1))
    g = _py(f) if mode == "compiled" else f
    x = np.array([0.3, -0.4])
    assert np.array_equal(jitad.grad(g, mode=mode)(x), np.zeros(2))
    _, t = jitad.jvp(g, mode=mode)(x, tangents=np.ones(2))
    assert t == 0.0


def test_cho_factor_keeps_scipys_other_triangle():
    from scipy.linalg import cho_factor

    def f(K):
        c, low = cho_factor(K)
        return np.sum(c)
    A = nrm(size=(3, 3))
    K = A @ A.T + np.eye(3)
    v, _ = jitad.value_and_grad(_py(f))(K)
    assert abs(v - f(K)) <= 1e-12 * abs(v)


# -- what stays refused ------------------------------------------------------------------------
def errstate_block(x):
    with np.errstate(divide="raise"):  # ERR: with statement
        y = np.log(x)
    return np.sum(y ** 2)


def roll_by_tuples(s):
    return -np.sum(s * np.roll(s, shift=(1, 1), axis=(0, 1)))


def ufunc_reduce(x):
    return np.add.reduce(x ** 2) + np.sum(x)


def chebyshev_series(x):
    c = np.array([0.0, 0.0, 1.0])
    return np.sum(np.polynomial.chebyshev.chebval(x, c))  # ERR: chebval has no derivative rule


REFUSED = [(errstate_block, (np.abs(nrm(size=3)) + 0.1,)), (chebyshev_series, (nrm(size=3),))]
# refused until corpus 22: np.roll over a tuple of axes (one roll per axis) and np.add.reduce
# (np.sum along axis 0)
NOW_ACCEPTED = [(roll_by_tuples, (nrm(size=(3, 3)),)), (ufunc_reduce, (nrm(size=3),))]


@pytest.mark.parametrize("fn,args", NOW_ACCEPTED, ids=lambda c: getattr(c, "__name__", ""))
def test_now_accepted_forms(fn, args):
    check_form_accepted(fn, args, (0,))


@pytest.mark.parametrize("fn,args", REFUSED, ids=lambda c: getattr(c, "__name__", ""))
def test_refused_forms(fn, args):
    check_form_refused(fn, args, __file__)


# -- the API forms users of objectives want ---------------------------------------------------------
def _hessian_fd(fn, x):
    """The Hessian by central differences of the eager gradient."""
    n = x.size
    cols = []
    for e in np.eye(n):
        gp = jitad.grad(fn, mode="eager")(x + 1e-6 * e)
        gm = jitad.grad(fn, mode="eager")(x - 1e-6 * e)
        cols.append((gp - gm) / 2e-6)
    return np.array(cols).T


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn,x", [(hf.mgh_wood, np.array([-3.0, -1.0, -3.0, -1.0])),
                                  (hf.cute_dixmaan_loop, nrm(size=6)),
                                  (hf.mgh_helical_valley, np.array([-1.0, 0.3, 0.2])),
                                  (hf.mgh_chebyquad, np.arange(1, 5) / 5.0)],
                         ids=["wood", "dixmaan_loop", "helical_valley", "chebyquad"])
def test_newton_forms(fn, x, mode):
    f = _py(fn) if mode == "compiled" else fn
    snap = snapshot((x,))
    H = jitad.hessian(f, mode=mode)(x)
    assert np.allclose(H, _hessian_fd(fn, x), rtol=1e-5, atol=1e-6 * (1 + np.max(np.abs(H))))
    assert np.allclose(H, H.T, rtol=1e-10, atol=1e-10 * (1 + np.max(np.abs(H))))
    v = nrm(size=x.size)
    assert np.allclose(jitad.hvp(f, mode=mode)(x, v=v), H @ v, rtol=1e-9, atol=1e-9)
    val, g = jitad.value_and_grad(f, wrt="x", mode=mode)(x)
    assert abs(val - fn(x)) <= 1e-12 * (1 + abs(val))
    assert np.allclose(g, central_fd(fn, (x,), (0,), eps=1e-6)[0], rtol=1e-6, atol=1e-6)
    _, t = jitad.jvp(f, mode=mode)(x, tangents=v)
    assert abs(t - g @ v) <= 1e-10 * (1 + abs(t))
    assert_unchanged((x,), snap, mode)


RESIDUALS = hf.residuals()


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn,args", RESIDUALS, ids=[c[0].__name__ for c in RESIDUALS])
def test_least_squares_jacobians(fn, args, mode):
    (x,) = args
    f = _py(fn) if mode == "compiled" else fn
    snap = snapshot(args)
    m = fn(x).size
    J = np.array([central_fd(lambda a: fn(a)[i], (x,), (0,), eps=1e-6)[0] for i in range(m)])
    Jf = jitad.jacfwd(f, mode=mode)(x)
    Jr = jitad.jacrev(f, mode=mode)(x)
    assert np.allclose(Jf, J, rtol=1e-6, atol=1e-7)
    assert np.allclose(Jr, Jf, rtol=1e-12, atol=1e-12)
    t = nrm(size=x.size)
    r, dr = jitad.jvp(f, mode=mode)(x, tangents=t)
    assert np.allclose(r, fn(x)) and np.allclose(dr, Jf @ t)
    # Gauss-Newton's J^T r against the gradient of the half sum of squares
    g = jitad.grad(lambda a: 0.5 * np.sum(fn(a) ** 2), mode="eager")(x)
    assert np.allclose(Jr.T @ fn(x), g, rtol=1e-9, atol=1e-9)
    assert_unchanged(args, snap, mode)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_model_wrt_by_name(mode):
    t = np.linspace(0.0, 5.0, 8)
    obs = 10.0 / (1.0 + 9.0 * np.exp(-t)) + 0.1 * nrm(size=8)
    p = np.array([0.9, 10.0, 1.0])
    f = _py(hf.logistic_growth_fit) if mode == "compiled" else hf.logistic_growth_fit
    v, g = jitad.value_and_grad(f, wrt="params", mode=mode)(p, t, obs)
    assert abs(v - hf.logistic_growth_fit(p, t, obs)) <= 1e-12
    fd = central_fd(hf.logistic_growth_fit, (p, t, obs), (0,), eps=1e-6)[0]
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-8)
    H = jitad.hessian(f, wrt="params", mode=mode)(p, t, obs)
    assert np.allclose(H, H.T, rtol=1e-9, atol=1e-12)


# -- the corpus, once through both modes -------------------------------------------------------
CORPUS = hf.mgh() + hf.cutest() + hf.models() + hf.more()
NUMBA = {"pendulum_adaptive_while"}     # one Numba compile: `while` with `continue`, math


@pytest.mark.parametrize("fn,args,wrt", CORPUS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CORPUS)])
def test_corpus_both_modes(fn, args, wrt):
    check_grads_both_modes(fn, args, wrt, value_atol=1e-10,
                           backend="numba" if fn.__name__ in NUMBA else "python")


def test_refused_forms_of_the_corpus():
    for fn, args in hf.refused_forms():
        check_form_refused(fn, args, hf.__file__)
