"""The extension surface: @jitad.primitive rules and plugins found through entry points."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import jitad

from . import plugin_funcs as pf
from .harness import central_fd


def test_user_primitive_gradient_and_source():
    rng = np.random.default_rng(0)
    U, V = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    g = jitad.grad(pf.bpr_stable, wrt=(0, 1))(U, V, 1, 2, 3)
    fd = central_fd(pf.bpr_stable, (U, V, 1, 2, 3), (0, 1), eps=1e-5, order=4)
    np.testing.assert_allclose(g[0], fd[0], atol=1e-9)
    np.testing.assert_allclose(g[1], fd[1], atol=1e-9)
    spec = jitad.grad(pf.bpr_stable, wrt=(0, 1)).specialize(U, V, 1, 2, 3)
    assert spec.compiled_ran
    assert "prim_logsigmoid(x)" in spec.gen.source
    assert "# primitive prim_logsigmoid: sha256" in spec.gen.source
    # a primitive's rule also drives train_step
    step = jitad.train_step(pf.bpr_stable, wrt=(0, 1), optimizer=jitad.optim.SGD(lr=0.1))
    U2, V2 = U.copy(), V.copy()
    step(U2, V2, 1, 2, 3, step.init(U2, V2))
    np.testing.assert_allclose(U2, U - 0.1 * g[0], atol=1e-12)


PLUGIN = '''
import numpy as np
import jitad
from jitad import optim


def softsign(x):
    return x / (1.0 + abs(x))


def register():
    jitad.primitive(softsign, kind="float", x="g / ((1.0 + abs(x)) * (1.0 + abs(x)))")
    import plugin_funcs_user
    plugin_funcs_user.softsign = softsign


class SignSGD(optim.Optimizer):
    name = "plugin_signsgd"
    defaults = {"lr": 0.01}
    update = "p = p - lr * np.sign(g)"
'''

CHILD = '''
import sys
import numpy as np
sys.path.insert(0, {tests!r})
import plugin_funcs as plugin_funcs_user
sys.modules["plugin_funcs_user"] = plugin_funcs_user
import jitad
g = jitad.grad(plugin_funcs_user.uses_plugin_rule)(0.7)
x = 0.7
expected = x / (1 + x) + x / (1 + x) ** 2
assert abs(g - expected) < 1e-12, (g, expected)
assert "plugin_signsgd" in jitad.optim.available()
print("PLUGIN OK")
'''


def test_plugin_distribution_registers_rules_and_optimizers(tmp_path):
    """A separate distribution (dist-info with entry points on sys.path), in a fresh process."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "jitad_demo_plugin.py").write_text(PLUGIN)
    info = site / "jitad_demo_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: jitad-demo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""
        [jitad.rules]
        softsign = jitad_demo_plugin:register

        [jitad.optimizers]
        plugin_signsgd = jitad_demo_plugin:SignSGD
    """))
    env = dict(os.environ, PYTHONPATH=str(site) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", CHILD.format(tests=os.path.dirname(__file__))],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PLUGIN OK" in out.stdout
