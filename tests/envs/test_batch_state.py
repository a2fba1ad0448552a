"""Batched cores: get_state/set_state checkpoints N games in progress (exact resume), and every
input the cores take — snapshots, constructor arguments, seeds, actions, game indices, random
streams — is checked before a kernel sees it (ValueError/TypeError naming the problem)."""

import numpy as np
import pytest

from boardgym.envs.batch import BackgammonBatch, DraughtsBatch


def _play(core, steps):
    trace = []
    for _ in range(steps):
        core.step(core.random_actions())
        trace.append((core.obs.copy(), core.rewards.copy(), core.done.copy()))
        core.reset_done()
    return trace


@pytest.mark.parametrize(
    "make",
    [
        lambda: DraughtsBatch(8, opponent="random", max_moves=60),
        lambda: BackgammonBatch(8, opponent="greedy", max_turns=40),
        lambda: BackgammonBatch(8, opponent=None, cube=True, max_turns=40),
        lambda: BackgammonBatch(8, opponent="random", match_length=3, max_turns=200),
    ],
)
def test_restored_core_plays_the_same_games(make):
    a = make()
    a.reset(seed=5)
    _play(a, 30)
    snap = a.get_state()
    expected = _play(a, 80)  # crosses game ends and autoresets
    b = make()
    b.reset(seed=99)  # different games: set_state must overwrite everything
    b.set_state(snap)
    got = _play(b, 80)
    for (o1, r1, d1), (o2, r2, d2) in zip(expected, got):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(d1, d2)
    assert any(d.any() for _, _, d in got)  # at least one game ended on the way


def test_set_state_rejects_a_mismatched_snapshot():
    d8, d4, bg = DraughtsBatch(8), DraughtsBatch(4), BackgammonBatch(8)
    for core in (d8, d4, bg):
        core.reset(seed=0)
    with pytest.raises(ValueError, match="DraughtsBatch snapshot"):
        d8.set_state(bg.get_state())
    with pytest.raises(ValueError, match="'states' must be int64"):
        d8.set_state(d4.get_state())
    snap = d8.get_state()
    del snap["rngs"]
    with pytest.raises(ValueError, match="lacks 'rngs'"):
        d8.set_state(snap)
    before = bg.get_state()
    bad = dict(before, rolls=before["rolls"][:3])
    with pytest.raises(ValueError, match="'rolls'"):
        bg.set_state(bad)
    assert all(np.array_equal(before[k], v) for k, v in bg.get_state().items() if k != "core")


def _corrupt(snap, name, change):
    bad = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in snap.items()}
    change(bad, name)
    return bad


def _set(value):
    def change(d, name):
        d[name] = value

    return change


def _poke(index, value):
    def change(d, name):
        d[name][index] = value

    return change


@pytest.mark.parametrize(
    "make",
    [
        lambda: DraughtsBatch(4, opponent="random", max_moves=60),
        lambda: BackgammonBatch(4, opponent="random", max_turns=40),
    ],
    ids=["draughts", "backgammon"],
)
@pytest.mark.parametrize(
    "name, change, error, message",
    [
        ("obs", _poke((1, 3), np.nan), ValueError, "'obs' holds NaN"),
        ("rewards", _poke((2, 0), np.inf), ValueError, "'rewards' holds NaN or infinity"),
        ("masks", _poke((0, 0), 2), ValueError, "'masks' of game 0 is not 0/1"),
        ("done", _poke((3, 1), -1), ValueError, "'done' of game 3 is not 0/1"),
        ("current", _poke(1, 2), ValueError, "'current' of game 1"),
        ("seats", _poke(2, -1), ValueError, "'seats' of game 2"),
        (
            "states",
            lambda d, n: d.__setitem__(n, d[n].astype(np.int32)),
            ValueError,
            "'states' must be int64",
        ),
        ("obs", lambda d, n: d.__setitem__(n, d[n][:, :-1]), ValueError, "'obs' must be float32"),
        (
            "rngs",
            lambda d, n: d.__setitem__(n, d[n].tolist()),
            ValueError,
            "'rngs' must be a NumPy array",
        ),
        ("masks", lambda d, n: d.__setitem__(n, None), ValueError, "'masks' must be a NumPy array"),
        ("extra", _set(np.zeros(3)), ValueError, r"unexpected key\(s\) \['extra'\]"),
        ("core", _set("SomethingElse"), ValueError, "snapshot, got 'SomethingElse'"),
    ],
)
def test_corrupted_snapshots_are_named_and_change_nothing(make, name, change, error, message):
    core = make()
    core.reset(seed=2)
    for _ in range(3):
        core.step(core.random_actions())
        core.reset_done()
    snap = core.get_state()
    with pytest.raises(error, match=message):
        core.set_state(_corrupt(snap, name, change))
    after = core.get_state()
    assert all(np.array_equal(snap[k], after[k]) for k in core._state_fields)


def test_snapshot_contents_across_fields():
    core = BackgammonBatch(4, opponent="random")
    core.reset(seed=1)
    snap = core.get_state()
    snap["rolls"][2] = -3
    with pytest.raises(ValueError, match="'rolls' holds a negative count"):
        core.set_state(snap)
    snap = core.get_state()
    snap["done"][1, 0] = 1  # over, yet the mask still allows actions
    with pytest.raises(ValueError, match="game 1 is over but its mask allows actions"):
        core.set_state(snap)
    with pytest.raises(TypeError, match="expected a BackgammonBatch snapshot"):
        core.set_state([1, 2, 3])
    with pytest.raises(TypeError, match="expected a BackgammonBatch snapshot"):
        core.set_state(None)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.5}, "num_envs"),
        ({"num_envs": None}, "num_envs"),
        ({"num_envs": "8"}, "num_envs"),
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 10**12}, "num_envs"),
        ({"num_envs": 2, "opponent": "smart"}, "opponent"),
        ({"num_envs": 2, "opponent": ["random"]}, "opponent"),
        ({"num_envs": 2, "learner": "player_2"}, "learner"),
        ({"num_envs": 2, "learner": np.zeros(2)}, "learner"),
        ({"num_envs": 2, "threads": 0}, "threads"),
        ({"num_envs": 2, "threads": 10**6}, "threads"),
        ({"num_envs": 2, "threads": "2"}, "threads"),
    ],
)
def test_bad_constructor_arguments(kwargs, message):
    for cls in (DraughtsBatch, BackgammonBatch):
        with pytest.raises(ValueError, match=message):
            cls(**kwargs)


