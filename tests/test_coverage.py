"""Issue 12's coverage beyond single primitives: what jitad refuses on purpose, in both modes,
at the user's line (the derivatives in an order or a shape parameter, SciPy's ODE solvers),
and compositions of the primitives people write, against finite differences and autograd.
The audit of every autograd primitive is docs/coverage_audit.py (docs/coverage.md)."""
import inspect

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import coverage_funcs as cf
from .harness import central_fd, error_marker

FILE = inspect.getsourcefile(cf)
X = np.array([0.4, 1.3, 2.2])

REFUSED = [(cf.gammainc_in_its_shape, (1.5, X)), (cf.betainc_in_its_shape, (3.0, X / 3.0)),
           (cf.bessel_in_its_order, (0.75, X)), (cf.chi2_cdf_in_df, (3.0, X)),
           (cf.t_cdf_in_df, (4.0, X)), (cf.integrates_with_odeint, (0.7, X)),
           (cf.integrates_with_solve_ivp, (0.7, X))]


def _run(kind, mode, fn, args):
    if kind == "grad":
        return jitad.grad(fn, wrt=(0, 1), mode=mode)(*args)
    return jitad.jvp(fn, wrt=(0,), mode=mode)(*args, tangents=(1.0,))


@pytest.mark.parametrize("kind", ["grad", "jvp"])
@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn, args", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_refused_at_the_users_line(fn, args, mode, kind):
    """A refused derivative is a JitadError naming what is refused, at the line of the call,
    in both modes and both directions -- never a zero."""
    line, expected = error_marker(fn)
    with pytest.raises(JitadError) as info:
        _run(kind, mode, fn, args)
    err = info.value
    assert expected in str(err), str(err)
    assert err.loc is not None and err.loc.filename == FILE and err.loc.line == line, str(err)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_a_refused_operand_whose_result_is_unused_is_fine(mode):
    a, x = 1.5, X.copy()
    grads = jitad.grad(cf.refused_operand_unused, wrt=(0, 1), mode=mode)(a, x)
    assert grads[0] == pytest.approx(np.sum(x))
    assert np.allclose(grads[1], a)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_the_integrator_the_ode_refusal_suggests(mode):
    args = (0.7, X.copy())
    vg = jitad.value_and_grad(cf.integrates_with_a_loop, wrt=(0, 1), mode=mode)
    value, grads = vg(*args)
    fd = central_fd(cf.integrates_with_a_loop, args, (0, 1))
    assert value == pytest.approx(np.sum(X * np.exp(-0.7)), rel=1e-6)
    for g, r in zip(grads, fd):
        assert np.allclose(g, r, rtol=1e-6, atol=1e-9)
    if mode == "compiled":
        assert vg.specialize(*args).compiled_ran


# -- complex values as intermediates ---------------------------------------------------------

RNG = np.random.default_rng(12)
COMPOSITIONS = [
    (cf.power_spectrum_loss, (RNG.normal(size=8), RNG.uniform(0.5, 2.0, 5)), (0, 1)),
    # an even length: autograd's rfft/irfft gradients refuse odd ones (jitad's do not: the
    # odd case is in tests/test_primitives.py)
    (cf.spectral_convolution, (RNG.normal(size=8), RNG.normal(size=8)), (0, 1)),
    (cf.damped_oscillators, (1.3, 0.4, np.linspace(0.0, 3.0, 6)), (0, 1)),
    (cf.eigen_spectrum, (RNG.normal(size=(4, 4)),), (0,)),
]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn, args, wrt", COMPOSITIONS,
                         ids=[f.__name__ for f, _, _ in COMPOSITIONS])
