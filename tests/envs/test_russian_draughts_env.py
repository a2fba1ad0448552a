"""PettingZoo AEC and Gymnasium single-agent Russian draughts envs."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import boardgym  # noqa: F401  (registers the envs)
from boardgym.envs import draughts as api
from boardgym.envs import russian_draughts_v0
from boardgym.envs.draughts_pdn import game_to_pdn, read_pdn
from boardgym.envs.draughts_render import to_svg
from boardgym.kernels.draughts.game import VIEW_ACTION


def _play_random(env, seed, max_steps=10_000):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter(max_steps):
        obs, rew, term, trunc, info = env.last()
        action = None if (term or trunc) else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
    return steps


def test_pettingzoo_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(russian_draughts_v0.env(), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(russian_draughts_v0.env, num_cycles=500)


def test_pettingzoo_render_test():
    render_test(russian_draughts_v0.env)


def test_registered_with_pettingzoo_and_gymnasium():
    env = pettingzoo.make("aec", "boardgym/russian_draughts-v0")
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "russian_draughts_v0"
    genv = gym.make("boardgym/RussianDraughts-v0")
    obs, info = genv.reset(seed=0)
    assert obs.shape == (198,) and info["action_mask"].dtype == np.int8
    genv2 = gym.make("boardgym:boardgym/RussianDraughts-v0")
    assert genv2.reset(seed=0)[0].shape == (198,)


def test_spaces_are_the_same_objects_every_call():
    env = russian_draughts_v0.raw_env()
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_1") is env.action_space("player_1")


def test_mask_zero_for_agent_not_on_turn_and_masks_match_kernel():
    env = russian_draughts_v0.raw_env()
    env.reset(seed=0)
    assert env.observe("player_1")["action_mask"].sum() == 0
    mask = env.observe("player_0")["action_mask"]
    assert mask.dtype == np.int8
    assert sorted(np.flatnonzero(mask)) == api.legal_actions(api.initial_state())


def test_black_acts_in_turned_frame():
    """Black's actions and observation are White's turned 180 degrees: the start is symmetric."""
    env = russian_draughts_v0.raw_env()
    env.reset(seed=0)
    white_mask = env.observe("player_0")["action_mask"].copy()
    white_obs = env.observe("player_0")["observation"]
    env.step(int(np.flatnonzero(white_mask)[0]))  # c1? any White move
    env.reset(options={"fen": "B:W21-32:B1-12"})  # start position, Black to move
    black_mask = env.observe("player_1")["action_mask"]
    assert np.array_equal(black_mask, white_mask)
    assert np.array_equal(env.observe("player_1")["observation"][:128], white_obs[:128])
    # The kernel sees the turned actions.
    kernel = api.action_mask(api.from_fen("B:W21-32:B1-12"))
    assert np.array_equal(kernel[VIEW_ACTION[1]], black_mask)


def test_capture_chain_keeps_the_same_agent_on_turn():
    """25.2: the whole chain is one move; the env asks the same agent for every hop."""
    env = russian_draughts_v0.raw_env()
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})  # c3:e5:g7 or c3:a5
    c3, e5, g7 = (api.parse_square(s) for s in ("c3", "e5", "g7"))
    env.step(c3 * 32 + e5)
    assert env.agent_selection == "player_0"
    assert np.flatnonzero(env.observe("player_0")["action_mask"]).tolist() == [e5 * 32 + g7]
    env.step(e5 * 32 + g7)
    assert env.agent_selection == "player_1"
    assert env.moves == ["c3:e5:g7"]
    assert env.infos["player_0"]["last_move"] == "c3:e5:g7"


def test_win_rewards_and_cumulative_rewards():
    """G.1: Black cannot move after White's capture takes its last piece: +1 / -1."""
    env = russian_draughts_v0.env()
    env.reset(options={"fen": "W:W22:B18"})
    c3, e5 = api.parse_square("c3"), api.parse_square("e5")
    env.step(c3 * 32 + e5)
    assert env.terminations == {"player_0": True, "player_1": True}
    obs, rew, term, trunc, info = env.last()
    assert term and info["status"] == "white won"
    assert env.unwrapped.cumulative_rewards["player_1"] == -1.0
    env.step(None)
    obs, rew, term, trunc, info = env.last()
    assert rew == 1.0


