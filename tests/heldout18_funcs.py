"""Held-out corpus #18: the README's whole public API on everyday scientific code, not only
`grad`. Residual vectors for Jacobians (`jacfwd`, `jacrev`, `jvp`: curve fits, a circle fit,
a planar arm's tip, an RK4 flow's sensitivity to its start, a vectorised Newton iteration),
log-likelihoods for Hessians and Hessian-vector products (`hessian`, `hvp`: logistic and
Poisson regression, a Gaussian and a Student-t likelihood, a scalar Kalman filter, a
dose-response model, a log-barrier, Lennard-Jones and spring-network energies), ODE steps
and iterations differentiated through their loops (Euler, leapfrog, Newton with a tolerance,
bisection then Newton, early-stopped gradient descent), `value_and_grad` with `has_aux`
metrics, `wrt` by name, index and tuple, `mode="eager"` and `.compiled` kernels -- written
with the Python a scientist uses: NamedTuple and dataclass parameters passed in and made in
the function (fields, methods calling methods, class constants, `_replace`), the walrus in
tests and loops, `*args` and `**kwargs` helpers, dict and tuple parameters, module
constants, loops with `break`, early returns. Written for this corpus (none copied from
earlier corpora or other projects).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`JACOBIANS`, `HESSIANS` and `SECOND` name the cases checked by those transformations too
(tests/test_heldout18.py); `refused_forms()` what stays refused on purpose.

`python -m tests.heldout18_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import dataclasses
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

NU = 4.0                                        # Student-t degrees of freedom
CONFIG = {"l2": 1e-2, "power": 2}
EDGES = ((0, 1, 1.0), (1, 2, 1.2), (0, 2, 1.5), (2, 3, 0.8))   # spring (i, j, rest length)


# -- records: NamedTuple and dataclass parameters ---------------------------------------------------
class Prior(NamedTuple):
    mean: np.ndarray
    prec: float


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclass
class MLP:
    W1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray

    def hidden(self, X):
        return np.tanh(X @ self.W1 + self.b1)

    def predict(self, X):
        return self.hidden(X) @ self.w2


@dataclass
class Oscillator:
    k: float
    c: float = 0.1
    MASS = 2.0                                  # a class constant, not a field

    def potential(self, x):
        return 0.5 * self.k * x * x + 0.25 * self.c * x ** 4

    def energy(self, x, v):
        return 0.5 * self.MASS * v * v + self.potential(x)


@dataclass(frozen=True)
class Series:
    t: np.ndarray
    y: np.ndarray


# -- residual vectors (Jacobians) -------------------------------------------------------------------
def exp_decay_residuals(theta, t, y):
    a, k, c = theta
    return a * np.exp(-k * t) + c - y


def circle_fit_residuals(c, pts):
    xc, yc, r = c[0], c[1], c[2]
    res = []
    for p in pts:
        res.append(math.hypot(p[0] - xc, p[1] - yc) - r)
    return np.array(res)


def arm_tip(q, lengths):
    """A planar arm's end point: angles accumulate along the links."""
    x, y, angle = 0.0, 0.0, 0.0
    for qi, li in zip(q, lengths):
        angle += qi
        x += li * math.cos(angle)
        y += li * math.sin(angle)
    return np.array([x, y])


def lotka_volterra_rk4(x0, dt, n):
    """An RK4 flow: the Jacobian wrt x0 is the sensitivity matrix."""
    def f(u):
        return np.array([u[0] * (1.0 - 0.5 * u[1]), u[1] * (0.3 * u[0] - 0.7)])

    x = x0
    for _ in range(n):
        k1 = f(x)
        k2 = f(x + 0.5 * dt * k1)
        k3 = f(x + 0.5 * dt * k2)
        k4 = f(x + dt * k3)
        x = x + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return x


def newton_cbrt_vec(a):
    """x^3 = a elementwise by Newton, stopped on a tolerance (walrus in the test)."""
    x = np.ones_like(a)
    for _ in range(50):
        if np.max(np.abs(step := (x ** 3 - a) / (3.0 * x ** 2))) < 1e-13:
            break
        x = x - step
    return x


def softmax_stable(z):
    return np.exp(z - (m := np.max(z))) / np.sum(np.exp(z - m))


def series_residuals(theta, data):
    """A frozen dataclass of data (not differentiated) beside the parameters."""
    return theta[0] * np.sin(theta[1] * data.t) - data.y


