"""NumPy as people write it (issue 12): each function of numpy_forms_funcs in both modes
against central finite differences, the compiled path ran, the arguments unchanged."""
import os

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import numpy_forms_funcs as nf
from .harness import central_fd, check_both_modes, error_marker

RNG = np.random.default_rng(120)


def _r(*shape):
    return RNG.normal(size=shape)


CASES = [
    (nf.defaults_and_keywords, (_r(3, 3), _r(3), _r(5, 3), _r(5)), (0, 1), {"lam": 0.3}),
    (nf.reductions, (RNG.uniform(0.5, 2.0, (2, 3)), _r(2, 3, 4)), (0, 1), {}),
    (nf.new_axes, (_r(3, 4), _r(4)), (0, 1), {}),
    (nf.scans_and_shapes, (RNG.uniform(0.5, 1.5, 4), _r(3, 2)), (0, 1), {}),
    (nf.matrices, (_r(3, 4), _r(3)), (0, 1), {}),
    (nf.creation, (0.3, 1.7, -0.4), (0, 1, 2), {}),
    (nf.stacks_and_lists, (_r(3), _r(3), 0.7), (0, 1, 2), {}),
    (nf.unpacking_and_loops, (_r(3), _r(4, 3), _r(5)), (0, 1, 2), {}),
    (nf.classifier, (_r(3, 4), _r(6, 3), np.array([0, 1, 3, 3, 2, 0])), (0, 1), {}),
    (nf.padded_signal, (_r(6), _r(3), _r(4)), (0, 1, 2), {}),
    (nf.summations, (_r(3, 4), _r(4, 2), _r(5)), (0, 1, 2), {}),
    (nf.running_extremes, (_r(6), _r(3, 4)), (0, 1), {}),
    (nf.probit, (_r(3), _r(8, 3), (RNG.random(8) < 0.5) * 1.0), (0,), {}),
    (nf.distributions, (0.3, 2.5, 0.7), (0, 1, 2), {}),
    # LAPACK calls and their adjoints compile for minutes: with JITAD_PRIMITIVES_FULL=1 only
    pytest.param(nf.decompositions, (_r(3, 3), _r(4, 3)), (0, 1), {}, marks=pytest.mark.skipif(
        os.environ.get("JITAD_PRIMITIVES_FULL", "") in ("", "0"),
        reason="compile time: JITAD_PRIMITIVES_FULL=1"), id="decompositions"),
]


# on the python backend unless JITAD_PRIMITIVES_FULL=1: their calls' Numba compiles are other
# tests' -- matrices' LAPACK calls (slogdet and cholesky: test_symmetric's Numba case; det, inv,
# solve, diag, triu/tril, cross: test_primitives' matrix rows), creation's (test_primitives'
# np.full/full_like/linspace/arange/identity rows)
PYTHON_BACKEND = () if os.environ.get("JITAD_PRIMITIVES_FULL", "") not in ("", "0") else \
    (nf.matrices, nf.creation)


@pytest.mark.parametrize("fn,args,wrt,kwargs", CASES,
                         ids=[getattr(c, "id", None) or c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt, kwargs):
    check_both_modes(fn, args, wrt, kwargs,
                     backend="python" if fn in PYTHON_BACKEND else "numba")


def test_unpacking_checks_the_length():
    with pytest.raises(ValueError, match="unpack"):
        jitad.grad(nf.unpack_too_many)(np.ones(3))
    assert jitad.grad(nf.unpack_too_many)(np.array([2.0, 3.0])).tolist() == [3.0, 2.0]


def test_a_call_with_an_argument_too_many_is_refused():
    def extra(v):
        return np.sum(np.cumsum(v, 0, None))

    with pytest.raises(JitadError):
        jitad.grad(extra)(np.ones(3))


def test_refusals_are_at_the_users_line_in_both_modes():
    """Forms the issue-12 functions do not take are a JitadError at the call, in both modes."""
    for fn, arg in [(nf.refused_einsum_ellipsis, np.ones((2, 2))),
                    (nf.refused_pad_mode, np.ones(3)), (nf.refused_repeat_no_axis, np.ones((2, 2)))]:
        for mode in ("compiled", "eager"):
            with pytest.raises(JitadError) as e:
                jitad.grad(fn, mode=mode)(arg)
            assert "numpy_forms_funcs.py" in str(e.value), (fn.__name__, mode, str(e.value))


@pytest.mark.parametrize("fn", [nf.refused_eig, nf.refused_eigvals, nf.refused_rot90_axes,
                                nf.refused_gradient_of_matrix, nf.refused_gradient_spacing,
                                nf.refused_sort_kind,
                                nf.refused_broadcast_to_int, nf.refused_logsumexp_return_sign,
                                nf.refused_polygamma_array_order, nf.refused_mvn_without_cov,
                                nf.refused_t_sf],
                         ids=lambda f: f.__name__)
def test_autograd_forms_refused_at_the_users_line_in_both_modes(fn):
    """Issue 12's autograd functions: a form they do not take (complex eigenproblems, a full U
    no gradient determines ...) is a JitadError at the user's line."""
    line, expected = error_marker(fn)
    A = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]])
    for mode in ("compiled", "eager"):
        with pytest.raises(JitadError) as e:
            jitad.grad(fn, mode=mode)(A)
        assert e.value.loc is not None and e.value.loc.line == line, (mode, str(e.value))
        assert expected in str(e.value), (mode, str(e.value))


