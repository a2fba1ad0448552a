"""Kickstarting (boardgym.agents.training.kickstart): the teacher's labels are its own moves,
cloning lowers the held-out cross-entropy, masks hold, bad teacher specs are refused by name, and
a run killed in the teacher phase resumes exactly."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from boardgym.agents.arena import playouts  # noqa: E402
from boardgym.agents.training import kickstart as ks  # noqa: E402
from boardgym.agents.training.ppo import train_ppo  # noqa: E402


def _mask(data, n_actions):
    return np.unpackbits(data["legal"], axis=1, count=n_actions).astype(bool)


def test_draughts_labels_are_the_teachers_moves_hop_by_hop():
    """Each game's first move: the labelled hops (a capture chain is several) spell the move
    that a fresh teacher with the game's seed gives as best_move; every label is legal."""
    from boardgym.envs import draughts as api
    from boardgym.kernels.draughts import game
    from boardgym.kernels.draughts.board import MAX_HOPS, MAX_MOVES, ROW_LEN
    from boardgym.kernels.draughts.movegen import gen_moves

    spec = "draughts-alphabeta:depth=2"
    parsed = ks.parse_teacher("draughts", spec)
    openings = playouts.ballot_positions()
    data = ks.teacher_chunk("draughts", parsed, 3, 1, n_games=6, explore=0.0, openings=openings)
    assert _mask(data, game.N_ACTIONS)[np.arange(len(data["actions"])), data["actions"]].all()
    assert np.array_equal(data["played"], data["actions"])  # explore 0: the teacher plays
    core_seed, agent_seed, _, _ = ks.chunk_seeds(3, 1)
    core = ks._core("draughts", 6, openings, 300)
    core.reset(core_seed)
    rows, hops = np.zeros((MAX_MOVES, ROW_LEN), np.int64), np.zeros(MAX_HOPS, np.int64)
    for k in range(6):
        mine = np.flatnonzero(data["games"] == k)
        first = data["movers"][mine[0]]
        n_hops = int(np.argmax(data["movers"][mine] != first))  # positions until the turn passes
        labels = data["actions"][mine[:n_hops]].tolist()
        state = core.states[k].copy()
        routes = {}
        for i in range(gen_moves(state, rows)):
            m = game.route_actions(state, rows[i], hops)
            routes[tuple(hops[:m].tolist())] = api.move_to_str(state, rows[i])
        teacher = ks.make_teacher("draughts", parsed, seed=agent_seed + k)
        assert routes[tuple(labels)] == teacher.best_move(api.to_fen(state))
    # later in the games a capture chain is labelled hop by hop: one mover at several positions
    # in a row of one game
    assert any((np.diff(data["movers"][data["games"] == k]) == 0).any() for k in range(6))


def test_backgammon_labels_follow_the_teachers_play_routes():
    """Every play of td (plies=0, no random tie-breaks) in the positions: the labels of its
    steps are the route of the play a fresh TDAgent chooses from the observation."""
    from boardgym.agents.backgammon.agents import state_from_observation
    from boardgym.kernels.backgammon import game

    parsed = ks.parse_teacher("backgammon", "td:plies=0")
    data = ks.teacher_chunk("backgammon", parsed, 0, 0, n_games=2, explore=0.0)
    assert _mask(data, game.N_ACTIONS)[np.arange(len(data["actions"])), data["actions"]].all()
    order = np.argsort(data["games"], kind="stable")  # each game's positions in turn
    movers, games, obs, labels = (data[k][order] for k in ("movers", "games", "obs", "actions"))
    starts = np.flatnonzero(np.r_[True, (movers[1:] != movers[:-1]) | (games[1:] != games[:-1])])
    checked = 0
    teacher = ks.make_teacher("backgammon", parsed)  # its plan ends with each play
    for a, b in zip(starts[:40], np.r_[starts[1:], len(labels)][:40]):
        s = state_from_observation(obs[a])
        route = [teacher.act_state(state_from_observation(obs[i])) for i in range(a, b)]
        assert route == labels[a:b].tolist()
        assert game.dice_of(s)[0] > 0  # a play starts with the whole roll
        checked += 1
    assert checked == 40


def _policy(game, net=(32,)):
    from sb3_contrib import MaskablePPO

    from boardgym.agents.ppo import _sparse_policy_class, _torch_threads
    from boardgym.envs.vector import make_sb3_vec_env

    _torch_threads()  # one torch thread, as the trainer (several are far slower on 2 loaded cores)
    venv = make_sb3_vec_env(game, num_envs=2, opponent="random", threads=1)
    return MaskablePPO(
        _sparse_policy_class(), venv, seed=0, device="cpu", policy_kwargs={"net_arch": list(net)}
    ).policy


def test_cloning_lowers_the_held_out_cross_entropy_and_respects_masks(tmp_path):
    from boardgym.kernels.draughts.game import N_ACTIONS

    parsed = ks.parse_teacher("draughts", "greedy")
    for k in range(2):
        ks.save_chunk(
            tmp_path, k, ks.teacher_chunk("draughts", parsed, 0, k, n_games=24, explore=0.1)
        )
    data = ks.load_chunks(tmp_path, 2)
    train_idx, test_idx = ks.split(data)
    assert (
        test_idx.size
        and set(data["chunk"][test_idx]) == {0}
        and set(data["chunk"][train_idx]) == {1}
    )
    policy = _policy("draughts")
    before = ks.held_out(policy, data, test_idx, N_ACTIONS)
    for epoch in range(6):
        ks.clone_epoch(policy, data, train_idx, N_ACTIONS, 256, 3e-3, 0.5, 0, epoch)
    after = ks.held_out(policy, data, test_idx, N_ACTIONS)
    assert after[0] < before[0] - 0.2 and after[1] > before[1] + 0.1, (before, after)
    # the cloned policy's choices (sampled and greedy) are legal in every held-out position
    import torch

    obs, masks, _, _ = ks._batch(data, test_idx, N_ACTIONS)
    with torch.no_grad():
        for deterministic in (True, False):
            acts = policy.get_distribution(obs, action_masks=masks).get_actions(deterministic)
            assert masks[np.arange(len(acts)), acts.numpy()].all()


