"""Small arrays of a length or shape known when the code is generated become numbers
(`jitad/scalarize.py`): the generated code allocates none of them, the gradients, Jacobians
and Hessians stay right in both modes, a slice with constant bounds of a shorter array is
refused at run time rather than read past its end, a matrix against an operand of another
shape raises as NumPy does, and an array seen through an alias written after stays one.

Numba compiles every vector case and the matrix cases but `rigid_transform`, whose gradient and
Jacobian run on the python backend (the same generated code: its mechanisms -- np.eye(4) with
blocks written in, products and transposes of known matrices -- compile under Numba in
`transform_points` and `rotate_points`), and one Hessian (`rotate_points`' angles; the others
and the residual's Hessian on the python backend). ``JITAD_SCALARIZE_FULL=1`` compiles them
all with Numba."""
import os
import textwrap

import numpy as np
import pytest

import jitad

from . import scalarize_funcs as sf
from .harness import central_fd, check_both_modes

RNG = np.random.default_rng(11)
FULL = os.environ.get("JITAD_SCALARIZE_FULL", "") not in ("", "0")
PYTHON = set() if FULL else {"rigid_transform"}    # compiled as generated Python, not Numba


def _compiled(fn):
    """fn itself (Numba) or its python-backend function (a name in PYTHON)."""
    return jitad.differentiable(fn, backend="python") if fn.__name__ in PYTHON else fn
CAM = np.concatenate([RNG.normal(scale=0.1, size=3), RNG.normal(scale=0.2, size=3), [1.1],
                      RNG.normal(scale=0.01, size=4)])
X = np.array([0.3, -0.2, 5.0])
FEAT = np.array([0.02, -0.01])
CHAIN = np.cumsum(RNG.normal(scale=0.6, size=(6, 3)) + [1.0, 0.0, 0.0], axis=0)


def _vjp_source(fn, args, wrt):
    src = jitad.source(fn, "adjoint", args=args, wrt=wrt)
    return src[src.index(f"def {fn.__name__}_vjp"):]


def test_the_reprojection_adjoint_allocates_no_small_arrays():
    src = _vjp_source(sf.reprojection, (CAM, X, 0.9, FEAT), (0, 1, 2))
    assert "np.empty((3,)" not in src and "np.empty((2,)" not in src
    assert src.count("np.zeros_like") == 2          # d_cam and d_X, the returned gradients
    assert "rt.check_slice_end(cam.shape[0], 6)" in src


@pytest.mark.parametrize("fn,args,wrt", [
    (sf.reprojection, (CAM, X, 0.9, FEAT), (0, 1, 2)),
    (sf.reprojection, (np.concatenate([[0.0, 0.0, 0.0], CAM[3:]]), X, 0.9, FEAT), (0, 1, 2)),
    (sf.spring_chain, (CHAIN, 2.5), (0, 1)),
    (sf.aliases, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.quaternion_rotate, (np.array([0.9, 0.1, -0.3, 0.2]), np.array([0.5, 1.5, -2.0])), (0, 1)),
    (sf.short_slice, (np.array([0.5, -1.5, 2.0, 4.0]),), (0,)),
    (sf.self_reference, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.broadcast_partner, (np.array([0.4, -1.3, 2.2]), 0.7), (0, 1)),
    (sf.broadcast_partner, (np.array([0.4]), 0.7), (0, 1)),
    (sf.branches_and_loops, (np.array([0.4, -1.3, 2.2]), 6), (0,)),
    (sf.branches_and_loops, (np.array([-0.4, 1.3, 2.2]), 9), (0,)),
    (sf.typed_vectors, (np.array([0.4, -1.3, 2.2]),), (0,)),
    (sf.cross_and_norm, (np.array([0.4, -1.3, 2.2]), np.array([0.3, 1.1, -0.7, 0.9])), (0, 1)),
], ids=["reprojection", "reprojection_at_zero", "spring_chain", "aliases", "quaternion",
        "short_slice", "self_reference", "broadcast_partner", "broadcast_partner_length_1",
        "branches_and_loops", "branches_and_loops_other_branch", "typed_vectors",
        "cross_and_norm"])
def test_gradients_in_both_modes(fn, args, wrt):
    check_both_modes(fn, args, wrt)


def test_cross_products_and_norms_are_written_out():
    src = _vjp_source(sf.cross_and_norm, (np.array([0.4, -1.3, 2.2]), np.ones(4)), (0, 1))
    src = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert "np.cross" not in src and "np.linalg.norm" not in src and "np.empty((3,)" not in src


