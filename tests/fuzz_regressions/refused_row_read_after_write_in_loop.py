# seed: 5 (size small), hand-reduced; also most crash:compiled-only-refusal programs
# backend: python
# found: compiled refuses, eager runs (a JitadError in one mode only): in a loop, a row read
#   (S[1] * 2.0: the view S[1] is a temporary, dead once read) is taken for a live alias
#   that the next iteration's write `S[2] = x` would change ("this write into 'S' would also
#   change 'S_at', an alias of it made at line ...").  The same statements without the loop
#   are accepted, and so is a row read placed before the write in the body without a branch.
# fixed: ee25451 (writes an alias observes decided on a control-flow graph)
import numpy as np


def f(x):
    S = np.zeros((3, 4))
    for i in range(2):
        S[2] = x
        u = S[1] * 2.0
    return np.sum(S) + np.sum(u)


def fuzz_args():
    return (np.array([0.5, -0.25, 0.75, 1.0]),)


WRT = (0,)
