"""Functions jitad compiles: `Differentiable`, its specializations (`Compiled`), and what
every transformation shares.

Takes: plain Python functions (decorated or not) and the argument signatures they are called
with.
Guarantees: each (function, argument signature, wrt, optimizer) is run through the back end
(`pipeline.BACKEND`) once per process -- again only when a value it captured changed or a rule
was registered since (`Compiled.stale`) -- and compiled once (on disk across processes: the
generated module is recalled without running the passes again, see `recall`, and Numba's
cache holds its machine code); for
eager mode, each (function, signature, wrt) is run through the checking passes alone
(`pipeline.CHECKING`, `Differentiable.check`) once per process, on the same terms; a
function jitad cannot transform (a transformed function, a non-`def` callable) is refused by
`plain_function` with a `JitadError`; `wrt_indices` maps `wrt` (indices or names) to indices;
`refuse_outputs` is the one check of what a transformation needs its function to return.
The arrays a function reads from globals or closure variables (`capture.Hidden`) are not
arguments of the call: `specialize`, `check` and `Compiled.run` take the call's own arguments
and read those arrays themselves at every call (`hidden_values`), after which they are the
compiled code's last parameters (before a cotangent, tangents, a training state). Their types
are part of the signature (a new dtype or rank: a new specialization); their values are not
(a write into one, or a rebinding to an array of the same type, is seen by the next call with
no new code). `Compiled.stale` is true once one of them has another type than the code was
made for.
"""
from __future__ import annotations

import functools
import inspect
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from . import backend as be
from . import codegen, pipeline, primitives
from .capture import Hidden, capture, first_changed
from .errors import JitadError
from .pipeline import TRANSFORMING, cache_of, frontend
from .types import (NoneTy, int_leaves_skipped, is_structured, leaf_types, leaves, rebuild,
                    structure, ty_of_value)


def quick_key(args):
    """A cheap key for the argument kinds (type, and dtype/rank/layout for arrays), or None
    (a key a signature's `ty_of_value` types always agree on: the fast path of a call)."""
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


def _stale(rules_version, watch) -> bool:
    """Whether a global or closure variable a transformed function reads now means another
    value than when it was transformed, or a derivative rule was registered since."""
    return rules_version != primitives.version() or first_changed(watch) is not None


def refuse_outputs(what, name, out_types, loc=None):
    """The refusal of a function `name` whose outputs (`out_types`) transformation `what`
    cannot take -- `grad` (and `value_and_grad`), `hessian`, `hvp`: one float; `jacfwd`,
    `jacrev`: one array or number -- at its `def` (`loc`), the same in both modes."""
    outs = ", ".join(map(str, out_types))
    if what in ("jacfwd", "jacrev"):
        raise JitadError(f"{what} needs a function with one output (an array or a number); "
                         f"{name} returns ({outs})", loc)
    if what in ("hessian", "hvp"):
        raise JitadError(f"{what} needs a function with one float output; {name}'s output "
                         "is an array (use jacfwd/jacrev of grad for the derivatives of a "
                         "gradient)", loc)
    raise JitadError(f"grad needs a function with one float output; {name} returns ({outs}). "
                     "For (value, aux) give has_aux=True; else use jitad.vjp(f, wrt=...) and "
                     "call the pullback with a cotangent shaped like the output", loc)


@dataclass
class Checked:
    """A signature the checking passes (`pipeline.CHECKING`) accepted, for eager mode: what the
    entry returns, and what decides when it must be checked again (as `Compiled.stale`)."""

    out: tuple              # the entry's output types
    loc: object             # the entry's `def`
    captured: tuple = ()
    watch: tuple = ()
    rules_version: int = -1

    def stale(self) -> bool:
        return _stale(self.rules_version, self.watch)


def _skips_ints(mode) -> bool:
    """Whether the gradients of this mode (`Differentiable.specialize`) leave a structure's
    integer leaves out: grad, value_and_grad and vjp (their gradient None there, in both
    modes); jvp, the Jacobians and Hessians take every leaf (an integer one refused)."""
    return mode in (None, "grads", "into")


def _skipped(t, mode) -> list:
    """Per leaf of a wrt argument of type `t`: whether the gradient leaves it out (an integer
    leaf of a structure with other leaves, `types.int_leaves_skipped`)."""
    lts = leaf_types(t)
    return int_leaves_skipped(lts) if _skips_ints(mode) and is_structured(t) \
        else [False] * len(lts)


