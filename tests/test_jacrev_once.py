"""jacrev runs f's forward sweep once per call and only the adjoint sweep per output element
(`codegen.jacobian`, `Reverse.jacobian_function`), or -- where that sweep cannot run twice on
one forward's state -- falls back to a loop of vjps (`Generated.jacrev_loop` says why).

Every Jacobian is checked against jacfwd (forward mode: other generated code) and central
finite differences of the plain function, compiled by Numba (`compiled_ran`) and, for the
cases whose sweep has state to restore, also run as Python (`backend="python"`: a variable
read before the generated code binds it is an error there, not a stale value). Cases: vector,
matrix and scalar outputs; a `while` loop with a data-dependent trip count (scalar tapes, read
again per row); a branch; helpers cut into forward and backward halves (`g_bwd_keep` reads
their tapes without popping), one called in a loop (its states on a list, read by a counter);
an array reassigned in a loop (a list tape); a recursive helper and a recursive entry; the
bundle-adjustment residual at both branches of its rotation; and the two fallbacks (a list
the function builds and pops back, array elements the sweep restores)."""
import math

import numpy as np
import pytest

import jitad

from .harness import assert_unchanged, snapshot

RNG = np.random.default_rng(7)


def vector_loop(x, W):                 # vector output, a loop writing an array
    h = np.tanh(W @ x)
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = h[i] * x[i] + np.sum(h)
    return y


def settle(x, a):                      # `while` until a threshold: data-dependent trip count
    s = x[0]
    k = 0.0
    while s < 10.0:
        s = s * a + math.sin(s) + 0.1 * x[1]
        k = k + s * x[2]
    return np.array([s, k, s * k, x[1] * k])


def branchy(x, c):
    if np.sum(x) > c:
        y = np.sin(x) * c
    else:
        y = np.cos(x) * x
    return y * 2.0


def smooth(x, w):                      # a helper with a loop: not inlined, cut in two halves
    out = np.zeros(x.shape[0])
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc * w + x[i]
        out[i] = acc * acc
    return out


def with_helpers(x, w):
    a = smooth(x, w)
    b = smooth(a * 0.5, w)
    return a + np.tanh(b)


def layer(h, W):                       # a matrix operand: costly, split in a loop too
    return np.tanh(W @ h)


def deep(x, W):
    h = x
    for t in range(3):
        h = layer(h, W) + 0.1 * h      # its states on a list; h's old values on a list tape
    return h


def tanh_steps(x, W):                  # an array reassigned in a `while` loop
    h = x
    n = 0
    while np.sum(h * h) > 0.05 and n < 20:
        h = np.tanh(W @ h) * 0.8
        n += 1
    return h * x


def power_rec(x, n):
    if n <= 0:
        return x
    return power_rec(np.sin(x) * x, n - 1) + x


def rec_helper(x, w):
    return power_rec(x * w, 3) * 2.0


def rec_entry(x, n):                   # the entry recursive itself (a depth argument)
    if n <= 0:
        return x * 1.0
    return rec_entry(x * x * 0.5 + 0.1, n - 1) + x


def matrix_out(x, w):
    return np.outer(np.tanh(x), w) + x[:, None] * 0.5


def scalar_out(x, w):
    return np.sum(np.tanh(x * w) ** 2)


def listy(x):                          # fallback: the sweep pops the list it built
    hs = []
    h = x
    for t in range(3):
        h = np.tanh(h * 1.5)
        hs.append(h)
    return np.stack(hs).ravel()


