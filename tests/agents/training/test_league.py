"""The PPO league: PFSP sampling follows the win rates, snapshots enter and leave, the members
play legal actions, the state round-trips; LegalActionPolicy is MaskableActorCriticPolicy's
distribution; batched-opponent matches are paired and reproducible (the batched players
themselves: tests/agents/draughts/test_draughts_batch_players.py and
tests/agents/backgammon/test_backgammon_batch_players.py)."""

import numpy as np
import pytest

from boardgym.agents.training.league import (
    FIXED,
    League,
    pfsp_weights,
)
from boardgym.envs.batch import DraughtsBatch


def _positions(n, seed, plies=(4, 40)):
    """obs float32 (n, OBS_LEN) of n draughts games after random plies (mover's view)."""
    core = DraughtsBatch(n, opponent=None, max_moves=300)
    core.reset(seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(*plies))):
        core.step(core.random_actions())
        core.reset_done()
    return core.obs.copy(), core.masks.copy()


def test_pfsp_weights_follow_the_win_rates():
    w = pfsp_weights([0.0, 0.5, 0.9, 1.0], floor=0.02)
    raw = np.array([1.0, 0.25, 0.01, 0.0]) + 0.02
    assert np.allclose(w, raw / raw.sum()) and np.all(np.diff(w) < 0)
    var = pfsp_weights([0.0, 0.5, 1.0], floor=0.02, kind="var")
    assert np.allclose(var, np.array([0.02, 0.27, 0.02]) / 0.31)
    with pytest.raises(ValueError, match="PFSP weighting"):
        pfsp_weights([0.5], kind="easy")
    with pytest.raises(ValueError, match="pfsp must be"):
        League("draughts", 4, pfsp="easy")
    assert np.allclose(League("draughts", 4, pfsp="var").weights(), 1 / 3)
    league = League("draughts", 64, seed=3, decay=0.99, prior_games=4)
    assert league.names == list(FIXED["draughts"])
    assert np.allclose(league.scores(), 0.5) and np.allclose(league.weights(), 1 / 3)
    slot_of = {name: np.flatnonzero(league.slot == i) for i, name in enumerate(league.names)}
    # the learner beats random every time, draws recapture, loses to greedy
    for _ in range(30):
        for i, (_name, reward) in enumerate(
            (("random", 1.0), ("recapture", 0.0), ("greedy", -1.0))
        ):
            league.slot[:3] = [0, 1, 2]
            league.record([i], [reward])
    s = league.scores()
    n = 30
    wsum = sum(0.99**k for k in range(n))
    assert s[0] == pytest.approx((wsum + 2) / (wsum + 4))  # prior of 4 games at 1/2
    assert s[1] == pytest.approx(0.5) and s[2] == pytest.approx(2 / (wsum + 4))
    assert np.allclose(league.weights(), pfsp_weights(s, league.floor))
    # slots draw members in proportion to the weights
    draws = np.zeros(3)
    for _ in range(200):
        league.assign(np.arange(64))
        draws += np.bincount(league.slot, minlength=3)
    freq = draws / draws.sum()
    assert np.allclose(freq, league.weights(), atol=0.01) and freq[2] > freq[1] > freq[0]
    assert set(slot_of) == {"random", "recapture", "greedy"}
    table = league.table()
    assert table["greedy"]["games"] == 30 and table["greedy"]["weight"] == pytest.approx(
        league.weights()[2]
    )
    with pytest.raises(ValueError, match="fixed members"):
        League("backgammon", 4, fixed=("recapture",))
    with pytest.raises(ValueError, match="game must be"):
        League("chess", 4)


def test_league_members_play_legal_actions_and_state_round_trips():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from gymnasium import spaces

    from boardgym.agents.ppo import LegalActionPolicy
    from boardgym.kernels.draughts.game import N_ACTIONS, OBS_LEN

    policy = LegalActionPolicy(
        spaces.Box(0.0, 1.0, (OBS_LEN,), np.float32),
        spaces.Discrete(N_ACTIONS),
        lambda _: 3e-4,
        net_arch=[16],
    )
    league = League("draughts", 40, seed=2, pool_size=2)
    for steps in (100, 200, 300):
        league.add_snapshot(policy, f"snap{steps}")
    assert league.names == ["random", "recapture", "greedy", "snap200", "snap300"]
    assert league.slot.max() < len(league.names) and league.weight.size == 5
    obs, masks = _positions(40, seed=9)
    league.slot[:] = np.arange(40) % 5
    state = league.get_state()
    torch.manual_seed(0)
    actions = league.actions(obs, masks, np.arange(40))
    assert masks[np.arange(40), actions].all()
    other = League("draughts", 40, seed=99, pool_size=2)
    other.set_state(state, policy)
    torch.manual_seed(0)
    assert np.array_equal(other.actions(obs, masks, np.arange(40)), actions)
    assert other.names == league.names and np.array_equal(other.slot, state["slot"])
    with pytest.raises(ValueError, match="slots"):
        League("draughts", 8).set_state(state, policy)


def test_legal_action_policy_is_the_masked_policy():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from boardgym.agents.ppo import LegalActionPolicy
    from boardgym.kernels.draughts.game import N_ACTIONS, OBS_LEN

    args = (
        spaces.Box(0.0, 1.0, (OBS_LEN,), np.float32),
        spaces.Discrete(N_ACTIONS),
        lambda _: 3e-4,
    )
    base = MaskableActorCriticPolicy(*args, net_arch=[32, 32])
    legal = LegalActionPolicy(*args, net_arch=[32, 32])
    legal.load_state_dict(base.state_dict())  # the same parameters
    obs, masks = _positions(64, seed=3)
    obs_t, masks_t = torch.as_tensor(obs), torch.as_tensor(masks.astype(np.float32))
    actions = torch.as_tensor(masks.argmax(1))
    v1, l1, e1 = base.evaluate_actions(obs_t, actions, masks_t)
    v2, l2, e2 = legal.evaluate_actions(obs_t, actions, masks_t)
    assert (
        torch.allclose(v1, v2)
        and torch.allclose(l1, l2, atol=1e-5)
        and torch.allclose(e1, e2, atol=1e-5)
    )
    d1 = base.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]
    d2 = legal.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]
    assert np.array_equal(d1, d2)
    torch.manual_seed(1)
    sampled, _, logp = legal(obs_t, action_masks=masks)
    assert masks[np.arange(64), sampled.numpy()].all() and torch.all(logp <= 0)


@pytest.mark.parametrize("game_name", ["draughts", "backgammon"])
def test_batched_opponent_matches_are_paired_and_reproducible(game_name):
    """evaluation.play_vs_batched_opponent: the opponent answers only its own games, each game
    is scored once from the policy's seat, and the same seed replays the match."""
    from boardgym.agents.arena.matches import play_vs_batched_opponent

    asked = []

    def first_legal(obs, masks):
        return masks.argmax(1)

    def last_legal(obs, masks, games):
        asked.append(np.asarray(games).copy())
        return masks.shape[1] - 1 - masks[:, ::-1].argmax(1)

    kw = {"max_moves": 60} if game_name == "draughts" else {"max_turns": 40}
    a = play_vs_batched_opponent(first_legal, last_legal, game_name, 6, seed=2, **kw)
    b = play_vs_batched_opponent(first_legal, last_legal, game_name, 6, seed=2, **kw)
    assert a.shape == (6,) and np.array_equal(a, b) and set(np.unique(a)) <= {-1.0, 0.0, 1.0}
    assert all(g.size and g.max() < 6 and np.unique(g).size == g.size for g in asked)
