"""Every primitive the compiled mode supports, at random points and at ties, in both modes.

The table below (``TABLE``) is this file's own list of the operations jitad's compiled mode
differentiates, as user code spells them -- written by hand from docs/language.md and the rule
tables, never read from jitad at run time. One row is one spelling:

    P(expr, variants, family, more=..., dom=..., ok=..., ties=..., xfail=..., alone=...)

* ``expr``: the spelling over its operands (``a + b``, ``np.clip(x, lo, hi)``); a few rows are
  statement snippets (``y = np.zeros(3); y[1] = a; y``) whose last line is the result. The
  operands are the free names, in order of appearance.
* ``variants``: the operand shapes to try, one letter per operand (``SHAPES``; ``i``/``j`` int
  index arrays, ``c``/``k`` bool arrays): ``"ss vs mv"`` is scalar/scalar, vector/scalar,
  matrix/vector. ``more``: further variants, run only with ``JITAD_PRIMITIVES_FULL=1``
  (every spelling x every shape class: ~300 cases, ~4 CPU-minutes of Numba compiles); the
  default run keeps every scalar variant (cheap) and the array variants that exercise each
  rule once plus every rank-dependent rule (axis forms, dot/@ by rank, transposes, reshapes,
  concatenation along 1, 2-D indexing) and a few broadcasts.
* ``dom``: the domain each operand is drawn from (``DOMAINS``; default ``any``); ``ok``: a
  predicate the random point must satisfy (away from a kink or a jump), redrawn until it does.
* ``ties``: points where the derivative is not unique, with the documented convention's result
  written out (``Tie``): the cotangent of ``max``/``min`` (reductions, axis forms,
  ``np.maximum``/``np.minimum``, builtin ``max``/``min``) is split evenly among tied entries,
  ``clip`` passes it to ``x`` where ``lo <= x <= hi``, ``a ** b`` has d/db = 0 where
  ``a == 0`` and d/da = 0 where ``b == 0``.
* ``xfail``: a known disagreement (strict: the test fails once it is fixed); ``alone``: the
  spelling gets its own generated function, so that its compile failure stays local.

Each (row, variant) is a term ``np.sum(expr * w)`` (``expr`` alone when it is a scalar) with
its own operands and random weights ``w``. The terms of one family and rank (the largest
operand rank: 0, 1 or 2+) are summed in ONE generated function (written to a temporary .py
file: jitad reads the source), compiled once per session and shared by the tests of all its
terms. The terms share no operand, so each gradient belongs to exactly one term and a failure
names the term (and the generated source shows it as ``# [k] <spelling>[<variant>]``).

Checks, per term at a random point: the compiled value and gradients equal the eager ones
(rtol 1e-9, atol 1e-12), the Numba-compiled gradient ran, the arguments are unchanged after
both calls, the value equals the plain function's, and both modes agree with central finite
differences (4-point stencil, rtol 1e-5, atol 1e-7 scaled by the gradient's size). At a tie
(no finite-difference reference): compiled == eager, and the term's gradients equal the
convention's values written in the table.

Tangents (forward mode, the rules of `jitad/primitives/tangents.py`), per term along a random
direction of its float operands: the eager jvp (the tangent templates evaluated with NumPy)
equals the compiled gradient dotted with the direction (rtol 1e-9) and the finite-difference
directional derivative; at a tie it equals the convention's gradient dotted with the direction
(the tangent rule is the adjoint's transpose there too). With ``JITAD_PRIMITIVES_FULL=1`` the
compiled jvp of each group (one compile, zero tangents for the other terms) is checked too.

Compile time: Numba needs ~0.5 s per array term (~2 s for some 2-D ones); under pytest-xdist
this file runs in one worker while the other cores run the rest of the suite. The file's time
is the groups' compiles (jitad's generation ~10 %, Numba the rest; the checks -- finite
differences, eager tangents -- ~5 %), and grouping does not buy it back (measured in fresh
processes, CPU seconds): the five 1-D groups ufunc, binary, special, reduce, arith merged into
one function compile in 20.1 s against 13.3 s apart; six groups (0-D and 1-D) cut into groups
of 4, 8 or 12 terms compile in 17.5-18.5 s against 18.2-18.5 s as they are.
``JITAD_PRIMITIVES_SEED=<n>`` draws other random points.

A new primitive is one more row.
"""
from __future__ import annotations

import ast
import importlib.util
import math
import os
import sys
import zlib
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.linalg
import scipy.signal
import scipy.special
import scipy.stats

import jitad

from .harness import assert_grads_close, assert_unchanged, central_fd, snapshot

SEED = int(os.environ.get("JITAD_PRIMITIVES_SEED", "0"))
# every variant of the table (several minutes of Numba compiles) instead of the default subset
FULL = os.environ.get("JITAD_PRIMITIVES_FULL", "") not in ("", "0")

# operand shapes, one letter each; "i"/"j" are int index arrays, "c"/"k" bool arrays (never
# differentiated)
SHAPES = {"s": (), "v": (3,), "u": (2,), "m": (2, 3), "n": (3, 2), "t": (2, 3, 2)}
INDEX = {"i": (4, 3), "j": (3, 2)}        # (length, exclusive bound): "i" indexes a (3,) vector
BOOLS = {"c": (3,), "k": (2, 3)}
# random domains: (low, high); "nz" draws |x| in the range with a random sign
DOMAINS = {"any": (-2.0, 2.0), "pos": (0.5, 2.0), "unit": (-1.0, 1.0), "nz": (0.3, 2.0),
           "gt-1": (-0.6, 2.0), "in1": (-0.9, 0.9), "lo": (-1.2, -0.3), "hi": (0.3, 1.2),
           "gt1": (1.2, 3.0), "p01": (0.1, 0.9), "far": (2.5, 40.0)}

CE_RTOL, CE_ATOL = 1e-9, 1e-12        # compiled vs eager
FD_RTOL, FD_ATOL = 1e-5, 1e-7         # a mode vs finite differences (atol times the scale)
TIE_RTOL, TIE_ATOL = 1e-12, 1e-12     # a mode vs the convention's value written in the table
GAP = 0.05                            # random points stay this far from kinks


def _apart(*names):
    """ok-predicate: the values of these operands, all together, are pairwise GAP apart (away
    from every tie of max/min/maximum/clip)."""
    def ok(**ops):
        flat = np.sort(np.concatenate([np.ravel(ops[n]) for n in names]))
        return flat.size < 2 or float(np.min(np.diff(flat))) > GAP
    return ok


def _half_ok(q):
    """Every element of q is GAP away from a half-integer (away from the jumps of rint, round)."""
    return _frac_ok(np.asarray(q) + 0.5)


def _frac_ok(q):
    """Every element of q is GAP away from an integer (away from the jumps of // % floor)."""
    f = np.asarray(q) - np.floor(q)
    return bool(np.all((f > GAP) & (f < 1.0 - GAP)))


@dataclass
class Tie:
    """A point where the derivative is not unique: operand values (their shapes pick the
    variant), the weights of an array result (default ones), and the gradient the documented
    convention gives for each float operand."""
    args: dict
    expect: dict
    w: object = None
    xfail: str | None = None


@dataclass
class P:
    expr: str
    variants: str                 # always run
    family: str
    more: str = ""                # run with JITAD_PRIMITIVES_FULL=1 only (compile time)
    dom: dict = field(default_factory=dict)
    ok: object = None
    ties: list = field(default_factory=list)
    xfail: object = None          # a reason (every variant) or {variant: reason}
    alone: bool = False           # its own generated function (a compile failure stays local)


