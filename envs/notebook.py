"""Notebooks show a ``gymnasium.make`` env as its board, as they show the env itself.

``gymnasium.make("boardgym/RussianDraughts-v0")`` returns the env inside Gymnasium's own wrappers
(OrderEnforcing, PassiveEnvChecker, and TimeLimit or any wrapper the user adds), which pass no
``_repr_svg_`` on, so IPython would print the wrapper's name. ``register()`` tells IPython's SVG
formatter to draw any ``gymnasium.Wrapper`` whose innermost env is a boardgym single-agent env as
that env's board (wrappers of other envs are left to IPython as before). ``boardgym.envs`` calls
it on import when an IPython shell is running (a notebook, an IPython console); elsewhere it does
nothing and IPython is never imported.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["register", "wrapped_svg"]


def wrapped_svg(env: Any) -> str | None:
    """The board (SVG) of a wrapped boardgym env, None for a wrapper of any other env."""
    inner = getattr(env, "unwrapped", None)
    if type(inner).__module__.startswith("boardgym.") and hasattr(inner, "_repr_svg_"):
        return inner._repr_svg_()
    return None


def register(shell: Any = None) -> bool:
    """Register wrapped_svg with shell's SVG formatter (default: the running IPython shell);
    False when there is no shell."""
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None:
            return False
    svg = shell.display_formatter.formatters["image/svg+xml"]
    svg.for_type_by_name("gymnasium.core", "Wrapper", wrapped_svg)  # gymnasium stays unimported
    return True
