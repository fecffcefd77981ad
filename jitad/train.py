"""Training on top of the compiler: `train_step` (optimizer fused into the compiled adjoint)
and `fit` (a compiled epoch loop around it, optionally Hogwild over threads).

Takes: a scalar loss function, the parameters to train, an `optim.Optimizer`, data arrays.
Guarantees: `step(*args, state)` runs ONE compiled function that computes the loss, its
adjoint and the optimizer's in-place update of each parameter; parameters read only as rows
(`U[u]`) are updated on those rows only, with no dense gradient allocated. `fit` runs whole
epochs inside Numba (`nogil`), so the per-sample cost is the compiled step's; with
`threads > 1` the shuffled samples are split among threads that update the shared parameters
lock-free (Hogwild). Arguments that are not parameters are the per-sample data fields.
Arrays the loss reads from globals or closure variables (`capture.Hidden`) are whole arrays
read when the step (or each `fit`) is called, passed after the data fields: never trained,
never indexed per sample.
"""
from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from . import backend as be
from . import __version__, codegen, monadic, optim, parallel, pipeline, threads as th
from .differentiable import Transform, as_differentiable, wrt_indices
from .errors import JitadError, UnsupportedError


# fit(threads > 1) on a model with dense parameters: gradients summed per thread over this
# many steps before one shared write (hierarchical classifier, 2 threads: 1.1x of 1 thread
# with 1, 1.5-1.75x with 4, about the same with 8)
DENSE_THREADS_ACCUMULATE = 4


@dataclass
class TrainState:
    """The optimizer's state arrays, in the order the compiled step takes them."""

    names: list
    arrays: list

    def __getitem__(self, name):
        return self.arrays[self.names.index(name)]

    def __repr__(self):
        return f"TrainState({', '.join(self.names)})"


class train_step(Transform):
    """`step = jitad.train_step(loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=0.05))`;
    `parallel=True`: the loss's independent calls of costly helpers run at the same time, in
    the step's forward and adjoint sweeps (`jitad.parallel`; the update is the sequential one,
    bit for bit)."""

    def __init__(self, loss, wrt=0, optimizer="sgd", parallel=None):
        self.d = as_differentiable(loss, parallel=parallel)
        self.wrt, _ = wrt_indices(self.d, wrt)
        self.optimizer = optim.get(optimizer)
        self.last = None

    @property
    def params(self):
        return [self.d.params[i] for i in self.wrt]

    def specialize(self, *args):
        self.last = self.d.specialize(args, self.wrt, train=self.optimizer, validate=self._validate)
        return self.last

    def _validate(self, entry, argtys):
        name = entry.ir.name
        if entry.ir.out_tree is not None:     # a dict or nested tuple, even of one number
            raise UnsupportedError(
                f"train_step needs {name} to return its loss, one float, not a nested tuple or "
                "a dict", entry.ir.return_loc(), "nested return")
        if not (entry.out and len(entry.out) == 1 and entry.out[0].ndim == 0):
            raise JitadError(f"train_step needs a loss with one float output; {name} "
                             f"returns {', '.join(map(str, entry.out or ()))}")
        for i in self.wrt:
            if argtys[i].ndim == 0:
                raise JitadError(f"train_step updates parameters in place: "
                                 f"'{entry.ir.params[i]}' must be a float array")

    def init(self, *params):
        """Zero optimizer state for these parameter arrays (in `wrt` order)."""
        if len(params) != len(self.wrt):
            raise JitadError(f"init takes the {len(self.wrt)} parameters {', '.join(self.params)}")
        names, arrays = [], []
        for p, arr in zip(self.params, params):
            for s in self.optimizer.slots:
                names.append(f"{p}_{s}")
                arrays.append(np.zeros_like(arr))
            for s in self.optimizer.scalars:
                names.append(f"{p}_{s}")
                arrays.append(np.zeros(1))
        return TrainState(names, arrays)

    def __call__(self, *args):
        *args, state = args
        if not isinstance(state, TrainState):
            raise JitadError("the last argument of a train step is its state: step(*args, step.init(...))")
        comp = self.specialize(*args)
        return comp.run(comp.gen.step, tuple(args) + tuple(state.arrays))

    def compiled(self, *args):
        """The Numba dispatcher `f_step(*args, *state.arrays) -> loss`, for your own @njit code
        (pass the example arguments without the state)."""
        comp = self.specialize(*args)
        return comp.fn(comp.gen.step)

    def source(self):
        comp = self.last
        if comp is None:
            raise JitadError("call the step once (or .specialize(*args)) before asking for its source")
        return comp.gen.functions[comp.gen.step]

    def source_at(self, stage, args=None) -> str:
        """`jitad.source(step, stage)`: the IR, the step's primal ("forward"), the step itself
        ("adjoint"), or what a pass of the pipeline holds (with this optimizer)."""
        if stage in ("monadic", "normalized"):
            if args is not None:
                self.specialize(*args)
            notes = None
            if self.d.parallel and stage == "monadic" and self.last is not None:
                notes = [(d.targets, d.note()) for d in self.last.gen.decisions]
            return monadic.render(pipeline.frontend(self.d.__jitad_function__), notes)
        if stage in pipeline.PASS_NAMES:
            return self.d.text_after(stage, args, self.wrt, self.optimizer)
        if args is not None:
            self.specialize(*args)
        if self.last is None:
            raise JitadError("call the training step once, or pass args=(example arguments "
                             "without the state)")
        gen = self.last.gen
        return gen.functions[gen.primal if stage == "forward" else gen.step]


