"""The public API: `differentiable`, `grad`, `value_and_grad`, `vjp`, `source`.

Takes: plain Python functions (decorated or not) and their run-time arguments.
Guarantees: each (function, argument signature, wrt) is transformed once per process and
compiled once (on disk across processes); gradients come back shaped like their arguments
(a single gradient for `wrt=int|str`, a tuple for a tuple `wrt`); the caller's arrays are
never written; anything jitad cannot differentiate raises a `JitadError` at the user's line.
"""
from __future__ import annotations

import copy
import functools
import inspect
import sys
import threading
import weakref
from dataclasses import dataclass, field

import numpy as np

from . import backend as be
from . import codegen, monadic, primitives
from .capture import capture, first_changed
from .errors import JitadError, NotDifferentiableError
from .fence import fence
from .normalize import normalize
from .typeinfer import Program
from .types import TupleTy, Ty, ty_of_value

def cache_of(fn) -> dict:
    """jitad's in-process cache for one function, kept on the function object itself (its
    front-end result, its implicit `Differentiable`): it lives and dies with the function, so
    closures made by the thousand do not pile up in a global table. A wrapper that copied
    the function's `__dict__` (`functools.wraps`) does not share it: the cache names its owner."""
    cache = fn.__dict__.get("__jitad_cache__")
    if cache is None or cache["owner"]() is not fn:
        cache = {"owner": weakref.ref(fn)}
        fn.__dict__["__jitad_cache__"] = cache
    return cache


# transformations run one at a time: `ast.parse` is not safe to call from several threads at
# once, and a function's first callers must all get the one specialization
_TRANSFORMING = threading.RLock()


def frontend(fn):
    """capture -> fence -> normalize, once per function object (a fresh copy per use)."""
    fn = getattr(fn, "__jitad_function__", fn)
    with _TRANSFORMING:
        return _frontend(fn)


def _frontend(fn):
    from . import extend
    extend.load_plugins()
    cache = cache_of(fn)
    version, f = cache.get("frontend", (None, None))
    if version != primitives.version():      # a rule registered since (defvjp) may change the IR
        cap = capture(fn)
        fence(cap)
        f = normalize(cap)
        cache["frontend"] = (primitives.version(), f)
    return copy.deepcopy(f, {id(f.captured): f.captured})


@dataclass
class Compiled:
    """One specialization: the generated module and its functions."""

    gen: codegen.Generated
    module: object
    backend: str
    argtys: tuple
    wrt: tuple
    epochs: dict = field(default_factory=dict)   # fit's compiled epoch loops, by loop shape
    captured: tuple = ()    # every transformed function's capture (free names it read)
    watch: tuple = ()       # their free names, flat (see capture.first_changed)
    rules_version: int = -1  # primitives.version() it was generated under

    def stale(self) -> bool:
        """Whether a global or closure variable a transformed function reads now means another
        value than when this was generated (its constants are inlined in the code), or a
        derivative rule was registered since (`defvjp`)."""
        return self.rules_version != primitives.version() or first_changed(self.watch) is not None

    def fn(self, name):
        return getattr(self.module, name)

    def run(self, name, args):
        if name in self.gen.depth_args:          # a recursive entry starts at depth 0
            args = tuple(args) + (0,)
        return be.run(self.fn(name), args, self.gen, self.backend)

    @property
    def compiled_ran(self) -> bool:
        """True once the Numba-compiled gradient has run (not a Python fallback)."""
        if self.backend != "numba" or self.gen.vjp is None:
            return False
        return len(getattr(self.fn(self.gen.vjp), "signatures", ())) > 0

    @property
    def dispatcher(self):
        """The compiled `f_vjp(params..., d_out)` (a Numba dispatcher on the numba backend)."""
        return self.fn(self.gen.vjp)


class Transform:
    """What jitad's transformations (`grad`, `value_and_grad`, `vjp`, `train_step`) return.
    Transforming one again (`grad(grad(f))`) is refused until transformations compose: the
    source jitad would read is `f`'s, not the code that runs."""


def plain_function(fn):
    """The plain Python function to transform for `fn`, or a JitadError saying why not."""
    if isinstance(fn, Differentiable):
        return fn.__jitad_function__
    if isinstance(fn, Transform):
        raise JitadError(f"{type(fn).__name__}({getattr(fn, '__name__', '...')}) is already a "
                         "transformed function; transforming it again (e.g. grad(grad(f))) is not "
                         "supported yet -- differentiate the plain function f")
    if not inspect.isfunction(fn):
        raise JitadError(f"jitad transforms plain Python functions (defined with `def`), got "
                         f"{type(fn).__name__} {fn!r}")
    return fn


