"""Stage 1 — capture: a Python function becomes a parsed, name-resolved tree.

Takes: a plain Python function object, or a lambda.
Guarantees: `Captured.tree` is the `gast.FunctionDef` of that function (decorators dropped; a
lambda's is the def it stands for, named `def_name(fn)`, found among the lambdas on its line
by its instructions' positions), after `desugar` rewrote the statements that mean simpler ones
(`assert`, `raise`, `print`, `a = b = v` ...: their names bound here),
whose node positions are the user's real file lines and columns; `Captured.resolve(name)`
maps every free name (closure cell, global, builtin) to the object it means, so later stages
never look a name up again (a name an `import` inside the function binds among them: the
statement is done here and becomes `pass`, `_local_imports`); `loc(node)` turns any node into
an `errors.Loc`.
The source is the source of `fn.__code__` -- the code Python runs, never a `__wrapped__`
function's -- and it is checked to compile to the same instructions as `fn.__code__`, so a
file edited after its import is refused instead of differentiated.
`first_changed(captured.watch())` tells whether a free name now means another object (a
rebound global or closure variable): the API re-specializes when it does.
Captured arrays are never frozen: a free name whose value is an array, a tuple, list or
dict holding arrays, or a dict of numbers (`passed_at_call`), or a plain object whose attributes
are numbers and arrays (read as a dataclass object of them: `records.view`, made again at
every call), is a hidden parameter (`Captured.hidden`, a `Hidden`
each): a parameter appended to the tree after the user's, which the API fills at every call
with the value the name has then (`Hidden.read`). A function's hidden parameters are its own
such names (the parameter is named as the name is) and, transitively, those of the user
helpers it calls (named as the helper names them, made fresh where the function uses that
name: its calls pass them on); they are in neither `free` nor `watch`.
A free name holding a tuple of numbers is compiled in as a number is (`_constant_tuples`: the
tree reads a display of its numbers), and stays in `free` and `watch`; so is one holding a
set, frozenset or tuple of constants read only by `in` (`membership.constant_collections`),
watched by a snapshot of its items (a set changed in place is a changed name).
`capture(fn)` is kept in the function's cache (`pipeline.cache_of`) until the API forgets it
(`pipeline.forget_frontends`) or one of its free names means another object: every analysis
reading a helper's source shares one.
Invariants: no node is mutated after capture (later stages build new IR).
"""
from __future__ import annotations

import ast
import builtins
import dis
import hashlib
import inspect
import linecache
import re
import textwrap
import types
from dataclasses import dataclass, field

import gast
import numpy as np

from .desugar import ASSERT_FAILED, RAISE, desugar
from . import records
from .membership import constant_collections, same_constants
from .inplace import SORT
from .unbound import UNBOUND
from .nonzero_index import WITHIN
from .errors import JitadError, Loc

MISSING = object()


class Hidden:
    """A free name passed to compiled code as a parameter (see the module docstring): `param`
    is the parameter's name in the function's tree, `name` the free name as the user wrote it
    in the function that reads it, `where` the globals dict or closure cell it is read from."""

    __slots__ = ("param", "name", "where")

    def __init__(self, param, name, where):
        self.param, self.name, self.where = param, name, where

    @property
    def key(self):
        """What two functions reading the same variable agree on."""
        return (id(self.where), self.name)

    def read(self):
        """The value the name has now (a `JitadError` once it is no longer defined)."""
        return Hidden.read_all((self,))[0]

    @staticmethod
    def read_all(hidden) -> tuple:
        """The values of several, read now (one loop: this runs at every call)."""
        out = []
        for h in hidden:
            where = h.where
            if type(where) is dict:
                value = where.get(h.name, MISSING)
            else:
                try:
                    value = where.cell_contents
                except ValueError:
                    value = MISSING
            if value is MISSING:
                raise JitadError(f"'{h.name}', an array the function reads, is no longer "
                                 "defined")
            out.append(records.view(value) if records.is_plain_object(value) else value)
        return tuple(out)

    def renamed(self, param):
        return Hidden(param, self.name, self.where)

    def __repr__(self):
        return f"Hidden({self.param!r} <- {self.name!r})"


