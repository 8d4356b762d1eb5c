"""``optimal``: exact optimal play where the solver has a value table.

Tables the solver handles (``expected_scores.solve``): one ``free`` column of
Yatzy or Yahtzee, or one ``down`` or ``up`` column of a preset without jokers,
solitaire. The first use of a table solves it (or loads the cached solution);
the play itself is ``expected_scores.optimal_play.SolvedPlayer``.
"""

from __future__ import annotations

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solve import solve
from yamb.errors import YambError
from yamb.layout import Layout


def optimal_player(layout: Layout) -> SolvedPlayer:
    """The optimal player of ``layout``, or a precise error when no exact solution exists."""
    if layout.players != 1:
        raise YambError(f"the optimal player plays solitaire games, not {layout.players} players")
    rules = layout.rules
    return SolvedPlayer(solve(rules.name, layout.columns, joker=rules.joker, dice=rules.n_dice))
