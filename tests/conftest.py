import os
import tempfile

# Every test run compiles into its own fresh cache directory, so the suite never passes on a
# stale disk cache from an earlier run (tests of the cache itself make their own).
if "JITAD_CACHE_DIR" not in os.environ:
    os.environ["JITAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="jitad-test-cache-")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# The IR's invariants are checked after every pass that makes or rewrites IR (ir.verify).
os.environ.setdefault("JITAD_VERIFY", "1")
# Gradient tests run with Numba's bounds checking on: a tape or index access outside its array
# fails a test instead of reading garbage (set before Numba is imported).
os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")
# Most of the suite's time is LLVM optimizing generated code at Numba's default -O3 (cold,
# a 10-case elementwise corpus slice: 60 s of CPU at -O3, 23 s at -O1; the whole suite's
# in-process CPU 1,596 s at -O1, 1,011 s at -O0). The tests check values and gradients, which
# the optimization level does not change (no fastmath: the same operations in the same order,
# bit for bit), so they compile at -O0; NUMBA_OPT=3 in the environment runs the suite as users
# compile. (At -O0 a function that calls another dispatcher keeps a dead load of its address,
# a "dynamic global", and Numba will not cache it: tests of the disk cache across processes
# give their processes a level of their own.)
os.environ.setdefault("NUMBA_OPT", "0")


# The files that compile the most start first, so that under pytest-xdist (--dist loadfile) the
# longest one is not the last to start while the other worker idles (longest-first scheduling).
_HEAVY_FIRST = ("test_primitives.py", "test_corpus.py", "test_benchmarks_smoke.py",
                "test_examples.py", "test_everyday.py", "test_arguments.py", "test_numpy_forms.py",
                "test_models.py")


def pytest_collection_modifyitems(config, items):
    def rank(item):
        name = os.path.basename(str(item.fspath))
        return _HEAVY_FIRST.index(name) if name in _HEAVY_FIRST else len(_HEAVY_FIRST)
    items.sort(key=rank)     # stable: the order inside each file is kept
