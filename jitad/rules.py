"""Derivative rules, as data: one readable line per primitive.

Takes: nothing (the table below is parsed once at import; `defvjp` adds user rules).
Guarantees: `RULES[name]` is a `Rule` with the primitive's forward expression template, its
result-type category, and for each differentiable parameter an adjoint expression template.
In templates, parameters are the rule's own names, `g` is the cotangent of the result and
`y` the result; they are substituted on the AST (never by string replace), so a user's
variable called `g`, `y` or `d` can never collide with them.
Adjoint templates return a contribution shaped like the *result*'s broadcast; `reverse`
un-broadcasts it onto the argument (sum over broadcast axes), so rules never do.
One template serves Python scalars and arrays alike (no `np.where`, no `if`): a guard is
arithmetic on comparisons, e.g. `a + (a == 0)`. `substitute` computes the comparisons and
arithmetic that became constant, so with a constant exponent `x ** 2` still gives `2 * x`.
Conventions: `a ** b` has d/db = 0 where a == 0 (no `log(0) * 0`) and d/da = 0 where b == 0;
ties of `max`/`min` (reductions, axis forms, `np.maximum`/`np.minimum`, builtin `max(a, b)`)
split the cotangent evenly among the tied entries, as autograd and JAX do.
Names a template reads besides its placeholders are globals of the generated module
(`TEMPLATE_GLOBALS`); `normalize` renames user locals that would shadow them.
`defvjp` validates a rule when it is defined and attaches it to a callable (see there).

Line format:  name(params; statics) = forward :: type | param: adjoint | param: adjoint
  type  ew: elementwise, keeps int-ness   ewf: elementwise, float result   cmp: bool result
        same: as first argument   bool/int/float: scalar of that kind   reduce: reduction
        dot: by ranks (rules `dot.A.B`)   outer, reshape, transpose, new, like: shape rules
  A rule with no adjoint lines is not differentiable (its result is never active).
"""
from __future__ import annotations

import ast
import copy
import importlib
import math
import operator
from dataclasses import dataclass, field

import numpy as np