def test_the_full_svd_of_a_non_square_matrix_is_refused_when_it_runs():
    """np.linalg.svd(A)'s default full U of a tall A has columns no gradient determines: a
    gradient through them raises a ValueError when it runs (a cotangent there is a value),
    and forward mode refuses the full U or Vh whenever it is computed (the square case, the
    reduced SVD, is in `decompositions`). The generated code runs under the python backend
    here (LAPACK's compile is for JITAD_PRIMITIVES_FULL)."""
    A = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]])
    for fn in (nf.full_svd_of_a_tall_matrix, nf.full_svd_determined_parts):
        for f, kw in [(fn, {"mode": "eager"}),
                      (jitad.differentiable(fn, backend="python"), {})]:
            with pytest.raises(ValueError, match="full_matrices=False"):
                jitad.jvp(f, **kw)(A, tangents=np.ones_like(A))
    f = nf.full_svd_of_a_tall_matrix
    for f, kw in [(f, {"mode": "eager"}), (jitad.differentiable(f, backend="python"), {})]:
        with pytest.raises(ValueError, match="full_matrices=False"):
            jitad.grad(f, **kw)(A)


def test_the_determined_parts_of_a_full_svd_have_gradients_in_both_modes():
    """Only the arbitrary columns of a full U (rows of a full Vh) are refused: a function that
    does not read U, or reads its first min(m, n) columns, has its gradient in both modes (the
    full U is the reduced one followed by NumPy's complement, so its first columns are the
    ones the adjoint differentiates)."""
    A = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]])
    fn = nf.full_svd_determined_parts
    ref = central_fd(fn, (A,), (0,))[0]
    for f, kw in [(fn, {"mode": "eager"}), (jitad.differentiable(fn, backend="python"), {})]:
        np.testing.assert_allclose(jitad.grad(f, **kw)(A), ref, rtol=1e-6, atol=1e-7)


def test_fmax_fmin_and_nan_to_num_pass_nan_operands_by():
    """np.fmax/np.fmin take the other operand where one is nan (its gradient goes there);
    np.nan_to_num's gradient is 1 where x is finite and 0 elsewhere."""
    x = np.array([np.nan, 1.0, np.inf])
    y = np.array([2.0, np.nan, 0.5])
    for mode in ("compiled", "eager"):
        value, (gx, gy) = jitad.value_and_grad(nf.nan_operands, wrt=(0, 1), mode=mode)(x, y)
        assert value == nf.nan_operands(x, y)
        np.testing.assert_array_equal(gx, [0.0, 2.0 + 1.0 + 5.0, 3.0 + 0.0])
        np.testing.assert_array_equal(gy, [1.0 + 1.0, 0.0, 0.0 + 1.0])


@pytest.mark.skipif(os.environ.get("JITAD_PRIMITIVES_FULL", "") in ("", "0"),
                    reason="compile time (LAPACK): JITAD_PRIMITIVES_FULL=1")
def test_pinv_of_a_rank_deficient_matrix_raises():
    """The pseudo-inverse jumps where the rank drops: its gradient there is refused when the
    adjoint runs (the rank is a value, not a form: a ValueError, as np.linalg raises)."""
    A = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]])
    for mode in ("compiled", "eager"):
        with pytest.raises(ValueError, match="full-rank"):
            jitad.grad(nf.pinv_rank_deficient, mode=mode)(A)


def test_variance_over_a_tuple_of_axes_compiled_by_numba():
    """The point is Numba: `rt.axes_count` (the count along the axes) compiled, and the axes
    that cross moved to the front; against central differences and eager mode."""
    from .test_correctness import check
    check(nf.variance_over_axes, (RNG.normal(size=(3, 2, 4)),), wrt=(0,))


def test_trace_of_a_rank_3_array():
    """np.trace(x) of a (3, 3, 4) array: in both modes against central differences, forward
    mode against the gradient."""
    from .harness import check_form_accepted
    check_form_accepted(nf.trace_of_a_stack, (RNG.normal(size=(3, 3, 4)), RNG.normal(size=(3, 3))),
                        (0, 1))


def test_repeat_of_a_rank_3_array():
    """np.repeat(x, k, axis=a) of a (2, 3, 4) array, each axis: both modes against central
    differences, forward mode against the gradient."""
    from .harness import check_form_accepted
    check_form_accepted(nf.repeat_of_a_stack, (RNG.normal(size=(2, 3, 4)),), (0,))
