"""boardgym.envs: thin adapters over the kernels (notation, PettingZoo/Gymnasium envs).

Envs call kernels and copy results; they never decide legality, and never import
``boardgym.agents``. Importing this package registers the environments
(``boardgym.registration``; entry points are strings, so nothing heavy is imported until an env is
made):

- PettingZoo AEC: ``pettingzoo.make("aec", "boardgym/russian_draughts-v0")``,
  ``"boardgym/backgammon-v0"`` (or ``boardgym.envs.russian_draughts_v0.env()`` /
  ``boardgym.envs.backgammon_v0.env()``).
- Gymnasium single-agent: ``gymnasium.make("boardgym/RussianDraughts-v0", opponent="random")``,
  ``"boardgym/Backgammon-v0"``; batched: ``gymnasium.make_vec(id, num_envs=N,
  vectorization_mode="vector_entry_point")`` (boardgym.envs.vector).
- Pictures: ``draughts_render.Board("W:W21-32:B1-12")``, ``backgammon_render.Board("4HPwATDgc/ABMA",
  dice=(3, 1))`` show as boards in notebooks and write ``.svg`` / ``.png`` files (``save``); so do
  the envs, a ``gymnasium.make`` env in its Gymnasium wrappers too (``notebook``: registered with
  a running IPython on import).
"""

from boardgym.registration import register_gymnasium, register_pettingzoo

register_gymnasium()
register_pettingzoo()

from boardgym.envs import notebook  # noqa: E402  (after the envs are registered)

notebook.register()  # a running IPython shows gymnasium-wrapped envs as boards
