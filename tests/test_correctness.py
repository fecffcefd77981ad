"""Regression tests for the silent wrong results of issue 9: views read then overwritten, tape
capacity, transforms of transforms, indices out of range, captured values that change, and
source that is not the code that runs. Gradients are checked against central finite
differences and eager mode; every compiled gradient must have run compiled."""
import importlib
import math
import sys
import textwrap

import numpy as np
import pytest

import jitad
from jitad.errors import IndexOutOfRange

from . import correctness_funcs as cf
from .harness import assert_grads_close, assert_unchanged, central_fd, snapshot


def check(fn, args, wrt=(0,), rtol=1e-6, atol=1e-8, backend="numba"):
    """Compiled vs finite differences vs eager; inputs untouched; the compiled path ran (the
    Numba-compiled gradient, or with `backend="python"` the same generated code as Python)."""
    # (with Numba, fn itself: its specializations are shared with the other tests of fn)
    vg = jitad.value_and_grad(fn if backend == "numba" else
                              jitad.differentiable(fn, backend=backend), wrt=wrt)
    snap = snapshot(args)
    value, grads = vg(*args)
    assert_unchanged(args, snap, fn.__name__)
    spec = vg.specialize(*args)
    assert spec.backend == backend and spec.gen.vjp and hasattr(spec.module, spec.gen.vjp)
    assert backend == "python" or spec.compiled_ran, "the Numba-compiled gradient did not run"
    assert float(value) == pytest.approx(float(fn(*args)), rel=1e-12, abs=1e-12)
    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    assert_grads_close(grads, fd, rtol=rtol, atol=atol, label=f"{fn.__name__} vs finite differences")
    _, eager = jitad.value_and_grad(fn, wrt=wrt, mode="eager")(*args)
    assert_grads_close(grads, eager, rtol=1e-9, atol=1e-12, label=f"{fn.__name__}: compiled vs eager")
    return grads


# -- views ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [cf.row_alias, cf.row_alias_helper, cf.view_then_write_in_branch,
                                cf.transposed_view], ids=lambda f: f.__name__)
def test_view_read_then_overwritten(fn):
    rng = np.random.default_rng(1)
    w = rng.uniform(0.5, 1.5, 3)
    st = rng.uniform(-1.0, 1.0, (4, 3))
    if fn is cf.transposed_view:
        st = rng.uniform(-1.0, 1.0, (3, 4))
    check(fn, (w, st), wrt=(0, 1))


# -- tape capacity: a grid of trip counts around the reservation sizes ---------------------
@pytest.mark.parametrize("n,m,a", [(0, 2, 2), (1, 1, 0), (1, 1, 1), (2, 3, 1), (3, 4, 5), (2, 1, 8),
                                   (1, 9, 3), (4, 2, 9), (5, 5, 2)])
def test_push_after_inner_loop(n, m, a):
    check(cf.push_after_inner_loop, (0.7, n, m, a))


@pytest.mark.parametrize("n,a", [(0, 3), (1, 0), (1, 1), (3, 7), (9, 1), (6, 17)])
def test_push_after_while_and_branch_loops(n, a):
    check(cf.push_after_while, (0.4, n, a))
    check(cf.push_after_branch_loop, (0.3, n, a))


@pytest.mark.parametrize("n", [1, 2, 3])
def test_recursion_that_moves_the_differentiated_value_to_another_parameter(n):
    """The recursive call needs the adjoint of a parameter the entry does not differentiate
    (`swapped_recursion(y, x * 1.5, n - 1)`): each callee signature's activity is for what its
    callers need, a fixed point over the call graph (`ad.callee_wrt`). The entry's recursive
    calls were analysed for the entry's wrt only, and the gradient was 0.0 for n >= 2."""
    check(cf.swapped_recursion, (0.7, 1.3, n), wrt=(0,))


