"""The search of a batch's games: each game's action, its turn planned when it needs a plan.

After each roll the mover ends the turn in the cell worth the most now (``_best_ending``),
or follows its turn's plan. A turn without a plan is queued with the options of its
endings after each later roll (``_queue_turn``) and planned ``BLOCK`` at a time in lanes
(``robo_players.search.lanes``); the plan (keeps or ``STOP`` by roll and hand) is kept
for the rest of the turn (``Plans``), except after rerolling every die of an uncommitted
turn on a table with pure hands (jamb6): the pure hand is planned again from where it
stands, its fills of announce cells among its endings. Cell values come from
``column_values``, cached per column until one of its cells is filled, and corrected by
the player's ``Correction``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from expected_scores.turn import STOP
from robo_players.search.cell_values import LEVELS, ONE, column_values
from robo_players.search.correction import corrected_column
from robo_players.search.lanes import BLOCK, gather_slots, new_lanes, new_queue, plan_slots
from robo_players.search.values import FILL, LATE, PURE, announce_value, best_announcements, best_fills, fill_value
from robo_players.search.win_utility import win_utility
from yamb import kernels
from yamb.rules import N_NUMBER_ROWS


class Plans(NamedTuple):
    """Each game's plan for its later rolls and its columns' uncorrected values (``N`` games)."""

    keep: np.ndarray  # (N, rolls - 1, M) int16 keeps or ``STOP`` by roll and hand
    turn_id: np.ndarray  # (N,) int32 the turn the plan is for
    target: np.ndarray  # (N,) int32 the commitment it is for
    column_key: np.ndarray  # (N, P, C) int64 the filled rows each column's values are for
    column_lin: np.ndarray  # (N, P, C, R, 2) as ``column_values`` writes them
    column_num: np.ndarray  # (N, P, C, 6, LEVELS)


class Work(NamedTuple):
    """One chunk's buffers: a game's cell values, its endings after later rolls, its legal
    endings now, and where each lane's plan goes in ``Plans.keep``."""

    lin: np.ndarray  # (C, R, 2)
    num: np.ndarray  # (C, 6, LEVELS)
    ends: np.ndarray  # (CR, 2) int64 cell and kind (``FILL``, ``LATE``, ``PURE`` of ``values``)
    bits: np.ndarray  # (BLOCK, 2, C) uint32 fillable and announceable rows of each queue slot
    start: np.ndarray  # (BLOCK,) int64


@njit(cache=True, inline="always")
def new_work(n_cols, n_rows, slots):
    """A chunk's ``Work`` for a table of ``n_cols`` x ``n_rows`` cells and ``slots`` queue slots."""
    return Work(np.zeros((n_cols, n_rows, 2)), np.zeros((n_cols, N_NUMBER_ROWS, LEVELS)),
                np.empty((n_cols * n_rows, 2), dtype=np.int64), np.zeros((slots, 2, n_cols), dtype=np.uint32),
                np.empty(slots, dtype=np.int64))


@njit(cache=True, inline="always")
def _best_ending(g, p, m, left, bits, filled, cells, consts, tables, lin, num):
    """The best ending of game ``g``'s turn now (fills and announcements of ``bits``, (2, C)):
    its value and action."""
    scores, joker_scores = consts.scores, consts.joker_scores
    five_face, has_jokers, yz_row = consts.five_face, consts.has_jokers, consts.yz_row
    params, levels, sign, row_value, reach = tables.params, tables.levels, tables.sign, tables.row_value, tables.reach
    n_cols, n_rows = lin.shape[0], lin.shape[1]
    n_cells = n_cols * n_rows
    n_keeps = len(consts.keep_size)
    best = -np.inf
    action = -1
    for c in range(n_cols):
        own = filled[g, p, c]
        yamb_cell = cells[g, p, c, yz_row] if has_jokers else 0
        for r in range(n_rows):
            if (bits[0, c] >> np.uint32(r)) & ONE:
                v = fill_value(c, r, m, own, scores, joker_scores, five_face, has_jokers, params, yamb_cell, levels,
                               lin, num)
                if v > best:
                    best, action = v, c * n_rows + r
            if (bits[1, c] >> np.uint32(r)) & ONE:
                v = announce_value(c, r, m, left, sign, row_value, reach, lin, num)
                if v > best:
                    best, action = v, n_cells + n_keeps + c * n_rows + r
    return best, action


