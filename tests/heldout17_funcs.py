"""Held-out corpus #17: the Python language in numerical code, the way a README reader writes
it, from angles the earlier corpora lack. Parameters held in a `@dataclass` and a
`typing.NamedTuple` (fields read, methods called -- also a method that calls another --
inside the differentiated function), string-keyed dicts of parameters unflattened from one
vector key by key (`out = {}` then `out[name] = theta[k:k + n].reshape(w.shape)` in a loop
over `params.items()`), updated by a dict comprehension (`{k: v - lr * g[k] for k, v in
p.items()}`), walked in `sorted(p)` order, reduced by `sum(... for v in p.values())`;
`enumerate` with a start, `zip` of three, `reversed(range(n))`, `range(n - 1, -1, -1)`;
builtins `max` / `min` / `abs` on floats next to `math.*`; nested helpers and closures over
a loop's value; default, keyword and `*args` parameters of helpers; module constants; `assert`
on shapes; `np.where`; `+=` into slices; early returns inside loops; `x.shape[k:]` with a
k computed from the rank; `scipy.special.logsumexp` with a scalar `b=` and with `axis=`,
`keepdims=` and weights. The standard optimisation objectives (More-Garbow-Hillstrom:
Powell singular, Wood, helical valley, Brown badly scaled, Beale, trigonometric, extended
Rosenbrock, Freudenstein-Roth, Box 3-D, Watson-like sums) are written as loops over
residuals as a user would, with Python floats and `math`. All written for this corpus (none
copied from earlier corpora or other projects).

`cases()` holds the functions with their arguments and wrt, `refused_forms()` what stays
refused on purpose; tests/test_heldout17.py checks them in both modes.

`python -m tests.heldout17_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`)."""
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.special

PI = math.pi
DECAY = 0.9                       # a module constant read in a loop
LAYER_NAMES = ("W1", "b1", "W2")  # keys as a module constant


# -- classes holding parameters -------------------------------------------------------------------
@dataclass
class Spring:
    k: float
    rest: float

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


class Affine(NamedTuple):
    W: np.ndarray
    b: np.ndarray


class Scaler:
    """A small user class: its constructor stores constants, its methods compute."""

    def __init__(self, scale, shift):
        self.scale = scale
        self.shift = shift

    def apply(self, x):
        return self.scale * x + self.shift

    def loss(self, x, y):
        return np.mean((self.apply(x) - y) ** 2)


SCALER = Scaler(2.0, -0.5)


def dataclass_spring_chain(x):
    """Springs built from floats in the function, their method called on differences."""
    springs = [Spring(1.0 + 0.5 * i, 0.3) for i in range(3)]  # ERR: makes an object
    total = 0.0
    for i, s in enumerate(springs):
        total += s.energy(x[i + 1] - x[i])
    return total


def namedtuple_affine_layers(layers, x):
    """A tuple of NamedTuple layers read by field, in a loop."""
    h = x
    for layer in layers:
        h = np.tanh(layer.W @ h + layer.b)
    return np.sum(h ** 2)


def method_calls_method(x, y):
    return SCALER.loss(x, y) + SCALER.apply(x[0]) ** 2


# -- dicts of parameters ----------------------------------------------------------------------------
def unflatten_items_loop(theta, params, x):
    """The training idiom: one flat vector laid back onto a dict of shaped arrays."""
    out = {}
    k = 0
    for name, w in params.items():
        n = w.size
        out[name] = theta[k:k + n].reshape(w.shape)
        k += n
    h = np.tanh(out["W1"] @ x + out["b1"])
    return np.sum(out["W2"] @ h)


def unflatten_names_loop(theta, params, x):
    """The same by a module tuple of names, then a helper taking the dict."""
    out = {}
    k = 0
    for name in LAYER_NAMES:
        n = params[name].size
        out[name] = theta[k:k + n].reshape(params[name].shape)
        k += n
    return _mlp(out, x)


def _mlp(p, x):
    return np.sum(p["W2"] @ np.tanh(p["W1"] @ x + p["b1"]))


