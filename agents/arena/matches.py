"""The one match harness: agents against agents, and trained policies against fixed players.

Every evaluation in boardgym plays through here (scripts/evaluate.py, scripts/eval_gnubg.py, the
trainers' periodic evaluations in agents/training/, the benchmarks) and is
summarised by ``boardgym.agents.arena.stats``. The conventions, once:

- **Fixed seeds.** A match's seed drives a NumPy generator that draws one seed per pair of games
  (and, for draughts, the length of the pair's random opening); the same seed replays the match.
- **Pairs with the seats swapped.** Games come in pairs: the first agent plays ``player_0``
  (White / the first seat), then ``player_1``, from the same start. Draughts pairs share a random
  opening of ``opening`` whole moves (``random_opening``); backgammon pairs share ``reset(seed)``,
  i.e. the same dice for both seat orders.
- **Results** are the first agent's points per game (draughts -1/0/+1; backgammon with gammons
  -3..+3, ``GAMES[game].points_range``); ``summarize`` gives wins/draws/losses, points per game,
  score and Elo with their 95% intervals.

``play_match(a, b, game, n_games, seed)`` plays two agents through the game's AEC env
(``play_cube_match``: backgammon money games with the doubling cube, ``stats.summarize_money``);
an agent with ``act_state`` is given the kernel state (full history), others ``act(observation,
action_mask)``. Two backgammon ``AfterstateAgent``s (which choose whole plays) play through the
game core's afterstate loop instead (agents/backgammon/game_loop.py, from the same seed: the same
dice and the same game as the AEC env, without the per-checker-move steps).
``play_point_matches(a, b, length, n_matches, seed)`` plays backgammon matches to N points
(+1/-1 per match) through the game core's match loop.
``play_vs_kernel_opponent(policy, game, opponent, n_games, seed)`` plays a batched policy
``(obs (N, O), masks (N, A)) -> actions (N,)`` against an in-kernel player on the batched core,
pairs of games sharing a random stream with the seats swapped. ``baseline_report(play, n_games,
seed, low, high)`` runs one of those per fixed opponent and returns the ``{opponent: {"ppg",
"ci95", "win_rate", "games"}}`` lines the trainers log (agents/training/run_log.py).

**Luck-adjusted backgammon matches** (``play_adjusted_match``, summarised by
``stats.luck_summary``): each game's rolls are judged by a luck judge (agents/backgammon/luck.py:
``game_luck``, ``td_judge``); a game's adjusted result for the first agent is its points minus
(the luck of its rolls minus the luck of its opponent's). Each luck term has mean 0 whatever the
judge, so the adjusted mean estimates the same expected points as the raw one; the better the
judge, the smaller its variance.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from boardgym.agents.arena.playouts import opening_positions, random_opening  # noqa: F401
from boardgym.agents.arena.stats import summarize_points
from boardgym.agents.backgammon.luck import game_luck

if TYPE_CHECKING:
    from pettingzoo import AECEnv

    from boardgym.agents.backgammon.agents import AfterstateAgent
    from boardgym.agents.registry import Agent
    from boardgym.envs import backgammon_v0, russian_draughts_v0

__all__ = [
    "GameSpec",
    "GAMES",
    "make_env",
    "random_opening",
    "play_game",
    "play_afterstate_game",
    "play_match",
    "play_cube_match",
    "summarize",
    "play_vs_kernel_opponent",
    "baseline_report",
    "pair_count",
    "play_adjusted_match",
    "play_point_matches",
]


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """How the harness drives one game's AEC env."""

    module: str
    """the env module (its ``raw_env``)"""
    cap_option: str
    """the raw_env keyword of the game-length cap (plies for draughts, turns for backgammon)"""
    options: tuple
    """further raw_env keywords, as (name, value) pairs"""
    random_opening: bool
    """pairs start from a random opening (draughts) or from the start with shared dice"""
    points_range: tuple
    """(lowest, highest) points one game can give"""


GAMES = {
    "draughts": GameSpec("boardgym.envs.russian_draughts_v0", "max_moves", (), True, (-1.0, 1.0)),
    "backgammon": GameSpec(
        "boardgym.envs.backgammon_v0", "max_turns", (("scoring", "gammon"),), False, (-3.0, 3.0)
    ),
}


