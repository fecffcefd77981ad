"""Stage 7 — codegen: the passes from a typed program to one module's source text.

Takes: a `pipeline.Job` holding the `Program`, the entry `Spec`, the differentiated parameters
(and an optimizer for `train_step`).
Guarantees: the passes `plan` (every generated name; how callees are differentiated), `primal`,
`callee_adjoints`, `training`, `entry_adjoint` (Python AST of each function, tidied: element
loops fused, copies propagated, dead assignments removed, single-use temporaries folded back)
and `module` (the text) leave in `job.gen` a `Generated` with the module source and the names
of the entry's functions. The text is deterministic (the same function, signature and jitad
version give the same bytes in every process): names come from the user's names, iteration is
in program order, and nothing depends on ids or hashes of objects. Each adjoint block is
preceded by `# line N: <user source>` (once per line); `line_map` maps generated lines back to
the user's lines, for errors.
"""
from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path
from dataclasses import dataclass, field

from . import __version__, alias, ir, runtime
from . import pyast as P
from .factor import factor_tangents
from .fuse import fuse
from .scalarize import scalarize
from .names import Namer, reserved_names
from .primitives import CALL
from .ad import Forward, Reverse, callee_wrt, costly, split_callees, tangent_args
from .ad.tapes import unread_pairs
from .types import arg_types as argtys
from .types import Ty, one_float_output



@dataclass
class Generated:
    source: str
    primal: str
    vjp: str | None = None
    value_and_grad: str | None = None
    grad: str | None = None
    line_map: dict = field(default_factory=dict)  # generated line -> (user file, user line)
    scalar_output: bool = True
    out_types: tuple = ()
    functions: dict = field(default_factory=dict)  # name -> source text of that function
    primitives: list = field(default_factory=list)  # user primitives the module calls
    recursive: bool = False        # some function recurses: compiled without the disk cache
    step: str | None = None        # train_step: f_step(params..., data..., state...) -> loss
    state_params: list = field(default_factory=list)
    # fit(accumulate=k): f_accumulate(params..., data..., buffers...) -> loss adds the gradient to
    # a thread's buffers; f_apply(params..., buffers..., state...) runs the optimizer on them
    accumulate: str | None = None
    apply: str | None = None
    buffers: list = field(default_factory=list)   # (kind "acc"|"marks"|"rows", param, name)
    wrt_params: list = field(default_factory=list)  # the differentiated parameters' IR names
    # functions that take a trailing recursion depth (the entry is recursive): callers pass 0
    depth_args: set = field(default_factory=set)
    # forward mode: f_jvp(params..., tangents of jvp_args...) -> (value, tangent); f_jacfwd
    # (params...) -> one (x.size, y.size) block per wrt (see `tangent`); f_jacrev likewise
    jvp: str | None = None
    jvp_args: tuple = ()
    jacfwd: str | None = None
    jacrev: str | None = None
    # a Jacobian kernel of an output of rank >= 2 -> f_jac..._shaped(params...) -> (blocks,
    # y.shape), which it calls: the caller reshapes the blocks without running anything else
    shaped: dict = field(default_factory=dict)
    # f_value_and_grad_into(params..., buffers...) -> (value, grads): a scalar entry's gradient
    # added into one caller buffer per array wrt parameter (see `into`)
    into: str | None = None
    jvps: tuple = ()               # every specialization's jvp function (the entry's: `jvp`)
    # f_tangent_hessian(params...) of a tangent function f_tangent(params..., d_w...): per
    # tangent parameter b and wrt parameter a, a (b.size, a.size) block whose row k is the
    # gradient for a with d_b = the k-th basis vector (see `hessian`)
    hessian: str | None = None
    # f_grads(params..., d_out) -> grads: the vjp without its value, for callers that discard
    # it (the Hessian and jacrev loops, hvp; see `grads`); None for a recursive entry, and for
    # a jacrev whose forward runs once (no loop of vjps)
    grads: str | None = None
    # jacrev: why `jacrev` loops over `grads` (the forward run per row); "" when its forward
    # runs once and only the adjoint sweep per row (see `jacobian`)
    jacrev_loop: str = ""
    # hessian: f_grads_lanes(params..., d_out), f_grads with K tangent directions at once (a
    # trailing lane axis, `jitad.lanes`), which the Hessian calls once per K columns; None when
    # the K-lane form does not cover the code, `hessian_loop` saying why (one call per column)
    hessian_lanes: str | None = None
    hessian_loop: str = ""
    # parallel=True (`parallel`): the entry's applicative groups and what was decided for each;
    # the dispatches' `f_par` functions, the ones compiled with Numba's parallel option
    decisions: list = field(default_factory=list)
    parallel: set = field(default_factory=set)


def _locals(spec):
    f = spec.ir
    names = set(f.params)
    for s in ir.walk(f.body):
        names |= set(ir.writes(s)) | set(ir.reads(s))
    return names


@dataclass
class Plan:
    """What the code-generation passes share: the names of every generated function (unique,
    derived from the user's) and which callee specializations are differentiated how."""

    taken: set
    reserved: set
    fnames: dict = field(default_factory=dict)      # (id(fn), argtys) -> primal name
    vjp_names: dict = field(default_factory=dict)   # (id(fn), argtys) -> vjp name
    used: set = field(default_factory=set)
    callee_wrt: dict = field(default_factory=dict)  # key -> the parameters differentiated
    split: dict = field(default_factory=dict)       # key -> (fwd name, bwd name)
    fused: set = field(default_factory=set)         # keys whose vjp re-runs their forward
    costly: set = field(default_factory=set)        # split keys also split in loops and branches
    cycles: frozenset = frozenset()                 # keys on a cycle of the call graph
    entry: tuple = ()
    public_vjp: str | None = None

    def unique(self, base):
        n, k = base, 1
        while n in self.taken or n in self.used or n in self.reserved:
            n = f"{base}_{k}"
            k += 1
        self.used.add(n)
        return n

    def reverse(self, prog, spec, wrt, vjp_names=None, split=None, keep=False):
        return Reverse(prog, spec, wrt, self.fnames, vjp_names or self.vjp_names,
                       callee_wrt=self.callee_wrt, split_names=self.split if split is None else split,
                       recursive=self.cycles, costly=self.costly, keep=keep)


def plan(job):
    """Pass `plan`: names for every function the module will hold, and how each callee is
    differentiated (fused re-run, or split into forward and backward halves)."""
    prog, entry, wrt = job.prog, job.entry, job.wrt
    taken = set()
    for spec in prog.order:
        taken |= _locals(spec)
    pl = Plan(taken, reserved_names())     # module globals the generated code reads (np, rt, max ...)
    for spec in prog.order:
        pl.fnames[(id(spec.fn), spec.argtys)] = pl.unique(spec.name)
    for spec in prog.order:
        pl.vjp_names[(id(spec.fn), spec.argtys)] = pl.unique(f"{spec.name}_vjp")
    pl.entry = (id(entry.fn), entry.argtys)
    if job.want_vjp:
        pl.callee_wrt = callee_wrt(prog, entry, wrt)
    pl.cycles = recursive_keys(prog)
    if job.want_vjp:
        cut, pl.fused = split_callees(prog, entry, wrt, pl.callee_wrt, pl.cycles)
        pl.costly = costly(prog, pl.cycles)
        for k in sorted(cut, key=lambda k: pl.fnames[k]):
            pl.split[k] = (pl.unique(f"{pl.fnames[k]}_fwd"), pl.unique(f"{pl.fnames[k]}_bwd"))
    pl.public_vjp = pl.vjp_names[pl.entry]
    if pl.entry in pl.callee_wrt and tuple(wrt) != pl.callee_wrt[pl.entry]:
        pl.public_vjp = pl.unique(f"{entry.name}_vjp_wrt")
    out_tys = entry.out or ()
    scalar = one_float_output(out_tys)
    job.plan = pl
    job.gen = Generated("", pl.fnames[pl.entry], scalar_output=scalar, out_types=out_tys,
                        wrt_params=[entry.ir.params[i] for i in wrt])
    job.gen.recursive = bool(pl.cycles)
    if pl.entry in pl.cycles:
        job.gen.depth_args = {job.gen.primal}
    job.funcs = []


def primal(job):
    """Pass `primal`: every specialization as a plain function (what `f(x)` runs); for code
    read again (`job.reentrant`), in forms the front end reads."""
    for spec in job.prog.order:
        job.funcs.append(_tidy(Reverse(job.prog, spec, (), job.plan.fnames, job.plan.vjp_names,
                                       recursive=job.plan.cycles,
                                       reentrant=job.reentrant).primal(), spec.types,
                                 reread=job.reentrant))


def callee_adjoints(job):
    """Pass `callee_adjoints`: the vjp (fused) or forward/backward halves (split) of every
    differentiated callee."""
    pl = job.plan
    for spec in job.prog.order:
        k = (id(spec.fn), spec.argtys)
        if k not in pl.callee_wrt or (k == pl.entry and pl.public_vjp == pl.vjp_names[k]):
            continue
        if k in pl.fused:
            job.funcs.append(_tidy(pl.reverse(job.prog, spec, pl.callee_wrt[k]).vjp(), spec.types))
        if k in pl.split:
            for half in pl.reverse(job.prog, spec, pl.callee_wrt[k]).vjp(split=pl.split[k]):
                job.funcs.append(_tidy(half, spec.types))


def training(job):
    """Pass `training`: for `train_step`, the step (loss, gradient and update in one
    function), the accumulating step and the apply function `fit` uses."""
    pl, gen, entry, wrt, train = job.plan, job.gen, job.entry, job.wrt, job.train
    r = pl.reverse(job.prog, entry, wrt)
    r.step_name = pl.unique(f"{entry.name}_step")
    step, state = r.vjp(train=train)
    job.funcs.append(_tidy(step, entry.types))
    gen.step, gen.state_params = r.step_name, [n for _, _, n in state]
    acc = pl.reverse(job.prog, entry, wrt)
    acc.step_name = gen.accumulate = pl.unique(f"{entry.name}_accumulate")
    acc_fn, gen.buffers = acc.vjp(train=train, accumulate=True)
    job.funcs.append(_tidy(acc_fn, entry.types))
    gen.apply = pl.unique(f"{entry.name}_apply")
    apply = pl.reverse(job.prog, entry, wrt).apply_function(train, gen.apply, gen.buffers, state)
    job.funcs.append(_tidy(apply, entry.types))


