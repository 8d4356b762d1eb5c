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

_NOTHING_SEEN = np.empty(0, dtype=np.int32)


def table_size(layout: Layout) -> int:
    return 2 * layout.n_cells + 3 * layout.n_columns + 1


def dice_size(layout: Layout) -> int:
    return layout.n_cells + FACES + layout.n_rows + 3


def score_scale(layout: Layout) -> float:
    """The scale of the score features (``Rules.largest_score``)."""
    return float(layout.rules.largest_score)


@njit(inline="always")
def gain(score, value, scale):
    """The gain feature of an open cell: the dice's ``score`` in its row less its ``value``, / ``scale``
    (shared with the direct player's action kernel, which computes it again for the legal fills)."""
    return (score - value) / scale


@njit(cache=True, parallel=True)
def _encode(games, filled, cells, dice, roll, allowed, player, turn, multisets, scores, cell_values,
            per_member, scale, threshold, n_dice, with_dice, seen, out):
    """Features of ``games[i]`` to ``out[i]``, or, with ``seen`` (one turn per game of the batch),
    to ``out[games[i]]``: there the table features are written only when the game's turn is not
    the one ``seen`` holds (its table changed), then ``seen`` takes it."""
    n_cols, n_rows = cells.shape[2], cells.shape[3]
    cr = n_cols * n_rows
    top = 2 * cr + 3 * n_cols + 1
    kept = len(seen) > 0
    for i in prange(len(games)):
        g = games[i]
        o = g if kept else np.int64(i)
        table = not kept or seen[g] != turn[g]
        if kept:
            seen[g] = turn[g]
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
                if with_dice:
                    out[o, top + cell] = 0.0 if is_filled else gain(scores[m, r], value, scale)
                if not table:
                    continue
                out[o, cell] = is_filled
                out[o, cr + cell] = value / scale
                if r < N_NUMBER_ROWS:
                    numbers += value
                    filled_numbers += value if is_filled else 0.0
                open_rows += 1 - is_filled
            if table:
                out[o, 2 * cr + c] = (numbers - threshold) / threshold
                out[o, 2 * cr + n_cols + c] = filled_numbers / threshold
                out[o, 2 * cr + 2 * n_cols + c] = open_rows / n_rows
                open_cells += open_rows
        if table:
            out[o, top - 1] = open_cells / cr
        if with_dice:
            j = top + cr
            for f in range(FACES):
                out[o, j + f] = multisets[m, f] / n_dice
            j += FACES
            for r in range(n_rows):
                out[o, j + r] = scores[m, r] / scale
            j += n_rows
            left = allowed[g] - roll[g]
            out[o, j] = roll[g] == 1
            out[o, j + 1] = left == 0
            out[o, j + 2] = left / 2


def features_size(layout: Layout, with_dice: bool) -> int:
    return table_size(layout) + (dice_size(layout) if with_dice else 0)


def encode(
    batch: GameBatch, games: np.ndarray | None, cell_values: np.ndarray, with_dice: bool,
    kept: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """(n, features) float32 features of ``games`` (default: all), seen by the player to move.

    ``cell_values`` is (P, CR): the batch holds ``P`` members' games, ``G`` each. With ``kept``,
    ``(features, seen)``: (N, features) of the whole batch and (N,) int32 turns (-1 at first), row
    ``g`` of ``features`` is brought up to date for each game ``g`` of ``games`` (its table
    features only if its turn is not ``seen[g]``: a table changes only when a turn ends) and
    ``features`` is returned.
    """
    lay = batch.layout
    cell_values = np.asarray(cell_values, dtype=np.float32).reshape(-1, lay.n_cells)
    games = np.arange(batch.n_games) if games is None else np.asarray(games, dtype=np.int64)
    if kept is None:  # turns are read only with ``kept`` (the look-ahead's next tables have none)
        out = np.empty((len(games), features_size(lay, with_dice)), dtype=np.float32)
        seen = turn = _NOTHING_SEEN
    else:
        (out, seen), turn = kept, batch.turn
    _encode(
        games, batch.filled, batch.cells, batch.dice, batch.roll, batch.rolls_allowed, batch.player, turn,
        batch.rules.dice.multisets, batch.rules.scores, cell_values, batch.n_games // len(cell_values),
        np.float32(score_scale(lay)), np.float32(lay.rules.spec.bonus_threshold),
        np.float32(lay.rules.n_dice), with_dice, seen, out,
    )
    return out
