"""Reference gradients and comparison helpers for the jitad test corpus.

* :func:`central_fd` -- central finite differences (no AD at all);
* :func:`autograd_grad` -- autograd on a copy of the function whose ``np`` is
  ``autograd.numpy`` and whose ``math`` is a shim onto ``autograd.numpy``;
* :func:`reference_grads` -- autograd when the case allows it, else FD;
* :func:`fd_hessian` -- central differences of a gradient function (second derivatives);
* :func:`fd_jacobian`, :func:`check_jacobians_and_jvp`, :func:`check_hessian_and_hvp`
  -- the held-out corpora's Jacobian, jvp, Hessian and hvp checks;
* :func:`autograd_hessian` -- autograd's Hessian blocks of the rebuilt function;
* :func:`assert_grads_close`, :func:`snapshot`, :func:`assert_unchanged`.

Gradients are returned as a tuple with one entry per index in ``wrt``, each
shaped like the corresponding argument (a Python float for a scalar argument,
an ``ndarray`` otherwise).
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import re
import types
from typing import Any, Sequence

import numpy as np

# ---------------------------------------------------------------------------
# small utilities
# ---------------------------------------------------------------------------


def _unwrap(fn):
    """Follow ``__wrapped__`` (functools.wraps / decorator objects) to the
    plain Python function."""
    seen = set()
    while hasattr(fn, "__wrapped__") and id(fn) not in seen:
        seen.add(id(fn))
        fn = fn.__wrapped__
    return fn


def _is_float_scalar(v) -> bool:
    return isinstance(v, (float, np.floating)) and not isinstance(v, bool)


def _as_float(v) -> float:
    """Function value -> Python float (accepts 0-d arrays and NumPy scalars)."""
    return float(np.asarray(v, dtype=np.float64))


def _check_wrt(args, wrt):
    for k in wrt:
        a = args[k]
        if isinstance(a, np.ndarray):
            if a.dtype.kind != "f":
                raise TypeError(f"argument {k} has dtype {a.dtype}; only float arrays are differentiable")
        elif not _is_float_scalar(a):
            raise TypeError(f"argument {k} is {type(a).__name__}; only float scalars/arrays are differentiable")


# ---------------------------------------------------------------------------
# finite differences
# ---------------------------------------------------------------------------


def central_fd(fn, args: Sequence[Any], wrt: Sequence[int], eps: float = 1e-6,
               upcast_float32: bool = True, order: int = 2):
    """Central finite differences of the scalar function ``fn(*args)`` with
    respect to each argument index in ``wrt``.

    The step for element ``x`` is ``h = eps * max(1, |x|)``.  ``order=2`` is
    the plain 2-point stencil ``(f(x+h) - f(x-h)) / 2h`` (error ~1e-9 for the
    corpus with the default eps); ``order=4`` is the 4-point stencil
    ``(8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h``, which with
    ``eps=1e-4`` is good to ~1e-11 (used by :func:`reference_grads`).  The
    arguments are never modified: every evaluation gets copies.

    float32 arguments: with ``upcast_float32`` (default) every float32 array
    argument is cast to float64 for *all* evaluations, i.e. the reference is
    the gradient of the same mathematical function evaluated in double
    precision (safe for functions that do not depend on the dtype, which is
    true for the corpus).  Compare a float32 gradient against it with a
    float32 tolerance.  Without upcasting the step is raised to at least
    ``1e-2`` for float32 arguments, which is only good to ~1e-3.
    """
    _check_wrt(args, wrt)
    base = []
    for a in args:
        if isinstance(a, np.ndarray):
            if upcast_float32 and a.dtype == np.float32:
                a = a.astype(np.float64)
            base.append(a.copy())
        else:
            base.append(a)

    def call(override_k=None, override_v=None):
        call_args = []
        for k, a in enumerate(base):
            if k == override_k:
                call_args.append(override_v)
            elif isinstance(a, np.ndarray):
                call_args.append(a.copy())
            else:
                call_args.append(a)
        return _as_float(fn(*call_args))

    if order not in (2, 4):
        raise ValueError("order must be 2 or 4")

    def stencil(eval_at, x0, h, dtype=np.float64):
        # eval_at(v): function value with the element set to v; points are
        # rounded to the argument's dtype so the step actually taken is used
        if order == 2:
            xp = float(dtype(x0 + h))
            xm = float(dtype(x0 - h))
            return (eval_at(xp) - eval_at(xm)) / (xp - xm)
        h = float(dtype(x0 + h)) - x0  # a step that is exact in binary
        d1 = eval_at(x0 + h) - eval_at(x0 - h)
        d2 = eval_at(x0 + 2.0 * h) - eval_at(x0 - 2.0 * h)
        return (8.0 * d1 - d2) / (12.0 * h)

    grads = []
    for k in wrt:
        a = base[k]
        if isinstance(a, np.ndarray):
            step = eps if a.dtype != np.float32 else max(eps, 1e-2)
            g = np.zeros(a.shape, dtype=np.float64)
            for ix in np.ndindex(*a.shape):
                x0 = float(a[ix])

                def eval_at(v, ix=ix, a=a, k=k):
                    p = a.copy()
                    p[ix] = v
                    return call(k, p)

                g[ix] = stencil(eval_at, x0, step * max(1.0, abs(x0)), a.dtype.type)
            grads.append(g)
        else:
            x0 = float(a)
            g = stencil(lambda v, k=k: call(k, v), x0, eps * max(1.0, abs(x0)))
            grads.append(float(g))
    return tuple(grads)


# ---------------------------------------------------------------------------
# autograd reference
# ---------------------------------------------------------------------------

_MATH_TO_ANP = {
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "asin": "arcsin",
    "acos": "arccos",
    "atan": "arctan",
    "sinh": "sinh",
    "cosh": "cosh",
    "tanh": "tanh",
    "exp": "exp",
    "expm1": "expm1",
    "log": "log",
    "log1p": "log1p",
    "log10": "log10",
    "log2": "log2",
    "sqrt": "sqrt",
    "atan2": "arctan2",
    "hypot": "hypot",
    "fabs": "abs",
    "pow": "power",
}

_math_shim = None


def autograd_math_shim():
    """A module object that looks like ``math`` but whose differentiable
    functions are the ``autograd.numpy`` ones (constants such as ``pi`` and
    every other attribute are copied from ``math``)."""
    global _math_shim
    if _math_shim is None:
        import autograd.numpy as anp

        shim = types.ModuleType("math_autograd_shim")
        for name in dir(math):
            if not name.startswith("__"):
                setattr(shim, name, getattr(math, name))
        for name, anp_name in _MATH_TO_ANP.items():
            setattr(shim, name, getattr(anp, anp_name))
        _math_shim = shim
    return _math_shim


def autograd_rebuild(fn):
    """Copy of ``fn`` whose globals see ``autograd.numpy`` as ``np`` and the
    math shim as ``math``; every other function defined in the same module as
    ``fn`` (helpers, recursive calls) is rebuilt the same way, sharing the new
    globals dict."""
    import autograd.numpy as anp

    fn = _unwrap(fn)
    module_name = fn.__module__
    g = dict(fn.__globals__)
    for key, val in list(g.items()):
        if val is np:
            g[key] = anp
        elif val is math:
            g[key] = autograd_math_shim()
    g["np"] = anp
    g["math"] = autograd_math_shim()

    def rebuild(f):
        return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)

    for key, val in list(g.items()):
        plain = _unwrap(val) if callable(val) else val
        if isinstance(plain, types.FunctionType) and plain.__module__ == module_name:
            g[key] = rebuild(plain)
    return rebuild(fn)


def autograd_grad(fn, args: Sequence[Any], wrt: Sequence[int]):
    """Gradients of ``fn(*args)`` with respect to ``args[k]`` for ``k`` in
    ``wrt``, computed by autograd on a rebuilt copy of ``fn``."""
    import autograd

    _check_wrt(args, wrt)
    f = autograd_rebuild(fn)
    grads = []
    for k in wrt:
        call_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        if not isinstance(call_args[k], np.ndarray):
            call_args[k] = float(call_args[k])
        g = autograd.grad(f, argnum=k)(*call_args)
        if isinstance(args[k], np.ndarray):
            g = np.asarray(g, dtype=np.float64).reshape(args[k].shape)
        else:
            g = float(g)
        grads.append(g)
    return tuple(grads)


def autograd_value(fn, args):
    """Value of the autograd-rebuilt function (sanity check of the rebuild)."""
    f = autograd_rebuild(fn)
    return _as_float(f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))


def _as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


def fd_hessian(grad_fn, args: Sequence[Any], wrt: Sequence[int], eps: float = 1e-5):
    """Second derivatives by central differences of ``grad_fn(*args)`` (the gradients for
    ``wrt``, a tuple of them or one): ``H[a][b]`` shaped ``args[wrt[a]].shape +
    args[wrt[b]].shape``, column ``k`` of block ``b`` from the step ``h = eps * max(1, |x_k|)``
    of element ``k`` of ``args[wrt[b]]``. The arguments are never modified."""
    m = len(wrt)
    H = [[None] * m for _ in range(m)]
    for b, j in enumerate(wrt):
        x = np.asarray(args[j], dtype=np.float64)
        cols = []
        for k in range(x.size):
            x0 = float(x.ravel()[k])
            h = eps * max(1.0, abs(x0))

            def at(v, j=j, k=k, x=x):
                a = [t.copy() if isinstance(t, np.ndarray) else t for t in args]
                if x.ndim:
                    p = x.copy().ravel()
                    p[k] = v
                    a[j] = p.reshape(x.shape)
                else:
                    a[j] = v
                return _as_tuple(grad_fn(*a))
            xp, xm = x0 + h, x0 - h
            gp, gm = at(xp), at(xm)
            cols.append([(np.asarray(p, dtype=np.float64) - np.asarray(q, dtype=np.float64))
                         / (xp - xm) for p, q in zip(gp, gm)])
        for a in range(m):
            col = np.array([c[a] for c in cols])               # (x.size,) + shape_a
            H[a][b] = np.moveaxis(col, 0, -1).reshape(np.shape(args[wrt[a]]) + x.shape)
    return tuple(tuple(r) for r in H)


def check_hessian(fn, args, wrt, backend="python", rtol=1e-4, d=None):
    """jitad.hessian of fn (compiled with `backend`, and eager) against central differences
    of eager mode's gradient (relative to each block's largest entry), compiled against eager
    to rounding. `d`: fn's `Differentiable` to use (made with `backend` if None). Returns the
    checked Hessian as blocks `H[a][b]` (one block when wrt has one argument)."""
    import jitad
    d = jitad.differentiable(backend=backend)(fn) if d is None else d
    H = jitad.hessian(d, wrt=wrt)(*args)
    He = jitad.hessian(fn, wrt=wrt, mode="eager")(*args)
    Hf = fd_hessian(jitad.grad(fn, wrt=wrt, mode="eager"), args, wrt)
    if len(wrt) == 1:
        H, He = ((H,),), ((He,),)
    for a in range(len(wrt)):
        for b in range(len(wrt)):
            scale = 1e-8 + np.max(np.abs(Hf[a][b]))
            assert np.max(np.abs(np.asarray(H[a][b]) - Hf[a][b])) / scale < rtol, (a, b)
            assert np.allclose(H[a][b], He[a][b], rtol=1e-9, atol=1e-12 * scale), (a, b)
    return H


def fd_jacobian(fn, args, k, eps=1e-5):
    """Central differences of fn(*args) (any shape) in argument k: shape f.shape + x.shape."""
    x = np.asarray(args[k], dtype=float)
    cols = []
    for idx in np.ndindex(x.shape):
        parts = []
        for s in (1.0, -1.0):
            xs = x.copy()
            xs[idx] += s * eps
            a = list(args)
            a[k] = xs
            parts.append(np.asarray(fn(*a), dtype=float))
        cols.append((parts[0] - parts[1]) / (2 * eps))
    return np.stack(cols, axis=-1).reshape(np.shape(fn(*args)) + x.shape)


def check_jacobians_and_jvp(fn, args, k):
    """jacfwd and jacrev of fn wrt argument k, compiled (python backend) and eager, against
    central differences; jvp along a random direction against the Jacobian times it; the
    arguments unchanged."""
    import jitad
    J_fd = fd_jacobian(fn, args, k)
    snap = snapshot(args)
    f = jitad.differentiable(fn, backend="python")
    t = np.random.default_rng(3).normal(size=np.shape(args[k]))
    for mode in ("compiled", "eager"):
        g = f if mode == "compiled" else fn
        for jac in (jitad.jacfwd, jitad.jacrev):
            J = jac(g, wrt=k, mode=mode)(*args)
            assert np.allclose(J, J_fd, rtol=1e-6, atol=1e-8), (mode, jac.__name__)
        y, y_dot = jitad.jvp(g, wrt=k, mode=mode)(*args, tangents=t)
        assert np.allclose(y, fn(*args), rtol=1e-12, atol=1e-14)
        assert np.allclose(y_dot, np.tensordot(J_fd, t, axes=t.ndim), rtol=1e-6, atol=1e-8)
    assert_unchanged(args, snap, "jacobians")


def check_hessian_and_hvp(fn, args, wrt):
    """`check_hessian` (python backend), then hvp wrt the first of `wrt` against H @ v in both
    modes, H's diagonal block for that argument being the one `check_hessian` checked (the
    Hessian wrt it alone is not generated again) and the compiled hvp taking the same
    `Differentiable`."""
    import jitad
    d = jitad.differentiable(fn, backend="python")
    k = wrt[0]
    H = check_hessian(fn, args, wrt, backend="python", d=d)[0][0]
    x = args[k]
    v = np.random.default_rng(5).normal(size=np.shape(x))
    v = float(v) if np.ndim(x) == 0 else v
    expect = np.tensordot(np.asarray(H), v, axes=np.ndim(x))
    for mode in ("compiled", "eager"):
        g = d if mode == "compiled" else fn
        hv = jitad.hvp(g, wrt=k, mode=mode)(*args, v=v)
        assert np.allclose(hv, expect, rtol=1e-7, atol=1e-9), mode


def autograd_hessian(fn, args: Sequence[Any], wrt: Sequence[int]):
    """``H[a][b]`` (shaped like :func:`fd_hessian`'s) by autograd on a rebuilt copy of ``fn``:
    the Jacobian with respect to ``args[wrt[b]]`` of the gradient for ``args[wrt[a]]``."""
    import autograd

    _check_wrt(args, wrt)
    f = autograd_rebuild(fn)
    call = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    return tuple(tuple(np.asarray(autograd.jacobian(autograd.grad(f, i), j)(*call),
                                  dtype=np.float64).reshape(np.shape(args[i]) + np.shape(args[j]))
                       for j in wrt) for i in wrt)


def reference_grads(case, args=None):
    """Reference gradients for a corpus ``Case``: autograd where
    ``case.autograd`` is true, central finite differences otherwise."""
    if args is None:
        args = case.make_args()
    if case.autograd:
        return autograd_grad(case.fn, args, case.wrt)
    return central_fd(case.fn, args, case.wrt, eps=1e-4, order=4)


# ---------------------------------------------------------------------------
# comparison and mutation checks
# ---------------------------------------------------------------------------


def assert_grads_close(actual, expected, rtol: float = 1e-6, atol: float = 1e-8, label: str = ""):
    """Elementwise ``|actual - expected| <= atol + rtol * |expected|`` for
    every entry of two gradient tuples.  Shapes must match exactly (a scalar
    gradient must be a scalar, an array gradient an array of the argument's
    shape)."""
    prefix = f"[{label}] " if label else ""
    if not isinstance(actual, (tuple, list)):
        raise AssertionError(f"{prefix}gradients must be a tuple, got {type(actual).__name__}")
    if len(actual) != len(expected):
        raise AssertionError(f"{prefix}expected {len(expected)} gradients, got {len(actual)}")
    for n, (a, e) in enumerate(zip(actual, expected)):
        e_arr = np.asarray(e, dtype=np.float64)
        a_arr = np.asarray(a)
        if a_arr.shape != e_arr.shape:
            raise AssertionError(
                f"{prefix}gradient #{n}: shape {a_arr.shape} != expected {e_arr.shape}")
        if a_arr.dtype.kind not in "fiu":
            raise AssertionError(f"{prefix}gradient #{n}: non-numeric dtype {a_arr.dtype}")
        a_arr = a_arr.astype(np.float64)
        if not np.all(np.isfinite(a_arr)):
            raise AssertionError(f"{prefix}gradient #{n}: non-finite values {a_arr}")
        err = np.abs(a_arr - e_arr)
        bound = atol + rtol * np.abs(e_arr)
        if not np.all(err <= bound):
            worst = np.unravel_index(np.argmax(err - bound), err.shape) if err.ndim else ()
            raise AssertionError(
                f"{prefix}gradient #{n} mismatch (rtol={rtol}, atol={atol}); "
                f"worst at {worst}: actual={a_arr[worst]!r} expected={e_arr[worst]!r} "
                f"abs err={err[worst]:.3e}\nactual=\n{a_arr}\nexpected=\n{e_arr}")


def snapshot(args):
    """Deep copy of an argument tuple (to detect mutation of user arrays)."""
    return copy.deepcopy(tuple(args))


def assert_unchanged(args, snap, label: str = ""):
    """Every argument equals (bitwise, same dtype and shape) its snapshot."""
    prefix = f"[{label}] " if label else ""
    if len(args) != len(snap):
        raise AssertionError(f"{prefix}argument count changed")
    for k, (a, s) in enumerate(zip(args, snap)):
        if _is_dataclass_object(s):                  # its fields, as a tuple's items
            if type(a) is not type(s):
                raise AssertionError(f"{prefix}argument {k} changed type: {a!r} vs {s!r}")
            assert_unchanged(_fields_of(a), _fields_of(s), f"{label} argument {k}")
        elif isinstance(s, (tuple, list, dict)):     # a structured argument: its contents
            if type(a) is not type(s) or len(a) != len(s) or (
                    isinstance(s, dict) and list(a) != list(s)):
                raise AssertionError(f"{prefix}argument {k} changed: {a!r} vs {s!r}")
            parts = (list(a.values()), list(s.values())) if isinstance(s, dict) else (a, s)
            assert_unchanged(tuple(parts[0]), tuple(parts[1]), f"{label} argument {k}")
        elif isinstance(s, np.ndarray):
            if not isinstance(a, np.ndarray):
                raise AssertionError(f"{prefix}argument {k} is no longer an array")
            if a.dtype != s.dtype or a.shape != s.shape:
                raise AssertionError(
                    f"{prefix}argument {k} changed dtype/shape: {a.dtype}{a.shape} vs {s.dtype}{s.shape}")
            if not np.array_equal(a, s, equal_nan=True):
                raise AssertionError(f"{prefix}argument {k} was mutated:\n{a}\nwas\n{s}")
        else:
            if type(a) is not type(s) or not (a == s or (a != a and s != s)):
                raise AssertionError(f"{prefix}argument {k} changed: {a!r} vs {s!r}")


# ---------------------------------------------------------------------------
# one-call check for a gradient implementation
# ---------------------------------------------------------------------------


def check_value_and_grad(case, vg, label: str | None = None):
    """Run ``value, grads = vg(*args)`` on fresh arguments of ``case`` and
    check: the arguments were not mutated, ``value`` equals the plain
    function's value, and ``grads`` match :func:`reference_grads` within the
    case's tolerance.  ``vg`` is e.g. ``jitad.value_and_grad(case.fn,
    wrt=case.wrt)``.  Returns ``(value, grads)``."""
    label = label or case.name
    args = case.make_args()
    snap = snapshot(args)
    value, grads = vg(*args)
    assert_unchanged(args, snap, label)
    expected_value = _as_float(case.fn(*case.make_args()))
    v = _as_float(value)
    v_tol = max(case.atol, 1e-12) + max(case.rtol, 1e-12) * abs(expected_value)
    if not abs(v - expected_value) <= v_tol:
        raise AssertionError(f"[{label}] value {v!r} != plain function value {expected_value!r}")
    assert_grads_close(tuple(grads), reference_grads(case), rtol=case.rtol, atol=case.atol,
                       label=label)
    return value, grads


def _is_dataclass_object(v) -> bool:
    return dataclasses.is_dataclass(v) and not isinstance(v, type)


def _fields_of(v) -> tuple:
    return tuple(getattr(v, f.name) for f in dataclasses.fields(v))


def leaves_of(tree):
    """The arrays and scalars of nested tuples, lists, dicts and dataclass objects, in
    order."""
    if _is_dataclass_object(tree):
        return leaves_of(_fields_of(tree))
    if isinstance(tree, dict):
        return leaves_of(tuple(tree.values()))
    if isinstance(tree, (tuple, list)):
        return tuple(x for t in tree for x in leaves_of(t))
    return (tree,)


def fill_like(like, it):
    """`like`'s structure (tuples, namedtuples, lists, dicts, dataclass objects: a copy with
    its fields set), its leaves taken from `it`."""
    if _is_dataclass_object(like):
        out = copy.copy(like)
        for f, v in zip(dataclasses.fields(like), [fill_like(t, it) for t in _fields_of(like)]):
            object.__setattr__(out, f.name, v)
        return out
    if isinstance(like, dict):
        return {k: fill_like(v, it) for k, v in like.items()}
    if isinstance(like, (tuple, list)):
        parts = [fill_like(t, it) for t in like]
        return type(like)._make(parts) if hasattr(like, "_make") else type(like)(parts)
    return next(it)


def flat_args(fn, args, wrt):
    """(a function of flat arguments, the flat arguments, the flat wrt): structured arguments
    spread into their leaves, so that finite differences can perturb them."""
    flat = leaves_of(tuple(args))
    starts = [0]
    for a in args:
        starts.append(starts[-1] + len(leaves_of(a)))

    def flat_fn(*xs):
        return fn(*fill_like(tuple(args), iter(xs)))
    return flat_fn, flat, tuple(k for w in wrt for k in range(starts[w], starts[w + 1]))


def check_both_modes(fn, args, wrt, kwargs=None, backend="numba"):
    """The compiled gradient of fn (the compiled path ran: the Numba-compiled gradient, or with
    `backend="python"` the same generated code run as Python) against central finite
    differences and the eager one against the compiled one; the value against the plain
    function's; the arguments unchanged by either mode. With Numba, fn itself is compiled (its
    specializations are shared with the other tests of fn)."""
    import jitad
    kwargs = kwargs or {}
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn if backend == "numba" else
                              jitad.differentiable(fn, backend=backend), wrt=wrt)
    value, grads = vg(*args, **kwargs)
    assert_unchanged(args, snap, "compiled")
    spec = vg.specialize(*vg.d.bind(args, kwargs))
    assert spec.backend == backend and spec.gen.vjp and hasattr(spec.module, spec.gen.vjp)
    assert backend == "python" or spec.compiled_ran, "the Numba-compiled gradient did not run"
    expected = _as_float(fn(*args, **kwargs))
    if not abs(_as_float(value) - expected) <= 1e-12 + 1e-10 * abs(expected):
        raise AssertionError(f"value {value!r} != plain function value {expected!r}")
    fd = central_fd(lambda *a: fn(*a, **kwargs), args, wrt, eps=1e-4, order=4)
    assert_grads_close(tuple(grads), fd, rtol=1e-6, atol=1e-8, label="compiled vs FD")
    eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args, **kwargs)
    assert_unchanged(args, snap, "eager")
    assert_grads_close(tuple(eager), tuple(grads), rtol=1e-9, atol=1e-12, label="eager vs compiled")


def error_marker(fn):
    """(line number, expected text) of the `# ERR: <text>` marker in fn's source: where a
    test expects jitad's error to point, and what it should name."""
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        m = re.search(r"# ERR: (.+)$", text)
        if m:
            return first + k, m.group(1).strip()
    raise AssertionError(f"no ERR marker in {fn.__name__}")


