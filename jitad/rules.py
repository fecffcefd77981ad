"""Derivative rules, as data: one readable line per primitive.

Takes: nothing (the table below is parsed once at import; `defvjp` adds user rules).
Guarantees: `RULES[name]` is a `Rule` with the primitive's forward expression template, its
result-type category, and for each differentiable parameter an adjoint expression template.
In templates, parameters are the rule's own names, `g` is the cotangent of the result and
`y` the result; they are substituted on the AST (never by string replace), so a user's
variable called `g`, `y` or `d` can never collide with them.
Adjoint templates return a contribution shaped like the *result*'s broadcast; `reverse`
un-broadcasts it onto the argument (sum over broadcast axes), so rules never do.

Line format:  name(params; statics) = forward :: type | param: adjoint | param: adjoint
  type  ew: elementwise, keeps int-ness   ewf: elementwise, float result   cmp: bool result
        same: as first argument   bool/int/float: scalar of that kind   reduce: reduction
        dot: by ranks (rules `dot.A.B`)   outer, reshape, transpose, new, like: shape rules
  A rule with no adjoint lines is not differentiable (its result is never active).
"""
from __future__ import annotations

import ast
import copy
import math
from dataclasses import dataclass, field

import numpy as np

TABLE = r"""
add(a, b)          = a + b                  :: ew   | a: g                      | b: g
sub(a, b)          = a - b                  :: ew   | a: g                      | b: -g
mul(a, b)          = a * b                  :: ew   | a: g * b                  | b: g * a
truediv(a, b)      = a / b                  :: ewf  | a: g / b                  | b: -g * y / b
pow(a, b)          = a ** b                 :: ew   | a: g * b * a ** (b - 1)   | b: g * y * np.log(a)
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
float(a)           = float(a)               :: float | a: g
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
math.pow(a, b)     = math.pow(a, b)         :: ewf  | a: g * b * a ** (b - 1)   | b: g * y * np.log(a)
np.power(a, b)     = np.power(a, b)         :: ew   | a: g * b * a ** (b - 1)   | b: g * y * np.log(a)
np.square(x)       = np.square(x)           :: same | x: 2.0 * g * x
np.sign(x)         = np.sign(x)             :: same
np.floor(x)        = np.floor(x)            :: same
math.floor(x)      = math.floor(x)          :: int
np.maximum(a, b)   = np.maximum(a, b)       :: ew   | a: g * (a >= b)           | b: g * (a < b)
np.minimum(a, b)   = np.minimum(a, b)       :: ew   | a: g * (a <= b)           | b: g * (a > b)
max2(a, b)         = max(a, b)              :: ew   | a: g * (a >= b)           | b: g * (a < b)
min2(a, b)         = min(a, b)              :: ew   | a: g * (a <= b)           | b: g * (a > b)
np.where(c, a, b)  = np.where(c, a, b)      :: where | a: np.where(c, g, 0.0)   | b: np.where(c, 0.0, g)
np.clip(x, lo, hi) = np.clip(x, lo, hi)     :: clip | x: g * ((x >= lo) & (x <= hi)) | lo: g * (x < lo) | hi: g * (x > hi)
sum(x)             = np.sum(x)              :: reduce | x: g
norm(x)            = np.linalg.norm(x)      :: reduce | x: g * x / y
sum_axis(x; axis)  = np.sum(x, axis=axis)   :: reduce | x: rt.expand(g, axis)
mean(x)            = np.mean(x)             :: reduce | x: g / x.size
mean_axis(x; axis) = rt.mean_axis(x, axis)  :: reduce | x: rt.expand(g, axis) / x.shape[axis]
max(x)             = np.max(x)              :: reduce | x: g * (x == y)
max_axis(x; axis)  = rt.max_axis(x, axis)   :: reduce | x: rt.expand(g, axis) * (x == rt.expand(y, axis))
min(x)             = np.min(x)              :: reduce | x: g * (x == y)
min_axis(x; axis)  = rt.min_axis(x, axis)   :: reduce | x: rt.expand(g, axis) * (x == rt.expand(y, axis))
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


def _register(name, params, statics, forward, kind, adj):
    RULES[name] = Rule(name, params, statics, ast.parse(forward, mode="eval").body, kind,
                       {k: ast.parse(v, mode="eval").body for k, v in adj.items()})


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


def defvjp(name: str, forward: str, kind: str = "ewf", **adjoints: str) -> None:
    """Add (or replace) a rule: `defvjp("softplus", "np.log1p(np.exp(x))", x="g / (1.0 + np.exp(-x))")`.

    The parameters are the names that appear in `forward` in order of first appearance
    unless given explicitly as `params=("x",)`.
    """
    params = adjoints.pop("params", None)
    fwd = ast.parse(forward, mode="eval").body
    if params is None:
        seen = []
        for n in ast.walk(fwd):
            if isinstance(n, ast.Name) and n.id not in ("np", "math", "rt") and n.id not in seen:
                seen.append(n.id)
        params = tuple(seen)
    _register(name, tuple(params), (), forward, kind, adjoints)


def lookup_callable(obj):
    """The rule name for a callable object, or None."""
    try:
        return CALLABLES.get(id(obj))
    except TypeError:
        return None


class _Subst(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


def substitute(template: ast.expr, mapping: dict) -> ast.expr:
    """A copy of `template` with each placeholder name replaced by the AST in `mapping`."""
    return _Subst(mapping).visit(copy.deepcopy(template))
