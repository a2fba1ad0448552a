"""The one loader of agents: registry names, ``name:key=value`` specs and checkpoint paths.

``load(name, game=None, **kwargs)`` builds the agent of a registry name or checkpoint path with
keyword options; ``load_spec(spec, game=None, *, seed=None, **defaults)`` the agent of a spec,
for the commands, the web board, kickstart and tests:

- a registry name: ``"<game>-<agent>"`` (``"draughts-greedy"``) or the short ``"<agent>"`` with
  ``game=`` (``"greedy"``); ``"random"`` needs no game;
- options after a colon: ``"name:key=value,key=value"`` (``parse_spec``; ``parse_option`` reads
  one ``key=value``, as ``--agent-option`` gives it): dashes in a key read as underscores; a
  value is ``none`` / ``true`` / ``false`` in any case, else a Python literal, else the text
  (``parse_value``);
- a checkpoint path, with options as a name's: ``.npz`` (a draughts learned evaluation, searched
  as ``draughts-alphabeta``, or a backgammon TD net, played as ``backgammon-td``; told apart by
  the arrays the file holds) or ``.zip`` / ``.pt`` (a MaskablePPO policy of either game).

The game is the one the name or checkpoint gives (``spec_game``); a ``game=`` it contradicts is
a ValueError. The spec's options win over ``defaults``; ``seed`` goes to the constructor of an
agent that takes a seed when neither gives one. An option the agent does not take is a
ValueError naming the ones it takes (``options``: the keyword parameters of its factory and of
the constructor the factory hands the rest to). Every error names the agent as it was given
(``agent NAME ...``). ``available(game)`` lists the names; other modules add theirs with
``register(game, name, factory)``. Messages name the agents in full (``draughts-greedy``), as
the README does; the short names work wherever the game is given.

Draughts: ``random``, ``greedy``, ``alphabeta-material`` (search, material evaluation) and
``alphabeta`` (the same search with the shipped learned evaluation distilled from deeper search,
an MLP over the observation and evaluation features,
``agents/checkpoints/draughts-alphabeta.npz``, or ``weights=PATH``), ``alphabeta-td`` (the same
search with the shipped TD(lambda) self-play value net, ``draughts-alphabeta-td.npz``), ``ppo``
(``agents/checkpoints/draughts-ppo.pt``, a 256x256 MaskablePPO policy cloned from
``draughts-alphabeta:depth=4`` then 35M steps with the league; or ``path=PATH``);
``alphabeta-2026`` (the frozen reference: ``alphabeta`` as it was on 2026-12-04, with a copy of
its weights, ``draughts-alphabeta-2026.npz``, and its time use: each move its budget, nothing
banked; the options that would change it are refused); the searches default to depth 6.

Backgammon: ``random``, ``greedy``, ``td`` (the shipped TD(0) self-play net
``agents/checkpoints/backgammon-td.npz``: the gnubg-style model, raw board plus contact
features, 128-unit contact net, 64-unit race net, exact bear-off database; or ``weights=PATH``,
any model the trainer writes; searched at play time:
``plies=2`` by default (with ``budget=150000`` afterstates a decision, past which a decision
keeps its 1-ply values), ``plies=1``, ``plies=0`` the net alone, with ``candidates=8`` and
``threshold=0.16``, at 2-ply ``candidates2=4`` within ``threshold2=0.08`` and ``replies=1``
opponent reply a roll searched; ``plies=3`` searches the close decisions (``candidates3=2``
within ``threshold3=0.02`` at 2-ply) a ply deeper, up to ``budget3=400000`` afterstates;
``prune=K`` lets the model's pruning net pick the K replies of a roll the model values (0: all;
needs a model with a pruning net: ``boardgym train --algo prune``);
agents/backgammon/search.py; its Janowski cube decides a
double or the answer to one on 2-ply outputs, ``cube_plies=2``, or on 1-ply ones,
``cube_plies=1``, with the cube efficiency ``cube_efficiency=0.68`` of money play and of a
match position with contact),
``expectimax`` (``depth`` 1-3 in its own
counting, ``width``, ``threshold``), ``ppo``
(the shipped ``agents/checkpoints/backgammon-ppo.pt``, a 256x256 MaskablePPO policy cloned from
``backgammon-td`` at 0-ply, then 1M steps of PPO with the league; or ``path=PATH`` to a policy of
``boardgym train --game backgammon --algo ppo``). A missing policy file or a policy of the
other game is a ValueError naming the file.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from boardgym.agents.files import CHECKPOINTS
from boardgym.agents.random_agent import RandomAgent

GAMES = ("draughts", "backgammon")
CHECKPOINT_SUFFIXES = (".npz", ".zip", ".pt")
_FACTORIES = {}


class Agent(Protocol):
    """What load builds: ``act(observation, action_mask) -> action`` for the acting seat."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def register(game: str, name: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(**kwargs) -> agent`` loadable as ``"<game>-<name>"`` (and as ``name``
    with game=)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    _FACTORIES[(game, name)] = factory