def test_bad_seeds_actions_games_and_streams():
    core = DraughtsBatch(4, opponent="random")
    for seed in ("1", 1.5, [1, 2, 3, 1.5], True):
        with pytest.raises(TypeError, match="seed must be an integer"):
            core.reset(seed=seed)
    with pytest.raises(ValueError, match="one per game: 4, got 1"):
        core.reset(seed=[1])
    core.reset(seed=np.int64(3))
    legal = core.random_actions()
    for actions, message in [
        (legal[:3], "shape"),
        (legal.astype(float), "integers"),
        (None, "shape"),
        (["a"] * 4, "integers"),
        (np.full(4, 5000), "out of range"),
        (np.full(4, -1), "out of range"),
        (np.array([2**63 - 1] * 4, np.uint64) * 2, "out of range"),
        (legal.reshape(2, 2), "shape"),
    ]:
        with pytest.raises(ValueError, match=message):
            core.step(actions)
    for games, actions, message in [
        ([0, 0], legal[:2], "distinct"),
        ([0, 4], legal[:2], r"0\.\.3"),
        ([-1], legal[:1], r"0\.\.3"),
        ([[0]], legal[:1], "1-D"),
        ([0.5], legal[:1], "1-D"),
        ("ab", legal[:1], "1-D"),
        ([0, 1], legal[:1], "shape"),
    ]:
        with pytest.raises(ValueError, match=message):
            core.step_subset(games, actions)
    for rngs, out, message in [
        (np.zeros(3, np.int64), None, "rngs must be"),
        (np.zeros(4, np.int32), None, "rngs must be"),
        (None, np.zeros(5, np.int64), "out must be"),
        ([1, 2, 3, 4], None, "rngs must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            core.random_actions(rngs, out)
    frozen = np.zeros(4, np.int64)
    frozen.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        core.random_actions(frozen)
    strided = np.zeros(8, np.int64)[::2]  # a view: the kernel fills the caller's array
    assert core.random_actions(out=strided) is strided and (strided >= 0).all()
    core.step_subset([], [])  # nothing to play is fine
    core.step(legal)


def test_vector_env_inputs():
    import gymnasium

    import boardgym  # noqa: F401  (registers the envs)

    envs = gymnasium.make_vec(
        "boardgym/RussianDraughts-v0", num_envs=2, vectorization_mode="vector_entry_point"
    )
    _, info = envs.reset(seed=[4, 5])
    for actions in (np.zeros((2, 1), np.int64), np.zeros(3, np.int64), np.zeros(2)):
        with pytest.raises(ValueError):
            envs.step(actions)
    with pytest.raises(TypeError, match="seed"):
        envs.reset(seed=["x"])
    from boardgym.envs.vector import make_sb3_vec_env

    venv = make_sb3_vec_env("draughts", num_envs=2)
    venv.reset()
    venv.step_async(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="shape"):
        venv.step_wait()
    with pytest.raises(ValueError, match="game must be"):
        make_sb3_vec_env(["draughts"])

    class Policy:
        kernel_opponent = "telepathic"

        def __call__(self, obs, masks):
            return masks.argmax(1)

    venv = make_sb3_vec_env("draughts", num_envs=2, opponent=Policy())
    with pytest.raises(ValueError, match="kernel_opponent"):
        venv.reset()


def test_one_seed_per_game_follows_gymnasiums_convention():
    from boardgym.envs.vector import BackgammonVectorEnv

    envs = BackgammonVectorEnv(num_envs=3)
    obs_int, _ = envs.reset(seed=40)
    obs_int = obs_int.copy()
    obs_seq, _ = envs.reset(seed=[40, 41, 42])  # consecutive seeds are the integer seed
    assert np.array_equal(obs_int, obs_seq)
    # game i depends on seed[i] alone: game i of [7, 3, 9] is game i of the integer seed
    # seed[i] - i (whose game i has stream seed[i]); the seats alternate with i
    per_game, _ = envs.reset(seed=np.array([7, 3, 9]))
    per_game = per_game.copy()
    rows = [envs.reset(seed=s - i)[0][i].copy() for i, s in enumerate((7, 3, 9))]
    assert all(np.array_equal(per_game[i], rows[i]) for i in range(3))
    streams = [envs.reset(seed=[s, 1, 2]) and envs.core.rngs[0] for s in (5, 6)]
    assert streams[0] != streams[1]
    for bad, err, match in (
        ([1, 2], ValueError, "one per game"),
        ([1, None, 2], ValueError, "all integers or all None"),
        ([1, 2, -1], ValueError, "seed"),
        ([1, 2, 1.5], TypeError, "seed"),
        (np.zeros((3, 1), int), ValueError, "1-D"),
    ):
        with pytest.raises(err, match=match):
            envs.reset(seed=bad)
    envs.reset(seed=[None, None, None])  # unseeded
    with pytest.raises(ValueError, match="paired"):
        envs.core.reset([1, 2, 3], paired=True)
