"""`python -m benchmarks --quick` runs workloads at small sizes and exits 0: every jitad
gradient matched the hand-written one (a wrong gradient or a crash makes it exit 1).
Peers that are not installed are skipped with a note, never an error.

The quick workloads together take ~5 minutes, mostly Numba compiles, so the default run
checks the CLI and the report on `DEFAULT` (the scalar recurrence and the training loop, each
against its hand-written Numba gradient; the ADBench objectives' gradients are test_models');
``JITAD_BENCHMARKS_FULL=1`` runs every quick workload (`python -m benchmarks --quick` does the
same outside pytest)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FULL = os.environ.get("JITAD_BENCHMARKS_FULL", "") not in ("", "0")
DEFAULT = ["scalar_recurrence", "training"]


def test_quick_benchmarks_run_and_check_gradients(tmp_path):
    out = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--no-plots",
                          "--out", str(tmp_path)] + ([] if FULL else DEFAULT),
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert (tmp_path / "latest.md").exists()
