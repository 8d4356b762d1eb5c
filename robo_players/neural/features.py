"""What a neural player sees: features of the mover's table, dice and roll, one vector per game.

With ``C`` columns of ``R`` rows (``CR`` cells, cell ``c * R + r`` as in
``yamb.layout``), a cell's *value* is its score when filled and
``cell_values[member, cell]`` when open (the expected-score tables, or averages
seen in play), where game ``g`` of a batch belongs to member ``g // G``. Scores are divided by ``scale``, the largest score of the preset.
Table features (``table_size(layout)`` of them):

| index              | meaning                                                   |
| ------------------ | --------------------------------------------------------- |
| ``0 .. CR-1``      | 1 where the cell is filled, else 0                        |
| ``CR .. 2CR-1``    | the cell's value / scale                                  |
| ``2CR + c``        | column c: (value of its number rows - bonus threshold) / threshold |
| ``2CR + C + c``    | column c: filled number rows' sum / threshold            |
| ``2CR + 2C + c``   | column c: open rows / R                                   |
| ``2CR + 3C``       | open cells / CR (turns left)                              |

Dice features follow them for the ``direct`` kind (``dice_size(layout)``):

| index (after the table) | meaning                                            |
| ----------------------- | -------------------------------------------------- |
| ``0 .. CR-1``           | gain of each open cell: (dice's score in its row - value) / scale; 0 if filled |
| ``CR .. CR+5``          | count of each face 1..6 / number of dice           |
| ``CR+6 .. CR+5+R``      | the dice's score in each row (``Rules.scores``) / scale |
| then 3                  | first roll (0/1), last roll (0/1), rolls left / 2   |

Scores and legality are read from the engine's arrays and ``Rules.scores``;
nothing here knows a rule beyond which rows are the number rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from yamb.dice import FACES
from yamb.engine import GameBatch
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS


def table_size(layout: Layout) -> int:
    return 2 * layout.n_cells + 3 * layout.n_columns + 1


def dice_size(layout: Layout) -> int:
    return layout.n_cells + FACES + layout.n_rows + 3


def score_scale(layout: Layout) -> float:
    return float(np.abs(layout.rules.scores).max())


@njit(cache=True, parallel=True)
def _encode(games, filled, cells, dice, roll, allowed, player, multisets, scores, cell_values,
            per_member, scale, threshold, n_dice, with_dice, out):
    n_cols, n_rows = cells.shape[2], cells.shape[3]
    cr = n_cols * n_rows
    top = 2 * cr + 3 * n_cols + 1
    for i in prange(len(games)):
        g = games[i]
        p = player[g]
        m = dice[g]
        member = g // per_member
        open_cells = 0
        for c in range(n_cols):
            numbers = 0.0
            filled_numbers = 0.0
            open_rows = 0
            for r in range(n_rows):
                cell = c * n_rows + r
                is_filled = (filled[g, p, c] >> np.uint32(r)) & np.uint32(1)
                value = np.float32(cells[g, p, c, r]) if is_filled else cell_values[member, cell]
                out[i, cell] = is_filled
                out[i, cr + cell] = value / scale
                if r < N_NUMBER_ROWS:
                    numbers += value
                    filled_numbers += value if is_filled else 0.0
                open_rows += 1 - is_filled
                if with_dice:
                    out[i, top + cell] = 0.0 if is_filled else (scores[m, r] - value) / scale
            out[i, 2 * cr + c] = (numbers - threshold) / threshold
            out[i, 2 * cr + n_cols + c] = filled_numbers / threshold
            out[i, 2 * cr + 2 * n_cols + c] = open_rows / n_rows
            open_cells += open_rows
        out[i, top - 1] = open_cells / cr
        if with_dice:
            j = top + cr
            for f in range(FACES):
                out[i, j + f] = multisets[m, f] / n_dice
            j += FACES
            for r in range(n_rows):
                out[i, j + r] = scores[m, r] / scale
            j += n_rows
            left = allowed[g] - roll[g]
            out[i, j] = roll[g] == 1
            out[i, j + 1] = left == 0
            out[i, j + 2] = left / 2


def encode(
    batch: GameBatch, games: np.ndarray | None, cell_values: np.ndarray, with_dice: bool
) -> np.ndarray:
    """(n, features) float32 features of ``games`` (default: all), seen by the player to move.

    ``cell_values`` is (P, CR): the batch holds ``P`` members' games, ``G`` each.
    """
    lay = batch.layout
    cell_values = np.asarray(cell_values, dtype=np.float32).reshape(-1, lay.n_cells)
    games = np.arange(batch.n_games) if games is None else np.asarray(games, dtype=np.int64)
    size = table_size(lay) + (dice_size(lay) if with_dice else 0)
    out = np.empty((len(games), size), dtype=np.float32)
    _encode(
        games, batch.filled, batch.cells, batch.dice, batch.roll, batch.rolls_allowed, batch.player,
        batch.rules.dice.multisets, batch.rules.scores, cell_values, batch.n_games // len(cell_values),
        np.float32(score_scale(lay)), np.float32(lay.rules.spec.bonus_threshold),
        np.float32(lay.rules.n_dice), with_dice, out,
    )
    return out
