"""Workload 5: one epoch of BPR matrix factorisation, per-sample SGD.

Each sample is (user u, positive item i, negative item j); the loss of a sample is

    def bpr_loss(pu, qi, qj):
        x = np.dot(pu, qi) - np.dot(pu, qj)
        return math.log1p(math.exp(-x))

over the rows pu = U[u], qi = V[i], qj = V[j] (k = 32), and the epoch applies
`row -= lr * (grad + reg * row)` to the three rows after every sample (lr = 0.05, reg = 0.01).
100,000 samples, 943 users, 1,682 items: synthetic data of MovieLens-100K's shape, with a
long-tailed (Zipf-like) item and user popularity, negatives uniform (never the positive);
`--movielens PATH` reads a real `u.data` instead (every rating is a positive, negatives uniform
among the items the user has not rated).

jitad: the per-sample loss is the plain function above; its compiled gradient
(`value_and_grad(bpr_loss, wrt=(0, 1, 2)).compiled(...)`) is called from an `@numba.njit` epoch
loop. Hand-written: the same loop with the gradient written out by hand. The eager systems run
the same per-sample loop in Python; JAX runs the epoch as one `jax.jit`-ed `lax.scan`.
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "bpr"
TITLE = "BPR matrix factorisation, one epoch of per-sample SGD (k = 32)"
N_USERS, N_ITEMS, N_SAMPLES, RANK = 943, 1682, 100_000, 32
LR, REG = 0.05, 0.01


def bpr_loss(pu, qi, qj):
    x = np.dot(pu, qi) - np.dot(pu, qj)
    return math.log1p(math.exp(-x))


@numba.njit
def epoch_handwritten(U, V, users, pos, neg, lr, reg):
    total = 0.0
    k = U.shape[1]
    for s in range(users.shape[0]):
        u = users[s]
        i = pos[s]
        j = neg[s]
        x = 0.0
        for f in range(k):
            x += U[u, f] * (V[i, f] - V[j, f])
        total += math.log1p(math.exp(-x))
        e = math.exp(-x)
        d = -e / (1.0 + e)                # d loss / d x
        for f in range(k):
            pu = U[u, f]
            qi = V[i, f]
            qj = V[j, f]
            U[u, f] = pu - lr * (d * (qi - qj) + reg * pu)
            V[i, f] = qi - lr * (d * pu + reg * qi)
            V[j, f] = qj - lr * (-d * pu + reg * qj)
    return total


@numba.njit
def bpr_value_and_grad_handwritten(pu, qi, qj):
    """The gradient written by hand with jitad's calling convention: returns the loss and
    three new gradient arrays (isolates the cost of that convention from jitad's code)."""
    x = 0.0
    for f in range(pu.shape[0]):
        x += pu[f] * (qi[f] - qj[f])
    e = math.exp(-x)
    d = -e / (1.0 + e)
    gu = np.empty_like(pu)
    gi = np.empty_like(qi)
    gj = np.empty_like(qj)
    for f in range(pu.shape[0]):
        gu[f] = d * (qi[f] - qj[f])
        gi[f] = d * pu[f]
        gj[f] = -d * pu[f]
    return math.log1p(e), (gu, gi, gj)


INTO_NAME = "jitad compiled_into (from an @njit epoch loop)"


@numba.njit(inline="always")
def sgd_rows(U, V, u, i, j, gu, gi, gj, lr, reg):
    """The SGD step with weight decay on the three rows a sample read (written into the epoch
    loops that call it, as if spelled out there)."""
    for f in range(U.shape[1]):
        pu = U[u, f]
        qi = V[i, f]
        qj = V[j, f]
        U[u, f] = pu - lr * (gu[f] + reg * pu)
        V[i, f] = qi - lr * (gi[f] + reg * qi)
        V[j, f] = qj - lr * (gj[f] + reg * qj)


def make_jitad_epoch(vg):
    """The same epoch loop, with the gradient from jitad's compiled `vg`."""
    @numba.njit
    def epoch_jitad(U, V, users, pos, neg, lr, reg):
        total = 0.0
        for s in range(users.shape[0]):
            u = users[s]
            i = pos[s]
            j = neg[s]
            loss, (gu, gi, gj) = vg(U[u], V[i], V[j])
            total += loss
            sgd_rows(U, V, u, i, j, gu, gi, gj, lr, reg)
        return total
    return epoch_jitad


def make_into_epoch(vg_into):
    """The same epoch loop, the gradient added into three buffers the loop owns (zeroed per
    sample) by jitad's `value_and_grad(...).compiled_into` kernel: no arrays made per sample."""
    @numba.njit
    def epoch_into(U, V, users, pos, neg, lr, reg):
        total = 0.0
        k = U.shape[1]
        gu = np.zeros(k)
        gi = np.zeros(k)
        gj = np.zeros(k)
        for s in range(users.shape[0]):
            u = users[s]
            i = pos[s]
            j = neg[s]
            gu[:] = 0.0
            gi[:] = 0.0
            gj[:] = 0.0
            loss, _ = vg_into(U[u], V[i], V[j], gu, gi, gj)
            total += loss
            sgd_rows(U, V, u, i, j, gu, gi, gj, lr, reg)
        return total
    return epoch_into


def bpr_table_loss(U, V, u, i, j):
    """The same loss written over the tables, for jitad.train_step (row-sparse updates)."""
    x = np.dot(U[u], V[i]) - np.dot(U[u], V[j])
    return math.log1p(math.exp(-x))


class SGDWeightDecay(jitad.optim.Optimizer):
    """SGD with L2 weight decay on the rows a sample touches: the hand-written update."""

    name = "bench_sgd_weight_decay"
    defaults = {"lr": LR, "reg": REG}
    update = "p = p - lr * (g + reg * p)"


def make_train_step_epoch():
    """An @njit epoch loop calling jitad.train_step's compiled step: loss, adjoint and the
    optimizer's update of the three rows in one generated function."""
    step = jitad.train_step(bpr_table_loss, wrt=("U", "V"), optimizer=SGDWeightDecay())
    U, V = np.zeros((2, RANK)), np.zeros((3, RANK))
    kernel = step.compiled(U, V, 0, 1, 2)

    @numba.njit
    def epoch_train_step(U, V, users, pos, neg, lr, reg):
        total = 0.0
        for s in range(users.shape[0]):
            total += kernel(U, V, users[s], pos[s], neg[s])
        return total
    return epoch_train_step


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def synthetic(seed=0):
    rng = np.random.default_rng(seed)
    iw = 1.0 / (np.arange(N_ITEMS) + 50.0)           # Zipf-like item popularity
    uw = 1.0 / (np.arange(N_USERS) + 40.0)           # and user activity
    items = rng.permutation(N_ITEMS)[rng.choice(N_ITEMS, N_SAMPLES, p=iw / iw.sum())]
    users = rng.permutation(N_USERS)[rng.choice(N_USERS, N_SAMPLES, p=uw / uw.sum())]
    neg = rng.integers(0, N_ITEMS - 1, N_SAMPLES)
    neg = neg + (neg >= items)                        # uniform over the other items
    return (users.astype(np.int64), items.astype(np.int64), neg.astype(np.int64),
            "synthetic, MovieLens-100K's shape, Zipf-like popularity (seed 0)")


def movielens(path, seed=0):
    raw = np.loadtxt(path, dtype=np.int64, usecols=(0, 1))
    users, items = raw[:, 0] - 1, raw[:, 1] - 1
    n_items = int(items.max()) + 1
    rated = {}
    for u, i in zip(users, items):
        rated.setdefault(int(u), set()).add(int(i))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(users))
    users, items = users[order], items[order]
    neg = np.empty_like(items)
    for s, u in enumerate(users):
        while True:
            j = int(rng.integers(0, n_items))
            if j not in rated[int(u)]:
                break
        neg[s] = j
    return users, items, neg, f"MovieLens u.data ({path}), {len(users):,} ratings as positives"


