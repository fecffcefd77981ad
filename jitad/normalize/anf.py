"""A-normal form: the fenced tree lowered to IR statements, one primitive per `Bind`.

Takes: a fenced `capture.Captured`.
Guarantees: `normalize(cap)` is the function's IR with the invariants of the package
docstring: `Normalizer` lowers expressions to atoms and statements to `Bind`/`SetItem`/`If`/
`While`/`For`, resolving every call to a primitive or a user helper (library calls through
its `library.LibraryCalls` half; a NumPy function `prelude` defines by NumPy is a helper);
`structure.Structurer` then removes the jumps; `simplify` decides constant branches and
shares common temporaries. A parameter given a structure or
a constant (`forms`) is read as `structs.StructArgs` says. A call binds its arguments to a
helper's parameters as Python does (`helper_args`): a helper's `*args` takes the extra
positional arguments as a tuple structure, its `**kwargs` the extra keyword arguments as a
dict structure (`pass_star`, marking them given for `fence`); `f(x, **opts)` of a dict
structure names its keys, and a library call given a tuple structure whole (`np.stack(xs)`)
reads it written out (`sequence_arguments`); `p.m(x)` of a record is a helper call
(`record_method`).
"""
from __future__ import annotations

import builtins
import copy
import inspect
import numbers
import textwrap
import types

import gast
import numpy as np

from .. import ir, prelude, records
from ..capture import MISSING, Captured, capture, def_name
from ..desugar import own_statements
from ..errors import JitadError, UnsupportedError
from ..ir import Bind, Const, For, If, SetItem, Slice, TupleA, Var, While
from ..names import Namer, reserved_names, user_names
from ..primitives import (CALL, COPY, FUNCTION_METHODS, GETITEM, METHODS, SHAPE, UFUNC_REDUCTIONS,
                          get, lookup_callable)
from ..primitives import opaque
from ..primitives.core import has_methods, refusal_for
from .calls import is_user_helper
from .library import (SPLITS, STACKS, LibraryCalls, describe, index_tricks, int_constants,
                      is_ellipsis, split_cuts, static_value)
from .lists import (ListForms, is_list_value, list_calls, list_names, list_phases, list_pairs,
                    list_targets, nested_list_makers, stacked_rows)
from .nested import NestedFunctions
from .nones import none_flags
from .tuple_lists import tuple_lists
from .tuple_values import tuple_values
from .shape_tuples import shape_tuples
from .shape_values import ShapeValues, shape_locals, shape_rewrites
from .slices import SliceValues
from .stars import expand_stars
from .simplify import eliminate_common_temps, fold_constant_decisions
from .structs import Struct, StructArgs, specialized
from .structure import Structurer, own_loop_indices
from .webs import split_webs


_BINOP = {gast.Add: get("add"), gast.Sub: get("sub"), gast.Mult: get("mul"),
          gast.Div: get("truediv"), gast.Pow: get("pow"), gast.MatMult: get("matmul"),
          gast.FloorDiv: get("floordiv"), gast.Mod: get("mod"), gast.BitAnd: get("bitand"),
          gast.BitOr: get("bitor"), gast.BitXor: get("bitxor")}
_CMP = {gast.Lt: get("lt"), gast.LtE: get("le"), gast.Gt: get("gt"), gast.GtE: get("ge"),
        gast.Eq: get("eq"), gast.NotEq: get("ne")}
NEG, NOT, TRUTH, LEN, DIM, SHAPE_OF, TRANSPOSE, OR, IN_RANGE, ADD = (
    get(n) for n in ("neg", "not", "truth", "len", "dim", "shape_of", "transpose", "or",
                     "in_range", "add"))
CHECK_LEN, MIN2, INVERT, ADD_AT = get("check_len"), get("min2"), get("invert"), get("add_at")
CLIP, ASTYPE, TILE = get("np.clip"), get("astype"), get("tile")
# the builtins a function may call (with a primitive, or read by the normalizer itself)
_BUILTINS = sorted({n for n in dir(builtins) if not n.startswith("_")
                    and lookup_callable(getattr(builtins, n)) is not None}
                   | {"range", "enumerate", "zip", "reversed", "sum", "list", "slice", "round"})
_SHORT = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "pow": "pow",
          "matmul": "matmul", "getitem": "at", "neg": "neg"}


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


