"""Held-out corpus #16 (tests/heldout16_funcs.py: shapes as values in everyday models --
flattening and unflattening parameter vectors, batch reshapes, `np.zeros(x.shape)`
accumulators, broadcasting against `x.shape`, im2col, a scan whose state is shaped from
`(B,) + W.shape[1:]`, einsum with shapes). Its findings, fixed in both modes:
  * `shape = x.shape` kept as a value, `x.shape[1:]`, `(n,) + rest`, `for d in x.shape`,
    `x.shape == y.shape`, `tuple(x.shape)`, `(*x.shape, 3)`, `len(s)`, `s[k]` of a computed
    k, a helper returning a shape: refused in both modes before (`normalize.shape_values`);
  * a module-level shape constant (`x.reshape(SHAPES[0])`) was refused as a non-numeric global
    or a "tuple value";
  * `y[...] = v` reached the generated code as an integer index (an internal TypeError in
    compiled mode);
  * `x = x[None, :] if x.ndim == 1 else x` was refused as a rank change (the `if` statement
    form was decided per signature, the conditional expression was not).
What stays refused, at its line in both modes: a name that is a shape in one place and a
number in another, an array broadcast to a higher rank under an `if` on shapes (one variable,
one rank), pieces of different ranks appended to one list and a list of shapes (a list holds
values of one type), and arithmetic or reductions of a shape (`s * 2`, `np.sum(s)`:
tests/test_shapes.py).
Each case against central finite differences (and autograd where it runs the function), in
both modes, the arguments unchanged; three compiled by Numba, the rest as generated Python."""
import numpy as np
import pytest

import jitad

from . import heldout16_funcs as hf
from .harness import check_corpus_case, check_form_refused

CASES = hf.cases()
NUMBA = {"unflatten_mlp", "im2col_2d", "rnn_hidden_from_shape"}
# autograd has no in-place writes (np.zeros(...)[i] = ..., np.empty_like) nor dict/list params
NO_AUTOGRAD = {"flatten_dict_params", "flatten_list_params", "zeros_like_shape_accumulator",
               "unflatten_list_append", "unflatten_into_dict_display", "unflatten_into_dict_by_key",
               "empty_like_filled_rows", "broadcast_against_shape", "im2col_1d", "im2col_2d"}


@pytest.mark.parametrize("fn,args,wrt", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_corpus_both_modes(fn, args, wrt):
    check_corpus_case(fn, args, wrt, NUMBA, NO_AUTOGRAD)


def test_corpus_is_large_enough():
    assert len({c[0] for c in CASES}) >= 25


REFUSED = hf.refused_forms()


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_forms(fn, args):
    check_form_refused(fn, args, hf.__file__)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_unflattened_gradient_is_the_flat_gradient(mode):
    """The training idiom end to end: the gradient wrt the flat vector equals the per-array
    gradients flattened in the same order (jitad.grad of the structured loss)."""
    X, y = CASES[0][1][1], CASES[0][1][2]
    W1, b1, W2 = CASES[0][1][3:]
    theta = np.concatenate([W1.ravel(), b1.ravel(), W2.ravel()])

    def structured(W1, b1, W2):
        return np.mean((np.tanh(X @ W1 + b1) @ W2 - y) ** 2)
    f = jitad.differentiable(hf.unflatten_mlp, backend="python") if mode == "compiled" \
        else hf.unflatten_mlp
    g_flat = jitad.grad(f, mode=mode)(theta, X, y, W1, b1, W2)
    s = jitad.differentiable(structured, backend="python") if mode == "compiled" else structured
    parts = jitad.grad(s, wrt=(0, 1, 2), mode=mode)(W1, b1, W2)
    assert np.allclose(g_flat, np.concatenate([p.ravel() for p in parts]), rtol=1e-10)