def dict_comprehension_sgd(p, g, x):
    """One SGD step written as a dict comprehension, then the loss at the new point."""
    lr = 0.1
    q = {k: v - lr * g[k] for k, v in p.items()}
    return np.sum(np.tanh(q["W"] @ x + q["b"]) ** 2)


def dict_comprehension_over_range(x):
    """Powers of x kept by their exponent, a dict over a range of constants."""
    pw = {k: x ** k for k in range(1, 4)}
    return np.sum(pw[1] * pw[3]) - np.sum(np.sin(pw[2]))


def sorted_keys_penalty(p):
    t = 0.0
    for k in sorted(p):
        t = t + (1.0 + len(k)) * np.sum(p[k] ** 2)
    return t


def l2_over_values(p, x):
    reg = sum(np.sum(v ** 2) for v in p.values())
    return np.sum(p["W"] @ x) + 0.01 * reg


def dict_accumulate_by_key(p, xs):
    """Gradients accumulated per key by += into a dict built key by key."""
    acc = {}
    for name, w in p.items():
        acc[name] = np.zeros(w.shape)
    for i in range(xs.shape[0]):
        for name, w in p.items():
            acc[name] += np.sin(w * xs[i])
    return sum(np.sum(a ** 2) for a in acc.values())


# -- loops: enumerate, zip, reversed, backwards ranges ----------------------------------------------
def enumerate_from_one(x):
    t = 0.0
    for i, xi in enumerate(x, 1):
        t += xi ** 2 / i
    return t


def zip_three(a, b, c):
    return sum(ai * bi - math.sin(ci) for ai, bi, ci in zip(a, b, c))


def backward_range_horner(coef, x):
    """Horner's rule from the last coefficient down, range(n - 1, -1, -1)."""
    y = 0.0
    for i in range(len(coef) - 1, -1, -1):
        y = y * x + coef[i]
    return y


def reversed_range_discount(r, v):
    """Discounted returns computed backwards, as in a policy-gradient loss."""
    n = r.shape[0]
    G = 0.0
    total = 0.0
    for t in reversed(range(n)):
        G = r[t] + DECAY * G
        total += (G - v[t]) ** 2
    return total


def list_comp_of_layers(Ws, x):
    hs = [np.tanh(W @ x) for W in Ws]
    return sum(np.sum(h * h) for h in hs)


# -- builtins and math on floats --------------------------------------------------------------------
def builtin_max_min_abs(x, y):
    a = max(x, y)
    b = min(x * y, 1.0)
    return a * b + abs(x - 2.0 * y) + math.exp(-abs(y))


def math_mix(x, y):
    r = math.hypot(x, y)
    return math.log1p(r) + math.atan2(y, x) * math.cos(x) + math.sqrt(1.0 + x * x)


def clamp_loop(x):
    t = 0.0
    for v in x:
        t += min(max(v, -1.0), 1.0) ** 2 + 0.1 * v
    return t


# -- helpers: nested, closures, defaults, keywords, *args -------------------------------------------
def nested_helper_closure(x, a):
    def f(u):
        return math.sin(a * u) + u * u

    t = 0.0
    for v in x:
        t += f(v)
    return t


def _smooth_l1(r, beta=1.0):
    return np.where(np.abs(r) < beta, 0.5 * r ** 2 / beta, np.abs(r) - 0.5 * beta)


def default_and_keyword(x, y):
    return np.sum(_smooth_l1(x - y)) + np.sum(_smooth_l1(x + y, beta=0.5))


def _sum_all(*arrays):
    t = 0.0
    for a in arrays:
        t = t + np.sum(a ** 2)
    return t


def star_args_helper(x, y):
    return _sum_all(x, y, x * y)


def _keyword_only(x, *, scale=2.0, power=2):
    return scale * np.sum(x ** power)


def keyword_only_helper(x):
    return _keyword_only(x) + _keyword_only(x, power=3, scale=0.5)


def nested_default_from_argument(x, a):
    """A nested helper whose default is the enclosing function's argument."""
    def h(u, scale=a):
        return scale * np.sin(u)
    return np.sum(h(x)) + np.sum(h(x, 2.0))


