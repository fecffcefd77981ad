"""Writes into another name for an array: `u = v`, and `u, t = st` of a tuple local (which
`tuple_values` makes `u = st_0`), and `u = np.float64(v)` of a float array (NumPy gives
back v itself). Such a write is accepted when every value the other name
can hold is an array the function created and no alias of it (v, st, a view of either) is
read after the write; it is refused at the user's line, in both modes, where one is. Accepted
forms are checked against central finite differences, eager mode and forward mode
(`harness.check_form_accepted`); a few also by their Hessian-vector product.
"""
import inspect

import numpy as np
import pytest

import jitad

from .harness import check_form_accepted, check_form_refused

FILE = inspect.getsourcefile(lambda: None)


# -- accepted ----------------------------------------------------------------------------------
def unpack_then_write(x, w):
    st = (x * w, 1.0)
    u, t = st
    u[0] = w
    return np.sum(u * x) + t


def copy_then_write(x, w):
    v = x * w
    u = v
    u[0] = w
    return np.sum(u * x)


def copy_of_a_copy(x, w):
    v = x * w
    a = v
    b = a
    b[0] = w * w
    return np.sum(b * x)


def copy_in_one_branch(x, w, n):
    v = x * w
    if n > 1:
        u = v
    else:
        u = x * 2.0
    u[0] = w
    return np.sum(u * x)


def source_read_before_the_write(x, w):
    # the adjoint of np.dot reads v, which the write through u changes: the write is undone
    # in the adjoint sweep (a silently wrong d/dx[1] when it was not)
    v = np.tanh(x * w)
    q = np.dot(v, x)
    u = v
    u[1] = w * q
    return np.sum(u) + q * q


def tuple_read_before_the_write(x, w):
    st = (np.tanh(x * w), w)
    q = np.dot(st[0], x)
    u, t = st
    u[1] = t * q
    u[2] = u[1] * q
    return np.sum(u * x) + q * q


def unpacked_before_a_loop(x, w):
    st = (x * w, w)
    u, t = st
    for i in range(x.shape[0]):
        u[i] = u[i] * t + x[i]
    return np.sum(u * u)


def unpacked_in_a_loop(x, w):
    acc = 0.0
    for k in range(3):
        st = (np.tanh(x * w + k), w)
        q = np.dot(st[0], x)
        u, t = st
        u[k] = t * q
        acc = acc + np.sum(u) * q
    return acc


def _unpack_write_helper(x, w):
    st = (x * w, w)
    u, t = st
    u[0] = t * t
    return u


def through_a_helper(x, w):
    r = _unpack_write_helper(x, w)
    return np.sum(r * r)


def _unpack_write_loop_helper(x, w):
    st = (np.tanh(x * w), w)
    q = np.sum(st[0] * st[0])
    u, t = st
    for i in range(2):
        u[i] = t * q * u[i]
    return u, q


def through_a_helper_in_a_loop(x, w):
    acc = 0.0
    for k in range(2):
        r, q = _unpack_write_loop_helper(x + k, w)
        acc = acc + np.sum(r * r) + q
    return acc


def _unpack_helper(x, w):
    st = (x * w, w)
    u, t = st
    return u * t


def inlined_helper_unpacking_a_tuple(x, w):
    # the inlined helper's local named 'st[0]' for messages (compiled mode assigned
    # `st[0] = ...`: a NameError)
    r = _unpack_helper(x, w)
    return np.sum(r * r)


def copy_then_update_in_place(x, w):
    v = x * w
    u = v
    u += x
    return np.sum(u * u)


def cast_of_a_new_array_then_write(x, w):
    v = np.tanh(x * w)
    u = np.float64(v)       # v itself (NumPy gives back an array of that dtype)
    u[1] = w * np.dot(v, x)
    return np.sum(u * x)


def copy_of_an_argument_then_write(x, w):
    u = np.array(x, dtype=float)    # np.array copies
    u[0] = w
    return np.sum(u * x)


def _same(a, k):
    return a


def conditional_helper_argument_then_write(x, w):
    v = x * w
    z = _same(x if w > 0.5 else v, 1)   # z may be x or v: x is no alias of v for it
    v[0] = w
    return np.sum(v * x) + np.sum(x) * w


def _reassigned_in_a_loop(u, a):
    for k in range(3):      # runs: the result is never the parameter itself
        u = np.tanh(u) * a
    return u


def _reassigned_from_a_view_in_a_loop(u, a):
    for k in range(2):
        v = u[1:]
        u = np.concatenate((v, v[:1])) * a
    return u


