"""PPOAgent: a masked policy trained with sb3-contrib's MaskablePPO by self-play on the batched env.

Training (``train_ppo``, used by ``boardgym train --algo ppo``): N games at once through the
stable-baselines3 VecEnv over the batched core (boardgym.envs.vector), the learner's opponent in
each game drawn from the league (boardgym.agents.training.league: random, the in-kernel one-ply player,
draughts' GreedyAgent, and the newest ``pool_size`` frozen snapshots of the learner — one joins
every ``snapshot_every`` steps — sampled per game by prioritized fictitious self-play), or, with
``league=False`` (and in runs that began before the league), from the uniform ``OpponentPool``
(one member per rollout). ``PPOAgent(path, game=...)`` plays a checkpoint in any boardgym env of
its game for either seat: the observation is the acting player's own view in every env, so one
policy serves both seats (``load("<game>-ppo", path=PATH)`` is the same, by name).

The trainer's policy is ``LegalActionPolicy``: MaskableActorCriticPolicy's modules and
distribution, with the action head evaluated on the legal actions only (the masked softmax over
all A logits is the softmax over the legal ones). Draughts has A = 1,024 actions of which a
position rarely allows 20, so this cuts the update's cost several times; its checkpoints load
as MaskableActorCriticPolicy too (same state dict).

Where the time goes (draughts, 64x64 net, one torch and one Numba thread, this 2-core machine
under the load of other jobs): the old settings (64 games x 128 steps, minibatch 1,024, 4
epochs, full 1,024-way head) spent 80% of the time in the update — 128 minibatch steps of
~80 ms, mostly the masked softmax and its backward over 1,024 actions — and ran ~2,600 steps/s;
the env step was 2% of it. With LegalActionPolicy, 256 games x 64 steps, minibatch 2,048 and 2
epochs a whole run (rollouts, league opponents, updates) runs 5,000-9,000 steps/s. The batched
core runs on one Numba thread: its parallel kernels reset the shared OpenMP thread count that
torch reads (2 torch threads on a loaded machine were several times slower) and, under load,
waited for the second core.

With ``teacher`` (an agent spec: ``boardgym train --teacher``) the run begins with a teacher
phase (boardgym.agents.training.kickstart): the teacher's labelled games (``teacher/chunk_<k>.npz`` in
the run directory), behaviour cloning of the policy and value heads on them, an evaluation of
the cloned policy at step 0, then self-play as above from the cloned weights and optimizer,
optionally with a decaying cross-entropy term toward the teacher's labels at every rollout
start (``teacher_mix``). Checkpoints after every generated chunk and every cloning epoch make a
resume inside the phase exact too.

A run directory holds ``ppo.zip`` (the latest MaskablePPO model, for PPOAgent), ``ppo_<steps>.zip``
(each evaluated model; the run ends with an evaluation), ``resume.pt`` (all a resumed run
needs), ``metrics.jsonl`` and TensorBoard logs in ``tb/`` (boardgym.agents.training.run_log). A new run
refuses a directory holding anything unless ``force`` (then the previous run's files move into
``replaced-<time>/``: ``run_log.prepare_run_dir``).
Checkpoints are taken at the start of a rollout, every ``ckpt_every`` steps and at the end, and
capture the model with its optimizer, the N games in progress with their random streams, the
last observations, the league (members, scores, snapshots, slot assignment, generators) or the
opponent pool, the torch/NumPy/Python random states and the counters: ``resume=True``
continues exactly — a run killed after a checkpoint and resumed ends with the same weights as
an uninterrupted run (tested). Checkpoints written when the draughts one-ply player was called
"greedy" (now "recapture"), before the league, resume too (with their pool and settings).
"""

import io
import os
import random
import time

import numpy as np

from boardgym.agents.files import write_atomically, write_file_atomically
from boardgym.agents.training.run_log import RunLog, format_evaluation, prepare_run_dir

MODEL_FILE = "ppo.zip"
RESUME_FILE = "resume.pt"
#: files a run writes into its directory (moved aside by a forced new run)
RUN_FILES = ("metrics.jsonl", MODEL_FILE, "ppo_*.zip", RESUME_FILE, "*.tmp*", "tb", "teacher")
#: pool members' old names -> today's (checkpoints of older runs hold the old ones)
RENAMED_BASELINES = {"greedy": "recapture"}


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


