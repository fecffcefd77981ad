"""Python statements that mean a sequence of simpler ones, rewritten as that sequence when a
function is captured (before `fence`), so every later stage sees only the simpler forms.

Takes: a function's `def` tree (gast, the user's line numbers), after `capture` made its
keyword-only parameters plain ones and its lambda statements nested definitions.
Guarantees, each rewrite what Python itself does, at the line of the statement it replaces:
  * first, a named expression `(n := e)` is the assignment `n = e` made where Python
    evaluates it (`walrus`);
  * `nonlocal n` in a nested function called by the function's own statements: `n` passed
    in and returned, assigned back at each call (`nonlocals`);
  * a finite generator function (`yield v` statements, no `while`, no returned value) is
    the function returning the list of what it yields (`generators`);
  * `A[np.ix_(r, c)]` is `A[r[:, None], c[None, :]]` (`ix_gathers`);
  * `x[np.nonzero(m)]` / `x[np.where(m)]` (also through a name assigned once) is the mask
    index `x[m != 0]` (`nonzero_index`);
  * `np.piecewise` with lambdas, `functools.reduce`, `np.roll` over several axes,
    `np.vectorize(f)(x)` and `np.apply_along_axis` of a matrix are the statements they mean
    (`call_forms`);
  * `a in {c0, c1}` / `a not in (...)` of constants (also `set([...])`) is the comparisons
    it means (`membership`);
  * `obj(...)` of a global plain object (`records.is_plain_object`) whose class defines
    `__call__` is `obj.__call__(...)`, the method call Python makes;
  * a chained assignment `a = b = value` evaluates `value` once and assigns it to each target
    from left to right: `a = value` then `b = a` when `a` is a plain name (so `b` is another
    name for `a`'s value, exactly as in Python: a later write into one is a write through an
    alias, which the write rules judge), else `t = value` with a fresh `t`, then each target
    `= t`;
  * a loop with an `else` (`for ... else`, `while ... else`) runs the `else` block when the
    loop ends without a `break` of its own: without such a `break` the block simply follows
    the loop; otherwise a fresh bool flag is set False before the loop and True before each
    of its breaks (not those of loops or functions nested in it), and `if not flag:` guards
    the block;
  * the keyword-only parameters of nested definitions become plain ones after the others,
    as `capture` does for the function itself (calls bind them by name);
  * a tuple assignment with a tuple among its targets (`(u, v), w = (a, b), c`) is the flat
    assignment `u, v, w = a, b, c` where the value is a display of the same nesting (Python
    evaluates the whole value, then assigns the targets from left to right: the same order);
    where an item of the display paired with a tuple target is another expression
    (`(n, m), s = A.shape, t`, `(a, b), c = helper(x), y`) reading no name a target assigns,
    and the targets are distinct names, the flat assignment of the other items comes first,
    then `(n, m) = A.shape` (the same values, the same final bindings); otherwise each top-level item goes into a fresh name
    first (`t0, t1 = value`), then each target is assigned from its fresh name, from left to
    right (`u, v = t0`, `w = t1`); a list target (`[a, b] = ...`) is the tuple target; a value
    other than a display (a structure unpacked, `(W1, b1), (W2, b2) = params`) is left as it is;
  * a tuple assignment with a subscript among its targets (`a[0], a[2] = a[2], a[0]`)
    evaluates the value first, into fresh names (`t0, t1 = a[2], a[0]`), then assigns each
    target from left to right (`a[0] = t0`, `a[2] = t1`), as Python does;
  * a starred target (`a, *rest, z = value`): of a display, the flat assignment of its
    items, `rest` the list display of the middle ones (made only where `rest` is read);
    of any other value, the value into a fresh name `u`, then each target from `u[0]`,
    `u[1]`, ... (or `u[-1]`, ...), from left to right, `rest` (where it is read) as
    `list(u[k:-m])` -- a list of a tuple's items (their number known when the tuple's is),
    of an array's rows; a value with too few items: where `rest` is read or the star is
    between targets, `len(u)` checked first (Python's ValueError), else an IndexError where
    Python raises ValueError; left for `fence` to refuse where `len`, `list` or `ValueError`
    is not the builtin;
  * `for i, x in enumerate(X, start)` (or `start=`) of the builtin `enumerate` counts from
    0 into a fresh name and sets `i = fresh + start` first in the body (a `start` other than
    a number is evaluated once, before the loop, into a fresh name).
    In a comprehension (`sum(i * v for i, v in enumerate(x, 1))`), whose start is a number
    or a name the comprehension does not assign, the index is counted from 0 into a fresh
    name, and each read of it is `(fresh + start)`.
  * `assert c, msg` is `if not c: ASSERT_FAILED(line)`, a check raising AssertionError with
    the statement's line (the message, which Python evaluates only on failure, is not);
  * `raise E(...)` / `raise E` of a builtin exception `runtime.RAISABLE` names is
    `RAISE(kind, line)`, raising E with the line (its arguments, formatting Python does then,
    left out); a function whose body then ends raising gets a `return` no run reaches (a copy
    of one of its own returned expressions: the same type), so every path ends in a return;
  * `divmod(a, b)` of the builtin is `(a // b, a % b)` (`divmod(a, b)[k]` the one part); an operand other than a name or a
    constant is first assigned to a fresh name before the statement (evaluated once, before
    the rest of it) -- inside a `while` test, a comprehension or a lambda, where that would
    evaluate it at another time, only names and constants are rewritten;
  * a `match` statement whose cases are values, `|` of values, None/True/False, the
    wildcard, a capture or `p as name` of those (guards too) is the `if`/`else` chain it
    means: the subject evaluated once, each case tried in order, a capture bound when its
    case is tried, an irrefutable case ending the chain (`_Rewriter.match`); other patterns
    are left for `fence` to refuse;
  * `global X` of names the function never assigns is `pass`: reading X means the global
    either way (one it assigns stays, and `fence` refuses it);
  * a statement `print(...)` of the builtin is `pass` (compiled code cannot format strings),
    as is a call statement of a `logging` function, of a global `logging.Logger`'s reporting
    method (`log.info(...)`) and of `warnings.warn`: `Desugared.prints` holds their lines,
    which `capture` warns about.
  * a `with` statement of `np.errstate(...)` (each condition 'ignore', 'warn', 'print' or
    'log') or `warnings.catch_warnings()`, binding no name, is its body; a call statement
    `warnings.simplefilter(...)` / `filterwarnings(...)` is `pass` (they only choose which
    warnings show: the values are the same);
  * a loop or comprehension over a tuple display (`for c in (0.0, 1.0, -1.0)`,
    `[f(W) for W in (W1, W2)]`, also of the builtin `enumerate` or `reversed` of one) loops
    over the list display of the same items: Python iterates both alike, evaluating the
    items first, in order;
  * a loop or comprehension over a display of constants holding a string (`for k in ("U",
    "V")`: keys of a dict) is its body, or its element, once per item with the item in
    place of the loop variable, where that variable is read nowhere else and the loop has
    no `break`, `continue` or `else` (`_unroll_over_keys`, first); before it, a loop over a
    constant `range` formatting its variable into an f-string (`p[f"W{i}"]`) is its body
    once per value, a dict comprehension of such keys the display it makes, and f-strings of
    constants the strings they make (`fstring_keys`);
  * a NumPy call changing an array in place (`y.sort()`, `y.fill(v)`, `np.copyto(dst, src)`,
    `np.add(a, b, out=c)`) is the whole-array write `y[...] = ...` it makes (`inplace`);
  * lists edited in place (`xs.pop()`, `xs.insert(0, v)`, `xs.reverse()`), sliced, tuples
    grown (`t += (a,)`) and `tuple(e)` are the list forms jitad builds (`list_edits`;
    only where `len`, `range`, `min` and `sorted` are the builtins);
  * a local dict with constant keys is one variable per key (`dict_locals`, next);
  * last, a read of a local that may not be assigned yet is checked, raising Python's
    UnboundLocalError (`unbound`);
  `capture` binds the names ASSERT_FAILED, RAISE and UNBOUND to `runtime.assert_failed`,
  `runtime.raise_error` and `runtime.unbound_local`; eager mode runs the statements as
  written.
Invariants: the tree is rewritten in place; fresh names never collide with a name of the
function (`names.Namer` over every name in it and the reserved ones); `desugar` returns each
fresh name with the user's code it stands for (`Captured.shown`: messages show that); a tree
without these forms is left as it was.
"""
from __future__ import annotations

