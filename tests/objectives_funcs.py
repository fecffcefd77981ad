"""Standard test objectives of optimization and AD benchmarks (the global-optimization test
functions of Surjanovic & Bingham's library, CUTEst-style extended problems, MINPACK-2-style
least squares), written in plain NumPy as a user copies them from their definitions -- each a
scalar function of a vector `x` (some with data). `tests/test_objectives.py` checks jitad's
gradient (compiled and eager) and Hessian against finite differences on every one.
"""
import math

import numpy as np


def ackley(x):
    d = x.shape[0]
    a, b, c = 20.0, 0.2, 2 * np.pi
    s1 = np.sum(x ** 2)
    s2 = np.sum(np.cos(c * x))
    return -a * np.exp(-b * np.sqrt(s1 / d)) - np.exp(s2 / d) + a + np.exp(1.0)


def rastrigin(x):
    return 10.0 * len(x) + np.sum(x ** 2 - 10.0 * np.cos(2 * np.pi * x))


def griewank(x):
    i = np.arange(1, x.shape[0] + 1)
    return np.sum(x ** 2) / 4000.0 - np.prod(np.cos(x / np.sqrt(i))) + 1.0


def styblinski_tang(x):
    return 0.5 * np.sum(x ** 4 - 16 * x ** 2 + 5 * x)


def levy(x):
    w = 1 + (x - 1) / 4
    term1 = np.sin(np.pi * w[0]) ** 2
    term3 = (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2)
    wi = w[:-1]
    s = np.sum((wi - 1) ** 2 * (1 + 10 * np.sin(np.pi * wi + 1) ** 2))
    return term1 + s + term3


def michalewicz(x, m=10):
    i = np.arange(1, len(x) + 1)
    return -np.sum(np.sin(x) * np.sin(i * x ** 2 / np.pi) ** (2 * m))


def zakharov(x):
    i = np.arange(1, x.size + 1)
    s2 = np.sum(0.5 * i * x)
    return np.sum(x ** 2) + s2 ** 2 + s2 ** 4


def dixon_price(x):
    total = (x[0] - 1) ** 2
    for i in range(1, len(x)):
        total += (i + 1) * (2 * x[i] ** 2 - x[i - 1]) ** 2
    return total


def trid(x):
    return np.sum((x - 1) ** 2) - np.sum(x[1:] * x[:-1])


def sum_of_different_powers(x):
    total = 0.0
    for i, xi in enumerate(x):
        total += abs(xi) ** (i + 2)
    return total


def schwefel(x):
    return 418.9829 * len(x) - np.sum(x * np.sin(np.sqrt(np.abs(x))))


def rotated_hyper_ellipsoid(x):
    return np.sum(np.cumsum(x) ** 2)


def perm_beta(x, beta=0.5):
    d = len(x)
    total = 0.0
    for i in range(1, d + 1):
        inner = 0.0
        for j in range(1, d + 1):
            inner += (j ** i + beta) * ((x[j - 1] / j) ** i - 1)
        total += inner ** 2
    return total


def beale(x):
    a, b = x[0], x[1]
    return ((1.5 - a + a * b) ** 2 + (2.25 - a + a * b ** 2) ** 2
            + (2.625 - a + a * b ** 3) ** 2)


def booth(x):
    return (x[0] + 2 * x[1] - 7) ** 2 + (2 * x[0] + x[1] - 5) ** 2


def goldstein_price(x):
    x1, x2 = x
    a = 1 + (x1 + x2 + 1) ** 2 * (19 - 14 * x1 + 3 * x1 ** 2 - 14 * x2 + 6 * x1 * x2 + 3 * x2 ** 2)
    b = 30 + (2 * x1 - 3 * x2) ** 2 * (18 - 32 * x1 + 12 * x1 ** 2 + 48 * x2 - 36 * x1 * x2
                                        + 27 * x2 ** 2)
    return a * b


