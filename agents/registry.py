"""``load(name, game=None, **kwargs)``: ready agents by name, for the envs and the evaluation script.

Names are ``"<game>-<agent>"`` (``"draughts-greedy"``, ``"draughts-alphabeta-material"``) or the
short ``"<agent>"`` with ``game=`` (``load("greedy", game="draughts")``); ``"random"`` needs no
game. Keyword options pass through to the agent's constructor (``depth=4``, ``seed=1``,
``time_limit=0.5``). ``available(game)`` lists the names; other modules add theirs with
``register(game, name, factory)``.

Draughts: ``random``, ``greedy``, ``alphabeta-material`` (search, material evaluation) and
``alphabeta`` (the same search with the shipped learned evaluation distilled from deeper search,
an MLP over the observation and evaluation features,
``agents/checkpoints/draughts-alphabeta.npz``, or ``weights=PATH``), ``alphabeta-td`` (the same
search with the shipped TD(lambda) self-play value net, ``draughts-alphabeta-td.npz``), ``ppo``
(``agents/checkpoints/draughts-ppo.pt``, a 256x256 MaskablePPO policy cloned from
``draughts-alphabeta:depth=4`` then 35M steps with the league; or ``path=PATH``);
the searches default to depth 6.

Backgammon: ``random``, ``greedy``, ``td`` (the shipped TD(0) self-play net
``agents/checkpoints/backgammon-td.npz``: the gnubg-style model, raw board plus contact
features, 128-unit contact net, 64-unit race net, exact bear-off database; or ``weights=PATH``,
any model the trainer writes; searched at play time:
``plies=2`` by default (with ``budget=100000`` afterstates a decision, past which a decision
keeps its 1-ply values), ``plies=1``, ``plies=0`` the net alone, with ``candidates=8`` and
``threshold=0.16``, agents/backgammon/search.py), ``expectimax`` (``depth`` 1-3 in its own
counting, ``width``, ``threshold``), ``ppo``
(the shipped ``agents/checkpoints/backgammon-ppo.pt``, a 256x256 MaskablePPO policy cloned from
``backgammon-td`` at 0-ply, then 1M steps of PPO with the league; or ``path=PATH`` to a policy of
``boardgym train --game backgammon --algo ppo``).
``parse_spec("name:key=value,...")`` splits an agent spec of the command-line tools into the name
and its keyword options. ``load("<game>-ppo", path=PATH)`` loads any PPO policy of either game; a missing file or a
policy of the other game is a ValueError naming the file.
"""

import ast
from pathlib import Path

from boardgym.agents.files import CHECKPOINTS

GAMES = ("draughts", "backgammon")
_FACTORIES = {}


