"""Training code generation: the step, accumulating step and apply functions of `train_step`.

Takes: a `Reverse` for the loss (this is its mixin) and an optimizer.
Guarantees: `step_function` fuses forward, adjoint and the optimizer's in-place update of every
differentiated parameter into `f_step`; parameters read only as rows (`sparse_sites`) are
updated in those rows only; `apply_function` runs the optimizer on a thread's accumulated
gradient buffers (for `fit(accumulate=k)`).
"""
from __future__ import annotations

import ast

from .. import ir
from .. import pyast as P
from ..errors import UnsupportedError
from ..ir import Bind, Const, Return, SetItem, Var
from ..primitives import GETITEM
from .analysis import Analysis


class TrainingCode:
    """The training functions of a `Reverse` (mixed into it)."""

    # ------------------------------------------------------------------ the vjp function
    def sparse_sites(self):
        """Parameters read only as rows (`U[u]` at top level, u an unchanged argument or a
        constant): their update touches those rows only, with no dense gradient."""
        f = self.spec.ir
        out = {}
        for i in self.wrt:
            p = f.params[i]
            t = self.ty(p)
            if not t.ndim or p not in self.A.active or len(self.A.sites[p]) != 1:
                continue
            sites, ok = [], True
            for s in ir.walk(f.body):
                if p not in self._reads_of(s):
                    continue
                in_top = any(s is x for x in f.body)
                idx = s.args[1:] if isinstance(s, Bind) and s.op is GETITEM else ()
                if not (in_top and isinstance(s, Bind) and s.op is GETITEM and s.args[0] == Var(p)
                        and 0 < len(idx) <= t.ndim and all(self._stable_index(a) for a in idx)):
                    ok = False
                    break
                if s.target in self.A.active:
                    sites.append((idx, s.target, t.ndim - len(idx)))
            if ok and sites:
                out[p] = sites
        return out

    def _reads_of(self, s):
        if isinstance(s, (Bind, SetItem, Return)):
            return set(ir.reads(s))
        return set(Analysis._stmt_reads(s))

    def _stable_index(self, a):
        if isinstance(a, Const):
            return isinstance(a.value, int) and not isinstance(a.value, bool) and a.value >= 0
        if isinstance(a, Var):
            t = self.ty(a.name)
            sites = self.A.sites.get(a.name, [])
            # assigned once, at top level (or an argument): its value at the end is the one read
            return t.dtype == "i8" and t.ndim == 0 and len(sites) == 1 and sites[0][1] == 0 \
                and sites[0][2] == (id(self.spec.ir.body),)
        return False

    def step_function(self, opt, fwd, save, rev, predef, counts, value):
        """`f_step(params..., data..., state...) -> loss`: forward, adjoint, then the
        optimizer's update of every differentiated parameter, in place.

        With `self.into_buffers` it is `f_accumulate(params..., data..., buffers...) -> loss`
        instead: the gradient is added to the thread's buffers (row-sparse parameters: to their
        rows, which are also recorded) and the parameters are left alone; `f_apply` then runs
        the optimizer on the buffers. Returns (function, its extra parameters)."""
        from .. import update
        f = self.spec.ir
        extra, updates, marks, keep = [], [], [], []
        for i in self.wrt:
            p = f.params[i]
            t = self.ty(p)
            target = p
            if p in self.assigned:      # the body rebinds p: update the array it was given
                target = self.namer.fresh(f"{p}_given")
                keep.append(P.assign(target, P.name(p)))
            if not t.ndim:
                raise UnsupportedError(f"train_step updates parameters in place: '{p}' is a scalar; "
                                       "make it a 1-element array", f.loc, "scalar parameter")
            if self.into_buffers:
                rule = update.Sum()
                state = {"acc": self.adjoint_buffers.get(p) or self.namer.fresh(f"acc_{p}")}
                extra.append(("acc", p, state["acc"]))
                if p in self.adjoint_buffers:
                    continue     # its adjoint was summed into the buffer as it was computed
                if p in self.sparse:
                    if any(len(idx) != 1 for idx, _, _ in self.sparse[p]):
                        raise UnsupportedError(f"fit(accumulate=...) needs the rows of '{p}' read with "
                                               "one index", f.loc, "accumulated multi-index rows")
                    extra += [("marks", p, self.namer.fresh(f"marks_{p}")),
                              ("rows", p, self.namer.fresh(f"rows_{p}"))]
                    marks += update.mark_rows(p, self.sparse[p], extra[-2][2], extra[-1][2])
            else:
                rule, state = opt, {}
                for s in tuple(opt.slots) + tuple(opt.scalars):
                    state[s] = self.namer.fresh(f"{p}_{s}")
                    extra.append((s, p, state[s]))
            if p not in self.A.active:
                continue
            if p in self.sparse:
                updates += update.sparse(rule, p, t.ndim, [(idx, self.d(tgt), r) for idx, tgt, r in
                                                           self.sparse[p]], state, self.namer)
            else:
                updates += update.dense(rule, target, t.ndim, self.d(p), state, self.namer)
        body = (keep + self.tapes.init(counts) + predef + fwd + save
                + [P.Comment("adjoint"), P.assign(self.seed, P.const(1.0))] + marks + rev + updates
                + [ast.Return(value)])
        return _fdef(self.step_name, f.params + [n for _, _, n in extra], self.depth_check() + body,
                     self.depth), extra

    def apply_function(self, opt, name, buffers, state_params):
        """`f_apply(params..., buffers..., state...)`: the optimizer's update of every
        differentiated parameter from a thread's accumulated gradient (dense, or the rows the
        buffer holds), clearing the buffer as it goes."""
        from .. import update
        f = self.spec.ir
        params = [f.params[i] for i in self.wrt]
        body = []
        for p in params:
            state = {slot: n for slot, q, n in state_params if q == p}
            mine = {kind: n for kind, q, n in buffers if q == p}
            if "rows" in mine:
                body += update.apply_rows(opt, p, self.ty(p).ndim, mine["acc"], mine["marks"], mine["rows"],
                                          state, self.namer)
            else:
                body += update.dense(opt, p, self.ty(p).ndim, mine["acc"], state, self.namer, zero_after=True)
        args = params + [n for _, _, n in buffers] + [n for _, _, n in state_params]
        return _fdef(name, args, body + [ast.Return(P.const(0.0))])


_fdef = P.function_def