TABLE = r"""
add(a, b)          = a + b                  :: ew   | a: g                      | b: g
sub(a, b)          = a - b                  :: ew   | a: g                      | b: -g
mul(a, b)          = a * b                  :: ew   | a: g * b                  | b: g * a
truediv(a, b)      = a / b                  :: ewf  | a: g / b                  | b: -g * y / b
pow(a, b)          = a ** b                 :: ew   | a: g * b * a ** (b - 1 + (b == 0)) | b: g * y * np.log(a + (a == 0))
mod(a, b)          = a % b                  :: ew   | a: g                      | b: -g * ((a - y) / b)
floordiv(a, b)     = a // b                 :: ew
neg(a)             = -a                     :: same | a: -g
matmul(a, b)       = a @ b                  :: dot
dot(a, b)          = np.dot(a, b)           :: dot
dot.1.1(a, b)      = rt.dot1(a, b)          :: dot  | a: g * b                  | b: g * a
dot.2.1(a, b)      = np.dot(a, b)           :: dot  | a: np.outer(g, b)         | b: a.T @ g
dot.1.2(a, b)      = np.dot(a, b)           :: dot  | a: b @ g                  | b: np.outer(a, g)
dot.2.2(a, b)      = np.dot(a, b)           :: dot  | a: g @ b.T                | b: a.T @ g
outer(a, b)        = np.outer(a, b)         :: outer | a: g @ b                 | b: a @ g
lt(a, b)           = a < b                  :: cmp
le(a, b)           = a <= b                 :: cmp
gt(a, b)           = a > b                  :: cmp
ge(a, b)           = a >= b                 :: cmp
eq(a, b)           = a == b                 :: cmp
ne(a, b)           = a != b                 :: cmp
not(a)             = not a                  :: bool
or(a, b)           = a or b                 :: bool
truth(a)           = bool(a)                :: bool
in_range(i, stop, step) = rt.in_range(i, stop, step) :: bool
trip_count(start, stop, step) = rt.trip_count(start, stop, step) :: int
int(a)             = int(a)                 :: int
len(a)             = len(a)                 :: int
size(a)            = a.size                 :: int
ndim(a)            = a.ndim                 :: int
argmax(a)          = np.argmax(a)           :: int
argmin(a)          = np.argmin(a)           :: int
dim(a, k)          = a.shape[k]             :: int
shape_of(a)        = a.shape                :: shape
# float(a) as a product: Numba has no float(bool) (`float(0.0 < x < 1.0)`)
float(a)           = a * 1.0                :: float | a: g
sin(x)             = {m}.sin(x)             :: ewf  | x: g * {m}.cos(x)
cos(x)             = {m}.cos(x)             :: ewf  | x: -g * {m}.sin(x)
tan(x)             = {m}.tan(x)             :: ewf  | x: g * (1.0 + y * y)
sinh(x)            = {m}.sinh(x)            :: ewf  | x: g * {m}.cosh(x)
cosh(x)            = {m}.cosh(x)            :: ewf  | x: g * {m}.sinh(x)
tanh(x)            = {m}.tanh(x)            :: ewf  | x: g * (1.0 - y * y)
exp(x)             = {m}.exp(x)             :: ewf  | x: g * y
expm1(x)           = {m}.expm1(x)           :: ewf  | x: g * (y + 1.0)
log(x)             = {m}.log(x)             :: ewf  | x: g / x
log1p(x)           = {m}.log1p(x)           :: ewf  | x: g / (1.0 + x)
sqrt(x)            = {m}.sqrt(x)            :: ewf  | x: g * 0.5 / y
math.atan(x)       = math.atan(x)           :: ewf  | x: g / (1.0 + x * x)
np.arctan(x)       = np.arctan(x)           :: ewf  | x: g / (1.0 + x * x)
math.atan2(a, b)   = math.atan2(a, b)       :: ewf  | a: g * b / (a * a + b * b) | b: -g * a / (a * a + b * b)
np.arctan2(a, b)   = np.arctan2(a, b)       :: ewf  | a: g * b / (a * a + b * b) | b: -g * a / (a * a + b * b)
hypot(a, b)        = {m}.hypot(a, b)        :: ewf  | a: g * a / y              | b: g * b / y
math.fabs(x)       = math.fabs(x)           :: ewf  | x: g * np.sign(x)
np.abs(x)          = np.abs(x)              :: same | x: g * np.sign(x)
abs(x)             = abs(x)                 :: same | x: g * np.sign(x)
math.pow(a, b)     = math.pow(a, b)         :: ewf  | a: g * b * a ** (b - 1 + (b == 0)) | b: g * y * np.log(a + (a == 0))
np.power(a, b)     = np.power(a, b)         :: ew   | a: g * b * a ** (b - 1 + (b == 0)) | b: g * y * np.log(a + (a == 0))
np.square(x)       = np.square(x)           :: same | x: 2.0 * g * x
np.sign(x)         = np.sign(x)             :: same
np.floor(x)        = np.floor(x)            :: same
math.floor(x)      = math.floor(x)          :: int
np.maximum(a, b)   = np.maximum(a, b)       :: ew   | a: g * ((a > b) + 0.5 * (a == b)) | b: g * ((a < b) + 0.5 * (a == b))
np.minimum(a, b)   = np.minimum(a, b)       :: ew   | a: g * ((a < b) + 0.5 * (a == b)) | b: g * ((a > b) + 0.5 * (a == b))
max2(a, b)         = max(a, b)              :: ew   | a: g * ((a > b) + 0.5 * (a == b)) | b: g * ((a < b) + 0.5 * (a == b))
min2(a, b)         = min(a, b)              :: ew   | a: g * ((a < b) + 0.5 * (a == b)) | b: g * ((a > b) + 0.5 * (a == b))
np.where(c, a, b)  = np.where(c, a, b)      :: where | a: np.where(c, g, 0.0)   | b: np.where(c, 0.0, g)
np.clip(x, lo, hi) = np.clip(x, lo, hi)     :: clip | x: g * ((x >= lo) & (x <= hi)) | lo: g * (x < lo) | hi: g * (x > hi)
sum(x)             = np.sum(x)              :: reduce | x: g
norm(x)            = np.linalg.norm(x)      :: reduce | x: g * x / y
sum_axis(x; axis)  = np.sum(x, axis=axis)   :: reduce | x: rt.expand(g, axis)
mean(x)            = np.mean(x)             :: reduce | x: g / x.size
mean_axis(x; axis) = rt.mean_axis(x, axis)  :: reduce | x: rt.expand(g, axis) / x.shape[axis]
max(x)             = np.max(x)              :: reduce | x: g * (x == y) / np.sum(x == y)
max_axis(x; axis)  = rt.max_axis(x, axis)   :: reduce | x: rt.expand(g / np.sum(x == rt.expand(y, axis), axis=axis), axis) * (x == rt.expand(y, axis))
min(x)             = np.min(x)              :: reduce | x: g * (x == y) / np.sum(x == y)
min_axis(x; axis)  = rt.min_axis(x, axis)   :: reduce | x: rt.expand(g / np.sum(x == rt.expand(y, axis), axis=axis), axis) * (x == rt.expand(y, axis))
reshape(x, shape)  = x.reshape(shape)       :: reshape | x: rt.reshape_like(g, x)
transpose(x)       = x.T                    :: same | x: g.T
copy_array(x)      = x.copy()               :: same | x: g
zeros(shape; dtype)      = np.zeros(shape, dtype)      :: new
ones(shape; dtype)       = np.ones(shape, dtype)       :: new
empty(shape; dtype)      = np.empty(shape, dtype)      :: new
zeros_like(x)      = np.zeros_like(x)       :: like
ones_like(x)       = np.ones_like(x)        :: like
empty_like(x)      = np.empty_like(x)       :: like
"""

