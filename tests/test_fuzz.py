"""The differential fuzzer (tests/fuzz.py) on a CI budget, and its regression files.

* ``test_fuzz_program[seed]``: QUICK_N small random programs (seeds ``0..QUICK_N-1``, size
  ``"small"``), each checked three ways (compiled, eager, finite differences) in this process,
  sharing its Numba warm-up and jitad cache.  The first QUICK_NUMBA run the compiled mode with
  Numba (seeds 0-5: 9.3, 4.8, 2.3, 11.8, 0.5, 15.2 CPU-seconds, the first with the warm-up;
  seeds 3 and 5 take ~2 s on the python backend); the others run the same generated adjoint
  with ``backend="python"``.  A ``disagree`` or ``crash`` fails with the program text and the
  three results; ``refused`` and ``skipped`` pass.  ``JITAD_FUZZ_QUICK=N,K`` changes the
  budget to N programs, K of them with Numba.
* ``test_quick_budget_is_checkable``: the generator mostly stays in the subset and at checkable
  points (run after the budget, in file order).
* ``test_generator_reaches_its_constructs``: the program text of a few hundred seeds holds
  each construct of the features in CONSTRUCTS (``shapes``, ``mhelpers``, ``calls`` and the
  later ones: ``keepdims``, ``newaxis``, ``select``, ``scan``, ``sentinel``, ``arrays``,
  ``whilebreak``, ``gather``, ``selfop``, ``layout``, ``tuples``, ``closure``, ``kwargs``, ``iters``,
  ``slicewrite``, ``linalg`` and the extensions ``fuzz.EXTENSIONS``, the newer language's among
  them: axis tuples, SPD linalg and einsum, splits, dicts and records, starred targets), and
  ``without`` leaves them
  out (text only: no checks run).
* ``test_extensions_leave_the_first_stream_as_it_was``: with the extensions left out, a seed
  gives the program it gave before they were written.
* ``test_regression[name]``: every ``tests/fuzz_regressions/*.py``, a minimized program that
  once failed, checked the same way.  Its header says what it expects: ``# expect: ok``
  (the default) or ``# expect: refused``; ``# backend: python`` checks the compiled mode's
  generated source without Numba (for a fault Numba happens to hide, or one in the front end,
  where Numba's compilation would only cost time); ``# second: yes`` also
  checks the Hessian-vector product (as ``--second`` does).  A
  ``# xfail: <reason>`` line marks a bug that is still open: the test is an expected failure
  until the line is deleted.

Longer campaigns: ``python -m tests.fuzz --n 2000 --jobs 2 --out DIR``.
"""
from __future__ import annotations

import itertools
import os

os.environ.setdefault("NUMBA_BOUNDSCHECK", "1")  # effective when Numba is not imported yet

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from tests import fuzz  # noqa: E402

QUICK_N, QUICK_NUMBA = (int(v) for v in os.environ.get("JITAD_FUZZ_QUICK", "70,6").split(","))
QUICK_SIZE = "small"

# Seeds of the quick budget that hit a known, open bug (with the outcome signature it gives):
# an expected failure while it gives that signature; delete the entry when the bug is fixed.
KNOWN_FAILING: dict[int, tuple[str, str]] = {
}

REGRESSION_DIR = Path(__file__).parent / "fuzz_regressions"
REGRESSIONS = sorted(REGRESSION_DIR.glob("*.py"))

_budget: dict[int, str] = {}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _explain(source: str, out: fuzz.Outcome) -> str:
    return f"{out.cls}: {out.detail}\n" + "\n".join(out.report) + "\n\n" + source


@pytest.mark.parametrize("seed", range(QUICK_N))
def test_fuzz_program(seed, workdir):
    backend = "numba" if seed < QUICK_NUMBA else "python"
    prog, out = fuzz.check_seed(seed, QUICK_SIZE, workdir, backend)
    _budget[seed] = out.cls
    if seed in KNOWN_FAILING and out.signature == KNOWN_FAILING[seed][0]:
        pytest.xfail(KNOWN_FAILING[seed][1])
    assert out.cls not in ("disagree", "crash"), _explain(prog.source, out)


def test_quick_budget_is_checkable():
    if len(_budget) < QUICK_N:
        pytest.skip("runs after the whole quick budget")
    refused = sum(c == "refused" for c in _budget.values())
    skipped = sum(c == "skipped" for c in _budget.values())
    assert refused <= QUICK_N // 10, f"{refused} of {QUICK_N} programs refused"
    assert skipped <= QUICK_N // 4, f"{skipped} of {QUICK_N} programs skipped"


