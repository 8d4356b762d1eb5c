"""Optimal play of one any-order (``free``) column of a Yamb table alone, exactly.

A state is met at the start of a turn: ``mask``, the filled rows; ``upper``,
the numbers sum capped at the bonus threshold; and ``aux``, what the
difference row (``Rules.column_totals``: ones x (max - min), clamped at 0 in
jamb6) still needs of the filled rows among ``ones``, ``max`` and ``min``:

- one of them filled: its score;
- two filled: a class of the pairs whose future difference, as a function of
  the third score, is the same (pairs of equal future are merged, as
  ``ordered_column`` does);
- none or all three: nothing.

When the difference is *separable*, ``D(o, M, m) = f(o, M) + g(o, m)`` (the
standard ``ones x (max - min)``), the part a pair decides is earned when the
pair is complete, so ``ones`` with ``max`` (or with ``min``) keeps only the
ones score: 6 classes instead of 131. Points are counted when earned (a cell's
score, the bonus when the capped sum reaches the threshold, the difference's
parts); ``max`` and ``min`` count only through the difference. The turn that
fills the column's last cell has the preset's ``last_turn_rolls`` (5 in
jamb6), as the column played alone ends the game.

``values`` is one flat array: pattern ``p`` (bit 0 ones, 1 max, 2 min filled)
holds ``(2**(R-3), threshold + 1, n_aux[p])`` states from ``offset[p]``; the
other rows' mask is ``rest``. Unreachable states hold NaN. Yatzy-like rules
without a difference solve as one pattern (the test compares them with
``solitaire``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
from numba import njit, prange

from expected_scores.column_levels import ColumnArrays, fill_table, level_masks, row_tables, solve_level, turn_dice
from expected_scores.turn import plan_one
from expected_scores.upper_sum import capped_upper, reachable_upper
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.rules import Rules

SPREAD_NAMES = ("ones", "max", "min")


@dataclass(frozen=True, eq=False)
class FreeColumnModel:
    """The state space of one free column of ``rules``: masks split into pattern and rest, the
    difference's transitions and credits, and which states are reachable."""

    rules: Rules
    spread: np.ndarray  # (3,) rows of ones, max, min; (0,) without a difference
    pattern: np.ndarray  # (2**R,) pattern of each mask
    rest: np.ndarray  # (2**R,) the mask without the spread rows, packed
    n_aux: np.ndarray  # (8,) aux values of each pattern
    offset: np.ndarray  # (9,) start of each pattern's block in ``values``
    aux_ok: np.ndarray  # (8, A) bool: reachable aux values of each pattern
    next_aux: np.ndarray  # (8, A, 3, S) aux after filling spread row j with score s
    credit: np.ndarray  # (8, A, 3, S) points of the difference earned by that fill
    pair_class: np.ndarray  # (8, S, S) class of two known scores (in row order) of a pair pattern
    separable: bool

    @property
    def n_upper(self) -> int:
        return self.rules.spec.bonus_threshold + 1

    @cached_property
    def arrays(self) -> ColumnArrays:
        """The model as the kernels read it."""
        spread_of = np.full(self.rules.n_rows, -1, dtype=np.int64)
        spread_of[self.spread] = np.arange(len(self.spread))
        return ColumnArrays(self.pattern, self.rest, self.n_aux, self.offset, self.aux_ok, self.next_aux,
                            self.credit, spread_of)

    def index(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray) -> np.ndarray:
        """Flat indices of states into ``values``."""
        p = self.pattern[mask]
        return self.offset[p] + (self.rest[mask] * self.n_upper + upper) * self.n_aux[p] + aux


def _difference(rules: Rules, span: int) -> np.ndarray:
    """(6, span, span): the difference row by ones, max and min scores (``Rules.column_totals``)."""
    grid = np.indices((6, span, span)).reshape(3, -1).T
    cells = np.zeros((len(grid), rules.n_rows), dtype=np.int32)
    cells[:, [rules.row_index(n) for n in SPREAD_NAMES]] = grid
    return rules.column_totals(cells)["difference"].reshape(6, span, span).astype(np.float64)


def check_free_column(rules: Rules) -> None:
    """Nothing when the free-column solver handles ``rules``, else a precise error."""
    if rules.has_jokers:
        raise YambError(f"the free-column solver does not handle {rules.name}'s jokers; use solve_solitaire")


