"""jitad.dask on a LocalCluster of two worker processes: full-batch gradients equal
jitad.value_and_grad's on the gathered data, data-parallel BPR reaches the AUC of one process,
replicas are averaged row by row (the plain average on a dense model, bit for bit; a row one
replica wrote keeps its change, a row none wrote is unchanged), misuse is refused by name, a function from `__main__` runs on workers that never saw its
source, and a worker killed mid-round costs no samples. Skipped when Dask is not installed."""
import logging
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

pytest.importorskip("distributed")
import dask.array as da  # noqa: E402
from dask.distributed import Client, LocalCluster, get_task_stream  # noqa: E402

import jitad  # noqa: E402
import jitad.dask as jd  # noqa: E402
import jitad.dask.combine as jdc  # noqa: E402

from . import dask_funcs as df  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import bpr  # noqa: E402


def _cluster():
    # the workers compile at -O1 whatever the suite's level (conftest): at -O0 Numba does not
    # disk-cache a function that calls another, and a restarted worker reads the disk cache
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                        dashboard_address=None, silence_logs=logging.CRITICAL,
                        env={"NUMBA_OPT": "1"})


@pytest.fixture(scope="module")
def client():
    with _cluster() as cluster, Client(cluster) as c:
        yield c


def _logistic_data(n=1200, d=5, chunks=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X @ rng.normal(size=d) + 0.5 * rng.normal(size=n))
    w = 0.1 * rng.normal(size=d)
    return w, X, y, da.from_array(X, chunks=(chunks, d)), da.from_array(y, chunks=chunks)


def test_value_and_grad_equals_jitad_on_the_gathered_data(client):
    w, X, y, dX, dy = _logistic_data()
    value, g = jd.value_and_grad(df.logistic, wrt=0)(w, dX, dy)
    want_v, want_g = jitad.value_and_grad(df.logistic, wrt=0)(w, X, y)
    assert value == pytest.approx(want_v, rel=1e-12)
    np.testing.assert_allclose(g, want_g, rtol=1e-11)
    # two differentiated arguments by name, a scalar constant, chunks of unequal sizes
    dX2, dy2 = dX.rechunk((500, 400, 300), 5), dy.rechunk((500, 400, 300))
    vg = jd.value_and_grad(df.logistic_bias, wrt=("w", "b"))
    value, (gw, gb) = vg(w, 0.3, dX2, dy2, 0.5)
    want_v, (ww, wb) = jitad.value_and_grad(df.logistic_bias, wrt=("w", "b"))(w, 0.3, X, y, 0.5)
    assert value == pytest.approx(want_v, rel=1e-12) and gb == pytest.approx(wb, rel=1e-11)
    np.testing.assert_allclose(gw, ww, rtol=1e-11)
    assert vg.last["workers"] == 2 and vg.last["rows"] == 1200
    # every chunk on one worker: half of them are read on the other (copied there once)
    w0 = sorted(client.scheduler_info()["workers"])[0]
    pX, py = client.persist([dX, dy], workers=[w0])
    value, g = jd.value_and_grad(df.logistic, wrt=0)(w, pX, py)
    np.testing.assert_allclose(g, jitad.value_and_grad(df.logistic)(w, X, y)[1], rtol=1e-11)
    vg = jd.value_and_grad(df.logistic, wrt=0)
    vg(w, pX, py)
    assert sorted(t["worker"] for t in vg.last["tasks"]) == sorted(client.scheduler_info()["workers"])


def test_a_call_whose_scattered_module_was_lost_scatters_it_again(client):
    # Dask may keep a broadcast value on one worker only; when that worker dies the value is
    # gone for good (it was scattered, not computed): the call ships the module again
    w, X, y, dX, dy = _logistic_data(seed=3)
    vg = jd.value_and_grad(df.logistic, wrt=0)
    want = vg(w, dX, dy)
    (_, fut), = vg._shipped.values()
    client.cancel([fut], force=True)
    got = vg(w, dX, dy)
    assert got[0] == want[0] and np.array_equal(got[1], want[1])     # same placement, same bits
    assert next(iter(vg._shipped.values()))[1].key != fut.key


