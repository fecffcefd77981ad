"""`python -m jitad show path/to/file.py:function [--stage adjoint] [--args "1.0, np.ones(3)"] [--wrt x,w]`

Prints the generated source of a function at a stage (monadic, forward, adjoint). Without
--args every parameter is taken to be a float scalar.
"""
from __future__ import annotations

import argparse
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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m jitad", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    show = sub.add_parser("show", help="print the generated source of a function")
    show.add_argument("target", help="path/to/file.py:function")
    show.add_argument("--stage", default="adjoint", choices=api.STAGES)
    show.add_argument("--args", default=None, help="example arguments, a Python expression "
                      "(np is available), e.g. \"1.0, np.ones(3), 10\"")
    show.add_argument("--wrt", default=None, help="parameters to differentiate, by name or "
                      "index, comma separated (default: every float argument)")
    ns = parser.parse_args(argv)
    fn = _load(ns.target)
    d = api._as_differentiable(fn)
    try:
        if ns.args is None:
            args = tuple(1.0 for _ in d.params)
        else:
            args = eval(f"({ns.args},)", {"np": np, "numpy": np})
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
