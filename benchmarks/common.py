"""What every workload shares: peer detection, timing, gradient checks, the runner that
checks then times every system of a workload, goals, and machine information.

A workload module describes its systems as `System` records (a name and `make(size) -> Case`)
and hands them to `run_systems`; the runner

1. runs the reference (hand-written) system first and keeps its output at each size,
2. for every other system: calls it once (its first call, timed separately: compile time for
   the systems that compile), compares the output with the reference's at the same size --
   a mismatch is a failed row and the system is not timed --, then warms up and takes the
   median of `repeats` timed samples,
3. measures a slow system only up to its `max_size` and scales linearly beyond it (marked
   "scaled" in the results, never silently).
"""
from __future__ import annotations

import datetime
import gc
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------------------
# run context
# ---------------------------------------------------------------------------
@dataclass
class Context:
    quick: bool = False
    repeats: int = 7
    min_sample_s: float = 0.05      # one timed sample lasts at least this long (loops of calls)
    budget_s: float = 8.0           # a system whose timing would take longer is scaled beyond
    movielens: Optional[str] = None
    verbose: bool = False
    gc: bool = True                 # False: the cyclic GC is disabled while timing
    log: Callable[[str], None] = lambda s: None


# ---------------------------------------------------------------------------
# peers: imported lazily, skipped with a note when missing
# ---------------------------------------------------------------------------
_PEERS: dict = {}


def peer(name):
    """(module, None) if the peer imports, else (None, reason). Configures it once:
    torch to one intra-op and one inter-op thread, JAX to float64."""
    if name in _PEERS:
        return _PEERS[name]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name == "torch":
                import torch
                torch.set_num_threads(1)
                try:
                    torch.set_num_interop_threads(1)
                except RuntimeError:       # already set, or inter-op pool already started
                    pass
                mod = torch
            elif name == "jax":
                import jax
                jax.config.update("jax_enable_x64", True)
                mod = jax
            elif name == "autograd":
                import autograd
                import autograd.numpy  # noqa: F401
                mod = autograd
            elif name == "tangent":
                import tangent
                mod = tangent
            else:
                raise ValueError(name)
        res = (mod, None)
    except Exception as e:  # ImportError, or a broken install: skip, never fail
        res = (None, f"{name} not installed ({type(e).__name__}: {str(e).splitlines()[0][:120]})")
    _PEERS[name] = res
    return res


_DISTS = {"autograd": "autograd", "torch": "torch", "jax": "jax", "tangent": "tangent-ad"}


def peer_version(name):
    """The installed distribution's version (autograd and Tangent have no __version__)."""
    from importlib import metadata
    try:
        return metadata.version(_DISTS.get(name, name))
    except Exception:
        mod = _PEERS.get(name, (None,))[0]
        return str(getattr(mod, "__version__", "?"))


def rebind(f, **names):
    """The same function (same code object) with some global names bound to other objects:
    how one plain source runs under autograd (`np=autograd.numpy`), torch (a NumPy-like
    shim) or Tangent (`math=numpy`)."""
    g = dict(f.__globals__)
    g.update(names)
    return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)


def rebind_all(fns, **names):
    """`rebind` for a function and the helpers it calls (a workload written as several plain
    functions): every function of `fns` is rebuilt on one new globals dict holding `names` and
    the rebuilt functions, so a helper called from a rebound function is rebound too (a name
    in `names` overrides a function of the same name). Returns {name: rebound function}."""
    g = dict(fns[0].__globals__)
    out = {f.__name__: types.FunctionType(f.__code__, g, f.__name__, f.__defaults__,
                                          f.__closure__) for f in fns}
    g.update(out)
    g.update(names)
    out.update({k: v for k, v in names.items() if k in out})
    return out


# ---------------------------------------------------------------------------
# systems and the runner
# ---------------------------------------------------------------------------
OK, FAILED, SKIPPED, NOT_EXPRESSIBLE, UNSUPPORTED = (
    "ok", "failed", "skipped", "not expressible", "unsupported")


