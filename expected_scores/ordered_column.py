"""Optimal play of one ordered column (``down`` or ``up``) of a Yamb table, exactly.

The order fixes which row each turn fills, so a state is the number of rows
filled plus what the column total still needs: the numbers sum capped at the
bonus threshold (while number rows remain open), and the scores of ``ones``,
``max`` and ``min`` filled so far (until all three are filled, when the
difference is earned). Points are counted when earned: a number or
collection cell's score, the bonus when the capped sum reaches the threshold,
and the difference (read from ``Rules.column_totals``) when its last row is
filled; ``max`` and ``min`` count only through the difference. The turn that
fills the last cell has the preset's ``last_turn_rolls`` (5 in jamb6).

States are identified by an integer key (position, upper, ones, max, min);
``values[i]`` is the expected number of points still to come from state
``keys[i]`` (sorted) under optimal play.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

import numpy as np

from expected_scores.turn import plan_turn
from expected_scores.upper_sum import capped_upper
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.rules import N_NUMBER_ROWS, Rules

ORDERED_KINDS = ("down", "up")
_SPAN = 64  # each key component is below this


def row_order(rules: Rules, kind: str) -> list[int]:
    """Rows in the order a ``kind`` column fills them."""
    rows = list(range(rules.n_rows))
    return rows if kind == "down" else rows[::-1]


def _encode(position: np.ndarray, comps: np.ndarray) -> np.ndarray:
    key = np.asarray(position, dtype=np.int64)
    for j in range(4):
        key = key * _SPAN + comps[..., j]
    return key


@dataclass(frozen=True)
class _Column:
    """The rules of one ordered column, as the DP needs them."""

    rules: Rules
    order: list[int]
    difference: np.ndarray | None  # (6, _SPAN, _SPAN) difference by (ones, max, min) scores
    twin: np.ndarray | None  # (3, _SPAN * _SPAN): for each missing one of the three, the
    # flat index of the first pair of known scores whose difference agrees for every missing score

    @property
    def spread_rows(self) -> tuple[int, ...]:
        if self.difference is None:
            return ()
        return 0, self.rules.row_index("max"), self.rules.row_index("min")

    def step(self, position: int, comps: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Next components and points earned when the row at ``position`` scores ``score``.

        ``comps`` (B, 4): capped numbers sum, then the scores of ones, max, min (0 while open
        or once the difference is earned).
        """
        spec = self.rules.spec
        r = self.order[position]
        filled_after = set(self.order[: position + 1])
        nxt = comps.copy()
        points = np.zeros(len(comps), dtype=np.float64)
        if r < N_NUMBER_ROWS:
            total = comps[:, 0] + score
            points += score + spec.bonus * ((comps[:, 0] < spec.bonus_threshold) & (total >= spec.bonus_threshold))
            nxt[:, 0] = np.minimum(total, spec.bonus_threshold)
        elif r not in self.spread_rows:
            points += score
        if r in self.spread_rows:
            nxt[:, 1 + self.spread_rows.index(r)] = score
            if all(f in filled_after for f in self.spread_rows):
                points += self.difference[nxt[:, 1], nxt[:, 2], nxt[:, 3]]
        self.forget(filled_after, nxt)
        return nxt, points

    def forget(self, filled: set[int], comps: np.ndarray) -> None:
        """Drop from ``comps`` (in place) what the column no longer needs once ``filled`` are filled.

        The numbers sum once every number row is filled; the spread scores once the
        difference is earned; of two known spread scores, all but the future difference.
        """
        if all(f in filled for f in range(N_NUMBER_ROWS)):
            comps[:, 0] = 0
        known = [f in filled for f in self.spread_rows]
        if known and all(known):
            comps[:, 1:] = 0
        elif sum(known) == 2:
            self.merge_twins(comps, known.index(False))

    def merge_twins(self, comps: np.ndarray, missing: int) -> None:
        """Replace the two known spread scores by the first pair with the same future difference."""
        a, b = [1 + j for j in range(3) if j != missing]
        flat = self.twin[missing, comps[:, a] * _SPAN + comps[:, b]]
        comps[:, a], comps[:, b] = flat // _SPAN, flat % _SPAN


def check_column(rules: Rules, kind: str) -> None:
    """Nothing when the column solver handles a ``kind`` column of ``rules``, else a precise error."""
    if kind not in ORDERED_KINDS:
        raise YambError(f"the column solver handles {' and '.join(ORDERED_KINDS)} columns, not {kind!r}")
    if rules.has_jokers:
        raise YambError(f"the column solver does not handle {rules.name}'s jokers; solve it as a free column")


@cache
def _column(rules: Rules, kind: str) -> _Column:
    check_column(rules, kind)
    if rules.spec.difference is not None:
        grid = np.indices((6, _SPAN, _SPAN)).reshape(3, -1).T
        cells = np.zeros((len(grid), rules.n_rows), dtype=np.int32)
        cells[:, [0, rules.row_index("max"), rules.row_index("min")]] = grid
        difference = rules.column_totals(cells)["difference"].reshape(6, _SPAN, _SPAN).astype(np.float64)
        full = np.zeros((_SPAN, _SPAN, _SPAN))
        full[:6] = difference
        twin = np.empty((3, _SPAN * _SPAN), dtype=np.int64)
        for missing in range(3):
            by_pair = np.moveaxis(full, missing, -1).reshape(_SPAN * _SPAN, _SPAN)
            _, first, which = np.unique(by_pair, axis=0, return_index=True, return_inverse=True)
            twin[missing] = first[which.ravel()]
        return _Column(rules=rules, order=row_order(rules, kind), difference=difference, twin=twin)
    return _Column(rules=rules, order=row_order(rules, kind), difference=None, twin=None)


