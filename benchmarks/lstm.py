"""Workload 11: ADBench's LSTM objective (Srajer, Baydin, Fitzgibbon 2018), objective + gradient
wrt (main_params, extra_params, state), over a sequence of c characters.

The model, as ADBench defines it (written here in plain NumPy from those definitions): l layers
of a "diagonal" LSTM cell over b = 14 features (ADBench's sequences are the characters of a
text in 14 bits each): the gates are `concatenate((x, h, x, h)) * weight + bias` (elementwise:
forget and output gates read the input, the input gate and the candidate the hidden state);
the prediction is `h_top * extra[1] + extra[2]` (the input scaled by extra[0] first); the loss
is minus the mean over the sequence of `sum(y * (ypred - log(sum(exp(ypred)) + 2)))` -- ADBench's
"logsumexp" adds 2 inside the log in every implementation, kept here. Parameters: main_params
(2l, 4b) (a weight and a bias row per layer), extra_params (3, b), state (2l, b) (hidden, cell per
layer); synthetic data of ADBench's shapes: parameters ~ U(0, 1), the sequence random bits.
Sizes: ADBench's four, l in {2, 4} layers, c in {1,024, 4,096} characters.

One plain source (`lstm_objective` and its helpers) runs in jitad (compiled and eager), autograd
and torch (rebound with `common.rebind_all`); JAX runs the same helpers in jax.numpy with the
loop over characters written as a `lax.scan` (a Python loop would unroll 4,095 steps at trace
time). The hand-written Numba gradient (the reference) stores every gate per step and layer and
runs backprop through time by hand; it is checked against central differences.
"""
import math

import numba
import numpy as np

import jitad
from benchmarks import common as C

NAME = "lstm"
TITLE = "ADBench LSTM objective (b = 14): objective + gradient"
B = 14
SIZES = [(2, 1024), (4, 1024), (2, 4096), (4, 4096)]
QUICK_SIZES = [(2, 64)]
WRT = (0, 1, 2)
COMPILE_GOALS = {"cold_s": 3.0, "cached_s": 0.3}


# ---------------------------------------------------------------------------
# the objective, as a NumPy user writes it from the paper
# ---------------------------------------------------------------------------
def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    b = hidden.shape[0]
    forget = sigmoid(gates[0:b])
    ingate = sigmoid(gates[b:2 * b])
    outgate = sigmoid(gates[2 * b:3 * b])
    change = np.tanh(gates[3 * b:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(w, w2, s, x):
    """One character through every layer: the prediction and the new state (2l, b)."""
    x = x * w2[0]
    rows = []
    for i in range(0, s.shape[0], 2):
        hidden, cell = lstm_model(w[i], w[i + 1], s[i], s[i + 1], x)
        rows.append(hidden)
        rows.append(cell)
        x = hidden
    return x * w2[1] + w2[2], np.stack(rows)


def lstm_objective(main_params, extra_params, state, sequence):
    total = 0.0
    x = sequence[0]
    s = state
    for t in range(sequence.shape[0] - 1):
        ypred, s = lstm_predict(main_params, extra_params, s, x)
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)   # ADBench's "logsumexp" (+ 2)
        y = sequence[t + 1]
        total = total + np.sum(y * ynorm)
        x = y
    return -total / ((sequence.shape[0] - 1) * sequence.shape[1])


FUNCS = [lstm_objective, lstm_predict, lstm_model, sigmoid]


def jax_objective(jax):
    """The JAX rewrite: the same helpers in jax.numpy, the character loop as a `lax.scan`."""
    import jax.numpy as jnp
    predict = C.rebind_all(FUNCS, np=jnp)["lstm_predict"]

    def objective(main_params, extra_params, state, sequence):
        def step(carry, y):
            s, x, total = carry
            ypred, s = predict(main_params, extra_params, s, x)
            ynorm = ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2.0)
            return (s, y, total + jnp.sum(y * ynorm)), None
        (_, _, total), _ = jax.lax.scan(step, (state, sequence[0], 0.0), sequence[1:])
        return -total / ((sequence.shape[0] - 1) * sequence.shape[1])
    return objective


