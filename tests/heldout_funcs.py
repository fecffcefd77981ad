"""Held-out corpus #3: 61 everyday NumPy models written by someone who had read only jitad's
README, frozen before jitad ran any of them (/work/scratch/heldout3/models_frozen.py, sha256
094abde4...53a2; copied unchanged below this docstring). tests/test_heldout.py runs them.

Each model is a plain function returning a scalar loss (two return residual vectors).
CASES = [(name, fn, make_args, wrt), ...]
"""
import math

import numpy as np
from scipy.special import expit, gammaln, log_softmax, logsumexp, softmax, erf


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------
# 1. Cox proportional hazards (Breslow, no ties)
def cox_loss(beta, X, time, event):
    eta = X @ beta
    order = np.argsort(-time)          # descending time -> risk set is a prefix
    eta = eta[order]
    event = event[order]
    log_risk = np.log(np.cumsum(np.exp(eta)))
    return -np.sum(event * (eta - log_risk))


def cox_args():
    rng = _rng(1)
    n, d = 30, 4
    X = rng.normal(size=(n, d))
    time = rng.exponential(size=n)
    event = (rng.uniform(size=n) < 0.7).astype(float)
    beta = 0.1 * rng.normal(size=d)
    return beta, X, time, event


# ---------------------------------------------------------------------------
# 2. Poisson GLM
def poisson_glm_loss(w, b, X, y):
    eta = X @ w + b
    mu = np.exp(eta)
    nll = np.sum(mu - y * eta + gammaln(y + 1))
    return nll / len(y) + 0.01 * np.dot(w, w)


def poisson_glm_args():
    rng = _rng(2)
    X = rng.normal(size=(40, 5))
    w_true = rng.normal(scale=0.3, size=5)
    y = rng.poisson(np.exp(X @ w_true + 0.5)).astype(float)
    return rng.normal(scale=0.1, size=5), 0.2, X, y


# ---------------------------------------------------------------------------
# 3. Negative binomial GLM (NB2), last parameter is log dispersion
def negbin_loss(params, X, y):
    w = params[:-1]
    log_alpha = params[-1]
    alpha = np.exp(log_alpha)
    mu = np.exp(X @ w)
    r = 1.0 / alpha
    ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -ll.sum()


def negbin_args():
    rng = _rng(3)
    X = np.column_stack([np.ones(35), rng.normal(size=(35, 3))])
    y = rng.negative_binomial(3, 0.4, size=35).astype(float)
    params = np.concatenate([rng.normal(scale=0.1, size=4), [-0.5]])
    return params, X, y


# ---------------------------------------------------------------------------
# 4. Huber regression
def huber_loss(w, X, y, delta=1.0):
    r = y - X @ w
    a = np.abs(r)
    quad = 0.5 * r ** 2
    lin = delta * (a - 0.5 * delta)
    return np.mean(np.where(a <= delta, quad, lin))