@dataclass(frozen=True)
class ColumnSolution:
    """Solved values of one ordered column and what an optimal player needs."""

    rules: Rules
    kind: str
    keys: np.ndarray  # (S,) int64, sorted
    values: np.ndarray  # (S,) float64
    seconds: float

    @property
    def states(self) -> int:
        return len(self.keys)

    @property
    def expected_score(self) -> float:
        return float(self.values[0])

    def state_of(self, batch: GameBatch, games: np.ndarray, column: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(position, components (n, 4)) of column ``column`` of the player to move in ``games``."""
        col = _column(self.rules, self.kind)
        p = batch.player[games]
        cells = batch.cells[games, p, column].astype(np.int64)
        position = batch.layout.popcount[batch.filled[games, p, column]].astype(np.int64)
        comps = np.zeros((len(games), 4), dtype=np.int64)
        comps[:, 0] = capped_upper(self.rules, cells)
        for j, r in enumerate(col.spread_rows):
            comps[:, 1 + j] = cells[:, r]  # open cells hold 0
        for pos in np.unique(position):
            at = position == pos
            part = comps[at]
            col.forget(set(col.order[:pos]), part)
            comps[at] = part
        return position, comps

    def value(self, position: np.ndarray, comps: np.ndarray) -> np.ndarray:
        """Value of states (0 past the last position)."""
        idx = self.index(position, comps)
        return np.where(idx >= 0, self.values[idx], 0.0)

    def index(self, position: np.ndarray, comps: np.ndarray) -> np.ndarray:
        """Index of states into ``keys`` and ``values``; -1 for a state not solved (past the last position)."""
        keys = _encode(position, comps)
        idx = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[idx] == keys, idx, -1)

    def fill_changes(self) -> np.ndarray:
        """(S, K): for each state ``keys[i]``, points earned plus the next state's value minus
        ``values[i]`` when its position's row scores each of the row's distinct scores
        (ascending, as ``np.unique(rules.scores[:, row])``); NaN past a row's scores."""
        col = _column(self.rules, self.kind)
        position, comps = self.keys // _SPAN**4, np.stack([self.keys // _SPAN ** (3 - j) % _SPAN for j in range(4)], 1)
        distinct = [np.unique(self.rules.scores[:, r]) for r in range(self.rules.n_rows)]
        out = np.full((len(self.keys), max(len(d) for d in distinct)), np.nan)
        for pos in np.unique(position):
            at = np.flatnonzero(position == pos)
            for j, s in enumerate(distinct[col.order[pos]]):
                nxt, points = col.step(int(pos), comps[at], np.full(len(at), int(s)))
                out[at, j] = points + self.value(np.full(len(at), pos + 1), nxt) - self.values[at]
        return out

    def turn_options(self, position: np.ndarray, comps: np.ndarray) -> np.ndarray:
        """(n, M): points plus next value of filling the position's row with each multiset."""
        col = _column(self.rules, self.kind)
        out = np.empty((len(position), self.rules.dice.n_multisets))
        for pos in np.unique(position):
            at = np.flatnonzero(position == pos)
            out[at] = _options(col, self, int(pos), comps[at])
        return out

    def fill_values(self, position: np.ndarray, comps: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """(n, R): value of filling each row with multiset ``dice``; -inf for rows the order forbids."""
        n = len(position)
        out = np.full((n, self.rules.n_rows), -np.inf)
        rows = np.array(row_order(self.rules, self.kind))[position]
        out[np.arange(n), rows] = self.turn_options(position, comps)[np.arange(n), dice]
        return out


def _options(col: _Column, values: ColumnSolution | dict, position: int, comps: np.ndarray) -> np.ndarray:
    """(B, M) points plus next value of each multiset for states ``comps`` at ``position``."""
    r = col.order[position]
    distinct, which = np.unique(col.rules.scores[:, r], return_inverse=True)
    table = np.empty((len(comps), len(distinct)))
    for j, s in enumerate(distinct):
        nxt, points = col.step(position, comps, np.full(len(comps), int(s)))
        table[:, j] = points + _lookup(values, position + 1, nxt)
    return table[:, which]


def _lookup(values: ColumnSolution | dict, position: int, comps: np.ndarray) -> np.ndarray:
    if isinstance(values, ColumnSolution):
        return values.value(np.full(len(comps), position), comps)
    keys = _encode(np.full(len(comps), position), comps)
    return np.array([values.get(int(k), 0.0) for k in keys])


def solve_column(rules: Rules, kind: str) -> ColumnSolution:
    """Solve one ordered column of ``rules`` exactly."""
    start = time.perf_counter()
    col = _column(rules, kind)
    n = len(col.order)
    layers = [np.zeros((1, 4), dtype=np.int64)]
    for position in range(n - 1):
        r = col.order[position]
        distinct = np.unique(rules.scores[:, r]).astype(np.int64)
        comps = layers[-1]
        grown = [col.step(position, comps, np.full(len(comps), s))[0] for s in distinct]
        layers.append(np.unique(np.concatenate(grown), axis=0))
    values: dict[int, float] = {}
    for position in range(n - 1, -1, -1):
        comps = layers[position]
        rolls = rules.spec.last_turn_rolls if position == n - 1 else rules.rolls
        plan = plan_turn(_options(col, values, position, comps), rules.dice, rolls)
        keys = _encode(np.full(len(comps), position), comps)
        values.update(zip(keys.tolist(), plan.start.tolist()))
    keys = np.array(sorted(values), dtype=np.int64)
    return ColumnSolution(rules=rules, kind=kind, keys=keys, values=np.array([values[k] for k in keys]),
                          seconds=time.perf_counter() - start)
