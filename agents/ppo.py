"""PPOAgent: a masked policy trained with sb3-contrib's MaskablePPO by self-play on the batched env.

Training is boardgym.agents.training.ppo (``train_ppo``, ``boardgym train --algo ppo``).
``PPOAgent(path, game=...)`` plays a checkpoint in any boardgym env of its game for either seat:
the observation is the acting player's own view in every env, so one policy serves both seats
(``load("<game>-ppo", path=PATH)`` is the same, by name). Checkpoints name this module's classes
(``LegalActionPolicy``), so they stay here.

The trainer's policy is ``LegalActionPolicy``: MaskableActorCriticPolicy's modules and
distribution, with the action head evaluated on the legal actions only (the masked softmax over
all A logits is the softmax over the legal ones). Draughts has A = 1,024 actions of which a
position rarely allows 20, so this cuts the update's cost several times; its checkpoints load
as MaskableActorCriticPolicy too (same state dict).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # torch and sb3-contrib are optional: imported when a policy is built
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy


def _torch_threads():
    import torch

    torch.set_num_threads(1)  # small nets on 2 cores: one thread is much faster


def _policy_shapes():
    """{game: (observation length, accepted action counts)} of boardgym's envs."""
    from boardgym.kernels.backgammon.game import N_ACTIONS as BG_ACTIONS
    from boardgym.kernels.backgammon.game import N_ACTIONS_CUBE
    from boardgym.kernels.backgammon.observe import OBS_LEN as BG_OBS
    from boardgym.kernels.draughts.game import N_ACTIONS as D_ACTIONS
    from boardgym.kernels.draughts.game import OBS_LEN as D_OBS

    return {"draughts": (D_OBS, (D_ACTIONS,)), "backgammon": (BG_OBS, (BG_ACTIONS, N_ACTIONS_CUBE))}


def policy_game(model: object) -> str | None:
    """The game ("draughts" / "backgammon") whose observations and actions model's spaces
    fit, or None."""
    obs = getattr(getattr(model, "observation_space", None), "shape", None)
    n = getattr(getattr(model, "action_space", None), "n", None)
    for game, (obs_len, actions) in _policy_shapes().items():
        if obs == (obs_len,) and n in actions:
            return game
    return None


class PPOAgent:
    """A MaskablePPO checkpoint as an agent: ``act(observation, action_mask) -> action``.

    path is a MaskablePPO ``.zip`` (the trainer's checkpoint) or a policy-only ``.pt`` file
    (``export_policy``: the weights without the optimizer state, what boardgym ships). With
    game ("draughts" / "backgammon"), a policy of the other game (told by its observation and
    action spaces) is refused with a ValueError naming the file."""

    model: MaskablePPO | MaskableActorCriticPolicy

    def __init__(
        self,
        path: str | os.PathLike[str],
        deterministic: bool = True,
        device: str = "cpu",
        game: str | None = None,
    ) -> None:
        if not os.path.isfile(str(path)):
            raise ValueError(f"no PPO policy file at {path}")
        _torch_threads()
        try:
            if str(path).endswith(".pt"):
                from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

                self.model = MaskableActorCriticPolicy.load(str(path), device=device)
            else:
                from sb3_contrib import MaskablePPO

                self.model = MaskablePPO.load(path, device=device)
        except (ValueError, OSError, KeyError, RuntimeError, EOFError) as e:
            raise ValueError(
                f"{path} is not a MaskablePPO model (.zip) or policy (.pt): "
                f"{' '.join(str(e).split())}"
            ) from None
        self.game = policy_game(self.model)
        if game is not None and self.game != game:
            what = f"a {self.game} policy" if self.game else "not a boardgym policy"
            raise ValueError(
                f"{path} is {what} (observation {self.model.observation_space.shape}, "
                f"{getattr(self.model.action_space, 'n', '?')} actions), "
                f"not a {game} one"
            )
        self.deterministic = deterministic

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The policy's action (legal: the mask is applied inside the policy)."""
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("PPOAgent.act: the action mask allows no action")
        action, _ = self.model.predict(
            np.asarray(observation, np.float32), action_masks=mask, deterministic=self.deterministic
        )
        return int(action)

    def best_move(self, fen: str) -> str:
        """Draughts: PDN string of the policy's whole move in a FEN position."""
        from boardgym.agents.arena.engine_query import best_move

        return best_move(self, fen)

    def best_play(self, position_id: str, die1: int, die2: int) -> str:
        """Backgammon: Position ID of the afterstate the policy's checker moves reach."""
        from boardgym.agents.arena.engine_query import best_play

        return best_play(self, position_id, die1, die2)


def _legal_index(masks):
    """The legal actions of each row of masks ((B, A), any dtype, nonzero = legal) ->
    (rows, pos, cols): the k-th legal action of row r (ascending) is ``cols[j]`` with
    ``rows[j] = r``, ``pos[j] = k`` (int64 (L,), L legal actions in all); and K, the most legal
    actions of a row (at least 1)."""
    import torch

    m = torch.as_tensor(masks) != 0
    rows, cols = m.nonzero(as_tuple=True)  # row-major: each row's actions ascending
    counts = m.sum(1)
    k = max(int(counts.max()) if counts.numel() else 0, 1)
    starts = torch.cumsum(counts, 0) - counts
    pos = torch.arange(rows.numel()) - starts[rows]
    return rows, pos, cols, k