_EPOCH = '''
def {name}({params}, {data}{hidden}, order, start, stop{state}):
    total = 0.0
    for s in range(start, stop):
        k = order[s]
        total += step({params}, {sample}{hidden}{state}{depth})
    return total
'''

_EPOCH_BATCHED = '''
def {name}({params}, {data}{hidden}, order, start, stop{state}):
    total = 0.0
    for s in range(start, stop):
        lo = order[s] * {batch}
        total += step({params}, {sample}{hidden}{state}{depth})
    return total
'''


_EPOCH_ACCUMULATE = '''
def {name}({params}, {data}{hidden}, order, start, stop{buffers}{state}):
    total = 0.0
    count = 0
    for s in range(start, stop):
        {index}
        total += accumulate({params}, {sample}{hidden}{buffers}{depth})
        count += 1
        if count == {accumulate}:
            apply({params}{buffers}{state})
            count = 0
    if count > 0:
        apply({params}{buffers}{state})
    return total
'''


def _epoch_module(step: train_step, comp, n_data, batch=None, accumulate=1):
    """The compiled epoch loop (one per step signature and loop shape, kept on `comp`)."""
    key = (n_data, batch, accumulate)
    if key not in comp.epochs:
        comp.epochs[key] = epoch_loop(comp.gen, comp.fn, comp.backend, len(step.params), n_data,
                                      batch, accumulate, n_hidden=len(comp.hidden))
    return comp.epochs[key]


