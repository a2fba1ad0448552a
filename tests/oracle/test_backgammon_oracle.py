"""Differential test: boardgym's backgammon against gnubg-nn (GNU Backgammon's C move generator).

gnubg-nn is GPL-3 and is imported here, in tests, only. Clauses checked on every case: B.1-B.6,
E.1-E.7, O.1-O.2 (the whole set of distinct afterstates). Data:
tests/data/backgammon_oracle_cases.tsv, made by tests/oracle/gen_backgammon_cases.py from seeded
random games driven by gnubg-nn itself; its tags come from a plain rules model
(backgammon_ref.classify) that agreed with gnubg on all 875,700 (position, roll) cases the generator
examined.

Known traps get their own tests: B.5 must-use-both-dice and higher-die cases (found by comparing
single-die legality with the full rule), a 2-2 bear-off that hits and then bears off, entry with a
hit (E.5), and hand-built E.6/E.7 positions that random play never produces.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import backgammon_ref as ref
import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "backgammon_oracle_cases.tsv"


def load_cases() -> list[tuple[str, int, int, set[str]]]:
    """Rows of the data file: (Position ID, die1, die2, tags)."""
    rows = []
    for line in DATA.read_text().splitlines():
        pid, d1, d2, tags = (line.split("\t") + [""])[:4]
        rows.append((pid, int(d1), int(d2), set(filter(None, tags.split(",")))))
    return rows


CASES = load_cases()


def _pid(opp: dict[int, int], me: dict[int, int]) -> str:
    """Position ID from {point: checkers} per side, each from its own view (point 25 = bar)."""
    board = [[0] * 25, [0] * 25]
    for side, pts in ((0, opp), (1, me)):
        for p, n in pts.items():
            board[side][p - 1] = n
    return ref.gnubg.position_id(board)


# Hand-built cases that random play does not produce (clause, Position ID, dice).
HAND_CASES = [
    # E.7: six closed points, one on the bar: nothing moves, whatever the roll.
    ("E.7", _pid({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}, {25: 1, 6: 14}), 6, 1),
    ("E.7", _pid({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}, {25: 1, 6: 14}), 5, 5),
    # E.3: 6-1 with both entry points blocked.
    ("E.3", _pid({1: 2, 6: 2, 13: 11}, {25: 1, 6: 14}), 6, 1),
    # E.6: two on the bar, only one die enters; the other is lost.
    ("E.6", _pid({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}, {25: 2, 6: 13}), 6, 1),
    # E.4: one on the bar enters and the same checker goes on (4-A4-A7), or another checker moves.
    ("E.4", _pid({6: 5, 8: 3, 13: 5, 24: 2}, {25: 1, 6: 4, 8: 3, 13: 5, 24: 2}), 4, 3),
    # E.5: entry with a hit.
    ("E.5", _pid({2: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {25: 1, 6: 4, 8: 3, 13: 5, 24: 2}), 2, 5),
    # 2-2 in the bear-off that hits, then bears off in the same turn.
    ("O.2/B.3", _pid({21: 1, 6: 5, 8: 3, 13: 6}, {8: 1, 6: 4, 2: 4, 1: 6}), 2, 2),
    # O.2: higher die from the highest point; must move inside when a higher point is occupied.
    ("O.2", _pid({19: 15}, {5: 1, 3: 2, 1: 2}), 6, 4),
    ("O.2", _pid({19: 15}, {5: 1, 3: 2, 1: 2}), 4, 2),
    # B.5: 24/18 or 24/19 but not both (13 is blocked): the higher die must be played.
    ("B.5", _pid({12: 2, 13: 13}, {24: 1, 1: 14}), 6, 5),
]


# --- reference side (runs without the kernel) -------------------------------------------------


def test_data_file_is_large_and_varied():
    """>= 2,000 cases, many on the bar and in the bear-off, with every trap represented."""
    assert len(CASES) >= 2000
    tags = Counter(t for *_, ts in CASES for t in ts)
    for tag, least in {
        "bar": 600,
        "bearoff": 400,
        "both": 150,
        "higher": 40,
        "hit2bear": 20,
        "enterhit": 200,
        "pass": 50,
        "doubles": 300,
    }.items():
        assert tags[tag] >= least, (tag, tags)


def test_gnubg_position_id_roundtrip():
    """gnubg decodes and re-encodes every stored ID unchanged, and every board is a legal
    position."""
    for pid, *_ in CASES:
        board = ref.board_of(pid)
        assert ref.valid_board(board) is None, (pid, ref.valid_board(board))
        assert ref.pid_of(board) == pid


def test_rules_model_matches_gnubg_on_hand_cases_and_sample():
    """Harness check: the classification model agrees with gnubg (so the trap tags mean
    something)."""
    for _, pid, d1, d2 in HAND_CASES:
        assert ref.classify(pid, d1, d2)[1] == ref.gnubg_afterstates(pid, d1, d2), (pid, d1, d2)
    for pid, d1, d2, _ in CASES[:300]:
        assert ref.classify(pid, d1, d2)[1] == ref.gnubg_afterstates(pid, d1, d2), (pid, d1, d2)


def test_hand_cases_have_the_intended_shape():
    """Harness check: each hand-built case shows the rule it is named after."""
    tags = {(c, pid, d1, d2): ref.classify(pid, d1, d2)[0] for c, pid, d1, d2 in HAND_CASES}
    by_clause = Counter()
    for (clause, _pid, _d1, _d2), ts in tags.items():
        by_clause[clause] += 1
        if clause in ("E.7", "E.3"):
            assert {"pass", "bar"} <= ts
        if clause == "E.5":
            assert "enterhit" in ts
        if clause == "O.2/B.3":
            assert "hit2bear" in ts
        if clause == "B.5":
            assert "higher" in ts
    assert len(ref.gnubg_afterstates(*HAND_CASES[3][1:])) == 1  # E.6: one entry, nothing else


# --- differential: boardgym against gnubg ------------------------------------------------------


@pytest.fixture(scope="module")
def bg():
    return pytest.importorskip("boardgym.envs.backgammon_notation")


def _check(bg, pid, d1, d2) -> str | None:
    ours = bg.legal_plays(pid, d1, d2)
    theirs = ref.gnubg_afterstates(pid, d1, d2)
    if list(ours) != sorted(set(ours)):
        return f"{pid} {d1}-{d2}: legal_plays not sorted/unique: {ours}"
    if set(ours) != set(theirs):
        return (
            f"{pid} {d1}-{d2}: only ours {sorted(set(ours) - set(theirs))}, "
            f"only gnubg {sorted(set(theirs) - set(ours))} (board {ref.board_of(pid)})"
        )
    return None


def test_legal_plays_match_gnubg(bg):
    """B.1-B.6, E.1-E.7, O.1-O.2: the distinct afterstates equal gnubg's on every stored case."""
    bad = [m for pid, d1, d2, _ in CASES if (m := _check(bg, pid, d1, d2))]
    assert not bad, f"{len(bad)} of {len(CASES)} cases disagree:\n" + "\n".join(bad[:20])


