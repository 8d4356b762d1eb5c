"""The exact values of one free column: against brute force, the Yatzy solver and the ordered-column solver."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import pytest

from expected_scores.free_column import free_column_model, solve_free_column
from expected_scores.ordered_column import _column, row_order, solve_column
from expected_scores.solitaire import solve_solitaire
from expected_scores.turn import plan_turn
from yamb.rules import N_NUMBER_ROWS, rules


def free_turn(r, options: np.ndarray, rolls: int) -> float:
    """A free column's turn: the best of the open rows' ``options`` (rows, M) for the final dice."""
    return float(plan_turn(options.max(axis=0)[None], r.dice, rolls).start[0])


def brute_force(r, cells: tuple[int, ...], filled: int, turn: Callable = free_turn) -> float:
    """Expected final total of a column from ``cells`` (open cells 0), by recursion over every fill and
    score, the total read from ``Rules.column_totals`` at the end: no state, no credit schedule.
    ``turn(r, options, rolls)``: the value of a turn whose open rows are worth ``options`` (rows, M)."""
    full = (1 << r.n_rows) - 1

    @cache
    def value(cells: tuple[int, ...], filled: int) -> float:
        if filled == full:
            return float(r.column_totals(np.array([cells]))["total"][0])
        open_rows = [row for row in range(r.n_rows) if not filled >> row & 1]
        options = []
        for row in open_rows:
            by_score = {}
            for s in np.unique(r.scores[:, row]):
                after = list(cells)
                after[row] = int(s)
                by_score[int(s)] = value(tuple(after), filled | 1 << row)
            options.append([by_score[int(s)] for s in r.scores[:, row]])
        rolls = r.spec.last_turn_rolls if len(open_rows) == 1 else r.rolls
        return turn(r, np.array(options), rolls)

    return value(cells, filled)


@pytest.mark.parametrize("preset", ["yamb", "jamb6"])
def test_the_difference_rows_in_any_order_match_brute_force(preset: str) -> None:
    r = rules(preset)
    spread = [r.row_index(n) for n in ("ones", "max", "min")]
    cells = [0] * r.n_rows
    for row, score in zip(range(1, r.n_rows), (4, 9, 12, 15, 18)):  # twos .. sixes: 58, ones of 2 or more earn the bonus
        cells[row] = score
    for row in range(8, r.n_rows):
        cells[row] = int(r.scores[:, row].max())
    filled = ((1 << r.n_rows) - 1) & ~sum(1 << s for s in spread)
    solution = solve_free_column(r, filled)
    assert free_column_model(r).separable == (preset == "yamb")  # jamb6 clamps the difference at 0
    mask, upper, aux = solution.state(np.array([filled]), np.array([cells]))
    earned = sum(cells)  # numbers and collections; nothing of the bonus or the difference yet
    assert solution.value(mask, upper, aux)[0] + earned == pytest.approx(brute_force(r, tuple(cells), filled))


@pytest.mark.parametrize("preset", ["yamb", "jamb6"])
def test_the_last_open_row_matches_the_up_column_solver(preset: str) -> None:
    """An up column fills ``ones`` last; a free column with only ``ones`` open is the same game."""
    r = rules(preset)
    up = solve_column(r, "up")
    col = _column(r, "up")
    filled = ((1 << r.n_rows) - 1) & ~1
    solution = solve_free_column(r, filled)
    rng = np.random.default_rng(3)
    cells = np.zeros((40, r.n_rows), dtype=np.int64)
    for row in range(1, r.n_rows):
        cells[:, row] = rng.choice(np.unique(r.scores[:, row]), 40)
    free_values = solution.value(*solution.state(np.full(40, filled), cells))
    comps = np.zeros((40, 4), dtype=np.int64)
    comps[:, 0] = np.minimum(cells[:, :N_NUMBER_ROWS].sum(axis=1), r.spec.bonus_threshold)
    comps[:, 2] = cells[:, r.row_index("max")]
    comps[:, 3] = cells[:, r.row_index("min")]
    position = r.n_rows - 1
    col.forget(set(row_order(r, "up")[:position]), comps)
    assert np.allclose(free_values, up.value(np.full(40, position), comps))


def test_a_column_without_a_difference_is_the_yatzy_solver() -> None:
    r = rules("yatzy")
    filled = ((1 << r.n_rows) - 1) & ~(1 << 0 | 1 << 3 | 1 << 8 | 1 << 10 | 1 << 14)
    free, yatzy = solve_free_column(r, filled), solve_solitaire(r, filled)
    solved = ~np.isnan(yatzy.values[..., 0])
    assert np.allclose(free.values.reshape(yatzy.values.shape[:2])[solved], yatzy.values[..., 0][solved])
