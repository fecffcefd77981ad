"""Held-out corpus #21 (tests/heldout21_funcs.py: the surface of NumPy as people type it --
ndarray methods with axis= / keepdims= / ddof=, broadcasting of every rank pair, negative
steps and ellipses, masks, gathers, joins, ties -- the control flow AD tools' own tests
exercise, and everyday models). Its findings, fixed in both modes:
  * np.clip with crossed bounds (lo > hi somewhere: NumPy gives hi whatever x) sent the
    cotangent to lo -- a silent wrong gradient: the rule (`table.py`, eager `rules.py`) gives
    it to hi where max(x, lo) > hi; a bound of None is the other infinite, bounds included in
    both modes (compiled mode gave np.maximum's half at the bound);
  * `for ax in (None, 0, 1, (0, 1)): np.mean(X, axis=ax)` and `for kd in (True, False)`
    (test_systematic's loops over axes and flags) were refused: a loop over a tuple written
    out of constants unrolls with the item a constant (`structs.iterable_of`), and a constant
    argument may be a name standing for one (`library.static`);
  * np.diff(prepend=, append=), np.ptp(axis=, keepdims=), np.diagflat, np.logspace of a
    differentiated end, and x.take(...) were refused: `prelude` definitions, and
    `primitives.FUNCTION_METHODS` (a method that is the NumPy function of the array);
  * `labels = np.array([0, 1, 2])` read as `cuts[labels + 1]` was a float array, refused as
    an index: a name read only inside indices (arithmetic in them too) is an integer array
    (`anf.index_arrays`);
  * Hessians through ndtr / erf of an infinite argument (`ndtr(np.inf - eta)`, an ordinal
    model's outer cut point) were NaN in both modes (0 * inf): the partials read the
    Gaussian's exponent at x clamped to +-40, where it is 0 already (`table.py`);
  * `enumerate(x, start)` inside a comprehension, and `xs += [a, b]` / `xs.extend([a, b])` of
    a list were refused: `desugar` counts the index from 0 (reads are `fresh + start`) and
    grows the list by appends.
Triage (python backend, compiled and eager against central differences): on main 47 ok /
4 refused (stat_axis_keepdims_combos, prelude_surface, comprehension_enumerate_extend,
ordinal_logit_cuts) / 1 wrong in both modes (clip_crossed_bounds) / 0 crash, and the
Hessian of ordinal_probit NaN in both modes; after 52 ok. (max_argmax_ties at
first gathered x[argmax(x)] at a tie, a discontinuity where no gradient is right: the case
now keeps ties for max / min only.) Refused on purpose: `refused_forms`.
Each gradient against central finite differences (and autograd where it runs the function),
both modes, the arguments unchanged; Jacobians (jacfwd and jacrev, both modes) against central
differences, jvp against them; Hessians against central differences of the gradient, hvp
against them; six cases compiled by Numba (one per mechanism: the unrolled loop over axes,
clip's crossed bounds, the prelude forms, the comprehension / list forms, a loop CNN, an
event loop), the rest as generated Python."""
import numpy as np
import pytest

import jitad

from . import heldout21_funcs as hf
from .harness import check_form_accepted, corpus_tests

NUMBA = {"stat_axis_keepdims_combos", "clip_crossed_bounds", "prelude_surface",
         "comprehension_enumerate_extend", "small_cnn_loops", "hawkes_loglik"}
# autograd cannot run these (methods, indexing and functions it lacks: cumprod, x.trace,
# x.diagonal, slices with negative steps of a box, np.block / np.pad / np.tile, clip with
# array bounds, np.diff's prepend=, ptp, diagflat, logspace, take, abs of a box through @,
# scipy.special.ndtr and expit, assignment into an array, logsumexp's keepdims=, np.full), or differs
# from central differences (the builtin max of two tied boxes: autograd picks one)
NO_AUTOGRAD = {"method_prod_cumulative", "method_shapes", "method_dot_trace_diagonal",
               "slices_negative_ellipsis", "block_tile_pad", "clip_array_bounds",
               "clip_crossed_bounds", "prelude_surface", "max_argmax_ties",
               "operators_reflected", "ordinal_probit", "ordinal_logit_cuts", "small_cnn_loops",
               "hmm_forward_log", "label_smoothed_ce"}


globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD))


def _case(name):
    return next(c for c in hf.cases() if getattr(c[0], "__name__", "") == name)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux_and_wrt_by_name(mode):
    """value_and_grad with has_aux (the metrics as computed), and wrt by name on a model."""
    _, (w, X, y, c), _ = _case("tukey_biweight")
    yb = (y > 0).astype(float)
    f = jitad.differentiable(hf.loss_with_aux, backend="python") \
        if mode == "compiled" else hf.loss_with_aux
    (loss, aux), g = jitad.value_and_grad(f, has_aux=True, mode=mode)(w, X, yb)
    ref_loss, ref_aux = hf.loss_with_aux(w, X, yb)
    assert abs(loss - ref_loss) < 1e-12 and abs(aux["acc"] - ref_aux["acc"]) < 1e-12
    eps = 1e-6
    fd = np.array([(hf.loss_with_aux(w + eps * e, X, yb)[0]
                    - hf.loss_with_aux(w - eps * e, X, yb)[0]) / (2 * eps)
                   for e in np.eye(w.size)])
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-9)
    fn, args, _ = _case("hawkes_loglik")
    f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
    by_name = jitad.grad(f, wrt=("alpha", "beta"), mode=mode)(*args)
    by_index = jitad.grad(f, wrt=(1, 2), mode=mode)(*args)
    assert np.allclose(by_name, by_index, rtol=1e-12, atol=0)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_clip_crossed_and_one_bound(mode):
    """np.clip where lo > hi gives hi, so only hi gets the cotangent there; with one bound,
    x at the bound gets g (bounds included) in both modes."""
    def crossed(x, lo, hi):
        return np.sum(np.clip(x, lo, hi) * np.arange(1.0, 4.0))

    def one_bound(x):
        return np.sum(np.clip(x, None, 0.5)) + np.sum(x.clip(min=-0.5))

    x, lo, hi = np.array([0.3, 0.9, -2.0]), np.array([0.6, 1.5, -3.0]), np.array([0.5, 1.0, 0.0])
    f = jitad.differentiable(crossed, backend="python") if mode == "compiled" else crossed
    gx, glo, ghi = jitad.grad(f, wrt=(0, 1, 2), mode=mode)(x, lo, hi)
    # entry 0 crossed (0.6 > 0.5): hi; entry 1 crossed: hi; entry 2: x inside [-3, 0]
    assert np.allclose(gx, [0.0, 0.0, 3.0]) and np.allclose(glo, 0.0)
    assert np.allclose(ghi, [1.0, 2.0, 0.0])
    z = np.array([0.5, -0.5, 0.0])
    f = jitad.differentiable(one_bound, backend="python") if mode == "compiled" else one_bound
    assert np.allclose(jitad.grad(f, mode=mode)(z), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_hessian_through_an_infinite_cut_point(mode):
    """ndtr / erf of np.inf - eta (an ordinal model's last cut point): the gradient 0 there,
    and the Hessian too -- it was NaN (0 * inf in the derivative of the Gaussian's exponent)."""
    from scipy.special import erfc, ndtr

    def tails(eta):
        upper = np.concatenate([np.array([0.5]), [np.inf]])
        return (np.sum(np.log(ndtr(upper[np.array([1, 0])] - eta)))
                + np.sum(erfc(np.inf + eta)))

    eta = np.array([0.3, -0.2])
    f = jitad.differentiable(tails, backend="python") if mode == "compiled" else tails
    H = jitad.hessian(f, mode=mode)(eta)
    z = 0.5 - eta[1]
    pdf = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
    from scipy.special import ndtr as cdf
    # d2/deta2 log ndtr(z) = -(z pdf / cdf + (pdf / cdf) ** 2) for the second entry, 0 else
    expect = np.diag([0.0, -(z * pdf / cdf(z) + (pdf / cdf(z)) ** 2)])
    assert np.all(np.isfinite(H)) and np.allclose(H, expect, rtol=1e-10, atol=1e-12)


ACCEPTED = hf.now_accepted()


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[c[0].__name__ for c in ACCEPTED])
def test_now_accepted_forms(fn, args, wrt):
    check_form_accepted(fn, args, wrt)