def epoch_loop(gen, fn, backend, n_params, n_data, batch=None, accumulate=1, n_hidden=0):
    """The epoch loop around a train step: `(epoch function, its Generated)`.

    `gen` is the step's generated module and `fn(name)` its loaded functions -- a `Compiled`'s
    here, a shipped module's on a Dask worker (`jitad.dask`), which is why this takes the parts
    and not the `Compiled`. The loop is a module of its own (content-hashed like every
    generated module) that calls `step` (or `accumulate`/`apply`) `n_params` parameters first,
    then `n_data` data fields indexed per sample (or sliced per mini-batch of `batch`), then
    `n_hidden` whole arrays (those the loss reads from globals or closure variables)."""
    # every name is jitad's own (param0, state0, buffer0 ...): none can meet the template's
    # locals (order, k, s, total, step ...) whatever the user called the parameters
    params = [f"param{k}" for k in range(n_params)]
    data = [f"data{k}" for k in range(n_data)]
    hidden = "".join(f", hidden{k}" for k in range(n_hidden))
    state = "".join(f", state{k}" for k in range(len(gen.state_params)))
    name = f"{gen.primal}_epoch"     # an identifier jitad generated
    template = _EPOCH if batch is None else _EPOCH_BATCHED
    sample = ", ".join(f"{d}[k]" if batch is None else f"{d}[lo:lo + {batch}]" for d in data)
    fields = dict(name=name, params=", ".join(params), data=", ".join(data), state=state,
                  hidden=hidden,
                  sample=sample, batch=batch,
                  depth=", 0" if gen.step in gen.depth_args else "")  # a recursive loss
    if accumulate > 1:
        template = _EPOCH_ACCUMULATE
        fields.update(accumulate=accumulate, buffers="".join(f", buffer{k}" for k in range(len(gen.buffers))),
                      index="k = order[s]" if batch is None else f"lo = order[s] * {batch}")
    text = (f"# Generated by jitad {__version__}: an epoch of {gen.step} over shuffled "
            f"{'samples' if batch is None else 'mini-batches'}"
            f"{f', updating once per {accumulate} of them' if accumulate > 1 else ''}.\n"
            f"# step source sha256 {codegen.source_hash(gen.source)}\n"
            "import numpy as np\n" + template.format(**fields))
    egen = codegen.Generated(text, primal=name, functions={name: text})
    mod = be.load(egen, backend)
    mod.step = fn(gen.step)
    mod.accumulate = fn(gen.accumulate)
    mod.apply = fn(gen.apply)
    return getattr(mod, name), egen


def _buffers(step, comp, params):
    """One thread's gradient buffers for fit(accumulate=k): a zero array per parameter and,
    for a row-sparse one, which rows it holds (a mark per row; the row count, then the rows)."""
    arrays = dict(zip(comp.gen.wrt_params, params))    # by the IR's names (maybe renamed)
    out = []
    for kind, p, _ in comp.gen.buffers:
        arr = arrays[p]
        out.append(np.zeros_like(arr) if kind == "acc" else
                   np.zeros(arr.shape[0], np.uint8) if kind == "marks" else
                   np.zeros(arr.shape[0] + 1, np.int64))
    return tuple(out)


def specialize_for_fit(step: train_step, params, examples):
    """The step's specialization for training on data fields of which `examples` holds one
    sample (or one mini-batch) each: the loss must take the trained parameters first, then one
    argument per data field."""
    if step.d.params and len(step.params) + len(examples) != len(step.d.params):
        raise JitadError(f"{step.d.__name__} takes {len(step.d.params)} arguments: the "
                         f"{len(step.params)} parameters then {len(step.d.params) - len(step.params)} "
                         f"data fields; got {len(examples)} data arrays")
    if list(step.wrt) != list(range(len(step.params))):
        raise JitadError("fit needs the trained parameters to be the loss's first arguments")
    return step.specialize(*params, *examples)


@dataclass
class History:
    loss: list = field(default_factory=list)       # mean loss per epoch
    seconds: list = field(default_factory=list)    # wall time per epoch
    samples_per_second: list = field(default_factory=list)