def policy_game(model):
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

    def __init__(self, path, deterministic=True, device="cpu", game=None):
        import os

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

    def act(self, observation, action_mask):
        """The policy's action (legal: the mask is applied inside the policy)."""
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("PPOAgent.act: the action mask allows no action")
        action, _ = self.model.predict(
            np.asarray(observation, np.float32), action_masks=mask, deterministic=self.deterministic
        )
        return int(action)

    def best_move(self, fen):
        """Draughts: PDN string of the policy's whole move in a FEN position."""
        from boardgym.agents.arena.engine_query import best_move

        return best_move(self, fen)

    def best_play(self, position_id, die1, die2):
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

    def __init__(self, logp, idx, valid):
        self.logp, self.idx, self.valid = logp, idx, valid

    def get_actions(self, deterministic=False):
        import torch

        if deterministic:  # the first best action (ascending order, as argmax over all A)
            k = self.logp.argmax(1)
        else:
            k = torch.multinomial(self.logp.exp(), 1)[:, 0]
        return self.idx.gather(1, k[:, None])[:, 0]

    def log_prob(self, actions):
        import torch

        hit = (self.idx == actions.long().reshape(-1, 1)) & self.valid
        return torch.where(hit, self.logp, torch.zeros_like(self.logp)).sum(1)

    def entropy(self):
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


def __getattr__(name):
    """``boardgym.agents.ppo.LegalActionPolicy``: the trainer's policy class, built on first
    access (so that pickled models name it and sb3-contrib stays optional)."""
    if name == "LegalActionPolicy":
        return _sparse_policy_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def export_policy(zip_path, pt_path):
    """Write the policy of a MaskablePPO checkpoint alone (no optimizer state) to pt_path."""
    from sb3_contrib import MaskablePPO

    MaskablePPO.load(zip_path, device="cpu").policy.save(pt_path)


class OpponentPool:
    """The learner's opponent in self-play: one member at a time, drawn uniformly by ``pick`` from
    the fixed players ``baselines`` ("random": uniformly random moves, "greedy": the one-ply
    heuristic of the in-kernel opponent) and the newest ``pool_size`` frozen snapshots of the
    learner. On a boardgym vector env the fixed players are played inside the kernels (the
    ``kernel_opponent`` attribute, read before every step); a snapshot answers the batched call
    ``(obs (M, O), masks (M, A)) -> actions (M,)``."""

    def __init__(self, seed=0, pool_size=8, baselines=("random", "greedy")):
        if isinstance(baselines, str) or not set(baselines) <= {"random", "greedy", "recapture"}:
            raise ValueError(
                f"baselines must be in-kernel players ('random', 'greedy', draughts "
                f"'recapture'), got {baselines!r}"
            )
        self.rng = np.random.default_rng(seed)
        self.snapshots = []
        self.pool_size = pool_size
        self.baselines = tuple(baselines)
        self.current = "random"  # a baseline's name or a snapshot

    @property
    def kernel_opponent(self):
        """The in-kernel player standing in for the current member (None for a snapshot)."""
        return self.current if isinstance(self.current, str) else None

    def add(self, policy):
        """Freeze a copy of policy (an SB3 policy) into the pool."""
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        self.snapshots.append(frozen.eval())
        del self.snapshots[: -self.pool_size]

    def get_state(self):
        """The pool's generator state, snapshot weights and current member (for a checkpoint)."""
        current = (
            self.current if isinstance(self.current, str) else self.snapshots.index(self.current)
        )
        return {
            "rng": self.rng.bit_generator.state,
            "current": current,
            "snapshots": [p.state_dict() for p in self.snapshots],
        }

    def set_state(self, state, policy):
        """Restore get_state() output; policy (an SB3 policy) supplies the snapshots' architecture."""
        self.rng.bit_generator.state = state["rng"]
        self.snapshots = []
        for weights in state["snapshots"]:
            frozen = type(policy)(**policy._get_constructor_parameters())
            frozen.load_state_dict(weights)
            self.snapshots.append(frozen.eval())
        cur = state["current"]
        if isinstance(cur, str) and cur not in self.baselines:
            cur = RENAMED_BASELINES.get(cur, cur)
            if cur not in self.baselines:
                raise ValueError(
                    f"the checkpoint's pool member {state['current']!r} is not a "
                    f"player of this pool {self.baselines}"
                )
        self.current = cur if isinstance(cur, str) else self.snapshots[cur]

    def pick(self):
        """Draw the next member uniformly from the baselines and the snapshots."""
        members = list(self.baselines) + self.snapshots
        self.current = members[int(self.rng.integers(len(members)))]

    def __call__(self, obs, masks):
        if self.current == "random":  # outside a boardgym core: random actions from the pool's rng
            scores = self.rng.random(masks.shape) * masks
            return scores.argmax(1)
        if isinstance(self.current, str):
            raise ValueError(
                f"the {self.current!r} member plays inside a boardgym core's kernels "
                "(make_sb3_vec_env / the vector envs), not from observations"
            )
        import torch

        with torch.no_grad():
            actions, _, _ = self.current.forward(
                torch.as_tensor(obs), action_masks=masks.astype(bool)
            )
        return actions.numpy()