def six_hump_camel(x):
    x1, x2 = x[0], x[1]
    return ((4 - 2.1 * x1 ** 2 + x1 ** 4 / 3) * x1 ** 2 + x1 * x2
            + (-4 + 4 * x2 ** 2) * x2 ** 2)


def matyas(x):
    return 0.26 * (x[0] ** 2 + x[1] ** 2) - 0.48 * x[0] * x[1]


def three_hump_camel(x):
    x1 = x[0]
    x2 = x[1]
    return 2 * x1 ** 2 - 1.05 * x1 ** 4 + x1 ** 6 / 6 + x1 * x2 + x2 ** 2


def hartmann3(x):
    alpha = np.array([1.0, 1.2, 3.0, 3.2])
    A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
    P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470],
                         [1091, 8732, 5547], [381, 5743, 8828]])
    outer = 0.0
    for i in range(4):
        inner = np.sum(A[i] * (x - P[i]) ** 2)
        outer += alpha[i] * np.exp(-inner)
    return -outer


def extended_rosenbrock(x):
    f = 0.0
    for i in range(0, len(x) - 1, 2):
        f += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return f


def broyden_tridiagonal(x):
    n = x.shape[0]
    xp = np.concatenate(([0.0], x, [0.0]))
    r = (3 - 2 * xp[1:n + 1]) * xp[1:n + 1] - xp[0:n] - 2 * xp[2:n + 2] + 1
    return np.sum(r ** 2)


def extended_powell(x):
    total = 0.0
    for k in range(len(x) // 4):
        a, b, c, d = x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]
        total += (a + 10 * b) ** 2 + 5 * (c - d) ** 2 + (b - 2 * c) ** 4 + 10 * (a - d) ** 4
    return total


def chained_wood(x):
    f = 0.0
    for i in range(0, len(x) - 3, 2):
        f += (100 * (x[i] ** 2 - x[i + 1]) ** 2 + (x[i] - 1) ** 2
              + 90 * (x[i + 2] ** 2 - x[i + 3]) ** 2 + (x[i + 2] - 1) ** 2
              + 10.1 * ((x[i + 1] - 1) ** 2 + (x[i + 3] - 1) ** 2)
              + 19.8 * (x[i + 1] - 1) * (x[i + 3] - 1))
    return f


def trigonometric(x):
    n = len(x)
    c = np.cos(x)
    r = n - np.sum(c) + np.arange(1, n + 1) * (1 - c) - np.sin(x)
    return r @ r


def penalty_one(x, a=1e-5):
    return a * np.sum((x - 1) ** 2) + (np.sum(x ** 2) - 0.25) ** 2


def variably_dimensioned(x):
    n = x.shape[0]
    j = np.arange(1, n + 1)
    s = np.dot(j, x - 1)
    return np.sum((x - 1) ** 2) + s ** 2 + s ** 4


def watson(x):
    n = x.size
    f = 0.0
    for i in range(29):
        t = (i + 1) / 29.0
        s1 = 0.0
        for j in range(1, n):
            s1 += j * x[j] * t ** (j - 1)
        s2 = 0.0
        for j in range(n):
            s2 += x[j] * t ** j
        f += (s1 - s2 ** 2 - 1) ** 2
    return f + x[0] ** 2 + (x[1] - x[0] ** 2 - 1) ** 2


def kowalik_osborne(x, y, u):
    r = y - x[0] * (u ** 2 + u * x[1]) / (u ** 2 + u * x[2] + x[3])
    return np.sum(r ** 2)


def bard(x, y):
    total = 0.0
    for i in range(15):
        u = i + 1.0
        v = 16.0 - u
        w = min(u, v)
        r = y[i] - (x[0] + u / (v * x[1] + w * x[2]))
        total += r * r
    return total


def exponential_fit(x, t, y):
    model = x[0] * np.exp(-x[1] * t) + x[2] * np.exp(-x[3] * t)
    return 0.5 * np.sum((model - y) ** 2)


