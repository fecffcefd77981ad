"""Workload 12: ADBench's bundle adjustment Jacobian (Srajer, Baydin, Fitzgibbon 2018): the
sparse Jacobian of the residuals of ADBench's first BA instance's shape, n = 49 cameras,
m = 7,776 points, p = 31,843 observations.

The residuals, as ADBench defines them (written here in plain NumPy from those definitions): for
observation i of point X_j by camera c (11 parameters: Rodrigues rotation r, center C, focal
length f, principal point x0, radial distortion kappa), the reprojection error

    w_i (f * distort(kappa, (R(r) (X_j - C))[0:2] / (R(r) (X_j - C))[2]) + x0 - feat_i)

(R(r) X by Rodrigues' formula, `rodrigues_rotate_point`, with ADBench's branch for r = 0;
distort(kappa, u) = u (1 + kappa_0 |u|^2 + kappa_1 |u|^4)) and the weight error 1 - w_i^2.
Every observation's reprojection error depends on 15 parameters (11 of its camera, 3 of its
point, its weight): the Jacobian is p blocks of 2 x 15 (plus the weight errors' diagonal,
-2 w_i, written by hand in every row: one multiply). The timed operation computes all p blocks
and the weight derivatives from the parameter tables and the observation list
(camera i mod n, point i mod m, as ADBench builds its instances); synthetic cameras and points
(small rotations, points 4-8 units in front of the cameras).

How a jitad user computes it: `J = jitad.jacrev(reproj_error, wrt=(0, 1, 2))` of the
per-observation residual (wrt cam, X, w), called for every observation -- from Python (the
plain API; its per-call overhead dominates) or, to run the loop in Numba, with the compiled
derivative in an `@numba.njit` loop over observations. Two rows do the @njit loop: with the
kernel `jacrev(...).compiled(...)` (one call per observation, one vjp per residual component
inside it) and with `jitad.vjp(...).compiled` called with the two unit cotangents. JAX: `jax.jit(jax.vmap(jax.jacrev(reproj_error)))` over the
gathered camera and point rows (the branch of `rodrigues_rotate_point` as `lax.cond`).
autograd, torch and jitad eager: the Jacobian of the same function per observation in a Python
loop, on the first observations, scaled linearly.

The hand-written Numba Jacobian (the reference): per observation the forward pass, then a
reverse sweep by hand for each of the two residuals; checked against central differences.
"""
import math
import types

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "ba"
TITLE = ("ADBench bundle adjustment Jacobian, 49 cameras, 7,776 points, 31,843 observations "
         "(2 × 15 per observation)")
N_CAMS, N_PTS, N_OBS = 49, 7776, 31843
QUICK_OBS = 500
WRT = (0, 1, 2)
COMPILE_GOALS = {"cold_s": 3.0, "cached_s": 0.3}


# ---------------------------------------------------------------------------
# the residual, as a NumPy user writes it from the paper
# ---------------------------------------------------------------------------
def cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1],
                     a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        w = rot / theta
        w_cross_X = cross(w, X)
        tmp = np.dot(w, X) * (1.0 - costheta)
        return X * costheta + w_cross_X * sintheta + w * tmp
    else:
        return X + cross(rot, X)


def radial_distort(rad_params, proj):
    rsq = np.sum(proj * proj)
    L = 1.0 + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


def project(cam, X):
    """cam = [rotation (3), center (3), focal length, principal point (2), distortion (2)]."""
    Xcam = rodrigues_rotate_point(cam[0:3], X - cam[3:6])
    distorted = radial_distort(cam[9:11], Xcam[0:2] / Xcam[2])
    return distorted * cam[6] + cam[7:9]


def reproj_error(cam, X, w, feat):
    return w * (project(cam, X) - feat)


FUNCS = [reproj_error, project, radial_distort, rodrigues_rotate_point, cross]


