"""Workload 13: data-parallel BPR with `jitad.dask.fit` against one process's `jitad.fit`.

MovieLens-1M's shape: 6,040 users, 3,706 items, 1,000,209 ratings as positives (synthetic:
Zipf-like item popularity times a rank-8 user/item affinity, every user with at least 20
items, as examples/bpr.py makes MovieLens-100K's shape), one positive per user held out, a
uniform negative per sample; k = 32, Adagrad (lr 0.05) on the three rows a sample reads, L2
in the loss. Rows: `jitad.fit` in this process (the reference), and `jd.fit` on a
`LocalCluster` of 1, 2 and 4 worker processes (one thread each) with 1, 4 and 16 rounds per
epoch: each worker trains a replica on its half (quarter) of the samples, the replicas are
combined every round, row by row, by jd.fit's default rule ("auto": U and V are read by
index, so every replica's change is added, as one process would apply every sample), or,
rows marked "average", by the sample-weighted average over the replicas that changed each
row (model averaging). The samples are in random order, so every replica writes nearly every
row in every round; rows marked "data by user" hold the same samples sorted by user, so each
replica trains its own users (as when interactions are sharded by user id) and writes only
their rows of U, while V's rows are written by both. Time: the median seconds per epoch after the first (which compiles);
quality: the held-out AUC after the last epoch (50 random items per held-out positive). Per
round, `jd.fit` records its compute (wall and CPU per replica), the parameter bytes moved and
the rest of the round's time (scheduling, serialisation, transfer, averaging); rounds with
almost no compute measure that rest by parameter size (`round_costs`): the numbers
docs/scaling.md fits its model to.
"""
import logging
import math
import os
import time

import numpy as np

import jitad
from benchmarks import common as C

NAME = "dask_bpr"
TITLE = "Data-parallel BPR on MovieLens-1M's shape: jitad.dask.fit on 1, 2, 4 workers vs jitad.fit"
N_USERS, N_ITEMS, N_RATINGS, RANK = 6040, 3706, 1_000_209, 32
LR = 0.05


def bpr_loss(U, V, u, i, j):
    pu = U[u]
    qi = V[i]
    qj = V[j]
    x = np.dot(pu, qi) - np.dot(pu, qj)
    reg = 0.005 * (np.dot(pu, pu) + np.dot(qi, qi) + np.dot(qj, qj))
    return math.log1p(math.exp(-x)) + reg


def step():
    return jitad.train_step(bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=LR))


def synthetic(n_users=N_USERS, n_items=N_ITEMS, n=N_RATINGS, seed=0, k_true=8):
    """(users, items) positives: per user at least 20 distinct items, drawn by popularity
    times a low-rank affinity; then one positive per user held out."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.8
    rng.shuffle(popularity)
    A = rng.normal(size=(n_users, k_true))
    B = rng.normal(size=(n_items, k_true))
    per_user = 20 + rng.multinomial(n - 20 * n_users, np.ones(n_users) / n_users)
    users, items = [], []
    logpop = np.log(popularity)
    for u in range(n_users):
        logits = A[u] @ B.T / math.sqrt(k_true) * 1.5 + logpop
        p = np.exp(logits - logits.max())
        chosen = rng.choice(n_items, size=min(per_user[u], n_items), replace=False, p=p / p.sum())
        users.append(np.full(len(chosen), u))
        items.append(chosen)
    users, items = np.concatenate(users), np.concatenate(items)
    order = rng.permutation(len(users))
    users, items = users[order], items[order]
    first = np.zeros(len(users), bool)
    first[np.unique(users, return_index=True)[1]] = True      # one positive per user held out
    negs = rng.integers(0, n_items, int((~first).sum()))
    return ((users[~first], items[~first], negs), (users[first], items[first]))


def auc(U, V, users, items, n_neg=50, seed=1):
    rng = np.random.default_rng(seed)
    neg = rng.integers(0, V.shape[0], size=(len(users), n_neg))
    pos = np.einsum("nk,nk->n", U[users], V[items])
    other = np.einsum("nk,nmk->nm", U[users], V[neg])
    return float(np.mean(pos[:, None] > other))


def init(n_users, n_items, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 0.1, (n_users, RANK)), rng.normal(0.0, 0.1, (n_items, RANK))


def jitad_first_call():
    U, V = init(4, 4)
    s = step()
    return s(U, V, 0, 1, 2, s.init(U, V))


def cluster(n_workers):
    from dask.distributed import Client, LocalCluster
    c = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                     dashboard_address=None, silence_logs=logging.ERROR)
    return c, Client(c)


def rounds_summary(hist, skip_epochs=1):
    """Medians over the rounds of the epochs after the first: compute (slowest replica, wall
    and CPU), the rest of the round, bytes moved (and received), the client's averaging; the
    last round's rows changed per parameter by every, some and no replica."""
    rs = [r for r in hist.rounds if r.epoch >= skip_epochs] or hist.rounds
    return {"rounds": len(rs), "round_s": float(np.median([r.seconds for r in rs])),
            "compute_s": float(np.median([max(r.compute_seconds.values()) for r in rs])),
            "cpu_s": float(np.median([max(r.cpu_seconds.values()) for r in rs])),
            "cpu_total_s": float(np.median([sum(r.cpu_seconds.values()) for r in rs])),
            "overhead_s": float(np.median([r.overhead_seconds for r in rs])),
            "average_s": float(np.median([r.average_seconds for r in rs])),
            "split_ms": {k: float(np.median([r.split[k] for r in rs if r.split.get(k) is not None]) * 1e3)
                         for k in (rs[-1].split or {})
                         if any(r.split.get(k) is not None for r in rs)},
            "bytes": int(np.median([r.bytes_sent + r.bytes_received for r in rs])),
            "bytes_received": int(np.median([r.bytes_received for r in rs])),
            "rows_changed": [list(x) for x in hist.rounds[-1].rows_changed],
            "first_call_s": max((v or 0.0) for r in hist.rounds for v in r.first_call_seconds.values()) if any(r.first_call_seconds for r in hist.rounds) else None,
            "disk_cache": sorted({str(v) for r in hist.rounds for v in r.disk_cache.values()})}