def check_grads_both_modes(fn, args, wrt, backend="python", value_atol=1e-12):
    """The compiled gradient (the compiled path ran under Numba) against central finite
    differences over every leaf of the arguments, the value against the plain function's,
    the eager gradient against the compiled one, the arguments unchanged. Returns the
    compiled gradients."""
    import jitad
    snap = snapshot(args)
    vg = jitad.value_and_grad(jitad.differentiable(fn, backend=backend), wrt=wrt)
    value, grads = vg(*args)
    assert_unchanged(args, snap, "compiled")
    if backend == "numba":
        assert vg.specialize(*args).compiled_ran
    expected = _as_float(fn(*args))
    if not abs(_as_float(value) - expected) <= value_atol + 1e-10 * abs(expected):
        raise AssertionError(f"value {value!r} != plain function value {expected!r}")
    fd = central_fd(*flat_args(fn, args, wrt), eps=1e-4, order=4)
    assert_grads_close(leaves_of(grads), fd, rtol=1e-5, atol=1e-7, label="compiled vs FD")
    eager = jitad.grad(fn, wrt=wrt, mode="eager")(*args)
    assert_unchanged(args, snap, "eager")
    assert_grads_close(leaves_of(eager), leaves_of(grads), rtol=1e-8, atol=1e-10,
                       label="eager vs compiled")
    return grads


