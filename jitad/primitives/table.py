"""The built-in primitives: the one-line rule table, and the structural operations.

Takes: nothing (run once, when `jitad.primitives` is imported).
Guarantees: every primitive compiled code supports is registered in `core.PRIMITIVES`, each
library callable that means one in `core.CALLABLES`, each array method in `METHODS`.
The table is sugar for `Primitive(...)`: one readable line per operation,

    name(params; statics) = forward :: kind | param: adjoint | param: adjoint

with `kind` the type rule (`typerules.KINDS`), which also sets the structural facts
(elementwise, fresh, view, foldable). Templates read their parameters, `g` (the cotangent of
the result) and `y` (the result); see `templates` for how they are instantiated.
One template serves Python scalars and arrays alike (no `np.where`, no `if`): a guard is
arithmetic on comparisons, e.g. `a + (a == 0)`.
Conventions: `a ** b` has d/db = 0 where a == 0 (no `log(0) * 0`) and d/da = 0 where b == 0;
its partial in a times a zero cotangent (tangent) is 0 even where the partial is inf (`rt.strong_mul`:
a ** 1.5 at a == 0 has second derivative 0 along a zero tangent, not 0 * inf); so is the partial
of `sqrt` and `np.cbrt` at 0 (`rt.strong_div(g, 2.0 * y)`: sqrt(x * m) of a zero m is constant,
its derivative 0, not 0 * inf);
ties of `max`/`min` (reductions, axis forms, `np.maximum`/`np.minimum`, builtin `max(a, b)`)
split the cotangent evenly among the tied entries, as autograd and JAX do.
A primitive with no adjoint lines is not differentiable (its result is never active).
"""
from __future__ import annotations

import ast
import builtins
import math
import operator

import numpy as np

from . import templates, typerules
from . import einsum, forms
from .core import (Primitive, alias, alias_method, alias_when_imported, get, register,
                   refuse_when_imported)