def test_extensions_leave_the_first_stream_as_it_was():
    """Without the extensions a seed gives the program it gave before they were written (the
    first random stream is theirs alone); with them, now and then another program."""
    def code(prog):
        return prog.source.split("\n", 1)[1]      # (the first comment line names `without`)
    before = {(7, "normal"): "b1f3652c9b1a", (31, "small"): "6dad3f6672ff",
              (12345, "large"): "4bbeb1f52f46"}
    import hashlib
    for (seed, size), digest in before.items():
        prog = fuzz.generate(seed, size, fuzz.EXTENSIONS)
        assert hashlib.sha256(code(prog).encode()).hexdigest()[:12] == digest, (seed, size)
    assert any(code(fuzz.generate(s, "normal")) != code(fuzz.generate(s, "normal", fuzz.EXTENSIONS))
               for s in range(20))


def test_tempview_only_inserts_statements(monkeypatch):
    """"tempview" draws from a third stream and changes nothing the others read: a seed's
    program is the one it gives without it (TEMPVIEW_RATE 0) with its lines inserted and
    `tva` added to f's result (and now and then an import its expressions need)."""
    import re

    def strip(text):
        out, loop = [], None
        for line in text.splitlines():
            indent = len(line) - len(line.lstrip())
            if loop is not None and indent > loop:
                continue
            loop = None
            if re.match(r"^\s*for jf\d+ in ", line):
                loop = indent
            elif not re.match(r"^\s*(tv\d+|uf\d+|tva)\b|^import scipy", line):
                out.append(line.replace(" + tva", ""))
        return out
    seeds = [(s, size) for s in range(12) for size in ("small", "normal")]
    with_tv = {k: fuzz.generate(*k).source for k in seeds}
    monkeypatch.setattr(fuzz, "TEMPVIEW_RATE", 0.0)
    for k in seeds:
        assert strip(with_tv[k]) == strip(fuzz.generate(*k).source), k
    assert any("tva" in t for t in with_tv.values())


def test_program_text_is_reproducible():
    a, b = fuzz.generate(12345, "normal"), fuzz.generate(12345, "normal")
    assert a.source == b.source
    assert fuzz.generate(12346, "normal").source != a.source
    compile(a.source, "<fuzz>", "exec")


