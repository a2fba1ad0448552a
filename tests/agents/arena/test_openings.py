"""agents/arena/openings.py: the 150 ballots and the tactics suite are legal and well formed."""

import pytest

from boardgym.agents.arena import openings
from boardgym.envs import draughts as api


def test_ballots_are_150_distinct_legal_openings():
    ballots = openings.read_ballots()
    assert len(ballots) == 150
    assert len({" ".join(m) for _, m in ballots}) == 150
    for _, moves in ballots:
        actions = openings.ballot_actions(moves)
        assert len(actions) >= len(moves)
        s = api.initial_state()
        for mv in moves:
            s = api.apply(s, mv)  # every move legal in turn
    with pytest.raises(ValueError, match="not a legal move"):
        openings.ballot_actions(["c3-d4", "c3-d4"])


def test_tactics_suite_holds_legal_best_moves():
    suite = openings.read_tactics(openings.TACTICS_FILE)
    assert len(suite) >= 5
    for fen, best, proof in suite:
        assert best in api.legal_moves(fen) and proof.startswith("depth ")


def test_deep_tactics_suite_holds_legal_best_moves_of_new_positions():
    """The deeper suite: legal best moves proved at depth 12, none twice, none of the first
    suite's positions."""
    suite = openings.read_tactics(openings.TACTICS_DEEP_FILE)
    first = {fen for fen, _, _ in openings.read_tactics(openings.TACTICS_FILE)}
    assert len(suite) >= 10
    assert len({fen for fen, _, _ in suite}) == len(suite) and not first & {f for f, _, _ in suite}
    for fen, best, proof in suite:
        assert best in api.legal_moves(fen) and proof.startswith("depth 12: ")