def test_dice_order_does_not_matter(bg):
    """B.1: a roll is a pair of dice, unordered."""
    for pid, d1, d2, _ in CASES[:500]:
        assert bg.legal_plays(pid, d1, d2) == bg.legal_plays(pid, d2, d1), (pid, d1, d2)


@pytest.mark.parametrize(
    "clause,pid,d1,d2", HAND_CASES, ids=[f"{c}-{d1}{d2}" for c, _, d1, d2 in HAND_CASES]
)
def test_hand_case_matches_gnubg(bg, clause, pid, d1, d2):
    """Targeted traps (E.3-E.7, O.2, B.5, 2-2 hit then bear off): exactly gnubg's set."""
    assert _check(bg, pid, d1, d2) is None, _check(bg, pid, d1, d2)


@pytest.mark.parametrize(
    "tag", ["both", "higher", "hit2bear", "enterhit", "bar", "bearoff", "pass"]
)
def test_trap_class_matches_gnubg(bg, tag):
    """B.5 both dice / higher die, 2-2 hit then bear off (O.2/B.3), entry with a hit (E.5), bar,
    bear-off."""
    bad = [m for pid, d1, d2, ts in CASES if tag in ts and (m := _check(bg, pid, d1, d2))]
    assert not bad, "\n".join(bad[:20])


def test_position_id_roundtrip(bg):
    """position_from_id -> position_id gives back every stored ID."""
    bad = [pid for pid, *_ in CASES if bg.position_id(bg.position_from_id(pid)) != pid]
    assert not bad, bad[:20]


def test_our_afterstate_ids_decode_in_gnubg(bg):
    """IDs our kernel produces are canonical for gnubg: it decodes a legal board and re-encodes the
    same ID, and our own decoder round-trips them too."""
    bad = []
    for pid, d1, d2, _ in CASES[:800]:
        for after in bg.legal_plays(pid, d1, d2):
            board = ref.board_of(after)
            if ref.valid_board(board) is not None or ref.pid_of(board) != after:
                bad.append((pid, d1, d2, after, ref.valid_board(board)))
            elif bg.position_id(bg.position_from_id(after)) != after:
                bad.append((pid, d1, d2, after, "our round trip"))
            elif (
                hasattr(bg, "board_from_state")
                and tuple(map(tuple, bg.board_from_state(bg.position_from_id(after)))) != board
            ):
                bad.append((pid, d1, d2, after, "our board differs from gnubg's decoding"))
    assert not bad, bad[:20]


def test_trap_cases_catch_single_die_legality():
    """Harness check: on every "both"/"higher" case, a generator with single-die legality only
    (no B.5 maximisation, the Pgx 2.6 mistake) gives a set different from gnubg's."""
    n = 0
    for pid, d1, d2, ts in CASES:
        if ts & {"both", "higher"}:
            naive = {ref.pid_of(b) for b in ref.naive_plays(ref.board_of(pid), d1, d2)}
            assert naive != set(ref.gnubg_afterstates(pid, d1, d2)), (pid, d1, d2)
            n += 1
    assert n >= 200


@pytest.mark.slow
def test_fresh_random_games_match_gnubg(bg):
    """B.1-B.6, E.1-E.7, O.1-O.2 on 30,000 fresh (position, roll) cases from random gnubg games (new
    seed)."""
    import random

    import gen_backgammon_cases as gen

    rng = random.Random(11)
    bad, n = [], 0
    while n < 30000:
        for pid in gen.random_game(rng):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            n += 1
            if m := _check(bg, pid, d1, d2):
                bad.append(m)
    assert not bad, f"{len(bad)} of {n} cases disagree:\n" + "\n".join(bad[:20])