def probe_rounds(jd, client, s, sizes=(2_000, 20_000, 80_000), rounds=8):
    """Rounds with (almost) no compute: what a round costs beyond it, by parameter size.
    Tables U, V of `rows` x 32 each (`2 * rows * 256` bytes); 4,000 samples."""
    out = []
    rng = np.random.default_rng(2)
    data = tuple(rng.integers(0, 2_000, 4_000) for _ in range(3))
    for rows in sizes:
        U, V = init(rows, rows)
        h = jd.fit(s, (U, V), data=data, epochs=2, rounds_per_epoch=rounds, client=client,
                   progress=False)
        rs = [r for r in h.rounds if r.epoch == 1]
        out.append({"param_bytes": int(U.nbytes + V.nbytes),
                    "bytes": int(np.median([r.bytes_sent + r.bytes_received for r in rs])),
                    "round_s": float(np.median([r.seconds for r in rs])),
                    "overhead_s": float(np.median([r.overhead_seconds for r in rs])),
                    "average_s": float(np.median([r.average_seconds for r in rs])),
                    "serialise_s": h.serialise_seconds})
    return out


def run(ctx):
    try:
        import jitad.dask as jd
    except ImportError as e:
        return {"title": TITLE, "error": f"jitad.dask needs Dask: {e}", "rows": [], "goals": []}
    if ctx.quick:
        (train, test) = synthetic(n_users=600, n_items=400, n=60_000)
        n_users, n_items, epochs = 600, 400, 3
        configs = [(2, 4, "auto", False), (2, 4, "average", False), (2, 4, "auto", True)]
        probes = (2_000,)
    else:
        (train, test) = synthetic()
        n_users, n_items, epochs = N_USERS, N_ITEMS, 10
        configs = [(1, 4, "auto", False), (2, 1, "auto", False), (2, 4, "auto", False),
                   (2, 16, "auto", False), (2, 4, "average", False), (2, 4, "auto", True),
                   (2, 4, "average", True), (4, 4, "auto", False), (4, 4, "average", False)]
        probes = (2_000, 20_000, 80_000)
    n = len(train[0])
    by_user = np.argsort(train[0], kind="stable")
    train_by_user = tuple(d[by_user] for d in train)
    s = step()
    U0, V0 = init(n_users, n_items)
    size = n
    rows, runs, probe = [], {}, {}

    def auc_each_epoch(aucs, U, V):
        return lambda ep, loss, hist: aucs.append(auc(U, V, *test))

    U, V = U0.copy(), V0.copy()
    aucs = []
    t0 = time.perf_counter()
    h = jitad.fit(s, (U, V), data=train, epochs=epochs, progress=False,
                  callbacks=[auc_each_epoch(aucs, U, V)])
    first = time.perf_counter() - t0 - sum(h.seconds[1:])
    ref_auc = aucs[-1]
    rows.append({"system": "jitad.fit, 1 process", "status": C.OK, "reference": True,
                 "version": "", "note": f"held-out AUC {ref_auc:.4f}",
                 "results": {str(size): {"median_s": float(np.median(h.seconds[1:])),
                                         "samples_s": h.seconds[1:], "first_call_s": first}}})
    runs["1 process"] = {"seconds": h.seconds, "auc": ref_auc, "aucs": aucs, "loss": h.loss,
                         "samples": n}
    ctx.log(f"    jitad.fit: {np.median(h.seconds[1:]):.3f} s/epoch, AUC {ref_auc:.4f}")

    by_workers = {}
    for n_workers, R, combine, users in configs:
        by_workers.setdefault(n_workers, []).append((R, combine, users))
    for n_workers, todo in by_workers.items():
        c, client = cluster(n_workers)
        try:
            for R, combine, users in todo:
                name = (f"jd.fit, {n_workers} worker{'s' if n_workers > 1 else ''}, {R} "
                        f"round{'s' if R > 1 else ''}/epoch"
                        + ("" if combine == "auto" else f", {combine}")
                        + (", data by user" if users else ""))
                U, V = U0.copy(), V0.copy()
                aucs = []
                t0 = time.perf_counter()
                h = jd.fit(s, (U, V), data=train_by_user if users else train, epochs=epochs,
                           rounds_per_epoch=R,
                           client=client, seed=0, progress=False, combine=combine,
                           callbacks=[auc_each_epoch(aucs, U, V)])
                total = time.perf_counter() - t0
                a = aucs[-1]
                summ = rounds_summary(h)
                runs[name] = {"workers": n_workers, "rounds_per_epoch": R, "combine": combine,
                              "by_user": users,
                              "seconds": h.seconds, "auc": a, "aucs": aucs, "loss": h.loss,
                              "events": h.events, "setup_s": h.setup_seconds,
                              "serialise_s": h.serialise_seconds,
                              "param_bytes": int(U.nbytes + V.nbytes), "samples": n,
                              "rules": h.combine,
                              "total_s": total, **summ}
                rows.append({"system": name, "status": C.OK, "reference": False, "version": "",
                             "note": f"held-out AUC {a:.4f}; per round: compute "
                                     f"{summ['compute_s'] * 1e3:.1f} ms (CPU "
                                     f"{summ['cpu_s'] * 1e3:.1f} ms), rest "
                                     f"{summ['overhead_s'] * 1e3:.1f} ms, "
                                     f"{summ['bytes'] / 1e6:.1f} MB moved "
                                     f"({summ['bytes_received'] / 1e6:.1f} MB received)",
                             "results": {str(size): {"median_s": float(np.median(h.seconds[1:])),
                                                     "samples_s": h.seconds[1:],
                                                     "first_call_s": h.seconds[0]}}})
                ctx.log(f"    {name}: {np.median(h.seconds[1:]):.3f} s/epoch, AUC {a:.4f}")
            probe[n_workers] = probe_rounds(jd, client, s, probes)
            ctx.log(f"    round costs on {n_workers} workers: "
                    + ", ".join(f"{p['bytes'] / 1e6:.0f} MB {p['round_s'] * 1e3:.1f} ms"
                                for p in probe[n_workers]))
        finally:
            client.close()
            c.close()

    def pick(name):
        return name if name in runs else None
    two = pick("jd.fit, 2 workers, 4 rounds/epoch")
    two_user = pick("jd.fit, 2 workers, 4 rounds/epoch, data by user")
    ref_epoch = float(np.median(runs["1 process"]["seconds"][1:]))
    two_epoch = float(np.median(runs[two]["seconds"][1:])) if two else None

    def auc_gap(name):
        return abs(runs[name]["auc"] - runs["1 process"]["auc"]) if name else None
    curves = ["| run | " + " | ".join(f"{e + 1}" for e in range(epochs)) + " |",
              "|---|" + "---|" * epochs]
    for name, r in runs.items():
        curves.append(f"| {name} | " + " | ".join(f"{a:.3f}" for a in r["aucs"]) + " |")
    return {"title": TITLE, "size_label": "samples", "sizes": [size], "rows": rows,
            "size_names": {str(size): f"one epoch ({size:,} samples)"}, "plot": "bars",
            "reference": "jitad.fit, 1 process", "runs": runs, "round_costs": probe,
            "cores": os.cpu_count(),
            "extra_md": "Held-out AUC after each epoch:\n\n" + "\n".join(curves),
            "description": (
                f"{n:,} training samples ({n_users:,} users, {n_items:,} items, one positive "
                f"per user held out), k = {RANK}, Adagrad lr {LR}, {epochs} epochs; every "
                "system starts from the same parameters and trains on the same samples. "
                "jd.fit rows are checked by their held-out AUC (in the notes), not by their "
                "parameters: combined replicas follow another trajectory than one process. "
                "Time: median seconds per epoch after the first. Workers are processes on "
                "this 2-core VM, shared with other work (4 workers share 2 cores); a round's "
                "CPU time below its wall time is the share of a core it did not get."),
            "goals": [
                C.goal(f"jd.fit on 2 workers (default combine: the tables, read by index, summed): "
                       f"held-out AUC within 0.01 of jitad.fit after {epochs} epochs", auc_gap(two),
                       0.01, "lower", "{:.4f}"),
                C.goal(f"jd.fit on 2 workers (default combine, data by user): held-out AUC within "
                       f"0.01 of jitad.fit after {epochs} epochs", auc_gap(two_user), 0.01,
                       "lower", "{:.4f}"),
                C.goal("jd.fit on 2 workers (4 rounds/epoch) faster per epoch than 1 process",
                       ref_epoch / two_epoch if two_epoch else None, 1.0, "higher")]}
