"""Functions that close over arrays: globals and enclosing functions' variables read at every
call as hidden parameters (`capture.Hidden`), by every transformation, in both modes."""
import numba
import numpy as np
import pytest

import jitad

from . import closures_funcs as cf
from .harness import assert_grads_close, autograd_grad, central_fd

w0 = np.random.default_rng(3).normal(size=3)

# shared across tests (one compile each)
G_LOSS = jitad.grad(cf.loss)
VG_LOSS = jitad.value_and_grad(cf.loss)


@pytest.fixture(autouse=True)
def restore_globals():
    saved = {k: getattr(cf, k) for k in ("X", "y", "PARAMS", "TABLE", "HYPER")}
    fields = (cf.HYPER.reg, cf.HYPER.center)
    copies = {k: np.copy(v) for k, v in saved.items() if isinstance(v, np.ndarray)}
    yield
    for k, v in copies.items():
        saved[k][...] = v
    for k, v in saved.items():
        setattr(cf, k, v)
    cf.HYPER.reg, cf.HYPER.center = fields


def references(fn, args, wrt=(0,)):
    return autograd_grad(fn, args, wrt), central_fd(fn, args, wrt, eps=1e-4, order=4)


def check(t, fn, args, wrt=(0,)):
    """Gradients of `t` (a grad) against autograd and finite differences; the compiled path
    ran; no array changed (the captured ones included)."""
    before = (np.copy(cf.X), np.copy(cf.y))
    g = t(*args)
    ag, fd = references(fn, args, wrt)
    g = g if isinstance(g, tuple) else (g,)
    assert_grads_close(g, ag, rtol=1e-9, atol=1e-12, label=f"{fn.__name__} vs autograd")
    assert_grads_close(g, fd, rtol=1e-6, atol=1e-8, label=f"{fn.__name__} vs differences")
    assert t.specialize(*args).compiled_ran
    np.testing.assert_array_equal(cf.X, before[0])
    np.testing.assert_array_equal(cf.y, before[1])
    return g


def test_global_arrays():
    check(G_LOSS, cf.loss, (w0,))
    value, g = VG_LOSS(w0)
    assert value == pytest.approx(cf.loss(w0), rel=1e-12)
    np.testing.assert_allclose(g, G_LOSS(w0), rtol=1e-14)


def test_a_write_into_the_array_is_seen_with_no_new_code():
    comp = G_LOSS.specialize(w0)
    cf.X[0] = 5.0
    cf.y[1:3] = -2.0
    check(G_LOSS, cf.loss, (w0,))
    assert G_LOSS.specialize(w0) is comp


def test_rebinding_is_seen_a_new_type_is_a_new_specialization():
    comp = G_LOSS.specialize(w0)
    cf.X = np.random.default_rng(5).normal(size=(4, 3))     # another shape, same type
    cf.y = np.ones(4)
    check(G_LOSS, cf.loss, (w0,))
    assert G_LOSS.specialize(w0) is comp                  # the same code: no re-compile
    cf.X = cf.X.astype(np.float32)                        # another dtype: another signature
    g = G_LOSS(w0)
    comp32 = G_LOSS.specialize(w0)
    assert comp32 is not comp and comp32.argtys[1].dtype == "f4"
    np.testing.assert_allclose(g, 2 * SCALE_OF(cf) * cf.X.T.astype(float) @ (cf.X @ w0 - cf.y),
                               rtol=1e-5)
    cf.X = cf.X.astype(np.float64)                        # back: the first one again
    G_LOSS(w0)
    assert G_LOSS.specialize(w0) is comp


def SCALE_OF(m):
    return m.SCALE


def test_rebinding_between_calls_of_the_fast_path():
    # the second call takes the fast path (the same argument kinds): it still reads X again
    g1 = G_LOSS(w0)
    cf.X = cf.X * 2.0
    g2 = G_LOSS(w0)
    assert not np.allclose(g1, g2)
    check(G_LOSS, cf.loss, (w0,))


def test_enclosing_function_arrays():
    A = np.random.default_rng(1).normal(size=(5, 3))
    b = np.random.default_rng(2).normal(size=5)
    f = cf.make_loss(A, b)
    g = jitad.grad(f)
    check(g, f, (w0,))
    A[:] = A[::-1]          # the closure's array, written
    check(g, f, (w0,))
    other = cf.make_loss(A * 2.0, b)     # another closure of the same code
    check(jitad.grad(other), other, (w0,))


