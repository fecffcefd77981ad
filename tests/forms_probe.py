"""Forms probe: NumPy as other projects' test suites call it, one operation per function.

What it takes: `TABLE`, one line per form -- `name | parameters | expression | argument specs`
-- written for this probe from the operations autograd's test suite checks (tests/test_numpy.py,
test_systematic.py, test_linalg.py, test_scipy.py: read for which calls and argument forms they
exercise, not copied), plus scipy.stats and the builtins. A spec is a shape (`(3,4)`, `()` a
float), `pos(...)` for entries in [0.5, 1.5] (logs, roots), `intcol(...)` for a matrix whose
last column holds row indices (plus 0.5: finite differences stay off their steps).
What it guarantees: `python -m tests.forms_probe [--backend python|numba] [name ...]` writes
each form as `def name(params): return np.sum(np.sin(expression))` in a module of its own
(jitad reads source from files), then for each: the gradient in eager mode and compiled
(Numba, or the generated Python with `--backend python`: the same code without compiling)
against central finite differences, and, where the gradient is right, `jvp` in both modes
against grad . v. It prints one line per form that is not right in every check (`REFUSED`
with the message, `WRONG`, `CRASH`) and a count; a form refused in both modes with a
`JitadError` at its line is what jitad says it does not differentiate. Not part of the
default test run (tests/test_suites.py holds the forms it found, compiled).
Invariants: the arguments come from one seeded generator, in table order; a form whose plain
NumPy call fails (a spec mistake) is reported `SPEC`, never counted.
"""
import argparse
import importlib
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

import jitad

