"""Lists the function builds, boolean masks and writes through index arrays (issue 12), in
both modes against central finite differences; the compiled path ran; the arguments
unchanged; misuses refused at the user's line.

Numba compiles the cases in `NUMBA` (one per list mechanism: a list tape of arrays popped by
the adjoint, a list of tuples kept as a list per position, lists passed between helpers, boolean
masks, index arrays with masks and slices); the other cases run the same generated code on the
python backend (what they test is the front end's lists and indexing, not Numba's typing of
them). ``JITAD_LISTS_FULL=1`` compiles every case with Numba."""
import os

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import lists_funcs as lf
from .harness import assert_grads_close, autograd_grad, check_both_modes

RNG = np.random.default_rng(121)
FULL = os.environ.get("JITAD_LISTS_FULL", "") not in ("", "0")
NUMBA = {"rnn_states", "layered_states", "lists_between_helpers", "masks",
         "index_arrays_masks_and_slices"}


def _backend(fn):
    return "numba" if FULL or fn.__name__ in NUMBA else "python"


def _r(*shape):
    return RNG.normal(size=shape)


CASES = [
    (lf.rnn_states, (_r(3), 0.5 * _r(3, 3), _r(3, 2), _r(4, 2)), (0, 1, 2)),
    (lf.per_sample_losses, (_r(3), _r(5, 3), _r(5)), (0,)),
    (lf.comprehensions, (_r(3), _r(6, 3)), (0, 1)),
    (lf.walk_a_list, (_r(3), 0.5 * _r(3, 3)), (0, 1)),
    (lf.lists_made_in_loops, (_r(3), _r(3, 3)), (0, 1)),
    (lf.helper_builds_a_list, (_r(3), 0.8), (0, 1)),
    (lf.appends_in_branches_and_while, (0.3 * _r(3), 6), (0,)),
    (lf.masks, (_r(6), _r(4, 3)), (0, 1)),
    (lf.index_writes, (_r(6), _r(6, 3), np.array([0, 2, 2]), np.array([1, 0, 0]),
                       np.array([1, 4, 1])), (0, 1)),
    (lf.masks_orders_and_options, (_r(3), np.array([1.0, np.nan, 3.0, 0.5]), _r(3)), (0,)),
    (lf.masks_orders_and_options, (_r(3), np.array([1.0, np.nan, 3.0, 0.5]), _r(3), _r(2)), (0, 3)),
    (lf.nested_ode, (np.array([0.5, 0.2]), np.array([0.9, 0.1, 0.0])), (0, 1)),
    (lf.layered_states, (_r(3), 0.5 * _r(3, 3), _r(3, 3)), (0, 1, 2)),
    (lf.rebound_lists, (_r(3), 0.5 * _r(3, 3), _r(3, 3)), (0, 1, 2)),
    (lf.split_lists, (_r(8), _r(2, 4), 3), (0, 1)),
    (lf.robust_scale, (_r(2), _r(7, 2), np.array([0.3, np.nan, -1.2, 2.0, 0.1, -0.4, 1.1])),
     (0, 1)),
    (lf.lists_between_helpers, (_r(3), 0.5 * _r(3, 3), _r(4, 2, 2), _r(4), np.array([-1, 0, 1, 0])),
     (0, 1, 2, 3)),
    (lf.lists_returned_with_values, (_r(3),), (0,)),
]

# W[negatives] (rows repeated, one counted from the end), masks with other indices, slices
INDEXING = (lf.index_arrays_masks_and_slices,
            (_r(6, 4), _r(6), np.array([[0, 5], [2, 2], [-1, 3]]),
             np.array([True, False, True, True, False, True]), np.array([0, 3, 1, 1, 2, 3]),
             np.array([False, True, True, False]), 2), (0, 1))
CASES.append(INDEXING)


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_lists_and_indexing_in_both_modes(fn, args, wrt):
    check_both_modes(fn, args, wrt, backend=_backend(fn))


