"""Draughts TD(lambda) value net: gradients, TD learning, play against the in-kernel
players, the exported search evaluation, the TD trainer's exact resume."""

import dataclasses
import json

import numpy as np
import pytest
from train_runs import killed_and_resumed_td_run

from boardgym.agents import load
from boardgym.agents.draughts import td as tdd
from boardgym.agents.draughts.evaluation import EVAL_MLP, Evaluation, net_eval
from boardgym.agents.training import td as training_td
from boardgym.envs import russian_draughts_v0
from boardgym.kernels.draughts.board import S_SIDE
from boardgym.kernels.draughts.game import initial_state
from boardgym.kernels.draughts.observe import OBS_LEN
from boardgym.kernels.draughts.opponents import opponent_move
from boardgym.kernels.draughts.outcome import BLACK_WON, ONGOING, WHITE_WON, game_status
from boardgym.kernels.players import OPP_GREEDY, OPP_RANDOM
from boardgym.kernels.rng import seed_rngs


def _positions(n_games, seed, p_random=0.5):
    """Positions of decided games between two material-greedy players that each play a random
    move with probability p_random (kernels/draughts/batch players), each with the game's
    result from its side to move's view (1 or -1)."""
    rng = seed_rngs(seed, 1)
    pick = np.random.default_rng(seed)
    scratch = np.empty(1024, dtype=np.int8)
    states, results = [], []
    while n_games > 0:
        s = initial_state()
        game = []
        code = game_status(s)
        while code == ONGOING and len(game) < tdd.MAX_PLIES:
            game.append(s)
            opp = OPP_RANDOM if pick.random() < p_random else OPP_GREEDY
            s = opponent_move(s, opp, rng, 0, scratch)
            code = game_status(s)
        if code not in (WHITE_WON, BLACK_WON):
            continue
        n_games -= 1
        white = 1.0 if code == WHITE_WON else -1.0
        for p in game:
            states.append(p)
            results.append(white if p[S_SIDE] == 0 else -white)
    return states, np.array(results)


def _mse(params, states, results):
    v = np.array([tdd.value(*params, s) for s in states])
    return float(((v - results) ** 2).mean())


# ----------------------------------------------------------------------------- the net


def _some_position():
    s = initial_state()
    rng = seed_rngs(5, 1)
    scratch = np.empty(1024, dtype=np.int8)
    for _ in range(9):
        s = opponent_move(s, OPP_RANDOM, rng, 0, scratch)
    return s


