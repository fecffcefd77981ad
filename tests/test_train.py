"""train_step fuses the optimizer into the compiled adjoint; checked against the gradient
(itself checked against finite differences elsewhere) plus each optimizer's formula in NumPy."""
import re

import numpy as np
import pytest

import jitad
from jitad import optim

from . import train_funcs as tf
from .harness import central_fd


def _reference_update(name, p, g, state, hyper, t=None):
    """One step of each optimizer, written out in NumPy (independent of jitad's rule text).
    `t`: Adam's step count when it is shared by several rows (lazy Adam)."""
    if name == "SGD":
        return p - hyper["lr"] * g
    if name == "Momentum":
        state["v"] = hyper["beta"] * state.get("v", 0.0) + g
        return p - hyper["lr"] * state["v"]
    if name == "Adagrad":
        state["h"] = state.get("h", 0.0) + g * g
        return p - hyper["lr"] * g / (np.sqrt(state["h"]) + hyper["eps"])
    if name == "Adam":
        b1, b2 = hyper["beta1"], hyper["beta2"]
        state["t"] = state.get("t", 0) + 1 if t is None else t
        state["m"] = b1 * state.get("m", 0.0) + (1 - b1) * g
        state["v"] = b2 * state.get("v", 0.0) + (1 - b2) * g * g
        mhat = state["m"] / (1 - b1 ** state["t"])
        vhat = state["v"] / (1 - b2 ** state["t"])
        return p - hyper["lr"] * mhat / (np.sqrt(vhat) + hyper["eps"])
    raise KeyError(name)


OPTS = [optim.SGD(lr=0.1), optim.Momentum(lr=0.1, beta=0.8), optim.Adagrad(lr=0.2),
        optim.Adam(lr=0.05)]