TABLE = [
    # -- math module and builtins, scalars ------------------------------------------------------
    P("math.sin(x)", "s", "math"),
    P("math.cos(x)", "s", "math"),
    P("math.tan(x)", "s", "math", dom=dict(x="unit")),
    P("math.sinh(x)", "s", "math"),
    P("math.cosh(x)", "s", "math"),
    P("math.tanh(x)", "s", "math"),
    P("math.exp(x)", "s", "math"),
    P("math.expm1(x)", "s", "math"),
    P("math.log(x)", "s", "math", dom=dict(x="pos")),
    P("math.log1p(x)", "s", "math", dom=dict(x="gt-1")),
    P("math.sqrt(x)", "s", "math", dom=dict(x="pos")),
    P("math.atan(x)", "s", "math"),
    P("math.log2(x)", "s", "math", dom=dict(x="pos")),
    P("math.log10(x)", "s", "math", dom=dict(x="pos")),
    P("math.asin(x)", "s", "math", dom=dict(x="in1")),
    P("math.acos(x)", "s", "math", dom=dict(x="in1")),
    P("math.atan2(a, b)", "ss", "math", dom=dict(a="nz", b="nz")),
    P("math.hypot(a, b)", "ss", "math", dom=dict(a="nz", b="nz")),
    P("math.fabs(x)", "s", "math", dom=dict(x="nz")),
    P("math.pow(a, b)", "ss", "math", dom=dict(a="pos"),
      ties=[Tie(dict(a=0.0, b=2.5), dict(a=0.0, b=0.0)),           # d/db = 0 where a == 0
            Tie(dict(a=0.0, b=0.0), dict(a=0.0, b=0.0)),           # d/da = 0 where b == 0
            Tie(dict(a=1.5, b=0.0), dict(a=0.0, b=math.log(1.5)))]),
    P("x * math.floor(x)", "s", "math", ok=lambda x: _frac_ok(x)),
    P("abs(x)", "s", "math", dom=dict(x="nz")),
    P("float(x)", "s", "math"),
    P("float(x * x)", "s", "math"),
    P("max(a, b)", "ss", "math", ok=_apart("a", "b"),
      ties=[Tie(dict(a=1.5, b=1.5), dict(a=0.5, b=0.5))]),
    P("min(a, b)", "ss", "math", ok=_apart("a", "b"),
      ties=[Tie(dict(a=-0.25, b=-0.25), dict(a=0.5, b=0.5))]),
    P("math.sin(a) * math.exp(b) + math.pi - math.e", "ss", "math"),
    P("math.asinh(x)", "s", "math"),
    P("math.acosh(x)", "s", "math", dom=dict(x="gt1")),
    P("math.atanh(x)", "s", "math", dom=dict(x="in1")),
    P("math.erf(x)", "s", "math"),
    P("math.erfc(x)", "s", "math"),
    P("math.lgamma(x)", "s", "math", dom=dict(x="pos")),
    P("math.lgamma(x - 3.0)", "s", "math", dom=dict(x="p01")),       # digamma's reflection
    P("math.gamma(x)", "s", "math", dom=dict(x="pos")),
    P("math.exp2(x)", "s", "math"),
    P("math.degrees(x)", "s", "math"),
    P("math.radians(x)", "s", "math"),
    P("math.log(a, b)", "ss", "math", dom=dict(a="pos", b="gt1")),
    P("math.copysign(a, b)", "ss", "math", dom=dict(a="nz", b="nz"),
      ties=[Tie(dict(a=0.0, b=-1.5), dict(a=-1.0, b=0.0))]),
    P("x * math.ceil(x)", "s", "math", ok=lambda x: _frac_ok(x)),
    P("x * math.trunc(x)", "s", "math", ok=lambda x: _frac_ok(x)),

    # -- arithmetic operators -------------------------------------------------------------------
    P("a + b", "ss vs", "arith", more="sv vv mv ms mm"),
    P("a - b", "ss sv", "arith", more="vs vv sm"),
    P("a * b", "ss vv mv", "arith", more="vs sv vm"),
    P("a / b", "ss vs", "arith", more="sv vv mv", dom=dict(b="nz")),
    P("a ** b", "ss vv", "arith", more="vs sv mv", dom=dict(a="pos"),
      ties=[Tie(dict(a=0.0, b=2.5), dict(a=0.0, b=0.0)),
            Tie(dict(a=0.0, b=0.0), dict(a=0.0, b=0.0)),
            Tie(dict(a=[0.0, 1.5, 0.0], b=[2.0, 3.0, 1.5]), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.0, 2.0 * 3.0 * 1.5 ** 2, 0.0],
                            b=[0.0, 2.0 * 1.5 ** 3 * math.log(1.5), 0.0])),
            Tie(dict(a=[1.0, 2.0, 0.5], b=[2.0, 0.0, 2.0]),
                expect=dict(a=[2.0, 0.0, 1.0], b=[0.0, math.log(2.0), 0.25 * math.log(0.5)])),
            Tie(dict(a=[0.0, 2.0, 0.5], b=[0.0, 0.0, 2.0]),
                expect=dict(a=[0.0, 0.0, 1.0], b=[0.0, math.log(2.0), 0.25 * math.log(0.5)]))]),
    P("a % b", "ss sv", "arith", more="vs vv mv", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("a * (a // b)", "ss", "arith", more="vv", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("-x", "s v", "arith", more="m"),
    P("x ** 2", "s", "arith", more="v"),
    P("x ** 3", "s", "arith", more="v"),
    P("x ** 0.5", "s", "arith", more="v", dom=dict(x="pos")),
    P("x ** -1.5", "s", "arith", more="v", dom=dict(x="pos")),
    P("2.0 ** x", "s", "arith", more="v"),
    P("(a + 1.0) * (b - 2.0) / (3.0 + a * a)", "ss", "arith", more="vv"),

    # -- NumPy elementwise, one operand ---------------------------------------------------------
    P("np.sin(x)", "s v", "ufunc"),
    P("np.cos(x)", "s v", "ufunc"),
    P("np.tan(x)", "s v", "ufunc", dom=dict(x="unit")),
    P("np.sinh(x)", "s v", "ufunc"),
    P("np.cosh(x)", "s v", "ufunc"),
    P("np.tanh(x)", "s v", "ufunc", more="m"),
    P("np.exp(x)", "s v", "ufunc", more="m"),
    P("np.expm1(x)", "s v", "ufunc"),
    P("np.log(x)", "s v", "ufunc", more="m", dom=dict(x="pos")),
    P("np.log1p(x)", "s v", "ufunc", dom=dict(x="gt-1")),
    P("np.sqrt(x)", "s v", "ufunc", more="m", dom=dict(x="pos")),
    P("np.arctan(x)", "s v", "ufunc"),
    P("np.log2(x)", "s v", "ufunc", dom=dict(x="pos")),
    P("np.log10(x)", "s", "ufunc", more="v", dom=dict(x="pos")),
    P("np.arcsin(x)", "s v", "ufunc", dom=dict(x="in1")),
    P("np.arccos(x)", "s", "ufunc", more="v", dom=dict(x="in1")),
    P("np.reciprocal(x)", "s v", "ufunc", dom=dict(x="nz")),
    P("np.negative(x)", "s", "ufunc", more="v"),
    P("np.square(x)", "s v", "ufunc", more="m"),
    P("np.abs(x)", "s v", "ufunc", more="m", dom=dict(x="nz")),
    P("np.absolute(x)", "s v", "ufunc", dom=dict(x="nz")),
    P("np.fabs(x)", "s v", "ufunc", dom=dict(x="nz")),
    P("abs(x)", "v", "ufunc", dom=dict(x="nz")),
    P("x * np.sign(x)", "s", "ufunc", more="v", dom=dict(x="nz")),
    P("x * np.floor(x)", "s", "ufunc", more="v", ok=lambda x: _frac_ok(x)),
    P("np.arcsinh(x)", "s v", "ufunc"),
    P("np.arccosh(x)", "s v", "ufunc", dom=dict(x="gt1")),
    P("np.arctanh(x)", "s v", "ufunc", dom=dict(x="in1")),
    P("np.exp2(x)", "s v", "ufunc"),
    P("np.cbrt(x)", "s v", "ufunc", dom=dict(x="nz")),
    P("np.degrees(x)", "s", "ufunc", more="v"),
    P("np.radians(x)", "s v", "ufunc"),
    P("np.deg2rad(x)", "s", "ufunc", more="v"),
    P("np.rad2deg(x)", "s v", "ufunc"),
    P("np.sinc(x)", "s v", "ufunc", ties=[Tie(dict(x=0.0), dict(x=0.0))]),
    P("np.positive(x)", "s", "ufunc", more="v"),
    P("x * np.ceil(x)", "s v", "ufunc", ok=lambda x: _frac_ok(x)),
    P("x * np.trunc(x)", "s", "ufunc", more="v", ok=lambda x: _frac_ok(x)),
    P("x * np.fix(x)", "s v", "ufunc", ok=lambda x: _frac_ok(x)),
    P("x * np.rint(x)", "s v", "ufunc", ok=lambda x: _half_ok(x)),
    P("x * np.round(x)", "s v", "ufunc", ok=lambda x: _half_ok(x)),
    P("x * np.around(x)", "s", "ufunc", more="v", ok=lambda x: _half_ok(x)),
    P("x * np.heaviside(x, 0.5)", "s v", "ufunc", dom=dict(x="nz")),

    # -- NumPy elementwise, two or three operands -----------------------------------------------
    P("np.add(a, b)", "ss vs", "binary", more="vv mv"),
    P("np.subtract(a, b)", "ss", "binary", more="sv vv"),
    P("np.multiply(a, b)", "ss", "binary", more="vv mv"),
    P("np.divide(a, b)", "ss", "binary", more="vs vv", dom=dict(b="nz")),
    P("np.mod(a, b)", "ss", "binary", more="sv vv", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("np.maximum(a, b)", "ss vs vv", "binary", more="sv mv", ok=_apart("a", "b"),
      ties=[Tie(dict(a=0.7, b=0.7), dict(a=0.5, b=0.5)),
            Tie(dict(a=[1.0, 2.0, 3.0], b=[1.0, 0.0, 3.0]), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.5, 2.0, 1.5], b=[0.5, 0.0, 1.5])),
            Tie(dict(a=[1.0, 2.0, 2.0], b=2.0), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.0, 1.0, 1.5], b=1.0 + 1.0 + 1.5)),
            Tie(dict(a=[[1.0, 2.0, 3.0], [0.0, 2.0, 5.0]], b=[1.0, 2.0, 4.0]),
                expect=dict(a=[[0.5, 0.5, 0.0], [0.0, 0.5, 1.0]], b=[1.5, 1.0, 1.0]))]),
    P("np.minimum(a, b)", "ss sv", "binary", more="vs vv mv", ok=_apart("a", "b"),
      ties=[Tie(dict(a=-1.0, b=-1.0), dict(a=0.5, b=0.5)),
            Tie(dict(a=-1.0, b=[-1.0, 0.0, -2.0]), w=[1.0, 2.0, 3.0],
                expect=dict(a=0.5 + 2.0 + 0.0, b=[0.5, 0.0, 3.0])),
            Tie(dict(a=[1.0, 2.0, 3.0], b=[1.0, 4.0, 3.0]), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.5, 2.0, 1.5], b=[0.5, 0.0, 1.5])),
            Tie(dict(a=[1.0, 2.0, 2.0], b=2.0), w=[1.0, 2.0, 3.0],
                expect=dict(a=[1.0, 1.0, 1.5], b=0.0 + 1.0 + 1.5))]),
    P("np.power(a, b)", "ss vs", "binary", more="sv vv mv", dom=dict(a="pos"),
      ties=[Tie(dict(a=0.0, b=3.0), dict(a=0.0, b=0.0)),
            Tie(dict(a=[0.0, 1.5, 0.0], b=2.0), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.0, 2.0 * 2.0 * 1.5, 0.0], b=2.0 * 1.5 ** 2 * math.log(1.5))),
            Tie(dict(a=[0.0, 1.5, 0.0], b=[2.0, 3.0, 1.5]), w=[1.0, 2.0, 3.0],
                expect=dict(a=[0.0, 2.0 * 3.0 * 1.5 ** 2, 0.0],
                            b=[0.0, 2.0 * 1.5 ** 3 * math.log(1.5), 0.0])),
            Tie(dict(a=[0.0, 2.0, 0.5], b=[0.0, 0.0, 2.0]),
                expect=dict(a=[0.0, 0.0, 1.0], b=[0.0, math.log(2.0), 0.25 * math.log(0.5)]))]),
    P("np.arctan2(a, b)", "ss vs", "binary", more="vv mv", dom=dict(a="nz", b="nz")),
    P("np.true_divide(a, b)", "ss", "binary", more="vv", dom=dict(b="nz")),
    P("np.float_power(a, b)", "ss vs", "binary", more="vv", dom=dict(a="pos"),
      ties=[Tie(dict(a=0.0, b=2.5), dict(a=0.0, b=0.0))]),
    P("np.remainder(a, b)", "ss", "binary", more="vv", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("np.fmod(a, b)", "ss sv", "binary", more="vv", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("math.fmod(a, b)", "ss", "binary", dom=dict(b="nz"),
      ok=lambda a, b: _frac_ok(np.divide(a, b))),
    P("np.logaddexp(a, b)", "ss vv", "binary"),
    P("np.logaddexp2(a, b)", "ss vs", "binary"),
    P("np.copysign(a, b)", "ss vs", "binary", dom=dict(a="nz", b="nz")),
    P("np.hypot(a, b)", "ss sv", "binary", more="vv mv", dom=dict(a="nz", b="nz")),
    P("np.where(c, a, b)", "cvs", "binary", more="cvv csv kmv"),
    P("np.where(a > b, a * b, b - a)", "ss", "binary", more="vv", ok=_apart("a", "b")),
    P("np.clip(x, lo, hi)", "vss", "binary", more="mss", dom=dict(lo="lo", hi="hi"),
      ok=_apart("x", "lo", "hi"),
      ties=[Tie(dict(x=[-1.0, 0.2, 1.0], lo=-1.0, hi=1.0), w=[1.0, 2.0, 3.0],
                expect=dict(x=[1.0, 2.0, 3.0], lo=0.0, hi=0.0)),      # x == lo and x == hi
            Tie(dict(x=[-1.0, -2.0, 2.0], lo=-1.0, hi=1.0), w=[1.0, 2.0, 3.0],
                expect=dict(x=[1.0, 0.0, 0.0], lo=2.0, hi=3.0)),
            Tie(dict(x=[0.5, 0.5, 0.5], lo=0.5, hi=0.5), w=[1.0, 2.0, 3.0],
                expect=dict(x=[1.0, 2.0, 3.0], lo=0.0, hi=0.0))]),   # lo == x == hi
    P("np.clip(x, lo, hi)", "sss", "binary", dom=dict(lo="lo", hi="hi"),
      ok=_apart("x", "lo", "hi")),

    # -- scipy.special ---------------------------------------------------------------------------
    P("scipy.special.erf(x)", "s v", "special"),
    P("scipy.special.erfc(x)", "s v", "special"),
    P("scipy.special.expit(x)", "s v", "special"),
    P("scipy.special.logit(x)", "s v", "special", dom=dict(x="p01")),
    P("scipy.special.gammaln(x)", "s v", "special", dom=dict(x="pos"), more="m"),
    P("scipy.special.gammaln(x - 3.0)", "s", "special", more="v", dom=dict(x="p01")),
    P("scipy.special.multigammaln(x + 2.0, 3)", "s", "special", dom=dict(x="pos")),
    P("scipy.special.xlogy(a, b)", "ss vv", "special", dom=dict(b="pos"),
      ties=[Tie(dict(a=0.0, b=2.0), dict(a=math.log(2.0), b=0.0)),
            Tie(dict(a=[0.0, 1.5, 0.0], b=[0.5, 2.0, 3.0]), w=[1.0, 2.0, 3.0],
                expect=dict(a=[math.log(0.5), 2.0 * math.log(2.0), 3.0 * math.log(3.0)],
                            b=[0.0, 2.0 * 1.5 / 2.0, 0.0]))]),
    P("scipy.special.xlog1py(a, b)", "ss vs", "special", dom=dict(b="gt-1"),
      ties=[Tie(dict(a=0.0, b=0.5), dict(a=math.log1p(0.5), b=0.0))]),
    P("scipy.special.logsumexp(x)", "v m", "special"),
    P("scipy.special.logsumexp(x, axis=1)", "m", "special"),
    P("scipy.special.logsumexp(x, axis=0)", "m", "special"),
    P("scipy.special.logsumexp(x, 0)", "", "special", more="m"),

    # -- reductions -----------------------------------------------------------------------------
    P("np.sum(x)", "v", "reduce", more="m t"),
    P("x.sum()", "v", "reduce", more="m"),
    P("np.sum(x, axis=1)", "m", "reduce"),
    P("np.sum(x, axis=0)", "", "reduce", more="m t"),
    P("np.sum(x, axis=-1)", "", "reduce", more="m"),
    P("x.sum(axis=0)", "", "reduce", more="m"),
    P("np.mean(x)", "v", "reduce", more="m"),
    P("x.mean()", "v", "reduce", more="m"),
    P("np.mean(x, axis=0)", "m", "reduce"),
    P("np.mean(x, axis=1)", "", "reduce", more="m"),
    P("x.mean(axis=1)", "", "reduce", more="m"),
    P("np.max(x)", "v m", "reduce", ok=_apart("x"),
      ties=[Tie(dict(x=[1.0, 3.0, 3.0]), dict(x=[0.0, 0.5, 0.5])),
            Tie(dict(x=[[1.0, 3.0, 0.0], [3.0, 2.0, 3.0]]),
                dict(x=[[0.0, 1 / 3, 0.0], [1 / 3, 0.0, 1 / 3]]))]),
    P("x.max()", "v", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[3.0, 1.0, 3.0]), dict(x=[0.5, 0.0, 0.5]))]),
    P("np.amax(x)", "v", "reduce", ok=_apart("x"),
      ties=[Tie(dict(x=[2.0, 2.0, 2.0]), dict(x=[1 / 3, 1 / 3, 1 / 3]))]),
    P("np.max(x, axis=1)", "m", "reduce", ok=_apart("x"),
      ties=[Tie(dict(x=[[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]), w=[1.0, 2.0],
                expect=dict(x=[[0.0, 0.5, 0.5], [1.0, 1.0, 0.0]])),
            Tie(dict(x=[[4.0, 4.0, 4.0], [0.0, 1.0, 1.0]]), w=[3.0, 1.0],
                expect=dict(x=[[1.0, 1.0, 1.0], [0.0, 0.5, 0.5]]))]),
    P("np.max(x, axis=0)", "", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[[1.0, 3.0, 2.0], [1.0, 2.0, 2.0]]), w=[1.0, 2.0, 3.0],
                expect=dict(x=[[0.5, 2.0, 1.5], [0.5, 0.0, 1.5]]))]),
    P("x.max(axis=1)", "", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[[4.0, 4.0, 4.0], [0.0, 1.0, 1.0]]), w=[3.0, 1.0],
                expect=dict(x=[[1.0, 1.0, 1.0], [0.0, 0.5, 0.5]]))]),
    P("np.min(x)", "v", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[1.0, 3.0, 1.0]), dict(x=[0.5, 0.0, 0.5])),
            Tie(dict(x=[[0.0, 1.0, 0.0], [2.0, 0.0, 5.0]]),
                dict(x=[[1 / 3, 0.0, 1 / 3], [0.0, 1 / 3, 0.0]]))]),
    P("x.min()", "v", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[2.0, 2.0, 5.0]), dict(x=[0.5, 0.5, 0.0]))]),
    P("np.amin(x)", "v", "reduce", ok=_apart("x"),
      ties=[Tie(dict(x=[4.0, 4.0, 4.0]), dict(x=[1 / 3, 1 / 3, 1 / 3]))]),
    P("np.min(x, axis=1)", "", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[[1.0, 3.0, 1.0], [2.0, 2.0, 2.0]]), w=[1.0, 3.0],
                expect=dict(x=[[0.5, 0.0, 0.5], [1.0, 1.0, 1.0]]))]),
    P("np.min(x, axis=0)", "", "reduce", more="m", ok=_apart("x"),
      ties=[Tie(dict(x=[[1.0, 3.0, 2.0], [1.0, 2.0, 2.0]]), w=[1.0, 2.0, 3.0],
                expect=dict(x=[[0.5, 0.0, 1.5], [0.5, 2.0, 1.5]]))]),
    P("x.min(axis=0)", "m", "reduce", ok=_apart("x"),
      ties=[Tie(dict(x=[[0.0, 5.0, 5.0], [0.0, 6.0, 5.0]]),
                expect=dict(x=[[0.5, 1.0, 0.5], [0.5, 0.0, 0.5]])),
            Tie(dict(x=[[1.0, 3.0, 2.0], [1.0, 2.0, 2.0]]), w=[1.0, 2.0, 3.0],
                expect=dict(x=[[0.5, 0.0, 1.5], [0.5, 2.0, 1.5]]))]),
    P("np.linalg.norm(x)", "v", "reduce", more="m"),
    # a vector's ord=: p-norms (sign(0) = 0) and +-inf (ties of |x_i| split evenly)
    P("np.linalg.norm(x, 1) + np.linalg.norm(x, ord=3) + np.linalg.norm(x, 0.5)", "v", "reduce",
      ok=lambda x: np.min(np.abs(x)) > GAP),
    P("np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf)", "v", "reduce",
      ok=lambda x: _apart("x")(x=np.abs(x)) and np.min(np.abs(x)) > GAP,
      ties=[Tie(dict(x=[2.0, -2.0, 1.0]), expect=dict(x=[0.5, -0.5, 1.0])),
            Tie(dict(x=[-1.0, 3.0, 1.0]), expect=dict(x=[-0.5, 1.0, 0.5]))]),
    P("np.linalg.norm(x, ord=1, axis=1) + np.linalg.norm(x, 3, axis=-1)", "m", "reduce",
      ok=lambda x: np.min(np.abs(x)) > GAP),
    P("np.linalg.norm(x, np.inf, axis=0, keepdims=True) * np.linalg.norm(x, -np.inf, axis=0, "
      "keepdims=True)", "m", "reduce",
      ok=lambda x: all(_apart("x")(x=np.abs(c)) for c in x.T) and np.min(np.abs(x)) > GAP),
    # a matrix's ord=1 / -1 (column sums of |x|) and inf / -inf (row sums; ties split evenly)
    P("np.linalg.norm(x, 1) + np.linalg.norm(x, -1) * 2.0 + np.linalg.norm(x, np.inf) ** 2 "
      "+ np.linalg.norm(x, -np.inf) * 3.0", "m", "reduce",
      ok=lambda x: _apart("x")(x=np.sum(np.abs(x), axis=0)) and np.min(np.abs(x)) > GAP
      and _apart("x")(x=np.sum(np.abs(x), axis=1))),
    P("np.linalg.norm(x, 1)", "", "reduce", more="m", ok=lambda x: np.min(np.abs(x)) > GAP,
      ties=[Tie(dict(x=[[1.0, -2.0, 0.5], [2.0, 1.0, 0.5]]),
                expect=dict(x=[[0.5, -0.5, 0.0], [0.5, 0.5, 0.0]]))]),
    P("x[np.argmax(x)]", "v", "reduce", ok=_apart("x")),
    P("x[np.argmin(x)] * 2.0", "", "reduce", more="v", ok=_apart("x")),

    # -- linear algebra -------------------------------------------------------------------------
    P("np.dot(a, b)", "vv mv", "linalg", more="um mn"),
    P("a @ b", "um mn", "linalg", more="vv mv"),
    P("a.dot(b)", "", "linalg", more="vv mn"),
    P("a @ b", "tu vt mt", "linalg"),                 # rank-3 stacks with vectors and matrices
    P("np.dot(a, b)", "", "linalg", more="tu vt tm"),
    P("np.outer(a, b)", "uv", "linalg", more="vv"),

    # -- shapes, copies, creation ---------------------------------------------------------------
    P("x.T", "m", "shape"),
    P("np.transpose(x)", "", "shape", more="m"),
    P("x.reshape((3, 2))", "m", "shape"),
    P("x.reshape(6)", "", "shape", more="m"),
    P("x.reshape((3, 1))", "v", "shape"),
    P("np.reshape(x, (3, 2))", "", "shape", more="m"),
    P("x.copy()", "v", "shape", more="m"),
    P("np.copy(x)", "", "shape", more="v"),
    P("np.concatenate((a, b))", "", "shape", more="vv"),
    P("np.concatenate((a, b, a), axis=0)", "vu", "shape"),
    P("np.concatenate((a, b), axis=0)", "", "shape", more="mm"),
    P("np.concatenate((a, b), axis=1)", "mm", "shape"),
    P("x * len(x) + x.size + x.ndim", "", "shape", more="v"),
    P("x * x.shape[1] - x.size", "", "shape", more="m"),
    P("x * np.ones_like(x) + np.zeros(3) + len(x)", "v", "shape"),

    # -- indexing and writes --------------------------------------------------------------------
    P("x[1]", "", "index", more="v"),
    P("x[-1]", "v", "index"),
    P("x[1:3]", "v", "index"),
    P("x[::2]", "", "index", more="v"),
    P("x[idx]", "vi", "index", more="mj"),
    P("x[1, 2]", "m", "index"),
    P("x[1]", "", "index", more="m"),
    P("x[:, 1]", "m", "index"),
    P("x[0:2, 1:]", "", "index", more="m"),
    P("y = np.zeros(3)\ny[1] = a\ny[2] += a * b\ny", "ss", "index"),
    P("y = x.copy()\ny[0] = a\ny[1:3] += x[0:2]\ny", "vs", "index"),
    P("y = np.zeros((2, 3))\ny[1] = x\ny[0, 1:] = x[:2] * x[2]\ny", "", "index", more="v"),
    # ------------------------------------------- axes: keepdims, axis tuples, new axes, permutations
    P("np.sum(x, axis=1, keepdims=True)", "m", "axes"),
    P("x.mean(axis=-1, keepdims=True)", "", "axes", more="t"),
    P("np.max(x, axis=0, keepdims=True)", "m", "axis_extrema", ok=_apart("x")),
    P("np.sum(x, keepdims=True)", "m", "axes"),
    P("np.sum(x, axis=(0, 2))", "", "axes", more="t"),
    P("np.mean(x, axis=(-1, -2), keepdims=True)", "", "axes", more="t"),
    P("np.max(x, axis=1)", "", "axis_extrema", more="t", ok=_apart("x")),
    P("np.min(x, axis=-1)", "", "axis_extrema", more="t", ok=_apart("x")),
    P("x[:, None] * x[None, :]", "v", "newaxis"),
    P("x[None, :, :] - x[:, None, :]", "", "newaxis", more="m"),
    P("x[..., None] * 2.0 + x[:, :, np.newaxis]", "m", "newaxis"),
    P("np.expand_dims(x, 0) + np.expand_dims(x, -1)", "v", "newaxis"),
    P("np.squeeze(x[:, None], axis=1)", "v", "newaxis"),
    P("np.transpose(x, (1, 0, 2))", "", "permute", more="t"),
    P("x.transpose(1, 0) + np.swapaxes(x, 0, 1)", "m", "permute"),
    P("np.ravel(x) + x.flatten()", "m", "permute"),
    P("np.flip(x) * x.shape[-1]", "v", "permute"),
    # ------------------------------------------- scans and products
    P("np.cumsum(x)", "v m", "scan"),
    P("np.cumsum(x, axis=1) + x.cumsum(axis=0)", "m", "scan"),
    P("np.cumprod(x)", "v", "scan", dom=dict(x="nz")),
    P("np.cumprod(x, axis=1) + x.cumprod(axis=0)", "m", "scan", more="t", dom=dict(x="nz")),
    P("np.prod(x)", "v m", "scan"),
    P("x.prod(axis=0)", "m", "scan"),
    P("np.prod(x, axis=1)", "", "scan", more="t"),
    P("np.diff(x)", "v m", "scan"),
    # ------------------------------------------- matrices and creation
    P("np.trace(x)", "m", "matrix"),
    P("np.diag(x)", "v m", "matrix"),
    P("np.triu(x) + np.tril(x, -1)", "m", "matrix"),
    P("np.linalg.det(x @ x.T + np.eye(2))", "m", "matrix"),
    P("np.linalg.inv(x @ x.T + np.identity(2))", "m", "matrix"),
    P("np.linalg.solve(x @ x.T + np.eye(2), b)", "mu mm", "matrix"),
    P("np.cross(a, b)", "vv", "matrix"),
    P("np.full(3, x) + np.full_like(v, x)", "sv", "matrix"),
    P("np.linspace(a, b, 5) * np.sum(np.arange(a, 10.0, 4.0))", "ss", "matrix"),
    # ------------------------------------------- issue 12: NumPy as people write it
    P("np.pad(x, (1, 2), constant_values=0.5)", "v", "forms12"),
    P("np.pad(x, ((1, 0), (0, 2)), mode='constant')", "m", "forms12"),
    P("np.pad(x, 1)", "", "forms12", more="t"),
    P("np.pad(x, (2, 1), mode='reflect') + np.pad(x, (1, 2), 'wrap')", "v", "forms12"),
    P("np.pad(x, ((1, 0), (0, 2)), mode='edge')", "m", "forms12"),
    P("np.pad(x, 1, mode='symmetric')", "", "forms12", more="m t"),
    P("np.convolve(a, b)", "vu", "forms12"),
    P("np.convolve(a, b, mode='same') + np.convolve(b, a, 'valid')[0]", "vu", "forms12"),
    P("np.vander(x, 4) + np.vander(x, increasing=True)[0, 0]", "v", "forms12"),
    P("np.repeat(x, 2)", "v", "forms12"),
    P("np.repeat(x, 2, axis=1) + x.repeat(2, axis=-1)", "m", "forms12"),
    P("np.tile(x, 2)", "v", "forms12", more="m"),
    P("np.tile(x, (2, 1))", "m", "forms12", more="v"),
    # counts known only when it runs (a shape): integer operands
    P("np.tile(x, x.shape[0]) + np.tile(x, (1, x.shape[0]))[0]", "v", "forms12"),
    P("np.tile(x, (x.shape[1], 1))[:2] + np.tile(x, x.shape[0])[:, :3]", "m", "forms12"),
    P("np.roll(x, 1)", "v", "forms12"),
    P("np.roll(x, -1, axis=1) + np.roll(x, 2)", "m", "forms12"),
    P("np.kron(a, b)", "uv", "forms12", more="mn"),
    P("X, Y = np.meshgrid(a, b)\nX * Y ** 2", "vu", "forms12"),
    P("P, Q = np.meshgrid(a, b, indexing='ij')\nP ** 2 * Q", "vu", "forms12"),
    P("np.diagonal(x) + x.diagonal(1)", "m", "forms12"),
    P("np.moveaxis(x, 0, 1)", "m", "forms12"),
    P("np.moveaxis(x, 0, -1)", "", "forms12", more="t"),
    P("np.atleast_2d(x) * 2.0", "v", "forms12"),
    P("np.atleast_1d(x) * 2.0", "s", "forms12"),
    P("np.average(x, weights=p)", "vv", "forms12", dom=dict(p="pos")),
    P("np.average(x, axis=1, weights=p) + np.average(x, 0)[0]", "mm", "forms12", dom=dict(p="pos")),
    P("np.maximum.accumulate(x)", "v", "forms12", ok=_apart("x"),
      ties=[Tie(dict(x=[1.0, 3.0, 3.0]), dict(x=[1.0, 2.0, 0.0]))]),
    P("np.minimum.accumulate(x, axis=0) + np.maximum.accumulate(x, axis=1)", "m", "forms12",
      ok=_apart("x")),
    P("np.einsum('ij,jk->ik', a, b)", "mn", "sums12"),
    P("np.einsum('i,i', a, b)", "vv", "sums12"),
    P("np.einsum('ii->i', x @ x.T) + np.einsum('ij->', x)", "m", "sums12"),
    P("np.einsum('ij,jk,k->i', a, b, c)", "mnu", "sums12"),
    P("np.einsum('ijk->kj', x)", "", "sums12", more="t"),
    P("np.tensordot(a, b, axes=1) + np.tensordot(a, a.T, axes=((0, 1), (1, 0)))", "mn", "sums12"),
    P("np.tensordot(a, b)", "mm", "sums12"),
    P("np.inner(a, b)", "vv", "sums12", more="mm"),
    # the decompositions compile LAPACK calls and their adjoints for minutes: FULL only
    P("np.linalg.eigh(x @ x.T + np.diag(np.arange(2.0)))[0]", "", "decomp12", more="m"),
    P("lam, V = np.linalg.eigh(x @ x.T + np.diag(np.arange(2.0)))\nV ** 2 * lam", "", "decomp12", more="m"),
    P("np.linalg.eigvalsh(x @ x.T)", "", "decomp12", more="m"),
    P("Q, R = np.linalg.qr(x.T)\nQ @ R[:, :1] + np.sum(Q * x.T)", "", "decomp12", more="m"),
    P("np.linalg.qr(x @ x.T + np.eye(2))[1]", "", "decomp12", more="m"),
    P("scipy.stats.norm.cdf(x) + scipy.stats.norm.pdf(x)", "s v", "stats12"),
    P("scipy.stats.norm.logcdf(x, a, b)", "sss", "stats12", more="vss", dom=dict(b="pos")),
    P("scipy.stats.norm.logcdf(x - 30.0) + scipy.stats.norm.cdf(x - 30.0)", "s", "stats12"),
    P("scipy.stats.norm.logpdf(x, loc=a, scale=b) * scipy.stats.norm.pdf(x, scale=b)", "sss",
      "stats12", more="vss", dom=dict(b="pos")),
    # ------------------------------------------- issue 12: autograd's scipy.special
    P("scipy.special.digamma(x) + scipy.special.psi(x)", "s", "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.polygamma(2, x)", "s", "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.gamma(x) + scipy.special.rgamma(x - 3.0)", "s", "special12", more="v",
      dom=dict(x="p01"),      # rgamma at a pole: d/dx 1/gamma(x) at -n is (-1)^n n!
      ties=[Tie(dict(x=1.0), dict(x=2.0 - 0.5772156649015329))]),
    P("scipy.special.beta(a, b) + scipy.special.betaln(b, a)", "ss", "special12", more="vs",
      dom=dict(a="pos", b="pos")),
    P("scipy.special.erfinv(x) + scipy.special.erfcinv(x + 1.0)", "s", "special12", more="v",
      dom=dict(x="in1")),
    P("scipy.special.i0(x) + scipy.special.i1(x)", "s", "special12", more="v",
      ties=[Tie(dict(x=0.0), dict(x=0.5))]),                 # I1'(0) = 1/2
    P("np.i0(x) * x", "s", "special12", more="v"),
    P("scipy.special.i0e(x) + scipy.special.i1e(x)", "s", "special12", more="v", dom=dict(x="nz"),
      ties=[Tie(dict(x=0.0), dict(x=0.5))]),
    P("scipy.special.ndtr(x) + scipy.special.log_ndtr(x)", "s", "special12", more="v"),
    P("scipy.special.entr(x)", "s", "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.rel_entr(a, b) + scipy.special.kl_div(b, a)", "ss", "special12", more="vv",
      dom=dict(a="pos", b="pos")),
    P("scipy.special.softplus(x)", "s", "special12", more="v"),
    P("scipy.special.logsumexp(x, b=p)", "vv", "special12", more="mm", dom=dict(p="pos")),
    # ------------------------------------------- issue 12: autograd's NumPy functions
    P("np.fliplr(x) + np.flipud(x)", "m", "numpy12"),
    P("np.flipud(x)", "", "numpy12", more="v"),
    P("np.rot90(x)", "m", "numpy12"),
    P("np.rot90(x, 3) @ np.rot90(x, k=-1, axes=(1, 0)).T + np.rot90(x, 2)[0, 0]", "", "numpy12",
      more="m"),
    P("np.rollaxis(x, 1)", "m", "numpy12"),
    P("np.rollaxis(x, 2) + np.rollaxis(x, -1, 1)[:, 0, :1]", "", "numpy12", more="t"),
    P("np.atleast_3d(x) * 2.0", "s", "numpy12", more="v m"),
    P("np.broadcast_to(x, (2, 3))", "v", "numpy12"),
    P("np.broadcast_to(x[:1], x.shape) + np.broadcast_to(x, (2, 2, 3))", "", "numpy12", more="m"),
    P("np.fmax(a, b) + 2.0 * np.fmin(a, b)", "ss", "numpy12", more="vv vs", ok=_apart("a", "b"),
      ties=[Tie(dict(a=1.0, b=1.0), dict(a=1.5, b=1.5))]),
    P("np.nan_to_num(x)", "s", "numpy12", more="v"),
    P("np.sort(x)", "v", "numpy12", more="m", ok=_apart("x"),
      # ties keep NumPy's stable order: the k-th sorted entry's cotangent goes to the k-th of
      # the stable argsort
      ties=[Tie(dict(x=[2.0, 1.0, 2.0]), w=[1.0, 2.0, 3.0], expect=dict(x=[2.0, 1.0, 3.0]))]),
    P("np.sort(x, axis=0) + np.sort(x, axis=None)[:3]", "", "numpy12", more="m", ok=_apart("x")),
    # a lane's entries read at its argsort: each lane sorted, by a gather whose adjoint scatters
    P("np.take_along_axis(x, np.argsort(x, axis=1), axis=1)", "m", "numpy12", more="t",
      ok=_apart("x")),
    P("np.take_along_axis(x, np.argsort(x, axis=0)[:1], axis=0)", "", "numpy12", more="m",
      ok=_apart("x")),
    # np.<ufunc>.outer: the ufunc of a with b's axes appended, and b
    P("np.subtract.outer(a, b) + np.multiply.outer(a, b)", "vu", "numpy12", more="mv ms"),
    P("np.add.outer(a, b) ** 2 + np.power.outer(b, a).T", "", "numpy12", more="uv",
      dom=dict(b="pos")),
    P("np.gradient(x)", "v", "numpy12"),
    # the median and quantiles (linear interpolation): the cotangent goes to the sorted entries
    # the value lies between (the stable argsort's; the two middle ones by halves)
    P("np.median(x) + np.quantile(x, 0.3) + np.percentile(x, 80.0)", "v", "numpy12", more="m",
      ok=_apart("x"), ties=[Tie(dict(x=[2.0, 1.0, 2.0]), dict(x=[2.0, 0.4, 0.6]))]),
    P("np.median(x, axis=0) + np.quantile(x, 0.75, axis=-1, keepdims=True)[0]", "", "numpy12",
      more="m", ok=_apart("x")),
    # LAPACK's SVD and its adjoint compile for a minute: FULL only, as the other decompositions
    P("np.linalg.pinv(x)", "", "decomp12", more="m"),
    P("U, s, Vh = np.linalg.svd(x, full_matrices=False)\n(U * s) @ Vh + U[:, :1] * Vh[:1, :] ** 2",
      "", "decomp12", more="m"),
    P("np.linalg.svd(x, compute_uv=False) + np.linalg.svdvals(x) ** 2", "", "decomp12", more="m"),
    P("np.linalg.svd(x @ x.T + np.eye(2), False)[1]", "", "decomp12", more="m"),
    # a matrix's norms by singular values (corpus 12): ord=2 / -2 / 'nuc'
    P("np.linalg.norm(x, 2) + np.linalg.norm(x, -2) * 2.0 + np.linalg.norm(x, 'nuc') ** 2", "",
      "decomp12", more="m"),
    # ------------------------------------------- issue 12: autograd's scipy.stats distributions
    P("scipy.stats.t.logpdf(x, a, b, 1.5) + scipy.stats.t.pdf(x, a)", "sss", "dist12",
      more="vss", dom=dict(a="pos")),
    P("scipy.stats.gamma.logpdf(x, a, loc=0.1, scale=b) + scipy.stats.gamma.pdf(x, a)", "sss",
      "dist12", more="vss", dom=dict(x="gt1", a="pos", b="pos")),
    P("scipy.stats.beta.logpdf(x, a, b) + scipy.stats.beta.pdf(x, a, b, scale=2.0)", "sss",
      "dist12", more="vss", dom=dict(x="p01", a="pos", b="pos")),
    P("scipy.stats.expon.logpdf(x, scale=b) + scipy.stats.expon.pdf(x, a, b) "
      "+ scipy.stats.expon.cdf(x, a, b)", "sss", "dist12", more="vss",
      dom=dict(x="pos", a="lo", b="pos")),
    P("scipy.stats.laplace.logpdf(x, a, b) + scipy.stats.laplace.pdf(x) "
      "+ scipy.stats.laplace.cdf(x, a, b)", "sss", "dist12", more="vss",
      dom=dict(x="nz", b="pos"), ok=_apart("x", "a")),
    P("scipy.stats.logistic.logpdf(x, a, b) + scipy.stats.logistic.pdf(x) "
      "+ scipy.stats.logistic.cdf(x, a, b)", "sss", "dist12", more="vss", dom=dict(b="pos")),
    P("scipy.stats.cauchy.logpdf(x, a, b) + scipy.stats.cauchy.pdf(x) "
      "+ scipy.stats.cauchy.cdf(x, a, b)", "sss", "dist12", more="vss", dom=dict(b="pos")),
    P("scipy.stats.poisson.logpmf(3.0, a) + scipy.stats.poisson.pmf(2.0, a)", "s", "dist12",
      more="v", dom=dict(a="pos")),
    # the covariance made symmetric positive definite; its gradient is the symmetric one
    P("scipy.stats.multivariate_normal.logpdf(x, m, c @ c.T + np.eye(2))", "uum", "dist12"),
    P("scipy.stats.multivariate_normal.logpdf(x, m, c @ c.T + np.eye(2))", "", "dist12",
      more="num"),
    # ------------------------------------------- issue 12: the rest of autograd's functions
    P("np.matmul(a, b)", "mn", "linalg", more="vv mv"),
    P("x.astype(np.float64) * x + np.sum(x.astype(np.int64))", "v", "shape"),
    P("a, b, c = np.hsplit(x, 3)\na * b + c", "m", "shape", more="v"),
    P("a, b = np.vsplit(x, 2)\na * b", "m", "shape"),
    P("hs = np.hsplit(x, 3)\nhs[0] * hs[2]", "", "shape", more="m"),
    P("a, b = np.dsplit(x, 2)\na * b", "", "shape", more="t"),
    P("np.partition(x, 1)", "v", "numpy12", more="m", ok=_apart("x"),
      # NumPy's own order of the entries (its introselect); tied entries keep it too
      ties=[Tie(dict(x=[2.0, 1.0, 2.0]), w=[1.0, 2.0, 3.0], expect=dict(x=[2.0, 1.0, 3.0]))]),
    P("np.partition(x, 0, axis=0) + np.partition(x, -1)", "", "numpy12", more="m", ok=_apart("x")),
    P("np.fft.fftshift(x) + np.fft.ifftshift(x) ** 2", "v", "numpy12", more="m"),
    P("scipy.special.gammasgn(x) * x", "s", "special12", more="v", dom=dict(x="nz")),
    P("scipy.special.gammainc(1.5, x) + scipy.special.gammaincc(0.3, x)", "s", "special12",
      more="v", dom=dict(x="pos")),
    P("scipy.special.gammainc(12.0, x) + scipy.special.gammaincc(40.0, x)", "s", "special12",
      dom=dict(x="far")),
    P("scipy.special.betainc(2.0, 0.5, x) + scipy.special.betainc(30.0, 20.0, x)", "s",
      "special12", more="v", dom=dict(x="p01")),
    P("scipy.special.j0(x) + scipy.special.j1(x) + scipy.special.y0(x) + scipy.special.y1(x)",
      "s", "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.y1(x) + scipy.special.y0(x) + scipy.special.j1(x) + scipy.special.j0(x)",
      "s", "special12", dom=dict(x="far")),
    P("scipy.special.jv(1.5, x) + scipy.special.jv(-0.7, x) + scipy.special.jn(2, x)", "s",
      "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.jv(1.5, x) + scipy.special.yv(-2.3, x) + scipy.special.yn(3, x)", "s",
      "special12", dom=dict(x="far")),
    P("scipy.special.yv(0.5, x) + scipy.special.yn(2, x)", "s", "special12", more="v",
      dom=dict(x="pos")),
    P("scipy.special.iv(2.5, x) + scipy.special.ive(-0.5, x) + scipy.special.ive(1, x)", "s",
      "special12", more="v", dom=dict(x="pos")),
    P("scipy.special.ive(0.5, x) + scipy.special.ive(3.5, x) + scipy.special.iv(1.5, 0.2 * x)", "s",
      "special12", dom=dict(x="far")),
    # at 0: (I_0 + I_2) / 2 = 1/2 for ive(1, .), (J_0 - J_2) / 2 = 1/2 for jv(1, .)
    P("scipy.special.ive(1, x) + scipy.special.jv(1, x)", "s", "special12", dom=dict(x="nz"),
      ties=[Tie(dict(x=0.0), dict(x=1.0))]),
    P("scipy.stats.norm.sf(x, a, b) + scipy.stats.norm.logsf(x, a, b)", "sss", "stats12",
      more="vss", dom=dict(b="pos")),
    P("scipy.stats.chi2.logpdf(x, a) + scipy.stats.chi2.pdf(x, a, b, 1.5) "
      "+ scipy.stats.chi2.cdf(x, 3.0, b, 2.0)", "sss", "dist12", more="vss",
      dom=dict(x="gt1", a="gt1", b="lo")),
    P("scipy.stats.gamma.cdf(x, 2.5, a, b) + scipy.stats.beta.cdf(x, 2.0, 3.0, scale=4.0 * b)",
      "sss", "dist12", more="vss", dom=dict(x="gt1", a="lo", b="gt1")),
    P("scipy.stats.t.cdf(x, 4.0, a, b) + scipy.stats.t.logcdf(x - 3.0, 2.5, scale=b)", "sss",
      "dist12", more="vss", dom=dict(b="pos")),
    P("scipy.stats.poisson.cdf(3.0, a) + scipy.stats.poisson.cdf(0.0, a)", "s", "dist12",
      more="v", dom=dict(a="pos")),
    P("scipy.stats.dirichlet.logpdf(np.exp(x) / np.sum(np.exp(x)), a) "
      "+ scipy.stats.dirichlet.pdf(np.exp(x) / np.sum(np.exp(x)), a)", "vv", "dist12",
      dom=dict(a="pos")),
    P("scipy.stats.dirichlet.logpdf(np.exp(x) / np.sum(np.exp(x), axis=0), a)", "", "dist12",
      more="mu", dom=dict(a="pos")),
    P("scipy.stats.multivariate_normal.pdf(x, m, c @ c.T + np.eye(2)) "
      "+ scipy.stats.multivariate_normal.entropy(m, c @ c.T + np.eye(2))", "", "dist12",
      more="uum"),
    P("scipy.stats.multivariate_normal.pdf(x, m, c @ c.T + np.eye(2))", "", "dist12",
      more="num"),
    # scipy.linalg and scipy.signal: one matrix variant each by default (one compiled group)
    P("scipy.linalg.solve_triangular(x @ x.T + np.eye(2), b, lower=True) "
      "+ scipy.linalg.solve_triangular(x[:, :2] + 2.0 * np.eye(2), b, trans='T')", "mu",
      "scipy12", more="mm"),
    P("scipy.linalg.solve_triangular(x[:, :2] + 2.0 * np.eye(2), b, 1, True, True)", "", "scipy12",
      more="mu mm"),
    P("scipy.linalg.solve_banded((1, 0), x + np.array([[2.0], [0.0]]), b)", "mv", "scipy12",
      more="mn"),
    P("scipy.linalg.solve_banded((0, 1), x + np.array([[0.0], [3.0]]), b)", "", "scipy12",
      more="mv"),
    P("scipy.linalg.solve_sylvester(a @ a.T + 2.0 * np.eye(2), b.T @ b + np.eye(3), q)", "mmm",
      "scipy12"),
    P("scipy.linalg.sqrtm(x @ x.T + np.eye(2)) + scipy.linalg.sqrtm(x[:, 1:] + 3.0 * np.eye(2))",
      "m", "scipy12"),
    P("scipy.signal.convolve(a, b) + scipy.signal.convolve(a, b, 'same')[0]"
      " + scipy.signal.convolve(b, a, mode='valid')[0]", "vu", "scipy12"),
    P("scipy.signal.convolve(a, b, mode='same') + scipy.signal.convolve(b, a)[0, 0]", "",
      "scipy12", more="mm"),
    # ------------------------------------------- issue 12: complex values as intermediates
    P("np.real(x + 1j * y) + np.imag(x * y + 1j * y) + np.conj(x + 0j).real", "ss vv",
      "complex12"),
    P("np.abs(x + 1j * y) + np.angle(x - 2j * y) + abs(y * 1j)", "ss vs", "complex12",
      dom=dict(x="nz", y="nz")),
    # branch cuts stay away: arg z = y in (-2, 2)
    P("z = x * np.exp(1j * y)\nnp.real(z * z / (1.0 + z)) + np.imag(np.log(z) + np.sqrt(z)) "
      "+ np.abs(np.sin(z) - np.cos(z)) + np.real(z ** 3 - 2.0 / z)", "ss vs", "complex12",
      more="vv", dom=dict(x="pos")),
    P("z = x + 1j * y\nz.real * z.imag + np.abs(z.conj() * z) + np.real(np.sum(z * z))", "vv",
      "complex12"),
    P("np.real(np.sum(np.exp(1j * x) * y) + np.mean(x * 1j * y) + np.exp(2j * x[0]))", "vv",
      "complex12"),
    P("np.abs(np.dot(x + 1j * y, y - 2j * x)) + np.real((x * 1j) @ y)", "vv", "complex12"),
    P("np.abs((x + 1j * y) @ (y - 2j * y)) + np.real((x * 1j) @ y)", "", "complex12",
      more="mv"),
    P("z = np.zeros(3, dtype=complex)\nz[0] = x * 1j\nz[1:] = y[1:] + 0.5j * x\nnp.abs(z) ** 2",
      "sv", "complex12"),
    P("np.real_if_close(x) * 2.0", "v", "complex12"),
    # the FFTs (NumPy's, in object mode): n=, axis=, norm=, the 2-D and n-D forms
    P("np.abs(np.fft.fft(x)) ** 2 + np.real(np.fft.ifft(x * 1j + x))", "v", "fft12", more="m"),
    P("np.sum(np.abs(np.fft.rfft(x))) + np.fft.irfft(np.fft.rfft(x) * 2j + x[0], 3)", "v",
      "fft12"),
    P("np.real(np.fft.fft(x, 5)) + np.imag(np.fft.ifft(x, 5, norm='ortho'))", "v", "fft12"),
    P("np.fft.irfft(x + 1j * y, 5) + np.real(np.fft.rfft(x, 8, norm='forward'))[:5]", "vv",
      "fft12"),
    P("np.abs(np.fft.fft(x, axis=0)) + np.real(np.fft.ifft(x, 3, axis=1))", "m", "fft12"),
    P("np.abs(np.fft.fft2(x)) + np.real(np.fft.ifft2(x * 1j)) + np.abs(np.fft.fftn(x))", "m",
      "fft12"),
    P("np.real(np.fft.rfft2(x)) + np.imag(np.fft.rfftn(x)) + np.fft.irfft2(np.fft.rfft2(x) * 1j)",
      "m", "fft12"),
    P("np.fft.irfftn(x + 1j * y) + np.abs(np.fft.ifftn(x))[0]", "vv", "fft12"),
    P("np.fft.fftshift(np.abs(np.fft.fft(x))) * np.fft.ifftshift(x)", "v", "fft12"),
    # np.linalg.eig (LAPACK's, in object mode): complex eigenvalues, eigenvectors in its gauge
    P("lam, V = np.linalg.eig(x[:, :2] + np.array([[0.0, 1.5], [-1.5, 0.0]]))\n"
      "np.real(lam) ** 2 + np.imag(lam) + np.abs(V[0]) + np.real(V[1] * V[0])", "m", "eig12"),
    P("np.real(np.linalg.eigvals(x @ x.T + np.eye(2))) + np.abs(np.linalg.eig(x[:, 1:])[0])",
      "m", "eig12"),
]


