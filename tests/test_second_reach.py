"""Second derivatives of what first derivatives already cover: forms the held-out corpora's
functions reached only in `grad`, found by running `hvp` / `jvp` over every corpus (both
modes, against central differences of the gradient):
  * a primitive whose forward is a composition (`np.linalg.norm(d, axis=-1)` computed as
    `sqrt(sum(d * d))`) is read again as itself, so its rules hold at every order: an n-body
    potential with overwritten zero distances had a nan Hessian (the composition's 0 / 0);
  * such a primitive's statics are given by keyword when read again: `np.std(x, ddof=1)` read
    back as `std(x, 1)` took the 1 for an axis ("axis 1 is out of range");
  * a library call without a rule (`np.nonzero`) is read back from its own call, and a
    runtime helper of a rule's template applied to data only (`rt.log_count(k)` of
    `scipy.stats.poisson.logpmf`) runs as it is: both were refused at second order, and eager
    mode's hvp crashed (AttributeError) on every function after the first such call.
Each Hessian against central differences of eager mode's gradient, compiled (the generated
Python; Numba for one) and eager (`harness.check_hessian`)."""
import numpy as np
import pytest
import scipy.stats

import jitad

from .harness import check_hessian

rng = np.random.default_rng(15)


def nbody_potential(q, m):
    d = q[:, None, :] - q[None, :, :]
    r = np.linalg.norm(d, axis=-1)
    np.fill_diagonal(r, 1.0)
    return -np.sum(np.triu(np.outer(m, m) / r, 1))


def std_and_var_with_ddof(x):
    return np.std(x, ddof=1) + np.var(x, axis=0, ddof=1).sum() + np.std(x[:3] ** 2, ddof=0)


def weighted_nonzero(x):
    idx = np.nonzero(x > 0.0)[0]
    return np.sum(x[idx] ** 3) + np.sum(np.where(x > 0.0, x, 0.0) ** 2) * len(idx)


def poisson_regression(beta, X, y):
    return -np.sum(scipy.stats.poisson.logpmf(y, np.exp(X @ beta)))


CASES = [
    (nbody_potential, (rng.normal(size=(4, 2)), np.array([1.0, 2.0, 0.5, 1.5])), (0, 1)),
    (std_and_var_with_ddof, (rng.normal(size=6),), (0,)),
    (weighted_nonzero, (rng.normal(size=7),), (0,)),
    (poisson_regression, (0.3 * rng.normal(size=3), rng.normal(size=(8, 3)),
                          rng.poisson(2.0, size=8).astype(float)), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_hessian_matches_finite_differences_in_both_modes(fn, args, wrt):
    check_hessian(fn, args, wrt, backend="python")


def test_eager_hvp_after_a_library_call_without_a_rule():
    """Eager mode's stand-ins for generated code are rebuilt after a primitive is spelled: a
    function without a rule (`np.nonzero`) read again must not break the next eager hvp."""
    x = rng.normal(size=5)
    v = rng.normal(size=5)
    jitad.hvp(jitad.differentiable(weighted_nonzero, backend="python"), wrt=0)(x, v=v)
    hv = jitad.hvp(std_and_var_with_ddof, wrt=0, mode="eager")(x, v=v)
    H = jitad.hessian(jitad.differentiable(std_and_var_with_ddof, backend="python"), wrt=0)(x)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-9, atol=1e-12)


def test_norm_hessian_compiled_with_numba():
    q, m = CASES[0][1]
    H = jitad.hessian(nbody_potential, wrt=0)
    got = H(q, m)
    assert H.specialize(q, m).compiled_ran
    assert np.all(np.isfinite(got))
    ref = jitad.hessian(jitad.differentiable(nbody_potential, backend="python"), wrt=0)(q, m)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
