"""Held-out corpus #12's findings (tests/heldout12_funcs.py), fixed in both modes:
  * `y = np.array(x)` of an array is a new array (NumPy copies it): writes into it
    (`y[1:3] *= 2.0`) are allowed, as after `x.copy()`; `np.asarray(x)` stays another name for
    x (NumPy does not copy), so a write through it stays refused;
  * `np.ediff1d(x)`, `np.ediff1d(x, to_end=v, to_begin=u)`: the differences of the flattened
    array (`jitad/prelude.py`);
  * `rows = [[... for j in ...] for i in ...]` read only by `np.array(rows)`: its rows are
    made arrays, as when the comprehension is given to np.array directly (a list read
    otherwise stays refused);
  * `idx = np.array([3, 0, 2])` read as an index through its entries too (`x[:, idx[2]]`,
    `x[idx[1:]]`) is the integer array NumPy makes;
  * mutual recursion (`even` calls `odd`, which calls `even`): typed once the caller still
    being inferred has a result type (it was "could not infer the type ... needs a base
    case", though both had one);
  * a matrix's `np.linalg.norm(A, ord)` for ord = 2, -2, 'nuc' (by singular values), 1, -1,
    inf, -inf (column / row sums of |A|), in reverse and forward mode (a matrix's ord=3 stays
    refused, as NumPy refuses it).
Each gradient against central finite differences, compiled (Numba for one of each mechanism,
the generated Python for the rest) and eager, the arguments unchanged; every public API form
on a few corpus functions; the whole corpus once through both modes."""
import numpy as np
import pytest

import jitad

from . import heldout12_funcs as hf
from .harness import (assert_grads_close, assert_unchanged, central_fd, check_form_accepted,
                      check_form_refused, check_grads_both_modes, snapshot)

rng = np.random.default_rng(1212)
nrm = rng.normal


def _py(fn):
    return jitad.differentiable(fn, backend="python")


# -- the fixed findings, one Numba compile each ----------------------------------------------------
FIXED = [
    (hf.slice_augmented, (nrm(size=5),), (0,)),
    (hf.ptp_and_ediff, (nrm(size=6),), (0,)),
    (hf.int_array_then_slice, (nrm(size=(4, 3)),), (0,)),
    (hf.mutual_recursion, (0.4, 5), (0,)),
    (hf.matrix_two_norm, (nrm(size=(3, 4)),), (0,)),
]


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("fn,args,wrt", FIXED, ids=[c[0].__name__ for c in FIXED])
def test_fixed_findings(fn, args, wrt, backend):
    check_form_accepted(fn, args, wrt, backend=backend)


def writes_through_asarray(x):
    y = np.asarray(x)
    y[0] = 1.0  # ERR: may alias another array
    return np.sum(y)


def array_of_a_number(s):
    a = np.array(s)             # a number stays a number (np.array(2.0) * 2.0 is 4.0)
    return a * 2.0 + a ** 2


def ediff1d_of_a_matrix(A):
    return np.sum(np.ediff1d(A.T) * np.arange(A.size - 1.0)) + np.sum(np.ediff1d(A) ** 2)


def index_array_entries(x):
    idx = np.array([2, 0, 1])
    return np.sum(x[idx[1:]] ** 2) + np.sum(x[:, idx[2]]) * x[idx[0], 1]


def index_array_used_as_numbers(x):
    w = np.array([2, 0, 1])     # read as numbers as well: a float array, as before
    return np.sum(x[0] * w) + w[1]


def _down(x, n):
    if n == 0:
        return x
    return _up(np.tanh(x), n - 1) * 0.5


def _up(x, n):
    return _down(x + 0.25, n - 1) + x ** 2     # no base case of its own: `_down` ends it


def mutual_recursion_arrays(x, n):
    return np.sum(_down(x, n))


def _first(x, n):
    return _second(x, n - 1) * 2.0


def _second(x, n):
    return _first(x, n - 1) + 1.0  # ERR: could not infer the type


def mutual_recursion_without_base_case(x):
    return _first(x, 3)


def matrix_norms(A):
    return (np.linalg.norm(A, 1) + 2.0 * np.linalg.norm(A, -1) + np.linalg.norm(A, np.inf) ** 2
            + 3.0 * np.linalg.norm(A, -np.inf) + np.linalg.norm(A, -2) * np.linalg.norm(A, "nuc"))