TABLE = r"""
add(a, b)          = a + b                  :: ew   | a: g                      | b: g
sub(a, b)          = a - b                  :: ew   | a: g                      | b: -g
mul(a, b)          = a * b                  :: ew   | a: g * b                  | b: g * a
truediv(a, b)      = a / b                  :: ewf  | a: g / b                  | b: -(g / b) * y
pow(a, b)          = a ** b                 :: ew   | a: rt.strong_mul(g, b * a ** (b - 1 + (b == 0))) | b: g * y * np.log(a + (a == 0))
mod(a, b)          = a % b                  :: ew   | a: g                      | b: -g * ((a - y) / b)
floordiv(a, b)     = a // b                 :: ew
neg(a)             = -a                     :: same | a: -g
matmul(a, b)       = a @ b                  :: dot
dot(a, b)          = np.dot(a, b)           :: dot
dot.1.1(a, b)      = rt.dot1(a, b)          :: dot  | a: g * b                  | b: g * a
dot.2.1(a, b)      = rt.matvec(a, b)        :: dot  | a: rt.outer(g, b)         | b: rt.vecmat(g, a)
dot.1.2(a, b)      = rt.vecmat(a, b)        :: dot  | a: rt.matvec(b, g)        | b: rt.outer(a, g)
dot.2.2(a, b)      = rt.matmat(a, b)        :: dot  | a: rt.matmat(g, b.T)      | b: rt.matmat(a.T, g)
dot.3.3(a, b)      = rt.bmm(a, b)           :: dot  | a: rt.bmm(g, np.swapaxes(b, 1, 2)) | b: rt.bmm(np.swapaxes(a, 1, 2), g)
dot.3.2(a, b)      = rt.bmm32(a, b)         :: dot  | a: rt.bmm32(g, b.T)         | b: rt.rows(a).T @ rt.rows(g)
dot.3.1(a, b)      = rt.bmv(a, b)           :: dot  | a: np.expand_dims(g, 2) * b   | b: rt.rows(a).T @ np.ascontiguousarray(g).ravel()
dot.1.3(a, b)      = rt.mbm(a, b)           :: dot  | a: rt.bmm_sum(b, g)           | b: rt.outer_each(a, g)
dot.2.3(a, b)      = rt.mbm(a, b)           :: dot  | a: rt.bmm_sum(g, np.swapaxes(b, 1, 2)) | b: rt.mbm(a.T, g)
outer(a, b)        = rt.outer(a, b)         :: outer | a: rt.matvec(g, b)       | b: rt.vecmat(a, g)
outer.2.1(a, b)    = rt.outer(np.ravel(a), b) :: outer | a: np.reshape(rt.matvec(g, b), a.shape) | b: rt.vecmat(np.ravel(a), g)
outer.1.2(a, b)    = rt.outer(a, np.ravel(b)) :: outer | a: rt.matvec(g, np.ravel(b)) | b: np.reshape(rt.vecmat(a, g), b.shape)
outer.2.2(a, b)    = rt.outer(np.ravel(a), np.ravel(b)) :: outer | a: np.reshape(rt.matvec(g, np.ravel(b)), a.shape) | b: np.reshape(rt.vecmat(np.ravel(a), g), b.shape)
matvec_sum(a, b, c, d) = rt.matvec_sum(a, b, c, d) :: dot_sum | a: rt.outer(g, b) | b: rt.vecmat(g, a) | c: rt.outer(g, d) | d: rt.vecmat(g, c)
vecmat_sum(a, b, c, d) = rt.vecmat_sum(a, b, c, d) :: dot_sum | a: rt.matvec(b, g) | b: rt.outer(a, g) | c: rt.matvec(d, g) | d: rt.outer(c, g)
matmat_sum(a, b, c, d) = rt.matmat_sum(a, b, c, d) :: dot_sum | a: rt.matmat(g, b.T) | b: rt.matmat(a.T, g) | c: rt.matmat(g, d.T) | d: rt.matmat(c.T, g)
lt(a, b)           = a < b                  :: cmp
le(a, b)           = a <= b                 :: cmp
gt(a, b)           = a > b                  :: cmp
ge(a, b)           = a >= b                 :: cmp
eq(a, b)           = a == b                 :: cmp
ne(a, b)           = a != b                 :: cmp
not(a)             = not a                  :: bool
invert(a)          = ~a                     :: bits
bitand(a, b)       = a & b                  :: bits
bitor(a, b)        = a | b                  :: bits
bitxor(a, b)       = a ^ b                  :: bits
# tests and orders of values: booleans and integers, never differentiated
np.isnan(a)        = np.isnan(a)            :: cmp
np.isfinite(a)     = np.isfinite(a)         :: cmp
np.isinf(a)        = np.isinf(a)            :: cmp
np.logical_not(a)  = np.logical_not(a)      :: cmp
np.logical_and(a, b) = np.logical_and(a, b) :: cmp
np.logical_or(a, b) = np.logical_or(a, b)   :: cmp
np.logical_xor(a, b) = np.logical_xor(a, b) :: cmp
np.argsort(a)      = np.argsort(a)          :: int_like
argsort_axis(a; axis) = rt.argsort_axis(a, axis) :: int_like
np.flatnonzero(a)  = np.flatnonzero(a)      :: int_vector
np.count_nonzero(a) = np.count_nonzero(a)   :: int
nonzero_within(m, x) = rt.nonzero_within(m, x) :: mask_of_first
np.searchsorted(a, v) = np.searchsorted(a, v) :: int_like2
or(a, b)           = a or b                 :: bool
truth(a)           = bool(a)                :: bool
in_range(i, stop, step) = rt.in_range(i, stop, step) :: bool
trip_count(start, stop, step) = rt.trip_count(start, stop, step) :: int
int(a)             = int(a)                 :: int
# a map's broadcasting (`maps`): the length two axes broadcast to, and an operand's step along it
broadcast_dim(a, b) = rt.broadcast_dim(a, b) :: int
broadcast_step(d, n) = rt.broadcast_step(d, n) :: int
len(a)             = len(a)                 :: int
size(a)            = a.size                 :: int
ndim(a)            = a.ndim                 :: int
argmax(a)          = np.argmax(a)           :: int
argmin(a)          = np.argmin(a)           :: int
dim(a, k)          = a.shape[k]             :: int
shape_of(a)        = a.shape                :: shape
# shapes as values (`normalize.shape_values`): tuples of integers whose length is the rank
shape_cat(a, b)    = a + b                  :: shape_cat
shape_slice(a; start, stop, step) = a[start:stop:step] :: shape_slice
shape_eq(a, b)     = a == b                 :: shape_cmp
shape_ne(a, b)     = a != b                 :: shape_cmp
shape_prod(a)      = rt.shape_prod(a)       :: shape_int
# float(a) as a product: Numba has no float(bool) (`float(0.0 < x < 1.0)`)
float(a)           = a * 1.0                :: float | a: g
sin(x)             = {m}.sin(x)             :: ewf  | x: g * {m}.cos(x)
cos(x)             = {m}.cos(x)             :: ewf  | x: -g * {m}.sin(x)
tan(x)             = {m}.tan(x)             :: ewf  | x: g * (1.0 + y * y)
sinh(x)            = {m}.sinh(x)            :: ewf  | x: g * {m}.cosh(x)
cosh(x)            = {m}.cosh(x)            :: ewf  | x: g * {m}.sinh(x)
tanh(x)            = {m}.tanh(x)            :: ewf  | x: g * (1.0 - y * y)
exp(x)             = {m}.exp(x)             :: ewf  | x: g * y
expm1(x)           = {m}.expm1(x)           :: ewf  | x: g * (y + 1.0)
log(x)             = {m}.log(x)             :: ewf  | x: g / x
log1p(x)           = {m}.log1p(x)           :: ewf  | x: g / (1.0 + x)
log2(x)            = {m}.log2(x)            :: ewf  | x: g / (x * 0.6931471805599453)
log10(x)           = {m}.log10(x)           :: ewf  | x: g / (x * 2.302585092994046)
sqrt(x)            = {m}.sqrt(x)            :: ewf  | x: rt.strong_div(g, 2.0 * y)
# issue 12: more elementwise math (NumPy, math, scipy.special); steps have no adjoint lines
np.arcsinh(x)      = np.arcsinh(x)          :: ewf  | x: g / np.sqrt(x * x + 1.0)
math.asinh(x)      = math.asinh(x)          :: float | x: g / math.sqrt(x * x + 1.0)
np.arccosh(x)      = np.arccosh(x)          :: ewf  | x: g / np.sqrt(x * x - 1.0)
math.acosh(x)      = math.acosh(x)          :: float | x: g / math.sqrt(x * x - 1.0)
np.arctanh(x)      = np.arctanh(x)          :: ewf  | x: g / (1.0 - x * x)
math.atanh(x)      = math.atanh(x)          :: float | x: g / (1.0 - x * x)
exp2(x)            = {m}.exp2(x)            :: ewf  | x: g * y * 0.6931471805599453
np.cbrt(x)         = np.cbrt(x)             :: ewf  | x: rt.strong_div(g, 3.0 * y * y)
degrees(x)         = {m}.degrees(x)         :: ewf  | x: g * 57.29577951308232
radians(x)         = {m}.radians(x)         :: ewf  | x: g * 0.017453292519943295
# sinc'(0) = 0: the guard keeps 0 / 0 out
np.sinc(x)         = np.sinc(x)             :: ewf  | x: g * (np.cos(np.pi * x) - y) / (x + (x == 0))
np.positive(x)     = np.positive(x)         :: same | x: g
np.logaddexp(a, b) = np.logaddexp(a, b)     :: ewf  | a: g * np.exp(a - y)      | b: g * np.exp(b - y)
np.logaddexp2(a, b) = np.logaddexp2(a, b)   :: ewf  | a: g * np.exp2(a - y)     | b: g * np.exp2(b - y)
np.float_power(a, b) = np.float_power(a, b) :: ewf  | a: rt.strong_mul(g, b * a ** (b - 1 + (b == 0))) | b: g * y * np.log(a + (a == 0))
np.fmod(a, b)      = np.fmod(a, b)          :: ew   | a: g                      | b: -g * ((a - y) / b)
math.fmod(a, b)    = np.fmod(a * 1.0, b * 1.0) :: float | a: g                 | b: -g * ((a - y) / b)
# copysign: d/da is +-1 by the sign bits of a and b (+-0 included); b only chooses a sign
copysign(a, b)     = {m}.copysign(a, b)     :: ewf  | a: g * {m}.copysign(1.0, a) * {m}.copysign(1.0, b)
# erf / erfc / ndtr / log_ndtr: the Gaussian's exponent read at x clamped to +-40, where
# exp(-x^2 / 2) is 0 already: the same values for every finite x, and at an infinite x (a cut
# point at np.inf) this partial's own derivative is 0, not 0 * inf (Hessians of
# ndtr(np.inf - eta)); log_ndtr's clamped above only (its lower tail is finite)
math.erf(x)        = math.erf(x)            :: float | x: g * 1.1283791670955126 * math.exp(-min(max(x, -40.0), 40.0) ** 2)
math.erfc(x)       = math.erfc(x)           :: float | x: -g * 1.1283791670955126 * math.exp(-min(max(x, -40.0), 40.0) ** 2)
math.lgamma(x)     = math.lgamma(x)         :: float | x: g * rt.digamma(x)
math.gamma(x)      = math.gamma(x)          :: float | x: g * y * rt.digamma(x)
# math.log(x, base), log(x) / log(base) as Python computes it (math.log(x) is its one_arg_form)
log_base(x, base)  = math.log(x) / math.log(base) :: float | x: g / (x * math.log(base)) | base: -g * y / (base * math.log(base))
scipy.special.erf(x) = rt.erf(x)            :: ewf  | x: g * 1.1283791670955126 * np.exp(-np.minimum(np.maximum(x, -40.0), 40.0) ** 2)
scipy.special.erfc(x) = rt.erfc(x)          :: ewf  | x: -g * 1.1283791670955126 * np.exp(-np.minimum(np.maximum(x, -40.0), 40.0) ** 2)
scipy.special.gammaln(x) = rt.gammaln(x)    :: ewf  | x: g * rt.digamma(x)
scipy.special.multigammaln(a, d) = rt.multigammaln(a, d) :: float | a: g * rt.multidigamma(a, d)
# expit through tanh: no overflow for large |x|
scipy.special.expit(x) = 0.5 + 0.5 * np.tanh(0.5 * x) :: ewf | x: g * y * (1.0 - y)
scipy.special.logit(x) = np.log(x / (1.0 - x)) :: ewf | x: g / (x * (1.0 - x))
# xlogy(0, b) = xlog1py(0, b) = 0 for every b, and its derivative in b there is 0
scipy.special.xlogy(a, b) = a * np.log(b * (a != 0) + (a == 0)) :: ewf | a: g * np.log(b) | b: g * a / (b * (a != 0) + (a == 0))
scipy.special.xlog1py(a, b) = a * np.log1p(b * (a != 0)) :: ewf | a: g * np.log1p(b) | b: g * a / (1.0 + b * (a != 0))
scipy.special.logsumexp(x) = rt.logsumexp(x) :: reduce | x: g * np.exp(x - y)
scipy.special.softmax(x) = np.exp(x - rt.logsumexp(x)) :: same | x: y * (g - np.sum(g * y))
scipy.special.softmax_axis(x; axis) = np.exp(x - rt.expand(rt.logsumexp_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]), axis)) :: same | x: y * (g - rt.expand(np.sum(g * y, axis=axis), axis))
scipy.special.log_softmax(x) = x - rt.logsumexp(x) :: same | x: g - np.exp(y) * np.sum(g)
scipy.special.log_softmax_axis(x; axis) = x - rt.expand(rt.logsumexp_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]), axis) :: same | x: g - np.exp(y) * rt.expand(np.sum(g, axis=axis), axis)
scipy.special.logsumexp_axis(x; axis) = rt.logsumexp_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: reduce | x: rt.expand(g, axis) * np.exp(x - rt.expand(y, axis))
np.ceil(x)         = np.ceil(x)             :: same
np.trunc(x)        = np.trunc(x)            :: same
np.fix(x)          = np.trunc(x)            :: same
np.rint(x)         = np.rint(x)             :: same
np.round(x; decimals) = np.round(x, decimals) :: same
np.heaviside(a, b) = (a > 0) * 1.0 + b * (a == 0) :: ewf
math.ceil(x)       = math.ceil(x)           :: int
math.trunc(x)      = math.trunc(x)          :: int
math.atan(x)       = math.atan(x)           :: ewf  | x: g / (1.0 + x * x)
np.arctan(x)       = np.arctan(x)           :: ewf  | x: g / (1.0 + x * x)
math.asin(x)       = math.asin(x)           :: float | x: g / math.sqrt(1.0 - x * x)
np.arcsin(x)       = np.arcsin(x)           :: ewf  | x: g / np.sqrt(1.0 - x * x)
math.acos(x)       = math.acos(x)           :: float | x: -g / math.sqrt(1.0 - x * x)
np.arccos(x)       = np.arccos(x)           :: ewf  | x: -g / np.sqrt(1.0 - x * x)
# 1.0 / x: np.reciprocal of an integer is an integer
np.reciprocal(x)   = 1.0 / x                :: ewf  | x: -g * y * y
math.atan2(a, b)   = math.atan2(a, b)       :: ewf  | a: g * b / (a * a + b * b) | b: -g * a / (a * a + b * b)
np.arctan2(a, b)   = np.arctan2(a, b)       :: ewf  | a: g * b / (a * a + b * b) | b: -g * a / (a * a + b * b)
hypot(a, b)        = {m}.hypot(a, b)        :: ewf  | a: g * a / y              | b: g * b / y
math.fabs(x)       = math.fabs(x)           :: ewf  | x: g * np.sign(x)
np.fabs(x)         = np.fabs(x)             :: ewf  | x: g * np.sign(x)
np.abs(x)          = np.abs(x)              :: same | x: g * np.sign(x)
# builtin abs through np.abs: Numba has no abs() of an array
abs(x)             = np.abs(x)              :: same | x: g * np.sign(x)
math.pow(a, b)     = math.pow(a, b)         :: ewf  | a: rt.strong_mul(g, b * a ** (b - 1 + (b == 0))) | b: g * y * np.log(a + (a == 0))
np.power(a, b)     = np.power(a, b)         :: ew   | a: rt.strong_mul(g, b * a ** (b - 1 + (b == 0))) | b: g * y * np.log(a + (a == 0))
np.square(x)       = np.square(x)           :: same | x: 2.0 * g * x
np.sign(x)         = np.sign(x)             :: same
np.floor(x)        = np.floor(x)            :: same
# math.isclose of two numbers (Numba has none): Python's test, spelled out
math.isclose(a, b; rel_tol, abs_tol) = abs(a - b) <= max(rel_tol * max(abs(a), abs(b)), abs_tol) :: cmp
math.floor(x)      = math.floor(x)          :: int
np.maximum(a, b)   = np.maximum(a, b)       :: ew   | a: rt.pick(a >= b, g * (1.0 - 0.5 * (a == b))) | b: rt.pick(a <= b, g * (1.0 - 0.5 * (a == b)))
np.minimum(a, b)   = np.minimum(a, b)       :: ew   | a: rt.pick(a <= b, g * (1.0 - 0.5 * (a == b))) | b: rt.pick(a >= b, g * (1.0 - 0.5 * (a == b)))
max2(a, b)         = max(a, b)              :: ew   | a: rt.pick(a >= b, g * (1.0 - 0.5 * (a == b))) | b: rt.pick(a <= b, g * (1.0 - 0.5 * (a == b)))
min2(a, b)         = min(a, b)              :: ew   | a: rt.pick(a <= b, g * (1.0 - 0.5 * (a == b))) | b: rt.pick(a >= b, g * (1.0 - 0.5 * (a == b)))
np.where(c, a, b)  = np.where(c, a, b)      :: where | a: np.where(c, g, 0.0)   | b: np.where(c, 0.0, g)
# a mask's cotangent, chosen (never 0 * inf): the adjoints of np.maximum, np.clip ...
pick(c, v)         = rt.pick(c, v)          :: ew   | v: rt.pick(c, g)
strong_mul(a, b)   = rt.strong_mul(a, b)    :: ew   | a: rt.strong_mul(g, b)     | b: rt.strong_mul(g, a)
strong_div(a, b)   = rt.strong_div(a, b)    :: ewf  | a: rt.strong_div(g, b)     | b: -rt.strong_div(g * y, b)
# of three numbers (Numba's np.where makes a 0-d array of them)
where.0.0.0(c, a, b) = rt.select(c, a, b)   :: where | a: rt.select(c, g, 0.0)  | b: rt.select(c, 0.0, g)
# clip as maximum then minimum (NumPy's definition): Numba has no np.clip of scalars
# (bounds crossed, lo > hi: NumPy gives hi, whatever x; the cotangent goes to hi)
np.clip(x, lo, hi) = np.minimum(np.maximum(x, lo), hi) :: clip | x: rt.pick((x >= lo) & (x <= hi), g) | lo: rt.pick((x < lo) & (lo <= hi), g) | hi: rt.pick(np.maximum(x, lo) > hi, g)
sum(x)             = np.sum(x)              :: reduce | x: g
# a whole reduction of a number is the number (np.sum(2.0), np.max(t)); a mean of one, a float
scalar_same(x)     = x                      :: same   | x: g
scalar_float(x)    = x * 1.0                :: ewf    | x: g
# (Numba's np.linalg.norm of a view with a negative stride, x[::-1], is wrong: 0.78 for 1.48)
# at x = 0 (a cone) the slope 0, as abs's: `y + (y == 0.0)` divides by 1 there, not 0 (the
# pairwise distances of n-body code, whose zero diagonal is overwritten, had a nan gradient)
norm(x; ord)       = np.linalg.norm(np.ascontiguousarray(x)) :: norm | x: g * x / (y + (y == 0.0))
norm_axis(x; axis, ord) = np.sqrt(np.sum(x * x, axis=axis)) :: norm | x: x * rt.expand(g / (y + (y == 0.0)), axis)
# np.linalg.norm(x, ord) of vectors (whole, or along axis=), as `forms.norm_at` picks: the
# p-norm (sign(0) = 0: ord=1 has slope 0 at 0, as abs; at x = 0 every ord > 1 has slope 0,
# as the 2-norm: `y + (y == 0.0)`, not 0 / 0), and ord=inf / -inf, the largest / smallest
# |x_i| (ties split the cotangent evenly)
norm_p(x; ord)     = np.sum(np.abs(x) ** ord) ** (1.0 / ord) :: norm | x: g * np.sign(x) * (np.abs(x) / (y + (y == 0.0))) ** (ord - 1)
norm_p_axis(x; axis, ord) = np.sum(np.abs(x) ** ord, axis=axis) ** (1.0 / ord) :: norm | x: rt.expand(g, axis) * np.sign(x) * (np.abs(x) / rt.expand(y + (y == 0.0), axis)) ** (ord - 1)
# ord=1 on its own (the p-norm's (|x| / y) ** (ord - 1) is nan ** 0 at x = 0: its derivative,
# in a Hessian, was nan * 0)
norm_one(x)        = np.sum(np.abs(x))      :: norm | x: g * np.sign(x)
norm_one_axis(x; axis) = np.sum(np.abs(x), axis=axis) :: norm | x: rt.expand(g, axis) * np.sign(x)
norm_max(x)        = np.max(np.abs(x))      :: norm | x: g * np.sign(x) * (np.abs(x) == y) / np.sum(np.abs(x) == y)
norm_min(x)        = np.min(np.abs(x))      :: norm | x: g * np.sign(x) * (np.abs(x) == y) / np.sum(np.abs(x) == y)
norm_max_axis(x; axis) = rt.max_axis(np.abs(x), axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: norm | x: rt.expand(g / np.sum(np.abs(x) == rt.expand(y, axis), axis=axis), axis) * np.sign(x) * (np.abs(x) == rt.expand(y, axis))
norm_min_axis(x; axis) = rt.min_axis(np.abs(x), axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: norm | x: rt.expand(g / np.sum(np.abs(x) == rt.expand(y, axis), axis=axis), axis) * np.sign(x) * (np.abs(x) == rt.expand(y, axis))
# np.linalg.norm(M, ord) of a matrix, as `forms.norm_at` picks: ord=2 / -2 the largest /
# smallest singular value and 'nuc' their sum (each derivative U diag(w) Vh, w the weights of
# the singular values: ties split evenly), ord=1 / -1 the largest / smallest column sum of
# |M| and ord=inf / -inf of the row sums (ties split evenly, sign(0) = 0, as the vector ords)
norm_sv_max(x)     = rt.svd_s(x)[0]         :: norm | x: g * rt.svd_mix(x, rt.svd_ties(x, 0))
norm_sv_min(x)     = rt.svd_s(x)[-1]        :: norm | x: g * rt.svd_mix(x, rt.svd_ties(x, -1))
norm_nuc(x)        = np.sum(rt.svd_s(x))    :: norm | x: g * rt.svd_mix(x, np.ones(min(x.shape[0], x.shape[1])))
# those derivatives read again (second derivatives): U diag(w) Vh is self-adjoint in x (the
# Hessian of sum_k w_k s_k); the weights of the extreme singular values are piecewise constant
# in x (no adjoint: never active)
svd_mix(x, w)      = rt.svd_mix(x, w)       :: like | x: rt.svd_mix_tangent(x, w, g) | w: rt.svd_mix_w_adjoint(x, g)
svd_ties(x; k)     = rt.svd_ties(x, k)      :: eigenvalues
# read again (third derivatives): H(x; w) d, the Hessian of sum_k w_k s_k along d, is
# self-adjoint in d; its derivative in x along e is D3[d, e, .], symmetric in d and e (so also
# its adjoint in x); linear in w
svd_mix_tangent(x, w, d) = rt.svd_mix_tangent(x, w, d) :: like | x: rt.svd_mix_tangent_dot(x, w, d, g) | w: rt.svd_mix_tangent_w_adjoint(x, d, g) | d: rt.svd_mix_tangent(x, w, g)
norm_col_max(x)    = np.max(np.sum(np.abs(x), axis=0)) :: norm | x: g * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=0) == y) / np.sum(np.sum(np.abs(x), axis=0) == y), 0)
norm_col_min(x)    = np.min(np.sum(np.abs(x), axis=0)) :: norm | x: g * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=0) == y) / np.sum(np.sum(np.abs(x), axis=0) == y), 0)
norm_row_max(x)    = np.max(np.sum(np.abs(x), axis=1)) :: norm | x: g * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=1) == y) / np.sum(np.sum(np.abs(x), axis=1) == y), 1)
norm_row_min(x)    = np.min(np.sum(np.abs(x), axis=1)) :: norm | x: g * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=1) == y) / np.sum(np.sum(np.abs(x), axis=1) == y), 1)
var(x; ddof)       = np.sum((x - np.mean(x)) ** 2) / (x.size - ddof) :: reduce | x: g * 2.0 * (x - np.mean(x)) / (x.size - ddof)
var_axis(x; axis, ddof) = np.sum((x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) ** 2, axis=axis) / (x.shape[axis] - ddof) :: reduce | x: rt.expand(g, axis) * 2.0 * (x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) / (x.shape[axis] - ddof)
std(x; ddof)       = np.sqrt(np.sum((x - np.mean(x)) ** 2) / (x.size - ddof)) :: reduce | x: g * (x - np.mean(x)) / ((x.size - ddof) * y)
std_axis(x; axis, ddof) = np.sqrt(np.sum((x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) ** 2, axis=axis) / (x.shape[axis] - ddof)) :: reduce | x: rt.expand(g / y, axis) * (x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) / (x.shape[axis] - ddof)
sum_axis(x; axis)  = rt.sum_axis(x, axis)    :: reduce | x: rt.expand(g, axis)
mean(x)            = np.mean(x)             :: reduce | x: g / x.size
math.fsum(x)       = rt.fsum(x)             :: reduce | x: g
mean_axis(x; axis) = rt.mean_axis(x, axis)  :: reduce | x: rt.expand(g, axis) / x.shape[axis]
max(x)             = np.max(x)              :: reduce | x: g * (x == y) / np.sum(x == y)
max_axis(x; axis)  = rt.max_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:])   :: reduce | x: rt.extreme_adjoint(g, x, y, axis)
min(x)             = np.min(x)              :: reduce | x: g * (x == y) / np.sum(x == y)
min_axis(x; axis)  = rt.min_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:])   :: reduce | x: rt.extreme_adjoint(g, x, y, axis)
reshape(x, shape)  = np.ascontiguousarray(x).reshape(shape) :: reshape | x: rt.reshape_like(g, x)
transpose(x)       = x.T                    :: same | x: g.T
copy_array(x)      = x.copy()               :: same | x: g
zeros(shape; dtype)      = np.zeros(shape, dtype)      :: new
ones(shape; dtype)       = np.ones(shape, dtype)       :: new
empty(shape; dtype)      = np.empty(shape, dtype)      :: new
zeros_like(x)      = np.zeros_like(x)       :: like
ones_like(x)       = np.ones_like(x)        :: like
empty_like(x)      = np.empty_like(x)       :: like
full(shape, fill_value) = np.full(shape, fill_value) :: full | fill_value: np.sum(g)
full_like(a, fill_value) = np.full_like(a, fill_value) :: full_like | fill_value: np.sum(g)
eye(n)             = np.eye(n)              :: eye
identity(n)        = np.identity(n)         :: eye
arange1(stop)      = np.arange(stop)        :: arange
arange2(start, stop) = np.arange(start, stop) :: arange | start: np.sum(g)
arange3(start, stop, step) = np.arange(start, stop, step) :: arange | start: np.sum(g) | step: np.sum(g * np.arange(g.shape[0]))
linspace(start, stop, num) = np.linspace(start, stop, num) :: linspace | start: np.sum(g * (1.0 - rt.lin_t(g.shape[0]))) | stop: np.sum(g * rt.lin_t(g.shape[0]))
# axes: expand_dims (x[:, None], keepdims=True), squeeze(axis=), ravel, permutations
expand_dims(x; axis) = np.expand_dims(x, axis) :: up | x: rt.reshape_like(g, x)
expand_dims.0(x; axis) = np.full(1, x)      :: up | x: np.sum(g)
squeeze(x; axis)   = np.ascontiguousarray(x).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: down | x: rt.reshape_like(g, x)
# a reduction's axes mixing counts from the front and from the end (`axis=(0, -1)`): the
# operand itself, its type rule checks at the operand's rank that the axes are in range and
# distinct (`forms.reduction_steps` then moves them to the front)
check_axes(x; axes) = x                     :: check_axes | x: g
# np.var / np.std over a tuple of axes (`forms.variance_steps`): the summed squared deviations
# s divided by the count of x's entries along the axes less ddof
count_div(s, x; axes, ddof) = s / (rt.axes_count(x, axes) - ddof) :: count_div | s: g / (rt.axes_count(x, axes) - ddof)
keep_all(s, x)     = np.full(1, s)          :: keep_all
keep_all.0.1(s, x) = np.full(1, s)          :: keep_all | s: np.sum(g)
keep_all.0.2(s, x) = np.full((1, 1), s)     :: keep_all | s: np.sum(g)
keep_all.0.3(s, x) = np.full((1, 1, 1), s)  :: keep_all | s: np.sum(g)
keep_all.0.4(s, x) = np.full((1, 1, 1, 1), s) :: keep_all | s: np.sum(g)
# the parts of np.stack / np.array([...]) / vstack / hstack / column_stack (then a concat)
stack_part(x; axis) = np.expand_dims(x, axis) :: up | x: rt.reshape_like(g, x)
stack_part.0(x; axis) = np.full(1, x)       :: up | x: np.sum(g)
atleast_1d(x)      = np.atleast_1d(x)       :: at_least_1 | x: rt.reshape_like(g, x)
atleast_1d.0(x)    = np.full(1, x)          :: at_least_1 | x: np.sum(g)
atleast_2d(x)      = np.atleast_2d(x)       :: at_least_2 | x: rt.reshape_like(g, x)
as_column(x)       = np.atleast_2d(x)       :: at_least_2
as_column.1(x)     = np.expand_dims(x, 1)   :: at_least_2 | x: rt.reshape_like(g, x)
as_column.2(x)     = x.copy()               :: at_least_2 | x: g
ravel(x)           = np.ravel(x)            :: flat | x: rt.reshape_like(g, x)
flatten(x)         = x.flatten()            :: flat | x: rt.reshape_like(g, x)
transpose_axes(x; axes, inverse) = np.transpose(x, axes) :: permute | x: np.transpose(g, inverse)
swapaxes(x; axis1, axis2) = np.swapaxes(x, axis1, axis2) :: same | x: np.swapaxes(g, axis1, axis2)
flip(x; axis)      = np.flip(x)             :: flip
flip_all(x)        = np.flip(x)             :: same | x: np.flip(g)
flip_axis(x; axis) = rt.flip_axis(x, axis)  :: flip | x: rt.flip_axis(g, axis)
# scans and products (no division: a zero entry gets the product of the others)
prod(x)            = np.prod(x)             :: reduce | x: g * rt.prod_others(x)
prod_axis(x; axis) = rt.prod_axis(x, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: reduce | x: rt.expand(g, axis) * rt.prod_others_axis(x, axis)
cumsum(x)          = np.cumsum(x)           :: flat | x: rt.reshape_like(rt.rcumsum(g), x)
cumsum_axis(x; axis) = rt.cumsum_axis(x, axis) :: same | x: rt.rcumsum_axis(g, axis)
cumprod(x)         = np.cumprod(x)          :: flat | x: rt.reshape_like(rt.cumprod_adjoint(np.ravel(x), g), x)
cumprod_axis(x; axis) = rt.cumprod_axis(x, axis) :: same | x: rt.cumprod_lanes(x, g, x, axis, 1)
# what prod's and cumprod's rules compute, primitives of their own: the jvp read again
# (second derivatives) calls them, and differentiates through them as through np.prod
prod_others(x)     = rt.prod_others(x)      :: same | x: rt.prod_others_tangent(x, g)
prod_others_axis(x; axis) = rt.prod_others_axis(x, axis) :: scan | x: rt.prod_others_axis_tangent(x, g, axis)
cumprod_tangent(x, dx) = rt.cumprod_tangent(x, dx) :: same | x: rt.cumprod_tangent_adjoint(x, dx, g) | dx: rt.cumprod_adjoint(x, g)
cumprod_tangent_axis(x, dx; axis) = rt.cumprod_tangent_axis(x, dx, axis) :: same | x: rt.cumprod_lanes(x, dx, g, axis, 3) | dx: rt.cumprod_lanes(x, g, x, axis, 1)
# the tangents of the running extremes and of sorts, read again: linear in the tangent dx,
# piecewise constant in x (the positions: no line for x, its derivative is zero where defined)
cummax_tangent(x, dx; axis) = rt.cummax_tangent(x, dx, axis) :: scan | dx: rt.cummax_adjoint(x, g, axis)
sort_tangent(x, dx; axis) = rt.sort_tangent(x, dx, axis) :: scan | dx: rt.sort_adjoint(x, g, axis)
# the weights of a quantile's two entries (piecewise constant in x) and linspace's weights on
# its stop: no adjoints, never active
quantile_weights_all(x, q) = rt.quantile_weights_all(x, q) :: like
quantile_weights(x, q; axis) = rt.quantile_weights(x, q, axis) :: like
lin_t(n)           = rt.lin_t(n)            :: linspace
diff(x)            = np.diff(np.ascontiguousarray(x)) :: same
diff.1(x)          = np.diff(np.ascontiguousarray(x)) :: same | x: rt.diff_adjoint1(g)
diff.2(x)          = np.diff(np.ascontiguousarray(x)) :: same | x: rt.diff_adjoint2(g)
# matrices
diag(x, k)         = np.diag(x, k)          :: diag
diag.1.0(x, k)     = np.diag(x, k)          :: diag | x: np.diag(g, k)
diag.2.0(x, k)     = np.diag(x, k)          :: diag | x: rt.diag_embed(g, x, k)
# np.trace of a matrix; of a rank-3+ array (`forms.trace_at`) trace.n: the diagonals over the
# first two axes summed, the first min(n0, n1) of them as NumPy takes (not the einsum
# 'ii...->...', which needs n0 == n1)
trace(x)           = np.trace(x)            :: trace | x: g * np.eye(x.shape[0], x.shape[1])
trace.n(x)         = rt.trace3(rt.as3(x, 1)).reshape(x.shape[2:]) :: trace | x: rt.trace_adjoint3(np.ascontiguousarray(g).reshape(-1), x.shape[0], x.shape[1]).reshape(x.shape)
triu(m, k)         = np.triu(m, k)          :: matrix | m: np.triu(g, k)
tril(m, k)         = np.tril(m, k)          :: matrix | m: np.tril(g, k)
det(x)             = np.linalg.det(x)       :: mscalar | x: g * y * np.linalg.inv(x).T
inv(x)             = np.linalg.inv(x)       :: matrix | x: -(y.T @ g @ y.T)
solve(a, b)        = np.linalg.solve(a, b)  :: solve
solve.2.1(a, b)    = np.linalg.solve(a, b)  :: solve | a: -np.outer(np.linalg.solve(a.T, g), y) | b: np.linalg.solve(a.T, g)
solve.2.2(a, b)    = np.linalg.solve(a, b)  :: solve | a: -(np.linalg.solve(a.T, g) @ y.T) | b: np.linalg.solve(a.T, g)
solve.3.3(a, b)    = rt.solve_stack(a, b)   :: solve | a: -rt.bmm(rt.solve_stack(np.swapaxes(a, 1, 2), g), np.swapaxes(y, 1, 2)) | b: rt.solve_stack(np.swapaxes(a, 1, 2), g)
det.3(x)           = rt.det_stack(x)        :: mscalar | x: (g * y)[:, None, None] * np.swapaxes(rt.inv_stack(x), 1, 2)
# the trace of each matrix of a stack: det.3's tangent (its rules in primitives, so a Hessian
# reads that tangent again)
trace_stack.3(x)   = rt.trace_stack(x)      :: mscalar | x: g[:, None, None] * np.eye(x.shape[1], x.shape[2])
inv.3(x)           = rt.inv_stack(x)        :: matrix | x: -rt.bmm(rt.bmm(np.swapaxes(y, 1, 2), g), np.swapaxes(y, 1, 2))
slogdet.sign(x)    = np.linalg.slogdet(x)[0] :: mscalar
slogdet.logabs(x)  = np.linalg.slogdet(x)[1] :: mscalar | x: g * np.linalg.inv(x).T
cholesky(x)        = np.linalg.cholesky(x)  :: matrix | x: rt.cholesky_adjoint(y, g)
# the checks of unpacking: `a, b = x` needs len(x) == 2, np.split(x, k) equal parts,
# zip(x, t) of a tuple of k items len(x) >= k
check_len(n, k)    = rt.check_len(n, k)     :: int
check_zip(n, k)    = rt.check_zip(n, k)     :: int
check_slice_end(n, stop) = rt.check_slice_end(n, stop) :: int
check_length(n, k) = rt.check_length(n, k)   :: int
check_broadcast(n, k) = rt.check_broadcast(n, k) :: int
check_split(n, k)  = rt.check_split(n, k)   :: int
check_sections(n, k) = rt.check_sections(n, k) :: int
# an assert statement's failure (`capture`: `assert c` is `if not c: assert_failed()`)
assert_failed(line) = rt.assert_failed(line) :: int
# a raise statement (`capture`: `raise ValueError(...)` is `raise_error(kind, line)`)
raise_error(kind, line) = rt.raise_error(kind, line) :: int
# a read of a local no assignment of which has run (`unbound`): UnboundLocalError
unbound_local(line) = rt.unbound_local(line) :: int
cross(a, b)        = np.cross(a, b)         :: cross | a: np.cross(b, g) | b: np.cross(g, a)
# issue 12, NumPy as people write it: the rules at each rank (a family's `at_ranks` in `forms`
# picks one from the call's constants); the adjoints are the forward's transposes
pad(x; pad_width, mode, constant_values) = rt.pad1(x, pad_width, constant_values) :: pad
pad.1(x; pad_width, constant_values) = rt.pad1(x, pad_width, constant_values) :: pad | x: rt.unpad1(g, pad_width)
pad.2(x; pad_width, constant_values) = rt.pad2(x, pad_width, constant_values) :: pad | x: rt.unpad2(g, pad_width)
pad.3(x; pad_width, constant_values) = rt.pad3(x, pad_width, constant_values) :: pad | x: rt.unpad3(g, pad_width)
# np.pad's index modes (`mode` 1 edge, 2 wrap, 3 reflect, 4 symmetric: `rt.pad_index`): a gather
padix.1(x; pad_width, mode) = rt.padix1(x, pad_width, mode) :: pad | x: rt.unpadix1(g, pad_width, mode)
padix.2(x; pad_width, mode) = rt.padix2(x, pad_width, mode) :: pad | x: rt.unpadix2(g, pad_width, mode)
padix.3(x; pad_width, mode) = rt.padix3(x, pad_width, mode) :: pad | x: rt.unpadix3(g, pad_width, mode)
np.convolve(a, v; mode) = rt.convolve(a, v, mode) :: convolve | a: rt.conv_adjoint(g, v, a.shape[0], mode) | v: rt.conv_adjoint(g, a, v.shape[0], mode)
np.vander(x, N; increasing) = rt.vander(x, N, increasing) :: vander | x: rt.vander_adjoint(x, g, increasing, 1)
# np.vander's derivatives of every order (its tangent and adjoint read again): two families
vander_tangent(x, dx, cols; increasing, order) = rt.vander_tangent(x, dx, cols, increasing, order) :: float_matrix | x: dx * rt.vander_adjoint(x, g, increasing, order + 1) | dx: rt.vander_adjoint(x, g, increasing, order)
vander_adjoint(x, w; increasing, order) = rt.vander_adjoint(x, w, increasing, order) :: like | x: g * rt.vander_adjoint(x, w, increasing, order + 1) | w: rt.vander_tangent(x, g, w.shape[1], increasing, order)
repeat(x; repeats, axis) = rt.repeat1(x, repeats) :: repeat
repeat.1(x; repeats) = rt.repeat1(x, repeats) :: repeat | x: rt.repeat_adjoint1(g, repeats)
repeat.2(x; repeats, axis) = rt.repeat2(x, repeats, axis) :: repeat | x: rt.repeat_adjoint2(g, repeats, axis)
# of a rank-3+ array along an axis: as (outer, n, inner), then the shape with that axis k times
repeat.n(x; repeats, axis) = rt.repeat3(rt.as3(x, axis), repeats).reshape(x.shape[:axis] + (x.shape[axis] * repeats,) + x.shape[axis + 1:]) :: repeat | x: rt.repeat_adjoint3(rt.as3(g, axis), repeats).reshape(x.shape)
tile(x; reps)      = rt.tile1(x, reps)      :: tile
tile.1(x; reps)    = rt.tile1(x, reps)      :: tile | x: rt.untile1(g, reps)
tile.1.2(x; reps)  = rt.tile2(np.expand_dims(x, 0), reps) :: tile | x: rt.untile2(g, reps)[0]
tile.2(x; reps)    = rt.tile2(x, reps)      :: tile | x: rt.untile2(g, reps)
# np.tile(x, n), np.tile(x, (n, m)) with counts known only when it runs (X.shape[0], an
# argument): the counts are integer operands; linear in x
tile_n(x, n)       = rt.tile1(x, (n,))      :: tile_n
tile_n.1(x, n)     = rt.tile1(x, (n,))      :: tile_n | x: rt.untile1(g, (n,))
tile_n.2(x, n)     = rt.tile2(x, (1, n))    :: tile_n | x: rt.untile2(g, (1, n))
tile_nm(x, n, m)   = rt.tile2(x, (n, m))    :: tile_n
tile_nm.1(x, n, m) = rt.tile2(np.expand_dims(x, 0), (n, m)) :: tile_n | x: rt.untile2(g, (n, m))[0]
tile_nm.2(x, n, m) = rt.tile2(x, (n, m))    :: tile_n | x: rt.untile2(g, (n, m))
roll(x, shift; axis) = rt.roll_flat(x, shift) :: roll
roll_flat(x, shift) = rt.roll_flat(x, shift) :: roll | x: rt.roll_flat(g, -shift)
roll_axis(x, shift; axis) = rt.roll_axis(x, shift, axis) :: roll | x: rt.roll_axis(g, -shift, axis)
kron(a, b)         = np.kron(a, b)          :: kron
kron.1.1(a, b)     = np.kron(np.ascontiguousarray(a), np.ascontiguousarray(b))          :: kron | a: rt.kron_adjoint1(g, b, True) | b: rt.kron_adjoint1(g, a, False)
kron.2.2(a, b)     = np.kron(np.ascontiguousarray(a), np.ascontiguousarray(b))          :: kron | a: rt.kron_adjoint2(g, b, True) | b: rt.kron_adjoint2(g, a, False)
# np.tril_indices(n, k) / np.triu_indices(n, k): the rows and columns of a triangle (integers)
tril_indices.rows(n, k) = np.tril_indices(n, k)[0] :: indices
tril_indices.cols(n, k) = np.tril_indices(n, k)[1] :: indices
triu_indices.rows(n, k) = np.triu_indices(n, k)[0] :: indices
triu_indices.cols(n, k) = np.triu_indices(n, k)[1] :: indices
# issue 12 held-out: the array methods people write (`x.astype(float)`, `x.item()`) and the
# boolean reductions (`mask.any(axis=1)`), never differentiated
item(x)            = x.item()               :: item | x: g + 0.0 * x
all(x)             = np.all(x)              :: truth_reduce
all_axis(x; axis)  = np.sum(x != 0, axis=axis) == x.shape[axis] :: truth_reduce
any(x)             = np.any(x)              :: truth_reduce
any_axis(x; axis)  = np.sum(x != 0, axis=axis) > 0 :: truth_reduce
# np.lib.stride_tricks.sliding_window_view(x, window_shape, axis=): a view of every window; its
# adjoint adds each window's cotangent back where the window lies (axis: a tuple, `forms`)
sliding_window_view(x, shape; axis) = np.lib.stride_tricks.sliding_window_view(x, shape, axis=axis) :: windows | x: rt.window_sum(g, x, axis)
# np.diag_indices(n): the rows and columns of a matrix's diagonal
diag_indices.rows(n; ndim) = np.arange(n)  :: indices
diag_indices.cols(n; ndim) = np.arange(n)  :: indices
# np.bincount(x, weights=w, minlength=n): differentiable in the weights (the counts alone are a
# library call without a rule: `opaque`)
bincount_weights(x, weights, minlength) = np.bincount(x, weights, minlength) :: bincount | weights: g[x]
# np.add.at(a, idx, v) / np.subtract.at (v negated): a with v added at idx, a repeated index
# adding each time; one index array, or the rows and columns of a matrix
add_at(a, idx, v)  = rt.add_at(a, idx, v)   :: ufunc_at | a: g | v: rt.unbroadcast(g[idx], v)
add_at2(a, rows, cols, v) = rt.add_at2(a, rows, cols, v) :: ufunc_at | a: g | v: rt.unbroadcast(rt.take2(g, rows, cols), v)
# np.meshgrid's two parts; indexing: 0 for "xy", 1 for "ij"
meshgrid.x(x, y; indexing) = rt.mesh(x, y.shape[0], indexing == 0) :: meshgrid | x: np.sum(g, axis=indexing)
meshgrid.y(x, y; indexing) = rt.mesh(y, x.shape[0], indexing == 1) :: meshgrid | y: np.sum(g, axis=1 - indexing)
# what meshgrid's tangents compute, a primitive of its own: the jvp read again calls it
mesh(v, n; as_rows) = rt.mesh_copies(v, n, as_rows) :: mesh | v: rt.mesh_adjoint(g, as_rows)
np.diagonal(x, offset) = np.diag(x, offset) :: mdiagonal | x: rt.diag_embed(g, x, offset)
np.moveaxis(x; source, destination) = np.moveaxis(x, source, destination) :: moveaxis
np.average(x, weights; axis) = np.sum(x * weights) / np.sum(weights) :: average
average_whole(x, weights) = np.sum(x * weights) / np.sum(weights) :: average | x: g * weights / np.sum(weights) | weights: g * (x - y) / np.sum(weights)
average_axis(x, weights; axis) = np.sum(x * weights, axis=axis) / np.sum(weights, axis=axis) :: average | x: rt.expand(g / np.sum(weights, axis=axis), axis) * weights | weights: rt.expand(g / np.sum(weights, axis=axis), axis) * (x - rt.expand(y, axis))
# np.average(x, axis=k, weights=w) with w a vector along axis k (as NumPy takes it): the sum
# of w[i] times x's slice i along k (`lanes_dot`, bilinear; the tangents call it), over sum(w)
lanes_dot(x, w; axis) = rt.lanes_dot(x, w, axis) :: lanes | x: rt.lanes_outer(g, w, x, axis) | w: rt.lanes_contract(g, x, axis)
average_lanes(x, weights; axis) = rt.lanes_dot(x, weights, axis) / np.sum(weights) :: lanes | x: rt.lanes_outer(g / np.sum(weights), weights, x, axis) | weights: (rt.lanes_contract(g, x, axis) - np.sum(g * y)) / np.sum(weights)
# symmetric eigenproblems (distinct eigenvalues) and QR (square or tall, full rank); the
# adjoints are symmetric / recompute the decomposition
eigh.w(x)          = np.linalg.eigh(x)[0]   :: eigenvalues | x: rt.eigh_w_adjoint(x, g)
eigh.v(x)          = np.linalg.eigh(x)[1]   :: matrix | x: rt.eigh_v_adjoint(x, g)
np.linalg.eigvalsh(x) = np.linalg.eigvalsh(x) :: eigenvalues | x: rt.eigh_w_adjoint(x, g)
qr.q(x)            = np.linalg.qr(x)[0]     :: matrix | x: rt.qr_adjoint(x, g, np.zeros((x.shape[1], x.shape[1])))
qr.r(x)            = np.linalg.qr(x)[1]     :: matrix | x: rt.qr_adjoint(x, np.zeros((x.shape[0], x.shape[1])), g)
# np.maximum.accumulate / np.minimum.accumulate: the cotangent goes to the running extreme
cummax(x; axis)    = rt.cummax(x, axis)     :: scan | x: rt.cummax_adjoint(x, g, axis)
cummin(x; axis)    = -rt.cummax(-x, axis)   :: scan | x: rt.cummax_adjoint(-x, g, axis)
# np.logaddexp.accumulate: the running log-sum-exp (its adjoint and tangent by recursions
# whose factors exp(y_k - y_{k+1}) are at most 1)
logcumsumexp(x; axis) = rt.logcumsumexp(x, axis) :: scan | x: rt.logcumsumexp_adjoint(x, y, g, axis)
# its tangent T(x, r, dx)_k = sum_{j <= k} exp(x_j - r_k) dx_j and adjoint
# A(x, r, c)_j = sum_{k >= j} c_k exp(x_j - r_k) read again (second derivatives), r the result
# y as an operand of its own: each is linear in its last operand and the other's transpose
logcumsumexp_tangent(x, r, dx; axis) = rt.logcumsumexp_tangent(x, r, dx, axis) :: scan | x: dx * rt.logcumsumexp_adjoint(x, r, g, axis) | r: -g * y | dx: rt.logcumsumexp_adjoint(x, r, g, axis)
logcumsumexp_adjoint(x, r, c; axis) = rt.logcumsumexp_adjoint(x, r, c, axis) :: scan | x: g * y | r: -c * rt.logcumsumexp_tangent(x, r, g, axis) | c: rt.logcumsumexp_tangent(x, r, g, axis)
# scipy.stats.norm, by erfc in the tails (rt.ndtr, rt.log_ndtr); 0.3989... = 1/sqrt(2 pi)
scipy.stats.norm.cdf(x, loc, scale) = rt.ndtr((x - loc) / scale) :: ewf | x: g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 / scale | loc: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 / scale | scale: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 * (x - loc) / (scale * scale)
scipy.stats.norm.pdf(x, loc, scale) = np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 / scale :: ewf | x: -g * y * (x - loc) / (scale * scale) | loc: g * y * (x - loc) / (scale * scale) | scale: g * y * (((x - loc) / scale) ** 2 - 1.0) / scale
scipy.stats.norm.logpdf(x, loc, scale) = -0.5 * ((x - loc) / scale) ** 2 - np.log(scale) - 0.9189385332046727 :: ewf | x: -g * (x - loc) / (scale * scale) | loc: g * (x - loc) / (scale * scale) | scale: g * (((x - loc) / scale) ** 2 - 1.0) / scale
scipy.stats.norm.logcdf(x, loc, scale) = rt.log_ndtr((x - loc) / scale) :: ewf | x: g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) / scale | loc: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) / scale | scale: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) * (x - loc) / (scale * scale)
# issue 12, autograd's scipy.special: the kernels are in rt (Numba cannot call scipy); a kernel
# of two operands takes them broadcast to one shape (`a + 0.0 * b`)
scipy.special.digamma(x) = rt.digamma(x)    :: ewf  | x: g * rt.polygamma(1, x)
scipy.special.polygamma(n, x) = rt.polygamma(n, x) :: polygamma | x: g * rt.polygamma(n + 1, x)
scipy.special.gamma(x) = rt.gamma(x)        :: ewf  | x: g * y * rt.digamma(x)
scipy.special.rgamma(x) = rt.rgamma(x)      :: ewf  | x: g * rt.rgamma_deriv(x)
scipy.special.beta(a, b) = rt.beta(a + 0.0 * b, b + 0.0 * a) :: ewf | a: g * y * (rt.digamma(a) - rt.digamma(a + b)) | b: g * y * (rt.digamma(b) - rt.digamma(a + b))
scipy.special.betaln(a, b) = rt.betaln(a + 0.0 * b, b + 0.0 * a) :: ewf | a: g * (rt.digamma(a) - rt.digamma(a + b)) | b: g * (rt.digamma(b) - rt.digamma(a + b))
# 0.8862... = sqrt(pi) / 2: erfinv'(x) = sqrt(pi) / 2 exp(erfinv(x)^2)
scipy.special.erfinv(x) = rt.erfinv(x)      :: ewf  | x: g * 0.886226925452758 * np.exp(y * y)
scipy.special.erfcinv(x) = rt.erfcinv(x)    :: ewf  | x: -g * 0.886226925452758 * np.exp(y * y)
# modified Bessel functions: I0' = I1, I1' = I0 - I1 / x (1/2 at 0); the e^-|x| forms also
# carry -sign(x) times themselves
scipy.special.i0(x) = rt.i0(x)              :: ewf  | x: g * rt.i1(x)
np.i0(x) = rt.i0(x)                         :: ewf  | x: g * rt.i1(x)
scipy.special.i1(x) = rt.i1(x)              :: ewf  | x: g * (rt.i0(x) - y / (x + (x == 0)) - 0.5 * (x == 0))
scipy.special.i0e(x) = rt.i0e(x)            :: ewf  | x: g * (rt.i1e(x) - np.sign(x) * y)
scipy.special.i1e(x) = rt.i1e(x)            :: ewf  | x: g * (rt.i0e(x) - y / (x + (x == 0)) - 0.5 * (x == 0) - np.sign(x) * y)
scipy.special.ndtr(x) = rt.ndtr(x)          :: ewf  | x: g * 0.3989422804014327 * np.exp(-0.5 * np.minimum(np.maximum(x, -40.0), 40.0) ** 2)
scipy.special.log_ndtr(x) = rt.log_ndtr(x)  :: ewf  | x: g * np.exp(-0.5 * np.minimum(x, 40.0) ** 2 - 0.9189385332046727 - y)
scipy.special.entr(x) = rt.entr(x)          :: ewf  | x: -g * (1.0 + np.log(x))
scipy.special.rel_entr(a, b) = rt.rel_entr(a + 0.0 * b, b + 0.0 * a) :: ewf | a: g * (np.log(a / b) + 1.0) | b: -g * a / b
scipy.special.kl_div(a, b) = rt.kl_div(a + 0.0 * b, b + 0.0 * a) :: ewf | a: g * np.log(a / b) | b: g * (1.0 - a / b)
scipy.special.softplus(x) = np.logaddexp(0.0, x) :: ewf | x: g * (0.5 + 0.5 * np.tanh(0.5 * x))
# scipy.special.logsumexp(x, b=w) of a whole array, w shaped like x
scipy.special.logsumexp_b(x, b) = rt.logsumexp_b(x, b) :: weights | x: g * b * np.exp(x - y) | b: rt.unbroadcast(g * np.exp(x - y), b)
# issue 12, autograd's NumPy functions; flips, sorts and broadcasts return new arrays (no views)
np.fliplr(x)       = rt.fliplr(x)           :: matrix | x: rt.fliplr(g)
np.flipud(x)       = rt.flipud(x)           :: nonscalar | x: rt.flipud(g)
np.rot90(x; k, axes) = rt.rot90(x, k)       :: matrix | x: rt.rot90(g, -k)
np.rollaxis(x; axis, start) = np.moveaxis(x, axis, start) :: rollaxis
atleast_3d(x)      = np.atleast_3d(x)       :: at_least_3
atleast_3d.0(x)    = np.full((1, 1, 1), x)  :: at_least_3 | x: np.sum(g)
atleast_3d.1(x)    = x.copy().reshape((1, x.shape[0], 1)) :: at_least_3 | x: rt.reshape_like(g, x)
atleast_3d.2(x)    = x.copy().reshape((x.shape[0], x.shape[1], 1)) :: at_least_3 | x: rt.reshape_like(g, x)
atleast_3d.3(x)    = x.copy()               :: at_least_3 | x: g
np.broadcast_to(x, shape) = rt.broadcast_to(x, shape) :: broadcast | x: rt.unbroadcast(g, x)
# fmax/fmin: as np.maximum/np.minimum (ties split evenly), and a nan operand passes the other
np.fmax(a, b)      = np.fmax(a, b)          :: ew   | a: g * ((a > b) + 0.5 * (a == b) + (b != b) * (a == a)) | b: g * ((a < b) + 0.5 * (a == b) + (a != a) * (b == b))
np.fmin(a, b)      = np.fmin(a, b)          :: ew   | a: g * ((a < b) + 0.5 * (a == b) + (b != b) * (a == a)) | b: g * ((a > b) + 0.5 * (a == b) + (a != a) * (b == b))
np.nan_to_num(x)   = rt.nan_to_num(x)       :: ewf  | x: g * np.isfinite(x)
sort(x; axis)      = rt.sort_axis(x, axis)  :: sort | x: rt.sort_adjoint(x, g, axis)
# np.take_along_axis(a, idx, axis=k): lanes of a read at idx (the lengths along k may differ)
take_along_axis(a, idx; axis) = rt.take_along(a, idx, axis) :: like | a: rt.take_along_adjoint(a, idx, g, axis)
take_along_adjoint(a, idx, g; axis) = rt.take_along_adjoint(a, idx, g, axis) :: like | g: rt.take_along(g, idx, axis)
sort_flat(x)       = rt.sort_axis(np.ascontiguousarray(x).ravel(), 0) :: flat | x: rt.reshape_like(rt.sort_adjoint(np.ascontiguousarray(x).ravel(), g, 0), x)
# np.median / np.quantile / np.percentile (linear interpolation): weights on the two sorted
# entries the value lies between (`rt.quantile_weights`)
median(x)          = rt.quantile_all(x, 0.5)  :: reduce | x: g * rt.quantile_weights_all(x, 0.5)
median_axis(x; axis) = rt.quantile_axis(x, 0.5, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: reduce | x: rt.expand(g, axis) * rt.quantile_weights(x, 0.5, axis)
quantile(x; q)     = rt.quantile_all(x, q)    :: quantile | x: g * rt.quantile_weights_all(x, q)
quantile_axis(x; axis, q) = rt.quantile_axis(x, q, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: quantile | x: rt.expand(g, axis) * rt.quantile_weights(x, q, axis)
percentile(x; q)   = rt.quantile_all(x, q / 100.0) :: quantile | x: g * rt.quantile_weights_all(x, q / 100.0)
percentile_axis(x; axis, q) = rt.quantile_axis(x, q / 100.0, axis).reshape(x.shape[:axis] + x.shape[axis + 1:]) :: quantile | x: rt.expand(g, axis) * rt.quantile_weights(x, q / 100.0, axis)
# np.gradient (edge_order=1, one spacing h for every axis): of a vector, and along one axis of
# any rank (`gy, gx = np.gradient(A)` is one per axis, `normalize`); linear in x (its adjoint
# the transpose), y / h's derivative in h -y / h
np.gradient(x, h)  = rt.gradient_axis(x, h, 0) :: vector | x: rt.gradient_axis_adjoint(g, h, 0) | h: -np.sum(g * y) / h
gradient_axis(x, h; axis, count) = rt.gradient_axis(x, h, axis) :: gradient | x: rt.gradient_axis_adjoint(g, h, axis) | h: -np.sum(g * y) / h
# what np.gradient's tangents compute, a primitive of its own: the jvp read again calls it
gradient_lane(x, h; axis) = rt.gradient_lane(x, h, axis) :: gradient | x: rt.gradient_axis_adjoint(g, h, axis) | h: -np.sum(g * y) / h
np.linalg.pinv(x)  = np.linalg.pinv(np.ascontiguousarray(x)) :: matrix | x: rt.pinv_adjoint(x, y, g)
# pinv's tangent -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X (read again: second
# derivatives), a polynomial in A, X and dA: its adjoints are products (and so is every
# higher derivative)
pinv_tangent(a, x, d) = rt.pinv_tangent(a, x, d) :: like_second | a: -(d @ x @ x.T) @ g @ x.T - x.T @ g @ (x.T @ x @ d) | x: -g @ x.T @ d.T - d.T @ x.T @ g + (g - g @ x.T @ a.T) @ d @ x + d.T @ (g - g @ x.T @ a.T).T @ x - a.T @ d @ x @ x.T @ g - g @ x.T @ x @ d @ a.T + x @ (d @ (g - a.T @ x.T @ g) + (g - a.T @ x.T @ g).T @ d.T) | d: -x.T @ g @ x.T + (g - g @ x.T @ a.T).T @ x @ x.T + x.T @ x @ (g - a.T @ x.T @ g).T
# np.linalg.svd (reduced; a full U or Vh only where it is the reduced one): its parts, and the
# singular values alone (compute_uv=False, np.linalg.svdvals)
svd.u(x; full_matrices, compute_uv) = rt.svd_u(x, full_matrices) :: matrix | x: rt.svd_u_adjoint(x, g)
svd.s(x; full_matrices, compute_uv) = rt.svd_s(x) :: eigenvalues | x: rt.svd_s_adjoint(x, g)
svd.vh(x; full_matrices, compute_uv) = rt.svd_vh(x, full_matrices) :: matrix | x: rt.svd_vh_adjoint(x, g)
svd_values(x)      = rt.svd_s(x)            :: eigenvalues | x: rt.svd_s_adjoint(x, g)
# issue 12, the rest of autograd's scipy.special. The derivatives in an order (jv's v) or a
# shape parameter (gammainc's a, betainc's a and b) have no closed form: those operands are
# refused when they vary (`_REFUSED` below), never given a zero. Bessel functions: J' and Y'
# by (Z_(v-1) - Z_(v+1)) / 2, I' by (I_(v-1) + I_(v+1)) / 2
scipy.special.gammasgn(x) = rt.gammasgn(x)  :: ewf
scipy.special.gammainc(a, x) = rt.gammainc(a + 0.0 * x, x + 0.0 * a) :: ewf | x: g * rt.gammainc_dx(a + 0.0 * x, x + 0.0 * a)
scipy.special.gammaincc(a, x) = rt.gammaincc(a + 0.0 * x, x + 0.0 * a) :: ewf | x: -g * rt.gammainc_dx(a + 0.0 * x, x + 0.0 * a)
scipy.special.betainc(a, b, x) = rt.betainc(a + 0.0 * (b + x), b + 0.0 * (a + x), x + 0.0 * (a + b)) :: ewf | x: g * rt.betainc_dx(a + 0.0 * (b + x), b + 0.0 * (a + x), x + 0.0 * (a + b))
scipy.special.j0(x) = rt.j0(x)              :: ewf  | x: -g * rt.j1(x)
scipy.special.j1(x) = rt.j1(x)              :: ewf  | x: g * 0.5 * (rt.j0(x) - rt.jv(2.0 + 0.0 * x, x))
scipy.special.y0(x) = rt.y0(x)              :: ewf  | x: -g * rt.y1(x)
scipy.special.y1(x) = rt.y1(x)              :: ewf  | x: g * 0.5 * (rt.y0(x) - rt.yv(2.0 + 0.0 * x, x))
scipy.special.jv(v, x) = rt.jv(v + 0.0 * x, x + 0.0 * v) :: ewf | x: g * 0.5 * (rt.jv(v - 1.0 + 0.0 * x, x + 0.0 * v) - rt.jv(v + 1.0 + 0.0 * x, x + 0.0 * v))
scipy.special.yv(v, x) = rt.yv(v + 0.0 * x, x + 0.0 * v) :: ewf | x: g * 0.5 * (rt.yv(v - 1.0 + 0.0 * x, x + 0.0 * v) - rt.yv(v + 1.0 + 0.0 * x, x + 0.0 * v))
scipy.special.yn(n, x) = rt.yv(n + 0.0 * x, x + 0.0 * n) :: polygamma | x: g * 0.5 * (rt.yv(n - 1.0 + 0.0 * x, x + 0.0 * n) - rt.yv(n + 1.0 + 0.0 * x, x + 0.0 * n))
scipy.special.iv(v, x) = rt.iv(v + 0.0 * x, x + 0.0 * v) :: ewf | x: g * 0.5 * (rt.iv(v - 1.0 + 0.0 * x, x + 0.0 * v) + rt.iv(v + 1.0 + 0.0 * x, x + 0.0 * v))
scipy.special.ive(v, x) = rt.ive(v + 0.0 * x, x + 0.0 * v) :: ewf | x: g * (0.5 * (rt.ive(v - 1.0 + 0.0 * x, x + 0.0 * v) + rt.ive(v + 1.0 + 0.0 * x, x + 0.0 * v)) - np.sign(x) * y)
# scipy.stats.norm's survival functions (the CDF at -z)
scipy.stats.norm.sf(x, loc, scale) = rt.ndtr((loc - x) / scale) :: ewf | x: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 / scale | loc: g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 / scale | scale: g * np.exp(-0.5 * ((x - loc) / scale) ** 2) * 0.3989422804014327 * (x - loc) / (scale * scale)
scipy.stats.norm.logsf(x, loc, scale) = rt.log_ndtr((loc - x) / scale) :: ewf | x: -g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) / scale | loc: g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) / scale | scale: g * np.exp(-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046727 - y) * (x - loc) / (scale * scale)
# the inverse of the normal CDF (rt.ndtri: Wichura's AS 241); 2.5066... = sqrt(2 pi): ndtri'(p)
# = sqrt(2 pi) exp(ndtri(p)^2 / 2); norm.ppf is loc + scale ndtri(q), norm.isf loc - scale ndtri(q)
scipy.special.ndtri(x) = rt.ndtri(x)        :: ewf  | x: g * 2.5066282746310002 * np.exp(0.5 * y * y)
scipy.stats.norm.ppf(q, loc, scale) = loc + scale * rt.ndtri(q) :: ewf | q: g * scale * 2.5066282746310002 * np.exp(0.5 * ((y - loc) / scale) ** 2) | loc: g | scale: g * (y - loc) / scale
scipy.stats.norm.isf(q, loc, scale) = loc - scale * rt.ndtri(q) :: ewf | q: -g * scale * 2.5066282746310002 * np.exp(0.5 * ((y - loc) / scale) ** 2) | loc: g | scale: g * (y - loc) / scale
# scipy.linalg: a triangular solve reads one triangle of a (trans 1: solves with its
# transpose; unit_diagonal: ones on the diagonal), its adjoint lives on that triangle; a
# banded solve reads the band of scipy's storage; the Sylvester equation A X + X B = Q; the
# principal square root (adjoint: the Sylvester equation X^T Z + Z X^T = G)
scipy.linalg.solve_triangular(a, b; trans, lower, unit_diagonal, overwrite_b, check_finite) = rt.tri_solve(a, b, trans, lower, unit_diagonal) :: solve | a: rt.tri_solve_a_adjoint(a, y, g, trans, lower, unit_diagonal) | b: rt.tri_solve(a, g, 1 - trans, lower, unit_diagonal)
# solve_triangular's tangent in the matrix (read again: second derivatives): op(T') x, bilinear,
# and its adjoint in T'; each is the other's adjoint
tri_solve(a, b; trans, lower, unit) = rt.tri_solve(a, b, trans, lower, unit) :: solve | a: rt.tri_solve_a_adjoint(a, y, g, trans, lower, unit) | b: rt.tri_solve(a, g, 1 - trans, lower, unit)
tri_mul(m, x; trans, lower, unit) = rt.tri_mul(m, x, trans, lower, unit) :: like_second | m: rt.tri_outer(g, x, trans, lower, unit) | x: rt.tri_mul(m, g, 1 - trans, lower, unit)
tri_outer(c, x; trans, lower, unit) = rt.tri_outer(c, x, trans, lower, unit) :: float_matrix | c: rt.tri_mul(g, x, trans, lower, unit) | x: rt.tri_mul(g, c, 1 - trans, lower, unit)
scipy.linalg.solve_banded(ab, b; l_and_u, overwrite_ab, overwrite_b, check_finite) = rt.banded_solve(ab, b, l_and_u) :: solve | ab: rt.banded_ab_adjoint(ab, y, g, l_and_u) | b: np.linalg.solve(np.ascontiguousarray(rt.banded_full(ab, l_and_u).T), np.ascontiguousarray(g))
scipy.linalg.solve_sylvester(a, b, q) = rt.sylvester(a, b, q) :: sylvester | a: -(rt.sylvester_t(a, b, g) @ y.T) | b: -(y.T @ rt.sylvester_t(a, b, g)) | q: rt.sylvester_t(a, b, g)
scipy.linalg.sqrtm(a) = rt.sqrtm(a)         :: matrix | a: rt.sqrtm_adjoint(y, g)
# scipy.signal.convolve: mode 0 full, 1 same (centred on in1), 2 valid; direct sums
scipy.signal.convolve(in1, in2; mode, method) = rt.sconv(in1, in2, mode) :: signal_convolve | in1: rt.sconv_adjoint(g, in2, in1, mode, True) | in2: rt.sconv_adjoint(g, in1, in2, mode, False)
# np.partition: NumPy's own permutation (object mode); the cotangent goes back through it
np.partition(x; kth, axis, kind, order) = rt.partition(x, kth, axis) :: partition | x: rt.partition_adjoint(x, g, kth, axis)
np.fft.fftshift(x; axes) = rt.fftshift(x, False) :: same | x: rt.fftshift(g, True)
np.fft.ifftshift(x; axes) = rt.fftshift(x, True) :: same | x: rt.fftshift(g, False)
# x.astype(dtype): the cotangent passes through a float result (an integer or boolean one is
# never active)
astype(x; dtype)   = x.astype(dtype)        :: astype | x: g
# of a number (np.float64(t)): the dtype's constructor (a Python float has no .astype)
astype.0(x; dtype) = dtype(x)               :: astype | x: g
# np.hsplit / vsplit / dsplit: the split axis moved to the front and back (see forms)
split_front(x; which) = np.moveaxis(x, 0, 0) :: split_axis
split_back(x; which) = np.moveaxis(x, 0, 0) :: split_axis
# complex values as intermediates (the convention in docs/architecture.md: the cotangent of z
# is dL/dRe z - i dL/dIm z, as autograd and JAX): holomorphic rules are the real ones; these
# are the others. A real operand takes the real part of its contribution (`reverse`)
np.real(x)         = np.real(x)             :: real | x: g
np.imag(x)         = np.imag(x)             :: real | x: -1j * g
np.conj(x)         = np.conj(x)             :: same | x: np.conj(g)
np.angle(x)        = np.angle(x)            :: real | x: -1j * g * np.conj(x) / (np.real(x * np.conj(x)) + (x == 0))
# |z| of a complex z: the cotangent times conj(z) / |z| (0 at 0)
abs_complex(x)     = np.abs(x)              :: real | x: g * np.conj(x) / (y + (y == 0))
# np.real_if_close of a real value is the value (of a complex one: refused by its type rule)
np.real_if_close(x; tol) = x * 1.0          :: real_if_close | x: g
# the FFTs (NumPy's, in object mode: rt.fft3 on an (outer, n, inner) view); n -1: the
# operand's length; the DFT matrix is symmetric, so each adjoint is the transform itself (and
# ifft's its inverse), resized back to the operand; rfft's operand is real (its adjoint the real
# part of fft's); irfft reads entry 0 and (n even) n / 2 once, the others as conjugate pairs
np.fft.fft(x, n; axis, norm, out) = rt.fft3(rt.as3(x, axis), n, False, norm).reshape(x.shape[:axis] + (rt.fft_n(x.shape[axis], n),) + x.shape[axis + 1:]) :: fft | x: rt.resize3(rt.fft3(rt.as3(g, axis), -1, False, norm), x.shape[axis]).reshape(x.shape)
np.fft.ifft(x, n; axis, norm, out) = rt.fft3(rt.as3(x, axis), n, True, norm).reshape(x.shape[:axis] + (rt.fft_n(x.shape[axis], n),) + x.shape[axis + 1:]) :: fft | x: rt.resize3(rt.fft3(rt.as3(g, axis), -1, True, norm), x.shape[axis]).reshape(x.shape)
np.fft.rfft(x, n; axis, norm, out) = rt.rfft3(rt.as3(x, axis), n, norm).reshape(x.shape[:axis] + (rt.fft_n(x.shape[axis], n) // 2 + 1,) + x.shape[axis + 1:]) :: rfft | x: rt.resize3(rt.fft3(rt.resize3(rt.as3(g, axis), rt.fft_n(x.shape[axis], n)), -1, False, norm), x.shape[axis]).reshape(x.shape)
np.fft.irfft(x, n; axis, norm, out) = rt.irfft3(rt.as3(x, axis), n, norm).reshape(x.shape[:axis] + (rt.irfft_n(x.shape[axis], n),) + x.shape[axis + 1:]) :: irfft | x: rt.irfft3_adjoint(rt.as3(g, axis), x.shape[axis], norm).reshape(x.shape)
# the 2-D transforms of the last two axes (s=None), fftn & co of vectors and matrices
np.fft.fft2(x; s, axes, norm, out) = rt.fft_same(rt.fft_same(x, x.ndim - 2, False, norm), x.ndim - 1, False, norm) :: fft2 | x: rt.fft_same(rt.fft_same(g, x.ndim - 2, False, norm), x.ndim - 1, False, norm)
np.fft.ifft2(x; s, axes, norm, out) = rt.fft_same(rt.fft_same(x, x.ndim - 2, True, norm), x.ndim - 1, True, norm) :: fft2 | x: rt.fft_same(rt.fft_same(g, x.ndim - 2, True, norm), x.ndim - 1, True, norm)
np.fft.rfft2(x; s, axes, norm, out) = rt.fft_same(rt.rfft3(rt.as3(x, x.ndim - 1), -1, norm).reshape(x.shape[:-1] + (x.shape[-1] // 2 + 1,)), x.ndim - 2, False, norm) :: rfft2 | x: rt.fft_same(rt.fft_same(rt.resize3(rt.as3(g, x.ndim - 1), x.shape[-1]).reshape(x.shape), x.ndim - 2, False, norm), x.ndim - 1, False, norm)
np.fft.irfft2(x; s, axes, norm, out) = rt.irfft3(rt.as3(rt.fft_same(x, x.ndim - 2, True, norm), x.ndim - 1), -1, norm).reshape(x.shape[:-1] + (2 * (x.shape[-1] - 1),)) :: irfft2 | x: rt.fft_same(rt.irfft3_adjoint(rt.as3(g, x.ndim - 1), x.shape[-1], norm).reshape(x.shape), x.ndim - 2, True, norm)
np.fft.fftn(x; s, axes, norm) = rt.fft_same(x, 0, False, norm) :: fftn
np.fft.ifftn(x; s, axes, norm) = rt.fft_same(x, 0, True, norm) :: fftn
np.fft.rfftn(x; s, axes, norm) = rt.fft_same(x, 0, False, norm) :: rfftn
np.fft.irfftn(x; s, axes, norm) = rt.fft_same(x, 0, True, norm) :: irfftn
fft.fftn.1(x; norm) = rt.fft_same(x, 0, False, norm) :: fft | x: rt.fft_same(g, 0, False, norm)
fft.ifftn.1(x; norm) = rt.fft_same(x, 0, True, norm) :: fft | x: rt.fft_same(g, 0, True, norm)
fft.rfftn.1(x; norm) = rt.rfft3(rt.as3(x, 0), -1, norm).reshape((x.shape[0] // 2 + 1,)) :: rfft | x: rt.fft3(rt.as3(g, 0), x.shape[0], False, norm).reshape(x.shape)
fft.irfftn.1(x; norm) = rt.irfft3(rt.as3(x, 0), -1, norm).reshape((2 * (x.shape[0] - 1),)) :: irfft | x: rt.irfft3_adjoint(rt.as3(g, 0), x.shape[0], norm).reshape(x.shape)
# np.linalg.eig / eigvals: LAPACK's (in object mode), complex always; distinct eigenvalues;
# the eigenvectors in LAPACK's gauge (norm 1, largest entry real): see rt.eig_adjoint
eig.w(x)           = rt.eig_w(x)            :: eig_values | x: rt.eig_w_adjoint(x, g)
eig.v(x)           = rt.eig_v(x)            :: eig_vectors | x: rt.eig_v_adjoint(x, g)
np.linalg.eigvals(x) = rt.eig_w(x)          :: eig_values | x: rt.eig_w_adjoint(x, g)
"""

