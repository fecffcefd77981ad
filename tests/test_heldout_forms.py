"""The mechanisms held-out corpus #3 needed (tests/heldout_forms_funcs.py), one function each,
in both modes: rank-3 matmul, one variable per web of definitions, tuples as local values,
loops over reversed(...), library calls without a rule (run as they are, refused where a
derivative would flow through them), np.add.at / np.subtract.at / weighted np.bincount /
np.diag_indices, array methods.

Accepted: the compiled gradient (generated code, `backend="python"`; the ones in `NUMBA`
compiled by Numba) against central finite differences, the eager gradient against it, the
arguments unchanged, and the tangent of both forward modes along a direction against the
gradient. Refused: a `JitadError` at the `# ERR:` line naming what it marks, the same error in
both modes (eager mode makes compiled mode's checks before it runs a function: it used to run
some of these as Python does -- a variable changing rank, an argument updated in place).
"""
import inspect

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import heldout_forms_funcs as hf
from .harness import check_form_accepted, check_form_refused

FILE = inspect.getsourcefile(hf)
rng = np.random.default_rng(5)
X3 = rng.normal(size=(4, 3, 5))
P = (0.5 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=(3, 3)))

ACCEPTED = [
    (hf.stack_times_vector, (X3, rng.normal(size=5)), (0, 1)),
    (hf.vector_times_stack, (rng.normal(size=3), X3), (0, 1)),
    (hf.matrix_times_stack, (rng.normal(size=(2, 3)), X3), (0, 1)),
    (hf.dot_stack_vector, (X3, rng.normal(size=5)), (0, 1)),
    (hf.heads, (rng.normal(size=(5, 4)), 0.4 * rng.normal(size=(4, 12))), (0, 1)),
    (hf.scalar_then_vector, (rng.normal(size=3),), (0,)),
    (hf.loop_carried_then_summed, (0.3 * rng.normal(size=3), 4), (0,)),
    (hf.parameter_reshaped, (rng.normal(size=(2, 3)), rng.normal(size=6)), (0,)),
    (hf.recurrent, (P, rng.normal(size=(5, 2))), (0, 1)),
    (hf.carried_from_argument, ((rng.normal(size=2), rng.normal(size=2)), rng.normal(size=3)),
     (0,)),
    (hf.swap_in_loop, (rng.normal(size=2), 3), (0,)),
    (hf.chosen_pair, (rng.normal(size=2), 1.0), (0,)),
    (hf.chosen_pair, (rng.normal(size=2), -1.0), (0,)),
    (hf.constant_tuples, (0.7,), (0,)),
    (hf.discounted, (0.7, rng.normal(size=6)), (0, 1)),
    (hf.backwards_rows, (0.3, rng.normal(size=(4, 3))), (0, 1)),
    (hf.stepped_backwards, (0.3, 11), (0,)),
    (hf.counts_and_windows, (0.3 * rng.normal(size=(2, 3)), rng.normal(size=(5, 6)),
                             np.array([0, 1, 1, 3])), (0,)),
    (hf.windows_differentiated, (rng.normal(size=7), rng.normal(size=3)), (0, 1)),
    (hf.nonzero_rows, (rng.normal(size=4), np.array([1.0, 0.0, 1.0, 1.0]) > 0), (0,)),
    (hf.any_all, (rng.normal(size=4),), (0,)),
    (hf.scatter_rows, (rng.normal(size=(6, 3)), np.array([0, 2, 2, 5, 1, 0]),
                       np.array([0, 0, 1, 1, 2, 2]), 3), (0,)),
    (hf.scatter_entries, (rng.normal(size=5), np.array([0, 1, 1, 2, 0]),
                          np.array([0, 2, 2, 1, 0])), (0,)),
    (hf.weighted_counts, (rng.normal(size=7), np.array([0, 1, 1, 3, 3, 3, 5])), (0,)),
    (hf.diagonal_write, (0.3 * rng.normal(size=6),), (0,)),
    (hf.methods, (np.array([[0.33, -1.21, 0.57], [0.81, 0.12, -0.44]]),), (0,)),
]
# compiled by Numba: the runtime helpers and primitives the corpus's Numba models do not reach
# (np.subtract.at of a matrix, the windows' adjoint, astype/item/any(axis=))
NUMBA = {"scatter_entries", "windows_differentiated", "methods"}

# refused in both modes, with the same error (tests/test_parity.py reads this list too)
REFUSED = [
    (hf.dot_matrix_stack, (rng.normal(size=(2, 3)), X3)),
    (hf.differentiated_median, (rng.normal(size=5),)),
    (hf.ranks_meet, (rng.normal(size=3), 1.0)),
    (hf.second_web_ranks_meet, (rng.normal(size=3), 1.0)),
    (hf.tuple_then_array, (rng.normal(size=3),)),
    (hf.tuple_index_unknown, (rng.normal(size=3), 1)),
    (hf.reversed_value, (rng.normal(size=3),)),
    (hf.scatter_into_argument, (rng.normal(size=4), np.array([0, 2, 2]))),
    (hf.scatter_seen_by_view, (rng.normal(size=4), np.array([0, 1, 1]))),
    (hf.update_seen_by_view, (rng.normal(size=4),)),
]


def _id(case):
    return case[0].__name__ + ("-" + str(case[1][-1]) if case[0] is hf.chosen_pair else "")


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[_id(c) for c in ACCEPTED])
def test_accepted_in_both_modes(fn, args, wrt):
    check_form_accepted(fn, args, wrt, "numba" if fn.__name__ in NUMBA else "python")


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_users_line(fn, args):
    check_form_refused(fn, args, FILE)


def test_web_names_follow_the_users():
    """A variable split into webs keeps the user's name in the first web and takes q_2, q_3 in
    the others; messages name the user's variable."""
    import re
    text = jitad.source(hf.heads, "normalize")
    for name in ("q", "q_2", "k_2", "v_2", "s_2", "s_3"):
        assert re.search(rf"\b{name}\b", text), text
    assert not re.search(r"\bq_1\b", text), text


def test_library_call_without_rule_is_typed_by_numba_and_refused_when_numba_cannot():
    def uses_unravel(x):
        i = np.unravel_index(3, (2, 2))[0]
        return x * i
    with pytest.raises(JitadError, match=r"np.unravel_index has no derivative rule in jitad, "
                                         r"and Numba cannot compile it .*see jitad.defvjp"):
        jitad.grad(jitad.differentiable(uses_unravel, backend="python"))(1.0)
