"""Stage 2 — fence: reject what lies outside jitad's language subset, before any rewriting.

Takes: a `capture.Captured` and the front end's `forms`.
Guarantees: returns only if every node of the function is of a kind the later stages
handle and its parameters are plain ones -- a `*args`/`**kwargs` parameter `capture` made
plain only where a call gives it (a ("varargs"/"varkw", name) form: a helper's, never the
differentiated function's); otherwise raises `UnsupportedError` at the first offending node, naming the
construct, with file, line, column, the source line and a caret. A dict written out passes
only as a call's argument with constant string keys (a structure `structs` reads) or as the
value assigned to a name (with a dict comprehension there: a local dict `structs` builds); a star
expression `*e` passes for `normalize.stars` to write out or refuse, and `**opts` in a call
for `normalize` to expand (a dict structure) or refuse; a walrus left by `walrus` (in a
comprehension or lambda) is refused.
Semantic checks that need resolved names (which callables, which globals) happen in
`normalize`, which raises the same kind of error.
"""
from __future__ import annotations

import gast

from .capture import Captured
from .errors import UnsupportedError
from .gast_build import always_returns as _always_returns

_STMTS = (gast.Return, gast.Assign, gast.AugAssign, gast.If, gast.While, gast.For,
          gast.Break, gast.Continue, gast.Pass, gast.Expr, gast.FunctionDef)
_EXPRS = (gast.BinOp, gast.UnaryOp, gast.BoolOp, gast.Compare, gast.Call, gast.Attribute,
          gast.Subscript, gast.Name, gast.Constant, gast.Tuple, gast.Slice, gast.IfExp,
          gast.List, gast.ListComp, gast.GeneratorExp,   # lists: normalize checks where
          gast.Starred)                                  # `*e`: normalize writes it out
_BINOPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow, gast.MatMult, gast.FloorDiv, gast.Mod,
           gast.BitAnd, gast.BitOr, gast.BitXor)
_AUX = (gast.Load, gast.Store, gast.operator, gast.unaryop, gast.boolop, gast.cmpop,
        gast.keyword, gast.arguments, gast.FunctionDef)

# Friendly names for what users most often write.
_NAMES = {
    "Lambda": "lambda", "ListComp": "list comprehension", "DictComp": "dict comprehension",
    "SetComp": "set comprehension", "GeneratorExp": "generator expression", "List": "list",
    "Dict": "dict", "Set": "set", "Starred": "star expression", "With": "with statement",
    "Try": "try statement", "TryStar": "try statement", "Raise": "raise statement",
    "Assert": "assert statement", "Global": "global statement", "Nonlocal": "nonlocal statement",
    "Delete": "del statement", "Import": "import statement", "ImportFrom": "import statement",
    "ClassDef": "class definition", "FunctionDef": "nested function definition",
    "AsyncFunctionDef": "async function", "Yield": "yield", "YieldFrom": "yield", "Await": "await",
    "JoinedStr": "f-string", "AnnAssign": "annotated assignment", "NamedExpr": "walrus operator :=",
    "Match": "match statement", "AsyncFor": "async for", "AsyncWith": "async with",
    "BitAnd": "operator &", "BitOr": "operator |", "BitXor": "operator ^", "LShift": "operator <<",
    "RShift": "operator >>", "Invert": "operator ~", "Is": "operator is", "IsNot": "operator is not",
    "In": "operator in", "NotIn": "operator not in",
}


def construct_name(node) -> str:
    name = type(node).__name__
    return _NAMES.get(name, name)


def fence(cap: Captured, forms=()) -> None:
    """Refuse what is outside the language (module docstring); `forms`: the front end's (a
    helper's `*args` is given its extra arguments by its call, a ("varargs", name) form)."""
    fdef = cap.tree
    a = fdef.args
    given = [f for _, f in forms or ()]
    for name, kind, stars in ((cap.star, "varargs", "*"), (cap.star_star, "varkw", "**")):
        if name is not None and (kind, name) not in given:
            star = next(p for p in a.args if p.id == name)
            raise UnsupportedError(
                f"{cap.name} takes {stars}{name}: the function jitad differentiates takes a "
                f"fixed list of parameters (a helper it calls may take {stars}{name})",
                cap.loc(star), "parameter list")
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        bad = a.vararg or a.kwarg or (a.kwonlyargs or a.posonlyargs)[0]
        # keyword-only parameters left here (`capture` makes the others plain ones) follow a
        # default with none of their own
        why = ("a keyword-only parameter without a default after a parameter with one"
               if a.kwonlyargs and not (a.vararg or a.kwarg) else
               "*args, **kwargs or positional-only parameters")
        raise UnsupportedError(
            f"jitad functions take plain parameters, with or without defaults, and keyword-only "
            f"ones (not {why})", cap.loc(bad if hasattr(bad, "lineno") else fdef),
            "parameter list")
    for stmt in fdef.body:
        _check(cap, stmt, in_loop=False)
    if not _always_returns(fdef.body):
        last = fdef.body[-1]
        raise UnsupportedError(
            f"{cap.name} must return a value on every path (add a `return` at the end)",
            cap.loc(last), "missing return")


