"""What runs on a Dask worker: a shipped function's partial gradient over the worker's row
chunks, and one round of training on a replica's partitions.

Takes: a `ship.Shipped` (the generated module as text: the user's source file is never
needed here), the values every chunk shares (parameters, constants), and the chunks' NumPy
blocks, which Dask hands to the task from the worker's memory.
Guarantees: `gradient_part` returns the sum over its chunks of the loss and of its gradient,
the rows it read, and what loading cost (`Shipped.load`: the module is made once per worker
process; Numba compiles it at the first call, or loads it from this machine's disk cache);
with `check` it also evaluates the loss on two halves of its first chunk, for the client's
additivity check. `fit_round` takes the round's parameters -- the epoch's, broadcast by the
client, in its first round; else the previous round's, combined from every replica's report
by this task itself (`combine.combine`, from the parameters that round started from, which
the replica's previous task kept in this process) -- trains a copy of them (a worker may run
two replicas' tasks: the objects Dask hands in are shared) with the compiled epoch loop on
the round's slice of the replica's shuffled samples, and returns, per parameter, the rows
the training changed and their values (`combine.report`: all rows of a dense parameter, only
the written rows of a row-sparse one), with its sample count and loss total;
`combine_round` combines an epoch's last round for the client and returns the parameters with
the record of the epoch's rounds (kept by the replica in this process, never sent with a
report: a report goes to every other worker every round). The optimizer state,
the replica's concatenated data and its round's starting parameters are kept in this
process between rounds (`REPLICAS`, keyed by the fit's token and the replica), made anew
(zero state) when a replica's task comes to a worker that has none -- after a worker is
lost; a later round's task there raises `ReplicaMoved` (the epoch runs again).
Both ask glibc, once per worker process, to keep freed memory mapped (`threads.keep_heap`;
`JITAD_KEEP_HEAP=0` opts out): a task runs on one of the worker's threads, whose arena glibc
trims after each chunk's MB-sized tape and gradient buffers are freed, so the next chunk
faulted them in again -- 23,500 page faults and 30 of 149 ms of CPU per gradient of 4
million logistic rows in 16 chunks, against 180 faults and 109 ms with the heap kept.
Invariants: the sample order of (epoch, replica) depends only on the seed, the epoch and the
replica, so a round run again on another worker trains on the same samples; nothing here
writes into an object Dask handed in.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..threads import keep_heap
from ..train import epoch_loop
from .combine import combine, report

REPLICAS: dict = {}       # (fit token, replica) -> Replica, in this worker process
_EPOCHS: dict = {}        # (module key, fields, batch) -> the compiled epoch loop
_LOCK = threading.Lock()


def _where():
    try:
        from distributed import get_worker
        return get_worker().address
    except Exception:          # run outside a worker (tests call these functions directly)
        return f"pid {os.getpid()}"


def _from_disk(dispatchers):
    """Whether these compiled functions were all loaded from Numba's disk cache in this
    process (False: at least one was compiled here; None: not Numba functions)."""
    stats = [getattr(d, "stats", None) for d in dispatchers]
    if any(s is None for s in stats):
        return None
    # a callee an entry loaded from the cache was linked into is never compiled or loaded
    # itself: only misses count against, and some function must have been a hit
    return any(s.cache_hits for s in stats) and not any(s.cache_misses for s in stats)


def _info(t_load, t_first=None, disk=None):
    """Where a task ran and what making its functions cost there: `load_s` (the module made
    from its text, once per process), `first_call_s` (Numba's compile, or its disk cache's
    load, when this task was the first to call them) and `disk_cache`."""
    return {"worker": _where(), "pid": os.getpid(), "load_s": t_load, "first_call_s": t_first,
            "disk_cache": disk}


def _args(consts, slots, fields):
    args = list(consts)
    for k, pos in enumerate(slots):
        args[pos] = np.ascontiguousarray(fields[k])
    return tuple(args)


def add(acc, grads):
    """`acc` plus a chunk's gradients, position by position (a copy of them when `acc` is None)."""
    if acc is None:
        return [np.array(g, copy=True) if isinstance(g, np.ndarray) else g for g in grads]
    for k, g in enumerate(grads):
        acc[k] = acc[k] + g
    return acc


