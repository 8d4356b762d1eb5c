"""``expectimax-column``: legal on every preset, and exact where the search's values can be."""

from __future__ import annotations

import numpy as np
import pytest

from evolution.state import expected_cell_values
from expected_scores.free_column import FreeColumnSolution, free_column_model, solve_free_column
from expected_scores.ordered_column import row_order, solve_column
from expected_scores.turn import plan_turn, row_plan
from robo_players.base import play
from robo_players.neural.build import population_player
from robo_players.neural.networks import NetSpec
from robo_players.search.cell_values import column_values
from robo_players.search.column_exact import (
    EXACT_KINDS,
    PLAY_KINDS,
    ColumnExactPlayer,
    _adjust,
    _adjust_ordered,
    exactly_solved,
)
from robo_players.search.expectimax import ExpectimaxPlayer
from tests.robo_players.test_players import TABLES, table_id
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import layout
from yamb.rules import rules


def flat_solution(r) -> FreeColumnSolution | None:
    """A stand-in for the solved values (every state worth 0): legal play does not depend on them."""
    if r.has_jokers:
        return None
    return FreeColumnSolution(r, np.zeros(int(free_column_model(r).offset[-1])), 0.0, 0)


def stand_ins(r) -> dict:
    """Flat any-order values and the real (fast) ordered solutions, by kind."""
    flat = flat_solution(r)
    out = {"free": flat, "announce": flat}
    if not r.has_jokers:
        out.update(down=solve_column(r, "down"), up=solve_column(r, "up"))
    return out


@pytest.mark.parametrize("kinds", [("free",), EXACT_KINDS], ids=["free", "every-kind"])
@pytest.mark.parametrize("case", TABLES, ids=table_id)
def test_it_makes_only_legal_moves(case: tuple, kinds: tuple) -> None:
    preset, dice, joker, columns, players = case
    lay = layout(rules(preset, dice=dice, joker=joker), columns, players)
    player = ColumnExactPlayer(lay, stand_ins(lay.rules), kinds=kinds)
    batch = GameBatch(lay, 24, seed=11)
    play(batch, [player] * players, check=True)  # raises IllegalMoveError on any illegal move
    assert (batch.filled == lay.full_mask).all()


@pytest.mark.slow
def test_with_played_row_values_it_makes_only_legal_moves() -> None:
    lay = layout(rules("yamb"), ("down", "counter_announce", "free", "announce", "up"), 2)
    player = ColumnExactPlayer(lay, stand_ins(lay.rules), played=0.6, kinds=EXACT_KINDS)
    batch = GameBatch(lay, 24, seed=5)
    play(batch, [player] * 2, check=True)
    assert (batch.filled == lay.full_mask).all()


def test_the_kinds_it_cannot_solve_fall_back_to_the_search() -> None:
    """Yatzy has no difference row (no announce values), Yahtzee has jokers (no values at all), and
    hand, updown, middle and the late and counter announce columns are never solved."""
    assert not exactly_solved(rules("yatzy"), "announce") and exactly_solved(rules("yatzy"), "down")
    assert not any(exactly_solved(rules("yahtzee"), kind) for kind in EXACT_KINDS)
    lay = layout(rules("yamb"), ("hand", "late_announce", "updown", "middle"))
    a, b = GameBatch(lay, 40, seed=4), GameBatch(lay, 40, seed=4)
    player = ColumnExactPlayer(lay, kinds=EXACT_KINDS)
    assert not player.exact.any_order and not player.exact.ordered
    assert np.array_equal(play(a, [player]), play(b, [ExpectimaxPlayer(lay)]))


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
    player = ColumnExactPlayer(lay, {"free": solution})
    batch = GameBatch(lay, 1, seed=0)
    batch.filled[0, 0, 0] = filled
    batch.cells[0, 0, 0] = [3, 6, 9, 12, 15, 18, 27, 8, 20, 45, 50, 0, 0]  # numbers 63: the bonus is earned
    adjust = np.zeros((1, *player.exact.shape))
    columns, tables = player.exact.any_order[0]
    _adjust(np.zeros(1, dtype=np.int64), batch.filled, batch.cells, batch.player, columns, *tables, adjust)
    mask, upper, aux = solution.state(batch.filled[:, 0, 0], batch.cells[:, 0, 0])
    before = solution.value(mask, upper, aux)[0]
    for row, other in (("carriage", "yamb"), ("yamb", "carriage")):
        k = r.row_index(row)
        after = solution.value(mask | 1 << k, upper, aux)[0]
        d, w = adjust[0, :, 0, k]
        # expectimax values a collection cell at s - E[row]; corrected: (1 + w)(s - E) + d = s + after - before
        assert w == pytest.approx(0.0, abs=1e-9)
        e = ExpectimaxPlayer(lay).tables.expected[0, k]
        for s in (0, 44, 80):
            assert (1 + w) * (s - e) + d == pytest.approx(s + after - before)