def entry_adjoint(job):
    """Pass `entry_adjoint`: the entry's vjp `f_vjp(params..., d_out) -> (value, grads)` and,
    for a scalar function outside training, the `f_value_and_grad`/`f_grad` wrappers."""
    pl, gen, entry, wrt = job.plan, job.gen, job.entry, job.wrt
    names = _override(pl.vjp_names, pl.entry, pl.public_vjp)
    entry_vjp = _tidy(pl.reverse(job.prog, entry, wrt, names).vjp(), entry.types)
    # recursive calls inside the public vjp must go to the vjp the call sites need
    if pl.public_vjp != pl.vjp_names[pl.entry]:
        _rename_calls(entry_vjp, pl.public_vjp, pl.vjp_names[pl.entry])
    job.funcs.append(entry_vjp)
    gen.vjp = pl.public_vjp
    if pl.entry in pl.cycles:
        gen.depth_args |= {gen.vjp} | ({gen.step, gen.accumulate} if job.train else set())
    if gen.scalar_output and job.train is None:
        params = list(entry.ir.params)
        args = [P.name(p) for p in params] + [P.const(1.0)] + (
            [P.const(0)] if gen.vjp in gen.depth_args else [])
        gen.value_and_grad = pl.unique(f"{entry.name}_value_and_grad")
        job.funcs.append(_wrapper(gen.value_and_grad, params, P.call(pl.public_vjp, *args)))
        gen.grad = pl.unique(f"{entry.name}_grad")
        res = P.subscript(P.call(pl.public_vjp, *args), [ir.Const(1)])
        if len(wrt) == 1:
            res = P.subscript(res, [ir.Const(0)])
        job.funcs.append(_wrapper(gen.grad, params, res))


def grads(job):
    """Pass `grads`: `f_grads(params..., d_out) -> grads`, the entry's vjp without its value
    (what only the value needed is then dead code, `_dead_stores`), for the loops of vjps
    (`jacobian`, `hessian`) and hvp, which discard the value. A recursive entry (its vjp
    takes a depth) keeps its vjp. For jacrev alone, the Jacobian is made here first: when its
    forward runs once (`_jacobian_once`) no loop calls f_grads, which is then not made."""
    pl, gen, entry = job.plan, job.gen, job.entry
    if job.jacobian and not job.grads and not job.hessian and _jacobian_once_first(job):
        return
    if gen.vjp in gen.depth_args:
        return
    gen.grads = pl.unique(f"{entry.name}_grads")
    names = _override(pl.vjp_names, pl.entry, pl.public_vjp)
    r = pl.reverse(job.prog, entry, job.wrt, names)
    fdef = _tidy(r.vjp(grads_only=gen.grads), entry.types)
    job.funcs.append(fdef)
    if job.hessian:
        _hessian_lanes(job, r, fdef)


def _hessian_lanes(job, r, fdef):
    """(pass `grads`, for the Hessian) `f_grads_lanes`, the K-lane form of f_grads batched
    over the tangent parameters (`jitad.lanes`), or `gen.hessian_loop` set to why not.
    Off: `JITAD_HESSIAN_LANES=0` (and with `parallel=True`: its columns run in a prange)."""
    from .lanes import NotLaned, batch, unpaid
    gen, entry = job.gen, job.entry
    if lane_count() == 0:
        gen.hessian_loop = "JITAD_HESSIAN_LANES=0"
        return
    if job.parallel_columns:
        gen.hessian_loop = "parallel=True: one column per thread"
        return
    if all(entry.argtys[j].ndim == 0 for j in job.hessian) and len(job.hessian) < MIN_LANES:
        gen.hessian_loop = (f"{len(job.hessian)} columns (numbers): the one-column loop costs "
                            f"less, to run and to compile")
        return
    params = list(entry.ir.params)
    ranks = {p: t.ndim for p, t in zip(params, entry.argtys) if isinstance(t, Ty)}
    for n in {x.id for x in ast.walk(fdef) if isinstance(x, ast.Name)}:
        rk = r.rank_of(n)
        if rk is not None and n not in ranks:
            ranks[n] = rk
    ranks.setdefault(fdef.args.args[-1].arg, 0)      # d_out: the cotangent of a number
    tapes = {t: "buffer" for t, _ in r.tapes.buffers.values()}
    tapes.update({t: "list" for t in r.tapes.lists.values()})
    why = None if "JITAD_HESSIAN_LANES" in os.environ else unpaid(fdef, tapes)
    if why:
        gen.hessian_loop = why
        return
    name = job.plan.unique(f"{gen.grads}_lanes")
    try:
        lanes = batch(fdef, name, [params[j] for j in job.hessian], ranks, tapes)
    except NotLaned as e:
        gen.hessian_loop = str(e)
        return
    job.funcs.append(lanes)
    gen.hessian_lanes = name


# fewer columns than this, known when the code is generated (every tangent parameter a number):
# the one-column loop (lanes save little there, and their code takes Numba longer to compile)
MIN_LANES = 8


def lane_count() -> int:
    """How many columns of a Hessian one K-lane sweep computes (`JITAD_HESSIAN_LANES`, default
    64; 0: the one-column loop). Set, it also forces the lanes where `lanes.unpaid` would keep
    the loop."""
    try:
        return max(0, int(os.environ.get("JITAD_HESSIAN_LANES", "64")))
    except ValueError:
        return 64


def tangent(job):
    """Pass `tangent` (forward mode): every specialization's jvp `f_jvp(params..., d_p...) ->
    (value, tangent)`, taking tangents for the entry's `wrt` and, in callees, for the
    arguments some call site moves (`tangent_args`); then `f_jacfwd`, the Jacobian by a loop
    over basis vectors inside one compiled call."""
    pl, gen, entry, wrt = job.plan, job.gen, job.entry, job.wrt
    targs = tangent_args(job.prog, entry, wrt, callee_wrt(job.prog, entry, wrt))
    names = {(id(sp.fn), sp.argtys): pl.unique(f"{sp.name}_jvp") for sp in job.prog.order}
    for spec in job.prog.order:
        fwd = Forward(job.prog, spec, targs[(id(spec.fn), spec.argtys)], pl.fnames, names, targs,
                      recursive=pl.cycles, reentrant=job.reentrant)
        job.funcs.append(_tidy(fwd.jvp(), spec.types, reread=job.reentrant))
    gen.jvp, gen.jvp_args = names[pl.entry], targs[pl.entry]
    gen.jvps = tuple(names.values())
    if pl.entry in pl.cycles:
        gen.depth_args |= {gen.jvp}
    out = entry.out or ()
    if len(out) == 1 and isinstance(out[0], Ty):
        gen.jacfwd = pl.unique(f"{entry.name}_jacfwd")
        job.funcs += _jacobian_loop(gen.jacfwd, entry, wrt, pl, gen, "jvp")


def into(job):
    """Pass `into`: for a scalar entry off recursion cycles, `f_value_and_grad_into(params...,
    buffers...)`: the adjoint sweep adds each array parameter's gradient straight into the
    caller's buffer (no gradient array made per call: what a per-sample loop in the user's
    `@njit` code wants)."""
    pl, gen, entry = job.plan, job.gen, job.entry
    if gen.scalar_output and pl.entry not in pl.cycles:
        gen.into = pl.unique(f"{entry.name}_value_and_grad_into")
        job.funcs.append(_tidy(pl.reverse(job.prog, entry, job.wrt).vjp(into=gen.into), entry.types))


def jacobian(job):
    """Pass `jacobian` (jacrev): `f_jacrev(params...)`, the Jacobian inside one compiled call:
    f's forward sweep once, then the adjoint sweep once per basis cotangent of the output
    (`_jacobian_once`); where that sweep cannot run twice on one forward's state, a loop
    calling the vjp per basis cotangent (`_jacobian_loop`; `Generated.jacrev_loop` says why)."""
    gen, entry = job.gen, job.entry
    out = entry.out or ()
    if len(out) == 1 and isinstance(out[0], Ty):
        if gen.jacrev is None:
            gen.jacrev = job.plan.unique(f"{entry.name}_jacrev")
            once = _jacobian_once(job, gen.jacrev)
            if once is not None:
                job.funcs += once
                return
        elif not gen.jacrev_loop:       # made by `grads` already (`_jacobian_once_first`)
            return
        job.funcs += _jacobian_loop(gen.jacrev, entry, job.wrt, job.plan, gen, "vjp")


def _jacobian_once_first(job) -> bool:
    """(pass `grads`, for jacrev alone) Whether `f_jacrev` runs its forward once: then made
    here, before the `jacobian` pass, which finds it (else that pass makes the loop)."""
    gen, entry = job.gen, job.entry
    out = entry.out or ()
    if not (len(out) == 1 and isinstance(out[0], Ty)):
        return False
    gen.jacrev = job.plan.unique(f"{entry.name}_jacrev")
    once = _jacobian_once(job, gen.jacrev)
    if once is None:
        return False
    job.funcs += once
    return True


def _jacobian_once(job, name):
    """[split callees' halves that keep their state..., `name`] (see `Reverse.jacobian_function`),
    or None (`gen.jacrev_loop` set to the reason): every split callee's halves are made again
    with `keep` (`g_fwd_keep`, `g_bwd_keep`: the backward half reads its saved tapes without
    popping them), and none of them, nor the entry's sweep, may change what the forward made.
    Off: `JITAD_NO_JACREV_ONCE=1`."""
    gen, pl, prog = job.gen, job.plan, job.prog
    if os.environ.get("JITAD_NO_JACREV_ONCE", "") not in ("", "0"):
        gen.jacrev_loop = "JITAD_NO_JACREV_ONCE is set"
        return None
    keep = {k: (pl.unique(f"{f}_keep"), pl.unique(f"{b}_keep"))
            for k, (f, b) in sorted(pl.split.items(), key=lambda kv: kv[1])}
    funcs = []
    for spec in prog.order:
        k = (id(spec.fn), spec.argtys)
        if k not in keep:
            continue
        r = pl.reverse(prog, spec, pl.callee_wrt[k], split=keep, keep=True)
        r.namer.taken |= pl.used | pl.reserved
        halves = r.vjp(split=keep[k])
        if r.destroys:
            gen.jacrev_loop = f"{spec.name}: {r.destroys[0]}"
            return None
        funcs += [_tidy(h, spec.types) for h in halves]
    r = pl.reverse(prog, job.entry, job.wrt, split=keep, keep=True)
    r.namer.taken |= pl.used | pl.reserved
    fdef = r.vjp(jacobian=name)
    if fdef is None:
        gen.jacrev_loop = f"{job.entry.name}: {r.destroys[0]}"
        return None
    return funcs + [_tidy(fdef, job.entry.types)]