import ast
import builtins
import copy
import logging
import warnings

import gast
import numpy as np

from . import (call_forms, fstring_keys, function_attrs, generators, inplace, ix_gathers,
               list_edits, membership, nonlocals, nonzero_index)
from .gast_build import located as _located
from .gast_build import param_names, store_counts, with_item

_LOOPS = (gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


# the names `assert` and `raise` are rewritten to call (bound by `capture`)
ASSERT_FAILED = "__jitad_assert_failed__"
RAISE = "__jitad_raise__"


class Desugared(dict):
    """{fresh name: the code it stands for}, and the lines of the `print` calls left out."""
    prints: list


def desugar(tree, keyword_only_last, builtin) -> Desugared:
    """Rewrite `tree` in place; {fresh name: the code it stands for} (`Desugared`).
    `builtin(name, obj)`: whether `name`, read in the function, is that builtin."""
    from .dict_locals import rewrite_dicts
    from .names import Namer, reserved_names, user_names
    from .walrus import named_expressions
    for node in gast.walk(tree):
        if isinstance(node, gast.FunctionDef) and node is not tree:
            keyword_only_last(node)
    taken = user_names(tree) | {n.name for n in gast.walk(tree)
                                if isinstance(n, (gast.FunctionDef, gast.ClassDef))}
    namer = Namer(taken | reserved_names())
    rewriter = _Rewriter(namer, builtin)
    named_expressions(tree, rewriter.fresh)     # first: every later rewrite sees assignments
    function_attrs.rewrite(tree, builtin, rewriter.fresh)     # (declares nonlocals)
    nonlocals.rewrite(tree, rewriter.fresh)
    generators.rewrite(tree, rewriter.fresh)
    ix_gathers.rewrite(tree, builtin.value)
    nonzero_index.rewrite(tree, builtin.value, rewriter.fresh)
    call_forms.rewrite(tree, builtin.value, builtin, rewriter.fresh)
    membership.rewrite(tree, builtin)
    _object_calls(tree, builtin.value)
    fstring_keys.rewrite(tree, builtin)
    _unroll_over_keys(tree)
    dicts = rewrite_dicts(tree, namer, builtin)
    for node in gast.walk(tree):
        if not isinstance(node, (gast.For, gast.comprehension)):
            continue
        if isinstance(node.iter, gast.Tuple):
            node.iter = gast.copy_location(gast.List(node.iter.elts, gast.Load()), node.iter)
        it = node.iter      # enumerate((a, b)), reversed((a, b)): of the list display
        if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.args \
                and isinstance(it.args[0], gast.Tuple) and any(
                    builtin(it.func.id, f) for f in (enumerate, reversed)):
            it.args[0] = gast.copy_location(gast.List(it.args[0].elts, gast.Load()), it.args[0])
    rewriter.assigned = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
                         and isinstance(n.ctx, (gast.Store, gast.Del))}
    rewriter.read = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Load)}
    plain = all(builtin(n, getattr(builtins, n)) for n in ("len", "range", "min", "sorted"))
    if plain:
        list_edits.tuple_locals_as_lists(tree)
        list_edits.repeated_displays(tree, namer)
        list_edits.filled_in_order(tree)
    list_edits.constant_lists(tree)
    list_edits.sorted_keys(tree, builtin)
    rewriter.lists = _list_names(tree) if plain else set()
    if plain:       # t = tuple(xs) of a list: t a list too
        list_edits.tuple_calls(tree, namer, builtin, rewriter.lists)
        rewriter.lists = _list_names(tree)
    list_edits.list_slices(tree, rewriter.lists, namer)
    list_edits.display_stars(tree, rewriter.lists, builtin)
    list_edits.zip_targets(tree, namer, builtin)
    # (and lists written before a loop rebinds them to another list: a recursion's rows)
    rewriter.unshared = list_edits.unshared_lists(
        tree, rewriter.lists | list_edits.written_before_rebound(tree, rewriter.lists)) \
        if plain and builtin("IndexError", IndexError) else set()
    rewriter.block_of(tree, "body")
    body = tree.body
    if body and _calls(body[-1], RAISE):
        # the function ends raising: a return no run reaches, so every path ends in one
        first = next((n for n in own_statements(body) if isinstance(n, gast.Return)
                      and n.value is not None), None)
        if first is not None:
            body.append(gast.copy_location(gast.Return(value=copy.deepcopy(first.value)),
                                           body[-1]))
    from .unbound import unbound_reads
    unbound_reads(tree, namer)     # last: the forms it analyzes are the plain ones
    out = Desugared({**dicts, **rewriter.shown})
    out.prints = rewriter.prints
    return out


