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

``infos[agent]``: ``position_id`` (of the position, from the player on roll's view),
``dice`` (the current turn's roll), ``passes``; ``env.unwrapped.match_id()`` gives the gnubg
Match ID. ``env.result`` is ``(winner, kind, points)`` at the end (kind 0 for a dropped double).
``env.match_text()`` exports the game as a Jellyfish/gnubg match file (envs/backgammon_match.py).

Rendering (envs/backgammon_render.py): ``render_mode`` ``"ansi"`` (text board), ``"rgb_array"``
(image) or ``"human"`` (prints the text board), all with the cube, the player on roll, the dice,
bar and borne-off counts; ``render_text`` / ``render_rgb`` / ``to_svg`` take ``perspective``
(whose side is at the bottom and whose point numbers are shown); a notebook shows the env as
its board.
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
from boardgym.envs.backgammon_checks import check_dice, check_max_turns, check_scoring
from boardgym.kernels.backgammon import game
from boardgym.kernels.backgammon.board import CUBE_VALUE, TURN
from boardgym.kernels.backgammon.observe import OBS_LEN, encode_obs
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
        scoring: str = "single",
        cube: bool = False,
        max_turns: int | None = None,
    ) -> None:
        self._scoring = check_scoring(scoring)
        if not isinstance(cube, (bool, np.bool_)):
            raise TypeError(f"cube must be True or False, got {cube!r}")
        self.scoring, self.cube = scoring, bool(cube)
        cap = check_max_turns(max_turns)
        self.max_turns = cap or None
        high = 7.5  # (15 - 3) / 2 is the largest unit value
        n_actions = game.N_ACTIONS_CUBE if self.cube else game.N_ACTIONS
        super().__init__(n_actions, spaces.Box(0.0, high, (OBS_LEN,), np.float32), render_mode)
        self.state = game.initial_state()
        self.turns = []
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
        self._roll_dice = None
        if status == game.ROLLED:
            self._roll_dice = tuple(int(d) for d in game.dice_of(state))
            self._turn_record = {"player": int(state[TURN]), "dice": self._roll_dice, "moves": []}
            self.turns.append(self._turn_record)

    # ---- hooks ------------------------------------------------------------------------------
    def _new_game(self, options):
        warn_unknown_options(options, ("position_id", "dice"))
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
        self.turns = []
        self._rolls = 0
        if start is not None:
            self.state = start
        elif dice is not None:
            self.state = game.initial_state()
        else:
            self.state, hi, lo = game.opening(self._rng)
            dice = (int(hi), int(lo))
        self.start_position = (ids.position_id(self.state), int(self.state[TURN]))
        self._offered = False
        self._dropped = False
        self._start_turns(dice or (0, 0))

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

    def _encode(self, player):
        out = np.empty(OBS_LEN, np.float32)
        encode_obs(self.state, player, out)
        out[OBS_LEN - 1] = float(self._offered)
        return out

    def _step_infos(self):
        info = {
            "position_id": ids.position_id(self.state),
            "dice": self._roll_dice,
            "passes": list(self._passes),
        }
        return {a: dict(info) for a in AGENTS}

    def match_id(self) -> str:
        """gnubg Match ID of the current position (money game; a pending double included)."""
        turn = int(self.state[TURN])
        return ids.match_id(
            self.state, double_offered=self._offered, turn=(1 - turn) if self._offered else turn
        )

    def game_record(self) -> dict[str, Any]:
        """The game so far as match records hold it (envs/backgammon_match.py): {turns, winner,
        points}; a roll whose play is not finished is its dice without moves (a play is written
        whole), winner and points are None until the game has a result."""
        turns = [dict(t) for t in self.turns]
        if turns and not self.is_over and self._roll_dice is not None:
            turns[-1]["moves"] = []  # the roll in progress
        winner, points = (None, None) if self.result is None else (self.result[0], self.result[2])
        return {"turns": turns, "winner": winner, "points": points}

    def match_text(self, names: Sequence[str] = ("player_0", "player_1")) -> str:
        """The game so far as a Jellyfish/gnubg match file (importable by GNU Backgammon); a roll
        whose play is not finished is written as its dice alone, as gnubg writes it.

        Only games from the standard start can be written (the format has no set-up position)."""
        from boardgym.envs.backgammon_match import game_to_match_text

        if self.start_position[0] != ids.position_id(game.initial_state()):
            raise ValueError(
                "match text needs the standard start; this game began from a Position ID"
            )
        record = self.game_record()
        return game_to_match_text(record["turns"], self.result, names=names)
