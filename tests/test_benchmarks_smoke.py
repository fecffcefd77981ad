"""`python -m benchmarks --quick` runs every workload at small sizes and exits 0: every jitad
gradient matched the hand-written one (a wrong gradient or a crash makes it exit 1).
Peers that are not installed are skipped with a note, never an error."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quick_benchmarks_run_and_check_gradients(tmp_path):
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--no-plots",
                          "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert (tmp_path / "latest.md").exists()