# issue 12, scipy.stats distributions as autograd has them: one line per log-density
# (`dist.method(params; statics) = forward :: kind | param: adjoint ...` as above, `z` standing
# for (x - loc) / scale); its density (`pdf`/`pmf`) is made from it: np.exp of the forward,
# each adjoint times y. Outside the support the log-density is -inf and the gradient 0.
STATS = r"""
t.logpdf(x, df, loc, scale) = rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - np.log(scale) - (0.5 * df + 0.5) * np.log1p(z * z / df) :: ewf | x: -g * (df + 1.0) * z / ((df + z * z) * scale) | loc: g * (df + 1.0) * z / ((df + z * z) * scale) | scale: g * ((df + 1.0) * z * z / (df + z * z) - 1.0) / scale | df: g * (0.5 * rt.digamma(0.5 * df + 0.5) - 0.5 * rt.digamma(0.5 * df) - 0.5 / df - 0.5 * np.log1p(z * z / df) + 0.5 * (df + 1.0) * z * z / (df * (df + z * z)))
gamma.logpdf(x, a, loc, scale) = rt.gamma_logz(z + 0.0 * a, a + 0.0 * z) - np.log(scale) :: ewf | x: g * ((a - 1.0) / (z + (z <= 0)) - 1.0) * (z > 0) / scale | loc: -g * ((a - 1.0) / (z + (z <= 0)) - 1.0) * (z > 0) / scale | scale: g * (z - a) * (z > 0) / scale | a: g * (np.log(z + (z <= 0)) - rt.digamma(a)) * (z > 0)
beta.logpdf(x, a, b, loc, scale) = rt.beta_logz(z + 0.0 * (a + b), a + 0.0 * (z + b), b + 0.0 * (z + a)) - np.log(scale) :: ewf | x: g * ((a - 1.0) / (z + (z <= 0)) - (b - 1.0) / (1.0 - z + (z >= 1))) * ((z > 0) & (z < 1)) / scale | loc: -g * ((a - 1.0) / (z + (z <= 0)) - (b - 1.0) / (1.0 - z + (z >= 1))) * ((z > 0) & (z < 1)) / scale | scale: -g * (1.0 + z * ((a - 1.0) / (z + (z <= 0)) - (b - 1.0) / (1.0 - z + (z >= 1)))) * ((z > 0) & (z < 1)) / scale | a: g * (np.log(z + (z <= 0)) - rt.digamma(a) + rt.digamma(a + b)) * ((z > 0) & (z < 1)) | b: g * (np.log1p(-z * (z < 1)) - rt.digamma(b) + rt.digamma(a + b)) * ((z > 0) & (z < 1))
expon.logpdf(x, loc, scale) = -z - np.log(scale) + rt.log_step(z) :: ewf | x: -g * (z >= 0) / scale | loc: g * (z >= 0) / scale | scale: g * (z - 1.0) * (z >= 0) / scale
laplace.logpdf(x, loc, scale) = -np.abs(z) - np.log(2.0 * scale) :: ewf | x: -g * np.sign(z) / scale | loc: g * np.sign(z) / scale | scale: g * (np.abs(z) - 1.0) / scale
logistic.logpdf(x, loc, scale) = -np.abs(z) - 2.0 * np.log1p(np.exp(-np.abs(z))) - np.log(scale) :: ewf | x: -g * np.tanh(0.5 * z) / scale | loc: g * np.tanh(0.5 * z) / scale | scale: g * (z * np.tanh(0.5 * z) - 1.0) / scale
cauchy.logpdf(x, loc, scale) = -np.log(np.pi * scale) - np.log1p(z * z) :: ewf | x: -g * 2.0 * z / ((1.0 + z * z) * scale) | loc: g * 2.0 * z / ((1.0 + z * z) * scale) | scale: g * (2.0 * z * z / (1.0 + z * z) - 1.0) / scale
poisson.logpmf(k, mu) = k * np.log(mu * (k != 0) + (k == 0)) - mu - rt.gammaln(k + 1.0) + rt.log_count(k) :: ewf | mu: g * (k / (mu + (k == 0)) - 1.0) * (rt.log_count(k) == 0.0)
# distribution functions (no density made from them)
expon.cdf(x, loc, scale) = -np.expm1(-np.maximum(z, 0.0)) :: ewf | x: g * np.exp(-np.maximum(z, 0.0)) * (z > 0) / scale | loc: -g * np.exp(-np.maximum(z, 0.0)) * (z > 0) / scale | scale: -g * np.exp(-np.maximum(z, 0.0)) * (z > 0) * z / scale
laplace.cdf(x, loc, scale) = 0.5 - 0.5 * np.sign(z) * np.expm1(-np.abs(z)) :: ewf | x: g * 0.5 * np.exp(-np.abs(z)) / scale | loc: -g * 0.5 * np.exp(-np.abs(z)) / scale | scale: -g * 0.5 * np.exp(-np.abs(z)) * z / scale
logistic.cdf(x, loc, scale) = 0.5 + 0.5 * np.tanh(0.5 * z) :: ewf | x: g * y * (1.0 - y) / scale | loc: -g * y * (1.0 - y) / scale | scale: -g * y * (1.0 - y) * z / scale
cauchy.cdf(x, loc, scale) = 0.5 + np.arctan(z) / np.pi :: ewf | x: g / (np.pi * (1.0 + z * z) * scale) | loc: -g / (np.pi * (1.0 + z * z) * scale) | scale: -g * z / (np.pi * (1.0 + z * z) * scale)
# chi2 is gamma with shape df / 2 and scale 2 scale; the CDFs are incomplete gamma and beta
# functions (their shape parameters refused when they vary); t's CDF by rt.t_cdf, its
# density written out; poisson's CDF is Q(floor(k) + 1, mu)
chi2.logpdf(x, df, loc, scale) = rt.gamma_logz(0.5 * z + 0.0 * df, 0.5 * df + 0.0 * z) - np.log(2.0 * scale) :: ewf | x: g * ((df - 2.0) / (z + (z <= 0)) - 1.0) * (z > 0) / (2.0 * scale) | loc: -g * ((df - 2.0) / (z + (z <= 0)) - 1.0) * (z > 0) / (2.0 * scale) | scale: g * 0.5 * (z - df) * (z > 0) / scale | df: g * 0.5 * (np.log(0.5 * z + (z <= 0)) - rt.digamma(0.5 * df)) * (z > 0)
chi2.cdf(x, df, loc, scale) = rt.gammainc(0.5 * df + 0.0 * z, np.maximum(0.5 * z, 0.0) + 0.0 * df) :: ewf | x: g * rt.gammainc_dx(0.5 * df + 0.0 * z, 0.5 * z + 0.0 * df) / (2.0 * scale) | loc: -g * rt.gammainc_dx(0.5 * df + 0.0 * z, 0.5 * z + 0.0 * df) / (2.0 * scale) | scale: -g * rt.gammainc_dx(0.5 * df + 0.0 * z, 0.5 * z + 0.0 * df) * z / (2.0 * scale)
gamma.cdf(x, a, loc, scale) = rt.gammainc(a + 0.0 * z, np.maximum(z, 0.0) + 0.0 * a) :: ewf | x: g * rt.gammainc_dx(a + 0.0 * z, z + 0.0 * a) / scale | loc: -g * rt.gammainc_dx(a + 0.0 * z, z + 0.0 * a) / scale | scale: -g * rt.gammainc_dx(a + 0.0 * z, z + 0.0 * a) * z / scale
beta.cdf(x, a, b, loc, scale) = rt.betainc(a + 0.0 * (b + z), b + 0.0 * (a + z), np.minimum(np.maximum(z, 0.0), 1.0) + 0.0 * (a + b)) :: ewf | x: g * rt.betainc_dx(a + 0.0 * (b + z), b + 0.0 * (a + z), z + 0.0 * (a + b)) / scale | loc: -g * rt.betainc_dx(a + 0.0 * (b + z), b + 0.0 * (a + z), z + 0.0 * (a + b)) / scale | scale: -g * rt.betainc_dx(a + 0.0 * (b + z), b + 0.0 * (a + z), z + 0.0 * (a + b)) * z / scale
t.cdf(x, df, loc, scale) = rt.t_cdf(z + 0.0 * df, df + 0.0 * z) :: ewf | x: g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale | loc: -g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale | scale: -g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df)) * z / scale
t.logcdf(x, df, loc, scale) = rt.t_logcdf(z + 0.0 * df, df + 0.0 * z) :: ewf | x: g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df) - y) / scale | loc: -g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df) - y) / scale | scale: -g * np.exp(rt.gammaln(0.5 * df + 0.5) - rt.gammaln(0.5 * df) - 0.5 * np.log(np.pi * df) - (0.5 * df + 0.5) * np.log1p(z * z / df) - y) * z / scale
poisson.cdf(k, mu) = rt.gammaincc(np.maximum(np.floor(k) + 1.0, 1.0) + 0.0 * mu, mu + 0.0 * k) * (k >= 0) :: ewf | mu: -g * rt.gammainc_dx(np.maximum(np.floor(k) + 1.0, 1.0) + 0.0 * mu, mu + 0.0 * k) * (k >= 0)
# dirichlet.logpdf(x, alpha): x a vector or a matrix whose columns are the points (SciPy's
# layout); where x_i = 0 (allowed for alpha_i >= 1) the term (alpha_i - 1) log x_i is 0 for
# alpha_i = 1, and so is its derivative
dirichlet.logpdf(x, alpha) = rt.dirichlet_logpdf(x, alpha) :: dirichlet
dirichlet.logpdf.1(x, alpha) = rt.dirichlet_logpdf(x, alpha)[0] :: dirichlet | x: g * (alpha - 1.0) / (x + (x == 0) * (alpha == 1.0)) | alpha: rt.dirichlet_alpha_adjoint(x, alpha, np.full(1, g))
dirichlet.logpdf.2(x, alpha) = rt.dirichlet_logpdf(x, alpha) :: dirichlet | x: np.expand_dims(g, 0) * np.expand_dims(alpha - 1.0, 1) / (x + (x == 0) * np.expand_dims(alpha == 1.0, 1)) | alpha: rt.dirichlet_alpha_adjoint(x, alpha, g)
dirichlet.pdf(x, alpha) = np.exp(rt.dirichlet_logpdf(x, alpha)) :: dirichlet
dirichlet.pdf.1(x, alpha) = np.exp(rt.dirichlet_logpdf(x, alpha)[0]) :: dirichlet | x: g * y * (alpha - 1.0) / (x + (x == 0) * (alpha == 1.0)) | alpha: rt.dirichlet_alpha_adjoint(x, alpha, np.full(1, g * y))
dirichlet.pdf.2(x, alpha) = np.exp(rt.dirichlet_logpdf(x, alpha)) :: dirichlet | x: np.expand_dims(g * y, 0) * np.expand_dims(alpha - 1.0, 1) / (x + (x == 0) * np.expand_dims(alpha == 1.0, 1)) | alpha: rt.dirichlet_alpha_adjoint(x, alpha, g * y)
# multivariate_normal.logpdf(x, mean, cov): x a vector or a matrix of rows, by a Cholesky factor
multivariate_normal.logpdf(x, mean, cov) = rt.mvn_logpdf_rows(x, mean, cov) :: mvn
multivariate_normal.logpdf.1(x, mean, cov) = rt.mvn_logpdf_rows(x, mean, cov)[0] :: mvn | x: -g * rt.mvn_alpha(x, mean, cov) | mean: g * rt.mvn_alpha(x, mean, cov) | cov: rt.mvn_cov_adjoint(x, mean, cov, np.full(1, g))
multivariate_normal.logpdf.2(x, mean, cov) = rt.mvn_logpdf_rows(x, mean, cov) :: mvn | x: -np.expand_dims(g, 1) * rt.mvn_alpha(x, mean, cov) | mean: g @ rt.mvn_alpha(x, mean, cov) | cov: rt.mvn_cov_adjoint(x, mean, cov, g)
multivariate_normal.pdf(x, mean, cov) = np.exp(rt.mvn_logpdf_rows(x, mean, cov)) :: mvn
multivariate_normal.pdf.1(x, mean, cov) = np.exp(rt.mvn_logpdf_rows(x, mean, cov)[0]) :: mvn | x: -g * y * rt.mvn_alpha(x, mean, cov) | mean: g * y * rt.mvn_alpha(x, mean, cov) | cov: rt.mvn_cov_adjoint(x, mean, cov, np.full(1, g * y))
multivariate_normal.pdf.2(x, mean, cov) = np.exp(rt.mvn_logpdf_rows(x, mean, cov)) :: mvn | x: -np.expand_dims(g * y, 1) * rt.mvn_alpha(x, mean, cov) | mean: (g * y) @ rt.mvn_alpha(x, mean, cov) | cov: rt.mvn_cov_adjoint(x, mean, cov, g * y)
# the entropy depends on the covariance alone: d/dcov = cov^-1 / 2 (the symmetric gradient)
multivariate_normal.entropy(mean, cov) = rt.mvn_entropy(cov) :: mvn_entropy | cov: rt.mvn_entropy_adjoint(cov, g)
"""

