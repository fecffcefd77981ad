"""Held-out corpus #17 (tests/heldout17_funcs.py: the Python language in numerical code --
dataclasses, NamedTuples and a user class's methods, dicts of parameters built key by key,
dict comprehensions, `sorted(p)`, enumerate / zip / reversed / backwards ranges, builtins
and `math` on floats, nested helpers, default / keyword / `*args` parameters, asserts,
`np.where`, `+=` into slices, early returns in loops, shape slices at a bound computed from
the rank, logsumexp with `b=`, and More-Garbow-Hillstrom objectives written as loops). Its
findings, fixed in both modes:
  * `out = {}` filled by `out[name] = theta[k:k + n].reshape(w.shape)` in a loop over
    `params.items()` (or over a module tuple of names), `out[name] += ...`, `{k: v - lr * g[k]
    for k, v in p.items()}` and `for k in sorted(p)` were refused (`structs.local_dict`,
    `dict_write`; `lists.list_calls` leaves `sorted(p)` of a structure to `structs`);
  * `x.shape[k:]` of `k = x.ndim - 1`, of `len(x.shape) - 1` or of a helper's constant
    `axis + 1` was refused as a non-constant bound (`structs.static_of`, `note_static_int`);
  * `scipy.special.logsumexp(x, b=0.5)` (one number as b) and `logsumexp(x, axis=...,
    keepdims=..., b=w)` were refused (`library.weighted_logsumexp`; the whole-array
    primitive's adjoint in b is summed back onto a number);
  * sqrt / cbrt at 0 with a zero cotangent or tangent gave nan (0 * inf): the jvp of
    sum(sqrt(|x_i - x_j|)), Hessians reaching sqrt(0) by constant terms, np.where(d > 0,
    np.sqrt(np.maximum(d, 0)), 0) at d == 0 (`rt.strong_div`);
  * a nested helper's default reading the enclosing argument was an internal NameError;
    eager refused `math.fsum` of a generator compiled mode took; `p.get("W")` was refused;
What stays refused, at its line in both modes: a dataclass object made inside as a list's
element, a method of a module-level object, a key added to a local dict under a branch jitad
keeps, a key computed from a value, a shape slice at a run-time bound, `return_sign=`. (A
NamedTuple made inside, the walrus operator and `*args` helpers, refused here, are accepted
since corpus 18: tests/test_heldout18.py.)
Each case against central finite differences (and autograd where it runs the function), in
both modes, the arguments unchanged; two compiled by Numba (and one Hessian), the rest as
generated Python."""
import numpy as np
import pytest

import jitad

from . import heldout17_funcs as hf
from .harness import check_corpus_case, check_form_refused, check_grads_both_modes

CASES = hf.cases()
# Numba where it adds a mechanism: a dict built by keys, rt.unbroadcast of a number in the
# logsumexp_b adjoint (and rt.strong_div's loop in test_sqrt_cbrt_strong_zero_second_order)
NUMBA = {"unflatten_items_loop", "logsumexp_scalar_b_variable"}
# autograd has no in-place writes, no dict / NamedTuple parameters, no scipy logsumexp b=
NO_AUTOGRAD = {"namedtuple_affine_layers", "dict_comprehension_sgd", "sorted_keys_penalty",
               "l2_over_values", "dict_accumulate_by_key", "list_comp_of_layers",
               "keyword_only_helper", "slice_plus_equals", "logsumexp_scalar_b",
               "logsumexp_scalar_b_variable", "logsumexp_axis_keepdims_b",
               "mixture_loglik_lse", "dict_get_params", "fsum_of_generator"}


