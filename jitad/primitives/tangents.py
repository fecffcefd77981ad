"""Tangent rules (forward mode): what each primitive's result moves by when its operands move.

Takes: the registered primitives (`table`, `lists`; run on the first `rules` or `missing`,
not at import: `loaded`) and, on demand, the summations `einsum.of` makes.
Guarantees: once `loaded()` ran (`rules`, `missing`, a rule defined from outside and the
registry's `snapshot` run it), `Primitive.tangents` holds, for every built-in primitive with adjoints (rank
variants and axis forms included) except those listed in `NO_TANGENT_YET`, one AST template
per differentiable parameter: its contribution to the result's tangent, in the template
language of the adjoints -- placeholders are the parameters, the statics, `y` (the result)
and `t` (the tangent of that parameter). The result's tangent is the sum of the contributions
of the operands that have one. `rules(prim)` returns a primitive's tangents, deriving those
of an `einsum.of` summation (multilinear: the forward with `t` in place of the operand).
Three ways to state a rule, all ending in the same `tangents` dict:
  * `SYMMETRIC`: primitives whose Jacobian is symmetric (elementwise math, `softmax`): the
    tangent is the adjoint template read with `t` for `g`, so the two modes cannot drift;
  * `LINEAR`: primitives linear in each operand (reshapes, reductions by sums, products,
    stacking): the tangent of an operand is the forward template with `t` in its place;
  * `TABLE`: the rest, one line each, `name | param: template | param: template`.
Invariants: an elementwise contribution may have a lower rank than the result (`a + b`, a
scalar `a`); the forward pass broadcasts it (shape rules are the pass's, not the rules').
A primitive with adjoints but no tangent makes `jvp` raise a `JitadError` at the user's line
(never a silent zero); `missing()` lists them (the tests keep it to `NO_TANGENT_YET`).
"""
from __future__ import annotations

import ast
import copy
import threading

from . import core
from .core import PRIMITIVES

# the Jacobian is symmetric (diagonal for elementwise math): the tangent is the adjoint with t for g
SYMMETRIC = """
add sub mul truediv pow mod neg float sin cos tan sinh cosh tanh exp expm1 log log1p log2 log10
sqrt np.arcsinh math.asinh np.arccosh math.acosh np.arctanh math.atanh exp2 np.cbrt degrees
radians np.sinc np.positive np.logaddexp np.logaddexp2 np.float_power np.fmod math.fmod copysign math.erf
math.erfc math.lgamma math.gamma log_base scipy.special.erf scipy.special.erfc
scipy.special.gammaln scipy.special.multigammaln scipy.special.expit scipy.special.logit
scipy.special.xlogy scipy.special.xlog1py scipy.special.softmax scipy.special.softmax_axis
math.atan np.arctan math.asin np.arcsin math.acos np.arccos np.reciprocal math.atan2 np.arctan2
hypot math.fabs np.fabs np.abs abs math.pow np.power np.square np.maximum np.minimum max2 min2
np.where where.0.0.0 np.clip scipy.stats.norm.cdf scipy.stats.norm.pdf scipy.stats.norm.logpdf
scipy.stats.norm.logcdf
np.fmax np.fmin np.nan_to_num scipy.special.beta scipy.special.betaln scipy.special.digamma
scipy.special.entr scipy.special.erfcinv scipy.special.erfinv scipy.special.gamma
np.i0 scipy.special.i0 scipy.special.i0e scipy.special.i1 scipy.special.i1e scipy.special.kl_div
scipy.special.log_ndtr scipy.special.ndtr scipy.special.polygamma scipy.special.rel_entr
scipy.special.rgamma scipy.special.softplus scipy.stats.beta.logpdf scipy.stats.beta.pdf
scipy.stats.cauchy.cdf scipy.stats.cauchy.logpdf scipy.stats.cauchy.pdf scipy.stats.expon.cdf
scipy.stats.expon.logpdf scipy.stats.expon.pdf scipy.stats.gamma.logpdf scipy.stats.gamma.pdf
scipy.stats.laplace.cdf scipy.stats.laplace.logpdf scipy.stats.laplace.pdf
scipy.stats.logistic.cdf scipy.stats.logistic.logpdf scipy.stats.logistic.pdf
scipy.stats.poisson.logpmf scipy.stats.poisson.pmf scipy.stats.t.logpdf scipy.stats.t.pdf
prod_others prod_others_axis strong_mul strong_div
scipy.special.gammainc scipy.special.gammaincc scipy.special.betainc scipy.special.j0
scipy.special.j1 scipy.special.y0 scipy.special.y1 scipy.special.jv scipy.special.yv
scipy.special.yn scipy.special.iv scipy.special.ive scipy.stats.norm.sf scipy.stats.norm.logsf
scipy.stats.chi2.logpdf scipy.stats.chi2.pdf scipy.stats.chi2.cdf scipy.stats.gamma.cdf
scipy.stats.beta.cdf scipy.stats.t.cdf scipy.stats.t.logcdf scipy.stats.poisson.cdf
scipy.special.ndtri scipy.stats.norm.ppf scipy.stats.norm.isf
"""

