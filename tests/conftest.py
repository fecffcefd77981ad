import os
import tempfile

# Every test run compiles into its own fresh cache directory, so the suite never passes on a
# stale disk cache from an earlier run (tests of the cache itself make their own).
if "JITAD_CACHE_DIR" not in os.environ:
    os.environ["JITAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="jitad-test-cache-")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
