"""Higher order: the generated forward-mode code, read again as a function jitad transforms.

Takes: a `Differentiable`, the argument types of one call and `wrt` (the differentiated
parameters).
Guarantees: `tangent_function(d, argtys, wrt)` is a plain Python function
`f_tangent(params..., d_w...) -> tangent of f's output along (d_w...)` (a tuple, list or dict
argument is one parameter per array or scalar in it, as in the compiled code), made from the very
code `jitad.jvp` compiles (the `tangent` pass's output, callees' jvps as its helpers) printed
as Python source; the source is registered with `linecache` under a name of its own, so the
front end captures it exactly as it captures a user's file. A callee the jvp runs without
tangents is the user's own function (called with its keyword-only parameters by keyword) or,
for one specialized on a structure or constant, its generated primal (made `reentrant` too). Transforming it again composes
transformations on generated code:
  * reverse over forward: `grad(f_tangent, wrt)(args, v) = H v` (the Hessian-vector product,
    by the symmetry of second derivatives), and a loop of those over a basis is the Hessian;
  * a transformed function (`grad(f)`, `value_and_grad(f)`) is itself a function of f's
    arguments: `derived_function` writes it as a call of f's tangent function (for a float
    `wrt`, the derivative is the tangent along 1.0; for an array, one tangent per basis
    vector), so `grad(grad(f))`, `jacrev(grad(f))`, `jvp(grad(f))` ... are ordinary
    transformations of generated code, and so on to any order.
A `JitadError` raised while transforming the generated code names the user's line the
generated line came from (`user_lines`; through every level of generated code, for a third
derivative), like every other error.
Invariants: the generated source is deterministic (its name is its hash), so Numba's disk
cache serves it in the next process; the bounds checks of the jvp are left out (the front end
puts its own in when it reads the code again); a recursive function's jvp keeps its depth
argument (an integer the front end reads like any other; the entry is called with 0 by a
wrapper that also passes zero tangents its recursive calls take beyond `wrt`).
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import linecache
import math
import types
import weakref

import numpy as np

from . import codegen, pipeline, primitives, runtime
from .capture import capture, def_name, first_changed
from .primitives import runtime_calls
from .errors import JitadError, Loc
from .names import Namer
from .pipeline import cache_of
from .types import DictTy, NoneTy, TupleTy, Ty, is_structured

_GENERATED: dict = {}        # pseudo file name -> {generated line: (user file, user line)}


def tangent_function(d, argtys, wrt):
    """The tangent function of `d` for a signature (see the module docstring), made once per
    (signature, wrt) and kept in `d`'s function's cache -- made again when a global or closure
    variable the functions read now means another object, or a rule was registered since
    (as `Compiled.stale` decides for the first derivatives)."""
    cache = cache_of(d.__jitad_function__)
    key = ("tangent_function", argtys, wrt)
    got = cache.get(key)
    if got is not None:
        fn, captured, version = got
        if version == primitives.version() and \
                first_changed(tuple(w for c in captured for w in c.watch())) is None:
            return fn
        pipeline.forget_frontends(captured)   # a global it read was rebound: read them again
    version = primitives.version()
    fn, captured = _make(d, argtys, wrt)
    cache[key] = (fn, captured, version)
    return fn


def tangent_watch(d, argtys, wrt) -> tuple:
    """What `tangent_function` checks before it serves its cached function (the free names of
    every function it was made from): a caller keeping the compiled result checks it too."""
    got = cache_of(d.__jitad_function__).get(("tangent_function", argtys, wrt))
    return () if got is None else tuple(w for c in got[1] for w in c.watch())


def _make(d, argtys, wrt):
    name = def_name(d.__jitad_function__)
    with pipeline.TRANSFORMING:
        job = d.job(argtys, wrt, mode="jvp")
        job.reentrant = True
        job = pipeline.run(pipeline.BACKEND, job, stop_after="tangent")
    # a structured argument is one parameter per leaf here (`Differentiable.job`)
    argtys, wrt = job.argtys, job.wrt
    gen = job.gen
    out = job.entry.out or ()
    if len(out) != 1 or not isinstance(out[0], Ty):
        raise JitadError(f"second derivatives of {name} need one array or float output; it "
                         f"returns ({', '.join(map(str, gen.out_types))})", job.entry.ir.loc)
    jvps = {f.name: f for f in job.funcs if f.name in gen.jvps}
    # the callees the jvp calls without tangents (their primal): the user's own functions,
    # or their generated primal where a specialization made one (`normalize.structs`)
    callees, primals = {}, []
    for spec in job.prog.order:
        pname = job.plan.fnames.get((id(spec.fn), spec.argtys))
        if spec is job.entry or pname is None:
            continue
        # (a function reading arrays at every call takes them as parameters only as generated;
        # a recursive one counts its depth in an argument the user's function does not have)
        if isinstance(spec.fn, types.FunctionType) and not capture(spec.fn).hidden \
                and (id(spec.fn), spec.argtys) not in job.plan.cycles:
            callees[pname] = spec.fn
        else:
            primals += [f for f in job.funcs if f.name == pname]
    primal = None
    if capture(d.__jitad_function__).hidden:
        # f's value, for `derived_function`: its primal, which takes the arrays f reads at
        # every call as parameters (f itself reads them, and would be read with them hidden)
        primal = job.plan.fnames.get((id(job.entry.fn), job.entry.argtys))
        primals += [f for f in job.funcs if f.name == primal]
    entry = jvps[gen.jvp]
    tname = job.plan.unique(f"{name}_tangent")
    if gen.jvp in gen.depth_args or tuple(gen.jvp_args) != tuple(wrt):
        # a recursive entry (its jvp counts its depth and may take tangents its recursive
        # calls need): called with depth 0, zero tangents for those, its tangent returned
        params = list(job.entry.ir.params)
        fresh = Namer(params).fresh
        tans = {i: fresh(f"d_{params[i]}") for i in wrt}
        given = [tans[i] if i in tans else
                 (f"np.zeros_like({params[i]})" if argtys[i].ndim else "0.0")
                 for i in gen.jvp_args]
        depth = ["0"] if gen.jvp in gen.depth_args else []
        value, tangent = fresh("value"), fresh("tangent")
        wrapper = ast.parse(f"def {tname}({', '.join(params + list(tans.values()))}):\n"
                            f"    {value}, {tangent} = "
                            f"{gen.jvp}({', '.join(params + given + depth)})\n"
                            f"    return {tangent}\n")
        order = [f for n, f in jvps.items() if n != gen.jvp] + [entry, wrapper.body[0]]
    else:
        ret = entry.body[-1]
        assert isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
        entry.body[-1] = ast.Return(ret.value.elts[1])      # the tangent only
        entry.name = tname
        order = [f for n, f in jvps.items() if n != gen.jvp] + [entry]
    lines, lmap = [], {}
    for fdef in primals + order:
        _drop_checks(fdef.body)
        _AsNumpy().visit(fdef)
        _KeywordOnly(callees).visit(fdef)
        body, m = codegen.print_function(fdef)
        lmap.update({len(lines) + k + 1: v for k, v in m.items()})
        lines += body + ["", ""]
    text = "\n".join(lines)
    filename = f"<jitad {tname} {hashlib.sha256(text.encode()).hexdigest()[:16]}>"
    captured = tuple(sp.ir.captured for sp in job.prog.order)
    fn = _define(text, filename, tname, lmap, callees)
    fn.__jitad_out_ndim__ = out[0].ndim      # 0: f returns a number
    # the name of f's primal in its module (None: f itself gives the value), and whether it
    # counts its depth (a recursive f: called with 0)
    fn.__jitad_value__ = primal and (primal, primal in gen.depth_args)
    return fn, captured


def text_of(fn) -> str:
    """The generated source a function of this module was made from."""
    return "".join(linecache.getlines(fn.__code__.co_filename))


def _define(text, filename, name, lmap, callees):
    """Run generated source as a module of its own (NumPy, math, the runtime and the
    `callees` as globals) and return its function `name`; the front end reads the source
    back from `linecache`."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    _GENERATED[filename] = lmap
    namespace = {"np": np, "math": math, "rt": runtime, "__name__": "jitad_generated",
                 runtime_calls.NAMESPACE_NAME: runtime_calls.NAMESPACE, **callees}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