@pytest.mark.parametrize("fn,args,wrt", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_corpus_both_modes(fn, args, wrt):
    check_corpus_case(fn, args, wrt, NUMBA, NO_AUTOGRAD)


def test_corpus_is_large_enough():
    assert len({c[0] for c in CASES}) >= 35


REFUSED = hf.refused_forms()


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_forms(fn, args):
    check_form_refused(fn, args, hf.__file__)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_unflattened_dict_gradient_is_the_flat_gradient(mode):
    """The dict built key by key: the gradient wrt the flat vector is the per-key gradients
    of the structured loss, flattened in the dict's order."""
    theta, P, x = next(c[1] for c in CASES if c[0] is hf.unflatten_items_loop)

    def structured(W1, b1, W2):
        return np.sum(W2 @ np.tanh(W1 @ x + b1))
    f = jitad.differentiable(hf.unflatten_items_loop, backend="python") \
        if mode == "compiled" else hf.unflatten_items_loop
    g_flat = jitad.grad(f, mode=mode)(theta, P, x)
    s = jitad.differentiable(structured, backend="python") if mode == "compiled" else structured
    cuts = np.cumsum([0] + [w.size for w in P.values()])
    at = [theta[a:b].reshape(w.shape) for a, b, w in zip(cuts[:-1], cuts[1:], P.values())]
    parts = jitad.grad(s, wrt=(0, 1, 2), mode=mode)(*at)
    assert np.allclose(g_flat, np.concatenate([p.ravel() for p in parts]), rtol=1e-10)


def test_dict_key_written_again_is_not_an_alias():
    """h = out["W"] read before out["W"] is written again keeps the old value (a copy, not
    another name for the key's variable)."""
    def f(theta, p):
        out = {}
        for name, w in p.items():
            out[name] = theta[:w.size].reshape(w.shape)
        h = out["W"]
        out["W"] = out["W"] * 3.0
        return np.sum(h ** 2) + np.sum(out["W"])
    args = (np.array([0.3, -0.2, 0.5, 1.1]), {"W": np.ones((2, 2))})
    check_grads_both_modes(f, args, (0,))


def sqrt_pairs(x):
    return np.sum(np.sqrt(np.abs(x[:, None] - x[None, :])))


def cbrt_pairs_fourth(x):
    return np.sum(np.cbrt(x[:, None] - x[None, :]) ** 4)


def sqrt_masked_radius(x, y):
    """sqrt(x ** 2 * m + y) with entries of m and y zero, weighed by m: those terms are 0
    whatever x is (the sqrt(0) gets a zero cotangent and tangent). A sqrt(0) whose cotangent
    is not zero but whose input's partial is (`sqrt(x ** 2 * m + y) * x`) stays nan in
    reverse mode: mul's partial 0 times an infinite cotangent, left as it is."""
    m = np.array([1.0, 0.0, 1.0])
    return np.sum(np.sqrt(x ** 2 * m + y) * m * x)


def test_sqrt_cbrt_strong_zero_jvp():
    """The tangent of sqrt(|0|) (cbrt(0)) along a zero tangent is 0, not 0 * inf: both modes,
    against central differences."""
    x, v, h = np.array([0.3, -0.5, 1.1, 0.7]), np.array([0.2, -1.0, 0.4, 0.9]), 1e-6
    for fn in (sqrt_pairs, cbrt_pairs_fourth):
        fd = (fn(x + h * v) - fn(x - h * v)) / (2 * h)
        for mode in ("compiled", "eager"):
            f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
            yd = jitad.jvp(f, wrt=0, mode=mode)(x, tangents=v)[1]
            assert abs(yd - fd) < 1e-6 * abs(fd), (fn.__name__, mode, yd, fd)


def test_sqrt_cbrt_strong_zero_second_order():
    """Hessians through sqrt(0) and cbrt(0) reached by constant terms: finite, against finite
    differences of the gradient, eager against compiled, Numba for one."""
    from .harness import check_hessian
    x = np.array([0.3, -0.5, 1.1, 0.7])
    check_hessian(cbrt_pairs_fourth, (x,), (0,), backend="numba")
    args = (np.array([0.4, -0.8, 1.3]), np.array([0.5, 0.0, 0.2]))
    check_hessian(sqrt_masked_radius, args, (0,), backend="python")
    H = jitad.hessian(jitad.differentiable(sqrt_masked_radius, backend="python"))(*args)
    He = jitad.hessian(sqrt_masked_radius, mode="eager")(*args)
    assert np.all(np.isfinite(H)) and np.allclose(H, He, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_sqrt_under_where_at_zero(mode):
    """np.where(d > 0, np.sqrt(np.maximum(d, 0)), 0): where the branch is not taken its
    cotangent is 0, and so is the sqrt's contribution (was 0 * inf = nan at d == 0)."""
    def f(d):
        return np.sum(np.where(d > 0, np.sqrt(np.maximum(d, 0.0)), 0.0) * 2.0)
    d = np.array([0.5, -0.3, 0.0, 2.0])
    g = jitad.grad(jitad.differentiable(f, backend="python") if mode == "compiled" else f,
                   mode=mode)(d)
    assert np.allclose(g, [1.0 / np.sqrt(0.5), 0.0, 0.0, 1.0 / np.sqrt(2.0)], rtol=1e-12)
