"""The extension surface: user primitives with their derivative rule, and plugins.

Takes: a Python function that Numba can compile (the forward), and adjoint templates in the
same one-line form as the built-in table (`x: g / (1.0 + np.exp(x))`).
Guarantees: after `@jitad.primitive(x="...")`, calls to the function inside differentiated
code are a single primitive: its forward is the function itself (compiled with Numba on the
numba backend), its adjoint is the given template. The generated module's header carries a
hash of the primitive's source, so editing it invalidates the disk cache.
Plugins: packages declare entry points in the group `jitad.rules`; each names a callable
(run once, typically calling `primitive`/`defvjp`) or a module (imported), loaded the first
time jitad transforms a function.
"""
from __future__ import annotations

import ast
import hashlib
import inspect
from importlib import metadata

from . import rules
from .errors import JitadError

ENTRY_POINT_GROUP = "jitad.rules"
PRIMITIVES: dict = {}   # generated-module name -> function


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
        PRIMITIVES[gname] = f
        forward = f"{gname}({', '.join(params)})"
        rule_name = f"user.{f.__name__}"
        rules._register(rule_name, params, (), forward, kind, dict(adjoints))
        rules.CALLABLES[id(f)] = rule_name
        f.__jitad_primitive__ = gname
        return f

    return wrap(fn) if fn is not None else wrap


def source_hash(gname: str) -> str:
    f = PRIMITIVES[gname]
    try:
        src = inspect.getsource(f)
    except (OSError, TypeError):
        src = repr(f.__code__.co_code)
    return hashlib.sha256(src.encode()).hexdigest()[:16]


def used_primitives(source: str):
    """Names of user primitives a generated module's text calls."""
    tree = ast.parse(source)
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in PRIMITIVES})


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


def defvjp(fn_or_name, forward=None, kind="ewf", **adjoints):
    """`jitad.defvjp(my_fn, x="...")` — the rule of a user primitive (a function), like
    `@jitad.primitive(x="...")`; or `jitad.defvjp("name", "forward expr", x="...")` for a
    rule over an expression template (see `rules.defvjp`)."""
    if inspect.isfunction(fn_or_name):
        return primitive(fn_or_name, kind=kind, **adjoints)
    return rules.defvjp(fn_or_name, forward, kind, **adjoints)