def test_gradients_match_finite_differences():
    params = tdd.init_params(7, seed=3, scale=0.3)
    w1, b1, w2, b2 = params
    b1 += 0.1
    b2 += 0.2
    s = _some_position()
    obs = np.empty(OBS_LEN, dtype=np.float32)
    idx = np.empty(OBS_LEN, dtype=np.int64)
    val = np.empty(OBS_LEN)
    h = np.empty(7)
    nnz = tdd.encode_sparse(s, obs, idx, val)
    assert nnz == np.count_nonzero(obs) and obs[192] == 1.0  # the side to move's view
    y = tdd.forward_sparse(*params, idx, val, nnz, h)
    assert y == pytest.approx(tdd.value(*params, s))
    grads = [np.zeros_like(p) for p in params]
    tdd.add_grad(w2, h, idx, val, nnz, 1.0, *grads)
    eps = 1e-6
    checked = 0
    for p, g in zip(params, grads):
        flat, gflat = p.reshape(-1), g.reshape(-1)
        ks = np.flatnonzero(gflat) if p is w1 else range(flat.size)
        assert len(ks) > 0
        for k in list(ks)[:: max(1, len(ks) // 30)]:
            keep = flat[k]
            flat[k] = keep + eps
            up = tdd.value(*params, s)
            flat[k] = keep - eps
            down = tdd.value(*params, s)
            flat[k] = keep
            assert abs((up - down) / (2 * eps) - gflat[k]) < 1e-7, (p.shape, k)
            checked += 1
    # inputs that are zero have zero gradient in W1
    assert np.count_nonzero(grads[0].any(axis=1)) == nnz
    assert checked > 40


def test_trace_path_with_tiny_lambda_equals_td0_path():
    a = tdd.init_params(10, seed=5)
    b = tuple(p.copy() for p in a)
    sa, sb = np.zeros(tdd.N_STATS), np.zeros(tdd.N_STATS)
    tdd.train_games(*a, seed_rngs(9, 1), 3, 0.01, 0.0, 0.1, sa)
    tdd.train_games(*b, seed_rngs(9, 1), 3, 0.01, 1e-300, 0.1, sb)
    for p, q in zip(a, b):
        assert np.allclose(p, q, atol=1e-9)
    assert np.array_equal(sa[:2], sb[:2]) and sa[tdd.ST_GAMES] == 3
    assert not np.allclose(a[0], tdd.init_params(10, seed=5)[0])


@pytest.mark.parametrize("lam, games", [(0.0, 3000), (0.7, 3000)])
def test_td_learning_reduces_outcome_prediction_error(lam, games):
    states, results = _positions(30, seed=11)
    assert len(states) > 600 and 0.3 < (results > 0).mean() < 0.7
    params = tdd.init_params(20, seed=2)
    before = _mse(params, states, results)
    st = np.zeros(tdd.N_STATS)
    tdd.train_games(*params, seed_rngs(1, 1), games, 0.01, lam, 0.05, st)
    after = _mse(params, states, results)
    assert st[tdd.ST_GAMES] == games
    # mean squared error of V against the real results of these positions; measured (seed 11):
    # 1.000 -> 0.763 (lam 0), 0.745 (lam 0.7); the untrained net says about 0 everywhere
    assert after < 0.88 * before, (before, after)


def test_the_exported_evaluation_is_the_net_in_search_units(tmp_path):
    params = tdd.init_params(6, seed=1, scale=0.5)
    params[3][0] = 0.05
    ev = tdd.to_evaluation(params)
    assert ev.kind == EVAL_MLP and ev.w1.shape == (6, OBS_LEN) and ev.scale == tdd.SCALE
    ev.save(tmp_path / "e.npz")
    back = Evaluation.load(tmp_path / "e.npz")
    obs = np.empty(OBS_LEN, dtype=np.float32)
    s = initial_state()
    rng = seed_rngs(2, 1)
    scratch = np.empty(1024, dtype=np.int8)
    for _ in range(30):
        score = net_eval(s, back.kind, *back.arrays(), obs)
        assert abs(score - tdd.SCALE * tdd.value(*params, s)) <= 0.5 + 1e-9
        s = opponent_move(s, OPP_RANDOM, rng, 0, scratch)
    with pytest.raises(ValueError, match="shapes"):
        tdd.to_evaluation((params[0].T, *params[1:]))


def test_short_training_beats_random_and_drives_alphabeta(tmp_path):
    params = tdd.init_params(40, seed=0)
    st = np.zeros(tdd.N_STATS)
    tdd.train_games(*params, seed_rngs(0, 1), 8000, 0.01, 0.0, 0.05, st)
    pts = np.zeros(100)
    tdd.play_match(*params, OPP_RANDOM, seed_rngs(4, 1), 100, tdd.MAX_PLIES, pts)
    assert (pts > 0).mean() >= 0.8, pts.mean()
    assert (pts[0::2] > 0).mean() >= 0.7 and (pts[1::2] > 0).mean() >= 0.7  # as White and Black
    untrained = np.zeros(100)
    tdd.play_match(
        *tdd.init_params(40, seed=0), OPP_RANDOM, seed_rngs(4, 1), 100, tdd.MAX_PLIES, untrained
    )
    assert (untrained > 0).mean() < (pts > 0).mean()
    path = tmp_path / "td.npz"
    tdd.to_evaluation(params).save(path)
    agent = load("draughts-alphabeta", weights=path, depth=2, tt_bits=12, seed=0)
    assert agent.evaluation.kind == EVAL_MLP
    env = russian_draughts_v0.raw_env(max_moves=60)
    env.reset(seed=0)
    rnd = np.random.default_rng(0)
    moves = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if name == "player_0":
            a = agent.act(obs["observation"], obs["action_mask"])
        else:
            a = int(rnd.choice(np.flatnonzero(obs["action_mask"])))
        assert obs["action_mask"][a] == 1
        env.step(a)
        moves += 1
    assert moves > 10


def test_play_match_counts_capped_games_as_draws():
    params = tdd.init_params(8, seed=0)
    pts = np.full(6, 9.0)
    tdd.play_match(*params, OPP_GREEDY, seed_rngs(0, 1), 6, 2, pts)
    assert np.all(pts == 0.0)  # two plies: every game capped, a draw
    tdd.play_match(*params, OPP_RANDOM, seed_rngs(0, 1), 6, 200, pts)
    assert set(pts) <= {-1.0, 0.0, 1.0}


# ----------------------------------------------------------------------------- the TD trainer


def test_train_resume_after_a_kill_matches_uninterrupted_run(tmp_path, capsys, monkeypatch):
    common = training_td.TDSettings(
        game="draughts",
        hidden=8,
        seed=3,
        alpha=0.01,
        lam=0.5,
        ckpt_every=20,
        eval_every=40,
        eval_games=10,
        games=80,
    )
    full, metrics = killed_and_resumed_td_run(
        training_td.train_draughts_td, common, tmp_path, monkeypatch, ("random", "recapture")
    )
    assert not np.array_equal(full[0], tdd.init_params(8, 3)[0])
    z = np.load(tmp_path / "b" / "latest.npz")
    assert int(z["games"]) == 80 and z["stats"][tdd.ST_GAMES] == 80
    out = capsys.readouterr().out
    assert "games/s" in out and "ETA" in out and "vs recapture" in out and "resumed" in out
    assert metrics("a")[0]["random"]["games"] == 10
    ev = Evaluation.load(tmp_path / "a" / "games_80.npz")
    assert np.array_equal(ev.w1, full[0].T) and ev.scale == tdd.SCALE
    assert load("draughts-alphabeta", weights=tmp_path / "a" / "games_80.npz", depth=1)
    cfg = training_td.TDSettings(
        game="draughts",
        hidden=4,
        games=2,
        ckpt_every=2,
        eval_every=0,
        tensorboard=False,
        ckpt_dir=str(tmp_path / "d"),
    )
    training_td.train_draughts_td(cfg, log=lambda text: None)
    saved = json.loads(str(np.load(tmp_path / "d" / "latest.npz")["settings"]))
    assert saved["alpha"] == 0.003 and saved["epsilon"] == 0.05  # the draughts defaults
    assert dataclasses.asdict(cfg) == saved


def test_trainer_kernels_check_their_buffers_first():
    """The jitted loops index rng, stats and points and update the weights in place: their
    Python entry points refuse what a kernel would read out of bounds or silently not update."""
    params = tdd.init_params(8, seed=0)
    rng, stats = seed_rngs(0, 1), np.zeros(tdd.N_STATS)
    with pytest.raises(ValueError, match="points needs at least 5"):
        tdd.play_match(*params, OPP_RANDOM, rng, 5, 10, np.zeros(3))
    with pytest.raises(ValueError, match="opponent"):
        tdd.play_match(*params, 7, rng, 2, 10, np.zeros(2))
    with pytest.raises(TypeError, match="rng"):
        tdd.play_match(*params, OPP_RANDOM, np.zeros(1), 2, 10, np.zeros(2))
    with pytest.raises(ValueError, match="rng needs"):
        tdd.train_games(*params, np.zeros(0, np.int64), 1, 0.01, 0.0, 0.1, stats)
    with pytest.raises(ValueError, match="stats needs"):
        tdd.train_games(*params, rng, 1, 0.01, 0.0, 0.1, np.zeros(2))
    with pytest.raises(TypeError, match="writable C-contiguous float64"):
        tdd.train_games(params[0].astype(np.float32), *params[1:], rng, 1, 0.01, 0.0, 0.1, stats)
    with pytest.raises(ValueError, match="lam"):
        tdd.train_games(*params, rng, 1, 0.01, 1.5, 0.1, stats)
    with pytest.raises(TypeError, match="n_games"):
        tdd.train_games(*params, rng, 1.0, 0.01, 0.0, 0.1, stats)
    with pytest.raises(ValueError, match="shapes"):
        tdd.value(params[0][:5], *params[1:], initial_state())
    with pytest.raises(ValueError, match="two pieces"):
        bad = initial_state().copy()
        bad[0] |= bad[2]
        tdd.value(*params, bad)
