"""The afterstate game loop of backgammon: ``play_afterstate_game(agent0, agent1, rng)`` plays a
whole game of two AfterstateAgents (agents/backgammon/agents.py) or choosers through the game
core's afterstate loop (``start`` -> ``afterstates`` -> ``finish_turn``), the one the Numba
trainers (agents/backgammon/td.py) and the evaluation scripts use; seeded like
``backgammon_v0.reset(seed=...)``. With ``cube=True`` the money game with the doubling cube
(``game.begin_turn`` stopping at each cube decision, as the env's ``cube=True`` game), the agents
answering by ``cube_action``. The result is an ``AfterstateGame``; a ``rolls`` list receives every
roll's position, lost rolls included (what a luck judge needs, agents/backgammon/luck.py).
``play_afterstate_match`` plays a match to N points (boardgym/RULES.md MP.1-MP.8) as a series of
such cube games from one dice stream, the score kept by the match kernel (``game.match_award``),
the Crawford game's cube limit set in each game's state, and each agent told the score from its
own seat before each game (``set_match``, when it has one).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from boardgym.agents.backgammon.agents import AfterstateAgent
from boardgym.envs import backgammon_notation as notation
from boardgym.envs.backgammon_checks import new_match
from boardgym.envs.seeding import check_seed
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, STATE_LEN, TURN
from boardgym.kernels.rng import seed_rngs

__all__ = ["AfterstateGame", "AfterstateMatch", "play_afterstate_game", "play_afterstate_match"]

AfterstateGame = namedtuple("AfterstateGame", "winner kind points rolls lost_rolls truncated")
AfterstateGame.__doc__ = """One game of play_afterstate_game: winner 0/1 (-1 if truncated), kind
1/2/3 (O.3), points for player 0 (negative when player 1 won; 0 if truncated), rolls made, lost
rolls (E.3/E.7), truncated (max_turns reached)."""


AfterstateMatch = namedtuple("AfterstateMatch", "winner score games starts crawford")
AfterstateMatch.__doc__ = """One match of play_afterstate_match: winner 0/1 (-1 if a game was
truncated before the match ended), the final score (player_0's, player_1's), the games
(AfterstateGame each, points for player 0 as the game paid them, before MP.2's cap), the score
before each game, and for each game whether it was the Crawford game."""


def _chooser(x, name):
    if isinstance(x, AfterstateAgent):
        return x._pick
    if callable(x):
        return x
    raise TypeError(
        f"{name} must be an AfterstateAgent or a callable (state, rows) -> index, "
        f"got {type(x).__name__}"
    )


def _dice_stream(rng):
    if isinstance(rng, np.ndarray):
        if rng.dtype != np.int64 or rng.shape != (1,):
            raise ValueError(
                f"rng must be an int64[1] SplitMix64 state, got {rng.dtype} {rng.shape}"
            )
        return rng
    if not notation.is_int(rng):
        raise TypeError(f"rng must be an integer seed or an int64[1] SplitMix64 state, got {rng!r}")
    return seed_rngs(check_seed(rng), 1)  # the seeds backgammon_v0.reset takes


def play_afterstate_game(
    choose0: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    choose1: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    rng: int | npt.NDArray[np.int64],
    max_turns: int | None = None,
    scoring: str = "gammon",
    rolls: list[npt.NDArray[np.int64]] | None = None,
    cube: bool = False,
) -> AfterstateGame:
    """Play one game through the game core's afterstate loop -> AfterstateGame (cubeless, or
    with cube=True the money game with the doubling cube, C.1-C.2).

    choose0 / choose1 play player 0 / 1: an AfterstateAgent, or a callable
    ``(state, rows) -> index`` given the position on roll (int64[STATE_LEN], mover's view, its
    dice set) and the distinct afterstates of its roll (int64[n, STATE_LEN], game.afterstates).
    rng: an integer seed (the dice of ``backgammon_v0.reset(seed=rng)``) or an int64[1]
    SplitMix64 state advanced in place. max_turns: rolls before the game is truncated (None: no
    cap). scoring: "gammon" (1/2/3 points) or "single". rolls: None, or a list to which every
    roll is appended in order as the position on roll with that roll's dice set (int64[STATE_LEN],
    mover's view), lost rolls (E.3/E.7) included: what a luck judge needs. cube: before each
    roll on which the player on roll may double, an AfterstateAgent answers by its
    ``cube_action`` (its cube policy; a callable never doubles and always takes); the game's
    points are multiplied by the cube, a dropped double pays the cube's value before the double
    (kind 0), as in ``backgammon_v0.raw_env(cube=True)`` with the same seed."""
    choosers = (_chooser(choose0, "choose0"), _chooser(choose1, "choose1"))
    stream = _dice_stream(rng)
    cap = notation.check_max_turns(max_turns)
    code = notation.check_scoring(scoring)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    passes = game.no_passes() if rolls is None else np.zeros((64, 3), np.int64)
    if cube:
        return _play_cube_game((choose0, choose1), choosers, stream, cap, code, rows, passes, rolls)
    state, status, made, lost = game.start(stream, cap, passes)
    while status == game.ROLLED:
        k = _choose(choosers, state, rows, rolls)
        state, status, made, l = game.finish_turn(rows[k], stream, made, cap, passes)
        if rolls is not None and l:
            _record_lost_rolls(rows[k], passes, l, rolls)
        lost += l
    return _finished(state, code, made, lost)


def _finished(state, code, made, lost):
    """The AfterstateGame of a game that stopped at state (scoring code): its result, or
    truncated when no one has won."""
    winner, kind, points = game.result(state, code)
    if winner < 0:
        return AfterstateGame(-1, 0, 0, int(made), int(lost), True)
    return AfterstateGame(
        int(winner), int(kind), int(points if winner == 0 else -points), int(made), int(lost), False
    )


def _choose(choosers, state, rows, rolls):
    """The index of the afterstate (into rows, filled here) the player on roll of state chooses
    (rolls: a list recording the rolled states, or None); ValueError if the chooser returns
    anything else."""
    if rolls is not None:
        rolls.append(state.copy())
    n = game.afterstates(state, rows)
    k = choosers[int(state[TURN])](state, rows[:n])
    if not notation.is_int(k) or not 0 <= k < n:
        raise ValueError(
            f"the chooser of player {int(state[TURN])} returned {k!r}, "
            f"not an index 0..{n - 1} of the afterstates"
        )
    return k


def _cube_answer(agent, state, offered):
    """The cube action of a seat (an AfterstateAgent's cube_action; a callable: cubeless)."""
    if isinstance(agent, AfterstateAgent):
        return agent.cube_action(state, offered)
    return game.ACTION_TAKE if offered else game.ACTION_ROLL


def _play_cube_game(seats, choosers, stream, cap, code, rows, passes, rolls, limit=None):
    """play_afterstate_game with the doubling cube (the turn sequence of the env's cube game:
    game.begin_turn stops at CUBE_DECISION, then goes on with cube_decided); limit: the game's
    cube limit (CUBE_LIMIT, match.py), None for money play's."""
    state, status, made, lost = game.start(stream, cap, passes)
    if limit is not None:
        state[CUBE_LIMIT] = limit
    while True:
        if status == game.CUBE_DECISION:
            mover = int(state[TURN])
            if _cube_answer(seats[mover], state, False) == game.ACTION_DOUBLE:
                if _cube_answer(seats[1 - mover], state, True) == game.ACTION_DROP:
                    winner, _, points = game.dropped_result(state)
                    return AfterstateGame(
                        int(winner),
                        0,
                        int(points if winner == 0 else -points),
                        int(made),
                        int(lost),
                        False,
                    )
                state = game.take_double(state)
            before = state
            state, status, made, l = game.begin_turn(
                state, stream, 0, 0, True, True, made, cap, passes
            )
        elif status == game.ROLLED:
            k = _choose(choosers, state, rows, rolls)
            before = game.pass_turn(rows[k])
            if game.result(before, code)[0] >= 0:
                state = before
                break
            state, status, made, l = game.begin_turn(
                before, stream, 0, 0, True, False, made, cap, passes
            )
        else:
            break
        if rolls is not None and l:
            _record_passes(before, passes, l, rolls)
        lost += l
    return _finished(state, code, made, lost)


def play_afterstate_match(
    choose0: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    choose1: AfterstateAgent | Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], int],
    rng: int | npt.NDArray[np.int64],
    length: int,
    max_turns: int | None = None,
    rolls: list[npt.NDArray[np.int64]] | None = None,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
) -> AfterstateMatch:
    """Play a match to length points (1..64; MP.1-MP.8) from score (player_0's, player_1's; with
    crawford True the first game is the Crawford game) -> AfterstateMatch.

    Each game is play_afterstate_game's cube game (gammons count, C.1-C.2), its cube limit the
    match's (64, or 1 in the Crawford game); the dice of all games come from one stream (rng: an
    integer seed or an int64[1] SplitMix64 state advanced in place), so a seed fixes the whole
    match. Before each game every AfterstateAgent with a ``set_match(length, score_me,
    score_opp, crawford, post_crawford)`` method is told the score from its own seat.
    max_turns caps the rolls of each game (a truncated game ends the match with winner -1);
    rolls as in play_afterstate_game, over all games."""
    seats = (choose0, choose1)
    choosers = (_chooser(choose0, "choose0"), _chooser(choose1, "choose1"))
    m = check_match_start(length, score, crawford)
    stream = _dice_stream(rng)
    cap = notation.check_max_turns(max_turns)
    rows = np.empty((game.MAX_AFTERSTATES, STATE_LEN), dtype=np.int64)
    passes = game.no_passes() if rolls is None else np.zeros((64, 3), np.int64)
    try:
        return _play_match(seats, choosers, m, stream, cap, rows, passes, rolls)
    finally:
        _tell_match(seats, game.new_match(0))  # the agents play money games again