def passed_at_call(value) -> bool:
    """Whether a free name with this value is a hidden parameter: an array, a tuple, list or
    dict (nested too) of arrays and numbers holding at least one array, or a dict or a
    dataclass object of numbers and arrays (a config, which can change in place unseen by the
    watch). Numbers, and tuples of
    numbers (shapes), stay constants of the compiled code."""
    from . import records

    def dataclass_object(v):
        return records.is_record(type(v)) and not isinstance(v, tuple)

    def leaves(v):
        if isinstance(v, (tuple, list)):
            return [x for item in v for x in leaves(item)]
        if isinstance(v, dict):
            return [x for item in v.values() for x in leaves(item)]
        if dataclass_object(v):
            return [x for item in records.values(v) for x in leaves(item)]
        return [v]
    if isinstance(value, np.ndarray):
        return True
    if records.is_plain_object(value):     # read as a dataclass object of its attributes
        value = records.view(value)
    if not isinstance(value, (tuple, list, dict)) and not dataclass_object(value):
        return False
    got = leaves(value)
    # (a dict or a dataclass object of numbers -- a config -- can change in place unseen)
    return (isinstance(value, dict) or dataclass_object(value)
            or any(isinstance(v, np.ndarray) for v in got)) and all(
        isinstance(v, (np.ndarray, bool, int, float, np.number, np.bool_)) for v in got)


@dataclass
class Captured:
    fn: object
    name: str
    tree: gast.FunctionDef
    filename: str
    source: str
    params: list[str]
    free: dict[str, object] = field(default_factory=dict)
    # where each free name was found: a closure cell, or the globals dict (also for builtins,
    # which a later global of the same name would shadow)
    origin: dict[str, object] = field(default_factory=dict)
    # the names `desugar` made, each with what it stands for in the user's code (messages)
    shown: dict[str, str] = field(default_factory=dict)
    # the hidden parameters, the tree's last ones (`Hidden`; see the module docstring)
    hidden: tuple = ()
    # its own hidden names, and the user helpers its calls mean (what `hidden` is made from)
    own: tuple = ()
    helpers: tuple = ()
    # a lifted nested function: the enclosing function's hidden parameters it takes as its
    # own (`Hidden.key` -> its parameter), for the helpers it calls
    passed: dict = field(default_factory=dict)
    # the `*args` (`**kwargs`) parameter made a plain one (`_star_param_plain`), or None
    star: str | None = None
    star_star: str | None = None

    def hidden_param(self, h) -> str | None:
        """The parameter that holds the variable of `h` (a callee's `Hidden`), or None."""
        return next((mine.param for mine in self.hidden if mine.key == h.key),
                    self.passed.get(h.key))

    def watch(self) -> tuple:
        """(where, name, object) for each free name: what `first_changed` checks."""
        return tuple((self.origin[name], name, obj) for name, obj in self.free.items())

    def loc(self, node) -> Loc:
        line = getattr(node, "lineno", None) or self.tree.lineno
        col = getattr(node, "col_offset", 0) or 0
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None) if end_line == line else None
        return Loc(self.filename, line, col, end_col, self.name)

    def resolve(self, name: str):
        """The object a free name means, or `MISSING`."""
        return self.free.get(name, MISSING)

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]


def first_changed(watch) -> str | None:
    """The first free name of a `Captured.watch()` that now means another object, or None.
    Numbers compare by value (re-running `lr = 0.1` makes a new float, not a new value)."""
    for where, name, was in watch:
        if type(where) is dict:
            now = where.get(name, MISSING)
            if now is MISSING:
                now = getattr(builtins, name, MISSING)
        else:
            try:
                now = where.cell_contents
            except ValueError:
                return name
        if now is not was and not _same_number(now, was) and not same_constants(now, was):
            return name
    return None


def capture(fn) -> Captured:
    """The capture of `fn`, made once and kept in its cache (see the module docstring); a
    function jitad made (a lifted nested function) has the one it was given."""
    if not inspect.isfunction(fn):
        raise JitadError(f"jitad can only transform plain Python functions, got {type(fn).__name__}")
    from .extend import load_plugins
    from .pipeline import cache_of
    load_plugins()                  # a plugin may define names the function reads
    cache = cache_of(fn)
    if "captured" in cache:         # `pipeline.preset_frontend`
        return cache["captured"]
    cap = _shallow(fn)
    if cap.hidden is None:
        _hide(cap)
    return cap