def test_max_moves_truncates():
    env = russian_draughts_v0.raw_env(max_moves=6)
    env.reset(seed=1)
    steps = 0
    while not env.is_over:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        steps += 1
    assert env.truncations["player_0"] and not env.terminations["player_0"]
    assert len(env.moves) == 6


def test_draw_rule_options_switch_rules():
    """G.2a on: shuttling kings repeat the position and draw; with every draw rule off, play goes
    on."""
    sq = api.parse_square
    white = [sq("a1") * 32 + sq("b2"), sq("b2") * 32 + sq("a1")]
    black = [
        int(VIEW_ACTION[1, sq("h4") * 32 + sq("g5")]),
        int(VIEW_ACTION[1, sq("g5") * 32 + sq("h4")]),
    ]
    on = russian_draughts_v0.raw_env()
    off = russian_draughts_v0.raw_env(
        repetition=False, three_kings=False, kings_only=False, balance=False, long_diagonal=False
    )
    for env in (on, off):
        env.reset(options={"fen": "W:WKa1:BKh4"})
        for ply in range(40):
            if env.is_over:
                break
            env.step((white if ply % 2 == 0 else black)[(ply // 2) % 2])
    assert on.is_over and on.infos["player_0"]["status"] == "draw G.2a repetition"
    assert on.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert not off.is_over and len(off.moves) == 40


def test_bad_input():
    env = russian_draughts_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(5000)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(0)
    with pytest.raises(ValueError, match="bad FEN|unknown square"):
        env.reset(options={"fen": "W:W99:B1"})
    with pytest.raises(ValueError, match="max_moves"):
        russian_draughts_v0.raw_env(max_moves=0)
    with pytest.raises(ValueError, match="render_mode"):
        russian_draughts_v0.raw_env(render_mode="3d")
    with pytest.raises(TypeError, match="draw rule"):
        russian_draughts_v0.raw_env(repetition="yes")


def test_wrapped_env_illegal_action_terminates_with_penalty():
    env = russian_draughts_v0.env()
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(0)  # a1-a1: not legal
    assert all(env.terminations.values())
    assert env.rewards["player_0"] == -1


def test_render_modes_and_svg():
    env = russian_draughts_v0.raw_env(render_mode="ansi")
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})
    text = env.render()
    assert "a  b  c  d  e  f  g  h" in text and "White to move" in text
    env.step(api.parse_square("c3") * 32 + api.parse_square("e5"))
    assert "[w]" in env.render() and " x " in env.render()
    img = russian_draughts_v0.raw_env(render_mode="rgb_array")
    img.reset()
    pic = img.render()
    assert pic.dtype == np.uint8 and pic.shape[2] == 3 and pic.std() > 10
    svg = to_svg(api.initial_state())
    assert svg.startswith("<svg") and svg.count("<circle") == 24 + 1 + 2  # side to move, legend


def test_pdn_export_import_round_trip():
    env = russian_draughts_v0.raw_env()
    _play_random(env, seed=5)
    text = env.pdn(White="random", Black="random")
    assert '[GameType "25"]' in text
    tags, fen, moves, result, state = read_pdn(text)
    assert moves == env.moves and tags["White"] == "random"
    assert api.to_fen(state) == env.fen()
    x_tags, _, x_moves, _, x_state = read_pdn(env.pdn(capture_sep="x"))
    assert x_moves == [m.replace(":", "x") for m in env.moves] and api.to_fen(x_state) == env.fen()
    with pytest.raises(ValueError, match="capture_sep"):
        env.pdn(capture_sep="*")
    from boardgym.kernels.draughts.outcome import STATUS_NAMES

    assert result == {"white won": "2-0", "black won": "0-2"}.get(STATUS_NAMES[env.status()], "1-1")


@pytest.mark.parametrize("fen", [None, "B:W21,22,23,24,25,26:B5,6,7,8,9,10"])
def test_pdn_lines_never_end_with_a_move_number(fen):
    """The export wraps at 79 columns between moves: a move number stays with its move."""
    env = russian_draughts_v0.raw_env()
    number_at_end = re.compile(r"(^|\s)\d+\.(\.\.)?$")
    wrapped = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed, options={"fen": fen} if fen else None)
        while not env.is_over:
            env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
        for sep in (":", "x"):
            text = env.pdn(capture_sep=sep)
            body = text.split("\n\n", 1)[1].splitlines()
            wrapped += len(body) > 1
            for line in body:
                assert len(line) <= 79 and not number_at_end.search(line), line
            assert read_pdn(text)[2] == [m.replace(":", sep) for m in env.moves]
        if fen:
            assert body[0].startswith("1... ")
    assert wrapped >= 20  # long games: the wrapping is exercised