# ---------------------------------------------------------------------------------------------
# terms, groups and the generated module
# ---------------------------------------------------------------------------------------------

_NOT_OPERANDS = {"np", "math", "scipy", "abs", "max", "min", "float", "int", "len", "range",
                 "complex"}


def _parse(expr):
    """(statements before the result, the result expression, operand names in order)."""
    mod = ast.parse(expr)
    *stmts, last = mod.body
    assert isinstance(last, ast.Expr), f"{expr!r}: the last line must be an expression"
    names = sorted((n for n in ast.walk(mod) if isinstance(n, ast.Name)),
                   key=lambda n: (n.lineno, n.col_offset))
    stored = {n.id for n in names if isinstance(n.ctx, ast.Store)}
    operands = []
    for n in names:
        if n.id not in stored and n.id not in _NOT_OPERANDS and n.id not in operands:
            operands.append(n.id)
    return stmts, last.value, tuple(operands), stored


class _Rename(ast.NodeTransformer):
    def __init__(self, names, k):
        self.names, self.k = names, k

    def visit_Name(self, node):
        if node.id in self.names:
            return ast.copy_location(ast.Name(f"{node.id}_{self.k}", node.ctx), node)
        return node


def _float_code(code):
    return code in SHAPES


def _draw(rng, code, dom):
    if code in SHAPES:
        lo, hi = DOMAINS[dom]
        shape = SHAPES[code]
        x = rng.uniform(lo, hi, size=shape)
        if dom == "nz":
            x = x * rng.choice([-1.0, 1.0], size=shape)
        return float(x) if shape == () else x
    if code in INDEX:
        n, bound = INDEX[code]
        return rng.integers(0, bound, size=n).astype(np.int64)
    return rng.random(BOOLS[code]) < 0.5