def _shallow(fn) -> Captured:
    """`fn` captured, its own hidden names found but not yet those of its helpers."""
    from .pipeline import cache_of, forget_frontends
    cache = cache_of(fn)
    cap = cache.get("capture")
    if cap is not None and first_changed(cap.watch()) is not None:
        forget_frontends([cap])     # a free name was rebound: read it (and what used it) again
        cap = None
    if cap is None:
        cap = cache["capture"] = _capture(fn)
    return cap


def _hide(cap: Captured):
    """The hidden parameters of `cap`: its own, then those of every user helper reachable from
    it by calls that it does not read itself (named fresh), appended to its tree's parameters
    (with defaults of their own where the parameters before them have some)."""
    from .pipeline import cache_of
    found, keys = list(cap.own), {h.key for h in cap.own}
    seen, queue = {id(cap.fn)}, list(cap.helpers)
    while queue:
        g = queue.pop(0)
        if id(g) in seen:
            continue
        seen.add(id(g))
        if "captured" in cache_of(g):
            continue
        try:
            c = _shallow(g)
        except JitadError:          # refused where it is called
            continue
        found += [h for h in c.own if h.key not in keys]
        keys |= {h.key for h in c.own}
        queue += list(c.helpers)
    if len(found) > len(cap.own):
        from .names import Namer, user_names
        taken = user_names(cap.tree) | set(cap.free) | {h.param for h in cap.own}
        fresh = Namer(taken).fresh
        found = list(cap.own) + [h.renamed(fresh(h.name)) for h in found[len(cap.own):]]
    cap.hidden = tuple(found)
    args = cap.tree.args
    added = [h.param for h in found]
    if args.defaults:
        args.defaults = args.defaults + [gast.Constant(None, None) for _ in added]
    args.args = args.args + [gast.Name(p, gast.Param(), None, None) for p in added]
    cap.params = cap.params + added


def _capture(fn) -> Captured:
    if not inspect.isfunction(fn):
        raise JitadError(f"jitad can only transform plain Python functions, got {type(fn).__name__}")
    if fn.__code__.co_name == "<lambda>":
        return _capture_lambda(fn)
    try:
        # the source of the code that runs: `fn.__code__`, never a `__wrapped__` function
        # (`functools.wraps` makes `inspect.getsource(wrapper)` show the wrapped one)
        lines, first = _source_lines(fn.__code__, fn.__globals__)
    except (OSError, TypeError) as e:
        raise JitadError(
            f"cannot read the source of {fn.__qualname__} ({e}); jitad needs functions defined in a file"
        ) from None
    filename = inspect.getsourcefile(fn.__code__) or fn.__code__.co_filename
    raw = "".join(lines)
    if not same_code(raw, fn.__code__):
        raise JitadError(
            f"the source of {fn.__qualname__} in {filename} is not the code Python runs for it "
            "(the file was edited after it was imported?); jitad differentiates the code that "
            "runs: reload the module or re-run the definition")
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    module = gast.parse(text)
    fdefs = [n for n in module.body if isinstance(n, gast.FunctionDef)]
    if not fdefs:
        raise JitadError(f"{fn.__qualname__} is not defined with `def` (lambdas are not supported)")
    tree = fdefs[0]
    tree.decorator_list = []
    for node in gast.walk(tree):
        if hasattr(node, "lineno") and node.lineno is not None:
            node.lineno += first - 1
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += first - 1
            node.col_offset = (node.col_offset or 0) + indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    return _captured(fn, tree, filename, raw)


_DEF_LINE = re.compile(r'^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)')


def _source_lines(code, module_globals):
    """`inspect.getsourcelines(code)`, the lines read with the function's module globals
    (`linecache`'s loader hook) instead of `inspect.getmodule`'s search, which realpaths every
    module's file on its first call in a process (~25 ms of a cached first call)."""
    filename = inspect.getsourcefile(code)
    if filename:
        linecache.checkcache(filename)
    else:
        filename = inspect.getfile(code)
        if not (filename.startswith("<") and filename.endswith(">")):
            raise OSError("source code not available")
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        raise OSError("could not get source code")
    lnum = code.co_firstlineno - 1
    while lnum > 0:
        if lnum >= len(lines):
            raise OSError("lineno is out of bounds")
        if _DEF_LINE.match(lines[lnum]):
            break
        lnum -= 1
    return inspect.getblock(lines[lnum:]), lnum + 1


