"""``expectimax-column(s)``: expectimax whose cells of some column kinds are valued by exact single-column solutions.

Filling a cell of a ``free`` column changes the exact value of that column
played alone (``expected_scores.free_column``): the points the fill earns
(score, numbers bonus, the difference's parts) plus the value of the column's
next state, minus the value of its current state. That change is the cell's
leaf value in expectimax's turn search; the cells of the other columns keep
expectimax's values (``robo_players.search.cell_values``). ``down`` and ``up``
columns are valued the same way from ``expected_scores.ordered_column``
(``ColumnSolution.fill_changes``), ``announce`` columns from
``expected_scores.announce_column`` (which measured a loss: the registered
``expectimax-columns`` players use ``PLAY_KINDS``, without it).

The search (``ExpectimaxPlayer.search``) takes each open cell's value as
``(1 + w) * expectimax's value + d``; ``ExactColumns`` sets ``(d, w)`` per cell
by a weighted least-squares fit of the exact change over the scores the row
can take (weights: the row's score distribution when a turn aims at it, plus
a floor). For collection rows both are linear in the score with slope 1, so
the fit is exact; for number rows (six levels) and ``max``/``min`` it is the
best line through the exact values. Tables with jokers (Yahtzee) have no
exact column values here, nor do the other column kinds: their cells keep
the search's values. A search-guided network can search over these values
(``NetSpec.exact``, ``robo_players.neural.guided``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from expected_scores.column_levels import fill_table, row_tables, state_index
from expected_scores.free_column import free_column_model
from expected_scores.ordered_column import ORDERED_KINDS, row_order
from expected_scores.solve import Solution, solve
from expected_scores.tables import load_distribution
from robo_players.search.cell_values import LEVELS, column_values
from robo_players.search.correction import Correction
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.row_means import DEFAULT_PLAYED, search_values
from robo_players.search.tables import SearchTables
from yamb.engine import GameBatch, threads_for
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

WEIGHT_FLOOR = 0.02  # every score the row can take counts at least this much in the fit


class CellTables(NamedTuple):
    """The search's cell-value model (``robo_players.search.cell_values.column_values``' tables)."""

    expected: np.ndarray  # (C, R)
    variance: np.ndarray  # (C, R)
    bonus_levels: np.ndarray  # (C, 6, LEVELS), or ``NORMAL_BONUS``
    level_score: np.ndarray  # (R, 6)
    params: np.ndarray  # (9,) int64


def score_weights(rules: Rules) -> np.ndarray:
    """(R, K) weight of each distinct score of each row: its probability when a turn aims at the row."""
    rows = row_tables(rules)
    distinct, n_distinct = rows.distinct, rows.n_distinct
    out = np.zeros(distinct.shape)
    for r, row in enumerate(rules.rows):
        dist = load_distribution(row, rules.name, rules.n_dice, "turn")
        scores = distinct[r, : n_distinct[r]]
        out[r, : n_distinct[r]] = dist.reindex(scores, fill_value=0.0).to_numpy() + WEIGHT_FLOOR
    return out


@njit(cache=True)
def _column_values(filled, cells, g, p, c, cell_tables, lin, num):
    """``column_values`` of column ``c`` of player ``p`` of game ``g``, from the search's ``CellTables``."""
    column_values(filled, cells, g, p, c, cell_tables.expected, cell_tables.variance, cell_tables.bonus_levels,
                  cell_tables.level_score, cell_tables.params, lin, num)


@njit(cache=True)
def _fit(i, c, r, y, lin, num, distinct, n_distinct, weights, out):
    """``out[i, :, c, r]``: the ``(d, w)`` whose ``(1 + w) * x + d`` fits the exact changes ``y[k]``
    of open cell ``(c, r)`` best (weighted least squares over the row's distinct scores ``k``)."""
    sw = sx = sy = sxx = sxy = 0.0
    for k in range(n_distinct[r]):
        s = distinct[r, k]
        x = num[c, r, k] if r < N_NUMBER_ROWS else lin[c, r, 0] * s + lin[c, r, 1]
        w = weights[r, k]
        sw += w
        sx += w * x
        sy += w * y[k]
        sxx += w * x * x
        sxy += w * x * y[k]
    mx, my = sx / sw, sy / sw
    var = sxx / sw - mx * mx
    slope = (sxy / sw - mx * my) / var if var > 1e-9 else 1.0
    slope = max(slope, 0.0)
    out[i, 0, c, r] = my - slope * mx
    out[i, 1, c, r] = slope - 1.0


