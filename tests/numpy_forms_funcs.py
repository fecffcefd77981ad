"""NumPy as people write it (issue 12): functions using the call forms, indexing and argument
forms jitad takes since then, each mixing several (tests/test_numpy_forms.py)."""
import math

import numpy as np
import scipy.special
from scipy.special import logsumexp, softmax
from scipy.stats import multivariate_normal, norm
from scipy.stats import t as student


def layer_norm(x, W, b, eps=1e-5, act=True):
    h = x @ W + b
    m = h.mean(axis=-1, keepdims=True)
    v = ((h - m) ** 2).mean(axis=-1, keepdims=True)
    h = (h - m) / np.sqrt(v + eps)
    return np.tanh(h) if act else h


def defaults_and_keywords(W, b, x, y, lam=0.1, eps=1e-5):
    q = layer_norm(x, W, b, act=False)
    return np.mean((q[:, 0] - y) ** 2) + lam * np.sum(W ** 2) + eps


def reductions(X, T):
    a = np.sum(X, axis=1, keepdims=True) * np.max(X, axis=0, keepdims=True)
    b = np.sum(T, axis=(0, 2)) ** 2
    d = np.prod(X, axis=0) + np.cumsum(X, axis=1)[:, -1].sum() + np.prod(X[0])
    e = np.sum(X[0], axis=0, keepdims=True) * X[0]      # a 1-D axis reduction kept: shape (1,)
    f = np.var(X[0], axis=0, ddof=1)        # an axis form of a vector keeps its ddof=
    return np.sum(a) + np.sum(b) + np.sum(d) + np.sum(X, keepdims=True)[0, 0] + np.sum(e) + f


def new_axes(X, v):
    d = X[:, None, :] - X[None, :, :]
    k = np.exp(-np.sum(d ** 2, axis=-1))
    outer = v[:, np.newaxis] * v[None, :]
    return np.sum(k) + np.sum(outer) + np.sum(X[..., None] * 2.0) + X.shape[-1] * np.sum(v)


def scans_and_shapes(v, X):
    r = np.cumsum(v) ** 2 + np.cumprod(v) + np.diff(np.concatenate((v, v))).sum()
    s = np.ravel(X) * np.arange(X.size) + X.flatten()
    t = np.transpose(X, (1, 0)) @ X + np.swapaxes(X, 0, 1) @ X
    u = np.flip(v) * v + np.squeeze(np.expand_dims(v, 0), axis=0)
    n, = v.shape            # a vector's one length, unpacked (was Numba's typing error)
    eps = np.finfo(float).eps + np.finfo(np.float32).tiny      # machine limits: constants
    return np.sum(r) + np.sum(s) + np.sum(t) + np.sum(u) * n + np.sum(np.sqrt(v ** 2 + eps))


def matrices(X, v):
    n = v.shape[0]
    A = X @ X.T + np.eye(n)
    sign, logdet = np.linalg.slogdet(A)
    L = np.linalg.cholesky(A)
    x = np.linalg.solve(A, v)
    B = np.diag(v) + np.diag(v[:2], 1) + np.triu(A, 1) + np.tril(A, -1)
    return (np.sum(x * v) + np.linalg.det(A) + np.trace(np.linalg.inv(A)) + sign * logdet
            + 2.0 * np.sum(np.log(np.diag(L))) + np.sum(B ** 2) + np.sum(np.cross(v, x)))


def creation(a, b, s):
    t = np.linspace(a, b, 7)
    grid = np.full((2, 3), s) + np.full_like(np.ones(3), a)
    r = np.arange(a, 10.0, 4.0)
    return np.sum(t ** 2) + np.sum(grid ** 2) + np.sum(r * s) + np.sum(np.identity(3) * b)


