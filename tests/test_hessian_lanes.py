"""The K-lane Hessian (`jitad.lanes`, `codegen._hessian_lanes`): f_grads batched over its tangent
parameters, K columns of H per sweep. Over the second-derivative corpus's constructs -- `while`
until convergence, branches, `break`, early `return`, helpers, ODE integrators (Euler,
Lotka-Volterra), a recurrent net, tuple wrt -- it runs (`gen.hessian_lanes`) and
gives the one-column loop's Hessian (`JITAD_HESSIAN_LANES=0`) to rounding, symmetric; a lane
count smaller than the columns (blocks and a last, partial block) too. What it does not cover
keeps the loop, and says why (`gen.hessian_loop`).

The lanes are checked over the corpus on the python backend (the same generated code); Numba
compiles them for a loop of helpers, a `while` and a recurrent net (`NUMBA_LANED`;
``JITAD_HESSIAN_FULL=1`` adds an ODE integrator and an MLP: ~50 s of compiles)."""
import types

import numpy as np
import pytest

import jitad

from . import hessian_funcs as hf
from .test_hessian import FULL, assert_close, blocks, full_matrix

CASES = {c.name: c for c in hf.HCASES}

LANED = ["newton_sqrt", "fixed_point_cos", "inner_descent", "piecewise", "clipped_power",
         "early_return_loop", "while_break_accumulate", "continue_skip", "helper_energy",
         "ode_euler", "lotka_volterra", "rnn_loop", "mlp_tanh",
         "logistic_regression", "rosenbrock_loop", "lennard_jones", "spring_chain",
         "array_writes", "slicing", "horner", "softmax_xent_loop", "attention"]


def fresh(fn):
    """A copy of fn: a function of its own for jitad's per-function caches (the lane count is
    read when the code is generated)."""
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                           fn.__closure__)
    g.__module__, g.__qualname__ = fn.__module__, fn.__qualname__
    return g


def hessian_with(case, lanes, backend, monkeypatch):
    """(H as one matrix, the Generated) of the case, made with JITAD_HESSIAN_LANES=lanes."""
    monkeypatch.setenv("JITAD_HESSIAN_LANES", lanes)
    f = jitad.differentiable(backend=backend)(fresh(case.fn))
    h = jitad.hessian(f, wrt=case.wrt)
    args = case.make_args()
    H = h(*args)
    comp = h.specialize(*args)
    return full_matrix(blocks(H, case), case, args), comp


@pytest.mark.parametrize("lanes", ["32", "3"])
@pytest.mark.parametrize("name", LANED)
def test_lanes_give_the_column_loops_hessian(name, lanes, monkeypatch):
    case = CASES[name]
    M, comp = hessian_with(case, lanes, "python", monkeypatch)
    assert comp.gen.hessian_lanes, f"the lanes did not run: {comp.gen.hessian_loop}"
    M0, comp0 = hessian_with(case, "0", "python", monkeypatch)
    assert comp0.gen.hessian_lanes is None
    scale = max(1.0, np.max(np.abs(M0)))
    assert_close(M, M0, 1e-12, 1e-13 * scale, "lanes vs the column loop")
    assert_close(M, M.T, 0.0, 1e-10 * scale, "symmetric")


NUMBA_LANED = ["rnn_loop", "helper_energy", "newton_sqrt"] + (["lotka_volterra", "mlp_tanh"]
                                                              if FULL else [])


@pytest.mark.parametrize("name", NUMBA_LANED)
def test_lanes_compiled_with_numba(name, monkeypatch):
    case = CASES[name]
    M, comp = hessian_with(case, "4", "numba", monkeypatch)
    assert comp.gen.hessian_lanes and comp.compiled_ran
    M0, _ = hessian_with(case, "0", "python", monkeypatch)
    scale = max(1.0, np.max(np.abs(M0)))
    assert_close(M, M0, 1e-12, 1e-13 * scale, "numba lanes vs the column loop")