# Names that take `{m}` and exist in both `math` and `np` get one rule per module.
_MODULES = {"math": math, "np": np}

# Calls by object -> rule name (filled from the table plus the aliases below).
CALLABLES: dict[int, str] = {}
# Methods on arrays -> rule name (axis variants chosen in normalize).
METHODS = {"reshape": "reshape", "copy": "copy_array", "sum": "sum", "mean": "mean", "max": "max",
           "min": "min", "transpose": "transpose", "dot": "dot",
           "argmax": "argmax", "argmin": "argmin"}
# Reductions whose `axis=` form is a different rule.
AXIS_FORMS = {"sum": "sum_axis", "mean": "mean_axis", "max": "max_axis", "min": "min_axis"}


@dataclass
class Rule:
    name: str
    params: tuple
    statics: tuple
    forward: ast.expr
    kind: str
    adjoints: dict = field(default_factory=dict)  # param -> ast.expr

    @property
    def differentiable(self) -> bool:
        return bool(self.adjoints)

    def reads(self, param: str) -> set:
        """Names (params, 'y') the adjoint of `param` reads besides `g`."""
        expr = self.adjoints[param]
        return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)
                and (n.id in self.params or n.id in self.statics or n.id == "y")}


RULES: dict[str, Rule] = {}


def _parse_line(line: str):
    head, rest = line.split("=", 1)
    forward, tail = rest.split("::", 1)
    parts = [p.strip() for p in tail.split("|")]
    kind = parts[0]
    name, sig = head.strip().split("(", 1)
    sig = sig.rstrip(") ")
    params, _, statics = sig.partition(";")
    params = tuple(p.strip() for p in params.split(",") if p.strip())
    statics = tuple(p.strip() for p in statics.split(",") if p.strip())
    adj = {}
    for p in parts[1:]:
        k, v = p.split(":", 1)
        adj[k.strip()] = v.strip()
    return name, params, statics, forward.strip(), kind, adj


# Names the templates read that are not placeholders (`np`, `math`, `rt`, builtins such as
# `max`, user primitives' `prim_<name>`): globals of the generated module, which a user's local
# variable must never shadow (normalize renames such locals).
TEMPLATE_GLOBALS: set = set()
# Bumped by every registration (`defvjp` and `primitive` included): caches of transformed
# functions (normalized IR, compiled specializations) made under another value may be stale.
VERSION = 0


