"""The look-ahead's kernels: the next tables a turn may leave, and the next turn's start value from each.

A next table is the mover's table after one fill this turn: one per level of a number
row, two for a joker table's Yahtzee row (scored or not), one for any other row
(``robo_players.search.lookahead`` says why). Its next turn is searched as the turn search does
(the endings of ``robo_players.search.values``, corrected by a ``Correction``), every roll
from the first, and planned in lanes (``robo_players.search.lanes``); its value is the
plan's start value.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from robo_players.search.cell_values import LEVELS, YZ_SCORE, column_values
from robo_players.search.correction import corrected_column
from robo_players.search.lanes import BLOCK, new_lanes, new_queue, plan_slot_values
from robo_players.search.values import FILL, PURE, best_announcements, best_fills
from yamb import kernels
from yamb.rules import N_NUMBER_ROWS

CHUNKS_PER_THREAD = 4


class Successors(NamedTuple):
    """The next tables (successors) of a batch's games, ``S`` of them, and the fills that leave them."""

    owner: np.ndarray  # (S,) int64 the game (index into the games) it comes from
    cell: np.ndarray  # (S,) int64 the cell filled
    klass: np.ndarray  # (S,) int64 the level (number rows), or Yahtzee scored (jokers), or 0
    layers: np.ndarray  # (S,) int64 rolls of its next turn
    filled: np.ndarray  # (S, 1, C) its mover's filled rows
    cells: np.ndarray  # (S, 1, C, R) its mover's scores


class ColumnCache(NamedTuple):
    """The uncorrected values of each column and the next table they were computed for (tables of
    one game follow each other and differ in one column)."""

    lin: np.ndarray  # (C, R, 2)
    num: np.ndarray  # (C, 6, LEVELS)
    source: np.ndarray  # (C,) int64, -1 for none yet


@njit(cache=True, inline="always")
def _classes(r, has_jokers, yz_row):
    """Next tables of filling row ``r``: one per level of a number row, two for a joker table's
    Yahtzee row (scored or not), else one."""
    if r < N_NUMBER_ROWS:
        return LEVELS
    if has_jokers and r == yz_row:
        return 2
    return 1


@njit(cache=True, inline="always")
def _open_cells(filled, g, p, n_rows, popcount):
    """Open cells of player ``p`` in game ``g``."""
    n = 0
    for c in range(filled.shape[2]):
        n += n_rows - popcount[filled[g, p, c]]
    return n


@njit(cache=True)
def _count_next(games, filled, player, consts):
    """How many next tables ``games``' movers may leave this turn."""
    order, n_rows = consts.order, consts.n_rows
    n = 0
    for i in range(len(games)):
        g = games[i]
        if _open_cells(filled, g, player[g], n_rows, consts.popcount) == 1:
            continue  # the last turn: no next turn
        for c in range(order.shape[0]):
            allowed = order[c, filled[g, player[g], c]] & np.uint32(kernels.ROW_BITS)
            for r in range(n_rows):
                if (allowed >> np.uint32(r)) & np.uint32(1):
                    n += _classes(r, consts.has_jokers, consts.yz_row)
    return n