class Normalizer(LibraryCalls, ListForms, StructArgs, NestedFunctions, SliceValues,
                 ShapeValues):
    def __init__(self, cap: Captured, forms=None):
        self.cap = cap
        self.out_tree = _UNSEEN       # the returned structure (`returned_structure`)
        self.tree, self.params, self.renamed = rename_locals(cap)
        self.namer = Namer(user_names(self.tree) | set(cap.free) | reserved_names())
        self.locals = user_names(self.tree) - set(cap.free) | set(self.params)
        self.introduced = {}
        # list(E): the comprehension it means (see `lists.list_calls`); sorted(p) of a dict
        # or tuple argument is left to `structs` (its keys, sorted when jitad compiles)
        tree_name = {v: k for k, v in self.renamed.items()}
        structured = {tree_name.get(name, name) for name, f in forms or () if f[0] == "struct"}
        self.tree = list_calls(self.tree, self.namer, self.resolve_func, self.err, self.introduced,
                               structured)
        # np.r_[a, b], np.c_[a, b]: the concatenations they mean (see `library.index_tricks`)
        self.tree = index_tricks(self.tree, self.resolve_func, self.err, self.namer,
                                 self.introduced)
        # np.array([[...] for a in A]): each row an array (see `lists.stacked_rows`)
        self.tree = stacked_rows(self.tree, self.resolve_func)
        self.locals |= user_names(self.tree) - set(cap.free)
        # tuples as local values: a variable per position (see `tuple_values`)
        user_of = {v: k for k, v in self.renamed.items()}
        given = {user_of.get(name, name): len(form[1][1]) for name, form in forms or ()
                 if form[0] == "struct" and form[1][0] == "seq"}
        # parameters a call gives lists (`lists.list_parameters`): lists here too
        to_tree = {u: n for n, u in self.renamed.items()}
        self.given_lists = {to_tree.get(name, name) for name, form in forms or ()
                            if form[0] == "list"}
        # None as a sentinel: a flag beside the value (see `nones`); a parameter given None
        # and assigned to is one too
        self.none_params_assigned(forms)
        self.tree, flags = none_flags(self.tree, set(self.params), self.namer, self.err)
        self.locals |= set(flags)
        self.renamed.update({f: f"{n} is None" for f, n in flags.items()})
        # slices and sums of shapes: the tuples of dimensions (see `shape_tuples`)
        self.tree = shape_tuples(self.tree, self.resolve_func)
        self.tree, tparts, tuser = tuple_values(
            self.tree, set(self.params), self.namer, self.resolve_func,
            list_names(self.tree, self.resolve_func, self.given_lists), self.err, given)
        self.locals |= {p for names in tparts.values() for p in names}
        self.renamed.update(tuser)
        # shapes kept as values (`s = x.shape`, `(n,) + x.shape[1:]`): see `shape_values`
        self.shape_locals = shape_locals(self.tree, self.resolve_func)
        self.tree = shape_rewrites(self.tree, self.shape_locals, self.resolve_func, self.namer,
                                   self.introduced)
        self.locals |= user_names(self.tree) - set(cap.free)
        # h(*state), (*shape, 2): the items written out (see `stars`)
        self.tree = expand_stars(self.tree, given, self.err,
                                 list_names(self.tree, self.resolve_func, self.given_lists),
                                 self.namer)
        self.locals |= user_names(self.tree) - set(cap.free)    # the appends' loop variables
        # lists of tuples: a list per position (see `tuple_lists`)
        self.tree, parts, introduced = tuple_lists(self.tree, self.namer, self.resolve_func,
                                                   self.err, self.given_lists)
        self.introduced.update(introduced)
        self.locals |= {p for names in parts.values() for p in names}
        self.tree, phases = list_phases(self.tree, self.namer, self.resolve_func,
                                        self.given_lists)
        self.locals |= set(phases)
        self.renamed.update(phases)
        for new, old in phases.items():     # `hs = np.array(hs)` of a list parameter
            if old in self.given_lists:
                self.params[self.params.index(old)] = new
                self.given_lists = self.given_lists - {old} | {new}
        self.callees = {}
        self.nested = {}                 # nested def name -> (lifted helper, variables it reads)
        self.nested_defaults = {}        # nested def name -> (its parameters, defaults read at calls)
        self.temps = set()
        self.out = None
        # parameters given a structure (params = (W, b)) or a constant (axis=-1)
        self.init_forms(forms)
        # names assigned a list display or comprehension: lists everywhere (see `lists`)
        self.lists = list_names(self.tree, self.resolve_func, self.given_lists)
        # np.array([0, 2]) assigned to a name read only as an index: integers (`index_arrays`)
        self.int_arrays = index_arrays(self.tree, self.resolve_func)
        makers = nested_list_makers(self.tree, self.resolve_func)
        for node in gast.walk(self.tree):
            bad = None
            if isinstance(node, gast.Assign):
                made = list_targets(node, self.resolve_func, self.lists, makers)
                bad = [n for t, v in list_pairs(node)
                       if not is_list_value(v, self.resolve_func, self.lists, makers)
                       for n in gast.walk(t) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Store) and n.id in self.lists
                       and n.id not in made]
            elif isinstance(node, (gast.For, gast.AugAssign)):
                bad = [n for n in gast.walk(node.target) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Store) and n.id in self.lists]
            if bad:
                self.err(node, f"'{bad[0].id}' is a list elsewhere in {cap.name}; a list "
                               "variable is only assigned lists (hs = [] ...) and grown with "
                               ".append()", "list variable")
        for p in self.params:
            if p in self.lists and p not in self.given_lists:
                self.err(self.tree, f"the parameter '{p}' is assigned a list: use a new name "
                                    "for the list", "list variable")
        # names assigned slice(...): replaced by the slice where they index (see `slices`)
        self.init_slices()

    # ---------------------------------------------------------------- helpers
    def err(self, node, message, construct=None):
        # the refusal itself, not chained to the exception it may have been made from
        raise UnsupportedError(message, self.cap.loc(node), construct) from None

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
        body = own_loop_indices(body, self.namer, self.renamed)
        body = fold_constant_decisions(body)
        body = eliminate_common_temps(body, self.temps)
        body = split_webs(body, self.params, self.namer, self.renamed)
        # for messages: a name `desugar` made (or one derived from it) shows what it stands for
        shown = self.cap.shown
        renamed = {**shown, **{k: shown.get(v, v) for k, v in self.renamed.items()}}
        return ir.Function(self.cap.name, list(self.params), body, self.cap.loc(self.cap.tree),
                           self.cap, self.callees, renamed,
                           out_tree=None if self.out_tree is _UNSEEN else self.out_tree)

    def stmt(self, node):
        self.stmt_count += 1        # each lowering of a statement (an unrolled loop's again)
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
            elif isinstance(t.value, gast.Name) and t.value.id in self.dict_blocks:
                # out[k] += v of a local dict (`structs.dict_write`): out[k] = out[k] + v
                load = gast.Subscript(t.value, t.slice, gast.Load())
                rhs = gast.copy_location(gast.BinOp(gast.copy_location(load, t), node.op,
                                                    node.value), node)
                self.assign(t, rhs, node)
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
            vals, tree = returned_structure(node.value)
            if self.out_tree is not _UNSEEN and tree != self.out_tree:
                self.err(node.value, "every `return` of a function returning a nested tuple or "
                                     "a dict returns the same structure (nesting and keys)",
                         "nested return")
            self.out_tree = tree
            atoms = tuple(self.returned(v) for v in vals)
            self.emit(ir.EarlyReturn(atoms, loc))
        elif isinstance(node, gast.Break):
            self.emit(ir.Break(loc))
        elif isinstance(node, gast.Continue):
            self.emit(ir.Continue(loc))
        elif isinstance(node, gast.FunctionDef):
            self.define_nested(node)
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            self.call_statement(node)
        elif isinstance(node, (gast.Pass, gast.Expr)):
            pass
        else:  # the fence lets nothing else through
            self.err(node, f"unsupported statement {type(node).__name__}")

    def assign(self, target, value, node):
        if isinstance(target, gast.Name) and target.id in self.slices:
            return self.assign_slice(target.id, value, node)
        if self.local_dict(target, value, node) or self.dict_write(target, value, node):
            return
        if self.struct_assign(target, value, node):
            return
        self.note_static_int(target, value)
        if isinstance(target, gast.Name) and target.id in self.lists:
            self.assign_list(target.id, value, node)
        elif isinstance(target, gast.Name):
            self.expr_into(value, target.id)
        elif isinstance(target, gast.Subscript):
            if isinstance(target.value, gast.Name) and target.value.id in self.lists:
                self.err(target, "writing into a list (hs[i] = v) is supported where no other "
                                 "name sees the list and no loop iterates over it while it is "
                                 "written; else build the list with .append(), or write into "
                                 "an array", "list write")
            arr, index = self.subscript_parts(target)
            val = self.expr(value, arr)
            if isinstance(val, Var) and val.name == arr:
                # y[idx] = y: NumPy reads the value whole before it writes; a copy of its own
                # (with its own adjoint) is that value
                val = self.bind(node, self.temp(arr, "copy_array"), get("copy_array"), (val,))
            self.emit(SetItem(arr, index, val, self.cap.loc(node)))
        elif isinstance(target, gast.Tuple) and isinstance(value, gast.Tuple) and any(
                isinstance(e, gast.Name) and e.id in self.lists for e in target.elts):
            # means, covs = [], []: each list made (the displays read no other target)
            for t, v in list_pairs(node):
                if not (isinstance(t, gast.Name) and t.id in self.lists):
                    self.err(t, "a tuple assignment that makes lists makes only lists",
                             "list variable")
                self.assign_list(t.id, v, node)
        elif isinstance(target, gast.Tuple):
            names = [e.id for e in target.elts]
            if isinstance(value, gast.Tuple):
                if len(value.elts) != len(names):
                    self.err(node, "tuple assignment with mismatched lengths")
                atoms = []
                for j, (name, v) in enumerate(zip(names, value.elts)):
                    later = {n.id for e in value.elts[j + 1:] for n in gast.walk(e)
                             if isinstance(n, gast.Name)}
                    if name not in later and name not in names[:j] and not isinstance(v, gast.Name):
                        # p, v = p0.copy(), v0.copy(): nothing evaluated later reads the name,
                        # so the value goes straight to it (a new array stays a new array)
                        self.expr_into(v, name)
                        atoms.append(None)
                        continue
                    a = self.expr(v, name)
                    if isinstance(a, Var) and a.name in names:
                        a = self.bind(v, self.namer.fresh(f"{a.name}_old"), COPY, (a,))
                    atoms.append(a)
                for name, a in zip(names, atoms):
                    if a is not None:
                        self.bind(node, name, COPY, (a,))
            elif isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
                    and value.func.id in self.nested:
                self.nested_call(value, names[0], None, targets=tuple(names))
            elif isinstance(value, gast.Call) and self.tuple_callee(value) is not None \
                    and not self.is_list_call(value):
                fn, args = self.helper_args(value, self.tuple_callee(value),
                                            {k.arg: k.value for k in value.keywords}, names[0])
                self.callees[id(fn)] = fn
                self.emit(Bind(tuple(names), CALL, args, self.cap.loc(node), callee=fn))
            elif isinstance(value, gast.Attribute) and value.attr == "shape":
                arr = self.expr(value.value, names[0])
                self.emit(Bind(tuple(names), SHAPE, (arr,), self.cap.loc(node)))
            elif isinstance(value, gast.Call) and self.parts_of(value) is not None:
                # sign, logdet = np.linalg.slogdet(S): one primitive per element
                parts = self.parts_of(value)
                if len(parts) != len(names):
                    self.err(node, f"{describe(value.func)} returns {len(parts)} values, "
                                   f"not {len(names)}", "tuple unpacking")
                operands, statics = self.parts_call(value, parts, names[0])
                for name, p in zip(names, parts):
                    self.bind(node, name, p, operands, statics=statics)
            elif isinstance(value, gast.Subscript) and self.resolve_func(value.value) in (
                    np.mgrid, np.ogrid):
                self.index_grid(value, names, names[0], None, node)
            elif isinstance(value, gast.Call) and self.resolve_func(value.func) is np.gradient:
                self.gradient_call(value, names, names[0], None, node)
            elif isinstance(value, gast.Call) and self.resolve_func(value.func) in SPLITS:
                self.split(node, names, value)
            else:
                # a, b = x: the rows of an array (the elements of a list)
                arr = self.list_value(value, names[0]) if self.is_list_node(value) \
                    else self.expr(value, names[0])
                if isinstance(arr, Const):
                    self.err(value, "cannot unpack a constant", "tuple unpacking")
                n = self.bind(node, self.temp(names[0], "len"), LEN, (arr,))
                self.bind(node, self.temp(names[0], "check"), CHECK_LEN,
                          (n, Const(len(names))))
                rows = [self.bind(node, self.temp(arr.name, "getitem"), GETITEM, (arr, Const(k)))
                        for k in range(len(names))]
                for name, r in zip(names, rows):
                    self.bind(node, name, COPY, (r,))

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
        if self.list_zip_loop(node):        # zip of lists and constant tuples: unrolled
            return
        if self.struct_loop(node):          # over a tuple argument: unrolled
            return
        loc = self.cap.loc(node)
        it = node.iter
        backwards = self.reversed_of(it)     # for ... in reversed(...): the same loop, backwards
        if backwards is not None:
            it = backwards
        if isinstance(node.target, gast.Tuple):
            pairs = self.enumerate_zip(node.target, it)
            if pairs is not None:
                # for i, (a, b) in enumerate(zip(A, B)): the zip's row loop, its index exposed
                idx, arrays, names = pairs
                return self.row_loop(node, arrays, names, idx, loc,
                                     backwards=backwards is not None)
            names = [e.id for e in node.target.elts]
            fn = self.resolve_func(it.func) if isinstance(it, gast.Call) else MISSING
            if fn is enumerate and len(it.args) == 1 and not it.keywords and len(names) == 2:
                # for i, x in enumerate(X): the row loop with its index exposed
                inner = self.reversed_of(it.args[0])     # enumerate(reversed(X))
                if inner is not None and backwards is None:
                    return self.row_loop(node, [inner], names[1:], names[0], loc,
                                         flip_rows=True)
                return self.row_loop(node, [it.args[0]], names[1:], names[0], loc,
                                     backwards=backwards is not None)
            if fn is zip and len(it.args) == len(names) and not it.keywords:
                # for a, b in zip(A, B): the rows of each, as far as the shortest goes
                return self.row_loop(node, it.args, names, None, loc,
                                     backwards=backwards is not None)
            self.err(node.target, "`for a, b in ...` is supported as `for i, x in "
                                  "enumerate(array)` and `for a, b in zip(A, B)`",
                     "for loop target")
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
            if backwards is not None:
                start, stop, step = self.reversed_range(it, var, start, stop, step)
            self.emit(For(var, start, stop, step, self.block(node.body), loc))
            return
        # for row in X:  ->  for i in range(X.shape[0]): row = X[i]
        self.row_loop(node, [it], [var], None, loc, backwards=backwards is not None)

    def enumerate_zip(self, target, it):
        """`for i, (a, b) in enumerate(zip(A, B))`: (the index's name, [A, B], [a, b]), or
        None for any other target and iterable."""
        if not (len(target.elts) == 2 and isinstance(target.elts[0], gast.Name)
                and isinstance(target.elts[1], gast.Tuple)
                and all(isinstance(e, gast.Name) for e in target.elts[1].elts)):
            return None
        if not (isinstance(it, gast.Call) and self.resolve_func(it.func) is enumerate
                and len(it.args) == 1 and not it.keywords):
            return None
        z = it.args[0]
        names = [e.id for e in target.elts[1].elts]
        if not (isinstance(z, gast.Call) and self.resolve_func(z.func) is zip
                and len(z.args) == len(names) and not z.keywords):
            return None
        return target.elts[0].id, z.args, names

    def split_part(self, node, hint):
        """np.split(x, k)[i] (i a constant): the parts made as `a, b = np.split(x, 2)` makes
        them, the i-th read."""
        call = node.value
        k = self.static(call.args[1], call, "the number of sections") \
            if len(call.args) == 2 else None
        i = static_value(node.slice, self.resolve_func)
        cuts = split_cuts(k)
        if cuts is not None:        # np.split(x, [i, j])[1]: constant split points
            k = len(cuts) + 1
        if not isinstance(k, int) or isinstance(k, bool) or k < 1 or \
                not isinstance(i, int) or isinstance(i, bool) or not -k <= i < k:
            name = describe(call.func).removesuffix("()")
            self.err(node, f"{name}(x, k)[i] takes a constant number of sections and a "
                           "constant index among them", "split part")
        names = [self.temp(hint, f"part{j}") for j in range(k)]
        self.split(node, names, call)
        return Var(names[i])

    def reversed_of(self, it):
        """The iterable `reversed(E)` (or `reversed(list(E))`, `reversed(tuple(E))`) runs over
        backwards, E; None for any other iterable."""
        if not (isinstance(it, gast.Call) and self.resolve_func(it.func) is reversed):
            return None
        if it.keywords or len(it.args) != 1:
            self.err(it, "reversed() takes one argument")
        inner = it.args[0]
        if isinstance(inner, gast.Call) and self.resolve_func(inner.func) in (list, tuple) \
                and len(inner.args) == 1 and not inner.keywords:
            inner = inner.args[0]
        return inner

    def reversed_range(self, node, var, start, stop, step):
        """(start, stop, step) of range(start, stop, step) run backwards: from its last value
        `start + (n - 1) * step` down to `start - step` by `-step`, n its trip count (empty
        when n is 0: the last value is then `start - step`)."""
        def arith(op, a, b):
            if isinstance(a, Const) and isinstance(b, Const):
                return Const(op.impl(a.value, b.value))
            return self.bind(node, self.temp(var, op), op, (a, b))

        sub, mul = get("sub"), get("mul")
        if isinstance(step, Const) and step.value == 1:
            last = arith(sub, stop, Const(1))
        else:
            n = self.bind(node, self.temp(var, "trips"), get("trip_count"), (start, stop, step))
            last = arith(ADD, start, arith(mul, arith(sub, n, Const(1)), step))
        return last, arith(sub, start, step), arith(sub, Const(0), step)

    def row_loop(self, node, its, names, idx, loc, backwards=False, flip_rows=False):
        """for row in X (and enumerate, zip): a counted loop whose body first reads the rows;
        `backwards` runs it from the last row to the first (`reversed(X)`, the index with
        it), `flip_rows` reads the rows backwards under a forward index
        (`enumerate(reversed(X))`)."""
        body_assigned = _stored_names(node.body)
        arrs, n, lasts = [], None, []
        for it, var in zip(its, names):
            inner = self.reversed_of(it)    # zip(reversed(A), B): A's rows from its last
            if inner is not None:
                it = inner
            arr = (self.list_slice(it, var) if self.is_list_slice(it) else
                   self.list_value(it, var) if self.is_list_node(it) else self.expr(it, var))
            if isinstance(arr, Const):
                self.err(it, "a for loop iterates over range(...) or an array's rows", "for loop")
            if arr.name in self.lists and arr.name in _appended(node.body):
                self.err(it, f"the loop appends to the list '{arr.name}' it runs over",
                         "for loop over a list")
            if arr.name in body_assigned | set(names):
                arr = self.bind(it, self.namer.fresh(f"{var}_rows"), COPY, (arr,))
            rows = self.bind(it, self.namer.fresh(f"{var}_n"), LEN, (arr,))
            n = rows if n is None else self.bind(it, self.namer.fresh(f"{var}_n"), MIN2, (n, rows))
            arrs.append(arr)
            lasts.append(None if inner is None else
                         self.bind(it, self.temp(var, "last"), get("sub"), (rows, Const(1))))
        if idx is None:
            idx = self.namer.fresh(f"{names[0]}_i")
        elif idx in body_assigned:
            self.err(node.target, f"the enumerate index '{idx}' is assigned in the loop body",
                     "for loop target")
        last = None
        if backwards or flip_rows:
            last = self.bind(node.iter, self.temp(idx, "last"), get("sub"), (n, Const(1)))
        saved, self.out = self.out, []
        row = Var(idx)
        if flip_rows:       # enumerate(reversed(X)): row n - 1 - i at index i
            row = self.bind(node.target, self.temp(names[0], "row"), get("sub"), (last, row))
        for arr, var, own_last in zip(arrs, names, lasts):
            at = row if own_last is None else \
                self.bind(node.target, self.temp(var, "row"), get("sub"), (own_last, row))
            self.bind(node.target, var, GETITEM, (arr, at))
        head, self.out = self.out, saved
        if backwards:
            self.emit(For(idx, last, Const(-1), Const(-1), head + self.block(node.body), loc))
        else:
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
                self.err(node, "None is not a value jitad can compute with (None works as a "
                               "sentinel: a local assigned None and, elsewhere, a number or an "
                               "array, whose value is read under `if x is not None:`)", "None")
            if isinstance(node.value, str):
                self.err(node, "a string is only supported as a constant: an argument of a "
                               "library call (ord='fro'), a dict's key (p['W']), or the items of "
                               "a loop `for k in ('W', 'b')` whose variable is read only in "
                               "the loop", "string constant")
            return Const(node.value)
        if isinstance(node, gast.Name):
            return self.name(node)
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Mult) and any(
                isinstance(e, gast.List) for e in (node.left, node.right)):
            self.err(node, "a repeated list ([c] * n) is supported with a number c, and "
                           "[None] * n where a loop `for t in range(n)` fills it in order "
                           "(hs[t] = v, hs read in the loop only after that write); else "
                           "build the list with .append() or a comprehension", "list repeat")
        if isinstance(node, gast.BinOp):
            if self.is_shape(node):           # (n,) + x.shape[1:]
                return self.shape_value(node, hint, dest)
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
            op = {gast.USub: NEG, gast.Invert: INVERT}.get(type(node.op), NOT)
            if isinstance(a, Const):
                return Const(op.impl(a.value) if op is INVERT else -a.value if op is NEG
                             else not a.value)
            return self.bind(node, dest(op), op, (a,))
        if isinstance(node, gast.Compare):
            decided = self.static_compare(node)
            if decided is not None:
                return decided
            shapes = self.shape_compare(node, hint, dest)      # x.shape == y.shape
            if shapes is not None:
                return shapes
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
            element = self.struct_value(node)      # a namedtuple argument's field
            if element is not None:
                return element
            return self.attribute(node, hint, dest)
        if isinstance(node, gast.Subscript):
            if self.is_shape(node):                 # x.shape[1:], s[:-1]: a shape
                return self.shape_value(node, hint, dest)
            if isinstance(node.value, gast.Attribute) and node.value.attr == "shape":
                k = static_value(node.slice, self.resolve_func)
                if not isinstance(k, int) or isinstance(k, bool):     # x.shape[i], i computed
                    s = self.shape_value(node.value, hint, lambda op: self.temp(hint, op))
                    return self.bind(node, dest("dim"), GETITEM,
                                     (s, self.expr(node.slice, hint)))
                arr = self.expr(node.value.value, hint)
                return self.bind(node, dest("dim"), DIM, (arr, Const(k)))
            if self.resolve_func(node.value) in (np.mgrid, np.ogrid):
                return self.index_grid(node, None, hint, dest)
            if isinstance(node.value, gast.Call) and \
                    self.resolve_func(node.value.func) in SPLITS:
                return self.split_part(node, hint)
            part = self.returned_part(node, hint)
            if part is not None:
                return part
            element = self.struct_value(node)      # params[0], p["W"]: a structure's element
            if element is not None:
                return element
            if isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, str):
                # d["b"] of a value that is neither a local dict (`dict_locals`) nor a dict
                # argument: e.g. a helper's dict result, which callers cannot read
                self.err(node, "a key read of a dict jitad does not follow: a dict is a local "
                               "built by displays in this function (d = {...}) or an argument; "
                               "a helper's dict result is not one (return its values flat: "
                               "return a, b)", "dict key")
            if isinstance(node.value, gast.Tuple) and not isinstance(node.slice, gast.Slice):
                # (a, b, c)[1] (a tuple of numbers written in, `tuple_values`): that item
                k = static_value(node.slice, self.resolve_func)
                n = len(node.value.elts)
                if isinstance(k, int) and not isinstance(k, bool) and -n <= k < n:
                    return self.expr(node.value.elts[k], hint, into)
            numbers = self.numbers_tuple(node.value)
            if numbers is not None and not isinstance(node.slice, (gast.Slice, gast.Tuple)) \
                    and static_value(node.slice, self.resolve_func) is MISSING:
                # Y[i] of a tuple of numbers (`Y = (1.5, 2.25)`, local or module-level) by a
                # computed index: the array of those numbers (integers if all are), indexed
                arr = self.stack(numbers, hint, lambda op: self.temp(hint, op),
                                 integers=all(type(e.value) is int for e in numbers.elts))
                return self.bind(node, dest("getitem") if name else self.temp(arr.name, "getitem"),
                                 GETITEM, (arr, self.expr(node.slice, hint)))
            if isinstance(node.value, gast.Call) and self.parts_of(node.value) is not None:
                # np.linalg.slogdet(S)[1]: the primitive of that element
                parts, k = self.parts_of(node.value), static_value(node.slice, self.resolve_func)
                if not isinstance(k, int) or not -len(parts) <= k < len(parts):
                    self.err(node, "index the tuple with a constant", "tuple index")
                operands, statics = self.parts_call(node.value, parts, hint)
                return self.bind(node, dest(parts[k]), parts[k], operands, statics=statics)
            arr = self.list_value(node.value, hint) if self.is_list_node(node.value) \
                else self.expr(node.value, hint)
            if isinstance(arr, Const):
                self.err(node, "cannot index a constant")
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            if any(self.is_newaxis(p) or is_ellipsis(p) for p in parts):
                return self.new_axes(node, arr, parts, hint, dest)
            index = self.index(node.slice, hint)
            return self.bind(node, dest("getitem") if name else self.temp(arr.name, "getitem"),
                             GETITEM, (arr,) + index)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            self.err(node, "a comprehension is supported assigned to a name (hs = [...]) or "
                           "given to a NumPy function, len() or sum()", "list comprehension")
        if isinstance(node, gast.List):
            self.err(node, "unsupported construct: list (a list is supported written out as the "
                           "argument of np.array, np.stack, np.concatenate ...)", "list")
        if isinstance(node, gast.Tuple):
            self.err(node, "a tuple is a shape, or a value to unpack (a, b = t), index with a "
                           "constant (t[0]), loop over, pass to a helper, give to a NumPy "
                           "function of a sequence or return; not an operand here",
                     "tuple value")
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
        if node.id in self.nested:
            self.err(node, f"the nested function '{node.id}' is only called here (passing it as "
                           "a value is not supported)", "nested function value")
        if node.id in self.lists:
            self.list_misuse(node)
        if node.id in self.slices:
            self.slice_misuse(node)
        if node.id in self.structs:
            return self.struct_value(node)
        if node.id in self.locals:
            return Var(node.id)
        obj = self.cap.resolve(node.id)
        if obj is MISSING:
            self.err(node, f"name '{node.id}' is not defined", "undefined name")
        if isinstance(obj, (bool, np.bool_)):
            return Const(bool(obj))
        if isinstance(obj, numbers.Integral):
            return Const(int(obj))
        if isinstance(obj, numbers.Real):
            return Const(float(obj))
        hint = "; a list can change in place unseen: make it a tuple of numbers, which is " \
            "compiled in" if isinstance(obj, list) else ""
        self.err(node, f"'{node.id}' ({type(obj).__name__}) cannot be used as a value here{hint}",
                 "non-numeric global")

    def resolve_func(self, node):
        """The object a call's function expression means, or MISSING."""
        if isinstance(node, gast.Name):
            if node.id in self.introduced:      # a builtin a rewrite wrote (`tuple_lists`)
                return self.introduced[node.id]
            if node.id in self.locals:
                return MISSING
            return self.cap.resolve(node.id)
        if isinstance(node, gast.Attribute):
            base = self.resolve_func(node.value)
            # a module, or an object with primitives among its methods (np.maximum.accumulate,
            # scipy.stats.norm.cdf)
            if isinstance(base, types.ModuleType) or (base is not MISSING and has_methods(base)):
                return getattr(base, node.attr, MISSING)
            if isinstance(base, type):      # Arm.tip(...): a staticmethod of the user's class
                fn = getattr(base, node.attr, MISSING)
                if isinstance(fn, types.FunctionType) and is_user_helper(fn):
                    return fn
        return MISSING

    def tuple_callee(self, call):
        """The function a call whose values are unpacked runs: a user helper, or a NumPy
        function `prelude` defines (`x, res, rank, s = np.linalg.lstsq(A, b)`); else None."""
        fn = self.user_callee(call.func)
        if fn is None:
            obj = self.resolve_func(call.func)
            if obj is not MISSING:
                fn = prelude.definition(obj, len(call.args), {a.arg: a.value for a in call.keywords})
        return fn

    def numbers_tuple(self, node):
        """A flat, non-empty tuple of numbers -- written out, or a module-level (or constant
        local, `tuple_values`) name holding one -- as a tuple display of constants; else None."""
        value = static_value(node, self.resolve_func)
        if not isinstance(value, tuple) or not value or not all(
                type(v) in (int, float) for v in value):
            return None
        return gast.copy_location(
            gast.Tuple([gast.copy_location(gast.Constant(v, None), node) for v in value],
                       gast.Load()), node)

    def returned_part(self, node, hint):
        """`helper(x)[k]` of a helper (or a NumPy function defined in `prelude`:
        `np.linalg.lstsq(A, b)[0]`) that returns a tuple display of n values on every path:
        the call bound to n names, the k-th read (None if that is not the call)."""
        call = node.value
        if not isinstance(call, gast.Call) or isinstance(node.slice, gast.Slice):
            return None
        k = static_value(node.slice, self.resolve_func)
        if not isinstance(k, int) or isinstance(k, bool):
            return None
        kw = {a.arg: a.value for a in call.keywords}
        if isinstance(call.func, gast.Name) and call.func.id in self.nested:
            # g(x)[k] of a function defined inside: its lifted helper, called with the
            # variables it reads (`nested_call`)
            n = _tuple_arity(self.nested[call.func.id][0])
            if n is None or not -n <= k < n:
                return None
            names = tuple(self.namer.fresh(f"{hint}_{j}") for j in range(n))
            self.nested_call(call, hint, None, targets=names)
            return Var(names[k % n])
        fn = self.tuple_callee(call)
        n = _tuple_arity(fn) if fn is not None else None
        if n is None or not -n <= k < n:
            return None
        fn, args = self.helper_args(call, fn, kw, hint)
        self.callees[id(fn)] = fn
        names = tuple(self.namer.fresh(f"{hint}_{j}") for j in range(n))
        self.emit(Bind(names, CALL, args, self.cap.loc(call), callee=fn))
        return Var(names[k % n])

    def user_callee(self, func_node):
        """The user helper a call's function expression means, or None (see `is_user_helper`;
        a transformed function is one too: `higher.called`)."""
        from ..differentiable import called_transform     # (imports the pipeline)
        if isinstance(func_node, gast.Call):        # jitad.grad(f)(x)
            return self.made_transform(func_node)
        obj = self.resolve_func(func_node)
        if is_user_helper(obj):
            return getattr(obj, "__jitad_function__", obj)
        return called_transform(obj)

    def made_transform(self, node):
        """`jitad.grad(f, wrt=1)` written where it is called (`jitad.grad(f)(x)`) of a function
        f the name means and constant other arguments: that transformed function as a helper
        (`higher.made`, then `higher.called`); None when `node` is no such call."""
        from ..differentiable import called_transform
        t = self.transform_of(node)
        if t is None:
            return None
        derived = called_transform(t)
        if derived is None:
            self.err(node, f"jitad.{type(t).__name__}(...) called inside a transformed "
                           "function: grad and value_and_grad are supported there (without "
                           "has_aux)", "transformed function call")
        return derived

    def transform_of(self, node):
        """The transformation object `jitad.grad(f, wrt=1)` (`jitad.grad(jitad.grad(f))`)
        written here makes, or None when `node` is no such call."""
        from ..differentiable import is_transform_class, made_transform
        cls = self.resolve_func(node.func)
        if not is_transform_class(cls) or not node.args:
            return None
        what = f"jitad.{cls.__name__}(...)"
        f = self.transform_of(node.args[0]) if isinstance(node.args[0], gast.Call) \
            else self.resolve_func(node.args[0])
        if f is None or f is MISSING or not (is_user_helper(f) or is_transform_class(type(f))):
            self.err(node.args[0], f"{what} called inside a transformed function takes a "
                                   "function defined with def (a global or an enclosing "
                                   "function's name), not an expression",
                     "transformed function call")
        rest = tuple(static_value(a, self.resolve_func) for a in node.args[1:])
        kw = tuple((k.arg, static_value(k.value, self.resolve_func)) for k in node.keywords)
        if MISSING in rest or any(v is MISSING or k is None for k, v in kw):
            self.err(node, f"{what} called inside a transformed function takes constant "
                           "arguments after the function (wrt=1, wrt=('x', 'w'))",
                     "transformed function call")
        try:
            return made_transform(cls, f, rest, kw)
        except UnsupportedError:
            raise
        except JitadError as e:
            self.err(node, e.message, "transformed function call")

    def call(self, node, hint, dest):
        node = self.sequence_arguments(node)
        if isinstance(node.func, gast.Name) and node.func.id in self.nested:
            return self.nested_call(node, hint, dest)
        prod = self.shape_call(node, hint, dest)        # np.prod(s) of a shape
        if prod is not None:
            return prod
        kw = {k.arg: k.value for k in node.keywords}
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "outer" \
                and isinstance(self.resolve_func(func.value), np.ufunc):
            return self.ufunc_outer(node, self.resolve_func(func.value), kw, hint, dest)
        if isinstance(func, gast.Attribute) and func.attr in ("reduce", "accumulate") \
                and len(node.args) <= 2 and not any(k.arg is None for k in node.keywords) \
                and isinstance(self.resolve_func(func.value), np.ufunc):
            target = UFUNC_REDUCTIONS.get((self.resolve_func(func.value), func.attr))
            if target is not None:      # np.add.reduce(x, axis=1): np.sum(x, axis=1)
                name = self.namer.fresh("np")
                self.introduced[name] = target
                kws = list(node.keywords)
                if len(node.args) < 2 and "axis" not in kw:
                    kws.append(gast.keyword("axis", gast.copy_location(gast.Constant(0, None),
                                                                         node)))
                call = gast.Call(gast.Name(name, gast.Load(), None, None), list(node.args), kws)
                return self.call(gast.copy_location(call, node), hint, dest)
        decided = self.static_str_method(node)      # key.startswith("w") of a constant key
        if decided is not None:
            return decided
        if isinstance(func, gast.Attribute) and func.attr == "get" \
                and isinstance(self.struct_of(func.value), Struct):
            return self.struct_value(node)          # p.get("W") of a dict structure
        if isinstance(func, gast.Attribute):       # p.energy(x) of a record (`records`)
            base = self.struct_of(func.value)
            if isinstance(base, Struct) and base.cls is not None \
                    and records.method(base.cls, func.attr) is not None:
                return self.record_method(node, base, kw, hint, dest)
        # methods on local arrays: x.reshape(...), x.sum(axis=0), ...
        if isinstance(func, gast.Attribute) and self.resolve_func(func) is MISSING:
            if func.attr in FUNCTION_METHODS:     # x.take(idx): np.take(x, idx)
                name = self.namer.fresh("np")
                self.introduced[name] = FUNCTION_METHODS[func.attr]
                call = gast.Call(gast.Name(name, gast.Load(), None, None), [func.value] + node.args,
                                 node.keywords)
                return self.call(gast.copy_location(call, node), hint, dest)
            if func.attr not in METHODS:
                if callable(getattr(np.ndarray, func.attr, None)) and func.attr[:1] != "_":
                    # an array method with no rule: run as it is, unless a derivative would
                    # have to go through it (`opaque`)
                    return self.opaque_call(node, f".{func.attr}", f".{func.attr}()",
                                            [func.value] + list(node.args), kw, hint, dest)
                owner = func.value.id if isinstance(func.value, gast.Name) \
                    and func.value.id not in self.locals else None
                if owner is not None and inspect.ismethod(
                        getattr(self.cap.resolve(owner), func.attr, None)):
                    self.err(node, f"{owner}.{func.attr}() calls a method of an object: jitad "
                                   "differentiates functions of arrays and numbers; "
                                   f"differentiate the method itself (jitad.grad({owner}."
                                   f"{func.attr})) or call a function of its attributes",
                             f".{func.attr}()")
                if isinstance(func.value, gast.Call):
                    # Python evaluates the receiver first: its refusal (an object made by a
                    # class, `Stepper(0.1).run(x)`) is the one to report
                    self.expr(func.value, hint)
                self.err(node, f"method .{func.attr}() is not supported", f".{func.attr}()")
            prim, args = get(METHODS[func.attr]), list(node.args)
            if prim is ASTYPE and args and "dtype" not in kw:     # x.astype(np.float32)
                kw["dtype"], args = args[0], args[1:]
            if not prim.differentiable:         # x.argmax(axis=1): any form Numba compiles
                return self.ruleless_form(node, prim, f".{func.attr}", f".{func.attr}()",
                                          [func.value], args, kw, hint, dest)
            recv = self.expr(func.value, hint)
            if prim is CLIP:
                return self.clip(node, [recv], args, kw, hint, dest)
            return self.prim_call(node, prim, [recv], args, kw, hint, dest)
        obj = self.resolve_func(func)
        if obj is len and len(node.args) == 1 and isinstance(node.args[0], gast.Tuple) \
                and not any(isinstance(e, gast.Starred) for e in node.args[0].elts):
            return Const(len(node.args[0].elts))    # len((a, b, c)), a tuple written in
        if obj is len and len(node.args) == 1 and self.struct_of(node.args[0]) is not None:
            n = self.static_of(node)               # len(params)
            if n is not MISSING:
                return Const(n)
        callee = self.user_callee(func)
        if callee is None and obj is np.take and (
                "axis" in kw or len(node.args) > 2
                or len(node.args) == 2 and isinstance(node.args[1], (gast.List, gast.Tuple))):
            # an axis, or indices written out (a list is no argument of `prelude.take`)
            return self.take_along(node, kw, hint, dest)
        if callee is None and obj is not MISSING:
            # np.ptp(x): NumPy defined by NumPy
            callee = prelude.definition(obj, len(node.args), kw)
        if callee is not None:
            if prelude.is_definition(callee):
                node, kw = self.index_lists_as_arrays(node, kw, hint)
            callee, args = self.helper_args(node, callee, kw, hint)
            self.callees[id(callee)] = callee
            target = dest(def_name(callee))
            self.emit(Bind((target,), CALL, args, self.cap.loc(node), callee=callee))
            return Var(target)
        if obj is reversed:
            self.err(node, "reversed() is supported as what a for loop (or a comprehension) runs "
                           "over: for t in reversed(range(n)), for x in reversed(xs)",
                     "reversed()")
        if obj is np.bincount and (len(node.args) > 1 or "weights" in kw):
            weighted = self.bincount(node, kw, hint, dest)
            if weighted is not None:
                return weighted
        if obj is np.diff and (kw or len(node.args) > 1):
            return self.diff(node, kw, hint, dest)
        if obj is np.trace and (kw or len(node.args) > 1):
            return self.trace_offset(node, kw, hint, dest)
        if obj is np.select:
            return self.select(node, kw, hint, dest)
        listed = self.list_call(node, obj, kw, hint, dest)
        if listed is not None:
            return listed
        if obj in (np.float64, np.float32, np.int64) and len(node.args) == 1 and not kw:
            # np.float64(x): x in that dtype (a number or an array), as x.astype would give --
            # but an array already of that dtype is given back itself (`copy=False`: an alias
            # for the write rules, `analysis.makes_view`)
            return self.bind(node, dest("astype"), ASTYPE, (self.array_arg(node.args[0], hint),),
                             statics={"dtype": f"np.{obj.__name__}", "copy": False})
        if obj in (builtins.sum, builtins.max, builtins.min, builtins.round):
            folded = self.builtin_call(node, obj, kw, hint, dest)
            if folded is not None:
                return folded
        if obj is np.concatenate or obj in STACKS:
            return self.concat(node, obj, kw, hint, dest)
        if obj is np.append:
            return self.append_call(node, kw, hint, dest)
        if obj is np.gradient:
            return self.gradient_call(node, None, hint, dest)
        if obj is range:        # range(n) as a value (P[range(n), labels]): its integers
            obj = np.arange
        if obj in (builtins.any, builtins.all) and len(node.args) == 1 and not kw:
            # any(v > 1.0 for v in x), all(flags): np.any/np.all of the values (on a rank-2
            # array Python's raises, NumPy's answers)
            obj = np.any if obj is builtins.any else np.all
        if obj is not MISSING and lookup_callable(obj) is TILE:   # np.tile, rt.tile1 read again
            counted = self.tile_counts(node, kw, hint, dest)
            if counted is not None:
                return counted
        if obj is np.where and len(node.args) == 1 and not kw:
            obj = np.nonzero    # np.where(c) is np.nonzero(c), as NumPy documents
        prim = lookup_callable(obj) if obj is not MISSING else None
        if prim is None:
            what = describe(func)
            if obj is MISSING and isinstance(func, gast.Name) and func.id not in self.locals:
                self.err(func, f"name '{func.id}' is not defined", "undefined name")
            if _draws_random(obj):
                self.err(node, f"{what[:-2]} draws random numbers inside the function: draw them "
                               "outside (eps = np.random.default_rng(0).normal(size=n)) and "
                               "pass them as an argument, as fixed noise", f"call to {what}")
            if isinstance(func, gast.Call):
                made = describe(func.func)
                made = f"{made[:-2]}(...)" if made.endswith("()") else "a call"
                self.err(node, f"calling the function {made} returns is not supported: call "
                               "a helper that takes those values as arguments, or give jitad "
                               f"the returned function itself (jitad.grad({made}) outside); "
                               "jitad.grad(f)(x) and jitad.jacfwd/jacrev/hessian of a named "
                               "function are", "call of a call")
            code = opaque.code_spelling(obj) if obj is not MISSING else None
            if code is not None and not isinstance(obj, type):
                # a NumPy or math function with no rule: run as it is, unless a derivative
                # would have to go through it (`opaque`)
                return self.opaque_call(node, code, what, list(node.args), kw, hint, dest)
            spelled = what[:-2] if what.endswith("()") else what
            why = refusal_for(obj) if obj is not MISSING else None
            if why is not None:
                self.err(node, f"{spelled}: {why}", f"call to {what}")
            if records.is_record(obj):
                self.err(node, f"{spelled}(...) makes an object of the class {obj.__name__} "
                               "where jitad cannot hold it: a NamedTuple or dataclass object "
                               "made in the function is assigned to a name, passed to a "
                               "helper or read by its fields (a list holds arrays and "
                               "numbers, a function returns them)", f"call to {what}")
            if isinstance(obj, type) and not (obj.__module__ or "").split(".")[0] in (
                    "builtins", "numpy", "scipy", "math", "collections"):
                self.err(node, f"{spelled}(...) makes an object of the class {obj.__name__}: jitad "
                               "differentiates functions of arrays and numbers; make the "
                               "object outside and differentiate its method "
                               f"(jitad.grad(obj.method))", f"call to {what}")
            if obj is isinstance:
                self.err(node, "isinstance() is decided when jitad compiles, of a parameter "
                               "the function never assigns and a type its kind answers "
                               "(np.ndarray, float, int, bool, complex ...)", "isinstance()")
            if obj is not MISSING and getattr(builtins, getattr(obj, "__name__", ""), None) is obj:
                self.err(node, f"the builtin {obj.__name__}() is not supported; jitad reads the "
                               f"builtins {', '.join(_BUILTINS)} (see docs/language.md)",
                         f"call to {what}")
            self.err(node, f"{spelled} has no derivative rule in jitad (see jitad.defvjp to "
                           "add one)", f"call to {what}")
        if prim is CLIP:
            return self.clip(node, [], list(node.args), kw, hint, dest)
        code = opaque.code_spelling(obj)
        if not prim.differentiable and code is not None:
            return self.ruleless_form(node, prim, code, describe(func), [], list(node.args), kw,
                                      hint, dest)
        return self.prim_call(node, prim, [], node.args, kw, hint, dest)

    def sequence_arguments(self, node):
        """A call with `**opts` of a dict structure: its keys given by name (`f(x, a=opts["a"],
        ...)`); a library call given a tuple structure whole (`np.stack(xs)`, `sum(xs)`,
        `np.concatenate(parts)` of a tuple argument or a helper's `*xs`): the tuple written
        out (`np.stack((xs[0], xs[1]))`), as for a tuple local (`tuple_values`) -- a user
        helper takes the structure itself. `node` itself when neither applies."""
        if not isinstance(node, gast.Call):
            return node
        keywords, changed = [], False
        for k in node.keywords:     # f(x, **opts) of a dict structure: its keys by name
            if k.arg is None:
                s = self.struct_of(k.value) if isinstance(
                    k.value, (gast.Name, gast.Attribute, gast.Subscript)) else None
                if not (isinstance(s, Struct) and s.kind == "dict"):
                    self.err(node, "**kwargs in a call: jitad expands a dict argument, a local "
                                   "dict or a helper's **kwargs (keys known when it compiles)",
                             "**kwargs in a call")
                keywords += [gast.keyword(key, gast.copy_location(gast.Subscript(
                    k.value, gast.copy_location(gast.Constant(key, None), k.value), gast.Load()),
                    k.value)) for key in s.keys]
                changed = True
            else:
                keywords.append(k)
        obj = self.resolve_func(node.func)
        if obj is MISSING or obj in (isinstance, len):
            return gast.copy_location(gast.Call(node.func, node.args, keywords), node) \
                if changed else node
        spread = self.user_callee(node.func) is None and obj not in (
            zip, enumerate, reversed, list, tuple, sorted)
        args = []
        for a in node.args:
            s = self.struct_of(a) if isinstance(a, (gast.Name, gast.Attribute,
                                                    gast.Subscript)) else None
            if spread and isinstance(s, Struct) and s.kind == "seq" and (
                    s.cls is None or records.is_sequence(s.cls)):
                a = gast.copy_location(gast.Tuple([gast.copy_location(gast.Subscript(
                    a, gast.copy_location(gast.Constant(k, None), a), gast.Load()), a)
                    for k in range(len(s.items))], gast.Load()), a)
                changed = True
            args.append(a)
        return gast.copy_location(gast.Call(node.func, args, keywords), node) \
            if changed else node

    def pass_star(self, node, param, extra, hint, out, forms):
        """A helper's `*args` (`def h(*xs)`) given the call's extra positional arguments (a
        list of nodes), or its `**kwargs` given the extra keyword arguments (a dict): the
        tuple (dict) of them, as a structure argument (its arrays and numbers passed one by
        one, the helper specialized on its length, its keys), marked given (`fence`)."""
        items = []
        for a in extra.values() if isinstance(extra, dict) else extra:
            s = self.struct_of(a, literal=True)
            if s is None and isinstance(static_value(a, self.resolve_func), str):
                s = Const(static_value(a, self.resolve_func))     # kind="leaky": a constant
            items.append(s if s is not None else self.expr(a, hint))
        s = Struct("dict", items, tuple(extra)) if isinstance(extra, dict) else \
            Struct("seq", items)
        forms.append((param.name, ("struct", s.form())))
        forms.append(("*", ("varkw" if isinstance(extra, dict) else "varargs", param.name)))
        out.extend(a for a in s.leaves() if not (isinstance(a, Const) and (
            a.value is None or isinstance(a.value, str))))

    def record_method(self, node, base, kw, hint, dest):
        """`p.energy(x)` of a record `p` (an argument, or made here): the class's function
        called as a helper with the record as its first argument (none for a static method),
        specialized on the record's structure, so `self.k` and `self.other(x)` inside it read
        its fields and call its methods."""
        fn, takes_self = records.method(base.cls, node.func.attr)
        if not is_user_helper(fn):
            self.err(node, f"{base.cls.__name__}.{node.func.attr} is not a function jitad can "
                           "read", f".{node.func.attr}()")
        args = ([node.func.value] if takes_self else []) + list(node.args)
        call = gast.copy_location(gast.Call(node.func, args, node.keywords), node)
        callee, atoms = self.helper_args(call, fn, kw, hint)
        self.callees[id(callee)] = callee
        target = dest(def_name(callee))
        self.emit(Bind((target,), CALL, atoms, self.cap.loc(node), callee=callee))
        return Var(target)

    def index_lists_as_arrays(self, node, kw, hint):
        """A call of a `prelude` definition with integers written out as an argument
        (`np.delete(x, [0, -1])`): that argument is the integer array NumPy reads (as eager
        mode hands it), in a fresh local, never a tuple of indices."""
        def as_array(a):
            if not isinstance(a, (gast.List, gast.Tuple)) or not int_constants(a):
                return a
            t = self.namer.fresh(f"{hint}_idx")
            self.locals.add(t)
            self.stack(a, hint, lambda op: t, integers=True)
            return gast.copy_location(gast.Name(t, gast.Load(), None, None), a)
        node = gast.copy_location(gast.Call(node.func, [as_array(a) for a in node.args],
                                            node.keywords), node)
        return node, {k: as_array(v) for k, v in kw.items()}

    def tile_counts(self, node, kw, hint, dest):
        """np.tile(x, n) and np.tile(x, (n, m)) whose counts are not constants (`X.shape[0]`,
        an argument): `tile_n`/`tile_nm` with the counts as integer operands (the result's
        rank is known from how many there are); None for constant reps (the `tile` rule)."""
        args = list(node.args)
        reps = args[1] if len(args) == 2 and not kw else kw.get("reps") \
            if len(args) == 1 and set(kw) == {"reps"} else None
        if reps is None or static_value(reps, self.resolve_func) is not MISSING:
            return None
        parts = reps.elts if isinstance(reps, (gast.Tuple, gast.List)) else [reps]
        if not 1 <= len(parts) <= 2:
            return None
        x = self.expr(args[0], hint)
        counts = tuple(self.expr(p, hint) for p in parts)
        return self.bind(node, dest("tile"), get("tile_n" if len(parts) == 1 else "tile_nm"),
                         (x,) + counts)

    def ruleless_form(self, node, prim, target, spelled, pre, args, kw, hint, dest):
        """A call of a primitive with no derivative (np.argmax, x.any()) in the forms its rule
        reads; any other form (`x.argmax(axis=1)`) is the library call without a rule it is
        (`opaque`): its result is never differentiated either."""
        start, saved_kw = len(self.out), dict(kw)
        try:
            recv = [self.expr(p, hint) for p in pre]
            return self.prim_call(node, prim, recv, args, kw, hint, dest)
        except UnsupportedError:
            del self.out[start:]
            return self.opaque_call(node, target, spelled, pre + args, saved_kw, hint, dest)

    def call_statement(self, stmt):
        """A call for its effect: `hs.append(h)`, `np.fill_diagonal(A, v)`, or a primitive
        that only checks (`rt.check_len(...)`, in generated code read again); nothing else."""
        call = stmt.value
        if isinstance(call.func, gast.Attribute) and call.func.attr == "append":
            return self.append(stmt)
        func = self.resolve_func(call.func)
        if func is np.fill_diagonal:
            return self.fill_diagonal(stmt, call)
        prim = lookup_callable(func) if func is not MISSING else None
        if prim is not None and prim.effect:    # a check jitad's code makes (read again)
            self.expr(call, "checked")
            return
        if prim is ADD_AT:                      # np.add.at(a, idx, v), np.subtract.at
            return self.ufunc_at(stmt, call, negate=func.__self__ is np.subtract)
        if isinstance(call.func, gast.Attribute) and call.func.attr in ("at", "reduceat") \
                and isinstance(self.resolve_func(call.func.value), np.ufunc):
            self.err(stmt, f"{describe(call.func).removesuffix('()')} is not supported (np.add.at "
                           "and np.subtract.at are)", describe(call.func))
        what = describe(call.func)
        self.err(stmt, "expression statements have no effect jitad can use (calls for their "
                       f"side effects are not supported: {what} here; assign the result of a "
                       "call that returns one)", "Expr")

    def helper_args(self, node, callee, kw, hint):
        """(callee, arguments) of a helper call: its arguments in the order of its parameters,
        as Python binds them (keyword arguments put in place, a left-out parameter given its
        default); a structure passed as its elements and a constant the helper needs fixed
        given to the callee (`StructArgs.pass_arg`: then the callee is a `Specialized`)."""
        if any(isinstance(a, gast.Starred) for a in node.args):
            self.err(node, "*args in a call is not supported")
        derived, callee = (callee, callee.base_function) \
            if hasattr(callee, "function_for") else (None, callee)
        try:
            params = list(inspect.signature(callee).parameters.values())
        except (TypeError, ValueError):
            self.err(node, f"cannot read the parameters of {callee.__name__}")
        star = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
        star_star = next((p for p in params if p.kind is p.VAR_KEYWORD), None)
        if (star is not None and capture(callee).star != star.name) or (
                star_star is not None and capture(callee).star_star != star_star.name):
            self.err(node, f"{callee.__name__}'s parameters: jitad reads *args and **kwargs "
                           "after plain parameters (not positional-only ones; **kwargs with "
                           "no keyword-only ones)")
        # keyword-only parameters come last (`capture` made them plain ones), given by keyword;
        # *args takes the positional arguments after the others, as a tuple (`pass_star`)
        npos = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        if len(node.args) > npos and star is None:
            self.err(node, f"{callee.__name__}() takes {npos} positional arguments, "
                           f"got {len(node.args)}")
        out, forms = [], []
        for p, a in zip(params, node.args[:npos]):
            self.pass_arg(node, callee, p, a, None, hint, out, forms)
        for p in params[min(len(node.args), npos):]:
            if p is star:
                self.pass_star(node, p, node.args[npos:], hint, out, forms)
            elif p is star_star:
                self.pass_star(node, p, kw, hint, out, forms)
                kw = {}
            elif p.name in kw:
                self.pass_arg(node, callee, p, kw.pop(p.name), None, hint, out, forms)
            elif p.default is inspect.Parameter.empty:
                self.err(node, f"{callee.__name__}() is missing its argument {p.name!r}")
            else:
                self.pass_arg(node, callee, p, None, p.default, hint, out, forms)
        if kw:
            name = next(iter(kw))
            self.err(node, f"{callee.__name__}() got an unexpected or repeated keyword "
                           f"argument {name!r}")
        for h in capture(callee).hidden:    # the arrays it reads: this function's parameters
            mine = self.cap.hidden_param(h)
            if mine is None:
                self.err(node, f"{callee.__name__}() reads the array '{h.name}' (a global or "
                               "closure variable), which jitad passes to it as a hidden "
                               "parameter; a nested function with a variable of that name "
                               f"cannot pass it on: pass '{h.name}' to {callee.__name__} as "
                               "an argument", "captured array in a nested function's helper")
            p = inspect.Parameter(h.param, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            arg = gast.copy_location(gast.Name(mine, gast.Load(), None, None), node)
            self.pass_arg(node, callee, p, arg, None, hint, out, forms)
        if derived is not None:
            if forms:       # a structure or a constant f needs fixed: f's front end for it
                name, form = forms[0]
                given = "the constant" if form[0] == "const" else "a tuple, list or dict"
                self.err(node, f"{derived.__name__} is called here with {given} for {name!r}: "
                               "a transformed function called inside another takes arrays and "
                               "numbers (call f's own helper with them, or differentiate f "
                               "there)", "transformed function call")
            return derived, tuple(out)
        return (specialized(callee, tuple(forms)) if forms else callee), tuple(out)

    def shape_atom(self, node, hint):
        named = self.constant_shape(node)       # reshape(SHAPE): a module-level shape
        if named is not None:
            return named
        if isinstance(node, gast.Tuple):
            return TupleA(tuple(self.expr(e, hint) for e in node.elts))
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            arr = self.expr(node.value, hint)
            return self.bind(node, self.temp(hint, "shape"), SHAPE_OF, (arr,))
        return self.expr(node, hint)

    def attribute(self, node, hint, dest):
        obj = self.resolve_func(node)
        if obj is not MISSING:
            if isinstance(obj, numbers.Real):
                return Const(float(obj) if not isinstance(obj, numbers.Integral) else int(obj))
            self.err(node, f"{describe(node)} cannot be used as a value here")
        limit = self.machine_limit(node)
        if limit is not None:
            return limit
        recv = self.expr(node.value, hint)
        if node.attr == "T":
            return self.bind(node, dest("transpose"), TRANSPOSE, (recv,))
        if node.attr in ("size", "ndim"):
            return self.bind(node, dest(node.attr), get(node.attr), (recv,))
        if node.attr in ("real", "imag"):        # z.real, z.imag: np.real(z), np.imag(z)
            return self.bind(node, dest(node.attr), get(f"np.{node.attr}"), (recv,))
        if node.attr == "shape":                # a shape as a value (`shape_values`)
            return self.shape_value(node, hint, dest)
        if node.attr == "dtype":
            self.err(node, ".dtype is read when jitad compiles, of a parameter the function "
                           "never assigns (x.dtype of a local: name the dtype)", ".dtype")
        self.err(node, f"attribute .{node.attr} is not supported", f".{node.attr}")

    def machine_limit(self, node):
        """`np.finfo(np.float64).eps`, `np.iinfo(np.int64).max` ... of a dtype written in the
        source (`float`, `np.float32`, "float64"): the constant NumPy gives; else None."""
        call = node.value
        if not (isinstance(call, gast.Call) and len(call.args) == 1 and not call.keywords):
            return None
        info = self.resolve_func(call.func)
        if info is not np.finfo and info is not np.iinfo:
            return None
        arg = call.args[0]
        dtype = arg.value if isinstance(arg, gast.Constant) else self.resolve_func(arg)
        if dtype is MISSING and isinstance(arg, gast.Name) and arg.id in ("float", "int"):
            dtype = {"float": float, "int": int}[arg.id]
        try:
            value = getattr(info(dtype), node.attr)
        except (TypeError, ValueError, AttributeError):
            return None
        if isinstance(value, (np.floating, float)):
            return Const(float(value))
        if isinstance(value, (np.integer, int)):
            return Const(int(value))
        return None

    def index(self, sl, hint):
        parts = sl.elts if isinstance(sl, gast.Tuple) else [sl]
        out = []
        for p in parts:
            sl = self.slice_in_index(p, hint)
            if sl is not None:              # Q[:, sl], x[slice(a, b)]: a slice object
                out.append(sl)
            elif isinstance(p, gast.Slice):
                out.append(Slice(*(None if e is None else self.expr(e, hint)
                                   for e in (p.lower, p.upper, p.step))))
            elif isinstance(p, gast.Constant) and p.value is None:
                self.err(p, "np.newaxis / None indexing is not supported (use reshape)")
            elif isinstance(p, gast.Call) and self.parts_of(p) is not None:
                # L[np.tril_indices(d)]: the tuple's arrays are the index
                parts = self.parts_of(p)
                operands, statics = self.parts_call(p, parts, hint)
                out += [self.bind(p, self.temp(hint, part), part, operands, statics=statics)
                        for part in parts]
            elif isinstance(p, gast.List) and p.elts and all(
                    type(static_value(e, self.resolve_func)) is int for e in p.elts):
                # P[[0, 2]], P[[2, -1]]: the integer array NumPy reads
                out.append(self.stack(p, hint, lambda op: self.temp(hint, op), integers=True))
            elif (isinstance(p, gast.Call) and self.resolve_func(p.func) in (np.array, np.asarray)
                  and len(p.args) == 1 and not p.keywords and int_constants(p.args[0])):
                # P[np.array([0, 2])]: integers too, as NumPy makes them
                out.append(self.stack(p.args[0], hint, lambda op: self.temp(hint, op),
                                      integers=True))
            elif self.is_list_node(p) or self.is_list_slice(p):
                out.append(self.array_arg(p, hint))     # P[idx] of a list: as NumPy reads it
            else:
                out.append(self.expr(p, hint))
        return tuple(out)

    def subscript_parts(self, node):
        if not isinstance(node.value, gast.Name):
            self.err(node, "only `name[index] = value` writes are supported")
        arr = node.value.id
        if arr in self.structs:                 # W[0] = v, W an element of a tuple argument
            arr = self.struct_value(node.value).name
        elif arr not in self.locals:            # COUNT[0] += 1 of a global list
            obj = self.cap.resolve(arr)
            kind = type(obj).__name__ if obj is not MISSING else "name"
            self.err(node, f"'{arr}' is a global or closure {kind}: a differentiated function "
                           f"cannot change it in place (return the new value, or keep "
                           f"the bookkeeping outside the function)", "write into a global")
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if len(parts) > 1 and any(is_ellipsis(p) for p in parts):
            # (a read through `...` moves axes, `new_axes`; a write has no such form; `y[...]`
            # alone is the whole array)
            self.err(node, f"a write through an index with `...` ({arr}[..., k] = v) is not "
                           f"supported: spell the axes out ({arr}[:, k] = v)", "ellipsis write")
        if is_ellipsis(node.slice):     # y[...] = v: the whole array, as y[:] = v writes it
            return arr, (Slice(None, None, None),)
        return arr, self.index(node.slice, arr)


# Packages whose functions are never user helpers, wherever they are installed (jitad itself
# and NumPy may be editable installs outside site-packages).
def _draws_random(obj) -> bool:
    """Whether a called object is NumPy's random machinery (`np.random.default_rng`,
    `np.random.normal`, a Generator's method)."""
    owner = getattr(obj, "__self__", None)
    return (getattr(obj, "__module__", None) or "").startswith("numpy.random") or isinstance(
        owner, (np.random.RandomState, np.random.Generator))


def _stored_names(stmts) -> set:
    """Names the statements assign (at any depth)."""
    return {n.id for s in stmts for n in gast.walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _appended(stmts) -> set:
    """Names the statements call .append() on (at any depth)."""
    return {n.func.value.id for s in stmts for n in gast.walk(s)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
            and n.func.attr == "append" and isinstance(n.func.value, gast.Name)}


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


def _fold(op, a, b, norm, node):
    if op.impl is None:
        norm.err(node, f"cannot apply {op} to constants")
    try:
        return op.impl(a, b)
    except ZeroDivisionError:
        norm.err(node, "division by zero in a constant expression")


def index_arrays(tree, resolve) -> set:
    """ids of the `np.array([...])` / `np.asarray([...])` calls of integer constants written
    out that are the value of the one assignment of a name read nowhere but as an index
    (`perm = np.array([2, 0, 1])` ... `x[perm]`, `W[:, perm]`, `W[:, perm[0]]`, `x[perm[1:]]`,
    inside an index's arithmetic too: `cuts[y + 1]`),
    or as an index operand of a call (np.take's indices, a primitive's `index_operands`:
    `np.add.at(y, idx, v)`, `np.bincount(idx, weights=w)`), or written out as one: those
    are integer arrays, as
    NumPy makes them; any other such array stays a float array (`np.array([[1, 2], [3, 4]]) @ v`
    is a float product)."""
    stores, calls, as_index, taken = {}, {}, set(), set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Call):
            obj, recv = resolve(node.func), 0
            if obj is MISSING and isinstance(node.func, gast.Attribute) \
                    and node.func.attr in FUNCTION_METHODS:
                obj, recv = FUNCTION_METHODS[node.func.attr], 1     # x.take(idx): np.take's
            for k in _index_positions(obj):
                k -= recv
                arg = node.args[k] if 0 <= k < len(node.args) else None
                if _int_array_call(arg, resolve):
                    taken.add(id(arg))          # np.take(x, np.array([0, 2])): its indices
                elif isinstance(arg, gast.Name):
                    as_index.add(id(arg))       # np.add.at(y, idx, v)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and _int_array_call(node.value, resolve):
            calls[node.targets[0].id] = node.value
        elif isinstance(node, gast.Subscript):
            # x[idx], x[:, idx[2]] (an entry of idx read as an index), x[idx + 1]: a name
            # anywhere in an index (`cuts[y + 1]`) gives it an index's values
            as_index.update(id(n) for n in gast.walk(node.slice) if isinstance(n, gast.Name))
    loads = {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            loads.setdefault(node.id, []).append(id(node) in as_index)
    return taken | {id(call) for name, call in calls.items()
                    if stores.get(name) == 1 and loads.get(name) and all(loads[name])}


def _index_positions(obj) -> tuple:
    """The positions of a call's index operands (`Primitive.index_operands`): of the primitive
    the callable means, or of the one library.py makes of it (np.bincount with weights=;
    np.take(a, idx): a subscript)."""
    if obj is np.take:
        return (1,)
    prim = lookup_callable(obj) if obj is not MISSING else None
    if prim is None and obj is np.bincount:
        prim = get("bincount_weights")
    if prim is None:
        return ()
    return tuple(prim.params.index(n) for n in prim.index_operands)


def _int_array_call(node, resolve) -> bool:
    return (isinstance(node, gast.Call) and resolve(node.func) in (np.array, np.asarray)
            and len(node.args) == 1 and not node.keywords and int_constants(node.args[0]))


def normalize(cap: Captured, forms=None) -> ir.Function:
    """The IR of a captured function; `forms` names the parameters given a structure or a
    constant, with it (see `structs`)."""
    return Normalizer(cap, forms).function()


_UNSEEN = object()


def returned_structure(node):
    """(the values, the tree) of a `return`'s expression: a tuple display's values (`return
    loss, acc`: tree None, the values flat as the compiled function returns them), or, where
    the display nests tuple displays or dicts with constant string keys (`return loss,
    {"acc": acc, "n": n}`, `return y, (a, (b, c))`), its leaves depth first and in key order,
    with the tree: the structure as tuples and dicts holding 0 for each leaf
    (`(0, {"acc": 0, "n": 0})`), which `types.rebuild` fills with the returned leaves."""
    def nested(n):
        return isinstance(n, (gast.Tuple, gast.Dict))

    def skeleton(n, out):
        if isinstance(n, gast.Tuple):
            return tuple(skeleton(e, out) for e in n.elts)
        if isinstance(n, gast.Dict):
            return {k.value: skeleton(v, out) for k, v in zip(n.keys, n.values)}
        out.append(n)
        return 0
    if isinstance(node, gast.Tuple) and not any(nested(e) for e in node.elts):
        return list(node.elts), None
    if not nested(node):
        return [node], None
    vals = []
    tree = skeleton(node, vals)
    return vals, tree


def _tuple_arity(fn):
    """n when every `return` of function `fn` (not of functions nested in it) returns a tuple
    display of n values, else None."""
    if hasattr(fn, "function_for"):     # a transformed function called (`higher.called`)
        return fn.arity
    from ..pipeline import cache_of
    preset = cache_of(fn).get("captured")       # a function defined inside, lifted (`nested`)
    if preset is not None:
        fdef = preset.tree
    else:
        try:
            tree = gast.parse(textwrap.dedent(inspect.getsource(fn.__code__)))
        except (OSError, TypeError, SyntaxError):
            return None
        fdef = tree.body[0] if tree.body and isinstance(tree.body[0], gast.FunctionDef) \
            else None
    if fdef is None:
        return None
    sizes = {len(st.value.elts) if isinstance(st.value, gast.Tuple)
             and returned_structure(st.value)[1] is None else None
             for st in own_statements(fdef.body) if isinstance(st, gast.Return)}
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None