def test_index_arrays_masks_and_slices_match_autograd_and_forward_mode():
    """The reads of `INDEXING` (index matrices, masks with other indices, slice objects):
    the compiled gradient equals autograd's (np.add.at adjoints), and the compiled jvp (and
    the eager one) equals the gradient's dot product with the tangent."""
    fn, args, wrt = INDEXING
    grads = jitad.grad(fn, wrt=wrt)(*args)
    assert_grads_close(tuple(grads), autograd_grad(fn, args, wrt), rtol=1e-9, atol=1e-12,
                       label="compiled vs autograd")
    tans = (_r(6, 4), _r(6))
    expected = sum(float(np.sum(g * t)) for g, t in zip(grads, tans))
    jv = jitad.jvp(fn, wrt=wrt)
    _, yd = jv(*args, tangents=tans)
    assert jv.specialize(*args).compiled_ran
    _, yde = jitad.jvp(fn, wrt=wrt, mode="eager")(*args, tangents=tans)
    assert np.isclose(yd, expected, rtol=1e-9) and np.isclose(yde, expected, rtol=1e-9)
    src = jitad.source(fn, "adjoint", args=args, wrt=wrt)
    assert "rt.scatter_rows(d_W, neg, " in src and "rt.mask_index(keep, " in src


def _rows_kept(W, keep):
    return np.sum(W[keep, :] ** 2)


def test_an_index_mask_of_the_wrong_length_is_an_index_error():
    """A mask among other indices must match its axis, as NumPy requires (a shorter one would
    otherwise select fewer rows silently)."""
    W, keep = _r(4, 3), np.array([True, False, True])
    with pytest.raises(IndexError):
        _rows_kept(W, keep)
    for mode in ("compiled", "eager"):
        with pytest.raises(IndexError):
            jitad.grad(_rows_kept, mode=mode)(W, keep)


def test_the_adjoint_pops_the_list_it_grew():
    src = jitad.source(lf.rnn_states, "adjoint", args=CASES[0][1])
    assert "hs.tape_push(h)" in src and "d_hs.tape_pop()" in src and "rt.stack_list(hs)" in src


@pytest.mark.parametrize("name", ["layered_states", "rebound_lists", "split_lists"])
def test_rebound_lists_tuples_and_splits_agree_with_autograd(name):
    fn, args, wrt = next(c for c in CASES if c[0].__name__ == name)
    d = fn if _backend(fn) == "numba" else jitad.differentiable(fn, backend="python")
    jitad_grads = jitad.value_and_grad(d, wrt=wrt)(*args)[1]
    assert_grads_close(tuple(jitad_grads), autograd_grad(fn, args, wrt), rtol=1e-9, atol=1e-12,
                       label=f"{fn.__name__}: compiled vs autograd")


def test_a_list_of_tuples_is_a_list_per_position():
    args = next(c for c in CASES if c[0] is lf.layered_states)[1]
    src = jitad.source(lf.layered_states, "adjoint", args=args)
    # (c, assigned again in the loop, is the variable c_2 from there: a web of its own)
    assert "state_0 = new_state_0" in src and "new_state_1.append(c_2)" in src


def _helper(a):
    return a


def _append_to(hs, v):
    hs.append(v)
    return v


def _alias(hs):
    u = hs
    return u[0]


def helper_appends(w):
    hs = [w]
    v = _append_to(hs, 2.0 * w)
    return np.sum(np.stack(hs)) + np.sum(v)


def helper_aliases(w):
    hs = [w]
    return np.sum(_alias(hs))


def repeat(w):
    hs = [w]
    return np.sum(hs * 2)


def to_helper(w):
    hs = [w]
    return np.sum(_helper(hs))


def write(w):
    hs = [w, w]
    for h in hs:            # Python's loop would see the write (hs[i] = v elsewhere is fine)
        hs[1] = 2.0 * h
    return np.sum(hs[0])


def grow_while_iterating(w):
    hs = [w]
    for h in hs:
        hs.append(h)
    return np.sum(hs[0])


def mixed(w):
    hs = [np.sum(w)]
    hs.append(1)
    return hs[0]


def sliced(w):
    hs = [w, w]
    return np.sum(hs[::2][0])      # (hs[1:] is a list: a step other than -1 is refused)


def never_appended(w):
    hs = []
    return np.sum(np.stack(hs)) + np.sum(w)


def rebound(w):
    hs = [w]
    for k in range(2):
        hs = w          # a list in one place and an array in another (np.array(hs) once, at
    return np.sum(hs)   # the top level after the list is complete, is fine)


def nested_as_value(w):
    def g(v):
        return v * 2.0
    return np.sum(_helper(g))


def alias_grown(w):
    hs = [w]
    u = hs
    u.append(2.0 * w)
    return np.sum(np.stack(hs))