# Names that take `{m}` and exist in both `math` and `np` get one primitive per module.
_MODULES = {"math": math, "np": np}

# Array methods -> primitive name (axis variants chosen by the primitive's `axis_form`).
METHODS = {"reshape": "reshape", "copy": "copy_array", "sum": "sum", "mean": "mean", "max": "max",
           "min": "min", "transpose": "transpose", "dot": "dot",
           "argmax": "argmax", "argmin": "argmin", "prod": "prod", "cumsum": "cumsum",
           "cumprod": "cumprod", "ravel": "ravel", "flatten": "flatten", "squeeze": "squeeze",
           "trace": "trace", "swapaxes": "swapaxes", "var": "var", "std": "std",
           "repeat": "repeat", "diagonal": "np.diagonal", "clip": "np.clip", "round": "np.round",
           "argsort": "np.argsort", "searchsorted": "np.searchsorted", "astype": "astype",
           "item": "item", "all": "all", "any": "any", "conj": "np.conj", "conjugate": "np.conj"}

# Array methods that are a NumPy function of the array (x.take(idx, axis=0) is
# np.take(x, idx, axis=0)): read as the function, whatever form of it jitad has.
FUNCTION_METHODS = {"take": np.take}

# A ufunc's reduce / accumulate that is a NumPy function with axis 0 by default
# (np.add.reduce(x, axis) is np.sum(x, axis); np.multiply.accumulate(x) is np.cumprod(x, 0)):
# read as that function (the same argument order up to `dtype`), whatever forms it has.
UFUNC_REDUCTIONS = {(np.add, "reduce"): np.sum, (np.multiply, "reduce"): np.prod,
                    (np.maximum, "reduce"): np.max, (np.minimum, "reduce"): np.min,
                    (np.logical_and, "reduce"): np.all, (np.logical_or, "reduce"): np.any,
                    (np.add, "accumulate"): np.cumsum, (np.multiply, "accumulate"): np.cumprod}

