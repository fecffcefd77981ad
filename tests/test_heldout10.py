"""Held-out corpus #10's findings (tests/heldout10_funcs.py: NumPy in the forms other projects'
test suites call it, standard objectives, random programs and everyday models), fixed in both
modes: each reduced function's gradient (compiled -- Numba for one of each mechanism, the
generated Python for the rest -- against central finite differences, eager mode and, where it
computes the same function, autograd), its forward mode, Hessians against finite differences
of the gradient, the arguments unchanged; and what jitad still refuses, refused at the user's
line in both modes."""
import inspect
import math

import numpy as np
import pytest

import jitad

from . import heldout10_funcs as hf
from .harness import (assert_grads_close, autograd_grad, central_fd, check_form_accepted,
                      check_form_refused, check_hessian)

rng = np.random.default_rng(1010)


# -- x.dtype of a parameter, a compile-time dtype -------------------------------------------------
def dtype_of_parameters(x, y, idx):
    out = np.zeros(x.shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i] = x[i] * (i + 1.0)
    z = x.astype(y.dtype) * y
    w = np.ones(3, dtype=y.dtype) * np.sum(x)
    k = np.zeros(2, dtype=idx.dtype)          # an int array: the indices' dtype
    if x.dtype == np.float32 or not np.issubdtype(idx.dtype, np.integer):
        return np.sum(x)
    scale = 2.0 if np.issubdtype(y.dtype, np.floating) and y.dtype != float else 3.0
    return np.sum(out ** 2) + np.sum(np.sin(z)) + np.sum(w ** 2) + float(np.sum(k)) * scale


# -- isinstance(p, T) of a parameter, decided from its type ---------------------------------------------
def isinstance_of_parameters(x, n, s):
    if isinstance(n, int):
        x = x * n
    if isinstance(s, (list, tuple)):
        x = x + 100.0
    return _power_sum(x) * (s if isinstance(s, float) else 1.0)


def _power_sum(v):
    # a helper specialized per call: an array here, a number there
    if isinstance(v, np.ndarray):
        return np.sum(v ** 3) + _power_sum(float(v[0]))
    return v ** 2


# -- np.linalg.multi_dot, math.prod, math.isclose ---------------------------------------------------------
def multi_dot_prod_isclose(A, B, C, x):
    M = np.linalg.multi_dot([A, B, C])
    v = np.linalg.multi_dot((x, A, A.T, x))               # vectors at both ends: a number
    p = math.prod([x[0], x[1], 2.0]) + math.prod(x, start=0.5) + np.sum(math.prod(B))
    n = math.prod(A.shape)
    s = np.sum(M ** 2) / n + v + p
    if math.isclose(s, 0.0, abs_tol=1e-12):
        return s
    return s * (2.0 if math.isclose(x[0], x[0] + 1e-13) else 3.0)


def multi_dot_as_matmul(A, B, C, x):
    # the same function written with @ (autograd's reference)
    M = A @ B @ C
    v = x @ A @ A.T @ x
    p = x[0] * x[1] * 2.0 + 0.5 * np.prod(x) + np.sum(np.prod(B, axis=0))
    s = np.sum(M ** 2) / (A.shape[0] * A.shape[1]) + v + p
    return s * 2.0


# -- [*lst, x] of a list the function builds ------------------------------------------------------------
def star_list_forms(x):
    lst = [x[0], x[1] ** 2]
    lst = [*lst, x[2] * 3.0]                     # the target among the items
    hs = [x]
    for _ in range(3):
        hs = [*hs, np.tanh(1.5 * hs[-1])]
    tail = [x[1] * 0.5, *lst, *(x[0], 2.0)]
    return sum(lst) + np.sum(np.stack([*hs, x ** 2]) ** 2) + sum(tail) + len(lst) \
        + np.sum(np.array([*lst, x[0]]))


# -- initial= of np.sum / np.prod / np.max / np.min ------------------------------------------------------
def reductions_with_initial(x):
    X = x.reshape(2, 3)
    return np.sum(x, initial=1.0) + np.max(x, initial=-10.0) + np.sum(np.max(X, axis=1, initial=0.2)) \
        + np.prod(x[:3], initial=2.0) + np.sum(np.sum(X, axis=0, initial=0.5) ** 2) \
        + np.min(x, initial=5.0) + np.sum(np.amin(X, axis=0, keepdims=True, initial=0.1))


# -- dtype= of a scan (eager mode refused what compiled mode took) ------------------------------------
def scans_with_dtype(x):
    return np.sum(np.cumsum(x, dtype=np.float64) ** 2) + np.sum(np.cumprod(x, axis=0, dtype=float))