# linear in each operand: the tangent is the forward with t in the operand's place
LINEAR = """
pick dot.1.1 dot.2.1 dot.1.2 dot.2.2 dot.3.3 dot.3.2 dot.3.1 dot.1.3 dot.2.3 outer outer.2.1 outer.1.2 outer.2.2 cross kron.1.1 kron.2.2 np.convolve
sum sum_axis mean mean_axis math.fsum transpose transpose_axes swapaxes flip flip_all flip_axis
copy_array reshape
cumsum cumsum_axis diff.1 diff.2 diag.1.0 diag.2.0 np.diagonal trace trace.n triu tril
expand_dims expand_dims.0 squeeze stack_part stack_part.0 atleast_1d atleast_1d.0 atleast_2d
as_column.1 as_column.2 ravel flatten keep_all.0.1 keep_all.0.2 keep_all.0.3 keep_all.0.4
full full_like repeat.1 repeat.2 repeat.n tile.1 tile.1.2 tile.2 tile_n.1 tile_n.2 tile_nm.1 tile_nm.2
roll_flat roll_axis take_along_axis take_along_adjoint mesh outer_left lanes_dot
outer_left.1.1 outer_left.1.2 outer_left.1.3 outer_left.2.1 outer_left.2.2 outer_left.2.3 outer_left.3.1 outer_left.3.2 outer_left.3.3 outer_left.4.1 outer_left.4.2 outer_left.4.3
list_stack list_concat list_concat_axis list_hstack.1 list_hstack.2 list_vstack.2
list_column_stack.2 list_column_stack.3
list_vstack.3 scalar_same scalar_float atleast_3d.0 atleast_3d.1 atleast_3d.2 atleast_3d.3
np.fliplr np.flipud np.rot90 np.broadcast_to cummax_tangent sort_tangent tri_mul tri_outer
np.fft.fftshift np.fft.ifftshift scipy.signal.convolve astype astype.0 np.real np.imag np.conj
np.fft.fft np.fft.ifft np.fft.rfft np.fft.irfft np.fft.fft2 np.fft.ifft2 np.fft.rfft2 np.fft.irfft2
fft.fftn.1 fft.ifftn.1 fft.rfftn.1 fft.irfftn.1 np.real_if_close item sliding_window_view
check_axes count_div trace_stack.3
"""

