"""The docs that show generated code are produced from jitad's real output (docs/build.py):
this fails when they drift. The README's main job (examples/quickstart.py) runs."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_generated_docs_are_up_to_date():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "build.py"), "--check"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr


def test_quickstart_runs_and_its_gradient_matches_finite_differences():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "quickstart.py")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if "finite difference" in l]
    assert len(lines) == 2
    for line in lines:
        parts = line.split()
        jit, fd = float(parts[2]), float(parts[5])
        assert abs(jit - fd) <= 1e-6 * max(1.0, abs(fd)), line
    assert "def bounce_vjp(h, k, d_out):" in out.stdout and "<-" in out.stdout