def _play_match(seats, choosers, m, stream, cap, rows, passes, rolls):
    """play_afterstate_match's games on the checked match state m (updated in place)."""
    games, starts, flags = [], [], []
    while not game.match_over(m):
        _tell_match(seats, m)
        starts.append((int(m[game.M_SCORE]), int(m[game.M_SCORE + 1])))
        flags.append(bool(m[game.M_CRAWFORD]))
        g = _play_cube_game(
            seats,
            choosers,
            stream,
            cap,
            game.SCORING_GAMMON,
            rows,
            passes,
            rolls,
            int(game.game_cube_limit(m)),
        )
        games.append(g)
        if g.truncated:
            return AfterstateMatch(-1, starts[-1], games, starts, flags)
        game.match_award(m, g.winner, abs(g.points))
    final = (int(m[game.M_SCORE]), int(m[game.M_SCORE + 1]))
    return AfterstateMatch(int(m[game.M_WINNER]), final, games, starts, flags)


def check_match_start(length: int, score: tuple[int, int], crawford: bool) -> npt.NDArray[np.int64]:
    """The match state of play_afterstate_match's settings (a match, not money play)."""
    if notation.is_int(length) and not isinstance(length, bool) and int(length) == 0:
        raise ValueError(
            "length must be 1..64 points: a match (money play is play_afterstate_game)"
        )
    return new_match(length, score, crawford)