TABLE = r"""
matvec_sum         | a: rt.matvec(t, b) | b: rt.matvec(a, t) | c: rt.matvec(t, d) | d: rt.matvec(c, t)
vecmat_sum         | a: rt.vecmat(t, b) | b: rt.vecmat(a, t) | c: rt.vecmat(t, d) | d: rt.vecmat(c, t)
matmat_sum         | a: rt.matmat(t, b) | b: rt.matmat(a, t) | c: rt.matmat(t, d) | d: rt.matmat(c, t)
add_at             | a: t | v: rt.add_at(np.zeros_like(a), idx, t)
add_at2            | a: t | v: rt.add_at2(np.zeros_like(a), rows, cols, t)
bincount_weights   | weights: np.bincount(x, t, minlength)
np.gradient        | x: rt.gradient_lane(t, h, 0) | h: -t * y / h
gradient_axis      | x: rt.gradient_lane(t, h, axis) | h: -t * y / h
gradient_lane      | x: rt.gradient_lane(t, h, axis) | h: -t * y / h
arange2            | start: np.full(y.shape[0], t)
arange3            | start: np.full(y.shape[0], t) | step: t * np.arange(y.shape[0])
linspace           | start: t * (1.0 - rt.lin_t(y.shape[0])) | stop: t * rt.lin_t(y.shape[0])
median             | x: np.sum(t * rt.quantile_weights_all(x, 0.5))
median_axis        | x: np.sum(t * rt.quantile_weights(x, 0.5, axis), axis=axis)
quantile           | x: np.sum(t * rt.quantile_weights_all(x, q))
quantile_axis      | x: np.sum(t * rt.quantile_weights(x, q, axis), axis=axis)
percentile         | x: np.sum(t * rt.quantile_weights_all(x, q / 100.0))
percentile_axis    | x: np.sum(t * rt.quantile_weights(x, q / 100.0, axis), axis=axis)
max                | x: np.sum(t * (x == y)) / np.sum(x == y)
min                | x: np.sum(t * (x == y)) / np.sum(x == y)
max_axis           | x: np.sum(t * (x == rt.expand(y, axis)), axis=axis) / np.sum(x == rt.expand(y, axis), axis=axis)
min_axis           | x: np.sum(t * (x == rt.expand(y, axis)), axis=axis) / np.sum(x == rt.expand(y, axis), axis=axis)
prod               | x: np.sum(t * rt.prod_others(x))
prod_axis          | x: np.sum(t * rt.prod_others_axis(x, axis), axis=axis)
norm               | x: np.sum(x * t) / (y + (y == 0.0))
norm_axis          | x: np.sum(x * t, axis=axis) / (y + (y == 0.0))
norm_p             | x: np.sum(np.sign(x) * (np.abs(x) / (y + (y == 0.0))) ** (ord - 1) * t)
norm_p_axis        | x: np.sum(np.sign(x) * (np.abs(x) / rt.expand(y + (y == 0.0), axis)) ** (ord - 1) * t, axis=axis)
norm_one           | x: np.sum(np.sign(x) * t)
norm_one_axis      | x: np.sum(np.sign(x) * t, axis=axis)
norm_max           | x: np.sum(t * np.sign(x) * (np.abs(x) == y)) / np.sum(np.abs(x) == y)
norm_min           | x: np.sum(t * np.sign(x) * (np.abs(x) == y)) / np.sum(np.abs(x) == y)
norm_max_axis      | x: np.sum(t * np.sign(x) * (np.abs(x) == rt.expand(y, axis)), axis=axis) / np.sum(np.abs(x) == rt.expand(y, axis), axis=axis)
norm_min_axis      | x: np.sum(t * np.sign(x) * (np.abs(x) == rt.expand(y, axis)), axis=axis) / np.sum(np.abs(x) == rt.expand(y, axis), axis=axis)
norm_sv_max        | x: np.sum(t * rt.svd_mix(x, rt.svd_ties(x, 0)))
norm_sv_min        | x: np.sum(t * rt.svd_mix(x, rt.svd_ties(x, -1)))
norm_nuc           | x: np.sum(t * rt.svd_mix(x, np.ones(min(x.shape[0], x.shape[1]))))
svd_mix            | x: rt.svd_mix_tangent(x, w, t) | w: rt.svd_mix(x, t)
svd_mix_tangent    | x: rt.svd_mix_tangent_dot(x, w, d, t) | w: rt.svd_mix_tangent(x, t, d) | d: rt.svd_mix_tangent(x, w, t)
norm_col_max       | x: np.sum(t * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=0) == y) / np.sum(np.sum(np.abs(x), axis=0) == y), 0))
norm_col_min       | x: np.sum(t * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=0) == y) / np.sum(np.sum(np.abs(x), axis=0) == y), 0))
norm_row_max       | x: np.sum(t * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=1) == y) / np.sum(np.sum(np.abs(x), axis=1) == y), 1))
norm_row_min       | x: np.sum(t * np.sign(x) * rt.expand((np.sum(np.abs(x), axis=1) == y) / np.sum(np.sum(np.abs(x), axis=1) == y), 1))
var                | x: 2.0 * np.sum((x - np.mean(x)) * t) / (x.size - ddof)
var_axis           | x: 2.0 * np.sum((x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) * t, axis=axis) / (x.shape[axis] - ddof)
std                | x: np.sum((x - np.mean(x)) * t) / ((x.size - ddof) * y)
std_axis           | x: np.sum((x - rt.expand(np.sum(x, axis=axis) / x.shape[axis], axis)) * t, axis=axis) / ((x.shape[axis] - ddof) * y)
scipy.special.logsumexp | x: np.sum(t * np.exp(x - y))
scipy.special.logsumexp_b | x: np.sum(t * b * np.exp(x - y)) | b: np.sum(t * np.exp(x - y))
scipy.special.logsumexp_axis | x: np.sum(t * np.exp(x - rt.expand(y, axis)), axis=axis)
scipy.special.log_softmax | x: t - np.sum(np.exp(y) * t)
scipy.special.log_softmax_axis | x: t - rt.expand(np.sum(np.exp(y) * t, axis=axis), axis)
average_whole      | x: np.sum(t * weights) / np.sum(weights) | weights: np.sum(t * (x - y)) / np.sum(weights)
average_lanes      | x: rt.lanes_dot(t, weights, axis) / np.sum(weights) | weights: (rt.lanes_dot(x, t, axis) - np.sum(t) * y) / np.sum(weights)
average_axis       | x: np.sum(t * weights, axis=axis) / np.sum(weights, axis=axis) | weights: np.sum(t * (x - rt.expand(y, axis)), axis=axis) / np.sum(weights, axis=axis)
pad.1              | x: rt.pad1(t, pad_width, 0.0)
pad.2              | x: rt.pad2(t, pad_width, 0.0)
pad.3              | x: rt.pad3(t, pad_width, 0.0)
padix.1            | x: rt.padix1(t, pad_width, mode)
padix.2            | x: rt.padix2(t, pad_width, mode)
padix.3            | x: rt.padix3(t, pad_width, mode)
det                | x: y * np.trace(np.linalg.solve(x, t))
slogdet.logabs     | x: np.trace(np.linalg.solve(x, t))
inv                | x: -(y @ t @ y)
solve.2.1          | a: -np.linalg.solve(a, t @ y) | b: np.linalg.solve(a, t)
solve.2.2          | a: -np.linalg.solve(a, t @ y) | b: np.linalg.solve(a, t)
solve.3.3          | a: -rt.solve_stack(a, rt.bmm(t, y)) | b: rt.solve_stack(a, t)
inv.3              | x: -rt.bmm(rt.bmm(y, t), y)
det.3              | x: y * rt.trace_stack(rt.solve_stack(x, t))
# cholesky reads the lower triangle: dL = L phi(L^-1 S L^-T), S the symmetric matrix that
# triangle means, phi the lower triangle with its diagonal halved
cholesky           | x: y @ (np.tril(np.linalg.solve(y, np.linalg.solve(y, np.tril(t) + np.tril(t, -1).T).T)) - 0.5 * np.diag(np.diag(np.linalg.solve(y, np.linalg.solve(y, np.tril(t) + np.tril(t, -1).T).T))))
# eigenvalues of a symmetric matrix (lower triangle read): dw_i = v_i . S v_i
eigh.w             | x: np.sum(np.linalg.eigh(x)[1] * ((np.tril(t) + np.tril(t, -1).T) @ np.linalg.eigh(x)[1]), axis=0)
np.linalg.eigvalsh | x: np.sum(np.linalg.eigh(x)[1] * ((np.tril(t) + np.tril(t, -1).T) @ np.linalg.eigh(x)[1]), axis=0)
# np.meshgrid's parts have a parameter named y, which templates read as the result: the other
# vector's length is the result's other dimension (xy: (len(y), len(x)), ij: (len(x), len(y)))
meshgrid.x         | x: rt.mesh_copies(t, y.shape[indexing], indexing == 0)
meshgrid.y         | y: rt.mesh_copies(t, y.shape[1 - indexing], indexing == 1)
# scans and sorts: the same running extreme / stable argsort as their adjoints (rt's loops)
cumprod            | x: rt.cumprod_tangent(np.ravel(x), np.ravel(t))
# cumprod's tangent read again (second derivatives): bilinear in x's two directions
cumprod_tangent    | x: rt.cumprod_tangent2(x, dx, t) | dx: rt.cumprod_tangent(x, t)
cumprod_axis       | x: rt.cumprod_tangent_axis(x, t, axis)
cumprod_tangent_axis | x: rt.cumprod_lanes(x, dx, t, axis, 4) | dx: rt.cumprod_tangent_axis(x, t, axis)
cummax             | x: rt.cummax_tangent(x, t, axis)
cummin             | x: rt.cummax_tangent(-x, t, axis)
logcumsumexp       | x: rt.logcumsumexp_tangent(x, y, t, axis)
logcumsumexp_tangent | x: rt.logcumsumexp_tangent(x, r, dx * t, axis) | r: -t * y | dx: rt.logcumsumexp_tangent(x, r, t, axis)
logcumsumexp_adjoint | x: t * y | r: -rt.logcumsumexp_adjoint(x, r, c * t, axis) | c: rt.logcumsumexp_adjoint(x, r, t, axis)
np.vander          | x: rt.vander_tangent(x, t, y.shape[1], increasing, 1)
vander_tangent     | x: rt.vander_tangent(x, dx * t, cols, increasing, order + 1) | dx: rt.vander_tangent(x, t, cols, increasing, order)
vander_adjoint     | x: t * rt.vander_adjoint(x, w, increasing, order + 1) | w: rt.vander_adjoint(x, t, increasing, order)
sort               | x: rt.sort_tangent(x, t, axis)
sort_flat          | x: rt.sort_tangent(np.ascontiguousarray(x).ravel(), np.ascontiguousarray(t).ravel(), 0)
# decompositions (the derivations are in rt's docstrings); eigh reads the lower triangle
eigh.v             | x: rt.eigh_v_tangent(x, t)
qr.q               | x: rt.qr_tangent(x, t)[0]
qr.r               | x: rt.qr_tangent(x, t)[1]
np.linalg.pinv     | x: rt.pinv_tangent(x, y, t)
pinv_tangent       | a: -(x @ x.T @ d.T @ t @ x) - (x @ t @ d.T @ x.T @ x) | x: -(t @ d @ x + x @ d @ t) + (t @ x.T + x @ t.T) @ d.T - (t @ x.T + x @ t.T) @ d.T @ a @ x - x @ x.T @ d.T @ a @ t - t @ a @ d.T @ x.T @ x + d.T @ (t.T @ x + x.T @ t) - x @ a @ d.T @ (t.T @ x + x.T @ t) | d: rt.pinv_tangent(a, x, t)
svd.u              | x: rt.svd_tangent_u(x, t, full_matrices)
svd.s              | x: rt.svd_tangent(x, t)[1]
svd.vh             | x: rt.svd_tangent_vh(x, t, full_matrices)
svd_values         | x: rt.svd_tangent(x, t)[1]
# multivariate normal: d/dx = -alpha, d/dmean = alpha (alpha = cov^-1 (x - mean) per row); the
# covariance's lower triangle is read (its Cholesky factor)
scipy.stats.multivariate_normal.logpdf.1 | x: -np.sum(t * rt.mvn_alpha(x, mean, cov)) | mean: np.sum(t * rt.mvn_alpha(x, mean, cov)) | cov: rt.mvn_cov_tangent(x, mean, cov, t)[0]
scipy.stats.multivariate_normal.logpdf.2 | x: -np.sum(t * rt.mvn_alpha(x, mean, cov), axis=1) | mean: rt.mvn_alpha(x, mean, cov) @ t | cov: rt.mvn_cov_tangent(x, mean, cov, t)
scipy.stats.multivariate_normal.pdf.1 | x: -y * np.sum(t * rt.mvn_alpha(x, mean, cov)) | mean: y * np.sum(t * rt.mvn_alpha(x, mean, cov)) | cov: y * rt.mvn_cov_tangent(x, mean, cov, t)[0]
scipy.stats.multivariate_normal.pdf.2 | x: -y * np.sum(t * rt.mvn_alpha(x, mean, cov), axis=1) | mean: y * (rt.mvn_alpha(x, mean, cov) @ t) | cov: y * rt.mvn_cov_tangent(x, mean, cov, t)
scipy.stats.multivariate_normal.entropy | cov: rt.mvn_entropy_tangent(cov, t)
# the Dirichlet density: the partial derivatives of its adjoints, summed over the entries
scipy.stats.dirichlet.logpdf.1 | x: np.sum(t * (alpha - 1.0) / (x + (x == 0) * (alpha == 1.0))) | alpha: np.sum(t * (rt.digamma(np.sum(alpha)) - rt.digamma(alpha) + np.log(x)))
scipy.stats.dirichlet.logpdf.2 | x: np.sum(t * np.expand_dims(alpha - 1.0, 1) / (x + (x == 0) * np.expand_dims(alpha == 1.0, 1)), axis=0) | alpha: np.sum(np.expand_dims(t, 1) * (rt.digamma(np.sum(alpha)) - np.expand_dims(rt.digamma(alpha), 1) + np.log(x)), axis=0)
scipy.stats.dirichlet.pdf.1 | x: y * np.sum(t * (alpha - 1.0) / (x + (x == 0) * (alpha == 1.0))) | alpha: y * np.sum(t * (rt.digamma(np.sum(alpha)) - rt.digamma(alpha) + np.log(x)))
scipy.stats.dirichlet.pdf.2 | x: y * np.sum(t * np.expand_dims(alpha - 1.0, 1) / (x + (x == 0) * np.expand_dims(alpha == 1.0, 1)), axis=0) | alpha: y * np.sum(np.expand_dims(t, 1) * (rt.digamma(np.sum(alpha)) - np.expand_dims(rt.digamma(alpha), 1) + np.log(x)), axis=0)
# scipy.linalg: d(op(T) x) = db - op(dT) x for the triangle read; the band likewise; the
# Sylvester equation differentiated, A dX + dX B = dQ - dA X - X dB; X dX + dX X = dA
scipy.linalg.solve_triangular | a: -rt.tri_solve(a, rt.tri_mul(t, y, trans, lower, unit_diagonal), trans, lower, unit_diagonal) | b: rt.tri_solve(a, t, trans, lower, unit_diagonal)
tri_solve          | a: -rt.tri_solve(a, rt.tri_mul(t, y, trans, lower, unit), trans, lower, unit) | b: rt.tri_solve(a, t, trans, lower, unit)
scipy.linalg.solve_banded | ab: -rt.banded_solve(ab, rt.banded_full(t, l_and_u) @ y, l_and_u) | b: rt.banded_solve(ab, t, l_and_u)
scipy.linalg.solve_sylvester | a: -rt.sylvester(a, b, t @ y) | b: -rt.sylvester(a, b, y @ t) | q: rt.sylvester(a, b, t)
scipy.linalg.sqrtm | a: rt.sqrtm_tangent(y, t)
np.partition       | x: rt.partition_tangent(x, t, kth, axis)
# np.linalg.eig: dw = diag(V^-1 dA V), dV in LAPACK's gauge (rt.eig_tangent)
eig.w              | x: rt.eig_tangent(x, t)[0]
eig.v              | x: rt.eig_tangent(x, t)[1]
np.linalg.eigvals  | x: rt.eig_tangent(x, t)[0]
# complex values: |z| and arg z move by Re and Im of conj(z) dz over |z| and |z|^2
abs_complex        | x: np.real(np.conj(x) * t) / (y + (y == 0))
np.angle           | x: np.imag(np.conj(x) * t) / (np.real(x * np.conj(x)) + (x == 0))
"""