def michaelis_menten(p, s):
    vmax, km = p
    return vmax * s / (km + s)


# -- likelihoods (Hessians, Laplace approximations) -------------------------------------------------
def logistic_nll(w, X, y, *, l2=1e-2):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * np.dot(w, w)


def poisson_glm_nll(beta, X, counts):
    eta = X @ beta
    return np.sum(np.exp(eta) - counts * eta)


def gaussian_nll(mu, log_sigma, x):
    s2 = math.exp(2.0 * log_sigma)
    return 0.5 * np.sum((x - mu) ** 2) / s2 + x.size * log_sigma


def student_t_nll(mu, log_s, x):
    s = math.exp(log_s)
    z = (x - mu) / s
    return np.sum(0.5 * (NU + 1.0) * np.log1p(z * z / NU)) + x.size * log_s


def laplace_log_post(w, X, y, prior):
    """A logistic log-posterior with a NamedTuple prior passed in (not differentiated)."""
    z = X @ w
    d = w - prior.mean
    return -np.sum(np.logaddexp(0.0, z) - y * z) - 0.5 * prior.prec * np.dot(d, d)


def kalman_loglik(log_q, log_r, ys):
    """A local-level model's log-likelihood by the Kalman filter, a loop over the series."""
    q, r = math.exp(log_q), math.exp(log_r)
    m, P = 0.0, 10.0
    ll = 0.0
    for y in ys:
        P = P + q
        S = P + r
        v = y - m
        ll -= 0.5 * (math.log(2.0 * math.pi * S) + v * v / S)
        K = P / S
        m = m + K * v
        P = (1.0 - K) * P
    return ll


def dose_response_nll(alpha, beta, dose, n, k):
    """A bioassay logit model (binomial counts k of n at each dose)."""
    nll = 0.0
    for d, ni, ki in zip(dose, n, k):
        eta = alpha + beta * d
        nll += ni * np.logaddexp(0.0, eta) - ki * eta
    return nll


def log_barrier(x, A, b, c):
    slack = b - A @ x
    if np.min(slack) <= 0.0:
        return 1e10
    return np.dot(c, x) - np.sum(np.log(slack))


def lennard_jones(pos):
    """Pairwise energy with a cutoff, a double loop with `continue`."""
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            if r2 > 9.0:
                continue
            inv6 = 1.0 / r2 ** 3
            e += 4.0 * (inv6 * inv6 - inv6)
    return e


def spring_network(x):
    """Springs between 2-D points, listed as a module tuple of (i, j, rest)."""
    P = x.reshape(-1, 2)
    e = 0.0
    for i, j, rest in EDGES:
        e += 0.5 * (np.linalg.norm(P[i] - P[j]) - rest) ** 2
    return e


def mixture_nll_dict(params, x):
    """A 1-D Gaussian mixture with its parameters in a dict."""
    w = np.exp(params["logits"]) / np.sum(np.exp(params["logits"]))
    sig = np.exp(params["log_sigma"])
    z = (x[:, None] - params["mu"][None, :]) / sig[None, :]
    dens = w[None, :] * np.exp(-0.5 * z * z) / (sig[None, :] * math.sqrt(2.0 * math.pi))
    return -np.sum(np.log(np.sum(dens, axis=1)))


# -- ODE steps and iterations -----------------------------------------------------------------------
def logistic_growth_euler(k, x0):
    x = x0
    dt = 0.05
    for _ in range(40):
        x = x + dt * k * x * (1.0 - x)
    return x


def pendulum_symplectic(theta0, omega0):
    """Symplectic Euler; returns the energy drift, early if the swing goes over the top."""
    th, om, dt = theta0, omega0, 0.05
    e0 = 0.5 * om * om - math.cos(th)
    for _ in range(60):
        om = om - dt * math.sin(th)
        th = th + dt * om
        if abs(th) > math.pi:
            return 10.0 + th
    return 0.5 * om * om - math.cos(th) - e0 + th * 0.1


def bisect_then_newton(a):
    """The root of cos(x) = a x: bisection brackets it (control only), Newton polishes it."""
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-3:
        mid = 0.5 * (lo + hi)
        if math.cos(mid) - a * mid > 0.0:
            lo = mid
        else:
            hi = mid
    x = 0.5 * (lo + hi)
    for _ in range(6):
        x = x - (math.cos(x) - a * x) / (-math.sin(x) - a)
    return x * x


