"""PPOAgent and its self-play trainer: a tiny run, checkpoint, legal play from both seats,
exact resume after a kill, TensorBoard logs."""

import json
import re

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from boardgym.agents.arena import playouts  # noqa: E402
from boardgym.agents.ppo import PPOAgent  # noqa: E402
from boardgym.agents.training.ppo import (  # noqa: E402
    OpponentPool,
    PPOSettings,
    play_vs_baseline,
    train_ppo,
)
from boardgym.envs import backgammon_v0, russian_draughts_v0  # noqa: E402


@pytest.mark.parametrize(
    "game,module", [("draughts", russian_draughts_v0), ("backgammon", backgammon_v0)]
)
def test_tiny_self_play_run_checkpoint_and_legal_play(tmp_path, game, module):
    logs = []
    model = train_ppo(
        game,
        4096,
        tmp_path,
        num_envs=16,
        snapshot_every=1024,
        eval_every=2048,
        eval_games=8,
        log=logs.append,
        net_arch=(32,),
        tensorboard=False,
    )
    evals = [t for t in logs if "vs random" in t]
    heuristic = "recapture" if game == "draughts" else "greedy"  # the in-kernel one-ply player
    assert (
        model.num_timesteps >= 4096
        and len(evals) == 2
        and all(f"vs {heuristic}" in t for t in evals)
    )
    assert not any(re.search(r"\b0 steps/s", t) for t in logs)  # no progress line before progress
    assert logs[-1].startswith(f"saved the model (4,096 steps) to {tmp_path / 'ppo.zip'}: ")
    assert not any(t.startswith("training ") for t in logs)  # whole rollouts: nothing to say
    agent = PPOAgent(tmp_path / "ppo.zip")
    for seed in range(2):  # both seats, a whole game, only legal actions (the env would raise)
        env = module.raw_env()
        env.reset(seed=seed)
        while not env.is_over:
            obs = env.observe(env.agent_selection)
            action = agent.act(obs["observation"], obs["action_mask"])
            assert obs["action_mask"][action] == 1
            env.step(action)
    if game == "draughts":  # engine-style queries: whole moves, chains included
        from boardgym.envs.draughts import legal_moves

        for fen in (
            "W:W21-32:B1-12",
            "W:W22,28:B4,11,17,18",
            "B:W21-32:B1-12",
            "W:WK4:B8,15,24,26",
        ):
            assert agent.best_move(fen) in legal_moves(fen)
        with pytest.raises(ValueError):
            agent.best_move("W:W99:B1")
    else:
        from boardgym.envs.backgammon_notation import legal_plays

        for pid, d1, d2 in (
            ("4HPwATDgc/ABMA", 3, 1),
            ("4HPwATDgc/ABMA", 6, 6),
            ("4HPwATDgc/ABMA", 6, 5),
        ):
            assert agent.best_play(pid, d1, d2) in legal_plays(pid, d1, d2)
        with pytest.raises(ValueError):
            agent.best_play("not-an-id", 3, 1)
    points = play_vs_baseline(model, game, heuristic, n_games=10, seed=3)
    assert points.shape == (10,) and set(np.unique(points)) <= {
        -3.0,
        -2.0,
        -1.0,
        0.0,
        1.0,
        2.0,
        3.0,
    }
    # by name with a path, either game; a policy of the other game is refused naming the file
    from boardgym.agents import load

    by_name = load(f"{game}-ppo", path=tmp_path / "ppo.zip")
    assert by_name.game == game and by_name.act(obs["observation"], obs["action_mask"]) == action
    other = "backgammon" if game == "draughts" else "draughts"
    with pytest.raises(ValueError, match=f"ppo.zip is a {game} policy .* not a {other} one"):
        load(f"{other}-ppo", path=tmp_path / "ppo.zip")


def test_baseline_match_counts_every_slot_once():
    class FirstLegal:  # a deterministic "model": the lowest legal action
        def predict(self, obs, action_masks, deterministic):
            return action_masks.argmax(1), None

    points = play_vs_baseline(FirstLegal(), "draughts", "random", n_games=6, seed=1)
    again = play_vs_baseline(FirstLegal(), "draughts", "random", n_games=6, seed=1)
    assert points.shape == (6,) and np.array_equal(points, again)


def test_opponent_pool_plays_legal_actions_and_round_trips():
    pool = OpponentPool(seed=0)
    masks = np.zeros((5, 20), np.int8)
    masks[np.arange(5), [1, 3, 5, 7, 19]] = 1
    assert pool.current == "random" and pool.kernel_opponent == "random"
    assert pool(np.zeros((5, 4), np.float32), masks).tolist() == [1, 3, 5, 7, 19]
    drawn = set()
    for _ in range(50):
        pool.pick()
        drawn.add(pool.current)
    assert drawn == {"random", "greedy"}  # no snapshots yet: the fixed players only
    pool.current = "greedy"
    with pytest.raises(ValueError, match="plays inside a boardgym core"):
        pool(np.zeros((5, 4), np.float32), masks)
    with pytest.raises(ValueError, match="baselines"):
        OpponentPool(baselines=("minimax",))
    with pytest.raises(ValueError, match="no action"):
        PPOAgent.act(
            type("A", (), {"model": None, "deterministic": True})(), np.zeros(3), np.zeros(3)
        )