def _eval(stmts, result, ops):
    ns = {"np": np, "math": math, "scipy": scipy}
    ns.update({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in ops.items()})
    exec(compile(ast.Module(body=list(stmts), type_ignores=[]), "<term>", "exec"), ns)
    return eval(compile(ast.Expression(result), "<term>", "eval"), ns)


def _code_of(value):
    shape = np.shape(value)
    for code, s in SHAPES.items():
        if s == shape:
            return code
    raise AssertionError(f"no shape code for {shape}")


@dataclass
class Term:
    row: P
    variant: str
    id: str
    group: str
    operands: tuple
    stmts: list
    result: ast.expr
    stored: set
    args: dict            # operand -> random value
    w_shape: tuple | None  # weights' shape, None for a scalar result
    w: object = None
    k: int = -1           # index in its group
    params: tuple = ()    # the group function's parameter names of the operands
    marks: tuple = ()


def _term(row, variant):
    stmts, result, operands, stored = _parse(row.expr)
    assert len(variant) == len(operands), f"{row.expr!r}: variant {variant!r} for {operands}"
    tid = f"{row.expr.replace(chr(10), '; ')}[{variant}]"
    rng = np.random.default_rng([SEED, zlib.crc32(tid.encode())])
    for _ in range(1000):
        args = {n: _draw(rng, c, row.dom.get(n, "any")) for n, c in zip(operands, variant)}
        if row.ok is None or row.ok(**args):
            break
    else:
        raise AssertionError(f"{tid}: no random point satisfies ok")
    out = _eval(stmts, result, args)
    w_shape = None if np.ndim(out) == 0 else np.shape(out)
    w = None if w_shape is None else rng.uniform(-1.5, 1.5, size=w_shape)
    rank = max(len(SHAPES.get(c, (0,))) for c in variant)
    group = f"{row.family}_{min(rank, 2)}d"
    if row.alone:
        group += "_" + "".join(ch if ch.isalnum() else "_" for ch in tid)
    reason = row.xfail.get(variant) if isinstance(row.xfail, dict) else row.xfail
    marks = (pytest.mark.xfail(strict=True, reason=reason),) if reason else ()
    return Term(row, variant, tid, group, operands, stmts, result, stored, args, w_shape, w,
                marks=marks)


