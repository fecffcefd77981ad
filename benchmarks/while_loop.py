"""Workload 2: a data-dependent `while` -- an ODE integrated with an adaptive step until an
event, gradient wrt the parameters.

A projectile with quadratic drag, integrated with an adaptive Heun-Euler (RK 2(1)) pair: a step
is accepted when its error estimate is below `tol`, and the step size is adapted every
iteration. The loop runs until the projectile hits the ground (`while y >= 0`), and the range
is linearly interpolated to y = 0 between the last two accepted points. The trip count, the
accept/reject branch and the step sizes all depend on the parameters; the gradient of the
range wrt (drag c, vx0, vy0) differentiates through all of it (the same program in every
system, discretize-then-differentiate).
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "while_loop"
TITLE = "Data-dependent `while`: adaptive ODE integration until an event, gradient wrt (c, vx0, vy0)"
C0, VX0, VY0 = 0.05, 20.0, 20.0


def projectile_range(c, vx, vy, tol):
    g = 9.81
    x = 0.0
    y = 0.0
    h = 0.1                                    # too large: the first steps are rejected
    xp = 0.0
    yp = 0.0
    while y >= 0.0:
        v = math.sqrt(vx * vx + vy * vy)
        ax1 = -c * v * vx
        ay1 = -g - c * v * vy
        vx2 = vx + h * ax1                     # Euler predictor
        vy2 = vy + h * ay1
        v2 = math.sqrt(vx2 * vx2 + vy2 * vy2)
        ax2 = -c * v2 * vx2
        ay2 = -g - c * v2 * vy2
        ex = vx2 - vx
        ey = vy2 - vy
        eax = ax2 - ax1
        eay = ay2 - ay1
        err = 0.5 * h * math.sqrt(ex * ex + ey * ey + eax * eax + eay * eay) + 1e-300
        if err <= tol:                         # accept: Heun corrector
            xp = x
            yp = y
            x = x + 0.5 * h * (vx + vx2)
            y = y + 0.5 * h * (vy + vy2)
            vx = vx + 0.5 * h * (ax1 + ax2)
            vy = vy + 0.5 * h * (ay1 + ay2)
        h = h * min(2.0, max(0.2, 0.9 * math.sqrt(tol / err)))
    return xp + (x - xp) * yp / (yp - y)       # the event: interpolate to y = 0


@numba.njit
def _grow(buf, n):
    if n <= buf.shape[0]:
        return buf
    new = np.empty(2 * buf.shape[0], buf.dtype)
    for k in range(buf.shape[0]):
        new[k] = buf[k]
    return new


@numba.njit
def projectile_range_handwritten(c, vx, vy, tol):
    """The adjoint written by hand: the forward tapes (vx, vy, h, accepted) per iteration; the
    reverse sweep recomputes the step's intermediates from them."""
    g = 9.81
    x = 0.0
    y = 0.0
    h = 0.1                                    # too large: the first steps are rejected
    xp = 0.0
    yp = 0.0
    tape = np.empty(3 * 1024)
    acc = np.empty(1024, np.uint8)
    n = 0
    while y >= 0.0:
        tape = _grow(tape, 3 * n + 3)
        acc = _grow(acc, n + 1)
        tape[3 * n] = vx
        tape[3 * n + 1] = vy
        tape[3 * n + 2] = h
        v = math.sqrt(vx * vx + vy * vy)
        ax1 = -c * v * vx
        ay1 = -g - c * v * vy
        vx2 = vx + h * ax1
        vy2 = vy + h * ay1
        v2 = math.sqrt(vx2 * vx2 + vy2 * vy2)
        ax2 = -c * v2 * vx2
        ay2 = -g - c * v2 * vy2
        ex = vx2 - vx
        ey = vy2 - vy
        eax = ax2 - ax1
        eay = ay2 - ay1
        err = 0.5 * h * math.sqrt(ex * ex + ey * ey + eax * eax + eay * eay) + 1e-300
        if err <= tol:
            acc[n] = 1
            xp = x
            yp = y
            x = x + 0.5 * h * (vx + vx2)
            y = y + 0.5 * h * (vy + vy2)
            vx = vx + 0.5 * h * (ax1 + ax2)
            vy = vy + 0.5 * h * (ay1 + ay2)
        else:
            acc[n] = 0
        h = h * min(2.0, max(0.2, 0.9 * math.sqrt(tol / err)))
        n += 1
    den = yp - y
    num = (x - xp) * yp
    value = xp + num / den
    # adjoint of the interpolation
    dX = yp / den
    dXP = 1.0 - yp / den
    dYP = (x - xp) / den - num / (den * den)
    dY = num / (den * den)
    dVX = 0.0
    dVY = 0.0
    dH = 0.0
    dc = 0.0
    for i in range(n - 1, -1, -1):
        vx = tape[3 * i]
        vy = tape[3 * i + 1]
        h = tape[3 * i + 2]
        # recompute the step
        v = math.sqrt(vx * vx + vy * vy)
        ax1 = -c * v * vx
        ay1 = -g - c * v * vy
        vx2 = vx + h * ax1
        vy2 = vy + h * ay1
        v2 = math.sqrt(vx2 * vx2 + vy2 * vy2)
        ax2 = -c * v2 * vx2
        ay2 = -g - c * v2 * vy2
        ex = vx2 - vx
        ey = vy2 - vy
        eax = ax2 - ax1
        eay = ay2 - ay1
        S = math.sqrt(ex * ex + ey * ey + eax * eax + eay * eay)
        err = 0.5 * h * S + 1e-300
        r = tol / err
        sq = math.sqrt(r)
        q = 0.9 * sq
        m = max(0.2, q)
        s = min(2.0, m)
        # h' = h * s
        dh = dH * s
        ds = dH * h
        dm = ds if 2.0 > m else 0.0
        dq = dm if 0.2 < q else 0.0
        dr = dq * 0.9 * 0.5 / sq
        derr = -dr * r / err
        dvx = 0.0
        dvy = 0.0
        dax1 = 0.0
        day1 = 0.0
        dvx2 = 0.0
        dvy2 = 0.0
        dax2 = 0.0
        day2 = 0.0
        if acc[i]:
            hh = 0.5 * h
            dvy += dVY
            dh += dVY * 0.5 * (ay1 + ay2)
            day1 += dVY * hh
            day2 += dVY * hh
            dvx += dVX
            dh += dVX * 0.5 * (ax1 + ax2)
            dax1 += dVX * hh
            dax2 += dVX * hh
            dh += dY * 0.5 * (vy + vy2)
            dvy += dY * hh
            dvy2 += dY * hh
            dh += dX * 0.5 * (vx + vx2)
            dvx += dX * hh
            dvx2 += dX * hh
            dY += dYP                      # yp' = y, xp' = x
            dX += dXP
            dYP = 0.0
            dXP = 0.0
        else:
            dvx += dVX
            dvy += dVY
        # err = 0.5 * h * S + 1e-300
        dh += derr * 0.5 * S
        dE = derr * 0.5 * h * 0.5 / S
        dex = 2.0 * ex * dE
        dey = 2.0 * ey * dE
        deax = 2.0 * eax * dE
        deay = 2.0 * eay * dE
        dvx2 += dex
        dvx -= dex
        dvy2 += dey
        dvy -= dey
        dax2 += deax
        dax1 -= deax
        day2 += deay
        day1 -= deay
        # ax2 = -c v2 vx2, ay2 = -g - c v2 vy2
        dc -= dax2 * v2 * vx2 + day2 * v2 * vy2
        dv2 = -c * (dax2 * vx2 + day2 * vy2)
        dvx2 += -c * v2 * dax2 + dv2 * vx2 / v2
        dvy2 += -c * v2 * day2 + dv2 * vy2 / v2
        # vx2 = vx + h ax1, vy2 = vy + h ay1
        dvx += dvx2
        dvy += dvy2
        dh += dvx2 * ax1 + dvy2 * ay1
        dax1 += dvx2 * h
        day1 += dvy2 * h
        # ax1 = -c v vx, ay1 = -g - c v vy
        dc -= dax1 * v * vx + day1 * v * vy
        dv = -c * (dax1 * vx + day1 * vy)
        dvx += -c * v * dax1 + dv * vx / v
        dvy += -c * v * day1 + dv * vy / v
        dVX = dvx
        dVY = dvy
        dH = dh
    return value, (dc, dVX, dVY)