@njit(cache=True)
def next_tables(games, filled, cells, player, consts, tables):
    """The next tables of every cell ``games``' movers may fill this turn (the open cells their
    columns' order allows), each filled at its class's score: a number row's level, a joker
    table's Yahtzee row's full score or 0, another row's expectation rounded."""
    order, n_rows, has_jokers, yz_row = consts.order, consts.n_rows, consts.has_jokers, consts.yz_row
    n_cols = order.shape[0]
    n = _count_next(games, filled, player, consts)
    out = Successors(np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
                     np.empty(n, dtype=np.int64), np.empty((n, 1, n_cols), dtype=filled.dtype),
                     np.empty((n, 1, n_cols, n_rows), dtype=cells.dtype))
    one = np.uint32(1)
    s = 0
    for i in range(len(games)):
        g = games[i]
        p = player[g]
        open_cells = _open_cells(filled, g, p, n_rows, consts.popcount)
        if open_cells == 1:
            continue
        for c in range(n_cols):
            allowed = order[c, filled[g, p, c]] & np.uint32(kernels.ROW_BITS)
            for r in range(n_rows):
                if not (allowed >> np.uint32(r)) & one:
                    continue
                for k in range(_classes(r, has_jokers, yz_row)):
                    out.owner[s], out.cell[s], out.klass[s] = i, c * n_rows + r, k
                    out.layers[s] = consts.last_turn_rolls if open_cells == 2 else consts.rolls
                    out.filled[s, 0] = filled[g, p]
                    out.filled[s, 0, c] |= one << np.uint32(r)
                    out.cells[s, 0] = cells[g, p]
                    if r < N_NUMBER_ROWS:
                        score = tables.level_score[r, k]
                    elif has_jokers and r == yz_row:
                        score = tables.params[YZ_SCORE] * k
                    else:
                        score = round(tables.expected[c, r])
                    out.cells[s, 0, c, r] = score
                    s += 1
    return out


@njit(cache=True)
def fill_gaps(games, filled, cells, player, consts, tables, adjust, gaps):
    """``gaps[i, c, r, k]``: how far the one-turn value of filling row ``r`` of column ``c`` (a cell
    ``games[i]``'s mover may fill this turn) falls below the best fill, for the hand of class ``k``
    (``_classes``) it falls least below (``inf``: no such cell or hand). The cell values are
    corrected by row ``i`` of ``adjust``; the best fill of a hand has gap 0."""
    order, n_rows, has_jokers, yz_row = consts.order, consts.n_rows, consts.has_jokers, consts.yz_row
    levels_t, scores_t = tables.levels_t, tables.scores_t
    n_cols = order.shape[0]
    n_multisets = tables.levels.shape[0]
    plain_lin, plain_num = np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    lin, num = np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    value = np.empty((n_cols * n_rows, n_multisets))
    best = np.empty(n_multisets)
    cell = np.empty(n_cols * n_rows, dtype=np.int64)
    end = np.full((1, 2), FILL, dtype=np.int64)  # one fill at a time (``best_fills``)
    gaps[:] = np.inf
    for i in range(len(games)):
        g = games[i]
        p = player[g]
        if _open_cells(filled, g, p, n_rows, consts.popcount) == 1:
            continue  # the last turn: no next turn
        best[:] = -np.inf
        n_cells = 0
        for c in range(n_cols):
            own = filled[g, p, c]
            allowed = order[c, own] & np.uint32(kernels.ROW_BITS)
            if not allowed:
                continue
            column_values(filled, cells, g, p, c, tables.expected, tables.variance, tables.bonus_levels,
                          tables.level_score, tables.params, plain_lin, plain_num)
            corrected_column(c, own, plain_lin, plain_num, adjust, i, lin, num)
            for r in range(n_rows):
                if (allowed >> np.uint32(r)) & np.uint32(1):
                    row = value[n_cells]
                    row[:] = -np.inf
                    end[0, 0] = c * n_rows + r
                    best_fills(row, row, end, 1, g, p, filled, cells, consts, tables, lin, num)
                    for m in range(n_multisets):
                        best[m] = max(best[m], row[m])
                    cell[n_cells] = c * n_rows + r
                    n_cells += 1
        for e in range(n_cells):
            c, r = cell[e] // n_rows, cell[e] % n_rows
            gap = gaps[i, c, r]
            row = value[e]
            for m in range(n_multisets):
                if r < N_NUMBER_ROWS:
                    k = levels_t[r, m]
                elif has_jokers and r == yz_row:
                    k = 1 if scores_t[r, m] > 0 else 0
                else:
                    k = 0
                gap[k] = min(gap[k], best[m] - row[m])