def flatten_args(args, structs):
    """The arguments with each structured one (tuple, list, dict, nested) replaced by its arrays
    and scalars, checked against the structure the code was compiled for."""
    out = []
    for k, a in enumerate(args):
        if k < len(structs) and structs[k] is not None:
            out.extend(leaves(a, structs[k]))
        else:
            out.append(a)
    return tuple(out)


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
    # JITAD_TIMINGS=1: each function's first call (Numba's compile) is timed and reported;
    # otherwise a call pays one test of `timed`
    timed: bool = field(default_factory=lambda: pipeline.timings_on())
    called: set = field(default_factory=set)
    structs: tuple = ()     # per parameter: the type of the structure it was given, or None
    loc: object = None      # the entry's `def` (where a refusal of its outputs points)
    recalled: bool = False  # its code was read back from disk, not transformed (`recall`)
    hidden: tuple = ()      # the arrays read at every call (`capture.Hidden`): last in argtys
    _fit: tuple | None = field(default=None, repr=False)   # (value, dtype, ndim) checked last
    ints_skipped: bool = True   # a structure's integer leaves have no gradient (`_skips_ints`)

    def __post_init__(self):
        # the functions compiled with Numba's CPython wrapper: the only ones `run` may call
        self.python_callable = be.python_callable(self.gen)

    def regroup(self, grads, args):
        """The gradients of the entry's flat parameters regrouped like the arguments: a tuple
        (list, namedtuple, dict, nested) argument gets one of its structure."""
        if not any(self.structs):
            return grads
        it = iter(grads)
        return tuple(rebuild(args[w], it, ints_none=self.ints_skipped)
                     if self.structs[w] is not None else next(it) for w in self.wrt)

    def stale(self) -> bool:
        """Whether a global or closure variable a transformed function reads now means another
        value than when this was generated (its constants are inlined in the code), or a
        derivative rule was registered since (`defvjp`), or an array it reads at every call
        has another type now."""
        return _stale(self.rules_version, self.watch) or (
            bool(self.hidden) and not self._hidden_fit())

    def _hidden_fit(self) -> bool:
        """Whether the hidden arrays' values have the types the code was made for: the very
        arrays checked last time, with the same dtype and rank, cost a few attribute reads."""
        try:
            values = self.hidden_values()
        except JitadError:
            return False
        last = self._fit
        if last is not None and all(v is a and type(v) is np.ndarray and v.dtype is d
                                    and v.ndim == n for v, (a, d, n) in zip(values, last)):
            return True
        n = len(self.argtys) - len(self.hidden)
        if any(ty_of_value(v) != t for v, t in zip(values, self.argtys[n:])):
            return False
        self._fit = tuple((v, getattr(v, "dtype", None), getattr(v, "ndim", None))
                          for v in values)
        return True

    def hidden_values(self) -> tuple:
        """The values of the arrays the code reads at every call (`hidden`), read now."""
        return Hidden.read_all(self.hidden)

    def with_hidden(self, args, values=None) -> tuple:
        """The call's arguments followed by the hidden arrays' values (`values`, or read now):
        the compiled entry's parameters, with what comes after them (a cotangent, tangents)."""
        if not self.hidden:
            return tuple(args)
        n = len(self.argtys) - len(self.hidden)
        args = tuple(args)
        return args[:n] + (self.hidden_values() if values is None else values) + args[n:]

    def fn(self, name):
        return getattr(self.module, name)

    def run(self, name, args, hidden=None):
        """Function `name` of the module called with the call's arguments `args` (and what
        follows them); the hidden arrays (`with_hidden`: `hidden`, or read now) are put after
        the arguments."""
        if self.backend == "numba" and name not in self.python_callable:
            # compiled without Numba's CPython wrapper: a call from Python would crash
            raise JitadError(f"internal error: {name} is only callable from compiled code "
                             "(backend.python_callable does not name it)")
        if self.hidden:
            args = self.with_hidden(args, hidden)
        if any(self.structs):                     # a tuple argument: its elements, one by one
            args = flatten_args(args, self.structs)
        if name in self.gen.depth_args:          # a recursive entry starts at depth 0
            args = tuple(args) + (0,)
        if not self.timed or name in self.called:
            return be.run(self.fn(name), args, self.gen, self.backend)
        t0 = time.perf_counter()
        out = be.run(self.fn(name), args, self.gen, self.backend)
        self.called.add(name)
        pipeline.first_call(name, time.perf_counter() - t0)
        return out

    @property
    def compiled_ran(self) -> bool:
        """True once the Numba-compiled gradient (or jvp, or Jacobian) has run (not a Python
        fallback)."""
        if self.backend != "numba":
            return False
        names = [n for n in (self.gen.vjp, self.gen.grads, self.gen.jvp, self.gen.jacfwd,
                             self.gen.jacrev, self.gen.hessian) if n] + list(self.gen.shaped.values())
        return any(len(getattr(self.fn(n), "signatures", ())) > 0 for n in names)

    @property
    def dispatcher(self):
        """The compiled `f_vjp(params..., d_out)` (a Numba dispatcher on the numba backend)."""
        return self.fn(self.gen.vjp)


