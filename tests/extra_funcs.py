"""Constructs of the language subset the main corpus avoids (tests/test_extra.py)."""
import math

import numpy as np


def ex_ifexp_chained(x, w):
    y = x * w if 0.0 < x < 2.0 else -x
    z = y if y > w else w
    return y * z + (x % 1.5) * w - (x // 1.0) * 0.0


def ex_builtins(x, v):
    a = abs(x - 2.0) + max(x, 0.3) - min(x, w_const())
    return a * len(v) + float(np.sum(v)) * x


def w_const():
    return 0.25


def ex_iterate_1d(v, w):
    s = 0.0
    for e in v:
        s = s + math.tanh(e * w)
    return s


def ex_slice_write(v, w):
    y = np.zeros(5)
    y[1:4] = v[0:3] * w
    y[0:2] += w
    return np.sum(y * y)


def ex_concat_axis1(A, B):
    C = np.concatenate((A, B), axis=1)
    return np.sum(np.sin(C) * C)


def ex_dtype_and_ones(x):
    y = np.ones((2, 3), dtype=np.float64) * x
    z = np.zeros(3, np.float64) + x
    return np.sum(y) * np.sum(z * z)


def ex_reshape_transpose_outer(v, w):
    M = np.outer(v, w).reshape(2, 6).T
    return np.sum(M * M) + np.sum(np.transpose(M) @ np.ones(6))


def ex_mean_axis_neg(X):
    return np.sum(np.mean(X, axis=-1) ** 2) + np.sum(X.mean(axis=0))


def ex_clip_where_sign(v, w):
    a = np.clip(v * w, -0.5, 0.8)
    b = np.where(v > 0.0, v * w, 0.1 * v)
    return np.sum(a * b) + np.sum(np.sign(v) * v)


def ex_return_in_nested_loop(x, w):
    for i in range(5):
        for j in range(4):
            x = x * w + 0.1
            if x > 3.0:
                return x + i
    return -x


def ex_while_with_continue_and_break(x, w):
    k = 0
    s = 0.0
    while k < 20:
        k += 1
        if k % 3 == 0:
            continue
        s = s + x * w ** k
        if s > 4.0:
            break
    return s


def ex_unpack_shape_and_helper_tuple(X, w):
    n, m = X.shape
    a, b = split_stats(X, w)
    return a * n + b * m


def split_stats(X, w):
    return np.sum(X * w), np.max(X) * w


def ex_rank3(T, w):
    return np.sum(np.sum(T * w, axis=2) ** 2)


def ex_view_recreated_each_iteration(x, w):
    y = np.zeros((2, 3))
    s = 0.0
    for i in range(3):
        row = y[0]
        s = s + np.sum(row * row) * w
        y[0, i] = x * w
    return s + np.sum(y)


def ex_inplace_on_own_array(v, w):
    y = v * 2.0
    y += w
    y *= v
    return np.sum(y)


def ex_variable_step(v, w, s):
    acc = 0.0
    for i in range(v.shape[0] - 1, -1, -s):
        acc = acc * w + v[i] * i
    for i in range(1, v.shape[0], s):
        acc = acc + math.sin(v[i] * acc)
    return acc


def ex_while_in_for_in_while(x, w):
    total = 0.0
    outer = 0
    while outer < 3:
        for k in range(1, 4):
            y = x * k
            while y < 5.0:
                y = y * w + 0.3
                if y > 4.5:
                    break
            total = total + y * k
        outer += 1
        x = x * 0.9
    return total


def ex_helper_two_signatures(x, v):
    return scale_any(x, 2.0) + np.sum(scale_any(v, x))


def scale_any(a, b):
    return a * b + a * a


def ex_helper_in_loop(v, w):
    s = 0.0
    for i in range(v.shape[0]):
        p, _ = pair_sum(v[i], w)
        _, q = pair_sum(s, v[i])
        s = s + p * q
    return s


def pair_sum(a, b):
    return a * b, a + b


def ex_recursive_array(v, n):
    if n == 0:
        return np.sum(v * v)
    return ex_recursive_array(np.tanh(v) * 1.1, n - 1) + np.sum(v)


def ex_enumerate_rows(X, w):
    s = 0.0
    for i, row in enumerate(X):
        s = s + (i + 1) * np.dot(row, w)
    return s * s


def ex_norm(v, w):
    return np.linalg.norm(v * w) + np.linalg.norm(np.outer(v, v))
