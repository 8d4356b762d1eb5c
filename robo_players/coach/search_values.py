"""A search player's values of every action at a decision: the endings now, the keeps by its turn plan.

The values are the search's own (``robo_players.search``): an ending (a fill, an announcement)
is worth the change it makes to the estimated final total, corrected as the player corrects it;
a keep is worth the expected value, over the dice it rolls, of the turn's plan from there (the
plan the search makes, ``_queue_turn`` and ``plan_slots``; rerolling every die also opens a pure
hand's fills where the rules have them); the best of them is what the search plays. ``estimates`` gives the estimated final total the values are changes of.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from expected_scores.turn import _keep_values
from robo_players.search.cell_values import ONE, column_estimate
from robo_players.search.correction import corrected_values
from robo_players.search.lanes import new_lanes, new_queue, plan_slots
from robo_players.search.turn import _best_ending, _queue_turn, new_work
from robo_players.search.values import announce_value, fill_value
from yamb import kernels


@njit(cache=True)
def action_values(games, state, consts, tables, adjust, out):
    """``out[i, a]``: the search's value of each legal ending ``a`` of ``games[i]``'s turn now and,
    when it may roll, of every keep (legal or not: the caller masks them); cell values corrected
    by row ``i`` of ``adjust`` (a ``Correction``). Other entries are left as they are."""
    filled, cells, dice, player = state.filled, state.cells, state.dice, state.player
    n_cols, n_rows = consts.order.shape[0], consts.n_rows
    n_cells, n_keeps = n_cols * n_rows, len(consts.keep_size)
    n_multisets = tables.levels.shape[0]
    rolls = max(consts.rolls, consts.last_turn_rolls)
    work = new_work(n_cols, n_rows, 1)
    lin, num, bits = work.lin, work.num, work.bits
    queue = new_queue(rolls, n_multisets, consts.pure_hand)
    lanes = new_lanes(rolls, n_multisets, n_keeps, consts.pure_hand)
    after_roll = np.empty((1, 1, n_multisets))
    kv = np.empty(n_keeps)
    for i in range(len(games)):
        g = games[i]
        p, m = player[g], dice[g]
        must, may_roll = kernels.decide(state, consts, g, bits, 0)
        corrected_values(filled, cells, g, p, tables, adjust, i, lin, num)
        left = state.rolls_allowed[g] - state.roll[g]
        for c in range(n_cols):
            own = filled[g, p, c]
            yamb_cell = cells[g, p, c, consts.yz_row] if consts.has_jokers else 0
            for r in range(n_rows):
                if (bits[0, 0, c] >> np.uint32(r)) & ONE:
                    out[i, c * n_rows + r] = fill_value(c, r, m, own, consts.scores, consts.joker_scores,
                                                        consts.five_face, consts.has_jokers, tables.params,
                                                        yamb_cell, tables.levels, lin, num)
                if (bits[0, 1, c] >> np.uint32(r)) & ONE:
                    out[i, n_cells + n_keeps + c * n_rows + r] = announce_value(
                        c, r, m, left, tables.sign, tables.row_value, tables.reach, lin, num)
        if must or not may_roll:
            continue
        best, _ = _best_ending(g, p, m, left, bits[0], filled, cells, consts, tables, lin, num)
        target = state.announced[g] if state.announced[g] >= 0 else state.answer[g]
        _queue_turn(0, g, p, m, left, best, target, state, consts, tables, queue, work.ends, lin, num)
        lanes.slot[0] = 0
        lanes.hands[0] = m
        value, _ = plan_slots(queue, lanes, 1, left + 1, True, tables, consts.sub_keeps)
        for h in range(n_multisets):
            after_roll[0, 0, h] = value[1, h, 0]
        _keep_values(after_roll, 0, 0, tables.add_die, n_keeps - n_multisets, kv)
        if consts.pure_hand:  # rerolling every die makes the hand pure (as ``plan_one`` values it)
            s = 0.0
            for h in range(n_multisets):
                s += tables.first_prob[h] * max(value[1, h, 0], max(queue.options[0, 1, h], queue.pure[0, 1, h]))
            kv[0] = s
        for k in range(n_keeps):
            out[i, n_cells + k] = kv[k]


@njit(cache=True)
def estimates(games, state, tables, extra_bonus, out):
    """``out[i]``: the estimated final total of ``games[i]``'s player to move (``column_totals``)."""
    column_totals(games, state.player[games], state, tables, extra_bonus, out)


@njit(cache=True)
def column_totals(games, players, state, tables, extra_bonus, out):
    """``out[i]``: the estimated final total of player ``players[i]`` of ``games[i]`` (``column_estimate``
    of each column, and the extra-Yahtzee bonuses earned)."""
    filled, cells = state.filled, state.cells
    for i in range(len(games)):
        g, p = games[i], players[i]
        total = extra_bonus * state.bonuses[g, p]
        for c in range(filled.shape[2]):
            total += column_estimate(filled, cells, g, p, c, tables.expected, tables.variance, tables.bonus_levels,
                                     tables.level_score, tables.params)
        out[i] = total