def gradient_part(shipped, consts, slots, check, *blocks):
    """Sum over this task's chunks of `loss(args)` and its gradient. `consts` holds the argument
    tuple with None where a data argument goes (`slots`: their positions); `blocks` holds, per
    chunk, one block per data argument, in order."""
    wall_start = time.time()
    consts = consts.value                 # a client.Payload
    keep_heap()
    _, t_load, _ = shipped.load()
    name = shipped.gen.vjp
    first = not getattr(shipped.fn(name), "signatures", True)
    n = len(slots)
    value, acc, rows, t_first, c_first = 0.0, None, 0, None, 0.0
    checked = None
    t0, c0 = time.perf_counter(), time.thread_time()
    for c in range(0, len(blocks), n):
        fields = blocks[c:c + n]
        args = _args(consts, slots, fields)
        tc, cc = time.perf_counter(), time.thread_time()
        v, grads = shipped.run(name, args + (1.0,))
        if t_first is None:
            t_first, c_first = time.perf_counter() - tc, time.thread_time() - cc
        value += v
        acc = add(acc, grads)
        m = len(fields[0])
        rows += m
        if check and checked is None and m >= 2:
            h = m // 2
            va, ga = shipped.run(name, _args(consts, slots, [f[:h] for f in fields]) + (1.0,))
            vb, gb = shipped.run(name, _args(consts, slots, [f[h:] for f in fields]) + (1.0,))
            gap = max((float(np.max(np.abs(np.asarray(g) - (np.asarray(a) + np.asarray(b)))))
                       if np.size(g) else 0.0) for g, a, b in zip(grads, ga, gb)) if grads else 0.0
            scale = max((float(np.max(np.abs(np.asarray(a)) + np.abs(np.asarray(b))))
                         if np.size(a) else 0.0) for a, b in zip(ga, gb)) if grads else 0.0
            checked = {"rows": m, "half": h, "value": v, "first": va, "second": vb,
                       "grad_gap": gap, "grad_scale": scale}
    info = _info(t_load, t_first if first else None,
                 _from_disk([shipped.fn(name)]) if first else None)
    info["compute_s"] = time.perf_counter() - t0 - (t_first if first else 0.0)
    info["cpu_s"] = time.thread_time() - c0 - (c_first if first else 0.0)
    info["wall"] = (wall_start, time.time())
    return {"value": value, "grads": acc, "rows": rows, "check": checked, "info": info}


@dataclass
class Replica:
    """One replica's data (its partitions, concatenated) and optimizer state, on a worker."""

    blocks: tuple                  # the blocks it was made from (kept: their ids are the key)
    data: tuple
    state: tuple | None = None
    orders: dict = field(default_factory=dict)    # epoch -> the shuffled order
    start: tuple | None = None     # ((epoch, round, attempt), the parameters that round started from)
    log: list = field(default_factory=list)      # the epoch's rounds combined here so far


def _replica(key, blocks, n_fields):
    ids = tuple(id(b) for b in blocks)
    with _LOCK:
        rep = REPLICAS.get(key)
        if rep is not None and tuple(id(b) for b in rep.blocks) == ids:
            return rep, False
        fields = [blocks[k::n_fields] for k in range(n_fields)]
        data = tuple(np.ascontiguousarray(f[0]) if len(f) == 1 else np.concatenate(f)
                     for f in fields)
        old = rep
        rep = REPLICAS[key] = Replica(tuple(blocks), data)
        if old is not None:         # the same replica, its partitions recomputed: keep its state
            rep.state = old.state
        return rep, old is None


def _epoch_fn(shipped, n_params, n_fields, batch):
    """The compiled epoch loop for this step and data, and whether it is new in this process."""
    k = (shipped.key, n_params, n_fields, batch)
    with _LOCK:
        fn = _EPOCHS.get(k)
        if fn is None:
            fn, _ = epoch_loop(shipped.gen, shipped.fn, shipped.backend, n_params, n_fields, batch)
            _EPOCHS[k] = fn
            return fn, True
    return fn, False


class ReplicaMoved(Exception):
    """A round's task ran in a process that does not hold the parameters its replica's previous
    round started from (its worker died and Dask ran the task elsewhere, or Dask's work
    stealing moved it off a worker that had two replicas' tasks queued): `fit` runs the epoch
    again from its start, one replica per worker."""


def _combined(plan, outs):
    """The parameters this round starts from: the previous round's (kept in this process by
    the replica's previous task) combined with every replica's report of that round. The
    record of that round goes on the replica's `log` in this process."""
    key, r = (plan["token"], plan["replica"]), plan["round"]
    rep = REPLICAS.get(key)
    tag = (plan["epoch"], r - 1, plan["attempt"])
    if rep is None or rep.start is None or rep.start[0] != tag:
        raise ReplicaMoved(f"replica {plan['replica']}'s round {r} of epoch {plan['epoch']} ran "
                           f"where its round {r - 1} did not")
    wall0, t0 = time.time(), time.perf_counter()
    new, rows_changed = combine(rep.start[1], [(o["samples"], o["reports"]) for o in outs],
                                plan["combine"])
    entry = {"epoch": plan["epoch"], "round": r - 1,
             "samples": [o["samples"] for o in outs], "loss": [o["loss"] for o in outs],
             "info": [o["info"] for o in outs], "rows_changed": rows_changed,
             "received": [sum(_nbytes(x) for x in o["reports"]) for o in outs],
             "combine_s": time.perf_counter() - t0, "worker": _where(),
             "wall": (wall0, time.time())}
    rep.log.append(entry)
    return tuple(new)


