"""Held-out corpus #24 (tests/heldout24_funcs.py: everyday models in new areas -- a beam FEM
energy, a CTC forward recursion, a Bayesian evidence, a Cox likelihood, IRT, Bradley-Terry, a
Hawkes process, pharmacokinetics, ranking, word2vec, matrix completion with a nuclear norm, a
spectrally normalized layer, masked attention, Heston Monte Carlo, an MDN -- and the forms
earlier sessions left refused). Its findings, fixed in both modes:
  * the Hessian of a matrix norm by singular values (np.linalg.norm(A, 2), -2, 'nuc') was
    refused (`rt.svd_mix` / `rt.svd_ties` had no rules): svd_mix is a primitive whose rules are
    `rt.svd_mix_tangent` (self-adjoint; exact at tied singular values; a zero singular value
    of a low-rank product U V^T taken as staying zero), svd_ties one never active
    (matrix_completion, spectral_norm_layer, svd_polar; tests/test_second_reach.py too);
  * functools.reduce(f, [a, b, c], 0.0) with f's results arrays was a type-change refusal
    (the accumulator a number, then an array): with a start value and a display, the first
    combination is made before the loop (`call_forms`); over a comprehension it stays
    refused, the message naming the start value;
  * `[neg] * n`, `[-1e30] * n`, `[-math.inf] * n` (a name, a negated constant, an attribute)
    were refused as repeated lists: a comprehension of the same item, as `[0.0] * n` was
    (`list_edits.repeated_displays`).
  * x[np.nonzero(m)] / x[np.where(m)] (also through a name, `idx = np.nonzero(w)`,
    `X[idx]`, `idx[0]` read too) were refused as a tuple index: the mask index x[m != 0]
    NumPy defines them as (`jitad/nonzero_index.py`; corpus 23's two refusals are cases now).
  * np.logaddexp.accumulate(x, axis=) had no rule: the primitive `logcumsumexp` (any rank,
    axis 0 by default), its adjoint and tangent by recursions whose factors are at most 1
    (a Cox partial likelihood; corpus 23's refusal is a case now); its second derivatives
    stay refused at the line (`rt.logcumsumexp_tangent` has no rules).
  * zip(*rows) of a list of tuple displays was refused as a list of tuples: the tuples
    Python's zip yields, `((rows[0][0], rows[1][0], ...), ...)` (`list_edits.display_stars`;
    `a, b = zip(*rows)` one tuple per name); corpora 22 and 23's refusals are cases now.
Triage (python backend, compiled and eager against central differences), 32 gradient cases
first written: on main 30 ok / 2 refused (functools.reduce from 0.0, a CTC recursion) /
0 wrong / 0 crash; second order (Hessian and hvp against central differences of the gradient)
of the 12 first listed: 7 ok, 4 refused (two matrix norms, the reduce, the CTC recursion), the
Hawkes model's tuple parameter outside what harness.fd_hessian perturbs (its Hessian is right
by differences of the value; replaced in HESSIANS, as the reduce's list argument was).
The 8 forms written to be refused: 4 of them (x[np.where(m)], zip(*rows),
np.logaddexp.accumulate twice) are gradient cases now.
After: every gradient case ok (39 with the seven added), the 11 Hessians ok; still refused (3
forms, `refused_forms`): np.squeeze without axis=, f-string dict keys, functools.reduce from
a number over a comprehension. Gradient cases since lead24: a nested function's list through
a name (`ts = terms(x); sum(ts)`: `normalize.lists.nested_list_makers`) and the CTC
recursion as first written, a list written by index then rebound to the next row in a loop
(`list_edits.written_before_rebound`).
Each gradient against central finite differences (and autograd where it runs the function),
both modes, the arguments unchanged; Hessians against central differences of the gradient;
five cases compiled by Numba (one per mechanism: the reduce, the repeated name, the nonzero
index, logaddexp.accumulate, a matrix norm's Hessian), the rest as generated Python."""
import functools

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import heldout24_funcs as hf
from .harness import check_hessian, corpus_tests

NUMBA = {"reduce_vector_from_zero", "repeated_name_item", "nonzero_rows_and_entries",
         "cox_partial_likelihood"}
# autograd cannot run these (dict or tuple parameters, math.* of traced values, scipy's
# logsumexp with keepdims, np.where of a traced value, list items written, autograd's
# np.logaddexp has no .accumulate)
NO_AUTOGRAD = {"arrhenius_fit", "ctc_forward", "ctc_forward_appends", "hawkes_loglik",
               "hmm_forward_scaled", "stochastic_vol_filter", "mdn_loss", "listnet_loss", "masked_attention",
               "spectral_norm_layer", "contrastive_infonce", "reduce_vector_from_zero",
               "params_dict_tuple_loop", "running_logsumexp", "cox_partial_likelihood"}


globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD, at_least=45))


def _nuclear_and_spectral(A):
    return np.linalg.norm(A, "nuc") + 0.5 * np.linalg.norm(A, 2) ** 2


def test_matrix_norm_hessian_compiled_with_numba():
    """`rt.svd_mix_tangent` compiled by Numba: the Hessian of the matrix norms against central
    differences of eager mode's gradient and against eager mode's Hessian."""
    A = np.random.default_rng(24).normal(size=(4, 3))
    check_hessian(_nuclear_and_spectral, (A,), (0,), backend="numba")


def _reduce_over_comprehension(w, X, scales):
    preds = [X @ (w * s) for s in scales]       # (a list argument: its length is not known)
    return np.sum(functools.reduce(lambda a, p: a + p, preds, 0.0))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_reduce_from_a_number_over_a_comprehension_names_the_start(mode):
    g = jitad.differentiable(_reduce_over_comprehension, backend="python") \
        if mode == "compiled" else _reduce_over_comprehension
    with pytest.raises(JitadError, match="its start value"):
        jitad.grad(g, mode=mode)(np.ones(2), np.ones((3, 2)), [1.0, 2.0])