def _tell_match(seats, m):
    """Tell each seat with a set_match method the score of the coming game from its own seat
    (money play when m's length is 0)."""
    crawford = bool(m[game.M_CRAWFORD])
    post = bool(m[game.M_POST])
    for seat, agent in enumerate(seats):
        tell = getattr(agent, "set_match", None)
        if callable(tell):
            tell(
                int(m[game.M_LENGTH]),
                int(m[game.M_SCORE + seat]),
                int(m[game.M_SCORE + 1 - seat]),
                crawford,
                post,
            )


def _record_passes(s, passes, n_lost, rolls):
    """Append the positions of the n_lost lost rolls from s (on roll, before them)."""
    if n_lost > passes.shape[0]:
        raise RuntimeError(
            f"{n_lost} lost rolls in a row: more than the {passes.shape[0]} a roll record holds"
        )
    for i in range(n_lost):
        rolls.append(game.set_roll(s, int(passes[i, 1]), int(passes[i, 2])))
        s = game.pass_turn(s)


def _record_lost_rolls(afterstate, passes, n_lost, rolls):
    """Append the positions of the n_lost lost rolls that followed afterstate (passes: their
    player, die, die, as game.begin_turn records them; each lost roll passes the turn, E.3/E.7)."""
    if n_lost > passes.shape[0]:
        raise RuntimeError(
            f"{n_lost} lost rolls in a row: more than the {passes.shape[0]} a roll record holds"
        )
    s = game.pass_turn(afterstate)
    for i in range(n_lost):
        rolls.append(game.set_roll(s, int(passes[i, 1]), int(passes[i, 2])))
        s = game.pass_turn(s)