def steps(tol):
    """(iterations, accepted steps) of the forward loop at this tolerance."""
    g, c, vx, vy = 9.81, C0, VX0, VY0
    x = y = 0.0
    h = 0.1                                    # too large: the first steps are rejected
    it = acc = 0
    while y >= 0.0:
        it += 1
        v = math.sqrt(vx * vx + vy * vy)
        ax1, ay1 = -c * v * vx, -g - c * v * vy
        vx2, vy2 = vx + h * ax1, vy + h * ay1
        v2 = math.sqrt(vx2 * vx2 + vy2 * vy2)
        ax2, ay2 = -c * v2 * vx2, -g - c * v2 * vy2
        ex, ey, eax, eay = vx2 - vx, vy2 - vy, ax2 - ax1, ay2 - ay1
        err = 0.5 * h * math.sqrt(ex * ex + ey * ey + eax * eax + eay * eay) + 1e-300
        if err <= tol:
            acc += 1
            x, y = x + 0.5 * h * (vx + vx2), y + 0.5 * h * (vy + vy2)
            vx, vy = vx + 0.5 * h * (ax1 + ax2), vy + 0.5 * h * (ay1 + ay2)
        h = h * min(2.0, max(0.2, 0.9 * math.sqrt(tol / err)))
    return it, acc


