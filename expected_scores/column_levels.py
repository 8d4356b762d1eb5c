"""The level loop of the exact column solvers, and the kernel interface of the any-order columns.

Every solver values its states from the full column back to the empty one,
one level (the masks with as many filled rows) at a time: ``level_masks``.
The any-order columns (``free_column``, ``announce_column``) share the rest
of the loop, ``solve_level``: each mask of a level in parallel, each of its
reachable ``(upper, aux)`` states (``level_states``) in turn, the state's
fill table (``fill_table``: every open row's points plus the next state's
value, by the row's distinct scores), then the solver's own turn over that
table, whose value is the state's.

The kernels read ``FreeColumnModel`` as ``ColumnArrays``, the rows' scores
as ``RowTables`` and the dice as ``TurnDice``, and a turn works in
``TurnWork``'s arrays, made once per mask.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from yamb.rules import N_NUMBER_ROWS, Rules


class ColumnArrays(NamedTuple):
    """``FreeColumnModel``'s arrays as the kernels read them (each field as the model's), and ``spread_of``."""

    pattern: np.ndarray
    rest: np.ndarray
    n_aux: np.ndarray
    offset: np.ndarray
    aux_ok: np.ndarray
    next_aux: np.ndarray
    credit: np.ndarray
    spread_of: np.ndarray  # (R,) each row's place among ones, max and min; -1 for the others


class RowTables(NamedTuple):
    """Each row's distinct scores, and the rules' numbers bonus."""

    distinct: np.ndarray  # (R, K) int64: each row's distinct scores, ascending, padded with 0
    n_distinct: np.ndarray  # (R,) how many each row has
    score_index: np.ndarray  # (M, R) index of each multiset's score among its row's distinct scores
    n_rows: int
    threshold: int  # of the numbers bonus
    bonus: int


class TurnDice(NamedTuple):
    """The dice tables a turn is planned with (``DiceTables``' arrays, ``turn.plan_one``'s arguments)."""

    add_die: np.ndarray  # (K, 6)
    remove_die: np.ndarray  # (K, 6)
    first_prob: np.ndarray  # (M,) probability of each multiset on a first roll


class TurnWork(NamedTuple):
    """The arrays one state's turn works in (``turn.plan_one``'s of one batch item, ``b = 0``)."""

    table: np.ndarray  # (R, K) the state's fill table
    top: np.ndarray  # (M,) the value of each first roll
    options: np.ndarray  # (1, 1, M)
    no_pure: np.ndarray  # (0, 1, 1): no pure hands
    value: np.ndarray  # (rolls, 1, M)
    keep: np.ndarray  # (rolls, 1, M) int16
    kv: np.ndarray  # (K,)
    best: np.ndarray  # (K,)
    arg: np.ndarray  # (K,) int32


@cache
def row_tables(rules: Rules) -> RowTables:
    """The ``RowTables`` of ``rules`` (computed once per process)."""
    distinct = [np.unique(rules.scores[:, r]).astype(np.int64) for r in range(rules.n_rows)]
    width = max(len(d) for d in distinct)
    table = np.zeros((rules.n_rows, width), dtype=np.int64)
    index = np.zeros(rules.scores.shape, dtype=np.int64)
    for r, d in enumerate(distinct):
        table[r, : len(d)] = d
        index[:, r] = np.searchsorted(d, rules.scores[:, r])
    spec = rules.spec
    return RowTables(table, np.array([len(d) for d in distinct]), index, rules.n_rows, spec.bonus_threshold,
                     spec.bonus)


def turn_dice(rules: Rules) -> TurnDice:
    """The ``TurnDice`` of ``rules``."""
    dice = rules.dice
    return TurnDice(dice.add_die, dice.remove_die, dice.outcome_prob[0])


def level_masks(n_rows: int, filled: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(level, masks)`` from the last level to solve (``n_rows - 1`` filled rows) back to the
    empty column: the masks (int64) of ``level`` filled rows that include the rows of ``filled``."""
    every = np.arange(1 << n_rows)
    popcount = np.array([bin(k).count("1") for k in range(1 << n_rows)])
    for level in range(n_rows - 1, -1, -1):
        yield level, np.flatnonzero((popcount == level) & (every & filled == filled)).astype(np.int64)