def init_params(n_users, n_items, seed=1):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 0.1, (n_users, RANK)), rng.normal(0.0, 0.1, (n_items, RANK))


def jitad_first_call():
    U, V = init_params(4, 4)
    vg = jitad.value_and_grad(bpr_loss, wrt=(0, 1, 2)).compiled(U[0], V[0], V[1])
    return vg(U[0], V[0], V[1])


# ---------------------------------------------------------------------------
# systems
# ---------------------------------------------------------------------------
def _python_epoch(vg_sample):
    """A per-sample Python loop around a gradient function returning NumPy values."""
    def epoch(U, V, users, pos, neg, lr, reg):
        total = 0.0
        for s in range(users.shape[0]):
            u, i, j = int(users[s]), int(pos[s]), int(neg[s])
            loss, (gu, gi, gj) = vg_sample(U[u], V[i], V[j])
            total += float(loss)
            U[u] -= lr * (gu + reg * U[u])
            V[i] -= lr * (gi + reg * V[i])
            V[j] -= lr * (gj + reg * V[j])
        return total
    return epoch


def systems(ctx, users, pos, neg, U0, V0):
    def case_for(epoch):
        """The check: one epoch on the first n samples from the initial parameters ->
        (total loss, U, V); the timed call: further epochs on the same n samples."""
        def make(n):
            uu, pp, nn = users[:n], pos[:n], neg[:n]
            U, V = U0.copy(), V0.copy()

            def check():
                Uc, Vc = U0.copy(), V0.copy()
                total = epoch(Uc, Vc, uu, pp, nn, LR, REG)
                return total, Uc, Vc
            return C.Case(lambda: epoch(U, V, uu, pp, nn, LR, REG), check)
        return make

    slow = 200 if ctx.quick else 2000            # samples the per-sample eager loops run
    out = [C.System("hand-written Numba", reference=True, make=case_for(epoch_handwritten))]
    out.append(C.System("hand-written Numba, jitad's calling convention",
                        make=case_for(make_jitad_epoch(bpr_value_and_grad_handwritten)),
                        note="the same epoch loop calling a hand-written `@njit` gradient "
                             "function that returns new arrays, as jitad's does"))
    vg = jitad.value_and_grad(bpr_loss, wrt=(0, 1, 2)).compiled(U0[0], V0[0], V0[1])
    out.append(C.System("jitad compiled (from an @njit epoch loop)",
                        make=case_for(make_jitad_epoch(vg))))
    vg_into = jitad.value_and_grad(bpr_loss, wrt=(0, 1, 2)).compiled_into(U0[0], V0[0], V0[1])
    out.append(C.System(INTO_NAME, make=case_for(make_into_epoch(vg_into)),
                        note="`value_and_grad(bpr_loss, wrt=(0, 1, 2)).compiled_into(...)`: "
                             "the gradient added into three buffers the loop zeroes per sample"))
    out.append(C.System("jitad train_step (update fused into the adjoint)",
                        make=case_for(make_train_step_epoch()),
                        note="`jitad.train_step(bpr_table_loss, wrt=(U, V))` with SGD + weight "
                             "decay as an optimizer plugin; only the 3 rows read are updated"))
    ve = jitad.value_and_grad(bpr_loss, wrt=(0, 1, 2), mode="eager")
    out.append(C.System("jitad eager (per-sample Python loop)", max_size=2 * slow,
                        make=case_for(_python_epoch(ve))))

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd (per-sample)", status=C.SKIPPED, note=why))
    else:
        am, anp = C.autograd_namespaces()
        ga = autograd.value_and_grad(C.rebind(bpr_loss, np=anp, math=am), argnum=(0, 1, 2))
        out.append(C.System("autograd (per-sample)", max_size=slow,
                            version=C.peer_version("autograd"), make=case_for(_python_epoch(ga))))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager (per-sample)", status=C.SKIPPED, note=why))
    else:
        tm, tn = C.torch_namespaces()
        ft = C.rebind(bpr_loss, np=tn, math=tm)

        def torch_epoch(U, V, users_, pos_, neg_, lr, reg):
            tU, tV = torch.from_numpy(U), torch.from_numpy(V)    # share memory with U, V
            total = 0.0
            for s in range(users_.shape[0]):
                u, i, j = int(users_[s]), int(pos_[s]), int(neg_[s])
                pu = tU[u].detach().requires_grad_(True)
                qi = tV[i].detach().requires_grad_(True)
                qj = tV[j].detach().requires_grad_(True)
                loss = ft(pu, qi, qj)
                gu, gi, gj = torch.autograd.grad(loss, (pu, qi, qj))
                total += loss.item()
                with torch.no_grad():
                    pu.sub_(lr * (gu + reg * pu))
                    qi.sub_(lr * (gi + reg * qi))
                    qj.sub_(lr * (gj + reg * qj))
            return total
        out.append(C.System("torch eager (per-sample)", max_size=slow,
                            version=C.peer_version("torch"), make=case_for(torch_epoch),
                            note="rows as leaf views of U, V; in-place updates"))

    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit, lax.scan over samples", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        from jax import lax
        fj = C.rebind(bpr_loss, np=jnp, math=jnp)
        vgj = jax.value_and_grad(fj, argnums=(0, 1, 2))

        @jax.jit
        def jax_epoch_fn(U, V, users_, pos_, neg_):
            def step(carry, s):
                U, V = carry
                u, i, j = s
                pu, qi, qj = U[u], V[i], V[j]
                loss, (gu, gi, gj) = vgj(pu, qi, qj)
                U = U.at[u].set(pu - LR * (gu + REG * pu))
                V = V.at[i].set(qi - LR * (gi + REG * qi))
                V = V.at[j].set(qj - LR * (gj + REG * qj))
                return (U, V), loss
            (U, V), losses = lax.scan(step, (U, V), (users_, pos_, neg_))
            return jnp.sum(losses), U, V

        def jax_epoch(U, V, users_, pos_, neg_, lr, reg):
            total, U2, V2 = jax.block_until_ready(
                jax_epoch_fn(jnp.asarray(U), jnp.asarray(V), jnp.asarray(users_),
                             jnp.asarray(pos_), jnp.asarray(neg_)))
            U[...] = np.asarray(U2)
            V[...] = np.asarray(V2)
            return float(total)
        out.append(C.System("JAX jit, lax.scan over samples", max_size=10 * slow,
                            version=C.peer_version("jax"), make=case_for(jax_epoch),
                            note="functional row updates (`.at[].set`) in the scan carry; "
                                 "includes copying U, V in and out"))

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent (per-sample)", status=C.SKIPPED, note=why))
    else:
        def tangent_make(n):
            try:
                g = tangent.grad(C.rebind(bpr_loss, math=np), wrt=(0, 1, 2),
                                 preserve_result=True, verbose=0)
            except Exception as e:
                raise C.Unsupported(C._err_text(e))

            def vg_sample(pu, qi, qj):
                gu, gi, gj, loss = g(pu, qi, qj)
                return loss, (gu, gi, gj)
            return case_for(_python_epoch(vg_sample))(n)
        out.append(C.System("Tangent (per-sample)", max_size=2 * slow,
                            version=C.peer_version("tangent"), make=tangent_make,
                            note="`math` bound to NumPy"))
    return out


