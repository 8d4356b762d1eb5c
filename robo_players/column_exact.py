"""``expectimax-column``: expectimax whose ``free`` cells are valued by the exact single-column solution.

Filling a cell of a ``free`` column changes the exact value of that column
played alone (``expected_scores.free_column``): the points the fill earns
(score, numbers bonus, the difference's parts) plus the value of the column's
next state, minus the value of its current state. That change is the cell's
leaf value in expectimax's turn search; the cells of the other columns keep
expectimax's values (``robo_players.cell_values``).

The search (``ExpectimaxPlayer.search``) takes each open cell's value as
``(1 + w) * expectimax's value + d``; the player sets ``(d, w)`` per cell by a
weighted least-squares fit of the exact change over the scores the row can
take (weights: the row's score distribution when a turn aims at it, plus a
floor). For collection rows both are linear in the score with slope 1, so the
fit is exact; for number rows (six levels) and ``max``/``min`` it is the best
line through the exact values. Tables with jokers (Yahtzee) have no exact
free-column values here: the player is plain expectimax there.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from expected_scores.free_column import (
    FreeColumnSolution, _fill_table, _kernel_model, _row_tables, free_column_model,
)
from expected_scores.solve import solve
from expected_scores.tables import load_distribution
from robo_players.cell_values import LEVELS, column_values
from robo_players.row_means import DEFAULT_PLAYED, search_player
from yamb.engine import GameBatch, threads_for
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules

WEIGHT_FLOOR = 0.02  # every score the row can take counts at least this much in the fit


def score_weights(rules: Rules) -> np.ndarray:
    """(R, K) weight of each distinct score of each row: its probability when a turn aims at the row."""
    distinct, n_distinct = _row_tables(rules)[:2]
    out = np.zeros(distinct.shape)
    for r, row in enumerate(rules.rows):
        dist = load_distribution(row, rules.name, rules.n_dice, "turn")
        scores = distinct[r, : n_distinct[r]]
        out[r, : n_distinct[r]] = dist.reindex(scores, fill_value=0.0).to_numpy() + WEIGHT_FLOOR
    return out


@njit(cache=True, parallel=True)
def _adjust(games, filled, cells, player, free, model_tables, values, model, rows, spread, pair_class,
            weights, out):
    """``out[i, :, c, r]``: the correction ``(d, w)`` that brings expectimax's value of open cell
    ``(c, r)`` of ``games[i]``'s mover to the exact change of its free column's value."""
    expected, variance, bonus_levels, level_score, params = model_tables
    pattern, n_aux, offset, rest = model[0], model[2], model[3], model[1]
    distinct, n_distinct, n_rows, threshold = rows[0], rows[1], rows[3], rows[4]
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
            column_values(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params, lin, num)
            upper = 0
            for r in range(N_NUMBER_ROWS):
                upper += np.int64(cells[g, p, c, r])
            upper = min(upper, threshold)
            q = pattern[mask]
            aux = 0
            if len(spread):
                if q == 1 or q == 2 or q == 4:
                    j = 0 if q == 1 else (1 if q == 2 else 2)
                    aux = np.int64(cells[g, p, c, spread[j]])
                elif q == 3 or q == 5 or q == 6:
                    j = 0 if q != 6 else 1
                    k = 2 if q != 3 else 1
                    aux = pair_class[q, np.int64(cells[g, p, c, spread[j]]), np.int64(cells[g, p, c, spread[k]])]
            now = values[offset[q] + (rest[mask] * (threshold + 1) + upper) * n_aux[q] + aux]
            _fill_table(mask, upper, aux, values, model, rows, table)
            for r in range(n_rows):
                if (mask >> r) & 1:
                    continue
                sw = sx = sy = sxx = sxy = 0.0
                for d in range(n_distinct[r]):
                    s = distinct[r, d]
                    x = num[c, r, d] if r < N_NUMBER_ROWS else lin[c, r, 0] * s + lin[c, r, 1]
                    y = table[r, d] - now
                    w = weights[r, d]
                    sw += w
                    sx += w * x
                    sy += w * y
                    sxx += w * x * x
                    sxy += w * x * y
                mx, my = sx / sw, sy / sw
                var = sxx / sw - mx * mx
                slope = (sxy / sw - mx * my) / var if var > 1e-9 else 1.0
                slope = max(slope, 0.0)
                out[i, 0, c, r] = my - slope * mx
                out[i, 1, c, r] = slope - 1.0


class ColumnExactPlayer:
    """Expectimax with each ``free`` column's cells valued by the exact change of the column's value."""

    name = "expectimax-column"

    def __init__(self, layout: Layout, solution: FreeColumnSolution | None = None, played: float = 0.0) -> None:
        """``solution``: the free column's values (default: solved at first use, then cached on disk);
        ``played``: the other columns' cells valued as ``expectimax-played`` at this blend (0: expectimax)."""
        rules = layout.rules
        self.search = search_player(layout, played, "normal")
        self.free = np.array([c for c, kind in enumerate(layout.columns) if kind == "free"], dtype=np.int64)
        if rules.has_jokers:
            self.free = self.free[:0]
        self.shape = (2, len(layout.columns), rules.n_rows)
        if len(self.free):
            solution = solution or solve(rules.name, ["free"], dice=rules.n_dice)
            m = free_column_model(rules)
            t = self.search.tables  # expected, variance, bonus levels, levels, level_score, params, ...
            values = np.ascontiguousarray(solution.values, dtype=np.float64).ravel()  # Yatzy's: (2**R, 64, 1)
            self.tables = ((t[0], t[1], t[2], t[4], t[5]), values, _kernel_model(m),
                           _row_tables(rules), m.spread.astype(np.int64), m.pair_class, score_weights(rules))

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        adjust = np.zeros((len(games), *self.shape))
        with threads_for(len(games)):
            if len(self.free):
                _adjust(games, batch.filled, batch.cells, batch.player, self.free, *self.tables,
                        adjust)
            rows = np.arange(len(games), dtype=np.int64)
            return self.search.search(batch, games, (adjust.reshape(len(games), -1), rows, 1.0))


def column_played(layout: Layout) -> ColumnExactPlayer:
    """``expectimax-column-played``: the exact free columns, the other cells as ``expectimax-played``."""
    player = ColumnExactPlayer(layout, played=DEFAULT_PLAYED)
    player.name = "expectimax-column-played"
    return player