def test_the_residual_jacobian_and_hessian():
    def residual(cam, X):
        return sf.rodrigues(cam[0:3], X - cam[3:6])[0:2] * cam[6]

    J = jitad.jacrev(residual, wrt=(0, 1))(CAM, X)
    Jf = jitad.jacfwd(residual, wrt=0)(CAM, X)
    for i in range(2):
        fd = central_fd(lambda c, x: residual(c, x)[i], (CAM, X), (0, 1))
        assert np.allclose(J[0][i], fd[0], rtol=1e-7, atol=1e-9)
        assert np.allclose(J[1][i], fd[1], rtol=1e-7, atol=1e-9)
    assert np.allclose(Jf, J[0], rtol=1e-12, atol=1e-14)
    # (the Hessian of scalarized code under Numba: test_matrix_hessians' rotate_points_angles)
    d = sf.reprojection if FULL else jitad.differentiable(sf.reprojection, backend="python")
    H = jitad.hessian(d, wrt=1)(CAM, X, 0.9, FEAT)
    g = jitad.grad(d, wrt=1)
    fd = np.stack([central_fd(lambda x: g(CAM, x, 0.9, FEAT)[k], (X,), (0,))[0] for k in range(3)])
    assert np.allclose(H, fd, rtol=1e-6, atol=1e-8) and np.allclose(H, H.T, atol=1e-12)


def test_a_constant_slice_of_a_shorter_array_is_refused_at_run_time():
    x = np.array([0.5, -1.5])
    assert sf.short_slice.__name__ and np.isfinite(sf.short_slice(np.array([0.5, -1.5, 2.0])))
    with pytest.raises(IndexError, match="constant bounds"):
        jitad.grad(sf.short_slice)(x)


# ---------------------------------------------------------------- small matrices
ANG = np.array([0.3, -0.7, 1.1])
PT = np.array([0.5, -1.5, 2.0])
THETA = np.array([0.4, 1.0, -2.0, 0.5])


@pytest.mark.parametrize("fn,args,wrt", [
    (sf.rotate_points, (ANG, PT), (0, 1)),
    (sf.rigid_transform, (THETA, PT), (0, 1)),
    (sf.carried_matrix, (ANG, 5), (0,)),
    (sf.carried_matrix, (np.array([0.1, 0.2, 0.05]), 4), (0,)),
    (sf.matrix_aliases, (ANG,), (0,)),
    (sf.matrix_broadcast, (ANG, np.array([[0.5, -1.0, 2.0]])), (0, 1)),
    (sf.matrix_broadcast, (ANG, np.array([[0.5], [-1.0], [2.0]])), (0, 1)),
    (sf.matrix_broadcast, (ANG, np.arange(9.0).reshape(3, 3) / 4.0), (0, 1)),
    (sf.transform_points, (THETA, RNG.normal(size=(4, 5))), (0, 1)),
    (sf.transform_points, (THETA, np.zeros((4, 0))), (0,)),
], ids=["rotate_points", "rigid_transform", "carried_matrix", "carried_matrix_other_branch",
        "matrix_aliases", "broadcast_row", "broadcast_column", "broadcast_full",
        "transform_points", "transform_no_points"])
def test_matrix_gradients_in_both_modes(fn, args, wrt):
    check_both_modes(fn, args, wrt, backend="python" if fn.__name__ in PYTHON else "numba")


