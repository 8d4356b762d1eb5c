"""The value of ending a turn in a cell: a fill with a hand, or an announcement holding one.

Cell values come as ``lin`` (C, R, 2), a collection row's value ``lin[c, r, 0] * s +
lin[c, r, 1]`` for score ``s``, and ``num`` (C, 6, LEVELS), a number row's value by level
(``robo_players.search.cell_values.column_values``, corrected by ``robo_players.search.correction``).
``best_fills`` and ``best_announcements`` take the larger of a row of hands' options and
the endings' value of each hand: the options of a turn queued for planning.
"""

from __future__ import annotations

from numba import njit

from robo_players.search.cell_values import EXTRA_BONUS, YZ_ROW, YZ_SCORE
from yamb import kernels
from yamb.rules import N_NUMBER_ROWS

FILL, LATE, PURE = 0, 1, 2  # how a turn may end after a later roll: a fill, a late announcement, a pure hand's fill


@njit(cache=True, inline="always")
def fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params, yamb_cell, levels, lin, num):
    """Value of filling row ``r`` of column ``c`` (filled rows ``own``, Yahtzee cell ``yamb_cell``)
    with hand ``m``: a joker's score and the extra Yahtzee bonus included.

    Every array is read before the first branch (a number row's value is read for any row, from
    row 5 when ``r`` is not one): then numba drops the reference counts of the arrays at each
    call, which its callers make for every open cell."""
    number = num[c, min(r, N_NUMBER_ROWS - 1), levels[m, min(r, N_NUMBER_ROWS - 1)]]
    slope, intercept, score, joker_score = lin[c, r, 0], lin[c, r, 1], scores[m, r], joker_scores[m, r]
    face, yz_row, yz_score, extra = five_face[m], params[YZ_ROW], params[YZ_SCORE], params[EXTRA_BONUS]
    v = number if r < N_NUMBER_ROWS else slope * score + intercept
    if has_jokers and face > 0:  # a joker's score, the extra Yahtzee bonus
        s = joker_score if kernels.is_joker(has_jokers, face, yz_row, own) else score
        v += slope * (s - score)
        if yamb_cell == yz_score:
            v += extra
    return v


@njit(cache=True, inline="always")
def announce_value(c, r, m, left, sign, row_value, reach, lin, num):
    """Expected value of announcing row ``r`` of column ``c`` holding ``m`` with ``left`` rolls left
    (the levels' sum written out: a loop here would keep the arrays' reference counts at each call)."""
    if r < N_NUMBER_ROWS:
        v = num[c, r, 0]
        v += reach[left, m, r, 0] * (num[c, r, 1] - num[c, r, 0])
        v += reach[left, m, r, 1] * (num[c, r, 2] - num[c, r, 1])
        v += reach[left, m, r, 2] * (num[c, r, 3] - num[c, r, 2])
        v += reach[left, m, r, 3] * (num[c, r, 4] - num[c, r, 3])
        v += reach[left, m, r, 4] * (num[c, r, 5] - num[c, r, 4])
        return v
    return lin[c, r, 0] * sign[r] * row_value[left, m, r] + lin[c, r, 1]


@njit(cache=True, inline="always")
def best_fills(row, pure_row, ends, n_ends, g, p, filled, cells, consts, tables, lin, num):
    """``row[m]`` (``pure_row[m]`` for an end of kind ``PURE``): the larger of itself and the value
    of filling the cell of each of the first ``n_ends`` ``ends`` (cell, kind; ``LATE`` ends
    skipped) of player ``p``'s table in game ``g`` with each hand ``m`` (contiguous rows of the
    tables; jokers after). The ends come as a list so that the arrays are taken once: numba
    counts the references of an inlined function's arrays at every call."""
    levels_t, scores_t, five_face = tables.levels_t, tables.scores_t, consts.five_face
    # the hands' loops bounded once, not by ``len(into)``: numba compiles them to about a tenth fewer
    # instructions of the whole search (callgrind)
    n_rows, n_multisets = lin.shape[1], len(row)
    for e in range(n_ends):
        if ends[e, 1] == LATE:
            continue
        into = row if ends[e, 1] == FILL else pure_row
        c, r = ends[e, 0] // n_rows, ends[e, 0] % n_rows
        if r < N_NUMBER_ROWS:
            for m in range(n_multisets):
                into[m] = max(into[m], num[c, r, levels_t[r, m]])
        else:
            a, b = lin[c, r, 0], lin[c, r, 1]
            for m in range(n_multisets):
                into[m] = max(into[m], a * scores_t[r, m] + b)
        if consts.has_jokers:  # a joker scores more, and an extra Yahtzee earns its bonus
            own, yamb_cell = filled[g, p, c], cells[g, p, c, consts.yz_row]
            for m in range(n_multisets):
                if five_face[m] > 0:
                    v = fill_value(c, r, m, own, consts.scores, consts.joker_scores, five_face, True, tables.params,
                                   yamb_cell, tables.levels, lin, num)
                    into[m] = max(into[m], v)


@njit(cache=True, inline="always")
def best_announcements(row, c, r, left, tables, lin, num):
    """``row[m]``: the larger of itself and the value of announcing row ``r`` of column ``c``
    holding each hand ``m`` with ``left`` rolls left (``announce_value``'s sums in its order,
    the cell's values read once, the tables hands last)."""
    if r < N_NUMBER_ROWS:
        reach = tables.reach_t[left, r]
        base = num[c, r, 0]
        d0, d1, d2 = num[c, r, 1] - num[c, r, 0], num[c, r, 2] - num[c, r, 1], num[c, r, 3] - num[c, r, 2]
        d3, d4 = num[c, r, 4] - num[c, r, 3], num[c, r, 5] - num[c, r, 4]
        for m in range(len(row)):
            v = base + reach[0, m] * d0
            v += reach[1, m] * d1
            v += reach[2, m] * d2
            v += reach[3, m] * d3
            v += reach[4, m] * d4
            row[m] = max(row[m], v)
        return
    a, b = lin[c, r, 0] * tables.sign[r], lin[c, r, 1]
    value = tables.row_value_t[left, r]
    for m in range(len(row)):
        row[m] = max(row[m], a * value[m] + b)
