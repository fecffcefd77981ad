"""`match` statements: cases of values, alternatives, None, a module constant, the wildcard, a
capture, `p as name` and guards, rewritten as the `if`/`else` chain Python's semantics is
(`desugar`): gradients against central differences and eager mode (which runs the statement
as written), for several subjects -- a string option, an integer computed from the data, an
expression evaluated once; other patterns refused at the statement in both modes."""
import numpy as np
import pytest

from .harness import check_form_refused, check_grads_both_modes

x0 = np.array([0.5, -1.0, 2.0])
L2 = "l2"


def penalty(x, kind):
    match kind:
        case "l1":
            return np.sum(np.abs(x))
        case "l2" | "ridge":
            return np.sum(x ** 2)
        case None:
            return 0.0
        case _:
            return np.sum(x)


def by_count(x, k):
    s = 0.0
    match k + 1:                         # evaluated once
        case 1:
            s = np.sum(x)
        case 2 | 3 if np.sum(x) > 0.0:
            s = np.sum(x ** 3)
        case other:
            s = np.sum(x ** 2) * other
    return s


def by_data(x):
    match int(np.argmax(x)):             # the case depends on the values
        case 0:
            return np.sum(np.sin(x))
        case 2 as where:
            return np.sum(np.cos(x)) * where
    return np.sum(x)


def module_constant(x):
    match L2:
        case "l2":
            return np.sum(x ** 2)
    return np.sum(x)


@pytest.mark.parametrize("fn, args", [
    (penalty, (x0, "l1")), (penalty, (x0, "ridge")), (penalty, (x0, None)), (penalty, (x0, "x")),
    (by_count, (x0, 0)), (by_count, (x0, 1)), (by_count, (-x0, 2)), (by_count, (x0, 5)),
    (by_data, (x0,)), (by_data, (x0[::-1].copy(),)), (by_data, (np.array([0.1, 0.9, 0.2]),)),
    (module_constant, (x0,)),
])
def test_against_fd_both_modes(fn, args):
    check_grads_both_modes(fn, args, (0,))


def sequence_pattern(x):
    match x.shape:  # ERR: match statement
        case (n, m):
            return np.sum(x) * n
    return np.sum(x)


def test_other_patterns_are_refused():
    check_form_refused(sequence_pattern, (x0,), __file__)
