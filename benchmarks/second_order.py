"""Workload 9: forward mode and second derivatives -- the cost of a JVP, a Hessian-vector
product and a Hessian relative to the forward pass (issue 13's goals: JVP ≤ 2×, HVP ≤ 4× the
forward pass, the textbook bounds).

Four functions, each differentiated wrt its parameters (the "sizes" of this workload):

* `projectile_range` of the while_loop workload (an adaptive ODE integrated `while y >= 0`),
  wrt the three scalars (c, vx0, vy0): tuple wrt, v a tuple of three floats;
* a 2-layer tanh MLP's mean squared error on a batch of 64, wrt W1 (D × H);
* a Rosenbrock sum over a vector of n = 1,000, wrt x;
* a tanh RNN over 30 steps (a Python `for` loop; JAX unrolls it), wrt its 10 × 10 weights:
  issue 13's "Hessian of a 100-parameter objective with a loop".

For each function, in one process: the compiled forward (the `@jitad.differentiable` call),
`jitad.jvp`, `jitad.hvp` (reverse over the generated forward code) and `jitad.hessian` (one
compiled call looping over a basis), each called from Python; and, because the Python call
costs a few microseconds that dominate small functions, the `.compiled(...)` kernels (the
primal, `jvp(f).compiled(...)`, `hvp(f).compiled(..., v=v)`) called K times from an
`@numba.njit` loop -- the fair "derivative vs forward pass" ratio. The loop feeds `0.0 * acc`
(acc: the running sum of the results) into one scalar argument, so no call can be hoisted out
of the loop or dropped by the compiler; every kernel kind runs in the same loop.

Peers: JAX (`jax.jit(f)`, `jax.jit` of `jax.jvp`, of forward-over-reverse `jax.jvp(jax.grad(f))`
and of `jax.hessian`) on the same function in `jax.numpy` (the ODE: the while_loop workload's
`lax.while_loop` program, through which JAX pushes tangents but cannot reverse: its HVP and
Hessian are "not expressible"; a bounded `lax.scan` rewrite is shown beside it); autograd
(`make_jvp`, `hessian_vector_product` (reverse over reverse), `hessian`) on the plain function
with its globals rebound. Peers take the differentiated parameters as one array (the ODE's
three scalars as a 3-vector).

Checks before timing: jitad's forward vs the plain function, its jvp vs central differences
of f along v, its hvp vs central differences of `jitad.grad` along v, its Hessian times v vs
its hvp (and symmetric); every other row against jitad's row of the same operation.
"""
import math
import time

import numba
import numpy as np

import jitad
from benchmarks import common as C
from benchmarks import while_loop as W

NAME = "second_order"
TITLE = "Forward mode and second derivatives: JVP, HVP and Hessian vs the forward pass"
OPS = ("forward", "jvp", "hvp", "hessian")


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 + b2 - y
    return 0.5 * np.sum(r * r) / X.shape[0]


def rnn_loss(W, xs, ys, scale):
    h = np.zeros(W.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + scale * xs[t])
        s = s + (h[0] - ys[t]) ** 2
    return s


def rosenbrock(x, a):
    u = x[1:] - x[:-1] ** 2
    b = 1.0 - x[:-1]
    return np.sum(a * u * u + b * b)


class Fn:
    """One function of the workload: jitad's form (f, args, wrt, v) and the peers' form
    (the differentiated parameters as one array p: `call(f, p)` runs f)."""

    def __init__(self, key, label, f, args, wrt, v, vary, call, p0, pv, what):
        self.key, self.label, self.f, self.args, self.wrt, self.v = key, label, f, args, wrt, v
        self.vary = vary                 # a scalar argument the @njit loop perturbs by 0.0*acc
        self.call, self.p0, self.pv, self.what = call, p0, pv, what
        self.n = int(np.size(p0))
        self.vs = v if isinstance(v, tuple) else (v,)


