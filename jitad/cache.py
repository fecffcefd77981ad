"""The on-disk cache: where it lives, what is trusted, how it heals.

Takes: generated module text (from `backend`) and Python functions to compile with Numba.
Guarantees:
  * `cache_dir()` is a directory this user owns that no one else can write: `$JITAD_CACHE_DIR`,
    else `$XDG_CACHE_HOME/jitad`, else `~/.cache/jitad`, created 0700. A location that cannot
    be used -- not a directory, not writable, owned by another user, writable by others
    (Numba unpickles its index files: whoever can write them runs code as this user) -- is
    replaced, for this process, by a new private temporary directory, with one warning that
    says why.
  * `write_source(text)` writes `<cache>/jitad_gen_<sha>.py` (0600) atomically (a temporary
    file, then `os.replace`) unless the same bytes are already there; a damaged file (other
    bytes, undecodable) is replaced; `write_bytes(path, data)` is that atomic write (for
    `recall`'s records too).
  * `njit(fn)` is `numba.njit(cache=True, ...)` whose disk cache heals: an entry that cannot be
    read (truncated or corrupt index or data, a pickle that fails) or is not trusted (owned by
    another user or writable by others) is deleted and counts as a miss, so the function is
    compiled again and the entry rewritten; a cache that cannot be written only warns.
Invariants: nothing here raises for a cache problem; a concurrent writer only ever sees
complete files (Numba's and ours are written to a temporary name and renamed).
"""
from __future__ import annotations

import glob
import os
import stat
import tempfile
import threading
import warnings
from pathlib import Path


class CacheWarning(UserWarning):
    """jitad's disk cache could not be used as configured (compilation still works)."""


_DIRS: dict = {}
_LOCK = threading.Lock()


def cache_dir() -> Path:
    env = os.environ.get("JITAD_CACHE_DIR") or ""
    key = (env, os.environ.get("XDG_CACHE_HOME"))
    with _LOCK:
        if key not in _DIRS:
            _DIRS[key] = _choose(env)
        return _DIRS[key]


def _choose(env: str) -> Path:
    if env:
        p = Path(env)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        p = Path(base) / "jitad"
    try:
        if p.exists() and not p.is_dir():
            raise NotADirectoryError(20, "not a directory")
        p.mkdir(parents=True, exist_ok=True, mode=0o700)
        problem = untrusted(p, directory=True)
        if problem is None:
            if stat.S_IMODE(p.stat().st_mode) & 0o077:
                os.chmod(p, 0o700)          # ours: keep it private
            fd, probe = tempfile.mkstemp(dir=p, suffix=".probe")
            os.close(fd)
            os.unlink(probe)
    except OSError as e:
        problem = e.strerror or str(e)
    if problem is None:
        return p
    fallback = Path(tempfile.mkdtemp(prefix="jitad-cache-"))
    warnings.warn(f"jitad: cannot use the cache directory {str(p)!r} ({problem}); compiled code "
                  f"goes to {fallback} for this process (set JITAD_CACHE_DIR to a private "
                  "directory to keep it)", CacheWarning, stacklevel=3)
    return fallback


def untrusted(path, directory=False) -> str | None:
    """Why `path` must not be trusted (owned by another user than this one or root, writable
    by others, of the wrong kind), or None. The check OpenSSH makes for ~/.ssh."""
    st = os.stat(path)
    if directory and not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if hasattr(os, "getuid") and st.st_uid not in (os.getuid(), 0):
        return f"owned by user id {st.st_uid}, not by this user"
    if st.st_mode & 0o022:
        return "writable by other users"
    return None


def write_source(text: str) -> Path:
    path = cache_dir() / f"jitad_gen_{_hash(text)}.py"
    data = text.encode()
    try:
        ok = untrusted(path) is None and path.read_bytes() == data
    except OSError:
        ok = False
    if not ok:
        write_bytes(path, data)
    return path


def write_bytes(path: Path, data: bytes):
    """`data` as the file `path` (0600), written to a temporary name and renamed: a concurrent
    reader sees the old file or the new one, never a part."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")     # 0600
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _hash(text):
    from .codegen import source_hash
    return source_hash(text)[:24]


def njit(fn, disk=True, **options):
    """`numba.njit(cache=True, **options)(fn)` with a self-healing, trust-checked disk cache
    (`disk=False`: compiled in memory only)."""
    import numba
    disp = numba.njit(cache=False, **options)(fn)
    if not disk:
        return disp
    try:
        disp._cache = _healing_cache_class()(fn)
    except Exception as e:            # no usable cache location: compile in memory only
        _warn_once(f"jitad: no disk cache for {fn.__qualname__} ({e}); it is compiled in memory")
    return disp


_CLASS = None
_WARNED: set = set()


def _warn_once(msg):
    if msg not in _WARNED:
        _WARNED.add(msg)
        warnings.warn(msg, CacheWarning, stacklevel=3)


def _healing_cache_class():
    global _CLASS
    if _CLASS is None:
        from numba.core.caching import FunctionCache

        class HealingCache(FunctionCache):
            """Numba's per-function cache, where an unreadable or untrusted entry is a miss."""

            def load_overload(self, sig, target_context):
                index = self._cache_file._index_path
                try:
                    if os.path.exists(index):
                        why = untrusted(index) or untrusted(os.path.dirname(index), directory=True)
                        if why is not None:
                            raise PermissionError(f"{index} is {why}")
                    return super().load_overload(sig, target_context)
                except Exception as e:
                    self.drop()
                    _warn_once(f"jitad: discarded a cache entry that could not be used "
                               f"({type(e).__name__}: {e}); compiling again")
                    return None

            def _index_key(self, sig, codegen):
                # Numba's key (signature, CPU, bytecode) leaves out how the code was compiled:
                # an entry of a run at NUMBA_OPT=0 or with NUMBA_BOUNDSCHECK=1 (the test
                # suite's) would serve a later run that asked for neither -- the runtime
                # helpers' cache is shared by every process of a checkout
                import numba
                return super()._index_key(sig, codegen) + (
                    (int(numba.config.OPT), bool(numba.config.BOUNDSCHECK)),)

            def save_overload(self, sig, data):
                try:
                    super().save_overload(sig, data)
                except Exception as e:
                    _warn_once(f"jitad: could not write the disk cache ({type(e).__name__}: {e})")

            def drop(self):
                """Delete this function's index and data files (every Python version's)."""
                f = self._cache_file
                base = f._index_path[:-len(".nbi")]
                for p in [f._index_path] + glob.glob(glob.escape(base) + ".*.nbc"):
                    try:
                        os.unlink(p)
                    except OSError:
                        pass

        _CLASS = HealingCache
    return _CLASS