# ---------------------------------------------------------------------------
# the hand-written Jacobian
# ---------------------------------------------------------------------------
@numba.njit
def reproj_jacobian_numba(cam, X, w, feat, J):
    """J (2, 15) <- d reproj_error / d (cam, X, w): the forward pass once, then one reverse
    sweep by hand per residual."""
    r0, r1, r2 = cam[0], cam[1], cam[2]
    o0, o1, o2 = X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]
    sq = r0 * r0 + r1 * r1 + r2 * r2
    rotated = sq != 0.0
    if rotated:
        th = math.sqrt(sq)
        ct, st = math.cos(th), math.sin(th)
        it = 1.0 / th
        w0, w1, w2 = r0 * it, r1 * it, r2 * it
        x0 = w1 * o2 - w2 * o1
        x1 = w2 * o0 - w0 * o2
        x2 = w0 * o1 - w1 * o0
        dwo = w0 * o0 + w1 * o1 + w2 * o2
        t = dwo * (1.0 - ct)
        c0 = o0 * ct + x0 * st + w0 * t
        c1 = o1 * ct + x1 * st + w1 * t
        c2 = o2 * ct + x2 * st + w2 * t
    else:
        c0 = o0 + (r1 * o2 - r2 * o1)
        c1 = o1 + (r2 * o0 - r0 * o2)
        c2 = o2 + (r0 * o1 - r1 * o0)
    px, py = c0 / c2, c1 / c2
    k1, k2 = cam[9], cam[10]
    rsq = px * px + py * py
    Ld = 1.0 + k1 * rsq + k2 * rsq * rsq
    dx, dy = px * Ld, py * Ld
    f = cam[6]
    e0 = dx * f + cam[7] - feat[0]
    e1 = dy * f + cam[8] - feat[1]
    for row in range(2):
        g0 = 1.0 if row == 0 else 0.0
        g1 = 1.0 - g0
        J[row, 14] = g0 * e0 + g1 * e1                    # d / dw
        gp0, gp1 = w * g0, w * g1
        J[row, 6] = gp0 * dx + gp1 * dy                   # focal length
        J[row, 7] = gp0                                   # principal point
        J[row, 8] = gp1
        gdx, gdy = gp0 * f, gp1 * f
        gL = gdx * px + gdy * py
        J[row, 9] = gL * rsq                              # distortion
        J[row, 10] = gL * rsq * rsq
        grsq = gL * (k1 + 2.0 * k2 * rsq)
        gpx = gdx * Ld + 2.0 * px * grsq
        gpy = gdy * Ld + 2.0 * py * grsq
        gc0, gc1 = gpx / c2, gpy / c2
        gc2 = -(gpx * px + gpy * py) / c2
        if rotated:
            go0, go1, go2 = gc0 * ct, gc1 * ct, gc2 * ct
            gct = gc0 * o0 + gc1 * o1 + gc2 * o2
            gx0, gx1, gx2 = gc0 * st, gc1 * st, gc2 * st
            gst = gc0 * x0 + gc1 * x1 + gc2 * x2
            gw0, gw1, gw2 = gc0 * t, gc1 * t, gc2 * t
            gt = gc0 * w0 + gc1 * w1 + gc2 * w2
            gdwo = gt * (1.0 - ct)
            gct -= gt * dwo
            gw0 += gdwo * o0
            gw1 += gdwo * o1
            gw2 += gdwo * o2
            go0 += gdwo * w0
            go1 += gdwo * w1
            go2 += gdwo * w2
            # x = w × o: dw += o × gx, do += gx × w
            gw0 += o1 * gx2 - o2 * gx1
            gw1 += o2 * gx0 - o0 * gx2
            gw2 += o0 * gx1 - o1 * gx0
            go0 += gx1 * w2 - gx2 * w1
            go1 += gx2 * w0 - gx0 * w2
            go2 += gx0 * w1 - gx1 * w0
            git = gw0 * r0 + gw1 * r1 + gw2 * r2
            gth = -git * it * it - gct * st + gst * ct
            gsq = gth / (2.0 * th)
            J[row, 0] = gw0 * it + 2.0 * r0 * gsq
            J[row, 1] = gw1 * it + 2.0 * r1 * gsq
            J[row, 2] = gw2 * it + 2.0 * r2 * gsq
        else:
            # c = o + r × o: dr = o × gc, do = gc + gc × r
            J[row, 0] = o1 * gc2 - o2 * gc1
            J[row, 1] = o2 * gc0 - o0 * gc2
            J[row, 2] = o0 * gc1 - o1 * gc0
            go0 = gc0 + gc1 * r2 - gc2 * r1
            go1 = gc1 + gc2 * r0 - gc0 * r2
            go2 = gc2 + gc0 * r1 - gc1 * r0
        J[row, 3], J[row, 4], J[row, 5] = -go0, -go1, -go2    # center
        J[row, 11], J[row, 12], J[row, 13] = go0, go1, go2    # point