def check_corpus_case(fn, args, wrt, numba=(), no_autograd=()):
    """One case of a held-out corpus: `check_grads_both_modes` (under Numba when fn's name is
    in `numba`, else the python backend), then the compiled gradients against autograd's
    unless fn's name is in `no_autograd`."""
    name = fn.__name__
    grads = check_grads_both_modes(fn, args, wrt,
                                   backend="numba" if name in numba else "python")
    if name not in no_autograd:
        assert_grads_close(grads if isinstance(grads, tuple) else (grads,),
                           autograd_grad(fn, args, wrt), rtol=1e-8, atol=1e-10,
                           label="compiled vs autograd")


def corpus_tests(hf, numba=(), no_autograd=(), at_least=50) -> dict:
    """The tests every held-out corpus module `hf` gets (its `cases()`, `jacobians()`,
    `HESSIANS` and `refused_forms()`), as test functions by name: a test file takes them with
    `globals().update(corpus_tests(hf, NUMBA, NO_AUTOGRAD))`. Each case by
    `check_corpus_case`, each Jacobian by `check_jacobians_and_jvp`, each named Hessian by
    `check_hessian_and_hvp`, each refused form by `check_form_refused`, and the corpus at
    least `at_least` functions."""
    import pytest

    def name(fn):
        return getattr(fn, "__name__", "fn")

    cases, jacs, refused = hf.cases(), hf.jacobians(), hf.refused_forms()
    hess = [next(c for c in cases if name(c[0]) == n) for n in hf.HESSIANS]

    @pytest.mark.parametrize("fn,args,wrt", cases,
                             ids=[f"{name(c[0])}-{k}" for k, c in enumerate(cases)])
    def test_corpus_both_modes(fn, args, wrt):
        check_corpus_case(fn, args, wrt, numba, no_autograd)

    def test_corpus_is_large_enough():
        names = {name(c[0]) for c in cases + jacs + refused}
        assert len(names) >= at_least

    @pytest.mark.parametrize("fn,args,k", jacs, ids=[c[0].__name__ for c in jacs])
    def test_jacobians_and_jvp(fn, args, k):
        check_jacobians_and_jvp(fn, args, k)

    @pytest.mark.parametrize("fn,args,wrt", hess, ids=list(hf.HESSIANS))
    def test_hessians_and_hvp(fn, args, wrt):
        check_hessian_and_hvp(fn, args, wrt)

    @pytest.mark.parametrize("fn,args", refused, ids=[c[0].__name__ for c in refused])
    def test_refused_forms(fn, args):
        check_form_refused(fn, args, hf.__file__)

    return {f.__name__: f for f in (test_corpus_both_modes, test_corpus_is_large_enough,
                                    test_jacobians_and_jvp, test_hessians_and_hvp,
                                    test_refused_forms)}


