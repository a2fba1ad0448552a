"""TwoPlayerAEC's public read-only views (is_over, legal_mask(), n_legal, cumulative_rewards) and
end_on_illegal_action(), on both games, raw and wrapped."""

import numpy as np
import pytest

from boardgym.envs import backgammon_v0, russian_draughts_v0

MODULES = [russian_draughts_v0, backgammon_v0]


@pytest.mark.parametrize("module", MODULES, ids=["draughts", "backgammon"])
def test_views_follow_a_random_game(module):
    env = module.raw_env()
    assert env.is_over  # before the first reset there is no game
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not env.is_over:
        before = env.cumulative_rewards  # taken before each step; the last one before the end
        mask = env.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (env.n_actions,)
        np.testing.assert_array_equal(mask, env.observe(env.agent_selection)["action_mask"])
        assert env.n_legal == int(mask.sum()) > 0
        mask[:] = 0  # a copy: the env's own mask is untouched
        assert env.legal_mask().sum() == env.n_legal
        env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
    assert env.n_legal == 0 and not env.legal_mask().any()
    cum = env.cumulative_rewards
    assert set(cum) == {"player_0", "player_1"}
    with pytest.raises(TypeError):
        cum["player_0"] = 99.0  # read-only
    assert sorted(cum.values()) == [-1.0, 1.0]  # decided (random play, this seed)
    assert dict(before) == {
        "player_0": 0.0,
        "player_1": 0.0,
    }  # a copy: the end did not show through
    _, reward, term, trunc, _ = env.last()
    assert reward == env.cumulative_rewards[env.agent_selection] and (term or trunc)


@pytest.mark.parametrize("module", MODULES, ids=["draughts", "backgammon"])
def test_views_through_the_pettingzoo_wrappers(module):
    env = module.env()
    env.reset(seed=0)
    assert not env.is_over and env.n_legal == env.unwrapped.n_legal > 0
    np.testing.assert_array_equal(env.legal_mask(), env.unwrapped.legal_mask())
    assert dict(env.cumulative_rewards) == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("module", MODULES, ids=["draughts", "backgammon"])
def test_end_on_illegal_action(module):
    env = module.raw_env()
    env.reset(seed=1)
    offender = env.agent_selection
    other = "player_1" if offender == "player_0" else "player_0"
    assert env.end_on_illegal_action(-1.0) == offender
    assert env.is_over and env.n_legal == 0 and not env.legal_mask().any()
    assert env.rewards == {offender: -1.0, other: 0.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    _, reward, term, _, _ = env.last()
    assert term and reward == -1.0
    env.step(None)  # the dead steps of the AEC loop still work
    with pytest.raises(ValueError, match="already over"):
        env.end_on_illegal_action()


def _pettingzoo_stack(module):
    from pettingzoo.utils import wrappers

    env = wrappers.TerminateIllegalWrapper(module.raw_env(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def _same_last(a, b):
    (oa, *ra), (ob, *rb) = a.last(), b.last()
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    np.testing.assert_array_equal(oa["action_mask"], ob["action_mask"])
    assert ra == rb


@pytest.mark.parametrize("module", MODULES, ids=["draughts", "backgammon"])
@pytest.mark.parametrize("illegal_at", [0, 7, None])
def test_wrapped_env_behaves_as_pettingzoos_own_wrappers(module, illegal_at):
    """env()'s faster wrappers against PettingZoo's stack on the same games: legal actions as
    ints and NumPy ints, an illegal action (the game ends with the penalty), the dead steps,
    an out-of-range action, and the order checks before reset."""
    ours, theirs = module.env(), _pettingzoo_stack(module)
    for env in (ours, theirs):
        with pytest.raises(AttributeError, match="before reset"):
            env.agent_selection  # noqa: B018
        env.reset(seed=5)
    rng = np.random.default_rng(5)
    for env in (ours, theirs):
        with pytest.raises(AssertionError):
            env.step(env.unwrapped.n_actions)
        with pytest.raises(AssertionError):
            env.step(-1)
    for k, agent in enumerate(ours.agent_iter(400)):
        assert agent == next(iter(theirs.agent_iter(1)))
        _same_last(ours, theirs)
        _, _, term, trunc, _ = ours.last()
        mask = ours.last()[0]["action_mask"]
        if term or trunc:
            action = None
        elif k == illegal_at:
            action = int(np.flatnonzero(mask == 0)[0])
        else:
            action = rng.choice(np.flatnonzero(mask))  # a NumPy int
            action = int(action) if k % 2 else action
        ours.step(action)
        theirs.step(action)
        assert ours.rewards == theirs.rewards and ours.terminations == theirs.terminations
        assert ours.truncations == theirs.truncations
        if k == illegal_at:
            assert ours.rewards[agent] == -1 and all(ours.terminations.values())
    assert not ours.agents and not theirs.agents


def test_an_unknown_reset_option_is_a_plain_warning(monkeypatch):
    """api_test printed "ignoring unknown reset option(s)" wrapped in terminal colour codes."""
    import warnings

    import gymnasium

    from boardgym.envs import backgammon_v0, russian_draughts_v0

    for module in (russian_draughts_v0, backgammon_v0):
        env = module.raw_env()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env.reset(seed=0, options={"nonsense": 1})
        (w,) = [c for c in caught if "unknown reset option" in str(c.message)]
        assert "\x1b" not in str(w.message) and "['nonsense']" in str(w.message)
        with monkeypatch.context() as m:  # gymnasium's logger level silences it
            m.setattr(gymnasium.logger, "min_level", gymnasium.logger.ERROR)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                env.reset(seed=0, options={"nonsense": 1})
            assert not [c for c in caught if "unknown reset option" in str(c.message)]