@numba.njit
def ba_numba(cams, X, w, feats, obs):
    p = obs.shape[0]
    J = np.empty((p, 2, 15))
    for i in range(p):
        reproj_jacobian_numba(cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i], J[i])
    return J, -2.0 * w


# ---------------------------------------------------------------------------
# jitad's compiled derivatives in @njit loops over observations
# ---------------------------------------------------------------------------
def vjp_loop(vj):
    """The loop calling `vjp(reproj_error, wrt=(0, 1, 2)).compiled` twice per observation."""
    @numba.njit
    def loop(cams, X, w, feats, obs):
        p = obs.shape[0]
        J = np.empty((p, 2, 15))
        basis = np.eye(2)
        for i in range(p):
            cam = cams[obs[i, 0]]
            x = X[obs[i, 1]]
            for k in range(2):
                _, (gc, gx, gw) = vj(cam, x, w[i], feats[i], basis[k])
                J[i, k, 0:11] = gc
                J[i, k, 11:14] = gx
                J[i, k, 14] = gw
        return J, -2.0 * w
    return loop


def jacrev_loop(jac):
    """The loop calling the jacrev kernel (blocks (2, 11), (2, 3), (2, 1)) once per observation."""
    @numba.njit
    def loop(cams, X, w, feats, obs):
        p = obs.shape[0]
        J = np.empty((p, 2, 15))
        for i in range(p):
            jc, jx, jw = jac(cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i])
            J[i, :, 0:11] = jc
            J[i, :, 11:14] = jx
            J[i, :, 14:15] = jw
        return J, -2.0 * w
    return loop


def python_loop(jacobian, args):
    """`jacobian(cam, X, w, feat) -> (Jc, JX, Jw)` per observation from Python."""
    cams, X, w, feats, obs = args

    def run():
        p = obs.shape[0]
        J = np.empty((p, 2, 15))
        for i in range(p):
            jc, jx, jw = jacobian(cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i])
            J[i, :, 0:11] = jc
            J[i, :, 11:14] = jx
            J[i, :, 14] = jw
        return J, -2.0 * w
    return run


# ---------------------------------------------------------------------------
# data and systems
# ---------------------------------------------------------------------------
def data(p, seed=0):
    rng = np.random.default_rng(seed)
    cams = np.empty((N_CAMS, 11))
    cams[:, 0:3] = rng.normal(scale=0.1, size=(N_CAMS, 3))
    cams[:, 3:6] = rng.normal(scale=0.2, size=(N_CAMS, 3))
    cams[:, 6] = rng.uniform(0.8, 1.2, N_CAMS)
    cams[:, 7:9] = rng.normal(scale=0.01, size=(N_CAMS, 2))
    cams[:, 9:11] = rng.normal(scale=0.01, size=(N_CAMS, 2))
    X = np.empty((N_PTS, 3))
    X[:, 0:2] = rng.uniform(-1.0, 1.0, (N_PTS, 2))
    X[:, 2] = rng.uniform(4.0, 8.0, N_PTS)
    w = rng.uniform(0.5, 1.5, p)
    obs = np.empty((p, 2), np.int64)
    obs[:, 0] = np.arange(p) % N_CAMS
    obs[:, 1] = np.arange(p) % N_PTS
    feats = rng.normal(scale=0.05, size=(p, 2))
    return cams, X, w, feats, obs


def example(args):
    cams, X, w, feats, obs = args
    return cams[0], X[0], float(w[0]), feats[0]


