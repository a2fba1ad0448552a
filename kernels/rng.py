"""Explicit-state random numbers for kernels (Numba's np.random does not follow NumPy's seeding).

SplitMix64 (Steele, Lea, Flood 2014) in int64 arithmetic: a generator is one int64 word, held in
an array so kernels can advance it in place (``rngs[i]`` per game in a batch); the output mixes
it with two multiply/xorshift rounds (wrapping multiplication; logical right shifts emulated by
masking). Shared by every game: dice, random opponents, random action sampling.
"""

import numpy as np
from numba import njit, prange

from boardgym.kernels.bits import popcount

_GOLDEN = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15 as int64
_MIX1 = np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9
_MIX2 = np.int64(-7723592293110705685)  # 0x94D049BB133111EB


@njit(cache=True, inline="always")
def srl(x, k):
    """Logical right shift of an int64 by k (1..63)."""
    return (x >> k) & ((np.int64(1) << (64 - k)) - 1)


@njit(cache=True)
def next_u64(rngs, i):
    """Advance generator rngs[i] (int64 array) and return 64 random bits as an int64."""
    rngs[i] += _GOLDEN
    z = rngs[i]
    z = (z ^ srl(z, 30)) * _MIX1
    z = (z ^ srl(z, 27)) * _MIX2
    return z ^ srl(z, 31)


@njit(cache=True)
def rand_below(rngs, i, n):
    """Uniform integer in [0, n) from generator rngs[i] (1 <= n < 2**31), without modulo bias."""
    limit = (np.int64(1) << 32) - ((np.int64(1) << 32) % n)
    while True:
        r = srl(next_u64(rngs, i), 32)
        if r < limit:
            return r % n


def seed_rngs(seed, n):
    """int64[n] generator states: stream i starts at the SplitMix64 mix of (seed + i) mod 2**64, so
    stream i of ``seed_rngs(S, n)`` is stream 0 of ``seed_rngs(S + i, 1)``; every seed 0..2**64-1
    gives its own streams (the envs check seeds: boardgym.envs.seeding)."""
    return _mix_seeds(_as_int64(seed) + np.arange(n, dtype=np.int64))


def seed_streams(seeds):
    """int64[len(seeds)] generator states, stream i from seeds[i] alone: stream 0 of
    ``seed_rngs(seeds[i], 1)`` (so consecutive seeds S, S + 1, ... give ``seed_rngs(S, n)``)."""
    return _mix_seeds(np.array([_as_int64(s) for s in seeds], dtype=np.int64))


def _as_int64(seed):
    """The 64 bits of a seed 0..2**64-1 (any int, taken mod 2**64) as an int64."""
    s = int(seed) & (2**64 - 1)
    return np.int64(s - 2**64 if s >= 2**63 else s)


def _mix_seeds(x):
    """SplitMix64's output mix of the int64 words x * golden (wrapping), element-wise."""
    x = x * _GOLDEN
    with np.errstate(over="ignore"):
        x = (x ^ ((x >> 30) & ((1 << 34) - 1))) * _MIX1
        x = (x ^ ((x >> 27) & ((1 << 37) - 1))) * _MIX2
    return x ^ ((x >> 31) & ((1 << 33) - 1))


@njit(cache=True)
def random_masked_action(mask_row, rngs, i):
    """A uniformly random index where mask_row (int8) is nonzero, -1 if none."""
    n = 0
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            n += 1
    if n == 0:
        return -1
    k = rand_below(rngs, i, n)
    for a in range(mask_row.shape[0]):
        if mask_row[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit(cache=True)
def pick_marked(mask_row, n, rngs, i):
    """random_masked_action for a mask_row (int8, C-contiguous, entries 0/1) known to hold n >= 1
    marks: the same draw and the same index, found eight entries per word."""
    k = rand_below(rngs, i, n)
    whole = mask_row.shape[0] - mask_row.shape[0] % 8
    words = mask_row[:whole].view(np.int64)
    start = whole
    for w in range(words.shape[0]):
        c = popcount(words[w])  # entries are 0/1: a word's set bits count its marks
        if k < c:
            start = 8 * w
            break
        k -= c
    for a in range(start, mask_row.shape[0]):
        if mask_row[a]:
            if k == 0:
                return a
            k -= 1
    return -1


def _batch_random_actions(masks, rngs, out):
    """out[i] = a uniformly random legal action of masks[i] (int8[N, A]), -1 where none."""
    for i in prange(masks.shape[0]):
        out[i] = random_masked_action(masks[i], rngs, i)


batch_random_actions = njit(parallel=True, cache=True)(_batch_random_actions)
batch_random_actions_serial = njit(cache=True)(_batch_random_actions)