def helper_defined_in_loop(x):
    total = 0.0
    for k in range(3):
        def g(u):
            return u * (k + 1)
        total += np.sum(g(x) ** 2)
    return total


def lambda_with_default(x):
    f = lambda u, c=2.0: c * u ** 2  # noqa: E731
    return np.sum(f(x)) + np.sum(f(x, 0.5))


def fsum_of_generator(x):
    return math.fsum(v * v for v in x) + math.fsum([x[0], -x[1]])


def dict_get_params(p, x):
    return np.sum(p.get("W") @ x) + p.get("c", 0.5) * np.sum(x)


def config_global_dict(x):
    return CFG["scale"] * np.sum(x ** 2) + CFG["bias"] * x.size


CFG = {"scale": 2.0, "bias": 0.5}


def enumerate_zip_nested_target(xs, ys):
    t = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        t += (i + 1) * a * b
    return t


def while_with_early_return(x):
    i = 0
    s = 0.0
    while i < x.shape[0]:
        s += x[i]
        if s > 1.0:
            return s * 2.0
        i += 1
    return s


def any_all_guard(x):
    if all(v > -5 for v in x) and not any(v > 5 for v in x):
        return np.sum(x ** 2)
    return np.sum(x)


def double_generator_off_diagonal(X):
    return sum(X[i, j] ** 2 for i in range(X.shape[0]) for j in range(X.shape[1]) if i != j)


# -- asserts, np.where, in-place slices, early returns ----------------------------------------------
def assert_then_where(x, y):
    assert x.shape == y.shape, "shapes differ"
    assert x.ndim == 1
    d = x - y
    return np.sum(np.where(d > 0, d ** 2, -0.5 * d))


def slice_plus_equals(x):
    y = np.zeros(x.shape[0] + 2)
    y[1:-1] += x
    y[:-2] += 0.5 * x
    y[2:] -= 0.25 * x ** 2
    return np.sum(y ** 2)


def early_return_in_loop(x, tol):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] ** 2
        if s > tol:
            return s * (i + 1)
    return s


def first_above_threshold(x):
    for v in x:
        if v > 0.5:
            return v ** 3
    return np.sum(x)


# -- shapes with computed k, logsumexp with b -------------------------------------------------------
def shape_tail_from_rank(x):
    k = x.ndim - 1
    w = np.ones(x.shape[k:])
    return np.sum(x * w * np.arange(1.0, x.shape[-1] + 1))


def shape_head_len(x):
    n = len(x.shape) - 1
    acc = np.zeros(x.shape[:n])
    acc = acc + np.sum(x, axis=-1)
    return np.sum(acc ** 2)


def _trailing(x, axis):
    return x.shape[axis + 1:]


def shape_after_axis_helper(x, v):
    return np.sum(np.broadcast_to(v, _trailing(x, 0)) * x)


def logsumexp_scalar_b(x):
    return scipy.special.logsumexp(x, b=0.5) + scipy.special.logsumexp(2.0 * x, b=1.0 / x.size)


def logsumexp_scalar_b_variable(x, c):
    return scipy.special.logsumexp(x, b=c)


def logsumexp_axis_keepdims_b(X, B):
    z = scipy.special.logsumexp(X, axis=1, keepdims=True, b=B)
    return np.sum(z ** 2) + np.sum(scipy.special.logsumexp(X, axis=0, b=B))


def mixture_loglik_lse(x, logits, mu):
    """A Gaussian mixture's log-likelihood, weights by b= (softmax by hand)."""
    w = np.exp(logits) / np.sum(np.exp(logits))
    ll = -0.5 * (x[:, None] - mu[None, :]) ** 2
    return -np.sum(scipy.special.logsumexp(ll, axis=1, b=w[None, :]))


# -- More-Garbow-Hillstrom objectives as loops -------------------------------------------------------
def powell_singular_loop(x):
    f = 0.0
    for j in range(0, x.shape[0], 4):
        a, b, c, d = x[j], x[j + 1], x[j + 2], x[j + 3]
        f += (a + 10.0 * b) ** 2 + 5.0 * (c - d) ** 2 + (b - 2.0 * c) ** 4 \
            + 10.0 * (a - d) ** 4
    return f


