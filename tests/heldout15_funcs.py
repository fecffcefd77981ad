"""Held-out corpus #15: the Python surface a README reader writes, not NumPy coverage.
Parameters passed as dicts, lists, tuples and namedtuples of arrays; bound methods of a user's
model class (`model.loss`, `self.n` read as a constant) and its staticmethods; module-level
constant arrays, dicts and tuples; closures over arrays; lambdas bound to names;
`functools.partial`; default, keyword-only and `*args` parameters; annotations and docstrings;
`assert` / `raise ValueError(f"...")` shape checks; `isinstance` and `x.ndim` dispatch;
`len`, `range(len(x))`, comprehensions under `sum(...)`, `zip` / `enumerate` / `reversed`;
conditional expressions, chained comparisons, `and` / `or` on numbers; `//` and `%` index
arithmetic; `math.*` and `scipy.special.*` on scalars; `np.float64` / `float` / `int` casts;
early `return` from nested loops, `while True` with `break`, `for ... else`, recursion with a
depth argument. The models are everyday ones written for this corpus by someone who read only
the README (none copied from earlier corpora or other projects): policy gradient over fixed
samples, a Kalman filter log-likelihood, HMC potentials and a leapfrog trajectory, optimal
control by shooting through an ODE, ray-sphere shading and a soft rasterizer, a binomial
option tree, robot-arm forward kinematics, a soft k-NN loss, word2vec negative sampling,
matrix factorization with a dict of parameters.

`surface()` holds the forms one by one, `models()` the models, `refused_forms()` what stays
refused on purpose; tests/test_heldout15.py checks the findings and the API forms.

`python -m tests.heldout15_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`)."""
import functools
import math
from collections import namedtuple

import numpy as np
import scipy.special
from scipy.special import expit, gammaln, logsumexp

# -- module-level constants a function reads ------------------------------------------------------
LINK_LENGTHS = np.array([1.0, 0.8, 0.5])
TARGET_XY = np.array([1.2, 0.9])
HYPER = {"l2": 1e-2, "temperature": 0.5, "steps": 4}
DISCOUNT = 0.9
OFFSETS = (0.25, -0.5, 1.0)
N_NEG = 2
softplus = lambda z: np.log1p(np.exp(z))          # noqa: E731 - a lambda bound to a name

Gaussian = namedtuple("Gaussian", ["mu", "log_sigma"])
Layer = namedtuple("Layer", "W b")


# -- structured parameters --------------------------------------------------------------------------
def mf_dict_params(params, R, mask):
    """Matrix factorization with user/item biases, every parameter in one dict."""
    pred = params["U"] @ params["V"].T + params["bu"][:, None] + params["bi"][None, :] \
        + params["mu"]
    err = mask * (pred - R)
    reg = sum(np.sum(params[k] ** 2) for k in ("U", "V"))
    return 0.5 * np.sum(err ** 2) + HYPER["l2"] * reg


def mlp_params_list_indexed(params, X, y):
    W1, b1, W2, b2 = params[0], params[1], params[2], params[3]
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def mlp_tuple_of_layers(layers: tuple, X: np.ndarray) -> float:
    """A tuple of namedtuple layers; attribute access on each."""
    h = X
    for layer in layers:
        h = np.tanh(h @ layer.W + layer.b)
    return float(np.sum(h ** 2))


def funnel_namedtuple(q: Gaussian, z):
    """Neal's funnel: the scale of z is exp(q.log_sigma)."""
    s = np.exp(q.log_sigma)
    return 0.5 * q.log_sigma ** 2 / 9.0 + np.sum(0.5 * ((z - q.mu) / s) ** 2 + q.log_sigma)


def nested_dict_autoencoder(params, x):
    enc, dec = params["enc"], params["dec"]
    h = np.tanh(enc["W"] @ x + enc["b"])
    xr = dec["W"] @ h + dec["b"]
    return np.sum((xr - x) ** 2)


def tuple_unpacked_in_helper(wb, X, y):
    return _linreg(wb, X, y) + 0.1 * _l2(*wb)


def _linreg(wb, X, y):
    w, b = wb
    return np.mean((X @ w + b - y) ** 2)


