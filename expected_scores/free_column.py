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
from functools import cache

import numpy as np
from numba import njit, prange

from expected_scores.solitaire import reachable_upper
from expected_scores.turn import plan_one
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.rules import N_NUMBER_ROWS, Rules

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


@cache
def free_column_model(rules: Rules) -> FreeColumnModel:
    """The model of ``rules``' free column (computed once per process)."""
    if rules.has_jokers:
        raise YambError(f"the free-column solver does not handle {rules.name}'s jokers; use solve_solitaire")
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


@njit(cache=True)
def _fill_table(mask, u, a, values, model, rows, table):
    """``table[r, d]``: points earned by filling open row ``r`` with its ``d``-th distinct score from
    state ``(mask, u, a)``, plus the next state's value."""
    pattern, rest, n_aux, offset, aux_ok, next_aux, credit, spread_of = model
    distinct, n_distinct, score_index, n_rows, threshold, bonus = rows
    n_upper = threshold + 1
    p = pattern[mask]
    for r in range(n_rows):
        if (mask >> r) & 1:
            continue
        nxt = mask | (1 << r)
        q = pattern[nxt]
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
            table[r, d] = points + values[offset[q] + (rest[nxt] * n_upper + nu) * n_aux[q] + na]


@njit(cache=True, parallel=True)
def _fill_batch(mask, upper, aux, values, model, rows, out):
    """``out[i]`` (R, K): the fill table of state ``i`` (rows already filled: -inf)."""
    for i in prange(len(mask)):
        out[i] = -np.inf
        _fill_table(mask[i], upper[i], aux[i], values, model, rows, out[i])


@njit(cache=True)
def level_states(mask, model, reach_upper, n_upper):
    """(n, 2) the reachable ``(upper, aux)`` of filled rows ``mask``."""
    pattern, n_aux, aux_ok = model[0], model[2], model[4]
    p = pattern[mask]
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


@njit(cache=True, parallel=True)
def _solve_level(masks, values, model, rows, reach_upper, dice, rolls):
    """Value every reachable state of each mask in ``masks`` (one level); returns how many."""
    pattern, n_aux = model[0], model[2]
    distinct, score_index, n_rows, threshold = rows[0], rows[2], rows[3], rows[4]
    add_die, remove_die, first_prob = dice
    n_upper = threshold + 1
    n_multisets = score_index.shape[0]
    n_keeps = add_die.shape[0]
    counts = np.zeros(len(masks), dtype=np.int64)
    no_pure = np.empty((0, 1, 1))
    for i in prange(len(masks)):
        mask = masks[i]
        p = pattern[mask]
        states = level_states(mask, model, reach_upper, n_upper)
        n = len(states)
        options = np.empty((1, n, n_multisets))
        value = np.empty((rolls, n, n_multisets))
        keep = np.empty((rolls, n, n_multisets), dtype=np.int16)
        kv = np.empty(n_keeps)
        best = np.empty(n_keeps)
        arg = np.empty(n_keeps, dtype=np.int32)
        table = np.empty((n_rows, distinct.shape[1]))
        for b in range(n):
            u, a = states[b, 0], states[b, 1]
            _fill_table(mask, u, a, values, model, rows, table)
            for m in range(n_multisets):
                top = -np.inf
                for r in range(n_rows):
                    if not (mask >> r) & 1:
                        top = max(top, table[r, score_index[m, r]])
                options[0, b, m] = top
            values[model[3][p] + (model[1][mask] * n_upper + u) * n_aux[p] + a] = plan_one(
                options, no_pure, b, add_die, remove_die, first_prob, value, keep, kv, best, arg)
        counts[i] = n
    return counts.sum()


@cache
def _row_tables(rules: Rules) -> tuple:
    """Each row's distinct scores (R, K), their number, each multiset's score index (M, R)."""
    distinct = [np.unique(rules.scores[:, r]).astype(np.int64) for r in range(rules.n_rows)]
    width = max(len(d) for d in distinct)
    table = np.zeros((rules.n_rows, width), dtype=np.int64)
    index = np.zeros(rules.scores.shape, dtype=np.int64)
    for r, d in enumerate(distinct):
        table[r, : len(d)] = d
        index[:, r] = np.searchsorted(d, rules.scores[:, r])
    spec = rules.spec
    return (table, np.array([len(d) for d in distinct]), index, rules.n_rows, spec.bonus_threshold, spec.bonus)