TABLE = r"""
dot_mv | x,y | np.dot(x, y) | (4,5) (5,)
dot_mm | x,y | np.dot(x, y.T) | (4,5) (3,5)
dot_vm | x,y | np.dot(x, y) | (4,) (4,5)
dot_vv | x,y | np.dot(x, y) | (5,) (5,)
dot_mf | x,s | np.dot(x, s) | (4,5) ()
dot_fv | s,x | np.dot(s, x) | () (5,)
outer_vv | x,y | np.outer(x, y) | (4,) (5,)
max_all | x | np.max(x) | (4,5)
max_axis | x | np.max(x, axis=1) | (3,4,5)
max_axis_keep | x | np.max(x, axis=1, keepdims=True) | (3,4,5)
min_axis_keep | x | np.min(x, axis=1, keepdims=True) | (3,4,5)
amax_m | x | np.amax(x, axis=0) | (4,5)
sum_tuple_axis | x | np.sum(x, axis=(1, 2)) | (3,4,5)
sum_keep0 | x | np.sum(x, axis=0, keepdims=True) | (4,5)
mean_keep0 | x | np.mean(x, axis=0, keepdims=True) | (4,5)
mean_neg_axis | x | x.mean(axis=-1) | (3,4,5)
flipud | x | np.flipud(x) * np.arange(20.0).reshape(4, 5) | (4,5)
fliplr | x | np.fliplr(x) * np.arange(20.0).reshape(4, 5) | (4,5)
rot90 | x | np.rot90(x) * np.arange(20.0).reshape(5, 4) | (4,5)
cumsum0 | x | np.cumsum(x, axis=0) | (4,5)
cumsum1 | x | np.cumsum(x, axis=1) | (4,5)
cumsum_flat | x | np.cumsum(x) | (4,5)
cumprod1d | x | np.cumprod(x) | pos(5,)
builtin_sum_list | x,y | sum([x, y]) | (4,5) (4,5)
index_ints | x | x[3, 0, 1] | (5,6,4)
index_slices | x | x[::-1, 2:4, :] | (5,6,4)
index_list_first | x | x[[0, 1, 2], :, :] | (5,6,4)
index_mixed | x | x[3, 2:, [1, 3]] | (5,6,4)
slice_fanout | x | x[::-1, 2:4, :] + x[::-1, 3:5, :] | (5,6,4)
slice_of_slice | x | x[2:6][1:3] | (7,)
reshape_tuple | x | x.reshape((20, 6)) | (5,6,4)
reshape_call | x | np.reshape(x, (20, 6)) | (5,6,4)
reshape_args | x | x.reshape(20, 6) | (5,6,4)
ravel_m | x | x.ravel() | (5,6,4)
ravel_f | x | np.ravel(x) | (5,6,4)
flatten_m | x | x.flatten() | (5,6,4)
append_scalar | x,s | np.append(x, s) | (3,) ()
concat_0 | x,y | np.concatenate((y, x, y)) | (5,3,2) (5,3,2)
concat_1 | x,y | np.concatenate((y, x, y), axis=1) | (5,3,2) (5,3,2)
concat_1_pos | x,y | np.concatenate((y, x, y), 1) | (5,3,2) (5,3,2)
trace_off | x | np.trace(x, offset=2) | (5,6)
trace_neg | x | np.trace(x, offset=-1) | (6,5)
split_first | x | np.split(x, 2)[0] | (10,)
diag_of_mat | x | np.diag(x) | (5,5)
diag_of_vec | x | np.diag(x) * np.arange(16.0).reshape(4, 4) | (4,)
transpose_T | x | x.T * np.arange(20.0).reshape(5, 4) | (4,5)
transpose_axes | x | np.transpose(x, (2, 0, 1)) * np.arange(24.0).reshape(4, 2, 3) | (2,3,4)
roll_axis | x | np.roll(x, 2, axis=1) * np.arange(20.0).reshape(4, 5) | (4,5)
roll_flat | x | np.roll(x, 2) * np.arange(20.0).reshape(4, 5) | (4,5)
triu_k | x | np.triu(x, k=1) | (5,5)
tril_k | x | np.tril(x, k=-1) | (5,5)
triu_plain | x | np.triu(x) | (5,5)
clip_kw | x | np.clip(x, a_min=0.1, a_max=1.1) | (5,5)
clip_pos | x | np.clip(x, -0.5, 0.5) | (5,5)
prod_all | x | np.prod(x) | pos(2,3)
prod_axis0 | x | np.prod(x, axis=0) | pos(2,3)
prod_keep | x | np.prod(x, axis=0, keepdims=True) | pos(2,3)
array_1d_of_scalars | s | np.array([s, s * 1.0, s + 2.5]) | ()
array_2d_of_scalars | s | np.array([[s, s * 1.0, s + 2.5], [s ** 2, s, s / 2.0]]) | ()
array_of_scalar | s | np.array(s) | ()
array_of_arrays | x | np.array([x, 2.0 * x]) | (3,2)
array_nested_arrays | x | np.array([[2 * x, x + 1], [x, x]]) | (3,2)
var_ddof1 | x | np.var(x, ddof=1) | (3,4)
var_axis_keep | x | np.var(x, axis=1, keepdims=True) | (3,4)
std_ddof1_axis | x | np.std(x, axis=1, ddof=1) | (3,4)
std_all | x | np.std(x) | (3,4)
where_mask | x,y | np.where(x > y, x, y) | (4,5) (4,5)
where_const_mask | x,y | np.where(np.arange(20).reshape(4, 5) % 3 == 0, x, y) | (4,5) (4,5)
squeeze_f | x | np.squeeze(x) | (5,1,4)
squeeze_m | x | x.squeeze() | (5,1,4)
squeeze_axis | x | np.squeeze(x, axis=1) | (5,1,4)
repeat_axis1 | x | np.repeat(x, 2, axis=1) | (5,3,4)
repeat_axis0 | x | np.repeat(x, 2, axis=0) | (5,3)
repeat_flat | x | np.repeat(x, 3) | (5,)
tile_1d | x | np.tile(x, 3) | (4,)
expand_dims | x | np.expand_dims(x, 2) | (5,1,4)
expand_dims_neg | x | np.expand_dims(x, -1) * np.ones((5, 4, 3)) | (5,4)
tensordot_2 | s | np.tensordot(s * np.ones((2, 2)), s * np.ones((2, 2)), 2) | ()
tensordot_axes | x,y | np.tensordot(x, y, axes=([1], [0])) | (3,4) (4,5)
tensordot_int1 | x,y | np.tensordot(x, y, 1) | (3,4) (4,5)
multi_index_repeat | x | np.sum(x[[0, 0]]) | (3,)
multi_index_3 | x | np.sum(x[[0, 1, 0]]) | (3,)
dot_of_slices | x | np.dot(x[:2], x[2:]) | (4,)
int_cast_index | x | x[:, :-1][x[:, -1].astype(np.int64)] | intcol(5,10)
nan_to_num | x | np.nan_to_num(x + 0.5) | (4,)
max_equal_values | s | np.max(np.array([s, s])) | ()
maximum_same | s | np.maximum(s, s) | ()
linspace_ends | a,b | np.linspace(a, b, 5) | () ()
astype_f | x | x.astype('float64') | (3,)
abs_u | x | np.abs(x) | pos(4,)
absolute_u | x | np.absolute(x) | pos(4,)
fabs_u | x | np.fabs(x) | pos(4,)
arccosh_u | x | np.arccosh(x + 1.0) | pos(4,)
arcsinh_u | x | np.arcsinh(x) | (4,)
arctanh_u | x | np.arctanh(0.5 * x) | pos(4,)
arcsin_u | x | np.arcsin(0.5 * x) | pos(4,)
arccos_u | x | np.arccos(0.5 * x) | pos(4,)
arctan_u | x | np.arctan(x) | (4,)
arctan2_b | x,y | np.arctan2(x, y) | (4,) pos(4,)
ceil_u | x | np.ceil(x) * x | (4,)
floor_u | x | np.floor(x) * x | (4,)
round_u | x | np.round(x) * x | (4,)
cosh_u | x | np.cosh(x) | (4,)
sinh_u | x | np.sinh(x) | (4,)
deg2rad_u | x | np.deg2rad(x) | (4,)
rad2deg_u | x | np.rad2deg(x) / 50.0 | (4,)
degrees_u | x | np.degrees(x) / 50.0 | (4,)
radians_u | x | np.radians(x) | (4,)
exp2_u | x | np.exp2(x) | (4,)
expm1_u | x | np.expm1(x) | (4,)
log10_u | x | np.log10(x) | pos(4,)
log1p_u | x | np.log1p(x) | pos(4,)
log2_u | x | np.log2(x) | pos(4,)
sign_u | x | np.sign(x) * x | (4,)
square_u | x | np.square(x) | (4,)
tan_u | x | np.tan(x) | pos(4,)
sqrt_u | x | np.sqrt(x) | pos(4,)
cbrt_u | x | np.cbrt(x) | pos(4,)
reciprocal_u | x | np.reciprocal(x) | pos(4,)
negative_u | x | np.negative(x) | (4,)
sinc_u | x | np.sinc(x) | pos(4,)
hypot_b | x,y | np.hypot(x, y) | (4,) (4,)
logaddexp_b | x,y | np.logaddexp(x, y) | (4,) (4,)
logaddexp2_b | x,y | np.logaddexp2(x, y) | (4,) (4,)
remainder_b | x,y | np.remainder(x, y + 1.0) | (4,) pos(4,)
mod_op | x,y | x % (y + 1.0) | (4,) pos(4,)
fmod_b | x,y | np.fmod(x, y + 1.0) | (4,) pos(4,)
true_divide_b | x,y | np.true_divide(x, y) | (4,) pos(4,)
divide_b | x,y | np.divide(x, y) | (4,) pos(4,)
multiply_b | x,y | np.multiply(x, y) | (4,) (4,)
add_b | x,y | np.add(x, y) | (4,) (4,)
subtract_b | x,y | np.subtract(x, y) | (4,) (4,)
power_b | x,y | np.power(x, y) | pos(4,) (4,)
float_power_b | x,y | np.float_power(x, y) | pos(4,) (4,)
pow_op | x,y | x ** y | pos(4,) (4,)
maximum_bcast | x,y | np.maximum(x, y) | (1,4) (3,4)
minimum_bcast | x,y | np.minimum(x, y) | (3,1) (3,4)
fmax_b | x,y | np.fmax(x, y) | (4,) (4,)
sort_1d | x | np.sort(x) * np.arange(7.0) | (7,)
sort_2d | x | np.sort(x, axis=1) * np.arange(12.0).reshape(3, 4) | (3,4)
partition_kth | x | np.partition(x, 3)[3] | (7,)
atleast_1d | s | np.atleast_1d(s) | ()
atleast_2d | x | np.atleast_2d(x) | (4,)
atleast_3d | x | np.atleast_3d(x) | (2,4)
einsum_T | x | np.einsum('ij->ji', x) * np.arange(12.0).reshape(4, 3) | (3,4)
einsum_mm | x,y | np.einsum('ij,jk->ik', x, y) | (2,3) (3,4)
einsum_cov | x,y | np.einsum('ijk,lji->lki', x, y) | (3,4,4) (4,4,3)
einsum_ellipsis | x,y | np.einsum('...jk,...lj->...lk', x, y) | (3,4,4) (3,4,4)
einsum_three | x,y,z | np.einsum('ijk,lji,lli->lki', x, y, z) | (3,4,4) (4,4,3) (4,4,3)
einsum_trace | x | np.einsum('ii', x) | (4,4)
einsum_diag | x | np.einsum('ii->i', x) | (4,4)
trace_3d | x | np.trace(x) | (3,3,4)
diagonal_f | x | np.diagonal(x) | (4,4)
diagonal_m | x | x.diagonal() | (4,5)
kron_b | x,y | np.kron(x, y) | (2,2) (2,3)
inner_b | x,y | np.inner(x, y) | (4,) (4,)
vdot_b | x,y | np.vdot(x, y) | (4,) (4,)
cross_b | x,y | np.cross(x, y) | (3,) (3,)
matmul_b | x,y | np.matmul(x, y) | (3,4) (4,2)
matmul_batched | x,y | x @ y | (2,3,4) (2,4,2)
linalg_inv | x | np.linalg.inv(x + 3 * np.eye(3)) | (3,3)
linalg_det | x | np.linalg.det(x) | (3,3)
linalg_slogdet | x | np.linalg.slogdet(x @ x.T + np.eye(3))[1] | (3,3)
linalg_solve_v | x,b | np.linalg.solve(x + 3 * np.eye(3), b) | (3,3) (3,)
linalg_solve_m | x,b | np.linalg.solve(x + 3 * np.eye(3), b) | (3,3) (3,2)
linalg_cholesky | x | np.linalg.cholesky(x @ x.T + np.eye(3)) | (3,3)
linalg_norm_v | x | np.linalg.norm(x) | (4,)
linalg_norm_m | x | np.linalg.norm(x) | (3,4)
linalg_norm_ord1 | x | np.linalg.norm(x, ord=1) | (4,)
linalg_norm_inf | x | np.linalg.norm(x, ord=np.inf) | (4,)
linalg_norm_axis | x | np.linalg.norm(x, axis=1) | (3,4)
linalg_norm_fro | x | np.linalg.norm(x, 'fro') | (3,4)
linalg_eigh_vals | x | np.linalg.eigh(x + x.T)[0] | (3,3)
linalg_svd_vals | x | np.linalg.svd(x, compute_uv=False) | (3,4)
linalg_pinv | x | np.linalg.pinv(x) | (4,3)
linalg_matrix_power | x | np.linalg.matrix_power(x, 3) | (3,3)
linalg_qr_r | x | np.linalg.qr(x)[1] | (4,3)
linalg_lstsq | x,b | np.linalg.lstsq(x, b, rcond=None)[0] | (5,3) (5,)
special_expit | x | scipy.special.expit(x) | (4,)
special_logit | x | scipy.special.logit(0.2 * x + 0.1) | pos(4,)
special_gammaln | x | scipy.special.gammaln(x) | pos(4,)
special_digamma | x | scipy.special.digamma(x) | pos(4,)
special_gamma | x | scipy.special.gamma(x) | pos(4,)
special_erf | x | scipy.special.erf(x) | (4,)
special_erfc | x | scipy.special.erfc(x) | (4,)
special_erfinv | x | scipy.special.erfinv(0.5 * x) | pos(4,)
special_logsumexp | x | scipy.special.logsumexp(x) | (4,)
special_logsumexp_axis | x | scipy.special.logsumexp(x, axis=1, keepdims=True) | (3,4)
special_softmax | x | scipy.special.softmax(x) | (4,)
special_log_softmax | x | scipy.special.log_softmax(x, axis=1) | (3,4)
special_xlogy | x,y | scipy.special.xlogy(x, y) | (4,) pos(4,)
special_i0 | x | scipy.special.i0(x) | (4,)
special_beta | x,y | scipy.special.betaln(x, y) | pos(4,) pos(4,)
special_psi | x | scipy.special.psi(x) | pos(4,)
special_polygamma | x | scipy.special.polygamma(1, x) | pos(4,)
special_multigammaln | s | scipy.special.multigammaln(s + 3.0, 2) | pos()
stats_norm_pdf | x | scipy.stats.norm.pdf(x) | (4,)
stats_norm_logpdf | x,m | scipy.stats.norm.logpdf(x, m, 2.0) | (4,) (4,)
stats_norm_cdf | x | scipy.stats.norm.cdf(x) | (4,)
stats_norm_logcdf | x | scipy.stats.norm.logcdf(x) | (4,)
stats_t_logpdf | x | scipy.stats.t.logpdf(x, 3.0) | (4,)
stats_gamma_logpdf | x | scipy.stats.gamma.logpdf(x, 2.0) | pos(4,)
stats_beta_logpdf | x | scipy.stats.beta.logpdf(0.3 * x, 2.0, 3.0) | pos(4,)
stats_poisson_logpmf | m | scipy.stats.poisson.logpmf(3, m) | pos(4,)
stats_mvn_logpdf | x | scipy.stats.multivariate_normal.logpdf(x, np.zeros(3), np.eye(3)) | (3,)
stats_dirichlet_logpdf | a | scipy.stats.dirichlet.logpdf(np.array([0.2, 0.3, 0.5]), a) | pos(3,)
math_erf | s | math.erf(s) | ()
math_erfc | s | math.erfc(s) | ()
math_lgamma | s | math.lgamma(s) | pos()
math_gamma | s | math.gamma(s) | pos()
math_hypot | s,t | math.hypot(s, t) | () ()
math_atan2 | s,t | math.atan2(s, t) | () pos()
math_log_base | s | math.log(s, 2.0) | pos()
math_pow | s,t | math.pow(s, t) | pos() ()
math_fsum | x | math.fsum([x[0], x[1]]) | (3,)
builtin_abs | s | abs(s) | pos()
builtin_max | s,t | max(s, t) | () ()
builtin_min3 | s,t | min(s, t, 0.5) | () ()
builtin_pow | s,t | pow(s, t) | pos() ()
builtin_round | s | round(s, 2) * s | ()
np_eye_k | x | x * np.eye(4, 5, k=1) | (4,5)
np_identity | x | x @ np.identity(5) | (4,5)
np_full | s | np.full((3,), s) | ()
np_full_like | x,s | np.full_like(x, s) * x | (3,) ()
np_ones_like | x | np.ones_like(x) * x | (3,)
np_zeros_mul | x | np.zeros((3,)) + x | (3,)
np_arange_f | s | np.arange(4.0) * s | ()
np_stack1 | x,y | np.stack([x, y], axis=1) | (3,) (3,)
np_hstack | x,y | np.hstack([x, y]) | (3,) (2,)
np_vstack | x,y | np.vstack([x, y]) | (3,) (3,)
np_column_stack | x,y | np.column_stack([x, y]) | (3,) (3,)
np_dstack | x,y | np.dstack([x, y]) | (2,3) (2,3)
np_broadcast_to | x | np.broadcast_to(x, (3, 4)) | (4,)
np_swapaxes | x | np.swapaxes(x, 0, 2) | (2,3,4)
np_moveaxis | x | np.moveaxis(x, 0, -1) | (2,3,4)
np_diff | x | np.diff(x) | (6,)
np_diff_2 | x | np.diff(x, n=2, axis=1) | (3,6)
np_convolve | x,y | np.convolve(x, y) | (5,) (3,)
np_correlate | x,y | np.correlate(x, y, 'valid') | (5,) (3,)
np_interp | x | np.interp(x, np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0])) | pos(4,)
np_polyval | p,x | np.polyval(p, x) | (3,) (4,)
np_average_w | x,w | np.average(x, weights=w) | (4,) pos(4,)
np_median | x | np.median(x) | (5,)
np_percentile | x | np.percentile(x, 30.0) | (5,)
np_ptp | x | np.ptp(x) | (5,)
np_nansum | x | np.nansum(x) | (5,)
np_logsumexp_manual_keep | x | np.log(np.sum(np.exp(x - np.max(x, axis=1, keepdims=True)), axis=1)) | (3,4)
np_meshgrid | x,y | np.meshgrid(x, y)[0] * np.meshgrid(x, y)[1] | (3,) (4,)
np_real | x | np.real(x) | (4,)
np_conj | x | np.conj(x) | (4,)
np_heaviside | x | np.heaviside(x, 0.5) * x | (4,)
np_copysign | x,y | np.copysign(x, y) | (4,) (4,)
np_ldexp | x | np.ldexp(x, 2) | (4,)
np_trapz | x | np.trapezoid(x) | (5,)
np_select_like | x | np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v]) | (4,)
np_argsort_gather | x | x[np.argsort(x)] * np.arange(5.0) | (5,)
np_argmax_index | x | x[np.argmax(x)] | (5,)
np_take | x | np.take(x, np.array([0, 2, 2])) | (5,)
np_take_axis | x | np.take(x, np.array([0, 2]), axis=1) | (3,4)
np_take_along | x | np.take_along_axis(x, np.argsort(x, axis=1), axis=1) * np.arange(12.0).reshape(3, 4) | (3,4)
np_put_like_set | x | np.concatenate([x[:2], np.zeros(1), x[3:]]) | (5,)
np_matrix_T_matmul | x | (x.T @ x).sum(axis=0) | (4,3)
np_sum_dtype | x | np.sum(x, dtype=np.float64) | (4,)
np_mean_dtype | x | np.mean(x, axis=0, dtype=np.float64) | (3,4)
np_float64_cast | s | np.float64(s) * 2.0 | ()
np_sum_where_keep | x | x.sum(axis=1, keepdims=True) / x.shape[1] | (3,4)
np_max_method_keep | x | x.max(axis=1, keepdims=True) - x.min() | (3,4)
np_prod_method | x | x.prod(axis=1) | pos(3,4)
np_cumsum_method | x | x.cumsum(axis=1) | (3,4)
np_var_method | x | x.var(axis=0, ddof=1) | (3,4)
np_std_method | x | x.std() | (3,4)
np_dot_method | x,y | x.dot(y) | (3,4) (4,)
np_clip_method | x | x.clip(-0.5, 0.5) | (4,)
np_round_method | x | x.round(1) * x | (4,)
np_repeat_method | x | x.repeat(2) | (3,)
np_trace_method | x | x.trace() | (3,3)
np_conj_method | x | x.conj() | (3,)
np_newaxis | x | x[:, np.newaxis] * x[np.newaxis, :] | (4,)
np_none_index | x | x[None, :, None] * np.ones((2, 1, 3)) | (4,)
np_ellipsis | x | x[..., 0] | (2,3,4)
np_ellipsis_mid | x | x[0, ..., 1:] | (2,3,4)
np_bool_mask | x | x[x > 0.0] | (5,)
np_neg_step | x | x[::-2] | (6,)
np_complex_chain | x | np.abs(np.exp(1j * x)) * x | (4,)
np_trapz_x | y,x | np.trapezoid(np.sin(y), x) | (5,) (5,)
np_nanmean | x | np.nanmean(x * 2.0) | (4,)
ell_last_slice | x | x[..., 1:] * x[..., :-1] | (2,3,4)
ell_two | x | x[..., 1, ::2] | (2,3,4)
"""