def _captured(fn, tree, filename, raw) -> Captured:
    star = _star_param_plain(tree, "vararg")
    _keyword_only_last(tree)
    star_star = _star_param_plain(tree, "kwarg")
    imported = _local_imports(fn, tree)
    _lambdas_as_defs(tree)
    _maps_as_comprehensions(tree, _builtin_test(fn, tree))
    tuples = _constant_tuples(fn, tree)
    free, origin = _free_names(fn, tree)
    for name, snapshot in constant_collections(free, tree).items():
        tuples[name] = (snapshot, origin[name])     # watched by their items
    shown = desugar(tree, _keyword_only_last, _builtin_test(fn, tree))
    params = [a.id for a in tree.args.args]
    # the name as written in the source (an identifier), not `fn.__name__`, which anyone can set
    cap = Captured(fn, tree.name, tree, filename, raw, params, shown=shown, star=star,
                   star_star=star_star)
    cap.free, cap.origin = _free_names(fn, tree)
    for name, obj in imported.items():      # read as module names are (never rebound)
        cap.free[name], cap.origin[name] = obj, imported
    for name, (obj, where) in tuples.items():   # written in as displays, still watched
        cap.free[name], cap.origin[name] = obj, where
    for name, target in _self_calls(fn, tree).items():
        _INJECTED[name] = target
        cap.free[name], cap.origin[name] = target, _INJECTED
    first = {}          # where each name is first read (the hidden ones in reading order)
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in cap.free:
            at = (getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0)
            first[node.id] = min(first.get(node.id, at), at)
    cap.own = tuple(Hidden(n, n, cap.origin.pop(n)) for n in sorted(
        (n for n in cap.free if passed_at_call(cap.free[n])), key=lambda n: first.get(n, (0, 0))))
    for h in cap.own:
        del cap.free[h.name]
    cap.hidden = None               # made by `_hide`
    from .normalize.calls import is_user_helper, source_resolver, transformed_function
    resolve = source_resolver(cap)
    helpers = {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Call):
            obj = transformed_function(resolve(node.func), node, resolve)
            if obj is not MISSING and is_user_helper(obj):
                obj = getattr(obj, "__jitad_function__", obj)
                helpers.setdefault(id(obj), obj)
    cap.helpers = tuple(helpers.values())
    called = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
    from . import runtime
    for name, target in ((ASSERT_FAILED, runtime.assert_failed), (RAISE, runtime.raise_error),
                         (UNBOUND, runtime.unbound_local), (SORT, np.sort),
                         (WITHIN, runtime.nonzero_within)):
        if name in called:              # an assert or raise `desugar` rewrote
            _INJECTED[name] = target
            cap.free[name], cap.origin[name] = target, _INJECTED
    if shown.prints:
        import warnings

        from .errors import JitadWarning
        lines = shown.prints
        where = ("line " if len(lines) == 1 else "lines ") + ", ".join(map(str, lines))
        warnings.warn(f"jitad: compiled code leaves out the print(), logging and "
                      f"warnings.warn calls of {tree.name} "
                      f"({filename}, {where}); eager mode runs them", JitadWarning,
                      stacklevel=3)
    return cap


# where the names `desugar` makes asserts and raises call are found (what a watch of the
# function's free names reads: they never change)
_INJECTED: dict = {}


def defining_class(fn):
    """The class a method is defined in, when it is a module's class (`Model.loss`), else None."""
    parts = getattr(fn, "__qualname__", "").split(".")
    if len(parts) != 2 or not isinstance(getattr(fn, "__globals__", None), dict):
        return None
    cls = fn.__globals__.get(parts[0])
    return cls if isinstance(cls, type) and vars(cls).get(parts[1]) is fn else None


def self_methods(cls, names) -> dict:
    """name -> (plain function, takes self) of the names that are methods (or static methods)
    of `cls` written as plain functions."""
    out = {}
    for m in names:
        try:
            attr = inspect.getattr_static(cls, m)
        except AttributeError:
            continue
        if isinstance(attr, staticmethod) and inspect.isfunction(attr.__func__):
            out[m] = (attr.__func__, False)
        elif inspect.isfunction(attr):
            out[m] = (attr, True)
    return out


