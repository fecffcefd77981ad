"""`jd.fit`: data-parallel training -- every worker trains its own replica of the parameters on
the partitions it holds with the compiled step, and the replicas are combined every round,
row by row (local SGD): by default a parameter the step reads by index gets the replicas'
changes added and a dense one their average over the replicas that changed each row,
weighted by samples (model averaging); `combine="average"` or `"sum"` for all (see `fit` and
`jitad.dask.combine`).

Takes: a `jitad.train_step`, the parameter arrays (NumPy, on the client), the per-sample data
fields (NumPy or dask arrays, aligned by rows), epochs and rounds per epoch, a client.
Guarantees:
  * the step is specialized and generated once on the client and travels as text
    (`ship.Shipped`, scattered to every worker once); each worker process builds the module
    and the epoch loop once and compiles them at its first round (or loads them from its
    machine's disk cache: `Round.disk_cache` says which);
  * the data is persisted once (`data.distribute`) and never gathered; a replica is the set of
    row chunks one worker reads when training starts (`data.readers`: those it holds, the rows
    balanced between the workers);
  * an epoch is one graph, submitted at once (`_epoch`): the epoch's parameters are
    scattered to every worker (`broadcast=True`); then per round one task per replica (named
    `("jitad-fit-round-<k>", token, replica, attempt)`, k counting rounds from 0: the
    dashboard's task groups) trains a copy of them on its slice of the replica's shuffled
    samples with `jitad.fit`'s compiled epoch loop, and returns the rows it changed (all rows
    of a dense parameter) with its sample count. The next round's task of each replica
    depends on every replica's task of this round and starts by combining their reports
    (`combine.combine`: each row the average of the replicas that changed it, weighted by
    samples, a row none changed kept, or, `combine="sum"`, their changes added), on its own
    worker: between rounds the parameters stay on the workers, the reports go from worker to
    worker directly, and no round waits for the client or a task of its own. After the last
    round one task (`jitad-fit-combine-<k>`) combines it on replica 0's worker and the client
    fetches that: the epoch's parameters, written into the caller's arrays, and the record of
    its rounds (`Round`). On a dense model the combining is the plain sample-weighted
    average, bit for bit, and the result is the one the client-side combining gave. Each
    replica's epoch is a fresh permutation of its own samples, cut into `rounds_per_epoch`
    consecutive slices, so every sample is trained on once per epoch;
  * the optimizer state is per replica and stays on its worker (it is not averaged: Adagrad's
    sums or Adam's moments describe the gradients that worker saw); a replica that moves to
    another worker starts with a zero state there;
  * faults: a task whose worker dies is run again by Dask on another worker (its partitions
    computed again from their graph if they were lost with it) on the same slice of the same
    samples, so no sample of the epoch is lost; where that cannot work -- Dask gives a task
    up (it lost a value scattered from the client, or the task killed workers too often),
    or a later round's task lands where its replica's previous round did not run
    (`worker.ReplicaMoved`: the parameters that round started from are in the dead
    process) -- `fit` runs the epoch again from its start, from the same parameters on the
    same samples (and the step's module scattered again), up to `RETRIES` times; the
    replicas go to live workers (a restarted one first).
    All of these are recorded in `History.events`. An exception in the step (a `JitadError`
    at the user's line) stops training and is raised.
Invariants: the parameters the caller passed hold the last epoch's result; nothing but
parameters -- to each worker all of them once an epoch, from each replica the rows it changed
to the other replicas' workers every round, and the epoch's result to the client -- and a
few numbers per replica cross the network.
"""
from __future__ import annotations

import pickle
import sys
import time
import uuid
from concurrent.futures import CancelledError
from dataclasses import dataclass, field

import numpy as np
from distributed import KilledWorker

from .. import train
from ..errors import JitadError
from ..ship import Shipped
from . import combine as combining
from . import worker
from .client import get_client, nbytes, send
from .data import distribute, is_dask_array, live_workers, readers, row_chunks
from .grad import refuse_hidden


