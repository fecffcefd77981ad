"""Gradient test cases over the functions in ``tests/corpus_funcs.py``.

Each :class:`Case` names an entry function, a zero-argument ``make_args``
returning a *fresh* tuple of arguments (deterministic: every random value
comes from ``np.random.default_rng(seed)``), the indices of the float
arguments to differentiate (``wrt``), a category and whether autograd can
express the function (``autograd``).  ``rtol``/``atol`` are the tolerances a
jitad gradient should meet against the reference (autograd where
``autograd=True``, central finite differences otherwise).

The same function may appear in several cases (different test points that
exercise different branches); case names are unique.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np

try:  # imported as ``tests.corpus`` or, with tests/ on sys.path, as ``corpus``
    from . import corpus_funcs as cf
except ImportError:  # pragma: no cover
    import corpus_funcs as cf


@dataclass(frozen=True)
class Case:
    name: str
    fn: Callable
    make_args: Callable[[], tuple]
    wrt: Tuple[int, ...]
    category: str
    autograd: bool = True
    rtol: float = 1e-6
    atol: float = 1e-8

    def __repr__(self) -> str:  # short ids in pytest output
        return f"Case({self.name})"


CATEGORIES = (
    "scalar_arith",
    "math_funcs",
    "branches",
    "while_loops",
    "break_continue",
    "early_return",
    "nested_loops",
    "helpers",
    "recursion",
    "elementwise",
    "broadcasting",
    "reductions",
    "linalg",
    "indexing",
    "inplace",
    "rnn",
    "ode",
    "newton",
    "float32",
    "names",
)

# float32 cases: the reference is computed in float64, jitad computes in
# float32, so the tolerance is loose.
F32_RTOL = 2e-3
F32_ATOL = 1e-4

CASES: list[Case] = []


def _add(name, fn, make_args, wrt, category, autograd=True, rtol=None, atol=None):
    assert category in CATEGORIES, category
    kw = {}
    if rtol is not None:
        kw["rtol"] = rtol
    if atol is not None:
        kw["atol"] = atol
    CASES.append(Case(name, fn, make_args, tuple(wrt), category, autograd, **kw))


def _rng(seed):
    return np.random.default_rng(seed)


def _normal(seed, shape, scale=1.0, shift=0.0):
    return _rng(seed).normal(size=shape) * scale + shift


def _uniform(seed, shape, lo, hi):
    return _rng(seed).uniform(lo, hi, size=shape)


def _away(a, points, gap=0.05):
    """Push every element of ``a`` at least ``gap`` away from each of ``points``
    (keeps branch boundaries, kinks and ties away from the test point)."""
    a = np.array(a, dtype=np.float64)
    for p in points:
        close = np.abs(a - p) < gap
        a = np.where(close, np.where(a >= p, p + gap, p - gap), a)
    return a


def _idx(*values):
    return np.array(values, dtype=np.int64)


# ---------------------------------------------------------------------------
# scalar arithmetic
# ---------------------------------------------------------------------------
_add("sa_poly", cf.sa_poly, lambda: (1.3, -0.7), (0, 1), "scalar_arith")
_add("sa_rational", cf.sa_rational, lambda: (1.2, 2.5, 0.4), (0, 1, 2), "scalar_arith")
_add("sa_aug_assign", cf.sa_aug_assign, lambda: (1.1, 0.6), (0, 1), "scalar_arith")
_add("sa_tuple_swap", cf.sa_tuple_swap, lambda: (0.8, 1.7), (0, 1), "scalar_arith")
_add("sa_int_float_mix", cf.sa_int_float_mix, lambda: (1.25, 4), (0,), "scalar_arith")
_add("sa_overwrite", cf.sa_overwrite, lambda: (0.9,), (0,), "scalar_arith")
_add("sa_pow_forms", cf.sa_pow_forms, lambda: (1.4, 2.3), (0, 1), "scalar_arith")

# ---------------------------------------------------------------------------
# math module
# ---------------------------------------------------------------------------
_add("mf_trig", cf.mf_trig, lambda: (0.7, 1.9), (0, 1), "math_funcs")
_add("mf_exp_log", cf.mf_exp_log, lambda: (1.3,), (0,), "math_funcs")
_add("mf_sqrt_tanh", cf.mf_sqrt_tanh, lambda: (1.2, 0.8), (0, 1), "math_funcs")
_add("mf_atan2_hypot", cf.mf_atan2_hypot, lambda: (1.1, 0.7), (0, 1), "math_funcs")
_add("mf_atan2_hypot_q2", cf.mf_atan2_hypot, lambda: (-0.9, 0.6), (0, 1), "math_funcs")
_add("mf_fabs_pow", cf.mf_fabs_pow, lambda: (1.5, 1.2), (0, 1), "math_funcs")
_add("mf_constants", cf.mf_constants, lambda: (0.35,), (0,), "math_funcs")
_add("mf_softplus", cf.mf_softplus, lambda: (0.4, -0.3), (0, 1), "math_funcs")

# ---------------------------------------------------------------------------
# branches
# ---------------------------------------------------------------------------
_add("br_piecewise_neg", cf.br_piecewise, lambda: (-0.6,), (0,), "branches")
_add("br_piecewise_mid", cf.br_piecewise, lambda: (0.45,), (0,), "branches")
_add("br_piecewise_hi", cf.br_piecewise, lambda: (1.7,), (0,), "branches")
_add("br_and_or_not_both", cf.br_and_or_not, lambda: (0.7, 0.9), (0, 1), "branches")
_add("br_and_or_not_one", cf.br_and_or_not, lambda: (0.8, -0.4), (0, 1), "branches")
_add("br_and_or_not_none", cf.br_and_or_not, lambda: (-0.5, -1.5), (0, 1), "branches")
_add("br_bool_flag_true", cf.br_bool_flag, lambda: (0.6, 1.1, True), (0, 1), "branches")
_add("br_bool_flag_false", cf.br_bool_flag, lambda: (0.6, 1.1, False), (0, 1), "branches")
_add("br_nested_a", cf.br_nested, lambda: (3.0, 1.0), (0, 1), "branches")
_add("br_nested_b", cf.br_nested, lambda: (1.5, 1.0), (0, 1), "branches")
_add("br_nested_c", cf.br_nested, lambda: (0.5, 3.5), (0, 1), "branches")
_add("br_nested_d", cf.br_nested, lambda: (1.0, 2.0), (0, 1), "branches")
_add("br_on_array_pos", cf.br_on_array_value,
     lambda: (_normal(11, 6, 1.0, 0.6),), (0,), "branches")
_add("br_on_array_neg", cf.br_on_array_value,
     lambda: (_normal(12, 6, 1.0, -0.6),), (0,), "branches")
_add("br_in_loop", cf.br_in_loop,
     lambda: (_away(_uniform(13, 8, -1.5, 1.5), (0.0, -0.5)), 8), (0,), "branches")
_add("br_bool_locals_a", cf.br_bool_locals, lambda: (1.5, -0.5), (0, 1), "branches")
_add("br_bool_locals_b", cf.br_bool_locals, lambda: (0.5, 0.7), (0, 1), "branches")

# ---------------------------------------------------------------------------
# while loops
# ---------------------------------------------------------------------------
_add("wh_grow", cf.wh_grow, lambda: (1.7,), (0,), "while_loops")
_add("wh_counter", cf.wh_counter, lambda: (0.9, 1.3), (0, 1), "while_loops")
_add("wh_decay", cf.wh_decay, lambda: (2.2, 0.83), (0, 1), "while_loops")
_add("wh_two_conditions", cf.wh_two_conditions, lambda: (1.0, 4.3), (0, 1), "while_loops")
_add("wh_array_norm", cf.wh_array_norm, lambda: (_normal(21, 5, 1.5),), (0,), "while_loops")
_add("wh_branch_inside", cf.wh_branch_inside, lambda: (1.3,), (0,), "while_loops")

# ---------------------------------------------------------------------------
# break / continue
# ---------------------------------------------------------------------------
_add("bc_break_threshold", cf.bc_break_threshold,
     lambda: (_normal(31, 10), 10), (0,), "break_continue")
_add("bc_continue_negative", cf.bc_continue_negative,
     lambda: (_away(_uniform(32, 8, -1.0, 2.0), (0.0,), 0.1),), (0,), "break_continue")
_add("bc_while_true_break", cf.bc_while_true_break, lambda: (1.2,), (0,), "break_continue")
_add("bc_break_continue_mix", cf.bc_break_continue_mix,
     lambda: (_normal(34, 12), 1.1), (0, 1), "break_continue")
_add("bc_break_inner", cf.bc_break_inner,
     lambda: (_away(_uniform(35, (4, 5), -1.5, 1.5), (1.0,)),), (0,), "break_continue")
_add("bc_continue_rows", cf.bc_continue_rows,
     lambda: (_normal(36, (6, 3)), _normal(37, 3)), (0, 1), "break_continue")

# ---------------------------------------------------------------------------
# early return
# ---------------------------------------------------------------------------
_add("er_scalar_a", cf.er_scalar, lambda: (2.5,), (0,), "early_return")
_add("er_scalar_b", cf.er_scalar, lambda: (1.5,), (0,), "early_return")
_add("er_scalar_c", cf.er_scalar, lambda: (0.5,), (0,), "early_return")
_add("er_in_for_returns", cf.er_in_for,
     lambda: (_uniform(41, 8, 0.0, 1.0), 8), (0,), "early_return")
_add("er_in_for_falls_through", cf.er_in_for,
     lambda: (_uniform(42, 8, 0.0, 0.1), 8), (0,), "early_return")
_add("er_in_while_returns", cf.er_in_while, lambda: (1.9,), (0,), "early_return")
_add("er_in_while_falls_through", cf.er_in_while, lambda: (1.5,), (0,), "early_return")
_add("er_array_big", cf.er_array, lambda: (_normal(43, 6, 2.0, 2.5),), (0,), "early_return")
_add("er_array_small", cf.er_array, lambda: (_normal(44, 6, 1.0),), (0,), "early_return")
_add("er_bool_flag_true", cf.er_bool_flag, lambda: (1.3, 0.7, True), (0, 1), "early_return")
_add("er_bool_flag_false", cf.er_bool_flag, lambda: (1.3, 0.7, False), (0, 1), "early_return")
_add("er_nested_loop", cf.er_nested_loop,
     lambda: (_uniform(45, (4, 4), 0.0, 1.0), 0.8), (0, 1), "early_return")

# ---------------------------------------------------------------------------
# nested loops
# ---------------------------------------------------------------------------
_add("nl_sum_products", cf.nl_sum_products,
     lambda: (_normal(51, (4, 3)), _normal(52, 3)), (0, 1), "nested_loops")
_add("nl_triangular", cf.nl_triangular, lambda: (_normal(53, 6), 6), (0,), "nested_loops")
_add("nl_range_step", cf.nl_range_step, lambda: (_normal(54, 7),), (0,), "nested_loops")
_add("nl_while_in_for", cf.nl_while_in_for, lambda: (0.7, 4), (0,), "nested_loops")
_add("nl_manual_matvec", cf.nl_manual_matvec,
     lambda: (_normal(55, (3, 4)), _normal(56, 4)), (0, 1), "nested_loops")
_add("nl_three_levels", cf.nl_three_levels, lambda: (_normal(57, 3),), (0,), "nested_loops")

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
_add("hp_simple", cf.hp_simple, lambda: (0.7, 1.8), (0, 1), "helpers")
_add("hp_tuple_return", cf.hp_tuple_return, lambda: (1.2, 0.9), (0, 1), "helpers")
_add("hp_chain", cf.hp_chain, lambda: (0.8,), (0,), "helpers")
_add("hp_array", cf.hp_array, lambda: (_normal(61, 4), _normal(62, (3, 4))), (0, 1), "helpers")
_add("hp_tuple_stats", cf.hp_tuple_stats, lambda: (_normal(63, 6),), (0,), "helpers")
_add("hp_in_loop", cf.hp_in_loop, lambda: (_normal(64, 5), 5), (0,), "helpers")
_add("hp_branchy", cf.hp_branchy, lambda: (1.2, 0.5), (0, 1), "helpers")
_add("hp_mixed_tuple", cf.hp_mixed_tuple,
     lambda: (_normal(65, 3, 0.5), _normal(66, (2, 3)), _normal(67, 2)), (0, 1, 2), "helpers")

# ---------------------------------------------------------------------------
# recursion
# ---------------------------------------------------------------------------
_add("rc_power", cf.rc_power, lambda: (1.1, 7), (0,), "recursion")
_add("rc_horner", cf.rc_horner, lambda: (_normal(71, 6), 0.7, 0), (0, 1), "recursion")
_add("rc_continued_fraction", cf.rc_continued_fraction, lambda: (1.3, 8), (0,), "recursion")
_add("rc_sum_array", cf.rc_sum_array, lambda: (_normal(72, 6), 5), (0,), "recursion")
_add("rc_fib_like", cf.rc_fib_like, lambda: (0.3, 0.6, 9), (0, 1), "recursion")
_add("rc_tuple", cf.rc_tuple, lambda: (0.9, 6), (0,), "recursion")

# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------
_add("ew_sin_exp", cf.ew_sin_exp, lambda: (_normal(81, (2, 3)),), (0,), "elementwise")
_add("ew_log_sqrt", cf.ew_log_sqrt, lambda: (_uniform(82, 6, 0.5, 3.0),), (0,), "elementwise")
_add("ew_tanh_tan", cf.ew_tanh_tan, lambda: (_normal(83, 5), _normal(84, 5)), (0, 1),
     "elementwise")
_add("ew_arctan2_hypot", cf.ew_arctan2_hypot,
     lambda: (_away(_normal(85, (3, 4)), (0.0,), 0.2), _normal(86, (3, 4))), (0, 1),
     "elementwise")
_add("ew_abs_sign", cf.ew_abs_sign, lambda: (_away(_normal(87, 6), (0.0,), 0.1),), (0,),
     "elementwise")
_add("ew_max_min_where", cf.ew_max_min_where,
     lambda: (_normal(88, 6), _normal(89, 6)), (0, 1), "elementwise")
_add("ew_clip", cf.ew_clip, lambda: (_away(_normal(90, 7, 1.5), (-1.0, 1.0)),), (0,),
     "elementwise")
_add("ew_pow_div", cf.ew_pow_div, lambda: (_uniform(91, 5, 0.5, 2.0), _normal(92, 5)), (0, 1),
     "elementwise")
_add("ew_rank3", cf.ew_rank3, lambda: (_normal(93, (2, 3, 4)),), (0,), "elementwise")
_add("ew_matrix_chain", cf.ew_matrix_chain, lambda: (_normal(94, (3, 3)),), (0,), "elementwise")

# ---------------------------------------------------------------------------
# broadcasting
# ---------------------------------------------------------------------------
_add("bd_scalar_array", cf.bd_scalar_array, lambda: (_normal(101, 5), 1.3), (0, 1),
     "broadcasting")
_add("bd_matrix_row", cf.bd_matrix_row, lambda: (_normal(102, (4, 3)), _normal(103, 3)),
     (0, 1), "broadcasting")
_add("bd_col_row", cf.bd_col_row, lambda: (_normal(104, (4, 1)), _normal(105, (1, 3))),
     (0, 1), "broadcasting")
_add("bd_reshape_outer", cf.bd_reshape_outer, lambda: (_normal(106, 4), _normal(107, 3)),
     (0, 1), "broadcasting")
_add("bd_center_rows", cf.bd_center_rows, lambda: (_normal(108, (3, 5)),), (0,),
     "broadcasting")
_add("bd_rank3_vec", cf.bd_rank3_vec, lambda: (_normal(109, (2, 3, 4)), _normal(110, 4)),
     (0, 1), "broadcasting")
_add("bd_scalar_maxmin", cf.bd_scalar_maxmin,
     lambda: (_away(_normal(111, (3, 4)), (0.2, 5.0)), 0.2), (0, 1), "broadcasting")

# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------
_add("rd_sum_axis0", cf.rd_sum_axis0, lambda: (_normal(121, (4, 3)),), (0,), "reductions")
_add("rd_sum_axis1", cf.rd_sum_axis1, lambda: (_normal(122, (4, 3)), _normal(123, 4)),
     (0, 1), "reductions")
_add("rd_mean_axes", cf.rd_mean_axes, lambda: (_normal(124, (3, 4)),), (0,), "reductions")
_add("rd_max_min", cf.rd_max_min, lambda: (_normal(125, 7),), (0,), "reductions")
_add("rd_max_min_axis", cf.rd_max_min_axis, lambda: (_normal(126, (4, 5)),), (0,),
     "reductions")
_add("rd_logsumexp", cf.rd_logsumexp, lambda: (_normal(127, 6),), (0,), "reductions")
_add("rd_softmax_xent", cf.rd_softmax_xent,
     lambda: (_normal(128, (5, 4)), _idx(0, 3, 1, 1, 2)), (0,), "reductions")
_add("rd_variance", cf.rd_variance, lambda: (_normal(129, 8),), (0,), "reductions")

# ---------------------------------------------------------------------------
# dot / matmul / outer
# ---------------------------------------------------------------------------
_add("la_dot_vec", cf.la_dot_vec, lambda: (_normal(131, 5), _normal(132, 5)), (0, 1), "linalg")
_add("la_matvec", cf.la_matvec, lambda: (_normal(133, (3, 4)), _normal(134, 4)), (0, 1),
     "linalg")
_add("la_matmul", cf.la_matmul, lambda: (_normal(135, (3, 4)), _normal(136, (4, 2))), (0, 1),
     "linalg")
_add("la_dot_nested", cf.la_dot_nested,
     lambda: (_normal(137, (3, 3)), _normal(138, (3, 3)), _normal(139, 3)), (0, 1, 2),
     "linalg")
_add("la_outer", cf.la_outer, lambda: (_normal(140, 4), _normal(141, 3)), (0, 1), "linalg")
_add("la_quadratic_T", cf.la_quadratic_T, lambda: (_normal(142, (3, 4)), _normal(143, 4)),
     (0, 1), "linalg")
_add("la_transpose", cf.la_transpose, lambda: (_normal(144, (4, 3)), _normal(145, (4, 2))),
     (0, 1), "linalg")
_add("la_vec_mat", cf.la_vec_mat, lambda: (_normal(146, 4), _normal(147, (4, 3))), (0, 1),
     "linalg")

# ---------------------------------------------------------------------------
# indexing, slicing, gathers with repeated indices
# ---------------------------------------------------------------------------
_add("ix_scalar_reads", cf.ix_scalar_reads, lambda: (_normal(151, 5),), (0,), "indexing")
_add("ix_2d_reads", cf.ix_2d_reads, lambda: (_normal(152, (4, 4)), 2, 1), (0,), "indexing")
_add("ix_slices", cf.ix_slices, lambda: (_normal(153, 7),), (0,), "indexing")
_add("ix_column_row", cf.ix_column_row, lambda: (_normal(154, (4, 4)), 2), (0,), "indexing")
_add("ix_gather_repeated", cf.ix_gather_repeated,
     lambda: (_normal(155, 5), _idx(0, 2, 2, 4, 0, 2)), (0,), "indexing")
_add("ix_gather_rows", cf.ix_gather_rows,
     lambda: (_normal(156, (4, 3)), _idx(1, 1, 3, 0, 1)), (0,), "indexing")
_add("ix_loop_gather", cf.ix_loop_gather,
     lambda: (_normal(157, 5), _idx(3, 3, 1, 0, 3, 4)), (0,), "indexing")
_add("ix_row_reads", cf.ix_row_reads, lambda: (_normal(158, (3, 4)),), (0,), "indexing")
_add("ix_slice_2d", cf.ix_slice_2d, lambda: (_normal(159, (4, 4)),), (0,), "indexing")

# ---------------------------------------------------------------------------
# in-place writes (autograd cannot express them)
# ---------------------------------------------------------------------------
_add("ip_fill_zeros", cf.ip_fill_zeros, lambda: (_normal(161, 6),), (0,), "inplace",
     autograd=False)
_add("ip_scatter_add", cf.ip_scatter_add,
     lambda: (_normal(162, 7), _idx(0, 2, 2, 1, 0, 2, 2)), (0,), "inplace", autograd=False)
_add("ip_copy_overwrite", cf.ip_copy_overwrite, lambda: (_normal(163, 5),), (0,), "inplace",
     autograd=False)
_add("ip_empty_fill_2d", cf.ip_empty_fill_2d, lambda: (_normal(164, (3, 4)),), (0,),
     "inplace", autograd=False)
_add("ip_cumsum", cf.ip_cumsum, lambda: (_normal(165, 6),), (0,), "inplace", autograd=False)
_add("ip_same_slot", cf.ip_same_slot, lambda: (_normal(166, 6, 0.5),), (0,), "inplace",
     autograd=False)
_add("ip_stencil", cf.ip_stencil, lambda: (_normal(167, 8), 5), (0,), "inplace",
     autograd=False)
_add("ip_augmented_2d", cf.ip_augmented_2d, lambda: (_normal(168, (4, 3)), 0.7), (0, 1),
     "inplace", autograd=False)

# ---------------------------------------------------------------------------
# RNN-style loops
# ---------------------------------------------------------------------------
_add("rnn_tanh", cf.rnn_tanh,
     lambda: (_normal(171, (4, 4), 0.5), _normal(172, (4, 3), 0.5), _normal(173, 4, 0.1),
              _normal(174, (6, 3)), _normal(175, 4, 0.1)),
     (0, 1, 2, 3, 4), "rnn")
_add("rnn_loss_all_steps", cf.rnn_loss_all_steps,
     lambda: (_normal(176, (4, 4), 0.5), _normal(177, (4, 3), 0.5), _normal(178, 4, 0.1),
              _normal(179, (5, 3)), _normal(180, (2, 4))),
     (0, 1, 2, 3, 4), "rnn")
_add("rnn_rows_iter", cf.rnn_rows_iter,
     lambda: (_normal(181, (3, 3), 0.5), _normal(182, (3, 2)), _normal(183, (5, 2))),
     (0, 1, 2), "rnn")
_add("rnn_gru_like", cf.rnn_gru_like,
     lambda: (_normal(184, (3, 5), 0.5), _normal(185, (3, 5), 0.5), _normal(186, (5, 2))),
     (0, 1, 2), "rnn")
_add("rnn_lstm_like", cf.rnn_lstm_like,
     lambda: (_normal(187, (3, 5), 0.5), _normal(188, (3, 5), 0.5), _normal(189, (3, 5), 0.5),
              _normal(190, (3, 5), 0.5), _normal(191, (4, 2))),
     (0, 1, 2, 3, 4), "rnn")
_add("rnn_scalar", cf.rnn_scalar, lambda: (_normal(192, 10), 0.8, 0.6), (0, 1, 2), "rnn")

# ---------------------------------------------------------------------------
# ODE integrators
# ---------------------------------------------------------------------------
_add("ode_euler_decay", cf.ode_euler_decay, lambda: (1.5, 0.8, 50), (0, 1), "ode")
_add("ode_rk4_pendulum", cf.ode_rk4_pendulum, lambda: (0.6, 0.1, 2.0, 40), (0, 1, 2), "ode")
_add("ode_rk4_system", cf.ode_rk4_system,
     lambda: (_normal(201, (3, 3), 0.5) - 0.3 * np.eye(3), _normal(202, 3), 30), (0, 1), "ode")
_add("ode_projectile_event", cf.ode_projectile_event, lambda: (10.1, 0.8, 0.02), (0, 1, 2),
     "ode")
_add("ode_heun_adaptive", cf.ode_heun_adaptive, lambda: (1.0, 0.7, 3.0), (0, 1, 2), "ode")
_add("ode_time_to_threshold", cf.ode_time_to_threshold, lambda: (0.105, 2.0), (0, 1), "ode")

# ---------------------------------------------------------------------------
# Newton iterations
# ---------------------------------------------------------------------------
_add("nt_sqrt", cf.nt_sqrt, lambda: (2.7,), (0,), "newton")
_add("nt_cubic_param", cf.nt_cubic_param, lambda: (3.0, 1.5), (0, 1), "newton")
_add("nt_kepler", cf.nt_kepler, lambda: (1.1, 0.3), (0, 1), "newton")
_add("nt_vector", cf.nt_vector, lambda: (_normal(211, 5, 1.5),), (0,), "newton")
_add("nt_2d_system", cf.nt_2d_system, lambda: (5.3, 1.9), (0, 1), "newton")

# ---------------------------------------------------------------------------
# float32 arrays
# ---------------------------------------------------------------------------
_add("f32_elementwise", cf.f32_elementwise,
     lambda: (_normal(221, 6).astype(np.float32),), (0,), "float32",
     rtol=F32_RTOL, atol=F32_ATOL)
_add("f32_matvec", cf.f32_matvec,
     lambda: (_normal(222, (3, 4)).astype(np.float32), _normal(223, 4).astype(np.float32)),
     (0, 1), "float32", rtol=F32_RTOL, atol=F32_ATOL)
_add("f32_loop", cf.f32_loop, lambda: (_normal(224, 6).astype(np.float32), 0.9), (0, 1),
     "float32", rtol=F32_RTOL, atol=F32_ATOL)

# ---------------------------------------------------------------------------
# names a naive AD tool could collide with
# ---------------------------------------------------------------------------
_add("nm_collisions", cf.nm_collisions, lambda: (0.8, 1.3), (0, 1), "names")
_add("nm_adjoint_like", cf.nm_adjoint_like, lambda: (0.7, 1.2), (0, 1), "names")
_add("nm_params", cf.nm_params, lambda: (0.9, 1.1, 0.4, 0.6), (0, 1, 2, 3), "names")
_add("nm_math_names", cf.nm_math_names, lambda: (_normal(231, 5),), (0,), "names")
_add("nm_loopvar_reuse", cf.nm_loopvar_reuse, lambda: (_normal(232, 5), 5), (0,), "names")


CASES_BY_NAME: dict[str, Case] = {c.name: c for c in CASES}
assert len(CASES_BY_NAME) == len(CASES), "duplicate case names"


def entry_functions():
    """All entry functions of corpus_funcs (every function not named helper_*)."""
    import inspect

    return {
        name: f
        for name, f in vars(cf).items()
        if inspect.isfunction(f) and f.__module__ == cf.__name__ and not name.startswith("helper_")
    }