@njit(cache=True, inline="always")
def _endings(g, p, first_roll, target, state, consts, ends):
    """The endings of game ``g``'s turn after a later roll into ``ends``: fills (ordinary, or the
    committed cell), late announcements after roll 2, fills of announce cells by a pure hand.
    Returns their number."""
    order, n_rows, pure_hand, filled = consts.order, consts.n_rows, consts.pure_hand, state.filled
    n_ends = 0
    for c in range(order.shape[0]):
        entry = order[c, filled[g, p, c]]
        kind = entry >> kernels.KIND_SHIFT
        rows = entry & np.uint32(kernels.ROW_BITS)
        for r in range(n_rows):
            if not (rows >> np.uint32(r)) & ONE:
                continue
            end = -1
            if (kind == kernels.ORDINARY and target < 0) or c * n_rows + r == target:
                end = FILL
            elif kind == kernels.LATE and target < 0 and first_roll:
                end = LATE
            elif kind == kernels.ANNOUNCE and pure_hand and target < 0:
                end = PURE
            if end >= 0:
                ends[n_ends, 0] = c * n_rows + r
                ends[n_ends, 1] = end
                n_ends += 1
    return n_ends


@njit(cache=True, inline="always")
def _queue_turn(q, g, p, m, left, best, target, state, consts, tables, queue, ends, lin, num):
    """Queue slot ``q``: game ``g``'s turn, its options after each roll from now on (``best``, the
    best ending now, for the hand held; the endings of ``_endings`` after each later roll)."""
    options, pure, pure_hand = queue.options, queue.pure, consts.pure_hand
    n_multisets = options.shape[2]
    n_ends = _endings(g, p, state.roll[g] == 1, target, state, consts, ends)
    layers = left + 1
    for t in range(layers):
        for mm in range(n_multisets):
            options[q, t, mm] = -np.inf
        if pure_hand:
            for mm in range(n_multisets):
                pure[q, t, mm] = -np.inf
    options[q, 0, m] = best
    # fills after the next roll; the same after the rolls after it
    best_fills(options[q, 1], pure[q, 1] if pure_hand else options[q, 1], ends, n_ends, g, p, state.filled,
               state.cells, consts, tables, lin, num)
    for t in range(2, layers):
        for mm in range(n_multisets):
            options[q, t, mm] = options[q, 1, mm]
        if pure_hand:
            for mm in range(n_multisets):
                pure[q, t, mm] = pure[q, 1, mm]
    n_rows = lin.shape[1]
    for e in range(n_ends):  # announcing a late_announce row after roll 2
        if ends[e, 1] == LATE:
            best_announcements(options[q, 1], ends[e, 0] // n_rows, ends[e, 0] % n_rows, left - 1, tables, lin, num)
    queue.layers[q] = layers
    queue.target[q] = target


@njit(cache=True)
def _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, lanes, work):
    """Plan the ``n_queued`` queued turns, those of a roll count together, from the hand each game
    holds: each game's plan into ``plans``, and its keep now into ``actions`` unless it stops."""
    n_cells = consts.order.shape[0] * consts.n_rows
    owner, target, start = queue.owner, queue.target, work.start
    slot, hands = lanes.slot, lanes.hands
    dice, roll, turn = state.dice, state.roll, state.turn
    n_multisets = queue.options.shape[2]
    later = plans.keep.shape[1]
    flat_keep = plans.keep.reshape(-1)
    for layers in range(2, queue.options.shape[1] + 1):
        n_lanes = gather_slots(queue, n_queued, layers, lanes)
        if n_lanes == 0:
            continue
        for lane in range(n_lanes):
            g = games[owner[slot[lane]]]
            hands[lane] = dice[g]
            start[lane] = (g * later + roll[g] - 1) * n_multisets  # where keep[g, roll[g] - 1] starts
        _, keep = plan_slots(queue, lanes, n_lanes, layers, True, tables, consts.sub_keeps)
        for t in range(1, layers):  # plans.keep[g, roll[g] + t - 2] = keep[t]
            for mm in range(n_multisets):
                for lane in range(n_lanes):
                    flat_keep[start[lane] + (t - 1) * n_multisets + mm] = keep[t, mm, lane]
        for lane in range(n_lanes):
            i = owner[slot[lane]]
            g = games[i]
            plans.turn_id[g] = turn[g]
            plans.target[g] = target[slot[lane]]
            k = keep[0, hands[lane], lane]
            if k != STOP:
                actions[i] = n_cells + k


