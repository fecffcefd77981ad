"""Functional entry point: ``value_and_grad(f, argnums)(*args) -> (value, grads)``.

The function is run eagerly on Vars.  So that ``math.sin(x)``, ``float(x)`` and
``y = np.zeros(n); y[i] = v`` are differentiable, f is *rebuilt* (never
modified): ``types.FunctionType(f.__code__, patched_globals, ...)`` where the
patched globals are a copy of f's module globals in which

* the numpy and math modules are bound to jitad.eager.numpy / jitad.eager.math,
* functions imported by name (``from math import sin``) to their eager versions,
* the builtin ``float`` to a version that keeps Vars differentiable, and the
  builtins ``max``/``min`` to versions that, on scalar Vars, are np.maximum /
  np.minimum (several arguments: np.max / np.min of them), so ties split the
  cotangent as in the compiled mode; anything else is Python's builtin,
* ``numpy.linalg`` (imported as a module) to one whose ``norm`` is differentiable, and
  ``scipy``/``scipy.special`` to ones whose ``logsumexp`` is (``scipy_special``),
* user functions that f refers to (helpers, itself when recursive, functions in
  closure cells and defaults) to rebuilt copies, recursively.

The rebuilt functions are memoised for one call (helpers and recursion share
them) and made afresh on each call, so later changes to module globals are seen.
Writes to module globals made *by f* go to the copy and are not seen by the
module.  Library functions (numpy, scipy, the standard library, anything in
site-packages, jitad itself) are not rebuilt; they see Vars through NumPy's
dispatch protocols.

Before f runs, value_and_grad (and vjp_eager) runs compiled mode's checking passes for f,
the arguments' signature and argnums (``Differentiable.check``: f's and its helpers' front
end, type inference, the analyses' refusals; once per signature and argnums, no code made),
so it refuses what compiled mode refuses with the same ``jitad.JitadError`` at the same line:
an int/bool argument in argnums, an output other than one float, a construct outside the
language, a variable whose rank changes where its definitions meet, a write into an argument
or one an alias observes ... Errors inside f that only its run finds are raised at f's own
line (see refusal.refuse).
"""
import builtins
import copy
import functools
import gc
import math
import sys
import types

import numpy as np

from ..differentiable import (as_differentiable, called_transform, is_transform_class,
                              made_transform, quick_key, refuse_outputs)
from ..errors import JitadError, Loc, NotDifferentiableError
from ..types import (int_leaves_skipped, leaves as leaves_of, one_float_output, rebuild,
                     structured_value, ty_of_value)
from .. import records
from .. import runtime as _rt
from ..primitives import runtime_calls
from . import from_primitives, math_ns, numpy_ns, ops, scipy_stats
from .dispatch import unwrap
from . import graph
from .graph import enable_grad, no_grad
from .var import Var

ndarray = np.ndarray

# ---------------------------------------------------------------------------
# What gets replaced
# ---------------------------------------------------------------------------
_MODULES = {id(np): numpy_ns, id(math): math_ns, id(np.linalg): numpy_ns.linalg}
_FUNCTIONS = {}
for _name in dir(numpy_ns):
    if not _name.startswith("_") and _name in vars(numpy_ns):
        _orig = getattr(np, _name, None)
        if callable(_orig) and not isinstance(_orig, type):
            _FUNCTIONS[_orig] = getattr(numpy_ns, _name)
for _name, _op in ops.MATH.items():
    _FUNCTIONS[getattr(math, _name)] = _op
_FUNCTIONS[np.linalg.norm] = ops.norm
try:
    import scipy
    import scipy.special

    from . import scipy_special
except ImportError:       # scipy is a dependency of jitad; eager mode works without it
    pass
else:
    _MODULES.update({id(scipy): scipy_special.SCIPY, id(scipy.special): scipy_special})
    _FUNCTIONS[scipy.special.logsumexp] = ops.logsumexp
    for _orig in list(vars(scipy.special).values()):
        _op = getattr(scipy_special, getattr(_orig, "__name__", ""), None)
        if callable(_orig) and _op is not None and _op is not _orig and _orig not in _FUNCTIONS:
            _FUNCTIONS[_orig] = _op
_BUILTINS = {"float": ops.float_, "max": ops.max_builtin, "min": ops.min_builtin,
             "isinstance": ops.isinstance_}

