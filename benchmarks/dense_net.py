"""Workload 4: one SGD step of a dense net, batch 16, 3072-64-64-20, ReLU, softmax
cross-entropy (the shape of the DeepLearning.scala paper's benchmark), float64.

A step is the gradient wrt (W1, b1, W2, b2, W3, b3) plus the update `p -= lr * dp`; reported as
time per step and steps/s. The loss is one plain NumPy function (numerically stable softmax with
`np.max(z, axis=1)` and reshape for broadcasting) run by jitad (compiled and eager), autograd,
torch (a NumPy-like namespace over tensors) and JAX (`jax.numpy`); the baselines are backprop
written by hand in NumPy (the goal's baseline) and in Numba.
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "dense_net"
TITLE = "Dense net SGD step, batch 16, 3072-64-64-20, softmax cross-entropy"
B, D, H1, H2, K = 16, 3072, 64, 64, 20
LR = 0.01


def dense_loss(W1, b1, W2, b2, W3, b3, X, Y):
    h1 = np.maximum(X @ W1 + b1, 0.0)
    h2 = np.maximum(h1 @ W2 + b2, 0.0)
    z = h2 @ W3 + b3
    m = np.max(z, axis=1)
    zs = z - m.reshape((z.shape[0], 1))
    lse = np.log(np.sum(np.exp(zs), axis=1))
    logp = zs - lse.reshape((z.shape[0], 1))
    return -np.sum(Y * logp) / X.shape[0]


def dense_numpy(W1, b1, W2, b2, W3, b3, X, Y):
    """Backprop written by hand in NumPy."""
    n = X.shape[0]
    a1 = X @ W1 + b1
    h1 = np.maximum(a1, 0.0)
    a2 = h1 @ W2 + b2
    h2 = np.maximum(a2, 0.0)
    z = h2 @ W3 + b3
    zs = z - z.max(axis=1, keepdims=True)
    e = np.exp(zs)
    s = e.sum(axis=1, keepdims=True)
    loss = -np.sum(Y * (zs - np.log(s))) / n
    dz = (e / s * Y.sum(axis=1, keepdims=True) - Y) / n
    dW3 = h2.T @ dz
    db3 = dz.sum(axis=0)
    da2 = (dz @ W3.T) * (a2 > 0.0)
    dW2 = h1.T @ da2
    db2 = da2.sum(axis=0)
    da1 = (da2 @ W2.T) * (a1 > 0.0)
    dW1 = X.T @ da1
    db1 = da1.sum(axis=0)
    return loss, (dW1, db1, dW2, db2, dW3, db3)


@numba.njit
def dense_numba(W1, b1, W2, b2, W3, b3, X, Y):
    """The same backprop written by hand in Numba (explicit loops for the row reductions)."""
    n = X.shape[0]
    a1 = X @ W1 + b1
    h1 = np.maximum(a1, 0.0)
    a2 = h1 @ W2 + b2
    h2 = np.maximum(a2, 0.0)
    z = h2 @ W3 + b3
    k = z.shape[1]
    dz = np.empty_like(z)
    loss = 0.0
    for i in range(n):
        m = z[i, 0]
        for j in range(1, k):
            m = max(m, z[i, j])
        s = 0.0
        for j in range(k):
            s += math.exp(z[i, j] - m)
        ls = math.log(s)
        ysum = 0.0
        for j in range(k):
            ysum += Y[i, j]
            loss -= Y[i, j] * (z[i, j] - m - ls)
        for j in range(k):
            dz[i, j] = (math.exp(z[i, j] - m) / s * ysum - Y[i, j]) / n
    dW3 = np.ascontiguousarray(h2.T) @ dz
    db3 = dz.sum(axis=0)
    da2 = (dz @ np.ascontiguousarray(W3.T)) * (a2 > 0.0)
    dW2 = np.ascontiguousarray(h1.T) @ da2
    db2 = da2.sum(axis=0)
    da1 = (da2 @ np.ascontiguousarray(W2.T)) * (a1 > 0.0)
    dW1 = np.ascontiguousarray(X.T) @ da1
    db1 = da1.sum(axis=0)
    return loss / n, (dW1, db1, dW2, db2, dW3, db3)


@numba.njit
def sgd_numba(W1, b1, W2, b2, W3, b3, X, Y, lr):
    loss, (dW1, db1, dW2, db2, dW3, db3) = dense_numba(W1, b1, W2, b2, W3, b3, X, Y)
    W1 -= lr * dW1
    b1 -= lr * db1
    W2 -= lr * dW2
    b2 -= lr * db2
    W3 -= lr * dW3
    b3 -= lr * db3
    return loss


def data(seed=0):
    rng = np.random.default_rng(seed)
    params = (rng.normal(size=(D, H1)) / math.sqrt(D), np.zeros(H1) + 0.01,
              rng.normal(size=(H1, H2)) / math.sqrt(H1), np.zeros(H2) + 0.01,
              rng.normal(size=(H2, K)) / math.sqrt(H2), np.zeros(K))
    X = rng.normal(size=(B, D))
    Y = np.eye(K)[rng.integers(0, K, B)]
    return params, X, Y


def jitad_first_call():
    params, X, Y = data()
    return jitad.value_and_grad(dense_loss, wrt=(0, 1, 2, 3, 4, 5))(*params, X, Y)


def _numpy_step_case(grad_fn):
    """A Case for a system whose gradient function takes/returns NumPy arrays: the check is
    (loss, grads) at the initial parameters; the timed call is gradient + in-place update."""
    params0, X, Y = data()

    def make(_):
        params = [p.copy() for p in params0]

        def run():
            loss, grads = grad_fn(*params, X, Y)
            for p, g in zip(params, grads):
                p -= LR * g
            return loss
        return C.Case(run, check=lambda: grad_fn(*params0, X, Y))
    return make


def systems(ctx):
    out = [C.System("NumPy hand-written", reference=True, make=_numpy_step_case(dense_numpy))]
    params0, X, Y = data()

    def numba_case(_):
        params = [p.copy() for p in params0]
        return C.Case(lambda: sgd_numba(*params, X, Y, LR),
                      check=lambda: dense_numba(*params0, X, Y))
    out.append(C.System("hand-written Numba", make=numba_case))

    vg = jitad.value_and_grad(dense_loss, wrt=(0, 1, 2, 3, 4, 5))
    out.append(C.System("jitad compiled", make=_numpy_step_case(vg)))
    ve = jitad.value_and_grad(dense_loss, wrt=(0, 1, 2, 3, 4, 5), mode="eager")
    out.append(C.System("jitad eager", make=_numpy_step_case(ve)))

    autograd, why = C.peer("autograd")
    if autograd is None:
        out.append(C.System("autograd", status=C.SKIPPED, note=why))
    else:
        am, anp = C.autograd_namespaces()
        ga = autograd.value_and_grad(C.rebind(dense_loss, np=anp, math=am),
                                     argnum=(0, 1, 2, 3, 4, 5))
        out.append(C.System("autograd", version=C.peer_version("autograd"),
                            make=_numpy_step_case(ga)))

    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        tm, tn = C.torch_namespaces()
        ft = C.rebind(dense_loss, np=tn, math=tm)

        def torch_case(_):
            ps = [torch.tensor(p, requires_grad=True) for p in params0]
            tX, tY = torch.tensor(X), torch.tensor(Y)

            def run():
                loss = ft(*ps, tX, tY)
                gs = torch.autograd.grad(loss, ps)
                with torch.no_grad():
                    for p, g in zip(ps, gs):
                        p -= LR * g
                return loss

            def check():
                q = [torch.tensor(p, requires_grad=True) for p in params0]
                loss = ft(*q, tX, tY)
                return loss, torch.autograd.grad(loss, q)
            return C.Case(run, check)
        out.append(C.System("torch eager", version=C.peer_version("torch"), make=torch_case))

    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        fj = C.rebind(dense_loss, np=jnp)
        vgj = jax.value_and_grad(fj, argnums=(0, 1, 2, 3, 4, 5))

        @jax.jit
        def step(params, X, Y):
            loss, grads = vgj(*params, X, Y)
            return loss, tuple(p - LR * g for p, g in zip(params, grads))

        def jax_case(_):
            state = {"p": tuple(jnp.asarray(p) for p in params0)}
            jX, jY = jnp.asarray(X), jnp.asarray(Y)
            check_fn = jax.jit(vgj)

            def run():
                loss, state["p"] = step(state["p"], jX, jY)
                return jax.block_until_ready(loss)
            return C.Case(run, check=lambda: check_fn(*params0, jX, jY))
        out.append(C.System("JAX jit", version=C.peer_version("jax"), make=jax_case,
                            note="`jax.jit` of gradient + update (functional update)"))

    tangent, why = C.peer("tangent")
    if tangent is None:
        out.append(C.System("Tangent", status=C.SKIPPED, note=why))
    else:
        def tangent_case(size):
            try:
                g = tangent.grad(dense_loss, wrt=(0, 1, 2, 3, 4, 5), preserve_result=True,
                                 verbose=0)
                g(*params0, X, Y)            # Tangent may also fail at the first call
            except Exception as e:
                raise C.Unsupported(C._err_text(e))
            return _numpy_step_case(lambda *a: (lambda r: (r[-1], r[:-1]))(g(*a)))(size)
        out.append(C.System("Tangent", version=C.peer_version("tangent"), make=tangent_case))
    return out


def run(ctx):
    size = "batch 16"
    rows = C.run_systems(ctx, systems(ctx), [size], rtol=1e-9)
    params, X, Y = data()
    fd = C.fd_check(dense_loss, (*params, X, Y), (0, 1, 2, 3, 4, 5), dense_numpy(*params, X, Y)[1],
                    "6 random coordinates of each parameter")
    return {"title": TITLE, "sizes": [size], "rows": rows, "rate_label": "steps/s",
            "reference_fd": fd,
            "plot": "bars", "reference": "NumPy hand-written",
            "size_names": {size: "time per step (batch 16)"},
            "description": "float64; every system's gradient is compared with the NumPy "
                           "backprop at the same initial parameters, then a step (gradient + "
                           "update of all six parameters) is timed.",
            "goals": [C.goal("jitad ≤ NumPy hand-written",
                             C.ratio(rows, "jitad compiled", "NumPy hand-written", size), 1.0)]}
