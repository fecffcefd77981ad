# Gradient test corpus for jitad: plain Python/NumPy functions.
#
# Every function here is written in the language subset jitad supports:
#   * only `math` and `np` are used from the module globals (plus other
#     functions of this module and the builtin `range`);
#   * float/int scalars, float64 (a few float32) arrays, int/bool arguments
#     and int index arrays;
#   * no lists, dicts, strings, lambdas, comprehensions, with/try, globals,
#     conditional expressions, chained comparisons, `%` or `//`;
#   * every local keeps one kind (scalar / array of a fixed rank and dtype);
#   * array element writes only on arrays created inside the function.
#
# Functions whose name starts with `helper_` are helpers called by the entry
# functions; every other function is an entry function that returns a single
# float scalar.  The cases (arguments, wrt, category) live in tests/corpus.py.
#
# Comments (not docstrings) are used on purpose: a docstring is a string
# constant, which is outside the subset.

import math

import numpy as np


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def helper_sq(x):
    return x * x


def helper_cube_plus(a, x):
    return a * x + x ** 3


def helper_norm2(x, y):
    # helper calling a helper
    return math.sqrt(helper_sq(x) + helper_sq(y))


def helper_polar(x, y):
    r = math.hypot(x, y)
    th = math.atan2(y, x)
    return r, th


def helper_rot(a, b):
    c = math.cos(b)
    s = math.sin(b)
    return c * a - s * b, s * a + c * b


def helper_smooth_branch(x, y):
    # helper with an early return
    if x > y:
        return x + 0.1 * y
    return y + 0.1 * x * x


def helper_mean_var(x):
    m = np.mean(x)
    v = np.mean((x - m) ** 2)
    return m, v


def helper_stats3(x):
    return np.sum(x), np.max(x), np.min(x)


def helper_layer(W, x):
    return np.tanh(W @ x)


def helper_affine(W, b, x):
    return np.dot(W, x) + b


def helper_split(x):
    # returns (array, scalar)
    return x * 2.0, np.sum(x)


def helper_sigmoid(z):
    return 1.0 / (1.0 + math.exp(-z))


def helper_sigmoid_vec(z):
    return 1.0 / (1.0 + np.exp(-z))


def helper_pend_rhs(th, om, c):
    return om, -c * math.sin(th)


def helper_rhs_vec(A, u):
    return A @ u - 0.1 * u ** 3


# ---------------------------------------------------------------------------
# scalar arithmetic
# ---------------------------------------------------------------------------

def sa_poly(x, y):
    return 3.0 * x ** 3 - 2.0 * x * y + y ** 2 / (1.0 + x * x) - 7.0


def sa_rational(a, b, c):
    t = (a + b) / (b - c)
    u = -t * a + c / a
    return t * u - (a - c) ** 2


def sa_aug_assign(x, y):
    z = x
    z += y
    z *= x
    z -= 0.5 * y
    z /= 1.0 + y * y
    z **= 2
    return z


def sa_tuple_swap(a, b):
    a, b = b, a
    a, b = a * b, a - b
    return a + 2.0 * b


def sa_int_float_mix(x, n):
    k = n * 2 + 1
    y = x * k
    y = y + n / 3
    return y * x - k


def sa_overwrite(x):
    t = x * x
    t = t + x
    t = t * t - x
    x = t / (1.0 + x)
    return x * 0.5 + t


def sa_pow_forms(x, p):
    return -(x ** p) + (-x) ** 2 + x ** -1.5 + 2.0 ** x


# ---------------------------------------------------------------------------
# math module functions
# ---------------------------------------------------------------------------

def mf_trig(x, y):
    return math.sin(x) * math.cos(y) + math.tan(0.3 * x)


def mf_exp_log(x):
    return math.exp(0.5 * x) - math.log(x) + math.log1p(x * x)


def mf_sqrt_tanh(x, y):
    return math.sqrt(x * x + y) + math.tanh(x - y)


