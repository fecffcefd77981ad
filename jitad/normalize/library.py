"""Library calls: how a call of a NumPy/SciPy/math function becomes primitives (the part of
ANF lowering that reads the primitives' call forms).

Takes: the `Normalizer` state (a mixin of it: `expr`, `bind`, `temp`, `err`, `shape_atom`).
Guarantees: a library call with its arguments becomes binds of primitives: arity forms
(`np.arange`), defaults and statics given by position or keyword (`np.expand_dims(x, 1)`,
`ddof=`), the reductions' `axis=` tuples and `keepdims=` (`forms.reduction_steps`, the chain
eager mode builds too), stacks and concatenations of tuples and lists written out, `np.split`
into equal parts or at constant indices, `np.block` (concatenations, `index_tricks`), per-element primitives of a tuple result (`np.linalg.slogdet`), new axes
(`x[:, None]`, `x[..., None]`), `np.<ufunc>.outer(a, b)` (the ufunc of a with b's axes
appended, and b), and indices after `...` (`x[..., 0]`: the trailing axes moved to
the front, indexed, moved back), `np.append` (a concatenation), `np.gradient` (one
`gradient_axis` per axis when unpacked), `np.mgrid[...]`/`np.ogrid[...]` (aranges or linspaces
given their own axes), `np.trace(A, offset=k)` (a diagonal summed),
`scipy.special.logsumexp(x, axis=, keepdims=, b=w)` (`weighted_logsumexp`: log(sum(w * exp(x
- m))) + m of the max m, as scipy computes it; the whole-array form is one primitive), `np.take(a, idx,
axis=k)` (an index on axis k; indices written out are one integer array, also without an
axis: of the flattened array), the builtins that are
folds (`sum` of a tuple written out or an array, `max`/`min` of three or more numbers or
of a tuple written out, `round`), dtypes as types or their names ("float64"). Every argument a primitive does not
take, and every value that must be constant and is not, is a `JitadError` at the call.
Invariants: a constant argument is read from the source (`static_value`), never evaluated;
nothing here depends on the operands' ranks (those are settled where code is generated).
"""
from __future__ import annotations

import ast
import builtins
import copy
import math

import gast
import numpy as np

from ..capture import MISSING
from ..ir import Bind, Const, SetItem, Slice, TupleA
from ..primitives import CONCAT, COPY, GETITEM, get, lookup_callable, opaque, substitute
from ..primitives.forms import HSTACK_AXIS, axes_steps, permute, read_statics, reduction_steps

TRANSPOSE, DIM, LEN, MOVEAXIS = get("transpose"), get("dim"), get("len"), get("np.moveaxis")
OUTER_LEFT = get("outer_left")
TRANSPOSE_AXES, EXPAND_DIMS, CHECK_SPLIT, FLOORDIV, MUL = (
    get(n) for n in ("transpose_axes", "expand_dims", "check_split", "floordiv", "mul"))
STACK_PART, ATLEAST_1D, ATLEAST_2D, ATLEAST_3D, AS_COLUMN = (
    get(n) for n in ("stack_part", "atleast_1d", "atleast_2d", "atleast_3d", "as_column"))
WHERE = get("np.where")
SPLITS = (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit)
# np.hsplit / vsplit / dsplit: np.split along the axis their rank sets (forms.split_front_at)
AXIS_SPLITS = {np.hsplit: "h", np.vsplit: "v", np.dsplit: "d"}
SPLIT_FRONT, SPLIT_BACK = get("split_front"), get("split_back")
STACKS = (np.stack, np.vstack, np.hstack, np.dstack, np.column_stack, np.array, np.asarray)
_DTYPES = {np.float64: "np.float64", np.float32: "np.float32", np.int64: "np.int64",
           float: "np.float64", int: "np.int64", np.bool_: "np.bool_", bool: "np.bool_",
           np.complex128: "np.complex128", complex: "np.complex128"}


