"""``expectimax-column``: legal on every preset, and exact where the search's values can be."""

from __future__ import annotations

import numpy as np
import pytest

from expected_scores.free_column import FreeColumnSolution, free_column_model, solve_free_column
from robo_players.base import play
from robo_players.column_exact import ColumnExactPlayer, _adjust
from robo_players.expectimax import ExpectimaxPlayer
from tests.test_players import TABLES, table_id
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules


def flat_solution(r) -> FreeColumnSolution | None:
    """A stand-in for the solved values (every state worth 0): legal play does not depend on them."""
    if r.has_jokers:
        return None
    return FreeColumnSolution(r, np.zeros(int(free_column_model(r).offset[-1])), 0.0, 0)


@pytest.mark.parametrize("case", TABLES, ids=table_id)
def test_it_makes_only_legal_moves(case: tuple) -> None:
    preset, dice, joker, columns, players = case
    lay = layout(rules(preset, dice=dice, joker=joker), columns, players)
    player = ColumnExactPlayer(lay, flat_solution(lay.rules))
    batch = GameBatch(lay, 24, seed=11)
    play(batch, [player] * players, check=True)  # raises IllegalMoveError on any illegal move
    assert (batch.filled == lay.full_mask).all()


def test_with_played_row_values_it_makes_only_legal_moves() -> None:
    lay = layout(rules("yamb"), ("down", "counter_announce", "free", "announce"), 2)
    player = ColumnExactPlayer(lay, flat_solution(lay.rules), played=0.6)
    batch = GameBatch(lay, 24, seed=5)
    play(batch, [player] * 2, check=True)
    assert (batch.filled == lay.full_mask).all()


def test_without_a_free_column_it_is_expectimax() -> None:
    lay = layout(rules("yamb"), ("down", "up", "announce"))
    a, b = GameBatch(lay, 40, seed=4), GameBatch(lay, 40, seed=4)
    assert np.array_equal(play(a, [ColumnExactPlayer(lay)]), play(b, [ExpectimaxPlayer(lay)]))


def test_a_collection_cell_is_valued_by_the_exact_change_of_the_column() -> None:
    """With the last two rows open (carriage, yamb) the free column's endgame is solved: the player's
    corrected value of each cell, for every score, is points earned + value after - value before."""
    r = rules("yamb")
    lay = layout(r, ("free",))
    filled = ((1 << r.n_rows) - 1) & ~(1 << r.row_index("carriage") | 1 << r.row_index("yamb"))
    solution = solve_free_column(r, filled)
    player = ColumnExactPlayer(lay, solution)
    batch = GameBatch(lay, 1, seed=0)
    batch.filled[0, 0, 0] = filled
    batch.cells[0, 0, 0] = [3, 6, 9, 12, 15, 18, 27, 8, 20, 45, 50, 0, 0]  # numbers 63: the bonus is earned
    adjust = np.zeros((1, *player.shape))
    _adjust(np.zeros(1, dtype=np.int64), batch.filled, batch.cells, batch.player, player.free, *player.tables, adjust)
    mask, upper, aux = solution.state(batch.filled[:, 0, 0], batch.cells[:, 0, 0])
    before = solution.value(mask, upper, aux)[0]
    for row, other in (("carriage", "yamb"), ("yamb", "carriage")):
        k = r.row_index(row)
        after = solution.value(mask | 1 << k, upper, aux)[0]
        d, w = adjust[0, :, 0, k]
        # expectimax values a collection cell at s - E[row]; corrected: (1 + w)(s - E) + d = s + after - before
        assert w == pytest.approx(0.0, abs=1e-9)
        e = ExpectimaxPlayer(lay).tables[0][0, k]
        for s in (0, 44, 80):
            assert (1 + w) * (s - e) + d == pytest.approx(s + after - before)
