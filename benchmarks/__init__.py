"""jitad's benchmark suite: `python -m benchmarks [WORKLOAD ...] [--quick]`.

The same workloads in every system, in one process, against a hand-written Numba baseline;
the methodology is in benchmarks/README.md. This file imports nothing heavy: `set_thread_env`
must run before NumPy (and with it OpenBLAS) is first imported.
"""
import os

# Single-threaded BLAS/OpenMP/XLA everywhere: OpenBLAS with 2 threads is pathological on the
# 2-core VMs these numbers come from (see README.md), and every system gets the same one core.
THREAD_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "JAX_PLATFORMS": "cpu",
    "TF_CPP_MIN_LOG_LEVEL": "2",
}
XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"

WORKLOADS = ["scalar_recurrence", "while_loop", "eager_overhead", "dense_net", "bpr", "diamond",
             "training", "hierarchical", "second_order", "gmm", "lstm", "ba", "hand",
             "dask_bpr", "dask_lbfgs"]
# Workloads `--quick` runs only when named: the smoke test (`--quick`, run by the default test
# suite) cannot afford jitad's cold compile of ADBench's GMM objective (~15 s, issue 14) or
# hand model (~20 s);
# `--quick gmm` runs it at small sizes. (lstm and ba stay in: ~10 s each at --quick.) The Dask
# workloads start clusters of worker processes (and need `pip install -e ".[dask]"`).
QUICK_OPT_IN = ("gmm", "hand", "dask_bpr", "dask_lbfgs")


def set_thread_env():
    """Pin every library to one thread. Call before NumPy is imported."""
    for k, v in THREAD_ENV.items():
        os.environ[k] = v
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_cpu_multi_thread_eigen" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " " + XLA_FLAGS).strip()
