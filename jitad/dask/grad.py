"""`jd.value_and_grad`: the full-batch gradient of a loss that is a sum over the rows of its
dask-array arguments, each chunk's part computed on the worker that holds it.

Takes: a plain function `loss(w, X, y, ...)`, `wrt` (as `jitad.value_and_grad`), optionally a
regulariser `reg(w)` of the differentiated arguments alone, and at each call the arguments:
dask arrays chunked by rows (the data) and anything else (parameters, constants).
Guarantees: the value and gradient of `loss(all rows) + reg(w)`, shaped as
`jitad.value_and_grad` shapes them, provided the loss is additive over rows (the contract
below); the function is specialized and its code generated once, on the client, for the
chunks' types; it travels as text (`ship.Shipped`, scattered to every worker once); the data
is persisted once and reused while the same dask arrays are passed; each call sends the
non-data arguments and gets back one partial value and gradient per worker, added up in the
order of the workers' first chunks (so the same call gives the same bits). Which worker reads
which chunks (`data.readers`) is decided at the first call and kept while the tasks run where
they were placed, the data is the same, and the placement is younger than
`PLACEMENT_SECONDS`: a call then costs the client no round trip to the scheduler besides
submitting the tasks and gathering their results. A call whose tasks Dask cancels because a
value scattered from the client (the module, the arguments) was lost with a worker is run once
more, after scattering them again.
The contract: `loss(w, X, y) == sum over chunks c of loss(w, X[c], y[c])` -- a sum over rows
of per-row terms. A term of `w` alone (a regulariser) goes in `reg=`, which the client adds
once; a mean is a sum divided by the number of rows (divide the whole-data sum yourself, or
fold 1/n into the loss as a constant). The first call checks it on one chunk (the loss of the
chunk against the sum of the losses of its two halves, value and gradient) and refuses a loss
that is not additive there with a `JitadError` saying which of the two it looks like; the
check is a test at one point, not a proof (a regulariser that is 0 at the first point passes
it).
Invariants: a NumPy argument is the same for every chunk; one as long as the data is refused
(it would be passed whole to every chunk); a dask array may not be differentiated.
"""
from __future__ import annotations

import itertools
import time
import uuid
from concurrent.futures import CancelledError

import numpy as np
from .. import api
from ..differentiable import as_differentiable, refuse_outputs, wrt_indices
from ..errors import JitadError
from ..ship import Shipped
from . import worker
from .data import distribute, is_dask_array, readers, row_chunks
from .client import get_client, send

_CALLS = itertools.count()
# a chunk's loss against the sum of its halves' (value and gradient): relative tolerance
ADDITIVE_RTOL = 1e-7
# the chunks' placement is asked of the scheduler again after this long (workers that joined
# get work), or at once when a task ran on another worker than planned (one left)
PLACEMENT_SECONDS = 10.0


def refuse_hidden(comp, name):
    """The refusal of a function that reads arrays from globals or closure variables (they are
    read on the client at every call, and a worker has none of the client's variables)."""
    if comp.hidden:
        names = ", ".join(repr(h.name) for h in comp.hidden)
        raise JitadError(f"jitad.dask runs {name} on workers, which get its parameters, data "
                         f"and generated code but not the arrays it reads from globals or "
                         f"closure variables ({names}): pass them as arguments", comp.loc)


