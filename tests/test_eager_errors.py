"""Eager mode refuses what it cannot differentiate with a jitad.JitadError at the user's line.

Each refused function below marks its offending line with ``# ERR: <construct>``.  The
error must be a JitadError (never a TypeError/NotImplementedError/AttributeError from inside
jitad), raised while the operation is recorded (the forward call, before any backward pass),
located at this file and that line, naming the construct, with the source line and a caret.
The same operations on values that are not differentiated run as plain NumPy.
"""
import inspect
import math
import re
import traceback

import numpy as np
import pytest

import jitad
from jitad import eager
from jitad.errors import JitadError

from .harness import error_marker

FILE = inspect.getsourcefile(lambda: None)
with open(FILE) as _f:
    SOURCE = _f.read().splitlines()




# ---------------------------------------------------------------------------
# functions run through jitad.grad(f, mode="eager"); x is a float vector
# ---------------------------------------------------------------------------
def uses_unwrap(x):
    return np.sum(np.unwrap(x) * np.arange(3.0))  # ERR: np.unwrap


def uses_matrix_cond(x):
    A = np.outer(x, x) + np.eye(3)
    return np.sum(np.linalg.cond(A, 1) * x)  # ERR: np.linalg.cond


def uses_einsum(x):
    return np.einsum("i,i,i,i->", x, x, x, x)  # ERR: np.einsum


def uses_repeat_method(x):
    y = x * 1.5
    return y.compress([True, False, True])[-1]  # ERR: .compress()


def sorts_in_place(x):
    y = x * 1.0
    y.partition(1)  # ERR: .partition()
    return y[0]


def reads_flat(x):
    return x.flat[1]  # ERR: .flat


def writes_into_int_array(x):
    y = np.zeros(3, dtype=np.int64)
    y[0] = x[1]  # ERR: write into an integer array
    return np.sum(y) + x[0]


def writes_repeated_indices(x):
    y = np.zeros((3, 3))
    y[:, np.array([0, 0])] = x[:2]  # ERR: repeated indices
    return np.sum(y)


def writes_into_matrix_diagonal(x):
    d = np.diag(np.outer(x, x))     # NumPy: a read-only view of the matrix
    d[0] = 1.0  # ERR: may alias another array
    return np.sum(d)


def std_with_mean(x):
    return np.std(x, mean=np.mean(x))  # ERR: keyword argument mean=


def dot_of_3d(x):
    T = np.ones((2, 3, 3)) * x
    return np.sum(np.dot(T, T))  # ERR: np.dot


def ufunc_reduce(x):
    return np.subtract.reduce(x * x)  # ERR: np.subtract.reduce


def ufunc_at(x):
    y = np.ones(3)
    np.multiply.at(y, np.array([0, 0, 1]), x)  # ERR: np.multiply.at
    return np.sum(y)


def ufunc_with_dtype(x):
    return np.sum(np.exp(x, dtype=np.float64))  # ERR: np.exp


def _helper(v):
    return np.sum(np.unwrap(v))  # ERR: np.unwrap


def calls_a_helper(x):
    return _helper(x) * 2.0


GRAD_CASES = [uses_unwrap, uses_matrix_cond, uses_einsum, uses_repeat_method,
              sorts_in_place, reads_flat, writes_into_int_array, writes_repeated_indices,
              writes_into_matrix_diagonal,
              std_with_mean, dot_of_3d, ufunc_reduce, ufunc_at, ufunc_with_dtype, _helper]


def _check(err, fn, tb):
    line, construct = error_marker(fn)
    text = str(err)
    assert isinstance(err, JitadError), type(err)
    assert construct in text, text
    assert err.loc is not None and err.loc.filename == FILE, (err.loc, text)
    assert err.loc.line == line, (err.loc.line, line, text)
    assert f'File "{FILE}", line {line}' in text
    assert SOURCE[line - 1].strip() in text
    assert re.search(r"\n\s*\^+\s*$", text), text
    assert "Traceback" not in text
    # the JitadError itself, not wrapped in (or chained to) an internal exception
    assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__)
    # raised while recording the forward call: no backward pass had started
    frames = [f.name for f in traceback.extract_tb(tb)]
    assert "backward" not in frames, frames