def test_complex_compositions_match_autograd_and_finite_differences(fn, args, wrt, mode):
    """Complex intermediates and the FFTs in compositions people write: value and gradient
    against autograd (its own complex convention) and finite differences, the directional
    derivative of jvp against the gradient, in both modes; the compiled gradient ran."""
    from .harness import autograd_grad, autograd_value
    vg = jitad.value_and_grad(fn, wrt=wrt, mode=mode)
    value, grads = vg(*args)
    grads = grads if isinstance(grads, tuple) else (grads,)
    if mode == "compiled":
        assert vg.specialize(*args).compiled_ran
    assert value == pytest.approx(float(fn(*args)), rel=1e-12)
    assert value == pytest.approx(autograd_value(fn, args), rel=1e-12)
    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    ag = autograd_grad(fn, args, wrt)
    for g, r, a in zip(grads, fd, ag):
        scale = max(1.0, float(np.max(np.abs(r))))
        assert np.allclose(g, r, rtol=1e-6, atol=1e-7 * scale)
        assert np.allclose(g, a, rtol=1e-10, atol=1e-12 * scale)
    rng = np.random.default_rng(3)
    v = tuple(rng.normal(size=np.shape(args[i])) if np.ndim(args[i]) else float(rng.normal())
              for i in wrt)
    _, tangent = jitad.jvp(fn, wrt=wrt, mode=mode)(*args, tangents=v)
    want = sum(float(np.sum(g * d)) for g, d in zip(grads, v))
    assert tangent == pytest.approx(want, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn, args, wrt", [
    (cf.complex_argument, (np.array([1.0 + 2j, 0.5 - 1j]), np.array([0.3, 0.4])), (0, 1)),
    (cf.complex_output, (np.array([0.3, 0.4]),), (0,)),
], ids=["complex_argument", "complex_output"])
def test_complex_arguments_and_outputs_are_refused(fn, args, wrt, mode):
    """Arguments and outputs stay real: a complex argument in wrt, or a complex output, is a
    JitadError at the function's line in both modes (grad and jvp)."""
    line, expected = error_marker(fn)
    for run in (lambda: jitad.grad(fn, wrt=wrt, mode=mode)(*args),
                lambda: jitad.jvp(fn, wrt=wrt[:1], mode=mode)(
                    *args, tangents=(np.ones(np.shape(args[wrt[0]])),))):
        with pytest.raises(JitadError) as info:
            run()
        assert expected in str(info.value), str(info.value)
        assert info.value.loc is not None and info.value.loc.line == line, str(info.value)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_complex_data_arguments_are_fine(mode):
    x, z = np.array([0.3, -0.4, 1.1]), np.array([1.0 + 2j, 0.5 - 1j, -0.2j])
    grads = jitad.grad(cf.complex_data, wrt=(0,), mode=mode)(x, z)
    fd = central_fd(cf.complex_data, (x, z), (0,))
    assert np.allclose(grads, fd[0], rtol=1e-6)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_second_derivatives_through_complex_values(mode):
    """hessian (reverse over forward, the generated jvp read again) through the FFTs and
    complex exponentials, against finite differences of the gradient."""
    args = (1.3, 0.4, np.linspace(0.0, 3.0, 6))
    H = jitad.hessian(cf.damped_oscillators, wrt=(0, 1), mode=mode)(*args)
    # the references' gradients on the python backend (the compiled gradients are
    # test_complex_compositions_'s; a Numba compile here checked nothing more)
    g = jitad.grad(jitad.differentiable(cf.damped_oscillators, backend="python"), wrt=(0, 1))
    eps = 1e-5
    for k in range(2):
        up, down = list(args), list(args)
        up[k] += eps
        down[k] -= eps
        col = (np.array(g(*up)) - np.array(g(*down))) / (2 * eps)
        assert np.allclose([float(H[0][k]), float(H[1][k])], col, rtol=1e-6, atol=1e-8)
    x, target = RNG.normal(size=6), np.ones(4)
    Hx = jitad.hessian(cf.power_spectrum_loss, wrt=0, mode=mode)(x, target)
    gx = jitad.grad(jitad.differentiable(cf.power_spectrum_loss, backend="python"), wrt=0)
    fd = np.array([(gx(x + eps * e, target) - gx(x - eps * e, target)) / (2 * eps)
                   for e in np.eye(6)])
    assert np.allclose(Hx, fd, rtol=1e-6, atol=1e-6 * np.max(np.abs(fd)))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_jvp_refuses_what_the_type_rules_refuse(mode):
    """Eager forward mode runs each primitive's type rule, as compiled mode does: before, the
    eager jvp of np.linalg.norm(x, 1) ran the 2-norm's template and returned its value and
    tangent (3.74 and 0.53 for [1, -2, 3]: the 1-norm is 6), while compiled mode and eager grad
    refused it (a vector's ord=1 is supported since, a matrix's since corpus 12; the case is a
    matrix's ord=3 now, which NumPy refuses too)."""
    line, expected = error_marker(cf.norm_of_order_three)
    with pytest.raises(JitadError) as info:
        jitad.jvp(cf.norm_of_order_three, mode=mode)(np.array([1.0, -2.0, 3.0]),
                                                   tangents=np.ones(3))
    assert expected in str(info.value) and info.value.loc.line == line, str(info.value)
