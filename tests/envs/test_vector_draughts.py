"""Batched Russian draughts: the core, its equality with the single env, the vector adapters."""

import gymnasium as gym
import numpy as np
import pytest
from _batch_equality import play_in_lockstep

import boardgym  # noqa: F401
from boardgym.envs import russian_draughts_v0
from boardgym.envs.batch import DraughtsBatch
from boardgym.envs.vector import make_sb3_vec_env


def test_batch_equals_single_env_game_for_game():
    """The same actions through the batch (two-player view) and through N single envs give the
    same observations, masks, rewards and ends, across automatic resets."""
    n, rng = 6, np.random.default_rng(0)
    core = DraughtsBatch(n, opponent=None, max_moves=60, record_moves=True)
    core.reset(seed=0)
    singles = [russian_draughts_v0.raw_env(max_moves=60) for _ in range(n)]
    for env in singles:
        env.reset()

    def restarted(i):
        np.testing.assert_array_equal(core.obs[i], singles[i].observe("player_0")["observation"])

    assert play_in_lockstep(core, singles, 400, rng, restarted) > 5


@pytest.mark.parametrize("opponent", ["random", "recapture"])
def test_in_kernel_opponent_hands_the_move_back(opponent):
    core = DraughtsBatch(64, opponent=opponent, max_moves=200)
    core.reset(seed=3)
    assert set(core.seats) == {0, 1}
    rng = np.random.default_rng(1)
    finished = 0
    learner_score = 0.0
    for _ in range(300):
        assert (core.current == core.seats).all()  # the learner is always the one to act
        seats = core.seats.copy()
        core.step(np.array([rng.choice(np.flatnonzero(m)) for m in core.masks]))
        done = core.done.any(1).astype(bool)
        learner_score += core.rewards[np.flatnonzero(done), seats[done]].sum()
        finished += len(core.reset_done())
    assert finished > 20
    if opponent == "recapture":
        assert learner_score < 0  # a random learner loses to the recapture player on balance


def test_step_validation():
    core = DraughtsBatch(4)
    core.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        core.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="out of range"):
        core.step(np.full(4, 1024))
    with pytest.raises(ValueError, match="illegal action 0 in game 0"):
        core.step(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="integers"):
        core.step(np.zeros(4))
    with pytest.raises(ValueError, match="opponent"):
        DraughtsBatch(4, opponent="smart")
    with pytest.raises(ValueError, match="num_envs"):
        DraughtsBatch(0)


def test_seeded_batches_repeat():
    a, b = DraughtsBatch(32, opponent="random"), DraughtsBatch(32, opponent="random")
    for core in (a, b):
        core.reset(seed=11)
    for _ in range(50):
        acts = np.array([np.flatnonzero(m)[0] for m in a.masks])
        a.step(acts)
        b.step(acts)
        np.testing.assert_array_equal(a.states, b.states)
        a.reset_done()
        b.reset_done()


def test_memory_for_65536_games_under_200_mb():
    core = DraughtsBatch(65536, record_moves=True)
    total = sum(
        x.nbytes
        for x in (
            core.states,
            core.obs,
            core.masks,
            core.current,
            core.rewards,
            core.done,
            core.seats,
            core.rngs,
            core.last,
        )
    )
    assert total < 200e6, total


def test_gymnasium_make_vec_same_step_autoreset():
    envs = gym.make_vec(
        "boardgym/RussianDraughts-v0",
        num_envs=16,
        vectorization_mode="vector_entry_point",
        opponent="random",
        max_moves=40,
    )
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (16, 198) and infos["action_mask"].shape == (16, 1024)
    rng = np.random.default_rng(0)
    saw_final = False
    for _ in range(120):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in envs.action_masks()])
        obs, rew, term, trunc, infos = envs.step(acts)
        assert obs.shape == (16, 198) and rew.dtype == np.float32
        if "final_obs" in infos:
            saw_final = True
            ended = np.flatnonzero(infos["_final_obs"])
            assert set(ended) == set(np.flatnonzero(term | trunc))
            assert all(infos["final_obs"][i].shape == (198,) for i in ended)
    assert saw_final