# -- transforms of transforms --------------------------------------------------------------
@pytest.mark.parametrize("outer", [jitad.grad, jitad.value_and_grad, jitad.vjp])
def test_transforming_a_transform(outer):
    """grad and value_and_grad objects are functions the transformations take again (second
    derivatives, see jitad.higher); vjp objects and training steps are refused."""
    for inner in (jitad.vjp(cf.cube_plain), jitad.train_step(cf.bpr_loss, wrt=("U", "V"))):
        with pytest.raises(jitad.JitadError, match="already a transformed function"):
            outer(inner)(2.0)
    d2 = jitad.grad(jitad.grad(cf.cube_plain))(2.0)
    assert d2 == pytest.approx(12.0, rel=1e-12)          # (x^3)'' = 6x
    value, d2 = jitad.value_and_grad(jitad.grad(cf.cube_plain))(2.0)
    assert (value, d2) == (pytest.approx(12.0), pytest.approx(12.0))   # 3x^2 and 6x at 2


def test_other_callables_are_refused():
    for obj in (np.sin, math.sin, lambda_like := object()):
        with pytest.raises(jitad.JitadError, match="plain Python functions"):
            jitad.grad(obj)(1.0)
    del lambda_like


def test_a_wrapper_is_differentiated_as_the_code_that_runs():
    # functools.wraps makes inspect.getsource(cube) show the inner def; the code that runs is
    # the wrapper, 2 * x**3
    assert jitad.grad(cf.cube)(2.0) == pytest.approx(24.0)
    assert jitad.grad(cf.cube, mode="eager")(2.0) == pytest.approx(24.0)


# -- index bounds ----------------------------------------------------------------------
def _raises_at(fn, args, line_text, index):
    with pytest.raises(IndexError) as info:
        jitad.grad(fn)(*args)
    err = info.value
    assert isinstance(err, IndexOutOfRange) and isinstance(err, jitad.JitadError)
    assert err.loc.filename == cf.__file__
    assert line_text in err.loc.source_line()
    assert f"index {index} " in str(err)
    with pytest.raises(IndexError):          # the compiled primal checks too
        jitad.differentiable(fn)(*args)


def test_index_out_of_range_raises_at_the_users_line():
    x = np.arange(1.0, 6.0)
    _raises_at(cf.read_at, (x, 5), "return x[i] * 2.0", 5)
    _raises_at(cf.read_at, (x, -6), "return x[i] * 2.0", -6)
    _raises_at(cf.write_at, (x, 3), "s[i] = x[0]", 3)
    _raises_at(cf.gather, (x, np.array([0, 5])), "x[idx]", 5)
    _raises_at(cf.shifted_loop, (x, 5), "x[i + 1]", 5)
    _raises_at(cf.strided_loop, (x, 3), "x[2 * i + 1]", 5)
    _raises_at(cf.read_2d, (np.ones((2, 3)), 1, 3), "x[i, j]", 3)
    _raises_at(cf.read_2d, (np.ones((2, 3)), 2, 0), "x[i, j]", 2)


def test_indices_in_range_give_the_right_gradient():
    x = np.arange(1.0, 6.0)
    check(cf.read_at, (x, 4))
    check(cf.read_at, (x, -5))
    check(cf.write_at, (x, -1))
    check(cf.gather, (x, np.array([0, 4, 4, -1])))
    check(cf.shifted_loop, (x, 4))
    check(cf.shifted_loop, (x, 0))
    check(cf.strided_loop, (x, 2))
    check(cf.read_2d, (np.ones((2, 3)) * 1.5, -2, 2))
    # a guarded access past the end never runs: no check may fire before the loop
    check(cf.guarded_read, (x, 9))


def test_proven_indices_are_not_checked():
    src = jitad.source(cf.rows_sum, "forward", args=(np.ones(3),))
    assert "check" not in src, src
    src = jitad.source(cf.shifted_loop, "forward", args=(np.ones(3), 2))
    assert src.count("rt.check_range") == 2 and "rt.check_index" not in src, src


def test_training_with_ids_out_of_range_raises():
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(5, 4)), rng.normal(size=(6, 4))
    users, items = np.array([0, 1, 5]), np.array([1, 2, 3])     # user 5 does not exist
    step = jitad.train_step(cf.bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.SGD(lr=0.1))
    with pytest.raises(IndexOutOfRange, match="index 5 is out of bounds"):
        jitad.fit(step, (U, V), data=(users, items, items[::-1].copy()), epochs=1)
    state = step.init(U, V)
    with pytest.raises(IndexError):
        step(U, V, 7, 1, 2, state)


def test_pullback_checks_the_cotangent_shape():
    y, pullback = jitad.vjp(cf.vector_out)(np.ones(3))
    assert np.allclose(pullback(np.ones(3)), 2.0)
    for bad in (np.ones(2), np.ones(4), np.ones((3, 1)), 1.0):
        with pytest.raises(jitad.JitadError, match="shape"):
            pullback(bad)


