"""Maps (jitad/maps.py): pointwise array code becomes loops over elements before it is
differentiated. Every gradient is checked against central finite differences and eager mode
(which never makes maps), the compiled path ran, the arguments unchanged; the generated code is
checked to hold the loop (so a test fails if a change stops making maps, not only if it makes
them wrong)."""
import warnings

import numpy as np
import pytest

import jitad

from . import maps_funcs as mf
from .harness import assert_grads_close, check_both_modes

RNG = np.random.default_rng(7)


def _primal(fn, args, wrt=(0,)):
    return jitad.source(fn, "primal", args=args, wrt=wrt)


def test_slices_of_one_length_are_one_loop():
    x = RNG.uniform(-1.0, 1.0, 9)
    check_both_modes(mf.slices_same_length, (x, 100.0), (0, 1))
    src = _primal(mf.slices_same_length, (x, 100.0))
    assert "for i in range(n)" in src and "np.sum" not in src     # the sum is the loop's too
    adj = jitad.source(mf.slices_same_length, "adjoint", args=(x, 100.0))
    assert "tape" not in adj          # the adjoint loop computes the body again: no tape
    # its iterations are independent and it pops nothing: it runs forwards, like the map
    assert "for i in range(n):" in adj[adj.index("# adjoint"):] and ", -1, -1)" not in adj


def test_an_element_loop_whose_adjoint_pops_runs_backwards():
    # a branch in the element loop: it is no map, and its adjoint pops the branches taken
    x = RNG.uniform(-1.0, 1.0, 7)
    check_both_modes(mf.branchy_elements, (x,), (0,))
    adj = jitad.source(mf.branchy_elements, "adjoint", args=(x,))
    assert ", -1, -1)" in adj


@pytest.mark.parametrize("hb", [4, 1])
def test_broadcast_decided_when_the_loop_starts(hb):
    X, W = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 4))
    b = RNG.normal(size=hb)
    check_both_modes(mf.bias_tanh, (X, W, b), (1, 2))
    assert "rt.broadcast_step" in _primal(mf.bias_tanh, (X, W, b))


def test_new_axes_broadcast_in_a_map():
    x, y = RNG.normal(size=4), RNG.normal(size=3)
    check_both_modes(mf.outer_difference, (x, y, 0.7), (0, 1, 2))


def test_lengths_that_do_not_broadcast_raise_as_numpy_does():
    X, W = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 4))
    with pytest.raises(ValueError):
        mf.bias_tanh(X, W, np.ones(3))
    with pytest.raises(ValueError):
        jitad.grad(mf.bias_tanh, wrt=2)(X, W, np.ones(3))


