"""`alias.shared_safely`: an adjoint takes another name's array as its first contribution only
where nothing writes that array in place while both names may hold it.

Unit cases on small generated-code texts (the statement `d = rt.first_add(x, c)` shares c's
buffer): every way a shared buffer can be written after it is shared must be refused -- through
either name, through a view, through a name a tape restores it into, in the next trip of a loop
(the reverse of a loop runs its body again), by a runtime helper that writes its argument, by a
call of a function the analysis does not know, by leaving the function -- and the ways that do
not write it accepted. Then whole functions, their gradients against central finite
differences (the python backend, and Numba for one), with the sharing checked in the
generated code: an unsound alias is a silent wrong gradient, so the refusals are tested where
the gradient would be wrong if the analysis said yes.
"""
import ast
import re
import textwrap
import types

import numpy as np
import pytest

import jitad
from jitad import alias
from jitad.types import Ty

from .harness import assert_grads_close, central_fd

F2 = Ty("f8", 2)
F1 = Ty("f8", 1)
I = Ty("i8", 0)


def _verdict(src, types=None):
    """shared_safely for the (one) `d = rt.first_add(...)` statement of the function `src`."""
    fdef = ast.parse(textwrap.dedent(src)).body[0]
    at = next(s for s in ast.walk(fdef) if isinstance(s, ast.Assign)
              and isinstance(s.value, ast.Call) and ast.unparse(s.value.func) == "rt.first_add")
    shared = alias.holds(at.value.args[1], types)
    assert shared
    return alias.shared_safely(fdef, at, shared, types)


SAFE = {
    "read_after": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            s = np.sum(d * c)
            return s
    """,
    "source_rebound_then_written": """
        def f(x, g, n):
            s = 0.0
            for k in range(n):
                c = np.empty_like(x)
                for i in range(x.shape[0]):
                    c[i] = g[i] * k
                d = rt.first_add(x, c)
                s = s + np.sum(d)
            return s
    """,
    "element_read_is_a_number": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            e = d[0]
            e += 1.0
            return e
    """,
    "helper_writes_another_argument": """
        def f(x, g, acc):
            c = g * 2.0
            d = rt.first_add(x, c)
            w = np.zeros_like(x)
            rt.add_into(w, d)
            rt.accum1(w, c)
            return np.sum(w)
    """,
}

UNSAFE = {
    "written_through_the_target": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            d += g
            return np.sum(c)
    """,
    "written_through_the_source": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            c[0] = 1.0
            return np.sum(d)
    """,
    "written_through_a_view": """
        def f(x, g):
            c = g * 2.0
            v = c[1:]
            d = rt.first_add(x, c)
            v[0] = 3.0
            return np.sum(d)
    """,
    "written_through_a_transpose": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            t = d.T
            t += 1.0
            return np.sum(c)
    """,
    "written_by_a_helper": """
        def f(x, g, h):
            c = g * 2.0
            d = rt.first_add(x, c)
            rt.accum1(c, h)
            return np.sum(d)
    """,
    "written_by_an_unknown_call": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            helper_bwd(c)
            return np.sum(d)
    """,
    "restored_from_a_tape_then_written": """
        def f(x, g):
            tape = []
            c = g * 2.0
            tape.append(c)
            d = rt.first_add(x, c)
            c = np.zeros_like(g)
            e = tape.pop()
            e[0] = 5.0
            return np.sum(d)
    """,
    "a_tuple_element_written": """
        def f(x, g):
            c = g * 2.0
            p = (c, 1.0)
            d = rt.first_add(x, c)
            q = p[0]
            q[0] = 1.0
            return np.sum(d)
    """,
    "next_trip_of_the_loop": """
        def f(x, g, n):
            c = g * 2.0
            s = 0.0
            for k in range(n):
                c[0] = k * 1.0
                d = rt.first_add(x, c)
                s = s + np.sum(d)
            return s
    """,
    "next_trip_through_the_target": """
        def f(x, g, n):
            c = g * 2.0
            s = 0.0
            for k in range(n):
                if k > 0:
                    d += c
                else:
                    d = rt.first_add(x, c)
                s = s + np.sum(d)
            return s
    """,
    "after_the_loop": """
        def f(x, g, n):
            c = g * 2.0
            for k in range(n):
                d = rt.first_add(x, c)
            c += 1.0
            return np.sum(d)
    """,
    "returned": """
        def f(x, g):
            c = g * 2.0
            d = rt.first_add(x, c)
            return (np.sum(c), (d, c))
    """,
    "a_parameter": """
        def f(x, g):
            d = rt.first_add(x, g)
            return np.sum(d)
    """,
    "not_assigned_here": """
        def f(x):
            d = rt.first_add(x, glob)
            return np.sum(d)
    """,
    "a_list_element_written": """
        def f(x, g):
            c = g * 2.0
            hs = [c]
            d = rt.first_add(x, c)
            rt.list_accum(hs, g)
            return np.sum(d)
    """,
}


