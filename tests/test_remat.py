"""Rematerialization (`Analysis.remat`): an array the adjoint reads that is a `cheap` primitive
(+, -, *, a transpose, a row read) of values unchanged for the call -- parameters, arrays
never written into, the loop's index, other such values -- is computed again at the start of
its block's adjoint instead of being pushed on the tape (GMM's `xc = x - means[k]`). Where
an operand is written into later (the classic silently wrong recomputation) it is kept on the
tape as before. Views of an array filled by first writes earlier in the same trip (LSTM's
`gates[0:b]`) and rows of an array reassigned only outside their block (LSTM's `s[i]`) are
computed again too; a base written after the view -- later in the trip, in a later trip, after
the loop -- keeps the view on the tape. The generated source shows which, and the gradients
match central differences (python backend; Numba once each, where the recomputed name is
assigned in two loops and for the views).
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


def gated(x, M, q):
    """LSTM's gates: an array a map loop fills in each trip (its only writes, first writes,
    come before its views), read through views: the views are computed again."""
    total = 0.0
    n = x.shape[1]
    for k in range(M.shape[0]):
        g = np.concatenate((x[k], M[k])) * np.concatenate((q[k], q[k])) + 1.0
        a = g[0:n]
        b = g[n:]
        total += np.sum(np.sin(a) * np.cos(b))
    return total


def state_rows(x, M, q):
    """LSTM's s[i]: rows of an array the outer loop reassigns after the inner loop (never in
    the rows' block): the adjoint has restored it when it reaches the inner loop."""
    s = x * 1.0
    total = 0.0
    for t in range(2):
        for i in range(M.shape[0]):
            r = s[i]
            total += np.sum(np.sin(r) * q[i])
        s = np.tanh(s * 0.5 + total)
    return total + np.sum(s)


def written_same_trip(x, M, q):
    """The base written after its view, in the same trip: the view stays on the tape."""
    total = 0.0
    for k in range(M.shape[0]):
        g = np.exp(x[k] * q[k]) + M[k]
        a = g[0:2]
        total += np.sum(np.sin(a))
        g[2] = 0.1 * total
        total += np.sum(np.sin(g))
    return total


def written_next_trip(x, M, q):
    """The base made before the loop, written in each trip before the view: a later trip's
    write changes what an earlier trip's view read. The view stays on the tape."""
    g = np.zeros(3)
    total = 0.0
    for k in range(M.shape[0]):
        g[k] = np.sum(x[k] * q[k])
        a = g[0:2]
        total += np.sum(np.sin(a) * M[k, 0])
    return total


def written_after_loop(x, M, q):
    """The last trip's base written after the loop: the view stays on the tape (g, read
    after the loop, has a value before it too -- two assignments; a write after the loop
    through another name for a trip's g is refused by the write rules)."""
    total = 0.0
    for k in range(M.shape[0]):
        g = np.exp(x[k] * q[k]) + M[k]
        a = g[0:2]
        total += np.sum(np.sin(a))
    g[1] = np.cos(total)
    return total + np.sum(g * g)


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


def test_views_of_a_filled_array_recomputed():
    src = _check(gated)
    assert len(_lines(src, "a = g[0:n]")) == 2, src
    assert len(_lines(src, "b = g[n:]")) == 2, src
    assert "append(a)" not in src and "append(b)" not in src, src


def test_rows_of_a_reassigned_state_recomputed():
    src = _check(state_rows)
    assert len(_lines(src, "r = s[i]")) == 2, src
    assert "append(r)" not in src, src


def test_base_written_after_the_view_keeps_it():
    for fn in (written_same_trip, written_next_trip, written_after_loop):
        src = _check(fn)
        assert "append(a)" in src and len(_lines(src, "a = g[0:2]")) == 1, (fn.__name__, src)


def test_views_numba_and_jacobian():
    _check(gated, backend="numba")
    rows = jitad.differentiable(lambda x, M, q: np.array([gated(x, M, q), state_rows(x, M, q)]),
                                backend="python")
    J = jitad.jacrev(rows, wrt=1)(*ARGS)
    ref = np.array([central_fd(f, list(ARGS), (1,))[0].ravel() for f in (gated, state_rows)])
    assert np.allclose(np.asarray(J).reshape(ref.shape), ref, rtol=1e-6, atol=1e-8)