def jitad_first_call():
    return jitad.value_and_grad(projectile_range, wrt=(0, 1, 2))(C0, VX0, VY0, 1e-4)


def jax_projectile(jax, max_steps):
    """`projectile_range` in JAX: (f_while, f_scan), each `f(c, vx, vy, tol)`. f_while is the
    same loop as `lax.while_loop` (JAX can run it and push tangents through it, not reverse
    it); f_scan rewrites it as a `lax.scan` of `max_steps` masked steps (not the same
    program: a bound chosen in advance, always that much work)."""
    import jax.numpy as jnp
    from jax import lax

    def step_fn(c, tol):
        def step(s):
            x, y, vx, vy, h, xp, yp = s
            v = jnp.sqrt(vx * vx + vy * vy)
            ax1 = -c * v * vx
            ay1 = -9.81 - c * v * vy
            vx2 = vx + h * ax1
            vy2 = vy + h * ay1
            v2 = jnp.sqrt(vx2 * vx2 + vy2 * vy2)
            ax2 = -c * v2 * vx2
            ay2 = -9.81 - c * v2 * vy2
            ex, ey, eax, eay = vx2 - vx, vy2 - vy, ax2 - ax1, ay2 - ay1
            err = 0.5 * h * jnp.sqrt(ex * ex + ey * ey + eax * eax + eay * eay) + 1e-300
            ok = err <= tol
            new = (x + 0.5 * h * (vx + vx2), y + 0.5 * h * (vy + vy2),
                   vx + 0.5 * h * (ax1 + ax2), vy + 0.5 * h * (ay1 + ay2))
            x, y, vx, vy, xp, yp = [jnp.where(ok, a, b) for a, b in
                                    zip(new + (x, y), (x, y, vx, vy, xp, yp))]
            h = h * jnp.minimum(2.0, jnp.maximum(0.2, 0.9 * jnp.sqrt(tol / err)))
            return (x, y, vx, vy, h, xp, yp)
        return step

    def init(vx, vy):
        z = jnp.zeros_like(vx)
        return (z, z, vx, vy, z + 0.1, z, z)

    def finish(s):
        x, y, _, _, _, xp, yp = s
        return xp + (x - xp) * yp / (yp - y)

    def f_while(c, vx, vy, tol):
        step = step_fn(c, tol)
        return finish(lax.while_loop(lambda s: s[1] >= 0.0, step, init(vx, vy)))

    def f_scan(c, vx, vy, tol):
        step = step_fn(c, tol)

        def body(s, _):
            active = s[1] >= 0.0                   # before the event: take the step
            new = step(s)
            return tuple(jnp.where(active, a, b) for a, b in zip(new, s)), None
        s, _ = lax.scan(body, init(vx, vy), None, length=max_steps)
        return finish(s)

    return f_while, f_scan


