"""Held-out models (tests/models_funcs.py), each checked four ways: the compiled gradient
against central finite differences, autograd (where the model is expressible in autograd: no
writes into arrays that carry a gradient) and jitad's eager mode; the compiled path ran; the
arguments are unchanged; the compiled value equals the plain Python call.
"""
import math

import numpy as np
import pytest

import jitad

from . import models_funcs as mf
from .harness import assert_grads_close, assert_unchanged, autograd_grad, central_fd, snapshot


def _gmm_args():
    rng = np.random.default_rng(11)
    n, d, K = 20, 3, 4
    alphas = rng.normal(size=K)
    means = rng.normal(size=(K, d))
    icf = 0.3 * rng.normal(size=(K, d + d * (d - 1) // 2))
    x = rng.normal(size=(n, d))
    wishart_gamma, wishart_m = 1.0, 0.0
    a = 0.5 * (d + wishart_m + 1.0)
    log_gamma_const = 0.25 * d * (d - 1) * math.log(math.pi) + sum(
        math.lgamma(a + 0.5 * (1 - j)) for j in range(1, d + 1))
    return (alphas, means, icf, x, wishart_gamma, wishart_m, log_gamma_const)


def _lstm_args():
    rng = np.random.default_rng(12)
    layers, b, seq_len = 2, 4, 4
    main_params = 0.5 * rng.normal(size=(2 * layers, 4 * b))
    extra_params = 0.5 * rng.normal(size=(3, b))
    state = 0.5 * rng.normal(size=(2 * layers, b))
    sequence = np.zeros((seq_len, b))
    chars = [1, 3, 0, 2]
    for t in range(seq_len):
        sequence[t, chars[t]] = 1.0
    return (main_params, extra_params, state, sequence)




def _ba_args():
    rng = np.random.default_rng(14)
    ncams, npts, nobs = 2, 3, 5
    cams = np.zeros((ncams, 11))
    cams[:, 0:3] = 0.2 * rng.normal(size=(ncams, 3))      # rotation
    cams[:, 3:6] = 0.3 * rng.normal(size=(ncams, 3))      # centre
    cams[:, 6] = 1.0 + 0.1 * rng.random(ncams)            # focal length
    cams[:, 7:9] = 0.1 * rng.normal(size=(ncams, 2))      # principal point
    cams[:, 9:11] = 0.05 * rng.normal(size=(ncams, 2))    # radial distortion
    X = rng.normal(size=(npts, 3))
    X[:, 2] += 6.0                                        # in front of the cameras
    w = 1.0 + 0.1 * rng.normal(size=nobs)
    obs = np.array([[0, 0], [0, 1], [1, 1], [1, 2], [0, 2]], dtype=np.int64)
    feats = 0.1 * rng.normal(size=(nobs, 2))
    return (cams, X, w, obs, feats)


def _logreg_args():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(12, 3))
    y = (rng.random(12) > 0.5).astype(np.float64)
    return (rng.normal(size=3), 0.3, X, y)


def _softmax_args():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(6, 3))
    return (rng.normal(size=(3, 4)), rng.normal(size=4), X, np.array([0, 3, 1, 1, 2, 0]))


def _mlp_args():
    rng = np.random.default_rng(17)
    return (0.5 * rng.normal(size=(3, 5)), 0.1 * rng.normal(size=5), 0.5 * rng.normal(size=(5, 2)),
            0.1 * rng.normal(size=2), rng.normal(size=(8, 3)), rng.normal(size=8))


def _gru_args():
    rng = np.random.default_rng(18)
    h, x, T = 3, 2, 4
    ws = [0.5 * rng.normal(size=(h, x)) if k % 2 == 0 else 0.5 * rng.normal(size=(h, h))
          for k in range(6)]
    return tuple(ws) + (rng.normal(size=(T, x)), 0.3 * rng.normal(size=h))


def _rnn_args():
    rng = np.random.default_rng(19)
    return (0.5 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=(3, 3)), 0.1 * rng.normal(size=3),
            rng.normal(size=(5, 2)), rng.normal(size=5))


def _kalman_args():
    rng = np.random.default_rng(20)
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([1.0, 0.0])
    ys = np.cumsum(0.3 * rng.normal(size=6))
    return (0.05, 0.2, ys, F, H, np.array([0.1, -0.2]))


def _kalman_scalar_args():
    rng = np.random.default_rng(21)
    return (0.9, 0.1, 0.3, rng.normal(size=6))


