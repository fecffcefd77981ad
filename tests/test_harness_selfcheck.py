"""Self-check of the gradient corpus -- no jitad involved.

If these tests pass, a jitad gradient test that fails on a corpus case points
at jitad, not at the corpus:

* the corpus is large enough and covers every category;
* every corpus function stays inside the language subset (static lint);
* every case runs, returns a finite float, is deterministic, does not mutate
  its arguments, and keeps every local variable of one kind;
* central finite differences agree with autograd (``autograd=True`` cases);
* every case is smooth at its test point: a wide (h=1e-3) directional
  difference agrees with the narrow FD gradient, so no branch boundary,
  loop-count change or max/min tie sits near the test input.
"""

from __future__ import annotations

import ast
import inspect
import math
import sys
from collections import Counter, defaultdict

import numpy as np
import pytest

try:
    from . import corpus_funcs as cf
    from .corpus import CASES, CASES_BY_NAME, CATEGORIES, entry_functions
    from .harness import (assert_grads_close, assert_unchanged, autograd_grad,
                          autograd_value, central_fd, snapshot)
except ImportError:  # tests/ is on sys.path (rootdir-style pytest import)
    import corpus_funcs as cf
    from corpus import CASES, CASES_BY_NAME, CATEGORIES, entry_functions
    from harness import (assert_grads_close, assert_unchanged, autograd_grad,
                         autograd_value, central_fd, snapshot)


SELF_RTOL = 1e-5
SELF_ATOL = 1e-7


def _ids(cases):
    return [c.name for c in cases]


# ---------------------------------------------------------------------------
# size and coverage
# ---------------------------------------------------------------------------

def test_corpus_size_and_categories():
    assert len(CASES) >= 90
    entries = entry_functions()
    assert len(entries) >= 90, len(entries)
    counts = Counter(c.category for c in CASES)
    fn_counts = defaultdict(set)
    for c in CASES:
        fn_counts[c.category].add(c.fn.__name__)
    for cat in CATEGORIES:
        assert counts[cat] > 0, f"category {cat} missing"
        minimum = 2 if cat == "float32" else 5
        assert len(fn_counts[cat]) >= minimum, (cat, sorted(fn_counts[cat]))
    # every entry function has at least one case, every case fn is an entry
    used = {c.fn.__name__ for c in CASES}
    assert used == set(entries), (set(entries) - used, used - set(entries))
    assert set(CASES_BY_NAME) == {c.name for c in CASES}
    # at least one non-autograd (in-place) case and mostly autograd cases
    assert any(not c.autograd for c in CASES)
    assert sum(c.autograd for c in CASES) >= 80


def test_required_name_collisions_present():
    # a function with a parameter named `d` and locals g, y, tape, top
    found = False
    for f in entry_functions().values():
        code = f.__code__
        params = code.co_varnames[:code.co_argcount]
        if "d" in params and {"g", "y", "tape", "top"} <= set(code.co_varnames):
            found = True
    assert found


# ---------------------------------------------------------------------------
# static lint: stay inside the language subset
# ---------------------------------------------------------------------------

NP_ALLOWED = {
    "sin", "cos", "tan", "exp", "log", "log1p", "sqrt", "tanh", "arctan2", "hypot", "abs",
    "maximum", "minimum", "where", "sign", "clip", "sum", "mean", "max", "min", "dot",
    "outer", "transpose", "concatenate", "zeros", "ones", "zeros_like", "empty",
}
NP_AXIS_OK = {"sum", "mean", "max", "min"}
MATH_ALLOWED = {
    "sin", "cos", "tan", "exp", "log", "log1p", "sqrt", "tanh", "atan2", "hypot", "fabs",
    "pow", "pi", "e",
}
METHODS_ALLOWED = {"reshape", "copy"}
ATTRS_ALLOWED = {"shape", "T"}
BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.MatMult)
CMPOPS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def _module_tree():
    return ast.parse(inspect.getsource(cf))