@njit(cache=True, inline="always")
def _table_values(s, filled, cells, tables, adjust, cache, lin, num):
    """The corrected values of next table ``s``'s open columns, the plain ones computed again
    unless ``cache`` holds them for the same column."""
    n_rows = lin.shape[1]
    full = (1 << n_rows) - 1
    for c in range(lin.shape[0]):
        own = filled[s, 0, c]
        if own == full:
            continue
        k = cache.source[c]
        same = k >= 0 and filled[k, 0, c] == own
        for r in range(n_rows):
            same = same and cells[k, 0, c, r] == cells[s, 0, c, r]
        if not same:
            column_values(filled, cells, s, 0, c, tables.expected, tables.variance, tables.bonus_levels,
                          tables.level_score, tables.params, cache.lin, cache.num)
            cache.source[c] = s
        corrected_column(c, own, cache.lin, cache.num, adjust, s, lin, num)


@njit(cache=True, inline="always")
def _same_fills(bits, n_cols, pure_hand):
    """Whether this roll's fills (``bits[:2]``) are the last roll's (``bits[2:]``)."""
    same = True
    for c in range(n_cols):
        same = same and bits[0, 0, c] == bits[2, 0, c] and (not pure_hand or bits[1, 0, c] == bits[3, 0, c])
    return same


@njit(cache=True, inline="always")
def _roll_fills(s, row, pure_row, filled, cells, bits, consts, tables, ends, lin, num):
    """The fills after a roll of next table ``s``'s turn, ``bits`` (2, 2, C), into ``row`` (every
    hand) and ``pure_row`` (a freshly thrown hand), listed in ``ends`` first."""
    n_rows = consts.n_rows
    n_ends = 0
    for c in range(lin.shape[0]):
        for r in range(n_rows):
            bit = np.uint32(1) << np.uint32(r)
            if bits[0, 0, c] & bit:
                ends[n_ends, 0], ends[n_ends, 1] = c * n_rows + r, FILL
                n_ends += 1
            elif consts.pure_hand and bits[1, 0, c] & bit:
                ends[n_ends, 0], ends[n_ends, 1] = c * n_rows + r, PURE
                n_ends += 1
    best_fills(row, pure_row, ends, n_ends, s, 0, filled, cells, consts, tables, lin, num)


@njit(cache=True, inline="always")
def _roll_announcements(left, row, bits, tables, lin, num):
    """The announcements after a roll, ``bits`` (2, 2, C), with ``left`` rolls left, into ``row``."""
    for c in range(lin.shape[0]):
        for r in range(lin.shape[1]):
            if bits[0, 1, c] & (np.uint32(1) << np.uint32(r)):
                best_announcements(row, c, r, left, tables, lin, num)


@njit(cache=True, inline="always")
def _options(s, q, filled, cells, layers, consts, tables, queue, lin, num, bits, fills, ends):
    """The next turn's endings from next table ``s``, roll by roll, into queue slot ``q``: the
    options of every hand, and those open to a freshly thrown hand only (``pure``).

    The legal endings after each roll come from the engine's rules (``kernels.decision``);
    the fills of a roll (``fills``, (2, M): every hand's and a pure hand's) are the last
    roll's when the same cells may be filled (``ends``: a buffer for their list). Under the
    forced joker rule the hands of five alike are valued again with their own endings.
    """
    forced_joker, pure_hand, five_face = consts.forced_joker, consts.pure_hand, consts.five_face
    options, pure = queue.options, queue.pure
    n_multisets = options.shape[2]
    n_layers = layers[s]
    options[q, :n_layers] = -np.inf
    if pure_hand:
        pure[q, :n_layers] = -np.inf
    for t in range(n_layers):
        left = n_layers - 1 - t
        for face in range(7 if forced_joker else 1):
            _, may_roll = kernels.decision(filled, s, 0, consts.order, bits, 0, t + 1, n_layers, -1, -1, False, face,
                                           consts.n_rows, pure_hand, forced_joker, consts.yz_row)
            if pure_hand:
                kernels.decision(filled, s, 0, consts.order, bits, 1, t + 1, n_layers, -1, -1, True, face,
                                 consts.n_rows, pure_hand, forced_joker, consts.yz_row)
            if not forced_joker:
                if t == 0 or not _same_fills(bits, lin.shape[0], pure_hand):
                    fills[:] = -np.inf
                    _roll_fills(s, fills[0], fills[1], filled, cells, bits, consts, tables, ends, lin, num)
                options[q, t] = fills[0]
                if pure_hand:
                    pure[q, t] = fills[1]
                _roll_announcements(left, options[q, t], bits, tables, lin, num)
                continue
            row = options[q, t] if face == 0 else np.full(n_multisets, -np.inf)
            pure_row = (pure[q, t] if pure_hand else row) if face == 0 else np.full(n_multisets, -np.inf)
            _roll_fills(s, row, pure_row, filled, cells, bits, consts, tables, ends, lin, num)
            _roll_announcements(left, row, bits, tables, lin, num)
            if face > 0:  # only the hands of five of this face, valued with their own endings
                for m in range(n_multisets):
                    if five_face[m] == face:
                        options[q, t, m] = row[m]
                        if pure_hand:
                            pure[q, t, m] = pure_row[m]
        bits[2:] = bits[:2]
        if not may_roll:
            break
    queue.layers[q] = n_layers
    queue.owner[q] = s


