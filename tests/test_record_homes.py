"""A name given a record (or a tuple of values) in branches or again in a loop (`structs.homed`:
one variable per field, the name's home): gradients against finite differences and eager mode
(python backend; one Numba case), a read no assignment reached raising UnboundLocalError in both
modes, and a structure that changes class refused at the user's line."""
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import jitad

from .harness import error_marker
from .test_correctness import check


class P(NamedTuple):
    a: np.ndarray
    b: float


@dataclasses.dataclass
class State:
    x: np.ndarray
    v: np.ndarray


def record_in_branches(x, w):
    if w > 0:
        p = P(x * 2.0, w)
    else:
        p = P(np.sin(x), w * w)
    return np.sum(p.a) * p.b


def dataclass_stepped(x, w):
    s = State(x, x * w)
    for i in range(5):
        s = dataclasses.replace(s, x=s.x + 0.1 * s.v)
        s = State(s.x, s.v - 0.1 * np.sin(s.x))
    return np.sum(s.x ** 2) + w


def namedtuple_replaced_in_while(x, w):
    st = P(x, w)
    k = 0
    while k < 4:
        st = st._replace(a=np.tanh(st.a * st.b), b=st.b * 0.9)
        k += 1
    return np.sum(st.a)


def tuple_in_branches(x, w):
    if w > 0.5:
        t = (x, w)
    else:
        t = (x * x, 2.0)
    u, c = t
    return np.sum(u) * c


def record_in_one_branch(x, w):
    if w > 10:
        p = P(x, w)
    return np.sum(p.a)


class Q(NamedTuple):
    a: np.ndarray
    c: float


def record_then_another_record(x, w):
    if w > 0:
        p = P(x, w)
    else:
        p = Q(x, w)  # ERR: structure variable
    return np.sum(p.a)


x0 = np.array([0.3, -0.4, 0.8])


@pytest.mark.parametrize("fn", [record_in_branches, dataclass_stepped,
                                namedtuple_replaced_in_while, tuple_in_branches],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("w", [0.7, -0.3])
def test_gradients(fn, w):
    check(fn, (x0, w), wrt=(0, 1), backend="python")


def test_compiled_with_numba():
    check(dataclass_stepped, (x0, 0.7), wrt=(0, 1))


def test_a_read_no_assignment_reached_raises():
    for g in (jitad.grad(jitad.differentiable(record_in_one_branch, backend="python"), wrt=(0, 1)),
              jitad.grad(record_in_one_branch, wrt=(0, 1), mode="eager")):
        with pytest.raises(UnboundLocalError):
            g(x0, 0.7)
    g = jitad.grad(jitad.differentiable(record_in_one_branch, backend="python"), wrt=(0, 1))
    np.testing.assert_allclose(g(x0, 11.0)[0], np.ones(3))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_a_structure_that_changes_class_is_refused(mode):
    line, construct = error_marker(record_then_another_record)
    with pytest.raises(jitad.JitadError) as info:
        jitad.grad(jitad.differentiable(record_then_another_record, backend="python"), wrt=(0, 1),
                   mode=mode)(x0, 0.7)
    assert info.value.loc.line == line and construct in str(info.value)