def reference_fd(U0, V0):
    """The hand-written epoch's gradient, read off a one-sample epoch with lr = 1, reg = 0
    (row_new = row - grad), against central differences of `bpr_loss`."""
    u, i, j = 3, 5, 7
    U, V = U0.copy(), V0.copy()
    one = np.array([u], np.int64), np.array([i], np.int64), np.array([j], np.int64)
    epoch_handwritten(U, V, *one, 1.0, 0.0)
    grads = (U0[u] - U[u], V0[i] - V[i], V0[j] - V[j])
    return C.fd_check(bpr_loss, (U0[u].copy(), V0[i].copy(), V0[j].copy()), (0, 1, 2), grads,
                      "one sample, all 3 × 32 row entries", coords_per_array=RANK)


def run(ctx):
    if ctx.movielens:
        users, pos, neg, source = movielens(ctx.movielens)
    else:
        users, pos, neg, source = synthetic()
    n_users, n_items = int(users.max()) + 1, int(max(pos.max(), neg.max())) + 1
    if not ctx.movielens:
        n_users, n_items = N_USERS, N_ITEMS
    U0, V0 = init_params(n_users, n_items)
    n = min(10_000, len(users)) if ctx.quick else len(users)
    rows = C.run_systems(ctx, systems(ctx, users, pos, neg, U0, V0), [n], rtol=1e-8)
    jit_name = "jitad compiled (from an @njit epoch loop)"
    pop = np.bincount(pos, minlength=n_items)
    return {"title": TITLE, "size_label": "samples", "sizes": [n], "rows": rows,
            "reference_fd": reference_fd(U0, V0),
            "size_names": {str(n): f"one epoch ({n:,} samples)"},
            "plot": "bars", "reference": "hand-written Numba",
            "description": f"Data: {source}; {n_users:,} users, {n_items:,} items, {n:,} samples "
                           f"per epoch; the most popular item is the positive of "
                           f"{int(pop.max()):,} samples, the median item of {int(np.median(pop))}. "
                           "Checked: the total loss and U, V after one epoch from the same "
                           "initial parameters (on the subset a slow system is measured on).",
            "goals": [
                C.goal("jitad ≤ 1.5× hand-written", C.ratio(rows, jit_name, "hand-written Numba", n),
                       1.5),
                C.goal("jitad compiled_into ≤ 1.5× hand-written",
                       C.ratio(rows, INTO_NAME, "hand-written Numba", n), 1.5),
                C.goal("jitad train_step ≤ 1.5× hand-written",
                       C.ratio(rows, "jitad train_step (update fused into the adjoint)",
                               "hand-written Numba", n), 1.5),
                C.goal("jitad ≥ 300× faster than JAX lax.scan",
                       C.ratio(rows, "JAX jit, lax.scan over samples", jit_name, n), 300,
                       "higher", "{:,.0f}×"),
                C.goal("jitad ≥ 5,000× faster than torch eager per-sample",
                       C.ratio(rows, "torch eager (per-sample)", jit_name, n), 5000, "higher",
                       "{:,.0f}×")]}