@dataclass
class Round:
    """What one round cost and did."""

    epoch: int
    round: int
    seconds: float             # wall time: from the round before's end to its own (see _round_seconds)
    compute_seconds: dict      # replica -> its epoch loop's time on its worker (wall)
    cpu_seconds: dict          # replica -> the same loop's CPU time (less: a shared core)
    samples: int               # samples (mini-batches) trained on, all replicas
    loss: float                # their mean loss
    bytes_sent: int            # parameter bytes the client sent: one copy per worker, in an
    #                            epoch's first round (0 in the others)
    bytes_received: int        # the replicas' reports: the rows each replica changed (each
    #                            goes to the other replicas' workers)
    average_seconds: float     # combining the round on replica 0's worker (`combine.combine`)
    workers: dict              # replica -> the worker its task ran on
    first_call_seconds: dict = field(default_factory=dict)  # replica -> compile or cache load
    disk_cache: dict = field(default_factory=dict)          # replica -> loaded from disk?
    rows_changed: list = field(default_factory=list)  # per parameter: rows (every, some, no)
    #                                                   replica changed; see combine.combine
    split: dict = field(default_factory=dict)   # the slowest replica's task and what followed
    end_wall: float = 0.0                       # when its combining ended (a worker's clock)

    @property
    def overhead_seconds(self) -> float:
        """The round's time beyond its slowest replica's compute (and first calls):
        scheduling, serialisation, transfers, averaging."""
        busy = max((self.compute_seconds[g] + (self.first_call_seconds.get(g) or 0.0)
                    for g in self.compute_seconds), default=0.0)
        return self.seconds - busy


@dataclass
class History(train.History):
    """`jitad.fit`'s history (mean loss, seconds and samples per second per epoch) and, per
    round, a `Round`; `events` lists what went wrong and what was done about it."""

    samples: list = field(default_factory=list)   # samples trained on per epoch
    rounds: list = field(default_factory=list)
    events: list = field(default_factory=list)
    replicas: list = field(default_factory=list)  # per replica: (its row chunks, rows)
    combine: dict = field(default_factory=dict)   # parameter -> its rule ("average" or "sum")
    setup_seconds: float = 0.0                    # generate, ship, persist the data
    serialise_seconds: float = 0.0                # pickling + unpickling the parameters once

    @property
    def bytes_per_round(self) -> float:
        return float(np.mean([r.bytes_sent + r.bytes_received for r in self.rounds])) if self.rounds else 0.0


def _example(d, batch):
    """One sample (or mini-batch) of a data field, for the step's signature."""
    if is_dask_array(d):
        z = np.zeros((1 if batch is None else batch,) + tuple(d.shape[1:]), dtype=d.dtype)
        return z[0] if batch is None else z
    d = np.asarray(d)
    return d[0] if batch is None else d[:batch]


def _state_layout(step):
    """Per optimizer state array, in `step.init`'s order: (parameter index, "slot"|"scalar")."""
    out = []
    for k in range(len(step.params)):
        out += [(k, "slot")] * len(step.optimizer.slots)
        out += [(k, "scalar")] * len(step.optimizer.scalars)
    return out


COMBINE = ("auto",) + combining.KINDS
RETRIES = 3         # times an epoch runs again after Dask gave a task of it up