def _l2(w, b):
    return np.sum(w * w) + b * b


def dict_items_loop(params, x):
    total = 0.0
    for name, value in params.items():
        if name.startswith("w"):
            total += np.sum(np.sin(value * x))
        else:
            total += np.sum(value ** 2)
    return total


def list_of_arrays_enumerate(ws, x):
    total = 0.0
    for k, w in enumerate(ws):
        total = total + (k + 1) * np.dot(w, x) ** 2
    return total


# -- defaults, keyword-only, *args, annotations -------------------------------------------------
def ridge_with_defaults(w, X, y, lam=0.1, power=2):
    r = X @ w - y
    return np.mean(r ** 2) + lam * np.sum(np.abs(w) ** power)


def softmax_kwonly(logits, labels, *, temperature=2.0, eps=1e-12):
    z = logits / temperature
    p = np.exp(z - logsumexp(z, axis=1, keepdims=True))
    return -np.mean(np.log(p[np.arange(len(labels)), labels] + eps))


def weighted_terms(x, *weights):  # ERR: takes *weights
    total = 0.0
    for k, w in enumerate(weights):
        total += w * np.sum(x ** (k + 1))
    return total


def star_args_helper(x, y):
    return _sum_all(np.sin(x), np.cos(y), x * y)


def _sum_all(*parts):
    return sum(np.sum(p) for p in parts)


def annotated_huber(r: np.ndarray, delta: float = 1.0) -> float:
    """Huber loss, written with annotations and a docstring."""
    a = np.abs(r)
    quad = 0.5 * r ** 2
    lin = delta * (a - 0.5 * delta)
    return float(np.sum(np.where(a <= delta, quad, lin)))


# -- checks and dispatch ---------------------------------------------------------------------------
def assert_shapes_linear(w, X, y):
    assert X.ndim == 2, "X must be a matrix"
    assert X.shape[1] == w.shape[0], f"w has {w.shape[0]} entries for {X.shape[1]} columns"
    if len(y) != X.shape[0]:
        raise ValueError(f"y has {len(y)} rows, X has {X.shape[0]}")
    return np.sum((X @ w - y) ** 2)


def isinstance_scalar_or_array(x, scale):
    if isinstance(scale, float):
        s = scale * np.ones_like(x)
    else:
        s = scale
    return np.sum(np.exp(-s * x ** 2))


def ndim_dispatch(w, x):
    if x.ndim == 1:
        x = x[None, :]
    return np.sum(np.tanh(x @ w))


def shape_check_raises_in_loop(W, xs):
    total = 0.0
    for x in xs:
        if x.shape[0] != W.shape[1]:
            raise ValueError(f"input of length {x.shape[0]}, expected {W.shape[1]}")
        total += np.sum(np.tanh(W @ x))
    return total


# -- loops and comprehensions ------------------------------------------------------------------
def range_len_dot(w, x):
    return sum(w[i] * x[i] for i in range(len(x))) + sum([w[i] ** 2 for i in range(len(w))])


def zip_reversed_discount(rewards_scale, rewards):
    g = 0.0
    out = []
    for r in reversed(rewards):
        g = r * rewards_scale + DISCOUNT * g
        out.append(g)
    return sum(v ** 2 for v in out)


def zip_pairs_energy(x, y):
    return sum((a - b) ** 2 * math.exp(-a * b) for a, b in zip(x, y))


def enumerate_zip_weighted(w, xs, ys):
    loss = 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        loss += (np.dot(w, x) - y) ** 2 / (i + 1)
    return loss


def conditional_expression_clip(x):
    total = 0.0
    for v in x:
        total += v * v if v < 0.5 else 0.5 * v + 0.125
    return total


def chained_comparison_window(t, x):
    total = 0.0
    for i in range(len(x)):
        u = t * i
        if 0.5 < u <= 2.5:
            total += x[i] * u
        elif u > 2.5 or u < -1.0:
            total += x[i] ** 2
    return total


def and_or_on_floats(x, gain):
    scale = gain or 1.0
    bias = x[0] > 0.0 and x[1]
    return scale * np.sum(x ** 2) + bias