def test_pdn_from_a_setup_position_and_bad_pdn():
    text = game_to_pdn(["c3:e5:g7"], start_fen="W:W22,28:B4,11,17,18", result="*")
    assert '[FEN "' in text
    _, _, moves, _, _ = read_pdn(text)
    assert moves == ["c3:e5:g7"]
    with pytest.raises(ValueError, match="not legal"):
        game_to_pdn(["c3-d5"])
    with pytest.raises(ValueError, match="PDN move 2"):
        read_pdn('[GameType "25"]\n1. c3-d4 c3-d4 *')
    with pytest.raises(ValueError, match="GameType"):
        read_pdn('[GameType "20"]\n1. 32-28 *')
    assert read_pdn("1. c3-d4 {a {nested?} f6-g5 {x}{y} *")[2] == ["c3-d4", "f6-g5"]
    with pytest.raises(ValueError, match="never closed"):  # one pass: 200k braces, no rescans
        read_pdn("1. c3-d4 {" * 200_000)


def test_gymnasium_check_env_and_play():
    env = gym.make("boardgym/RussianDraughts-v0", opponent="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    obs, info = env.reset(seed=7)
    total, done = 0.0, False
    while not done:
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"])
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[-1]))
        total += r
        done = term or trunc
    assert total in (-1.0, 0.0, 1.0)


def test_gymnasium_opponents_and_seats():
    calls = []

    def first_legal(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[0])

    env = gym.make("boardgym/RussianDraughts-v0", opponent=first_legal, learner="player_1")
    obs, info = env.reset(seed=0)
    assert info["seat"] == "player_1" and calls  # White (the opponent) already moved
    seats = {gym.make("boardgym/RussianDraughts-v0").reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {"player_0", "player_1"}
    env = gym.make("boardgym/RussianDraughts-v0", illegal_action="terminate")
    env.reset(seed=0)
    obs, r, term, trunc, info = env.step(0)
    assert term and r == -1.0 and info["illegal_action"]
    with pytest.raises(ValueError):
        env.step(0)
    strict = gym.make("boardgym/RussianDraughts-v0", illegal_action="raise", learner="player_0")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(0)
    with pytest.raises(ValueError, match="opponent"):
        gym.make("boardgym/RussianDraughts-v0", opponent=42)


def test_random_games_reach_an_end():
    env = russian_draughts_v0.raw_env()
    for seed in range(5):
        _play_random(env, seed)
        assert env.is_over


def test_observation_layout():
    """Both players see their own men on squares 0..11 and the opponent's on 20..31 at the start."""
    env = russian_draughts_v0.raw_env(max_moves=100)
    env.reset()
    for player in ("player_0", "player_1"):
        obs = env.observe(player)["observation"]
        assert obs.shape == (198,) and obs.dtype == np.float32
        assert np.flatnonzero(obs[0:32]).tolist() == list(range(12))
        assert np.flatnonzero(obs[64:96]).tolist() == list(range(20, 32))
        assert obs[192] == (player == "player_0")
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})
    env.step(api.parse_square("c3") * 32 + api.parse_square("e5"))  # mid-chain
    obs = env.observe("player_1")["observation"]
    assert obs[128 + 31 - api.parse_square("e5")] == 1.0  # the capturing piece, seen by Black
    assert obs[160 + 31 - api.parse_square("d4")] == 1.0  # the piece it jumped
    assert obs[197] == 0.0  # no move played yet


