"""Differential test: boardgym's Russian draughts against py-draughts 1.10.1 (independent
implementation).

Clauses checked together on every position: M.1-M.3, 25.1-25.7 (the whole legal set) and the
position after each move. Data: tests/data/draughts_oracle_positions.tsv, made by
tests/oracle/gen_draughts_positions.py from seeded random playouts driven by py-draughts itself
(playouts from the start, random sparse positions with kings, kings against many men).

A legal move is identified by (start, end, captured set) as boardgym/RULES.md says; our printed path
is walked square by square (draughts_ref.path_captures) to recover its captured set, so the check
also proves that the one canonical path we print is a real route.

Exclusions: none. py-draughts agreed with boardgym/RULES.md on every clause checked here
(see boardgym/RULES.md worked examples in test_reference_matches_rules_examples).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import draughts_ref as ref
import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "draughts_oracle_positions.tsv"


def load_positions() -> list[tuple[str, set[str], dict[int, int]]]:
    """Rows of the data file: (numeric FEN, tags, {depth: py-draughts perft})."""
    rows = []
    for line in DATA.read_text().splitlines():
        fen, tags, perft = (line.split("\t") + ["", ""])[:3]
        depths = dict(tuple(int(x) for x in e.split(":")) for e in perft.split())
        rows.append((fen, set(filter(None, tags.split(","))), depths))
    return rows


POSITIONS = load_positions()

RULES_EXAMPLES = {  # boardgym/RULES.md "Worked examples" table
    "W:W15,28:B4,18": ["e5:c3"],  # 25.2 men capture backwards
    "W:W22,28:B4,11,17,18": ["c3:a5", "c3:e5:g7"],  # 25.2 free choice, no majority
    "W:WK29:B5,19,22": ["a1:e5:g3", "a1:e5:h2"],  # 25.3/25.4 forced landing
    "B:W15,17,21,K23,25,26,30:BK32": [
        "g1:d4:a1",
        "g1:d4:f6",
        "g1:d4:g7",
        "g1:d4:h8",
    ],  # 25.2/25.4 Turkish
    "W:W9,21:B4,6,11": ["b6:d8:g5", "b6:d8:h4"],  # 25.5 crowned mid-capture
    "B:W25,26,28:B5,23": ["e3:c1:a3"],  # 25.5 black
    "W:W6:B4": ["c7-b8", "c7-d8"],  # 25.6 quiet promotion
}


def _pdn(move) -> str:
    sep = ":" if move.captured_list else "-"
    return sep.join(ref.SQUARE_NAMES[s] for s in move.square_list)


# --- reference side (runs without the kernel) -------------------------------------------------


def test_data_file_is_large_and_varied():
    """>= 2,000 positions with kings, long chains, several landing squares, 25.5 and the Turkish
    strike."""
    assert len(POSITIONS) >= 2000
    assert len({fen for fen, _, _ in POSITIONS}) == len(POSITIONS)
    tags = Counter(t for _, ts, _ in POSITIONS for t in ts)
    for tag, least in {
        "cap": 1000,
        "kings": 800,
        "long": 300,
        "kingmulti": 300,
        "promo": 200,
        "turkish": 200,
        "nomove": 20,
    }.items():
        assert tags[tag] >= least, (tag, tags)
    assert sum(bool(p) for _, _, p in POSITIONS) >= 200


def test_reference_matches_rules_examples():
    """25.2-25.6: py-draughts gives exactly the boardgym/RULES.md worked-example sets (so it is a
    fair oracle)."""
    for fen, expected in RULES_EXAMPLES.items():
        assert sorted(_pdn(m) for m in ref.board(fen).legal_moves) == sorted(expected), fen


def test_path_walker_agrees_with_reference_paths():
    """Harness check: walking each py-draughts capture path recovers exactly its captured set."""
    for fen, _, _ in POSITIONS[:800]:
        for m in ref.board(fen).legal_moves:
            assert ref.path_captures(fen, _pdn(m)) == frozenset(m.captured_list), (fen, _pdn(m))


def test_path_walker_rejects_bad_routes():
    """Harness check: the walker refuses a route that jumps a piece twice or crosses a jumped
    piece."""
    fen = "B:W15,17,21,K23,25,26,30:BK32"
    assert ref.path_captures(fen, "g1:d4:h8") == {ref.NAME_TO_INDEX["e3"], ref.NAME_TO_INDEX["e5"]}
    with pytest.raises(AssertionError):
        ref.path_captures(fen, "g1:d4:b2")  # b2 is not a landing behind one enemy piece
    with pytest.raises(AssertionError):
        ref.path_captures("W:W22:B18", "c3:e5:c3")  # same piece jumped twice


# --- differential: boardgym against the reference ---------------------------------------------


@pytest.fixture(scope="module")
def dr():
    return pytest.importorskip("boardgym.envs.draughts")


def our_outcomes(dr, fen: str) -> dict[tuple[int, int, frozenset], str]:
    """Our legal moves as {(start, end, captured): numeric FEN after}; asserts sortedness and
    uniqueness."""
    moves = dr.legal_moves(fen)
    assert moves == sorted(moves), f"{fen}: legal_moves not sorted: {moves}"
    assert len(set(moves)) == len(moves), f"{fen}: duplicate strings: {moves}"
    side, before = ref.parse_fen(fen)
    out = {}
    for mv in moves:
        sq = [ref.NAME_TO_INDEX[t] for t in mv.replace("-", ":").split(":")]
        caps = ref.path_captures(fen, mv)
        after_side, after = ref.parse_fen(dr.to_fen(dr.apply(fen, mv)))
        vanished = {i for i, c, _ in before if c != side} - {i for i, c, _ in after if c != side}
        assert vanished == caps, f"{fen} {mv}: path captures {caps}, apply removed {vanished}"
        key = (sq[0], sq[-1], caps)
        assert key not in out, f"{fen}: two strings for one outcome {ref.key_str(key)}: {moves}"
        out[key] = ref.to_numeric_fen(after_side, after)
    return out


def _report(fen, ours, theirs) -> str:
    only_us = sorted(ref.key_str(k) for k in ours.keys() - theirs.keys())
    only_ref = sorted(ref.key_str(k) for k in theirs.keys() - ours.keys())
    diff_after = sorted(
        f"{ref.key_str(k)}: ours {ours[k]} / ref {theirs[k]}"
        for k in ours.keys() & theirs.keys()
        if ours[k] != theirs[k]
    )
    return (
        f"FEN {fen}\n  ours {sorted(map(ref.key_str, ours))}\n"
        f"  ref  {sorted(map(ref.key_str, theirs))}\n"
        f"  only ours {only_us}\n  only ref {only_ref}\n  different after-position {diff_after}"
    )


def test_fen_roundtrip_matches_reference(dr):
    """Notation: from_fen -> to_fen keeps every piece and the side to move."""
    for fen, _, _ in POSITIONS:
        assert ref.parse_fen(dr.to_fen(dr.from_fen(fen))) == ref.parse_fen(fen), fen


def test_algebraic_fen_gives_the_same_moves(dr):
    """Notation: the algebraic spelling of a position has the same legal moves as the numeric
    one."""
    for fen, _, _ in POSITIONS[:500]:
        side, pieces = ref.parse_fen(fen)
        alg = side + "".join(
            ":"
            + c
            + ",".join(
                ("K" if k else "") + ref.SQUARE_NAMES[i] for i, cc, k in sorted(pieces) if cc == c
            )
            for c in "WB"
        )
        assert dr.legal_moves(alg) == dr.legal_moves(fen), (fen, alg)


def test_legal_sets_and_afterstates_match_reference(dr):
    """M.1-M.3, 25.1-25.7: same distinct outcomes and same position after each, on every
    position."""
    bad = []
    for fen, _, _ in POSITIONS:
        ours, theirs = our_outcomes(dr, fen), ref.ref_outcomes(fen)
        if ours != theirs:
            bad.append(_report(fen, ours, theirs))
    assert not bad, f"{len(bad)} of {len(POSITIONS)} positions disagree:\n" + "\n".join(bad[:20])


def test_perft_matches_reference(dr):
    """Perft depth 3 (and 4 on a subset) from the stored py-draughts counts."""
    bad = []
    for fen, _, depths in POSITIONS:
        for d, n in depths.items():
            got = dr.perft(fen, d)
            if got != n:
                bad.append(f"{fen} depth {d}: ours {got}, py-draughts {n}")
    assert not bad, "\n".join(bad)


@pytest.mark.slow
def test_stored_perft_is_reference_truth():
    """Data check: the stored counts are what py-draughts computes now (slow)."""
    for fen, _, depths in POSITIONS:
        for d, n in depths.items():
            assert ref.ref_perft(ref.board(fen), d) == n, (fen, d)


# --- harness self-test: the comparison must pass on the reference and fail on a broken one -----


class _RefAsBoardgym:
    """py-draughts dressed in boardgym's draughts API; with brazilian=True, men do not crown
    mid-capture."""

    def __init__(self, brazilian: bool = False):
        self.brazilian = brazilian

    def _board(self, fen_or_state):
        if not isinstance(fen_or_state, str):
            return fen_or_state
        b = ref.board(fen_or_state)
        if self.brazilian:
            from draughts.boards._core import CORE_BRAZILIAN

            b._legal_moves_from_core(CORE_BRAZILIAN, max_capture=False)  # API check
            b.__class__ = type(
                "Mutant",
                (type(b),),
                {
                    "legal_moves": property(
                        lambda s: s._legal_moves_from_core(CORE_BRAZILIAN, max_capture=False)
                    )
                },
            )
        return b

    def legal_moves(self, fen):
        return sorted(_pdn(m) for m in self._board(fen).legal_moves)

    def apply(self, fen, mv):
        b = self._board(fen)
        (m,) = [m for m in b.legal_moves if _pdn(m) == mv]
        b.push(m)
        return b

    def to_fen(self, b):
        return ref.ref_fen(b)

    def from_fen(self, fen):
        return self._board(fen)

    def perft(self, fen, depth):
        return ref.ref_perft(self._board(fen), depth)


def test_harness_passes_on_reference_and_catches_a_broken_rule():
    """The harness finds no fault in py-draughts itself, and flags a generator without 25.5."""
    sample = [p for p in POSITIONS if "promo" in p[1]][:40] + POSITIONS[:60]
    good, broken = _RefAsBoardgym(), _RefAsBoardgym(brazilian=True)
    for fen, _, _ in sample:
        assert our_outcomes(good, fen) == ref.ref_outcomes(fen), fen
    n_bad = 0
    for fen, _tags, _ in sample:
        try:
            n_bad += our_outcomes(broken, fen) != ref.ref_outcomes(fen)
        except AssertionError:
            n_bad += 1
    assert n_bad >= 20


@pytest.mark.slow
def test_fresh_random_sweep_matches_reference(dr):
    """M.1-M.3, 25.1-25.7 on fresh positions (another seed than the stored set): 20,000 positions
    from py-draughts playouts from the start, from random sparse positions and kings against men."""
    import random

    import gen_draughts_positions as gen

    rng = random.Random(7)
    start, seen, bad = ref.ref_fen(ref.Board()), set(), []
    while len(seen) < 20000:
        k = len(seen) % 3
        fen0 = (
            start if k == 0 else gen.random_sparse_fen(rng) if k == 1 else gen.kings_vs_men_fen(rng)
        )
        for fen in gen.playout(rng, fen0, 200 if k == 0 else 12):
            if fen in seen:
                continue
            seen.add(fen)
            ours, theirs = our_outcomes(dr, fen), ref.ref_outcomes(fen)
            if ours != theirs:
                bad.append(_report(fen, ours, theirs))
    assert not bad, f"{len(bad)} of {len(seen)} positions disagree:\n" + "\n".join(bad[:20])