def hessian(job):
    """Pass `hessian` (second derivatives, see `jitad.higher`): the entry is a tangent function
    `f_tangent(params..., d_w...)` (`job.hessian`: the positions of its tangent parameters,
    the k-th the tangent of `job.wrt[k]`); `f_tangent_hessian(params...)` loops, inside one
    compiled call, over the basis vectors of each tangent parameter b (the others zero),
    calling the vjp: its gradient for wrt parameter a is column k of block (a, b) -- shaped
    (a.size, b.size), H's own layout --, written as row k of block (b, a) (the same second
    derivatives, d2f/db_k da; the K-lane sweep writes its columns)."""
    gen, entry, pl = job.gen, job.entry, job.plan
    params = list(entry.ir.params)
    own = [p for j, p in enumerate(params) if j not in job.hessian]
    gen.hessian = pl.unique(f"{entry.name}_hessian")
    fresh = _local_names(pl).fresh
    primal = {j: params[w] for j, w in zip(job.hessian, job.wrt)}   # tangent -> its primal

    def tangent_arg(j, b):          # tangent parameter j: the basis vector if j is b, else zeros
        nd = entry.argtys[j].ndim
        if j == b:
            return f"{basis}.reshape({primal[j]}.shape)" if nd else f"{basis}[0]"
        return f"np.zeros_like({primal[j]})" if nd else "0.0"

    basis, k, grads = fresh("basis"), fresh("k"), fresh("grads")
    if gen.hessian_lanes:
        lines, blocks = _hessian_blocks(job, fresh, primal, basis, k, grads)
        lines.append(f"return ({', '.join(blocks)},)")
        text = f"def {gen.hessian}({', '.join(own)}):\n" + "\n".join("    " + ln for ln in lines)
        job.funcs.append(ast.parse(text).body[0])
        return
    call, pick = (gen.grads, "") if gen.grads else (gen.vjp, "[1]")
    # parallel=True: the columns run at the same time (`prange`: each its own basis vector,
    # each writing its own row -- the result is the sequential one, bit for bit)
    columns = job.parallel_columns and job.backend == "numba"
    # the sequential loop passes the rows of H (zeros) as the buffers the products' gradients
    # are added into (`Reverse.vjp(grads_into=...)`): no gradient array made per column, no
    # copy of it into H (a Rosenbrock Hessian of n = 1,000: 5.2 -> 4.1 ms)
    into = not columns and gen.grads and all(
        entry.argtys[a].dtype == "f8" for a in job.wrt if entry.argtys[a].ndim)
    if into:
        call = pl.unique(f"{entry.name}_grads_into")
        names_ = _override(pl.vjp_names, pl.entry, pl.public_vjp)
        job.funcs.append(_tidy(pl.reverse(job.prog, entry, job.wrt, names_).vjp(grads_into=call),
                               entry.types))
    # the product for basis vector k of wrt parameter b, its gradient for wrt parameter a, is
    # column k of block (a, b) and so row k of block (b, a) (d2f/db_k da, by definition, no
    # symmetry assumed): written as that row (`rt.set_row`), contiguous, where a column strides
    # over the block's rows, one cache line (and, for a large block, one page) per element
    tangent_of, wrt_of = dict(zip(job.wrt, job.hessian)), dict(zip(job.hessian, job.wrt))
    names, lines = {}, []
    for b in job.hessian:
        nb = f"{primal[b]}.size" if entry.argtys[b].ndim else "1"
        for a in job.wrt:
            na = f"{params[a]}.size" if entry.argtys[a].ndim else "1"
            names[a, b] = fresh(f"hess_{params[a]}_{params[b]}")
            lines.append(f"{names[a, b]} = np.{'zeros' if into else 'empty'}(({na}, {nb}))")
    for b in job.hessian:
        nb = f"{primal[b]}.size" if entry.argtys[b].ndim else "1"
        args = [tangent_arg(j, b) if j in primal else p for j, p in enumerate(params)]
        if columns:
            lines += [f"for {k} in prange({nb}):", f"    {basis} = np.zeros({nb})"]
        else:
            lines += [f"{basis} = np.zeros({nb})", f"for {k} in range({nb}):"]
        rows = [f"{names[wrt_of[b], tangent_of[a]]}[{k}].reshape({params[a]}.shape)"
                for a in job.wrt if entry.argtys[a].ndim] if into else []
        lines += [f"    {basis}[{k}] = 1.0",
                  f"    {grads} = {call}({', '.join(args + ['1.0'] + rows)}){pick}"]
        for pos, a in enumerate(job.wrt):
            if not (into and entry.argtys[a].ndim):
                lines.append(_row(names[wrt_of[b], tangent_of[a]], k, f"{grads}[{pos}]",
                                  entry.argtys[a].ndim))
        if not columns:
            lines.append(f"    {basis}[{k}] = 0.0")
    blocks = [names[a, b] for b in job.hessian for a in job.wrt]
    if columns:
        gen.parallel.add(gen.hessian)
    lines.append(f"return ({', '.join(blocks)},)")
    text = f"def {gen.hessian}({', '.join(own)}):\n" + "\n".join("    " + ln for ln in lines)
    job.funcs.append(ast.parse(text).body[0])


def _hessian_blocks(job, fresh, primal, basis, k, grads):
    """The Hessian loop's lines by K-lane sweeps (`gen.hessian_lanes`): the basis vectors of
    all tangent parameters, in order, are the columns c; a call takes K of them, c0 to c0 +
    K - 1 (lane k: column c0 + k, in the tangent parameter whose segment holds it, zero in the
    others), and lane k of its result for wrt parameter a is that column of block (a, b),
    written as its row of block (b, a), as `hessian`'s one-column loop writes it."""
    gen, entry = job.gen, job.entry
    params = list(entry.ir.params)
    c0, kb, g, j, c = fresh("c0"), fresh("kb"), fresh("g"), fresh("j"), fresh("c")
    K = lane_count()
    size = {q: f"{primal[q]}.size" if entry.argtys[q].ndim else "1" for q in job.hessian}
    lines, offs, total = [], {}, fresh("columns")
    for b in job.hessian:
        offs[b] = fresh(f"at_{primal[b]}")
        lines.append(f"{offs[b]} = " + (" + ".join(size[q] for q in job.hessian[:job.hessian.index(b)])
                                         or "0"))
    lines.append(f"{total} = " + " + ".join(size[q] for q in job.hessian))
    args = []
    for q, p in enumerate(params):
        if q in primal:
            # one tangent parameter: the basis block itself (no copy of a slice)
            part = basis if len(job.hessian) == 1 else \
                f"np.ascontiguousarray({basis}[{offs[q]}:{offs[q]} + {size[q]}])"
            args.append(f"{part}.reshape({primal[q]}.shape + ({kb},))"
                        if entry.argtys[q].ndim else f"np.ascontiguousarray({basis}[{offs[q]}])")
        else:
            args.append(p)
    names = {}
    for b in job.hessian:
        for a in job.wrt:
            na = f"{params[a]}.size" if entry.argtys[a].ndim else "1"
            names[b, a] = (fresh(f"hess_{params[a]}_{params[b]}"), na)
            lines.append(f"{names[b, a][0]} = np.empty(({na}, {size[b]}))")
    # one basis block, its ones set before a call and cleared after (a new one for a last,
    # narrower block)
    lines += [f"{basis} = np.zeros(({total}, min({K}, {total})))",
              f"for {c0} in range(0, {total}, {K}):",
              f"    {kb} = min({K}, {total} - {c0})",
              f"    if {kb} != {basis}.shape[1]:",
              f"        {basis} = np.zeros(({total}, {kb}))",
              f"    for {k} in range({kb}):",
              f"        {basis}[{c0} + {k}, {k}] = 1.0",
              f"    {grads} = {gen.hessian_lanes}({', '.join(args + ['1.0'])})",
              f"    for {k} in range({kb}):",
              f"        {basis}[{c0} + {k}, {k}] = 0.0"]
    tangent_of, wrt_of = dict(zip(job.wrt, job.hessian)), dict(zip(job.hessian, job.wrt))
    for pos, a in enumerate(job.wrt):
        na = names[job.hessian[0], a][1]
        # lane k of g (its column) is column c of block (a, b), written as row c of block (b, a)
        # (as the one-column loop writes it): contiguous
        lines += [f"    {g} = np.ascontiguousarray({grads}[{pos}]).reshape(({na}, {kb}))",
                  f"    for {k} in range({kb}):",
                  f"        {c} = {c0} + {k}"]
        for n, b in enumerate(job.hessian):
            test = "if" if n == 0 else "elif"
            h = names[tangent_of[a], wrt_of[b]][0]
            lines += [f"        {test} {c} < {offs[b]} + {size[b]}:",
                      f"            for {j} in range({na}):",
                      f"                {h}[{c} - {offs[b]}, {j}] = {g}[{j}, {k}]"]
    return lines, [names[b, a][0] for b in job.hessian for a in job.wrt]