@pytest.mark.parametrize("key", sorted(SAFE))
def test_shared_safely(key):
    types = {"x": F1, "g": F1, "c": F1, "d": F1, "n": I, "k": I, "i": I}
    assert _verdict(SAFE[key], types)


@pytest.mark.parametrize("key", sorted(UNSAFE))
def test_shared_then_written_is_refused(key):
    types = {"x": F1, "g": F1, "c": F1, "d": F1, "n": I, "k": I, "v": F1}
    assert not _verdict(UNSAFE[key], types)


def test_runtime_writes_read_from_the_helpers():
    w = alias.runtime_writes()
    for name in ("accum1", "accum2", "add_into", "list_accum", "set_view", "add_outer",
                 "scatter_flat"):
        assert w[name] == (0,), name
    for name in ("matmat", "matvec", "sum0", "reshape_like", "expand", "extreme_adjoint",
                 "first_add", "first_accum1", "first_accum2", "reserve", "stack_list"):
        assert w[name] == (), name


# ---------------------------------------------------------------- whole functions
def gmm_term(D, L, X):
    """GMM's `Qx = Qdiags[k] * xc + xc @ Ls[k].T`, then a product: the two terms' adjoints
    both take d_Q (nothing writes it after)."""
    Q = D * X + X @ L.T
    Q2 = Q @ L
    return np.sum(Q2 * Q2) + np.sum(Q[0] * 3.0)


def both_added_later(D, L, X):
    """d_M1 and d_M2 could take d_Q, but each is then added to (M1, M2 are read earlier too):
    sharing both, each addition would reach the other's gradient. (Sharing one is right too
    -- d_Q is not read again -- but the analysis refuses any write after the share.)"""
    M1 = D * X
    M2 = X @ L.T
    r = np.sum(M1 * M1)
    p = np.sum(np.sin(M2))
    Q = M1 + M2
    Q2 = Q @ L
    return np.sum(Q2 * Q2) + r + p


def through_a_view(D, L, X):
    """M2's rows are read through a view: d_M2's buffer is written through d_v's addition."""
    M1 = D * X
    M2 = X @ L.T
    v = M2[1:]
    w = np.sum(v * v)
    Q = M1 + M2
    Q2 = Q @ L
    return np.sum(Q2 * Q2) + w


def carried_sum(D, L, X):
    """`acc = acc + M` in a loop: d_M may not take d_acc (carried to the earlier trips), as
    d_M is then added to in the same trip."""
    acc = X * 0.0
    s = 0.0
    for t in range(3):
        M = X @ L.T
        s = s + np.sum(np.sin(M))
        acc = acc + M
        X = np.tanh(X) + D
    return s + np.sum(acc * acc)


def loop_both_added(D, L, X):
    """both_added_later once per trip of a loop."""
    s = 0.0
    for t in range(3):
        M1 = D * X
        M2 = X @ L.T
        p = np.sum(np.sin(M2))
        Q = M1 + M2
        Q2 = Q @ L
        X = np.tanh(X) * 0.5 + 0.1
        s = s + np.sum(Q2 * Q2) + p
    return s


# function -> (sharings the analysis allows, more that an unsound "yes" would make)
FUNCS = {gmm_term: (2, 0), both_added_later: (0, 2), through_a_view: (1, 1),
         carried_sum: (1, 1), loop_both_added: (1, 1)}


def _args():
    rng = np.random.default_rng(1)
    return (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(4, 3)))