def int_div_mod_grid(flat, n_cols):
    total = 0.0
    for k in range(len(flat)):
        i = k // n_cols
        j = k % n_cols
        total += flat[k] * (i + 1) - 0.5 * flat[k] ** 2 * (j - 1)
    return total


def nested_loop_early_return(x, thresh):
    acc = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            acc += x[i] * x[j]
            if acc > thresh:
                return acc * 2.0
    return acc


def while_true_break(x, a):
    y = x
    k = 0
    while True:
        y = y - 0.1 * (y ** 3 - a)
        k += 1
        if abs(y ** 3 - a) < 1e-3 or k >= 50:
            break
    return y


def for_else_search(x, c):
    for i in range(len(x)):
        if x[i] > c:
            found = x[i] * c
            break
    else:
        found = np.sum(x) * c
    return found ** 2


def recursive_depth_bisect(f0, a, b, depth=4):
    """Recursive Simpson-like split to a fixed depth."""
    m = 0.5 * (a + b)
    if depth == 0:
        return (b - a) * (math.sin(f0 * a) + 4.0 * math.sin(f0 * m) + math.sin(f0 * b)) / 6.0
    return recursive_depth_bisect(f0, a, m, depth - 1) + recursive_depth_bisect(f0, m, b, depth - 1)


def casts_everywhere(x, k):
    n = int(k)
    s = np.float64(0.0)
    for i in range(n):
        s += float(x[i % len(x)]) * np.float64(i + 1)
    return float(s) + float(np.sum(x)) / n


def print_in_a_loop(w, X, y):
    loss = 0.0
    for step in range(3):
        r = X @ w - y
        loss = np.mean(r ** 2)
        print(f"step {step}: loss {loss:.4f}")
        w = w - 0.1 * X.T @ r / len(y)
    return loss


def math_and_special_scalars(a, b):
    return (math.lgamma(a) + math.erf(b) + scipy.special.expit(a * b) + gammaln(b + 1.0)
            + math.atan2(a, b) + math.hypot(a, b) + scipy.special.xlogy(a, b))


def rng_inside_function(mu, log_sigma):
    rng = np.random.default_rng(0)  # ERR: draws random numbers inside the function
    eps = rng.normal(size=mu.shape)
    z = mu + np.exp(log_sigma) * eps
    return np.sum(z ** 2) - np.sum(log_sigma)


def global_statement_reader(x):
    global DISCOUNT
    return DISCOUNT * np.sum(x ** 2)


def module_tuple_and_dict(x):
    total = 0.0
    for k, off in enumerate(OFFSETS):
        total += HYPER["temperature"] * (x[k] - off) ** 2
    return total


def local_lambdas(x, w):
    sq = lambda t: t * t                  # noqa: E731
    act = lambda z: np.tanh(z) * w        # noqa: E731
    return np.sum(sq(act(x))) + np.sum(softplus(x))


def closure_over_arrays(w):
    return _make_loss(_X_DATA, _Y_DATA)(w)  # ERR: calling the function _make_loss(...) returns


def _make_loss(X, y):
    def loss(w):
        return np.mean(np.log1p(np.exp(-y * (X @ w))))
    return loss


def nested_def_with_default(x, scale):
    def term(v, p=2):
        return scale * v ** p
    return sum(term(v) for v in x) + term(x[0], 3)


def keyword_call_of_helper(x, w):
    return _scaled_energy(x, scale=2.0, w=w) + _scaled_energy(w=x, x=w)


def _scaled_energy(x, w, scale=1.0):
    return scale * np.sum((x - w) ** 2 * np.exp(-w))


def enumerate_start_one(x):
    total = 0.0
    for k, v in enumerate(x, start=1):
        total += math.log1p(v * v) / k
    return total


def item_and_abs_builtins(w, X):
    loss = np.mean(np.tanh(X @ w) ** 2)
    reg = sum(abs(v) for v in w)
    return loss.item() + 0.1 * reg


def min_max_builtins(a, b):
    lo, hi = min(a, b), max(a, b)
    return hi * hi - lo + max(0.0, a - 2.0 * b) + min(a, 3.0, b * b)


def sorted_list_of_floats(x):
    vals = sorted([x[0] * x[1], x[1] - x[2], np.sin(x[2])])
    return vals[0] + 2.0 * vals[1] + 3.0 * vals[2]