def _gp_args():
    rng = np.random.default_rng(22)
    X = rng.normal(size=(5, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=5)
    return (0.1, -0.2, -1.0, X, y)


def _rk4_args():
    return (np.array([1.1, 0.4, 0.9, 0.3]), np.array([1.2, 0.8]), np.array([0.9, 1.1]), 0.05, 12)


def _bpr_args():
    rng = np.random.default_rng(23)
    U = 0.3 * rng.normal(size=(3, 4))
    V = 0.3 * rng.normal(size=(5, 4))
    users = np.array([0, 1, 0, 2, 1, 0])
    pos = np.array([1, 2, 1, 4, 0, 3])
    neg = np.array([2, 1, 4, 4, 3, 1])
    return (U, V, users, pos, neg, 0.01)


def _huber_args():
    rng = np.random.default_rng(24)
    X = rng.normal(size=(10, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=10)
    return (rng.normal(size=3), X, y, 1.0)


def _attention_args():
    rng = np.random.default_rng(25)
    return (0.5 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=(3, 2)), 0.5 * rng.normal(size=(3, 2)),
            rng.normal(size=(4, 3)))


def _poisson_args():
    rng = np.random.default_rng(26)
    X = 0.5 * rng.normal(size=(10, 3))
    y = rng.poisson(1.5, size=10).astype(np.float64)
    return (0.3 * rng.normal(size=3), 0.2, X, y)


# (id, function, args factory, wrt, autograd expressible, rtol, atol, marks)
CASES = [
    ("gmm", mf.gmm_objective, _gmm_args, (0, 1, 2), False, 1e-6, 1e-7, ()),
    ("lstm", mf.lstm_objective, _lstm_args, (0, 1, 2), False, 1e-6, 1e-8, ()),
    ("bundle_adjustment", mf.ba_objective, _ba_args, (0, 1, 2), False, 1e-6, 1e-7, ()),
    ("logistic_regression", mf.logistic_regression, _logreg_args, (0, 1), True, 1e-7, 1e-9, ()),
    ("softmax_xent", mf.softmax_xent, _softmax_args, (0, 1), True, 1e-7, 1e-9, ()),
    ("mlp_tanh", mf.mlp_tanh, _mlp_args, (0, 1, 2, 3), True, 1e-7, 1e-9, ()),
    ("gru", mf.gru_loss, _gru_args, (0, 1, 2, 3, 4, 5, 7), True, 1e-7, 1e-9, ()),
    ("rnn_rows", mf.rnn_loss, _rnn_args, (0, 1, 2), True, 1e-7, 1e-9, ()),
    ("kalman_2d", mf.kalman_nll, _kalman_args, (0, 1, 2, 3), False, 1e-6, 1e-8, ()),
    ("kalman_scalar", mf.kalman_scalar, _kalman_scalar_args, (0, 1, 2, 3), True, 1e-7, 1e-9, ()),
    ("black_scholes", mf.black_scholes_call, lambda: (100.0, 95.0, 0.5, 0.03, 0.25),
     (0, 1, 2, 3, 4), True, 1e-6, 1e-8, ()),
    ("black_scholes_otm", mf.black_scholes_call, lambda: (80.0, 120.0, 0.25, 0.01, 0.2),
     (0, 1, 2, 3, 4), True, 1e-6, 1e-10, ()),
    ("gp_rbf_cholesky", mf.gp_nll, _gp_args, (0, 1, 2, 3), False, 1e-6, 1e-8, ()),
    ("ode_rk4", mf.ode_rk4_loss, _rk4_args, (0, 1), False, 1e-6, 1e-9, ()),
    ("ode_euler", mf.ode_euler_loss, lambda: (2.0, 1.0, 0.05, 30), (0, 1, 2), True, 1e-7, 1e-9, ()),
    ("ode_while_stop", mf.projectile_range, lambda: (12.0, 0.8, 0.05, 0.01), (0, 1, 2), True,
     1e-6, 1e-8, ()),
    ("newton_in_objective", mf.newton_cuberoot_loss, lambda: (1.5, 2.0), (0, 1), True, 1e-7, 1e-9, ()),
    ("huber", mf.huber_loss, _huber_args, (0, 1, 2, 3), True, 1e-7, 1e-9, ()),
    ("attention", mf.attention_loss, _attention_args, (0, 1, 2, 3), True, 1e-7, 1e-9, ()),
    ("poisson_regression", mf.poisson_regression, _poisson_args, (0, 1, 2), True, 1e-7, 1e-9, ()),
    ("bpr_rows", mf.bpr_total, _bpr_args, (0, 1, 5), True, 1e-7, 1e-9, ()),
]


def _params():
    out = []
    for case in CASES:
        out.append(pytest.param(*case[:7], id=case[0], marks=case[7]))
    return out


@pytest.mark.parametrize("name,fn,make_args,wrt,use_autograd,rtol,atol", _params())
def test_model(name, fn, make_args, wrt, use_autograd, rtol, atol):
    args = make_args()
    snap = snapshot(args)
    expected_value = float(fn(*make_args()))

    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap, f"{name} compiled")
    assert vg.specialize(*args).compiled_ran
    assert float(value) == pytest.approx(expected_value, rel=1e-10, abs=1e-12)

    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    assert_grads_close(tuple(grads), fd, rtol=rtol, atol=atol, label=f"{name} compiled vs FD")
    if use_autograd:
        ag = autograd_grad(fn, args, wrt)
        assert_grads_close(fd, ag, rtol=rtol, atol=atol, label=f"{name} FD vs autograd")
        assert_grads_close(tuple(grads), ag, rtol=1e-9, atol=1e-11,
                           label=f"{name} compiled vs autograd")

    e_value, e_grads = jitad.value_and_grad(fn, wrt=wrt, mode="eager")(*args)
    assert_unchanged(args, snap, f"{name} eager")
    assert float(e_value) == pytest.approx(expected_value, rel=1e-10, abs=1e-12)
    assert_grads_close(tuple(e_grads), fd, rtol=rtol, atol=atol, label=f"{name} eager vs FD")
    assert_grads_close(tuple(grads), tuple(e_grads), rtol=1e-9, atol=1e-11,
                       label=f"{name} compiled vs eager")



