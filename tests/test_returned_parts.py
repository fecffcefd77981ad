"""`helper(x)[k]`: one value of a helper returning a tuple (refused before: 'returns 2
value(s), unpacked into 1'), and `np.linalg.lstsq` (defined in `prelude`) in its forms, against
finite differences and eager mode, with NumPy's values."""
import numpy as np
import pytest

from .test_correctness import check

rng = np.random.default_rng(21)


def loss_and_aux(w, x):
    r = np.tanh(w * x)
    return np.sum(r ** 2), r


def uses_parts(w, x):
    return loss_and_aux(w, x)[0] + np.sum(loss_and_aux(w, 2.0 * x)[1]) + loss_and_aux(w, x)[-1][0]


def test_one_value_of_a_helper_returning_a_tuple():
    check(uses_parts, (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1))


def uses_parts_of_a_nested_function(w, x):
    scale = 2.0

    def moments(v):             # defined inside, reading the enclosing function's `scale`
        return np.sum(v) * scale, np.sum(v ** 2)

    return moments(w * x)[1] + moments(np.tanh(w))[0] + moments(x)[-1]


def test_one_value_of_a_nested_function_returning_a_tuple():
    check(uses_parts_of_a_nested_function, (rng.normal(size=4), rng.normal(size=4)), wrt=(0, 1),
          backend="python")


def least_squares_solution(A, b):
    return np.sum(np.linalg.lstsq(A, b, rcond=None)[0] ** 2)


def least_squares_all(A, b):
    x, res, rank, s = np.linalg.lstsq(A, b, rcond=None)
    return np.sum(x) + np.sum(res) + rank + np.sum(s)


@pytest.mark.parametrize("shapes", [((6, 3), (6,)), ((3, 5), (3,)), ((6, 3), (6, 2))],
                         ids=["tall", "wide", "two-columns"])
def test_lstsq(shapes):
    A, b = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    check(least_squares_solution, (A, b), wrt=(0, 1))
    check(least_squares_all, (A, b), wrt=(0, 1))
