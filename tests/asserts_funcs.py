"""Functions with `assert` and `raise` statements and `print` calls (tests/test_asserts.py). Not in a test
module: pytest rewrites the asserts of test modules, and jitad reads the source of the code
that runs."""
import logging
import math
import warnings

import numpy as np

LOG = logging.getLogger("jitad.tests.asserts")


def _norm2(v):
    assert v.shape[0] > 1, "a vector of at least two entries"
    return np.sum(v ** 2)


def guarded(x, w):
    assert x.ndim == 1, f"x must be a vector, got {x.shape}"
    def scaled(z):
        assert z > -10.0
        return z * w
    total = 0.0
    for i in range(x.shape[0]):
        assert w > 0
        total += math.sin(scaled(x[i]))
    return total + _norm2(x)


def chatty(x, w):
    y = np.tanh(x * w)
    print("y is", y)
    if w > 100.0:
        print("a large w:", w)
    return np.sum(y)


def logging_chatty(x, w):
    y = np.tanh(x * w)
    LOG.debug("y is %s", y)
    if w > 100.0:
        logging.warning("a large w: %s", w)
        warnings.warn("w is large")
    return np.sum(y)


def validated(x, w):
    if w <= 0:
        raise ValueError(f"w must be positive, got {w}")
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 1e6:
            raise OverflowError
        s += math.sin(x[i] * w)
    return s


def piecewise_or_raise(x, w):
    if x > 0:
        return x * w
    elif x < -1:
        return -x * w
    raise ValueError("x in [-1, 0]")


def quiet_log_ratio(x, w):
    # contexts that only change how floating-point conditions and warnings are reported
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(np.exp(x * w) + 1.0) / (1.0 + x * x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(over="warn"), np.errstate(under="ignore"):
            s = np.sum(r * w)
    return s



def penalty_by_name(w, kind="L2"):
    # a string argument normalized by a str method: decided when the function is compiled
    if kind.strip().lower() == "l2":
        return np.sum(w ** 2)
    if kind.lower().startswith("l1"):
        return np.sum(np.abs(w))
    return np.sum(np.cos(w))