@pytest.mark.parametrize("opt", OPTS, ids=lambda o: type(o).__name__)
def test_sparse_rows_update_matches_gradient_plus_formula(opt):
    rng = np.random.default_rng(1)
    U = rng.normal(size=(5, 4))
    V = rng.normal(size=(6, 4))
    step = jitad.train_step(tf.bpr, wrt=("U", "V"), optimizer=opt)
    state = step.init(U, V)
    Ur, Vr = U.copy(), V.copy()
    sU, sV = {}, {}
    # a repeated row (i == j) and ordinary samples; rows never read must stay untouched
    for (u, i, j) in [(1, 2, 3), (1, 4, 4), (0, 2, 5), (1, 2, 3)]:
        gU = np.zeros_like(Ur)
        gV = np.zeros_like(Vr)
        fd = central_fd(tf.bpr, (Ur, Vr, u, i, j), (0, 1), eps=1e-5, order=4)
        g = jitad.grad(tf.bpr, wrt=(0, 1))(Ur, Vr, u, i, j)
        np.testing.assert_allclose(g[0], fd[0], atol=1e-8)
        np.testing.assert_allclose(g[1], fd[1], atol=1e-8)
        gU, gV = g
        loss_ref = tf.bpr(Ur, Vr, u, i, j)
        # lazy (row-wise) state: only the touched rows advance
        for P_, G, S in ((Ur, gU, sU), (Vr, gV, sV)):
            S["step"] = S.get("step", 0) + 1   # one optimizer step per parameter per sample
            for r in sorted({u} if P_ is Ur else {i, j}):
                st = S.setdefault(r, {})
                P_[r] = _reference_update(type(opt).__name__, P_[r], G[r], st, opt.hyper, S["step"])
        loss = step(U, V, u, i, j, state)
        assert loss == pytest.approx(loss_ref, rel=1e-12)
        np.testing.assert_allclose(U, Ur, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(V, Vr, rtol=1e-10, atol=1e-12)
    assert step.last.compiled_ran or step.last.backend == "numba"
    src = step.source()
    # no per-call buffer: the row adjoints are scalars inside one loop over the row
    assert "np.zeros_like" not in src
    assert src.count("for ") == 1, src
    assert "update of the rows of V the loss read: [i], [j]" in src


def _check_rows_against_fd(fn, wrt, opt, params, samples, rows_of):
    """Per sample: finite-difference gradient, then `opt`'s NumPy formula on each row the
    loss read (each distinct row once), against the compiled step."""
    step = jitad.train_step(fn, wrt=wrt, optimizer=opt)
    live = [p.copy() for p in params]
    state = step.init(*live)
    refs = [p.copy() for p in params]
    slots = [{} for _ in params]
    for sample in samples:
        fd = central_fd(fn, (*refs, *sample), tuple(range(len(refs))), eps=1e-5, order=4)
        loss_ref = fn(*refs, *sample)
        for k, (P_, G, S) in enumerate(zip(refs, fd, slots)):
            S["step"] = S.get("step", 0) + 1
            for r in sorted(rows_of(k, sample)):
                P_[r] = _reference_update(type(opt).__name__, P_[r], G[r], S.setdefault(r, {}),
                                          opt.hyper, S["step"])
        assert step(*live, *sample, state) == pytest.approx(loss_ref, rel=1e-9)
        for a, b in zip(live, refs):
            np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    comp = step.last   # the compiled step ran, not a Python fallback
    assert comp.backend == "numba" and len(comp.fn(comp.gen.step).signatures) == 1
    return step


@pytest.mark.parametrize("opt", [optim.SGD(lr=0.1), optim.Adagrad(lr=0.2)], ids=lambda o: type(o).__name__)
def test_three_reads_of_one_table_merge_coinciding_rows(opt):
    rng = np.random.default_rng(3)
    U, V = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    samples = [(0, 1, 2, 3), (0, 1, 1, 1), (1, 2, 3, 2), (2, 4, 1, 4), (0, 3, 3, 0), (1, 2, 4, 3)]
    step = _check_rows_against_fd(tf.triplet, ("U", "V"), opt, (U, V), samples,
                                  lambda k, s: {s[0]} if k == 0 else set(s[1:]))
    src = step.source()
    # V[i]'s adjoint lives only in the loop that updates V's rows: a scalar there
    assert "d_V_at = np.zeros_like" not in src and re.search(r"d_V_at = \w+ \* U_at\[k\]", src), src
    assert "V_same_2_1 = l == j" in src


def test_rows_of_different_lengths_are_not_merged():
    rng = np.random.default_rng(4)
    U, W = rng.normal(size=(3, 4)), rng.normal(size=(4, 3))
    samples = [(0, 1), (2, 3), (2, 1)]
    step = _check_rows_against_fd(tf.two_lengths, ("U", "W"), optim.SGD(lr=0.1), (U, W), samples,
                                  lambda k, s: {s[k]})
    src = step.source()
    # U's row loops merge into one and W's into another; never one loop over both
    assert not any("U[u, " in line and "W[w, " in line for line in src.splitlines())


@pytest.mark.parametrize("opt", OPTS, ids=lambda o: type(o).__name__)
def test_dense_update_matches_gradient_plus_formula(opt):
    rng = np.random.default_rng(2)
    W1, b1, W2 = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2))
    X, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    step = jitad.train_step(tf.mlp_batch, wrt=(0, 1, 2), optimizer=opt)
    params = [W1.copy(), b1.copy(), W2.copy()]
    ref = [W1.copy(), b1.copy(), W2.copy()]
    states = [{}, {}, {}]
    state = step.init(*params)
    for _ in range(3):
        g = jitad.grad(tf.mlp_batch, wrt=(0, 1, 2))(*ref, X, y)
        fd = central_fd(tf.mlp_batch, (*ref, X, y), (0, 1, 2), eps=1e-5, order=4)
        for a, b in zip(g, fd):
            np.testing.assert_allclose(a, b, atol=1e-8)
        loss_ref = tf.mlp_batch(*ref, X, y)
        ref = [_reference_update(type(opt).__name__, p, gi, st, opt.hyper)
               for p, gi, st in zip(ref, g, states)]
        loss = step(*params, X, y, state)
        assert loss == pytest.approx(loss_ref, rel=1e-12)
        for p, r in zip(params, ref):
            np.testing.assert_allclose(p, r, rtol=1e-10, atol=1e-12)


def test_fit_trains_bpr_with_one_and_two_threads():
    rng = np.random.default_rng(3)
    n_users, n_items, n = 50, 80, 4000
    users = rng.integers(0, n_users, n)
    pos = (users * 7 + rng.integers(0, 3, n)) % n_items      # a learnable structure
    neg = rng.integers(0, n_items, n)
    for threads in (1, 2):
        U = rng.normal(scale=0.1, size=(n_users, 8))
        V = rng.normal(scale=0.1, size=(n_items, 8))
        step = jitad.train_step(tf.bpr, wrt=("U", "V"), optimizer=optim.Adagrad(lr=0.1))
        seen = []
        hist = jitad.fit(step, (U, V), data=(users, pos, neg), epochs=4, threads=threads,
                         progress=False, callbacks=[lambda ep, loss, h: seen.append(ep)])
        assert seen == [0, 1, 2, 3]
        assert len(hist.loss) == 4 and hist.loss[-1] < 0.8 * hist.loss[0]
        assert all(s > 0 for s in hist.samples_per_second)


