"""``optimal``: exact optimal play where the solver has a value table.

Tables the solver handles (``expected_scores.solve``): one ``free`` column of
Yatzy or Yahtzee, or one ``down`` or ``up`` column of a preset without jokers.
At a table of several players each seat plays its own sheet as a solitaire
game: the most points expected, not the most wins. The first use of a table
solves it (or loads the cached solution); the play itself is
``expected_scores.optimal_play.SolvedPlayer``.
"""

from __future__ import annotations

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solve import solve, table_kind
from yamb.layout import Layout


def check_table(layout: Layout) -> None:
    """Nothing when the solver handles ``layout``'s table, else its precise error (nothing is solved)."""
    table_kind(layout.rules, layout.columns)


def optimal_player(layout: Layout) -> SolvedPlayer:
    """The optimal player of ``layout``, or a precise error when no exact solution exists."""
    rules = layout.rules
    return SolvedPlayer(solve(rules.name, layout.columns, joker=rules.joker, dice=rules.n_dice))