def helper_reassigning_its_parameter_then_write(x, w):
    y = _reassigned_in_a_loop(x, w)
    y[0] = w * y[1]
    z = _reassigned_from_a_view_in_a_loop(x, w)
    z[2] = w
    return np.sum(y * x) + np.sum(z * y)


def copy_of_a_view_then_write(x, w):
    # v[1:] of a new array v nothing else reads is the only name of v's buffer (was refused,
    # "'u' may alias another array", until a slice of a temporary counted as one)
    v = x * w
    r = v[1:]
    u = r
    u[0] = w
    return np.sum(u) * np.sum(u * x[1:])


def write_into_a_row_of_a_temporary(x, w):
    # np.take(..., 2, axis=0) of a new array is a row of it, a view nothing else names (as
    # (2 * S)[1] is): was refused, "'u' may alias another array" (fuzz22, seed 981251)
    S = np.outer(x, x)
    u = np.take(-S, 2, axis=0)
    u[2] += w * np.sum(x)
    v = (S * w)[:, 1]
    v[0] = np.sum(u)
    return np.sum(u * x) + np.sum(v * v)


def row_of_a_mapped_temporary_then_write(x, w):
    # the row of a new array nothing else reads, the only name of its buffer. Eager mode's
    # checks run before the maps pass, compiled mode's after it, where the exp is a loop
    # filling a new array (u_exp = empty(...); for ...: u_exp[i, j] = ...): that loop is the
    # array's definition, not a second reader (was refused in both: the modes disagreed)
    u = np.exp(np.outer(x, x) * w)[1]
    u[0] = w
    return np.sum(u ** 2)


def transpose_of_a_mapped_temporary_then_write(x, w):
    # the same for a transpose (np.tanh(...) a map, then .T its only reader)
    S = np.tanh(np.outer(x, x) * w + 0.5).T
    S[1, 2] = w * S[2, 1]
    return np.sum(S * S) + S[1, 2]


def write_into_a_reshape_of_a_temporary(x, w):
    # gradient accepted before; its Hessian differentiates the generated tangent function,
    # where the tangent of the tanh is d = np.zeros_like(t), filled by the map's loop, then
    # d_A = reshape(d, ...) is written: that loop, and zeros_like reading t's shape, were
    # readers of t and d, so the tangent's write was refused ("'d_A' may alias another
    # array", a name the user never wrote) while the gradient was right
    A = np.tanh(x * w).reshape(2, 2)
    A[0, 1] = w
    return np.sum(A * A)


def view_of_an_array_a_loop_filled(x, w):
    # the user's own filling loop (writes into u, an element read) and reads giving numbers
    # before the view are no other names of u's buffer (was refused: 'A' may alias another
    # array)
    u = np.zeros(4)
    for i in range(4):
        u[i] += np.tanh(x[i] * w)
        u[i] = u[i] * u[i]
    t = np.sum(u) + u[1]
    A = u.reshape(2, 2)
    A[1, 1] = w * t
    return np.sum(A * A)


def _returns_from_a_range_loop(u, a):
    # `return` (and `break`) in a `for` loop make it a while loop on flags; over range(3) its
    # first test surely holds, so every returned u is a new array (was refused: the flow
    # analysis could not tell the while loop runs, so the parameter itself reached the return)
    for i in range(3):
        u = np.tanh(u) * a
        if np.sum(u) > 0.05 * i:
            return u
        if u[0] > 2.0:
            break
    return u


def write_into_a_result_returned_from_a_range_loop(x, w):
    y = _returns_from_a_range_loop(x, w)
    y[0] = w * y[1]
    return np.sum(y * x) + np.sum(y * y)


ACCEPTED = [unpack_then_write, copy_then_write, copy_of_a_copy, copy_in_one_branch,
            source_read_before_the_write, tuple_read_before_the_write, unpacked_before_a_loop,
            unpacked_in_a_loop, through_a_helper, through_a_helper_in_a_loop,
            inlined_helper_unpacking_a_tuple, copy_then_update_in_place,
            cast_of_a_new_array_then_write, copy_of_an_argument_then_write,
            conditional_helper_argument_then_write, helper_reassigning_its_parameter_then_write,
            write_into_a_row_of_a_temporary, copy_of_a_view_then_write,
            row_of_a_mapped_temporary_then_write, transpose_of_a_mapped_temporary_then_write,
            write_into_a_result_returned_from_a_range_loop, write_into_a_reshape_of_a_temporary,
            view_of_an_array_a_loop_filled]
NUMBA = {"unpack_then_write", "source_read_before_the_write", "unpacked_in_a_loop",
         "through_a_helper_in_a_loop", "row_of_a_mapped_temporary_then_write"}
X = np.array([0.31, -0.72, 0.55, 1.03])


