"""Held-out corpus #23: ordinary Python / NumPy that earlier sessions left refused, written the
way people write it, and everyday models in areas corpora 5-22 did not cover. (a) item writes
into list locals (`hs = [None] * T` then `hs[t] = h`, `[np.zeros(n) for _ in range(T)]` then
written, `acc[i] += v`); (b) f-strings in `assert cond, f"..."` and `raise ValueError(f"...")`
messages and as dict keys built from constants; (c) constant sets (`kind in {"a", "b"}`,
`set([...])` and frozenset globals); (d) plain-class objects (not dataclasses) read from a
global or a closure: attributes that are numbers or arrays, methods; (e) NumPy leftovers:
np.squeeze without axis=, x[np.nonzero(m)], x[np.where(m)], np.vectorize, np.apply_along_axis,
zip(*rows) of a list of tuples, np.logaddexp.accumulate; (f) generator functions summed or
iterated; try/except; reductions over a tuple of axes; (g) everyday models: a small GNN message
pass, optical-flow smoothness, a Gumbel-softmax relaxation, a Poisson GLM with exposure offsets,
Procrustes alignment, a kernel ridge objective, a von Mises mixture, a stochastic-volatility
particle-free filter, a linear-chain CRF with a plain-class model, an ordinal logit.
Written for this corpus (none copied from earlier corpora or other projects).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`jacobians()` vector functions for jacfwd / jacrev / jvp; `HESSIANS` names cases checked by
hessian / hvp too (tests/test_heldout23.py).

`python -m tests.heldout23_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import math

import numpy as np
from scipy.special import logsumexp

# -- (a) item writes into list locals ----------------------------------------------------------


def rnn_prealloc_none(w, u, xs):
    T = xs.shape[0]
    hs = [None] * T
    h = 0.0
    for t in range(T):
        h = np.tanh(w * h + u * xs[t])
        hs[t] = h
    return sum(hs) / T


def rnn_prealloc_zeros(W, U, X):
    T, n = X.shape[0], W.shape[0]
    hs = [np.zeros(n) for _ in range(T)]
    h = np.zeros(n)
    for t in range(T):
        h = np.tanh(W @ h + U @ X[t])
        hs[t] = h
    return np.sum(np.stack(hs) ** 2)


def list_fill_by_index(x):
    n = x.shape[0]
    vals = [0.0] * n
    for i in range(n):
        vals[i] = x[i] ** 2 + 0.5 * x[i]
    return vals[0] * vals[-1] + sum(vals)


def list_item_augassign(x):
    acc = [0.0, 0.0, 0.0]
    for i in range(x.shape[0]):
        acc[i % 3] += x[i] * x[i]
    return acc[0] + 2.0 * acc[1] + 3.0 * acc[2]


def list_item_overwrite(x):
    ratings = [x[0], x[1], x[2]]
    ratings[1] = ratings[1] + x[0]
    ratings[2] = ratings[2] * ratings[1]
    return ratings[1] * ratings[2] + ratings[0]


# -- (b) f-strings -----------------------------------------------------------------------------


def assert_fstring(x, W):
    assert x.ndim == 1, f"expected a vector, got shape {x.shape}"
    assert W.shape[1] == x.shape[0], f"W has {W.shape[1]} columns, x has {x.shape[0]}"
    return np.sum(np.tanh(W @ x) ** 2)


def raise_fstring(x, tau):
    if tau <= 0.0:
        raise ValueError(f"tau must be positive, got {tau}")
    if x.shape[0] < 2:
        raise ValueError(f"need at least two points, got {x.shape[0]}")
    return logsumexp(x / tau) * tau


def fstring_dict_keys(Ws, x):
    params = {}
    for i in range(len(Ws)):
        params[f"layer{i}"] = Ws[i]  # ERR: f-string
    h = x
    for i in range(len(Ws)):
        h = np.tanh(params[f"layer{i}"] @ h)
    return np.sum(h ** 2)


def fstring_key_names(a, b):
    coefs = {f"c{k}": float(k + 1) for k in range(3)}
    return coefs["c0"] * a + coefs["c1"] * b + coefs["c2"] * a * b


# -- (c) constant sets -------------------------------------------------------------------------


def _penalty(w, kind):
    if kind in {"l2", "ridge"}:
        return np.sum(w ** 2)
    elif kind in {"l1", "lasso"}:
        return np.sum(np.sqrt(w ** 2 + 1e-6))
    return 0.0


def set_literal_dispatch(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2) + 0.1 * _penalty(w, "ridge") + 0.01 * _penalty(w, "lasso")


SMOOTH_ACTS = {"tanh", "softplus"}
ALLOWED_LOSSES = frozenset(["mse", "huber"])


def _act(z, name):
    if name in SMOOTH_ACTS:
        return np.tanh(z) if name == "tanh" else np.logaddexp(0.0, z)
    return np.maximum(z, 0.0)


def set_global_membership(W, x):
    h = _act(W @ x, "softplus")
    return np.sum(_act(h, "tanh"))


def set_call_of_constants(w, X, y, loss="huber"):
    if loss not in ALLOWED_LOSSES:
        raise ValueError(f"unknown loss {loss}")
    r = X @ w - y
    if loss in set(["huber"]):
        return np.sum(np.where(np.abs(r) < 1.0, 0.5 * r ** 2, np.abs(r) - 0.5))
    return np.sum(r ** 2)


# -- (d) plain-class objects -------------------------------------------------------------------


class Config:
    def __init__(self):
        self.lr = 0.1
        self.l2 = 1e-2
        self.steps = 3


CFG = Config()


def plain_config_global(w, X, y):
    for _ in range(CFG.steps):
        g = X.T @ (X @ w - y) / X.shape[0] + CFG.l2 * w
        w = w - CFG.lr * g
    return np.sum((X @ w - y) ** 2)


class Linear:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return self.W @ x + self.b

    def predict(self, x):
        return np.tanh(self.W @ x + self.b)


_rng_l = np.random.default_rng(230)
LAYER = Linear(0.5 * _rng_l.normal(size=(3, 4)), 0.1 * _rng_l.normal(size=3))


def plain_object_attrs(x):
    z = LAYER.W @ x + LAYER.b
    return np.sum(np.tanh(z) ** 2)


def plain_object_method(x):
    return np.sum(LAYER.predict(x) ** 2) + np.sum(LAYER(x))


def make_scorer(temperature):
    class Scorer:
        def __init__(self, t):
            self.t = t

        def score(self, z):
            return logsumexp(z / self.t) * self.t

    sc = Scorer(temperature)

    def loss(z):
        return sc.score(z) - np.mean(z)
    return loss


closure_object_method = make_scorer(0.7)


# -- (e) NumPy leftovers -----------------------------------------------------------------------


def squeeze_known(x, W):
    col = (W @ x)[:, None]
    s = np.sum(W, axis=1, keepdims=True)
    return np.sum(np.squeeze(col) * np.squeeze(s))  # ERR: squeeze() needs axis=


def nonzero_gather(x, m):
    return np.sum(x[np.nonzero(m)] ** 2)


def where_one_arg(x):
    pos = np.where(x > 0.0)
    return np.sum(np.log1p(x[pos])) + np.sum(x)


def _soft_clip(v):
    return v / (1.0 + abs(v))


def vectorize_scalar(x):
    f = np.vectorize(_soft_clip)
    return np.sum(f(x) ** 2)


def _row_norm(r):
    return np.sqrt(np.sum(r ** 2) + 1e-3)


def apply_along_rows(X):
    return np.sum(np.apply_along_axis(_row_norm, 1, X))


def zip_star_pairs(a, b):
    rows = [(a, b), (b, a * b), (a + b, 1.0)]
    firsts, seconds = zip(*rows)
    return sum(firsts) * sum(seconds)


def logaddexp_running(x):
    return np.sum(np.logaddexp.accumulate(x))


# -- (f) generators, try/except, tuple axes ----------------------------------------------------


def _squares(x):
    for i in range(x.shape[0]):
        yield x[i] ** 2


def generator_sum(x):
    return sum(_squares(x)) + x[0]


def _pairs(x):
    for i in range(x.shape[0] - 1):
        yield x[i], x[i + 1]


def generator_loop(x):
    tot = 0.0
    for a, b in _pairs(x):  # ERR: `for a, b in ...`
        tot += (b - a) ** 2
    return tot


def tuple_axis_reductions(X):
    T = X.reshape(2, 3, 2)
    return np.sum(np.sum(T, axis=(0, 2)) ** 2) + np.sum(np.mean(T ** 2, axis=(1, 2))) \
        + np.max(T, axis=(0, 1))[0]


def tuple_axis_var_std(X):
    T = X.reshape(2, 3, 2)
    return np.sum(np.var(T, axis=(0, 2))) + np.sum(np.std(T, axis=(1, 2)))


# -- (g) everyday models -----------------------------------------------------------------------


def gnn_message_pass(W_msg, W_upd, H, A):
    msgs = A @ np.tanh(H @ W_msg)
    deg = np.sum(A, axis=1, keepdims=True)
    H2 = np.tanh(H @ W_upd + msgs / deg)
    return np.sum(H2 ** 2)


def optical_flow_smoothness(u, v, I0, I1, alpha):
    Ix = np.diff(I0, axis=1)[:-1, :]
    Iy = np.diff(I0, axis=0)[:, :-1]
    It = (I1 - I0)[:-1, :-1]
    data = np.sum((Ix * u[:-1, :-1] + Iy * v[:-1, :-1] + It) ** 2)
    smooth = np.sum(np.diff(u, axis=0) ** 2) + np.sum(np.diff(u, axis=1) ** 2) \
        + np.sum(np.diff(v, axis=0) ** 2) + np.sum(np.diff(v, axis=1) ** 2)
    return data + alpha * smooth


def gumbel_softmax_loss(logits, g, tau, target):
    y = (logits + g) / tau
    y = y - np.max(y, axis=-1, keepdims=True)
    p = np.exp(y) / np.sum(np.exp(y), axis=-1, keepdims=True)
    return np.sum((p - target) ** 2)


def poisson_glm_exposure(beta, X, y, exposure):
    eta = X @ beta + np.log(exposure)
    mu = np.exp(eta)
    return np.sum(mu - y * eta)


def procrustes_alignment(theta, s, P, Q):
    c, sn = np.cos(theta), np.sin(theta)
    R = np.array([[c, -sn], [sn, c]])
    pred = s * (P @ R.T)
    return np.mean(np.sum((pred - Q) ** 2, axis=1))


def kernel_ridge_objective(alpha, log_ls, X, y, lam):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / np.exp(2.0 * log_ls))
    r = K @ alpha - y
    return 0.5 * np.sum(r ** 2) + 0.5 * lam * alpha @ K @ alpha


def von_mises_mixture(mus, log_kappas, logit_w, theta):
    kap = np.exp(log_kappas)
    logw = logit_w - logsumexp(logit_w)
    comp = kap[None, :] * np.cos(theta[:, None] - mus[None, :]) \
        - np.log(2.0 * np.pi * np.i0(kap))[None, :] + logw[None, :]
    return -np.sum(logsumexp(comp, axis=1))


def ordinal_logit(beta, cuts, X, y):
    eta = X @ beta
    K = cuts.shape[0] + 1
    total = 0.0
    for i in range(X.shape[0]):
        k = int(y[i])
        hi = 1.0 if k == K - 1 else 1.0 / (1.0 + np.exp(-(cuts[k] - eta[i])))
        lo = 0.0 if k == 0 else 1.0 / (1.0 + np.exp(-(cuts[k - 1] - eta[i])))
        total -= np.log(hi - lo)
    return total


class ChainCRF:
    def __init__(self, trans):
        self.trans = trans

    def log_partition(self, emit):
        alpha = emit[0]
        for t in range(1, emit.shape[0]):
            alpha = logsumexp(alpha[:, None] + self.trans, axis=0) + emit[t]
        return logsumexp(alpha)


CRF = ChainCRF(np.array([[0.5, -0.2, 0.1], [0.0, 0.3, -0.4], [0.2, 0.1, 0.0]]))


def crf_plain_class(W, X, tags):
    emit = X @ W
    score = emit[0, tags[0]]
    for t in range(1, X.shape[0]):
        score = score + emit[t, tags[t]] + CRF.trans[tags[t - 1], tags[t]]
    return CRF.log_partition(emit) - score


def stochastic_vol_quasi(mu, phi, log_s, r):
    s2 = np.exp(2.0 * log_s)
    h = mu
    P = s2 / (1.0 - phi ** 2)
    ll = 0.0
    for t in range(r.shape[0]):
        yt = np.log(r[t] ** 2 + 1e-8) + 1.27
        S = P + 4.93
        ll += -0.5 * (np.log(2.0 * np.pi * S) + (yt - h) ** 2 / S)
        K = P / S
        h = h + K * (yt - h)
        P = (1.0 - K) * P
        h = mu + phi * (h - mu)
        P = phi ** 2 * P + s2
    return -ll


def rnn_hs_readout(W, U, v, X):
    T = X.shape[0]
    hs = [None] * T
    h = np.zeros(W.shape[0])
    for t in range(T):
        h = np.tanh(W @ h + U @ X[t])
        hs[t] = h
    assert len(hs) == T, f"{len(hs)} states for {T} steps"
    return sum(np.dot(v, hs[t]) for t in range(T)) / T


# -- more of the new forms ---------------------------------------------------------------------


def rnn_states_with_initial(w, x):
    T = x.shape[0]
    hs = [None] * (T + 1)
    hs[0] = 0.1
    for t in range(T):
        hs[t + 1] = np.tanh(w * x[t]) + 0.5
    return sum(hs[k] * hs[k] for k in range(T + 1)) + hs[-1] * hs[1]


def overwrite_after_fill(x):
    T = x.shape[0]
    hs = [None] * T
    for t in range(T):
        hs[t] = x[t] * 2.0
        if x[t] > 0:
            hs[t] = hs[t] * x[t]
    return hs[-1] * hs[0] + sum(hs)


def nested_generator_terms(x):
    def terms(v):
        for k in range(v.shape[0]):
            if v[k] > 0:
                yield v[k] ** 2
            else:
                yield -v[k]
    return sum(terms(x)) + max(terms(x))


def nested_list_helper_sum(x):
    def terms(v):
        acc = []
        for k in range(v.shape[0]):
            acc.append(np.sin(v[k]) * v[0])
        return acc
    return sum(terms(x)) + np.sum(terms(x)) * 0.5


def membership_of_names(x, k=2):
    s = 0.0
    for i in range(x.shape[0]):
        if i in (0, k):
            s += x[i] ** 2
        if i not in [1]:
            s += x[i]
    return s


def list_rewrite_in_index_loop(x):
    vals = [x[0], x[1], x[2]]
    for i in range(len(vals)):
        vals[i] = vals[i] * x[i] + (vals[i - 1] if i > 0 else 0.0)
    return vals[0] + vals[1] * vals[2]


def apply_along_cols(X):
    Z = np.apply_along_axis(lambda c: c * np.sum(c ** 2), 0, X)
    return np.sum(Z * X) + np.sum(np.apply_along_axis(np.sum, 1, X) ** 2)


def vectorize_lambda(x):
    return np.sum(np.vectorize(lambda v: v * v if v > 0 else -v)(x.reshape(2, 2)))


# -- refused on purpose --------------------------------------------------------------------------


def try_except_fallback(x):
    try:  # ERR: try
        v = np.log(x)
    except FloatingPointError:
        v = x
    return np.sum(v)


def read_before_fill(x):
    T = x.shape[0]
    hs = [None] * T  # ERR: a repeated list
    for t in range(T):
        prev = hs[t - 1] if t > 0 else 1.0
        hs[t] = prev * x[t]
    return hs[-1]


def nested_list_through_name(x):
    def terms(v):
        acc = []
        for k in range(v.shape[0]):
            acc.append(v[k] ** 2)
        return acc
    t = terms(x)
    return sum(t)


def jacobians(seed=2323):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [(lambda_list_map, (nrm(size=4),), 0), (vectorize_map, (nrm(size=(2, 2)),), 0)]


def vectorize_map(X):
    soft = np.vectorize(_soft_clip)
    return soft(X) * X[0, 0] + np.apply_along_axis(np.sum, 0, X)


def lambda_list_map(x):
    out = [None] * x.shape[0]
    for i in range(x.shape[0]):
        out[i] = np.sin(x[i]) * x[0]
    return np.array(out)


def refused_forms():
    """Refused on purpose, both modes, at the marked line: try/except (what raises is not
    known when jitad compiles); np.squeeze without axis= (which axes have length one is not
    known when the front end reads it); a for loop unpacking a generator's pairs (a list of tuples is read
    by unpacking its elements); f-strings
    as dict keys (keys are constants jitad reads in the source); a list made as
    [None] * n read before the loop fills it. (A nested function's list reaching sum through
    a name, `t = terms(x); sum(t)`, was refused here: accepted since `nested_list_makers`;
    a dict comprehension of f-string keys over a constant range, `fstring_key_names`, is a
    case since reach25: `fstring_keys`.)"""
    x = np.array([0.3, -0.6, 0.9, 0.2, -1.1])
    return [(try_except_fallback, (np.array([0.3, 0.6]),)),
            (squeeze_known, (x[:3], np.ones((2, 3)))),
            (generator_loop, (x,)),
            (fstring_dict_keys, ([np.eye(3), np.ones((2, 3))], x[:3])),
            (read_before_fill, (x,))]


def cases(seed=23):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(6, 3))
    y = nrm(size=6)
    n = 4
    return [
        (rnn_prealloc_none, (0.7, -0.4, nrm(size=5)), (0, 1)),
        (rnn_prealloc_zeros, (0.4 * nrm(size=(3, 3)), 0.4 * nrm(size=(3, 2)), nrm(size=(4, 2))),
         (0, 1)),
        (list_fill_by_index, (nrm(size=4),), (0,)),
        (list_item_augassign, (nrm(size=7),), (0,)),
        (list_item_overwrite, (nrm(size=3),), (0,)),
        (fstring_key_names, (0.3, -1.2), (0, 1)),
        (assert_fstring, (nrm(size=3), nrm(size=(2, 3))), (0, 1)),
        (raise_fstring, (nrm(size=4), 0.8), (0, 1)),
        (set_literal_dispatch, (nrm(size=3), X, y), (0,)),
        (set_global_membership, (0.5 * nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (set_call_of_constants, (nrm(size=3), X, y), (0,)),
        (plain_config_global, (nrm(size=3), X, y), (0,)),
        (plain_object_attrs, (nrm(size=4),), (0,)),
        (plain_object_method, (nrm(size=4),), (0,)),
        (closure_object_method, (nrm(size=4),), (0,)),
        (vectorize_scalar, (nrm(size=4),), (0,)),
        (apply_along_rows, (nrm(size=(3, 4)),), (0,)),
        (generator_sum, (nrm(size=4),), (0,)),
        (tuple_axis_reductions, (nrm(size=(3, 4)),), (0,)),
        (tuple_axis_var_std, (nrm(size=(3, 4)),), (0,)),
        (gnn_message_pass, (0.5 * nrm(size=(3, 3)), 0.5 * nrm(size=(3, 3)), nrm(size=(n, 3)),
                            np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 0], [0, 1, 0, 1.0]])),
         (0, 1, 2)),
        (optical_flow_smoothness, (0.1 * nrm(size=(4, 5)), 0.1 * nrm(size=(4, 5)),
                                   nrm(size=(4, 5)), nrm(size=(4, 5)), 0.3), (0, 1, 4)),
        (gumbel_softmax_loss, (nrm(size=(3, 4)), rng.gumbel(size=(3, 4)), 0.7,
                               np.eye(4)[[0, 2, 3]]), (0, 2)),
        (poisson_glm_exposure, (0.3 * nrm(size=3), X, np.array([1.0, 0, 3, 2, 0, 1]),
                                rng.uniform(0.5, 2.0, size=6)), (0,)),
        (procrustes_alignment, (0.4, 1.2, nrm(size=(5, 2)), nrm(size=(5, 2))), (0, 1)),
        (kernel_ridge_objective, (nrm(size=6), 0.1, X, y, 0.3), (0, 1)),
        (von_mises_mixture, (np.array([0.1, 2.0]), np.array([0.3, -0.2]), np.array([0.2, -0.1]),
                             rng.uniform(-np.pi, np.pi, size=7)), (0, 1, 2)),
        (ordinal_logit, (0.5 * nrm(size=3), np.array([-0.5, 0.4, 1.2]), X,
                         np.array([0, 1, 3, 2, 1, 0])), (0, 1)),
        (crf_plain_class, (0.5 * nrm(size=(3, 3)), X[:4], np.array([0, 2, 1, 1])), (0,)),
        (stochastic_vol_quasi, (-0.5, 0.8, -1.0, 0.1 * nrm(size=6)), (0, 1, 2)),
        (rnn_hs_readout, (0.4 * nrm(size=(3, 3)), 0.4 * nrm(size=(3, 2)), nrm(size=3),
                          nrm(size=(4, 2))), (0, 1, 2)),
        (rnn_states_with_initial, (0.8, nrm(size=4)), (0, 1)),
        (overwrite_after_fill, (nrm(size=4),), (0,)),
        (nested_generator_terms, (nrm(size=4),), (0,)),
        (nested_list_helper_sum, (nrm(size=4),), (0,)),
        (membership_of_names, (nrm(size=4),), (0,)),
        (list_rewrite_in_index_loop, (nrm(size=3),), (0,)),
        (apply_along_cols, (nrm(size=(3, 4)),), (0,)),
        (vectorize_lambda, (nrm(size=4),), (0,)),
        # refused until reach24 (`jitad/nonzero_index.py`, the primitive logcumsumexp)
        (nonzero_gather, (nrm(size=5), np.array([True, False, True, True, False])), (0,)),
        (where_one_arg, (nrm(size=5),), (0,)),
        (logaddexp_running, (nrm(size=5),), (0,)),
        (zip_star_pairs, (0.7, -0.4), (0, 1)),
        (nested_list_through_name, (np.array([0.4, -0.9, 1.3, 0.2]),), (0,)),
    ]


HESSIANS = ["rnn_prealloc_zeros", "list_item_augassign", "plain_object_method",
            "generator_sum", "apply_along_rows"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
