"""Structured values and constant parameters: what a function's specialization fixes before
it is normalized.

Takes: the `Normalizer` state (a mixin of it: `expr`, `bind`, `err`, `stmt`, `resolve_func`,
`namer`, `params`, `locals`, `tree`, `renamed`, `cap`).
Guarantees:
  * a parameter given a structure -- a tuple, list, namedtuple or dict (string keys) of arrays
    and scalars, nested too; `forms` holds ("struct", `types.structure(...)`) for it -- becomes
    one parameter per array or scalar, depth first; its name stands for a `Struct` of them,
    read by unpacking (nested targets too), constant indices, slices with constant bounds,
    string keys and namedtuple fields (`params[-1]`, `layers[:-1]`, `p["Wz"]`, `p.W`), `len`,
    and `for` loops over it -- directly, through `zip`, `enumerate`, `reversed`, `sorted`
    (of its keys, or `.items()` by key), `.values()`, `.keys()`, `.items()`, or
    `range(len(...))` indexing it -- which are unrolled, since each element may have its own
    shape and rank; so are loops over a module-level tuple holding a string (`for name in
    NAMES`: keys) and over a tuple of numbers written out or a local holds (`iterable_of`);
  * a record -- a NamedTuple or dataclass object (`records`) -- is a "seq" Struct of its
    fields with its class (`Struct.cls`, also in its form): given as an argument, or made
    here by a call of its class a global names, `p._replace(...)` or
    `dataclasses.replace(p, ...)` (`record`: each field a fresh variable holding its value
    then, defaults filled in; made once per call node); `p.name` reads a field or a class
    constant; `p.m(...)` is a helper call of the class's function given `p`
    (`anf.record_method`); a dataclass object is not indexed, unpacked or iterated;
  * a local dict `dict_locals` left (`out = {}` or a display, assigned once outside branches)
    or a dict comprehension over a structure or a range of constants (`{k: v - lr * g[k] for
    k, v in p.items()}`) is a dict `Struct` of one fresh variable per key (`local_dict`):
    `out[k] = v` / `out[k] += v` with a key known here (a constant, a key a loop over a
    structure gives) assigns the key's variable, a new key only in the block of its display
    (`dict_write`: the keys are the same on every path); a name given a key's value is a copy
    (never an alias of a variable a later write changes); reads, loops, `len` and helper
    calls read it as any dict structure;
  * a name given an element of a structure by an assignment or a loop target that is its only
    assignment outside branches (`W, b = params[0]`) is another name for that element, not a
    copy; otherwise it is a variable (an array or scalar; a record or tuple of numbers and
    arrays is one variable per leaf, the name's *home*: `homed`; another structure is
    refused there); an
    array element unpacked into names (`a, b, c = params[g]`, or through such a name) gives
    its rows, its length checked, as `a, b, c = x` of a local array;
  * a parameter given a constant (("const", repr, value) in `forms`: an int, bool, string,
    None or tuple of numbers) is that constant everywhere in the function's tree, so a call
    that needs a static value (`axis=`, `keepdims=`, `ord=`, a shape) reads it and a branch on
    it is decided; `==`/`!=` between constant strings or None is decided too, and so is a
    test method of a constant string (`name.startswith("w")`, `static_str_method`);
  * a parameter given its type (("type", dtype, ndim) in `forms`, made by `type_facts` where
    the function reads `p.dtype` or asks `isinstance(p, T)` of a parameter it never assigns)
    has `p.dtype` read as that dtype's name (a constant: `np.zeros(n, dtype=x.dtype)`,
    `x.astype(y.dtype)`) and `isinstance(p, T)` decided (`T` a type or a tuple of types the
    value's kind answers: np.ndarray, float, int, bool, complex, np.number ...; otherwise the
    call stays, and is refused as before); `p.ndim` where it reads the parameter
    (`param_ndim_reads`: also a parameter assigned later, `if x.ndim == 1: x = x[None, :]`),
    and `len(p.shape)` alike, is its rank, so a branch on it is decided;
  * a local assigned once, outside branches, an int constant (`k = 1`, `k = x.ndim - 1`) is
    that constant where `static_of` reads it after the assignment (`note_static_int`);
  * `zip(q, lengths)` of an array (a name never written into) and a structure of k items
    is the array's first k rows beside the structure's items (`zipped_rows`: its length
    checked to be k or more);
  * a call of a user helper (`pass_arg`) passes a structured argument (also a tuple, list or
    dict written out there: `layer({"W": W, "b": b}, x)`) as its arrays and scalars, and a constant argument the helper needs as a static value (a string, None, a
    tuple, a bool, or an int the helper hands to a library call or `.shape[...]`:
    `static_params`) as part of the callee: a `Specialized` helper, interned per (function,
    forms), which `pipeline.frontend` normalizes for those forms.
Invariants: no IR variable holds a structure or a string; a refusal names the user's line.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
from collections import Counter

import gast
import numpy as np

from .. import records
from ..capture import MISSING
from ..errors import JitadError
from ..ir import Const, Var
from ..primitives import COPY
from ..records import class_constant, is_record, is_sequence, method
from .calls import is_user_helper, source_resolver
from .library import lists_as_tuples, static_value


def _loop_constant(v) -> bool:
    """An item of a tuple written out that a loop over it binds as a constant: a number, a
    bool, None, a string or a tuple of ints (an axis tuple)."""
    if isinstance(v, tuple):
        return all(type(k) is int for k in v)
    return v is None or isinstance(v, (int, float, bool, str))


class Struct:
    """A structure known when the function is normalized: its items are atoms (the Vars of a
    spread parameter, constants) or Structs; `keys` are a dict's keys or a namedtuple's fields."""

    __slots__ = ("kind", "items", "keys", "cls")

    def __init__(self, kind, items, keys=None, cls=None):
        self.kind, self.items, self.keys, self.cls = kind, tuple(items), keys, cls

    def form(self):
        items = tuple(x.form() if isinstance(x, Struct) else const_form(x.value)
                      if _constant_atom(x) else None for x in self.items)
        return (self.kind, items, self.keys) + ((self.cls,) if self.cls is not None else ())

    def leaves(self) -> list:
        return [a for x in self.items for a in (x.leaves() if isinstance(x, Struct) else [x])]

    def describe(self) -> str:
        if self.cls is not None:
            return f"a {self.cls.__name__} (fields {', '.join(self.keys)})"
        if self.kind == "dict":
            return f"a dict with keys {', '.join(map(repr, self.keys))}"
        return f"a tuple of {len(self.items)} values"


def _constant_atom(a) -> bool:
    """A string or None in a structure: a constant of its specialization, not a parameter."""
    return isinstance(a, Const) and (a.value is None or isinstance(a.value, str))


class Specialized:
    """A user helper as one call site sees it: some parameters given a structure or a constant
    (`forms`). Interned (`specialized`), so `id()` keys a specialization as a function does."""

    def __init__(self, fn, forms):
        self.fn, self.forms = fn, forms
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)

    def __repr__(self):
        return f"<{self.__qualname__} specialized on {dict(self.forms)}>"


def specialized(fn, forms) -> Specialized:
    from ..pipeline import cache_of
    cache = cache_of(fn)
    key = ("specialized", forms)
    s = cache.get(key)
    if s is None:
        s = cache[key] = Specialized(fn, forms)
    return s


def const_form(value):
    return ("const", repr(value), value)


def _stores(stmts) -> Counter:
    return Counter(n.id for s in stmts for n in gast.walk(s)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store))


def _branch_stores(stmts) -> set:
    """Names assigned somewhere inside an `if` or `while`."""
    out = set()
    for s in stmts:
        for n in gast.walk(s):
            if isinstance(n, (gast.If, gast.While)):
                out |= set(_stores(n.body + n.orelse))
    return out


_ANALYSING: set = set()


def helper_facts(fn):
    """(static, stored) for a user helper: the parameters it hands to a library call or to
    `.shape[...]` (where an int may have to be a constant) without assigning them, and the
    parameters it assigns. Read from its source, once per function object."""
    from ..capture import capture
    from ..pipeline import cache_of
    cache = cache_of(fn)
    got = cache.get("helper_facts")
    if got is not None:
        return got
    if id(fn) in _ANALYSING:          # a recursive helper: its own calls add nothing
        return frozenset(), frozenset()
    _ANALYSING.add(id(fn))
    try:
        cap = capture(fn)
        stored = frozenset(_stores(cap.tree.body))
        params = set(cap.params) - stored
        resolve = source_resolver(cap)

        def names(node):
            # not into a user helper's call: that call hands on only what its own static
            # parameters take (seen when the walk below reaches it), so the depth a recursive
            # generated function counts (`math.tanh(g(b, k - 1, depth + 1))`) stays a value
            if isinstance(node, gast.Call) and is_user_helper(resolve(node.func)):
                return set()
            if isinstance(node, gast.Name):
                return {node.id} & params
            return set().union(*map(names, gast.iter_child_nodes(node)))

        static = set()
        for s in cap.tree.body:
            for node in gast.walk(s):
                if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
                        and node.value.attr == "shape":
                    static |= names(node.slice)
                if not isinstance(node, gast.Call):
                    continue
                obj = resolve(node.func)
                if getattr(obj, "__module__", None) == "builtins":
                    continue                          # range(n), len, float(n): values do
                if is_user_helper(obj):
                    inner = getattr(obj, "__jitad_function__", obj)
                    inner_static = helper_facts(inner)[0]
                    plist = list(inspect.signature(inner).parameters)
                    for p, a in zip(plist, node.args):
                        if p in inner_static:
                            static |= names(a)
                    for k in node.keywords:
                        if k.arg in inner_static:
                            static |= names(k.value)
                    continue
                for a in list(node.args) + [k.value for k in node.keywords]:
                    static |= names(a)
        got = (frozenset(static), stored)
    except (JitadError, TypeError, ValueError, OSError):
        got = (frozenset(), frozenset())
    finally:
        _ANALYSING.discard(id(fn))
    cache["helper_facts"] = got
    return got


def ndim_param(node):
    """The parameter name `node` reads the rank of -- `p.ndim`, or `len(p.shape)` of the
    builtin `len` (a function that assigns `len` does not read it so) -- else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "len" and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
        if not (isinstance(node, gast.Attribute) and node.attr == "shape"):
            return None
    elif not (isinstance(node, gast.Attribute) and node.attr == "ndim"):
        return None
    if isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name):
        return node.value.id
    return None


