"""Functions outside jitad's language subset. Each offending line carries a marker comment
`# ERR: <what the message must name>`; tests/test_errors.py checks the error's file, line,
caret and text against it."""
import math

import numpy as np

SCALE = 2.5
WEIGHTS = np.ones(3)
CALLS = [0]


def uses_lambda(x):
    y = 2.0 * x  # (a lambda assigned to a name is the nested def it means; other lambdas)
    return (lambda t: t * y)(x)  # ERR: lambda


def uses_dictcomp(x):
    ys = {k: x * k for k in x}  # ERR: dict comprehension
    return ys[0]


def uses_list_as_value(x):
    ys = [x, x]
    return ys * 2  # ERR: list value


def uses_dict(x, k):
    d = {k: x}  # ERR: dict
    return d[k]     # a key that is no constant: refused


def uses_with(x):
    with open("f") as fh:  # ERR: with statement
        pass
    return x


def uses_try(x):
    try:  # ERR: try statement
        y = x
    except ValueError:
        y = 0.0
    return y


class NotBuiltin(Exception):
    pass


def uses_raise(x):
    if x > 1.0:
        raise NotBuiltin("no")  # ERR: raise statement
    return x


def uses_global(x):
    global SCALE  # ERR: global statement
    SCALE = 2.0 * x     # (a `global` of names only read is no statement: see desugar)
    return x


def uses_nested_def_as_value(x):
    def inner(t):
        return t
    pair = (inner, inner)  # ERR: nested function value
    return pair[0](x)


def uses_import(x):
    # (an import inside the function is read as at module level: one that fails is refused)
    import os.not_a_module_jitad_knows  # ERR: import statement
    return x


def uses_fstring(x):
    s = f"{x}"  # ERR: f-string
    return x


def uses_walrus(x):
    # a walrus in a comprehension binds in the function around it: refused (one in a test
    # or a value is an assignment, `jitad/walrus.py`)
    ys = [(y := x * k) for k in range(3)]  # ERR: walrus
    return ys[0] + y


def uses_shift(x, n):
    k = n << 1  # ERR: operator <<
    return x * k


def uses_is(x):
    if x is x:  # ERR: operator is
        return 0.0
    return x


def uses_in(x, n):
    if n in range(1, 3):  # ERR: operator in
        return x
    return 2 * x


def uses_bare_return(x):
    if x > 0:
        return  # ERR: bare `return`
    return x


def no_return(x):
    y = x * 2
    y = y + 1  # ERR: must return a value


def uses_defaults(x, m=2, *, n):  # ERR: keyword-only parameter without a default
    return x * n * m


def uses_varargs(x, *rest):  # ERR: plain parameters
    return x


def uses_expression_statement(x):
    np.sin(x)  # ERR: expression statements
    return x


def uses_unknown_call(x):
    return np.linalg.norm(x)  # ERR: np.linalg.norm()


def uses_unknown_method(x):
    return x.repeat(2)[0]  # ERR: .repeat()


def writes_global_array(v):
    WEIGHTS[0] = v[0]  # ERR: 'WEIGHTS' is a global or closure array
    return np.sum(WEIGHTS * v)


def uses_string(x):
    s = "hello"  # ERR: str
    return x


def uses_tuple_value(x):
    t = (x, x)
    return np.sum(t * 2.0)  # ERR: tuple value


def returns_nested(x):
    h = x * 2.0
    return np.sum(h), (h, x)  # ERR: nested return


def uses_starred(x, v):
    a = max(*v)  # ERR: star expression
    return a * x


def writes_argument(x, v):
    v[0] = x  # ERR: argument
    return np.sum(v)


def writes_view(x, v):
    w = v.T  # (a view of the argument)
    w[0] = x  # ERR: may alias
    return np.sum(w)


def changes_rank(x, v):
    y = x * 2.0
    if x > 1.0:
        y = v * 2.0  # ERR: keep one rank
    return np.sum(y)


def undefined_name(x):
    return x * not_defined_anywhere  # ERR: not defined


def uses_tuple_unpack_from_name(x, v):
    a, b = 2.0  # ERR: cannot unpack a constant
    return a * x


def uses_matrix_mask_with_another_index(x, v):
    M = np.outer(v, v)
    T = np.stack((M, M), axis=2)
    return np.sum(T[M > 0.0, 0]) * x  # ERR: boolean mask


def uses_slice_as_a_value(x, v):
    sl = slice(0, 2)
    return np.sum(v[sl]) * x + len(sl)  # ERR: is a slice


def writes_through_an_index_matrix(x, v):
    y = np.zeros(3)
    y[np.array([[0, 1], [1, 2]])] = x  # ERR: write through index arrays
    return np.sum(y * v)


def axis_not_constant(x, v, k):
    return np.sum(np.sum(v, axis=k)) * x  # ERR: constant integer


def uses_class(x):
    class A:  # ERR: class definition
        pass
    return x


def uses_del(x):
    y = [x, x]
    del y[0]  # ERR: del statement
    return x


def uses_yield(x):
    yield x  # ERR: yield
    return x


def scalar_index(x):
    return x[0]  # ERR: indexing a scalar


def vector_output(x, v):
    return v * x


def int_recursion_without_base(x, n):
    return int_recursion_without_base(x, n - 1) * x  # ERR: base case


def write_seen_by_alias(x):
    y = np.zeros(3)
    u = y
    y[0] = x  # ERR: alias
    return np.sum(u * x)


def writes_matrix_diagonal(x, v):
    d = np.diag(np.outer(v, v) * x)     # NumPy: a read-only view of the matrix
    d[0] = x  # ERR: may alias another array
    return np.sum(d)


def write_seen_by_view_in_loop(x):
    y = np.zeros((2, 3))
    s = 0.0
    row = y[0]
    for i in range(2):
        s = s + np.sum(row) * x
        y[0, i] = x  # ERR: alias
    return s


def inplace_add_to_alias(x, v):
    w = v
    w *= x  # ERR: shared
    return np.sum(w) + np.sum(v)


def counts_its_calls_in_a_global(x):
    CALLS[0] += 1  # ERR: global or closure list
    return x * x
