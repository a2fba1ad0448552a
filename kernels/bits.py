"""Bit helpers shared by every game kernel (bit tricks only, never rules).

Bitboards are ``int64`` with at most 63 bits in use; nothing here touches ``uint64``.
``popcount``/``lsb``/``msb`` compile to single LLVM intrinsics (ctpop/cttz/ctlz).
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _ctpop(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _ctlz(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of an int64 bitboard."""
    return _ctpop(np.int64(x))


@njit(cache=True, inline="always")
def lsb(x):
    """Index of the lowest set bit (64 when x == 0)."""
    return _cttz(np.int64(x))


@njit(cache=True, inline="always")
def msb(x):
    """Index of the highest set bit (-1 when x == 0)."""
    return 63 - _ctlz(np.int64(x))


@njit(cache=True, inline="always")
def bit(i):
    """The int64 with only bit i set."""
    return np.int64(1) << np.int64(i)


@njit(cache=True, inline="always")
def pop_lsb(x):
    """x with its lowest set bit cleared."""
    return x & (x - np.int64(1))


@njit(cache=True)
def bits_to_indices(x, out):
    """Write the indices of the set bits of x into out (int64[>=64]); return their count."""
    n = 0
    while x != 0:
        out[n] = lsb(x)
        x = pop_lsb(x)
        n += 1
    return n