def param_ndim_reads(body, params) -> list:
    """The `p.ndim` (and `len(p.shape)`, `ndim_param`) nodes of `body` that read a parameter's
    own rank: anywhere for a parameter
    the function never assigns, else in the test of an `if` (or of a conditional expression
    assigned) at the body's top level before any statement assigning it (`if x.ndim == 1:
    x = x[None, :]`, `x = x[None, :] if x.ndim == 1 else x`)."""
    stores = _stores(body)
    out = []
    builtin_len = not stores["len"]

    def own(node):      # not into a nested def or lambda, whose parameter may be another x
        yield node
        for c in gast.iter_child_nodes(node):
            if not isinstance(c, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
                yield from own(c)

    def reads(node, names):
        return [n for n in own(node) if ndim_param(n) in names
                and (builtin_len or isinstance(n, gast.Attribute))]
    out += [n for s in body for n in reads(s, {p for p in params if not stores[p]})]
    assigned = {p for p in params if stores[p]}
    for s in body:
        if isinstance(s, gast.If):
            out += reads(s.test, assigned)
        elif isinstance(s, gast.Assign) and isinstance(s.value, gast.IfExp):
            out += reads(s.value.test, assigned)    # x = x[None, :] if x.ndim == 1 else x
        assigned -= set(_stores([s]))
        if not assigned:
            break
    return out


def type_facts(fn) -> frozenset:
    """The parameters of `fn` that its source reads as `p.dtype` or asks `isinstance(p, ...)`
    of, and never assigns, or reads the rank of (`param_ndim_reads`): those whose type a
    specialization fixes in its front end (("type", dtype, ndim) forms,
    `pipeline.typed_frontend`). Once per function object."""
    from ..capture import capture
    from ..pipeline import cache_of
    cache = cache_of(fn)
    got = cache.get("type_facts")
    if got is not None:
        return got
    try:
        cap = capture(fn)
        params = set(cap.params) - set(_stores(cap.tree.body))
        resolve = source_resolver(cap)
        found = {ndim_param(node) for node in param_ndim_reads(cap.tree.body, cap.params)}
        for node in gast.walk(cap.tree):
            if isinstance(node, gast.Attribute) and node.attr == "dtype" \
                    and isinstance(node.value, gast.Name) and node.value.id in params:
                found.add(node.value.id)
            elif isinstance(node, gast.Call) and len(node.args) == 2 \
                    and isinstance(node.args[0], gast.Name) and node.args[0].id in params \
                    and resolve(node.func) is isinstance:
                found.add(node.args[0].id)
        got = frozenset(found)
    except (JitadError, TypeError, ValueError, OSError):
        got = frozenset()
    cache["type_facts"] = got
    return got


# the str methods a constant string's call is decided for (each answers a bool or an int)
_STR_TESTS = frozenset({"startswith", "endswith", "isdigit", "isalpha", "isupper", "islower",
                        "isidentifier", "count", "find"})
# string methods giving a string: of a constant string, a constant (`kind.lower() == "l2"`)
_STR_MAPS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "replace",
                       "title", "capitalize", "removeprefix", "removesuffix"})

_KIND_TYPE = {"f8": float, "f4": np.float32, "i8": int, "b1": bool, "c16": complex}