def _jacobian_loop(name, entry, wrt, pl, gen, how):
    """The Jacobian of a one-output entry: per differentiated parameter p, a (p.size, y.size)
    array (forward: row k is the tangent for the k-th basis vector of p, `_jvp_columns`) or a
    (y.size, p.size) one (reverse: row k is the gradient for the k-th basis cotangent, one vjp
    filling a row of every block); a scalar p or y is a length-1 axis. The caller reshapes it
    to y.shape + p.shape: for y of rank >= 2 the loop is `name_shaped`, returning (blocks,
    y.shape), and `name` returns its blocks (`Generated.shaped`). Returns the functions."""
    params = list(entry.ir.params)
    depth = ["0"] if (how == "jvp" and gen.jvp in gen.depth_args) or \
        (how == "vjp" and gen.vjp in gen.depth_args) else []
    pdepth = ["0"] if gen.primal in gen.depth_args else []
    y_nd = entry.out[0].ndim
    fresh = _local_names(pl).fresh
    y, ny, seed, basis, k, grads = (fresh(n) for n in ("y", "ny", "seed", "basis", "k", "grads"))
    # the output's shape from its symbolic terms when they name it (no call of the primal,
    # whose compilation was a fifth of a small entry's first call); else, forward, the first
    # column's jvp call gives it (the primal is not compiled at all); else the primal's value
    shape = _output_shape(entry) if y_nd else ()
    first = shape is None and how == "jvp" and bool(wrt)
    if first:
        lines, y_shape = [], fresh("y_shape")
    elif shape is None:
        lines = [f"{y} = {gen.primal}({', '.join(params + pdepth)})",
                 f"{ny} = " + (f"{y}.size" if y_nd else "1")]
        y_shape = f"{y}.shape"
    else:
        lines = [f"{ny} = " + (" * ".join(f"({d})" if " " in d else d for d in shape) or "1")]
        y_shape = f"({', '.join(shape)},)" if y_nd else "()"
    results = [fresh(f"jac_{params[i]}") for i in wrt]
    size = {i: f"{params[i]}.size" if entry.argtys[i].ndim else "1" for i in wrt}
    if how == "vjp":
        lines += [f"{jac} = np.empty(({ny}, {size[i]}))" for jac, i in zip(results, wrt)]
        ct = (seed if y_nd == 1 and shape is not None else f"{seed}.reshape({y_shape})") \
            if y_nd else "1.0"
        call = f"{gen.grads}({', '.join(params + [ct])})" if gen.grads else \
            f"{gen.vjp}({', '.join(params + [ct] + depth)})[1]"
        lines += [f"{seed} = np.zeros({ny})", f"for {k} in range({ny}):", f"    {seed}[{k}] = 1.0",
                  f"    {grads} = {call}"]
        for pos, (jac, i) in enumerate(zip(results, wrt)):
            lines.append(_row(jac, k, f"{grads}[{pos}]", entry.argtys[i].ndim))
        lines.append(f"    {seed}[{k}] = 0.0")
    if how == "jvp":
        lines += _jvp_columns(params, entry, wrt, results, size, gen, depth, first, fresh, y,
                              ny, k, basis, y_nd, y_shape)
    blocks = f"({', '.join(results)},)"
    if y_nd < 2:
        lines.append(f"return {blocks}")
        text = f"def {name}({', '.join(params)}):\n" + "\n".join("    " + ln for ln in lines)
        return [ast.parse(text).body[0]]
    # the output's shape is returned too (`Generated.shaped`): from the first call's value
    # when only it tells
    shaped = pl.unique(f"{name}_shaped")
    gen.shaped[name] = shaped
    lines.append(f"return ({blocks}, {y_shape})")
    text = (f"def {shaped}({', '.join(params)}):\n" + "\n".join("    " + ln for ln in lines)
            + f"\n\ndef {name}({', '.join(params)}):\n"
            f"    return {shaped}({', '.join(params)})[0]\n")
    return ast.parse(text).body


def _jvp_columns(params, entry, wrt, results, size, gen, depth, first, fresh, y, ny, k, basis,
                 y_nd, y_shape):
    """`_jacobian_loop`'s forward part: one loop over the columns of every differentiated
    parameter together (column k is the basis vector k of their concatenation), so the jvp is
    called at one place -- `inline_once` writes it there, and Numba compiles its code once
    instead of linking it into each loop. With `first` the output's size is known only from
    the first call: the blocks are made then (and the loop runs once even for no columns)."""
    ends, total = [], ""
    for i in wrt:
        total = size[i] if not total else f"{total} + {size[i]}"
        ends.append(total)
    offs = ["0"] + [f"({e})" if " " in e else e for e in ends[:-1]]
    one = len(wrt) == 1
    bases = {i: (basis if n == 0 else fresh("basis")) for n, i in enumerate(i for i in wrt
                                                                        if entry.argtys[i].ndim)}

    def col(n):              # the column of parameter wrt[n] that k is
        return k if offs[n] == "0" else f"{k} - {offs[n]}"

    def tests(n):            # the test that column k is one of wrt[n]'s (None: always)
        if one and not first:
            return None
        if n == len(wrt) - 1 and not first:
            return "else:"
        return f"{'if' if n == 0 else 'elif'} {k} < {ends[n]}:"

    def own_test(n):         # the same test standing alone (setting a basis entry)
        if one and not first:
            return None
        if n == 0:
            return f"if {k} < {ends[0]}:"
        if n == len(wrt) - 1 and not first:
            return f"if {k} >= {offs[n]}:"
        return f"if {offs[n]} <= {k} < {ends[n]}:"

    lines = [f"{b} = np.zeros({size[i]})" for i, b in bases.items()]
    if first:
        lines += [f"{ny} = 0"] + [f"{jac} = np.empty((0, 0))" for jac in results]
        if y_nd >= 2:
            lines.append(f"{y_shape} = ({', '.join(['0'] * y_nd)})")
    else:
        lines += [f"{jac} = np.empty(({size[i]}, {ny}))" for jac, i in zip(results, wrt)]
    loop = [f"for {k} in range({f'max({total}, 1)' if first else total}):"]
    for n, i in enumerate(wrt):      # a test of its own per parameter (numbers have none)
        if i in bases:
            t = own_test(n)
            if t is None:
                loop.append(f"    {bases[i]}[{k}] = 1.0")
            else:
                loop += [f"    {t}", f"        {bases[i]}[{col(n)}] = 1.0"]
    tans = []
    for j in gen.jvp_args:
        if j in bases:
            tans.append(f"{bases[j]}.reshape({params[j]}.shape)")
        elif j in wrt:
            if one:
                tans.append("1.0")
            else:       # a statement of its own: a call under a conditional is not inlined
                tans.append(fresh(f"d_{params[j]}"))
                loop.append(f"    {tans[-1]} = 1.0 if {k} == {offs[wrt.index(j)]} else 0.0")
        else:
            tans.append(f"np.zeros_like({params[j]})" if entry.argtys[j].ndim else "0.0")
    call = f"{gen.jvp}({', '.join(params + tans + depth)})"
    tan = fresh("t0")
    if first:
        loop += [f"    {y}, {tan} = {call}", f"    if {k} == 0:", f"        {ny} = {y}.size"]
        if y_nd >= 2:
            loop.append(f"        {y_shape} = {y}.shape")
        loop += [f"        {jac} = np.empty(({size[i]}, {ny}))" for jac, i in zip(results, wrt)]
    else:
        loop.append(f"    {tan} = {call}[1]")
    for n, (jac, i) in enumerate(zip(results, wrt)):
        t = tests(n)
        pad = "    " if t is None else "        "
        if t is not None:
            loop.append(f"    {t}")
        loop.append(pad + _row(jac, col(n), tan, y_nd).lstrip())
        if i in bases:
            loop.append(f"{pad}{bases[i]}[{col(n)}] = 0.0")
    return lines + loop


def _output_shape(entry):
    """The entry's one array output's shape as expressions of its parameters (`p.shape[k]`,
    a parameter's value, a constant), from the symbolic shapes (`Spec.shapes`); None when an
    axis has no such term."""
    ret = entry.ir.body[-1]
    shapes = getattr(entry, "shapes", None)
    if shapes is None or not isinstance(ret, ir.Return) or len(ret.values) != 1 \
            or not isinstance(ret.values[0], ir.Var):
        return None
    terms = shapes.of(ret.values[0].name)
    params = list(entry.ir.params)
    out = []
    for t in terms or (None,):
        if isinstance(t, int) and not isinstance(t, bool):
            out.append(str(t))
        elif isinstance(t, tuple) and t[0] == "dim" and t[1] in params:
            out.append(f"{t[1]}.shape[{t[2]}]")
        elif isinstance(t, tuple) and t[0] == "val" and t[1] in params:
            out.append(t[1])
        else:
            return None
    return out


def _row(M, k, value, ndim):
    """The loop body's line writing one product's result as row k of M (`rt.set_row`: no
    slice assignment, whose error helper Numba compiles into every function that has one)."""
    return f"    rt.set_row({M}, {k}, {value})" if ndim else f"    {M}[{k}, 0] = {value}"


def _local_names(pl):
    """A namer for the locals of a function the passes write whole (the Jacobian and Hessian
    loops): clear of every user name, module global and generated function."""
    return Namer(pl.taken | pl.reserved | pl.used)


def module(job):
    """Pass `module`: the module's text -- a header naming what it was generated from (source
    hashes of every function, the runtime and user primitives: the cache key), the imports,
    every function printed with `# line N:` comments -- and the map from its lines to the
    user's."""
    gen, entry, wrt = job.gen, job.entry, job.wrt
    header = [
        f"# Generated by jitad {__version__} from {entry.ir.name}() in {comment_text(entry.ir.loc.filename)}. "
        "Do not edit.",
        f"# signature: ({', '.join(f'{p}: {t}' for p, t in zip(entry.ir.params, entry.argtys))})"
        + (f"; wrt: ({', '.join(entry.ir.params[i] for i in wrt)})" if job.want_vjp else ""),
    ]
    if job.train is not None:
        header.append(f"# optimizer: {comment_text(repr(job.train))}")
    for spec in job.prog.order:
        header.append(f"# source {spec.ir.name}: sha256 {spec.ir.captured.source_hash}")
    # Numba's cache cannot see a changed runtime helper (an inlined one above all): name it here
    header.append(f"# runtime: sha256 {_RUNTIME_HASH}")
    header += ["import math", "", "import numpy as np", "", "from jitad import runtime as rt", ""]
    if gen.parallel:       # the `f_par` functions' prange and result lists (`parallel`)
        header[-1:-1] = ["from numba import prange", "from numba.typed import List"]
    lines = list(header)
    body_start = len(lines)
    line_map = {}
    for fdef in job.funcs:
        if job.backend == "numba":
            _view_writes(fdef)
            tape_methods(fdef)
        lines.append("")
        start = len(lines)
        body_lines, lmap = print_function(fdef)
        gen.functions[fdef.name] = "\n".join(body_lines) + "\n"
        for k, v in lmap.items():
            line_map[start + k + 1] = v
        lines += body_lines
    from . import extend
    prims = extend.used_primitives("\n".join(lines[body_start:]))
    if prims:
        # user primitives: the generated code calls them by these names (their source hash
        # is part of this file, so editing one is a new file, not a stale cache hit)
        extra = [f"# primitive {n}: sha256 {extend.source_hash(n)}" for n in prims]
        lines[body_start - 6:body_start - 6] = extra
        line_map = {k + len(extra): v for k, v in line_map.items()}
        gen.primitives = prims
    gen.source = "\n".join(lines) + "\n"
    gen.line_map = line_map