# -- map() of a lambda or a function name --------------------------------------------------------------
def _sq(v):
    return v * v


def maps_of_lambdas(x, y):
    a = sum(map(lambda v: v * v, x))
    b = np.sum(np.array(list(map(lambda p, q: p * q + 1.0, x, y))))
    c = 0.0
    for t in map(_sq, y):
        c += t
    return a + b + c + max(map(abs, x))


# -- self.m() in a method jitad differentiates --------------------------------------------------------------
class Regressor:
    def __init__(self, W, b, lam):
        self.W, self.b, self.lam = W, b, lam

    def hidden(self, X):
        return np.tanh(X @ self.W + self.b)

    @staticmethod
    def penalty(v):
        return np.sum(v * v) / v.shape[0]       # (v.shape is not the object's)

    def loss(self, X, y):
        h = self.hidden(X)
        return np.mean((np.sum(h, axis=1) - y) ** 2) + self.lam * self.penalty(self.W)


class Linear(Regressor):
    def hidden(self, X):
        return X @ self.W


X43 = rng.normal(size=(4, 3))
CASES = {
    "dtype": (dtype_of_parameters, (rng.normal(size=4), rng.normal(size=4), np.arange(3)), (0, 1)),
    "isinstance": (isinstance_of_parameters, (rng.normal(size=3), 2, 0.7), (0, 2)),
    "isinstance_scalar": (isinstance_of_parameters, (0.4, 2.0, (1.0, 2.0)), (0,)),
    "library": (multi_dot_prod_isclose, (rng.normal(size=(2, 3)), rng.normal(size=(3, 4)),
                                         rng.normal(size=(4, 2)), rng.normal(size=2)), (0, 1, 2, 3)),
    "stars": (star_list_forms, (rng.normal(size=3),), (0,)),
    "initial": (reductions_with_initial, (rng.normal(size=6),), (0,)),
    "scan_dtype": (scans_with_dtype, (rng.normal(size=5),), (0,)),
    "map": (maps_of_lambdas, (np.array([0.3, -1.2, 0.5]), np.array([1.0, 2.0, -0.7])), (0, 1)),
}
# one of each mechanism compiled by Numba: a typed front end (dtype), a library rewrite
# (multi_dot / math.prod / math.isclose); the rest as generated Python
NUMBA = ("dtype", "library")


@pytest.mark.parametrize("name", list(CASES))
def test_fixed_refusal_matches_finite_differences_and_eager(name):
    fn, args, wrt = CASES[name]
    check_form_accepted(fn, args, wrt, backend="numba" if name in NUMBA else "python")


@pytest.mark.parametrize("name", ["library", "stars", "map"])
def test_agrees_with_autograd(name):
    fn, args, wrt = CASES[name]
    ref = multi_dot_as_matmul if name == "library" else fn
    assert fn(*args) == pytest.approx(ref(*args), rel=1e-12)
    g = jitad.grad(jitad.differentiable(fn, backend="python"), wrt=wrt)(*args)
    assert_grads_close(g, autograd_grad(ref, args, wrt), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["dtype", "isinstance", "library", "stars", "initial"])
def test_hessian_matches_finite_differences_of_grad(name):
    fn, args, wrt = CASES[name]
    check_hessian(fn, args, wrt[:1], backend="python", rtol=1e-5)