def test_custom_optimizer_plugin():
    @optim.register
    class SignSGD(optim.Optimizer):
        name = "signsgd"
        defaults = {"lr": 0.01}
        update = "p = p - lr * np.sign(g)"

    rng = np.random.default_rng(4)
    w, b = rng.normal(size=3), np.zeros(1)
    x, y = rng.normal(size=3), 0.7
    g = jitad.grad(tf.linreg, wrt=(0, 1))(w, b, x, y)
    step = jitad.train_step(tf.linreg, wrt=(0, 1), optimizer="signsgd")
    w2, b2 = w.copy(), b.copy()
    step(w2, b2, x, y, step.init(w2, b2))
    np.testing.assert_allclose(w2, w - 0.01 * np.sign(g[0]))
    np.testing.assert_allclose(b2, b - 0.01 * np.sign(g[1]))
    assert "signsgd" in optim.available()


def test_scalar_parameter_is_refused():
    step = jitad.train_step(tf.scalar_param, wrt=0, optimizer="sgd")
    with pytest.raises(jitad.JitadError, match="float array"):
        step(0.5, 2.0, step.init(0.5))


def _dict_loss(w, x):
    return {"l": np.sum((x @ w) ** 2)}


def test_a_loss_returned_in_a_dict_is_refused_at_its_return():
    """One number in a dict is still a structure (JAX's grad refuses it too): the step refuses
    it at the return line instead of taking the dict's one leaf as the loss."""
    step = jitad.train_step(_dict_loss, wrt=0)
    w = np.ones(3)
    with pytest.raises(jitad.JitadError, match="not a nested tuple or a dict") as e:
        step(w, np.ones((4, 3)), step.init(w))
    assert 'return {"l"' in str(e.value) and "test_train.py" in str(e.value)


def test_step_is_callable_from_user_njit_code_and_source_shows_the_update():
    import numba
    rng = np.random.default_rng(5)
    U, V = rng.normal(scale=0.1, size=(30, 4)), rng.normal(scale=0.1, size=(40, 4))
    users, pos, neg = rng.integers(0, 30, 500), rng.integers(0, 40, 500), rng.integers(0, 40, 500)
    step = jitad.train_step(tf.bpr, wrt=("U", "V"), optimizer=optim.Adagrad(lr=0.1))
    state = step.init(U, V)
    kernel = step.compiled(U, V, 0, 1, 2)

    @numba.njit
    def epoch(U, V, users, pos, neg, hU, hV):
        total = 0.0
        for s in range(users.shape[0]):
            total += kernel(U, V, users[s], pos[s], neg[s], hU, hV)
        return total

    U2, V2, state2 = U.copy(), V.copy(), step.init(U, V)
    first = epoch(U, V, users, pos, neg, *state.arrays)
    # the same samples through the Python-level step give the same parameters
    for s in range(500):
        step(U2, V2, users[s], pos[s], neg[s], state2)
    np.testing.assert_allclose(U, U2, rtol=1e-12)
    np.testing.assert_allclose(V, V2, rtol=1e-12)
    assert epoch(U, V, users, pos, neg, *state.arrays) < first
    src = jitad.source(step, "adjoint")
    assert src.startswith("def bpr_step(U, V, u, i, j, U_sum_sq, V_sum_sq):")
    assert "Adagrad update of the rows of U the loss read: [u]" in src


def test_fit_accumulates_gradients_before_one_update():
    """accumulate=k: the optimizer sees the sum of k mini-batch gradients (checked against
    jitad.grad, itself checked against finite differences above, and SGD's formula)."""
    rng = np.random.default_rng(6)
    W1, b1, W2 = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2))
    X, y = rng.normal(size=(20, 3)), rng.normal(size=(20, 2))
    step = jitad.train_step(tf.mlp_batch, wrt=(0, 1, 2), optimizer=optim.SGD(lr=0.05))
    params = [W1.copy(), b1.copy(), W2.copy()]
    hist = jitad.fit(step, params, data=(X, y), epochs=1, batch_size=4, accumulate=3,
                     shuffle=False, progress=False)
    ref = [W1.copy(), b1.copy(), W2.copy()]
    for group in ([0, 1, 2], [3, 4]):          # 5 batches: one update of 3, one of the last 2
        total = [np.zeros_like(p) for p in ref]
        for b in group:
            g = jitad.grad(tf.mlp_batch, wrt=(0, 1, 2))(*ref, X[4 * b:4 * b + 4], y[4 * b:4 * b + 4])
            total = [t + gi for t, gi in zip(total, g)]
        ref = [p - 0.05 * t for p, t in zip(ref, total)]
    for p, r in zip(params, ref):
        np.testing.assert_allclose(p, r, rtol=1e-12, atol=1e-14)
    assert len(hist.loss) == 1
    # with two threads the same code runs (Hogwild over accumulated updates)
    jitad.fit(step, params, data=(X, y), epochs=2, batch_size=4, accumulate=2, threads=2,
              progress=False)
    # on threads, a model with dense parameters accumulates by default
    jitad.fit(step, params, data=(X, y), epochs=1, batch_size=4, threads=2, progress=False)
    assert (2, 4, jitad.train.DENSE_THREADS_ACCUMULATE) in step.last.epochs
    assert all(np.all(np.isfinite(p)) for p in params)


