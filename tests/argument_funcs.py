"""Argument forms as people write them (issue 12; tests/test_arguments.py): lists, dicts,
nested tuples and namedtuples of arrays as arguments, structures passed whole to helpers,
helpers whose constant arguments must be static (axis=, keepdims=, ord=, shapes).
Refusals carry an `# ERR: <text>` marker on the line the error must point at."""
from collections import namedtuple

import numpy as np
from scipy.special import logsumexp


# -------------------------------------------------------------------- helpers
def log_softmax(z, axis=-1):
    return z - logsumexp(z, axis=axis, keepdims=True)


def dense(p, x):
    W, b = p
    return np.tanh(x @ W + b)


def net(layers, x):
    for layer in layers:
        x = dense(layer, x)
    return x


def cell(p, x, h):
    z = 1.0 / (1.0 + np.exp(-(p["Wz"] @ x + p["Uz"] @ h)))
    return (1.0 - z) * h + z * np.tanh(p["Wh"] @ x + p["Uh"] @ h)


def reduce_loss(r, mode="mean", axis=None, keepdims=False):
    if mode == "mean":
        return np.mean(r ** 2, axis=axis, keepdims=keepdims)
    return np.sum(r ** 2, axis=axis, keepdims=keepdims)


def norms(x, ord="fro", shape=(3, 2), square=True):
    y = np.linalg.norm(x.reshape(shape), ord=ord)
    if square:
        return y * y
    return y


def repeat_halving(x, n=3):
    for i in range(n):
        x = 0.5 * x + np.sin(x)
    return x


Layer = namedtuple("Layer", "W b")


# -------------------------------------------------------------------- list arguments
def list_mlp(weights, X, y):
    h = X
    for W in weights[:-1]:
        h = np.tanh(h @ W)
    out = h @ weights[-1]
    return np.mean((out[:, 0] - y) ** 2) + 0.01 * len(weights)


def zipped_lists(Ws, bs, X):
    h = X
    for W, b in zip(Ws, bs):
        h = np.tanh(h @ W + b)
    total = 0.0
    for i, W in enumerate(Ws):
        total = total + (i + 1) * np.sum(W ** 2)
    return np.sum(h) + 0.1 * total


def indexed_and_unpacked(weights, x):
    first, second, third = weights
    s = 0.0
    for k in range(len(weights)):
        s = s + np.sum(weights[k] * x[: weights[k].shape[0]])
    return s + np.sum(first) * np.sum(second ** 2) + third[0] + weights[len(weights) - 1][1]


# -------------------------------------------------------------------- dict arguments
def dict_gru(params, xs):
    h = np.zeros(params["Uz"].shape[0])
    for t in range(xs.shape[0]):
        h = cell(params, xs[t], h)
    reg = 0.0
    for W in params.values():
        reg = reg + np.sum(W ** 2)
    for name, W in params.items():
        if name == "Wz":
            reg = reg + np.sum(W)
    return params["w_out"] @ h + 1e-2 * reg


# -------------------------------------------------------------------- nested tuples
def nested_layers(params, X):
    h = X
    for W, b in params:
        h = np.tanh(h @ W + b)
    (W1, b1), (W2, b2) = params
    return np.sum(h) + np.sum(W1 * W1) * np.sum(b2) + params[1][0][0, 0]


def layers_to_helpers(params, X):
    a = dense(params[0], X)
    b = net(params, X)
    c = dense((params[1][0], params[1][1]), a)
    return np.sum(a * b) + np.sum(c)


def namedtuple_layers(layers, X):
    h = X
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return np.sum(h ** 2)


# -------------------------------------------------------------------- constant arguments
def softmax_classifier(W, X, labels):
    logits = X @ W
    logp = log_softmax(logits)
    logq = log_softmax(logits, axis=0)
    return -np.mean(logp[np.arange(X.shape[0]), labels]) - np.mean(logq)


def constant_statics(x, w):
    a = reduce_loss(x * w)
    b = reduce_loss(x - w, mode="sum", axis=0)
    c = np.sum(reduce_loss(x, "mean", 1, True) * w)
    d = norms(x) + norms(x, "fro", (2, 3), False) + norms(x, ord=2, shape=(6,), square=False)
    d = d + norms(x, None, (6,))
    return a + np.sum(b) + c + d + np.sum(repeat_halving(w)) + np.sum(repeat_halving(w, 2))


# -------------------------------------------------------------------- refusals
def index_by_variable(weights, x, k):
    return np.sum(weights[k] * x)  # ERR: tuple index


def dict_pop(params, x):
    return np.sum(params.pop("W") * x)  # ERR: .pop() of a structure


def missing_key(params, x):
    return np.sum(params["V"] * x)  # ERR: dict argument


def break_in_unrolled_loop(weights, x):
    s = 0.0
    for W in weights:
        s = s + np.sum(W * x)
        if s > 10.0:
            break  # ERR: break in an unrolled loop
    return s


def structure_assigned_twice(weights, x):
    # a name given tuples of different lengths (of 1 and 2 items here): refused at the second
    ws = weights[0:1]
    if np.sum(x) > 0.0:
        ws = weights[1:]  # ERR: structure variable
    return np.sum(ws[0] * x)


def structure_as_value(weights, x):
    return np.sum(weights * x)  # ERR: tuple argument


def unpack_wrong_length(weights, x):
    a, b = weights  # ERR: tuple unpacking
    return np.sum(a * b * x)


def helper_assigns_constant(x):
    return assigns_ord(x, "fro")  # ERR: constant argument


def assigns_ord(x, ord):
    if ord == "fro":
        ord = 2
    return np.linalg.norm(x, ord=ord)


def grows(x, n):
    if np.sum(x) > 10.0:
        return x
    return grows(x * 1.5 + np.full(3, n), n + 1)


def changing_constant(x):
    return np.sum(grows(x, 1))