def fit_round(shipped, start, plan, *args):
    """One round of replica `plan["replica"]`: train a copy of the round's parameters on slice
    `plan["round"]` of `plan["rounds"]` of its shuffled samples (mini-batches) for
    `plan["epoch"]`. The round's parameters: in the epoch's first round, `start` (a
    `client.Payload` the client sent); in a later one, the previous round's combined here
    from the `plan["prev"]` reports that open `args` (every replica's `fit_round` result of
    that round, in replica order; the rest of `args` are the replica's blocks): combining a
    round is the first thing the next round's task does, so a round costs one task per
    replica. Returns per parameter the rows the training changed and their values
    (`combine.report`), the samples (mini-batches) run, their loss total, where and how it
    ran."""
    t_start, wall_start = time.perf_counter(), time.time()
    keep_heap()
    _, t_load, _ = shipped.load()
    outs, blocks = args[:plan["prev"]], args[plan["prev"]:]
    n_fields, batch = plan["fields"], plan["batch"]
    rep, new = _replica((plan["token"], plan["replica"]), blocks, n_fields)
    if outs:
        params = _combined(plan, outs)
    else:
        params, rep.log = start.value, []
    rep.start = ((plan["epoch"], plan["round"], plan["attempt"]), params)
    P = tuple(np.array(p, copy=True) for p in params)
    fresh_state = rep.state is None
    if fresh_state:
        rep.state = tuple(np.zeros_like(P[k]) if kind == "slot" else np.zeros(1)
                          for k, kind in plan["state"])
    n_local = len(rep.data[0]) if batch is None else len(rep.data[0]) // batch
    order = rep.orders.get(plan["epoch"])
    if order is None:
        if plan["shuffle"]:
            rng = np.random.default_rng([plan["seed"], plan["epoch"], plan["replica"]])
            order = rng.permutation(n_local).astype(np.int64)
        else:
            order = np.arange(n_local, dtype=np.int64)
        rep.orders = {plan["epoch"]: order}
    r, R = plan["round"], plan["rounds"]
    lo, hi = n_local * r // R, n_local * (r + 1) // R
    epoch_fn, first = _epoch_fn(shipped, len(P), n_fields, batch)
    t_first = disk = None
    if first:       # compile (or load from the disk cache) on an empty range: not timed as work
        t0 = time.perf_counter()
        epoch_fn(*P, *rep.data, order, 0, 0, *rep.state)
        t_first = time.perf_counter() - t0
        disk = _from_disk([epoch_fn, shipped.fn(shipped.gen.step)])
    t0, c0, wall_compute = time.perf_counter(), time.thread_time(), time.time()
    total = epoch_fn(*P, *rep.data, order, lo, hi, *rep.state)
    t_compute, c_compute = time.perf_counter() - t0, time.thread_time() - c0
    t0 = time.perf_counter()
    reports = [report(p0, p) for p0, p in zip(params, P)]
    info = _info(t_load, t_first, disk)
    info.update(compute_s=t_compute, cpu_s=c_compute, report_s=time.perf_counter() - t0,
                task_s=time.perf_counter() - t_start, new_replica=new, fresh_state=fresh_state,
                wall=(wall_start, wall_compute, wall_compute + t_compute, time.time()))
    return {"reports": reports, "samples": hi - lo, "loss": float(total), "info": info}


def combine_round(plan, *outs):
    """The end of an epoch, on the worker of replica `plan["replica"]`: its last round's
    parameters combined with every replica's report of that round (`outs`, in replica order;
    `combine.combine`, rule `plan["combine"]`). Returns `{"params": the new parameters, "log":
    an entry per round of the epoch}` -- what each replica's task reported and what the
    combining did -- so the client gets the epoch's parameters and record in one transfer."""
    params = _combined(dict(plan, round=plan["round"] + 1), outs)
    return {"params": params, "log": list(REPLICAS[(plan["token"], plan["replica"])].log)}


def _nbytes(rep):
    return sum(x.nbytes for x in rep[1:] if isinstance(x, np.ndarray))


def forget(token):
    """Drop a finished fit's replicas from this worker (run on every worker by the client)."""
    with _LOCK:
        for key in [k for k in REPLICAS if k[0] == token]:
            del REPLICAS[key]
    return True
