"""Workload 13: ADBench's hand tracking Jacobian (Srajer, Baydin, Fitzgibbon 2018): the
Jacobian of the residuals of a skinned hand model's vertices against observed points,
with respect to its 26 pose parameters, at ADBench's "simple" instance's shapes (a 22-bone
hand, 544 vertices; 100 to 1,600 correspondences).

The residuals, as ADBench defines them (written here in plain NumPy from those definitions,
as a NumPy user writes them: lists of 4 x 4 matrices built in helpers and handed between them):

* pose parameters from theta (26): global rotation (angle-axis) and translation, then per
  finger one two-angle and two one-angle joints (`to_pose_params`);
* each bone's posed relative transform: its base relative transform times the rotation of its
  joint's Euler angles (`get_posed_relatives`); absolute transforms down the bone tree
  (`relatives_to_absolutes`, a parent's absolute transform read from the list being built);
* linear blend skinning: the vertices moved by each bone's absolute transform times its
  inverse base transform, weighted (`get_skinned_vertex_positions`), then the global rotation
  (Rodrigues' formula, with ADBench's branch near zero), scale and translation;
* residuals: observed points minus the skinned vertices they correspond to (3 x n).

The Jacobian (3n x 26) is what Levenberg-Marquardt needs; 26 inputs and thousands of outputs
make it forward mode's case: `jitad.jacfwd(hand_objective, wrt=0)`, against
`jax.jit(jax.jacfwd(...))` of the same functions (JAX's `if` on the rotation angle as `lax.cond`,
the parent test decided at trace time; JAX and autograd run the three helpers that write into
arrays in a write-free spelling, `to_pose_params_functional`,
`get_posed_relatives_functional` and `get_skinned_vertex_positions_functional`). Synthetic model of the same shapes: random rigid
base transforms down ADBench's bone tree (wrist, palm, five fingers of four bones), normalized
random skinning weights.
"""
import math
import types

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "hand"
TITLE = "ADBench hand tracking Jacobian, 22 bones, 544 vertices: 3n × 26"
N_BONES, N_VERTS = 22, 544
SIZES = [100, 400, 1600]
QUICK_SIZES = [100]
COMPILE_GOALS = {"cold_s": 3.0, "cached_s": 0.3}


# ---------------------------------------------------------------------------
# the objective, as a NumPy user writes it from the paper
# ---------------------------------------------------------------------------
def to_pose_params(theta, n_bones):
    pose_params = np.zeros((n_bones + 3, 3))
    pose_params[0] = theta[0:3]
    pose_params[1] = np.ones(3)
    pose_params[2] = theta[3:6]
    i_theta = 6
    i_pose = 5
    for finger in range(5):
        for i in range(1, 4):
            pose_params[i_pose, 0] = theta[i_theta]
            i_theta += 1
            if i == 1:
                pose_params[i_pose, 1] = theta[i_theta]
                i_theta += 1
            i_pose += 1
        i_pose += 1
    return pose_params


def euler_angles_to_rotation_matrix(xzy):
    tx, ty, tz = xzy[0], xzy[2], xzy[1]
    Rx = np.array([[1.0, 0.0, 0.0],
                   [0.0, math.cos(tx), -math.sin(tx)],
                   [0.0, math.sin(tx), math.cos(tx)]])
    Ry = np.array([[math.cos(ty), 0.0, math.sin(ty)],
                   [0.0, 1.0, 0.0],
                   [-math.sin(ty), 0.0, math.cos(ty)]])
    Rz = np.array([[math.cos(tz), -math.sin(tz), 0.0],
                   [math.sin(tz), math.cos(tz), 0.0],
                   [0.0, 0.0, 1.0]])
    return Rz @ Ry @ Rx


def get_posed_relatives(base_relatives, pose_params):
    relatives = []
    for i in range(base_relatives.shape[0]):
        tr = np.eye(4)
        tr[:3, :3] = euler_angles_to_rotation_matrix(pose_params[i + 3])
        relatives.append(base_relatives[i] @ tr)
    return relatives


