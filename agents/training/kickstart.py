"""Kickstarting the PPO learner from a teacher: behaviour cloning before self-play.

``boardgym train --algo ppo --teacher SPEC`` (boardgym.agents.training.ppo.train_ppo
``teacher=``) runs a teacher phase before the league self-play:

1. **Positions** (``teacher_chunk``): the teacher plays ``teacher_games`` games against itself
   on the batched core in its two-player view (draughts from the training openings, e.g. the
   150 ballots), in chunks of ``CHUNK_GAMES`` games played to their end; at each step the
   acting side plays a uniformly random legal action with probability ``explore`` instead of
   the teacher's (the states stay diverse; the teacher then chooses again from where the game
   went). Every position is labelled with the teacher's action there: the agent's own
   ``act_state`` (draughts: the next hop of the route of the whole move its search chose, so a
   multi-capture is labelled hop by hop; backgammon: the next checker step of the route of its
   chosen play), in the env's action encoding and the mover's frame, and with the game's result
   for the mover (the value head's target). One agent per game slot keeps its route between the
   steps of a move. A chunk is a pure function of (spec, seed, chunk index) and is stored in
   ``<run>/teacher/chunk_<k>.npz`` (observations, the legal sets packed as bits, labels, results).
2. **Cloning** (``clone_epoch``): ``teacher_epochs`` passes over the positions (chunk 0 held
   out when there are several) minimising the cross-entropy of the policy's masked
   distribution (LegalActionPolicy: the softmax over the legal actions) at the teacher's
   actions plus ``value_coef`` times the squared error of the value head against the results,
   with the policy's own Adam optimizer at learning rate ``lr`` (PPO then sets its own rate).
   Minibatches come from a generator seeded by (seed, epoch). Each epoch logs the train and
   held-out cross-entropy and the held-out agreement with the teacher.
3. PPO with the league continues from the cloned policy (and optimizer). Optionally
   (``mix`` > 0) every PPO rollout start adds ``MIX_BATCHES`` minibatches of the same
   cross-entropy, weighted by ``mix`` decaying linearly to 0 at ``mix_steps`` learner steps.

The phase checkpoints after every chunk and every epoch (``resume.pt`` counters
``teacher_chunks`` / ``teacher_epochs``, the model and optimizer): a run killed in the teacher
phase resumes exactly (tested).

Teachers (``parse_teacher``; ``registry.parse_spec`` syntax ``name:key=value,...``): draughts
``alphabeta`` / ``alphabeta-material`` / ``alphabeta-td`` (AlphaBetaAgent; ``depth=4`` keeps
labelling at about 2 ms a position here) and ``greedy``; backgammon ``td`` (TDSearchAgent;
``plies=0`` is the net alone), ``greedy`` and ``expectimax``. Names may carry the game prefix
(``draughts-alphabeta:depth=4``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from boardgym.agents.files import write_atomically

if TYPE_CHECKING:  # torch and sb3-contrib are imported where a policy is trained
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from boardgym.agents.registry import Agent

#: teachers by game (registry short names)
TEACHERS = {
    "draughts": ("alphabeta", "alphabeta-material", "alphabeta-td", "greedy"),
    "backgammon": ("td", "greedy", "expectimax"),
}
#: games per generated chunk (one per game slot of the generating core)
CHUNK_GAMES = 64
#: cross-entropy minibatches added at every PPO rollout start when mixing
MIX_BATCHES = 2
TEACHER_DIR = "teacher"


def parse_teacher(game: str, spec: str) -> tuple[str, dict[str, Any]]:
    """(registry name, kwargs) of a teacher spec for game; ValueError naming the spec when it is
    not a teacher of that game or its options do not build one."""
    from boardgym.agents.registry import parse_spec

    if game not in TEACHERS:
        raise ValueError(f"game must be 'draughts' or 'backgammon', got {game!r}")
    try:
        name, kwargs = parse_spec(spec)
    except ValueError as e:
        raise ValueError(f"teacher {spec!r}: {e}") from None
    short = name[len(game) + 1 :] if name.startswith(game + "-") else name
    if short not in TEACHERS[game]:
        raise ValueError(
            f"teacher {spec!r} is not a {game} teacher; one of "
            f"{', '.join(f'{game}-{t}' for t in TEACHERS[game])}"
        )
    make_teacher(game, (short, kwargs), spec)  # its options build an agent (or ValueError)
    return short, kwargs


def make_teacher(
    game: str,
    parsed: tuple[str, Mapping[str, Any]],
    spec: str | None = None,
    seed: int | None = None,
) -> Agent:
    """A fresh teacher agent of parse_teacher's (name, kwargs); seed fixes its tie-breaks."""
    from boardgym.agents.registry import load

    name, kwargs = parsed
    try:
        agent = load(name, game=game, **kwargs)
    except (TypeError, ValueError) as e:
        raise ValueError(f"teacher {spec or name!r}: {' '.join(str(e).split())}") from None
    if seed is not None and hasattr(agent, "seed") and callable(agent.seed):
        agent.seed(seed)
    return agent


