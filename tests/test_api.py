"""The public API: grad / value_and_grad / vjp / source, wrt by index and name, backends,
determinism, the disk cache across processes, and calling the compiled gradient from njit."""
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import jitad

from . import api_funcs as af
from .harness import central_fd


def test_grad_defaults_to_argument_0_and_matches_finite_differences():
    g = jitad.grad(af.recurrence)(0.3, 0.9, 50)
    fd = central_fd(af.recurrence, (0.3, 0.9, 50), (0,))[0]
    assert isinstance(g, float)
    assert g == pytest.approx(fd, rel=1e-6)


def test_wrt_by_index_by_name_and_tuple():
    args = (0.3, 0.9, 50)
    fd = central_fd(af.recurrence, args, (0, 1))
    by_idx = jitad.grad(af.recurrence, wrt=1)(*args)
    by_name = jitad.grad(af.recurrence, wrt="a")(*args)
    both = jitad.grad(af.recurrence, wrt=("x", "a"))(*args)
    assert by_idx == pytest.approx(fd[1], rel=1e-6)
    assert by_name == by_idx
    assert isinstance(both, tuple) and len(both) == 2
    assert both[0] == pytest.approx(fd[0], rel=1e-6) and both[1] == pytest.approx(fd[1], rel=1e-6)
    value, grads = jitad.value_and_grad(af.recurrence, wrt=(0, 1))(*args)
    assert value == pytest.approx(af.recurrence(*args))
    assert grads == both
    spec = jitad.grad(af.recurrence, wrt=("x", "a")).specialize(*args)
    assert spec.backend == "numba" and spec.compiled_ran


def test_decorated_function_calls_compiled_forward():
    f = jitad.differentiable(af.recurrence)
    assert f(0.3, 0.9, 20) == pytest.approx(af.recurrence(0.3, 0.9, 20), rel=1e-14)
    assert isinstance(f.specialize((0.3, 0.9, 20)).fn(f.last.gen.primal), numba.core.dispatcher.Dispatcher)


def test_python_backend_runs_the_same_generated_source():
    f = jitad.differentiable(af.recurrence, backend="python")
    g_py = jitad.grad(f, wrt=(0, 1))(0.3, 0.9, 30)
    g_nb = jitad.grad(af.recurrence, wrt=(0, 1))(0.3, 0.9, 30)
    assert g_py == pytest.approx(g_nb, rel=1e-12)
    spec = jitad.grad(f, wrt=(0, 1)).specialize(0.3, 0.9, 30)
    assert spec.backend == "python" and not spec.compiled_ran
    assert jitad.source(f, "adjoint") == jitad.source(af.recurrence, "adjoint", args=(0.3, 0.9, 30), wrt=(0, 1))


def test_vjp_with_tuple_and_array_outputs():
    x, w = 0.7, 1.3
    y, pullback = jitad.vjp(af.two_outputs, wrt=(0, 1))(x, w)
    assert y == pytest.approx(af.two_outputs(x, w))
    gx, gw = pullback((1.0, 0.0))
    assert gx == pytest.approx(w) and gw == pytest.approx(x)
    gx, gw = pullback((0.0, 1.0))
    assert gx == pytest.approx(np.sin(w)) and gw == pytest.approx(np.cos(w) * x)
    v = np.array([0.1, -0.4, 0.8])
    y, pullback = jitad.vjp(af.vector_out, wrt=(0, 1))(x, v)
    ct = np.array([1.0, 2.0, -1.0])
    gx, gv = pullback(ct)
    fd = central_fd(lambda x, v: float(np.dot(ct, af.vector_out(x, v))), (x, v), (0, 1))
    assert gx == pytest.approx(fd[0], rel=1e-6)
    np.testing.assert_allclose(gv, fd[1], rtol=1e-6)


def test_gradient_does_not_mutate_inputs():
    v = np.array([0.1, -0.4, 0.8])
    before = v.copy()
    jitad.grad(af.with_helper, wrt=(0, 1))(0.5, v)
    np.testing.assert_array_equal(v, before)