class Transform:
    """What jitad's transformations (`grad`, `value_and_grad`, `vjp`, `train_step`) return.
    Those with `derivable` set (grad: False, value_and_grad: True -- whether the value comes
    too) are functions the transformations take again (`grad(grad(f))`, see `higher`)."""

    derivable = None
    # how a call of it inside a transformed function is compiled (`higher.called`): "grad"
    # (grad, value_and_grad), "jacobian" (jacfwd, jacrev), "hessian"; None: it is not
    called_inside = None


def is_transform_class(obj) -> bool:
    """Whether `obj` is a transformation a transformed function may call the result of
    (`jitad.grad(f)(x)`, `jitad.jacfwd(f)(x)`, `jitad.hessian(f)(x)`: `higher.called`)."""
    return isinstance(obj, type) and issubclass(obj, Transform) and obj.called_inside is not None


def called_transform(obj):
    """`higher.called(obj)`: a `grad(f)` / `value_and_grad(f)` object as a helper other
    transformed code calls, or None."""
    from .higher import called
    return called(obj)


def made_transform(cls, f, args, kw):
    """`higher.made`: `cls(f, *args, **kw)`, one object per function and arguments."""
    from .higher import made
    return made(cls, f, args, kw)


def plain_function(fn):
    """The plain Python function to transform for `fn`, or a JitadError saying why not."""
    if isinstance(fn, Differentiable):
        return fn.__jitad_function__
    if isinstance(fn, Transform):
        raise JitadError(f"{type(fn).__name__}({getattr(fn, '__name__', '...')}) is already a "
                         "transformed function; of those, grad and value_and_grad can be "
                         "transformed again (grad(grad(f)), jacfwd(grad(f)) ...) -- "
                         "differentiate the plain function f")
    if not inspect.isfunction(fn):
        call = getattr(type(fn), "__call__", None)
        hint = " (an object called as a function: give jitad its bound method, " \
            "jitad.grad(model.__call__))" if inspect.isfunction(call) else ""
        raise JitadError(f"jitad transforms plain Python functions (defined with `def`), got "
                         f"{type(fn).__name__} {fn!r}{hint}")
    return fn


def copy_names(wrapper, fn):
    """The function's name and docs on a wrapper -- but no `__wrapped__`: the wrapper does not
    run `fn`'s code, so tools that follow `__wrapped__` to the source must not find it."""
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, attr, getattr(fn, attr, None))


