"""Held-out corpus #5's refusals, fixed in both modes: a nested helper returning a tuple,
range(n) as an index, lists of integers as indices, a nested helper that calls itself (and a write into an array a small
helper made, which inlining must keep a new array). Each compiled gradient against central
finite differences and eager mode, the compiled path ran, the arguments unchanged."""
import numpy as np
import pytest

from . import heldout5_funcs as hf
from .test_correctness import check

rng = np.random.default_rng(55)
P = rng.uniform(0.1, 1.0, (3, 2))

CASES = [
    (hf.nested_helper_returns_a_tuple, (rng.normal(size=5), rng.normal(size=5)), (0, 1)),
    (hf.range_as_an_index, (P, np.array([0, 1, 1])), (0,)),
    (hf.lists_of_integers_as_indices, (P,), (0,)),
    (hf.copied_from_a_helper, (rng.normal(size=4),), (0,)),
    (hf.nested_recursive_helper, (np.array([1.0, -0.5, 0.3, 0.1]), np.linspace(-1, 1, 7)),
     (0, 1)),
    (hf.nested_recursion, (rng.normal(size=3),), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt):
    check(fn, args, wrt=wrt)