def test_sb3_vec_env_with_maskable_ppo_and_policy_opponent():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    venv = make_sb3_vec_env("draughts", num_envs=16, opponent="recapture", max_moves=100)
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (16, 1024)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=64,
        batch_size=256,
        n_epochs=1,
        policy_kwargs={"net_arch": [64]},
        seed=0,
    )
    model.learn(2048)
    assert model.num_timesteps >= 2048
    # A frozen policy as the opponent: the first legal action, batched.
    frozen = make_sb3_vec_env("draughts", num_envs=8, opponent=lambda obs, m: m.argmax(1))
    obs = frozen.reset()
    for _ in range(30):
        acts = np.stack(frozen.env_method("action_masks")).argmax(1)
        frozen.step_async(acts)
        obs, rew, dones, infos = frozen.step_wait()
        assert obs.shape == (8, 198)
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == (198,)


def test_greedy_is_not_the_in_kernel_player():
    """'greedy' names boardgym.agents' GreedyAgent; the in-kernel one-ply player is 'recapture'."""
    with pytest.raises(ValueError, match="recapture"):
        DraughtsBatch(4, opponent="greedy")
    with pytest.raises(ValueError, match="recapture"):
        make_sb3_vec_env("draughts", num_envs=2, opponent="greedy")
    with pytest.raises(ValueError, match="opponent"):
        DraughtsBatch(4, opponent=["random"])
    from boardgym.kernels.players import OPP_GREEDY

    assert DraughtsBatch(2, opponent="recapture").opponent == OPP_GREEDY


@pytest.mark.parametrize(
    "kwargs,exc,problem",
    [
        ({"max_moves": 0}, ValueError, "max_moves"),
        ({"max_moves": 2.5}, TypeError, "max_moves"),
        ({"max_moves": True}, TypeError, "max_moves"),
        ({"fen": 5}, TypeError, "FEN"),
        ({"fen": "W:W99:B1"}, ValueError, "unknown square"),
        ({"balance": "no"}, TypeError, "draw rule"),
        ({"castling": True}, TypeError, "castling"),
    ],
)
def test_constructor_checks_its_arguments(kwargs, exc, problem):
    with pytest.raises(exc, match=problem):
        DraughtsBatch(4, **kwargs)


@pytest.mark.parametrize(
    "actions,problem",
    [
        (np.zeros(4), "integers"),
        (np.ones(4, bool), "integers"),
        (np.array([None] * 4), "integers"),
        (np.zeros((4, 1), np.int64), "shape"),
        (None, "shape"),
        ("0123", "shape"),
        (np.full(4, -1), "out of range"),
        (np.full(4, 2**40), "out of range"),
        (np.full(4, 2**63, np.uint64), "out of range"),
    ],
)
def test_step_refuses_bad_action_arrays(actions, problem):
    core = DraughtsBatch(4)
    core.reset(seed=0)
    before = core.get_state()
    with pytest.raises((TypeError, ValueError), match=problem):
        core.step(actions)
    assert all(np.array_equal(before[k], v) for k, v in core.get_state().items() if k != "core")


def _corrupt(field, fn):
    def make(snap):
        snap = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in snap.items()}
        fn(snap[field])
        return snap

    return make


@pytest.mark.parametrize(
    "make,exc,problem",
    [
        (
            _corrupt("states", lambda a: a.__setitem__((2, 0), a[2, 0] | a[2, 2])),
            ValueError,
            "game 2: two pieces",
        ),
        (
            _corrupt("states", lambda a: a.__setitem__((1, 5), 99)),
            ValueError,
            "game 1: capture square",
        ),
        (_corrupt("states", lambda a: a.__setitem__((0, 9), -4)), ValueError, "game 0: ply"),
        (_corrupt("masks", lambda a: a.__setitem__((3, 0), 1)), ValueError, "'masks' of game 3"),
        (_corrupt("obs", lambda a: a.__setitem__((0, 0), 0.5)), ValueError, "'obs' of game 0"),
        (
            _corrupt("current", lambda a: a.__setitem__(1, 1 - a[1])),
            ValueError,
            "'current' of game 1",
        ),
        (
            _corrupt("done", lambda a: a.__setitem__((2, 0), 1)),
            ValueError,
            "game 2 is over but its mask",
        ),
        (_corrupt("seats", lambda a: a.__setitem__(0, 5)), ValueError, "seats"),
    ],
)
def test_set_state_checks_the_games_in_the_snapshot(make, exc, problem):
    """A corrupted snapshot is refused naming the game and the field, and changes nothing; the
    masks the step validation trusts always belong to the states."""
    core = DraughtsBatch(4, opponent="random", max_moves=80)
    core.reset(seed=1)
    for _ in range(6):
        core.step(core.random_actions())
        core.reset_done()
    good = core.get_state()
    before = core.get_state()
    with pytest.raises(exc, match=problem):
        core.set_state(make(good))
    assert all(np.array_equal(before[k], v) for k, v in core.get_state().items() if k != "core")
    with pytest.raises((TypeError, ValueError), match="int64"):  # the shared structure check
        core.set_state(dict(good, states=good["states"].astype(np.float64)))
    core.set_state(good)  # the untouched snapshot restores