def functions(quick):
    rng = np.random.default_rng(0)
    tol = 1e-3 if quick else 1e-4
    it, acc = W.steps(tol)
    proj = Fn("projectile_range", "projectile_range (ODE, `while`), wrt (c, vx0, vy0)",
              W.projectile_range, (W.C0, W.VX0, W.VY0, tol), (0, 1, 2), (0.3, -0.5, 0.7), 0,
              lambda f, p: f(p[0], p[1], p[2], tol), np.array([W.C0, W.VX0, W.VY0]),
              np.array([0.3, -0.5, 0.7]),
              f"tol = {tol:g}: {it:,} iterations of the adaptive loop ({acc:,} accepted steps)")
    D = H = 16 if quick else 32
    B = 64
    W1 = rng.normal(size=(D, H)) / math.sqrt(D)
    b1, W2 = rng.normal(size=H) * 0.1, rng.normal(size=H) / math.sqrt(H)
    X, y = rng.normal(size=(B, D)), rng.normal(size=B)
    vW = rng.normal(size=(D, H))
    mlp = Fn("mlp", f"tanh MLP loss, batch {B}, {D}-{H}-1, wrt W1 ({D}×{H})", mlp_loss,
             (W1, b1, W2, 0.1, X, y), 0, vW, 3,
             lambda f, p: f(p, b1, W2, 0.1, X, y), W1, vW,
             f"0.5·mean((tanh(X W1 + b1) W2 + b2 − y)²), X {B}×{D}: n = {D * H} parameters")
    n = 100 if quick else 1000
    x = rng.uniform(-1.0, 1.5, n)
    vx = rng.normal(size=n)
    rosen = Fn("rosenbrock", f"Rosenbrock sum, n = {n:,}, wrt x", rosenbrock, (x, 100.0), 0, vx,
               1, lambda f, p: f(p, 100.0), x, vx,
               "Σ a (x[i+1] − x[i]²)² + (1 − x[i])², a = 100 (NumPy slices)")
    Hr, T = 10, 30
    Wr = rng.normal(size=(Hr, Hr)) / math.sqrt(Hr)
    xs, ys = rng.normal(size=(T, Hr)), rng.normal(size=T)
    vWr = rng.normal(size=(Hr, Hr))
    rnn = Fn("rnn", f"tanh RNN, {T} steps (a `for` loop), wrt W ({Hr}×{Hr})", rnn_loss,
             (Wr, xs, ys, 1.0), 0, vWr, 3, lambda f, p: f(p, xs, ys, 1.0), Wr, vWr,
             f"Σ_t (h_t[0] − y_t)², h_t = tanh(W h_(t−1) + x_t): the issue's 100-parameter "
             f"objective with a loop (n = {Hr * Hr})")
    return [proj, mlp, rosen, rnn]


# ---------------------------------------------------------------------------
# outputs, flattened so every system's can be compared with jitad's
# ---------------------------------------------------------------------------
def flat(x):
    if isinstance(x, (tuple, list)):
        return np.concatenate([flat(e) for e in x]) if x else np.zeros(0)
    if hasattr(x, "detach"):
        x = x.detach().numpy()
    return np.ravel(np.asarray(x, dtype=np.float64))


def hessian_matrix(H, fn):
    return flat(H).reshape(fn.n, fn.n)


# ---------------------------------------------------------------------------
# the @njit loop that calls a compiled kernel K times
# ---------------------------------------------------------------------------
_LOOPS: dict = {}


def njit_loop(kern, nargs, vary, consume):
    """`loop(K, a0, ..., a{nargs-1}) -> acc`: calls `kern` K times, argument `vary` plus
    0.0 * acc (a data dependence on the previous results: no call is hoisted or dropped), and
    adds `consume` (an expression of the result r) to acc."""
    key = (id(kern), nargs, vary, consume)
    if key in _LOOPS:
        return _LOOPS[key]
    names = [f"a{i}" for i in range(nargs)]
    call = list(names)
    call[vary] = f"({names[vary]} + 0.0 * acc)"
    src = (f"def loop(K, {', '.join(names)}):\n"
           f"    acc = 0.0\n"
           f"    for k in range(K):\n"
           f"        r = kern({', '.join(call)})\n"
           f"        acc += {consume}\n"
           f"    return acc\n")
    ns = {"kern": kern}
    exec(compile(src, "<second_order njit loop>", "exec"), ns)
    loop = _LOOPS[key] = numba.njit(ns["loop"])
    return loop


def _first_element(a):
    """Index of a first element: '' (scalar), '[0]', '[0, 0]' ..."""
    nd = np.ndim(a)
    return "" if nd == 0 else "[" + ", ".join("0" * nd) + "]"


