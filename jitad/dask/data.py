"""Row-chunked data kept on the workers: checked, persisted once, and found again by chunk.

Takes: data arguments -- dask arrays chunked by rows, or (for `fit`) NumPy arrays -- that
belong together row by row (`X`, `y`; `users`, `items`, `negs`).
Guarantees: `distribute` refuses, with a `JitadError` that names the argument, what cannot be
split by rows: a dask array chunked along a later axis, row chunks that differ between the
arguments, unknown chunk sizes (NaN), a 0-d array, chunks that are not NumPy arrays, argument
lengths that differ. Otherwise it persists the data (`Client.persist`: computed on the
workers, kept in their memory, never gathered to the client) and returns `Partitions`: per row
chunk, one future per argument. NumPy arrays are cut into one piece per worker, each piece
persisted on its worker (`workers=`, `allow_other_workers=True`) from a graph that holds it, so
a piece lost with its worker is computed again elsewhere, as Dask does for any persisted
collection. `readers` gives each chunk the worker that reads it: one that holds it, with the
rows balanced between the workers.
Invariants: chunk c of every argument covers the same rows; the chunks are in row order.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import dask.array as da
from distributed import futures_of, wait

from ..errors import JitadError


def is_dask_array(x) -> bool:
    return isinstance(x, da.Array)


@dataclass
class Partitions:
    """Data on the workers: per row chunk, the future of each argument's block."""

    names: tuple        # what identifies the data (the dask arrays' names)
    blocks: list        # per chunk: a tuple of futures, one per argument
    rows: list          # per chunk: its number of rows

    @property
    def n_rows(self) -> int:
        return int(sum(self.rows))

    def flat(self, chunks):
        """The futures of these chunks, chunk by chunk (what a task takes as `*blocks`)."""
        return [f for c in chunks for f in self.blocks[c]]


def _check_dask(x, label):
    if x.ndim == 0:
        raise JitadError(f"{label} is a 0-d dask array: data arguments are split by rows, so "
                         "they need at least one axis")
    if not isinstance(getattr(x, "_meta", None), np.ndarray):
        raise JitadError(f"{label} is a dask array of {type(x._meta).__name__} chunks; "
                         "jitad.dask takes dask arrays of NumPy chunks")
    if any(np.isnan(c) for c in x.chunks[0]):
        raise JitadError(f"{label} has chunks of unknown size (NaN rows, e.g. after boolean "
                         f"indexing); call {label}.compute_chunk_sizes() first")
    for axis, c in enumerate(x.chunks[1:], 1):
        if len(c) != 1:
            raise JitadError(f"{label} is chunked along axis {axis} ({len(c)} chunks): each task "
                             f"needs whole rows; rechunk it: {label}.rechunk({{{axis}: -1}})")


def row_chunks(arrays, labels):
    """The row chunks the dask arrays among `arrays` share (None if there is none); a
    `JitadError` naming the arguments whose row chunks or lengths differ."""
    chunks, first = None, None
    n = None
    for x, label in zip(arrays, labels):
        if is_dask_array(x):
            _check_dask(x, label)
        elif np.ndim(x) == 0:
            raise JitadError(f"{label} is a number: data arguments are split by rows, so they "
                             "need at least one axis")
        if n is not None and len(x) != n:
            raise JitadError(f"{label} has {len(x):,} rows but {labels[0]} has {n:,}: the "
                             "data arguments must have the same number of rows")
        n = len(x)
        if not is_dask_array(x):
            continue
        if chunks is None:
            chunks, first = tuple(int(c) for c in x.chunks[0]), label
        elif tuple(int(c) for c in x.chunks[0]) != chunks:
            raise JitadError(f"{label} and {first} are chunked differently along their rows "
                             f"({_show(x.chunks[0])} and {_show(chunks)}): chunk c of every data "
                             f"argument must hold the same rows; rechunk one like the other: "
                             f"{label}.rechunk({{0: {first}.chunks[0]}})")
    return chunks


def _show(chunks):
    chunks = tuple(int(c) for c in chunks)
    return str(chunks) if len(chunks) <= 4 else f"({', '.join(map(str, chunks[:3]))}, ... {len(chunks)} chunks)"


