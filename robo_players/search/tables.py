"""What the search reads besides the engine's state and constants, built once per table."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from expected_scores.turn import plan_turn
from robo_players.search.cell_values import LEVELS, NORMAL_BONUS, cell_model
from robo_players.search.row_plans import row_plans
from yamb.rules import N_NUMBER_ROWS, Rules


class SearchTables(NamedTuple):
    """The cell value model (``robo_players.search.cell_values.CellModel``), the row plans, the dice
    tables and the score tables row by row (``M`` hands, ``R`` rows, ``L`` rolls left)."""

    expected: np.ndarray  # (C, R) row expectations
    variance: np.ndarray  # (C, R)
    bonus_levels: np.ndarray  # (C, 6, LEVELS) chances of each number row's levels, or NORMAL_BONUS
    levels: np.ndarray  # (M, R) level of each hand's score in each row
    level_score: np.ndarray  # (R, LEVELS)
    params: np.ndarray  # (9,) the model's parameters (``CellModel.params``)
    sign: np.ndarray  # (R,) +1, or -1 for rows aimed low
    row_value: np.ndarray  # (L, M, R) signed value of a row played alone with L rolls left
    reach: np.ndarray  # (L, M, 6, 5) probability that a number row ends at level >= k + 1
    add_die: np.ndarray  # the dice tables the plans are made with
    remove_die: np.ndarray
    first_prob: np.ndarray  # (M,) chance of each hand of a first roll
    scores_t: np.ndarray  # (R, M) float64 scores, row by row
    levels_t: np.ndarray  # (R, M) levels, row by row
    row_value_t: np.ndarray  # (L, R, M) ``row_value``, hands last
    reach_t: np.ndarray  # (L, 6, 5, M) ``reach``, hands last


def reach_tables(rules: Rules, levels: np.ndarray) -> np.ndarray:
    """(L, M, 6, 5): P(number row r ends at level >= k + 1 | hand m, L rolls left), playing for it."""
    rolls = max(rules.rolls, rules.spec.last_turn_rolls)
    top = LEVELS - 1
    goals = np.array([[levels[:, r] >= k for k in range(1, top + 1)] for r in range(N_NUMBER_ROWS)])
    plan = plan_turn(goals.reshape(-1, levels.shape[0]).astype(np.float64), rules.dice, rolls)
    by_left = plan.value[::-1]  # (L, 6 * 5, M)
    return np.ascontiguousarray(by_left.reshape(rolls, N_NUMBER_ROWS, top, -1).transpose(0, 3, 1, 2))


@cache
def search_tables(rules: Rules, columns: tuple[str, ...]) -> SearchTables:
    """The tables of ``rules`` with these column kinds, computed once per process."""
    model = cell_model(rules, columns)
    plans = row_plans(rules)
    dice = rules.dice
    reach = reach_tables(rules, model.levels)
    return SearchTables(
        expected=model.expected, variance=model.variance, bonus_levels=NORMAL_BONUS, levels=model.levels,
        level_score=model.level_score, params=model.params,
        sign=plans.sign, row_value=plans.value, reach=reach,
        add_die=dice.add_die, remove_die=dice.remove_die, first_prob=dice.outcome_prob[0],
        scores_t=np.ascontiguousarray(rules.scores.T, dtype=np.float64),
        levels_t=np.ascontiguousarray(model.levels.T),
        row_value_t=np.ascontiguousarray(plans.value.transpose(0, 2, 1)),
        reach_t=np.ascontiguousarray(reach.transpose(0, 2, 3, 1)),
    )