def kernel_case(loop, kargs, check, key, calls):
    """A Case timing `loop(K, *kargs)`; K (a power of 2) is chosen so that one loop call
    lasts ~2 ms, and recorded in `calls[key]` (the times are divided by it after the run)."""
    loop(1, *kargs)                              # compiles the loop (and the kernel, if needed)
    loop(1, *kargs)
    K = 1
    while K < 10 ** 6:
        t0 = time.perf_counter()
        loop(K, *kargs)
        if time.perf_counter() - t0 >= 2e-3:
            break
        K *= 2
    calls[key] = K
    calls[("paired",) + key] = lambda: loop(K, *kargs), K
    return C.Case(lambda: loop(K, *kargs), check=check)


# ---------------------------------------------------------------------------
# systems, per operation and function
# ---------------------------------------------------------------------------
FWD_CALL = "jitad: forward, compiled call"
FWD_KERNEL = "jitad: forward kernel, @njit loop"
PLAIN = "plain Python/NumPy function"
JAX_FWD = "JAX: jit(f)"
JAX_SCAN_FWD = "JAX: jit(f), bounded lax.scan (a rewrite)"

# every row's forward-pass baseline: its ratio is time / baseline (Hessian: / (n × baseline))
BASE = {
    "jitad: jvp, compiled call": FWD_CALL,
    "jitad: jvp kernel, @njit loop": FWD_KERNEL,
    "autograd: make_jvp (forward mode)": PLAIN,
    "JAX: jit(jvp)": JAX_FWD,
    "jitad: hvp, compiled call": FWD_CALL,
    "jitad: hvp kernel, @njit loop": FWD_KERNEL,
    "autograd: hessian_vector_product (reverse over reverse)": PLAIN,
    "JAX: jit(jvp(grad)) (forward over reverse)": JAX_FWD,
    "JAX: jit(jvp(grad)), bounded lax.scan (a rewrite)": JAX_SCAN_FWD,
    "jitad: hessian, one compiled call": FWD_KERNEL,
    "jitad: hessian, parallel=True (columns on 2 threads)": FWD_KERNEL,
    "autograd: hessian": PLAIN,
    "JAX: jit(hessian)": JAX_FWD,
    "JAX: jit(hessian), bounded lax.scan (a rewrite)": JAX_SCAN_FWD,
}


def _jax_fns(jax, fn, max_steps):
    """(the JAX function of p, the bounded-scan rewrite of p or None)."""
    import jax.numpy as jnp
    if fn.key == "projectile_range":
        f_while, f_scan = W.jax_projectile(jax, max_steps)
        tol = fn.args[3]
        return (lambda p: f_while(p[0], p[1], p[2], tol)), (lambda p: f_scan(p[0], p[1], p[2], tol))
    fj = C.rebind(fn.f, np=jnp)
    return (lambda p: fn.call(fj, p)), None


def _not_expressible(e):
    return C.NotExpressible("reverse mode through a data-dependent `while` (`lax.while_loop`); "
                            "JAX says: " + C._err_text(e).split(": ", 1)[-1].split(". Try")[0])


