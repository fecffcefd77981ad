"""`reverse.fitted`: an elementwise adjoint contribution un-broadcast onto its argument is a loop
adding into the adjoint where, at run time, every operand has exactly the cotangent's trailing
axes, and NumPy's un-broadcasting call otherwise -- one generated gradient, both paths: a
row vector `q` against a matrix `X` (the loop; `q` summed over the rows), and the same
specialization called with a length-1 `q` or a length-1 axis (the call). Gradients against
central finite differences (python backend; Numba once, where the run-time test is compiled).
"""
import numpy as np
import pytest

import jitad

from .harness import assert_grads_close, central_fd


def scaled_rows(Q, X, M):
    """GMM's `xc = x - means[k]; Qdiags[k] * xc + xc @ L.T` (the row reads and the product
    between the pointwise operations keep them from being one map): contributions
    un-broadcast onto Q[0], xc and M[1]."""
    xc = X - M[1]
    Z = Q[0] * xc + xc @ L3.T
    return np.sum(np.sin(Z) * Z)


def matrix_weights(W, X, v):
    """A matrix times a row: onto W the loop when W is X's shape, the call for a row or a
    column W; onto v a sum over the rows."""
    return np.sum(np.tanh(W * v + X @ L3))


WRT = {"scaled_rows": (0, 1, 2), "matrix_weights": (0, 1, 2)}
L3 = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.6, 0.2]])


def _vg(fn, backend):
    return jitad.value_and_grad(jitad.differentiable(fn, backend=backend),
                                wrt=WRT.get(fn.__name__, (0, 1)))


RNG = np.random.default_rng(7)
ROWS = {"row": (RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3))),
        "one": (RNG.normal(size=(2, 1)), RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3))),
        "one_mean": (RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=(2, 1)))}
MATS = {"full": (RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=3)),
        "row": (RNG.normal(size=(1, 3)), RNG.normal(size=(4, 3)), RNG.normal(size=3)),
        "column": (RNG.normal(size=(4, 1)), RNG.normal(size=(4, 3)), RNG.normal(size=3))}


def _check(vg, fn, args):
    snap = [a.copy() for a in args]
    v, g = vg(*args)
    assert np.isclose(v, fn(*args), rtol=1e-12)
    assert_grads_close(g, central_fd(fn, args, WRT[fn.__name__]), rtol=1e-6, atol=1e-8, label=fn.__name__)
    assert all(np.array_equal(a, b) for a, b in zip(args, snap))   # the user's arrays unchanged


def test_rows_both_paths():
    vg = _vg(scaled_rows, "python")
    for key, args in ROWS.items():
        _check(vg, scaled_rows, args)
    src = jitad.source(vg, "adjoint", args=ROWS["row"])
    assert src.count("rt.trailing_fit(") >= 3 and "rt.overlaps(" in src


def test_matrices_both_paths():
    vg = _vg(matrix_weights, "python")
    for key, args in MATS.items():
        _check(vg, matrix_weights, args)
    src = jitad.source(vg, "adjoint", args=MATS["full"])
    assert src.count("rt.trailing_fit(") >= 2 and "rt.overlaps(" in src


def test_nothing_to_save_stays_a_call():
    """Operands all of the adjoint's rank: `d = g * b` as its first contribution is no waste."""
    vg = _vg(lambda W, X: np.sum(np.tanh(W * X + X @ L3)), "python")
    src = jitad.source(vg, "adjoint", args=MATS["full"][:2])
    assert "rt.trailing_fit(" not in src


def test_compiled_both_paths():
    vg = _vg(scaled_rows, "numba")
    for key in ("row", "one"):
        _check(vg, scaled_rows, ROWS[key])
        assert vg.specialize(*ROWS[key]).compiled_ran