class Unsupported(Exception):
    """Raised by `make` when a system cannot run this workload (e.g. Tangent has no rule)."""


class NotExpressible(Exception):
    """Raised by `make` when the system's AD cannot express the workload (e.g. JAX reverse
    mode through `lax.while_loop`); the message is the system's own error."""


@dataclass
class Case:
    run: Callable[[], Any]                       # the timed call
    check: Optional[Callable[[], Any]] = None    # output for the gradient check (default: run)


@dataclass
class System:
    name: str
    make: Optional[Callable[[Any], Case]] = None
    status: str = OK
    note: str = ""
    max_size: Any = None       # measured at sizes <= max_size (or at max_size); scaled beyond
    reference: bool = False
    version: str = ""
    rtol: Optional[float] = None


def plain(args_of, fn):
    """A System's `make`: a Case calling `fn` (taking and returning NumPy values) on the size's
    arguments `args_of(key)`."""
    return lambda key: (lambda a: Case(lambda: fn(*a)))(args_of(key))


def objective_rows(ctx, args_of, hand_written, f, wrt):
    """The rows an objective workload starts with: its hand-written gradient (the reference),
    jitad compiled and, unless quick, jitad eager -- `value_and_grad(f, wrt)`, all called on
    the size's NumPy arguments."""
    import jitad
    out = [System("hand-written Numba", reference=True, make=plain(args_of, hand_written)),
           System("jitad compiled", make=plain(args_of, jitad.value_and_grad(f, wrt=wrt)))]
    if not ctx.quick:
        out.append(System("jitad eager", make=plain(args_of, jitad.value_and_grad(
            f, wrt=wrt, mode="eager"))))
    return out


def autograd_row(funcs, name, args_of, wrt):
    """autograd's `value_and_grad` of `name` among `funcs` rebound to autograd.numpy (a
    skipped row if autograd is not installed)."""
    autograd, why = peer("autograd")
    if autograd is None:
        return System("autograd", status=SKIPPED, note=why)
    _, anp = autograd_namespaces()
    fa = rebind_all(funcs, np=anp)[name]
    return System("autograd", version=peer_version("autograd"),
                  make=plain(args_of, autograd.value_and_grad(fa, argnum=wrt)))


def time_call(fn, repeats, min_sample_s, use_gc=True):
    """Median per-call seconds over `repeats` samples; each sample runs `inner` calls so that
    it lasts >= min_sample_s. The calibration calls double as warm-up."""
    gc.collect()
    if not use_gc:
        gc.disable()
        try:
            return time_call(fn, repeats, min_sample_s, True)
        finally:
            gc.enable()
    inner = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_sample_s or inner >= 1 << 22:
            break
        per = max(dt / inner, 1e-9)
        inner = max(inner * 2, min(int(min_sample_s / per * 1.2) + 1, inner * 100))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples), samples, inner


def to_numpy_tree(x):
    """Nested tuples/lists of floats, NumPy/JAX arrays or torch tensors -> same of ndarrays."""
    if isinstance(x, (tuple, list)):
        return [to_numpy_tree(v) for v in x]
    if hasattr(x, "detach"):                      # torch
        x = x.detach().cpu().numpy()
    return np.asarray(x, dtype=np.float64)


def _leaves(x, out):
    if isinstance(x, list):
        for v in x:
            _leaves(v, out)
    else:
        out.append(x)
    return out


