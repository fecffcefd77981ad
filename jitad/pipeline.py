"""The pipeline: every pass from a Python function to a loaded module, and the one driver.

Takes: a plain Python function; for the back end also an argument signature, the parameters
to differentiate (or none: the primal only) and an optimizer (for `train_step`).
Guarantees: `FRONTEND` (capture -> fence -> normalize) turns one function into its IR;
`BACKEND` turns an entry function and a signature into a loaded module, in two named parts:
`CHECKING` (specialize -> check -> analyse) types the program and makes every refusal that
does not depend on the code generated -- the front end's, reached through `specialize`, type
inference's, the integer `wrt`, activity's and the write rules' -- and `GENERATE` (maps ->
plan -> primal -> callee_adjoints -> training -> entry_adjoint -> tangent -> into -> jacobian
-> hessian -> module -> load; `tangent` is forward mode's, `into` adds gradients into the
caller's buffers, `hessian` loops a tangent function's vjp over a basis, see `higher`) makes
and loads the code. Eager mode runs `CHECKING` alone (`Differentiable.check`), so both modes
refuse the same programs with the same errors. `generate` runs the back end for a compiled
function: unless `recall` holds the result of the same job (in any process), then only
`load` runs. Each pass is a `Pass`: a name, what it reads
and produces (fields of `Job`), and when it applies; `run` is the only driver of passes
(`generate` calls it) -- `api`, `vjp`,
`train_step` and eager mode differ only in the job and the passes they give it. Per pass it
checks the inputs exist, times the pass (`JITAD_TIMINGS=1` prints every run's timings to
stderr, and the first call of each compiled function, which is Numba's compile), verifies the
IR after IR passes when `JITAD_VERIFY=1` (the test suite sets it), and names the pass in any
internal error. `stage_text` renders a job after any pass: what `jitad.source(f, stage)`
prints.
Invariants: passes run in the order listed; a pass only reads fields an earlier pass (or the
job's creator) produced; `CHECKING` generates nothing (eager mode keeps only the entry's
output types of its job), and a refusal it makes is the one compiled mode makes.
"""
from __future__ import annotations

import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass, field

from . import codegen, ir, monadic, parallel, primitives, recall
from . import backend as be
from .capture import capture
from .types import Ty, leaf_types
from .errors import JitadError, NotDifferentiableError
from .fence import fence
from .inline_calls import inline_once
from .normalize import normalize
from .normalize.structs import Specialized, specialized, type_facts


@dataclass
class Job:
    """What the passes read and produce."""

    fn: object                       # the plain Python function (the entry, for the back end)
    argtys: tuple = ()
    wrt: tuple = ()
    want_vjp: bool = False
    want_jvp: bool = False           # forward mode: the jvp functions (and the entry's jacfwd)
    jacobian: bool = False           # with want_vjp: the entry's jacrev
    hessian: tuple = ()              # with want_vjp: the basis parameters of f_hessian
    parallel_columns: bool = False   # with hessian: its columns in a prange
    into: bool = False               # with want_vjp: f_value_and_grad_into (buffers given)
    grads: bool = False              # with want_vjp: f_grads, the vjp without its value
    reentrant: bool = False          # with want_jvp: code the front end reads again (`higher`)
    train: object = None             # an optimizer, for train_step
    backend: str = "numba"
    validate: object = None          # (entry, argtys) -> None, may refuse the typed entry
    frontend: object = None          # fn -> ir.Function, for the callees `specialize` reaches
    forms: tuple = ()                # (parameter, form): the entry's structured parameters
    parallel: bool = False           # dispatch the entry's independent helper calls (`par`)
    # produced by the passes
    captured: object = None
    ir: object = None
    prog: object = None
    entry: object = None
    plan: object = None
    funcs: list | None = None
    gen: object = None
    module: object = None
    # the entry's `def`, and the captures of the functions whose free names the result depends
    # on (what `Compiled.stale` watches): from the passes, or from `recall`'s closure
    loc: object = None
    watched: tuple = ()
    recalled: bool = False           # the result was read back from disk (`generate`)
    timings: list = field(default_factory=list)