def available(game: str | None = None) -> list[str]:
    """Sorted loadable names (full ``game-name`` form; with game, the short names of that game)."""
    if game is not None:
        _check_game(game)
        return sorted(n for g, n in _FACTORIES if g == game)
    return sorted(f"{g}-{n}" for g, n in _FACTORIES) + ["random"]


def _names(game):
    """The full names of game's agents (``draughts-greedy``, ..., ``random``), for messages."""
    return ", ".join(sorted(f"{game}-{n}" for n in available(game) if n != "random") + ["random"])


def _check_game(game):
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")


# ---- option text -----------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """An option value of text: None / True / False for none / true / false (any case), else a
    Python literal (number, quoted string, tuple, ...), else the stripped text."""
    text = text.strip()
    low = text.lower()
    if low in ("none", "true", "false"):
        return {"none": None, "true": True, "false": False}[low]
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError):
        return text


def parse_option(item: str) -> tuple[str, Any]:
    """(key, value) of one option 'key=value' (dashes in key read as underscores, the value by
    parse_value); ValueError unless key is an identifier."""
    if not isinstance(item, str):
        raise ValueError(f"expected key=value, got {item!r}")
    key, sep, value = item.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise ValueError(f"expected key=value, got {item!r}")
    return key, parse_value(value)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """(name, kwargs) of an agent spec 'name:key=value,key=value' (parse_option); ValueError on
    an option that is not key=value."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    name, _, opts = spec.partition(":")
    kwargs = {}
    for item in filter(None, (s.strip() for s in opts.split(","))):
        try:
            key, value = parse_option(item)
        except ValueError:
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value") from None
        kwargs[key] = value
    return name.strip(), kwargs


# ---- loading ---------------------------------------------------------------------------------


def load(name: str | os.PathLike[str], game: str | None = None, **kwargs: Any) -> Agent:
    """A ready agent (``act(observation, action_mask) -> action``) of a registry name or
    checkpoint path (str or os.PathLike) with its keyword options; ValueError naming the
    problem."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, got {name!r}")
    if game is not None:
        _check_game(game)
    return _build(name.strip(), game, kwargs, None)


def load_spec(
    spec: str, game: str | None = None, *, seed: int | None = None, **defaults: Any
) -> Agent:
    """A ready agent of a name, ``name:key=value,...`` spec or checkpoint path for game (None:
    the game the spec gives); the spec's options win over defaults; seed goes to an agent that
    takes one when neither gives a seed. ValueError naming the problem."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    if game is not None:
        _check_game(game)
    name, own = parse_spec(spec)
    return _build(name, game, {**defaults, **own}, seed)


def options(name: str, game: str | None = None) -> list[str] | None:
    """Sorted keyword options the agent of a registry name or checkpoint path takes (None: any,
    a factory registered with **kwargs); ValueError as load for an unknown name."""
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, got {name!r}")
    if game is not None:
        _check_game(game)
    valid = _target(name.strip(), game)[3]
    return None if valid is None else sorted(valid)


def spec_game(spec: str) -> str | None:
    """The game a spec names: its name's prefix or an .npz checkpoint's contents; None when the
    name alone does not tell (random, greedy, a policy file, ...)."""
    name, _ = parse_spec(spec)
    for g in GAMES:
        if name.startswith(g + "-"):
            return g
    if name.endswith(".npz"):
        return _target(name, None)[0]
    return None


def _build(name, game, kwargs, seed):
    """The agent of name for game with kwargs (checked against its options), seeded by seed."""
    game, factory, fixed, valid = _target(name, game)
    if valid is not None:
        bad = sorted(set(kwargs) - valid)
        if bad:
            raise ValueError(
                f"agent {name} takes no option {bad[0]!r} "
                f"(its options: {', '.join(sorted(valid)) or 'none'})"
            )
        if seed is not None and "seed" in valid and "seed" not in kwargs:
            kwargs = {**kwargs, "seed": seed}
    agent = factory(**fixed, **kwargs)
    plays = getattr(agent, "game", None)
    if game is not None and plays is not None and plays != game:
        raise ValueError(f"agent {name} plays {plays}, not {game}")
    return agent