def alias_in_branch_then_grown(w):
    # u takes hs's list under one branch, and a later branch of a later iteration grows hs
    # (so u): still two names of one list on that path
    hs = [w]
    u = [w]
    for i in range(3):
        if i == 1:
            u = hs
        if i == 2:
            hs.append(w * 2.0)
    return np.sum(np.stack(u))


def window_copied_in_a_branch(x):
    """Two lists replaced by copies under an `if` in a loop (each copy's own name made again
    before any read in the next iteration; the pattern of a jvp of `window.pop(0)`): was
    refused as two names of one list."""
    w = []
    d = []
    out = 0.0
    for v in x:
        w.append(v * v)
        d.append(v)
        if len(w) > 2:
            w2 = []
            d2 = []
            for k in range(1, len(w)):
                w2.append(w[k])
                d2.append(d[k])
            d = d2
            w = w2
        out += sum(w) * sum(d)
    return out


def test_list_replaced_by_a_copy_in_a_branch():
    check_both_modes(window_copied_in_a_branch, (_r(6),), (0,), backend="python")


def alias_read_after_a_loop_that_may_not_run(w):
    # gs is given a new list in the while loop before hs takes it, but the loop may not run:
    # the read after it may be of hs's list
    gs = [w]
    hs = [w]
    for i in range(2):
        k = 0
        while k < i:
            k += 1
            gs = [w, 2.0 * w]
            hs = gs
        hs.append(w)
    return np.sum(np.stack(gs))


def tuples_stacked(w):
    ps = [(w, 2.0 * w)]
    return np.sum(np.stack(ps))


def tuples_mixed(w):
    ps = [(w, w)]
    ps.append((w, w, w))
    return np.sum(ps[0][0])


# (tests/test_parity.py runs these in both modes: eager mode refuses them with the same error)
MISUSES = [
    (alias_grown, "u = hs", "list alias"), (alias_in_branch_then_grown, "u = hs", "list alias"),
    (tuples_stacked, "np.stack(ps)", "list of tuples"),
    (tuples_mixed, "ps.append((w, w, w))", "list of tuples"),
    (nested_as_value, "np.sum(_helper(g))", "nested function value"),
    (repeat, "np.sum(hs * 2)", "list value"), (to_helper, "return a", "list value"),
    (helper_appends, "hs.append(v)", ".append()"), (helper_aliases, "u = hs", "list alias"),
    (write, "hs[1] = 2.0 * h", "list write"), (grow_while_iterating, "for h in hs:", "for loop over a list"),
    (mixed, "hs.append(1)", "type change"), (sliced, "hs[::2][0]", "list index"),
    (never_appended, "hs = []", "empty list"), (rebound, "hs = w", "list variable"),
    (alias_read_after_a_loop_that_may_not_run, "hs = gs", "list alias")]


@pytest.mark.parametrize("fn,line,construct", MISUSES)
def test_list_misuses_are_refused_at_the_line(fn, line, construct):
    with pytest.raises(JitadError) as e:
        jitad.grad(fn)(np.ones(3))
    assert line in str(e.value) and e.value.construct == construct


def test_lists_between_helpers_second_order_and_forward_mode():
    """The Hessian (forward over the generated reverse, which returns lists from helpers)
    against central differences of the gradient, symmetric; jvp in both modes against the
    gradient's dot product with the tangent."""
    fn, args, _ = next(c for c in CASES if c[0] is lf.lists_between_helpers)
    H = jitad.hessian(fn, wrt=0)(*args)
    ref = jitad.differentiable(fn, backend="python")   # the references: no more Numba compiles
    grad = jitad.grad(ref, wrt=0)
    h = 1e-5
    H_fd = np.stack([(grad(args[0] + h * e, *args[1:]) - grad(args[0] - h * e, *args[1:]))
                     / (2 * h) for e in np.eye(args[0].size)])
    assert np.allclose(H, H_fd, rtol=1e-6, atol=1e-7) and np.allclose(H, H.T, atol=1e-12)
    v = np.ones_like(args[1])
    g_W = jitad.grad(ref, wrt=1)(*args)
    for mode in ("compiled", "eager"):
        _, y_dot = jitad.jvp(fn, wrt=1, mode=mode)(*args, tangents=v)
        assert np.isclose(y_dot, np.sum(g_W * v), rtol=1e-10)
