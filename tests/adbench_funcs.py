"""The ADBench objectives (Srajer, Baydin, Fitzgibbon 2018) in the style of ADBench's own
Python (autograd) modules -- written for this corpus from that style, not copied: the GMM
builds each L_k column by column in a nested function that keeps its position in an
attribute of the enclosing function (`constructL.Lparamidx`), stacks the columns with
`np.column_stack`, multiplies through `np.einsum('ijk,mik->mij', ...)` and takes the
Wishart normalizer from `scipy.special.multigammaln`; the LSTM slices one weight row per
gate and normalizes with the builtin `sum`; bundle adjustment rotates by Rodrigues' formula
with `np.cross` and an `if` on the angle (tests/test_adbench_forms.py). Also the two forms
the GMM needed, alone: np.column_stack of a list of vectors and of matrices, and function
attributes as one call's variables (kept from an earlier call or set in a branch: refused)."""
import math

import numpy as np
from scipy import special as scipy_special


def logsumexp(x):
    mx = np.amax(x)
    emx = np.exp(x - mx)
    return np.log(sum(emx)) + mx


def logsumexpvec(x):
    mx = np.amax(x, 1)
    emx = np.exp(x - mx[:, np.newaxis])
    return np.log(emx.sum(1)) + mx


def log_gamma_distrib(a, p):
    return scipy_special.multigammaln(a, p)


def sqsum(x):
    return np.sum(x ** 2)


def log_wishart_prior(p, wishart_gamma, wishart_m, sum_qs, Qdiags, icf):
    n = p + wishart_m + 1
    k = icf.shape[0]
    out = 0
    for ik in range(k):
        frobenius = sqsum(Qdiags[ik, :]) + sqsum(icf[ik, p:])
        out = out + 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * sum_qs[ik]
    C = n * p * (math.log(wishart_gamma) - 0.5 * math.log(2)) - log_gamma_distrib(0.5 * n, p)
    return out - k * C


def constructL(d, icf):
    constructL.Lparamidx = d

    def make_L_col(i):
        nelems = d - i - 1
        col = np.concatenate([
            np.zeros(i + 1),
            icf[constructL.Lparamidx:(constructL.Lparamidx + nelems)]
        ])
        constructL.Lparamidx += nelems
        return col

    columns = [make_L_col(i) for i in range(d)]
    return np.column_stack(columns)


def Qtimesx(Qdiag, L, x):
    f = np.einsum('ijk,mik->mij', L, x)
    return Qdiag * x + f


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n = x.shape[0]
    d = x.shape[1]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], 1)
    Ls = np.array([constructL(d, curr_icf) for curr_icf in icf])
    xcentered = x[:, np.newaxis, :] - means[np.newaxis, :, :]
    Lxcentered = Qtimesx(Qdiags, Ls, xcentered)
    sqsum_Lxcentered = np.sum(Lxcentered ** 2, 2)
    inner_term = alphas + sum_qs - 0.5 * sqsum_Lxcentered
    lse = logsumexpvec(inner_term)
    slse = np.sum(lse)
    CONSTANT = -n * d * 0.5 * math.log(2 * math.pi)
    return CONSTANT + slse - n * logsumexp(alphas) + log_wishart_prior(
        d, wishart_gamma, wishart_m, sum_qs, Qdiags, icf)