def _self_calls(fn, tree) -> dict:
    """In a method of a module's class, `self.m(a, b)` calling another method m of the class
    is `m(self, a, b)` (a static method: `m(a, b)`): the call's function becomes a name bound
    to m's plain function (returned: name -> function), so m is a helper like any other, given
    the object as `bound.self_struct` passes it (`bound` refuses an object whose class
    overrides m)."""
    cls = defining_class(fn)
    if cls is None or not tree.args.args:
        return {}
    me = tree.args.args[0].id
    calls = [n for n in gast.walk(tree) if isinstance(n, gast.Call)
             and isinstance(n.func, gast.Attribute) and isinstance(n.func.value, gast.Name)
             and n.func.value.id == me]
    found = self_methods(cls, sorted({c.func.attr for c in calls}))
    names = {}
    for c in calls:
        if c.func.attr not in found:
            continue
        target, takes_self = found[c.func.attr]
        name = f"jitad_self_{cls.__name__}_{c.func.attr}"
        names[name] = target
        if takes_self:
            c.args.insert(0, gast.copy_location(gast.Name(me, gast.Load(), None, None), c.func.value))
        c.func = gast.copy_location(gast.Name(name, gast.Load(), None, None), c.func)
    return names


def def_name(fn) -> str:
    """The name generated code gives function `fn`: its own, `lambda_<line>` for a lambda."""
    name = getattr(fn, "__jitad_def_name__", None) or fn.__name__   # a `higher.Derived`
    return name if name.isidentifier() else f"lambda_{fn.__code__.co_firstlineno}"


def _capture_lambda(fn) -> Captured:
    """A lambda (`jitad.grad(lambda w, X, y: loss(w, X, y, 0.1))`) as the `def` it stands for, named
    `lambda_<line>`, its nodes at their places in its file. Found among the file's lambdas that
    start on its first line: the one whose span holds the positions of all its instructions
    (the innermost such; Python 3.11's `co_positions`), or the only one on that line."""
    code = fn.__code__
    filename = inspect.getsourcefile(code) or code.co_filename
    text = "".join(linecache.getlines(filename, fn.__globals__))
    line = code.co_firstlineno
    try:
        module = gast.parse(text) if text else None
    except SyntaxError:
        module = None
    if module is None:
        raise JitadError(f"cannot read the source of the lambda at line {line} of {filename}; "
                         "jitad needs functions defined in a file")
    found = [n for n in gast.walk(module) if isinstance(n, gast.Lambda) and n.lineno == line]
    positions = getattr(code, "co_positions", None)
    if positions is not None:
        # (an instruction of no source -- the frame's start, the return -- is at column 0 to 0)
        at = [(p[0], p[2]) for p in positions()
              if p[0] is not None and p[2] is not None and (p[2], p[3]) != (0, 0)]

        def holds(n):
            return all((n.lineno, n.col_offset) <= p < (n.end_lineno, n.end_col_offset)
                       for p in at)
        found = sorted((n for n in found if holds(n)),
                       key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))[:1]
    if len(found) != 1:
        raise JitadError("several lambdas start on this line: write the one to differentiate as a "
                         "`def`", Loc(filename, line, 0))
    node = found[0]
    raw = ast.get_source_segment(text, node)
    try:
        made = compile(f"({raw})", filename, "eval")
    except SyntaxError:
        made = None
    lams = [c for c in (made.co_consts if made else ()) if isinstance(c, types.CodeType)]
    if len(lams) != 1 or _shape(lams[0]) != _shape(code):
        raise JitadError(
            f"the source of the lambda at line {line} of {filename} is not the code Python runs "
            "for it (the file was edited after it was imported?); jitad differentiates the code "
            "that runs: reload the module or re-run the definition")
    ret = gast.Return(value=node.body)
    fields = {"name": def_name(fn), "args": node.args, "body": [ret], "decorator_list": [],
              "returns": None, "type_comment": None, "type_params": []}
    tree = gast.FunctionDef(**{k: v for k, v in fields.items() if k in gast.FunctionDef._fields})
    for n in (ret, tree):
        gast.copy_location(n, node)
        n.end_lineno, n.end_col_offset = node.end_lineno, node.end_col_offset
    return _captured(fn, tree, filename, raw)