@dataclass(frozen=True)
class Pass:
    name: str
    run: object                      # Job -> None
    reads: tuple
    produces: tuple
    when: object = None              # Job -> bool; None: always
    makes_ir: bool = False           # verify the IR after it (JITAD_VERIFY=1)


# -- the passes' bodies that are not functions of another module ------------------------------
def _capture(job):
    job.captured = capture(job.fn)


def _fence(job):
    fence(job.captured, job.forms)


def _normalize(job):
    job.ir = normalize(job.captured, job.forms)


def _specialize(job):
    from .typeinfer import Program
    job.prog = Program(job.frontend)
    entry = specialized(job.fn, job.forms) if job.forms else job.fn
    job.entry = job.prog.specialize(entry, job.argtys)
    job.prog.entry = job.entry      # the function the user called (`ad.analysis.Writes`)


def _check(job):
    """Only float parameters are differentiated; `validate` may refuse the typed entry."""
    entry = job.entry
    for i in job.wrt if job.want_vjp or job.want_jvp else ():
        t = job.argtys[i]
        if getattr(t, "is_complex", False):
            p = entry.ir.params[i]
            raise NotDifferentiableError(
                f"cannot differentiate {job.fn.__name__} with respect to the complex argument "
                f"'{p}': jitad differentiates real arguments (complex values are fine inside "
                f"the function); pass its real and imaginary parts as two float arguments and "
                f"make it there ({p} = re + 1j * im)", entry.ir.loc, "complex argument")
        if not t.is_float:
            p = entry.ir.params[i]
            raise NotDifferentiableError(
                f"cannot differentiate {job.fn.__name__} with respect to argument '{p}' of type "
                f"{t}: pass a float (e.g. {p}=float(...)) or a float array", entry.ir.loc,
                "integer argument")
    if (job.want_vjp or job.want_jvp) and any(
            getattr(t, "is_list", False) for o in entry.out or () for t in leaf_types(o)):
        raise NotDifferentiableError(
            f"{job.fn.__name__} returns a list ({', '.join(map(str, entry.out))}): jitad "
            "differentiates arrays, numbers and tuples of them; return np.stack(hs) (or "
            "tuple(...) of its values written out)", entry.ir.loc, "list output")
    if (job.want_vjp or job.want_jvp) and any(
            getattr(t, "is_complex", False) for o in entry.out or () for t in leaf_types(o)):
        raise NotDifferentiableError(
            f"{job.fn.__name__} returns a complex value: jitad differentiates real outputs "
            "(complex values are fine inside the function); return np.real(z), np.imag(z), "
            "np.abs(z) ** 2 or another real function of it", entry.ir.loc, "complex output")
    if job.validate is not None:
        job.validate(entry, job.argtys)


def _analyse(job):
    """The analyses' refusals, made before any code: for a derivative, activity's (a library
    call without a rule that a derivative would flow through) in every specialization, for
    the parameters its callers differentiate (`ad.callee_wrt`); for every job, the write rules
    (`ad.check_writes`: writes and in-place updates into arguments, views or shared arrays,
    writes an alias observes). Code generation meets the same refusals again; this pass makes
    them without generating anything, for eager mode as for compiled mode."""
    from .ad import callee_wrt, check_writes
    if job.want_vjp or job.want_jvp:
        callee_wrt(job.prog, job.entry, job.wrt)
    for spec in job.prog.order:
        check_writes(spec, job.prog)


def _inline(job):
    """Small helpers' bodies written into their callers (`inline`)."""
    if not _flag("JITAD_NO_INLINE"):
        from .inline import inline
        inline(job.prog, codegen.recursive_keys(job.prog))