def systems(op, fn, calls, max_steps):
    """The systems of one operation on one function; the first (jitad's call) is the
    reference the others are checked against."""
    f, args, wrt, vs = fn.f, fn.args, fn.wrt, fn.vs
    d = jitad.differentiable(f)
    nargs = len(args)
    out = []
    if op == "forward":
        calls[("paired", FWD_CALL, fn.key)] = lambda: d(*args)
        out.append(C.System(FWD_CALL, reference=True,
                            make=lambda s: C.Case(lambda: d(*args), check=lambda: flat(d(*args)))))

        def fwd_kernel(s):
            comp = d.specialize(d.bind(args, {}))
            kern = comp.fn(comp.gen.primal)
            loop = njit_loop(kern, nargs, fn.vary, "r")
            return kernel_case(loop, args, lambda: flat(kern(*args)), (FWD_KERNEL, s), calls)
        out.append(C.System(FWD_KERNEL, make=fwd_kernel))
        out.append(C.System(PLAIN, make=lambda s: C.Case(lambda: f(*args),
                                                         check=lambda: flat(f(*args)))))
    elif op == "jvp":
        jv = jitad.jvp(f, wrt)
        tans = fn.v
        calls[("paired", "jitad: jvp, compiled call", fn.key)] = lambda: jv(*args, tangents=tans)
        out.append(C.System("jitad: jvp, compiled call", reference=True,
                            make=lambda s: C.Case(lambda: jv(*args, tangents=tans),
                                                  check=lambda: flat(jv(*args, tangents=tans)))))

        def jvp_kernel(s):
            kern = jv.compiled(*args)
            loop = njit_loop(kern, nargs + len(vs), fn.vary, "r[0] + r[1]")
            kargs = tuple(args) + tuple(vs)
            return kernel_case(loop, kargs, lambda: flat(kern(*kargs)), ("jitad: jvp kernel, "
                               "@njit loop", s), calls)
        out.append(C.System("jitad: jvp kernel, @njit loop", make=jvp_kernel))
    elif op == "hvp":
        hv = jitad.hvp(f, wrt)
        calls[("paired", "jitad: hvp, compiled call", fn.key)] = lambda: hv(*args, v=fn.v)
        out.append(C.System("jitad: hvp, compiled call", reference=True,
                            make=lambda s: C.Case(lambda: hv(*args, v=fn.v),
                                                  check=lambda: flat(hv(*args, v=fn.v)))))

        def hvp_kernel(s):
            kern = hv.compiled(*args, v=fn.v)
            consume = " + ".join(f"r[{k}]{_first_element(args[i])}"
                                 for k, i in enumerate(fn.wrt if isinstance(
                                     fn.wrt, tuple) else (fn.wrt,)))
            loop = njit_loop(kern, nargs + len(vs) + 1, fn.vary, consume)
            kargs = tuple(args) + tuple(vs) + (1.0,)
            return kernel_case(loop, kargs, lambda: flat(kern(*kargs)),
                               ("jitad: hvp kernel, @njit loop", s), calls)
        out.append(C.System("jitad: hvp kernel, @njit loop", make=hvp_kernel))
    else:
        he = jitad.hessian(f, wrt)
        out.append(C.System("jitad: hessian, one compiled call", reference=True,
                            make=lambda s: C.Case(lambda: he(*args),
                                                  check=lambda: hessian_matrix(he(*args), fn))))
        hp = jitad.hessian(f, wrt, parallel=True)
        out.append(C.System("jitad: hessian, parallel=True (columns on 2 threads)",
                            make=lambda s: C.Case(lambda: hp(*args),
                                                  check=lambda: hessian_matrix(hp(*args), fn))))
    out += _autograd_systems(op, fn)
    out += _jax_systems(op, fn, max_steps)
    return out


def _autograd_systems(op, fn):
    if op == "forward":
        return []
    names = {"jvp": "autograd: make_jvp (forward mode)",
             "hvp": "autograd: hessian_vector_product (reverse over reverse)",
             "hessian": "autograd: hessian"}
    autograd, why = C.peer("autograd")
    if autograd is None:
        return [C.System(names[op], status=C.SKIPPED, note=why)]
    am, anp = C.autograd_namespaces()
    fa = C.rebind(fn.f, math=am, np=anp)

    def g(p):
        return fn.call(fa, p)
    p0, pv = fn.p0, fn.pv
    if op == "jvp":
        jf = autograd.make_jvp(g)

        def run():
            return jf(p0)(pv)
        return [C.System(names[op], version=C.peer_version("autograd"),
                         make=lambda s: C.Case(run, check=lambda: flat(run())))]
    if op == "hvp":
        hf = autograd.hessian_vector_product(g)
        sysm = C.System(names[op], version=C.peer_version("autograd"),
                        make=lambda s: C.Case(lambda: hf(p0, pv), check=lambda: flat(hf(p0, pv))))
    else:
        hf = autograd.hessian(g)
        sysm = C.System(names[op], version=C.peer_version("autograd"),
                        make=lambda s: C.Case(lambda: hf(p0),
                                              check=lambda: hessian_matrix(hf(p0), fn)))
    if fn.key == "projectile_range":
        # nested boxes through ~10^4 scalar ops: 15 s (tol 1e-3) to ~1 min per call here
        sysm.single_run = True
        sysm.note = "one call timed once (its check call), not a median: ~15 s or more per call"
    return [sysm]