def fit(step, params, data, epochs=1, rounds_per_epoch=1, client=None, seed=0, shuffle=True,
        progress=True, callbacks=(), batch_size=None, combine="auto"):
    """Train `params` (NumPy arrays, updated in place) with `step` on `data` (NumPy or dask
    arrays of samples, aligned by rows) on the Dask cluster of `client` (default: Dask's
    default client): one replica per worker holding data, combined every round,
    `rounds_per_epoch` rounds per epoch. `combine` says how, parameter by parameter (rows
    along the first axis; `jitad.dask.combine`): `"average"` gives each row the average of
    the replicas that changed it, weighted by their samples, and leaves a row no replica
    changed as it was -- a dense model gets the plain sample-weighted average (model
    averaging), bit for bit; a row that all N replicas wrote moves about 1/N as far per
    sample as in one process. `"sum"` adds every replica's change to the parameters the
    round started from: each sample counts fully, as in one process (a parameter server's
    rule). `"auto"`, the default, sums the parameters the step updates row by row -- those
    the loss reads by index, as embeddings and BPR's tables, which jitad knows when it
    generates the step (`Generated.buffers`) -- and averages the dense ones, whose every
    sample moves every weight and for which summing N replicas' changes is N steps from one
    point (`History.combine` says which rule each parameter got). On MovieLens-1M-shaped BPR
    on 2 workers averaging reached a held-out AUC of 0.824 after 10 epochs, summing 0.833,
    one process 0.835 (docs/scaling.md). `batch_size=B` trains on mini-batches of B
    consecutive rows of a replica's data (a replica's trailing partial batch is dropped).
    `callbacks` are called as `cb(epoch, mean_loss, history)` after each epoch. Returns a
    `History`. See the module's docstring for what travels and what happens when a worker
    dies."""
    t_setup = time.perf_counter()
    client = get_client(client)
    if not isinstance(step, train.train_step):
        raise JitadError("jd.fit takes a jitad.train_step(loss, wrt=..., optimizer=...)")
    params = tuple(params)
    if len(params) != len(step.params):
        raise JitadError(f"the step trains {', '.join(step.params)}: pass {len(step.params)} "
                         f"parameter array(s), got {len(params)}")
    for name, p in zip(step.params, params):
        if is_dask_array(p) or not isinstance(p, np.ndarray):
            raise JitadError(f"the parameter '{name}' must be a NumPy array (the parameters live "
                             f"on the client and travel to the workers each epoch); got "
                             f"{type(p).__name__}")
    data = tuple(data)
    if not data:
        raise JitadError("jd.fit needs at least one data field")
    if rounds_per_epoch < 1:
        raise JitadError("rounds_per_epoch must be a positive number of rounds")
    if combine not in COMBINE:
        raise JitadError(f"combine={combine!r}: use one of {', '.join(map(repr, COMBINE))}")
    names = step.d.params[len(params):]
    labels = [names[k] if k < len(names) else f"data[{k}]" for k in range(len(data))]
    row_chunks(data, labels)                  # refuse what cannot be split by rows, by name
    if batch_size is not None and batch_size > len(data[0]):
        raise JitadError(f"batch_size={batch_size} is larger than the data")
    comp = train.specialize_for_fit(step, params, [_example(d, batch_size) for d in data])
    refuse_hidden(comp, step.d.__name__)
    rules = combine_rules(comp, combine)
    shipped = _Ship(client, Shipped.of(comp))
    part = distribute(client, data, labels)

    groups = {}
    for c, w in enumerate(readers(client, part)):
        groups.setdefault(w, []).append(c)
    by_first = sorted(groups.items(), key=lambda kv: kv[1][0])   # replica g: chunks, in row order
    replicas = [chunks for _, chunks in by_first]
    assign = {g: w for g, (w, _) in enumerate(by_first)}
    token = uuid.uuid4().hex[:8]
    hist = History(replicas=[(chunks, sum(part.rows[c] for c in chunks)) for chunks in replicas],
                   combine=dict(zip(step.params, rules)))
    t0 = time.perf_counter()
    pickle.loads(pickle.dumps(params, protocol=5))
    hist.serialise_seconds = time.perf_counter() - t0
    plan = {"token": token, "rounds": int(rounds_per_epoch), "seed": seed, "shuffle": shuffle,
            "batch": batch_size, "fields": len(data), "state": _state_layout(step),
            "combine": rules}
    hist.setup_seconds = time.perf_counter() - t_setup
    bar = _Progress(progress, epochs * rounds_per_epoch)
    avg = [np.array(p, copy=True) for p in params]     # replaced by each epoch's result
    try:
        for ep in range(epochs):
            t_epoch = time.perf_counter()
            live = live_workers(client)
            _reassign(assign, live, hist, ep, 0)
            rounds, avg = _epoch(client, shipped, avg, part, replicas, assign, live,
                                 dict(plan, epoch=ep), ep * rounds_per_epoch, token, hist)
            for p, a in zip(params, avg):
                p[...] = a
            dt = time.perf_counter() - t_epoch
            _round_seconds(rounds, dt)
            for rnd in rounds:
                hist.rounds.append(rnd)
                bar.round(ep, epochs, rnd)
            ep_samples = sum(r.samples for r in rounds)
            ep_loss = sum(r.loss * r.samples for r in rounds)
            hist.loss.append(ep_loss / ep_samples if ep_samples else float("nan"))
            hist.seconds.append(dt)
            hist.samples.append(ep_samples)
            hist.samples_per_second.append(ep_samples / dt if dt > 0 else float("inf"))
            bar.epoch(ep, epochs, hist)
            for cb in callbacks:
                cb(ep, hist.loss[-1], hist)
    finally:
        bar.close()
        try:
            client.run(worker.forget, token)
        except Exception:
            pass
    return hist