def test_reg_is_added_once_and_lbfgs_on_the_workers_matches_one_process(client):
    from scipy.optimize import minimize
    w, X, y, dX, dy = _logistic_data(seed=1)
    vg = jd.value_and_grad(df.logistic, wrt=0, reg=df.ridge)
    value, g = vg(w, dX, dy)
    want = jitad.value_and_grad(df.logistic_ridge, wrt=0)(w, X, y)
    assert value == pytest.approx(want[0], rel=1e-12)
    np.testing.assert_allclose(g, want[1], rtol=1e-11)
    res = minimize(lambda v: vg(v, dX, dy), np.zeros(5), jac=True, method="L-BFGS-B")
    ref = minimize(lambda v: jitad.value_and_grad(df.logistic_ridge)(v, X, y), np.zeros(5),
                   jac=True, method="L-BFGS-B")
    assert res.success and res.nit == ref.nit
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-8)


@pytest.mark.parametrize("fn, says", [(df.logistic_mean, "looks like a mean"),
                                      (df.logistic_ridge, "pass it as reg=")])
def test_a_loss_that_is_not_a_sum_over_rows_is_refused(client, fn, says):
    w, X, y, dX, dy = _logistic_data(seed=2)
    with pytest.raises(jitad.JitadError, match="sum over the rows") as e:
        jd.value_and_grad(fn, wrt=0)(w + 1.0, dX, dy)
    assert says in str(e.value) and "dask_funcs.py" in str(e.value)


def test_misuse_is_refused_by_name(client):
    w, X, y, dX, dy = _logistic_data()
    vg = jd.value_and_grad(df.logistic, wrt=0)
    with pytest.raises(jitad.JitadError, match=r"y and X are chunked differently.*rechunk"):
        vg(w, dX, dy.rechunk(400))
    with pytest.raises(jitad.JitadError, match=r"X is chunked along axis 1.*rechunk\(\{1: -1\}\)"):
        vg(w, dX.rechunk((300, 2)), dy)
    with pytest.raises(jitad.JitadError, match="'w' is a dask array, but it is differentiated"):
        vg(da.from_array(w), dX, dy)
    with pytest.raises(jitad.JitadError, match="'y' is a NumPy array with as many rows"):
        vg(w, dX, y)
    with pytest.raises(jitad.JitadError, match="got no dask array"):
        vg(w, X, y)
    with pytest.raises(jitad.JitadError, match="y has 1,000 rows but X has 1,200"):
        vg(w, dX, dy[:1000])
    with pytest.raises(jitad.JitadError, match="unknown size"):
        vg(w, dX[dy > 0], dy[dy > 0])
    with pytest.raises(jitad.JitadError, match="reg takes the differentiated arguments"):
        jd.value_and_grad(df.logistic, wrt=0, reg=df.logistic)
    step = jitad.train_step(df.bpr_loss, wrt=("U", "V"))
    U, V = np.zeros((3, 2)), np.zeros((4, 2))
    idx = np.zeros(10, np.int64)
    with pytest.raises(jitad.JitadError, match="takes 5 arguments"):
        jd.fit(step, (U, V), data=(idx, idx), progress=False)
    with pytest.raises(jitad.JitadError, match="'U' must be a NumPy array"):
        jd.fit(step, (da.from_array(U), V), data=(idx, idx, idx), progress=False)


def _bpr_setup(n_users=300, n_items=400, n=30_000):
    users, items = bpr.synthetic(n_users=n_users, n_items=n_items, n=n)
    (tu, ti), (hu, hi) = bpr.leave_one_out(users, items)
    negs = np.random.default_rng(0).integers(0, n_items, len(tu))
    rng = np.random.default_rng(1)
    U0, V0 = rng.normal(0, 0.1, (n_users, 16)), rng.normal(0, 0.1, (n_items, 16))
    step = jitad.train_step(df.bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=0.1))
    return step, U0, V0, (tu, ti, negs), (hu, hi)


