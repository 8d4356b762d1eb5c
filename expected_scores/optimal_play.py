"""Optimal play of a solved one-column table on the batched engine, and its score distribution.

``SolvedPlayer`` follows the ``robo_players`` Player protocol: after each roll
it plans the rest of the turn from the solution's values (``turn_options`` fed
to ``plan_turn`` with the rolls left) and keeps the best dice, or fills the
row of highest ``fill_values``. Its mean score converges to the solution's
``expected_score``, which checks the solver's model of the rules against the
engine's.
"""

from __future__ import annotations

import numpy as np

from expected_scores.solve import Solution
from expected_scores.turn import STOP, plan_turn
from yamb.engine import GameBatch


class SolvedPlayer:
    """Plays optimally from a solution of ``expected_scores.solve``."""

    name = "optimal"

    def __init__(self, solution: Solution) -> None:
        self.solution = solution

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        sol = self.solution
        state = sol.state_of(batch, games)
        dice = batch.dice[games].astype(np.int64)
        actions = np.argmax(sol.fill_values(*state, dice), axis=1).astype(np.int64)  # column 0
        left = (batch.rolls_allowed[games] - batch.roll[games]).astype(np.int64)
        for rerolls in np.unique(left[left > 0]):
            at = np.flatnonzero(left == rerolls)
            sub = tuple(part[at] for part in state)
            plan = plan_turn(sol.turn_options(*sub), batch.rules.dice, rolls=int(rerolls) + 1)
            keep = plan.best_keep(np.ones(len(at), dtype=np.int64), dice[at])
            rolling = keep != STOP
            actions[at[rolling]] = batch.layout.n_cells + keep[rolling]
        return actions