def test_division_by_zero_is_numpys_in_both_modes():
    x, y = np.array([1.0, 0.0, 2.0]), np.array([0.0, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, grads = jitad.value_and_grad(mf.divide_by_zero, wrt=(0, 1))(x, y)
        _, eager = jitad.value_and_grad(mf.divide_by_zero, wrt=(0, 1), mode="eager")(x, y)
        assert value == mf.divide_by_zero(x, y)
    for g, e in zip(grads, eager):
        np.testing.assert_array_equal(g, e)     # inf, nan and numbers alike


def test_where_comparisons_and_masks_in_a_map():
    x, y = RNG.uniform(-1.0, 1.0, 7), RNG.uniform(-1.0, 1.0, 7)
    x[np.abs(x) < 0.05] = 0.3          # away from the kinks
    check_both_modes(mf.where_and_masks, (x, y), (0, 1))


def test_a_users_element_loop_is_not_taped():
    x = RNG.normal(size=6)
    check_both_modes(mf.element_loop, (x, 0.8), (0, 1))
    adj = jitad.source(mf.element_loop, "adjoint", args=(x, 0.8), wrt=(0, 1))
    # its numbers are computed again in the adjoint loop, and its writes fill the zeros just
    # made (`first_writes`): no old element is kept either -- nothing is taped
    assert "= t\n" not in adj and "= x_at\n" not in adj and "tape_f" not in adj


def test_maps_inside_a_loop():
    W, b, h0 = RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=4), RNG.normal(size=4)
    check_both_modes(mf.map_in_loop, (W, b, h0), (0, 1, 2))


def test_integer_operands_promote():
    x, idx = RNG.normal(size=5), np.arange(5)
    check_both_modes(mf.ints_and_floats, (x, idx), (0,))


def test_forward_mode_and_second_derivatives_through_maps():
    x = RNG.uniform(-1.0, 1.0, 6)
    v = RNG.normal(size=6)
    y, y_dot = jitad.jvp(mf.slices_same_length, wrt=0)(x, 100.0, tangents=v)
    g = jitad.grad(mf.slices_same_length)(x, 100.0)
    assert y_dot == pytest.approx(float(g @ v), rel=1e-10)
    hv = jitad.hvp(mf.slices_same_length)(x, 100.0, v=v)
    hv_eager = jitad.hvp(mf.slices_same_length, mode="eager")(x, 100.0, v=v)
    assert_grads_close((hv,), (hv_eager,), rtol=1e-9, atol=1e-12, label="hvp compiled vs eager")


@pytest.mark.parametrize("nb", [6, 1])
def test_a_run_widened_by_broadcasting(nb):
    g, c = RNG.normal(size=3), RNG.normal(size=3)
    check_both_modes(mf.cell_update, (g, c, RNG.normal(size=nb)), (0, 1, 2))


@pytest.mark.parametrize("shapes", [((4,), (4,), (4,)), ((1,), (1,), (4,)), ((4,), (1,), (1,))])
def test_results_narrower_than_their_run(shapes):
    x, w, b = (RNG.normal(size=s) for s in shapes)
    check_both_modes(mf.widening_chain, (x, w, b), (0, 1, 2))


def test_unrelated_operations_are_not_made_to_broadcast():
    check_both_modes(mf.unrelated_shapes, (RNG.normal(size=(5, 2)),), (0,))


def test_a_maps_stored_results_are_read_back_in_its_adjoint():
    W, h0, xs = RNG.normal(size=(5, 5)) * 0.5, RNG.normal(size=5), RNG.normal(size=(4, 5))
    check_both_modes(mf.stored_tanh, (W, h0, xs), (0, 1, 2))
    adj = jitad.source(mf.stored_tanh, "adjoint", args=(W, h0, xs), wrt=(0, 1, 2))
    code = [ln for ln in adj[adj.index("# adjoint"):].splitlines() if "# line" not in ln]
    assert not any("np.tanh" in ln for ln in code) and any("= h[" in ln for ln in code)
    # tanh's operand (W @ h + xs[t]) is not read again: only h is kept per step, not the
    # product nor the row of xs (`Analysis.replay_reads`); the hvp's tape likewise
    pushes = [ln.strip() for ln in adj.splitlines() if ".tape_push(" in ln]  # codegen.tape_methods
    assert len(pushes) == 1 and pushes[0].endswith(".tape_push(h)"), pushes
    hvp_adj = jitad.source(jitad.hvp(mf.stored_tanh, wrt=0), "adjoint", args=(W, h0, xs))
    assert sorted(ln.strip().split("(")[-1] for ln in hvp_adj.splitlines() if ".tape_push(" in ln) \
        == ["d_h)", "d_h_matmul)", "h)"]
    v = RNG.normal(size=(5, 5))
    hv = jitad.hvp(mf.stored_tanh, wrt=0)(W, h0, xs, v=v)
    g = jitad.grad(mf.stored_tanh, wrt=0)
    e = 1e-6
    fd = (g(W + e * v, h0, xs) - g(W - e * v, h0, xs)) / (2 * e)
    assert np.allclose(hv, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("nw,nb", [(4, 6), (1, 1)])
def test_a_map_under_a_sum_along_an_axis_is_one_loop_nest(nw, nb):
    X = RNG.normal(size=(6, 4))
    w, b = RNG.normal(size=nw), RNG.normal(size=(nb, 1))
    check_both_modes(mf.row_norms, (X, w, b), (0, 1, 2))
    src = _primal(mf.row_norms, (X, w, b), (0, 1, 2))
    adj = jitad.source(mf.row_norms, "adjoint", args=(X, w, b), wrt=(0, 1, 2))
    for code in (src, adj):     # each row sum is a number in the loop: no (6, 4) temporary
        assert "rt.sum_axis(" not in code and "rt.expand(" not in code
    assert "r_acc = 0.0" in src and "s_sum_axis_acc = 0.0" in src


def test_a_map_under_a_mean_along_the_first_axis():
    X, w = RNG.normal(size=(5, 3)), RNG.normal(size=3)
    check_both_modes(mf.column_means, (X, w), (0, 1))
    src = _primal(mf.column_means, (X, w), (0, 1))
    assert "rt.mean_axis(" not in src and "c_acc = 0.0" in src and "k_mean_axis_acc = 0.0" in src
    v = RNG.normal(size=(5, 3))           # forward mode and second order through the nests
    _, y_dot = jitad.jvp(mf.column_means, wrt=0)(X, w, tangents=v)
    assert y_dot == pytest.approx(float(np.sum(jitad.grad(mf.column_means)(X, w) * v)), rel=1e-10)
    hv = jitad.hvp(mf.column_means, wrt=0)(X, w, v=v)
    hv_eager = jitad.hvp(mf.column_means, wrt=0, mode="eager")(X, w, v=v)
    assert_grads_close((hv,), (hv_eager,), rtol=1e-9, atol=1e-12, label="hvp compiled vs eager")


def test_a_rank_one_map_under_a_sum_along_its_one_axis():
    x, w = RNG.normal(size=7), RNG.normal(size=7)
    check_both_modes(mf.vector_means, (x, w), (0, 1))
    src = _primal(mf.vector_means, (x, w), (0, 1))
    assert "rt.sum_axis(" not in src and "np.sum(" not in src and "out_sum_acc = 0.0" in src