# the families issue 12 added: their matrix variants compile a group of their own each (tens of
# seconds); by default their rules are checked on scalars and vectors, all of it with FULL
LATE_FAMILIES = {"forms12", "sums12", "numpy12", "special12", "dist12", "stats12", "decomp12"}


def _variants(row):
    shown = row.variants.split()
    if row.family in LATE_FAMILIES and not FULL:
        cheap = [v for v in shown if not set(v) & set("mnt")]
        shown = cheap or shown[:0]
    return shown + (row.more.split() if FULL else [])


TERMS = [_term(row, v) for row in TABLE for v in _variants(row)]
_ids = [t.id for t in TERMS]
assert len(set(_ids)) == len(_ids), "duplicate (spelling, variant) rows"

GROUPS: dict[str, list] = {}
for _t in TERMS:
    _t.k = len(GROUPS.setdefault(_t.group, []))
    _t.params = tuple(f"{n}_{_t.k}" for n in _t.operands)
    GROUPS[_t.group].append(_t)


def _source():
    """The generated module: one function per group, one term per table (row, variant)."""
    out = ["import math", "import numpy as np", "import scipy.special", "import scipy.stats",
           "import scipy.linalg", "import scipy.signal", ""]
    for group, terms in GROUPS.items():
        params, body, totals = [], [], []
        for t in terms:
            ren = _Rename(set(t.operands) | t.stored, t.k)
            params.extend(t.params)
            body.append(f"    # [{t.k}] {t.id}")
            body.extend("    " + ast.unparse(ren.visit(s)) for s in
                        (ast.parse(ast.unparse(s)).body[0] for s in t.stmts))
            expr = ast.unparse(ren.visit(ast.parse(ast.unparse(t.result), mode="eval").body))
            if t.w_shape is None:
                body.append(f"    t_{t.k} = {expr}")
            else:
                params.append(f"w_{t.k}")
                body.append(f"    t_{t.k} = np.sum(({expr}) * w_{t.k})")
            totals.append(f"t_{t.k}")
        out.append(f"def f_{group}({', '.join(params)}):")
        out.extend(body)
        out.append(f"    return {' + '.join(totals)}")
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# running a group in both modes (compiled once per session, shared by the group's tests)
# ---------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    args: list
    compiled: tuple
    eager: tuple
    plain: float
    compiled_ran: bool


