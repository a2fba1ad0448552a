"""Russian draughts (русские шашки) rules kernel: Numba bitboards, exact rules, perft.

Rule set (boardgym/RULES.md): M.1-M.3 moves and crowning, 25.1-25.7 captures (compulsory,
men capture backwards, whole chains, free choice, Turkish strike, flying kings with the 25.4
landing rule, crowning mid-capture), G.1 loss without a move, G.2a-G.2e draws (switchable).
``game`` states this contract once and is what every adapter calls.

Modules, one concept each:
- ``game``      the game core: initial state, legal mask and step in the acting player's frame,
                whole moves with their routes, outcome and rewards (truncation included), the
                encodings, the content check of position vectors.
- ``board``     ghost-square layout, square numberings (sq32, PDN), geometry tables, the
                position-vector layout (``S_*``, ``STATE_LEN``) and move rows (``M_*``).
- ``movegen``   whole-move generation into caller-owned buffers (``gen_moves``), distinct
                outcomes with a canonical path, bulk counting.
- ``move``      ``apply_move``, ``set_position``.
- ``fen``       ``parse_fen``: the plain form of the PDN FEN read in a kernel (the Python reader
                in ``boardgym.envs.draughts`` handles the other forms and words errors).
- ``codec``     the action encoding (``from_sq32 * 32 + to_sq32``) and the mover's frame,
                ``legal_action_mask``, ``apply_action`` (one hop at a time).
- ``outcome``   ``game_status`` (G.1, G.2a-G.2e), draw-rule flags, Zobrist hashing.
- ``observe``   the observation encoder and decoder.
- ``perft``     ``perft`` (bulk counting), ``perft_parallel``.
- ``opponents`` in-kernel players (random, recapture) for batch cores and match loops.
- ``batch``     N games stepped by parallel kernels.

Notation and the validated Python entry points live in ``boardgym.envs.draughts``.
"""