@pytest.mark.parametrize("fn", GRAD_CASES, ids=lambda f: f.__name__)
def test_refused_at_the_users_line(fn):
    target = calls_a_helper if fn is _helper else fn
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(JitadError) as info:
        jitad.grad(target, mode="eager")(x)
    _check(info.value, fn, info.tb)
    # the same through jitad.eager.value_and_grad
    with pytest.raises(JitadError) as info:
        eager.value_and_grad(target, (0,))(x)
    _check(info.value, fn, info.tb)


def test_caret_under_the_call():
    with pytest.raises(JitadError) as info:
        jitad.grad(uses_unwrap, mode="eager")(np.array([0.5, -1.0, 2.0]))
    lines = str(info.value).splitlines()
    src, caret = lines[-2], lines[-1]
    start = caret.index("^")
    assert src[start:start + len(caret.strip())] == "np.unwrap(x)", (src, caret)


# ---------------------------------------------------------------------------
# the Var API on a plain (undecorated) function
# ---------------------------------------------------------------------------
def var_writes_into_leaf(x):
    x[0] = 2.0  # ERR: write into a leaf
    return np.sum(x)


def var_math_on_grad_var(x):
    return math.sin(x[0]) + np.sum(x)  # ERR: float()


def var_list_to_array(x):
    return np.sum(np.array([x[0], x[1]]))  # ERR: np.asarray()


def var_unsupported_method(x):
    return x.compress([True, False])  # ERR: .compress()


@pytest.mark.parametrize("fn", [var_writes_into_leaf, var_math_on_grad_var, var_list_to_array,
                                var_unsupported_method], ids=lambda f: f.__name__)
