"""Backgammon kernel (rules B.1-B.6, E.1-E.7, O.1-O.3 of boardgym/RULES.md).

``game`` is the game core every adapter, trainer, harness and script calls: initial state, legal
mask and step by action, whole plays with their routes, the afterstate game loop, result and
truncation. The pieces it is built from: ``board`` (state layout, index constants, view flip,
the state validation kernel), ``movegen`` (checker moves; whole-turn afterstates and routes),
``codec`` (the atomic action encoding, masks, apply_action), ``turns`` (opening roll, rolling,
lost rolls), ``outcome`` (game end, single/gammon/backgammon), ``cube`` (doubling), ``dice``
(reproducible dice from an explicit RNG state). Beside them: ``observe`` (observation encoding),
``position_id`` (gnubg Position IDs: encode, decode, the sorted IDs of a roll's plays),
``opponents`` (the in-kernel random and greedy players) and ``batch`` (N games stepped by
parallel kernels).
"""