def comprehension_with_condition(x, c):
    return sum(v * c if v > 0.0 else -0.5 * v for v in x) + np.sum([v ** 2 for v in x if v < 0.5])


def float_int_of_shape(x):
    n = int(x.shape[0])
    scale = float(n)
    return np.sum(x ** 2) / scale + np.float64(n) * np.mean(x)


# -- classes: bound methods and staticmethods -----------------------------------------------------
class KalmanModel:
    """A 2-state constant-velocity model; `loglik` is differentiated as a bound method."""

    def __init__(self, F, H, n):
        self.F = F
        self.H = H
        self.n = n

    def loglik(self, log_q, log_r, ys):
        Q = math.exp(log_q) * np.eye(self.n)
        R = math.exp(log_r)
        m = np.zeros(self.n)
        P = np.eye(self.n)
        ll = 0.0
        for y in ys:
            m = self.F @ m
            P = self.F @ P @ self.F.T + Q
            S = self.H @ P @ self.H + R
            v = y - self.H @ m
            K = P @ self.H / S
            m = m + K * v
            P = P - np.outer(K, K) * S
            ll += -0.5 * (math.log(2.0 * math.pi * S) + v * v / S)
        return -ll


class Arm:
    """Planar arm: staticmethods called from the function differentiated."""

    @staticmethod
    def rot(theta):
        c, s = np.cos(theta), np.sin(theta)
        return np.array([[c, -s], [s, c]])

    @staticmethod
    def tip(thetas, lengths):
        R = np.eye(2)
        p = np.zeros(2)
        for th, L in zip(thetas, lengths):
            R = R @ Arm.rot(th)
            p = p + L * R[:, 0]
        return p


def arm_reach_staticmethod(thetas):
    p = Arm.tip(thetas, LINK_LENGTHS)
    return np.sum((p - TARGET_XY) ** 2)


class Regressor:
    def __init__(self, X, y, lam):
        self.X = X
        self.y = y
        self.lam = lam

    def predict(self, w):
        return np.tanh(self.X @ w)

    def loss(self, w):
        return np.mean((self.predict(w) - self.y) ** 2) + self.lam * np.sum(w ** 2)


# -- models -------------------------------------------------------------------------------------
def reinforce_fixed_samples(theta, feats, actions, rewards):
    """REINFORCE over one fixed episode: returns by a reversed loop, log-softmax policy."""
    T = len(rewards)
    returns = np.zeros(T)
    g = 0.0
    for t in reversed(range(T)):
        g = rewards[t] + DISCOUNT * g
        returns[t] = g
    baseline = np.mean(returns)
    loss = 0.0
    for t in range(T):
        logits = feats[t] @ theta
        logp = logits - logsumexp(logits)
        loss -= logp[actions[t]] * (returns[t] - baseline)
    return loss / T


def kalman_loglik_1d(params, ys):
    """A local-level model; params = (log_q, log_r) as an array."""
    q, r = np.exp(params[0]), np.exp(params[1])
    m, P = 0.0, 1.0
    nll = 0.0
    for y in ys:
        P = P + q
        S = P + r
        nll += 0.5 * (np.log(2.0 * np.pi * S) + (y - m) ** 2 / S)
        K = P / S
        m = m + K * (y - m)
        P = (1.0 - K) * P
    return nll


def mgh_helical(x):
    """The helical valley through math.atan2, a helper other modules reach as hf.mgh_helical."""
    theta = math.atan2(x[1], x[0]) / (2.0 * math.pi)
    r = math.sqrt(x[0] ** 2 + x[1] ** 2)
    return 100.0 * ((x[2] - 10.0 * theta) ** 2 + (r - 1.0) ** 2) + x[2] ** 2


def hmc_banana_potential(q, b=0.1):
    x, y = q[0], q[1]
    return 0.5 * x ** 2 / 4.0 + 0.5 * (y + b * x ** 2 - 4.0 * b) ** 2


