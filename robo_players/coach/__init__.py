"""The coach: every decision of a game valued against the best one, a game's review, a keep's outcomes.

- ``positions``: a game's decisions replayed into one batch, decision ``i`` in game ``i``.
- ``values``: the value of every legal action at a batch's decisions: exact on Yatzy and Yahtzee
  (the optimal solver's state values), else the coach bot's (a search player's values).
- ``search_values``: the search player's values of a decision's actions (its turn plan's kernels).
- ``review``: each decision's loss and class, each player's total loss and expected final score.
- ``outcomes``: the exact chance of each pattern after a keep and the rolls left.
"""