def register(game, name, factory):
    """Make ``factory(**kwargs) -> agent`` loadable as ``"<game>-<name>"`` (and ``name`` with game=)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    _FACTORIES[(game, name)] = factory


def available(game=None):
    """Sorted loadable names (full ``game-name`` form; with game, the short names of that game)."""
    if game is not None:
        _check_game(game)
        return sorted(n for g, n in _FACTORIES if g == game)
    return sorted(f"{g}-{n}" for g, n in _FACTORIES) + ["random"]


def _check_game(game):
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")


def load(name, game=None, **kwargs):
    """A ready agent (``act(observation, action_mask) -> action``) by name; ValueError if unknown."""
    if not isinstance(name, str):
        raise ValueError(f"agent name must be a string, got {name!r}")
    if game is not None:
        _check_game(game)
    short = name
    for g in GAMES:
        if name.startswith(g + "-"):
            if game is not None and game != g:
                raise ValueError(f"agent {name!r} is for {g}, not {game}")
            game, short = g, name[len(g) + 1 :]
            break
    if game is None:
        if short == "random":
            from boardgym.agents.random_agent import RandomAgent

            return RandomAgent(**kwargs)
        raise ValueError(
            f"agent {name!r} needs a game: load({name!r}, game=...) with game in "
            f"{GAMES}; available: {', '.join(available())}"
        )
    factory = _FACTORIES.get((game, short))
    if factory is None:
        raise ValueError(
            f"unknown {game} agent {short!r}; available for {game}: {', '.join(available(game))}"
        )
    return factory(**kwargs)


def parse_spec(spec):
    """(name, kwargs) of an agent spec 'name:key=value,key=value' (values are Python literals,
    else strings); ValueError on an option without '='."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    name, _, opts = spec.partition(":")
    kwargs = {}
    for item in filter(None, (s.strip() for s in opts.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad agent option {item!r} in {spec!r}: expected key=value")
        try:
            kwargs[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            kwargs[key.strip()] = value.strip()
    return name.strip(), kwargs


def _random(**kwargs):
    from boardgym.agents.random_agent import RandomAgent

    return RandomAgent(**kwargs)


def _draughts_greedy(**kwargs):
    from boardgym.agents.draughts.agents import GreedyAgent

    return GreedyAgent(**kwargs)


def _draughts_alphabeta_material(**kwargs):
    from boardgym.agents.draughts.agents import AlphaBetaAgent

    if "evaluation" in kwargs:
        raise ValueError(
            "draughts-alphabeta-material uses the material evaluation; "
            "use draughts-alphabeta with weights=PATH for a learned one"
        )
    kwargs.setdefault("depth", 6)
    return AlphaBetaAgent(**kwargs)


def _draughts_alphabeta_learned(name, default_file, trainer):
    """Factory of the alpha-beta search with a learned evaluation (default: a shipped file)."""

    def factory(weights=None, **kwargs):
        from boardgym.agents.draughts.agents import AlphaBetaAgent

        if "evaluation" in kwargs:
            raise ValueError(f"{name} takes weights=PATH.npz, not evaluation=")
        path = CHECKPOINTS / default_file if weights is None else Path(weights)
        if not path.is_file():
            raise ValueError(f"{name}: no evaluation file at {path} (write one with {trainer})")
        kwargs.setdefault("depth", 6)
        return AlphaBetaAgent(evaluation=str(path), **kwargs)

    return factory


_draughts_alphabeta = _draughts_alphabeta_learned(
    "draughts-alphabeta", "draughts-alphabeta.npz", "boardgym train-eval"
)


for _g in GAMES:
    register(_g, "random", _random)
register("draughts", "greedy", _draughts_greedy)
register("draughts", "alphabeta-material", _draughts_alphabeta_material)
register("draughts", "alphabeta", _draughts_alphabeta)
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


def _backgammon_td(weights=None, **kwargs):
    from boardgym.agents.backgammon.agents import TDSearchAgent

    return TDSearchAgent(weights=weights, **kwargs)


def _backgammon_greedy(**kwargs):
    from boardgym.agents.backgammon.agents import GreedyAgent

    return GreedyAgent(**kwargs)


def _backgammon_expectimax(**kwargs):
    from boardgym.agents.backgammon.agents import ExpectimaxAgent

    return ExpectimaxAgent(**kwargs)


register("backgammon", "td", _backgammon_td)
register("backgammon", "greedy", _backgammon_greedy)
register("backgammon", "expectimax", _backgammon_expectimax)


# ---- PPO policies (agents/ppo.py; need the [train] extra: torch, sb3-contrib) ----


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
        try:  # agents.ppo imports torch and sb3-contrib only when a policy is built: ask first
            import sb3_contrib  # noqa: F401
            import torch  # noqa: F401

            from boardgym.agents.ppo import PPOAgent
        except ImportError as e:
            raise ValueError(
                f"{game}-ppo needs torch and sb3-contrib: pip install 'boardgym[train]' ({e})"
            ) from None
        return PPOAgent(str(p), deterministic=deterministic, game=game)

    return factory


register("draughts", "ppo", _ppo("draughts", "draughts-ppo.pt"))
register("backgammon", "ppo", _ppo("backgammon", "backgammon-ppo.pt"))