@njit(cache=True, parallel=True)
def _adjust(games, filled, cells, player, free, cell_tables, values, model, rows, spread, pair_class,
            weights, out):
    """``out[i, :, c, r]``: the correction ``(d, w)`` that brings expectimax's value of open cell
    ``(c, r)`` of ``games[i]``'s mover to the exact change of its column's value, for the columns
    ``free`` whose values (a free or an announce column's) are ``values``."""
    distinct, n_distinct, n_rows, threshold = rows.distinct, rows.n_distinct, rows.n_rows, rows.threshold
    n_cols = filled.shape[2]
    full = (1 << n_rows) - 1
    for i in prange(len(games)):
        g = games[i]
        p = player[g]
        lin = np.zeros((n_cols, n_rows, 2))
        num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
        table = np.empty((n_rows, distinct.shape[1]))
        for c in free:
            mask = np.int64(filled[g, p, c])
            if mask == full:
                continue
            _column_values(filled, cells, g, p, c, cell_tables, lin, num)
            upper = 0
            for r in range(N_NUMBER_ROWS):
                upper += np.int64(cells[g, p, c, r])
            upper = min(upper, threshold)
            q = model.pattern[mask]
            aux = 0
            if len(spread):
                if q == 1 or q == 2 or q == 4:
                    j = 0 if q == 1 else (1 if q == 2 else 2)
                    aux = np.int64(cells[g, p, c, spread[j]])
                elif q == 3 or q == 5 or q == 6:
                    j = 0 if q != 6 else 1
                    k = 2 if q != 3 else 1
                    aux = pair_class[q, np.int64(cells[g, p, c, spread[j]]), np.int64(cells[g, p, c, spread[k]])]
            now = values[state_index(model, threshold + 1, mask, upper, aux)]
            fill_table(mask, upper, aux, values, model, rows, table)
            for r in range(n_rows):
                if not (mask >> r) & 1:
                    _fit(i, c, r, table[r] - now, lin, num, distinct, n_distinct, weights, out)


@njit(cache=True, parallel=True)
def _adjust_ordered(games, filled, cells, player, column, state, rows_at, changes, cell_tables, distinct,
                    n_distinct, weights, out):
    """The same for one ordered column ``column``: ``state[i]`` is the index of its state in the
    solution (-1: none), whose open row is ``rows_at[state[i]]`` and whose exact changes, by the
    row's distinct scores, are ``changes[state[i]]``."""
    n_cols, n_rows = filled.shape[2], cell_tables.expected.shape[1]
    for i in prange(len(games)):
        if state[i] < 0:
            continue
        g = games[i]
        lin = np.zeros((n_cols, n_rows, 2))
        num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
        _column_values(filled, cells, g, player[g], column, cell_tables, lin, num)
        _fit(i, column, rows_at[state[i]], changes[state[i]], lin, num, distinct, n_distinct, weights, out)


ANY_ORDER_KINDS = ("free", "announce")  # solved as ``FreeColumnSolution``s
EXACT_KINDS = (*ANY_ORDER_KINDS, *ORDERED_KINDS)
PLAY_KINDS = ("free", *ORDERED_KINDS)  # those of ``expectimax-columns``: exact announce values measured a loss


def exactly_solved(rules: Rules, kind: str) -> bool:
    """Whether a ``kind`` column of ``rules`` has exact single-column values the player can read."""
    if rules.has_jokers or kind not in EXACT_KINDS:
        return False
    return kind != "announce" or rules.spec.difference is not None