def matrix_norm_three(A):
    return np.linalg.norm(A, 3)  # ERR: norm(ord=3) is not supported


def ediff1d_ends_positional(x, s):
    return np.sum(np.ediff1d(x, s) ** 2) + np.sum(np.ediff1d(x, x[:2], to_begin=3.0 * s) ** 3)


def named_rows_of_a_comprehension(W):
    rows = [[W[i, j] * W[j, i] for j in range(W.shape[0])] for i in range(W.shape[0])]
    pairs = [[W[0, k], 2.0 * W[1, k]] for k in range(W.shape[1])]
    return np.sum(np.array(rows) ** 2) + np.sum(np.asarray(pairs) @ W[:2, :2])


def rows_read_as_a_list(W):
    rows = [[W[i, j] for j in range(2)] for i in range(2)]  # ERR: a comprehension is supported
    return np.sum(np.array(rows)) + len(rows[0])


ACCEPTED = [
    (ediff1d_ends_positional, (nrm(size=5), 0.7), (0, 1)),
    (named_rows_of_a_comprehension, (nrm(size=(3, 3)),), (0,)),
    (array_of_a_number, (1.5,), (0,)),
    (ediff1d_of_a_matrix, (nrm(size=(3, 4)),), (0,)),
    (index_array_entries, (nrm(size=(3, 2)),), (0,)),
    (index_array_used_as_numbers, (nrm(size=(2, 3)),), (0,)),
    (mutual_recursion_arrays, (nrm(size=3), 6), (0,)),
    (matrix_norms, (nrm(size=(4, 3)),), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[c[0].__name__ for c in ACCEPTED])
def test_accepted_forms(fn, args, wrt):
    check_form_accepted(fn, args, wrt, backend="python")


REFUSED = [(writes_through_asarray, (nrm(size=3),)), (matrix_norm_three, (nrm(size=(2, 3)),)),
           (rows_read_as_a_list, (nrm(size=(2, 2)),))]


@pytest.mark.parametrize("fn,args", REFUSED, ids=lambda c: getattr(c, "__name__", ""))
def test_refused_forms(fn, args):
    check_form_refused(fn, args, __file__)


def test_mutual_recursion_without_base_case_is_refused_at_its_line():
    from .harness import error_marker
    line, expected = error_marker(_second)
    texts = []
    for make in (lambda: jitad.grad(_py(mutual_recursion_without_base_case)),
                 lambda: jitad.grad(mutual_recursion_without_base_case, mode="eager")):
        with pytest.raises(jitad.JitadError) as info:
            make()(0.3)
        err = info.value
        assert expected in str(err) and err.loc.line == line and err.loc.filename == __file__
        texts.append(str(err))
    assert texts[0] == texts[1]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_matrix_norms_at_a_tie_split_evenly(mode):
    A = np.array([[1.0, -2.0, 0.5], [2.0, 1.0, 0.5]])       # columns 0 and 1 both sum to 3

    def col_norm(A):
        return np.linalg.norm(A, 1)
    f = _py(col_norm) if mode == "compiled" else col_norm
    g = jitad.grad(f, mode=mode)(A)
    assert np.allclose(g, [[0.5, -0.5, 0.0], [0.5, 0.5, 0.0]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_matrix_norm_hessian_by_sums(mode):
    A = nrm(size=(2, 3))

    def sq(A):
        return np.linalg.norm(A, np.inf) ** 2 + np.linalg.norm(A, 1)
    f = _py(sq) if mode == "compiled" else sq
    H = jitad.hessian(f, mode=mode)(A).reshape(6, 6)
    r = int(np.argmax(np.sum(np.abs(A), axis=1)))
    s = np.zeros((2, 3))
    s[r] = np.sign(A[r])
    assert np.allclose(H, 2.0 * np.outer(s.ravel(), s.ravel()), atol=1e-12)


# -- every public API form on corpus functions -----------------------------------------------------
X0, W0 = nrm(size=4), nrm(size=4)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_api_forms_on_the_corpus(mode):
    f = _py(hf.energy_pair) if mode == "compiled" else hf.energy_pair
    x, y = nrm(size=3), np.abs(nrm(size=3)) + 0.5
    snap = snapshot((x, y))
    fd = central_fd(hf.energy_pair, (x, y), (0, 1), eps=1e-5)
    gx = jitad.grad(f, mode=mode)(x, y)
    assert_grads_close((gx,), fd[:1], rtol=1e-6, atol=1e-8)
    gy = jitad.grad(f, wrt="y", mode=mode)(x, y)
    assert_grads_close((gy,), fd[1:], rtol=1e-6, atol=1e-8)
    v, (g0, g1) = jitad.value_and_grad(f, wrt=("x", 1), mode=mode)(x, y)
    assert abs(v - hf.energy_pair(x, y)) <= 1e-12 * (1 + abs(v))
    assert_grads_close((g0, g1), fd, rtol=1e-6, atol=1e-8)
    t = nrm(size=3)
    _, dv = jitad.jvp(f, wrt=0, mode=mode)(x, y, tangents=t)
    assert abs(dv - np.dot(fd[0], t)) <= 1e-6 * (1 + abs(dv))
    H = jitad.hessian(f, mode=mode)(x, y)
    Hfd = np.array([central_fd(lambda a: jitad.grad(hf.energy_pair, mode="eager")(a, y)[k],
                               (x,), (0,), eps=1e-5)[0] for k in range(3)])
    assert np.allclose(H, Hfd, rtol=1e-5, atol=1e-7)
    hv = jitad.hvp(f, mode=mode)(x, y, v=t)
    assert np.allclose(hv, H @ t, rtol=1e-9, atol=1e-12)
    assert_unchanged((x, y), snap, mode)

    g = _py(hf.vector_field) if mode == "compiled" else hf.vector_field
    y_, pull = jitad.vjp(g, wrt=(0, 1), mode=mode)(X0, W0)
    assert np.allclose(y_, hf.vector_field(X0, W0))
    ct = nrm(size=4)
    px, pw = pull(ct)
    fdv = central_fd(lambda a, b: np.dot(ct, hf.vector_field(a, b)), (X0, W0), (0, 1), eps=1e-5)
    assert_grads_close((px, pw), fdv, rtol=1e-6, atol=1e-8)
    Jf = jitad.jacfwd(g, mode=mode)(X0, W0)
    Jr = jitad.jacrev(g, wrt="x", mode=mode)(X0, W0)
    J = np.array([central_fd(lambda a: hf.vector_field(a, W0)[k], (X0,), (0,), eps=1e-5)[0]
                  for k in range(4)])
    assert np.allclose(Jf, J, rtol=1e-6, atol=1e-8) and np.allclose(Jr, Jf, rtol=1e-12, atol=1e-14)
    _, tan = jitad.jvp(g, wrt=1, mode=mode)(X0, W0, tangents=np.ones(4))
    assert np.allclose(tan, jitad.jacfwd(g, wrt=1, mode=mode)(X0, W0) @ np.ones(4))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux_on_the_corpus(mode):
    X = nrm(size=(6, 3))
    yv = (nrm(size=6) > 0) * 1.0
    w = nrm(size=3)
    f = _py(hf.loss_and_metrics) if mode == "compiled" else hf.loss_and_metrics
    (loss, aux), g = jitad.value_and_grad(f, has_aux=True, mode=mode)(w, X, yv)
    ref_loss, ref_aux = hf.loss_and_metrics(w, X, yv)
    assert abs(loss - ref_loss) <= 1e-12 and list(aux) == ["acc", "p"]
    assert np.allclose(aux["acc"], ref_aux["acc"]) and np.allclose(aux["p"], ref_aux["p"])
    fd = central_fd(lambda a: hf.loss_and_metrics(a, X, yv)[0], (w,), (0,), eps=1e-5)
    assert_grads_close((g,), fd, rtol=1e-6, atol=1e-8)
    g2, aux2 = jitad.grad(f, has_aux=True, mode=mode)(w, X, yv)
    assert np.allclose(g2, g) and np.allclose(aux2["p"], ref_aux["p"])


# -- the corpus, once through both modes -----------------------------------------------------------
CORPUS = hf.suites() + hf.models() + hf.more()
NUMBA = {"kalman_step", "nested_break_continue"}    # one Numba compile per new mechanism


@pytest.mark.parametrize("fn,args,wrt", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_corpus_both_modes(fn, args, wrt):
    check_grads_both_modes(fn, args, wrt, value_atol=1e-10,
                           backend="numba" if fn.__name__ in NUMBA else "python")


def test_refused_forms_of_the_corpus():
    for fn, args in hf.refused_forms():
        check_form_refused(fn, args, hf.__file__)