@njit(cache=True)
def _search_range(start, stop, games, state, consts, tables, plans, actions, adjust, win):
    """Search ``games[start:stop]``: the action of each game (the best ending now or the plan's
    keep), its turn queued when it needs a plan, the queued plans made ``BLOCK`` at a time.
    Cell values are the columns' cached ones, corrected by ``adjust`` (a ``Correction``) into
    the chunk's ``Work`` when it has outputs. When ``win`` has rows, a queued turn's endings are
    worth their chance of winning (``win_utility``, row ``i`` of ``win`` for ``games[i]``).

    The tuples' arrays are read once here: numba counts the references of every array an
    inlined function with loops takes, at every call (``kernels.decision`` takes the few it reads).
    """
    n_cols, n_rows = consts.order.shape[0], consts.n_rows
    n_multisets = tables.levels.shape[0]
    rolls = plans.keep.shape[1] + 1
    work = new_work(n_cols, n_rows, BLOCK)
    queue = new_queue(rolls, n_multisets, consts.pure_hand)
    lanes = new_lanes(rolls, n_multisets, len(consts.keep_size), consts.pure_hand)
    filled, cells, dice, roll, rolls_allowed = state.filled, state.cells, state.dice, state.roll, state.rolls_allowed
    announced, answer, player, turn, pure = state.announced, state.answer, state.player, state.turn, state.pure
    order, five_face, pure_hand, forced_joker, yz_row = (consts.order, consts.five_face, consts.pure_hand,
                                                         consts.forced_joker, consts.yz_row)
    expected, variance, bonus_levels, level_score, params = (tables.expected, tables.variance, tables.bonus_levels,
                                                             tables.level_score, tables.params)
    plan_keep, plan_turn_id, plan_target = plans.keep, plans.turn_id, plans.target
    column_key, column_lin, column_num = plans.column_key, plans.column_lin, plans.column_num
    bits, ends = work.bits, work.ends
    corrected = adjust.outputs.shape[0] > 0
    full = (1 << n_rows) - 1
    n_queued = 0
    for i in range(start, stop):
        q = n_queued
        g = games[i]
        p = player[g]
        m = dice[g]
        must, may_roll = kernels.decision(filled, g, p, order, bits, q, roll[g], rolls_allowed[g], announced[g],
                                          answer[g], pure[g], five_face[m], n_rows, pure_hand, forced_joker, yz_row)
        target = announced[g] if announced[g] >= 0 else answer[g]
        # a pure hand thrown after the first roll is planned again: the plan credits its fills of
        # announce cells in the value of rerolling every die, not in its keeps (one per hand)
        planned = (roll[g] > 1 and plan_turn_id[g] == turn[g] and plan_target[g] == target
                   and not (pure_hand and pure[g] and target < 0))
        if planned and may_roll and not must and plan_keep[g, roll[g] - 2, m] != STOP:
            actions[i] = n_cols * n_rows + plan_keep[g, roll[g] - 2, m]
            continue
        lin, num = column_lin[g, p], column_num[g, p]
        for c in range(n_cols):  # a column's values change only when one of its cells is filled
            own = filled[g, p, c]
            if own != full and column_key[g, p, c] != own:
                column_values(filled, cells, g, p, c, expected, variance, bonus_levels, level_score, params, lin, num)
                column_key[g, p, c] = own
        if corrected:
            for c in range(n_cols):
                own = filled[g, p, c]
                if own != full:
                    corrected_column(c, own, lin, num, adjust, i, work.lin, work.num)
            lin, num = work.lin, work.num
        left = rolls_allowed[g] - roll[g]
        best, action = _best_ending(g, p, m, left, bits[q], filled, cells, consts, tables, lin, num)
        actions[i] = action
        if must or not may_roll or planned:  # the plan, if any, says stop
            continue
        _queue_turn(q, g, p, m, left, best, target, state, consts, tables, queue, ends, lin, num)
        if win.shape[0]:
            win_utility(queue.options[q], queue.pure[q], left + 1, win[i], lin, num)
        queue.owner[q] = i
        n_queued += 1
        if n_queued == BLOCK:
            _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, lanes, work)
            n_queued = 0
    _plan_queued(n_queued, games, state, consts, tables, plans, actions, queue, lanes, work)


@njit(cache=True, parallel=True)
def search_games(games, state, consts, tables, plan_keep, plan_turn_id, plan_target, column_key, column_lin,
                 column_num, actions, adjust, win, n_chunks):
    """The search of every game, in chunks (the ``Plans`` arrays come one by one: a parallel loop
    may lose writes to arrays unpacked from a tuple, see ``yamb.kernels``); ``win``: as
    ``_search_range`` takes it, (0, 0) to search for points."""
    for chunk in prange(n_chunks):
        start = chunk * len(games) // n_chunks
        stop = (chunk + 1) * len(games) // n_chunks
        plans = Plans(plan_keep, plan_turn_id, plan_target, column_key, column_lin, column_num)
        _search_range(start, stop, games, state, consts, tables, plans, actions, adjust, win)