def _fail(cap, node, message=None):
    what = construct_name(node)
    raise UnsupportedError(message or f"unsupported construct: {what}", cap.loc(node), what)


def _check(cap, node, in_loop):
    if isinstance(node, gast.stmt):
        if isinstance(node, (gast.Try, getattr(gast, "TryStar", gast.Try))):
            _fail(cap, node, "a try statement is not supported: which operation raises is not "
                             "known when jitad compiles; test the condition instead (`if x > 0:"
                             " v = np.log(x)` / `np.where`), or let the error reach the caller")
        if not isinstance(node, _STMTS):
            _fail(cap, node)
        if isinstance(node, gast.Expr):
            if isinstance(node.value, gast.Constant) and isinstance(node.value.value, str):
                return  # docstring
            if isinstance(node.value, gast.Call):
                _check(cap, node.value, in_loop)
                return  # hs.append(h): normalize checks hs is a list (and refuses other calls)
            if isinstance(node.value, (gast.Yield, gast.YieldFrom)):
                _fail(cap, node.value, "a generator is supported when it is finite: `yield v` "
                                       "statements, `for` loops (no `while`), no returned "
                                       "value (`generators`); else build a list and return it")
            _fail(cap, node, "expression statements have no effect jitad can use "
                             "(calls for their side effects are not supported)")
        if isinstance(node, gast.FunctionDef):
            # a nested def: normalize lifts it to a helper, whose own front end fences its body
            a = node.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or node.decorator_list:
                _fail(cap, node, "a nested function takes plain parameters (no decorators, "
                                 "*args, **kwargs or keyword-only parameters)")
            return
        if isinstance(node, (gast.Break, gast.Continue)) and not in_loop:
            _fail(cap, node)
        if isinstance(node, (gast.For, gast.While)) and node.orelse:
            _fail(cap, node, f"`{'for' if isinstance(node, gast.For) else 'while'} ... else` is not supported")
        if isinstance(node, gast.Assign):
            if len(node.targets) != 1:
                _fail(cap, node, "chained assignment `a = b = ...` is not supported")
            _check_target(cap, node.targets[0])
        if isinstance(node, gast.AugAssign):
            _check_target(cap, node.target)
        if isinstance(node, gast.For):
            t = node.target
            if not (isinstance(t, gast.Name) or _names(t)):
                _fail(cap, t, "a for loop's target must be a name (or `i, x` with enumerate, "
                              "`a, b` with zip, nested over tuple arguments)")
        if isinstance(node, gast.Return) and node.value is None:
            _fail(cap, node, "a bare `return` returns None; jitad functions return values")
        loop = in_loop or isinstance(node, (gast.For, gast.While))
        for field in ("body", "orelse"):
            for s in getattr(node, field, []) or []:
                _check(cap, s, loop)
        for field in ("value", "test", "iter", "target", "targets"):
            v = getattr(node, field, None)
            if isinstance(node, gast.Return) and field == "value":
                # a returned structure (`return loss, {"acc": acc}`): its leaves are checked;
                # normalize flattens it (`anf`, `Function.out_tree`)
                v = _returned_leaves(v)
            elif isinstance(node, gast.Assign) and field == "value":
                # a local dict `dict_locals` left (`out = {}` filled by keys a loop over a
                # dict argument gives, `q = {k: ... for k, v in p.items()}`): normalize
                # builds it key by key (`structs.local_dict`); its parts are checked
                parts = _local_dict_parts(cap, node)
                v = v if parts is None else parts
            for e in (v if isinstance(v, list) else [v]):
                if isinstance(e, gast.expr):
                    _check(cap, e, loop)
        return
    if isinstance(node, gast.expr):
        if not isinstance(node, _EXPRS):
            _fail(cap, node)
        if isinstance(node, gast.BinOp) and not isinstance(node.op, _BINOPS):
            _fail(cap, node, f"unsupported construct: {construct_name(node.op)}")
        if isinstance(node, gast.Compare):
            for op, right in zip(node.ops, node.comparators):
                none = any(isinstance(e, gast.Constant) and e.value is None
                           for e in (node.left, right))
                if isinstance(op, (gast.In, gast.NotIn)) or (
                        isinstance(op, (gast.Is, gast.IsNot)) and not none):
                    _fail(cap, node, f"unsupported construct: {construct_name(op)}")
        if isinstance(node, gast.Constant) and not isinstance(node.value, (int, float, bool, str,
                                                                             complex)) \
                and node.value is not None and node.value is not Ellipsis:
            _fail(cap, node, f"unsupported constant of type {type(node.value).__name__}")
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            for gen in node.generators:
                if gen.is_async:
                    _fail(cap, node, "async comprehensions are not supported")
                t = gen.target
                if not (isinstance(t, gast.Name) or (isinstance(t, gast.Tuple) and all(
                        isinstance(e, gast.Name) for e in t.elts))):
                    _fail(cap, t, "a comprehension's target must be a name (or `a, b`)")
                for e in [gen.iter, *gen.ifs]:
                    _check(cap, e, in_loop)
        if isinstance(node, gast.Call):
            # (`**opts` is expanded by `normalize` where it knows the keys)
            # a dict written out with constant string keys, as an argument (`layer({"W": W,
            # "b": b}, x)`, or a local dict handed whole, `dict_locals`): a structure, as a
            # dict argument is (`structs`); its values checked as any expression
            for a in [node.func] + list(node.args) + [kw.value for kw in node.keywords]:
                for child in (a.values if _dict_argument(a) else [a]):
                    _check(cap, child, in_loop)
            return
    for child in gast.iter_child_nodes(node):
        if isinstance(child, (gast.expr, gast.stmt)):
            _check(cap, child, in_loop)
        elif not isinstance(child, _AUX) and not isinstance(child, gast.AST):
            pass


