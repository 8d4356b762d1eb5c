"""Optimal play of one ``announce`` column of a Yamb table alone, exactly.

Every turn of an announce column played alone announces one of its open rows
right after the first roll, and the rest of the turn (two more rolls, or the
preset's ``last_turn_rolls`` minus one on the column's last turn) aims at
that row alone; the turn may stop after any roll, and the cell scores the
final dice. The state at the start of a turn is the free column's
(``expected_scores.free_column``: filled rows, the capped numbers sum, what
the difference still needs) with the same points and transitions, so the
values share its layout and ``FreeColumnSolution`` answers for both. Only
the turn differs: a free column's turn ends in the best row for the final
dice, an announce column's turn in the row chosen after the first roll,

    V(state) = sum over first rolls m of P(m) * max over open rows r of W_r(m),

``W_r(m)`` the value of holding ``m`` and playing the rest of the turn for
row ``r``, each final score worth its points plus the next state's value.
Where that value is the row's score plus a constant (a collection row), the
turn is the row played alone (``turn.row_plan``); where it rises with the
count of a face (a number row, whatever the bonus), keeping every die of
the face is optimal and the count after ``k`` rerolls is binomial; otherwise
(``max``, ``min``, ``ones`` when the difference can fall) the turn is planned
(``turn.plan_one``). A number row whose value does not rise is planned too.

jamb6's pure hands cannot fill an announce column played alone: with only
announce cells open the player must announce.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from expected_scores.free_column import FreeColumnSolution, solve_by_levels
from expected_scores.turn import plan_one, row_plan
from yamb.dice import FACES
from yamb.rules import N_NUMBER_ROWS, Rules

LEVELS = 6  # a number row scores 0 to 5 dice of its face


@cache
def face_levels(rules: Rules, rolls: int) -> np.ndarray:
    """(M, 6, LEVELS): probability that the face's count ends at each level (at most 5) after
    ``rolls - 1`` rerolls from multiset ``m``, every die of the face kept and the others rerolled."""
    n = rules.n_dice
    hit = 1.0 - (5 / 6) ** (rolls - 1)  # a rerolled die shows the face by the last roll
    counts = rules.dice.multisets  # (M, 6) dice of each face
    out = np.zeros((len(counts), FACES, LEVELS))
    for m, held in enumerate(counts):
        for f in range(FACES):
            c = int(held[f])
            for extra in range(n - c + 1):
                p = comb(n - c, extra) * hit**extra * (1 - hit) ** (n - c - extra)
                out[m, f, min(c + extra, LEVELS - 1)] += p
    return out


@cache
def row_turns(rules: Rules, rolls: int) -> np.ndarray:
    """(R, M): expected score of each row played alone for its score, holding ``m`` after the
    first of ``rolls`` rolls."""
    return np.ascontiguousarray(row_plan(rules, rolls).value[0])


class AnnounceTables(NamedTuple):
    """What an announce column's turn reads besides the fill table (``_announce_turn``'s ``extra``)."""

    row_turn: np.ndarray  # (R, M) ``row_turns``
    levels: np.ndarray  # (M, 6, LEVELS) ``face_levels``
    pass_cost: float  # of passing a turn after its first roll (``inf``: never passed)


@njit(cache=True)
def _announce_turn(mask, work, model, rows, dice, extra):
    """An announce column's turn (``column_levels.solve_level``'s ``turn``): the best open row to
    announce after each first roll, the turn passed where that is worth more (``_with_passes``)."""
    table, top, options, value = work.table, work.top, work.options, work.value
    distinct, score_index, spread_of = rows.distinct, rows.score_index, model.spread_of
    row_turn, levels = extra.row_turn, extra.levels
    n_multisets = score_index.shape[0]
    top[:] = -np.inf
    for r in range(rows.n_rows):
        if (mask >> r) & 1:
            continue
        rising = r < N_NUMBER_ROWS
        if rising:
            for k in range(1, LEVELS):
                rising = rising and table[r, k] >= table[r, k - 1]
        if r >= N_NUMBER_ROWS and spread_of[r] < 0:  # score plus a constant
            shift = table[r, 0] - distinct[r, 0]
            for m in range(n_multisets):
                top[m] = max(top[m], row_turn[r, m] + shift)
        elif rising:
            for m in range(n_multisets):
                w = 0.0
                for k in range(LEVELS):
                    w += levels[m, r, k] * table[r, k]
                top[m] = max(top[m], w)
        else:
            for m in range(n_multisets):
                options[0, 0, m] = table[r, score_index[m, r]]
            plan_one(options, work.no_pure, 0, dice.add_die, dice.remove_die, dice.first_prob, value, work.keep,
                     work.kv, work.best, work.arg)
            for m in range(n_multisets):
                top[m] = max(top[m], value[0, 0, m])
    return _with_passes(top, dice.first_prob, extra.pass_cost)


@njit(cache=True)
def _with_passes(top, prob, pass_cost):
    """``V = sum_m prob[m] * max(top[m], V - pass_cost)``: the value of a turn worth ``top[m]`` after
    first roll ``m`` that may instead be passed, at ``pass_cost``, for another (``inf``: never passed)."""
    v = 0.0
    for m in range(len(top)):
        v += prob[m] * top[m]
    if pass_cost == np.inf:
        return v
    order = np.argsort(top)
    low = 0.0  # the chance of the rolls passed (the lowest tops)
    high = v  # sum of prob * top over the others
    for j in range(len(order)):
        m = order[j]
        if top[m] >= v - pass_cost:
            break
        low += prob[m]
        high -= prob[m] * top[m]
        v = (high - pass_cost * low) / (1.0 - low)
    return v


def solve_announce_column(rules: Rules, filled: int = 0, pass_cost: float = np.inf) -> FreeColumnSolution:
    """Solve an announce column of ``rules`` alone, exactly (``filled``: only the endgame whose
    filled rows include it, as ``solve_free_column``). With a finite ``pass_cost`` a turn may be
    passed after its first roll (see ``_with_passes``)."""
    return solve_by_levels(rules, filled, _announce_turn, lambda rolls: AnnounceTables(
        row_turns(rules, rolls), face_levels(rules, rolls), float(pass_cost)))
