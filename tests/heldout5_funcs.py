"""What held-out corpus #5 (80 everyday models written from the README alone) found jitad
refusing, reduced to one function each (tests/test_heldout5.py)."""
import numpy as np


def nested_helper_returns_a_tuple(x, w):
    def moments(v):
        m = np.mean(v)
        s = np.mean((v - m) ** 2)
        return m, s
    m, s = moments(x * w)
    both = moments(x + w)
    return m + s * both[1] + both[0]


def range_as_an_index(P, labels):
    n = P.shape[0]
    return -np.sum(np.log(P[range(n), labels]))


def lists_of_integers_as_indices(P):
    idx = list(range(P.shape[0]))
    return np.sum(P[idx] ** 2) + np.sum(P[[0, 2]]) + np.sum(P[[i for i in range(2)], 1] ** 3)


def copied_from_a_helper(x):
    def scaled(r):
        y = r * 2.0
        return y
    u = scaled(x)
    u[1] = 0.0
    return np.sum(u * u)


def nested_recursive_helper(coeffs, x):
    def horner(c, x):
        if len(c) == 1:
            return c[0] * scale + 0.0 * x
        return c[0] * scale + x * horner(c[1:], x)
    scale = 1.5
    return np.sum(horner(coeffs, x) ** 2)


def nested_recursion(w):
    def g(v, n):
        return v if n == 0 else g(v, n - 1) * 1.5
    return np.sum(g(w, 2))