def test_fit_on_two_workers_reaches_the_auc_of_one_process(client):
    step, U0, V0, data, (hu, hi) = _bpr_setup()
    U1, V1 = U0.copy(), V0.copy()
    jitad.fit(step, (U1, V1), data=data, epochs=10, progress=False)
    U2, V2 = U0.copy(), V0.copy()
    with get_task_stream(client) as ts:
        hist = jd.fit(step, (U2, V2), data=data, epochs=10, rounds_per_epoch=4, client=client,
                      seed=0, progress=False)
    auc1, auc2 = bpr.auc(U1, V1, hu, hi), bpr.auc(U2, V2, hu, hi)
    assert auc2 > 0.6 and abs(auc2 - auc1) <= 0.01, (auc1, auc2)
    n = len(data[0])
    assert hist.samples == [n] * 10 and len(hist.rounds) == 40 and not hist.events
    assert hist.combine == {"U": "sum", "V": "sum"}      # "auto": both tables are read by index
    assert hist.loss[-1] < hist.loss[0] and len(hist.replicas) == 2
    assert {len(r.workers) for r in hist.rounds} == {2}
    p_bytes = U0.nbytes + V0.nbytes
    # the parameters go to the workers once an epoch; between rounds they stay there
    assert all(r.bytes_sent == (2 * p_bytes if r.round == 0 else 0) for r in hist.rounds)
    # the samples come ordered by user, so each replica holds its own users: it sends back only
    # their rows of U (and all of V, which both replicas write)
    assert all(r.bytes_received < 2 * p_bytes - U0.nbytes // 2 for r in hist.rounds)
    assert all(r.rows_changed[1] == (len(V0), 0, 0) and r.rows_changed[0][0] <= 1
               for r in hist.rounds), hist.rounds[-1].rows_changed
    assert set(hist.rounds[0].first_call_seconds) == {0, 1}       # compiled at the first round
    groups = {k[0] for k in (t["key"] for t in ts.data) if isinstance(k, tuple)}
    assert {f"jitad-fit-round-{k}" for k in range(40)} <= groups  # the dashboard's task groups
    assert {f"jitad-fit-combine-{k}" for k in range(3, 40, 4)} <= groups   # one an epoch
    # averaging the replicas instead: here each replica holds its own users (the samples come
    # ordered by user), so only the item rows are shared, and it is close enough too
    U3, V3 = U0.copy(), V0.copy()
    h3 = jd.fit(step, (U3, V3), data=data, epochs=10, rounds_per_epoch=4, combine="average",
                seed=0, progress=False)
    assert abs(bpr.auc(U3, V3, hu, hi) - auc1) <= 0.01 and h3.combine == {"U": "average", "V": "average"}
    with pytest.raises(jitad.JitadError, match="combine='median'"):
        jd.fit(step, (U3, V3), data=data, combine="median", progress=False)


def _plain_average(start, replicas):
    """What jd.fit computed before averaging row by row: every replica's whole parameters."""
    out = []
    total = sum(n for n, _ in replicas)
    for j, s in enumerate(start):
        acc = np.zeros_like(s)
        for n, params in replicas:
            acc += (n / total) * params[j]
        out.append(acc)
    return out


def test_row_wise_averaging_is_the_plain_average_where_every_replica_changed_a_row():
    rng = np.random.default_rng(7)
    start = [rng.normal(size=(50, 4)), rng.normal(size=6)]
    trained = [[s + rng.normal(size=s.shape) for s in start] for _ in range(3)]
    samples = [1000, 977, 1013]
    reps = [(n, [jdc.report(s, p) for s, p in zip(start, ps)]) for n, ps in zip(samples, trained)]
    assert all(r[0] == "all" for _, rr in reps for r in rr)
    new, stats = jdc.combine(start, reps)
    for a, b in zip(new, _plain_average(start, list(zip(samples, trained)))):
        assert np.array_equal(a, b)                  # dense: bit for bit
    assert stats == [(50, 0, 0), (6, 0, 0)]
    summed, _ = jdc.combine(start, reps, "sum")
    want = start[0].copy()
    for p in trained:
        want += p[0] - start[0]
    assert np.array_equal(summed[0], want)
    # rows 0-9 changed by all three, 10-19 by replica 1 only, 20-29 by replicas 0 and 2 only,
    # 30-49 by none (a replica that trained nothing counts for nothing)
    s0 = start[0]
    ps = [s0.copy() for _ in range(3)]
    for g in range(3):
        ps[g][:10] += rng.normal(size=(10, 4))
    ps[1][10:20] += 1.0
    for g in (0, 2):
        ps[g][20:30] -= rng.normal(size=(10, 4))
    reps = [(n, [jdc.report(s0, p)]) for n, p in zip(samples, ps)] + [(0, [("all", s0 + 9.0)])]
    assert [r[0][0] for _, r in reps[:3]] == ["mask", "mask", "mask"]
    (new,), (stat,) = jdc.combine([s0], reps)
    assert stat == (10, 20, 20)
    assert np.array_equal(new[:10], _plain_average([s0[:10]], [(n, [p[:10]]) for n, p in zip(samples, ps)])[0])
    assert np.array_equal(new[10:20], ps[1][10:20])            # its whole change
    w0, w2 = samples[0] / (samples[0] + samples[2]), samples[2] / (samples[0] + samples[2])
    np.testing.assert_allclose(new[20:30], w0 * ps[0][20:30] + w2 * ps[2][20:30], rtol=1e-14)
    assert np.array_equal(new[30:], s0[30:])                   # unchanged, to the bit
    (summed,), _ = jdc.combine([s0], reps, "sum")
    np.testing.assert_allclose(summed, s0 + sum(p - s0 for p in ps), rtol=1e-14)
    assert np.array_equal(summed[30:], s0[30:])
    # a few rows of a long table travel by index, and a NaN row counts as changed
    big = np.zeros((10_000, 2))
    moved = big.copy()
    moved[[3, 7000]] = [[1.0, 2.0], [np.nan, 0.0]]
    r = jdc.report(big, moved)
    assert r[0] == "rows" and list(r[1]) == [3, 7000] and r[2].shape == (2, 2)
    (new,), _ = jdc.combine([big], [(5, [r])])
    assert new[3, 1] == 2.0 and np.isnan(new[7000, 0]) and np.count_nonzero(new[:3]) == 0
    with pytest.raises(jitad.JitadError, match="sent back rows of shape"):
        jdc.combine([big], [(5, [("rows", r[1], r[2][:1])])])
    with pytest.raises(jitad.JitadError, match="combine='mean'"):
        jdc.combine([big], [(5, [r])], "mean")


def test_fit_of_a_dense_model_averages_as_before_bit_for_bit(client):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 4))
    Y = np.tanh(X @ rng.normal(size=(4, 3)))
    W, b = 0.1 * rng.normal(size=(3, 4)), np.zeros(3)
    step = jitad.train_step(df.dense_sample, wrt=("W", "b"), optimizer=jitad.optim.SGD(lr=0.05))
    # every row changed, so every report is "all" and the combining is the plain average,
    # bit for bit (test_row_wise_averaging_is_the_plain_average_where_every_replica_changed_a_row:
    # the combining runs on the workers, with the same function)
    hist = jd.fit(step, (W, b), data=(X, Y), epochs=2, rounds_per_epoch=2, client=client,
                  progress=False)
    assert hist.combine == {"W": "average", "b": "average"}      # "auto": dense parameters
    assert all(r.rows_changed == [(3, 0, 0), (3, 0, 0)] for r in hist.rounds)
    assert all(r.bytes_received == 2 * (W.nbytes + b.nbytes) for r in hist.rounds)
    assert hist.loss[-1] < hist.loss[0]


