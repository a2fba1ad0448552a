"""kernels/rng.py: seed_rngs reads the whole 64-bit seed; streams of seeds below 2**63 unchanged."""
from boardgym.kernels.rng import seed_rngs


def test_streams_of_seeds_below_2_63_are_unchanged():
    # the values of the previous implementation (which read only the low 63 bits)
    assert seed_rngs(5, 3).tolist() == [1961750202426094747, 6038094601263162090, 3207296026000306913]
    assert seed_rngs(2**63 - 2, 2).tolist() == [-2714782802276761441, -619036922427500821]


def test_every_64_bit_seed_has_its_own_stream():
    assert seed_rngs(2**63, 1)[0] != seed_rngs(0, 1)[0]  # the top bit used to be dropped
    assert seed_rngs(2**64 - 1, 1)[0] != seed_rngs(2**63 - 1, 1)[0]
    # stream i of seed S is stream 0 of seed S + i, across 2**63 and around 2**64
    for s in (2**63 - 1, 2**64 - 2):
        a = seed_rngs(s, 3)
        assert [a[i] for i in range(3)] == [seed_rngs((s + i) % 2**64, 1)[0] for i in range(3)]