def relatives_to_absolutes(relatives, parents):
    absolutes = []
    for i in range(len(relatives)):
        if parents[i] == -1:
            absolutes.append(relatives[i])
        else:
            absolutes.append(absolutes[parents[i]] @ relatives[i])
    return absolutes


def angle_axis_to_rotation_matrix(angle_axis):
    n = math.sqrt(np.sum(angle_axis ** 2))
    if n < 0.0001:
        return np.eye(3)
    x, y, z = angle_axis / n
    s, c = math.sin(n), math.cos(n)
    return np.array([[x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
                     [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
                     [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c]])


def apply_global_transform(pose_params, positions):
    R = angle_axis_to_rotation_matrix(pose_params[0])
    R = R * pose_params[1][None, :]
    return R @ positions + pose_params[2][:, None]


def get_skinned_vertex_positions(base_relatives, parents, inverse_base_absolutes,
                                 base_positions, weights, is_mirrored, pose_params):
    relatives = get_posed_relatives(base_relatives, pose_params)
    absolutes = relatives_to_absolutes(relatives, parents)
    positions = np.zeros((3, base_positions.shape[1]))
    for i in range(len(absolutes)):
        transform = absolutes[i] @ inverse_base_absolutes[i]
        positions += (transform @ base_positions)[:3, :] * weights[i, :]
    if is_mirrored:
        positions[0, :] *= -1
    return apply_global_transform(pose_params, positions)


def hand_objective(theta, base_relatives, parents, inverse_base_absolutes, base_positions,
                   weights, is_mirrored, correspondences, points):
    pose_params = to_pose_params(theta, base_relatives.shape[0])
    vertex_positions = get_skinned_vertex_positions(base_relatives, parents,
                                                    inverse_base_absolutes, base_positions,
                                                    weights, is_mirrored, pose_params)
    return points - vertex_positions[:, correspondences]


FUNCS = [hand_objective, get_skinned_vertex_positions, apply_global_transform,
         angle_axis_to_rotation_matrix, relatives_to_absolutes, get_posed_relatives,
         euler_angles_to_rotation_matrix, to_pose_params]


# the helpers that write into arrays, written without writes for the peers (JAX's and
# autograd's arrays take no item assignment): the same values
def to_pose_params_functional(theta, n_bones):
    rows = [theta[0:3], np.ones(3), theta[3:6]] + [np.zeros(3)] * n_bones
    i_theta = 6
    i_pose = 5
    for finger in range(5):
        for i in range(1, 4):
            if i == 1:
                rows[i_pose] = np.array([theta[i_theta], theta[i_theta + 1], 0.0])
                i_theta += 2
            else:
                rows[i_pose] = np.array([theta[i_theta], 0.0, 0.0])
                i_theta += 1
            i_pose += 1
        i_pose += 1
    return np.stack(rows)


def get_posed_relatives_functional(base_relatives, pose_params):
    relatives = []
    for i in range(base_relatives.shape[0]):
        R = euler_angles_to_rotation_matrix(pose_params[i + 3])
        tr = np.concatenate((np.concatenate((R, np.zeros((3, 1))), axis=1),
                             np.array([[0.0, 0.0, 0.0, 1.0]])), axis=0)
        relatives.append(base_relatives[i] @ tr)
    return relatives


def get_skinned_vertex_positions_functional(base_relatives, parents, inverse_base_absolutes,
                                            base_positions, weights, is_mirrored, pose_params):
    relatives = get_posed_relatives(base_relatives, pose_params)
    absolutes = relatives_to_absolutes(relatives, parents)
    positions = np.zeros((3, base_positions.shape[1]))
    for i in range(len(absolutes)):
        transform = absolutes[i] @ inverse_base_absolutes[i]
        positions = positions + (transform @ base_positions)[:3, :] * weights[i, :]
    if is_mirrored:
        positions = positions * np.array([[-1.0], [1.0], [1.0]])
    return apply_global_transform(pose_params, positions)


def peer_functions(**names):
    """FUNCS rebound (`common.rebind_all`) with the write-free helpers in place of theirs."""
    fns = C.rebind_all(FUNCS + [to_pose_params_functional, get_posed_relatives_functional,
                                get_skinned_vertex_positions_functional], **names)
    g = fns["hand_objective"].__globals__
    for name in ("to_pose_params", "get_posed_relatives", "get_skinned_vertex_positions"):
        g[name] = fns[name] = fns[name + "_functional"]
    return fns


# ---------------------------------------------------------------------------
# the hand-written Jacobian: forward mode by hand, every tangent carrying the 26 directions
# on its last axis (dQ[..., k] = dQ/dtheta_k)
# ---------------------------------------------------------------------------
K = 26


@numba.njit
def _euler_and_tangent(xzy, dxzy):
    """R = Rz(tz) Ry(ty) Rx(tx) of the Euler angles (x, z, y) and dR (3, 3, K)."""
    tx, ty, tz = xzy[0], xzy[2], xzy[1]
    cx, sx, cy, sy, cz, sz = (math.cos(tx), math.sin(tx), math.cos(ty), math.sin(ty),
                              math.cos(tz), math.sin(tz))
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    Ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    Rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    dRx = np.array([[0.0, 0.0, 0.0], [0.0, -sx, -cx], [0.0, cx, -sx]])
    dRy = np.array([[-sy, 0.0, cy], [0.0, 0.0, 0.0], [-cy, 0.0, -sy]])
    dRz = np.array([[-sz, -cz, 0.0], [cz, -sz, 0.0], [0.0, 0.0, 0.0]])
    ZY = Rz @ Ry
    R = ZY @ Rx
    Gx, Gy, Gz = ZY @ dRx, Rz @ dRy @ Rx, dRz @ Ry @ Rx
    dR = np.zeros((3, 3, K))
    for k in range(K):
        a, b, c = dxzy[0, k], dxzy[2, k], dxzy[1, k]
        if a != 0.0 or b != 0.0 or c != 0.0:
            dR[:, :, k] = Gx * a + Gy * b + Gz * c
    return R, dR


@numba.njit
def _matmul_tangent(A, dA, B, dB):
    """(A @ B, d(A @ B)) of (m, n) and (n, p) matrices with tangents (.., K)."""
    m, n = A.shape
    p = B.shape[1]
    out = A @ B
    d = np.zeros((m, p, K))
    for i in range(m):
        for j in range(p):
            for l in range(n):
                a, b = A[i, l], B[l, j]
                for k in range(K):
                    d[i, j, k] += dA[i, l, k] * b + a * dB[l, j, k]
    return out, d


@numba.njit
def hand_jacobian_numba(theta, base_relatives, parents, inverse_base_absolutes,
                        base_positions, weights, is_mirrored, correspondences, points):
    n_bones = base_relatives.shape[0]
    # pose parameters and their tangents
    P = np.zeros((n_bones + 3, 3))
    dP = np.zeros((n_bones + 3, 3, K))
    for j in range(3):
        P[0, j], dP[0, j, j] = theta[j], 1.0
        P[1, j] = 1.0
        P[2, j], dP[2, j, 3 + j] = theta[3 + j], 1.0
    it, ip = 6, 5
    for finger in range(5):
        for i in range(1, 4):
            P[ip, 0], dP[ip, 0, it] = theta[it], 1.0
            it += 1
            if i == 1:
                P[ip, 1], dP[ip, 1, it] = theta[it], 1.0
                it += 1
            ip += 1
        ip += 1
    # posed relatives, absolutes down the tree, skinning
    A = np.empty((n_bones, 4, 4))
    dA = np.zeros((n_bones, 4, 4, K))
    zero44 = np.zeros((4, 4, K))
    nv = base_positions.shape[1]
    pos = np.zeros((3, nv))
    dpos = np.zeros((3, nv, K))
    for i in range(n_bones):
        R, dR = _euler_and_tangent(P[i + 3], dP[i + 3])
        T = np.eye(4)
        T[:3, :3] = R
        dT = np.zeros((4, 4, K))
        dT[:3, :3, :] = dR
        rel, drel = _matmul_tangent(base_relatives[i], zero44, T, dT)
        if parents[i] == -1:
            A[i], dA[i] = rel, drel
        else:
            A[i], dA[i] = _matmul_tangent(A[parents[i]], dA[parents[i]], rel, drel)
        Tf, dTf = _matmul_tangent(A[i], dA[i], inverse_base_absolutes[i], zero44)
        V = Tf[:3, :] @ base_positions
        for r in range(3):
            for v in range(nv):
                w = weights[i, v]
                pos[r, v] += V[r, v] * w
                for c in range(4):
                    b = base_positions[c, v] * w
                    for k in range(K):
                        dpos[r, v, k] += dTf[r, c, k] * b
    if is_mirrored:
        pos[0, :] *= -1.0
        dpos[0, :, :] *= -1.0
    # the global rotation (Rodrigues; ADBench's identity near zero), scale, translation
    a = P[0]
    nn = math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2)
    G = np.eye(3)
    dG = np.zeros((3, 3, K))
    if nn >= 0.0001:
        x, y, z = a[0] / nn, a[1] / nn, a[2] / nn
        s, c = math.sin(nn), math.cos(nn)
        G = np.array([[x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
                      [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
                      [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c]])
        for k in range(3):      # theta_0..2 are the angle-axis vector itself
            dn = a[k] / nn
            dx = ((1.0 if k == 0 else 0.0) - x * dn) / nn
            dy = ((1.0 if k == 1 else 0.0) - y * dn) / nn
            dz = ((1.0 if k == 2 else 0.0) - z * dn) / nn
            ds, dc = c * dn, -s * dn
            dG[0, 0, k] = 2 * x * dx * (1 - c) + (1 - x * x) * dc
            dG[0, 1, k] = (dx * y + x * dy) * (1 - c) - x * y * dc - dz * s - z * ds
            dG[0, 2, k] = (dx * z + x * dz) * (1 - c) - x * z * dc + dy * s + y * ds
            dG[1, 0, k] = (dx * y + x * dy) * (1 - c) - x * y * dc + dz * s + z * ds
            dG[1, 1, k] = 2 * y * dy * (1 - c) + (1 - y * y) * dc
            dG[1, 2, k] = (dy * z + y * dz) * (1 - c) - y * z * dc - dx * s - x * ds
            dG[2, 0, k] = (dx * z + x * dz) * (1 - c) - x * z * dc - dy * s - y * ds
            dG[2, 1, k] = (dz * y + z * dy) * (1 - c) - z * y * dc + dx * s + x * ds
            dG[2, 2, k] = 2 * z * dz * (1 - c) + (1 - z * z) * dc
    for r in range(3):
        for col in range(3):
            G[r, col] *= P[1, col]
            dG[r, col, :] *= P[1, col]
    n = correspondences.shape[0]
    J = np.zeros((3, n, K))
    for j in range(n):
        v = correspondences[j]
        for r in range(3):
            for col in range(3):
                g, p = G[r, col], pos[col, v]
                for k in range(K):
                    J[r, j, k] -= dG[r, col, k] * p + g * dpos[col, v, k]
            J[r, j, 3 + r] -= 1.0
    return J


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
# ADBench's hand skeleton: wrist, palm, then five fingers of four bones, each a chain from the palm
PARENTS = np.array([-1, 0] + [p for f in range(5) for p in (1, 2 + 4 * f, 3 + 4 * f, 4 + 4 * f)])


def _rotation(a):
    """The rotation by the angle-axis vector a (Rodrigues)."""
    t = np.linalg.norm(a)
    k = a / t
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(t) * K + (1.0 - math.cos(t)) * K @ K


def data(n_pts, seed=0):
    """The objective's arguments: a synthetic model of ADBench's shapes, n_pts points."""
    rng = np.random.default_rng(seed)
    base_relatives = np.empty((N_BONES, 4, 4))
    for i in range(N_BONES):
        T = np.eye(4)
        T[:3, :3] = _rotation(rng.normal(scale=0.3, size=3))
        T[:3, 3] = rng.normal(scale=0.5, size=3)
        base_relatives[i] = T
    absolute = []
    for i in range(N_BONES):
        p = PARENTS[i]
        absolute.append(base_relatives[i] if p < 0 else absolute[p] @ base_relatives[i])
    inverse_base_absolutes = np.array([np.linalg.inv(A) for A in absolute])
    base_positions = np.vstack([rng.normal(size=(3, N_VERTS)), np.ones((1, N_VERTS))])
    w = rng.random((N_BONES, N_VERTS)) ** 4
    weights = w / w.sum(axis=0)
    correspondences = rng.integers(0, N_VERTS, n_pts)
    theta = rng.normal(scale=0.3, size=26)
    points = rng.normal(size=(3, n_pts))
    return (theta, base_relatives, PARENTS.copy(), inverse_base_absolutes, base_positions,
            weights, False, correspondences, points)


def jitad_first_call():
    return jitad.jacfwd(hand_objective, wrt=0)(*data(QUICK_SIZES[0]))


# ---------------------------------------------------------------------------
# systems
# ---------------------------------------------------------------------------
def jax_jacobian(jax):
    """`jax.jit(jax.jacfwd(hand_objective))`: the same functions in jax.numpy; ADBench's
    branch near a zero rotation as `lax.cond`, the parent test decided at trace time (the
    skeleton is static), the mirror flag static."""
    import jax.numpy as jnp
    from jax import lax
    jm = types.SimpleNamespace(sqrt=jnp.sqrt, cos=jnp.cos, sin=jnp.sin)
    fns = peer_functions(np=jnp, math=jm)

    def angle_axis_to_rotation_matrix(angle_axis):
        n = jnp.sqrt(jnp.sum(angle_axis ** 2))

        def rotate(_):
            x, y, z = angle_axis / n
            s, c = jnp.sin(n), jnp.cos(n)
            return jnp.array([[x * x + (1 - x * x) * c, x * y * (1 - c) - z * s,
                               x * z * (1 - c) + y * s],
                              [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c,
                               y * z * (1 - c) - x * s],
                              [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s,
                               z * z + (1 - z * z) * c]])
        return lax.cond(n < 0.0001, lambda _: jnp.eye(3), rotate, None)

    def skinned(base_relatives, parents, inverse_base_absolutes, base_positions, weights,
                pose_params):
        rel = fns["get_posed_relatives"](base_relatives, pose_params)
        absolute = []
        for i in range(len(rel)):
            absolute.append(rel[i] if parents[i] == -1 else absolute[int(parents[i])] @ rel[i])
        positions = jnp.zeros((3, base_positions.shape[1]))
        for i in range(len(absolute)):
            positions = positions + ((absolute[i] @ inverse_base_absolutes[i]) @
                                     base_positions)[:3, :] * weights[i, :]
        R = angle_axis_to_rotation_matrix(pose_params[0]) * pose_params[1][None, :]
        return R @ positions + pose_params[2][:, None]

    def objective(theta, base_relatives, inverse_base_absolutes, base_positions, weights,
                  correspondences, points, parents):
        pose = fns["to_pose_params"](theta, base_relatives.shape[0])
        v = skinned(base_relatives, parents, inverse_base_absolutes, base_positions, weights,
                    pose)
        return points - v[:, correspondences]

    def make(args):
        theta, br, parents, iba, bp, w, mirrored, corr, pts = args
        assert not mirrored
        f = jax.jit(jax.jacfwd(lambda t, *rest: objective(t, *rest, parents)))
        ja = tuple(jnp.asarray(v) for v in (theta, br, iba, bp, w, corr, pts))
        return lambda: np.asarray(jax.block_until_ready(f(*ja)))
    return make


def systems(ctx):
    out = [C.System("hand-written Numba", reference=True,
                    make=lambda n: (lambda a: C.Case(lambda: hand_jacobian_numba(*a)))(data(n)),
                    note="forward mode by hand: every tangent carries the 26 directions")]
    jf = jitad.jacfwd(hand_objective, wrt=0)
    out.append(C.System("jitad compiled: jacfwd", make=lambda n: (
        lambda a: C.Case(lambda: jf(*a)))(data(n)),
        note="`jitad.jacfwd(hand_objective, wrt=0)`: 26 jvps in one compiled call"))
    if ctx.quick:
        return out
    jr = jitad.jacrev(hand_objective, wrt=0)
    out.append(C.System("jitad compiled: jacrev", max_size=400, make=lambda n: (
        lambda a: C.Case(lambda: jr(*a)))(data(n)),
        note="`jitad.jacrev(hand_objective, wrt=0)`: 3n vjps in one compiled call"))
    je = jitad.jacfwd(hand_objective, wrt=0, mode="eager")
    out.append(C.System("jitad eager: jacfwd", max_size=100, make=lambda n: (
        lambda a: C.Case(lambda: je(*a)))(data(n))))
    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit(jacfwd)", status=C.SKIPPED, note=why))
    else:
        make = jax_jacobian(jax)
        out.append(C.System("JAX jit(jacfwd)", version=C.peer_version("jax"),
                            make=lambda n: C.Case(make(data(n))),
                            note="`jax.jit(jax.jacfwd(f))`, f in jax.numpy; one compile per "
                                 "shape"))
    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, anp = C.autograd_namespaces()
        fa = peer_functions(np=anp, math=am)["hand_objective"]

        def autograd_case(n):
            a = data(n)
            jac = autograd.jacobian(lambda t: fa(t, *a[1:]))
            return C.Case(lambda: jac(a[0]))
        out.append(C.System("autograd", version=C.peer_version("autograd"), max_size=100,
                            make=autograd_case, note="`autograd.jacobian`"))
    return out


def run(ctx):
    sizes = QUICK_SIZES if ctx.quick else SIZES
    rows = C.run_systems(ctx, systems(ctx), sizes, rtol=1e-9)
    a = data(20)
    J = hand_jacobian_numba(*a)
    recs = [C.fd_check(lambda t, r=r, j=j: hand_objective(t, *a[1:])[r, j], (a[0],), (0,),
                       (J[r, j],), "", rtol=1e-6, coords_per_array=26, seed=j)
            for r in range(3) for j in range(0, 20, 4)]
    fd = {"what": "all 26 derivatives of 15 residuals", "ok": all(r["ok"] for r in recs),
          "max_rel_err": max(r["max_rel_err"] for r in recs), "rtol": 1e-6}
    main, jax_name = "jitad compiled: jacfwd", "JAX jit(jacfwd)"
    ratios = [r for r in (C.ratio(rows, main, jax_name, n) for n in sizes) if r is not None]
    goals = [C.goal(f"{main} ≤ 1.0× {jax_name} (worst size)", max(ratios) if ratios else None,
                    1.0)]
    return {"title": TITLE, "sizes": sizes, "size_label": "n", "rows": rows,
            "reference_fd": fd, "plot": "bars", "reference": "hand-written Numba",
            "description": (
                "The Jacobian of the 3 × n residuals with respect to the 26 pose parameters "
                "per call (n correspondences), from the model's tables. Every row is checked "
                "against the hand-written Numba Jacobian (rtol 1e-9) at every size it ran."),
            "extra_md": C.ratio_table(rows, sizes, main, jax_name, label=lambda n: f"n = {n:,}"),
            "goals": goals}
