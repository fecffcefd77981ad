"""Import statements inside a differentiated function (a lazy import: `from scipy.special
import expit` in the body) bind what the same statement at module level binds: compiled mode
reads the name as a free name meaning that object (`capture._local_imports`), eager mode runs
the statement with `__import__` giving the stand-ins its globals get (numpy's, math's,
scipy's, a helper rebuilt). A name also assigned in the function, or an import that fails,
stays refused at its line in both modes. Each gradient against central differences, both
modes (`harness.check_form_accepted`: and forward mode along a direction)."""
import numpy as np
import pytest

from .harness import check_form_accepted, check_form_refused


def scipy_name_inside(x):
    from scipy.special import expit, logsumexp
    return np.sum(expit(x) ** 2) + logsumexp(x)


def modules_inside(A):
    import math
    import numpy.linalg as la
    import scipy.special as sp
    return la.norm(A) + math.exp(A[0, 0]) + np.sum(sp.expit(A[1]))


def helper_imported_inside(x):
    from .test_local_imports import smooth_abs
    return np.sum(smooth_abs(x))


def smooth_abs(x):
    return np.sqrt(x * x + 0.1)


def imported_in_a_branch(x, k):
    if k > 0:
        from math import tanh
        return tanh(x[0]) + np.sum(x)
    return np.sum(x ** 2)


def imported_and_assigned(x):
    from math import exp  # ERR: import statement
    exp = 2.0
    return np.sum(x) * exp


def import_that_fails(x):
    import not_a_module_jitad_knows  # ERR: import statement
    return np.sum(x)


rng = np.random.default_rng(16)
ACCEPTED = [
    (scipy_name_inside, (rng.normal(size=5),), (0,)),
    (modules_inside, (rng.normal(size=(3, 3)),), (0,)),
    (helper_imported_inside, (rng.normal(size=4),), (0,)),
    (imported_in_a_branch, (rng.normal(size=3), 1), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[c[0].__name__ for c in ACCEPTED])
def test_import_inside_the_function(fn, args, wrt):
    check_form_accepted(fn, args, wrt)


def test_compiled_with_numba():
    check_form_accepted(scipy_name_inside, ACCEPTED[0][1], (0,), backend="numba")


REFUSED = [(imported_and_assigned, (np.ones(3),)), (import_that_fails, (np.ones(3),))]


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_what_stays_refused(fn, args):
    check_form_refused(fn, args, __file__)
