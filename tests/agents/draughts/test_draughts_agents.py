"""Draughts agents: legal play from either seat, the observation adapter, chains played
hop by hop, best_move, load() and use as a Gymnasium opponent."""

import gymnasium as gym
import numpy as np
import pytest

import boardgym  # noqa: F401  (registers the envs)
from boardgym.agents import AlphaBetaAgent, DraughtsGreedyAgent, RandomAgent, available, load
from boardgym.agents.draughts.agents import state_from_observation
from boardgym.envs import draughts as api
from boardgym.envs import russian_draughts_v0
from boardgym.kernels.draughts.board import (
    GHOST_TO_SQ32,
    S_BK,
    S_BM,
    S_CAP_JUMPED,
    S_CAP_SQ,
    S_SIDE,
    S_WK,
    S_WM,
    SQ32_TO_GHOST,
)
from boardgym.kernels.draughts.codec import legal_action_mask
from boardgym.kernels.draughts.game import VIEW_ACTION


def _rotate(bb):
    """Bitboard turned 180 degrees (sq32 -> 31 - sq32)."""
    out = 0
    x = int(bb)
    while x:
        g = (x & -x).bit_length() - 1
        x &= x - 1
        out |= 1 << int(SQ32_TO_GHOST[31 - GHOST_TO_SQ32[g]])
    return out


def _random_walk(seed, steps, on_step):
    """Random AEC play with a seeded generator; on_step(env) is called before every action."""
    rng = np.random.default_rng(seed)
    env = russian_draughts_v0.raw_env(max_moves=200)
    env.reset(seed=seed)
    for _ in range(steps):
        if env.is_over:
            env.reset(seed=int(rng.integers(2**31)))
        on_step(env)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_observation_adapter_rebuilds_the_position_and_its_legal_actions():
    seen = {"mid": 0, "black": 0, "n": 0}

    def check(env):
        agent = env.agent_selection
        side = int(env.state[S_SIDE])
        obs = env.observe(agent)
        s = state_from_observation(obs["observation"])
        own = (S_WM, S_WK) if side == 0 else (S_BM, S_BK)
        opp = (S_BM, S_BK) if side == 0 else (S_WM, S_WK)
        turn = (lambda b: int(b)) if side == 0 else _rotate
        assert [int(s[i]) for i in (S_WM, S_WK, S_BM, S_BK)] == [
            turn(env.state[i]) for i in own + opp
        ]
        assert s[S_SIDE] == 0  # the observer is to move and plays White in its own frame
        mask = np.zeros(1024, np.int8)
        legal_action_mask(s, mask)
        np.testing.assert_array_equal(mask, obs["action_mask"])
        if env.state[S_CAP_SQ] >= 0:
            seen["mid"] += 1
            assert s[S_CAP_JUMPED] == turn(env.state[S_CAP_JUMPED])
        seen["black"] += side
        seen["n"] += 1

    _random_walk(0, 3000, check)
    assert seen["mid"] > 50 and seen["black"] > 1000


@pytest.mark.parametrize(
    "make",
    [lambda: DraughtsGreedyAgent(seed=1), lambda: AlphaBetaAgent(depth=2, seed=1, tt_bits=12)],
    ids=["greedy", "alphabeta"],
)
def test_agents_play_only_legal_actions_from_either_seat(make):
    by_obs, by_state = make(), make()
    count = {"n": 0, "black": 0}

    def check(env):
        obs = env.observe(env.agent_selection)
        by_obs.reset()
        by_state.reset()
        a = by_obs.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][a] == 1
        b = by_state.act_state(env.state)
        assert obs["action_mask"][b] == 1
        count["n"] += 1
        count["black"] += int(env.state[S_SIDE])

    _random_walk(1, 1500, check)
    assert count["black"] > 500


def _play_chain(agent, fen, use_state):
    """Let agent play its whole move from fen in the AEC env; return the PDN move played."""
    env = russian_draughts_v0.raw_env()
    env.reset(options={"fen": fen})
    mover = env.agent_selection
    agent.reset()
    while env.agent_selection == mover and not env.is_over:
        obs = env.observe(mover)
        a = (
            agent.act_state(env.state)
            if use_state
            else agent.act(obs["observation"], obs["action_mask"])
        )
        env.step(a)
    return env.moves[-1]