def test_lambda_closing_over_arrays():
    A = np.random.default_rng(4).normal(size=(5, 3))
    b = np.random.default_rng(6).normal(size=5)
    g = jitad.grad(lambda w: np.sum((A @ w - b) ** 2))
    np.testing.assert_allclose(g(w0), 2 * A.T @ (A @ w0 - b), rtol=1e-12)
    b[0] = 10.0
    np.testing.assert_allclose(g(w0), 2 * A.T @ (A @ w0 - b), rtol=1e-12)
    assert g.specialize(w0).compiled_ran
    # the README's form: a lambda passing arrays to a loss of several arguments
    gl = jitad.grad(lambda w: cf.per_sample(w, A[0], b[0]))
    assert_grads_close((gl(w0),), central_fd(lambda w: cf.per_sample(w, A[0], b[0]), (w0,), (0,)),
                       rtol=1e-6, atol=1e-8)


def test_helpers_reading_globals():
    check(jitad.grad(cf.uses_helper), cf.uses_helper, (w0,))
    g = jitad.grad(cf.local_named_X)
    check(g, cf.local_named_X, (w0,))
    src = jitad.source(cf.local_named_X, args=(w0,))
    # its own X is a local; the helpers' X a hidden parameter of another name
    assert "def local_named_X_vjp(w, X_1, d_out)" in src or "(w, X_1, d_out)" in src, src


def test_structures_of_arrays():
    g = jitad.grad(cf.mlp)
    check(g, cf.mlp, (w0,))
    cf.PARAMS[0][0, 0] = 3.0
    check(g, cf.mlp, (w0,))
    cf.PARAMS = [cf.PARAMS[0] * 0.5, cf.PARAMS[1]]
    check(g, cf.mlp, (w0,))
    check(jitad.grad(cf.from_dict), cf.from_dict, (w0,))


def test_a_dataclass_object_is_read_at_every_call():
    # a global dataclass object (a config): its fields are read when the gradient runs, so a
    # field set in place between calls is seen (they were refused: "cannot be used as a value")
    g = jitad.grad(cf.from_dataclass)
    check(g, cf.from_dataclass, (w0,))
    cf.HYPER.reg = 2.5
    cf.HYPER.center = cf.HYPER.center + 1.0
    check(g, cf.from_dataclass, (w0,))
    eager = jitad.grad(cf.from_dataclass, mode="eager")(w0)
    assert_grads_close((eager,), references(cf.from_dataclass, (w0,))[1], rtol=1e-6, atol=1e-8)


