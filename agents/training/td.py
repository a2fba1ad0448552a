"""TD(lambda) self-play training (``boardgym train --algo td``): one loop for both games
(``run_td``), ``TDGame`` holding a game's kernels.

The games are played and learned from entirely inside Numba in chunks of ``ckpt_every`` games;
after each chunk the weights, the self-play generator's state and the counters go to
``latest.npz``. Every ``eval_every`` games and at the end the net plays ``eval_games`` games
against the game's in-kernel players (boardgym.kernels.players: random and the one-ply
heuristic) with its own evaluation seed; each evaluated net is also kept as ``games_<N>.npz``.
A resumed run continues exactly where its last checkpoint left off; a distillation round killed
while making its targets (hours at 2 plies) also keeps the targets it had made, saved every
``PARTIAL_EVERY`` seconds in ``ROUND_FILE`` under a digest of what they depend on, and goes on
after them (the same positions, so the same round).

- backgammon (boardgym.agents.backgammon.td.train_games): afterstate net, the dice from the
  generator; opponents "random" and "greedy" (kernels/backgammon/opponents.py);
  ``games_<N>.npz`` loads with TDAgent (``load("backgammon-td", weights=PATH)``). The gnubg
  model (``model="gnubg"``: net.init_model, td.train_model_games, TD(0)) has a race net and the
  bear-off database (generated at start and on resume, never saved); ``alpha_steps`` lowers the
  learning rate at given game counts, ``average_from`` makes the model the mean of its weights
  over the last stretch, and ``distill_rounds`` then fits it to its own 1-ply values
  (boardgym.agents.backgammon.distill).
- draughts (boardgym.agents.draughts.td.train_games): value of the position for the side to
  move, epsilon-greedy whole moves, games capped at 200 plies (a draw); opponents "random" and
  "recapture" (kernels/draughts/opponents.py), colours alternating; ``games_<N>.npz`` is a
  draughts_eval.Evaluation for ``load("draughts-alphabeta", weights=PATH)``.

The settings ``cfg`` of a run are a dataclass with the TD fields of ``boardgym train``'s
Settings (``TDSettings``, or the command's own Settings: the checkpoint keeps all its fields).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
import zipfile
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from boardgym.agents.training.lifecycle import Run, chunk, save_npz

#: games per TD training call between progress-bar updates (a chunk played in several calls
#: is the same games: the weights, generator and statistics carry over)
BAR_GAMES = 250
#: a distillation round's targets made so far, written every PARTIAL_EVERY seconds while they
#: are made and removed once the round is in the checkpoint: a killed round resumes after them
ROUND_FILE = "round_targets.npz"
PARTIAL_EVERY = 300.0
#: files a TD run writes into its directory (moved aside by --force)
TD_RUN_FILES = (
    "metrics.jsonl",
    "latest.npz",
    "latest.npz.tmp*",
    "games_*.npz",
    "tb",
    ROUND_FILE,
    ROUND_FILE + ".tmp*",
)

_Settings = TypeVar("_Settings")


@dataclasses.dataclass
class TDSettings:
    """The settings a TD run reads, with the defaults of ``boardgym train --algo td`` (whose
    flags of the same names document them)."""

    game: str = "backgammon"
    games: int = 100_000
    hidden: int = 80
    model: str = "tesauro"
    race_hidden: int = 64
    race_alpha: float = 0.0
    alpha: float = 0.0
    alpha_steps: str = ""
    lam: float = 0.0
    average_from: int = 0
    distill_rounds: int = 0
    distill_games: int = 2000
    distill_epochs: int = 2
    distill_alpha: float = 0.02
    distill_alt: float = 0.5
    distill_fit: str = "sgd"
    distill_plies: int = 1
    distill_prune: int = 0
    distill_hidden: int = 0
    distill_teacher: str = "float64"
    prune_hidden: int = 16
    prune_games: int = 3000
    start_from: str = ""
    epsilon: float = 0.05
    init_scale: float = 0.1
    seed: int = 0
    ckpt_dir: str = ""
    ckpt_every: int = 5_000
    eval_every: int = 20_000
    eval_games: int = 400
    resume: bool = False
    force: bool = False
    tensorboard: bool = True


@dataclasses.dataclass
class TDGame:
    """What the shared TD loop (``run_td``) needs from one game's TD kernels.

    ``init(cfg) -> (params, rng)``: fresh weights (a tuple of arrays, saved under ``names``) and
    the self-play generator state (int64[1]); ``train(params, rng, n, cfg, stats)``: n games,
    in place; ``figures(d) -> (dict, text)``: per-chunk figures (TensorBoard ``train/<key>``)
    and the progress-line text from the stats accumulated over the chunk; ``evaluate(params,
    n_games, seed)``: ``{opponent: points_summary}``; ``save_net(path, params, games, cfg)``: the
    evaluated net as a loadable file; ``kept``: settings a resumed run takes from its checkpoint;
    ``default_alpha``: the learning rate when ``--alpha`` is 0.
    """

    names: tuple
    n_stats: int
    init: object
    train: object
    figures: object
    evaluate: object
    save_net: object
    kept: tuple = ("hidden", "alpha", "lam", "seed")
    default_alpha: float = 0.1
    #: params rebuilt from the arrays a checkpoint holds (names): e.g. generated tables appended
    restore: object = tuple
    #: ``distill(params, rng, cfg, seed, log) -> (params, positions, [mse per epoch])``: one
    #: round of self-distillation (in place, or new params when the round widens the net and
    #: then cfg says its new size) (None: the game has none)
    distill: object = None


def run_td(
    cfg: Any,
    game: TDGame,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[np.ndarray, ...]:
    """TD self-play in chunks of --ckpt-every games: evaluations (and one at the end), logs,
    checkpoints, exact resume; returns the final params. log(text): the progress lines;
    progress(done, total): the games done and to do in this call (a progress bar)."""
    from boardgym.agents.training.run_log import format_evaluation

    if cfg.alpha == 0:
        cfg.alpha = game.default_alpha
    run = Run(cfg.ckpt_dir, "latest.npz", TD_RUN_FILES, "games", cfg.resume, cfg.force, log)
    latest = run.checkpoint
    stats = np.zeros(game.n_stats)
    seconds0 = 0.0
    rounds = 0
    n_avg, mean = 0, None  # the running mean of the weights (--average-from) and its count
    if cfg.resume:
        z = run.load(np.load)
        _check_checkpoint(latest, z, game, cfg)
        params = game.restore(tuple(z[k].copy() for k in game.names))
        rng = z["rng"].copy()
        done = int(z["games"])
        stats[:] = z["stats"]
        seconds0 = float(z["seconds"]) if "seconds" in z else 0.0
        rounds = int(z["rounds"]) if "rounds" in z else 0
        if "avg_count" in z:
            n_avg = int(z["avg_count"])
            mean = [z["avg_" + k].copy() for k in game.names]
        saved = json.loads(str(z["settings"]))
        for key in game.kept:
            if saved[key] != getattr(cfg, key):
                run.keep(key, f"{saved[key]} (asked {getattr(cfg, key)})")
                setattr(cfg, key, saved[key])
        log(f"resumed {latest} at {done} games")
    else:
        params, rng = game.init(cfg)
        done = 0
    run_log = run.open_log(done if cfg.resume else None, cfg.tensorboard, seconds0)

    def checkpoint():
        run.save_arrays(
            **dict(zip(game.names, params)),
            rng=rng,
            games=np.int64(done),
            rounds=np.int64(rounds),
            stats=stats,
            settings=np.array(json.dumps(dataclasses.asdict(cfg))),
            **({"avg_count": np.int64(n_avg)} if n_avg else {}),
            **({"avg_" + k: a for k, a in zip(game.names, mean)} if n_avg else {}),
            seconds=np.float64(run.seconds()),
        )

    def shown():
        """The net an evaluation plays: the mean while averaging, else the weights."""
        if not n_avg or done >= cfg.games:  # at the end the weights are the mean
            return params
        return game.restore(tuple(mean))

    def evaluation(extra=None):
        net = shown()
        res = game.evaluate(net, cfg.eval_games, 10_000_000 + done)
        game.save_net(os.path.join(cfg.ckpt_dir, f"games_{done}.npz"), net, done, cfg)
        run_log.evaluation(
            {
                "games": done,
                **(extra or {}),
                "seconds": round(run.seconds(), 1),
                **res,
            }
        )
        log("eval " + format_evaluation(res))

    start = done
    schedule = parse_alpha_steps(cfg.alpha_steps)
    last_stats = stats.copy()
    total = max(cfg.games - start, 0)
    try:
        while done < cfg.games:
            n = chunk(done, cfg.games, cfg.ckpt_every, cfg.eval_every)
            k = 0
            while k < n:  # calls of BAR_GAMES are the same games as one call (tested); the bar
                # moves; a call ends where --alpha-steps changes the rate
                m = min([BAR_GAMES, n - k] + [g - done - k for g, _ in schedule if g > done + k])
                now = alpha_at(cfg, schedule, done + k)
                game.train(params, rng, m, now, stats)
                k += m
                if progress is not None:
                    progress(done + k - start, total)
            done += n
            el = run.seconds() - seconds0
            rate = (done - start) / el if el > 0 else 0.0
            eta = (cfg.games - done) / rate if rate > 0 else float("nan")
            figures, text = game.figures(stats - last_stats)
            last_stats = stats.copy()
            figures["games_per_s"] = rate
            if schedule:
                figures["alpha"] = now.alpha
                text += f"  alpha {now.alpha:g}"
            for key, value in figures.items():
                run_log.scalar(f"train/{key}", value, done)
            log(
                f"games {done}/{cfg.games}  {rate:.0f} games/s  ETA {eta / 60:.1f} min  {text}",
            )
            if cfg.average_from and done >= cfg.average_from:
                n_avg += 1
                if mean is None:
                    mean = [a.copy() for a in params[: len(game.names)]]
                for m, a in zip(mean, params):
                    m += (a - m) / n_avg
                if done == cfg.games:
                    for m, a in zip(mean, params):
                        a[...] = m
                    log(
                        f"the model is now the mean of its weights at {n_avg} checkpoints "
                        f"from {cfg.average_from} games on",
                    )
            if (cfg.eval_every > 0 and done % cfg.eval_every == 0) or done == cfg.games:
                # every --eval-every games and at the end; before the checkpoint, so a resumed
                # run keeps this evaluation line
                evaluation()
            checkpoint()
        while rounds < cfg.distill_rounds:
            t1 = time.perf_counter()
            params, n, errors = game.distill(params, rng, cfg, cfg.seed * 1_000_003 + rounds, log)
            rounds += 1
            done += cfg.distill_games
            run_log.scalar("distill/mse", errors[-1], done)
            log(
                f"distill round {rounds}/{cfg.distill_rounds}: {n} positions, equity mse "
                f"{errors[0]:.5f} -> {errors[-1]:.5f}, "
                f"{time.perf_counter() - t1:.0f} s",
            )
            evaluation({"round": rounds, "positions": n})
            checkpoint()
            partial = os.path.join(cfg.ckpt_dir, ROUND_FILE)
            if os.path.exists(partial):
                os.remove(partial)  # the round is in the checkpoint now
        if done > start:
            path = os.path.join(cfg.ckpt_dir, f"games_{done}.npz")
            log(
                f"saved the model ({done:,} games) to {path}: play it with "
                f"boardgym play --game {cfg.game} --agent {path}"
            )
    finally:
        run.close()
    return params


def _check_checkpoint(path, z, game, cfg):
    """ValueError naming path unless the checkpoint z (an NpzFile) is a TD checkpoint of cfg's
    game and model."""
    missing = [k for k in (*game.names, "rng", "games", "stats", "settings") if k not in z.files]
    saved = {} if "settings" in missing else json.loads(str(z["settings"]))
    was = (saved.get("game", cfg.game), saved.get("model", "tesauro"))
    now = (cfg.game, cfg.model if cfg.game == "backgammon" else "tesauro")
    if missing or was != now:
        what = f"a {was[0]} ({was[1]}) run's" if saved else "not a TD run's"
        raise ValueError(
            f"--resume: {path} is {what} checkpoint, not one of this {now[0]} ({now[1]}) run"
            + (f" (it has no {', '.join(missing)})" if missing else "")
        )


def evaluate_td(params: Sequence[np.ndarray], n_games: int, seed: int) -> dict[str, dict[str, Any]]:
    """The backgammon net (w1, b1, w2, b2) against random and greedy: evaluate_model of its
    model tuple."""
    from boardgym.agents.backgammon import net as td_net

    return evaluate_model(td_net.as_model(params), n_games, seed)


def _backgammon_td_game():
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon import td
    from boardgym.agents.backgammon.weights import save_weights

    def figures(d):
        f = {
            "plies_per_game": d[td.ST_PLIES] / max(d[td.ST_GAMES], 1),
            "abs_td_error": d[td.ST_ABS_DELTA] / max(d[td.ST_PLIES], 1),
            "gammon_rate": d[td.ST_GAMMONS] / max(d[td.ST_GAMES], 1),
        }
        return f, (
            f"plies/game {f['plies_per_game']:.1f}  |delta win| {f['abs_td_error']:.4f}  "
            f"gammons {f['gammon_rate']:.3f}"
        )

    return TDGame(
        names=("w1", "b1", "w2", "b2"),
        n_stats=td.N_STATS,
        init=lambda cfg: (
            td_net.init_params(cfg.hidden, cfg.seed, cfg.init_scale),
            np.array([cfg.seed], dtype=np.int64),
        ),
        train=lambda p, rng, n, cfg, stats: td.train_games(*p, rng, n, cfg.alpha, cfg.lam, stats),
        figures=figures,
        evaluate=evaluate_td,
        save_net=lambda path, p, games, cfg: save_weights(
            path, p, games=games, settings=dataclasses.asdict(cfg)
        ),
    )


def evaluate_model(
    params: Sequence[np.ndarray], n_games: int, seed: int
) -> dict[str, dict[str, Any]]:
    """A td_net model tuple against random and greedy (td_net.play_match: pairs of games on one
    dice stream, seats swapped; gammons count): {name: points_summary} (run_log format)."""
    from boardgym.agents.arena.matches import baseline_report
    from boardgym.agents.backgammon import net as td_net
    from boardgym.kernels.players import OPP_GREEDY, OPP_RANDOM

    codes = {"random": OPP_RANDOM, "greedy": OPP_GREEDY}

    def play(name, n_pairs, s):
        pts = np.zeros(2 * n_pairs)
        td_net.play_match(params, params, codes[name], np.array([s], dtype=np.int64), n_pairs, pts)
        return pts

    return baseline_report(play, n_games, seed, -3.0, 3.0)


def _backgammon_gnubg_game():
    """The gnubg-input model (td.train_model_games: TD(0) of the contact and race nets)."""
    from boardgym.agents.backgammon import td
    from boardgym.agents.backgammon.weights import MODEL_NAMES, check_params, save_weights

    base = _backgammon_td_game()
    return dataclasses.replace(
        base,
        names=MODEL_NAMES,
        init=lambda cfg: (_start_model(cfg), np.array([cfg.seed], dtype=np.int64)),
        train=lambda p, rng, n, cfg, stats: td.train_model_games(
            p, rng, n, cfg.alpha, cfg.race_alpha or cfg.alpha, cfg.lam, stats
        ),
        evaluate=evaluate_model,
        save_net=lambda path, p, games, cfg: save_weights(
            path, p, games=games, settings=dataclasses.asdict(cfg)
        ),
        kept=("hidden", "alpha", "lam", "seed", "model", "race_hidden", "race_alpha"),
        restore=check_params,
        distill=_distill_round,
    )


def _start_model(cfg):
    """The gnubg-input model a new run starts from: fresh weights (--hidden, --race-hidden,
    --seed, --init-scale), or with --start-from a copy of that weights file's model, whose net
    sizes are then written into cfg (so the run's settings and its checkpoints say them)."""
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon.weights import load_weights

    if not cfg.start_from:
        return td_net.init_model(cfg.hidden, cfg.seed, cfg.init_scale, race_hidden=cfg.race_hidden)
    # the pruning net belongs to a finished model (agents/backgammon/prune.py): not trained here
    params = td_net.without_prune(tuple(a.copy() for a in load_weights(cfg.start_from)))
    if params[0][td_net.H_KIND] != td_net.KIND_GNUBG or params[6].shape[0] == 0:
        raise ValueError(
            f"--start-from {cfg.start_from}: not a gnubg-input model with a race net "
            "(--model gnubg)"
        )
    cfg.hidden, cfg.race_hidden = int(params[2].shape[0]), int(params[6].shape[0])
    return params


def _distill_round(params, rng, cfg, seed, log):
    """One round of agents/backgammon/distill.py on the model tuple -> (params, positions,
    [mse per epoch]); with --distill-prune, a pruning net fitted to the round's teacher first
    (prune.fit_prune: units --prune-hidden, data of --prune-games games and a tenth as many held
    out, seeded by the round); with --distill-hidden above the contact net's units, the net is
    widened to that many after the targets (td_net.widen, seeded by the round: the same
    outputs, so the targets are the narrower teacher's) and cfg.hidden says the new size."""
    from boardgym.agents.backgammon import distill as td_distill
    from boardgym.agents.backgammon import net as td_net
    from boardgym.agents.backgammon import prune as td_prune

    units = params[2].shape[0]
    wide = None  # the widened net, made before the targets so a bad size costs nothing
    if cfg.distill_hidden and cfg.distill_hidden != units:
        try:
            wide = td_net.widen(params, cfg.distill_hidden, seed)
        except ValueError:
            raise ValueError(
                f"--distill-hidden {cfg.distill_hidden}: the contact net has {units} units, so a "
                f"whole multiple of {units} (it can be widened, not narrowed)"
            ) from None
    prune_net = ()
    if cfg.distill_prune > 0:
        t1 = time.perf_counter()
        fitted, report = td_prune.fit_prune(
            params,
            hidden=cfg.prune_hidden,
            games=cfg.prune_games,
            holdout=max(1, cfg.prune_games // 10),
            seed=seed,
        )
        prune_net = fitted[td_net.I_PRUNE :]
        k = max(k for k in report["recall"] if k <= cfg.distill_prune)
        log(
            f"pruning net for the round's 2-ply targets: held out, the best reply among its {k} "
            f"best in {report['recall'][k][0]:.1%} of rolls, {time.perf_counter() - t1:.0f} s"
        )

    cap = int(td_distill.POSITIONS_PER_GAME * cfg.distill_games * (1 + cfg.distill_alt))
    path = os.path.join(cfg.ckpt_dir, ROUND_FILE)
    key = _round_key(params, prune_net, rng, seed, cfg)
    made = _made_targets(path, key, log)
    last = [time.perf_counter()]

    def keep(k, targets):
        now = time.perf_counter()
        if now - last[0] >= PARTIAL_EVERY:
            last[0] = now
            save_npz(path, key=np.array(key), targets=targets[:k])

    rows, targets, n = td_distill.round_targets(
        params,
        rng,
        cfg.distill_games,
        cfg.distill_alt,
        cap,
        cfg.distill_plies,
        cfg.distill_prune,
        prune_net,
        log,
        made,
        keep,
        cfg.distill_teacher,
    )
    if wide is not None:
        params = wide
        cfg.hidden = cfg.distill_hidden
        log(f"the contact net widened from {units} to {cfg.distill_hidden} units for the fit")
    errors = td_distill.fit_round(
        params,
        rows,
        targets,
        n,
        cfg.distill_epochs,
        cfg.distill_alpha,
        cfg.distill_alpha,
        seed,
        cfg.distill_fit,
    )
    return params, n, errors


def _round_key(params, prune_net, rng, seed, cfg) -> str:
    """What a round's targets depend on, as a sha256 hex digest: the model's nets (not the
    bear-off table, which is generated), the pruning net, the generator's state at the round's
    start, the round's seed and its settings."""
    from boardgym.agents.backgammon import net as td_net

    h = hashlib.sha256()
    for a in (*params[: td_net.I_TABLE], *prune_net, rng):
        h.update(np.ascontiguousarray(a).tobytes())
    what = (
        seed,
        cfg.distill_games,
        cfg.distill_alt,
        cfg.distill_plies,
        cfg.distill_prune,
        cfg.distill_teacher,
    )
    h.update(json.dumps(what).encode())
    return h.hexdigest()


def _made_targets(path, key, log):
    """The targets a killed round of this key left in path (ROUND_FILE), or None; a file of
    another round is left to be replaced; ValueError naming an unreadable one."""
    if not os.path.exists(path):
        return None
    try:
        with np.load(path) as z:
            saved, made = str(z["key"]), z["targets"].copy()
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile) as e:
        raise ValueError(
            f"{path} is not a readable file of a round's targets ({' '.join(str(e).split())}); "
            "move it away to make the round's targets from the start"
        ) from None
    if saved != key:
        log(f"{path} holds another round's targets: this round makes its own")
        return None
    log(f"the round goes on after the {len(made):,} targets made before ({path})")
    return made


def train_backgammon_td(
    cfg: Any,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[np.ndarray, ...]:
    """TD self-play for backgammon; returns the final params ((w1, b1, w2, b2) for --model
    tesauro, the td_net model tuple for --model gnubg)."""
    if cfg.model == "gnubg":
        if cfg.lam != 0.0:
            raise ValueError("--model gnubg trains by TD(0): --lam must be 0")
        return run_td(cfg, _backgammon_gnubg_game(), log, progress)
    return run_td(cfg, _backgammon_td_game(), log, progress)


def evaluate_draughts_td(
    params: Sequence[np.ndarray], n_games: int, seed: int
) -> dict[str, dict[str, Any]]:
    """The draughts net (one ply) against the in-kernel random and recapture players, colours
    alternating (td_draughts.play_match): {name: points_summary} (run_log format)."""
    from boardgym.agents.arena.matches import baseline_report
    from boardgym.agents.draughts import td as td_draughts
    from boardgym.kernels.players import OPP_GREEDY, OPP_RANDOM
    from boardgym.kernels.rng import seed_rngs

    codes = {"random": OPP_RANDOM, "recapture": OPP_GREEDY}

    def play(name, n_pairs, s):
        pts = np.zeros(2 * n_pairs)
        td_draughts.play_match(
            *params, codes[name], seed_rngs(s, 1), 2 * n_pairs, td_draughts.MAX_PLIES, pts
        )
        return pts

    return baseline_report(play, n_games, seed, -1.0, 1.0, opponents=tuple(codes))


def _draughts_td_game():
    from boardgym.agents.draughts import td as tdd
    from boardgym.kernels.rng import seed_rngs

    def figures(d):
        g = max(d[tdd.ST_GAMES], 1)
        f = {
            "plies_per_game": d[tdd.ST_PLIES] / g,
            "abs_td_error": d[tdd.ST_ABS_DELTA] / max(d[tdd.ST_PLIES], 1),
            "white_win_rate": d[tdd.ST_WHITE_WINS] / g,
            "draw_rate": 1.0 - (d[tdd.ST_WHITE_WINS] + d[tdd.ST_BLACK_WINS]) / g,
            "capped_rate": d[tdd.ST_CAPPED] / g,
        }
        return f, (
            f"plies/game {f['plies_per_game']:.1f}  |delta| {f['abs_td_error']:.4f}  "
            f"white wins {f['white_win_rate']:.3f}  draws {f['draw_rate']:.3f}"
        )

    return TDGame(
        names=("w1", "b1", "w2", "b2"),
        n_stats=tdd.N_STATS,
        init=lambda cfg: (
            tdd.init_params(cfg.hidden, cfg.seed, cfg.init_scale),
            seed_rngs(cfg.seed, 1),
        ),
        train=lambda p, rng, n, cfg, stats: tdd.train_games(
            *p, rng, n, cfg.alpha, cfg.lam, cfg.epsilon, stats
        ),
        figures=figures,
        evaluate=evaluate_draughts_td,
        save_net=lambda path, p, games, cfg: tdd.to_evaluation(p).save(path),
        kept=("hidden", "alpha", "lam", "epsilon", "seed"),
        # the output is linear (no sigmoid to damp the steps); measured: 0.003 gave a better
        # search evaluation than 0.01 (BENCHMARKS.md, TD(lambda) draughts evaluation)
        default_alpha=0.003,
    )


def train_draughts_td(
    cfg: Any,
    log: Callable[[str], object] = print,
    progress: Callable[[int, int], object] | None = None,
) -> tuple[np.ndarray, ...]:
    """TD(lambda) self-play for Russian draughts; returns the final (w1, b1, w2, b2)
    (td_draughts layout; ``td_draughts.to_evaluation`` makes the search evaluation)."""
    return run_td(cfg, _draughts_td_game(), log, progress)


def parse_alpha_steps(text: str) -> list[tuple[int, float]]:
    """--alpha-steps "G1:A1,G2:A2" -> [(G1, A1), (G2, A2)] (games increasing, rates > 0);
    ValueError naming the bad entry."""
    steps = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        games, sep, alpha = item.partition(":")
        try:
            g, a = int(games), float(alpha)
        except ValueError:
            g, a = -1, float("nan")
        if not (sep == ":" and g > 0 and a > 0 and np.isfinite(a)):
            raise ValueError(f"--alpha-steps: {item!r} is not GAMES:ALPHA (games > 0, alpha > 0)")
        if steps and g <= steps[-1][0]:
            raise ValueError(
                f"--alpha-steps: the game counts must increase, got {item!r} after {steps[-1][0]}"
            )
        steps.append((g, a))
    return steps


def alpha_at(cfg: _Settings, steps: Sequence[tuple[int, float]], games: int) -> _Settings:
    """The settings with the learning rates of --alpha-steps at game count games (cfg itself
    when no step applies)."""
    alpha = cfg.alpha
    for g, a in steps:
        if games >= g:
            alpha = a
    if alpha == cfg.alpha:
        return cfg
    race = cfg.race_alpha * alpha / cfg.alpha if cfg.race_alpha else 0.0
    return dataclasses.replace(cfg, alpha=alpha, race_alpha=race)
