"""Markdown tables and PNG plots from the merged results (`latest.json`)."""
from __future__ import annotations

import os

import benchmarks
from benchmarks.common import FAILED, OK, fmt_ratio, fmt_size, fmt_time

STATUS_TEXT = {"skipped": "skipped", "not expressible": "not expressible",
               "unsupported": "does not run", "failed": "FAILED"}


def _cell(row, size):
    r = row["results"].get(str(size))
    return r if r and "median_s" in r else None


def _ref(w):
    return next((r for r in w["rows"] if r.get("reference")), None)


def _fmt_cell(row, size, ops=None):
    c = _cell(row, size)
    if c is None:
        return "—"
    s = fmt_time(c["median_s"])
    if ops:
        s += f" ({fmt_time(c['median_s'] / ops)}/op)"
    if "scaled_from" in c:
        s += " †"
    return s


def _size_header(w, size):
    names = w.get("size_names") or {}
    if str(size) in names:
        return names[str(size)]
    label = w.get("size_label", "")
    if isinstance(size, str):
        return size
    return f"{label} = {fmt_size(size)}" if label else fmt_size(size)


def workload_table(w):
    sizes = w["sizes"]
    ops = w.get("ops") or {}
    ref = _ref(w)
    big = sizes[-1]
    rate = w.get("rate_label")
    head = ["system"] + [_size_header(w, s) for s in sizes]
    if rate:
        head.append(rate)
    big_name = str(big) if w.get("size_names") else _size_header(w, big)
    head += [f"× {ref['system']}" + (f" ({big_name})" if len(sizes) > 1 else "")
             if ref else "×", "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    scaled_any = False
    for row in w["rows"]:
        cells = [row["system"]]
        note = row.get("note", "")
        if row["status"] != OK:
            text = STATUS_TEXT.get(row["status"], row["status"])
            cells.append(f"**{text}**" if row["status"] == FAILED else text)
            cells += [""] * (len(sizes) - 1 + (1 if rate else 0) + 1)
            cells.append(note.replace("|", "\\|"))
            lines.append("| " + " | ".join(cells) + " |")
            continue
        for s in sizes:
            cells.append(_fmt_cell(row, s, ops.get(str(s))))
            scaled_any |= "scaled_from" in (row["results"].get(str(s)) or {})
        cb = _cell(row, big)
        if rate:
            cells.append(f"{1.0 / cb['median_s']:,.1f}" if cb else "—")
        rb = _cell(ref, big) if ref else None
        cells.append(fmt_ratio(cb["median_s"] / rb["median_s"]) if cb and rb else "—")
        cells.append(note.replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if scaled_any:
        text += ("\n\n† measured at a smaller size and scaled linearly (these systems cost "
                 "the same per step/sample at every size; see the first measured size in the JSON).")
    return text


def goals_table(latest):
    lines = ["| workload | goal | measured | met |", "|---|---|---|---|"]
    for name in benchmarks.WORKLOADS:
        w = latest["workloads"].get(name)
        if not w:
            continue
        for g in w.get("goals", []):
            met = {True: "yes", False: "**no**", None: "n/a"}[g["met"]]
            lines.append(f"| {name} | {g['goal']} | {g['shown']} | {met} |")
    return "\n".join(lines)


def compile_table(latest):
    lines = ["| workload | jitad cold first call | jitad cached first call (new process) | "
             "hand-written Numba first call | JAX first call |", "|---|---|---|---|---|"]
    for name in benchmarks.WORKLOADS:
        w = latest["workloads"].get(name)
        if not w or not w.get("rows"):
            continue

        def first(prefix):
            for row in w["rows"]:
                if row["system"].startswith(prefix) and row["status"] == OK:
                    for r in row["results"].values():
                        if "first_call_s" in r:
                            return fmt_time(r["first_call_s"])
            return "—"
        cached = w.get("jitad_cached_first_call_s")
        cached = fmt_time(cached) if isinstance(cached, (int, float)) else (cached or "—")
        lines.append(f"| {name} | {fmt_time(w.get('jitad_cold_first_call_s'))} | {cached} | "
                     f"{first('hand-written Numba')} | {first('JAX')} |")
    return "\n".join(lines)


def machine_text(latest):
    out = []
    for stamp, m in sorted(latest["runs"].items()):
        th = m.get("threads", {})
        peers = ", ".join(f"{k} {v}" for k, v in m.get("peers", {}).items())
        env = ", ".join(f"{k}={v}" for k, v in m.get("env", {}).items())
        probe = m.get("cached_probe", {})
        out.append(
            f"- run `{stamp}`: {m.get('cpu')}, {m.get('cores')} cores, {m.get('platform')}; "
            f"Python {m.get('python')}, NumPy {m.get('numpy')} ({m.get('numpy_blas')}), "
            f"Numba {m.get('numba')}, jitad {m.get('jitad')} (commit {m.get('jitad_commit')}); "
            f"{peers}. Threads: OPENBLAS/OMP/MKL_NUM_THREADS={th.get('OPENBLAS_NUM_THREADS')}, "
            f"torch {th.get('torch_num_threads', '—')} intra-op / "
            f"{th.get('torch_num_interop_threads', '—')} inter-op, "
            f"NUMBA_NUM_THREADS={th.get('NUMBA_NUM_THREADS')} (no parallel code), "
            f"XLA_FLAGS=`{th.get('XLA_FLAGS')}`" + (f"; environment: {env}" if env else "")
            + (f". New process: `import numba` {fmt_time(probe['numba_import_s'])}, "
               f"`import jitad` {fmt_time(probe['jitad_import_s'])}, first call of a trivial "
               f"cached `@njit` function (Numba's start-up, paid once per process by any Numba "
               f"code) {fmt_time(probe.get('numba_first_cached_call_s'))}"
               if "numba_import_s" in probe else "")
            + f"; whole run {m.get('total_s', 0):.0f} s.")
    return "\n".join(out)


def markdown(latest, out_dir, notes=()):
    ws = latest["workloads"]
    quick = any(w.get("quick") for w in ws.values())
    parts = ["# jitad benchmarks: latest results", "",
             "Written by `python -m benchmarks`" + (" --quick (small sizes: a smoke test, not "
                                                      "results)" if quick else "")
             + "; the methodology is in [benchmarks/README.md]"
             + ("(../../README.md)" if quick else "(../README.md)") + ". "
             "Every time is the **median** of at least 5 timed runs after a warm-up, on a "
             "2-core VM that was running other work at the same time: the numbers are noisy "
             "(ratios hold better than absolute times). Every system's gradient was checked "
             "against the hand-written one at each measured size before it was timed; a wrong "
             "gradient is a FAILED row.", "", "## Goals", "", goals_table(latest), ""]
    k = 0
    for name in benchmarks.WORKLOADS:
        w = ws.get(name)
        if not w:
            continue
        k += 1
        parts += [f"## {k}. {w.get('title', name)}", ""]
        if w.get("error"):
            parts += [f"**The workload crashed:** `{w['error']}`", ""]
            continue
        if w.get("description"):
            parts += [w["description"], ""]
        fd = w.get("reference_fd")
        if fd:
            parts += [f"The baseline ({_ref(w)['system'] if _ref(w) else 'reference'}) checked "
                      f"against central differences of the plain function ({fd['what']}): "
                      f"max relative error {fd['max_rel_err']:.1e} "
                      + ("(ok)." if fd["ok"] else f"**> {fd['rtol']:.0e}: FAILED**."), ""]
        parts += [w.get("table_md") or workload_table(w), ""]   # a workload may render its own
        if w.get("extra_md"):
            parts += [w["extra_md"], ""]
        png = os.path.join(out_dir, f"{name}.png")
        if os.path.exists(png):
            parts += [f"![{name}]({name}.png)", ""]
        la = w.get("loadavg_1min") or [None, None]
        load = (f"; 1-min load average {la[0]:.1f} before, {la[1]:.1f} after (this "
                f"benchmark adds ~1)" if la[0] is not None and la[1] is not None else "")
        parts += [f"<sub>`python -m benchmarks {name}`, run {w.get('run')}, "
                  f"{w.get('seconds', 0):.0f} s{load}</sub>", ""]
    parts += ["## Compile time", "",
              "First call of each system in the benchmark process (jitad: transform + Numba "
              "compile, with fresh empty jitad and Numba caches unless `--reuse-cache`); "
              "cached: the same first call in a new process that finds the on-disk caches "
              "this run wrote, after `import numba`, `import jitad` and Numba's one-time "
              "start-up (the first call of a trivial cached `@njit` function), all timed "
              "separately below. Hand-written Numba and JAX compile at their first call.", "",
              compile_table(latest), "", "## Machine", "", machine_text(latest), ""]
    if notes:
        parts += ["Notes: " + "; ".join(notes), ""]
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------
def plots(latest, out_dir):
    """Write <workload>.png for every workload; returns notes (e.g. matplotlib missing)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:
        return [f"plots skipped: matplotlib not installed ({type(e).__name__})"]
    notes = []
    for name, w in latest["workloads"].items():
        if not w.get("rows"):
            continue
        try:
            fig = _plot(plt, w)
            fig.savefig(os.path.join(out_dir, f"{name}.png"), dpi=110, bbox_inches="tight")
            plt.close(fig)
        except Exception as e:
            notes.append(f"plot {name} failed: {type(e).__name__}: {e}")
    return notes


def _plot(plt, w):
    rows = [r for r in w["rows"] if r["status"] == OK]
    sizes = w["sizes"]
    if w.get("plot") == "loglog":
        fig, ax = plt.subplots(figsize=(7.5, 5))
        for row in rows:
            xs = [s for s in sizes if _cell(row, s)]
            meas = [s for s in xs if "scaled_from" not in row["results"][str(s)]]
            scal = [s for s in xs if "scaled_from" in row["results"][str(s)]]
            ys = [_cell(row, s)["median_s"] for s in meas]
            (line,) = ax.plot(meas, ys, marker="o", label=row["system"],
                              linewidth=2.5 if row["system"].startswith("jitad compiled") else 1.5)
            if scal:
                sx = meas[-1:] + scal
                ax.plot(sx, [_cell(row, s)["median_s"] for s in sx], linestyle="--",
                        marker="o", markerfacecolor="none", color=line.get_color())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(w.get("size_label", "size"))
        ax.set_ylabel("seconds per gradient (median)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=8)
        ax.set_title(_plain(w.get("title", "")) + "\n(dashed, hollow: scaled linearly from the "
                     "last measured size)", fontsize=9)
        return fig
    n = len(sizes)
    fig, axes = plt.subplots(1, n, figsize=(6.5 * n if n > 1 else 7.5, 0.45 * len(rows) + 1.6),
                             squeeze=False)
    for ax, s in zip(axes[0], sizes):
        data = [(r["system"], _cell(r, s)) for r in rows if _cell(r, s)]
        data.sort(key=lambda t: t[1]["median_s"])
        names = [d[0] + (" †" if "scaled_from" in d[1] else "") for d in data]
        vals = [d[1]["median_s"] for d in data]
        bars = ax.barh(range(len(vals)), vals, color=["C1" if nm.startswith("jitad") else
                                                     "C0" for nm in names])
        ax.set_yticks(range(len(vals)))
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        log = bool(vals) and max(vals) / min(vals) > 30
        if log:
            ax.set_xscale("log")
        ax.set_xlabel("seconds (median, log scale)" if log else "seconds (median)")
        ax.set_title(_size_header(w, s) if n > 1 or isinstance(s, str) else "", fontsize=9)
        for b, v in zip(bars, vals):
            ax.text(v, b.get_y() + b.get_height() / 2, " " + fmt_time(v), va="center",
                    fontsize=7)
        if vals:
            ax.set_xlim((min(vals) / 2, max(vals) * 6) if log else (0, max(vals) * 1.25))
    missing = [f"{r['system']} ({STATUS_TEXT.get(r['status'], r['status'])})"
               for r in w["rows"] if r["status"] != OK]
    if missing:
        fig.text(0.01, -0.02, "not shown: " + "; ".join(missing), fontsize=7, ha="left",
                 va="top", wrap=True)
    scaled = any("scaled_from" in (r["results"].get(str(s)) or {}) for r in rows for s in sizes)
    fig.suptitle(_plain(w.get("title", "")) + ("  († scaled linearly from a subset)" if scaled
                                               else "") + "  (orange: jitad)", fontsize=9)
    fig.tight_layout()
    return fig


def _plain(s):
    return s.replace("`", "")