# Python implementations, for folding constants at transformation time.
_IMPLS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
          "truediv": operator.truediv, "pow": operator.pow, "floordiv": operator.floordiv,
          "mod": operator.mod, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
          "ge": operator.ge, "eq": operator.eq, "ne": operator.ne, "not": operator.not_,
          "invert": operator.invert, "bitand": operator.and_, "bitor": operator.or_,
          "bitxor": operator.xor,
          "truth": bool, "or": lambda a, b: a or b}

# results that may share their operand's buffer (NumPy and Numba return views)
_VIEWS = ("check_axes", "transpose", "reshape", "np.moveaxis", "split_front", "split_back", "np.real", "np.imag",
          "expand_dims", "stack_part", "atleast_1d", "atleast_2d", "as_column.1", "squeeze",
          "ravel", "transpose_axes", "swapaxes", "flip", "flip_all", "sliding_window_view",
          "diag.2.0", "np.diagonal")     # NumPy's diagonal of a matrix: a (read-only) view
_ELEMENTWISE_KINDS = ("ew", "ewf", "where", "clip", "same", "cmp")
# pointwise: each element of the result is the same scalar function of the operands' elements
# at that position (broadcast), and the rule's templates also compute it on numbers
_POINTWISE_KINDS = ("ew", "ewf", "where", "clip", "cmp", "bits")
_POINTWISE_SAME = ("neg", "np.positive", "np.ceil", "np.trunc", "np.fix", "np.rint", "np.round",
                   "np.abs", "abs", "np.square", "np.sign", "np.floor")