def walrus_newton_cbrt(a):
    x = 1.0
    while abs(step := (x ** 3 - a) / (3.0 * x * x)) > 1e-14:
        x -= step
    return x


def early_stopped_descent(w0, X, y):
    """Gradient descent by hand inside the loss, stopped once the loss is small."""
    w = w0
    for _ in range(30):
        r = X @ w - y
        if np.dot(r, r) < 1e-3:
            break
        w = w - 0.05 * (X.T @ r)
    r = X @ w - y
    return np.dot(r, r) + 0.1 * np.sum(w ** 2)


def leapfrog_hamiltonian(q, p, eps):
    """HMC's leapfrog on a Gaussian potential; the final Hamiltonian."""
    def grad_u(u):
        return u * np.array([1.0, 4.0])

    p = p - 0.5 * eps * grad_u(q)
    for _ in range(5):
        q = q + eps * p
        p = p - eps * grad_u(q)
    p = p + 0.5 * eps * grad_u(q)
    return 0.5 * np.sum(q * q * np.array([1.0, 4.0])) + 0.5 * np.dot(p, p)


def heat_implicit(kappa, u0):
    """Backward-Euler heat steps: a solve per step, sensitivity to the diffusivity."""
    n = u0.shape[0]
    L = -2.0 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    A = np.eye(n) - 0.1 * kappa * L
    u = u0
    for _ in range(4):
        u = np.linalg.solve(A, u)
    return np.sum(u ** 2)


# -- records made and passed ------------------------------------------------------------------------
def mlp_dataclass_loss(model, X, y):
    """A dataclass model passed in: its gradient is an MLP of gradients."""
    r = model.predict(X) - y
    return np.mean(r * r)


def namedtuple_layers_made(W1, b1, W2, b2, X):
    """Layers made in the function, called (`__call__` is a method too)."""
    l1 = Layer(W1, b1)
    l2 = Layer(W=W2, b=b2)
    h = l1.__call__(X)
    return np.sum(l2.__call__(h) ** 2)


def _forward(layer, X):
    return np.tanh(X @ layer.W + layer.b)


def namedtuple_to_helper(W, b, X):
    return np.sum(_forward(Layer(W, b), X) ** 2)


def oscillator_energy(x, v, k):
    osc = Oscillator(k=k)
    stiff = Oscillator(2.0 * k, c=0.5)
    return osc.energy(x, v) + stiff.potential(x)


def namedtuple_replace_step(W, b, X, y):
    """One step on a NamedTuple of parameters by `_replace`, then the loss there."""
    p = Layer(W, b)
    r = np.sum(p.__call__(X), axis=1) - y
    q = p._replace(W=p.W - 0.1 * np.outer(np.sum(X, axis=0), np.ones(W.shape[1])) * np.mean(r))
    return np.sum((np.sum(q.__call__(X), axis=1) - y) ** 2)


def dataclass_replace(model, X, y):
    shrunk = dataclasses.replace(model, w2=0.5 * model.w2)
    return np.sum((shrunk.predict(X) - y) ** 2)


# -- *args, **kwargs, dicts, configs ----------------------------------------------------------------
def _l2(*ws):
    return sum(np.sum(w * w) for w in ws)


def star_args_penalty(W1, W2, b):
    return np.sum(np.tanh(W1 @ b) @ W2) + 0.01 * _l2(W1, W2) + 0.1 * _l2(b)


def _activation(z, kind="tanh", slope=0.1):
    if kind == "tanh":
        return np.tanh(z)
    return np.where(z > 0.0, z, slope * z)


def _dense(W, x, **act):
    return _activation(W @ x, **act)


def kwargs_layers(W1, W2, x):
    h = _dense(W1, x, kind="leaky", slope=0.2)
    return np.sum(_dense(W2, h) ** 2)


def ridge_config(w, X, y):
    r = X @ w - y
    return np.sum(r ** CONFIG["power"]) + CONFIG["l2"] * np.sum(w ** 2)


def walrus_guarded_norm(x):
    if (n := x.shape[0]) > 3 and (s := np.sum(x * x)) > 1e-8:
        return math.sqrt(s) / n
    return np.sum(x) / x.shape[0]


