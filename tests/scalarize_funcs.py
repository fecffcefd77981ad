"""Small vectors and matrices of a length or shape known when the code is generated
(`jitad/scalarize.py`): the geometry of cameras, rigid bodies, rotations and particles as
NumPy users write it."""
import math

import numpy as np


def cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1],
                     a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def rodrigues(rot, X):
    """ADBench's rotation, with its branch at zero."""
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        w = rot / theta
        return X * math.cos(theta) + cross(w, X) * math.sin(theta) \
            + w * (np.dot(w, X) * (1.0 - math.cos(theta)))
    return X + cross(rot, X)


def reprojection(cam, X, w, feat):
    """Slices of a parameter vector (constant bounds), a rotation, a division by a component,
    radial distortion: ADBench's bundle-adjustment residual, summed to a number."""
    Xcam = rodrigues(cam[0:3], X - cam[3:6])
    p = Xcam[0:2] / Xcam[2]
    rsq = np.sum(p * p)
    distorted = p * (1.0 + cam[9] * rsq + cam[10] * rsq * rsq)
    r = w * (distorted * cam[6] + cam[7:9] - feat)
    return np.sum(r * r)


def spring_chain(x, k):
    """Particles in 3-D joined by springs: per step, 3-vectors made, read element by element,
    updated in place, accumulated."""
    force = np.zeros(3)
    energy = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        u = d / length
        f = k * (length - 1.0) * u
        force += f
        force[2] -= 0.1 * f[2]
        energy += 0.5 * k * (length - 1.0) ** 2
    return energy + np.dot(force, force)


def aliases(v, s):
    """`b = a` and `c = a[0:2]` share memory in NumPy; written before they are made, read
    after (jitad refuses a write seen through an alias)."""
    a = np.array([v[0] * s, v[1] + s, v[2] - s])
    a[1] = a[1] * 2.0
    a[0] += v[2]
    b = a
    c = a[0:2]
    return np.sum(b * c[0]) + c[1] * s


def quaternion_rotate(q, p):
    """A unit quaternion's rotation of a point, written with 3- and 4-vectors."""
    q = q / math.sqrt(np.sum(q * q))
    w, u = q[0], q[1:4]
    t = 2.0 * cross(u, p)
    out = p + w * t + cross(u, t)
    return np.sum(out * np.array([1.0, 2.0, 3.0]))


def short_slice(x):
    """A slice with constant bounds of a parameter, then the slice's elements."""
    head = x[0:3]
    return np.sum(head * head) + head[2]


def self_reference(v, w):
    """A vector assigned an expression that reads it (`a = a[1] * w + a`): every element is
    computed from the old vector before any is written, as NumPy computes the right side
    first; an RK-style update `y = y + h * (k1 + 2 k2)` in a loop."""
    a = np.array([v[0], v[1] * w, v[2]])
    a = a[1] * w + a
    y = np.array([0.5, 1.0, -0.3])
    for i in range(4):
        k1 = -w * y + np.sin(y)
        k2 = -w * (y + 0.1 * k1) + np.sin(y + 0.1 * k1)
        y = y + 0.05 * (k1 + 2.0 * k2)
        a = a[2] - a
    return np.sum(a * y)


def broadcast_partner(x, s):
    """A known 3-vector against a parameter of length 1 or 3 (NumPy's broadcasting both
    ways), accumulated back into the parameter's gradient (length 1: summed)."""
    v = np.array([s, 2.0 * s, -s])
    w = v * x + x
    return np.sum(w * w) + np.dot(w, v)


def branches_and_loops(v, n):
    """A vector set in both branches of an `if` and read after; a vector carried through a
    data-dependent `while` with an early `break` (its values pushed on the tape: it stays an
    array there)."""
    if v[0] > 0.0:
        a = np.array([v[0], v[1], 1.0])
    else:
        a = np.array([-v[0], 1.0, v[2]])
    b = np.zeros(3)
    k = 0
    while k < n:
        b = 0.5 * b + a * math.sin(k + v[1])
        if b[0] > 3.0:
            break
        k += 1
    return np.sum(a * b) + b[2]


def typed_vectors(v):
    """An integer vector (an index) stays an array; the float64 one it reorders does not."""
    idx = np.array([2, 0, 1])
    f = np.array([v[0] * 2.0, v[1], v[2] - 1.0])
    return np.sum(f[idx] * f)


