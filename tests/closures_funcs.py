"""Functions that read arrays from globals and closure variables (tests/test_closures.py).

The arrays are module globals the tests mutate and rebind; each test restores them."""
from dataclasses import dataclass

import numpy as np

rng = np.random.default_rng(11)
X = rng.normal(size=(6, 3))
y = rng.normal(size=6)
PARAMS = [rng.normal(size=(3, 3)), rng.normal(size=3)]      # a list of arrays
TABLE = {"W": rng.normal(size=(3, 3)), "b": rng.normal(size=3)}
SCALE = 0.5                                                   # a number: a constant


@dataclass
class Hyper:
    reg: float
    center: np.ndarray


HYPER = Hyper(0.1, rng.normal(size=3))                       # a dataclass object: a config


def loss(w):
    return np.sum((X @ w - y) ** 2) * SCALE


def predict(w):
    return np.tanh(X @ w)


def smooth(s):
    return np.sum(np.sin(s * X) * y[:, None])


def features(w):
    return np.tanh(X @ w)


def uses_helper(w):
    return np.sum(features(w) * y) + np.sum(w ** 2)


def twice(w):
    return features(w) * 2.0


def local_named_X(w):
    X = w * 3.0                 # its own X: the helper's X is passed under another name
    return np.sum(twice(X) ** 2)


def mlp(x):
    W, b = PARAMS
    return np.sum(np.tanh(W @ x + b))


def from_dict(x):
    return np.sum(np.tanh(TABLE["W"] @ x) * TABLE["b"])


def per_sample(w, xi, yi):
    return (np.dot(w, xi) - yi) ** 2 + 1e-3 * np.sum(w ** 2) * np.sum(y ** 2)


def make_loss(A, b):
    def loss(w):
        return np.sum(np.sin(A @ w) * b)
    return loss


def nested_calls_helper(w):
    def inner(v):
        return features(v)
    return np.sum(inner(w))


def recursive(w, n):
    if n == 0:
        return np.sum(np.sin(X @ w))
    return recursive(np.tanh(w * y[:3]), n - 1)


OFFSET = 0.5                    # a number the tests rebind to an array and back


def shifted(w):
    return np.sum((w - OFFSET) ** 2)


def from_dataclass(x):
    return np.sum((X @ x - y) ** 2) + HYPER.reg * np.sum((x - HYPER.center) ** 2)