def _local_names(fn: ast.FunctionDef):
    names = {a.arg for a in fn.args.args}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _lint_function(fn: ast.FunctionDef, module_funcs):
    problems = []
    params = {a.arg for a in fn.args.args}
    locals_ = _local_names(fn)
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        problems.append("only plain positional parameters allowed")
    if fn.decorator_list:
        problems.append("no decorators")

    def bad(node, what):
        problems.append(f"{fn.name}:{node.lineno}: {what}")

    def check_expr(node):
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, BINOPS):
                bad(node, f"operator {type(node.op).__name__}")
            check_expr(node.left)
            check_expr(node.right)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.Not)):
                bad(node, f"unary {type(node.op).__name__}")
            check_expr(node.operand)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                check_expr(v)
        elif isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                bad(node, "chained comparison")
            for op in node.ops:
                if not isinstance(op, CMPOPS):
                    bad(node, f"comparison {type(op).__name__}")
            check_expr(node.left)
            for c in node.comparators:
                check_expr(c)
        elif isinstance(node, ast.Constant):
            if type(node.value) not in (int, float, bool):
                bad(node, f"constant {node.value!r}")
        elif isinstance(node, ast.Name):
            if node.id not in locals_ and node.id not in module_funcs:
                bad(node, f"free name {node.id!r}")
        elif isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Name) and base.id == "math":
                if node.attr not in MATH_ALLOWED:
                    bad(node, f"math.{node.attr}")
            elif isinstance(base, ast.Name) and base.id == "np":
                bad(node, f"np.{node.attr} used as a value")
            else:
                if node.attr not in ATTRS_ALLOWED:
                    bad(node, f"attribute .{node.attr}")
                check_expr(base)
        elif isinstance(node, ast.Call):
            check_call(node)
        elif isinstance(node, ast.Subscript):
            check_expr(node.value)
            check_index(node.slice)
        elif isinstance(node, ast.Tuple):
            for e in node.elts:
                check_expr(e)
        else:
            bad(node, f"expression {type(node).__name__}")

    def check_index(node):
        if isinstance(node, ast.Tuple):
            for e in node.elts:
                check_index(e)
        elif isinstance(node, ast.Slice):
            for part in (node.lower, node.upper, node.step):
                if part is not None:
                    check_expr(part)
        else:
            check_expr(node)

    def check_call(node):
        func = node.func
        for kw in node.keywords:
            if not (kw.arg == "axis" and isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name) and func.value.id == "np"
                    and func.attr in NP_AXIS_OK and isinstance(kw.value, ast.Constant)):
                bad(node, f"keyword {kw.arg}=")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                bad(node, "starred argument")
            else:
                check_expr(arg)
        if isinstance(func, ast.Name):
            if func.id in module_funcs:
                return
            if func.id == "range":
                if not 1 <= len(node.args) <= 3:
                    bad(node, "range arity")
                return
            bad(node, f"call of {func.id}")
        elif isinstance(func, ast.Attribute):
            base = func.value
            if isinstance(base, ast.Name) and base.id == "np":
                if func.attr not in NP_ALLOWED:
                    bad(node, f"np.{func.attr}")
                if func.attr == "concatenate" and not isinstance(node.args[0], ast.Tuple):
                    bad(node, "np.concatenate needs a tuple")
            elif isinstance(base, ast.Name) and base.id == "math":
                if func.attr not in MATH_ALLOWED:
                    bad(node, f"math.{func.attr}")
            else:
                if func.attr not in METHODS_ALLOWED:
                    bad(node, f"method .{func.attr}()")
                check_expr(base)
        else:
            bad(node, "call of a non-name")

    def check_target(t, aug=False):
        if isinstance(t, ast.Name):
            return
        if isinstance(t, ast.Tuple) and not aug:
            for e in t.elts:
                if not isinstance(e, ast.Name):
                    bad(t, "nested/complex unpacking target")
            return
        if isinstance(t, ast.Subscript):
            if not isinstance(t.value, ast.Name):
                bad(t, "subscript write on an expression")
            elif t.value.id in params:
                bad(t, f"write into argument {t.value.id!r}")
            check_index(t.slice)
            return
        bad(t, f"assignment target {type(t).__name__}")

    def check_stmt(s):
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                bad(s, "chained assignment")
            check_target(s.targets[0])
            if isinstance(s.targets[0], ast.Tuple) and isinstance(s.value, ast.Tuple):
                if len(s.targets[0].elts) != len(s.value.elts):
                    bad(s, "unpacking length")
            check_expr(s.value)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.op, BINOPS) or isinstance(s.op, ast.MatMult):
                bad(s, f"augmented {type(s.op).__name__}")
            check_target(s.target, aug=True)
            check_expr(s.value)
        elif isinstance(s, ast.Return):
            if s.value is None:
                bad(s, "bare return")
            else:
                check_expr(s.value)
        elif isinstance(s, ast.If):
            check_expr(s.test)
            for b in s.body + s.orelse:
                check_stmt(b)
        elif isinstance(s, ast.While):
            if s.orelse:
                bad(s, "while/else")
            check_expr(s.test)
            for b in s.body:
                check_stmt(b)
        elif isinstance(s, ast.For):
            if s.orelse:
                bad(s, "for/else")
            if not isinstance(s.target, ast.Name):
                bad(s, "for target must be a name")
            it = s.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
                check_call(it)
            elif isinstance(it, ast.Name):
                pass  # iteration over the rows of an array
            else:
                bad(s, "for over something other than range(...) or an array name")
            for b in s.body:
                check_stmt(b)
        elif isinstance(s, (ast.Break, ast.Continue, ast.Pass)):
            pass
        else:
            bad(s, f"statement {type(s).__name__}")

    for s in fn.body:
        check_stmt(s)
    # the function must end in a return (a value on every path)
    if not isinstance(fn.body[-1], ast.Return):
        last = fn.body[-1]
        if not (isinstance(last, ast.If) and last.orelse):
            problems.append(f"{fn.name}: does not end with a return")
    return problems