def combine_rules(comp, combine):
    """The combining rule of each trained parameter, in order: `combine` itself, or for
    `"auto"` `"sum"` where the generated step updates the parameter row by row (it holds a
    row list for it: the loss reads it by index) and `"average"` where it updates every
    element."""
    if combine != "auto":
        return [combine] * len(comp.gen.wrt_params)
    by_rows = {p for kind, p, _ in comp.gen.buffers if kind == "rows"}
    return ["sum" if p in by_rows else "average" for p in comp.gen.wrt_params]


def _reassign(assign, live, hist, ep, r):
    """Give each replica whose worker is gone to the live worker with the fewest replicas; then
    move replicas from a worker that has two or more to a worker that has none (a restarted
    one): its data is copied there once, its optimizer state starts at zero there."""
    def load():
        return {x: sum(1 for v in assign.values() if v == x) for x in live}
    for g, w in sorted(assign.items()):
        if w not in live:
            n = load()
            new = min(live, key=lambda x: (n[x], x))
            hist.events.append(f"epoch {ep}, round {r}: worker {w} is gone; replica {g} goes to {new}")
            assign[g] = new
    while True:
        n = load()
        idle = sorted(x for x in live if n[x] == 0)
        busy = sorted(x for x in live if n[x] >= 2)
        if not idle or not busy:
            return
        g = max(g for g, v in assign.items() if v == busy[0])
        hist.events.append(f"epoch {ep}, round {r}: replica {g} moves from {busy[0]} (which runs "
                           f"{n[busy[0]]} replicas) to {idle[0]} (which runs none)")
        assign[g] = idle[0]


class _Ship:
    """The step's `Shipped`, scattered to every worker; scattered again after a task was lost
    (Dask may keep a broadcast value on one worker only -- its memory manager drops extra
    copies -- and a value scattered from the client cannot be recomputed when that worker
    dies)."""

    def __init__(self, client, shipped):
        self.client, self.shipped = client, shipped
        self.again()

    def again(self):
        self.future = self.client.scatter([self.shipped], broadcast=True, hash=False)[0]