@pytest.mark.parametrize("opt", [optim.SGD(lr=0.1), optim.Adagrad(lr=0.2)], ids=lambda o: type(o).__name__)
def test_fit_accumulates_row_sparse_gradients_in_rows_only(opt):
    """accumulate=k with row-sparse tables: the optimizer sees, once per k samples, the
    summed gradient of each row those samples read (finite differences), and no other row."""
    rng = np.random.default_rng(8)
    U, V = rng.normal(size=(4, 3)), rng.normal(size=(6, 3))
    users, pos, neg = rng.integers(0, 4, 7), rng.integers(0, 6, 7), rng.integers(0, 6, 7)
    neg[2] = pos[2]                      # a sample reading one row twice
    step = jitad.train_step(tf.bpr, wrt=("U", "V"), optimizer=opt)
    live = [U.copy(), V.copy()]
    jitad.fit(step, live, data=(users, pos, neg), epochs=1, accumulate=3, shuffle=False, progress=False)
    refs, slots = [U.copy(), V.copy()], [{}, {}]
    for group in (range(0, 3), range(3, 6), range(6, 7)):
        total = [np.zeros_like(r) for r in refs]
        touched = [set(), set()]
        for s in group:
            g = central_fd(tf.bpr, (*refs, users[s], pos[s], neg[s]), (0, 1), eps=1e-5, order=4)
            total = [t + gi for t, gi in zip(total, g)]
            touched[0].add(users[s])
            touched[1] |= {pos[s], neg[s]}
        for P_, G, S, rows in zip(refs, total, slots, touched):
            for r in sorted(rows):
                P_[r] = _reference_update(type(opt).__name__, P_[r], G[r], S.setdefault(r, {}), opt.hyper)
    for a, b in zip(live, refs):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    comp = step.last
    # the compiled epoch ran (it calls f_accumulate and f_apply; loaded from Numba's disk cache
    # the callees' own dispatchers stay unused, so ask the epoch loop)
    epoch_fn, epoch_gen = comp.epochs[(3, None, 3)]
    assert len(epoch_fn.signatures) == 1 and "accumulate(param0, param1, data0[k]" in epoch_gen.source
    acc_src = comp.gen.functions[comp.gen.accumulate]
    assert "np.zeros_like" not in acc_src and "acc_V[j, k] = acc_V[j, k] + d_V_at_1" in acc_src
    # two threads, each with its own buffers, run the same code (Hogwild over accumulated rows)
    jitad.fit(step, live, data=(users, pos, neg), epochs=2, accumulate=2, threads=2, progress=False)
    assert np.all(np.isfinite(live[0])) and np.all(np.isfinite(live[1]))
    # only row-sparse tables: threads update per sample by default
    jitad.fit(step, live, data=(users, pos, neg), epochs=1, threads=2, progress=False)
    assert (3, None, 1) in comp.epochs


@pytest.mark.parametrize("accumulate", [1, 2])
def test_a_loss_that_rebinds_a_parameter_trains_the_given_array(accumulate):
    rng = np.random.default_rng(3)
    W0, X, Y = rng.normal(scale=0.3, size=(3, 3)), rng.normal(size=(6, 3)), rng.normal(size=6)
    step = jitad.train_step(tf.rebinds_its_weights, wrt=0, optimizer=optim.SGD(lr=0.1))
    W = W0.copy()
    jitad.fit(step, (W,), (X, Y), epochs=1, shuffle=False, accumulate=accumulate, progress=False)
    Wr = W0.copy()
    for k in range(0, 6, accumulate):
        G = sum(central_fd(tf.rebinds_its_weights, (Wr, X[j], Y[j]), (0,))[0]
                for j in range(k, k + accumulate))
        Wr = Wr - 0.1 * G
    np.testing.assert_allclose(W, Wr, atol=1e-7)
