"""Stage 3 — normalize: the fenced `gast` tree becomes structured A-normal-form IR.

Takes: a fenced `capture.Captured`.
Guarantees (the invariants of the returned `ir.Function`):
  * every operand is an atom; every `Bind` applies one `Primitive` (a table rule or a
    structural one); every name a call refers to has been resolved to a rule or a user function;
  * sugar is gone: `elif`, `+=`, tuple targets, `a if c else b`, `and`/`or` (short-circuit kept,
    as `If`), chained comparisons, `for row in X` (a range loop over `X.shape[0]`);
  * `break`, `continue` and early `return` are gone: they became boolean flags that guard the
    rest of their block and join loop tests, so control flow is purely structured;
  * the body ends with exactly one `Return`; `If`/`While` tests are bool-typed names computed
    right before them and never assigned inside them;
  * temporaries are named after the user's variable they help compute (`x_mul`, `y_sin`) and
    never collide with a user name;
  * no variable has a name generated code reads as a global (`np`, `math`, `rt`, `range`,
    `bool`, the builtins and primitives the rule templates call, `_`): a user local or
    parameter with such a name is renamed everywhere to a fresh one (`rt` -> `rt_1`), and
    `Function.renamed` maps each new name back to the user's (for messages);
  * a call goes to a user helper only if the callee is a plain Python function of the user's
    code (`is_user_helper`): a library function (NumPy, SciPy, the standard library, any
    installed package) is never transformed; without a rule it is refused at the user's call,
    named as the user spelled it ("np.eye has no derivative rule in jitad ...").
"""
from __future__ import annotations

import copy
import functools
import numbers
import os
import site
import sysconfig
import types

import gast
import numpy as np

from . import ir
from .capture import _MISSING, Captured
from .errors import UnsupportedError
from .ir import Bind, Const, For, If, Return, SetItem, Slice, TupleA, Var, While
from .primitives import (CALL, CONCAT, COPY, GETITEM, METHODS, SHAPE, TEMPLATE_GLOBALS, get,
                         lookup_callable, substitute)

_BINOP = {gast.Add: get("add"), gast.Sub: get("sub"), gast.Mult: get("mul"),
          gast.Div: get("truediv"), gast.Pow: get("pow"), gast.MatMult: get("matmul"),
          gast.FloorDiv: get("floordiv"), gast.Mod: get("mod")}
_CMP = {gast.Lt: get("lt"), gast.LtE: get("le"), gast.Gt: get("gt"), gast.GtE: get("ge"),
        gast.Eq: get("eq"), gast.NotEq: get("ne")}
NEG, NOT, TRUTH, LEN, DIM, SHAPE_OF, TRANSPOSE, OR, IN_RANGE, ADD = (
    get(n) for n in ("neg", "not", "truth", "len", "dim", "shape_of", "transpose", "or",
                     "in_range", "add"))
_SHORT = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "pow": "pow",
          "matmul": "matmul", "getitem": "at", "neg": "neg"}
_DTYPES = {np.float64: "np.float64", np.float32: "np.float32", np.int64: "np.int64",
           float: "np.float64", int: "np.int64", np.bool_: "np.bool_", bool: "np.bool_"}


class Namer:
    """Fresh names that never collide with the user's or with each other (deterministic)."""

    def __init__(self, taken):
        self.taken = set(taken)

    def fresh(self, base: str) -> str:
        base = base.strip("_") or "t"
        name, k = base, 1
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


def user_names(tree) -> set:
    return {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)} | {
        a.id for a in tree.args.args}


# Names generated code reads as globals or binds itself: the modules its header imports, the
# builtins `reverse`, `update` and the rule templates call, and `_` (the counter of a replayed
# `while`). A user local with one of these names is renamed (see `reserved_names`).
GENERATED_GLOBALS = frozenset({"np", "math", "rt", "_", "range", "bool", "int", "float", "len",
                               "min", "max", "abs"})


def reserved_names() -> set:
    """Every name a user local must not have in generated code: `GENERATED_GLOBALS`, the
    globals the derivative rules' templates mention (`primitives.TEMPLATE_GLOBALS`, which grows
    with `defvjp`) and the names user primitives are called by (`prim_<name>`)."""
    from . import extend
    return set(GENERATED_GLOBALS) | TEMPLATE_GLOBALS | set(extend.USER_FUNCTIONS)


def rename_locals(cap: Captured):
    """(tree, params, renamed): the function's tree with every local (parameter or assigned
    name) that collides with `reserved_names()` renamed to a fresh name derived from it
    (`rt` -> `rt_1`), consistently; `renamed` maps each new name back to the user's. The
    captured tree itself is never modified (a renamed copy is returned)."""
    names = user_names(cap.tree)
    local = names - set(cap.free) | set(cap.params)
    reserved = reserved_names()
    clash = sorted(local & reserved)
    if not clash:
        return cap.tree, list(cap.params), {}
    namer = Namer(names | set(cap.free) | reserved)
    mapping = {n: namer.fresh(n) for n in clash}
    tree = copy.deepcopy(cap.tree)
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in mapping:
            node.id = mapping[node.id]
    return tree, [mapping.get(p, p) for p in cap.params], {v: k for k, v in mapping.items()}


