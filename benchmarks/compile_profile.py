"""Where a workload's cold first jitad call spends its time: `python -m benchmarks.compile_profile
gmm [lstm ba dense_net ...]`.

For each workload named (any module of `benchmarks` with a `jitad_first_call`), in this fresh
process with fresh, empty jitad and Numba disk caches (so the call is cold, as in the
benchmarks' "cold first call"), after Numba's one-time start-up (`common.numba_warmup`):

  * jitad's passes: each pass's time (the pipeline's own timings, `Job.timings`), summed over
    every job the call ran;
  * Numba: every compilation Numba made during the call, from its `numba:compile` events,
    nested (compiling a caller types its callees, which compiles them first): per function and
    signature the time exclusive of the compilations nested in it, grouped as generated (the
    `jitad_gen_*` module: which of its functions were compiled, with how many signatures, and
    which were never compiled), jitad's run-time helpers (`rt.*`), and Numba's own library
    (`impl`s of NumPy functions, ...); for the generated functions also Numba's own split of
    their compile time (type inference, lowering to LLVM, LLVM's optimisation and code
    generation, from each overload's `pipeline_times`);
  * the wall time of the whole call, and what is left (running the code, Python overhead).

`--top N` shows the N most expensive helper and library compilations (default 12); `--who
NAME` says which functions made Numba compile the functions whose name contains NAME.
Run it on an idle machine (it prints the load average): the numbers are wall-clock times.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict


def _fresh_caches():
    d = tempfile.mkdtemp(prefix="jitad-compile-profile-")
    os.environ["JITAD_CACHE_DIR"] = os.path.join(d, "jitad")
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(d, "numba")
    return d


class Recorder:
    """Numba's `numba:compile` events as a tree: exclusive time per (function, signature)."""

    def __init__(self):
        self.stack = []         # [key, start, child_time]
        self.done = []          # (key, inclusive, exclusive, depth)
        self.parents = defaultdict(set)     # function name -> names of what compiled it

    def on_start(self, ev):
        self.stack.append([_key(ev.data), time.perf_counter(), 0.0])

    def on_end(self, ev):
        key, t0, child = self.stack.pop()
        inc = time.perf_counter() - t0
        if self.stack:
            self.stack[-1][2] += inc
            self.parents[key[1]].add(self.stack[-1][0][1])
        self.done.append((key, inc, inc - child, len(self.stack)))


def _key(data):
    disp = data.get("dispatcher")
    fn = getattr(disp, "py_func", None)
    mod = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__qualname__", str(fn))
    return (mod, name, str(data.get("args")), disp)


def _kind(mod):
    if mod.startswith("jitad_gen_"):
        return "generated"
    if mod == "jitad._runtime_jit":
        return "rt helper"
    if mod.startswith("numba") or not mod:
        return "numba library"
    return "other (" + mod + ")"


def _numba_split(disp, argstr, nested):
    """Numba's own split of one overload's compile time: (type inference less the compilations
    nested in it, lowering to LLVM IR and machine code, time holding the LLVM lock), or None."""
    for sig, cres in getattr(disp, "overloads", {}).items():
        if str(sig) != argstr:
            continue
        meta = cres.metadata or {}
        pt = meta.get("pipeline_times", {}).get("nopython", {})
        typing = sum(t.init + t.run + t.finalize for n, t in pt.items() if "type_inference" in n)
        lowering = sum(t.init + t.run + t.finalize for n, t in pt.items() if "lowering" in n)
        llvm = (meta.get("timers") or {}).get("llvm_lock", 0.0)
        return max(typing - nested, 0.0), lowering, llvm
    return None