def compare(got, ref, rtol):
    """(ok, max_err, message). Each leaf's error is max|got - ref| / max(max|ref|, 1e-300)
    (relative to the leaf's scale); shapes must match; NaN/inf where the reference is finite
    is a failure."""
    g = _leaves(to_numpy_tree(got), [])
    r = _leaves(to_numpy_tree(ref), [])
    if len(g) != len(r):
        return False, math.inf, f"{len(g)} outputs, reference has {len(r)}"
    worst = 0.0
    for k, (a, b) in enumerate(zip(g, r)):
        if a.shape != b.shape:
            return False, math.inf, f"output {k}: shape {a.shape}, reference {b.shape}"
        if not np.all(np.isfinite(a) | ~np.isfinite(b)):
            return False, math.inf, f"output {k}: non-finite values"
        scale = float(np.max(np.abs(b))) if b.size else 0.0
        err = float(np.max(np.abs(a - b))) / max(scale, 1e-300) if b.size else 0.0
        if scale == 0.0:
            err = float(np.max(np.abs(a))) if a.size else 0.0
        worst = max(worst, err)
    ok = worst <= rtol
    return ok, worst, "" if ok else f"max relative error {worst:.2e} > {rtol:.0e}"


def _err_text(e):
    msg = str(e).strip().splitlines()
    first = msg[0] if msg else ""
    return f"{type(e).__name__}: {first[:300]}"


def run_systems(ctx: Context, systems, sizes, rtol=1e-8):
    """Check and time every system at every size. Returns the rows (JSON-ready dicts)."""
    ref = next(s for s in systems if s.reference)
    ref_out: dict = {}
    ref_case: dict = {}

    def reference_output(size):
        if size not in ref_out:
            case = ref.make(size)
            ref_case[size] = case
            ref_out[size] = (case.check or case.run)()
        return ref_out[size]

    ordered = [ref] + [s for s in systems if s is not ref]
    rows = []
    for sysm in ordered:
        row = {"system": sysm.name, "status": sysm.status, "note": sysm.note,
               "version": sysm.version, "reference": sysm.reference, "results": {}}
        rows.append(row)
        if sysm.status != OK:
            ctx.log(f"    {sysm.name}: {sysm.status} ({sysm.note})")
            continue
        measured = [s for s in sizes if sysm.max_size is None or s <= sysm.max_size]
        if not measured:
            measured = [sysm.max_size]
        last = None
        for size in measured:
            try:
                t0 = time.perf_counter()
                case = sysm.make(size)
                t_make = time.perf_counter() - t0
                t0 = time.perf_counter()
                out = (case.check or case.run)()
                t_first = time.perf_counter() - t0
                if sysm.reference:
                    ref_out[size] = out
                    ok, err, msg = True, 0.0, ""
                else:
                    ok, err, msg = compare(out, reference_output(size), sysm.rtol or rtol)
                res = {"first_call_s": t_first, "make_s": t_make,
                       "check": {"ok": ok, "max_rel_err": err}}
                row["results"][str(size)] = res
                if not ok:
                    row["status"] = FAILED
                    row["note"] = f"wrong gradient at size {size}: {msg}"
                    ctx.log(f"    {sysm.name}: FAILED ({row['note']})")
                    break
                med, samples, inner = time_call(case.run, ctx.repeats, ctx.min_sample_s, ctx.gc)
                res.update(median_s=med, samples_s=samples, inner=inner)
                ctx.log(f"    {sysm.name} @ {size}: {fmt_time(med)} (first call "
                        f"{fmt_time(t_first)}, err {err:.1e})")
                last = size
                if med * (ctx.repeats + 2) > ctx.budget_s and size != measured[-1]:
                    break                        # the rest is scaled from this size
            except NotExpressible as e:
                row["status"] = NOT_EXPRESSIBLE
                row["note"] = str(e)
                ctx.log(f"    {sysm.name}: not expressible ({e})")
                break
            except Unsupported as e:
                row["status"] = UNSUPPORTED
                row["note"] = str(e)
                ctx.log(f"    {sysm.name}: unsupported ({e})")
                break
            except Exception as e:  # a failing system is a failed row, never a crash
                row["status"] = FAILED
                row["note"] = f"error at size {size}: {_err_text(e)}"
                if ctx.verbose:
                    traceback.print_exc()
                ctx.log(f"    {sysm.name}: FAILED ({row['note']})")
                break
        if row["status"] == OK and last is not None:
            base = row["results"][str(last)]
            for size in sizes:
                if str(size) not in row["results"] or "median_s" not in row["results"][str(size)]:
                    if isinstance(size, (int, float)) and size > last:
                        row["results"][str(size)] = {
                            "median_s": base["median_s"] * size / last, "scaled_from": last}
            if isinstance(measured[-1], (int, float)) and measured[-1] not in sizes:
                row["note"] = (row["note"] + "; " if row["note"] else "") + \
                    f"measured on {fmt_size(measured[-1])}, scaled linearly"
    return rows


