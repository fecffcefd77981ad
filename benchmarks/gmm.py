"""Workload 10: ADBench's Gaussian mixture model objective with a Wishart prior (Srajer, Baydin,
Fitzgibbon 2018), objective + gradient wrt (alphas, means, icf), n = 1,000 points.

The objective, as the paper defines it (written here in plain NumPy from those definitions):

    log p = -n d/2 log(2 pi) + sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2)
            - n logsumexp(alpha) + log_wishart_prior(Q, gamma, m)

with Q_k = diag(exp(q_k)) + L_k lower-triangular: icf[k, :d] = q_k (the log-diagonal), icf[k, d:]
the d(d-1)/2 entries below the diagonal, column by column; the Wishart prior is
sum_k (gamma^2/2 (|diag Q_k|^2 + |L_k|^2) - m sum(q_k)) - K C(d, m, gamma) (C a constant:
the log normalizer with the multivariate log-gamma function). Synthetic data of ADBench's
shapes: alphas ~ N(0, 1), means and x ~ U(0, 1), icf ~ N(0, 0.1^2), gamma = 1, m = 0.

One plain source (`gmm_objective` and its helpers) runs in every system, rebound with
`common.rebind_all` (np -> autograd.numpy, a torch shim, jax.numpy). L_k is gathered from the
padded icf through a (d, d) index matrix (`tri_index`, plain NumPy, static in every system);
ADBench's own construction (each column a `np.concatenate` of j + 1 zeros and a slice of icf,
in a loop, then `np.stack`) once got a wrong gradient from jitad's compiled mode (the
concatenate's adjoint read the zero block's size from the last iteration; fixed, regression
`concat_parts_varying_1d` in tests/correctness_funcs.py); the gather -- an equally plain NumPy
formulation -- is kept, so every system runs the same source as before.

The hand-written Numba gradient (the reference) is backprop by hand with three GEMMs per
component (the same products the autodiff systems run). Every other system's value and
gradients are compared with it (rtol 1e-9); it is checked against central differences.
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "gmm"
TITLE = "ADBench GMM objective with Wishart prior, n = 1,000: objective + gradient"
N_POINTS = 1000
# (d, K): a representative subset of ADBench's d in {2, 10, 20, 32, 64}, K in {5, 10, 25}
SIZES = [(2, 5), (10, 10), (20, 25), (32, 5), (64, 10), (64, 25)]
QUICK_SIZES = [(2, 5), (10, 5)]
QUICK_POINTS = 200
WRT = (0, 1, 2)
GAMMA, WISHART_M = 1.0, 0
COMPILE_GOALS = {"cold_s": 3.0, "cached_s": 0.3}


# ---------------------------------------------------------------------------
# the objective, as a NumPy user writes it from the paper
# ---------------------------------------------------------------------------
def logsumexp(v):
    m = np.max(v)
    return np.log(np.sum(np.exp(v - m))) + m


def logsumexp_rows(a):
    m = np.max(a, axis=1)
    return np.log(np.sum(np.exp(a - m.reshape((a.shape[0], 1))), axis=1)) + m


def tri_index(d):
    """(d, d) positions in the zero-padded icf[:, d-1:] of each entry below the diagonal
    (column by column, ADBench's order); 0 (the padding zero) on and above the diagonal."""
    idx = np.zeros((d, d), np.int64)
    p = 1
    for j in range(d):
        for i in range(j + 1, d):
            idx[i, j] = p
            p += 1
    return idx


def make_L(icf, d):
    """(K, d, d): every component's strictly lower-triangular part."""
    K = icf.shape[0]
    padded = np.concatenate((np.zeros((K, 1)), icf[:, d:]), axis=1)
    return padded[:, tri_index(d)]


def log_gamma_distrib(a, p):
    """The multivariate log-gamma function log Gamma_p(a)."""
    out = 0.25 * p * (p - 1) * math.log(math.pi)
    for j in range(1, p + 1):
        out += math.lgamma(a + 0.5 * (1 - j))
    return out


def log_wishart_prior(p, wishart_gamma, wishart_m, sum_qs, Qdiags, icf):
    n = p + wishart_m + 1
    k = icf.shape[0]
    out = np.sum(0.5 * wishart_gamma * wishart_gamma
                 * (np.sum(Qdiags * Qdiags, axis=1) + np.sum(icf[:, p:] * icf[:, p:], axis=1))
                 - wishart_m * sum_qs)
    C = n * p * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib(0.5 * n, p)
    return out - k * C


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n = x.shape[0]
    d = x.shape[1]
    K = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    Ls = make_L(icf, d)
    inner = []
    for k in range(K):
        xc = x - means[k]
        Qx = Qdiags[k] * xc + xc @ Ls[k].T
        inner.append(alphas[k] + sum_qs[k] - 0.5 * np.sum(Qx * Qx, axis=1))
    slse = np.sum(logsumexp_rows(np.stack(inner, axis=1)))
    const = -n * d * 0.5 * math.log(2.0 * math.pi)
    return (const + slse - n * logsumexp(alphas)
            + log_wishart_prior(d, wishart_gamma, wishart_m, sum_qs, Qdiags, icf))


FUNCS = [gmm_objective, logsumexp, logsumexp_rows, make_L, log_gamma_distrib, log_wishart_prior]


# ---------------------------------------------------------------------------
# the hand-written gradient
# ---------------------------------------------------------------------------
@numba.njit
def gmm_numba(alphas, means, icf, x, wishart_gamma, wishart_m):
    """Value and gradient wrt (alphas, means, icf), backprop by hand: per component k,
    Z = Xc Q_k^T (Xc = x - mu_k), then with W = softmax_k(inner) per point and
    G = -W[:, k] Z: dQ_k = G^T Xc (its lower triangle), dmu_k = -colsum(G Q_k)."""
    n, d = x.shape
    K = alphas.shape[0]
    Q = np.zeros((K, d, d))
    QT = np.zeros((K, d, d))
    sum_qs = np.zeros(K)
    for k in range(K):
        for j in range(d):
            Q[k, j, j] = math.exp(icf[k, j])
            sum_qs[k] += icf[k, j]
        p = d
        for j in range(d):
            for i in range(j + 1, d):
                Q[k, i, j] = icf[k, p]
                p += 1
        QT[k] = Q[k].T
    inner = np.empty((n, K))
    Zs = np.empty((K, n, d))
    for k in range(K):
        Xc = x - means[k]
        Z = Xc @ QT[k]
        Zs[k] = Z
        for i in range(n):
            s = 0.0
            for a in range(d):
                s += Z[i, a] * Z[i, a]
            inner[i, k] = alphas[k] + sum_qs[k] - 0.5 * s
    slse = 0.0
    Wt = np.empty((K, n))                 # softmax over components, per point
    for i in range(n):
        mx = inner[i, 0]
        for k in range(1, K):
            mx = max(mx, inner[i, k])
        se = 0.0
        for k in range(K):
            se += math.exp(inner[i, k] - mx)
        lse = math.log(se) + mx
        slse += lse
        for k in range(K):
            Wt[k, i] = math.exp(inner[i, k] - lse)
    d_alphas = np.zeros(K)
    d_means = np.zeros((K, d))
    d_icf = np.zeros_like(icf)
    for k in range(K):
        G = np.empty((n, d))
        wsum = 0.0
        for i in range(n):
            wsum += Wt[k, i]
            for a in range(d):
                G[i, a] = -Wt[k, i] * Zs[k, i, a]
        d_alphas[k] += wsum
        Xc = x - means[k]
        dQ = np.ascontiguousarray(G.T) @ Xc
        dXc = G @ Q[k]
        for i in range(n):
            for a in range(d):
                d_means[k, a] -= dXc[i, a]
        for j in range(d):
            d_icf[k, j] = wsum + dQ[j, j] * Q[k, j, j]
        p = d
        for j in range(d):
            for i in range(j + 1, d):
                d_icf[k, p] = dQ[i, j]
                p += 1
    # - n logsumexp(alphas)
    mx = alphas[0]
    for k in range(1, K):
        mx = max(mx, alphas[k])
    se = 0.0
    for k in range(K):
        se += math.exp(alphas[k] - mx)
    lse_a = math.log(se) + mx
    for k in range(K):
        d_alphas[k] -= n * math.exp(alphas[k] - lse_a)
    # the Wishart prior
    g2 = wishart_gamma * wishart_gamma
    prior = 0.0
    for k in range(K):
        for j in range(d):
            q = Q[k, j, j]
            prior += 0.5 * g2 * q * q - wishart_m * icf[k, j]
            d_icf[k, j] += g2 * q * q - wishart_m
        for p in range(d, icf.shape[1]):
            prior += 0.5 * g2 * icf[k, p] * icf[k, p]
            d_icf[k, p] += g2 * icf[k, p]
    nn = d + wishart_m + 1
    lgd = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        lgd += math.lgamma(0.5 * nn + 0.5 * (1 - j))
    Cst = nn * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - lgd
    value = (-n * d * 0.5 * math.log(2.0 * math.pi) + slse - n * lse_a + prior - K * Cst)
    return value, (d_alphas, d_means, d_icf)


# ---------------------------------------------------------------------------
# data and systems
# ---------------------------------------------------------------------------
def data(n, d, K, seed=0):
    rng = np.random.default_rng(seed + 1000 * d + K)
    alphas = rng.normal(size=K)
    means = rng.uniform(size=(K, d))
    icf = rng.normal(scale=0.1, size=(K, d + d * (d - 1) // 2))
    x = rng.uniform(size=(n, d))
    return alphas, means, icf, x, GAMMA, WISHART_M


def size_key(n, dk):
    return f"d={dk[0]}, K={dk[1]}"


def jitad_first_call():
    return jitad.value_and_grad(gmm_objective, wrt=WRT)(*data(QUICK_POINTS, *QUICK_SIZES[0]))


def systems(ctx, n, sizes):
    by_key = {size_key(n, dk): dk for dk in sizes}

    def args_of(key):
        return data(n, *by_key[key])

    out = C.objective_rows(ctx, args_of, gmm_numba, gmm_objective, WRT)
    if ctx.quick:
        return out
    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        fj = C.rebind_all(FUNCS, np=jnp)["gmm_objective"]

        def jax_case(key):
            a = args_of(key)
            # gamma and m are Python numbers (static): math.log(gamma) needs a float
            g = jax.jit(jax.value_and_grad(lambda al, mu, q, x: fj(al, mu, q, x, a[4], a[5]),
                                           argnums=(0, 1, 2)))
            ja = tuple(jnp.asarray(v) for v in a[:4])
            return C.Case(lambda: jax.block_until_ready(g(*ja)))
        out.append(C.System("JAX jit", version=C.peer_version("jax"), make=jax_case,
                            note="`jax.jit(jax.value_and_grad(f))`, f in jax.numpy (its loop "
                                 "over K unrolled at trace time); one compile per shape"))
    out.append(C.autograd_row(FUNCS, "gmm_objective", args_of, WRT))
    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        _, tn = C.torch_namespaces()
        ft = C.rebind_all(FUNCS, np=tn,
                          tri_index=lambda d: torch.from_numpy(tri_index(d)))["gmm_objective"]

        def torch_case(key):
            a = args_of(key)
            tx = torch.tensor(a[3])

            def run():
                ps = [torch.tensor(v, requires_grad=True) for v in a[:3]]
                loss = ft(*ps, tx, a[4], a[5])
                return loss, torch.autograd.grad(loss, ps)
            return C.Case(run)
        out.append(C.System("torch eager", version=C.peer_version("torch"), make=torch_case))
    return out


def run(ctx):
    n = QUICK_POINTS if ctx.quick else N_POINTS
    sizes = QUICK_SIZES if ctx.quick else SIZES
    keys = [size_key(n, dk) for dk in sizes]
    rows = C.run_systems(ctx, systems(ctx, n, sizes), keys, rtol=1e-9)
    d, K = sizes[1]
    a = data(n, d, K)
    fd = C.fd_check(gmm_objective, a, WRT, gmm_numba(*a)[1],
                    f"d = {d}, K = {K}: 6 random coordinates of alphas, means and icf",
                    eps=1e-6, rtol=1e-6)
    ratios = [C.ratio(rows, "jitad compiled", "JAX jit", k) for k in keys]
    worst = max(ratios) if ratios and all(r is not None for r in ratios) else None
    return {"title": TITLE if not ctx.quick else TITLE.replace("1,000", str(n)),
            "sizes": keys, "rows": rows, "reference_fd": fd, "plot": "bars",
            "reference": "hand-written Numba",
            "description": (
                f"n = {n:,} points; value and gradient wrt (alphas, means, icf) per call. "
                "One plain NumPy source (`benchmarks/gmm.py`) in every system; the "
                "hand-written Numba gradient (three GEMMs per component) is the reference "
                "every row is checked against (rtol 1e-9) before it is timed. JAX compiles "
                "once per shape (its first call at every size is in the JSON)."),
            "extra_md": C.ratio_table(rows, keys, "jitad compiled", "JAX jit"),
            "goals": [C.goal("jitad compiled ≤ 1.0× JAX jit (worst size)", worst, 1.0)]}
