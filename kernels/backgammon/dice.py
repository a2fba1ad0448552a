"""Reproducible dice from an explicit RNG state (Numba's np.random ignores NumPy seeding).

The generator is SplitMix64 (Steele, Lea, Flood 2014) written in int64 arithmetic: the state
``rng`` is an ``int64[1]`` array advanced by the golden-ratio increment; the output mixes it with
two multiply/xorshift rounds (wrapping multiplication; logical right shifts emulated by masking).
A die takes the top 32 bits and rejects the last 4 values of 2**32 so the six faces are exactly
equally likely.
"""
import numpy as np
from numba import njit

_GOLDEN = np.int64(-7046029254386353131)   # 0x9E3779B97F4A7C15 as int64
_MIX1 = np.int64(-4658895280553007687)     # 0xBF58476D1CE4E5B9
_MIX2 = np.int64(-7723592293110705685)     # 0x94D049BB133111EB
_DIE_LIMIT = np.int64(4294967292)          # 6 * (2**32 // 6)


@njit(cache=True, inline="always")
def _srl(x, k):
    """Logical right shift of an int64 by k (1..63)."""
    return (x >> k) & ((np.int64(1) << (64 - k)) - 1)


@njit(cache=True)
def next_u64(rng):
    """Advance rng (int64[1]) and return the next 64 random bits as an int64."""
    rng[0] += _GOLDEN
    z = rng[0]
    z = (z ^ _srl(z, 30)) * _MIX1
    z = (z ^ _srl(z, 27)) * _MIX2
    return z ^ _srl(z, 31)


@njit(cache=True)
def roll_die(rng):
    """One fair die 1..6 from rng (int64[1])."""
    while True:
        r = _srl(next_u64(rng), 32)
        if r < _DIE_LIMIT:
            return r % 6 + 1


@njit(cache=True)
def roll_dice(rng):
    """Two dice (d1, d2) from rng (int64[1])."""
    d1 = roll_die(rng)
    d2 = roll_die(rng)
    return d1, d2


def new_rng(seed):
    """A fresh RNG state (int64[1]) for an integer seed."""
    return np.array([np.int64(np.uint64(int(seed) & (2**64 - 1)).astype(np.int64))], dtype=np.int64)