def _kernel_model(m: FreeColumnModel) -> tuple:
    spread_of = np.full(m.rules.n_rows, -1, dtype=np.int64)
    spread_of[m.spread] = np.arange(len(m.spread))
    return (m.pattern, m.rest, m.n_aux, m.offset, m.aux_ok, m.next_aux, m.credit, spread_of)


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
        upper = np.minimum(cells[:, :N_NUMBER_ROWS].sum(axis=1), self.rules.spec.bonus_threshold)
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
        rows = _row_tables(self.rules)
        out = np.empty((len(mask), self.rules.n_rows, rows[0].shape[1]))
        _fill_batch(*(np.asarray(x, dtype=np.int64) for x in (mask, upper, aux)), self.values,
                    _kernel_model(self.model), rows, out)
        return out

    def turn_options(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray) -> np.ndarray:
        """(n, M): value of ending the turn with each multiset (its best fill), for ``plan_turn``."""
        return self._by_multiset(self.fill_tables(mask, upper, aux)).max(axis=2)

    def fill_values(self, mask: np.ndarray, upper: np.ndarray, aux: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """(n, R): value of filling each row with multiset ``dice``; -inf for filled rows."""
        table = self.fill_tables(mask, upper, aux)
        index = _row_tables(self.rules)[2][np.asarray(dice, dtype=np.int64)]  # (n, R)
        return np.take_along_axis(table, index[:, :, None], axis=2)[:, :, 0]

    def _by_multiset(self, table: np.ndarray) -> np.ndarray:
        """(n, M, R) from (n, R, K) fill tables."""
        index = _row_tables(self.rules)[2]  # (M, R)
        return table[:, np.arange(self.rules.n_rows)[None, :], index]


def solve_free_column(rules: Rules, filled: int = 0) -> FreeColumnSolution:
    """Solve a free column of ``rules`` alone, exactly.

    With ``filled`` (a row bitmask) only the states whose filled rows include it
    are solved (an endgame); the others stay NaN.
    """
    return solve_by_levels(rules, filled, lambda rolls: (_solve_level, ()))


def solve_by_levels(rules: Rules, filled: int, kernel_of: Callable[[int], tuple]) -> FreeColumnSolution:
    """The values of every state of the free-column model, level by level from the full column back.

    ``kernel_of(rolls)`` gives the kernel that values a level's masks (as ``_solve_level``) and the
    extra arguments it takes after ``rolls``; ``filled`` as in ``solve_free_column``.
    """
    start = time.perf_counter()
    m = free_column_model(rules)
    n_rows = rules.n_rows
    values = np.full(int(m.offset[-1]), np.nan)
    full = (1 << n_rows) - 1
    upper = np.arange(m.n_upper)
    values[m.index(np.full(m.n_upper, full), upper, np.zeros(m.n_upper, dtype=np.int64))] = 0.0
    reach = reachable_upper(rules)
    popcount = np.array([bin(k).count("1") for k in range(1 << n_rows)])
    dice = rules.dice
    kernel_model, rows = _kernel_model(m), _row_tables(rules)
    tables = (dice.add_die, dice.remove_die, dice.outcome_prob[0])
    states = 0
    for level in range(n_rows - 1, -1, -1):
        masks = np.flatnonzero((popcount == level) & (np.arange(1 << n_rows) & filled == filled))
        rolls = rules.spec.last_turn_rolls if level == n_rows - 1 else rules.rolls
        kernel, extra = kernel_of(rolls)
        states += kernel(masks.astype(np.int64), values, kernel_model, rows, reach, tables, rolls, *extra)
    return FreeColumnSolution(rules=rules, values=values, seconds=time.perf_counter() - start, states=states)
