"""PettingZoo AEC environment for Russian draughts: ``russian_draughts_v0``.

Agents ``player_0`` (White, moves first) and ``player_1`` (Black). One action is one simple move
or one capture hop (boardgym.kernels.draughts.codec), seen from the acting player: squares are
turned 180 degrees for Black (boardgym.kernels.draughts.observe.VIEW_ACTION), like the
observation, so both seats face the same board. During a capture chain the same agent acts again
until the chain is complete (25.2); the mask then holds only the continuing hops.

Observation ``Dict(observation=Box(0, 1, (198,), float32), action_mask=Box(0, 1, (1024,), int8))``
(32 dark squares x 6 planes + 6 counters: boardgym.kernels.draughts.observe). Rewards: +1 / -1 at a win (G.1), 0 for a draw
(G.2a-G.2e) or a truncation.

Options (constructor): ``repetition``, ``three_kings``, ``kings_only``, ``balance``,
``long_diagonal`` switch the draw rules G.2a..G.2e (all on by default); ``max_moves`` truncates
the game after that many moves (plies: one player's whole move each; ``None`` = no cap).
``reset(seed=..., options={"fen": "W:W21,22:B1,K30"})`` starts from a PDN FEN (a malformed FEN
raises ValueError; unknown option keys are ignored with a warning, as PettingZoo's api_test
requires).

``infos[agent]``: ``"status"`` (the outcome name, e.g. ``"draw G.2a repetition"``) and
``"last_move"`` (PDN of the last completed move, None before the first); ``env.unwrapped.fen()``
gives the position's FEN.
``env.moves`` lists the PDN moves played; ``env.pdn()`` exports the game (envs/draughts_pdn.py).
"""
import numpy as np
from gymnasium import spaces

from boardgym.envs import draughts as api
from boardgym.envs._aec import AGENTS, TwoPlayerAEC, warn_unknown_options, wrap_classic
from boardgym.envs.draughts_render import render_rgb, render_text
from boardgym.kernels.draughts.board import S_BK, S_BM, S_CAP_SQ, S_PLY, S_RULES, S_SIDE, S_WK, S_WM
from boardgym.kernels.draughts.codec import N_ACTIONS
from boardgym.kernels.draughts.codec import apply_action as k_apply_action
from boardgym.kernels.draughts.codec import legal_action_mask as k_mask
from boardgym.kernels.draughts.observe import OBS_LEN, VIEW_ACTION, encode_obs
from boardgym.kernels.draughts.outcome import (
    BLACK_WON, ONGOING, RULE_BALANCE, RULE_KINGS_ONLY, RULE_LONG_DIAGONAL, RULE_REPETITION,
    RULE_THREE_KINGS, STATUS_NAMES, WHITE_WON,
)
from boardgym.kernels.draughts.outcome import game_status as k_status

__all__ = ["env", "raw_env"]

_RULE_FLAGS = {"repetition": RULE_REPETITION, "three_kings": RULE_THREE_KINGS,
               "kings_only": RULE_KINGS_ONLY, "balance": RULE_BALANCE,
               "long_diagonal": RULE_LONG_DIAGONAL}


def rules_mask(repetition=True, three_kings=True, kings_only=True, balance=True, long_diagonal=True):
    """The kernel's draw-rule bitmask (state[S_RULES]) for the G.2a..G.2e switches."""
    flags = dict(repetition=repetition, three_kings=three_kings, kings_only=kings_only,
                 balance=balance, long_diagonal=long_diagonal)
    rules = 0
    for name, on in flags.items():
        if not isinstance(on, (bool, np.bool_)):
            raise ValueError(f"draw rule option {name} must be True or False, got {on!r}")
        rules |= _RULE_FLAGS[name] if on else 0
    return rules


def env(**kwargs):
    """The wrapped AEC env (TerminateIllegal -> AssertOutOfBounds -> OrderEnforcing)."""
    return wrap_classic(raw_env(**kwargs))