def _maps(job):
    """Each specialization's pointwise runs become maps (`maps`), the loops filling a new
    array are marked as its elements' first writes (`first_writes`), then its shapes are
    known to the passes after (`Spec.shapes`)."""
    from .assemble import assemble
    from .first_writes import first_writes
    from .maps import maps
    from .shapes import Shapes
    for spec in job.prog.order:
        assemble(spec)
        if not _flag("JITAD_NO_MAPS"):
            maps(spec, Shapes(spec, job.prog))
        first_writes(spec)
        spec.shapes = Shapes(spec, job.prog)


def _load(job):
    job.module = be.load(job.gen, job.backend)


def _verify(job):
    for spec in job.prog.order if job.prog is not None else ():
        ir.verify(spec.ir)
    if job.ir is not None:
        ir.verify(job.ir)


FRONTEND = (
    Pass("capture", _capture, ("fn",), ("captured",)),
    Pass("fence", _fence, ("captured",), ()),
    Pass("normalize", _normalize, ("captured",), ("ir",), makes_ir=True),
)

# the checking passes: every refusal that does not depend on the code generated
CHECKING = (
    Pass("specialize", _specialize, ("fn", "argtys", "frontend"), ("prog", "entry"), makes_ir=True),
    Pass("check", _check, ("entry",), ()),
    Pass("analyse", _analyse, ("prog", "entry"), ()),
)

GENERATE = (
    Pass("inline", _inline, ("prog",), (), makes_ir=True),
    Pass("maps", _maps, ("prog",), (), makes_ir=True),
    Pass("plan", codegen.plan, ("prog", "entry"), ("plan", "gen", "funcs")),
    Pass("primal", codegen.primal, ("prog", "plan"), ("funcs",)),
    Pass("callee_adjoints", codegen.callee_adjoints, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp),
    Pass("training", codegen.training, ("prog", "plan", "train"), ("funcs",),
         when=lambda job: job.want_vjp and job.train is not None),
    Pass("entry_adjoint", codegen.entry_adjoint, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp),
    Pass("grads", codegen.grads, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp and job.train is None
         and (job.grads or job.jacobian or bool(job.hessian))),
    Pass("tangent", codegen.tangent, ("prog", "plan"), ("funcs",), when=lambda job: job.want_jvp),
    Pass("into", codegen.into, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp and job.into),
    Pass("jacobian", codegen.jacobian, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp and job.jacobian),
    Pass("hessian", codegen.hessian, ("prog", "plan"), ("funcs",),
         when=lambda job: job.want_vjp and bool(job.hessian)),
    Pass("par", parallel.rewrite, ("prog", "plan", "funcs"), ("funcs",),
         when=lambda job: job.parallel and job.backend == "numba"),
    Pass("inline_once", inline_once, ("funcs", "gen"), ("funcs",)),
    Pass("module", codegen.module, ("funcs", "gen"), ("gen",)),
    Pass("load", _load, ("gen",), ("module",)),
)

BACKEND = CHECKING + GENERATE

PASS_NAMES = tuple(p.name for p in FRONTEND + BACKEND)


def _flag(name):
    return os.environ.get(name, "") not in ("", "0")


def run(passes, job: Job, stop_after: str | None = None) -> Job:
    """Run `passes` on `job` in order (up to and including `stop_after`)."""
    verify = _flag("JITAD_VERIFY")
    for p in passes:
        if p.when is not None and not p.when(job):
            if p.name == stop_after:
                break
            continue
        missing = [r for r in p.reads if getattr(job, r) is None]
        if missing:
            raise AssertionError(f"jitad pass {p.name!r} reads {missing}, which no pass produced")
        t0 = time.perf_counter()
        try:
            p.run(job)
        except JitadError:
            raise
        except Exception as e:    # an internal error: say in which pass, on which function
            if hasattr(e, "add_note"):
                e.add_note(f"(jitad: in pass {p.name!r} on {getattr(job.fn, '__qualname__', job.fn)})")
            raise
        job.timings.append((p.name, time.perf_counter() - t0))
        missing = [r for r in p.produces if getattr(job, r) is None]
        if missing:
            raise AssertionError(f"jitad pass {p.name!r} did not produce {missing}")
        if verify and p.makes_ir:
            _verify(job)
        if p.name == stop_after:
            break
    if timings_on():
        report(job, passes)
    return job