class LibraryCalls:
    """The library-call half of `anf.Normalizer` (see the module docstring)."""

    def parts_of(self, call):
        """The per-element primitives of a library call that returns a tuple, or None."""
        obj = self.resolve_func(call.func)
        prim = lookup_callable(obj) if obj is not MISSING else None
        return prim.parts if prim is not None and prim.parts else None

    def parts_call(self, call, parts, hint):
        """(operands, statics) of a call returning a tuple (`np.linalg.slogdet(S)`,
        `np.meshgrid(x, y, indexing="ij")`): the parts share their parameters and statics."""
        first = parts[0]
        kw = {k.arg: k.value for k in call.keywords}
        args = list(call.args)
        for name, a in zip(first.statics, args[len(first.params):]):
            kw.setdefault(name, a)
        args = args[:len(first.params)]
        for name in first.params[len(args):]:      # np.tril_indices(n): k=0
            if name in kw:
                args.append(kw.pop(name))
            elif name in first.defaults:
                args.append(gast.Constant(first.defaults[name], None))
        if set(kw) - set(first.statics) or len(args) != len(first.params):
            self.err(call, f"{describe(call.func)} takes {len(first.params)} argument(s) here"
                     + (f" and {', '.join(n + '=' for n in first.statics)}" if first.statics else ""))
        statics = {n: self.static(kw[n], call, f"{n}=") if n in kw else first.defaults[n]
                   for n in first.statics}
        try:
            statics = read_statics(first, statics)
        except ValueError as e:
            self.err(call, f"{describe(call.func)}: {e}")
        return [self.expr(a, hint) for a in args], statics

    def split(self, node, names, call):
        """a, b, c = np.split(x, 3) (or np.array_split, axis=k): slices along the axis, equal
        for np.split, np.array_split's first n % k one longer (as `lists.split_list`)."""
        fn = self.resolve_func(call.func)
        uneven = fn is np.array_split
        which = AXIS_SPLITS.get(fn)
        kw = {k.arg: k.value for k in call.keywords}
        if len(call.args) != 2 or set(kw) - ({"axis"} if which is None else set()):
            self.err(call, f"np.{fn.__name__}(x, k) takes an array and a constant number of "
                           "sections")
        k = self.static(call.args[1], call, "the number of sections")
        axis = self.static(kw["axis"], call, "axis=") if "axis" in kw else 0
        cuts = split_cuts(k)
        if cuts is not None and len(cuts) + 1 == len(names) and isinstance(axis, int) \
                and not isinstance(axis, bool):
            return self.split_at(node, names, call, fn, cuts, axis)
        if k != len(names) or not isinstance(axis, int) or isinstance(axis, bool):
            self.err(call, f"np.{fn.__name__}(x, {k}) here must make {len(names)} parts along "
                           "a constant axis", f"np.{fn.__name__}")
        arr = self.expr(call.args[0], names[0])
        if which is not None:       # the axis the rank sets, moved to the front (see forms)
            arr = self.bind(node, self.temp(names[0], "front"), SPLIT_FRONT, (arr,),
                            statics={"which": which})
        n = self.bind(node, self.temp(names[0], "dim"), DIM, (arr, Const(axis)))
        if not uneven:
            self.bind(node, self.temp(names[0], "check"), CHECK_SPLIT, (n, Const(k)))
        size = self.bind(node, self.temp(names[0], "size"), FLOORDIV, (n, Const(k)))
        rem = self.bind(node, self.temp(names[0], "rem"), get("mod"), (n, Const(k))) \
            if uneven else None
        if axis < 0:    # counted from the end: slice the axis moved to the front, move it back
            arr = self.bind(node, self.temp(names[0], "moved"), MOVEAXIS, (arr,),
                            statics={"source": (axis,), "destination": (0,)})
        lo = Const(0)
        for j, name in enumerate(names):
            hi = self.bind(node, self.temp(name, "hi"), MUL, (size, Const(j + 1)))
            if uneven:
                hi = self.bind(node, self.temp(name, "hi"), get("add"), (hi, self.bind(
                    node, self.temp(name, "extra"), get("min2"), (Const(j + 1), rem))))
            index = (Slice(lo, hi),) if axis < 0 else (Slice(),) * axis + (Slice(lo, hi),)
            if axis < 0:
                part = self.bind(node, self.temp(name, "part"), GETITEM, (arr,) + index)
                self.bind(node, name, MOVEAXIS, (part,),
                          statics={"source": (0,), "destination": (axis,)})
            elif which is not None:
                part = self.bind(node, self.temp(name, "part"), GETITEM, (arr,) + index)
                self.bind(node, name, SPLIT_BACK, (part,), statics={"which": which})
            else:
                self.bind(node, name, GETITEM, (arr,) + index)
            lo = hi

    def split_at(self, node, names, call, fn, cuts, axis):
        """a, b, c = np.split(x, [i, j], axis=k) (np.array_split and np.hsplit/vsplit/dsplit
        too): the slices between constant indices, as NumPy cuts them (`x[:i]`, `x[i:j]`,
        `x[j:]` along the axis; a negative index counted from the end, as a slice bound)."""
        which = AXIS_SPLITS.get(fn)
        arr = self.expr(call.args[0], names[0])
        if which is not None:       # the axis the rank sets, moved to the front (see forms)
            arr = self.bind(node, self.temp(names[0], "front"), SPLIT_FRONT, (arr,),
                            statics={"which": which})
        elif axis < 0:              # counted from the end: slice it moved to the front
            arr = self.bind(node, self.temp(names[0], "moved"), MOVEAXIS, (arr,),
                            statics={"source": (axis,), "destination": (0,)})
        front = which is not None or axis < 0
        bounds = (None,) + cuts + (None,)
        for j, name in enumerate(names):
            lo, hi = bounds[j], bounds[j + 1]
            cut = Slice(Const(lo) if lo is not None else None,
                        Const(hi) if hi is not None else None)
            index = (cut,) if front else (Slice(),) * axis + (cut,)
            if which is not None:
                part = self.bind(node, self.temp(name, "part"), GETITEM, (arr,) + index)
                self.bind(node, name, SPLIT_BACK, (part,), statics={"which": which})
            elif axis < 0:
                part = self.bind(node, self.temp(name, "part"), GETITEM, (arr,) + index)
                self.bind(node, name, MOVEAXIS, (part,),
                          statics={"source": (0,), "destination": (axis,)})
            else:
                self.bind(node, name, GETITEM, (arr,) + index)

    def diff(self, node, kw, hint, dest):
        """np.diff(x, n, axis=k): n differences of the slices along axis k (an axis counted from
        the end: along the axis moved to the front, moved back)."""
        args = dict(zip(("a", "n", "axis"), node.args))
        for name in ("a", "n", "axis"):
            if name in kw:
                if name in args:
                    self.err(node, f"np.diff got {name} twice")
                args[name] = kw.pop(name)
        if kw or "a" not in args or len(node.args) > 3:
            self.err(node, "np.diff(x, n, axis=k) takes an array and constants n and axis")
        n = self.static(args["n"], node, "n") if "n" in args else 1
        axis = self.static(args["axis"], node, "axis=") if "axis" in args else -1
        if not isinstance(n, int) or n < 0 or not isinstance(axis, int):
            self.err(node, "np.diff's n and axis= are constant integers", "np.diff")
        x = self.array_arg(args["a"], hint)
        if axis < 0:
            x = self.bind(node, self.temp(hint, "moved"), MOVEAXIS, (x,),
                          statics={"source": (axis,), "destination": (0,)})
        k = max(axis, 0)
        for _ in range(n):
            hi = self.bind(node, self.temp(hint, "getitem"), GETITEM,
                           (x,) + (Slice(),) * k + (Slice(Const(1), None),))
            lo = self.bind(node, self.temp(hint, "getitem"), GETITEM,
                           (x,) + (Slice(),) * k + (Slice(None, Const(-1)),))
            x = self.bind(node, self.temp(hint, "sub"), get("sub"), (hi, lo))
        if axis < 0:
            x = self.bind(node, self.temp(hint, "moved"), MOVEAXIS, (x,),
                          statics={"source": (0,), "destination": (axis,)})
        return x

    def trace_offset(self, node, kw, hint, dest):
        """np.trace(A, offset=k): the sum of A's k-th diagonal (np.diagonal)."""
        args, offset = last_argument(node, kw, "offset", 1)
        if len(args) != 1 or kw or offset is None:
            self.err(node, "np.trace(A, offset=k) takes a matrix and an offset (no axis1=, "
                           "axis2=, dtype=)", "np.trace")
        diag = self.bind(node, self.temp(hint, "diagonal"), get("np.diagonal"),
                         (self.array_arg(args[0], hint), self.expr(offset, hint)))
        return self.bind(node, dest("trace"), get("sum"), (diag,))

    def take_along(self, node, kw, hint, dest):
        """np.take(a, idx, axis=k): a[:, ..., idx] with k colons (an axis counted from the end:
        that axis moved to the front, indexed, moved back); without an axis, of the flattened
        array (reached for indices written out: `prelude.take` takes every other form). The
        indices are one index, as NumPy reads them: a list or tuple written out (nested too)
        is an integer array, never a tuple of indices."""
        args, axis_node = last_argument(node, kw, "axis", 2)
        if len(args) != 2 or kw:
            self.err(node, "np.take(a, idx, axis=k) takes an array, the indices and a constant "
                           "axis (no out=, mode=)", "np.take")
        axis = 0 if axis_node is None else self.static(axis_node, node, "axis=")
        if not isinstance(axis, int) or isinstance(axis, bool):
            self.err(node, "np.take's axis= is a constant integer", "np.take")
        a = self.array_arg(args[0], hint)
        if axis_node is None:
            a = self.bind(node, self.temp(hint, "flat"), get("ravel"), (a,))
        if isinstance(args[1], (gast.List, gast.Tuple)):
            idx = self.stack(args[1], hint, lambda op: self.temp(hint, op), integers=True)
        else:
            (idx,) = self.index(args[1], hint)
        if axis >= 0:
            return self.bind(node, dest("take"), GETITEM, (a,) + (Slice(),) * axis + (idx,))
        moved = self.bind(node, self.temp(hint, "moved"), MOVEAXIS, (a,),
                          statics={"source": (axis,), "destination": (0,)})
        part = self.bind(node, self.temp(hint, "take"), GETITEM, (moved, idx))
        return self.bind(node, dest("take"), MOVEAXIS, (part,),
                         statics={"source": (0,), "destination": (axis,)})

    def select(self, node, kw, hint, dest):
        """np.select([c1, c2], [v1, v2], default=d): np.where(c1, v1, np.where(c2, v2, d)),
        the first condition that holds choosing, as NumPy's (default 0)."""
        args = list(node.args)
        if len(args) == 3 and "default" not in kw:
            kw["default"] = args.pop()
        default = kw.pop("default", None)
        if kw or len(args) != 2 or not all(isinstance(a, (gast.List, gast.Tuple)) for a in args) \
                or len(args[0].elts) != len(args[1].elts) or not args[0].elts:
            self.err(node, "np.select takes a list of conditions and a list of as many choices, "
                           "written out (and default=)", "np.select")
        conds = [self.expr(c, hint) for c in args[0].elts]
        choices = [self.expr(v, hint) for v in args[1].elts]
        rest = Const(0.0) if default is None else self.expr(default, hint)
        for k in reversed(range(len(conds))):
            to = dest if k == 0 else (lambda op: self.temp(hint, op))
            rest = self.prim_call(node, WHERE, [conds[k], choices[k], rest], [], {}, hint, to)
        return rest

    def ufunc_outer(self, node, ufunc, kw, hint, dest):
        """np.subtract.outer(a, b) (any two-operand ufunc jitad has a rule for): the ufunc of
        `outer_left(a, b)` -- a with b.ndim axes of length one appended -- and b, so its
        derivatives in both operands are the ufunc's."""
        what = describe(node.func).removesuffix("()")
        prim = lookup_callable(ufunc)
        if ufunc.nin != 2 or prim is None or not prim.elementwise:
            self.err(node, f"{what} is not supported (np.<ufunc>.outer of a two-operand ufunc "
                           "jitad differentiates is: np.subtract.outer, np.multiply.outer ...)",
                     what)
        if kw or len(node.args) != 2:
            self.err(node, f"{what}(a, b) takes two operands (no keyword arguments)", what)
        a, b = (self.array_arg(x, hint) for x in node.args)
        left = self.bind(node, self.temp(hint, "outer"), OUTER_LEFT, (a, b))
        return self.prim_call(node, prim, [left, b], [], {}, hint, dest)

    def fill_diagonal(self, stmt, call):
        """np.fill_diagonal(A, v) on a matrix: the write A[k, k] = v for k < min(A.shape), through
        two index arrays (`rt.put2`), into an array the function created (checked as any write)."""
        kw = {k.arg: k.value for k in call.keywords}
        wrap = self.static(kw.pop("wrap"), call, "wrap=") if "wrap" in kw else False
        if len(call.args) != 2 or kw or wrap or not isinstance(call.args[0], gast.Name):
            self.err(call, "np.fill_diagonal(A, v) takes a matrix the function created and a "
                           "value (no wrap=)", "np.fill_diagonal")
        name = call.args[0].id
        A = self.expr(call.args[0], name)
        n, m = (self.bind(call, self.temp(name, "dim"), DIM, (A, Const(k))) for k in (0, 1))
        k = self.bind(call, self.temp(name, "n"), get("min2"), (n, m))
        diag = self.bind(call, self.temp(name, "arange"), get("arange1"), (k,))
        self.emit(SetItem(name, (diag, diag), self.expr(call.args[1], name), self.cap.loc(stmt)))

    def ufunc_at(self, stmt, call, negate):
        """np.add.at(a, idx, v) (np.subtract.at: v negated) on an array the function created:
        `a = add_at(a, idx, v)`, an in-place update as `a += v` is (`Bind.inplace`: refused
        where another name may share a's buffer); `(rows, cols)` indexes a matrix."""
        kw = {k.arg: k.value for k in call.keywords}
        what = describe(call.func).removesuffix("()")
        if kw or len(call.args) != 3 or not isinstance(call.args[0], gast.Name):
            self.err(call, f"{what}(a, idx, v) takes an array the function created (a name), "
                           "an index and the values", what)
        name = call.args[0].id
        a = self.expr(call.args[0], name)
        idx = call.args[1]
        parts = idx.elts if isinstance(idx, gast.Tuple) else [idx]
        if len(parts) > 2 or any(isinstance(p, gast.Slice) for p in parts):
            self.err(idx, f"{what}(a, idx, v) takes an index array or two (rows, cols)", what)
        index = [self.expr(p, name) for p in parts]
        v = self.array_arg(call.args[2], name)
        if negate:
            v = self.bind(call, self.temp(name, "neg"), get("neg"), (v,))
        prim = get("add_at") if len(index) == 1 else get("add_at2")
        self.emit(Bind((name,), prim, (a, *index, v), self.cap.loc(stmt), inplace=True))

    def clip(self, node, pre, args, kw, hint, dest):
        """np.clip(x, lo, hi) / x.clip(lo, hi), bounds also as `a_min=`/`a_max=` or `min=`/
        `max=`; a bound that is None leaves that side open (np.maximum / np.minimum)."""
        slots = dict(zip(("x", "lo", "hi")[len(pre):], args))
        for k, v in kw.items():
            key = {"a_min": "lo", "min": "lo", "a_max": "hi", "max": "hi"}.get(k)
            if key is None or key in slots:
                self.err(node, f"np.clip takes the array and its two bounds (got {k}=)", "np.clip")
            slots[key] = v
        if len(args) + len(pre) > 3:
            self.err(node, "np.clip takes the array and its two bounds", "np.clip")
        x = pre[0] if pre else self.array_arg(slots["x"], hint)
        lo, hi = (slots.get(k) for k in ("lo", "hi"))
        lo, hi = (None if b is None or static_value(b, self.resolve_func) is None else
                  self.expr(b, hint) for b in (lo, hi))
        if lo is None and hi is None:
            self.err(node, "np.clip needs at least one bound that is not None", "np.clip")
        # one bound: the other infinite, so that x at the bound gets g as with two (bounds
        # included, eager mode's convention too), not np.maximum's half
        lo = Const(-math.inf) if lo is None else lo
        hi = Const(math.inf) if hi is None else hi
        return self.bind(node, dest("np.clip"), get("np.clip"), (x, lo, hi))

    def bincount(self, node, kw, hint, dest):
        """np.bincount(x, weights=w, minlength=n): the weighted counts, differentiable in w;
        None when no weights are given (the counts: a library call without a rule)."""
        args, kw = dict(zip(("x", "weights", "minlength"), node.args)), dict(kw)
        for k in ("x", "weights", "minlength"):
            if k in kw:
                args[k] = kw.pop(k)
        if kw or "x" not in args or len(node.args) > 3:
            self.err(node, "np.bincount(x, weights=w, minlength=n) takes these arguments only")
        w = args.get("weights")
        if w is None or static_value(w, self.resolve_func) is None:
            return None
        x = self.array_arg(args["x"], hint)
        n = self.expr(args["minlength"], hint) if "minlength" in args else Const(0)
        return self.bind(node, dest("bincount"), get("bincount_weights"),
                         (x, self.array_arg(w, hint), n))

    def builtin_call(self, node, fn, kw, hint, dest):
        """The builtins that are folds or spellings of primitives: `sum` of a tuple or list
        written out (`0 + a + b`, Python's order) or of an array (its rows added: np.sum on
        axis 0), with a `start`; `max`/`min` of three or more numbers (np.max of them), and
        of numbers written out as a tuple or list (`min((a, b))`: `min(a, b)`); `round(x, n)`
        (np.round; `round(x)` an integer, as Python's). (`pow(a, b)` is the `pow`
        primitive's own callable.)
        None for any other call."""
        args = list(node.args)
        if fn is builtins.sum:
            args, start = last_argument(node, kw, "start", 1)
            if len(args) != 1 or kw:
                self.err(node, "sum() takes an iterable and a start value", "sum()")
            it = args[0]
            if isinstance(it, (gast.List, gast.Tuple)) and it.elts:
                total = self.expr(it.elts[0], hint)
                rest = it.elts[1:]
            elif isinstance(it, (gast.List, gast.Tuple)):
                total, rest = Const(0), []
            else:
                listed = self.list_call(gast.Call(node.func, [it], []), fn, {}, hint,
                                        lambda op: self.temp(hint, op))
                total = listed if listed is not None else self.reduce(
                    node, get("sum"), self.array_arg(it, hint), 0, False, {}, hint,
                    lambda op: self.temp(hint, op))
                rest = []
            if start is not None and static_value(start, self.resolve_func) != 0:
                total = self.bind(node, self.temp(hint, "add"), get("add"),
                                  (self.expr(start, hint), total))
            for k, e in enumerate(rest):
                last = k == len(rest) - 1
                total = self.bind(node, dest("add") if last else self.temp(hint, "add"),
                                  get("add"), (total, self.expr(e, hint)))
            return total
        if fn in (builtins.max, builtins.min) and len(args) == 1 and not kw \
                and isinstance(args[0], (gast.Tuple, gast.List)) and len(args[0].elts) >= 2:
            # max((a, b)), min([a, b, c]): of the numbers written out, as max(a, b) is
            return self.expr(gast.copy_location(gast.Call(node.func, list(args[0].elts), []),
                                                node), hint)
        if fn in (builtins.max, builtins.min) and len(args) > 2 and not kw:
            # of three or more numbers: np.max of them (ties split evenly, as eager mode's)
            stacked = self.stack(gast.List(args, gast.Load()), hint,
                                 lambda op: self.temp(hint, op))
            return self.reduce(node, get("max" if fn is builtins.max else "min"), stacked, None,
                               False, {}, hint, dest)
        if fn is builtins.round:
            args, digits = last_argument(node, kw, "ndigits", 1)
            if len(args) != 1 or kw:
                self.err(node, "round(x, ndigits) takes a number and a constant", "round()")
            n = 0 if digits is None else self.static(digits, node, "ndigits")
            if not isinstance(n, int) or isinstance(n, bool):
                self.err(node, "round()'s ndigits is a constant integer", "round()")
            r = self.bind(node, self.temp(hint, "round") if digits is None else dest("round"),
                          get("np.round"), (self.expr(args[0], hint),), statics={"decimals": n})
            return r if digits is not None else self.bind(node, dest("int"), get("int"), (r,))
        return None

    def dtype_spelling(self, dtype_node, node):
        """How generated code spells the dtype a call names: a type (np.float64, float, bool,
        np.int64, complex ...) or its name as a string ("float64", "f8", "float")."""
        d = static_value(dtype_node, self.resolve_func) \
            if isinstance(dtype_node, gast.Constant) else self.resolve_func(dtype_node)
        if isinstance(d, str):
            try:
                d = np.dtype(d).type
            except TypeError:
                d = MISSING
        if d not in _DTYPES:
            self.err(node, "dtype must be np.float64, np.float32, np.int64, bool or complex "
                           "(or its name, \"float64\")", "dtype")
        return _DTYPES[d]

    def static(self, value_node, node, what):
        """The compile-time value of a call's constant argument (an int, a tuple of ints, a
        bool, None), or an error naming `what`."""
        v = static_value(lists_as_tuples(value_node), self.resolve_func)
        if v is MISSING:    # a name standing for a constant (an unrolled loop's `for ax in (0, 1)`)
            v = self.static_of(value_node)
        if v is MISSING:
            self.err(node, f"{what} must be a constant here (jitad fixes ranks and axes when it "
                           "compiles)", what)
        return v

    def prim_call(self, node, prim, pre, args, kw, hint, dest):
        statics = {}
        if prim.parts and prim.single_form is not None:     # np.linalg.svd(A, compute_uv=False)
            key, value, single = prim.single_form
            if key in kw and static_value(kw[key], self.resolve_func) is value:
                for name in prim.parts[0].statics:
                    kw.pop(name, None)
                prim = single
        if prim.parts:
            self.err(node, f"{describe(node.func)} returns a tuple: unpack it "
                           "(a, b = ...) or index it with a constant", "tuple result")
        if prim.from_subscripts is not None:      # np.einsum("ij,jk->ik", a, b)
            kw.pop("optimize", None)    # a contraction order: the same result, to rounding
            if kw or pre or not args:
                self.err(node, f"{describe(node.func)} takes the constant subscripts and the "
                               "operands (no keyword arguments)")
            try:
                spec = prim.from_subscripts(self.static(args[0], node, "the subscripts"),
                                            len(args) - 1)
            except ValueError as e:
                self.err(node, f"{describe(node.func)}: {e}")
            operands = tuple(self.expr(a, hint) for a in args[1:])
            return self.bind(node, dest("einsum"), spec, operands)
        if (prim.one_arg_form is not None and min(len(args), prim.positional or len(args)) == 1
                and not set(kw) & set(prim.params)):
            prim = prim.one_arg_form
        if prim.arity_forms is not None:
            n = len(pre) + len(args) + sum(k in ("start", "stop", "step") for k in kw)
            if n not in prim.arity_forms:
                self.err(node, f"{prim} takes 1 to 3 arguments here")
            prim = prim.arity_forms[n]
        keepdims = False
        if "keepdims" in kw:
            keepdims = self.static(kw.pop("keepdims"), node, "keepdims=")
            if prim.axis_form is None:
                self.err(node, f"keepdims= is not supported for {prim}")
        if prim.axis_form is not None:
            # x.sum(1), np.linalg.norm(x, "fro"): arguments after the array, in NumPy's order
            nx = 1 - len(pre)
            if len(args) < nx or len(args) - nx > len(prim.call_order):
                self.err(node, f"{prim} takes one array (and axis=, keepdims=)")
            for name, a in zip(prim.call_order, args[nx:]):
                if name in kw:
                    self.err(node, f"{name} given twice")
                kw[name] = a
            x = pre[0] if pre else self.array_arg(args[0], hint)
            if "dtype" in kw:       # np.sum(x, dtype=np.float64): of x in that dtype
                x = self.bind(node, self.temp(hint, "astype"), get("astype"), (x,),
                              statics={"dtype": self.dtype_spelling(kw.pop("dtype"), node)})
            if "b" in kw and prim.weighted_form is not None:    # logsumexp(x, b=w)
                if set(kw) - {"axis", "b"}:
                    self.err(node, f"{describe(node.func)} with b= takes axis= and keepdims= "
                                   f"(not {sorted(set(kw) - {'axis', 'b'})[0]}=)")
                axis_node = kw.get("axis")
                axis = None if axis_node is None else self.static(axis_node, node, "axis=")
                w = self.array_arg(kw["b"], hint)
                if axis is None and not keepdims:
                    return self.bind(node, dest(prim), prim.weighted_form, (x, w))
                return self.weighted_logsumexp(node, x, w, axis, keepdims, hint, dest)
            axis = None if kw.get("axis") is None else self.static(kw.pop("axis"), node, "axis=")
            kw.pop("axis", None)
            if "keepdims" in kw:      # given by position (call_order)
                keepdims = self.static(kw.pop("keepdims"), node, "keepdims=")
            statics = {k: self.static(kw.pop(k), node, f"{k}=") for k in prim.statics if k in kw}
            if kw:
                self.err(node, f"keyword argument {next(iter(kw))}= is not supported here")
            return self.reduce(node, prim, x, axis, keepdims, statics, hint, dest)
        axis_node = kw.pop("axis", None)
        if prim is TRANSPOSE and (len(args) + len(pre)) > 1:
            axes_nodes = args if pre else args[1:]
            axes = self.static(axes_nodes[0] if len(axes_nodes) == 1 else
                               gast.Tuple(list(axes_nodes), gast.Load()), node, "axes")
            if not (isinstance(axes, tuple) and sorted(a % len(axes) for a in axes) == list(range(len(axes)))):
                self.err(node, "transpose axes must be a permutation of the axes")
            axes = tuple(a % len(axes) for a in axes)
            x = pre[0] if pre else self.array_arg(args[0], hint)
            how, statics = permute(axes)          # x.T when it reverses every axis
            return self.bind(node, dest(prim), how, (x,), statics=statics)
        if axis_node is not None:
            if "axis" not in prim.statics:
                self.err(node, f"axis= is not supported for {prim}")
            kw["axis"] = axis_node
        if prim.from_shape and len(args) == 2 and "dtype" not in kw:
            kw["dtype"], args = args[1], args[:1]
        if "dtype" in kw:
            if "dtype" not in prim.statics:      # (it said "must be np.int64" of np.int64)
                self.err(node, f"dtype= is not supported for {prim}")
            statics["dtype"] = self.dtype_spelling(kw.pop("dtype"), node)
        if prim.from_shape:
            if kw:
                self.err(node, f"keyword argument {next(iter(kw))}= is not supported here")
            statics.setdefault("dtype", "np.float64")
            shape = args[0] if len(args) == 1 else None
            if shape is None:
                self.err(node, f"{prim}() takes the shape (and dtype=)")
            return self.bind(node, dest(prim), prim, (self.shape_atom(shape, hint),), statics=statics)
        if prim.shape_arg:  # x.reshape(3, 4), x.reshape((3, 4)), np.reshape(x, shape)
            if kw:
                self.err(node, f"keyword argument {next(iter(kw))}= is not supported here")
            arr, shape_args = (pre[0], args) if pre else (self.expr(args[0], hint), args[1:])
            if not shape_args:
                self.err(node, "reshape needs the new shape")
            if len(shape_args) == 1:
                shape = self.shape_atom(shape_args[0], hint)
            else:
                shape = TupleA(tuple(self.expr(a, hint) for a in shape_args))
            return self.bind(node, dest(prim), prim, (arr,) + (shape,))
        if prim.static_first:       # solve_banded((l, u), ab, b): constants before the operands
            for name, a in zip(prim.static_first, args):
                if name in kw:
                    self.err(node, f"{name} given twice")
                kw[name] = a
            args = args[len(prim.static_first):]
        # positional arguments past the operands are the statics, in order (np.expand_dims(x, 1))
        nparams = (len(prim.params) if prim.positional is None else prim.positional) - len(pre)
        if len(args) > nparams + len(prim.statics):
            self.err(node, f"{describe(node.func)} takes at most "
                           f"{len(prim.params) + len(prim.statics) - len(pre)} argument(s) here, "
                           f"got {len(args)}")
        for name, a in zip(prim.statics, args[nparams:]):
            kw.setdefault(name, a)
        args = args[:nparams]
        if "dtype" in kw and "dtype" in prim.statics:      # x.astype(np.float32)
            statics["dtype"] = self.dtype_spelling(kw.pop("dtype"), node)
        for name in prim.statics:
            if name in kw and name != "dtype":
                statics[name] = self.static(kw.pop(name), node, f"{name}=")
            elif name in prim.defaults and name not in statics:
                statics[name] = prim.defaults[name]
            elif name not in statics and name != "dtype":
                self.err(node, f"{prim}() needs {name}= here (jitad fixes ranks when it compiles)")
        try:
            chain = axes_steps(prim, statics)   # np.squeeze(x, axis=(1, 2)): one axis a call
            statics = read_statics(prim, statics) if chain is None else chain[-1]
        except ValueError as e:
            self.err(node, f"{describe(node.func)}: {e}")
        slots = list(pre) + [self.operand(a, p, hint) for a, p in zip(args, prim.params[len(pre):])]
        for p in prim.params[len(slots):]:
            if p in kw:
                slots.append(self.operand(kw.pop(p), p, hint))
            elif p in prim.defaults:
                slots.append(Const(prim.defaults[p]))
            else:
                break
        if kw:
            self.err(node, f"keyword argument {next(iter(kw))}= is not supported here")
        if len(slots) != len(prim.params):
            self.err(node, f"{prim} takes {len(prim.params)} argument(s) here, got {len(slots)}")
        operands = slots
        for k, st in enumerate(chain[:-1] if chain else ()):
            operands = [self.bind(node, self.temp(hint, prim), prim, tuple(operands),
                                  statics=st)] + operands[1:]
        if all(isinstance(a, Const) for a in operands) and prim.foldable:
            try:
                return Const(eval(compile(ast_call(prim, operands), "<fold>", "eval"),
                                  {"np": np, "math": math}))
            except Exception:
                pass
        return self.bind(node, dest(prim), prim, tuple(operands), statics=statics)

    def opaque_call(self, node, target, spelled, args, kw, hint, dest):
        """A library call (or array method: `target` `.name`, the receiver first in `args`)
        with no rule: one `opaque.call` primitive for its form -- constants written in the
        source stay in the call (strings, None, dtypes, numbers, tuples of them), everything
        else is an operand (a tuple of variables, `(kh, kw)`, a tuple operand)."""
        if any(isinstance(a, gast.Starred) for a in args) or None in kw:
            self.err(node, "*args and **kwargs in a library call are not supported")
        if "out" in kw:
            self.err(node, f"{spelled} with out= writes into an array: assign its result "
                           "instead", "out=")
        form, operands = [], []
        for keyword, a in [(None, a) for a in args] + list(kw.items()):
            value = static_value(a, self.resolve_func)
            if value is MISSING and isinstance(a, (gast.Name, gast.Attribute)):
                obj = self.resolve_func(a)          # dtype=np.float64, dtype=float
                if obj is not MISSING and isinstance(obj, type) and opaque.is_constant(obj):
                    value = obj
            if value is not MISSING and opaque.is_constant(value) and not (
                    keyword is None and not form and target.startswith(".")):
                form.append((keyword, ("const", value)))
                continue
            if isinstance(a, gast.Tuple):
                operands.append(TupleA(tuple(self.expr(e, hint) for e in a.elts)))
            else:
                operands.append(self.array_arg(a, hint))
            form.append((keyword, "operand"))
        prim = opaque.call(target, spelled, tuple(form))
        return self.bind(node, dest(prim), prim, tuple(operands))

    def operand(self, node, param, hint):
        """One operand of a primitive call; a parameter called `shape` takes a shape."""
        return self.shape_atom(node, hint) if param == "shape" else self.array_arg(node, hint)

    def weighted_logsumexp(self, node, x, w, axis, keepdims, hint, dest):
        """logsumexp(x, axis=a, keepdims=k, b=w) as scipy computes it: log(sum(w * exp(x - m),
        a, k)) + m, m the max of x over a (kept as a dimension inside); m's derivatives cancel
        (the sum's log takes it back out), so the gradient is the weighted softmax's."""
        def op(name, *operands):
            return self.bind(node, self.temp(hint, name), get(name), operands)
        m_prim = get("max")
        m = self.reduce(node, m_prim, x, axis, True, {}, hint, lambda p: self.temp(hint, "max"))
        e = op("mul", w, op("np.exp", op("sub", x, m)))
        s = self.reduce(node, get("sum"), e, axis, keepdims, {}, hint,
                        lambda p: self.temp(hint, "sum"))
        if not keepdims:
            m = self.reduce(node, m_prim, x, axis, False, {}, hint,
                            lambda p: self.temp(hint, "max"))
        out = op("np.log", s)
        return self.bind(node, dest(get("add")), get("add"), (out, m))

    def reduce(self, node, prim, x, axis, keepdims, statics, hint, dest):
        """A reduction over no axis (the whole array), one axis or a tuple of axes, and its
        keepdims=True form: the steps `forms.reduction_steps` gives, each bound in turn."""
        try:
            statics = {**{k: v for k, v in prim.defaults.items() if k in prim.statics},
                       **statics}
            missing = [k for k in prim.statics if k not in statics]
            if missing:     # np.quantile(x): q is required
                raise ValueError(f"{describe(node.func)} needs {missing[0]} here")
            steps = reduction_steps(prim, axis, keepdims, statics)
        except ValueError as e:
            self.err(node, str(e))
        values = [x]
        for k, (p, statics, refs) in enumerate(steps):
            target = dest(prim) if k == len(steps) - 1 else self.temp(hint, p)
            values.append(self.bind(node, target, p, tuple(values[i] for i in refs),
                                    statics=statics))
        return values[-1]

    def concat(self, node, fn, kw, hint, dest):
        """np.concatenate, np.stack, np.vstack, np.hstack, np.dstack, np.column_stack and np.array of a
        tuple or list written out: each part made to the rank the result needs, then one
        concatenation (nested lists in np.array are stacks of stacks)."""
        name = describe(node.func)
        if fn in (np.array, np.asarray) and len(node.args) == 1 \
                and not isinstance(node.args[0], (gast.Tuple, gast.List)):
            # np.asarray(x, dtype=float): the array itself (another name for it, as NumPy
            # gives back an array it need not copy), or its values in the dtype asked for
            dtype = kw.pop("dtype", None)
            if kw:
                self.err(node, f"{name} of an array takes dtype= only", name)
            x = self.array_arg(node.args[0], hint)
            if dtype is None:       # np.array(x) copies: a new array the function may write
                return self.bind(node, dest("copy"), COPY if fn is np.asarray
                                 else get("copy_array"), (x,))
            # (np.asarray gives back an array already of the dtype: `copy=False`, an alias
            # for the write rules; np.array copies it)
            return self.bind(node, dest("astype"), get("astype"), (x,),
                             statics={"dtype": self.dtype_spelling(dtype, node),
                                      **({"copy": False} if fn is np.asarray else {})})
        nargs = len(node.args)
        if nargs == 2 and fn in (np.concatenate, np.stack) and "axis" not in kw:
            kw["axis"], nargs = node.args[1], 1         # np.concatenate((a, b), 1)
        if nargs != 1 or not isinstance(node.args[0], (gast.Tuple, gast.List)):
            self.err(node, f"{name} takes a tuple or list of arrays written out: "
                           f"{name[:-2]}((a, b))", name)
        dtype = kw.pop("dtype", None)
        spelled = None if dtype is None else self.dtype_spelling(dtype, node)
        integers = ((spelled == "np.int64" or id(node) in self.int_arrays)
                    and int_constants(node.args[0]))
        if spelled is not None and (fn not in (np.array, np.asarray)
                                    or spelled != "np.float64" and not integers):
            self.err(node, "dtype= is only supported as np.array(..., dtype=float), or "
                           "dtype=int of integers written out")
        axis = self.static(kw.pop("axis"), node, "axis=") if "axis" in kw else 0
        if kw or not isinstance(axis, int) or isinstance(axis, bool):
            self.err(node, f"{name} takes only a constant integer axis=")
        if fn in (np.array, np.asarray):
            return self.stack(node.args[0], hint, dest, integers)
        wrap = {np.stack: STACK_PART, np.vstack: ATLEAST_2D, np.hstack: ATLEAST_1D,
                np.dstack: ATLEAST_3D, np.column_stack: AS_COLUMN}.get(fn)
        parts = []
        for e in node.args[0].elts:
            # np.concatenate(([0.0], u, [0.0])): a list written out is an array
            a = (self.stack(e, hint, lambda op: self.temp(hint, op))
                 if isinstance(e, (gast.List, gast.Tuple)) else self.expr(e, hint))
            if wrap is not None:
                a = self.bind(e, self.temp(hint, wrap), wrap, (a,),
                              statics={"axis": axis} if wrap is STACK_PART else {})
            parts.append(a)
        axis = {np.vstack: 0, np.hstack: HSTACK_AXIS, np.dstack: 2,
                np.column_stack: 1}.get(fn, axis)
        return self.bind(node, dest("concat"), CONCAT, tuple(parts), statics={"axis": axis})

    def append_call(self, node, kw, hint, dest):
        """np.append(a, v) (no axis: both flattened, one after the other) and np.append(a, v,
        axis=k) (np.concatenate((a, v), axis=k)); v a number, an array or a list written out.
        The parts go through `atleast_1d` and `ravel` (no axis), then one concatenation."""
        args = dict(zip(("arr", "values", "axis"), node.args))
        for k in list(kw):
            if k not in ("arr", "values", "axis") or k in args:
                self.err(node, "np.append(a, v, axis=k) takes an array, the values and a "
                               "constant axis", "np.append")
            args[k] = kw.pop(k)
        if "arr" not in args or "values" not in args or len(node.args) > 3:
            self.err(node, "np.append(a, v, axis=k) takes an array, the values and a constant "
                           "axis", "np.append")
        axis = self.static(args["axis"], node, "axis=") if "axis" in args else None
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            self.err(node, "np.append's axis= must be a constant integer or None", "np.append")
        parts = []
        for e in (args["arr"], args["values"]):
            a = (self.stack(e, hint, lambda op: self.temp(hint, op))
                 if isinstance(e, (gast.List, gast.Tuple)) else self.expr(e, hint))
            if axis is None:
                if isinstance(a, Const):
                    a = Const(float(a.value)) if not isinstance(a.value, bool) else a
                a = self.bind(e, self.temp(hint, ATLEAST_1D), ATLEAST_1D, (a,))
                a = self.bind(e, self.temp(hint, "ravel"), get("ravel"), (a,))
            parts.append(a)
        return self.bind(node, dest("concat"), CONCAT, tuple(parts),
                         statics={"axis": 0 if axis is None else axis})

    def gradient_call(self, node, names, hint, dest, stmt=None):
        """np.gradient(f, h, axis=k) (edge_order=1; h one number, 1.0 when left out): of a
        vector (`np.gradient`), along one axis (`gradient_axis`), or, unpacked into k names
        (`gy, gx = np.gradient(A)`), one `gradient_axis` per axis -- of every axis (the rank
        must be k, checked where it is typed) or of those axis= names."""
        kw = {k.arg: k.value for k in node.keywords}
        if len(node.args) > 2 or not node.args or set(kw) - {"axis", "edge_order"}:
            self.err(node, "np.gradient(f, h, axis=k) takes an array, one spacing (a number "
                           "for every axis) and a constant axis=", "np.gradient")
        edge = self.static(kw["edge_order"], node, "edge_order=") if "edge_order" in kw else 1
        if edge != 1:
            self.err(node, "np.gradient: only edge_order=1 is supported", "edge_order=")
        axis = self.static(kw["axis"], node, "axis=") if "axis" in kw else None
        axes = axis if isinstance(axis, tuple) else None if axis is None else (axis,)
        if axes is not None and not all(isinstance(a, int) and not isinstance(a, bool)
                                        for a in axes):
            self.err(node, "np.gradient's axis= must be a constant int or a tuple of them",
                     "axis=")
        x = self.array_arg(node.args[0], hint)
        h = self.expr(node.args[1], hint) if len(node.args) > 1 else Const(1.0)
        if isinstance(h, Const) and not isinstance(h.value, bool):
            h = Const(float(h.value))
        grad_axis = get("gradient_axis")
        if names is None:
            if isinstance(axis, tuple):
                self.err(node, "np.gradient with a tuple axis= returns a tuple: unpack it "
                               "(gy, gx = np.gradient(A, axis=(0, 1)))", "tuple result")
            if axis is None:
                return self.bind(node, dest("gradient"), get("np.gradient"), (x, h))
            return self.bind(node, dest("gradient"), grad_axis, (x, h),
                             statics={"axis": axis, "count": 0})
        if axes is not None and len(axes) != len(names):
            self.err(node, f"np.gradient along {len(axes)} axes returns {len(axes)} values, "
                           f"not {len(names)}", "tuple unpacking")
        count = 0 if axes is not None else len(names)
        for k, name in enumerate(names):
            self.bind(stmt, name, grad_axis, (x, h),
                      statics={"axis": k if axes is None else axes[k], "count": count})

    def index_grid(self, node, names, hint, dest, stmt=None):
        """np.mgrid[a:b, c:d:s] / np.ogrid[...] (bounds integer expressions or numbers, a
        complex step `5j` a count of points, both ends included, as np.linspace): one vector per
        slice (`arange`, `linspace`), each given its own axis (`expand_dims`) -- np.mgrid's
        broadcast to the whole grid (`np.broadcast_to`); unpacked into one name per slice, or
        one value (a vector for one slice; np.mgrid's parts stacked along a new first axis)."""
        grid = self.resolve_func(node.value)
        what = "np.mgrid" if grid is np.mgrid else "np.ogrid"
        parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if not all(isinstance(p, gast.Slice) for p in parts):
            self.err(node, f"{what}[...] takes slices (start:stop:step)", what)
        if names is not None and len(names) != len(parts):
            self.err(node, f"{what} of {len(parts)} slices returns {len(parts)} arrays, not "
                           f"{len(names)}", "tuple unpacking")
        if names is None and len(parts) > 1 and grid is np.ogrid:
            self.err(node, f"{what} of several slices returns a tuple: unpack it "
                           "(yy, xx = np.ogrid[0:n, 0:m])", "tuple result")
        vectors = []
        for p in parts:
            start = Const(0) if p.lower is None else self.expr(p.lower, hint)
            if p.upper is None:
                self.err(p, f"{what}[...] needs the stop of every slice", what)
            stop = self.expr(p.upper, hint)
            step = None if p.step is None else static_value(p.step, self.resolve_func)
            if isinstance(step, complex):       # 5j: five points, both ends included
                num = int(abs(step))
                fstart, fstop = (Const(float(a.value)) if isinstance(a, Const) else a
                                 for a in (start, stop))
                v = self.bind(p, self.temp(hint, "linspace"), get("linspace"),
                              (fstart, fstop, Const(num)))
            elif p.step is None:
                v = self.bind(p, self.temp(hint, "arange"), get("arange2"), (start, stop))
            else:
                v = self.bind(p, self.temp(hint, "arange"), get("arange3"),
                              (start, stop, self.expr(p.step, hint)))
            vectors.append(v)
        d = len(vectors)
        if names is None and d == 1:
            return self.bind(node, dest("arange"), COPY, (vectors[0],))
        dims = TupleA(tuple(self.bind(node, self.temp(hint, "dim"), DIM, (v, Const(0)))
                            for v in vectors)) if grid is np.mgrid and d > 1 else None
        out = []
        for k, v in enumerate(vectors):
            cur = v
            for j in [j for j in range(d) if j != k]:
                cur = self.bind(node, self.temp(hint, EXPAND_DIMS), EXPAND_DIMS, (cur,),
                                statics={"axis": j})
            if dims is not None:
                cur = self.bind(node, self.temp(hint, "grid"), get("np.broadcast_to"),
                                (cur, dims))
            if names is not None:
                self.bind(stmt or node, names[k], COPY, (cur,))
            out.append(cur)
        if names is not None:
            return None
        stacked = [self.bind(node, self.temp(hint, STACK_PART), STACK_PART, (a,),
                             statics={"axis": 0}) for a in out]
        return self.bind(node, dest("concat"), CONCAT, tuple(stacked), statics={"axis": 0})

    def stack(self, lst, hint, dest, integers=False):
        """np.array([a, b, ...]): the elements (scalars, arrays, nested lists) stacked, its
        constants as floats (np.array([[1, 2], [3, 4]]) @ v is a float product) -- unless
        `integers` (an index written out, `P[[0, 2]]`, whose elements are integer constants)."""
        if not isinstance(lst, (gast.Tuple, gast.List)) or not lst.elts:
            self.err(lst, "np.array takes a non-empty list or tuple written out", "np.array")
        parts = []
        for e in lst.elts:
            a = self.stack(e, hint, lambda op: self.temp(hint, op), integers) \
                if isinstance(e, (gast.Tuple, gast.List)) else self.expr(e, hint)
            if isinstance(a, Const) and not integers:
                a = Const(float(a.value))
            parts.append(self.bind(e, self.temp(hint, STACK_PART), STACK_PART, (a,),
                                   statics={"axis": 0}))
        return self.bind(lst, dest("concat"), CONCAT, tuple(parts), statics={"axis": 0})

    def is_newaxis(self, node):
        return ((isinstance(node, gast.Constant) and node.value is None)
                or (isinstance(node, gast.Attribute) and self.resolve_func(node) is None))

    def new_axes(self, node, arr, parts, hint, dest):
        """x[:, None], x[None], x[..., None], x[0, ...]: the index without its `None`s and `...`,
        then one `expand_dims` per `None` at the axis it makes in the result (counted from the
        end after a `...`)."""
        ell = [k for k, p in enumerate(parts) if is_ellipsis(p)]
        if len(ell) > 1:
            self.err(node, "an index can only have one ellipsis (...)")
        before, after = (parts[:ell[0]], parts[ell[0] + 1:]) if ell else (parts, [])
        core_after = [p for p in after if not self.is_newaxis(p)]
        if any(not full_slice(p) for p in core_after):
            if len(core_after) != len(after):
                self.err(node, "None and an index both after ... : write the index first, then "
                               "add the axis (y = x[..., 0]; y[..., None])", "index after ...")
            return self.index_from_end(node, arr, before, after, hint, dest)
        positions, out_axes = [], 0
        for p in before:
            if self.is_newaxis(p):
                positions.append(out_axes)
                out_axes += 1
            elif isinstance(p, gast.Slice):
                out_axes += 1
            elif not (isinstance(static_value(p, self.resolve_func), int)):
                if any(self.is_newaxis(q) for q in before[before.index(p):]):
                    self.err(node, "None after a computed index: write the index first, "
                                   "then add the axis (y = x[i]; y[:, None])", "None index")
        from_end = 0
        for p in reversed(after):
            if self.is_newaxis(p):
                positions.append(-(from_end + 1))
            from_end += 1
        core = [p for p in before if not self.is_newaxis(p)]
        cur = arr
        if any(not full_slice(p) for p in core):
            index = self.index(gast.Tuple(core, gast.Load()), hint)
            cur = self.bind(node, self.temp(arr.name, "getitem"), GETITEM, (arr,) + index)
        ordered = sorted(p for p in positions if p >= 0) + sorted((p for p in positions if p < 0),
                                                                  reverse=True)
        for k, p in enumerate(ordered):
            target = dest("expand_dims") if k == len(ordered) - 1 else self.temp(hint, EXPAND_DIMS)
            cur = self.bind(node, target, EXPAND_DIMS, (cur,), statics={"axis": p})
        if not ordered:
            cur = self.bind(node, dest("copy"), COPY, (cur,))
        return cur

    def index_from_end(self, node, arr, before, after, hint, dest):
        """x[..., 0], x[..., 1:], x[0, ..., ::2]: the index before `...` as written, then the
        last len(after) axes moved to the front (np.moveaxis with negative axes: no rank
        needed), indexed there, and the axes a slice keeps moved back to the end."""
        cur = arr
        if before:
            if any(self.is_newaxis(p) for p in before):
                self.err(node, "None before ... and an index after it: write them in two steps",
                         "index after ...")
            index = self.index(gast.Tuple(list(before), gast.Load()), hint)
            cur = self.bind(node, self.temp(arr.name, "getitem"), GETITEM, (cur,) + index)
        m = len(after)
        cur = self.bind(node, self.temp(arr.name, "moved"), MOVEAXIS, (cur,),
                        statics={"source": tuple(range(-m, 0)), "destination": tuple(range(m))})
        index = self.index(gast.Tuple(list(after), gast.Load()), hint)
        kept = sum(isinstance(p, gast.Slice) for p in after)
        if not kept:
            return self.bind(node, dest("getitem"), GETITEM, (cur,) + index)
        cur = self.bind(node, self.temp(arr.name, "getitem"), GETITEM, (cur,) + index)
        return self.bind(node, dest("moveaxis"), MOVEAXIS, (cur,),
                         statics={"source": tuple(range(kept)),
                                  "destination": tuple(range(-kept, 0))})


