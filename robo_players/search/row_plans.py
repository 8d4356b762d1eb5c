"""Each row played alone, for every number of rolls left: the turn optimizer's row plans.

``RowPlans.keep[left, m, r]`` and ``RowPlans.value[left, m, r]`` are the best
keep (or ``turn.STOP``) and the expected value of holding ``m`` with ``left``
rolls left when the turn must end in row ``r``. A row's value is its score,
or minus its score for a row aimed low (``min`` where the preset has a
difference row). ``fresh[r]`` is the value of a whole turn aimed at row ``r``
and ``one_roll[r]`` the expected value of a single roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from expected_scores.turn import TurnPlan, row_plan
from yamb.rules import LOWEST_FIVE_ROWS, Rules


@dataclass(frozen=True, eq=False)
class RowPlans:
    sign: np.ndarray  # (R,) +1, or -1 for rows aimed low
    keep: np.ndarray  # (L, M, R) int16
    value: np.ndarray  # (L, M, R) float64
    fresh: np.ndarray  # (R,) float64
    one_roll: np.ndarray  # (R,) float64


def low_rows(rules: Rules) -> np.ndarray:
    """(R,) True for rows a player wants low: ``min`` when the preset has a difference row."""
    aimed_low = rules.spec.difference is not None
    return np.array([aimed_low and row in LOWEST_FIVE_ROWS for row in rules.rows])


def _signed_plan(rules: Rules, rolls: int) -> TurnPlan:
    """Row plans of ``rolls`` rolls, the rows aimed low taken from the lowest-score plan."""
    high, low = row_plan(rules, rolls), row_plan(rules, rolls, lowest=True)
    is_low = low_rows(rules)
    return TurnPlan(
        value=np.where(is_low[None, :, None], low.value, high.value),
        keep=np.where(is_low[None, :, None], low.keep, high.keep),
        start=np.where(is_low, low.start, high.start),
    )


@cache
def row_plans(rules: Rules) -> RowPlans:
    """The row plans of ``rules`` for up to the longest turn's rolls, computed once."""
    longest = _signed_plan(rules, max(rules.rolls, rules.spec.last_turn_rolls))
    by_left = slice(None, None, -1)  # rolls left = T - roll: reverse the roll axis
    return RowPlans(
        sign=np.where(low_rows(rules), -1, 1).astype(np.int64),
        keep=np.ascontiguousarray(longest.keep[by_left].transpose(0, 2, 1)),
        value=np.ascontiguousarray(longest.value[by_left].transpose(0, 2, 1)),
        fresh=_signed_plan(rules, rules.rolls).start,
        one_roll=_signed_plan(rules, 1).start,
    )