def _jax_systems(op, fn, max_steps):
    names = {"forward": JAX_FWD, "jvp": "JAX: jit(jvp)",
             "hvp": "JAX: jit(jvp(grad)) (forward over reverse)", "hessian": "JAX: jit(hessian)"}
    scan_names = {"forward": JAX_SCAN_FWD,
                  "hvp": "JAX: jit(jvp(grad)), bounded lax.scan (a rewrite)",
                  "hessian": "JAX: jit(hessian), bounded lax.scan (a rewrite)"}
    jax, why = C.peer("jax")
    if jax is None:
        return [C.System(names[op], status=C.SKIPPED, note=why)]
    import jax.numpy as jnp
    fj, fscan = _jax_fns(jax, fn, max_steps)
    p0, pv = jnp.asarray(fn.p0), jnp.asarray(fn.pv)
    version = C.peer_version("jax")

    def build(func):
        if op == "forward":
            g = jax.jit(func)
            return lambda: g(p0)
        if op == "jvp":
            g = jax.jit(lambda p, v: jax.jvp(func, (p,), (v,)))
            return lambda: g(p0, pv)
        if op == "hvp":
            g = jax.jit(lambda p, v: jax.jvp(jax.grad(func), (p,), (v,))[1])
            return lambda: g(p0, pv)
        g = jax.jit(jax.hessian(func))
        return lambda: g(p0)

    def case(func, while_loop):
        def make(s):
            run = build(func)

            def check():                     # the first call: trace + XLA compile + run
                try:
                    out = jax.block_until_ready(run())
                except Exception as e:
                    if while_loop:           # JAX refuses to reverse the `while`
                        raise _not_expressible(e)
                    raise
                return hessian_matrix(out, fn) if op == "hessian" else flat(out)
            return C.Case(lambda: jax.block_until_ready(run()), check=check)
        return make

    is_while = fn.key == "projectile_range"
    note = "the while_loop workload's `lax.while_loop` program" if is_while else ""
    out = [C.System(names[op], make=case(fj, is_while and op in ("hvp", "hessian")),
                    version=version, note=note)]
    if fscan is not None and op in scan_names:
        out.append(C.System(scan_names[op], make=case(fscan, False), version=version,
                            note=f"not the same program: a scan of max_steps = {max_steps:,} "
                                 f"masked steps (the while_loop workload's rewrite)"))
    return out


# ---------------------------------------------------------------------------
# checks of jitad's own results
# ---------------------------------------------------------------------------
def checks(fn, first_calls):
    """jitad's forward vs the plain function; jvp vs central differences of f along v; hvp vs
    central differences of jitad.grad along v; Hessian·v vs hvp, and its symmetry. Returns
    a list of records; `first_calls[op]` gets each operation's first call (its compile)."""
    f, args, wrt = fn.f, fn.args, fn.wrt
    widx = wrt if isinstance(wrt, tuple) else (wrt,)
    out = []

    def first(op, call):
        t0 = time.perf_counter()
        r = call()
        first_calls[op] = time.perf_counter() - t0
        return r

    def shifted(t):
        a = list(args)
        for i, v in zip(widx, fn.vs):
            a[i] = a[i] + t * (np.asarray(v) if np.ndim(v) else v)
        return a

    def rel(got, ref):
        got, ref = flat(got), flat(ref)
        return float(np.max(np.abs(got - ref)) / max(float(np.max(np.abs(ref))), 1e-300))

    def record(what, err, rtol):
        out.append({"what": f"{fn.key}: {what}", "ok": bool(err <= rtol), "max_rel_err": err,
                    "rtol": rtol})

    y = first("forward", lambda: jitad.differentiable(f)(*args))
    record("forward vs the plain function", rel(y, f(*args)), 1e-12)
    _, tangent = first("jvp", lambda: jitad.jvp(f, wrt)(*args, tangents=fn.v))
    hv = flat(first("hvp", lambda: jitad.hvp(f, wrt)(*args, v=fn.v)))
    H = hessian_matrix(first("hessian", lambda: jitad.hessian(f, wrt)(*args)), fn)
    h = 1e-5 * max(1.0, float(np.max(np.abs(fn.p0)))) / max(1.0, float(np.max(np.abs(fn.pv))))
    record("jvp vs central differences of f along v",
           rel(tangent, (f(*shifted(h)) - f(*shifted(-h))) / (2 * h)), 1e-5)
    g = jitad.grad(f, wrt)
    record("hvp vs central differences of jitad.grad along v",
           rel(hv, (flat(g(*shifted(h))) - flat(g(*shifted(-h)))) / (2 * h)), 1e-4)
    record("Hessian·v vs hvp", rel(H @ flat(fn.pv), hv), 1e-10)
    record("Hessian symmetric", rel(H.T, H), 1e-10)
    return out