def logistic_loss_l2(w, X, y, lam=0.1):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.dot(w, w)


def huber_regression(w, X, y, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    quad = np.minimum(a, delta)
    return np.sum(0.5 * quad ** 2 + delta * (a - quad))


def nonlinear_least_squares_loop(p, t, y):
    """A MINPACK-2-style model fitted by a loop over data points with a branch per residual."""
    total = 0.0
    for k in range(t.shape[0]):
        pred = p[0] / (1.0 + math.exp(-p[1] * (t[k] - p[2])))
        r = pred - y[k]
        if abs(r) < 1.0:
            total += 0.5 * r * r
        else:
            total += abs(r) - 0.5
    return total


def corpus(seed=5):
    """(function, args, wrt) for each objective, at a point away from kinks and ties."""
    rng = np.random.default_rng(seed)
    v4 = rng.uniform(-1.2, 1.2, 4)
    v6 = rng.uniform(-1.0, 1.0, 6)
    v8 = rng.uniform(-1.0, 1.0, 8)
    out = [
        (ackley, (v6,), (0,)), (rastrigin, (v6,), (0,)), (griewank, (v6 * 3,), (0,)),
        (styblinski_tang, (v6 * 2,), (0,)), (levy, (v6 * 3,), (0,)),
        (michalewicz, (rng.uniform(0.5, 2.5, 5),), (0,)), (zakharov, (v4,), (0,)),
        (dixon_price, (v6,), (0,)), (trid, (v6,), (0,)),
        (sum_of_different_powers, (v6 + np.sign(v6) * 0.2,), (0,)),
        (schwefel, (rng.uniform(10.0, 400.0, 5),), (0,)), (rotated_hyper_ellipsoid, (v6,), (0,)),
        (perm_beta, (v4,), (0,)), (beale, (np.array([1.2, 0.4]),), (0,)),
        (booth, (np.array([0.7, 2.1]),), (0,)), (goldstein_price, (np.array([0.3, -0.6]),), (0,)),
        (six_hump_camel, (np.array([0.2, -0.5]),), (0,)), (matyas, (np.array([0.9, -0.3]),), (0,)),
        (three_hump_camel, (np.array([0.5, -0.4]),), (0,)),
        (hartmann3, (rng.uniform(0.1, 0.9, 3),), (0,)),
        (extended_rosenbrock, (v8,), (0,)), (broyden_tridiagonal, (v6,), (0,)),
        (extended_powell, (v8 + 0.5,), (0,)), (chained_wood, (v8,), (0,)),
        (trigonometric, (v6 / 5,), (0,)),
        (penalty_one, (v6,), (0,)), (variably_dimensioned, (v6 / 3,), (0,)),
        (watson, (v6 / 2,), (0,)),
        (kowalik_osborne, (np.array([0.25, 0.39, 0.415, 0.39]),
                           np.array([0.1957, 0.1947, 0.1735, 0.16, 0.0844, 0.0627, 0.0456, 0.0342,
                                     0.0323, 0.0235, 0.0246]),
                           np.array([4.0, 2.0, 1.0, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714,
                                     0.0625])), (0,)),
        (bard, (np.array([1.0, 1.0, 1.0]), rng.uniform(0.1, 2.4, 15)), (0,)),
        (exponential_fit, (np.array([1.0, 0.5, 2.0, 1.5]), np.linspace(0.0, 3.0, 12),
                           rng.uniform(0.5, 3.0, 12)), (0,)),
        (logistic_loss_l2, (v4, rng.normal(size=(20, 4)), np.sign(rng.normal(size=20))), (0,)),
        (huber_regression, (v4, rng.normal(size=(15, 4)), rng.normal(size=15) * 2), (0,)),
        (nonlinear_least_squares_loop, (np.array([2.0, 1.3, 0.4]), np.linspace(-2, 2, 9),
                                        rng.uniform(0.0, 2.5, 9)), (0,)),
    ]
    return out