def check_form_accepted(fn, args, wrt, backend="python"):
    """A form both modes accept (`check_grads_both_modes`); then forward mode, both flavours,
    along a direction of the first wrt argument (an array or a number) against the
    gradient."""
    import jitad
    grads = check_grads_both_modes(fn, args, wrt, backend)
    x = args[wrt[0]]
    if isinstance(x, (tuple, list, dict)):
        return
    t = np.asarray(np.random.default_rng(1).normal(size=np.shape(x)))
    t = float(t) if np.ndim(x) == 0 else t
    along = float(np.sum(np.asarray(leaves_of(grads)[0]) * t))
    for mode in ("compiled", "eager"):
        d = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
        _, dy = jitad.jvp(d, wrt=wrt[0], mode=mode)(*args, tangents=t)
        if not abs(float(dy) - along) <= 1e-9 + 1e-7 * abs(along):
            raise AssertionError(f"{mode} tangent {float(dy)!r} != gradient . t {along!r}")


def check_form_refused(fn, args, filename):
    """A form both modes refuse with the same `JitadError`, at the `# ERR:` line of fn (in
    `filename`), naming what the marker says."""
    import jitad
    from jitad.errors import JitadError

    line, expected = error_marker(fn)
    texts = []
    for make in (lambda: jitad.grad(jitad.differentiable(fn, backend="python")),
                 lambda: jitad.grad(fn, mode="eager")):
        try:
            make()(*args)
        except JitadError as err:
            text = str(err)
            # the message itself: str(err) also quotes the source line, marker comment included
            assert expected in err.message + (err.construct or ""), text
            assert err.loc is not None and err.loc.filename == filename \
                and err.loc.line == line, text
            texts.append(text)
        else:
            raise AssertionError(f"{fn.__name__} was not refused")
    assert texts[0] == texts[1], texts