class value_and_grad:
    """`jd.value_and_grad(loss, wrt=0, reg=None, client=None, check=True)(w, X, y)`
    -> `(value, grads)`, as `jitad.value_and_grad(loss, wrt)` would return them on the
    gathered data (plus `reg`), each chunk's part computed on a worker that holds it.

    The data arguments are the dask arrays among the call's arguments, chunked by rows alike
    (whole rows per chunk); every other argument is sent to every chunk as it is, and the
    `wrt` arguments must be among those (NumPy arrays or numbers). The contract: `loss` is a
    sum over the rows of its data arguments -- `loss(all rows) == sum over chunks of
    loss(chunk)` -- so the partial values and gradients add up; `reg`, a function of the `wrt`
    arguments alone (a regulariser), is evaluated once on the client and added. With `check`,
    the first call per signature and data tests the contract on one chunk and raises a
    `JitadError` if the loss is not additive there. The first call also specializes the
    function (on the client), ships it to the workers and persists the data; later calls
    with the same dask arrays send only the other arguments and get back one partial result
    per worker. Misuse raises a `JitadError` naming the argument; an error in the loss on a
    worker is raised here, at the user's line. `self.last` holds what the last call's tasks
    reported (worker, compute and CPU seconds, first-call compile time, disk-cache hit)."""

    def __init__(self, f, wrt=0, reg=None, client=None, check=True):
        self.d = as_differentiable(f)
        self.wrt, self.single = wrt_indices(self.d, wrt)
        self.client = client
        self.check = check
        self.reg = None
        if reg is not None:
            rd = as_differentiable(reg)
            if len(rd.params) != len(self.wrt):
                names = ", ".join(self.d.params[i] for i in self.wrt)
                raise JitadError(f"reg takes the differentiated arguments of {self.d.__name__} "
                                 f"({names}) and nothing else; {rd.__name__} takes "
                                 f"{len(rd.params)} arguments")
            self.reg = api.value_and_grad(reg, wrt=tuple(range(len(self.wrt))))
        self._token = uuid.uuid4().hex[:8]
        self._data = None           # (names, Partitions)
        self._shipped = {}          # (id of the Compiled, client id) -> (Compiled, future)
        self._checked = set()
        self._placement = None      # ((data names, client id), time, [(worker, chunks)])
        self.last = None            # what the last call did (per-worker timings)
        self.__name__ = getattr(self.d, "__name__", "loss")

    def _layout(self, args):
        slots = tuple(k for k, a in enumerate(args) if is_dask_array(a))
        if not slots:
            raise JitadError(f"jd.value_and_grad({self.__name__}) got no dask array: pass the "
                             "data as dask arrays chunked by rows (or use jitad.value_and_grad)")
        for w in self.wrt:
            if w in slots:
                raise JitadError(f"'{self.d.params[w]}' is a dask array, but it is differentiated: "
                                 "the differentiated arguments travel to every worker -- pass a "
                                 "NumPy array (the data arguments are the dask arrays)")
        n = sum(row_chunks([args[k] for k in slots], [self.d.params[k] for k in slots]))
        for k, a in enumerate(args):
            if k not in slots and isinstance(a, np.ndarray) and a.ndim >= 1 and len(a) == n and n > 1:
                raise JitadError(
                    f"'{self.d.params[k]}' is a NumPy array with as many rows ({n:,}) as the dask "
                    "arguments: it would be passed whole with every chunk; make it a dask array "
                    f"chunked like them (da.from_array({self.d.params[k]}, "
                    f"chunks=({self.d.params[slots[0]]}.chunks[0],) + {self.d.params[k]}.shape[1:]))")
        return slots

    def _example(self, args, slots):
        """The arguments with each dask array replaced by an empty NumPy array of its dtype and
        row shape: what the chunks will be typed as."""
        ex = list(args)
        for k in slots:
            a = args[k]
            ex[k] = np.empty((0,) + tuple(a.shape[1:]), dtype=a.dtype)
        return tuple(ex)

    def _partitions(self, client, args, slots):
        names = tuple(args[k].name for k in slots)
        if self._data is None or self._data[0] != names:
            self._data = (names, distribute(client, [args[k] for k in slots],
                                            [self.d.params[k] for k in slots]))
        return self._data[1]

    def _groups(self, client, part):
        """[(worker, its chunks)] in the order of their first chunks: the last placement, or
        a new one (`data.readers`) if it is stale."""
        key = (part.names, id(client))
        p = self._placement
        if p is None or p[0] != key or time.monotonic() - p[1] > PLACEMENT_SECONDS:
            groups = {}
            for c, w in enumerate(readers(client, part)):
                groups.setdefault(w, []).append(c)
            self._placement = p = (key, time.monotonic(),
                                   sorted(groups.items(), key=lambda kv: kv[1][0]))
        return p[2]

    def _ship(self, client, comp):
        k = (id(comp), id(client))
        got = self._shipped.get(k)
        if got is None or got[0] is not comp:
            fut = client.scatter([Shipped.of(comp)], broadcast=True, hash=False)[0]
            self._shipped = {k: (comp, fut)}
            got = self._shipped[k]
        return got[1]

    def __call__(self, *args, **kwargs):
        client = get_client(self.client)
        args = self.d.bind(args, kwargs)
        slots = self._layout(args)
        part = self._partitions(client, args, slots)
        example = self._example(args, slots)
        comp = self.d.specialize(example, self.wrt)
        refuse_hidden(comp, self.d.__name__)
        if not comp.gen.scalar_output:
            refuse_outputs("grad", self.d.__name__, comp.gen.out_types, comp.loc)
        shipped = self._ship(client, comp)
        consts = tuple(None if k in slots else a for k, a in enumerate(args))
        check = self.check and (comp.gen.source, part.names) not in self._checked
        # one task per worker over the chunks it holds (a lost worker's task runs elsewhere)
        groups = self._groups(client, part)
        call = next(_CALLS)
        try:
            outs = self._run(client, shipped, consts, slots, check, part, groups, call, 0)
        except CancelledError:
            # a value scattered from here (the shipped module, the arguments) was lost with a
            # worker -- Dask may keep a broadcast value on one worker only -- and cannot be
            # recomputed: scatter both again and run the call once more
            self._shipped, self._placement = {}, None
            shipped = self._ship(client, comp)
            groups = self._groups(client, part)
            outs = self._run(client, shipped, consts, slots, check, part, groups, call, 1)
        if any(o["info"]["worker"] != w for o, (w, _) in zip(outs, groups)):
            self._placement = None          # a worker left (or the scheduler moved a task)
        value, acc, rows, infos, checked = 0.0, None, 0, [], None
        for out in outs:
            value += out["value"]
            acc = worker.add(acc, out["grads"])
            rows += out["rows"]
            infos.append(out["info"])
            checked = checked or out["check"]
        if rows != part.n_rows:
            raise JitadError(f"internal: the tasks read {rows:,} rows of {part.n_rows:,}")
        if check:
            if checked is not None:
                self._refuse_if_not_additive(checked, comp.loc)
            self._checked.add((comp.gen.source, part.names))
        grads = comp.regroup(tuple(acc), args)
        if self.reg is not None:
            rv, rg = self.reg(*(args[w] for w in self.wrt))     # wrt a tuple: grads a tuple
            value += rv
            grads = tuple(g + r for g, r in zip(grads, rg))
        self.last = {"workers": len(outs), "rows": rows, "tasks": infos}
        return value, (grads[0] if self.single else tuple(grads))

    def _run(self, client, shipped, consts, slots, check, part, groups, call, attempt):
        """Submit one task per (worker, chunks) and gather their results, in group order."""
        sent = send(client, consts)
        futs = []
        for g, (w, chunks) in enumerate(groups):
            futs.append(client.submit(
                worker.gradient_part, shipped, sent, slots, check and g == 0, *part.flat(chunks),
                key=(f"jitad-grad-{call}", self._token, g, attempt),
                workers=None if w is None else [w], allow_other_workers=True, pure=False))
        return client.gather(futs)          # one round trip for all

    def _refuse_if_not_additive(self, c, loc):
        halves = c["first"] + c["second"]
        scale = abs(c["first"]) + abs(c["second"]) + abs(c["value"])
        value_ok = abs(c["value"] - halves) <= ADDITIVE_RTOL * scale + 1e-300
        grad_ok = c["grad_gap"] <= ADDITIVE_RTOL * c["grad_scale"] + 1e-300
        if value_ok and grad_ok:
            return
        n, h = c["rows"], c["half"]
        mean = (h * c["first"] + (n - h) * c["second"]) / n
        if abs(c["value"] - mean) <= 1e-6 * scale:
            why = ("it looks like a mean over the rows: return the sum (and divide by the total "
                   "number of rows outside, or fold 1/n into the loss as a constant)")
        else:
            why = (f"the halves add up to {halves - c['value']:+.6g} more than the whole: a term "
                   "that does not grow with the rows, such as a regulariser of the parameters "
                   "alone, is counted once per chunk -- pass it as reg= (a function of the "
                   "differentiated arguments)")
        what = "value" if not value_ok else "gradient"
        raise JitadError(
            f"jd.value_and_grad needs {self.__name__} to be a sum over the rows of its dask "
            f"arguments, and its {what} is not: on a chunk of {n:,} rows, {self.__name__} = "
            f"{c['value']:.10g}, but its first {h:,} rows give {c['first']:.10g} and the other "
            f"{n - h:,} give {c['second']:.10g}; {why}", loc)
