"""Held-out corpus #11: JAX-example-style losses (an MLP over a list of (W, b) pairs, softmax
cross-entropy through logsumexp, `has_aux` metrics), autograd-test-style elementwise and
reduction chains (axis tuples, keepdims, where, clip, norm with axis=, einsum strings), lists
built in loops then stacked, `while` with a tolerance, early returns inside loops, recursion,
closures and `functools.partial` over arrays, enumerate/zip loops, integer arithmetic on
shapes, string-keyed dict locals -- written for this corpus by someone who read only the
README (none copied from earlier corpora or other projects). `suites()` holds the functions
of the first kinds, `models()` everyday models; tests/test_heldout11.py checks the reduced
findings.

`python -m tests.heldout11_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`)."""
import functools
import math

import numpy as np
from scipy.special import logsumexp


# -- JAX examples style ------------------------------------------------------------------------
def mlp_predict(params, x):
    h = x
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def mlp_xent(params, X, labels):
    logits = mlp_predict(params, X)
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.sum(logp * labels, axis=1))


def mlp_l2_reg(params, X, labels):
    reg = 0.0
    for W, b in params:
        reg = reg + np.sum(W ** 2) + 0.5 * np.sum(b ** 2)
    return mlp_xent(params, X, labels) + 1e-2 * reg


def logsumexp_by_hand(z):
    m = np.max(z, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))
    return np.sum((z - lse)[:, 0]) + np.sum(lse)


def sigmoid_bce(w, X, y):
    z = X @ w
    return np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def dict_params_loss(p, x):
    h = np.tanh(p["W1"] @ x + p["b1"])
    return np.sum((p["W2"] @ h) ** 2)


# -- autograd tests style --------------------------------------------------------------------------
def sum_axis_tuple_keepdims(x):
    s = np.sum(x ** 2, axis=(0, 2), keepdims=True)
    return np.sum(x * s)


def prod_axis(x):
    return np.sum(np.prod(x, axis=1)) + np.prod(x[0])


def where_broadcast(x, y):
    z = np.where(x > 0, x, y[None, :] * 0.5)
    return np.sum(z ** 2)


def where_scalar_branches(x):
    return np.sum(np.where(x > 0.2, np.sin(x), 0.0) + np.where(x < 0, 1.0, x ** 2))


def clip_chain(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2 + np.clip(x * 2, None, 0.3))


def norm_axis(x):
    return np.sum(np.linalg.norm(x, axis=1)) + np.linalg.norm(x, axis=0, keepdims=True).sum()


def norm_ord_fro(x):
    return np.linalg.norm(x) + np.linalg.norm(x, "fro") + np.linalg.norm(x[0], ord=1)


def einsum_strings(A, B, v):
    t = np.einsum("ij,jk->ik", A, B)
    s = np.einsum("ii->", A)
    q = np.einsum("i,ij,j", v, A, v)
    b = np.einsum("ij,ij->i", A, B)
    return np.sum(t ** 2) + s + q + np.sum(b)


def stack_of_loop_list(x):
    rows = []
    for i in range(x.shape[0]):
        rows.append(np.sin(x[i]) * (i + 1))
    M = np.stack(rows, axis=1)
    return np.sum(M ** 2) + np.sum(np.concatenate(rows))


def concatenate_pieces(x):
    parts = [x[:2] * 2.0, np.exp(x[2:]), np.array([x[0] * x[1]])]
    y = np.concatenate(parts)
    return np.sum(y * np.arange(y.shape[0]))


def mean_var_chain(x):
    mu = x.mean(axis=0)
    v = x.var(axis=0)
    return np.sum((x - mu) / np.sqrt(v + 1e-3)) + np.sum(v)


def cumprod_like_loop(x):
    acc = 1.0
    out = 0.0
    for v in x:
        acc = acc * v
        out = out + acc
    return out


