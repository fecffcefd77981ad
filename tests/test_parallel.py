"""parallel=True (`jitad.parallel`): independent calls of costly helpers dispatched on threads.

The gradients are compared with the sequential ones bit for bit (the dispatch changes where a
branch runs, never what it computes or the order of the additions into shared adjoints), with
central finite differences, and through data-dependent `if`s. The functions are generated once
per module (the size threshold is set to 0 while they are generated, so small test arrays take
the parallel path); the structure tests read the generated code, which needs no compile. Numba
compiles and runs (parallel and sequential) one function per mechanism: a pair of calls before
a decision and a pair in the branch it takes (gated), disjoint parts of an adjoint (three
columns), a folded backward half (one weight each), a pair in a loop (two streams). The plain
pair (two_layers) is the first pair of gated, and its parallel dispatch runs compiled in the
train-step test (bit for bit after an epoch); JITAD_PARALLEL_FULL=1 runs it here too (every
Numba parallel compile is seconds of parfor lowering)."""
import os

import numpy as np
import pytest

import jitad
from tests import parallel_funcs as F

FULL = os.environ.get("JITAD_PARALLEL_FULL", "") not in ("", "0")
RUN = ["three_columns", "gated+", "gated-", "one_weight_each", "two_streams"] + \
    (["two_layers"] if FULL else [])
RNG = np.random.default_rng(7)
D, H, B = 6, 4, 3
Wa, Wb = RNG.normal(size=(D, H)), RNG.normal(size=(D, H))
ba, bb = RNG.normal(size=H), RNG.normal(size=H)
X = RNG.normal(size=(B, D))
W3, b3 = RNG.normal(size=(3, D, H)), RNG.normal(size=(3, H))
Wq, Wr, XS = RNG.normal(size=(H, H)) * 0.5, RNG.normal(size=(H, H)) * 0.5, RNG.normal(size=(5, H))


@pytest.fixture(scope="module")
def made():
    """The parallel and sequential value_and_grad of each function, generated with the
    threshold at 0 (every dispatch runs its branches on threads), and their results for the
    functions of RUN (the others' results are None: generated, not compiled)."""
    old = os.environ.get("JITAD_PAR_THRESHOLD")
    os.environ["JITAD_PAR_THRESHOLD"] = "0"
    try:
        out = {}
        for name, f, args, wrt in (
                ("two_layers", F.two_layers, (Wa, ba, Wb, bb, X), (0, 1, 2, 3, 4)),
                ("three_columns", F.three_columns, (W3, b3, X), (0, 1, 2)),
                ("gated+", F.gated, (Wa, ba, Wb, bb, X, 0.5), (0, 1, 2, 3, 4)),
                ("gated-", F.gated, (Wa, ba, Wb, bb, X, -50.0), (0, 1, 2, 3, 4)),
                ("one_weight_each", F.one_weight_each, (Wa, Wb, X), (0, 1)),
                ("two_streams", F.two_streams, (Wq, Wr, XS), (0, 1, 2))):
            par = jitad.value_and_grad(f, wrt=wrt, parallel=True)
            seq = jitad.value_and_grad(f, wrt=wrt)
            par.specialize(*args)
            out[name] = (f, args, wrt, par, seq) + \
                ((par(*args), seq(*args)) if name in RUN else (None, None))
        return out
    finally:
        if old is None:
            del os.environ["JITAD_PAR_THRESHOLD"]
        else:
            os.environ["JITAD_PAR_THRESHOLD"] = old


@pytest.mark.parametrize("name", RUN)
def test_parallel_gradient_equals_sequential_bit_for_bit(made, name):
    f, args, wrt, par, seq, (vp, gp), (vs, gs) = made[name]
    assert vp == vs
    assert len(gp) == len(gs)
    for a, b in zip(gp, gs):
        assert np.array_equal(a, b)
    assert vp == pytest.approx(f(*args), rel=1e-12)


@pytest.mark.parametrize("name", ["three_columns", "gated+", "two_streams"] +
                         (["two_layers"] if FULL else []))
