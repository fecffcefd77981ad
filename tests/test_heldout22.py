"""Held-out corpus #22 (tests/heldout22_funcs.py: ordinary Python / NumPy earlier sessions left
refused -- in-place array methods, tuples grown and made, lists edited in place, nonlocal,
NumPy leftovers -- and everyday models in new areas). Its findings, fixed in both modes:
  * y.sort(), y.sort(axis=1), y.fill(v), np.copyto(dst, src) and ufuncs / NumPy functions with
    out= were refused as calls for their side effects: they are the whole-array write
    `y[...] = ...` jitad already handles (`jitad/inplace.py`; eager `Var.sort`, np.copyto);
  * `t += (a,)`, `tuple(<generator>)`, `tuple(list_local)`, `first, *mid, last = [...]`,
    `xs.pop()` / `pop(0)` / `pop(i)`, `xs.insert(0, v)`, `xs.reverse()`, list slices,
    `names.index("b")` of a constant list, `zip(*rows)` of a list display, `for c in zip(...)`
    with one name, `sorted(xs, key=lambda ...)`, `xs.sort(key=...)` were refused: the list forms jitad builds
    (`jitad/list_edits.py`, `normalize.lists.keyed`);
  * a list copied by name (`u = hs`, also a comprehension assigned to a loop-carried list
    then appended to) crashed the adjoint sweep (IndexError: an append to u grew hs, whose
    zero adjoint is made from its length) -- the forward now makes a new list object where
    the copy is appended to after it (later in its block, or in the loop around it; else
    the generated code is as it was);
  * `nonlocal` in a nested function (a counter, an accumulator) was refused: the names are
    passed in and returned, assigned back at each call (`jitad/nonlocals.py`);
  * np.add/multiply/maximum/minimum.reduce and np.add/multiply.accumulate had no rule: they
    are np.sum / prod / max / min / cumsum / cumprod with axis 0 by default
    (`primitives.UFUNC_REDUCTIONS`); np.outer of matrices is NumPy's of the raveled operands
    (rank variants of `outer`); `A[np.ix_(r, c)]` the broadcast index it means
    (`jitad/ix_gathers.py`); np.linalg.cond(x) a `prelude` definition; np.piecewise with
    lambdas, functools.reduce and np.roll over several axes the statements they mean
    (`jitad/call_forms.py`); np.linalg.solve / inv / det of a stack of matrices (rank 3)
    were refused: rank variants `solve.3.3`, `inv.3`, `det.3`, one matrix at a time
    (`runtime.solve_stack` ...; their Hessians: tests/test_second_reach.py).
Triage (python backend, compiled and eager against central differences): on main 9 ok /
33 refused / 0 wrong / 0 crash of the 42 first written; after, 38 ok and 4 still refused
(zip(*rows) of a list of tuples, np.squeeze without axis=, the Elo model's list item write,
the Cox model's np.logaddexp.accumulate: now in `refused_forms`, the two models rewritten
with an array and np.add.accumulate; sorted_by_key rewritten off a list of tuples). The
corpus as it stands, 43 cases with moving_window_mean, momentum_out_in_loop and
list_sort_in_place added: 43 ok; since reach24 np.logaddexp.accumulate is the primitive
logcumsumexp and logaddexp_running a case, and zip(*rows) of tuples is read
(`list_edits.display_stars`): 45 ok.
Each gradient against central finite differences (and autograd where it runs the function),
both modes, the arguments unchanged; Jacobians against central differences, jvp against them;
Hessians against central differences of the gradient; six cases compiled by Numba (one per
mechanism: the in-place sort, the list edits in a loop, nonlocal, np.piecewise, np.outer of
matrices, the stacks of matrices), the rest as generated Python."""
import functools
import operator

import numpy as np
import pytest

import jitad

from . import heldout22_funcs as hf
from .harness import corpus_tests

# (moving_window_mean: a list rebuilt by `window.pop(0)` in a loop -- Numba could not type
# `window = []` past the name's other definitions; lists are made typed now)
NUMBA = {"trimmed_mean_sort", "ring_buffer_rnn", "closure_counter", "piecewise_potential",
         "outer_of_matrices", "batched_solve_physics", "moving_window_mean"}
# autograd cannot run these (in-place methods and out= on its boxes, np.copyto, np.roll with
# tuples, np.outer of matrices, ufunc methods, np.linalg.cond, np.piecewise, writes into
# arrays, scipy.special functions it lacks, np.logaddexp / logsumexp forms it does not box)
NO_AUTOGRAD = {"logaddexp_running", "trimmed_mean_sort", "sort_rows_inplace", "fill_then_accumulate", "ufunc_out_add",
               "ufunc_out_self", "copyto_buffer", "momentum_out_in_loop", "roll_two_axes",
               "outer_of_matrices", "ufunc_reduce_forms", "ufunc_accumulate", "condition_number",
               "piecewise_potential", "cox_partial_likelihood", "elo_sequential",
               "spring_chain_rk4", "mixture_density_net", "beta_binomial_nll", "info_nce",
               "plackett_luce", "tobit_regression"}


globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD))


def _fd(f, args, k, eps=1e-6):
    x = np.asarray(args[k], dtype=float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        hi, lo = list(args), list(args)
        hi[k], lo[k] = x + d, x - d
        g[i] = (f(*hi) - f(*lo)) / (2 * eps)
    return g


def _grad(f, mode, wrt=0):
    g = jitad.differentiable(f, backend="python") if mode == "compiled" else f
    return jitad.grad(g, wrt=wrt, mode=mode)


def _list_rebuilt_then_grown(x):
    a = [x[0], x[1]]
    for _ in range(2):
        a = [a[k] * 2.0 for k in range(len(a))]
        a.append(x[2] * a[0])
    return a[0] * a[1] + a[2] * a[0] + a[-1] * x[1]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_list_copied_by_name_then_appended(mode):
    """A comprehension assigned to a loop-carried list, then appended to: the adjoint sweep
    crashed (IndexError) -- the list it was made from grew with it."""
    x = np.array([0.3, -0.7, 1.1])
    assert np.allclose(_grad(_list_rebuilt_then_grown, mode)(x),
                       _fd(_list_rebuilt_then_grown, (x,), 0), atol=1e-7)


def _out_as_value(a, b):
    c = np.zeros_like(a)
    z = np.add(a, b, out=c)
    return np.sum(z * a) + np.sum(c ** 2)     # z is c: NumPy returns out


def _sort_argument(x):
    x.sort()
    return np.sum(x)


def _out_with_where(a, b):
    c = np.ones_like(a)
    np.add(a, b, out=c, where=a > 0)      # NumPy keeps c's other entries: not a whole write
    return np.sum(c * a)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_inplace_forms(mode):
    """out= as a value is out itself; a sort in place of an argument is a write into it,
    refused in both modes (the caller's array would change); out= with where= is refused."""
    a, b = np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.2, 0.3])
    assert np.allclose(_grad(_out_as_value, mode)(a, b), _fd(_out_as_value, (a, b), 0))
    x = np.array([3.0, 1.0, 2.0])
    with pytest.raises(jitad.JitadError, match="argument"):
        _grad(_sort_argument, mode)(x)
    assert np.array_equal(x, [3.0, 1.0, 2.0])
    with pytest.raises(jitad.JitadError, match="side effects"):
        _grad(_out_with_where, mode)(a, b)


def _nonlocal_best(x):
    calls = 0
    best = 0.0

    def f(v):
        nonlocal calls, best
        calls += 1
        if v > best:
            best = v
            return v * v
        return -v
    s = 0.0
    for v in x:
        if f(v) > 0.0:
            s += best * calls
    return s + f(x[0]) * 2.0


def _nonlocal_in_while(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    i = 0
    while i < len(x):
        add(x[i] ** 2)
        i += 1
    return total


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_nonlocal_forms(mode):
    """Two nonlocal names, early returns, calls in an if test and in a return; a call in a
    while loop's body."""
    x = np.array([0.3, -0.7, 1.1, 0.5])
    for f in (_nonlocal_best, _nonlocal_in_while):
        assert np.allclose(_grad(f, mode)(x), _fd(f, (x,), 0), atol=1e-7), f.__name__


def _reductions(X):
    return (np.sum(np.add.reduce(X, axis=None)) + np.sum(np.add.reduce(X, 1, keepdims=True) * X)
            + np.sum(np.multiply.accumulate(X, axis=1) ** 2) + np.sum(np.add.reduce(X, axis=(0, 1)))
            + np.sum(np.minimum.reduce(X, axis=1)))


def _piecewise_domains(r):
    # each function sees only its condition's entries: no NaN from sqrt / log elsewhere
    v = np.piecewise(r, [r < 1.0], [lambda t: np.sqrt(1.0 - t), lambda t: np.log(t - 0.5)])
    return np.sum(v * r)


def _sq(a, b):
    return a * b + 1.0


def _reduce_forms(x):
    rows = [x[0] * x, x[1] * x]
    return (np.sum(functools.reduce(operator.add, rows))
            + functools.reduce(_sq, [x[0], x[1], x[2]]))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_numpy_call_forms(mode):
    X = np.random.default_rng(4).normal(size=(3, 4))
    assert np.allclose(_grad(_reductions, mode)(X), _fd(_reductions, (X,), 0), atol=1e-6)
    r = np.array([0.3, 0.8, 1.4, 2.2])
    g = _grad(_piecewise_domains, mode)(r)
    assert np.all(np.isfinite(g)) and np.allclose(g, _fd(_piecewise_domains, (r,), 0))
    x = np.array([0.3, -0.7, 1.1])
    assert np.allclose(_grad(_reduce_forms, mode)(x), _fd(_reduce_forms, (x,), 0))