class Normalizer:
    def __init__(self, cap: Captured):
        self.cap = cap
        self.tree, self.params, self.renamed = rename_locals(cap)
        self.namer = Namer(user_names(self.tree) | set(cap.free) | reserved_names())
        self.locals = user_names(self.tree) - set(cap.free) | set(self.params)
        self.callees = {}
        self.temps = set()
        self.out = None

    # ---------------------------------------------------------------- helpers
    def err(self, node, message, construct=None):
        raise UnsupportedError(message, self.cap.loc(node), construct)

    def emit(self, stmt):
        self.out.append(stmt)

    def bind(self, node, target, op, args, **kw):
        self.emit(Bind((target,), op, tuple(args), self.cap.loc(node), **kw))
        return Var(target)

    def temp(self, hint, op):
        op = getattr(op, "name", op)
        name = self.namer.fresh(f"{hint}_{_SHORT.get(op, op.split('.')[-1])}")
        self.temps.add(name)
        return name

    def block(self, stmts):
        saved, self.out = self.out, []
        for s in stmts:
            self.stmt(s)
        res, self.out = self.out, saved
        return res

    # ---------------------------------------------------------------- statements
    def function(self) -> ir.Function:
        body = self.block(self.tree.body)
        body = Structurer(self).lower_function(body)
        body = fold_constant_decisions(body)
        body = eliminate_common_temps(body, self.temps)
        return ir.Function(self.cap.name, list(self.params), body, self.cap.loc(self.cap.tree),
                           self.cap, self.callees, dict(self.renamed))

    def stmt(self, node):
        loc = self.cap.loc(node)
        if isinstance(node, gast.Assign):
            self.assign(node.targets[0], node.value, node)
        elif isinstance(node, gast.AugAssign):
            t = node.target
            op = _BINOP[type(node.op)]
            if isinstance(t, gast.Name):
                rhs = gast.BinOp(gast.Name(t.id, gast.Load(), None, None), node.op, node.value)
                gast.copy_location(rhs, node)
                self.assign(t, rhs, node)
                last = self.out[-1]
                if isinstance(last, Bind) and last.targets == (t.id,):
                    last.inplace = True
            else:
                arr, index = self.subscript_parts(t)
                old = self.bind(t, self.temp(arr, "getitem"), GETITEM, (Var(arr),) + index)
                val = self.expr(node.value, arr)
                new = self.bind(node, self.temp(arr, op), op, (old, val))
                self.emit(SetItem(arr, index, new, loc))
        elif isinstance(node, gast.If):
            test = self.test(node.test, node.body + node.orelse)
            if isinstance(test, Const):
                self.out.extend(self.block(node.body if test.value else node.orelse))
            else:
                self.emit(If(test, self.block(node.body), self.block(node.orelse), loc))
        elif isinstance(node, gast.While):
            saved, self.out = self.out, []
            test = self.test(node.test, [], fresh=True)
            if isinstance(test, Const) and test.value:
                test = self.bind(node, self.namer.fresh("cond"), COPY, (test,)).name
            cond, self.out = self.out, saved
            if not isinstance(test, Const):       # `while False:` never runs
                self.emit(While(cond, test, self.block(node.body), loc))
        elif isinstance(node, gast.For):
            self.for_loop(node)
        elif isinstance(node, gast.Return):
            vals = node.value.elts if isinstance(node.value, gast.Tuple) else [node.value]
            atoms = tuple(self.expr(v, "out") for v in vals)
            self.emit(ir.EarlyReturn(atoms, loc))
        elif isinstance(node, gast.Break):
            self.emit(ir.Break(loc))
        elif isinstance(node, gast.Continue):
            self.emit(ir.Continue(loc))
        elif isinstance(node, (gast.Pass, gast.Expr)):
            pass
        else:  # the fence lets nothing else through
            self.err(node, f"unsupported statement {type(node).__name__}")

    def assign(self, target, value, node):
        if isinstance(target, gast.Name):
            self.expr_into(value, target.id)
        elif isinstance(target, gast.Subscript):
            arr, index = self.subscript_parts(target)
            self.emit(SetItem(arr, index, self.expr(value, arr), self.cap.loc(node)))
        elif isinstance(target, gast.Tuple):
            names = [e.id for e in target.elts]
            if isinstance(value, gast.Tuple):
                if len(value.elts) != len(names):
                    self.err(node, "tuple assignment with mismatched lengths")
                atoms = []
                for name, v in zip(names, value.elts):
                    a = self.expr(v, name)
                    if isinstance(a, Var) and a.name in names:
                        a = self.bind(v, self.namer.fresh(f"{a.name}_old"), COPY, (a,))
                    atoms.append(a)
                for name, a in zip(names, atoms):
                    self.bind(node, name, COPY, (a,))
            elif isinstance(value, gast.Call) and self.user_callee(value.func) is not None:
                fn = self.user_callee(value.func)
                args = tuple(self.expr(a, names[0]) for a in value.args)
                self.emit(Bind(tuple(names), CALL, args, self.cap.loc(node), callee=fn))
            elif isinstance(value, gast.Attribute) and value.attr == "shape":
                arr = self.expr(value.value, names[0])
                self.emit(Bind(tuple(names), SHAPE, (arr,), self.cap.loc(node)))
            else:
                self.err(value, "a tuple can only be unpacked from a tuple, a helper's result or "
                                "`x.shape`", "tuple unpacking")

    def test(self, node, body, fresh=False):
        """A bool-typed name for an if/while test, computed right before the statement, or a
        `Const` when the test is a constant (`if 0 < 1 < 2:`): no branch is generated for a
        decision Numba would fold away under code that still reads its values."""
        if _is_boolean(node):
            atom = self.expr(node, "cond")
        else:
            atom = self.bind(node, self.namer.fresh("cond"), TRUTH, (self.expr(node, "cond"),))
        if isinstance(atom, Const):      # decided now: the caller keeps only the branch taken
            return Const(bool(atom.value))
        assigned = _stored_names(body)
        if fresh or atom.name in assigned or atom.name in self.params:
            if not atom.name.startswith("cond"):
                atom = self.bind(node, self.namer.fresh("cond"), COPY, (atom,))
        return atom.name

    def for_loop(self, node):
        loc = self.cap.loc(node)
        it = node.iter
        if isinstance(node.target, gast.Tuple):
            # for i, x in enumerate(X): the row loop with its index exposed
            if not (isinstance(it, gast.Call) and self.resolve_func(it.func) is enumerate
                    and len(it.args) == 1 and not it.keywords):
                self.err(node.target, "`for a, b in ...` is supported only as `for i, x in "
                                      "enumerate(array)`", "for loop target")
            idx, var = (e.id for e in node.target.elts)
            return self.row_loop(node, it.args[0], var, idx, loc)
        var = node.target.id
        body_assigned = _stored_names(node.body)
        if isinstance(it, gast.Call) and self.resolve_func(it.func) is range:
            if it.keywords or not 1 <= len(it.args) <= 3:
                self.err(it, "range() takes 1 to 3 positional arguments")
            atoms = [self.expr(a, var) for a in it.args]
            # range bounds are read once, before the loop: protect them from the body
            atoms = [self.bind(it, self.namer.fresh(f"{var}_{k}"), COPY, (a,))
                     if isinstance(a, Var) and a.name in body_assigned | {var} else a
                     for a, k in zip(atoms, ("start", "stop", "step")[-len(atoms):] if len(atoms) > 1 else ("stop",))]
            if len(atoms) == 1:
                start, stop, step = Const(0), atoms[0], Const(1)
            elif len(atoms) == 2:
                (start, stop), step = atoms, Const(1)
            else:
                start, stop, step = atoms
                if isinstance(step, Const) and step.value == 0:
                    self.err(it, "range() step must not be zero")
            self.emit(For(var, start, stop, step, self.block(node.body), loc))
            return
        # for row in X:  ->  for i in range(X.shape[0]): row = X[i]
        self.row_loop(node, it, var, None, loc)

    def row_loop(self, node, it, var, idx, loc):
        body_assigned = _stored_names(node.body)
        arr = self.expr(it, var)
        if isinstance(arr, Const):
            self.err(it, "a for loop iterates over range(...) or an array's rows", "for loop")
        if arr.name in body_assigned | {var}:
            arr = self.bind(it, self.namer.fresh(f"{var}_rows"), COPY, (arr,))
        n = self.bind(it, self.namer.fresh(f"{var}_n"), LEN, (arr,))
        if idx is None:
            idx = self.namer.fresh(f"{var}_i")
        elif idx in body_assigned:
            self.err(node.target, f"the enumerate index '{idx}' is assigned in the loop body",
                     "for loop target")
        saved, self.out = self.out, []
        self.bind(node.target, var, GETITEM, (arr, Var(idx)))
        head, self.out = self.out, saved
        self.emit(For(idx, Const(0), n, Const(1), head + self.block(node.body), loc))

    # ---------------------------------------------------------------- expressions
    def expr_into(self, node, target):
        """Evaluate `node`, binding its last primitive directly to `target`."""
        a = self.expr(node, target, into=target)
        if not (isinstance(a, Var) and a.name == target):
            self.bind(node, target, COPY, (a,))

    def expr(self, node, hint, into=None):
        """Lower an expression to an atom; `into` names the variable the result goes to."""
        name = into or None

        def dest(op):
            return name if name else self.temp(hint, op)  # op: a primitive or a name hint

        if isinstance(node, gast.Constant):
            if node.value is None:
                self.err(node, "None is not a value jitad can compute with")
            return Const(node.value)
        if isinstance(node, gast.Name):
            return self.name(node)
        if isinstance(node, gast.BinOp):
            op = _BINOP[type(node.op)]
            a = self.expr(node.left, hint)
            b = self.expr(node.right, hint)
            if isinstance(a, Const) and isinstance(b, Const):
                return Const(_fold(op, a.value, b.value, self, node))
            return self.bind(node, dest(op), op, (a, b))
        if isinstance(node, gast.UnaryOp):
            a = self.expr(node.operand, hint)
            if isinstance(node.op, gast.UAdd):
                return a
            op = NEG if isinstance(node.op, gast.USub) else NOT
            if isinstance(a, Const):
                return Const(-a.value if op is NEG else not a.value)
            return self.bind(node, dest(op), op, (a,))
        if isinstance(node, gast.Compare):
            if len(node.ops) == 1:
                a = self.expr(node.left, hint)
                b = self.expr(node.comparators[0], hint)
                op = _CMP[type(node.ops[0])]
                if isinstance(a, Const) and isinstance(b, Const):
                    return Const(bool(op.impl(a.value, b.value)))
                return self.bind(node, dest(op), op, (a, b))
            # a < b < c  ->  (a < b) and (b < c): as in Python, each operand is evaluated
            # once, and only if the comparisons before it held (b goes to a temporary)
            parts, left = [], node.left
            for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
                right_eval = right
                if k < len(node.ops) - 1 and not _simple(right):
                    t = self.namer.fresh(f"{hint}_cmp")
                    self.locals.add(t)
                    right_eval = gast.copy_location(
                        gast.NamedExpr(gast.Name(t, gast.Store(), None, None), right), right)
                    right = gast.copy_location(gast.Name(t, gast.Load(), None, None), right)
                parts.append(gast.copy_location(gast.Compare(left, [op], [right_eval]), node))
                left = right
            return self.expr(gast.copy_location(gast.BoolOp(gast.And(), parts), node), hint, into)
        if isinstance(node, gast.NamedExpr):  # only from the chained comparisons above
            self.expr_into(node.value, node.target.id)
            return Var(node.target.id)
        if isinstance(node, gast.BoolOp):
            return self.boolop(node, hint, into)
        if isinstance(node, gast.IfExp):
            res = name or self.namer.fresh(f"{hint}_sel")
            test = self.test(node.test, [])
            if isinstance(test, Const):
                self.out.extend(self.block_expr(node.body if test.value else node.orelse, res))
            else:
                self.emit(If(test, self.block_expr(node.body, res),
                             self.block_expr(node.orelse, res), self.cap.loc(node)))
            return Var(res)
        if isinstance(node, gast.Call):
            return self.call(node, hint, dest)
        if isinstance(node, gast.Attribute):
            return self.attribute(node, hint, dest)
        if isinstance(node, gast.Subscript):
            if isinstance(node.value, gast.Attribute) and node.value.attr == "shape":
                arr = self.expr(node.value.value, hint)
                idx = node.slice
                if not (isinstance(idx, gast.Constant) and isinstance(idx.value, int)):
                    self.err(node, "x.shape[...] needs a constant index")
                return self.bind(node, dest("dim"), DIM, (arr, Const(idx.value)))
            arr = self.expr(node.value, hint)
            if isinstance(arr, Const):
                self.err(node, "cannot index a constant")
            index = self.index(node.slice, hint)
            return self.bind(node, dest("getitem") if name else self.temp(arr.name, "getitem"),
                             GETITEM, (arr,) + index)
        if isinstance(node, gast.Tuple):
            self.err(node, "a tuple is only allowed as a shape, in `return a, b` or in "
                           "`a, b = ...`", "tuple value")
        self.err(node, f"unsupported expression {type(node).__name__}")

    def block_expr(self, node, target):
        saved, self.out = self.out, []
        self.expr_into(node, target)
        res, self.out = self.out, saved
        return res

    def boolop(self, node, hint, into):
        res = into or self.namer.fresh(f"{hint}_{'and' if isinstance(node.op, gast.And) else 'or'}")
        first = self.expr(node.values[0], hint)
        if len(node.values) == 1:
            return first
        rest = node.values[1:]
        rest_node = rest[0] if len(rest) == 1 else gast.copy_location(gast.BoolOp(node.op, rest), node)
        if isinstance(first, Const):      # decided now, as Python would: the first or the rest
            if bool(first.value) == isinstance(node.op, gast.Or):
                return first
            return self.expr(rest_node, hint, into)
        test = first.name
        if not _is_boolean(node.values[0]):
            test = self.bind(node, self.namer.fresh("cond"), TRUTH, (first,)).name
        elif first.name == res:
            test = self.bind(node, self.namer.fresh("cond"), COPY, (first,)).name
        evaluate_rest = self.block_expr(rest_node, res)
        keep = [Bind((res,), COPY, (first,), self.cap.loc(node))]
        if isinstance(node.op, gast.And):
            self.emit(If(test, evaluate_rest, keep, self.cap.loc(node)))
        else:
            self.emit(If(test, keep, evaluate_rest, self.cap.loc(node)))
        return Var(res)

    def name(self, node):
        if node.id in self.locals:
            return Var(node.id)
        obj = self.cap.resolve(node.id)
        if obj is _MISSING:
            self.err(node, f"name '{node.id}' is not defined", "undefined name")
        if isinstance(obj, (bool, np.bool_)):
            return Const(bool(obj))
        if isinstance(obj, numbers.Integral):
            return Const(int(obj))
        if isinstance(obj, numbers.Real):
            return Const(float(obj))
        if isinstance(obj, np.ndarray):
            self.err(node, f"the global array '{node.id}' is captured by the function; pass arrays "
                           "as arguments (Numba would freeze a global array into the compiled code)",
                     "global array")
        self.err(node, f"'{node.id}' ({type(obj).__name__}) cannot be used as a value here",
                 "non-numeric global")

    def resolve_func(self, node):
        """The object a call's function expression means, or _MISSING."""
        if isinstance(node, gast.Name):
            if node.id in self.locals:
                return _MISSING
            return self.cap.resolve(node.id)
        if isinstance(node, gast.Attribute):
            base = self.resolve_func(node.value)
            if isinstance(base, types.ModuleType):
                return getattr(base, node.attr, _MISSING)
        return _MISSING

    def user_callee(self, func_node):
        """The user helper a call's function expression means, or None (see `is_user_helper`)."""
        obj = self.resolve_func(func_node)
        if is_user_helper(obj):
            return getattr(obj, "__jitad_function__", obj)
        return None

    def call(self, node, hint, dest):
        kw = {k.arg: k.value for k in node.keywords}
        func = node.func
        # methods on local arrays: x.reshape(...), x.sum(axis=0), ...
        if isinstance(func, gast.Attribute) and self.resolve_func(func) is _MISSING:
            if func.attr not in METHODS:
                self.err(node, f"method .{func.attr}() is not supported", f".{func.attr}()")
            recv = self.expr(func.value, hint)
            return self.prim_call(node, get(METHODS[func.attr]), [recv], node.args, kw, hint, dest)
        obj = self.resolve_func(func)
        callee = self.user_callee(func)
        if callee is not None:
            if kw:
                self.err(node, "keyword arguments to user functions are not supported")
            self.callees[id(callee)] = callee
            args = tuple(self.expr(a, hint) for a in node.args)
            target = dest(callee.__name__)
            self.emit(Bind((target,), CALL, args, self.cap.loc(node), callee=callee))
            return Var(target)
        if obj is np.concatenate:
            return self.concat(node, kw, hint, dest)
        prim = lookup_callable(obj) if obj is not _MISSING else None
        if prim is None:
            what = _describe(func)
            if obj is _MISSING and isinstance(func, gast.Name) and func.id not in self.locals:
                self.err(func, f"name '{func.id}' is not defined", "undefined name")
            spelled = what[:-2] if what.endswith("()") else what
            self.err(node, f"{spelled} has no derivative rule in jitad (see jitad.defvjp to "
                           "add one)", f"call to {what}")
        return self.prim_call(node, prim, [], node.args, kw, hint, dest)

    def prim_call(self, node, prim, pre, args, kw, hint, dest):
        statics = {}
        if prim.one_arg_form is not None and len(args) == 1:
            prim = prim.one_arg_form
        axis_node = kw.pop("axis", None)
        if axis_node is None and prim.axis_form is not None and len(pre) + len(args) == 2:
            axis_node, args = args[-1], args[:-1]
        if axis_node is not None:
            neg = isinstance(axis_node, gast.UnaryOp) and isinstance(axis_node.op, gast.USub)
            c = axis_node.operand if neg else axis_node
            if not (isinstance(c, gast.Constant) and (c.value is None or isinstance(c.value, int))):
                self.err(node, "axis= must be a constant integer")
            if c.value is not None:
                if prim.axis_form is None:
                    self.err(node, f"axis= is not supported for {prim}")
                prim = prim.axis_form
                statics["axis"] = -c.value if neg else c.value
        if prim.from_shape and len(args) == 2 and "dtype" not in kw:
            kw["dtype"], args = args[1], args[:1]
        if "dtype" in kw:
            d = self.resolve_func(kw.pop("dtype"))
            if d not in _DTYPES:
                self.err(node, "dtype= must be np.float64, np.float32, np.int64 or bool")
            statics["dtype"] = _DTYPES[d]
        if kw:
            self.err(node, f"keyword argument {next(iter(kw))}= is not supported here")
        if prim.from_shape:
            statics.setdefault("dtype", "np.float64")
            shape = args[0] if len(args) == 1 else None
            if shape is None:
                self.err(node, f"{prim}() takes the shape (and dtype=)")
            return self.bind(node, dest(prim), prim, (self.shape_atom(shape, hint),), statics=statics)
        if prim.shape_arg:  # x.reshape(3, 4), x.reshape((3, 4)), np.reshape(x, shape)
            arr, shape_args = (pre[0], args) if pre else (self.expr(args[0], hint), args[1:])
            if not shape_args:
                self.err(node, "reshape needs the new shape")
            if len(shape_args) == 1:
                shape = self.shape_atom(shape_args[0], hint)
            else:
                shape = TupleA(tuple(self.expr(a, hint) for a in shape_args))
            return self.bind(node, dest(prim), prim, (arr, shape))
        if prim is TRANSPOSE and (len(args) + len(pre)) > 1:
            self.err(node, "transpose with axes is not supported (only x.T / np.transpose(x))")
        operands = pre + [self.expr(a, hint) for a in args]
        if len(operands) != len(prim.params):
            self.err(node, f"{prim} takes {len(prim.params)} argument(s) here, got {len(operands)}")
        if all(isinstance(a, Const) for a in operands) and prim.foldable:
            try:
                return Const(eval(compile(_ast_call(prim, operands), "<fold>", "eval"),
                                  {"np": np, "math": __import__("math")}))
            except Exception:
                pass
        return self.bind(node, dest(prim), prim, tuple(operands), statics=statics)

    def concat(self, node, kw, hint, dest):
        if len(node.args) != 1 or not isinstance(node.args[0], gast.Tuple):
            self.err(node, "np.concatenate takes a tuple of arrays: np.concatenate((a, b), axis=0)")
        axis = kw.pop("axis", None)
        if kw or (axis is not None and not (isinstance(axis, gast.Constant) and isinstance(axis.value, int))):
            self.err(node, "np.concatenate takes only a constant axis=")
        parts = tuple(self.expr(e, hint) for e in node.args[0].elts)
        return self.bind(node, dest("concat"), CONCAT, parts,
                         statics={"axis": 0 if axis is None else axis.value})

    def shape_atom(self, node, hint):
        if isinstance(node, gast.Tuple):
            return TupleA(tuple(self.expr(e, hint) for e in node.elts))
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            arr = self.expr(node.value, hint)
            return self.bind(node, self.temp(hint, "shape"), SHAPE_OF, (arr,))
        return self.expr(node, hint)

    def attribute(self, node, hint, dest):
        obj = self.resolve_func(node)
        if obj is not _MISSING:
            if isinstance(obj, numbers.Real):
                return Const(float(obj) if not isinstance(obj, numbers.Integral) else int(obj))
            self.err(node, f"{_describe(node)} cannot be used as a value here")
        recv = self.expr(node.value, hint)
        if node.attr == "T":
            return self.bind(node, dest("transpose"), TRANSPOSE, (recv,))
        if node.attr in ("size", "ndim"):
            return self.bind(node, dest(node.attr), get(node.attr), (recv,))
        if node.attr == "shape":
            self.err(node, "use x.shape[k] or `n, m = x.shape`", "x.shape as a value")
        self.err(node, f"attribute .{node.attr} is not supported", f".{node.attr}")

    def index(self, sl, hint):
        parts = sl.elts if isinstance(sl, gast.Tuple) else [sl]
        out = []
        for p in parts:
            if isinstance(p, gast.Slice):
                out.append(Slice(*(None if e is None else self.expr(e, hint)
                                   for e in (p.lower, p.upper, p.step))))
            elif isinstance(p, gast.Constant) and p.value is None:
                self.err(p, "np.newaxis / None indexing is not supported (use reshape)")
            else:
                out.append(self.expr(p, hint))
        return tuple(out)

    def subscript_parts(self, node):
        if not isinstance(node.value, gast.Name):
            self.err(node, "only `name[index] = value` writes are supported")
        return node.value.id, self.index(node.slice, node.value.id)