def hmc_leapfrog_final_energy(q0, p0, eps, n_steps):
    """The Hamiltonian after a leapfrog trajectory of a Gaussian-with-quartic potential."""
    def grad_u(q):
        return q + 0.4 * q ** 3

    def potential(q):
        return 0.5 * np.sum(q ** 2) + 0.1 * np.sum(q ** 4)

    q, p = q0, p0 - 0.5 * eps * grad_u(q0)
    for step in range(n_steps):
        q = q + eps * p
        if step < n_steps - 1:
            p = p - eps * grad_u(q)
    p = p - 0.5 * eps * grad_u(q)
    return potential(q) + 0.5 * np.dot(p, p)


def shooting_rk4_control(u, x0, T=1.0):
    """Optimal control by single shooting: a damped pendulum, piecewise-constant torque u."""
    def dyn(x, tau):
        return np.array([x[1], -math.sin(x[0]) - 0.2 * x[1] + tau])

    n = len(u)
    h = T / n
    x = x0
    cost = 0.0
    for k in range(n):
        k1 = dyn(x, u[k])
        k2 = dyn(x + 0.5 * h * k1, u[k])
        k3 = dyn(x + 0.5 * h * k2, u[k])
        k4 = dyn(x + h * k3, u[k])
        x = x + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        cost += h * u[k] ** 2
    return cost + 10.0 * ((x[0] - math.pi / 2) ** 2 + x[1] ** 2)


def shooting_while_time(u0, k):
    """Explicit Euler until t >= T with a while loop; the control a linear feedback."""
    t, x, v = 0.0, 1.0, 0.0
    dt = 0.05
    cost = 0.0
    while t < 1.0:
        f = u0 - k * x
        x, v = x + dt * v, v + dt * (f - x)
        cost += dt * (x * x + 0.1 * f * f)
        t += dt
    return cost


def ray_sphere_shading(center, radius):
    """Shade a row of pixels by the first hit of orthographic rays along +z."""
    light = np.array([0.0, 0.6, -0.8])
    total = 0.0
    for px in range(8):
        o = np.array([-1.0 + 0.25 * px, 0.1, -5.0])
        d = np.array([0.0, 0.0, 1.0])
        oc = o - center
        b = np.dot(oc, d)
        c = np.dot(oc, oc) - radius ** 2
        disc = b * b - c
        if disc > 0.0:
            t = -b - math.sqrt(disc)
            n = (o + t * d - center) / radius
            total += max(0.0, -np.dot(n, light))
    return total


def soft_rasterize_disk(cx, cy, r, image):
    """Coverage of a disk by a sigmoid of the signed distance, per pixel by loops."""
    H, W = image.shape
    loss = 0.0
    for i in range(H):
        for j in range(W):
            x = (j + 0.5) / W
            y = (i + 0.5) / H
            sd = r - math.sqrt((x - cx) ** 2 + (y - cy) ** 2)
            cover = expit(sd / 0.05)
            loss += (cover - image[i, j]) ** 2
    return loss


def binomial_american_put(S0, sigma, r=0.02, K=100.0, T=1.0, steps=6):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    values = [max(K - S0 * u ** j * d ** (steps - j), 0.0) for j in range(steps + 1)]
    for i in range(steps - 1, -1, -1):
        values = [max(disc * (p * values[j + 1] + (1.0 - p) * values[j]),
                      K - S0 * u ** j * d ** (i - j)) for j in range(i + 1)]
    return values[0]


def binomial_european_array(S0, sigma):
    steps = 5
    dt = 1.0 / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1.0 / u
    p = (1.0 - d) / (u - d)
    j = np.arange(steps + 1)
    v = np.maximum(S0 * u ** j * d ** (steps - j) - 100.0, 0.0)
    for i in range(steps, 0, -1):
        v = p * v[1:] + (1.0 - p) * v[:-1]
    return v[0]


def robot_fk_cumsum(thetas, lengths):
    phi = np.cumsum(thetas)
    x = np.sum(lengths * np.cos(phi))
    y = np.sum(lengths * np.sin(phi))
    return (x - TARGET_XY[0]) ** 2 + (y - TARGET_XY[1]) ** 2 + 0.01 * np.sum(thetas ** 2)