def play_vs_baseline(model, game, opponent="random", n_games=200, seed=0, **core_kwargs):
    """Points of the model's deterministic policy in n_games against an in-kernel opponent
    ("random" or "greedy"): boardgym.agents.arena.matches.play_vs_kernel_opponent (pairs of games
    on the batched core from one random stream, the learner's seat swapped)."""
    from boardgym.agents.arena.matches import play_vs_kernel_opponent

    def policy(obs, masks):
        return model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]

    return play_vs_kernel_opponent(policy, game, opponent, n_games, seed, **core_kwargs)


def baseline_names(game):
    """The game's in-kernel players by name (the batched core's opponent names but None)."""
    from boardgym.envs.batch import BackgammonBatch, DraughtsBatch

    codes = (DraughtsBatch if game == "draughts" else BackgammonBatch).opponent_codes
    return tuple(k for k in codes if k not in (None, "none"))


def play_vs_greedy(model, n_games=200, seed=0, evaluation=None, **core_kwargs):
    """Points of the model's deterministic policy in n_games of draughts against boardgym.agents'
    GreedyAgent (league.GreedyBatch: the same choices, ties from per-game streams of seed):
    evaluation.play_vs_batched_opponent, pairs with the seats swapped."""
    from boardgym.agents.arena.matches import play_vs_batched_opponent
    from boardgym.agents.training.league import GreedyBatch
    from boardgym.kernels.rng import seed_rngs

    greedy = GreedyBatch(evaluation)
    rngs = seed_rngs(int(seed) + 1_000_003, 2 * ((n_games + 1) // 2))

    def policy(obs, masks):
        return model.predict(obs, action_masks=masks.astype(bool), deterministic=True)[0]

    return play_vs_batched_opponent(
        policy,
        lambda obs, masks, games: greedy.actions(obs, games, rngs),
        "draughts",
        n_games,
        seed,
        **core_kwargs,
    )


def evaluate_baselines(model, game, n_games=200, seed=0, greedy=False):
    """{opponent: points_summary + Elo} of the model against the game's in-kernel players and,
    with greedy (draughts), GreedyAgent (one point a game: the batched backgammon core scores
    single games). Each entry adds ``elo`` and ``elo_ci95``: the Elo difference to that opponent
    with its 95% interval (stats.match_elo of the score, +-1000 standing for infinity).
    Draughts games start from positions after 2-4 random moves (evaluation.opening_positions,
    one per pair, seeded by seed), as ``boardgym evaluate``'s do: from the start position alone a
    deterministic policy is measured on a handful of lines."""
    from boardgym.agents.arena.matches import baseline_report, opening_positions
    from boardgym.agents.arena.stats import summarize_points

    def play(opp, n_pairs, s):
        kw = {"openings": opening_positions(s, n_pairs)} if game == "draughts" else {}
        if opp == "greedy" and game == "draughts":
            return play_vs_greedy(model, 2 * n_pairs, s, **kw)
        return play_vs_baseline(model, game, opp, 2 * n_pairs, s, **kw)

    names = baseline_names(game) + (("greedy",) if greedy and game == "draughts" else ())
    points = {}

    def keep(opp, n_pairs, s):
        points[opp] = play(opp, n_pairs, s)
        return points[opp]

    out = baseline_report(keep, n_games, seed, -1.0, 1.0, opponents=names)
    for opp, res in out.items():
        summ = summarize_points(points[opp], -1.0, 1.0)
        clip = lambda v: round(float(np.clip(v, -1000.0, 1000.0)), 1)  # noqa: E731
        res["elo"] = clip(summ["elo"])
        res["elo_ci95"] = [clip(v) for v in summ["elo_interval"]]
    return out


def _save_atomic(model, path):
    """model.save to a temporary file, then rename: a killed run never leaves half a checkpoint."""
    write_atomically(str(path), model.save, ".zip")


def _sb3_logger(run_log):
    """An SB3 Logger whose scalars (losses, entropy, KL, ...) go to the run's TensorBoard writer."""
    from stable_baselines3.common.logger import KVWriter, Logger

    class Bridge(KVWriter):
        def write(self, key_values, key_excluded, step=0):
            for key, value in key_values.items():
                excluded = key_excluded.get(key) or ()
                if "tensorboard" in excluded or isinstance(value, (str, bool)):
                    continue
                if isinstance(value, (int, float, np.integer, np.floating)):
                    run_log.scalar(key, value, step)

        def close(self):
            run_log.flush()

    return Logger(folder=None, output_formats=[Bridge()])


def train_ppo(
    game,
    total_steps,
    run_dir,
    num_envs=256,
    seed=0,
    snapshot_every=200_000,
    pool_size=8,
    net_arch=(64, 64),
    ckpt_every=200_000,
    eval_every=500_000,
    eval_games=200,
    max_moves=300,
    resume=False,
    tensorboard=True,
    log=print,
    progress_every=10.0,
    force=False,
    progress=None,
    n_steps=64,
    batch_size=2048,
    n_epochs=2,
    league=True,
    pfsp="hard",
    openings=None,
    teacher=None,
    teacher_games=1024,
    teacher_epochs=10,
    teacher_explore=0.1,
    teacher_lr=1e-3,
    teacher_value=0.5,
    teacher_mix=0.0,
    teacher_mix_steps=2_000_000,
):
    """Train a MaskablePPO policy by self-play into run_dir (see the module docstring).

    league: the opponents are a boardgym.agents.training.league.League (fixed players and snapshots, one
    member per game slot, sampled by prioritized fictitious self-play); False: the uniform
    OpponentPool of earlier runs, one member per rollout; pfsp: the league's weighting ("hard"
    or "var", league.pfsp_weights); openings (draughts): FENs the training games start from, one
    drawn per game at every reset (DraughtsBatch(openings=...)), None: the start position. n_steps (steps per game slot per
    rollout), batch_size and n_epochs are MaskablePPO's; the policy is LegalActionPolicy (the
    masked policy computed over the legal actions only). The batched core runs on one Numba
    thread and torch on one thread (measured fastest on this 2-core machine: the parallel core
    also resets torch's OpenMP thread count).
    teacher: an agent spec (boardgym.agents.training.kickstart.parse_teacher, e.g.
    "draughts-alphabeta:depth=4"): before self-play, behaviour cloning of teacher_games games of
    the teacher (exploration teacher_explore) for teacher_epochs epochs at learning rate
    teacher_lr, the value head on the game results weighted teacher_value; teacher_mix > 0
    keeps a cross-entropy term toward the teacher's labels during PPO, decaying linearly to 0
    at teacher_mix_steps (boardgym.agents.training.kickstart). The phase ends with an evaluation at
    step 0 (when eval_every > 0).
    Evaluations (every eval_every steps (0: none but the last) and at the end, eval_games
    against the game's in-kernel players and, in draughts, GreedyAgent) are logged, with each
    opponent's Elo difference and interval, and appended to metrics.jsonl. A new run refuses a
    non-empty run_dir unless force (``run_log.prepare_run_dir``). On resume the checkpoint's
    game, num_envs, seed, pool, rollout and network settings win over the arguments (a note is
    logged when they differ); total_steps is the total of the whole run. progress(done,
    total): called with the steps done and to do in this call (a progress bar). Returns the
    model."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from boardgym.agents.training.league import League
    from boardgym.envs.vector import make_sb3_vec_env

    _torch_threads()
    run_dir = str(run_dir)
    if teacher:
        from boardgym.agents.training.kickstart import parse_teacher

        parse_teacher(game, teacher)  # ValueError naming a bad spec, before anything is moved
    moved = prepare_run_dir(run_dir, resume, force, RUN_FILES)
    if moved:
        log(f"force: the previous run's files are now in {moved}")
    resume_path = os.path.join(run_dir, RESUME_FILE)
    setup = {
        "game": game,
        "num_envs": int(num_envs),
        "seed": int(seed),
        "snapshot_every": int(snapshot_every),
        "pool_size": int(pool_size),
        "net_arch": [int(n) for n in net_arch],
        "max_moves": int(max_moves),
        "n_steps": int(n_steps),
        "batch_size": int(batch_size),
        "n_epochs": int(n_epochs),
        "opponents": "league" if league else "pool",
        "pfsp": str(pfsp),
        "openings": None if openings is None else [str(f) for f in openings],
        "teacher": None,
    }
    if teacher:
        for name, v in (("teacher_games", teacher_games), ("teacher_epochs", teacher_epochs)):
            if int(v) < 0:
                raise ValueError(f"{name} must be >= 0, got {v}")
        if (
            not 0.0 <= teacher_explore <= 1.0
            or teacher_lr <= 0
            or teacher_value < 0
            or teacher_mix < 0
            or teacher_mix_steps < 0
        ):
            raise ValueError(
                "teacher_explore must be in [0, 1], teacher_lr > 0, teacher_value, "
                "teacher_mix and teacher_mix_steps >= 0"
            )
        setup["teacher"] = {
            "spec": str(teacher),
            "games": int(teacher_games),
            "epochs": int(teacher_epochs),
            "explore": float(teacher_explore),
            "lr": float(teacher_lr),
            "value": float(teacher_value),
            "mix": float(teacher_mix),
            "mix_steps": int(teacher_mix_steps),
        }
    saved = None
    if resume:
        if not os.path.exists(resume_path):
            raise ValueError(f"resume: no checkpoint {resume_path}")
        saved = torch.load(resume_path, weights_only=False)
        old = {
            "opponents": "pool",
            "n_steps": 128,
            "batch_size": 1024,
            "n_epochs": 4,
            "pfsp": "hard",
            "openings": None,
            "teacher": None,
        }
        kept = {**old, **saved["setup"]}  # checkpoints of earlier runs: their settings
        for key, value in kept.items():
            if setup[key] != value:
                shown = f"{len(value)} positions" if key == "openings" and value else value
                if key == "teacher" and value:
                    given = setup[key] or {}
                    shown = (
                        value["spec"]
                        + " ("
                        + ", ".join(
                            f"{k} {value[k]!r}, not the given {given.get(k)!r}"
                            for k in value
                            if given.get(k) != value[k]
                        )
                        + ")"
                    )
                log(f"resume: keeping the checkpoint's {key}={shown}")
        setup = kept
    game, snapshot_every = setup["game"], setup["snapshot_every"]
    use_league = setup["opponents"] == "league"
    if use_league:
        opponents = League(
            game, setup["num_envs"], setup["seed"], setup["pool_size"], pfsp=setup["pfsp"]
        )
    else:
        opponents = OpponentPool(setup["seed"], setup["pool_size"], baseline_names(game))
    kwargs = {"max_moves": setup["max_moves"]} if game == "draughts" else {}
    if game == "draughts" and setup["openings"]:
        kwargs["openings"] = setup["openings"]
    venv = make_sb3_vec_env(
        game, num_envs=setup["num_envs"], opponent=opponents, threads=1, **kwargs
    )
    if use_league:
        opponents.bind(venv.core)
    clock = {"env": 0.0, "rollout": 0.0, "update": 0.0, "mark": None}  # where the time goes
    step_wait = venv.step_wait

    def timed_step_wait():
        t = time.perf_counter()
        out = step_wait()
        clock["env"] += time.perf_counter() - t
        return out

    venv.step_wait = timed_step_wait
    if saved is None:
        model = MaskablePPO(
            _sparse_policy_class(),
            venv,
            n_steps=setup["n_steps"],
            batch_size=setup["batch_size"],
            n_epochs=setup["n_epochs"],
            learning_rate=3e-4,
            gamma=0.995,
            ent_coef=0.01,
            seed=setup["seed"],
            policy_kwargs={"net_arch": setup["net_arch"]},
            device="cpu",
        )
        counters = {
            "steps": 0,
            "games": 0,
            "seconds": 0.0,
            "next_snapshot": snapshot_every,
            "next_eval": eval_every,
            "next_ckpt": ckpt_every,
        }
    else:
        model = MaskablePPO.load(
            io.BytesIO(saved["model"]), env=venv, device="cpu", force_reset=False
        )
        counters = dict(saved["counters"])
        opponents.set_state(saved["league" if use_league else "pool"], model.policy)
        venv._seed = saved["venv_seed"]
        if saved["last_obs"] is None:  # killed in the teacher phase: no game played yet
            model._last_obs = None
        else:
            venv.core.set_state(saved["core"])
            model._last_obs = saved["last_obs"].copy()
            model._last_episode_starts = saved["episode_starts"].copy()
        from collections import deque

        model.ep_info_buffer = deque(saved["ep_info"], maxlen=model._stats_window_size)
        model.ep_success_buffer = deque(maxlen=model._stats_window_size)
        torch.set_rng_state(saved["rng"]["torch"])  # last: building the pool drew from torch's
        np.random.set_state(saved["rng"]["numpy"])
        random.setstate(saved["rng"]["python"])
    log_from = None if saved is None else counters["steps"]
    if (
        saved is not None
        and setup["teacher"]
        and counters.get("teacher_epochs", 0) < setup["teacher"]["epochs"]
    ):
        log_from = -1  # in the cloning: its evaluation at step 0 is still to come
    run_log = RunLog(run_dir, "steps", log_from, tensorboard)
    model.set_logger(_sb3_logger(run_log))
    t0, seconds0 = time.perf_counter(), counters["seconds"]

    def checkpoint():
        counters["seconds"] = seconds0 + time.perf_counter() - t0
        buf = io.BytesIO()
        model.save(buf)
        started = model._last_obs is not None  # False in the teacher phase
        state = {
            "model": buf.getvalue(),
            "setup": setup,
            "counters": dict(counters),
            "core": venv.core.get_state() if started else None,
            "venv_seed": venv._seed,
            "last_obs": np.array(model._last_obs) if started else None,
            "league" if use_league else "pool": opponents.get_state(),
            "episode_starts": np.array(model._last_episode_starts) if started else None,
            "ep_info": list(model.ep_info_buffer or ()),
            "rng": {
                "torch": torch.get_rng_state(),
                "numpy": np.random.get_state(),
                "python": random.getstate(),
            },
        }
        write_atomically(resume_path, lambda tmp: torch.save(state, tmp))
        write_file_atomically(os.path.join(run_dir, MODEL_FILE), state["model"])  # no second save

    def due(key, every):
        """Has counters[key] (the next due step) been reached? If so, move it past the step."""
        if not every or counters["steps"] < counters[key]:
            return False
        while counters[key] <= counters["steps"]:
            counters[key] += every
        return True

    def evaluate_if_due():
        if due("next_eval", eval_every):
            evaluate()

    def evaluate():
        counters["evaluated"] = counters["steps"]
        res = evaluate_baselines(model, game, eval_games, setup["seed"] + 1, greedy=True)
        _torch_threads()
        _save_atomic(model, os.path.join(run_dir, f"ppo_{counters['steps']}.zip"))
        line = {
            "games": counters["games"],
            "steps": counters["steps"],
            "seconds": round(seconds0 + time.perf_counter() - t0, 1),
            **res,
        }
        if use_league:  # a list, not an object: the curve readers take objects as opponents
            line["league"] = [
                [n, round(r["score"], 4), round(r["weight"], 4), r["games"]]
                for n, r in opponents.table().items()
            ]
        run_log.evaluation(line)
        for opp, r in res.items():
            run_log.scalar(f"elo/{opp}", r["elo"], counters["steps"])
            run_log.scalar(f"elo/{opp}_low", r["elo_ci95"][0], counters["steps"])
            run_log.scalar(f"elo/{opp}_high", r["elo_ci95"][1], counters["steps"])
        snaps = len(opponents.policies) if use_league else len(opponents.snapshots)
        log(
            f"steps {counters['steps']}: {format_evaluation(res)}  "
            + "  ".join(f"Elo vs {k} {r['elo']:+.0f}" for k, r in res.items())
            + f"  pool {snaps} snapshots"
        )

    class SelfPlay(BaseCallback):
        """At each rollout start: evaluate, checkpoint, snapshot, pick the opponent (in that order,
        so a checkpoint holds the state just before the snapshot and the pick)."""

        def __init__(self):
            super().__init__()
            self.mark = (time.perf_counter(), counters["steps"], counters["games"])  # last line
            self.start = counters["steps"]

        def _on_rollout_start(self):
            now = time.perf_counter()
            if clock["mark"] is not None:
                clock["update"] += now - clock["mark"]
            clock["mark"] = now
            counters["steps"] = self.num_timesteps
            evaluate_if_due()
            if due("next_ckpt", ckpt_every):
                checkpoint()
            if counters["steps"] >= counters["next_snapshot"]:
                if use_league:
                    opponents.add_snapshot(self.model.policy, f"snap{counters['steps']}")
                else:
                    opponents.add(self.model.policy)
                counters["next_snapshot"] += snapshot_every
            if teach is not None and teach["mix"] > 0:
                mix_teacher()
                if self_play_mix:
                    run_log.scalar("teacher/mix_weight", self_play_mix[-1], counters["steps"])
            if use_league:
                for name, r in opponents.table().items():
                    for key in ("score", "weight"):
                        run_log.scalar(f"league/{key}/{name}", r[key], counters["steps"])
                self.logger.record("selfplay/pool_snapshots", len(opponents.policies))
            else:
                opponents.pick()
                self.logger.record("selfplay/pool_snapshots", len(opponents.snapshots))
            self.logger.record("selfplay/games", counters["games"])
            self.log_progress()

        def _on_rollout_end(self):
            _torch_threads()  # the core's Numba calls may have reset torch's OpenMP threads
            now = time.perf_counter()
            clock["rollout"] += now - clock["mark"]
            clock["mark"] = now

        def log_progress(self):
            now = time.perf_counter()
            t, s, g = self.mark
            if now - t < progress_every or counters["steps"] == s:
                return
            rate, games_rate = (
                (counters["steps"] - s) / (now - t),
                (counters["games"] - g) / (now - t),
            )
            eta = (total_steps - counters["steps"]) / rate / 60 if rate > 0 else float("nan")
            busy = clock["rollout"] + clock["update"]
            split = {k: clock[k] / busy for k in ("env", "rollout", "update")} if busy else {}
            for key, value in split.items():
                run_log.scalar(f"time/{key}_fraction", value, counters["steps"])
            run_log.scalar("time/steps_per_s", rate, counters["steps"])
            if busy:
                split_text = (
                    f"  time: env+opponents {split['env']:.0%}, policy and buffer "
                    f"{split['rollout'] - split['env']:.0%}, update {split['update']:.0%}"
                )
            log(
                f"steps {counters['steps']}/{total_steps}  {rate:.0f} steps/s  "
                f"{games_rate:.1f} games/s  ETA {eta:.1f} min  games {counters['games']}"
                + (split_text if busy else "")
            )
            for key in ("env", "rollout", "update"):
                clock[key] = 0.0
            self.mark = (now, counters["steps"], counters["games"])

        def _on_step(self):
            dones = self.locals["dones"]
            finished = np.flatnonzero(dones)
            counters["games"] += int(finished.size)
            if use_league and finished.size:
                opponents.record(finished, np.asarray(self.locals["rewards"])[finished])
            if progress is not None:
                progress(self.num_timesteps - self.start, max(total_steps - self.start, 0))
            return True

    n_actions = int(venv.action_space.n)
    teach = setup["teacher"]
    bc_data = {}  # the teacher's positions (kickstart.load_chunks), when cloning or mixing

    def teacher_phase():
        """Generate the teacher's positions chunk by chunk, then clone them epoch by epoch
        (a checkpoint after each: a resumed run continues where it stopped)."""
        from boardgym.agents.training import kickstart as ks

        parsed = ks.parse_teacher(game, teach["spec"])
        n_chunks = -(-teach["games"] // ks.CHUNK_GAMES)
        while counters.setdefault("teacher_chunks", 0) < n_chunks:
            k = counters["teacher_chunks"]
            t = time.perf_counter()
            n = min(ks.CHUNK_GAMES, teach["games"] - k * ks.CHUNK_GAMES)
            data = ks.teacher_chunk(
                game,
                parsed,
                setup["seed"],
                k,
                n,
                teach["explore"],
                setup["openings"],
                setup["max_moves"],
            )
            ks.save_chunk(run_dir, k, data)
            counters["teacher_chunks"] = k + 1
            log(
                f"teacher {teach['spec']}: chunk {k + 1}/{n_chunks}, {n} games, "
                f"{len(data['actions'])} positions, {len(data['actions']) / (time.perf_counter() - t):.0f} positions/s"
            )
            checkpoint()
        if n_chunks:
            bc_data.update(ks.load_chunks(run_dir, n_chunks))
        if not bc_data:
            return
        train_idx, test_idx = ks.split(bc_data)
        if counters.setdefault("teacher_epochs", 0) == 0 and teach["epochs"]:
            ce, agree = ks.held_out(model.policy, bc_data, test_idx, n_actions)
            run_log.scalar("teacher/heldout_ce", ce, -teach["epochs"])  # the phase: steps -E..0
            log(
                f"teacher: {train_idx.size} positions to clone, {test_idx.size} held out: "
                f"cross-entropy {ce:.3f}, agreement {agree:.3f}"
            )
        while counters["teacher_epochs"] < teach["epochs"]:
            e = counters["teacher_epochs"]
            t = time.perf_counter()
            ce_train = ks.clone_epoch(
                model.policy,
                bc_data,
                train_idx,
                n_actions,
                setup["batch_size"],
                teach["lr"],
                teach["value"],
                setup["seed"],
                e,
            )
            ce, agree = ks.held_out(model.policy, bc_data, test_idx, n_actions)
            counters["teacher_epochs"] = e + 1
            for key, v in (("train_ce", ce_train), ("heldout_ce", ce), ("agreement", agree)):
                run_log.scalar(f"teacher/{key}", v, e + 1 - teach["epochs"])
            log(
                f"teacher: epoch {e + 1}/{teach['epochs']}  cross-entropy train {ce_train:.3f} "
                f"held-out {ce:.3f}  agreement {agree:.3f}  {time.perf_counter() - t:.0f} s"
            )
            if counters["teacher_epochs"] == teach["epochs"] and eval_every:
                evaluate()  # the cloned policy, before self-play: ppo_0.zip
            checkpoint()

    def mix_teacher():
        """Cross-entropy minibatches toward the teacher's labels (teacher_mix, decaying)."""
        from boardgym.agents.training import kickstart as ks

        w = ks.mix_weight(teach["mix"], teach["mix_steps"], counters["steps"])
        if w <= 0 or not bc_data:
            return
        gen = np.random.default_rng([setup["seed"], counters["steps"], 0x313])
        idx = ks.split(bc_data)[0]
        opt = model.policy.optimizer
        model.policy.set_training_mode(True)
        for _ in range(ks.MIX_BATCHES):
            b = idx[gen.integers(idx.size, size=min(setup["batch_size"], idx.size))]
            loss, _ = ks.bc_loss(model.policy, bc_data, b, n_actions)
            opt.zero_grad()
            (w * loss).backward()
            torch.nn.utils.clip_grad_norm_(model.policy.parameters(), 0.5)
            opt.step()
        model.policy.set_training_mode(False)
        self_play_mix.append(w)

    self_play_mix = []
    try:
        if teach is not None:
            teacher_phase()
        remaining = total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=SelfPlay(), reset_num_timesteps=False)
        counters["steps"] = model.num_timesteps
        evaluate_if_due()
        if counters.get("evaluated") != counters["steps"]:
            evaluate()  # every run ends with an evaluation (metrics.jsonl is never empty)
        checkpoint()
    finally:
        run_log.close()
    return model
