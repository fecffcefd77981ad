"""Held-out corpus #7's findings (tests/heldout7_funcs.py: 143 functions, 94 written from the
docs alone and 49 in the forms other AD projects' suites test), fixed in both modes: each
reduced function's compiled gradient against central finite differences and eager mode, the
compiled path ran, the arguments unchanged; and what jitad rightly refuses, refused at the
user's line in both modes."""
import numpy as np
import pytest

import jitad

from . import heldout7_funcs as hf
from .harness import check_grads_both_modes
from .test_correctness import check

rng = np.random.default_rng(77)

CASES = [
    (hf.loops_and_lambdas, (rng.normal(size=4), rng.normal(size=4), 0.7), (0, 1, 2)),
    (hf.numpy_forms_in_one, (rng.normal(size=6), rng.normal(size=3), rng.normal(size=(3, 4)),
                             rng.normal(size=(2, 3, 3))), (0, 1, 2, 3)),
    (hf.everyday_models, (0.3, rng.normal(size=(3, 2)), rng.normal(size=(4, 3)),
                          rng.normal(size=4)), (0, 1, 2, 3)),
    (hf.take_along_axis_max, (rng.normal(size=(3, 4)),), (0,)),     # refused before
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt):
    check(fn, args, wrt=wrt)


def test_a_window_shaped_by_a_shape_slice():
    """sliding_window_view(x, K.shape[2:], ...): refused before (a shape slice whose length is
    the rank's), a shape value now (held-out #16, `normalize.shape_values`)."""
    check_grads_both_modes(hf.cnn_einsum, (rng.normal(size=(2, 5, 5)),
                                           rng.normal(size=(3, 2, 2, 2))), (0, 1))


REFUSED = [
    (hf.tuple_index_by_argument, (0.5, 1.5, -0.7, 2), r"index a tuple of 3 values with a constant"),
]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn,args,match", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_line_in_both_modes(fn, args, match, mode):
    with pytest.raises(jitad.JitadError, match=match) as e:
        jitad.grad(fn, mode=mode)(*args)
    lines = open(hf.__file__).read().splitlines()
    start = next(i for i, text in enumerate(lines) if f"def {fn.__name__}(" in text)
    line = next(i for i in range(start, len(lines)) if "# ERR" in lines[i]) + 1
    assert f'heldout7_funcs.py", line {line},' in str(e.value)
    assert f"in {fn.__name__}" in str(e.value) and "^" in str(e.value)


def flips(v):
    return np.sum(np.flip(v, axis=1))


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_flip_axis_out_of_range_is_refused_at_the_call(mode):
    with pytest.raises(jitad.JitadError, match="np.flip: axis 1 is out of range for a "
                                               "rank-1 array") as e:
        jitad.grad(flips, mode=mode)(np.ones(3))
    assert e.value.loc.filename == __file__ and "np.flip(v, axis=1)" in str(e.value)


@pytest.mark.parametrize("mode,acts", [("eager", ("relu", "tanh", "swish")),
                                       ("compiled", ("swish",))])
def test_jvp_with_a_string_argument(mode, acts):
    """A string argument is a constant of its specialization in forward mode too (eager mode's
    jvp refused it: its front end was made without the argument's form)."""
    x, t = rng.normal(size=5), rng.normal(size=5)
    for act in acts:
        y, yd = jitad.jvp(hf.activation_by_name, mode=mode)(x, act, tangents=t)
        h = 1e-6
        fd = (hf.activation_by_name(x + h * t, act) - hf.activation_by_name(x - h * t, act)) / (2 * h)
        assert y == pytest.approx(hf.activation_by_name(x, act), rel=1e-12)
        assert yd == pytest.approx(fd, rel=1e-6)
