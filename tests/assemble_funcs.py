"""Arrays written out from numbers (`jitad/assemble.py`): rotation matrices and vectors."""
import math

import numpy as np


def rotation(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0.0],
                     [s, c, 0.0],
                     [0.0, 0.0, 1.0]])


def rotate_points(angles, P):
    """Rotations built from numbers (a repeated 0.0, a row of constants), chained, and a
    vector written out: a matrix-valued output."""
    R = rotation(angles[0]) @ rotation(angles[1]).T
    shift = np.array([angles[0] * angles[1], 0.0, math.exp(angles[1])])
    return R @ P + shift[:, None]


def rotation_energy(angles, P):
    Q = rotate_points(angles, P)
    M = np.array([[angles[0], 1.0], [angles[1] ** 2, angles[0] * angles[1]]])
    return np.sum(Q ** 2) + np.sum(M @ M)