def _copy_names(wrapper, fn):
    """The function's name and docs on a wrapper -- but no `__wrapped__`: the wrapper does not
    run `fn`'s code, so tools that follow `__wrapped__` to the source must not find it."""
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, attr, getattr(fn, attr, None))


class Differentiable:
    """A function jitad compiles; calling it runs the compiled forward."""

    def __init__(self, fn, backend="numba"):
        fn = plain_function(fn)
        self.__jitad_function__ = fn
        self.backend = backend
        self._specs: dict = {}
        self.last: Compiled | None = None
        functools.update_wrapper(self, fn)     # it runs fn's code (compiled): `__wrapped__` is fn

    @functools.cached_property
    def params(self):
        return list(inspect.signature(self.__jitad_function__).parameters)

    def specialize(self, args, wrt=None, train=None, validate=None) -> Compiled:
        """The compiled module for these arguments: the primal only (`wrt=None`), with the vjp
        for `wrt`, or with a training step for optimizer `train`. `validate(entry, argtys)`
        may refuse the typed function before code is generated."""
        argtys = tuple(ty_of_value(a) for a in args)
        key = (argtys, wrt, None if train is None else train.key())
        comp = self._specs.get(key)
        if comp is None or comp.stale():
            with _TRANSFORMING:      # one transformation at a time; the others then find it
                comp = self._specs.get(key)
                if comp is not None and comp.stale():
                    self.forget(comp)
                    comp = None
                if comp is None:
                    comp = self._specs[key] = self._generate(argtys, wrt, train, validate)
        self.last = comp
        return comp

    def _generate(self, argtys, wrt, train, validate) -> Compiled:
        fn = self.__jitad_function__
        if any(isinstance(t, TupleTy) for t in argtys):
            raise JitadError(f"{fn.__name__}: tuple arguments are not supported; pass arrays "
                             "or scalars")
        prog = Program(frontend)
        entry = prog.specialize(fn, argtys)
        if wrt is not None:
            for i in wrt:
                t = argtys[i]
                if not t.is_float:
                    raise NotDifferentiableError(
                        f"cannot differentiate {fn.__name__} with respect to argument "
                        f"'{entry.ir.params[i]}' of type {t}: pass a float (e.g. "
                        f"{entry.ir.params[i]}=float(...)) or a float array", entry.ir.loc,
                        "integer argument")
        if validate is not None:
            validate(entry, argtys)
        gen = codegen.generate(prog, entry, wrt or (), want_vjp=wrt is not None, train=train)
        module = be.load(gen, self.backend)
        captured = tuple(sp.ir.captured for sp in prog.order)
        return Compiled(gen, module, self.backend, argtys, wrt, captured=captured,
                        watch=tuple(w for c in captured for w in c.watch()),
                        rules_version=primitives.version())

    def forget(self, comp: Compiled):
        """Drop every specialization and front-end result that read a changed free name."""
        for c in comp.captured:
            cache_of(c.fn).pop("frontend", None)
        self._specs.clear()

    def __call__(self, *args):
        if any(_is_eager_var(a) for a in args):
            # recording for eager mode (`y = f(Var(...)); y.backward()`): run the plain function
            from .eager import eager_function
            return eager_function(self.__jitad_function__)(*args)
        comp = self.specialize(args)
        return comp.run(comp.gen.primal, args)

    def __repr__(self):
        return f"<jitad.differentiable {self.__jitad_function__.__qualname__}>"


def _is_eager_var(a) -> bool:
    eager = sys.modules.get("jitad.eager.core")      # no Var can exist before eager is imported
    return eager is not None and isinstance(a, eager.Var)


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


def _as_differentiable(f, backend=None) -> Differentiable:
    if isinstance(f, Differentiable):
        return f
    f = plain_function(f)
    cache = cache_of(f)
    key = ("differentiable", backend or "numba")
    d = cache.get(key)
    if d is None:
        d = cache[key] = Differentiable(f, backend or "numba")
    return d


def differentiable(fn=None, *, backend="numba"):
    """Decorator: `@jitad.differentiable` or `@jitad.differentiable(backend="python")`."""
    if fn is None:
        return lambda f: Differentiable(f, backend)
    return Differentiable(fn, backend)