# Code read again (`Forward.reentrant`: second derivatives) differentiates its tangents: where
# a TABLE rule calls a runtime helper without rules of its own (fast at first order: one more
# decomposition), the same tangent as a composition of primitives with rules, read there in its
# place (`rules(prim, read_again=True)`; tests/test_second_reach.py checks the two agree).
READ_AGAIN = r"""
# eigenvectors: V (F o (V^T S V)), F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it, as
# products and quotients of eigh's parts, so derivatives of every order are the parts' rules
eigh.v             | x: y @ ((1.0 - np.eye(y.shape[0])) / (np.expand_dims(np.linalg.eigh(x)[0], 0) - np.expand_dims(np.linalg.eigh(x)[0], 1) + np.eye(y.shape[0])) * (y.T @ ((np.tril(t) + np.tril(t, -1).T) @ y)))
# reduced QR of a square or tall matrix: with C = Q^T dA R^-1,
# K = C - Omega (its upper triangle plus the strict lower one mirrored), dQ = dA R^-1 - Q K
# and dR = K R; as products and solves of qr's parts, so derivatives of every order are theirs
qr.q               | x: np.linalg.solve(np.linalg.qr(x)[1].T, t.T).T - y @ (np.triu((y.T @ np.linalg.solve(np.linalg.qr(x)[1].T, t.T).T)) + np.triu((y.T @ np.linalg.solve(np.linalg.qr(x)[1].T, t.T).T).T, 1))
qr.r               | x: (np.triu((np.linalg.qr(x)[0].T @ np.linalg.solve(np.linalg.qr(x)[1].T, t.T).T)) + np.triu((np.linalg.qr(x)[0].T @ np.linalg.solve(np.linalg.qr(x)[1].T, t.T).T).T, 1)) @ y
# the reduced SVD A = U diag(s) V^T (distinct nonzero singular values): ds_i = u_i . dA v_i,
# dU = U Ou + (I - U U^T) dA V / s, dV = V Ov + (I - V V^T) dA^T U / s, with P = U^T dA V and
# the antisymmetric Ou[i, j] = (s_j P_ij + s_i P_ji) / (s_j^2 - s_i^2), Ov[i, j] =
# (s_i P_ij + s_j P_ji) / (s_j^2 - s_i^2); as products and quotients of svd's parts, so
# derivatives of every order are the parts' rules
svd.u              | x: y @ ((1.0 - np.eye(np.linalg.svd(x, False)[1].shape[0])) * (np.expand_dims(np.linalg.svd(x, False)[1], 0) * (y.T @ t @ np.linalg.svd(x, False)[2].T) + np.expand_dims(np.linalg.svd(x, False)[1], 1) * (y.T @ t @ np.linalg.svd(x, False)[2].T).T) / (np.expand_dims(np.linalg.svd(x, False)[1] * np.linalg.svd(x, False)[1], 0) - np.expand_dims(np.linalg.svd(x, False)[1] * np.linalg.svd(x, False)[1], 1) + np.eye(np.linalg.svd(x, False)[1].shape[0]))) + (t @ np.linalg.svd(x, False)[2].T - y @ (y.T @ t @ np.linalg.svd(x, False)[2].T)) / np.expand_dims(np.linalg.svd(x, False)[1], 0)
svd.s              | x: np.sum(np.linalg.svd(x, False)[0] * (t @ np.linalg.svd(x, False)[2].T), axis=0)
svd.vh             | x: (y.T @ ((1.0 - np.eye(np.linalg.svd(x, False)[1].shape[0])) * (np.expand_dims(np.linalg.svd(x, False)[1], 1) * (np.linalg.svd(x, False)[0].T @ t @ y.T) + np.expand_dims(np.linalg.svd(x, False)[1], 0) * (np.linalg.svd(x, False)[0].T @ t @ y.T).T) / (np.expand_dims(np.linalg.svd(x, False)[1] * np.linalg.svd(x, False)[1], 0) - np.expand_dims(np.linalg.svd(x, False)[1] * np.linalg.svd(x, False)[1], 1) + np.eye(np.linalg.svd(x, False)[1].shape[0]))) + (t.T @ np.linalg.svd(x, False)[0] - y.T @ (np.linalg.svd(x, False)[0].T @ t @ y.T).T) / np.expand_dims(np.linalg.svd(x, False)[1], 0)).T
svd_values         | x: np.sum(np.linalg.svd(x, False)[0] * (t @ np.linalg.svd(x, False)[2].T), axis=0)
"""

