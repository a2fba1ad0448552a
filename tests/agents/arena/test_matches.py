"""agents/arena/matches.py: the match harness's conventions (fixed seeds, pairs with the seats
swapped from one start, shared dice), the batched evaluation against in-kernel players and the
trainers' report lines."""

import numpy as np
import pytest

from boardgym.agents.arena import matches as E
from boardgym.agents.random_agent import RandomAgent


class FirstLegal:
    """A deterministic player: the lowest legal action (the same game from the same start)."""

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_pairs_replay_one_start_with_the_seats_swapped(game):
    # identical deterministic players: the two games of a pair are the same game, so the first
    # player's points cancel within each pair (same opening / same dice, seats swapped)
    pts = E.play_match(FirstLegal(), FirstLegal(), game, n_games=6, seed=4, max_moves=200)
    assert pts.shape == (6,)
    np.testing.assert_array_equal(pts[0::2], -pts[1::2])
    lo, hi = E.GAMES[game].points_range
    assert ((lo <= pts) & (pts <= hi)).all()


def test_draughts_pairs_start_from_varied_openings(monkeypatch):
    calls = []
    real = E.random_opening

    def spy(env, seed, n_moves):
        calls.append((seed, n_moves))
        return real(env, seed, n_moves)

    monkeypatch.setattr(E, "random_opening", spy)
    E.play_match(
        FirstLegal(), FirstLegal(), "draughts", n_games=10, seed=1, opening=(2, 4), max_moves=30
    )
    assert len(calls) == 5 and len({s for s, _ in calls}) == 5  # one opening per pair
    assert all(2 <= n <= 4 for _, n in calls)
    openings = {tuple(real(E.make_env("draughts"), s, n)) for s, n in calls}
    assert len(openings) == 5
    calls.clear()
    E.play_match(
        FirstLegal(), FirstLegal(), "draughts", n_games=2, seed=1, opening=(0, 0), max_moves=10
    )
    assert calls == []


def test_fixed_seed_replays_the_match():
    def run(seed):
        return E.play_match(
            RandomAgent(1), RandomAgent(2), "draughts", n_games=4, seed=seed, max_moves=60
        )

    np.testing.assert_array_equal(run(7), run(7))
    assert E.pair_count(5) == 3 and E.pair_count(6) == 3
    for bad in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            E.pair_count(bad)
    with pytest.raises(ValueError, match="unknown game"):
        E.play_match(FirstLegal(), FirstLegal(), "chess")
    with pytest.raises(ValueError, match="opening"):
        E.play_match(FirstLegal(), FirstLegal(), "draughts", opening=(3, 1))


def test_summarize_uses_the_game_range():
    s = E.summarize([1, 1], "draughts")
    assert s["ppg_interval"][1] == 1.0 and s["ppg_interval"][0] < 0.0
    s = E.summarize([3, -2, 1], "backgammon")
    assert -3.0 <= s["ppg_interval"][0] < s["ppg_interval"][1] <= 3.0
    with pytest.raises(ValueError, match="lie in"):
        E.summarize([2], "draughts")


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_batched_games_against_an_in_kernel_player(game):
    calls = []

    def policy(obs, masks):
        calls.append(len(masks))
        assert masks.any(axis=1).all()  # only games in progress are asked
        return masks.argmax(axis=1)

    pts = E.play_vs_kernel_opponent(policy, game, "random", n_games=8, seed=3)
    assert pts.shape == (8,) and set(np.unique(pts)) <= {-1.0, 0.0, 1.0}
    assert calls[0] == 8 and calls[-1] < 8  # finished games drop out
    again = E.play_vs_kernel_opponent(lambda o, m: m.argmax(axis=1), game, "random", 8, seed=3)
    np.testing.assert_array_equal(pts, again)


def test_paired_reset_shares_streams_and_swaps_seats():
    from boardgym.envs.batch import BackgammonBatch

    core = BackgammonBatch(6, opponent="random")
    core.reset(seed=5, paired=True)
    np.testing.assert_array_equal(core.seats, [0, 1, 0, 1, 0, 1])
    plain = BackgammonBatch(6, opponent="random")
    plain.reset(seed=5)
    assert len(set(plain.rngs.tolist())) == 6


def test_baseline_report_lines():
    def play(name, n_pairs, seed):
        return np.array([1.0, -1.0] * n_pairs) if name == "random" else np.zeros(2 * n_pairs)

    rep = E.baseline_report(play, 5, 0, -1.0, 1.0)
    assert set(rep) == {"random", "greedy"}
    assert rep["random"]["games"] == 6 and rep["random"]["ppg"] == 0.0
    assert set(rep["greedy"]) == {"ppg", "ci95", "win_rate", "games"}
    lo, hi = rep["greedy"]["ci95"]
    assert -1.0 < lo < 0.0 < hi < 1.0
    with pytest.raises(ValueError, match="returned shape"):
        E.baseline_report(lambda name, n, s: np.zeros(3), 4, 0, -1.0, 1.0)


@pytest.mark.parametrize(
    "names, max_moves",
    [(("backgammon-greedy", "backgammon-td"), 400), (("backgammon-td", "backgammon-greedy"), 12)],
)
def test_afterstate_agents_play_the_same_games_through_the_afterstate_loop(
    names, max_moves, monkeypatch
):
    """Two AfterstateAgents go through the game core's afterstate loop; from the same seeds it
    plays exactly the games of the AEC env (truncation included)."""
    from boardgym.agents import load

    calls = []
    real = E.play_afterstate_game

    def spy(seats, seed, max_turns=None):
        calls.append(seed)
        return real(seats, seed, max_turns)

    monkeypatch.setattr(E, "play_afterstate_game", spy)
    a, b = (
        load(n, plies=1) if n == "backgammon-td" else load(n) for n in names
    )  # the loop, not the search
    fast = E.play_match(a, b, "backgammon", n_games=6, seed=2, max_moves=max_moves)
    assert len(calls) == 6
    calls.clear()
    slow = E.play_match(
        a, b, "backgammon", n_games=6, seed=2, max_moves=max_moves, observation_only=True
    )  # act(observation, mask) in the AEC env
    assert calls == []
    np.testing.assert_array_equal(fast, slow)
    if max_moves == 12:
        assert (fast == 0).all()  # every game capped: draws