def test_source_stages():
    mon = jitad.source(af.recurrence, "monadic")
    assert "par(" in mon and "pure x" in mon and "<-" in mon
    fwd = jitad.source(af.recurrence, "forward", args=(0.3, 0.9, 5))
    assert fwd.startswith("def recurrence(x, a, n):")
    adj = jitad.source(af.recurrence, "adjoint", args=(0.3, 0.9, 5), wrt=(0, 1))
    assert "def recurrence_vjp(x, a, n, d_out):" in adj
    assert "# line" in adj and "x = a * x + 0.01 * math.sin(x)" in adj
    assert "for k in range(n - 1, -1, -1):" in adj
    # only x is taped (a, the temporaries and k are never pushed)
    assert adj.count("] = x") == 1 and "tape_i" not in adj
    with pytest.raises(jitad.JitadError, match="stage"):
        jitad.source(af.recurrence, "bogus")


def test_compiled_gradient_is_callable_from_user_njit_code():
    """A per-sample SGD epoch written in plain @numba.njit calls jitad's compiled gradient."""
    rng = np.random.default_rng(0)
    U0 = rng.normal(scale=0.1, size=(20, 4))
    V0 = rng.normal(scale=0.1, size=(30, 4))
    users = rng.integers(0, 20, 200)
    pos = rng.integers(0, 30, 200)
    neg = rng.integers(0, 30, 200)
    vg = jitad.value_and_grad(af.bpr_loss, wrt=("U", "V")).compiled(U0, V0, 0, 0, 1)

    @numba.njit
    def epoch(U, V, users, pos, neg, lr):
        total = 0.0
        for s in range(users.shape[0]):
            loss, (dU, dV) = vg(U, V, users[s], pos[s], neg[s])
            U -= lr * dU
            V -= lr * dV
            total += loss
        return total

    U, V = U0.copy(), V0.copy()
    losses = [epoch(U, V, users, pos, neg, 0.5) for _ in range(5)]
    assert losses[-1] < losses[0]
    # the same epoch in plain Python with finite-difference-checked gradients
    U2, V2 = U0.copy(), V0.copy()
    for s in range(3):
        g = jitad.grad(af.bpr_loss, wrt=(0, 1))(U2, V2, users[s], pos[s], neg[s])
        fd = central_fd(af.bpr_loss, (U2, V2, users[s], pos[s], neg[s]), (0, 1))
        np.testing.assert_allclose(g[0], fd[0], atol=1e-8)
        np.testing.assert_allclose(g[1], fd[1], atol=1e-8)


def test_compiled_into_adds_gradients_into_the_callers_buffers():
    """`value_and_grad(...).compiled_into(...)`: no gradient arrays per call -- each call adds
    into the buffers given (here summing a mini-batch's per-sample gradients in @njit code)."""
    rng = np.random.default_rng(1)
    U, V = rng.normal(scale=0.3, size=(6, 3)), rng.normal(scale=0.3, size=(7, 3))
    users, pos, neg = rng.integers(0, 6, 9), rng.integers(0, 7, 9), rng.integers(0, 7, 9)
    k = jitad.value_and_grad(af.bpr_loss, wrt=("U", "V")).compiled_into(U, V, 0, 0, 1)
    assert k.targetoptions.get("inline") == "always"      # a small kernel: inlined into the loop

    @numba.njit
    def batch(U, V, users, pos, neg, gU, gV):
        total = 0.0
        for s in range(users.shape[0]):
            loss, grads = k(U, V, users[s], pos[s], neg[s], gU, gV)
            total += loss
        return total

    gU, gV = np.zeros_like(U), np.zeros_like(V)
    U0, V0 = U.copy(), V.copy()
    total = batch(U, V, users, pos, neg, gU, gV)
    assert np.array_equal(U, U0) and np.array_equal(V, V0)
    want_U, want_V, want = np.zeros_like(U), np.zeros_like(V), 0.0
    for s in range(9):
        args = (U, V, users[s], pos[s], neg[s])
        fd = central_fd(af.bpr_loss, args, (0, 1))
        want_U += fd[0]
        want_V += fd[1]
        want += af.bpr_loss(*args)
    np.testing.assert_allclose(gU, want_U, atol=1e-8)
    np.testing.assert_allclose(gV, want_V, atol=1e-8)
    assert total == pytest.approx(want, rel=1e-12)
    # a parameter the body assigns, and a scalar one: its gradient is returned
    W, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    kr = jitad.value_and_grad(af.reassigned_weights, wrt=(0, 2)).compiled_into(W, x, 1.5)
    buf = np.ones((3, 3))
    value, (gW, gc) = kr(W, x, 1.5, buf)
    fd = central_fd(af.reassigned_weights, (W, x, 1.5), (0, 2))
    assert gW is buf
    np.testing.assert_allclose(buf - 1.0, fd[0], atol=1e-8)
    assert gc == pytest.approx(fd[1], abs=1e-8)
    assert value == pytest.approx(af.reassigned_weights(W, x, 1.5), rel=1e-12)