# the checks `bounds` and recursion put in (the front end puts its own in again); a check a
# primitive makes (`rt.check_len` of a list unpacked) is kept: it is the program's semantics
_BOUNDS_CHECKS = frozenset({"check_index", "check_indices", "check_range", "check_depth"})


def _drop_checks(block):
    """Remove the bounds checks (`_BOUNDS_CHECKS` statements) from a block, recursively."""
    keep = []
    for s in block:
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                and isinstance(s.value.func, ast.Attribute) \
                and isinstance(s.value.func.value, ast.Name) and s.value.func.value.id == "rt" \
                and s.value.func.attr in _BOUNDS_CHECKS:
            continue
        for field in ("body", "orelse"):
            sub = getattr(s, field, None)
            if isinstance(sub, list):
                _drop_checks(sub)
                if not sub and field == "body":
                    sub.append(ast.Pass())
        keep.append(s)
    block[:] = keep


class _AsNumpy(ast.NodeTransformer):
    """`rt.stack_list(xs)` -> `np.array(xs)` (`runtime_calls.AS_NUMPY`): the list forms the
    front end reads."""

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == "rt" \
                and node.attr in runtime_calls.AS_NUMPY:
            return ast.Attribute(ast.Name("np", ast.Load()), runtime_calls.AS_NUMPY[node.attr],
                                 ast.Load())
        return node