def huber_regression(w, X, y, *, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def cox_partial_nll(beta, X, times, events):
    """Breslow partial likelihood: risk sets by a reverse cumulative sum over sorted times."""
    order = np.argsort(times)
    eta = X[order] @ beta
    risk = np.cumsum(np.exp(eta)[::-1])[::-1]
    ev = events[order]
    return -np.sum(ev * (eta - np.log(risk)))


def arma11_css(phi, theta, y):
    """An ARMA(1,1) conditional sum of squares, residuals by recursion."""
    e_prev = 0.0
    s = 0.0
    for t in range(1, y.shape[0]):
        e = y[t] - phi * y[t - 1] - theta * e_prev
        s += e * e
        e_prev = e
    return s


def loss_with_metrics(w, X, y):
    """For has_aux: the loss and a dict of metrics."""
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    nll = -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    acc = np.mean((p > 0.5) == (y > 0.5))
    return nll, {"acc": acc, "mean_p": np.mean(p)}


def _rosen_terms(x):
    return [Rosen().term(x[i], x[i + 1]) for i in range(x.shape[0] - 1)]


@dataclass
class Rosen:
    a: float = 1.0
    b: float = 100.0

    def term(self, u, v):
        return self.b * (v - u * u) ** 2 + (self.a - u) ** 2


def rosen_dataclass(x):
    r = Rosen(b=50.0)
    t = 0.0
    for i in range(x.shape[0] - 1):
        t += r.term(x[i], x[i + 1])
    return t


# -- the new forms one by one (tests/test_heldout18.py `test_forms`) -------------------------------
def walrus_before_and_after(x):
    y = 1.0
    return y + (y := np.sum(x ** 2)) * y          # the old y first, then the new one


def walrus_or_branch(x):
    if x[0] < 0.0 or (m := np.max(x)) < 0.5:
        return np.sum(x)
    return m * x[0]


def walrus_conditional(x):
    v = (q := x[0] * 2.0) if x[1] > 0.0 else (q := x[1] * 3.0)
    return v * q


def walrus_while_continue(x):
    t, i = 0.0, 0
    while (s := t + x[i]) < 2.0:
        t = s * 1.5
        i += 1
        if i >= x.shape[0]:
            break
        if x[i] < 0.0:
            continue
        t += 0.1 * x[i]
    return t + s


def _lead(scale, *xs, power=2):
    return scale * sum(np.sum(v ** power) for v in xs) + len(xs)


def star_then_keyword_only(x, y):
    return _lead(0.5, x, y) + _lead(2.0, x, power=3)


def _stack_rows(*rows):
    return np.stack(rows)


def star_args_stacked(x, y):
    return np.sum(_stack_rows(x, y) ** 2) + np.sum(_stack_rows(*(x, y, x)))


def _opt(x, **kw):
    return kw.get("c", 1.0) * np.sum(x ** 2) + kw["d"]


def kwargs_get(x):
    return _opt(x, d=x[1]) + _opt(x, c=3.0, d=0.5)


def dict_argument_splat(x, cfg):
    return np.sum(_activation(x, **cfg))


def zip_array_with_constant_tuple(x):
    t = 0.0
    for xi, w in zip(x, (0.5, 2.0, -1.0)):
        t += w * xi ** 2
    return t


def record_in_unrolled_loop(layers, x):
    """A record made in a loop over a tuple argument (unrolled): one per layer."""
    h = x
    for W, b in layers:
        layer = Layer(W, b)
        h = layer.__call__(h)
    return np.sum(h ** 2)


def forms():
    rng = np.random.default_rng(1820)
    nrm = rng.normal
    return [
        (walrus_before_and_after, (nrm(size=3),), (0,)),
        (walrus_or_branch, (np.array([0.3, 0.9]),), (0,)),
        (walrus_or_branch, (np.array([0.3, 0.2]),), (0,)),
        (walrus_or_branch, (np.array([-0.3, 0.9]),), (0,)),
        (walrus_conditional, (np.array([0.3, 0.9]),), (0,)),
        (walrus_conditional, (np.array([0.3, -0.9]),), (0,)),
        (walrus_while_continue, (np.array([0.3, 0.5, -0.4, 0.2, 0.1]),), (0,)),
        (star_then_keyword_only, (nrm(size=3), nrm(size=3)), (0, 1)),
        (star_args_stacked, (nrm(size=3), nrm(size=3)), (0, 1)),
        (kwargs_get, (nrm(size=3),), (0,)),
        (dict_argument_splat, (nrm(size=3), {"kind": "leaky", "slope": 0.3}), (0,)),
        (zip_array_with_constant_tuple, (nrm(size=4),), (0,)),
        (record_in_unrolled_loop, (((0.5 * nrm(size=(3, 4)), nrm(size=4)),
                                    (0.5 * nrm(size=(4, 2)), nrm(size=2))), nrm(size=(2, 3))),
         (0, 1)),
    ]


# -- refused on purpose -----------------------------------------------------------------------------
def record_in_list(x):
    return sum(_rosen_terms(x))


def walrus_in_comprehension(x):
    return sum([(y := v * v) + y for v in x])  # ERR: walrus


def star_args_top(*xs):  # ERR: takes *xs
    return sum(xs)


def dataclass_iterated(model, X):
    t = 0.0
    for w in model:  # ERR: a dataclass object is not indexed, unpacked or iterated
        t = t + np.sum(w)
    return t


def record_with_post_init(x):
    s = Checked(x[0], x[1])  # ERR: has a __post_init__
    return s.a * s.b


@dataclass
class Checked:
    a: float
    b: float

    def __post_init__(self):
        if self.b < 0:
            raise ValueError("b must be non-negative")


def kwargs_of_array(x, opts):
    return np.sum(_activation(x, **opts))  # ERR: **kwargs in a call


def cases(seed=18):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(8, 3))
    yb = (rng.uniform(size=8) < 0.5).astype(float)
    mlp = MLP(0.5 * nrm(size=(3, 4)), 0.1 * nrm(size=4), 0.5 * nrm(size=4))
    events = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    return [
        (logistic_nll, (0.3 * nrm(size=3), X, yb), (0,)),
        (poisson_glm_nll, (0.2 * nrm(size=3), X, rng.poisson(2.0, size=8).astype(float)), (0,)),
        (gaussian_nll, (0.3, -0.2, nrm(size=6)), (0, 1)),
        (student_t_nll, (0.1, 0.2, nrm(size=6)), (0, 1)),
        (laplace_log_post, (0.3 * nrm(size=3), X, yb, Prior(nrm(size=3), 2.0)), (0,)),
        (kalman_loglik, (-1.0, -0.5, np.cumsum(nrm(size=8))), (0, 1)),
        (dose_response_nll, (0.5, 1.5, np.array([-0.86, -0.3, -0.05, 0.73]),
                             np.full(4, 5.0), np.array([0.0, 1.0, 3.0, 5.0])), (0, 1)),
        (log_barrier, (np.array([0.1, 0.2]), np.array([[1.0, 1.0], [-1.0, 0.5], [0.2, -1.0]]),
                       np.array([1.0, 1.0, 1.0]), np.array([0.5, -0.3])), (0,)),
        (lennard_jones, (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.2], [5.0, 5.0]]),), (0,)),
        (spring_network, (np.array([0.0, 0.0, 1.1, 0.1, 0.7, 1.2, 1.5, 1.9]),), (0,)),
        (mixture_nll_dict, ({"logits": nrm(size=2), "mu": np.array([-1.0, 1.0]),
                             "log_sigma": 0.2 * nrm(size=2)}, nrm(size=6)), (0,)),
        (logistic_growth_euler, (1.3, 0.1), (0, 1)),
        (pendulum_symplectic, (0.4, 0.3), (0, 1)),
        (pendulum_symplectic, (2.5, 1.5), (0, 1)),
        (bisect_then_newton, (0.7,), (0,)),
        (walrus_newton_cbrt, (2.5,), (0,)),
        (early_stopped_descent, (np.zeros(3), X, X @ np.array([1.0, -1.0, 0.5])), (0,)),
        (early_stopped_descent, (np.zeros(3), 0.3 * X, nrm(size=8)), (0,)),
        (leapfrog_hamiltonian, (np.array([0.5, -0.3]), np.array([0.2, 0.4]), 0.1), (0, 1, 2)),
        (heat_implicit, (0.8, np.sin(np.linspace(0.0, 3.0, 5))), (0, 1)),
        (mlp_dataclass_loss, (mlp, X, nrm(size=8)), (0,)),
        (namedtuple_layers_made, (0.5 * nrm(size=(3, 4)), 0.1 * nrm(size=4),
                                  0.5 * nrm(size=(4, 2)), 0.1 * nrm(size=2), X), (0, 1, 2, 3)),
        (namedtuple_to_helper, (0.5 * nrm(size=(3, 2)), nrm(size=2), X), (0, 1)),
        (oscillator_energy, (0.7, -0.4, 1.5), (0, 1, 2)),
        (namedtuple_replace_step, (0.3 * nrm(size=(3, 2)), nrm(size=2), X, nrm(size=8)),
         (0, 1)),
        (dataclass_replace, (mlp, X, nrm(size=8)), (0,)),
        (star_args_penalty, (nrm(size=(3, 2)), nrm(size=(3,)), nrm(size=2)), (0, 1, 2)),
        (kwargs_layers, (nrm(size=(4, 3)), nrm(size=(2, 4)), nrm(size=3)), (0, 1, 2)),
        (ridge_config, (nrm(size=3), X, nrm(size=8)), (0,)),
        (walrus_guarded_norm, (nrm(size=5),), (0,)),
        (walrus_guarded_norm, (nrm(size=3),), (0,)),
        (huber_regression, (nrm(size=3), X, 2.0 * nrm(size=8)), (0,)),
        (cox_partial_nll, (0.3 * nrm(size=3), X, rng.uniform(1.0, 9.0, size=8), events), (0,)),
        (arma11_css, (0.5, 0.2, np.cumsum(nrm(size=10)) * 0.3), (0, 1)),
        (rosen_dataclass, (np.array([-1.2, 1.0, 0.3, 0.5]),), (0,)),
        (record_in_list, (np.array([-1.2, 1.0, 0.3]),), (0,)),
    ]


