"""The mechanisms held-out corpus #4 (tests/heldout4_funcs.py) needed, one small function each
(tests/test_heldout4_forms.py runs them in both modes). Refusals mark their offending line
with `# ERR: <text the error names>`."""
import math

import numpy as np


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
    return np.sum(np.array(sorted(x)))  # ERR: the builtin sorted() is not supported