_FOLDABLE_KINDS = ("ewf", "float", "ew", "same")
# a few flops per element (or a view), no reduction or transcendental: computed again rather
# than kept
_CHEAP = ("add", "sub", "mul", "neg", "np.positive", "transpose")


def parse_line(line: str):
    """(name, params, statics, forward, kind, {param: adjoint}) of one table line."""
    head, rest = line.split("=", 1)
    forward, tail = rest.split("::", 1)
    parts = [p.strip() for p in tail.split("|")]
    name, sig = head.strip().split("(", 1)
    params, _, statics = sig.rstrip(") ").partition(";")
    params = tuple(p.strip() for p in params.split(",") if p.strip())
    statics = tuple(p.strip() for p in statics.split(",") if p.strip())
    adj = {}
    for p in parts[1:]:
        k, v = p.split(":", 1)
        adj[k.strip()] = v.strip()
    return name.strip(), params, statics, forward.strip(), parts[0], adj


def make(name, params, statics, forward: str, kind: str, adjoints: dict) -> Primitive:
    """The `Primitive` a rule line (or `defvjp`) describes."""
    prim = Primitive(
        name, params, statics, forward=ast.parse(forward, mode="eval").body,
        adjoints={k: ast.parse(v, mode="eval").body for k, v in adjoints.items()},
        type_rule=typerules.KINDS[kind], kind=kind, impl=_IMPLS.get(name),
        elementwise=kind in _ELEMENTWISE_KINDS,
        exact=name.startswith(("dot.", "outer", "solve.", "keep_all.", "diag.", "cross")) or kind == "dot_sum",
        view=name in _VIEWS, fresh=name not in _VIEWS,
        foldable=kind in _FOLDABLE_KINDS, diff_args=(0, 1) if kind == "dot" else None,
        decision=kind in ("cmp", "bool") and name in _IMPLS)
    prim.reduces = kind == "reduce"
    prim.cheap = name in _CHEAP
    prim.pointwise = kind in _POINTWISE_KINDS or name in _POINTWISE_SAME
    return prim