def _fresh(fn):
    """A new function object of fn's code: its own transformation, nothing remembered."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__)


def _grad_and_shares(fn, backend="python"):
    d = jitad.differentiable(_fresh(fn), backend=backend)
    args = _args()
    snap = [a.copy() for a in args]
    gf = jitad.grad(d, wrt=(0, 1, 2))
    g = gf(*args)
    for a, b in zip(args, snap):
        assert np.array_equal(a, b)              # the user's arrays are not written
    comp = gf.specialize(*args)                  # the generated gradient ran (Numba's code)
    assert comp.compiled_ran if backend == "numba" else not comp.recalled
    src = jitad.source(d, "adjoint", args=args, wrt=(0, 1, 2))
    # a share: an adjoint given another adjoint's array, `d_M1 = rt.first_accum2(M1, d_Q)`
    return g, len(re.findall(r"= rt\.first_\w+\(\w+, \w+\)", src))


@pytest.fixture
def no_recall(monkeypatch):
    monkeypatch.setenv("JITAD_NO_RECALL", "1")   # transform again: the analysis is what runs


@pytest.mark.parametrize("fn", list(FUNCS), ids=lambda f: f.__name__)
def test_shared_adjoints_are_right(fn, no_recall):
    g, shares = _grad_and_shares(fn)
    assert_grads_close(g, central_fd(fn, _args(), (0, 1, 2)), rtol=1e-6, atol=1e-8,
                       label=fn.__name__)
    assert shares == FUNCS[fn][0]


@pytest.mark.parametrize("fn", [f for f, (_, more) in FUNCS.items() if more],
                         ids=lambda f: f.__name__)
def test_an_unsound_share_would_be_wrong(fn, no_recall, monkeypatch):
    """The refusals matter: with the analysis saying yes to everything, these gradients are
    wrong -- so the test above would catch an unsound alias."""
    monkeypatch.setattr(alias, "shared_safely", lambda *a, **k: True)
    g, shares = _grad_and_shares(fn)
    assert shares == sum(FUNCS[fn])
    ref = central_fd(fn, _args(), (0, 1, 2))
    assert max(np.max(np.abs(a - b)) for a, b in zip(g, ref)) > 1e-2


def test_shared_adjoints_compiled(no_recall):
    """Numba: the overload gives back d_Q itself (same shape), and the gradient is right."""
    g, shares = _grad_and_shares(loop_both_added, backend="numba")
    assert shares == 1
    assert_grads_close(g, central_fd(loop_both_added, _args(), (0, 1, 2)), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- arrays made again each trip
def _again(src, types=None):
    """owned_again for the (one) `d = rt.zeros_into(d, x)` statement of the function `src`."""
    fdef = ast.parse(textwrap.dedent(src)).body[0]
    at = next(s for s in ast.walk(fdef) if isinstance(s, ast.Assign)
              and isinstance(s.value, ast.Call) and ast.unparse(s.value.func) == "rt.zeros_into")
    return alias.owned_again(fdef, at, types)


OWNED = {
    "read_and_added_elsewhere": """
        def f(x, n):
            acc = np.zeros_like(x)
            d = np.empty((0,), np.float64)
            for k in range(n):
                d = rt.zeros_into(d, x)
                d[0] += k * 1.0
                rt.add_into(acc, d)
                s = np.sum(d * x)
            return acc
    """,
    "other_name_rebound_before_the_next_trip": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            for k in range(n):
                d = rt.zeros_into(d, x)
                h = d
                h[1] = 2.0
                h = x * 2.0
            return np.sum(h)
    """,
    "returned_from_the_last_trip": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            for k in range(n):
                d = rt.zeros_into(d, x)
                d += x
            return d
    """,
}

NOT_OWNED = {
    "kept_by_a_carried_name": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            h = x * 1.0
            for k in range(n):
                s = np.sum(h)
                d = rt.zeros_into(d, x)
                d += h
                h = d
            return h
    """,
    "kept_on_a_tape": """
        def f(x, n):
            tape = []
            d = np.empty((0,), np.float64)
            for k in range(n):
                d = rt.zeros_into(d, x)
                tape.append(d)
            return tape.pop()
    """,
    "kept_by_a_view": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            v = x[1:]
            for k in range(n):
                s = np.sum(v)
                d = rt.zeros_into(d, x)
                v = d[1:]
            return s
    """,
    "shared_into_a_carried_adjoint": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            d_h = x * 1.0
            for k in range(n):
                d = rt.zeros_into(d, x)
                d[0] += np.sum(d_h)
                d_h = rt.first_add(x, d)
            return d_h
    """,
    "given_to_an_unknown_function": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            for k in range(n):
                d = rt.zeros_into(d, x)
                keep(d)
            return x
    """,
    "kept_in_a_list_element": """
        def f(x, n):
            d = np.empty((0,), np.float64)
            hs = [x, x]
            for k in range(n):
                d = rt.zeros_into(d, x)
                hs[k % 2] = d
            return hs[0]
    """,
}


@pytest.mark.parametrize("key", sorted(OWNED))
def test_owned_again(key):
    types = {"x": F1, "d": F1, "n": I, "k": I, "h": F1}
    assert alias_ok(OWNED[key], types)


@pytest.mark.parametrize("key", sorted(NOT_OWNED))
def test_kept_elsewhere_is_not_made_again(key):
    types = {"x": F1, "d": F1, "n": I, "k": I, "h": F1, "v": F1, "d_h": F1}
    assert not alias_ok(NOT_OWNED[key], types)


def alias_ok(src, types):
    return _again(src, types)


def recurrent(W, xs, w2):
    """A tanh recurrence: its reverse loop makes the adjoints of each step's temporaries."""
    h = np.zeros(W.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        a = W @ h
        h = np.tanh(a + xs[t])
        s = s + np.sum(h * w2)
    return s


def test_adjoints_made_again_in_place():
    rng = np.random.default_rng(3)
    args = (0.5 * rng.normal(size=(3, 3)), rng.normal(size=(5, 3)), rng.normal(size=3))
    for backend in ("python", "numba"):
        d = jitad.differentiable(_fresh(recurrent), backend=backend)
        gf = jitad.grad(d, wrt=(0, 2))
        g = gf(*args)
        assert backend == "python" or gf.specialize(*args).compiled_ran
        assert_grads_close(g, central_fd(recurrent, args, (0, 2)), rtol=1e-6, atol=1e-8)
    assert "_into(" in jitad.source(d, "adjoint", args=args, wrt=(0, 2))
