"""Rule-of-thumb tables and compiled helpers shared by the rule-based players.

Everything here is read from the rules' score tables (``Rules.scores``) and
dice tables, so the rules of thumb adapt to every preset: which rows are
straights and which faces make them, how rare each row's pattern is, and the
keep that serves one row best after one more roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from yamb import kernels
from yamb.rules import Rules

STRAIGHT_ROWS = ("straight", "small_straight", "large_straight")
FULL_HOUSE_ROW = "full_house"
ONE = np.uint32(1)


@dataclass(frozen=True, eq=False)
class RowTables:
    """Per-preset constants of the rule-based players.

    ``rarity[r]``: probability that one roll of all dice scores in row r.
    ``straight_faces[t]``/``straight_row[t]``: the faces (bitmask, bit f-1 for
    face f) of each minimal hand that scores in straight row ``straight_row[t]``.
    ``myopic_keep[m, r]``/``myopic_value[m, r]``: the keep of hand m that
    maximizes the expected score of row r after one reroll, and that
    expectation (keeping the whole hand means stopping: its value is the score).
    """

    multisets: np.ndarray  # (M, 6) int64
    rarity: np.ndarray  # (R,) float64
    straight_faces: np.ndarray  # (T,) int64
    straight_row: np.ndarray  # (T,) int64
    full_house_row: int
    row_max: np.ndarray  # (R,) float64
    myopic_keep: np.ndarray  # (M, R) int64
    myopic_value: np.ndarray  # (M, R) float64


def _face_bits(counts: np.ndarray) -> np.ndarray:
    return ((counts > 0) * (1 << np.arange(6))).sum(axis=-1)


def _straight_targets(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Minimal face sets that score in each straight row."""
    faces, rows = [], []
    bits = _face_bits(rules.dice.multisets)
    for r, name in enumerate(rules.rows):
        if name not in STRAIGHT_ROWS:
            continue
        sets = {int(b) for b in bits[rules.scores[:, r] > 0]}
        minimal = [s for s in sets if not any(o != s and o & s == o for o in sets)]
        for s in sorted(minimal):
            faces.append(s)
            rows.append(r)
    return np.array(faces, dtype=np.int64), np.array(rows, dtype=np.int64)


@cache
def row_tables(rules: Rules) -> RowTables:
    """The tables of ``rules``, computed once per process."""
    dice = rules.dice
    scores = rules.scores.astype(np.float64)
    empty = int(np.flatnonzero(dice.keep_size == 0)[0])
    rarity = dice.outcome_prob[empty] @ (rules.scores > 0)
    after_one_roll = dice.outcome_prob @ scores  # (K, R): expected score of each keep
    sub = dice.sub_keeps  # (M, S), padded with -1
    values = np.where(sub[:, :, None] >= 0, after_one_roll[sub], -np.inf)  # (M, S, R)
    best = values.argmax(axis=1)
    straight_faces, straight_row = _straight_targets(rules)
    names = list(rules.rows)
    return RowTables(
        multisets=dice.multisets.astype(np.int64),
        rarity=rarity,
        straight_faces=straight_faces,
        straight_row=straight_row,
        full_house_row=names.index(FULL_HOUSE_ROW) if FULL_HOUSE_ROW in names else -1,
        row_max=np.maximum(scores.max(axis=0), 1.0),
        myopic_keep=np.take_along_axis(sub, best, axis=1).astype(np.int64),
        myopic_value=values.max(axis=1),
    )


@njit(cache=True)
def keep_of(counts, key_to_keep, n_dice):
    """Keep index of a vector of face counts."""
    key = 0
    power = 1
    for f in range(6):
        key += counts[f] * power
        power *= n_dice + 1
    return key_to_keep[key]


@njit(cache=True)
def keep_or_fill(keep, cell, m, multisets, key_to_keep, n_dice, first_full, n_cells):
    """The action: reroll outside ``keep``, or fill ``cell`` when the keep is the whole hand.

    With nothing to fill yet (only announcements later in the turn), drops a die to reroll.
    """
    whole = first_full + m
    if keep == whole and cell < 0:
        counts = np.zeros(6, dtype=np.int64)
        drop_lowest(multisets, m, counts)
        keep = keep_of(counts, key_to_keep, n_dice)
    return cell if keep == whole else n_cells + keep


@njit(cache=True)
def later_rows(order, filled, g, p, announced, answer, n_rows):
    """Rows (bitmask over all columns) this turn may still fill after a reroll."""
    if announced >= 0 or answer >= 0:
        target = announced if announced >= 0 else answer
        return ONE << np.uint32(target % n_rows)
    rows = np.uint32(0)
    for c in range(order.shape[0]):
        entry = order[c, filled[g, p, c]]
        if entry >> kernels.KIND_SHIFT == kernels.ORDINARY:
            rows |= entry & np.uint32(kernels.ROW_BITS)
    return rows


@njit(cache=True)
def straight_draw(multisets, m, straight_faces, straight_row, open_rows, need):
    """Faces (bitmask) of the best straight draw of hand ``m`` toward an open straight row.

    A draw is the hand's faces inside one straight's faces, missing at most
    ``need`` of them (0 means the straight is made). Returns 0 when none.
    """
    present = 0
    for f in range(6):
        if multisets[m, f] > 0:
            present |= 1 << f
    best = 0
    best_missing = need + 1
    for t in range(len(straight_faces)):
        if not (open_rows >> np.uint32(straight_row[t])) & ONE:
            continue
        have = present & straight_faces[t]
        missing = 0
        for f in range(6):
            if (straight_faces[t] >> f) & 1 and not (have >> f) & 1:
                missing += 1
        if missing <= need and (missing < best_missing or (missing == best_missing and have > best)):
            best = have
            best_missing = missing
    return best


@njit(cache=True)
def draw_counts(multisets, m, straight_faces, straight_row, open_rows, counts):
    """Write into ``counts`` one die of each face of a straight draw (one die short at most).

    Returns False, leaving ``counts`` alone, when the hand has no such draw.
    """
    draw = straight_draw(multisets, m, straight_faces, straight_row, open_rows, 1)
    if draw:
        for f in range(6):
            counts[f] = (draw >> f) & 1
    return draw != 0


@njit(cache=True)
def best_announce(bits, i, n_rows, value, left, m, base, rarity):
    """Announceable cell (from ``bits[i, 1]``) with the highest gain ``value[left, m, r] - base[r]``.

    Ties go to the rarest row. Returns (cell, gain); cell -1 when none.
    """
    best = -1
    best_gain = -np.inf
    for c in range(bits.shape[2]):
        for r in range(n_rows):
            if (bits[i, 1, c] >> np.uint32(r)) & ONE:
                v = value[left, m, r] - base[r]
                if best < 0 or v > best_gain or (v == best_gain and rarity[r] < rarity[best % n_rows]):
                    best = c * n_rows + r
                    best_gain = v
    return best, best_gain


@njit(cache=True)
def drop_lowest(multisets, m, counts):
    """Write into ``counts`` the hand ``m`` without one die of its lowest face (to force a reroll)."""
    dropped = False
    for f in range(6):
        counts[f] = multisets[m, f]
        if not dropped and counts[f] > 0:
            counts[f] -= 1
            dropped = True