def _register(name, params, statics, forward, kind, adj):
    rule = Rule(name, params, statics, ast.parse(forward, mode="eval").body, kind,
                {k: ast.parse(v, mode="eval").body for k, v in adj.items()})
    placeholders = set(params) | set(statics) | {"g", "y"}
    for tree in [rule.forward, *rule.adjoints.values()]:
        TEMPLATE_GLOBALS.update(n.id for n in ast.walk(tree)
                                if isinstance(n, ast.Name) and n.id not in placeholders)
    RULES[name] = rule
    global VERSION
    VERSION += 1


def _load_table():
    for raw in TABLE.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, params, statics, forward, kind, adj = _parse_line(line)
        if "{m}" in forward:
            for mname, mod in _MODULES.items():
                if not hasattr(mod, name):
                    continue
                full = f"{mname}.{name}"
                _register(full, params, statics, forward.replace("{m}", mname),
                          "ewf" if mname == "np" else "float",
                          {k: v.replace("{m}", mname) for k, v in adj.items()})
                CALLABLES[id(getattr(mod, name))] = full
        else:
            _register(name, params, statics, forward, kind, adj)
            if name.startswith(("np.", "math.")):
                mname, attr = name.split(".", 1)
                CALLABLES[id(getattr(_MODULES[mname], attr))] = name
    import builtins
    for alias, target in [(np.absolute, "np.abs"), (np.sum, "sum"), (np.mean, "mean"),
                          (np.max, "max"), (np.amax, "max"), (np.min, "min"), (np.amin, "min"),
                          (np.dot, "dot"), (np.outer, "outer"), (np.reshape, "reshape"),
                          (np.transpose, "transpose"), (np.copy, "copy_array"), (np.zeros, "zeros"),
                          (np.ones, "ones"), (np.empty, "empty"), (np.zeros_like, "zeros_like"),
                          (np.ones_like, "ones_like"), (np.empty_like, "empty_like"),
                          (builtins.abs, "abs"), (builtins.max, "max2"), (builtins.min, "min2"),
                          (builtins.float, "float"), (builtins.int, "int"), (builtins.len, "len"),
                          (builtins.bool, "truth"), (np.argmax, "argmax"), (np.argmin, "argmin"),
                          (np.linalg.norm, "norm")]:
        CALLABLES[id(alias)] = target


_load_table()


# Kinds a rule may have (its result-type category; see the table's header).
KINDS = frozenset(r.kind for r in RULES.values())
_ALIASES = {"np": "numpy"}
_NOTHING = object()
_KEEP: dict = {}   # rule name -> the callable it was registered for (kept alive: CALLABLES is by id)


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


def _error(message):
    from .errors import JitadError
    return JitadError(message)


def _parse(what, text):
    if not isinstance(text, str):
        raise _error(f"{what} must be a string holding a Python expression, got {type(text).__name__}")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise _error(f"{what} {text!r} is not a Python expression ({e.msg})") from None


def _template_names(tree):
    """(placeholder-like names in source order, names called as functions, attribute bases)."""
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    bases = {n.value.id: n.attr for n in ast.walk(tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    names = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name)),
                   key=lambda n: (n.lineno, n.col_offset))
    order = []
    for n in names:
        if n.id not in order:
            order.append(n.id)
    return order, called, bases


def _global_ok(name, called):
    """Whether a template may read `name` as a global of the generated module."""
    import builtins
    from . import extend
    if name in ("np", "math", "rt"):
        return True
    return name in called and (hasattr(builtins, name) or name in extend.PRIMITIVES)


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
        raise _error(f"defvjp's name must be a non-empty string such as 'math.erf', got {name!r}")
    target = resolve(name)
    if target is None and name not in RULES:
        raise _error(
            f"defvjp({name!r}): {name!r} names no callable jitad can import and no rule it "
            "already has, so no call could use this rule; name the function with its module "
            "('np.cumsum', 'math.erf', 'scipy.special.expit'), or for a function of your own "
            "use jitad.defvjp(fn, x=...) / @jitad.primitive")
    return define(name, forward, kind, params, adjoints, target)


