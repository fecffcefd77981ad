"""Golden text after each pass, for a handful of functions (tests/stage_funcs.py).

The passes' output is deterministic, so it is compared byte for byte with tests/golden/; a
change to the generated code shows up here as a readable diff. After an intended change,
regenerate with `JITAD_UPDATE_GOLDEN=1 python -m pytest tests/test_stages.py -n 0` and review
the diff of tests/golden/ like code."""
import os

import numpy as np
import pytest

import jitad
from tests import stage_funcs as sf

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
X = np.linspace(0.1, 0.9, 4)
CASES = {
    "loop_branch": (sf.loop_branch, (X, 0.5), 1),
    "while_break": (sf.while_break, (1.0, 1.5), (0, 1)),
    "helper_rows": (sf.helper_rows, (np.ones((3, 4)) * 0.1, np.ones((5, 4))), 0),
    "helper_twice": (sf.helper_twice, (np.ones((3, 4)) * 0.1, np.ones((5, 4))), 0),
    "array_writes": (sf.array_writes, (X,), 0),
}
STAGES = ("normalize", "specialize", "plan", "primal", "callee_adjoints", "entry_adjoint")


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_text_after_pass(name, stage):
    fn, args, wrt = CASES[name]
    text = jitad.source(fn, stage, args=args, wrt=wrt)
    path = os.path.join(GOLDEN, f"{name}.{stage}.txt")
    if os.environ.get("JITAD_UPDATE_GOLDEN") or not os.path.exists(path):
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        if not os.environ.get("JITAD_UPDATE_GOLDEN"):
            pytest.fail(f"{path} did not exist; written now -- review and commit it")
    with open(path) as fh:
        assert text == fh.read(), f"{name} after {stage} differs from {path}"
