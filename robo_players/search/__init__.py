"""The turn search that ``expectimax``, the search-guided networks and the look-ahead share.

- ``tables``: what the search reads besides the engine's state and constants (``SearchTables``).
- ``values``: the value of ending a turn in a cell, by a fill or an announcement, hand by hand.
- ``correction``: the corrections of cell values a player adds (``Correction``), and a column's
  values with them.
- ``lanes``: turns queued for planning and the SIMD lanes that plan them together.
- ``turn``: the search of a batch's games: each game's action, its turn planned when it needs it.
- ``next_turn``: the look-ahead's next tables and the start value of the next turn's plan from each.
"""