@pytest.mark.parametrize("fn,args", [
    (sf.euler_rotation, (ANG,)),
    (sf.returned_matrix, (ANG,)),
    (sf.rigid_transform, (THETA, PT)),
], ids=["euler_rotation", "returned_matrix", "rigid_transform"])
def test_matrix_jacobians_forward_reverse_and_differences(fn, args):
    Jf = jitad.jacfwd(_compiled(fn), wrt=0)(*args)
    # reverse mode's generated code run by NumPy: the Numba compile of the scalarized adjoints
    # is the gradient tests' (~15 s each)
    Jr = jitad.jacrev(jitad.differentiable(fn, backend="python"), wrt=0)(*args)
    assert np.allclose(Jf, Jr, rtol=1e-12, atol=1e-14)
    out = np.asarray(fn(*args))
    fd = np.stack([central_fd(lambda x: np.ravel(fn(x, *args[1:]))[k], (args[0],), (0,))[0]
                   for k in range(out.size)]).reshape(Jf.shape)
    assert np.allclose(Jf, fd, rtol=1e-7, atol=1e-9)
    assert np.allclose(_compiled(fn)(*args), fn(*args), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("fn,args,wrt,backend", [
    (sf.rotate_points, (ANG, PT), 0, "numba"), (sf.rotate_points, (ANG, PT), 1, "python"),
    (sf.rigid_transform, (THETA, PT), 0, "python")],
    ids=["rotate_points_angles", "rotate_points_points", "rigid_transform"])
def test_matrix_hessians(fn, args, wrt, backend):
    # one Hessian compiled by Numba (~40 s of compiles each); the others run the same generated
    # source with NumPy, the reference gradient too
    H = jitad.hessian(jitad.differentiable(fn, backend=backend), wrt=wrt)(*args)
    g = jitad.grad(jitad.differentiable(fn, backend="python"), wrt=wrt)
    x = args[wrt]

    def gk(v, k):
        a = list(args)
        a[wrt] = v
        return g(*a)[k]
    fd = np.stack([central_fd(lambda v: gk(v, k), (x,), (0,))[0] for k in range(x.size)])
    assert np.allclose(H, fd, rtol=1e-6, atol=1e-8) and np.allclose(H, H.T, atol=1e-10)


def test_the_rotation_allocates_only_its_result():
    src = jitad.source(sf.euler_rotation, "jvp", args=(ANG,), wrt=0)
    src = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert "rt.matmat" not in src and src.count("np.empty((3, 3)") == 2   # the value, its tangent
    adj = _vjp_source(sf.rotate_points, (ANG, PT), (0, 1))
    fwd = adj[:adj.index("def rotate_points_vjp")] if "def rotate_points_vjp" in adj else ""
    src = jitad.source(sf.rotate_points, "jvp", args=(ANG, PT), wrt=0)
    for text in (src, fwd):
        assert "rt.matmat" not in text and "rt.matvec" not in text and "np.zeros((3, 3)" not in text \
            and "np.eye" not in text


def test_a_matrix_against_an_operand_of_another_shape_raises_as_numpy_does():
    bad = np.ones((2, 3))
    with pytest.raises(ValueError):
        sf.matrix_broadcast(ANG, bad)
    with pytest.raises(ValueError):
        jitad.grad(sf.matrix_broadcast, wrt=(0, 1))(ANG, bad)
    with pytest.raises(ValueError):
        jitad.jacfwd(sf.matrix_broadcast, wrt=0)(ANG, bad)
    # a known matrix times an array of the wrong inner length
    for f in (sf.transform_points, jitad.grad(sf.transform_points, wrt=(0, 1)),
              jitad.jacfwd(sf.transform_points, wrt=0)):
        with pytest.raises(ValueError):
            f(THETA, np.ones((3, 5)))


def test_a_product_with_an_array_of_any_length_is_a_loop():
    src = jitad.source(sf.transform_points, "jvp", args=(THETA, np.ones((4, 5))), wrt=0)
    src = "\n".join(line for line in src.splitlines() if not line.strip().startswith("#"))
    assert "rt.matmat" not in src and "np.eye" not in src
    assert src.count("rt.check_length(X.shape[0], 4)") == 2 and "rt.check_length(X.shape[1], 4)" not in src


def _pass_on(src, **types):
    import ast
    from types import SimpleNamespace

    from jitad.scalarize import scalarize
    fdef = ast.parse(textwrap.dedent(src)).body[0]
    scalarize(fdef, {n: SimpleNamespace(ndim=nd, dtype="f8") for n, nd in types.items()})
    return ast.unparse(fdef)


def _run(src, *args):
    from jitad import runtime as rt
    env = {"np": np, "rt": rt, "math": __import__("math")}
    exec(src, env)
    return env["f"](*args)


def test_a_matrix_written_after_an_alias_stays_an_array():
    """`B = A`, a row `r = A[0]`, `T = A.T` (and views of them) see a write into A (here
    through another name for it) made after them: the pass runs on generated code, where such
    writes exist (a tape's values written back)."""
    for alias, read in [("B = A", "B[0, 1]"), ("r = A[0]", "r[1]"), ("T = A.T", "T[1, 0]"),
                        ("T = A.T; U = T.T", "U[0, 1]"),    # through a view of a view
                        ("B = A; A = B.copy(); C = B.T", "C[0, 1]"),
                        ("C = np.ascontiguousarray(A)", "C[0, 1]")]:    # A itself, contiguous
        src = f"""
        def f(a):
            A = np.empty((2, 2), np.float64)
            A[0, 0] = a[0]
            A[0, 1] = a[1]
            A[1, 0] = a[2]
            A[1, 1] = 1.0
            {alias}
            B = A
            B[0, 1] = 5.0
            out = {read} + A[1, 1]
            return out
        """
        out = _pass_on(src, a=1)
        assert "B[0, 1] = 5.0" in out and "np.empty((2, 2)" in out
        assert _run(out, ANG) == _run(textwrap.dedent(src), ANG)
    # without the write after it, A becomes numbers
    out = _pass_on("""
    def f(a):
        A = np.empty((2, 2), np.float64)
        A[0, 0] = a[0]
        A[0, 1] = a[1]
        A[1, 0] = a[2]
        A[1, 1] = 1.0
        T = A.T
        out = T[1, 0] + A[1, 1] + np.sum(rt.matmat(A, T))
        return out
    """, a=1)
    assert "np.empty" not in out and "rt.matmat" not in out
    A = np.array([[ANG[0], ANG[1]], [ANG[2], 1.0]])
    assert np.isclose(_run(out, ANG), ANG[1] + 1.0 + np.sum(A @ A.T), rtol=1e-14)


def test_the_pass_alone_agrees_with_numpy_on_random_matrix_code():
    """A differential fuzz of the pass: each random function run by Python before and after
    it (values to 1e-12: a product's terms are added in another order than BLAS's; the same
    error where NumPy raises one)."""
    import ast
    import math
    import random
    from types import SimpleNamespace

    from jitad import runtime as rt
    from jitad.scalarize import scalarize
    kinds = {"a": SimpleNamespace(ndim=1, dtype="f8"), "X": SimpleNamespace(ndim=2, dtype="f8")}
    Xs = [np.ones((3, 3)) * 0.5, np.array([[1.0, 2.0, 3.0]]), np.array([[1.0], [2.0], [3.0]]),
          np.ones((2, 3)), np.ones((3, 2)), np.ones((1, 1)) * 3, np.arange(6.0).reshape(2, 3)]

    def run(code, a, X):
        env = {"np": np, "rt": rt, "math": math}
        exec(code, env)
        try:
            return env["f"](a.copy(), X.copy())
        except Exception as e:      # noqa: BLE001 -- compared: the same error both sides
            return type(e).__name__
    rewritten = 0
    for seed in range(150):
        code = _random_matrix_code(random.Random(seed))
        fdef = ast.parse(code).body[0]
        scalarize(fdef, kinds)
        out = ast.unparse(fdef)
        rewritten += "np.zeros((" not in out
        a, X = np.array([0.3, -1.2, 0.7]), Xs[seed % len(Xs)]
        want, got = run(code, a, X), run(out, a, X)
        if want == "UnboundLocalError":         # a name set in a branch not taken
            continue
        assert (want == got) if isinstance(want, str) or isinstance(got, str) else \
            np.isclose(want, got, rtol=1e-12, atol=1e-12), (seed, want, got, out)
    assert rewritten > 50        # most of them lose every matrix


def _random_matrix_code(rng):
    """A random function of generated code's spelling on 2 x 2 .. 3 x 3 matrices: element,
    row and block writes, products, transposes, aliases and views written after, in-place
    updates, accumulations, an operand of unknown shape `X`, statements in an `if` or a loop;
    it returns a number computed from every array."""
    lines = []
    mats = {}      # name -> shape
    vecs = {}
    k = [0]
    def fresh(p):
        k[0] += 1
        return f"{p}{k[0]}"

    def newmat(shape):
        n = fresh("M")
        lines.append(f"{n} = np.zeros(({shape[0]}, {shape[1]}), np.float64)")
        for i in range(shape[0]):
            for j in range(shape[1]):
                lines.append(f"{n}[{i}, {j}] = {scal()}")
        mats[n] = shape
        return n

    def scal():
        c = rng.random()
        if c < 0.4:
            return f"a[{rng.randrange(3)}]"
        if c < 0.6:
            return f"{rng.choice([0.5, -1.0, 2.0, 0.0])}"
        if mats and c < 0.9:
            m = rng.choice(list(mats))
            return f"{m}[{rng.randrange(mats[m][0])}, {rng.randrange(mats[m][1])}]"
        return f"math.sin(a[{rng.randrange(3)}])"
    shapes = [(2, 2), (3, 3), (2, 3), (3, 2)]
    newmat(rng.choice(shapes))
    newmat(rng.choice(shapes))
    for _ in range(rng.randrange(4, 12)):
        c = rng.random()
        if rng.random() < 0.4:
            c = 0.94 + 0.06 * c
        names = list(mats)
        m = rng.choice(names)
        s = mats[m]
        if c < 0.12:
            newmat(rng.choice(shapes))
        elif c < 0.25:       # product
            partners = [x for x in names if mats[x][0] == s[1]]
            if partners:
                p = rng.choice(partners); n = fresh("P")
                lines.append(f"{n} = rt.matmat({m}, {p})"); mats[n] = (s[0], mats[p][1])
        elif c < 0.33:
            n = fresh("T"); lines.append(f"{n} = {m}.T"); mats[n] = s[::-1]
        elif c < 0.43:       # elementwise
            partners = [x for x in names if mats[x] == s]
            p = rng.choice(partners); n = fresh("E")
            op = rng.choice(["+", "-", "*"])
            lines.append(f"{n} = {m} {op} {p} * {scal()}"); mats[n] = s
        elif c < 0.5:        # alias
            n = fresh("B"); lines.append(f"{n} = {m}"); mats[n] = s
        elif c < 0.58:       # row view
            n = fresh("r"); i = rng.randrange(s[0]); lines.append(f"{n} = {m}[{i}]"); vecs[n] = s[1]
        elif c < 0.68:       # element write
            lines.append(f"{m}[{rng.randrange(s[0])}, {rng.randrange(s[1])}] = {scal()}")
        elif c < 0.75:       # row write
            vs = [v for v in vecs if vecs[v] == s[1]]
            if vs:
                lines.append(f"{m}[{rng.randrange(s[0])}] = {rng.choice(vs)} * 2.0")
            else:
                lines.append(f"{m}[{rng.randrange(s[0])}, :] = {scal()}")
        elif c < 0.82:       # in-place
            partners = [x for x in names if mats[x] == s]
            lines.append(f"{m} += {rng.choice(partners)}")
        elif c < 0.88:       # block write
            if s[0] >= 2 and s[1] >= 2:
                lines.append(f"{m}[:2, :2] = {scal()}")
        elif c < 0.94:       # matvec
            vs = [v for v in vecs if vecs[v] == s[1]]
            if vs:
                n = fresh("v"); lines.append(f"{n} = rt.matvec({m}, {rng.choice(vs)})"); vecs[n] = s[0]
        elif c < 0.97:
            if min(s) >= 2:
                n = fresh("X"); lines.append(f"{n} = {m} * X + {m}"); mats[n] = s
            elif s[0] == 3:
                n = fresh("Q"); lines.append(f"{n} = rt.matmat(X, {m})")
                lines.append(f"{fresh('w')} = np.sum({n})")
        elif c < 0.975:
            vs = [v for v in vecs if vecs[v] == s[0]]
            if vs:
                n = fresh("u"); lines.append(f"{n} = rt.vecmat({rng.choice(vs)}, {m})"); vecs[n] = s[1]
        elif c < 0.98:
            vs = list(vecs)
            if len(vs) >= 1:
                x, y = rng.choice(vs), rng.choice(vs)
                n = fresh("O"); lines.append(f"{n} = rt.outer({x}, {y})"); mats[n] = (vecs[x], vecs[y])
        elif c < 0.985:
            vs = [v for v in vecs if vecs[v] == s[1]]
            if vs:
                lines.append(f"rt.add_into({m}[{rng.randrange(s[0])}], {rng.choice(vs)})")
        elif c < 0.99:
            partners = [x for x in names if mats[x] == s]
            lines.append(f"rt.accum2({m}, {rng.choice(partners)}.copy())")
        elif c < 0.993:
            n = fresh("Z"); lines.append(f"{n} = np.zeros_like({m})"); mats[n] = s
        elif c < 0.996:
            if s[0] == s[1]:
                n = fresh("I"); lines.append(f"{n} = np.eye({s[0]}) + {m}"); mats[n] = s
        else:
            n = fresh("w"); lines.append(f"{n} = np.sum({m}) + {scal()}")
        if rng.random() < 0.15 and len(lines) > 3 and not lines[-1].startswith((" ", "if", "for")):
            body = lines.pop()
            if rng.random() < 0.5:
                lines.append(f"if a[{rng.randrange(3)}] > 0.0:")
            else:
                lines.append("for k in range(2):")
            lines.append("    " + body)
    # result: a number from everything (nothing returned as an array)
    terms = [f"np.sum({m})" for m in mats] + [f"np.sum({v})" for v in vecs]
    lines.append("out = " + " + ".join(terms))
    lines.append("return out")
    return "def f(a, X):\n" + textwrap.indent("\n".join(lines), "    ")