def stacks_and_lists(a, b, s):
    A = np.stack((a, b))
    B = np.stack([a, b], axis=-1)
    C = np.vstack((a, b)) + np.vstack((A, A))[:2]
    D = np.hstack((a, b, a))
    E = np.column_stack((a, b))
    F = np.array([s, s * 2.0, 1.0])
    G = np.array([[s, 1.0], [s * s, 2.0]])
    return (np.sum(A * A) + np.sum(B[:, 0] * B[:, 1]) + np.sum(C) + np.sum(D ** 2)
            + np.sum(E @ G) + np.sum(F ** 2) + np.sum(np.concatenate([a, b]) ** 3))


def unpacking_and_loops(W, xs, ys):
    a, b = W[:2]
    i, f, o = np.split(xs[0], 3)
    total = a * b + np.sum(i * f - o)
    for x, y in zip(xs, ys):
        total += (np.dot(W, x) - y) ** 2
    for k, x in enumerate(xs):
        total += k * np.sum(x * W)
    return total


def classifier(W, X, labels):
    z = X @ W
    p = softmax(z, axis=-1)
    lse = logsumexp(z, axis=1, keepdims=True)
    logp = scipy.special.log_softmax(z, axis=1)
    n = X.shape[0]
    nll = -np.log(p[np.arange(n), labels]).mean()
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    return nll + np.sum(lse ** 2) * 0.01 + np.sum(logp * 0.1) + np.sum(Xn @ W) + math.sqrt(2.0)


def unpack_too_many(v):
    a, b = v
    return a * b


def padded_signal(a, v, x):
    s = np.convolve(np.pad(a, (1, 2), constant_values=0.5), v, mode="same")
    k = np.roll(np.repeat(s, 2), 1) + np.tile(v, 6)[:s.shape[0] * 2]
    V = np.vander(x, 3)
    X, Y = np.meshgrid(x, v)
    return np.sum(k ** 2) + np.sum(V @ x[:3]) + np.sum(X * Y) + np.average(s, weights=np.abs(s) + 1.0)


def summations(A, B, v):
    C = np.einsum("ij,jk->ik", A, B)
    q = np.einsum("i,ij,j", v[:3], A @ A.T, v[:3])
    t = np.tensordot(A, B.T, axes=((1,), (1,))) + np.inner(A, B.T)
    K = np.kron(A[:2, :2], np.eye(2))
    return np.sum(C ** 2) + q + np.sum(t ** 2) + np.einsum("ii", K) + np.sum(np.diagonal(C) * A.diagonal()[:2])


def running_extremes(x, X):
    best = np.maximum.accumulate(x)
    low = np.minimum.accumulate(X, axis=0)
    return np.sum(best * np.arange(x.shape[0])) + np.sum(np.moveaxis(low, 0, 1) ** 2)


def probit(w, X, y):
    z = X @ w
    return -np.sum(y * norm.logcdf(z) + (1.0 - y) * norm.logcdf(-z)) + np.sum(norm.logpdf(w, scale=2.0))


def decompositions(S, A):
    lam, V = np.linalg.eigh(S @ S.T + np.diag(np.arange(S.shape[0]) * 1.0))
    Q, R = np.linalg.qr(A)
    U, s, Vt = np.linalg.svd(S)         # full_matrices=True of a square matrix: the reduced SVD
    return (np.sum(lam ** 2) + np.sum((V[:, -1] * S[:, 0]) ** 2) + np.sum(R ** 2)
            + np.sum(np.abs(Q @ R - A)) + np.sum(s ** 3) + np.sum((Vt.T @ U.T) * S))


def refused_einsum_ellipsis(A):
    return np.sum(np.einsum("ijk...->i", A))   # '...' of a matrix with three letters named


def refused_pad_mode(x):
    return np.sum(np.pad(x, 1, mode="mean"))


def refused_repeat_no_axis(X):
    return np.sum(np.repeat(X, 2))


# -- issue 12, autograd's NumPy functions: forms refused at the call (tests/test_numpy_forms.py)

