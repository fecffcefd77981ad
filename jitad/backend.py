"""Stage 8 — backend: generated source -> a real module on disk -> Numba-compiled functions.

Takes: a `codegen.Generated` and a backend name ("numba" or "python").
Guarantees: the source is written once to `<cache>/jitad_gen_<sha>.py` (by `cache`:
atomically, never rewritten unless damaged -- Numba's disk cache is keyed on the file), loaded
as a module registered in `sys.modules`, and for "numba" every generated function is wrapped
in `cache.njit(..., nogil=True)` (Numba's disk cache, self-healing), with no first-class-function
(cfunc) wrapper, and with no CPython wrapper unless jitad calls it from Python
(`python_callable`: callees' primals, vjps and halves are only called from compiled code;
their wrappers, boxing a callee's whole saved state, were compiled for nothing). The file name is the hash of the full text, and the
text contains jitad's version, every transformed function's source hash and every captured
constant, so a changed helper or constant is a different file, never a stale cache hit.
`run` calls a compiled function and turns a Numba typing error into a `JitadError` at the
user's line.
"""
from __future__ import annotations

import re
import sys
import types
from pathlib import Path

from . import cache, parallel
from .codegen import Generated
from .errors import IndexOutOfRange, JitadError, Loc, RecursionLimitError, TapeLimitError


def load(gen: Generated, backend: str) -> types.ModuleType:
    path = cache.write_source(gen.source)
    modname = path.stem + ("" if backend == "numba" else "_py")
    mod = sys.modules.get(modname)
    if mod is not None:
        return mod
    mod = types.ModuleType(modname)
    mod.__file__ = str(path)
    code = compile(gen.source, str(path), "exec")
    from . import extend
    for name in gen.primitives:
        mod.__dict__[name] = _jit_primitive(name) if backend == "numba" else extend.USER_FUNCTIONS[name]
    exec(code, mod.__dict__)
    if backend == "numba":
        from . import _runtime_jit
        mod.rt = _runtime_jit
        if gen.parallel:
            parallel.prepare()
        # Numba's disk cache cannot reload a recursive function (numba/numba#6061: the second
        # process crashes), so a module with recursion is compiled in memory every time
        called = python_callable(gen)
        for fname in gen.functions:
            opts = {"parallel": parallel.NUMBA_OPTIONS} if fname in gen.parallel else {}
            if fname not in called:
                opts["no_cpython_wrapper"] = True
            if fname == gen.into and _small(gen.functions[fname]):
                opts["inline"] = "always"
            setattr(mod, fname, cache.njit(getattr(mod, fname), nogil=True, no_cfunc_wrapper=True,
                                           disk=not gen.recursive, **opts))
    elif backend != "python":
        raise JitadError(f"unknown backend {backend!r} (use 'numba' or 'python')")
    sys.modules[modname] = mod
    return mod


# a `compiled_into` kernel of at most this many statements is inlined into the user's @njit code
# that calls it (Numba's `inline="always"`): a per-sample call passes six arrays, whose reference
# counts and structs cost more than BPR's whole gradient (an epoch of 100,000 samples: 2.7x ->
# 2.0x the hand-written loop); a bigger kernel stays a call (its code would be compiled again
# into every caller)
INLINE_INTO = 40


def _small(text: str) -> bool:
    import ast
    return sum(isinstance(n, ast.stmt) for n in ast.walk(ast.parse(text))) <= INLINE_INTO


def python_callable(gen: Generated) -> set:
    """The generated functions jitad calls from Python (the entry points `Generated` names);
    the others -- callees' primals, vjps, jvps, forward and backward halves, `f_par` functions --
    are only called from compiled code, and are compiled without the CPython wrapper."""
    names = {gen.primal, gen.vjp, gen.value_and_grad, gen.grad, gen.step, gen.accumulate,
             gen.apply, gen.jvp, gen.jacfwd, gen.jacrev, gen.into, gen.hessian, gen.grads}
    return (names | set(gen.shaped.values())) - {None}