# ---------------------------------------------------------------------------
# the hand-written gradient
# ---------------------------------------------------------------------------
@numba.njit
def lstm_numba(main_params, extra_params, state, sequence):
    """Value and gradient wrt (main_params, extra_params, state): the forward pass stores every
    layer's input, previous state and gates per character; backprop through time by hand."""
    T = sequence.shape[0] - 1
    b = sequence.shape[1]
    L = state.shape[0] // 2
    inp = np.empty((T, L, b))
    hprev = np.empty((T, L, b))
    cprev = np.empty((T, L, b))
    fg = np.empty((T, L, b))
    ig = np.empty((T, L, b))
    og = np.empty((T, L, b))
    ch = np.empty((T, L, b))
    tc = np.empty((T, L, b))
    ypred = np.empty((T, b))
    lse = np.empty(T)
    h = np.empty((L, b))
    c = np.empty((L, b))
    for i in range(L):
        h[i] = state[2 * i]
        c[i] = state[2 * i + 1]
    total = 0.0
    for t in range(T):
        for j in range(b):
            inp[t, 0, j] = sequence[t, j] * extra_params[0, j]
        for i in range(L):
            W = main_params[2 * i]
            Bi = main_params[2 * i + 1]
            for j in range(b):
                x = inp[t, i, j]
                hp = h[i, j]
                cp = c[i, j]
                hprev[t, i, j] = hp
                cprev[t, i, j] = cp
                f = 1.0 / (1.0 + math.exp(-(x * W[j] + Bi[j])))
                g = 1.0 / (1.0 + math.exp(-(hp * W[b + j] + Bi[b + j])))
                o = 1.0 / (1.0 + math.exp(-(x * W[2 * b + j] + Bi[2 * b + j])))
                cc = math.tanh(hp * W[3 * b + j] + Bi[3 * b + j])
                cn = cp * f + g * cc
                tcn = math.tanh(cn)
                fg[t, i, j] = f
                ig[t, i, j] = g
                og[t, i, j] = o
                ch[t, i, j] = cc
                tc[t, i, j] = tcn
                c[i, j] = cn
                h[i, j] = o * tcn
                if i + 1 < L:
                    inp[t, i + 1, j] = o * tcn
        se = 0.0
        for j in range(b):
            yp = h[L - 1, j] * extra_params[1, j] + extra_params[2, j]
            ypred[t, j] = yp
            se += math.exp(yp)
        lse[t] = math.log(se + 2.0)
        for j in range(b):
            total += sequence[t + 1, j] * (ypred[t, j] - lse[t])
    scale = 1.0 / (T * b)
    value = -total * scale
    d_main = np.zeros_like(main_params)
    d_extra = np.zeros_like(extra_params)
    gh = np.zeros((L, b))                 # cotangents of the state carried back in time
    gc = np.zeros((L, b))
    gy = np.empty(b)
    for t in range(T - 1, -1, -1):
        gsum = 0.0
        for j in range(b):
            gy[j] = -scale * sequence[t + 1, j]
            gsum += gy[j]
        et = math.exp(lse[t])
        for j in range(b):
            gyp = gy[j] - gsum * math.exp(ypred[t, j]) / et
            htop = og[t, L - 1, j] * tc[t, L - 1, j]
            d_extra[1, j] += gyp * htop
            d_extra[2, j] += gyp
            gh[L - 1, j] += gyp * extra_params[1, j]
        for i in range(L - 1, -1, -1):
            W = main_params[2 * i]
            dW = d_main[2 * i]
            dB = d_main[2 * i + 1]
            for j in range(b):
                f = fg[t, i, j]
                g = ig[t, i, j]
                o = og[t, i, j]
                cc = ch[t, i, j]
                tcn = tc[t, i, j]
                x = inp[t, i, j]
                hp = hprev[t, i, j]
                ghj = gh[i, j]
                gcn = gc[i, j] + ghj * o * (1.0 - tcn * tcn)
                go = ghj * tcn * o * (1.0 - o)
                gf = gcn * cprev[t, i, j] * f * (1.0 - f)
                gg = gcn * cc * g * (1.0 - g)
                gcc = gcn * g * (1.0 - cc * cc)
                dW[j] += gf * x
                dB[j] += gf
                dW[b + j] += gg * hp
                dB[b + j] += gg
                dW[2 * b + j] += go * x
                dB[2 * b + j] += go
                dW[3 * b + j] += gcc * hp
                dB[3 * b + j] += gcc
                gx = gf * W[j] + go * W[2 * b + j]
                gc[i, j] = gcn * f
                gh[i, j] = gg * W[b + j] + gcc * W[3 * b + j]
                if i > 0:
                    gh[i - 1, j] += gx
                else:
                    d_extra[0, j] += gx * sequence[t, j]
    d_state = np.empty_like(state)
    for i in range(L):
        d_state[2 * i] = gh[i]
        d_state[2 * i + 1] = gc[i]
    return value, (d_main, d_extra, d_state)