# ---------------------------------------------------------------------------
# running, merging and rendering
# ---------------------------------------------------------------------------
def _merge(op, rows_list):
    """Rows of the same system over the functions -> one row; a cell that did not run keeps
    its own status and note (`results[fn] = {"status": ..., "note": ...}`)."""
    merged, order = {}, []
    for fn_key, rows in rows_list:
        for r in rows:
            m = merged.get(r["system"])
            if m is None:
                m = merged[r["system"]] = {k: v for k, v in r.items() if k != "results"}
                m["results"], m["statuses"], m["notes"], m["op"] = {}, [], [], op
                order.append(r["system"])
            cell = dict(r["results"].get(fn_key, {}))
            if r["status"] != C.OK:
                cell.update(status=r["status"], note=r["note"])
            m["results"][fn_key] = cell
            m["statuses"].append(r["status"])
            note = r["note"] if r["status"] == C.OK else f"{fn_key}: {r['note']}"
            if note and note not in m["notes"]:
                m["notes"].append(note)
    out = []
    for name in order:
        m = merged[name]
        sts = m.pop("statuses")
        m["status"] = C.FAILED if C.FAILED in sts else (C.OK if C.OK in sts else sts[0])
        m["note"] = "; ".join(m.pop("notes"))
        out.append(m)
    return out


def _ratios(rows, fns):
    """Each row's time / its forward baseline's, per function (Hessian: / (n × baseline))."""
    by = {r["system"]: r for r in rows}
    for r in rows:
        base = BASE.get(r["system"])
        r["per_forward"] = {}
        if not base or base not in by:
            continue
        for fn in fns:
            a, b = C.cell(r, fn.key), C.cell(by[base], fn.key)
            if a and b:
                n = fn.n if r["op"] == "hessian" else 1
                r["per_forward"][fn.key] = a["median_s"] / (n * b["median_s"])
        r["per_forward_of"] = base


