"""boardgym evaluate --match N: backgammon matches to N points between two agents."""

import numpy as np
import pytest

from boardgym.agents.arena import matches
from boardgym.agents.backgammon.agents import GreedyAgent
from boardgym.agents.random_agent import RandomAgent
from boardgym.scripts import evaluate
from boardgym.scripts.cli import UsageError


def test_point_matches_pair_the_seats_on_the_same_dice():
    a, b = GreedyAgent(seed=1), GreedyAgent(seed=1)
    r = matches.play_point_matches(a, b, 3, 6, seed=4)
    assert r.shape == (6,) and set(np.unique(r)) <= {-1.0, 1.0}
    # identical deterministic agents on the same dice: each pair is one win and one loss
    assert (r.reshape(-1, 2).sum(axis=1) == 0).all()
    again = matches.play_point_matches(GreedyAgent(seed=1), GreedyAgent(seed=1), 3, 6, seed=4)
    assert (again == r).all()


def test_point_matches_need_afterstate_agents():
    with pytest.raises(TypeError, match="AfterstateAgents"):
        matches.play_point_matches(GreedyAgent(seed=1), RandomAgent(seed=0), 3, 2)


def test_evaluate_match_prints_match_wins(capsys):
    out = evaluate.main(
        ["backgammon-greedy", "backgammon-greedy:seed=5", "--match", "3", "--games", "4", "--quiet"]
    )
    s = out["pairs"][(0, 1)]
    assert s["games"] == 4 and s["wins"] + s["losses"] == 4
    assert "matches to 3: won" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["draughts-greedy", "draughts-random", "--match", "3"],
        ["backgammon-greedy", "backgammon-random", "--match", "65"],
        ["backgammon-greedy", "backgammon-random", "--match", "3", "--cube"],
        ["backgammon-greedy", "backgammon-random", "--match", "3", "--luck", "td"],
        ["backgammon-greedy", "backgammon-random", "--match", "3"],
    ],
)
def test_evaluate_match_flags(args):
    with pytest.raises(UsageError):
        evaluate.main(args)