# ---- LSTM (ADBench's autograd style) ----
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    hsize = hidden.shape[0]
    forget = sigmoid(gates[0:hsize])
    ingate = sigmoid(gates[hsize:2 * hsize])
    outgate = sigmoid(gates[2 * hsize:3 * hsize])
    change = np.tanh(gates[3 * hsize:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(w, w2, s, x):
    s2 = s.copy()
    x = x * w2[0]
    for i in range(0, len(s), 2):
        s2[i + 1], s2[i] = lstm_model(w[i], w[i + 1], s[i + 1], s[i], x)
        x = s2[i + 1]
    return x * w2[1] + w2[2], s2


def lstm_objective(main_params, extra_params, state, sequence):
    total = 0.0
    count = 0
    _input = sequence[0]
    all_states = [state]
    for t in range(1, len(sequence)):
        ypred, new_state = lstm_predict(main_params, extra_params, all_states[t - 1], _input)
        all_states.append(new_state)
        ynorm = ypred - np.log(sum(np.exp(ypred), 2))
        ygold = sequence[t]
        total += sum(ygold * ynorm)
        count += ygold.shape[0]
        _input = ygold
    return -total / count


# ---- BA (ADBench's autograd style) ----
def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(np.square(rot))
    if sqtheta != 0.:
        theta = np.sqrt(sqtheta)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        theta_inverse = 1. / theta
        w = theta_inverse * rot
        w_cross_X = np.cross(w, X)
        tmp = np.dot(w, X) * (1. - costheta)
        return X * costheta + w_cross_X * sintheta + w * tmp
    else:
        return X + np.cross(rot, X)


def radial_distort(rad_params, proj):
    rsq = np.sum(np.square(proj))
    L = 1. + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


ROT_IDX, C_IDX, F_IDX, X0_IDX, RAD_IDX = 0, 3, 6, 7, 9


def project(cam, X):
    Xcam = rodrigues_rotate_point(cam[ROT_IDX:ROT_IDX + 3], X - cam[C_IDX:C_IDX + 3])
    distorted = radial_distort(cam[RAD_IDX:RAD_IDX + 2], Xcam[0:2] / Xcam[2])
    return distorted * cam[F_IDX] + cam[X0_IDX:X0_IDX + 2]


def compute_reproj_err(cam, X, w, feat):
    return w * (project(cam, X) - feat)


def ba_objective(cams, X, w, obs, feats):
    p = obs.shape[0]
    reproj_err = np.empty((p, 2))
    for i in range(p):
        reproj_err[i] = compute_reproj_err(cams[obs[i, 0]], X[obs[i, 1]], w[i], feats[i])
    w_err = 1. - np.square(w)
    return np.sum(reproj_err ** 2) + np.sum(w_err ** 2)


def cols_of_vectors(x):
    cols = []
    for i in range(3):
        cols.append(np.sin(x[i:i + 4]) * (i + 1))
    M = np.column_stack(cols)
    return np.sum(M * np.arange(12.0).reshape(4, 3)) + M[1, 2] ** 2


def cols_of_matrices(A):
    parts = [A * k for k in range(1, 3)]
    parts.append(np.tanh(A))
    M = np.column_stack(parts)
    return np.sum(M ** 2 * np.linspace(0, 1, M.shape[1]))


def attr_counter(x):
    attr_counter.n = 0
    s = 0.0
    for v in x:
        attr_counter.n += 1
        s = s + v * attr_counter.n
    return s


def attr_columns(x):
    return attr_counter(x) + np.sum(lower_columns(3, x))


def lower_columns(d, icf):
    lower_columns.at = 0

    def column(i):
        col = np.concatenate((np.zeros(i), icf[lower_columns.at:lower_columns.at + d - i]))
        lower_columns.at += d - i
        return np.sin(col)

    return np.column_stack([column(i) for i in range(d)]) * np.arange(1.0, d + 1)


def attr_kept(x):
    attr_kept.calls += 1  # ERR: cannot assign to an attribute
    return np.sum(x ** 2) * attr_kept.calls


attr_kept.calls = 0


def attr_in_branch(x, flag):
    if flag:
        attr_in_branch.k = 2.0  # ERR: cannot assign to an attribute
    else:
        attr_in_branch.k = 3.0
    return np.sum(x) * attr_in_branch.k


def attr_recursive(x, n):
    attr_recursive.k = float(n)  # ERR: cannot assign to an attribute
    r = 0.0
    if n > 0:
        r = attr_recursive(x, n - 1)
    return r + np.sum(x) * attr_recursive.k     # Python reads the innermost call's k


def closure_read_beside(x):
    count = 0.0

    def bump(v):
        nonlocal count  # ERR: nonlocal is supported
        count += 1.0
        return v * count

    def peek():
        return count

    return peek() + sum([bump(v) for v in x])   # peek reads count before the bumps


def refused_forms():
    """An attribute of the function read before the call assigns it (kept from an earlier
    call), assigned in a branch, or in a function that runs itself again (Python's attribute
    is one value for every run: a local per run read 9.0 where Python gives 0.0); a
    comprehension calling a function with nonlocal state beside a call of another nested
    function that reads the state through its closure (run as a loop first, the read would
    come after the calls)."""
    return [(attr_kept, (np.ones(3),)), (attr_in_branch, (np.ones(3), True)),
            (attr_recursive, (np.array([1.0, 2.0]), 2)),
            (closure_read_beside, (np.array([1.0, 2.0, 3.0]),))]


def jacobians():
    return []


def cases(seed=2024):
    r = np.random.default_rng(seed)
    d, K, n = 3, 4, 12
    icf = r.normal(0, 0.1, (K, d + d * (d - 1) // 2))
    gmm = (gmm_objective, (r.normal(size=K), r.uniform(size=(K, d)), icf, r.uniform(size=(n, d)), 1.0, 0), (0, 1, 2))
    l, b, c = 2, 4, 5
    main = r.normal(0, 0.3, (2 * l, 4 * b))
    extra = r.normal(0, 0.3, (3, b))
    state = r.normal(0, 0.3, (2 * l, b))
    seq = r.normal(0, 0.3, (c, b))
    lstm = (lstm_objective, (main, extra, state, seq), (0, 1, 2))
    ncam, npt, nobs = 3, 5, 8
    cams = r.normal(0, 0.2, (ncam, 11)); cams[:, 6] = 1.0 + r.uniform(size=ncam); cams[:, 5] += 3.0
    X = r.normal(size=(npt, 3)); w = 0.9 + 0.1 * r.uniform(size=nobs)
    obs = np.stack([r.integers(0, ncam, nobs), r.integers(0, npt, nobs)], axis=1)
    feats = r.normal(size=(nobs, 2))
    ba = (ba_objective, (cams, X, w, obs, feats), (0, 1, 2))
    return [gmm, lstm, ba,
            (cols_of_vectors, (r.normal(size=8),), (0,)),
            (cols_of_matrices, (r.normal(size=(3, 2)),), (0,)),
            (attr_columns, (r.normal(size=6),), (0,))]


HESSIANS = ["cols_of_vectors", "cols_of_matrices", "attr_columns"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
