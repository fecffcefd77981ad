"""The gradient corpus, in both modes: every case through jitad's compiled path and through
eager mode, checked against central finite differences and (where the function is
expressible there) autograd, with the inputs left untouched; the compiled mode must have run
the compiled gradient (not a Python fallback), and eager must agree with it.

The compiled path is Numba for the functions in `NUMBA` -- at least two per category of the
corpus, chosen for what Numba's typing meets there (int and float mixed, bools, tuples
returned by helpers, recursion, while loops, tapes in nested loops, gathers and scatters,
float32) -- and every case of such a function (the same signature: one compile). The other
cases run the same generated code on the python backend (what they test is the front end
and the adjoint rules, which the python backend runs unchanged), so the default run compiles
~50 functions with Numba instead of ~130; `JITAD_CORPUS_FULL=1` compiles every case with
Numba.
"""
import os

import numpy as np
import pytest

import jitad

from .corpus import CASES
from .harness import assert_grads_close, assert_unchanged, autograd_grad, central_fd, snapshot


FULL = os.environ.get("JITAD_CORPUS_FULL", "") not in ("", "0")

# entry functions compiled with Numba by default (every case of each)
NUMBA = {
    "sa_int_float_mix", "sa_tuple_swap",
    "mf_atan2_hypot", "mf_softplus",
    "br_bool_flag", "br_in_loop", "br_on_array_value",
    "wh_two_conditions", "wh_array_norm",
    "bc_break_continue_mix", "bc_break_inner",
    "er_in_for", "er_nested_loop",
    "nl_while_in_for", "nl_three_levels",
    "hp_mixed_tuple", "hp_tuple_return", "hp_in_loop",
    "rc_tuple", "rc_horner", "rc_sum_array",
    "ew_max_min_where", "ew_rank3",
    "bd_col_row", "bd_rank3_vec",
    "rd_softmax_xent", "rd_max_min_axis",
    "la_dot_nested", "la_quadratic_T",
    "ix_gather_repeated", "ix_slice_2d",
    "ip_scatter_add", "ip_stencil", "ip_augmented_2d",
    "rnn_lstm_like", "rnn_rows_iter",
    "ode_rk4_system", "ode_projectile_event",
    "nt_2d_system", "nt_vector",
    "f32_elementwise", "f32_matvec", "f32_loop",
    "nm_collisions", "nm_adjoint_like",
}


def _backend(case):
    return "numba" if FULL or case.fn.__name__ in NUMBA else "python"


def test_the_numba_subset_covers_every_category():
    from .corpus import CATEGORIES, entry_functions
    assert NUMBA <= set(entry_functions()), NUMBA - set(entry_functions())
    for cat in CATEGORIES:
        assert any(c.category == cat and c.fn.__name__ in NUMBA for c in CASES), cat


def _as_tuple(g):
    return tuple(g) if isinstance(g, tuple) else (g,)


def _compiled_vg(case):
    fn = case.fn if _backend(case) == "numba" else jitad.differentiable(case.fn, backend="python")
    return jitad.value_and_grad(fn, wrt=case.wrt)


def _compiled(case):
    vg = _compiled_vg(case)
    return vg, vg(*case.make_args())


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradient(case, mode):
    if mode == "compiled":
        vg, backend = _compiled_vg(case), _backend(case)
    else:
        vg = jitad.value_and_grad(case.fn, wrt=case.wrt, mode=mode)
    args = case.make_args()
    snap = snapshot(args)
    value, grads = vg(*args)
    grads = _as_tuple(grads)
    assert_unchanged(args, snap, case.name)
    expected = float(case.fn(*case.make_args()))
    assert float(value) == pytest.approx(expected, rel=max(case.rtol, 1e-12), abs=case.atol)
    fd = central_fd(case.fn, case.make_args(), case.wrt, eps=1e-4, order=4)
    f32 = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    fd_rtol, fd_atol = (case.rtol, case.atol) if f32 else (max(case.rtol, 1e-6), max(case.atol, 1e-7))
    assert_grads_close(grads, fd, rtol=fd_rtol, atol=fd_atol, label=f"{case.name} vs finite differences")
    if case.autograd:
        ag = autograd_grad(case.fn, case.make_args(), case.wrt)
        assert_grads_close(grads, ag, rtol=case.rtol, atol=case.atol, label=f"{case.name} vs autograd")
    if mode == "compiled":
        spec = vg.specialize(*args)
        assert spec.backend == backend and spec.gen.vjp and hasattr(spec.module, spec.gen.vjp)
        assert backend == "python" or spec.compiled_ran, "the Numba-compiled gradient did not run"
    else:
        _, (_, compiled) = _compiled(case)
        assert_grads_close(grads, _as_tuple(compiled), rtol=max(case.rtol, 1e-9), atol=case.atol,
                           label=f"{case.name}: eager vs compiled")
