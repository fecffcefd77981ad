# found: by hand, probing the fuzzer's "helpers returning a dict" candidate (tests/fuzz.py):
#   `d = g0(x)` with g0 returning a dict display, then `d["b"]`.  Both modes refused it, but
#   blamed the key as "a string is only supported as a constant argument of a library call".
# fixed: a string key read of a value that is neither a local dict nor a dict argument is
#   refused as what it is (`normalize/anf.py`), naming the whole `d["b"]`; a helper's dict
#   result stays refused, as docs/language.md says (callers read a helper's results flat)
# expect: refused
# backend: python
import numpy as np


def g0(r):
    return {"a": r * 2.0, "b": np.sum(r * r)}


def f(x, M, w, n):
    d = g0(x * w)
    return d["b"] + np.sum(d["a"] * x)


def fuzz_args():
    x = np.array([0.31, -0.52, 0.73, -0.24])
    M = np.array([[0.21, -0.33, 0.44, 0.15], [-0.61, 0.12, 0.38, -0.27],
                  [0.52, -0.19, -0.45, 0.33]])
    return (x, M, 0.37, 3)


WRT = (0, 1, 2)