# ---------------------------------------------------------------------------
# data and systems
# ---------------------------------------------------------------------------
def data(layers, chars, seed=0):
    rng = np.random.default_rng(seed + 10 * layers + chars)
    main_params = rng.uniform(size=(2 * layers, 4 * B))
    extra_params = rng.uniform(size=(3, B))
    state = rng.uniform(size=(2 * layers, B))
    sequence = (rng.uniform(size=(chars, B)) < 0.5).astype(np.float64)
    return main_params, extra_params, state, sequence


def size_key(lc):
    return f"l={lc[0]}, c={lc[1]:,}"


def jitad_first_call():
    return jitad.value_and_grad(lstm_objective, wrt=WRT)(*data(*QUICK_SIZES[0]))


def systems(ctx, sizes):
    by_key = {size_key(lc): lc for lc in sizes}

    def args_of(key):
        return data(*by_key[key])

    out = C.objective_rows(ctx, args_of, lstm_numba, lstm_objective, WRT)
    if ctx.quick:
        return out
    jax, why = C.peer("jax")
    if jax is None:
        out.append(C.System("JAX jit, lax.scan", status=C.SKIPPED, note=why))
    else:
        import jax.numpy as jnp
        g = jax.jit(jax.value_and_grad(jax_objective(jax), argnums=WRT))

        def jax_case(key):
            ja = tuple(jnp.asarray(v) for v in args_of(key))
            return C.Case(lambda: jax.block_until_ready(g(*ja)))
        out.append(C.System("JAX jit, lax.scan", version=C.peer_version("jax"), make=jax_case,
                            note="`jax.jit(jax.value_and_grad(f))`: the same helpers in "
                                 "jax.numpy, the character loop a `lax.scan`; one compile "
                                 "per shape"))
    out.append(C.autograd_row(FUNCS, "lstm_objective", args_of, WRT))
    torch, why = C.peer("torch")
    if torch is None:
        out.append(C.System("torch eager", status=C.SKIPPED, note=why))
    else:
        _, tn = C.torch_namespaces()
        ft = C.rebind_all(FUNCS, np=tn)["lstm_objective"]

        def torch_case(key):
            a = args_of(key)
            seq = torch.tensor(a[3])

            def run():
                ps = [torch.tensor(v, requires_grad=True) for v in a[:3]]
                loss = ft(*ps, seq)
                return loss, torch.autograd.grad(loss, ps)
            return C.Case(run)
        out.append(C.System("torch eager", version=C.peer_version("torch"), make=torch_case))
    return out


def scale_by_chars(rows, sizes):
    """A system that ran out of time budget before the longer sequences: its time there is
    scaled linearly in the characters from the same depth's measured size (marked †)."""
    for row in rows:
        if row["status"] != C.OK:
            continue
        for lc in sizes:
            if C.cell(row, size_key(lc)):
                continue
            base = [m for m in sizes if m[0] == lc[0] and m[1] < lc[1] and C.cell(row, size_key(m))]
            if base:
                m = max(base, key=lambda s: s[1])
                row["results"][size_key(lc)] = {
                    "median_s": C.cell(row, size_key(m))["median_s"] * (lc[1] - 1) / (m[1] - 1),
                    "scaled_from": size_key(m)}


def run(ctx):
    sizes = QUICK_SIZES if ctx.quick else SIZES
    keys = [size_key(lc) for lc in sizes]
    rows = C.run_systems(ctx, systems(ctx, sizes), keys, rtol=1e-9)
    scale_by_chars(rows, sizes)
    a = data(2, 64)
    fd = C.fd_check(lstm_objective, a, WRT, lstm_numba(*a)[1],
                    "l = 2, c = 64: 6 random coordinates of each parameter", rtol=1e-6)
    jax_name = "JAX jit, lax.scan"
    ratios = [C.ratio(rows, "jitad compiled", jax_name, k) for k in keys]
    measured = [r for r in ratios if r is not None]
    worst = max(measured) if measured and len(measured) == len(keys) else None
    return {"title": TITLE, "sizes": keys, "rows": rows, "reference_fd": fd, "plot": "bars",
            "reference": "hand-written Numba",
            "description": (
                f"b = {B}; value and gradient wrt (main_params, extra_params, state) per call. "
                "One plain NumPy source (`benchmarks/lstm.py`) in jitad, autograd and torch; "
                "JAX runs its helpers with the character loop as a `lax.scan`. Every row is "
                "checked against the hand-written Numba gradient (rtol 1e-9) before it is "
                "timed. A system whose samples exceed the time budget is scaled linearly in "
                "characters from the same depth (†); —: not measured (autograd takes 3-4 s "
                "per call at l = 2, c = 1,024)."),
            "extra_md": C.ratio_table(rows, keys, "jitad compiled", jax_name),
            "goals": [C.goal(f"jitad compiled ≤ 1.0× {jax_name} (worst size)", worst, 1.0)]}