def abs_sign_mix(x):
    return np.sum(np.abs(x) * np.sign(x) + np.abs(x) ** 1.5)


def triu_tril(A):
    return np.sum(np.triu(A) ** 2) - np.sum(np.tril(A, -1))


def outer_trace(a, b):
    M = np.outer(a, b)
    return np.trace(M @ M.T) + np.sum(np.diag(M))


# -- Tangent tests style ---------------------------------------------------------------------------
def while_tolerance(a):
    x = 1.0
    k = 0
    while abs(x * x - a) > 1e-10 and k < 50:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def early_return_in_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * i)
        if s > 1.5:
            return s * x
    return s


def break_in_while(x):
    y = x
    i = 0
    while True:
        y = y * 1.1 + 0.1
        i += 1
        if y > 3.0 or i > 20:
            break
    return y * y


def recursive_power(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        h = recursive_power(x, n // 2)
        return h * h
    return x * recursive_power(x, n - 1)


def recursive_sum_array(x, k):
    if k == 0:
        return x[0]
    return np.tanh(x[k]) + recursive_sum_array(x, k - 1)


def nested_if_elif(x):
    if x > 1.0:
        y = x ** 2
    elif x > 0.0:
        y = math.exp(x)
    else:
        y = -x
    return y * x


def enumerate_zip(xs, ws):
    total = 0.0
    for i, (x, w) in enumerate(zip(xs, ws)):
        total = total + (i + 1) * x * w
    return total


def shape_arithmetic(x):
    n, m = x.shape
    k = n * m // 2
    flat = x.reshape(-1)
    return np.sum(flat[:k] ** 2) / k + np.sum(flat[k:]) / (n + m)


def dict_local_metrics(x):
    stats = {}
    stats["mean"] = np.mean(x)
    stats["ss"] = np.sum((x - stats["mean"]) ** 2)
    total = 0.0
    for key in stats:
        total = total + stats[key]
    return total * stats["ss"]


# -- closures, partial, classes ------------------------------------------------------------------
_XD = np.linspace(-1.0, 1.0, 6).reshape(3, 2)


def make_closure_loss(X):
    def loss(w):
        return np.sum(np.tanh(X @ w) ** 2)
    return loss


def partial_target(w, X, y, lam):
    return np.mean((X @ w - y) ** 2) + lam * np.sum(w ** 2)


class Linear:
    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum(np.sin(self.W @ x))


# -- everyday models -------------------------------------------------------------------------------
def rnn_unrolled(Wh, Wx, xs):
    h = np.zeros(Wh.shape[0])
    hs = []
    for x in xs:
        h = np.tanh(Wh @ h + Wx @ x)
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H[-1] ** 2) + 0.1 * np.mean(H)


def gauss_newton_residual(p, t, y):
    a, b, c = p[0], p[1], p[2]
    r = a * np.exp(-b * t) + c - y
    return 0.5 * np.dot(r, r)


def kmeans_soft(C, X):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    w = np.exp(-d2)
    w = w / np.sum(w, axis=1, keepdims=True)
    return np.sum(w * d2)


def euler_ode(k, y0):
    y = y0
    dt = 0.05
    t = 0.0
    while t < 1.0:
        y = y + dt * (-k * y + np.sin(t))
        t += dt
    return np.sum(y ** 2)


def cosine_similarity_loss(a, b):
    num = np.dot(a, b)
    den = np.linalg.norm(a) * np.linalg.norm(b)
    return 1.0 - num / den


def logistic_with_l1(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -y * z)) + 0.01 * np.sum(np.abs(w))


def poly_features(c, x):
    feats = [x ** k for k in range(4)]
    F = np.stack(feats, axis=1)
    return np.sum((F @ c - np.cos(x)) ** 2)


def attention_head(Wq, Wk, X):
    Q = X @ Wq
    K = X @ Wk
    S = Q @ K.T / math.sqrt(Q.shape[1])
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=1, keepdims=True)
    return np.sum(P @ X)