class _KeywordOnly(ast.NodeTransformer):
    """A call of a user's function (a callee the jvp runs without tangents) that has
    keyword-only parameters: generated code passes every parameter by position, in the order
    of the function's parameters; those past its positional ones are given by keyword."""

    def __init__(self, callees):
        self.kwonly = {}
        for name, fn in callees.items():
            code = getattr(fn, "__code__", None)
            if code is not None and code.co_kwonlyargcount:
                n = code.co_argcount
                self.kwonly[name] = (n, code.co_varnames[n:n + code.co_kwonlyargcount])

    def visit_Call(self, node):
        self.generic_visit(node)
        got = isinstance(node.func, ast.Name) and self.kwonly.get(node.func.id)
        if got and len(node.args) > got[0]:
            n, names = got
            node.keywords = [ast.keyword(k, a) for k, a in zip(names, node.args[n:])] \
                + node.keywords
            node.args = node.args[:n]
        return node


def derived_function(d, argtys, wrt, single, with_value, jacobian=False):
    """`grad(f, wrt)` (`with_value`: `value_and_grad`) as a plain function of f's arguments
    for one signature: each gradient is the tangent of f along 1.0 for a float parameter, and
    a loop over the basis vectors for an array one (one tangent per element). A tuple, list or
    dict argument not in `wrt` is passed on leaf by leaf (`data[0]`, `p["W"]`: the tangent
    function takes its leaves); one in `wrt` is refused (its gradient is a structure, which
    generated code does not return: `hessian` and `hvp` take it)."""
    name = def_name(d.__jitad_function__)
    for i in wrt:
        if is_structured(argtys[i]):
            raise JitadError(f"transforming grad({name}) again with respect to the tuple, list "
                             f"or dict {d.params[i]!r}: its gradient is one too; use "
                             f"jitad.hessian({name}) (its blocks in that structure, as "
                             f"jacfwd(grad({name})) would give them) or jitad.hvp({name})")
    cache = cache_of(d.__jitad_function__)
    key = ("derived_function", argtys, wrt, single, with_value, jacobian)
    tan = tangent_function(d, argtys, wrt)
    got = cache.get(key)
    if got is not None and got[0] is tan:       # made from the current tangent function
        return got[1]
    params = list(d.all_params)      # the arrays f reads at every call are parameters here
    value, depth = getattr(tan, "__jitad_value__", None) or (None, False)
    fresh = Namer(set(params) | {name, tan.__name__, "np", value}).fresh
    leaves = [x for p, t in zip(params, argtys) for x in _leaf_exprs(p, t)]
    basis, k_ = fresh("basis"), fresh("k")
    lines, outs = [], []
    for k, i in enumerate(wrt):
        p, g = params[i], fresh(f"g_{params[i]}")
        zeros = [f"np.zeros_like({params[j]})" if argtys[j].ndim else "0.0" for j in wrt]
        if argtys[i].ndim == 0:
            tans = list(zeros)
            tans[k] = "1.0"
            lines.append(f"{g} = {tan.__name__}({', '.join(leaves + tans)})")
        elif jacobian and tan.__jitad_out_ndim__:
            # a vector-valued f's Jacobian, out.shape + p.shape: the column of the first basis
            # vector tells the output's shape, then a column per basis vector
            tans = list(zeros)
            tans[k] = f"{basis}.reshape({p}.shape)"
            flat, first = fresh(f"{g}_flat"), fresh(f"{g}_first")
            column = f"{tan.__name__}({', '.join(leaves + tans)})"
            lines += [f"{basis} = np.zeros({p}.size)", f"{basis}[0] = 1.0",
                      f"{first} = {column}", f"{basis}[0] = 0.0",
                      f"{flat} = np.empty(({first}.size, {p}.size))",
                      f"for {k_} in range({p}.size):", f"    {basis}[{k_}] = 1.0",
                      f"    {flat}[:, {k_}] = {column}.ravel()",
                      f"    {basis}[{k_}] = 0.0", f"{g} = {flat}.reshape({first}.shape + {p}.shape)"]
        else:
            tans = list(zeros)
            tans[k] = f"{basis}.reshape({p}.shape)"
            flat = fresh(f"{g}_flat")       # a name keeps one rank: the flat buffer apart
            lines += [f"{flat} = np.empty({p}.size)", f"{basis} = np.zeros({p}.size)",
                      f"for {k_} in range({p}.size):", f"    {basis}[{k_}] = 1.0",
                      f"    {flat}[{k_}] = {tan.__name__}({', '.join(leaves + tans)})",
                      f"    {basis}[{k_}] = 0.0", f"{g} = {flat}.reshape({p}.shape)"]
        outs.append(g)
    grads = outs[0] if single else "(" + ", ".join(outs) + ",)"
    call = f"{value}({', '.join(params + ['0'] * depth)})" if value else \
        f"{name}({', '.join(d.params)})"
    result = f"({call}, {grads})" if with_value else grads
    fname = fresh(f"{name}_{'jacobian' if jacobian else 'value_and_grad' if with_value else 'grad'}")
    text = f"def {fname}({', '.join(params)}):\n" + "".join(
        f"    {ln}\n" for ln in lines + [f"return {result}"])
    digest = hashlib.sha256((text + tan.__code__.co_filename).encode()).hexdigest()[:16]
    code = d.__jitad_function__.__code__
    user = (code.co_filename, code.co_firstlineno)      # every line is the user's `def`'s
    fn = _define(text, f"<jitad {fname} {digest}>", fname,
                 {k + 1: user for k in range(text.count("\n"))},
                 {tan.__name__: tan, name: d.__jitad_function__,
                  **({value: tan.__globals__[value]} if value else {})})
    cache[key] = (tan, fn)
    return fn