class ExactColumns:
    """The corrections that bring a search's values of the cells of some column kinds to the exact
    change of their column's value (``(d, w)`` per cell, 0 elsewhere)."""

    def __init__(self, layout: Layout, search_tables: SearchTables, kinds: tuple[str, ...] = ("free",),
                 solutions: Mapping[str, Solution] | None = None) -> None:
        """``search_tables``: the search's (``ExpectimaxPlayer.tables``), whose values are corrected;
        ``kinds``: the column kinds valued exactly (those of ``EXACT_KINDS`` the rules allow; the
        others keep the search's values); ``solutions``: their single-column values by kind
        (default: ``expected_scores.solve``'s, solved at first use, then cached on disk)."""
        solutions = solutions or {}
        rules = layout.rules
        self.shape = (2, len(layout.columns), rules.n_rows)
        t = search_tables  # its ``CellModel`` part
        cell_tables = CellTables(t.expected, t.variance, t.bonus_levels, t.level_score, t.params)
        rows, weights = row_tables(rules), score_weights(rules)
        self.any_order: list[tuple] = []  # (columns, the arguments of ``_adjust`` after them)
        self.ordered: list[tuple] = []  # (column, solution, the arguments of ``_adjust_ordered``)
        for kind in kinds:
            columns = np.array([c for c, k in enumerate(layout.columns) if k == kind], dtype=np.int64)
            if not len(columns) or not exactly_solved(rules, kind):
                continue
            sol = solutions.get(kind) or solve(rules.name, [kind], dice=rules.n_dice)
            if kind in ANY_ORDER_KINDS:
                m = free_column_model(rules)
                values = np.ascontiguousarray(sol.values, dtype=np.float64).ravel()  # Yatzy's: (2**R, 64, 1)
                self.any_order.append((columns, (cell_tables, values, m.arrays, rows,
                                                 m.spread.astype(np.int64), m.pair_class, weights)))
                continue
            rows_at = np.array(row_order(rules, kind))[np.minimum(sol.keys // 64**4, rules.n_rows - 1)]
            for c in columns:
                self.ordered.append((int(c), sol, (rows_at, sol.fill_changes(), cell_tables, rows.distinct,
                                                   rows.n_distinct, weights)))

    def corrections(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """(n, 2, C, R) float64: ``(d, w)`` of every cell of ``games`` (int64) for their movers."""
        adjust = np.zeros((len(games), *self.shape))
        for columns, tables in self.any_order:
            _adjust(games, batch.filled, batch.cells, batch.player, columns, *tables, adjust)
        for column, sol, tables in self.ordered:
            state = sol.index(*sol.state_of(batch, games, column))
            _adjust_ordered(games, batch.filled, batch.cells, batch.player, column, state, *tables, adjust)
        return adjust

    def corrections_after(self, batch: GameBatch, games: np.ndarray, column: np.ndarray,
                          before: np.ndarray) -> np.ndarray:
        """``corrections`` of tables that differ from those corrected by ``before`` (n, 2, C, R) only
        in column ``column[i]`` (a next table after a fill): that column's computed again, the others
        copied (a column's corrections read only its own cells)."""
        adjust = before.copy()
        for columns, tables in self.any_order:
            for c in columns:
                at = np.flatnonzero(column == c)
                if len(at):
                    part = np.zeros((len(at), *self.shape))
                    _adjust(games[at], batch.filled, batch.cells, batch.player, np.array([c]), *tables, part)
                    adjust[at, :, c] = part[:, :, c]
        for c, sol, tables in self.ordered:
            at = np.flatnonzero(column == c)
            if len(at):
                part = np.zeros((len(at), *self.shape))
                state = sol.index(*sol.state_of(batch, games[at], c))
                _adjust_ordered(games[at], batch.filled, batch.cells, batch.player, c, state, *tables, part)
                adjust[at, :, c] = part[:, :, c]
        return adjust


class ColumnExactPlayer(ExpectimaxPlayer):
    """Expectimax with the cells of some column kinds valued by the exact change of the column's value."""

    name = "expectimax-column"

    def __init__(self, layout: Layout, solutions: Mapping[str, Solution] | None = None, played: float = 0.0,
                 kinds: tuple[str, ...] = ("free",)) -> None:
        """``played``: the other columns' cells valued as ``expectimax-played`` at this blend (0:
        expectimax); ``kinds`` and ``solutions`` as ``ExactColumns`` takes them."""
        super().__init__(layout, *search_values(layout, played, "normal"))
        self.exact = ExactColumns(layout, self.tables, kinds, solutions)

    def corrections(self, batch: GameBatch, games: np.ndarray) -> Correction:
        """The exact columns' corrections of the cells of ``games``, as ``search`` takes them."""
        adjust = self.exact.corrections(batch, games)
        return Correction(adjust.reshape(len(games), -1), np.arange(len(games), dtype=np.int64), 1.0)

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        with threads_for(len(games)):
            return self.search(batch, games, self.corrections(batch, games))


def column_played(layout: Layout) -> ColumnExactPlayer:
    """``expectimax-column-played``: the exact free columns, the other cells as ``expectimax-played``."""
    player = ColumnExactPlayer(layout, played=DEFAULT_PLAYED)
    player.name = "expectimax-column-played"
    return player


def columns_exact(layout: Layout) -> ColumnExactPlayer:
    """``expectimax-columns``: the column kinds of ``PLAY_KINDS`` valued exactly, the others as expectimax."""
    player = ColumnExactPlayer(layout, kinds=PLAY_KINDS)
    player.name = "expectimax-columns"
    return player


def columns_played(layout: Layout) -> ColumnExactPlayer:
    """``expectimax-columns-played``: the column kinds of ``PLAY_KINDS`` valued exactly, the others
    as ``expectimax-played``."""
    player = ColumnExactPlayer(layout, played=DEFAULT_PLAYED, kinds=PLAY_KINDS)
    player.name = "expectimax-columns-played"
    return player