def piecewise_in_loop(x):
    total = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.5:
            total += v ** 2
        elif v < -0.5:
            total -= v
        else:
            total += 0.25 * v
    return total


def min_over_list(x):
    vals = [np.sum((x - c) ** 2) for c in (0.0, 1.0, -1.0)]
    return min(vals) + 0.1 * max(vals)


# -- has_aux / nested structured outputs (JAX style) ---------------------------------------------
def loss_with_dict_aux(w, X, labels):
    logits = X @ w
    lse = logsumexp(logits, axis=1, keepdims=True)
    loss = -np.mean(np.sum((logits - lse) * labels, axis=1))
    acc = np.mean(np.argmax(logits, axis=1) == np.argmax(labels, axis=1))
    return loss, {"acc": acc, "n": X.shape[0], "logits": logits}


def loss_with_nested_tuple_aux(x):
    y = np.sin(x)
    loss = np.sum(y ** 2)
    return loss, (y, (np.max(y), x.shape[0]))


def loss_with_dict_local_aux(x):
    aux = {}
    aux["m"] = np.mean(x)
    loss = np.sum((x - aux["m"]) ** 2)
    aux["loss"] = loss
    return loss, aux


def loop_over_tuple_display(x, W1, W2):
    s = 0.0
    for c in (0.5, -1.0, 2.0):
        s = s + np.sum(np.tanh(c * x) ** 2)
    hs = [np.sum(W @ x) for W in (W1, W2)]
    return s + sum(hs) + min(np.sum((x - c) ** 2) for c in (0.0, 1.0))


WEIGHTS = (0.5, 1.0, 2.0)
SHAPE = (2, 3)
GAINS = [0.5, 1.0]


def global_tuple_constants(x):
    out = 0.0
    for w in WEIGHTS:
        out = out + w * np.sum(np.sin(x * w))
    n, m = SHAPE
    M = x.reshape(SHAPE)
    return out * WEIGHTS[-1] / len(WEIGHTS) + np.sum(M[:, m - 1] ** 2) + n


def global_list_constants(x):
    return np.sum(x * GAINS[0])  # ERR: make it a tuple of numbers


# -- what stays refused (each at its `# ERR:` line, both modes) ---------------------------------
def _nested_helper(x):
    return np.sum(x), (x, 2.0 * x)  # ERR: nested return


def calls_nested_helper(x):
    a, b = _nested_helper(x)
    return a + np.sum(b[0])


def nested_without_has_aux(x):
    return np.sum(x ** 2), {"m": np.mean(x)}  # ERR: nested return


def structures_differ(x):
    if x[0] > 0:
        return np.sum(x), (x, x)
    return np.sum(x), {"a": x}  # ERR: nested return


def refused_forms():
    """Refused on purpose: a nested output without has_aux (grad needs one float), returns of
    different structures, a global list of numbers (it can change in place, unseen); and (tested apart, its line is the helper's) a helper's nested
    return `calls_nested_helper` (a caller reads a helper's results flat)."""
    x = np.array([0.3, -0.2, 0.5])
    return [(nested_without_has_aux, (x,)), (structures_differ, (x,)),
            (global_list_constants, (x,))]