def fit(step: train_step, params, data, epochs=1, state=None, threads=1, shuffle=True, seed=0,
        progress=True, callbacks=(), batch_size=None, accumulate=None):
    """Train `params` in place with `step` over per-sample `data` arrays for `epochs`.

    Each sample k calls `step(*params, *(d[k] for d in data), *state)` inside one compiled epoch
    loop; with `batch_size=B` each call gets the mini-batch `d[lo:lo + B]` instead (the order
    of mini-batches is shuffled, their contents are the data's consecutive rows; a trailing
    partial batch is dropped). `threads > 1` splits each shuffled epoch among threads (Hogwild:
    lock-free updates of the shared parameters, best when a step touches few rows).
    `accumulate=k` sums the gradients of k consecutive samples (or mini-batches) in the
    thread's own buffers and applies the optimizer once to that sum: with threads, each thread
    writes the shared parameters k times less often (the Hogwild variant for dense models).
    A row-sparse parameter's buffer receives only the rows the samples read, and the update
    touches only those rows (each once per k samples). The default (`None`) is 1 on one
    thread or when every trained parameter is row-sparse (a BPR step writes three rows;
    buffering them costs more than it saves), else 4: with threads, a dense model whose every
    step writes every weight makes the cores fight over those cache lines.
    `callbacks` are called as `cb(epoch, mean_loss, history)` after each epoch. Returns the
    `History` (mean loss per sample, or per mini-batch)."""
    params = tuple(params)
    data = tuple(np.ascontiguousarray(d) for d in data)
    n = len(data[0])
    if any(len(d) != n for d in data):
        raise JitadError("every data array needs the same number of samples")
    if state is None:
        state = step.init(*params)
    if batch_size is not None:
        n = n // batch_size
        if n == 0:
            raise JitadError(f"batch_size={batch_size} is larger than the data")
        comp = specialize_for_fit(step, params, [d[:batch_size] for d in data])
    else:
        comp = specialize_for_fit(step, params, [d[0] for d in data])
    if threads > 1 and comp.gen.parallel and not parallel.threadsafe():
        raise JitadError("fit(threads > 1) of a parallel=True step needs a thread-safe Numba "
                         "threading layer (omp or tbb; only workqueue is available): use "
                         "threads=1, or train_step(..., parallel=False)")
    if accumulate is None:
        dense = {p for kind, p, _ in comp.gen.buffers} - {p for kind, p, _ in comp.gen.buffers if kind == "rows"}
        accumulate = DENSE_THREADS_ACCUMULATE if threads > 1 and dense else 1
    if accumulate < 1:
        raise JitadError("accumulate must be a positive number of steps")
    accumulate = int(accumulate)
    epoch_fn, _ = _epoch_module(step, comp, len(data), batch_size, accumulate)
    st = tuple(state.arrays)
    hv = comp.hidden_values()           # the arrays the loss reads, as they are now
    bufs = [_buffers(step, comp, params) if accumulate > 1 else () for _ in range(max(threads, 1))]
    rng = np.random.default_rng(seed)
    hist = History()
    bar = _Progress(progress)
    pool = th.pool(threads) if threads > 1 else None
    if pool is not None:
        th.keep_heap()
    try:
        with th.single_threaded_blas() if pool is not None else contextlib.nullcontext():
            for ep in range(epochs):
                order = rng.permutation(n) if shuffle else np.arange(n)
                t0 = time.perf_counter()
                if pool is None:
                    total = epoch_fn(*params, *data, *hv, order, 0, n, *bufs[0], *st)
                else:
                    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
                    futs = [pool.submit(epoch_fn, *params, *data, *hv, order, int(bounds[t]),
                                        int(bounds[t + 1]),
                                        *bufs[t], *st)
                            for t in range(threads)]
                    total = sum(f.result() for f in futs)
                dt = time.perf_counter() - t0
                hist.loss.append(total / n)
                hist.seconds.append(dt)
                hist.samples_per_second.append(n / dt if dt > 0 else float("inf"))
                bar.update(ep + 1, epochs, hist)
                for cb in callbacks:
                    cb(ep, hist.loss[-1], hist)
    except be.CHECKED as e:      # a failed run-time check (an id outside its table): at the user's line
        err = be.check_error(e, comp.gen)
        if err is None:
            raise
        raise err from None
    finally:
        bar.close()
    return hist


class _Progress:
    """tqdm when installed, else one plain line per epoch."""

    def __init__(self, enabled):
        self.enabled = enabled
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(unit="epoch", leave=False)
            except ImportError:
                self.bar = None

    def update(self, ep, epochs, hist):
        if not self.enabled:
            return
        msg = f"loss {hist.loss[-1]:.6g}, {hist.samples_per_second[-1]:,.0f} samples/s"
        if self.bar is not None:
            self.bar.total = epochs
            self.bar.update(1)
            self.bar.set_postfix_str(msg)
        else:
            print(f"epoch {ep}/{epochs}: {msg}", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.close()
