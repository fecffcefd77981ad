"""The extension surface: user primitives with their derivative rule, and plugins.

Takes: a Python function that Numba can compile (the forward), and adjoint templates in the
same one-line form as the built-in table (`x: g / (1.0 + np.exp(x))`).
Guarantees: after `@jitad.primitive(x="...")`, calls to the function inside differentiated
code are a single primitive: its forward is the function itself (compiled with Numba on the
numba backend), its adjoint is the given template. The generated module's header carries a
hash of the primitive's source, so editing it invalidates the disk cache.
`defvjp` either takes effect or raises `JitadError` at the call: a rule is always attached to
a callable user code can call (a user function, a library callable given as an object or by
its dotted name such as "math.erf", or a built-in rule it replaces), and its templates are
checked when it is defined (they parse, adjoints name parameters, every other name is one
generated code can see). Rules apply to functions transformed after the call.
Plugins: packages declare entry points in the group `jitad.rules`; each names a callable
(run once, typically calling `primitive`/`defvjp`) or a module (imported), loaded the first
time jitad transforms a function.
"""
from __future__ import annotations

import ast
import hashlib
import inspect
from importlib import metadata

from . import primitives
from .errors import JitadError

ENTRY_POINT_GROUP = "jitad.rules"
USER_FUNCTIONS: dict = {}   # generated-module name -> function


def primitive(fn=None, *, kind="ewf", **adjoints):
    """Declare a function a primitive with its adjoint rule(s).

        @jitad.primitive(x="g * (1.0 - np.tanh(x) ** 2)")
        def my_tanh(x): ...

    `kind` is the result-type rule: "ewf" (elementwise, float result; the default), "float"
    (scalar float), "same" (like the first argument). Parameters without a rule are not
    differentiated through (their adjoint is an error if they are active... so give them one).
    """
    def wrap(f):
        if not inspect.isfunction(f):
            raise JitadError("jitad.primitive decorates a plain function")
        params = tuple(inspect.signature(f).parameters)
        unknown = set(adjoints) - set(params)
        if unknown:
            raise JitadError(f"{f.__name__} has no parameter {sorted(unknown)[0]!r}")
        gname = f"prim_{f.__name__}"
        before = USER_FUNCTIONS.get(gname)
        USER_FUNCTIONS[gname] = f
        forward = f"{gname}({', '.join(params)})"
        try:
            primitives.define(f"user.{f.__name__}", forward, kind, params, dict(adjoints), target=f)
        except JitadError:
            if before is None:
                del USER_FUNCTIONS[gname]
            else:
                USER_FUNCTIONS[gname] = before
            raise
        f.__jitad_primitive__ = gname
        return f

    return wrap(fn) if fn is not None else wrap


def source_hash(gname: str) -> str:
    f = USER_FUNCTIONS[gname]
    try:
        src = inspect.getsource(f)
    except (OSError, TypeError):
        src = repr(f.__code__.co_code)
    return hashlib.sha256(src.encode()).hexdigest()[:16]


def used_primitives(source: str):
    """Names of user primitives a generated module's text calls."""
    tree = ast.parse(source)
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in USER_FUNCTIONS})


_LOADED: set = set()


def entry_points_once(group):
    """The loaded objects of an entry-point group, the first time it is asked for (else [])."""
    if group in _LOADED:
        return []
    _LOADED.add(group)
    return [(ep.name, ep.load()) for ep in metadata.entry_points(group=group)]


def load_plugins():
    for _, obj in entry_points_once(ENTRY_POINT_GROUP):
        if callable(obj) and not inspect.ismodule(obj):
            obj()


def defvjp(fn_or_name, forward=None, kind="ewf", params=None, **adjoints):
    """Give a callable a derivative rule; every form takes effect or raises `JitadError`.

    * `jitad.defvjp(my_fn, x="...")` — your own function becomes a primitive, exactly like
      `@jitad.primitive(x="...")` (its forward is the function itself, compiled by Numba);
    * `jitad.defvjp("math.erf", "math.erf(x)", x="...")` — a library callable named by its
      dotted path, with a forward template (see `primitives.define.defvjp`);
    * `jitad.defvjp(np.cumsum, x="...")` or `jitad.defvjp(scipy.special.expit, "1.0 / (1.0 +
      np.exp(-x))", x="...")` — a library callable passed as an object; without a forward
      template, its spelling in generated code (`np.cumsum(x)`) is the forward, with the
      parameters `params=` or else the adjoints' names in order.
    Returns the rule's name."""
    if isinstance(fn_or_name, str):
        if forward is None:
            raise JitadError(f"defvjp({fn_or_name!r}) needs the forward template, e.g. "
                             f"jitad.defvjp({fn_or_name!r}, \"{fn_or_name}(x)\", x=\"...\")")
        return primitives.defvjp(fn_or_name, forward, kind, params, **adjoints)
    fn = getattr(fn_or_name, "__jitad_function__", fn_or_name)   # @jitad.differentiable
    from .normalize import is_library
    if inspect.isfunction(fn) and not is_library(fn) and forward is None:
        if params is not None:
            raise JitadError("params= is for templates; a function's parameters are its own")
        primitive(fn, kind=kind, **adjoints)
        return f"user.{fn.__name__}"
    if not callable(fn):
        raise JitadError(f"defvjp takes a callable or its dotted name, got {type(fn).__name__}")
    spelled = primitives.spelling(fn)
    name = spelled or f"{getattr(fn, '__module__', None) or 'callable'}.{getattr(fn, '__qualname__', type(fn).__name__)}"
    if forward is None:
        if spelled is None:
            raise JitadError(f"defvjp({name}): generated code cannot call this function itself "
                             "(it sees only np., math. and rt.); give the forward template, "
                             "e.g. jitad.defvjp(fn, \"1.0 / (1.0 + np.exp(-x))\", x=\"...\")")
        params = tuple(params if params is not None else adjoints)
        forward = f"{spelled}({', '.join(params)})"
    return primitives.define(name, forward, kind, params, adjoints, target=fn)