def _core(game, n, openings, max_moves):
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    if game == "draughts":
        return DraughtsBatch(n, max_moves=max_moves, openings=openings, threads=1)
    return BackgammonBatch(n, threads=1)


def chunk_seeds(seed: int, chunk: int) -> tuple[int, int, int, int]:
    """(core, agents, exploration coin, random moves) seeds of chunk k of a run's seed: the core
    is reset with the first, game slot j's teacher is seeded with the second + j."""
    ss = np.random.SeedSequence([int(seed), int(chunk), 0x7EAC])
    return tuple(int(x) for x in ss.generate_state(4, np.uint64) >> np.uint64(1))


def teacher_chunk(
    game: str,
    parsed: tuple[str, Mapping[str, Any]],
    seed: int,
    chunk: int,
    n_games: int = CHUNK_GAMES,
    explore: float = 0.1,
    openings: Sequence[str] | None = None,
    max_moves: int | None = 300,
) -> dict[str, np.ndarray]:
    """n_games teacher games played to their end (see the module docstring) -> dict: obs
    float32 (P, O) (the mover's view), legal uint8 (P, ceil(A / 8)) (the masks, np.packbits),
    actions int64 (P,) (the teacher's), played int64 (P,) (the action played: the teacher's or
    an exploration move), results float32 (P,) (the game's result for the mover), games int64
    (P,) (the game slot, positions of a game in order), movers int64 (P,). A pure
    function of (parsed, seed, chunk, n_games, explore, openings, max_moves)."""
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must be in [0, 1], got {explore}")
    from boardgym.kernels.rng import seed_rngs

    core_seed, agent_seed, coin_seed, pick_seed = chunk_seeds(seed, chunk)
    core = _core(game, n_games, openings, max_moves)
    core.reset(core_seed)
    agents = [make_teacher(game, parsed, seed=agent_seed + k) for k in range(n_games)]
    coin = np.random.default_rng(coin_seed)
    picks = seed_rngs(pick_seed, n_games)
    obs, masks, labels, played, movers, slots = [], [], [], [], [], []
    result = np.zeros((n_games, 2), np.float32)
    live = np.ones(n_games, bool)
    while live.any():
        games = np.flatnonzero(live)
        teach = np.array([agents[k].act_state(core.states[k]) for k in games], np.int64)
        rand = core.random_actions(rngs=picks)[games]
        act = np.where(coin.random(games.size) < explore, rand, teach)
        obs.append(core.obs[games].copy())
        masks.append(np.packbits(core.masks[games] != 0, axis=1))
        labels.append(teach)
        played.append(act)
        movers.append(core.current[games].copy())
        slots.append(games)
        core.step_subset(games, act)
        ended = games[core.done[games].any(1)]
        result[ended] = core.rewards[ended]
        live[ended] = False
    slots, movers = np.concatenate(slots), np.concatenate(movers)
    return {
        "obs": np.concatenate(obs),
        "legal": np.concatenate(masks),
        "actions": np.concatenate(labels),
        "played": np.concatenate(played),
        "results": result[slots, movers].astype(np.float32),
        "games": slots,
        "movers": movers,
    }


def chunk_path(run_dir: str | os.PathLike[str], k: int) -> str:
    return os.path.join(run_dir, TEACHER_DIR, f"chunk_{k:05d}.npz")


def save_chunk(run_dir: str | os.PathLike[str], k: int, data: Mapping[str, np.ndarray]) -> None:
    """Write chunk k of the run's teacher positions (atomically)."""
    os.makedirs(os.path.join(run_dir, TEACHER_DIR), exist_ok=True)
    write_atomically(chunk_path(run_dir, k), lambda tmp: np.savez(tmp, **data), ".npz")