def huber_args():
    rng = _rng(4)
    X = rng.normal(size=(50, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.standard_t(2, size=50)
    return np.zeros(3) + 0.1, X, y


# ---------------------------------------------------------------------------
# 5. Multi-quantile (pinball) regression
def quantile_loss(W, b, X, y, taus):
    pred = X @ W + b                 # (n, q)
    r = y[:, None] - pred
    loss = np.maximum(taus * r, (taus - 1) * r)
    return loss.mean(axis=0).sum()


def quantile_args():
    rng = _rng(5)
    X = rng.normal(size=(40, 3))
    y = X[:, 0] + rng.normal(size=40)
    taus = np.array([0.1, 0.5, 0.9])
    return rng.normal(scale=0.1, size=(3, 3)), np.zeros(3), X, y, taus


# ---------------------------------------------------------------------------
# 6. t-SNE KL objective
def tsne_kl(Y, P):
    sum_Y = np.sum(Y ** 2, axis=1)
    D = sum_Y[:, None] + sum_Y[None, :] - 2 * Y @ Y.T
    num = 1.0 / (1.0 + D)
    np.fill_diagonal(num, 0.0)
    Q = num / np.sum(num)
    Q = np.maximum(Q, 1e-12)
    mask = P > 0
    return np.sum(P[mask] * np.log(P[mask] / Q[mask]))


def tsne_args():
    rng = _rng(6)
    n = 12
    Xh = rng.normal(size=(n, 6))
    d2 = np.sum((Xh[:, None, :] - Xh[None, :, :]) ** 2, axis=-1)
    Pc = np.exp(-d2 / 4.0)
    np.fill_diagonal(Pc, 0.0)
    Pc = Pc / Pc.sum(axis=1, keepdims=True)
    P = (Pc + Pc.T) / (2 * n)
    Y = rng.normal(scale=0.5, size=(n, 2))
    return Y, P


# ---------------------------------------------------------------------------
# 7. word2vec skip-gram with negative sampling
def sgns_logsigmoid(x):
    return -np.logaddexp(0.0, -x)


def sgns_loss(W_in, W_out, centers, contexts, negatives):
    v = W_in[centers]                 # (B, d)
    u_pos = W_out[contexts]           # (B, d)
    u_neg = W_out[negatives]          # (B, k, d)
    pos = np.sum(v * u_pos, axis=1)
    neg = np.einsum('bd,bkd->bk', v, u_neg)
    return -np.mean(sgns_logsigmoid(pos) + np.sum(sgns_logsigmoid(-neg), axis=1))


def sgns_args():
    rng = _rng(7)
    V, d, B, k = 20, 5, 16, 3
    W_in = rng.normal(scale=0.3, size=(V, d))
    W_out = rng.normal(scale=0.3, size=(V, d))
    centers = rng.integers(0, V, B)
    contexts = rng.integers(0, V, B)
    negatives = rng.integers(0, V, (B, k))
    return W_in, W_out, centers, contexts, negatives


# ---------------------------------------------------------------------------
# 8. NMF (Frobenius + L1)
def nmf_loss(W, H, V, lam=0.01):
    R = V - W @ H
    return 0.5 * np.sum(R * R) + lam * (np.abs(W).sum() + np.abs(H).sum())


def nmf_args():
    rng = _rng(8)
    V = rng.uniform(size=(8, 6))
    return rng.uniform(0.1, 1.0, size=(8, 3)), rng.uniform(0.1, 1.0, size=(3, 6)), V


# ---------------------------------------------------------------------------
# 9. Matrix completion on observed entries
def mc_loss(U, V, rows, cols, vals, lam):
    pred = np.sum(U[rows] * V[cols], axis=1)
    err = pred - vals
    return np.mean(err ** 2) + lam * (np.linalg.norm(U) ** 2 + np.linalg.norm(V) ** 2)


def mc_args():
    rng = _rng(9)
    m, n, k, nobs = 7, 6, 3, 25
    rows = rng.integers(0, m, nobs)
    cols = rng.integers(0, n, nobs)
    vals = rng.normal(size=nobs)
    return rng.normal(scale=0.5, size=(m, k)), rng.normal(scale=0.5, size=(n, k)), rows, cols, vals, 0.05


# ---------------------------------------------------------------------------
# 10. PCA reconstruction with orthogonality penalty
def pca_loss(W, X):
    Xc = X - X.mean(axis=0, keepdims=True)
    Z = Xc @ W
    X_hat = Z @ W.T
    recon = np.sum((Xc - X_hat) ** 2) / X.shape[0]
    ortho = np.sum((W.T @ W - np.eye(W.shape[1])) ** 2)
    return recon + ortho


def pca_args():
    rng = _rng(10)
    X = rng.normal(size=(30, 5)) @ rng.normal(size=(5, 5))
    return rng.normal(scale=0.5, size=(5, 2)), X


# ---------------------------------------------------------------------------
# 11. VAE ELBO with fixed reparameterisation noise
def vae_encode(params, x):
    W1, b1, Wmu, bmu, Wlv, blv = params[:6]
    h = np.tanh(x @ W1 + b1)
    return h @ Wmu + bmu, h @ Wlv + blv


def vae_decode(params, z):
    W2, b2, Wout, bout = params[6:]
    h = np.tanh(z @ W2 + b2)
    return h @ Wout + bout   # Bernoulli logits


def vae_loss(params, x, eps):
    mu, logvar = vae_encode(params, x)
    z = mu + np.exp(0.5 * logvar) * eps
    logits = vae_decode(params, z)
    rec = np.sum(x * logits - np.logaddexp(0, logits), axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return -np.mean(rec - kl)


def vae_args():
    rng = _rng(11)
    D, Hd, Z, B = 6, 5, 2, 8
    s = 0.3
    params = (rng.normal(scale=s, size=(D, Hd)), np.zeros(Hd),
              rng.normal(scale=s, size=(Hd, Z)), np.zeros(Z),
              rng.normal(scale=s, size=(Hd, Z)), np.zeros(Z),
              rng.normal(scale=s, size=(Z, Hd)), np.zeros(Hd),
              rng.normal(scale=s, size=(Hd, D)), np.zeros(D))
    x = (rng.uniform(size=(B, D)) < 0.5).astype(np.float64)
    eps = rng.normal(size=(B, Z))
    return params, x, eps


# ---------------------------------------------------------------------------
# 12. Planar normalizing flow, reverse KL to a banana density
def planar_flow_loss(U, Wf, b, z0):
    z = z0
    logdet = np.zeros(z0.shape[0])
    for k in range(U.shape[0]):
        u, w = U[k], Wf[k]
        wu = w @ u
        u_hat = u + (-1 + np.log1p(np.exp(wu)) - wu) * w / np.sum(w ** 2)
        h = np.tanh(z @ w + b[k])
        z = z + np.outer(h, u_hat)
        psi = (1 - h ** 2)[:, None] * w
        logdet += np.log(np.abs(1 + psi @ u_hat))
    x1, x2 = z[:, 0], z[:, 1]
    energy = 0.5 * x1 ** 2 / 4 + 0.5 * (x2 - 0.5 * x1 ** 2) ** 2
    base = -0.5 * np.sum(z0 ** 2, axis=1) - np.log(2 * np.pi)
    return np.mean(base - logdet + energy)


def planar_flow_args():
    rng = _rng(12)
    K = 3
    return (rng.normal(scale=0.5, size=(K, 2)), rng.normal(scale=0.5, size=(K, 2)),
            rng.normal(scale=0.1, size=K), rng.normal(size=(20, 2)))


# ---------------------------------------------------------------------------
# 13. Mixture density network
def mdn_loss(params, x, y):
    W1, b1, W2, b2 = params
    h = np.tanh(x.reshape(-1, 1) @ W1 + b1)
    out = h @ W2 + b2
    K = out.shape[1] // 3
    logit_pi, mu, log_sigma = out[:, :K], out[:, K:2 * K], out[:, 2 * K:]
    log_pi = logit_pi - logsumexp(logit_pi, axis=1, keepdims=True)
    z = (y[:, None] - mu) / np.exp(log_sigma)
    log_comp = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_pi + log_comp, axis=1))


def mdn_args():
    rng = _rng(13)
    n, H, K = 25, 6, 3
    x = rng.uniform(-1, 1, size=n)
    y = np.sin(3 * x) + 0.1 * rng.normal(size=n)
    params = (rng.normal(scale=0.5, size=(1, H)), np.zeros(H),
              rng.normal(scale=0.3, size=(H, 3 * K)), np.zeros(3 * K))
    return params, x, y


# ---------------------------------------------------------------------------
# 14. Linear-chain CRF negative log-likelihood
def crf_loss(W, trans, X, tags):
    emis = X @ W          # (T, K)
    T = emis.shape[0]
    score = emis[0, tags[0]]
    for t in range(1, T):
        score += trans[tags[t - 1], tags[t]] + emis[t, tags[t]]
    alpha = emis[0]
    for t in range(1, T):
        alpha = logsumexp(alpha[:, None] + trans, axis=0) + emis[t]
    log_Z = logsumexp(alpha)
    return log_Z - score


def crf_args():
    rng = _rng(14)
    T, F, K = 7, 4, 3
    return (rng.normal(scale=0.5, size=(F, K)), rng.normal(scale=0.5, size=(K, K)),
            rng.normal(size=(T, F)), rng.integers(0, K, T))


# ---------------------------------------------------------------------------
# 15. HMM forward algorithm with scaling
def hmm_softmax(a, axis=-1):
    a = a - a.max(axis=axis, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=axis, keepdims=True)


def hmm_loss(pi_logits, A_logits, B_logits, obs):
    pi = hmm_softmax(pi_logits)
    A = hmm_softmax(A_logits, axis=1)
    B = hmm_softmax(B_logits, axis=1)
    alpha = pi * B[:, obs[0]]
    c = alpha.sum()
    alpha = alpha / c
    loglik = np.log(c)
    for o in obs[1:]:
        alpha = (alpha @ A) * B[:, o]
        c = alpha.sum()
        alpha /= c
        loglik += np.log(c)
    return -loglik


def hmm_args():
    rng = _rng(15)
    S, O, T = 3, 4, 12
    return rng.normal(size=S), rng.normal(size=(S, S)), rng.normal(size=(S, O)), rng.integers(0, O, T)


# ---------------------------------------------------------------------------
# 16. Sinkhorn optimal transport cost
def sinkhorn_loss(X, Y, eps=0.5, n_iter=50):
    C = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    n, m = C.shape
    a = np.ones(n) / n
    b = np.ones(m) / m
    K = np.exp(-C / eps)
    u = np.ones(n)
    v = np.ones(m)
    for _ in range(n_iter):
        u = a / (K @ v)
        v = b / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def sinkhorn_args():
    rng = _rng(16)
    return 0.5 * rng.normal(size=(6, 2)), 0.5 * rng.normal(size=(5, 2)) + 0.3


# ---------------------------------------------------------------------------
# 17. Two-layer graph convolution network
def gcn_normalize(A):
    A_hat = A + np.eye(A.shape[0])
    d = A_hat.sum(axis=1)
    D_inv_sqrt = np.diag(1.0 / np.sqrt(d))
    return D_inv_sqrt @ A_hat @ D_inv_sqrt


def gcn_loss(W1, W2, A, X, labels, train_mask):
    A_norm = gcn_normalize(A)
    H = np.maximum(A_norm @ X @ W1, 0)
    logits = A_norm @ H @ W2
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    nll = -logp[np.arange(len(labels)), labels]
    return nll[train_mask].mean()


def gcn_args():
    rng = _rng(17)
    n, F, H, C = 10, 4, 5, 3
    A = (rng.uniform(size=(n, n)) < 0.3).astype(float)
    A = np.triu(A, 1)
    A = A + A.T
    X = rng.normal(size=(n, F))
    labels = rng.integers(0, C, n)
    train_mask = rng.uniform(size=n) < 0.6
    return rng.normal(scale=0.5, size=(F, H)), rng.normal(scale=0.5, size=(H, C)), A, X, labels, train_mask


# ---------------------------------------------------------------------------
# 18. Pre-LN transformer block with causal multi-head attention
def tf_layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return g * (x - mu) / np.sqrt(var + eps) + b


def tf_gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def tf_attention(x, Wqkv, Wo, n_heads):
    T, D = x.shape
    hd = D // n_heads
    qkv = x @ Wqkv                   # (T, 3D)
    q, k, v = np.split(qkv, 3, axis=-1)
    q = q.reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = k.reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = v.reshape(T, n_heads, hd).transpose(1, 0, 2)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    mask = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    out = (w @ v).transpose(1, 0, 2).reshape(T, D)
    return out @ Wo


def transformer_loss(params, x, target):
    Wqkv, Wo, g1, b1, g2, b2, W1, c1, W2, c2 = params
    h = x + tf_attention(tf_layer_norm(x, g1, b1), Wqkv, Wo, 2)
    h = h + tf_gelu(tf_layer_norm(h, g2, b2) @ W1 + c1) @ W2 + c2
    return np.mean((h - target) ** 2)


def transformer_args():
    rng = _rng(18)
    T, D, F = 5, 4, 8
    s = 0.4
    params = (rng.normal(scale=s, size=(D, 3 * D)), rng.normal(scale=s, size=(D, D)),
              np.ones(D), np.zeros(D), np.ones(D), np.zeros(D),
              rng.normal(scale=s, size=(D, F)), np.zeros(F),
              rng.normal(scale=s, size=(F, D)), np.zeros(D))
    return params, rng.normal(size=(T, D)), rng.normal(size=(T, D))


# ---------------------------------------------------------------------------
# 19. Tiny GPT: embeddings, causal single-head attention, erf GELU, tied output
def gpt_gelu(x):
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def gpt_loss(params, tokens):
    E, P, Wq, Wk, Wv, W1, W2 = params
    T = len(tokens)
    x = E[tokens] + P[:T]
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    scores = q @ k.T / np.sqrt(q.shape[-1])
    causal = np.tril(np.ones((T, T))) == 1
    scores = np.where(causal, scores, -np.inf)
    att = softmax(scores, axis=-1)
    x = x + att @ v
    x = x + gpt_gelu(x @ W1) @ W2
    logits = x @ E.T
    logp = log_softmax(logits[:-1], axis=-1)
    return -logp[np.arange(T - 1), tokens[1:]].mean()


def gpt_args():
    rng = _rng(19)
    V, D, T, Hf = 9, 4, 6, 8
    s = 0.4
    params = (rng.normal(scale=s, size=(V, D)), rng.normal(scale=s, size=(T, D)),
              rng.normal(scale=s, size=(D, D)), rng.normal(scale=s, size=(D, D)),
              rng.normal(scale=s, size=(D, D)), rng.normal(scale=s, size=(D, Hf)),
              rng.normal(scale=s, size=(Hf, D)))
    return params, rng.integers(0, V, T)


# ---------------------------------------------------------------------------
# 20. 2-D convolution written with loops
def conv_loops_loss(K, bias, img, target):
    H, W = img.shape
    kh, kw = K.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * K) + bias
    out = np.tanh(out)
    return np.sum((out - target) ** 2)