def test_what_the_lanes_do_not_cover_keeps_the_loop_and_says_why(monkeypatch):
    monkeypatch.setenv("JITAD_HESSIAN_LANES", "32")
    # a sort's tangent has no lane form; a Hessian of two numbers is cheaper as a loop; RK4's
    # four inlined steps would be too many lane loops for Numba to compile: that one is
    # test_hessian.py's KEEPS_THE_LOOP, asserted where its Hessian is generated anyway (a
    # minute of generation)
    for name, why in (("sorts_and_quantiles", "rt.sort_tangent"), ("himmelblau", "2 columns")):
        case = CASES[name]
        f = jitad.differentiable(backend="python")(fresh(case.fn))
        comp = jitad.hessian(f, wrt=case.wrt).specialize(*case.make_args())
        assert comp.gen.hessian_lanes is None and why in comp.gen.hessian_loop


def test_parallel_columns_keep_the_loop():
    # the decision is made when the code is generated, on either backend: on the python one by
    # default (the columns under Numba's prange, compiled and run bit for bit against the
    # sequential Hessian, are test_parallel's test_hessian_columns_in_parallel_...; seconds of
    # parfor compile), compiled by Numba with JITAD_HESSIAN_FULL=1
    case = CASES["rnn_loop"]
    args = case.make_args()
    f = fresh(case.fn) if FULL else jitad.differentiable(backend="python")(fresh(case.fn))
    h = jitad.hessian(f, wrt=case.wrt, parallel=True)
    H = h(*args)
    comp = h.specialize(*args)
    assert comp.gen.hessian_lanes is None and "parallel" in comp.gen.hessian_loop
    assert comp.compiled_ran or not FULL
    # the reference: the default Hessian's generated code run as Python (rnn_loop's lanes
    # compiled by Numba are test_lanes_compiled_with_numba's)
    H1 = jitad.hessian(jitad.differentiable(backend="python")(fresh(case.fn)), wrt=case.wrt)(*args)
    assert np.allclose(H, H1, rtol=1e-12, atol=1e-13)


def rosenbrock(x, a):
    u = x[1:] - x[:-1] ** 2
    return np.sum(a * u * u + (1.0 - x[:-1]) ** 2)