def mf_atan2_hypot(x, y):
    return math.atan2(y, x) * math.hypot(x, y)


def mf_fabs_pow(x, y):
    return math.fabs(x - 2.0 * y) + math.pow(x, y)


def mf_constants(x):
    return math.sin(math.pi * x) / (1.0 + math.exp(-x)) + math.e ** x


def mf_softplus(x, y):
    return math.log(1.0 + math.exp(x)) + math.log1p(math.exp(-y))


# ---------------------------------------------------------------------------
# branches
# ---------------------------------------------------------------------------

def br_piecewise(x):
    if x < 0.0:
        y = x * x
    elif x < 1.0:
        y = math.sin(x)
    else:
        y = 2.0 * x - 1.0
    return y * 3.0


def br_and_or_not(x, y):
    if x > 0.0 and y > 0.0:
        r = x * y
    elif x > 0.0 or y > 0.0:
        r = x + y
    else:
        r = -x * y
    if not (r > 1.0):
        r = r * r
    return r


def br_bool_flag(x, y, flag):
    z = x * y
    if flag:
        z = z + math.sin(x)
    else:
        z = z - math.cos(y)
    if not flag:
        z = z * 2.0
    return z


def br_nested(x, y):
    if x > y:
        if x > 2.0 * y:
            r = x - y
        else:
            r = x * y
    else:
        if y > 3.0:
            r = y / x
        else:
            r = x + y * y
    return r


def br_on_array_value(x):
    s = np.sum(x)
    if s > 0.0:
        r = np.sum(x * x)
    else:
        r = np.sum(np.exp(x))
    return r


def br_in_loop(x, n):
    s = 0.0
    for i in range(n):
        v = x[i]
        if v > 0.0:
            s = s + v * v
        elif v > -0.5:
            s = s - v
        else:
            s = s + math.sin(v)
    return s


def br_bool_locals(x, y):
    big = x > 1.0
    pos = y > 0.0
    r = x * y
    if big and not pos:
        r = r + x
    if big or pos:
        r = r * 0.5
    return r


# ---------------------------------------------------------------------------
# while loops until a condition on data
# ---------------------------------------------------------------------------

def wh_grow(x):
    while x < 10.0:
        x = x * 1.3
    return x


def wh_counter(x, a):
    k = 0
    s = 0.0
    while k < 20:
        s = s + math.sin(a * x + k)
        k += 1
    return s


def wh_decay(x, r):
    t = 0.0
    while x > 0.1:
        x = x * r
        t = t + x
    return t


def wh_two_conditions(x, y):
    n = 0
    while x < y and n < 50:
        x = x + 0.3 * math.sqrt(x)
        n = n + 1
    return x * y


def wh_array_norm(v):
    while np.sum(v * v) > 1.0:
        v = v * 0.7
    return np.sum(np.sin(v) * v)


def wh_branch_inside(x):
    s = x
    while s < 50.0:
        if s < 5.0:
            s = s * 2.0 + 1.0
        else:
            s = s * 1.5
    return s / x


# ---------------------------------------------------------------------------
# break / continue
# ---------------------------------------------------------------------------