def _isinstance_of(form, cls):
    """isinstance(value, cls) of a value of type form ("type", dtype, ndim), decided by its
    kind; MISSING where values of that type may answer either way (a float argument may be
    a Python float or an np.float64)."""
    classes = cls if isinstance(cls, tuple) else (cls,)
    if not classes or not all(isinstance(c, type) for c in classes):
        return MISSING
    if form[0] == "struct":      # a tuple or list (which, the form does not say), a dict
        holds = {"seq": (list, tuple), "dict": (dict,)}[form[1]]
        if all(any(issubclass(h, c) for c in classes) for h in holds):
            return True
        if any(issubclass(h, c) for c in classes for h in holds):
            return MISSING
        return False
    _, dtype, ndim = form
    if ndim:
        return any(issubclass(np.ndarray, c) for c in classes)
    py = _KIND_TYPE[dtype]
    answers = set()
    for c in classes:
        if c is np.ndarray:
            answers.add(False)
        elif issubclass(py, c):          # float, numbers.Real, object, int of a bool ...
            answers.add(True)
        elif issubclass(c, np.generic) or issubclass(np.dtype(dtype).type, c):
            return MISSING               # np.float64, np.floating: how the caller spelled it
        else:
            answers.add(False)           # str, list, tuple, dict, np.ndarray ...
    return True if True in answers else False


# what np.issubdtype answers alike for integer arrays of every width (jitad reads them as int64)
_ANY_INT_WIDTH = (np.generic, np.number, np.integer, np.inexact, np.floating,
                  np.complexfloating, np.bool_)


class _Ranks(gast.NodeTransformer):
    """The `p.ndim` (`len(p.shape)`) nodes listed (by id) as the constant rank of p."""

    def __init__(self, reads, ranks):
        self.reads, self.ranks = reads, ranks

    def visit_Attribute(self, node):
        if id(node) in self.reads:
            return gast.copy_location(gast.Constant(self.ranks[ndim_param(node)], None), node)
        self.generic_visit(node)
        return node

    visit_Call = visit_Attribute


class _TypeFacts(gast.NodeTransformer):
    """`p.dtype` as the dtype's name, `isinstance(p, T)` as its answer (see `type_facts`)."""

    def __init__(self, types, resolve, err=None):
        self.types, self.resolve, self.err = types, resolve, err

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "dtype" and isinstance(node.ctx, gast.Load) \
                and isinstance(node.value, gast.Name) and node.value.id in self.types \
                and self.types[node.value.id][0] == "type" \
                and self.types[node.value.id][2]:        # an array (a float has no dtype)
            name = np.dtype(self.types[node.value.id][1]).name
            return gast.copy_location(gast.Constant(name, None), node)
        return node

    def array_dtype(self, node):
        """The dtype of `p.dtype` of a typed array parameter p, else None."""
        if isinstance(node, gast.Attribute) and node.attr == "dtype" \
                and isinstance(node.value, gast.Name) and node.value.id in self.types:
            form = self.types[node.value.id]
            if form[0] == "type" and form[2]:
                return np.dtype(form[1])
        return None

    def named_dtype(self, node):
        """The dtype an expression names (np.float32, float, "float64"), else None."""
        obj = node.value if isinstance(node, gast.Constant) else self.resolve(node)
        obj = getattr(obj, "type", obj) if type(obj).__name__ == "_Cast" else obj
        try:
            return np.dtype(obj) if obj is not MISSING and obj is not None else None
        except TypeError:
            return None

    def visit_Compare(self, node):
        # x.dtype == np.float32, x.dtype != float: decided
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Eq, gast.NotEq)):
            pair = [self.array_dtype(node.left), self.named_dtype(node.comparators[0])]
            if any(d is None for d in pair):    # (np.dtype(None) is float64: `is`, not `in`)
                pair = [self.array_dtype(node.comparators[0]), self.named_dtype(node.left)]
            if all(d is not None for d in pair) and pair[0].kind == "i" and self.err:
                self.err(node, "jitad reads integer arrays of every width as int64, so "
                               "whether this dtype is that one is not known when it compiles: "
                               "ask np.issubdtype(x.dtype, np.integer)", "dtype comparison")
            if all(d is not None for d in pair):
                same = pair[0] == pair[1]
                return gast.copy_location(gast.Constant(
                    same if isinstance(node.ops[0], gast.Eq) else not same, None), node)
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        if len(node.args) == 2 and not node.keywords and self.resolve(node.func) is np.issubdtype:
            have = self.array_dtype(node.args[0])      # np.issubdtype(x.dtype, np.floating)
            want = self.resolve(node.args[1])
            if have is not None and isinstance(want, type) and issubclass(want, np.generic) \
                    and (have.kind != "i" or want in _ANY_INT_WIDTH):   # int arrays: any width
                return gast.copy_location(gast.Constant(bool(np.issubdtype(have, want)), None),
                                          node)
        self.generic_visit(node)
        if len(node.args) == 2 and not node.keywords and isinstance(node.args[0], gast.Name) \
                and node.args[0].id in self.types and self.resolve(node.func) is isinstance:
            cls = static_type(node.args[1], self.resolve)
            if cls is not MISSING:
                got = _isinstance_of(self.types[node.args[0].id], cls)
                if got is not MISSING:
                    return gast.copy_location(gast.Constant(got, None), node)
        return node


def static_type(node, resolve):
    """The type (or tuple of types) an expression names in the source, or MISSING."""
    if isinstance(node, gast.Tuple):
        parts = [static_type(e, resolve) for e in node.elts]
        return MISSING if any(p is MISSING for p in parts) else tuple(parts)
    obj = resolve(node)
    obj = getattr(obj, "type", obj) if type(obj).__name__ == "_Cast" else obj
    return obj if isinstance(obj, type) or (isinstance(obj, tuple) and all(
        isinstance(c, type) for c in obj)) else MISSING


def _const_node(value, like):
    if isinstance(value, tuple):
        node = gast.Tuple([_const_node(v, like) for v in value], gast.Load())
    else:
        node = gast.Constant(value, None)
    return gast.copy_location(node, like)


class _Substitute(gast.NodeTransformer):
    def __init__(self, consts):
        self.consts = consts

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.consts:
            return _const_node(self.consts[node.id], node)
        return node


