"""The mechanisms held-out corpus #4 needed (tests/heldout4_forms_funcs.py), one function each,
in both modes: None as a sentinel (a flag beside the value), list(...) as the comprehension it
means, np.append, np.mgrid/np.ogrid, np.gradient of any rank (axis=, a tuple of gradients),
library calls without a rule on data only, scipy.stats.norm.ppf/isf and
scipy.special.ndtri, unpacking an array taken from a structure, slices and sums of shapes.

Accepted: the compiled gradient (generated code, `backend="python"`; the ones in `NUMBA`
compiled by Numba) against central finite differences, the eager gradient against it, the
arguments unchanged, and the tangent of both forward modes along a direction against the
gradient. Refused: a `JitadError` at the `# ERR:` line naming what it marks, the same error in
both modes (tests/test_parity.py reads `REFUSED` too).
"""
import inspect

import numpy as np
import pytest

from . import heldout4_forms_funcs as hf
from .harness import check_form_accepted, check_form_refused

FILE = inspect.getsourcefile(hf)
rng = np.random.default_rng(44)

ACCEPTED = [
    (hf.gaps_after_first, (0.7, np.sort(rng.uniform(0.0, 3.0, 6))), (0,)),
    (hf.running_best, (rng.normal(size=5),), (0,)),
    (hf.sentinel_else_branch, (rng.normal(size=4),), (0,)),
    (hf.seasonal_list, (np.array([0.3, 0.8]), rng.normal(size=9)), (0, 1)),
    (hf.rows_as_list, (0.5 * rng.normal(size=(3, 4)), rng.normal(size=4)), (0, 1)),
    (hf.list_of_range_zip_enumerate, (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    (hf.append_flat, (np.array([1.0, 0.1, 0.2, -0.05, 0.9, -0.1, 0.05, 0.02]), rng.normal(size=3)),
     (0, 1)),
    (hf.append_axis, (rng.normal(size=(2, 3)), rng.normal(size=3)), (0, 1)),
    (hf.grid_weights, (rng.normal(size=(3, 4)), 4), (0,)),
    (hf.grid_values, (rng.normal(size=5),), (0,)),
    (hf.gradient_2d, (rng.normal(size=(5, 4)),), (0,)),
    (hf.gradient_axis_spacing, (rng.normal(size=(4, 5)), 0.7), (0, 1)),
    (hf.gradient_3d, (rng.normal(size=(3, 4, 2)),), (0,)),
    (hf.copula, (0.5 * rng.normal(size=(3, 3)), rng.uniform(0.05, 0.95, size=(6, 3))), (0,)),
    (hf.quantiles, (rng.uniform(0.05, 0.95, size=4), 1.3), (0, 1)),
    (hf.gompertz, ({"ctrl": np.array([4.0, 1.5, 0.4]), "treat": np.array([6.0, 2.0, 0.5])},
                   np.linspace(0, 10, 12),
                   {"ctrl": 5 * np.exp(-2 * np.exp(-0.5 * np.linspace(0, 10, 12))),
                    "treat": 7 * np.exp(-3 * np.exp(-0.4 * np.linspace(0, 10, 12)))}), (0,)),
    (hf.unpack_tuple_elements, ((rng.normal(size=2), rng.normal(size=2)), rng.normal(size=3)),
     (0, 1)),
    (hf.shape_slices, (rng.normal(size=(4, 3, 3, 2)), rng.normal(size=2)), (0, 1)),
    (hf.routing_in_branch, (0.5 * rng.normal(size=(3, 2, 2)), 1), (0,)),
    (hf.shape_slice_by_rank, (rng.normal(size=(3, 2, 2)),), (0,)),     # held-out #16
]
# compiled by Numba: one per mechanism
NUMBA = {"gaps_after_first", "seasonal_list", "append_flat", "grid_weights", "gradient_2d",
         "quantiles", "gompertz", "shape_slices", "routing_in_branch"}

# refused in both modes, with the same error (tests/test_parity.py reads this list too)
REFUSED = [
    (hf.sentinel_unguarded, (rng.normal(size=3),)),
    (hf.sentinel_maybe_returned, (rng.normal(size=3),)),
    (hf.only_none, (rng.normal(size=3),)),
    (hf.list_with_keyword, (rng.normal(size=3),)),
    (hf.other_builtin, (rng.normal(size=3),)),
    (hf.ogrid_as_value, (rng.normal(size=3),)),
    (hf.gradient_wrong_count, (rng.normal(size=(3, 4, 2)),)),
    (hf.gradient_edge_order_2, (rng.normal(size=5),)),
]


def _id(case):
    return case[0].__name__


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[_id(c) for c in ACCEPTED])
def test_accepted_in_both_modes(fn, args, wrt):
    check_form_accepted(fn, args, wrt, "numba" if fn.__name__ in NUMBA else "python")


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_users_line(fn, args):
    check_form_refused(fn, args, FILE)


def test_library_call_types_persist_on_disk(tmp_path, monkeypatch):
    """What Numba says a library call without a rule returns is kept in the cache directory
    (held-out #4's cv_ridge spent 9 s typing np.setdiff1d in every new process): a process
    that has not typed the call reads the answer instead; a damaged entry is typed again."""
    from jitad import numba_types
    from jitad.types import Ty
    monkeypatch.setenv("JITAD_CACHE_DIR", str(tmp_path))
    params, text, argtys = ("a0", "a1"), "np.setdiff1d(a0, a1)", (Ty("i8", 1), Ty("i8", 1))
    monkeypatch.setattr(numba_types, "_TYPES", {})
    monkeypatch.setattr(numba_types, "_type_of", lambda *a: Ty("i8", 1))
    assert numba_types.result_type(params, text, argtys) == Ty("i8", 1)
    (entry,) = tmp_path.glob("jitad_types_*.json")

    def not_again(*a):
        raise AssertionError("typed again")
    monkeypatch.setattr(numba_types, "_TYPES", {})
    monkeypatch.setattr(numba_types, "_type_of", not_again)
    assert numba_types.result_type(params, text, argtys) == Ty("i8", 1)
    entry.write_text("{not json")
    monkeypatch.setattr(numba_types, "_TYPES", {})
    monkeypatch.setattr(numba_types, "_type_of", lambda *a: "why not")
    assert numba_types.result_type(params, text, argtys) == "why not"
    monkeypatch.setattr(numba_types, "_TYPES", {})
    monkeypatch.setattr(numba_types, "_type_of", not_again)
    assert numba_types.result_type(params, text, argtys) == "why not"
