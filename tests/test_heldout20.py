"""Held-out corpus #20 (tests/heldout20_funcs.py: NumPy / SciPy calls in the forms other
projects' gradient test suites use, MGH / CUTEst objectives not in earlier corpora, everyday
models). Its findings, fixed in both modes:
  * eager mode refused `math.cos(th)` in a method of a dataclass argument (`p.energy(th,
    om)`), and in a method of a NamedTuple made inside the function, where compiled mode
    took both: the methods of the user's classes now run eagerly (`eager.functional`:
    `_Patcher.user_class` rebuilds instance and class methods, `_Patcher.instance` gives the
    function copies of its arguments' objects of that class);
  * `idx = np.array([0, 2, 2])` read by `np.add.at(out, idx, v)` or `np.bincount(idx,
    weights=w)` (or written out as their indices, or np.take_along_axis's) was a float array,
    refused as an index: a primitive's `index_operands` count as index uses
    (`anf.index_arrays`);
  * `np.average(X, axis=0, weights=w)` with w a vector along the axis (NumPy's other form)
    was refused: `average_lanes`, through the bilinear `lanes_dot` (whose tangents the jvp
    calls, read again for Hessians);
  * `np.squeeze(x, axis=(1, 2))` (and `x.squeeze((1,))`) crashed both modes (a TypeError in
    the generated code), `np.expand_dims(x, axis=(0, 2))` crashed compiled mode, and
    `np.flip(x, axis=(0, 1))` was refused: a tuple of axes is the chain of one-axis calls
    `Primitive.axes_chain` orders (`forms.axes_steps`); axes counted both ways are refused;
  * `np.linspace(a, b, n, endpoint=False)` (a periodic grid) was refused: a prelude
    definition taken by a call giving endpoint= (`prelude.linspace_endpoint`).
Triage (python backend, compiled and eager against central differences): 52 cases (50
functions), on main 48 ok / 2 refused / 0 wrong / 1 crash (both modes: shape_methods'
squeeze over two axes) / 1 refused by eager mode only (dataclass_pendulum); after 52 ok. (The
first draft's `hasattr(np, ...)` and `np.squeeze` without axis= are refusals kept as such:
`refused_forms`.)
Each gradient against central finite differences (and autograd where it runs the function),
both modes, the arguments unchanged; Jacobians (jacfwd and jacrev, both modes) against central
differences, jvp against them; Hessians against central differences of the gradient, hvp
against them; five cases compiled by Numba (one per mechanism: average along an axis, index
literals read by np.add.at, squeeze over a tuple of axes, a dataclass argument's method, a
loop-written objective), the rest as generated Python."""
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import jitad

from . import heldout20_funcs as hf
from .harness import check_form_accepted, check_form_refused, check_hessian_and_hvp, corpus_tests

NUMBA = {"average_axis_weights", "gather_repeats_add_at", "shape_methods", "dataclass_pendulum",
         "broyden_banded"}
# autograd cannot run these (functions or keywords it lacks: scipy.special's log_ndtr and
# digamma of arrays, logsumexp's b= with axis=, einsum's ellipsis, lstsq, np.add.at, np.kron's
# vjp, tensordot(axes=int), diag(k=), meshgrid, nan_to_num, maximum.accumulate, matrix_power,
# trapezoid, assignment into an array; structures), or differs from central differences
# (np.prod with a zero: autograd divides by it)
NO_AUTOGRAD = {"special_zoo", "logsumexp_b_axis", "einsum_ellipsis", "lstsq_matrix_rhs",
               "kron_tensordot_inner", "diag_offsets", "meshgrid_bump", "linspace_endpoint",
               "prod_with_zeros", "average_axis_weights", "gather_repeats_add_at",
               "cumprod_and_accumulate", "matrix_power_multi_dot", "sort_axis_softmax",
               "linear_full_rank", "mlp_dict_l2", "mixture_density", "soft_kmeans",
               "upwind_advection", "negbin_regression", "namedtuple_two_layers",
               "dataclass_pendulum", "loss"}


globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD))