def conv_loops_args():
    rng = _rng(20)
    img = rng.normal(size=(7, 7))
    return rng.normal(scale=0.3, size=(3, 3)), 0.1, img, rng.normal(scale=0.5, size=(5, 5))


# ---------------------------------------------------------------------------
# 21. Multi-channel convolution with stride tricks + einsum
def conv_strided_loss(K, img, y):
    F, C, kh, kw = K.shape
    windows = np.lib.stride_tricks.sliding_window_view(img, (kh, kw), axis=(1, 2))  # (C, H', W', kh, kw)
    out = np.einsum('chwij,fcij->fhw', windows, K)
    feat = np.maximum(out, 0).mean(axis=(1, 2))
    return -(feat[y] - logsumexp(feat))


def conv_strided_args():
    rng = _rng(21)
    return rng.normal(scale=0.3, size=(3, 2, 3, 3)), rng.normal(size=(2, 6, 6)), 1


# ---------------------------------------------------------------------------
# 22. Conv ('same' via padding) + max pool + avg pool classifier
def pool_loss(K, Wc, imgs, labels):
    N, H, W = imgs.shape
    padded = np.pad(imgs, ((0, 0), (1, 1), (1, 1)))
    out = np.zeros((N, H, W))
    for di in range(3):
        for dj in range(3):
            out += K[di, dj] * padded[:, di:di + H, dj:dj + W]
    out = np.maximum(out, 0)
    mp = out.reshape(N, H // 2, 2, W // 2, 2).max(axis=(2, 4))
    ap = mp.reshape(N, H // 4, 2, W // 4, 2).mean(axis=(2, 4))
    feats = ap.reshape(N, -1)
    logits = feats @ Wc
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -logp[np.arange(N), labels].mean()


def pool_args():
    rng = _rng(22)
    N = 4
    return (rng.normal(scale=0.5, size=(3, 3)), rng.normal(scale=0.5, size=(4, 3)),
            rng.normal(size=(N, 8, 8)), rng.integers(0, 3, N))


# ---------------------------------------------------------------------------
# 23. Batch norm in an MLP
def bn_loss(params, X, y):
    W1, gamma, beta, w2 = params
    h = X @ W1
    mu = h.mean(axis=0)
    var = h.var(axis=0)
    h_hat = (h - mu) / np.sqrt(var + 1e-5)
    h = np.maximum(gamma * h_hat + beta, 0.0)
    pred = h @ w2
    return np.mean((pred - y) ** 2)


def bn_args():
    rng = _rng(23)
    X = rng.normal(size=(16, 4))
    y = rng.normal(size=16)
    params = (rng.normal(scale=0.5, size=(4, 6)), np.ones(6), np.full(6, 0.1), rng.normal(scale=0.5, size=6))
    return params, X, y


# ---------------------------------------------------------------------------
# 24. InfoNCE contrastive loss
def infonce_loss(W, x1, x2, tau=0.5):
    z1 = x1 @ W
    z2 = x2 @ W
    z1 = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    z2 = z2 / np.linalg.norm(z2, axis=1, keepdims=True)
    logits = z1 @ z2.T / tau
    labels = np.arange(len(x1))
    return -np.mean(log_softmax(logits, axis=1)[labels, labels])


def infonce_args():
    rng = _rng(24)
    x1 = rng.normal(size=(8, 5))
    x2 = x1 + 0.3 * rng.normal(size=(8, 5))
    return rng.normal(size=(5, 3)), x1, x2


# ---------------------------------------------------------------------------
# 25. Triplet loss
def triplet_loss(W, anchor, positive, negative, margin=1.0):
    fa, fp, fn = anchor @ W, positive @ W, negative @ W
    d_ap = np.sum((fa - fp) ** 2, axis=1)
    d_an = np.sum((fa - fn) ** 2, axis=1)
    return np.mean(np.maximum(d_ap - d_an + margin, 0.0))


def triplet_args():
    rng = _rng(25)
    a = rng.normal(size=(10, 4))
    return rng.normal(scale=0.7, size=(4, 3)), a, a + 0.5 * rng.normal(size=(10, 4)), rng.normal(size=(10, 4))


# ---------------------------------------------------------------------------
# 26. Binary focal loss
def focal_loss(w, b, X, y, gamma=2.0, alpha=0.25):
    p = expit(X @ w + b)
    p_t = np.where(y == 1, p, 1 - p)
    alpha_t = np.where(y == 1, alpha, 1 - alpha)
    return -np.mean(alpha_t * (1 - p_t) ** gamma * np.log(np.clip(p_t, 1e-8, 1.0)))


def focal_args():
    rng = _rng(26)
    X = rng.normal(size=(30, 4))
    y = (rng.uniform(size=30) < 0.3).astype(int)
    return rng.normal(scale=0.3, size=4), -0.5, X, y


# ---------------------------------------------------------------------------
# 27. Soft Dice loss for segmentation
def dice_loss(w, feats, mask, smooth=1.0):
    logits = feats @ w
    p = 1 / (1 + np.exp(-logits))
    inter = (p * mask).sum()
    return 1 - (2 * inter + smooth) / (p.sum() + mask.sum() + smooth)


def dice_args():
    rng = _rng(27)
    feats = rng.normal(size=(6, 6, 3))
    mask = (feats[..., 0] + 0.5 * rng.normal(size=(6, 6)) > 0).astype(np.float64)
    return rng.normal(size=3), feats, mask


# ---------------------------------------------------------------------------
# 28. Bradley-Terry with home advantage
def bt_loss(skill, winners, losers, home_adv):
    diff = skill[winners] - skill[losers] + home_adv
    return np.sum(np.log1p(np.exp(-diff))) + 0.5 * np.sum(skill ** 2)


def bt_args():
    rng = _rng(28)
    n, g = 6, 30
    winners = rng.integers(0, n, g)
    losers = (winners + rng.integers(1, n, g)) % n
    return rng.normal(scale=0.3, size=n), winners, losers, 0.2


# ---------------------------------------------------------------------------
# 29. Sequential Elo ratings, log-loss of predictions
def elo_loss(r0, K, games_a, games_b, outcomes):
    r = r0.copy()
    total = 0.0
    for g in range(len(outcomes)):
        a, b = games_a[g], games_b[g]
        e = 1.0 / (1.0 + 10 ** ((r[b] - r[a]) / 400.0))
        s = outcomes[g]
        total -= s * math.log(e) + (1 - s) * math.log(1 - e)
        r[a] += K * (s - e)
        r[b] -= K * (s - e)
    return total / len(outcomes)


def elo_args():
    rng = _rng(29)
    n, g = 5, 25
    a = rng.integers(0, n, g)
    b = (a + rng.integers(1, n, g)) % n
    outcomes = (rng.uniform(size=g) < 0.5).astype(float)
    return 1500 + 50 * rng.normal(size=n), 20.0, a, b, outcomes


# ---------------------------------------------------------------------------
# 30. American put on a binomial tree
def binomial_put(S0, K, r, sigma, T, n=50):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    S = S0 * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    V = np.maximum(K - S, 0.0)
    for i in range(n - 1, -1, -1):
        S = S[:-1] * d
        V = disc * (p * V[:-1] + (1 - p) * V[1:])
        V = np.maximum(V, K - S)
    return V[0]


def binomial_args():
    return 100.0, 105.0, 0.03, 0.25, 1.0


# ---------------------------------------------------------------------------
# 31. Monte-Carlo Asian call with fixed normals
def mc_asian_call(S0, sigma, r, K, Z, T=1.0):
    n_paths, n_steps = Z.shape
    dt = T / n_steps
    increments = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
    log_paths = np.log(S0) + np.cumsum(increments, axis=1)
    S = np.exp(log_paths)
    avg = S.mean(axis=1)
    payoff = np.maximum(avg - K, 0.0)
    return np.exp(-r * T) * payoff.mean()


def mc_asian_args():
    rng = _rng(31)
    return 100.0, 0.2, 0.02, 100.0, rng.normal(size=(200, 12))


# ---------------------------------------------------------------------------
# 32. Mean-variance portfolio with softmax weights
def portfolio_loss(logits, mu, Sigma, risk_aversion):
    w = np.exp(logits - logits.max())
    w /= w.sum()
    ret = mu @ w
    risk = w @ Sigma @ w
    return -(ret - 0.5 * risk_aversion * risk)


def portfolio_args():
    rng = _rng(32)
    n = 6
    A = rng.normal(size=(n, n)) * 0.1
    return rng.normal(size=n), rng.normal(0.05, 0.02, size=n), A @ A.T + 0.01 * np.eye(n), 3.0


# ---------------------------------------------------------------------------
# 33. Lotka-Volterra parameter fit with RK4
def lv_rhs(state, theta):
    x, y = state
    alpha, beta, gamma, delta = theta
    return np.array([alpha * x - beta * x * y, delta * x * y - gamma * y])


def lv_rk4_step(state, theta, h):
    k1 = lv_rhs(state, theta)
    k2 = lv_rhs(state + 0.5 * h * k1, theta)
    k3 = lv_rhs(state + 0.5 * h * k2, theta)
    k4 = lv_rhs(state + h * k3, theta)
    return state + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def lv_loss(theta, y0, obs, h=0.1, substeps=5):
    state = y0
    traj = []
    for t in range(obs.shape[0]):
        for _ in range(substeps):
            state = lv_rk4_step(state, theta, h)
        traj.append(state)
    traj = np.stack(traj)
    return np.sum((np.log(traj) - np.log(obs)) ** 2)


def lv_args():
    rng = _rng(33)
    obs = np.exp(rng.normal(scale=0.2, size=(8, 2))) * np.array([1.0, 0.8])
    return np.array([1.0, 0.5, 0.8, 0.4]), np.array([1.0, 0.7]), obs


# 34. (vector output) Lotka-Volterra residuals for a Jacobian
def lv_residuals(theta, y0, obs):
    state = y0
    res = []
    for t in range(obs.shape[0]):
        for _ in range(5):
            state = lv_rk4_step(state, theta, 0.1)
        res.append(np.log(state) - np.log(obs[t]))
    return np.concatenate(res)


# ---------------------------------------------------------------------------
# 35. Damped pendulum with adaptive step-doubling RK4 (while loop)
def pend_rhs(s, g_over_l, damping):
    theta, omega = s[0], s[1]
    return np.array([omega, -g_over_l * np.sin(theta) - damping * omega])


def pend_rk4(s, h, g_over_l, damping):
    k1 = pend_rhs(s, g_over_l, damping)
    k2 = pend_rhs(s + 0.5 * h * k1, g_over_l, damping)
    k3 = pend_rhs(s + 0.5 * h * k2, g_over_l, damping)
    k4 = pend_rhs(s + h * k3, g_over_l, damping)
    return s + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6


def pendulum_loss(params, s0, T, target):
    g_over_l, damping = params[0], params[1]
    t = 0.0
    h = 0.05
    s = s0
    tol = 1e-6
    while t < T:
        if t + h > T:
            h = T - t
        full = pend_rk4(s, h, g_over_l, damping)
        half = pend_rk4(pend_rk4(s, h / 2, g_over_l, damping), h / 2, g_over_l, damping)
        err = np.max(np.abs(full - half))
        if err < tol or h < 1e-4:
            t += h
            s = half
        h = 0.9 * h * min(2.0, max(0.2, (tol / (err + 1e-16)) ** 0.2))
    return (s[0] - target[0]) ** 2 + (s[1] - target[1]) ** 2


def pendulum_args():
    return np.array([9.81, 0.3]), np.array([1.0, 0.0]), 2.0, np.array([0.2, -0.5])


# ---------------------------------------------------------------------------
# 36. Kepler orbit, leapfrog, break on collision
def orbit_loss(v0, mu, r0, target, dt=0.01, n_steps=300):
    pos = r0.copy()
    vel = v0.copy()
    for step in range(n_steps):
        r = np.linalg.norm(pos)
        if r < 0.05:      # crashed into the star
            break
        acc = -mu * pos / r ** 3
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        r = np.linalg.norm(pos)
        acc = -mu * pos / r ** 3
        vel = vel + 0.5 * dt * acc
    return np.sum((pos - target) ** 2)


def orbit_args():
    return np.array([0.0, 1.1]), 1.0, np.array([1.0, 0.0]), np.array([-0.5, 0.5])


# ---------------------------------------------------------------------------
# 37. Explicit heat equation, fit the initial condition and diffusivity
def heat_loss(u0, kappa, target, dx=0.1, dt=0.004, n_steps=100):
    u = u0.copy()
    r = kappa * dt / dx ** 2
    for n in range(n_steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[0] = 0.0
        u[-1] = 0.0
    return np.sum((u - target) ** 2) * dx


def heat_args():
    rng = _rng(37)
    x = np.linspace(0, 1, 11)
    return np.sin(np.pi * x) + 0.1 * rng.normal(size=11), 1.0, 0.5 * np.sin(np.pi * x)


# ---------------------------------------------------------------------------
# 38. 3-link planar arm inverse kinematics with obstacle penalty
def arm_fk(theta, lengths):
    angles = np.cumsum(theta)
    joints = np.cumsum(lengths[:, None] * np.stack([np.cos(angles), np.sin(angles)], axis=1), axis=0)
    return joints


def arm_loss(theta, lengths, target, obstacle):
    joints = arm_fk(theta, lengths)
    end = joints[-1]
    d = np.linalg.norm(joints - obstacle, axis=1)
    penalty = np.sum(np.maximum(0.5 - d, 0) ** 2)
    return np.sum((end - target) ** 2) + 1e-3 * theta @ theta + 10 * penalty


def arm_args():
    return np.array([0.3, 0.4, -0.2]), np.array([1.0, 0.8, 0.5]), np.array([1.2, 1.3]), np.array([0.9, 0.6])


# ---------------------------------------------------------------------------
# 39. Quaternion rotation fit
def quat_mul(q, r):
    w1, x1, y1, z1 = q
    w2, x2, y2, z2 = r
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


def quat_rotate(q, v):
    qv = np.concatenate([[0.0], v])
    q_conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    return quat_mul(quat_mul(q, qv), q_conj)[1:]


def quat_loss(q, points, targets):
    q = q / np.linalg.norm(q)
    loss = 0.0
    for p, t in zip(points, targets):
        loss += np.sum((quat_rotate(q, p) - t) ** 2)
    return loss


def quat_args():
    rng = _rng(39)
    pts = rng.normal(size=(6, 3))
    tg = pts[:, [1, 2, 0]] + 0.05 * rng.normal(size=(6, 3))
    return np.array([0.9, 0.1, 0.2, 0.3]), pts, tg


# ---------------------------------------------------------------------------
# 40. Pinhole camera reprojection (Rodrigues rotation)
def cam_rodrigues(rvec):
    theta = np.linalg.norm(rvec)
    k = rvec / theta
    Kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(theta) * Kx + (1 - np.cos(theta)) * Kx @ Kx


def cam_residuals(rvec, tvec, f, c, X, uv):
    R = cam_rodrigues(rvec)
    Xc = X @ R.T + tvec
    proj = f * Xc[:, :2] / Xc[:, 2:3] + c
    return (proj - uv).ravel()


def cam_loss(rvec, tvec, f, c, X, uv):
    r = cam_residuals(rvec, tvec, f, c, X, uv)
    return 0.5 * r @ r


def cam_args():
    rng = _rng(40)
    X = rng.uniform(-1, 1, size=(8, 3)) + np.array([0.0, 0.0, 5.0])
    uv = rng.normal(scale=20, size=(8, 2)) + 50
    return np.array([0.1, -0.2, 0.05]), np.array([0.1, 0.0, 0.2]), 100.0, np.array([50.0, 48.0]), X, uv


# ---------------------------------------------------------------------------
# 42. REINFORCE with a tabular softmax policy
def reinforce_loss(theta, states, actions, rewards, gamma=0.99):
    T = len(rewards)
    returns = np.zeros(T)
    G = 0.0
    for t in reversed(range(T)):
        G = rewards[t] + gamma * G
        returns[t] = G
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    logits = theta[states]               # (T, A)
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    chosen = logp[np.arange(T), actions]
    return -np.sum(chosen * returns)


def reinforce_args():
    rng = _rng(42)
    S, A, T = 4, 3, 15
    return rng.normal(scale=0.1, size=(S, A)), rng.integers(0, S, T), rng.integers(0, A, T), rng.normal(size=T)


# ---------------------------------------------------------------------------
# 43. Soft value iteration (MaxEnt IRL likelihood of expert actions)
def softvi_loss(R, P, expert_s, expert_a, gamma=0.9, n_iter=60):
    S, A = R.shape
    V = np.zeros(S)
    for _ in range(n_iter):
        Q = R + gamma * P @ V             # P: (S, A, S)
        V = logsumexp(Q, axis=1)
    policy_logp = Q - V[:, None]
    return -policy_logp[expert_s, expert_a].sum()


def softvi_args():
    rng = _rng(43)
    S, A = 4, 2
    P = rng.uniform(size=(S, A, S))
    P /= P.sum(axis=-1, keepdims=True)
    return rng.normal(scale=0.5, size=(S, A)), P, rng.integers(0, S, 10), rng.integers(0, A, 10)


# ---------------------------------------------------------------------------
# 44. Student-t regression likelihood
def student_t_loss(w, log_sigma, log_nu, X, y):
    nu = np.exp(log_nu)
    sigma = np.exp(log_sigma)
    r = (y - X @ w) / sigma
    ll = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - log_sigma
          - (nu + 1) / 2 * np.log1p(r ** 2 / nu))
    return -np.sum(ll)


def student_t_args():
    rng = _rng(44)
    X = rng.normal(size=(30, 3))
    y = X @ np.array([0.5, -1.0, 2.0]) + rng.standard_t(3, size=30)
    return np.zeros(3), 0.1, math.log(4.0), X, y


# ---------------------------------------------------------------------------
# 45. Dirichlet-multinomial likelihood
def dirmult_loss(log_alpha, counts):
    alpha = np.exp(log_alpha)
    A = alpha.sum()
    N = counts.sum(axis=1)
    ll = (gammaln(A) - gammaln(N + A)
          + np.sum(gammaln(counts + alpha) - gammaln(alpha), axis=1)
          + gammaln(N + 1) - np.sum(gammaln(counts + 1), axis=1))
    return -ll.sum()


def dirmult_args():
    rng = _rng(45)
    counts = rng.multinomial(20, [0.2, 0.3, 0.5, 0.0 + 0.0], size=12).astype(float)
    counts = counts + rng.integers(0, 3, size=counts.shape)
    return rng.normal(scale=0.3, size=4), counts


# ---------------------------------------------------------------------------
# 46. Gaussian-process marginal likelihood (Cholesky + solve)
def gp_kernel(X1, X2, ell, sf2):
    d2 = np.sum(X1 ** 2, 1)[:, None] + np.sum(X2 ** 2, 1)[None, :] - 2 * X1 @ X2.T
    return sf2 * np.exp(-0.5 * d2 / ell ** 2)


def gp_nll(log_params, X, y):
    ell, sf2, sn2 = np.exp(log_params)
    n = len(y)
    K = gp_kernel(X, X, ell, sf2) + sn2 * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2 * np.pi)


def gp_args():
    rng = _rng(46)
    X = rng.uniform(-2, 2, size=(15, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=15)
    return np.array([0.0, 0.0, -2.0]), X, y


# ---------------------------------------------------------------------------
# 47. Kalman filter log-likelihood (constant-velocity model)
def kalman_nll(log_q, log_r, ys, dt=1.0):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = np.exp(log_q) * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.exp(log_r)
    x = np.array([ys[0], 0.0])
    P = np.eye(2)
    nll = 0.0
    for y in ys[1:]:
        x = F @ x
        P = F @ P @ F.T + Q
        S = (H @ P @ H.T)[0, 0] + R
        v = y - (H @ x)[0]
        Kg = (P @ H.T)[:, 0] / S
        x = x + Kg * v
        P = (np.eye(2) - np.outer(Kg, H[0])) @ P
        nll += 0.5 * (np.log(2 * np.pi * S) + v ** 2 / S)
    return nll


def kalman_args():
    rng = _rng(47)
    ys = np.cumsum(np.cumsum(0.1 * rng.normal(size=20))) + rng.normal(scale=0.5, size=20)
    return -1.0, -0.5, ys


# ---------------------------------------------------------------------------
# 48. Vanilla RNN with a Python list of hidden states
def rnn_loss(params, xs, ys):
    Wx, Wh, b, Wy, by = params
    h = np.zeros(Wh.shape[0])
    hs = []
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
        hs.append(h)
    H = np.stack(hs)
    preds = H @ Wy + by
    return np.mean((preds[:, 0] - ys) ** 2)


def rnn_args():
    rng = _rng(48)
    D, Hd, T = 3, 5, 8
    params = (rng.normal(scale=0.5, size=(Hd, D)), rng.normal(scale=0.4, size=(Hd, Hd)), np.zeros(Hd),
              rng.normal(scale=0.5, size=(Hd, 1)), np.zeros(1))
    return params, rng.normal(size=(T, D)), rng.normal(size=T)


# ---------------------------------------------------------------------------
# 49. GRU classifier with dict parameters
def gru_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gru_cell(p, x, h):
    z = gru_sigmoid(p["Wz"] @ x + p["Uz"] @ h + p["bz"])
    r = gru_sigmoid(p["Wr"] @ x + p["Ur"] @ h + p["br"])
    h_tilde = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])
    return (1 - z) * h + z * h_tilde