class _Rewriter:
    def __init__(self, namer, builtin):
        self.unshared = set()
        self.namer, self.builtin = namer, builtin
        self.shown, self.prints = {}, []

    def reports(self, func):
        """Whether a call statement's function only reports: the builtin `print`, a
        `logging` function or a `logging.Logger`'s method of a global (`log.info(...)`,
        `logging.warning(...)`), `warnings.warn` -- Python evaluates its arguments, which
        compiled code leaves out with it (eager mode runs them)."""
        if isinstance(func, gast.Name):
            return self.builtin(func.id, print) or self.builtin.value(func.id) is warnings.warn
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)):
            return False
        owner = self.builtin.value(func.value.id)
        if owner is warnings:
            return func.attr == "warn"
        return (owner is logging or isinstance(owner, logging.Logger)) and func.attr in (
            "debug", "info", "warning", "error", "critical", "exception", "log")

    def quiet_context(self, s) -> bool:
        """A `with` statement whose context managers only change how NumPy and Python report
        floating-point conditions and warnings -- `np.errstate(...)` with each condition
        'ignore', 'warn', 'print' or 'log' (not 'raise' or 'call': those change what runs),
        `warnings.catch_warnings()` -- and bind no name: its body computes the same values
        without them (compiled code raises no NumPy warnings; eager mode runs it as written)."""
        if not isinstance(s, gast.With) or not s.items:
            return False
        for it in s.items:
            c = it.context_expr
            if it.optional_vars is not None or not isinstance(c, gast.Call) \
                    or not isinstance(c.func, gast.Attribute) \
                    or not isinstance(c.func.value, gast.Name):
                return False
            owner = self.builtin.value(c.func.value.id)
            if owner is np and c.func.attr == "errstate":
                if c.args or not all(
                        k.arg is not None and isinstance(k.value, gast.Constant)
                        and k.value.value in ("ignore", "warn", "print", "log")
                        for k in c.keywords):
                    return False
            elif not (owner is warnings and c.func.attr == "catch_warnings"
                      and not c.args and not c.keywords):
                return False
        return True

    def quiet_call(self, func) -> bool:
        """`warnings.simplefilter(...)`, `warnings.filterwarnings(...)`: a call statement that
        only chooses which warnings show."""
        return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and self.builtin.value(func.value.id) is warnings \
            and func.attr in ("simplefilter", "filterwarnings", "resetwarnings")

    def match(self, s):
        """`match subject:` with cases of values (`case "l2":`, `case 1 | 2:`, `case None:`,
        `case Mode.A:`), the wildcard, a capture (`case other:`) or `p as name`, guards
        (`case 0 if n > 2:`) as the `if`/`else` chain Python's semantics is: the subject
        evaluated once (a fresh name unless it is a name), each case tried in order -- its
        capture bound when it is tried, an `as` name when its pattern matched, then its guard
        -- the first that matches runs its block; an irrefutable case ends the chain. None
        for other patterns (sequences, mappings, classes: `fence` refuses the statement)."""
        if not all(_value_pattern(c.pattern) for c in s.cases) or any(
                c.guard is not None and isinstance(c.pattern, gast.MatchAs)
                and c.pattern.pattern is not None for c in s.cases):
            return None
        for c in s.cases:
            self.block_of(c, "body")
        out = []
        subject = s.subject
        if not isinstance(subject, (gast.Name, gast.Constant)):
            t = self.fresh("match_subject", ast.unparse(gast.gast_to_ast(subject)))
            out.append(_assign(gast.Name(t, gast.Store(), None, None), subject, s))
            subject = gast.Name(t, gast.Load(), None, None)

        def read():
            return _located(copy.deepcopy(subject), s)

        def chain(cases):
            if not cases:
                return []
            c = cases[0]
            p = c.pattern
            pre, post = [], []
            if isinstance(p, gast.MatchAs) and p.name is not None:
                (pre if p.pattern is None else post).append(
                    _assign(gast.Name(p.name, gast.Store(), None, None), read(), c.pattern))
            test = _pattern_test(p, read)
            if test is None and c.guard is None:
                return pre + post + c.body          # irrefutable: the cases after never run
            cond = c.guard if test is None else test if c.guard is None else \
                gast.BoolOp(gast.And(), [test, c.guard])
            return pre + [_located(gast.If(_located(cond, c.pattern), post + c.body or
                                           [gast.Pass()], chain(cases[1:])), c.pattern)]
        return out + chain(list(s.cases))

    def fresh(self, base, shown):
        name = self.namer.fresh(base)
        self.shown[name] = shown
        return name

    def block_of(self, node, field):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            return
        out = []
        for s in block:
            for f in ("body", "orelse", "finalbody"):
                self.block_of(s, f)
            for h in getattr(s, "handlers", None) or ():
                self.block_of(h, "body")
            out.extend(self.statement(s))
        block[:] = out

    def statement(self, s):
        if isinstance(s, gast.Match):
            made = self.match(s)
            if made is not None:
                return made
        if isinstance(s, gast.Assert):
            return [self.assert_check(s)]
        if isinstance(s, gast.Raise):
            return [self.raise_call(s)]
        if isinstance(s, gast.Global) and not set(s.names) & self.assigned:
            return [gast.copy_location(gast.Pass(), s)]
        if self.quiet_context(s):
            return list(s.body)
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and self.quiet_call(s.value.func):
            return [gast.copy_location(gast.Pass(), s)]
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and self.reports(s.value.func):
            self.prints.append(s.lineno)
            return [gast.copy_location(gast.Pass(), s)]
        if isinstance(s, gast.Assign) and len(s.targets) > 1:
            return [x for a in self.chained(s) for x in self.statement(a)]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.List):
            s.targets[0] = _located(gast.Tuple(s.targets[0].elts, gast.Store()), s.targets[0])
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) and any(
                isinstance(e, gast.Starred) for e in s.targets[0].elts):
            made = self.starred_target(s)
            if made is not None:
                return [x for a in made for x in self.statement(a)]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) and any(
                isinstance(e, (gast.Tuple, gast.List)) for e in s.targets[0].elts) \
                and isinstance(s.value, (gast.Tuple, gast.List)):
            return [x for a in self.nested_targets(s) for x in self.statement(a)]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) and any(
                isinstance(e, gast.Subscript) for e in s.targets[0].elts) and all(
                isinstance(e, (gast.Name, gast.Subscript)) for e in s.targets[0].elts):
            return self.subscript_targets(s)
        grown = self.list_growth(s)
        if grown is not None:
            return grown
        edited = list_edits.statement(s, self.lists, self.namer)
        if edited is not None:
            return edited
        edited = list_edits.item_write(s, self.unshared, self.namer)
        if edited is not None:
            for e in edited:        # the IndexError raised as every `raise` is
                self.block_of(e, "body")
            return edited
        written = inplace.rewrite(s, self.lists, self.builtin.value)
        if written is not None:
            return written
        before = self.divmods(s)
        before += self.enumerate_start(s) if isinstance(s, gast.For) else []
        self.comprehension_starts(s)
        if isinstance(s, _LOOPS) and s.orelse:
            return before + self.loop_else(s)
        return before + [s]

    def divmods(self, s):
        """Rewrite the builtin divmod's calls in `s`'s own expressions (module docstring);
        the assignments of the operands to fresh names, to go before `s`."""
        before = []
        rewriter = self

        class Calls(gast.NodeTransformer):
            def __init__(self, hoist):
                self.hoist = hoist

            def visit_FunctionDef(self, node):
                return node

            def visit_Lambda(self, node):
                return self.inner(node)

            def visit_ListComp(self, node):
                return self.inner(node)

            visit_GeneratorExp = visit_SetComp = visit_DictComp = visit_ListComp

            def inner(self, node):
                saved, self.hoist = self.hoist, False
                self.generic_visit(node)
                self.hoist = saved
                return node

            def visit_Call(self, node):
                self.generic_visit(node)
                f = node.func
                if not (isinstance(f, gast.Name) and rewriter.builtin(f.id, divmod)
                        and len(node.args) == 2 and not node.keywords
                        and not any(isinstance(a, gast.Starred) for a in node.args)):
                    return node
                args = list(node.args)
                for k, a in enumerate(args):
                    if isinstance(a, (gast.Name, gast.Constant)):
                        continue
                    if not self.hoist:
                        return node
                    t = rewriter.fresh("divmod_arg", _text(a))
                    before.append(_assign(gast.Name(t, gast.Store(), None, None), a, s))
                    args[k] = gast.Name(t, gast.Load(), None, None)
                parts = [gast.BinOp(copy.deepcopy(args[0]), op(), copy.deepcopy(args[1]))
                         for op in (gast.FloorDiv, gast.Mod)]
                pair = _located(gast.Tuple(parts, gast.Load()), node)
                pair.divmod = True
                return pair

            def visit_Subscript(self, node):
                # divmod(a, b)[k]: the one part read
                self.generic_visit(node)
                k = node.slice
                if getattr(node.value, "divmod", False) and isinstance(k, gast.Constant) \
                        and type(k.value) is int and -2 <= k.value < 2:
                    return node.value.elts[k.value]
                return node

        if isinstance(s, (gast.If, gast.While)):
            s.test = Calls(isinstance(s, gast.If)).visit(s.test)
        elif isinstance(s, gast.For):
            s.iter = Calls(True).visit(s.iter)
        elif not isinstance(s, (*_SCOPES, gast.Try)):
            Calls(True).visit(s)
        return before

    def assert_check(self, s):
        call = _call(ASSERT_FAILED, [gast.Constant(s.lineno, None)], s)
        test = _located(gast.UnaryOp(gast.Not(), s.test), s)
        return gast.copy_location(gast.If(test, [gast.copy_location(gast.Expr(call), s)], []), s)

    def raise_call(self, s):
        """RAISE(kind, line) for a builtin exception jitad's runtime raises, else `s` itself."""
        from .runtime import RAISABLE
        exc = s.exc
        f = exc.func if isinstance(exc, gast.Call) else exc
        if s.cause is not None or not isinstance(f, gast.Name) or f.id not in RAISABLE \
                or not self.builtin(f.id, getattr(builtins, f.id)):
            return s
        call = _call(RAISE, [gast.Constant(RAISABLE.index(f.id), None),
                             gast.Constant(s.lineno, None)], s)
        return gast.copy_location(gast.Expr(call), s)

    def enumerate_start(self, loop):
        """The statements to put before the loop (its rewrite made in place)."""
        it, t = loop.iter, loop.target
        if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
                and self.builtin(it.func.id, enumerate) and isinstance(t, gast.Tuple)
                and len(t.elts) == 2 and isinstance(t.elts[0], gast.Name)):
            return []
        start = it.args[1:] + [k.value for k in it.keywords if k.arg == "start"]
        if len(it.args) != 1 + (not it.keywords) or len(start) != 1 or \
                any(k.arg != "start" for k in it.keywords):
            return []
        it.args, it.keywords = it.args[:1], []
        name, before = t.elts[0], []
        if not isinstance(start[0], gast.Constant):     # evaluated once, as Python does
            first = self.fresh(f"{name.id}_start", _text(start[0]))
            before.append(_assign(gast.Name(first, gast.Store(), None, None), start[0], loop))
            start = [gast.Name(first, gast.Load(), None, None)]
        counter = self.fresh(f"{name.id}_from_0", f"({name.id} counted from 0)")
        t.elts[0] = _located(gast.Name(counter, gast.Store(), None, None), name)
        shifted = _located(gast.BinOp(gast.Name(counter, gast.Load(), None, None), gast.Add(),
                                      start[0]), name)
        loop.body.insert(0, _assign(gast.Name(name.id, gast.Store(), None, None), shifted, name))
        return before

    def list_growth(self, s):
        """`xs += [a, b]` or `xs.extend([a, b])` of a list local (`_list_names`) with items
        that do not read it: `xs.append(a)`, `xs.append(b)`; else None."""
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add):
            name, items = s.target, s.value
        elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "extend" \
                and len(s.value.args) == 1 and not s.value.keywords:
            name, items = s.value.func.value, s.value.args[0]
        else:
            return None
        if not (isinstance(name, gast.Name) and name.id in self.lists
                and isinstance(items, (gast.List, gast.Tuple))
                and not any(isinstance(e, gast.Starred) for e in items.elts)
                and not any(isinstance(n, gast.Name) and n.id == name.id
                            for n in gast.walk(items))):
            return None
        return [gast.copy_location(gast.Expr(_located(gast.Call(
            gast.Attribute(gast.Name(name.id, gast.Load(), None, None), "append", gast.Load()),
            [e], []), e)), s) for e in items.elts]

    def comprehension_starts(self, s):
        """`enumerate(X, start)` in the comprehensions of `s`'s own expressions, rewritten in
        place (module docstring)."""
        rewriter = self

        class Comprehensions(gast.NodeVisitor):
            def visit_FunctionDef(self, node):
                pass

            visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

            def visit_ListComp(self, node):
                self.generic_visit(node)
                for k, gen in enumerate(node.generators):
                    rewriter.comprehension_start(node, k, gen)

            visit_GeneratorExp = visit_SetComp = visit_DictComp = visit_ListComp

        if isinstance(s, (gast.If, gast.While)):
            Comprehensions().visit(s.test)
        elif isinstance(s, gast.For):
            Comprehensions().visit(s.iter)
        elif not isinstance(s, (*_SCOPES, gast.Try)):
            Comprehensions().visit(s)

    def comprehension_start(self, comp, k, gen):
        it, t = gen.iter, gen.target
        if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
                and self.builtin(it.func.id, enumerate) and isinstance(t, gast.Tuple)
                and len(t.elts) == 2 and isinstance(t.elts[0], gast.Name)):
            return
        start = it.args[1:] + [kw.value for kw in it.keywords if kw.arg == "start"]
        if len(it.args) != 1 + (not it.keywords) or len(start) != 1 or \
                any(kw.arg != "start" for kw in it.keywords):
            return
        start, index = start[0], t.elts[0].id
        stored = {n.id for n in gast.walk(comp) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)}
        rebinds = stored - {n.id for n in gast.walk(t) if isinstance(n, gast.Name)}
        if not (isinstance(start, gast.Constant) or isinstance(start, gast.Name)
                and start.id not in stored) or index in rebinds:
            return      # left as it is: refused where jitad reads it
        it.args, it.keywords = it.args[:1], []
        counter = self.fresh(f"{index}_from_0", f"({index} counted from 0)")
        t.elts[0] = _located(gast.Name(counter, gast.Store(), None, None), t.elts[0])
        later = [gen.ifs] + [[g.iter] + g.ifs for g in comp.generators[k + 1:]]
        later.append([comp.key, comp.value] if isinstance(comp, gast.DictComp) else [comp.elt])

        class Reads(gast.NodeTransformer):
            def visit_Name(self, node):
                if node.id != index or not isinstance(node.ctx, gast.Load):
                    return node
                return _located(gast.BinOp(gast.Name(counter, gast.Load(), None, None),
                                           gast.Add(), copy.deepcopy(start)), node)
        for exprs in later:
            exprs[:] = [Reads().visit(e) for e in exprs]
        gen.ifs = later[0]
        if isinstance(comp, gast.DictComp):
            comp.key, comp.value = later[-1]
        else:
            comp.elt = later[-1][0]
        for g, exprs in zip(comp.generators[k + 1:], later[1:-1]):
            g.iter, g.ifs = exprs[0], exprs[1:]

    def chained(self, s):
        first = s.targets[0]
        if isinstance(first, gast.Name):
            source, out = first.id, [_assign(first, s.value, s)]
            rest = s.targets[1:]
        else:
            source = self.fresh("chained", _text(s.value))
            out = [_assign(gast.Name(source, gast.Store(), None, None), s.value, s)]
            rest = s.targets
        for t in rest:
            out.append(_assign(t, gast.Name(source, gast.Load(), None, None), s))
        return out

    def starred_target(self, s):
        """`a, *rest, z = value` as assignments without a star (module docstring), or None
        (left for `fence` to refuse) where the star's length or `rest` is not known."""
        elts = s.targets[0].elts
        k = next(j for j, e in enumerate(elts) if isinstance(e, gast.Starred))
        star = elts[k].value
        pre, post = elts[:k], elts[k + 1:]
        if not isinstance(star, gast.Name) or any(isinstance(e, gast.Starred) for e in post):
            return None
        read = star.id in self.read
        value = s.value
        if isinstance(value, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in value.elts):
            n = len(value.elts) - len(pre) - len(post)
            if n < 0:
                return None     # Python's ValueError: fence refuses the star
            middle = [self.fresh(f"{star.id}_item", _text(v))
                      for v in value.elts[len(pre):len(pre) + n]]
            flat = pre + [gast.Name(m, gast.Store(), None, None) for m in middle] + post
            if isinstance(value, gast.List):    # a list display unpacked: its items alike
                value = gast.copy_location(gast.Tuple(value.elts, gast.Load()), value)
            out = [_assign(_located(gast.Tuple(flat, gast.Store()), s.targets[0]), value, s)]
            if read:        # rest is the list of the middle items, as Python makes it
                out.append(_assign(gast.Name(star.id, gast.Store(), None, None), gast.List(
                    [gast.Name(m, gast.Load(), None, None) for m in middle], gast.Load()), s))
            return out
        checked = read or (pre and post)
        if checked and not (self.builtin("len", len) and self.builtin("list", list)
                            and self.builtin("ValueError", ValueError)):
            return None
        t = self.fresh("unpacked", _text(value))
        out = [_assign(gast.Name(t, gast.Store(), None, None), value, s)]
        if checked:     # too few items: Python's ValueError (a tuple's length is a constant)
            test = _located(gast.Compare(_call("len", [gast.Name(t, gast.Load(), None, None)],
                                               s), [gast.Lt()],
                                         [gast.Constant(len(pre) + len(post), None)]), s)
            fail = gast.copy_location(gast.Raise(_call("ValueError", [gast.Constant(
                "not enough values to unpack", None)], s), None), s)
            out.append(gast.copy_location(gast.If(test, [self.raise_call(fail)], []), s))
        for j, e in enumerate(pre):
            out.append(_assign(e, gast.Subscript(gast.Name(t, gast.Load(), None, None),
                                                 gast.Constant(j, None), gast.Load()), s))
        if read:        # rest: the list of the middle items, as Python makes it
            end = gast.Constant(-len(post), None) if post else None
            middle = _located(gast.Subscript(
                gast.Name(t, gast.Load(), None, None),
                gast.Slice(gast.Constant(len(pre), None), end, None), gast.Load()), s)
            out.append(_assign(gast.Name(star.id, gast.Store(), None, None),
                               _call("list", [middle], s), s))
        for j, e in enumerate(post):
            out.append(_assign(e, gast.Subscript(gast.Name(t, gast.Load(), None, None),
                                                 gast.Constant(j - len(post), None),
                                                 gast.Load()), s))
        return out

    def nested_targets(self, s):
        """`(u, v), w = value` as assignments of flat tuples (module docstring)."""
        targets, values, later = [], [], []
        if _flatten_pairs(s.targets[0], s.value, targets, values, later):
            out = [_assign(_located(gast.Tuple(targets, gast.Store()), s.targets[0]),
                           _located(gast.Tuple(values, gast.Load()), s.value), s)] \
                if targets else []
            return out + [_assign(t, v, s) for t, v in later]
        return self.subscript_targets(s)

    def subscript_targets(self, s):
        targets = s.targets[0].elts
        values = s.value.elts if isinstance(s.value, gast.Tuple) and \
            len(s.value.elts) == len(targets) else [None] * len(targets)
        fresh = [self.fresh(f"{_base(t)}_value", _text(v) if v is not None else
                            f"item {k} of {_text(s.value)}")
                 for k, (t, v) in enumerate(zip(targets, values))]
        unpack = gast.Tuple([gast.Name(n, gast.Store(), None, None) for n in fresh], gast.Store())
        out = [_assign(unpack, s.value, s)]
        for t, n in zip(targets, fresh):
            out.append(_assign(t, gast.Name(n, gast.Load(), None, None), t))
        return out

    def loop_else(self, loop):
        orelse, loop.orelse = loop.orelse, []
        breaks = list(_own_breaks(loop.body))
        if not breaks:
            return [loop, *orelse]
        flag = self.fresh("broke", f"(a break of the loop at line {loop.lineno})")
        for block, k in reversed(breaks):        # later positions first: indices stay valid
            b = block[k]
            block[k:k + 1] = [_assign(gast.Name(flag, gast.Store(), None, None),
                                      gast.Constant(True, None), b), b]
        init = _assign(gast.Name(flag, gast.Store(), None, None), gast.Constant(False, None), loop)
        test = gast.UnaryOp(gast.Not(), gast.Name(flag, gast.Load(), None, None))
        guard = gast.copy_location(gast.If(_located(test, loop), orelse, []), loop)
        return [init, loop, guard]