def _spec(game):
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {sorted(GAMES)}")
    return GAMES[game]


def pair_count(n_games: int) -> int:
    """Pairs of games that cover n_games (n_games rounded up to even); ValueError if n_games < 1."""
    if isinstance(n_games, bool) or int(n_games) != n_games or n_games < 1:
        raise ValueError(f"the number of games must be a positive integer, got {n_games!r}")
    return (int(n_games) + 1) // 2


def make_env(
    game: str, max_moves: int | None = 400, cube: bool = False
) -> russian_draughts_v0.raw_env | backgammon_v0.raw_env:
    """The raw AEC env of game with its game-length cap (a capped game is a draw); cube: the
    backgammon money game with the doubling cube (C.1-C.2)."""
    spec = _spec(game)
    module = importlib.import_module(spec.module)
    options = dict(spec.options)
    if cube:
        if game != "backgammon":
            raise ValueError(f"the doubling cube is backgammon's, not {game}'s")
        options["cube"] = True
    return module.raw_env(**{spec.cap_option: max_moves, **options})


def _choose(agent, env, obs, observation_only):
    if not observation_only and hasattr(agent, "act_state") and hasattr(env, "state"):
        return agent.act_state(env.state)
    return agent.act(obs["observation"], obs["action_mask"])


def play_game(
    env: AECEnv,
    seats: Sequence[Agent],
    seed: int | None,
    opening: Sequence[int] = (),
    observation_only: bool = False,
    actions: list[int] | None = None,
    options: dict[str, Any] | None = None,
) -> float:
    """Play one game; seats: (agent of player_0, agent of player_1). Returns player_0's reward.
    actions: None, or a list that receives every action taken (the opening's included);
    options: the env's reset options (e.g. a draughts start {"fen": ...})."""
    env.reset(seed=seed, options=options)
    _reset_agents(seats)
    total = {a: 0.0 for a in env.possible_agents}
    i = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[name] += reward
        if term or trunc:
            env.step(None)
            continue
        if i < len(opening):
            action = opening[i]
            i += 1
        else:
            agent = seats[env.possible_agents.index(name)]
            action = _choose(agent, env, obs, observation_only)
        env.step(action)
        if actions is not None:
            actions.append(int(action))
    return total[env.possible_agents[0]]


def _reset_agents(seats):
    """Reset each seat's agent that keeps state between games (its ``reset``)."""
    for agent in seats:
        if hasattr(agent, "reset"):
            agent.reset()


def _afterstate_agents(game, seats, observation_only):
    """Are both seats backgammon AfterstateAgents, to be played by the afterstate loop?"""
    if game != "backgammon" or observation_only:
        return False
    from boardgym.agents.backgammon.agents import AfterstateAgent

    return all(isinstance(agent, AfterstateAgent) for agent in seats)


def play_afterstate_game(
    seats: Sequence[AfterstateAgent],
    seed: int | None,
    max_turns: int | None = None,
    rolls: list[np.ndarray] | None = None,
    cube: bool = False,
) -> float:
    """player_0's points in one backgammon game of two AfterstateAgents (seats: player_0's,
    player_1's) through the game core's afterstate loop, with the dice of
    ``backgammon_v0.reset(seed)`` and gammons counted; a game reaching max_turns rolls is a draw.
    The harness's one call of ``game_loop.play_afterstate_game``; rolls: None or a list
    that receives every roll's position (its ``rolls`` argument); cube: the money game with the
    doubling cube (the agents' cube policies; the same game as the env's ``cube=True``)."""
    from boardgym.agents.backgammon import game_loop

    _reset_agents(seats)
    result = game_loop.play_afterstate_game(
        seats[0], seats[1], seed, max_turns=max_turns, scoring="gammon", rolls=rolls, cube=cube
    )
    return float(result.points)