def fd_jacobian(f, args, i, h=1e-6):
    """d f / d args[i] by central differences, shaped f(...).shape + args[i].shape."""
    x = np.asarray(args[i], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        up = list(args)
        dn = list(args)
        up[i] = x + e.reshape(x.shape) if x.ndim else float(x) + h
        dn[i] = x - e.reshape(x.shape) if x.ndim else float(x) - h
        cols.append((np.asarray(f(*up), dtype=float) - np.asarray(f(*dn), dtype=float)) / (2 * h))
    y_shape = np.shape(f(*args))
    return np.moveaxis(np.array(cols), 0, -1).reshape(y_shape + x.shape)


x4 = RNG.normal(size=4) * 0.5
W4 = RNG.normal(size=(4, 4)) * 0.4
CASES = [                             # (f, args, wrt, whether the forward runs once)
    (vector_loop, (x4, W4), (0, 1), True),
    (settle, (np.array([1.3, 0.4, -0.7]), 1.4), (0, 1), True),
    (branchy, (x4, 0.3), (0, 1), True),
    (branchy, (x4, -5.0), (0, 1), True),
    (with_helpers, (x4, 0.6), (0, 1), True),
    (deep, (x4, W4), (0, 1), True),
    (tanh_steps, (np.array([0.9, -0.8, 0.7]), np.eye(3) * 1.1), (0, 1), True),
    (rec_helper, (x4, 0.9), (0, 1), True),
    (rec_entry, (x4, 3), 0, True),
    (matrix_out, (x4, np.array([0.5, -1.0, 2.0])), (0, 1), True),
    (scalar_out, (x4, 1.3), (0, 1), True),
    (listy, (x4,), 0, False),
]


def _check(f, args, wrt, once, backend="numba"):
    d = jitad.differentiable(f, backend=backend)
    snap = snapshot(args)
    jr = jitad.jacrev(d, wrt=wrt)
    J = jr(*args)
    assert_unchanged(args, snap, f.__name__)
    comp = jr.specialize(*args)
    gen = comp.gen
    text = gen.functions[gen.jacrev]
    if once:
        assert gen.jacrev_loop == "", gen.jacrev_loop
        assert not gen.grads or gen.grads not in text      # no vjp per row ...
        assert gen.vjp not in text or gen.vjp in gen.depth_args  # (a recursive entry's calls)
        assert "# adjoint" in text
    else:
        assert gen.jacrev_loop != ""
    if backend == "numba":
        assert comp.compiled_ran
    wrts = (wrt,) if isinstance(wrt, int) else wrt
    Js = (J,) if isinstance(wrt, int) else J
    Jf = jitad.jacfwd(d, wrt=wrt)(*args)
    Jf = (Jf,) if isinstance(wrt, int) else Jf
    for i, a, b in zip(wrts, Js, Jf):
        fd = fd_jacobian(f, args, i)
        assert a.shape == fd.shape, (a.shape, fd.shape)
        assert np.allclose(a, b, rtol=1e-10, atol=1e-12), (f.__name__, i, a, b)
        assert np.allclose(a, fd, rtol=1e-5, atol=1e-6), (f.__name__, i, a, fd)
    return gen


@pytest.mark.parametrize("f, args, wrt, once", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_jacrev_forward_once(f, args, wrt, once):
    _check(f, args, wrt, once)


@pytest.mark.parametrize("f, args, wrt, once", [c for c in CASES if c[0] in (
    settle, deep, tanh_steps, with_helpers, rec_entry)], ids=lambda c: getattr(c, "__name__", ""))
def test_jacrev_forward_once_as_python(f, args, wrt, once):
    """The same generated code run by Python: every variable the sweep reads is bound."""
    _check(f, args, wrt, once, backend="python")


def test_restored_array_elements_fall_back():
    """An adjoint sweep that restores elements of an array the forward overwrote cannot run
    twice on one forward: jacrev keeps its loop of vjps, and is right."""
    def overwrite(x):
        y = np.zeros(x.shape[0])
        out = x * 0.0
        for k in range(2):
            for i in range(x.shape[0]):
                y[i] = np.sin(x[i] + y[i])
            out = out + np.cos(y) * y
        return out
    gen = _check(overwrite, (x4,), 0, False)
    assert "restores elements" in gen.jacrev_loop or "writes into" in gen.jacrev_loop


def test_bundle_adjustment_residual():
    """ADBench's reprojection error (2 outputs; wrt camera, point and weight): both branches
    of its rotation (a zero rotation vector takes the other one)."""
    from benchmarks import ba
    cams, X, w, feats, obs = ba.data(3)
    for rot in (None, np.zeros(3)):
        cam = cams[0].copy()
        if rot is not None:
            cam[0:3] = rot
        args = (cam, X[0].copy(), float(w[0]), feats[0].copy())
        gen = _check(ba.reproj_error, args, (0, 1, 2), True)
    assert gen.functions[gen.jacrev].count("# adjoint") >= 1


def test_switch_off(monkeypatch):
    """`JITAD_NO_JACREV_ONCE=1`: the loop of vjps (for measuring against it)."""
    monkeypatch.setenv("JITAD_NO_JACREV_ONCE", "1")

    def fresh(x, c):                   # (a function of its own: no specialization cached)
        return np.sin(x) * c
    gen = _check(fresh, (x4, 0.5), (0, 1), False)
    assert "JITAD_NO_JACREV_ONCE" in gen.jacrev_loop
