"""Argument forms as people write them (issue 12): each function of argument_funcs in both
modes against central finite differences, the compiled path ran, the arguments (containers
included) unchanged, each gradient shaped like its argument; the refusals at the user's line
with a caret."""
import inspect
import re
from collections import namedtuple

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import argument_funcs as af
from .harness import (assert_grads_close, assert_unchanged, central_fd, error_marker, flat_args,
                      leaves_of, snapshot)

RNG = np.random.default_rng(121)


def _r(*shape, scale=0.5):
    return scale * RNG.normal(size=shape)


def _same_structure(g, a):
    if isinstance(a, (tuple, list, dict)):
        assert type(g) is type(a), (type(g), type(a))
        if isinstance(a, dict):
            assert list(g) == list(a)
            g, a = list(g.values()), list(a.values())
        assert len(g) == len(a)
        for x, y in zip(g, a):
            _same_structure(x, y)
    else:
        assert np.shape(g) == np.shape(a)


def _gru_params():
    H, d = 3, 2
    return {"Wz": _r(H, d), "Uz": _r(H, H), "Wh": _r(H, d), "Uh": _r(H, H), "w_out": _r(H)}


Layer = af.Layer
CASES = [
    (af.list_mlp, ([_r(3, 4), _r(4, 5), _r(5, 1)], _r(6, 3), _r(6)), (0,)),
    (af.zipped_lists, ([_r(3, 4), _r(4, 2)], [_r(4), _r(2)], _r(5, 3)), (0, 1)),
    (af.indexed_and_unpacked, ([_r(2), _r(3), _r(4)], _r(4)), (0, 1)),
    (af.dict_gru, (_gru_params(), _r(4, 2)), (0,)),
    (af.nested_layers, (((_r(3, 3), _r(3)), (_r(3, 2), _r(2))), _r(4, 3)), (0,)),
    (af.layers_to_helpers, (((_r(3, 3), _r(3)), (_r(3, 3), _r(3))), _r(4, 3)), (0, 1)),
    (af.namedtuple_layers, ([Layer(_r(3, 4), _r(4)), Layer(_r(4, 2), _r(2))], _r(5, 3)), (0,)),
    (af.softmax_classifier, (_r(3, 4), _r(6, 3), np.array([0, 1, 3, 3, 2, 0])), (0, 1)),
    (af.constant_statics, (_r(2, 3), _r(3)), (0, 1)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt):
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap, "compiled")
    assert vg.specialize(*args).compiled_ran
    assert float(value) == pytest.approx(float(fn(*args)), rel=1e-10, abs=1e-12)
    for g, w in zip(grads, wrt):
        _same_structure(g, args[w])
    fd = central_fd(*flat_args(fn, args, wrt), eps=1e-4, order=4)
    assert_grads_close(leaves_of(grads), fd, rtol=1e-6, atol=1e-8, label="compiled vs FD")
    eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args)
    assert_unchanged(args, snap, "eager")
    for g, w in zip(eager, wrt):
        _same_structure(g, args[w])
    assert_grads_close(leaves_of(eager), leaves_of(grads), rtol=1e-9, atol=1e-12,
                       label="eager vs compiled")


def test_a_list_argument_of_another_length_is_another_specialization():
    g = jitad.grad(af.list_mlp)
    X, y = _r(6, 3), _r(6)
    two = g([_r(3, 4), _r(4, 1)], X, y)
    three = g([_r(3, 4), _r(4, 5), _r(5, 1)], X, y)
    assert isinstance(two, list) and len(two) == 2 and len(three) == 3
    assert two[1].shape == (4, 1) and three[2].shape == (5, 1)


def test_a_single_gradient_of_a_dict_is_a_dict_in_its_key_order():
    def f(p, x):
        return np.sum(p["w"] * x) * p["c"]

    for params in ({"w": np.ones(2), "c": 2.0}, {"c": 2.0, "w": np.ones(2)}):
        g = jitad.grad(f, wrt="p")(params, np.array([1.0, 3.0]))
        assert list(g) == list(params) and g["w"].tolist() == [2.0, 6.0] and g["c"] == 4.0


REFUSALS = [
    (af.index_by_variable, ([np.ones(3), np.ones(3)], np.ones(3), 1)),
    (af.dict_pop, ({"W": np.ones(3)}, np.ones(3))),
    (af.missing_key, ({"W": np.ones(3)}, np.ones(3))),
    (af.break_in_unrolled_loop, ([np.ones(3), np.ones(3)], np.ones(3))),
    (af.structure_assigned_twice, ([np.ones(3), np.ones(3), np.ones(3)], np.ones(3))),
    (af.structure_as_value, ([np.ones(3), np.ones(3)], np.ones(3))),
    (af.unpack_wrong_length, ([np.ones(3), np.ones(3), np.ones(3)], np.ones(3))),
    (af.helper_assigns_constant, (np.ones((2, 3)),)),
]


@pytest.mark.parametrize("fn,args", REFUSALS, ids=[c[0].__name__ for c in REFUSALS])
def test_refused_at_the_users_line(fn, args):
    """Compiled mode refuses these at the marked line with a caret, and eager mode with the
    same error (it makes compiled mode's checks first: it used to run them as Python does)."""
    line, expected = error_marker(fn)
    with pytest.raises(JitadError) as info:
        jitad.grad(fn)(*args)
    err, text = info.value, str(info.value)
    assert expected in text, text
    assert err.loc is not None and err.loc.filename == inspect.getsourcefile(af), text
    assert err.loc.line == line, (err.loc.line, line, text)
    assert re.search(r"\n\s*\^+\s*$", text), text
    with pytest.raises(JitadError) as info:
        jitad.grad(fn, mode="eager")(*args)
    assert str(info.value) == text


def test_argument_refusals_are_the_same_in_both_modes():
    def f(params, x):
        return np.sum(params[1] * x)

    for mode in ("compiled", "eager"):
        with pytest.raises(JitadError, match="string keys"):
            jitad.grad(f, mode=mode)({1: np.ones(2)}, np.ones(2))
        with pytest.raises(JitadError, match="integer|int"):     # no float leaf at all
            jitad.grad(f, mode=mode)([np.arange(2), np.arange(2)], np.ones(2))
        # an int leaf beside a float one: None in the gradient (tests/test_heldout19.py)
        g = jitad.grad(f, mode=mode)([np.ones(2), np.arange(2)], np.ones(2))
        assert g[1] is None and np.array_equal(g[0], np.zeros(2))


def test_train_step_refuses_structured_arguments():
    with pytest.raises(JitadError, match="one by one"):
        step = jitad.train_step(af.list_mlp, wrt=0, optimizer=jitad.optim.SGD(lr=0.1))
        step([np.ones((3, 1))], np.ones((2, 3)), np.ones(2), step.init([np.ones((3, 1))]))


NT = namedtuple("NT", "a b")


def test_namedtuple_gradient_is_a_namedtuple():
    def f(p, x):
        return np.sum(p.a * x) + p.b * np.sum(x)

    g = jitad.grad(f)(NT(np.ones(2), 0.5), np.array([1.0, 2.0]))
    assert type(g) is NT and g.a.tolist() == [1.0, 2.0] and g.b == 3.0


def test_a_recursion_that_keeps_changing_a_constant_argument_is_refused():
    with pytest.raises(JitadError, match="pass that argument as a variable"):
        jitad.grad(af.changing_constant)(np.ones(3))