def test_every_transformation():
    v = np.array([0.3, -1.0, 2.0])
    # vjp, jvp, jacobians of a vector function
    J = autograd_jacobian(cf.predict, w0)
    y, pull = jitad.vjp(cf.predict)(w0)
    np.testing.assert_allclose(y, cf.predict(w0), rtol=1e-12)
    ct = np.arange(6.0)
    np.testing.assert_allclose(pull(ct), ct @ J, rtol=1e-10)
    y, t = jitad.jvp(cf.predict)(w0, tangents=v)
    np.testing.assert_allclose(t, J @ v, rtol=1e-10)
    np.testing.assert_allclose(jitad.jacfwd(cf.predict)(w0), J, rtol=1e-10)
    np.testing.assert_allclose(jitad.jacrev(cf.predict)(w0), J, rtol=1e-10)
    # second order, through a helper
    H = autograd_hessian(cf.uses_helper, w0)
    np.testing.assert_allclose(jitad.hessian(cf.uses_helper)(w0), H, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(jitad.hvp(cf.uses_helper)(w0, v=v), H @ v, rtol=1e-9)
    np.testing.assert_allclose(jitad.jacfwd(jitad.grad(cf.uses_helper))(w0), H, rtol=1e-9,
                               atol=1e-12)
    import autograd
    from .harness import autograd_rebuild
    s = 0.7
    d2 = autograd.grad(autograd.grad(autograd_rebuild(cf.smooth)))(s)
    assert jitad.grad(jitad.grad(cf.smooth))(s) == pytest.approx(d2, rel=1e-10)
    (value, d1), (d_value, dd) = jitad.jvp(jitad.value_and_grad(cf.smooth))(s, tangents=1.0)
    assert value == pytest.approx(cf.smooth(s), rel=1e-12)
    assert d_value == pytest.approx(d1, rel=1e-12) and dd == pytest.approx(d2, rel=1e-10)
    # the hidden arrays change between calls of a second derivative too
    cf.X = cf.X[::-1].copy()
    H = autograd_hessian(cf.uses_helper, w0)
    np.testing.assert_allclose(jitad.hessian(cf.uses_helper)(w0), H, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(jitad.hvp(cf.uses_helper)(w0, v=v), H @ v, rtol=1e-9)


def autograd_jacobian(fn, x):
    import autograd
    from .harness import autograd_rebuild
    return autograd.jacobian(autograd_rebuild(fn))(x)


def autograd_hessian(fn, x):
    import autograd
    from .harness import autograd_rebuild
    return autograd.hessian(autograd_rebuild(fn))(x)


def test_differentiable_and_eager_mode():
    d = jitad.differentiable(cf.loss)
    assert d(w0) == pytest.approx(cf.loss(w0), rel=1e-12)
    cf.y = cf.y + 1.0
    assert d(w0) == pytest.approx(cf.loss(w0), rel=1e-12)
    for fn in (cf.loss, cf.uses_helper, cf.mlp):
        compiled = jitad.grad(fn)(w0)
        eager = jitad.grad(fn, mode="eager")(w0)
        np.testing.assert_allclose(eager, compiled, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jitad.hessian(cf.uses_helper, mode="eager")(w0),
                               jitad.hessian(cf.uses_helper)(w0), rtol=1e-10, atol=1e-12)


def test_compiled_kernel_takes_the_arrays_after_its_parameters():
    kernel = VG_LOSS.compiled(w0)

    @numba.njit
    def descend(w, X, y, steps):
        for _ in range(steps):
            _, (g,) = kernel(w, X, y)
            w = w - 0.01 * g
        return w

    got = descend(w0.copy(), cf.X, cf.y, 3)
    w = w0.copy()
    for _ in range(3):
        w = w - 0.01 * G_LOSS(w)
    np.testing.assert_allclose(got, w, rtol=1e-12)


def test_train_step_and_fit_read_the_arrays():
    xs = np.random.default_rng(8).normal(size=(20, 3))
    ys = xs @ np.array([1.0, -2.0, 0.5])
    step = jitad.train_step(cf.per_sample, wrt=0, optimizer=jitad.optim.SGD(lr=0.01))
    w = w0.copy()
    state = step.init(w)
    loss = step(w, xs[0], ys[0], state)
    ref = cf.per_sample(w0, xs[0], ys[0])
    assert loss == pytest.approx(ref, rel=1e-12)
    g = jitad.grad(cf.per_sample)(w0, xs[0], ys[0])
    np.testing.assert_allclose(w, w0 - 0.01 * g, rtol=1e-12)
    w = w0.copy()
    hist = jitad.fit(step, [w], [xs, ys], epochs=2, shuffle=False, progress=False)
    expect = w0.copy()
    for _ in range(2):
        for k in range(20):
            expect = expect - 0.01 * jitad.grad(cf.per_sample)(expect, xs[k], ys[k])
    np.testing.assert_allclose(w, expect, rtol=1e-10)
    assert len(hist.loss) == 2


def test_hidden_parameters_are_not_differentiated_or_named():
    with pytest.raises(jitad.JitadError, match="no parameter named 'X'"):
        jitad.grad(cf.loss, wrt="X")
    with pytest.raises(jitad.JitadError, match="out of range"):
        jitad.grad(cf.loss, wrt=1)
    src = jitad.source(cf.loss, args=(w0,))
    assert "def loss_vjp(w, X, y, d_out)" in src


def test_nested_function_calling_a_helper_that_reads_a_global():
    check(jitad.grad(cf.nested_calls_helper), cf.nested_calls_helper, (w0,))


def test_an_array_no_longer_defined_is_an_error():
    saved = cf.y
    g = jitad.grad(cf.loss)
    g(w0)
    del cf.y
    try:
        with pytest.raises(jitad.JitadError, match="'y'.*no longer defined"):
            g(w0)
    finally:
        cf.y = saved


def test_recursive_function_reading_globals():
    g = jitad.grad(cf.recursive)
    check(g, cf.recursive, (w0, 3))
    # the second-order transformations on the python backend (the same generated code): a
    # Numba Hessian and jvp of value_and_grad reading globals are test_every_transformation's,
    # a recursive Numba Hessian test_second_reach's (~30 s of compiles here)
    p = jitad.differentiable(cf.recursive, backend="python")
    H = jitad.hessian(p)(w0, 2)
    np.testing.assert_allclose(H, autograd_hessian(lambda w: cf.recursive(w, 2), w0), rtol=1e-9,
                               atol=1e-12)
    (value, grad), _ = jitad.jvp(jitad.value_and_grad(p))(w0, 2, tangents=w0)
    assert value == pytest.approx(cf.recursive(w0, 2), rel=1e-12)
    np.testing.assert_allclose(grad, g(w0, 2), rtol=1e-12)


def test_a_number_rebound_to_an_array_and_back():
    g = jitad.grad(cf.shifted)
    try:
        np.testing.assert_allclose(g(w0), 2 * (w0 - 0.5), rtol=1e-14)   # a constant
        cf.OFFSET = np.arange(3.0)                                      # now read per call
        np.testing.assert_allclose(g(w0), 2 * (w0 - cf.OFFSET), rtol=1e-14)
        cf.OFFSET[1] = 7.0
        np.testing.assert_allclose(g(w0), 2 * (w0 - cf.OFFSET), rtol=1e-14)
        cf.OFFSET = 0.25                                   # a number again (read per call too)
        np.testing.assert_allclose(g(w0), 2 * (w0 - 0.25), rtol=1e-14)
    finally:
        cf.OFFSET = 0.5
