"""`python -m jitad show path/to/file.py:function [--stage adjoint] [--args "1.0, np.ones(3)"] [--wrt x,w]`

Prints the generated source of a function at a stage (monadic, forward, adjoint). Without
--args every parameter is taken to be a float scalar.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
from pathlib import Path

import numpy as np

from . import api
from .errors import JitadError


def _load(spec: str):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise SystemExit("usage: python -m jitad show path/to/file.py:function")
    p = Path(path).resolve()
    if not p.exists():
        raise SystemExit(f"no such file: {path}")
    sys.path.insert(0, str(p.parent))
    modspec = importlib.util.spec_from_file_location(p.stem, p)
    mod = importlib.util.module_from_spec(modspec)
    sys.modules[p.stem] = mod
    modspec.loader.exec_module(mod)
    if not hasattr(mod, name):
        raise SystemExit(f"{path} has no function {name!r}")
    return getattr(mod, name)


# what --args may call: array constructors of literals (never eval: the string is data)
_CONSTRUCTORS = {"ones": np.ones, "zeros": np.zeros, "full": np.full, "array": np.array,
                 "arange": np.arange, "linspace": np.linspace, "eye": np.eye}
_DTYPES = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "bool_": np.bool_}


def parse_args(text: str) -> tuple:
    """Example arguments from a string of literals: numbers, True/False, tuples and lists,
    and `np.ones(3)`, `np.zeros((2, 3))`, `np.array([...])`, `np.full`, `np.arange`,
    `np.linspace`, `np.eye` of literals (with `dtype=np.float32` etc.). Nothing is evaluated
    as Python code."""
    try:
        tree = ast.parse(f"({text},)", mode="eval").body
    except SyntaxError as e:
        raise JitadError(f"--args is not a list of literals: {e.msg}") from None
    return _literal(tree)


def _literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _literal(node.operand)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Tuple):
        return tuple(_literal(e) for e in node.elts)
    if isinstance(node, ast.List):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in ("np", "numpy") and node.attr in _DTYPES:
        return _DTYPES[node.attr]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id in ("np", "numpy") \
            and node.func.attr in _CONSTRUCTORS:
        args = [_literal(a) for a in node.args]
        kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg in ("dtype",)}
        if len(kwargs) != len(node.keywords):
            raise JitadError("--args: only dtype= is accepted as a keyword")
        return _CONSTRUCTORS[node.func.attr](*args, **kwargs)
    raise JitadError(f"--args accepts numbers, tuples, lists and np.ones/zeros/full/array/arange/"
                     f"linspace/eye of them; not {ast.unparse(node)!r}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m jitad", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print the generated source of a function")
    show.add_argument("target", help="path/to/file.py:function")
    show.add_argument("--stage", default="adjoint", choices=api.STAGES)
    show.add_argument("--args", default=None, help="example arguments: literals and array "
                      "constructors of literals, e.g. \"1.0, np.ones(3), 10\" (never evaluated "
                      "as code)")
    show.add_argument("--wrt", default=None, help="parameters to differentiate, by name or "
                      "index, comma separated (default: every float argument)")
    ns = parser.parse_args(argv)
    fn = _load(ns.target)
    try:
        d = api.as_differentiable(fn)
        if ns.args is None:
            args = tuple(1.0 for _ in d.params)
        else:
            args = parse_args(ns.args)
        if ns.wrt is None:
            wrt = tuple(i for i, a in enumerate(args) if isinstance(a, float)
                        or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))
        else:
            wrt = tuple(int(w) if w.strip().isdigit() else w.strip() for w in ns.wrt.split(","))
        print(api.source(fn, ns.stage, args=args, wrt=wrt), end="")
    except JitadError as e:
        print(f"jitad: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
