"""The gated network of the DeepLearning.scala paper: a gate's scores pick which of two
sub-networks runs for each sample — an ordinary Python `if` on data — and the whole thing is
trained end to end (the gate through the probability it gives the expert it picked).

    python examples/gated_network.py

The data has two regimes told apart by the sign of x[0]. Prints the training loss per epoch,
how often the gate routes each regime to expert 1 (with a hard top-1 gate trained only through
its probability, the experts and the gate share the work rather than split it cleanly), and
the monadic form, where the gate's scores are extracted with `!` to decide the branch.
"""
import numpy as np

import jitad


def gated_loss(G, W1, v1, W2, v2, x, y):
    scores = x @ G                                          # the gate: one score per expert
    p = 1.0 / (1.0 + np.exp(scores[1] - scores[0]))         # its probability for expert 1
    if scores[0] > scores[1]:                               # a data-dependent branch
        h = np.tanh(x @ W1)
        out = p * np.dot(h, v1)
    else:
        h = np.tanh(x @ W2)
        out = (1.0 - p) * np.dot(h, v2)
    return (out - y) ** 2


def make_data(n=4000, d=4, seed=0):
    """Two regimes: x[0] > 0 follows a sine, x[0] <= 0 a product."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] > 0.0, np.sin(2.0 * X[:, 1]), X[:, 2] * X[:, 3])
    return X, y


def init(d=4, hidden=16, seed=1):
    rng = np.random.default_rng(seed)
    return (rng.normal(scale=0.1, size=(d, 2)),
            rng.normal(scale=0.5, size=(d, hidden)), rng.normal(scale=0.1, size=hidden),
            rng.normal(scale=0.5, size=(d, hidden)), rng.normal(scale=0.1, size=hidden))


def routing(G, X):
    scores = X @ G
    expert1 = scores[:, 0] > scores[:, 1]
    pos = X[:, 0] > 0
    return expert1[pos].mean(), expert1[~pos].mean()


def train(epochs=20, n=4000, verbose=True):
    X, y = make_data(n)
    params = init()
    step = jitad.train_step(gated_loss, wrt=(0, 1, 2, 3, 4), optimizer=jitad.optim.Adam(lr=0.005))
    hist = jitad.fit(step, params, data=(X, y), epochs=epochs, progress=False,
                     callbacks=[lambda ep, loss, h: verbose and print(f"epoch {ep + 1:2d}: loss {loss:.4f}")])
    return params, hist, X


def main():
    params, hist, X = train()
    a, b = routing(params[0], X)
    print(f"gate sends x[0] > 0 to expert 1 for {a:.0%} of samples, x[0] <= 0 for {b:.0%}")
    print(f"loss: first epoch {hist.loss[0]:.4f}, last epoch {hist.loss[-1]:.4f}")
    print("\nThe monadic form (`!` extracts the gate's scores for the `if`):")
    print(jitad.source(gated_loss, "monadic"))


if __name__ == "__main__":
    main()