def _builtin_test(fn, tree):
    """`test(name, obj)`: the name, read in `fn`, is the builtin `obj` (not a local, a closure
    variable or a global of that name)."""
    stored = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
              and isinstance(n.ctx, (gast.Store, gast.Param))}
    nested = {n.name for n in gast.walk(tree) if isinstance(n, gast.FunctionDef) and n is not tree}
    shadowed = stored | nested | {tree.name} | set(fn.__code__.co_freevars)

    def test(name, obj):
        return name not in shadowed and fn.__globals__.get(
            name, getattr(builtins, name, None)) is obj

    def value(name):        # what a global name (not shadowed) holds, or None
        return None if name in shadowed else fn.__globals__.get(name)

    def itself(name):       # the function's own name, holding fn (or jitad's wrapper of it)
        if name != tree.name or name in shadowed - {tree.name}:
            return False
        v = fn.__globals__.get(name)
        return v is fn or getattr(v, "__jitad_function__", None) is fn
    test.value, test.itself = value, itself
    return test


def _lambdas_as_defs(tree):
    """`sq = lambda v: v * v` as a statement is `def sq(v): return v * v` (Python makes the
    same function object but for its name): read as the nested definition it is, at the
    lambda's line. A lambda anywhere else stays, and `fence` refuses it."""
    for node in gast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for k, s in enumerate(block):
                if isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda) \
                        and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                    lam = s.value
                    ret = gast.copy_location(gast.Return(lam.body), lam.body)
                    fdef = gast.FunctionDef(s.targets[0].id, lam.args, [ret], [], None, None, [])
                    block[k] = gast.copy_location(fdef, s)


def _maps_as_comprehensions(tree, builtin):
    """`map(lambda v: body, xs)` is the list `[body for v in xs]` (`map(lambda a, b: body, xs,
    ys)`: `for a, b in zip(xs, ys)`), and `map(f, xs)` of a name `[f(v) for v in xs]`, where
    `map` (and `zip`) are the builtins: the same items, in a list where Python makes an
    iterator (read once, as sum(), list(), a for loop or NumPy reads it)."""
    class Rewrite(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if not (isinstance(node.func, gast.Name) and builtin(node.func.id, map)
                    and len(node.args) >= 2 and not node.keywords
                    and not any(isinstance(a, gast.Starred) for a in node.args)):
                return node
            f, seqs = node.args[0], node.args[1:]
            if isinstance(f, gast.Lambda):
                a = f.args
                if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs \
                        or len(a.args) != len(seqs):
                    return node
                names, body = [p.id for p in a.args], f.body
            elif isinstance(f, gast.Name):
                names = [f"{f.id}_item{k}" for k in range(len(seqs))]
                body = gast.Call(f, [gast.Name(n, gast.Load(), None, None) for n in names], [])
            else:
                return node
            if len(seqs) > 1 and not builtin("zip", zip):
                return node
            target = gast.Name(names[0], gast.Store(), None, None) if len(names) == 1 else \
                gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in names], gast.Store())
            source = seqs[0] if len(seqs) == 1 else \
                gast.Call(gast.Name("zip", gast.Load(), None, None), list(seqs), [])
            out = gast.ListComp(body, [gast.comprehension(target, source, [], 0)])
            for n in gast.walk(out):
                if getattr(n, "lineno", None) is None:
                    gast.copy_location(n, node)
            return out

    if any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "map"
           for n in gast.walk(tree)):
        tree.body = [Rewrite().visit(s) for s in tree.body]


def _star_param_plain(tree, kind) -> str | None:
    """`def h(x, *xs)` (kind "vararg") or `def h(x, **kw)` ("kwarg"): `xs` (`kw`) as a plain
    parameter after the others -- `*xs` before the keyword-only ones `_keyword_only_last`
    then adds, `**kw` after them (none may be left keyword-only) -- its name returned. A call
    of the helper gives it the tuple of its extra positional arguments (the dict of its extra
    keyword arguments): `helper_args`, a ("varargs"/"varkw", name) form; `fence` refuses the
    function given no such form (the differentiated function). After a parameter with a
    default, it has the default None in the tree (never read: a call always gives it)."""
    a = tree.args
    star = getattr(a, kind)
    if star is None or a.posonlyargs or (kind == "kwarg" and (a.kwonlyargs or a.vararg)):
        return None
    setattr(a, kind, None)
    a.args = a.args + [star]
    if a.defaults:
        a.defaults = a.defaults + [gast.Constant(None, None)]
    return star.id


