"""Everyday models (tests/everyday_funcs.py: 52 losses written as a NumPy user would, not
tailored to jitad) in both modes.

A model jitad compiles: its compiled gradient equals central finite differences and the eager
gradient, the compiled path ran, the arguments are unchanged. A model compiled mode does not
take yet (`REFUSED`, with the construct that stops it): compiled mode refuses it with a
`JitadError` -- not an internal exception, not a wrong number -- and eager mode either refuses
it the same way or gives the finite-difference gradient; the list is strict: a model that
starts to compile fails its test until it leaves the list.

Compiling every model takes minutes of Numba time: the default run compiles `DEFAULT` (one
model of each kind); ``JITAD_EVERYDAY_FULL=1`` compiles them all. Refusals are checked for
every model (they happen before Numba runs).
"""
import os

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import everyday_funcs as ev
from .harness import assert_grads_close, assert_unchanged, central_fd, flat_args, leaves_of, snapshot

FULL = os.environ.get("JITAD_EVERYDAY_FULL", "") not in ("", "0")

NAMES = list(ev.WRT)

# the models jitad refuses today, and the construct that stops each (first refusal)
REFUSED = {
}

# compiled in the default run: one model of each kind
DEFAULT = {"logistic_regression", "causal_self_attention", "black_scholes_call",
           "heat_inverse_problem", "triplet_loss", "dirichlet_energy"}


def _args(name):
    return ev.__dict__[f"make_{name}"](np.random.default_rng(12))


def _params():
    out = []
    for name in NAMES:
        marks = ()
        if name not in REFUSED and name not in DEFAULT and not FULL:
            marks = pytest.mark.skip(reason="compiled with JITAD_EVERYDAY_FULL=1")
        out.append(pytest.param(name, id=name, marks=marks))
    return out


@pytest.mark.parametrize("name", _params())
def test_everyday_model(name):
    fn, wrt = ev.__dict__[name], tuple(ev.WRT[name])
    args = _args(name)
    if name in REFUSED:
        with pytest.raises(JitadError):
            jitad.grad(fn, wrt=wrt)(*args)
        try:
            eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args)
        except JitadError:
            return
        fd = central_fd(*flat_args(fn, args, wrt), eps=1e-4, order=4)
        assert_grads_close(leaves_of(eager), fd, rtol=1e-5, atol=1e-7, label=f"{name} eager vs FD")
        return
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap, f"{name} compiled")
    assert vg.specialize(*args).compiled_ran
    assert float(value) == pytest.approx(float(fn(*_args(name))), rel=1e-9, abs=1e-12)
    fd = central_fd(*flat_args(fn, args, wrt), eps=1e-4, order=4)
    assert_grads_close(leaves_of(grads), fd, rtol=1e-5, atol=1e-7, label=f"{name} compiled vs FD")
    eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args)
    eager = eager if isinstance(eager, tuple) else (eager,)
    assert_unchanged(args, snap, f"{name} eager")
    assert_grads_close(leaves_of(eager), leaves_of(grads), rtol=1e-8, atol=1e-10,
                       label=f"{name} eager vs compiled")
    for a, g in zip((args[w] for w in wrt), grads):      # each gradient shaped like its argument
        assert type(g) is type(a) and (not isinstance(a, dict) or list(g) == list(a))