def _args(fn):
    return (X.copy(), 0.83) + ((2,) if "n" in inspect.signature(fn).parameters else ())


@pytest.mark.parametrize("fn", ACCEPTED, ids=lambda f: f.__name__)
def test_write_through_another_name_is_right(fn):
    check_form_accepted(fn, _args(fn), (0, 1), "numba" if fn.__name__ in NUMBA else "python")


@pytest.mark.parametrize("fn", [source_read_before_the_write, unpacked_in_a_loop,
                                through_a_helper, write_into_a_reshape_of_a_temporary,
                                view_of_an_array_a_loop_filled], ids=lambda f: f.__name__)
def test_hvp_of_a_write_through_another_name(fn):
    v = np.array([0.3, 0.1, -0.2, 0.5])
    x, w = _args(fn)
    hv = jitad.hvp(jitad.differentiable(fn, backend="python"))(x, w, v=v)
    grad = jitad.grad(jitad.differentiable(fn, backend="python"))
    eps = 1e-5
    fd = (grad(x + eps * v, w) - grad(x - eps * v, w)) / (2 * eps)
    assert np.allclose(hv, fd, rtol=1e-6, atol=1e-8), (hv, fd)


# -- refused: an alias is read after the write ------------------------------------------------
def unpack_write_then_read_the_tuple(x, w):
    st = (x * w, 1.0)
    u, t = st
    u[0] = w  # ERR: write through an alias
    a, b = st
    return np.sum(u) + np.sum(a) + b


def copy_write_then_read_the_source(x, w):
    v = x * w
    u = v
    u[0] = w  # ERR: write through an alias
    return np.sum(u * x) + np.sum(v)


def copy_write_then_read_a_view_of_the_source(x, w):
    v = x * w
    u = v
    u[0] = w  # ERR: write through an alias
    z = v[1:]
    return np.sum(z) + np.sum(u)


def copy_of_a_copy_then_read_the_middle(x, w):
    v = x * w
    a = v
    b = a
    b[0] = w * w  # ERR: write through an alias
    return np.sum(b * x) + np.sum(a)


def copy_in_a_branch_then_read_the_source(x, w):
    v = x * w
    if w > 0.5:
        u = v
    else:
        u = x * 2.0
    u[0] = w  # ERR: write through an alias
    return np.sum(u * x) + np.sum(v)


def unpacked_in_a_loop_from_one_tuple(x, w):
    # the next iteration's `u, t = st` reads st[0] after this one's write
    st = (x * w, w)
    acc = 0.0
    for i in range(x.shape[0]):
        u, t = st
        u[i] = t * x[i]  # ERR: write through an alias
        acc = acc + np.sum(u * u)
    return acc


def copy_update_in_place_then_read_the_source(x, w):
    v = x * w
    u = v
    u += x  # ERR: write through an alias
    return np.sum(u * u) + np.sum(v)


def copy_of_a_view_then_write_then_read_the_base(x, w):
    v = x * w
    r = v[1:]
    u = r
    u[0] = w  # ERR: may alias another array
    return np.sum(u) + np.sum(v)


def row_of_a_mapped_array_then_write_then_read_it(x, w):
    # S is read again after the write through its row: refused before the maps pass (eager
    # mode's checks) and after it (compiled mode's), where S is filled by a loop
    S = np.exp(np.outer(x, x) * w)
    u = S[1]
    u[0] = w  # ERR: may alias another array
    return np.sum(u ** 2) + np.sum(S)


def unpack_an_argument_then_write(p, w):
    u, t = p
    u[0] = w  # ERR: is an argument
    return np.sum(u) * t


def cast_of_an_argument_then_write(x, w):
    u = np.float64(x)       # x itself: the write would change the caller's array
    u[0] = w  # ERR: may alias another array
    return np.sum(u) + np.sum(x)


def asarray_of_an_argument_then_write(x, w):
    u = np.asarray(x, dtype=float)
    u[0] = w  # ERR: may alias another array
    return np.sum(u)


def cast_write_then_read_the_source(x, w):
    v = x * w
    u = np.float64(v)
    u[0] = w  # ERR: write through an alias
    return np.sum(u * x) + np.sum(v)


def copy_made_after_a_fresh_value(x, w):
    # u shares st[0] with v although v was given a new array after u was made: what matters
    # is that the copy v = a, not u's unpacking, comes before the update
    st = (np.tanh(x * w), w)
    u, t = st
    a, b = st
    v = np.tanh(x)
    for i in range(3):
        v = a
    v += x  # ERR: write through an alias
    return np.sum(u * u) + np.sum(v * v)