def generate(job: Job) -> Job:
    """The one driver of the back end: `BACKEND` on `job`, unless `recall` holds its result
    (the same inputs transformed before, in this process or another): then only `load` runs.
    Either way the job ends with `gen`, `module`, `loc` and `watched`; a result made here is
    stored for the next process."""
    t0 = time.perf_counter()
    k, closure = recall.key(job)
    hit = recall.recall(k)
    job.timings.append(("recall", time.perf_counter() - t0))
    if hit is not None:
        job.gen, job.loc = hit
        job.watched, job.recalled = tuple(closure), True
        t0 = time.perf_counter()
        _load(job)
        job.timings.append(("load", time.perf_counter() - t0))
        if timings_on():
            report(job, BACKEND)
        return job
    run(BACKEND, job)
    job.loc = job.entry.ir.loc
    job.watched = watched(job.prog)
    recall.store(k, job)
    return job


def report(job: Job, passes):
    what = getattr(job.fn, "__qualname__", str(job.fn))
    if passes is BACKEND or passes is CHECKING:
        sig = ", ".join(map(str, job.argtys))
        what += f"({sig})" + (f" wrt {tuple(job.wrt)}" if job.want_vjp else "")
    times = ", ".join(f"{n} {t * 1e3:.1f} ms" for n, t in job.timings)
    total = sum(t for _, t in job.timings)
    print(f"jitad: {what}: {times}; total {total * 1e3:.1f} ms", file=sys.stderr)


def timings_on() -> bool:
    return _flag("JITAD_TIMINGS")


def first_call(name: str, seconds: float):
    """Called by the API after the first call of a compiled function (Numba compiles then)."""
    print(f"jitad: {name}: first call (Numba compile and run) {seconds:.3f} s", file=sys.stderr)


def stage_text(job: Job, stage: str) -> str:
    """The job rendered after pass `stage`: the captured source, the IR in do-notation, the
    typed IR, the functions generated so far, or the module's text."""
    if stage in ("capture", "fence"):
        return job.captured.source
    if stage == "normalize":
        return monadic.render(job.ir)
    if stage in ("specialize", "check", "analyse", "inline", "maps"):
        out = []
        for spec in job.prog.order:
            types = "\n".join(f"#   {k}: {v}" for k, v in sorted(spec.types.items()))
            sig = ", ".join(map(str, spec.argtys))
            out.append(f"# {spec.name}({sig})\n{types}\n{monadic.render(spec.ir)}")
        return "\n\n".join(out)
    if stage == "plan":
        pl = job.plan
        return "\n".join([f"primal {v}" for v in pl.fnames.values()] +
                         [f"vjp {v}" for v in pl.vjp_names.values()] +
                         [f"split {a} {b}" for a, b in pl.split.values()])
    if stage in ("primal", "callee_adjoints", "training", "entry_adjoint", "grads", "into",
                 "tangent", "jacobian", "hessian", "par", "inline_once"):
        return "\n\n".join("\n".join(codegen.print_function(f)[0]) + "\n" for f in job.funcs)
    return job.gen.source


# -- the front end, once per function ----------------------------------------------------------
def cache_of(fn) -> dict:
    """jitad's in-process cache for one function, kept on the function object itself (its
    front-end result, its implicit `Differentiable`): it lives and dies with the function, so
    closures made by the thousand do not pile up in a global table. A wrapper that copied
    the function's `__dict__` (`functools.wraps`) does not share it: the cache names its owner."""
    cache = fn.__dict__.get("__jitad_cache__")
    if cache is None or cache["owner"]() is not fn:
        cache = {"owner": weakref.ref(fn)}
        fn.__dict__["__jitad_cache__"] = cache
    return cache


