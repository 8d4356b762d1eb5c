"""Kind ``direct``: the network's scores choose the action, masked to the legal ones.

From the scores ``[fill CR | announce CR | roll 1 | keep table 6 x (dice+1)]``
of ``DirectPolicyNet``, the player takes the best of: the best legal fill,
the best legal announcement, and rolling again (when ``GameBatch.decisions``
allows it). Rolling keeps the sub-multiset of the dice (not all of them) with
the highest ``sum_f keep[f, count_f]``. Ties prefer filling, then
announcing, then the first fill, announcement or keep.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from robo_players.neural.player import Forward, network_outputs
from yamb import kernels
from yamb.dice import FACES
from yamb.engine import GameBatch, threads_for


@njit(cache=True, parallel=True)
def _choose(games, state, consts, keeps, scores, rows, out):
    """The action of each game of ``games`` from ``scores[rows[i]]``, its legal moves
    (``kernels.decision``) found in the same pass; ``keeps``: ``DiceTables.keeps``."""
    filled, _, dice, roll, rolls_allowed, pure, announced, answer, player = state[:9]
    order, n_rows, five_face, keep_size = consts[0], consts[1], consts[5], consts[7]
    n_dice, forced_joker, yz_row, pure_hand = consts[10], consts[13], consts[14], consts[15]
    sub_keeps, n_sub_keeps = consts[18], consts[19]
    n_cols = order.shape[0]
    cr = n_cols * n_rows
    n_keeps = len(keep_size)
    one = np.uint32(1)
    bits = np.empty((len(out), 2, n_cols), dtype=np.uint32)
    for i in prange(len(out)):
        g = games[i]
        m = dice[g]
        _, may_roll = kernels.decision(
            filled, g, player[g], order, bits, i, roll[g], rolls_allowed[g], announced[g], answer[g], pure[g],
            five_face[m], n_rows, pure_hand, forced_joker, yz_row,
        )
        row = rows[i]
        best = -np.inf
        action = -1
        for c in range(n_cols):
            for r in range(n_rows):
                cell = c * n_rows + r
                if (bits[i, 0, c] >> np.uint32(r)) & one and scores[row, cell] > best:
                    best = scores[row, cell]
                    action = cell
        for c in range(n_cols):
            for r in range(n_rows):
                cell = c * n_rows + r
                if (bits[i, 1, c] >> np.uint32(r)) & one and scores[row, cr + cell] > best:
                    best = scores[row, cr + cell]
                    action = cr + n_keeps + cell
        if may_roll and scores[row, 2 * cr] > best:
            best_keep = -np.inf
            for j in range(n_sub_keeps[m]):
                k = sub_keeps[m, j]
                if keep_size[k] >= n_dice:
                    continue
                value = 0.0
                for f in range(FACES):
                    value += scores[row, 2 * cr + 1 + f * (n_dice + 1) + keeps[k, f]]
                if value > best_keep:
                    best_keep = value
                    action = cr + k
        out[i] = action


def choose(batch: GameBatch, games: np.ndarray, scores: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Actions of ``games`` (none done) from their direct-policy scores, ``scores[rows[i]]`` for ``games[i]``."""
    out = np.empty(len(games), dtype=np.int64)
    with threads_for(len(games)):
        _choose(np.asarray(games, dtype=np.int64), batch._state, batch._consts, batch.rules.dice.keeps,
                np.ascontiguousarray(scores), np.asarray(rows, dtype=np.int64), out)
    return out


class DirectPolicyPlayer:
    """Plays with one direct-policy network, or with a population of them on one batch.

    ``cell_values`` is (P, CR), one row per member (see ``robo_players.neural.player``).
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, name: str = "neural-direct") -> None:
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.name = name

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        scores, rows = network_outputs(self.forward, batch, games, self.cell_values, True)
        return choose(batch, games, scores, rows)
