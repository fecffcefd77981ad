"""Held-out corpus #8's findings (tests/heldout8_funcs.py: functions written from the README
and docs alone), fixed in both modes: each reduced function's compiled gradient against
central finite differences and eager mode, the compiled path ran, the arguments unchanged;
and what jitad rightly refuses, refused at the user's line in both modes."""
import inspect
import math
import os

import numpy as np
import pytest

import jitad

from . import heldout8_funcs as hf
from .test_correctness import check

rng = np.random.default_rng(88)


# -- statements that mean simpler ones (jitad/desugar.py) ---------------------------------------
def chained_targets(x):
    # `a = b = v`: v evaluated once, each target from left to right (a tuple and a
    # subscript target too); a later write into `out` is not seen through another name
    px = py = th = 0.0
    out = np.zeros(3)
    out[0] = t = x * 2.0
    a = b = np.sin(x)
    p, q = r = (x, x * 3.0)
    for k in range(3):
        px += math.cos(th) * x
        py += math.sin(th)
        th += 0.3 * x
    return px * py + out[0] + t + a * b + p * q + r[1]


def for_else_with_breaks(x):
    # the else runs when the loop ends without its own break (an inner loop's break is not it)
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if x[j] > 2.0:
                break
            s += x[i] * x[j]
        else:
            s += 1.0 * x[i]
            continue
        s -= x[i] ** 2
        if s < -50.0:
            break
    else:
        return s * 2.0
    return s


def while_else_bounded(x):
    k = 0
    y = x
    while y < 10.0:
        y = y * 1.7 + 0.1
        k += 1
        if k > 3:
            break
    else:
        y = y + 100.0 * x
    return y


def nested_keyword_only(w):
    def f(v, *, k=2.0, m=0.5):
        return v ** k + m
    return f(w, m=1.5) + f(w)


# -- a parameter given None and assigned to: a default computed in the function ----------------
def weighted_with_default(x, w=None, scale=None):
    if w is None:
        w = np.ones(x.shape[0]) / x.shape[0]
    if scale is not None:
        x = x * scale
    return np.sum(w * x ** 2)


def default_computed_in_helpers(x):
    return weighted_with_default(x) + weighted_with_default(x, scale=2.0) \
        + weighted_with_default(x, w=x)


def none_default_read_maybe_none(x, w=None):
    if x[0] > 0:
        w = x * 2.0
    return np.sum(w * x)  # ERR: 'w' may be None here


# -- strings and None inside a structured argument: constants of the specialization ------------
def loss_by_config(z, y, cfg):
    if cfg["loss"] == "logistic":
        return np.mean(np.log1p(np.exp(-y * z)))
    return np.mean((z - y) ** 2)


def config_through_helper(w, X, y, cfg):
    mode = cfg["loss"]
    pen = cfg["l2"] * np.sum(w ** 2) if cfg["reg"] is not None else 0.0
    return loss_by_config(X @ w, y, cfg) + pen + (1.0 if mode == "sq" else 0.0)


def tagged_pair(p):
    (a, kind), b = p
    return a * b if kind == "mul" else a + b


