"""The search players and the turn search they share.

The players:

- ``expectimax``: exact search of the rest of the turn, cells valued by ``cell_values``.
- ``column_exact``: expectimax over the exact one-column solutions of some column kinds.
- ``row_means``: row expectations that know an open row has many turns to come.
- ``row_plans``: each row played alone, the turn optimizer's plans (``smart`` reads them).
- ``lookahead``: endings valued with the next turn's best plan (two turns or more).
- ``explain``: what a search player thinks of each open cell (hints, the coach).

The search they share:

- ``cell_values``: what a cell is worth, its score against what the row is expected to bring.
- ``tables``: what the search reads besides the engine's state and constants (``SearchTables``).
- ``values``: the value of ending a turn in a cell, by a fill or an announcement, hand by hand.
- ``correction``: the corrections of cell values a player adds (``Correction``), and a column's
  values with them.
- ``lanes``: turns queued for planning and the SIMD lanes that plan them together.
- ``turn``: the search of a batch's games: each game's action, its turn planned when it needs it.
- ``next_turn``: the look-ahead's next tables and the start value of the next turn's plan from each.
"""
