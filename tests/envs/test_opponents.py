"""The opponents the envs play by name: the same names for gymnasium.make and make_vec, played
by the kernels' players."""

import gymnasium
import numpy as np
import pytest

import boardgym  # noqa: F401  (registers the envs)
from boardgym.envs import opponents
from boardgym.kernels.backgammon import game as bg_game
from boardgym.kernels.backgammon.board import DICE
from boardgym.kernels.backgammon.opponents import greedy_turn
from boardgym.kernels.draughts import game as dr_game
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN, S_CAP_SQ, S_SIDE
from boardgym.kernels.draughts.opponents import recapture_value

IDS = {"draughts": "boardgym/RussianDraughts-v0", "backgammon": "boardgym/Backgammon-v0"}


@pytest.mark.parametrize("game", ["draughts", "backgammon"])
def test_make_and_make_vec_take_the_same_opponent_names(game):
    for name in opponents.NAMES[game]:
        env = gymnasium.make(IDS[game], opponent=name)
        env.reset(seed=0)
        vec = gymnasium.make_vec(
            IDS[game], num_envs=2, vectorization_mode="vector_entry_point", opponent=name
        )
        vec.reset(seed=0)
        env.close(), vec.close()
    for bad in ("nonsense", "recapture" if game == "backgammon" else "draughts-greedy"):
        with pytest.raises(ValueError, match=repr(opponents.NAMES[game][1])):
            gymnasium.make(IDS[game], opponent=bad)
        with pytest.raises(ValueError, match=repr(opponents.NAMES[game][1])):
            gymnasium.make_vec(
                IDS[game], num_envs=2, vectorization_mode="vector_entry_point", opponent=bad
            )


def test_draughts_greedy_is_refused_alike_saying_where_it_is():
    for make in (
        lambda: gymnasium.make(IDS["draughts"], opponent="greedy"),
        lambda: gymnasium.make_vec(
            IDS["draughts"], num_envs=2, vectorization_mode="vector_entry_point", opponent="greedy"
        ),
    ):
        with pytest.raises(ValueError, match=r"load\('draughts-greedy'\)"):
            make()


def _random_states(game, n, seed):
    """Positions (mover's turn) along random games."""
    from boardgym.envs import backgammon_v0, russian_draughts_v0

    env = (russian_draughts_v0 if game == "draughts" else backgammon_v0).raw_env()
    rng, out = np.random.default_rng(seed), []
    while len(out) < n:
        env.reset(seed=int(rng.integers(2**31)))
        while not env.is_over and len(out) < n:
            out.append(env.state.copy())
            env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    return out


def test_recapture_opponent_plays_a_best_recapture_move_whole():
    player = opponents.KernelPlayer("draughts", "recapture", seed=1)
    rows = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    replies = np.empty((MAX_MOVES, ROW_LEN), np.int64)
    checked = 0
    for s in _random_states("draughts", 300, 0):
        if s[S_CAP_SQ] >= 0:
            continue
        side, n = s[S_SIDE], dr_game.gen_moves(s, rows)
        best = max(recapture_value(dr_game.play_move(s, rows[k]), side, replies) for k in range(n))
        t = s
        while True:  # the player's hops until the move is over
            t = dr_game.step(t, np.int64(player.act_state(t)))
            if t[S_CAP_SQ] < 0:
                break
        assert recapture_value(t, side, replies) == best
        checked += 1
    assert checked > 100


def test_greedy_backgammon_opponent_plays_the_kernels_greedy_play():
    player = opponents.KernelPlayer("backgammon", "greedy", seed=1)
    checked = 0
    for s in _random_states("backgammon", 400, 1):
        if bg_game.dice_left(s) == 0 or not bg_game.can_move(s) or bg_game.dice_of(s)[0] == 0:
            continue
        want, t = greedy_turn(s), s.copy()
        while bg_game.dice_left(t) > 0 and bg_game.can_move(t):
            bg_game.move_checker(t, player.act_state(t))
        t[DICE : DICE + 6] = 0
        assert np.array_equal(t, want)
        checked += 1
    assert checked > 50