@pytest.mark.parametrize(
    "game,kwargs", [("draughts", {"max_moves": 80}), ("backgammon", {"max_turns": 60})]
)
@pytest.mark.parametrize("member", ["random", "greedy"])
def test_pool_fixed_members_play_as_the_in_kernel_opponents(game, kwargs, member):
    """The pool's random/greedy members on the vector env = the in-kernel opponents of the core."""
    from boardgym.envs.vector import make_sb3_vec_env

    if member == "greedy" and game == "draughts":
        member = "recapture"  # draughts' in-kernel one-ply player
    pool = OpponentPool(seed=1)
    pool.current = member
    with_pool = make_sb3_vec_env(game, num_envs=6, opponent=pool, **kwargs)
    reference = make_sb3_vec_env(game, num_envs=6, opponent=member, **kwargs)
    obs = []
    for venv in (with_pool, reference):
        venv.seed(7)
        trace = [venv.reset()]
        for _ in range(60):
            masks = np.stack(venv.env_method("action_masks"))
            o, r, d, _ = venv.step(masks.argmax(1))
            trace += [o, r, d]
        obs.append(trace)
    assert all(np.array_equal(x, y) for x, y in zip(*obs))
    assert any(t.any() for t in obs[0][3::3])  # some game ended on the way


def test_a_run_says_it_trains_whole_rollouts_past_the_steps_asked(tmp_path):
    logs = []
    model = train_ppo(
        "draughts",
        1000,
        tmp_path,
        num_envs=4,
        eval_games=2,
        log=logs.append,
        net_arch=(8,),
        tensorboard=False,
    )
    assert model.num_timesteps == 1024
    assert logs[0] == (
        "training 1,024 steps, not the 1,000 asked: MaskablePPO learns in whole rollouts of 256 "
        "steps (4 games x 64 steps, --num-envs x --rollout)"
    )
    assert logs[-1].startswith("saved the model (1,024 steps) to ")


def test_ppo_resume_after_a_kill_is_exact(tmp_path):
    """A run killed between checkpoints and resumed ends with the same weights, games
    and logs as an uninterrupted run (8 games x 128 steps = 1,024 steps per rollout)."""
    import torch
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    kw = dict(
        num_envs=8,
        seed=5,
        snapshot_every=1024,
        net_arch=(16,),
        ckpt_every=2048,
        eval_every=1024,
        eval_games=4,
        n_steps=128,
        openings=playouts.ballot_positions(),  # as boardgym train's default
    )
    full = train_ppo("draughts", 4096, tmp_path / "a", log=lambda text: None, **kw)

    class Killed(Exception):
        pass

    def kill(text):  # dies at the evaluation of step 3072: after the checkpoint at 2048
        if text.startswith("steps 3072:"):
            raise Killed

    with pytest.raises(Killed):
        train_ppo("draughts", 4096, tmp_path / "b", log=kill, **kw)
    assert torch.load(tmp_path / "b" / "resume.pt", weights_only=False)["counters"]["steps"] == 2048
    resumed = train_ppo("draughts", 4096, tmp_path / "b", resume=True, log=lambda t: None, **kw)
    assert resumed.num_timesteps == full.num_timesteps == 4096
    for (name, p), q in zip(full.policy.state_dict().items(), resumed.policy.state_dict().values()):
        assert torch.equal(p, q), name
    for k in ("exp_avg", "exp_avg_sq"):  # Adam's moments too
        assert all(
            torch.equal(full.policy.optimizer.state[p][k], resumed.policy.optimizer.state[q][k])
            for p, q in zip(full.policy.parameters(), resumed.policy.parameters())
        )

    def metrics(run):
        lines = [json.loads(t) for t in (tmp_path / run / "metrics.jsonl").read_text().splitlines()]
        return [{k: v for k, v in line.items() if k != "seconds"} for line in lines]

    assert [m["steps"] for m in metrics("a")] == [1024, 2048, 3072, 4096]
    assert sorted(p.name for p in (tmp_path / "b").glob("ppo_*.zip")) == [
        f"ppo_{n}.zip" for n in (1024, 2048, 3072, 4096)
    ]  # every evaluated model is kept
    assert metrics("a") == metrics("b") and metrics("a")[-1]["games"] > 0
    assert set(metrics("a")[0]["recapture"]) == {
        "ppg",
        "ci95",
        "win_rate",
        "games",
        "elo",
        "elo_ci95",
    }
    assert set(metrics("a")[0]) >= {"random", "recapture", "greedy", "league"}  # GreedyAgent too
    assert [m[0] for m in metrics("a")[-1]["league"]][:3] == ["random", "recapture", "greedy"]
    acc = EventAccumulator(str(tmp_path / "b" / "tb"))
    acc.Reload()
    assert {
        "train/policy_gradient_loss",
        "eval/random_ppg",
        "elo/greedy",
        "league/weight/greedy",
        "league/score/snap1024",
    } <= set(acc.Tags()["scalars"])
    with pytest.raises(ValueError, match="no checkpoint"):
        train_ppo("draughts", 4096, tmp_path / "c", resume=True, **kw)