def suites(seed=11):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (logsumexp_by_hand, (nrm(size=(3, 4)),), (0,)),
        (sigmoid_bce, (nrm(size=3), nrm(size=(5, 3)), (nrm(size=5) > 0) * 1.0), (0,)),
        (sum_axis_tuple_keepdims, (nrm(size=(2, 3, 4)),), (0,)),
        (prod_axis, (nrm(size=(3, 4)),), (0,)),
        (where_broadcast, (nrm(size=(3, 4)), nrm(size=4)), (0, 1)),
        (where_scalar_branches, (nrm(size=5),), (0,)),
        (clip_chain, (nrm(size=6),), (0,)),
        (norm_axis, (nrm(size=(3, 4)),), (0,)),
        (norm_ord_fro, (nrm(size=(3, 4)),), (0,)),
        (einsum_strings, (nrm(size=(3, 3)), nrm(size=(3, 3)), nrm(size=3)), (0, 1, 2)),
        (stack_of_loop_list, (nrm(size=(3, 4)),), (0,)),
        (concatenate_pieces, (nrm(size=5),), (0,)),
        (mean_var_chain, (nrm(size=(5, 3)),), (0,)),
        (cumprod_like_loop, (nrm(size=5),), (0,)),
        (abs_sign_mix, (nrm(size=5),), (0,)),
        (triu_tril, (nrm(size=(4, 4)),), (0,)),
        (outer_trace, (nrm(size=3), nrm(size=4)), (0, 1)),
        (while_tolerance, (2.3,), (0,)),
        (early_return_in_loop, (0.7, 6), (0,)),
        (break_in_while, (0.3,), (0,)),
        (recursive_power, (1.3, 7), (0,)),
        (recursive_sum_array, (nrm(size=5), 4), (0,)),
        (nested_if_elif, (0.4,), (0,)),
        (enumerate_zip, (nrm(size=4), nrm(size=4)), (0, 1)),
        (shape_arithmetic, (nrm(size=(3, 4)),), (0,)),
        (dict_local_metrics, (nrm(size=5),), (0,)),
        (piecewise_in_loop, (nrm(size=7),), (0,)),
        (min_over_list, (nrm(size=3),), (0,)),
        (loop_over_tuple_display, (nrm(size=3), nrm(size=(2, 3)), nrm(size=(2, 3))), (0, 1, 2)),
        (global_tuple_constants, (nrm(size=6),), (0,)),
    ]


def models(seed=22):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    params = [(0.5 * nrm(size=(3, 5)), 0.1 * nrm(size=5)), (0.5 * nrm(size=(5, 4)), 0.1 * nrm(size=4)),
              (0.5 * nrm(size=(4, 2)), 0.1 * nrm(size=2))]
    X = nrm(size=(6, 3))
    labels = np.eye(2)[rng.integers(0, 2, 6)]
    t = np.linspace(0.0, 2.0, 8)
    return [
        (mlp_xent, (params, X, labels), (0,)),
        (mlp_l2_reg, (params, X, labels), (0,)),
        (dict_params_loss, ({"W1": nrm(size=(4, 3)), "b1": nrm(size=4), "W2": nrm(size=(2, 4))},
                            nrm(size=3)), (0,)),
        (rnn_unrolled, (0.3 * nrm(size=(4, 4)), 0.3 * nrm(size=(4, 2)), nrm(size=(5, 2))), (0, 1)),
        (gauss_newton_residual, (np.array([1.2, 0.7, 0.1]), t, np.exp(-t)), (0,)),
        (kmeans_soft, (nrm(size=(3, 2)), nrm(size=(6, 2))), (0,)),
        (euler_ode, (0.8, nrm(size=3)), (0, 1)),
        (cosine_similarity_loss, (nrm(size=4), nrm(size=4)), (0, 1)),
        (logistic_with_l1, (nrm(size=3), nrm(size=(6, 3)), np.sign(nrm(size=6))), (0,)),
        (poly_features, (nrm(size=4), np.linspace(-1, 1, 7)), (0,)),
        (attention_head, (nrm(size=(3, 2)), nrm(size=(3, 2)), nrm(size=(4, 3))), (0, 1)),
        (make_closure_loss(_XD), (nrm(size=2),), (0,)),
        (functools.partial(partial_target, X=_XD, y=np.arange(3.0), lam=0.1), (nrm(size=2),), (0,)),
        (Linear(nrm(size=(3, 2))).loss, (nrm(size=2),), (0,)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(suites() + models(), sys.argv[1:])