# -- captured values and stale source ------------------------------------------------------
def test_a_changed_global_is_followed():
    g = jitad.grad(cf.uses_global)
    assert g(1.5) == pytest.approx(2 * cf.SCALE * 1.5)
    old = cf.SCALE
    try:
        cf.SCALE = 5.0
        assert g(1.5) == pytest.approx(2 * 5.0 * 1.5)
        assert jitad.differentiable(cf.uses_global)(1.0) == pytest.approx(5.0)
    finally:
        cf.SCALE = old
    assert g(1.5) == pytest.approx(2 * old * 1.5)


def test_a_changed_helper_and_closure_are_followed():
    g = jitad.grad(cf.calls_helper)
    assert g(2.0) == pytest.approx(5.0)
    old = cf.helper_a
    try:
        cf.helper_a = cf.cube_plain
        assert g(2.0) == pytest.approx(13.0)
    finally:
        cf.helper_a = old
    f = cf.make_closure(3.0)
    gf = jitad.grad(f)
    assert gf(0.5) == pytest.approx(3.0 * math.cos(0.5))
    f.__closure__[0].cell_contents = 4.0
    assert gf(0.5) == pytest.approx(4.0 * math.cos(0.5))


def test_source_edited_after_import_is_refused(tmp_path, monkeypatch):
    mod = tmp_path / "edited_mod.py"
    mod.write_text("def f(x):\n    return x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module("edited_mod")
    try:
        mod.write_text(textwrap.dedent("""\
            def f(x):
                return x * x * x
            """))
        with pytest.raises(jitad.JitadError, match="not the code Python runs"):
            jitad.grad(m.f)(2.0)
    finally:
        sys.modules.pop("edited_mod", None)


def test_a_write_seen_through_a_helpers_view_is_refused():
    w, st = np.array([1.0, 2.0]), np.array([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(jitad.JitadError, match="alias") as info:
        jitad.grad(cf.alias_through_helper, wrt=(0, 1))(w, st)
    assert "s[0] = w * 3.0" in info.value.loc.source_line()
    check(cf.fresh_from_helper, (w, st), wrt=(0, 1))


def test_writes_an_alias_observes_are_decided_on_the_flow_graph():
    x = np.array([0.5, -0.25, 0.75, 1.0])
    check(cf.dead_view_around_loop, (x,))
    check(cf.view_rebound_before_write, (x,))
    for fn in (cf.view_made_before_loop, cf.view_read_next_iteration):
        with pytest.raises(jitad.JitadError, match="alias"):
            jitad.grad(fn)(x)


def test_a_loop_local_read_after_its_loop():
    # the adjoint of t reaches only the last iteration's assignment
    x = np.array([0.1, 0.2, 0.3])
    assert np.allclose(check(cf.loop_local_read_after_loop, (x,)), [0.0, 0.0, 2.0])
    check(cf.loop_local_nested, (x,))


def test_a_loop_variable_reused_by_two_loops():
    X = np.arange(6.0).reshape(2, 3) / 7 + 0.1
    g = check(cf.loop_variable_reused, (1.5, X), wrt=(0, 1))
    assert np.allclose(g[1], [[1.5, 2.5, 1.5], [1.5, 2.5, 1.5]])


def test_a_decorated_function_called_with_an_eager_var_records_eagerly():
    from jitad import eager
    f = jitad.differentiable(cf.cube_plain)
    x = eager.Var(np.array([1.0, 2.0]), requires_grad=True)
    y = f(x)
    y.backward(np.ones(2))
    assert np.allclose(x.grad, 3.0 * np.array([1.0, 2.0]) ** 2)


def test_a_loop_that_never_ends_stops_at_the_tape_limit(monkeypatch):
    from jitad.errors import TapeLimitError
    monkeypatch.setenv("JITAD_MAX_TAPE_BYTES", "4000000")
    with pytest.raises(MemoryError) as info:
        jitad.grad(cf.never_ends)(0.5)
    err = info.value
    assert isinstance(err, TapeLimitError) and isinstance(err, jitad.JitadError)
    assert "while x > -1.0" in err.loc.source_line() and "JITAD_MAX_TAPE_BYTES" in str(err)


def test_recursion_without_end_stops_at_the_depth_limit(monkeypatch):
    from jitad.errors import RecursionLimitError
    assert jitad.grad(cf.no_base_case)(0.3, 3) == pytest.approx(
        math.cos(math.sin(math.sin(0.3))) * math.cos(math.sin(0.3)) * math.cos(0.3))
    monkeypatch.setenv("JITAD_MAX_RECURSION", "500")
    for call in (jitad.grad(cf.no_base_case), jitad.differentiable(cf.no_base_case)):
        with pytest.raises(RecursionError) as info:
            call(0.3, -1)
        assert isinstance(info.value, RecursionLimitError)
        assert "def no_base_case" in info.value.loc.source_line()


# -- adjoints of values whose shape changes in a loop ------------------------------------------
def test_shapes_that_change_between_iterations():
    rng = np.random.default_rng(9)
    check(cf.causal_prefix_attention, (rng.normal(size=3), rng.normal(size=(4, 3)),
                                       rng.normal(size=(4, 2))), wrt=(0, 1, 2))
    M = np.array([[0.5, 1.0], [-0.3, 2.0], [0.7, -1.0]])
    check(cf.list_of_varying_length, (np.array([0.4, -0.8]), M), wrt=(0, 1))
    check(cf.shrinking_in_a_loop, (rng.normal(size=4),))
    check(cf.shrinking_once, (0.7,))
    check(cf.concat_parts_varying, (rng.normal(size=(2, 3)), rng.normal(size=(2, 3, 3))), wrt=(0, 1))
    check(cf.concat_parts_varying_1d, (rng.normal(size=3), rng.normal(size=(3, 3))), wrt=(0, 1))


def test_arrays_of_one_shape_per_call_are_not_taped_for_their_shape():
    rng = np.random.default_rng(11)
    args = (rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(6, 4)))
    check(cf.fixed_shapes_in_a_loop, args, wrt=(0, 1, 2))
    src = jitad.source(cf.fixed_shapes_in_a_loop, "adjoint", args=args, wrt=(0, 1, 2))
    assert not any(f".{push}({x})" in src for push in ("append", "tape_push") for x in "ab"), src


# -- held-out corpus #4's findings ----------------------------------------------------------
def test_a_masks_cotangent_is_chosen_not_multiplied():
    """sqrt'(0) is inf; np.maximum's and np.clip's masks pass 0 there, not 0 * inf = nan
    (autograd and JAX give nan here; the derivative is 0)."""
    import warnings
    v = np.array([0.04, -0.01, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for mode in ("compiled", "eager"):
            g = jitad.grad(cf.sqrt_of_clamped, mode=mode)(v)
            np.testing.assert_allclose(g, [5.0, 0.0, 1.0 / math.sqrt(0.3)], rtol=1e-12)


def test_runs_of_different_lengths_stay_apart():
    check(cf.two_lengths, (np.array([0.3, -1.2, 0.8, 2.0, -0.1]),))


def test_hstack_and_indices():
    check(cf.stacked_columns, (np.array([0.3, -1.2, 0.8]), np.array([1.5, 0.2, -0.4])), wrt=(0, 1))


@pytest.mark.parametrize("fn,x", [(cf.carried_from_inside, 0.7),
                                  (cf.carried_array_from_inside, np.array([0.3, -0.5])),
                                  (cf.carried_in_while, 0.4), (cf.carried_in_inner_loop, 1.3)],
                         ids=lambda a: getattr(a, "__name__", ""))
def test_loop_carried_value_first_assigned_in_the_loop(fn, x):
    """A value read in the next iteration before the loop assigns it again: its adjoint lives
    across iterations (it was re-zeroed per iteration: 4.5 for 9.0), and the compiled primal
    and jvp define it first (Numba refused the read)."""
    for n in (0, 1, 4):
        check(fn, (x, n))
        assert jitad.differentiable(fn)(x, n) == pytest.approx(fn(x, n), rel=1e-12)
        t = np.ones_like(x)
        _, tan = jitad.jvp(fn)(x, n, tangents=t)
        _, tan_eager = jitad.jvp(fn, mode="eager")(x, n, tangents=t)
        np.testing.assert_allclose(tan, tan_eager, rtol=1e-10, atol=1e-12)