def _case(name):
    return next(c for c in hf.cases() if getattr(c[0], "__name__", "") == name)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux_metrics(mode):
    """value_and_grad with has_aux: the loss's gradient, the metrics dict as computed."""
    w, X, y = _case("huber_irls_objective")[1]
    yb = (y > 0).astype(float)
    f = jitad.differentiable(hf.loss_with_aux, backend="python") \
        if mode == "compiled" else hf.loss_with_aux
    (loss, aux), g = jitad.value_and_grad(f, has_aux=True, mode=mode)(w, X, yb)
    ref_loss, ref_aux = hf.loss_with_aux(w, X, yb)
    assert abs(loss - ref_loss) < 1e-12 and set(aux) == {"acc", "p0"}
    assert abs(aux["acc"] - ref_aux["acc"]) < 1e-12 and abs(aux["p0"] - ref_aux["p0"]) < 1e-12
    eps = 1e-6
    fd = np.array([(hf.loss_with_aux(w + eps * e, X, yb)[0]
                    - hf.loss_with_aux(w - eps * e, X, yb)[0]) / (2 * eps)
                   for e in np.eye(w.size)])
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_wrt_names_and_pytrees(mode):
    """wrt by name, index and a mixed tuple on a function of NamedTuple layers (gradients
    are Layer objects), and a dict of parameters, in both modes."""
    fn, args, _ = _case("namedtuple_two_layers")
    f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
    by_name = jitad.grad(f, wrt=("l1", "l2"), mode=mode)(*args)
    mixed = jitad.grad(f, wrt=("l1", 1), mode=mode)(*args)
    assert all(type(g) is hf.Layer for g in by_name)
    for a, b in zip(by_name, mixed):
        assert np.allclose(a.W, b.W) and np.allclose(a.b, b.b)
    fn, args, _ = _case("mlp_dict_l2")
    f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
    g = jitad.grad(f, wrt="params", mode=mode)(*args)
    assert set(g) == set(args[0]) and all(g[k].shape == args[0][k].shape for k in g)


FORMS = hf.forms()


@pytest.mark.parametrize("fn,args,wrt", FORMS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(FORMS)])
def test_forms(fn, args, wrt):
    """np.average with a vector of weights along an axis, integer literals read as indices by
    np.add.at / np.bincount / np.take_along_axis, np.linspace(endpoint=False): gradients in both modes against central
    differences, jvp (compiled and eager) against them."""
    check_form_accepted(fn, args, wrt)


def test_average_along_axis_hessian_and_values():
    """np.average along an axis: NumPy's value at ranks 2 and 3 (axes counted both ways), its
    Hessian (reverse over the tangent code, which calls `lanes_dot`), and a weights vector of
    the wrong length is NumPy's ValueError, not a read past its end."""
    rng = np.random.default_rng(3)
    X, w = rng.normal(size=(2, 3, 4)), rng.uniform(0.5, 1.5, size=4)
    f = jitad.differentiable(hf.average_along_axis, backend="python")
    assert np.isclose(f(X, w), hf.average_along_axis(X, w))
    check_hessian_and_hvp(hf.average_along_axis, (X, w), (1,))
    with pytest.raises(ValueError, match="weights"):
        jitad.grad(f)(X, np.ones(5))


def squeeze_tuple(X):
    a = np.squeeze(X[:, None, :1], axis=(1, 2))
    b = X[None, :, None, :].squeeze((0, 2))
    c = np.squeeze(X[:, :1, None], axis=(-1, -2))
    return np.sum(a ** 2) + np.sum(b * X) + np.sum(c * a)


def expand_flip_tuple(X):
    E = np.expand_dims(X, axis=(0, 2))
    F = np.expand_dims(X, (-1, -4))
    return (np.sum(E[0, :, 0, :] * X ** 2) + np.sum(F[0, :, :, 0] ** 3)
            + np.sum(np.flip(X, axis=(0, 1)) * X) + np.sum(np.flip(X, (1,)) * X))


def squeeze_mixed_axes(X):
    return np.sum(np.squeeze(X[:, None, :1], axis=(1, -1)))  # ERR: from the front and from the end