# primitives with adjoints and no tangent rule yet: jvp through them is a JitadError at the line
NO_TANGENT_YET = ()


def _template(text):
    return ast.parse(text.strip(), mode="eval").body


class _ForG(ast.NodeTransformer):
    def visit_Name(self, node):
        return ast.Name("t", ast.Load()) if node.id == "g" else node


class _Put(ast.NodeTransformer):
    """The forward template with the operand `p` replaced by `t`."""

    def __init__(self, p):
        self.p = p

    def visit_Name(self, node):
        return ast.Name("t", ast.Load()) if node.id == self.p else node


def _names(text):
    """The primitives a list names: `sin` means `np.sin` and `math.sin` where both exist."""
    out = []
    for n in text.split():
        found = [PRIMITIVES[k] for k in (n, f"np.{n}", f"math.{n}") if k in PRIMITIVES]
        if n in PRIMITIVES:
            found = found[:1] + [p for p in found[1:] if p.name != n]
        if not found:
            raise AssertionError(f"tangents: no primitive {n!r}")
        out += found
    return out


def _unambiguous(prim, tree):
    """`tree`, unless it reads a parameter named `y`, which a template reads as the result
    (such a primitive's tangents are TABLE lines written with that in mind)."""
    if "y" in prim.params and any(isinstance(n, ast.Name) and n.id == "y" for n in ast.walk(tree)):
        raise AssertionError(f"tangents: {prim.name} has a parameter named y, which a template "
                             "reads as the result: give it a TABLE line")
    return tree