def gru_loss(p, xs, label):
    h = np.zeros(p["Uz"].shape[0])
    states = [h]
    for t in range(xs.shape[0]):
        states.append(gru_cell(p, xs[t], states[-1]))
    logits = p["Wo"] @ states[-1] + p["bo"]
    return logsumexp(logits) - logits[label]


def gru_args():
    rng = _rng(49)
    D, Hd, C, T = 3, 4, 3, 6
    s = 0.5
    p = {}
    for g in "zrh":
        p["W" + g] = rng.normal(scale=s, size=(Hd, D))
        p["U" + g] = rng.normal(scale=s, size=(Hd, Hd))
        p["b" + g] = np.zeros(Hd)
    p["Wo"] = rng.normal(scale=s, size=(C, Hd))
    p["bo"] = np.zeros(C)
    return p, rng.normal(size=(T, D)), 2


# ---------------------------------------------------------------------------
# 50. Soft k-means objective
def soft_kmeans_loss(C, X, beta=2.0):
    d2 = ((X[:, np.newaxis, :] - C[np.newaxis, :, :]) ** 2).sum(-1)
    resp = softmax(-beta * d2, axis=1)
    return np.sum(resp * d2) / X.shape[0]


def soft_kmeans_args():
    rng = _rng(50)
    X = np.concatenate([rng.normal(size=(10, 2)) + 2, rng.normal(size=(10, 2)) - 2])
    return rng.normal(size=(3, 2)), X


