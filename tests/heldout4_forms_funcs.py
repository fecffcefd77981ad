"""The mechanisms held-out corpus #4 (tests/heldout4_funcs.py) needed, one small function each
(tests/test_heldout4_forms.py runs them in both modes). Refusals mark their offending line
with `# ERR: <text the error names>`."""
import math

import numpy as np
import scipy.special
from scipy.stats import norm


# -- None as a sentinel (hawkes_exp) ---------------------------------------------------------
def gaps_after_first(x, t):
    prev = None
    s = 0.0
    for v in t:
        if prev is not None:
            s = s + math.exp(-x * (v - prev))
        prev = v
    return s


def running_best(x):
    best = None
    for v in x:
        if best is None or v * v > best:
            best = v * v
    if best is None:
        return 0.0
    return best * 2.0


def sentinel_else_branch(x):
    acc = None
    for v in x:
        if acc is None:
            acc = v
        else:
            acc = acc * 0.5 + v * v
    return 0.0 if acc is None else acc


def sentinel_unguarded(x):
    prev = None
    s = 0.0
    for v in x:
        s = s + v * prev  # ERR: 'prev' may be None here
        prev = v
    return s


def sentinel_maybe_returned(x):
    best = None
    for v in x:
        best = v
    return best * 2.0  # ERR: 'best' may be None here


def only_none(x):
    y = None  # ERR: None is not a value jitad can compute with
    return x * 2.0


# -- list(...) (holt_winters) ------------------------------------------------------------------
def seasonal_list(p, y):
    season = list(y[:3] - p[0])
    s = 0.0
    for t in range(3, y.shape[0]):
        e = y[t] - season[t - 3] * p[1]
        s = s + e * e
        season.append(p[1] * season[t - 3] + 0.1 * e)
    return s


def rows_as_list(X, w):
    rows = list(X)
    rows.append(w * 2.0)
    s = 0.0
    for r in rows:
        s = s + np.sum(np.tanh(r * w))
    return s + np.sum(np.stack(rows) ** 2)


def list_of_range_zip_enumerate(x, y):
    s = 0.0
    for i in list(range(x.shape[0])):
        s = s + x[i] * (i + 1.0)
    for a, b in list(zip(x, y)):
        s = s + a * b
    pairs = list(enumerate(x))
    for i, v in pairs:
        s = s + i * v * v
    for i, v in reversed(list(enumerate(y))):
        s = s + i * v
    return s + len(list(range(2)))


def list_with_keyword(x):
    return np.sum(np.array(list(x, key=1)))  # ERR: list() is supported as list(iterable)


def other_builtin(x):
    return np.sum(np.array(list(filter(None, x))))  # ERR: the builtin filter() is not supported


# -- np.append (homography) --------------------------------------------------------------------
def append_flat(h8, v):
    H = np.append(h8, 1.0).reshape(3, 3)
    w = np.append(v, [0.5, v[0]])
    p = H @ np.array([1.0, 0.5, 0.25])
    return np.sum(p[:2] / p[2]) + np.sum(w * w) + np.sum(np.append(H[:2], v))


def append_axis(A, b):
    M = np.append(A, b[None, :], axis=0)
    N = np.append(A, A * 2.0, axis=1)
    return np.sum(np.tanh(M)) + np.sum(N ** 2)


# -- np.mgrid / np.ogrid (lucas_kanade, chan_vese) --------------------------------------------
def grid_weights(I, n):
    yy, xx = np.mgrid[0:I.shape[0], 0:n]
    cy, cx = np.ogrid[0:3, 1:I.shape[1] + 1]
    t = np.mgrid[0:1:4j]
    return np.sum(I * (yy - 1.0) ** 2 + I * xx) + np.sum(I * cy * cx) + np.sum(I[0] * t)


def grid_values(x):
    g = np.mgrid[0:2, 0:3]
    u = np.mgrid[0.0:1.2:0.25]
    cube = np.mgrid[0:2, 0:3, 1:5:2]
    return (np.sum(x * u) + np.sum(g[1] * x[0]) + np.sum(np.mgrid[0:5] * x)
            + np.sum(cube[2] * x[1]) + np.sum(cube[0] + cube[1]) * x[2])