def play_match(
    agent_a: Agent,
    agent_b: Agent,
    game: str = "draughts",
    n_games: int = 100,
    seed: int | None = 0,
    opening: tuple[int, int] = (2, 4),
    max_moves: int | None = 400,
    observation_only: bool = False,
    progress: Callable[[npt.NDArray[np.float64]], object] | None = None,
    keep: Callable[[int, int, int, list[int]], object] | None = None,
) -> npt.NDArray[np.float64]:
    """float64 (2 * pairs,): A's points in each game of A against B, game 2k with A as player_0
    and game 2k + 1 with A as player_1 from the same start (see the module docstring).

    opening: (fewest, most) random whole moves before a draughts pair (0, 0: none); max_moves:
    the game-length cap (plies for draughts, rolls for backgammon; None: none), a capped game is
    a draw; progress: called as progress(points so far) after each pair; keep: called as
    keep(pair, seat of A, seed, actions) after each game with the game's env actions (the
    opening's included; the env's reset(seed) gives its start and dice): every game is then
    played through the AEC env, the same games the afterstate loop plays."""
    return _play_pairs(
        agent_a,
        agent_b,
        game,
        n_games,
        seed,
        opening,
        max_moves,
        observation_only,
        progress,
        None,
        keep=keep,
    )[0]


def play_cube_match(
    agent_a: Agent,
    agent_b: Agent,
    n_games: int = 100,
    seed: int | None = 0,
    max_moves: int | None = 400,
    progress: Callable[[npt.NDArray[np.float64]], object] | None = None,
    keep: Callable[[int, int, int, list[int]], object] | None = None,
) -> npt.NDArray[np.float64]:
    """float64 (2 * pairs,): A's points in each cubeful money game of A against B (the
    backgammon env with ``cube=True``: gammons count, the cube multiplies, a dropped double pays
    the cube's value before the double, C.1-C.2), pairs with the seats swapped sharing
    ``reset(seed)`` as in play_match, each agent answering the cube by its own cube policy. Two
    AfterstateAgents play through the game core's afterstate loop (the same games), others
    through the env with ``act(observation, action_mask)``. A game reaching max_moves rolls is
    a draw (0). keep: as in play_match (every game through the env)."""
    return _play_pairs(
        agent_a,
        agent_b,
        "backgammon",
        n_games,
        seed,
        (0, 0),
        max_moves,
        False,
        progress,
        None,
        cube=True,
        keep=keep,
    )[0]