def _target(name, game):
    """(game, factory, keywords the name fixes, option names or None for any) of a registry
    name or checkpoint path for game (None: the one the name gives)."""
    if name.endswith(CHECKPOINT_SUFFIXES):
        game, factory, fixed = _checkpoint(name, game)
    else:
        game, factory = _resolve(name, game)
        fixed = {}
    valid = _option_names(factory)
    return game, factory, fixed, None if valid is None else valid - set(fixed)


def _resolve(name, game):
    """(game, factory) of a registry name for game (None: the name's prefix)."""
    short, prefixed = name, False
    for g in GAMES:
        if name.startswith(g + "-"):
            if game is not None and game != g:
                raise ValueError(_other_game(name, g, game))
            game, short, prefixed = g, name[len(g) + 1 :], True
            break
    if game is None:
        if short == "random":
            return None, RandomAgent
        raise ValueError(
            f"agent {name} needs a game: give game= one of {', '.join(GAMES)}; "
            f"available: {', '.join(available())}"
        )
    factory = _FACTORIES.get((game, short))
    if factory is None:
        other = GAMES[1 - GAMES.index(game)]
        if not prefixed and (other, short) in _FACTORIES:
            raise ValueError(_other_game(name, other, game))
        raise ValueError(
            f"unknown {game} agent {short!r}; available for {game}: "
            f"{_names(game)}, or a checkpoint path "
            f"({', '.join(CHECKPOINT_SUFFIXES)})"
        )
    return game, factory


def _other_game(name, its, game):
    return f"agent {name} is a {its} agent, not a {game} one (available for {game}: {_names(game)})"


def _checkpoint(path, game):
    """(game, factory, fixed keywords) of a checkpoint file for game (None: the file's; a
    policy's game is known once it is loaded)."""
    if path.endswith(".npz"):
        if not Path(path).is_file():
            raise ValueError(f"agent {path}: no checkpoint file there")
        kind = _npz_game(path)
        if kind is None:
            raise ValueError(
                f"agent {path} is neither a draughts evaluation nor a backgammon TD net"
            )
        if game is not None and kind != game:
            raise ValueError(
                f"agent {path} is a {kind} checkpoint, not a {game} agent "
                f"(play it in a {kind} game)"
            )
        return (
            kind,
            _FACTORIES[(kind, "alphabeta" if kind == "draughts" else "td")],
            {"weights": path},
        )
    if not Path(path).is_file():
        raise ValueError(f"agent {path}: no policy file there")
    return game, _policy_file, {"path": path, "game": game}


def _npz_game(path):
    """'draughts' (a learned evaluation), 'backgammon' (a TD net) or None for a .npz file."""
    try:
        with np.load(path) as z:
            files = set(z.files)
    except (OSError, ValueError) as e:
        raise ValueError(f"agent {path}: cannot read it as an .npz checkpoint ({e})") from None
    if {"kind", "w1", "scale"} <= files:
        return "draughts"
    if {"w1", "b1", "w2", "b2"} <= files:
        return "backgammon"
    return None


# ---- the options an agent takes --------------------------------------------------------------


def _passes_to(target, refuses=()):
    """Mark a factory whose ``**kwargs`` go to the constructor target ('module:Class'), but
    refuses."""

    def mark(factory):
        factory.passes_to, factory.refuses = target, tuple(refuses)
        return factory

    return mark


def _constructor(target):
    """A factory of the class target ('module:Class'), imported when first called."""

    @_passes_to(target)
    def factory(**kwargs):
        return _import(target)(**kwargs)

    return factory


def _import(target):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _params(fn):
    """(names of fn's keyword parameters, whether it takes **kwargs)."""
    params = inspect.signature(fn).parameters.values()
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return names, any(p.kind == p.VAR_KEYWORD for p in params)


def _class_options(cls):
    """The keyword options of cls's constructor, following **kwargs up to the bases'."""
    names = set()
    for klass in cls.__mro__[:-1]:  # object takes none
        if "__init__" in vars(klass):
            own, more = _params(vars(klass)["__init__"])
            names |= own - {"self"}
            if not more:
                break
    return names


def _option_names(factory):
    """The keyword options factory takes (a set; None: any): its own keyword parameters, and
    for **kwargs those of the constructor its passes_to names, but its refuses."""
    if inspect.isclass(factory):
        return _class_options(factory)
    names, more = _params(factory)
    if not more:
        return names
    target = getattr(factory, "passes_to", None)
    if target is None:
        return None
    return (names | _class_options(_import(target))) - set(factory.refuses)


# ---- the agents ------------------------------------------------------------------------------


_DRAUGHTS = "boardgym.agents.draughts.agents:"
_BACKGAMMON = "boardgym.agents.backgammon.agents:"


