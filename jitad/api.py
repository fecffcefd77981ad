"""The public transformations: `grad`, `value_and_grad`, `vjp`, and `source` (the generated
code after any pass). `differentiable` lives in `differentiable.py`.

Takes: plain Python functions (decorated or not) and their run-time arguments.
Guarantees: each (function, argument signature, wrt) is transformed once per process and
compiled once (on disk across processes); gradients come back shaped like their arguments
(a single gradient for `wrt=int|str`, a tuple for a tuple `wrt`); the caller's arrays are
never written; anything jitad cannot differentiate raises a `JitadError` at the user's line.
"""
from __future__ import annotations

import numpy as np

from . import monadic, pipeline
from .differentiable import Compiled, Transform, as_differentiable, copy_names, wrt_indices
from .errors import JitadError
from .pipeline import frontend
from .types import Ty

def _quick_key(args):
    """A cheap key for the argument kinds (type, and dtype/rank/layout for arrays), or None."""
    key = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            key.append((a.dtype.num, a.ndim, a.flags.c_contiguous))
        elif t in (float, int, bool):
            key.append(t)
        else:
            return None
    return tuple(key)


class _Transformed(Transform):
    """Shared machinery of grad / value_and_grad / vjp objects."""

    def __init__(self, f, wrt, mode="compiled"):
        self._ran = {}
        self.d = as_differentiable(f)
        self.wrt_spec = wrt
        self.wrt, self.single = wrt_indices(self.d, wrt)
        self.mode = mode
        copy_names(self, self.d.__jitad_function__)

    def specialize(self, *args, **kwargs) -> Compiled:
        return self.d.specialize(self.d.bind(args, kwargs), self.wrt)

    def _scalar_check(self, comp):
        if not comp.gen.scalar_output:
            outs = ", ".join(map(str, comp.gen.out_types))
            raise JitadError(f"grad needs a function with one float output; {self.d.__name__} "
                             f"returns ({outs}). Use jitad.vjp(f, wrt=...) and call the pullback "
                             "with a cotangent shaped like the output")

    def _eager(self, args):
        from . import eager
        value, grads = eager.value_and_grad(self.d.__jitad_function__, self.wrt)(*args)
        return value, (grads[0] if self.single else tuple(grads))

    def _value_and_grads(self, args):
        # fast path: the same argument kinds as a call that already ran
        key = _quick_key(args)
        comp = self._ran.get(key)
        if comp is not None and comp.stale():
            self._ran.clear()
            comp = None
        if comp is not None:
            value, grads = comp.run(comp.gen.vjp, args + (1.0,))
            grads = comp.regroup(grads, args)
            return value, (grads[0] if self.single else tuple(grads))
        if self.mode == "eager":
            return self._eager(args)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        comp = self.specialize(*args)
        self._scalar_check(comp)
        value, grads = comp.run(comp.gen.vjp, tuple(args) + (1.0,))
        grads = comp.regroup(grads, args)
        if key is not None:
            self._ran[key] = comp
        return value, (grads[0] if self.single else tuple(grads))

    def compiled(self, *example_args, **kwargs):
        """The compiled function for this signature, callable from your own `@numba.njit`
        code: `grad(...).compiled(x, w)` returns `f_grad(x, w) -> grads` and
        `value_and_grad(...).compiled(x, w)` returns `f_value_and_grad(x, w) -> (value, grads)`
        (it takes every parameter, defaults included, positionally)."""
        comp = self.specialize(*self.d.bind(example_args, kwargs))
        if not isinstance(self, vjp):
            self._scalar_check(comp)
        return comp.fn(self._compiled_name(comp))


class grad(_Transformed):
    """`jitad.grad(f, wrt=0)(*args)`: the gradient of a scalar-valued f."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args, **kwargs):
        return self._value_and_grads(self.d.bind(args, kwargs))[1]

    def _compiled_name(self, comp):
        return comp.gen.grad


class value_and_grad(_Transformed):
    """`jitad.value_and_grad(f, wrt=0)(*args) -> (value, grads)`."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args, **kwargs):
        return self._value_and_grads(self.d.bind(args, kwargs))

    def _compiled_name(self, comp):
        return comp.gen.value_and_grad


