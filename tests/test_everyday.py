"""Everyday models (tests/everyday_funcs.py: 52 losses written as a NumPy user would, not
tailored to jitad) in both modes.

A model jitad compiles: its compiled gradient equals central finite differences and the eager
gradient, the compiled path ran, the arguments are unchanged. A model jitad does not take yet
(`REFUSED`, with the construct that stops it): both modes refuse it with a `JitadError` -- not
an internal exception, not a wrong number -- and the list is strict: a model that starts to
compile fails its test until it leaves the list.

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
from .harness import assert_grads_close, assert_unchanged, central_fd, snapshot

FULL = os.environ.get("JITAD_EVERYDAY_FULL", "") not in ("", "0")

NAMES = [n[len("make_"):] for n in dir(ev) if n.startswith("make_")]
NAMES.sort(key=lambda n: ev.__dict__[n].__code__.co_firstlineno)

# the models jitad refuses today, and the construct that stops each (first refusal)
REFUSED = {
    "rnn_hidden_states_loss": "list built with append",
    "bundle_adjustment_loss": "list built with append",
    "rk4_oscillator_loss": "list built with append",
    "lotka_volterra_fit": "list built with append",
    "bilinear_einsum_loss": "np.einsum",
    "conv1d_numpy_loss": "np.convolve",
    "spring_chain_loss": "np.pad",
    "mvn_nll_cholesky": "np.tril_indices",
    "polynomial_fit_vander": "np.vander",
    "gru_sequence_loss": "dict argument",
    "tsne_kl": "np.fill_diagonal (an in-place call)",
    "deep_mlp_regression": "list argument",
    "gmm_objective": "list comprehension",
    "multi_head_attention": "@ of rank-3 arrays",
    "portfolio_objective": "np.maximum.accumulate",
    "option_book_value": "scipy.stats.norm.cdf",
    "multiclass_svm_loss": "a write through two index arrays",
    "mlp_classifier": "tuple argument",
    "vae_negative_elbo": "np.split along a negative axis",
}

# compiled in the default run: one model of each kind
DEFAULT = {"logistic_regression", "softmax_regression", "layernorm_net", "causal_self_attention",
           "kalman_negative_log_likelihood", "gp_negative_log_marginal_likelihood",
           "black_scholes_call", "cosine_embedding_loss", "heat_inverse_problem", "ackley",
           "lstm_sequence_loss", "dirichlet_energy"}


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
        for mode in ("compiled", "eager"):
            with pytest.raises(JitadError):
                jitad.grad(fn, wrt=wrt, mode=mode)(*args)
        return
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap, f"{name} compiled")
    assert vg.specialize(*args).compiled_ran
    assert float(value) == pytest.approx(float(fn(*_args(name))), rel=1e-9, abs=1e-12)
    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    assert_grads_close(tuple(grads), fd, rtol=1e-5, atol=1e-7, label=f"{name} compiled vs FD")
    eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args)
    eager = eager if isinstance(eager, tuple) else (eager,)
    assert_unchanged(args, snap, f"{name} eager")
    assert_grads_close(eager, tuple(grads), rtol=1e-8, atol=1e-10, label=f"{name} eager vs compiled")
