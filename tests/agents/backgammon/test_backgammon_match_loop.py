"""play_afterstate_match: matches to N points through the game core (MP.1-MP.8)."""

import numpy as np
import pytest

from boardgym.agents.backgammon.agents import GreedyAgent
from boardgym.agents.backgammon.game_loop import play_afterstate_match
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_VALUE


class Spy(GreedyAgent):
    """A greedy agent that doubles whenever it may, always takes, and records what it is told."""

    def __init__(self, seed, up_to=64):
        super().__init__(seed=seed)
        self.up_to = up_to
        self.told = []
        self.cube_calls = []

    def set_match(self, length, score_me, score_opp, crawford, post_crawford):
        self.told.append((length, score_me, score_opp, crawford, post_crawford))

    def cube_action(self, state, offered, policy=None):
        self.cube_calls.append(
            (len(self.told), bool(offered), int(state[CUBE_VALUE]), int(state[CUBE_LIMIT]))
        )
        if offered:
            return game.ACTION_TAKE
        return game.ACTION_DOUBLE if state[CUBE_VALUE] < self.up_to else game.ACTION_ROLL


def test_a_match_is_reproducible_and_scored_by_the_rules():
    a, b = Spy(1), Spy(2)
    r = play_afterstate_match(a, b, 11, 7)
    again = play_afterstate_match(Spy(1), Spy(2), 11, 7)
    assert r.score == again.score and [g.points for g in r.games] == [g.points for g in again.games]
    assert r.winner in (0, 1) and r.score[r.winner] == 7 and r.score[1 - r.winner] < 7
    # MP.2: each game's points (capped at what the winner needed) make the next start score
    score = [0, 0]
    for start, g in zip(r.starts, r.games):
        assert tuple(score) == start
        need = 7 - score[g.winner]
        score[g.winner] += min(abs(g.points), need)
    assert tuple(score) == r.score
    assert len(r.starts) == len(r.games) == len(r.crawford)


def test_agents_are_told_the_score_from_their_own_seat_and_money_play_after():
    a, b = Spy(3), Spy(4)
    r = play_afterstate_match(a, b, 5, 5)
    n = len(r.games)
    assert len(a.told) == len(b.told) == n + 1  # each game, then money play again
    for k, start in enumerate(r.starts):
        assert a.told[k][:3] == (5, start[0], start[1])
        assert b.told[k][:3] == (5, start[1], start[0])
        assert a.told[k][3] == r.crawford[k]
    assert a.told[-1] == (0, 0, 0, False, False)


def test_no_cube_in_the_crawford_game_then_cube_again_post_crawford():
    crawford_seen = post_cube = 0
    for seed in range(20):
        a, b = Spy(seed, up_to=2), Spy(seed + 100, up_to=2)
        r = play_afterstate_match(a, b, seed, 5)
        assert sum(r.crawford) <= 1
        calls = [c for spy in (a, b) for c in spy.cube_calls]
        for game_no, _offered, _value, limit in calls:
            assert not r.crawford[game_no - 1], "a cube decision in the Crawford game"
            assert limit == 64
        if any(r.crawford):
            crawford_seen += 1
            k = r.crawford.index(True)
            assert 4 in r.starts[k] and (4 not in r.starts[k - 1] if k else True)
            post_cube += any(g - 1 > k for g, *_ in calls)
    assert crawford_seen > 3 and post_cube > 0


def test_the_cube_never_passes_64_in_a_match():
    a, b = Spy(1), Spy(2)
    play_afterstate_match(a, b, 4, 64)
    values = [v for spy in (a, b) for _, offered, v, _ in spy.cube_calls if not offered]
    assert max(values) == 32  # a double at 32 makes 64; at 64 no one is asked


def test_a_crawford_start_and_a_given_score():
    r = play_afterstate_match(Spy(5), Spy(6), 3, 7, score=(6, 2), crawford=True)
    assert r.starts[0] == (6, 2) and r.crawford[0]
    assert all(not c for c in r.crawford[1:])


def test_bad_match_settings_raise_clear_errors():
    a, b = GreedyAgent(seed=0), GreedyAgent(seed=1)
    for kw, err in [
        (dict(length=0), "1..64"),
        (dict(length=65), "0..64"),
        (dict(length=5, score=(5, 0)), "must be 0..4"),
        (dict(length=5, score=(1, 1), crawford=True), "Crawford"),
    ]:
        with pytest.raises(ValueError, match=err):
            play_afterstate_match(a, b, 0, **kw)
    with pytest.raises(TypeError):
        play_afterstate_match(a, b, 0, "7")
    with pytest.raises(TypeError):
        play_afterstate_match(a, object(), 0, 7)


def test_callables_play_cubeless_in_a_match():
    def first(state, rows):
        return 0

    r = play_afterstate_match(first, first, np.array([9], np.int64), 3)
    assert r.winner in (0, 1) and max(r.score) == 3
