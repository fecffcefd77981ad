"""jitad on a Dask cluster: full-batch gradients and data-parallel training over data that
stays on the workers (`pip install "jitad[dask]"`; `import jitad` never imports this).

    from dask.distributed import Client, LocalCluster
    import jitad.dask as jd
    client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    value, g = jd.value_and_grad(loss, wrt=0)(w, X, y)      # X, y: dask arrays chunked by rows
    hist = jd.fit(step, (U, V), data=(users, items, negs), epochs=10, rounds_per_epoch=4)

Takes: plain functions and `jitad.train_step`s, as the rest of jitad does; data as dask
arrays chunked by rows (or, for `fit`, NumPy arrays, which it persists on the workers); a
`distributed.Client` (`client=`, else Dask's default client).
Guarantees:
  * The function travels as generated source, never as itself: the client runs jitad's
    pipeline once per signature (for the chunks' types), and ships the generated module's
    text with the names and facts that rebuild it (`jitad.ship.Shipped`, scattered to every
    worker once with `broadcast=True`). A worker writes it to the same content-hashed file in
    its own jitad cache directory and imports it, once per worker process; Numba compiles it
    at its first call there, and a later worker process on that machine loads it from
    Numba's disk cache. So a function defined in a notebook or in `__main__` works, and the
    user's source file is never needed on a worker. Workers need the same jitad version
    (refused otherwise) and NumPy/Numba.
  * The data is persisted once and never gathered to the client. Per call of
    `value_and_grad` only the parameters travel to the workers (scattered, broadcast when
    large) and one partial gradient per worker comes back. `fit` submits an epoch as one
    graph: the parameters go to the workers once an epoch; every round each replica's report
    (the rows it changed, its sample count) goes straight to the other replicas' workers,
    whose next task combines them, so rounds do not wait for the client; the client fetches
    the epoch's result. Tasks have names the dashboard shows: `jitad-grad-<call>`,
    `jitad-fit-round-<round>`, `jitad-fit-combine-<round>`.
  * `value_and_grad` equals `jitad.value_and_grad` on the gathered data for a loss that is a
    sum over rows plus an optional `reg=` term of the parameters alone (checked once on one
    chunk; see `jitad.dask.grad`). `fit` is local SGD: one replica per worker holding data,
    trained with `jitad.fit`'s compiled epoch loop, combined every round row by row
    (`jitad.dask.combine`): by default a parameter the step reads by index (an embedding)
    gets every replica's change added, as one process would apply every sample, and a dense
    one the average of the replicas, weighted by samples (on a dense model the plain
    sample-weighted average, bit for bit); `combine="average"` or `"sum"` for all;
    the optimizer state stays per replica on its worker (see `jitad.dask.fit`).
  * A worker lost mid-round is Dask's to recover: its task runs again on another worker on
    the same samples (its partitions recomputed from their graph), and `History.events` says
    so. Misuse is a `JitadError` naming the argument: data chunked along a later axis, row
    chunks that differ between arguments, a dask array where a parameter goes, a NumPy array
    as long as the data among the non-data arguments, a loss that is not a sum over rows.
Invariants: the parameters given to `fit` hold its result when it returns; this package
imports Dask, nothing else in jitad does.
"""
try:
    import dask.array  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:        # pragma: no cover - depends on the installation
    raise ImportError('jitad.dask needs Dask: pip install "jitad[dask]" '
                      f'(or "dask[distributed]") ({e})') from e

from .fit import History, Round, fit
from .grad import value_and_grad

__all__ = ["value_and_grad", "fit", "History", "Round"]