# ---------------------------------------------------------------------------
# triage of a held-out corpus (the `python -m tests.heldoutN_funcs` runners)
# ---------------------------------------------------------------------------


def struct_leaves(a):
    """The arrays and numbers of a (nested) tuple, list, dict or dataclass object, in
    order."""
    if _is_dataclass_object(a):
        return struct_leaves(_fields_of(a))
    if isinstance(a, dict):
        return [x for v in a.values() for x in struct_leaves(v)]
    if isinstance(a, (tuple, list)):
        return [x for v in a for x in struct_leaves(v)]
    return [a]


def struct_rebuild(a, it):
    """``a``'s structure with its leaves taken from the iterator ``it``."""
    if _is_dataclass_object(a):
        return fill_like(a, iter([struct_rebuild(v, it) for v in _fields_of(a)]))
    if isinstance(a, dict):
        return {k: struct_rebuild(v, it) for k, v in a.items()}
    if isinstance(a, (tuple, list)):
        parts = [struct_rebuild(v, it) for v in a]
        return type(a)(*parts) if hasattr(a, "_fields") else type(a)(parts)
    return next(it)


def fd_struct(fn, args, k, eps=1e-4):
    """4-point central differences of fn wrt argument k (a float, array or structure): one
    array per leaf (none for a string or None in a structure: a constant)."""
    leaves = struct_leaves(args[k])
    out = []
    for li, leaf in enumerate(leaves):
        if leaf is None or isinstance(leaf, str):
            continue
        arr = np.array(leaf, dtype=float)
        g = np.zeros(arr.shape)
        for idx in np.ndindex(arr.shape):
            h = eps * max(1.0, abs(arr[idx]))
            vals = []
            for s in (1, -1, 2, -2):
                a2 = arr.copy()
                a2[idx] += s * h
                new = [np.copy(x) if isinstance(x, np.ndarray) else x for x in leaves]
                new[li] = a2 if isinstance(leaf, np.ndarray) else float(a2)
                args2 = [np.copy(x) if isinstance(x, np.ndarray) else x for x in args]
                args2[k] = struct_rebuild(args[k], iter(new))
                vals.append(fn(*args2))
            g[idx] = (8 * (vals[0] - vals[1]) - (vals[2] - vals[3])) / (12 * h)
        out.append(g)
    return out


