"""Held-out corpus #11's findings (tests/heldout11_funcs.py), fixed in both modes:
  * JAX's nested structured outputs: `value_and_grad(f, has_aux=True)` of `return loss,
    {"acc": acc, "n": n}`, `return loss, (a, (b, c))` and `return loss, aux` of a local dict,
    the aux rebuilt (keys in order, nested tuples); `vjp` of a nested output with a cotangent
    of the same structure (the front end returns the leaves flat with `Function.out_tree`,
    the API rebuilds the structure);
  * a loop or comprehension over a tuple display (`for c in (0.0, 1.0, -1.0)`).
Each gradient against central finite differences (and autograd where it runs the function),
compiled (Numba for one of each mechanism, the generated Python for the rest) and eager, the
arguments unchanged; the whole corpus once through both modes; what stays refused, refused at
the user's line in both modes."""
import numpy as np
import pytest

import jitad

from . import heldout11_funcs as hf
from .harness import (assert_grads_close, assert_unchanged, autograd_grad, central_fd,
                      check_form_accepted, check_form_refused, check_grads_both_modes,
                      snapshot)

rng = np.random.default_rng(1111)
nrm = rng.normal


def _py(fn):
    return jitad.differentiable(fn, backend="python")


def _close_tree(a, b):
    """Two values of the same nested structure (tuples, dicts in key order), leaves equal."""
    if isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), (a, b)
        for k in b:
            _close_tree(a[k], b[k])
    elif isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _close_tree(x, y)
    else:
        assert np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-12, atol=1e-12), (a, b)


# -- has_aux with a dict, a nested tuple, a local dict -------------------------------------------
W0 = nrm(size=(3, 2))
X0 = nrm(size=(6, 3))
L0 = np.eye(2)[rng.integers(0, 2, 6)]
AUX_CASES = [
    (hf.loss_with_dict_aux, (W0, X0, L0)),
    (hf.loss_with_nested_tuple_aux, (nrm(size=4),)),
    (hf.loss_with_dict_local_aux, (nrm(size=4),)),
]


