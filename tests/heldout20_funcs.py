"""Held-out corpus #20: code jitad's developers did not write, in forms corpora 15-19 did not
use. (a) NumPy / SciPy calls in the forms other projects' gradient test suites exercise
(scipy.special's gammaln / digamma / expit / logit / xlogy / erf / erfc / log_ndtr,
logsumexp with `b=` and `axis=`, einsum with ellipsis and repeated indices, np.linalg with
matrix right-hand sides, eigh / cholesky / pinv / lstsq, kron / tensordot(axes=int) / inner /
vdot, np.cross of stacks, diag / tril / triu / diagonal with offsets, rot90 / fliplr / roll
with axis, meshgrid, linspace with a differentiated end point, np.prod through zeros,
np.average with axis and weights, nan_to_num, sinc / logaddexp2, np.add.at after repeated
gathers, the shape methods: .T, ravel, atleast_2d, swapaxes, moveaxis, squeeze);
(b) More-Garbow-Hillstrom / CUTEst objectives not in earlier corpora (Broyden banded,
discrete integral equation, Penalty II, Osborne 1 and 2, Kowalik-Osborne, Jennrich-Sampson,
Gulf research, Biggs EXP6, Brown-Dennis, linear full rank, Meyer (scaled)), with loops or
vectorised; (c) everyday models (a dict-of-params MLP, a GRU over a sequence with an early
stop, an LSTM cell, a mixture density network, soft k-means, an adaptive-step RK integrator,
a Newton solve inside the objective, a Morse pair potential, an upwind advection scheme,
softmax attention, a GP with ARD lengthscales through slogdet, negative-binomial regression,
NamedTuple / dataclass parameters, a bound method). Written for this corpus (none copied from
earlier corpora or other projects).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`jacobians()` vector functions for jacfwd / jacrev / jvp; `HESSIANS` names cases checked by
hessian / hvp too (tests/test_heldout20.py).

`python -m tests.heldout20_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import special
from scipy.special import expit, gammaln, logsumexp, xlogy

# -- (a) NumPy / SciPy forms ----------------------------------------------------------------------


def special_zoo(x):
    p = expit(x)
    return (np.sum(gammaln(1.0 + x * x)) + np.sum(special.digamma(2.0 + x ** 2))
            + np.sum(special.logit(0.1 + 0.8 * p)) + np.sum(xlogy(p, 1.0 + x * x))
            + np.sum(special.erf(x) * special.erfc(0.5 * x)) + np.sum(special.log_ndtr(x)))


def logsumexp_b_axis(x, w):
    return (np.sum(logsumexp(x, axis=0, b=w[None, :])) + np.sum(logsumexp(x, axis=1, b=w[0] ** 2))
            + logsumexp(x[0], b=np.exp(w[:x.shape[1]])))


def einsum_ellipsis(A, B, v):
    C = np.einsum("...ij,...jk->...ik", A, B)
    d = np.einsum("bii->b", A)
    e = np.einsum("bij,j->bi", A, v)
    return np.sum(C ** 2) + np.sum(d * d) + np.einsum("bi,bi->", e, e) + np.einsum("i,i", v, v)


def solve_matrix_rhs(A, B):
    X = np.linalg.solve(A, B)
    Ai = np.linalg.inv(A)
    return np.sum(X ** 2) + np.sum(Ai @ B) + np.trace(X.T @ X)


def cholesky_eigh_pinv(A, M):
    S = A @ A.T + 3.0 * np.eye(A.shape[0])
    L = np.linalg.cholesky(S)
    w, V = np.linalg.eigh(S)
    P = np.linalg.pinv(M)
    return (np.sum(np.log(np.diag(L))) + np.sum(w ** 2) + np.sum((V * V) @ w)
            + np.sum(P ** 2))


def lstsq_matrix_rhs(A, B):
    X, res, rank, sv = np.linalg.lstsq(A, B, rcond=None)
    return np.sum(X ** 2) + np.sum((A @ X - B) ** 2)


def slogdet_product(A):
    sign, logdet = np.linalg.slogdet(A)
    d = np.linalg.det(A @ A.T)
    return sign * np.exp(0.5 * logdet) + np.log(d)


def kron_tensordot_inner(A, B, x):
    K = np.kron(A, B)
    T = np.tensordot(A, B, axes=2)
    T1 = np.tensordot(A, B, axes=1)
    return np.sum(K * K) + T + np.sum(T1) + np.inner(x, x) + np.vdot(A, B)


def cross_stack(P, Q):
    c = np.cross(P, Q)
    c0 = np.cross(P[0], Q[1])
    return np.sum(c ** 2) + np.dot(c0, P[2]) + np.sum(np.hypot(P[:, 0], Q[:, 1]))


def diag_offsets(A, v):
    D = np.diag(v, k=1)
    return (np.sum(D @ A) + np.sum(np.diag(A, k=-1) ** 2) + np.sum(np.tril(A, k=-1) * A)
            + np.sum(np.triu(A, k=1) ** 3) + np.sum(np.diagonal(A, offset=1)) + np.trace(A, offset=-1))


def rot_flip_roll_axes(X):
    return (np.sum(np.rot90(X) * X.T) + np.sum(np.fliplr(X) * X) + np.sum(np.flipud(X) ** 2 * X)
            + np.sum(np.roll(X, 1, axis=1) * X) + np.sum(np.roll(X, -1, axis=0) ** 2)
            + np.sum(np.rot90(X, 2) * X))


def meshgrid_bump(c, x, y):
    Xg, Yg = np.meshgrid(x, y)
    Z = np.exp(-((Xg - c[0]) ** 2 + (Yg - c[1]) ** 2) / c[2] ** 2)
    return np.sum(Z * Xg) + np.sum(Z ** 2)


def linspace_endpoint(L, k):
    x = np.linspace(0.0, L, 9)
    u = np.sin(k * x) * np.exp(-x)
    return np.trapezoid(u * u, x)


def prod_with_zeros(x, y):
    return np.prod(x) + np.sum(np.prod(y, axis=0)) + np.prod(x[1:] + 1.0)


def average_axis_weights(X, w):
    return (np.sum(np.average(X, axis=0, weights=w) ** 2) + np.average(X[0], weights=X[1] ** 2)
            + np.sum(np.nan_to_num(np.log(X ** 2)) * X))


def sinc_logaddexp2(x, y):
    return np.sum(np.sinc(x) * y) + np.sum(np.logaddexp2(x, y)) + np.sum(np.logaddexp(x, -y) ** 2)


def gather_repeats_add_at(x, w):
    idx = np.array([0, 2, 2, 1, 0, 3, 3, 3])
    g = x[idx] * w
    out = np.zeros(4)
    np.add.at(out, idx, g)
    return np.sum(out ** 2) + np.sum(np.bincount(idx, weights=g, minlength=5) * np.arange(5))


def shape_methods(X):
    a = X.T.reshape(-1)
    b = np.ravel(X)
    c = np.atleast_2d(X[0])
    d = np.swapaxes(X[None], 0, 2)
    e = np.moveaxis(X[:, :, None], -1, 0)
    f = np.squeeze(X[:, None, :1], axis=(1, 2))
    return (np.dot(a, np.arange(a.size)) + np.sum(b ** 3) + np.sum(c @ c.T) + np.sum(d[:, :, 0].T * X)
            + np.sum(e[0] ** 2) + np.sum(f * np.flatnonzero(X[:, 0] > -10)))


def stack_variants(x, y):
    H = np.column_stack([x, y, x * y])
    V = np.vstack([x, y])
    D = np.dstack([x, y])
    R = np.repeat(x, 2)
    T = np.tile(H, (2, 1))
    return np.sum(H ** 2) + np.sum(V[0] * V[1]) + np.sum(D ** 3) + np.dot(R, R) + np.sum(T[1:] * T[:-1])


def cumprod_and_accumulate(x):
    c = np.cumprod(x)
    m = np.maximum.accumulate(x)
    return np.sum(c) + np.sum(m * x) + np.sum(np.diff(x, axis=0) ** 2)


def matrix_power_multi_dot(A, B):
    P = np.linalg.matrix_power(A, 3)
    M = np.linalg.multi_dot([A, B, A.T])
    return np.sum(P) + np.sum(M ** 2) + np.sum(np.matmul(A, B))


def sort_axis_softmax(X):
    S = np.sort(X, axis=1)
    P = special.softmax(X, axis=0)
    L = special.log_softmax(X, axis=1)
    return np.sum(S * np.arange(X.shape[1])) + np.sum(P * X) + np.sum(L[:, 0])


# -- (b) MGH / CUTEst objectives not in earlier corpora ------------------------------------------
def broyden_banded(x):
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        s = 0.0
        for j in range(max(0, i - 5), min(n, i + 2)):
            if j != i:
                s += x[j] * (1.0 + x[j])
        f = x[i] * (2.0 + 5.0 * x[i] ** 2) + 1.0 - s
        total += f * f
    return total


def discrete_integral_equation(x):
    n = x.shape[0]
    h = 1.0 / (n + 1)
    t = np.arange(1, n + 1) * h
    total = 0.0
    for i in range(n):
        s1 = 0.0
        for j in range(i + 1):
            s1 += t[j] * (x[j] + t[j] + 1.0) ** 3
        s2 = 0.0
        for j in range(i + 1, n):
            s2 += (1.0 - t[j]) * (x[j] + t[j] + 1.0) ** 3
        f = x[i] + h * ((1.0 - t[i]) * s1 + t[i] * s2) / 2.0
        total += f ** 2
    return total


def penalty_two(x, a=1e-5):
    n = x.size
    i = np.arange(2, n + 1)
    y = np.exp(i / 10.0) + np.exp((i - 1) / 10.0)
    r1 = np.sqrt(a) * (np.exp(x[1:] / 10.0) + np.exp(x[:-1] / 10.0) - y)
    r2 = np.sqrt(a) * (np.exp(x[1:] / 10.0) - np.exp(-1.0 / 10.0))
    r3 = np.sum((n - np.arange(n)) * x ** 2) - 1.0
    return (x[0] - 0.2) ** 2 + r1 @ r1 + r2 @ r2 + r3 ** 2


OSB1_Y = np.array([0.844, 0.908, 0.932, 0.936, 0.925, 0.908, 0.881, 0.850, 0.818, 0.784, 0.751,
                   0.718, 0.685, 0.658, 0.628, 0.603, 0.580, 0.558, 0.538, 0.522, 0.506, 0.490,
                   0.478, 0.467, 0.457, 0.448, 0.438, 0.431, 0.424, 0.420, 0.414, 0.411, 0.406])


def osborne_one(x):
    t = 10.0 * np.arange(OSB1_Y.size)
    r = OSB1_Y - (x[0] + x[1] * np.exp(-t * x[3]) + x[2] * np.exp(-t * x[4]))
    return np.sum(r * r)


def osborne_two(x):
    t = np.arange(11) / 10.0
    y = 1.0 + 0.5 * np.cos(3 * t)      # a synthetic curve of the same form
    total = 0.0
    for k in range(t.size):
        m = x[0] * math.exp(-t[k] * x[4]) + x[1] * math.exp(-(t[k] - x[8]) ** 2 * x[5]) \
            + x[2] * math.exp(-(t[k] - x[9]) ** 2 * x[6]) + x[3] * math.exp(-(t[k] - x[10]) ** 2 * x[7])
        total += (y[k] - m) ** 2
    return total


KO_Y = np.array([0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323, 0.0235,
                 0.0246])
KO_U = np.array([4.0, 2.0, 1.0, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714, 0.0625])


def kowalik_osborne(x):
    num = x[0] * (KO_U ** 2 + KO_U * x[1])
    den = KO_U ** 2 + KO_U * x[2] + x[3]
    return np.sum((KO_Y - num / den) ** 2)


def jennrich_sampson(x, m=10):
    total = 0.0
    for i in range(1, m + 1):
        r = 2.0 + 2.0 * i - (np.exp(i * x[0]) + np.exp(i * x[1]))
        total += r * r
    return total


def gulf_research(x, m=12):
    i = np.arange(1, m + 1)
    t = i / 100.0
    y = 25.0 + (-50.0 * np.log(t)) ** (2.0 / 3.0)
    r = np.exp(-np.abs(y - x[1]) ** x[2] / x[0]) - t
    return np.dot(r, r)


def biggs_exp6(x):
    t = 0.1 * np.arange(1, 14)
    y = np.exp(-t) - 5 * np.exp(-10 * t) + 3 * np.exp(-4 * t)
    r = x[2] * np.exp(-t * x[0]) - x[3] * np.exp(-t * x[1]) + x[5] * np.exp(-t * x[4]) - y
    return np.sum(r ** 2)


def brown_dennis(x, m=8):
    total = 0.0
    for i in range(1, m + 1):
        t = i / 5.0
        a = x[0] + t * x[1] - math.exp(t)
        b = x[2] + x[3] * math.sin(t) - math.cos(t)
        total += (a * a + b * b) ** 2
    return total


def linear_full_rank(x, m=7):
    n = x.size
    s = np.sum(x)
    r = np.empty(m)
    r[:n] = x - 2.0 / m * s - 1.0
    r[n:] = -2.0 / m * s - 1.0
    return r @ r


def meyer_scaled(x):
    t = 0.45 + 0.05 * np.arange(1, 17)
    y = np.array([34780.0, 28610.0, 23650.0, 19630.0, 16370.0, 13720.0, 11540.0, 9744.0,
                  8261.0, 7030.0, 6005.0, 5147.0, 4427.0, 3820.0, 3307.0, 2872.0])
    r = x[0] * np.exp(10.0 * x[1] / (t + x[2]) - 13.0) - np.log(y)
    return np.sum(r ** 2)


# -- (c) everyday models -------------------------------------------------------------------------
def mlp_dict_l2(params, X, y, lam=1e-2):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    l2 = sum(np.sum(params[k] ** 2) for k in ("W1", "W2"))
    return np.mean((out[:, 0] - y) ** 2) + lam * l2


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_early_stop(Wz, Wr, Wh, xs, tol=0.05):
    h = np.zeros(Wz.shape[0])
    for t in range(xs.shape[0]):
        hx = np.concatenate([h, xs[t]])
        z = sigmoid(Wz @ hx)
        r = sigmoid(Wr @ hx)
        hc = np.tanh(Wh @ np.concatenate([r * h, xs[t]]))
        h_new = (1.0 - z) * h + z * hc
        if np.max(np.abs(h_new - h)) < tol:
            h = h_new
            break
        h = h_new
    return np.sum(h ** 2)


def lstm_unrolled(W, b, xs):
    H = W.shape[0] // 4
    h = np.zeros(H)
    c = np.zeros(H)
    loss = 0.0
    for x in xs:
        g = W @ np.concatenate([x, h]) + b
        i, f, o, u = g[:H], g[H:2 * H], g[2 * H:3 * H], g[3 * H:]
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(u)
        h = sigmoid(o) * np.tanh(c)
        loss += np.sum(h)
    return loss


def mixture_density(W, X, y, K=3):
    out = X @ W                       # (n, 3K): logits, means, log-scales
    logits, mu, log_s = out[:, :K], out[:, K:2 * K], out[:, 2 * K:]
    logpi = logits - logsumexp(logits, axis=1, keepdims=True)
    z = (y[:, None] - mu) / np.exp(log_s)
    comp = logpi - 0.5 * z ** 2 - log_s - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(comp, axis=1))


def soft_kmeans(C, X, beta=2.0):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    r = special.softmax(-beta * d2, axis=1)
    return np.sum(r * d2) - np.sum(logsumexp(-beta * d2, axis=1)) / beta


def rk_adaptive(k, y0, tmax=2.0, tol=1e-4):
    t, y, h = 0.0, y0, 0.1
    steps = 0
    while t < tmax and steps < 200:
        h = min(h, tmax - t)
        k1 = -k * y + math.sin(t)
        k2 = -k * (y + 0.5 * h * k1) + math.sin(t + 0.5 * h)
        y_half = y + h * k2                     # midpoint (order 2)
        y_euler = y + h * k1                    # Euler (order 1)
        err = abs(y_half - y_euler)
        if err < tol or h < 1e-3:
            t += h
            y = y_half
            steps += 1
        h = 0.9 * h * min(2.0, max(0.2, math.sqrt(tol / (err + 1e-12))))
    return y * y


def newton_inside(a, b, x0=1.0):
    x = x0
    it = 0
    while True:
        fx = x ** 3 + a * x - b
        dx = fx / (3 * x ** 2 + a)
        x = x - dx
        it += 1
        if abs(dx) < 1e-13 or it > 50:
            break
    return x * x + a * x


def morse_pairs(pos, D=1.0, alpha=1.5, r0=1.0):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(pos[i] - pos[j])
            q = 1.0 - np.exp(-alpha * (r - r0))
            e += D * q * q
    return e


def upwind_advection(c, u0, dt=0.02, dx=0.1, steps=15):
    u = u0.copy()
    for _ in range(steps):
        if c > 0:
            u[1:] = u[1:] - c * dt / dx * (u[1:] - u[:-1])
        else:
            u[:-1] = u[:-1] - c * dt / dx * (u[1:] - u[:-1])
    return np.sum(u ** 2) + u[-1]


def softmax_attention(Wq, Wk, Wv, X):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - np.max(s, axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=-1, keepdims=True)
    return np.sum((a @ V) ** 2)


def gp_ard_slogdet(log_ells, log_sn, X, y):
    Z = X / np.exp(log_ells)
    d2 = np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2) + np.exp(2 * log_sn) * np.eye(X.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


def negbin_regression(w, log_r, X, counts):
    mu = np.exp(X @ w)
    r = np.exp(log_r)
    ll = (gammaln(counts + r) - gammaln(r) - gammaln(counts + 1.0)
          + r * np.log(r / (r + mu)) + counts * np.log(mu / (r + mu)))
    return -np.sum(ll)


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def namedtuple_two_layers(l1, l2, X):
    h = np.maximum(X @ l1.W + l1.b, 0.01 * (X @ l1.W + l1.b))
    return np.sum((h @ l2.W + l2.b) ** 2)


@dataclass
class Pendulum:
    length: float
    damping: float

    def energy(self, th, om):
        return 0.5 * self.length ** 2 * om ** 2 + 9.81 * self.length * (1.0 - math.cos(th))


def dataclass_pendulum(p, th0, dt=0.05, steps=30):
    th, om = th0, 0.0
    e = 0.0
    for _ in range(steps):
        om = om - dt * (9.81 / p.length * math.sin(th) + p.damping * om)
        th = th + dt * om
        e += p.energy(th, om)
    return e / steps


class Ridge:
    def __init__(self, X, y, lam):
        self.X = X
        self.y = y
        self.lam = lam

    def loss(self, w):
        r = self.X @ w - self.y
        return 0.5 * np.dot(r, r) + 0.5 * self.lam * np.dot(w, w)


def ising_free_energy(J, h, beta=0.7):
    # the log-partition function of a 3-spin chain by enumeration (itertools-free)
    Z = 0.0
    for a in (-1.0, 1.0):
        for b in (-1.0, 1.0):
            for c in (-1.0, 1.0):
                Z += math.exp(beta * (J * (a * b + b * c) + h * (a + b + c)))
    return -math.log(Z) / beta


def huber_irls_objective(w, X, y, delta=0.5):
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def loss_with_aux(w, X, y):
    p = expit(X @ w)
    loss = -np.mean(xlogy(y, p) + xlogy(1.0 - y, 1.0 - p))
    return loss, {"acc": np.mean((p > 0.5) == (y > 0.5)), "p0": p[0]}


# -- vector functions (Jacobians) ----------------------------------------------------------------
def broyden_banded_residuals(x):
    n = x.shape[0]
    f = x * (2.0 + 5.0 * x ** 2) + 1.0
    for i in range(n):
        for j in range(max(0, i - 5), min(n, i + 2)):
            if j != i:
                f[i] = f[i] - x[j] * (1.0 + x[j])
    return f


def cross_map(p):
    return np.cross(p, np.array([0.3, -0.2, 1.0])) * np.linalg.norm(p)


def special_vector(x):
    return np.concatenate([gammaln(1.5 + x ** 2), expit(x) * special.erf(x)])


def attention_rows(X):
    s = X @ X.T
    return special.softmax(s, axis=1) @ X[:, 0]


# -- forms and refusals ------------------------------------------------------------------------
def forms():
    """The forms the fixes of this corpus made work, beside it: np.average with a vector of
    weights along an axis (any rank, an axis counted from the end), an `np.array` of integers
    written out that np.add.at / np.bincount / np.take_along_axis read as indices,
    np.linspace(..., endpoint=False)."""
    rng = np.random.default_rng(2021)
    nrm = rng.normal
    return [(average_along_axis, (nrm(size=(2, 3, 4)), rng.uniform(0.5, 1.5, size=4)), (0, 1)),
            (average_along_axis, (nrm(size=(2, 3, 4)), rng.uniform(0.5, 1.5, size=4)), (1, 0)),
            (index_literals_as_operands, (nrm(size=5), nrm(size=(3, 4))), (0, 1)),
            (linspace_open_grid, (0.3, 1.7, np.arange(5.0)), (0, 1, 2))]


def linspace_open_grid(a, b, x):
    t = np.linspace(a, b, 8, endpoint=False)              # a periodic grid: b left out
    s = np.linspace(0, 1, x.shape[0], endpoint=False)
    return np.sum(np.sin(t) ** 2) + np.sum(x * np.exp(-s) * a) + np.sum(
        np.linspace(a, b, num=5, endpoint=True) ** 3)


def average_along_axis(X, w):
    a = np.average(X, axis=-1, weights=w)
    b = np.average(X, axis=1, weights=w[:3] ** 2)
    return np.sum(a * a) + np.sum(np.tanh(b)) + np.sum(np.average(X[0], axis=0, weights=w[1:]))


def index_literals_as_operands(x, A):
    idx = np.array([4, 0, 0, 2])
    out = np.zeros(5)
    np.add.at(out, idx, x[idx] ** 2)
    order = np.array([[2, 0, 1, 3], [0, 0, 2, 1], [1, 2, 0, 0]])
    counts = np.bincount(np.array([1, 1, 3]), weights=x[:3], minlength=4)
    return np.sum(out * x) + np.sum(np.take_along_axis(A, order, axis=1) ** 2) + counts @ A[0]


def hasattr_version_switch(x):
    return np.trapezoid(x) if hasattr(np, "trapezoid") else np.sum(x)  # ERR: hasattr()


def squeeze_without_axis(X):
    return np.sum(np.squeeze(X[:, None, :1]) ** 2)  # ERR: squeeze() needs axis=


def average_weights_wrong_rank(X, w):
    return np.average(X, axis=0, weights=w)  # ERR: or a vector along axis=


def refused_forms():
    """Refused on purpose (at the marked line, both modes): `hasattr` (a builtin outside the
    language), `np.squeeze` without axis= where it cannot know which axes are 1 (ranks are
    fixed when it compiles), np.average's weights of a rank neither x's nor 1."""
    nrm = np.random.default_rng(2022).normal
    return [(hasattr_version_switch, (nrm(size=4),)),
            (squeeze_without_axis, (nrm(size=(3, 4)),)),
            (average_weights_wrong_rank, (nrm(size=(3, 4, 2)), nrm(size=(3, 4))))]


def cases(seed=20):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(8, 3))
    A3 = nrm(size=(3, 3)) + 3 * np.eye(3)
    Xs = nrm(size=(6, 2))
    params = {"W1": 0.5 * nrm(size=(3, 4)), "b1": 0.1 * nrm(size=4),
              "W2": 0.5 * nrm(size=(4, 1)), "b2": np.array([0.1])}
    ridge = Ridge(X, nrm(size=8), 0.3)
    return [
        (special_zoo, (np.array([0.3, -0.8, 1.3, 0.05]),), (0,)),
        (logsumexp_b_axis, (nrm(size=(3, 4)), rng.uniform(0.5, 1.5, size=4)), (0, 1)),
        (einsum_ellipsis, (nrm(size=(2, 3, 3)), nrm(size=(2, 3, 2)), nrm(size=3)), (0, 1, 2)),
        (solve_matrix_rhs, (A3, nrm(size=(3, 2))), (0, 1)),
        (cholesky_eigh_pinv, (nrm(size=(3, 3)), nrm(size=(4, 3))), (0, 1)),
        (lstsq_matrix_rhs, (nrm(size=(5, 3)), nrm(size=(5, 2))), (0, 1)),
        (slogdet_product, (A3,), (0,)),
        (kron_tensordot_inner, (nrm(size=(2, 2)), nrm(size=(2, 2)), nrm(size=3)), (0, 1, 2)),
        (cross_stack, (nrm(size=(4, 3)), nrm(size=(4, 3))), (0, 1)),
        (diag_offsets, (nrm(size=(4, 4)), nrm(size=3)), (0, 1)),
        (rot_flip_roll_axes, (nrm(size=(3, 3)),), (0,)),
        (meshgrid_bump, (np.array([0.2, -0.1, 0.9]), np.linspace(-1, 1, 5), np.linspace(-1, 1, 4)),
         (0, 1, 2)),
        (linspace_endpoint, (2.0, 1.3), (0, 1)),
        (prod_with_zeros, (np.array([0.0, 1.5, -0.7, 2.0]), np.array([[0.0, 1.2], [0.5, 0.0],
                                                                      [0.3, 0.0]])), (0, 1)),
        (average_axis_weights, (nrm(size=(3, 4)), rng.uniform(0.5, 1.5, size=3)), (0, 1)),
        (sinc_logaddexp2, (np.array([0.3, -0.8, 1.3, 0.05]), nrm(size=4)), (0, 1)),
        (gather_repeats_add_at, (nrm(size=4), nrm(size=8)), (0, 1)),
        (shape_methods, (nrm(size=(3, 4)),), (0,)),
        (stack_variants, (nrm(size=4), nrm(size=4)), (0, 1)),
        (cumprod_and_accumulate, (np.array([0.5, 1.2, 0.8, 1.5, 0.9]),), (0,)),
        (matrix_power_multi_dot, (0.5 * nrm(size=(3, 3)), nrm(size=(3, 3))), (0, 1)),
        (sort_axis_softmax, (nrm(size=(3, 4)),), (0,)),
        (broyden_banded, (-np.ones(8),), (0,)),
        (discrete_integral_equation, (np.linspace(0.1, 0.5, 5) * (np.linspace(0.1, 0.5, 5) - 1),),
         (0,)),
        (penalty_two, (np.full(5, 0.5),), (0,)),
        (osborne_one, (np.array([0.5, 1.5, -1.0, 0.01, 0.02]),), (0,)),
        (osborne_two, (np.array([1.3, 0.65, 0.65, 0.7, 0.6, 3.0, 5.0, 7.0, 2.0, 4.5, 5.5]) / 4,),
         (0,)),
        (kowalik_osborne, (np.array([0.25, 0.39, 0.415, 0.39]),), (0,)),
        (jennrich_sampson, (np.array([0.3, 0.4]),), (0,)),
        (gulf_research, (np.array([5.0, 2.5, 0.15]),), (0,)),
        (biggs_exp6, (np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0]),), (0,)),
        (brown_dennis, (np.array([25.0, 5.0, -5.0, -1.0]),), (0,)),
        (linear_full_rank, (np.ones(4),), (0,)),
        (meyer_scaled, (np.array([0.02, 4.0, 2.5]),), (0,)),
        (mlp_dict_l2, (params, X, nrm(size=8)), (0,)),
        (gru_early_stop, (0.5 * nrm(size=(3, 5)), 0.5 * nrm(size=(3, 5)), 0.5 * nrm(size=(3, 5)),
                          nrm(size=(6, 2))), (0, 1, 2)),
        (gru_early_stop, (0.5 * nrm(size=(3, 5)), 0.5 * nrm(size=(3, 5)), 0.5 * nrm(size=(3, 5)),
                          0.01 * nrm(size=(6, 2)), 0.3), (0, 1, 2)),
        (lstm_unrolled, (0.4 * nrm(size=(8, 4)), 0.1 * nrm(size=8), nrm(size=(5, 2))), (0, 1)),
        (mixture_density, (0.3 * nrm(size=(3, 9)), X, nrm(size=8)), (0,)),
        (soft_kmeans, (nrm(size=(3, 2)), Xs), (0,)),
        (rk_adaptive, (1.3, 0.8), (0, 1)),
        (newton_inside, (1.5, 2.0), (0, 1)),
        (morse_pairs, (np.array([[0.0, 0.0], [1.1, 0.2], [0.3, 1.0], [1.2, 1.3]]),), (0,)),
        (upwind_advection, (0.8, np.exp(-np.linspace(-1, 1, 8) ** 2)), (0, 1)),
        (upwind_advection, (-0.6, np.exp(-np.linspace(-1, 1, 8) ** 2)), (0, 1)),
        (softmax_attention, (0.5 * nrm(size=(3, 2)), 0.5 * nrm(size=(3, 2)), nrm(size=(3, 2)),
                             nrm(size=(4, 3))), (0, 1, 2)),
        (gp_ard_slogdet, (np.array([0.1, -0.2]), -1.0, Xs, np.sin(Xs[:, 0])), (0, 1)),
        (negbin_regression, (0.2 * nrm(size=3), 0.5, X, rng.poisson(2.0, size=8).astype(float)),
         (0, 1)),
        (namedtuple_two_layers, (Layer(nrm(size=(3, 4)), nrm(size=4)),
                                 Layer(nrm(size=(4, 2)), nrm(size=2)), X), (0, 1)),
        (dataclass_pendulum, (Pendulum(1.2, 0.1), 0.6), (0, 1)),
        (ridge.loss, (nrm(size=3),), (0,)),
        (ising_free_energy, (0.4, 0.2), (0, 1)),
        (huber_irls_objective, (nrm(size=3), X, nrm(size=8)), (0,)),
    ]


def jacobians(seed=2020):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (broyden_banded_residuals, (nrm(size=7),), 0),
        (cross_map, (nrm(size=3),), 0),
        (special_vector, (nrm(size=3),), 0),
        (attention_rows, (nrm(size=(3, 2)),), 0),
    ]


HESSIANS = ["broyden_banded", "osborne_one", "kowalik_osborne", "jennrich_sampson",
            "newton_inside", "soft_kmeans", "negbin_regression", "gp_ard_slogdet",
            "special_zoo", "einsum_ellipsis", "morse_pairs", "ising_free_energy"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
