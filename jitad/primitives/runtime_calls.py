"""The runtime functions the rules' templates call, known as the primitives they compute.

Takes: the registered primitives (run after `table`, `lists` and `tangents`).
Guarantees: a call of `jitad.runtime.<f>` is a call of a primitive when
  * `f` is that primitive's forward -- its template is exactly `rt.f(params..., statics...)`
    (`rt.max_axis(x, axis)` is `max_axis`), and no other primitive's forward is `rt.f`
    (unless `f` is listed in `_EXACT_ONLY`: the others call it with other arguments); or
  * `f` computes what a NumPy or SciPy call with a primitive computes, with the same
    arguments in the same order (`EQUIVALENT`: `rt.dot1(a, b)` is `np.dot(a, b)` of two
    vectors, `rt.expand(g, axis)` is `np.expand_dims(g, axis)`, `rt.digamma(x)` is
    `scipy.special.digamma(x)`). Code jitad
generated, read again as a function (`jitad.higher`: second derivatives), then differentiates
through its runtime calls as through the user's NumPy.
Where neither holds (a forward that reshapes a runtime result, `rt.max_axis(x, axis).reshape(...)`),
or the forward is a composition of primitives (`reads_back`: the composition's derivatives
need not be the primitive's rules), code generated to be read again calls the primitive
itself (`call`): a summation as
`np.einsum(subscripts, ...)`, any other through `spelled(prim)`, a callable
`jitad_primitives.<name>(params..., static=...)` (in `NAMESPACE`) that evaluates the forward
template with NumPy and is registered as that primitive.
Invariants: only exact equivalents are listed; a runtime function not listed stays unknown,
so code calling it is refused at its line, never differentiated by a guess. Eager mode runs
the same calls through these primitives' eager operations (`eager.functional`).
"""
from __future__ import annotations

import ast
import math
import sys
import types

import numpy as np

from .. import runtime as rt
from .core import PRIMITIVES, alias, lookup_callable

# runtime function -> the library callable whose primitive it computes (same arguments)
EQUIVALENT = {
    "dot1": np.dot,
    "matvec": np.dot,
    "vecmat": np.dot,
    "matmat": np.dot,
    "outer": np.outer,
    "expand": np.expand_dims,
    "broadcast_to": np.broadcast_to,
    "fliplr": np.fliplr,
    "flipud": np.flipud,
    "rot90": np.rot90,
    "roll_axis": np.roll,
    "roll_flat": np.roll,
    "tile1": np.tile,
    "tile2": np.tile,
    "repeat1": np.repeat,
    "repeat2": np.repeat,
    "gradient1": np.gradient,
    "divide": np.true_divide,          # a map's arithmetic (NumPy's on numbers)
    "remainder": np.remainder,
    "select": np.where,
}
# runtime functions of lists, spelled as NumPy's call (the front end's list forms read those)
AS_NUMPY = {"stack_list": "array", "concat_list": "concatenate",   # (np.array: of an empty list too)
            "column_stack_vectors": "column_stack", "column_stack_matrices": "column_stack"}
# runtime function -> SciPy's name (registered when scipy.special is imported)
SCIPY_EQUIVALENT = {"digamma": "digamma", "polygamma": "polygamma", "i0": "i0", "i0e": "i0e",
                    "i1": "i1", "i1e": "i1e"}


def forwards():
    """{runtime name: primitive} of the primitives whose forward is one runtime call taking
    the parameters then the statics, in order. Where several primitives' forwards call it,
    they must be one family (`pad` and its variant `pad.1`): the family if its forward is
    exact (its call chooses the variant as the user's call does), else the one exact variant."""
    found: dict = {}
    for prim in list(PRIMITIVES.values()):
        f = prim.forward
        if isinstance(f, ast.Call) and isinstance(f.func, ast.Attribute) \
                and isinstance(f.func.value, ast.Name) and f.func.value.id == "rt":
            exact = not f.keywords and [getattr(a, "id", None) for a in f.args] == \
                list(prim.params) + list(prim.statics)
            found.setdefault(f.func.attr, []).append((prim, exact))
    out = {}
    for name, ps in found.items():
        names = [p.name for p, _ in ps]
        family = min(names, key=len)
        exact = [p for p, ok in ps if ok]
        if not all(n == family or n.startswith(family + ".") for n in names):
            if name in _EXACT_ONLY and len(exact) == 1:
                out[name] = exact[0]
            continue
        head = [p for p in exact if p.name == family]
        if head or len(exact) == 1:
            out[name] = (head or exact)[0]
    return out


# runtime functions several primitives' forwards call, of which one calls it exactly (its
# parameters, then its statics): a call of it is that primitive (the others pass it other
# arguments: `scipy.linalg.solve_triangular`'s forward drops its statics check_finite ...)
_EXACT_ONLY = frozenset({"tri_solve"})


NAMESPACE = types.ModuleType("jitad_primitives")   # the generated code's `jitad_primitives`
NAMESPACE_NAME = "jitad_primitives"
_SPELLED: dict = {}                       # primitive name -> attribute of NAMESPACE
_TEMPLATE_GLOBALS = {"np": np, "math": math, "rt": rt}