def play_adjusted_match(
    agent_a: AfterstateAgent,
    agent_b: AfterstateAgent,
    judge: Callable[[np.ndarray], npt.ArrayLike],
    n_games: int = 100,
    seed: int | None = 0,
    max_moves: int | None = None,
    progress: Callable[[npt.NDArray[np.float64], npt.NDArray[np.float64]], object] | None = None,
    cube: bool = False,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(points, luck), each float64 (2 * pairs,): play_match of two backgammon AfterstateAgents
    (the same games, the same dice) and, per game, the luck of A's rolls minus the luck of B's
    under judge (module docstring); the adjusted results are points - luck.
    progress: called as progress(points so far, luck so far) after each pair. cube: cubeful
    money games (play_cube_match), each roll's luck counted times the cube value it was rolled
    at (known before the roll, so the adjusted mean still estimates the same expected points)."""
    if not callable(judge):
        raise TypeError(f"judge must be a callable rows -> equities, got {type(judge).__name__}")
    if not _afterstate_agents("backgammon", (agent_a, agent_b), False):
        raise ValueError(
            "luck-adjusted matches need two backgammon AfterstateAgents "
            "(backgammon-td, backgammon-greedy, backgammon-expectimax, the engines)"
        )
    return _play_pairs(
        agent_a,
        agent_b,
        "backgammon",
        n_games,
        seed,
        (0, 0),
        max_moves,
        False,
        progress,
        judge,
        cube=cube,
    )


def _play_pairs(
    agent_a,
    agent_b,
    game,
    n_games,
    seed,
    opening,
    max_moves,
    observation_only,
    progress,
    judge,
    cube=False,
    keep=None,
):
    spec = _spec(game)
    n_pairs = pair_count(n_games)
    lo, hi = opening
    if not 0 <= lo <= hi:
        raise ValueError(f"need 0 <= fewest <= most opening moves, got {opening!r}")
    env = make_env(game, max_moves, cube=cube)
    afterstate = keep is None and _afterstate_agents(game, (agent_a, agent_b), observation_only)
    if cube and not afterstate:
        observation_only = True  # the cube decisions come through act(observation, action_mask)
    rng = np.random.default_rng(seed)
    points = np.zeros(2 * n_pairs)
    luck = np.zeros(2 * n_pairs)
    for k in range(n_pairs):
        pair_seed = int(rng.integers(2**31))
        moves = []
        if spec.random_opening and hi > 0:
            moves = random_opening(env, pair_seed, int(rng.integers(lo, hi + 1)))
        for seat, seats in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
            rolls = []
            cubed = {"cube": True} if cube else {}
            if afterstate and judge is not None:
                p0 = play_afterstate_game(seats, pair_seed, max_moves, rolls=rolls, **cubed)
            elif afterstate:
                p0 = play_afterstate_game(seats, pair_seed, max_moves, **cubed)
            else:
                actions = None if keep is None else []
                p0 = play_game(env, seats, pair_seed, moves, observation_only, actions)
                if keep is not None:
                    keep(k, seat, pair_seed, actions)
            sign = 1.0 if seat == 0 else -1.0
            points[2 * k + seat] = sign * p0
            if judge is not None:
                luck[2 * k + seat] = sign * game_luck(judge, rolls)
        if progress is not None:
            if judge is None:
                progress(points[: 2 * k + 2])
            else:
                progress(points[: 2 * k + 2], luck[: 2 * k + 2])
    return points, luck


def play_point_matches(
    agent_a: AfterstateAgent,
    agent_b: AfterstateAgent,
    length: int,
    n_matches: int = 100,
    seed: int | None = 0,
    max_moves: int | None = 400,
    progress: Callable[[npt.NDArray[np.float64]], object] | None = None,
) -> npt.NDArray[np.float64]:
    """float64 (2 * pairs,): A's result in each backgammon match to length points against B (+1
    won, -1 lost, 0 when a game reached max_moves rolls; RULES.md MP.1-MP.8), match 2k with A as
    player_0 and 2k + 1 with A as player_1 on the same dice (one seed per pair, as play_match
    draws them). Both agents are AfterstateAgents, played through the game core's match loop
    (agents/backgammon/game_loop.play_afterstate_match), each told the score before each game."""
    from boardgym.agents.backgammon import game_loop

    if not _afterstate_agents("backgammon", (agent_a, agent_b), False):
        raise TypeError(
            "matches to N points are played by two backgammon AfterstateAgents (agents that "
            "choose whole plays: backgammon-td, backgammon-greedy, ...)"
        )
    n_pairs = pair_count(n_matches)
    rng = np.random.default_rng(seed)
    points = np.zeros(2 * n_pairs)
    for k in range(n_pairs):
        pair_seed = int(rng.integers(2**31))
        for seat, seats in enumerate(((agent_a, agent_b), (agent_b, agent_a))):
            _reset_agents(seats)
            r = game_loop.play_afterstate_match(seats[0], seats[1], pair_seed, length, max_moves)
            points[2 * k + seat] = 0.0 if r.winner < 0 else (1.0 if r.winner == seat else -1.0)
        if progress is not None:
            progress(points[: 2 * k + 2])
    return points


def summarize(points: npt.ArrayLike, game: str = "draughts") -> dict[str, Any]:
    """boardgym.agents.arena.stats.summarize_points of one player's results in game."""
    return summarize_points(points, *_spec(game).points_range)


def _paired_core(game, n_games, seed, opponent, core_kwargs):
    """The batched core of game for n_games (pairs: two games per random stream, the seats
    swapped), reset with seed; core_kwargs over the default caps (draughts max_moves=300,
    backgammon max_turns=1000)."""
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    _spec(game)
    core_cls = DraughtsBatch if game == "draughts" else BackgammonBatch
    kwargs = {"max_moves": 300} if game == "draughts" else {"max_turns": 1000}
    kwargs.update(core_kwargs)
    core = core_cls(2 * pair_count(n_games), opponent=opponent, **kwargs)
    core.reset(seed=seed, paired=True)
    return core