@cache
def free_column_model(rules: Rules) -> FreeColumnModel:
    """The model of ``rules``' free column (computed once per process)."""
    check_free_column(rules)
    n_rows = rules.n_rows
    size = 1 << n_rows
    masks = np.arange(size)
    if rules.spec.difference is None:
        n_aux = np.array([1] + [0] * 7)
        shape = (8, 1, 3, 1)
        return FreeColumnModel(rules, np.zeros(0, dtype=np.int64), np.zeros_like(masks), masks.copy(), n_aux,
                               _offsets(n_aux, size, rules), np.ones((8, 1), dtype=bool),
                               np.zeros(shape, dtype=np.int64), np.zeros(shape), np.zeros((8, 1, 1), dtype=np.int64),
                               False)
    spread = np.array([rules.row_index(n) for n in SPREAD_NAMES])
    pattern = sum(((masks >> r) & 1) << j for j, r in enumerate(spread))
    others = [r for r in range(n_rows) if r not in spread]
    rest = sum(((masks >> r) & 1) << j for j, r in enumerate(others))
    values = [np.unique(rules.scores[:, r]).astype(np.int64) for r in spread]  # the scores each can take
    span = int(max(v.max() for v in values)) + 1
    diff = np.zeros((span, span, span))
    diff[:6] = _difference(rules, span)  # [ones, max, min]
    m0, hi0 = values[2][0], values[1][0]
    f = diff[:, :, m0]  # f(o, M) = D(o, M, m0)
    g = diff[:, hi0, :] - diff[:, hi0, m0][:, None]  # g(o, m) = D(o, M0, m) - D(o, M0, m0)
    reach = np.ix_(*values)
    separable = bool(np.allclose(diff[reach], (f[:, :, None] + g[:, None, :])[reach]))
    # each pair of known scores (in row order): what it earns now, and the rest as a function of the third
    cube = (span, span, span)
    zero = np.zeros((span, span))
    if separable:
        now = {0b011: f, 0b101: g, 0b110: zero}
        future = {0b011: np.broadcast_to(g[:, None, :], cube), 0b101: np.broadcast_to(f[:, None, :], cube)}
    else:
        now = {0b011: zero, 0b101: zero, 0b110: zero}
        future = {0b011: diff, 0b101: diff.transpose(0, 2, 1)}
    future[0b110] = diff.transpose(1, 2, 0)
    n_aux = np.ones(8, dtype=np.int64)
    classes = {}
    for p in PAIRS:
        j, k, miss = _pair(p)
        rows = future[p][np.ix_(values[j], values[k], values[miss])].reshape(len(values[j]) * len(values[k]), -1)
        _, cls = np.unique(rows, axis=0, return_inverse=True)
        classes[p] = np.full((span, span), -1, dtype=np.int64)
        classes[p][np.ix_(values[j], values[k])] = cls.reshape(len(values[j]), len(values[k]))
        n_aux[p] = cls.max() + 1
    for j in range(3):
        n_aux[1 << j] = span
    width = int(n_aux.max())
    aux_ok = np.zeros((8, width), dtype=bool)
    aux_ok[0, 0] = aux_ok[7, 0] = True
    for j in range(3):
        aux_ok[1 << j, values[j]] = True
    for p in PAIRS:
        aux_ok[p, : n_aux[p]] = True
    next_aux = np.zeros((8, width, 3, span), dtype=np.int64)
    credit = np.zeros((8, width, 3, span))
    for p in range(7):
        for a in np.flatnonzero(aux_ok[p]):
            for j in range(3):
                if p >> j & 1:
                    continue
                q = p | 1 << j
                for s in values[j]:
                    if p == 0:  # the first of the three: remember its score
                        next_aux[p, a, j, s] = s
                    elif p in PAIRS:  # the third: the rest of the difference
                        x, y = np.argwhere(classes[p] == a)[0]
                        credit[p, a, j, s] = future[p][x, y, s]
                    else:  # the second: the pair's class, and what the pair earns now
                        x, y = (a, s) if p < (1 << j) else (s, a)
                        next_aux[p, a, j, s] = classes[q][x, y]
                        credit[p, a, j, s] = now[q][x, y]
    pair_class = np.zeros((8, span, span), dtype=np.int64)
    for p in PAIRS:
        pair_class[p] = classes[p]
    return FreeColumnModel(rules, spread, pattern, rest, n_aux, _offsets(n_aux, 1 << len(others), rules), aux_ok,
                           next_aux, credit, pair_class, separable)


PAIRS = (0b011, 0b101, 0b110)


def _pair(p: int) -> tuple[int, int, int]:
    """The two known spread rows of pair pattern ``p`` (in row order) and the missing one."""
    known = [j for j in range(3) if p >> j & 1]
    return known[0], known[1], 3 - known[0] - known[1]


def _offsets(n_aux: np.ndarray, n_rest: int, rules: Rules) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(n_aux * n_rest * (rules.spec.bonus_threshold + 1))]).astype(np.int64)


@njit(cache=True, parallel=True)
def _fill_batch(mask, upper, aux, values, model, rows, out):
    """``out[i]`` (R, K): the fill table of state ``i`` (rows already filled: -inf)."""
    for i in prange(len(mask)):
        out[i] = -np.inf
        fill_table(mask[i], upper[i], aux[i], values, model, rows, out[i])


@njit(cache=True)
def _free_turn(mask, work, model, rows, dice, extra):
    """A free column's turn (``column_levels.solve_level``'s ``turn``): the final dice fill the best open row."""
    table, options, score_index = work.table, work.options, rows.score_index
    for m in range(score_index.shape[0]):
        top = -np.inf
        for r in range(rows.n_rows):
            if not (mask >> r) & 1:
                top = max(top, table[r, score_index[m, r]])
        options[0, 0, m] = top
    return plan_one(options, work.no_pure, 0, dice.add_die, dice.remove_die, dice.first_prob, work.value,
                    work.keep, work.kv, work.best, work.arg)