def wood(x):
    x1, x2, x3, x4 = x[0], x[1], x[2], x[3]
    r = [10.0 * (x2 - x1 * x1), 1.0 - x1, math.sqrt(90.0) * (x4 - x3 * x3), 1.0 - x3,
         math.sqrt(10.0) * (x2 + x4 - 2.0), (x2 - x4) / math.sqrt(10.0)]
    return sum(ri * ri for ri in r)


def _theta(x1, x2):
    t = math.atan(x2 / x1) / (2.0 * PI)
    if x1 < 0.0:
        t += 0.5
    return t


def helical_valley(x):
    x1, x2, x3 = x
    r1 = 10.0 * (x3 - 10.0 * _theta(x1, x2))
    r2 = 10.0 * (math.sqrt(x1 * x1 + x2 * x2) - 1.0)
    return r1 * r1 + r2 * r2 + x3 * x3


def brown_badly_scaled(x):
    res = (x[0] - 1e6, x[1] - 2e-6, x[0] * x[1] - 2.0)
    return sum(r ** 2 for r in res)


def beale_loop(x):
    ys = (1.5, 2.25, 2.625)
    f = 0.0
    for i, y in enumerate(ys):
        r = y - x[0] * (1.0 - x[1] ** (i + 1))
        f += r * r
    return f


def trigonometric_loop(x):
    n = x.shape[0]
    s = 0.0
    for j in range(n):
        s += math.cos(x[j])
    f = 0.0
    for i in range(n):
        r = n - s + (i + 1) * (1.0 - math.cos(x[i])) - math.sin(x[i])
        f += r * r
    return f


