import numpy as np
from numba import njit

from boardgym.kernels.bits import bits_to_indices, lsb, msb, pop_lsb, popcount


@njit
def _all(x):
    return popcount(x), lsb(x), msb(x), pop_lsb(x)


def test_bit_helpers_match_python():
    rng = np.random.default_rng(0)
    for _ in range(500):
        x = int(rng.integers(0, 2**62)) | (1 << int(rng.integers(0, 63)))
        pc, lo, hi, rest = _all(np.int64(x))
        assert pc == bin(x).count("1")
        assert lo == (x & -x).bit_length() - 1
        assert hi == x.bit_length() - 1
        assert rest == x & (x - 1)
    assert _all(np.int64(0))[:3] == (0, 64, -1)


def test_bits_to_indices():
    out = np.zeros(64, np.int64)
    n = bits_to_indices(np.int64((1 << 0) | (1 << 5) | (1 << 62)), out)
    assert list(out[:n]) == [0, 5, 62]