def readable(tree) -> bool:
    """Whether the front end reads a template back as the same computation: every call of a
    module's function in it (`np.*`, `math.*`, `rt.*`, `scipy.*`) is a known primitive's."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            obj = _module_function(n.func)
            if obj is _NOT_MODULE or (obj is getattr(rt, n.func.attr, None)
                                      and n.func.attr in AS_NUMPY):
                continue
            if obj is None or lookup_callable(obj) is None:
                return False
    return True


_NOT_MODULE = object()


def reads_back(tree) -> bool:
    """Whether the front end reads a forward template back as its own primitive: `readable`,
    and one operation applied to parameters (`a + b`, `np.tanh(x)`, `rt.dot1(a, b)`).
    A composition (`np.sqrt(np.sum(x * x, axis=axis))`, the 2-norm along an axis) read back
    is differentiated through its parts, whose derivatives can differ from the primitive's
    own rules where those choose a convention (the norm's slope 0 at x = 0, where the
    composition's is 0 / 0): code read again calls such a primitive itself, so its rules hold
    at every order."""
    applications = sum(isinstance(n, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare,
                                       ast.BoolOp, ast.IfExp, ast.Subscript))
                       for n in ast.walk(tree))
    return applications <= 1 and readable(tree)


def _module_function(node):
    """The object an attribute chain `np.linalg.solve` names, None if it names nothing, or
    `_NOT_MODULE` when it does not start at a module (a method of a value: `x.reshape`)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return _NOT_MODULE
    root = {"np": np, "math": math, "rt": rt, "scipy": sys.modules.get("scipy")}.get(node.id)
    if root is None:
        return _NOT_MODULE
    obj = root
    for attr in reversed(parts):
        obj = getattr(obj, attr, None)
        if obj is None:
            return None
    return obj


def call(prim, args) -> ast.Call:
    """A call the front end reads as `prim` applied to `args` (AST, its parameters then its
    statics): `np.einsum(subscripts, ...)` for a summation, else `spelled(prim)(...)`, its
    statics by keyword (a primitive read with its library function's argument order, as
    `std`'s `np.std(x, axis, ...)`, would take a second positional argument for another)."""
    text = getattr(prim, "subscripts", None)
    if text is not None:
        func, args = ast.Attribute(ast.Name("np", ast.Load()), "einsum", ast.Load()), \
            [ast.Constant(text)] + list(args)
        return ast.Call(func, list(args), [])
    module, attr = spelled(prim).split(".")
    func = ast.Attribute(ast.Name(module, ast.Load()), attr, ast.Load())
    n = len(prim.params)
    return ast.Call(func, list(args[:n]), [ast.keyword(k, a) for k, a in
                                           zip(prim.statics, args[n:])])


def spelled(prim) -> str:
    """`jitad_primitives.<name>`: a callable meaning `prim`, taking its parameters then its
    statics (by position or keyword; made and registered on first use)."""
    attr = _SPELLED.get(prim.name)
    if attr is None:
        attr = "".join(c if c.isalnum() else "_" for c in prim.name)
        while hasattr(NAMESPACE, attr):
            attr += "_"
        code = compile(ast.fix_missing_locations(ast.Expression(prim.forward)),
                       f"<jitad primitive {prim.name}>", "eval")
        names = list(prim.params) + list(prim.statics)

        def call(*args, **statics):
            if "scipy" not in _TEMPLATE_GLOBALS and "scipy" in sys.modules:
                _TEMPLATE_GLOBALS["scipy"] = sys.modules["scipy"]
            return eval(code, dict(_TEMPLATE_GLOBALS), {**dict(zip(names, args)), **statics})

        call.__name__ = call.__qualname__ = attr
        call.__module__ = "jitad.primitives.runtime_calls"
        setattr(NAMESPACE, attr, call)
        alias(call, prim.name)
        _SPELLED[prim.name] = attr
    return f"{NAMESPACE_NAME}.{attr}"


def install():
    for name, prim in forwards().items():
        if getattr(rt, name, None) is not None:
            alias(getattr(rt, name), prim.name)
    for name, target in EQUIVALENT.items():
        prim = lookup_callable(target)
        if prim is not None:
            alias(getattr(rt, name), prim.name)
    for name, sname in SCIPY_EQUIVALENT.items():
        alias(getattr(rt, name), f"scipy.special.{sname}")
    alias(rt.floor_divide, "floordiv")
    alias(rt.bmm, "matmul")
    alias(rt.bmm32, "matmul")


def eager_namespaces(ops_of):
    """Eager mode's replacements of the `rt` module and of `NAMESPACE`: {name: eager op} of
    the runtime functions known as primitives and of the spelled primitives
    (`ops_of(target, primitive)` makes one)."""
    runtime, spelled_ops = {}, {}
    for name in list(forwards()) + list(EQUIVALENT) + list(SCIPY_EQUIVALENT) + ["bmm", "bmm32"]:
        f = getattr(rt, name)
        prim = lookup_callable(f)
        if prim is not None:
            runtime[name] = ops_of(f, prim)
    for attr in _SPELLED.values():
        f = getattr(NAMESPACE, attr)
        spelled_ops[attr] = ops_of(f, lookup_callable(f))
    return runtime, spelled_ops


install()