class raw_env(TwoPlayerAEC):
    """Russian draughts AEC env without wrappers (raises ValueError on illegal actions)."""

    metadata = {**TwoPlayerAEC.metadata, "name": "russian_draughts_v0"}

    def __init__(self, render_mode=None, max_moves=None, repetition=True, three_kings=True,
                 kings_only=True, balance=True, long_diagonal=True):
        if max_moves is not None and (int(max_moves) != max_moves or max_moves < 1):
            raise ValueError(f"max_moves must be a positive integer or None, got {max_moves!r}")
        self.rules = rules_mask(repetition, three_kings, kings_only, balance, long_diagonal)
        self.max_moves = None if max_moves is None else int(max_moves)
        super().__init__(N_ACTIONS, spaces.Box(0.0, 1.0, (OBS_LEN,), np.float32), render_mode)
        self._kernel_mask = np.zeros(N_ACTIONS, np.int8)
        self.state = api.initial_state()
        self.moves = []
        self.start_fen = api.to_fen(self.state)

    # ---- hooks ------------------------------------------------------------------------------
    def _new_game(self, options):
        warn_unknown_options(options, ("fen",))
        state = api.from_fen(options["fen"]) if "fen" in options else api.initial_state()
        state[S_RULES] = self.rules
        self.state = state
        self.start_fen = api.to_fen(state)
        self.moves = []
        self._route = []
        self._last_move = None

    def _to_move(self):
        return int(self.state[S_SIDE])

    def _fill_mask(self, out):
        if self.state[S_SIDE] == 0:
            return k_mask(self.state, out)
        n = k_mask(self.state, self._kernel_mask)
        out[:] = self._kernel_mask[VIEW_ACTION[1]]  # Black acts in the turned-round frame
        return n

    def _play(self, action):
        side = int(self.state[S_SIDE])
        ka = int(VIEW_ACTION[side, action])
        before = self.state
        self.state = k_apply_action(before, ka)
        if not self._route:
            self._route.append(ka // 32)
        self._route.append(ka % 32)
        if self.state[S_CAP_SQ] < 0:  # the move is complete
            opp_before = bin(int(before[S_BM] | before[S_BK]) if side == 0
                             else int(before[S_WM] | before[S_WK])).count("1")
            opp_after = bin(int(self.state[S_BM] | self.state[S_BK]) if side == 0
                            else int(self.state[S_WM] | self.state[S_WK])).count("1")
            sep = ":" if opp_after < opp_before or len(self._route) > 2 else "-"
            self._last_move = sep.join(api.square_name(s) for s in self._route)
            self.moves.append(self._last_move)
            self._route = []

    def status(self):
        """Outcome code of the current position (boardgym.kernels.draughts.outcome)."""
        return int(k_status(self.state))

    def _result(self):
        self._status = code = self.status()
        if code == WHITE_WON:
            return True, False, (1.0, -1.0)
        if code == BLACK_WON:
            return True, False, (-1.0, 1.0)
        if code != ONGOING:
            return True, False, (0.0, 0.0)
        if (self.max_moves is not None and self.state[S_CAP_SQ] < 0
                and self.state[S_PLY] >= self.max_moves):
            return False, True, (0.0, 0.0)
        return False, False, (0.0, 0.0)

    def _encode(self, player):
        out = np.empty(OBS_LEN, np.float32)
        encode_obs(self.state, player, self.max_moves or 0, out)
        return out

    def _step_infos(self):
        status, last = STATUS_NAMES[self._status], self._last_move
        return {a: {"status": status, "last_move": last} for a in AGENTS}

    def fen(self):
        """PDN FEN of the current position (between whole moves)."""
        return api.to_fen(self.state)

    def render_text(self):
        return render_text(self.state)

    def render_rgb(self):
        return render_rgb(self.state)

    def pdn(self, capture_sep=":", **tags):
        """The game so far as PDN text ([GameType "25"], algebraic moves; see draughts_pdn)."""
        from boardgym.envs.draughts_pdn import game_to_pdn
        result = {WHITE_WON: "2-0", BLACK_WON: "0-2"}.get(self.status(), "*")
        if result == "*" and self._done and self.status() != ONGOING:
            result = "1-1"
        return game_to_pdn(self.moves, start_fen=self.start_fen, result=result,
                           capture_sep=capture_sep, **tags)
