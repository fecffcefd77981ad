"""The front end (normalize, fence) and the rule table (rules, extend), through the compiled
gradient: user names that generated code also uses, library functions without a rule,
chained comparisons, `jitad.defvjp`, pow at a zero base and ties of max/min. Every gradient
is checked against central finite differences or autograd, and the Numba-compiled gradient
must be what ran."""
import inspect
import math
import re
import types

import numpy as np
import pytest

import jitad
from jitad import extend, primitives
from jitad.errors import JitadError
from jitad.names import GENERATED_GLOBALS, reserved_names
from jitad.normalize import is_library, is_user_helper

from . import frontend_funcs as ff
from .harness import assert_grads_close, autograd_grad, central_fd, error_marker

FILE = inspect.getsourcefile(ff)


def _tuple(g):
    return tuple(g) if isinstance(g, tuple) else (g,)


def compiled_grads(fn, args, wrt):
    """The compiled gradient (asserting Numba ran it) and its value."""
    vg = jitad.value_and_grad(fn, wrt=wrt)
    value, grads = vg(*args)
    spec = vg.specialize(*args)
    assert spec.backend == "numba" and spec.compiled_ran, "the compiled gradient did not run"
    assert float(value) == pytest.approx(float(fn(*args)), rel=1e-12, abs=1e-12)
    return _tuple(grads)


def check_fd(fn, args, wrt, rtol=1e-6, atol=1e-7):
    grads = compiled_grads(fn, args, wrt)
    fd = central_fd(fn, args, wrt, eps=1e-4, order=4)
    assert_grads_close(grads, fd, rtol=rtol, atol=atol, label=f"{fn.__name__} vs finite differences")
    return grads




@pytest.fixture
def rule_table():
    """Undo every rule a test adds (the table is process-wide)."""
    saved, user = primitives.core.snapshot(), dict(extend.USER_FUNCTIONS)
    yield
    primitives.core.restore(saved)
    extend.USER_FUNCTIONS.clear()
    extend.USER_FUNCTIONS.update(user)


V = np.array([0.5, -1.0, 2.0])

# ------------------------------------------------------------------ 1. names


@pytest.mark.parametrize("fn", [ff.shadow_modules, ff.shadow_builtins, ff.generated_names,
                                ff.generated_names_2], ids=lambda f: f.__name__)
def test_user_names_that_generated_code_uses(fn):
    check_fd(fn, (V.copy(), 0.7), (0, 1))


def test_locals_named_like_modules_are_renamed_consistently():
    src = jitad.source(ff.shadow_modules, "adjoint", args=(V.copy(), 0.7))
    assert re.search(r"\brt\.\w+\(", src), src      # the runtime module is still reachable
    assert re.search(r"\brt_1 = ", src) and re.search(r"\bnp_1 = ", src)
    assert "np.zeros_like(" in src or "np.empty(" in src
    f = jitad.api.frontend(ff.shadow_modules)
    assert f.renamed == {"math_1": "math", "np_1": "np", "rt_1": "rt"}


def test_reserved_names_cover_what_generated_code_reads():
    names = reserved_names()
    assert GENERATED_GLOBALS <= names
    assert {"np", "math", "rt", "bool", "range", "int", "float", "len", "min", "max", "abs"} <= names
    assert "prim_fe_softplus" in names                  # user primitives' names
    # every global a rule template reads is reserved
    for rule in primitives.PRIMITIVES.values():
        for tree in [t for t in [rule.forward, *rule.adjoints.values()] if t is not None]:
            for n in (x.id for x in __import__("ast").walk(tree) if type(x).__name__ == "Name"):
                assert n in names or n in rule.params or n in rule.statics or n in ("g", "y"), (rule.name, n)


def test_helper_and_parameter_names_like_generated_functions():
    check_fd(ff.vjp_names, (0.7, 1.3, -0.4), (0, 1, 2))


def test_local_named_like_a_user_primitive():
    check_fd(ff.primitive_name, (0.3,), (0,))


