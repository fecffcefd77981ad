"""A compiled specialization travels as data (`jitad.ship.Shipped`): it pickles with the
standard pickle and runs in another process that cannot import the user's module, from that
process's own cache directory; `import jitad` never imports the optional Dask package."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np

import jitad
from jitad.ship import Shipped

from . import dask_funcs as df


def test_import_jitad_does_not_import_dask():
    code = ("import sys, jitad, jitad.api, jitad.train; "
            "bad = [m for m in sys.modules if m == 'dask' or m.startswith(('dask.', 'distributed', 'jitad.dask'))]; "
            "assert not bad, bad")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr


def test_shipped_runs_in_a_process_without_the_users_module(tmp_path):
    rng = np.random.default_rng(0)
    w, X, y = rng.normal(size=3), rng.normal(size=(20, 3)), np.sign(rng.normal(size=20))
    vg = jitad.value_and_grad(df.logistic)
    want = vg(w, X, y)
    shipped = Shipped.of(vg.specialize(w, X, y))
    blob = tmp_path / "shipped.pkl"
    blob.write_bytes(pickle.dumps((shipped, (w, X, y))))     # the standard pickle: no function
    cache = tmp_path / "worker-cache"
    script = textwrap.dedent(f"""
        import pickle, sys
        shipped, args = pickle.loads(open({str(blob)!r}, "rb").read())
        value, grads = shipped.run(shipped.gen.vjp, args + (1.0,))
        assert not any("dask_funcs" in m for m in sys.modules)
        mod, _, fresh = shipped.load()
        print(repr(float(value)), list(grads[0]), fresh, mod.__file__)
    """)
    env = dict(os.environ, JITAD_CACHE_DIR=str(cache), PYTHONPATH=os.path.dirname(os.path.dirname(jitad.__file__)))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, cwd=str(tmp_path), env=env)
    assert out.returncode == 0, out.stderr
    value, rest = out.stdout.split(" ", 1)
    assert float(value) == want[0]
    grads = eval(rest.rsplit("]", 1)[0] + "]")
    np.testing.assert_allclose(grads, want[1], rtol=1e-13)
    fresh, path = rest.rsplit("]", 1)[1].split()
    assert fresh == "False" and path.startswith(str(cache))   # loaded once, in its own cache dir


def test_a_shipped_function_from_another_jitad_version_is_refused():
    rng = np.random.default_rng(0)
    w, X, y = rng.normal(size=3), rng.normal(size=(4, 3)), np.ones(4)
    shipped = Shipped.of(jitad.value_and_grad(df.logistic).specialize(w, X, y))
    shipped.version = "0.0.0-other"
    try:
        shipped.load()
    except jitad.JitadError as e:
        assert "same version" in str(e)
    else:
        raise AssertionError("a different jitad version was loaded")