def recursive_keys(prog) -> frozenset:
    """The specializations (id(fn), argtys) on a cycle of the call graph: f calls f, or f
    calls g calls f. They count their depth (see `Reverse.depth_check`)."""
    calls = {}
    for spec in prog.order:
        key = (id(spec.fn), spec.argtys)
        calls[key] = {(id(s.callee), argtys(s, spec.types))
                      for s in ir.walk(spec.ir.body) if isinstance(s, ir.Bind) and s.op is CALL}
    out = set()
    for key in calls:
        seen, frontier = set(), list(calls[key])
        while frontier:
            k = frontier.pop()
            if k == key:
                out.add(key)
                break
            if k not in seen:
                seen.add(k)
                frontier.extend(calls.get(k, ()))
    return frozenset(out)


def _override(d, k, v):
    d = dict(d)
    d[k] = v
    return d


def _rename_calls(fdef, old, new):
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == old:
            node.func.id = new


def _wrapper(name, params, expr):
    return P.function_def(name, params, [ast.Return(expr)])


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


_RUNTIME_HASH = source_hash("".join(Path(__file__).with_name(f).read_text()
                                     for f in ("runtime.py", "_runtime_jit.py")))[:16]


# ---------------------------------------------------------------------- printing
def comment_text(text: str) -> str:
    """Text from outside (a path, a repr) made safe for a `#` comment: control characters,
    newlines above all, are escaped, so nothing after them can become code."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def print_function(fdef):
    lines, lmap = [], {}
    names = [a.arg for a in fdef.args.args]
    defaults = [ast.unparse(d) for d in fdef.args.defaults]
    args = ", ".join(names[:len(names) - len(defaults)]
                     + [f"{n}={d}" for n, d in zip(names[len(names) - len(defaults):], defaults)])
    lines.append(f"def {fdef.name}({args}):")
    _print_block(fdef.body, 1, lines, lmap, None)
    return lines, lmap


def _print_block(stmts, depth, lines, lmap, cur):
    ind = "    " * depth
    if not stmts:
        lines.append(ind + "pass")
        return
    last_comment = None
    for s in stmts:
        if isinstance(s, P.Comment) and s.text == last_comment:
            continue
        # one comment per source line: a repeat is dropped unless a block came in between
        # (an element loop printed on one line is not a block)
        element_loop = isinstance(s, ast.For) and len(s.body) == 1 \
            and isinstance(s.body[0], (ast.AugAssign, ast.Assign))
        last_comment = s.text if isinstance(s, P.Comment) else (
            None if isinstance(s, (ast.If, ast.For, ast.While)) and not element_loop
            else last_comment)
        line = getattr(s, "jitad_loc", None) or cur
        if isinstance(s, P.Comment):
            lines.append(ind + "# " + comment_text(s.text))
            if s.loc is not None:
                cur = (s.loc.filename, s.loc.line)
            continue
        if isinstance(s, ast.If):
            lines.append(f"{ind}if {ast.unparse(s.test)}:")
            lmap[len(lines) - 1] = line
            _print_block(s.body, depth + 1, lines, lmap, cur)
            orelse = s.orelse
            while len(orelse) == 1 and isinstance(orelse[0], ast.If):
                lines.append(f"{ind}elif {ast.unparse(orelse[0].test)}:")
                _print_block(orelse[0].body, depth + 1, lines, lmap, cur)
                orelse = orelse[0].orelse
            if orelse:
                lines.append(f"{ind}else:")
                _print_block(orelse, depth + 1, lines, lmap, cur)
        elif isinstance(s, ast.For):
            head = f"{ind}for {ast.unparse(s.target)} in {ast.unparse(s.iter)}:"
            if len(s.body) == 1 and isinstance(s.body[0], (ast.AugAssign, ast.Assign)):
                lines.append(f"{head} {ast.unparse(s.body[0])}")  # an element loop, one line
                lmap[len(lines) - 1] = line
                continue
            lines.append(head)
            lmap[len(lines) - 1] = line
            _print_block(s.body, depth + 1, lines, lmap, cur)
        elif isinstance(s, ast.While):
            lines.append(f"{ind}while {ast.unparse(s.test)}:")
            lmap[len(lines) - 1] = line
            _print_block(s.body, depth + 1, lines, lmap, cur)
        else:
            lines.append(ind + ast.unparse(s))
            lmap[len(lines) - 1] = line


# ---------------------------------------------------------------------- dead code
def _dce(fdef, first=True):
    """Remove assignments to names that are never read, and the tape pairs whose restored value
    that left unread (`tapes.unread_pairs`: the push goes with its pop); repeat until stable.
    Then (`first`) first contributions assigned (`_first_contribution`)."""
    while True:
        # a name no expression loads is dead, including `x += e` and `x = x + e` whose x
        # nothing else reads (an accumulator only its own updates read)
        loads = _live_loads(fdef)
        loads |= {a.arg for a in fdef.args.args}   # `p += e` on a parameter writes the caller's array
        removed = [False]

        def kept(s):
            """s, or what is left of it (None: nothing) if it assigns a dead name."""
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id not in loads:
                removed[0] = True
                # a dead tape pop still pops (the next pop reads the entry below), a dead
                # random draw still draws (the draws after it are the ones NumPy makes)
                return ast.Expr(s.value) if _has_effect(s.value) else None
            if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id not in loads:
                removed[0] = True
                # `d_t += d_hs.pop()` of an element no one reads the adjoint of still pops
                return ast.Expr(s.value) if _has_effect(s.value) else None
            return s

        def walk_blocks(node):
            for field_name in ("body", "orelse"):
                block = getattr(node, field_name, None)
                if isinstance(block, list):
                    new = [k for k in map(kept, block) if k is not None]
                    for s in new:
                        walk_blocks(s)
                    setattr(node, field_name, _strip_comments(new))

        walk_blocks(fdef)
        if not removed[0] and not _dead_stores(fdef) and not unread_pairs(fdef) \
                and not _never_appended(fdef):
            if first:
                _first_contribution(fdef)
            return fdef


def _never_appended(fdef) -> bool:
    """`hs = []` that nothing appends to (a tape whose pushes `unread_pairs` removed, all of
    them) is empty wherever it is read: its `len(hs)` (the tape's size check) becomes 0, and
    `hs = []` then goes as a dead store. Numba cannot type a list nothing appends to (seed
    941016: "list(undefined)"). Says whether anything changed."""
    made = {s.targets[0].id for s in fdef.body
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
            and isinstance(s.value, ast.List) and not s.value.elts}
    if not made:
        return False
    mentions, lens = {}, {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and node.id in made:
            mentions[node.id] = mentions.get(node.id, 0) + 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in made:
            lens.setdefault(node.args[0].id, []).append(id(node))
    # only `hs = []` and `len(hs)`: no append, pop, loop or call sees the list
    empty = {c for n, calls in lens.items() if mentions[n] == 1 + len(calls) for c in calls}
    if not empty:
        return False

    zeros = set()           # ids of the zeros made here (each one held by the tree)

    class Zero(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if id(node) in empty:
                zero = ast.copy_location(ast.Constant(0), node)
                zeros.add(id(zero))
                return zero
            return node

        def visit_BinOp(self, node):
            # `8 * top + 64 * len(hs)` -> `8 * top`: only the zero made here, times an int
            # literal, or added (never a float's `x * 0`, nan where x is)
            self.generic_visit(node)
            zero = [id(side) in zeros for side in (node.left, node.right)]
            other = node.right if zero[0] else node.left
            if any(zero) and isinstance(node.op, ast.Add):
                return other
            if any(zero) and isinstance(node.op, ast.Mult) and isinstance(other, ast.Constant) \
                    and type(other.value) is int:
                return node.left if zero[0] else node.right
            return node

    Zero().visit(fdef)
    return True


def _dead_stores(fdef) -> bool:
    """Remove `x = e` where x is dead at that point (no path from there reads it before it
    is assigned again): backward liveness over the blocks, a loop's to a fixpoint; `break`
    and `continue` join the loop's exit and head. The names-only pass above cannot see it
    when the adjoint sweep assigns the same names again (a map's body replayed): the forward
    loop of a vjp whose value is not returned is dead. Only assignments to names go, as in
    `_dce` (a tape pop or a random draw stays as a statement); updates `x += e`, element
    writes and calls stay."""
    removed = [False]
    memo = {}       # (id, kind) -> (node, names): the loops' fixpoints ask again and again

    def names(node, ctx):
        got = memo.get((id(node), ctx))
        if got is None or got[0] is not node:      # (the node kept: its id is not reused)
            got = memo[id(node), ctx] = (node, frozenset(
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)))
        return got[1]

    def loads(node):
        return names(node, ast.Load)

    def stored(node):
        return names(node, ast.Store)

    def live_in(stmts, live_out, loop, edit):
        """The names live before `stmts` given those live after (`loop`: (live at the enclosing
        loop's exit, live at its head) for break/continue); `edit`: remove the dead stores."""
        live, kept = set(live_out), []
        for s in reversed(stmts):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                t = s.targets[0].id
                if t not in live:                   # dead here: gone (a pop stays, for its effect)
                    if _has_effect(s.value):
                        live |= loads(s.value)
                        kept.append(ast.Expr(s.value) if edit else s)
                    elif not edit:
                        kept.append(s)
                    removed[0] |= edit
                    continue
                live = (live - {t}) | loads(s.value)
            elif isinstance(s, ast.Assign) and all(isinstance(t, (ast.Name, ast.Tuple)) for t in s.targets):
                # (a subscript inside a tuple target reads its array and index: `loads(s)`)
                live = (live - stored(ast.Tuple(s.targets, ast.Store()))) | loads(s)
            elif isinstance(s, ast.AugAssign):
                # `x += e` reads x (its target is a Store): an array x is updated in place
                live = live | loads(s) | stored(s.target)
            elif isinstance(s, ast.If):
                live = live_in(s.body, live, loop, edit) | live_in(s.orelse, live, loop, edit) \
                    | loads(s.test)
            elif isinstance(s, (ast.For, ast.While)):
                head = loads(s.iter) if isinstance(s, ast.For) else loads(s.test)
                target = stored(s.target) if isinstance(s, ast.For) else set()
                exit_live = live | live_in(s.orelse, live, loop, edit)
                top = exit_live | head
                while True:         # live at the end of the body: the exit's, or the next round's
                    new = exit_live | head | (live_in(s.body, top, (exit_live, top), False) - target)
                    if new <= top:
                        break
                    top |= new
                if edit:
                    live_in(s.body, top, (exit_live, top), True)
                    if isinstance(s, ast.For) and not s.body and not s.orelse \
                            and isinstance(s.iter, ast.Call) and ast.unparse(s.iter.func) == "range":
                        if not target & exit_live:
                            live = exit_live        # nothing left to run: the loop goes too
                            continue
                        # its variable is read after it (the last value it took): it stays,
                        # empty (fuzz seed 660165: an hvp read a for loop's variable as 0)
                        s.body = [ast.Pass()]
                live = top
            elif isinstance(s, ast.Break):
                live = set(loop[0]) if loop else live
            elif isinstance(s, ast.Continue):
                live = set(loop[1]) if loop else live
            elif isinstance(s, ast.Return):
                live = loads(s)
            else:
                live = live | loads(s)
            kept.append(s)
        if edit:
            stmts[:] = _strip_comments(kept[::-1])
        return live

    live_in(fdef.body, set(), None, True)
    return removed[0]


def _live_loads(fdef):
    """The names some expression loads, not counting a name's loads in the value of its own
    assignment `x = f(x, ...)` (no tape pop in it: that has an effect)."""
    loads = set()

    def visit(node, own):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and node.id != own:
                loads.add(node.id)
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) \
                and not any(_is_pop(c) for c in ast.walk(node.value)):
            visit(node.value, node.targets[0].id)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, own)

    visit(fdef, None)
    return loads


def _has_effect(e):
    """A dead assignment's value that must still run: a tape pop (the next pop reads the
    entry below) or a random draw (the draws after it must be the ones NumPy makes)."""
    return _is_pop(e) or any(isinstance(c, ast.Call) and ast.unparse(c.func).startswith("np.random.")
                             for c in ast.walk(e))


def _is_pop(e):
    """`lst.pop()`: a tape's pop, whose effect (the next pop's entry) outlives its value."""
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "pop"


def _strip_comments(block):
    """Drop a comment that no statement follows any more, and empty if/for bodies."""
    out = []
    for i, s in enumerate(block):
        if isinstance(s, P.Comment) and s.text != "adjoint":
            nxt = block[i + 1] if i + 1 < len(block) else None
            if nxt is None or isinstance(nxt, P.Comment):
                continue
        out.append(s)
    return out


def _first_contribution(node, cache=None, root=None, types=None):
    """`d = 0.0` ... `d += e` (the next statement mentioning d, in the same block) -> `d = e`.

    For an array `d = np.zeros_like(x)` only when `reverse` marked the addition `jitad_fresh`:
    e always builds a new array shaped exactly like x, so d owns its buffer either way.
    And `d = np.zeros_like(x)` before a map adjoint that writes each element of d once
    (`_map_writes_all`) -> `d = np.empty_like(x)` and `d[i, j] = e` in the loop: a pass over
    d saved, and a read of it per element (the reduction `np.sum(Qx * Qx, axis=1)`'s adjoint
    in GMM)."""
    cache = {} if cache is None else cache
    if root is None:
        root = node
        types = _like(node, {**getattr(node, "jitad_types", {}),
                             **getattr(node, "jitad_param_types", {})})

    def names(stmt):
        got = cache.get(id(stmt))
        if got is None or got[0] is not stmt:
            got = cache[id(stmt)] = (stmt, P.names_in(stmt))
        return got[1]

    for field_name in ("body", "orelse"):
        block = getattr(node, field_name, None)
        if not isinstance(block, list):
            continue
        i = 0
        while i < len(block):
            s = block[i]
            scalar_zero = isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant) \
                and isinstance(s.value.value, float) and s.value.value == 0.0
            array_zero = isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) \
                and ast.unparse(s.value.func) == "np.zeros_like"
            if (scalar_zero or array_zero) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                name = s.targets[0].id
                for j in range(i + 1, len(block)):
                    t = block[j]
                    if isinstance(t, P.Comment):
                        continue
                    if name not in names(t):
                        continue
                    if isinstance(t, ast.AugAssign) and isinstance(t.op, ast.Add) \
                            and isinstance(t.target, ast.Name) and t.target.id == name \
                            and name not in P.names_in(t.value) \
                            and (scalar_zero or getattr(t, "jitad_fresh", False)):
                        block[j] = ast.Assign([ast.Name(name, ast.Store())], t.value, lineno=0)
                        del block[i]
                        i -= 1
                    elif array_zero and _map_writes_all(t, s, block[i + 1:j]):
                        s.value.func = ast.Attribute(ast.Name("np", ast.Load()), "empty_like", ast.Load())
                    elif array_zero and _takes_first(root, block, i, j, types):
                        i -= 1
                    break
            i += 1
        for s in block:
            _first_contribution(s, cache, root, types)