def _wrt_indices(d: Differentiable, wrt):
    params = d.params
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    idx = []
    for w in items:
        if isinstance(w, (bool, np.bool_)):
            raise JitadError(f"wrt must be an int, a parameter name, or a tuple of them; got {w!r}")
        if isinstance(w, str):
            if w not in params:
                raise JitadError(f"{d.__name__} has no parameter named {w!r} (parameters: "
                                 f"{', '.join(params)})")
            idx.append(params.index(w))
        elif isinstance(w, (int, np.integer)):
            if not -len(params) <= w < len(params):
                raise JitadError(f"wrt={w} is out of range: {d.__name__} has {len(params)} parameters")
            idx.append(int(w) % len(params))
        else:
            raise JitadError(f"wrt must be an int, a parameter name, or a tuple of them; got {w!r}")
    return tuple(idx), single


class _Transformed(Transform):
    """Shared machinery of grad / value_and_grad / vjp objects."""

    def __init__(self, f, wrt, mode="compiled"):
        self._ran = {}
        self.d = _as_differentiable(f)
        self.wrt_spec = wrt
        self.wrt, self.single = _wrt_indices(self.d, wrt)
        self.mode = mode
        _copy_names(self, self.d.__jitad_function__)

    def specialize(self, *args) -> Compiled:
        return self.d.specialize(args, self.wrt)

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
            return value, (grads[0] if self.single else tuple(grads))
        if self.mode == "eager":
            return self._eager(args)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        comp = self.specialize(*args)
        self._scalar_check(comp)
        value, grads = comp.run(comp.gen.vjp, tuple(args) + (1.0,))
        if key is not None:
            self._ran[key] = comp
        return value, (grads[0] if self.single else tuple(grads))

    def compiled(self, *example_args):
        """The compiled function for this signature, callable from your own `@numba.njit`
        code: `grad(...).compiled(x, w)` returns `f_grad(x, w) -> grads` and
        `value_and_grad(...).compiled(x, w)` returns `f_value_and_grad(x, w) -> (value, grads)`."""
        comp = self.specialize(*example_args)
        if not isinstance(self, vjp):
            self._scalar_check(comp)
        return comp.fn(self._compiled_name(comp))


class grad(_Transformed):
    """`jitad.grad(f, wrt=0)(*args)`: the gradient of a scalar-valued f."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args):
        return self._value_and_grads(args)[1]

    def _compiled_name(self, comp):
        return comp.gen.grad


class value_and_grad(_Transformed):
    """`jitad.value_and_grad(f, wrt=0)(*args) -> (value, grads)`."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args):
        return self._value_and_grads(args)

    def _compiled_name(self, comp):
        return comp.gen.value_and_grad


class vjp(_Transformed):
    """`y, pullback = jitad.vjp(f, wrt=0)(*args)`; `pullback(cotangent)` gives the grads.

    The pullback re-runs the compiled forward-with-tape and then the adjoint with the given
    cotangent (nothing is kept alive between the two calls)."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args):
        comp = self.specialize(*args)
        y = comp.run(comp.gen.primal, args)
        single = self.single
        outs = comp.gen.out_types

        def pullback(cotangent):
            ct = _cotangent(cotangent, outs, y)
            _, grads = comp.run(comp.gen.vjp, tuple(args) + (ct,))
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


STAGES = ("monadic", "normalized", "forward", "adjoint")


def source(f, stage="adjoint", args=None, wrt=None) -> str:
    """The generated code of `f` at a stage: "monadic" (do-notation of the IR), "forward"
    (the compiled primal), "adjoint" (the fused forward-with-tape and adjoint).

    "forward"/"adjoint" are specialized to a signature: pass example `args=(...)` (and `wrt`),
    or call a gradient of `f` first and the last specialization is shown."""
    if stage not in STAGES:
        raise JitadError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    from .train import train_step
    if isinstance(f, train_step):
        if stage in ("monadic", "normalized"):
            return monadic.render(frontend(f.d.__jitad_function__))
        if args is not None:
            f.specialize(*args)
        if f.last is None:
            raise JitadError("call the training step once, or pass args=(example arguments "
                             "without the state)")
        gen = f.last.gen
        return gen.functions[gen.primal if stage == "forward" else gen.step]
    if isinstance(f, _Transformed):
        wrt = f.wrt_spec if wrt is None else wrt
        f = f.d
    d = _as_differentiable(f)
    if stage in ("monadic", "normalized"):
        return monadic.render(frontend(d.__jitad_function__))
    if args is not None:
        wrt_idx = _wrt_indices(d, 0 if wrt is None else wrt)[0]
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