@njit(cache=True)
def _plan_block(n_queued, queue, lanes, tables, out):
    """Plan the ``n_queued`` next turns of the queue (all of one roll count) in lanes; their start
    values go to ``out[queue.owner[q]]``."""
    for q in range(n_queued):
        lanes.slot[q] = q
    value = plan_slot_values(queue, lanes, n_queued, queue.layers[0], tables)
    for lane in range(n_queued):
        start = 0.0
        for m in range(value.shape[1]):
            start += tables.first_prob[m] * value[0, m, lane]
        out[queue.owner[lane]] = start


@njit(cache=True)
def _values_range(start, stop, filled, cells, layers, consts, tables, adjust, out):
    """The next-turn values of next tables ``start`` to ``stop``, ``BLOCK`` at a time."""
    n_cols, n_rows = consts.order.shape[0], consts.n_rows
    n_multisets = tables.levels.shape[0]
    most = max(consts.rolls, consts.last_turn_rolls)
    queue = new_queue(most, n_multisets, consts.pure_hand)
    lanes = new_lanes(most, n_multisets, tables.add_die.shape[0], consts.pure_hand)
    lin = np.zeros((n_cols, n_rows, 2))
    num = np.zeros((n_cols, N_NUMBER_ROWS, LEVELS))
    cache = ColumnCache(np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS)),
                        np.full(n_cols, -1, dtype=np.int64))
    bits = np.zeros((4, 2, n_cols), dtype=np.uint32)  # this roll's endings, then the last roll's
    fills = np.empty((2, n_multisets))  # the last roll's fills: every hand's, a pure hand's
    ends = np.empty((n_cols * n_rows, 2), dtype=np.int64)  # a roll's fills (``best_fills``)
    n_queued = 0
    for s in range(start, stop):
        if n_queued and (n_queued == BLOCK or layers[s] != queue.layers[0]):
            _plan_block(n_queued, queue, lanes, tables, out)
            n_queued = 0
        _table_values(s, filled, cells, tables, adjust, cache, lin, num)
        _options(s, n_queued, filled, cells, layers, consts, tables, queue, lin, num, bits, fills, ends)
        n_queued += 1
    if n_queued:
        _plan_block(n_queued, queue, lanes, tables, out)


@njit(cache=True, parallel=True)
def next_values(filled, cells, layers, consts, tables, adjust, n_chunks, out):
    """``out[s]``: the start value of the next turn's one-turn plan from next table ``s``."""
    for chunk in prange(n_chunks):
        start = chunk * len(layers) // n_chunks
        stop = (chunk + 1) * len(layers) // n_chunks
        _values_range(start, stop, filled, cells, layers, consts, tables, adjust, out)
