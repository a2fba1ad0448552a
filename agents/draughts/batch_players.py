"""Batched in-process draughts players: the move of many positions in one Numba call, no Python
loop over games or moves (what a league's fixed members and a batched match use).

They choose from the observations alone (they decode to the position:
boardgym.kernels.draughts.observe.decode_obs, as ``GreedyAgent.act`` reads them): ``GreedyBatch``
(``greedy_actions``) scores every whole move of M positions as GreedyAgent does (one ply with the
search evaluation and the forced captures resolved), ``recapture_actions`` plays the in-kernel
one-ply material player (boardgym.kernels.draughts.opponents); ties are broken by per-slot random
streams. The answer is the first hop of the chosen move: a player whose move takes several
actions (a capture chain) chooses its whole move again at each of them, among the ways to finish
the move under way, so the best one stays reachable and it plays one of its best moves.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from boardgym.agents.draughts.evaluation import Evaluation
from boardgym.agents.draughts.search import SearchBuffers, root_children, score_children
from boardgym.kernels.draughts.board import MAX_HOPS, MAX_MOVES, STATE_LEN
from boardgym.kernels.draughts.game import RULES_ALL, route_actions
from boardgym.kernels.draughts.move import apply_move
from boardgym.kernels.draughts.movegen import gen_moves
from boardgym.kernels.draughts.observe import decode_obs
from boardgym.kernels.draughts.opponents import recapture_move
from boardgym.kernels.rng import rand_below


@njit(cache=True)
def greedy_actions(
    obs,
    slots,
    rngs,
    resolve,
    kind,
    w1,
    b1,
    w2,
    b2,
    scale,
    pt,
    rows,
    children,
    scores,
    tt,
    killers,
    history,
    moves,
    scratch,
    work,
    stats,
    hidden,
    ecache,
    eg,
    hops,
    out,
):
    """GreedyAgent's first hop in each of M draughts positions: obs float32 (M, OBS_LEN) (the
    mover's view), slots int64 (M,) (the random stream of each: rngs[slots[k]], for ties),
    evaluation (kind, w1, b1, w2, b2, scale), the search buffers of draughts_search and its
    endgame tables eg (none here: GreedyAgent's one-ply scores);
    out int64 (M,) the action (mover's frame). Returns the number of positions without a move."""
    bad = 0
    for k in range(obs.shape[0]):
        s, code = decode_obs(obs[k], np.int64(RULES_ALL))
        n = root_children(s, rows, children)
        if code != 0 or n == 0:
            out[k] = -1
            bad += 1
            continue
        score_children(
            children,
            n,
            resolve,
            tt,
            killers,
            history,
            moves,
            scratch,
            work,
            stats,
            kind,
            w1,
            b1,
            w2,
            b2,
            scale,
            pt,
            hidden,
            ecache,
            eg,
            scores,
        )
        best, ties = 0, 0
        for i in range(n):
            if scores[i] > scores[best]:
                best, ties = i, 1
            elif scores[i] == scores[best]:
                ties += 1
                if ties > 1 and rand_below(rngs, slots[k], ties) == 0:  # reservoir among equals
                    best = i
        route_actions(s, rows[best], hops)
        out[k] = hops[0]
    return bad


@njit(cache=True)
def recapture_actions(obs, slots, rngs, rows, out):
    """The in-kernel recapture player's first hop (mover's frame) in each of M draughts positions
    (obs float32 (M, OBS_LEN), mover's view; ties from rngs[slots[k]]) into out int64 (M,)."""
    hops = np.zeros(MAX_HOPS, np.int64)
    bad = 0
    for k in range(obs.shape[0]):
        s, code = decode_obs(obs[k], np.int64(RULES_ALL))
        n = gen_moves(s, rows)
        if code != 0 or n == 0:
            out[k] = -1
            bad += 1
            continue
        after = recapture_move(s, rngs, slots[k])
        pick = 0
        for i in range(n):
            t = apply_move(s, rows[i])
            same = True
            for j in range(STATE_LEN):
                if t[j] != after[j]:
                    same = False
                    break
            if same:
                pick = i
                break
        route_actions(s, rows[pick], hops)
        out[k] = hops[0]
    return bad


class GreedyBatch:
    """GreedyAgent for many draughts positions at once: ``actions(obs, slots, rngs)``.

    evaluation: None/"material", an Evaluation or an .npz path (as GreedyAgent);
    resolve_captures as GreedyAgent."""

    def __init__(
        self, evaluation: Evaluation | str | None = None, resolve_captures: bool = True
    ) -> None:
        if evaluation is None or (isinstance(evaluation, str) and evaluation == "material"):
            evaluation = Evaluation.material()
        elif isinstance(evaluation, str):
            evaluation = Evaluation.load(evaluation)
        elif not isinstance(evaluation, Evaluation):
            raise ValueError(
                f"evaluation must be None, 'material', an Evaluation or an .npz "
                f"path, got {evaluation!r}"
            )
        self.evaluation = evaluation
        self.resolve = int(bool(resolve_captures))
        self.buffers = SearchBuffers(tt_bits=4)
        self.scores = np.zeros(MAX_MOVES, np.int64)
        self.hops = np.zeros(MAX_HOPS, np.int64)

    def actions(
        self, obs: np.ndarray, slots: npt.ArrayLike, rngs: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """int64 (M,): the first hop of GreedyAgent's move for each observation (float32 (M,
        OBS_LEN), the mover's view); ties drawn from rngs[slots[k]] (int64 SplitMix states)."""
        obs = np.ascontiguousarray(obs, np.float32)
        out = np.zeros(obs.shape[0], np.int64)
        b = self.buffers
        *evaluation, hidden, ecache = b.evaluation_args(self.evaluation)
        bad = greedy_actions(
            obs,
            np.ascontiguousarray(slots, np.int64),
            rngs,
            self.resolve,
            *evaluation,
            b.rows,
            b.children,
            self.scores,
            b.tt,
            b.killers,
            b.history,
            b.moves,
            b.scratch,
            b.work,
            b.stats,
            hidden,
            ecache,
            b.egdb,
            self.hops,
            out,
        )
        if bad:
            raise ValueError(f"{bad} observation(s) without a legal move for the side to move")
        return out