# transformations run one at a time: `ast.parse` is not safe to call from several threads at
# once, and a function's first callers must all get the one specialization
TRANSFORMING = threading.RLock()


def forget_frontends(captured):
    """Drop the front-end results of the functions whose captures are `captured` (a free name
    one of them read now means another object): they are read again when next needed."""
    for c in captured:
        cache = cache_of(c.fn)
        for key in [k for k in cache if k in ("frontend", "helper_facts", "type_facts", "capture")
                    or k[:1] == ("frontend",)]:
            del cache[key]


def watched(prog) -> tuple:
    """The captured functions a program's generated code depends on: each specialization's,
    and for a transformed function it calls (`higher.called`), those its generated code was
    made from (f and its helpers: a global they read rebound makes the code stale too)."""
    return tuple(sp.ir.captured for sp in prog.order) + tuple(
        c for sp in prog.order if hasattr(sp.fn, "captured_for")
        for c in sp.fn.captured_for(sp.argtys))


def typed_frontend(fn, argtys):
    """The IR of `fn` (a function or a `Specialized` helper) for the argument types `argtys`:
    `frontend(fn)`, or, where its source reads a parameter's `.dtype` or asks `isinstance` of
    it (`structs.type_facts`), the front end made for those parameters' types (("type",
    dtype, ndim) forms: `x.dtype` a constant, `isinstance(x, T)` decided). Both modes' type
    inference and eager forward mode read functions through it."""
    base, forms = (fn.fn, fn.forms) if isinstance(fn, Specialized) else (fn, ())
    base = getattr(base, "__jitad_function__", base)
    facts = type_facts(base)
    if not facts:
        return frontend(fn)
    given = dict(forms)
    extra, k = [], 0
    for p in capture(base).params:       # the argument types of the parameters, in order
        form = given.get(p)
        if form is None or form[0] == "list":
            if p in facts and k < len(argtys) and isinstance(argtys[k], Ty) \
                    and not argtys[k].is_list:
                extra.append((p, ("type", argtys[k].dtype, argtys[k].ndim)))
            k += 1
        elif form[0] == "struct":
            k += _leaf_count(form[1])
    return frontend(specialized(base, forms + tuple(extra))) if extra else frontend(fn)


def _leaf_count(shape) -> int:
    """How many parameters a structure form spreads into (`structs.spread`)."""
    if shape is None:
        return 1
    if shape[0] == "const":
        return 0
    return sum(_leaf_count(c) for c in shape[1])


def preset_frontend(fn, captured):
    """Give a function made by jitad (a nested function lifted to a helper) its captured tree:
    it has no source file of its own, so `capture` would fail on it."""
    cache_of(fn)["captured"] = captured


def frontend(fn, forms=()):
    """The IR of `fn` (`FRONTEND`), once per function object, primitives version and
    specialization of its parameters (`forms`: (name, form) pairs, see `normalize.structs`; a
    `Specialized` helper carries its own). Every caller gets the same object: no later pass
    changes the IR (`ir.verify` and the type rules' invariant), so specializations share it."""
    if isinstance(fn, Specialized):
        fn, forms = fn.fn, fn.forms
    fn = getattr(fn, "__jitad_function__", fn)
    with TRANSFORMING:
        from . import extend
        extend.load_plugins()
        cache = cache_of(fn)
        key = ("frontend", forms) if forms else "frontend"
        version, f = cache.get(key, (None, None))
        if version != primitives.version():   # a rule registered since (defvjp) may change the IR
            f = run(FRONTEND, Job(fn, forms=forms)).ir
            cache[key] = (primitives.version(), f)
        return f