def _leaf_exprs(expr, t):
    """The expressions of an argument's arrays and scalars, in the order of the tangent
    function's parameters (`types.leaf_types`): `p[0]`, `p["W"]`, nested; `p` itself when it
    is no structure."""
    if isinstance(t, TupleTy):
        return [x for k, u in enumerate(t.items) for x in _leaf_exprs(f"{expr}[{k}]", u)]
    if isinstance(t, DictTy):
        return [x for k, u in zip(t.keys, t.items) for x in _leaf_exprs(f"{expr}[{k!r}]", u)]
    if isinstance(t, NoneTy):       # None or a string: a constant of the specialization
        return []
    return [expr]


@contextlib.contextmanager
def user_lines(name):
    """Errors raised while transforming generated code name the user's line it came from."""
    try:
        yield
    except JitadError as e:
        loc = e.loc
        if loc is None or loc.filename not in _GENERATED:
            raise
        where = _GENERATED[loc.filename].get(loc.line)
        while where and where[0] in _GENERATED:      # code generated from generated code
            where = _GENERATED[where[0]].get(where[1])
        generated = linecache.getline(loc.filename, loc.line).strip()
        msg = (f"{e.message} (while differentiating {name} a second time: in its generated "
               f"code `{generated}`)")
        new = Loc(where[0], where[1], 0, None, loc.function) if where else None
        raise type(e)(msg, new, e.construct) from None