def _first_key(keys):
    while isinstance(keys, list):
        keys = keys[0]
    return keys


def distribute(client, arrays, labels) -> Partitions:
    """Persist `arrays` (dask or NumPy, aligned by rows) on the workers; see the module."""
    arrays = list(arrays)
    chunks = row_chunks(arrays, labels)
    if chunks is None:
        return _pieces(client, arrays)
    xs = [x if is_dask_array(x) else da.from_array(np.asarray(x), chunks=(chunks,) + np.shape(x)[1:])
          for x in arrays]
    xs = client.persist(xs)
    wait(xs)
    per_field = []
    for x in xs:
        by_key = {f.key: f for f in futures_of(x)}
        keys = x.__dask_keys__()
        per_field.append([by_key[_first_key(keys[c])] for c in range(len(chunks))])
    return Partitions(tuple(x.name for x in xs), [tuple(f[c] for f in per_field)
                                                  for c in range(len(chunks))], list(chunks))


def _pieces(client, arrays) -> Partitions:
    """NumPy arrays cut into one piece of rows per worker, each persisted on its worker."""
    workers = live_workers(client)
    n = len(arrays[0])
    bounds = np.linspace(0, n, len(workers) + 1).astype(np.int64)
    blocks, rows, names = [], [], []
    for w, a, b in zip(workers, bounds[:-1], bounds[1:]):
        if b == a:
            continue
        cols = [da.from_array(np.asarray(x)[a:b], chunks=(int(b - a),) + np.shape(x)[1:])
                for x in arrays]
        with warnings.catch_warnings():
            # the graph holds the piece on purpose: it is how a piece lost with its worker is
            # computed again (Dask warns about graphs over 10 MB)
            warnings.filterwarnings("ignore", message="Sending large graph")
            cols = client.persist(cols, workers=[w], allow_other_workers=True)
        blocks.append(tuple(futures_of(c)[0] for c in cols))
        rows.append(int(b - a))
        names.append(tuple(c.name for c in cols))
    wait([f for blk in blocks for f in blk])
    return Partitions(tuple(names), blocks, rows)


def live_workers(client, wait_s=60):
    """The addresses of the workers now (waiting up to `wait_s` for a first one)."""
    workers = sorted(client.scheduler_info().get("workers", {}))
    if not workers:
        try:
            client.wait_for_workers(1, timeout=wait_s)
        except Exception:
            raise JitadError(f"the Dask cluster has no workers (waited {wait_s} s)") from None
        workers = sorted(client.scheduler_info().get("workers", {}))
    return workers


def readers(client, part: Partitions):
    """Per chunk, the worker whose task reads it: a worker that holds it, unless the rows
    would then be unbalanced -- Dask places chunks where it computed them, 23 of 40 on one of
    two workers is common, and the busiest worker sets the time of every call -- in which case
    chunks move from the busiest worker to the idlest (Dask copies such a chunk over once, at
    the first task that reads it there; it stays there as a replica). None: no worker holds it
    now (Dask computes it again wherever the task runs)."""
    futs = [blk[0] for blk in part.blocks]
    who = client.who_has(futs)
    workers = live_workers(client)
    load = {w: 0 for w in workers}
    out = []
    for f, rows in zip(futs, part.rows):
        have = sorted(a for a in (who.get(f.key) or ()) if a in load)
        w = min(have, key=lambda a: (load[a], a)) if have else None
        if w is not None:
            load[w] += rows
        out.append(w)
    for c, w in enumerate(out):          # chunks nobody holds: to the idlest worker
        if w is None:
            out[c] = min(load, key=lambda a: (load[a], a))
            load[out[c]] += part.rows[c]
    while len(load) > 1:
        hi = max(load, key=lambda a: (load[a], a))
        lo = min(load, key=lambda a: (load[a], a))
        mine = [c for c, w in enumerate(out) if w == hi]
        # the chunk whose move leaves the pair closest to even, if it makes the busiest less busy
        c = min(mine, key=lambda c: abs((load[hi] - part.rows[c]) - (load[lo] + part.rows[c])))
        if load[lo] + part.rows[c] >= load[hi]:
            break
        out[c] = lo
        load[hi] -= part.rows[c]
        load[lo] += part.rows[c]
    return out