def robot_fk_homogeneous(thetas):
    T = np.eye(3)
    for i in range(len(thetas)):
        c, s = math.cos(thetas[i]), math.sin(thetas[i])
        L = LINK_LENGTHS[i]
        A = np.array([[c, -s, L * c], [s, c, L * s], [0.0, 0.0, 1.0]])
        T = T @ A
    tip = T[:2, 2]
    return np.sum((tip - TARGET_XY) ** 2)


def soft_knn_nca(A, X, labels):
    """Neighbourhood components analysis: soft neighbours under the metric A."""
    Z = X @ A.T
    d2 = np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=-1)
    n = len(labels)
    d2 = d2 + 1e9 * np.eye(n)
    P = np.exp(-d2 - logsumexp(-d2, axis=1, keepdims=True))
    same = labels[:, None] == labels[None, :]
    return -np.sum(P * same) / n


def knn_soft_loop(q, refs, vals):
    w = [math.exp(-np.sum((q - r) ** 2) / HYPER["temperature"]) for r in refs]
    total = sum(w)
    pred = sum(wi * v for wi, v in zip(w, vals)) / total
    return (pred - 1.0) ** 2


def word2vec_negative_sampling(W_in, W_out, centers, contexts, negatives):
    loss = 0.0
    for c, o, negs in zip(centers, contexts, negatives):
        v = W_in[c]
        loss -= np.log(expit(np.dot(W_out[o], v)))
        for k in range(N_NEG):
            loss -= np.log(expit(-np.dot(W_out[negs[k]], v)))
    return loss / len(centers)


def word2vec_vectorized(W_in, W_out, centers, contexts, negatives):
    V = W_in[centers]
    pos = np.sum(V * W_out[contexts], axis=1)
    neg = np.einsum("bd,bkd->bk", V, W_out[negatives])
    return -np.mean(scipy.special.log_expit(pos) + np.sum(scipy.special.log_expit(-neg), axis=1))


def mf_sgd_pass_dict(params, rows, cols, vals):
    """The loss after one SGD pass over the observed entries, a dict of factor tables."""
    U, V = params["U"], params["V"]
    lr = 0.05
    for r, c, y in zip(rows, cols, vals):
        e = np.dot(U[r], V[c]) - y
        U = U.copy()
        U[r] = U[r] - lr * e * V[c]
    return sum((np.dot(U[r], V[c]) - y) ** 2 for r, c, y in zip(rows, cols, vals))


def gmm_namedtuple_params(g: Gaussian, x):
    """A 1-D Gaussian's negative log-likelihood; fields read by name."""
    s = np.exp(g.log_sigma)
    return np.sum(0.5 * ((x - g.mu) / s) ** 2 + g.log_sigma + 0.5 * math.log(2.0 * math.pi))


# -- refused on purpose ----------------------------------------------------------------------------
_rng = np.random.default_rng(15)
_X_DATA = _rng.normal(size=(6, 3))
_Y_DATA = np.sign(_rng.normal(size=6))
closure_loss = _make_loss(_X_DATA, _Y_DATA)     # the closure itself is what jitad is given


def refused_forms():
    """Refused on purpose (each at its marked line, both modes): *args of the differentiated
    function (jitad needs a fixed list of parameters; a helper's are fine), random numbers drawn inside the function (draw the noise outside),
    the call of what a call returns (give jitad the returned closure itself)."""
    nrm = np.random.default_rng(1505).normal
    return [
        (weighted_terms, (nrm(size=3), 0.5, -1.5, 2.0)),
        (rng_inside_function, (nrm(size=3), 0.2 * nrm(size=3))),
        (closure_over_arrays, (nrm(size=3),)),
    ]