def cell(row, size):
    """The result dict of `row` at `size`, or None."""
    r = row["results"].get(str(size))
    return r if r and "median_s" in r else None


def row_by_name(rows, name):
    return next((r for r in rows if r["system"] == name), None)


def ratio(rows, name, ref_name, size):
    a, b = row_by_name(rows, name), row_by_name(rows, ref_name)
    if not a or not b or a["status"] != OK or b["status"] != OK:
        return None
    ca, cb = cell(a, size), cell(b, size)
    if not ca or not cb:
        return None
    return ca["median_s"] / cb["median_s"]


def ratio_table(rows, sizes, name, ref_name, label=None):
    """Markdown: `name`'s time / `ref_name`'s at every size, and both systems' first calls
    (compile time for the systems that compile at their first call)."""
    label = label or (lambda s: str(s))
    head = "| | " + " | ".join(label(s) for s in sizes) + " |"
    lines = [head, "|---|" + "---|" * len(sizes),
             f"| {name} / {ref_name} | "
             + " | ".join(fmt_ratio(ratio(rows, name, ref_name, s)) for s in sizes) + " |"]
    for sysname in (name, ref_name):
        row = row_by_name(rows, sysname)
        if row is None or row["status"] != OK:
            continue
        firsts = [(row["results"].get(str(s)) or {}).get("first_call_s") for s in sizes]
        lines.append(f"| first call of {sysname} | " + " | ".join(fmt_time(f) for f in firsts)
                     + " |")
    return "\n".join(lines)


def goal(text, value, target, better="lower", fmt="{:.2f}×"):
    """A goal record: `value` compared with `target` (None: not measured)."""
    if value is None:
        return {"goal": text, "value": None, "met": None, "shown": "n/a"}
    met = value <= target if better == "lower" else value >= target
    return {"goal": text, "value": value, "met": bool(met), "shown": fmt.format(value)}


@__import__("numba").njit(cache=True)
def numba_warmup(x):
    """A trivial cached @njit function: its first call in a new process is Numba's start-up."""
    return x + 1.0


# ---------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------
def fmt_time(s):
    if s is None:
        return "—"
    if s >= 100:
        return f"{s:,.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        v = s * 1e3
        return f"{v:.1f} ms" if v >= 10 else f"{v:.2f} ms"
    if s >= 1e-6:
        v = s * 1e6
        return f"{v:.1f} µs" if v >= 10 else f"{v:.2f} µs"
    return f"{s * 1e9:.0f} ns"


def fmt_size(n):
    if isinstance(n, str):
        return n
    if isinstance(n, float) and not n.is_integer():
        return f"{n:g}"
    n = int(n)
    if n >= 1000 and n % 1000 == 0:
        e = int(round(math.log10(n)))
        if 10 ** e == n:
            return f"1e{e}"
    return f"{n:,}"


def fmt_ratio(r):
    if r is None:
        return "—"
    if r >= 100:
        return f"{r:,.0f}×"
    if r >= 10:
        return f"{r:.1f}×"
    return f"{r:.2f}×"