# transformations beyond grad (tests/test_heldout18.py): vector functions for jacfwd, jacrev
# and jvp; scalar cases for hessian and hvp (by name: the first case of that name)
def jacobians(seed=1818):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    t = np.linspace(0.0, 2.0, 6)
    pts = np.array([[1.0, 0.1], [0.1, 1.1], [-0.9, 0.0], [0.0, -1.05], [0.7, 0.7]])
    return [
        (exp_decay_residuals, (np.array([1.5, 0.8, 0.2]), t, nrm(size=6)), 0),
        (circle_fit_residuals, (np.array([0.1, -0.1, 1.0]), pts), 0),
        (arm_tip, (np.array([0.3, -0.5, 0.9]), (1.0, 0.7, 0.4)), 0),
        (lotka_volterra_rk4, (np.array([1.0, 0.8]), 0.1, 6), 0),
        (newton_cbrt_vec, (np.array([0.5, 2.0, 8.5]),), 0),
        (softmax_stable, (nrm(size=4),), 0),
        (series_residuals, (np.array([1.2, 0.9]), Series(t, nrm(size=6))), 0),
        (michaelis_menten, (np.array([2.0, 0.5]), np.array([0.1, 0.4, 1.0, 3.0])), 0),
    ]


HESSIANS = ["logistic_nll", "gaussian_nll", "student_t_nll", "kalman_loglik",
            "dose_response_nll", "log_barrier", "lennard_jones", "spring_network",
            "logistic_growth_euler", "heat_implicit", "arma11_css", "oscillator_energy",
            "rosen_dataclass", "walrus_newton_cbrt"]


def refused_forms():
    """Refused on purpose (at the marked line, both modes): the walrus in a comprehension (it
    binds in the function around it), `*args` of the differentiated function itself (its
    parameters are fixed), iterating a dataclass object (Python does not), a dataclass with a
    `__post_init__` made in the function (jitad does not run it), `**` of a value that is no
    dict structure. A record put in a list (`[Rosen().term(...) ...]` is fine: the record is
    read at once) is no refusal."""
    nrm = np.random.default_rng(1819).normal
    mlp = MLP(nrm(size=(3, 4)), nrm(size=4), nrm(size=4))
    return [(walrus_in_comprehension, (nrm(size=3),)),
            (star_args_top, (0.3, 0.5)),
            (dataclass_iterated, (mlp, nrm(size=(2, 3)))),
            (record_with_post_init, (np.array([0.5, 0.7]),)),
            (kwargs_of_array, (nrm(size=3), np.ones(2)))]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