def ogrid_as_value(x):
    g = np.ogrid[0:2, 0:3]  # ERR: unpack it
    return x * 2.0


# -- np.gradient of any rank (chan_vese, lucas_kanade) ------------------------------------------
def gradient_2d(phi):
    H = 0.5 * (1 + (2 / np.pi) * np.arctan(phi))
    gy, gx = np.gradient(H)
    return np.sum(np.sqrt(gx ** 2 + gy ** 2 + 1e-8))


def gradient_axis_spacing(H, h):
    g1 = np.gradient(H, h, axis=1)
    g0 = np.gradient(H[:, 0], 0.5)
    a, b = np.gradient(H, axis=(1, 0))
    return np.sum(g1 ** 2) + np.sum(g0 * H[:, 1]) + np.sum(a * b)


def gradient_3d(T):
    a, b, c = np.gradient(T, 2.0)
    return np.sum(a * b + c ** 2) + np.sum(np.gradient(T, axis=-1) ** 3)


def gradient_wrong_count(T):
    a, b = np.gradient(T)  # ERR: returns 3 gradients, not 2
    return np.sum(a * b)


def gradient_edge_order_2(x):
    return np.sum(np.gradient(x, edge_order=2))  # ERR: edge_order=1


# -- scipy.stats.norm.ppf / isf, scipy.special.ndtri (gaussian_copula) -------------------------
def copula(raw, U):
    A = np.tril(raw) + 2.0 * np.eye(3)
    S = A @ A.T
    d = np.sqrt(np.diag(S))
    R = S / np.outer(d, d)
    z = norm.ppf(U)
    _, logdet = np.linalg.slogdet(R)
    quad = np.einsum("ni,ij,nj->n", z, np.linalg.inv(R) - np.eye(3), z)
    return -np.sum(-0.5 * logdet - 0.5 * quad)


def quantiles(q, s):
    return (np.sum(norm.ppf(q, 1.0, s) ** 2) + np.sum(norm.isf(q * 0.5, scale=s))
            + np.sum(scipy.special.ndtri(q) ** 3))


# -- unpacking an array taken from a structure (gompertz) -------------------------------------
def gompertz(params, t, y_by_group):
    loss = 0.0
    for g, y in y_by_group.items():
        a, b, c = params[g]
        pred = a * np.exp(-b * np.exp(-c * t))
        loss += ((pred - y) ** 2).sum()
    return loss


def unpack_tuple_elements(ps, t):
    a, b = ps[0]
    s = 0.0
    for p in ps:
        c, d = p
        s = s + np.sum(c * d * t)
    q = ps[1]
    e, f = q
    return np.sum(a * t + b) + s + e * f


# -- slices and sums of shapes (capsule_routing) -----------------------------------------------
def shape_slices(W, u):
    b = np.zeros(W.shape[:2])
    n, m = W.shape[-2:]
    c = np.zeros(W.shape[:1] + (3,)) + np.sum(u)
    k = len(W.shape)
    return (np.sum(b + W[:, :, 0, 0]) + n * m * np.sum(W ** 2) / np.prod(W.shape)
            + np.sum(c * W[:, :3, 0, 1]) + k * np.sum(W[0, 0, 1:3, 0]))


def shape_slice_by_rank(W):
    return np.sum(np.zeros(W.shape[1:]) + W[0])    # a shape whose length is the rank's


# -- an array first assigned under a branch in a loop, its adjoint in the sweep's replay of it
# (capsule_routing: Numba crashed on the adjoint's read of `b`'s increment) --------------------
def routing_in_branch(W, label):
    b = np.zeros((W.shape[0], W.shape[1]))
    for it in range(3):
        c = np.exp(b)
        v = np.tanh(np.einsum("ij,ijk->jk", c, W))
        if it < 2:
            b = b + np.einsum("ijk,jk->ij", W, v)
    lengths = np.sum(v, axis=-1)
    T = np.zeros(W.shape[1])
    T[label] = 1.0
    return np.sum(T * np.maximum(0.0, 0.9 - lengths) ** 2 + lengths)
