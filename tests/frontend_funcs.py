"""Functions for tests/test_frontend.py (jitad reads their source, so they live in a file).

Lines marked `# ERR: <text>` are where jitad must report an error, with <text> in its message.
"""
import math
import statistics
from math import erf

import numpy as np
import scipy.special
from numpy import nanmedian as nanmedian_

import jitad

# ------------------------------------------------------------------ names generated code uses


def helper_sin(np):
    """A helper whose parameter is called `np`."""
    return math.sin(np) * 2.0


def helper_arr(rt, saved):
    """Parameters `rt` and `saved`, a local `d_out`."""
    d_out = rt * saved
    return np.sum(d_out * d_out)


def tape_f(top_f, trips):
    """A helper named like a tape, parameters named like a tape's top and a trip count,
    called inside a loop (its vjp re-runs it)."""
    k = top_f
    while k < 2.0:
        k = k * 1.5 + trips
    return k


def saved(d_x, g):
    """A helper named `saved`, called once at the top level (split into fwd/bwd halves that
    pass a `saved` tuple), parameters `d_x` and `g`."""
    y = d_x * g
    return np.sum(y * y)


def shadow_modules(v, w):
    np = v * w
    math = np.sum()
    rt = math
    while rt < 10.0:
        rt = rt * rt * 0.05 + rt * 1.5 + w
    return rt + helper_sin(w) + helper_arr(np, v)


def shadow_builtins(v, w):
    range = 0
    bool = 0.0
    _ = w * 2.0
    while range < 3:
        if v[range] > 0.0:
            bool = bool + _ * v[range]
        else:
            bool = bool - w
        range = range + 1
    max = bool * w
    min = max * max
    abs = min + max
    len = abs * 2.0
    int = len + 1.0
    float = int * v[0]
    return float


def generated_names(v, w):
    tape_f_ = 0.0
    top_f = 0.0
    trips = 0.0
    d_x = v * w
    saved_ = d_x * 2.0
    k = 0
    s = 0.0
    d_v = 0.0
    while k < 3:
        g = saved_[k] * w
        y = math.sin(g)
        tape_f_ = tape_f_ + y * g
        top_f = top_f * w + tape_f_
        k = k + 1
    for k2 in range(3):
        d_out = d_x[k2] * top_f
        trips = trips + d_out * d_out
        s = s + helper_arr(d_x, saved_)
        d_v = d_v + tape_f(w, d_out * 0.01)
    return trips + s + top_f + d_v


def generated_names_2(v, w):
    """More of reverse's names (adjoint temporaries, tapes of each kind, saved call state)."""
    tape_b = 0.0
    top_b = 0
    tape_i = w
    top_i = 0.0
    g_w = w * 2.0
    w_new = g_w + 1.0
    cond = 0.0
    go = 1.0
    returned = 0.0
    broke = 0.0
    r = saved(v, w_new)
    out_saved = r
    while top_b < 3:
        if v[top_b] > 0.0:
            cond = cond + tape_i * v[top_b]
        top_b = top_b + 1
        tape_i = tape_i * 0.5 + go
    for i in range(4):
        if i == 2:
            break
        returned = returned + broke * w + cond
        broke = broke + 1.0
        top_i = top_i + returned * w
    return top_i + out_saved + r * tape_b


def d_out(x):
    return x * x * 3.0


def vjp_names(x, vjp_names_vjp, vjp_names_grad):
    """Parameters and locals named like the functions generated for this one; a helper
    named `d_out` (the name of the cotangent seed)."""
    vjp_names_value_and_grad = x * vjp_names_vjp + d_out(vjp_names_grad)
    d_out_fwd = vjp_names_value_and_grad * x
    return d_out_fwd + d_out(x)


@jitad.primitive(x="g / (1.0 + np.exp(-x))")
def fe_softplus(x):
    return np.log1p(np.exp(x))


def primitive_name(x):
    prim_fe_softplus = x * 2.0
    return fe_softplus(prim_fe_softplus) + prim_fe_softplus


def train_loss(rt, W, u, i):
    """A loss for train_step whose parameter and locals are named like runtime/update names."""
    s = rt[u]
    r = W[i]
    k = 0.5
    acc_W = s * r
    marks_W = np.sum(acc_W)
    rows_W = marks_W * marks_W
    W_i0 = rows_W + k
    return W_i0 + np.sum(W * W) * 0.01


# ------------------------------------------------------------------ library functions


def uses_nanmedian(x):
    a = np.nanmedian(np.ones(3) * x)  # ERR: np.nanmedian has no derivative rule in jitad
    return np.sum(a * x)


def uses_nanmedian_alias(x):
    a = nanmedian_(np.ones(3) * x)  # ERR: nanmedian_ has no derivative rule in jitad
    return np.sum(a * x)


def uses_unravel_index(x):
    r = np.unravel_index(3, (2, 2))  # ERR: np.unravel_index has no derivative rule in jitad
    return x


def uses_row_stack(x, v):
    m = np.row_stack((v * x, v))  # ERR: np.row_stack has no derivative rule in jitad
    return np.sum(m) * x


def uses_matrix_cond(x, m):
    y = np.linalg.cond(m * x, 1)  # ERR: np.linalg.cond has no derivative rule in jitad
    return np.sum(y)


def uses_unwrap(v):
    return np.sum(np.unwrap(v))  # ERR: np.unwrap has no derivative rule in jitad