def _keyword_only_last(tree):
    """Keyword-only parameters (`def loss(w, X, *, l2=1e-3)`) as plain ones after the others,
    where their defaults allow it (no parameter without a default after one with): a call
    binds them by name (`Differentiable.bind`, `helper_args`) in that order. Otherwise they
    stay, and `fence` refuses them."""
    a = tree.args
    if not a.kwonlyargs or a.vararg or a.kwarg:
        return
    has_default = [False] * (len(a.args) - len(a.defaults)) + [True] * len(a.defaults) \
        + [d is not None for d in a.kw_defaults]
    if any(x and not y for x, y in zip(has_default, has_default[1:])):
        return
    a.args = a.args + a.kwonlyargs
    a.defaults = a.defaults + [d for d in a.kw_defaults if d is not None]
    a.kwonlyargs, a.kw_defaults = [], []


def _same_number(a, b) -> bool:
    return type(a) is type(b) and type(a) in (int, float, bool, complex) and (a == b or (a != a and b != b))


# how a name is loaded or stored depends on where it lives (a closure cell in the real
# function, a global when its source is compiled alone), so these compare as one family;
# PUSH_NULL and the cell set-up differ for the same reason
_LOADS = {"LOAD_GLOBAL", "LOAD_DEREF", "LOAD_NAME", "LOAD_FAST", "LOAD_CLOSURE",
          "LOAD_CLASSDEREF", "LOAD_FAST_CHECK"}
_STORES = {"STORE_FAST", "STORE_DEREF", "STORE_NAME", "STORE_GLOBAL"}
_SETUP = {"PUSH_NULL", "COPY_FREE_VARS", "MAKE_CELL", "RESUME", "NOP", "CACHE", "EXTENDED_ARG"}


def _shape(code) -> list:
    out = []
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _SETUP:
            continue
        if op in _LOADS:
            out.append(("load", ins.argval))
        elif op in _STORES:
            out.append(("store", ins.argval))
        elif op in ("LOAD_ATTR", "LOAD_METHOD"):   # the choice depends on `import` in the file
            out.append(("attr", ins.argval))
        elif ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            out.append((op, None))          # targets move with the set-up instructions
        elif isinstance(ins.argval, types.CodeType):
            out.append((op, tuple(_shape(ins.argval))))
        else:
            out.append((op, repr(ins.argval)))
    return out


def same_code(source: str, code) -> bool:
    """Whether `source` (a `def`, as `inspect` read it) compiles to the instructions of
    `code`, the function Python runs: false when the file changed after the import."""
    try:
        module = compile(textwrap.dedent(source), code.co_filename, "exec")
    except SyntaxError:
        return False
    fns = [c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name]
    return len(fns) == 1 and _shape(fns[0]) == _shape(code)


def _numbers_tuple(v) -> bool:
    return isinstance(v, tuple) and type(v) is tuple and len(v) <= 64 and all(
        type(x) in (int, float, bool) or _numbers_tuple(x) for x in v)


