"""Constructs of the subset beyond the main corpus, each against central finite differences."""
import numpy as np
import pytest

import jitad

from . import extra_funcs as ex
from .harness import assert_grads_close, assert_unchanged, central_fd, snapshot

rng = np.random.default_rng(7)
CASES = [
    (ex.ex_ifexp_chained, (1.3, 0.7), (0, 1)),
    (ex.ex_ifexp_chained, (2.6, 0.7), (0, 1)),
    (ex.ex_builtins, (0.8, rng.normal(size=4)), (0, 1)),
    (ex.ex_iterate_1d, (rng.normal(size=5), 0.6), (0, 1)),
    (ex.ex_slice_write, (rng.normal(size=4), 0.9), (0, 1)),
    (ex.ex_concat_axis1, (rng.normal(size=(2, 3)), rng.normal(size=(2, 2))), (0, 1)),
    (ex.ex_dtype_and_ones, (0.7,), (0,)),
    (ex.ex_reshape_transpose_outer, (rng.normal(size=3), rng.normal(size=4)), (0, 1)),
    (ex.ex_mean_axis_neg, (rng.normal(size=(3, 4)),), (0,)),
    (ex.ex_clip_where_sign, (rng.normal(size=6), 1.3), (0, 1)),
    (ex.ex_return_in_nested_loop, (0.5, 1.4), (0, 1)),
    (ex.ex_return_in_nested_loop, (0.1, 0.5), (0, 1)),
    (ex.ex_while_with_continue_and_break, (0.9, 1.2), (0, 1)),
    (ex.ex_unpack_shape_and_helper_tuple, (rng.normal(size=(3, 2)), 0.8), (0, 1)),
    (ex.ex_rank3, (rng.normal(size=(2, 3, 4)), 0.5), (0, 1)),
    (ex.ex_view_recreated_each_iteration, (0.7, 1.3), (0, 1)),
    (ex.ex_inplace_on_own_array, (rng.normal(size=3), 0.4), (0, 1)),
    (ex.ex_variable_step, (rng.normal(size=7), 0.8, 2), (0, 1)),
    (ex.ex_while_in_for_in_while, (0.7, 1.3), (0, 1)),
    (ex.ex_helper_two_signatures, (0.6, rng.normal(size=3)), (0, 1)),
    (ex.ex_helper_in_loop, (rng.normal(size=4), 0.5), (0, 1)),
    (ex.ex_recursive_array, (rng.normal(size=3), 3), (0,)),
    (ex.ex_enumerate_rows, (rng.normal(size=(3, 2)), rng.normal(size=2)), (0, 1)),
    (ex.ex_norm, (rng.normal(size=3), 1.7), (0, 1)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_extra_construct(fn, args, wrt):
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap)
    assert vg.specialize(*args).compiled_ran
    assert float(value) == pytest.approx(float(fn(*args)), rel=1e-12, abs=1e-12)
    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    assert_grads_close(tuple(grads), fd, rtol=1e-6, atol=1e-7, label=fn.__name__)


def test_helper_called_once_is_split_and_differentiates_only_what_the_caller_needs():
    """hp_array calls helper_layer(W, x) once at top level: its forward must not run again in
    the adjoint (g_fwd/g_bwd, no g_vjp), and with wrt=x alone the helper computes no adjoint
    for W."""
    from . import corpus_funcs as cf
    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    for wrt in ((0,), (0, 1)):
        g = jitad.grad(cf.hp_array, wrt=wrt)
        got = g(x, W)
        got = got if isinstance(got, tuple) else (got,)
        assert_grads_close(got, central_fd(cf.hp_array, (x, W), wrt, order=4), rtol=1e-7)
        comp = g.specialize(x, W)
        assert comp.compiled_ran
        # the halves as generated (before `inline_once` writes them into their one caller)
        src = jitad.source(cf.hp_array, "entry_adjoint", args=(x, W), wrt=wrt)
        assert "helper_layer_fwd(W, x)" in src and "helper_layer_bwd(W, x, h_saved" in src
        assert "def helper_layer_vjp" not in src
        bwd = src[src.index("def helper_layer_bwd"):]
        bwd = bwd[:bwd.index("\ndef ")]
        assert ("rt.outer(d_out_matmul, x)" in bwd) == (wrt == (0, 1)), bwd   # the adjoint of W
        # each half is called once: the module holds them written into the vjp
        assert "def helper_layer_fwd" not in comp.gen.source
        assert "def helper_layer_bwd" not in comp.gen.source