def linear_in_x(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if w[i] > 0.0:
            s += w[i] * x[i]
    return s * w[0]


def test_a_gradient_without_tangents_is_zero_in_every_lane(monkeypatch):
    """f linear in x: f_grads returns zeros that do not depend on the tangents; the lanes
    return them in every lane (H = 0)."""
    monkeypatch.setenv("JITAD_HESSIAN_LANES", "4")
    x, w = np.linspace(0.1, 1.0, 9), np.linspace(-0.5, 1.0, 9)
    for backend in ("python", "numba"):
        h = jitad.hessian(jitad.differentiable(backend=backend)(fresh(linear_in_x)))
        assert h.specialize(x, w).gen.hessian_lanes
        assert np.array_equal(h(x, w), np.zeros((9, 9)))


def test_the_lane_form_reads_like_a_loop_over_dual_lanes(monkeypatch):
    """Rosenbrock's adjoint element loop: one lane loop (the statements fused, the primal's
    moved out of it), whose numbers are its own locals."""
    monkeypatch.setenv("JITAD_HESSIAN_LANES", "64")
    h = jitad.hessian(jitad.differentiable(backend="python")(fresh(rosenbrock)))
    x = np.linspace(-0.5, 1.2, 12)
    comp = h.specialize(x, 100.0)
    src = comp.gen.source
    body = src[src.index(f"def {comp.gen.hessian}("):]
    assert body.count("in range(K):") == 1, body
    assert "lanes[" not in body, body
    hvp = jitad.hvp(jitad.differentiable(backend="python")(fresh(rosenbrock)))
    columns = np.array([hvp(x, 100.0, v=e) for e in np.eye(12)])
    assert_close(h(x, 100.0), columns, 1e-12, 1e-10, "lanes vs Hessian-vector products")


def test_the_cost_rule_keeps_the_loop_for_element_loops_only(monkeypatch):
    """Without JITAD_HESSIAN_LANES the lanes are made where they save work done once for K
    columns (tapes, products, arrays made in loops), not for element loops over arrays."""
    monkeypatch.delenv("JITAD_HESSIAN_LANES", raising=False)
    x = np.linspace(-0.5, 1.2, 12)
    comp = jitad.hessian(jitad.differentiable(backend="python")(fresh(rosenbrock))) \
        .specialize(x, 100.0)
    assert comp.gen.hessian_lanes is None and "element loops only" in comp.gen.hessian_loop
    for name in ("rnn_loop", "mlp_tanh", "fixed_point_cos"):
        case = CASES[name]
        f = jitad.differentiable(backend="python")(fresh(case.fn))
        assert jitad.hessian(f, wrt=case.wrt).specialize(*case.make_args()).gen.hessian_lanes


def test_the_column_loop_adds_into_the_rows_of_H(monkeypatch):
    """The one-column loop passes row k of H (zeros) as the buffer the k-th product's
    gradient is added into (`Reverse.vjp(grads_into=...)`): no gradient array per column,
    no copy of it into H; H is the second derivatives by central differences of the grad."""
    from .harness import fd_hessian
    monkeypatch.delenv("JITAD_HESSIAN_LANES", raising=False)
    x = np.linspace(-0.5, 1.2, 12)
    h = jitad.hessian(fresh(rosenbrock))
    comp = h.specialize(x, 100.0)
    body = comp.gen.source[comp.gen.source.index(f"def {comp.gen.hessian}("):]
    assert "rt.set_row" not in body and "np.zeros((x.size, x.size))" in body, body
    H = h(x, 100.0)
    assert comp.compiled_ran
    # the reference gradient on the python backend (a Numba compile that checked nothing)
    fd = fd_hessian(jitad.grad(jitad.differentiable(backend="python")(fresh(rosenbrock))),
                    (x, 100.0), (0,))[0][0]
    assert_close(H, fd, 1e-6, 1e-5, "Hessian vs central differences of the gradient")


def mixed(x, w):
    return np.sum(np.tanh(x) * w[:3]) + np.sum(x ** 2) * w[3] ** 3


@pytest.mark.parametrize("lanes", ["0", "4"])
def test_the_compiled_kernel_gives_blocks_in_Hs_layout(lanes, monkeypatch):
    """`hessian(...).compiled`: per pair (b, a), b outer, the block (a.size, b.size) of
    d2f/(da db) -- the off-diagonal blocks are not square, so a transposed layout would not
    even reshape."""
    monkeypatch.setenv("JITAD_HESSIAN_LANES", lanes)
    x, w = np.array([0.3, -0.2, 0.5]), np.array([0.7, 1.1, -0.4, 0.9])
    h = jitad.hessian(fresh(mixed), wrt=(0, 1))
    H = h(x, w)
    blocks_ = h.compiled(x, w)(x, w)
    sizes = [x.size, w.size]
    for n, (b, a) in enumerate([(b, a) for b in range(2) for a in range(2)]):
        assert blocks_[n].shape == (sizes[a], sizes[b])
        assert_close(blocks_[n], np.asarray(H[a][b]).reshape(sizes[a], sizes[b]), 0.0, 0.0,
                     f"block ({a}, {b})")
    gx = jitad.grad(jitad.differentiable(backend="python")(fresh(mixed)), wrt=(0, 1))  # reference
    eps = 1e-6
    for j in range(w.size):       # d2f/(dx dw_j) by differences of the gradient wrt x
        e = np.zeros(w.size)
        e[j] = eps
        col = (gx(x, w + e)[0] - gx(x, w - e)[0]) / (2 * eps)
        assert_close(np.asarray(H[0][1])[:, j], col, 1e-6, 1e-8, "d2f/(dx dw) vs differences")


def rnn_hidden_from_shape(xs, Wx, Wh):
    """(heldout16) The hidden state allocated with a computed shape, `(B,) + Wh.shape[1:]`:
    its lane form was `np.zeros(((B,) + Wh.shape[1:], K))`, a TypeError (the shape taken for
    one length)."""
    T, B = xs.shape[0], xs.shape[1]
    h = np.zeros((B,) + Wh.shape[1:])
    for t in range(T):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h ** 2)


def test_an_allocation_of_a_computed_shape_in_lanes():
    from .harness import check_hessian
    rng = np.random.default_rng(16)
    args = (rng.normal(size=(3, 2, 2)), 0.5 * rng.normal(size=(2, 3)), 0.5 * rng.normal(size=(3, 3)))
    check_hessian(rnn_hidden_from_shape, args, (0, 1, 2), backend="python")
