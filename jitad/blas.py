"""A matrix product by BLAS whose operands' layouts are read at run time, not from their types.

Numba's `np.dot` of two matrices picks BLAS's transpose flags from the operands' Numba types
(C or F layout), so compiled code multiplying a matrix by a transposed view (`g @ b.T`, the
adjoint of `@`) is compiled once per layout pair, and an operand typed 'A' (any layout) is
always copied first. `gemm(a, b)` compiles once for operands of any layout: a C-contiguous
operand is passed as it is, an F-contiguous one (a transposed C array) as the same memory
with the transpose flag, and only a strided one (a slice with a step) is copied.

Takes: two float or complex matrices of one dtype (BLAS's four), shapes (m, k) and (k, n) (the caller
checks k). Guarantees: a new C-contiguous (m, n) array equal to NumPy's a @ b (BLAS's sums);
the operands are never written.
"""
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .cache import njit

_KINDS = {types.float32: "s", types.float64: "d", types.complex64: "c", types.complex128: "z"}


@intrinsic
def _xxgemm(typingctx, ta, tb, m, n, k, a, lda, b, ldb, out):
    """out (m, n, C order) = op(a) @ op(b) by Numba's BLAS wrapper `numba_xxgemm`: ta (tb)
    is 1 when a (b) is read in F order, i.e. its memory holds the matrix's transpose in C
    order, with leading dimension lda (ldb). Returns BLAS's status (0: done)."""
    from numba.np.linalg import ensure_blas
    ensure_blas()
    if not (isinstance(out, types.Array) and out.dtype in _KINDS):
        return None
    sig = types.int32(ta, tb, m, n, k, a, lda, b, ldb, out)

    def codegen(context, builder, sig, args):
        ta, tb, m, n, k, a, lda, b, ldb, out = args
        dtype = sig.args[-1].dtype
        char = ir.IntType(8)
        intp = context.get_value_type(types.intp)
        voidp = cgutils.voidptr_t
        fnty = ir.FunctionType(ir.IntType(32), [char, char, char, intp, intp, intp, voidp, voidp,
                                                intp, voidp, intp, voidp, voidp, intp])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_xxgemm")

        def data(ty, val):
            return builder.bitcast(context.make_array(ty)(context, builder, val).data, voidp)

        def flag(t):        # BLAS is column-major: a C-ordered operand is its transpose there
            return builder.select(builder.icmp_signed("!=", t, t.type(0)),
                                  char(ord("t")), char(ord("n")))

        def slot(v):
            return builder.bitcast(cgutils.alloca_once_value(
                builder, context.get_constant(dtype, v)), voidp)

        # out^T (n, m) = op(b)^T (n, k) @ op(a)^T (k, m), all column-major
        res = builder.call(fn, (char(ord(_KINDS[dtype])), flag(tb), flag(ta), n, m, k,
                                slot(1.0), data(sig.args[7], b), ldb,
                                data(sig.args[5], a), lda, slot(0.0),
                                data(sig.args[9], out), n))
        return res
    return sig, codegen


def gemm(a, b):
    """a @ b of two matrices of one float dtype, any strides (see the module docstring)."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), a.dtype)
    if m == 0 or n == 0:
        return out
    if k == 0:
        out[:, :] = 0
        return out
    x = a if a.flags.c_contiguous or a.flags.f_contiguous else np.ascontiguousarray(a)
    y = b if b.flags.c_contiguous or b.flags.f_contiguous else np.ascontiguousarray(b)
    tx = 0 if x.flags.c_contiguous else 1
    ty = 0 if y.flags.c_contiguous else 1
    ldx = max(k, 1) if tx == 0 else max(m, 1)
    ldy = max(n, 1) if ty == 0 else max(k, 1)
    if _xxgemm(tx, ty, m, n, k, x, ldx, y, ldy, out) != 0:
        raise RuntimeError("BLAS gemm failed")
    return out


gemm = njit(gemm, nogil=True)
