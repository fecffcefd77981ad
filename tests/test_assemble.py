"""Arrays written out from numbers (`jitad/assemble.py`): a matrix of numbers is one
allocation and its element writes in the generated code, its gradient and Jacobians right in
both modes; jacfwd of a matrix output (whose shape the kernel reads off its first column's
jvp, compiling no primal) against jacrev and central differences."""
import numpy as np

import jitad

from . import assemble_funcs as af
from .harness import central_fd, check_both_modes

ANGLES = np.array([0.3, -0.8])
P = np.random.default_rng(7).normal(size=(3, 4))


def test_matrices_of_numbers_are_written_element_by_element():
    src = jitad.source(af.rotation_energy, "adjoint", args=(ANGLES, P))
    assert "np.concatenate" not in src and "np.full" not in src
    assert "np.empty((3, 3), np.float64)" in src
    # the 2 x 2 matrix, made and multiplied in place, is numbers (`scalarize`)
    assert "np.empty((2, 2)" not in src and "rt.matmat(M" not in src


def test_matrices_of_numbers_gradients_in_both_modes():
    check_both_modes(af.rotation_energy, (ANGLES, P), (0, 1))


def test_jacfwd_of_a_matrix_output_reads_its_shape_off_the_first_column():
    Jf = jitad.jacfwd(af.rotate_points, wrt=0)(ANGLES, P)
    Jr = jitad.jacrev(af.rotate_points, wrt=0)(ANGLES, P)
    assert Jf.shape == (3, 4, 2)
    fd = np.stack([central_fd(lambda a: af.rotate_points(a, P)[i, j], (ANGLES,), (0,))[0]
                   for i in range(3) for j in range(4)]).reshape(3, 4, 2)
    assert np.allclose(Jf, fd, rtol=1e-7, atol=1e-8) and np.allclose(Jf, Jr, rtol=1e-12, atol=1e-14)
    src = jitad.jacfwd(af.rotate_points, wrt=0).specialize(ANGLES, P).gen.source
    kernel = src[src.index("def rotate_points_jacfwd"):]
    assert "rotate_points(" not in kernel.replace("def rotate_points_jacfwd(", "")
