"""Audit of issue 12: every function autograd defines a VJP for, against jitad, in both modes.

    python docs/coverage_audit.py              # run every case, rewrite docs/coverage.md
    python docs/coverage_audit.py --json F     # also write the raw results to F
    python docs/coverage_audit.py -k fft       # only the cases whose spelling contains "fft"

Takes: autograd (installed in the development environment), jitad, NumPy, SciPy.
Guarantees: `autograd_functions()` lists autograd's primitives that have a VJP (after
importing autograd.numpy's numpy_vjps, linalg and fft, and autograd.scipy's special, linalg,
signal, integrate and stats modules), by the public name that reaches them; the script
checks that every one of them is a `CASES` entry (or an `INTERNAL` one: autograd's own
helpers), so a new autograd primitive cannot be missed silently. Each case is a real call,
written as a user writes it, run through `jitad.value_and_grad` compiled (the Numba path must
run) and eager, and through `jitad.jvp` in both modes, all against central finite
differences at a random point. The result of each is one word (ok, refused, wrong, error);
docs/coverage.md is the table of them with the notes in `CASES`.
Invariants: nothing here is read by jitad or its tests; the table is regenerated, not edited.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import pkgutil
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("NUMBA_OPT", "1")
os.environ.setdefault("JITAD_CACHE_DIR", tempfile.mkdtemp(prefix="jitad-coverage-cache-"))
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402

SHAPES = {"s": (), "v": (4,), "u": (3,), "w": (5,), "m": (3, 4), "n": (4, 3), "q": (3, 3),
          "t": (2, 3, 4), "b": (3, 4)}
DOMAINS = {"any": (-2.0, 2.0), "pos": (0.5, 2.0), "unit": (-0.9, 0.9), "nz": (0.3, 2.0),
           "gt1": (1.2, 3.0), "p01": (0.1, 0.9)}


@dataclass
class C:
    """One autograd primitive as a user spells it: `expr` over operands given as
    name="shape:domain" (SHAPES letters, DOMAINS names); `autograd` the names autograd
    reaches it by; `note` what the table says besides the status (why it is refused, the
    form that is supported)."""
    autograd: str
    expr: str
    ops: dict
    note: str = ""


def c(autograd, expr, note="", **ops):
    return C(autograd, expr, ops, note)


CASES = [
    # -- numpy: elementwise ----------------------------------------------------------------
    c("np.abs np.absolute", "np.abs(x) + np.absolute(x)", x="v:nz"),
    c("np.arccos np.acos", "np.arccos(x)", x="v:unit"),
    c("np.arccosh np.acosh", "np.arccosh(x)", x="v:gt1"),
    c("np.arcsin np.asin", "np.arcsin(x)", x="v:unit"),
    c("np.arcsinh np.asinh", "np.arcsinh(x)", x="v:any"),
    c("np.arctan np.atan", "np.arctan(x)", x="v:any"),
    c("np.arctan2 np.atan2", "np.arctan2(x, y)", x="v:nz", y="v:nz"),
    c("np.arctanh np.atanh", "np.arctanh(x)", x="v:unit"),
    c("np.add", "np.add(x, y)", x="m:any", y="v:any"),
    c("np.subtract", "np.subtract(x, y)", x="v:any", y="s:any"),
    c("np.multiply", "np.multiply(x, y)", x="m:any", y="v:any"),
    c("np.divide np.true_divide", "np.divide(x, y) + np.true_divide(y, x)", x="v:nz", y="v:nz"),
    c("np.negative", "np.negative(x)", x="v:any"),
    c("np.reciprocal", "np.reciprocal(x)", x="v:nz"),
    c("np.power np.pow", "np.power(x, y)", x="v:pos", y="v:any"),
    c("np.mod np.remainder", "np.mod(x, y) + np.remainder(y, x)", x="v:pos", y="v:pos"),
    c("np.cos", "np.cos(x)", x="v:any"),
    c("np.cosh", "np.cosh(x)", x="v:any"),
    c("np.sin", "np.sin(x)", x="v:any"),
    c("np.sinh", "np.sinh(x)", x="v:any"),
    c("np.tan", "np.tan(x)", x="v:unit"),
    c("np.tanh", "np.tanh(x)", x="v:any"),
    c("np.sinc", "np.sinc(x)", x="v:any"),
    c("np.exp", "np.exp(x)", x="v:any"),
    c("np.exp2", "np.exp2(x)", x="v:any"),
    c("np.expm1", "np.expm1(x)", x="v:any"),
    c("np.log", "np.log(x)", x="v:pos"),
    c("np.log10", "np.log10(x)", x="v:pos"),
    c("np.log1p", "np.log1p(x)", x="v:pos"),
    c("np.log2", "np.log2(x)", x="v:pos"),
    c("np.logaddexp", "np.logaddexp(x, y)", x="v:any", y="v:any"),
    c("np.logaddexp2", "np.logaddexp2(x, y)", x="v:any", y="v:any"),
    c("np.sqrt", "np.sqrt(x)", x="v:pos"),
    c("np.square", "np.square(x)", x="v:any"),
    c("np.fabs", "np.fabs(x)", x="v:nz"),
    c("np.deg2rad", "np.deg2rad(x)", x="v:any"),
    c("np.degrees", "np.degrees(x)", x="v:any"),
    c("np.rad2deg", "np.rad2deg(x)", x="v:any"),
    c("np.radians", "np.radians(x)", x="v:any"),
    c("np.hypot", "np.hypot(x, y)", x="v:nz", y="v:nz"),
    c("np.maximum", "np.maximum(x, y)", x="v:any", y="v:any"),
    c("np.minimum", "np.minimum(x, y)", x="v:any", y="v:any"),
    c("np.fmax", "np.fmax(x, y)", x="v:any", y="v:any"),
    c("np.fmin", "np.fmin(x, y)", x="v:any", y="v:any"),
    c("np.clip", "np.clip(x, -0.5, 0.5)", x="v:any"),
    c("np.where", "np.where(x > 0.0, x, y)", x="v:nz", y="v:any"),
    c("np.nan_to_num", "np.nan_to_num(x)", x="v:any"),
    # -- numpy: reductions and scans --------------------------------------------------------
    c("np.sum", "np.sum(x, axis=(0, 2))", x="t:any"),
    c("np.mean", "np.mean(x, axis=0)", x="m:any"),
    c("np.var", "np.var(x, axis=1)", x="m:any"),
    c("np.std", "np.std(x)", x="v:any"),
    c("np.prod", "np.prod(x)", x="v:any"),
    c("np.max", "np.max(x, axis=1)", x="m:any"),
    c("np.min", "np.min(x, axis=0)", x="m:any"),
    c("np.amax", "np.amax(x)", x="v:any"),
    c("np.amin", "np.amin(x)", x="v:any"),
    c("np.linalg.norm", "np.linalg.norm(x) + np.linalg.norm(y, axis=1)", x="v:any", y="m:any"),
    c("np.cumsum", "np.cumsum(x)", x="v:any"),
    c("np.diff", "np.diff(x)", x="v:any"),
    c("np.gradient", "np.gradient(x)", x="v:any"),
    c("np.sort", "np.sort(x)", x="v:any"),
    c("np.partition", "np.partition(x, 1)", x="v:any",
      note="`np.partition(x, kth)` of a vector, `kth` a constant int"),
    # -- numpy: products ---------------------------------------------------------------------
    c("np.dot", "np.dot(x, y)", x="m:any", y="v:any"),
    c("np.matmul", "np.matmul(x, y)", x="m:any", y="n:any"),
    c("np.inner", "np.inner(x, y)", x="v:any", y="v:any"),
    c("np.outer", "np.outer(x, y)", x="u:any", y="v:any"),
    c("np.tensordot", "np.tensordot(x, y, axes=1)", x="m:any", y="v:any"),
    c("np.einsum", "np.einsum('ij,j->i', x, y)", x="m:any", y="v:any"),
    c("np.kron", "np.kron(x, y)", x="u:any", y="v:any"),
    c("np.cross", "np.cross(x, y)", x="u:any", y="u:any"),
    c("np.trace", "np.trace(x)", x="q:any"),
    # -- numpy: shapes, copies, creation -----------------------------------------------------
    c("np.reshape", "np.reshape(x, (4, 3))", x="m:any"),
    c("np.ravel", "np.ravel(x)", x="m:any"),
    c("np.squeeze", "np.squeeze(x[:, None], axis=1)", x="v:any"),
    c("np.expand_dims", "np.expand_dims(x, 1)", x="v:any"),
    c("np.transpose np.permute_dims", "np.transpose(x)", x="m:any"),
    c("np.swapaxes", "np.swapaxes(x, 0, 1)", x="m:any"),
    c("np.moveaxis", "np.moveaxis(x, 0, -1)", x="t:any"),
    c("np.rollaxis", "np.rollaxis(x, 2)", x="t:any"),
    c("np.broadcast_to", "np.broadcast_to(x, (3, 4))", x="v:any"),
    c("np.atleast_1d", "np.atleast_1d(x)", x="s:any"),
    c("np.atleast_2d", "np.atleast_2d(x)", x="v:any"),
    c("np.atleast_3d", "np.atleast_3d(x)", x="m:any"),
    c("np.repeat", "np.repeat(x, 2)", x="v:any"),
    c("np.tile", "np.tile(x, 2)", x="v:any"),
    c("np.roll", "np.roll(x, 1)", x="v:any"),
    c("np.rot90", "np.rot90(x)", x="m:any"),
    c("np.fliplr", "np.fliplr(x)", x="m:any"),
    c("np.flipud", "np.flipud(x)", x="v:any"),
    c("np.pad", "np.pad(x, 1)", x="v:any"),
    c("np.diag", "np.diag(x) + np.sum(np.diag(y))", x="q:any", y="u:any"),
    c("np.diagonal", "np.diagonal(x)", x="m:any"),
    c("np.tril", "np.tril(x)", x="m:any"),
    c("np.triu", "np.triu(x)", x="m:any"),
    c("np.full", "np.full((2, 3), x)", x="s:any"),
    c("np.linspace", "np.linspace(x, y, 5)", x="s:any", y="s:any"),
    c("np.array (array_from_args)", "np.array([x, y * x])", x="s:any", y="s:any"),
    c("np.concatenate (concatenate_args)", "np.concatenate([x, y])", x="v:any", y="u:any"),
    c("x.astype (astype)", "x.astype(np.float64) * x", x="v:any"),
    c("np.split", "a, b = np.split(x, 2)\na * b", x="v:any"),
    c("np.array_split", "a, b = np.array_split(x, 2)\na[:2] * b", x="w:any"),
    c("np.hsplit", "a, b = np.hsplit(x, 2)\na * b", x="m:any"),
    c("np.vsplit", "a, b = np.vsplit(x, 2)\na * b", x="n:any"),
    c("np.dsplit", "a, b = np.dsplit(x, 2)\na * b", x="t:any"),
    c("x[...] (ArrayBox.__getitem__)", "x[1:3] * x[0]", x="v:any"),
    c("tuple/list indexing (container_take)", "p = [x, y]\np[0] * p[1]", x="v:any", y="v:any",
      note="a list the function builds, indexed; a tuple of arrays made in the function is "
           "only unpacked (`a, b = p`), and tuples, lists and dicts given as arguments are "
           "indexed with constants (`params[0]`)"),
    # -- numpy: complex values ---------------------------------------------------------------
    c("np.real", "np.real(x) + np.real(x + 1j * y)", x="v:any", y="v:any"),
    c("np.imag", "np.imag(x) + np.imag(x * y + 1j * y)", x="v:any", y="v:any"),
    c("np.conj np.conjugate", "np.conj(x) + np.real(np.conj(x + 1j * y) * (x - 2j * y))",
      x="v:any", y="v:any"),
    c("np.angle", "np.angle(x + 1j * y)", x="v:nz", y="v:nz"),
    c("np.real_if_close", "np.real_if_close(x)", x="v:any",
      note="of a real value (of a complex one its type would depend on the values: refused)"),
    c("np.fft.fft", "np.abs(np.fft.fft(x)) ** 2", x="v:any"),
    c("np.fft.ifft", "np.real(np.fft.ifft(x)) + np.imag(np.fft.ifft(x))", x="v:any"),
    c("np.fft.rfft", "np.abs(np.fft.rfft(x)) ** 2", x="w:any"),
    c("np.fft.irfft", "np.fft.irfft(x + 1j * y)", x="u:any", y="u:any"),
    c("np.fft.fft2", "np.abs(np.fft.fft2(x))", x="m:any"),
    c("np.fft.ifft2", "np.real(np.fft.ifft2(x))", x="m:any"),
    c("np.fft.rfft2", "np.abs(np.fft.rfft2(x))", x="m:any"),
    c("np.fft.irfft2", "np.fft.irfft2(x + 1j * y)", x="q:any", y="q:any"),
    c("np.fft.fftn", "np.abs(np.fft.fftn(x))", x="m:any"),
    c("np.fft.ifftn", "np.real(np.fft.ifftn(x))", x="m:any"),
    c("np.fft.rfftn", "np.abs(np.fft.rfftn(x))", x="m:any"),
    c("np.fft.irfftn", "np.fft.irfftn(x + 1j * y)", x="q:any", y="q:any"),
    c("np.fft.fftshift", "np.fft.fftshift(x)", x="w:any"),
    c("np.fft.ifftshift", "np.fft.ifftshift(x)", x="w:any"),
    # -- numpy.linalg ------------------------------------------------------------------------
    c("np.linalg.cholesky", "np.linalg.cholesky(x @ x.T + np.eye(3))", x="m:any"),
    c("np.linalg.det", "np.linalg.det(x)", x="q:any"),
    c("np.linalg.slogdet", "s, l = np.linalg.slogdet(x)\nl", x="q:any"),
    c("np.linalg.inv", "np.linalg.inv(x + 3.0 * np.eye(3))", x="q:any"),
    c("np.linalg.solve", "np.linalg.solve(x + 3.0 * np.eye(3), y)", x="q:any", y="u:any"),
    c("np.linalg.pinv", "np.linalg.pinv(x)", x="m:any"),
    c("np.linalg.eigh", "w, V = np.linalg.eigh(x + x.T)\nw", x="q:any"),
    c("np.linalg.eig", "w, V = np.linalg.eig(x)\nnp.real(w) + np.imag(w) ** 2 + np.abs(V[0])",
      x="q:any",
      note="complex results always (NumPy's are real arrays when every eigenvalue is real); "
           "distinct eigenvalues; eigenvectors in LAPACK's gauge (norm 1, largest entry real)"),
    c("np.linalg.svd", "U, s, Vh = np.linalg.svd(x, full_matrices=False)\ns", x="m:any"),
    # -- scipy.linalg, scipy.signal, scipy.integrate -----------------------------------------
    c("scipy.linalg.solve_triangular",
      "scipy.linalg.solve_triangular(x + 3.0 * np.eye(3), y, lower=True)", x="q:any", y="u:any"),
    c("scipy.linalg.sqrtm", "scipy.linalg.sqrtm(x @ x.T + np.eye(3))", x="q:any"),
    c("scipy.linalg.solve_sylvester",
      "scipy.linalg.solve_sylvester(x + 3.0 * np.eye(3), y + 3.0 * np.eye(3), z)",
      x="q:any", y="q:any", z="q:any"),
    c("scipy.linalg.solve_banded",
      "scipy.linalg.solve_banded((1, 1), x + np.array([[0.0], [5.0], [0.0]]), y)",
      x="b:any", y="v:any"),
    c("scipy.signal.convolve", "scipy.signal.convolve(x, y)", x="v:any", y="u:any"),
    c("scipy.integrate.odeint",
      "def rhs(u, t):\n    return -y * u\nscipy.integrate.odeint(rhs, x, np.linspace(0.0, 1.0, 5))",
      x="u:any", y="s:pos",
      note="SciPy's solver runs the user's right-hand side from compiled LSODA code jitad cannot "
           "see, and a solver of jitad's own (RK45, LSODA) would not give SciPy's numbers: "
           "refused in both modes with a `JitadError` that suggests writing the integrator as a "
           "loop (a fixed-step RK4, adaptive steps in a `while`), which jitad differentiates "
           "(tests/test_coverage.py runs that suggestion); `solve_ivp` likewise"),
    # -- scipy.special -----------------------------------------------------------------------
    c("scipy.special.beta", "scipy.special.beta(x, y)", x="v:pos", y="v:pos"),
    c("scipy.special.betaln", "scipy.special.betaln(x, y)", x="v:pos", y="v:pos"),
    c("scipy.special.betainc", "scipy.special.betainc(2.0, 3.0, x)", x="v:p01"),
    c("scipy.special.digamma", "scipy.special.digamma(x)", x="v:pos"),
    c("scipy.special.psi", "scipy.special.psi(x)", x="v:pos"),
    c("scipy.special.polygamma", "scipy.special.polygamma(1, x)", x="v:pos"),
    c("scipy.special.gamma", "scipy.special.gamma(x)", x="v:pos"),
    c("scipy.special.gammaln", "scipy.special.gammaln(x)", x="v:pos"),
    c("scipy.special.rgamma", "scipy.special.rgamma(x)", x="v:pos"),
    c("scipy.special.gammasgn", "scipy.special.gammasgn(x) * x", x="v:nz"),
    c("scipy.special.gammainc", "scipy.special.gammainc(1.5, x)", x="v:pos"),
    c("scipy.special.gammaincc", "scipy.special.gammaincc(1.5, x)", x="v:pos"),
    c("scipy.special.multigammaln", "scipy.special.multigammaln(x + 2.0, 3)", x="s:pos"),
    c("scipy.special.erf", "scipy.special.erf(x)", x="v:any"),
    c("scipy.special.erfc", "scipy.special.erfc(x)", x="v:any"),
    c("scipy.special.erfinv", "scipy.special.erfinv(x)", x="v:unit"),
    c("scipy.special.erfcinv", "scipy.special.erfcinv(x + 1.0)", x="v:unit"),
    c("scipy.special.expit", "scipy.special.expit(x)", x="v:any"),
    c("scipy.special.logit", "scipy.special.logit(x)", x="v:p01"),
    c("scipy.special.logsumexp", "scipy.special.logsumexp(x)", x="v:any"),
    c("scipy.special.i0", "scipy.special.i0(x)", x="v:any"),
    c("scipy.special.i1", "scipy.special.i1(x)", x="v:any"),
    c("scipy.special.iv", "scipy.special.iv(1.5, x) + scipy.special.iv(2, x)", x="v:pos"),
    c("scipy.special.ive", "scipy.special.ive(0.5, x)", x="v:pos"),
    c("scipy.special.j0", "scipy.special.j0(x)", x="v:any"),
    c("scipy.special.j1", "scipy.special.j1(x)", x="v:any"),
    c("scipy.special.jn", "scipy.special.jn(2, x) + scipy.special.jv(1.5, x)", x="v:pos"),
    c("scipy.special.y0", "scipy.special.y0(x)", x="v:pos"),
    c("scipy.special.y1", "scipy.special.y1(x)", x="v:pos"),
    c("scipy.special.yn", "scipy.special.yn(2, x)", x="v:pos"),
    # -- scipy.stats -------------------------------------------------------------------------
    c("scipy.stats.norm.cdf", "scipy.stats.norm.cdf(x, y, z)", x="v:any", y="s:any", z="s:pos"),
    c("scipy.stats.norm.logcdf", "scipy.stats.norm.logcdf(x, y, z)", x="v:any", y="s:any",
      z="s:pos"),
    c("scipy.stats.norm.pdf", "scipy.stats.norm.pdf(x, y, z)", x="v:any", y="s:any", z="s:pos"),
    c("scipy.stats.norm.logpdf", "scipy.stats.norm.logpdf(x, y, z)", x="v:any", y="s:any",
      z="s:pos"),
    c("scipy.stats.norm.sf", "scipy.stats.norm.sf(x, y, z)", x="v:any", y="s:any", z="s:pos"),
    c("scipy.stats.norm.logsf", "scipy.stats.norm.logsf(x, y, z)", x="v:any", y="s:any",
      z="s:pos"),
    c("scipy.stats.t.pdf", "scipy.stats.t.pdf(x, y, z, w)", x="v:any", y="s:pos", z="s:any",
      w="s:pos"),
    c("scipy.stats.t.logpdf", "scipy.stats.t.logpdf(x, y, z, w)", x="v:any", y="s:pos",
      z="s:any", w="s:pos"),
    c("scipy.stats.t.cdf", "scipy.stats.t.cdf(x, 3.0, y, z)", x="v:any", y="s:any", z="s:pos"),
    c("scipy.stats.t.logcdf", "scipy.stats.t.logcdf(x, 3.0, y, z)", x="v:any", y="s:any",
      z="s:pos"),
    c("scipy.stats.gamma.pdf", "scipy.stats.gamma.pdf(x, y)", x="v:pos", y="s:pos"),
    c("scipy.stats.gamma.logpdf", "scipy.stats.gamma.logpdf(x, y)", x="v:pos", y="s:pos"),
    c("scipy.stats.gamma.cdf", "scipy.stats.gamma.cdf(x, 2.0)", x="v:pos"),
    c("scipy.stats.beta.pdf", "scipy.stats.beta.pdf(x, y, z)", x="v:p01", y="s:pos", z="s:pos"),
    c("scipy.stats.beta.logpdf", "scipy.stats.beta.logpdf(x, y, z)", x="v:p01", y="s:pos",
      z="s:pos"),
    c("scipy.stats.beta.cdf", "scipy.stats.beta.cdf(x, 2.0, 3.0)", x="v:p01"),
    c("scipy.stats.chi2.pdf", "scipy.stats.chi2.pdf(x, y)", x="v:pos", y="s:gt1"),
    c("scipy.stats.chi2.logpdf", "scipy.stats.chi2.logpdf(x, y)", x="v:pos", y="s:gt1"),
    c("scipy.stats.chi2.cdf", "scipy.stats.chi2.cdf(x, 3.0)", x="v:pos"),
    c("scipy.stats.poisson.pmf", "scipy.stats.poisson.pmf(3.0, x)", x="v:pos"),
    c("scipy.stats.poisson.logpmf", "scipy.stats.poisson.logpmf(3.0, x)", x="v:pos"),
    c("scipy.stats.poisson.cdf", "scipy.stats.poisson.cdf(3.0, x)", x="v:pos"),
    c("scipy.stats.dirichlet.logpdf",
      "scipy.stats.dirichlet.logpdf(np.exp(x) / np.sum(np.exp(x)), y)", x="v:any", y="v:pos"),
    c("scipy.stats.dirichlet.pdf",
      "scipy.stats.dirichlet.pdf(np.exp(x) / np.sum(np.exp(x)), y)", x="v:any", y="v:pos"),
    c("scipy.stats.multivariate_normal.logpdf",
      "scipy.stats.multivariate_normal.logpdf(x, y, z @ z.T + np.eye(3))", x="u:any", y="u:any",
      z="q:any"),
    c("scipy.stats.multivariate_normal.pdf",
      "scipy.stats.multivariate_normal.pdf(x, y, z @ z.T + np.eye(3))", x="u:any", y="u:any",
      z="q:any"),
    c("scipy.stats.multivariate_normal.entropy",
      "scipy.stats.multivariate_normal.entropy(y, z @ z.T + np.eye(3))", y="u:any", z="q:any"),
]

# autograd's primitives that are its own helpers: what a user writes to reach them
INTERNAL = {
    "np.array_from_args": "np.array([...]) (the `np.array` row)",
    "np.concatenate_args": "np.concatenate (the `np.concatenate` row)",
    "np.astype": "x.astype (the `x.astype` row)",
    "np._original_where": "np.where (the `np.where` row)",
    "np.linalg._primitive_norm": "np.linalg.norm (its row)",
    "np.make_diagonal": "the adjoint of np.diag / np.diagonal (autograd's helper)",
    "np.fft.truncate_pad": "n= of autograd's FFTs (its helper)",
}

_WRAPPED = {"mean", "var", "std", "__getitem__"}     # autograd primitives not reached by name


def autograd_functions():
    """{public name: autograd primitive} of every autograd primitive with a VJP that a module
    of autograd exposes by name (aliases share one object)."""
    import autograd.numpy as anp
    import autograd.numpy.fft  # noqa: F401
    import autograd.numpy.linalg  # noqa: F401
    import autograd.numpy.numpy_vjps  # noqa: F401
    import autograd.scipy.integrate
    import autograd.scipy.linalg
    import autograd.scipy.signal
    import autograd.scipy.special
    import autograd.scipy.stats as st
    from autograd.core import primitive_vjps
    mods = {"np": anp, "np.linalg": anp.linalg, "np.fft": anp.fft,
            "scipy.special": autograd.scipy.special, "scipy.linalg": autograd.scipy.linalg,
            "scipy.signal": autograd.scipy.signal, "scipy.integrate": autograd.scipy.integrate}
    for m in pkgutil.iter_modules(st.__path__):
        mods[f"scipy.stats.{m.name}"] = importlib.import_module(f"autograd.scipy.stats.{m.name}")
    out = {}
    for prefix, mod in mods.items():
        for name in dir(mod):
            obj = getattr(mod, name)
            try:
                known = obj in primitive_vjps
            except TypeError:
                known = False
            if known and not (prefix.startswith("scipy.stats") and name in (
                    "beta", "digamma", "gamma", "psi")):    # scipy.special's, imported there
                out[f"{prefix}.{name}"] = obj
    return out


def _check_listed():
    names = set(autograd_functions())
    listed = {n for case in CASES for n in case.autograd.split() if "(" not in n} | set(INTERNAL)
    listed |= {case.autograd.split(" (")[1].rstrip(")") for case in CASES if " (" in case.autograd}
    missing = sorted(n for n in names - listed if n.split(".")[-1] not in _WRAPPED)
    if missing:
        raise SystemExit(f"autograd primitives with no case: {', '.join(missing)}")


# ------------------------------------------------------------------------------------------
# running a case
# ------------------------------------------------------------------------------------------

def _draw(rng, spec):
    code, dom = spec.split(":")
    lo, hi = DOMAINS[dom]
    x = rng.uniform(lo, hi, size=SHAPES[code])
    if dom == "nz":
        x = x * rng.choice([-1.0, 1.0], size=SHAPES[code])
    return float(x) if SHAPES[code] == () else x


def _source(cases):
    out = ["import numpy as np", "import scipy.special", "import scipy.stats",
           "import scipy.linalg", "import scipy.signal", "import scipy.integrate", ""]
    for k, case in enumerate(cases):
        lines = case.expr.split("\n")
        params = list(case.ops) + ["w_"]
        out.append(f"def f_{k}({', '.join(params)}):")
        out += ["    " + ln for ln in lines[:-1]]
        out.append(f"    return np.sum(({lines[-1]}) * w_)")
        out.append("")
    return "\n".join(out)


def _plain(case, args):
    import scipy.integrate  # noqa: F401
    import scipy.linalg  # noqa: F401
    import scipy.signal  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401
    ns = {"np": np, "scipy": sys.modules["scipy"], **dict(zip(case.ops, args))}
    lines = case.expr.split("\n")
    exec("\n".join(lines[:-1]), ns)
    return eval(lines[-1], ns)


def _fd(f, args, i, eps=1e-4):
    """4-point central differences of f along each entry of argument i."""
    x = np.array(args[i], dtype=float)
    out = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        vals = []
        for s in (eps, -eps, 2 * eps, -2 * eps):
            a = list(args)
            y = x.copy()
            y[k] += s
            a[i] = float(y) if np.ndim(x) == 0 else y
            vals.append(float(f(*a)))
        out[k] = (8.0 * (vals[0] - vals[1]) - (vals[2] - vals[3])) / (12.0 * eps)
    return float(out) if np.ndim(x) == 0 else out


def _close(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= 1e-6 * scale))


def _short(e):
    text = str(e).strip().splitlines()
    first = text[0] if text else type(e).__name__
    root = str(HERE.parent) + os.sep
    return first.replace(root, "")[:300]


def run_case(case, fn):
    """{check: (status, detail)} of one case: grad compiled/eager, jvp compiled/eager."""
    import jitad
    rng = np.random.default_rng(zlib.crc32(case.expr.encode()))
    args = [_draw(rng, spec) for spec in case.ops.values()]
    out = {}
    try:
        ref = _plain(case, args)
    except Exception as e:          # noqa: BLE001  (the case itself is wrong)
        return {"plain": ("error", _short(e))}
    w = rng.uniform(-1.5, 1.5, size=np.shape(ref))
    full = args + [float(w) if np.ndim(w) == 0 else w]
    wrt = tuple(range(len(args)))
    fd = [_fd(fn, full, i) for i in wrt]
    for mode in ("compiled", "eager"):
        try:
            vg = jitad.value_and_grad(fn, wrt=wrt, mode=mode)
            value, grads = vg(*full)
            ran = mode == "eager" or vg.specialize(*full).compiled_ran
            good = _close(value, fn(*full)) and all(_close(g, r) for g, r in zip(grads, fd))
            out[f"grad {mode}"] = ("ok" if good and ran else "wrong" if ran else "not compiled",
                                   "" if good else f"got {grads}, fd {fd}")
        except jitad.JitadError as e:
            out[f"grad {mode}"] = ("refused", _short(e))
        except Exception as e:      # noqa: BLE001
            out[f"grad {mode}"] = ("error", f"{type(e).__name__}: {_short(e)}")
        try:
            v = tuple(rng.normal(size=np.shape(a)) if np.ndim(a) else float(rng.normal())
                      for a in args)
            jv = jitad.jvp(fn, wrt=wrt, mode=mode)
            _, tan = jv(*full, tangents=v)
            want = sum(float(np.sum(np.asarray(r) * d)) for r, d in zip(fd, v))
            good = _close(tan, want)
            out[f"jvp {mode}"] = ("ok" if good else "wrong", "" if good else f"{tan} != {want}")
        except jitad.JitadError as e:
            out[f"jvp {mode}"] = ("refused", _short(e))
        except Exception as e:      # noqa: BLE001
            out[f"jvp {mode}"] = ("error", f"{type(e).__name__}: {_short(e)}")
    return out


def run(cases):
    tmp = Path(tempfile.mkdtemp(prefix="jitad-coverage-"))
    path = tmp / "coverage_cases.py"
    path.write_text(_source(cases))
    spec = importlib.util.spec_from_file_location("coverage_cases", str(path))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["coverage_cases"] = mod
    spec.loader.exec_module(mod)
    results = {}
    for k, case in enumerate(cases):
        t0 = time.perf_counter()
        results[case.autograd] = run_case(case, getattr(mod, f"f_{k}"))
        verdict = _verdict(results[case.autograd])
        print(f"{time.perf_counter() - t0:6.1f}s  {verdict:10s} {case.autograd}", flush=True)
    return results


def _verdict(res):
    words = {s for s, _ in res.values()}
    if words == {"ok"}:
        return "ok"
    for w in ("wrong", "error", "not compiled", "refused"):
        if w in words:
            return w
    return "?"


# ------------------------------------------------------------------------------------------
# the table
# ------------------------------------------------------------------------------------------

# cases that worked in all four checks before issue 12's coverage change (its first audit; the
# list indexing row's call was a tuple then, refused then as now, and its list form checked)
BEFORE = {
    'tuple/list indexing (container_take)',     # the list form worked before (checked)
    'np.abs np.absolute',
    'np.add',
    'np.amax',
    'np.amin',
    'np.arccos np.acos',
    'np.arccosh np.acosh',
    'np.arcsin np.asin',
    'np.arcsinh np.asinh',
    'np.arctan np.atan',
    'np.arctan2 np.atan2',
    'np.arctanh np.atanh',
    'np.array (array_from_args)',
    'np.array_split',
    'np.atleast_1d',
    'np.atleast_2d',
    'np.atleast_3d',
    'np.broadcast_to',
    'np.clip',
    'np.concatenate (concatenate_args)',
    'np.cos',
    'np.cosh',
    'np.cross',
    'np.cumsum',
    'np.deg2rad',
    'np.degrees',
    'np.diag',
    'np.diagonal',
    'np.diff',
    'np.divide np.true_divide',
    'np.dot',
    'np.einsum',
    'np.exp',
    'np.exp2',
    'np.expand_dims',
    'np.expm1',
    'np.fabs',
    'np.fliplr',
    'np.flipud',
    'np.fmax',
    'np.fmin',
    'np.full',
    'np.gradient',
    'np.hypot',
    'np.inner',
    'np.kron',
    'np.linalg.cholesky',
    'np.linalg.det',
    'np.linalg.eigh',
    'np.linalg.inv',
    'np.linalg.norm',
    'np.linalg.pinv',
    'np.linalg.slogdet',
    'np.linalg.solve',
    'np.linalg.svd',
    'np.linspace',
    'np.log',
    'np.log10',
    'np.log1p',
    'np.log2',
    'np.logaddexp',
    'np.logaddexp2',
    'np.max',
    'np.maximum',
    'np.mean',
    'np.min',
    'np.minimum',
    'np.mod np.remainder',
    'np.moveaxis',
    'np.multiply',
    'np.nan_to_num',
    'np.negative',
    'np.outer',
    'np.pad',
    'np.power np.pow',
    'np.prod',
    'np.rad2deg',
    'np.radians',
    'np.ravel',
    'np.reciprocal',
    'np.repeat',
    'np.reshape',
    'np.roll',
    'np.rollaxis',
    'np.rot90',
    'np.sin',
    'np.sinc',
    'np.sinh',
    'np.sort',
    'np.split',
    'np.sqrt',
    'np.square',
    'np.squeeze',
    'np.std',
    'np.subtract',
    'np.sum',
    'np.swapaxes',
    'np.tan',
    'np.tanh',
    'np.tensordot',
    'np.tile',
    'np.trace',
    'np.transpose np.permute_dims',
    'np.tril',
    'np.triu',
    'np.var',
    'np.where',
    'scipy.special.beta',
    'scipy.special.betaln',
    'scipy.special.digamma',
    'scipy.special.erf',
    'scipy.special.erfc',
    'scipy.special.erfcinv',
    'scipy.special.erfinv',
    'scipy.special.expit',
    'scipy.special.gamma',
    'scipy.special.gammaln',
    'scipy.special.i0',
    'scipy.special.i1',
    'scipy.special.logit',
    'scipy.special.logsumexp',
    'scipy.special.multigammaln',
    'scipy.special.polygamma',
    'scipy.special.psi',
    'scipy.special.rgamma',
    'scipy.stats.beta.logpdf',
    'scipy.stats.beta.pdf',
    'scipy.stats.gamma.logpdf',
    'scipy.stats.gamma.pdf',
    'scipy.stats.multivariate_normal.logpdf',
    'scipy.stats.norm.cdf',
    'scipy.stats.norm.logcdf',
    'scipy.stats.norm.logpdf',
    'scipy.stats.norm.pdf',
    'scipy.stats.poisson.logpmf',
    'scipy.stats.poisson.pmf',
    'scipy.stats.t.logpdf',
    'scipy.stats.t.pdf',
    'x[...] (ArrayBox.__getitem__)',
}


def table(cases, results):
    rows = ["| autograd | as called here | jitad | notes |", "|---|---|---|---|"]
    for case in cases:
        res = results.get(case.autograd)
        if res is None:
            continue
        verdict = _verdict(res)
        if verdict == "ok":
            status = "supported" if case.autograd in BEFORE else "added (this change)"
        elif verdict == "refused":
            status = "refused"
        else:
            status = f"**{verdict}**"
        detail = case.note
        if verdict != "ok" and not detail:
            detail = "; ".join(f"{k}: {d}" for k, (s, d) in res.items() if s != "ok")[:300]
        names = ", ".join(f"`{n}`" for n in case.autograd.split(" (")[0].split())
        expr = "; ".join(ln.strip() for ln in case.expr.split("\n")).replace("|", "\\|")
        rows.append(f"| {names} | `{expr}` | {status} | {detail.replace('|', chr(92) + '|')} |")
    return "\n".join(rows)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-write", action="store_true")
    opts = ap.parse_args(argv)
    _check_listed()
    cases = [c_ for c_ in CASES if opts.k is None or opts.k in c_.autograd + c_.expr]
    results = run(cases)
    if opts.json:
        Path(opts.json).write_text(json.dumps(results, indent=1))
    if not opts.no_write and opts.k is None:
        template = (HERE / "coverage.md.in").read_text()
        (HERE / "coverage.md").write_text(template.replace("{{TABLE}}", table(cases, results)))
        print("wrote docs/coverage.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