def test_a_run_ends_with_an_evaluation_and_old_greedy_checkpoints_resume(tmp_path):
    """eval_every=0: the run's one evaluation is the final one. A resume.pt of the uniform pool
    written when the draughts one-ply player was called "greedy" (now "recapture"), before the
    league and the rollout settings, resumes with its pool; a new run refuses the directory."""
    import torch

    kw = dict(
        num_envs=8,
        net_arch=(8,),
        ckpt_every=1024,
        eval_every=0,
        eval_games=4,
        tensorboard=False,
        log=lambda text: None,
        n_steps=128,
        batch_size=1024,
        n_epochs=4,
        league=False,
    )
    train_ppo("draughts", 1024, tmp_path, **kw)
    lines = [json.loads(t) for t in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["steps"] for m in lines] == [1024] and set(lines[0]) >= {"random", "recapture"}
    with pytest.raises(ValueError, match="is not empty"):
        train_ppo("draughts", 1024, tmp_path, **kw)
    state = torch.load(tmp_path / "resume.pt", weights_only=False)
    state["pool"]["current"] = "greedy"  # as an older run saved it
    for key in ("opponents", "n_steps", "batch_size", "n_epochs", "pfsp"):  # not in older runs
        del state["setup"][key]
    torch.save(state, tmp_path / "resume.pt")
    steps = []
    model = train_ppo(
        "draughts",
        2048,
        tmp_path,
        resume=True,
        progress=lambda done, total: steps.append((done, total)),
        **{**kw, "league": True, "n_steps": 64},
    )  # the checkpoint's settings win
    assert model.num_timesteps == 2048 and steps[-1] == (1024, 1024)
    lines = [json.loads(t) for t in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [m["steps"] for m in lines] == [1024, 2048]
    pool = OpponentPool(baselines=("random", "recapture"))
    with pytest.raises(ValueError, match="'minimax' is not a player of this pool"):
        pool.set_state(
            {"rng": pool.rng.bit_generator.state, "current": "minimax", "snapshots": []}, None
        )


@pytest.mark.parametrize(
    "field,value",
    [
        ("game", "chess"),
        ("total_steps", -1),
        ("num_envs", 0),
        ("pool_size", 0),
        ("eval_games", 0),
        ("max_moves", 0),
        ("n_steps", 0),
        ("batch_size", 0),
        ("n_epochs", 0),
        ("snapshot_every", -1),
        ("ckpt_every", -1),
        ("eval_every", -1),
        ("num_envs", 8.5),
        ("seed", "0"),
        ("net_arch", (16, 0)),
        ("pfsp", "soft"),
        ("teacher_games", -1),
    ],
)
def test_a_bad_setting_is_refused_by_name_before_the_run_dir_is_touched(tmp_path, field, value):
    base = {"game": "draughts", "total_steps": 1024, "run_dir": tmp_path / "run"}
    if field.startswith("teacher_"):
        base["teacher"] = "greedy"
    with pytest.raises(ValueError, match=field):
        PPOSettings(**{**base, field: value})
    with pytest.raises(ValueError, match=field):
        train_ppo(**{**base, field: value}, log=lambda text: None)
    assert not (tmp_path / "run").exists()


def test_train_ppo_takes_the_settings_fields_and_defaults():
    """train_ppo's arguments are PPOSettings' fields (same order and defaults) and the two
    callbacks; setup() is what a checkpoint keeps."""
    import dataclasses
    import inspect

    params = inspect.signature(train_ppo).parameters
    fields = dataclasses.fields(PPOSettings)
    assert [p for p in params if p not in ("log", "progress")] == [f.name for f in fields]
    for f in fields:
        want = inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        assert params[f.name].default == want, f.name
    setup = PPOSettings("backgammon", 10, "run", net_arch=(8, 4), league=False).setup()
    assert setup["net_arch"] == [8, 4] and setup["opponents"] == "pool"
    assert setup["teacher"] is None and setup["seed"] == 0