def uses_ellipk(x):
    return scipy.special.ellipk(x)  # ERR: scipy.special.ellipk has no derivative rule in jitad


def uses_stdlib(v):
    return statistics.fmean(v)  # ERR: statistics.fmean has no derivative rule in jitad


def uses_ldexp(x):
    return math.ldexp(x, 2) * 3.0  # ERR: math.ldexp has no derivative rule in jitad


# ------------------------------------------------------------------ rules added by defvjp


def calls_erf(x):
    return math.erf(x) * 3.0 + erf(x * 0.5)


def calls_erfc(x):
    return math.erfc(x * 2.0)


def calls_expit(x, v):
    return scipy.special.expit(x) + np.sum(scipy.special.expit(v * x))


def calls_cumsum(v, c):
    return np.sum(np.cumsum(v * v) * c)


def fe_scaled(x):
    return x * x


def fe_scaled_by_name(x):
    return x * x


@jitad.differentiable
def fe_decorated(x):
    return x * x


def calls_decorated(x):
    return fe_decorated(x) + 1.0


def calls_decorated_after_rule(x):
    return fe_decorated(x) + 1.0


def calls_scaled(x):
    return fe_scaled(x) + 1.0


def calls_scaled_by_name(x):
    return fe_scaled_by_name(x) + 1.0


# ------------------------------------------------------------------ chained comparisons


def chain_if(x):
    if 0.0 < x < 1.0:
        return x * 2.0
    return x * x


def chain_if_negative_bound(x):
    if -0.5 < x < 1.0:
        return x * 2.0
    return x


def chain_if_index(x, n):
    s = 0.0
    for i in range(-1, n + 1):
        if 0 < i < n:
            s = s + x * i
    return s


def chain_while(x):
    while 0.0 < x < 10.0:
        x = x * 1.5 + 0.1
    return x


def chain_while_index(x, n):
    i = 0
    s = 0.0
    while 0 <= i < n:
        s = s + x * i
        i = i + 1
    return s


def chain_value(x):
    b = 0.0 < x < 1.0
    c = float(-1.0 < x < 0.0)
    return x * b + x * x * c


def chain_constant(x):
    y = x
    if 0 < 1 < 2:
        y = y * 2.0
    if 1 < 0 < 2:
        y = y * 3.0
    b = 0.0 < 1.0 < 2.0
    return y * b


def chain_constant_while(x):
    while 0 < 1 < 2 and x < 10.0:
        x = x * 2.0
    return x


def chain_mixed(x, v):
    s = 0.0
    for i in range(3):
        if not (-1.0 < v[i] * x < 1.0) or 0 < i < 1:
            s = s + v[i] * x
        s = s + (x if 0.0 <= v[i] < 2.0 else -x)
    return s


# ------------------------------------------------------------------ pow at a zero base


def pow_zero_base(y):
    return 0.0 ** y


def pow_zero_base_np(a, b):
    return np.sum(np.power(a, b))


def pow_zero_base_math(a, b):
    return math.pow(a, b)


def pow_operator(a, b):
    return np.sum(a ** b)


def pow_int_exponents(x):
    return x ** 1 + x ** 2 + x ** 3 + x ** 0 + x ** 2.0 + x ** 1.0


def pow_variable_exponent(x, n):
    return x ** n


# ------------------------------------------------------------------ ties of max / min


def tie_max(x):
    return np.max(x) * 2.0


def tie_max_replaced_rule(x):
    return np.max(x) * 2.0


def tie_min_method(x):
    return x.min() * 2.0


def tie_max_axis0(X, c):
    return np.sum(np.max(X, axis=0) * c)


def tie_max_axis1(X, c):
    return np.sum(X.max(axis=1) * c)


def tie_min_axis0(X, c):
    return np.sum(np.min(X, axis=0) * c)


def tie_min_axis1(X, c):
    return np.sum(np.min(X, axis=1) * c)


def tie_maximum(a, b, c):
    return np.sum(np.maximum(a, b) * c)


def tie_minimum(a, b, c):
    return np.sum(np.minimum(a, b) * c)


def tie_maximum_broadcast(a, s):
    return np.sum(np.maximum(a, s) * a)


def tie_minimum_broadcast(a, s):
    return np.sum(np.minimum(s, a))


def tie_relu(x):
    return np.sum(np.maximum(x, 0.0) * 3.0)


def tie_builtin_max(a, b):
    return max(a, b) * 3.0


def tie_builtin_min(a, b):
    return min(a, b) * 3.0


def int_and_float_constants(x, n):
    return x * (n + 1) + x * (n + 1.0) + x ** 2 + x ** 2.0


def chain_calls(x, v):
    if 0.0 < helper_sin(x) < np.sum(v * x) < 3.0:
        return x * 2.0
    return x * x


def chain_guarded_index(x, v, i):
    if i < 3 < v.shape[0] + 0 * v[i]:
        return x * v[i]
    return x


def fit_loss(order, k, u, i):
    """A loss for fit whose parameters are named like the epoch loop's locals."""
    return np.sum(order[u] * k[i]) ** 2 * 0.5 + 0.01 * np.sum(k * k)


def fe_later(x):
    return fe_scaled(x) * 1.0


def _median_of(d):
    return np.nanmedian(d)  # ERR: np.nanmedian has no derivative rule in jitad


def _scaled_median(x, d):
    return x * _median_of(d)


def median_of_data_in_helpers(x, d):
    return _scaled_median(x, d) + _scaled_median(d[0], d) * 0.0 + x * x
