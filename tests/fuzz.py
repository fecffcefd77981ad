"""Differential fuzzer: random programs of jitad's language, checked three ways.

What it takes
-------------
* A seed.  ``generate(seed, size, without)`` builds, from a ``random.Random`` seeded with
  those three alone, one Python module in jitad's supported subset (docs/language.md):
  zero to three helper functions (taking and returning floats, vectors, matrices, vectors
  of loop-dependent length, or a pair of values -- a tuple parameter too, and a keyword-only
  one; later ones may call earlier ones) and
  (with "structs", also helpers taking a dict, ``gd0(p, a)``, record classes -- a NamedTuple
  ``Rec`` with a method, a dataclass ``Par`` -- and ``gq0(p, a)`` reading a record's fields) and
  ``f(x, M, w, n)`` (which may define functions of its own, reading its floats) with ``x``
  a float vector of length ``L``, ``M`` a float ``R x L`` matrix, ``w`` a float and ``n`` an
  int loop bound in ``1..R`` (with "tupleargs", also ``p``, a tuple ``(vector, float)`` or
  ``(vector, (float, float))``, differentiated: its gradient is a tuple, checked leaf by leaf;
  with "called", module helpers ``ge0..2`` that ``f`` calls through ``jitad.grad`` /
  ``jitad.jacfwd``, so such a program imports jitad).  The module also defines
  ``fuzz_args()`` (the arguments, as literals) and ``WRT`` (the differentiated arguments), so a
  program file is self-contained: it reproduces from its text alone.
* A program file.  ``check_file(path)`` imports it (jitad reads source with
  ``inspect.getsource``, so programs always live in real files) and runs

  1. the plain Python function (the reference value);
  2. ``jitad.value_and_grad(f, wrt=WRT)`` (compiled) and the same with ``mode="eager"``;
  3. central finite differences at two step sizes.

  ``backend="python"`` runs the compiled mode's generated source without Numba: the same
  adjoint without a second of compilation per program, for fast screening and minimizing.
* A failing program file.  ``minimize(source, ...)`` deletes statements, unwraps compound
  statements and replaces operations by their operands while the failure keeps its
  signature (class and which mode is wrong), so a reproducer is a few lines.

What it guarantees
------------------
* Every outcome is one of ``ok``, ``refused`` (a ``JitadError`` in both modes), ``disagree``
  (a value, gradient or input array differs beyond tolerance), ``crash`` (any other exception
  in either mode, or a ``JitadError`` in one mode only) or ``skipped`` (the program is not
  checkable at this point: non-finite or huge values, finite differences that disagree across
  step sizes, i.e. a branch decision or kink within a step of the point).
* Compiled and eager gradients are compared with each other regardless of finite differences;
  finite differences decide which mode is wrong when both can be trusted.
* The caller's arrays are compared bit for bit after each gradient call.
* A campaign's summary and each failing program's file name the jitad checkout and commit its
  worker ran (``ran_with``): an editable install may import another checkout than the one a
  program is later checked again with.
* With ``--second`` (``JITAD_FUZZ_SECOND=1``), a program whose gradients are right is also
  checked in forward mode (``jvp``, generated and eager, against the gradient's dot product
  with a seeded direction) and second order (``hvp`` against finite differences of the
  gradient); its failures carry ``jvp``/``hvp`` in their signature.
* The generator is deterministic: the same seed, size and ``without`` give the same text on
  every machine.  ``without`` leaves constructs out (``FEATURES``), to look past an open bug.
* The features added after the first campaigns (``EXTENSIONS``) draw from a second random
  stream, so they leave the first one as it was: ``generate(seed, size, EXTENSIONS)`` is the
  program the seed gave before them (but for its first comment line), and ``generate(seed,
  size)`` is that program with some expressions (and indices) replaced and a few statements
  and recursive helpers added.  "tempview" (writes into views of new arrays) draws from a
  third stream and changes nothing the other two read: ``generate(seed, size)`` is the program
  it gave before "tempview" was written with its statements inserted into ``f`` and their
  float ``tva`` added to ``f``'s result (and now and then an import more).

Invariants of the generated programs (what the generator maintains, not what jitad checks)
------------------------------------------------------------------------------------------
* Every name is assigned before it is read on every path that reads it: a name declared
  inside a block is only read later in that block, or ("zerotrip", "condread") under the test
  that says its assignment ran (`if n > 1:` after `for j in range(n - 1)`, `if ok:` after
  `if ok: y = e`, a flag the loop set).  A variable keeps one kind (float, vector, matrix, or vector
  of loop-dependent length: a ``Shape``, e.g. ``L - i``).  Values of one Shape have one length
  where both are in scope, as the loop variables a Shape reads are not assigned after the
  first statement of their loop body; a vector grown or shrunk in a loop comes into scope
  only after that loop (its Shape is its own ``.shape[0]``).  Every such vector has at least
  one element; a slice of the parts joined into a fixed-size array may be empty.
* Arrays are only written when the function created them (``np.zeros``, ``.copy()``, array
  arithmetic, gathers ``x[[2, 0, 1]]``), never through a view or an alias (a row or slice of a
  new array gets ``.copy()``); arguments are never written.  ("alias": an array is written
  through another name, ``y = u``, only when ``u`` is not read again; a view read after a
  write into its array is meant to be refused.)  A helper never returns a view of
  its argument (a bare name or slice gets ``* 1.0``).
* A ``None`` sentinel (``best = None``) is read only where it surely holds a value: in the
  ``else`` of ``if best is None``, and after its loop under ``if best is not None:``.  A list
  becomes an array by ``hs = np.array(hs)`` only at the function's top level.
* Every index is in bounds: loop variables carry their largest value and are reduced ``% dim``
  when they could exceed it.  Loops run at most a handful of times; ``while`` loops carry a
  counter that is incremented first in the body, so ``continue`` cannot loop forever (a
  ``while True`` loop tests its ``break`` right after that increment).  Index lists written out
  (``S[[0, 2], [1, -1]]``) hold constants within the axis.
* Values stay bounded: each expression carries a magnitude estimate and is squashed
  (``tanh``/``sin``/``atan``) past ``CAP``; a variable updated inside a loop it was declared
  outside of is updated only by bounded forms (``t = tanh(...)``, ``t += tanh(...)``, a convex
  mix, a scale by a factor below one), so nothing grows geometrically; ``log`` and ``sqrt``
  only see ``1 + a*a``, ``exp`` only bounded arguments, divisions only ``1 + a*a``.

Run ``python -m tests.fuzz --help`` for the campaign CLI (``--n``, ``--seed``, ``--size``,
``--jobs``, ``--backend``, ``--without``, ``--out``, ``--show``, ``--check``, ``--minimize``).
``NUMBA_BOUNDSCHECK=1`` is set before Numba can be imported, so tape overruns surface as
``IndexError`` instead of garbage.
"""
from __future__ import annotations

import os

os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")

import argparse  # noqa: E402
import ast  # noqa: E402
import contextlib  # noqa: E402
import importlib.util  # noqa: E402
import inspect  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

L = 4          # length of the vector argument and of every row
R = 3          # rows of the matrix argument; the int argument n is in 1..R
CAP = 30.0     # an expression whose magnitude estimate exceeds CAP is squashed
ARG_BOUND = 1.2  # float arguments are drawn from [-ARG_BOUND, ARG_BOUND]
PARAM_BOUND = 3.0  # helpers assume their float arguments are at most this large

CLASSES = ("ok", "refused", "disagree", "crash", "skipped")

# tolerances (per gradient element; `scale` is max(1, largest |gradient element|))
CE_RTOL, CE_ATOL = 1e-7, 1e-9     # compiled vs eager: the same arithmetic, other order
FD_RTOL, FD_ATOL = 1e-5, 1e-7     # a mode vs finite differences
FD_STEPS = (1e-5, 1e-6)           # relative step sizes; they must agree to 1e-6
VALUE_RTOL = 1e-9                 # compiled/eager value vs the plain Python value
HUGE = 1e8                        # values beyond this are not checked (skipped)

# per size: statements in f, deepest loop nest, statements per block, helper counts to draw
# from, expression depth.  "small" keeps Numba's compile time near a second per program.
# constructs the generator can be told to leave out (--without), e.g. while a bug is open
FEATURES = {
    "leak": "variables of a loop body (and the loop variable) read after the loop",
    "view": "a row read into a new value, then written back, in a loop (y = c * s[k]; s[k] = y)",
    "helpers": "helper functions",
    "while": "data-dependent while loops",
    "rows": "for r in M / enumerate(M) (in a helper: a matrix parameter)",
    "break": "break and continue",
    "return": "early return",
    "lists": "lists built with append (in loops, under ifs) or comprehensions, then stacked, "
             "summed, indexed or iterated",
    "shapes": "vectors whose length changes between loop iterations (x[i:], x[:i + 1], "
              "np.repeat/np.tile/np.pad/np.concatenate of them, arrays grown or shrunk in a "
              "loop, helpers taking them), read by reductions, .shape[0] and loops over their "
              "length, and fixed-size arrays concatenated from parts of loop-dependent sizes "
              "(np.concatenate/np.hstack/np.vstack, axis=1 too)",
    "mhelpers": "helpers taking or returning matrices (cut into a forward and a backward half, "
                "their states on a tape when called in a loop or a branch)",
    "calls": "helpers calling helpers, helpers returning two values (a, b = g(...)), a "
             "helper's argument overwritten after the call or assigned its result",
    "keepdims": "reductions with keepdims=True broadcast back (S - np.max(S, axis=1, "
                "keepdims=True), u - np.mean(u, keepdims=True), .sum(axis=0, keepdims=True))",
    "newaxis": "new axes: outer products and row/column broadcasts (u[:3][:, None] * v[None, :], "
               "S * u[np.newaxis, :], S + np.sum(S, axis=1)[:, None])",
    "select": "np.where(c, a, b), np.clip / .clip, np.minimum / np.maximum of two arrays",
    "scan": "scans, differences and sorts: np.cumsum (axis= too), np.cumprod, np.diff, np.sort",
    "sentinel": "None sentinels: best = None; a loop setting it under `if best is None` (or "
                "`best is None or c`); read after the loop under `if best is not None:`",
    "arrays": "lists of a loop made arrays: np.array(hs) / np.stack(hs, axis=1) reduced or "
              "multiplied, and the rebinding idiom hs = np.array(hs)",
    "whilebreak": "while True (or while on a data test) left by a break on a counter or data "
                  "test at the end of the body",
    "gather": "integer index arrays: x[[2, 0, 0, 1]], S[[0, 2, 1]], S[:, [3, 1, 1, 0]], "
              "S[[0, 2], [1, 3]], x[np.argsort(v)], boolean masks x[x > c] and their counts "
              "np.sum(x > c), writes "
              "u[[0, 2]] = t / += t and np.add.at(u, idx, t)",
    "selfop": "a variable overwritten by a primitive applied to it (t = math.tanh(t), "
              "u = np.maximum(u, e), u = u / (1.0 + np.sum(u * u)), S = np.tanh(S), "
              "t = abs(t) ** 1.5): rules that read the result and the overwritten operand",
    "layout": "transposes, reshapes, flips and rolls, np.einsum, np.trace, np.linalg.norm, "
              "np.prod, np.var (S.T @ u[:3], u.reshape(2, 2).T.ravel(), np.einsum('ij,ij->j', S, "
              "T), np.roll(S, 1, axis=1))",
    "tuples": "tuples as local values: st = (u, t), carried around a loop as a pair "
              "(st = (np.tanh(st[0] * c + e), math.tanh(st[1] + e))), unpacked a, b = st",
    "closure": "functions defined inside f, reading f's floats (their closure) at each call",
    "kwargs": "helpers with a defaulted last parameter (def g0(r, a, s=0.5)), called without "
              "it, with it by position or as s=...",
    "iters": "reversed(range(...)), for r in reversed(M), enumerate(reversed(M)), "
             "for r, q in zip(M, M[::-1]) and for r, t in zip(M, x)",
    "slicewrite": "writes through slices: u[1:3] = e, u[i:] += e, u[::2] = e, S[:, j] = e, "
                  "S[i, 1:3] = e, S[1:] = e, S[:, :2] += e (e a float or an array of the "
                  "slice's shape), and shifts of an array within itself (u[1:] = u[:-1], "
                  "S[:, :-1] = S[:, 1:])",
    "linalg": "np.eye, np.diag, np.triu/np.tril, np.linalg.solve/inv/det of a well-conditioned "
              "matrix (2I + 0.3 tanh(S[:, :3])), np.argmax/np.argmin as indices, np.std, "
              "np.logaddexp, np.hypot and a log-sum-exp",
    # the extensions: drawn from a second random stream (see `EXTENSIONS`)
    "ellipsis": "indices after an ellipsis: S[..., j], S[..., 1:], S[..., ::-1], S[i, ..., ::2]",
    "take": "np.take(a, idx, axis=k) (idx an integer, a list or tuple written out, nested "
            "too; axis=-1), and np.take(a, idx) of the flattened array",
    "builtins": "builtins: sum(...) of a tuple or list written out or of an array, with a start "
                "(by position or start=); max/min of three or four floats; round(t, 1 or 2) "
                "(piecewise constant)",
    "casts": "np.float64(e) of a float, a vector or a matrix",
    "keepmore": "more reductions with keepdims=True broadcast back: np.linalg.norm, np.std, "
                "np.var, np.min, np.prod, .mean, axis=(0, 1), axis=-1",
    "prelude": "NumPy jitad defines by NumPy: np.ptp, np.nansum, np.polyval(p, tanh(e)), "
               "np.interp(e, xp, fp) with xp constant and increasing",
    "norms": "np.linalg.norm(u, ord) with ord 1, 2, 3 or np.inf (by position or ord=), of a "
             "vector or of a matrix's rows or columns (axis=)",
    "packed": "helpers taking a tuple (def g0(p): r, a = p), called with a tuple written out "
              "or another helper's tuple result held by a name (pk = g1(...); g0(pk)); a "
              "helper returning another helper's tuple result (return pk); a tuple result "
              "held, then unpacked (pk = g1(...); t, u = pk)",
    "kwonly": "keyword-only helper parameters (def g0(r, a, *, s=0.5), def g0(r, a, *, s)), "
              "given by keyword",
    "ifexp": "conditional values of arrays: (u if c else v), (S if c else T) with c a test of "
             "floats (chained, and/or), and np.where(c, a, t) with one operand a float variable",
    "special": "math.erf/erfc/atan2/hypot/copysign of floats, scipy.special.expit/logit/erf/"
               "gammaln/xlogy of floats and arrays, scipy.special.logsumexp (axis= too)",
    "powers": "powers with fractional or negative exponents of positive values ((1 + t*t) ** "
              "-1.5, np.power(1 + u*u, 0.5), math.pow) and varying exponents of positive bases "
              "(np.power(1.5 + np.tanh(u), t), 2.0 ** np.tanh(u))",
    "rank3": "rank-3 arrays: np.stack((S, T)) (axis= 0, 1 or 2) reduced along an axis or a pair "
             "(np.sum(..., axis=0), .max(axis=2), axis=(0, 1)), indexed, or times a vector",
    "products": "np.vdot, np.inner, np.kron of small vectors and of matrices, np.outer(...)."
                "ravel(), and np.linspace / np.arange arrays as constant operands",
    "intidx": "integer index arithmetic: i // 2, i - 1 (wrapping to -1), -1 - i, max(i - 1, 0), "
              "min(i + 1, 3), n // 2, min(n, 3)",
    "recursion": "helpers recursing on a depth parameter (def gr0(a, k): if k <= 0 [or a data "
                 "test]: return ...; ... gr0(e, k - 1) ...), once or twice per call, called "
                 "with a constant, n or a loop variable as the depth",
    "keywords": "helper calls with every argument by keyword, out of order (g0(a=t, r=u))",
    "forelse": "for ... else and while ... else: a loop left by a data-dependent break, its "
               "else block updating a float of the function",
    "listaxis": "np.mean/np.sum/np.max/np.min(hs, axis=0) of a list of vectors built in a loop",
    "rowops": "in-place multiplications and divisions of an array's rows, columns, slices and "
              "elements (S[k] *= c, u[i] /= 1 + t*t, S[:, j] *= np.tanh(e)), in a while loop "
              "on a counter too",
    "numloop": "loops of numbers only (what reverse mode checkpoints, jitad/ad/recompute.py): "
               "a while on a counter (with continue and a data-dependent break) or a for, "
               "temporaries of the floats carried, a helper's pair of floats unpacked with `_`, "
               "the carried floats updated by convex mixes",
    "bareret": "a function returning a name its body assigned before (acc = <combination>; "
               "return acc), not a new temporary: the returned variable may be one an adjoint "
               "sweep assigns again",
    "axes": "reductions over axis tuples of a rank-3 stack (np.var/np.std/np.sum/np.mean/np.max "
            "over (0, 2), (-1, 0) ..., keepdims=True reshaped back), np.var/np.std of a matrix "
            "over (0, 1), np.repeat(axis=) of matrices and rank 3, np.trace of rank 3",
    "linalg2": "np.linalg.solve/inv/det/slogdet/cholesky of symmetric positive definite "
               "matrices (P @ P.T + k * np.eye(k), P a k x k block of tanh(S) or of M), "
               "sign, logdet = np.linalg.slogdet(A), matrix norms (ord 2, -2, 'nuc', 'fro', 1, "
               "np.inf) and np.einsum ('ij,ij->', 'i,ij,j->', 'ij,i->j', 'ik,kj->ij')",
    "split": "one part of np.split / np.array_split / np.hsplit at constant points "
             "(np.split(u, 2)[1], np.split(S, [1, 3], axis=1)[0]), joined again",
    "structs": "dicts and records: a dict local (a display or {} then keys, d['c'] += e, read "
               "by key, .values(), .items() loops), a dict given to a helper (def gd0(p, a)); "
               "a NamedTuple (Rec(S, u, t), ._replace, .score method, fields by name and "
               "position) and a dataclass (Par(A=S, r=u), dataclasses.replace) made in f and "
               "given to a helper (def gq0(p, a))",
    "starred": "starred targets: a, *rest = (t, t2, t3), a, *mid, b = (u, t, t2, v), "
               "r, *rs = S (rows), *init, last = np.split(u, 4), first, *_ = g0(...)",
    # fuzz21: control and data structure
    "nest": "loops nested two or three deep: ranges with negative steps, bounds of the enclosing "
            "loop's variable (range(j0 + 1, 4), range(j0, -1, -1), possibly empty), while loops "
            "on a counter and a data test, a convergence loop (while abs(d) > tol and j < K); "
            "guarded break/continue at each level, early returns from inside them (in helpers "
            "too), for/while ... else",
    "zerotrip": "loops that may run zero times (range(n - 1), range(n, 3), range(j0)): a float "
                "assigned before and updated inside, a value assigned only inside (and the loop "
                "variable) read after the loop only where it ran (if n > 1: ..., a flag ran = "
                "True, or a conditional value)",
    "condread": "a name assigned under a bool (ok = c; if ok: y = e) and read under the same "
                "one later (if ok:, if ok and y > c:, (g(y) if ok else c), if not ok: .. else:)",
    "lists2": "lists: appends in a loop nest (under an if too) then np.array/np.stack/sum/np.mean "
              "of the list, a list of arrays indexed by a loop variable (ls[j], ls[-1 - j], "
              "ls[j - 1]), comprehensions with a condition (summed with a start, counted, made "
              "an array; over M's rows), appends until a break",
    "alias": "aliases and in-place updates: y = u then writes through y (u not read again), a row "
             "view read and then its matrix written (the view read after the write now and then: "
             "refused), recurrences writing an array in a loop from its own entries (u[j] = c * "
             "u[j - 1] + ..., S[j] = .. S[j - 1] .., u[j:] += e)",
    "poly": "module helpers whose body takes any rank (gp0(z, a=0.5), gp1(z, a, k=2) with a loop "
            "and an early return, zK, sK = gp2(z, a) returning a pair from inside its loop), "
            "called with floats, vectors and matrices: one helper, several specializations",
    # fuzz22: the language's newer statements and values
    "called": "transformed functions called inside f: jitad.grad(ge0)(u, t), grad(..., wrt=1), "
              "wrt=(0, 1) unpacked, jitad.jacfwd(ge1)(u, t) (a matrix: traced, multiplied, "
              "rows taken), grad(grad(ge2)), a value_and_grad object kept in a global, and "
              "jitad.grad(g0) of the generated helpers taking (vector, float) or two floats",
    "match": "match statements on an int (n, a loop variable, j % 3, n - 1, "
             "int(np.argmax(u))): literal cases, alternatives (1 | 2), guards (case 2 if t > c), "
             "a capture (case other), the wildcard",
    "del": "del of a local: a temporary read and then deleted, a variable of the block deleted "
           "after its last read (in loops too)",
    "tupleargs": "f taking a fifth argument p, a tuple (vector, float) or nested (vector, "
                 "(float, float)), differentiated (WRT holds 4): unpacked (pu, (pt, pq) = p) or "
                 "indexed (p[0], p[-1], p[1])",
    "dicts2": "more dict locals: integer keys per loop step, nested dicts, a swap by display, "
              "loops over keys (for k in d, d.keys() writing d[k]), items tested by key, a dict "
              "carried across a loop with a key updated",
    # fuzz23: the front end's rewrites of in-place and library forms
    "inplace": "NumPy's in-place calls on an array the function created: y.sort() (S.sort(axis="
               "0)), y.fill(t), np.copyto(y, e), out= of a ufunc (np.tanh(e, out=y), "
               "np.multiply(y, c, out=y), np.add(c * y, np.tanh(e), out=y)) or of a reduction "
               "(np.mean(S, axis=0, out=u)), z = np.add(..., out=y) (z then y's buffer)",
    "listedit": "lists edited in place: pop() / pop(0) / pop(1) (the value used or dropped), "
                "insert(k, e), reverse(), sort() of floats, then slices ls[1:], ls[:-1], "
                "ls[::-1] summed or stacked",
    "nonlocal": "functions defined in f updating a counter and an accumulator of f's by "
                "nonlocal, called as a statement, as a value, in an augmented assignment and "
                "in a loop",
    "callforms": "np.piecewise(u, [conditions], [lambdas or numbers]) (an otherwise function "
                 "too) and functools.reduce(lambda / operator.add / operator.mul, [...], init)",
    "ufuncred": "ufunc methods: np.add/multiply/maximum/minimum.reduce (axis= too) and "
                ".accumulate of vectors and matrices",
    # fuzz24: the write rules on views of new arrays
    "tempview": "writes into a view of a new array nothing else names: a row of a matrix "
                "expression (tv = np.tanh(S * t)[i]), a vector expression reshaped (e.reshape("
                "2, 2)), a transpose ((S * c).T), a slice, reshape or reversal of an array a "
                "loop just filled (u = np.zeros(4); for j in range(4): u[j] = ...), then the "
                "view written (an element, a row, +=) and read",
}

# Features added after the first campaigns ("extensions") draw every decision from a second
# random stream (`_Gen.ext`), never from the first: the first stream -- the old features'
# every draw -- is the one it was, so `generate(seed, size, EXTENSIONS)` is, but for its first
# comment line, the program the seed gave before the extensions were written, and with them
# the same program with some expressions (and a few statements) replaced or added.  An
# extension's expression is drawn where an old one was (that one is drawn and dropped) and
# reports the dropped one's magnitude estimate to the first stream, being squashed within
# max(that, 1.6) itself.
EXTENSIONS = ("ellipsis", "take", "builtins", "casts", "keepmore", "prelude", "norms",
              "packed", "kwonly", "ifexp", "special", "powers", "rank3", "products", "intidx",
              "recursion", "keywords", "forelse", "rowops", "listaxis", "numloop", "bareret",
              "axes", "linalg2", "split", "structs", "starred", "nest", "zerotrip", "condread",
              "lists2", "alias", "poly", "called", "match", "del", "dicts2",
              "tupleargs", "inplace", "listedit", "nonlocal", "callforms", "ufuncred",
              "tempview")
EXPR_EXTENSIONS = ("ellipsis", "take", "builtins", "casts", "keepmore", "prelude", "norms",
                   "ifexp", "special", "powers", "rank3", "products", "recursion", "axes",
                   "linalg2", "split", "poly", "called", "ufuncred")
EXT_RATE = 0.07    # the share of expressions an extension's construct replaces
# extensions that add a statement (`_Gen.ext_stmt`): drawn, before a statement of the first
# stream, at this rate per statement; that statement is generated as it was
STMT_EXTENSIONS = ("forelse", "rowops", "recursion", "numloop", "structs", "starred",
                   "linalg2", "nest", "zerotrip", "condread", "lists2", "alias", "poly",
                   "called", "match", "del", "dicts2", "inplace", "listedit", "nonlocal",
                   "callforms")
STMT_EXT_RATE = 0.14
# "tempview" (fuzz24) draws from a third stream (`_Gen.third`) and changes no state the other
# two read: its statements are inserted into the program the seed gave without it, their
# values added to f's result by a float `tva` of its own (`_Gen.tvs`)
TEMPVIEW_RATE = 0.06
INDEX_EXT_RATE = 0.15  # the share of indices "intidx" rewrites
# an extension left out with the features it adds forms to
REFINES = {"keepmore": ("keepdims",), "linalg2": ("linalg",), "axes": ("rank3",),
           "nest": ("break",), "lists2": ("lists",), "alias": ("view",),
           "listedit": ("lists",), "nonlocal": ("closure",), "tempview": ("layout",)}

SIZES = {
    "small": dict(stmts=(2, 4), loops=2, block=(1, 1, 2), helpers=(0, 0, 0, 0, 1), depth=2,
                  matmul=0.1),
    "normal": dict(stmts=(5, 12), loops=3, block=(1, 2, 2, 3), helpers=(0, 0, 1, 1, 2), depth=3,
                   matmul=1.0),
    "large": dict(stmts=(12, 24), loops=3, block=(1, 2, 3, 4), helpers=(0, 1, 2, 2), depth=3,
                  matmul=1.0),
}

# ----------------------------------------------------------------------------------------------
# generator
# ----------------------------------------------------------------------------------------------


@dataclass
class Var:
    name: str
    kind: str          # "f" float, "v" vector (L,), "m" matrix (R, L), "s" vector (shape,)
    bound: float       # magnitude estimate of its elements
    owned: bool        # an array the function created: it may be written
    level: int         # loop depth where it was declared
    guards: int = 0    # break/continue/return statements emitted before its declaration
    shape: Shape | None = None   # kind "s" (a vector of loop-dependent length): its length


@dataclass
class IntVar:
    name: str
    hi: int            # largest value it takes
    over: str = ""     # `for k in range(p.shape[0])`: the vector p whose positions it runs over


@dataclass(frozen=True)
class Shape:
    """The length of a vector that may change between loop iterations ("shapes"): `form` says
    how its values are built from vectors of length L, `c` and `d` are int expressions in
    0..L-1 (of loop variables, `n - 1` or constants) and `names` the loop variables they read.
    Two values of one Shape have one length wherever both are in scope: loop variables are
    not assigned in a loop body after its first statement."""
    form: str          # "tail" (L - c), "head" (c + 1), "rep", "tile", "pad", "cat", "like"
    c: str
    d: str = ""
    names: tuple = ()

    def length(self) -> str:
        c, d = _paren(self.c), _paren(self.d)
        return {"tail": f"{L} - {c}", "head": f"{c} + 1", "rep": f"2 * ({L} - {c})",
                "tile": f"2 * ({c} + 1)", "pad": f"{L} - {c} + 3",
                "cat": f"{L} - {c} + {d} + 1", "like": f"{self.c}.shape[0]"}[self.form]

    def max_len(self) -> int:
        return {"tail": L, "head": L, "pad": L + 3}.get(self.form, 2 * L)


@dataclass
class Helper:
    name: str
    params: tuple      # kinds of the parameters
    ret: object        # kind of the result, or a tuple of kinds (the helper returns a tuple)
    bound: float
    kw: str = ""       # the default of a last float parameter `s` ("kwargs"), or ""
    kwonly: str = ""   # "default": `*, s=0.5`; "required": `*, s` (given at every call)
    packed: str = ""   # how a helper taking one tuple `p` reads it: "unpack" or "index"
    names: tuple = ()  # its parameters' names (a call may give them by keyword: "keywords")
    depth: bool = False   # a last int parameter `k`, its recursion depth ("recursion")


@dataclass
class Program:
    seed: int
    size: str
    source: str


def _fmt(c: float) -> str:
    return repr(float(c))


def _strip(e: str) -> str:
    """Drop one pair of outer parentheses when they enclose the whole expression."""
    if not (e.startswith("(") and e.endswith(")")):
        return e
    depth = 0
    for k, ch in enumerate(e):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(e) - 1:
            return e
    return e[1:-1]


def _paren(e: str) -> str:
    """`e` ready to be an operand of `+`/`-`: compound int expressions get parentheses."""
    return e if re.fullmatch(r"\w+", e) else f"({e})"


def _operand(e: str) -> str:
    """`e` ready to be indexed or to take a method: a name, a call or a subscript chain as it
    is, anything else in parentheses."""
    if re.fullmatch(r"[\w.]+(\[[^\[\]]*\])*", e) or re.fullmatch(r"[\w.]+\(.*\)", e) \
            and _strip(f"({e[e.index('(') + 1:-1]})") == e[e.index("(") + 1:-1]:
        return e
    return f"({_strip(e)})"


def _fresh_array(kind: str, e: str) -> str:
    """`e` as a new array: a bare name, row or slice of an array gets `.copy()` (never alias)."""
    if kind != "f" and re.fullmatch(r"[A-Za-z_]\w*(\[[^\[\]]*\])*", e):
        return f"{e}.copy()"
    node = ast.parse(e, mode="eval").body
    if kind != "f" and isinstance(node, ast.IfExp) and any(
            _fresh_array(kind, ast.unparse(arm)) != ast.unparse(arm)
            for arm in (node.body, node.orelse)):
        return f"{_operand(e)}.copy()"   # ("ifexp") either arm may be a view or an argument
    if kind != "f" and isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.List):
        return f"{e}.copy()"         # a row or slice of a new array is still a view: jitad
    func = node.func if isinstance(node, ast.Call) else None   # refuses writes into it
    views = ("ravel", "reshape", "transpose", "flip", "fliplr", "flipud", "diag")
    if kind != "f" and (isinstance(node, ast.Attribute) and node.attr == "T"
                        or isinstance(func, ast.Attribute) and func.attr in views):
        return f"{e}.copy()"         # a transpose, reshape or flip may be a view too (and
        #                              np.diag of a matrix is a read-only view)
    if kind != "f" and isinstance(func, ast.Attribute) and func.attr == "float64" \
            and len(node.args) == 1:
        inner = ast.unparse(node.args[0])
        if _fresh_array(kind, inner) != inner:
            return f"{e}.copy()"     # np.float64 of a float array is that array itself
    return e


