"""PettingZoo AEC environment for backgammon: ``backgammon_v0``, a thin adapter over the game core.

The rules (B.1-B.6 moves and plays, E.1-E.7 entering and lost rolls, O.1-O.3 bearing off and
scoring, the opening roll, the money-game cube) are the game core's,
``boardgym.kernels.backgammon.game``: its legal mask, step and result; this module keeps agent
bookkeeping, records and infos.

Agents ``player_0`` and ``player_1``. One action is one checker move,
``action = source * 6 + (die - 1)`` from the acting player's own view (source 0..23 = its points
1..24, 24 = the bar; bearing off is moving past point 1). A player keeps acting until its play is
complete (B.4-B.5), then the env rolls for the other.

Dice are rolled from a SplitMix64 stream seeded by ``reset(seed=...)`` (a reset without a seed
continues the stream; game i of a batch seeded S plays like this env reset with seed S + i, and
like ``agents.backgammon.game_loop.play_afterstate_game(..., rng=S)``). The opening: each side
rolls one die, ties are rolled again, the higher die moves first and plays both dice. A roll with no
legal move passes automatically (E.3, E.7); ``infos[agent]["passes"]`` lists the passes since
the previous step as ``(agent, (die1, die2))``.

Observation ``Dict(observation=Box(0, 7.5, (207,), float32), action_mask=Box(0, 1, (A,), int8))``,
Tesauro-style (boardgym.kernels.backgammon.observe), from the observing player's view.

Options (constructor): ``scoring="single"`` (+1/-1) or ``"gammon"`` (+-1/2/3 for single, gammon,
backgammon; O.3); ``cube=False`` or ``True`` (money-game doubling cube: see
``boardgym.kernels.backgammon.cube``; four extra actions, the reward is multiplied by the cube
value); ``max_turns`` truncates after that many rolls, lost rolls included (``None`` = no cap;
a position where no side can ever move is truncated too).
``reset(seed=..., options={"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})`` starts from a gnubg
Position ID with its player on roll as ``player_0`` (and those dice, else rolled); ``"dice"``
alone plays the standard start with player_0 on roll. Malformed options raise ValueError (a wrong
type: TypeError, e.g. dice that are not ints); unknown option keys are ignored with a warning.

Match play (boardgym/RULES.md MP.1-MP.8; kernels/backgammon/match.py): ``match_length=N``
(1..64; 0 = money play, the default) makes one episode one match to N points, played with the
cube and gammons (``cube`` and ``scoring`` may be left out; ``cube=False`` or
``scoring="single"`` with a match is a ValueError). When a game ends and the match goes on, the
env credits its points (capped at what the winner needs, MP.2) and starts the next game itself
(opening roll), from the same dice stream: ``reset(seed=S)`` plays the match
``agents.backgammon.game_loop.play_afterstate_match(..., rng=S, length=N)`` plays with the same
agents. Rewards: ``match_reward="match"`` (default) +1 / -1 to the match winner at the end;
``"points"`` each game's credited points (+ to its winner, - to the loser) as the game ends. No
one may double in the Crawford game (MP.5) or past a cube of 64 (MP.4): the masks say so. The
observation is ``Box(0, 7.5, (207 + 5,))``: the money-play vector, then the match block of
``kernels.backgammon.observe.encode_match_obs`` (own and opponent away-score / N, N / 64,
Crawford, post-Crawford), from the observer's view. ``reset(options={"score": (a, b),
"crawford": True})`` starts at player_0's a to player_1's b (crawford: the first game is the
Crawford game; a score of N - 1 without it is post-Crawford; MP.7); a bad score is a ValueError.
``env.match`` is a copy of the match state (int64[MATCH_LEN]); ``env.games`` the finished games
(and a truncated one), each ``{"turns", "score" (before the game), "winner", "points" (what the
game paid: kind x cube, or the cube before a dropped double), "kind", "credited" (points the
winner was credited, MP.2), "crawford"}``; the game in play is ``env.turns``. ``max_turns``
caps each game's rolls; a truncated game truncates the match.

``infos[agent]``: ``position_id`` (of the position, from the player on roll's view),
``dice`` (the current turn's roll), ``passes``; in match play also ``match_length``, ``score``
(player_0's, player_1's, now), ``game`` (the number of the game in play from 1; the last one at
the end), ``crawford``, ``post_crawford`` and, on the step that ended a game,
``finished_game`` ``{"winner", "kind", "points", "credited"}``. ``env.unwrapped.match_id()``
gives the gnubg Match ID (with the match length, the score before the game in play and the
Crawford flag). ``env.result`` is ``(winner, kind, points)`` at the end (kind 0 for a dropped
double; in match play the last finished game's).
``env.match_text()`` exports the game as a Jellyfish/gnubg match file (envs/backgammon_match.py).

Rendering (envs/backgammon_render.py): ``render_mode`` ``"ansi"`` (text board), ``"rgb_array"``
(image) or ``"human"`` (prints the text board), all with the cube, the player on roll, the dice,
bar and borne-off counts, the last play marked (``last_move()``) and, once the game or match is
over, who won (``end_text()``) in place of who is on roll; ``render_text`` / ``render_rgb`` /
``to_svg`` take ``perspective`` (whose side is at the bottom and whose point numbers are shown); a
notebook shows the env as its board (a ``gymnasium.make`` env too: boardgym.envs.notebook).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from boardgym.envs import backgammon_ids as ids
from boardgym.envs import backgammon_render
from boardgym.envs._aec import AGENTS, TwoPlayerAEC, warn_unknown_options, wrap_classic
from boardgym.envs.backgammon_checks import (
    check_dice,
    check_max_turns,
    check_play_options,
    check_scoring,
    new_match,
)
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_LIMIT, CUBE_VALUE, TURN
from boardgym.kernels.backgammon.observe import (
    MATCH_OBS_LEN,
    OBS_LEN,
    encode_match_obs,
    encode_obs,
)
from boardgym.kernels.rng import seed_rngs

__all__ = ["env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The wrapped AEC env (TerminateIllegal -> AssertOutOfBounds -> OrderEnforcing)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TwoPlayerAEC):
    """Backgammon AEC env without wrappers (raises ValueError on illegal actions)."""

    metadata = {**TwoPlayerAEC.metadata, "name": "backgammon_v0"}
    renderer = backgammon_render

    def __init__(
        self,
        render_mode: str | None = None,
        scoring: str | None = None,
        cube: bool | None = None,
        max_turns: int | None = None,
        match_length: int = 0,
        match_reward: str = "match",
    ) -> None:
        """scoring: "single" or "gammon" (None: "single", or "gammon" in a match); cube: bool
        (None: False, or True in a match); match_length 0..64 (0: money play); match_reward
        "match" or "points" (module docstring)."""
        self.scoring, self.cube, self.match_length, self.match_reward = check_play_options(
            scoring, cube, match_length, match_reward
        )
        self._scoring = check_scoring(self.scoring)
        cap = check_max_turns(max_turns)
        self.max_turns = cap or None
        high = 7.5  # (15 - 3) / 2 is the largest unit value
        n_actions = game.N_ACTIONS_CUBE if self.cube else game.N_ACTIONS
        self._obs_len = OBS_LEN + (MATCH_OBS_LEN if self.match_length else 0)
        super().__init__(
            n_actions, spaces.Box(0.0, high, (self._obs_len,), np.float32), render_mode
        )
        self.state = game.initial_state()
        self.turns = []
        self.result = None
        self._match = new_match(self.match_length)
        self._games = []
        self._game_score = (0, 0)
        self._pending = (0.0, 0.0)
        self._finished = None
        self._pass_buf = np.zeros((64, 3), np.int64)

    # ---- dice and turns ---------------------------------------------------------------------
    def _start_turns(self, dice=(0, 0), cube_decided=False):
        """Begin the next turn through the game core (begin_turn)."""
        self._turn_began(
            *game.begin_turn(
                self.state,
                self._rng,
                dice[0],
                dice[1],
                self.cube,
                cube_decided,
                self._rolls,
                self.max_turns or 0,
                self._pass_buf,
            )
        )

    def _turn_began(self, state, status, rolls, n):
        """Take the game core's (state, status, rolls, lost rolls) after a turn began: record the
        lost rolls (E.3 / E.7) and the new roll."""
        self._rolls = rolls
        self._passes = []
        for player, d1, d2 in self._pass_buf[: min(n, len(self._pass_buf))].tolist():
            self._passes.append((AGENTS[player], (d1, d2)))
            self.turns.append({"player": player, "dice": (d1, d2), "moves": []})
        self.state = state
        self._truncated = bool(game.is_truncation(status))
        if self._truncated and self.match_length:
            self._games.append(self._game_record(None, 0, None, 0))
        self._roll_dice = None
        if status == game.ROLLED:
            self._roll_dice = tuple(int(d) for d in game.dice_of(state))
            self._turn_record = {"player": int(state[TURN]), "dice": self._roll_dice, "moves": []}
            self.turns.append(self._turn_record)

    # ---- hooks ------------------------------------------------------------------------------
    def _new_game(self, options):
        warn_unknown_options(options, ("position_id", "dice", "score", "crawford"))
        try:
            self._match = new_match(
                self.match_length, options.get("score", (0, 0)), options.get("crawford", False)
            )
        except (TypeError, ValueError) as e:
            raise type(e)(f"reset options score / crawford: {e}") from None
        if self._reset_seed is not None or not hasattr(self, "_rolls"):
            # A seeded reset (or the first) starts the dice stream; later resets continue it, so
            # that game i of a batch seeded S plays like this env reset with seed S + i.
            self._rng = seed_rngs(
                self._reset_seed
                if self._reset_seed is not None
                else int(self.np_random.integers(2**62)),
                1,
            )
        dice = options.get("dice")
        if dice is not None:
            if isinstance(dice, (str, bytes)) or not hasattr(dice, "__len__"):
                raise TypeError(f"dice must be two integers 1..6, got {dice!r}")
            if len(dice) != 2:
                raise ValueError(f"dice must be two integers 1..6, got {dice!r}")
            try:
                dice = check_dice(*dice)
            except (TypeError, ValueError) as e:
                raise type(e)(f"reset option dice {dice!r}: {e}") from None
        start = ids.position_from_id(options["position_id"]) if "position_id" in options else None
        self._games = []
        self._pending, self._finished = (0.0, 0.0), None
        self.result = None
        if start is not None:
            if self.match_length and game.result(start, self._scoring)[0] >= 0:
                raise ValueError(
                    f"reset option position_id {options['position_id']!r}: the game is over "
                    "(a match starts from a game in play)"
                )
            self._start_game(start, dice or (0, 0))
        elif dice is not None:
            self._start_game(game.initial_state(), dice)
        else:
            self._start_game(*self._opening())

    def _opening(self):
        """(state, dice) of the opening roll (the higher die moves first with both dice)."""
        state, hi, lo = game.opening(self._rng)
        return state, (int(hi), int(lo))

    def _start_game(self, state, dice):
        """Begin a game of the episode from state (no dice; cube limit set by the match)."""
        self.turns = []
        self._rolls = 0
        self.state = state
        game.set_cube_limit(self.state, self._match)
        self._game_score = (int(self._match[game.M_SCORE]), int(self._match[game.M_SCORE + 1]))
        self.start_position = (ids.position_id(self.state), int(self.state[TURN]))
        self._offered = False
        self._dropped = False
        self._start_turns(dice)

    def _game_record(self, winner, kind, points, credited):
        return {
            "turns": self.turns,
            "score": self._game_score,
            "winner": winner,
            "points": points,
            "kind": kind,
            "credited": credited,
            "crawford": bool(self.state[CUBE_LIMIT] == 1),
        }

    def _end_of_game(self):
        """In match play, after an action: when the game just ended, credit it (MP.2-MP.6),
        record it and, unless the match is over, start the next game from the opening roll."""
        if self._dropped:
            winner, kind, points = game.dropped_result(self.state)
        else:
            winner, kind, points = game.result(self.state, self._scoring)
        if winner < 0:
            return
        winner, kind, points = int(winner), int(kind), int(points)
        credited = int(game.match_award(self._match, winner, points))
        self._games.append(self._game_record(winner, kind, points, credited))
        self.result = (winner, kind, points)
        self._finished = {"winner": winner, "kind": kind, "points": points, "credited": credited}
        if self.match_reward == "points":
            self._pending = (credited, -credited) if winner == 0 else (-credited, credited)
        if not game.match_over(self._match):
            self._start_game(*self._opening())

    def _to_move(self):
        return int(self.state[TURN]) ^ int(self._offered)

    def _fill_mask(self, out):
        return game.legal_mask(self.state, self.cube, self._offered, out)

    def _play_cube(self, action):
        turn = int(self.state[TURN])
        if action == game.ACTION_DOUBLE:
            self._offered = True
            self.turns.append(
                {"player": turn, "cube": "double", "value": 2 * int(self.state[CUBE_VALUE])}
            )
            self._passes = []
        elif action == game.ACTION_TAKE:
            self._offered = False
            self.state = game.take_double(self.state)
            self.turns.append({"player": 1 - turn, "cube": "take"})
            self._start_turns(cube_decided=True)
        elif action == game.ACTION_DROP:
            self._offered = False
            self._dropped = True
            self.turns.append({"player": 1 - turn, "cube": "drop"})
        else:  # ACTION_ROLL
            self._start_turns(cube_decided=True)

    def _play(self, action):
        if self.match_length:
            self._pending, self._finished = (0.0, 0.0), None
            self._play_action(action)
            self._end_of_game()
        else:
            self._play_action(action)

    def _play_action(self, action):
        if action >= game.N_ACTIONS:
            return self._play_cube(action)
        frm, to, _, hit = game.move_of_action(self.state, action)
        self._turn_record["moves"].append((int(frm), int(to), bool(hit)))
        state, status, rolls, n = game.step(
            self.state,
            action,
            self._rng,
            self._rolls,
            self.max_turns or 0,
            self.cube,
            self._pass_buf,
        )
        if status in (game.MOVING, game.GAME_OVER):
            self.state = state
            self._passes = []
        else:
            self._turn_began(state, status, rolls, n)

    def _result(self):
        if self.match_length:
            return self._match_result()
        if self._dropped:  # the doubler (still on roll) wins the cube's value before the double
            winner, kind, points = game.dropped_result(self.state)
        else:
            winner, kind, points = game.result(self.state, self._scoring)
        if winner >= 0:
            winner, points = int(winner), int(points)
            self.result = (winner, int(kind), points)
            return True, False, (points, -points) if winner == 0 else (-points, points)
        self.result = None
        return False, self._truncated, (0.0, 0.0)

    def _match_result(self):
        """_result in match play: the episode ends with the match (or a truncated game)."""
        m = self._match
        if game.match_over(m):
            if self.match_reward == "points":
                rew = self._pending
            else:
                rew = (1.0, -1.0) if m[game.M_WINNER] == 0 else (-1.0, 1.0)
            return True, False, rew
        return False, self._truncated, self._pending

    def _encode(self, player):
        out = np.empty(self._obs_len, np.float32)
        encode_obs(self.state, player, out[:OBS_LEN])
        out[OBS_LEN - 1] = float(self._offered)
        if self.match_length:
            encode_match_obs(self._match, player, out, OBS_LEN)
        return out

    def _step_infos(self):
        info = {
            "position_id": ids.position_id(self.state),
            "dice": self._roll_dice,
            "passes": list(self._passes),
        }
        if self.match_length:
            m = self._match
            info["match_length"] = self.match_length
            info["score"] = (int(m[game.M_SCORE]), int(m[game.M_SCORE + 1]))
            info["game"] = len(self._games) + (0 if self._done_match_game() else 1)
            info["crawford"] = bool(m[game.M_CRAWFORD])
            info["post_crawford"] = bool(m[game.M_POST])
            if self._finished is not None:
                info["finished_game"] = dict(self._finished)
        return {a: dict(info) for a in AGENTS}

    def _done_match_game(self):
        """True when the game in self.state is already in self._games (the match ended with
        it, or it was truncated)."""
        return game.match_over(self._match) or self._truncated

    @property
    def match(self) -> np.ndarray:
        """A copy of the match state (int64[MATCH_LEN], kernels/backgammon/match.py); length 0
        in money play."""
        return self._match.copy()

    @property
    def games(self) -> list[dict[str, Any]]:
        """The episode's finished games (and a truncated one) in match play, oldest first (module
        docstring); shallow copies. Empty in money play."""
        return [dict(g) for g in self._games]

    def last_move(self) -> dict[str, Any] | None:
        """The latest roll's play as pictures mark it, ``{"player", "dice", "moves": [(from, to,
        hit), ...]}`` (the player's own numbering, 25 = bar, 0 = off; a lost roll has no moves;
        the roll in play once it has a move), or None (none yet in the game in play)."""
        for t in reversed(self.turns):
            if "dice" not in t:  # a cube action
                continue
            if t is self.turns[-1] and self._roll_dice is not None and not t["moves"]:
                continue  # the roll in play, nothing moved yet
            return {"player": t["player"], "dice": tuple(t["dice"]), "moves": list(t["moves"])}
        return None

    def end_text(self) -> str | None:
        """The header of a finished game (match) its position does not tell: a dropped double,
        the end of a match, a truncation or an illegal action; else None."""
        if not self.is_over:
            return None
        text = super().end_text()
        if text is not None or self.result is None:
            return text
        winner, kind, points = self.result
        who = f"player_{winner} ({'XO'[winner]})"
        if self.match_length:
            m = self._match
            a, b = int(m[game.M_SCORE]), int(m[game.M_SCORE + 1])
            return f"match over: {who} won the match to {self.match_length}, {a}-{b}"
        what = {0: ": the double was dropped", 1: "", 2: " (a gammon)", 3: " (a backgammon)"}
        return f"game over: {who} won {points} point{'s' if points != 1 else ''}{what[kind]}"

    def render_text(self, perspective: int = 0) -> str:
        """The current position as a text board (player ``perspective``'s side at the bottom),
        with the last play, who won once it is over and the match line ("match to N, score
        a-b", Crawford) in match play."""
        text = super().render_text(perspective)
        if not self.match_length:
            return text
        a, b = self._game_score
        crawford = " (Crawford)" if self.state[CUBE_LIMIT] == 1 else ""
        return f"{text.rstrip()}\nmatch to {self.match_length}, score {a}-{b}{crawford}\n"

    def match_id(self) -> str:
        """gnubg Match ID of the current position (a pending double included); in match play
        with the match length, the score before the game in play and its Crawford flag."""
        turn = int(self.state[TURN])
        return ids.match_id(
            self.state,
            match_length=self.match_length,
            score=self._game_score,
            crawford=bool(self.state[CUBE_LIMIT] == 1),
            double_offered=self._offered,
            turn=(1 - turn) if self._offered else turn,
        )

    def game_record(self) -> dict[str, Any]:
        """The game in play as match records hold it (envs/backgammon_match.py): {turns, winner,
        points}; a roll whose play is not finished is its dice without moves (a play is written
        whole), winner and points are None until the game has a result (in match play: the
        game in play, not the one before it)."""
        turns = [dict(t) for t in self.turns]
        if turns and not self.is_over and self._roll_dice is not None:
            turns[-1]["moves"] = []  # the roll in progress
        over = self.result is not None and (self.match_length == 0 or self._done_match_game())
        winner, points = (self.result[0], self.result[2]) if over else (None, None)
        return {"turns": turns, "winner": winner, "points": points}

    def match_text(self, names: Sequence[str] = ("player_0", "player_1")) -> str:
        """The game so far (money play) or the match so far (every game, with the score lines,
        in match play) as a Jellyfish/gnubg match file (importable by GNU Backgammon); a roll
        whose play is not finished is written as its dice alone, as gnubg writes it.

        Only games from the standard start can be written (the format has no set-up position)."""
        from boardgym.envs.backgammon_match import game_to_match_text, match_to_text

        if self.start_position[0] != ids.position_id(game.initial_state()):
            raise ValueError(
                "match text needs the standard start; this game began from a Position ID"
            )
        record = self.game_record()
        if self.match_length == 0:
            return game_to_match_text(record["turns"], self.result, names=names)
        games = [dict(g) for g in self._games]
        if not self._done_match_game():
            record["score"] = list(self._game_score)
            games.append(record)
        return match_to_text(games, self.match_length, names=names)