# what each of the constructs added for shapes that change between iterations and for cut
# helpers looks like in program text (the generator is cheap: this checks text only)
CONSTRUCTS = {
    "shapes": [r"\w\[i\d+:\]", r"\[:i\d+ \+ 1\]", r"np\.concatenate\(\(np\.zeros\(",
               r"\.shape\[0\]", r"axis=1\)", r"np\.repeat\(", r"np\.tile\(", r"np\.pad\(",
               r"np\.(hstack|vstack)\(", r"for k\d+ in range\((len\(|\w+\.shape)",
               r"(\w+) = np\.concatenate\(\(\1 \*", r"def g\d\(r, a\):\n(    .*\n)*.*r\.shape"],
    "mhelpers": [r"def g\d\(A, a\)", r"def g\d\(A, r\)", r"np\.outer\("],
    "calls": [r"^\s+\w+, \w+ = g\d\(", r"^\s+return \S[^\n]*, ",
              r"def g1\(\w+, \w+\):\n(    .*\n)*.*g0\(", r"^\s+(\w+) = [\w.]*\(?g\d\([^\n]*\b\1\b"],
    # the features added for the rest of the language subset (docs/language.md); the rarer
    # forms of each are left out here: their counts move whenever the generator changes
    "keepdims": [r"keepdims=True", r"axis=1, keepdims=True\)", r"\.(sum|max)\(axis=\d, keepdims"],
    "newaxis": [r"\[:, None\]|\[None, :\]|np\.newaxis", r"\[:, None\] \*", r"\[np\.newaxis, :\]"],
    "select": [r"np\.where\(", r"np\.clip\(", r"\.clip\(", r"np\.minimum\("],
    "scan": [r"np\.cumprod\(|np\.diff\(", r"np\.cumprod\(", r"np\.diff\(", r"np\.sort\(",
             r"np\.cumsum\([^\n]*axis="],
    "sentinel": [r"= None$", r"if \w+ is None:", r"if \w+ is not None:", r"is None or "],
    "arrays": [r"np\.array\(hs\d+\)|np\.stack\(hs\d+, axis=1\)", r"(hs\d+) = np\.array\(\1\)"],
    "whilebreak": [r"while True:", r"while True:\n\s+\w+ \+= 1\n\s+if \w+ > \d or"],
    "gather": [r"\w\[\[-?\d|np\.add\.at\(|np\.argsort\(|\w \> [-0-9.]+\]", r"np\.add\.at\(",
               r"\[\[-?\d+(, -?\d+)*\], \[", r"\[np\.argsort\(", r"\[:, \[-?\d"],
    "selfop": [r"^\s+(\w+) = \1 / \(1\.0 \+ (np\.sum\()?\1 \* \1",
               r"^\s+(\w+) = (math\.tanh|np\.tanh|np\.maximum|np\.minimum|np\.clip)\(\1\b"],
    "layout": [r"np\.einsum\(|np\.roll\(|np\.trace\(|\.reshape\(2, 2\)|np\.expand_dims\(",
               r"np\.einsum\('ij,ij->j'", r"\.reshape\(2, 2\)\.T\.ravel\(\)", r"np\.linalg\.norm\("],
    "tuples": [r"^\s+st\d+ = \(", r"st\d+ = \(np\.tanh\(st\d+\[0\]", r"^\s+u\d+, t\d+ = st\d+$",
               r"= st\d+\[-1\]"],
    "closure": [r"^    def h\d+\(v, s\):", r"for i\d+ in range\(n\):\n\s+\w+ \+= math\.tanh\([^\n]*h\d+\("],
    "kwargs": [r"def g\d\(\w+, \w+, s=", r"g\d\([^\n]*s=[^\n]*\)"],
    "iters": [r"reversed\(", r"in reversed\(range\(", r"in reversed\([A-Z]", r"for \w+, t\d+ in zip\("],
    "slicewrite": [r"^\s+\w+\[[^\]\n]*:[^\]\n]*\] \+?= ", r"^\s+\w+\[:, [^\]\n]+\] \+?= ",
                   r"^\s+\w+\[1?::2\] \+?= ", r"^\s+(\w+)\[[^\]\n]*:[^\]\n]*\] = \1\[",
                   r"^\s+\w+\[\w+:\] \+?= |^\s+\w+\[:\w+ \+ 1\] \+?= "],
    "linalg": [r"np\.linalg\.(solve|inv|det)\(|np\.arg(max|min)\(|np\.diag\(|np\.tri[ul]\(",
               r"np\.linalg\.solve\(\(2\.0 \* np\.eye\(3\)", r"np\.linalg\.inv\(", r"np\.linalg\.det\(",
               r"\[np\.arg(max|min)\(", r"np\.diag\(", r"np\.std\(", r"np\.logaddexp\(", r"np\.hypot\(",
               r"np\.log\(np\.sum\(np\.exp\("],
    # the extensions (`fuzz.EXTENSIONS`), drawn from the generator's second random stream
    "ellipsis": [r"\[(\w+, )?\.\.\.", r"\[\.\.\., 1:\]", r"\[\.\.\., ::-1\]",
                 r"\[[\w ()+%*-]+, \.\.\., ::2\]", r"\[\.\.\., [\w ()+%*-]+\]"],
    "take": [r"np\.take\(", r"np\.take\([^\n]*, axis=0\)", r"np\.take\([^\n]*, \(-?\d",
             r"np\.take\([^\n]*\[\["],
    "builtins": [r"(?<![\w.])sum\(\(|(?<![\w.])sum\(\[[^\n]*start=|(?<![\w.])round\(",
                 r"(?<![\w.])sum\(\(", r"start=", r"(?<![\w.])round\("],
    "casts": [r"np\.float64\("],
    "keepmore": [r"np\.linalg\.norm\([^\n]*keepdims=True|np\.std\([^\n]*keepdims=True|axis=\(0, 1\), keepdims",
                 r"np\.linalg\.norm\([^\n]*keepdims=True", r"np\.std\([^\n]*keepdims=True",
                 r"axis=\(0, 1\), keepdims=True"],
    "prelude": [r"np\.(ptp|nansum|polyval|interp)\(", r"np\.ptp\(", r"np\.nansum\(",
                r"np\.polyval\(", r"np\.interp\("],
    "norms": [r"np\.linalg\.norm\([^\n]*, (ord=(1|2|3|np\.inf)|np\.inf)[,)]",
              r"np\.linalg\.norm\([^\n]*, (ord=)?(1|2|3|np\.inf)[,)]",
              r"np\.linalg\.norm\([^\n]*, np\.inf", r"np\.linalg\.norm\([^\n]*, ord="],
    "packed": [r"def g\d\(p\b", r"^\s+\w+, \w+ = p$", r"= p\[-1\]", r"g\d\(\(",
               r"^\s+return pk\d+$", r"^\s+\w+, \w+ = pk\d+(\[0\]|$)", r"^\s+pk\d+ = \("],
    "kwonly": [r"def g\d\([^\n]*\*, s", r"\*, s\):", r"\*, s="],
    "ifexp": [r"np\.where\([^\n]*, (w|acc|t\d+)\)", r"\((x|M|u\d+|S\d+) if [^\n]* else "],
    "special": [r"scipy\.special\.|math\.(erfc?|atan2|hypot|copysign)\(", r"scipy\.special\.logsumexp\(",
                r"math\.atan2\(", r"scipy\.special\.(gammaln|logit|xlogy)\(", r"^import scipy\.special$"],
    "powers": [r"\*\* -\d|np\.power\(|math\.pow\(|\*\* (np|math)\.tanh", r"\*\* -", r"np\.power\(1\.5"],
    "rank3": [r"np\.stack\(\((M|S\d+), ", r"np\.stack\([^\n]*, axis=2\)", r"np\.stack\([^\n]*\) @ "],
    "products": [r"np\.(vdot|inner|kron)\(", r"np\.kron\(", r"np\.vdot\(", r"np\.inner\(",
                 r"np\.arange\(4\) \* 0\.25"],
    "intidx": [r"\[(\w+ // 2|max\(\w+ - 1, 0\)|min\(\w+ \+ 1, \d\))[\],]", r"\[\w+ - 1[\],]",
               r"\[min\(n, \d\)[\],]"],
    "recursion": [r"def gr\d\(", r"gr\d\(\w+ \* -?[\d.]+, k - 1\) \+", r"gr\d\([^\n]*, n\)",
                  r"if k <= 0 or "],
    "keywords": [r"g\d\((r|a|A|b)=", r"g\d\(\w=[^\n]*, \w="],
    "forelse": [r"^( *)(for|while) j\d+ [^\n]*\n(\1    [^\n]*\n)+\1else:",
                r"^( *)while j\d+ < \d and [^\n]*\n(\1    [^\n]*\n)+\1else:"],
    "listaxis": [r"np\.(mean|sum|max|min)\(hs\d+, axis=0\)", r"np\.mean\(hs\d+, axis=0\)"],
    "numloop": [r"^\s+c\d+ = 0\.6 \* c\d+ \+ 0\.4 \* math\.tanh\(|^\s+\w+ = 0\.6 \* \w+ \+ 0\.4 \* math\.tanh\(t\d+_",
                r"^\s+t\d+_\d+, _ = g\d\(|^\s+_, t\d+_\d+ = g\d\(", r"^\s+t\d+_\w+ = \w+ [+-] ",
                r"while j\d+ < \d:\n\s+j\d+ \+= 1\n\s+if j\d+ % 3 == 0:\n\s+continue"],
    "bareret": [r"^    (acc|c\d+) = [^\n]*\n    return \1$", r"^    (c\d+) = [^\n]* \+ \1\n    return \1$"],
    "rowops": [r"^\s+\w+\[[^\n]*\] (\*|/)= ", r"\] /= 1\.0 \+", r"\] \*= np\.tanh\(",
               r"while j\d+ < \w+:\n\s+j\d+ \+= 1\n\s+\w+\[j\d+ - 1"],
    "axes": [r"np\.(var|std)\(np\.stack\(", r"np\.\w+\(np\.stack\([^\n]*\), axis=\(-?\d, -?\d\)",
             r"np\.(var|std)\(np\.stack\([^\n]*axis=\((-1|-2|-3), ",
             r"keepdims=True\)\.reshape\(3, 1\)", r"np\.repeat\([^\n]*, axis=",
             r"np\.trace\(np\.stack\("],
    "linalg2": [r"np\.linalg\.(slogdet|cholesky)\(|\+ [23]\.0 \* np\.eye\([23]\)",
                r"^\s+sg\d+, ld\d+ = np\.linalg\.slogdet\(", r"np\.linalg\.cholesky\(",
                r"np\.linalg\.slogdet\([^\n]*\)\[1\]", r"np\.einsum\('i,ij,j->'"],
    "split": [r"np\.(array_|h)?split\(", r"np\.array_split\(", r"np\.hsplit\(",
              r"np\.split\([^\n]*, \[1, 3\]"],
    "structs": [r"^\s+dc\d+ = \{|^\s+rq\d+ = (Rec|Par)\(", r"^\s+dc\d+\[\"c\"\] \+= ",
                r"for key, val in dc\d+\.items\(\):", r"gd\d\(dc\d+, |gd\d\(\{",
                r"^class Rec\(NamedTuple\):", r"rq\d+\.score\(", r"\._replace\(c=",
                r"^\s+rq\d+ = Par\(", r"dataclasses\.replace\("],
    "starred": [r"^\s+[\w, ]*\*\w+[\w, ]* = ", r"^\s+sa\d+, \*smid\d+, sb\d+ = ",
                r"^\s+srow\d+, \*srows\d+ = ", r"^\s+\*init\d+, last\d+ = np\.split\(",
                r"^\s+z\d+, \*_ = g\d\("],
    # fuzz21: control and data structure
    "nest": [r"while abs\(d\d+\) > [\d.]+ and j\d+ < \d:", r"for j\d+ in range\(4 - 1, 0, -1\):",
             r"for j\d+ in range\(j\d+ \+ 1, 4\):", r"for j\d+ in range\(j\d+, -1, -1\):",
             r"^(\s+)for j\d+ in [^\n]*\n(\1    [^\n]*\n)*\1        return "],
    "zerotrip": [r"^\s+zq\d+ = ", r"^\s+ran\d+ = True$", r"for j\d+ in range\(n - 1\):",
                 r"^\s+if n > 1:", r"= math\.tanh\([^\n]* if (ran\d+|n|j\d+)"],
    "condread": [r"^\s+ok\d+ = ", r"if ok\d+ and ", r" if ok\d+ else ", r"if not ok\d+:"],
    "lists2": [r"\bls\d+\b", r"ls\d+\[-1 - jo\d+\]", r" for jc\d+ in range\(4\) if ",
               r"for jr\d+, rv\d+ in enumerate\(M\) ", r"^\s+ls\d+\.append\("],
    "alias": [r"^\s+ya\d+ = \w+$|^\s+rv\d+ = S\d+\[", r"^\s+ya\d+\[",
              r"(\w+)\[(j\d+)\] = [\d.]+ \* \1\[\2 - 1\]", r"\w+\[j\d+:\] \+= "],
    "poly": [r"\bgp[012]\(", r"^def gp1\(z, a, k=2\):", r"gp1\([^\n]*, n\)",
             r"^\s+z\d+, zs\d+ = gp2\(", r"gp0\([^\n]*a="],
    "called": [r"jitad\.(grad|jacfwd)\(g", r"^ge0_grad = jitad\.grad\(ge0\)",
               r"jitad\.grad\(ge0, wrt=1\)\(", r"jitad\.jacfwd\(ge1\)\(",
               r"jitad\.grad\(jitad\.grad\(ge2\)\)", r"^\s+gg\d+, gh\d+ = jitad\.grad\(",
               r"^\s+gv\d+, gd\d+ = ge2_vg\(", r"jitad\.grad\(g\d\)\("],
    "match": [r"^\s+match ", r"^\s+case \d \| \d", r"^\s+case \d+ if ", r"^\s+case other:",
              r"^\s+case _:", r"match int\(np\.argmax\("],
    "del": [r"^\s+del \w+", r"^\s+del dl\d+, dm\d+$", r"^\s+del (?!dl)\w+$"],
    "tupleargs": [r"^def f\(x, M, w, n, p\):", r"^\s+pu, \(pt, pq\) = p$", r"^\s+pu, pt = p$",
                  r"^WRT = \(0, 1, 2, 4\)", r"return x, M, [-\d.]+, \d, \(np\.array\("],
    "dicts2": [r"\bdd\d+\b", r"^\s+st\d+ = \{0: ", r'\{"enc": \{"W": ',
               r'dd\d+ = \{"a": dd\d+\["b"\]', r"for key in dd\d+\.keys\(\):",
               r'^\s+dd\d+\["h"\] = np\.tanh\(', r'if key == "sq":'],
    # fuzz23: in-place calls, list edits, nonlocal, call forms, ufunc methods
    "inplace": [r"^\s+np\.copyto\(|^\s+\w+\.fill\(|, out=\w+\)$", r"^\s+[uSyz]\w*\d+\.sort\(\)",
                r"^\s+S\w*\.sort\((axis=)?(0|1|-1)\)", r"^\s+\w+\.fill\(", r"^\s+np\.copyto\(",
                r"^\s+np\.(tanh|sin)\(.*, out=\w+\)$", r"^\s+np\.multiply\(\w+, [-\d.]+, out=",
                r"^\s+np\.mean\(.*, axis=0, out=\w+\)$", r"^\s+zo\d+ = np\.add\("],
    "listedit": [r"^\s+le\d+ = \[", r"le\d+\.pop\(\)", r"le\d+\.pop\(0\)", r"le\d+\.pop\(1\)",
                 r"^\s+pe\d+ = le\d+\.pop\(", r"le\d+\.insert\(", r"le\d+\.reverse\(\)",
                 r"le\d+\.sort\(\)", r"le\d+\[1:\]", r"le\d+\[:-1\]", r"le\d+\[::-1\]",
                 r"^\s+le\d+\.append\("],
    "nonlocal": [r"^\s+nonlocal ac\d+", r"nonlocal ac\d+, cn\d+$", r"^\s+zn\d+ = up\d+\(",
                 r"^\s+up\d+\(x\[jn\d+\]", r"^\s+return ac\d+ \*", r"^\s+\w+ \+= up\d+\("],
    "callforms": [r"np\.piecewise\(|functools\.reduce\(", r"np\.piecewise\(\w+, \[",
                  r"np\.piecewise\(\w+, \(", r"lambda v: 0\.5 \* v \* v",
                  r"functools\.reduce\(lambda p, q:", r"functools\.reduce\(operator\.add",
                  r"functools\.reduce\(operator\.mul", r"^import functools", r"^import operator",
                  r"functools\.reduce\([^\n]*\], (np\.full\(4, )?[\d.]+\)+$",
                  r"functools\.reduce\([^\n]*, \((np|math)\.[^\n]*\)\)$"],
    "ufuncred": [r"np\.\w+\.(reduce|accumulate)\(", r"np\.add\.reduce\(", r"np\.add\.accumulate\(",
                 r"np\.multiply\.reduce\(", r"np\.multiply\.accumulate\(",
                 r"np\.maximum\.accumulate\(", r"np\.minimum\.reduce\(", r"axis=1\)\)"],
    # fuzz24: views of new arrays written
    "tempview": [r"^\s+tv\d+ = ", r"^\s+tv\d+ = np\.(tanh|sin)\(.*\)\[[-\w %]+\]$",
                 r"^\s+tv\d+ = np\.tanh\(.*\)\.reshape\(2, 2\)$", r"\)\.T$",
                 r"^\s+uf\d+ = np\.(zeros|empty)\(4\)$", r"^\s+uf\d+\[jf\d+\] = math\.tanh",
                 r"^\s+tv\d+ = uf\d+\.reshape\(2, 2\)$", r"^\s+tv\d+ = uf\d+\[1:\]$",
                 r"^\s+tv\d+ = uf\d+\[::-1\]$", r"^\s+tv\d+\[.*\] \+= math\.tanh"],
}


