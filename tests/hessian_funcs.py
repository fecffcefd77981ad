"""The second-derivative corpus: scalar functions of arrays and floats, written as NumPy users
write them, with their test points (``HCASES``), for tests/test_hessian.py.

Every function reads ``np`` and ``math`` as module globals, so that the same source runs
under autograd (``harness.autograd_rebuild`` swaps ``np`` for ``autograd.numpy`` and
``math`` for a shim onto it, helpers included); those that write into arrays
(``y[i] = ...``) are not expressible in autograd and are marked ``autograd=False`` (their
reference is finite differences of the gradient alone).

The constructs: ``while`` until convergence (Newton iterations, fixed-point loops), branches
on data, ``for`` with ``break``/``continue``, early ``return``, helpers calling helpers,
ODE integrators (Euler, RK4, a data-dependent number of steps), small tanh/logistic nets,
logsumexp/softmax cross-entropy, Gaussian log-likelihoods (``np.linalg.solve``/``slogdet``/
``inv``/``cholesky``), polynomial and Rosenbrock-like objectives, reductions with ``axis=``,
array writes, products and scans (``np.prod``/``cumprod``, zeros included), sorts, quantiles,
running extremes, ``math.*`` scalar functions, indexing and slicing, one recursion.

Each test point is away from the kinks and branch boundaries of its function (the second
derivative is then unique and finite differences of the gradient agree with it).

``HCase`` fields: ``numba`` -- in the representative subset the default run also compiles
with Numba (``JITAD_HESSIAN_FULL=1`` compiles every case); ``xfail`` -- a known jitad failure
(the exact error or observation), the test is expected to fail (strict).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np


# ---------------------------------------------------------------------------
# while until convergence
# ---------------------------------------------------------------------------

def newton_sqrt(x):
    """sum(x * sqrt(x)) with sqrt by Newton's iteration run until it converges."""
    y = np.ones(x.shape[0])
    while np.max(np.abs(y * y - x)) > 1e-14:
        y = 0.5 * (y + x / y)
    return np.sum(x * y)


def newton_cubic(a):
    """The root of y**3 + y = a (Newton, scalar, until convergence), then a smooth read-out."""
    y = a
    while abs(y * y * y + y - a) > 1e-14 * (1.0 + abs(a)):
        y = y - (y * y * y + y - a) / (3.0 * y * y + 1.0)
    return y * y + a * y


