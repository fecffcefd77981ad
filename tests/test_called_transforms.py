"""A transformed function called inside another: `jitad.grad(f)(x)` (or a `grad(f)` /
`value_and_grad(f)` object kept in a global; `jacfwd`, `jacrev`, `hessian` too) in a loss that
is itself differentiated -- a gradient penalty, forces matched to targets, a leapfrog step of
Hamiltonian dynamics, a flow's log-determinant, a Laplacian. Each
case against central differences, in both modes (the python backend; one under Numba), and
against autograd's nested `grad` where the case has an autograd twin; `grad(grad(net))` in a
physics-informed loss is a third derivative through generated code."""
import math

import numpy as np
import pytest

import jitad
from jitad import grad, value_and_grad

from tests.harness import assert_grads_close, check_grads_both_modes

rng = np.random.default_rng(7)


def energy(q, k):
    return 0.5 * k * np.sum(q ** 2) + np.sum(np.cos(q))


force = jitad.grad(energy)


def force_matching(q, k, target):        # a grad object kept in a global
    F = force(q, k)
    return np.sum((F - target) ** 2)


def force_matching_inline(q, k, target):  # jitad.grad(f) written where it is called
    F = jitad.grad(energy)(q, k)
    return np.sum((F - target) ** 2)


def stiffness_fit(k, q, target):          # the outer gradient wrt what f's gradient is not
    F = grad(energy, wrt=0)(q, k)
    return np.sum((F - target) ** 2)


def potential(q):
    return 0.25 * np.sum(q ** 4) + 0.5 * np.sum(q ** 2)


def leapfrog(q0, p0, dt):                 # a grad call in a loop, twice per step
    q, p = q0, p0
    for _ in range(4):
        p = p - 0.5 * dt * grad(potential)(q)
        q = q + dt * p
        p = p - 0.5 * dt * grad(potential)(q)
    return np.sum(q ** 2) + np.sum(p)


def wave(x):
    return math.sin(x) * x


wave_vg = jitad.value_and_grad(wave)


def value_and_slope(x):                   # value_and_grad of a scalar function
    v, d = wave_vg(2.0 * x)
    return v * d + d ** 2


def bilinear(a, b):
    return np.sum(a * b ** 2)


def both_gradients(a, b):                 # wrt by name, a tuple of gradients
    ga, gb = grad(bilinear, wrt=("a", "b"))(a, b)
    return np.sum(ga ** 2) + np.sum(gb * a)


X = rng.normal(size=(6, 3))


def data_loss(w):                         # reads a global array at every call
    return np.sum(np.log1p(np.exp(X @ w)))


def gradient_penalty(w):
    g = grad(data_loss)(w)
    return np.sum(g ** 2) + np.sum(w ** 2)


def soft(x):                              # a scalar function reading the global X
    return np.sum(np.log1p(np.exp(X[:, 0] * x)))


def curvature_penalty(x):                 # its second derivative, X passed on
    return jitad.grad(jitad.grad(soft))(x) ** 2 + x ** 2


def settle(x):                            # a while loop whose trip count depends on x
    y = x
    n = 0
    while y < 5.0 and n < 50:
        y = y * 1.3 + 0.1 * math.sin(x)
        n += 1
    return y * x


def squared_slope(x):
    return grad(settle)(x) ** 2


def net(x, w):                            # a scalar network of a scalar input
    h = np.tanh(w[0:4] * x + w[4:8])
    return np.sum(w[8:12] * h)


net_xx = jitad.grad(jitad.grad(net))


def pinn_residuals(w, xs):               # u'' = -sin(x) at collocation points, u(0) = 0
    s = 0.0
    for i in range(xs.shape[0]):
        r = net_xx(xs[i], w) + math.sin(xs[i])
        s = s + r * r
    return s + net(0.0, w) ** 2


def pinn_residuals_inline(w, xs):
    s = 0.0
    for i in range(xs.shape[0]):
        r = jitad.grad(jitad.grad(net))(xs[i], w) + math.sin(xs[i])
        s = s + r * r
    return s


def flow(z, W):                           # a residual flow layer
    return z + np.tanh(W @ z)