def refused_eig(A):  # ERR: returns a complex value
    w, V = np.linalg.eig(A)
    return np.sum(w)


def refused_eigvals(A):  # ERR: returns a complex value
    return np.sum(np.linalg.eigvals(A))


def refused_rot90_axes(A):
    return np.sum(np.rot90(A, 1, axes=(0, 2)))  # ERR: axes=


def refused_gradient_of_matrix(A):
    return np.sum(np.gradient(A))  # ERR: vector


def refused_gradient_spacing(A):
    return np.sum(np.gradient(A, 0.5, 0.25)[0])  # ERR: one spacing


def full_svd_of_a_tall_matrix(A):
    U, s, Vh = np.linalg.svd(np.vstack((A, A)))     # U's last 3 columns: arbitrary
    return np.sum(U)


def full_svd_determined_parts(A):
    t = np.linalg.svd(np.vstack((A, A)))            # U (6 x 6) not read at all
    U, s, Vh = np.linalg.svd(np.hstack((A, 2.0 * A)).T)
    return np.sum(t[1]) + np.sum(t[-1] ** 3) + np.sum(U[:, :3] ** 3) + np.sum(Vh * s)


def refused_broadcast_to_int(A):
    return np.sum(np.broadcast_to(A[0], 3))  # ERR: as a tuple


def refused_logsumexp_return_sign(A):
    return scipy.special.logsumexp(A, axis=0, b=A, return_sign=True)[0][0]  # ERR: return_sign


def refused_sort_kind(A):
    return np.sum(np.sort(A, kind="stable"))  # ERR: kind


def refused_polygamma_array_order(A):
    return np.sum(scipy.special.polygamma(np.array([1, 2]), A[0, :2]))  # ERR: one integer n


def pinv_rank_deficient(A):
    return np.sum(np.linalg.pinv(np.outer(A[0], A[0])))


def nan_operands(x, y):
    return np.sum(np.fmax(x, y) * np.array([1.0, 2.0, 3.0])) + np.sum(np.fmin(y, x)) \
        + np.sum(np.nan_to_num(x) * np.array([4.0, 5.0, 6.0]))


# -- issue 12, scipy.stats distributions imported by name

def distributions(x, df, mu):
    X = np.array([[x, 0.5], [0.1, x]])
    return (student.logpdf(x, df) + np.sum(multivariate_normal.logpdf(X, np.array([0.0, mu]),
                                                                      np.eye(2) * df))
            + student.pdf(mu, df, scale=2.0))


def refused_mvn_without_cov(A):
    return multivariate_normal.logpdf(A[0], A[1])  # ERR: multivariate_normal.logpdf


def refused_t_sf(A):
    return np.sum(student.sf(A[0], 3.0))  # ERR: sf


def variance_over_axes(x):
    """np.var / np.std over a tuple of axes (ddof=, keepdims=; `forms.variance_steps`) and a
    sum over axes that cross at the rank (`axis=(2, -2)`)."""
    v = np.var(x, axis=(0, 2))
    s = np.std(x, axis=(-1, 0), ddof=1, keepdims=True)
    return np.sum(v * v) + np.sum(s * x) + np.sum(np.sum(x * x, axis=(2, -2)) * v[0])


def trace_of_a_stack(x, A):
    """np.trace of a rank-3 array (the einsum 'ii...->...', `forms.trace_at`) and of a
    matrix (its own rule), as a method too."""
    return np.sum(np.sin(np.trace(x)) * np.arange(1.0, 5.0)) + np.trace(A) * A.trace()


def repeat_of_a_stack(x):
    """np.repeat of a rank-3 array along an axis (`repeat.n`: as (outer, n, inner))."""
    return np.sum(np.sin(np.repeat(x, 2, axis=1)) * np.repeat(x, 2, axis=1)) + np.sum(
        np.repeat(x, 3, axis=-1) ** 2) + np.sum(np.cos(np.repeat(x, 2, axis=0)))
