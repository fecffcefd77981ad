"""Rematerialization (`Analysis.remat`): an array the adjoint reads that is a `cheap` primitive
(+, -, *, a transpose, a row read) of values unchanged for the call -- parameters, arrays
never written into, the loop's index, other such values -- is computed again at the start of
its block's adjoint instead of being pushed on the tape (GMM's `xc = x - means[k]`). Where
an operand is written into later (the classic silently wrong recomputation) it is kept on the
tape as before. The generated source shows which, and the gradients match central
differences (python backend; Numba once, where the recomputed name is assigned in two loops).
"""
import numpy as np

import jitad

from .harness import assert_grads_close, central_fd


def centred(x, M, q):
    """GMM's inner loop: a row read, a difference broadcast along the rows, a product."""
    total = 0.0
    for k in range(M.shape[0]):
        xc = x - M[k]
        Z = q[k] * xc + xc @ L3.T
        total += np.sum(np.sin(Z) * xc)
    return total


def branchy(x, M, q):
    """The value computed again in a branch's adjoint, its operand a loop index."""
    total = 0.0
    for k in range(M.shape[0]):
        if q[k, 0] > 0.0:
            xc = x - M[k]
            total += np.sum(np.tanh(xc @ L3) * xc)
        else:
            total += np.sum(M[k] * M[k])
    return total


def written_later(x, M, q):
    """A's rows are written after B is made from A: B computed again in the adjoint would
    read the new rows (a wrong gradient); B stays on the tape."""
    A = x * 1.0
    total = 0.0
    for k in range(M.shape[0]):
        B = A * q[k]
        A[k] = np.cos(A[k]) * M[k]
        total += np.sum(np.sin(B) * B)
    return total + np.sum(A * A)


def carried(x, M, q):
    """An operand the loop reassigns (h): kept on the tape."""
    h = x[0] * 1.0
    total = 0.0
    for k in range(M.shape[0]):
        d = h - M[k]
        h = np.tanh(d * q[k])
        total += np.sum(d * d * h)
    return total


L3 = np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4], [0.0, 0.6, 0.2]])
RNG = np.random.default_rng(3)
ARGS = (RNG.normal(size=(4, 3)), RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)))
WRT = (0, 1, 2)


def _vg(fn, backend="python"):
    return jitad.value_and_grad(jitad.differentiable(fn, backend=backend), wrt=WRT)


def _check(fn, backend="python"):
    vg = _vg(fn, backend)
    args = [a.copy() for a in ARGS]
    v, g = vg(*args)
    assert np.isclose(v, fn(*ARGS), rtol=1e-12)
    assert_grads_close(g, central_fd(fn, list(ARGS), WRT), rtol=1e-6, atol=1e-8, label=fn.__name__)
    assert all(np.array_equal(a, b) for a, b in zip(args, ARGS))   # the user's arrays unchanged
    return jitad.source(vg, "adjoint", args=ARGS)


def _lines(src, text):
    return [ln.strip() for ln in src.splitlines() if ln.strip() == text]


def test_recomputed_not_taped():
    src = _check(centred)
    # the forward computes xc once, the adjoint loop again; neither row nor xc is pushed
    assert len(_lines(src, "xc = x - M_at")) == 2, src
    assert len(_lines(src, "M_at = M[k]")) == 2, src
    assert "append(xc)" not in src and "append(M_at)" not in src and "xc = tape" not in src


def test_recomputed_in_branch():
    src = _check(branchy)
    assert len(_lines(src, "xc = x - M_at")) == 2, src
    assert "append(xc)" not in src


def test_operand_written_later_is_kept():
    src = _check(written_later)
    assert "append(B)" in src and "B = tape" in src, src
    assert len(_lines(src, "B = A * q_at")) == 1, src


def test_reassigned_operand_is_kept():
    src = _check(carried)
    assert "append(d)" in src, src


def test_numba_and_jacobian():
    _check(centred, backend="numba")
    # the adjoint sweep run once per output row on one forward (jacrev, `keep`)
    rows = jitad.differentiable(lambda x, M, q: np.array([centred(x, M, q), branchy(x, M, q)]),
                                backend="python")
    J = jitad.jacrev(rows, wrt=1)(*ARGS)
    ref = np.array([central_fd(f, list(ARGS), (1,))[0].ravel() for f in (centred, branchy)])
    assert np.allclose(np.asarray(J).reshape(ref.shape), ref, rtol=1e-6, atol=1e-8)