class StructArgs:
    """The Normalizer's half that knows structures and constant parameters."""

    def none_params_assigned(self, forms):
        """A parameter given None and assigned to (`if w is None: w = np.ones(k)`, the idiom
        of a default computed in the function) is a local that holds None until then: the
        parameter goes, and `w = None` at the top of the body makes it a sentinel like any
        local assigned None (see `nones`), so `w is None` reads its flag and a read of its
        value where it may be None is refused. Run before `none_flags`; `init_forms` then
        skips these names."""
        user = {v: k for k, v in self.renamed.items()}
        stores = _stores(self.tree.body)
        names = sorted(user.get(name, name) for name, form in forms or ()
                       if form[0] == "const" and form[2] is None
                       and stores[user.get(name, name)])
        self.none_locals = set(names)
        if not names:
            return
        self.tree = copy.deepcopy(self.tree)
        self.tree.body[:0] = [
            gast.copy_location(gast.Assign([gast.copy_location(gast.Name(n, gast.Store(), None,
                                                                           None), self.tree)],
                                           gast.copy_location(gast.Constant(None, None),
                                                              self.tree), None), self.tree)
            for n in names]
        self.params = [p for p in self.params if p not in self.none_locals]

    def init_forms(self, forms):
        self.structs = {}                # name -> Struct, or the atom an element name stands for
        self.static_ints = {}            # name -> int: a local assigned once a constant int
        self.dict_blocks = {}            # local dict name -> the block its display is in
        self.dict_vars = set()           # the variables of local dicts' keys (never aliased)
        self.records_made = {}           # (id(call node), statement count) -> its record
        self.stmt_count = 0              # statements lowered so far (`anf.stmt`)
        self.stores = _stores(self.tree.body)
        self.branch_stores = _branch_stores(self.tree.body)
        self.homes = {}                  # a structure name assigned again -> its home (`homed`)
        user = {v: k for k, v in self.renamed.items()}
        consts, typed, ranks = {}, {}, {}
        for name, form in forms or ():
            name = user.get(name, name)
            if form[0] in ("list", "varargs", "varkw"):   # a list parameter (`lists.
                continue            # list_parameters`), the mark of a given *args/**kw (`fence`)
            if form[0] == "type":      # its dtype read, or isinstance asked (`type_facts`)
                ranks[name] = form[2]
                if not self.stores[name]:
                    typed[name] = form
                continue
            if form[0] == "const":
                if name in self.none_locals:
                    continue
                if self.stores[name]:
                    self.err(self.tree, f"the parameter '{name}' is given the constant "
                                        f"{form[2]!r} by a call and assigned to in "
                                        f"{self.cap.name}: use a new name", "constant argument")
                consts[name] = form[2]
                continue
            struct, parts = self.spread(name, form[1])
            at = self.params.index(name)
            self.params[at:at + 1] = parts
            self.locals |= set(parts)
            self.structs[name] = struct
            if self.stores[name]:
                self.err(self.tree, f"the tuple argument '{name}' is assigned to; unpack it "
                                    "into new names", "tuple argument")
        if consts:
            self.tree = copy.deepcopy(self.tree)
            self.tree.body = [_Substitute(consts).visit(s) for s in self.tree.body]
            self.params = [p for p in self.params if p not in consts]
        if ranks:       # x.ndim of a parameter, where it reads the parameter: its rank
            self.tree = copy.deepcopy(self.tree)
            reads = {id(n) for n in param_ndim_reads(self.tree.body, list(ranks))}
            self.tree.body = [_Ranks(reads, ranks).visit(s) for s in self.tree.body]
        typed.update((name, ("struct", st.kind)) for name, st in self.structs.items()
                     if isinstance(st, Struct) and not self.stores[name])
        if typed:
            self.tree = copy.deepcopy(self.tree)
            self.tree.body = [_TypeFacts(typed, self.resolve_func, self.err).visit(s)
                              for s in self.tree.body]

    def spread(self, base, shape):
        """(Struct or Var, parameter names) for a parameter of structure `shape`."""
        if shape is None:
            p = self.namer.fresh(base)
            return Var(p), [p]
        if shape[0] == "const":          # a string or None inside the structure
            return Const(shape[2]), []
        kind, children, keys, *cls = shape
        items, parts = [], []
        for k, child in enumerate(children):
            label = keys[k] if keys and str(keys[k]).isidentifier() else str(k)
            item, ps = self.spread(f"{base}_{label}", child)
            items.append(item)
            parts += ps
        return Struct(kind, items, keys, *cls), parts

    # ------------------------------------------------------------ reading structures
    def static_of(self, node):
        """The value of a constant expression (numbers, strings, None, tuples, `len` of a
        structure, an element name that stands for a constant, a local assigned once an int
        constant before this read (`note_static_int`), + - * // of them), or MISSING."""
        v = static_value(node, self.resolve_func)
        if v is not MISSING:
            return v
        if isinstance(node, (gast.Subscript, gast.Attribute)) and \
                isinstance(self.struct_of(node.value), Struct):
            a = self.struct_of(node)         # cfg["loss"]: a constant inside a structure
            return a.value if isinstance(a, Const) else MISSING
        if isinstance(node, gast.Name):
            a = self.structs.get(node.id)
            if isinstance(a, Const):
                return a.value
            if node.id in self.static_ints:
                return self.static_ints[node.id]
            if node.id not in self.locals:
                g = self.cap.resolve(node.id)
                if isinstance(g, (int, str)) or g is None:
                    return g
            return MISSING
        if isinstance(node, gast.Call) and self.resolve_func(node.func) is len \
                and len(node.args) == 1:
            s = self.struct_of(node.args[0])
            if isinstance(s, Const) and isinstance(s.value, str):
                return len(s.value)          # len(k) of a key
            return len(s.items) if isinstance(s, Struct) else MISSING
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _STR_MAPS and not node.keywords:
            # kind.lower() of a constant string (a string argument): the string it gives
            s = self.static_of(node.func.value)
            args = [self.static_of(a) for a in node.args]
            if isinstance(s, str) and all(isinstance(a, str) for a in args):
                try:
                    return getattr(s, node.func.attr)(*args)
                except (TypeError, ValueError):
                    return MISSING
            return MISSING
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                                  gast.FloorDiv)):
            a, b = self.static_of(node.left), self.static_of(node.right)
            if type(a) is int and type(b) is int:
                if isinstance(node.op, gast.FloorDiv):
                    return a // b if b else MISSING
                return {gast.Add: a + b, gast.Sub: a - b, gast.Mult: a * b}[type(node.op)]
        return MISSING

    def struct_of(self, node, literal=False):
        """What an expression means when it reads a structure: a Struct, the atom of one of its
        arrays or scalars, or None when it does not read one. `literal`: a tuple or list
        written out (not all constants) is a Struct of its elements (a helper's argument, a
        loop's iterable)."""
        if isinstance(node, gast.Name):
            if node.id not in self.structs and node.id not in self.locals:
                return self.constant_keys(node)
            return self.structs.get(node.id)
        if isinstance(node, gast.Subscript):
            base = self.struct_of(node.value)
            return self.element(base, node) if isinstance(base, Struct) else None
        if isinstance(node, gast.Attribute):
            base = self.struct_of(node.value)
            if not isinstance(base, Struct):
                return None
            if base.kind == "seq" and base.keys and node.attr in base.keys:
                return base.items[base.keys.index(node.attr)]
            value = class_constant(base.cls, node.attr) if base.cls is not None else None
            if value is not None:
                return Const(value)     # self.EPS of the class
            self.err(node, f"{base.describe()} has no attribute .{node.attr}",
                     "structure attribute")
        if isinstance(node, (gast.Tuple, gast.List)) and literal:
            if static_value(node, self.resolve_func) is not MISSING:
                return None
            items = []
            for e in node.elts:
                s = self.struct_of(e, literal=True)
                items.append(s if s is not None else self.expr(e, "item"))
            return Struct("seq", items)
        if isinstance(node, gast.Dict) and literal:     # a dict written out (`fence` keys)
            items = [self.struct_of(v, literal=True) for v in node.values]
            items = [s if s is not None else self.expr(v, "item")
                     for s, v in zip(items, node.values)]
            return Struct("dict", items, tuple(k.value for k in node.keys))
        if isinstance(node, gast.Call):
            return self.struct_call(node)
        return None

    def iterable_of(self, node):
        """`struct_of` a loop's iterable (or an argument of zip, enumerate ...): a tuple of
        numbers written out (`enumerate((1.5, 2.25))`, a constant tuple local read) is a
        sequence of its constants, unrolled as a structure's items are."""
        v = static_value(lists_as_tuples(node), self.resolve_func) \
            if isinstance(node, (gast.Tuple, gast.List)) else MISSING
        if isinstance(v, tuple) and v and all(_loop_constant(k) for k in v):
            # numbers, or the axes / flags / None a test loops over (`for ax in (None, 0, 1)`,
            # `for keepdims in (True, False)`): each a constant inside its unrolled step
            return Struct("seq", [Const(k) for k in v])
        if isinstance(node, (gast.Tuple, gast.List)) and node.elts and all(
                isinstance(e, gast.Tuple) for e in node.elts):
            # rows of numbers written out (`EDGES = ((0, 1, 1.0), ...)`, a module tuple
            # `capture` wrote in): each row a sequence of its constants
            rows = [static_value(e, self.resolve_func) for e in node.elts]
            if all(isinstance(r, tuple) and all(isinstance(k, (int, float)) for k in r)
                   for r in rows):
                return Struct("seq", [Struct("seq", [Const(k) for k in r]) for r in rows])
        return self.struct_of(node, literal=True)

    def constant_keys(self, node):
        """A module-level tuple holding a string (`NAMES = ("W1", "b1")`: keys to loop over),
        as a sequence of its constants; else None."""
        v = self.cap.resolve(node.id)
        if isinstance(v, tuple) and any(isinstance(k, str) for k in v) and all(
                isinstance(k, (str, int, float)) for k in v):
            return Struct("seq", [Const(k) for k in v])
        return None

    def struct_call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute):
            base = self.struct_of(func.value)
            if not isinstance(base, Struct):
                return self.record_call(node)
            if base.cls is not None and func.attr == "_replace" and is_sequence(base.cls) \
                    and not node.args:      # p._replace(W=W2): a namedtuple's new fields
                return self.record(node, base.cls, [], node.keywords, base)
            if base.cls is not None and method(base.cls, func.attr) is not None:
                return None         # a method of a record: a call (`record_method`)
            if base.kind == "dict" and func.attr in ("values", "keys", "items") \
                    and not node.args and not node.keywords:
                keys = [Const(k) for k in base.keys]
                return Struct("seq", {"values": base.items, "keys": keys,
                                      "items": [Struct("seq", kv)
                                                for kv in zip(keys, base.items)]}[func.attr])
            if base.kind == "dict" and func.attr == "get" and 1 <= len(node.args) <= 2 \
                    and not node.keywords:      # p.get("W"), p.get("lr", 0.1)
                k = self.static_of(node.args[0])
                if k is not MISSING and k in base.keys:
                    return base.items[base.keys.index(k)]
                if k is not MISSING and len(node.args) == 2:
                    s = self.struct_of(node.args[1], literal=True)
                    return s if s is not None else self.expr(node.args[1], "get")
                self.err(node, f"{base.describe()}: .get() of one of its keys as a constant "
                               "(or with a default)", ".get() of a structure")
            how = ("its elements with d['key'], .get('key'), .values(), .keys() or .items()"
                   if base.kind == "dict" else "it by unpacking or with a constant index")
            self.err(node, f".{func.attr}() of {base.describe()} is not supported: read {how}",
                     f".{func.attr}() of a structure")
        made = self.record_call(node)
        if made is not None:
            return made
        obj = self.resolve_func(func)
        if obj not in (zip, enumerate, reversed, list, tuple, sorted) or node.keywords:
            return None
        args = [self.iterable_of(a) for a in node.args]
        if not args or not all(isinstance(a, Struct) for a in args):
            if not any(isinstance(a, Struct) for a in args):
                return None
            if obj is not zip:
                self.err(node, f"{obj.__name__}() of a tuple argument and an array is not "
                               "supported", "structure")
            args = self.zipped_rows(node, args)
        seqs = [self.iterated(a) for a in args]
        if obj is zip:
            return Struct("seq", [Struct("seq", xs) for xs in zip(*seqs)])
        if len(args) != 1:
            self.err(node, f"{obj.__name__}() takes one argument here")
        if obj is enumerate:
            return Struct("seq", [Struct("seq", (Const(k), x)) for k, x in enumerate(seqs[0])])
        if obj is reversed:
            return Struct("seq", seqs[0][::-1])
        if obj is sorted:       # sorted(p), sorted(p.items()): by the keys, known here
            def key(x):
                x = x.items[0] if isinstance(x, Struct) and x.items else x
                if not isinstance(x, Const):
                    self.err(node, "sorted() of a structure sorts its keys (or constants): "
                                   "its items are values", "sorted")
                return x.value
            try:
                return Struct("seq", sorted(seqs[0], key=key))
            except TypeError as e:
                self.err(node, f"sorted(): {e}", "sorted")
        return Struct("seq", seqs[0])

    def zipped_rows(self, node, args):
        """`zip(q, lengths)` of an array and a tuple structure of k items: the array's first k
        rows (its length checked to be k or more, `rt.check_zip`), so the loop is unrolled
        over the tuple's items. The array is a name the function never writes into (Python's
        zip reads its rows as the loop runs)."""
        from ..primitives import GETITEM, get
        k = min(len(self.iterated(a)) for a in args if isinstance(a, Struct))
        out = []
        for a, n in zip(args, node.args):
            if isinstance(a, Struct):
                out.append(a)
                continue
            if not isinstance(n, gast.Name) or any(
                    isinstance(m, gast.Subscript) and isinstance(m.ctx, gast.Store)
                    and _root(m) == n.id for m in gast.walk(self.tree)):
                self.err(n, "zip() of a tuple structure and an array takes an array the "
                            "function never writes into, by its name", "structure")
            arr = self.expr(n, n.id)
            size = self.bind(node, self.temp(n.id, "len"), get("len"), (arr,))
            self.bind(node, self.temp(n.id, "check"), get("check_zip"), (size, Const(k)))
            out.append(Struct("seq", [self.bind(node, self.temp(n.id, "getitem"), GETITEM,
                                                (arr, Const(i))) for i in range(k)]))
        return out

    def record_call(self, node):
        """The Struct of `Params(W, b)` (a record class the call names: `mod.Params(...)`
        too) or `dataclasses.replace(p, W=...)`, or None."""
        obj = self.resolve_func(node.func)
        if is_record(obj):          # Params(W, b): a record made here
            return self.record(node, obj, node.args, node.keywords)
        if obj is dataclasses.replace and len(node.args) == 1 and not isinstance(
                node.args[0], gast.Starred):
            base = self.struct_of(node.args[0])
            if isinstance(base, Struct) and base.cls is not None:
                return self.record(node, base.cls, [], node.keywords, base)
        return None

    def record(self, node, cls, args, keywords, base=None):
        """The Struct of a record `cls(args, keywords)` made here (`records`), or of `base`
        with the fields `keywords` name replaced (`p._replace(W=...)`,
        `dataclasses.replace(p, W=...)`); each field a fresh variable holding its value as
        the call evaluates it (a name assigned later does not change the record). Made once
        per lowering of its statement (an unrolled loop's body makes it again)."""
        made = self.records_made.get((id(node), self.stmt_count))
        if made is not None:
            return made
        why = records.constructor(cls) if base is None else None
        if why is not None:
            self.err(node, f"{cls.__name__}(...) is made by jitad as a structure of its fields, "
                           f"but {why}: make it outside and pass it in", f"call to {cls.__name__}")
        names = records.field_names(cls)
        spelled = cls.__name__ if base is None else f"{cls.__name__} replace"
        if any(isinstance(a, gast.Starred) for a in args) or any(k.arg is None for k in keywords):
            self.err(node, f"{spelled}(): its fields are given one by one (no * or **)",
                     f"call to {cls.__name__}")
        if len(args) > len(names):
            self.err(node, f"{cls.__name__}() takes {len(names)} fields, got {len(args)}",
                     f"call to {cls.__name__}")
        given = dict(zip(names, args))
        for k in keywords:
            if k.arg not in names or k.arg in given:
                self.err(node, f"{spelled}() got an unexpected or repeated field {k.arg!r}",
                         f"call to {cls.__name__}")
            given[k.arg] = k.value
        items, defaults = [], records.defaults(cls)
        values = {}
        for name in list(given):        # evaluated in the call's order
            s = self.struct_of(given[name], literal=True)
            values[name] = s if s is not None else self.expr(given[name], name)
        for k, name in enumerate(names):
            if name in values:
                v = values[name]
            elif base is not None:
                v = base.items[k]
            elif name in defaults and (isinstance(defaults[name], (bool, int, float, str))
                                       or defaults[name] is None):
                v = Const(defaults[name])
            else:
                self.err(node, f"{cls.__name__}() is missing its field {name!r}" if
                         name not in defaults else f"the default of {cls.__name__}.{name} is "
                         "not a number or a string: give the field", f"call to {cls.__name__}")
            if isinstance(v, Var):          # its own variable: W assigned later is another
                own = self.namer.fresh(f"{names[k]}_field")
                self.bind(node, own, COPY, (v,))
                self.dict_vars.add(own)
                v = Var(own)
            items.append(v)
        made = self.records_made[id(node), self.stmt_count] = Struct("seq", items, names, cls)
        return made

    @staticmethod
    def iterated(s: Struct):
        """What iterating a structure gives: a dict its keys, a sequence its items."""
        return [Const(k) for k in s.keys] if s.kind == "dict" else list(s.items)

    def not_a_sequence(self, base: Struct, node):
        """A dataclass object is read by its fields only (Python does not index, unpack or
        iterate one): refused at `node`."""
        if base.cls is not None and not is_sequence(base.cls):
            self.err(node, f"{base.describe()} is read by its fields (p.name): a dataclass "
                           "object is not indexed, unpacked or iterated", "dataclass object")

    def element(self, base: Struct, node):
        self.not_a_sequence(base, node)
        sl = node.slice
        what = base.describe()
        if isinstance(sl, gast.Slice):
            bounds = [None if e is None else self.static_of(e) for e in (sl.lower, sl.upper, sl.step)]
            if base.kind == "dict" or any(b is MISSING or not (b is None or type(b) is int)
                                          for b in bounds):
                self.err(node, f"slice {what} with constant bounds", "structure slice")
            if bounds[2] == 0:
                self.err(node, "slice step cannot be zero")
            return Struct("seq", base.items[slice(*bounds)])
        k = self.static_of(sl)
        if base.kind == "dict":
            if k is MISSING or k not in base.keys:
                self.err(node, f"{what}: index it with one of its keys as a constant"
                         if k is MISSING else f"{k!r} is not a key of {what}",
                         "dict argument")
            return base.items[base.keys.index(k)]
        n = len(base.items)
        if type(k) is not int or not -n <= k < n:
            self.err(node, f"index {what} with a constant in range(-{n}, {n})", "tuple index")
        return base.items[k]

    def struct_value(self, node):
        """The atom an expression reading a structure stands for, or None if it reads none;
        a whole structure (or a key) used as a value is refused."""
        s = self.struct_of(node)
        if s is None:
            return None
        if isinstance(s, Struct):
            spelled = node.id if isinstance(node, gast.Name) else \
                ast.unparse(gast.gast_to_ast(node))
            self.err(node, f"'{spelled}' is {s.describe()}: unpack it ({'a, b = ' + spelled}), "
                           "index it with a constant, loop over it, or pass it to a helper",
                     "tuple argument")
        if isinstance(s, Const) and isinstance(s.value, str):
            self.err(node, "a dict key is only supported as a constant index of its dict",
                     "string value")
        return s

    def static_compare(self, node):
        """`a == b` / `a != b` between constant strings or None, decided (a Const), or None;
        `x is None` / `x is not None` always decided: a value jitad computes with (a number,
        an array, a list) is never None, so only a constant None is."""
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            a, b = self.static_of(node.left), self.static_of(node.comparators[0])
            if a is not None and b is not None:
                self.err(node, "`is` is supported as `x is None` / `x is not None`", "operator is")
            return Const((a is None and b is None) == isinstance(node.ops[0], gast.Is))
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Eq, gast.NotEq)):
            return None
        a, b = self.static_of(node.left), self.static_of(node.comparators[0])
        if a is MISSING or b is MISSING or not any(isinstance(v, str) or v is None
                                                    for v in (a, b)):
            return None
        return Const((a == b) == isinstance(node.ops[0], gast.Eq))

    def static_str_method(self, node):
        """`name.startswith("w")` of a constant string (a dict key a loop over `.items()`
        gave, a string argument) with constant arguments: decided (a Const), or None. Only the
        methods answering a bool or a number (`_STR_TESTS`): a string is no value here."""
        func = node.func
        if not (isinstance(func, gast.Attribute) and func.attr in _STR_TESTS) or node.keywords:
            return None
        s = self.static_of(func.value)
        args = [self.static_of(a) for a in node.args]
        if not isinstance(s, str) or any(a is MISSING for a in args):
            return None
        try:
            return Const(getattr(s, func.attr)(*args))
        except (TypeError, ValueError) as e:
            self.err(node, f"str.{func.attr}: {e}", f".{func.attr}()")

    def note_static_int(self, target, value):
        """`k = 1`, `k = x.ndim - 1`, `k = len(params) - 1`: a local assigned once, outside
        branches, an int constant is that constant wherever `static_of` reads it after the
        assignment (a shape slice's bound, a structure's index); the assignment itself stays."""
        if isinstance(target, gast.Name) and self.stores[target.id] == 1 \
                and target.id not in self.branch_stores:
            v = self.static_of(value)
            if type(v) is int:
                self.static_ints[target.id] = v

    # ------------------------------------------------------------ local dicts built by keys
    def local_dict(self, target, value, node) -> bool:
        """`out = {}` / `out = {"W": W}` (a display `dict_locals` left: some key is written
        later with a key known only here) or `q = {k: f(v) for k, v in p.items()}` over a
        structure: `out` becomes a dict Struct of one fresh variable per key. True if done."""
        if not (isinstance(target, gast.Name) and isinstance(value, (gast.Dict, gast.DictComp))):
            return False
        name = target.id
        if self.stores[name] != 1 or name in self.branch_stores:
            self.err(target, f"the dict '{name}' is assigned once, outside branches (then "
                             "filled by keys)", "local dict")
        keys, items = [], []
        if isinstance(value, gast.Dict):
            pairs = list(zip(value.keys, value.values))
            for k, v in pairs:      # a display evaluates its values first, then binds
                items.append(self.expr(v, name))
            keys = [k.value for k in value.keys]
        else:
            gen = value.generators[0]
            s = self.iterable_of(gen.iter)
            it = gen.iter
            if s is None and isinstance(it, gast.Call) and self.resolve_func(it.func) is range \
                    and not it.keywords and 1 <= len(it.args) <= 3:
                bounds = [self.static_of(a) for a in it.args]      # {k: ... for k in range(3)}
                if all(type(b) is int for b in bounds) and (len(bounds) < 3 or bounds[2]):
                    s = Struct("seq", [Const(k) for k in range(*bounds)])
            if not isinstance(s, Struct):
                self.err(gen.iter, "a dict comprehension iterates over a dict or tuple argument, "
                                   "a local dict or a range of constants: its keys must be "
                                   "known when jitad compiles", "dict comprehension")
            scoped = {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
            for item in self.iterated(s):
                self.bind_target(gen.target, item, node, scoped)
                if not all(self.static_of(c) for c in gen.ifs):
                    if any(self.static_of(c) is MISSING for c in gen.ifs):
                        self.err(gen.ifs[0], "a dict comprehension's `if` is decided when "
                                             "jitad compiles (of its keys)", "dict comprehension")
                    continue
                key = self.static_of(value.key)
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    self.err(value.key, "a dict comprehension's key is a string or int known "
                                        "when jitad compiles (a key of the dict it iterates)",
                             "dict comprehension")
                keys.append(key)
                items.append(self.expr(value.value, name))
            for n in scoped:
                self.structs.pop(n, None)
        own = []
        for k, a in zip(keys, items):
            var = self.namer.fresh(f"{name}_{k}" if isinstance(k, str) and k.isidentifier()
                                   else f"{name}_item")
            self.bind(node, var, COPY, (a,))
            own.append(Var(var))
        self.dict_vars.update(v.name for v in own)
        self.dict_blocks[name] = self.out
        self.structs[name] = Struct("dict", own, tuple(keys))
        return True

    def dict_write(self, target, value, node) -> bool:
        """`out[k] = v` of a local dict (`local_dict`) with a key known here: the key's
        variable assigned (a new key adds one, only in the block of the dict's display: the
        keys are the same on every path). True if done."""
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and target.value.id in self.dict_blocks):
            return False
        name = target.value.id
        base = self.structs[name]
        key = self.static_of(target.slice)
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            self.err(target.slice, f"a key of the dict '{name}' is a string or int known when "
                                   "jitad compiles (a constant, a key of a dict argument a loop "
                                   "gives)", "dict key")
        if key in base.keys:
            self.expr_into(value, base.items[base.keys.index(key)].name)
            return True
        if self.out is not self.dict_blocks[name]:
            self.err(target, f"a new key of the dict '{name}' is added outside a branch or a "
                             "loop that jitad keeps (the keys must be the same on every path)",
                     "dict key")
        var = self.namer.fresh(f"{name}_{key}" if isinstance(key, str) and key.isidentifier()
                               else f"{name}_item")
        self.expr_into(value, var)
        self.dict_vars.add(var)
        self.structs[name] = Struct("dict", base.items + (Var(var),), base.keys + (key,))
        return True

    # ------------------------------------------------------------ binding structures
    def struct_assign(self, target, value, node) -> bool:
        """`W, b = params[0]`, `layer = params[1]`, `(W1, b1), (W2, b2) = params`, `enc, dec =
        params["enc"], params["dec"]` (a display of elements, none reading a target): True if
        done."""
        if isinstance(value, (gast.Tuple, gast.List)):
            if not (isinstance(target, gast.Tuple) and len(target.elts) == len(value.elts)
                    and all(isinstance(t, gast.Name) for t in target.elts)):
                return False
            names = {t.id for t in target.elts}
            items = [self.struct_of(e) for e in value.elts]
            if any(v is None for v in items) or any(
                    isinstance(n, gast.Name) and n.id in names
                    for e in value.elts for n in gast.walk(e)):
                return False
            for t, v in zip(target.elts, items):
                self.bind_target(t, v, node)
            return True
        nested = isinstance(target, gast.Tuple) and not all(isinstance(e, gast.Name)
                                                             for e in target.elts)
        v = self.struct_of(value)
        if v is None or isinstance(target, gast.Subscript):
            if nested:
                self.err(target, "nested unpacking is supported for tuple arguments",
                         "nested unpacking")
            return False
        self.bind_target(target, v, node)
        return True

    def bind_target(self, target, v, node, scoped=()):
        """Bind a target to a structure's element; `scoped`: loop targets the loop body does
        not assign, which stand for their element inside the loop whatever else assigns them."""
        if isinstance(target, gast.Name):
            name = target.id
            alias = name in scoped or (self.stores[name] <= 1 and name not in self.branch_stores)
            if isinstance(v, Var) and v.name in self.dict_vars:
                alias = False       # a local dict's key may be written again: copy its value
            if isinstance(v, Struct) and not alias and self.homed(name, v, target, node):
                return
            if isinstance(v, Struct) or (isinstance(v, Const) and isinstance(v.value, str)):
                if not alias:
                    what = v.describe() if isinstance(v, Struct) else "a dict key"
                    self.err(target, f"'{name}' holds {what} here and is assigned elsewhere "
                                     "too (or in a branch): give it a name of its own",
                             "structure variable")
                self.structs[name] = v
            elif alias:
                self.structs[name] = v
            else:
                self.bind(node, name, COPY, (v,))
            return
        n = len(target.elts)
        if isinstance(v, Struct):
            self.not_a_sequence(v, target)
        if isinstance(v, Var):      # a, b, c = params[g]: the rows of an array element
            self.unpack_rows(target, v, node, scoped)
            return
        if not isinstance(v, Struct) or v.kind == "dict":
            self.err(target, f"cannot unpack {v.describe() if isinstance(v, Struct) else 'an element'}"
                             f" into {n} names here", "tuple unpacking")
        if len(v.items) != n:
            self.err(target, f"{v.describe()} cannot be unpacked into {n} names",
                     "tuple unpacking")
        for t, x in zip(target.elts, v.items):
            self.bind_target(t, x, node, scoped)

    def homed(self, name, v, target, node) -> bool:
        """A record or tuple (a `Struct` of kind "seq") given to a name assigned more than
        once or in a branch (`if c: p = P(a, b) else: p = P(b, a)`, `s = s._replace(x=...)` in
        a loop): the name's own variables, one per leaf (`p_a`, `p_b`: its *home*, made at its
        first assignment, the same at every other), are assigned the leaves' values, and the
        name stands for the home -- so a read after a branch, or in a later iteration, reads
        what the path assigned, as a variable assigned there would (a read no assignment
        reached raises UnboundLocalError: `unbound`). Every assignment must give the same
        structure (class, fields, nesting); leaves must be numbers or arrays (a string or
        None is a constant, never a variable). False: not such a value (refused as before)."""
        if v.kind != "seq" or not all(isinstance(a, Var) or (isinstance(a, Const)
                                      and not _constant_atom(a)) for a in v.leaves()):
            return False
        home = self.homes.get(name)
        if home is None:
            home = self.homes[name] = self._home(name, v)
        elif home.form() != v.form():       # (its leaves all variables or numbers: None)
            self.err(target, f"'{name}' holds {home.describe()} and is given "
                             f"{v.describe()} here: give it a name of its own",
                     "structure variable")
        for h, a in zip(home.leaves(), v.leaves()):
            self.bind(node, h.name, COPY, (a,))
        self.structs[name] = home
        return True

    def _home(self, name, v):
        """A Struct shaped like v whose leaves are fresh variables named after `name`."""
        keys = v.keys if v.keys is not None else [str(k) for k in range(len(v.items))]
        items = [self._home(f"{name}_{k}", x) if isinstance(x, Struct)
                 else Var(self.namer.fresh(f"{name}_{k}")) for k, x in zip(keys, v.items)]
        self.locals |= {x.name for x in items if isinstance(x, Var)}
        return Struct(v.kind, items, v.keys, v.cls)

    def unpack_rows(self, target, arr, node, scoped=()):
        """`a, b, c = params[g]` (an array taken from a structure, or an alias of one): its
        rows, as `a, b, c = x` unpacks a local array -- its length checked, one row per name."""
        from ..primitives import GETITEM, get
        hint = next((e.id for e in gast.walk(target) if isinstance(e, gast.Name)), "row")
        n = self.bind(node, self.temp(hint, "len"), get("len"), (arr,))
        self.bind(node, self.temp(hint, "check"), get("check_len"), (n, Const(len(target.elts))))
        for k, t in enumerate(target.elts):
            row = self.bind(node, self.temp(arr.name, "getitem"), GETITEM, (arr, Const(k)))
            if isinstance(t, gast.Name):
                self.bind(node, t.id, COPY, (row,))
            else:
                self.bind_target(t, row, node, scoped)

    def struct_loop(self, node) -> bool:
        """A `for` loop over a structure, unrolled: True if done."""
        items = None
        s = self.iterable_of(node.iter)
        if isinstance(s, Struct):
            self.not_a_sequence(s, node.iter)
            items = self.iterated(s)
        elif s is not None:
            self.err(node.iter, "a for loop over an element of a tuple argument iterates over "
                                "an array's rows: not supported here", "for loop")
        else:
            items = self.unrolled_range(node)
        if items is None:
            if isinstance(node.target, gast.Tuple) and not all(
                    isinstance(e, gast.Name) for e in node.target.elts) and \
                    self.enumerate_zip(node.target, node.iter) is None:
                self.err(node.target, "nested loop targets are supported over tuple arguments",
                         "for loop target")
            return False
        for sub in node.body:
            for n in _jumps(sub):
                self.err(n, "break/continue in a loop over a tuple argument (which jitad "
                            "unrolls) is not supported", "break in an unrolled loop")
        inside = _stores(node.body)
        scoped = {n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)} - set(inside)
        for item in items:
            self.bind_target(node.target, item, node, scoped)
            for sub in node.body:
                self.stmt(sub)
        for name in scoped:    # assigned elsewhere too: the name means its variable after the loop
            if self.stores[name] > 1 or name in self.branch_stores:
                self.structs.pop(name, None)
        return True

    def unrolled_range(self, node):
        """`for i in range(len(params)): ... params[i] ...`: the indices, or None."""
        it = node.iter
        if not (isinstance(it, gast.Call) and self.resolve_func(it.func) is range
                and isinstance(node.target, gast.Name) and not it.keywords
                and 1 <= len(it.args) <= 3 and node.target.id not in _stores(node.body)):
            return None
        var = node.target.id
        # a structure indexed by the loop variable (an element name standing for an array,
        # `A, a = p; A[i]`, is indexed as the array it is: no unrolling, `break` allowed)
        if not any(isinstance(n, gast.Subscript)
                   and isinstance(self.structs.get(_root(n.value)), Struct)
                   and any(isinstance(m, gast.Name) and m.id == var for m in gast.walk(n.slice))
                   for sub in node.body for n in gast.walk(sub)):
            return None
        bounds = [self.static_of(a) for a in it.args]
        if any(type(b) is not int for b in bounds):
            return None
        return [Const(k) for k in range(*bounds)]

    # ------------------------------------------------------------ helper calls
    def pass_arg(self, call, callee, param, node, default, hint, out, forms):
        """One argument of a helper call: appended to `out` as atoms (a structure as its
        arrays and scalars); a structure or a constant the helper needs fixed goes to `forms`."""
        name = param.name
        if node is not None and self.passes_list(node):
            out.append(self.list_value(node, hint))     # a list: the helper reads it as one
            forms.append((name, ("list",)))
            return
        if node is not None:
            s = self.struct_of(node, literal=True)
            if isinstance(s, Struct):
                forms.append((name, ("struct", s.form())))
                out.extend(a for a in s.leaves() if not _constant_atom(a))
                return
            if s is None:
                value = static_value(node, self.resolve_func)
                if not (isinstance(value, (str, tuple)) or value is None) or \
                        isinstance(node, gast.Attribute):
                    s = self.expr(node, hint)
            if s is not None:
                if not isinstance(s, Const):
                    out.append(s)
                    return
                value = s.value
        else:
            value = default
        static, stored = helper_facts(callee)
        # None even where the helper assigns the parameter (`none_params_assigned`)
        if value is None or name not in stored and (
                isinstance(value, (str, tuple, bool)) or (type(value) is int and name in static)):
            forms.append((name, const_form(value)))
        elif isinstance(value, (bool, int, float)) and not isinstance(value, str):
            out.append(Const(value))
        elif node is None:
            self.err(call, f"the default {value!r} of {callee.__name__}'s parameter "
                                    f"{name!r} is not a number: pass the argument",
                     "default argument")
        else:
            self.err(node, f"{callee.__name__} assigns to its parameter {name!r}, so it cannot "
                           f"be given the constant {value!r}", "constant argument")


def _root(node):
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _jumps(stmt):
    """The break/continue statements of `stmt` that leave the loop around it."""
    if isinstance(stmt, (gast.Break, gast.Continue)):
        yield stmt
        return
    if isinstance(stmt, (gast.For, gast.While)):
        return
    for field in ("body", "orelse"):
        for s in getattr(stmt, field, []) or []:
            yield from _jumps(s)
