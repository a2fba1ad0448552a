"""Dice from an explicit RNG state: reproducible, SplitMix64 reference output, fair faces, and
set_dice's encoding of a roll (B.4: a double is four moves)."""

import numpy as np

from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon.dice import new_rng, next_u64, roll_dice, roll_into


def test_splitmix64_reference_value():
    # SplitMix64 seeded with 0: first output 0xE220A8397B1DCDAF (Vigna's reference implementation)
    assert next_u64(new_rng(0)) & (2**64 - 1) == 0xE220A8397B1DCDAF


def test_same_seed_same_dice():
    a, b = new_rng(42), new_rng(42)
    assert [roll_dice(a) for _ in range(100)] == [roll_dice(b) for _ in range(100)]
    c, d = new_rng(42), new_rng(43)
    assert [roll_dice(c) for _ in range(20)] != [roll_dice(d) for _ in range(20)]


def test_faces_are_fair():
    rng = new_rng(7)
    counts = np.zeros(7, dtype=np.int64)
    for _ in range(60_000):
        d1, d2 = roll_dice(rng)
        counts[d1] += 1
        counts[d2] += 1
    assert counts[0] == 0
    expected = 120_000 / 6
    chi2 = ((counts[1:] - expected) ** 2 / expected).sum()
    assert chi2 < 20.5  # p ~ 0.001 for 5 degrees of freedom


def test_set_dice_encodes_doubles_as_four_moves():
    s = B.set_dice(B.new_initial_state(), 4, 4)
    assert s[B.DICE + 3] == 4 and s[B.DICE : B.DICE + 6].sum() == 4
    s = B.set_dice(B.new_initial_state(), 6, 1)
    assert s[B.DICE + 5] == 1 and s[B.DICE] == 1 and s[B.DICE : B.DICE + 6].sum() == 2
    t = roll_into(B.new_initial_state(), new_rng(3))
    assert t[B.DICE : B.DICE + 6].sum() in (2, 4)


def test_full_roll_inverts_set_dice_and_refuses_a_started_turn():
    from boardgym.kernels.backgammon import board as B

    s = B.new_initial_state()
    assert B.full_roll(s) == (0, 0)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            assert B.full_roll(B.set_dice(s, d1, d2)) == (max(d1, d2), min(d1, d2))
    half = B.set_dice(s, 4, 4)
    half[B.DICE + 3] = 2  # two of the four 4s played
    assert B.full_roll(half) == (0, 0)
    one = B.set_dice(s, 6, 2)
    one[B.DICE + 5] = 0  # the 6 played
    assert B.full_roll(one) == (0, 0)
