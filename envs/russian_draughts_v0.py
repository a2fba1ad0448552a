"""PettingZoo AEC environment for Russian draughts: ``russian_draughts_v0``.

A thin adapter over the game core (boardgym.kernels.draughts.game: rules M.1-M.3, 25.1-25.7,
G.1, G.2a-G.2e). Agents ``player_0`` (White, moves first) and ``player_1`` (Black). One action is
one simple move or one capture hop (``from_sq32 * 32 + to_sq32``), seen from the acting player:
squares are turned 180 degrees for Black (``game.view_action``), like the observation, so both
seats face the same board. During a capture chain the same agent acts again until the chain is
complete (25.2); the mask then holds only the continuing hops.

Observation ``Dict(observation=Box(0, 1, (198,), float32), action_mask=Box(0, 1, (1024,), int8))``
(32 dark squares x 6 planes + 6 counters: boardgym.kernels.draughts.observe). Rewards
(``game.reward``): +1 / -1 at a win (G.1), 0 for a draw (G.2a-G.2e) or a truncation.

Options (constructor): ``repetition``, ``three_kings``, ``kings_only``, ``balance``,
``long_diagonal`` switch the draw rules G.2a..G.2e (all on by default, True/False);
``max_moves`` truncates the game after that many moves (plies: one player's whole move each;
``None`` = no cap). ``reset(seed=..., options={"fen": "W:W21,22:B1,K30"})`` starts from a PDN
FEN (a FEN that is not a string raises TypeError, a malformed one ValueError; unknown option
keys are ignored with a warning, as PettingZoo's api_test requires).

``infos[agent]``: ``"status"`` (the outcome name, e.g. ``"draw G.2a repetition"``) and
``"last_move"`` (PDN of the last completed move, None before the first); ``env.unwrapped.fen()``
gives the position's FEN.
``env.moves`` lists the PDN moves played; ``env.pdn()`` exports the game (envs/draughts_pdn.py).

Rendering (envs/draughts_render.py): ``render_mode`` ``"ansi"`` (text board), ``"rgb_array"``
(image) or ``"human"`` (prints the text board), each with the last move marked and, once the game
is over, who won (or how it was drawn, or that it was stopped at the move cap) in place of whose
move it is; ``render_text`` / ``render_rgb`` / ``to_svg`` take ``perspective`` (0: White's side
at the bottom, 1: Black's); a notebook shows the env as its board (a ``gymnasium.make`` env too:
boardgym.envs.notebook).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from boardgym.envs import draughts as api
from boardgym.envs import draughts_render
from boardgym.envs._aec import AGENTS, TwoPlayerAEC, warn_unknown_options, wrap_classic
from boardgym.kernels.draughts import game
from boardgym.kernels.draughts.board import S_CAP_SQ, S_SIDE

__all__ = ["env", "raw_env"]

_MOVE_TEXT = {}  # (mover, capture, *hops) -> PDN of the move, shared by every env
_MOVE_TEXT_MAX = 1 << 16


def env(**kwargs: Any) -> AECEnv:
    """The wrapped AEC env (TerminateIllegal -> AssertOutOfBounds -> OrderEnforcing)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TwoPlayerAEC):
    """Russian draughts AEC env without wrappers (raises ValueError on illegal actions)."""

    metadata = {**TwoPlayerAEC.metadata, "name": "russian_draughts_v0"}
    renderer = draughts_render

    def __init__(
        self,
        render_mode: str | None = None,
        max_moves: int | None = None,
        repetition: bool = True,
        three_kings: bool = True,
        kings_only: bool = True,
        balance: bool = True,
        long_diagonal: bool = True,
    ) -> None:
        self.max_moves = api.check_max_moves(max_moves)
        self.rules = api.rules_mask(repetition, three_kings, kings_only, balance, long_diagonal)
        super().__init__(
            game.N_ACTIONS, spaces.Box(0.0, 1.0, (game.OBS_LEN,), np.float32), render_mode
        )
        self.state = game.initial_state(self.rules)
        self.moves = []
        self.start_fen = api.to_fen(self.state)
        self._route = np.zeros(game.ROUTE_LEN, np.int64)
        self._hops = np.zeros(game.MAX_HOPS, np.int64)  # the move in progress, its hops so far
        self._n_hops = 0
        self._last_move = None

    # ---- hooks ------------------------------------------------------------------------------
    def _new_game(self, options):
        warn_unknown_options(options, ("fen",))
        if "fen" in options:
            state = api.from_fen(options["fen"], self.rules)
        else:
            state = game.initial_state(self.rules)
        self.state = state
        self.start_fen = api.to_fen(state)
        self.moves = []
        self._move_start = None
        self._n_hops = 0
        self._last_move = None

    def _to_move(self):
        return int(self.state[S_SIDE])

    def _fill_mask(self, out):
        return game.legal_mask(self.state, out)

    def _play(self, action):
        if self.state[S_CAP_SQ] < 0:  # a new move begins
            self._move_start = self.state
            self._n_hops = 0
        self._hops[self._n_hops] = action
        self._n_hops += 1
        self.state = game.step(self.state, action)
        if self.state[S_CAP_SQ] < 0:  # the move is complete
            self._last_move = self._move_text(self._move_start, self._hops[: self._n_hops])
            self.moves.append(self._last_move)

    def _move_text(self, start, hops):
        """PDN of the whole move played from start by hops (int64[k]), remembered by mover,
        kind and hops: the same hops from the same side always trace the same squares."""
        capture = bool(game.is_capture(start))
        key = (int(start[S_SIDE]), capture, *hops.tolist())
        text = _MOVE_TEXT.get(key)
        if text is None:
            n = game.hop_route(start, hops, self._route)
            text = api.format_move(self._route[:n].tolist(), capture)
            if len(_MOVE_TEXT) >= _MOVE_TEXT_MAX:
                _MOVE_TEXT.clear()
            _MOVE_TEXT[key] = text
        return text

    def last_move(self) -> str | None:
        """PDN of the last completed move (what pictures mark), None before the first."""
        return self._last_move

    def status(self) -> int:
        """Outcome code of the current position (boardgym.kernels.draughts.outcome)."""
        return int(game.game_status(self.state))

    def _result(self):
        code, trunc = game.result(self.state, self.max_moves or 0)
        self._status = code
        if code == game.ONGOING:
            return False, bool(trunc), (0.0, 0.0)
        return True, False, (game.reward(code, 0), game.reward(code, 1))

    def _encode(self, player):
        out = np.empty(game.OBS_LEN, np.float32)
        game.encode_obs(self.state, player, self.max_moves or 0, out)
        return out

    def _step_infos(self):
        status, last = game.STATUS_NAMES[self._status], self._last_move
        return {a: {"status": status, "last_move": last} for a in AGENTS}

    def fen(self) -> str:
        """PDN FEN of the current position (between whole moves)."""
        return api.to_fen(self.state)

    def pdn(self, capture_sep: str = ":", **tags: object) -> str:
        """The game so far as PDN text ([GameType "25"], algebraic moves; see draughts_pdn)."""
        from boardgym.envs.draughts_pdn import game_to_pdn

        result = {game.WHITE_WON: "2-0", game.BLACK_WON: "0-2"}.get(self.status(), "*")
        if result == "*" and self.is_over and self.status() != game.ONGOING:
            result = "1-1"
        return game_to_pdn(
            self.moves, start_fen=self.start_fen, result=result, capture_sep=capture_sep, **tags
        )