class Group:
    def __init__(self, name, fn, terms):
        self.name, self.fn, self.terms = name, fn, terms
        self.params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        codes = {}
        for t in terms:
            codes.update(zip(t.params, t.variant))
        self.wrt = tuple(i for i, p in enumerate(self.params) if _float_code(codes.get(p, "w")))
        self.compiled_vg = jitad.value_and_grad(fn, wrt=self.wrt)
        self.eager_vg = jitad.value_and_grad(fn, wrt=self.wrt, mode="eager")
        self._random = None
        self._jvp = None

    def args(self, term=None, override=None, w=None):
        """Arguments at the random point, with `term`'s operands (and weights) replaced."""
        vals = {}
        for t in self.terms:
            for n, p in zip(t.operands, t.params):
                vals[p] = t.args[n]
            if t.w_shape is not None:
                vals[f"w_{t.k}"] = t.w
        if term is not None:
            for n, p in zip(term.operands, term.params):
                v = override[n]
                vals[p] = float(v) if np.ndim(v) == 0 else np.array(v, dtype=np.float64)
            if term.w_shape is not None:
                vals[f"w_{term.k}"] = (np.ones(term.w_shape) if w is None
                                       else np.array(w, dtype=np.float64))
        return [vals[p] for p in self.params]

    def run(self, args):
        snap = snapshot(args)
        compiled = self.compiled_vg(*args)
        assert_unchanged(args, snap, f"{self.name}: compiled mode")
        spec = self.compiled_vg.specialize(*args)
        ran = spec.backend == "numba" and spec.compiled_ran
        eager = self.eager_vg(*args)
        assert_unchanged(args, snap, f"{self.name}: eager mode")
        plain = float(self.fn(*snapshot(args)))
        return Outcome(args, compiled, eager, plain, ran)

    def random(self):
        if self._random is None:
            try:
                self._random = self.run(self.args())
            except Exception as e:          # one compile per session, even when it fails
                self._random = e
        if isinstance(self._random, Exception):
            raise self._random
        return self._random

    def grads_of(self, term, grads):
        """The entries of a full gradient tuple that belong to `term`'s float operands."""
        pos = {self.params[i]: j for j, i in enumerate(self.wrt)}
        return tuple(grads[pos[p]] for p, c in zip(term.params, term.variant) if _float_code(c))

    def jvp_along(self, term, args, v, mode):
        """(value, tangent) of the group's function along the direction `v` of `term`'s float
        operands: eager with only those as wrt; compiled (one specialization per group) with
        every float operand, the others given zero tangents."""
        snap = snapshot(args)
        if mode == "eager":
            out = jitad.jvp(self.fn, wrt=self.wrt_of(term), mode="eager")(
                *args, tangents=tuple(v))
        else:
            if self._jvp is None:
                self._jvp = jitad.jvp(self.fn, wrt=self.wrt)
            mine = dict(zip(self.wrt_of(term), v))
            tans = tuple(mine[i] if i in mine else np.zeros_like(args[i]) if np.ndim(args[i])
                         else 0.0 for i in self.wrt)
            out = self._jvp(*args, tangents=tans)
            assert self._jvp.specialize(*args).compiled_ran
        assert_unchanged(args, snap, f"{self.name}: {mode} jvp")
        return out

    def wrt_of(self, term):
        return tuple(self.params.index(p) for p, c in zip(term.params, term.variant)
                     if _float_code(c))


# The generated module and its groups: one per session, made by the first test that needs them.
_STATE: dict = {}