def cross_and_norm(v, X):
    """NumPy's own `np.cross` and `np.linalg.norm` of 3-vectors (a constant slice of a longer
    parameter among them), and their adjoints, written out."""
    w = np.array([v[0], v[1] * 2.0, v[2]])
    c = np.cross(w, X[0:3])
    axis = c / np.linalg.norm(c)
    return np.linalg.norm(c) + np.sum(c * w) + np.dot(axis, np.cross(X[1:4], w))


# ---------------------------------------------------------------- small matrices
def euler_rotation(a):
    """ADBench hand's rotation from three angles: three 3 x 3 matrices built element by
    element, multiplied."""
    cx, sx, cy, sy, cz, sz = (math.cos(a[0]), math.sin(a[0]), math.cos(a[2]), math.sin(a[2]),
                              math.cos(a[1]), math.sin(a[1]))
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    Ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    Rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    return Rz @ Ry @ Rx


def rotate_points(a, p):
    """A rotation matrix (a helper's, returned: it stays an array there) applied to a point,
    its transpose's product with it, a row read, elements read, a sum."""
    R = euler_rotation(a)
    S = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            S[i, j] = R[i, j] * (1.0 + i) - R[j, i] * a[j]
    q = S @ p
    G = S.T @ S + 0.5 * np.eye(3)
    row = G[1]
    return np.dot(q, q) + np.sum(G * S) + np.dot(row, p) + G[2, 0] * S[0, 2] + np.sum(np.dot(p, S))


def rigid_transform(theta, p):
    """4 x 4 homogeneous transforms: np.eye(4) with a rotation block and a translation column
    written in, chained, inverted as [R.T, -R.T t]; applied to a point."""
    c, s = math.cos(theta[0]), math.sin(theta[0])
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = theta[1:4]
    U = np.eye(4)
    U[:3, :3] = R.T
    U[:3, 3] = -(R.T @ theta[1:4])
    V = T @ T @ U
    h = np.array([p[0], p[1], p[2], 1.0])
    out = V @ h
    return np.sum(out * out) + np.sum(V[0, :]) * theta[0] + np.sum(T @ U)


def carried_matrix(a, n):
    """A 2 x 2 matrix carried through a loop (multiplied by a rotation each step, normalized
    in a branch on its values) and read after it."""
    M = np.eye(2)
    for k in range(n):
        c, s = math.cos(a[0] * k), math.sin(a[1] + k)
        M = M @ np.array([[c, -s], [s, c]]) + a[2] * M.T
        if M[0, 0] > 1.0:
            M = M / M[0, 0]
        else:
            M[1, 1] += 0.1
    return np.sum(M * M) + M[1, 0]


def matrix_aliases(a):
    """`B = A`, a row `r = A[0]` and `T = A.T` share A's memory in NumPy: made after A's
    writes, read after (jitad refuses a write seen through an alias)."""
    A = np.array([[a[0], a[1]], [a[2], a[0] * a[1]]])
    A[1, 0] += a[1]
    A[0] *= a[2]
    B = A
    r = A[0]
    T = A.T
    return np.sum(B * T) + r[1] * B[1, 1] + np.sum(B @ T)


def returned_matrix(a):
    """A product of small matrices returned: the result stays an array, its factors do not."""
    R = np.array([[math.cos(a[0]), -math.sin(a[0])], [math.sin(a[0]), math.cos(a[0])]])
    S = np.array([[a[1], 0.5], [a[2] * a[1], 1.0]])
    return (R @ S).T * a[2] + S


def matrix_broadcast(a, X):
    """A known 3 x 3 matrix against an operand of a shape not known (NumPy's broadcasting:
    (3, 3), (1, 3), (3, 1), else its error), and its gradient (summed over the axes
    broadcast)."""
    M = np.array([[a[0], 1.0, a[1]], [a[2], a[0] * a[1], 0.5], [1.0, -a[2], a[0]]])
    P = M * X + M.T
    return np.sum(P * P) + np.sum(M @ P)


def transform_points(theta, X):
    """A 4 x 4 transform made in the function times an array of points of any count, from
    both sides (`T @ X`, `X.T @ T`: the array's length checked, a loop over its points)."""
    c, s = math.cos(theta[0]), math.sin(theta[0])
    T = np.eye(4)
    T[:3, :3] = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    T[:3, 3] = theta[1:4]
    Y = T @ X
    Z = X.T @ T
    return np.sum(Y * Y) + np.sum(Z[:, :3] * theta[1])