# ---------------------------------------------------------------------------
# 51. Newton iterations inside the objective (implicit roots of x^3 + a x = s b)
def newton_cubic_solve(a, b, x0=1.0):
    x = x0
    for _ in range(50):
        fx = x ** 3 + a * x - b
        dfx = 3 * x ** 2 + a
        step = fx / dfx
        x = x - step
        if abs(step) < 1e-12:
            break
    return x


def newton_loss(params, bs, targets):
    a, scale = params
    loss = 0.0
    for i in range(len(bs)):
        x = newton_cubic_solve(a, scale * bs[i])
        loss += (x - targets[i]) ** 2
    return loss


def newton_args():
    rng = _rng(51)
    return np.array([1.5, 0.8]), rng.uniform(0.5, 3.0, size=6), rng.uniform(0.3, 1.2, size=6)


# ---------------------------------------------------------------------------
# 52. Ruin utility: helper with early return inside a loop over paths
def ruin_path(drift, vol, shocks, floor=0.6):
    w = 1.0
    for t in range(shocks.shape[0]):
        w = w * math.exp(drift - 0.5 * vol ** 2 + vol * shocks[t])
        if w < floor:
            return math.log(w) - 1.0 * (shocks.shape[0] - t)
    return math.log(w)


def ruin_loss(drift, vol, paths):
    total = 0.0
    for path in paths:
        total += ruin_path(drift, vol, path)
    return -total / len(paths)