def surface(seed=15):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(6, 3))
    y = nrm(size=6)
    R = nrm(size=(4, 5))
    mask = (rng.uniform(size=(4, 5)) > 0.3) * 1.0
    mf = {"U": 0.3 * nrm(size=(4, 2)), "V": 0.3 * nrm(size=(5, 2)), "bu": 0.1 * nrm(size=4),
          "bi": 0.1 * nrm(size=5), "mu": 0.2}
    return [
        (mf_dict_params, (mf, R, mask), (0,)),
        (mlp_params_list_indexed, ([0.5 * nrm(size=(3, 4)), 0.1 * nrm(size=4),
                                    0.5 * nrm(size=(4, 1)), 0.1 * nrm(size=1)], X, y[:, None]),
         (0,)),
        (mlp_tuple_of_layers, ((Layer(0.5 * nrm(size=(3, 4)), 0.1 * nrm(size=4)),
                                Layer(0.5 * nrm(size=(4, 2)), 0.1 * nrm(size=2))), X), (0, 1)),
        (funnel_namedtuple, (Gaussian(0.3, -0.4), nrm(size=4)), (0, 1)),
        (nested_dict_autoencoder, ({"enc": {"W": 0.4 * nrm(size=(2, 3)), "b": np.zeros(2)},
                                    "dec": {"W": 0.4 * nrm(size=(3, 2)), "b": 0.1 * nrm(size=3)}},
                                   nrm(size=3)), (0, 1)),
        (tuple_unpacked_in_helper, ((nrm(size=3), 0.3), X, y), (0,)),
        (dict_items_loop, ({"w1": nrm(size=3), "bias": nrm(size=3), "w2": nrm(size=3)},
                           nrm(size=3)), (0, 1)),
        (list_of_arrays_enumerate, ([nrm(size=3), nrm(size=3), nrm(size=3)], nrm(size=3)),
         (0, 1)),
        (ridge_with_defaults, (nrm(size=3), X, y), (0,)),
        (softmax_kwonly, (nrm(size=(5, 3)), rng.integers(0, 3, 5)), (0,)),
        (annotated_huber, (np.array([0.3, -2.0, 1.5, -0.4]), 1.0), (0, 1)),
        (assert_shapes_linear, (nrm(size=3), X, y), (0, 1)),
        (isinstance_scalar_or_array, (nrm(size=4), 0.7), (0, 1)),
        (isinstance_scalar_or_array, (nrm(size=4), np.abs(nrm(size=4))), (0, 1)),
        (ndim_dispatch, (nrm(size=(3, 2)), nrm(size=3)), (0, 1)),
        (ndim_dispatch, (nrm(size=(3, 2)), nrm(size=(4, 3))), (0, 1)),
        (shape_check_raises_in_loop, (nrm(size=(2, 3)), nrm(size=(4, 3))), (0, 1)),
        (range_len_dot, (nrm(size=4), nrm(size=4)), (0, 1)),
        (zip_reversed_discount, (1.5, nrm(size=5)), (0, 1)),
        (zip_pairs_energy, (nrm(size=4), nrm(size=4)), (0, 1)),
        (enumerate_zip_weighted, (nrm(size=3), X, y), (0, 1, 2)),
        (conditional_expression_clip, (np.array([0.1, 0.9, -0.3, 0.7]),), (0,)),
        (chained_comparison_window, (0.7, nrm(size=6)), (0, 1)),
        (and_or_on_floats, (np.array([0.5, -0.7, 1.1]), 0.0), (0,)),   # `gain or 1.0` jumps at 0
        (and_or_on_floats, (np.array([-0.5, 0.7, 1.1]), 2.0), (0, 1)),
        (int_div_mod_grid, (nrm(size=6), 3), (0,)),
        (nested_loop_early_return, (np.abs(nrm(size=4)), 2.0), (0, 1)),
        (while_true_break, (1.2, 2.0), (0, 1)),
        (for_else_search, (np.array([0.1, 0.5, 0.3]), 0.4), (0, 1)),
        (for_else_search, (np.array([0.1, 0.2, 0.3]), 0.4), (0, 1)),
        (recursive_depth_bisect, (1.3, 0.0, 2.0), (0, 1, 2)),
        (casts_everywhere, (nrm(size=3), 5), (0,)),
        (print_in_a_loop, (nrm(size=3), X, y), (0,)),
        (math_and_special_scalars, (1.7, 0.6), (0, 1)),
        (global_statement_reader, (nrm(size=3),), (0,)),
        (module_tuple_and_dict, (nrm(size=3),), (0,)),
        (local_lambdas, (nrm(size=3), 0.8), (0, 1)),
        (closure_loss, (nrm(size=3),), (0,)),
        (nested_def_with_default, (nrm(size=3), 1.3), (0, 1)),
        (functools.partial(ridge_with_defaults, X=X, y=y, lam=0.05), (nrm(size=3),), (0,)),
        (KalmanModel(np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([1.0, 0.0]), 2).loglik,
         (-1.0, -0.5, np.cumsum(nrm(size=5))), (0, 1)),
        (Regressor(X, y, 0.1).loss, (nrm(size=3),), (0,)),
        (arm_reach_staticmethod, (np.array([0.3, 0.5, -0.2]),), (0,)),
        (gmm_namedtuple_params, (Gaussian(0.1, 0.3), nrm(size=5)), (0,)),
        (keyword_call_of_helper, (nrm(size=3), nrm(size=3)), (0, 1)),
        (enumerate_start_one, (nrm(size=4),), (0,)),
        (item_and_abs_builtins, (nrm(size=3), X), (0,)),
        (min_max_builtins, (0.7, 1.3), (0, 1)),
        (sorted_list_of_floats, (np.array([0.4, 1.1, -0.6]),), (0,)),
        (comprehension_with_condition, (np.array([0.3, -0.8, 1.2, 0.1]), 1.5), (0, 1)),
        (float_int_of_shape, (nrm(size=4),), (0,)),
        # refused until corpus 18 (a helper taking *args)
        (star_args_helper, (nrm(size=3), nrm(size=3)), (0, 1)),
    ]