def flow_log_density(W, z):               # change of variables: log |det J| by jacfwd inside
    sign, logdet = np.linalg.slogdet(jitad.jacfwd(flow)(z, W))
    return logdet - 0.5 * np.sum(flow(z, W) ** 2)


def flow_jacobian_norm(W, z):             # jacrev wrt the matrix: out.shape + W.shape
    return np.sum(jitad.jacrev(flow, wrt=1)(z, W) ** 2)


def u2(x, w):                             # a scalar network of a 2-vector
    h = np.tanh(w[:4].reshape(2, 2) @ x + w[4:6])
    return np.sum(w[6:8] * h)


laplacian_of_u2 = jitad.hessian(u2)


def poisson_residuals(w, pts):            # trace of the Hessian: the Laplacian
    s = 0.0
    for i in range(pts.shape[0]):
        r = np.trace(laplacian_of_u2(pts[i], w)) + 1.0
        s = s + r * r
    return s


CASES = [
    (force_matching, (rng.normal(size=4), 1.5, rng.normal(size=4)), (0, 1)),
    (force_matching_inline, (rng.normal(size=4), 1.5, rng.normal(size=4)), (0, 2)),
    (stiffness_fit, (1.5, rng.normal(size=4), rng.normal(size=4)), (0,)),
    (leapfrog, (rng.normal(size=3), rng.normal(size=3), 0.1), (0, 1)),
    (value_and_slope, (0.7,), (0,)),
    (both_gradients, (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
    (gradient_penalty, (rng.normal(size=3),), (0,)),
    (squared_slope, (0.9,), (0,)),
    (curvature_penalty, (0.3,), (0,)),
    (flow_log_density, (0.5 * rng.normal(size=(3, 3)), rng.normal(size=3)), (0, 1)),
    (flow_jacobian_norm, (0.5 * rng.normal(size=(3, 3)), rng.normal(size=3)), (0,)),
    (poisson_residuals, (rng.normal(size=8), rng.normal(size=(3, 2))), (0,)),
    (pinn_residuals, (rng.normal(size=12), np.linspace(0.0, 1.0, 4)), (0,)),
    (pinn_residuals_inline, (rng.normal(size=12), np.linspace(0.0, 1.0, 4)), (0,)),
]


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_against_fd_both_modes(fn, args, wrt):
    check_grads_both_modes(fn, args, wrt)


def test_compiled_by_numba():
    fn, args, wrt = CASES[3]                  # leapfrog: grad in a loop, tapes around it
    check_grads_both_modes(fn, args, wrt, backend="numba")


def test_against_autograds_nested_grad():
    import autograd
    import autograd.numpy as anp

    def a_energy(q, k):
        return 0.5 * k * anp.sum(q ** 2) + anp.sum(anp.cos(q))

    def a_force_matching(q, k, target):
        return anp.sum((autograd.grad(a_energy)(q, k) - target) ** 2)

    args = CASES[0][1]
    for w in (0, 1):
        expected = autograd.grad(a_force_matching, w)(*args)
        got = jitad.grad(jitad.differentiable(force_matching, backend="python"), wrt=w)(*args)
        assert_grads_close((got,), (expected,), rtol=1e-9, atol=1e-12)


def test_laplacian_against_autograds_nested_hessian():
    import autograd
    import autograd.numpy as anp

    def a_u2(x, w):
        return anp.sum(w[6:8] * anp.tanh(anp.dot(w[:4].reshape(2, 2), x) + w[4:6]))

    def a_poisson(w, pts):
        return sum((anp.trace(autograd.hessian(a_u2)(pts[i], w)) + 1.0) ** 2
                   for i in range(pts.shape[0]))

    w, pts = rng.normal(size=8), rng.normal(size=(3, 2))
    got = jitad.grad(jitad.differentiable(poisson_residuals, backend="python"))(w, pts)
    assert_grads_close((got,), (autograd.grad(a_poisson)(w, pts),), rtol=1e-9, atol=1e-12)


def quartic(q):
    return np.sum(q ** 4) / 12.0


def virial(q):                            # sum(q^4) / 3: Hessian diag(4 q^2)
    return np.sum(grad(quartic)(q) * q)


def test_third_order_and_forward():
    q = np.array([0.3, -0.4, 1.1])
    d = jitad.differentiable(virial, backend="python")
    for mode in ("compiled", "eager"):
        H = jitad.hessian(d if mode == "compiled" else virial, mode=mode)(q)
        np.testing.assert_allclose(H, np.diag(4 * q ** 2), rtol=1e-10, atol=1e-12)
    _, tangent = jitad.jvp(d)(q, tangents=np.ones(3))
    assert abs(tangent - np.sum(4 * q ** 3 / 3)) < 1e-12


@pytest.mark.parametrize("k", [1, 6, 8, 9], ids=lambda k: CASES[k][0].__name__)
def test_forward_mode_both_modes(k):
    """jvp of a function calling grad(g) / jacfwd(g) inside, generated and eager, against the
    gradient's dot product with a direction (eager jvp ran the Derived object through the
    front end as if it were a function: "jitad can only transform plain Python functions,
    got Derived"; found by fuzz22's called extension)."""
    fn, args, wrt = CASES[k]
    d = jitad.differentiable(fn, backend="python")
    t = tuple(np.random.default_rng(3).normal(size=np.shape(args[w])) if np.ndim(args[w])
              else 0.7 for w in wrt)
    grads = jitad.grad(d, wrt=wrt)(*args)      # (a tuple: wrt is one)
    along = sum(float(np.sum(g * v)) for g, v in zip(grads, t))
    for mode in ("compiled", "eager"):
        _, dy = jitad.jvp(d if mode == "compiled" else fn, wrt=wrt, mode=mode)(
            *args, tangents=t)
        assert abs(float(dy) - along) <= 1e-9 + 1e-7 * abs(along), (mode, dy, along)


SCALE = 2.0


def scaled(q):
    return SCALE * np.sum(q ** 2) + np.sum(np.sin(q))


def scaled_penalty(q):
    return np.sum(grad(scaled)(q) ** 2)


def test_a_global_f_reads_rebound_is_seen():
    global SCALE
    q = np.array([0.3, -0.4])

    def expected(s):
        return 2 * (2 * s * q + np.cos(q)) * (2 * s - np.sin(q))

    g = jitad.grad(jitad.differentiable(scaled_penalty, backend="python"))
    try:
        np.testing.assert_allclose(g(q), expected(2.0), rtol=1e-12)
        SCALE = 3.0
        np.testing.assert_allclose(g(q), expected(3.0), rtol=1e-12)
        np.testing.assert_allclose(jitad.grad(scaled_penalty, mode="eager")(q), expected(3.0),
                                   rtol=1e-12)
    finally:
        SCALE = 2.0


def with_aux(q):
    return np.sum(q ** 2), q


def refused_has_aux(q):
    return np.sum(grad(with_aux, has_aux=True)(q)[0])  # ERR: without has_aux


def refused_variable_wrt(q):
    return grad(quartic, wrt=q[0])(q)[0]  # ERR: constant arguments


def pair_sum(p, q):
    return np.sum(p[0] * q)


def refused_structure(q):
    return np.sum(grad(pair_sum, wrt=1)((q, q), q))  # ERR: a tuple, list or dict


def two_blocks(a, b):
    return np.sum(a * b ** 2)


def refused_hessian_blocks(q):
    return np.sum(jitad.hessian(two_blocks, wrt=(0, 1))(q, q)[0][1])  # ERR: several arguments


REFUSED = [refused_has_aux, refused_variable_wrt, refused_structure, refused_hessian_blocks]


@pytest.mark.parametrize("fn", REFUSED)
def test_refused_in_both_modes_at_the_line(fn):
    from tests.harness import check_form_refused
    check_form_refused(fn, (np.array([0.3, -0.4]),), __file__)


def test_generated_code_reads():
    text = jitad.source(jitad.grad(jitad.differentiable(virial, backend="python")), "adjoint",
                        args=(np.array([0.3, -0.4]),))
    assert "def quartic_tangent(" in text and "def virial_vjp(" in text
