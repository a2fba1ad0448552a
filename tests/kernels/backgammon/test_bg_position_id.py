"""gnubg Position IDs in kernels (kernels/backgammon/position_id.py) against a plain-Python
reference: the key and its base64 characters, decoding (accepting exactly what the Python
decoder accepts), the string order of sorted IDs, and the sorted IDs of every roll's plays from
random positions (the same IDs in the same order as the reference built on game.plays_of_roll).
"""

import base64
import random

import numpy as np
import pytest
from bg_random_games import random_cases

from boardgym.envs import backgammon_ids as bg
from boardgym.kernels.backgammon import board as B
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon import position_id as P

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def ref_id(s):
    """Position ID of state s from its counts: runs of 1s per checker then a 0, opponent first."""
    counts = [int(s[B.OPP + 23 - i]) for i in range(24)] + [int(s[B.BAR_OPP])]
    counts += [int(s[B.ME + i]) for i in range(24)] + [int(s[B.BAR_ME])]
    key, pos = 0, 0
    for c in counts:
        key |= ((1 << c) - 1) << pos
        pos += c + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def ref_legal_plays(s, d1, d2):
    """Sorted reference IDs of game.plays_of_roll's afterstates (what legal_plays returned before
    it moved into a kernel)."""
    out = np.empty((game.MAX_AFTERSTATES, B.STATE_LEN), dtype=np.int64)
    n = game.plays_of_roll(s, d1, d2, out, None)
    return sorted(ref_id(out[k]) for k in range(n))


def kernel_plays(pid, d1, d2):
    buf = np.empty(P.BUF_WORDS, dtype=np.int64)
    out = np.empty(P.CHARS_LEN, dtype=np.uint8)
    n = P.legal_play_ids(pid.encode(), d1, d2, buf, out)
    return n, out[: (P.ID_LEN + 1) * max(n, 0)].tobytes().decode().split()


def test_key_and_characters_match_the_reference():
    chars = np.empty(P.ID_LEN, dtype=np.uint8)
    key = np.empty(P.KEY_BYTES, dtype=np.uint8)
    for s, _, _ in random_cases(500, seed=21):
        want = ref_id(s)
        P.encode_id(s, chars, 0)
        assert chars.tobytes().decode() == want
        assert P.position_key(s, key) <= 80
        assert base64.b64encode(key.tobytes()).decode()[:14] == want


def test_encode_ids_spaces_the_ids_of_a_batch():
    states = np.stack([s for s, _, _ in random_cases(50, seed=22)])
    out = np.empty(15 * len(states), dtype=np.uint8)
    P.encode_ids(states, len(states), out)
    assert out.tobytes().decode().split() == [ref_id(s) for s in states]


def test_decode_round_trips_random_positions():
    t = np.empty(B.STATE_LEN, dtype=np.int64)
    for s, _, _ in random_cases(500, seed=23):
        assert P.decode_id(ref_id(s).encode(), t) == B.ERR_NONE
        assert (t[: B.BOARD_LEN] == s[: B.BOARD_LEN]).all()
        assert (t[B.BB_ME :] == s[B.BB_ME :]).all()
        assert t[B.TURN] == 0 and t[B.CUBE_VALUE] == 1 and t[B.CUBE_OWNER] == -1
        assert not t[B.DICE : B.DICE + 6].any()


def _mutations(rng, pids, n):
    """n strings near valid IDs: one or two characters changed, or random base64 text."""
    for _ in range(n):
        kind = rng.random()
        if kind < 0.15:
            yield "".join(rng.choice(_B64) for _ in range(14))
            continue
        t = list(rng.choice(pids))
        for _ in range(1 if kind < 0.7 else 2):
            t[rng.randrange(14)] = rng.choice(_B64)
        yield "".join(t)


def test_decode_accepts_exactly_what_the_python_decoder_accepts():
    rng = random.Random(24)
    pids = [ref_id(s) for s, _, _ in random_cases(200, seed=24)]
    t = np.empty(B.STATE_LEN, dtype=np.int64)
    accepted = rejected = 0
    for text in _mutations(rng, pids, 6000):
        try:
            want = bg._parse_position_id(text)
        except ValueError:
            want = None
        code = P.decode_id(text.encode(), t)
        if want is None:
            assert code != B.ERR_NONE, text
            rejected += 1
        else:
            assert code == B.ERR_NONE, text
            assert (t == want).all(), text
            accepted += 1
    assert accepted > 500 and rejected > 500  # both sides of the boundary were exercised


@pytest.mark.parametrize(
    "text, code",
    [
        ("4HPwATDgc/AB-A", P.ID_BAD_CHAR),
        ("4HPwATDgc/ABMB", P.ID_BAD_CHAR),
        ("4HPwATDgc/ABM", P.ID_BAD_CHAR),
        ("//////////////"[:13] + "w", P.ID_TOO_MANY),
    ],
)
def test_decode_error_codes(text, code):
    assert P.decode_id(text.encode(), np.empty(B.STATE_LEN, dtype=np.int64)) == code


def test_sorted_order_is_python_string_order_including_ties_in_the_top_bits():
    rng = random.Random(25)
    m = 300
    w0s = np.empty(m, np.int64)
    w1s = np.empty(m, np.int64)
    base0, base1 = rng.getrandbits(40), rng.getrandbits(40)
    for k in range(m):
        if k % 3 == 0:  # fully random keys
            w0s[k], w1s[k] = rng.getrandbits(40), rng.getrandbits(40)
        else:  # the same first 60 key bits (10 characters): only the tail differs
            w0s[k], w1s[k] = base0, (base1 & ~((1 << 20) - 1)) | rng.getrandbits(20)
    for n in (1, 2, 17, 64, 65, m):
        chars = np.empty(15 * n, np.uint8)
        his = np.empty(n, np.int64)
        los = np.empty(n, np.int64)
        for k in range(n):
            P._encode_words(w0s[k], w1s[k], chars, 15 * k)
            chars[15 * k + 14] = P.SEP
            his[k], los[k] = P._sort_keys(w0s[k], w1s[k])
        ids = chars.tobytes().decode().split()
        order = np.empty(n, np.int64)
        P.sorted_order(his, los, n, np.empty(n, np.int64), order)
        assert [ids[i] for i in order] == sorted(ids), n


def test_legal_play_ids_equal_the_reference_for_every_roll_of_random_positions():
    big = 0
    for s, _, _ in random_cases(400, seed=26):
        pid = ref_id(s)
        for d1, d2 in ROLLS:
            n, ids = kernel_plays(pid, d1, d2)
            assert ids == ref_legal_plays(s, d1, d2), (pid, d1, d2)
            assert kernel_plays(pid, d2, d1)[1] == ids
            big += n > 64
    assert big > 0  # the sort path for long lists ran too


def test_legal_play_ids_reports_an_id_that_does_not_decode():
    assert kernel_plays("4HPwATDgc/AB-A", 3, 1)[0] == -P.ID_BAD_CHAR
    assert kernel_plays("//////////////"[:13] + "w", 3, 1)[0] == -P.ID_TOO_MANY