# ---------------------------------------------------------------------------
# machine information
# ---------------------------------------------------------------------------
def _cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit():
    try:
        out = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "jitad"],
                               capture_output=True, text=True, timeout=10)
        c = out.stdout.strip()
        return (c + ("+uncommitted changes in jitad/" if dirty.stdout.strip() else "")) or None
    except Exception:
        return None


def _blas():
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg.get("Build Dependencies", {}).get("blas", {})
        return f"{b.get('name', '?')} {b.get('version', '')}".strip()
    except Exception:
        return "?"


def machine_info():
    import numba
    info = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "numba": numba.__version__,
        "numpy_blas": _blas(),
        "jitad_commit": _git_commit(),
        "threads": {
            "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
            "MKL_NUM_THREADS": os.environ.get("MKL_NUM_THREADS"),
            "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
            "NUMBA_NUM_THREADS": numba.config.NUMBA_NUM_THREADS,
            "numba_parallel": "not used (no parallel=True anywhere)",
        },
        "env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
                if os.environ.get(k)},
        "peers": {},
    }
    try:
        import jitad
        info["jitad"] = getattr(jitad, "__version__", "?")
    except Exception:
        info["jitad"] = None
    for name in ("autograd", "torch", "jax", "tangent"):
        mod, why = peer(name)
        info["peers"][name] = peer_version(name) if mod else f"missing: {why}"
    torch, _ = peer("torch")
    if torch is not None:
        info["threads"]["torch_num_threads"] = torch.get_num_threads()
        info["threads"]["torch_num_interop_threads"] = torch.get_num_interop_threads()
    return info


# ---------------------------------------------------------------------------
# namespaces under which the plain workload functions run in autograd and torch
# ---------------------------------------------------------------------------
def autograd_namespaces():
    """(math, np) for autograd: autograd.numpy, and `math.*` mapped onto it."""
    import autograd.numpy as anp
    m = types.SimpleNamespace(sin=anp.sin, cos=anp.cos, exp=anp.exp, log=anp.log,
                              log1p=anp.log1p, sqrt=anp.sqrt, tanh=anp.tanh)
    return m, anp


def torch_namespaces():
    """(math, np) for torch: the few NumPy/math names the workloads use, on tensors."""
    import torch

    def maximum(a, b):
        return torch.clamp(a, min=b) if isinstance(b, (int, float)) else torch.maximum(a, b)

    def amax(x, axis=None):
        return torch.amax(x) if axis is None else torch.amax(x, dim=axis)

    def tsum(x, axis=None):
        return x.sum() if axis is None else x.sum(dim=axis)

    def zeros(shape, dtype=None):
        return torch.zeros(shape, dtype=torch.int64 if dtype is np.int64 else torch.float64)

    m = types.SimpleNamespace(sin=torch.sin, cos=torch.cos, exp=torch.exp, log=torch.log,
                              log1p=torch.log1p, sqrt=torch.sqrt, tanh=torch.tanh)
    n = types.SimpleNamespace(sin=torch.sin, cos=torch.cos, exp=torch.exp, log=torch.log,
                              log1p=torch.log1p, sqrt=torch.sqrt, tanh=torch.tanh,
                              dot=torch.dot, maximum=maximum, max=amax, sum=tsum, zeros=zeros,
                              concatenate=lambda parts, axis=0: torch.cat(tuple(parts), dim=axis),
                              stack=lambda parts, axis=0: torch.stack(tuple(parts), dim=axis),
                              array=lambda parts: torch.stack(tuple(parts)),
                              int64=np.int64)
    return m, n