def test_isinstance_specializes_per_argument_type():
    """One function, three signatures: each decides its isinstance from its own types."""
    f = jitad.differentiable(isinstance_of_parameters, backend="python")
    for args in [(np.arange(3.0), 2, 0.5), (1.5, 2, 0.5), (np.arange(3.0), 2.0, (1, 2))]:
        assert f(*args) == pytest.approx(isinstance_of_parameters(*args), rel=1e-14)
        g = (jitad.grad(f)(*args),)
        assert_grads_close(g, central_fd(isinstance_of_parameters, args, (0,), eps=1e-4, order=4),
                           rtol=1e-6, atol=1e-8)
        assert_grads_close((jitad.grad(isinstance_of_parameters, mode="eager")(*args),), g,
                           rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_method_calling_methods_of_its_object(mode):
    """`self.hidden(X)` and a static `self.penalty(v)` inside `model.loss`: the class's plain
    functions, given the object; an attribute changed between calls is seen."""
    model = Regressor(rng.normal(size=(3, 2)), rng.normal(size=2), 0.1)
    X, y = X43, rng.normal(size=4)
    f = model.loss if mode == "eager" else jitad.differentiable(model.loss, backend="python")
    for _ in range(2):
        v, g = jitad.value_and_grad(f, wrt=0, mode=mode)(X, y)
        assert v == pytest.approx(model.loss(X, y), rel=1e-13)
        assert_grads_close((g,), central_fd(model.loss, (X, y), (0,), eps=1e-4, order=4),
                           rtol=1e-6, atol=1e-8)
        _, dy = jitad.jvp(f, mode=mode)(X, y, tangents=np.ones_like(X))
        assert float(dy) == pytest.approx(float(np.sum(g)), rel=1e-8)
        model.W = model.W * 1.5                  # read again at the next call


def test_method_of_a_subclass_overriding_the_called_method_is_refused():
    model = Linear(rng.normal(size=(3, 2)), rng.normal(size=2), 0.1)
    for mode in ("compiled", "eager"):
        with pytest.raises(jitad.JitadError, match="Linear overrides"):
            jitad.grad(model.loss, mode=mode)(X43, np.zeros(4))


def test_method_calls_compiled_by_numba():
    model = Regressor(rng.normal(size=(3, 2)), rng.normal(size=2), 0.1)
    y = rng.normal(size=4)
    vg = jitad.value_and_grad(model.loss, wrt=0)
    v, g = vg(X43, y)
    assert vg.specialize(X43, y).compiled_ran
    assert v == pytest.approx(model.loss(X43, y), rel=1e-13)
    assert_grads_close((g,), central_fd(model.loss, (X43, y), (0,), eps=1e-4, order=4),
                       rtol=1e-6, atol=1e-8)


# the corpus's own functions that were refused, as their users wrote them (generated Python)
CORPUS = {fn.__name__: (fn, args, wrt) for fn, args, wrt in hf.suites() + hf.models()}


@pytest.mark.parametrize("name", ["dtype_zeros_like_input", "astype_other_dtype",
                                  "multi_dot_chain", "jax_star_list", "jax_math_prod_isclose",
                                  "jax_reduce_with_initial", "map_builtin"])
def test_corpus_function_accepted(name):
    fn, args, wrt = CORPUS[name]
    check_form_accepted(fn, args, wrt)


# -- what stays refused -----------------------------------------------------------------------------------
def isinstance_of_assigned(x):
    x = x * 2.0
    if isinstance(x, np.ndarray):  # ERR: isinstance() is decided when jitad compiles
        return np.sum(x)
    return x


def isinstance_numpy_scalar_type(x):
    # a float argument may be a Python float or an np.float64: isinstance cannot tell
    return x * 2.0 if isinstance(x, np.floating) else x  # ERR: isinstance() is decided


def dtype_of_local(x):
    y = x * 2.0
    return np.sum(np.ones(3, dtype=y.dtype) * y)  # ERR: .dtype is read when jitad compiles


def int_dtype_compared(x, idx):
    # int32 and int64 index arrays are both int64 to jitad
    return np.sum(x) if idx.dtype == np.int32 else np.sum(x ** 2)  # ERR: ask np.issubdtype


def object_made_inside(w, xs):
    return hf._Stepper(0.1).run(w, xs)  # ERR: makes an object of the class _Stepper


REFUSED = [
    (hf.squeeze_without_axis, (np.ones((3, 1, 2)),)),
    (isinstance_of_assigned, (np.ones(3),)),
    (isinstance_numpy_scalar_type, (0.5,)),
    (dtype_of_local, (np.ones(3),)),
    (int_dtype_compared, (np.ones(3), np.arange(2, dtype=np.int32))),
    (object_made_inside, (np.ones(3), np.ones((2, 3)))),
]


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_line_in_both_modes(fn, args):
    check_form_refused(fn, args, inspect.getsourcefile(fn))


def test_refused_forms_are_listed():
    assert {f.__name__ for f, _, _ in hf.refused_forms()} == {
        "squeeze_without_axis", "jax_isinstance_dispatch", "class_model_stepper"}


@pytest.mark.parametrize("fn,args,wrt", hf.refused_forms(), ids=[c[0].__name__ for c in hf.refused_forms()])
def test_refused_forms_refused_in_both_modes(fn, args, wrt):
    texts = []
    for mode in ("compiled", "eager"):
        f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
        with pytest.raises(jitad.JitadError) as e:
            jitad.grad(f, wrt=wrt, mode=mode)(*args)
        assert e.value.loc is not None and e.value.loc.filename == inspect.getsourcefile(hf)
        texts.append(str(e.value))
    assert texts[0] == texts[1]


def test_monadic_source_of_a_typed_function_for_its_arguments():
    text = jitad.source(dtype_of_parameters, "monadic", args=CASES["dtype"][1])
    assert "dtype=np.float64" in text and ".dtype" not in text