def play_vs_kernel_opponent(
    policy: Callable[[np.ndarray, np.ndarray], npt.ArrayLike],
    game: str,
    opponent: str = "random",
    n_games: int = 200,
    seed: int | None = 0,
    **core_kwargs: Any,
) -> npt.NDArray[np.float64]:
    """float64 (2 * pairs,): the points of policy ((obs (N, O) float32, masks (N, A) int8) ->
    actions (N,)) in each game against the in-kernel player ``opponent`` on the batched core.

    Games 2k and 2k + 1 share one random stream (the same opening dice) with the learner in seat
    0, then seat 1; every game is played to its end once (a finished slot does not restart).
    core_kwargs go to the core (default caps: draughts max_moves=300, backgammon max_turns=1000).
    """
    core = _paired_core(game, n_games, seed, opponent, core_kwargs)
    points = np.zeros(core.num_envs)
    pending = np.ones(core.num_envs, bool)
    seats = core.seats.copy()
    while pending.any():
        live = np.flatnonzero(pending)
        core.step_subset(live, np.asarray(policy(core.obs[live], core.masks[live]), np.int64))
        ended = np.flatnonzero(core.done.any(1).astype(bool) & pending)
        points[ended] = core.rewards[ended, seats[ended]]
        pending[ended] = False
    return points


def play_vs_batched_opponent(
    policy: Callable[[np.ndarray, np.ndarray], npt.ArrayLike],
    opponent: Callable[[np.ndarray, np.ndarray, npt.NDArray[np.int64]], npt.ArrayLike],
    game: str,
    n_games: int = 200,
    seed: int | None = 0,
    **core_kwargs: Any,
) -> npt.NDArray[np.float64]:
    """float64 (2 * pairs,): the points of policy ((obs (M, O), masks (M, A)) -> actions (M,))
    in each game against ``opponent((obs (M, O), masks (M, A), games int64 (M,)) -> actions
    (M,))``, both answering in one call for all the games where their seat is to act (games:
    the game indices, e.g. for per-game random streams). On the batched core in its two-player
    view; pairs of games from one random stream with the seats swapped, as
    play_vs_kernel_opponent (the same caps by default)."""
    core = _paired_core(game, n_games, seed, None, core_kwargs)
    seats = core.seats.copy()
    points = np.zeros(core.num_envs)
    pending = np.ones(core.num_envs, bool)
    while pending.any():
        live = pending & ~core.done.any(1).astype(bool)
        mine = np.flatnonzero(live & (core.current == seats))
        theirs = np.flatnonzero(live & (core.current != seats))
        actions = np.full(core.num_envs, -1, np.int64)
        if mine.size:
            actions[mine] = np.asarray(policy(core.obs[mine], core.masks[mine]), np.int64)
        if theirs.size:
            actions[theirs] = np.asarray(
                opponent(core.obs[theirs], core.masks[theirs], theirs), np.int64
            )
        moving = np.flatnonzero(actions >= 0)
        core.step_subset(moving, actions[moving])
        ended = np.flatnonzero(core.done.any(1).astype(bool) & pending)
        points[ended] = core.rewards[ended, seats[ended]]
        pending[ended] = False
    return points


def baseline_report(
    play: Callable[[str, int, int | None], npt.ArrayLike],
    n_games: int,
    seed: int | None,
    low: float,
    high: float,
    opponents: Sequence[str] = ("random", "greedy"),
) -> dict[str, dict[str, Any]]:
    """{opponent: stats.points_summary} of ``play(opponent, n_pairs, seed) -> points``
    (float (2 * n_pairs,), each in [low, high]) for each fixed opponent."""
    from boardgym.agents.arena.stats import points_summary

    n_pairs = pair_count(n_games)
    out = {}
    for name in opponents:
        points = np.asarray(play(name, n_pairs, seed), np.float64)
        if points.shape != (2 * n_pairs,):
            raise ValueError(
                f"play({name!r}, {n_pairs}, ...) returned shape {points.shape}, "
                f"expected ({2 * n_pairs},)"
            )
        out[name] = points_summary(points, low, high)
    return out