def _epoch(client, ship, avg, part, replicas, assign, live, plan, k0, token, hist):
    """One epoch as one graph, submitted at once: per round a `fit_round` task per replica, on
    its worker, which depends on every replica's task of the round before and starts by
    combining their reports (so the combined parameters never leave the workers between
    rounds: each replica's report goes straight to the other replicas' workers, and no round
    waits for the client); after the last round one `combine_round` on replica 0's worker,
    whose result -- the epoch's parameters and the record of its rounds -- the client fetches.
    Returns (the epoch's `Round`s, the new parameters)."""
    N, R = len(replicas), plan["rounds"]
    attempt = 0
    while True:
        sent = send(client, tuple(avg))
        prev = []
        for r in range(R):
            k, p = k0 + r, dict(plan, round=r, attempt=attempt, prev=len(prev))
            prev = [client.submit(worker.fit_round, ship.future, sent if r == 0 else None,
                                  dict(p, replica=g), *prev, *part.flat(replicas[g]),
                                  key=(f"jitad-fit-round-{k}", token, g, attempt),
                                  workers=[assign[g]], allow_other_workers=True, pure=False)
                    for g in range(N)]
        cur = [client.submit(worker.combine_round, dict(p, replica=0), *prev,
                             key=(f"jitad-fit-combine-{k}", token, 0, attempt),
                             workers=[assign[0]], allow_other_workers=True, pure=False)]
        del prev
        try:
            out = cur[0].result()
            break
        except (CancelledError, KilledWorker, worker.ReplicaMoved) as e:
            # Dask gave the epoch up (a worker died with a value scattered from here, or a
            # task killed workers too often), or ran a replica's round where its previous
            # round's parameters are not: the epoch runs again from its start, on the
            # workers there are, with the step's module scattered again
            cur[0].cancel()
            attempt += 1
            if attempt > RETRIES:
                raise
            hist.events.append(f"epoch {plan['epoch']}: a task was lost ({type(e).__name__}); "
                               "the epoch runs again from its start")
            live = live_workers(client)
            if not live:        # a nanny restarts a killed worker; else Dask's TimeoutError
                client.wait_for_workers(1, timeout=60)
                live = live_workers(client)
            _reassign(assign, live, hist, plan["epoch"], 0)
            ship.again()
        except BaseException:       # an error in the step (raised at the user's line), ^C
            cur[0].cancel()
            raise
    p_bytes = nbytes(avg)
    rounds, prev_end = [], None
    for e in out["log"]:
        r, infos = e["round"], e["info"]
        ran = {g: info["worker"] for g, info in enumerate(infos)}
        now = None
        for g, w in sorted(ran.items()):
            if w != assign[g]:
                now = live_workers(client) if now is None else now
                hist.events.append(f"epoch {plan['epoch']}, round {r}: replica {g}'s task ran "
                                   f"on {w} instead of {assign[g]}"
                                   + ("" if assign[g] in now else f" ({assign[g]} left the cluster)"))
                assign[g] = w
        total = sum(e["samples"])
        rnd = Round(plan["epoch"], r, 0.0,
                    {g: info["compute_s"] for g, info in enumerate(infos)},
                    {g: info["cpu_s"] for g, info in enumerate(infos)}, total,
                    sum(e["loss"]) / total if total else float("nan"),
                    p_bytes * len(live) if r == 0 else 0, sum(e["received"]), e["combine_s"], ran,
                    {g: info["first_call_s"] for g, info in enumerate(infos)
                     if info["first_call_s"] is not None},
                    {g: info["disk_cache"] for g, info in enumerate(infos)
                     if info["first_call_s"] is not None},
                    [tuple(x) for x in e["rows_changed"]])
        last = max(range(len(infos)), key=lambda g: infos[g]["wall"][3])
        w = infos[last]["wall"]
        # the slowest replica's task: its start (less the round's start), the combining of the
        # round before and loading, its compute, its report; then, until the next round's
        # task on replica 0's worker combines this one: scheduling and the reports' transfer
        rnd.split = {"start": w[0] - prev_end if prev_end is not None else None,
                     "task_pre": w[1] - w[0], "compute": w[2] - w[1], "task_post": w[3] - w[2],
                     "to_combine": e["wall"][0] - w[3], "combine": e["wall"][1] - e["wall"][0]}
        rnd.end_wall = e["wall"][1]
        prev_end = e["wall"][1]
        rounds.append(rnd)
    return rounds, [np.asarray(a) for a in out["params"]]


def _round_seconds(rounds, epoch_seconds):
    """Each round's wall time: from the end of the one before to its own (the clock of the
    worker that combined them); the first round also carries what the epoch spent before and
    after its rounds (sending the parameters, submitting, fetching the result)."""
    for a, b in zip(rounds, rounds[1:]):
        b.seconds = b.end_wall - a.end_wall
    rounds[0].seconds = epoch_seconds - sum(r.seconds for r in rounds[1:])


class _Progress:
    """A tqdm bar over rounds when tqdm is installed, else one line per epoch on stderr."""

    def __init__(self, enabled, total):
        self.enabled, self.bar = enabled, None
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="round", leave=False)
            except ImportError:
                self.bar = None

    def round(self, ep, epochs, rnd):
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(f"epoch {ep + 1}/{epochs}, loss {rnd.loss:.4g}, "
                                     f"{(rnd.bytes_sent + rnd.bytes_received) / 1e6:.1f} MB")

    def epoch(self, ep, epochs, hist):
        if self.enabled and self.bar is None:
            rounds = [r for r in hist.rounds if r.epoch == ep]
            mb = sum(r.bytes_sent + r.bytes_received for r in rounds) / 1e6
            print(f"epoch {ep + 1}/{epochs}: loss {hist.loss[-1]:.6g}, "
                  f"{hist.samples_per_second[-1]:,.0f} samples/s, {len(rounds)} rounds, "
                  f"{mb:.1f} MB sent and received", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