def symmetric(prim):
    return {p: _ForG().visit(_unambiguous(prim, copy.deepcopy(a))) for p, a in prim.adjoints.items()}


# names of the primitives whose tangents are their forward with `t` in the operand's place
LINEARLY: set = set()


def linear(prim):
    LINEARLY.add(prim.name)
    return {p: _Put(p).visit(_unambiguous(prim, copy.deepcopy(prim.forward))) for p in prim.adjoints}


def _load():
    for prim in _names(SYMMETRIC):
        prim.tangents = symmetric(prim)
    for prim in _names(LINEAR):
        prim.tangents = linear(prim)
    for raw in TABLE.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, *parts = [x.strip() for x in line.split("|")]
        rules = {}
        for part in parts:
            k, v = part.split(":", 1)
            rules[k.strip()] = _template(v)
        PRIMITIVES[name].tangents = rules
    for raw in READ_AGAIN.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, *parts = [x.strip() for x in line.split("|")]
        READ_AGAIN_RULES[name] = {k.strip(): _template(v) for k, v in
                                  (part.split(":", 1) for part in parts)}


READ_AGAIN_RULES: dict = {}     # primitive name -> param -> the tangent code read again uses


_LOADED = threading.Lock()
_loaded = False


def loaded():
    """Fill the built-ins' `tangents` (`_load`) once, on first use: a plain `grad` never reads
    them, and building them is ~40 % of `import jitad`'s own time."""
    global _loaded
    if not _loaded:
        with _LOADED:
            if not _loaded:
                _load()
                _loaded = True


def rules(prim, read_again=False) -> dict:
    """The tangent templates of a primitive (a summation's derived on first use); with
    `read_again`, those of code the front end reads again (`READ_AGAIN` where it has one)."""
    loaded()
    if read_again and prim.name in READ_AGAIN_RULES:
        return {**prim.tangents, **READ_AGAIN_RULES[prim.name]}
    if not prim.tangents and prim.adjoints and prim.name not in PRIMITIVES:
        from . import einsum
        if any(prim is q for q in einsum._CACHE.values()):
            prim.tangents = linear(prim)
    return prim.tangents


def missing() -> list:
    """Names of the registered primitives (variants included) with adjoints and no tangents."""
    loaded()
    seen, out = set(), []
    for p in core.PRIMITIVES.values():
        for q in (p, *p.variants.values()):
            if id(q) in seen:
                continue
            seen.add(id(q))
            if q.adjoints and set(q.adjoints) - set(q.tangents):
                out.append(q.name)
    return sorted(out)