@pytest.mark.parametrize("mode", ["numba", "python", "eager"])
@pytest.mark.parametrize("fn,args", AUX_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_has_aux_nested_structures(fn, args, mode):
    if mode == "numba" and fn is not hf.loss_with_dict_aux:
        pytest.skip("Numba compiles one representative")
    snap = snapshot(args)
    f = fn if mode == "numba" else _py(fn)
    vg = jitad.value_and_grad(f, has_aux=True, mode="eager" if mode == "eager" else "compiled")
    (value, aux), g = vg(*args)
    assert_unchanged(args, snap, mode)
    loss, aux_ref = fn(*args)
    assert abs(value - loss) <= 1e-12 * (1 + abs(loss))
    _close_tree(aux, aux_ref)
    if isinstance(aux, dict) and "n" in aux:        # an int stays an int, in both modes
        assert isinstance(aux["n"], (int, np.integer)), type(aux["n"])
    fd = central_fd(lambda *a: fn(*a)[0], args, (0,), eps=1e-5)
    assert_grads_close((g,), fd, rtol=1e-6, atol=1e-8, label=mode)
    g2, aux2 = jitad.grad(f, has_aux=True, mode="eager" if mode == "eager" else "compiled")(*args)
    _close_tree(aux2, aux_ref)
    assert np.allclose(g2, g)


def test_has_aux_nested_tuple_matches_autograd():
    args = (nrm(size=4),)
    _, g = jitad.value_and_grad(_py(hf.loss_with_nested_tuple_aux), has_aux=True)(*args)
    ag = autograd_grad(lambda x: hf.loss_with_nested_tuple_aux(x)[0], args, (0,))
    assert_grads_close((g,), ag, rtol=1e-9, atol=1e-12)


def nested_output(x, w):
    y = np.tanh(x * w)
    return np.sum(y), {"y": y, "pair": (x * 2.0, np.sum(w * y))}


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_vjp_of_a_nested_output(mode):
    x, w = nrm(size=3), nrm(size=3)
    snap = snapshot((x, w))
    ct = (0.7, {"y": nrm(size=3), "pair": (nrm(size=3), -1.3)})
    f = _py(nested_output) if mode == "compiled" else nested_output
    y, pull = jitad.vjp(f, wrt=(0, 1), mode=mode)(x, w)
    _close_tree(y, nested_output(x, w))
    gx, gw = pull(ct)
    assert_unchanged((x, w), snap, mode)

    def contracted(x, w):
        s, d = nested_output(x, w)
        return ct[0] * s + np.sum(ct[1]["y"] * d["y"]) + np.sum(ct[1]["pair"][0] * d["pair"][0]) \
            + ct[1]["pair"][1] * d["pair"][1]
    fd = central_fd(contracted, (x, w), (0, 1), eps=1e-5)
    assert_grads_close((gx, gw), fd, rtol=1e-6, atol=1e-8, label=mode)
    with pytest.raises(jitad.JitadError, match="structure"):
        pull((0.7, {"pair": (ct[1]["pair"]), "y": ct[1]["y"]}))     # keys in another order


# -- a loop over a tuple display -------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["numba", "python"])
def test_loop_over_tuple_display(backend):
    args = (nrm(size=3), nrm(size=(2, 3)), nrm(size=(2, 3)))
    if backend == "numba":
        check_form_accepted(hf.loop_over_tuple_display, args, (0, 1, 2), backend="numba")
    else:
        check_form_accepted(hf.min_over_list, (nrm(size=3),), (0,), backend="python")


# -- the corpus, once through both modes -------------------------------------------------------------
CORPUS = hf.suites() + hf.models()


def _name(fn):
    return getattr(fn, "__name__", None) or "partial_" + fn.func.__name__


@pytest.mark.parametrize("fn,args,wrt", CORPUS, ids=[_name(c[0]) for c in CORPUS])
def test_corpus_both_modes(fn, args, wrt):
    check_grads_both_modes(fn, args, wrt, backend="python", value_atol=1e-10)


# -- refused, at the user's line, in both modes ------------------------------------------------------
@pytest.mark.parametrize("fn,args", hf.refused_forms(), ids=lambda c: getattr(c, "__name__", ""))
def test_refused_forms(fn, args):
    check_form_refused(fn, args, hf.__file__)


def test_a_helpers_nested_return_is_refused_at_its_line():
    from .harness import error_marker
    line, expected = error_marker(hf._nested_helper)
    texts = []
    for make in (lambda: jitad.grad(_py(hf.calls_nested_helper)),
                 lambda: jitad.grad(hf.calls_nested_helper, mode="eager")):
        with pytest.raises(jitad.JitadError) as info:
            make()(np.array([0.3, -0.2, 0.5]))
        err = info.value
        assert expected in str(err) and err.loc.line == line and err.loc.filename == hf.__file__
        texts.append(str(err))
    assert texts[0] == texts[1]


# -- a global tuple of numbers, compiled in and watched -------------------------------------------
@pytest.mark.parametrize("backend", ["numba", "python"])
def test_global_tuple_constants(backend):
    x = nrm(size=6)
    if backend == "numba":
        check_form_accepted(hf.global_tuple_constants, (x,), (0,), backend="numba")
        return
    g = jitad.grad(_py(hf.global_tuple_constants))
    before = g(x)
    saved = hf.WEIGHTS
    try:
        hf.WEIGHTS = (1.5, -0.5)            # rebinding the global: seen at the next call
        fd = central_fd(hf.global_tuple_constants, (x,), (0,), eps=1e-5)
        assert_grads_close((g(x),), fd, rtol=1e-6, atol=1e-8)
        assert_grads_close((jitad.grad(hf.global_tuple_constants, mode="eager")(x),), fd,
                           rtol=1e-6, atol=1e-8)
    finally:
        hf.WEIGHTS = saved
    assert_grads_close((g(x),), (before,), rtol=1e-12, atol=1e-14)