class Differentiable:
    """A function jitad compiles; calling it runs the compiled forward."""

    def __init__(self, fn, backend="numba", parallel=False):
        fn = plain_function(fn)
        self.__jitad_function__ = fn
        self.backend = backend
        self.parallel = bool(parallel)   # independent helper calls dispatched (`jitad.parallel`)
        self._specs: dict = {}
        self._checked: dict = {}      # (argtys or quick_key, wrt) -> Checked (eager mode)
        self.last: Compiled | None = None
        self._hidden = None           # capture(fn).hidden, until `forget`
        functools.update_wrapper(self, fn)     # it runs fn's code (compiled): `__wrapped__` is fn

    def concrete(self, args):
        """The `Differentiable` that runs for these arguments: itself (a `higher.Derived`
        makes one per signature)."""
        return self

    def concrete_for(self, argtys):
        """`concrete` by the arguments' types."""
        return self

    @functools.cached_property
    def params(self):
        return list(inspect.signature(self.__jitad_function__).parameters)

    @property
    def hidden(self) -> tuple:
        """The arrays the function (and the helpers it calls) reads from globals or closure
        variables: `capture.Hidden`s, passed after the parameters (see the module docstring)."""
        if self._hidden is None:
            self._hidden = capture(self.__jitad_function__).hidden
        return self._hidden

    @property
    def all_params(self) -> list:
        """The compiled entry's parameters: the function's, then the hidden ones."""
        return self.params + [h.param for h in self.hidden]

    def hidden_values(self) -> tuple:
        """The hidden arrays' values, read now."""
        return Hidden.read_all(self.hidden) if self.hidden else ()

    def signature(self, args) -> tuple:
        """The argument types of a call (`args`: bound, see `bind`), the hidden arrays' types
        last: what specializations are keyed on."""
        return tuple(ty_of_value(a) for a in tuple(args) + self.hidden_values())

    def bind(self, args, kwargs):
        """The call's arguments as one positional tuple: keyword arguments put in their place
        and defaults filled in, as Python would (`loss(w, X, y)` of `def loss(w, X, y,
        lam=0.1)`); `args` itself when it already names every parameter."""
        if not kwargs and len(args) == len(self.params):
            return args
        n = len(self.params)
        if not kwargs and self.hidden and len(args) == n + len(self.hidden) and all(
                a is v for a, v in zip(args[n:], self.hidden_values())):
            return tuple(args[:n])      # bound already, the hidden arrays after (`Derived`)
        sig = inspect.signature(self.__jitad_function__)
        params = list(sig.parameters.values())
        defaults = [p.default is not p.empty for p in params]
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) for p in params) \
                or any(a and not b for a, b in zip(defaults, defaults[1:])):
            # *args, **kwargs, a keyword-only parameter with no default after one with one
            # (`capture` cannot make it a plain parameter): the front end refuses them
            return args
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise JitadError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def specialize(self, args, wrt=None, train=None, validate=None, mode=None) -> Compiled:
        """The compiled module for these arguments: the primal only (`wrt=None`), with the vjp
        for `wrt`, or with a training step for optimizer `train`; `mode="jvp"`: with the
        jvp (forward mode) and jacfwd for `wrt` instead, `mode="jacrev"`: the vjp and jacrev,
        `mode=("hessian", basis)`: the vjp and the loop over the basis parameters (`higher`;
        `("hessian", basis, "parallel")`: its columns at the same time),
        `mode="into"`: the vjp and `f_value_and_grad_into` (gradients added into buffers),
        `mode="grads"`: the vjp and `f_grads` (the vjp without its value).
        `validate(entry, argtys)` may refuse the typed function before code is generated."""
        argtys = self.signature(args)
        key = (argtys, wrt, None if train is None else train.key()) + ((mode,) if mode else ())
        comp = self._specs.get(key)
        if comp is None or comp.stale():
            with TRANSFORMING:      # one transformation at a time; the others then find it
                comp = self._specs.get(key)
                if comp is not None and comp.stale():
                    self.forget(comp)
                    comp = None
                    argtys = self.signature(args)   # the hidden arrays may be others now
                    key = (argtys,) + key[1:]
                if comp is None:
                    comp = self._specs[key] = self._generate(argtys, wrt, train, validate, mode)
        self.last = comp
        return comp

    def check(self, args, wrt=None, all_leaves=False) -> Checked:
        """Run the checking passes (`pipeline.CHECKING`: the front end of every function
        reached, type inference, the integer-`wrt` check, the analyses' refusals) for these
        arguments and `wrt` (None: the primal), once per signature and wrt -- again only when
        a value the functions read changed or a rule was registered since -- without making
        any code: eager mode's guarantee that it refuses what compiled mode refuses, with the
        same `JitadError`. A call after the first costs a key and a staleness test.
        `all_leaves`: for a jvp or Jacobian, whose wrt takes a structure's integer leaves too
        (refused, `_skips_ints`)."""
        hidden = self.hidden_values()
        quick = quick_key(tuple(args) + hidden)
        got = self._checked.get((quick, wrt, all_leaves)) if quick is not None else None
        if got is not None and not got.stale():
            return got
        argtys = tuple(ty_of_value(a) for a in tuple(args) + hidden)
        # every leaf in wrt differs from a gradient's only where a structure has an integer
        # leaf beside others: otherwise the same checks, run once
        asked, all_leaves = all_leaves, all_leaves and any(any(_skipped(argtys[w], None))
                                                            for w in wrt or ())
        key = (argtys, wrt, all_leaves)
        got = self._checked.get(key)
        if got is None or got.stale():
            with TRANSFORMING:
                got = self._checked.get(key)
                if got is not None and got.stale():
                    self.forget(got)
                    got = None
                if got is None:
                    # "all_leaves": the primal's checks (a vjp's), with every leaf in wrt
                    job = pipeline.run(pipeline.CHECKING, self.job(
                        argtys, wrt, mode="all_leaves" if all_leaves else None))
                    captured = pipeline.watched(job.prog)
                    got = self._checked[key] = Checked(
                        job.entry.out or (), job.entry.ir.loc, captured,
                        watch=tuple(w for c in captured for w in c.watch()),
                        rules_version=primitives.version())
        if quick is not None:
            self._checked[(quick, wrt, asked)] = got
        return got

    def _generate(self, argtys, wrt, train, validate, mode=None) -> Compiled:
        job = pipeline.generate(self.job(argtys, wrt, train, validate, mode))
        return Compiled(job.gen, job.module, self.backend, argtys, wrt, captured=job.watched,
                        watch=tuple(w for c in job.watched for w in c.watch()),
                        rules_version=primitives.version(),
                        structs=tuple(t if is_structured(t) else None for t in argtys),
                        loc=job.loc, recalled=job.recalled, hidden=self.hidden,
                        ints_skipped=_skips_ints(mode))

    def forms(self, argtys) -> tuple:
        """The structures and constants the parameters are given in a signature: what the
        entry's front end is made for (`frontend(fn, forms)`, see `normalize.structs`)."""
        return tuple((p, t.form() if isinstance(t, NoneTy) else
                      ("struct", structure(t))) for p, t in zip(self.all_params, argtys)
                     if is_structured(t))

    def out_tree(self, args):
        """The nested structure the function returns for these arguments
        (`ir.Function.out_tree`: tuples and dicts of 0s; the generated code returns its leaves
        flat), None when it returns a value or a flat tuple. Kept per signature and code object
        (the API asks at every call of vjp, jvp and the Jacobians; the front end costs ~30 us)."""
        key = (self.signature(args), id(getattr(self.__jitad_function__, "__code__", None)))
        trees = self.__dict__.setdefault("_out_trees", {})
        if key not in trees:
            trees[key] = self.entry_ir(args).out_tree
        return trees[key]

    def entry_ir(self, args):
        """The front end's IR of the function for these arguments, as type inference reads it
        (`pipeline.typed_frontend` of the entry specialized to its structures' forms)."""
        job = self.job(self.signature(args))
        entry = pipeline.specialized(job.fn, job.forms) if job.forms else job.fn
        return pipeline.typed_frontend(entry, job.argtys)

    def job(self, argtys, wrt=None, train=None, validate=None, mode=None) -> pipeline.Job:
        """The back end's job for a signature (see `pipeline.BACKEND`). A parameter given a
        structure (a tuple, list, namedtuple or dict of arrays and scalars, nested too) becomes
        one parameter per array or scalar: the front end of this function is made for that
        structure (`frontend(fn, forms)`), `wrt` names each of them."""
        fn = self.__jitad_function__
        forms = self.forms(argtys)
        for w in wrt or ():
            if isinstance(argtys[w], NoneTy):
                raise JitadError(f"cannot differentiate {fn.__name__} with respect to "
                                 f"'{self.params[w]}': it is {argtys[w]} here")
        if forms:
            if train is not None:
                raise JitadError(f"{fn.__name__}: train_step takes arrays and scalars, not "
                                 "tuples, lists or dicts; pass the parameters one by one")
            starts, flat = [], []
            for t in argtys:
                starts.append(len(flat))
                flat.extend(leaf_types(t))
            if wrt is not None:
                # a gradient skips a structure's integer leaves (None in it: `regroup`)
                wrt = tuple(starts[w] + k for w in wrt
                            for k, skip in enumerate(_skipped(argtys[w], mode))
                            if not skip)
            argtys = tuple(flat)
        hessian = mode[1] if isinstance(mode, tuple) and mode[0] == "hessian" else ()
        columns = bool(hessian) and len(mode) > 2 and mode[2] == "parallel"
        return pipeline.Job(fn, argtys, wrt or (), want_vjp=wrt is not None and mode != "jvp",
                            want_jvp=mode == "jvp", jacobian=mode == "jacrev", hessian=hessian,
                            parallel_columns=columns,
                            into=mode == "into", grads=mode == "grads",
                            train=train,
                            backend=self.backend, validate=validate,
                            frontend=frontend, forms=forms, parallel=self.parallel)

    def text_after(self, stage, args=None, wrt=None, train=None, mode=None) -> str:
        """What the pipeline holds after pass `stage` (see `pipeline.stage_text`), for the
        signature of `args` (or of the last specialization) and `wrt`."""
        fn = self.__jitad_function__
        if stage in (p.name for p in pipeline.FRONTEND):
            job = pipeline.run(pipeline.FRONTEND, pipeline.Job(fn), stop_after=stage)
            return pipeline.stage_text(job, stage)
        if args is not None:
            argtys = self.signature(args)
        elif self.last is not None:
            argtys, wrt = self.last.argtys, self.last.wrt if wrt is None else wrt
        else:
            raise JitadError(f"jitad.source({self.__name__}, {stage!r}) needs a signature: pass "
                             "args=(example arguments) or call the function first")
        with TRANSFORMING:
            job = pipeline.run(pipeline.BACKEND, self.job(argtys, wrt, train, mode=mode),
                               stop_after=stage)
        return pipeline.stage_text(job, stage)

    def forget(self, stale):
        """Drop every specialization, checked signature and front-end result that read a
        changed free name (`stale`: a `Compiled` or `Checked` that is stale)."""
        pipeline.forget_frontends(stale.captured)
        self._specs.clear()
        self._checked.clear()
        self._hidden = None

    def __call__(self, *args, **kwargs):
        if any(_is_eager_var(a) for a in args) or any(_is_eager_var(a) for a in kwargs.values()):
            # recording for eager mode (`y = f(Var(...)); y.backward()`): run the plain function
            from .eager import eager_function
            return eager_function(self.__jitad_function__)(*args, **kwargs)
        args = self.bind(args, kwargs)
        comp = self.specialize(args)
        return comp.run(comp.gen.primal, args)

    def __repr__(self):
        return f"<jitad.differentiable {self.__jitad_function__.__qualname__}>"