def _names(t) -> bool:
    """A tuple of two or more names, nested tuples of names too (`(W1, b1), (W2, b2) = ...`)."""
    return isinstance(t, gast.Tuple) and len(t.elts) >= 2 and all(
        isinstance(e, gast.Name) or _names(e) for e in t.elts)


def _returned_leaves(node) -> list:
    """The values inside a returned display of tuples and dicts with constant string keys."""
    if isinstance(node, gast.Tuple):
        return [x for e in node.elts for x in _returned_leaves(e)]
    if _dict_argument(node):
        return [x for e in node.values for x in _returned_leaves(e)]
    return [node]


def _local_dict_parts(cap, node):
    """The expressions of a dict display with constant keys or a dict comprehension (one
    generator, a name or `k, v` target) assigned to a name, else None."""
    value = node.value
    if not isinstance(node.targets[0], gast.Name):
        return None
    if _dict_argument(value):
        return list(value.values)
    if not isinstance(value, gast.DictComp):
        return None
    if len(value.generators) != 1 or value.generators[0].is_async:
        _fail(cap, value, "a dict comprehension takes one `for` here")
    gen = value.generators[0]
    t = gen.target
    if not (isinstance(t, gast.Name) or (isinstance(t, gast.Tuple) and all(
            isinstance(e, gast.Name) for e in t.elts))):
        _fail(cap, t, "a comprehension's target must be a name (or `a, b`)")
    return [value.key, value.value, gen.iter, *gen.ifs]


def _dict_argument(node) -> bool:
    return isinstance(node, gast.Dict) and all(
        isinstance(k, gast.Constant) and isinstance(k.value, str) for k in node.keys)


def _check_target(cap, t):
    if isinstance(t, gast.Name):
        return
    if isinstance(t, gast.Tuple):
        for e in t.elts:
            if isinstance(e, gast.Starred):
                _fail(cap, e, "a starred target (`a, *rest = value`) is supported with a "
                              "name after the star, one star, a value with enough items, and "
                              "`len`, `list` and `ValueError` the builtins")
            if not isinstance(e, gast.Name) and not _names(e):
                _fail(cap, e, "tuple assignment targets must be plain names (nested tuples of "
                              "them when unpacking tuple arguments)")
        return
    if isinstance(t, gast.Subscript):
        if not isinstance(t.value, gast.Name):
            _fail(cap, t, "only `name[index] = value` writes are supported")
        return
    if isinstance(t, gast.Attribute):
        _fail(cap, t, "cannot assign to an attribute (`obj.attr = value`): the functions jitad "
                      "differentiates change no objects; a function's own attribute "
                      f"(`{cap.name}.n = 0`) is a variable of one call when assigned at the top of "
                      "its body, outside branches and loops, before any other use, in a function "
                      "that calls no function of yours (which might run it again)")
    _fail(cap, t, f"cannot assign to {construct_name(t)}")