def test_corpus_source_is_in_subset():
    tree = _module_tree()
    module_funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    problems = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = {(a.name, a.asname) for a in node.names}
            if not names <= {("math", None), ("numpy", "np")}:
                problems.append(f"import {names}")
        elif isinstance(node, ast.FunctionDef):
            problems += _lint_function(node, module_funcs | {"np", "math"})
        else:
            problems.append(f"module-level {type(node).__name__} at line {node.lineno}")
    assert not problems, "\n".join(problems)


def test_every_function_returns_on_every_path_or_entry_returns_scalar():
    # every entry function in CASES returns a single float (checked per case
    # below); helpers are all called by some case
    tree = _module_tree()
    helpers = {n.name for n in tree.body
               if isinstance(n, ast.FunctionDef) and n.name.startswith("helper_")}
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
    assert helpers <= called, helpers - called


# ---------------------------------------------------------------------------
# per-case runtime checks
# ---------------------------------------------------------------------------

_CF_FILE = cf.__file__


def _kind(v):
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return "num"
    if isinstance(v, np.ndarray):
        return f"array{v.ndim}:{v.dtype}"
    if isinstance(v, tuple):
        return "tuple(" + ",".join(_kind(e) for e in v) + ")"
    return type(v).__name__


def _run_traced(fn, args):
    """Call fn(*args) recording the kind of every local of every corpus frame
    at every line; returns (value, {(func, var): set(kinds)})."""
    kinds = defaultdict(set)

    def local_trace(frame, event, arg):
        if event in ("line", "return"):
            for name, val in frame.f_locals.items():
                kinds[(frame.f_code.co_name, name)].add(_kind(val))
        return local_trace

    def global_trace(frame, event, arg):
        if frame.f_code.co_filename == _CF_FILE:
            return local_trace
        return None

    old = sys.gettrace()
    sys.settrace(global_trace)
    try:
        value = fn(*args)
    finally:
        sys.settrace(old)
    return value, kinds


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_case_runs_clean(case):
    args = case.make_args()
    again = case.make_args()
    # deterministic, fresh arguments
    assert len(args) == len(again)
    for a, b in zip(args, again):
        if isinstance(a, np.ndarray):
            assert a is not b, "make_args must return fresh arrays"
            assert a.dtype == b.dtype and np.array_equal(a, b)
        else:
            assert type(a) is type(b) and a == b
    # argument kinds
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray):
            assert a.dtype in (np.float64, np.float32, np.int64), (k, a.dtype)
            if a.dtype == np.int64:
                assert k not in case.wrt
        else:
            assert type(a) in (float, int, bool), (k, type(a))
            if k in case.wrt:
                assert type(a) is float, (k, type(a))
    for k in case.wrt:
        assert 0 <= k < len(args)
        if isinstance(args[k], np.ndarray):
            assert args[k].dtype.kind == "f"
    assert len(set(case.wrt)) == len(case.wrt)
    assert (case.category == "float32") == any(
        isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)

    snap = snapshot(args)
    value, kinds = _run_traced(case.fn, args)
    assert_unchanged(args, snap, case.name)
    assert isinstance(value, (float, np.floating)) and not isinstance(value, np.ndarray), type(value)
    assert math.isfinite(float(value))
    assert abs(float(value)) < 1e6
    mixed = {k: v for k, v in kinds.items() if len(v) > 1}
    assert not mixed, f"variables changing kind: {mixed}"
    # same value on a second call (no hidden state)
    assert float(case.fn(*case.make_args())) == float(value)


