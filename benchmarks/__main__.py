"""`python -m benchmarks [WORKLOAD ...] [--quick] [--repeats N] [--movielens PATH]`

Runs the workloads (all by default) in this one process, prints a progress line per workload,
and writes

* `<out>/<date>T<time>.json`   this run: machine info, every measurement;
* `<out>/latest.json`          the latest result of every workload (this run merged in);
* `<out>/latest.md`            the tables, rendered from latest.json;
* `<out>/<workload>.png`       the plots (matplotlib; skipped with a note if missing).

`<out>` is benchmarks/results, or benchmarks/results/quick with --quick (so a smoke test never
overwrites the full results). Exit status: 0, or 1 if a jitad row or a hand-written baseline
failed (an error or a wrong gradient); peers never change it.
"""
import os
import sys

if __package__ in (None, ""):     # `python benchmarks/__main__.py`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import benchmarks  # noqa: E402

benchmarks.set_thread_env()       # before NumPy/OpenBLAS is imported

import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("workloads", nargs="*", metavar="WORKLOAD",
                   help="any of: " + ", ".join(benchmarks.WORKLOADS) + " (default: all)")
    p.add_argument("--quick", action="store_true",
                   help="small sizes, fewer repeats: a smoke test (CI); results go to "
                        "results/quick/; without workload names it leaves out "
                        + ", ".join(benchmarks.QUICK_OPT_IN) + " (name them to run them)")
    p.add_argument("--repeats", type=int, default=None, help="timed samples per median (>= 5; "
                   "default 7, 5 with --quick)")
    p.add_argument("--movielens", metavar="PATH", default=None,
                   help="bpr: read a real MovieLens-100K u.data instead of the synthetic data")
    p.add_argument("--out", default=None, help="output directory (default benchmarks/results)")
    p.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    p.add_argument("--reuse-cache", action="store_true",
                   help="keep jitad's and Numba's on-disk caches (default: fresh temporary "
                        "caches, so the cold compile time is cold)")
    p.add_argument("--no-gc", action="store_true",
                   help="time with Python's cyclic GC disabled (default: enabled, as users run)")
    p.add_argument("-v", "--verbose", action="store_true", help="a line per system and size")
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    p.add_argument("--cached-probe", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def cached_probe(names):
    """In a fresh process sharing the run's caches: import numba, then jitad, then time each
    workload's first jitad call (transform + load from the disk cache + run)."""
    t0 = time.perf_counter()
    import numba  # noqa: F401
    t_numba = time.perf_counter() - t0
    t0 = time.perf_counter()
    import jitad  # noqa: F401
    t_jitad = time.perf_counter() - t0
    # Numba's one-time start-up in a process (typing context, LLVM, cache machinery), paid by
    # the first call of any cached @njit function: measured on a trivial one, apart from jitad
    from benchmarks import common
    t0 = time.perf_counter()
    common.numba_warmup(1.0)
    t_warm = time.perf_counter() - t0
    out = {"numba_import_s": t_numba, "jitad_import_s": t_jitad,
           "numba_first_cached_call_s": t_warm, "first_call_s": {}}
    for name in names:
        mod = importlib.import_module(f"benchmarks.{name}")
        if not hasattr(mod, "jitad_first_call"):
            continue
        t0 = time.perf_counter()
        try:
            mod.jitad_first_call()
            out["first_call_s"][name] = time.perf_counter() - t0
        except Exception as e:
            out["first_call_s"][name] = f"error: {type(e).__name__}: {e}"
    print("CACHED_PROBE " + json.dumps(out))
    return 0


def run_cached_probe(names):
    cmd = [sys.executable, "-m", "benchmarks", "--cached-probe", ",".join(names)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.dirname(HERE),
                              env=os.environ.copy(), timeout=600)
    except Exception as e:
        return {"error": f"{type(e).__name__}: {e}"}
    for line in proc.stdout.splitlines():
        if line.startswith("CACHED_PROBE "):
            return json.loads(line[len("CACHED_PROBE "):])
    return {"error": f"probe exited {proc.returncode}: {proc.stderr.strip()[-500:]}"}


def main(argv=None):
    opts = parse(sys.argv[1:] if argv is None else argv)
    if opts.list:
        print("\n".join(benchmarks.WORKLOADS))
        return 0
    if opts.cached_probe is not None:
        return cached_probe([n for n in opts.cached_probe.split(",") if n])
    names = opts.workloads or [n for n in benchmarks.WORKLOADS
                               if not (opts.quick and n in benchmarks.QUICK_OPT_IN)]
    unknown = [n for n in names if n not in benchmarks.WORKLOADS]
    if unknown:
        print(f"unknown workload(s): {', '.join(unknown)}; choose from "
              f"{', '.join(benchmarks.WORKLOADS)}", file=sys.stderr)
        return 2

    own_cache = None
    if not opts.reuse_cache:
        own_cache = tempfile.mkdtemp(prefix="jitad-bench-cache-")
        os.environ["JITAD_CACHE_DIR"] = os.path.join(own_cache, "jitad")
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(own_cache, "numba")

    from benchmarks import common as C
    from benchmarks import report

    ctx = C.Context(quick=opts.quick, movielens=opts.movielens, verbose=opts.verbose,
                    gc=not opts.no_gc)
    ctx.repeats = max(5, opts.repeats or (5 if opts.quick else 7))
    if opts.quick:
        ctx.min_sample_s, ctx.budget_s = 0.01, 2.0
    ctx.log = (lambda s: print(s, flush=True)) if opts.verbose else (lambda s: None)
    out_dir = opts.out or os.path.join(HERE, "results", "quick" if opts.quick else "")
    out_dir = os.path.normpath(out_dir)
    os.makedirs(out_dir, exist_ok=True)

    t_start = time.perf_counter()
    machine = C.machine_info()
    tw = time.perf_counter()
    C.numba_warmup(1.0)          # Numba's one-time start-up, so no workload's cold time has it
    machine["numba_startup_s"] = time.perf_counter() - tw
    stamp = datetime.datetime.now().strftime("%Y-%m-%dT%H%M%S")
    print(f"jitad benchmarks ({'quick' if opts.quick else 'full'}): {', '.join(names)}; "
          f"median of {ctx.repeats} runs; OPENBLAS_NUM_THREADS=1, torch/XLA 1 thread; "
          f"{machine['cores']} cores ({machine['cpu']})", flush=True)
    missing = [k for k, v in machine["peers"].items() if str(v).startswith("missing")]
    if missing:
        print(f"  peers not installed (skipped): {', '.join(missing)}", flush=True)

    results = {}
    status = 0
    for k, name in enumerate(names, 1):
        print(f"[{k}/{len(names)}] {name} ...", end="" if not opts.verbose else "\n", flush=True)
        t0 = time.perf_counter()
        # Everything alive now (the peers' modules, earlier workloads) is moved out of the
        # cyclic GC's sight, so a system's full collections scan its own objects only.
        gc.collect()
        gc.freeze()
        load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        try:
            mod = importlib.import_module(f"benchmarks.{name}")
            cold = None
            if hasattr(mod, "jitad_first_call"):
                tc = time.perf_counter()
                mod.jitad_first_call()
                cold = time.perf_counter() - tc
            res = mod.run(ctx)
            res["jitad_cold_first_call_s"] = cold
        except Exception as e:  # a workload that crashes is reported, the rest still run
            import traceback
            traceback.print_exc()
            res = {"title": name, "error": f"{type(e).__name__}: {e}", "rows": [], "goals": []}
        res["seconds"] = time.perf_counter() - t0
        res["loadavg_1min"] = [load0, os.getloadavg()[0] if load0 is not None else None]
        res["run"] = stamp
        res["quick"] = opts.quick
        results[name] = res
        counts = {}
        for row in res["rows"]:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
            if row["status"] == C.FAILED and (row["system"].startswith("jitad")
                                              or row.get("reference")):
                status = 1
        if "error" in res or not res.get("reference_fd", {"ok": True})["ok"]:
            status = 1
        summary = ", ".join(f"{v} {k}" for k, v in counts.items()) or res.get("error", "")
        missed = [g for g in res.get("goals", []) if g["met"] is False]
        print(f"{' ' if not opts.verbose else '  '}{res['seconds']:.0f} s: {summary}"
              + (f"; goals missed: {len(missed)}" if missed else ""), flush=True)

    # one new process per workload, so each number includes the same one-time costs
    for name, res in results.items():
        if "error" in res:
            continue
        probe = run_cached_probe([name])
        res["jitad_cached_first_call_s"] = probe.get("first_call_s", {}).get(name,
                                                                          probe.get("error"))
        cg = getattr(importlib.import_module(f"benchmarks.{name}"), "COMPILE_GOALS", None)
        if cg:
            cached = res["jitad_cached_first_call_s"]
            res["goals"] += [
                C.goal(f"jitad cold first call ≤ {cg['cold_s']} s", res["jitad_cold_first_call_s"],
                       cg["cold_s"], fmt="{:.2f} s"),
                C.goal(f"jitad cached first call in a new process ≤ {cg['cached_s']} s",
                       cached if isinstance(cached, (int, float)) else None, cg["cached_s"],
                       fmt="{:.3f} s")]
        res["cached_probe"] = {k: v for k, v in probe.items() if k != "first_call_s"}
        machine["cached_probe"] = res["cached_probe"]
    machine["total_s"] = time.perf_counter() - t_start

    run_record = {"machine": machine, "quick": opts.quick, "workloads": results,
                  "argv": sys.argv[1:] if argv is None else list(argv)}
    run_path = os.path.join(out_dir, f"{stamp}.json")
    with open(run_path, "w") as fh:
        json.dump(run_record, fh, indent=1, default=str)

    latest_path = os.path.join(out_dir, "latest.json")
    latest = {"runs": {}, "workloads": {}}
    if os.path.exists(latest_path):
        try:
            with open(latest_path) as fh:
                latest = json.load(fh)
        except Exception:
            pass
    latest["runs"][stamp] = machine
    latest["workloads"].update(results)
    used = {w["run"] for w in latest["workloads"].values()}
    latest["runs"] = {k: v for k, v in latest["runs"].items() if k in used}
    with open(latest_path, "w") as fh:
        json.dump(latest, fh, indent=1, default=str)

    notes = []
    if not opts.no_plots:
        notes = report.plots(latest, out_dir)
    md = report.markdown(latest, out_dir, notes)
    with open(os.path.join(out_dir, "latest.md"), "w") as fh:
        fh.write(md)
    if own_cache:
        shutil.rmtree(own_cache, ignore_errors=True)
    print(f"wrote {os.path.relpath(run_path)}, {os.path.relpath(os.path.join(out_dir, 'latest.md'))}"
          + (f" ({'; '.join(notes)})" if notes else "")
          + f"; total {machine['total_s']:.0f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