# -- enumerate(X, start), min/max of a tuple, einsum(optimize=) --------------------------------------
def enumerate_from_one(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s += i * v
    for k, v in enumerate(x[::-1], 2):
        s += math.sin(k * v)
    return s


def enumerate_start_read_once(x):
    k = 2
    s = 0.0
    for i, v in enumerate(x, k):     # the start is read once: k's changes do not move i
        k = k + 5
        s += i * v
    else:
        s += k
    return s


def enumerate_start_over_a_list(ws, x):
    s = 0.0
    for k, w in enumerate(ws, start=1):
        s += k * np.sum(w * x)
    return s


def min_max_of_tuples(x):
    return min((x[0], x[2])) + max([x[1], 0.2, x[0]]) + max((x[0] * x[1], x[2]))


def einsum_optimized(X, Y):
    return np.einsum("ij,jk,ik->", X, Y, X, optimize=True) + np.einsum("ij->", X, optimize="greedy")


# -- a write whose value is the array written, or a view of it (NumPy reads it whole first) ---------
def permute_in_place(x):
    a = x.copy()
    a[np.array([2, 0, 1])] = a
    return np.sum(a * np.arange(1.0, 4.0))


def scatter_reversed_view(x):
    a = x.copy()
    a[np.array([2, 0, 1])] = a[::-1]
    b = a[:2]
    a[np.array([1, 2])] = b
    return np.sum(a * np.arange(1.0, 4.0))


def mask_and_pairs_from_views(X):
    A = X.copy()
    A[np.array([0, 1, 2]), np.array([2, 1, 0])] = A[0]
    A[np.array([1, 0])] = A[:2]
    v = A[:, 0].copy()
    v[v > 0.0] = v[::-1][v > 0.0]
    return np.sum(A * np.arange(9.0).reshape(3, 3)) + np.sum(v * np.arange(1.0, 4.0))


# -- tuple assignment with subscript targets ---------------------------------------------------------
def swap_entries(x):
    a = x.copy()
    a[0], a[2] = a[2], a[0] * a[1]
    i = 0
    i, a[i] = 2, x[0] * 3.0          # i first: a[2] is written
    return np.sum(a * np.arange(1.0, 4.0)) + i


def pair_into_entries(x):
    a = np.zeros(2)
    a[0], a[1] = _pair(x)
    return np.sum(a ** 2)


def _pair(x):
    return x[0] * x[1], np.sin(x[2])


def swap_rows_through_views(X):
    # NumPy: A[1] is written from a view of row 0 after row 0 was overwritten (both rows end
    # up as the old row 1): a write seen through an alias, refused
    A = X.copy()
    A[0], A[1] = A[1], A[0]  # ERR: would also change 'A[0]'
    return np.sum(A * np.arange(9.0).reshape(3, 3))


# -- np.r_[...] and np.c_[...] of arrays and numbers ---------------------------------------------------
def r_and_c(x):
    a = np.sum(np.r_[x, 1.0, x[:2]] ** 2) + np.sum(np.r_[0.0, x] * np.arange(4.0))
    return a + np.sum(np.c_[x, x ** 2] ** 2) + np.sum(np.c_[np.ones((3, 2)), x] @ np.ones(3))


def r_of_a_range(x):
    return np.sum(np.r_[0:3] * x)  # ERR: np.r_[...] takes arrays and numbers here


# -- builtin any/all -------------------------------------------------------------------------------------
def any_all_guards(x):
    ok = all([abs(v) < 2.0 for v in x])
    if any(v > 1.0 for v in x):
        return np.sum(x) + 1.0
    return np.sum(x ** 3) if ok and not any(x > 5.0) else 0.0


# -- writes into a view of a new array nothing else reads -----------------------------------------------
def write_into_a_last_axis_take(M):
    S = np.take(M * 1.0, (3, 1, -4, 1), axis=-1)
    S[0, 0] += 1.0 + M[1, 1]
    T = (M * 2.0).T
    T[0, 0] = 5.0 * M[0, 1]
    R = (M[0] * 1.0).reshape(2, 2)
    for i in range(2):
        R[i, 0] = R[i, 1] * M[1, i]
    return np.sum(S ** 2) + np.sum(T ** 2) + np.sum(R ** 2)


def write_into_a_view_of_a_read_array(M):
    P = M * 2.0
    S = P.T
    S[0, 0] = 5.0  # ERR: 'S' may alias another array
    return np.sum(S ** 2) + np.sum(P)


def write_into_a_view_made_in_a_loop(M):
    # each iteration's view shows the previous one's write (NumPy): not one new array
    P = M * 2.0
    s = 0.0
    for i in range(2):
        S = P.T
        S[0, 0] = S[0, 0] * 3.0 + M[0, 1]  # ERR: 'S' may alias another array
        s += np.sum(S ** 2)
    return s


CASES = [
    (chained_targets, (0.7,), (0,)),
    (for_else_with_breaks, (np.array([0.5, 1.5, 2.5, -0.3]),), (0,)),
    (for_else_with_breaks, (np.array([0.5, 1.5, 0.25]),), (0,)),
    (while_else_bounded, (1.0,), (0,)),
    (while_else_bounded, (4.0,), (0,)),
    (nested_keyword_only, (1.3,), (0,)),
    (hf.diff_drive_odometry, (np.full(8, 1.2), np.linspace(-0.5, 0.5, 8)), (0, 1)),
    (hf.iir_biquad, (np.array([0.3, 0.2, 0.1]), np.array([-0.4, 0.1]), rng.normal(size=10)),
     (0, 1, 2)),
    (hf.for_else_search, (np.array([0.5, 0.3, 0.95, 0.2]),), (0,)),
    (hf.for_else_search, (np.array([0.5, 0.3, 0.85, 0.2]),), (0,)),
    (weighted_with_default, (rng.normal(size=4),), (0,)),
    (default_computed_in_helpers, (rng.normal(size=4),), (0,)),
    (hf.gmm_1d_em_step, (np.array([-1.0, 0.5, 2.0]), 1.5 * rng.normal(size=10)), (0, 1)),
    (config_through_helper, (rng.normal(size=3), rng.normal(size=(5, 3)),
                             np.sign(rng.normal(size=5)),
                             {"loss": "logistic", "l2": 0.1, "reg": None}), (0,)),
    (config_through_helper, (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5),
                             {"loss": "sq", "l2": 0.3, "reg": "l2"}), (0,)),
    (hf.config_dict_model, (rng.normal(size=3), rng.normal(size=(6, 3)),
                            np.sign(rng.normal(size=6)), {"loss": "logistic", "l2": 0.1}), (0, 1)),
    (enumerate_from_one, (rng.normal(size=4),), (0,)),
    (enumerate_start_over_a_list, ([rng.normal(size=2), rng.normal(size=2)], rng.normal(size=2)),
     (1,)),
    (enumerate_start_read_once, (rng.normal(size=3),), (0,)),
    (min_max_of_tuples, (rng.normal(size=3),), (0,)),
    (einsum_optimized, (rng.normal(size=(2, 3)), rng.normal(size=(3, 3))), (0, 1)),
    (permute_in_place, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (scatter_reversed_view, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (mask_and_pairs_from_views, (np.arange(9.0).reshape(3, 3) / 7 - 0.3,), (0,)),
    (swap_entries, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (pair_into_entries, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (r_and_c, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (any_all_guards, (np.array([0.5, -1.3, 0.9]),), (0,)),
    (any_all_guards, (np.array([0.5, 1.3, 0.9]),), (0,)),
    (any_all_guards, (np.array([0.5, -2.3, 0.9]),), (0,)),
    (write_into_a_last_axis_take, (np.arange(12.0).reshape(3, 4) / 5 - 0.4,), (0,)),
    (hf.nested_helpers_defaults, (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
]


# compiled by Numba, one per mechanism (the others run the same generated code as Python:
# seconds instead of minutes of compiles); JITAD_HELDOUT_FULL=1 compiles every case
NUMBA = {"for_else_with_breaks",        # for/else and while/else with breaks
         "iir_biquad",                  # a filter's recurrence written element by element
         "config_through_helper",       # a dict of strings and numbers through a helper
         "einsum_optimized",            # einsum with optimize=
         "mask_and_pairs_from_views",   # writes through views, masks
         "r_and_c"}                     # np.r_ / np.c_
FULL = os.environ.get("JITAD_HELDOUT_FULL", "") not in ("", "0")


@pytest.mark.parametrize("fn,args,wrt", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_both_modes_match_finite_differences(fn, args, wrt):
    check(fn, args, wrt=wrt,
          backend="numba" if FULL or fn.__name__ in NUMBA else "python")


@pytest.mark.parametrize("fn", [permute_in_place, scatter_reversed_view, mask_and_pairs_from_views])
def test_writes_of_the_array_written_in_forward_mode(fn):
    x = np.arange(9.0).reshape(3, 3) / 7 - 0.3 if fn is mask_and_pairs_from_views \
        else np.array([0.5, -1.3, 0.9])
    t = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    fd = (fn(x + 1e-6 * t) - fn(x - 1e-6 * t)) / 2e-6
    for mode in ("compiled", "eager"):
        y, yd = jitad.jvp(fn, mode=mode)(x, tangents=t)
        assert y == pytest.approx(fn(x), rel=1e-12) and yd == pytest.approx(fd, rel=1e-7)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_gradient_of_a_structure_holding_constants(mode):
    """wrt a structure with a string inside: the string's entry is None, the others' gradients
    in their places (compiled mode ran out of gradients: StopIteration; eager mode tried to make
    a Var of the string)."""
    assert jitad.grad(tagged_pair, mode=mode)(((2.0, "mul"), 3.0)) == ((3.0, None), 2.0)
    assert jitad.grad(tagged_pair, mode=mode)(((2.0, "add"), 3.0)) == ((1.0, None), 1.0)
    cfg = {"loss": "sq", "l2": 0.3, "reg": "l2"}
    X, y, w = rng.normal(size=(5, 3)), rng.normal(size=5), rng.normal(size=3)
    g = jitad.grad(config_through_helper, wrt=3, mode=mode)(w, X, y, cfg)
    assert g["loss"] is None and g["reg"] is None and g["l2"] == pytest.approx(np.sum(w ** 2))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("transform", [jitad.grad, jitad.value_and_grad, jitad.vjp, jitad.jvp,
                                       jitad.jacfwd, jitad.jacrev, jitad.hessian, jitad.hvp],
                         ids=lambda t: t.__name__)
def test_an_empty_wrt_is_an_error(transform, mode):
    """wrt=() differentiates nothing: a JitadError in every transformation (hessian and jacfwd
    crashed with a SyntaxError in the generated tangent code, grad returned ())."""
    with pytest.raises(jitad.JitadError, match=r"wrt=\(\) names no parameter of garch11_nll"):
        transform(hf.garch11_nll, wrt=(), mode=mode)((0.05, 0.1, 0.8), np.ones(4))


REFUSED = [
    (none_default_read_maybe_none, (np.ones(3),), r"'w' may be None here"),
    (swap_rows_through_views, (np.arange(9.0).reshape(3, 3),),
     r"this write into 'A' would also change 'A\[0\]', an alias of it made at line \d+; .* "
     r"make a copy there \(A\[0\]\.copy\(\)\)"),
    (r_of_a_range, (np.ones(3),), r"np.r_\[\.\.\.\] takes arrays and numbers here"),
    (write_into_a_view_of_a_read_array, (np.ones((2, 2)),), r"'S' may alias another array"),
    (write_into_a_view_made_in_a_loop, (np.ones((2, 2)),), r"'S' may alias another array"),
]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn,args,match", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_line_in_both_modes(fn, args, match, mode):
    with pytest.raises(jitad.JitadError, match=match) as e:
        jitad.grad(fn, mode=mode)(*args)
    path = inspect.getsourcefile(fn)
    lines = open(path).read().splitlines()
    start = next(i for i, text in enumerate(lines) if f"def {fn.__name__}(" in text)
    line = next(i for i in range(start, len(lines)) if "# ERR" in lines[i]) + 1
    assert e.value.loc.filename == path and e.value.loc.line == line
    assert f"in {fn.__name__}" in str(e.value) and "^" in str(e.value)


# -- second derivatives and forward mode over the corpus (the generated code run as Python; one
# case of each compiled by Numba) ------------------------------------------------------------------
HESSIAN_CASES = ["vasicek_bond", "sir_rk4_peak", "implied_vol_newton", "pk_euler_until_tol",
                 "while_break_accumulate", "mahalanobis_chol", "rodrigues_exp", "iir_biquad",
                 "diff_drive_odometry", "hmm_forward_log", "for_else_search", "config_dict_model"]
_CORPUS = {fn.__name__: (fn, args, wrt) for fn, args, wrt in hf.corpus()}


@pytest.mark.parametrize("name", HESSIAN_CASES)
def test_hessian_matches_finite_differences_of_grad(name):
    from .harness import check_hessian
    fn, args, wrt = _CORPUS[name]
    wrt = tuple(k for k in wrt if isinstance(args[k], (float, np.ndarray)))[:2]
    check_hessian(fn, args, wrt, backend="numba" if name == "implied_vol_newton" else "python")


@pytest.mark.parametrize("fn,args,wrt", hf.vector_cases(), ids=lambda c: getattr(c, "__name__", ""))
def test_jvp_jacfwd_jacrev_match_finite_differences(fn, args, wrt):
    backend = "numba" if fn is hf.iir_output else "python"
    f = jitad.differentiable(backend=backend)(fn)
    for k in wrt:
        x = np.asarray(args[k], dtype=float)
        ref = np.zeros(np.shape(fn(*args)) + x.shape)
        for idx in np.ndindex(x.shape):
            cols = []
            for s in (1, -1):
                a = list(args)
                xx = x.copy()
                xx[idx] += s * 1e-6
                a[k] = xx if x.ndim else float(xx)
                cols.append(np.asarray(fn(*a)))
            ref[(Ellipsis,) + idx] = (cols[0] - cols[1]) / 2e-6
        scale = 1e-8 + np.max(np.abs(ref))
        for J in (jitad.jacfwd(f, wrt=k)(*args), jitad.jacrev(f, wrt=k)(*args),
                  jitad.jacfwd(fn, wrt=k, mode="eager")(*args)):
            assert np.max(np.abs(J - ref)) / scale < 1e-6
        t = np.linspace(-1.0, 1.0, x.size).reshape(x.shape) if x.ndim else 0.7
        y, yd = jitad.jvp(f, wrt=k)(*args, tangents=t)
        ye, yde = jitad.jvp(fn, wrt=k, mode="eager")(*args, tangents=t)
        expect = np.tensordot(ref, t, axes=x.ndim) if x.ndim else ref * t
        assert np.allclose(yd, expect, rtol=1e-6, atol=1e-8 * scale)
        assert np.allclose(yde, yd, rtol=1e-9, atol=1e-12) and np.allclose(y, fn(*args), rtol=1e-12)


def activation_loss(w, x, act="tanh", scale=None):
    z = w * x
    if scale is not None:
        z = z * scale
    return np.sum(np.tanh(z) ** 2) if act == "tanh" else np.sum(z ** 3)


def power_by_name(a, mode="square"):
    return a ** 3 if mode == "cube" else a ** 2


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_second_derivatives_with_a_string_or_none_argument(mode):
    """hessian, hvp and grad(grad(f)) of a function with a string argument or a None default
    (`def loss(w, x, act="tanh", scale=None)`): the constants of the specialization, as in
    first derivatives (refused before: 'None or a string as an argument is not supported
    here yet')."""
    from .harness import fd_hessian
    w, x = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])
    # (the constants are the front end's: one specialization compiled by Numba, the others'
    # generated code run as Python -- each is a second-order compile of its own)
    for k, extra in enumerate((("tanh",), ("cube",), ("cube", 2.0), ())):
        args = (w, x) + extra
        f = jitad.differentiable(activation_loss, backend="numba" if k == 0 else "python")
        H = jitad.hessian(f, mode=mode)(*args)
        Hf = fd_hessian(jitad.grad(activation_loss, mode="eager"), args, (0,))[0][0]
        assert np.allclose(H, Hf, rtol=1e-5, atol=1e-6)
        assert np.allclose(jitad.hvp(f, mode=mode)(*args, v=np.ones(3)),
                           H @ np.ones(3), rtol=1e-9)
        assert np.allclose(jitad.jacfwd(jitad.grad(f), mode=mode)(*args), H,
                           rtol=1e-9)
    power = jitad.differentiable(power_by_name, backend="python")
    assert jitad.grad(jitad.grad(power), mode=mode)(0.7, "cube") == pytest.approx(4.2)
    assert jitad.grad(jitad.grad(power), mode=mode)(0.7) == pytest.approx(2.0)
    assert jitad.hessian(jitad.differentiable(weighted_with_default, backend="python"),
                         mode=mode)(np.ones(4)) == pytest.approx(0.5 * np.eye(4))
