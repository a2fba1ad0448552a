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