@_passes_to(_DRAUGHTS + "AlphaBetaAgent", refuses=("evaluation",))
def _draughts_alphabeta_material(**kwargs):
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    kwargs.setdefault("depth", 6)
    return AlphaBetaAgent(**kwargs)


def _draughts_alphabeta_learned(name, default_file, trainer):
    """Factory of the alpha-beta search with a learned evaluation (default: a shipped file)."""

    @_passes_to(_DRAUGHTS + "AlphaBetaAgent", refuses=("evaluation",))
    def factory(weights=None, **kwargs):
        from boardgym.agents.draughts.agents import AlphaBetaAgent

        path = CHECKPOINTS / default_file if weights is None else Path(weights)
        if not path.is_file():
            raise ValueError(f"{name}: no evaluation file at {path} (write one with {trainer})")
        kwargs.setdefault("depth", 6)
        return AlphaBetaAgent(evaluation=str(path), **kwargs)

    return factory


for _g in GAMES:
    register(_g, "random", RandomAgent)
register("draughts", "greedy", _constructor(_DRAUGHTS + "GreedyAgent"))
register("draughts", "alphabeta-material", _draughts_alphabeta_material)
register(
    "draughts",
    "alphabeta",
    _draughts_alphabeta_learned(
        "draughts-alphabeta", "draughts-alphabeta.npz", "boardgym train-eval"
    ),
)
#: what the frozen engine fixes (draughts-alphabeta-2026): the time use of that engine
FROZEN_2026 = {
    "time_bank": False,
    "adaptive_time": False,
    "start_fraction": 1.0,
    "keep_partial": True,
}


@_passes_to(_DRAUGHTS + "AlphaBetaAgent", refuses=("evaluation", *FROZEN_2026))
def _draughts_alphabeta_2026(**kwargs):
    """draughts-alphabeta as it was on 2026-12-04 (commit 3df8cb1): its weights (a copy; read
    in float32 like every net since 2026-12-06, its recorded searches unchanged) and its time use
    (every move its budget, none carried over)."""
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    kwargs.setdefault("depth", 6)
    path = CHECKPOINTS / "draughts-alphabeta-2026.npz"
    return AlphaBetaAgent(evaluation=str(path), **FROZEN_2026, **kwargs)


register("draughts", "alphabeta-2026", _draughts_alphabeta_2026)
# the same search with the TD(lambda) self-play value net (boardgym train --game draughts --algo td)
register(
    "draughts",
    "alphabeta-td",
    _draughts_alphabeta_learned(
        "draughts-alphabeta-td",
        "draughts-alphabeta-td.npz",
        "boardgym train --game draughts --algo td",
    ),
)


# ---- backgammon agents (agents/backgammon/agents.py) ----
register("backgammon", "td", _constructor(_BACKGAMMON + "TDSearchAgent"))
register("backgammon", "greedy", _constructor(_BACKGAMMON + "GreedyAgent"))
register("backgammon", "expectimax", _constructor(_BACKGAMMON + "ExpectimaxAgent"))


# ---- PPO policies (agents/ppo.py; need the [train] extra: torch, sb3-contrib) ----


def _ppo_class(who):
    """PPOAgent; a ValueError saying what to install when torch or sb3-contrib is missing."""
    try:  # agents.ppo imports torch and sb3-contrib only when a policy is built: ask first
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401

        from boardgym.agents.ppo import PPOAgent
    except ImportError as e:
        raise ValueError(
            f"{who} needs torch and sb3-contrib: pip install 'boardgym[train]' ({e})"
        ) from None
    return PPOAgent


def _policy_file(path, game=None, deterministic=True, device="cpu"):
    """The PPOAgent of a policy file (game None: the policy's)."""
    return _ppo_class(f"agent {path}")(path, deterministic=deterministic, device=device, game=game)


def _ppo(game, default_file):
    """Factory of ``<game>-ppo``: the shipped policy (default_file in CHECKPOINTS) or
    ``path=PATH`` (a MaskablePPO .zip of ``boardgym train --algo ppo`` or a policy-only .pt); a
    missing file or a policy of the other game is a ValueError naming the file."""

    def factory(path=None, deterministic=True, seed=None):
        p = CHECKPOINTS / default_file if path is None else Path(path)
        if not p.is_file():
            raise ValueError(
                f"{game}-ppo: no policy file at {p} (train one with "
                f"boardgym train --game {game} --algo ppo)"
            )
        return _ppo_class(f"{game}-ppo")(str(p), deterministic=deterministic, game=game)

    return factory


register("draughts", "ppo", _ppo("draughts", "draughts-ppo.pt"))
register("backgammon", "ppo", _ppo("backgammon", "backgammon-ppo.pt"))