def kepler(M, e):
    """Kepler's equation E - e sin E = M by Newton until convergence; the true anomaly's cos."""
    E = M
    while abs(E - e * math.sin(E) - M) > 1e-14:
        E = E - (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
    return math.cos(E) * (1.0 + e) + E * E


def fixed_point_cos(x):
    """z = 0.5 cos(x z) + x, iterated until the update is below a tolerance."""
    z = np.zeros(x.shape[0])
    delta = 1.0
    while delta > 1e-14:
        z_new = 0.5 * np.cos(x * z) + x
        delta = np.max(np.abs(z_new - z))
        z = z_new
    return np.sum(z * z) + np.sum(np.sin(z))


def inner_descent(x):
    """An inner optimisation (gradient descent until the step is tiny) inside the objective:
    z* = argmin_z sum((z - x)**2) / 2 + sum(z**4) / 4 approximately, unrolled."""
    z = np.zeros(x.shape[0])
    step = 1.0
    while step > 1e-13:
        g = (z - x) + z * z * z
        z = z - 0.3 * g
        step = np.sum(g * g)
    return np.sum(z * x) + 0.5 * np.sum(z * z)


def babylon_break(a):
    """Square root with a `for` and a `break` once converged (scalar)."""
    y = 1.0
    for k in range(100):
        y_new = 0.5 * (y + a / y)
        if abs(y_new - y) < 1e-15 * y:
            break
        y = y_new
    return y * a + math.log(y)


# ---------------------------------------------------------------------------
# branches, break/continue, early return
# ---------------------------------------------------------------------------

def piecewise(x):
    """A branch per element on its sign."""
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + x[i] ** 3 + x[i] * x[0]
        else:
            s = s + math.sin(x[i]) * x[i]
    return s


def branch_on_sum(x):
    """Which objective depends on the data (early return from the first branch)."""
    t = np.sum(x)
    if t > 1.0:
        return np.sum(x ** 4) * t
    r = np.sum(np.exp(x)) - t * t
    return r


def branch_on_sum_low(x):
    """The same objective, called where the other branch runs."""
    return branch_on_sum(x)


def early_return_loop(x):
    """Returns from inside the loop once an element exceeds a threshold."""
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 2.0:
            return s * x[i] + x[i] ** 2
        s = s + math.exp(0.5 * x[i]) * x[i]
    return s * s


def continue_skip(x, w):
    """`continue` skips the negative entries; w weighs the rest."""
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        s = s + w * x[i] * x[i] + math.tanh(w * x[i])
    return s * w


def while_break_accumulate(x):
    """A `while True` loop with a break on a data-dependent threshold."""
    s = 0.0
    k = 0
    while True:
        s = s + x[k % x.shape[0]] ** 2 * (k + 1)
        k = k + 1
        if s > 10.0:
            break
    return s * x[0] + np.sum(x * x)


def clipped_power(x):
    """np.where and np.maximum away from their kinks."""
    y = np.where(x > 0.0, x ** 3, 2.0 * x * x)
    return np.sum(y) + np.sum(np.maximum(x, 0.2) ** 3)


# ---------------------------------------------------------------------------
# helpers (user functions calling each other), recursion
# ---------------------------------------------------------------------------

def _sq_norm(v):
    return np.sum(v * v)


def _softplus(v):
    return np.log1p(np.exp(v))


def _energy_term(v, a):
    return _sq_norm(_softplus(v)) * a + _sq_norm(v) * v[0]


def helper_energy(x, a):
    """Helpers calling helpers, a float parameter passed down."""
    return _energy_term(x, a) + _sq_norm(x[1:]) * a * a


def _scaled(u, c):
    return c * math.sin(u) + u * u


def _twice(u, c):
    return _scaled(_scaled(u, c), c)


def helper_scalars(u, c):
    """Scalar helpers composed (a float in, a float out)."""
    return _twice(u, c) * math.exp(-c * u)


def _power_rec(x, n):
    if n == 0:
        return 1.0 + 0.0 * x
    return x * _power_rec(x, n - 1) + math.sin(x) / (n + 1)


def recursive_power(x):
    """A recursive helper."""
    return _power_rec(x, 4)


# ---------------------------------------------------------------------------
# ODE integrators
# ---------------------------------------------------------------------------

def ode_euler(p):
    """A damped oscillator x'' = -k x - c x' by explicit Euler over 50 steps."""
    k = p[0]
    c = p[1]
    x = 1.0
    v = 0.0
    dt = 0.02
    for step in range(50):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + 0.5 * v * v


def _rhs(y, th):
    return -th[0] * y + th[1] * np.sin(y) + th[2] * y * y


def ode_rk4(th):
    """dy/dt = -a y + b sin y + c y^2 for a vector state, RK4 over 20 steps, a helper rhs."""
    y = np.array([0.5, 1.0, -0.3])
    h = 0.05
    for step in range(20):
        k1 = _rhs(y, th)
        k2 = _rhs(y + 0.5 * h * k1, th)
        k3 = _rhs(y + 0.5 * h * k2, th)
        k4 = _rhs(y + h * k3, th)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def lotka_volterra(p):
    """Predator-prey by RK2 with the state written element by element (array writes)."""
    u = np.zeros(2)
    u[0] = 1.0
    u[1] = 0.5
    dt = 0.05
    for step in range(30):
        du = np.zeros(2)
        du[0] = p[0] * u[0] - p[1] * u[0] * u[1]
        du[1] = -p[2] * u[1] + p[3] * u[0] * u[1]
        um = u + 0.5 * dt * du
        dm = np.zeros(2)
        dm[0] = p[0] * um[0] - p[1] * um[0] * um[1]
        dm[1] = -p[2] * um[1] + p[3] * um[0] * um[1]
        u = u + dt * dm
    return u[0] * u[0] + u[1]


def ode_until_time(k, T):
    """Euler with a data-dependent number of steps: `while t < T`, the last step shortened."""
    y = 1.0
    t = 0.0
    dt = 0.1
    while t < T:
        h = min(dt, T - t)
        y = y + h * (-k * y + math.sin(t))
        t = t + h
    return y * y + k * y


# ---------------------------------------------------------------------------
# small neural nets, logsumexp, cross-entropy
# ---------------------------------------------------------------------------

def mlp_tanh(W, x, v):
    """One tanh hidden layer, differentiated with respect to its weight matrix."""
    h = np.tanh(W @ x)
    return np.sum(v * h) + 0.1 * np.sum(h * h)


def _logistic(z):
    return 1.0 / (1.0 + np.exp(-z))


def mlp_logistic(w, X, y):
    """Two logistic layers on a flat parameter vector, squared error over a batch."""
    W1 = w[:6].reshape((3, 2))
    b1 = w[6:9]
    w2 = w[9:12]
    H = _logistic(X @ W1.T + b1)
    p = _logistic(H @ w2)
    return np.mean((p - y) ** 2)


def logsumexp(x):
    """Stable logsumexp with the max subtracted."""
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def softmax_xent(W, X, Y):
    """Softmax cross-entropy of a linear classifier (logsumexp along axis 1)."""
    Z = X @ W
    m = np.max(Z, axis=1)
    lse = m + np.log(np.sum(np.exp(Z - m.reshape((-1, 1))), axis=1))
    return np.mean(lse - np.sum(Z * Y, axis=1))


def _row_lse(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def softmax_xent_loop(W, X, Y):
    """Softmax cross-entropy, row by row with a logsumexp helper."""
    Z = X @ W
    total = 0.0
    for i in range(Z.shape[0]):
        total = total + _row_lse(Z[i]) - np.sum(Z[i] * Y[i])
    return total / Z.shape[0]


def logistic_regression(w, X, y, lam):
    """Softplus loss with an L2 penalty."""
    z = X @ w
    return np.sum(np.log1p(np.exp(-y * z))) + 0.5 * lam * np.dot(w, w)


def poisson_regression(w, X, y):
    """Poisson negative log-likelihood."""
    z = X @ w
    return np.sum(np.exp(z) - y * z)


def attention(q, K, V):
    """Softmax attention of one query: softmax(K q) . V, then a squared read-out."""
    s = K @ q
    e = np.exp(s - np.max(s))
    a = e / np.sum(e)
    out = a @ V
    return np.sum(out * out)


def rnn_loop(W, xs):
    """A tanh recurrence over a sequence, unrolled with a `for`."""
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


# ---------------------------------------------------------------------------
# Gaussian log-likelihoods, linear algebra
# ---------------------------------------------------------------------------

def gauss_nll_solve(mu, X, S):
    """Gaussian negative log-likelihood of rows of X: solve and slogdet."""
    n = X.shape[0]
    total = 0.0
    for i in range(n):
        d = X[i] - mu
        total = total + 0.5 * np.dot(d, np.linalg.solve(S, d))
    return total + 0.5 * n * np.linalg.slogdet(S)[1]


def gauss_nll_sum(mu, X, S):
    """The same likelihood with the quadratic form as a sum of products (no np.dot), with
    respect to the mean and the covariance."""
    total = 0.0
    for i in range(X.shape[0]):
        d = X[i] - mu
        total = total + 0.5 * np.sum(d * np.linalg.solve(S, d))
    return total + 0.5 * X.shape[0] * np.linalg.slogdet(S)[1]


def gauss_nll_cov(L, x):
    """The same likelihood as a function of the covariance factor (S = L L^T + I)."""
    S = L @ L.T + np.eye(L.shape[0])
    sign, logdet = np.linalg.slogdet(S)
    return 0.5 * np.dot(x, np.linalg.solve(S, x)) + 0.5 * logdet


def gauss_inv_quad(A, x):
    """A quadratic form with an explicit inverse."""
    S = A @ A.T + 2.0 * np.eye(A.shape[0])
    return x @ np.linalg.inv(S) @ x


def gauss_cholesky(A):
    """log det by the Cholesky factor's diagonal."""
    S = A @ A.T + np.eye(A.shape[0])
    L = np.linalg.cholesky(S)
    return 2.0 * np.sum(np.log(np.diag(L))) + np.sum(L * L)


def logdet_det(A):
    """log |det| by np.linalg.det."""
    return math.log(abs(np.linalg.det(A))) + np.sum(A * A)


def quad_form_matrix(x, A):
    """x^T A x, its cube and a trace, with respect to the vector and the matrix together."""
    y = A @ x
    return x @ y + np.sum(y ** 3) * 0.1 + np.trace(A @ A)


def norm_cubed(x):
    """np.linalg.norm and sqrt."""
    r = np.linalg.norm(x)
    return r ** 3 + np.sqrt(1.0 + r * r)


def matrix_tanh(A):
    """A matrix argument: the Hessian is shaped A.shape + A.shape."""
    return np.sum(np.tanh(A @ A)) + np.sum(A ** 3)


# ---------------------------------------------------------------------------
# polynomial, Rosenbrock-like objectives
# ---------------------------------------------------------------------------

def rosenbrock(x):
    """The n-dimensional Rosenbrock function with slices."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_loop(x):
    """The same with a `for` over indices."""
    s = 0.0
    for i in range(x.shape[0] - 1):
        s = s + 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def horner(c, t):
    """A polynomial by Horner's rule: with respect to the coefficients and the point."""
    p = 0.0
    for i in range(c.shape[0]):
        p = p * t + c[i]
    return p * p + t * p


def himmelblau(a, b):
    """Two floats in, wrt both."""
    return (a * a + b - 11.0) ** 2 + (a + b * b - 7.0) ** 2


def powell_singular(x):
    """Powell's singular function with element indexing."""
    return ((x[0] + 10.0 * x[1]) ** 2 + 5.0 * (x[2] - x[3]) ** 2
            + (x[1] - 2.0 * x[2]) ** 4 + 10.0 * (x[0] - x[3]) ** 4)


def lennard_jones(pos):
    """Pair energy of a small cluster, a nested loop over pairs (2-D indexing)."""
    e = 0.0
    for i in range(pos.shape[0]):
        for j in range(i + 1, pos.shape[0]):
            d = pos[i] - pos[j]
            r2 = np.sum(d * d)
            inv6 = 1.0 / (r2 * r2 * r2)
            e = e + 4.0 * (inv6 * inv6 - inv6)
    return e


# ---------------------------------------------------------------------------
# reductions, array writes, math.*, indexing and slicing
# ---------------------------------------------------------------------------

def reductions_axis(A):
    """Reductions along each axis: mean, max, std, prod."""
    return (np.sum(np.mean(A * A, axis=0) * np.max(A, axis=1)[0])
            + np.sum(np.std(A, axis=1)) + np.sum(np.prod(1.0 + 0.1 * A, axis=0)))


def var_sum(x):
    """np.var and a product of all elements."""
    return np.var(x) * np.sum(x) + np.prod(x)


def array_writes(x):
    """A recurrence written into an array element by element."""
    y = np.zeros(x.shape[0])
    y[0] = x[0]
    for i in range(1, x.shape[0]):
        y[i] = 0.5 * y[i - 1] + x[i] * x[i] - math.cos(y[i - 1])
    return np.sum(y * y)


def array_writes_2d(x):
    """A matrix filled element by element (an outer product with a twist)."""
    n = x.shape[0]
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            M[i, j] = x[i] * math.exp(x[j]) + (i - j) * x[i]
    return np.sum(M * M) + np.trace(M)


def cumulative(x):
    """np.cumsum and np.cumprod."""
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(1.0 + 0.2 * x))


def sorts_and_quantiles(x):
    """np.sort, np.median and np.percentile (piecewise linear: their tangents' weights are
    constant between ties)."""
    return (np.median(x * x) + np.sum(np.sort(x) ** 3 * np.arange(x.shape[0]))
            + np.percentile(np.sin(x), 30.0))


def running_extremes(A):
    """np.maximum.accumulate and np.minimum.accumulate along each axis."""
    return (np.sum(np.maximum.accumulate(A ** 2, axis=1) * A)
            + np.sum(np.minimum.accumulate(np.cos(A), axis=0)))


def portfolio(logits, returns):
    """Softmax weights, wealth by np.cumprod, its drawdown by np.maximum.accumulate (the
    everyday corpus' portfolio objective)."""
    w = np.exp(logits) / np.sum(np.exp(logits))
    port = returns @ w
    wealth = np.cumprod(1.0 + port)
    peak = np.maximum.accumulate(wealth)
    return -np.cumsum(np.log1p(port))[-1] + 2.0 * np.max(1.0 - wealth / peak)


def math_scalars(a, b):
    """math.* scalar functions of two floats."""
    return (math.exp(a) * math.sin(b) + math.log(1.0 + a * a) + math.atan2(a, b)
            + math.sqrt(a * a + b * b) + math.tanh(a * b) + math.cosh(0.3 * a) * b ** 3)


def math_in_loop(x):
    """math.* on array elements inside a loop."""
    s = 0.0
    for i in range(x.shape[0]):
        s = s + math.log1p(x[i] * x[i]) * math.cos(x[i]) + math.expm1(0.5 * x[i])
    return s


def slicing(x):
    """Strided and reversed slices."""
    return np.dot(x[::2], x[1::2]) + np.sum(x[1:-1] ** 3) + np.sum(x[::-1] * x * x)


def fancy_index(x, idx):
    """Integer-array indexing (a gather with a repeated index)."""
    g = x[idx]
    return np.sum(g * g * g) + np.sum(x[idx] * x)


def matrix_rows(A):
    """Row and column slices of a matrix, a transpose."""
    return np.sum(A[0] * A[1]) + np.sum(A[:, 0] ** 3) + np.sum(A.T @ A[:, 1])


def outer_sum(x, s):
    """A vector and a float together (tuple wrt): H[a][b] blocks of mixed shapes."""
    M = np.outer(x, x) * s
    return np.sum(np.sin(M)) + s * s * np.sum(x)


def exp_power(x):
    """Fractional powers of positive entries."""
    return np.sum(x ** 2.5) + np.sum(np.exp(np.sin(x)) * np.sqrt(x))


def spring_chain(x, k):
    """Spring energies between neighbours with a stiffness vector; wrt the positions."""
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i] - 1.0
        e = e + 0.5 * k[i] * d * d + 0.1 * d ** 4
    return e