def forms():
    """[(name, params, expression, specs)] of `TABLE`."""
    out = []
    for line in TABLE.strip().splitlines():
        name, params, expr, specs = (p.strip() for p in line.split("|"))
        out.append((name, params, expr, specs.split()))
    return out


def module(rows, folder):
    """The forms as functions of a module written in `folder`, imported."""
    lines = ["import math", "import numpy as np", "import scipy.special", "import scipy.stats", ""]
    for name, params, expr, _ in rows:
        lines.append(f"def {name}({params}):\n    return np.sum(np.sin({expr}))\n")
    path = Path(folder) / "jitad_forms_probe.py"
    path.write_text("\n".join(lines))
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("jitad_forms_probe")
    finally:
        sys.path.remove(str(folder))


def argument(spec, rng):
    shape = eval(spec[spec.index("("):]) if "(" in spec else ()
    v = rng.uniform(0.5, 1.5, shape) if spec.startswith("pos") else rng.normal(size=shape)
    if spec.startswith("intcol"):       # + 0.5: away from astype(int)'s steps
        v[:, -1] = rng.integers(0, shape[0], shape[0]) + 0.5
    return float(v) if shape == () else v


def central(f, args, i, eps=1e-5):
    a = args[i]
    if isinstance(a, float):
        up, down = list(args), list(args)
        up[i], down[i] = a + eps, a - eps
        return (f(*up) - f(*down)) / (2 * eps)
    g = np.zeros_like(a)
    for j in np.ndindex(a.shape):
        up = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        down = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        up[i][j] += eps
        down[i][j] -= eps
        g[j] = (f(*up) - f(*down)) / (2 * eps)
    return g