def test_generator_reaches_its_constructs():
    import re
    texts = [fuzz.generate(s, "normal").source for s in range(500)]
    for feature, patterns in CONSTRUCTS.items():
        for pat in patterns:
            assert any(re.search(pat, t, re.M) for t in texts), (feature, pat)
        without = [fuzz.generate(s, "normal", (feature,)).source for s in range(25)]
        assert not any(re.search(patterns[0], t, re.M) for t in without), feature


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression(path, workdir, monkeypatch):
    info = fuzz.header(path)
    if info.get("second", "no") == "yes":       # the Hessian-vector product checked too
        monkeypatch.setenv("JITAD_FUZZ_SECOND", "1")
    out = fuzz.check_file(path, info.get("backend", "numba"))
    expect = info.get("expect", "ok")
    if out.cls != expect and "xfail" in info:
        pytest.xfail(info["xfail"])
    assert out.cls == expect, _explain(path.read_text(), out)


def test_minimizer_candidates_are_smaller_programs():
    source = fuzz.generate(7, "normal").source
    cands = list(itertools.islice(fuzz._candidates(source), 200))
    assert cands
    for cand in cands:
        compile(cand, "<candidate>", "exec")
    assert any(len(c) < len(source) for c in cands)
    assert fuzz._names_resolve(source)
    assert not fuzz._names_resolve(source.replace("return ", "return undefined_name + ", 1))