@pytest.mark.parametrize(
    "spec,match",
    [
        ("draughts-nonsense", "'draughts-nonsense' is not a draughts teacher"),
        ("backgammon-td", "'backgammon-td' is not a draughts teacher"),
        ("random", "'random' is not a draughts teacher"),
        ("alphabeta:depth=0", "teacher 'alphabeta:depth=0': depth must be"),
        ("alphabeta:depth", "teacher 'alphabeta:depth': bad agent option"),
        ("greedy:colour=red", "teacher 'greedy:colour=red'"),
    ],
)
def test_a_bad_teacher_spec_is_refused_by_name(spec, match, tmp_path):
    with pytest.raises(ValueError, match=match):
        ks.parse_teacher("draughts", spec)
    with pytest.raises(ValueError, match=match):  # before the run directory is touched
        train_ppo("draughts", 1024, tmp_path / "run", teacher=spec, log=lambda text: None)
    assert not (tmp_path / "run").exists()
    with pytest.raises(ValueError, match="teacher_explore must be in"):
        train_ppo(
            "draughts",
            1024,
            tmp_path / "x",
            teacher="greedy",
            teacher_explore=1.5,
            log=lambda text: None,
        )
    assert not (tmp_path / "x").exists()


def test_mix_weight_decays_to_zero():
    assert ks.mix_weight(0.5, 100, 0) == 0.5 and ks.mix_weight(0.5, 100, 50) == 0.25
    assert ks.mix_weight(0.5, 100, 100) == 0.0 and ks.mix_weight(0.0, 100, 0) == 0.0


def test_resume_after_kills_in_the_teacher_phase_is_exact(tmp_path):
    """A run killed while generating the teacher's positions, resumed, killed again while
    cloning and resumed once more ends as an uninterrupted run: weights, Adam's moments,
    metrics (the cloned policy's evaluation at step 0 included) and the league."""
    import torch

    class Killed(Exception):
        pass

    def killer(at):
        def log(text):
            if text.startswith(at):
                raise Killed

        return log

    kw = dict(
        num_envs=8,
        seed=5,
        snapshot_every=512,
        net_arch=(16,),
        ckpt_every=512,
        eval_every=1024,
        eval_games=4,
        n_steps=64,
        batch_size=256,
        tensorboard=False,
        openings=playouts.ballot_positions(),
        teacher="greedy",
        teacher_games=80,
        teacher_epochs=3,
        teacher_mix=0.5,
        teacher_mix_steps=1024,
    )
    full = train_ppo("draughts", 1024, tmp_path / "a", log=lambda text: None, **kw)
    run_b = tmp_path / "b"
    with pytest.raises(Killed):  # logged chunk 2, not yet checkpointed
        train_ppo("draughts", 1024, run_b, log=killer("teacher greedy: chunk 2/2"), **kw)
    assert torch.load(run_b / "resume.pt", weights_only=False)["counters"]["teacher_chunks"] == 1
    with pytest.raises(Killed):  # logged epoch 2, not yet checkpointed
        train_ppo("draughts", 1024, run_b, resume=True, log=killer("teacher: epoch 2/3"), **kw)
    saved = torch.load(run_b / "resume.pt", weights_only=False)
    assert saved["counters"]["teacher_epochs"] == 1 and saved["last_obs"] is None
    resumed = train_ppo("draughts", 1024, run_b, resume=True, log=lambda text: None, **kw)
    assert resumed.num_timesteps == full.num_timesteps == 1024
    for (name, p), q in zip(full.policy.state_dict().items(), resumed.policy.state_dict().values()):
        assert torch.equal(p, q), name
    for k in ("exp_avg", "exp_avg_sq"):
        assert all(
            torch.equal(full.policy.optimizer.state[p][k], resumed.policy.optimizer.state[q][k])
            for p, q in zip(full.policy.parameters(), resumed.policy.parameters())
        )

    def metrics(run):
        lines = [json.loads(t) for t in (tmp_path / run / "metrics.jsonl").read_text().splitlines()]
        return [{k: v for k, v in line.items() if k != "seconds"} for line in lines]

    assert [m["steps"] for m in metrics("a")] == [0, 1024] and metrics("a") == metrics("b")
    for run in ("a", "b"):
        assert sorted(p.name for p in (tmp_path / run / "teacher").iterdir()) == [
            "chunk_00000.npz",
            "chunk_00001.npz",
        ]
        with np.load(tmp_path / run / "teacher" / "chunk_00001.npz") as z:
            assert len(z["actions"]) > 0 and z["games"].max() == 15  # 80 games: 64 + 16
    # resuming with other teacher settings keeps the checkpoint's and says which differ
    logs = []
    train_ppo("draughts", 1024, run_b, resume=True, log=logs.append, **kw)
    assert not [t for t in logs if t.startswith("resume: keeping")]
    train_ppo(
        "draughts",
        1024,
        run_b,
        resume=True,
        log=logs.append,
        **{**kw, "teacher_games": 40, "teacher_lr": 0.01},
    )
    assert (
        "resume: keeping the checkpoint's teacher=greedy (games 80, not the given 40, "
        "lr 0.001, not the given 0.01)"
    ) in logs