def test_set_state_refuses_a_game_where_the_opponent_is_to_move():
    two = DraughtsBatch(2, opponent=None)
    two.reset(seed=0)
    two.step(two.random_actions())  # Black (seat 0's opponent) is now to move in both games
    mine = DraughtsBatch(2, opponent="random", learner="player_0")
    mine.reset(seed=0)
    snap = mine.get_state()
    snap["states"] = two.states.copy()
    snap["current"] = two.current.copy()
    snap["masks"] = np.zeros_like(two.masks)
    from boardgym.kernels.draughts.batch import batch_outputs

    batch_outputs(
        snap["states"],
        snap["seats"],
        snap["rngs"],
        mine.opponent,
        mine.max_plies,
        snap["obs"],
        snap["masks"],
        snap["current"],
        snap["rewards"],
        snap["done"],
    )
    with pytest.raises(ValueError, match="opponent is to move"):
        mine.set_state(snap)


def test_set_state_takes_snapshots_with_finished_games_in_either_view():
    """A snapshot taken before reset_done (finished games in it) restores; the observation of a
    finished game may be the learner's (opponent core) or the side to move's (two-player core)."""
    core = DraughtsBatch(16, opponent="random", max_moves=30)
    core.reset(seed=2)
    while not core.done.any():
        core.step(core.random_actions())
    snap = core.get_state()
    for other in (
        DraughtsBatch(16, opponent="random", max_moves=30),
        DraughtsBatch(16, opponent=None, max_moves=30),
    ):
        other.set_state(snap)
        assert np.array_equal(other.states, core.states) and np.array_equal(other.obs, core.obs)


def test_make_vec_hands_out_its_buffers_until_the_next_step_or_copies():
    """obs and the action mask are the core's buffers (valid until the next step) unless
    copy=True; rewards, ends and final observations are always fresh."""
    shared = gym.make_vec(
        "boardgym/RussianDraughts-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        max_moves=6,
    )
    copied = gym.make_vec(
        "boardgym/RussianDraughts-v0",
        num_envs=4,
        vectorization_mode="vector_entry_point",
        max_moves=6,
        copy=True,
    )
    for envs, fresh in ((shared, False), (copied, True)):
        core = envs.unwrapped.core
        obs, infos = envs.reset(seed=0)
        assert np.shares_memory(obs, core.obs) != fresh
        assert np.shares_memory(infos["action_mask"], core.masks) != fresh
        for _ in range(8):
            acts = np.array([np.flatnonzero(m)[0] for m in envs.action_masks()])
            obs, rew, term, trunc, infos = envs.step(acts)
            assert np.shares_memory(obs, core.obs) != fresh
            assert not any(
                np.shares_memory(x, core.rewards) or np.shares_memory(x, core.done)
                for x in (rew, term, trunc)
            )
            for i in np.flatnonzero(infos.get("_final_obs", [])):
                assert not np.shares_memory(infos["final_obs"][i], core.obs)
        np.testing.assert_array_equal(obs, core.obs)
    with pytest.raises(TypeError, match="copy"):
        gym.make_vec(
            "boardgym/RussianDraughts-v0",
            num_envs=2,
            vectorization_mode="vector_entry_point",
            copy="yes",
        )