_CHILD = textwrap.dedent("""
    import sys, os
    sys.path.insert(0, {dir!r})
    import jitad, mod
    print(jitad.source(mod.f, "adjoint", args=(0.5, 2.0), wrt=(0, 1)))
    print("GRAD", repr(jitad.grad(mod.f, wrt=(0, 1))(0.5, 2.0)))
""")


def _run_child(tmp_path, cache):
    env = dict(os.environ, JITAD_CACHE_DIR=str(cache), PYTHONHASHSEED="random")
    out = subprocess.run([sys.executable, "-c", _CHILD.format(dir=str(tmp_path))], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_generated_source_is_deterministic_and_a_changed_helper_invalidates_the_cache(tmp_path):
    cache = tmp_path / "cache"
    (tmp_path / "helper.py").write_text("def h(x):\n    return x * x\n")
    (tmp_path / "mod.py").write_text(
        "import math\nfrom helper import h\n\n\ndef f(x, w):\n    return math.sin(h(x) * w)\n")
    first = _run_child(tmp_path, cache)
    second = _run_child(tmp_path, cache)
    assert first == second  # same bytes, across processes with different hash seeds
    files = sorted(p.name for p in cache.glob("jitad_gen_*.py"))
    assert len(files) == 1
    assert any(cache.glob("__pycache__/*.nbi")), "numba cache index was not written"
    # change only the helper: the entry function's file is unchanged, the gradient must change
    (tmp_path / "helper.py").write_text("def h(x):\n    return x * x * x\n")
    third = _run_child(tmp_path, cache)
    grad_before = eval(first.split("GRAD", 1)[1])
    grad_after = eval(third.split("GRAD", 1)[1])
    x, w = 0.5, 2.0
    import math
    assert grad_before[1] == pytest.approx(math.cos(x * x * w) * x * x)
    assert grad_after[1] == pytest.approx(math.cos(x ** 3 * w) * x ** 3)
    assert len(list(cache.glob("jitad_gen_*.py"))) == 2


def test_cli_show(tmp_path):
    here = os.path.dirname(__file__)
    out = subprocess.run([sys.executable, "-m", "jitad", "show",
                          os.path.join(here, "api_funcs.py") + ":recurrence", "--stage", "adjoint",
                          "--args", "0.5, 0.9, 10"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "def recurrence_vjp" in out.stdout


def test_vjp_compiled_takes_the_cotangent_last():
    v = np.array([0.1, -0.4, 0.8])
    kernel = jitad.vjp(af.vector_out, wrt=(0, 1)).compiled(0.7, v)
    ct = np.array([1.0, 2.0, -1.0])
    value, (gx, gv) = kernel(0.7, v, ct)
    np.testing.assert_allclose(value, af.vector_out(0.7, v))
    fd = central_fd(lambda x, v: float(np.dot(ct, af.vector_out(x, v))), (0.7, v), (0, 1))
    assert gx == pytest.approx(fd[0], rel=1e-6)
    np.testing.assert_allclose(gv, fd[1], rtol=1e-6)


def test_a_recursive_function_runs_again_in_a_new_process(tmp_path):
    """Numba's disk cache cannot reload a recursive function (numba/numba#6061: the second
    process crashed); a module with recursion is compiled in memory each time instead."""
    cache = tmp_path / "cache"
    (tmp_path / "mod.py").write_text(
        "def rec(x, n):\n    if n <= 0:\n        return x\n    return rec(x * x * 0.5 + 0.1, n - 1) + x\n\n\n"
        "def f(x, w):\n    return rec(w, 3) * x\n")
    first = _run_child(tmp_path, cache)
    assert _run_child(tmp_path, cache) == first
