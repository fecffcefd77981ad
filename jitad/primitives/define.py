"""Registering primitives from outside: `defvjp`, and the names it accepts.

Takes: a dotted name (or a callable, through `extend`), rule templates as text, a kind.
Guarantees: a rule is validated when it is defined -- its templates parse, read only what
generated code can see, its adjoints name parameters, its kind is a type rule, and the name
means a callable jitad can import (or a primitive it already has, with the same arity) --
then registered as a `Primitive` that calls to that object use, however the user spells them.
Anything else raises `JitadError`, so a rule either takes effect or fails loudly.
"""
from __future__ import annotations

import importlib
import math

import numpy as np

from ..errors import JitadError
from . import core, table, tangents, templates, typerules
from .core import find, register

_ALIASES = {"np": "numpy"}
_NOTHING = object()


def resolve(dotted: str):
    """The object a dotted name such as "math.erf", "np.cumsum" or "scipy.special.expit"
    means (its module part imported, `np` read as numpy), or None."""
    parts = dotted.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return None
    parts[0] = _ALIASES.get(parts[0], parts[0])
    for k in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except Exception:  # not a module (or a module that fails to import): a shorter prefix
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr, _NOTHING)
            if obj is _NOTHING:
                return None
        return obj
    return None


def spelling(obj):
    """How generated code can call a library callable ("np.cumsum", "np.linalg.inv",
    "math.erf"), or None if it is not reachable from the modules generated code imports."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str):
        return None
    for prefix, mod in (("np", np), ("np.linalg", np.linalg), ("math", math)):
        if getattr(mod, name, None) is obj:
            return f"{prefix}.{name}"
    return None


def _global_ok(name, called):
    """Whether a template may read `name` as a global of the generated module."""
    import builtins
    from .. import extend
    if name in ("np", "math", "rt"):
        return True
    return name in called and (hasattr(builtins, name) or name in extend.USER_FUNCTIONS)


def _module_like(name, bases):
    """`scipy` in `scipy.special.expit(x)`: a loaded module used through an attribute."""
    import sys
    mod = sys.modules.get(_ALIASES.get(name, name))
    return name in bases and mod is not None and hasattr(mod, bases[name])


def defvjp(name: str, forward: str, kind: str = "ewf", params=None, **adjoints: str) -> str:
    """Add (or replace) the rule for calls to the callable `name` designates, e.g.

        defvjp("math.erf", "math.erf(x)", x="g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)")
        defvjp("scipy.special.expit", "1.0 / (1.0 + np.exp(-x))", x="g * y * (1.0 - y)")

    `name` is a dotted name whose module part is importable (`np.` means numpy); the object it
    designates is what user code calls, however the user spells it (`from math import erf`
    works too). A bare name (no module part) may only replace a rule jitad already has (e.g.
    "max", "pow"), with the same number of parameters: nothing else could call it. Anything
    else raises `JitadError`, as do a template that is not a Python expression, an adjoint
    for a name that is not a parameter, an unknown `kind`, and a template that reads a name
    generated code cannot see (templates read their parameters, `g` (the cotangent) and `y`
    (the result) in adjoints, `np.`, `math.`, `rt.`, and call builtins or user primitives).

    `forward` is what generated code computes (it must compile with Numba, so write it with
    `np.`/`math.` functions: generated code imports nothing else). The parameters are the
    names in `forward` in order of appearance, unless given as `params=("x",)`. Rules apply
    to functions transformed after this call. Returns the rule's name.
    """
    if not isinstance(name, str) or not name:
        raise JitadError(f"defvjp's name must be a non-empty string such as 'math.erf', got {name!r}")
    target = resolve(name)
    if target is None and find(name) is None:
        raise JitadError(
            f"defvjp({name!r}): {name!r} names no callable jitad can import and no rule it "
            "already has, so no call could use this rule; name the function with its module "
            "('np.cumsum', 'math.erf', 'scipy.special.expit'), or for a function of your own "
            "use jitad.defvjp(fn, x=...) / @jitad.primitive")
    return define(name, forward, kind, params, adjoints, target)


def define(name, forward, kind, params, adjoints: dict, target=None) -> str:
    """Validate and register a rule named `name`; with `target` (a callable), calls to that
    object use it. See `defvjp` for what is checked."""
    where = f"defvjp({name!r})"
    fwd = templates.parse(f"{where}: the forward template", forward)
    adj = {k: templates.parse(f"{where}: the adjoint template for {k!r}", v) for k, v in adjoints.items()}
    order, called, bases = templates.names(fwd)
    if params is None:
        params = tuple(n for n in order if not _global_ok(n, called) and not _module_like(n, bases))
    elif isinstance(params, str) or not all(isinstance(p, str) and p.isidentifier() for p in params):
        raise JitadError(f"{where}: params= must be a tuple of parameter names, got {params!r}")
    params = tuple(params)
    if len(set(params)) != len(params):
        raise JitadError(f"{where}: a parameter appears twice in {params}")
    if kind not in typerules.KINDS:
        raise JitadError(f"{where}: unknown kind {kind!r} (one of {', '.join(sorted(typerules.KINDS))})")
    for k in adj:
        if k not in params:
            raise JitadError(f"{where}: an adjoint is given for {k!r}, which is not a parameter of "
                         f"the forward {forward!r} (parameters: {', '.join(params) or 'none'})")
    for what, tree, extra in [("forward", fwd, set())] + [(f"adjoint for {k!r}", t, {"g", "y"})
                                                          for k, t in adj.items()]:
        order, called, _ = templates.names(tree)
        for n in order:
            if n not in params and n not in extra and not _global_ok(n, called):
                raise JitadError(f"{where}: the {what} reads {n!r}, which generated code cannot see "
                             "(a template reads its parameters, g and y, np., math. and rt., "
                             "and calls builtins or user primitives)")
    if target is not None and not callable(target):
        raise JitadError(f"{where}: {name} is a {type(target).__name__}, not a callable")
    old = find(name)
    if old is not None and old.structural:
        raise JitadError(f"{where}: {name!r} is built into jitad's passes; its rules cannot be "
                         "replaced")
    if target is None and old is not None and len(old.params) != len(params):
        raise JitadError(f"{where}: the rule it replaces takes {len(old.params)} "
                         f"parameter(s) ({', '.join(old.params)}), this one {len(params)}")
    tangents.loaded()     # the built-ins' tangents first, as at import (never from this rule)
    register(table.make(name, params, (), forward.strip(), kind,
                        {k: v.strip() for k, v in adjoints.items()}), target)
    core.USER_RULES += 1
    return name


