"""The forms of tests/suites_funcs.py, compiled: each gradient against central finite
differences and eager mode (the compiled path ran, the arguments unchanged); the tangents of
the new norms against grad . v; and the Python backend's adjoint of np.diag, which once
assigned a read-only view and added into it.

`numpy_by_numpy_2` runs on the python backend (the same generated code) unless
``JITAD_PRIMITIVES_FULL=1``: its np.linalg.matrix_power(A, -1) is a LAPACK inverse, whose Numba
compile (with its adjoint) is most of this file's time and is test_primitives' (np.linalg.inv)."""
import os

import numpy as np
import pytest

import jitad

from . import suites_funcs as sf
from .test_correctness import check

rng = np.random.default_rng(71)
X = rng.uniform(0.3, 1.2, 3)
Y = rng.uniform(0.4, 1.4, 3)
A = rng.normal(size=(3, 4))
B = rng.normal(size=(3, 4))
M = rng.normal(size=(3, 3))
T = rng.normal(size=(2, 3, 4))

CASES = [
    (sf.after_ellipsis, (T,), (0,)),
    (sf.builtin_folds, (X, Y), (0, 1)),
    (sf.dtypes_and_casts, (X, 0.7), (0, 1)),
    (sf.products, (A, B, 0.6), (0, 1, 2)),
    (sf.other_norms, (np.array([0.3, -1.1, 0.75, 0.2]), M), (0, 1)),
    (sf.numpy_by_numpy, (rng.uniform(0.5, 1.5, 5), np.array([0.0, 0.4, 1.1, 1.5, 2.6])), (0, 1)),
    (sf.diag_adjoint_view, (X,), (0,)),
    (sf.named_index_arrays, (X,), (0,)),
    (sf.numpy_by_numpy_2, (np.array([0.1, 0.7, 1.5, 2.5, -0.3]), rng.normal(size=4), 0.5 * M),
     (0, 1, 2)),
]


PYTHON = set() if os.environ.get("JITAD_PRIMITIVES_FULL", "") not in ("", "0") else \
    {"numpy_by_numpy_2"}


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt):
    check(fn, args, wrt=wrt, backend="python" if fn.__name__ in PYTHON else "numba")


def test_norm_tangents_are_grad_dot_v():
    x, v = np.array([0.3, -1.1, 0.75, 0.2]), rng.normal(size=4)
    Mv = rng.normal(size=(3, 3))
    _, dot = jitad.jvp(sf.other_norms, wrt=(0, 1))(x, M, tangents=(v, Mv))
    gx, gM = jitad.grad(sf.other_norms, wrt=(0, 1))(x, M)
    assert dot == pytest.approx(gx @ v + np.sum(gM * Mv), rel=1e-10)


def test_python_backend_diag_adjoint():
    d = jitad.differentiable(sf.diag_adjoint_view, backend="python")
    g = jitad.grad(d)(X)
    assert np.allclose(g, jitad.grad(sf.diag_adjoint_view, mode="eager")(X), rtol=1e-12)


def test_the_forms_probe_runs(capsys):
    # the long campaign (python -m tests.forms_probe), on three of its forms
    from . import forms_probe
    forms_probe.main(["ell_two", "np_ptp", "linalg_norm_ord1"])
    assert "3 of 3 forms right in every check" in capsys.readouterr().out


def bad_take(x, w):
    idx = w * 2.0
    return np.sum(np.take(x, idx))  # ERR: in np.take


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_an_error_inside_a_prelude_definition_is_raised_at_the_users_call(mode):
    with pytest.raises(jitad.JitadError) as info:
        kw = {} if mode == "compiled" else {"mode": mode}
        jitad.grad(bad_take, **kw)(np.ones(3), np.ones(2))
    assert "in np.take" in str(info.value) and info.value.loc.filename == __file__
    assert "np.take(x, idx)" in str(info.value).splitlines()[-2]