def jitad_first_call():
    return jitad.jacrev(reproj_error, wrt=WRT)(*example(data(1)))


def systems(ctx, p_full):
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda p: (lambda a: C.Case(lambda: ba_numba(*a)))(data(p)))]
    jr = jitad.jacrev(reproj_error, wrt=WRT)

    def jacrev_kernel_case(p):
        a = data(p)
        loop = jacrev_loop(jr.compiled(*example(a)))
        return C.Case(lambda: loop(*a))
    out.append(C.System("jitad compiled: jacrev kernel, @njit loop", make=jacrev_kernel_case,
                        note="the kernel `jitad.jacrev(reproj_error, wrt=(0, 1, 2)).compiled(...)` "
                             "called per observation from an `@numba.njit` loop"))
    if ctx.quick:           # the vjp row's compile (~9 s) is more than the smoke test affords
        return out
    vj_obj = jitad.vjp(reproj_error, wrt=WRT)

    def vjp_case(p):
        a = data(p)
        loop = vjp_loop(vj_obj.compiled(*example(a)))
        return C.Case(lambda: loop(*a))
    out.append(C.System("jitad compiled: vjp(...).compiled ×2, @njit loop", make=vjp_case,
                        note="`jitad.vjp(reproj_error, wrt=(0, 1, 2)).compiled` called with "
                             "the two unit cotangents per observation from an `@numba.njit` "
                             "loop"))
    out.append(C.System("jitad compiled: jacrev, Python loop", max_size=4000,
                        make=lambda p: C.Case(python_loop(jr, data(p))),
                        note="`jitad.jacrev(reproj_error, wrt=(0, 1, 2))(cam, X, w, feat)` "
                             "per observation from Python"))
    je = jitad.jacrev(reproj_error, wrt=WRT, mode="eager")
    out.append(C.System("jitad eager", max_size=100, make=lambda p: C.Case(python_loop(je, data(p))),
                        note="`jitad.jacrev(..., mode=\"eager\")` per observation from Python"))
    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit(vmap(jacrev))", status=C.SKIPPED, note=why))
    else:
        g = jax_jacobian(jax)

        def jax_case(p):
            import jax.numpy as jnp
            ja = tuple(jnp.asarray(v) for v in data(p))
            return C.Case(lambda: jax.block_until_ready(g(*ja)))
        out.append(C.System("JAX jit(vmap(jacrev))", version=C.peer_version("jax"),
                            make=jax_case,
                            note="`jax.jit` of `jax.vmap(jax.jacrev(reproj_error))` over the "
                                 "gathered rows; `rodrigues_rotate_point`'s branch a `lax.cond`"))
    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, anp = C.autograd_namespaces()
        fa = C.rebind_all(FUNCS, np=anp, math=am)["reproj_error"]

        def autograd_jacobian(cam, X, w, feat):
            j = autograd.jacobian(lambda q: fa(q[0:11], q[11:14], q[14], feat))(
                np.concatenate((cam, X, [w])))
            return j[:, 0:11], j[:, 11:14], j[:, 14]
        out.append(C.System("autograd", version=C.peer_version("autograd"), max_size=300,
                            make=lambda p: C.Case(python_loop(autograd_jacobian, data(p))),
                            note="`autograd.jacobian` per observation (of the 15 parameters "
                                 "as one vector)"))
    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, tn = C.torch_namespaces()
        ft = C.rebind_all(FUNCS, np=tn, math=tm)["reproj_error"]
        jac = torch.autograd.functional.jacobian

        def torch_jacobian(cam, X, w, feat):
            tf = torch.from_numpy(feat)
            j = jac(lambda c, x, v: ft(c, x, v, tf),
                    (torch.from_numpy(cam), torch.from_numpy(X),
                     torch.tensor(w, dtype=torch.float64)))
            return j[0].numpy(), j[1].numpy(), j[2].numpy()
        out.append(C.System("torch eager", version=C.peer_version("torch"), max_size=300,
                            make=lambda p: C.Case(python_loop(torch_jacobian, data(p))),
                            note="`torch.autograd.functional.jacobian` per observation"))
    return out