def _jax_systems(max_steps):
    jax, why = C.peer("jax")
    if jax is None:
        return [C.System("JAX jit(grad), lax.while_loop", status=C.SKIPPED, note=why),
                C.System("JAX jit(grad), bounded lax.scan (a rewrite)", status=C.SKIPPED, note=why)]
    f_while, f_scan = jax_projectile(jax, max_steps)

    def while_case(tol):
        try:
            g = jax.jit(jax.value_and_grad(f_while, argnums=(0, 1, 2)))
            jax.block_until_ready(g(C0, VX0, VY0, tol))
        except Exception as e:
            raise C.NotExpressible("reverse mode through a data-dependent `while`; JAX says: "
                                   + C._err_text(e).split(": ", 1)[-1].split(". Try")[0])
        return C.Case(lambda: jax.block_until_ready(g(C0, VX0, VY0, tol)))

    def scan_case(tol):
        g = jax.jit(jax.value_and_grad(f_scan, argnums=(0, 1, 2)))
        return C.Case(lambda: jax.block_until_ready(g(C0, VX0, VY0, tol)))

    v = C.peer_version("jax")
    return [C.System("JAX jit(grad), lax.while_loop", make=while_case, version=v),
            C.System("JAX jit(grad), bounded lax.scan (a rewrite)", make=scan_case, version=v,
                     note=f"not the same program: `while` rewritten as a scan of a fixed "
                          f"max_steps = {max_steps:,} (chosen from the known trip count) with "
                          f"masked steps after the event; always does max_steps of work")]


def systems(ctx, tol):
    it, _ = steps(tol)
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda t: C.Case(lambda: projectile_range_handwritten(C0, VX0, VY0, t)))]
    vg = jitad.value_and_grad(projectile_range, wrt=(0, 1, 2))
    out.append(C.System("jitad compiled", make=lambda t: C.Case(lambda: vg(C0, VX0, VY0, t))))
    ve = jitad.value_and_grad(projectile_range, wrt=(0, 1, 2), mode="eager")
    out.append(C.System("jitad eager", make=lambda t: C.Case(lambda: ve(C0, VX0, VY0, t))))

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, _ = C.autograd_namespaces()
        ga = autograd.value_and_grad(C.rebind(projectile_range, math=am), argnum=(0, 1, 2))
        out.append(C.System("autograd", version=C.peer_version("autograd"),
                            make=lambda t: C.Case(lambda: ga(C0, VX0, VY0, t))))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, _ = C.torch_namespaces()
        ft = C.rebind(projectile_range, math=tm)

        def torch_case(t):
            def run():
                ps = [torch.tensor(p, dtype=torch.float64, requires_grad=True)
                      for p in (C0, VX0, VY0)]
                r = ft(*ps, t)
                gs = torch.autograd.grad(r, ps)
                return r.item(), tuple(g.item() for g in gs)
            return C.Case(run)
        out.append(C.System("torch eager", version=C.peer_version("torch"), make=torch_case))

    out += _jax_systems(max_steps=int(math.ceil(it * 1.25 / 100.0)) * 100)

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent", status=C.SKIPPED, note=why))
    else:
        def tangent_case(t):
            try:
                g = tangent.grad(C.rebind(projectile_range, math=np), wrt=(0, 1, 2),
                                 preserve_result=True, verbose=0)
            except Exception as e:
                raise C.Unsupported(C._err_text(e))

            def run():
                dc, dvx, dvy, r = g(C0, VX0, VY0, t)
                return r, (dc, dvx, dvy)
            return C.Case(run)
        out.append(C.System("Tangent", version=C.peer_version("tangent"), make=tangent_case,
                            note="`math` bound to NumPy"))
    return out


def run(ctx):
    tol = 1e-3 if ctx.quick else 1e-4
    it, acc = steps(tol)
    rows = C.run_systems(ctx, systems(ctx, tol), [tol], rtol=1e-7)
    fd = C.fd_check(projectile_range, (C0, VX0, VY0, tol), (0, 1, 2),
                    projectile_range_handwritten(C0, VX0, VY0, tol)[1], f"tol = {tol:g}",
                    rtol=1e-4)
    return {"title": TITLE, "size_label": "tol", "sizes": [tol], "rows": rows,
            "reference_fd": fd,
            "reference": "hand-written Numba", "plot": "bars",
            "description": f"At tol = {tol:g} the loop runs {it:,} iterations: {acc:,} accepted "
                           f"steps and {it - acc} rejected ones (the initial step is too large); "
                           f"the step size, the branch and the trip count all depend on the "
                           f"parameters.",
            "goals": [C.goal("jitad ≤ 1.5× hand-written",
                             C.ratio(rows, "jitad compiled", "hand-written Numba", tol), 1.5)]}