_FIRST_ADDS = {"rt.accum1": "rt.first_accum1", "rt.accum2": "rt.first_accum2"}


def _takes_first(fdef, block, i, j, types) -> bool:
    """`d = np.zeros_like(x)` (block[i]) whose next mention, block[j], is its first
    contribution `d += c`, `rt.accum1(d, c)` or `rt.accum2(d, c)` (marked `jitad_first` by
    `reverse`: a float adjoint) -> `d = rt.first_add(x, c)` (`first_accum1`, `first_accum2`)
    at block[j], block[i] gone: c itself, when shaped like x, is d -- no zeros, no addition
    (GMM's `Qx = Qx_mul + Qx_matmul`: both adjoints are d_Qx). When c may hold another
    name's buffer (`d_Qx`, a view, a list's pop), only where `alias.shared_safely` proves
    that nothing writes that buffer in place while both may hold it; a new array (`a * b`)
    is d's own. Nothing between may assign x (its shape is d's), nor leave the block (a
    `break` would skip the assignment that now makes d). Says whether it rewrote."""
    s, t = block[i], block[j]
    if getattr(fdef, "jitad_reread", False):       # (read again: rt.first_* is no primitive)
        return False
    if not getattr(t, "jitad_first", False) or len(s.value.args) != 1 \
            or not isinstance(s.value.args[0], ast.Name) or s.value.keywords:
        return False
    name, x = s.targets[0].id, s.value.args[0].id
    if isinstance(t, ast.AugAssign) and isinstance(t.op, ast.Add) and isinstance(t.target, ast.Name) \
            and t.target.id == name:
        fn, c = "rt.first_add", t.value
    elif isinstance(t, ast.Expr) and isinstance(t.value, ast.Call) \
            and ast.unparse(t.value.func) in _FIRST_ADDS and len(t.value.args) == 2 \
            and isinstance(t.value.args[0], ast.Name) and t.value.args[0].id == name:
        fn, c = _FIRST_ADDS[ast.unparse(t.value.func)], t.value.args[1]
    else:
        return False
    if name in P.names_in(c):
        return False
    for st in block[i + 1:j]:
        for n in ast.walk(st):
            if isinstance(n, (ast.Break, ast.Continue, ast.Return)) or (
                    isinstance(n, ast.Name) and n.id == x and isinstance(n.ctx, ast.Store)):
                return False
    new = ast.Assign([ast.Name(name, ast.Store())], P.call(fn, P.name(x), c), lineno=0)
    new.__dict__.update({k: v for k, v in t.__dict__.items() if k.startswith("jitad_")})
    new.jitad_first = False
    shared = alias.holds(c, types)
    block[j] = new
    if shared and not alias.shared_safely(fdef, new, shared, types):
        block[j] = t
        return False
    del block[i]
    return True


def _map_writes_all(loop, zeros, between) -> bool:
    """Whether the map adjoint `loop` (`jitad_map`) writes every element of the array that
    `zeros` (`d = np.zeros_like(x)`) makes once and reads none; if so its `d[i, j] += e`
    becomes `d[i, j] = e` (done here; the caller makes the zeros `np.empty_like(x)`).
    The one statement of the nest that mentions d must be `d[i, j] += e` at the loop
    variables of the maps enclosing it, outermost first, one per axis, not under an `if`:
    a map reads an operand at its bare loop indices only along axes as long as the map's
    (`maps`, ALONG), so such a read's adjoint covers the operand (a broadcast read is at
    `i * step` or 0, a lower-rank one has fewer indices). `between`: the statements from the
    zeros to the loop (none mentions d); none may assign x, so x's shape is the one the map
    read."""
    name = zeros.targets[0].id
    x = zeros.value.args[0] if len(zeros.value.args) == 1 else None
    if not isinstance(x, ast.Name) or any(
            isinstance(n, ast.Name) and n.id == x.id and isinstance(n.ctx, ast.Store)
            for st in between for n in ast.walk(st)):
        return False
    found = []

    def visit(stmts, loops):
        for k, st in enumerate(stmts):
            if isinstance(st, P.Comment) or name not in P.names_in(st):
                continue
            if isinstance(st, ast.For) and getattr(st, "jitad_map", False) and not st.orelse \
                    and isinstance(st.target, ast.Name) and _counts_from_zero(st.iter):
                if not visit(st.body, loops + [st.target.id]):
                    return False
                continue
            t = st.target if isinstance(st, ast.AugAssign) else None
            if not (isinstance(st, ast.AugAssign) and isinstance(st.op, ast.Add)
                    and isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                    and t.value.id == name and name not in P.names_in(st.value)):
                return False
            index = t.slice.elts if isinstance(t.slice, ast.Tuple) else [t.slice]
            if [getattr(e, "id", None) for e in index] != loops or found:
                return False
            found.append((stmts, k))
        return True

    if not visit([loop], []) or len(found) != 1:
        return False
    stmts, k = found[0]
    stmts[k] = ast.Assign([stmts[k].target], stmts[k].value, lineno=0)
    return True


def _counts_from_zero(it) -> bool:
    """`range(n)`: a map's loop (its adjoint's too, in the forward's order)."""
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
        and len(it.args) == 1