def define(name, forward, kind, params, adjoints: dict, target=None) -> str:
    """Validate and register a rule named `name`; with `target` (a callable), calls to that
    object use it. See `defvjp` for what is checked."""
    where = f"defvjp({name!r})"
    fwd = _parse(f"{where}: the forward template", forward)
    adj = {k: _parse(f"{where}: the adjoint template for {k!r}", v) for k, v in adjoints.items()}
    order, called, bases = _template_names(fwd)
    if params is None:
        params = tuple(n for n in order if not _global_ok(n, called) and not _module_like(n, bases))
    elif isinstance(params, str) or not all(isinstance(p, str) and p.isidentifier() for p in params):
        raise _error(f"{where}: params= must be a tuple of parameter names, got {params!r}")
    params = tuple(params)
    if len(set(params)) != len(params):
        raise _error(f"{where}: a parameter appears twice in {params}")
    if kind not in KINDS:
        raise _error(f"{where}: unknown kind {kind!r} (one of {', '.join(sorted(KINDS))})")
    for k in adj:
        if k not in params:
            raise _error(f"{where}: an adjoint is given for {k!r}, which is not a parameter of "
                         f"the forward {forward!r} (parameters: {', '.join(params) or 'none'})")
    for what, tree, extra in [("forward", fwd, set())] + [(f"adjoint for {k!r}", t, {"g", "y"})
                                                          for k, t in adj.items()]:
        order, called, _ = _template_names(tree)
        for n in order:
            if n not in params and n not in extra and not _global_ok(n, called):
                raise _error(f"{where}: the {what} reads {n!r}, which generated code cannot see "
                             "(a template reads its parameters, g and y, np., math. and rt., "
                             "and calls builtins or user primitives)")
    if target is not None and not callable(target):
        raise _error(f"{where}: {name} is a {type(target).__name__}, not a callable")
    if target is None and name in RULES and len(RULES[name].params) != len(params):
        raise _error(f"{where}: the rule it replaces takes {len(RULES[name].params)} "
                     f"parameter(s) ({', '.join(RULES[name].params)}), this one {len(params)}")
    _register(name, params, (), forward.strip(), kind, {k: v.strip() for k, v in adjoints.items()})
    if target is not None:
        CALLABLES[id(target)] = name
        _KEEP[name] = target
    return name


def lookup_callable(obj):
    """The rule name for a callable object (or for the function a `@jitad.differentiable`
    wrapper holds), or None."""
    name = CALLABLES.get(id(obj))
    if name is None and hasattr(obj, "__jitad_function__"):
        name = CALLABLES.get(id(obj.__jitad_function__))
    return name


class _Subst(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


def _const(node):
    """The number (or bool) a constant node holds, or _NOTHING."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _const(node.operand)
        return _NOTHING if v is _NOTHING else -v
    return _NOTHING


def _const_node(v):
    if not isinstance(v, bool) and v < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-v))
    return ast.Constant(v)


_CMPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
         ast.Eq: operator.eq, ast.NotEq: operator.ne}
_ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


class _Fold(ast.NodeTransformer):
    """Comparisons of constants, and + - * of constants (bools included), computed: a rule's
    guard such as `b == 0` disappears when `b` is a constant (`x ** 2` keeps `2 * x`)."""

    def visit_Compare(self, node):
        self.generic_visit(node)
        vals = [_const(node.left)] + [_const(c) for c in node.comparators]
        if _NOTHING in vals or not all(type(o) in _CMPS for o in node.ops):
            return node
        return ast.Constant(all(_CMPS[type(o)](a, b) for o, a, b in zip(node.ops, vals, vals[1:])))

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b, f = _const(node.left), _const(node.right), _ARITH.get(type(node.op))
        if f is None or a is _NOTHING or b is _NOTHING:
            return node
        return _const_node(f(a, b))


def substitute(template: ast.expr, mapping: dict) -> ast.expr:
    """A copy of `template` with each placeholder name replaced by the AST in `mapping`, and
    the comparisons and arithmetic that became constant computed (see `_Fold`)."""
    return _Fold().visit(_Subst(mapping).visit(copy.deepcopy(template)))
