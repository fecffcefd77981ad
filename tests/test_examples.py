"""The examples run, learn, and agree with independent references."""
import os
import sys

import numpy as np
import pytest

import jitad

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

import bpr  # noqa: E402
import gated_network  # noqa: E402
import guess_next_number  # noqa: E402
import hierarchical_classifier as hc  # noqa: E402


def test_guess_next_number_matches_numpy_sgd():
    weights, bias, loss, _ = guess_next_number.train()
    w, b = np.zeros(3), 0.0
    for _ in range(500):
        for q, a in zip(guess_next_number.QUESTIONS, guess_next_number.ANSWERS):
            e = q @ w + b - a                    # d/dw (e^2) = 2 e q, d/db = 2 e
            w, b = w - 0.0007 * 2 * e * q, b - 0.0007 * 2 * e
    np.testing.assert_allclose(weights, w, rtol=1e-9)
    assert bias[0] == pytest.approx(b, rel=1e-9)
    assert loss < 0.2


def test_bpr_learns_on_small_synthetic_data():
    users, items = bpr.synthetic(n_users=120, n_items=200, n=6000)
    train, test = bpr.leave_one_out(users, items)
    U, V, history, step = bpr.train(train, test, 120, 200, k=16, epochs=6, lr=0.2, verbose=False)
    aucs = [h[1] for h in history]
    assert aucs[-1] > max(0.57, aucs[0] + 0.08) and history[-1][0] < history[0][0]
    assert "update of the rows of V the loss read: [i], [j]" in step.source()


def test_gated_network_trains_and_shows_the_bang():
    params, hist, X = gated_network.train(epochs=3, n=1500, verbose=False)
    assert hist.loss[-1] < hist.loss[0]
    mon = jitad.source(gated_network.gated_loss, "monadic")
    assert "<- !(gt(" in mon and "if !cond_gt then do" in mon


def test_hierarchical_skipping_equals_running_all_fine_classifiers():
    """The skipping network and the run-everything network have the same loss and gradient;
    the gradient of a few weights is checked against central finite differences."""
    X, coarse, fine = hc.make_data(1)
    params = hc.init(2)
    args = (*params, X, coarse, fine)
    v1, g1 = jitad.value_and_grad(hc.skipping_loss, wrt=tuple(range(8)))(*args)
    v2, g2 = jitad.value_and_grad(hc.all_fine_loss, wrt=tuple(range(8)))(*args)
    assert v1 == pytest.approx(v2, rel=1e-12)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    c = coarse[0]
    assert np.all(g1[6][np.arange(hc.COARSE) != c] == 0.0)      # other fine classifiers: zero
    rng = np.random.default_rng(0)
    for p in (0, 2, 4, 6, 7):
        for _ in range(3):
            idx = tuple(rng.integers(0, s) for s in params[p].shape)
            if p in (6, 7):
                idx = (c,) + idx[1:]
            old = params[p][idx]
            params[p][idx] = old + 1e-5
            up = hc.skipping_loss(*params, X, coarse, fine)
            params[p][idx] = old - 1e-5
            down = hc.skipping_loss(*params, X, coarse, fine)
            params[p][idx] = old
            assert g1[p][idx] == pytest.approx((up - down) / 2e-5, rel=1e-5, abs=1e-8)


def test_hierarchical_example_trains():
    X, coarse, fine = hc.make_data(16)
    params = hc.init(1)
    step = hc.make_step()
    hist = jitad.fit(step, params, data=(X, coarse, fine), epochs=3, batch_size=hc.BATCH,
                     progress=False)
    assert hist.loss[-1] < hist.loss[0]
    assert "update of the rows of Wf the loss read: [c]" in step.source()
