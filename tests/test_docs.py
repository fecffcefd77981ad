"""The docs that show generated code are produced from jitad's real output (docs/build.py):
this fails when they drift. The README's main job (examples/quickstart.py) runs. Every
```python block of README.md and docs/*.md runs (see the comment above code_blocks)."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import pytest

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


# --- every ```python block in the README and docs/*.md runs --------------------------------
#
# The blocks of one markdown file run in order in one namespace (like a notebook: a block may
# use names from the blocks above it), in a subprocess whose working directory is a fresh temp
# dir (JITAD_CACHE_DIR is inherited). They are written to one script whose line N is line N of
# the markdown file (every other line is blank), so a traceback's line number is the markdown
# line. The script is a real file because jitad reads function source with inspect.getsource.
#
# Only blocks tagged ```python (or ```py) run; ```bash, ```text, ```toml, ```haskell and
# untagged blocks are not code to run. A python block that cannot run -- a listing of generated
# code -- is marked by an HTML comment on the line right before its opening fence:
#
#     <!-- no-run: generated code -->
#     ```python
#
# Use it sparingly: a block that shows an error should catch the error and run.

DOC_FILES = sorted([os.path.join(ROOT, "README.md")] + glob.glob(os.path.join(ROOT, "docs", "*.md")))
OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
NO_RUN = re.compile(r"^\s*<!--\s*no-run\b.*-->\s*$")
RUNNABLE = ("python", "py")


def code_blocks(path):
    """The fenced blocks of a markdown file, in order, as dicts: lang (first word of the info
    string, lower case), line (1-based line number of the opening fence), code (the lines
    between the fences), no_run (the line before the fence is a no-run marker)."""
    lines = open(path, encoding="utf-8").read().splitlines()
    blocks = []
    k = 0
    while k < len(lines):
        m = OPEN.match(lines[k])
        if not m:
            k += 1
            continue
        fence = m["fence"]
        close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        start = k
        k += 1
        while k < len(lines) and not close.match(lines[k]):
            k += 1
        blocks.append({"lang": (m["info"].split() or [""])[0].lower(), "line": start + 1,
                       "code": textwrap.dedent("\n".join(lines[start + 1:k])).split("\n")
                       if k > start + 1 else [],
                       "no_run": start > 0 and bool(NO_RUN.match(lines[start - 1]))})
        k += 1
    return blocks


def runnable(blocks):
    return [b for b in blocks if b["lang"] in RUNNABLE and not b["no_run"]]


def script_for(path):
    """The runnable python blocks of `path` as one script, each block at its own lines."""
    n = len(open(path, encoding="utf-8").read().splitlines())
    out = [""] * n
    for b in runnable(code_blocks(path)):
        for j, line in enumerate(b["code"]):
            out[b["line"] + j] = line          # the fence is at line b["line"] (1-based)
    return "\n".join(out) + "\n"


def _rel(path):
    return os.path.relpath(path, ROOT)


def test_the_block_extraction_sees_every_python_block():
    text = "\n".join(["# t", "```python", "a = 1", "```", "", "<!-- no-run: generated -->",
                      "```python", "boom(", "```", "```bash", "ls", "```", "```py", "  b = a + 1",
                      "```", "````text", "```python", "````"])
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.md")
        with open(p, "w") as f:
            f.write(text)
        blocks = code_blocks(p)
        assert [(b["lang"], b["line"], b["no_run"]) for b in blocks] == [
            ("python", 2, False), ("python", 7, True), ("bash", 10, False), ("py", 13, False),
            ("text", 16, False)]
        script = script_for(p).split("\n")
        assert script[2] == "a = 1" and script[13] == "b = a + 1" and "boom(" not in script


def test_no_run_markers_sit_right_before_a_python_block():
    for path in DOC_FILES:
        lines = open(path, encoding="utf-8").read().splitlines()
        fences = {b["line"] - 1: b for b in code_blocks(path)}
        for k, line in enumerate(lines):
            if NO_RUN.match(line):
                b = fences.get(k + 1)
                assert b is not None and b["lang"] in RUNNABLE, \
                    f"{_rel(path)}:{k + 1}: a no-run marker must be the line right before a ```python fence"


_AS_NOTEBOOK = ("import sys; path = sys.argv[1]; sys.argv = [path]; "
                "exec(compile(open(path).read(), path, 'exec'), sys.modules['__main__'].__dict__)")


@pytest.mark.parametrize("path", DOC_FILES, ids=_rel)
def test_every_python_block_runs(path, tmp_path):
    if not runnable(code_blocks(path)):
        pytest.skip(f"{_rel(path)} has no python blocks to run")
    script = tmp_path / (os.path.basename(path) + ".py")     # tracebacks say README.md.py, line N
    script.write_text(script_for(path))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Run as a notebook runs its cells: the script is not the main module's file, so a worker
    # process Dask starts (multiprocessing's spawn, the README's LocalCluster) does not run it
    # again at its start; the functions' code still names the script, where jitad reads them.
    out = subprocess.run([sys.executable, "-c", _AS_NOTEBOOK, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        pytest.fail(f"a python block of {_rel(path)} failed (the traceback's line numbers are "
                    f"{_rel(path)}'s lines):\n{out.stderr[-6000:]}", pytrace=False)