def _is_eager_var(a) -> bool:
    eager = sys.modules.get("jitad.eager.var")      # no Var can exist before eager is imported
    return eager is not None and isinstance(a, eager.Var)


def as_differentiable(f, backend=None, parallel=None) -> Differentiable:
    """The `Differentiable` of `f`; `parallel=True`/`False` asks for one that does (not)
    dispatch independent helper calls (None: `f`'s own, or False for a plain function)."""
    if isinstance(f, Differentiable):
        if parallel is None or bool(parallel) == f.parallel or type(f) is not Differentiable:
            return f
        backend, f = f.backend, f.__jitad_function__
    if isinstance(f, Transform) and f.derivable is not None:
        from .higher import Derived
        return Derived(f)
    from . import bound
    if bound.is_bound(f):               # functools.partial, a bound method (`jitad.bound`)
        return bound.bound_differentiable(f, backend, parallel)
    f = plain_function(f)
    cache = cache_of(f)
    key = ("differentiable", backend or "numba") + (("parallel",) if parallel else ())
    d = cache.get(key)
    if d is None:
        d = cache[key] = Differentiable(f, backend or "numba", parallel=bool(parallel))
    return d


def differentiable(fn=None, *, backend="numba", parallel=False):
    """Decorator: `@jitad.differentiable`, `@jitad.differentiable(backend="python")`;
    `parallel=True`: the entry's independent calls of costly helpers run at the same time
    where they are large enough (`jitad.parallel`; docs/parallel.md)."""
    if fn is None:
        return lambda f: differentiable(f, backend=backend, parallel=parallel)
    from . import bound
    if bound.is_bound(fn):
        return bound.bound_differentiable(fn, backend, parallel)
    return Differentiable(fn, backend, parallel)


def wrt_indices(d: Differentiable, wrt):
    """(indices into the bound arguments, whether wrt is one parameter): an int counts the
    parameters the caller gives, after those a partial or a method binds first (`d.bound`);
    a name, one of those parameters."""
    lead = getattr(d, "bound", 0)
    idx, single = _wrt_indices(d, wrt, d.params[lead:])
    return tuple(i + lead for i in idx), single


def _wrt_indices(d: Differentiable, wrt, params):
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:       # nothing to differentiate: a mistake, not an empty gradient
        raise JitadError(f"wrt=() names no parameter of {d.__name__}: give at least one (an "
                         f"int or a parameter name)")
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
                code = getattr(getattr(d, "__jitad_function__", None), "__code__", None)
                star = " and *args, which jitad refuses (it needs a fixed list of parameters)" \
                    if code is not None and code.co_flags & inspect.CO_VARARGS else ""
                raise JitadError(f"wrt={w} is out of range: {d.__name__} has {len(params)} "
                                 f"parameters{star}")
            idx.append(int(w) % len(params))
        else:
            raise JitadError(f"wrt must be an int, a parameter name, or a tuple of them; got {w!r}")
    return tuple(idx), single