def extended_rosenbrock_loop(x):
    f = 0.0
    for i in range(x.shape[0] // 2):
        a, b = x[2 * i], x[2 * i + 1]
        f += 100.0 * (b - a * a) ** 2 + (1.0 - a) ** 2
    return f


def freudenstein_roth(x1, x2):
    r1 = -13.0 + x1 + ((5.0 - x2) * x2 - 2.0) * x2
    r2 = -29.0 + x1 + ((x2 + 1.0) * x2 - 14.0) * x2
    return r1 ** 2 + r2 ** 2


def box_3d(x):
    f = 0.0
    for i in range(1, 11):
        t = 0.1 * i
        r = math.exp(-t * x[0]) - math.exp(-t * x[1]) - x[2] * (math.exp(-t) - math.exp(-10.0 * t))
        f += r * r
    return f


def watson_like(x):
    """Watson's function's sums of powers of t_i, with its two extra residuals."""
    n = x.shape[0]
    f = 0.0
    for i in range(1, 30):
        t = i / 29.0
        s1 = sum((j - 1) * x[j - 1] * t ** (j - 2) for j in range(2, n + 1))
        s2 = sum(x[j - 1] * t ** (j - 1) for j in range(1, n + 1))
        r = s1 - s2 * s2 - 1.0
        f += r * r
    return f + x[0] ** 2 + (x[1] - x[0] ** 2 - 1.0) ** 2


def bard_style(x):
    y = np.array([0.14, 0.18, 0.22, 0.25, 0.29])
    f = 0.0
    for i in range(5):
        u = i + 1.0
        v = 5.0 - i
        w = min(u, v)
        r = y[i] - (x[0] + u / (v * x[1] + w * x[2]))
        f += r * r
    return f


# -- refused until corpus 18 ----------------------------------------------------------------------
def namedtuple_made_inside(x):
    q = Affine(x[:2, None] * 2.0, x[2:])
    return np.sum(q.W) * np.sum(q.b)


def walrus_in_test(x):
    if (n := x.shape[0]) > 2:
        return np.sum(x) / n
    return np.sum(x)


# -- refused on purpose -----------------------------------------------------------------------------
def key_added_in_data_branch(x, p):
    out = {}
    for name, w in p.items():
        if x[0] > 0:
            out[name] = w * x[0]  # ERR: a new key of the dict 'out'
    return np.sum(out["W"])


def shape_tail_runtime_k(x, k):
    return np.sum(np.ones(x.shape[k:]) * x)  # ERR: a rank cannot depend on a value


def logsumexp_return_sign(x):
    r, s = scipy.special.logsumexp(x, b=-x, return_sign=True)  # ERR: return_sign
    return r


def dict_key_from_value(x, names):
    out = {}
    for i in range(x.shape[0]):
        out[i % 2] = x[i]  # ERR: a key of the dict 'out'
    return out[0]


def cases(seed=17):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    P = {"W1": 0.5 * nrm(size=(3, 2)), "b1": nrm(size=3), "W2": 0.5 * nrm(size=(1, 3))}
    theta = nrm(size=sum(v.size for v in P.values()))
    layers = (Affine(0.5 * nrm(size=(3, 2)), nrm(size=3)), Affine(0.5 * nrm(size=(2, 3)),
                                                                 nrm(size=2)))
    pWb = {"W": 0.5 * nrm(size=(2, 3)), "b": nrm(size=2)}
    gWb = {"W": nrm(size=(2, 3)), "b": nrm(size=2)}
    X, B = nrm(size=(2, 3)), rng.uniform(0.2, 1.5, size=(2, 3))
    return [
        (namedtuple_affine_layers, (layers, nrm(size=2)), (0, 1)),
        (unflatten_items_loop, (theta, P, nrm(size=2)), (0, 2)),
        (unflatten_names_loop, (theta, P, nrm(size=2)), (0, 2)),
        (dict_comprehension_sgd, (pWb, gWb, nrm(size=3)), (0, 1)),
        (dict_comprehension_over_range, (nrm(size=3),), (0,)),
        (sorted_keys_penalty, ({"zeta": nrm(size=2), "a": nrm(size=3)},), (0,)),
        (l2_over_values, (pWb, nrm(size=3)), (0, 1)),
        (dict_accumulate_by_key, (pWb, nrm(size=(3,))), (0, 1)),
        (enumerate_from_one, (nrm(size=4),), (0,)),
        (zip_three, (nrm(size=3), nrm(size=3), nrm(size=3)), (0, 1, 2)),
        (backward_range_horner, (nrm(size=5), 0.7), (0, 1)),
        (reversed_range_discount, (nrm(size=5), nrm(size=5)), (0, 1)),
        (list_comp_of_layers, ([nrm(size=(2, 3)), nrm(size=(2, 3))], nrm(size=3)), (0, 1)),
        (builtin_max_min_abs, (0.3, 0.9), (0, 1)),
        (builtin_max_min_abs, (1.7, -0.4), (0, 1)),
        (math_mix, (0.8, -0.6), (0, 1)),
        (math_mix, (-0.8, 0.6), (0, 1)),
        (clamp_loop, (np.array([-1.7, -0.3, 0.4, 2.2]),), (0,)),
        (nested_helper_closure, (nrm(size=4), 1.3), (0, 1)),
        (default_and_keyword, (nrm(size=5), nrm(size=5)), (0, 1)),
        (keyword_only_helper, (nrm(size=4),), (0,)),
        (nested_default_from_argument, (nrm(size=3), 0.7), (0, 1)),
        (helper_defined_in_loop, (nrm(size=3),), (0,)),
        (lambda_with_default, (nrm(size=3),), (0,)),
        (fsum_of_generator, (nrm(size=3),), (0,)),
        (dict_get_params, ({"W": nrm(size=(2, 3))}, nrm(size=3)), (0, 1)),
        (config_global_dict, (nrm(size=3),), (0,)),
        (enumerate_zip_nested_target, (nrm(size=3), nrm(size=3)), (0, 1)),
        (while_with_early_return, (np.array([0.3, 0.5, 0.4, 0.2]),), (0,)),
        (while_with_early_return, (np.array([0.3, -0.5, 0.4]),), (0,)),
        (any_all_guard, (nrm(size=3),), (0,)),
        (double_generator_off_diagonal, (nrm(size=(3, 3)),), (0,)),
        (assert_then_where, (nrm(size=5), nrm(size=5)), (0, 1)),
        (slice_plus_equals, (nrm(size=4),), (0,)),
        (early_return_in_loop, (nrm(size=5), 1.5), (0,)),
        (early_return_in_loop, (0.1 * nrm(size=5), 100.0), (0,)),
        (first_above_threshold, (np.array([0.1, -0.3, 0.9, 0.7]),), (0,)),
        (first_above_threshold, (np.array([0.1, -0.3, 0.2]),), (0,)),
        (shape_tail_from_rank, (nrm(size=(2, 3)),), (0,)),
        (shape_head_len, (nrm(size=(2, 3, 2)),), (0,)),
        (shape_after_axis_helper, (nrm(size=(2, 3)), nrm(size=3)), (0, 1)),
        (logsumexp_scalar_b, (nrm(size=4),), (0,)),
        (logsumexp_scalar_b_variable, (nrm(size=4), 0.7), (0, 1)),
        (logsumexp_axis_keepdims_b, (X, B), (0, 1)),
        (mixture_loglik_lse, (nrm(size=6), nrm(size=3), nrm(size=3)), (0, 1, 2)),
        (powell_singular_loop, (np.array([3.0, -1.0, 0.2, 1.0, 0.5, 0.3, -0.2, 0.8]),), (0,)),
        (wood, (np.array([-3.0, -1.0, -3.0, -1.0]),), (0,)),
        (helical_valley, (np.array([-1.0, 0.3, 0.5]),), (0,)),
        (helical_valley, (np.array([0.8, -0.4, 0.2]),), (0,)),
        (brown_badly_scaled, (np.array([1e6 + 0.5, 2e-6 + 0.3]),), (0,)),
        (beale_loop, (np.array([1.0, 0.5]),), (0,)),
        (trigonometric_loop, (np.array([0.2, 0.4, -0.1, 0.3]),), (0,)),
        (extended_rosenbrock_loop, (np.array([-1.2, 1.0, -1.2, 1.0, 0.5, 0.3]),), (0,)),
        (freudenstein_roth, (0.5, -2.0), (0, 1)),
        (box_3d, (np.array([0.0, 10.0, 20.0]) * 0.05 + 0.3,), (0,)),
        (watson_like, (0.3 * nrm(size=4),), (0,)),
        (bard_style, (np.array([1.0, 1.0, 1.0]),), (0,)),
        # refused until corpus 18 (a NamedTuple made inside, the walrus, *args)
        (star_args_helper, (nrm(size=3), nrm(size=3)), (0, 1)),
        (namedtuple_made_inside, (nrm(size=4),), (0,)),
        (walrus_in_test, (nrm(size=3),), (0,)),
        (walrus_in_test, (nrm(size=2),), (0,)),
        # refused until corpus 23: a plain object's attributes and methods (records.view)
        (method_calls_method, (np.array([0.3, -0.2, 0.5, 1.1]),
                               np.array([0.1, 0.4, -0.3, 0.2])), (0, 1)),
    ]


def refused_forms():
    """Refused on purpose (at the marked line, both modes): an object of a user class made in
    the function as a list's element (a dataclass: assign it to a name, or make it outside), a
    key added to a local dict under
    a branch jitad keeps (the keys must be the same on every path: add the key before, or
    name the value), a key computed from a value (keys are known when jitad compiles), a
    shape slice at a run-time bound (a rank cannot depend on a value), and logsumexp's
    return_sign= (a sign is no differentiable value)."""
    nrm = np.random.default_rng(1707).normal
    return [(dataclass_spring_chain, (nrm(size=4),)),
            (key_added_in_data_branch, (nrm(size=3), {"W": nrm(size=(2, 2))})),
            (shape_tail_runtime_k, (nrm(size=(2, 3)), 1)),
            (logsumexp_return_sign, (nrm(size=3),)),
            (dict_key_from_value, (nrm(size=4), 0))]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