# Packages whose functions are never user helpers, wherever they are installed (jitad itself
# and NumPy may be editable installs outside site-packages).
LIBRARY_PACKAGES = frozenset({"numpy", "scipy", "math", "numba", "jitad", "builtins"})


@functools.lru_cache(maxsize=None)
def _library_roots() -> tuple:
    """The directories the interpreter's standard library and installed packages live in."""
    paths = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            paths.add(p)
    try:
        paths.update(site.getsitepackages())
        paths.add(site.getusersitepackages())
    except AttributeError:  # some embedded interpreters have a reduced `site`
        pass
    return tuple(sorted({os.path.realpath(p) for p in paths}))


def is_library(fn) -> bool:
    """Whether a function belongs to a library rather than to the user's code: its module is
    one of `LIBRARY_PACKAGES`, or its file lies in the standard library or in an installed
    package (site-packages / dist-packages; an editable install of the user's own package lives
    in the user's tree and counts as user code)."""
    mod = getattr(fn, "__module__", None) or ""
    if mod.partition(".")[0] in LIBRARY_PACKAGES:
        return True
    code = getattr(fn, "__code__", None)
    filename = getattr(code, "co_filename", "") or ""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    parts = path.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    return any(path.startswith(root + os.sep) for root in _library_roots())


def is_user_helper(obj) -> bool:
    """Whether a called object is a helper jitad transforms like the function itself: a plain
    Python function with no derivative rule that is the user's code, not a library's (a
    library function without a rule is refused at the call instead of transformed). A function
    decorated with `@jitad.differentiable` is always a helper, wherever it is defined."""
    if lookup_callable(obj) is not None:
        return False
    if hasattr(obj, "__jitad_function__"):
        return isinstance(obj.__jitad_function__, types.FunctionType)
    return isinstance(obj, types.FunctionType) and not is_library(obj)