class vjp(_Transformed):
    """`y, pullback = jitad.vjp(f, wrt=0)(*args)`; `pullback(cotangent)` gives the grads.

    The pullback re-runs the compiled forward-with-tape and then the adjoint with the given
    cotangent (nothing is kept alive between the two calls)."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        comp = self.specialize(*args)
        y = comp.run(comp.gen.primal, args)
        single = self.single
        outs = comp.gen.out_types

        def pullback(cotangent):
            ct = _cotangent(cotangent, outs, y)
            _, grads = comp.run(comp.gen.vjp, tuple(args) + (ct,))
            grads = comp.regroup(grads, args)
            return grads[0] if single else tuple(grads)

        return y, pullback

    def _compiled_name(self, comp):
        """vjp(...).compiled(*args) is `f_vjp(*args, cotangent) -> (value, grads)`."""
        return comp.gen.vjp


def _cotangent(ct, outs, y):
    """The cotangent as the compiled vjp takes it, checked against the output `y` it pairs with
    (a wrong shape would otherwise be truncated or read past its end)."""
    if len(outs) > 1:
        if not isinstance(ct, tuple) or len(ct) != len(outs):
            raise JitadError(f"the cotangent must be a tuple of {len(outs)} values, like the output")
        return tuple(_cotangent(c, (t,), v) for c, t, v in zip(ct, outs, y))
    t = outs[0]
    if np.shape(ct) != np.shape(y):
        raise JitadError(f"the cotangent must have the output's shape {np.shape(y)}, got shape "
                         f"{np.shape(ct)}")
    if isinstance(t, Ty) and t.ndim == 0:
        return float(ct)
    arr = np.asarray(ct, dtype=np.float64 if t.dtype != "f4" else np.float32)
    return np.ascontiguousarray(arr)


STAGES = ("monadic", "normalized", "forward", "adjoint") + pipeline.PASS_NAMES


def source(f, stage="adjoint", args=None, wrt=None) -> str:
    """The generated code of `f` at a stage: "monadic" (do-notation of the IR), "forward"
    (the compiled primal), "adjoint" (the fused forward-with-tape and adjoint), or what any
    pass of the pipeline has produced (`jitad.pipeline.PASS_NAMES`: "capture", "normalize",
    "specialize", "plan", "primal", ..., "module").

    Stages after "normalize" are specialized to a signature: pass example `args=(...)` (and
    `wrt`), or call a gradient of `f` first and the last specialization is shown."""
    if stage not in STAGES:
        raise JitadError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    if hasattr(f, "source_at"):              # a training step shows its own functions
        return f.source_at(stage, args)
    if isinstance(f, _Transformed):
        wrt = f.wrt_spec if wrt is None else wrt
        f = f.d
    d = as_differentiable(f)
    if stage in ("monadic", "normalized"):
        return monadic.render(frontend(d.__jitad_function__))
    if stage in pipeline.PASS_NAMES:
        return d.text_after(stage, args, None if wrt is None and args is None else
                            wrt_indices(d, 0 if wrt is None else wrt)[0])
    if args is not None:
        wrt_idx = wrt_indices(d, 0 if wrt is None else wrt)[0]
        comp = d.specialize(tuple(args), wrt_idx if stage == "adjoint" else None)
    else:
        comp = d.last
        if comp is None:
            raise JitadError(f"jitad.source({d.__name__}, {stage!r}) needs a signature: pass "
                             "args=(example arguments) or call a gradient of it first")
        if stage == "adjoint" and comp.gen.vjp is None:
            raise JitadError("no gradient of this function has been compiled yet; pass args= and wrt=")
    gen = comp.gen
    if stage == "forward":
        return gen.functions[gen.primal]
    names = [n for n in gen.functions if n != gen.primal and not n.startswith(gen.primal + "_grad")
             and n != gen.value_and_grad and n != gen.grad]
    # the entry's own vjp last, callees' before it
    body = [gen.functions[n] for n in names if n != gen.vjp] + [gen.functions[gen.vjp]]
    return "\n\n".join(body)