def flat_grads(g):
    """A gradient (array, number or structure of them; None for a constant in a structure)
    as one flat float vector."""
    if g is None:
        return np.zeros(0)
    if isinstance(g, dict):
        return np.concatenate([flat_grads(v) for v in g.values()]) if g else np.zeros(0)
    if _is_dataclass_object(g):
        return flat_grads(_fields_of(g))
    if isinstance(g, (tuple, list)):
        return np.concatenate([flat_grads(v) for v in g]) if g else np.zeros(0)
    return np.atleast_1d(np.asarray(g, dtype=float)).ravel()


def _autograd_flat(fn, args, wrt):
    """autograd's gradient where it runs the function (array arguments only), else None."""
    if any(not isinstance(args[k], (float, np.ndarray)) for k in wrt):
        return None
    try:
        return flat_grads(autograd_grad(fn, args, wrt))
    except Exception:  # noqa: BLE001 - autograd cannot express it: no reference
        return None


def rel_err(g, ref):
    """The largest absolute difference relative to the reference's largest entry."""
    return np.max(np.abs(g - ref)) / (1e-8 + np.max(np.abs(ref))) if g.size else 0.0


def triage(cases, names=(), backend="numba", verbose=False):
    """Run each ``(fn, args, wrt)`` of a held-out corpus through the compiled path (or
    ``backend="python"``) and eager mode against central finite differences (and autograd
    where it runs the function); print one line per function: ok, WRONG(relative error),
    refused (the JitadError's first line), CRASH (any other exception), and whether the
    compiled code ran and the arguments stayed unchanged."""
    import traceback

    import jitad

    for fn, args, wrt in cases:
        name = getattr(fn, "__name__", None) or f"partial({fn.func.__name__})"
        if names and name not in names:
            continue
        fd = flat_grads([fd_struct(fn, args, k) for k in wrt])
        fine = None     # differences over a smaller step: a kink within 1e-4 of the point
        ag = _autograd_flat(fn, args, wrt)
        res, grads = {}, {}
        for label in ("compiled", "eager"):
            try:
                snap = snapshot(args)
                if label == "compiled":
                    f2 = fn if backend == "numba" else jitad.differentiable(backend=backend)(fn)
                    vg = jitad.value_and_grad(f2, wrt=wrt)
                else:
                    vg = jitad.value_and_grad(fn, wrt=wrt, mode="eager")
                v, g = vg(*args)
                g = grads[label] = flat_grads(g)
                err = rel_err(g, fd)
                if err >= 1e-6:
                    if fine is None:
                        fine = flat_grads([fd_struct(fn, args, k, eps=1e-6) for k in wrt])
                    err = min(err, rel_err(g, fine))
                res[label] = "ok" if err < 1e-6 else f"WRONG({err:.2g})"
                ref = float(fn(*snapshot(args)))
                if not abs(float(v) - ref) <= 1e-10 * (1 + abs(ref)):
                    res[label] += f" VALUE({float(v)!r} vs {ref!r})"
                try:
                    assert_unchanged(args, snap)
                except AssertionError:
                    res[label] += " MUTATED"
                if label == "compiled" and backend == "numba" \
                        and not vg.specialize(*args).compiled_ran:
                    res[label] += " NOT-COMPILED"
                if ag is not None and _rel_or_none(g, ag) and err >= 1e-6 and rel_err(ag, fd) < 1e-6:
                    res[label] += "[autograd agrees with FD]"
            except jitad.JitadError as e:
                res[label] = "refused: " + str(e).splitlines()[0][:110]
            except Exception as e:  # noqa: BLE001 - triage
                res[label] = f"CRASH {type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}"
                if verbose:
                    traceback.print_exc()
        if len(grads) == 2 and grads["compiled"].shape == grads["eager"].shape \
                and rel_err(grads["compiled"], grads["eager"]) > 1e-9:
            res["eager"] += " (differs from compiled)"
        agn = "-" if ag is None else ("ok" if rel_err(ag, fd) < 1e-6 else "differs")
        print(f"{name:30s} compiled={res['compiled']} | eager={res['eager']} | autograd={agn}",
              flush=True)


def _rel_or_none(g, ag):
    return g.shape == ag.shape and rel_err(g, ag) > 1e-6


def triage_main(cases, argv):
    """``python -m tests.heldoutN_funcs [--backend python] [-v] [names...]``."""
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    backend = "numba"
    if "--backend" in argv:
        i = argv.index("--backend")
        backend = argv[i + 1]
        del argv[i:i + 2]
    triage(cases, set(argv), backend, verbose)
