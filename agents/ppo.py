"""PPOAgent: a masked policy trained with sb3-contrib's MaskablePPO by self-play on the batched env.

Training (``train_ppo``, used by ``scripts/train.py --algo ppo``): N games at once through the
stable-baselines3 VecEnv over the batched core (boardgym.envs.vector), the learner's opponent
drawn per rollout from a pool — a uniformly random player and frozen snapshots of the learner
itself (a snapshot joins the pool every ``snapshot_every`` steps; the pool keeps the newest
``pool_size``). Checkpoints are MaskablePPO ``.zip`` files. ``PPOAgent(path)`` plays a checkpoint
in any boardgym env for either seat: the observation is the acting player's own view in every
env, so one policy serves both seats.
"""
import numpy as np


def _torch_threads():
    import torch
    torch.set_num_threads(1)  # small nets on 2 cores: one thread is much faster


class PPOAgent:
    """A MaskablePPO checkpoint as an agent: ``act(observation, action_mask) -> action``.

    path is a MaskablePPO ``.zip`` (the trainer's checkpoint) or a policy-only ``.pt`` file
    (``export_policy``: the weights without the optimizer state, what boardgym ships)."""

    def __init__(self, path, deterministic=True, device="cpu"):
        _torch_threads()
        if str(path).endswith(".pt"):
            from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
            self.model = MaskableActorCriticPolicy.load(str(path), device=device)
        else:
            from sb3_contrib import MaskablePPO
            self.model = MaskablePPO.load(path, device=device)
        self.deterministic = deterministic

    def act(self, observation, action_mask):
        """The policy's action (legal: the mask is applied inside the policy)."""
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("PPOAgent.act: the action mask allows no action")
        action, _ = self.model.predict(np.asarray(observation, np.float32), action_masks=mask,
                                       deterministic=self.deterministic)
        return int(action)


def export_policy(zip_path, pt_path):
    """Write the policy of a MaskablePPO checkpoint alone (no optimizer state) to pt_path."""
    from sb3_contrib import MaskablePPO
    MaskablePPO.load(zip_path, device="cpu").policy.save(pt_path)


class OpponentPool:
    """Batched opponent for the VecEnv: ``(obs (M, O), masks (M, A)) -> actions (M,)``, played by
    the current pool member (random, or a frozen policy snapshot); ``pick`` switches member."""

    def __init__(self, seed=0, pool_size=8):
        self.rng = np.random.default_rng(seed)
        self.snapshots = []
        self.pool_size = pool_size
        self.current = None  # None = uniformly random

    def add(self, policy):
        """Freeze a copy of policy (an SB3 policy) into the pool."""
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        self.snapshots.append(frozen.eval())
        del self.snapshots[:-self.pool_size]

    def pick(self):
        k = int(self.rng.integers(len(self.snapshots) + 1))
        self.current = None if k == len(self.snapshots) else self.snapshots[k]

    def __call__(self, obs, masks):
        if self.current is None:
            scores = self.rng.random(masks.shape) * masks
            return scores.argmax(1)
        import torch
        with torch.no_grad():
            actions, _, _ = self.current.forward(torch.as_tensor(obs), action_masks=masks.astype(bool))
        return actions.numpy()


def win_rate_vs_random(model, game, n_games=200, seed=0):
    """(wins, draws, losses) of the model's deterministic policy against the in-kernel random
    opponent over n_games (seats alternate), played on the batched core."""
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch
    core_cls = DraughtsBatch if game == "draughts" else BackgammonBatch
    kwargs = {"max_moves": 300} if game == "draughts" else {"max_turns": 1000}
    n_envs = min(n_games, 64)
    core = core_cls(n_envs, opponent="random", **kwargs)
    core.reset(seed=seed)
    wins = draws = losses = played = 0
    while played < n_games:
        actions, _ = model.predict(core.obs, action_masks=core.masks.astype(bool), deterministic=True)
        seats = core.seats.copy()
        core.step(np.asarray(actions, np.int64))
        for i in np.flatnonzero(core.done.any(1)):
            if played < n_games:
                r = core.rewards[i, seats[i]]
                wins += r > 0
                losses += r < 0
                draws += r == 0
                played += 1
        core.reset_done()
    return int(wins), int(draws), int(losses)


def _save_atomic(model, path):
    """model.save to a temporary file, then rename: a killed run never leaves half a checkpoint."""
    import os
    tmp = str(path) + ".tmp.zip"
    model.save(tmp)
    os.replace(tmp, path)


def train_ppo(game, total_steps, out_path, num_envs=64, seed=0, snapshot_every=50_000,
              pool_size=8, net_arch=(128, 128), eval_every=100_000, eval_games=200, log=print,
              max_moves=300, resume=False):
    """Train a MaskablePPO policy by self-play; saves out_path (.zip) at each evaluation and at the end."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from boardgym.envs.vector import make_sb3_vec_env
    _torch_threads()
    pool = OpponentPool(seed, pool_size)
    kwargs = {"max_moves": max_moves} if game == "draughts" else {}
    venv = make_sb3_vec_env(game, num_envs=num_envs, opponent=pool, **kwargs)
    if resume:
        model = MaskablePPO.load(out_path, env=venv, device="cpu")
    else:
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=1024, n_epochs=4,
                            learning_rate=3e-4, gamma=0.995, ent_coef=0.01, seed=seed,
                            policy_kwargs={"net_arch": list(net_arch)}, device="cpu")

    class SelfPlay(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_snapshot = model.num_timesteps + snapshot_every
            self.next_eval = model.num_timesteps + eval_every

        def _on_rollout_start(self):
            if self.num_timesteps >= self.next_snapshot:
                pool.add(self.model.policy)
                self.next_snapshot += snapshot_every
            pool.pick()

        def _on_step(self):
            if eval_every and self.num_timesteps >= self.next_eval:
                self.next_eval += eval_every
                w, d, l_ = win_rate_vs_random(self.model, game, eval_games, seed + 1)
                log(f"steps {self.num_timesteps}: vs random {w}-{d}-{l_} "
                    f"({w / max(1, w + d + l_):.1%} wins), pool {len(pool.snapshots)} snapshots")
                _save_atomic(self.model, out_path)
            return True

    remaining = total_steps - model.num_timesteps if resume else total_steps
    if remaining > 0:
        model.learn(remaining, callback=SelfPlay(), reset_num_timesteps=not resume)
    _save_atomic(model, out_path)
    return model
