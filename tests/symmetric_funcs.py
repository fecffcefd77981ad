"""Functions of a symmetric matrix argument through the decompositions that read one of its
triangles (np.linalg.cholesky, eigh, eigvalsh, SciPy's multivariate normal and cho_factor):
their gradients must be the partial derivatives of the function NumPy/SciPy compute -- what
central differences of the raw function give, entry by entry -- and agree with jvp along any
direction (tests/test_symmetric.py)."""
import numpy as np
import scipy.linalg
from scipy.stats import multivariate_normal

W = np.arange(1.0, 10.0).reshape(3, 3)


def cholesky_weighted(S):
    return np.sum(np.linalg.cholesky(S) * W)


def cholesky_logdet_solve(S):
    sign, logdet = np.linalg.slogdet(S)
    L = np.linalg.cholesky(S)
    z = scipy.linalg.solve_triangular(L, np.ones(3), lower=True)
    return logdet + z @ z


def eigh_values_vectors(S):
    w, V = np.linalg.eigh(S)
    return np.sum(w * np.arange(1.0, 4.0)) + np.sum(V[:, 0] ** 2 * np.arange(3.0))


def eigvalsh_squares(S):
    return np.sum(np.linalg.eigvalsh(S) ** 2 * np.arange(1.0, 4.0))


def mvn_logpdf_cov(S, x):
    return np.sum(multivariate_normal.logpdf(x, np.zeros(3), S))


def mvn_entropy_cov(S):
    return multivariate_normal.entropy(np.zeros(3), S)


def cho_solve_upper(S):
    c = scipy.linalg.cho_factor(S)
    return np.sum(scipy.linalg.cho_solve(c, np.arange(1.0, 4.0)) ** 2)


def cho_solve_lower(S):
    c, low = scipy.linalg.cho_factor(S, lower=True)
    return np.sum(scipy.linalg.cho_solve((c, low), np.arange(1.0, 4.0)) ** 2)


def built_symmetric(B):
    # a symmetric matrix made inside: the chain rule gives the symmetric gradient back
    S = B @ B.T + 3.0 * np.eye(3)
    return np.sum(np.linalg.cholesky(S) * W) + np.sum(np.linalg.eigvalsh(S + S.T))


def _data():
    rng = np.random.default_rng(5)
    A = rng.normal(size=(3, 3))
    S = A @ A.T + 3.0 * np.eye(3)
    return S, rng.normal(size=(4, 3)), A


S, X, B = _data()
CASES = [
    (cholesky_weighted, (S,)),
    (cholesky_logdet_solve, (S,)),
    (eigh_values_vectors, (S,)),
    (eigvalsh_squares, (S,)),
    (mvn_logpdf_cov, (S, X)),
    (mvn_entropy_cov, (S,)),
    (cho_solve_upper, (S,)),
    (cho_solve_lower, (S,)),
    (built_symmetric, (B,)),
]
