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


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_jvp_refuses_what_the_type_rules_refuse(mode):
    """Eager forward mode runs each primitive's type rule, as compiled mode does: before, the
    eager jvp of np.linalg.norm(x, 1) ran the 2-norm's template and returned its value and
    tangent (3.74 and 0.53 for [1, -2, 3]: the 1-norm is 6), while compiled mode and eager grad
    refused it."""
    line, expected = error_marker(cf.norm_of_order_one)
    with pytest.raises(JitadError) as info:
        jitad.jvp(cf.norm_of_order_one, mode=mode)(np.array([1.0, -2.0, 3.0]),
                                                   tangents=np.ones(3))
    assert expected in str(info.value) and info.value.loc.line == line, str(info.value)
