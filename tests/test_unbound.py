"""A local read where no assignment of it may have run (`jitad.unbound`): compiled code raises
Python's UnboundLocalError on the runs that read it unassigned, as the plain function and eager
mode do, and differentiates the runs that assign it (against finite differences and eager
mode). Before, compiled code read the placeholder the variable starts with and returned a
value Python never returns (a zero gradient)."""
import math

import numpy as np
import pytest

import jitad

from .test_correctness import check


def assigned_in_one_branch(x, w):
    if w > 0.5:
        y = np.sin(x) * w
    return np.sum(y)


def loop_variables_read_after(x, n):
    for i in range(n):
        t = x[i] * math.tanh(x[i + 1])
    return t * i + x[0]


def until_break(x, w):
    k = 0
    while True:
        z = x * w + k
        k += 1
        if k >= 3:
            break
    return np.sum(z * z)


def both_branches(x, w):
    if w > 0.5:
        y = np.sin(x)
    else:
        y = np.cos(x)
    return np.sum(y * w)


x0 = np.array([0.3, -0.4, 0.8, 0.1])


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_a_read_unassigned_raises_in_both_modes(backend):
    f = jitad.differentiable(assigned_in_one_branch, backend=backend)
    for g in (jitad.grad(f, wrt=(0, 1)), jitad.grad(assigned_in_one_branch, wrt=(0, 1), mode="eager")):
        with pytest.raises(UnboundLocalError):
            g(x0, 0.2)
    with pytest.raises(UnboundLocalError):
        assigned_in_one_branch(x0, 0.2)
    with pytest.raises(UnboundLocalError):
        jitad.grad(jitad.differentiable(loop_variables_read_after, backend=backend))(x0, 0)


def test_the_runs_that_assign_it_differentiate():
    check(assigned_in_one_branch, (x0, 0.8), wrt=(0, 1), backend="python")
    check(loop_variables_read_after, (x0, 3), wrt=(0,))
    check(until_break, (x0, 0.7), wrt=(0, 1), backend="python")
    H = jitad.hessian(jitad.differentiable(assigned_in_one_branch, backend="python"), wrt=0)(x0, 0.8)
    np.testing.assert_allclose(H, np.diag(-np.sin(x0) * 0.8), rtol=1e-12, atol=1e-12)


def test_the_check_is_in_the_generated_code_only_where_needed():
    src = jitad.source(jitad.grad(loop_variables_read_after), "forward", args=(x0, 3))
    assert "t_bound = False" in src and "if not t_bound:" in src and "rt.unbound_local(" in src
    src = jitad.source(jitad.grad(both_branches, wrt=(0, 1)), "forward", args=(x0, 0.8))
    assert "_bound" not in src and "unbound_local" not in src


def read_past_a_short_circuit(x, w):
    if w > 0.5:
        y = np.sum(x) * w
    if w > 0.5 and y > 0.0:
        return y
    z = [y for _ in range(0)]
    return np.sum(x) * (y if w > 0.5 else 2.0) + len(z)


def test_a_read_past_a_short_circuit_is_not_checked():
    """Python evaluates `y` there only where it is assigned: no UnboundLocalError."""
    for w in (0.7, 0.2):
        check(read_past_a_short_circuit, (x0, w), wrt=(0, 1), backend="python")


def deleted_then_maybe_read(x, w):
    y = np.sin(x) * w
    s = np.sum(y)
    del y                      # y unassigned from here, as in Python
    if w > 0.5:
        y = np.cos(x)
    return s + np.sum(y)


def test_del_of_a_name_unassigns_it():
    check(deleted_then_maybe_read, (x0, 0.8), wrt=(0, 1), backend="python")
    for g in (jitad.grad(jitad.differentiable(deleted_then_maybe_read, backend="python")),
              jitad.grad(deleted_then_maybe_read, mode="eager")):
        with pytest.raises(UnboundLocalError):
            g(x0, 0.2)