def bc_break_threshold(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * x[i]
        if s > 5.0:
            break
    return s


def bc_continue_negative(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        s = s + math.sqrt(x[i])
    return s


def bc_while_true_break(x):
    k = 0
    while True:
        x = x * 1.1 + 0.1
        k += 1
        if x > 8.0:
            break
    return x + 0.01 * k


def bc_break_continue_mix(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        v = x[i] * w
        if v < -1.0:
            continue
        if v > 2.0:
            break
        s = s + v * v + math.sin(v)
    return s


def bc_break_inner(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 1.0:
                break
            s = s + X[i, j] ** 2
    return s


def bc_continue_rows(X, w):
    s = 0.0
    for row in X:
        z = np.dot(row, w)
        if z < 0.0:
            continue
        s = s + z * z
    return s


# ---------------------------------------------------------------------------
# early return
# ---------------------------------------------------------------------------

def er_scalar(x):
    if x > 2.0:
        return x * x
    y = math.exp(x)
    if y > 3.0:
        return y - x
    return y + x


def er_in_for(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * (i + 1)
        if s > 4.0:
            return s * 2.0
    return s


def er_in_while(x):
    k = 0
    while k < 100:
        x = x * x * 0.5 + 0.3
        if x > 3.0:
            return x
        k = k + 1
    return -x


def er_array(x):
    m = np.max(x)
    if m > 5.0:
        return np.sum(x) / m
    return np.sum(x * x)


def er_bool_flag(x, y, flag):
    if flag:
        return x * y
    return x / y


def er_nested_loop(X, thr):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            s = s + X[i, j] * thr
            if s > 3.0:
                return s + i
    return s


# ---------------------------------------------------------------------------
# nested loops
# ---------------------------------------------------------------------------

def nl_sum_products(X, v):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            s = s + X[i, j] * v[j] * v[j]
    return s


def nl_triangular(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s = s + x[i] * x[j]
    return s


def nl_range_step(x):
    s = 0.0
    for i in range(0, x.shape[0], 2):
        for j in range(x.shape[0] - 1, i, -1):
            s = s + math.sin(x[i] - x[j])
    return s


def nl_while_in_for(x, n):
    s = 0.0
    for i in range(n):
        y = x + i
        while y < 5.0:
            y = y * 1.5
        s = s + y
    return s


def nl_manual_matvec(A, x):
    n, m = A.shape
    s = 0.0
    for i in range(n):
        t = 0.0
        for j in range(m):
            t = t + A[i, j] * x[j]
        s = s + math.tanh(t)
    return s


def nl_three_levels(x):
    s = 0.0
    for i in range(3):
        for j in range(3):
            for k in range(2):
                s = s + x[i] * x[j] ** (k + 1)
    return s


# ---------------------------------------------------------------------------
# calls to helpers (including tuple returns)
# ---------------------------------------------------------------------------

def hp_simple(x, y):
    return helper_sq(x) + helper_sq(y - x) * 0.5


def hp_tuple_return(x, y):
    r, th = helper_polar(x, y)
    return r * math.cos(th) + r * r * th


def hp_chain(x):
    a = helper_sq(x)
    b = helper_cube_plus(a, x)
    return helper_sq(b) * 0.01 + helper_norm2(a, b)


def hp_array(x, W):
    h = helper_layer(W, x)
    return np.sum(h * h)


def hp_tuple_stats(x):
    m, v = helper_mean_var(x)
    s, mx, mn = helper_stats3(x)
    return m * m + v + s * 0.1 + mx * mn


def hp_in_loop(x, n):
    s = 0.0
    for i in range(n):
        a, b = helper_rot(x[i], s)
        s = s + a * 0.3 + b * 0.1
    return s


def hp_branchy(x, y):
    return helper_smooth_branch(x, y) + helper_smooth_branch(y, 2.0 * x)


def hp_mixed_tuple(x, W, b):
    z, s = helper_split(x)
    h = helper_affine(W, b, z)
    return np.sum(helper_sigmoid_vec(h)) * s + helper_sigmoid(s)


# ---------------------------------------------------------------------------
# recursion
# ---------------------------------------------------------------------------

def rc_power(x, n):
    if n == 0:
        return 1.0
    return x * rc_power(x, n - 1)


def rc_horner(c, x, i):
    if i == c.shape[0] - 1:
        return c[i]
    return c[i] + x * rc_horner(c, x, i + 1)


def rc_continued_fraction(x, n):
    if n == 0:
        return x
    return x + 1.0 / (1.0 + rc_continued_fraction(x, n - 1))


def rc_sum_array(x, i):
    if i < 0:
        return 0.0
    return math.sin(x[i]) * x[i] + rc_sum_array(x, i - 1)


def rc_fib_like(a, b, n):
    if n == 0:
        return a
    return rc_fib_like(b, 0.5 * a + 0.7 * b, n - 1)


def helper_rec_pair(x, n):
    if n == 0:
        return x, 1.0
    a, b = helper_rec_pair(x, n - 1)
    return a * 0.9 + b * 0.1, b * x


def rc_tuple(x, n):
    a, b = helper_rec_pair(x, n)
    return a + b


# ---------------------------------------------------------------------------
# elementwise array operations
# ---------------------------------------------------------------------------

def ew_sin_exp(x):
    return np.sum(np.sin(x) * np.exp(0.3 * x))


def ew_log_sqrt(x):
    return np.sum(np.log(x) + np.sqrt(x) - np.log1p(x))


def ew_tanh_tan(x, y):
    return np.sum(np.tanh(x * y) + np.tan(0.2 * x))


def ew_arctan2_hypot(x, y):
    return np.sum(np.arctan2(y, x) * np.hypot(x, y))


def ew_abs_sign(x):
    return np.sum(np.abs(x) * 2.0 + np.sign(x) * x * x)


def ew_max_min_where(x, y):
    a = np.maximum(x, y)
    b = np.minimum(x, 0.5 * y)
    c = np.where(x > y, a * b, a - b)
    return np.sum(c)


def ew_clip(x):
    return np.sum(np.clip(x, -1.0, 1.0) * x)


def ew_pow_div(x, y):
    return np.sum(x ** 2 / (1.0 + y ** 2) - (-x) ** 3 + x ** 0.5 - y / x)


def ew_rank3(T):
    return np.sum(np.cos(T) * T - 0.5 * T * T)


def ew_matrix_chain(X):
    Y = np.exp(-X * X)
    Y = Y * X + np.log1p(Y)
    return np.sum(Y) - np.mean(-Y)


# ---------------------------------------------------------------------------
# broadcasting
# ---------------------------------------------------------------------------

def bd_scalar_array(x, a):
    return np.sum(a * x + a * a - x / a)


def bd_matrix_row(X, v):
    return np.sum(np.tanh(X + v) * v)


def bd_col_row(c, r):
    return np.sum(np.exp(-(c - r) ** 2))


def bd_reshape_outer(x, y):
    n = x.shape[0]
    m = y.shape[0]
    return np.sum(x.reshape((n, 1)) * y.reshape((1, m)) ** 2)


def bd_center_rows(X):
    mu = np.mean(X, axis=1)
    n = X.shape[0]
    Z = X - mu.reshape((n, 1))
    return np.sum(Z * Z * X)


def bd_rank3_vec(T, v):
    return np.sum(T * v * T)


def bd_scalar_maxmin(X, s):
    return np.sum(np.maximum(X, s) * s - np.minimum(X * s, 1.0))


# ---------------------------------------------------------------------------
# reductions (with and without axis)
# ---------------------------------------------------------------------------

def rd_sum_axis0(X):
    return np.sum(np.sum(X, axis=0) ** 2)


def rd_sum_axis1(X, w):
    return np.sum(np.exp(np.sum(X, axis=1) * 0.1) * w)


def rd_mean_axes(X):
    a = np.mean(X, axis=0)
    b = np.mean(X, axis=1)
    return np.mean(X) * np.sum(a * a) + np.sum(b ** 3)


def rd_max_min(x):
    return np.max(x) * 2.0 - np.min(x) + np.max(x * x)


def rd_max_min_axis(X):
    return np.sum(np.max(X, axis=0)) + np.sum(np.min(X, axis=1) ** 2)


def rd_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def rd_softmax_xent(X, labels):
    n = X.shape[0]
    m = np.max(X, axis=1)
    Z = X - m.reshape((n, 1))
    lse = np.log(np.sum(np.exp(Z), axis=1))
    s = 0.0
    for i in range(n):
        s = s + lse[i] - Z[i, labels[i]]
    return s / n


def rd_variance(x):
    mu = np.mean(x)
    return np.mean((x - mu) ** 2)


# ---------------------------------------------------------------------------
# dot / matmul / outer
# ---------------------------------------------------------------------------

def la_dot_vec(x, y):
    return np.dot(x, y) * np.dot(x, x)


def la_matvec(A, x):
    return np.sum(np.tanh(A @ x))


def la_matmul(A, B):
    C = A @ B
    return np.sum(C * C)


def la_dot_nested(A, B, v):
    return np.dot(v, np.dot(A, np.dot(B, v)))


def la_outer(x, y):
    return np.sum(np.sin(np.outer(x, y)))


def la_quadratic_T(A, x):
    return x @ (A.T @ A) @ x


def la_transpose(A, B):
    return np.sum(np.transpose(A) @ B)


def la_vec_mat(x, A):
    return np.sum(np.exp(0.1 * (x @ A)))


# ---------------------------------------------------------------------------
# indexing, slicing, gather with repeated indices
# ---------------------------------------------------------------------------

def ix_scalar_reads(x):
    return x[0] * x[1] + x[2] ** 2 - x[-1]


def ix_2d_reads(X, i, j):
    return X[i, j] * X[j, i] + X[0, 1]


def ix_slices(x):
    return np.sum(x[1:4] * x[2:5]) + np.sum(x[:-1] - x[1:]) ** 2


def ix_column_row(X, j):
    return np.sum(X[:, j] ** 2) + np.sum(X[1, :] * X[:, 0])


def ix_gather_repeated(x, idx):
    return np.sum(x[idx] ** 2 * 0.5)


def ix_gather_rows(X, idx):
    return np.sum(np.tanh(X[idx]))


def ix_loop_gather(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s = s + math.sin(x[idx[k]]) * x[idx[k]]
    return s


def ix_row_reads(X):
    s = 0.0
    for i in range(X.shape[0]):
        r = X[i]
        s = s + np.sum(r * r) * (i + 1)
    return s


def ix_slice_2d(X):
    return np.sum(X[1:3, 0:2] * X[0:2, 1:3])


# ---------------------------------------------------------------------------
# in-place writes into arrays created inside the function
# ---------------------------------------------------------------------------

def ip_fill_zeros(x):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i] * x[i] + 1.0
    return np.sum(np.log(y))


def ip_scatter_add(x, idx):
    y = np.zeros(3)
    for k in range(idx.shape[0]):
        y[idx[k]] += x[k]
    return np.sum(y * y)


def ip_copy_overwrite(x):
    y = x.copy()
    y[0] = 2.0 * y[1]
    y[1] = y[0] * y[2]
    y[2] = y[2] * y[2]
    return np.sum(y * x)


def ip_empty_fill_2d(X):
    n, m = X.shape
    Y = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            Y[i, j] = X[i, j] * (i - j) + 1.0
    return np.sum(Y * X)


def ip_cumsum(x):
    n = x.shape[0]
    c = np.zeros_like(x)
    c[0] = x[0]
    for i in range(1, n):
        c[i] = c[i - 1] + x[i]
    return np.sum(c * c)


def ip_same_slot(x):
    acc = np.ones(2)
    for i in range(x.shape[0]):
        acc[0] = acc[0] * 0.5 + x[i]
        acc[1] = acc[1] + acc[0] * x[i]
    return acc[0] + acc[1]


def ip_stencil(x, n_steps):
    u = x.copy()
    n = x.shape[0]
    for t in range(n_steps):
        v = u.copy()
        for i in range(1, n - 1):
            v[i] = u[i] + 0.1 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = v
    return np.sum(u * u * x)


def ip_augmented_2d(X, w):
    n, m = X.shape
    acc = np.zeros((m, m))
    for i in range(n):
        for j in range(m):
            for k in range(m):
                acc[j, k] += X[i, j] * X[i, k] * w
    return np.sum(acc * acc)


# ---------------------------------------------------------------------------
# RNN-style loops
# ---------------------------------------------------------------------------

def rnn_tanh(W, U, b, X, h0):
    h = h0
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + U @ X[t] + b)
    return np.sum(h)


def rnn_loss_all_steps(W, U, b, X, V):
    h = np.zeros(W.shape[0])
    loss = 0.0
    for t in range(X.shape[0]):
        h = np.tanh(W @ h + U @ X[t] + b)
        loss = loss + np.sum((V @ h) ** 2)
    return loss


def rnn_rows_iter(W, U, X):
    h = np.zeros(W.shape[0])
    for xt in X:
        h = np.tanh(np.dot(W, h) + np.dot(U, xt))
    return np.sum(h * h)


def rnn_gru_like(Wz, Wh, X):
    h = np.zeros(Wz.shape[0])
    for t in range(X.shape[0]):
        xh = np.concatenate((X[t], h))
        z = helper_sigmoid_vec(Wz @ xh)
        c = np.tanh(Wh @ xh)
        h = (1.0 - z) * h + z * c
    return np.sum(h)


def rnn_lstm_like(Wi, Wf, Wo, Wc, X):
    n = Wi.shape[0]
    h = np.zeros(n)
    c = np.zeros(n)
    for t in range(X.shape[0]):
        xh = np.concatenate((X[t], h))
        ig = helper_sigmoid_vec(Wi @ xh)
        fg = helper_sigmoid_vec(Wf @ xh)
        og = helper_sigmoid_vec(Wo @ xh)
        c = fg * c + ig * np.tanh(Wc @ xh)
        h = og * np.tanh(c)
    return np.sum(h * h) + np.sum(c)


def rnn_scalar(x, a, w):
    h = 0.0
    for t in range(x.shape[0]):
        h = math.tanh(w * h + a * x[t])
    return h


# ---------------------------------------------------------------------------
# ODE integrators
# ---------------------------------------------------------------------------

def ode_euler_decay(y0, k, n):
    y = y0
    dt = 1.0 / n
    for i in range(n):
        y = y - dt * k * y
    return y


def ode_rk4_pendulum(th0, om0, c, n):
    h = 2.0 / n
    th = th0
    om = om0
    for i in range(n):
        k1a, k1b = helper_pend_rhs(th, om, c)
        k2a, k2b = helper_pend_rhs(th + 0.5 * h * k1a, om + 0.5 * h * k1b, c)
        k3a, k3b = helper_pend_rhs(th + 0.5 * h * k2a, om + 0.5 * h * k2b, c)
        k4a, k4b = helper_pend_rhs(th + h * k3a, om + h * k3b, c)
        th = th + h / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a)
        om = om + h / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b)
    return th * om + th


def ode_rk4_system(A, u0, n):
    dt = 0.05
    u = u0
    for i in range(n):
        k1 = helper_rhs_vec(A, u)
        k2 = helper_rhs_vec(A, u + 0.5 * dt * k1)
        k3 = helper_rhs_vec(A, u + 0.5 * dt * k2)
        k4 = helper_rhs_vec(A, u + dt * k3)
        u = u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u * u)


def ode_projectile_event(v0, angle, drag):
    # adaptive-step Euler until the projectile hits the ground; the landing
    # point is interpolated linearly inside the last step
    x = 0.0
    y = 0.0
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    done = False
    while not done:
        speed = math.sqrt(vx * vx + vy * vy)
        dt = 0.02 / (1.0 + 0.1 * speed)
        y_new = y + dt * vy
        if y_new < 0.0:
            frac = y / (y - y_new)
            x = x + frac * dt * vx
            done = True
        else:
            x = x + dt * vx
            y = y_new
            ax = -drag * speed * vx
            ay = -9.81 - drag * speed * vy
            vx = vx + dt * ax
            vy = vy + dt * ay
    return x


def ode_heun_adaptive(y0, k, t_end):
    t = 0.0
    y = y0
    h = 0.1
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        f0 = -k * y + math.sin(t)
        y_e = y + h * f0
        f1 = -k * y_e + math.sin(t + h)
        y_h = y + 0.5 * h * (f0 + f1)
        err = math.fabs(y_h - y_e)
        y = y_h
        t = t + h
        h = 0.9 * h * math.sqrt(1e-3 / (err + 1e-6))
        if h > 0.2:
            h = 0.2
    return y


def ode_time_to_threshold(y0, r):
    t = 0.0
    y = y0
    dt = 0.02
    while y < 0.8:
        y_new = y + dt * r * y * (1.0 - y)
        if y_new >= 0.8:
            t = t + dt * (0.8 - y) / (y_new - y)
        else:
            t = t + dt
        y = y_new
    return t


# ---------------------------------------------------------------------------
# Newton iterations
# ---------------------------------------------------------------------------

def nt_sqrt(a):
    x = a
    f = x * x - a
    while math.fabs(f) > 1e-12:
        x = x - f / (2.0 * x)
        f = x * x - a
    return x


def nt_cubic_param(a, p):
    x = 1.0
    for it in range(50):
        f = x ** 3 + p * x - a
        if math.fabs(f) < 1e-13:
            break
        x = x - f / (3.0 * x * x + p)
    return x * x


def nt_kepler(M, e):
    E = M
    dE = 1.0
    while math.fabs(dE) > 1e-12:
        dE = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E = E - dE
    return E


def nt_vector(a):
    x = a
    r = x + 0.3 * np.tanh(x) - a
    while np.max(np.abs(r)) > 1e-12:
        x = x - r / (1.0 + 0.3 * (1.0 - np.tanh(x) ** 2))
        r = x + 0.3 * np.tanh(x) - a
    return np.sum(x * x)


def nt_2d_system(a, b):
    x = 2.0
    y = 0.5
    k = 0
    while k < 30:
        f1 = x * x + y * y - a
        f2 = x * y - b
        if f1 * f1 + f2 * f2 < 1e-24:
            break
        j11 = 2.0 * x
        j12 = 2.0 * y
        j21 = y
        j22 = x
        det = j11 * j22 - j12 * j21
        dx = (f1 * j22 - f2 * j12) / det
        dy = (j11 * f2 - j21 * f1) / det
        x = x - dx
        y = y - dy
        k = k + 1
    return x + 2.0 * y


# ---------------------------------------------------------------------------
# float32 arrays
# ---------------------------------------------------------------------------

def f32_elementwise(x):
    return np.sum(np.tanh(x) * x)


def f32_matvec(A, x):
    return np.sum(np.exp(0.1 * (A @ x)))


def f32_loop(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + math.sin(w * x[i])
    return s


# ---------------------------------------------------------------------------
# names a naive AD tool could collide with
# ---------------------------------------------------------------------------

def nm_collisions(d, x):
    g = d * x
    y = math.sin(g) + d
    tape = y * y
    top = 0.0
    for i in range(3):
        top = top + tape * d
        if top > 5.0:
            top = top * 0.5
    return top + g


def nm_adjoint_like(x, x_bar):
    d_x = x * x_bar
    adj = d_x + 1.0
    grad = adj * adj - x_bar
    bar = grad / (1.0 + d_x * d_x)
    dx = bar * x
    return dx + grad * 0.1


def nm_params(g, tape, top, d):
    stack = g * tape
    result = stack + top * d
    tmp = result
    for i in range(2):
        tmp = tmp * g + d
    return tmp + result


def nm_math_names(x):
    sin = np.sin(x)
    exp = np.exp(-x)
    dot = np.dot(sin, exp)
    tanh = math.tanh(dot)
    return tanh + dot


def nm_loopvar_reuse(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
    for i in range(n):
        s = s * 0.5 + x[n - 1 - i] * i
    i = 0
    while s < 10.0:
        s = s * 1.7 + 0.1
        i = i + 1
    return s + i