AUTOGRAD_CASES = [c for c in CASES if c.autograd]


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=_ids(AUTOGRAD_CASES))
def test_fd_matches_autograd(case):
    args = case.make_args()
    snap = snapshot(args)
    # the autograd rebuild computes the same function
    v_plain = float(case.fn(*case.make_args()))
    v_ag = autograd_value(case.fn, case.make_args())
    assert abs(v_plain - v_ag) <= 1e-12 * max(1.0, abs(v_plain)) + (
        1e-5 * abs(v_plain) if case.category == "float32" else 0.0)
    ag = autograd_grad(case.fn, args, case.wrt)
    fd = central_fd(case.fn, args, case.wrt)
    assert_unchanged(args, snap, case.name)
    rtol = max(SELF_RTOL, case.rtol)
    atol = max(SELF_ATOL, case.atol)
    assert_grads_close(ag, fd, rtol=rtol, atol=atol, label=case.name)
    for g, k in zip(ag, case.wrt):
        assert np.all(np.isfinite(g))
        if isinstance(args[k], np.ndarray):
            assert np.shape(g) == args[k].shape


def _directional(fn, args, wrt, direction, h):
    def shifted(sign):
        new = list(args)
        for k, v in zip(wrt, direction):
            a = args[k]
            if isinstance(a, np.ndarray):
                new[k] = (a.astype(np.float64) + sign * h * v)
            else:
                new[k] = float(a) + sign * h * v
        for k, a in enumerate(new):
            if isinstance(a, np.ndarray) and a.dtype == np.float32:
                new[k] = a.astype(np.float64)
        return float(fn(*new))

    return (shifted(1.0) - shifted(-1.0)) / (2.0 * h)


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_smooth_at_test_point(case):
    # FD with eps 1e-6 must agree with FD with eps 1e-5 (numerically tame) and
    # a wide directional difference (h = 1e-3, in scaled coordinates) must
    # agree with the directional derivative: no jump or kink within ~1e-3.
    args = case.make_args()
    fd6 = central_fd(case.fn, args, case.wrt, eps=1e-6)
    fd5 = central_fd(case.fn, args, case.wrt, eps=1e-5)
    assert_grads_close(fd5, fd6, rtol=1e-5, atol=1e-7, label=case.name + " eps")
    # the 4-point stencil used by harness.reference_grads for non-autograd cases
    fd4 = central_fd(case.fn, args, case.wrt, eps=1e-4, order=4)
    assert_grads_close(fd4, fd6, rtol=1e-5, atol=1e-7, label=case.name + " order4")
    value = float(case.fn(*case.make_args()))
    # coordinate-wise wide differences
    wide_fd = central_fd(case.fn, args, case.wrt, eps=1e-3)
    for n, (gw, g6) in enumerate(zip(wide_fd, fd6)):
        gw = np.asarray(gw)
        g6 = np.asarray(g6)
        tol = 2e-4 * np.maximum(max(1.0, abs(value)), np.abs(g6))
        bad = np.abs(gw - g6) > tol
        assert not np.any(bad), (
            f"{case.name}: not smooth at the test point along coordinates of "
            f"argument {case.wrt[n]}: wide FD {gw[bad]} vs {g6[bad]}")
    rng = np.random.default_rng(12345)
    for _ in range(3):
        direction = []
        for k in case.wrt:
            a = args[k]
            if isinstance(a, np.ndarray):
                d = rng.uniform(0.5, 1.0, size=a.shape) * rng.choice((-1.0, 1.0), size=a.shape)
                direction.append(d * np.maximum(1.0, np.abs(a.astype(np.float64))))
            else:
                d = rng.uniform(0.5, 1.0) * rng.choice((-1.0, 1.0))
                direction.append(d * max(1.0, abs(float(a))))
        exact = sum(float(np.sum(np.asarray(g) * d)) for g, d in zip(fd6, direction))
        for h in (1e-3, 3e-4):
            wide = _directional(case.fn, args, case.wrt, direction, h)
            tol = 2e-4 * max(1.0, abs(exact), abs(value))
            assert abs(wide - exact) <= tol, (
                f"{case.name}: not smooth at the test point (h={h}): "
                f"directional FD {wide!r} vs {exact!r}")