def _import_terms(path, modname):
    spec = importlib.util.spec_from_file_location(modname, str(path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module", autouse=True)
def _workspace(tmp_path_factory):
    """Write the generated module and import it."""
    root = tmp_path_factory.mktemp("primitives")
    path = root / "primitive_terms.py"
    path.write_text(_source())
    modname = f"_jitad_primitive_terms_{os.getpid()}"
    _STATE.update(module=_import_terms(path, modname), groups={})
    yield
    _STATE.clear()


def _group(name) -> Group:
    groups = _STATE["groups"]
    if name not in groups:
        groups[name] = Group(name, getattr(_STATE["module"], f"f_{name}"), GROUPS[name])
    return groups[name]


def _check_modes_agree(g, res, label):
    """compiled value/gradients == eager ones (the whole group), the compiled gradient ran, and
    the value is the plain function's."""
    assert res.compiled_ran, f"[{label}] the Numba-compiled gradient did not run"
    cv, cg = res.compiled
    ev, eg = res.eager
    assert float(cv) == pytest.approx(float(ev), rel=CE_RTOL, abs=CE_ATOL), \
        f"[{label}] value: compiled {cv!r} != eager {ev!r}"
    assert float(cv) == pytest.approx(res.plain, rel=CE_RTOL, abs=CE_ATOL), \
        f"[{label}] value: compiled {cv!r} != plain function {res.plain!r}"
    assert len(cg) == len(eg) == len(g.wrt)


# ---------------------------------------------------------------------------------------------
# the tests
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("term", [pytest.param(t, id=t.id, marks=t.marks) for t in TERMS])
def test_random_point(term):
    g = _group(term.group)
    res = g.random()
    label = f"{term.id} in f_{g.name} (JITAD_PRIMITIVES_SEED={SEED})"
    _check_modes_agree(g, res, label)
    comp = g.grads_of(term, res.compiled[1])
    eager = g.grads_of(term, res.eager[1])
    assert_grads_close(comp, eager, rtol=CE_RTOL, atol=CE_ATOL, label=f"{label}: compiled vs eager")
    fd = central_fd(g.fn, res.args, g.wrt_of(term), eps=1e-4, order=4)
    scale = max([1.0] + [float(np.max(np.abs(x))) for x in fd])
    for mode, grads in (("compiled", comp), ("eager", eager)):
        assert_grads_close(grads, fd, rtol=FD_RTOL, atol=FD_ATOL * scale,
                           label=f"{label}: {mode} vs finite differences")


def _tie_params():
    out = []
    for row in TABLE:
        for n, tie in enumerate(row.ties):
            _, _, operands, _ = _parse(row.expr)
            variant = "".join(_code_of(tie.args[o]) for o in operands)
            assert variant in row.variants.split() + row.more.split(), \
                f"{row.expr!r}: tie {tie.args} has no variant {variant!r} in the table"
            terms = [t for t in TERMS if t.row is row and t.variant == variant]
            if not terms:
                continue        # a variant of JITAD_PRIMITIVES_FULL=1 only
            marks = ((pytest.mark.xfail(strict=True, reason=tie.xfail),
                      pytest.mark.filterwarnings("ignore::RuntimeWarning")) if tie.xfail else ())
            out.append(pytest.param(terms[0], tie, id=f"{terms[0].id}-tie{n}", marks=marks))
    return out


@pytest.mark.parametrize("term, tie", _tie_params())
def test_tie(term, tie):
    g = _group(term.group)
    g.random()   # compile (or re-raise the group's failure)
    res = g.run(g.args(term, tie.args, tie.w))
    label = f"{term.id} in f_{g.name} at {tie.args}"
    _check_modes_agree(g, res, label)
    assert_grads_close(tuple(res.compiled[1]), tuple(res.eager[1]), rtol=CE_RTOL, atol=CE_ATOL,
                       label=f"{label}: compiled vs eager")
    expect = tuple(tie.expect[n] if np.ndim(tie.expect[n]) == 0
                   else np.array(tie.expect[n], dtype=np.float64)
                   for n, c in zip(term.operands, term.variant) if _float_code(c))
    for mode in ("compiled", "eager"):
        grads = g.grads_of(term, getattr(res, mode)[1])
        assert_grads_close(grads, expect, rtol=TIE_RTOL, atol=TIE_ATOL,
                           label=f"{label}: {mode} vs the documented convention")


def _direction(term):
    """A random tangent for each float operand of the term (fixed by the seed and the term)."""
    rng = np.random.default_rng([SEED, zlib.crc32(("tangent " + term.id).encode())])
    return tuple(float(rng.normal()) if SHAPES[c] == () else rng.normal(size=SHAPES[c])
                 for c in term.variant if _float_code(c))


def _along(f, args, wrt, v, eps=1e-4):
    """The 4-point central difference of f along v (the directional derivative)."""
    def at(e):
        a = list(args)
        for i, d in zip(wrt, v):
            a[i] = a[i] + e * d
        return float(f(*snapshot(a)))
    return (8.0 * (at(eps) - at(-eps)) - (at(2 * eps) - at(-2 * eps))) / (12.0 * eps)


JVP_MODES = ("eager", "compiled") if FULL else ("eager",)


@pytest.mark.parametrize("term", [pytest.param(t, id=t.id, marks=t.marks) for t in TERMS])
def test_tangent(term):
    g = _group(term.group)
    res = g.random()
    label = f"{term.id} in f_{g.name} (JITAD_PRIMITIVES_SEED={SEED})"
    v = _direction(term)
    gv = sum(float(np.sum(a * b)) for a, b in zip(g.grads_of(term, res.compiled[1]), v))
    fd = _along(g.fn, res.args, g.wrt_of(term), v)
    for mode in JVP_MODES:
        y, yd = g.jvp_along(term, res.args, v, mode)
        assert float(y) == pytest.approx(float(res.compiled[0]), rel=CE_RTOL, abs=CE_ATOL), \
            f"[{label}] {mode} jvp value"
        scale = max(1.0, abs(gv))
        assert float(yd) == pytest.approx(gv, rel=CE_RTOL, abs=CE_ATOL * scale), \
            f"[{label}] {mode} jvp {yd!r} != grad . v {gv!r}"
        assert float(yd) == pytest.approx(fd, rel=FD_RTOL, abs=FD_ATOL * scale), \
            f"[{label}] {mode} jvp {yd!r} != finite differences {fd!r}"


@pytest.mark.parametrize("term, tie", _tie_params())
def test_tangent_at_tie(term, tie):
    g = _group(term.group)
    g.random()   # compile (or re-raise the group's failure)
    args = g.args(term, tie.args, tie.w)
    v = _direction(term)
    expect = [tie.expect[n] for n, c in zip(term.operands, term.variant) if _float_code(c)]
    want = sum(float(np.sum(np.asarray(e, dtype=float) * d)) for e, d in zip(expect, v))
    for mode in JVP_MODES:
        y, yd = g.jvp_along(term, args, v, mode)
        assert float(yd) == pytest.approx(want, rel=TIE_RTOL, abs=TIE_ATOL), \
            f"[{term.id} at {tie.args}] {mode} jvp {yd!r} != the convention's gradient . v {want!r}"


def test_runtime_digamma_matches_scipy():
    """rt.digamma (the derivative of gammaln/lgamma) against scipy.special.digamma, in Python
    and compiled, over positive and negative arguments (poles excluded)."""
    from jitad import _runtime_jit, runtime
    x = np.concatenate([np.linspace(-9.7, 40.0, 997), [1e-6, 0.5, 1.4616321449683622, 1e4]])
    ref = scipy.special.digamma(x)
    for mod in (runtime, _runtime_jit):
        got = mod.digamma(x)
        assert np.all(np.abs(got - ref) <= 1e-12 * np.maximum(1.0, np.abs(ref))), mod
        assert mod.digamma(2.5) == pytest.approx(scipy.special.digamma(2.5), rel=1e-13)
        assert math.isnan(mod.digamma(-2.0))


def _rel_err(got, ref):
    got, ref = np.asarray(got, float), np.asarray(ref, float)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    with np.errstate(invalid="ignore"):
        return np.where(same, 0.0, np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300))


def test_runtime_special_functions_match_scipy():
    """The kernels of issue 12's scipy.special functions (plain Python: the compiled ones are
    the same code) against scipy over wide ranges: ~1e-13 relative or better."""
    from jitad import runtime as rt
    sp = scipy.special
    x = np.concatenate([np.linspace(-40.0, 40.0, 401), np.geomspace(1e-8, 700.0, 120),
                        -np.geomspace(1e-8, 700.0, 120), [0.0]])
    for mine, ref in ((rt.i0, sp.i0), (rt.i1, sp.i1), (rt.i0e, sp.i0e), (rt.i1e, sp.i1e)):
        assert np.max(_rel_err(mine(x), ref(x))) < 1e-13, mine.__name__
    y = np.concatenate([np.linspace(-0.9999, 0.9999, 401), 1.0 - np.geomspace(1e-16, 0.5, 60),
                        np.geomspace(1e-300, 0.5, 60), [-1.0, 1.0, 0.0]])
    assert np.max(_rel_err(rt.erfinv(y), sp.erfinv(y))) < 1e-13
    z = np.concatenate([np.linspace(1e-6, 2.0 - 1e-6, 401), np.geomspace(1e-300, 1.0, 80),
                        2.0 - np.geomspace(1e-16, 1.0, 60), [0.0, 2.0]])
    assert np.max(_rel_err(rt.erfcinv(z), sp.erfcinv(z))) < 1e-13
    g = np.concatenate([np.linspace(-20.3, 171.0, 600), np.geomspace(1e-8, 170.0, 60),
                        [0.0, -1.0, -3.0, 172.0]])
    assert np.max(_rel_err(rt.gamma(g), sp.gamma(g))) < 1e-13
    assert np.max(_rel_err(rt.rgamma(g), sp.rgamma(g))) < 1e-13
    for n in (1, 2, 3, 5):
        p = np.concatenate([np.linspace(0.05, 60.0, 300), np.geomspace(1e-4, 1e4, 40),
                            np.linspace(-9.7, -0.3, 50)])
        assert np.max(_rel_err(rt.polygamma(n, p), sp.polygamma(n, p))) < 1e-13, n
    a, b = (v.ravel() for v in np.meshgrid(np.geomspace(1e-3, 1e3, 30), np.geomspace(1e-3, 1e3, 30)))
    ref = sp.betaln(a, b)           # relative away from its zeros (beta = 1), absolute near them
    assert np.max(np.abs(rt.betaln(a, b) - ref) / np.maximum(np.abs(ref), 1.0)) < 1e-12
    # scipy's own error is the larger one at large arguments (1.5e-14 at (6.28, 300), 4e-11 at
    # (0.149, 5736), 1e-9 at (0.11, 9e5)); references: Stirling's series in 60-digit decimals
    for a, b, ref in ((0.14873521072935117, 5736.152510448681, 0.5495062953324815),
                      (6.28348791584537, 300.0, -30.616307160975758),
                      (300.0, 195.24257902883014, -333.5793351620651)):
        assert rt.betaln(a, b) == pytest.approx(ref, rel=1e-15)
    a, b = (v.ravel() for v in np.meshgrid(np.geomspace(1e-2, 300.0, 25), np.geomspace(1e-2, 300.0, 25)))
    assert np.max(_rel_err(rt.beta(a, b), sp.beta(a, b))) < 1e-12
    assert rt.beta(-1.5, 2.0) == pytest.approx(sp.beta(-1.5, 2.0), rel=1e-14)
    e = np.array([-1.0, 0.0, 1e-300, 0.3, 2.0, 50.0])
    assert np.max(_rel_err(rt.entr(e), sp.entr(e))) < 1e-15
    u, v = (w.ravel() for w in np.meshgrid([-1.0, 0.0, 0.2, 3.0], [-1.0, 0.0, 0.5, 4.0]))
    assert np.max(_rel_err(rt.rel_entr(u, v), sp.rel_entr(u, v))) < 1e-15
    assert np.max(_rel_err(rt.kl_div(u, v), sp.kl_div(u, v))) < 1e-15


def test_runtime_incomplete_gamma_beta_match_scipy():
    """The regularized incomplete gamma and beta functions and their x-derivatives (plain
    Python: the compiled kernels are the same code) against scipy over wide ranges, edges
    included (a, x at 0, x at 1, small and large shapes): 1e-10 relative at worst (near
    underflow, where the prefactor's exponent is ~700), 1e-12 elsewhere."""
    from jitad import runtime as rt
    sp = scipy.special
    a, x = (v.ravel() for v in np.meshgrid(
        np.concatenate([np.geomspace(1e-3, 1e3, 40), [0.5, 1.0, 1.5, 2.0, 10.0, 50.0]]),
        np.concatenate([np.geomspace(1e-4, 2e3, 60), [0.0, 0.5, 1.0, 2.0, 10.0]])))
    for mine, ref in ((rt.gammainc, sp.gammainc), (rt.gammaincc, sp.gammaincc)):
        e = _rel_err(mine(a, x), ref(a, x))
        tiny = np.abs(ref(a, x)) < 1e-290            # subnormal results: absolute
        assert np.max(e[~tiny]) < 1e-10, mine.__name__
        assert np.max(np.abs(mine(a, x) - ref(a, x))[tiny]) < 1e-290
    mid = (a > 0.01) & (a < 100) & (x > 1e-3) & (x < 300)
    assert np.max(_rel_err(rt.gammainc(a, x), sp.gammainc(a, x))[mid & (sp.gammainc(a, x) > 1e-200)]) < 1e-12
    # d/dx P(a, x) = x^(a-1) e^-x / gamma(a): scipy's gamma distribution density
    d = rt.gammainc_dx(a, x)
    ok = (x > 0) & (a < 170)
    assert np.max(_rel_err(d[ok], scipy.stats.gamma.pdf(x[ok], a[ok]))[scipy.stats.gamma.pdf(x[ok], a[ok]) > 1e-290]) < 1e-11
    p, q, y = (v.ravel() for v in np.meshgrid(
        np.geomspace(1e-2, 300, 16), np.geomspace(1e-2, 300, 16),
        np.concatenate([np.linspace(0.0, 1.0, 21), [1e-6, 1.0 - 1e-6, 1e-3, 0.999]])))
    got, ref = rt.betainc(p, q, y), sp.betainc(p, q, y)
    big = np.abs(ref) > 1e-290
    assert np.max(_rel_err(got[big], ref[big])) < 1e-11
    dens = scipy.stats.beta.pdf(y, p, q)
    inside = (y > 0) & (y < 1) & (dens > 1e-290)
    assert np.max(_rel_err(rt.betainc_dx(p, q, y)[inside], dens[inside])) < 1e-10
    edges = np.array([[0.0, 2.0, 0.5], [2.0, 0.0, 0.5], [0.0, 0.0, 0.5], [2.0, 3.0, -0.1],
                      [2.0, 3.0, 1.5], [-1.0, 2.0, 0.5]])
    assert np.array_equal(rt.betainc(*edges.T), sp.betainc(*edges.T), equal_nan=True)
    e = np.array([[0.0, 1.0], [0.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [2.0, np.inf], [1.5, 0.0]])
    assert np.array_equal(rt.gammainc(*e.T), sp.gammainc(*e.T), equal_nan=True)
    assert np.array_equal(rt.gammaincc(*e.T), sp.gammaincc(*e.T), equal_nan=True)
    s = np.concatenate([np.linspace(-10.5, 10.5, 85), [0.0, -0.0, -1.0, np.inf, -np.inf, np.nan]])
    assert np.array_equal(rt.gammasgn(s), sp.gammasgn(s), equal_nan=True)


def test_runtime_bessel_match_scipy():
    """J, Y, I (and e^-|x| I) of real order against scipy, relative to the envelope of the
    oscillating ones (sqrt(2 / (pi x)), or the value where larger): 2e-10 at worst -- which is
    scipy's own error there (60-digit references below show jitad's kernels within 1e-15 of
    the truth where scipy is off by 1e-10) -- and the values at the poles, x = 0 and x < 0, as
    scipy gives them."""
    from jitad import runtime as rt
    sp = scipy.special
    v, x = (w.ravel() for w in np.meshgrid(
        np.concatenate([np.linspace(-5.5, 12.0, 36), [30.5, 60.0]]),
        np.concatenate([np.geomspace(1e-5, 2e4, 120), -np.geomspace(1e-3, 50.0, 12), [0.0]])))
    with np.errstate(all="ignore"):
        for mine, ref, oscillates in ((rt.jv, sp.jv, True), (rt.yv, sp.yv, True),
                                      (rt.iv, sp.iv, False), (rt.ive, sp.ive, False)):
            got, want = mine(v, x), ref(v, x)
            assert np.array_equal(np.isnan(got), np.isnan(want)), mine.__name__
            inf = np.isinf(want)
            assert np.array_equal(got[inf], want[inf]), mine.__name__
            fin = ~np.isnan(want) & ~inf & (np.abs(want) > 1e-290)
            env = np.abs(want[fin])
            if oscillates:
                env = np.maximum(env, np.sqrt(2.0 / (np.pi * np.abs(x[fin]))))
            assert np.max(np.abs(got[fin] - want[fin]) / env) < 2e-10, mine.__name__
    for n, z, j, y in ((60, 412.67527828818436, 7.691388618894002e-05, 0.03948703973427984),
                       (60, 63.69556458383686, 0.16829669870392533, -0.0010776942068028007),
                       (0, 29470.517025518217, -0.00010101686668729444, 0.004646688746807),
                       (1, 100000.0, 0.0018467575628825677, 0.0017192103500882562)):
        env = math.sqrt(2.0 / (math.pi * z))
        assert abs(rt.jv1(float(n), z) - j) < 2e-15 * env
        assert abs(rt.yv1(float(n), z) - y) < 2e-15 * env
    t = np.concatenate([np.linspace(-30.0, 30.0, 121), np.geomspace(1e-8, 1e5, 30)])
    with np.errstate(all="ignore"):
        for mine, ref in ((rt.j0, sp.j0), (rt.j1, sp.j1), (rt.y0, sp.y0), (rt.y1, sp.y1)):
            got, want = mine(t), ref(t)
            fin = np.isfinite(want)
            env = np.maximum(np.abs(want[fin]), np.sqrt(2.0 / (np.pi * np.abs(t[fin]))))
            assert np.max(np.abs(got[fin] - want[fin]) / env) < 1e-11, mine.__name__
            assert np.array_equal(np.isnan(got), np.isnan(want))


def test_runtime_stats_and_linalg_kernels_match_scipy():
    """t's CDF (its log in the far lower tail, where scipy's underflows, stays finite), the
    Dirichlet log-density, the triangular, banded and Sylvester solves, the matrix square root
    and scipy.signal.convolve's modes against scipy."""
    from jitad import runtime as rt
    rng = np.random.default_rng(12)
    z, df = (w.ravel() for w in np.meshgrid(np.concatenate([np.linspace(-40, 40, 81), [0.0]]),
                                            np.geomspace(0.2, 1e4, 25)))
    assert np.max(_rel_err(rt.t_cdf(z, df), scipy.stats.t.cdf(z, df))) < 1e-11
    lo, mine = scipy.stats.t.logcdf(z, df), rt.t_logcdf(z, df)
    fin = np.isfinite(lo)       # scipy underflows to -inf far in the lower tail; jitad does not
    assert np.max(np.abs(mine - lo)[fin] / np.maximum(np.abs(lo[fin]), 1e-300)) < 2e-12
    assert np.all(np.isfinite(mine)) and np.all(mine[~fin] < -700.0)
    alpha = rng.uniform(0.3, 3.0, 4)
    pts = rng.dirichlet(np.ones(4), size=5).T
    assert np.allclose(rt.dirichlet_logpdf(pts, alpha), scipy.stats.dirichlet.logpdf(pts, alpha),
                       rtol=1e-13)
    with pytest.raises(ValueError):
        rt.dirichlet_logpdf(np.array([0.5, 0.6]), np.array([1.0, 2.0]))
    a = rng.normal(size=(4, 4)) + 4.0 * np.eye(4)
    for b in (rng.normal(size=4), rng.normal(size=(4, 2))):
        for trans in (0, 1):
            for lower in (False, True):
                for unit in (False, True):
                    want = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower,
                                                         unit_diagonal=unit)
                    assert np.allclose(rt.tri_solve(a, b, trans, lower, unit), want, rtol=1e-13)
    ab = rng.normal(size=(4, 5))
    ab[2] += 5.0                                     # (l, u) = (1, 2): row u is the diagonal
    for b in (rng.normal(size=5), rng.normal(size=(5, 3))):
        assert np.allclose(rt.banded_solve(ab, b, (1, 2)),
                           scipy.linalg.solve_banded((1, 2), ab, b), rtol=1e-12)
    sa, sb, sq = rng.normal(size=(3, 3)), rng.normal(size=(2, 2)) + 3 * np.eye(2), rng.normal(size=(3, 2))
    assert np.allclose(rt.sylvester(sa, sb, sq), scipy.linalg.solve_sylvester(sa, sb, sq),
                       rtol=1e-11)
    for m in (lambda c: c @ c.T + 0.1 * np.eye(5), lambda c: c + 4.0 * np.eye(5),
              lambda c: np.array([[1.0, 2.0], [-3.0, 1.5]])):     # complex eigenvalues
        s = m(rng.normal(size=(5, 5)))
        want = scipy.linalg.sqrtm(s)
        assert np.allclose(rt.sqrtm(s), want, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError):
        rt.sqrtm(np.diag([1.0, -2.0]))                   # complex square root
    for shapes in (((5,), (3,)), ((3,), (5,)), ((4, 5), (2, 3)), ((2, 3), (4, 5))):
        u, w = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
        for code, mode in enumerate(("full", "same", "valid")):
            assert np.allclose(rt.sconv(u, w, code), scipy.signal.convolve(u, w, mode=mode),
                               rtol=1e-13, atol=1e-14)


def test_small_products_compiled_as_loops_equal_numpys():
    """rt.matvec/vecmat/matmat/outer/add_outer, compiled: loops below the BLAS thresholds,
    np.dot above; any strides (a transposed operand), a length-1 operand
    broadcast by add_outer as `+=` does, and shape errors raised."""
    from jitad import _runtime_jit as J
    rng = np.random.default_rng(3)
    for m, k, n in ((3, 4, 5), (10, 10, 10), (40, 30, 20)):
        A, B = rng.normal(size=(m, k)), rng.normal(size=(k, n))
        v, w = rng.normal(size=k), rng.normal(size=m)
        assert np.allclose(J.matvec(A, v), A @ v, rtol=1e-13, atol=1e-13)
        assert np.allclose(J.matvec(A.T.copy().T, v), A @ v, rtol=1e-13, atol=1e-13)
        assert np.allclose(J.vecmat(w, A), w @ A, rtol=1e-13, atol=1e-13)
        assert np.allclose(J.matvec(A.T, w), A.T @ w, rtol=1e-13, atol=1e-13)
        assert np.allclose(J.matmat(A, B), A @ B, rtol=1e-13, atol=1e-13)
        assert np.allclose(J.matmat(B.T, A.T), B.T @ A.T, rtol=1e-13, atol=1e-13)
        assert np.array_equal(J.outer(w, v), np.outer(w, v))
        d = rng.normal(size=(m, k))
        ref = d + np.outer(w, v)
        J.add_outer(d, w, v)
        assert np.allclose(d, ref, rtol=1e-15, atol=1e-15)
        ref = d + np.outer(w[:1], v)
        J.add_outer(d, w[:1], v)
        assert np.allclose(d, ref, rtol=1e-15, atol=1e-15)
    with pytest.raises(ValueError):
        J.matvec(np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError):
        J.add_outer(np.zeros((3, 4)), np.ones(2), np.ones(4))


def test_matrix_product_one_compilation_for_any_layouts():
    """rt.matmat compiled once for C, F (transposed) and strided operands (`runtime.ANY_LAYOUT`),
    and blas.gemm's run-time transpose flags equal NumPy's product for every layout pair, a
    strided operand, float32, complex and empty shapes."""
    import numba
    from jitad import _runtime_jit as J
    from jitad.blas import gemm
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(40, 30)), rng.normal(size=(30, 20))
    product = numba.njit(lambda a, b: J.matmat(a, b))       # compiled code calling the helper
    before = set(J.matmat.compiled_callee.signatures)      # what compiled code calls
    for a in (A, np.asfortranarray(A), A.T.copy().T, rng.normal(size=(80, 30))[::2]):
        for b in (B, B.T.copy().T):
            assert np.allclose(product(a, b), a @ b, rtol=1e-13, atol=1e-13)
    assert len(product.signatures) == 6 and len(set(J.matmat.compiled_callee.signatures) - before) <= 1
    for dt, tol in ((np.float32, 1e-4), (np.complex128, 1e-12)):
        a, b = (A + 1j * A[::-1]).astype(dt), B.astype(dt)
        for x, y in ((a, b), (a.T.copy().T, b), (a, b.T.copy().T)):
            assert np.allclose(gemm(x, y), a @ b, rtol=tol, atol=tol)
    for m, k, n in ((0, 3, 2), (3, 0, 2), (3, 2, 0), (1, 5, 1)):
        a, b = rng.normal(size=(m, k)), rng.normal(size=(k, n))
        assert np.array_equal(gemm(a, b).shape, (m, n)) and np.allclose(gemm(a, b), a @ b)


