"""Recall: the back end's result read back from disk (`jitad.recall`) -- a hit gives the code
the passes made, any change of an input they read is a miss, a damaged record is a miss."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import jitad
from jitad import extend, primitives, recall
from tests.harness import central_fd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = '''
import numpy as np
import {dep}

K = {k}


def scaled(v, s={s}):
    return s * np.tanh(v)


def loss(x, w):
    total = 0.0
    i = 0
    while i < x.shape[0]:
        if x[i] > 0.0:
            total += {dep}.bump(scaled(x[i] * w)) * K
        else:
            total -= x[i] ** 2
        i += 1
    return total + np.sum(np.cross(x[:3], x[3:6])) + np.sum(np.concatenate((x[:1], x[2:3])))
'''
DEP = '''
import numpy as np


def bump(u):
    return {bump}
'''
X = np.array([0.3, -0.7, 1.1, 0.4, -0.2, 0.9])


@pytest.fixture
def project(tmp_path, monkeypatch):
    """Write and (re)import a two-module user project; returns write(**edits) -> module."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    # tests run before in this process may leave rules of their own registered, which turns
    # recall off; these functions call none of them
    monkeypatch.setattr(primitives.core, "USER_RULES", 0)
    monkeypatch.syspath_prepend(str(tmp_path))
    tag = tmp_path.name.replace("-", "_")
    name, dep = f"recall_main_{tag}", f"recall_dep_{tag}"
    values = {"k": "2.0", "s": "1.5", "bump": "u * u + np.sin(u)"}

    def write(**edits):
        values.update(edits)
        (tmp_path / f"{dep}.py").write_text(DEP.format(bump=values["bump"]))
        (tmp_path / f"{name}.py").write_text(SOURCE.format(dep=dep, k=values["k"], s=values["s"]))
        for m in (name, dep):
            sys.modules.pop(m, None)
        return importlib.import_module(name)

    yield write
    for m in (name, dep):
        sys.modules.pop(m, None)


def grad_of(mod):
    """The gradient for w, whether it was recalled, and the finite-difference reference."""
    g = jitad.grad(mod.loss, wrt=(0, 1))
    got = g(X, 0.8)
    comp = g.d.last
    assert comp.compiled_ran
    ref = central_fd(mod.loss, (X, 0.8), (0, 1))
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-6, atol=1e-8)
    return got, comp.recalled


def test_the_same_functions_again_are_recalled(project):
    first, recalled = grad_of(project())
    assert not recalled
    again, recalled = grad_of(project())          # new function objects, the same code
    assert recalled
    np.testing.assert_array_equal(first[0], again[0])
    assert first[1] == again[1]


@pytest.mark.parametrize("edit", [dict(k="3.0"), dict(s="0.5"), dict(bump="u * u + np.cos(u)")],
                         ids=["global constant", "helper default", "helper in another module"])
def test_a_changed_input_is_a_miss(project, edit):
    before, _ = grad_of(project())
    after, recalled = grad_of(project(**edit))
    assert not recalled
    assert not np.allclose(before[0], after[0])


def test_a_switch_that_changes_the_code_is_a_miss(project, monkeypatch):
    grad_of(project())
    monkeypatch.setenv("JITAD_NO_SCALARIZE", "1")
    _, recalled = grad_of(project())
    assert not recalled
    _, recalled = grad_of(project())
    assert recalled
    monkeypatch.setenv("JITAD_NO_RECALL", "1")
    _, recalled = grad_of(project())
    assert not recalled


def record_of(mod):
    """The path of the record `grad_of(mod)` stores (other tests write records too)."""
    d = jitad.differentiable(mod.loss)
    k, _ = recall.key(d.job(tuple(map(jitad.types.ty_of_value, (X, 0.8))), (0, 1)))
    return recall._path(k)


def test_a_damaged_or_untrusted_record_is_a_miss(project):
    mod = project()
    grad_of(mod)
    record = record_of(mod)
    assert record.exists()
    record.write_bytes(record.read_bytes()[:100])          # truncated
    _, recalled = grad_of(project())
    assert not recalled                                    # ... and written again
    _, recalled = grad_of(project())
    assert recalled
    os.chmod(record, 0o666)                                # writable by others: never read
    try:
        _, recalled = grad_of(project())
        assert not recalled
    finally:
        os.chmod(record, 0o600)


def test_a_rebound_global_after_a_hit_makes_it_again(project):
    grad_of(project())
    mod = project()
    g = jitad.grad(mod.loss, wrt=(0, 1))
    g(X, 0.8)
    assert g.d.last.recalled
    mod.K = 5.0                       # the recalled code watches the closure's free names
    got = g(X, 0.8)
    assert not g.d.last.recalled
    np.testing.assert_allclose(got[1], central_fd(mod.loss, (X, 0.8), (1,))[0], rtol=1e-6)


def test_no_recall_under_user_rules(project):
    mod = project()
    job = jitad.differentiable(mod.loss).job(tuple(map(jitad.types.ty_of_value, (X, 0.8))), (1,))
    assert recall.key(job)[0] is not None
    state, user = primitives.core.snapshot(), dict(extend.USER_FUNCTIONS)
    try:
        jitad.defvjp(mod.scaled, v="g * s * (1.0 - np.tanh(v) ** 2)")
        assert recall.key(job)[0] is None
    finally:
        primitives.core.restore(state)
        extend.USER_FUNCTIONS.clear()
        extend.USER_FUNCTIONS.update(user)
    assert recall.key(job)[0] is not None


def test_values_without_a_stable_description_are_not_recalled(monkeypatch):
    monkeypatch.setattr(primitives.core, "USER_RULES", 0)
    class Box:
        pass

    box = Box()

    def f(x):
        if x > 10.0:
            return box
        return x * x

    job = jitad.differentiable(f).job((jitad.types.ty_of_value(1.0),), (0,))
    assert recall.key(job)[0] is None   # an object of a user class has no description
    box = np.vectorize(abs)           # a library's class, but made here: no name says which
    assert recall.key(job)[0] is None
    box = (1.0, "a", None, np.concatenate, np.float64)
    assert recall.key(job)[0] is not None


def test_a_new_process_recalls_instead_of_transforming(tmp_path):
    (tmp_path / "proc_mod.py").write_text(SOURCE.format(dep="proc_dep", k="2.0", s="1.5"))
    (tmp_path / "proc_dep.py").write_text(DEP.format(bump="u * u + np.sin(u)"))
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, jitad, proc_mod
        g = jitad.grad(proc_mod.loss, wrt=1)
        print(repr(g(np.array({X.tolist()!r}), 0.8)), g.d.last.recalled)
    """)
    env = dict(os.environ, JITAD_CACHE_DIR=str(tmp_path / "cache"), JITAD_TIMINGS="1",
               PYTHONPATH=ROOT)
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    (v1, rec1), (v2, rec2) = (r.stdout.split() for r in runs)
    assert (rec1, rec2) == ("False", "True") and v1 == v2
    assert "specialize" in runs[0].stderr and "specialize" not in runs[1].stderr
    assert "recall" in runs[1].stderr