def test_a_row_one_replica_wrote_keeps_its_change_and_rows_none_wrote_stay(client):
    # two blocks the replicas never share -- replica 0 (the first half of the samples) reads
    # users 0-99 and items 0-99, replica 1 users 100-199 and items 100-199 -- and 20 rows of
    # each table no sample reads: averaging row by row is then adding the changes
    rng = np.random.default_rng(4)
    n = 8000
    half = np.arange(n) >= n // 2
    users = rng.integers(0, 100, n) + 100 * half
    items = rng.integers(0, 100, n) + 100 * half
    negs = rng.integers(0, 100, n) + 100 * half
    U0, V0 = rng.normal(0, 0.1, (220, 8)), rng.normal(0, 0.1, (220, 8))
    step = jitad.train_step(df.bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=0.1))
    runs = {}
    for how in ("average", "sum"):
        U, V = U0.copy(), V0.copy()
        hist = jd.fit(step, (U, V), data=(users, items, negs), epochs=2, rounds_per_epoch=2,
                      client=client, combine=how, progress=False)
        runs[how] = (U, V)
        assert np.array_equal(U[200:], U0[200:]) and np.array_equal(V[200:], V0[200:])
        assert not np.allclose(U[:200], U0[:200])
        assert all(r.rows_changed == [(0, 200, 20)] * 2 for r in hist.rounds)
        p_bytes = U0.nbytes + V0.nbytes
        assert all(r.bytes_received < 0.95 * p_bytes for r in hist.rounds)  # its rows, once
    for a, b in zip(runs["average"], runs["sum"]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_auto_sums_the_parameters_read_by_index_and_averages_the_dense_ones(client):
    rng = np.random.default_rng(6)
    n, n_items, k = 4000, 50, 4
    E, w = rng.normal(0, 0.1, (n_items, k)), rng.normal(size=k)
    items = rng.integers(0, n_items, n)
    y = rng.normal(size=n)
    step = jitad.train_step(df.embedding_regression, wrt=("E", "w"),
                            optimizer=jitad.optim.SGD(lr=0.01))
    start = E.copy(), w.copy()
    hist = jd.fit(step, (E, w), data=(items, y), epochs=2, rounds_per_epoch=2, client=client,
                  progress=False)
    assert hist.combine == {"E": "sum", "w": "average"}
    assert hist.loss[-1] < hist.loss[0] and not np.allclose(E, start[0])


def test_fit_takes_dask_arrays_and_a_replica_per_worker_holding_data(client):
    step, U0, V0, (tu, ti, negs), (hu, hi) = _bpr_setup(n=12_000)
    chunks = len(tu) // 4 + 1
    data = tuple(da.from_array(d, chunks=chunks) for d in (tu, ti, negs))
    U, V = U0.copy(), V0.copy()
    hist = jd.fit(step, (U, V), data=data, epochs=2, rounds_per_epoch=2, seed=3, progress=False)
    assert hist.samples == [len(tu)] * 2
    assert sorted(c for chunks_, _ in hist.replicas for c in chunks_) == [0, 1, 2, 3]
    assert not np.allclose(U, U0) and np.all(np.isfinite(V))
    with pytest.raises(jitad.JitadError, match="chunked differently"):
        jd.fit(step, (U, V), data=(data[0], data[1].rechunk(1000), data[2]), progress=False)


MAIN_SCRIPT = '''
import logging
import sys
import numpy as np
import dask.array as da
from dask.distributed import Client, LocalCluster
import jitad
import jitad.dask as jd

if __name__ == "__main__":
    # defined in __main__ only: a worker's re-import of this script (spawn) does not see it
    def loss(w, X, y):
        return np.sum((X @ w - y) ** 2)

    def sample_loss(w, x, y):
        return (np.dot(w, x) - y) ** 2

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      silence_logs=logging.CRITICAL) as cluster, Client(cluster) as client:
        assert not any(client.run(lambda: hasattr(sys.modules["__main__"], "loss")).values())
        rng = np.random.default_rng(0)
        X, w = rng.normal(size=(400, 3)), np.array([1.0, -2.0, 0.5])
        y = X @ w
        v, g = jd.value_and_grad(loss)(np.zeros(3), da.from_array(X, chunks=100),
                                       da.from_array(y, chunks=100))
        want = jitad.value_and_grad(loss)(np.zeros(3), X, y)
        assert np.isclose(v, want[0]) and np.allclose(g, want[1])
        step = jitad.train_step(sample_loss, wrt="w", optimizer=jitad.optim.SGD(lr=0.02))
        w0 = np.zeros(3)
        hist = jd.fit(step, (w0,), data=(X, y), epochs=5, rounds_per_epoch=2, progress=False)
        assert np.allclose(w0, w, atol=1e-3), w0
        print("OK", hist.samples)
'''


def test_a_function_defined_in_main_runs_on_the_workers(tmp_path):
    script = tmp_path / "driver.py"
    script.write_text(MAIN_SCRIPT)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, cwd=str(tmp_path))
    assert out.returncode == 0 and "OK [400, 400, 400, 400, 400]" in out.stdout, out.stderr[-4000:]


