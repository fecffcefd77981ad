"""The fuse stage on its own: which element loops merge, which must not, and that the merged
code computes what the original computed (both run as plain Python on the same inputs)."""
import ast
import copy
import textwrap

import numpy as np
import pytest

from jitad import runtime as rt
from jitad.fuse import fuse
from jitad.types import Ty

TYPES = {"u": Ty("i8"), "i": Ty("i8"), "j": Ty("i8"), "U": Ty("f8", 2), "V": Ty("f8", 2),
         "a": Ty("f8", 1), "b": Ty("f8", 1), "c": Ty("f8")}


def _fuse(src):
    fdef = ast.parse(textwrap.dedent(src)).body[0]
    before = copy.deepcopy(fdef)
    after = fuse(fdef, TYPES)
    return before, ast.fix_missing_locations(after)


def _run(fdef, args):
    mod = ast.fix_missing_locations(ast.Module([copy.deepcopy(fdef)], []))
    env = {"np": np, "rt": rt, "math": __import__("math")}
    exec(compile(mod, "<fuse-test>", "exec"), env)
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    out = env[fdef.name](*args)
    return out, args


def _same_results(before, after, args):
    (o1, a1), (o2, a2) = _run(before, args), _run(after, args)
    np.testing.assert_allclose(o1, o2, rtol=1e-14)
    for x, y in zip(a1, a2):
        np.testing.assert_allclose(x, y, rtol=1e-14)


def _loops(fdef):
    return [n for n in fdef.body if isinstance(n, ast.For)]


ROWS = """
def f(U, V, u, i, j, c):
    U_at = U[u]
    V_at = V[i]
    x = rt.dot1(U_at, V_at)
    d_U_at = np.zeros_like(U_at)
    d_V_at = np.zeros_like(V_at)
    for k in range(d_U_at.shape[0]): d_U_at[k] += c * x * V_at[k]
    for k in range(d_V_at.shape[0]): d_V_at[k] += c * U_at[k]
    same = j == i
    for m in range(U.shape[1]): U[u, m] = U[u, m] - 0.1 * d_U_at[m]
    for m2 in range(V.shape[1]): V[i, m2] = V[i, m2] - 0.1 * (d_V_at[m2] + (1.0 if same else 0.0))
    return x
"""


def test_rows_of_one_length_become_one_loop_and_buffers_become_scalars():
    before, after = _fuse(ROWS)
    assert len(_loops(after)) == 1
    text = ast.unparse(after)
    assert "np.zeros_like" not in text and "d_U_at[" not in text
    assert text.index("same = j == i") < text.index("for ")       # hoisted above the loop
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    for (u, i, j) in [(0, 1, 2), (2, 3, 3)]:
        _same_results(before, after, [U, V, u, i, j, 0.7])


@pytest.mark.parametrize("src", [
    # lengths not provable: two different tables, no dot tying their rows together
    ROWS.replace("x = rt.dot1(U_at, V_at)", "x = 1.0"),
    # a reduction carried across iterations
    ROWS.replace("for k in range(d_V_at.shape[0]): d_V_at[k] += c * U_at[k]",
                 "for k in range(d_V_at.shape[0]): c += U_at[k]"),
    # a shifted index: iteration k reads element k + 1
    ROWS.replace("d_V_at[k] += c * U_at[k]", "d_V_at[k] += c * U_at[k + 1 - 1]"),
    # a slice view is not a row: its element k is not its base's element k
    ROWS.replace("V_at = V[i]", "V_at = V[i, 1:]").replace("V.shape[1]", "V_at.shape[0]")
        .replace("V[i, m2] = V[i, m2]", "V_at[m2] = V_at[m2]"),
])
def test_loops_that_must_not_merge_with_the_update(src):
    before, after = _fuse(src)
    # nothing may merge across the point that breaks the argument
    assert len(_loops(after)) >= 2
    rng = np.random.default_rng(1)
    U, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    if "V[i, 1:]" in src:
        V = rng.normal(size=(5, 5))
    _same_results(before, after, [U, V, 0, 1, 2, 0.3])


def test_a_statement_reading_what_a_loop_wrote_stays_between_the_loops():
    src = ROWS.replace("    same = j == i\n", "    same = d_U_at[0] > 0.0\n")
    before, after = _fuse(src)
    text = ast.unparse(after)
    first_loop, same = text.index("for "), text.index("same = d_U_at[0]")
    assert first_loop < same
    rng = np.random.default_rng(2)
    _same_results(before, after, [rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), 1, 2, 2, 1.3])


def test_fusion_is_deterministic():
    a = ast.unparse(_fuse(ROWS)[1])
    b = ast.unparse(_fuse(ROWS)[1])
    assert a == b