# ---------------------------------------------------------------------------
# minimized reproducers
# ---------------------------------------------------------------------------


def _abs_sq(x):
    if x < 0.0:
        x = -x
    return x * x


def param_reassigned_in_if(z):
    return _abs_sq(z) * 1.0


def _double_sq(x):
    x = x * 2.0
    return x * x


def param_reassigned(z):
    return _double_sq(z) * 1.0


def _sin3_sq(x):
    for k in range(3):
        x = math.sin(x)
    return x * x


def param_reassigned_in_for(z):
    return _sin3_sq(z) * 1.0


def _double_sumsq(v):
    v = v * 2.0
    return np.sum(v * v)


def array_param_reassigned(v):
    return _double_sumsq(v) + 0.0


@pytest.mark.parametrize("fn,arg", [
    (param_reassigned_in_if, -0.7),
    (param_reassigned, -0.7),
    (param_reassigned_in_for, -0.7),
    (array_param_reassigned, np.array([-0.3, 0.5, 1.1])),
], ids=["in_if", "straight", "in_for", "array"])
def test_helper_reassigning_its_parameter(fn, arg):
    """Minimized from black_scholes_otm: compiled 1.4 vs -1.4 for param_reassigned_in_if(-0.7),
    -2.8 vs -5.6 for param_reassigned(-0.7); eager, autograd and FD agree with each other."""
    g = jitad.grad(fn, wrt=0)(arg)
    assert jitad.grad(fn, wrt=0).specialize(arg).compiled_ran
    ref = autograd_grad(fn, (arg,), (0,))
    assert_grads_close(central_fd(fn, (arg,), (0,), eps=1e-4, order=4), ref, rtol=1e-7, atol=1e-9)
    assert_grads_close((jitad.grad(fn, wrt=0, mode="eager")(arg),), ref, rtol=1e-9, atol=1e-12)
    assert_grads_close((g,), ref, rtol=1e-9, atol=1e-12, label=fn.__name__)


def _row(A, i):
    return A[i]


def helper_view_then_write(w):
    A = np.zeros((2, 3))
    A[0] = w
    r = _row(A, 0)      # a view of A[0] returned by a helper
    A[0] = w * w        # r sees this write (plain Python: r == w * w)
    return np.sum(r)


def _refused_or_right(fn, args, wrt):
    """A JitadError or the finite-difference gradient: never a silently wrong one."""
    try:
        grads = jitad.grad(fn, wrt=wrt)(*args)
    except jitad.JitadError:
        return "refused"
    assert_grads_close(tuple(grads), central_fd(fn, args, wrt, eps=1e-4, order=4),
                       rtol=1e-6, atol=1e-8, label=fn.__name__)
    return "right"


def test_helper_view_then_write_refused_or_right():
    """At cb97153 the compiled gradient of this was ones(3) instead of 2 w (a helper's returned
    view taken for a copy); refused since 0d04c00, like the same code with r = A[0] inline."""
    _refused_or_right(helper_view_then_write, (np.array([0.3, -0.5, 1.2]),), (0,))


def test_lstm_residual_helper_refused_or_right():
    _refused_or_right(mf.lstm_residual_helper, _lstm_args(), (0, 1, 2))


def tape_after_inner_loop(x, n):
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            A[i, j] = x * (i + j + 1.0)
        A[i, i] = A[i, i] * A[i, i] * x
    s = 0.0
    for k in range(40):
        s = s + math.sin(s + x)
    return np.sum(A) + s


def test_tape_push_after_inner_loop():
    """Minimized from gp_rbf_cholesky: at cb97153 the tape reserve before an inner loop did not
    count the push after it (IndexError under NUMBA_BOUNDSCHECK, a silently wrong gradient
    without it for n = 3, 4, 7); fixed by 96b90d6."""
    vg = jitad.value_and_grad(tape_after_inner_loop, wrt=0)
    for n in range(1, 9):
        value, g = vg(0.7, n)
        assert float(value) == pytest.approx(tape_after_inner_loop(0.7, n), rel=1e-12)
        assert_grads_close((g,), central_fd(tape_after_inner_loop, (0.7, n), (0,), eps=1e-4, order=4),
                           rtol=1e-7, atol=1e-9, label=f"n={n}")