class _NumpyArithmetic(ast.NodeTransformer):
    """Inside a map's loops (`jitad_map`), `/`, `%` and `//` of numbers as NumPy computes
    them on arrays (inf or nan, not ZeroDivisionError): the map stands for array operations."""

    _FUNCS = {ast.Div: "rt.divide", ast.Mod: "rt.remainder", ast.FloorDiv: "rt.floor_divide"}

    def __init__(self):
        self.depth = 0

    def visit_For(self, node):
        inside = getattr(node, "jitad_map", False)
        self.depth += inside
        self.generic_visit(node)
        self.depth -= inside
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        fn = self._FUNCS.get(type(node.op))
        if self.depth and fn is not None:
            return P.call(fn, node.left, node.right)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        fn = self._FUNCS.get(type(node.op))
        if self.depth and fn is not None and isinstance(node.target, ast.Name):
            return ast.Assign([P.name(node.target.id, store=True)],
                              P.call(fn, P.name(node.target.id), node.value), lineno=0)
        return node


class _ScalarPick(_NumpyArithmetic):
    """Inside a map's loops, `rt.pick(c, v)` of numbers (np.maximum's, np.clip's adjoints) ->
    `(v if c else 0.0)`, what the helper computes for numbers: the helper also holds the
    array case (`isinstance`, np.where), ~0.3 s of Numba compile time in a first call that
    needs only the numbers. Not when a name in it is an array of the signature's (`types`)."""

    def __init__(self, types):
        super().__init__()
        self.types = types

    def visit_BinOp(self, node):
        return self.generic_visit(node)

    def visit_AugAssign(self, node):
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.depth and ast.unparse(node.func) == "rt.pick" and len(node.args) == 2 \
                and not node.keywords and not any(self._array(a) for a in node.args):
            return ast.IfExp(node.args[0], node.args[1], ast.Constant(0.0))
        return node

    def _array(self, e):
        bases = {id(n.value) for n in ast.walk(e) if isinstance(n, ast.Subscript)}
        return any(isinstance(n, ast.Name) and id(n) not in bases
                   and getattr(self.types.get(n.id), "ndim", 0) for n in ast.walk(e))


def _tidy(fdef, types, reread=False):
    """NumPy's arithmetic in maps; element loops of one length fused (row buffers become
    scalars), dead assignments out, then single-use temporaries folded back into their use;
    in a jvp, the tangent sums then regrouped by tangent (`factor`); arrays a loop makes on
    every trip made in the last trip's (`_reuse_buffers`), not in code the front end reads
    again (`reread`: its runtime helpers are not all primitives)."""
    fdef.jitad_types = types
    fdef.jitad_reread = reread
    _NumpyArithmetic().visit(fdef)
    _ScalarPick(types).visit(fdef)
    fuse(fdef, types)
    scalarize(fdef, types)
    _dce(fdef)
    _propagate_copies(fdef)
    _dce(fdef, first=False)
    _inline_single_use(fdef)
    if hasattr(fdef, "jitad_tangents"):      # a jvp: its final tangent sums, by tangent
        factor_tangents(fdef, fdef.jitad_tangents)
    _ProductInPlace().visit(fdef)
    if not reread:
        _reuse_buffers(fdef, types)
    _mark_view_writes(fdef, types)
    return fdef


_INTO = {"np.zeros_like": "rt.zeros_into", "np.empty_like": "rt.empty_into"}


def _reuse_buffers(fdef, types):
    """`d = np.zeros_like(x)` in a loop (d assigned nowhere else, x an array of floats) ->
    `d = rt.zeros_into(d, x)`: the array the statement made on the trip before, zeroed in
    place, when it has x's shape -- one allocation per loop instead of one per trip (the
    adjoint sweep of a loop makes its temporaries' adjoints on every trip: the rnn's
    Hessian-vector product two per step, LSTM's cell a dozen) -- where `alias.owned_again`
    proves that array is d's alone whenever the statement runs again; `np.empty_like(x)` ->
    `rt.empty_into(d, x)` likewise. d starts, at the function's top, as an empty array of
    x's rank (its type), which the first trip replaces."""
    types = _like(fdef, {**types, **getattr(fdef, "jitad_param_types", {})})
    stores = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    for n in ast.walk(fdef):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            stores[n.target.id] -= 1             # (an update in place, not a new array)
    params = {a.arg for a in fdef.args.args}
    found = []

    def visit(stmts, in_loop):
        for st in stmts:
            if in_loop and isinstance(st, ast.Assign) and len(st.targets) == 1 \
                    and isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Call) \
                    and ast.unparse(st.value.func) in _INTO and len(st.value.args) == 1 \
                    and isinstance(st.value.args[0], ast.Name) and not st.value.keywords:
                d, t = st.targets[0].id, types.get(st.value.args[0].id)
                if d not in params and stores.get(d) == 1 and isinstance(t, Ty) \
                        and t.dtype == "f8" and t.ndim >= 1:
                    found.append((st, t.ndim))
            for sub in ("body", "orelse"):
                inner = getattr(st, sub, None)
                if isinstance(inner, list) and not isinstance(st, ast.FunctionDef):
                    visit(inner, in_loop or isinstance(st, (ast.For, ast.While)))

    visit(fdef.body, False)
    starts = []
    for st, ndim in found:
        if not alias.owned_again(fdef, st, types):
            continue
        d = st.targets[0].id
        st.value = P.call(_INTO[ast.unparse(st.value.func)], P.name(d), st.value.args[0])
        shape = ast.Tuple([ast.Constant(0)] * ndim, ast.Load())
        starts.append(ast.Assign([ast.Name(d, ast.Store())],
                                 P.call("np.empty", shape, ast.Attribute(
                                     ast.Name("np", ast.Load()), "float64", ast.Load())),
                                 lineno=0))
    fdef.body[:0] = starts


_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


def _mark_view_writes(fdef, types):
    """Mark (`jitad_view_write`) each `A[idx] = v` of an array A (`types`) whose basic index --
    slices and integers -- selects a view of rank 1 or 2 and whose value is not a number:
    `module` writes them as `rt.set_view(A[idx], v)` for Numba (see `runtime.set_view`).
    Only marked here: code the front end reads again (`higher`) keeps the assignment. Names
    of the function's own (adjoints, tangents) take the type of what made them (`_like`)."""
    types = _like(fdef, {**types, **getattr(fdef, "jitad_param_types", {})})

    def integer(e):
        if isinstance(e, ast.Constant):
            return type(e.value) is int
        if isinstance(e, ast.Name):
            t = types.get(e.id)
            return isinstance(t, Ty) and t.ndim == 0 and t.dtype == "i8"
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, _INT_OPS) and integer(e.left) and integer(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, ast.USub) and integer(e.operand)
        return False

    def number(e):
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float, bool))
        t = types.get(e.id) if isinstance(e, ast.Name) else None
        return isinstance(t, Ty) and t.ndim == 0

    for s in ast.walk(fdef):
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Subscript)):
            continue
        target = s.targets[0]
        t = types.get(target.value.id) if isinstance(target.value, ast.Name) else None
        if not isinstance(t, Ty) or t.ndim == 0 or number(s.value):
            continue
        idx = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
        slices = sum(isinstance(e, ast.Slice) for e in idx)
        if len(idx) > t.ndim or not all(isinstance(e, ast.Slice) or integer(e) for e in idx):
            continue
        if 1 <= t.ndim - len(idx) + slices <= 2:
            s.jitad_view_write = True


_LIKE = {"np.zeros_like", "np.empty_like", "np.ones_like", "np.copy"}


def _like(fdef, types) -> dict:
    """`types` and, for a name of the function without one, the type of the array it is
    made like: `d = np.zeros_like(x)` (or empty_like, ones_like, np.copy, `x.copy()`, `d = x`)
    -- a name has one type in compiled code, so any such assignment says which."""
    out = dict(types)
    assigns = [(s.targets[0].id, s.value) for s in ast.walk(fdef) if isinstance(s, ast.Assign)
               and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)]
    changed = True
    while changed:
        changed = False
        for name, v in assigns:
            if name in out:
                continue
            src = None
            if isinstance(v, ast.Name):
                src = v.id
            elif isinstance(v, ast.Call) and len(v.args) == 1 and isinstance(v.args[0], ast.Name) \
                    and ast.unparse(v.func) in _LIKE and not v.keywords:
                src = v.args[0].id
            elif isinstance(v, ast.Call) and not v.args and isinstance(v.func, ast.Attribute) \
                    and v.func.attr == "copy" and isinstance(v.func.value, ast.Name):
                src = v.func.value.id
            if src is not None and isinstance(out.get(src), Ty):
                out[name] = out[src]
                changed = True
    return out


def tape_methods(fdef):
    """A list's pushes and pops (`x.append(v)`, `x.pop()`) as `x.tape_push(v)`, `x.tape_pop()`:
    Numba lowers a list's append and pop inline at every site, these are calls
    (`_runtime_jit._tape_methods`), the list typed as append types it (a pushed view stays a
    view). The lists: the tapes (`Tapes.init`'s `[]`, marked `jitad_tape_list`), and the
    function's own lists (`_own_lists`: the user's lists, `inner = [...]`, and the adjoint
    lists the reverse pass builds for them, `d_inner = [np.zeros_like(e) for e in inner]`)."""
    tapes = {n.targets[0].id for n in ast.walk(fdef) if getattr(n, "jitad_tape_list", False)}
    tapes |= _own_lists(fdef, tapes)
    if not tapes:
        return
    for node in ast.walk(fdef):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id in tapes:
            if node.func.attr == "append" and len(node.args) == 1 and not node.keywords:
                node.func.attr = "tape_push"
            elif node.func.attr == "pop" and not node.args and not node.keywords:
                node.func.attr = "tape_pop"