@pytest.mark.parametrize("kind", ["down", "up"])
def test_an_ordered_columns_last_cell_is_valued_by_its_exact_change(kind: str) -> None:
    """With one row open, a down (up) column's value is that row played alone for its score on the
    last turn (the row plan); the corrected value of the cell is its score minus that."""
    r = rules("yamb")
    lay = layout(r, ("free", kind))
    row = r.n_rows - 1 if kind == "down" else 0
    player = ColumnExactPlayer(lay, {"free": flat_solution(r)}, kinds=("free", kind))
    batch = GameBatch(lay, 1, seed=0)
    batch.filled[0, 0, 1] = ((1 << r.n_rows) - 1) & ~(1 << row)
    batch.cells[0, 0, 1] = [3, 6, 9, 12, 15, 18, 27, 8, 20, 45, 50, 60, 70]
    batch.cells[0, 0, 1, row] = 0
    adjust = np.zeros((1, *player.exact.shape))
    column, sol, tables = player.exact.ordered[0]
    state = sol.index(*sol.state_of(batch, np.zeros(1, dtype=np.int64), column))
    _adjust_ordered(np.zeros(1, dtype=np.int64), batch.filled, batch.cells, batch.player, column, state, *tables,
                    adjust)
    alone = row_plan(r, r.spec.last_turn_rolls).start[row]
    d, w = adjust[0, :, 1, row]
    search = ExpectimaxPlayer(lay)
    lin = np.zeros((2, r.n_rows, 2))
    num = np.zeros((2, 6, 6))
    t = search.tables
    column_values(batch.filled, batch.cells, 0, 0, 1, t.expected, t.variance, t.bonus_levels, t.level_score, t.params,
                  lin, num)
    if row == r.n_rows - 1:  # yamb: a collection row, the fit is exact
        for s in (0, 55, 80):
            assert (1 + w) * (lin[1, row, 0] * s + lin[1, row, 1]) + d == pytest.approx(s - alone)
    else:  # ones, the bonus already earned: each one earns itself and the difference, ones x (27 - 8)
        exact = sol.fill_changes()[state[0]]
        assert exact[:6] == pytest.approx(20 * (np.arange(6) - alone))


@pytest.mark.parametrize("kind", ["down", "up"])
def test_the_ordered_changes_satisfy_the_turn_equation(kind: str) -> None:
    """A state's value is one turn for its row, each score worth points plus the next value: the turn
    planned over the exact changes (value after minus value before) is worth 0 from every state."""
    r = rules("yamb")
    sol = solve_column(r, kind)
    changes = sol.fill_changes()
    position = sol.keys // 64**4
    rows = np.array(row_order(r, kind))[position]
    pick = np.random.default_rng(0).choice(len(sol.keys), 60, replace=False)
    for i in pick:
        row = rows[i]
        index = np.searchsorted(np.unique(r.scores[:, row]), r.scores[:, row])
        rolls = r.spec.last_turn_rolls if position[i] == r.n_rows - 1 else r.rolls
        assert plan_turn(changes[i, index][None], r.dice, rolls).start[0] == pytest.approx(0.0, abs=1e-9)


def test_a_guided_network_of_zero_outputs_over_exact_columns_is_the_column_player() -> None:
    """Generation 0 of a run with ``exact`` set (a network whose outputs are 0) plays every game as
    ``expectimax-columns-played`` does; a network with other outputs plays otherwise."""
    r = rules("yamb")
    lay = layout(r, r.default_columns)
    spec = NetSpec.for_layout("guided", lay, (4,), played=0.6, exact=PLAY_KINDS)
    assert NetSpec.from_dict(spec.to_dict()) == spec
    genome = spec.build().initial_genome(np.random.default_rng(0))[None]
    values = expected_cell_values(spec)[None]
    a, b, c = (GameBatch(lay, 60, seed=8) for _ in range(3))
    column = play(b, [ColumnExactPlayer(lay, played=0.6, kinds=PLAY_KINDS)])
    assert np.array_equal(play(a, [population_player(spec, genome, values)]), column)
    pair = GameBatch(lay, 60, seed=8)  # a population of two such networks, 30 games each
    assert np.array_equal(play(pair, [population_player(spec, np.repeat(genome, 2, 0), np.repeat(values, 2, 0))]),
                          column)
    other = genome + np.random.default_rng(1).standard_normal(genome.shape).astype(np.float32) * 0.3
    assert not np.array_equal(play(c, [population_player(spec, other, values)]), column)


def test_a_spec_without_exact_columns_is_written_as_before() -> None:
    lay = layout(rules("yamb"), rules("yamb").default_columns)
    assert "exact" not in NetSpec.for_layout("guided", lay).to_dict()
    with pytest.raises(YambError, match="exact lists column kinds"):
        NetSpec.for_layout("guided", lay, exact=("hand",))