def _constant_tuples(fn, tree) -> dict:
    """A global or closure variable the function reads that holds a tuple of numbers (nested
    too: `WEIGHTS = (0.5, 1.0, 2.0)`, `SHAPE = (3, 4)`) is compiled in as a module-level
    number is: a loop over it (`for w in WEIGHTS`, also `enumerate(WEIGHTS)` and
    `reversed(WEIGHTS)`) loops over the tuple display of its numbers,
    any other read reads a local tuple assigned that display first in the body (at the first
    statement's line; `WEIGHTS[1]`, `a, b = SHAPE`). A tuple
    cannot change in place, so the watch of the name -- its identity -- sees any change);
    {name: (tuple, where it was found)}. A list is not: it can change in place, unseen."""
    params = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Param)}
    free, origin = _free_names(fn, tree)
    names = {n: v for n, v in free.items() if n not in params and _numbers_tuple(v)}

    def display(v, at):
        if isinstance(v, tuple):
            return gast.copy_location(gast.Tuple([display(x, at) for x in v], gast.Load()), at)
        return gast.copy_location(gast.Constant(v, None), at)
    read = set()        # names read other than as a loop's iterable
    looped = {id(n.iter) for n in gast.walk(tree) if isinstance(n, (gast.For, gast.comprehension))
              and isinstance(n.iter, gast.Call) and isinstance(n.iter.func, gast.Name)
              and free.get(n.iter.func.id) in (enumerate, reversed) and len(n.iter.args) == 1}
    for node in list(gast.walk(tree)):
        if id(node) in looped:     # enumerate(WEIGHTS), reversed(WEIGHTS): of the display
            arg = node.args[0]
            if isinstance(arg, gast.Name) and arg.id in names:
                node.args[0] = display(names[arg.id], arg)
        for field, child in gast.iter_fields(node):
            if not (isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load)
                    and child.id in names):
                continue
            if isinstance(node, (gast.For, gast.comprehension)) and field == "iter":
                setattr(node, field, display(names[child.id], child))   # `desugar` loops over it
            else:
                read.add(child.id)
    first = tree.body[0]
    tree.body[:0] = [gast.copy_location(gast.Assign([gast.Name(n, gast.Store(), None, None)],
                                                    display(names[n], first), None), first)
                     for n in sorted(read)]
    return {n: (v, origin[n]) for n, v in names.items()}


def _local_imports(fn, tree) -> dict:
    """An `import` / `from ... import` statement in the function (`from scipy.special import
    logsumexp` inside it, a lazy import) binds a name to a module or an object of one, as the
    module-level statement would: each is done here, its statement becomes `pass`, and the
    name is read as a free name meaning that object (name -> object, returned). Only where
    the name means one object wherever it is bound: a name the function also assigns, or
    binds by imports of different objects, or `import *`, or an import that fails, keeps its
    statements, which `fence` refuses at their line."""
    import importlib
    package = fn.__globals__.get("__package__") or None
    binds = {}          # name -> [(statement, object or MISSING)]
    for node in gast.walk(tree):
        if isinstance(node, gast.Import):
            for a in node.names:
                try:
                    mod = importlib.import_module(a.name)
                    obj = mod if a.asname else importlib.import_module(a.name.split(".")[0])
                except Exception:
                    obj = MISSING
                binds.setdefault(a.asname or a.name.split(".")[0], []).append((node, obj))
        elif isinstance(node, gast.ImportFrom):
            for a in node.names:
                try:
                    mod = importlib.import_module("." * (node.level or 0) + (node.module or ""),
                                                  package)
                    obj = getattr(mod, a.name, MISSING)
                    if obj is MISSING:
                        obj = importlib.import_module(f"{mod.__name__}.{a.name}")
                except Exception:
                    obj = MISSING
                binds.setdefault(a.asname or a.name, []).append((node, obj))
    if not binds:
        return {}
    assigned = {a.id for a in tree.args.args} | {
        n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
        and isinstance(n.ctx, (gast.Store, gast.Del))}
    out, keep = {}, set()
    for name, found in binds.items():
        objs = [o for _, o in found]
        if name == "*" or name in assigned or MISSING in objs or any(o is not objs[0] for o in objs):
            keep |= {id(st) for st, _ in found}
        else:
            out[name] = objs[0]
    for node in gast.walk(tree):
        for field_name in ("body", "orelse", "finalbody"):
            block = getattr(node, field_name, None)
            if isinstance(block, list):
                block[:] = [gast.copy_location(gast.Pass(), st) if isinstance(
                    st, (gast.Import, gast.ImportFrom)) and id(st) not in keep else st
                    for st in block]
    return out


def _free_names(fn, tree):
    """(name -> object, name -> where it was found) for the names `fn` reads but never assigns."""
    local = set(a.id for a in tree.args.args)
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            local.add(node.id)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    free, origin = {}, {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in local:
            name = node.id
            if name in free:
                continue
            if name in cells:
                try:
                    free[name], origin[name] = cells[name].cell_contents, cells[name]
                except ValueError:   # an empty cell: not defined yet
                    pass
            elif name in fn.__globals__:
                free[name], origin[name] = fn.__globals__[name], fn.__globals__
            elif hasattr(builtins, name):
                free[name], origin[name] = getattr(builtins, name), fn.__globals__
    return free, origin