def test_extreme_adjoint_compiled_equals_its_expression():
    """rt.extreme_adjoint (max/min along an axis: g split among the ties), compiled as loops for
    a matrix of any layout and as its expression for other ranks, equals the Python
    version's array expression exactly, ties and a nan row included."""
    import numba
    from jitad import _runtime_jit as J
    from jitad import runtime as R
    adjoint = numba.njit(lambda g, x, y, axis: J.extreme_adjoint(g, x, y, axis))
    rng = np.random.default_rng(6)
    for shape in ((5, 4), (1, 3), (3, 1)):
        x = rng.integers(0, 3, size=shape).astype(float)          # ties
        for axis in (0, 1, -1, -2):
            for reduce in (np.max, np.min):
                y = reduce(x, axis=axis)
                g = rng.normal(size=y.shape)
                want = R.extreme_adjoint(g, x, y, axis)
                assert np.array_equal(adjoint(g, x, y, axis), want)
                assert np.array_equal(adjoint(g, np.asfortranarray(x), y, axis), want)
    x3 = rng.normal(size=(2, 3, 4))
    y3 = x3.max(axis=1)
    g3 = rng.normal(size=y3.shape)
    assert np.array_equal(adjoint(g3, x3, y3, 1), R.extreme_adjoint(g3, x3, y3, 1))
    xn = np.array([[np.nan, 1.0], [2.0, 1.0]])
    yn = np.array([np.nan, 2.0])
    with np.errstate(all="ignore"):
        assert np.array_equal(adjoint(np.ones(2), xn, yn, 1), R.extreme_adjoint(np.ones(2), xn, yn, 1),
                              equal_nan=True)


def test_axis_helpers_with_a_constant_axis():
    """rt.sum_axis/max_axis/extreme_adjoint are typed with a constant axis as a literal (Numba
    prunes the other axes' loops): each constant axis gives NumPy's values, an axis out of
    range is still the ValueError at run time."""
    import numba
    from jitad import _runtime_jit as J
    from jitad import runtime as R

    @numba.njit
    def by_constant(g0, g1, x):
        return (J.sum_axis(x, 0), J.sum_axis(x, -1), J.max_axis(x, 1), J.max_axis(x, -2),
                J.extreme_adjoint(g0, x, J.max_axis(x, 0)[0], 0),
                J.extreme_adjoint(g1, x, J.max_axis(x, 1)[:, 0], -1))

    @numba.njit
    def out_of_range(x):
        return J.sum_axis(x, 2)
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]])[:, ::-1]       # ties, an 'A' layout
    g0, g1 = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0])
    got = by_constant(g0, g1, x)
    want = (x.sum(0), x.sum(-1), x.max(1)[:, None], x.max(-2)[None, :],
            R.extreme_adjoint(g0, x, x.max(0), 0), R.extreme_adjoint(g1, x, x.max(1), -1))
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    with pytest.raises(ValueError, match="out of bounds"):
        out_of_range(x)


def test_products_added_in_place_equal_numpys():
    """rt.add_matvec/add_vecmat (`d += A @ v` of an adjoint, no temporary), compiled: loops
    below the BLAS threshold, np.dot above, any strides; `+=`'s broadcasting of a length-1
    product into d, and its errors (a d the product does not fit, operands not aligned)."""
    from jitad import _runtime_jit as J
    rng = np.random.default_rng(4)
    for m, k in ((3, 4), (10, 10), (40, 30)):
        A, v, w = rng.normal(size=(m, k)), rng.normal(size=k), rng.normal(size=m)
        for dm, fn, a, b, ref in ((m, J.add_matvec, A, v, A @ v), (k, J.add_vecmat, w, A, w @ A),
                                  (k, J.add_matvec, A.T, w, A.T @ w)):
            d = rng.normal(size=dm)
            want = d + ref
            fn(d, a, b)
            assert np.allclose(d, want, rtol=1e-13, atol=1e-13)
    d = np.zeros(4)
    J.add_matvec(d, np.ones((1, 3)), np.ones(3))         # a length-1 product broadcasts
    assert np.array_equal(d, np.full(4, 3.0))
    with pytest.raises(ValueError):
        J.add_matvec(np.zeros(2), np.ones((3, 4)), np.ones(4))
    with pytest.raises(ValueError):
        J.add_vecmat(np.zeros(4), np.ones(2), np.ones((3, 4)))