def test_var_api_refused_at_the_users_line(fn):
    x = eager.Var(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    with pytest.raises(JitadError) as info:
        fn(x)
    _check(info.value, fn, info.tb)


def test_math_and_array_literals_work_under_value_and_grad():
    # the same functions are differentiable when eager mode runs them (math.* and
    # np.array are routed to eager versions), except a write into the argument x itself:
    # compiled mode refuses writes into arguments, and eager mode makes its checks first, so
    # it is refused with compiled mode's error (eager mode used to run it on a copy)
    x = np.array([0.5, -1.0, 2.0])
    g = jitad.grad(var_math_on_grad_var, mode="eager")(x)
    np.testing.assert_allclose(g, [1.0 + math.cos(0.5), 1.0, 1.0], rtol=1e-12)
    g = jitad.grad(var_list_to_array, mode="eager")(x)
    np.testing.assert_allclose(g, [1.0, 1.0, 0.0])
    errors = []
    for mode in ("compiled", "eager"):
        with pytest.raises(JitadError) as info:
            jitad.grad(var_writes_into_leaf, mode=mode)(x)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "'x' is an argument" in errors[0], errors
    np.testing.assert_array_equal(x, [0.5, -1.0, 2.0])


# ---------------------------------------------------------------------------
# integer arguments, non-scalar outputs
# ---------------------------------------------------------------------------
def int_argument(x, n):
    return x * n


def int_array_argument(v):
    return np.sum(v * 1.0)


def array_output(x):
    return x * 2.0


def test_integer_argument_is_refused_like_compiled_mode():
    with pytest.raises(JitadError, match="integer argument") as info:
        jitad.grad(int_argument, wrt=1, mode="eager")(1.5, 3)
    assert info.value.loc.filename == FILE
    assert info.value.loc.line == int_argument.__code__.co_firstlineno
    assert "'n'" in str(info.value)
    with pytest.raises(JitadError, match="integer argument"):
        eager.value_and_grad(int_array_argument, 0)(np.arange(3))
    assert jitad.grad(int_argument, wrt=0, mode="eager")(1.5, 3) == 3.0


def test_array_output_is_refused():
    # (compiled mode's refusal, made from the output's type before f runs, at f's def)
    with pytest.raises(JitadError, match="one float output") as info:
        jitad.grad(array_output, mode="eager")(np.ones(3))
    assert info.value.loc.line == array_output.__code__.co_firstlineno


# ---------------------------------------------------------------------------
# what is not differentiated keeps working as plain NumPy
# ---------------------------------------------------------------------------
def not_differentiated(x, c, idx):
    order = np.argsort(x)                       # int result of a Var that requires grad
    k = int(x[0] > 0.0) + len(x)               # int()/len()/comparisons read values
    near = np.isclose(x, 0.5)                   # bool result
    pos = np.searchsorted(np.sort(c), 0.0)      # sort of a constant array
    cs = np.cumsum(c)                           # cumsum of a constant array
    cs[0] = x[1]                                # a differentiable write into its result
    m = np.sort(c)                              # a sort of a constant
    u = c.prod() + np.linalg.det(np.outer(c, c) + np.eye(3)) + c.std()
    if bool(x[2] > 1.0) and not near[1]:
        u = u + 1.0
    mask = (c > 0.0) & ~(c > 5.0)               # bitwise operators on constant Vars
    w = float(np.sum(mask))
    return (np.sum(x[order] * m) + k * np.sum(cs) + pos + u + w + np.sum(x[idx])
            + np.sum(np.where(idx > 0, 1.0, 0.0)))


def test_plain_numpy_on_values_that_are_not_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    c = np.array([3.0, -2.0, 1.0])
    idx = np.array([2, 2, 0])
    c0 = c.copy()
    v, g = jitad.value_and_grad(not_differentiated, wrt=0, mode="eager")(x, c, idx)
    np.testing.assert_array_equal(c, c0)        # the write into cumsum's result did not either
    assert v == pytest.approx(not_differentiated(x.copy(), c.copy(), idx))
    eps = 1e-6
    fd = np.array([(not_differentiated(x + eps * e, c.copy(), idx)
                    - not_differentiated(x - eps * e, c.copy(), idx)) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


def test_var_api_plain_numpy_on_constants_and_int_results():
    c = eager.Var(np.array([3.0, 1.0, 2.0]))                   # a constant Var
    # ufunc methods and in-place sorts of constants (compiled mode refuses these forms, so
    # value_and_grad does; the Var API runs them as NumPy)
    assert np.add.reduce(c) == 6.0 and np.maximum.accumulate(c)[-1] == 3.0
    m = c.copy()
    m.sort()
    assert m.value.tolist() == [1.0, 2.0, 3.0] and c.value.tolist() == [3.0, 1.0, 2.0]
    np.testing.assert_array_equal(np.cumsum(c).value, [3.0, 4.0, 6.0])
    np.testing.assert_array_equal(c.cumsum().value, [3.0, 4.0, 6.0])
    assert c.prod() == 6.0 and c.strides == (8,) and c.nbytes == 24
    x = eager.Var(np.array([3.0, 1.0, 2.0]), requires_grad=True)
    assert np.argsort(x).tolist() == [1, 2, 0] and x.argmax() == 0
    assert np.isclose(x, 1.0).tolist() == [False, True, False]
    assert x.strides == (8,) and x.itemsize == 8
    with eager.no_grad():                                        # nothing is recorded
        np.testing.assert_array_equal(np.cumsum(x).value, [3.0, 4.0, 6.0])
    with pytest.raises(AttributeError):
        x.no_such_attribute


def test_int_and_bool_of_a_var_read_the_value():
    # fine: a scalar drives control flow / indexing; int() is not differentiated
    x = eager.Var(np.array([2.7, -1.0]), requires_grad=True)
    assert int(x[0]) == 2 and bool(x[0] > 1.0) and not bool(x[1] > 0.0)
    assert np.arange(4.0)[x[0] > 0.0 and 1 or 0] == 1.0
    # not fine in plain NumPy either: the same exceptions as NumPy's
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x > 0.0)
    with pytest.raises(TypeError):
        int(x)


def test_write_of_a_grad_var_into_a_plain_ndarray_names_the_cause():
    # outside value_and_grad np.zeros is NumPy's: it cannot hold a Var.  NumPy turns the
    # conversion error into its own ValueError; the JitadError is its cause.
    x = eager.Var(np.array([0.5, 1.0]), requires_grad=True)
    y = np.zeros(2)
    with pytest.raises(ValueError) as info:
        y[0] = x[0]
    assert isinstance(info.value.__cause__, JitadError)
    assert "float()" in str(info.value.__cause__)
    with pytest.raises(JitadError, match="np.asarray"):
        y[:] = x
