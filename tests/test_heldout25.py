"""Held-out corpus #25 (tests/heldout25_funcs.py: NumPy as other projects' test suites exercise
it -- autograd's test_numpy / test_systematic one-liners over many NumPy functions and
argument forms, scipy.special, JAX's autodiff-test style with tuple and dict outputs, closures,
nested helpers and while loops -- and the forms earlier sessions left refused). Its findings,
fixed in both modes:
  * x[np.nonzero(m)] with m shorter than x (NumPy's tuple index reads positions within
    bounds) crashed compiled code with the boolean-mask IndexError while eager mode gave
    NumPy's value: the mask is now `rt.nonzero_within(m, x)`, the mask of x's leading axes at
    m's nonzero positions (a primitive of no derivative; NumPy's IndexError only where a
    position is out of bounds) (`nonzero_index`);
  * `p[f"W{i}"]` in `for i in range(2)` (a constant range, also of global integers and
    `+ - * //` of them) and `{f"c{k}": v for k in range(3)}` were refused as f-strings: the
    loop written out once per value and the f-strings of constants folded to their strings
    (`fstring_keys`; corpus 23's `fstring_key_names` is a case now);
  * functools.reduce(f, preds, 0.0) with preds a comprehension of a length known in the
    source (over a display or a constant range; also through a name assigned once and only
    indexed, iterated, measured or reduced) was a type-change refusal: its first combination
    is made before the loop, as for a display (`call_forms`; corpus 24's
    `reduce_ensemble_average` is a case now);
  * np.concatenate(seq, axis=None) was refused: the concatenation of the ravelled items
    (`call_forms`).
Triage (python backend, compiled and eager against central differences), 46 gradient cases
first written: on main 38 ok / 7 refused (np.repeat with per-row counts, concatenate
axis=None, a helper's dict result, np.squeeze without axis=, f-string keys, reduce over a
comprehension, a write through a view made in a branch) / 0 wrong / 1 crash (the nonzero
index of a shorter mask, compiled only); the 14 Hessians first listed all ok, both Jacobians
ok. After: every gradient case ok (the 4 still refused moved to `refused_forms`), the 17
Hessians ok. Each gradient against central finite differences (and autograd where it runs
the function), both modes, the arguments unchanged; Hessians against central differences of
the gradient; two cases compiled by Numba (the nonzero mask's runtime function, the
unrolled f-string loop), the rest as generated Python."""
import functools

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import heldout25_funcs as hf
from .harness import check_form_accepted, corpus_tests

NUMBA = {"nonzero_shorter_mask", "fstring_layer_keys"}
# autograd cannot run these (scipy.special, np.linalg.norm orders, einsum forms, dict
# parameters, ufunc methods ...), or differs by convention: ties of np.maximum split evenly
# (clip_and_ties), np.prod's gradient at zeros (autograd divides by the entries)
NO_AUTOGRAD = {"einsum_variants", "norm_ord_axis", "cumprod_diff", "roll_tile_repeat",
               "joins_with_axis", "sort_order_stats", "special_logsumexp_forms",
               "special_gamma_family", "dirichlet_logpdf", "beta_mean_entropy",
               "probit_erf_loss", "dict_comprehension_params", "grad_of_polynomial_coeffs",
               "ufunc_methods", "abs_sign_power", "dot_vdot_inner_matmul", "fstring_layer_keys",
               "clip_and_ties", "prod_with_zeros_axes", "concat_flat_stack",
               "fstring_keys_global_range"}


globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD, at_least=45))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_nonzero_position_outside_raises_numpy_index_error(mode):
    """A nonzero of m past x's end: NumPy's IndexError in both modes, never another gather."""
    x, m = np.array([0.3, -0.7]), np.array([1.0, 0.0, 2.0])
    with pytest.raises(IndexError):
        hf.nonzero_shorter_mask(x, m)
    g = jitad.differentiable(hf.nonzero_shorter_mask, backend="python") \
        if mode == "compiled" else hf.nonzero_shorter_mask
    with pytest.raises(IndexError):
        jitad.grad(g, mode=mode)(x, m)
    # zeros past the end select nothing there, as NumPy's tuple index
    got = jitad.grad(g, mode=mode)(x, np.array([1.0, 0.0, 0.0]))
    assert np.allclose(got, [2 * x[0], 0.0])


def _reduce_over_argument_list(w, X, scales):
    return np.sum(functools.reduce(lambda a, p: a + p, [X @ (w * s) for s in scales], 0.0))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_reduce_over_a_list_of_unknown_length_still_names_the_start(mode):
    g = jitad.differentiable(_reduce_over_argument_list, backend="python") \
        if mode == "compiled" else _reduce_over_argument_list
    with pytest.raises(JitadError, match="its start value"):
        jitad.grad(g, mode=mode)(np.ones(2), np.ones((3, 2)), [1.0, 2.0])


_CASES = {fn.__name__: (fn, args, wrt) for fn, args, wrt in hf.cases()}


@pytest.mark.parametrize("name", ["nonzero_shorter_mask", "nonzero_named_short",
                                  "reduce_over_comprehension", "concat_flat_stack",
                                  "fstring_coefficients"])
def test_new_forms_forward_mode(name):
    """The forms this corpus added, through jvp in both modes against the gradient."""
    check_form_accepted(*_CASES[name])