@pytest.mark.parametrize("rounds", [1, 4])
def test_a_worker_killed_mid_round_loses_no_samples(rounds):
    # one round an epoch: the round's task runs again on the other worker; four: a later
    # round's task too, where it has not its replica's round before -- Dask runs that round
    # again there from the epoch's start, or the task says so (ReplicaMoved) and the epoch runs
    # again
    rng = np.random.default_rng(5)
    n, n_users, n_items = 300_000, 2000, 3000
    data = (rng.integers(0, n_users, n), rng.integers(0, n_items, n), rng.integers(0, n_items, n))
    U, V = rng.normal(0, 0.1, (n_users, 32)), rng.normal(0, 0.1, (n_items, 32))
    step = jitad.train_step(df.bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.Adagrad(lr=0.05))
    killed = []
    with _cluster() as cluster, Client(cluster) as client:
        pids = client.run(os.getpid)

        def kill_during_round(targets=tuple(f"jitad-fit-round-{k}" for k in
                                            ((1, 2, 3) if rounds == 1 else (5, 6, 7)))):
            deadline = time.time() + 120
            while time.time() < deadline and not killed:
                for w, keys in client.processing().items():
                    hit = [k[0] for k in keys if isinstance(k, tuple) and k[0] in targets]
                    if hit:
                        os.kill(pids[w], signal.SIGKILL)
                        killed.extend([w, int(hit[0].rsplit("-", 1)[1])])
                        return
                time.sleep(0.005)

        def wait_for_the_restart(epoch, loss, hist):
            if killed:
                client.wait_for_workers(2, timeout=60)

        t = threading.Thread(target=kill_during_round, daemon=True)
        t.start()
        hist = jd.fit(step, (U, V), data=data, epochs=5 if rounds == 1 else 3,
                      rounds_per_epoch=rounds, client=client, progress=False,
                      callbacks=[wait_for_the_restart])
        t.join(1)
    assert killed, "the round ended before the worker could be killed"
    assert hist.samples == [n] * len(hist.seconds)     # every sample of every epoch, once
    # reported: by the worker's address, or (when the scheduler cancels the future before it
    # names the worker, seen under load) as the replica's lost task run again
    assert any(killed[0] in e or "was lost" in e for e in hist.events), hist.events
    assert np.all(np.isfinite(U)) and hist.loss[-1] < hist.loss[0]
    # the restarted worker took a replica back and loaded the step from the disk cache
    later = [r for r in hist.rounds if r.epoch > killed[1] // rounds]
    assert any(True in r.disk_cache.values() for r in later), [r.disk_cache for r in hist.rounds]
    assert all(len(set(r.workers.values())) == 2 for r in hist.rounds[-1:]), hist.events


def test_a_later_round_where_its_replica_did_not_run_asks_for_the_epoch_again():
    # run outside Dask: the task of round 1 finds no parameters of round 0 in this process
    # (as on a worker that took over a dead one's replica), so the epoch must run again
    import jitad.dask.worker as jdw
    from jitad.ship import Shipped
    from jitad.train import specialize_for_fit
    from jitad.dask.client import Payload
    step = jitad.train_step(df.bpr_loss, wrt=("U", "V"), optimizer=jitad.optim.SGD(lr=0.1))
    U, V = np.zeros((3, 2)), np.zeros((4, 2))
    idx = np.array([0, 1, 2], np.int64)
    shipped = Shipped.of(specialize_for_fit(step, (U, V), [idx[0]] * 3))
    plan = {"token": "t-moved", "rounds": 2, "seed": 0, "shuffle": True, "batch": None,
            "fields": 3, "state": [], "combine": ["sum", "sum"], "epoch": 0, "round": 0,
            "attempt": 0, "prev": 0, "replica": 0}
    out = jdw.fit_round(shipped, Payload((U, V)), plan, idx, idx, idx)
    assert out["samples"] == 1 and "log" not in out        # the record stays on the worker
    later = dict(plan, round=1, prev=1)
    jdw.fit_round(shipped, None, later, out, idx, idx, idx)
    assert [e["round"] for e in jdw.REPLICAS[("t-moved", 0)].log] == [0]
    with pytest.raises(jdw.ReplicaMoved, match="ran where its round 0 did not"):
        jdw.fit_round(shipped, None, dict(later, replica=1), out, idx, idx, idx)
    jdw.forget("t-moved")