class LegalActions:
    """The policy's distribution over the legal actions only: log-probabilities (B, K) of the
    actions idx (B, K) (padding: valid False, probability 0). The same distribution as
    MaskableCategorical over all A actions with the mask applied, computed in O(B K H) instead
    of O(B A H)."""

    def __init__(self, logp: torch.Tensor, idx: torch.Tensor, valid: torch.Tensor) -> None:
        self.logp, self.idx, self.valid = logp, idx, valid

    def get_actions(self, deterministic: bool = False) -> torch.Tensor:
        import torch

        if deterministic:  # the first best action (ascending order, as argmax over all A)
            k = self.logp.argmax(1)
        else:
            k = torch.multinomial(self.logp.exp(), 1)[:, 0]
        return self.idx.gather(1, k[:, None])[:, 0]

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        import torch

        hit = (self.idx == actions.long().reshape(-1, 1)) & self.valid
        return torch.where(hit, self.logp, torch.zeros_like(self.logp)).sum(1)

    def entropy(self) -> torch.Tensor:
        p = self.logp.exp()
        return -(p * self.logp).sum(1)  # padding: p = 0 times a finite log p


def _sparse_policy_class():
    """LegalActionPolicy, built on first use (sb3-contrib is an optional dependency)."""
    global _LEGAL_POLICY
    if _LEGAL_POLICY is not None:
        return _LEGAL_POLICY
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class _LegalActionPolicy(MaskableActorCriticPolicy):
        """MaskableActorCriticPolicy whose action head scores only the legal actions.

        Same modules, parameters and state dict as the base class (a checkpoint loads in
        either), same distribution: the masked softmax over A logits equals the softmax over the
        legal actions' logits, computed here by gathering the legal rows of ``action_net``'s
        weight (B K H multiply-adds instead of B A H; draughts has A = 1,024 actions and rarely
        more than 20 legal). Without a mask it is the base class."""

        def _legal_dist(self, latent_pi, action_masks):
            n = latent_pi.shape[0]
            rows, pos, cols, k = _legal_index(torch.as_tensor(action_masks).reshape(n, -1))
            w, b = self.action_net.weight, self.action_net.bias
            flat = (latent_pi[rows] * w[cols]).sum(1) + b[cols]  # the legal actions' logits
            logits = torch.full((n, k), -1e9, dtype=flat.dtype).index_put((rows, pos), flat)
            idx = torch.zeros((n, k), dtype=torch.long).index_put((rows, pos), cols)
            valid = torch.zeros((n, k), dtype=torch.bool).index_put(
                (rows, pos), torch.ones_like(rows, dtype=torch.bool)
            )
            return LegalActions(torch.log_softmax(logits, 1), idx, valid)

        def forward(self, obs, deterministic=False, action_masks=None):
            if action_masks is None:
                return super().forward(obs, deterministic, action_masks)
            latent_pi, latent_vf = self._latents(obs)
            dist = self._legal_dist(latent_pi, action_masks)
            actions = dist.get_actions(deterministic)
            return actions, self.value_net(latent_vf), dist.log_prob(actions)

        def _latents(self, obs):
            features = self.extract_features(obs)
            if self.share_features_extractor:
                return self.mlp_extractor(features)
            pi_features, vf_features = features
            return (
                self.mlp_extractor.forward_actor(pi_features),
                self.mlp_extractor.forward_critic(vf_features),
            )

        def evaluate_actions(self, obs, actions, action_masks=None):
            if action_masks is None:
                return super().evaluate_actions(obs, actions, action_masks)
            latent_pi, latent_vf = self._latents(obs)
            dist = self._legal_dist(latent_pi, action_masks)
            return self.value_net(latent_vf), dist.log_prob(actions), dist.entropy()

        def get_distribution(self, obs, action_masks=None):
            if action_masks is None:
                return super().get_distribution(obs, action_masks)
            features = super(MaskableActorCriticPolicy, self).extract_features(
                obs, self.pi_features_extractor
            )
            return self._legal_dist(self.mlp_extractor.forward_actor(features), action_masks)

    _LegalActionPolicy.__name__ = _LegalActionPolicy.__qualname__ = "LegalActionPolicy"
    _LegalActionPolicy.__module__ = __name__
    _LEGAL_POLICY = _LegalActionPolicy
    return _LEGAL_POLICY


_LEGAL_POLICY = None


#: the training names this module offered before they moved to boardgym.agents.training.ppo
_TRAINING_NAMES = (
    "train_ppo",
    "OpponentPool",
    "play_vs_baseline",
    "play_vs_greedy",
    "baseline_names",
    "evaluate_baselines",
    "MODEL_FILE",
    "RESUME_FILE",
    "RUN_FILES",
    "RENAMED_BASELINES",
)


def __getattr__(name: str) -> object:
    """``boardgym.agents.ppo.LegalActionPolicy``: the trainer's policy class, built on first
    access (so that pickled models name it and sb3-contrib stays optional); the training names
    from boardgym.agents.training.ppo."""
    if name == "LegalActionPolicy":
        return _sparse_policy_class()
    if name in _TRAINING_NAMES:
        from boardgym.agents.training import ppo as training_ppo

        return getattr(training_ppo, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def export_policy(zip_path: str | os.PathLike[str], pt_path: str | os.PathLike[str]) -> None:
    """Write the policy of a MaskablePPO checkpoint alone (no optimizer state) to pt_path."""
    from sb3_contrib import MaskablePPO

    MaskablePPO.load(zip_path, device="cpu").policy.save(pt_path)