# ---------------------------------------------------------------------------
# the baseline itself: hand-written gradient vs central finite differences
# ---------------------------------------------------------------------------
def fd_check(f, args, wrt, grads, what, eps=1e-6, rtol=1e-5, coords_per_array=6, seed=0):
    """Compare `grads` (one per index in `wrt`) with central differences of the plain
    function `f(*args)`; arrays are probed at a few random coordinates. Returns a record."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for k, g in zip(wrt, grads):
        a = args[k]
        g = np.asarray(g, dtype=np.float64)
        scale = max(float(np.max(np.abs(g))), 1e-300)
        if np.ndim(a) == 0:
            probes = [None]
        else:
            flat = rng.choice(np.size(a), size=min(coords_per_array, np.size(a)), replace=False)
            probes = [np.unravel_index(i, np.shape(a)) for i in flat]
        for idx in probes:
            lo, hi = list(args), list(args)
            if idx is None:
                h = eps * max(1.0, abs(a))
                lo[k], hi[k] = a - h, a + h
                exact = float(g)
            else:
                h = eps * max(1.0, abs(float(a[idx])))
                lo[k], hi[k] = a.copy(), a.copy()
                lo[k][idx] -= h
                hi[k][idx] += h
                exact = float(g[idx])
            fd = (f(*hi) - f(*lo)) / (2 * h)
            worst = max(worst, abs(fd - exact) / scale)
    return {"what": what, "ok": bool(worst <= rtol), "max_rel_err": worst, "rtol": rtol}


def scalar_loop_peers(fn, x0, p0, jax_step, slow, tslow, autograd_max=None,
                      tangent_note="`math` bound to NumPy"):
    """The autograd, torch, JAX and Tangent rows for a loop `fn(x, p, n)` over two scalars,
    gradient wrt (x, p). `jax_step(x, p)` is one step of the loop in jax.numpy (for
    `lax.fori_loop`); `slow`/`tslow` cap the sizes the eager systems / Tangent run."""
    out = []
    autograd, why = peer("autograd")
    if autograd is None:
        out.append(System("autograd", status=SKIPPED, note=why))
    else:
        am, _ = autograd_namespaces()
        ga = autograd.value_and_grad(rebind(fn, math=am), argnum=(0, 1))
        out.append(System("autograd", max_size=autograd_max or slow,
                          version=peer_version("autograd"),
                          make=lambda n: Case(lambda: ga(x0, p0, n))))

    torch, why = peer("torch")
    if torch is None:
        out.append(System("torch eager", status=SKIPPED, note=why))
    else:
        tm, _ = torch_namespaces()
        ft = rebind(fn, math=tm)

        def torch_case(n):
            def run():
                x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
                p = torch.tensor(p0, dtype=torch.float64, requires_grad=True)
                y = ft(x, p, n)
                gx, gp = torch.autograd.grad(y, (x, p))
                return y.item(), (gx.item(), gp.item())
            return Case(run)
        out.append(System("torch eager", max_size=slow, version=peer_version("torch"),
                          make=torch_case))

    jax, why = peer("jax")
    if jax is None:
        out.append(System("JAX jit(grad), lax.fori_loop", status=SKIPPED, note=why))
    else:
        from jax import lax

        def jax_case(n):
            def f(x, p):
                return lax.fori_loop(0, n, lambda k, x: jax_step(x, p), x)
            g = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))   # n is static: one compile per n
            return Case(lambda: jax.block_until_ready(g(x0, p0)))
        out.append(System("JAX jit(grad), lax.fori_loop", version=peer_version("jax"),
                          make=jax_case, note="n static (one compile per n)"))

    tangent, why = peer("tangent")
    if tangent is None:
        out.append(System("Tangent", status=SKIPPED, note=why))
    else:
        def tangent_case(n):
            try:
                g = tangent.grad(rebind(fn, math=np), wrt=(0, 1), preserve_result=True, verbose=0)
            except Exception as e:
                raise Unsupported(_err_text(e))

            def run():
                dx, dp, y = g(x0, p0, n)
                return y, (dx, dp)
            return Case(run)
        out.append(System("Tangent", max_size=tslow, version=peer_version("tangent"),
                          make=tangent_case, note=tangent_note))
    return out
