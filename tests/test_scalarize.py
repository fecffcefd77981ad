"""Small arrays of a length known when the code is generated become numbers
(`jitad/scalarize.py`): the generated code allocates none of them, the gradients, Jacobians
and Hessians stay right in both modes, and a slice with constant
bounds of a shorter array is refused at run time rather than read past its end."""
import numpy as np
import pytest

import jitad

from . import scalarize_funcs as sf
from .harness import central_fd, check_both_modes

RNG = np.random.default_rng(11)
CAM = np.concatenate([RNG.normal(scale=0.1, size=3), RNG.normal(scale=0.2, size=3), [1.1],
                      RNG.normal(scale=0.01, size=4)])
X = np.array([0.3, -0.2, 5.0])
FEAT = np.array([0.02, -0.01])
CHAIN = np.cumsum(RNG.normal(scale=0.6, size=(6, 3)) + [1.0, 0.0, 0.0], axis=0)


def _vjp_source(fn, args, wrt):
    src = jitad.source(fn, "adjoint", args=args, wrt=wrt)
    return src[src.index(f"def {fn.__name__}_vjp"):]


def test_the_reprojection_adjoint_allocates_no_small_arrays():
    src = _vjp_source(sf.reprojection, (CAM, X, 0.9, FEAT), (0, 1, 2))
    assert "np.empty((3,)" not in src and "np.empty((2,)" not in src
    assert src.count("np.zeros_like") == 2          # d_cam and d_X, the returned gradients
    assert "rt.check_slice_end(cam.shape[0], 6)" in src


@pytest.mark.parametrize("fn,args,wrt", [
    (sf.reprojection, (CAM, X, 0.9, FEAT), (0, 1, 2)),
    (sf.reprojection, (np.concatenate([[0.0, 0.0, 0.0], CAM[3:]]), X, 0.9, FEAT), (0, 1, 2)),
    (sf.spring_chain, (CHAIN, 2.5), (0, 1)),
    (sf.aliases, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.quaternion_rotate, (np.array([0.9, 0.1, -0.3, 0.2]), np.array([0.5, 1.5, -2.0])), (0, 1)),
    (sf.short_slice, (np.array([0.5, -1.5, 2.0, 4.0]),), (0,)),
    (sf.self_reference, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.broadcast_partner, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.broadcast_partner, (np.array([0.4]), 0.7), (0, 1)),
    (sf.branches_and_loops, (np.array([0.4, -1.3, 2.2]), 6), (0,)),
    (sf.branches_and_loops, (np.array([-0.4, 1.3, 2.2]), 9), (0,)),
    (sf.typed_vectors, (np.array([0.4, -1.3, 2.2]),), (0,)),
    (sf.cross_and_norm, (np.array([0.4, -1.3, 2.2]), np.array([0.3, 1.1, -0.7, 0.9])), (0, 1)),
], ids=["reprojection", "reprojection_at_zero", "spring_chain", "aliases", "quaternion",
        "short_slice", "self_reference", "broadcast_partner", "broadcast_partner_length_1",
        "branches_and_loops", "branches_and_loops_other_branch", "typed_vectors",
        "cross_and_norm"])
def test_gradients_in_both_modes(fn, args, wrt):
    check_both_modes(fn, args, wrt)


def test_cross_products_and_norms_are_written_out():
    src = _vjp_source(sf.cross_and_norm, (np.array([0.4, -1.3, 2.2]), np.ones(4)), (0, 1))
    src = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert "np.cross" not in src and "np.linalg.norm" not in src and "np.empty((3,)" not in src


def test_the_residual_jacobian_and_hessian():
    def residual(cam, X):
        return sf.rodrigues(cam[0:3], X - cam[3:6])[0:2] * cam[6]

    J = jitad.jacrev(residual, wrt=(0, 1))(CAM, X)
    Jf = jitad.jacfwd(residual, wrt=0)(CAM, X)
    for i in range(2):
        fd = central_fd(lambda c, x: residual(c, x)[i], (CAM, X), (0, 1))
        assert np.allclose(J[0][i], fd[0], rtol=1e-7, atol=1e-9)
        assert np.allclose(J[1][i], fd[1], rtol=1e-7, atol=1e-9)
    assert np.allclose(Jf, J[0], rtol=1e-12, atol=1e-14)
    H = jitad.hessian(sf.reprojection, wrt=1)(CAM, X, 0.9, FEAT)
    g = jitad.grad(sf.reprojection, wrt=1)
    fd = np.stack([central_fd(lambda x: g(CAM, x, 0.9, FEAT)[k], (X,), (0,))[0] for k in range(3)])
    assert np.allclose(H, fd, rtol=1e-6, atol=1e-8) and np.allclose(H, H.T, atol=1e-12)


def test_a_constant_slice_of_a_shorter_array_is_refused_at_run_time():
    x = np.array([0.5, -1.5])
    assert sf.short_slice.__name__ and np.isfinite(sf.short_slice(np.array([0.5, -1.5, 2.0])))
    with pytest.raises(IndexError, match="constant bounds"):
        jitad.grad(sf.short_slice)(x)
