"""Backgammon kernel (rules B.1-B.6, E.1-E.7, O.1-O.3 of ../shared/RULES.md).

Modules: ``board`` (state layout, index constants, view flip), ``movegen`` (checker moves and
whole-turn afterstates), ``codec`` (the atomic action encoding, masks, apply_action), ``outcome``
(game end, single/gammon/backgammon), ``dice`` (reproducible dice from an explicit RNG state).
Environment helpers built on these live beside them (``cube``, ``observe``, ``position_key``).
"""