def test_gymnasium_search_opponent_gets_the_kernel_state():
    from boardgym.agents import load

    seen = []
    agent = load("greedy", game="draughts", seed=0)
    original = agent.act_state

    def spy(state):
        seen.append(state.copy())
        return original(state)

    agent.act_state = spy
    env = gym.make("boardgym/RussianDraughts-v0", opponent=agent, learner="player_1")
    env.reset(seed=0)
    assert seen and seen[0].shape == api.initial_state().shape
    for _ in range(5):
        mask = env.unwrapped.action_masks()
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
        if term or trunc:
            break
    assert len(seen) >= 3


@pytest.mark.parametrize(
    "options,exc,problem",
    [
        ({"fen": None}, TypeError, "FEN must be a string"),
        ({"fen": 5}, TypeError, "FEN must be a string"),
        ({"fen": np.zeros(80, np.int64)}, TypeError, "FEN must be a string"),
        ({"fen": "W:Wb8:B1"}, ValueError, "promotion row"),
        ({"fen": "W:W1-13:B32"}, ValueError, "at most 12"),
        ("W:W21:B1", ValueError, "options must be a dict"),
    ],
)
def test_reset_options_are_checked(options, exc, problem):
    env = russian_draughts_v0.raw_env()
    with pytest.raises(exc, match=problem):
        env.reset(options=options)


@pytest.mark.parametrize(
    "kwargs,exc",
    [
        ({"max_moves": True}, TypeError),
        ({"max_moves": 1.5}, TypeError),
        ({"max_moves": "9"}, TypeError),
        ({"max_moves": -3}, ValueError),
        ({"max_moves": 2**70}, ValueError),
        ({"balance": 1}, TypeError),
        ({"long_diagonal": None}, TypeError),
    ],
)
def test_constructor_arguments_are_checked(kwargs, exc):
    with pytest.raises(exc, match="max_moves|draw rule"):
        russian_draughts_v0.raw_env(**kwargs)


def test_public_read_only_state_and_move_notation():
    """is_over / legal_mask() / n_legal / cumulative_rewards; the move list uses the one
    formatter (``c3:e5:g7`` for a chain, ``-`` for a quiet move)."""
    env = russian_draughts_v0.raw_env(max_moves=3)
    env.reset(options={"fen": "W:W22,28:B4,11,17,18"})
    mask = env.legal_mask()
    assert env.n_legal == mask.sum() == 2 and not env.is_over
    mask[:] = 0  # a copy: the env's own mask is untouched
    assert env.legal_mask().sum() == 2
    with pytest.raises(TypeError):
        env.cumulative_rewards["player_0"] = 5.0
    for a in ("c3-e5", "e5-g7"):
        env.step(api.str_to_action(a))
    env.step(int(np.flatnonzero(env.legal_mask())[0]))  # Black recaptures h8:f6
    env.step(int(np.flatnonzero(env.legal_mask())[0]))  # White's last man steps h2-g3
    assert env.moves == ["c3:e5:g7", "h8:f6", "h2-g3"]
    assert env.is_over and env.n_legal == 0 and env.truncations["player_0"]


def test_pdn_export_checks_its_input():
    with pytest.raises(ValueError, match="PDN tag"):
        game_to_pdn(["c3-d4"], White='say "hi"')
    with pytest.raises(ValueError, match="PDN tag"):
        game_to_pdn(["c3-d4"], White="two\nlines")
    with pytest.raises(TypeError, match="moves"):
        game_to_pdn("c3-d4")
    with pytest.raises(TypeError, match="move must be a string"):
        game_to_pdn([5])
    with pytest.raises(TypeError, match="FEN"):
        game_to_pdn(["c3-d4"], start_fen=0)
    with pytest.raises(TypeError, match="result"):
        game_to_pdn(["c3-d4"], result=None)
    with pytest.raises(TypeError, match="PDN must be a string"):
        read_pdn(None)
