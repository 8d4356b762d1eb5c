"""The exact values of one announce column: against brute force, and against the free column where they agree."""

from __future__ import annotations

import numpy as np
import pytest

from expected_scores.announce_column import solve_announce_column
from expected_scores.free_column import solve_free_column
from expected_scores.turn import plan_turn
from tests.expected_scores.test_free_column import brute_force
from tests.yamb_app.test_cli import yamb_cli
from yamb.rules import rules


def announce_turn(r, options: np.ndarray, rolls: int) -> float:
    """An announce column's turn: after the first roll the best open row, played alone for the rest of
    the turn (every row planned, no shortcut)."""
    after_first = plan_turn(options, r.dice, rolls).value[0]  # (rows, M) holding m after roll 1
    return float(r.dice.outcome_prob[0] @ after_first.max(axis=0))


def endgame(r, open_rows: list[str]) -> tuple[list[int], int]:
    """Cells of a column with ``open_rows`` open: twos .. sixes 58 (ones of 2 or more earn the bonus),
    max 27, min 8, the collections at their best."""
    cells = [0] * r.n_rows
    for row, score in zip(range(1, 6), (4, 9, 12, 15, 18)):
        cells[row] = score
    cells[6], cells[7] = 27, 8
    for row in range(8, r.n_rows):
        cells[row] = int(r.scores[:, row].max())
    opened = [r.row_index(n) for n in open_rows]
    for row in opened:
        cells[row] = 0
    return cells, ((1 << r.n_rows) - 1) & ~sum(1 << row for row in opened)


CASES = [
    ("yamb", ["ones", "max", "min"]),  # the difference: planned turns
    pytest.param("yamb", ["ones", "max", "min", "yamb"], marks=pytest.mark.slow),
    ("yamb", ["twos", "sixes", "straight", "yamb"]),  # number rows by the binomial count, collections by row plans
    # clamped difference, a last turn of 5 rolls
    pytest.param("jamb6", ["ones", "max", "min", "yamb"], marks=pytest.mark.slow),
    pytest.param("jamb6", ["fives", "max", "trips", "poker"], marks=pytest.mark.slow),
]


@pytest.mark.parametrize("preset, open_rows", CASES, ids=lambda x: x if isinstance(x, str) else "-".join(x))
def test_an_endgame_matches_brute_force(preset: str, open_rows: list[str]) -> None:
    r = rules(preset)
    cells, filled = endgame(r, open_rows)
    solution = solve_announce_column(r, filled)
    state = solution.state(np.array([filled]), np.array([cells]))
    earned = sum(cells[:6]) + sum(cells[8:])  # numbers and collections; the bonus and the difference to come
    exact = solution.value(*state)[0] + earned
    assert exact == pytest.approx(brute_force(r, tuple(cells), filled, announce_turn), rel=1e-12)
    free = solve_free_column(r, filled)
    assert exact < free.value(*state)[0] + earned  # choosing the row after the last roll is worth more


@pytest.mark.parametrize("preset", ["yamb", pytest.param("jamb6", marks=pytest.mark.slow)])
def test_with_one_row_open_it_is_the_free_column(preset: str) -> None:
    """One open row: announcing it after the first roll or filling it after the last is the same turn."""
    r = rules(preset)
    for row in ("ones", "min", "full_house"):
        cells, filled = endgame(r, [row])
        rng = np.random.default_rng(1)
        many = np.array([cells] * 30)
        for other in range(r.n_rows):
            if other != r.row_index(row):
                many[:, other] = rng.choice(np.unique(r.scores[:, other]), 30)
        announce, free = solve_announce_column(r, filled), solve_free_column(r, filled)
        state = free.state(np.full(30, filled), many)
        assert np.allclose(announce.value(*state), free.value(*state))


def test_a_pass_at_no_cost_waits_for_the_best_roll() -> None:
    """Passing at cost 0 a one-row endgame's turn until the first roll is the best for it is worth the
    best first-roll value; at a large cost the turn is never passed."""
    r = rules("yamb")
    cells, filled = endgame(r, ["yamb"])
    state = lambda sol: sol.value(*sol.state(np.array([filled]), np.array([cells])))[0]  # noqa: E731
    after_first = plan_turn(r.scores[None, :, r.row_index("yamb")].astype(float), r.dice, 3).value[0, 0]
    assert state(solve_announce_column(r, filled, pass_cost=0.0)) == pytest.approx(after_first.max())
    assert state(solve_announce_column(r, filled, pass_cost=1e6)) == pytest.approx(state(solve_announce_column(r, filled)))


@pytest.mark.slow
def test_the_solve_command_refuses_to_play_an_announce_column() -> None:
    result = yamb_cli("solve", "--preset", "yamb", "--columns", "announce", "--games", "5")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--games" in result.stderr and "Traceback" not in result.stderr