@dataclass(frozen=True)
class FreeColumnSolution:
    """Solved values of one free column and what a player needs."""

    rules: Rules
    values: np.ndarray  # flat, see the module's docstring; NaN where unreachable or not solved
    seconds: float
    states: int

    @property
    def model(self) -> FreeColumnModel:
        return free_column_model(self.rules)

    @property
    def expected_score(self) -> float:
        return float(self.values[self.model.index(np.array([0]), np.array([0]), np.array([0]))[0]])

    def state(self, filled: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mask, upper, aux) of columns with filled-row masks ``filled`` (n,) and ``cells`` (n, R)."""
        m = self.model
        mask = np.asarray(filled, dtype=np.int64)
        cells = np.asarray(cells, dtype=np.int64)
        upper = capped_upper(self.rules, cells)
        aux = np.zeros(len(mask), dtype=np.int64)
        if len(m.spread):
            p = m.pattern[mask]
            known = cells[:, m.spread]  # open cells hold 0
            for j in range(3):
                single = p == 1 << j
                aux[single] = known[single, j]
            for q in PAIRS:
                j, k, _ = _pair(q)
                pair = p == q
                aux[pair] = m.pair_class[q, known[pair, j], known[pair, k]]
        return mask, upper, aux

    def value(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray) -> np.ndarray:
        """Expected points still to come from states at the start of a turn."""
        return self.values[self.model.index(mask, upper, aux)]

    def state_of(self, batch: GameBatch, games: np.ndarray, column: int = 0) -> tuple[np.ndarray, ...]:
        """(mask, upper, aux) of column ``column`` of the player to move in each of ``games``."""
        p = batch.player[games]
        return self.state(batch.filled[games, p, column], batch.cells[games, p, column])

    def fill_tables(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray) -> np.ndarray:
        """(n, R, K): points plus next value of filling each open row with each of its distinct scores
        (``Rules.scores``' distinct values of the row, ascending); -inf for filled rows and padding."""
        rows = row_tables(self.rules)
        out = np.empty((len(mask), self.rules.n_rows, rows.distinct.shape[1]))
        _fill_batch(*(np.asarray(x, dtype=np.int64) for x in (mask, upper, aux)), self.values,
                    self.model.arrays, rows, out)
        return out

    def turn_options(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray) -> np.ndarray:
        """(n, M): value of ending the turn with each multiset (its best fill), for ``plan_turn``."""
        return self._by_multiset(self.fill_tables(mask, upper, aux)).max(axis=2)

    def fill_values(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """(n, R): value of filling each row with multiset ``dice``; -inf for filled rows."""
        table = self.fill_tables(mask, upper, aux)
        index = row_tables(self.rules).score_index[np.asarray(dice, dtype=np.int64)]  # (n, R)
        return np.take_along_axis(table, index[:, :, None], axis=2)[:, :, 0]

    def _by_multiset(self, table: np.ndarray) -> np.ndarray:
        """(n, M, R) from (n, R, K) fill tables."""
        index = row_tables(self.rules).score_index  # (M, R)
        return table[:, np.arange(self.rules.n_rows)[None, :], index]


def solve_free_column(rules: Rules, filled: int = 0) -> FreeColumnSolution:
    """Solve a free column of ``rules`` alone, exactly.

    With ``filled`` (a row bitmask) only the states whose filled rows include it
    are solved (an endgame); the others stay NaN.
    """
    return solve_by_levels(rules, filled, _free_turn, lambda rolls: ())


def solve_by_levels(rules: Rules, filled: int, turn: Callable[..., float],
                    extra_of: Callable[[int], tuple]) -> FreeColumnSolution:
    """The values of every state of the free-column model, level by level from the full column back.

    ``turn`` values a state's turn from its fill table (``column_levels.solve_level``'s, as
    ``_free_turn``), reading ``extra_of(rolls)`` besides; ``filled`` as in ``solve_free_column``.
    """
    start = time.perf_counter()
    m = free_column_model(rules)
    n_rows = rules.n_rows
    values = np.full(int(m.offset[-1]), np.nan)
    full = (1 << n_rows) - 1
    upper = np.arange(m.n_upper)
    values[m.index(np.full(m.n_upper, full), upper, np.zeros(m.n_upper, dtype=np.int64))] = 0.0
    reach = reachable_upper(rules)
    model, rows, dice = m.arrays, row_tables(rules), turn_dice(rules)
    states = 0
    for level, masks in level_masks(n_rows, filled):
        rolls = rules.spec.last_turn_rolls if level == n_rows - 1 else rules.rolls
        states += solve_level(turn, masks, values, model, rows, reach, dice, rolls, extra_of(rolls))
    return FreeColumnSolution(rules=rules, values=values, seconds=time.perf_counter() - start, states=states)
