"""Faults and hostile input (issue 10): a cache that heals and stays private, no code from
arguments or paths, thread-safe first compiles, strict `wrt`. Cache faults that must survive
a restart run in subprocesses, each with its own cache directory."""
import os
import stat
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import jitad
from jitad import cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""\
    import math, warnings
    import jitad
    warnings.simplefilter("always")

    def f(x):
        y = 0.0
        for i in range(4):
            y += math.sin(x * i)
        return y

    print("grad", jitad.grad(f)(0.5))
    """)
EXPECTED = sum(i * np.cos(0.5 * i) for i in range(4))


def run_script(tmp_path, cache_dir, script=SCRIPT):
    path = tmp_path / "prog.py"
    path.write_text(script)
    env = dict(os.environ, JITAD_CACHE_DIR=str(cache_dir), PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    value = float(out.stdout.split()[-1])
    assert value == pytest.approx(EXPECTED, rel=1e-12)
    return out.stderr


def _corrupt(files, how):
    for f in files:
        data = open(f, "rb").read()
        with open(f, "wb") as fh:
            fh.write({"truncate": data[:len(data) // 3], "garbage": b"\x80\x04garbage",
                      "utf8": b"\xff\xfe\x00 not utf-8", "empty": b""}[how])


# rounds of damage, each healed by the next process (a restart must not keep failing)
CORRUPTIONS = [[("nbi", "truncate"), ("py", "utf8")], [("nbi", "garbage"), ("nbc", "truncate")],
               [("nbi", "empty"), ("nbc", "garbage"), ("py", "empty")]]


def test_a_damaged_cache_entry_is_rebuilt(tmp_path):
    d = tmp_path / "cache"
    run_script(tmp_path, d)
    for damage in CORRUPTIONS:
        for target, how in damage:
            files = [str(p) for p in d.rglob(f"jitad_gen_*.{target}")]
            assert files, (target, how)
            _corrupt(files, how)
        run_script(tmp_path, d)
    err = run_script(tmp_path, d)        # ... and the next process finds a good entry again
    assert "discarded" not in err


def test_unusable_cache_locations_fall_back_with_one_warning(tmp_path, monkeypatch):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    for where in (a_file, "/dev/null", tmp_path / ("n" * 300), a_file / "sub", shared):
        monkeypatch.setenv("JITAD_CACHE_DIR", str(where))
        with pytest.warns(cache.CacheWarning, match="cannot use the cache directory") as record:
            got = cache.cache_dir()
        assert len(record) == 1
        assert got != where and cache.untrusted(got, directory=True) is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert cache.cache_dir() == got          # once per process and location
    # and a compile still works there
    err = run_script(tmp_path, shared)
    assert err.count("cannot use the cache directory") == 1, err


def test_the_cache_is_private(tmp_path):
    d = tmp_path / "cache"
    run_script(tmp_path, d)
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    for p in d.glob("jitad_gen_*.py"):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600


def test_an_entry_others_can_write_is_not_loaded(tmp_path):
    d = tmp_path / "cache"
    run_script(tmp_path, d)
    for p in d.rglob("*.nbi"):
        os.chmod(p, 0o666)
    err = run_script(tmp_path, d)
    assert "writable by other users" in err


def test_args_of_the_command_line_are_never_evaluated(tmp_path):
    marker = tmp_path / "pwned"
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return x * x\n")
    cmd = [sys.executable, "-m", "jitad", "show", f"{src}:f", "--args",
           f"__import__('pathlib').Path({str(marker)!r}).touch()"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode != 0 and not marker.exists()
    assert "--args accepts" in out.stderr
    ok = subprocess.run([sys.executable, "-m", "jitad", "show", f"{src}:f", "--args",
                         "np.ones(3, dtype=np.float64)"], capture_output=True, text=True,
                        cwd=ROOT, timeout=300)
    assert ok.returncode == 0 and "def f_vjp" in ok.stdout, ok.stderr


def test_a_path_with_a_newline_stays_a_comment(tmp_path):
    evil = tmp_path / "x\nraise SystemExit('injected')\n#"
    evil.mkdir()
    (evil / "evil_mod.py").write_text("def f(x):\n    return x * x\n")
    sys.path.insert(0, str(evil))
    try:
        import evil_mod
        assert jitad.grad(evil_mod.f)(3.0) == pytest.approx(6.0)
        gen = jitad.value_and_grad(evil_mod.f).specialize(3.0).gen
        compile(gen.source, "check", "exec")
        assert "raise SystemExit" not in [line.strip() for line in gen.source.splitlines()]
    finally:
        sys.path.remove(str(evil))
        sys.modules.pop("evil_mod", None)


def test_first_compiles_from_many_threads(tmp_path):
    mod = tmp_path / "racing_mod.py"
    mod.write_text("import math\n" + "".join(
        f"def f{k}(x):\n    y = 0.0\n    for i in range(3):\n        y += math.sin(x * {k + 1}.0 + i)\n"
        "    return y\n" for k in range(4)))
    sys.path.insert(0, str(tmp_path))
    try:
        import racing_mod
        barrier, errors, results = threading.Barrier(8), [], {}

        def run(t):
            f = getattr(racing_mod, f"f{t % 4}")
            barrier.wait()
            try:
                results[t] = jitad.grad(f)(0.3)
            except Exception as e:         # pragma: no cover - the failure being tested
                errors.append(repr(e))

        threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        for t, g in results.items():
            k = t % 4 + 1
            assert g == pytest.approx(sum(k * np.cos(0.3 * k + i) for i in range(3)))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("racing_mod", None)


def square(x):
    return x * x


def test_wrt_must_not_be_a_bool():
    for bad in (True, False, (0, True)):
        with pytest.raises(jitad.JitadError, match="wrt"):
            jitad.grad(square, wrt=bad)


def test_cache_warning_is_a_user_warning():
    assert issubclass(cache.CacheWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.untrusted(cache.cache_dir(), directory=True) is None


RECURSIVE = textwrap.dedent("""\
    import math, sys
    import jitad

    def rsum(x, n):
        if n <= 0:
            return 0.0
        return math.sin(x) + rsum(x * 0.5, n - 1)

    if sys.argv[1] == "primal":
        print("value", jitad.differentiable(rsum)(0.5, 3))
    else:
        print("grad", jitad.grad(rsum)(0.5, 3))
    """)


def test_recursion_loaded_from_the_disk_cache(tmp_path):
    """A recursive function compiled by one process and loaded by the next (Numba's cache of
    recursive functions crashed with a default depth argument)."""
    path = tmp_path / "rec.py"
    path.write_text(RECURSIVE)
    env = dict(os.environ, JITAD_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=ROOT)
    want = {"primal": sum(np.sin(0.5 * 0.5 ** k) for k in range(3)),
            "grad": sum(0.5 ** k * np.cos(0.5 * 0.5 ** k) for k in range(3))}
    for mode in ("primal", "grad", "grad", "primal"):
        out = subprocess.run([sys.executable, str(path), mode], capture_output=True, text=True,
                             env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        assert float(out.stdout.split()[-1]) == pytest.approx(want[mode], rel=1e-12)


def make_closure(c):
    def f(x):
        return c * x * x
    return f


def test_functions_are_not_kept_alive():
    """In-process caches live on the function objects: closures made and dropped by the
    hundred are freed (they were kept in global tables forever)."""
    import gc
    import weakref
    refs = []
    for k in range(50):
        f = make_closure(2.0)
        refs.append(weakref.ref(f))
        assert jitad.grad(f)(3.0) == pytest.approx(12.0)
        del f
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


def test_a_wrapper_that_copied_the_dict_has_its_own_cache():
    import functools
    f = make_closure(1.0)
    assert jitad.grad(f)(2.0) == pytest.approx(4.0)

    @functools.wraps(f)                    # copies f.__dict__, jitad's cache included
    def wrapper(x):
        return 3.0 * f(x)

    assert jitad.grad(wrapper)(2.0) == pytest.approx(12.0)