@pytest.mark.parametrize("fn", [squeeze_tuple, expand_flip_tuple])
def test_tuple_of_axes(fn):
    """np.squeeze / np.expand_dims / np.flip over a tuple of axes (each crashed or was refused
    before): both modes against central differences, jvp against the gradient."""
    check_form_accepted(fn, (np.random.default_rng(5).normal(size=(3, 4)),), (0,))


def test_tuple_of_axes_counted_both_ways_is_refused():
    check_form_refused(squeeze_mixed_axes, (np.ones((3, 4)),), __file__)


# -- eager: methods of the user's classes -----------------------------------------------------
class Arm(NamedTuple):
    l1: float
    l2: float

    def tip(self, q):
        return self.l1 * math.cos(q[0]) + self.l2 * math.cos(q[0] + q[1])


def arm_made_inside(q, a):
    arm = Arm(a, 2.0 * a)
    return arm.tip(q) ** 2 + Arm(1.0, 0.5).tip(q)


def arms_in_a_list(arms, q):
    return sum(arm.tip(q) * math.sin(arm.l1) for arm in arms)


@dataclass(frozen=True)
class Robot:
    arm: Arm
    k: float

    def reach(self, q):
        return self.arm.tip(q) * math.exp(self.k)


def robot_nested(r, q):
    return r.arm.tip(q) * r.k + r.reach(q)


def test_eager_runs_methods_of_nested_records():
    """A frozen dataclass holding a NamedTuple, both with methods calling math.*: eager mode's
    gradient (a Robot holding an Arm) equals compiled mode's and central differences."""
    r, q = Robot(Arm(0.7, 0.2), 1.3), np.array([0.4, -0.3])
    g_c = jitad.grad(jitad.differentiable(robot_nested, backend="python"), wrt=(0, 1))(r, q)
    g_e = jitad.grad(robot_nested, wrt=(0, 1), mode="eager")(r, q)
    assert type(g_e[0]) is Robot and type(g_e[0].arm) is Arm and type(r.arm) is Arm
    eps = 1e-6
    fd_k = (robot_nested(Robot(r.arm, r.k + eps), q) - robot_nested(Robot(r.arm, r.k - eps), q)) / (2 * eps)
    fd_l1 = (robot_nested(Robot(r.arm._replace(l1=0.7 + eps), r.k), q)
             - robot_nested(Robot(r.arm._replace(l1=0.7 - eps), r.k), q)) / (2 * eps)
    assert np.isclose(g_e[0].k, fd_k, rtol=1e-6) and np.isclose(g_e[0].arm.l1, fd_l1, rtol=1e-6)
    assert np.isclose(g_e[0].k, g_c[0].k, rtol=1e-9) and np.allclose(g_e[1], g_c[1], rtol=1e-9)


def test_eager_runs_methods_of_records_as_compiled_mode():
    """A NamedTuple with a method calling math.* made inside the function, and a list of them
    as an argument: eager mode's gradients equal compiled mode's and central differences
    (eager refused both, compiled mode took them), the caller's objects unchanged."""
    q = np.array([0.3, 0.5])
    check_form_accepted(arm_made_inside, (q, 0.7), (0, 1))
    arms = [Arm(0.8, 0.4), Arm(1.1, 0.3)]
    g_c = jitad.grad(jitad.differentiable(arms_in_a_list, backend="python"), wrt=(0, 1))(arms, q)
    g_e = jitad.grad(arms_in_a_list, wrt=(0, 1), mode="eager")(arms, q)
    assert type(g_e[0][0]) is Arm and type(arms[0]) is Arm
    eps = 1e-6
    fd = [(arms_in_a_list([a._replace(l1=a.l1 + eps) if j == i else a for j, a in enumerate(arms)],
                          q) - arms_in_a_list([a._replace(l1=a.l1 - eps) if j == i else a
                                               for j, a in enumerate(arms)], q)) / (2 * eps)
          for i in range(2)]
    for i in range(2):
        assert np.isclose(g_e[0][i].l1, fd[i], rtol=1e-6)
        assert np.isclose(g_e[0][i].l1, g_c[0][i].l1, rtol=1e-9)
        assert np.isclose(g_e[0][i].l2, g_c[0][i].l2, rtol=1e-9)
    assert np.allclose(g_e[1], g_c[1], rtol=1e-9)