def _object_calls(tree, value):
    """`obj(...)` as `obj.__call__(...)` (module docstring)."""
    from .records import is_plain_object, method
    for node in gast.walk(tree):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            obj = value(node.func.id)
            if obj is not None and is_plain_object(obj) \
                    and method(type(obj), "__call__") is not None:
                node.func = _located(gast.Attribute(node.func, "__call__", gast.Load()),
                                     node.func)


def _flatten_pairs(top, value, targets, values, later) -> bool:
    """Pair the leaves of the nested tuple target `top` with those of a value display of the
    same nesting, in order, into `targets` and `values`; a tuple target paired with another
    expression reading no name a target assigns goes into `later` as (target, value) when
    the targets are distinct names. False when neither applies (module docstring)."""
    leaves = [n for n in gast.walk(top) if not isinstance(n, (gast.Tuple, gast.List))
              and isinstance(getattr(n, "ctx", None), gast.Store)]
    names = [n.id for n in leaves if isinstance(n, gast.Name)]
    distinct = len(names) == len(leaves) == len(set(names))

    def pair(target, value):
        if not isinstance(target, (gast.Tuple, gast.List)):
            targets.append(target)
            values.append(value)
            return True
        if any(isinstance(e, gast.Starred) for e in target.elts):
            return False
        if isinstance(value, (gast.Tuple, gast.List)):
            return len(value.elts) == len(target.elts) and \
                not any(isinstance(e, gast.Starred) for e in value.elts) and \
                all(pair(t, v) for t, v in zip(target.elts, value.elts))
        if distinct and not any(isinstance(n, gast.Name) and n.id in names
                                for n in gast.walk(value)):
            later.append((_located(gast.Tuple(target.elts, gast.Store()), target), value))
            return True
        return False
    return pair(top, value)


