"""The self-play league of the PPO trainer: fixed players and past snapshots, sampled by how hard
they are (prioritized fictitious self-play), one opponent per game slot.

Members: the fixed players — ``"random"`` (a uniformly random legal action at each step), in
draughts ``"recapture"`` (the in-kernel one-ply material player, boardgym.kernels.draughts.
opponents) and ``"greedy"`` (boardgym.agents' ``GreedyAgent``: one ply with the search
evaluation and the forced captures resolved), in backgammon ``"greedy"`` (the in-kernel one-ply
player of boardgym.kernels.backgammon.opponents, which ``GreedyAgent`` also is) — and the newest
``pool_size`` frozen snapshots of the learner. Every game slot of the trainer's vector env has
one member for the whole game; when a game ends its result (the learner's score: win 1, draw
1/2, loss 0) updates that member's recent score and the slot draws its next member.

Sampling (prioritized fictitious self-play, as in AlphaStar's league): member m is drawn with
probability proportional to ``f(p_m) = (1 - p_m) ** 2 + floor`` ("hard"; or ``p_m (1 - p_m) +
floor``, "var": most weight where the learner wins about half), where ``p_m`` is the learner's
recent score against m — an exponentially weighted mean over its games (each new game weighs
1, older ones ``decay`` less per game; a prior of ``prior_games`` games at 1/2 for a new
member). Members the learner still loses to are played most; beaten ones keep a small share
(``floor``) so that what was learnt against them is not forgotten.

The fixed players are the batched in-process players of the game rooms, one Numba call per
member: in draughts ``GreedyBatch`` and ``recapture_actions`` (boardgym.agents.draughts.
batch_players, from the observations), in backgammon ``backgammon_greedy_actions``
(boardgym.agents.backgammon.batch_players, from the bound core's positions). Snapshots answer in
one batched forward per member.

The league is the opponent callable of the vector env (boardgym.envs.vector.make_sb3_vec_env
with ``opponent=league``): ``league(obs (M, O), masks (M, A)) -> actions (M,)`` for the games
where the opponent is to move, found from the bound core (``bind(core)``) in the same order
as the env asks. ``get_state`` / ``set_state`` hold everything (members, scores, snapshots,
slot assignment, generators) for an exact resume.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from boardgym.agents.backgammon.batch_players import backgammon_greedy_actions
from boardgym.agents.draughts.batch_players import GreedyBatch, recapture_actions
from boardgym.kernels.draughts.board import MAX_MOVES, ROW_LEN
from boardgym.kernels.rng import seed_rngs

if TYPE_CHECKING:  # torch and sb3-contrib: only where a snapshot is used
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from boardgym.agents.draughts.evaluation import Evaluation
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

#: the fixed members of each game's league
FIXED = {"draughts": ("random", "recapture", "greedy"), "backgammon": ("random", "greedy")}


PFSP = ("hard", "var")


def pfsp_weights(
    scores: npt.ArrayLike, floor: float = 0.02, kind: str = "hard"
) -> npt.NDArray[np.float64]:
    """Prioritized fictitious self-play weights (normalised) from the learner's scores p in [0,
    1] against each member: ``"hard"`` (1 - p) ** 2 + floor (the members it loses to most),
    ``"var"`` p (1 - p) + floor (the members it beats about half the time: the most to learn
    from when a member is still out of reach)."""
    if kind not in PFSP:
        raise ValueError(f"PFSP weighting must be one of {PFSP}, got {kind!r}")
    p = np.clip(np.asarray(scores, np.float64), 0.0, 1.0)
    w = ((1.0 - p) ** 2 if kind == "hard" else p * (1.0 - p)) + floor
    return w / w.sum()


class League:
    """The learner's opponents, one member per game slot (see the module docstring).

    game: "draughts" or "backgammon"; num_envs: game slots; seed: the league's generators;
    pool_size: snapshots kept (the oldest leaves); fixed: the fixed members (default FIXED[game]);
    decay: weight of a member's older games per new one; prior_games: weight of the 1/2 prior;
    floor: the PFSP floor; pfsp: the weighting ("hard" or "var", pfsp_weights); greedy:
    evaluation of the draughts "greedy" member (None: material)."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        seed: int = 0,
        pool_size: int = 8,
        fixed: Iterable[str] | None = None,
        decay: float = 0.99,
        prior_games: float = 4.0,
        floor: float = 0.02,
        greedy: Evaluation | str | None = None,
        pfsp: str = "hard",
    ) -> None:
        if pfsp not in PFSP:
            raise ValueError(f"pfsp must be one of {PFSP}, got {pfsp!r}")
        self.pfsp = pfsp
        if game not in FIXED:
            raise ValueError(f"game must be 'draughts' or 'backgammon', got {game!r}")
        fixed = FIXED[game] if fixed is None else tuple(fixed)
        if isinstance(fixed, str) or not fixed or not set(fixed) <= set(FIXED[game]):
            raise ValueError(
                f"fixed members of a {game} league are some of {FIXED[game]}, got {fixed!r}"
            )
        if not 0.0 < decay <= 1.0 or prior_games < 0 or floor < 0:
            raise ValueError("decay must be in (0, 1], prior_games and floor >= 0")
        self.game, self.num_envs = game, int(num_envs)
        self.pool_size, self.fixed = int(pool_size), fixed
        self.decay, self.prior_games, self.floor = float(decay), float(prior_games), float(floor)
        self.rng = np.random.default_rng(seed)
        self.rngs = seed_rngs(int(seed) + 7_777, self.num_envs)  # tie-breaks of the fixed players
        self.names = list(fixed)  # member names; snapshots are "snap<steps>"
        self.policies = {}  # snapshot name -> frozen SB3 policy
        self.weight = np.zeros(0)  # per member: decayed game count and score sum
        self.score_sum = np.zeros(0)
        self.games = np.zeros(0, np.int64)
        self._grow(len(self.names))
        self.slot = np.zeros(self.num_envs, np.int64)  # member index per slot
        self.core = None
        self._greedy = GreedyBatch(greedy) if game == "draughts" and "greedy" in fixed else None
        self._rows = np.zeros((MAX_MOVES, ROW_LEN), np.int64)
        self.assign(np.arange(self.num_envs))

    def _grow(self, n):
        extra = n - self.weight.size
        self.weight = np.concatenate([self.weight, np.zeros(extra)])
        self.score_sum = np.concatenate([self.score_sum, np.zeros(extra)])
        self.games = np.concatenate([self.games, np.zeros(extra, np.int64)])

    # ---- scores and sampling ------------------------------------------------------------------
    def scores(self) -> npt.NDArray[np.float64]:
        """float64 (members,): the learner's recent score against each member (prior 1/2)."""
        return (self.score_sum + 0.5 * self.prior_games) / (self.weight + self.prior_games)

    def weights(self) -> npt.NDArray[np.float64]:
        """float64 (members,): the PFSP sampling probabilities (pfsp_weights of scores())."""
        return pfsp_weights(self.scores(), self.floor, self.pfsp)

    def assign(self, slots: npt.ArrayLike) -> None:
        """Draw a member for each slot in slots (int array) from weights()."""
        slots = np.asarray(slots, np.int64)
        if slots.size:
            self.slot[slots] = self.rng.choice(len(self.names), size=slots.size, p=self.weights())

    def record(self, slots: npt.ArrayLike, learner_rewards: npt.ArrayLike) -> None:
        """Games ended in slots (int (k,)) with the learner's rewards (k,) (> 0 win, 0 draw, < 0
        loss): update their members' scores, then draw the slots' next members."""
        slots = np.asarray(slots, np.int64)
        score = 0.5 + 0.5 * np.sign(np.asarray(learner_rewards, np.float64))
        for m, x in zip(self.slot[slots], score):  # a loop over finished games, not moves
            self.weight[m] = self.weight[m] * self.decay + 1.0
            self.score_sum[m] = self.score_sum[m] * self.decay + x
            self.games[m] += 1
        self.assign(slots)

    def add_snapshot(self, policy: MaskableActorCriticPolicy, name: str) -> None:
        """Freeze a copy of policy (an SB3 policy) as member name; the oldest snapshot beyond
        pool_size leaves (its slots draw new members)."""
        self.policies[name] = _freeze(policy, policy.state_dict())
        self.names.append(name)
        self._grow(len(self.names))
        snaps = [i for i, n in enumerate(self.names) if n in self.policies]
        if len(snaps) > self.pool_size:
            self._remove(snaps[0])

    def _remove(self, m):
        del self.policies[self.names[m]]
        keep = np.arange(len(self.names)) != m
        self.names = [n for i, n in enumerate(self.names) if i != m]
        self.weight, self.score_sum, self.games = (
            self.weight[keep],
            self.score_sum[keep],
            self.games[keep],
        )
        orphans = np.flatnonzero(self.slot == m)
        self.slot[self.slot > m] -= 1
        self.assign(orphans)

    def table(self) -> dict[str, dict[str, float | int]]:
        """{member: {"score", "weight", "games", "slots"}} for the logs."""
        s, w = self.scores(), self.weights()
        counts = np.bincount(self.slot, minlength=len(self.names))
        return {
            n: {
                "score": float(s[i]),
                "weight": float(w[i]),
                "games": int(self.games[i]),
                "slots": int(counts[i]),
            }
            for i, n in enumerate(self.names)
        }

    # ---- playing --------------------------------------------------------------------------------
    def bind(self, core: DraughtsBatch | BackgammonBatch) -> None:
        """The batched core (the vector env's) whose waiting games this league answers."""
        self.core = core

    def __call__(self, obs: np.ndarray, masks: np.ndarray) -> npt.NDArray[np.int64]:
        core = self.core
        if core is None:
            raise ValueError("League: bind(core) first (the core of the env it plays in)")
        live = ~(core.done.any(1).astype(bool))
        games = np.flatnonzero(live & (core.current != core.seats))
        if games.size != len(obs):
            raise ValueError("League: the env asked for other games than its core's waiting ones")
        return self.actions(obs, masks, games)

    def actions(
        self, obs: np.ndarray, masks: np.ndarray, games: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """int64 (M,): each waiting game's member's action (obs (M, O), masks (M, A) of the
        games ``games`` (slot indices))."""
        out = np.zeros(len(games), np.int64)
        members = self.slot[games]
        for m in np.unique(members):
            k = np.flatnonzero(members == m)
            out[k] = self._member_actions(self.names[m], obs[k], masks[k], games[k])
        return out

    def _member_actions(self, name, obs, masks, slots):
        if name == "random":
            return (self.rng.random(masks.shape) * masks).argmax(1)
        if name == "greedy" and self.game == "backgammon":
            out = np.zeros(len(obs), np.int64)
            if self.core is None:
                raise ValueError(
                    "League: the backgammon greedy member reads the positions of "
                    "the bound core: bind(core) first"
                )
            bad = backgammon_greedy_actions(np.ascontiguousarray(self.core.states[slots]), out)
            if bad:
                raise ValueError(f"{bad} position(s) without a move for the side on roll")
            return out
        if name == "greedy":
            return self._greedy.actions(obs, slots, self.rngs)
        if name == "recapture":
            out = np.zeros(len(obs), np.int64)
            bad = recapture_actions(
                np.ascontiguousarray(obs, np.float32), slots, self.rngs, self._rows, out
            )
            if bad:
                raise ValueError(f"{bad} observation(s) without a legal move")
            return out
        import torch

        with torch.no_grad():
            a, _, _ = self.policies[name].forward(
                torch.as_tensor(obs), deterministic=False, action_masks=masks
            )
        return a.numpy()

    # ---- checkpoints ----------------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Everything a resumed run needs (snapshots as state dicts)."""
        return {
            "names": list(self.names),
            "weight": self.weight.copy(),
            "score_sum": self.score_sum.copy(),
            "games": self.games.copy(),
            "slot": self.slot.copy(),
            "rng": self.rng.bit_generator.state,
            "rngs": self.rngs.copy(),
            "snapshots": {n: p.state_dict() for n, p in self.policies.items()},
        }

    def set_state(self, state: dict[str, Any], policy: MaskableActorCriticPolicy) -> None:
        """Restore get_state() output; policy (an SB3 policy) gives the snapshots' architecture."""
        if sorted(state["snapshots"]) != sorted(n for n in state["names"] if n not in self.fixed):
            raise ValueError("league state: the snapshots do not match the member names")
        if state["slot"].shape != (self.num_envs,):
            raise ValueError(
                f"league state: {state['slot'].shape[0]} slots, this league has {self.num_envs}"
            )
        self.names = list(state["names"])
        self.weight, self.score_sum = state["weight"].copy(), state["score_sum"].copy()
        self.games, self.slot = state["games"].copy(), state["slot"].copy()
        self.rng.bit_generator.state = state["rng"]
        self.rngs = state["rngs"].copy()
        self.policies = {n: _freeze(policy, w) for n, w in state["snapshots"].items()}


def _freeze(policy, weights):
    """An eval-mode copy of an SB3 policy's architecture holding weights."""
    frozen = type(policy)(**policy._get_constructor_parameters())
    frozen.load_state_dict(weights)
    return frozen.eval()
