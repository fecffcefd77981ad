"""NumPy as people write it (issue 12): each function of numpy_forms_funcs in both modes
against central finite differences, the compiled path ran, the arguments unchanged."""
import os

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import numpy_forms_funcs as nf
from .harness import check_both_modes

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
    # LAPACK calls and their adjoints compile for minutes: with JITAD_PRIMITIVES_FULL=1 only
    pytest.param(nf.decompositions, (_r(3, 3), _r(4, 3)), (0, 1), {}, marks=pytest.mark.skipif(
        os.environ.get("JITAD_PRIMITIVES_FULL", "") in ("", "0"),
        reason="compile time: JITAD_PRIMITIVES_FULL=1"), id="decompositions"),
]


@pytest.mark.parametrize("fn,args,wrt,kwargs", CASES,
                         ids=[getattr(c, "id", None) or c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt, kwargs):
    check_both_modes(fn, args, wrt, kwargs)


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
