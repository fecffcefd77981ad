"""Running compiled epochs on threads (`fit(threads=k)`): what they need from the process.

Takes: a thread count.
Guarantees: `pool(k)` is one long-lived executor per thread count (new OS threads per call
cost thousands of page faults); `single_threaded_blas()` holds BLAS at one thread while
several Python threads call it (else their GEMMs serialize on OpenBLAS's lock while its own
workers hold the cores) and restores the previous count; `keep_heap()` asks glibc, once per
process, to keep freed memory mapped (MB-sized per-step buffers were trimmed and faulted
back in on every step). Measured on the hierarchical classifier: 2 threads went from
0.3-0.45x of 1 thread to 1.6-1.9x.
"""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()
_HEAP_KEPT = False


def pool(threads):
    """One long-lived executor per thread count. A new pool per `fit` call starts new OS
    threads every call, and glibc gives new threads freshly mapped heap and stack pages:
    thousands of page faults per call (per epoch, for a loop that calls fit once an epoch)."""
    with _POOLS_LOCK:
        ex = _POOLS.get(threads)
        if ex is None:
            ex = _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="jitad-fit")
        return ex


def keep_heap():
    """glibc: keep freed memory mapped. A dense step allocates and frees MB-sized gradient
    buffers; in a worker thread's arena glibc can trim (madvise DONTNEED) the freed top after
    every step, and the next step faults it back in: ~670 page faults and ~1.5 ms of system
    time per mini-batch of the hierarchical classifier on 2 threads. Once per process, when
    fit uses threads and in a Dask worker's jitad tasks (`jitad.dask.worker`), which run on
    a worker thread; JITAD_KEEP_HEAP=0 opts out."""
    global _HEAP_KEPT
    if _HEAP_KEPT or not sys.platform.startswith("linux") or os.environ.get("JITAD_KEEP_HEAP") == "0":
        return
    _HEAP_KEPT = True
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(-1, 256 << 20)    # M_TRIM_THRESHOLD: give heap memory back beyond 256 MB only
    mallopt(-3, 32 << 20)     # M_MMAP_THRESHOLD: buffers up to 32 MB come from the heap


def _openblas_handles():
    """(get, set) thread-count functions of scipy's bundled OpenBLAS: the BLAS that Numba's
    `@` calls (through scipy.linalg.cython_blas)."""
    out = []
    try:
        import scipy
        import scipy.linalg.cython_blas  # noqa: F401  (loads the library)
    except ImportError:
        return out
    root = os.path.dirname(os.path.dirname(scipy.__file__))
    for path in glob.glob(os.path.join(root, "scipy.libs", "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            get = getattr(lib, f"{prefix}_get_num_threads", None)
            put = getattr(lib, f"{prefix}_set_num_threads", None)
            if get is not None and put is not None:
                out.append((get, put))
                break
    return out


@contextlib.contextmanager
def single_threaded_blas():
    """BLAS at one thread while fit's threads run. OpenBLAS defaults to a thread per core; two
    fit threads' multi-threaded GEMMs then serialize on OpenBLAS's level-3 lock while its
    busy-waiting workers hold the cores (2 threads ran at 0.3-0.4x of 1 thread)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(1, user_api="blas"):
            yield
        return
    saved = [(put, get()) for get, put in _openblas_handles()]
    for put, _ in saved:
        put(1)
    try:
        yield
    finally:
        for put, n in saved:
            put(n)