def test_parallel_gradient_matches_central_differences(made, name):
    f, args, wrt, par, seq, (vp, gp), _ = made[name]
    eps = 1e-6
    for g, i in zip(gp, wrt):
        x = np.array(args[i], dtype=float)
        for k in range(0, x.size, max(1, x.size // 5)):
            up, dn = x.copy(), x.copy()
            up.flat[k] += eps
            dn.flat[k] -= eps
            a_up, a_dn = list(args), list(args)
            a_up[i], a_dn[i] = up, dn
            fd = (f(*a_up) - f(*a_dn)) / (2 * eps)
            assert np.asarray(g).flat[k] == pytest.approx(fd, rel=1e-5, abs=1e-7)


def test_the_dispatch_is_generated_forward_and_adjoint(made):
    f, args, wrt, par, *_ = made["two_layers"]
    comp = par.specialize(*args)
    src = comp.gen.source
    assert "prange(2)" in src and "if min(" in src and "< 0:" in src
    vjp = comp.gen.functions[comp.gen.vjp]
    # the forward halves in one dispatch, the backward halves in another
    assert "(ha, ha_saved), (hb, hb_saved) = two_layers_vjp_par(" in vjp
    assert "hb_grads, ha_grads = two_layers_vjp_par_1(" in vjp
    # the work test and the sequential path are the caller's own statements: only the threads
    # are a function, compiled with Numba's parallel option
    assert comp.gen.parallel == {"two_layers_par", "two_layers_vjp_par", "two_layers_vjp_par_1"}
    seq = vjp[vjp.index("if min("):vjp.index("(ha, ha_saved), (hb, hb_saved) = two_layers_vjp_par(")]
    assert "ha, ha_saved = layer_fwd(" in seq and "hb, hb_saved = layer_fwd(" in seq
    # the gradients the branches return are taken (a first contribution is assigned, not added
    # to zeros) and the additions into shared adjoints stay in the sequential order, after it
    assert vjp.index("hb_grads, ha_grads =") < vjp.index("d_Wb = hb_grads[0]") \
        < vjp.index("d_X += ha_grads[2]")


def test_a_backward_half_folded_into_its_one_addition_is_dispatched_too(made):
    f, args, wrt, par, *_ = made["one_weight_each"]
    comp = par.specialize(*args)
    vjp = comp.gen.functions[comp.gen.vjp]
    # both backward halves are called in the sequential path (before the dispatch's else) only
    call = vjp.index("one_weight_each_vjp_par_1(")
    assert vjp.count("_bwd(") == 2 and vjp.rindex("_bwd(") < call
    assert vjp.index("one_weight_each_vjp_par_1(") < vjp.index("d_Wb = ")


def test_additions_into_disjoint_parts_of_an_adjoint_run_in_their_branch(made):
    # each column adds its weights' gradient into its own row of d_W (`W[k]`): in the branch,
    # right after its backward half; the additions into d_X, which all branches share, after
    f, args, wrt, par, seq, got, want = made["three_columns"]
    comp = par.specialize(*args)
    vjp = comp.gen.functions[comp.gen.vjp]
    disp = comp.gen.functions["three_columns_vjp_par_1"]
    call = vjp.index("three_columns_vjp_par_1(")
    for k in range(3):      # in the threads' branch, and in the sequential path (before its else)
        assert f"rt.add_into(d_W[{k}]," in disp and vjp.count(f"rt.add_into(d_W[{k}],") == 1
        assert vjp.index(f"rt.add_into(d_W[{k}],") < call
    assert "d_X += h1_grads[2]" in vjp
    assert all(np.array_equal(a, b) for a, b in zip(got[1], want[1]))


def test_independent_calls_inside_the_branch_taken_are_dispatched(made):
    f, args, wrt, par, *_ = made["gated+"]
    comp = par.specialize(*args)
    vjp = comp.gen.functions[comp.gen.vjp]
    # forward: one dispatch, then the states pushed in the sequential order
    assert "(u, u_saved), (v, v_saved) = gated_vjp_par_2(" in vjp
    assert vjp.index("states_layer.tape_push(u_saved)") < vjp.index("states_layer.tape_push(v_saved)")
    # adjoint: both states popped (in the sequential order), then one dispatch
    i = vjp.index("v_saved = states_layer.tape_pop()")
    assert i < vjp.index("u_saved = states_layer.tape_pop()") < vjp.index("v_grads, u_grads = gated_vjp_par_3(")


def test_independent_calls_inside_a_loop_are_dispatched_at_every_iteration(made):
    f, args, wrt, par, *_ = made["two_streams"]
    comp = par.specialize(*args)
    vjp = comp.gen.functions[comp.gen.vjp]
    loops = [ln for ln in vjp.splitlines() if ln.strip().startswith("for ")]
    assert len(loops) >= 2, vjp
    # forward: both steps of an iteration in one dispatch, inside the loop (indented under it)
    fwd = [ln for ln in vjp.splitlines() if "two_streams_vjp_par(" in ln]
    bwd = [ln for ln in vjp.splitlines() if "two_streams_vjp_par_1(" in ln]
    assert fwd and bwd, vjp
    assert all(ln.startswith(" " * 8) for ln in fwd + bwd), vjp
    d = [d for d in comp.gen.decisions if d.parallel]
    assert d and "every iteration of its loop" in d[0].reason


def test_monadic_source_says_what_runs_in_parallel_and_why(made):
    f, args, wrt, par, *_ = made["gated+"]
    text = jitad.source(par, "monadic", args=args)
    assert "(ha, hb) <- par(layer(Wa, ba, X), layer(Wb, bb, X))" in text
    # the pair before the decision and the pair inside the branch it picks both run at once
    assert text.count("-- parallel: 2 calls (layer, layer)") == 2
    # a function that is not parallel prints the plain do-notation
    assert "--" not in jitad.source(F.gated, "monadic")


def test_decorator_runs_the_forward_through_the_dispatch():
    f = jitad.differentiable(parallel=True)(F.two_layers)
    assert f.parallel
    assert f(Wa, ba, Wb, bb, X) == pytest.approx(F.two_layers(Wa, ba, Wb, bb, X), rel=1e-12)
    g = jitad.grad(f, wrt=(0, 2))          # a grad of it dispatches too
    assert g.d is f


def test_small_groups_stay_sequential():
    u, v, w = (np.linspace(0.1, 1.0, 5) * k for k in (1, 2, 3))
    vg = jitad.value_and_grad(F.small_vectors, wrt=0, parallel=True)
    value, grad = vg(u, v, w)
    assert value == pytest.approx(F.small_vectors(u, v, w))
    comp = vg.specialize(u, v, w)
    assert not comp.gen.parallel and "prange" not in comp.gen.source
    assert all(not d.parallel and "too small" in d.reason for d in comp.gen.decisions)


def _loss(Wa, ba, Wb, bb, X):
    return F.two_layers(Wa, ba, Wb, bb, X)


def test_train_step_parallel_gives_the_same_parameters_after_an_epoch(monkeypatch):
    monkeypatch.setenv("JITAD_PAR_THRESHOLD", "0")
    data = (RNG.normal(size=(24, D)),)
    runs = []
    for parallel in (False, True):
        step = jitad.train_step(F.two_layers, wrt=(0, 1, 2, 3), optimizer=jitad.optim.SGD(lr=0.05),
                                parallel=parallel)
        params = [p.copy() for p in (Wa, ba, Wb, bb)]
        hist = jitad.fit(step, params, data=data, epochs=1, batch_size=4, seed=3, progress=False)
        runs.append((hist.loss[0], params, step))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        assert np.array_equal(a, b)
    assert "prange" in runs[1][2].last.gen.source and "prange" not in runs[0][2].last.gen.source


def test_branches_that_need_the_gil_stay_sequential(monkeypatch):
    monkeypatch.setenv("JITAD_PAR_THRESHOLD", "0")
    x = np.linspace(0.0, 1.0, 8)
    A, B_ = RNG.normal(size=(8, 8)), RNG.normal(size=(8, 8))
    vg = jitad.value_and_grad(F.two_spectra, wrt=(0, 1), parallel=True)
    (v, g), (vs, gs) = vg(A, B_, x), jitad.value_and_grad(F.two_spectra, wrt=(0, 1))(A, B_, x)
    assert v == vs and all(np.array_equal(a, b) for a, b in zip(g, gs))
    comp = vg.specialize(A, B_, x)
    assert not comp.gen.parallel
    assert any("GIL" in d.reason for d in comp.gen.decisions)


def test_hessian_columns_in_parallel_equal_the_sequential_hessian_bit_for_bit():
    """hessian(parallel=True): one Hessian-vector product per column on Numba's threads, each
    writing its own rows; the loop through a helper and a `while` stays as it is."""
    W = RNG.normal(size=(4, 4)) * 0.5
    xs = RNG.normal(size=(5, 4))
    par = jitad.hessian(F.recurrent, parallel=True)
    seq = jitad.hessian(F.recurrent)
    Hp, Hs = par(W, xs), seq(W, xs)
    assert np.array_equal(Hp, Hs)
    comp = par.specialize(W, xs)
    assert comp.compiled_ran and comp.gen.hessian in comp.gen.parallel
    g = jitad.grad(jitad.differentiable(F.recurrent, backend="python"))   # the reference
    eps, E = 1e-6, np.zeros_like(W)
    E[1, 2] = eps
    fd = (g(W + E, xs) - g(W - E, xs)) / (2 * eps)        # column (1, 2) of H
    assert np.allclose(Hp[:, :, 1, 2], fd, rtol=1e-6, atol=1e-8)


def test_a_loops_trips_count_in_the_work_of_its_branch():
    # a helper looping `steps` times over a vector: its work is trips x elements, which the
    # dispatcher's run-time test reads from the call (`parallel.loop_work`), not only the
    # elements handed to it (which alone kept four 13 ms trajectories sequential)
    args = (0.7, RNG.normal(size=(2, 64)), 50)
    src = jitad.source(jitad.value_and_grad(F.two_trajectories, wrt=(0, 1), parallel=True),
                       "module", args=args)
    tests = [line.strip() for line in src.splitlines() if "if min(" in line]
    assert tests and all("steps" in t for t in tests), tests
    k, Y0, steps = args
    lhs = tests[0][len("if min("):tests[0].rindex(") <")]
    work = eval(f"min({lhs})", {"Y0": Y0, "Y0_at": Y0[0], "Y0_at_1": Y0[1], "steps": steps,
                                "k": k, "max": max})
    assert work >= 16 * steps * 64      # ELEMENT_WORK x trips x elements, at least