def models(seed=1515):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    img = (rng.uniform(size=(5, 5)) > 0.5) * 1.0
    vocab, dim = 7, 3
    return [
        (reinforce_fixed_samples, (0.3 * nrm(size=3), nrm(size=(5, 4, 3)), rng.integers(0, 4, 5),
                                   nrm(size=5)), (0,)),
        (kalman_loglik_1d, (np.array([-1.0, -0.3]), np.cumsum(nrm(size=6))), (0,)),
        (hmc_banana_potential, (np.array([0.7, -0.4]),), (0,)),
        (mgh_helical, (np.array([-1.0, 0.3, 0.2]),), (0,)),
        (hmc_leapfrog_final_energy, (nrm(size=3), nrm(size=3), 0.1, 5), (0, 1, 2)),
        (shooting_rk4_control, (0.5 * nrm(size=5), np.array([0.0, 0.0])), (0, 1)),
        (shooting_while_time, (0.3, 1.2), (0, 1)),
        (ray_sphere_shading, (np.array([0.1, 0.05, 0.0]), 0.9), (0, 1)),
        (soft_rasterize_disk, (0.45, 0.55, 0.3, img), (0, 1, 2)),
        (binomial_american_put, (95.0, 0.3), (0, 1)),
        (binomial_european_array, (100.0, 0.25), (0, 1)),
        (robot_fk_cumsum, (np.array([0.3, 0.5, -0.2]), np.array([1.0, 0.8, 0.5])), (0, 1)),
        (robot_fk_homogeneous, (np.array([0.3, 0.5, -0.2]),), (0,)),
        (soft_knn_nca, (np.eye(2) + 0.1 * nrm(size=(2, 2)), nrm(size=(6, 2)),
                        np.array([0, 1, 0, 1, 1, 0])), (0,)),
        (knn_soft_loop, (nrm(size=2), nrm(size=(5, 2)), nrm(size=5)), (0, 1, 2)),
        (word2vec_negative_sampling, (0.3 * nrm(size=(vocab, dim)), 0.3 * nrm(size=(vocab, dim)),
                                      rng.integers(0, vocab, 4), rng.integers(0, vocab, 4),
                                      rng.integers(0, vocab, (4, N_NEG))), (0, 1)),
        (word2vec_vectorized, (0.3 * nrm(size=(vocab, dim)), 0.3 * nrm(size=(vocab, dim)),
                               rng.integers(0, vocab, 4), rng.integers(0, vocab, 4),
                               rng.integers(0, vocab, (4, N_NEG))), (0, 1)),
        (mf_sgd_pass_dict, ({"U": 0.5 * nrm(size=(3, 2)), "V": 0.5 * nrm(size=(4, 2))},
                            np.array([0, 1, 2, 0]), np.array([1, 3, 0, 1]), nrm(size=4)), (0,)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(surface() + models(), sys.argv[1:])