_PRIMS: dict = {}


def _jit_primitive(name):
    from . import extend
    f = extend.USER_FUNCTIONS[name]
    if _PRIMS.get(name, (None,))[0] is not f:
        _PRIMS[name] = (f, cache.njit(f, nogil=True))
    return _PRIMS[name][1]


def run(fn, args, gen: Generated, backend: str):
    try:
        return fn(*args)
    except CHECKED as e:
        err = check_error(e, gen)
        if err is None:
            raise
        raise err from None
    except Exception as e:
        from numba.core.errors import NumbaError
        if backend == "numba" and isinstance(e, NumbaError):
            raise numba_error(e, gen) from None
        raise


# The run-time checks of generated code (`bounds`, `rt.check_tape`, `rt.check_depth`) raise
# `Exc("file.py:line:col", a, b)`: which jitad error each becomes, and its message.
CHECKS = (
    (IndexError, IndexOutOfRange, "index out of range",
     lambda index, size: f"index {index} is out of bounds for an axis of size {size}"),
    (MemoryError, TapeLimitError, "tape limit",
     lambda used, limit: f"this loop's tape holds {used:,} bytes, over the limit of {limit:,} "
                         "(JITAD_MAX_TAPE_BYTES): does it ever end? (raise the limit for a long "
                         "but finite loop)"),
    (RecursionError, RecursionLimitError, "recursion limit",
     lambda depth, limit: f"recursion deeper than {limit:,} levels (JITAD_MAX_RECURSION): does "
                          "it reach its base case? (raise the limit for a deeper but finite "
                          "recursion)"),
)
CHECKED = tuple(exc for exc, _, _, _ in CHECKS)


def check_error(e: Exception, gen: Generated) -> JitadError | None:
    """A failed run-time check of the generated code (an index out of range, a tape over its
    limit, a recursion too deep) as a JitadError at the user's line; None for any other
    exception."""
    for exc, error, construct, message in CHECKS:
        if isinstance(e, exc) and len(e.args) == 3 and isinstance(e.args[0], str):
            loc = _site_loc(e.args[0], gen)
            return None if loc is None else error(message(*e.args[1:]), loc, construct)
    return None


def _site_loc(site: str, gen: Generated):
    """The user's Loc of a check's "file.py:line:col" site, or None."""
    name, line, col = (site.rsplit(":", 2) + ["", ""])[:3]
    if not line.isdigit():
        return None
    files = {where[0] for where in gen.line_map.values() if isinstance(where, tuple)}
    for path in sorted(files, key=lambda p: Path(p).name != name):
        if Path(path).name == name:
            return Loc(path, int(line), int(col) if col.isdigit() else 0)
    return None


def _user_line(gen: Generated, line: int):
    """The user's (file, line) for a generated line; a line jitad added (a tape push, a loop
    header) takes its statement's: the next mapped line, else the previous one."""
    for k in (0, 1, 2, 3, -1, -2, -3):
        user = gen.line_map.get(line + k)
        if user:
            return user
    return None


def numba_error(e, gen: Generated) -> JitadError:
    text = str(e)
    user = None
    # Numba names generated lines as `File "<path>", line N` or `defined at <path> (N)`
    for m in re.finditer(r'File "([^"]+)", line (\d+)|at (\S+jitad_gen_\w+\.py) \((\d+)\)', text):
        path, line = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if Path(path).name.startswith("jitad_gen_"):
            user = _user_line(gen, int(line))
            if user:
                break
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    detail = []
    for line in plain.splitlines():
        line = line.strip()
        if not line or line.startswith(("Failed in", "File ", "During", "<source", "^", "def ")):
            continue
        if line not in detail:
            detail.append(line)
        if len(detail) == 3:
            break
    msg = "Numba could not compile the generated code: " + ("; ".join(detail) or type(e).__name__)
    loc = None
    if isinstance(user, tuple):
        loc = Loc(user[0], user[1])
    return JitadError(msg + "\n(run with backend='python' to debug the generated code)", loc,
                      "numba typing")
