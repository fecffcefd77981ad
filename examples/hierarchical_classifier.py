"""The benchmark network of the DeepLearning.scala paper: `columns` parallel columns of two
dense + ReLU layers are summed, a 20-way coarse classifier reads the sum, and of the 20 fine
5-way classifiers only the one for the mini-batch's coarse class runs — an ordinary index
into an array of weights, so jitad's train_step updates only that classifier's rows.

    python examples/hierarchical_classifier.py            # train a little, print accuracy
    python examples/hierarchical_classifier.py --table    # the paper's two tables

Data: synthetic CIFAR-100-shaped samples (3072 features, 20 coarse x 5 fine classes, a
class-dependent mean plus noise), grouped so each mini-batch of 16 shares its coarse class.
`--table` reports mini-batches/s for columns in {1, 2, 4} x threads in {1, 2}, with and
without skipping the 19 unused fine classifiers (without: all 20 run, the chosen one is used).
"""
import argparse
import os

# The tables compare fit's threads, so BLAS itself stays at one thread (fit with threads > 1
# sets that itself; this makes the 1-thread rows comparable).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import jitad  # noqa: E402

FEATURES, HIDDEN, COARSE, FINE, BATCH = 3072, 64, 20, 5, 16


def softmax_xent(z, labels):
    """Mean cross-entropy of the rows of z against integer labels (numerically stable)."""
    m = np.max(z, axis=1)
    e = np.exp(z - m.reshape(-1, 1))
    lse = np.log(np.sum(e, axis=1)) + m
    total = 0.0
    for r in range(z.shape[0]):
        total = total + lse[r] - z[r, labels[r]]
    return total / z.shape[0]


def columns_sum(W1, b1, W2, b2, X):
    h = np.zeros((X.shape[0], W2.shape[2]))
    for k in range(W1.shape[0]):
        a = np.maximum(X @ W1[k] + b1[k], 0.0)
        h = h + np.maximum(a @ W2[k] + b2[k], 0.0)
    return h


def skipping_loss(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    h = columns_sum(W1, b1, W2, b2, X)
    c = coarse[0]                                  # the mini-batch's coarse class
    zf = h @ Wf[c] + bf[c]                         # only that fine classifier runs
    return softmax_xent(h @ Wc + bc, coarse) + softmax_xent(zf, fine)


def all_fine_loss(W1, b1, W2, b2, Wc, bc, Wf, bf, X, coarse, fine):
    h = columns_sum(W1, b1, W2, b2, X)
    c = coarse[0]
    zf = np.zeros((X.shape[0], Wf.shape[2]))
    for k in range(Wf.shape[0]):                   # every fine classifier runs ...
        zk = h @ Wf[k] + bf[k]
        if k == c:                                 # ... and the batch's one is used
            zf = zk
    return softmax_xent(h @ Wc + bc, coarse) + softmax_xent(zf, fine)


def make_data(batches=64, seed=0):
    """Each mini-batch: one coarse class, fine labels within it, features = class mean + noise
    (the class means are the same for every seed: one task, different samples)."""
    means = np.random.default_rng(12345).normal(scale=0.3, size=(COARSE * FINE, FEATURES))
    rng = np.random.default_rng(seed)
    coarse = np.repeat(rng.integers(0, COARSE, batches), BATCH)
    fine = rng.integers(0, FINE, batches * BATCH)
    X = means[coarse * FINE + fine] + rng.normal(size=(batches * BATCH, FEATURES))
    return X, coarse, fine


def init(columns, seed=1):
    rng = np.random.default_rng(seed)
    s1, s2, s3 = (2.0 / FEATURES) ** 0.5, (2.0 / HIDDEN) ** 0.5, (1.0 / HIDDEN) ** 0.5
    return [rng.normal(scale=s1, size=(columns, FEATURES, HIDDEN)), np.zeros((columns, HIDDEN)),
            rng.normal(scale=s2, size=(columns, HIDDEN, HIDDEN)), np.zeros((columns, HIDDEN)),
            rng.normal(scale=s3, size=(HIDDEN, COARSE)), np.zeros(COARSE),
            rng.normal(scale=s3, size=(COARSE, HIDDEN, FINE)), np.zeros((COARSE, FINE))]


def accuracy(params, X, coarse, fine):
    W1, b1, W2, b2, Wc, bc, Wf, bf = params
    h = np.zeros((X.shape[0], HIDDEN))
    for k in range(W1.shape[0]):
        h += np.maximum(np.maximum(X @ W1[k] + b1[k], 0.0) @ W2[k] + b2[k], 0.0)
    pc = np.argmax(h @ Wc + bc, axis=1)
    pf = np.array([np.argmax(h[r] @ Wf[coarse[r]] + bf[coarse[r]]) for r in range(len(X))])
    return float(np.mean(pc == coarse)), float(np.mean(pf == fine))


def make_step(skip=True, lr=0.01):
    return jitad.train_step(skipping_loss if skip else all_fine_loss, wrt=tuple(range(8)),
                            optimizer=jitad.optim.SGD(lr=lr))


def batches_per_second(columns, threads, skip, batches=32, epochs=2):
    X, coarse, fine = make_data(batches)
    params = init(columns)
    step = make_step(skip)
    jitad.fit(step, params, data=(X, coarse, fine), epochs=1, batch_size=BATCH, progress=False,
              threads=threads)                      # compile and warm up
    hist = jitad.fit(step, params, data=(X, coarse, fine), epochs=epochs, batch_size=BATCH,
                     progress=False, threads=threads)
    return batches / float(np.median(hist.seconds))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", action="store_true", help="the paper's two tables")
    ap.add_argument("--columns", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=5)
    args = ap.parse_args(argv)
    if args.table:
        print("mini-batches/s (batch 16, 3072 features; median of 2 epochs of 32 mini-batches)")
        print(f"{'columns':>8} {'threads':>8} {'skip 19 fine':>14} {'run all 20':>12}")
        for columns in (1, 2, 4):
            for threads in (1, 2):
                a = batches_per_second(columns, threads, True)
                b = batches_per_second(columns, threads, False)
                print(f"{columns:>8} {threads:>8} {a:>14.1f} {b:>12.1f}")
        return
    X, coarse, fine = make_data(64)
    Xt, ct, ft = make_data(16, seed=2)
    params = init(args.columns)
    step = make_step()
    hist = jitad.fit(step, params, data=(X, coarse, fine), epochs=args.epochs, batch_size=BATCH,
                     progress=False)
    for ep, (loss, sec) in enumerate(zip(hist.loss, hist.seconds)):
        print(f"epoch {ep + 1}: loss {loss:.4f}  {len(X) // BATCH / sec:6.1f} mini-batches/s")
    acc_c, acc_f = accuracy(params, Xt, ct, ft)
    print(f"held-out accuracy: coarse {acc_c:.2f}, fine (given the coarse class) {acc_f:.2f}")
    src = step.source()
    print("\nThe fine classifiers' update in the compiled step (only the batch's class):")
    print("\n".join(line for line in src.splitlines() if "Wf" in line and "update" in line))


if __name__ == "__main__":
    main()
