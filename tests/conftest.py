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