def _stored_names(stmts) -> set:
    """Names the statements assign (at any depth)."""
    return {n.id for s in stmts for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _simple(node) -> bool:
    """A name or a constant: evaluating it twice costs nothing."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, (gast.Name, gast.Constant))


def _is_boolean(node) -> bool:
    if isinstance(node, gast.Compare):
        return True
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
        return True
    if isinstance(node, gast.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, gast.BoolOp):
        return all(_is_boolean(v) for v in node.values)
    return False


def _describe(func) -> str:
    if isinstance(func, gast.Name):
        return f"{func.id}()"
    if isinstance(func, gast.Attribute):
        return f"{_describe(func.value).rstrip('()')}.{func.attr}()"
    return "this callable"


def _fold(op, a, b, norm, node):
    if op.impl is None:
        norm.err(node, f"cannot apply {op} to constants")
    try:
        return op.impl(a, b)
    except ZeroDivisionError:
        norm.err(node, "division by zero in a constant expression")


def _ast_call(prim, operands):
    import ast
    expr = substitute(prim.forward, {p: ast.Constant(a.value) for p, a in zip(prim.params, operands)})
    return ast.Expression(expr)


def _typed(atoms):
    """The types of an argument list's constants: `x ** 2` and `x ** 2.0` (equal as `Const`s)
    are different computations (int and float results)."""
    return tuple(type(a.value) if isinstance(a, Const) else None for a in atoms)


def fold_constant_decisions(body):
    """Decide now every branch whose test follows from constants alone (`returned = False;
    go = not returned; if go:`, `flag = True; if flag:`, `acc = 0.0; if acc <= 0.17:`) and
    keep only the branch taken; a `while` whose test is constant False is dropped. Numba prunes
    such branches itself, and a pruned branch that assigned a value the generated adjoint still
    reads is a compile error ("Unsupported assignment encountered: Undefined"). The constants
    are tracked along control flow: a variable is known only where every path gives it the
    same constant; a loop forgets what its body assigns."""
    def assigned(stmts):
        return {t for x in ir.walk(stmts) for t in ir.writes(x)}

    def value(a, env):
        if isinstance(a, Const):
            return a
        return env.get(a.name) if isinstance(a, Var) else None

    def block(stmts, env):
        out = []
        for s in stmts:
            if isinstance(s, Bind):
                vals = [value(a, env) for a in s.args]
                known = len(s.targets) == 1 and all(v is not None for v in vals) and (
                    s.op is COPY or s.op.decision)
                for t in s.targets:
                    env.pop(t, None)
                if known:
                    args = [v.value for v in vals]
                    res = args[0] if s.op is COPY else s.op.impl(*args)
                    if s.op is not COPY or isinstance(res, (bool, int, float)):
                        env[s.target] = Const(res if s.op is COPY else bool(res))
                out.append(s)
            elif isinstance(s, If):
                test = env.get(s.test)
                if test is not None:            # decided: the branch taken, in place
                    out += block(s.body if test.value else s.orelse, env)
                    continue
                e1, e2 = dict(env), dict(env)
                s.body, s.orelse = block(s.body, e1), block(s.orelse, e2)
                env.clear()
                env.update({k: v for k, v in e1.items() if e2.get(k) == v
                            and type(e2.get(k).value) is type(v.value)})
                out.append(s)
            elif isinstance(s, (For, While)):
                inner = (s.cond if isinstance(s, While) else []) + s.body
                for t in assigned(inner) | set(ir.writes(s)):
                    env.pop(t, None)
                if isinstance(s, While):
                    s.cond = block(s.cond, env)
                    if env.get(s.test) == Const(False):
                        out += s.cond              # the test runs once and says no
                        continue
                s.body = block(s.body, dict(env))
                out.append(s)
            else:
                out.append(s)
        return out

    return block(body, {})


def eliminate_common_temps(body, temps):
    """`t2 = op(args)` computed again in the same block, with nothing in between writing
    `args` (or an array they index), becomes a use of the first temporary: `U[u]` read twice
    is one row and one adjoint. Only temporaries assigned once, and only pure primitives."""
    counts = {}
    for s in ir.walk(body):
        for t in ir.writes(s):
            counts[t] = counts.get(t, 0) + 1
    single = {t for t in temps if counts.get(t) == 1}
    rename = {}

    def atom(a):
        if isinstance(a, Var):
            return Var(rename.get(a.name, a.name))
        if isinstance(a, Slice):
            return Slice(*(None if x is None else atom(x) for x in (a.lower, a.upper, a.step)))
        if isinstance(a, TupleA):
            return TupleA(tuple(atom(x) for x in a.items))
        return a

    def block(stmts):
        avail, out = {}, []
        for s in stmts:
            if isinstance(s, Bind):
                s.args = tuple(atom(a) for a in s.args)
                pure = s.op.reusable and len(s.targets) == 1
                key = (s.op, s.args, _typed(s.args), tuple(sorted(s.statics.items()))) if pure else None
                if key is not None and key in avail and s.target in single:
                    rename[s.target] = avail[key]
                    continue
                written = set(s.targets)
                if key is not None and s.target in single and not (set(ir.reads(s)) & written):
                    avail[key] = s.target
            elif isinstance(s, SetItem):
                s.index = tuple(atom(a) for a in s.index)
                s.value = atom(s.value)
                written = {s.array}
            elif isinstance(s, Return):
                s.values = tuple(atom(a) for a in s.values)
                written = set()
            elif isinstance(s, If):
                s.test = rename.get(s.test, s.test)
                s.body, s.orelse = block(s.body), block(s.orelse)
                written = {t for x in ir.walk(s.body + s.orelse) for t in ir.writes(x)} | {
                    x.array for x in ir.walk(s.body + s.orelse) if isinstance(x, SetItem)}
            elif isinstance(s, (While, For)):
                if isinstance(s, For):
                    s.start, s.stop, s.step = atom(s.start), atom(s.stop), atom(s.step)
                else:
                    s.cond = block(s.cond)
                    s.test = rename.get(s.test, s.test)
                s.body = block(s.body)
                inner = (s.cond if isinstance(s, While) else []) + s.body
                written = {t for x in ir.walk(inner) for t in ir.writes(x)} | {
                    x.array for x in ir.walk(inner) if isinstance(x, SetItem)} | set(ir.writes(s))
            else:
                written = set()
            if written:
                avail = {k: v for k, v in avail.items()
                         if not (written & {n for a in k[1] for n in ir.atom_names(a)})}
            out.append(s)
        return out

    return block(body)


class Structurer:
    """Removes `break`, `continue` and early `return` by flags (see the module docstring)."""

    def __init__(self, norm: Normalizer):
        self.norm = norm
        self.namer = norm.namer
        self.ret_flag = None
        self.ret_vars = None
        self.loc = None

    def lower_function(self, body):
        self.loc = self.norm.cap.loc(self.norm.cap.tree)
        tops = [s for s in body]
        early = any(isinstance(s, ir.EarlyReturn) for s in ir.walk(body)) and not (
            sum(isinstance(s, ir.EarlyReturn) for s in ir.walk(body)) == 1
            and isinstance(body[-1], ir.EarlyReturn))
        if not early:
            # the only return is the last top-level statement; drop what follows
            last = next(i for i, s in enumerate(tops) if isinstance(s, ir.EarlyReturn))
            r = tops[last]
            return self.block(tops[:last], None) + [Return(r.values, r.loc)]
        arity = {len(s.values) for s in ir.walk(body) if isinstance(s, ir.EarlyReturn)}
        if len(arity) != 1:
            r = next(s for s in ir.walk(body) if isinstance(s, ir.EarlyReturn))
            raise UnsupportedError("every return must give the same number of values", r.loc,
                                   "return")
        n = arity.pop()
        self.ret_flag = self.namer.fresh("returned")
        base = f"{self.norm.cap.name}_result"
        self.ret_vars = [self.namer.fresh(base if n == 1 else f"{base}{k}") for k in range(n)]
        init = [Bind((self.ret_flag,), COPY, (Const(False),), self.loc)]
        lowered = self.block(body, None)
        return init + lowered + [Return(tuple(Var(v) for v in self.ret_vars), self.loc)]

    def block(self, stmts, loop):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ir.Break):
                out.append(Bind((loop[0],), COPY, (Const(True),), s.loc))
                return out
            if isinstance(s, ir.Continue):
                out.append(Bind((loop[1],), COPY, (Const(True),), s.loc))
                return out
            if isinstance(s, ir.EarlyReturn):
                for v, a in zip(self.ret_vars, s.values):
                    out.append(Bind((v,), COPY, (a,), s.loc))
                out.append(Bind((self.ret_flag,), COPY, (Const(True),), s.loc))
                return out
            flags = []
            if isinstance(s, If):
                flags = self.jump_flags(s, loop)
                out.append(If(s.test, self.block(s.body, loop), self.block(s.orelse, loop), s.loc))
            elif isinstance(s, (While, For)):
                out.extend(self.loop(s))
                if self.ret_flag and any(isinstance(x, ir.EarlyReturn) for x in ir.walk(s.body)):
                    flags = [self.ret_flag]
            else:
                out.append(s)
            rest = stmts[k + 1:]
            if flags and rest:
                go = self.guard(flags, s.loc, out)
                out.append(If(go, self.block(rest, loop), [], s.loc))
                return out
        return out

    def jump_flags(self, s, loop):
        """Flags a statement may set at this loop level (break/continue) or anywhere (return)."""
        flags = []

        def scan(block, nested):
            for x in block:
                if isinstance(x, ir.Break) and not nested and loop and loop[0] not in flags:
                    flags.append(loop[0])
                elif isinstance(x, ir.Continue) and not nested and loop and loop[1] not in flags:
                    flags.append(loop[1])
                elif isinstance(x, ir.EarlyReturn) and self.ret_flag not in flags:
                    flags.append(self.ret_flag)
                elif isinstance(x, If):
                    scan(x.body, nested)
                    scan(x.orelse, nested)
                elif isinstance(x, (While, For)):
                    scan(x.body, True)
        scan([s], False)
        return [f for f in flags if f]

    def guard(self, flags, loc, out):
        """Emit `go = not (f1 or f2 ...)` and return its name."""
        cur = Var(flags[0])
        for f in flags[1:]:
            t = self.namer.fresh("jumped")
            out.append(Bind((t,), OR, (cur, Var(f)), loc))
            cur = Var(t)
        go = self.namer.fresh("go")
        out.append(Bind((go,), NOT, (cur,), loc))
        return go

    def loop(self, s):
        def direct(kind):
            def scan(block):
                for x in block:
                    if isinstance(x, kind):
                        return True
                    if isinstance(x, If) and (scan(x.body) or scan(x.orelse)):
                        return True
                return False
            return scan(s.body)

        has_break, has_cont = direct(ir.Break), direct(ir.Continue)
        has_ret = self.ret_flag is not None and any(isinstance(x, ir.EarlyReturn) for x in ir.walk(s.body))
        pre = []
        brk = self.namer.fresh("broke") if has_break else None
        cont = self.namer.fresh("skip") if has_cont else None
        body = self.block(s.body, (brk, cont))
        if cont:
            body = [Bind((cont,), COPY, (Const(False),), s.loc)] + body
        exits = [f for f in (brk, self.ret_flag if has_ret else None) if f]
        if isinstance(s, For) and not exits:
            return [For(s.var, s.start, s.stop, s.step, body, s.loc)]
        if brk:
            pre.append(Bind((brk,), COPY, (Const(False),), s.loc))
        if isinstance(s, For):
            # a counted loop that can exit early becomes a while loop over a counter
            k = self.namer.fresh(f"{s.var}_next")
            pre.append(Bind((k,), COPY, (s.start,), s.loc))
            test = self.namer.fresh("cond")
            cond = [Bind((test,), IN_RANGE, (Var(k), s.stop, s.step), s.loc)]
            body = [Bind((s.var,), COPY, (Var(k),), s.loc),
                    Bind((k,), ADD, (Var(k), s.step), s.loc)] + body
            s = While(cond, test, body, s.loc)
        cond_stmts, test = s.cond, s.test
        if exits:
            new_test = self.namer.fresh("cond")
            guard_out = []
            go = self.guard(exits, s.loc, guard_out)
            cond_stmts = guard_out + [If(go, cond_stmts + [Bind((new_test,), COPY, (Var(test),), s.loc)],
                                         [Bind((new_test,), COPY, (Const(False),), s.loc)], s.loc)]
            test = new_test
        return pre + [While(cond_stmts, test, body, s.loc)]


def normalize(cap: Captured) -> ir.Function:
    return Normalizer(cap).function()