_LIBRARIES = {"numpy", "scipy", "jitad", "autograd", "torch", "jax", "numba",
              "pytest", "_pytest", "pluggy"}
_STDLIB = set(getattr(sys, "stdlib_module_names", ()))
_names_cache = {}


def _is_user_function(fn):
    top = (getattr(fn, "__module__", None) or "").split(".")[0]
    if top in _LIBRARIES or top in _STDLIB:
        return False
    fname = fn.__code__.co_filename
    return "site-packages" not in fname and "dist-packages" not in fname


def _global_names(code):
    """Names a code object (and the code nested in it) may load as globals."""
    names = _names_cache.get(code)
    if names is None:
        names = set(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                names |= _global_names(c)
        _names_cache[code] = names
    return names


class _Patcher:
    """Rebuilds functions for one call; memoises functions and module globals."""

    def __init__(self):
        self.functions = {}
        self.globals = {}
        self.originals = {}         # rebuilt function -> the user's

    def replace(self, obj):
        stand_in = scipy_stats.bind().get(id(obj))      # scipy.stats, norm (once imported)
        if stand_in is not None:
            return stand_in
        m = _MODULES.get(id(obj))
        if m is not None and isinstance(obj, types.ModuleType):
            return m
        if obj is _rt or obj is runtime_calls.NAMESPACE:     # generated code read again
            return _generated_modules()[obj is runtime_calls.NAMESPACE]
        if isinstance(obj, types.ModuleType):
            # `from scipy import linalg`, `import scipy.linalg as sla`, `np.fft` as a name
            if obj.__name__.startswith(("scipy.", "numpy.")):
                return from_primitives.namespace(obj)
            return self.user_module(obj)
        t = type(obj)
        if t is ndarray:
            # a module's array (a constant, as compiled mode captures it): a Var without grad,
            # as an array argument not differentiated is, so `u = G * 2; u[i] = w` records the
            # write (a plain ndarray would refuse it); copy-on-write keeps G as it is
            return Var(obj, None)
        if t is types.FunctionType:
            if _is_user_function(obj):
                return self.rebuild(obj)
            r = _FUNCTIONS.get(obj)
            if r is None:   # a library's Python function with a primitive (solve_triangular)
                r = from_primitives.eager_callable(obj)
            return obj if r is None else r
        if records.is_plain_object(obj):
            # a plain object compiled mode reads as a record (`records.view`): its methods
            # rebuilt, run eagerly (`instance`)
            return self.instance(obj)
        derived = called_transform(obj)
        if derived is not None:         # grad(f) called inside: its function, rebuilt
            return self.transformed(derived)
        if is_transform_class(obj):
            return self.transform_class(obj)
        if t is functools.partial:
            f = self.replace(obj.func)
            return obj if f is obj.func else functools.partial(f, *obj.args, **obj.keywords)
        if isinstance(obj, type):
            return self.user_class(obj)
        try:
            r = _FUNCTIONS.get(obj)
        except TypeError:           # unhashable (arrays, lists, ...)
            return obj
        if r is None and callable(obj) and not isinstance(obj, np.ufunc):
            r = from_primitives.eager_callable(obj)
        return obj if r is None else r

    def user_module(self, mod):
        """A module of the user's (`import mymodels as mm`, then `mm.loss(w)`): a stand-in whose
        attributes are replaced as the function's globals are (helpers rebuilt), so a helper
        reached through it is eager as compiled mode transforms it (the module itself for a
        library's)."""
        top = mod.__name__.split(".")[0]
        where = getattr(mod, "__file__", None) or ""
        if mod.__name__ == "jitad":     # jitad.grad(f)(x) inside: `transform_class`
            return self.jitad_module(mod)
        if top in _LIBRARIES or top in _STDLIB or "site-packages" in where \
                or "dist-packages" in where:
            return mod
        new = self.functions.get(mod)
        if new is None:
            patcher = self

            class Eager(types.ModuleType):
                def __getattr__(self, name):
                    value = patcher.replace(getattr(mod, name))
                    setattr(self, name, value)      # once per call of the function
                    return value
            new = self.functions[mod] = Eager(mod.__name__, mod.__doc__)
        return new

    def user_class(self, cls):
        """A user's class with methods the function may call (`Arm.tip(...)`, `p.energy(th)`
        on a record): a subclass holding its public functions rebuilt, as compiled mode
        transforms them (so `math.cos` in a method is eager too), and answering isinstance
        as the class does (the class itself where it has none)."""
        new = self.functions.get(cls)
        if new is not None:
            return new
        own = {k: v for k, v in vars(cls).items()
               if (k[:1] != "_" or k == "__call__") and isinstance(
            getattr(v, "__func__", v), types.FunctionType)
            and _is_user_function(getattr(v, "__func__", v))}
        if not own or cls.__module__.split(".")[0] in _LIBRARIES | _STDLIB:
            self.functions[cls] = cls
            return cls
        meta = type(cls)            # isinstance(x, Arm) still asks about the user's class
        try:
            same = type("same", (meta,), {"__instancecheck__": lambda m, x: isinstance(x, cls),
                                          "__subclasscheck__": lambda m, c: issubclass(c, cls)})
            new = same(cls.__name__, (cls,), {})
        except TypeError:           # a class that cannot be subclassed: as it is
            self.functions[cls] = cls
            return cls
        self.functions[cls] = new   # before rebuilding: a staticmethod reading the class
        new.__qualname__, new.__module__ = cls.__qualname__, cls.__module__
        for k, v in own.items():
            f = self.rebuild(getattr(v, "__func__", v))
            setattr(new, k, staticmethod(f) if isinstance(v, staticmethod)
                    else classmethod(f) if isinstance(v, classmethod) else f)
        return new

    def instance(self, obj):
        """obj with the objects of user classes in it (an argument, a record's field, a
        list's element) made objects of `user_class`'s stand-in, so their methods run
        eagerly: copies (the caller's object keeps its class); obj itself where nothing
        changes."""
        t = type(obj)
        if t is Var or t is ndarray or t in (float, int, bool, str, complex, type(None)):
            return obj
        if t in (list, tuple):
            parts = [self.instance(v) for v in obj]
            return obj if all(a is b for a, b in zip(parts, obj)) else t(parts)
        if t is dict:
            parts = {k: self.instance(v) for k, v in obj.items()}
            return obj if all(parts[k] is v for k, v in obj.items()) else parts
        if t.__module__.split(".")[0] in _LIBRARIES | _STDLIB | {"builtins"}:
            return obj
        cls = self.user_class(t)
        if isinstance(obj, tuple):                  # a namedtuple: fields first
            parts = [self.instance(v) for v in obj]
            if cls is t and all(a is b for a, b in zip(parts, obj)):
                return obj
            return cls(*parts) if hasattr(obj, "_fields") else cls(parts)
        # a dataclass's fields (ClassVar / InitVar entries read as they are: never changed)
        fields = {k: getattr(obj, k, None) for k in getattr(t, "__dataclass_fields__", ())}
        changed = {k: n for k, v in fields.items() if (n := self.instance(v)) is not v}
        if cls is t and not changed:
            return obj
        new = copy.copy(obj)
        for k, v in changed.items():                # (a frozen dataclass's too)
            object.__setattr__(new, k, v)
        if cls is not t:
            try:
                object.__setattr__(new, "__class__", cls)
            except TypeError:                       # a layout the stand-in cannot take
                pass
        return new

    def jitad_module(self, jitad):
        """jitad as the function reads it: its `grad` and `value_and_grad` those of
        `transform_class`, the rest itself."""
        new = self.functions.get(jitad)
        if new is None:
            new = self.functions[jitad] = types.SimpleNamespace(**vars(jitad))
            for name, value in vars(jitad).items():
                if is_transform_class(value):
                    setattr(new, name, self.transform_class(value))
        return new

    def transform_class(self, cls):
        """`jitad.grad` (a transformation class) made inside the function: `grad(f, wrt)` of
        the user's function f (the function this patcher rebuilt stands for it) as compiled
        mode makes it (`higher.made`), then called as `transformed` calls it."""
        def make(f, *args, **kwargs):
            # the user's function (rebuilt here), or a transformation made here (grad(grad(f)))
            f = getattr(f, "__jitad_transform__", None) or self.originals.get(f, f)
            derived = called_transform(made_transform(cls, f, args, tuple(kwargs.items())))
            if derived is None:
                raise JitadError(f"jitad.{cls.__name__}(...) called inside a transformed "
                                 "function: grad and value_and_grad are supported there "
                                 "(without has_aux)")
            return self.transformed(derived)
        return make

    def transformed(self, derived):
        """A `grad(f)` / `value_and_grad(f)` the function calls (`higher.called`): per call,
        the plain function compiled mode compiles that call as (`Derived.function_for` of
        the arguments' types), rebuilt and run on the `Var`s, so its own gradient is recorded
        (the same generated tangent code compiled mode differentiates)."""
        got = self.functions.get(derived)
        if got is None:
            def call(*args, **kwargs):
                args = derived.d.bind(args, kwargs) + derived.d.hidden_values()
                argtys = tuple(ty_of_value(unwrap(a)) for a in args)
                return self.rebuild(derived.function_for(argtys))(*args)
            call.__jitad_transform__ = derived.t
            got = self.functions[derived] = call
        return got

    def _will_change(self, obj):
        if type(obj) is types.FunctionType:
            return _is_user_function(obj) or obj in _FUNCTIONS
        return self.replace(obj) is not obj

    def builtins(self):
        """The builtins of rebuilt functions: Python's, but `__import__`, so an import
        statement inside the function (`from scipy.special import logsumexp`) binds what the
        same name at module level would mean here (numpy's and math's stand-ins, a helper
        rebuilt), as compiled mode reads it (`capture._local_imports`)."""
        if getattr(self, "_builtins", None) is None:
            real = builtins.__import__

            def imported(name, globals=None, locals=None, fromlist=(), level=0):
                mod = real(name, globals, locals, fromlist, level)
                if not fromlist:
                    return self.replace(mod)
                stand_in = self.replace(mod)
                if stand_in is mod:
                    return mod
                out = types.SimpleNamespace()       # `from m import a, b`: each replaced
                for a in fromlist:
                    if a != "*":
                        setattr(out, a, getattr(stand_in, a) if hasattr(stand_in, a)
                                else self.replace(getattr(mod, a)))
                return out
            self._builtins = dict(builtins.__dict__, __import__=imported)
        return self._builtins

    def rebuild(self, fn):
        new = self.functions.get(fn)
        if new is not None:
            return new
        g_orig = fn.__globals__
        g = self.globals.get(id(g_orig))
        if g is None:
            g = self.globals[id(g_orig)] = dict(g_orig)
            g["__builtins__"] = self.builtins()
        cells = fn.__closure__
        fill = []
        if cells:
            new_cells = []
            for cell in cells:
                try:
                    v = cell.cell_contents
                except ValueError:         # empty cell: keep it shared
                    new_cells.append(cell)
                    continue
                if self._will_change(v):
                    c = types.CellType()
                    fill.append((c, v))
                    new_cells.append(c)
                else:
                    new_cells.append(cell)
            cells = tuple(new_cells)
        new = types.FunctionType(fn.__code__, g, fn.__name__, None, cells)
        self.functions[fn] = new            # before recursing: cycles resolve to `new`
        self.originals[new] = fn
        for c, v in fill:
            c.cell_contents = self.replace(v)
        if fn.__defaults__:
            new.__defaults__ = tuple(self.replace(d) for d in fn.__defaults__)
        if fn.__kwdefaults__:
            new.__kwdefaults__ = {k: self.replace(d) for k, d in fn.__kwdefaults__.items()}
        new.__dict__.update(fn.__dict__)
        new.__qualname__ = fn.__qualname__
        new.__module__ = fn.__module__
        new.__doc__ = fn.__doc__
        for name in _global_names(fn.__code__):
            if name in g_orig:
                v = g_orig[name]
                r = self.replace(v)
                if r is not v:
                    g[name] = r
            elif name in _BUILTINS:
                g[name] = _BUILTINS[name]
        return new


_GENERATED = {}


def _generated_modules():
    """Eager stand-ins for the `rt` module and the spelled primitives that generated code,
    run as a function (`jitad.higher`), calls: their primitives' eager operations (made
    again when a primitive was spelled since)."""
    key = len(vars(runtime_calls.NAMESPACE))
    if _GENERATED.get("key") != key:
        from .from_primitives import call_op
        runtime, spelled = runtime_calls.eager_namespaces(
            lambda f, p: call_op(f, p, f"{getattr(f, '__module__', '')}.{f.__name__}"))
        _GENERATED["modules"] = (_RuntimeStandIn(**runtime), _StandIn(**spelled))
        _GENERATED["key"] = key
    return _GENERATED["modules"]


class _StandIn(types.SimpleNamespace):
    def __getattr__(self, name):        # only for names it lacks
        from ..errors import UnsupportedError
        raise UnsupportedError(f"rt.{name} (in generated code run again) has no eager "
                               "derivative rule", None, f"rt.{name}")


class _RuntimeStandIn(_StandIn):
    """A runtime helper that is no primitive runs as it is, as compiled mode's front end
    reads it (`primitives.opaque`): refused only where a derivative would go through it."""

    def __getattr__(self, name):
        f = getattr(_rt, name, None)
        if f is None or name.startswith("_"):
            return super().__getattr__(name)
        from .dispatch import fallback

        def op(*args, **kwargs):
            return fallback(f, f"rt.{name}", f, args, kwargs)
        setattr(self, name, op)         # made once per stand-in
        return op


def eager_function(f):
    """f rebuilt so that its math/np/float names (and its helpers') are eager; a function with
    keyword-only parameters takes them positionally too, after the others, as compiled mode
    binds a call (`Differentiable.bind`)."""
    patcher = _Patcher()
    g = _positional(patcher.replace(f))
    try:
        g.__jitad_patcher__ = patcher       # `_value_and_grad` passes arguments through it
    except AttributeError:                  # (a callable object: as it is)
        pass
    return g


def _positional(g):
    import inspect
    try:
        params = list(inspect.signature(g).parameters.values())
    except (TypeError, ValueError):
        return g
    kwonly = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    if not kwonly or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return g
    npos = len(params) - len(kwonly)

    @functools.wraps(g)
    def call(*args, **kwargs):
        return g(*args[:npos], **dict(zip(kwonly, args[npos:])), **kwargs)
    return call


# ---------------------------------------------------------------------------
# value_and_grad
# ---------------------------------------------------------------------------
def _plain(v):
    if type(v) is ndarray:
        return float(v) if v.ndim == 0 and v.dtype.kind in "biuf" else v
    if isinstance(v, (bool, int, float, np.integer, np.floating, np.bool_)):
        return float(v)
    return v


def _grad_like(leaf, arg):
    """The gradient shaped like arg, with its float dtype (float32 stays float32, as in
    the compiled mode; the reverse pass itself accumulates in float64)."""
    g = leaf.grad
    if type(arg) is ndarray:
        if g is None:
            return np.zeros(arg.shape, dtype=leaf.value.dtype)
        return np.asarray(g, dtype=leaf.value.dtype).reshape(arg.shape)
    return 0.0 if g is None else float(g)


def value_and_grad(f, argnums=(0,)):
    """Return ``vg(*args) -> (value, grads)`` for a scalar-valued plain function f.

    argnums: tuple of int indices of the positional arguments to differentiate
    (an int is accepted too); each must be a float or a float array (an int or
    bool one is a JitadError).  ``value`` is a float (or an ndarray if f returns
    a non-scalar constant); ``grads`` has one entry per argnum: a float for a
    scalar argument, an ndarray shaped like an array argument, with its dtype.  The caller's
    arrays are never modified (differentiated arguments are copied; other
    array arguments are wrapped as constant Vars, which copy before a write).

    Python's cyclic garbage collector is paused during the call (and restored
    after): the graph is acyclic and freed by reference counting, and full
    collections over a large live graph would otherwise dominate the run time.
    """
    argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    d = as_differentiable(f)        # what compiled mode transforms: a plain `def` function
    checked_for = {}                # quick_key(args) -> (positions of argnums, Checked)

    lead = getattr(d, "bound", 0)   # a partial's or a method's bound arguments come first
    fn = d.__jitad_function__ if lead else f

    def value_and_grad_f(*args):
        if lead:
            args = d.bind(args, {})
        # a call like one before costs a key and a staleness test (`Differentiable.check`)
        key = quick_key(args)
        hit = checked_for.get(key) if key is not None else None
        if hit is not None and not hit[1].stale():
            argnums_pos = hit[0]
        else:
            argnums_pos = tuple(p + lead for p in _positions(argnums, len(args) - lead))
            checked = d.check(args, argnums_pos)
            if not one_float_output(checked.out):
                refuse_outputs("grad", d.__name__, checked.out, checked.loc)
            if key is not None:
                checked_for[key] = (argnums_pos, checked)
        gc_was_enabled = gc.isenabled()
        if gc_was_enabled:
            gc.disable()
        try:
            # made at every call: it reads the function's globals as they are now
            return _value_and_grad(eager_function(fn), args, argnums_pos)
        finally:
            if gc_was_enabled:
                gc.enable()

    value_and_grad_f.__name__ = "value_and_grad_" + getattr(f, "__name__", "f")
    value_and_grad_f.__wrapped__ = f
    return value_and_grad_f


def _positions(argnums, n):
    for i in argnums:
        if not -n <= i < n:
            raise IndexError("argnum %d out of range for %d arguments" % (i, n))
    return tuple(i % n for i in argnums)


def vjp_eager(f, args, argnums):
    """``(value, pull)`` for f at args: ``pull(cotangent)`` (shaped like the output, a tuple
    of them for a tuple output) runs f again, recording, and the reverse pass from the
    cotangent -- the gradient of the sum of the output times it -- giving one gradient per
    argnum (nothing is kept alive between the calls, as in the compiled vjp). The checking
    passes run first, as for value_and_grad."""
    argnums = _positions(argnums, len(args))
    as_differentiable(f).check(args, argnums)
    with no_grad():       # (arrays as constant Vars: a write copies, the caller's stay)
        value = _unwrap_out(_call(eager_function(f), [Var(a, None) if type(a) is ndarray else a
                                                      for a in args]))

    def pull(cotangent):
        gc_was_enabled = gc.isenabled()
        if gc_was_enabled:
            gc.disable()
        try:
            return _value_and_grad(eager_function(f), args, argnums, cotangent)[1]
        finally:
            if gc_was_enabled:
                gc.enable()

    return value, pull


def _unwrap_out(out):
    if isinstance(out, tuple):      # nested tuples and dicts too (`return loss, {"acc": a}`)
        return tuple(_unwrap_out(o) for o in out)
    if isinstance(out, dict):
        return {k: _unwrap_out(o) for k, o in out.items()}
    v = unwrap(out)
    # an int or bool value stays one, as the compiled function returns it (`"n": X.shape[0]`)
    if np.ndim(v) == 0 and np.asarray(v).dtype.kind in "biu":
        return np.asarray(v).item()
    return _plain(v)


def _contract(out, cotangent):
    """The sum of the output times the cotangent (a tuple output: over its parts; a nested
    one's leaves, depth first, paired with the cotangent's leaves: nested alike or flat), as
    a Var whose backward pass is the vjp; None when nothing in it was recorded."""
    if isinstance(out, dict) or isinstance(out, tuple) and any(isinstance(o, (tuple, dict))
                                                               for o in out):
        out, cotangent = tuple(leaves_of(out)), tuple(leaves_of(cotangent))
    outs, cts = (out, cotangent) if isinstance(out, tuple) else ((out,), (cotangent,))
    total = None
    for o, c in zip(outs, cts):
        if type(o) is Var and o._node is not None:
            term = numpy_ns.sum(o * c)
            total = term if total is None else total + term
    return total


def _int_leaves(flat, at) -> list:
    """Per leaf of a structured argument (its values `flat[k]`, k in `at`): whether a
    gradient leaves it out (`types.int_leaves_skipped`, by the leaves' types)."""
    return int_leaves_skipped([ty_of_value(flat[k]) for k in at])


_ONE_FLOAT = object()      # _value_and_grad's cotangent when f returns one float


def _call(fn, args):
    """fn(*args), the objects of user classes in args first made ones whose methods are eager
    (`_Patcher.instance`) when fn is an `eager_function`."""
    patcher = getattr(fn, "__jitad_patcher__", None)
    if patcher is not None:
        args = [patcher.instance(a) for a in args]
    return fn(*args)


def _value_and_grad(fn, args, argnums, cotangent=_ONE_FLOAT):
    # a structured argument (a tuple, list, namedtuple or dict of arrays, nested too): one leaf
    # per array or scalar, the containers rebuilt around them for f and for the gradient
    groups = {i: a for i, a in enumerate(args) if structured_value(a)}
    if groups:
        flat, pos = [], {}
        for i, a in enumerate(args):
            # string keys, as compiled mode requires; a string or None inside is a constant
            items = leaves_of(a, ty_of_value(a)) if i in groups else [a]
            pos[i] = list(range(len(flat), len(flat) + len(items)))
            flat.extend(items)
        # a structure's integer leaves are not differentiated (None in its gradient), as in
        # compiled mode (`types.int_leaves_skipped`)
        flat_argnums = [k for i in argnums
                        for k, skip in zip(pos[i], _int_leaves(flat, pos[i]) if i in groups
                                           else [False]) if not skip]

        def flat_fn(*xs):
            return _call(fn, [rebuild(args[i], [xs[k] for k in pos[i]], keep_constants=True)
                              if i in groups else xs[pos[i][0]]
                              for i in range(len(args))])
        flat_fn.__name__ = fn.__name__
        val, g = _value_and_grad(flat_fn, tuple(flat), flat_argnums, cotangent)
        it = iter(g)
        return val, tuple(rebuild(args[i], it, ints_none=True) if i in groups else next(it)
                          for i in argnums)
    _check_differentiable_args(fn, args, argnums)
    leaves = {}
    call_args = list(args)
    for i in sorted(set(argnums)):
        leaf = leaves[i] = Var(args[i], requires_grad=True)   # copies the value
        call_args[i] = ops.identity(leaf)   # f may write into it; the leaf stays intact
    for j, a in enumerate(args):
        if j not in leaves and type(a) is ndarray:
            call_args[j] = Var(a, None)     # constant; copy-on-write protects the caller
    with enable_grad():
        graph.converting += 1
        try:
            out = _call(fn, call_args)
        finally:
            graph.converting -= 1
        if cotangent is not _ONE_FLOAT:             # vjp_eager's pullback
            total = _contract(out, cotangent)
            if total is not None:
                total.backward()
            return _unwrap_out(out), tuple(_grad_like(leaves[i], args[i]) for i in argnums)
        if type(out) is Var:
            val = out.value
            if np.iscomplexobj(val):
                raise NotDifferentiableError(
                    "%s returns a complex value: jitad differentiates real outputs (complex "
                    "values are fine inside the function); return np.real(z), np.imag(z), "
                    "np.abs(z) ** 2 or another real function of it" % fn.__name__,
                    _def_loc(fn), "complex output")
            if out._node is not None:
                if np.size(val) != 1:
                    raise JitadError("value_and_grad needs a function with one float output; "
                                     "%s returned an array of shape %s (use a vjp with a "
                                     "cotangent)" % (fn.__name__, np.shape(val)),
                                     _def_loc(fn), "non-scalar output")
                out.backward()
        else:
            val = unwrap(out)
            if isinstance(val, (list, tuple, dict)):
                raise JitadError("value_and_grad needs a function with one float output; "
                                 "%s returned a %s" % (fn.__name__, type(out).__name__),
                                 _def_loc(fn), "non-scalar output")
    return _plain(val), tuple(_grad_like(leaves[i], args[i]) for i in argnums)


def _def_loc(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return Loc(code.co_filename, code.co_firstlineno, 0, None, code.co_name)


def _param_name(fn, i):
    code = getattr(fn, "__code__", None)
    if code is not None and i < code.co_argcount:
        return code.co_varnames[i]
    return "#%d" % i


def _check_differentiable_args(fn, args, argnums):
    """Integer, bool and complex arguments are never differentiated (as in the compiled
    mode)."""
    for i in argnums:
        a = args[i]
        if type(a) is Var:
            a = a.value
        kind = (a.dtype.kind if isinstance(a, (ndarray, np.generic))
                else "b" if isinstance(a, bool) else "i" if isinstance(a, int)
                else "c" if isinstance(a, complex) else "f")
        if kind == "c":
            name = _param_name(fn, i)
            raise NotDifferentiableError(
                "cannot differentiate %s with respect to the complex argument '%s': jitad "
                "differentiates real arguments (complex values are fine inside the function); "
                "pass its real and imaginary parts as two float arguments and make it there "
                "(%s = re + 1j * im)" % (fn.__name__, name, name), _def_loc(fn),
                "complex argument")
        if kind in "biu":
            name = _param_name(fn, i)
            what = "bool" if kind == "b" else "int"
            if isinstance(a, ndarray):
                what += " array"
            raise NotDifferentiableError(
                "cannot differentiate %s with respect to argument '%s' of type %s: pass a "
                "float (e.g. %s=float(...)) or a float array" % (fn.__name__, name, what, name),
                _def_loc(fn), "integer argument")


def grad(f, argnums=0):
    """Gradient only: a single value for an int argnums, a tuple for a tuple."""
    vg = value_and_grad(f, argnums)
    single = isinstance(argnums, int)

    def grad_f(*args):
        g = vg(*args)[1]
        return g[0] if single else g

    grad_f.__name__ = "grad_" + getattr(f, "__name__", "f")
    return grad_f