def _own_lists(fdef, tapes) -> set:
    """The names of `fdef`, none a parameter, that only ever hold lists: each store assigns a
    list display or comprehension (`x = [...]`), or a pop of a tape (of `tapes`, assigned
    once) whose every push pushes such a name (a loop's list saved on a tape and popped back:
    `tape_list_f8_1d.tape_push(rows)` ... `rows = tape_list_f8_1d.tape_pop()`). The largest
    such set: a tape starts empty, so what a pop returns was pushed, a list."""
    stores, pushes, other = {}, {}, set()
    for a in fdef.args.args + fdef.args.kwonlyargs:
        other.add(a.arg)
    targets = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            stores.setdefault(node.targets[0].id, []).append(node.value)
            targets.add(id(node.targets[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "tape_push") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in tapes:
            pushes.setdefault(node.func.value.id, []).append(node.args[0] if node.args else None)
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and id(node) not in targets:
            other.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            other.update(node.names)
    once = {t for t in tapes if len(stores.get(t, ())) == 1 and t not in other}

    def made(v):
        return isinstance(v, (ast.List, ast.ListComp))

    def popped(v):
        return isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) \
            and v.func.attr in ("pop", "tape_pop") and not v.args \
            and isinstance(v.func.value, ast.Name) and v.func.value.id in once
    lists = {n for n, vs in stores.items() if n not in other and n not in tapes
             and all(made(v) or popped(v) for v in vs)}
    while True:
        keep = {n for n in lists if all(
            made(v) or all(
                isinstance(p, ast.Name) and p.id in lists for p in pushes.get(v.func.value.id, ()))
            for v in stores[n])}
        if keep == lists:
            return lists
        lists = keep


def _view_writes(fdef):
    """The marked `A[idx] = v` (`_mark_view_writes`) as `rt.set_view(A[idx], v)`."""
    class Rewrite(ast.NodeTransformer):
        def visit_Assign(self, node):
            if not getattr(node, "jitad_view_write", False):
                return node
            t = node.targets[0]
            view = ast.Subscript(t.value, t.slice, ast.Load())
            new = ast.Expr(P.call("rt.set_view", view, node.value))
            new.__dict__.update({k: v for k, v in node.__dict__.items() if k.startswith("jitad_")
                                 and k != "jitad_view_write"})
            return ast.copy_location(new, node)
    Rewrite().visit(fdef)


class _ProductInPlace(ast.NodeTransformer):
    """`d += rt.outer(a, b)` -> `rt.add_outer(d, a, b)`, and so for `rt.matvec` and
    `rt.vecmat` (`runtime.ADDED_PRODUCTS`): the adjoint of a matrix-vector product accumulated
    without a temporary matrix or vector (run last: an accumulation still here is live, and
    reads of `d` in `a` or `b` keep the `+=`)."""

    _ADDED = {f"rt.{p}": f"rt.{a}" for p, a in runtime.ADDED_PRODUCTS.items()}

    def visit_AugAssign(self, node):
        v = node.value
        if isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
                and isinstance(v, ast.Call) and ast.unparse(v.func) in self._ADDED \
                and len(v.args) == 2 and not v.keywords \
                and node.target.id not in P.names_in(v):
            return ast.copy_location(ast.Expr(P.call(self._ADDED[ast.unparse(v.func)],
                                                     P.name(node.target.id), *v.args)), node)
        return node


class _Rename(ast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(self.new, ast.Load()), node)
        return node


def _propagate_copies(fdef):
    """`a = b` (two names, `a` assigned nowhere else and not a parameter) -> every read of `a`
    reads `b`, when all of them come later in the same block, before anything binds `b` again
    (a statement that both reads `a` and binds `b` must be a simple one: it reads first). The
    adjoint's chains of copies (`d_a = d_out; d_b = d_a`) then read as one name. For arrays
    `a` and `b` are one object either way, so in-place writes through either are unchanged."""
    loads, stores = _count(fdef)
    # id(statement) -> (statement, the names it mentions): asked of the statements of the block
    # being read (`_copy_reach`); a statement's inner blocks are read before anything renames
    # in them, so only the block's own statements need the update a rename makes
    mentions = {}

    def mentioned(u):
        got = mentions.get(id(u))
        if got is None or got[0] is not u:
            got = mentions[id(u)] = (u, P.names_in(u))
        return got[1]

    def drop(stmts, i, s):
        if not isinstance(s.value, ast.Name):
            return False
        a, b = s.targets[0].id, s.value.id
        uses = loads.get(a, 0)
        last = None if a == b or stores.get(a) != 1 or not uses \
            else _copy_reach(stmts, i, a, b, uses, mentioned)
        if last is None:
            return False
        for u in stmts[i + 1:last + 1]:
            _Rename(a, b).visit(u)
            if id(u) in mentions:       # (a is stored once, at stmts[i]: none left in u)
                mentions[id(u)] = (u, (mentions[id(u)][1] - {a}) | {b})
        loads[b] = loads.get(b, 0) + uses
        loads[a] = 0
        return True

    _drop_assignments(fdef, drop)


def _drop_assignments(fdef, drop):
    """Visit every `name = expr` of `fdef` (inner blocks first) and delete those for which
    `drop(block, index, statement)` -- which may rewrite the statements after it -- is true."""
    def block(stmts):
        i = 0
        while i < len(stmts):
            s = stmts[i]
            for sub in ("body", "orelse"):
                if isinstance(getattr(s, sub, None), list) and not isinstance(s, ast.FunctionDef):
                    block(getattr(s, sub))
            if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], ast.Name) and drop(stmts, i, s):
                del stmts[i]
                continue
            i += 1

    block(fdef.body)


def _copy_reach(stmts, i, a, b, uses, mentioned):
    """The index of the statement after `stmts[i]` (`a = b`) that holds the last of a's
    `uses` loads, when every one of them comes before anything binds b again (see
    `_propagate_copies`); else None. `mentioned(statement)`: the names it mentions."""
    found = 0
    for j in range(i + 1, len(stmts)):
        names = mentioned(stmts[j])
        if a not in names and b not in names:
            continue
        n, rebinds = 0, False      # (`a` is assigned once: no `a += ...` anywhere)
        for m in ast.walk(stmts[j]):
            if isinstance(m, ast.Name):
                if m.id == a and isinstance(m.ctx, ast.Load):
                    n += 1
                elif m.id == b and isinstance(m.ctx, ast.Store):
                    rebinds = True
            elif isinstance(m, ast.AugAssign) and isinstance(m.target, ast.Name) \
                    and m.target.id == b:
                rebinds = True
        if n and rebinds and not _simple(stmts[j]):
            return None
        found += n
        if found == uses:
            return j
        if rebinds:
            return None
    return None


def _count(fdef):
    loads, stores = {}, {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name):
            d = loads if isinstance(n.ctx, ast.Load) else stores
            d[n.id] = d.get(n.id, 0) + 1
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            loads[n.target.id] = loads.get(n.target.id, 0) + 1
    for a in fdef.args.args:
        stores[a.arg] = stores.get(a.arg, 0) + 1
    return loads, stores


class _Replace(ast.NodeTransformer):
    def __init__(self, name, expr):
        self.name, self.expr, self.done = name, expr, False

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load) and not self.done:
            self.done = True
            return self.expr
        return node


def _simple(s):
    return isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return))


def _inline_single_use(fdef):
    """`t = e; ...; use(t)` -> `use(e)` when t is stored once and loaded once, the use is a
    later simple statement (or an `if` test) of the same block, and nothing in between writes
    a name e reads. Evaluation order and arithmetic are unchanged; the text reads like the
    user's expression again. A name stored k times and loaded k times is one too when each of
    its stores has such a use (`_use_of`): that load is reached from its store alone, so each
    store's value reaches that load alone (code computed again -- a map's replay, a
    checkpointed loop's recomputation -- assigns the forward's names a second time)."""
    loads, stores = _count(fdef)
    pairs = {}

    def count(stmts, i, s):
        t = s.targets[0].id
        if stores.get(t, 0) > 1 and loads.get(t) == stores[t] \
                and _use_of(stmts, i, t, s.value) is not None:
            pairs[t] = pairs.get(t, 0) + 1
        return False

    _drop_assignments(fdef, count)

    def drop(stmts, i, s):
        t = s.targets[0].id
        n = stores.get(t)
        return loads.get(t) == n and (n == 1 or pairs.get(t) == n) \
            and _try_inline(stmts, i, t, s.value)

    _drop_assignments(fdef, drop)


def _use_of(stmts, i, t, expr):
    """The index of the statement after `stmts[i]` (`t = expr`) whose load of t may take
    expr, or None: the first later statement of the block mentioning t, a simple one (or an
    `if` test) on the same user line (a Numba error must still point at the right one), with
    only simple statements before it that write no name expr reads."""
    reads = P.names_in(expr)
    line = getattr(stmts[i], "jitad_loc", None)
    for j in range(i + 1, len(stmts)):
        u = stmts[j]
        if isinstance(u, P.Comment) or getattr(u, "jitad_loc", line) != line:
            return None
        where = u if _simple(u) else (u.test if isinstance(u, ast.If) else None)
        if where is not None and t in P.names_in(where):
            if isinstance(u, ast.AugAssign) and isinstance(u.target, ast.Subscript) \
                    and t in P.names_in(u.target):
                return None
            value = u.value if isinstance(u, (ast.Assign, ast.AugAssign)) else where
            loaded = sum(isinstance(n, ast.Name) and n.id == t and isinstance(n.ctx, ast.Load)
                         for n in ast.walk(value))
            stored = any(isinstance(n, ast.Name) and n.id == t and isinstance(n.ctx, ast.Store)
                         for n in ast.walk(u))
            # (not the list an append grows: `hs = []; hs.append(v)` of a list nothing reads
            # would read `[].append(v)`, which the front end -- reading this code again for
            # a second derivative -- refuses)
            grown = any(isinstance(n, ast.Attribute) and n.attr == "append"
                        and isinstance(n.value, ast.Name) and n.value.id == t
                        for n in ast.walk(u))
            return j if loaded == 1 and not stored and not grown else None
        if not _simple(u):
            return None
        stored = {n.id for n in ast.walk(u) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        targets = u.targets if isinstance(u, ast.Assign) else [u.target] if isinstance(u, ast.AugAssign) else []
        for tgt in targets:  # x[i] = ... and x[i] += ... write into x
            stored |= P.names_in(tgt)
        if isinstance(u, ast.Expr):  # a helper call may write into its array arguments
            stored |= P.names_in(u)
        if stored & reads or t in P.names_in(u):
            return None
    return None


def _try_inline(stmts, i, t, expr):
    """Put `expr` in place of the load of t that `_use_of` finds; whether it did."""
    j = _use_of(stmts, i, t, expr)
    if j is None:
        return False
    u = stmts[j]
    r = _Replace(t, expr)
    if isinstance(u, ast.If):
        u.test = r.visit(u.test)
    elif isinstance(u, ast.Assign):
        u.value = r.visit(u.value)
    else:
        r.visit(u)
    return r.done