@njit(cache=True)
def state_index(model, n_upper, mask, u, a):
    """Index of state ``(mask, u, a)`` into the flat ``values`` (``FreeColumnModel.index``)."""
    p = model.pattern[mask]
    return model.offset[p] + (model.rest[mask] * n_upper + u) * model.n_aux[p] + a


@njit(cache=True)
def fill_table(mask, u, a, values, model, rows, table):
    """``table[r, d]``: points earned by filling open row ``r`` with its ``d``-th distinct score from
    state ``(mask, u, a)``, plus the next state's value."""
    pattern, next_aux, credit, spread_of = model.pattern, model.next_aux, model.credit, model.spread_of
    distinct, n_distinct, threshold, bonus = rows.distinct, rows.n_distinct, rows.threshold, rows.bonus
    n_upper = threshold + 1
    p = pattern[mask]
    for r in range(rows.n_rows):
        if (mask >> r) & 1:
            continue
        nxt = mask | (1 << r)
        j = spread_of[r]
        for d in range(n_distinct[r]):
            s = distinct[r, d]
            points = 0.0
            nu = u
            na = a
            if r < N_NUMBER_ROWS:
                nu = min(threshold, u + s)
                points += s + (bonus if u < threshold <= u + s else 0)
            elif j < 0:
                points += s
            if j >= 0:
                na = next_aux[p, a, j, s]
                points += credit[p, a, j, s]
            table[r, d] = points + values[state_index(model, n_upper, nxt, nu, na)]


@njit(cache=True)
def level_states(mask, model, reach_upper, n_upper):
    """(n, 2) the reachable ``(upper, aux)`` of filled rows ``mask``."""
    n_aux, aux_ok = model.n_aux, model.aux_ok
    p = model.pattern[mask]
    states = np.empty((n_upper * n_aux[p], 2), dtype=np.int64)
    n = 0
    for u in range(n_upper):
        if reach_upper[mask & 63, u]:
            for a in range(n_aux[p]):
                if aux_ok[p, a]:
                    states[n, 0] = u
                    states[n, 1] = a
                    n += 1
    return states[:n]


@njit(cache=True)
def turn_work(rows, dice, rolls):
    """New ``TurnWork`` for turns of ``rolls`` rolls."""
    n_multisets, n_keeps = rows.score_index.shape[0], dice.add_die.shape[0]
    return TurnWork(np.empty((rows.n_rows, rows.distinct.shape[1])), np.empty(n_multisets),
                    np.empty((1, 1, n_multisets)), np.empty((0, 1, 1)), np.empty((rolls, 1, n_multisets)),
                    np.empty((rolls, 1, n_multisets), dtype=np.int16), np.empty(n_keeps), np.empty(n_keeps),
                    np.empty(n_keeps, dtype=np.int32))


@njit(cache=True, parallel=True)
def solve_level(turn, masks, values, model, rows, reach_upper, dice, rolls, extra):
    """Value every reachable state of each mask in ``masks`` (one level); returns how many.

    ``turn(mask, work, model, rows, dice, extra)``: the value at the start of a turn of a state of
    filled rows ``mask`` whose fill table is ``work.table`` (``extra``: what else the solver's
    turn reads).
    """
    n_upper = rows.threshold + 1
    counts = np.zeros(len(masks), dtype=np.int64)
    for i in prange(len(masks)):
        mask = masks[i]
        states = level_states(mask, model, reach_upper, n_upper)
        work = turn_work(rows, dice, rolls)
        for b in range(len(states)):
            u, a = states[b, 0], states[b, 1]
            fill_table(mask, u, a, values, model, rows, work.table)
            values[state_index(model, n_upper, mask, u, a)] = turn(mask, work, model, rows, dice, extra)
        counts[i] = len(states)
    return counts.sum()