def _outcome(run, check):
    try:
        return "ok" if check(run()) else "WRONG"
    except jitad.JitadError as e:
        return "REFUSED " + str(e).splitlines()[0]
    except Exception as e:                    # noqa: BLE001 -- what the probe reports
        return f"CRASH {type(e).__name__}: {e}".splitlines()[0]


def probe(rows, backend, rng):
    """{name: (eager, compiled, jvp eager, jvp compiled)} outcomes of each form."""
    mod = module(rows, tempfile.mkdtemp(prefix="jitad-forms-"))
    out = {}
    for name, _, _, specs in rows:
        f = getattr(mod, name)
        args = tuple(argument(s, rng) for s in specs)
        try:
            f(*args)
        except Exception as e:                # noqa: BLE001
            out[name] = (f"SPEC {type(e).__name__}: {e}",)
            continue
        wrt = tuple(range(len(args)))
        ref = tuple(central(f, args, i) for i in wrt)

        def right(g):
            g = g if isinstance(g, tuple) else (g,)
            return all(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6)
                       for a, b in zip(g, ref))
        compiled = jitad.differentiable(f, backend=backend)
        res = [_outcome(lambda: jitad.grad(f, wrt=wrt, mode="eager")(*args), right),
               _outcome(lambda: jitad.grad(compiled, wrt=wrt)(*args), right)]
        if res == ["ok", "ok"]:
            tans = tuple(argument(s.replace("pos", "").replace("intcol", ""), rng) for s in specs)
            dot = sum(float(np.sum(np.asarray(a) * b)) for a, b in zip(ref, tans))

            def agrees(out):
                return np.isclose(out[1], dot, rtol=1e-4, atol=1e-6)
            res += [_outcome(lambda: jitad.jvp(f, wrt=wrt, mode="eager")(*args, tangents=tans),
                             agrees),
                    _outcome(lambda: jitad.jvp(compiled, wrt=wrt)(*args, tangents=tans), agrees)]
        out[name] = tuple(res)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tests.forms_probe",
                                description=__doc__.split("\n")[0])
    p.add_argument("--backend", choices=("python", "numba"), default="python")
    p.add_argument("names", nargs="*", help="forms to run (default: every one)")
    a = p.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = [r for r in forms() if not a.names or r[0] in a.names]
    results = probe(rows, a.backend, np.random.default_rng(3))
    labels = ("grad eager", f"grad {a.backend}", "jvp eager", f"jvp {a.backend}")
    right = 0
    for name, res in results.items():
        if all(r == "ok" for r in res) and len(res) == 4:
            right += 1
            continue
        print(f"{name}:")
        for label, r in zip(labels, res):
            print(f"    {label}: {r[:200]}")
    counted = sum(not r[0].startswith("SPEC") for r in results.values())
    print(f"{right} of {counted} forms right in every check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
