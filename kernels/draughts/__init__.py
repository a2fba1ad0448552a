"""Russian draughts (русские шашки) rules kernel: Numba bitboards, exact rules, perft.

Rule set (../shared/RULES.md): M.1-M.3 moves and crowning, 25.1-25.7 captures (compulsory,
men capture backwards, whole chains, free choice, Turkish strike, flying kings with the 25.4
landing rule, crowning mid-capture), G.1 loss without a move, G.2a-G.2e draws (switchable).

Modules, one concept each:
- ``board``   ghost-square layout, square numberings (sq32, PDN), geometry tables, the
              position-vector layout (``S_*``, ``STATE_LEN``) and move rows (``M_*``).
- ``movegen`` whole-move generation into caller-owned buffers (``gen_moves``), distinct
              outcomes with a canonical path, bulk counting.
- ``move``    ``apply_move``, ``set_position``, ``initial_state``.
- ``perft``   ``perft`` (bulk counting), ``perft_divide``, ``perft_parallel``.
- ``codec``   the action encoding (``from_sq32 * 32 + to_sq32``), ``legal_action_mask``,
              ``apply_action`` (one hop at a time).
- ``outcome`` ``game_status`` (G.1, G.2a-G.2e), draw-rule flags, Zobrist hashing.

Notation and validated Python entry points live in ``boardgym.envs.draughts``.
"""
