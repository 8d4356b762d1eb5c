"""``greedy``: the classic naive baseline.

Keeps the dice of its most frequent face (all tied faces; the highest single
die when no face repeats), or a straight draw (one die short at most) when a
straight row is open. It stops rolling when it would keep every die, and then
fills the legal cell that scores most, ties going to the rarest row. It
announces only when forced, the row where its dice already score the largest
share of the row's maximum after one more roll, and then keeps for that row
one roll ahead.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from robo_players.heuristics import ONE, best_announce, draw_counts, keep_of, keep_or_fill, later_rows, row_tables
from yamb.engine import GameBatch, threads_for
from yamb.kernels import decide, fill_score
from yamb.rules import Rules


class GreedyTables(NamedTuple):
    """What ``greedy`` reads besides the batch (``M`` hands, ``R`` rows; see ``heuristics.RowTables``)."""

    multisets: np.ndarray  # (M, 6) dice of each face
    rarity: np.ndarray  # (R,) chance that one roll scores in each row
    straight_faces: np.ndarray  # (T,) faces of each minimal straight
    straight_row: np.ndarray  # (T,) its row
    myopic_keep: np.ndarray  # (M, R) best keep of a hand for one row, one roll ahead
    announce_value: np.ndarray  # (1, M, R) expected share of a row's maximum one roll ahead
    no_base: np.ndarray  # (R,) zeros: announcement values are not compared with a base


@njit(cache=True)
def best_fill(bits, i, n_rows, filled, g, p, m, scores, joker_scores, five_face, has_jokers,
              yz_row, rarity):
    """Fillable cell (from ``bits[i, 0]``) that scores most now; ties to the rarest row; -1 if none."""
    best = -1
    best_score = -1
    for c in range(bits.shape[2]):
        own = filled[g, p, c]
        for r in range(n_rows):
            if (bits[i, 0, c] >> np.uint32(r)) & ONE:
                s = fill_score(scores, joker_scores, five_face, has_jokers, yz_row, own, m, r)
                if best < 0 or s > best_score or (s == best_score and rarity[r] < rarity[best % n_rows]):
                    best = c * n_rows + r
                    best_score = s
    return best


@njit(cache=True)
def frequent_keep(multisets, m, counts):
    """Write into ``counts`` the dice of the most frequent faces (the highest die if none repeats)."""
    top = 0
    for f in range(6):
        top = max(top, multisets[m, f])
    for f in range(6):
        counts[f] = multisets[m, f] if multisets[m, f] == top and top >= 2 else 0
    if top < 2:
        for f in range(5, -1, -1):
            if multisets[m, f] > 0:
                counts[f] = 1
                break


@njit(cache=True, parallel=True)
def _act(games, state, consts, tables, actions):
    """Choose the action of each game of ``games``."""
    bits = np.empty((len(games), 2, consts.order.shape[0]), dtype=np.uint32)
    for i in prange(len(games)):
        # read here, not before the loop: measured about 10% faster
        filled, dice, player = state.filled, state.dice, state.player
        announced, answer = state.announced, state.answer
        order, n_rows, n_dice, first_full = consts.order, consts.n_rows, consts.n_dice, consts.first_full
        key_to_keep, multisets, rarity = consts.key_to_keep, tables.multisets, tables.rarity
        n_cells = order.shape[0] * n_rows
        n_keeps = len(consts.keep_size)
        g = games[i]
        p, m = player[g], dice[g]
        must, may_roll = decide(state, consts, g, bits, i)
        if must:
            cell, _ = best_announce(bits, i, n_rows, tables.announce_value, 0, m, tables.no_base, rarity)
            actions[i] = n_cells + n_keeps + cell
            continue
        target = announced[g] if announced[g] >= 0 else answer[g]
        whole = first_full + m
        keep = whole
        if may_roll and target >= 0:
            keep = tables.myopic_keep[m, target % n_rows]
        elif may_roll:
            open_rows = later_rows(order, filled, g, p, announced[g], answer[g], n_rows)
            counts = np.zeros(6, dtype=np.int64)
            if not draw_counts(multisets, m, tables.straight_faces, tables.straight_row, open_rows, counts):
                frequent_keep(multisets, m, counts)
            keep = keep_of(counts, key_to_keep, n_dice)
        cell = best_fill(bits, i, n_rows, filled, g, p, m, consts.scores, consts.joker_scores,
                         consts.five_face, consts.has_jokers, consts.yz_row, rarity)
        actions[i] = keep_or_fill(keep, cell, m, multisets, key_to_keep, n_dice, first_full, n_cells)


@cache
def _tables(rules: Rules) -> GreedyTables:
    t = row_tables(rules)
    return GreedyTables(t.multisets, t.rarity, t.straight_faces, t.straight_row, t.myopic_keep,
                        (t.myopic_value / t.row_max[None, :])[None], np.zeros(len(t.rarity)))


class GreedyPlayer:
    """Most frequent face or a straight draw; fills the highest-scoring legal cell."""

    name = "greedy"

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        actions = np.empty(len(games), dtype=np.int64)
        with threads_for(len(games)):
            _act(np.asarray(games, dtype=np.int64), batch.state, batch.constants, _tables(batch.rules), actions)
        return actions