@pytest.mark.parametrize("use_state", [False, True])
@pytest.mark.parametrize(
    "fen",
    [
        "W:WK29:B5,19,22",  # 25.4: a1:e5:g3 / a1:e5:h2
        "B:W15,17,21,K23,25,26,30:BK32",  # 25.2/25.4 Turkish strike, four chains
        "W:W22,28:B4,11,17,18",  # 25.2 free choice: c3:a5 or c3:e5:g7
        "B:W25,26,28:B5,23",  # 25.5 for Black: e3:c1:a3
    ],
)
def test_a_chosen_chain_is_played_hop_by_hop_as_one_move(fen, use_state):
    for seed in range(3):
        for agent in (
            AlphaBetaAgent(depth=4, seed=seed, tt_bits=12),
            DraughtsGreedyAgent(seed=seed),
        ):
            played = _play_chain(agent, fen, use_state)
            assert played in api.legal_moves(fen)
            agent.reset()
            agent.seed(seed)
            if isinstance(agent, AlphaBetaAgent):  # deterministic for a seed
                fresh = AlphaBetaAgent(depth=4, seed=seed, tt_bits=12)
                assert fresh.best_move(fen) == played


def test_agent_finishes_a_chain_it_did_not_start():
    # Black king g1 must capture d4 first (Turkish strike example); a random first hop is
    # played by someone else, then the agent continues from the chain in progress.
    fen = "B:W15,17,21,K23,25,26,30:BK32"
    for seed in range(4):
        env = russian_draughts_v0.raw_env()
        env.reset(options={"fen": fen})
        rng = np.random.default_rng(seed)
        mask = env.observe("player_1")["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.agent_selection == "player_1" and env.state[S_CAP_SQ] >= 0
        agent = AlphaBetaAgent(depth=3, seed=seed, tt_bits=12)
        while env.agent_selection == "player_1" and not env.is_over:
            obs = env.observe("player_1")
            env.step(agent.act(obs["observation"], obs["action_mask"]))
        assert env.moves[-1] in api.legal_moves(fen)


def test_best_move_gives_a_legal_pdn_move_and_rejects_bad_fens():
    rng = np.random.default_rng(4)
    s = api.initial_state()
    agents = [
        DraughtsGreedyAgent(seed=0),
        AlphaBetaAgent(depth=3, seed=0, tt_bits=12),
        RandomAgent(seed=0),
    ]  # every draughts agent answers best_move (PPO: tests/agents/training/test_ppo.py)
    for _ in range(60):
        if api.game_status(s) != 0:
            s = api.initial_state()
        fen = api.to_fen(s)
        for agent in agents:
            assert agent.best_move(fen) in api.legal_moves(fen)
        s = api.apply(s, str(rng.choice(api.legal_moves(s))))
    with pytest.raises(ValueError, match="over"):
        agents[1].best_move("W:W:B1")  # G.1: White has no piece
    with pytest.raises(ValueError, match="bad FEN"):
        agents[0].best_move("W:W33:B1")
    for agent in agents[::2]:
        with pytest.raises(ValueError, match="over"):
            agent.best_move("W:W:B1")
    picks = {RandomAgent(seed=k).best_move("W:W21-32:B1-12") for k in range(40)}
    assert picks == set(api.legal_moves("W:W21-32:B1-12"))  # uniform over the 7 opening moves


def test_bad_input_gives_value_and_type_errors():
    agent = AlphaBetaAgent(depth=2, tt_bits=8)
    env = russian_draughts_v0.raw_env()
    env.reset(seed=0)
    obs = env.observe("player_1")  # not to move
    with pytest.raises(ValueError, match="not of the player to move"):
        agent.act(obs["observation"], obs["action_mask"])
    with pytest.raises(ValueError, match="float32"):
        agent.act(np.zeros(10, np.float32), None)
    with pytest.raises(TypeError, match="int64"):
        agent.act_state(np.zeros(5))
    bad = api.initial_state()
    bad[S_WM] |= bad[S_BM]  # two pieces on a square
    with pytest.raises(ValueError, match="two pieces"):
        agent.act_state(bad)
    with pytest.raises(ValueError, match="game is over"):
        agent.act_state(api.from_fen("W:W:B1"))
    with pytest.raises(ValueError, match="depth"):
        AlphaBetaAgent(depth=0)
    with pytest.raises(ValueError, match="depth, a time_limit"):
        AlphaBetaAgent(depth=None)
    with pytest.raises(ValueError, match="tt_bits"):
        AlphaBetaAgent(tt_bits=40)


def test_load_names_and_errors():
    assert isinstance(load("random"), RandomAgent)
    assert isinstance(load("random", game="backgammon"), RandomAgent)
    assert isinstance(load("greedy", game="draughts"), DraughtsGreedyAgent)
    assert isinstance(load("draughts-greedy", seed=3), DraughtsGreedyAgent)
    ab = load("draughts-alphabeta-material", depth=3, seed=1)
    assert isinstance(ab, AlphaBetaAgent) and ab.depth == 3
    assert load("alphabeta-material", game="draughts").depth == 6
    assert "draughts-alphabeta-material" in available()
    assert set(available("draughts")) >= {"random", "greedy", "alphabeta-material"}
    if "greedy" not in available("backgammon"):
        with pytest.raises(ValueError, match="available for backgammon: .*random"):
            load("greedy", game="backgammon")
    with pytest.raises(ValueError, match="needs a game"):
        load("greedy")
    with pytest.raises(ValueError, match="unknown draughts agent 'nope'.*greedy"):
        load("draughts-nope")
    with pytest.raises(ValueError, match="is a draughts agent, not a backgammon one"):
        load("draughts-greedy", game="backgammon")
    learned = load("draughts-alphabeta", depth=2)
    assert learned.evaluation.kind == 3 and learned.best_move("W:W21-32:B1-12") in api.legal_moves(
        "W:W21-32:B1-12"
    )
    with pytest.raises(ValueError, match="no evaluation file"):
        load("draughts-alphabeta", weights="/nonexistent/eval.npz")
    td = load("draughts-alphabeta-td", depth=2)  # the shipped TD(lambda) self-play net
    assert td.evaluation.kind == 2 and td.evaluation.w1.shape == (80, 198)
    assert td.best_move("W:W21-32:B1-12") in api.legal_moves("W:W21-32:B1-12")
    with pytest.raises(ValueError, match="draughts-alphabeta-td: no evaluation file"):
        load("alphabeta-td", game="draughts", weights="/nonexistent/eval.npz")
    with pytest.raises(ValueError, match="unknown game"):
        load("random", game="chess")


@pytest.mark.parametrize("name", ["greedy", "alphabeta-material"])
def test_loaded_agents_serve_as_gymnasium_opponents(name):
    opp = load(name, game="draughts", **({"depth": 2} if "alpha" in name else {}))
    env = gym.make("boardgym/RussianDraughts-v0", opponent=opp, max_moves=120)
    learner = RandomAgent(seed=0)
    for seed in range(4):  # "alternate" seats: the opponent plays both colours
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, rew, term, trunc, info = env.step(learner.act(obs, info["action_mask"]))
            done = term or trunc
        assert not info.get("illegal_action", False)


def test_view_action_matches_the_kernel_frame_for_black():
    # act_state returns the mover's frame: for Black the kernel action turned round.
    fen = "B:W25,26,28:B5,23"
    agent = AlphaBetaAgent(depth=2, tt_bits=8)
    s = api.from_fen(fen)
    a = agent.act_state(s)
    assert api.action_mask(s)[VIEW_ACTION[1, a]] == 1


@pytest.mark.parametrize(
    "make",
    [lambda: DraughtsGreedyAgent(seed=0), lambda: AlphaBetaAgent(depth=2, tt_bits=8)],
    ids=["greedy", "alphabeta"],
)
def test_agent_entry_points_check_their_input(make):
    agent = make()
    s = api.initial_state()
    for bad, exc in (
        (None, TypeError),
        ("W:W21-32:B1-12", TypeError),
        (s.astype(np.int32), TypeError),
        (s.astype(bool), TypeError),
        (np.stack([s, s]), ValueError),
        (s[:40], ValueError),
    ):
        with pytest.raises(exc):
            agent.act_state(bad)
        with pytest.raises(exc):
            agent.choose_move(bad)
    corrupt = s.copy()
    corrupt[S_CAP_SQ] = 2**62
    with pytest.raises(ValueError, match="capture square"):
        agent.act_state(corrupt)
    obs = np.zeros(198, np.float32)
    for bad, exc in (
        (None, TypeError),
        ("obs", TypeError),
        (obs.astype(bool), TypeError),
        (obs[:50], ValueError),
        (np.full(198, 2.0, np.float32), ValueError),
    ):
        with pytest.raises(exc, match="observation"):
            agent.act(bad, None)
    env = russian_draughts_v0.raw_env()
    env.reset(seed=0)
    o = env.observe("player_0")
    for bad, exc in (
        ("mask", TypeError),
        (o["action_mask"][:10], ValueError),
        (o["action_mask"].astype(float), TypeError),
    ):
        with pytest.raises(exc, match="action_mask"):
            agent.act(o["observation"], bad)
    for bad, exc in (
        (None, TypeError),
        (42, TypeError),
        ("W:W99:B1", ValueError),
        ("nonsense", ValueError),
    ):
        with pytest.raises(exc):
            agent.best_move(bad)
    assert agent.act(o["observation"], o["action_mask"].astype(bool)) in np.flatnonzero(
        o["action_mask"]
    )


def test_search_checks_depth_and_state():
    agent = AlphaBetaAgent(depth=2, tt_bits=8)
    s = api.initial_state()
    with pytest.raises(TypeError, match="depth"):
        agent.search(s, depth=True)
    with pytest.raises(TypeError, match="depth"):
        agent.search(s, depth=2.0)
    with pytest.raises(ValueError, match="depth"):
        agent.search(s, depth=0)
    with pytest.raises(ValueError, match="game is over"):
        agent.search(api.from_fen("W:W:B1"), depth=2)
    with pytest.raises(TypeError):
        agent.search(None, depth=2)
    i, _ = agent.search(s, depth=2)
    assert 0 <= i < 7