def table_md(rows, fns):
    head = ["system"] + [fn.label for fn in fns] + ["notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["system"]]
        for fn in fns:
            c = r["results"].get(fn.key)
            if not c:
                cells.append("")
            elif "median_s" in c:
                pf = r.get("per_forward", {}).get(fn.key)
                unit = "n·fwd" if r["op"] == "hessian" else "fwd"
                cells.append(C.fmt_time(c["median_s"]) + (" ‡" if c.get("single_run") else "")
                             + (f" ({C.fmt_ratio(pf)} {unit})" if pf is not None else ""))
            else:
                st = c.get("status", "—")
                cells.append(f"**{st}**" if st == C.FAILED else st)
        cells.append((r.get("note") or "").replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if any(c.get("single_run") for r in rows for c in r["results"].values()):
        text += "\n\n‡ one call timed once (too slow to repeat), not a median."
    return text


def paired(runs, rounds, target_s):
    """{name: run or (run, calls per run)}: each run is repeated to last >= target_s (longer
    than the scheduler's time slice on a loaded machine), then every round times each run
    once, in turn (so they share the machine's drift); returns {name: median over rounds of
    its per-call time divided by the first run's}."""
    timed = {}
    for name, r in runs.items():
        run, k = r if isinstance(r, tuple) else (r, 1)
        m = 1
        while m < 1 << 20:
            t0 = time.perf_counter()
            for _ in range(m):
                run()
            if time.perf_counter() - t0 >= target_s:
                break
            m *= 2
        timed[name] = ((lambda run=run, m=m: [run() for _ in range(m)]), m * k)
    names = list(timed)
    ratios = {n: [] for n in names[1:]}
    for _ in range(rounds):
        t = {}
        for n in names:
            run, k = timed[n]
            t0 = time.perf_counter()
            run()
            t[n] = (time.perf_counter() - t0) / k
        for n in names[1:]:
            ratios[n].append(t[n] / t[names[0]])
    return {n: float(np.median(v)) for n, v in ratios.items()}


PAIRS = {"@njit kernels": (FWD_KERNEL, "jitad: jvp kernel, @njit loop",
                           "jitad: hvp kernel, @njit loop"),
         "calls from Python": (FWD_CALL, "jitad: jvp, compiled call", "jitad: hvp, compiled call")}


def run_op(ctx, systems_, key):
    """`run_systems` at one size; a system flagged `single_run` (too slow to repeat) is
    checked by one call, and that call's time is its time (marked in the table)."""
    single = [s for s in systems_ if getattr(s, "single_run", False) and s.status == C.OK]
    rows = C.run_systems(ctx, [s for s in systems_ if s not in single], [key], rtol=1e-9)
    if not single:
        return rows
    ref = next(s for s in systems_ if s.reference)
    case = ref.make(key)
    ref_out = (case.check or case.run)()
    for sysm in single:
        row = {"system": sysm.name, "status": C.OK, "note": sysm.note, "version": sysm.version,
               "reference": False, "results": {}}
        rows.append(row)
        try:
            t0 = time.perf_counter()
            case = sysm.make(key)
            t_make = time.perf_counter() - t0
            t0 = time.perf_counter()
            out = (case.check or case.run)()
            t = time.perf_counter() - t0
            ok, err, msg = C.compare(out, ref_out, 1e-9)
            res = row["results"][key] = {"first_call_s": t, "make_s": t_make,
                                         "check": {"ok": ok, "max_rel_err": err}}
            if ok:
                res.update(median_s=t, samples_s=[t], inner=1, single_run=True)
                ctx.log(f"    {sysm.name} @ {key}: {C.fmt_time(t)} (one call, err {err:.1e})")
            else:
                row["status"], row["note"] = C.FAILED, f"wrong result at {key}: {msg}"
        except Exception as e:
            row["status"], row["note"] = C.FAILED, f"error at {key}: {C._err_text(e)}"
        if row["status"] == C.FAILED:
            ctx.log(f"    {sysm.name}: FAILED ({row['note']})")
    return rows


def jitad_first_call():
    fn = functions(quick=True)[0]
    return jitad.hvp(fn.f, fn.wrt)(*fn.args, v=fn.v)


def run(ctx):
    fns = functions(ctx.quick)
    calls = {}
    it, _ = W.steps(fns[0].args[3])
    max_steps = int(math.ceil(it * 1.25 / 100.0)) * 100
    records, first_calls = [], {}
    for fn in fns:                  # jitad's own results, checked first (and its compile times)
        first_calls[fn.key] = {}
        records += checks(fn, first_calls[fn.key])
    rows_by_op = []
    for op in OPS:
        per_fn = []
        for fn in fns:
            ctx.log(f"  {op} of {fn.key}")
            per_fn.append((fn.key, run_op(ctx, systems(op, fn, calls, max_steps), fn.key)))
        rows_by_op += _merge(op, per_fn)
    rows = rows_by_op
    for r in rows:                                 # the @njit loops: per kernel call
        for size, cell in r["results"].items():
            K = calls.get((r["system"], size))
            if K and "median_s" in cell:
                cell["median_s"] /= K
                cell["samples_s"] = [s / K for s in cell["samples_s"]]
                cell["njit_loop_calls"] = K
    _ratios(rows, fns)
    rounds, target = (11, 0.005) if ctx.quick else (21, 0.02)
    pair = {fam: {} for fam in PAIRS}
    for fam, names in PAIRS.items():
        for fn in fns:
            runs = {n: calls.get(("paired", n, fn.key)) for n in names}
            if all(runs.values()):
                r = paired(runs, rounds, target)
                pair[fam][fn.key] = {"jvp": r[names[1]], "hvp": r[names[2]]}
    fd = {"what": "jitad's jvp vs central differences of f along v, hvp vs central "
                  "differences of jitad.grad along v, Hessian·v vs hvp, per function",
          "ok": all(c["ok"] for c in records),
          "max_rel_err": max(c["max_rel_err"] for c in records),
          "rtol": max(c["rtol"] for c in records), "records": records}

    def worst(fam, op):
        vals = [pair[fam][fn.key][op] for fn in fns if fn.key in pair[fam]]
        return max(vals) if len(vals) == len(fns) else None

    hess_vs_jax = []
    for fn in fns:
        q = C.ratio(rows, "jitad: hessian, one compiled call", "JAX: jit(hessian)", fn.key)
        if q is not None:
            hess_vs_jax.append(q)
    goals = [
        C.goal("jitad JVP ≤ 2× forward (@njit kernels, paired; worst of the 4 functions)",
               worst("@njit kernels", "jvp"), 2.0),
        C.goal("jitad HVP ≤ 4× forward (@njit kernels, paired; worst of the 4 functions)",
               worst("@njit kernels", "hvp"), 4.0),
        C.goal("jitad JVP ≤ 2× forward (compiled calls from Python, paired; worst of the 4)",
               worst("calls from Python", "jvp"), 2.0),
        C.goal("jitad HVP ≤ 4× forward (compiled calls from Python, paired; worst of the 4)",
               worst("calls from Python", "hvp"), 4.0),
        C.goal("jitad Hessian ≤ JAX jit(hessian): the 100-parameter objective with a loop (rnn)",
               C.ratio(rows, "jitad: hessian, one compiled call", "JAX: jit(hessian)", "rnn"), 1.0),
        C.goal("jitad Hessian ≤ JAX jit(hessian) (worst over the functions JAX can do)",
               max(hess_vs_jax) if hess_vs_jax else None, 1.0)]
    lines = [f"Paired ratios (the goals' measure): jitad's forward, jvp and hvp timed in turn "
             f"(each run ≥ {target * 1e3:g} ms), {rounds} rounds, median of the per-round ratios -- robust to the machine's "
             f"drift, unlike the ratios of separate medians in the table above.", "",
             "| ratio to the forward pass | " + " | ".join(fn.key for fn in fns) + " |",
             "|---|" + "---|" * len(fns)]
    for fam in PAIRS:
        for op in ("jvp", "hvp"):
            lines.append(f"| {op}, {fam} | " + " | ".join(
                C.fmt_ratio(pair[fam].get(fn.key, {}).get(op)) for fn in fns) + " |")
    lines += ["", "Checks of jitad's own results (before timing):", ""]
    lines += [f"- {c['what']}: max relative error {c['max_rel_err']:.1e} "
              + ("(ok)" if c["ok"] else f"**> {c['rtol']:.0e}: FAILED**") for c in records]
    lines += ["", "Functions: " + "; ".join(f"{fn.key}: {fn.what}" for fn in fns) + ".", "",
              "First calls: jitad's in the checks above (transform + Numba compile, the run's "
              "fresh caches; the kernel rows reuse these compiled functions"
              + "; projectile_range's hvp was compiled before, by the workload's cold first "
                "call in the Compile time table"
              + "); JAX's: trace + XLA compile + first run.", "",
              "| first call | " + " | ".join(fn.key for fn in fns) + " |",
              "|---|" + "---|" * len(fns)]
    for op in OPS:
        lines.append(f"| jitad {op} | " + " | ".join(
            C.fmt_time(first_calls[fn.key].get(op)) for fn in fns) + " |")
    for r in rows:
        if r["system"].startswith("JAX"):
            cells = []
            for fn in fns:
                c = r["results"].get(fn.key, {})
                cells.append(C.fmt_time(c["first_call_s"]) if "median_s" in c else "—")
            lines.append(f"| {r['system']} | " + " | ".join(cells) + " |")
    kern = {fn.key: calls.get(("jitad: forward kernel, @njit loop", fn.key)) for fn in fns}
    description = (
        "Time per call (median); in parentheses the ratio to the same system's forward pass "
        "(jitad calls: the compiled forward called from Python; jitad kernels: the primal "
        "kernel in the same @njit loop; JAX: `jax.jit(f)`; autograd: the plain function), "
        "for a Hessian the ratio to n forward passes. Kernel rows: K calls per @njit loop "
        f"(forward: {', '.join(f'{k} {v:,}' for k, v in kern.items() if v)}), time / K. "
        "Every row's result was compared with jitad's row of the same operation (rtol 1e-9).")
    return {"title": TITLE, "sizes": [fn.key for fn in fns], "rows": rows,
            "size_names": {fn.key: fn.label for fn in fns},
            "reference_fd": fd, "plot": "bars", "reference": FWD_CALL,
            "description": description, "table_md": table_md(rows, fns),
            "extra_md": "\n".join(lines), "goals": goals, "paired_ratios": pair,
            "paired_rounds": rounds}
