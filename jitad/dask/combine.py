"""How `jd.fit` combines its replicas at the end of a round, row by row.

Takes: on a worker, a parameter as the round started (the broadcast array) and as the
replica's training left it; on the client, the round's starting parameters and, per replica
that trained, its sample count and one `report` per parameter.
Guarantees:
  * `report` says which rows (slices along the first axis; the elements of a 1-d parameter)
    the replica's training changed -- a row counts as changed when any of its elements
    differs from where it started (`!=`, so a row that became NaN counts) -- and carries only
    those rows' values: `("all", values)` when every row changed, else `("rows", index,
    values)` or `("mask", packed bits, values)`, whichever marks the rows in fewer bytes.
  * `combine(start, replicas, "average")` gives each row the average of its new values over
    the replicas that changed it, weighted by their samples, and leaves a row that no replica
    changed exactly as it started. A row of a row-sparse model (an embedding, BPR's tables)
    that one replica of N wrote in a round therefore keeps all of that replica's change,
    instead of 1/N of it. A row that every replica changed is computed with the operations,
    in the order, of the plain sample-weighted average (zeros, then `+= (n_g / n) * p_g`
    replica by replica), so on a dense model, where every replica changes every row, the
    result is the plain average bit for bit.
  * `combine(start, replicas, "sum")` adds every replica's change to the start, row by row (a
    row no replica changed keeps its start; with every row changed, `start + sum(p_g - start)`
    as before).
  * `combine` also returns, per parameter, how many rows every replica changed, some did,
    and none did (`Round.rows_changed`): whether the row-wise rule had anything to do.
  * `how` may give one rule per parameter (`jd.fit`'s default, "auto", sums the parameters
    the step reads by index and averages the dense ones).
Invariants: `combine` never writes into `start` or a report; the reports' rows are distinct
and in increasing order.
"""
from __future__ import annotations

import numpy as np

from ..errors import JitadError

KINDS = ("average", "sum")


def changed_rows(start, trained) -> np.ndarray:
    """A bool per row of `trained` (first axis): does it differ from `start` anywhere?"""
    diff = trained != start
    return diff if diff.ndim == 1 else diff.reshape(diff.shape[0], -1).any(axis=1)


def report(start, trained):
    """What a replica sends back for one parameter: its changed rows and their values."""
    start, trained = np.asarray(start), np.asarray(trained)
    if trained.ndim == 0:
        return ("all", trained)
    mask = changed_rows(start, trained)
    n, k = mask.size, int(np.count_nonzero(mask))
    if k == n:
        return ("all", trained)
    values = trained[mask]
    index_bytes = k * (4 if n < 2 ** 31 else 8)
    if index_bytes <= (n + 7) // 8:
        return ("rows", np.flatnonzero(mask).astype(np.int32 if n < 2 ** 31 else np.int64), values)
    return ("mask", np.packbits(mask), values)


def _rows(rep, n):
    """The rows a report marks (None: all of them) and their values."""
    kind = rep[0]
    if kind == "all":
        return None, rep[1]
    if kind == "rows":
        return rep[1], rep[2]
    if kind == "mask":
        return np.flatnonzero(np.unpackbits(rep[1], count=n)), rep[2]
    raise JitadError(f"a replica's report of kind {kind!r}: expected 'all', 'rows' or 'mask'")


def _check(start, rows, values, g):
    want = start.shape if rows is None else (len(rows),) + start.shape[1:]
    if values.shape != want:
        raise JitadError(f"replica {g} sent back rows of shape {values.shape} for a parameter "
                         f"of shape {start.shape} (expected {want}): the workers run another "
                         "version of jitad?")


def combine(start, replicas, how="average"):
    """`start`: the round's parameters; `replicas`: per replica that trained, `(samples,
    [report per parameter])`; `how`: a rule, or one per parameter. Returns (the new
    parameters, per parameter (rows every replica changed, rows some did, rows none did))."""
    rules = [how] * len(start) if isinstance(how, str) else list(how)
    for h in set(rules):
        if h not in KINDS:
            raise JitadError(f"combine={h!r}: use one of {', '.join(map(repr, KINDS))}")
    replicas = [(n, reps) for n, reps in replicas if n > 0]
    if not replicas:
        return [np.array(s, copy=True) for s in start], [(0, 0, len(s) if np.ndim(s) else 1)
                                                         for s in start]
    total = sum(n for n, _ in replicas)
    new, stats = [], []
    for j, s in enumerate(start):
        s, how = np.asarray(s), rules[j]
        n_rows = s.shape[0] if s.ndim else 1
        parts = []
        for g, (n, reps) in enumerate(replicas):
            rows, values = _rows(reps[j], n_rows)
            _check(s, rows, values, g)
            parts.append((n, rows, values))
        if all(rows is None for _, rows, _ in parts):       # dense: the plain rule, as always
            if how == "average":
                acc = np.zeros_like(s)
                for n, _, v in parts:
                    acc += (n / total) * v
            else:
                acc = np.array(s, copy=True)
                for _, _, v in parts:
                    acc += v - s
            new.append(acc)
            stats.append((n_rows, 0, 0))
            continue
        count = np.zeros(n_rows, np.int64)       # replicas that changed the row
        for _, rows, _ in parts:
            count[slice(None) if rows is None else rows] += 1
        if how == "average":
            weight = np.zeros(n_rows)            # their samples, added up
            for n, rows, _ in parts:
                weight[slice(None) if rows is None else rows] += n
            acc = np.zeros_like(s)
            for n, rows, v in parts:
                at = slice(None) if rows is None else rows
                coef = (n / weight[at]).reshape((-1,) + (1,) * (s.ndim - 1))
                acc[at] += coef * v
            kept = count == 0
            acc[kept] = s[kept]
        else:
            acc = np.array(s, copy=True)
            for _, rows, v in parts:
                at = slice(None) if rows is None else rows
                acc[at] += v - s[at]
        new.append(acc)
        stats.append((int(np.count_nonzero(count == len(parts))),
                      int(np.count_nonzero((count > 0) & (count < len(parts)))),
                      int(np.count_nonzero(count == 0))))
    return new, stats