def conditional_helper_argument_write_then_read_it(x, w):
    v = x * w
    z = _same(x if w > 0.5 else v, 1)
    v[0] = w  # ERR: write through an alias
    return np.sum(v * x) + np.sum(z)


def _reassigned_in_a_loop_that_may_not_run(u, a, n):
    for k in range(n):      # n = 0 returns the parameter itself
        u = np.tanh(u) * a
    return u


def _viewed_in_a_loop(u, a):
    for k in range(2):
        u = u[1:]           # a view of the parameter, however many times
    return u


def _parameter_after_the_loop(u, a):
    v = u
    for k in range(3):
        v = np.tanh(v) * a
    v = u
    return v


def _returns_before_its_first_assignment(u, a):
    for i in range(3):
        if a > 0.5:
            return u        # the parameter itself, on the first iteration
        u = np.tanh(u) * a
    return u


def helper_result_returned_before_the_loop_assigns_it_then_write(x, w):
    y = _returns_before_its_first_assignment(x, w)
    y[0] = w  # ERR: write into an array not created here
    return np.sum(y * x)


def helper_result_may_be_its_parameter_then_write(x, w):
    y = _reassigned_in_a_loop_that_may_not_run(x, w, 2)
    y[0] = w  # ERR: write into an array not created here
    return np.sum(y * x)


def helper_result_is_a_view_of_its_parameter_then_write(x, w):
    y = _viewed_in_a_loop(x, w)
    y[0] = w  # ERR: write into an array not created here
    return np.sum(y * y)


def helper_result_is_its_parameter_again_then_write(x, w):
    y = _parameter_after_the_loop(x, w)
    y[0] = w  # ERR: write into an array not created here
    return np.sum(y * y)


def view_made_then_write_then_read_it(x, w):
    S = np.outer(x, x) * w
    v = S[1:].T
    S[1, 0] = w  # ERR: make a copy there (v = S[1:].T.copy())
    return np.sum(v)


def filled_array_viewed_then_write_then_read_it(x, w):
    u = np.zeros(4)
    for i in range(4):
        u[i] = np.tanh(x[i] * w)
    A = u.reshape(2, 2)
    A[0, 1] = w  # ERR: write into an array not created here
    return np.sum(A * A) + u[1]


def view_made_before_a_view_of_a_temporary_then_write(x, w):
    S = np.exp(np.outer(x, x) * w)
    r = S[0]
    A = S.T
    A[1, 0] = w  # ERR: write into an array not created here
    return np.sum(A * A) + np.sum(r)


def filled_array_held_by_a_list_viewed_then_write(x, w):
    u = np.zeros(4)
    for i in range(4):
        u[i] = np.tanh(x[i] * w)
    ls = []
    ls.append(u)
    A = u.reshape(2, 2)
    A[0, 1] = w  # ERR: write into an array not created here
    return np.sum(A * A) + np.sum(ls[0])


def temporary_held_by_a_tuple_viewed_then_write(x, w):
    S = np.exp(np.outer(x, x) * w)
    st = (S, w)
    A = S.T
    A[1, 0] = w  # ERR: write into an array not created here
    return np.sum(A * A) + np.sum(st[0])


_XW = (X.copy(), 0.83)
REFUSED = [(fn, _XW) for fn in (
    conditional_helper_argument_write_then_read_it,
    unpack_write_then_read_the_tuple, copy_write_then_read_the_source,
    copy_write_then_read_a_view_of_the_source, copy_of_a_copy_then_read_the_middle,
    copy_in_a_branch_then_read_the_source, unpacked_in_a_loop_from_one_tuple,
    copy_update_in_place_then_read_the_source, copy_of_a_view_then_write_then_read_the_base,
    row_of_a_mapped_array_then_write_then_read_it,
    cast_of_an_argument_then_write, asarray_of_an_argument_then_write,
    cast_write_then_read_the_source, copy_made_after_a_fresh_value,
    helper_result_may_be_its_parameter_then_write,
    helper_result_returned_before_the_loop_assigns_it_then_write,
    helper_result_is_a_view_of_its_parameter_then_write,
    helper_result_is_its_parameter_again_then_write, view_made_then_write_then_read_it,
    filled_array_viewed_then_write_then_read_it,
    view_made_before_a_view_of_a_temporary_then_write,
    filled_array_held_by_a_list_viewed_then_write, temporary_held_by_a_tuple_viewed_then_write)]
REFUSED.append((unpack_an_argument_then_write, ((X.copy(), 1.3), 0.83)))


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_write_seen_through_another_name_is_refused(fn, args):
    # (tests/test_parity.py also runs these: the same error, in every transformation)
    check_form_refused(fn, args, FILE)