class Derived:
    """A transformed function (`grad(f)`, `value_and_grad(f)`) as a function the
    transformations take (`grad(grad(f))`): per signature, the plain function
    `derived_function` writes, wrapped as a `Differentiable` (`concrete`); and, made by
    `called`, as a helper another transformed function calls (`function_for`)."""

    def __init__(self, t):
        self.t = t
        self.d = t.d
        self.backend = getattr(t.d, "backend", "numba")
        self.params = t.d.params
        inner = getattr(t.d, "__name__", "f")
        self.__name__ = self.__qualname__ = f"{type(t).__name__}({inner})"
        self.__module__ = getattr(t.d, "__module__", None)
        self.__doc__ = None
        # the name generated code gives it (`capture.def_name`)
        inner = getattr(t.d, "__jitad_def_name__", None) or getattr(t.d, "__name__", "f")
        self.__jitad_def_name__ = f"{inner}_{type(t).__name__}"      # u_grad_grad

    def function_for(self, argtys):
        """The plain function `derived_function` writes for the argument types `argtys` (f's
        parameters, then the arrays it reads at every call): what a call of it inside
        another transformed function is compiled as, the callee of that call
        (`typeinfer.Program.specialize`, for `called`), and what `concrete` transforms."""
        base = self.d.concrete_for(argtys)
        kind = type(self.t).called_inside
        with user_lines(self.__name__):
            if kind == "grad":
                return derived_function(base, argtys, self.t.wrt, self.t.single,
                                        self.t.derivable)
            if kind == "hessian":       # the Jacobian of the gradient
                if not self.t.single:
                    raise JitadError(f"{self.__name__} of several arguments called inside a "
                                     "transformed function: call it for one argument at a time")
                from .differentiable import as_differentiable
                base = as_differentiable(derived_function(base, argtys, self.t.wrt, True,
                                                          False), self.backend)
            return derived_function(base, argtys, self.t.wrt, self.t.single, False,
                                    jacobian=True)

    def concrete_for(self, argtys):
        """The `Differentiable` of `function_for(argtys)`."""
        from .differentiable import as_differentiable
        return as_differentiable(self.function_for(argtys), self.backend)

    @property
    def arity(self):
        """How many values a call returns as a tuple (`f_value_and_grad(x)[1]`, `grad(f,
        wrt=(0, 1))(a, b)[0]`), or None for one value."""
        if self.t.derivable:
            return 2
        return None if self.t.single else len(self.t.wrt)

    @property
    def base_function(self):
        """The user's function at the bottom of the transformations (f of grad(grad(f)))."""
        d = self.d
        while isinstance(d, Derived):
            d = d.d
        return d.__jitad_function__

    def captured_for(self, argtys) -> tuple:
        """The captured functions `function_for(argtys)`'s code was made from (f and the
        helpers its tangent code calls, at every level): what its callers watch
        (`pipeline.watched`)."""
        base = self.d.concrete_for(argtys)
        got = cache_of(base.__jitad_function__).get(("tangent_function", argtys, self.t.wrt))
        inner = self.d.captured_for(argtys) if isinstance(self.d, Derived) else ()
        return inner + (() if got is None else got[1])

    def bind(self, args, kwargs):
        """f's arguments, then the arrays f reads at every call: the derived function's
        parameters (it takes them as arguments)."""
        return self.d.bind(args, kwargs) + self.d.hidden_values()

    def hidden_values(self) -> tuple:
        """None: `derived_function` takes f's as parameters, and reads none of its own."""
        return ()

    def concrete(self, args):
        from .types import ty_of_value
        return self.concrete_for(tuple(ty_of_value(a) for a in args))

    def specialize(self, args, wrt=None, train=None, validate=None, mode=None):
        d = self.concrete(args)
        with user_lines(self.__name__):
            return d.specialize(args, wrt, train, validate, mode)

    def __call__(self, *args, **kwargs):
        return self.t(*args, **kwargs)

    def __repr__(self):
        return f"<jitad derived {self.__name__}>"


_CALLED = weakref.WeakKeyDictionary()


def called(t):
    """`t` -- `grad(f)` or `value_and_grad(f)` (not `has_aux`) of a plain function f -- as a
    helper other transformed code calls (`gx = grad_f(x)` in a loss: a gradient penalty, the
    forces of an energy): one `Derived` per transformation object, so `id()` keys its
    specializations as it keys a function's; None for any other object. Its calls are
    helper calls: f's parameters (by position or name, defaults as f's), then the arrays f
    reads at every call, which the caller passes on as it does for f itself; the callee of a
    signature is `Derived.function_for` of it, differentiated like any helper."""
    from .differentiable import Differentiable, Transform
    if not isinstance(t, Transform) or type(t).called_inside is None \
            or getattr(t, "has_aux", False):
        return None
    d = getattr(t, "d", None)
    while isinstance(d, Derived):         # grad(grad(f)): down to f's
        d = d.d
    if type(d) is not Differentiable:
        return None
    got = _CALLED.get(t)
    if got is None:
        got = _CALLED[t] = Derived(t)
    return got


def made(cls, f, args, kw):
    """`cls(f, *args, **kw)` (`grad(f, wrt=1)` written inside a transformed function, its
    arguments constants), made once per function and arguments, so a call site's helper is
    the same object at every normalization (`id()` keys it)."""
    inner = called(f)       # grad(grad(f)): the inner one made so too, kept in the cache
    base = inner.base_function if inner is not None else getattr(f, "__jitad_function__", f)
    cache = cache_of(base)
    key = ("made", cls, None if inner is None else id(f), repr(args), repr(kw))
    got = cache.get(key)
    if got is None:
        got = cache[key] = cls(f, *args, **dict(kw))
    return got