def test_train_step_with_runtime_and_update_names():
    rng = np.random.default_rng(0)
    U, W = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    lr = 0.1
    step = jitad.train_step(ff.train_loss, wrt=(0, 1), optimizer=jitad.optim.SGD(lr=lr))
    fd = central_fd(ff.train_loss, (U.copy(), W.copy(), 1, 2), (0, 1), eps=1e-4, order=4)
    U0, W0 = U.copy(), W.copy()
    loss = step(U, W, 1, 2, step.init(U, W))
    assert loss == pytest.approx(ff.train_loss(U0, W0, 1, 2), rel=1e-12)
    assert step.last.compiled_ran or step.last.backend == "numba"
    np.testing.assert_allclose(U, U0 - lr * fd[0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(W, W0 - lr * fd[1], rtol=1e-7, atol=1e-9)


# ------------------------------------------------------------------ 2. library functions


LIBRARY_CASES = [
    (ff.uses_nanmedian, (0.5,)),
    (ff.uses_nanmedian_alias, (0.5,)),
    (ff.uses_unravel_index, (0.5,)),
    (ff.uses_row_stack, (0.5, V.copy())),
    (ff.uses_matrix_cond, (0.5, np.eye(2) + 1.0)),
    (ff.uses_unwrap, (V.copy(),)),
    (ff.uses_ellipk, (0.5,)),
    (ff.uses_stdlib, (V.copy(),)),
    (ff.uses_ldexp, (0.5,)),
]


@pytest.mark.parametrize("fn,args", LIBRARY_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_library_function_without_rule_is_refused_at_the_users_line(fn, args):
    line, expected = error_marker(fn)
    with pytest.raises(JitadError) as info:
        jitad.grad(fn)(*args)
    err, text = info.value, str(info.value)
    assert expected in text and "see jitad.defvjp to add one" in text, text
    assert err.loc is not None and err.loc.filename == FILE and err.loc.line == line, text
    assert "site-packages" not in text and "numpy/" not in text, text


def test_library_function_without_rule_on_data_a_helper_reads_is_not_refused():
    """A helper's ruleless call on data no caller differentiates needs no derivative: each
    callee is analysed for the parameters its callers need (`callee_wrt`), not for all of its
    float parameters (which refused this). Differentiated, it is refused in the helper, in
    both modes."""
    d = np.array([1.0, 5.0, 2.0])
    for mode in ("compiled", "eager"):
        g = jitad.grad(ff.median_of_data_in_helpers, mode=mode)(0.5, d)
        assert g == pytest.approx(2.0 + 1.0), mode
    line, expected = error_marker(ff._median_of)
    for mode in ("compiled", "eager"):
        with pytest.raises(JitadError) as info:
            jitad.grad(ff.median_of_data_in_helpers, wrt=1, mode=mode)(0.5, d)
        assert expected in str(info.value) and info.value.loc.line == line, (mode, str(info.value))


def test_library_or_user_code():
    for f in (np.eye, np.triu_indices, np.row_stack, np.linalg.inv, np.cumsum, math.erf,
              __import__("statistics").fmean, jitad.grad):
        assert not is_user_helper(f), f
    for f in (np.eye, np.row_stack, __import__("statistics").fmean):
        assert is_library(f)
    assert is_user_helper(ff.helper_sin) and not is_library(ff.helper_sin)
    assert is_user_helper(jitad.differentiable(ff.helper_sin))
    assert not is_user_helper(ff.fe_softplus)           # a primitive: it has a rule
    # a package installed into site-packages is a library, wherever the interpreter is
    code = compile("def f(x):\n    return x\n", "/opt/env/lib/python3.11/site-packages/pkg/m.py", "exec")
    ns = {"__name__": "pkg.m"}
    exec(code, ns)
    assert is_library(ns["f"]) and not is_user_helper(ns["f"])
    # ... and a package of the user's own (an editable install lives in the user's tree) is not
    code = compile("def f(x):\n    return x\n", "/home/me/project/pkg/m.py", "exec")
    ns = {"__name__": "pkg.m"}
    exec(code, ns)
    assert not is_library(ns["f"]) and is_user_helper(ns["f"])
    assert isinstance(ns["f"], types.FunctionType)


# ------------------------------------------------------------------ 3. chained comparisons


@pytest.mark.parametrize("fn,args,wrt", [
    (ff.chain_if, (0.5,), (0,)),
    (ff.chain_if, (1.5,), (0,)),
    (ff.chain_if_negative_bound, (-0.2,), (0,)),
    (ff.chain_if_index, (0.5, 4), (0,)),
    (ff.chain_while, (0.5,), (0,)),
    (ff.chain_while_index, (0.5, 4), (0,)),
    (ff.chain_value, (0.5,), (0,)),
    (ff.chain_value, (-0.5,), (0,)),
    (ff.chain_constant, (0.5,), (0,)),
    (ff.chain_constant_while, (0.7,), (0,)),
    (ff.chain_mixed, (0.7, np.array([0.5, -1.0, 1.7])), (0, 1)),
    (ff.chain_calls, (0.3, np.array([0.5, 1.0, 2.0])), (0, 1)),
    (ff.chain_calls, (1.3, np.array([0.5, 1.0, 2.0])), (0, 1)),
    (ff.chain_guarded_index, (0.3, np.array([0.5, 1.0, 2.0]), 7), (0,)),
    (ff.chain_guarded_index, (0.3, np.ones(5), 1), (0, 1)),
], ids=lambda c: getattr(c, "__name__", None) or str(c))
def test_chained_comparisons(fn, args, wrt):
    check_fd(fn, args, wrt)


def test_chained_comparison_evaluates_each_operand_once():
    src = jitad.source(ff.chain_calls, "monadic")
    assert src.count("helper_sin(x)") == 1 and src.count("sum(") == 1, src


# ------------------------------------------------------------------ 4. defvjp


def test_defvjp_by_dotted_name_takes_effect(rule_table):
    assert primitives.defvjp("math.erf", "math.erf(x)",
                        x="g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)") == "math.erf"
    # math.erf and `from math import erf` (the same object) both use the rule
    grads = check_fd(ff.calls_erf, (0.4,), (0,))
    expected = 3.0 * 2.0 / math.sqrt(math.pi) * math.exp(-0.16) \
        + 0.5 * 2.0 / math.sqrt(math.pi) * math.exp(-0.04)
    assert grads[0] == pytest.approx(expected, rel=1e-12)


def test_defvjp_through_jitad_namespace_scipy_and_numpy(rule_table):
    jitad.defvjp("scipy.special.expit", "1.0 / (1.0 + np.exp(-x))", x="g * y * (1.0 - y)")
    check_fd(ff.calls_expit, (0.3, V.copy()), (0, 1))
    jitad.defvjp("np.cumsum", "np.cumsum(x)", kind="same", x="np.cumsum(g[::-1])[::-1]")
    check_fd(ff.calls_cumsum, (V.copy(), np.array([1.0, -2.0, 0.5])), (0,))


def test_defvjp_with_a_library_callable_object(rule_table):
    name = jitad.defvjp(math.erfc, x="-g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)")
    assert name == "math.erfc" and primitives.get(name).params == ("x",)
    check_fd(ff.calls_erfc, (0.3,), (0,))


def test_defvjp_rule_changes_the_compiled_gradient(rule_table):
    # deliberately wrong (scaled) rules: the gradient must follow them, not the source
    jitad.defvjp(ff.fe_scaled, x="3.0 * g * x")
    (g,) = compiled_grads(ff.calls_scaled, (0.5,), (0,))
    assert g == pytest.approx(1.5)
    jitad.defvjp("tests.frontend_funcs.fe_scaled_by_name", "x * x", x="5.0 * g * x")
    (g,) = compiled_grads(ff.calls_scaled_by_name, (0.5,), (0,))
    assert g == pytest.approx(2.5)


def test_defvjp_on_a_decorated_helper(rule_table):
    (g,) = compiled_grads(ff.calls_decorated, (0.5,), (0,))      # a helper: transformed
    assert g == pytest.approx(1.0)
    jitad.defvjp(ff.fe_decorated, x="4.0 * g * x")
    (g,) = compiled_grads(ff.calls_decorated_after_rule, (0.5,), (0,))
    assert g == pytest.approx(2.0)


def test_defvjp_replaces_a_builtin_rule(rule_table):
    jitad.defvjp("max", "np.max(x)", kind="reduce", x="g * (x == y)")
    assert primitives.get("max").adjoints["x"] is not None
    (g,) = compiled_grads(ff.tie_max_replaced_rule, (np.array([1.0, 3.0, 3.0]),), (0,))
    np.testing.assert_array_equal(g, [0.0, 2.0, 2.0])


@pytest.mark.parametrize("args,kw,expected", [
    (("softplus", "np.log1p(np.exp(x))"), {"x": "g / (1.0 + np.exp(-x))"}, "no call could use"),
    (("math.no_such_function", "x"), {"x": "g"}, "no call could use"),
    (("math.pi", "x"), {"x": "g"}, "not a callable"),
    (("math.erf", "math.erf(x"), {"x": "g"}, "is not a Python expression"),
    (("math.erf", "math.erf(x)"), {"x": "g *"}, "is not a Python expression"),
    (("math.erf", "math.erf(x)"), {"z": "g"}, "'z', which is not a parameter"),
    (("math.erf", "math.erf(x)"), {"x": "g * w"}, "reads 'w'"),
    (("math.erf", "scipy.special.erf(x)"), {"x": "g"}, "reads 'scipy'"),
    (("math.erf", "math.erf(x)", "elementwise"), {"x": "g"}, "unknown kind"),
    (("max", "np.maximum(a, b)"), {"a": "g"}, "takes 1 parameter"),
    (("math.erf",), {"x": "g"}, "needs the forward template"),
], ids=lambda c: str(c)[:40])
def test_defvjp_refuses_what_it_cannot_use(rule_table, args, kw, expected):
    before = (dict(primitives.PRIMITIVES), dict(primitives.CALLABLES), primitives.version())
    with pytest.raises(JitadError, match=re.escape(expected)):
        jitad.defvjp(*args, **kw)
    assert (dict(primitives.PRIMITIVES), dict(primitives.CALLABLES), primitives.version()) == before


def test_primitive_templates_are_checked_when_declared(rule_table):
    with pytest.raises(JitadError, match="is not a Python expression"):
        jitad.defvjp(ff.fe_scaled, x="g * (")
    with pytest.raises(JitadError, match="no parameter"):
        jitad.defvjp(ff.fe_scaled, z="g")
    assert primitives.lookup_callable(ff.fe_scaled) is None and "prim_fe_scaled" not in extend.USER_FUNCTIONS


# ------------------------------------------------------------------ 5a. pow at a zero base


def test_pow_of_zero_base_wrt_exponent():
    assert compiled_grads(ff.pow_zero_base, (2.0,), (0,)) == (0.0,)
    check_fd(ff.pow_zero_base, (2.5,), (0,))


@pytest.mark.parametrize("fn", [ff.pow_zero_base_np, ff.pow_operator], ids=lambda f: f.__name__)
def test_pow_of_zero_base_arrays(fn):
    a = np.array([0.0, 1.5, 2.0, 0.0, 0.7])
    b = np.array([2.0, 0.5, 3.0, 1.0, 0.0])
    grads = check_fd(fn, (a, b), (0, 1))
    assert np.all(np.isfinite(grads[0])) and np.all(np.isfinite(grads[1]))
    np.testing.assert_allclose(grads[0][[0, 3, 4]], [0.0, 1.0, 0.0])
    np.testing.assert_allclose(grads[1][[0, 3]], [0.0, 0.0])


def test_pow_of_zero_base_math():
    assert compiled_grads(ff.pow_zero_base_math, (0.0, 2.0), (0, 1)) == (0.0, 0.0)
    assert compiled_grads(ff.pow_zero_base_math, (0.0, 1.0), (0, 1)) == (1.0, 0.0)
    check_fd(ff.pow_zero_base_math, (1.3, 2.0), (0, 1))


@pytest.mark.parametrize("x", [0.0, -2.0, 1.5])
def test_pow_integer_exponents_at_zero_and_negative_bases(x):
    (g,) = compiled_grads(ff.pow_int_exponents, (x,), (0,))
    assert g == pytest.approx(1 + 2 * x + 3 * x * x + 0 + 2 * x + 1, abs=1e-12)
    for n in (0, 1, 2, 3):
        (g,) = compiled_grads(ff.pow_variable_exponent, (x, n), (0,))
        assert g == pytest.approx(n * x ** (n - 1) if n else 0.0, abs=1e-12)


def test_pow_source_keeps_constant_exponents_simple():
    src = jitad.source(ff.pow_int_exponents, "adjoint", args=(0.5,))
    assert "==" not in src and "np.log" not in src, src


# ------------------------------------------------------------------ 5b. ties of max / min


def _vs_autograd(fn, args, wrt):
    grads = compiled_grads(fn, args, wrt)
    assert_grads_close(grads, autograd_grad(fn, args, wrt), rtol=1e-12, atol=1e-12,
                       label=f"{fn.__name__} vs autograd")
    return grads


def test_ties_of_full_reductions():
    x = np.array([1.0, 3.0, 3.0, -1.0, 3.0])
    (g,) = _vs_autograd(ff.tie_max, (x,), (0,))
    np.testing.assert_allclose(g, [0, 2 / 3, 2 / 3, 0, 2 / 3])
    x = np.array([[1.0, -2.0], [-2.0, 5.0]])
    (g,) = _vs_autograd(ff.tie_min_method, (x,), (0,))
    np.testing.assert_allclose(g, [[0, 1.0], [1.0, 0]])


@pytest.mark.parametrize("fn", [ff.tie_max_axis0, ff.tie_max_axis1, ff.tie_min_axis0,
                                ff.tie_min_axis1], ids=lambda f: f.__name__)
def test_ties_of_axis_reductions(fn):
    X = np.array([[1.0, 2.0, 2.0], [1.0, 0.0, 2.0], [1.0, 2.0, -1.0]])
    c = np.array([1.0, -2.0, 0.5])
    grads = _vs_autograd(fn, (X, c), (0,))
    # each reduced slice passes on exactly its cotangent
    axis = 0 if fn.__name__.endswith("0") else 1
    np.testing.assert_allclose(grads[0].sum(axis=axis), c)
    # no ties: finite differences agree too
    check_fd(fn, (np.array([[1.0, 2.5, 2.0], [1.2, 0.0, 2.1], [0.3, 2.2, -1.0]]), c), (0, 1))


@pytest.mark.parametrize("fn", [ff.tie_maximum, ff.tie_minimum], ids=lambda f: f.__name__)
def test_ties_of_elementwise_maximum_minimum(fn):
    a = np.array([1.0, 2.0, 3.0, -1.0])
    b = np.array([1.0, 0.5, 3.0, 0.0])
    c = np.array([1.0, 2.0, -4.0, 3.0])
    ga, gb = _vs_autograd(fn, (a, b, c), (0, 1))
    np.testing.assert_allclose(ga + gb, c)                # the cotangent is split, not doubled
    np.testing.assert_allclose(ga[[0, 2]], [0.5, -2.0])


def test_ties_of_broadcast_maximum_minimum():
    a = np.array([1.0, 2.0, 2.0, -1.0])
    _vs_autograd(ff.tie_maximum_broadcast, (a, 2.0), (0, 1))
    ga, gs = _vs_autograd(ff.tie_minimum_broadcast, (a, 2.0), (0, 1))
    assert gs == pytest.approx(1.0) and np.sum(ga) == pytest.approx(3.0)
    (g,) = _vs_autograd(ff.tie_relu, (np.array([-1.0, 0.0, 2.0]),), (0,))
    np.testing.assert_allclose(g, [0.0, 1.5, 3.0])


@pytest.mark.parametrize("fn", [ff.tie_builtin_max, ff.tie_builtin_min], ids=lambda f: f.__name__)
def test_ties_of_builtin_max_min(fn):
    assert compiled_grads(fn, (1.5, 1.5), (0, 1)) == (1.5, 1.5)
    check_fd(fn, (1.5, 0.5), (0, 1))
    check_fd(fn, (0.5, 1.5), (0, 1))


def test_equal_int_and_float_constants_are_not_one_computation():
    src = jitad.source(ff.int_and_float_constants, "monadic")
    assert "add(n, 1)" in src and "add(n, 1.0)" in src, src
    assert "pow(x, 2)" in src and "pow(x, 2.0)" in src, src
    check_fd(ff.int_and_float_constants, (0.7, 3), (0,))


# ------------------------------------------------------------------ names in fit and codegen
@pytest.mark.parametrize("accumulate", [1, 2])
def test_fit_with_parameters_named_like_the_epoch_loops_locals(accumulate):
    rng = np.random.default_rng(3)
    order, k = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    users, items = np.array([0, 1, 2, 3]), np.array([4, 3, 2, 1])
    step = jitad.train_step(ff.fit_loss, wrt=("order", "k"), optimizer=jitad.optim.SGD(lr=0.1))
    ref = [order.copy(), k.copy()]
    jitad.fit(step, (order, k), data=(users, items), epochs=1, shuffle=False, progress=False,
              accumulate=accumulate)
    for start in range(0, 4, accumulate):
        total = [np.zeros_like(r) for r in ref]
        for s in range(start, start + accumulate):
            g = central_fd(ff.fit_loss, (*ref, users[s], items[s]), (0, 1), eps=1e-5, order=4)
            total = [t + gi for t, gi in zip(total, g)]
        ref = [r - 0.1 * t for r, t in zip(ref, total)]
    np.testing.assert_allclose(order, ref[0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(k, ref[1], rtol=1e-7, atol=1e-9)


def test_a_helper_named_like_a_builtin():
    v = np.array([-1.0, 2.0])
    from . import shadow_funcs
    (gx, gv) = compiled_grads(shadow_funcs.calls_user_max, (1.5, v), (0, 1))
    assert gx == pytest.approx(3.0)
    np.testing.assert_allclose(gv, np.sign(v))


def test_a_rule_defined_after_first_use_takes_effect(rule_table):
    (g,) = compiled_grads(ff.fe_later, (0.5,), (0,))
    assert g == pytest.approx(1.0)                  # transformed as a helper: 2x
    jitad.defvjp(ff.fe_scaled, x="6.0 * g * x")     # now a primitive with a scaled rule
    assert jitad.grad(ff.fe_later)(0.5) == pytest.approx(3.0)