def _call(name, args, like):
    call = gast.Call(gast.Name(name, gast.Load(), None, None), args, [])
    for n in (call, call.func, *args):
        gast.copy_location(n, like)
    return call


def _calls(stmt, name) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
        and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == name


def sub_blocks(st):
    """The statement lists directly inside a statement: its body, else and finally blocks and
    its exception handlers' bodies."""
    for field in ("body", "orelse", "finalbody"):
        sub = getattr(st, field, None)
        if isinstance(sub, list):
            yield sub
    for h in getattr(st, "handlers", None) or ():
        yield h.body


def _keys_display(it) -> bool:
    """A tuple or list display of constants holding a string: `("U", "V")`."""
    return isinstance(it, (gast.Tuple, gast.List)) and it.elts and all(
        isinstance(e, gast.Constant) for e in it.elts) and any(
        isinstance(e.value, str) for e in it.elts)


def _unroll_over_keys(tree):
    """A loop or comprehension over a display of constants holding a string (`for k in ("U",
    "V"): total += np.sum(p[k] ** 2)`, `sum(np.sum(p[k]) for k in ("U", "V"))`) is its body
    (its element) once per item, the loop variable read as that item: Python runs the same
    statements in that order. Only where the variable is read nowhere else and assigned
    nowhere in the body, and a loop has no `break`, `continue` or `else` of its own."""
    inside = {}         # name -> the nodes of the loops over keys that bind it
    for n in gast.walk(tree):
        loop = n if isinstance(n, gast.For) else n.generators[0] if isinstance(
            n, (gast.GeneratorExp, gast.ListComp)) and len(n.generators) == 1 else None
        if loop is not None and isinstance(loop.target, gast.Name) and _keys_display(loop.iter):
            part = n.body if isinstance(n, gast.For) else [n.elt]
            inside.setdefault(loop.target.id, set()).update(
                id(m) for st in part + [loop.target] for m in gast.walk(st))

    def uses(name, skip):
        skip = skip | inside.get(name, set())
        return sum(1 for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == name
                   and id(n) not in skip)

    class Unroll(gast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for field in ("body", "orelse"):
                block = getattr(node, field, None)
                if isinstance(block, list):
                    block[:] = [x for s in block for x in self.statement(s)]
            return node

        def statement(self, s):
            if not (isinstance(s, gast.For) and isinstance(s.target, gast.Name)
                    and _keys_display(s.iter) and not s.orelse):
                return [s]
            name = s.target.id
            inner = {id(n) for st in s.body for n in gast.walk(st)} | {id(s.target)}
            if uses(name, inner) or any(
                    isinstance(n, (gast.Break, gast.Continue)) or (
                        isinstance(n, gast.Name) and n.id == name
                        and not isinstance(n.ctx, gast.Load))
                    for st in s.body for n in gast.walk(st)):
                return [s]
            return [with_item(st, name, item) for item in s.iter.elts for st in s.body]

        def visit_GeneratorExp(self, node):
            self.generic_visit(node)
            if len(node.generators) != 1:
                return node
            gen = node.generators[0]
            if gen.ifs or not isinstance(gen.target, gast.Name) or not _keys_display(gen.iter):
                return node
            name = gen.target.id
            if uses(name, {id(n) for n in gast.walk(node.elt)} | {id(gen.target)}):
                return node
            items = [with_item(node.elt, name, item) for item in gen.iter.elts]
            return gast.copy_location(gast.List(items, gast.Load()), node)

        visit_ListComp = visit_GeneratorExp

    Unroll().visit(tree)


def own_statements(block):
    """The statements of a block and of the blocks in it (a try's handlers too), not of the
    functions or classes defined in it."""
    for st in block:
        yield st
        if not isinstance(st, (gast.FunctionDef, gast.ClassDef)):
            for sub in sub_blocks(st):
                yield from own_statements(sub)


def _text(node) -> str:
    """The source text of an expression (as Python writes it back)."""
    return ast.unparse(gast.gast_to_ast(node))


def _base(target):
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else "item"


def _own_breaks(block):
    """(block, index) of each `break` of the loop whose body is `block`: not inside a nested
    loop or function."""
    for k, s in enumerate(block):
        if isinstance(s, gast.Break):
            yield block, k
        elif isinstance(s, _LOOPS):
            yield from _own_breaks(s.orelse)     # a nested loop's `else` breaks this loop
        elif not isinstance(s, _SCOPES):
            for sub in sub_blocks(s):
                yield from _own_breaks(sub)


def _value_pattern(p) -> bool:
    """A `match` pattern the `if` chain expresses: values, `|` of values, `None`/`True`/`False`,
    the wildcard, a capture, `p as name` of those (no capture inside an alternative)."""
    if isinstance(p, (gast.MatchValue, gast.MatchSingleton)):
        return True
    if isinstance(p, gast.MatchOr):
        return all(isinstance(q, (gast.MatchValue, gast.MatchSingleton)) for q in p.patterns)
    if isinstance(p, gast.MatchAs):
        return p.pattern is None or _value_pattern(p.pattern) and not isinstance(
            p.pattern, gast.MatchAs)
    return False


def _pattern_test(p, read):
    """The test of a `_value_pattern` on the subject (`read()` gives a fresh copy of it):
    `==` of a value, `is` of a singleton, `or` of alternatives; None when it always matches."""
    if isinstance(p, gast.MatchValue):
        return gast.Compare(read(), [gast.Eq()], [p.value])
    if isinstance(p, gast.MatchSingleton):
        return gast.Compare(read(), [gast.Is()], [gast.Constant(p.value, None)])
    if isinstance(p, gast.MatchOr):
        return gast.BoolOp(gast.Or(), [_pattern_test(q, read) for q in p.patterns])
    return None if p.pattern is None else _pattern_test(p.pattern, read)


def _list_names(tree) -> set:
    """Names only ever assigned a list display or comprehension (`xs = []`, `xs = [a, b]`),
    or grown with `+=` a list display: lists, whatever the function's other scopes do."""
    stores = store_counts(tree)
    listy = {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) \
                and isinstance(n.value, (gast.List, gast.ListComp)):
            listy[n.targets[0].id] = listy.get(n.targets[0].id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) \
                and isinstance(n.op, gast.Add) and isinstance(n.value, (gast.List, gast.Tuple)):
            listy[n.target.id] = listy.get(n.target.id, 0) + 1
    params = param_names(tree)
    # every store of the name one of those (not a loop target, a tuple's item, a parameter)
    return {name for name, k in listy.items() if stores.get(name) == k and name not in params}


def _assign(target, value, like):
    for n in (target, value):
        if getattr(n, "lineno", None) is None:
            _located(n, like)
    return gast.copy_location(gast.Assign([target], value, None), like)
