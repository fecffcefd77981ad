"""The K-lane Hessian (`jitad.lanes`, `codegen._hessian_lanes`): f_grads batched over its tangent
parameters, K columns of H per sweep. Over the second-derivative corpus's constructs -- `while`
until convergence, branches, `break`, early `return`, helpers, ODE integrators (Euler,
Lotka-Volterra), a recurrent net, tuple wrt -- it runs (`gen.hessian_lanes`) and
gives the one-column loop's Hessian (`JITAD_HESSIAN_LANES=0`) to rounding, symmetric; a lane
count smaller than the columns (blocks and a last, partial block) too. What it does not cover
keeps the loop, and says why (`gen.hessian_loop`)."""
import types

import numpy as np
import pytest

import jitad

from . import hessian_funcs as hf
from .test_hessian import assert_close, blocks, full_matrix

CASES = {c.name: c for c in hf.HCASES}

LANED = ["newton_sqrt", "fixed_point_cos", "inner_descent", "piecewise", "clipped_power",
         "early_return_loop", "while_break_accumulate", "continue_skip", "helper_energy",
         "ode_euler", "lotka_volterra", "rnn_loop", "mlp_tanh",
         "logistic_regression", "rosenbrock_loop", "lennard_jones", "spring_chain",
         "array_writes", "slicing", "horner", "softmax_xent_loop", "attention"]


def fresh(fn):
    """A copy of fn: a function of its own for jitad's per-function caches (the lane count is
    read when the code is generated)."""
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                           fn.__closure__)
    g.__module__, g.__qualname__ = fn.__module__, fn.__qualname__
    return g


def hessian_with(case, lanes, backend, monkeypatch):
    """(H as one matrix, the Generated) of the case, made with JITAD_HESSIAN_LANES=lanes."""
    monkeypatch.setenv("JITAD_HESSIAN_LANES", lanes)
    f = jitad.differentiable(backend=backend)(fresh(case.fn))
    h = jitad.hessian(f, wrt=case.wrt)
    args = case.make_args()
    H = h(*args)
    comp = h.specialize(*args)
    return full_matrix(blocks(H, case), case, args), comp


@pytest.mark.parametrize("lanes", ["32", "3"])
@pytest.mark.parametrize("name", LANED)
def test_lanes_give_the_column_loops_hessian(name, lanes, monkeypatch):
    case = CASES[name]
    M, comp = hessian_with(case, lanes, "python", monkeypatch)
    assert comp.gen.hessian_lanes, f"the lanes did not run: {comp.gen.hessian_loop}"
    M0, comp0 = hessian_with(case, "0", "python", monkeypatch)
    assert comp0.gen.hessian_lanes is None
    scale = max(1.0, np.max(np.abs(M0)))
    assert_close(M, M0, 1e-12, 1e-13 * scale, "lanes vs the column loop")
    assert_close(M, M.T, 0.0, 1e-10 * scale, "symmetric")


@pytest.mark.parametrize("name", ["rnn_loop", "lotka_volterra", "helper_energy", "mlp_tanh",
                                  "newton_sqrt"])
def test_lanes_compiled_with_numba(name, monkeypatch):
    case = CASES[name]
    M, comp = hessian_with(case, "4", "numba", monkeypatch)
    assert comp.gen.hessian_lanes and comp.compiled_ran
    M0, _ = hessian_with(case, "0", "python", monkeypatch)
    scale = max(1.0, np.max(np.abs(M0)))
    assert_close(M, M0, 1e-12, 1e-13 * scale, "numba lanes vs the column loop")


def test_what_the_lanes_do_not_cover_keeps_the_loop_and_says_why(monkeypatch):
    monkeypatch.setenv("JITAD_HESSIAN_LANES", "32")
    # a sort's tangent has no lane form; a Hessian of two numbers is cheaper as a loop; RK4's
    # four inlined steps would be too many lane loops for Numba to compile
    for name, why in (("sorts_and_quantiles", "rt.sort_tangent"), ("himmelblau", "2 columns"),
                      ("ode_rk4", "lane loops")):
        case = CASES[name]
        f = jitad.differentiable(backend="python")(fresh(case.fn))
        comp = jitad.hessian(f, wrt=case.wrt).specialize(*case.make_args())
        assert comp.gen.hessian_lanes is None and why in comp.gen.hessian_loop


def test_parallel_columns_keep_the_loop():
    case = CASES["rnn_loop"]
    args = case.make_args()
    h = jitad.hessian(fresh(case.fn), wrt=case.wrt, parallel=True)
    H = h(*args)
    comp = h.specialize(*args)
    assert comp.gen.hessian_lanes is None and "parallel" in comp.gen.hessian_loop
    H1 = jitad.hessian(fresh(case.fn), wrt=case.wrt)(*args)
    assert np.allclose(H, H1, rtol=1e-12, atol=1e-13)
