"""kernels/rng.py: seed_rngs reads the whole 64-bit seed; streams of seeds below 2**63 unchanged;
pick_marked draws what random_masked_action draws."""

import numpy as np
import pytest

from boardgym.kernels.rng import seed_rngs


def test_streams_of_seeds_below_2_63_are_unchanged():
    # the values of the previous implementation (which read only the low 63 bits)
    assert seed_rngs(5, 3).tolist() == [
        1961750202426094747,
        6038094601263162090,
        3207296026000306913,
    ]
    assert seed_rngs(2**63 - 2, 2).tolist() == [-2714782802276761441, -619036922427500821]


def test_every_64_bit_seed_has_its_own_stream():
    assert seed_rngs(2**63, 1)[0] != seed_rngs(0, 1)[0]  # the top bit used to be dropped
    assert seed_rngs(2**64 - 1, 1)[0] != seed_rngs(2**63 - 1, 1)[0]
    # stream i of seed S is stream 0 of seed S + i, across 2**63 and around 2**64
    for s in (2**63 - 1, 2**64 - 2):
        a = seed_rngs(s, 3)
        assert [a[i] for i in range(3)] == [seed_rngs((s + i) % 2**64, 1)[0] for i in range(3)]


@pytest.mark.parametrize("length", [1, 7, 8, 150, 1024])
def test_pick_marked_draws_what_random_masked_action_draws(length):
    from boardgym.kernels.rng import pick_marked, random_masked_action

    gen = np.random.default_rng(length)
    for trial in range(300):
        mask = (gen.random(length) < gen.choice([0.01, 0.1, 0.5, 1.0])).astype(np.int8)
        n = int(mask.sum())
        if n == 0:
            continue
        a, b = seed_rngs(trial, 1), seed_rngs(trial, 1)
        assert pick_marked(mask, n, a, 0) == random_masked_action(mask, b, 0)
        assert a[0] == b[0]  # the same draws