def load_chunks(run_dir: str | os.PathLike[str], n: int) -> dict[str, np.ndarray]:
    """The run's first n chunks as one dict of arrays plus ``chunk`` int64 (P,) (each
    position's chunk); ValueError naming a missing chunk file."""
    parts = []
    for k in range(n):
        path = chunk_path(run_dir, k)
        if not os.path.isfile(path):
            raise ValueError(
                f"teacher phase: missing {path} (resume needs the run's teacher/ folder)"
            )
        with np.load(path) as z:
            parts.append({key: z[key] for key in ("obs", "legal", "actions", "results")})
    out = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    out["chunk"] = np.concatenate([np.full(len(p["actions"]), k) for k, p in enumerate(parts)])
    return out


def split(data: Mapping[str, np.ndarray]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(train, held-out) position indices: chunk 0 is held out when there are several chunks."""
    idx = np.arange(len(data["actions"]))
    if data["chunk"].max() == 0:
        return idx, idx[:0]
    return idx[data["chunk"] > 0], idx[data["chunk"] == 0]


def _batch(data, idx, n_actions):
    import torch

    obs = torch.as_tensor(data["obs"][idx])
    masks = np.unpackbits(data["legal"][idx], axis=1, count=n_actions).astype(bool)
    return obs, masks, torch.as_tensor(data["actions"][idx]), torch.as_tensor(data["results"][idx])


def bc_loss(
    policy: MaskableActorCriticPolicy,
    data: Mapping[str, np.ndarray],
    idx: np.ndarray,
    n_actions: int,
    value_coef: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, cross-entropy) tensors of positions idx: the mean cross-entropy of the policy's
    masked distribution at the teacher's actions, plus value_coef times the value head's mean
    squared error against the results."""
    obs, masks, actions, results = _batch(data, idx, n_actions)
    values, logp, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
    ce = -logp.mean()
    loss = ce
    if value_coef:
        loss = loss + value_coef * ((values.flatten() - results) ** 2).mean()
    return loss, ce


def clone_epoch(
    policy: MaskableActorCriticPolicy,
    data: Mapping[str, np.ndarray],
    idx: np.ndarray,
    n_actions: int,
    batch_size: int,
    lr: float,
    value_coef: float,
    seed: int,
    epoch: int,
) -> float:
    """One pass over positions idx in minibatches (order from a generator seeded by (seed,
    epoch)) with the policy's optimizer at learning rate lr; returns the mean cross-entropy."""
    order = idx[np.random.default_rng([int(seed), int(epoch), 0xBC]).permutation(idx.size)]
    opt = policy.optimizer
    for group in opt.param_groups:
        group["lr"] = lr
    policy.set_training_mode(True)
    total, count = 0.0, 0
    for start in range(0, order.size, batch_size):
        b = order[start : start + batch_size]
        loss, ce = bc_loss(policy, data, b, n_actions, value_coef)
        opt.zero_grad()
        loss.backward()
        import torch

        torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
        opt.step()
        total += float(ce.detach()) * b.size
        count += b.size
    policy.set_training_mode(False)
    return total / max(count, 1)


def held_out(
    policy: MaskableActorCriticPolicy,
    data: Mapping[str, np.ndarray],
    idx: np.ndarray,
    n_actions: int,
    batch_size: int = 4096,
) -> tuple[float, float]:
    """(cross-entropy, agreement) of the policy on positions idx: the mean cross-entropy at the
    teacher's actions and the fraction where its most likely legal action is the teacher's."""
    import torch

    if idx.size == 0:
        return float("nan"), float("nan")
    ce, hit = 0.0, 0
    with torch.no_grad():
        for start in range(0, idx.size, batch_size):
            b = idx[start : start + batch_size]
            obs, masks, actions, _ = _batch(data, b, n_actions)
            dist = policy.get_distribution(obs, action_masks=masks)
            ce -= float(dist.log_prob(actions).sum())
            hit += int((dist.get_actions(deterministic=True) == actions).sum())
    return ce / idx.size, hit / idx.size


def mix_weight(mix: float, mix_steps: int, steps: int) -> float:
    """The cross-entropy weight at learner step steps: mix decaying linearly to 0 at mix_steps."""
    if mix <= 0 or mix_steps <= 0 or steps >= mix_steps:
        return 0.0
    return mix * (1.0 - steps / mix_steps)