class _Gen:
    """One function body at a time; `lines` collects the module text."""

    def __init__(self, rng: random.Random, helpers: list[Helper], cfg: dict,
                 without: frozenset = frozenset(), ext: random.Random | None = None):
        self.rng = rng
        self.ext = ext or random.Random(0)    # the extensions' stream (`EXTENSIONS`)
        self.third: random.Random | None = None   # "tempview"'s stream (`e_tempview`)
        self.tv_names = itertools.count()
        self.tvs: list[str] = []              # f's float of "tempview", added to its result
        self.ext_names = itertools.count()    # their names (pk0, ...): the first stream's
        #                                       names stay as they were
        self.cfg = cfg
        self.without = without
        self.helpers = helpers
        self.lines: list[str] = []
        self.indent = 1
        self.scopes: list[dict[str, Var | IntVar]] = [{}]
        self.trips: list[int] = []       # largest trip count of each enclosing loop
        self.counter = itertools.count()
        self.budget = 0
        self.in_helper = False
        self.param_names: set[str] = set()   # the current function's parameters
        self.kept: list[str] = []            # floats a "numloop" left for the return alone
        self.rows: list[str] = []         # `for r in M` row variables in scope (views of M)
        self.recs: list[Helper] = []      # helpers recursing on a depth ("recursion")
        self.dhelpers: list[str] = []     # helpers taking a dict ("structs")
        self.records: list[str] = []      # record classes defined ("structs")
        self.guards = 0                   # break/continue/return statements emitted so far
        self.polys = False                # the rank-polymorphic module helpers gp0..2 ("poly")
        self.called = False               # the module helpers ge0..2 transformed ("called")
        self.tuplearg = ""                # f's fifth argument p: "flat" (u, t) or "nested"
        #                                   (u, (t, t2)) ("tupleargs")
        self.cur_ret = None               # the kind(s) the helper being written returns
        self.early_bound = 0.0            # the magnitude estimate of its early returns ("nest")

    # -- bookkeeping ----------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self.counter)}"

    def _visible(self) -> list:
        seen: dict = {}
        for scope in self.scopes:
            seen.update(scope)
        return list(seen.values())

    def vars(self, kind: str | None = None, owned: bool | None = None) -> list[Var]:
        """Float, vector and matrix variables in scope."""
        return [v for v in self._visible() if isinstance(v, Var)
                and (kind is None or v.kind == kind) and (owned is None or v.owned == owned)]

    @property
    def ints(self) -> list[IntVar]:
        """Int loop variables in scope."""
        return [v for v in self._visible() if isinstance(v, IntVar)]

    def declare(self, name, kind, bound, owned=False, shape=None) -> Var:
        v = Var(name, kind, bound, owned, len(self.trips), self.guards, shape)
        self.scopes[-1][name] = v
        return v

    def mult(self, v: Var) -> int:
        """How many times a statement here can run per run of v's declaring block."""
        return math.prod(self.trips[v.level:]) if len(self.trips) > v.level else 1

    def carried(self, v: Var) -> bool:
        return v.level < len(self.trips)

    def pick(self, options):
        """options: list of (weight, value); zero weights are dropped."""
        options = [(w, o) for w, o in options if w > 0]
        total = sum(w for w, _ in options)
        r = self.rng.random() * total
        for w, o in options:
            r -= w
            if r <= 0:
                return o
        return options[-1][1]

    def const(self, lo=-1.0, hi=1.0) -> str:
        return _fmt(round(self.rng.uniform(lo, hi), 2))

    # -- indices ----------------------------------------------------------------------------------
    def index(self, dim: int) -> str:
        rng = self.rng
        opts = [(2, lambda: str(rng.randrange(dim))), (0.3, lambda: "-1")]
        if not self.in_helper:
            opts.append((0.7, lambda: "n - 1"))
        for iv in self.ints:
            if iv.hi < 0:
                continue
            if iv.hi < dim:
                opts.append((4, lambda iv=iv: iv.name))
                opts.append((0.7, lambda iv=iv: f"{dim - 1} - {iv.name}"))
            else:
                opts.append((3, lambda iv=iv: f"{iv.name} % {dim}"))
            opts.append((1, lambda iv=iv: f"({iv.name} + 1) % {dim}"))
            opts.append((0.7, lambda iv=iv: f"(2 * {iv.name}) % {dim}"))
        if len(self.ints) >= 2:
            a, b = rng.sample(self.ints, 2)
            opts.append((1, lambda: f"({a.name} + {b.name}) % {dim}"))
        got = self.pick(opts)()
        if self.on("intidx") and self.ext.random() < INDEX_EXT_RATE:
            with self.drawing_ext():
                return self.x_index(dim) or got
        return got

    def x_index(self, dim: int) -> str | None:
        """An index into an axis of length dim by integer arithmetic ("intidx"): floor
        division, a step back wrapping to -1, min/max clamps (None: no form applies here)."""
        opts = []
        for iv in self.ints:
            if iv.hi < 0:
                continue
            i = iv.name
            if iv.hi < dim:
                opts += [(2, f"{i} - 1"), (1, f"-1 - {i}"), (1.5, f"max({i} - 1, 0)"),
                         (1.5, f"min({i} + 1, {dim - 1})"), (1.5, f"{i} // 2"),
                         (1, f"({i} + 1) // 2")]
            else:
                opts += [(1.5, f"{i} // 2 % {dim}"), (1.5, f"min({i}, {dim - 1})"),
                         (1, f"{i} % {dim} - 1")]
        if not self.in_helper:      # n is in 1..R, R <= dim
            opts += [(1, "n // 2"), (1, f"min(n, {dim - 1})"), (0.5, "max(n - 2, 0)"),
                     (0.5, "(n - 1) // 2")]
        return self.pick(opts) if opts else None

    # -- expressions: each returns (text, magnitude estimate) ---------------------------------
    def squash(self, kind: str, e: str, b: float, force=False) -> tuple[str, float]:
        if b <= CAP and not force:
            return e, b
        e = _strip(e)
        if kind == "f":
            fn = self.pick([(3, "math.tanh"), (1, "math.sin"), (1, "math.atan")])
        else:
            fn = self.pick([(3, "np.tanh"), (1, "np.sin"), (1, "np.arctan")])
        return f"{fn}({e})", (1.6 if "atan" in fn else 1.0)

    def leaf(self, kind: str) -> tuple[str, float]:
        if kind == "f":
            opts = [(2, lambda: (self.const(-2, 2), 2.0))]
            for v in self.vars("f"):
                opts.append((3, lambda v=v: (v.name, v.bound)))
            for v in self.vars("v"):
                opts.append((1.5, lambda v=v: (f"{v.name}[{self.index(L)}]", v.bound)))
            for v in self.vars("m"):
                opts.append((1.5, lambda v=v: (f"{v.name}[{self.index(R)}, {self.index(L)}]",
                                               v.bound)))
                opts.append((0.3, lambda v=v: (f"{v.name}[{self.index(R)}][{self.index(L)}]",
                                               v.bound)))
            for r in self.rows:
                opts.append((1.5, lambda r=r: (f"{r}[{self.index(L)}]", ARG_BOUND)))
            for iv in self.ints:
                opts.append((0.4, lambda iv=iv: (f"float({iv.name})", float(max(iv.hi, 1)))))
            for v in self.vars("s"):
                opts.append((0.7, lambda v=v: (f"{v.name}[{self.rng.choice(('0', '-1'))}]",
                                               v.bound)))
                opts.append((0.3, lambda v=v: (f"float({v.name}.shape[0])",
                                               float(v.shape.max_len()))))
            names = {v.name: v for v in self.vars("s")}
            for iv in self.ints:
                if iv.over in names:
                    opts.append((3, lambda iv=iv: (f"{iv.over}[{iv.name}]",
                                                   names[iv.over].bound)))
            return self.pick(opts)()
        if kind == "v":
            opts = []
            for v in self.vars("v"):
                opts.append((3, lambda v=v: (v.name, v.bound)))
                opts.append((0.2, lambda v=v: (f"{v.name}[::-1]", v.bound)))
            for v in self.vars("m"):
                opts.append((2, lambda v=v: (f"{v.name}[{self.index(R)}]", v.bound)))
            for r in self.rows:
                opts.append((2, lambda r=r: (r, ARG_BOUND)))
            if not opts:
                opts.append((1, lambda: (f"np.ones({L})", 1.0)))
            return self.pick(opts)()
        opts = [(1, lambda v=v: (v.name, v.bound)) for v in self.vars("m")]
        if not opts:
            opts.append((1, lambda: (f"np.ones(({R}, {L}))", 1.0)))
        return self.pick(opts)()

    def expr(self, kind: str, depth: int, shape: Shape | None = None) -> tuple[str, float]:
        if kind == "s":
            return self.sexpr(shape, depth)
        if depth <= 0 or self.rng.random() < 0.25:
            got = self.leaf(kind)
        else:
            got = {"f": self.fexpr, "v": self.vexpr, "m": self.mexpr}[kind](depth)
        return self.extended(kind, depth, got)

    # -- the extensions: a second random stream (`EXTENSIONS`) --------------------------------
    @contextlib.contextmanager
    def drawing_ext(self):
        """Every draw inside from the extensions' stream (`self.rng` is it meanwhile)."""
        main, self.rng = self.rng, self.ext
        try:
            yield
        finally:
            self.rng = main

    def extended(self, kind: str, depth: int, got: tuple[str, float]) -> tuple[str, float]:
        """`got` (drawn from the first stream), or now and then an extension's construct of
        the same kind in its place, drawn from the second (see `EXTENSIONS`)."""
        feats = [ft for ft in EXPR_EXTENSIONS if self.on_ext(ft)]
        if not feats or self.ext.random() >= EXT_RATE * (1.0 if depth > 0 else 0.5):
            return got
        with self.drawing_ext():
            order = self.rng.sample(feats, len(feats))
            for ft in order:           # the first feature with a form of this kind
                made = getattr(self, f"x_{ft}")(kind, max(depth - 1, 0))
                if made is not None:
                    e, b = made
                    if b > max(got[1], 1.0):
                        e, _ = self.squash(kind, e, b, force=True)
                    return e, got[1]
        return got

    def x_ellipsis(self, kind: str, d: int):
        (m, bm), (m2, bm2), (a, ba) = (self.operand("m", d), self.operand("m", d),
                                       self.operand("v", d))
        j, i, c = self.index(L), self.index(R), self.rng.randrange(L)
        return self.pick({
            "f": [(2, (f"np.dot({m}[..., {j}], {a}[:{R}])", R * bm * ba)),
                  (1, (f"np.sum({m}[..., 1:] ** 2)", R * (L - 1) * bm * bm)),
                  (1, (f"np.sum({m}[{i}, ..., ::2])", 2 * bm))],
            "v": [(2, (f"({m}[..., {j}] @ {m2})", R * bm * bm2)),
                  (1, (f"np.concatenate(({m}[..., {j}], {a}[:{L - R}]))", max(bm, ba))),
                  (1, (f"{m}[..., ::-1][{i}]", bm))],
            "m": [(2, (f"{m}[..., ::-1]", bm)),
                  (1, (f"np.concatenate(({m}[..., 1:], {m2}[..., :1]), axis=1)", max(bm, bm2))),
                  (1, (f"({m}[..., {c}:{c + 1}] * {m2})", bm * bm2))],
        }[kind])

    def int_seq(self, k: int, dim: int, nested=False) -> str:
        """k constant indices into an axis of length dim, written out as a list or a tuple
        (`nested`: a list of two such lists, as np.take reads an index array of rank 2)."""
        if nested:
            return f"[{self.int_list(k, dim)}, {self.int_list(k, dim)}]"
        got = self.int_list(k, dim)
        if self.rng.random() < 0.4:
            got = f"({got[1:-1]}{',' if k == 1 else ''})"
        return got

    def x_take(self, kind: str, d: int):
        (m, bm), (a, ba) = self.operand("m", d), self.operand("v", d)
        sm, sa = _strip(m), _strip(a)
        if kind == "f":
            return self.pick([
                (1, (f"np.take({sa}, {self.rng.randrange(-L, L)})", ba)),
                (1, (f"np.sum(np.take({sm}, {self.int_seq(2, R)}, axis=0))", 2 * L * bm)),
                (1, (f"np.sum(np.take({sm}, {self.int_seq(2, L, nested=True)}, axis=1))",
                     4 * R * bm)),
                (1, (f"np.sum(np.take({sa}, {self.int_seq(3, L)}))", 3 * ba))])
        if kind == "v":
            return self.pick([
                (2, (f"np.take({sa}, {self.int_seq(L, L)})", ba)),
                (2, (f"np.take({sm}, {self.index(R)}, axis=0)", bm)),
                (1, (f"np.take({sm}, {self.int_seq(L, L)}, axis=1)[{self.index(R)}]", bm)),
                (1, (f"np.take({sm}, {self.int_seq(L, R * L)})", bm))])
        return self.pick([
            (2, (f"np.take({sm}, {self.int_seq(R, R)}, axis=0)", bm)),
            (1, (f"np.take({sm}, {self.int_seq(L, L)}, axis=-1)", bm)),
            (1, (f"np.take({sm}, {self.int_seq(L, L)}, 1)", bm))])

    def x_builtins(self, kind: str, d: int):
        dd = min(d, 1)
        if kind == "f":
            (t1, b1), (t2, b2), (t3, b3) = (self.expr("f", dd) for _ in range(3))
            t1, t2, t3 = _strip(t1), _strip(t2), _strip(t3)
            a, ba = self.operand("v", d)
            fn = self.rng.choice(("max", "min"))
            return self.pick([
                (2, (f"sum(({t1}, {t2}, {t3}), {self.const()})", b1 + b2 + b3 + 1.0)),
                (1, (f"sum([{t1}, {t2}], start={t3})", b1 + b2 + b3)),
                (1, (f"sum({_strip(a)}, {t1})", L * ba + b1)),
                (2, (f"{fn}({t1}, {t2}, {t3})", max(b1, b2, b3))),
                (1, (f"{fn}({t1}, {t2}, {t3}, {self.const()})", max(b1, b2, b3, 1.0))),
                (1, (f"round({t1}, {self.pick([(3, 1), (1, 2)])})", b1 + 0.05))])
        if kind == "v":
            (a, ba), (b, bb), (m, bm) = (self.operand("v", d), self.operand("v", d),
                                         self.operand("m", d))
            return self.pick([
                (2, (f"sum(({_strip(a)}, {_strip(b)}), {self.const()})", ba + bb + 1.0)),
                (1, (f"sum([{_strip(a)}, {_strip(b)}, {_strip(a)}], np.zeros({L}))",
                     2 * ba + bb)),
                (1, (f"sum({_strip(m)}, {_strip(a)})", R * bm + ba))])
        return None

    def x_casts(self, kind: str, d: int):
        e, b = self.expr(kind, min(d, 1))
        return f"np.float64({_strip(e)})", b

    def x_keepmore(self, kind: str, d: int):
        ax = self.rng.choice((0, 1, -1))
        if kind == "v":
            a, ba = self.operand("v", d)
            sa = _strip(a)
            return self.pick([
                (2, (f"({a} / (1.0 + np.linalg.norm({sa}, keepdims=True)))", ba)),
                (1, (f"({a} - {a}.min(keepdims=True))", 2 * ba)),
                (1, (f"({a} * np.prod(1.0 + 0.1 * np.tanh({sa}), keepdims=True))", 1.5 * ba)),
                (1, (f"({a} / (1.0 + np.std({sa}, keepdims=True)))", ba))])
        (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
        sm, sm2 = _strip(m), _strip(m2)
        if kind == "f":
            return self.pick([
                (1, (f"np.sum(np.max({sm}, axis={ax}, keepdims=True) * {m2})", R * L * bm * bm2)),
                (1, (f"np.sum({m} - np.min({sm}, axis=(0, 1), keepdims=True))", 2 * R * L * bm))])
        return self.pick([
            (2, (f"({m} / (1.0 + np.linalg.norm({sm}, axis={ax}, keepdims=True)))", bm)),
            (1, (f"({m} - {m}.mean(axis={ax}, keepdims=True))", 2 * bm)),
            (1, (f"({m} * np.min({sm2}, axis={ax}, keepdims=True))", bm * bm2)),
            (1, (f"({m} / (1.0 + np.std({sm}, axis={ax}, keepdims=True)))", bm)),
            (1, (f"({m} * np.var({sm}, axis={ax}, keepdims=True))", bm * bm * bm)),
            (1, (f"({m} - np.max({sm}, axis=(0, 1), keepdims=True))", 2 * bm)),
            (1, (f"(np.sum({sm}, axis=-1, keepdims=True) * {m2})", L * bm * bm2))])

    def x_prelude(self, kind: str, d: int):
        xp, n = self.pick([(2, ("np.array([-1.0, -0.2, 0.3, 1.1])", L)),
                           (1, (f"np.linspace(-1.0, 1.0, {L})", L)),
                           (1, ("np.array([-0.5, 0.0, 0.5])", 3))])
        (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
        sa, sb = _strip(a), _strip(b)
        fp = sb if n == L else f"{b}[:{n}]"
        if kind == "f":
            (m, bm), (t, bt) = self.operand("m", d), self.expr("f", min(d, 1))
            return self.pick([
                (1, (f"np.ptp({sa})", 2 * ba)), (1, (f"np.ptp({_strip(m)})", 2 * bm)),
                (1, (f"np.nansum({sa})", L * ba)), (1, (f"np.nansum({_strip(m)})", R * L * bm)),
                (1, (f"np.polyval({sa}, math.tanh({_strip(t)}))", L * ba)),
                (1, (f"np.interp({_strip(t)}, {xp}, {fp})", bb))])
        if kind == "v":
            return self.pick([
                (2, (f"np.interp({sa}, {xp}, {fp})", bb)),
                (1, (f"np.polyval({b}[:3], np.tanh({sa}))", 3 * bb))])
        return None

    def x_norms(self, kind: str, d: int):
        o = self.rng.choice(("1", "2", "3", "np.inf"))
        o = f"ord={o}" if self.rng.random() < 0.3 else o
        if kind == "f":
            (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
            return self.pick([
                (2, (f"np.linalg.norm({_strip(a)}, {o})", L * ba)),
                (1, (f"np.sum(np.linalg.norm({_strip(m)}, {o}, axis={self.rng.choice((0, 1))}))",
                     R * L * bm))])
        if kind == "v":
            m, bm = self.operand("m", d)
            return f"np.linalg.norm({_strip(m)}, {o}, axis=0)", R * bm
        return None

    def x_ifexp(self, kind: str, d: int):
        if kind == "f":
            return None                  # (the first stream writes float ones)
        (a, ba), (b, bb) = self.operand(kind, d), self.operand(kind, d)
        t, bt = self.leaf("f")
        c = self.const(-0.5, 0.5)
        sel = self.on("select")         # (np.where is "select"'s)
        return self.pick([
            (3, (f"({_strip(a)} if {self.cond(2)} else {_strip(b)})", max(ba, bb))),
            (sel, (f"np.where({a} > {c}, {a}, {t})", max(ba, bt))),
            (sel, (f"np.where({b} < {a}, {t}, {b})", max(bb, bt)))])

    def x_special(self, kind: str, d: int):
        sp = "scipy.special"
        if kind == "f":
            (t, bt), (s, bs) = self.operand("f", d), self.operand("f", d)
            st = _strip(t)
            a, ba = self.operand("v", d)
            return self.pick([
                (1, (f"math.erf({st})", 1.0)), (1, (f"math.erfc({st})", 2.0)),
                (1, (f"math.atan2({st}, 1.0 + {s} * {s})", 1.6)),
                (0.5, (f"math.atan2({st}, {_strip(s)})", 3.2)),
                (1, (f"math.hypot({st}, {_strip(s)})", bt + bs)),
                (1, (f"math.copysign({st}, {_strip(s)})", bt)),
                (1, (f"{sp}.expit({st})", 1.0)),
                (1, (f"{sp}.logit(0.5 + 0.4 * math.tanh({st}))", 2.2)),
                (1, (f"{sp}.erf({st})", 1.0)),
                (1, (f"{sp}.gammaln(2.0 + 1.5 * math.tanh({st}))", 1.3)),
                (1, (f"{sp}.xlogy({st}, 1.0 + {s} * {s})", bt * math.log1p(bs * bs))),
                (1, (f"{sp}.logsumexp({_strip(a)})", ba + math.log(L)))])
        (a, ba), (b, bb) = self.operand(kind, d), self.operand(kind, d)
        sa = _strip(a)
        opts = [(2, (f"{sp}.expit({sa})", 1.0)), (1, (f"{sp}.erf({sa})", 1.0)),
                (1, (f"{sp}.logit(0.5 + 0.4 * np.tanh({sa}))", 2.2)),
                (1, (f"{sp}.gammaln(2.0 + np.tanh({sa}))", 0.7)),
                (1, (f"{sp}.xlogy({sa}, 1.0 + {b} * {b})", ba * math.log1p(bb * bb)))]
        if kind == "v":
            m, bm = self.operand("m", d)
            opts.append((1, (f"{sp}.logsumexp({_strip(m)}, axis=0)", bm + math.log(R))))
        elif self.on("keepdims"):
            opts.append((1, (f"({a} - {sp}.logsumexp({sa}, axis={self.rng.choice((0, 1))}"
                             f", keepdims=True))", 2 * ba + math.log(L))))
        return self.pick(opts)

    def x_powers(self, kind: str, d: int):
        e = self.pick([(2, "0.5"), (2, "-0.5"), (1, "-1.5"), (1, "1.5"), (1, "0.3"), (1, "-1.0")])
        (a, ba), (t, bt) = self.operand(kind, d), self.operand("f", d)
        sa = _strip(a)
        pos = (1.0 + ba * ba) ** max(float(e), 0.0)        # a power of 1 + a*a
        if kind == "f":
            return self.pick([
                (2, (f"(1.0 + {a} * {a}) ** {e}", pos)),
                (1, (f"math.pow(1.0 + {a} * {a}, {e})", pos)),
                (1, (f"np.power(1.0 + {a} * {a}, {e})", pos)),
                (1, (f"(1.5 + math.tanh({sa})) ** math.tanh({_strip(t)})", 2.5)),
                (1, (f"(2.0 + math.sin({sa})) ** {e}", 3.0 ** max(float(e), 0.0) * 1.0 + 1.0)),
                (0.5, (f"2.0 ** math.tanh({sa})", 2.0))])
        tanh = f"np.tanh({_strip(t)})" if self.rng.random() < 0.5 else f"math.tanh({_strip(t)})"
        return self.pick([
            (2, (f"np.power(1.0 + {a} * {a}, {e})", pos)),
            (1, (f"(1.0 + {a} * {a}) ** {e}", pos)),
            (1, (f"np.power(1.5 + np.tanh({sa}), {tanh})", 2.5)),
            (1, (f"(1.5 + np.tanh({sa})) ** {tanh}", 2.5)),
            (1, (f"(2.0 ** np.tanh({sa}))", 2.0))])

    def x_rank3(self, kind: str, d: int):
        (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
        sm, sm2 = _strip(m), _strip(m2)
        two = f"({sm}, {sm2})"
        b2 = max(bm, bm2)
        ax = self.rng.choice((0, 1, 2))
        # a reduction of np.stack(two, axis=ax) over that axis gives an R x L matrix
        red = self.pick([(2, "sum"), (1, "mean"), (1, "max"), (1, "min")])
        if kind == "m":
            return self.pick([
                (3, (f"np.{red}(np.stack({two}, axis={ax}), axis={ax})", 2 * b2)),
                (1, (f"np.stack({two})[1]", bm2)),
                (1, (f"np.stack({two}, axis=2)[:, :, 0]", bm)),
                (1, (f"np.prod(np.stack(({sm}, 1.0 + 0.1 * np.tanh({sm2}))), axis=0)", 1.1 * bm)),
                (1, (f"np.array({two}).sum(axis=0)", 2 * b2))])
        if kind == "v":
            return self.pick([
                (2, (f"np.sum(np.stack({two}, axis=1), axis=(0, 1))", 2 * R * b2)),
                (1, (f"np.stack({two})[{self.rng.randrange(2)}, {self.index(R)}]", b2)),
                (1, (f"np.mean(np.stack({two}), axis=(0, 1))", b2)),
                (1, (f"np.stack({two}, axis=2).{red}(axis=2)[{self.index(R)}]", 2 * b2))])
        a, ba = self.operand("v", d)
        return self.pick([
            (2, (f"np.sum(np.stack({two}) ** 2)", 2 * R * L * b2 * b2)),
            (1, (f"np.sum(np.tanh(np.stack({two}) @ {a}))", 2 * R)),
            (1, (f"np.sum(np.max(np.stack({two}, axis={ax}), axis=({ax}, {(ax + 1) % 3})))",
                 2 * L * b2))])

    def x_products(self, kind: str, d: int):
        (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
        sa, sb = _strip(a), _strip(b)
        lin = self.pick([(1, f"np.linspace(-1.0, 1.0, {L})"), (1, f"np.arange({L}) * 0.25"),
                         (1, f"np.arange(1.0, {L + 1}.0) / {L}")])
        if kind == "f":
            (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
            return self.pick([
                (2, (f"np.vdot({sa}, {sb})", L * ba * bb)),
                (1, (f"np.vdot({_strip(m)}, {_strip(m2)})", R * L * bm * bm2)),
                (1, (f"np.inner({sa}, {sb})", L * ba * bb)),
                (1, (f"np.sum(np.kron({a}[:2], {b}[:2]))", 4 * ba * bb)),
                (1, (f"np.dot({lin}, {sa})", L * ba))])
        if kind == "v":
            m, bm = self.operand("m", d)
            return self.pick([
                (2, (f"np.kron({a}[:2], {b}[:2])", ba * bb)),
                (1, (f"np.kron({a}[:1], {sb})", ba * bb)),
                (1, (f"np.outer({a}[:2], {b}[:2]).ravel()", ba * bb)),
                (1, (f"({lin} * {a})", ba)),
                (1, (f"np.dot({a}[:{R}], {_strip(m)})", R * ba * bm))])
        m, bm = self.operand("m", d)
        return self.pick([
            (2, (f"np.kron({a}[:{R}].reshape({R}, 1), {b}.reshape(1, {L}))", ba * bb)),
            (1, (f"np.kron({m}[:, :2], {a}[:2].reshape(1, 2))", bm * ba)),
            (1, (f"np.outer(np.linspace(0.0, 1.0, {R}), {sa})", ba)),
            (1, (f"({m} * np.arange({L}))", (L - 1) * bm))])

    def x_recursion(self, kind: str, d: int):
        recs = [h for h in self.recs if h.ret == kind]
        if not recs:
            return None
        h = self.rng.choice(recs)
        e, _ = self.squash(kind, *self.expr(kind, min(d, 1)), force=True)
        depths = [(1, str(k)) for k in range(4)]
        depths += [(2, iv.name) for iv in self.ints if 0 <= iv.hi <= 3]
        if not self.in_helper:
            depths += [(2, "n"), (1, "n - 1")]
        k = self.pick(depths)
        if self.on("keywords") and self.rng.random() < 0.3:
            return f"{h.name}(k={k}, {h.names[0]}={_strip(e)})", h.bound
        return f"{h.name}({_strip(e)}, {k})", h.bound

    # -- the newer language (fuzz20): axis tuples, linalg on SPD matrices, splits ----------------
    def x_axes(self, kind: str, d: int):
        """Reductions over axis tuples of a rank-3 stack (var/std too, negative and out of
        order, keepdims=True), np.repeat(axis=) and np.trace of rank 3 ("axes")."""
        (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
        sm, sm2 = _strip(m), _strip(m2)
        b2 = max(bm, bm2)
        k = self.rng.choice((0, 1, 2))              # the pair's axis in the stack
        T = f"np.stack(({sm}, {sm2}), axis={k})"
        rows, cols = {0: (1, 2), 1: (0, 2), 2: (0, 1)}[k]

        def axes(*a, rank=3):
            a = [str(v) if self.rng.random() < 0.6 else str(v - rank) for v in a]
            self.rng.shuffle(a)
            return f"({', '.join(a)})"
        red = self.pick([(2, "var"), (2, "std"), (1, "sum"), (1, "mean"), (1, "max")])
        rb = {"var": b2 * b2, "std": b2, "sum": 2 * R * b2, "mean": b2, "max": b2}[red]
        if kind == "v":
            a, ba = self.operand("v", d)
            return self.pick([
                (4, (f"np.{red}({T}, axis={axes(k, rows)})", rb)),
                (1, (f"np.repeat({a}[:2], 2)", ba)),
                (self.on("layout"), (f"np.trace(np.stack(({sm}, {sm2})))", 2 * b2)),
                (self.on("keepdims"),
                 (f"np.{red}({T}, axis={axes(k, rows)}, keepdims=True).ravel()", rb))])
        if kind == "m":
            keep = f"np.{red}({T}, axis={axes(k, cols)}, keepdims=True).reshape({R}, 1)"
            kd = 3 * self.on("keepdims")
            opts = [(kd, (f"({m} - {keep})", bm + rb)),
                    (1, (f"np.repeat({m}[:, :2], 2, axis={self.rng.choice(('1', '-1'))})", bm)),
                    (1, (f"np.repeat({m}[:1], {R}, axis=0)", bm)),
                    (1, (f"np.sum(np.repeat({T}, 2, axis={k}), axis={k})", 4 * b2))]
            if red in ("var", "std"):
                opts.append((kd, (f"({m} / (1.0 + {keep}))", bm)))
                opts.append((kd, (f"({m} * np.{red}({sm2}, axis=(0, 1), keepdims=True))",
                                  bm * rb)))
            return self.pick(opts)
        return self.pick([
            (3, (f"np.sum(np.{red}({T}, axis={axes(k, cols)}))", R * rb)),
            (1, (f"np.{red}({T}, axis=(0, 1, 2))", 2 * R * L * b2 if red == "sum" else rb)),
            (1, (f"np.{red}({sm}, axis={axes(0, 1, rank=2)})",
                 R * L * bm if red == "sum" else bm * bm if red == "var" else bm)),
            (self.on("layout"), (f"np.sum(np.trace({T}))", 2 * R * b2))])

    def spd(self, d: int, k: int) -> tuple[str, float]:
        """A k x k symmetric positive definite matrix, P P^T + k I of a k x k block P of a
        matrix squashed by tanh (or of M itself): eigenvalues in [k, k + k*k]."""
        m, bm = self.operand("m", d)
        if _strip(m) != "M":
            m = f"np.tanh({_strip(m)})"
        P = f"{m}[:{k}, :{k}]"
        prod = self.pick([(3, f"{P} @ {P}.T"), (1, f"{P}.T @ {P}"),
                          (self.on("layout"), f"np.einsum('ij,kj->ik', {P}, {P})")])
        return f"({prod} + {k}.0 * np.eye({k}))", k + k * k * 1.5

    def x_linalg2(self, kind: str, d: int):
        """np.linalg.solve/inv/det/slogdet/cholesky of a symmetric positive definite matrix,
        matrix norms (ord 2, 'nuc', 'fro', 1, np.inf) and np.einsum ("linalg2")."""
        k = self.rng.choice((2, 3))
        A, lam = self.spd(d, k)
        A3, _ = self.spd(d, R)
        (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
        (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
        sa, sm, sm2 = _strip(a), _strip(m), _strip(m2)
        lay = self.on("layout")        # (np.einsum and np.trace are "layout"'s)
        if kind == "f":
            o = self.rng.choice(("2", "'nuc'", "'fro'", "1", "np.inf", "-2"))
            return self.pick([
                (2, (f"np.log(np.linalg.det({A}))", k * math.log(lam))),
                (1, (f"np.linalg.det({A}) / {k ** k}.0", (lam / k) ** k)),
                (2, (f"np.linalg.slogdet({A})[1]", k * math.log(lam))),
                (2, (f"np.sum(np.linalg.cholesky({A}))", k * k * math.sqrt(lam))),
                (2, (f"({a}[:{k}] @ np.linalg.solve({A}, {b}[:{k}]))", ba * bb)),
                (1 * lay, (f"np.trace(np.linalg.inv({A}))", 1.0)),
                (2, (f"np.linalg.norm({sm}, {o})", R * L * bm)),
                (1 * lay, (f"np.einsum('ij,ij->', {sm}, {sm2})", R * L * bm * bm2)),
                (1 * lay, (f"np.einsum('i,ij,j->', {a}[:{R}], {sm}, {_strip(b)})",
                           R * L * ba * bm * bb))])
        if kind == "v":
            i = self.index(R)
            return self.pick([
                (2, (f"({m}.T @ np.linalg.solve({A3}, {a}[:{R}]))", R * bm * ba / R)),
                (1, (f"(np.linalg.cholesky({A3}) @ {m})[{i}]", R * math.sqrt(R + R * R) * bm)),
                (1, (f"np.linalg.solve({A3}, {sm})[{i}]", bm)),
                (2 * lay, (f"np.einsum('ij,i->j', {sm}, {a}[:{R}])", R * bm * ba)),
                (1 * lay, (f"np.einsum('ij,ij->j', np.linalg.inv({A3}) @ {m}, {sm2})",
                           R * bm * bm2))])
        return self.pick([
            (2, (f"np.linalg.solve({A3}, {sm})", bm)),
            (1, (f"(np.linalg.cholesky({A3}) @ {m})", R * math.sqrt(R + R * R) * bm)),
            (1 * lay, (f"np.einsum('ik,kj->ij', np.linalg.inv({A3}), {sm})", bm)),
            (1 * lay, (f"(np.einsum('ij,kj->ik', {sm}, {sm2}) @ {m}) / {L}.0", R * bm * bm * bm2)),
            (1 * lay, (f"np.einsum('ij->ji', {sm}.T)", bm))])

    def x_split(self, kind: str, d: int):
        """One part of np.split / np.array_split / np.hsplit at constant points ("split")."""
        (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
        (m, bm), (m2, bm2) = self.operand("m", d), self.operand("m", d)
        sa, sb, sm, sm2 = _strip(a), _strip(b), _strip(m), _strip(m2)
        h = self.rng.randrange(2)
        if kind == "f":
            return self.pick([
                (2, (f"np.sum(np.split({sa}, 2)[{h}] ** 2)", 2 * ba * ba)),
                (1, (f"np.sum(np.array_split({sa}, 3)[{self.rng.randrange(3)}])", 2 * ba)),
                (1, (f"np.sum(np.split({sm}, [1, 3], axis=1)[{self.rng.randrange(3)}])", R * 2 * bm)),
                (1, (f"np.sum(np.hsplit({sm}, 2)[0] * np.hsplit({sm2}, 2)[1])", 2 * R * bm * bm2))])
        if kind == "v":
            return self.pick([
                (2, (f"np.concatenate((np.split({sa}, 2)[1], np.split({sb}, 2)[0]))", max(ba, bb))),
                (1, (f"np.concatenate((np.array_split({sa}, 3)[0], {b}[2:]))", max(ba, bb))),
                (1, (f"np.split({sm}, {R})[{self.rng.randrange(R)}][0]", bm)),
                (1, (f"np.concatenate((np.split({sa}, [1, 3])[2], np.split({sa}, [1, 3])[1], "
                     f"{a}[:1]))", ba))])
        return self.pick([
            (2, (f"np.hstack((np.split({sm}, 2, axis=1)[1], np.split({sm2}, 2, axis=1)[0]))",
                 max(bm, bm2))),
            (1, (f"np.vstack((np.split({sm}, [1], axis=0)[1], {m2}[:1]))", max(bm, bm2))),
            (1, (f"np.array_split(np.vstack(({sm}, {sm2})), 2)[{h}]", max(bm, bm2))),
            (1, (f"np.split({sm}, [2], axis=-1)[0] @ np.ones((2, {L}))", 2 * bm))])

    def call(self, ret, depth: int, shape: Shape | None = None):
        hs = [h for h in self.helpers if h.ret == ret]
        if not hs:
            return None
        h = self.rng.choice(hs)
        return self.call_text(h, depth, shape), h.bound

    def call_text(self, h: Helper, depth: int, shape: Shape | None = None,
                  args: dict | None = None, packed_as: str | None = None) -> str:
        """`h(...)` with arguments built here, or taken from `args` (position: text).  A
        helper returning a vector of loop-dependent length returns its argument's: `shape`.
        A helper taking a tuple ("packed") gets its arguments as one tuple written out, or
        `packed_as` (a name holding one: the arguments built here are dropped; "": they are
        held by a new name, emitted here -- given only where a statement may be emitted)."""
        texts = []
        for k, p in enumerate(h.params):
            if args and k in args:
                texts.append(args[k])
                continue
            sh = None
            if p == "s":
                sh = shape if h.ret == "s" and shape is not None else self.some_shape()
            e, b = self.expr(p, depth - 1, sh)
            if b > PARAM_BOUND:
                e, b = self.squash(p, e, b, force=True)
            texts.append(_strip(e))
        if packed_as:                    # a tuple held by a name ("packed")
            texts = [packed_as]
        elif packed_as == "":            # the tuple written out, held by a name first
            pk = f"pk{next(self.ext_names)}"
            self.emit(f"{pk} = ({', '.join(texts)})")
            texts = [pk]
        elif h.packed:                   # one tuple written out
            texts = [f"({', '.join(texts)})"]
        keyed = (not h.packed and self.on("keywords") and h.names
                 and self.ext.random() < 0.25)   # every argument by keyword ("keywords")
        if keyed:
            texts = [f"{nm}={t}" for nm, t in zip(h.names, texts)]
        if h.kw:                         # s=0.5: left out, given by position or by keyword
            form = self.pick([(1, ""), (1, "pos"), (2, "kw")])
            if form:
                e, _ = self.squash("f", *self.expr("f", depth - 1), force=True)
                texts.append(_strip(e) if form == "pos" and not h.kwonly and not keyed
                             else f"s={_strip(e)}")
            elif h.kwonly == "required":     # (keyword-only without a default: always given)
                with self.drawing_ext():
                    e, _ = self.squash("f", *self.expr("f", depth - 1), force=True)
                texts.append(f"s={_strip(e)}")
        if keyed:                        # out of order
            order = list(range(len(texts)))
            while len(order) > 1 and order == sorted(order):
                self.ext.shuffle(order)
            texts = [texts[k] for k in order]
        return f"{h.name}({', '.join(texts)})"

    # -- vectors of loop-dependent length ("shapes") ----------------------------------------
    def cut(self, dim: int) -> tuple[str, tuple]:
        """(an int expression in 0..dim-1, the loop variables it reads): of a loop variable
        when there is one, else `n - 1` or a constant."""
        opts = []
        for iv in self.ints:
            if iv.hi < 0:
                continue
            if iv.hi < dim:
                opts += [(3, (iv.name, (iv.name,))), (1, (f"{dim - 1} - {iv.name}", (iv.name,)))]
            else:
                opts.append((2, (f"{iv.name} % {dim}", (iv.name,))))
        if not self.in_helper:
            opts.append((1, ("n - 1", ())))
        opts.append((0.5, (str(self.rng.randrange(dim)), ())))
        return self.pick(opts)

    def new_shape(self) -> Shape:
        c, names = self.cut(L)
        form = self.pick([(4, "tail"), (4, "head"), (1, "rep"), (1, "tile"), (1, "pad"),
                          (1, "cat")])
        d = ""
        if form == "cat":
            d, more = self.cut(L)
            names = names + more
        return Shape(form, c, d, names)

    def some_shape(self) -> Shape:
        """The shape of a vector in scope, or a new one."""
        have = []
        for v in self.vars("s"):
            if v.shape not in have:
                have.append(v.shape)
        return self.pick([(2, sh) for sh in have] + [(2 if have else 1, None)]) or self.new_shape()

    def buildable(self, shape: Shape) -> bool:
        """Whether values of `shape` can be built here (the variables it reads are in scope)."""
        if shape.form == "like":
            return any(v.name == shape.c for v in self.vars("s"))
        ints = {iv.name for iv in self.ints}
        return all(nm in ints for nm in shape.names)

    def length_text(self, shape: Shape) -> str | None:
        if self.buildable(shape):
            return shape.length()
        same = [v for v in self.vars("s") if v.shape == shape]
        return f"{self.rng.choice(same).name}.shape[0]" if same else None

    def sliced(self, shape: Shape) -> tuple[str, float]:
        """A value of `shape` sliced, repeated, tiled, padded or joined from vectors of
        length L (active when those are)."""
        c, d, pc = shape.c, shape.d, _paren(shape.c)
        a, ba = self.leaf("v")
        form = shape.form
        if form == "tail":
            opts = [(4, (f"{a}[{c}:]", ba)),
                    (1, (f"{a}[{pc} // 2:{pc} // 2 + {L} - {pc}]", ba)),
                    (1, (f"{a}[:{L} - {pc}]", ba))]
            mats = self.vars("m")
            if mats:
                m = self.rng.choice(mats)
                opts.append((1, (f"{m.name}[{self.index(R)}, {c}:]", m.bound)))
            b, bb = self.leaf("v")
            opts += [(0.7, (f"np.sum(np.stack(({a}[{c}:], {b}[{c}:])), axis=0)", ba + bb)),
                     (0.5, (f"np.mean(np.stack(({a}[{c}:], {b}[{c}:]), axis=1), axis=1)",
                            max(ba, bb)))]
            return self.pick(opts)
        if form == "head":
            return self.pick([(4, (f"{a}[:{c} + 1]", ba)),
                              (1, (f"{a}[{L - 1} - {pc}:]", ba)),
                              (0.5, (f"np.cumsum({a}[:{c} + 1])", L * ba))])
        if form == "rep":
            return f"np.repeat({a}[{c}:], 2)", ba
        if form == "tile":
            return f"np.tile({a}[:{c} + 1], 2)", ba
        if form == "pad":
            return f"np.pad({a}[{c}:], (1, 2))", ba
        b, bb = self.leaf("v")
        fn = self.pick([(2, "np.concatenate"), (1, "np.hstack")])
        return f"{fn}(({a}[{c}:], {b}[:{d} + 1]))", max(ba, bb)

    def sleaf(self, shape: Shape) -> tuple[str, float]:
        opts = [(3, (v.name, v.bound)) for v in self.vars("s") if v.shape == shape]
        if self.buildable(shape) and shape.form != "like":
            opts.append((4, lambda: self.sliced(shape)))
        n = self.length_text(shape)
        if n is not None:
            opts += [(0.4, (f"np.ones({n})", 1.0)), (0.3, (f"np.zeros({n})", 0.0)),
                     (0.4, (f"(np.arange({n}) * 0.25)", 0.25 * shape.max_len())),
                     (0.3, (f"np.linspace(-1.0, 1.0, {n})", 1.0))]
        got = self.pick(opts)
        return got() if callable(got) else got

    def sexpr(self, shape: Shape, depth: int) -> tuple[str, float]:
        """A vector of `shape`'s length."""
        if depth <= 0 or self.rng.random() < 0.3:
            return self.sleaf(shape)
        d = depth - 1

        def binop():
            (a, ba), (b, bb) = self.sexpr(shape, d), self.sexpr(shape, d)
            op = self.pick([(3, "+"), (2, "-"), (3, "*")])
            return f"({a} {op} {b})", (ba * bb if op == "*" else ba + bb)

        def scalar_op():
            (a, ba), (s, bs) = self.sexpr(shape, d), self.expr("f", d)
            return self.pick([(3, (f"({a} * {s})", ba * bs)), (1, (f"({s} * {a})", ba * bs)),
                              (1, (f"({a} + {s})", ba + bs))])

        def unary():
            a, ba = self.sexpr(shape, d)
            s = _strip(a)
            return self.pick([(3, (f"np.tanh({s})", 1.0)), (2, (f"np.sin({s})", 1.0)),
                              (1, (f"np.exp(np.tanh({s}))", math.e)),
                              (1, (f"({a} ** 2)", ba * ba)), (1, (f"(-{a})", ba)),
                              (0.5, (f"({s})[::-1]", ba)),
                              (0.3, (f"np.cumsum({s})", shape.max_len() * ba))])

        opts = [(4, binop), (3, scalar_op), (3, unary)]
        if any(h.ret == "s" for h in self.helpers):
            opts.append((1.5, lambda: self.call("s", depth, shape)))
        return self.pick(opts)()

    def fexpr(self, depth: int) -> tuple[str, float]:
        rng = self.rng
        d = depth - 1

        def binop():
            (a, ba), (b, bb) = self.expr("f", d), self.expr("f", d)
            op = self.pick([(3, "+"), (2, "-"), (3, "*")])
            return f"({a} {op} {b})", (ba * bb if op == "*" else ba + bb)

        def unary():
            a, ba = self.expr("f", d)
            s = _strip(a)
            t, tb = self.leaf("f")
            return self.pick([
                (3, lambda: (f"math.tanh({s})", 1.0)),
                (2, lambda: (f"math.sin({s})", 1.0)),
                (2, lambda: (f"math.cos({s})", 1.0)),
                (1, lambda: (f"math.atan({s})", 1.6)),
                (1, lambda: (f"math.exp({s})", math.exp(ba)) if ba <= 3 else
                 (f"math.exp(math.tanh({s}))", math.e)),
                (1, lambda: (f"math.exp(-({t} * {t}))", 1.0)),
                (1, lambda: (f"math.log(1.0 + {t} * {t})", math.log1p(tb * tb))),
                (1, lambda: (f"math.log1p({t} * {t})", math.log1p(tb * tb))),
                (1, lambda: (f"math.sqrt(1.0 + {t} * {t})", math.sqrt(1 + tb * tb))),
                (0.5, lambda: (f"math.expm1(math.tanh({s}))", 2.0)),
                (0.5, lambda: (f"math.sinh({s})", math.sinh(ba)) if ba <= 3 else
                 (f"math.tanh({s})", 1.0)),
                (1, lambda: (f"({a} ** 2)", ba * ba)),
                (1, lambda: (f"(-{a})", ba)),
                (0.4, lambda: (f"abs({s})", ba)),
                (0.4, lambda: (f"math.fabs({s})", ba)),
                (1, lambda: (f"({a} / (1.0 + {t} * {t}))", ba)),
                (0.5, lambda: (f"({a} / (2.0 + math.cos({_strip(t)})))", ba)),
            ])()

        def minmax():
            (a, ba), (b, bb) = self.expr("f", d), self.expr("f", d)
            fn = rng.choice(["max", "min"])
            return f"{fn}({_strip(a)}, {_strip(b)})", max(ba, bb)

        def reduce_v():
            u, bu = self.expr("v", d)
            s = _strip(u)
            v, bv = self.expr("v", d)
            return self.pick([
                (3, lambda: (f"np.sum({s})", L * bu)),
                (1, lambda: (f"{u}.sum()" if u == s else f"({s}).sum()", L * bu)),
                (2, lambda: (f"np.mean({s})", bu)),
                (3, lambda: (f"np.dot({s}, {_strip(v)})", L * bu * bv)),
                (0.5, lambda: (f"({u} @ {v})", L * bu * bv)),
                (0.4, lambda: (f"np.max({s})", bu)),
                (0.4, lambda: (f"np.min({s})", bu)),
                (0.5, lambda: (f"np.sum({u}[1:3])", 2 * bu)),
                (0.5, lambda: (f"np.dot({u}[:2], {v}[2:])", 2 * bu * bv)),
            ])()

        def reduce_m():
            a, ba = self.expr("m", d)
            s = _strip(a)
            return self.pick([
                (2, lambda: (f"np.sum({s})", R * L * ba)),
                (1, lambda: (f"np.mean({s})", ba)),
                (0.5, lambda: (f"np.sum(np.sum({s}, axis=0))", R * L * ba)),
                (0.5, lambda: (f"np.sum(np.mean({s}, axis=1))", R * ba)),
            ])()

        def element():
            v, b = self.expr("v", d)
            if v.isidentifier():
                return f"{v}[{self.index(L)}]", b
            return self.leaf("f")

        def ternary():
            (a, ba), (b, bb) = self.expr("f", d), self.expr("f", d)
            return f"({_strip(a)} if {self.cond(1)} else {_strip(b)})", max(ba, bb)

        def reduce_s():
            shape = self.some_shape()
            (a, ba), (b, bb) = self.sexpr(shape, d), self.sexpr(shape, d)
            s, n = _strip(a), shape.max_len()
            opts = [(3, (f"np.sum({s})", n * ba)), (2, (f"np.dot({s}, {_strip(b)})", n * ba * bb)),
                    (1, (f"np.mean({s})", ba)), (0.4, (f"np.max({s})", ba)),
                    (0.4, (f"np.min({s})", ba)), (1, (f"({s})[0]", ba)), (0.5, (f"({s})[-1]", ba)),
                    (0.5, (f"(float(({s}).shape[0]) * ({_strip(b)})[0])", n * bb))]
            if shape.form == "tail" and self.buildable(shape):
                m, bm = self.leaf("m")
                opts.append((1, (f"np.sum(np.tanh({m}[:, {shape.c}:] @ ({s})))", R)))
            other = self.some_shape()
            o, bo = self.sexpr(other, d)
            opts.append((0.5, (f"np.sum(np.outer({s}, {_strip(o)}))",
                               n * other.max_len() * ba * bo)))
            return self.pick(opts)

        opts = [(6, binop), (4, unary), (0.6, minmax), (3, reduce_v), (1, reduce_m),
                (1, element), (0.5, ternary)]
        if any(h.ret == "f" for h in self.helpers):
            opts.append((2, lambda: self.call("f", depth)))
        if self.on("shapes"):
            opts.append((1.5 if self.ints else 0.4, reduce_s))
        if any(self.on(ft) for ft in ("keepdims", "scan", "gather", "select", "layout", "linalg")):
            opts.append((1, lambda: self.f_later(d)))
        return self.pick(opts)()

    def vexpr(self, depth: int) -> tuple[str, float]:
        d = depth - 1

        def binop():
            (a, ba), (b, bb) = self.expr("v", d), self.expr("v", d)
            op = self.pick([(3, "+"), (2, "-"), (3, "*")])
            return f"({a} {op} {b})", (ba * bb if op == "*" else ba + bb)

        def scalar_op():
            (a, ba), (s, bs) = self.expr("v", d), self.expr("f", d)
            return self.pick([
                (3, lambda: (f"({a} * {s})", ba * bs)),
                (2, lambda: (f"({s} * {a})", ba * bs)),
                (2, lambda: (f"({a} + {s})", ba + bs)),
                (1, lambda: (f"({s} - {a})", ba + bs)),
            ])()

        def unary():
            a, ba = self.expr("v", d)
            s = _strip(a)
            t, tb = self.leaf("v")
            return self.pick([
                (3, lambda: (f"np.tanh({s})", 1.0)),
                (2, lambda: (f"np.sin({s})", 1.0)),
                (1, lambda: (f"np.cos({s})", 1.0)),
                (1, lambda: (f"np.exp(np.tanh({s}))", math.e)),
                (1, lambda: (f"np.log(1.0 + {t} * {t})", math.log1p(tb * tb))),
                (1, lambda: (f"np.sqrt(1.0 + {t} * {t})", math.sqrt(1 + tb * tb))),
                (1, lambda: (f"({a} / (1.0 + {t} * {t}))", ba)),
                (1, lambda: (f"np.square({s})", ba * ba)),
                (0.5, lambda: (f"({a} ** 2)", ba * ba)),
                (1, lambda: (f"(-{a})", ba)),
                (0.3, lambda: (f"np.abs({s})", ba)),
                (0.4, lambda: (f"np.maximum({s}, {self.const()})", max(ba, 1.0))),
                (0.3, lambda: (f"np.arctan({s})", 1.6)),
            ])()

        def from_matrix():
            a, ba = self.expr("m", d)
            s = _strip(a)
            u, bu = self.expr("v", d)
            b2, bb2 = self.leaf("m")
            mm = self.cfg["matmul"]   # matrix products: the slowest to compile
            return self.pick([
                (2, lambda: (f"np.sum({s}, axis=0)", R * ba)),
                (1, lambda: (f"np.mean({s}, axis=0)", ba)),
                (mm, lambda: (f"np.dot(np.dot({s}, {_strip(u)}), {b2})", R * L * ba * bu * bb2)),
                (mm / 2, lambda: (f"(({a} @ {u}) @ {b2})", R * L * ba * bu * bb2)),
                (mm / 2, lambda: (f"np.dot({b2}.T, np.tanh({a} @ {u}))", R * bb2)),
            ])()

        def concat():
            (a, ba), (b, bb) = self.leaf("v"), self.leaf("v")
            k = self.rng.randrange(1, L)
            return f"np.concatenate(({a}[:{k}], {b}[{k}:]))", max(ba, bb)

        def resize():
            """Length L, joined from parts whose lengths change between loop iterations."""
            c, names = self.cut(L)
            pc = _paren(c)
            tail, head = Shape("tail", c, "", names), Shape("head", c, "", names)
            (a, ba), (b, bb) = self.expr("v", d), self.expr("v", d)
            a = a if re.fullmatch(r"[\w.]+(\[[^\[\]]*\])*", a) else f"({_strip(a)})"
            b = b if re.fullmatch(r"[\w.]+(\[[^\[\]]*\])*", b) else f"({_strip(b)})"
            (t, bt), (h, bh) = self.sexpr(tail, d), self.sexpr(head, d)
            t, h = _strip(t), _strip(h)
            fn = self.pick([(3, "np.concatenate"), (1, "np.hstack")])
            return self.pick([
                (2, (f"{fn}(({a}[:{c}], {t}))", max(ba, bt))),
                (2, (f"{fn}(({h}, {b}[{c} + 1:]))", max(bh, bb))),
                (2, (f"{fn}((np.zeros({c} + 1), {b}[{c} + 1:]))", bb)),
                (1, (f"{fn}((np.zeros({c}), {t}))", bt)),
                (1, (f"{fn}(({a}[{c}:], {b}[:{c}]))", max(ba, bb))),
                (1, (f"{fn}(({h}, np.zeros({L - 1} - {pc})))", bh)),
            ])

        opts = [(5, binop), (4, scalar_op), (4, unary), (1.5, from_matrix), (0.4, concat)]
        if any(h.ret == "v" for h in self.helpers):
            opts.append((1.5, lambda: self.call("v", depth)))
        if self.on("shapes"):
            opts.append((1.2 if self.ints else 0.3, resize))
        opts += [(0.6 * self.on(ft), lambda ft=ft: getattr(self, f"v_{ft}")(d))
                 for ft in ("keepdims", "newaxis", "select", "scan", "gather", "layout",
                            "linalg")]
        return self.pick(opts)()

    # -- constructs of the later features (each `x_<feature>(d)` returns (text, bound)) --------
    def operand(self, kind: str, d: int) -> tuple[str, float]:
        """An expression of `kind` ready to be indexed or repeated in a text (small: depth at
        most 1, as it may be written twice)."""
        e, b = self.expr(kind, min(d, 1))
        return _operand(e), b

    def v_keepdims(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        sa = _strip(a)
        ax = self.rng.choice((0, 1))
        return self.pick([
            (2, lambda: (f"({a} - np.mean({sa}, keepdims=True))", 2 * ba)),
            (1, lambda: (f"({a} / (1.0 + np.sum({sa} ** 2, keepdims=True)))", ba)),
            (1, lambda: (f"np.exp({a} - np.max({sa}, keepdims=True))", 1.0)),
            (1, lambda: (f"np.sum({_strip(m)} * {m}, axis=0, keepdims=True)[0]", R * bm * bm)),
            (1, lambda: (f"({m} - {m}.max(axis={ax}, keepdims=True))[{self.index(R)}]", 2 * bm)),
        ])()

    def v_newaxis(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        return self.pick([
            (2, lambda: (f"np.sum({m} * {a}[None, :], axis=0)", R * ba * bm)),
            (1, lambda: (f"np.mean({a}[:{R}][:, None] * {m}, axis=0)", ba * bm)),
            (1, lambda: (f"({a}[np.newaxis, :] + {m})[{self.index(R)}]", ba + bm)),
            (1, lambda: (f"np.sum({a}[:, None] * {a}[None, :], axis=1)", L * ba * ba)),
        ])()

    def v_select(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
        c = self.const(-0.5, 0.5)
        lo = round(self.rng.uniform(-1.0, 0.0), 2)
        hi = round(lo + self.rng.uniform(0.3, 1.5), 2)
        return self.pick([
            (2, lambda: (f"np.where({a} > {c}, {a}, {b})", max(ba, bb))),
            (1, lambda: (f"np.where({b} < {a}, {a} * {c}, 0.0)", ba)),
            (1, lambda: (f"np.clip({_strip(a)}, {_fmt(lo)}, {_fmt(hi)})", max(abs(lo), abs(hi)))),
            (1, lambda: (f"{a}.clip({_fmt(lo)}, {_fmt(hi)})", max(abs(lo), abs(hi)))),
            (1, lambda: (f"np.minimum({_strip(a)}, {_strip(b)})", max(ba, bb))),
            (1, lambda: (f"np.maximum({_strip(a)}, {_strip(b)})", max(ba, bb))),
        ])()

    def v_scan(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        sa = _strip(a)
        return self.pick([
            (2, lambda: (f"np.cumsum({sa})", L * ba)),
            (1, lambda: (f"np.cumprod(np.tanh({sa}))", 1.0)),
            (1, lambda: (f"np.cumprod(1.0 + 0.5 * np.tanh({sa}))", 1.5 ** L)),
            (1, lambda: (f"np.sort({sa})", ba)),
            (1, lambda: (f"np.cumsum({_strip(m)}, axis={self.rng.choice((0, 1))})"
                         f"[{self.index(R)}]", L * bm)),
            (0.5, lambda: (f"np.concatenate((np.diff({sa}), {a}[:1]))", 2 * ba)),
        ])()

    def int_list(self, k: int, dim: int, distinct=False) -> str:
        """A list of k constant indices into an axis of length dim (repeats unless
        `distinct`; now and then a negative one)."""
        if distinct:
            got = self.rng.sample(range(dim), k)
        else:
            got = [self.rng.randrange(dim) for _ in range(k)]
        got = [g - dim if self.rng.random() < 0.1 else g for g in got]
        return f"[{', '.join(map(str, got))}]"

    def v_gather(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb), (m, bm) = self.operand("v", d), self.operand("v", d), \
            self.operand("m", d)
        return self.pick([
            (2, lambda: (f"{a}[{self.int_list(L, L)}]", ba)),
            (1, lambda: (f"{a}[np.argsort({_strip(b)})]", ba)),
            (1, lambda: (f"{m}[{self.int_list(L, R)}, {self.int_list(L, L)}]", bm)),
            (1, lambda: (f"{m}[{self.index(R)}, {self.int_list(L, L)}]", bm)),
        ])()

    def m_keepdims(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb) = self.operand("m", d), self.operand("m", d)
        sa = _strip(a)
        ax = self.rng.choice((0, 1))
        e = f"np.exp({a} - np.max({sa}, axis={ax}, keepdims=True))"
        return self.pick([
            (2, lambda: (f"({a} - np.max({sa}, axis={ax}, keepdims=True))", 2 * ba)),
            (1, lambda: (f"({e} / np.sum({e}, axis={ax}, keepdims=True))", 1.0)),
            (1, lambda: (f"({a} * np.mean({_strip(b)}, axis={ax}, keepdims=True))", ba * bb)),
            (1, lambda: (f"({a}.sum(axis={ax}, keepdims=True) * {b})", L * ba * bb)),
        ])()

    def m_newaxis(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb), (m, bm) = self.operand("v", d), self.operand("v", d), \
            self.operand("m", d)
        return self.pick([
            (2, lambda: (f"({a}[:{R}][:, None] * {b}[None, :])", ba * bb)),
            (1, lambda: (f"({m} * {a}[np.newaxis, :])", ba * bm)),
            (1, lambda: (f"({m} + np.mean({_strip(m)}, axis=1)[:, None])", 2 * bm)),
            (1, lambda: (f"({m} * {a}[:{R}, None])", ba * bm)),
        ])()

    def m_select(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb) = self.operand("m", d), self.operand("m", d)
        c = self.const(-0.5, 0.5)
        return self.pick([
            (2, lambda: (f"np.where({a} > {c}, {a}, {self.const(0.0, 0.5)} * {a})", ba)),
            (1, lambda: (f"np.where({a} > {b}, {a}, {b})", max(ba, bb))),
            (1, lambda: (f"np.clip({_strip(a)}, -1.0, {self.const(0.0, 1.0)})", 1.0)),
            (1, lambda: (f"np.maximum({_strip(a)}, {_strip(b)})", max(ba, bb))),
            (1, lambda: (f"np.minimum({_strip(a)}, {c})", max(ba, 0.5))),
        ])()

    def m_scan(self, d: int) -> tuple[str, float]:
        a, ba = self.operand("m", d)
        sa = _strip(a)
        return self.pick([
            (2, lambda: (f"np.cumsum({sa}, axis=1)", L * ba)),
            (1, lambda: (f"np.cumsum({sa}, axis=0)", R * ba)),
            (1, lambda: (f"np.sort({sa}, axis=1)", ba)),
        ])()

    def m_gather(self, d: int) -> tuple[str, float]:
        a, ba = self.operand("m", d)
        return self.pick([
            (2, lambda: (f"{a}[{self.int_list(R, R)}]", ba)),
            (2, lambda: (f"{a}[:, {self.int_list(L, L)}]", ba)),
        ])()

    def f_later(self, d: int) -> tuple[str, float]:
        """A float from the later features' constructs."""
        opts = []
        if self.on("keepdims"):
            def peak():
                m, bm = self.operand("m", d)
                return f"np.sum(np.max({_strip(m)}, axis=1, keepdims=True))", R * bm
            opts.append((1, peak))
        if self.on("scan"):
            def diff():
                a, ba = self.operand("v", d)
                return f"np.sum(np.diff({_strip(a)}) ** 2)", (L - 1) * 4 * ba * ba

            def last():
                a, ba = self.operand("v", d)
                return f"np.cumsum({_strip(a)})[-1]", L * ba
            opts += [(1, diff), (1, last)]
        if self.on("gather"):
            def mask():
                (a, ba), (b, _) = self.operand("v", d), self.operand("v", d)
                return f"np.sum({a}[{b} > {self.const(-0.5, 0.5)}])", L * ba

            def pairs():
                m, bm = self.operand("m", d)
                k = self.rng.randint(1, 3)
                return f"np.sum({m}[{self.int_list(k, R)}, {self.int_list(k, L)}])", k * bm
            def count():              # a count of true entries (an int) divides
                (a, ba), (b, bb) = self.operand("v", d), self.operand("v", d)
                c = self.const(-0.5, 0.5)   # at least one: the largest entry counts
                return (f"np.sum({a} * {b}) / np.sum(({b} > {c}) | ({b} >= np.max({_strip(b)})))",
                        L * ba * bb)
            opts += [(1, mask), (1, pairs), (1, count)]
        if self.on("select"):
            def clip():
                t, bt = self.expr("f", min(d, 1))
                return f"float(np.clip({_strip(t)}, -1.0, 1.0))", 1.0
            opts.append((0.5, clip))
        if self.on("layout"):
            def lay():
                (a, ba), (m, bm), (m2, bm2) = (self.operand("v", d), self.operand("m", d),
                                               self.operand("m", d))
                return self.pick([
                    (1, lambda: (f"np.linalg.norm(np.tanh({_strip(a)}) + 2.0)", 2 * L)),
                    (1, lambda: (f"np.einsum('ij,ij->', {_strip(m)}, {_strip(m2)})",
                                 R * L * bm * bm2)),
                    (1, lambda: (f"np.trace({m} @ {m2}.T)", R * L * bm * bm2)),
                    (1, lambda: (f"np.prod(1.0 + 0.1 * np.tanh({_strip(a)}))", 1.1 ** L)),
                    (1, lambda: (f"np.var({_strip(a)})", ba * ba)),
                ])()
            opts.append((1, lay))
        if self.on("linalg"):
            opts.append((1.5, lambda: self.f_linalg(d)))
        if not opts:
            return self.leaf("f")
        text, b = self.pick(opts)()
        return text, b

    def well_conditioned(self, d: int) -> str:
        """A 3 x 3 matrix far from singular: 2I plus entries below 0.3 (diagonally dominant)."""
        m, _ = self.operand("m", d)
        cols = self.rng.choice((":3", "1:"))
        return f"(2.0 * np.eye({R}) + 0.3 * np.tanh({m}[:, {cols}]))"

    def f_linalg(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb), (m, bm) = (self.operand("v", d), self.operand("v", d),
                                     self.operand("m", d))
        sa, sb = _strip(a), _strip(b)
        arg = self.rng.choice(("argmax", "argmin"))
        return self.pick([
            (2, lambda: (f"np.sum(np.linalg.solve({self.well_conditioned(d)}, {a}[:{R}]))",
                         R * ba)),
            (1, lambda: (f"np.linalg.det({self.well_conditioned(d)})", 12.0)),
            (1, lambda: (f"np.sum(np.linalg.inv({self.well_conditioned(d)}) @ {m})", R * L * bm)),
            (2, lambda: (f"{b}[np.{arg}({sa})]", bb)),
            (1, lambda: (f"{m}[np.{arg}({m}[:, {self.index(L)}]), {self.index(L)}]", bm)),
            (1, lambda: (f"np.std({sa})", ba)),
            (1, lambda: (f"np.sum(np.logaddexp({sa}, {sb}))", L * (max(ba, bb) + 1.0))),
            (1, lambda: (f"np.sum(np.hypot({sa}, 1.0 + {b} * {b}))", L * (ba + 1.0 + bb * bb))),
            (1, lambda: (f"(np.log(np.sum(np.exp({a} - np.max({sa})))) + np.max({sa}))",
                         ba + math.log(L))),
        ])()

    def v_linalg(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        return self.pick([
            (2, lambda: (f"({m}.T @ np.linalg.solve({self.well_conditioned(d)}, {a}[:{R}]))",
                         R * bm * ba)),
            (1, lambda: (f"np.diag({m}.T @ {m})", R * bm * bm)),
            (1, lambda: (f"(np.diag({_strip(a)}) @ {a})", ba * ba)),
            (1, lambda: (f"(np.eye({L}) * {a}).sum(axis=0)", ba)),
            (1, lambda: (f"(np.triu({m}).T @ {a}[:{R}])", R * bm * ba)),
        ])()

    def m_linalg(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        return self.pick([
            (2, lambda: (f"(np.linalg.inv({self.well_conditioned(d)}) @ {m})", R * bm)),
            (1, lambda: (f"({m} @ np.diag({_strip(a)}))", bm * ba)),
            (1, lambda: (f"np.{self.rng.choice(('triu', 'tril'))}({_strip(m)}"
                         f"{self.rng.choice(('', ', 1', ', -1'))})", bm)),
            (1, lambda: (f"({m} + np.eye({R}, {L}))", bm + 1.0)),
            (1, lambda: (f"(np.diag({a}[:{R}]) @ {m})", ba * bm)),
        ])()

    def v_layout(self, d: int) -> tuple[str, float]:
        (a, ba), (m, bm), (m2, bm2) = (self.operand("v", d), self.operand("m", d),
                                       self.operand("m", d))
        return self.pick([
            (2, lambda: (f"({m}.T @ {a}[:{R}])", R * bm * ba)),
            (1, lambda: (f"np.einsum('ij,ij->j', {_strip(m)}, {_strip(m2)})", R * bm * bm2)),
            (1, lambda: (f"{a}.reshape(2, 2).T.ravel()", ba)),
            (1, lambda: (f"np.ravel({m}[:, :2].T)[:{L}]", bm)),
            (1, lambda: (f"np.flip({_strip(a)})", ba)),
            (1, lambda: (f"np.roll({_strip(a)}, {self.rng.choice((1, -1, 2))})", ba)),
        ])()

    def m_layout(self, d: int) -> tuple[str, float]:
        (a, ba), (b, bb), (m, bm) = (self.operand("v", d), self.operand("v", d),
                                     self.operand("m", d))
        return self.pick([
            (2, lambda: (f"({m}.T * np.expand_dims({_strip(a)}, 1)).T", ba * bm)),
            (3, lambda: (f"np.concatenate(({_strip(a)}, {_strip(b)}, {_strip(a)})).reshape({R}, {L})",
                         max(ba, bb))),
            (2, lambda: (f"np.einsum('i,j->ij', {a}[:{R}], {_strip(b)})", ba * bb)),
            (2, lambda: (f"np.{self.rng.choice(('flip', 'fliplr', 'flipud'))}({_strip(m)})", bm)),
            (1, lambda: (f"np.roll({_strip(m)}, 1, axis=1)", bm)),
            (1, lambda: (f"np.transpose({m}.T)", bm)),
        ])()

    def mexpr(self, depth: int) -> tuple[str, float]:
        d = depth - 1

        def binop():
            (a, ba), (b, bb) = self.expr("m", d), self.expr("m", d)
            op = self.pick([(3, "+"), (1, "-"), (2, "*")])
            return f"({a} {op} {b})", (ba * bb if op == "*" else ba + bb)

        def broadcast():
            (a, ba) = self.expr("m", d)
            if self.rng.random() < 0.5:
                u, bu = self.expr("v", d)
            else:
                u, bu = self.expr("f", d)
            op = self.pick([(2, "*"), (1, "+")])
            return f"({a} {op} {u})", (ba * bu if op == "*" else ba + bu)

        def unary():
            a, ba = self.expr("m", d)
            return self.pick([(3, (f"np.tanh({_strip(a)})", 1.0)), (1, (f"np.sin({_strip(a)})", 1.0)),
                              (1, (f"(-{a})", ba))])

        def resize():
            """R x L, joined from blocks whose sizes change between loop iterations."""
            c, _ = self.cut(L)
            r, _ = self.cut(R)
            (a, ba), (b, bb) = self.expr("m", d), self.expr("m", d)
            a = a if a.isidentifier() else f"({_strip(a)})"
            b = b if b.isidentifier() else f"({_strip(b)})"
            s, bs = self.expr("f", d)
            return self.pick([
                (2, (f"np.concatenate((np.ones(({R}, {c} + 1)) * {s}, {b}[:, {c} + 1:]), axis=1)",
                     max(bs, bb))),
                (2, (f"np.concatenate(({a}[:, :{c}], {b}[:, {c}:]), axis=1)", max(ba, bb))),
                (1, (f"np.hstack(({a}[:, {c}:], {b}[:, :{c}]))", max(ba, bb))),
                (2, (f"np.concatenate(({a}[:{r} + 1], {b}[{r} + 1:]))", max(ba, bb))),
                (1, (f"np.vstack((np.zeros(({r}, {L})), {b}[{r}:]))", bb)),
            ])

        def outer():
            (a, ba), (b, bb) = self.expr("v", d), self.expr("v", d)
            a = a if a.isidentifier() else f"({_strip(a)})"
            return f"np.outer({a}[:{R}], {_strip(b)})", ba * bb

        opts = [(2, binop), (2, broadcast), (1, unary)]
        if any(h.ret == "m" for h in self.helpers):
            opts.append((1.5, lambda: self.call("m", depth)))
        if self.on("shapes"):
            opts.append((0.8 if self.ints else 0.2, resize))
        if self.on("mhelpers"):
            opts.append((0.3, outer))
        opts += [(0.4 * self.on(ft), lambda ft=ft: getattr(self, f"m_{ft}")(d))
                 for ft in ("keepdims", "newaxis", "select", "scan", "gather", "layout",
                            "linalg")]
        return self.pick(opts)()

    def cond(self, depth: int = 2) -> str:
        rng = self.rng

        def compare():
            a, _ = self.expr("f", 1)
            op = rng.choice(["<", ">", "<=", ">="])
            if rng.random() < 0.6:
                return f"{a} {op} {self.const(-0.5, 0.5)}"
            b, _ = self.expr("f", 1)
            return f"{a} {op} {b}"

        def chained():
            a, _ = self.expr("f", 1)
            lo = round(rng.uniform(-1.0, 0.0), 2)
            return f"{_fmt(lo)} < {a} < {_fmt(lo + round(rng.uniform(0.3, 1.5), 2))}"

        def on_ints():
            iv = rng.choice(self.ints)
            return self.pick([(2, f"{iv.name} % 2 == 0"), (1, f"{iv.name} > 0"),
                              (1, f"{iv.name} == {rng.randrange(max(iv.hi, 0) + 1)}")])

        opts = [(6, compare), (1, chained)]
        if self.ints:
            opts.append((1.5, on_ints))
        if depth > 1:
            opts += [(1, lambda: f"({self.cond(depth - 1)}) and ({self.cond(depth - 1)})"),
                     (1, lambda: f"({self.cond(depth - 1)}) or ({self.cond(depth - 1)})"),
                     (0.5, lambda: f"not ({self.cond(depth - 1)})")]
        return self.pick(opts)()

    # -- statements -----------------------------------------------------------------------------
    def ret_expr(self) -> str:
        """A float combining every variable in scope (so every computation reaches the output)."""
        terms = []
        for v in self.vars():
            if v.kind == "f":
                t = v.name
            elif v.kind in ("v", "s"):
                t = self.pick([(3, f"np.sum({v.name})"), (1, f"np.dot({v.name}, {v.name})"),
                               (1, f"np.mean({v.name})")])
            else:
                t = self.pick([(3, f"np.sum({v.name})"), (1, f"np.mean({v.name})")])
            if self.rng.random() < 0.3:
                t = f"{self.const(0.2, 1.5)} * {t}"
            terms.append(t)
        if not terms:
            return _strip(self.expr("f", 2)[0])
        return " + ".join(terms)

    def assign_rhs(self, v: Var, depth: int = 2) -> tuple[str, str]:
        """(operator, rhs) updating v, bounded when v is carried around an enclosing loop."""
        kind, rng = v.kind, self.rng
        if kind != "s" and self.on("selfop") and rng.random() < 0.15:
            return "=", self.self_op(v)
        e, b = self.expr(kind, depth, v.shape)
        if not self.carried(v):
            op = self.pick([(3, "="), (1, "+="), (0.5, "-=")])
            e, b = self.squash(kind, e, b)
            v.bound = b if op == "=" else v.bound + b
            return op, _fresh_array(kind, _strip(e)) if op == "=" else _strip(e)
        form = self.pick([(3, "squash"), (3, "incr"), (1, "mix"), (0.5, "scale")])
        if form == "squash":
            e, b = self.squash(kind, e, b, force=True)
            v.bound = max(v.bound, b)
            return "=", _strip(e)
        if form == "incr":
            if b > ARG_BOUND:
                e, b = self.squash(kind, e, b, force=True)
            v.bound += self.mult(v) * b
            return rng.choice(["+=", "-="]), _strip(e)
        if form == "mix":
            e, b = self.squash(kind, e, b, force=True)
            v.bound = max(v.bound, b)
            return "=", f"0.5 * {v.name} + 0.5 * {e}"
        return "*=", self.const(-0.95, 0.95)

    def self_op(self, v: Var) -> str:
        """v = op(v, ...): the result overwrites an operand of its own primitive (whose rules
        may read the result and that operand both), bounded around a loop."""
        t, carried = v.name, self.carried(v)
        e, b = self.squash(v.kind, *self.expr(v.kind, 1), force=True)
        e = _strip(e)
        if v.kind == "f":
            opts = [(2, (f"math.tanh({t})", 1.0)), (2, (f"{t} / (1.0 + {t} * {t})", 0.5)),
                    (1, (f"max({t}, {e})", max(v.bound, b))),
                    (1, (f"min({t}, {e})", max(v.bound, b))),
                    (0 if carried or v.bound > 3 else 1, (f"math.exp({t})", math.exp(v.bound))),
                    (0 if carried or v.bound > 2 else 2, (f"abs({t}) ** 1.5", v.bound ** 1.5))]
        else:
            mx = f"np.max({t}, axis=1, keepdims=True)" if v.kind == "m" else f"np.max({t})"
            opts = [(2, (f"np.tanh({t})", 1.0)), (1, (f"np.maximum({t}, {e})", max(v.bound, b))),
                    (1, (f"np.minimum({t}, {e})", max(v.bound, b))),
                    (1, (f"np.clip({t}, -0.8, 0.9)", 0.9)),
                    (1, (f"{t} / (1.0 + np.sum({t} * {t}))", 0.5)),
                    (0 if carried else 1, (f"{t} - {mx}", 2 * v.bound)),
                    (0 if carried or v.bound > 3 else 1, (f"np.exp({t})", math.exp(v.bound)))]
            if v.kind == "v":
                opts += [(2, (f"np.sort({t})", v.bound)),
                         (0 if carried else 2, (f"np.cumsum({t})", L * v.bound))]
        text, v.bound = self.pick(opts)
        return text

    def stmt(self, level: int) -> None:
        self.ext_stmt(level)
        self.budget -= 1
        in_loop = bool(self.trips)
        n_loops = len(self.trips)
        owned_v, owned_m = self.vars("v", True), self.vars("m", True)
        opts = [
            (4, self.s_new_f), (2, self.s_new_v), (0.8, self.s_new_m),
            (3 if self.vars("f") else 0, lambda: self.s_set("f")),
            (1.5 if self.vars("v", True) else 0, lambda: self.s_set("v")),
            (3 if owned_v else 0, self.s_write_v),
            (3 if owned_m else 0, self.s_write_m_row),
            (1.5 if owned_m else 0, self.s_write_m_elem),
            (0.5 if len(self.vars("f")) >= 2 else 0, self.s_swap),
        ]
        deeper = n_loops < self.cfg["loops"]
        on = self.on
        if self.budget > 1 and level < 3:
            opts += [(2.5, lambda: self.s_if(level)),
                     (3 if deeper else 0, lambda: self.s_for(level)),
                     (0.8 * on("rows") if deeper and (not self.in_helper or self.vars("m", False))
                      else 0,
                      lambda: self.s_for_rows(level)),
                     (1.2 * on("while") if deeper else 0, lambda: self.s_while(level)),
                     (1.2 if n_loops < self.cfg["loops"] - 1 else 0,
                      lambda: self.s_reduce_loop(level)),
                     (1.0 * on("lists") if n_loops < self.cfg["loops"] - 1 else 0,
                      lambda: self.s_list_loop(level)),
                     (1.2 * on("view") if (owned_m or owned_v) and deeper else 0,
                      self.s_view_pattern)]
        if in_loop:
            opts += [(0.8 * on("break"), lambda: self.emit_guarded("break")),
                     (0.8 * on("break"), lambda: self.emit_guarded("continue"))]
        if not self.in_helper and level > 0:
            opts.append((0.6 * on("return"), lambda: self.emit_guarded(f"return {self.ret_expr()}")))
        if on("shapes"):
            owned_s = self.vars("s", True)
            opts += [(1.2 if self.ints else 0.3, self.s_new_s),
                     (1.2 if owned_s else 0, lambda: self.s_set("s")),
                     (1 if owned_s else 0, self.s_write_s)]
            if self.budget > 1 and level < 3:
                opts += [(0.8 if self.vars("s") and self.vars("f") and deeper else 0,
                          lambda: self.s_len_loop(level)),
                         (0.6 if deeper else 0, lambda: self.s_grow(level))]
        if self.budget > 1 and level < 3 and n_loops < self.cfg["loops"] - 1:
            opts += [(0.8 * on("sentinel"), lambda: self.s_sentinel(level))]
        if self.budget > 1 and level < 3 and deeper:
            opts += [(0.8 * on("whilebreak"), lambda: self.s_while_break(level))]
        if on("gather") and (owned_v or owned_m):
            opts += [(1.0, self.s_write_gather)]
        if on("slicewrite") and (owned_v or owned_m):
            opts += [(1.2, self.s_write_slice)]
        if self.budget > 1 and level < 3 and n_loops < self.cfg["loops"] - 1:
            opts += [(0.6 * on("tuples"), lambda: self.s_tuple(level))]
        if not self.in_helper and self.indent == 1:
            opts += [(0.5 * on("closure"), self.s_closure)]
        if on("calls") and self.helpers:
            opts += [(1.2, self.s_call_clobber)]
            if any(isinstance(h.ret, tuple) for h in self.helpers):
                opts += [(1.5, self.s_call_tuple)]
        self.pick(opts)()

    # -- the extensions' statements: every draw from the second stream -----------------------
    def ext_stmt(self, level: int) -> None:
        """Now and then (`STMT_EXT_RATE`), a statement of an extension (`STMT_EXTENSIONS`)
        before the first stream's statement; the budget of the first stream is left as it was."""
        if self.third is not None and not self.in_helper and self.on_ext("tempview") \
                and self.third.random() < TEMPVIEW_RATE:
            self.e_tempview(level)
        owned = self.vars("v", True) + self.vars("m", True)
        fits = {"forelse": (1.0 if level < 3 and len(self.trips) < self.cfg["loops"]
                            and self.vars("f") else 0, lambda: self.e_forelse(level)),
                "rowops": (1.0 if owned else 0, lambda: self.e_rowops(level)),
                "recursion": (3.0 if self.recs else 0, self.e_recursion),
                "numloop": (1.5 if level < 3 and len(self.trips) < self.cfg["loops"] else 0,
                            lambda: self.e_numloop(level)),
                "structs": (3.0, self.e_structs),
                "starred": (1.5, self.e_starred),
                "linalg2": (0.7, self.e_slogdet),
                "nest": (2.0 if level < 3 and len(self.trips) + 2 <= self.cfg["loops"] + 1
                         else 0, lambda: self.e_nest(level)),
                "zerotrip": (1.5 if level < 3 and len(self.trips) < self.cfg["loops"] + 1
                             else 0, lambda: self.e_zerotrip(level)),
                "condread": (1.5 if level < 3 else 0, lambda: self.e_condread(level)),
                "lists2": (1.5 if level < 3 and len(self.trips) < self.cfg["loops"] else 0,
                           lambda: self.e_lists(level)),
                "alias": (1.5 if owned else 0, lambda: self.e_alias(level)),
                "poly": (1.0 if self.polys else 0, self.e_poly),
                "called": (1.5 if self.called else 0, self.e_called),
                "match": (1.5 if level < 3 else 0, lambda: self.e_match(level)),
                "del": (1.0, self.e_del),
                "dicts2": (1.5 if len(self.trips) < self.cfg["loops"] else 0,
                           lambda: self.e_dicts(level)),
                "inplace": (1.5 if owned else 0, lambda: self.e_inplace(level)),
                "listedit": (1.5, lambda: self.e_listedit(level)),
                "nonlocal": (1.2 if not self.in_helper else 0, lambda: self.e_nonlocal(level)),
                "callforms": (1.2, lambda: self.e_callforms(level))}
        opts = [fits[ft] for ft in STMT_EXTENSIONS if self.on_ext(ft)]
        if self.ext.random() >= STMT_EXT_RATE or not any(w for w, _ in opts):
            return
        budget = self.budget
        with self.drawing_ext():
            self.pick(opts)()
        self.budget = budget

    def e_forelse(self, level: int) -> None:
        """for j in range(...): (stmts; if c: break) else: t += tanh(e) -- or the same with
        `k = 0; while k < limit and c: k += 1; ...`."""
        j = f"j{next(self.ext_names)}"
        if self.rng.random() < 0.65:
            text, trips, hi, _ = self.range_header()
            self.emit(f"for {j} in {text}:")
        else:
            trips = hi = self.rng.randint(2, 4)
            self.emit(f"{j} = 0")
            self.emit(f"while {j} < {trips} and {self.cond(1)}:")
            self.emit(f"    {j} += 1")
        self.indent += 1
        self.trips.append(trips)
        self.scopes.append({j: IntVar(j, hi)})
        self.block_stmts(self.small(), level + 1)
        self.emit_guarded("break")
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1
        self.emit("else:")
        self.indent += 1
        if self.rng.random() < 0.5:
            self.block(self.small(), level + 1)
        v = self.rng.choice(self.vars("f"))
        e, _ = self.squash("f", *self.expr("f", 2), force=True)
        self.emit(f"{v.name} += math.tanh({_strip(e)})")
        v.bound += self.mult(v)
        self.indent -= 1

    def e_recursion(self) -> None:
        """z0 = gr0(e, depth): a recursive helper's result, new or added to a float."""
        kind = self.rng.choice(sorted({h.ret for h in self.recs}))
        e, b = self.x_recursion(kind, 2)
        floats = self.vars("f")
        if kind == "f" and floats and self.rng.random() < 0.4:
            v = self.rng.choice(floats)
            self.emit(f"{v.name} += math.tanh({e})")
            v.bound += self.mult(v)
            return
        name = f"z{next(self.ext_names)}"
        self.emit(f"{name} = {e}")
        self.declare(name, kind, b, owned=kind != "f")

    def e_numloop(self, level: int, start: str = "") -> None:
        """A loop whose body is numbers only: `j = 0; while j < K: j += 1` (now and then
        `if j % 3 == 0: continue`) or `for j in range(K):`, then two to four temporaries of
        the floats it carries (`p, _ = g0(a, b)` of a helper returning two floats too), the
        carried floats updated by convex mixes (c = 0.6 * c + 0.4 * tanh(e)), now and then a
        break on one of them. A carried float is one of the function's (not a parameter) or
        a new one, declared after the loop. About half the carried floats are read in the
        body by a sum alone (t = c + e) and a test: no adjoint reads their values, only the
        iteration computed again. A new one of f's top level may instead be left out of scope
        (`kept`: nothing else reads it) for "bareret" to return: what recomputation assigns
        again in the adjoint sweep while the value returned is read after it. With `start`
        (the function's combined result, "bareret"), the new one starts there and is read by
        sums alone, for the return after the loop."""
        rng, n = self.rng, next(self.ext_names)
        own = [v for v in self.vars("f") if v.name not in self.param_names]
        carried = [] if start else rng.sample(own, min(len(own), rng.randint(0, 2)))
        linear = [v for v in carried if rng.random() < 0.5]
        if start:
            v = Var(f"c{n}", "f", 1.0, False, len(self.trips))
            self.emit(f"{v.name} = {start}")
            carried, linear = [v], [v]
            self.kept.append(v.name)
        elif not carried or rng.random() < 0.4:
            c = f"c{n}"
            self.emit(f"{c} = {self.const(-0.9, 0.9)}")
            if self.on("bareret") and not self.in_helper and len(self.scopes) == 1 \
                    and rng.random() < 0.5:
                v = Var(c, "f", 1.0, False, len(self.trips))
                self.kept.append(c)
                linear.append(v)
            else:
                v = self.declare(c, "f", 1.0)
                if rng.random() < 0.5:
                    linear.append(v)
            carried.append(v)
        reads = [v.name if v.bound <= 2.0 else f"math.tanh({v.name})" for v in self.vars("f")
                 if v not in linear]
        j, trips = f"j{n}", rng.randint(2, 5)
        if rng.random() < 0.6:
            self.emit(f"{j} = 0")
            self.emit(f"while {j} < {trips}:")
            self.emit(f"    {j} += 1")
        else:
            self.emit(f"for {j} in range({trips}):")
        self.indent += 1
        self.trips.append(trips)
        if rng.random() < 0.4:
            self.emit(f"if {j} % 3 == 0:")
            self.emit("    continue")
        leaves = [v.name for v in carried if v not in linear] + reads + [f"0.1 * {j}"]
        if not self.in_helper and rng.random() < 0.5:
            leaves.append(f"x[{j} % {L}]")
        prev = None         # each temporary reads the one before: the chain reaches the update
        for v in linear:
            prev = f"t{n}_{v.name}"
            self.emit(f"{prev} = {v.name} {rng.choice('+-')} {self.num_expr(leaves, 1)}")
        pairs = [h for h in self.helpers if h.ret == ("f", "f") and set(h.params) == {"f"}
                 and not (h.packed or h.kw or h.depth)]
        for k in range(rng.randint(2, 4)):
            t = f"t{n}_{k}"
            if pairs and rng.random() < 0.3:
                h = rng.choice(pairs)
                args = [f"math.tanh({rng.choice(leaves)})" for _ in h.params]
                if prev:
                    args[0] = f"math.tanh({prev})"
                self.emit(f"{t}, _ = {h.name}({', '.join(args)})" if rng.random() < 0.5
                          else f"_, {t} = {h.name}({', '.join(args)})")
                prev = f"math.tanh({t})"
                continue
            e = self.num_expr(leaves, 2)
            if prev:
                e = self.pick([(2, f"math.tanh({prev}) * {e}"), (1, f"({prev} + {e})"),
                               (1, f"math.sin({prev} * {e})")])
            self.emit(f"{t} = {_strip(e)}")
            leaves.append(t)
            prev = t
        for v in carried:
            e = f"{prev} + {self.num_expr(leaves, 1)}"
            self.emit(f"{v.name} = 0.6 * {v.name} + 0.4 * math.tanh({e})")
            v.bound = max(v.bound, 1.0)
        if rng.random() < 0.5:
            self.emit(f"if {rng.choice(carried).name} > {self.const(-0.5, 0.9)}:")
            self.emit("    break")
        self.trips.pop()
        self.indent -= 1

    def num_expr(self, leaves: list[str], depth: int) -> str:
        """A float of `leaves` (numbers of magnitude at most about 2) by scalar arithmetic
        and `math` functions alone, of magnitude at most about 4."""
        rng = self.rng
        if depth <= 0:
            return rng.choice(leaves) if rng.random() < 0.85 else self.const()
        a, b = self.num_expr(leaves, depth - 1), self.num_expr(leaves, depth - 1)
        return self.pick([(2, f"{a} * {b}"), (2, f"({a} + {b})"), (1, f"({a} - {b})"),
                          (1, f"math.sin({a})"), (1, f"math.tanh({a} * {b})"),
                          (1, f"math.exp(-{a} * {a})"), (1, f"{a} / (1.0 + {b} * {b})"),
                          (1, f"math.sqrt(1.0 + {a} * {a})")])

    def bare_return(self, e: str) -> None:
        """`return e`, or ("bareret") `v = e; return v` of a float v the function assigned, or
        `c = e`, a loop of numbers carrying c ("numloop"), `return c`;
        the floats a "numloop" kept out of scope (`kept`) are added to e, and one of them is
        v (c0 = e + c0; return c0)."""
        own = [v.name for v in self.vars("f") if v.name not in self.param_names]
        if self.tvs and not self.in_helper:
            e = " + ".join([e] + self.tvs)
        if self.on("numloop") and self.on("bareret") and not self.in_helper \
                and self.ext.random() < 0.3:
            # the result carried by a last loop of numbers and returned as it left it
            with self.drawing_ext():
                self.e_numloop(0, " + ".join([e] + self.kept))
            self.emit(f"return {self.kept[-1]}")
            return
        if self.kept:
            e = " + ".join([e] + self.kept)
            with self.drawing_ext():
                v = self.rng.choice(self.kept)
        elif own and self.on("bareret") and self.ext.random() < 0.5:
            with self.drawing_ext():
                v = self.rng.choice(own)
        else:
            self.emit(f"return {e}")
            return
        self.emit(f"{v} = {e}")
        self.emit(f"return {v}")

    def e_rowops(self, level: int) -> None:
        """An owned array's row, column, slice or element multiplied or divided in place by
        a factor of magnitude at most one (its magnitude estimate stays), now and then in a
        `while` loop on a counter over the rows or elements."""
        v = self.rng.choice(self.vars("v", True) + self.vars("m", True))
        dim = R if v.kind == "m" else L
        looped = len(self.trips) < self.cfg["loops"] and self.rng.random() < 0.4
        if looped:
            k = f"j{next(self.ext_names)}"
            limit = self.pick([(2, "n" if not self.in_helper else str(R)), (1, str(R))])
            self.emit(f"{k} = 0")
            self.emit(f"while {k} < {limit}:")
            self.indent += 1
            self.emit(f"{k} += 1")
            self.trips.append(R)
            self.scopes.append({k: IntVar(k, R)})
            at = f"{k} - 1"
        else:
            at = self.index(dim)
        if v.kind == "m":
            target, part = self.pick([(3, (f"{v.name}[{at}]", "v")),
                                      (1, (f"{v.name}[:, {self.index(L)}]", "c")),
                                      (1, (f"{v.name}[{at}, {self.index(L)}]", "f")),
                                      (1, (f"{v.name}[{at}, 1:3]", "s"))])
        else:
            target, part = self.pick([(3, (f"{v.name}[{at}]", "f")), (1, (f"{v.name}[1:3]", "s"))])
        t, _ = self.squash("f", *self.expr("f", 1), force=True)
        t = _strip(t)
        opts = [(2, ("*=", self.const(-0.95, 0.95))), (2, ("*=", f"math.tanh({t})")),
                (2, ("/=", f"1.0 + {t} * {t}")), (1, ("/=", f"2.0 + math.cos({t})"))]
        if part == "v":
            e, _ = self.squash("v", *self.expr("v", 1), force=True)
            opts.append((2, ("*=", f"np.tanh({_strip(e)})")))
        op, rhs = self.pick(opts)
        self.emit(f"{target} {op} {rhs}")
        if looped:
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1

    # -- the newer language's statements (fuzz20): structures, starred targets, slogdet --------
    def small_expr(self, kind: str, d: int = 1, cap: float = PARAM_BOUND) -> tuple[str, float]:
        """An expression of `kind` whose magnitude estimate is at most `cap` (squashed)."""
        e, b = self.expr(kind, d)
        if b > cap:
            e, b = self.squash(kind, e, b, force=True)
        return _strip(e), b

    def take_float(self, e: str) -> None:
        """math.tanh(e) added to a float of the function, or held by a new float z<k>."""
        floats = [v for v in self.vars("f") if v.name not in self.param_names]
        if floats and self.rng.random() < 0.4:
            v = self.rng.choice(floats)
            self.emit(f"{v.name} += math.tanh({e})")
            v.bound += self.mult(v)
            return
        name = f"z{next(self.ext_names)}"
        self.emit(f"{name} = math.tanh({e})")
        self.declare(name, "f", 1.0)

    def e_structs(self) -> None:
        """A dict local (a display, keys added and updated by constant keys, read by key, by
        .values()/.items() and in loops over it), given whole to a helper taking a dict, or a
        record (NamedTuple / dataclass) made here, replaced, read by field, given to a helper
        or its method called ("structs")."""
        c = self.const(-0.9, 0.9)
        forms = [(1.5, "dict")]
        if self.dhelpers:
            forms.append((2, "dcall"))
        if "Rec" in self.records:
            forms.append((2, "rec"))
        if "Par" in self.records:
            forms.append((2, "par"))
        form = self.pick(forms)
        (v, bv), (m, bm), (t, bt) = (self.small_expr("v"), self.small_expr("m"),
                                     self.small_expr("f"))
        if form in ("dict", "dcall"):
            d = f"dc{next(self.ext_names)}"
            keys = {"A": m, "r": v, "c": t}
            if form == "dict":
                names = self.rng.sample(sorted(keys), self.rng.choice((2, 3)))
                if self.rng.random() < 0.4:
                    self.emit(f"{d} = {{}}")
                    for k in names:
                        self.emit(f'{d}["{k}"] = {keys[k]}')
                else:
                    self.emit(f"{d} = {{{', '.join(f'{chr(34)}{k}{chr(34)}: {keys[k]}' for k in names)}}}")
                if "r" in names and self.rng.random() < 0.5:
                    self.emit(f'{d}["r"] = np.tanh({d}["r"] * {c})')
                if "c" in names and self.rng.random() < 0.5:
                    e, _ = self.small_expr("f")
                    self.emit(f'{d}["c"] += math.tanh({e})')
                reads = [(2, f"np.sum({d}[\"{names[0]}\"]) * {c}")]
                if "A" in names and "r" in names:
                    reads.append((2, f'np.sum({d}["A"] @ {d}["r"]) * {c}'))
                reads.append((1, f"sum(np.sum(v) for v in {d}.values()) * {c}"))
                reads.append((1, f"len({d}) * {c}"))
                e = self.pick(reads)
                if self.rng.random() < 0.35 and len(self.trips) < self.cfg["loops"]:
                    s = f"sd{next(self.ext_names)}"
                    self.emit(f"{s} = 0.0")
                    self.emit(f"for key, val in {d}.items():")
                    self.emit(f"    {s} += np.sum(np.tanh(val)) * {c}")
                    e = f"{s} + {e}"
                self.take_float(e)
                return
            h = self.rng.choice(self.dhelpers)
            a, _ = self.small_expr("f")
            display = f'{{"A": {m}, "r": {v}, "c": {t}}}'
            if self.rng.random() < 0.5:
                self.emit(f"{d} = {display}")
                display = d
            self.take_float(f"{h}({display}, {a})")
            return
        q = f"rq{next(self.ext_names)}"
        a, _ = self.small_expr("f")
        if form == "rec":
            made = self.pick([(1, f"Rec({m}, {v}, {t})"), (1, f"Rec(A={m}, r={v}, c={t})")])
            self.emit(f"{q} = {made}")
            if self.rng.random() < 0.4:
                e, _ = self.small_expr("f")
                q2 = f"rq{next(self.ext_names)}"     # (a record's name is assigned once)
                self.emit(f"{q2} = {q}._replace(c=math.tanh({e}))")
                q = q2
            self.take_float(self.pick([(2, f"{q}.score({a})"), (1, f"gq0({q}, {a})"),
                                       (1, f"np.sum({q}.r * {q}.r) * {c} + {q}.c"),
                                       (1, f"{q}[2] * np.sum({q}[0][0])")]))
            return
        made = self.pick([(1, f"Par({m}, {v})"), (1, f"Par(A={m}, r={v}, c={t})")])
        self.emit(f"{q} = {made}")
        if self.rng.random() < 0.4:
            q2 = f"rq{next(self.ext_names)}"
            self.emit(f"{q2} = dataclasses.replace({q}, r=np.tanh({q}.r * {c}))")
            q = q2
        self.take_float(self.pick([(2, f"gq0({q}, {a})"), (1, f"{q}.c * np.sum({q}.A @ {q}.r)")]))

    def e_starred(self) -> None:
        """Starred targets: `a, *rest = (..)`, `a, *mid, b = (..)`, `r, *rs = S` (rows),
        `*init, last = np.split(u, 4)`, `first, *_ = g(...)` ("starred")."""
        c = self.const(-0.9, 0.9)
        k = next(self.ext_names)
        tuples = [h for h in self.helpers if isinstance(h.ret, tuple)]
        form = self.pick([(2, "rest"), (2, "mid"), (2, "rows"), (self.on("split"), "split"),
                          (2 if tuples else 0, "first")])
        if form == "rest":
            fs = [self.small_expr("f")[0] for _ in range(self.rng.choice((2, 3)))]
            self.emit(f"sa{k}, *srest{k} = ({', '.join(fs)})")
            self.take_float(self.pick([(2, f"sa{k} + sum(srest{k}) * {c}"),
                                       (1, f"sa{k} * srest{k}[0] * {c} + len(srest{k})")]))
        elif form == "mid":
            (u, _), (t, _), (t2, _), (u2, _) = (self.small_expr("v"), self.small_expr("f"),
                                                self.small_expr("f"), self.small_expr("v"))
            self.emit(f"sa{k}, *smid{k}, sb{k} = ({u}, {t}, {t2}, {u2})")
            self.take_float(f"np.sum(sa{k} * sb{k}) * {c} + smid{k}[0] * smid{k}[-1]")
        elif form == "rows":
            ms = [v.name for v in self.vars("m")]
            S = self.rng.choice(ms) if ms else self.small_expr("m")[0]
            self.emit(f"srow{k}, *srows{k} = {S}")
            self.take_float(self.pick([(2, f"np.sum(srow{k} * srows{k}[-1]) * {c}"),
                                       (1, f"np.sum(np.tanh(srows{k}[0])) * {c} + len(srows{k})")]))
        elif form == "split":
            u, _ = self.small_expr("v")
            self.emit(f"*init{k}, last{k} = np.split({u}, {L})")
            self.take_float(f"np.sum(init{k}[0] * init{k}[-1]) * {c} + last{k}[0]")
        else:
            h = self.rng.choice(tuples)
            call = self.call_text(h, 2)
            kind = h.ret[0]
            if kind == "s":
                return
            name = f"z{k}"
            self.emit(f"{name}, *_ = {call}")
            self.declare(name, kind, h.bound, owned=kind != "f")

    def e_slogdet(self) -> None:
        """sign, logdet = np.linalg.slogdet(A) of an SPD matrix; a Cholesky factor solved
        against ("linalg2")."""
        k = next(self.ext_names)
        A, lam = self.spd(1, self.rng.choice((2, 3)))
        c = self.const(-0.9, 0.9)
        if self.rng.random() < 0.6:
            self.emit(f"sg{k}, ld{k} = np.linalg.slogdet({A})")
            self.take_float(f"sg{k} * ld{k} * {c}")
            return
        A3, _ = self.spd(1, R)
        m, bm = self.small_expr("m", cap=CAP)
        self.emit(f"ch{k} = np.linalg.cholesky({A3})")
        self.emit(f"z{k} = np.linalg.solve(ch{k}, {m})")
        self.declare(f"z{k}", "m", bm, owned=True)

    # -- control and data structure (fuzz21): nested loops, zero-trip loops, lists, aliases -----
    def loop_header(self, j: str, level_ints: bool = True) -> tuple[list[str], int, int, bool]:
        """The header lines of a loop on `j` ("nest"/"zerotrip"): a counted range (negative
        steps, bounds of enclosing loop variables, maybe empty), reversed/enumerate forms, or
        a while loop on a counter with a data test (`j` incremented first).  Returns (lines,
        largest trip count, largest value of j, surely runs)."""
        rng = self.rng
        opts = [(2, ([f"for {j} in range({L} - 1, 0, -1):"], L - 1, L - 1, True)),
                (1, ([f"for {j} in range({L} - 1, -1, -2):"], 2, L - 1, True)),
                (self.on("iters"), ([f"for {j} in reversed(range(1, {L})):"], L - 1, L - 1, True)),
                (1.5, ([f"for {j} in range(2):"], 2, 1, True))]
        if not self.in_helper:
            opts += [(2, ([f"for {j} in range(n):"], R, R - 1, True)),
                     (1.5, ([f"for {j} in range(n - 1):"], R - 1, R - 2, False)),
                     (1, ([f"for {j} in range(n, {R}):"], R - 1, R - 1, False)),
                     (1, ([f"for {j} in range(n, 0, -1):"], R, R, True)),
                     (1, ([f"for {j} in range(n - 2, -1, -1):"], R - 1, R - 2, False))]
        for iv in self.ints if level_ints else ():
            if 0 <= iv.hi < L:
                opts += [(1.5, ([f"for {j} in range({iv.name} + 1, {L}):"], L - 1, L - 1, False)),
                         (1, ([f"for {j} in range({iv.name}, -1, -1):"], iv.hi + 1, iv.hi, True)),
                         (1, ([f"for {j} in range({iv.name}):"], max(iv.hi, 1), iv.hi - 1, False))]
        limit = rng.randint(2, 4)
        opts += [(2, ([f"{j} = 0", f"while {j} < {limit} and {self.cond(1)}:", f"    {j} += 1"],
                      limit, limit, False))]
        lines, trips, hi, runs = self.pick(opts)
        return lines, trips, max(hi, 0), runs

    def early_exit(self, loop_level: int) -> None:
        """Now and then, a guarded break, continue or (in f, or in a helper returning arrays and
        floats) an early return, inside a loop."""
        rng = self.rng
        opts = [(2, "break"), (1, "continue")]
        ret = self.cur_ret
        if not self.in_helper:
            opts.append((1.2 * self.on("return"), "return"))
        elif ret is not None and "s" not in (ret if isinstance(ret, tuple) else (ret,)):
            opts.append((1.2, "return"))
        what = self.pick(opts)
        if what != "return":
            self.emit_guarded(what)
            return
        if not self.in_helper:
            self.emit_guarded(f"return {self.ret_expr()}")
            return
        parts = []
        for kind in (ret if isinstance(ret, tuple) else (ret,)):
            e, b = self.squash(kind, *self.expr(kind, 1), force=True)
            e = _strip(e)
            if kind != "f" and _fresh_array(kind, e) != e:
                e = f"{_operand(e)} * 1.0"
            parts.append(e)
            self.early_bound = max(self.early_bound, b)
        self.emit_guarded(f"return {', '.join(parts)}")

    def e_nest(self, level: int) -> None:
        """Loops nested two or three deep ("nest"): counted ranges with negative steps and
        bounds of the enclosing loop's variable (possibly empty), while loops on a counter and
        a data test, and a convergence loop `while abs(d) > tol and j < K` whose trip count
        depends on the data; break/continue/return guarded at each level, a `for ... else`
        now and then."""
        rng = self.rng
        room = self.cfg["loops"] + 1 - len(self.trips)
        depth = min(room, self.pick([(3, 2), (1, 3)]))
        opened = []
        for k in range(depth):
            j = f"j{next(self.ext_names)}"
            conv = None
            if k == 0 and self.vars("f") and rng.random() < 0.25:
                d = f"d{next(self.ext_names)}"     # a convergence loop
                e, _ = self.squash("f", *self.expr("f", 2), force=True)
                self.emit(f"{d} = {_strip(e)}")
                limit = rng.randint(2, 5)
                self.emit(f"{j} = 0")
                self.emit(f"while abs({d}) > {self.const(0.05, 0.4)} and {j} < {limit}:")
                self.emit(f"    {j} += 1")
                conv = self.declare(d, "f", 1.6)
                lines, trips, hi = [], limit, limit
            else:
                lines, trips, hi, _ = self.loop_header(j)
            for line in lines:
                self.emit(line)
            self.indent += 1
            self.trips.append(trips)
            self.scopes.append({j: IntVar(j, hi)})
            opened.append((j, conv, lines[:1] and lines[0].startswith("for")))
            if rng.random() < 0.3:
                self.emit_guarded("continue")
            if k < depth - 1 and rng.random() < 0.5:
                self.block_stmts(1, level + k + 1)
        self.block_stmts(self.small() + 1, level + depth)
        for k in reversed(range(depth)):
            j, conv, is_for = opened[k]
            if rng.random() < 0.6:
                self.early_exit(k)
            if conv is not None:
                e, _ = self.squash("f", *self.expr("f", 1), force=True)
                self.emit(f"{conv.name} = 0.6 * {conv.name} + 0.4 * math.tanh({_strip(e)})")
            if k < depth - 1 and rng.random() < 0.3:
                self.stmt(level + k + 1)
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1
            if k > 0 and self.on("forelse") and self.vars("f") and rng.random() < 0.25:
                self.emit("else:")
                v = rng.choice(self.vars("f"))
                e, _ = self.squash("f", *self.expr("f", 1), force=True)
                self.emit(f"    {v.name} += math.tanh({_strip(e)})")
                v.bound += self.mult(v)

    def e_zerotrip(self, level: int) -> None:
        """A loop that may run zero times ("zerotrip"): a float assigned before it and updated
        in it, a value assigned only in it (and its loop variable) read after it only where
        the loop surely ran -- under the test that says so (`if n > 1:`) or a flag it set
        (`ran = True`): the reads the unbound-local checks guard."""
        rng = self.rng
        k = next(self.ext_names)
        j, z, q = f"j{k}", f"z{k}", f"zq{k}"
        forms = [(2, (f"range(n - 1)", "n > 1", R - 2)), (1, (f"range(1, n)", "n >= 2", R - 1)),
                 (1, (f"range(n, {R})", f"n < {R}", R - 1)),
                 (1, (f"range(n - 2, -1, -1)", "n - 2 >= 0", R - 2)),
                 (1, (f"range({L} - n, 2)", f"{L} - n < 2", 1))]
        if self.in_helper:
            forms = [(1, ("range(0)", None, 0)), (1, ("range(3, 3)", None, 0))]
        for iv in self.ints:
            if 0 <= iv.hi < L:
                forms += [(1.5, (f"range({iv.name})", f"{iv.name} > 0", max(iv.hi - 1, 0))),
                          (1, (f"range({iv.name} + 1, {L})", f"{iv.name} + 1 < {L}", L - 1))]
        text, test, hi = self.pick(forms)
        flag = test is None or rng.random() < 0.4
        e, _ = self.squash("f", *self.expr("f", 2), force=True)
        self.emit(f"{z} = {_strip(e)}")
        if flag:
            self.emit(f"ran{k} = False")
        if self.on("iters") and rng.random() < 0.2:
            text = f"reversed({text})"
        self.emit(f"for {j} in {text}:")
        self.indent += 1
        self.trips.append(max(hi + 1, 1))
        self.scopes.append({j: IntVar(j, hi)})
        if flag:
            self.emit(f"ran{k} = True")
        kind = self.pick([(2, "f"), (1, "v")])
        e, b = self.squash(kind, *self.expr(kind, 2), force=True)
        self.emit(f"{q} = {_fresh_array(kind, _strip(e))}")
        if rng.random() < 0.5:
            self.block_stmts(1, level + 1)
        e, _ = self.squash("f", *self.expr("f", 1), force=True)
        red = q if kind == "f" else f"np.sum({q})"
        self.emit(f"{z} = 0.5 * {z} + 0.5 * math.tanh({red} * {self.const(-0.9, 0.9)} + "
                  f"{_strip(e)})")
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1
        self.declare(z, "f", 1.6)
        floats = [v for v in self.vars("f") if v.name not in self.param_names and v.name != z]
        acc = rng.choice(floats) if floats else None
        guard = f"ran{k}" if flag else test
        use = f"{red} * {self.const(-0.9, 0.9)}" + (f" + 0.1 * {j}" if rng.random() < 0.5 else "")
        if acc is None or rng.random() < 0.3:
            out = f"w{k}"
            self.emit(f"{out} = math.tanh({use}) if {guard} else {z}")
            self.declare(out, "f", 1.6)
            return
        self.emit(f"if {guard}:")
        self.emit(f"    {acc.name} += math.tanh({use})")
        acc.bound += self.mult(acc)

    def e_condread(self, level: int) -> None:
        """A name assigned under a condition held by a bool and read under the same one
        ("condread"): ok = c; if ok: y = e ... if ok: t += g(y) (or `if ok and y > c:`, a
        conditional value `(g(y) if ok else 0.0)`, `if not ok: ... else: ...`)."""
        rng = self.rng
        k = next(self.ext_names)
        ok, y = f"ok{k}", f"yc{k}"
        self.emit(f"{ok} = {self.cond(2)}")
        kind = self.pick([(2, "f"), (1, "v"), (0.5, "m")])
        e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
        self.emit(f"if {ok}:")
        self.emit(f"    {y} = {_fresh_array(kind, _strip(e))}")
        if rng.random() < 0.5:
            self.emit("else:")
            self.indent += 1
            self.block(1, level + 1)
            self.indent -= 1
        if rng.random() < 0.5:
            self.stmt(level)
        red = y if kind == "f" else f"np.sum({y})"
        c = self.const(-0.9, 0.9)
        floats = [v for v in self.vars("f") if v.name not in self.param_names]
        form = self.pick([(2, "if"), (1.5, "and"), (1.5, "ifexp"), (1, "not")] if floats
                         else [(1, "ifexp")])
        if form == "ifexp":
            out = f"w{k}"
            self.emit(f"{out} = math.tanh({red} * {c}) if {ok} else {self.const(-0.9, 0.9)}")
            self.declare(out, "f", 1.0)
            return
        acc = rng.choice(floats)
        if form == "if":
            self.emit(f"if {ok}:")
        elif form == "and":
            self.emit(f"if {ok} and {red} > {self.const(-0.5, 0.5)}:")
        else:
            self.emit(f"if not {ok}:")
            e, _ = self.squash("f", *self.expr("f", 1), force=True)
            self.emit(f"    {acc.name} += math.tanh({_strip(e)})")
            self.emit("else:")
        self.emit(f"    {acc.name} += math.tanh({red} * {c})")
        acc.bound += self.mult(acc)

    def e_lists(self, level: int) -> None:
        """Lists ("lists2"): appends in a loop nest then np.array/np.stack/sum of the list, a
        list of arrays indexed by a loop variable, comprehensions with a condition (summed,
        counted, made an array), a loop appending until a break."""
        rng = self.rng
        k = next(self.ext_names)
        hs, c = f"ls{k}", self.const(-0.9, 0.9)
        form = self.pick([(2, "nest"), (2, "index"), (2, "compif"), (1, "breaks")])
        if form == "nest" and len(self.trips) + 2 <= self.cfg["loops"] + 1:
            kind = self.pick([(1, "f"), (1, "v")])
            i, j = f"jo{k}", f"j{k}"
            self.emit(f"{hs} = []")
            outer = "range(n)" if not self.in_helper else "range(2)"
            self.emit(f"for {i} in {outer}:")
            inner = self.pick([(1, ("range(2)", 1)), (1, (f"range({i} + 1)", R - 1))])
            self.emit(f"    for {j} in {inner[0]}:")
            self.indent += 2
            self.trips += [R, inner[1] + 1]
            self.scopes.append({i: IntVar(i, R - 1), j: IntVar(j, inner[1])})
            e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
            e = _strip(e)
            if rng.random() < 0.3:
                self.emit(f"if {self.cond(1)}:")
                self.emit(f"    {hs}.append({e})")
                self.emit("else:")
                e2, _ = self.squash(kind, *self.expr(kind, 1), force=True)
                self.emit(f"    {hs}.append({_strip(e2)})")
            else:
                self.emit(f"{hs}.append({e})")
            self.scopes.pop()
            del self.trips[-2:]
            self.indent -= 2
            use = self.pick([(2, f"np.sum(np.array({hs}) * {c})"),
                             (1, f"np.sum(np.stack({hs})[-1]) * {c}"),
                             (1, f"np.sum(sum({hs})) * {c}"),
                             (1, f"np.mean({hs}) + len({hs}) * 0.01")])
            self.take_float(use)
            return
        if form == "index":
            kind = self.pick([(1, "v"), (1, "f")])
            j = f"jc{k}"
            self.scopes.append({j: IntVar(j, R - 1)})
            e, _ = self.squash(kind, *self.expr(kind, 1), force=True)
            self.scopes.pop()
            src = "M" if not self.in_helper else f"np.ones(({R}, {L}))"
            if kind == "v":
                self.emit(f"{hs} = [np.tanh({src}[{j}] * {c}) + {_strip(e)} for {j} in range({R})]")
            else:
                self.emit(f"{hs} = [{_strip(e)} for {j} in range({R})]")
            i = f"jo{k}"
            acc = f"sx{k}"
            self.emit(f"{acc} = 0.0")
            head, trips, hi = self.pick([(2, ("range(n)" if not self.in_helper else f"range({R})",
                                                R, R - 1)),
                                          (1, (f"range({R} - 1, 0, -1)", R - 1, R - 1))])
            self.emit(f"for {i} in {head}:")
            at = self.pick([(2, i), (1, f"-1 - {i}"), (1, f"{i} - 1")])
            red = f"np.sum({hs}[{at}] * {hs}[{i}])" if kind == "v" else f"{hs}[{at}] * {hs}[{i}]"
            self.emit(f"    {acc} += math.tanh({red} * {c})")
            self.declare(acc, "f", float(R))
            return
        if form == "compif":
            j = f"jc{k}"
            self.scopes.append({j: IntVar(j, L - 1)})
            e, _ = self.squash("f", *self.expr("f", 1), force=True)
            self.scopes.pop()
            c2 = self.const(-0.6, 0.6)
            src = "x" if not self.in_helper else f"np.linspace(-1.0, 1.0, {L})"
            test = self.pick([(2, f"{src}[{j}] > {c2}"), (1, f"{j} % 2 == 0"),
                              (1, f"{j} != {rng.randrange(L)}"),
                              (1, f"{_strip(e)} > {c2}")])
            if rng.random() < 0.4 and not self.in_helper:
                r = f"rv{k}"
                jr = f"jr{k}"        # (the row 0 always: an empty list of arrays has no stack)
                self.emit(f"{hs} = [np.tanh({r} * {c}) for {jr}, {r} in enumerate(M) "
                          f"if {jr} == 0 or np.sum({r}) > {c2}]")
                self.take_float(f"np.sum(sum({hs}, np.zeros({L}))) * {c} + len({hs}) * 0.1")
                return
            self.emit(f"{hs} = [{_strip(e)} * {src}[{j}] for {j} in range({L}) if {test}]")
            self.take_float(self.pick([(2, f"sum({hs}) * {c}"),
                                       (1, f"np.sum(np.array({hs})) * {c} + len({hs}) * 0.1"),
                                       (1, f"sum({hs}, {c})")]))
            return
        # breaks: append until a data-dependent break (the list keeps its first element)
        kind = self.pick([(1, "f"), (1, "v")])
        e, _ = self.squash(kind, *self.expr(kind, 1), force=True)
        self.emit(f"{hs} = [{_strip(e)}]")
        i = f"jo{k}"
        self.emit(f"for {i} in {'range(n)' if not self.in_helper else 'range(3)'}:")
        self.indent += 1
        self.trips.append(R)
        self.scopes.append({i: IntVar(i, R - 1)})
        e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
        self.emit(f"{hs}.append({_strip(e)})")
        self.emit_guarded("break")
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1
        self.take_float(self.pick([(1, f"np.sum(np.array({hs})[-1]) * {c}"),
                                   (1, f"np.sum(np.stack({hs}) * {c})"),
                                   (1, f"np.sum({hs}[len({hs}) - 1]) * {c}")]))

    def e_alias(self, level: int) -> None:
        """Aliases, views and in-place updates ("alias"): `y = u` then writes through y (u
        never read again: its name leaves the scope), a row view read and then its matrix
        written (the view not read after the write, or now and then read: refused), and
        recurrences writing an array in a loop from its own earlier entries (u[j] = .. u[j -
        1] .., S[j] = .. S[j - 1] .., u[j:] += e)."""
        rng = self.rng
        k = next(self.ext_names)
        here = [v for v in self.scopes[-1].values() if isinstance(v, Var) and v.owned
                and v.kind in ("v", "m") and v.name not in self.param_names
                and v.level == len(self.trips)]
        owned = self.vars("v", True) + self.vars("m", True)
        forms = [(2 if here else 0, "rebind"), (1.5 if self.vars("m", True) else 0, "view"),
                 (2 if len(self.trips) < self.cfg["loops"] + 1 else 0, "recur")]
        if not any(w for w, _ in forms):
            return
        form = self.pick(forms)
        if form == "rebind":
            u = rng.choice(here)
            y = f"ya{k}"
            self.emit(f"{y} = {u.name}")
            del self.scopes[-1][u.name]
            v = self.declare(y, u.kind, u.bound, owned=True)
            dim = L if u.kind == "v" else R
            for _ in range(rng.randint(1, 2)):
                target = self.pick([(2, f"{y}[{self.index(dim)}]"), (1, f"{y}[1:3]")])
                self._write(v, target, "f")
            return
        if form == "view":
            S = rng.choice(self.vars("m", True))
            r = f"rv{k}"
            i = self.index(R)
            self.emit(f"{r} = {S.name}[{i}]")
            c = self.const(-0.9, 0.9)
            self.take_float(f"np.sum(np.tanh({r}) * {c})")
            self._write(S, f"{S.name}[{self.index(R)}, {self.index(L)}]", "f")
            if rng.random() < 0.15:     # the view read after the write: refused (an alias)
                self.take_float(f"np.sum({r}) * {c}")
            return
        v = rng.choice(owned)
        j = f"j{k}"
        dim = L if v.kind == "v" else R
        head = self.pick([(2, f"range(1, {dim})"), (1, f"range({dim} - 1, 0, -1)"),
                          (self.on("iters"), f"reversed(range(1, {dim}))")])
        self.emit(f"for {j} in {head}:")
        self.indent += 1
        self.trips.append(dim - 1)
        self.scopes.append({j: IntVar(j, dim - 1)})
        c, c2 = self.const(-0.9, 0.9), self.const(0.2, 0.8)
        ekind = "f" if v.kind == "v" else self.pick([(1, "v"), (1, "f")])
        e, _ = self.squash(ekind, *self.expr(ekind, 1), force=True)
        e = _strip(e)
        tanh = "math.tanh" if v.kind == "v" else "np.tanh"
        form = self.pick([(3, "prev"), (1, "tail")])
        if form == "prev":
            self.emit(f"{v.name}[{j}] = {c2} * {v.name}[{j} - 1] + {1 - float(c2):.2f} * "
                      f"{tanh}({v.name}[{j}] * {c} + {e})")
            v.bound = max(v.bound, 1.0)
        else:
            part = f"{v.name}[{j}:]" if rng.random() < 0.5 else f"{v.name}[:{j}]"
            f, _ = self.squash("f", *self.expr("f", 1), force=True)
            self.emit(f"{part} += math.tanh({_strip(f)})")
            v.bound += self.mult(v) * 1.0
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1

    # -- fuzz22: transformed functions, match, del, more dicts ---------------------------------
    def graddable(self) -> list:
        """Generated helpers `jitad.grad` can take as written: (vector, float) or two floats
        to a float, no tuple parameter, depth or required keyword."""
        return [h for h in self.helpers if h.ret == "f" and h.params in (("v", "f"), ("f", "f"))
                and not h.packed and not h.depth and h.kwonly != "required"]

    def x_called(self, kind: str, d: int):
        """A transformed function called here ("called"): jitad.grad / jacfwd of the module
        helpers ge0..2 (or of a generated helper g<k>), its result of `kind`."""
        if kind == "s" or not (self.called or self.graddable()):
            return None
        (u, _), (t, _), (t2, _) = (self.small_expr("v", d), self.small_expr("f", d, 1.6),
                                   self.small_expr("f", d, 1.6))
        u2, b2 = self.small_expr("v", d)
        forms = []
        if self.called:
            forms += {
                "f": [(2, (f"jitad.grad(ge0, wrt=1)({u}, {t})", 0.5 * L * PARAM_BOUND + 0.4)),
                      (2, (f"jitad.grad(ge2)({t}, {t2})", 3.0)),
                      (1, (f"jitad.grad(ge2, wrt=1)({t}, {t2})", 3.0)),
                      (1, (f"jitad.grad(jitad.grad(ge2))({t}, {t2})", 6.0)),
                      (1, (f"np.trace(jitad.jacfwd(ge1)({u}, {t}))", 2.0 * L)),
                      (1, (f"np.sum(ge0_grad({u}, {t}) * {u2})", L * b2))],
                "v": [(2, (f"jitad.grad(ge0)({u}, {t})", 1.0)),
                      (1, (f"ge0_grad({u}, {t})", 1.0)),
                      (1, (f"jitad.jacfwd(ge1, wrt=1)({u}, {t})", PARAM_BOUND)),
                      (1, (f"(jitad.jacfwd(ge1)({u}, {t}) @ {u2})", 2.0 * L * b2))],
                "m": [(2, (f"jitad.jacfwd(ge1)({u}, {t})[:{R}]", 2.0)),
                      (1, (f"(jitad.jacfwd(ge1)({u}, {t}).T)[1:]", 2.0))],
            }[kind]
        for h in self.graddable():
            a = (u, t) if h.params == ("v", "f") else (t, t2)
            if kind == "f":
                forms.append((1, (f"math.tanh(jitad.grad({h.name}, wrt=1)({a[0]}, {a[1]}))",
                                  1.0)))
                if h.params == ("f", "f"):
                    forms.append((1.5, (f"math.tanh(jitad.grad({h.name})({a[0]}, {a[1]}))", 1.0)))
            elif kind == "v" and h.params == ("v", "f"):
                forms.append((1.5, (f"np.tanh(jitad.grad({h.name})({a[0]}, {a[1]}))", 1.0)))
        return self.pick(forms) if forms else None

    def e_called(self) -> None:
        """gK, hK = jitad.grad(ge0, wrt=(0, 1))(u, t) unpacked, or vK, dK = ge2_vg(t, t2) (a
        value_and_grad object kept in a global); in a loop now and then ("called")."""
        k = next(self.ext_names)
        loop = len(self.trips) < self.cfg["loops"] and self.rng.random() < 0.3
        if loop:
            text, trips, hi, _ = self.range_header()
            j = f"j{k}"
            acc = f"ca{k}"
            self.emit(f"{acc} = 0.0")
            self.enter_for(j, text, trips, hi)
        (u, _), (t, _), (t2, _) = (self.small_expr("v"), self.small_expr("f", 1, 1.6),
                                   self.small_expr("f", 1, 1.6))
        c = self.const(-0.9, 0.9)
        if self.rng.random() < 0.5:
            self.emit(f"gg{k}, gh{k} = jitad.grad(ge0, wrt=(0, 1))({u}, {t})")
            use = f"np.sum(gg{k} * {u}) * {c} + gh{k} * 0.1"
        else:
            self.emit(f"gv{k}, gd{k} = ge2_vg({t}, {t2})")
            use = f"gv{k} * {c} + gd{k} * 0.1"
        if loop:
            self.emit(f"{acc} += math.tanh({use})")
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1
            self.take_float(f"{acc} * 0.5")
            return
        self.take_float(use)

    def e_match(self, level: int) -> None:
        """match <int>: literal cases, alternatives, a guard, a capture or the wildcard, each
        case updating a float ("match")."""
        rng = self.rng
        k = next(self.ext_names)
        # (np.argmax is "linalg"'s: without it, a constant subject where nothing else fits)
        subjects = [(1 if self.on("linalg") else 0,
                     ("int(np.argmax(" + self.small_expr("v")[0] + "))", L - 1)),
                    (0 if self.on("linalg") else 0.5, ("1", 1))]
        if not self.in_helper:
            subjects += [(3, ("n", R)), (1, ("n - 1", R - 1))]
        for iv in self.ints:
            if iv.hi >= 0:
                subjects += [(3, (iv.name, iv.hi)), (1, (f"{iv.name} % 3", min(iv.hi, 2)))]
        subject, hi = self.pick(subjects)
        floats = [v for v in self.vars("f") if v.name not in self.param_names]
        if floats and rng.random() < 0.7:
            acc = rng.choice(floats)
        else:
            acc = None
            self.emit(f"mt{k} = 0.0")
        name = acc.name if acc else f"mt{k}"
        values = list(range(hi + 1))
        rng.shuffle(values)
        self.emit(f"match {subject}:")
        self.indent += 1
        cases = 0
        while values and cases < 3:
            take = values[:rng.choice((1, 1, 2))]
            del values[:len(take)]
            pattern = " | ".join(map(str, take))
            guard = f" if {self.cond(1)}" if rng.random() < 0.25 else ""
            self.emit(f"case {pattern}{guard}:")
            self.indent += 1
            if rng.random() < 0.3:
                self.block(1, level + 1)
            e, _ = self.squash("f", *self.expr("f", 2), force=True)
            self.emit(f"{name} += math.tanh({_strip(e)})")
            self.indent -= 1
            cases += 1
        last = self.pick([(2, "_"), (1, "other")])
        self.emit(f"case {last}:")
        self.indent += 1
        e, _ = self.squash("f", *self.expr("f", 1), force=True)
        extra = f" + 0.1 * other" if last == "other" else ""
        self.emit(f"{name} += math.tanh({_strip(e)}){extra}")
        self.indent -= 2
        if acc:
            acc.bound += self.mult(acc) * 1.5
        else:
            self.declare(name, "f", 1.5)

    # -- fuzz23: in-place calls, list edits, nonlocal counters, call forms ------------------------
    def e_inplace(self, level: int) -> None:
        """NumPy's in-place calls on an array the function created ("inplace", jitad/inplace.py):
        y.sort() (S.sort(axis=0 or 1)), y.fill(t), np.copyto(y, e), out= of a ufunc
        (np.tanh(e, out=y), np.multiply(y, c, out=y), np.add(c * y, np.tanh(e), out=y)) or of a
        reduction (np.mean(S, axis=0, out=u)), and `z = np.add(..., out=y)` (z is y's buffer:
        y leaves the scope, z takes its place). Magnitude estimates stay bounded in loops."""
        rng = self.rng
        owned = self.vars("v", True) + self.vars("m", True)
        y = rng.choice(owned)
        c, c2 = self.const(-0.95, 0.95), self.const(0.2, 0.8)
        e, be = self.squash(y.kind, *self.expr(y.kind, 1), force=True)
        e = _strip(e)
        forms = [(2, "sort"), (1, "fill"), (2, "copyto"), (2, "tanh"), (1, "mul"), (2, "add")]
        if y.kind == "v":
            forms.append((1.5, "mean"))
        here = y.level == len(self.trips) and y.name in self.scopes[-1] \
            and y.name not in self.param_names
        forms.append((1.5 if here else 0, "value"))
        form = self.pick(forms)
        if form == "sort":
            axis = "" if y.kind == "v" else self.pick([(1, ""), (1, "axis=0"), (1, "1"),
                                                       (1, "axis=-1")])
            self.emit(f"{y.name}.sort({axis})")
        elif form == "fill":
            t, bt = self.squash("f", *self.expr("f", 1), force=True)
            self.emit(f"{y.name}.fill({_strip(t)})")
            y.bound = max(y.bound, bt)
        elif form == "copyto":
            src, b = e, be
            if y.kind == "m" and rng.random() < 0.4:
                v, b = self.squash("v", *self.expr("v", 1), force=True)
                src = _strip(v)        # broadcast along the rows
            self.emit(f"np.copyto({y.name}, {src})")
            y.bound = max(y.bound, b)
        elif form == "tanh":
            fn = self.pick([(2, "np.tanh"), (1, "np.sin")])
            self.emit(f"{fn}({e}, out={y.name})")
            y.bound = max(y.bound, 1.0)
        elif form == "mul":
            self.emit(f"np.multiply({y.name}, {c}, out={y.name})")
        elif form == "add":
            self.emit(f"np.add({c2} * {y.name}, np.tanh({e}), out={y.name})")
            y.bound = max(y.bound, 1.0 / (1.0 - float(c2)))
        elif form == "mean":
            m, bm = self.squash("m", *self.expr("m", 1), force=True)
            self.emit(f"np.mean({_strip(m)}, axis=0, out={y.name})")
            y.bound = max(y.bound, bm)
        else:
            z = f"zo{next(self.ext_names)}"
            self.emit(f"{z} = np.add({c2} * {y.name}, np.tanh({e}), out={y.name})")
            del self.scopes[-1][y.name]
            self.declare(z, y.kind, max(y.bound, 1.0 / (1.0 - float(c2))), owned=True)

    def e_tempview(self, level: int) -> None:
        """A view of a new array nothing else names, written and read ("tempview"): a row of a
        matrix expression (tv = np.tanh(S * t)[i]), a vector expression reshaped to 2 x 2, the
        transpose of a matrix expression, or a slice, reshape or reversal of a vector a loop
        just filled (u = np.zeros(4); for j in range(4): u[j] = math.tanh(...)); the view
        written (an element, a row, +=) and read into f's float `tva` (made at f's first line,
        added to its result). The array viewed is never read again. Every draw is the third
        stream's (`third`), names are its own (`tv_names`), nothing is declared: the other
        streams' programs are as they were, these lines inserted."""
        main, ext, budget = self.rng, self.ext, self.budget
        self.rng = self.ext = self.third
        try:
            self._tempview(level)
        finally:
            self.rng, self.ext, self.budget = main, ext, budget

    def _tempview(self, level: int) -> None:
        rng = self.rng
        k = next(self.tv_names)
        tv = f"tv{k}"
        if not self.tvs:
            self.lines.insert(1, "    tva = 0.0")
            self.tvs.append("tva")
        c = self.const(-0.9, 0.9)
        t, _ = self.small_expr("f", 1)
        t = f"math.tanh({t})"
        op = self.pick([(2, "="), (1, "+=")])
        form = self.pick([(2, "row"), (1.5, "reshape"), (1.5, "transpose"),
                          (2 if len(self.trips) < self.cfg["loops"] + 1 else 0, "fill")])
        read = f"np.sum({tv} * {tv}) * {c}"
        if form == "row":
            m, _ = self.small_expr("m", 1)
            fn = self.pick([(2, "np.tanh"), (1, "np.sin")])
            self.emit(f"{tv} = {fn}(({m}) * {c})[{self.index(R)}]")
            target = self.pick([(2, f"{tv}[{self.index(L)}]"), (1, f"{tv}[1:3]")])
        elif form == "reshape":
            e, _ = self.small_expr("v", 1)
            self.emit(f"{tv} = np.tanh({e}).reshape(2, 2)")
            target = self.pick([(2, f"{tv}[{rng.randrange(2)}, {rng.randrange(2)}]"),
                                (1, f"{tv}[{rng.randrange(2)}]")])
        elif form == "transpose":
            m, _ = self.small_expr("m", 1)
            self.emit(f"{tv} = (np.sin({m}) * {c}).T")
            target = self.pick([(2, f"{tv}[{self.index(L)}, {self.index(R)}]"),
                                (1, f"{tv}[{self.index(L)}]")])
            vs = self.vars("v")
            if vs:
                read = f"np.sum({tv}[:, {self.index(R)}] * {rng.choice(vs).name})"
        else:
            u, j = f"uf{k}", f"jf{k}"
            self.emit(f"{u} = np.{self.pick([(2, 'zeros'), (1, 'empty')])}({L})")
            self.emit(f"for {j} in range({L}):")
            self.indent += 1
            self.trips.append(L)
            self.scopes.append({j: IntVar(j, L - 1)})
            e, _ = self.small_expr("f", 1)
            vs = self.vars("v")
            more = f" + {self.const(-0.9, 0.9)} * {rng.choice(vs).name}[{j}]" if vs else ""
            self.emit(f"{u}[{j}] = math.tanh({e}{more})")
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1
            view = self.pick([(2, f"{u}.reshape(2, 2)"), (1, f"{u}[1:]"), (1, f"{u}[::-1]")])
            self.emit(f"{tv} = {view}")
            target = (f"{tv}[{rng.randrange(2)}, {rng.randrange(2)}]" if "reshape" in view
                      else f"{tv}[{rng.randrange(3)}]")
        self.emit(f"{target} {op} {t}")
        self.emit(f"tva += math.tanh({read})")

    def e_listedit(self, level: int) -> None:
        """A list edited in place ("listedit", jitad/list_edits.py): a display or
        comprehension of floats or vectors (now and then appended to in a loop), then one to
        three of pop() / pop(0) / pop(1) (its value used or dropped), insert(k, e), reverse(),
        sort() of floats, then its slices ls[1:], ls[:-1], ls[::-1] or items read, summed or
        stacked. The list never gets empty where it is read."""
        rng = self.rng
        k = next(self.ext_names)
        ls, c = f"le{k}", self.const(-0.9, 0.9)
        kind = self.pick([(3, "f"), (2, "v")])
        items = [self.small_expr(kind, 1, 1.6)[0] for _ in range(rng.randint(2, 3))]
        if kind == "f" and rng.random() < 0.3:
            j = f"jl{k}"
            src = "x" if not self.in_helper else f"np.linspace(-1.0, 1.0, {L})"
            self.emit(f"{ls} = [math.tanh({src}[{j}] * {c}) for {j} in range({L})]")
            size = L
        else:
            self.emit(f"{ls} = [{', '.join(items)}]")
            size = len(items)
        if not self.in_helper and len(self.trips) < self.cfg["loops"] and rng.random() < 0.3:
            j = f"jl{k}"
            self.emit(f"for {j} in range(n):")
            self.indent += 1
            self.trips.append(R)
            self.scopes.append({j: IntVar(j, R - 1)})
            self.emit(f"{ls}.append({self.small_expr(kind, 1, 1.6)[0]})")
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1
            size += 1       # at least one more
        total = lambda s: (f"sum({s})" if kind == "f" else f"np.sum(sum({s}))")  # noqa: E731
        for _ in range(rng.randint(1, 3)):
            ops = [(2 if size >= 2 else 0, "pop"), (2, "insert"), (1, "reverse"),
                   (1 if kind == "f" else 0, "sort")]
            op = self.pick(ops)
            if op == "pop":
                at = self.pick([(2, ""), (1, "0"), (1 if size >= 3 else 0, "1"), (0.5, "-2")])
                at = at if at != "-2" or size >= 2 else ""
                if rng.random() < 0.6:
                    p = f"pe{next(self.ext_names)}"
                    self.emit(f"{p} = {ls}.pop({at})")
                    self.take_float(f"{p} * {c}" if kind == "f" else f"np.sum({p}) * {c}")
                else:
                    self.emit(f"{ls}.pop({at})")
                size -= 1
            elif op == "insert":
                self.emit(f"{ls}.insert({rng.randint(0, size + 1)}, "
                          f"{self.small_expr(kind, 1, 1.6)[0]})")
                size += 1
            elif op == "reverse":
                self.emit(f"{ls}.reverse()")
            else:
                self.emit(f"{ls}.sort()")
        uses = [(2, f"{total(ls)} * {c}"), (1, f"{total(ls + '[::-1]')} * {c}"),
                (1, f"{ls}[-1] * {c}" if kind == "f" else f"np.sum({ls}[-1]) * {c}")]
        if size >= 2:
            uses += [(2, f"{total(ls + '[1:]')} * {c}"), (1, f"{total(ls + '[:-1]')} * {c}"),
                     (1, f"np.sum(np.array({ls}[1:]) * {c})"),
                     (1, f"np.sum(np.stack({ls}[::-1])[0]) * {c}" if kind == "v"
                      else f"len({ls}) * 0.1 + {ls}[0] * {c}")]
        self.take_float(self.pick(uses))

    def e_nonlocal(self, level: int) -> None:
        """A function defined in f updating f's floats by `nonlocal` ("nonlocal",
        jitad/nonlocals.py): a counter and an accumulator (a convex mix: it stays bounded),
        called as a statement, as an assignment's value, in an augmented assignment and in a
        loop; the accumulator read after. The calls' arguments read neither (their reads in
        the same statement would be taken at another time than Python's)."""
        rng = self.rng
        k = next(self.ext_names)
        g, acc, cnt = f"up{k}", f"ac{k}", f"cn{k}"
        c, c2 = self.const(-0.9, 0.9), self.const(0.3, 0.7)
        counter = rng.random() < 0.6
        returns = rng.random() < 0.6
        calls = []
        for _ in range(rng.randint(1, 3)):
            calls.append(self.pick([(2, "stmt"), (2 if returns else 0, "assign"),
                                    (1 if returns else 0, "aug"),
                                    (1.5 if not self.in_helper
                                     and len(self.trips) < self.cfg["loops"] else 0, "loop")]))
        args = [self.small_expr("f", 1, 1.6)[0] for _ in calls]
        self.emit(f"{acc} = {self.const(-0.5, 0.5)}")
        if counter:
            self.emit(f"{cnt} = 0")
        self.emit(f"def {g}(t):")
        self.emit(f"    nonlocal {acc}" + (f", {cnt}" if counter else ""))
        if counter:
            self.emit(f"    {cnt} += 1")
        self.emit(f"    {acc} = {c2} * {acc} + {1 - float(c2):.2f} * math.tanh(t"
                  + (f" + 0.1 * {cnt})" if counter else ")"))
        if returns:
            self.emit(f"    return {acc} * {c}")
        floats = [v for v in self.vars("f") if v.name not in self.param_names]
        for call, a in zip(calls, args):
            if call == "stmt":
                self.emit(f"{g}({a})")
            elif call == "assign":
                z = f"zn{next(self.ext_names)}"
                self.emit(f"{z} = {g}({a})")
                self.declare(z, "f", 1.0)
            elif call == "aug" and floats:
                v = rng.choice(floats)
                self.emit(f"{v.name} += {g}({a})")
                v.bound += self.mult(v)
            elif call == "loop":
                j = f"jn{k}"
                self.emit(f"for {j} in range(n):")
                self.emit(f"    {g}(x[{j}] * {c} + {a})")
            else:
                self.emit(f"{g}({a})")
        self.take_float(f"{acc} * {c}" + (f" + {cnt} * 0.05" if counter else ""))

    def e_callforms(self, level: int) -> None:
        """np.piecewise of a vector and functools.reduce of a list written out ("callforms",
        jitad/call_forms.py), each the whole value of an assignment: piecewise's functions
        lambdas or numbers, one more function than conditions now and then (the otherwise
        case); reduce's function a lambda, operator.add or operator.mul, with an initial value
        now and then. Values bounded: operands squashed first."""
        rng = self.rng
        k = next(self.ext_names)
        c, c2 = self.const(-0.9, 0.9), self.const(-0.5, 0.5)
        if rng.random() < 0.5:
            a, ba = self.small_expr("v", 1, 1.6)
            name = a if re.fullmatch(r"[A-Za-z_]\w*", a) else f"pa{k}"
            if name != a:
                self.emit(f"{name} = {a}")
            fns = [f"lambda v: np.tanh(v) * {c}", f"lambda v: np.sin(v * {c})",
                   f"lambda v: v * {c}", "lambda v: 0.5 * v * v", self.const(-0.9, 0.9)]
            conds = [f"{name} < {c2}"] if rng.random() < 0.6 else \
                [f"{name} < {c2}", f"{name} > {self.const(0.5, 1.0)}"]
            m = len(conds) + (1 if rng.random() < 0.6 else 0)
            chosen = [rng.choice(fns) for _ in range(m)]
            seq = (lambda xs: f"[{', '.join(xs)}]") if rng.random() < 0.7 else \
                (lambda xs: f"({', '.join(xs)},)")
            out = f"pw{k}"
            self.emit(f"{out} = np.piecewise({name}, {seq(conds)}, {seq(chosen)})")
            self.declare(out, "v", max(ba, 1.0), owned=True)
            return
        kind = self.pick([(2, "f"), (1, "v")])
        xs = [self.small_expr(kind, 1, 1.6)[0] for _ in range(rng.randint(2, 3))]
        tanh = "math.tanh" if kind == "f" else "np.tanh"
        fn, bound = self.pick([(2, (f"lambda p, q: {c} * p + {tanh}(q)", 10.0)),
                               (1, ("operator.add", 1.6 * (len(xs) + 1))),
                               (1, ("operator.mul", 1.6 ** (len(xs) + 1)))])
        init = self.const(0.5, 1.0) if rng.random() < 0.3 else ""
        if init:        # (of the items' kind: a float start would make the result change rank)
            init = f", {init}" if kind == "f" else f", np.full({L}, {init})"
        out = f"rd{k}"
        seq = f"[{', '.join(xs)}]" if rng.random() < 0.7 else f"({', '.join(xs)})"
        self.emit(f"{out} = functools.reduce({fn}, {seq}{init})")
        if kind == "f":
            self.take_float(f"{out} * {c} * 0.1")
        else:
            self.declare(out, "v", bound, owned=True)

    def x_ufuncred(self, kind: str, d: int):
        """ufunc methods ("ufuncred"): np.add/multiply/maximum/minimum .reduce (axis= too)
        and .accumulate of vectors and matrices (products of factors near one)."""
        if kind == "s":
            return None
        (a, ba), (m, bm) = self.operand("v", d), self.operand("m", d)
        sa, sm = _strip(a), _strip(m)
        near = lambda s: f"(1.0 + 0.1 * np.tanh({s}))"  # noqa: E731
        if kind == "f":
            return self.pick([(2, (f"np.add.reduce({sa})", L * ba)),
                              (1, (f"np.multiply.reduce({near(sa)})", 1.5)),
                              (1, (f"np.maximum.reduce({sa})", ba)),
                              (1, (f"np.minimum.reduce({sa}, axis=0)", ba)),
                              (1, (f"np.sum(np.add.reduce({sm}, axis=1))", R * L * bm))])
        if kind == "v":
            return self.pick([(2, (f"np.add.accumulate({sa})", L * ba)),
                              (1, (f"np.multiply.accumulate({near(sa)})", 1.5)),
                              (1, (f"np.maximum.accumulate({sa})", ba)),
                              (1, (f"np.minimum.accumulate({sa})", ba)),
                              (2, (f"np.add.reduce({sm})", R * bm)),
                              (1, (f"np.maximum.reduce({sm}, axis=0)", bm)),
                              (1, (f"np.multiply.reduce({near(sm)}, 0)", 1.5))])
        return self.pick([(2, (f"np.add.accumulate({sm})", R * bm)),
                          (1, (f"np.maximum.accumulate({sm}, axis=1)", bm)),
                          (1, (f"np.minimum.accumulate({sm}, axis=0)", bm)),
                          (1, (f"np.multiply.accumulate({near(sm)}, axis=1)", 1.5))])

    def e_del(self) -> None:
        """del of a local ("del"): a temporary (float or array) read, then deleted; or a
        variable of this block deleted (it leaves the scope: nothing reads it after)."""
        here = [v for v in self.scopes[-1].values() if isinstance(v, Var)
                and v.kind in ("f", "v", "m") and v.name not in self.param_names
                and v.name not in self.kept and v.name not in self.rows
                and v.level == len(self.trips)]
        if here and self.rng.random() < 0.5:
            v = self.rng.choice(here)
            self.emit(f"del {v.name}")
            del self.scopes[-1][v.name]
            return
        k = next(self.ext_names)
        kind = self.pick([(1, "f"), (2, "v"), (1, "m")])
        e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
        name = f"dl{k}"
        self.emit(f"{name} = {_strip(e)}")
        c = self.const(-0.9, 0.9)
        self.take_float(f"{name} * {c}" if kind == "f" else f"np.sum({name}) * {c}")
        if self.rng.random() < 0.5:
            self.emit(f"del {name}")
        else:                           # two names at once
            e2, _ = self.squash("f", *self.expr("f", 1), force=True)
            self.emit(f"dm{k} = {_strip(e2)}")
            self.take_float(f"dm{k} * {c}")
            self.emit(f"del {name}, dm{k}")

    def e_dicts(self, level: int) -> None:
        """More dict locals ("dicts2"): integer keys per loop step, nested dicts, a swap by
        display, loops over keys and items, a dict carried across a loop."""
        k = next(self.ext_names)
        c, c2 = self.const(-0.9, 0.9), self.const(0.2, 0.8)
        form = self.pick([(2, "intkeys"), (1.5, "nested"), (1, "swap"), (2, "keys"),
                          (2, "carried")])
        (u, _), (u2, _), (m, _), (t, _) = (self.small_expr("v"), self.small_expr("v"),
                                           self.small_expr("m"), self.small_expr("f"))
        d = f"dd{k}"
        if form in ("intkeys", "carried"):
            text, trips, hi, _ = self.range_header()
            h, j = f"dh{k}", f"j{k}"
            if form == "intkeys":
                self.emit(f"{h} = {u}")
            else:
                self.emit(f'{d} = {{"h": {u}, "s": 0.0}}')
            self.enter_for(j, text, trips, hi)
            e, _ = self.squash("v", *self.expr("v", 1), force=True)
            if form == "intkeys":
                self.emit(f"st{k} = {{0: np.tanh({h} * {c} + {_strip(e)}), 1: {h}}}")
                self.emit(f"{h} = st{k}[0] * {c2} + st{k}[1] * {1 - float(c2):.2f}")
                use = f"np.sum({h} * {h}) * {c}"
            else:
                self.emit(f'{d}["h"] = np.tanh({d}["h"] * {c} + {_strip(e)})')
                self.emit(f'{d}["s"] += np.sum({d}["h"]) * 0.1')
                use = f'{d}["s"] * {c} + np.sum({d}["h"])'
            self.scopes.pop()
            self.trips.pop()
            self.indent -= 1
            self.take_float(use)
            return
        if form == "nested":
            self.emit(f'{d} = {{"enc": {{"W": {m}, "b": {_operand(u)}[:{R}]}}, "gain": {c}}}')
            self.emit(f'enc{k} = {d}["enc"]')
            self.take_float(f'{d}["gain"] * np.sum(np.tanh(enc{k}["W"] @ {_operand(u2)} * 0.3 + '
                            f'enc{k}["b"]))')
            return
        if form == "swap":
            self.emit(f'{d} = {{"a": {u}, "b": {u2}}}')
            self.emit(f'{d} = {{"a": {d}["b"] * {c}, "b": {d}["a"]}}')
            self.take_float(f'np.sum({d}["a"] * np.sin({d}["b"]))')
            return
        self.emit(f'{d} = {{"lin": {_operand(m)} @ {_operand(u)} * 0.3, "sq": {_operand(u2)}[:2] ** 2, "c": {t}}}')
        s = f"ds{k}"
        self.emit(f"{s} = 0.0")
        loop = self.pick([(1, "items"), (1, "keys"), (1, "write")])
        if loop == "items":
            self.emit(f"for key, val in {d}.items():")
            self.emit('    if key == "sq":')
            self.emit(f"        {s} += np.sum(val) * {c}")
            self.emit("    else:")
            self.emit(f"        {s} += np.sum(np.tanh(val)) * {c2}")
        elif loop == "keys":
            self.emit(f"for key in {d}:")
            self.emit(f"    {s} += np.sum({d}[key]) * {c} * 0.1")
        else:
            self.emit(f"for key in {d}.keys():")
            self.emit(f"    {d}[key] = {d}[key] * {c}")
            self.emit(f'{s} = np.sum({d}["lin"]) + {d}["c"]')
        self.take_float(f"{s} + len({d}) * 0.01")

    def x_poly(self, kind: str, d: int):
        """A call of a module helper whose body is rank-polymorphic ("poly"), given a float,
        a vector or a matrix: one helper, several specializations (gp0(z, a=0.5); gp1(z, a,
        k=2), a loop with an early return)."""
        if not self.polys or kind == "s":
            return None
        e, b = self.squash(kind, *self.expr(kind, d), force=True)
        e, c = _strip(e), self.const(-0.9, 0.9)
        forms = [(2, (f"gp0({e})", 1.0 + 0.1 * b)), (2, (f"gp0({e}, {c})", 1.0 + 0.1 * b)),
                 (1, (f"gp0({e}, a={c})", 1.0 + 0.1 * b)),
                 (2, (f"gp1({e}, {c})", 1.0)), (1, (f"gp1({e}, {c}, k=3)", 1.0))]
        if not self.in_helper:
            forms.append((1, (f"gp1({e}, {c}, n)", 1.0)))
        return self.pick(forms)

    def e_poly(self) -> None:
        """zK, sK = gp2(e, t): a rank-polymorphic helper returning a pair from inside its loop
        or after it ("poly")."""
        kind = self.pick([(2, "v"), (1, "f"), (1, "m")])
        e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
        t, _ = self.squash("f", *self.expr("f", 1), force=True)
        k = next(self.ext_names)
        z, s = f"z{k}", f"zs{k}"
        self.emit(f"{z}, {s} = gp2({_strip(e)}, {_strip(t)})")
        # (not written into: jitad refuses a write into a helper's result that may be its
        # argument -- gp2's early return makes its range(3) loop a while loop on a flag,
        # which the flow graph cannot tell runs; without the early return it can)
        self.declare(z, kind, 1.6, owned=False)
        self.declare(s, "f", 2.5)

    def rec_helper(self, name: str, kind: str) -> tuple[list[str], float]:
        """def gr0(a, k) (or (r, k) of a vector): a base case at depth 0 (or on a data test),
        else a bounded step and one or two recursive calls at depth k - 1 ("recursion").
        Drawn from the second stream; called at depths 0..3.  Returns its lines and the
        magnitude estimate of its result."""
        self.lines = []
        self.in_helper = True
        p = "a" if kind == "f" else "r"
        self.param_names = {p, "k"}
        self.kept = []
        self.tvs = []
        self.cur_ret = None
        self.emit_def(f"def {name}({p}, k):")
        self.scopes = [{}]
        self.declare(p, kind, PARAM_BOUND)
        m, tanh = ("math", "math.tanh") if kind == "f" else ("np", "np.tanh")
        sums = p if kind == "f" else f"np.sum({p})"
        test = self.pick([(3, "k <= 0"), (1, f"k <= 0 or {sums} > {self.const(0.5, 2.0)}"),
                          (1, "k < 1")])
        base, bound = self.pick([(2, (f"{tanh}({p})", 1.0)),
                                 (1, (f"{p} * {self.const(-0.9, 0.9)}", PARAM_BOUND)),
                                 (1, (f"{m}.sin({p})", 1.0))])
        self.emit(f"if {test}:")
        self.emit(f"    return {base}")
        self.scopes[-1]["k"] = IntVar("k", 3)
        e, _ = self.squash(kind, *self.expr(kind, 2), force=True)
        c, c2 = self.const(-0.9, 0.9), self.const(-0.9, 0.9)
        step = f"b{next(self.ext_names)}"
        self.emit(f"{step} = {_strip(e)}")
        form = self.pick([(3, "tanh"), (1, "twice"), (1, "linear")])
        self.emit({"tanh": f"return {tanh}({name}({step}, k - 1) * {c} + {p})",
                   "twice": f"return {tanh}({name}({step} * {c}, k - 1) + {name}({p}, k - 1)"
                            f" * {c2})",
                   "linear": f"return {name}({step}, k - 1) * {c} + {tanh}({p}) * {c2}"}[form])
        if form == "linear":        # |c| B + |c2| at each of at most three levels
            for _ in range(3):
                bound = abs(float(c)) * bound + abs(float(c2))
        return self.lines, max(bound, 1.0)

    def on(self, feature: str) -> int:
        """1 when `feature` may be generated, 0 when the caller asked to leave it out."""
        return 0 if feature in self.without else 1

    def on_ext(self, feature: str) -> int:
        """`on` of an extension and of the features it refines (`REFINES`)."""
        return min(self.on(ft) for ft in (feature, *REFINES.get(feature, ())))

    def emit_guarded(self, what: str) -> None:
        self.guards += 1
        self.emit(f"if {self.cond()}:")
        self.indent += 1
        self.emit(what)
        self.indent -= 1

    def block(self, n: int, level: int) -> dict[str, Var]:
        """n statements (at least one) in a new scope; returns the scope's variables."""
        self.scopes.append({})
        self.block_stmts(max(n, 1), level)
        return self.scopes.pop()

    def block_stmts(self, n: int, level: int) -> None:
        for _ in range(n):
            self.stmt(level)

    def small(self) -> int:
        return self.rng.choice(self.cfg["block"])

    def s_new_f(self) -> None:
        e, b = self.squash("f", *self.expr("f", self.cfg["depth"]))
        name = self.fresh("t")
        self.emit(f"{name} = {_strip(e)}")
        self.declare(name, "f", b)

    def s_new_v(self) -> None:
        rng = self.rng
        name = self.fresh("u")
        if rng.random() < 0.3:
            main = 0 if self.in_helper else 1     # x and M are f's arguments
            e, b = self.pick([(2 * main, ("x.copy()", ARG_BOUND)), (2, (f"np.zeros({L})", 0.0)),
                              (main, ("np.zeros_like(x)", 0.0)), (1, (f"np.ones({L})", 1.0))])
        else:
            e, b = self.squash("v", *self.expr("v", self.cfg["depth"]))
            e = _fresh_array("v", _strip(e))
        self.emit(f"{name} = {e}")
        self.declare(name, "v", b, owned=True)

    def s_new_m(self) -> None:
        name = self.fresh("S")
        main = 0 if self.in_helper else 1
        e, b = self.pick([(3 * main, ("M.copy()", ARG_BOUND)), (2, (f"np.zeros(({R}, {L}))", 0.0)),
                          (main, ("np.zeros_like(M)", 0.0)), (2, (None, None))])
        if e is None:
            e, b = self.squash("m", *self.expr("m", 2))
            e = _fresh_array("m", _strip(e))
        self.emit(f"{name} = {e}")
        self.declare(name, "m", b, owned=True)

    def s_new_s(self) -> None:
        """A vector whose length may change between loop iterations."""
        shape = self.some_shape()
        e, b = self.squash("s", *self.sexpr(shape, self.cfg["depth"]))
        name = self.fresh("p")
        self.emit(f"{name} = {_fresh_array('s', _strip(e))}")
        self.declare(name, "s", b, owned=True, shape=shape)

    def s_write_s(self) -> None:
        v = self.rng.choice(self.vars("s", True))
        at = self.pick([(2, "0"), (2, "-1"), (1, f"{v.name}.shape[0] - 1"),
                        (1, f"len({v.name}) // 2")])
        self._write(v, f"{v.name}[{at}]", "f")

    def s_len_loop(self, level: int) -> None:
        """for k in range(p.shape[0]) (or len(p)): a loop over a vector's positions, its
        trip count the vector's (loop-dependent) length; the body reads (and may write) p[k]."""
        p = self.rng.choice(self.vars("s"))
        k = self.fresh("k")
        self.emit(f"for {k} in range({self.rng.choice((f'{p.name}.shape[0]', f'len({p.name})'))}):")
        self.indent += 1
        self.trips.append(p.shape.max_len())
        self.scopes.append({k: IntVar(k, p.shape.max_len() - 1, over=p.name)})
        accs = self.vars("f")
        if p.owned and self.rng.random() < 0.4:
            self._write(p, f"{p.name}[{k}]", "f")
        else:
            acc = self.rng.choice(accs)
            e, b = self.squash("f", *self.expr("f", 1), force=True)
            self.emit(f"{acc.name} += math.tanh({p.name}[{k}] * {_strip(e)})")
            acc.bound += self.mult(acc)
        self.block_stmts(self.small(), level + 1)
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1

    def s_grow(self, level: int) -> None:
        """A vector grown (concatenated onto) or shrunk (its own slices) in a loop: its
        length and its tape entries change every iteration; read after the loop."""
        rng = self.rng
        grow = rng.random() < 0.6
        text, trips, hi, _ = self.range_header()
        if not grow and trips > L - 1:      # a shrinking vector of length L stays nonempty
            text, trips, hi = "range(2)", 2, 1
        p, i = self.fresh("p"), self.fresh("i")
        c = self.pick([(2, self.const(-0.95, 0.95)), (1, "0.5")]
                      + [(1, f"math.tanh({v.name})") for v in self.vars("f")])
        a, ba = self.leaf("v")
        if grow:
            e0, _ = self.squash("f", *self.expr("f", 2), force=True)
            init = self.pick([(2, f"np.full(1, {_strip(e0)})"), (1, "np.zeros(1)"),
                              (1, f"{a}[:1] * 1.0")])
        else:
            init = f"{a} * 1.0"
        self.emit(f"{p} = {init}")
        # the vector is not in scope inside the loop: statements there cannot mix its lengths
        self.enter_for(i, text, trips, hi)
        if rng.random() < 0.5:
            self.stmt(level + 1)
        if grow:
            e, _ = self.squash("f", *self.expr("f", 2), force=True)
            part = self.pick([(2, f"np.full(1, {_strip(e)})"), (1, f"np.array([{_strip(e)}])")])
            self.emit(f"{p} = np.concatenate(({p} * {c}, {part}))")
        else:
            self.emit(f"{p} = np.tanh({p}[1:] * {c} + {p}[:-1])")
        if rng.random() < 0.4:
            self.stmt(level + 1)
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1
        self.declare(p, "s", max(ba, 1.6), owned=True, shape=Shape("like", p))

    def s_call_tuple(self) -> None:
        """a, b = g(...): a helper returning two values."""
        h = self.rng.choice([h for h in self.helpers if isinstance(h.ret, tuple)])
        names = [self.fresh({"f": "t", "v": "u", "m": "S"}[k]) for k in h.ret]
        call = self.call_text(h, 2, packed_as=self.held_tuple(h))
        if self.on("packed") and self.ext.random() < 0.4:
            pk = f"pk{next(self.ext_names)}"     # the tuple held by a name, then read
            self.emit(f"{pk} = {call}")
            if all(k == "f" for k in h.ret):
                self.emit(f"{', '.join(names)} = {pk}")
            else:   # (an array unpacked from a tuple is not one jitad writes into: copied)
                self.emit(f"{', '.join(names)} = " + ", ".join(
                    f"{pk}[{k}]" if kind == "f" else f"{pk}[{k}].copy()"
                    for k, kind in enumerate(h.ret)))
        else:
            self.emit(f"{', '.join(names)} = {call}")
        for nm, k in zip(names, h.ret):
            self.declare(nm, k, h.bound, owned=k != "f")

    def s_call_clobber(self) -> None:
        """t = g(u, a) with variables as arguments, then one of them overwritten (a write into
        it, an update or a new value; or the call's result assigned to it): the adjoint must
        use the values the call saw."""
        rng = self.rng
        h = rng.choice(self.helpers)
        args, passed = {}, []
        for k, p in enumerate(h.params):
            if p == "s":
                continue
            cands = [v for v in (self.vars(p) if p == "f" else self.vars(p, True))
                     if v.bound <= PARAM_BOUND]
            if cands and rng.random() < 0.8:
                v = rng.choice(cands)
                args[k] = v.name
                passed.append(v)
        shape = self.some_shape() if "s" in h.params else None
        call = self.call_text(h, 2, shape, args, None if args else self.held_tuple(h))
        back = [v for v in passed if v.kind == h.ret]
        if back and rng.random() < 0.35:
            v = rng.choice(back)           # u = g(u, ...)
            e, b = call, h.bound
            if self.carried(v):
                e, b = self.squash(v.kind, e, b, force=True)
                v.bound = max(v.bound, b)
            else:
                v.bound = b
            self.emit(f"{v.name} = {e}")
        elif isinstance(h.ret, tuple):
            names = [self.fresh({"f": "t", "v": "u", "m": "S"}[k]) for k in h.ret]
            self.emit(f"{', '.join(names)} = {call}")
            for nm, k in zip(names, h.ret):
                self.declare(nm, k, h.bound, owned=k != "f")
        else:
            kind = h.ret
            name = self.fresh({"f": "t", "v": "u", "m": "S", "s": "p"}[kind])
            self.emit(f"{name} = {call}")
            self.declare(name, kind, h.bound, owned=kind != "f",
                         shape=shape if kind == "s" else None)
        if not passed:
            return
        v = rng.choice(passed)
        if v.kind == "f":
            op, e = self.assign_rhs(v)
            self.emit(f"{v.name} {op} {e}")
        elif rng.random() < 0.5:
            if v.kind == "v":
                self._write(v, f"{v.name}[{self.index(L)}]", "f")
            else:
                self._write(v, f"{v.name}[{self.index(R)}]", "v")
        else:
            op, e = self.assign_rhs(v)
            self.emit(f"{v.name} {op} {e}")

    def held_tuple(self, h: Helper) -> str | None:
        """For a helper taking a tuple ("packed"), now and then: another helper's tuple result
        of those kinds held by a new name (`pk0 = g1(...)`, emitted here), to pass whole; or
        "": `call_text` holds the tuple it writes out by a name."""
        if not h.packed:
            return None
        makers = [g for g in self.helpers if g.ret == tuple(h.params) and g is not h]
        r = self.ext.random()
        if not makers or r >= 0.5:
            return "" if r < 0.3 else None
        with self.drawing_ext():
            call = self.call_text(self.rng.choice(makers), 2)
        pk = f"pk{next(self.ext_names)}"
        self.emit(f"{pk} = {call}")
        return pk

    def s_set(self, kind: str) -> None:
        cands = self.vars(kind) if kind == "f" else self.vars(kind, True)
        v = self.rng.choice(cands)
        op, e = self.assign_rhs(v)
        self.emit(f"{v.name} {op} {e}")

    def _write(self, v: Var, target: str, kind: str, rhs=None) -> None:
        """`target = e` or `target += e` into v, e of `kind` (or `rhs`: (text, bound, its
        kind)), keeping v's magnitude estimate."""
        e, b = self.expr(kind, 2) if rhs is None else rhs[:2]
        kind = kind if rhs is None else rhs[2]
        op = self.pick([(3, "="), (2, "+=")])
        if self.carried(v):
            if op == "=":
                e, b = self.squash(kind, e, b, force=True)
                v.bound = max(v.bound, b)
            else:
                if b > ARG_BOUND:
                    e, b = self.squash(kind, e, b, force=True)
                v.bound += self.mult(v) * b
        else:
            e, b = self.squash(kind, e, b)
            v.bound = max(v.bound, b) if op == "=" else v.bound + b
        self.emit(f"{target} {op} {_strip(e)}")

    def s_write_v(self) -> None:
        v = self.rng.choice(self.vars("v", True))
        self._write(v, f"{v.name}[{self.index(L)}]", "f")

    def s_write_m_row(self) -> None:
        v = self.rng.choice(self.vars("m", True))
        self._write(v, f"{v.name}[{self.index(R)}]", "v")

    def s_write_m_elem(self) -> None:
        v = self.rng.choice(self.vars("m", True))
        self._write(v, f"{v.name}[{self.index(R)}, {self.index(L)}]", "f")

    def s_swap(self) -> None:
        a, b = self.rng.sample(self.vars("f"), 2)
        if self.carried(a) or self.carried(b):
            a.bound = b.bound = max(a.bound, b.bound)
        else:
            a.bound, b.bound = b.bound, a.bound
        self.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")

    def s_if(self, level: int) -> None:
        self.emit(f"if {self.cond()}:")
        self.indent += 1
        self.block(self.small(), level + 1)
        self.indent -= 1
        while self.rng.random() < 0.25:
            self.emit(f"elif {self.cond()}:")
            self.indent += 1
            self.block(self.small(), level + 1)
            self.indent -= 1
        if self.rng.random() < 0.5:
            self.emit("else:")
            self.indent += 1
            self.block(self.small(), level + 1)
            self.indent -= 1

    def range_header(self) -> tuple[str, int, int, bool]:
        """(range(...) text, largest trip count, largest loop-variable value, runs at least
        once)."""
        opts = [(2, ("range(2)", 2, 1, True)), (1, ("range(3)", 3, 2, True)),
                (1, (f"range({L})", L, L - 1, True))]
        if not self.in_helper:
            opts += [(5, ("range(n)", R, R - 1, True)), (1, ("range(1, n)", R - 1, R - 1, False)),
                     (1, ("range(n - 1, -1, -1)", R, R - 1, True)),
                     (0.5, ("range(0, n, 2)", 2, 2, True))]
        for iv in self.ints:
            if 0 <= iv.hi <= 5:
                opts += [(1.5, (f"range({iv.name} + 1)", iv.hi + 1, iv.hi, True)),
                         (1, (f"range({iv.name})", max(iv.hi, 0), iv.hi - 1, False))]
        text, trips, hi, runs = self.pick(opts)
        if self.on("iters") and self.rng.random() < 0.2:
            text = f"reversed({text})"      # the same values, last first
        return text, trips, hi, runs

    def loop_body(self, level: int, trips: int, ints: list[IntVar], rows: list[str],
                  runs: bool = False, floats: tuple = ()) -> None:
        """The body of a loop.  When the loop surely runs (`runs`), the variables its body
        assigns on every iteration (before any break/continue/return) and the loop variable
        may stay readable after it: they hold the last iteration's values."""
        self.indent += 1
        self.trips.append(trips)
        self.rows.extend(rows)
        guards = self.guards
        self.scopes.append({iv.name: iv for iv in ints})
        for name in floats:            # `for r, t in zip(M, x)`: t, an element of x
            self.declare(name, "f", PARAM_BOUND if self.in_helper else ARG_BOUND)
        self.block_stmts(self.small() + 1, level + 1)
        scope = self.scopes.pop()
        del self.rows[len(self.rows) - len(rows):]
        self.trips.pop()
        self.indent -= 1
        if runs and self.on("leak") and self.rng.random() < 0.5:
            for v in scope.values():
                if isinstance(v, Var) and v.guards == guards:
                    v.level = len(self.trips)
                    self.scopes[-1][v.name] = v
                elif isinstance(v, IntVar) and self.guards == guards and self.rng.random() < 0.5:
                    self.scopes[-1][v.name] = v

    def s_for(self, level: int) -> None:
        text, trips, hi, runs = self.range_header()
        i = self.fresh("i")
        self.emit(f"for {i} in {text}:")
        self.loop_body(level, trips, [IntVar(i, hi)], [], runs)

    def s_for_rows(self, level: int) -> None:
        """for r in M (in a helper: a matrix parameter; never an array written in the loop)."""
        r = self.fresh("r")
        src = self.rng.choice(self.vars("m", False)).name if self.in_helper else "M"
        vecs = [v.name for v in self.vars("v", False)]
        form = self.pick([(1, "plain"), (1, "enumerate")]
                         + [(1.0 * self.on("iters"), f) for f in ("reversed", "zip2", "enumrev")]
                         + [(0.8 * self.on("iters") * bool(vecs), "zip")])
        if form != "plain" and form != "enumerate":
            i, q, t = self.fresh("i"), self.fresh("q"), self.fresh("t")
            vec = self.rng.choice(vecs) if vecs else ""
            if form == "reversed":
                self.emit(f"for {r} in reversed({src}):")
                self.loop_body(level, R, [], [r], True)
            elif form == "zip2":
                self.emit(f"for {r}, {q} in zip({src}, {src}[::-1]):")
                self.loop_body(level, R, [], [r, q], True)
            elif form == "zip":
                self.emit(f"for {r}, {t} in zip({src}, {vec}):")
                self.loop_body(level, R, [], [r], True, floats=(t,))
            else:                           # (enumerate(zip(M, x)) is refused: not yet)
                self.emit(f"for {i}, {r} in enumerate(reversed({src})):")
                self.loop_body(level, R, [IntVar(i, R - 1)], [r], True)
        elif form == "plain":
            self.emit(f"for {r} in {src}:")
            self.loop_body(level, R, [], [r], True)
        else:
            i = self.fresh("i")
            self.emit(f"for {i}, {r} in enumerate({src}):")
            self.loop_body(level, R, [IntVar(i, R - 1)], [r], True)

    def s_sentinel(self, level: int) -> None:
        """best = None; for ...: (stmts; if best is None [or c]: best = e else: best = <a
        bounded update>); then best read under `if best is not None:` (the loop may not run)."""
        rng = self.rng
        kind = self.pick([(2, "f"), (2, "v"), (0.5, "m")])
        best = self.fresh("b")
        self.emit(f"{best} = None")
        trips = self.open_loop()
        if rng.random() < 0.5:
            self.stmt(level + 1)
        e, b = self.squash(kind, *self.expr(kind, 2), force=True)
        test = f"{best} is None"
        if rng.random() < 0.3:
            test = f"{test} or {self.cond(1)}"
        self.emit(f"if {test}:")
        self.emit(f"    {best} = {_fresh_array(kind, _strip(e))}")
        self.emit("else:")
        e2, b2 = self.squash(kind, *self.expr(kind, 2), force=True)
        mx = "max" if kind == "f" else "np.maximum"
        upd, bound = self.pick([(2, (f"0.5 * {best} + 0.5 * {e2}", max(b, b2))),
                                (1, (f"{mx}({best}, {_strip(e2)})", max(b, b2))),
                                (1, (f"{best} + {e2}", b + trips * b2))])
        self.emit(f"    {best} = {upd}")
        if rng.random() < 0.3:
            self.stmt(level + 1)
        self.close_loop()
        out_kind = self.pick([(2, "f"), (1, kind)])
        name = self.fresh({"f": "t", "v": "u", "m": "S"}[out_kind])
        init = {"f": "0.0", "v": f"np.zeros({L})", "m": f"np.zeros(({R}, {L}))"}[out_kind]
        if out_kind == kind:
            rhs, rb = f"{best} * {self.const(0.2, 1.5)}", 1.5 * bound
        else:
            rhs, rb = self.squash("f", f"np.sum({best})", bound * (L if kind == "v" else R * L))
        if rng.random() < 0.7:
            self.emit(f"{name} = {init}")
            self.emit(f"if {best} is not None:")
            self.emit(f"    {name} = {_strip(rhs)}")
        else:
            self.emit(f"if {best} is None:")
            self.emit(f"    {name} = {init}")
            self.emit("else:")
            self.emit(f"    {name} = {_strip(rhs)}")
        self.declare(name, out_kind, rb, owned=out_kind != "f")

    def s_tuple(self, level: int) -> None:
        """st = (u, t): a pair carried around a loop, read by index, unpacked after it."""
        st = self.fresh("st")
        (a, _), (t, _) = (self.squash("v", *self.expr("v", 2), force=True),
                          self.squash("f", *self.expr("f", 2), force=True))
        self.emit(f"{st} = ({_strip(a)}, {_strip(t)})")
        self.open_loop()
        if self.rng.random() < 0.5:
            self.stmt(level + 1)
        (e, be), (g, bg) = self.expr("v", 1), self.expr("f", 1)
        c = self.const(-0.9, 0.9)
        self.emit(f"{st} = (np.tanh({st}[0] * {c} + {_strip(e)}), "
                  f"math.tanh({st}[1] + {_strip(g)}))")
        self.close_loop()
        u, t2 = self.fresh("u"), self.fresh("t")
        if self.rng.random() < 0.5:
            self.emit(f"{u}, {t2} = {st}")
        else:
            self.emit(f"{u} = {st}[0] * {st}[1]")
            self.emit(f"{t2} = {st}[-1]")
        self.declare(u, "v", 1.0, owned=False)
        self.declare(t2, "f", 1.0)

    def s_closure(self) -> None:
        """def h(v): return ... (reading f's floats at each call), then called."""
        h = self.fresh("h")
        floats = [v for v in self.vars("f") if v.bound <= CAP]
        c1 = self.rng.choice(floats).name if floats else "w"
        c2 = self.rng.choice(floats).name if floats else "0.5"
        kind = self.pick([(2, "v"), (1, "f")])
        self.emit(f"def {h}(v, s):")
        if kind == "v":
            self.emit(f"    return np.tanh(v * math.tanh({c1}) + s) * {c2}")
        else:
            self.emit(f"    return math.tanh(np.sum(v) * math.tanh({c1}) + s) * {c2}")
        bound = next((v.bound for v in floats if v.name == c2), 1.0)
        a, _ = self.squash("v", *self.expr("v", 1), force=True)
        t, _ = self.squash("f", *self.expr("f", 1), force=True)
        name = self.fresh("u" if kind == "v" else "t")
        self.emit(f"{name} = {h}({_strip(a)}, {_strip(t)})")
        self.declare(name, kind, bound, owned=kind == "v")
        if self.rng.random() < 0.5:
            i = self.fresh("i")
            acc = self.rng.choice([v for v in self.vars("f") if not self.carried(v)] or [None])
            if acc is not None and acc.name != name:
                self.emit(f"for {i} in range(n):")
                red = f"np.sum({h}(M[{i}], {acc.name} * 0.1))" if kind == "v" else \
                    f"{h}(M[{i}], 0.1)"
                self.emit(f"    {acc.name} += math.tanh({red})")
                acc.bound += R

    def s_while_break(self, level: int) -> None:
        """k = 0; while True (or a data test): k += 1; if k > limit or c: break; body -- the
        loop left by a break (tested first, so a `continue` in the body cannot skip it)."""
        k = self.fresh("k")
        limit = self.rng.randint(2, 5)
        self.emit(f"{k} = 0")
        self.emit("while True:" if self.rng.random() < 0.6 else f"while {self.cond(1)}:")
        self.emit(f"    {k} += 1")
        self.emit(f"    if {k} > {limit} or {self.cond(1)}:")
        self.emit("        break")
        self.guards += 1
        self.loop_body(level, limit, [IntVar(k, limit)], [])

    def s_write_gather(self) -> None:
        """Writes through integer index arrays: u[[0, 2]] = t, u[[1, 1]] += t, S[[0, 2]] = v,
        S[[0, 2], [1, 3]] += t, u[u > c] = t, np.add.at(u, idx, t)."""
        rng = self.rng
        v = rng.choice(self.vars("v", True) + self.vars("m", True))
        k = rng.randint(1, 3)
        if v.kind == "v":
            idx = self.int_list(k, L, distinct=rng.random() < 0.7)
            if rng.random() < 0.3:
                t, b = self.squash("f", *self.expr("f", 2), force=True)
                ids = self.pick([(1, f"np.arange({k}) % {rng.randint(1, L)}"),
                                 (1, f"np.argsort({self.leaf('v')[0]})[:{k}]")])
                self.emit(f"np.add.at({v.name}, {ids}, {_strip(t)})")
                v.bound += self.mult(v) * k * b
                return
            target = self.pick([(3, f"{v.name}[{idx}]"),
                                (1, f"{v.name}[{v.name} > {self.const(-0.5, 0.5)}]")])
            self._write(v, target, "f")
            return
        if rng.random() < 0.5:
            self._write(v, f"{v.name}[{self.int_list(k, R, distinct=True)}]",
                        self.pick([(1, "f"), (1, "v")]))
        else:
            self._write(v, f"{v.name}[{self.int_list(k, R)}, {self.int_list(k, L)}]", "f")

    def s_write_slice(self) -> None:
        """Writes through slices ("slicewrite"): u[1:3] = e, u[i:] += e, u[::2] = e,
        S[:, j] = e, S[i, 1:3] = e, S[1:] = e, S[:, :2] += e, the right side a float or an
        array of the slice's shape (a slice of a vector or matrix expression); or an array
        shifted within itself (u[1:] = u[:-1], S[:, :-1] = S[:, 1:]: overlapping parts)."""
        rng = self.rng
        v = rng.choice(self.vars("v", True) + self.vars("m", True))
        # u[i:] = e: a part whose length changes between iterations ("shapes" too)
        loops = [iv for iv in self.ints if 0 <= iv.hi < L] if self.on("shapes") else []

        def span(dim):
            """(slice text, its length as text) of constant bounds within 0..dim."""
            a = rng.randrange(dim)
            b = rng.randrange(a + 1, dim + 1)
            lo = "" if a == 0 else (str(a) if rng.random() < 0.7 else str(a - dim))
            hi = "" if b == dim else (str(b) if rng.random() < 0.7 else str(b - dim))
            return f"{lo}:{hi}", b - a

        def part(kind, n, dim):
            """A slice of length n of an expression of `kind` along an axis of length dim."""
            c = rng.randrange(dim - n + 1)
            e, b = self.operand(kind, 2)
            sl = f"{c}:{c + n}" if c or n < dim else ":"
            return (f"{e}[{sl}]" if kind == "v" else f"{e}[{sl}, :]"), b

        def sliced(kind, sl):
            """An expression of `kind` and its slice `sl`."""
            e, b = self.operand(kind, 2)
            return f"{e}[{sl}]", b

        def float_or(make):
            """The right side: a float (broadcast) or an array `make` gives, with its kind."""
            return self.pick([(2, lambda: (*self.expr("f", 2), "f")),
                              (3, lambda: (*make(), "v"))])()

        if rng.random() < 0.2:          # shifted within itself: NumPy copies overlapping parts
            k = rng.randint(1, 2)
            if v.kind == "v":
                target, src = self.pick([(1, (f"{v.name}[{k}:]", f"{v.name}[:-{k}]")),
                                         (1, (f"{v.name}[:-{k}]", f"{v.name}[{k}:]"))])
            else:
                target, src = self.pick([
                    (1, (f"{v.name}[1:]", f"{v.name}[:-1]")),
                    (1, (f"{v.name}[:-1]", f"{v.name}[1:]")),
                    (1, (f"{v.name}[:, {k}:]", f"{v.name}[:, :-{k}]")),
                    (1, (f"{v.name}[:, :-{k}]", f"{v.name}[:, {k}:]"))])
            c = self.pick([(2, ""), (1, f" * {self.const(-0.95, 0.95)}")])
            self.emit(f"{target} = {src}{c}")
            return
        if v.kind == "v":
            form = self.pick([(3, "span"), (1.5 if loops else 0, "loop"), (1, "step")])
            if form == "span":
                sl, n = span(L)
                rhs = float_or(lambda: part("v", n, L))
                self._write(v, f"{v.name}[{sl}]", "f", rhs)
            elif form == "loop":
                i = rng.choice(loops).name
                sl = self.pick([(1, f"{i}:"), (1, f":{i} + 1")])
                rhs = float_or(lambda: sliced("v", sl))
                self._write(v, f"{v.name}[{sl}]", "f", rhs)
            else:
                sl = self.pick([(1, "::2"), (1, "1::2")])
                rhs = float_or(lambda: sliced("v", self.pick([(1, "::2"), (1, "1::2")])))
                self._write(v, f"{v.name}[{sl}]", "f", rhs)
            return
        form = self.pick([(3, "column"), (2, "rowpart"), (1, "rows"), (1, "columns")])
        if form == "column":          # S[:, j]: a vector of length R
            j = self.index(L)
            rhs = float_or(lambda: self.pick([
                (2, lambda: sliced("m", f":, {self.index(L)}")),
                (1, lambda: part("v", R, L))])())
            self._write(v, f"{v.name}[:, {j}]", "f", rhs)
        elif form == "rowpart":       # S[i, a:b]
            sl, n = span(L)
            rhs = float_or(lambda: part("v", n, L))
            self._write(v, f"{v.name}[{self.index(R)}, {sl}]", "f", rhs)
        elif form == "rows":          # S[a:b]: a row broadcast, or rows of a matrix
            sl, n = span(R)
            rhs = float_or(lambda: self.pick([(1, lambda: self.expr("v", 2)),
                                              (1, lambda: part("m", n, R))])())
            self._write(v, f"{v.name}[{sl}]", "f", rhs)
        else:                         # S[:, a:b]
            sl, n = span(L)
            c = rng.randrange(L - n + 1)
            rhs = float_or(lambda: sliced("m", f":, {c}:{c + n}"))
            self._write(v, f"{v.name}[:, {sl}]", "f", rhs)

    def s_while(self, level: int) -> None:
        k = self.fresh("k")
        limit = self.rng.randint(2, 5)
        self.emit(f"{k} = 0")
        self.emit(f"while {k} < {limit} and {self.cond(1)}:")
        self.emit(f"    {k} += 1")
        self.loop_body(level, limit, [IntVar(k, limit)], [])

    def open_loop(self) -> int:
        """`for i in range(...):` opened (a counted loop of the usual headers): its largest trip
        count; the body is emitted by the caller, then `close_loop`."""
        text, trips, hi, _ = self.range_header()
        i = self.fresh("i")
        self.enter_for(i, text, trips, hi)
        return trips

    def enter_for(self, var, text, trips, hi) -> None:
        """`for var in <text>:` emitted and entered: the body's indent, the loop's largest trip
        count and `var`'s bounds in scope (`close_loop` leaves it)."""
        self.emit(f"for {var} in {text}:")
        self.indent += 1
        self.trips.append(trips)
        self.scopes.append({var: IntVar(var, hi)})

    def close_loop(self) -> None:
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1

    def s_reduce_loop(self, level: int) -> None:
        """acc = 0; for ...: (stmts; acc += ...; stmts); consume acc -- pushes before, inside
        and after an inner loop."""
        rng = self.rng
        kind = self.pick([(3, "f"), (1, "v")])
        acc = self.fresh("a")
        self.emit(f"{acc} = {'0.0' if kind == 'f' else f'np.zeros({L})'}")
        var = self.declare(acc, kind, 0.0, owned=True)
        trips = self.open_loop()
        if rng.random() < 0.5:
            self.stmt(level + 1)
        e, b = self.expr(kind, 2)
        if b > ARG_BOUND:
            e, b = self.squash(kind, e, b, force=True)
        self.emit(f"{acc} += {_strip(e)}")
        var.bound = trips * b
        if rng.random() < 0.5:
            self.stmt(level + 1)
        self.close_loop()
        # consume right after the loop: a write, an update or a new variable
        targets = []
        if kind == "f":
            targets += [(2, f"{v.name}[{self.index(L)}]") for v in self.vars("v", True) if v is not var]
            targets += [(2, f"{v.name}[{self.index(R)}, {self.index(L)}]") for v in self.vars("m", True)]
        else:
            targets += [(3, f"{v.name}[{self.index(R)}]") for v in self.vars("m", True)]
        e, b = self.expr(kind, 1)
        rhs = f"{acc} * {e}" if rng.random() < 0.4 else acc
        if targets:
            tgt = self.pick(targets)
            name = tgt.split("[")[0]
            owner = next(v for v in self.vars() if v.name == name)
            rhs, rb = self.squash(kind, rhs, var.bound * (b if "*" in rhs else 1.0),
                                  force=self.carried(owner))
            self.emit(f"{tgt} = {_strip(rhs)}")
            owner.bound = max(owner.bound, rb)
        else:
            name = self.fresh("t" if kind == "f" else "u")
            rhs, rb = self.squash(kind, rhs, var.bound * (b if "*" in rhs else 1.0))
            self.emit(f"{name} = {_strip(rhs)}" + (".copy()" if rhs == acc and kind == "v" else ""))
            self.declare(name, kind, rb, owned=kind != "f")

    def s_list_loop(self, level: int) -> None:
        """hs = [e] (or a comprehension); for ...: (stmts; hs.append(e), maybe under an if;
        stmts); then one use of the list: np.stack/np.sum/np.mean/sum()/hs[-1]/len()/a loop
        over it -- appends in loops and branches popped back by the adjoint."""
        rng = self.rng
        kind = self.pick([(3, "f"), (2, "v")])
        hs = self.fresh("hs")
        e, b = self.squash(kind, *self.expr(kind, 2), force=True)
        if rng.random() < 0.3:      # a comprehension over a small range, reading its variable
            k = self.fresh("k")
            self.scopes.append({k: IntVar(k, 2)})
            c, cb = self.squash(kind, *self.expr(kind, 2), force=True)
            self.scopes.pop()
            self.emit(f"{hs} = [{_strip(c)} for {k} in range(3)]")
            count, b = 3, max(b, cb)
        else:
            self.emit(f"{hs} = [{_strip(e)}]")
            trips = self.open_loop()
            if rng.random() < 0.4:
                self.stmt(level + 1)
            a, ab = self.squash(kind, *self.expr(kind, 2), force=True)
            if rng.random() < 0.3:
                self.emit(f"if {self.cond()}:")
                self.emit(f"    {hs}.append({_strip(a)})")
            else:
                self.emit(f"{hs}.append({_strip(a)})")
            if rng.random() < 0.3:
                self.stmt(level + 1)
            self.close_loop()
            count, b = trips + 1, max(b, ab)
        size = 1 if kind == "f" else L
        opts = [(2, ("f", f"np.sum(np.stack({hs}) ** 2)", count * size * b * b)),
                (1, ("f", f"np.mean({hs})", b)),
                (1, (kind, f"{hs}[-1]", b)),
                (1, (kind, f"sum({hs})", count * b)),
                (1, ("f", f"len({hs}) * 0.1", count * 0.1))]
        if self.on("arrays"):
            u, bu = self.leaf("v")
            if kind == "v":
                opts += [(1.5, ("v", f"np.sum(np.array({hs}) * {self.const()}, axis=0)", count * b)),
                         (5, ("v", f"np.mean(np.stack({hs}, axis=1), axis=1)", b)),
                         (1, ("f", f"np.sum(np.tanh(np.array({hs}) @ {u}))", count)),
                         (0.5, ("v", f"np.max(np.array({hs}), axis=0)", b))]
            else:
                opts += [(1, ("f", f"np.dot(np.array({hs}), np.array({hs}))", count * b * b)),
                         (1, ("f", f"np.cumsum(np.array({hs}))[-1]", count * b))]
            if self.indent == 1 and self.rng.random() < 0.5:
                # the list's name is an array from here on (at the function's top level)
                self.emit(f"{hs} = np.array({hs})")
                kind = "array"
                opts = [(1, ("f", f"np.sum({hs}[-1] * {hs}[0])", size * b * b)),
                        (1, ("f", f"np.sum({hs} ** 2)", count * size * b * b))]
        out_kind, rhs, rb = self.pick(opts)
        if kind == "v" and self.on("listaxis") and self.ext.random() < 0.8:
            with self.drawing_ext():         # a reduction of the list itself along axis 0
                fn = self.pick([(2, "mean"), (1, "sum"), (1, "max"), (1, "min")])
                out_kind, rhs, rb = "v", f"np.{fn}({hs}, axis=0)", b * (count if fn == "sum" else 1)
        if rng.random() < 0.3:      # a loop over the list
            h, acc = self.fresh("h"), self.fresh("a")
            self.emit(f"{acc} = 0.0")
            self.emit(f"for {h} in {hs}:")
            self.emit(f"    {acc} += np.sum(np.sin({h}))")
            out_kind, rhs, rb = "f", acc, count * size
        name = self.fresh("t" if out_kind == "f" else "u")
        rhs, rb = self.squash(out_kind, rhs, rb)
        self.emit(f"{name} = {_strip(rhs)}" + (" + 0.0" if out_kind == "v" else ""))
        self.declare(name, out_kind, rb, owned=out_kind != "f")

    def s_view_pattern(self) -> None:
        """A row/element read into a new value, then written back, in a loop (y = c * s[k];
        s[k] = y; acc += sum(y))."""
        rng = self.rng
        mats, vecs = self.vars("m", True), self.vars("v", True)
        use_m = mats and (not vecs or rng.random() < 0.6)
        arr = rng.choice(mats if use_m else vecs)
        outer = 0 if self.in_helper else 1      # helpers have no w and no n
        c = self.pick([(2 * outer, "w"), (1, self.const(-1.0, 1.0)), (outer, "math.tanh(w)")]
                      + [(1, v.name) for v in self.vars("f") if v.bound <= 1.0])
        text, trips, hi = self.pick([(3, ("range(2)", 2, 1)), (2 * outer, ("range(n)", R, R - 1)),
                                     (1, ("range(3)", 3, 2))])
        i = self.fresh("i")
        y = self.fresh("y")
        accs = [v for v in self.vars("f") if not self.carried(v)]
        self.enter_for(i, text, trips, hi)
        idx = self.index(R if use_m else L)
        self.emit(f"{y} = {c} * {arr.name}[{idx}]")
        self.emit(f"{arr.name}[{idx}] = {y}")
        arr.bound = max(arr.bound, ARG_BOUND * arr.bound)
        if accs:
            acc = rng.choice(accs)
            red = f"np.sum({y})" if use_m else y
            self.emit(f"{acc.name} += {red}")
            acc.bound += trips * arr.bound * (L if use_m else 1)
        self.scopes.pop()
        self.trips.pop()
        self.indent -= 1

    # -- functions ----------------------------------------------------------------------------
    def helper(self, h: Helper, names: list[str]) -> list[str]:
        self.lines = []
        self.in_helper = True
        self.param_names = set(names) | {"s", "p", "k"}
        self.kept = []
        self.cur_ret, self.early_bound = h.ret, 0.0
        params = ["p"] if h.packed else list(names)
        if h.kw:
            star = "*, " if h.kwonly else ""
            params.append(f"{star}s" if h.kwonly == "required" else f"{star}s={h.kw}")
        self.emit_def(f"def {h.name}({', '.join(params)}):")
        if h.packed == "unpack":                 # one tuple parameter, read at the top
            self.emit(f"{', '.join(names)} = p")
        elif h.packed:
            for k, nm in enumerate(names):
                self.emit(f"{nm} = p[{k - len(names) if k else 0}]")
        self.scopes = [{}]
        for nm, kind in zip(names, h.params):
            self.declare(nm, kind, PARAM_BOUND, shape=Shape("like", nm) if kind == "s" else None)
        if h.kw:
            self.declare("s", "f", 1.6)
        self.budget = self.rng.randint(1, 3)
        if self.on("calls") and self.helpers and self.rng.random() < 0.6:
            self.s_call_clobber()        # a call of an earlier helper
        self.block_stmts(self.budget, 1)
        parts, h.bound = [], 0.0
        for kind in (h.ret if isinstance(h.ret, tuple) else (h.ret,)):
            shape = next((Shape("like", nm) for nm, k in zip(names, h.params) if k == "s"), None)
            e, b = self.squash(kind, *self.expr(kind, 2, shape))
            e = _strip(e)
            if kind != "f" and re.fullmatch(r"[A-Za-z_]\w*(\[[^\[\]]*\])*", e):
                e = f"{e} * 1.0"         # a new array, never a view of an argument
            elif kind != "f" and isinstance(ast.parse(e, mode="eval").body, ast.IfExp) \
                    and _fresh_array(kind, e) != e:
                e = f"{_operand(e)} * 1.0"   # ("ifexp") nor an argument chosen by a test
            parts.append(e)
            h.bound = max(h.bound, b)
        h.bound = max(h.bound, self.early_bound)
        makers = [g for g in self.helpers if isinstance(h.ret, tuple) and g.ret == h.ret]
        r = self.ext.random() if isinstance(h.ret, tuple) and self.on("packed") else 1.0
        if makers and r < 0.4:
            # another helper's tuple result returned whole (the parts drawn above dropped)
            with self.drawing_ext():
                g = self.rng.choice(makers)
                call = self.call_text(g, 2, packed_as=self.held_tuple(g))
            pk = f"pk{next(self.ext_names)}"
            self.emit(f"{pk} = {call}")
            self.emit(f"return {pk}")
            h.bound = max(h.bound, g.bound)
            return self.lines
        if r < 0.3:                  # a tuple held by a name, returned
            pk = f"pk{next(self.ext_names)}"
            self.emit(f"{pk} = ({', '.join(parts)})")
            self.emit(f"return {pk}")
            return self.lines
        if isinstance(h.ret, tuple):
            self.emit(f"return {', '.join(parts)}")
        else:
            self.bare_return(parts[0])
        return self.lines

    def emit_def(self, text: str) -> None:
        self.lines.append(text)

    def main(self, n_stmts: int) -> list[str]:
        self.lines = []
        self.in_helper = False
        self.param_names = {"x", "M", "w", "n"}
        self.kept = []
        self.tvs = []
        self.cur_ret = None
        self.emit_def("def f(x, M, w, n, p):" if self.tuplearg else "def f(x, M, w, n):")
        self.scopes = [{}]
        self.declare("x", "v", ARG_BOUND)
        self.declare("M", "m", ARG_BOUND)
        self.declare("w", "f", ARG_BOUND)
        # a few owned arrays and an accumulator to start with, so writes are likely
        self.emit("acc = 0.0")
        self.declare("acc", "f", 0.0)
        if self.tuplearg:           # ("tupleargs") the tuple argument's parts, by name
            self.param_names.add("p")
            unpack = {"flat": ["pu, pt = p", "pu, pt = p[0], p[1]", "pu = p[0]\npt = p[-1]"],
                      "nested": ["pu, (pt, pq) = p", "pu = p[0]\npt, pq = p[1]",
                                 "pu, pr = p\npt = pr[0] * pr[1]"]}[self.tuplearg]
            for line in self.ext.choice(unpack).split("\n"):
                self.emit(line)
            self.declare("pu", "v", ARG_BOUND)
            self.declare("pt", "f", ARG_BOUND * ARG_BOUND)
            if "pq" in "".join(self.lines[-2:]):
                self.declare("pq", "f", ARG_BOUND)
        if self.rng.random() < 0.8:
            self.s_new_v()
        if self.rng.random() < 0.7:
            self.s_new_m()
        self.budget = n_stmts
        while self.budget > 0:
            self.stmt(0)
        self.bare_return(self.ret_expr())
        return self.lines


# module-level definitions of "structs": helpers taking a dict, record classes and a helper
# taking a record; fixed text (their magnitude estimates: at most R + PARAM_BOUND)
DICT_HELPERS = [
    ["def gd{k}(p, a):",
     "    h = np.tanh(p[\"A\"] @ p[\"r\"] * 0.3 + a)",
     "    return np.sum(h * h) + math.tanh(p[\"c\"]) * a"],
    ["def gd{k}(p, a):",
     "    s = a * 0.5",
     "    for key, v in p.items():",
     "        s = s + 0.1 * np.sum(np.tanh(v))",
     "    return s"],
    ["def gd{k}(p, a):",
     "    s = 0.0",
     "    for v in p.values():",
     "        s += np.mean(np.sin(v)) * a",
     "    return s / len(p) + p[\"c\"] * 0.1"],
]
RECORD_DEFS = {
    "Rec": ["class Rec(NamedTuple):", "    A: np.ndarray", "    r: np.ndarray", "    c: float",
            "", "    def score(self, a):",
            "        return np.sum(np.tanh(self.A @ self.r)) * math.tanh(self.c) + a"],
    "Par": ["@dataclasses.dataclass", "class Par:", "    A: np.ndarray", "    r: np.ndarray",
            "    c: float = 0.5"],
}
# "poly": helpers whose body takes a float, a vector or a matrix (magnitudes at most 1 + 0.1 |z|)
POLY_DEFS = ["def gp0(z, a=0.5):", "    return np.tanh(z * a) + 0.1 * z", "", "",
             "def gp1(z, a, k=2):", "    y = z * 0.0", "    for j in range(k):",
             "        y = np.tanh(y * a + z)", "        if np.sum(y) > 1.5:",
             "            return y * 0.5", "    return y", "", "",
             "def gp2(z, a):", "    s = 0.0", "    for j in range(3):",
             "        s = s + np.sum(np.tanh(z * a)) * 0.1", "        if s > 1.0:",
             "            return z * 0.5, s", "        z = np.tanh(z * 0.9 + a)", "    return z, s",
             "", ""]
# "called": module helpers transformed inside f (magnitudes: ge0's gradient at most 0.5 |a|,
# ge1's Jacobian at most 1.1 + 0.1 per entry, ge2's derivatives at most 1.5 |b|)
CALLED_DEFS = ["def ge0(r, a):", "    return np.sum(np.tanh(r * a)) * 0.5 + 0.1 * a * a", "", "",
               "def ge1(r, a):", "    return np.tanh(r * a + np.sum(r) * 0.1) + 0.1 * r", "", "",
               "def ge2(a, b):", "    return math.sin(a * b) + 0.5 * math.tanh(a) * b", "", "",
               "ge0_grad = jitad.grad(ge0)", "ge2_vg = jitad.value_and_grad(ge2)", "", ""]
RECORD_HELPER = ["def gq0(p, a):", "    return np.sum(np.tanh(p.A @ p.r + p.c)) * a / 3.0"]


def _struct_defs(gen: _Gen, ext: random.Random) -> list[str]:
    """The module-level definitions "structs" calls: one or two dict helpers, record
    classes (and gq0, reading a record of either class by field)."""
    out = []
    for k, form in enumerate(ext.sample(range(len(DICT_HELPERS)), ext.choice((1, 2)))):
        out += [line.replace("{k}", str(k)) for line in DICT_HELPERS[form]] + ["", ""]
        gen.dhelpers.append(f"gd{k}")
    for name in sorted(RECORD_DEFS):
        if ext.random() < 0.6:
            out += RECORD_DEFS[name] + ["", ""]
            gen.records.append(name)
    if gen.records:
        out += RECORD_HELPER + ["", ""]
    return out


def generate(seed: int, size: str = "normal", without=()) -> Program:
    """The program for `seed` (deterministic): module text with helpers, f, fuzz_args, WRT.
    `without` leaves constructs out (see FEATURES), e.g. one with an open bug; the same seed,
    size and `without` give the same program."""
    without = frozenset(without)
    if without - set(FEATURES):
        raise ValueError(f"unknown features {sorted(without - set(FEATURES))}; "
                         f"choose from {', '.join(FEATURES)}")
    old = without - set(EXTENSIONS)      # the first stream knows the old features alone
    tag = f"-without-{','.join(sorted(old))}" if old else ""
    rng = random.Random(f"jitad-fuzz-{seed}-{size}{tag}")
    every = f"-without-{','.join(sorted(without))}" if without else ""
    ext = random.Random(f"jitad-fuzz-ext-{seed}-{size}{every}")
    cfg = SIZES[size]
    helpers: list[Helper] = []
    out = [f"# jitad fuzz program: seed {seed}, size {size}"
           + (f", without {','.join(sorted(without))}" if without else ""),
           "import math", "", "import numpy as np", "", ""]
    gen = _Gen(rng, helpers, cfg, without, ext)
    gen.third = random.Random(f"jitad-fuzz-third-{seed}-{size}{every}")
    kinds = [(("f", "f"), "f", ["a", "b"]), (("v", "f"), "f", ["r", "a"]),
             (("v", "f"), "v", ["r", "a"])]
    if gen.on("mhelpers"):     # rank 2 makes a helper costly: cut, its states on a tape
        kinds += [(("m", "f"), "m", ["A", "a"]), (("m", "v"), "v", ["A", "r"]),
                  (("v", "f"), "m", ["r", "a"]), (("m", "f"), "f", ["A", "a"])]
    if gen.on("calls"):
        kinds += [(("v", "f"), ("f", "v"), ["r", "a"]), (("f", "f"), ("f", "f"), ["a", "b"])]
        if gen.on("mhelpers"):
            kinds += [(("m", "f"), ("m", "f"), ["A", "a"])]
    if gen.on("shapes"):       # a vector argument whose length changes between calls
        kinds += [(("s", "f"), "s", ["r", "a"]), (("s", "f"), "f", ["r", "a"])]
    n_helpers = rng.choice(cfg["helpers"]) * gen.on("helpers")
    if n_helpers and gen.on("calls") and rng.random() < 0.3:
        n_helpers += 1
    if gen.on("poly") and ext.random() < 0.4:      # (the second stream's draw)
        gen.polys = True
        out += POLY_DEFS
    if gen.on("called") and ext.random() < 0.35:    # (the second stream's draw)
        gen.called = True
        out += CALLED_DEFS
    for k in range(n_helpers):
        params, ret, names = rng.choice(kinds)
        h = Helper(f"g{k}", params, ret, 1.0)
        if gen.on("kwargs") and rng.random() < 0.35:
            h.kw = rng.choice(("0.5", "-0.25", "1.0"))
        if h.kw and gen.on("kwonly") and ext.random() < 0.4:
            h.kwonly = ext.choice(("default", "default", "required"))
        if gen.on("packed") and ext.random() < 0.3:
            h.packed = ext.choice(("unpack", "index"))
        h.names = tuple(names)
        out += gen.helper(h, names) + ["", ""]
        helpers.append(h)
    if gen.on("recursion") and ext.random() < 0.35:      # (the second stream's draws)
        with gen.drawing_ext():
            for k in range(ext.choice((1, 1, 2))):
                h = Helper(f"gr{k}", (), ext.choice(("f", "f", "v")), 1.0)
                h.names, h.depth = ("a" if h.ret == "f" else "r", "k"), True
                lines, h.bound = gen.rec_helper(h.name, h.ret)
                out += lines + ["", ""]
                gen.recs.append(h)
    if gen.on("structs") and ext.random() < 0.5:       # (the second stream's draws)
        out += _struct_defs(gen, ext)
    if gen.on("tupleargs") and ext.random() < 0.3:    # (the second stream's draw)
        gen.tuplearg = ext.choice(("flat", "nested"))
    gen.counter = itertools.count()
    out += gen.main(rng.randint(*cfg["stmts"])) + ["", ""]
    x = [round(rng.uniform(-ARG_BOUND, ARG_BOUND), 4) for _ in range(L)]
    M = [[round(rng.uniform(-ARG_BOUND, ARG_BOUND), 4) for _ in range(L)] for _ in range(R)]
    w = round(rng.uniform(-ARG_BOUND, ARG_BOUND), 4)
    n = rng.randint(1, R)
    if any("scipy.special." in line for line in out):
        out.insert(out.index("import numpy as np") + 1, "import scipy.special")
    for mod in ("functools", "operator"):
        if any(f"{mod}." in line for line in out):
            out.insert(out.index("import math"), f"import {mod}")
    if any("dataclasses." in line for line in out):
        out.insert(out.index("import math"), "import dataclasses")
    if any("jitad." in line for line in out):
        out.insert(out.index("import numpy as np"), "import jitad")
    if any(line.startswith("class Rec(NamedTuple)") for line in out):
        out.insert(out.index("import numpy as np") - 1, "from typing import NamedTuple")
    args, wrt = "x, M, {w!r}, {n}", "(0, 1, 2)"
    if gen.tuplearg:
        pu = [round(ext.uniform(-ARG_BOUND, ARG_BOUND), 4) for _ in range(L)]
        pt, pq = (round(ext.uniform(-ARG_BOUND, ARG_BOUND), 4) for _ in range(2))
        tail = f"{pt!r}" if gen.tuplearg == "flat" else f"({pt!r}, {pq!r})"
        args, wrt = args + ", (np.array({pu!r}), {tail})", "(0, 1, 2, 4)"
    else:
        pu = tail = None
    out += ["def fuzz_args():",
            f"    x = np.array({x!r})",
            f"    M = np.array({M!r})",
            "    return " + args.format(w=w, n=n, pu=pu, tail=tail),
            "", "", f"WRT = {wrt}", ""]
    return Program(seed, size, "\n".join(out))


# ----------------------------------------------------------------------------------------------
# checker
# ----------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    cls: str                   # one of CLASSES
    signature: str             # class and kind of failure, for grouping distinct failures
    detail: str                # one readable line
    report: list[str] = field(default_factory=list)   # values and gradients, for the out dir
    seconds: float = 0.0


_loaded = itertools.count()


def load_module(path: Path):
    """Import a program file under a fresh module name (a changed file is a new module)."""
    name = f"jitad_fuzz_{Path(path).stem}_{next(_loaded)}"
    spec = importlib.util.spec_from_file_location(name, str(path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)   # a minimizer's candidate may be odd
        spec.loader.exec_module(mod)
    return mod


def _copy(a):
    """`a` with its arrays copied (a tuple argument -- "tupleargs" -- leaf by leaf)."""
    if isinstance(a, tuple):
        return tuple(_copy(b) for b in a)
    return np.array(a, copy=True) if isinstance(a, np.ndarray) else a


def _copy_args(args):
    return tuple(_copy(a) for a in args)


def _leaves(a) -> list:
    """The arrays and numbers of an argument or gradient, a tuple's in order."""
    return [x for b in a for x in _leaves(b)] if isinstance(a, tuple) else [a]


def _with_leaves(a, leaves: list):
    """`a` with its leaves replaced by `leaves` (consumed from the front)."""
    if isinstance(a, tuple):
        return tuple(_with_leaves(b, leaves) for b in a)
    return leaves.pop(0)


def _unchanged(args, snap) -> list[int]:
    return [k for k, (a, s) in enumerate(zip(args, snap))
            if any(isinstance(y, np.ndarray) and not (
                isinstance(x, np.ndarray) and x.dtype == y.dtype and x.shape == y.shape
                and np.array_equal(x, y, equal_nan=True))
                for x, y in zip(_leaves(a), _leaves(s)))]


def _shape(a):
    """np.shape of an argument or a gradient, a tuple's per element."""
    return tuple(_shape(b) for b in a) if isinstance(a, tuple) else np.shape(a)


def _flat(grads) -> np.ndarray:
    return np.concatenate([np.ravel(np.asarray(g, dtype=np.float64))
                           for g in _leaves(tuple(grads))])


def _plain(f, args) -> float:
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(f(*_copy_args(args)))


def finite_differences(f, args, wrt, rel_step: float) -> np.ndarray:
    """Central differences of the plain function, flattened in `wrt` order; step
    rel_step * max(1, |element|)."""
    out = []
    for k in wrt:
        if isinstance(args[k], tuple):      # a tuple argument: each leaf in turn
            leaves = _leaves(args[k])
            for i in range(len(leaves)):
                def part(*xs, i=i, k=k):
                    moved = list(_copy_args(leaves))
                    moved[i] = xs[0]
                    return f(*args[:k], _with_leaves(args[k], moved), *args[k + 1:])
                inner = finite_differences(part, (leaves[i],), (0,), rel_step)
                out.extend(inner)
            continue
        a = args[k]
        if isinstance(a, np.ndarray):
            for idx in np.ndindex(a.shape):
                h = rel_step * max(1.0, abs(a[idx]))
                ap, am = a.copy(), a.copy()
                ap[idx] += h
                am[idx] -= h
                hp, hm = ap[idx] - a[idx], a[idx] - am[idx]
                fp = _plain(f, args[:k] + (ap,) + args[k + 1:])
                fm = _plain(f, args[:k] + (am,) + args[k + 1:])
                out.append((fp - fm) / (hp + hm))
        else:
            h = rel_step * max(1.0, abs(a))
            fp = _plain(f, args[:k] + (a + h,) + args[k + 1:])
            fm = _plain(f, args[:k] + (a - h,) + args[k + 1:])
            out.append((fp - fm) / ((a + h) - (a - h)))
    return np.array(out)


def _run_mode(f, args, wrt, mode, backend="numba"):
    """(value, grads, modified-arg indices) or the exception raised.  backend="python" runs
    the compiled mode's generated source without Numba (fast: used to minimize)."""
    import jitad
    call_args = _copy_args(args)
    snap = _copy_args(args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if mode == "compiled" and backend != "numba":
                f = jitad.differentiable(f, backend=backend)
            value, grads = jitad.value_and_grad(f, wrt=wrt, mode=mode)(*call_args)
    except Exception as e:  # noqa: BLE001 -- every exception is a finding
        return e
    return value, tuple(grads), _unchanged(call_args, snap)


def _exc_line(e: BaseException) -> str:
    first = (str(e).strip().splitlines() or [""])[0]
    return f"{type(e).__name__}: {first}"[:300]


def _mismatch(a: np.ndarray, b: np.ndarray, rtol: float, atol: float, slack=None) -> np.ndarray:
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
    tol = atol * scale + rtol * np.abs(b) + (0.0 if slack is None else slack)
    return np.abs(a - b) > tol


def _describe(mask: np.ndarray, f, args, wrt) -> str:
    """Which arguments (by name) hold the mismatching elements."""
    params = list(inspect.signature(f).parameters)
    names, k0 = [], 0
    for k in wrt:
        size = sum(int(np.size(x)) for x in _leaves(args[k]))
        if mask[k0:k0 + size].any():
            names.append(params[k])
        k0 += size
    return ", ".join(names)


def check_module(mod, backend: str = "numba") -> Outcome:
    """Check `mod.f` at `mod.fuzz_args()` three ways; see the module docstring for classes."""
    import jitad
    t0 = time.perf_counter()
    out = _check(mod, jitad.JitadError, backend)
    out.seconds = time.perf_counter() - t0
    return out


def _check(mod, JitadError, backend) -> Outcome:
    f, args, wrt = mod.f, tuple(mod.fuzz_args()), tuple(mod.WRT)
    rep = [f"args = {args!r}", f"wrt = {wrt}"]
    try:
        plain = _plain(f, args)
    except Exception as e:  # noqa: BLE001
        return Outcome("skipped", "skipped:invalid", f"the plain function raised {_exc_line(e)}",
                       rep)
    rep.append(f"plain value = {plain!r}")
    if not math.isfinite(plain) or abs(plain) > HUGE:
        return Outcome("skipped", "skipped:huge", f"plain value {plain!r}", rep)
    res = {m: _run_mode(f, args, wrt, m, backend) for m in ("compiled", "eager")}
    for m, r in res.items():
        if isinstance(r, BaseException):
            rep.append(f"{m}: raised {_exc_line(r)}")
            if not isinstance(r, JitadError):
                rep.append("".join(traceback.format_exception(r)[-6:]).rstrip())
        else:
            rep.append(f"{m}: value = {r[0]!r}")
            rep.append(f"{m}: grads = {r[1]!r}")
    rc, re_ = res["compiled"], res["eager"]
    errs = {m: r for m, r in res.items() if isinstance(r, BaseException)}
    if errs:
        if len(errs) == 2 and all(isinstance(e, JitadError) for e in errs.values()):
            e = errs["compiled"]
            construct = getattr(e, "construct", None) or e.message.split(":")[0][:60]
            return Outcome("refused", f"refused:{construct}", _exc_line(e), rep)
        parts = []
        for m, e in errs.items():
            parts.append(f"{m} raised {_exc_line(e)}")
        for m in ("compiled", "eager"):
            if m not in errs:
                parts.append(f"{m} ran")
        if len(errs) == 1 and isinstance(next(iter(errs.values())), JitadError):
            (m, e), = errs.items()
            construct = getattr(e, "construct", None) or "?"
            return Outcome("crash", f"crash:{m}-only-refusal:{construct}", "; ".join(parts), rep)
        kinds = "+".join(f"{m}:{type(e).__name__}" for m, e in errs.items())
        return Outcome("crash", f"crash:{kinds}", "; ".join(parts), rep)
    for m, r in res.items():
        if r[2]:
            return Outcome("disagree", f"disagree:{m}-modified-input",
                           f"{m} modified argument(s) {r[2]}", rep)
    for m, r in res.items():
        shapes = [_shape(g) for g in r[1]]
        want = [_shape(args[k]) for k in wrt]
        if shapes != want:
            return Outcome("disagree", f"disagree:{m}-grad-shape",
                           f"{m} gradient shapes {shapes}, arguments {want}", rep)
    gc, ge = _flat(rc[1]), _flat(re_[1])
    finite = {"compiled": bool(np.all(np.isfinite(gc)) and math.isfinite(rc[0])),
              "eager": bool(np.all(np.isfinite(ge)) and math.isfinite(re_[0]))}
    if not any(finite.values()):
        return Outcome("skipped", "skipped:non-finite", "non-finite gradients in both modes", rep)
    if not all(finite.values()):
        bad = [m for m, ok in finite.items() if not ok][0]
        return Outcome("disagree", f"disagree:{bad}-non-finite",
                       f"{bad} gave non-finite values, the other mode did not", rep)
    for m, r in res.items():
        if abs(r[0] - plain) > VALUE_RTOL * max(1.0, abs(plain)):
            return Outcome("disagree", f"disagree:{m}-value",
                           f"{m} value {r[0]!r} != plain {plain!r}", rep)
    # finite differences (may be unreliable near a branch decision or a kink)
    try:
        fd1, fd2 = (finite_differences(f, args, wrt, h) for h in FD_STEPS)
    except Exception as e:  # noqa: BLE001
        fd1 = fd2 = None
        rep.append(f"finite differences raised {_exc_line(e)}")
    fd_ok = (fd1 is not None and bool(np.all(np.isfinite(fd1)) and np.all(np.isfinite(fd2)))
             and not _mismatch(fd1, fd2, 1e-6, 1e-8).any())
    if fd1 is not None:
        rep.append(f"finite differences (h={FD_STEPS[1]}) = {fd2!r}")
        rep.append(f"finite differences reliable: {fd_ok}")
    if np.max(np.abs(gc)) > HUGE or np.max(np.abs(ge)) > HUGE:
        return Outcome("skipped", "skipped:huge", "gradients beyond 1e8", rep)
    ce = _mismatch(gc, ge, CE_RTOL, CE_ATOL)
    if ce.any():
        where = _describe(ce, f, args, wrt)
        if fd_ok:
            slack = 2 * np.abs(fd1 - fd2)
            wrong = [m for m, g in (("compiled", gc), ("eager", ge))
                     if _mismatch(g, fd2, FD_RTOL, FD_ATOL, slack).any()]
            if not wrong:
                # both within the finite-difference tolerance: blame the one much further off
                scale = max(1.0, float(np.max(np.abs(fd2))))
                noise = max(float(np.max(np.abs(fd1 - fd2))) / scale, 1e-10)
                err = {m: float(np.max(np.abs(g - fd2))) / scale
                       for m, g in (("compiled", gc), ("eager", ge))}
                wrong = [m for m, e in err.items()
                         if e > 100 * noise and e > 10 * min(err.values())]
            who = "+".join(wrong) if wrong else "neither-vs-fd"
            return Outcome("disagree", f"disagree:{who}-wrong",
                           f"compiled and eager gradients differ (d/{where}); "
                           f"{' and '.join(wrong) or 'neither'} differ(s) from finite differences",
                           rep)
        return Outcome("disagree", "disagree:compiled-vs-eager",
                       f"compiled and eager gradients differ (d/{where}); finite differences "
                       "unreliable here", rep)
    if not fd_ok:
        return Outcome("skipped", "skipped:fd-unreliable",
                       "finite differences disagree across step sizes", rep)
    bad = _mismatch(gc, fd2, FD_RTOL, FD_ATOL, 2 * np.abs(fd1 - fd2))
    if bad.any():
        return Outcome("disagree", "disagree:both-vs-fd",
                       f"both modes differ from finite differences (d/{_describe(bad, f, args, wrt)})",
                       rep)
    if os.environ.get("JITAD_FUZZ_SECOND", "") not in ("", "0"):
        return _check_second(f, args, wrt, backend, JitadError, rep)
    return Outcome("ok", "ok", "", rep)


def _both_modes(what, run, f, backend, JitadError, rep):
    """`run(g, mode)` in compiled mode (f made with `backend`) and eager mode: (the results by
    mode, None), or (_, the Outcome: refused when both modes raise a JitadError, else crash)."""
    import jitad
    res = {}
    for m in ("compiled", "eager"):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res[m] = run(jitad.differentiable(f, backend=backend) if m == "compiled" else f, m)
        except Exception as e:  # noqa: BLE001 -- every exception is a finding
            res[m] = e
            rep.append(f"{what} {m}: raised {_exc_line(e)}")
    errs = {m: r for m, r in res.items() if isinstance(r, BaseException)}
    if not errs:
        return res, None
    if len(errs) == 2 and all(isinstance(e, JitadError) for e in errs.values()):
        e = errs["compiled"]
        return res, Outcome("refused", f"refused:{what}:{getattr(e, 'construct', None) or '?'}",
                            _exc_line(e), rep)
    kinds = "+".join(f"{m}:{type(e).__name__}" for m, e in errs.items())
    return res, Outcome("crash", f"crash:{what}:{kinds}", "; ".join(
        f"{what} {m} raised {_exc_line(e)}" for m, e in errs.items()), rep)


def _check_second(f, args, wrt, backend, JitadError, rep) -> Outcome:
    """Forward and second order (`--second`), once the gradients are right: the directional
    derivative by `jvp` (generated with `backend`, and eager) against the gradient's dot
    product with a seeded direction, then the Hessian-vector product along it, generated and
    eager, against central differences of the eager gradient at two step sizes."""
    import jitad
    rng = np.random.default_rng(len(args) + sum(int(np.size(x)) for k in wrt
                                                for x in _leaves(args[k])))
    vs = tuple(_with_leaves(args[k], [rng.standard_normal(np.shape(x)) if np.ndim(x) else
                                      float(rng.standard_normal()) for x in _leaves(args[k])])
               for k in wrt)
    res, failed = _both_modes("jvp", lambda g, m: float(jitad.jvp(g, wrt=wrt, mode=m)(
        *_copy_args(args), tangents=vs)[1]), f, backend, JitadError, rep)
    if failed:
        return failed
    with np.errstate(all="ignore"):
        gv = float(np.dot(_flat(jitad.grad(f, wrt=wrt, mode="eager")(*_copy_args(args))),
                          _flat(vs)))
    rep.append(f"jvp compiled = {res['compiled']!r}, eager = {res['eager']!r}, grad . v = {gv!r}")
    wrong = [m for m in ("compiled", "eager")
             if abs(res[m] - gv) > 1e-7 * max(1.0, abs(gv)) + 1e-9]
    if wrong:
        return Outcome("disagree", f"disagree:jvp-{'+'.join(wrong)}-wrong",
                       f"jvp ({' and '.join(wrong)}) differs from the gradient's dot product "
                       "with the direction", rep)
    res, failed = _both_modes("hvp", lambda g, m: _flat(jitad.hvp(g, wrt=wrt, mode=m)(
        *_copy_args(args), v=vs)), f, backend, JitadError, rep)
    if failed:
        return failed
    grad = jitad.grad(f, wrt=wrt, mode="eager")

    def along(h):
        moved = list(_copy_args(args))
        for k, v in zip(wrt, vs):
            moved[k] = _with_leaves(moved[k], [a + h * np.asarray(b) if np.ndim(a) else a + h * b
                                               for a, b in zip(_leaves(moved[k]), _leaves(v))])
        with np.errstate(all="ignore"):
            return _flat(grad(*moved))

    fds = [(along(h) - along(-h)) / (2 * h) for h in (1e-5, 1e-6)]
    rep.append(f"hvp compiled = {res['compiled']!r}")
    rep.append(f"hvp finite differences = {fds[0]!r}")
    if _mismatch(res["compiled"], res["eager"], 1e-6, 1e-8).any():
        return Outcome("disagree", "disagree:hvp-compiled-vs-eager",
                       "the generated and eager Hessian-vector products differ", rep)
    if _mismatch(fds[0], fds[1], 1e-4, 1e-6).any():
        return Outcome("skipped", "skipped:hvp-fd-unreliable",
                       "finite differences of the gradient disagree across step sizes", rep)
    if _mismatch(res["compiled"], fds[0], 1e-4, 1e-6, 2 * np.abs(fds[0] - fds[1])).any():
        return Outcome("disagree", "disagree:hvp-vs-fd",
                       "the Hessian-vector product differs from finite differences of the "
                       "gradient (both modes alike)", rep)
    return Outcome("ok", "ok", "", rep)


def check_file(path, backend: str = "numba") -> Outcome:
    """Import a program file (generated or a regression) and check it."""
    try:
        mod = load_module(Path(path))
    except Exception as e:  # noqa: BLE001
        return Outcome("skipped", "skipped:invalid", f"import failed: {_exc_line(e)}")
    return check_module(mod, backend)


def check_source(source: str, workdir: Path, stem: str, backend: str = "numba") -> Outcome:
    path = Path(workdir) / f"{stem}.py"
    path.write_text(source)
    return check_file(path, backend)


def check_seed(seed: int, size: str, workdir: Path, backend: str = "numba", without=()
               ) -> tuple[Program, Outcome]:
    prog = generate(seed, size, without)
    return prog, check_source(prog.source, workdir, f"prog_{size}_{seed}", backend)


# ----------------------------------------------------------------------------------------------
# failing-program files and minimization
# ----------------------------------------------------------------------------------------------


def failure_text(source: str, out: Outcome, seed=None) -> str:
    """A program file annotated with what was wrong (comments only: it still runs)."""
    head = [f"# seed: {seed}" if seed is not None else "# seed: -",
            f"# class: {out.cls}", f"# signature: {out.signature}", f"# detail: {out.detail}"]
    head += ["#   " + line for r in out.report for line in r.splitlines()]
    return "\n".join(head) + "\n" + source


def header(path) -> dict:
    """The `# key: value` lines at the top of a program file."""
    info = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"#\s*(\w[\w-]*):\s*(.*)", line)
        if not line.startswith("#"):
            break
        if m and m.group(1) not in info:
            info[m.group(1)] = m.group(2).strip()
    return info


def _stmt_lists(tree):
    """Every statement list inside function definitions (bodies and else branches)."""
    for node in ast.walk(tree):
        for fld in ("body", "orelse"):
            lst = getattr(node, fld, None)
            if isinstance(lst, list) and lst and isinstance(lst[0], ast.stmt) \
                    and not isinstance(node, ast.Module):
                yield node, fld


def _loose_jumps(body) -> bool:
    """Whether `break`/`continue` in these statements belong to the loop around them (so the
    statements cannot leave it)."""
    for node in body:
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.While, ast.FunctionDef)):
            continue
        for part in ("body", "orelse"):
            if _loose_jumps(getattr(node, part, []) or []):
                return True
    return False


def _compiles(source: str) -> bool:
    try:
        compile(source, "<candidate>", "exec")
    except SyntaxError:
        return False
    return True


def _candidates(source: str):
    """Smaller variants of a program, most promising first."""
    tree = ast.parse(source)
    funcs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in ("fuzz_args",)]
    # 1. drop a whole helper function
    for k, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef) and node.name not in ("f", "fuzz_args"):
            t = ast.parse(source)
            del t.body[k]
            yield ast.unparse(t)
    # 2. drop a statement / replace a compound statement by one of its bodies
    spots = []
    for fn in funcs:
        for owner, fld in _stmt_lists(fn):
            for k in range(len(getattr(owner, fld))):
                spots.append((owner, fld, k))
    for s in reversed(range(len(spots))):
        owner, fld, k = spots[s]
        node = getattr(owner, fld)[k]
        subs = [[]]
        if isinstance(node, ast.If):
            subs += [node.body, node.orelse]
        if isinstance(node, (ast.For, ast.While)) and not _loose_jumps(node.body):
            pre = []
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                pre = [ast.parse(f"{node.target.id} = 0").body[0]]
            subs.append(pre + node.body)
        for sub in subs:
            lst = getattr(owner, fld)
            saved = list(lst)
            new = lst[:k] + list(sub) + lst[k + 1:]
            if not new and fld != "orelse":
                new = [ast.Pass()]        # a body cannot be empty; an else branch can
            lst[:] = new
            text = ast.unparse(tree)
            lst[:] = saved
            if _compiles(text):     # (dropping `c = 0` leaves `nonlocal c` without a binding)
                yield text
    # 3. simplify an expression: an operand or argument in place of the operation
    exprs = []
    for fn in funcs:
        for node in ast.walk(fn):
            if isinstance(node, (ast.BinOp, ast.Call, ast.IfExp, ast.BoolOp, ast.UnaryOp)):
                exprs.append(node)
    for node in reversed(exprs):
        if isinstance(node, ast.BinOp):
            kids = [node.left, node.right]
        elif isinstance(node, ast.Call):
            kids = list(node.args)
        elif isinstance(node, ast.IfExp):
            kids = [node.body, node.orelse]
        elif isinstance(node, ast.BoolOp):
            kids = list(node.values)
        else:
            kids = [node.operand]
        for kid in kids:
            yield _replace(tree, node, kid)
    # 4. shorter ranges
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            for lit in ("1", "2"):
                yield _replace(tree, node, ast.parse(f"range({lit})", mode="eval").body)


def _names_resolve(source: str) -> bool:
    """Every name a function reads is a parameter, assigned in it, or a module-level name (a
    name read only on a path that never runs is still a program jitad rightly refuses)."""
    import builtins
    tree = ast.parse(source)
    module = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    module |= {a.asname or a.name.split(".")[0] for n in tree.body
               if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    module |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    module |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
               if isinstance(t, ast.Name)}
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        # (the functions defined inside, and their and the lambdas' parameters, too)
        known = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)} | module \
            | set(dir(builtins)) | {d.name for d in ast.walk(fn) if isinstance(d, ast.FunctionDef)}
        known |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        if any(isinstance(n, ast.Name) and n.id not in known for n in ast.walk(fn)):
            return False
    return True


def _replace(tree, old, new) -> str:
    """Source of `tree` with node `old` replaced by `new` (the tree is left as it was)."""
    for parent in ast.walk(tree):
        for fld, val in ast.iter_fields(parent):
            if val is old:
                setattr(parent, fld, new)
                try:
                    return ast.unparse(tree)
                finally:
                    setattr(parent, fld, old)
            if isinstance(val, list) and any(item is old for item in val):
                k = next(k for k, item in enumerate(val) if item is old)
                val[k] = new
                try:
                    return ast.unparse(tree)
                finally:
                    val[k] = old
    raise ValueError("node not in tree")


def minimize(source: str, workdir: Path, want: str | None = None, log=None,
             max_checks: int = 400, backend: str = "numba") -> tuple[str, Outcome]:
    """Greedy reduction: keep any smaller variant whose outcome signature (with `backend`) is
    `want` (default: the signature of `source`).  Returns the reduced source and its outcome."""
    log = log or _log
    workdir = Path(workdir)
    n = itertools.count()
    confirm = backend
    best = check_source(source, workdir, f"min_{next(n)}", backend)
    want = want or best.signature
    if want == "ok" or best.signature != want:
        raise ValueError(f"the program's outcome is {best.signature}, not {want}")
    # the generated source run without Numba compiles in milliseconds: reduce with it when it
    # shows the same failure, and confirm the result with Numba
    if backend == "numba" and check_source(source, workdir, f"min_{next(n)}",
                                           "python").signature == want:
        backend = "python"
    log(f"  reducing with backend={backend}")
    source = ast.unparse(ast.parse(source))
    checks = 0
    changed = True
    while changed and checks < max_checks:
        changed = False
        seen = set()
        for cand in _candidates(source):
            if cand in seen or len(cand) >= len(source) or not _names_resolve(cand):
                continue
            seen.add(cand)
            checks += 1
            out = check_source(cand, workdir, f"min_{next(n)}", backend)
            if out.signature == want:
                source, best, changed = cand, out, True
                log(f"  reduced to {len(source)} chars ({checks} checks)")
                break
            if checks >= max_checks:
                break
    if backend != confirm:
        best = check_source(source, workdir, f"min_{next(n)}", confirm)
        if best.signature != want:
            log(f"  with Numba the reduced program gives {best.signature}")
    return source, best


# ----------------------------------------------------------------------------------------------
# campaign
# ----------------------------------------------------------------------------------------------

_WORKDIR: Path | None = None


def _log(*a) -> None:
    print(*a, flush=True)


def _worker_init(base: str) -> None:
    global _WORKDIR
    _WORKDIR = Path(tempfile.mkdtemp(prefix="w", dir=base))
    os.environ.setdefault("JITAD_CACHE_DIR", str(Path(base) / "cache"))


def _worker(task):
    seed, size, backend, without = task
    prog, out = check_seed(seed, size, _WORKDIR, backend, without)
    return seed, prog.source, out, ran_with()


_RAN_WITH: str | None = None


def ran_with() -> str:
    """Which jitad this process checks with: its directory and that checkout's commit
    (`+changes` when it has uncommitted ones).  A campaign records it in its summary and in
    every failing program's file, as a worker may import another checkout than the one its
    programs are checked again with (an editable install points at one of several)."""
    global _RAN_WITH
    if _RAN_WITH is None:
        import subprocess

        import jitad
        where = Path(jitad.__file__).resolve().parent.parent
        try:
            head = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
                                  capture_output=True, text=True, timeout=20).stdout.strip()
            dirty = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "jitad"],
                                   capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            head, dirty = "", ""
        _RAN_WITH = f"{where} ({head or 'no git'}{' +changes' if dirty else ''})"
    return _RAN_WITH


def run_campaign(n: int, seed: int = 0, size: str = "normal", jobs: int = 1,
                 out_dir: Path | None = None, log=None, backend: str = "numba",
                 without=()) -> dict:
    """Check programs seed..seed+n-1; write failing ones to out_dir; return totals.
    backend="python" runs the compiled mode's generated source without Numba: the same
    adjoint, hundreds of times faster to start, but it cannot see Numba-only faults."""
    import multiprocessing as mp
    log = log or _log
    base = tempfile.mkdtemp(prefix="jitad-fuzz-")
    os.environ.setdefault("JITAD_CACHE_DIR", str(Path(base) / "cache"))
    if out_dir is not None:
        Path(out_dir).mkdir(parents=True, exist_ok=True)
    totals = {c: 0 for c in CLASSES}
    buckets: dict[str, list[int]] = {}
    ran: set = set()
    tasks = [(s, size, backend, tuple(without)) for s in range(seed, seed + n)]
    t0 = time.perf_counter()
    ctx = mp.get_context("spawn")
    with ctx.Pool(jobs, initializer=_worker_init, initargs=(base,), maxtasksperchild=150) as pool:
        for done, (s, source, out, where) in enumerate(pool.imap_unordered(_worker, tasks), 1):
            totals[out.cls] += 1
            buckets.setdefault(out.signature, []).append(s)
            ran.add(where)
            if out_dir is not None and out.cls in ("disagree", "crash", "refused"):
                Path(out_dir, f"{out.cls}_{size}_{s}.py").write_text(
                    f"# jitad: {where}\n" + failure_text(source, out, s))
            if out.cls in ("disagree", "crash"):
                log(f"\nseed {s}: {out.cls}: {out.detail}")
            line = " ".join(f"{c}={totals[c]}" for c in CLASSES)
            if done % 10 == 0 or done == n or out.cls in ("disagree", "crash"):
                log(f"[{done}/{n}] {line}  {time.perf_counter() - t0:.0f}s")
    summary = {"totals": totals, "buckets": {k: sorted(v) for k, v in sorted(buckets.items())},
               "n": n, "seed": seed, "size": size, "backend": backend, "without": list(without),
               "seconds": round(time.perf_counter() - t0, 1), "jitad": sorted(ran)}
    if out_dir is not None:
        lines = [f"{k}: {len(v)}  seeds {v[:20]}" for k, v in summary["buckets"].items()]
        Path(out_dir, "summary.txt").write_text(
            f"n={n} seed={seed} size={size} backend={backend} without={','.join(without)} "
            f"seconds={summary['seconds']}\n" + "".join(f"jitad: {w}\n" for w in sorted(ran))
            + " ".join(f"{c}={totals[c]}" for c in CLASSES) + "\n\n" + "\n".join(lines) + "\n")
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100, help="number of programs")
    p.add_argument("--seed", type=int, default=0, help="first seed (programs use seed..seed+n-1)")
    p.add_argument("--size", choices=sorted(SIZES), default="normal")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--backend", choices=("numba", "python"), default="numba",
                   help="python: the generated adjoint without Numba (fast screening); also "
                        "the backend --check and --minimize use")
    p.add_argument("--out", type=Path, default=None, help="directory for failing programs")
    p.add_argument("--without", default="", metavar="F,G",
                   help="leave constructs out: " + "; ".join(
                       f"{k}: {v}" for k, v in FEATURES.items()).replace("%", "%%"))
    p.add_argument("--second", action="store_true",
                   help="also check forward and second order: jvp (generated and eager) "
                        "against grad . v, hvp (generated and eager) against finite "
                        "differences of the gradient, for programs whose gradients are right")
    p.add_argument("--show", type=int, metavar="SEED", help="print the program for SEED and exit")
    p.add_argument("--check", type=Path, nargs="+", metavar="FILE", help="check program files")
    p.add_argument("--minimize", type=Path, metavar="FILE",
                   help="reduce a failing program file; writes FILE.min.py")
    a = p.parse_args(argv)
    without = tuple(w for w in a.without.split(",") if w)
    if a.second:        # read by _check, in this process and in the spawned workers
        os.environ["JITAD_FUZZ_SECOND"] = "1"
    if a.show is not None:
        print(generate(a.show, a.size, without).source)
        return 0
    if a.check:
        work = Path(tempfile.mkdtemp(prefix="jitad-fuzz-check-"))
        bad = 0
        for path in a.check:
            out = check_source(Path(path).read_text(), work, f"check_{Path(path).stem}",
                               a.backend)
            print(f"{path}: {out.cls} {out.signature} {out.detail}")
            if out.cls != "ok":
                for line in out.report:
                    print("   ", line)
            bad += out.cls in ("disagree", "crash")
        return 1 if bad else 0
    if a.minimize:
        work = Path(tempfile.mkdtemp(prefix="jitad-fuzz-min-"))
        src = a.minimize.read_text()
        reduced, out = minimize(src, work, backend=a.backend)
        dest = a.minimize.with_suffix(".min.py")
        dest.write_text(failure_text(reduced, out, header(a.minimize).get("seed")))
        print(f"{dest}: {out.signature}: {out.detail}")
        print(reduced)
        return 0
    s = run_campaign(a.n, a.seed, a.size, a.jobs, a.out, backend=a.backend, without=without)
    print("\ntotals: " + " ".join(f"{c}={s['totals'][c]}" for c in CLASSES)
          + f"  ({s['seconds']} s)")
    for k, v in s["buckets"].items():
        if not k.startswith("ok"):
            print(f"  {k}: {len(v)} (seeds {', '.join(map(str, v[:8]))}{' ...' if len(v) > 8 else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