def ruin_args():
    rng = _rng(52)
    return 0.01, 0.2, rng.normal(size=(12, 10))


# ---------------------------------------------------------------------------
# 53. Multinomial logistic regression with one-hot via np.eye
def softmax_reg_loss(W, b, X, labels, l2=1e-2):
    K = W.shape[1]
    Y = np.eye(K)[labels]
    logits = X @ W + b
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -(Y * logp).sum() / X.shape[0] + l2 * (W ** 2).sum()


def softmax_reg_args():
    rng = _rng(53)
    return rng.normal(scale=0.3, size=(4, 3)), np.zeros(3), rng.normal(size=(20, 4)), rng.integers(0, 3, 20)


# ---------------------------------------------------------------------------
# 54. MLP binary classifier with tuple params and clip
def mlp_loss(params, X, y):
    W1, b1, W2, b2 = params
    h = np.maximum(X @ W1 + b1, 0)
    out = (h @ W2 + b2).ravel()
    p = 1 / (1 + np.exp(-out))
    p = p.clip(1e-7, 1 - 1e-7)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def mlp_args():
    rng = _rng(54)
    X = rng.normal(size=(20, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(np.float64)
    params = (rng.normal(scale=0.7, size=(3, 6)), np.full(6, 0.1), rng.normal(scale=0.7, size=(6, 1)), np.zeros(1))
    return params, X, y


# ---------------------------------------------------------------------------
# 55. Ordinal (cumulative logit) regression
def ordinal_loss(w, raw_cuts, X, y):
    cuts = np.cumsum(np.concatenate([raw_cuts[:1], np.exp(raw_cuts[1:])]))
    eta = X @ w
    cdf = expit(cuts[None, :] - eta[:, None])        # (n, K-1)
    cdf = np.hstack([np.zeros((len(y), 1)), cdf, np.ones((len(y), 1))])
    probs = cdf[np.arange(len(y)), y + 1] - cdf[np.arange(len(y)), y]
    return -np.sum(np.log(probs))


def ordinal_args():
    rng = _rng(55)
    X = rng.normal(size=(25, 3))
    y = rng.integers(0, 4, 25)
    return rng.normal(scale=0.2, size=3), np.array([-1.0, 0.0, 0.0]), X, y


# ---------------------------------------------------------------------------
# 56. Diagonal Gaussian mixture NLL
def gmm_nll(means, log_stds, logit_w, X):
    N, D = X.shape
    log_w = logit_w - logsumexp(logit_w)
    diff = (X[:, None, :] - means[None]) / np.exp(log_stds)[None]
    log_comp = -0.5 * np.sum(diff ** 2, axis=-1) - np.sum(log_stds, axis=-1) - 0.5 * D * np.log(2 * np.pi)
    return -np.sum(logsumexp(log_comp + log_w, axis=1))


def gmm_args():
    rng = _rng(56)
    X = rng.normal(size=(20, 2))
    return rng.normal(size=(3, 2)), np.zeros((3, 2)), np.zeros(3), X


# ---------------------------------------------------------------------------
# 57. Attention pooling over time with ellipsis indexing
def attnpool_loss(w_att, W_out, X, y):
    scores = X @ w_att                      # (B, T)
    a = np.exp(scores - scores.max(axis=-1, keepdims=True))
    a = a / a.sum(axis=-1, keepdims=True)
    pooled = (a[..., None] * X).sum(axis=1)   # (B, D)
    pred = pooled @ W_out
    return np.mean(np.square(pred - y))


def attnpool_args():
    rng = _rng(57)
    B, T, D, O = 5, 6, 4, 2
    return rng.normal(size=D), rng.normal(size=(D, O)), rng.normal(size=(B, T, D)), rng.normal(size=(B, O))


# ---------------------------------------------------------------------------
# 58. LSTM regression with (h, c) state tuples and sum() over a generator
def lstm_step(params, x, state):
    h, c = state
    W, U, b = params
    H = h.shape[0]
    gates = W @ x + U @ h + b
    i = 1 / (1 + np.exp(-gates[:H]))
    f = 1 / (1 + np.exp(-gates[H:2 * H]))
    o = 1 / (1 + np.exp(-gates[2 * H:3 * H]))
    g = np.tanh(gates[3 * H:])
    c = f * c + i * g
    h = o * np.tanh(c)
    return h, c


def lstm_loss(params, Wy, xs, targets):
    H = params[1].shape[1]
    state = (np.zeros(H), np.zeros(H))
    outs = []
    for x in xs:
        state = lstm_step(params, x, state)
        outs.append(Wy @ state[0])
    return sum((o - t) ** 2 for o, t in zip(outs, targets))


def lstm_args():
    rng = _rng(58)
    D, H, T = 2, 3, 6
    params = (rng.normal(scale=0.5, size=(4 * H, D)), rng.normal(scale=0.5, size=(4 * H, H)), np.zeros(4 * H))
    return params, rng.normal(size=H), rng.normal(size=(T, D)), rng.normal(scale=0.3, size=T)


# ---------------------------------------------------------------------------
# 59. Total-variation image denoising
def tv_denoise_loss(u, f, lam=0.5, eps=1e-3):
    dx = np.diff(u, axis=0)
    dy = np.diff(u, axis=1)
    tv = np.sum(np.sqrt(dx[:, :-1] ** 2 + dy[:-1, :] ** 2 + eps))
    return 0.5 * np.sum((u - f) ** 2) + lam * tv


def tv_args():
    rng = _rng(59)
    f = np.zeros((6, 6))
    f[2:5, 1:4] = 1.0
    f = f + 0.2 * rng.normal(size=(6, 6))
    return f.copy() + 0.01, f


# ---------------------------------------------------------------------------
# 60. fastText-style bag-of-words classifier with np.add.at
def fasttext_loss(E, W, word_ids, doc_ids, labels, n_docs):
    doc_vec = np.zeros((n_docs, E.shape[1]))
    np.add.at(doc_vec, doc_ids, E[word_ids])
    counts = np.bincount(doc_ids, minlength=n_docs)[:, None]
    doc_vec = doc_vec / counts
    logits = doc_vec @ W
    return -np.mean(log_softmax(logits, axis=1)[np.arange(n_docs), labels])


def fasttext_args():
    rng = _rng(60)
    V, d, C, n_docs = 12, 4, 3, 5
    doc_ids = np.sort(np.concatenate([np.arange(n_docs), rng.integers(0, n_docs, 15)]))
    word_ids = rng.integers(0, V, len(doc_ids))
    return rng.normal(scale=0.5, size=(V, d)), rng.normal(scale=0.5, size=(d, C)), word_ids, doc_ids, rng.integers(0, C, n_docs), n_docs


# ---------------------------------------------------------------------------
# 61. Multivariate normal NLL with Cholesky factor from a flat vector
def mvn_nll(mu, L_flat, X):
    d = mu.shape[0]
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = L_flat
    L[np.diag_indices(d)] = np.exp(np.diag(L))     # positive diagonal
    Sigma = L @ L.T
    diff = X - mu
    sol = np.linalg.solve(Sigma, diff.T)
    _, logdet = np.linalg.slogdet(Sigma)
    n = X.shape[0]
    return 0.5 * np.sum(diff.T * sol) + 0.5 * n * logdet + 0.5 * n * d * np.log(2 * np.pi)


def mvn_args():
    rng = _rng(61)
    d = 3
    X = rng.normal(size=(20, d)) @ np.array([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.2, -0.3, 0.7]])
    return rng.normal(scale=0.1, size=d), rng.normal(scale=0.2, size=d * (d + 1) // 2), X


# ---------------------------------------------------------------------------
CASES = [
    ("cox", cox_loss, cox_args, 0),
    ("poisson_glm", poisson_glm_loss, poisson_glm_args, (0, 1)),
    ("negbin", negbin_loss, negbin_args, 0),
    ("huber", huber_loss, huber_args, 0),
    ("quantile", quantile_loss, quantile_args, (0, 1)),
    ("tsne", tsne_kl, tsne_args, 0),
    ("sgns", sgns_loss, sgns_args, (0, 1)),
    ("nmf", nmf_loss, nmf_args, (0, 1)),
    ("matrix_completion", mc_loss, mc_args, (0, 1)),
    ("pca", pca_loss, pca_args, 0),
    ("vae", vae_loss, vae_args, 0),
    ("planar_flow", planar_flow_loss, planar_flow_args, (0, 1, 2)),
    ("mdn", mdn_loss, mdn_args, 0),
    ("crf", crf_loss, crf_args, (0, 1)),
    ("hmm", hmm_loss, hmm_args, (0, 1, 2)),
    ("sinkhorn", sinkhorn_loss, sinkhorn_args, 0),
    ("gcn", gcn_loss, gcn_args, (0, 1)),
    ("transformer", transformer_loss, transformer_args, 0),
    ("gpt_tiny", gpt_loss, gpt_args, 0),
    ("conv_loops", conv_loops_loss, conv_loops_args, (0, 1)),
    ("conv_strided", conv_strided_loss, conv_strided_args, 0),
    ("pool", pool_loss, pool_args, (0, 1)),
    ("batchnorm", bn_loss, bn_args, 0),
    ("infonce", infonce_loss, infonce_args, 0),
    ("triplet", triplet_loss, triplet_args, 0),
    ("focal", focal_loss, focal_args, (0, 1)),
    ("dice", dice_loss, dice_args, 0),
    ("bradley_terry", bt_loss, bt_args, (0, 3)),
    ("elo", elo_loss, elo_args, (0, 1)),
    ("binomial_put", binomial_put, binomial_args, (0, 3)),
    ("mc_asian", mc_asian_call, mc_asian_args, (0, 1, 2)),
    ("portfolio", portfolio_loss, portfolio_args, 0),
    ("lotka_volterra", lv_loss, lv_args, (0, 1)),
    ("lv_residuals_jac", lv_residuals, lv_args, 0),
    ("pendulum_adaptive", pendulum_loss, pendulum_args, 0),
    ("orbit", orbit_loss, orbit_args, (0, 1)),
    ("heat", heat_loss, heat_args, (0, 1)),
    ("arm_ik", arm_loss, arm_args, 0),
    ("quaternion", quat_loss, quat_args, 0),
    ("camera", cam_loss, cam_args, (0, 1, 2)),
    ("camera_residuals_jac", cam_residuals, cam_args, (0, 1)),
    ("reinforce", reinforce_loss, reinforce_args, 0),
    ("soft_value_iter", softvi_loss, softvi_args, 0),
    ("student_t", student_t_loss, student_t_args, (0, 1, 2)),
    ("dirichlet_multinomial", dirmult_loss, dirmult_args, 0),
    ("gp", gp_nll, gp_args, 0),
    ("kalman", kalman_nll, kalman_args, (0, 1)),
    ("rnn", rnn_loss, rnn_args, 0),
    ("gru", gru_loss, gru_args, 0),
    ("soft_kmeans", soft_kmeans_loss, soft_kmeans_args, 0),
    ("newton_inner", newton_loss, newton_args, 0),
    ("ruin_early_return", ruin_loss, ruin_args, (0, 1)),
    ("softmax_regression", softmax_reg_loss, softmax_reg_args, (0, 1)),
    ("mlp", mlp_loss, mlp_args, 0),
    ("ordinal", ordinal_loss, ordinal_args, (0, 1)),
    ("gmm", gmm_nll, gmm_args, (0, 1, 2)),
    ("attention_pool", attnpool_loss, attnpool_args, (0, 1)),
    ("lstm", lstm_loss, lstm_args, (0, 1)),
    ("tv_denoise", tv_denoise_loss, tv_args, 0),
    ("fasttext", fasttext_loss, fasttext_args, (0, 1)),
    ("mvn_cholesky", mvn_nll, mvn_args, (0, 1)),
]