def jax_jacobian(jax):
    """`jax.jit(jax.vmap(jax.jacrev(reproj_error)))` over the observations' rows, the same
    functions in jax.numpy; `rodrigues_rotate_point`'s `if` as `lax.cond`."""
    import jax.numpy as jnp
    from jax import lax
    jm = types.SimpleNamespace(sqrt=jnp.sqrt, cos=jnp.cos, sin=jnp.sin)
    fns = {}

    def rodrigues_rotate_point(rot, X):
        sqtheta = jnp.sum(rot * rot)

        def rotate(_):
            theta = jnp.sqrt(sqtheta)
            w = rot / theta
            tmp = jnp.dot(w, X) * (1.0 - jnp.cos(theta))
            return X * jnp.cos(theta) + fns["cross"](w, X) * jnp.sin(theta) + w * tmp
        return lax.cond(sqtheta != 0.0, rotate, lambda _: X + fns["cross"](rot, X), None)
    fns.update(C.rebind_all(FUNCS, np=jnp, math=jm,
                            rodrigues_rotate_point=rodrigues_rotate_point))
    jac = jax.vmap(jax.jacrev(fns["reproj_error"], argnums=(0, 1, 2)))

    @jax.jit
    def g(cams, X, w, feats, obs):
        jc, jx, jw = jac(cams[obs[:, 0]], X[obs[:, 1]], w, feats)
        return jnp.concatenate((jc, jx, jw[:, :, None]), axis=2), -2.0 * w
    return g


def run(ctx):
    p = QUICK_OBS if ctx.quick else N_OBS
    rows = C.run_systems(ctx, systems(ctx, p), [p], rtol=1e-9)
    a = data(200)
    cams, X, w, feats, obs = a
    J = ba_numba(*a)[0]
    # the reference against central differences, observation by observation
    recs = [C.fd_check(reproj_error_component, (cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i], k),
                       WRT, (J[i, k, 0:11], J[i, k, 11:14], J[i, k, 14]), "", rtol=1e-6,
                       coords_per_array=11, seed=i)
            for i in range(0, 200, 20) for k in range(2)]
    fd = {"what": "all 15 derivatives of both residuals of 10 observations",
          "ok": all(r["ok"] for r in recs), "max_rel_err": max(r["max_rel_err"] for r in recs),
          "rtol": 1e-6}
    main = "jitad compiled: jacrev kernel, @njit loop"
    vjp_row = "jitad compiled: vjp(...).compiled ×2, @njit loop"
    jax_name = "JAX jit(vmap(jacrev))"
    return {"title": TITLE if not ctx.quick else TITLE.replace("31,843", f"{p:,}"),
            "sizes": [p], "size_label": "observations", "rows": rows, "reference_fd": fd,
            "plot": "bars", "reference": "hand-written Numba",
            "description": (
                "The Jacobian's p blocks of 2 × 15 and the weight errors' derivatives per "
                "call, from the camera and point tables and the observation list. Rows with "
                "a Python loop per observation ran on the first observations only (†: scaled "
                "linearly). Every row is checked against the hand-written Numba Jacobian "
                "(rtol 1e-9) at the size it ran."),
            "extra_md": C.ratio_table(rows, [p], main, jax_name, label=lambda s: f"p = {s:,}")
            + "\n\n" + C.ratio_table(rows, [p], vjp_row, jax_name,
                                      label=lambda s: f"p = {s:,}"),
            "goals": [C.goal(f"jitad compiled (jacrev kernel, @njit loop) ≤ 1.0× {jax_name}",
                             C.ratio(rows, main, jax_name, p), 1.0),
                      C.goal(f"jitad compiled (vjp(...).compiled ×2, @njit loop) ≤ 1.0× "
                             f"{jax_name}", C.ratio(rows, vjp_row, jax_name, p), 1.0)]}


def reproj_error_component(cam, X, w, feat, k):
    """Residual k of one observation (a scalar function for the finite-difference check)."""
    return float(reproj_error(cam, X, w, feat)[k])
