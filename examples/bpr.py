"""BPR matrix factorisation (Rendle et al.), trained one sample at a time like wyrm does:
the per-sample loss is a plain function, `jitad.train_step` fuses Adagrad into its compiled
adjoint updating only the three rows it read, and `jitad.fit` runs each epoch in Numba.

    python examples/bpr.py                       # MovieLens-100K-shaped synthetic data
    python examples/bpr.py --movielens ml-100k/  # a real u.data (u1.base/u1.test if present)

Prints, per epoch, the held-out AUC (a held-out positive item ranked above a random item)
and the milliseconds the epoch took.
"""
import argparse
import math
import os
import time

import numpy as np

import jitad

N_USERS, N_ITEMS, N_RATINGS = 943, 1682, 100_000


def bpr_loss(U, V, u, i, j):
    """-log sigmoid(<U[u], V[i]> - <U[u], V[j]>) + L2 on the three rows it reads."""
    pu = U[u]
    qi = V[i]
    qj = V[j]
    x = np.dot(pu, qi) - np.dot(pu, qj)
    reg = 0.005 * (np.dot(pu, pu) + np.dot(qi, qi) + np.dot(qj, qj))
    return math.log1p(math.exp(-x)) + reg


def synthetic(seed=0, n_users=N_USERS, n_items=N_ITEMS, n=N_RATINGS, k_true=8):
    """Implicit feedback of MovieLens-100K's shape: long-tailed item popularity (Zipf-like)
    times a low-rank user/item affinity; every user has at least 20 interactions."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.8
    rng.shuffle(popularity)
    A = rng.normal(size=(n_users, k_true))
    B = rng.normal(size=(n_items, k_true))
    per_user = 20 + rng.multinomial(n - 20 * n_users, np.ones(n_users) / n_users)
    users, items = [], []
    for u in range(n_users):
        logits = A[u] @ B.T / math.sqrt(k_true) * 1.5 + np.log(popularity)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        chosen = rng.choice(n_items, size=min(per_user[u], n_items), replace=False, p=p)
        users.append(np.full(len(chosen), u))
        items.append(chosen)
    return np.concatenate(users), np.concatenate(items)


def leave_one_out(users, items, seed=0):
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(users))
    test_mask = np.zeros(len(users), bool)
    seen = set()
    for k in order:
        if users[k] not in seen:
            seen.add(users[k])
            test_mask[k] = True
    return (users[~test_mask], items[~test_mask]), (users[test_mask], items[test_mask])


def read_movielens(path):
    def read(f):
        d = np.loadtxt(f, dtype=np.int64)
        return d[:, 0] - 1, d[:, 1] - 1
    base, test = os.path.join(path, "u1.base"), os.path.join(path, "u1.test")
    if os.path.exists(base) and os.path.exists(test):
        return read(base), read(test)
    users, items = read(os.path.join(path, "u.data") if os.path.isdir(path) else path)
    return leave_one_out(users, items)


def auc(U, V, test_users, test_items, n_neg=50, seed=1):
    rng = np.random.default_rng(seed)
    neg = rng.integers(0, V.shape[0], size=(len(test_users), n_neg))
    pos_score = np.einsum("nk,nk->n", U[test_users], V[test_items])
    neg_score = np.einsum("nk,nmk->nm", U[test_users], V[neg])
    return float(np.mean(pos_score[:, None] > neg_score))


def train(train_data, test_data, n_users, n_items, k=32, epochs=10, lr=0.05, threads=1, seed=0,
          verbose=True):
    rng = np.random.default_rng(seed)
    U = rng.normal(scale=0.1, size=(n_users, k))
    V = rng.normal(scale=0.1, size=(n_items, k))
    users, pos = train_data
    step = jitad.train_step(bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=lr))
    state = step.init(U, V)
    history = []
    for ep in range(epochs):
        neg = rng.integers(0, n_items, size=len(users))      # fresh negatives every epoch
        t0 = time.perf_counter()
        hist = jitad.fit(step, (U, V), data=(users, pos, neg), epochs=1, state=state,
                         threads=threads, seed=seed + ep, progress=False)
        ms = (time.perf_counter() - t0) * 1e3
        score = auc(U, V, *test_data)
        history.append((hist.loss[-1], score, ms))
        if verbose:
            print(f"epoch {ep + 1:2d}: loss {hist.loss[-1]:.4f}  held-out AUC {score:.4f}  "
                  f"{ms:7.1f} ms/epoch ({len(users) / ms * 1e3:,.0f} samples/s)")
    return U, V, history, step


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--movielens", help="path to ml-100k/ (or a u.data file)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--dim", type=int, default=32)
    args = ap.parse_args(argv)
    if args.movielens:
        train_data, test_data = read_movielens(args.movielens)
        n_users = int(max(train_data[0].max(), test_data[0].max())) + 1
        n_items = int(max(train_data[1].max(), test_data[1].max())) + 1
    else:
        train_data, test_data = leave_one_out(*synthetic())
        n_users, n_items = N_USERS, N_ITEMS
    print(f"{len(train_data[0]):,} training interactions, {len(test_data[0]):,} held out; "
          f"{n_users} users x {n_items} items, k={args.dim}, {args.threads} thread(s)")
    U, V, history, step = train(train_data, test_data, n_users, n_items, k=args.dim,
                                epochs=args.epochs, threads=args.threads)
    print("\nThe compiled step (first epoch includes compiling it):")
    print(step.source())


if __name__ == "__main__":
    main()