def profile(name, top=12, out=print, who=()):
    import importlib

    from numba.core import event

    from jitad import pipeline
    mod = importlib.import_module(f"benchmarks.{name}")
    jobs = []
    real_run = pipeline.run

    def run(passes, job, stop_after=None):
        jobs.append(job)
        return real_run(passes, job, stop_after)

    rec = Recorder()
    listener = type("L", (event.Listener,), {"on_start": lambda s, ev: rec.on_start(ev),
                                               "on_end": lambda s, ev: rec.on_end(ev)})()
    pipeline.run = run
    t0 = time.perf_counter()
    try:
        with event.install_listener("numba:compile", listener):
            mod.jitad_first_call()
    finally:
        pipeline.run = real_run
    wall = time.perf_counter() - t0

    passes = defaultdict(float)
    for job in jobs:
        for pname, t in job.timings:
            passes[pname] += t
    t_passes = sum(passes.values())
    by_kind = defaultdict(float)
    gen_rows = defaultdict(list)     # (module, fn) -> [(args, excl, inc, disp)]
    other = defaultdict(lambda: [0, 0.0])
    for (m, fn, args, disp), inc, exc, depth in rec.done:
        kind = _kind(m)
        by_kind[kind] += exc
        if kind == "generated":
            gen_rows[(m, fn)].append((args, exc, inc, disp))
        else:
            o = other[(kind, fn)]
            o[0] += 1
            o[1] += exc
    t_numba = sum(by_kind.values())
    out(f"== {name}: cold first call {wall:.2f} s (load average {os.getloadavg()[0]:.2f})")
    out(f"jitad passes {t_passes:.2f} s over {len(jobs)} jobs: " + ", ".join(
        f"{p} {t * 1e3:.0f} ms" for p, t in sorted(passes.items(), key=lambda kv: -kv[1])
        if t >= 0.005))
    out(f"Numba compile {t_numba:.2f} s: " + ", ".join(
        f"{k} {t:.2f} s" for k, t in sorted(by_kind.items(), key=lambda kv: -kv[1])))
    out(f"rest (running the call, Python) {wall - t_passes - t_numba:.2f} s")
    out("")
    out("generated function                         sigs  exclusive  inclusive  typing  lowering  llvm")
    gens = sorted(gen_rows.items(), key=lambda kv: -sum(r[1] for r in kv[1]))
    modules = set()
    for (m, fn), rows in gens:
        modules.add(m)
        for args, exc, inc, disp in rows:
            split = _numba_split(disp, args, inc - exc)
            sp = "" if split is None else f"{split[0]:7.2f} {split[1]:9.2f} {split[2]:5.2f}"
            out(f"{fn:42s} {len(rows):4d} {exc:9.2f}s {inc:9.2f}s {sp}")
    for m in sorted(modules):
        gmod = sys.modules.get(m)
        funcs = [k for k, v in vars(gmod).items() if hasattr(v, "py_func")
                 and getattr(v.py_func, "__module__", None) == m] if gmod else []
        never = [f for f in funcs if (m, f) not in gen_rows]
        out(f"{m}: {len(funcs)} functions, {len(funcs) - len(never)} compiled; never compiled by "
            f"this call: {', '.join(never) or '-'}")
    out("")
    out(f"most expensive helper/library compilations (count, exclusive seconds), top {top}:")
    for (kind, fn), (n, t) in sorted(other.items(), key=lambda kv: -kv[1][1])[:top]:
        out(f"  {kind:14s} {fn:40s} {n:3d} {t:6.2f} s")
    for fn in who:
        for k in sorted(rec.parents):
            if fn in k:
                out(f"{k} is compiled for: {', '.join(sorted(rec.parents[k]))}")
    return {"wall": wall, "passes": t_passes, "numba": t_numba, "by_kind": dict(by_kind)}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.compile_profile", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", nargs="+")
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--who", action="append", default=[], metavar="NAME",
                   help="also print which functions' compilation compiled the functions whose "
                        "name contains NAME (repeatable)")
    opts = p.parse_args(argv)
    import benchmarks
    benchmarks.set_thread_env()
    _fresh_caches()
    from benchmarks import common
    common.numba_warmup(1.0)
    for k, name in enumerate(opts.workloads):
        if k:
            print()
        profile(name, opts.top, who=opts.who)
    return 0


if __name__ == "__main__":
    sys.exit(main())