def _load_table():
    for raw in TABLE.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, params, statics, forward, kind, adj = parse_line(line)
        if "{m}" in forward:
            for mname, mod in _MODULES.items():
                if hasattr(mod, name):
                    register(make(f"{mname}.{name}", params, statics, forward.replace("{m}", mname),
                                  "ewf" if mname == "np" else "float",
                                  {k: v.replace("{m}", mname) for k, v in adj.items()}),
                             getattr(mod, name))
        else:
            target = None
            if name.startswith("scipy."):      # scipy.special.erf, scipy.linalg.sqrtm ...
                module, attr = name.rsplit(".", 1)
                if module.count(".") == 1 and attr.isidentifier() and not name.endswith("_axis"):
                    alias_when_imported(module, attr, name)
            elif name.startswith(("np.", "math.")):
                mname, *path = name.split(".")
                target = _MODULES[mname]
                for attr in path:       # np.linalg.eigvalsh
                    target = getattr(target, attr)
            register(make(name, params, statics, forward, kind, adj), target)
    for target, name in [(np.add, "add"), (np.subtract, "sub"), (np.multiply, "mul"),
                         (np.divide, "truediv"), (np.negative, "neg"), (np.mod, "mod"),
                         (np.absolute, "np.abs"), (np.sum, "sum"), (np.mean, "mean"),
                         (np.max, "max"), (np.amax, "max"), (np.min, "min"), (np.amin, "min"),
                         (np.dot, "dot"), (np.outer, "outer"), (np.reshape, "reshape"),
                         (np.transpose, "transpose"), (np.copy, "copy_array"), (np.zeros, "zeros"),
                         (np.ones, "ones"), (np.empty, "empty"), (np.zeros_like, "zeros_like"),
                         (np.ones_like, "ones_like"), (np.empty_like, "empty_like"),
                         (builtins.abs, "abs"), (builtins.max, "max2"), (builtins.min, "min2"),
                         (builtins.pow, "pow"),
                         (builtins.float, "float"), (builtins.int, "int"), (builtins.len, "len"),
                         (builtins.bool, "truth"), (np.argmax, "argmax"), (np.argmin, "argmin"),
                         (np.linalg.norm, "norm"), (np.full, "full"), (np.full_like, "full_like"),
                         (np.eye, "eye"), (np.identity, "identity"), (np.arange, "arange1"),
                         (np.linspace, "linspace"), (np.expand_dims, "expand_dims"),
                         (np.squeeze, "squeeze"), (np.ravel, "ravel"), (np.flip, "flip"),
                         (np.prod, "prod"), (np.cumsum, "cumsum"), (np.cumprod, "cumprod"),
                         (np.diff, "diff"), (np.diag, "diag"), (np.trace, "trace"),
                         (np.triu, "triu"), (np.tril, "tril"), (np.linalg.det, "det"),
                         (np.linalg.inv, "inv"), (np.linalg.solve, "solve"), (np.cross, "cross"),
                         (np.linalg.cholesky, "cholesky"), (np.atleast_1d, "atleast_1d"),
                         (np.var, "var"), (np.std, "std"),
                         (np.atleast_2d, "atleast_2d"),
                         (np.swapaxes, "swapaxes")]:
        alias(target, name)
    _load_issue12()
    _load_outer_operand()
    # the facts of particular primitives the table's kinds do not say
    for short in ("sum", "mean", "max", "min", "prod", "cumsum", "cumprod", "norm", "var", "std"):
        whole, axis = get(short), get(f"{short}_axis")
        whole.axis_form, axis.whole = axis, whole
    alias(np.take_along_axis, "take_along_axis")
    get("take_along_axis").call_order = ("axis",)
    # np.argsort(x, axis=k): each lane's order (`runtime.argsort_axis`)
    get("np.argsort").axis_form, get("argsort_axis").whole = get("argsort_axis"), get("np.argsort")
    get("np.argsort").call_order = get("argsort_axis").call_order = ("axis",)
    get("stack_part").variants = {(0,): get("stack_part.0")}
    get("expand_dims").variants = {(0,): get("expand_dims.0")}
    get("atleast_1d").variants = {(0,): get("atleast_1d.0")}
    for name, ranks in (("solve", [(2, 1), (2, 2), (3, 3)]), ("outer", [(2, 1), (1, 2), (2, 2)]),
                        ("det", [(3,)]), ("inv", [(3,)]), ("diff", [(1,), (2,)]), ("as_column", [(1,), (2,)]),
                        ("diag", [(1, 0), (2, 0)]), ("keep_all", [(0, r) for r in range(1, 5)])):
        get(name).variants = {rk: get(".".join([name, *map(str, rk)])) for rk in ranks}
    get("arange1").arity_forms = {n: get(f"arange{n}") for n in (1, 2, 3)}
    get("tile_n").variants = {(r, 0): get(f"tile_n.{r}") for r in (1, 2)}
    get("tile_nm").variants = {(r, 0, 0): get(f"tile_nm.{r}") for r in (1, 2)}
    get("linspace").defaults = {"num": 50}
    get("math.isclose").defaults = {"rel_tol": 1e-09, "abs_tol": 0.0}
    for short in ("var", "std"):
        for p in (get(short), get(f"{short}_axis")):
            p.defaults, p.chains, p.float_result = {"ddof": 0}, False, True
            p.tuple_form = forms.variance_steps
            p.call_order = ("axis", "dtype", "out", "ddof", "keepdims")
    for p in (get("norm"), get("norm_axis")):
        p.defaults, p.reduces = {"ord": None}, True
        p.chains, p.tuple_form = False, forms.norm_steps     # a matrix norm over two axes
        p.call_order = ("ord", "axis", "keepdims")
    get("norm").at_ranks, get("norm_axis").at_ranks = forms.norm_at, forms.norm_axis_at
    get("trace").at_ranks = forms.trace_at
    get("triu").defaults = get("tril").defaults = get("diag").defaults = {"k": 0}
    for p in ("det", "inv", "trace"):
        get(p).float_result = p != "trace"
    for p in ("expand_dims", "expand_dims.0", "stack_part", "stack_part.0"):
        get(p).new_axis = True
    slogdet = register(Primitive("slogdet", ("x",)), np.linalg.slogdet)
    slogdet.parts = (get("slogdet.sign"), get("slogdet.logabs"))
    for p in ("check_len", "check_zip", "check_split", "check_sections", "check_slice_end", "check_length",
              "check_broadcast", "assert_failed", "raise_error", "unbound_local"):
        get(p).effect = True
    for p in ("slogdet.sign", "slogdet.logabs", "cholesky"):
        get(p).float_result = True
    get("mean").float_result = get("mean_axis").float_result = True
    get("max2").one_arg_form, get("min2").one_arg_form = get("max"), get("min")
    for p in ("zeros", "ones", "empty"):
        get(p).from_shape = True
    get("reshape").shape_arg = True
    for name, symbol in (("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("pow", "**"),
                         ("matmul", "@"), ("floordiv", "//"), ("mod", "%"), ("bitand", "&"),
                         ("bitor", "|"), ("bitxor", "^"), ("invert", "~")):
        get(name).symbol = symbol
    for p in ("zeros_like", "ones_like", "empty_like", "copy_array"):
        get(p).keeps_shape = True
    for p in ("dot", "matmul"):
        get(p).variants = {(ra, rb): get(f"dot.{ra}.{rb}") for ra in (1, 2) for rb in (1, 2)}
        get(p).variants.update({(ra, rb): get(f"dot.{ra}.{rb}")
                                for ra, rb in ((3, 3), (3, 2), (3, 1), (1, 3), (2, 3))})
        get(p).exact = True
    get("matmul").batches = True
    get("astype").on_scalar = get("astype.0")
    get("copy_array").on_scalar = get("scalar_same")     # np.array(2.0), np.copy(2.0): the number
    # np.dot with a number is the product (`@` with one is NumPy's error, refused with it)
    get("dot").variants.update({rk: get("mul") for r in range(4) for rk in ((0, r), (r, 0))})
    get("np.where").variants = {(0, 0, 0): get("where.0.0.0")}


def _load_outer_operand():
    """outer_left(a, b): a with b.ndim axes of length one appended, so that
    np.<ufunc>.outer(a, b) is the ufunc of it and b (`normalize.library`), its adjoint and
    tangent the ufunc's; one variant per pair of ranks (a number: a itself)."""
    base = register(make("outer_left", ("a", "b"), (), "a", "outer_left", {"a": "g"}))
    for ra in range(1, 5):
        for rb in range(1, 4):
            forward = "a"
            for k in range(rb):
                forward = f"np.expand_dims({forward}, {ra + k})"
            prim = register(make(f"outer_left.{ra}.{rb}", ("a", "b"), (), forward, "outer_left",
                                 {"a": "rt.reshape_like(g, a)"}))
            prim.view, prim.fresh = True, False
            base.variants[(ra, rb)] = prim


def _load_issue12():
    """Aliases and facts of the issue-12 lines (elementwise math, logsumexp)."""
    for target, name in [(np.true_divide, "truediv"), (np.remainder, "mod"),
                         (np.deg2rad, "np.radians"), (np.rad2deg, "np.degrees"),
                         (np.around, "np.round"), (math.log, "log_base")]:
        alias(target, name)
    get("log_base").one_arg_form = get("math.log")
    _load_numpy_forms()


def _load_numpy_forms():
    """The call forms of the issue-12 NumPy functions: targets, defaults, how their constants
    are read (`forms.*_statics`) and which rules they choose (`forms.*_at`)."""
    for target, name in [(np.pad, "pad"), (np.repeat, "repeat"), (np.tile, "tile"),
                         (np.roll, "roll"), (np.kron, "kron")]:
        alias(target, name)
    fam = {n: get(n) for n in ("pad", "np.convolve", "np.vander", "repeat", "tile", "roll",
                               "np.moveaxis", "np.average", "cummax", "cummin", "np.diagonal",
                               "kron", "flip", "logcumsumexp")}
    fam["pad"].defaults = {"mode": "constant", "constant_values": 0.0}
    fam["np.convolve"].defaults = {"mode": "full"}
    fam["np.vander"].defaults = {"N": -1, "increasing": False}    # N -1: len(x)
    fam["repeat"].defaults = {"axis": None}
    fam["roll"].defaults = fam["flip"].defaults = {"axis": None}
    fam["np.average"].defaults = {"axis": None}
    fam["np.diagonal"].defaults = {"offset": 0}
    fam["cummax"].defaults = fam["cummin"].defaults = fam["logcumsumexp"].defaults = {"axis": 0}
    for name, statics, at in [("pad", forms.pad_statics, forms.pad_at),
                              ("np.convolve", forms.convolve_statics, None),
                              ("np.vander", forms.vander_statics, None),
                              ("repeat", forms.repeat_statics, forms.repeat_at),
                              ("tile", forms.tile_statics, forms.tile_at),
                              ("roll", forms.roll_statics, forms.roll_at),
                              ("flip", forms.roll_statics, forms.flip_at),
                              ("np.moveaxis", forms.moveaxis_statics, forms.moveaxis_at),
                              ("np.average", forms.average_statics, forms.average_at),
                              ("cummax", forms.scan_statics, None),
                              ("cummin", forms.scan_statics, None),
                              ("logcumsumexp", forms.scan_statics, None)]:
        fam[name].read_statics, fam[name].at_ranks = statics, at
    # a family whose rules its at_ranks picks: derivatives flow through its operands
    for name, args in (("pad", (0,)), ("repeat", (0,)), ("tile", (0,)), ("roll", (0,)), ("flip", (0,)),
                       ("np.moveaxis", (0,)), ("np.average", (0, 1))):
        fam[name]._diff_args = args
    fam["kron"].variants = {(1, 1): get("kron.1.1"), (2, 2): get("kron.2.2")}
    fam["np.average"].one_arg_form = get("mean")
    fam["np.average"].positional = 1            # np.average(x, axis): weights only by keyword
    fam["np.average"].float_result = True
    for p in [*fam.values(), get("meshgrid.x"), get("eigh.w"), get("np.linalg.eigvalsh"),
              get("qr.q")]:
        p.checks_in_eager = True
    meshgrid = register(Primitive("meshgrid", ("x", "y"), ("indexing",)), np.meshgrid)
    meshgrid.parts = (get("meshgrid.x"), get("meshgrid.y"))
    get("meshgrid.x").defaults = {"indexing": "xy"}
    get("meshgrid.x").read_statics = forms.meshgrid_statics
    for name in ("sum", "max", "min", "prod"):
        get(name).on_scalar = get("scalar_same")
    get("mean").on_scalar = get("scalar_float")
    for tri in ("tril_indices", "triu_indices"):
        whole = register(Primitive(tri, ("n", "k")), getattr(np, tri))
        whole.parts = (get(f"{tri}.rows"), get(f"{tri}.cols"))
        get(f"{tri}.rows").defaults = {"k": 0}
    diag = register(Primitive("diag_indices", ("n",), ("ndim",)), np.diag_indices)
    diag.parts = (get("diag_indices.rows"), get("diag_indices.cols"))
    diag.parts[0].defaults, diag.parts[0].read_statics = {"ndim": 2}, forms.diag_indices_statics
    get("np.round").defaults = {"decimals": 0}
    windows = get("sliding_window_view")
    alias(np.lib.stride_tricks.sliding_window_view, "sliding_window_view")
    windows.defaults, windows.at_ranks = {"axis": None}, forms.windows_at
    windows.checks_in_eager = True
    for short in ("all", "any"):
        whole, axis = get(short), get(f"{short}_axis")
        alias(getattr(np, short), short)
        whole.axis_form, axis.whole = axis, whole
        for p in (whole, axis):
            p.reduces, p.call_order = True, ("axis", "out", "keepdims")
    alias_method(np.add, "at", "add_at")            # np.subtract.at: v negated (`normalize`)
    alias_method(np.subtract, "at", "add_at")
    for p in ("add_at", "add_at2", "bincount_weights"):
        get(p).checks_in_eager = True
    get("squeeze").axes_chain = forms.removing_axes
    get("expand_dims").axes_chain = forms.inserting_axes
    get("flip").axes_chain = tuple          # flips commute: any order
    get("add_at").index_operands = ("idx",)
    get("add_at2").index_operands = ("rows", "cols")
    get("bincount_weights").index_operands = ("x",)
    get("take_along_axis").index_operands = ("idx",)
    eigh = register(Primitive("eigh", ("x",)), np.linalg.eigh)
    eigh.parts = (get("eigh.w"), get("eigh.v"))
    qr = register(Primitive("qr", ("x",)), np.linalg.qr)
    qr.parts = (get("qr.q"), get("qr.r"))
    for p in ("eigh.w", "eigh.v", "np.linalg.eigvalsh", "qr.q", "qr.r"):
        get(p).float_result = True
    _load_summations()
    alias_method(np.maximum, "accumulate", "cummax")
    alias_method(np.minimum, "accumulate", "cummin")
    alias_method(np.logaddexp, "accumulate", "logcumsumexp")
    for part in ("cdf", "pdf", "logpdf", "logcdf", "sf", "logsf", "ppf", "isf"):
        name = f"scipy.stats.norm.{part}"
        get(name).defaults = {"loc": 0.0, "scale": 1.0}
        alias_when_imported("scipy.stats", f"norm.{part}", name)
    get("scipy.special.polygamma").checks_in_eager = True
    get("scipy.special.logsumexp").weighted_form = get("scipy.special.logsumexp_b")
    get("scipy.special.logsumexp_b").checks_in_eager = True
    _load_autograd_numpy()
    _load_stats()
    _load_autograd_rest()
    for short in ("logsumexp", "softmax", "log_softmax"):
        whole, axis = get(f"scipy.special.{short}"), get(f"scipy.special.{short}_axis")
        whole.axis_form, axis.whole = axis, whole
    whole.float_result = axis.float_result = True


def _load_autograd_numpy():
    """The call forms of issue 12's autograd NumPy functions (constants read by `forms`)."""
    for target, name in [(np.atleast_3d, "atleast_3d"), (np.sort, "sort")]:
        alias(target, name)
    get("atleast_3d").variants = {(r,): get(f"atleast_3d.{r}") for r in range(4)}
    rot90, rollaxis, sort = get("np.rot90"), get("np.rollaxis"), get("sort")
    rot90.defaults, rot90.read_statics = {"k": 1, "axes": (0, 1)}, forms.rot90_statics
    rollaxis.defaults, rollaxis.read_statics = {"start": 0}, forms.rollaxis_statics
    rollaxis.at_ranks, rollaxis._diff_args = forms.rollaxis_at, (0,)
    sort.defaults, sort.read_statics, sort.at_ranks = {"axis": -1}, forms.sort_statics, forms.sort_at
    get("np.gradient").defaults = {"h": 1.0}
    for p in (rot90, rollaxis, sort, get("np.gradient"), get("gradient_axis"), get("np.broadcast_to"),
              get("np.linalg.pinv"), get("svd.u"), get("svd_values"), get("eig.w"),
              get("np.linalg.eigvals"), get("np.fliplr"), get("np.flipud")):
        p.checks_in_eager = True
    for p in ("np.linalg.pinv", "svd.u", "svd.s", "svd.vh", "svd_values"):
        get(p).float_result = True
    for short, target, order in (("median", np.median, ("axis", "out", "overwrite_input")),
                                 ("quantile", np.quantile, ("q", "axis", "out", "overwrite_input")),
                                 ("percentile", np.percentile, ("q", "axis", "out", "overwrite_input"))):
        alias(target, short)
        whole, axis = get(short), get(f"{short}_axis")
        whole.axis_form, axis.whole = axis, whole
        for p in (whole, axis):     # a median over two axes is not the median of medians
            p.reduces, p.chains, p.float_result = True, False, True
            p.call_order = order + ("keepdims",)
        whole.on_scalar = get("scalar_float")
    get("svd.u").defaults = {"full_matrices": True, "compute_uv": True}
    get("svd.u").read_statics = forms.svd_statics
    svd = register(Primitive("svd", ("x",)), np.linalg.svd)
    svd.parts = (get("svd.u"), get("svd.s"), get("svd.vh"))
    svd.single_form = ("compute_uv", False, get("svd_values"))
    alias(np.linalg.svdvals, "svd_values")
    eig = register(Primitive("eig", ("x",)), np.linalg.eig)
    eig.parts = (get("eig.w"), get("eig.v"))


# the operands whose derivatives issue 12's later primitives refuse: (primitives, param, why)
_REFUSED = [
    (("scipy.special.gammainc", "scipy.special.gammaincc"), "a",
     "its derivative in the shape parameter has no closed form"),
    (("scipy.special.betainc",), "a", "its derivative in a shape parameter has no closed form"),
    (("scipy.special.betainc",), "b", "its derivative in a shape parameter has no closed form"),
    (("scipy.special.jv", "scipy.special.yv", "scipy.special.iv", "scipy.special.ive"), "v",
     "its derivative in the order has no closed form"),
    (("scipy.stats.chi2.cdf",), "df", "its derivative in df has no closed form"),
    (("scipy.stats.gamma.cdf",), "a", "its derivative in the shape parameter has no closed form"),
    (("scipy.stats.beta.cdf",), "a", "its derivative in a shape parameter has no closed form"),
    (("scipy.stats.beta.cdf",), "b", "its derivative in a shape parameter has no closed form"),
    (("scipy.stats.t.cdf", "scipy.stats.t.logcdf"), "df",
     "its derivative in df has no closed form"),
]


def _load_autograd_rest():
    """The call forms and facts of the rest of autograd's functions (scipy.linalg,
    scipy.signal, the incomplete gamma and beta functions, Bessel functions, np.partition)."""
    for names, param, why in _REFUSED:
        for name in names:
            get(name).refused = {**get(name).refused, param: why}
    alias(np.matmul, "matmul")
    tri = get("scipy.linalg.solve_triangular")
    tri.defaults = {"trans": 0, "lower": False, "unit_diagonal": False, "overwrite_b": False,
                    "check_finite": True}
    tri.read_statics = forms.solve_triangular_statics
    band = get("scipy.linalg.solve_banded")
    band.static_first = ("l_and_u",)
    band.defaults = {"overwrite_ab": False, "overwrite_b": False, "check_finite": True}
    band.read_statics = forms.solve_banded_statics
    conv = get("scipy.signal.convolve")
    conv.defaults, conv.read_statics = {"mode": "full", "method": "auto"}, forms.signal_convolve_statics
    for name, at in (("split_front", forms.split_front_at), ("split_back", forms.split_back_at)):
        get(name).at_ranks, get(name)._diff_args = at, (0,)
    part = get("np.partition")
    part.defaults = {"axis": -1, "kind": "introselect", "order": None}
    part.read_statics, part.at_ranks = forms.partition_statics, forms.partition_at
    part._diff_args = (0,)
    for name in ("np.fft.fftshift", "np.fft.ifftshift"):
        get(name).defaults, get(name).read_statics = {"axes": None}, forms.fftshift_statics
    for name in ("scipy.linalg.solve_triangular", "scipy.linalg.solve_banded",
                 "scipy.linalg.solve_sylvester", "scipy.linalg.sqrtm", "scipy.signal.convolve",
                 "np.partition", "scipy.special.yn"):
        get(name).checks_in_eager = True
    get("scipy.special.yn").elementwise = True      # a ufunc of an integer order and x
    for name in ("scipy.linalg.solve_triangular", "scipy.linalg.solve_banded",
                 "scipy.linalg.solve_sylvester", "scipy.linalg.sqrtm"):
        get(name).float_result = True
    _load_complex()
    refuse_when_imported("scipy.integrate", "odeint", ODE_REFUSAL)
    refuse_when_imported("scipy.integrate", "solve_ivp", ODE_REFUSAL)


# the primitives complex values go through (any other refuses a complex operand: typeinfer)
COMPLEX_OK = """
add sub mul truediv pow neg np.positive np.exp np.log np.sqrt np.sin np.cos np.tan np.sinh
np.cosh np.tanh np.expm1 np.log1p np.square np.reciprocal np.abs abs sum sum_axis mean mean_axis
scalar_same scalar_float reshape transpose transpose_axes swapaxes ravel flatten copy_array
expand_dims expand_dims.0 squeeze stack_part stack_part.0 atleast_1d atleast_1d.0 atleast_2d
flip flip_all flip_axis zeros_like ones_like empty_like np.real np.imag np.conj np.angle abs_complex roll roll_flat
roll_axis np.fft.fftshift np.fft.ifftshift dot matmul dot.1.1 dot.2.1 dot.1.2 dot.2.2 outer
np.where full full_like split_front split_back keep_all keep_all.0.1 keep_all.0.2 keep_all.0.3
keep_all.0.4
"""


def _load_complex():
    for name in COMPLEX_OK.split():
        get(name).complex_ok = True
    for name in ("fft", "ifft", "rfft", "irfft"):
        p = get(f"np.fft.{name}")
        p.defaults = {"n": -1, "axis": -1, "norm": None, "out": None}
        p.read_statics, p.complex_ok, p.checks_in_eager = forms.fft_statics, True, True
        p.call_order = ("n", "axis", "norm", "out")
    for name in ("fft2", "ifft2", "rfft2", "irfft2"):
        p = get(f"np.fft.{name}")
        p.defaults = {"s": None, "axes": (-2, -1), "norm": None, "out": None}
        p.read_statics, p.complex_ok, p.checks_in_eager = forms.fft2_statics, True, True
    for name in ("fftn", "ifftn", "rfftn", "irfftn"):
        p = get(f"np.fft.{name}")
        p.defaults = {"s": None, "axes": None, "norm": None}
        p.read_statics = lambda st: {**forms.fft2_statics({**st, "axes": None}), "axes": st["axes"]}
        p.at_ranks = forms.fftn_at(f"fft.{name}.1", f"np.fft.{name[:-1]}2")
        p.complex_ok, p.checks_in_eager, p._diff_args = True, True, (0,)
        get(f"fft.{name}.1").complex_ok = True
    for name in ("np.abs", "abs"):
        get(name).complex_form = get("abs_complex")
    for name in ("np.real", "np.imag", "np.conj", "np.angle", "abs_complex"):
        get(name).elementwise = True
    get("np.real_if_close").defaults = {"tol": 100}
    for name in ("eig.w", "eig.v", "np.linalg.eigvals"):
        get(name).complex_ok = True
    get("np.real_if_close").complex_ok = get("np.real_if_close").checks_in_eager = True
    get("check_axes").complex_ok = get("check_axes").checks_in_eager = True
    get("count_div").complex_ok = get("count_div").checks_in_eager = True
    alias(np.conjugate, "np.conj")
    alias(np.absolute, "np.abs")


ODE_REFUSAL = (
    "jitad does not differentiate SciPy's ODE solvers: they call your right-hand side from "
    "compiled LSODA/RK code jitad cannot see, and a solver of jitad's own would not give "
    "SciPy's numbers. Write the integrator as a loop in your function (a fixed-step RK4, or "
    "an adaptive step with a while loop): jitad differentiates loops, in both modes")

def _z_standing(text):
    """A STATS template with `z` written out as (x - loc) / scale, as an expression tree."""
    tree = ast.parse(text, mode="eval").body
    z = ast.parse("((x - loc) / scale)", mode="eval").body
    return ast.unparse(templates.substitute(tree, {"z": z}))


def _load_stats():
    """The scipy.stats rows (`STATS`): each log-density, and its density made from it."""
    rows = []
    for raw in STATS.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, params, statics, forward, kind, adj = parse_line(line)
        forward = _z_standing(forward)
        adj = {k: _z_standing(v) for k, v in adj.items()}
        rows.append((name, params, statics, forward, kind, adj))
        dist, method = name.split(".", 1)
        if method in ("logpdf", "logpmf") and kind == "ewf":
            rows.append((f"{dist}.{method[3:]}", params, statics, f"np.exp({forward})", kind,
                         {k: f"y * ({v})" for k, v in adj.items()}))
    for name, params, statics, forward, kind, adj in rows:
        full = f"scipy.stats.{name}"
        p = register(make(full, params, statics, forward, kind, adj))
        if name.count(".") == 1:
            alias_when_imported("scipy.stats", name, full)
            p.defaults = {k: v for k, v in (("loc", 0.0), ("scale", 1.0)) if k in params}
    for part in ("logpdf", "pdf"):
        mvn = get(f"scipy.stats.multivariate_normal.{part}")
        mvn.variants = {(1, 1, 2): get(f"scipy.stats.multivariate_normal.{part}.1"),
                        (2, 1, 2): get(f"scipy.stats.multivariate_normal.{part}.2")}
        mvn.checks_in_eager = mvn.float_result = True
        dirichlet = get(f"scipy.stats.dirichlet.{part}")
        dirichlet.variants = {(1, 1): get(f"scipy.stats.dirichlet.{part}.1"),
                              (2, 1): get(f"scipy.stats.dirichlet.{part}.2")}
        dirichlet.checks_in_eager = dirichlet.float_result = True
    entropy = get("scipy.stats.multivariate_normal.entropy")
    entropy.defaults, entropy.checks_in_eager, entropy.float_result = {"mean": 0.0}, True, True

def _load_summations():
    """np.einsum, np.tensordot and np.inner: each call is the summation `einsum.of` makes for
    its subscripts (einsum's constant string; tensordot's and inner's operand ranks)."""
    fam = register(Primitive("np.einsum", ("subscripts",), forward=ast.parse("None", mode="eval").body),
                   np.einsum)
    fam.from_subscripts, fam._diff_args = einsum.from_subscripts, "all"

    def tensordot_at(ranks, st):
        return einsum.tensordot(ranks, st["axes"]), {}

    def inner_at(ranks, st):
        return einsum.inner(ranks), {}

    for name, target, statics, at in (("np.tensordot", np.tensordot, ("axes",), tensordot_at),
                                      ("np.inner", np.inner, (), inner_at)):
        p = register(Primitive(name, ("a", "b"), statics, type_rule=einsum.family_type_rule(at),
                               forward=ast.parse(f"{name}(a, b)", mode="eval").body,
                               diff_args=(0, 1)), target)
        p.at_ranks, p.checks_in_eager, p.float_result = at, True, True
    get("np.tensordot").defaults = {"axes": 2}
    get("np.tensordot").read_statics = einsum.tensordot_axes


_load_table()


# The structural primitives: made by the passes themselves, printed by `reverse`/`codegen`.
COPY = register(Primitive("copy", ("x",), type_rule=typerules.same, structural=True, fresh=False,
                          view=True, reusable=False, diff_args="all"))
COPY.keeps_shape = True
GETITEM = register(Primitive("getitem", ("x",), type_rule=typerules.subscript, structural=True,
                             fresh=False, diff_args=(0,)))
GETITEM.cheap = True    # a view or one element read (a gather copies: `analysis.gathers` tells)
CALL = register(Primitive("call", structural=True, fresh=False, reusable=False, diff_args="all"))
SHAPE = register(Primitive("shape", ("x",), structural=True, fresh=False, reusable=False,
                           diff_args=()))
CONCAT = register(Primitive("concat", type_rule=typerules.same, structural=True, reusable=False,
                            diff_args="all"))