# ---------------------------------------------------------------------------
# the cases
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class HCase:
    name: str
    fn: Callable
    make_args: Callable[[], tuple]
    wrt: object = 0                     # an int, or a tuple of ints (H[a][b] blocks)
    autograd: bool = True               # the same source runs under autograd
    numba: bool = False                 # in the default run's Numba subset
    xfail: str = ""                     # a known jitad failure: the exact observation

    def __repr__(self):
        return f"HCase({self.name})"

    @property
    def wrt_tuple(self) -> Tuple[int, ...]:
        return self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)


def _n(seed, shape, scale=1.0, shift=0.0):
    return np.random.default_rng(seed).normal(size=shape) * scale + shift


def _u(seed, shape, lo, hi):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


def _spd(seed, n):
    A = _n(seed, (n, n), 0.4)
    return A @ A.T + n * np.eye(n) * 0.5


def _zeros_at(A):
    """A with two entries of one column at -10 (1 + 0.1 A is zero there)."""
    A = A.copy()
    A[0, 1] = A[2, 1] = -10.0
    return A


def _onehot(labels, k):
    Y = np.zeros((len(labels), k))
    Y[np.arange(len(labels)), labels] = 1.0
    return Y


HCASES = [
    HCase("newton_sqrt", newton_sqrt, lambda: (np.array([0.7, 2.0, 3.5]),)),
    HCase("newton_cubic", newton_cubic, lambda: (1.7,)),
    HCase("kepler", kepler, lambda: (1.1, 0.3), (0, 1), numba=True),
    HCase("fixed_point_cos", fixed_point_cos, lambda: (np.array([0.3, -0.4, 0.2]),)),
    HCase("inner_descent", inner_descent, lambda: (np.array([0.5, -0.8, 1.2]),)),
    HCase("babylon_break", babylon_break, lambda: (2.3,)),
    HCase("piecewise", piecewise, lambda: (np.array([0.6, -0.7, 1.3, -0.2]),), numba=True),
    HCase("branch_on_sum_high", branch_on_sum, lambda: (np.array([0.8, 0.9, -0.3]),)),
    HCase("branch_on_sum_low", branch_on_sum_low, lambda: (np.array([0.1, -0.4, 0.2]),)),
    HCase("early_return_loop", early_return_loop, lambda: (np.array([0.4, 1.1, 2.6, 0.3]),)),
    HCase("early_return_loop_none", early_return_loop, lambda: (np.array([0.4, 1.1, -0.6]),)),
    HCase("continue_skip", continue_skip, lambda: (np.array([0.5, -0.3, 1.2]), 0.7), (0, 1)),
    HCase("while_break_accumulate", while_break_accumulate,
          lambda: (np.array([0.9, 1.3, 0.7]),)),
    HCase("clipped_power", clipped_power, lambda: (np.array([0.6, -0.5, 1.1, 0.05]),)),
    # its Numba Hessian is test_hessian_lanes' (the lanes, against this file's python Hessian)
    HCase("helper_energy", helper_energy, lambda: (np.array([0.3, -0.6, 0.9]), 1.4), (0, 1)),
    HCase("helper_scalars", helper_scalars, lambda: (0.7, 0.4), (0, 1)),
    HCase("recursive_power", recursive_power, lambda: (0.8,)),
    HCase("ode_euler", ode_euler, lambda: (np.array([2.0, 0.3]),)),
    HCase("ode_rk4", ode_rk4, lambda: (np.array([0.8, 0.5, 0.2]),)),
    HCase("lotka_volterra", lotka_volterra, lambda: (np.array([1.1, 0.4, 0.9, 0.3]),),
          autograd=False),
    HCase("ode_until_time", ode_until_time, lambda: (0.7, 1.25), 0),
    HCase("mlp_tanh", mlp_tanh, lambda: (_n(1, (3, 2), 0.6), np.array([0.5, -1.0]),
                                         np.array([1.0, -0.5, 0.3])), numba=True),
    HCase("mlp_logistic", mlp_logistic, lambda: (_n(2, 12, 0.5), _n(3, (4, 2)),
                                                 np.array([0.0, 1.0, 1.0, 0.0]))),
    HCase("logsumexp", logsumexp, lambda: (np.array([0.3, 1.2, -0.5, 0.8]),)),
    HCase("softmax_xent", softmax_xent, lambda: (_n(4, (3, 3), 0.5), _n(5, (4, 3)),
                                                 _onehot([0, 2, 1, 2], 3))),
    HCase("softmax_xent_loop", softmax_xent_loop,
          lambda: (_n(4, (3, 3), 0.5), _n(5, (4, 3)), _onehot([0, 2, 1, 2], 3))),
    HCase("logistic_regression", logistic_regression,
          lambda: (_n(6, 3, 0.5), _n(7, (5, 3)), np.array([1.0, -1.0, 1.0, 1.0, -1.0]), 0.1)),
    HCase("poisson_regression", poisson_regression,
          lambda: (_n(8, 3, 0.3), _n(9, (5, 3), 0.5), np.array([1.0, 0.0, 2.0, 1.0, 3.0]))),
    HCase("attention", attention, lambda: (_n(10, 3), _n(11, (4, 3), 0.7), _n(12, (4, 2)))),
    HCase("rnn_loop", rnn_loop, lambda: (_n(13, (3, 3), 0.4), _n(14, (4, 3), 0.5))),
    HCase("gauss_nll_solve", gauss_nll_solve,
          lambda: (_n(15, 3, 0.3), _n(16, (4, 3)), _spd(17, 3)), 0),
    HCase("gauss_nll_solve_cov", gauss_nll_solve,
          lambda: (_n(15, 3, 0.3), _n(16, (4, 3)), _spd(17, 3)), 2),
    HCase("gauss_nll_sum", gauss_nll_sum,
          lambda: (_n(15, 3, 0.3), _n(16, (4, 3)), _spd(17, 3)), (0, 2)),
    HCase("gauss_nll_cov", gauss_nll_cov, lambda: (_n(18, (3, 3), 0.5), _n(19, 3))),
    HCase("gauss_inv_quad", gauss_inv_quad, lambda: (_n(20, (3, 3), 0.5), _n(21, 3))),
    HCase("gauss_cholesky", gauss_cholesky, lambda: (_n(22, (3, 3), 0.5),)),
    HCase("logdet_det", logdet_det, lambda: (_spd(23, 3),)),
    HCase("quad_form_matrix", quad_form_matrix, lambda: (_n(24, 3), _n(25, (3, 3))), (0, 1)),
    HCase("norm_cubed", norm_cubed, lambda: (np.array([0.4, -1.2, 0.7]),)),
    HCase("matrix_tanh", matrix_tanh, lambda: (_n(26, (2, 2), 0.7),)),
    HCase("rosenbrock", rosenbrock, lambda: (np.array([0.8, 1.1, 0.6, 1.3]),)),
    HCase("rosenbrock_loop", rosenbrock_loop, lambda: (np.array([-0.5, 1.1, 0.6, 1.3]),)),
    HCase("horner", horner, lambda: (np.array([0.5, -1.0, 2.0, 0.3]), 0.7), (0, 1)),
    HCase("himmelblau", himmelblau, lambda: (1.3, -0.8), (0, 1)),
    HCase("powell_singular", powell_singular, lambda: (np.array([3.0, -1.0, 0.5, 1.0]),)),
    HCase("lennard_jones", lennard_jones,
          lambda: (np.array([[0.0, 0.0], [1.1, 0.1], [0.4, 1.05]]),)),
    HCase("reductions_axis", reductions_axis, lambda: (_n(27, (3, 4)),)),
    HCase("var_sum", var_sum, lambda: (np.array([0.5, 1.5, -0.7, 1.1]),)),
    HCase("array_writes", array_writes, lambda: (np.array([0.3, 0.8, -0.5, 1.2]),),
          autograd=False),
    HCase("array_writes_2d", array_writes_2d, lambda: (np.array([0.2, -0.4, 0.6]),),
          autograd=False),
    HCase("cumulative", cumulative, lambda: (np.array([0.3, -0.6, 0.9, 0.2]),),
          autograd=False),          # autograd has no np.cumprod
    # zeros: the product of the others, never prod / x (autograd divides: nan)
    HCase("var_sum_zeros", var_sum, lambda: (np.array([0.5, 0.0, -0.7, 0.0, 1.3]),),
          autograd=False),
    HCase("reductions_axis_zeros", reductions_axis, lambda: (_zeros_at(_n(27, (3, 4))),),
          autograd=False),
    HCase("cumulative_zero", cumulative, lambda: (np.array([0.3, -5.0, 0.9, 0.2]),),
          autograd=False),
    HCase("sorts_and_quantiles", sorts_and_quantiles,
          lambda: (np.array([0.3, -1.1, 0.9, 1.7, -0.4]),), autograd=False),
    HCase("running_extremes", running_extremes, lambda: (_n(29, (3, 4)),), autograd=False),
    HCase("portfolio", portfolio, lambda: (_n(30, 4, 0.1), _n(31, (20, 4), 0.05, 0.01)),
          autograd=False),
    HCase("math_scalars", math_scalars, lambda: (0.6, 1.3), (0, 1)),
    HCase("math_in_loop", math_in_loop, lambda: (np.array([0.3, -0.6, 0.9]),)),
    HCase("slicing", slicing, lambda: (np.array([0.3, -0.6, 0.9, 1.4, -0.2, 0.5]),)),
    HCase("fancy_index", fancy_index,
          lambda: (np.array([0.3, -0.6, 0.9, 1.4]), np.array([2, 0, 2, 3], dtype=np.int64))),
    HCase("matrix_rows", matrix_rows, lambda: (_n(28, (3, 2)),)),
    HCase("outer_sum", outer_sum, lambda: (np.array([0.3, -0.6, 0.5]), 0.8), (0, 1)),
    HCase("exp_power", exp_power, lambda: (np.array([0.4, 1.3, 2.2]),)),
    HCase("spring_chain", spring_chain, lambda: (np.array([0.0, 1.2, 1.9, 3.3]),
                                                 np.array([1.0, 2.0, 0.5]))),
]