def is_ellipsis(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is Ellipsis


def last_argument(node, kw, name, n):
    """(the call's positional arguments but an (n+1)-th, that argument given by position or
    as `name=` (popped from `kw`), or None): `np.trace(A, 1)` / `np.trace(A, offset=1)`."""
    args = list(node.args)
    if len(args) == n + 1:
        return args[:n], args[n]
    return args, kw.pop(name, None) if len(args) == n else None


def int_constants(node) -> bool:
    """Whether a list or tuple written out holds integer constants only (nested too)."""
    if isinstance(node, (gast.List, gast.Tuple)):
        return bool(node.elts) and all(int_constants(e) for e in node.elts)
    v = static_value(node, lambda n: MISSING)
    return type(v) is int


def lists_as_tuples(node):
    """A constant argument written with lists (`axes=([1], [0])`) read as the tuples NumPy
    takes alike."""
    if isinstance(node, (gast.List, gast.Tuple)):
        return gast.Tuple([lists_as_tuples(e) for e in node.elts], gast.Load())
    return node


def full_slice(node) -> bool:
    return isinstance(node, gast.Slice) and node.lower is None and node.upper is None and node.step is None


def split_cuts(k):
    """The constant indices np.split(x, [i, j, ...]) cuts at (a tuple of ints), or None when
    `k` is a number of sections."""
    if isinstance(k, tuple) and all(isinstance(i, int) and not isinstance(i, bool) for i in k):
        return k
    return None


def static_value(node, resolve):
    """The Python value of a constant argument: numbers (negative too), bools, None and tuples
    of them; `np.newaxis`/module constants through `resolve`, and a name the function does not
    assign that holds one (`axis=AXIS` of a module-level `AXIS = 1`, compiled in as every
    module-level number is). MISSING if it is not constant."""
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        v = static_value(node.operand, resolve)
        return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else MISSING
    if isinstance(node, gast.Tuple):
        vals = tuple(static_value(e, resolve) for e in node.elts)
        return MISSING if MISSING in vals else vals
    if isinstance(node, gast.Attribute):
        v = resolve(node)
        return v if v is None or isinstance(v, (int, float)) else MISSING
    if isinstance(node, gast.Name):
        v = resolve(node)
        return v if _constant(v) else MISSING
    return MISSING


def _constant(v):
    if isinstance(v, tuple):
        return all(_constant(x) for x in v)
    return v is None or type(v) in (int, float, bool, str)


def ast_call(prim, operands):
    expr = substitute(prim.forward, {p: ast.Constant(a.value) for p, a in zip(prim.params, operands)})
    return ast.Expression(expr)


# reductions whose initial= is the reduction of the rest with it (`index_tricks`)
_INITIAL = {np.sum: "add", np.prod: "mul", np.max: "maximum", np.amax: "maximum",
            np.min: "minimum", np.amin: "minimum", np.nansum: "add"}


def index_tricks(tree, resolve, err, namer=None, introduced=None):
    """`np.r_[a, 0.0, b]` is `np.concatenate([np.atleast_1d(a), np.atleast_1d(0.0),
    np.atleast_1d(b)])` and `np.c_[a, b]` is `np.column_stack([a, b])`, as NumPy computes them
    for arrays and numbers; a slice (`np.r_[0:3]`) or a directive string among the items is
    refused at the item. `np.block([[A, B], [C, D]])` (lists nested once or twice, written
    out) is the concatenation of its innermost lists' items (np.atleast_1d or np.atleast_2d
    of each, by the depth) along the last axis, of those along the one before, as NumPy
    builds it. `np.linalg.multi_dot([A, B, C])` (a list or tuple written out) is
    `A @ B @ C` (the same product; NumPy may group it otherwise, which changes only rounding);
    `math.prod(seq, start=s)` is the product of the items of a sequence written out, else
    `s * np.prod(seq, axis=0)` (math.prod multiplies the rows of an array: its elements for a
    vector), with `np` a name `introduced` maps to NumPy; `np.sum(x, initial=c)` (prod, max,
    min) is the reduction without it, then `+ c` (`* c`, `np.maximum(., c)`, `np.minimum`),
    elementwise over what an axis= leaves, as NumPy folds it in. Returns the tree (a rewritten copy
    when it holds any of them)."""
    def trick(node):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute):
            obj = resolve(node.func)
            if obj is np.block:
                return "block"
            if obj is np.linalg.multi_dot:
                return "multi_dot"
            if obj in _INITIAL and any(k.arg == "initial" for k in node.keywords):
                return "initial"
            if obj is math.prod and introduced is not None and not (
                    len(node.args) == 1 and isinstance(node.args[0], gast.Attribute)
                    and node.args[0].attr == "shape"):  # math.prod(X.shape): shape_tuples
                return "prod"
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute)):
            return None
        obj = resolve(node.value)
        return obj is np.r_ and "r_" or obj is np.c_ and "c_" or None

    if not any(trick(n) for n in gast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)

    class Rewrite(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            kind = trick(node)
            if kind == "multi_dot":
                return self.multi_dot(node)
            if kind == "prod":
                return self.prod(node)
            if kind == "initial":
                return self.initial(node)
            if kind != "block":
                return node
            depth = _list_depth(node.args[0]) if len(node.args) == 1 else None
            if node.keywords or depth not in (1, 2):
                err(node, "np.block takes one list of arrays or numbers written out, or a list "
                          "of such lists (no deeper nesting)", "np.block")

            def build(lst, level):
                if level == depth:
                    items = [gast.Call(_np_func(node.func, f"atleast_{depth}d"), [it], [])
                             for it in lst.elts]
                else:
                    items = [build(it, level + 1) for it in lst.elts]
                return gast.Call(_np_func(node.func, "concatenate"),
                                 [gast.List(items, gast.Load())],
                                 [gast.keyword("axis", gast.Constant(level - depth - 1, None))])
            call = build(node.args[0], 1)
            for n in gast.walk(call):
                if getattr(n, "lineno", None) is None:
                    gast.copy_location(n, node)
            return call

        def multi_dot(self, node):
            seq = node.args[0] if len(node.args) == 1 and not node.keywords else None
            if not isinstance(seq, (gast.List, gast.Tuple)) or len(seq.elts) < 2 \
                    or any(isinstance(e, gast.Starred) for e in seq.elts):
                err(node, "np.linalg.multi_dot takes a list of two or more arrays written "
                          "out", "np.linalg.multi_dot")
            out = seq.elts[0]
            for e in seq.elts[1:]:
                out = gast.copy_location(gast.BinOp(out, gast.MatMult(), e), node)
            return out

        def initial(self, node):
            start = next(k.value for k in node.keywords if k.arg == "initial")
            node.keywords = [k for k in node.keywords if k.arg != "initial"]
            op = _INITIAL[resolve(node.func)]
            if op in ("maximum", "minimum"):
                out = gast.Call(_np_func(node.func, op), [node, start], [])
            else:
                out = gast.BinOp(node, gast.Add() if op == "add" else gast.Mult(), start)
            return gast.copy_location(out, node)

        def prod(self, node):
            kw = {k.arg: k.value for k in node.keywords}
            if len(node.args) != 1 or set(kw) - {"start"}:
                err(node, "math.prod takes a sequence (and start=)", "math.prod")
            (seq,), start = node.args, kw.get("start")
            if isinstance(seq, (gast.List, gast.Tuple)) and \
                    not any(isinstance(e, gast.Starred) for e in seq.elts):
                items = ([start] if start is not None else []) + list(seq.elts)
                out = items[0] if items else gast.Constant(1, None)
                for e in items[1:]:
                    out = gast.BinOp(out, gast.Mult(), e)
            else:
                name = namer.fresh("np")
                introduced[name] = np
                out = gast.Call(gast.Attribute(gast.Name(name, gast.Load(), None, None), "prod",
                                               gast.Load()),
                                [seq], [gast.keyword("axis", gast.Constant(0, None))])
                if start is not None:
                    out = gast.BinOp(start, gast.Mult(), out)
            for n in gast.walk(out):
                if getattr(n, "lineno", None) is None:
                    gast.copy_location(n, node)
            return out

        def visit_Subscript(self, node):
            self.generic_visit(node)
            kind = trick(node)
            if kind is None:
                return node
            items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            for it in items:
                if isinstance(it, gast.Slice) or (isinstance(it, gast.Constant)
                                                  and isinstance(it.value, str)):
                    err(it, f"np.{kind}[...] takes arrays and numbers here (no slices or "
                            "directive strings): write np.concatenate or np.arange",
                        f"np.{kind}[...]")
            if kind == "r_":
                items = [gast.Call(_np_func(node.value, "atleast_1d"), [it], []) for it in items]
                func = _np_func(node.value, "concatenate")
            else:
                func = _np_func(node.value, "column_stack")
            call = gast.Call(func, [gast.List(items, gast.Load())], [])
            for n in gast.walk(call):
                if getattr(n, "lineno", None) is None:
                    gast.copy_location(n, node)
            return call

    tree.body = [Rewrite().visit(st) for st in tree.body]
    return tree


def _list_depth(node):
    """How deep lists written out nest in `node` (the same for every item), or None."""
    if not isinstance(node, gast.List) or not node.elts:
        return 0 if not isinstance(node, (gast.List, gast.Tuple)) else None
    depths = {_list_depth(e) for e in node.elts}
    return 1 + depths.pop() if len(depths) == 1 and None not in depths else None


def _np_func(trick_node, name):
    """`np.name` spelt with the module expression `np.r_` was read through (`np`, `numpy`)."""
    return gast.Attribute(copy.deepcopy(trick_node.value), name, gast.Load())


def describe(func) -> str:
    if isinstance(func, gast.Name):
        return f"{func.id}()"
    if isinstance(func, gast.Attribute):
        return f"{describe(func.value).rstrip('()')}.{func.attr}()"
    return "this callable"
