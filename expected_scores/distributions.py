"""Score distributions of optimal solitaire Yatzy and Yahtzee, and the best chance of reaching each score.

For every state between turns ``(mask, upper, y)`` of ``expected_scores.solitaire``:

- ``dist``: the distribution of the points still to come (cell scores, the
  numbers bonus, extra Yahtzee bonuses) when the rest of the game is played
  by ``SolvedPlayer`` (expected-score optimal play, its tie-breaks included:
  the keeps of ``plan_lanes``, the first best row);
- ``reach``: for every ``t``, the largest probability of scoring at least ``t``
  more, over all ways of playing (each ``t`` its own optimisation; all ``t``
  of a state are planned together, one per SIMD lane, by ``plan_values``).

Both come from the full sheet back to the empty one, level by level, like the
solver, the masks of a level on every thread (each state's sums in a fixed
order: the thread count changes no bit). The end of a turn with multiset ``m``
in row ``r`` shifts the next state's vector by the points earned. ``dist`` is
the mean of those shifted vectors weighted by each ending's probability under
the policy's keeps (``_ending_probs``: the keeps of ``plan_lanes``, a keep's
dice added one at a time); ``reach`` takes the best fill for each ``t`` and the
turn optimizer's recursion (``_reach_turn``: ``plan_values``' sums and
comparisons in its order, so its values bit for bit, in blocks of at most
``LANES`` thresholds).

Yahtzee's extra bonuses (100 a Yahtzee) make long thin tails: the points still
to come are **lumped at** ``CAP`` (500): the last entry of a Yahtzee state's
vector is the probability of ``CAP`` or more, and ``tail[s]`` keeps
``E[(rest - CAP)+]`` so that means stay exact; a chance of reaching more than
``CAP`` is read as that of reaching ``CAP``. Trimmed: the ends of a
distribution whose total probability is at most ``TRIM`` (each side), the
reach chances within ``TRIM`` of 1 (read as 1) or of 0 (read as 0). Built in
float64; the cache file keeps the probabilities and chances in float32 (each
within a relative 2**-24 of the float64 value: ``stored``) and each
distribution's mean in float64 (``means``, from the float64 distribution).
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
import sys
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from expected_scores.column_levels import level_masks
from expected_scores.lanes import NO_HANDS, plan_lanes
from expected_scores.solitaire import (
    SolitaireSolution,
    _fill_value,
    allowed_rows,
    next_state,
    params_of,
    row_score,
    solve_solitaire,
)
from expected_scores.solve import _digest, cache_dir, solve
from expected_scores.turn import STOP
from expected_scores.upper_sum import reachable_upper
from yamb.atomic import WriteError, write_atomically
from yamb.dice import FACES
from yamb.rules import N_NUMBER_ROWS, Rules

CAP = {"yahtzee": 500}  # points still to come lumped at this many (no cap: the largest possible)
TRIM = 1e-12
FORMAT = 2  # 2: probabilities and chances stored in float32, each state's mean in float64
LANES = 128  # reach chances planned at most this many thresholds at a time
MOST_POINTS = 256  # more than one turn ever earns


class Vectors(NamedTuple):
    """One number per score of every state: entry ``x`` of state ``s`` is ``flat[start[s] + x - lo[s]]``
    for ``lo[s] <= x < lo[s] + start[s + 1] - start[s]``; below, ``below``; above, 0."""

    start: np.ndarray  # (n + 1,) int64
    lo: np.ndarray  # (n,) int64
    flat: np.ndarray  # float64
    below: float  # 0 for a distribution, 1 for the chances of reaching


class Moves(NamedTuple):
    """What the kernels read of the rules and the solution."""

    scores: np.ndarray  # (M, R) Rules.scores
    joker_scores: np.ndarray  # (M, R)
    five_face: np.ndarray  # (M,)
    values: np.ndarray  # SolitaireSolution.values
    index: np.ndarray  # (2**R, threshold + 1, 1 or 2) int64: each state's number, -1 when not tabulated
    cap: int


class Dice(NamedTuple):
    """The dice tables of a turn (``DiceTables``' arrays)."""

    add_die: np.ndarray
    remove_die: np.ndarray
    first_prob: np.ndarray
    sub_keeps: np.ndarray
    rolls: int


@njit(cache=True, inline="always")
def entry(vectors, s, x):
    """Entry ``x`` of state ``s`` of ``vectors``."""
    lo = vectors.lo[s]
    if x < lo:
        return vectors.below
    i = vectors.start[s] + x - lo
    return vectors.flat[i] if i < vectors.start[s + 1] else 0.0


@njit(cache=True)
def _move(mask, u, y, m, r, moves, params):
    """``(points, next state's number)`` of ending a turn with multiset ``m`` in row ``r``."""
    score, extra = row_score(mask, y, m, r, moves.scores, moves.joker_scores, moves.five_face, params)
    gained, nu, ny = next_state(u, y, r, score, params)
    return extra + score + gained, moves.index[mask | (1 << r), nu, ny]


@njit(cache=True)
def _shift_into(dist, tail, s, points, out, cap):
    """``out[:W]`` the distribution of state ``s`` moved up by ``points``, lumped at ``cap`` (when the
    vector reaches it); ``out[W]`` the lumped part's ``E[(rest - cap)+]``."""
    width = out.shape[0] - 1
    for x in range(width + 1):
        out[x] = 0.0
    out[width] = tail[s]
    for j in range(dist.start[s + 1] - dist.start[s]):
        x = dist.lo[s] + j
        p = dist.flat[dist.start[s] + j]
        if x + points < width - 1 or width - 1 < cap:
            out[x + points] += p
        else:
            out[width - 1] += p
            out[width] += p * (x + points - cap)


@njit(cache=True, inline="always")
def _add_shifted(dist, tail, s, points, weight, out, cap):
    """``out[:W] += weight *`` the distribution of state ``s`` moved up by ``points``, lumped at ``cap`` (when
    the vector reaches it); ``out[W] += weight *`` the lumped part's ``E[(rest - cap)+]``."""
    width = out.shape[0] - 1
    out[width] += weight * tail[s]
    a, lo = dist.start[s], dist.lo[s] + points
    for j in range(dist.start[s + 1] - a):
        x = lo + j
        p = weight * dist.flat[a + j]
        if x < width - 1 or width - 1 < cap:
            out[x] += p
        else:
            out[width - 1] += p
            out[width] += p * (x - cap)


@njit(cache=True)
def _ending_probs(keep, b, dice, end, mass):
    """``end[m]``: the probability that a turn played by the keeps ``keep[:, :, b]`` ends holding hand ``m``
    (``mass``: (K,) work array). A keep's dice are added one at a time, as ``_keep_values`` averages them."""
    n_multisets = end.shape[0]
    first_full = dice.add_die.shape[0] - n_multisets
    for m in range(n_multisets):
        end[m] = 0.0
        mass[first_full + m] = dice.first_prob[m]
    for t in range(dice.rolls - 1):
        for k in range(first_full):
            mass[k] = 0.0
        for m in range(n_multisets):
            k, p = keep[t, m, b], mass[first_full + m]
            if k == STOP:
                end[m] += p
            else:
                mass[k] += p
            mass[first_full + m] = 0.0
        for k in range(first_full):  # add_die[k] > k: a keep's mass is whole before it is passed on
            share = mass[k] / FACES
            for f in range(FACES):
                mass[dice.add_die[k, f]] += share
    for m in range(n_multisets):
        end[m] += mass[first_full + m]


@njit(cache=True, inline="always")
def _fill_chances(reach, s, x0, row):
    """``row[i]``: the chance of reaching ``x0 + i`` more from state ``s``, for every lane ``i``."""
    lanes = row.shape[0]
    lo, n, a = reach.lo[s], reach.start[s + 1] - reach.start[s], reach.start[s]
    ones = min(lanes, max(0, max(lo, 1) - x0))  # reached already, or fewer than lo more needed: 1
    stored = min(lanes, max(ones, lo + n - x0))
    for i in range(ones):
        row[i] = 1.0
    for i in range(ones, stored):
        row[i] = reach.flat[a + x0 + i - lo]
    for i in range(stored, lanes):
        row[i] = 0.0


@njit(cache=True)
def _reach_turn(opt, dice, kv, row, out):
    """``out[i]``: the best chance of lane ``i`` over a turn whose endings with hand ``m`` are worth
    ``opt[m, i]`` after any roll: ``plan_values``' comparisons and sums in its order (so its values, bit
    for bit) with the options read in place, each keep's best play written over its value (``kv``: (K, L)
    work array, ``row``: (L,))."""
    add_die, remove_die, first_prob = dice.add_die, dice.remove_die, dice.first_prob
    n_multisets, lanes = opt.shape
    first_full = add_die.shape[0] - n_multisets
    for m in range(n_multisets):  # the last roll's values: the options
        kv[first_full + m, :] = opt[m]
    for i in range(lanes):
        out[i] = 0.0
    for t in range(dice.rolls - 2, -1, -1):
        for k in range(first_full - 1, -1, -1):  # a keep's value: the mean over the die added
            a0, a1, a2 = kv[add_die[k, 0]], kv[add_die[k, 1]], kv[add_die[k, 2]]
            a3, a4, a5 = kv[add_die[k, 3]], kv[add_die[k, 4]], kv[add_die[k, 5]]
            dst = kv[k]
            for i in range(lanes):
                s = 0.0
                s += a0[i]
                s += a1[i]
                s += a2[i]
                s += a3[i]
                s += a4[i]
                s += a5[i]
                dst[i] = s / FACES
        for k in range(first_full):  # its best play: it or one of its sub-keeps (smaller numbers, done)
            dst = kv[k]
            for f in range(FACES):
                j = remove_die[k, f]
                if j >= 0:
                    src = kv[j]
                    for i in range(lanes):
                        dst[i] = src[i] if src[i] > dst[i] else dst[i]  # noqa: FURB136
        for m in range(n_multisets):  # a hand's: stop, or its best keep
            o = opt[m]
            for i in range(lanes):
                row[i] = o[i]
            for f in range(FACES):
                j = remove_die[first_full + m, f]
                if j >= 0:
                    src = kv[j]
                    for i in range(lanes):
                        row[i] = src[i] if src[i] > row[i] else row[i]  # noqa: FURB136
            if t > 0:
                kv[first_full + m, :] = row
            else:
                p = first_prob[m]
                for i in range(lanes):
                    out[i] += p * row[i]
    if dice.rolls == 1:
        for m in range(n_multisets):
            p = first_prob[m]
            for i in range(lanes):
                out[i] += p * opt[m, i]


@njit(cache=True, parallel=True)
def _build_level(masks, moves, params, dice, dist, tail, reach, lanes):
    """Fill ``dist``, ``tail`` and ``reach`` of every state of each mask in ``masks`` (one level), the reach
    chances planned ``lanes`` thresholds at a time."""
    for i in prange(len(masks)):
        _build_mask(masks[i], moves, params, dice, dist, tail, reach, lanes)


@njit(cache=True)
def _build_mask(mask, moves, params, dice, dist, tail, reach, lanes):
    """Fill ``dist``, ``tail`` and ``reach`` of every state of filled rows ``mask``."""
    scores, five_face, index = moves.scores, moves.five_face, moves.index
    n_multisets, n_rows, rolls = scores.shape[0], params.n_rows, dice.rolls
    n_keeps = dice.add_die.shape[0]
    n_upper, n_y = index.shape[1], index.shape[2]
    no_pure = np.empty((0, 1, 1))
    states = np.empty((n_upper * n_y, 2), dtype=np.int64)
    n = 0
    widest = 0
    for y in range(n_y):
        for u in range(n_upper):
            s = index[mask, u, y]
            if s >= 0:
                states[n, 0], states[n, 1] = u, y
                n += 1
                widest = max(widest, dist.start[s + 1] - dist.start[s])
    # the policy: expected-score options, planned as the solver plans them
    options = np.empty((rolls, n_multisets, n))
    best_row = np.empty((n_multisets, n), dtype=np.int64)
    for b in range(n):
        u, y = states[b, 0], states[b, 1]
        for m in range(n_multisets):
            allowed = allowed_rows(mask, five_face[m], params)
            best, row = -np.inf, -1
            for r in range(n_rows):
                if (allowed >> r) & 1:
                    v = _fill_value(mask, u, y, m, r, scores, moves.joker_scores, five_face, moves.values,
                                    params)
                    if v > best:
                        best, row = v, r
            best_row[m, b] = row
            for t in range(rolls):
                options[t, m, b] = best
    value = np.empty((rolls, n_multisets, n))
    keep = np.empty((rolls, n_multisets, n), dtype=np.int16)
    plan_lanes(options, no_pure, dice.add_die, dice.remove_die, dice.first_prob, value, keep,
               np.empty((n_keeps, n)), np.empty((n_keeps, n)), np.empty((n_keeps, n), dtype=np.int32),
               NO_HANDS, dice.sub_keeps)
    end = np.empty(n_multisets)
    mass = np.empty(n_keeps)
    acc = np.empty(widest + 1)
    opts_buf = np.empty(n_multisets * lanes)
    kv_buf = np.empty(n_keeps * lanes)
    row_buf = np.empty(lanes)
    block_buf = np.empty(lanes)
    rows_buf = np.empty(n_multisets * n_rows * lanes)
    points = np.empty((n_multisets, n_rows), dtype=np.int64)
    nxt = np.full((n_multisets, n_rows), -1, dtype=np.int64)
    ending = np.empty((n_multisets, n_rows), dtype=np.int64)  # its number among the state's distinct endings
    ending_state = np.empty(n_multisets * n_rows, dtype=np.int64)
    ending_points = np.empty(n_multisets * n_rows, dtype=np.int64)
    made = np.full((n_rows, MOST_POINTS, 3), -1, dtype=np.int64)  # (for state b, next state, ending) of (r, points)
    for b in range(n):
        u, y = states[b, 0], states[b, 1]
        s = index[mask, u, y]
        width = dist.start[s + 1] - dist.start[s]
        n_endings = 0
        for m in range(n_multisets):
            allowed = allowed_rows(mask, five_face[m], params)
            for r in range(n_rows):
                nxt[m, r] = -1
                ending[m, r] = -1
                if (allowed >> r) & 1:
                    pr, ns = _move(mask, u, y, m, r, moves, params)
                    points[m, r], nxt[m, r] = pr, ns
                    if made[r, pr, 0] != b or made[r, pr, 1] != ns:
                        made[r, pr, 0], made[r, pr, 1], made[r, pr, 2] = b, ns, n_endings
                        ending_state[n_endings], ending_points[n_endings] = ns, pr
                        n_endings += 1
                    ending[m, r] = made[r, pr, 2]
        # the distribution under the policy: each ending's, weighted by its probability
        _ending_probs(keep, b, dice, end, mass)
        out = acc[: width + 1]
        for x in range(width + 1):
            out[x] = 0.0
        for m in range(n_multisets):
            if end[m] > 0.0:
                r = best_row[m, b]
                _add_shifted(dist, tail, nxt[m, r], points[m, r], end[m], out, moves.cap)
        dist.flat[dist.start[s]: dist.start[s + 1]] = out[:width]
        tail[s] = out[width]
        # the best chance of reaching each t, every t in its own lane, in blocks of at most ``lanes``
        chances = reach.flat[reach.start[s]: reach.start[s + 1]]
        blocks = (width + lanes - 1) // lanes
        size = (width + blocks - 1) // blocks
        opts = opts_buf[: n_multisets * size].reshape((n_multisets, size))
        kv = kv_buf[: n_keeps * size].reshape((n_keeps, size))
        rows = rows_buf[: n_endings * size].reshape((n_endings, size))
        for a in range(0, width, size):
            for e in range(n_endings):
                _fill_chances(reach, ending_state[e], a - ending_points[e], rows[e])
            for m in range(n_multisets):
                row = opts[m]
                for i in range(size):
                    row[i] = -np.inf
                for r in range(n_rows):
                    e = ending[m, r]
                    if e >= 0:
                        src = rows[e]
                        for i in range(size):
                            row[i] = src[i] if src[i] > row[i] else row[i]  # noqa: FURB136
            block = block_buf[:size]
            _reach_turn(opts, dice, kv, row_buf[:size], block)
            for i in range(min(size, width - a)):
                chances[a + i] = block[i]


@njit(cache=True)
def _trim(vectors, tail_ones):
    """``vectors`` without their ends: total probability at most ``TRIM`` (``tail_ones`` false), or
    within ``TRIM`` of 1 below and of 0 above (``tail_ones``: chances of reaching)."""
    n = len(vectors.lo)
    lo = np.empty(n, dtype=np.int64)
    hi = np.empty(n, dtype=np.int64)
    for s in range(n):
        a, b = vectors.start[s], vectors.start[s + 1]
        i, acc = a, 0.0
        while i < b:
            v = vectors.flat[i]
            if tail_ones:
                if v < 1.0 - TRIM:
                    break
            else:
                acc += v
                if acc > TRIM:
                    break
            i += 1
        j, acc = b, 0.0
        while j > i:
            v = vectors.flat[j - 1]
            if tail_ones:
                if v > TRIM:
                    break
            else:
                acc += v
                if acc > TRIM:
                    break
            j -= 1
        lo[s], hi[s] = i, j
    start = np.zeros(n + 1, dtype=np.int64)
    for s in range(n):
        start[s + 1] = start[s] + hi[s] - lo[s]
    flat = np.empty(start[n])
    new_lo = np.empty(n, dtype=np.int64)
    for s in range(n):
        flat[start[s]: start[s + 1]] = vectors.flat[lo[s]: hi[s]]
        new_lo[s] = vectors.lo[s] + lo[s] - vectors.start[s]
    return Vectors(start, new_lo, flat, vectors.below)


def _widths(rules: Rules, index: np.ndarray, cap: int) -> np.ndarray:
    """(n,) each state's entries: the most points still possible (capped at ``cap``) plus one."""
    spec = rules.spec
    most = np.maximum(rules.scores, rules.joker_scores).max(axis=0)
    n_rows = rules.n_rows
    widths = np.zeros(int(index.max()) + 1, dtype=np.int64)
    for mask, u, y in zip(*np.nonzero(index >= 0), strict=True):
        open_rows = [r for r in range(n_rows) if not (mask >> r) & 1]
        points = int(most[open_rows].sum())
        if u < spec.bonus_threshold and any(r < N_NUMBER_ROWS for r in open_rows):
            points += spec.bonus
        points += spec.extra_yahtzee_bonus * len(open_rows)
        widths[index[mask, u, y]] = min(points, cap) + 1
    return widths


def _state_index(rules: Rules, filled: int) -> np.ndarray:
    """The numbers of the reachable states whose filled rows include ``filled``; -1 elsewhere."""
    n_y = 2 if rules.has_jokers else 1
    every = np.arange(1 << rules.n_rows)
    ok = (every & filled) == filled
    reach = reachable_upper(rules)[every & 63] & ok[:, None]  # (2**R, threshold + 1)
    tabulated = np.repeat(reach[:, :, None], n_y, axis=2)
    if n_y == 2:  # the Yahtzee flag is set only once the yahtzee cell is filled
        tabulated[:, :, 1] &= ((every >> rules.row_index("yahtzee")) & 1).astype(bool)[:, None]
    index = np.full(tabulated.shape, -1, dtype=np.int64)
    index[tabulated] = np.arange(int(tabulated.sum()))
    return index


@dataclass(frozen=True)
class ScoreTables:
    """The distributions (``dist``, ``tail``) and reach chances (``reach``) of every state of ``index``, with
    each distribution's mean (``means``, from the float64 distribution as built)."""

    rules: Rules
    index: np.ndarray  # (2**R, threshold + 1, 1 or 2) int64, -1 where not tabulated
    dist: Vectors
    tail: np.ndarray  # (n,) E[(rest - cap)+], 0 without a cap
    reach: Vectors
    means: np.ndarray  # (n,) float64
    cap: int
    seconds: float

    @property
    def states(self) -> int:
        return len(self.tail)

    def state(self, mask: int, upper: int, y: int = 0) -> int:
        """The number of a state (``KeyError`` when it is not tabulated)."""
        s = int(self.index[mask, upper, y])
        if s < 0:
            raise KeyError((mask, upper, y))
        return s

    def distribution(self, s: int) -> np.ndarray:
        """The probabilities of 0, 1, ... points still to come from state ``s`` (the last lumped when capped)."""
        d = self.dist
        out = np.zeros(int(d.lo[s] + d.start[s + 1] - d.start[s]))
        out[d.lo[s]:] = d.flat[d.start[s]: d.start[s + 1]]
        return out

    def mean(self, s: int) -> float:
        """The expected points still to come from state ``s``: its distribution's mean, in float64 as built."""
        return float(self.means[s])

    def chances(self, s: np.ndarray, t: np.ndarray) -> np.ndarray:
        """The largest chance of scoring at least ``t`` more from states ``s`` (batched)."""
        s, t = np.broadcast_arrays(np.asarray(s, np.int64), np.minimum(np.asarray(t, np.int64), self.cap))
        out = np.empty(s.shape)
        _entries(self.reach, s.ravel(), t.ravel(), out.reshape(-1))
        return out


@njit(cache=True)
def _entries(vectors, s, x, out):
    for i in range(len(s)):
        out[i] = entry(vectors, s[i], x[i])


@njit(cache=True)
def _means(dist, tail):
    """Each state's expected points still to come: its distribution's mean plus the lumped part's excess."""
    n = len(tail)
    out = np.empty(n)
    for s in range(n):
        total = 0.0
        for j in range(dist.start[s + 1] - dist.start[s]):
            total += (dist.lo[s] + j) * dist.flat[dist.start[s] + j]
        out[s] = total + tail[s]
    return out


def build_tables(solution: SolitaireSolution, filled: int = 0, progress: bool = False,
                 lanes: int = LANES) -> ScoreTables:
    """The ``ScoreTables`` of the states whose filled rows include ``filled`` (0: every state), in float64."""
    begin = time.perf_counter()
    rules = solution.rules
    cap = CAP.get(rules.name, 1 << 30)
    index = _state_index(rules, filled)
    widths = _widths(rules, index, cap)
    start = np.zeros(len(widths) + 1, dtype=np.int64)
    np.cumsum(widths, out=start[1:])
    zeros = np.zeros(len(widths), dtype=np.int64)
    dist = Vectors(start, zeros, np.zeros(start[-1]), 0.0)
    reach = Vectors(start, zeros, np.zeros(start[-1]), 1.0)
    tail = np.zeros(len(widths))
    full = (1 << rules.n_rows) - 1
    for u, y in zip(*np.nonzero(index[full] >= 0), strict=True):
        s = index[full, u, y]
        dist.flat[start[s]] = 1.0
        reach.flat[start[s]] = 1.0
    moves = Moves(rules.scores, rules.joker_scores, rules.five_alike_face, solution.values, index, cap)
    d = rules.dice
    dice = Dice(d.add_die, d.remove_die, d.outcome_prob[0], d.sub_keeps, rules.rolls)
    for level, masks in level_masks(rules.n_rows, filled):
        _build_level(masks, moves, params_of(rules), dice, dist, tail, reach, lanes)
        if progress:
            print(f"  score distributions of {rules.name}: {rules.n_rows - level} rows open done "
                  f"({time.perf_counter() - begin:.0f} s)", file=sys.stderr, flush=True)
    dist = _trim(dist, False)
    reach = _trim(reach, True)
    return ScoreTables(rules, index, dist, tail, reach, _means(dist, tail), cap, time.perf_counter() - begin)


def stored(tables: ScoreTables) -> ScoreTables:
    """``tables`` as the cache file keeps them: the probabilities and chances in float32 (each within a
    relative 2**-24 of the float64 value), the rest as they are."""
    def narrow(v: Vectors) -> Vectors:
        return Vectors(v.start, v.lo, v.flat.astype(np.float32), v.below)

    return dataclasses.replace(tables, dist=narrow(tables.dist), reach=narrow(tables.reach))


def tables_path(rules: Rules) -> Path:
    """Where the ``ScoreTables`` of ``rules`` are cached (beside the solution)."""
    return cache_dir() / f"{rules.name}-{rules.n_dice}dice-free-joker_{rules.joker or 'none'}-scores-v{FORMAT}.npz"


def _tables_digest(rules: Rules) -> str:
    return hashlib.sha256(f"{_digest(rules, 'free')} {FORMAT} {CAP.get(rules.name)} {TRIM}".encode()).hexdigest()[:16]


def save_tables(tables: ScoreTables, path: Path, digest: str) -> None:
    """Write ``stored(tables)`` to ``path`` (an uncompressed ``.npz``, so that it can be mapped)."""
    small = stored(tables)
    arrays = {"index": small.index, "dist_start": small.dist.start, "dist_lo": small.dist.lo,
              "dist": small.dist.flat, "tail": small.tail, "reach_start": small.reach.start,
              "reach_lo": small.reach.lo, "reach": small.reach.flat, "means": small.means, "cap": small.cap,
              "seconds": small.seconds, "digest": digest}

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)

    write_atomically(path, write)


def load_tables(rules: Rules, path: Path, digest: str) -> ScoreTables | None:
    """The ``ScoreTables`` of ``rules`` mapped from ``path`` (pages read as they are used), or None when the
    file is missing, unreadable or of other rules or another format."""
    try:
        f = _mapped(path)
        if str(f["digest"]) != digest:
            return None
        return ScoreTables(rules, f["index"], Vectors(f["dist_start"], f["dist_lo"], f["dist"], 0.0), f["tail"],
                           Vectors(f["reach_start"], f["reach_lo"], f["reach"], 1.0), f["means"], int(f["cap"]),
                           float(f["seconds"]))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None


def score_tables(preset: str = "yatzy", joker: str | None = None, use_cache: bool = True) -> ScoreTables:
    """The ``ScoreTables`` of solitaire Yatzy or Yahtzee as stored (``stored``): mapped from the cache, else
    built (minutes) and cached."""
    solution = solve(preset, joker=joker)
    if not isinstance(solution, SolitaireSolution):
        raise TypeError(f"score distributions are tabulated for Yatzy and Yahtzee only, not {preset}")
    rules = solution.rules
    path, digest = tables_path(rules), _tables_digest(rules)
    if use_cache and (tables := load_tables(rules, path, digest)) is not None:
        return tables
    print(f"tabulating the score distributions of {rules.name} exactly, once (minutes); cached in {path}",
          file=sys.stderr, flush=True)
    tables = build_tables(solution, progress=True)
    try:
        save_tables(tables, path, digest)
    except WriteError as error:
        print(f"could not cache the score tables in {path}: {error.reason}", file=sys.stderr)
    return stored(tables)


def _mapped(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an uncompressed ``.npz`` file, each mapped from the file (read as it is touched)."""
    out = {}
    with zipfile.ZipFile(path) as archive, open(path, "rb") as f:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED:
                raise OSError(f"{path} is compressed")
            f.seek(info.header_offset)
            name_len, extra_len = struct.unpack("<HH", f.read(30)[26:30])
            f.seek(info.header_offset + 30 + name_len + extra_len)
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, fortran, dtype = read(f)
            mapped = np.memmap(path, dtype=dtype, mode="r", offset=f.tell(), shape=shape,
                               order="F" if fortran else "C") if shape else np.fromfile(f, dtype, 1)[0]
            out[info.filename.removesuffix(".npy")] = mapped.view(np.ndarray) if shape else mapped
    return out


def cached_tables(preset: str = "yatzy", joker: str | None = None) -> ScoreTables | None:
    """The cached ``ScoreTables`` of solitaire Yatzy or Yahtzee mapped from the file (no load time: pages are
    read as they are used), or None when they are not built (nothing is built here)."""
    solution = solve(preset, joker=joker)
    if not isinstance(solution, SolitaireSolution):
        return None
    rules = solution.rules
    return load_tables(rules, tables_path(rules), _tables_digest(rules))


def endgame_tables(rules: Rules, filled: int) -> ScoreTables:
    """Tables of an endgame: the solver and the distributions of the states that include ``filled``."""
    return build_tables(solve_solitaire(rules, filled), filled)


class Utility(NamedTuple):
    """What a final total is worth to each game's player, and how the kernels read it."""

    values: np.ndarray  # (n, L) worth of final totals 0..L-1 (more counts as L - 1), nondecreasing
    base: np.ndarray  # (n,) int64 the points the player has
    by_reach: bool  # value an ending by the reach chances (else by the distribution of optimal play)


@njit(cache=True)
def _ending_value(i, ns, points, utility, dist, tail, reach, cap):
    """What ending a turn in state ``ns`` with ``points`` more is worth to game ``i``."""
    u = utility.values[i]
    last = u.shape[0] - 1
    base = utility.base[i] + points
    if utility.by_reach:  # U(0) + sum over f of (U(f) - U(f - 1)) P(final >= f), each chance its best
        total = u[0]
        for f in range(1, last + 1):
            w = u[f] - u[f - 1]
            if w != 0.0:
                total += w * entry(reach, ns, min(f - base, cap))
        return total
    total = 0.0
    lo = dist.lo[ns]
    for j in range(dist.start[ns + 1] - dist.start[ns]):
        total += dist.flat[dist.start[ns] + j] * u[min(base + lo + j, last)]
    return total


@njit(cache=True, parallel=True)
def _utility_values(mask, upper, y, utility, moves, params, dist, tail, reach, options, endings):
    """``options[i, m]``: the best ending with multiset ``m``; ``endings[i, r, score, e]``: ending in row
    ``r`` with ``score`` (``e``: with the extra Yahtzee bonus), NaN where no multiset makes it. Endings
    of one row and score are valued once."""
    scores, five_face = moves.scores, moves.five_face
    n_multisets, n_rows = scores.shape[0], params.n_rows
    for i in prange(len(mask)):
        seen = endings[i]
        for m in range(n_multisets):
            allowed = allowed_rows(mask[i], five_face[m], params)
            best = -np.inf
            for r in range(n_rows):
                if (allowed >> r) & 1:
                    score, extra = row_score(mask[i], y[i], m, r, scores, moves.joker_scores, five_face, params)
                    e = 1 if extra > 0 else 0
                    v = seen[r, score, e]
                    if v != v:
                        points, ns = _move(mask[i], upper[i], y[i], m, r, moves, params)
                        v = _ending_value(i, ns, points, utility, dist, tail, reach, moves.cap)
                        seen[r, score, e] = v
                    best = v if v > best else best
            options[i, m] = best


@njit(cache=True)
def _fill_values(mask, y, now, moves, params, endings, at, fills):
    """``fills[i, r]``: ending game ``i``'s turn with multiset ``now[i]`` in row ``r`` (-inf where not
    allowed), read from its endings, ``endings[at[i]]`` (``_utility_values``)."""
    for i in range(len(mask)):
        allowed = allowed_rows(mask[i], moves.five_face[now[i]], params)
        for r in range(params.n_rows):
            fills[i, r] = -np.inf
            if (allowed >> r) & 1:
                score, extra = row_score(mask[i], y[i], now[i], r, moves.scores, moves.joker_scores,
                                         moves.five_face, params)
                fills[i, r] = endings[at[i], r, score, 1 if extra > 0 else 0]


class Endings(NamedTuple):
    """The worth of every way of ending a turn of some games (``ending_values``)."""

    options: np.ndarray  # (n, M) the best ending with each multiset: the ``options`` of ``plan_turn``
    endings: np.ndarray  # (n, R, S, 2) ending in each row with each score (and extra bonus or not)


def _moves(tables: ScoreTables, solution: SolitaireSolution) -> Moves:
    rules = tables.rules
    return Moves(rules.scores, rules.joker_scores, rules.five_alike_face, solution.values, tables.index,
                 tables.cap)


def new_endings(rules: Rules, n: int) -> Endings:
    """``Endings`` of ``n`` games, none valued yet (NaN)."""
    most = int(max(rules.scores.max(), rules.joker_scores.max()))
    return Endings(np.full((n, rules.dice.n_multisets), np.nan), np.full((n, rules.n_rows, most + 1, 2), np.nan))


def ending_values(tables: ScoreTables, solution: SolitaireSolution, state: tuple, utility: Utility) -> Endings:
    """The ``Endings`` of games in ``state`` (mask, upper, y arrays) for a player to whom a final total
    is worth ``utility``, later turns valued by ``utility.by_reach``: the reach chances (each
    threshold its best) or the distribution of expected-score optimal play."""
    mask, upper, y = (np.asarray(a, np.int64) for a in state)
    out = new_endings(tables.rules, len(mask))
    _utility_values(mask, upper, y, utility, _moves(tables, solution), params_of(tables.rules), tables.dist,
                    tables.tail, tables.reach, out.options, out.endings)
    return out


def fill_values(tables: ScoreTables, solution: SolitaireSolution, state: tuple, now: np.ndarray,
                endings: np.ndarray, at: np.ndarray) -> np.ndarray:
    """(n, R) the worth of ending each game's turn with multiset ``now`` in each row (-inf where not
    allowed), game ``i``'s from ``endings[at[i]]`` (``Endings.endings``)."""
    mask, _, y = (np.asarray(a, np.int64) for a in state)
    fills = np.empty((len(mask), tables.rules.n_rows))
    _fill_values(mask, y, np.asarray(now, np.int64), _moves(tables, solution), params_of(tables.rules), endings,
                 np.asarray(at, np.int64), fills)
    return fills


@njit(cache=True, parallel=True)
def win_utility(dist, others, earned, done, out):
    """``out[i, f]``: the share of the win a final total ``f`` gets in game ``i`` against the players
    ``others[i]`` (state numbers; ``done``: finished on ``earned[i]``), each an independent optimal
    player with ``earned[i]`` points: ties shared, ``E[1 / (1 + ties)]`` when no other total is higher."""
    n, k = others.shape
    length = out.shape[1]
    for i in prange(n):
        below = np.zeros(k)  # P(O_q < f)
        at = np.zeros(k)
        coef = np.empty(k + 1)
        for f in range(length):
            for q in range(k):
                below[q] += at[q]
                if done[i, q]:
                    at[q] = 1.0 if f == earned[i, q] else 0.0
                else:
                    s, x = others[i, q], f - earned[i, q]
                    lo, width = dist.lo[s], dist.start[s + 1] - dist.start[s]
                    at[q] = dist.flat[dist.start[s] + x - lo] if lo <= x < lo + width else 0.0
            coef[0] = 1.0
            for j in range(1, k + 1):
                coef[j] = 0.0
            for q in range(k):  # times (below + z at)
                for j in range(q + 1, 0, -1):
                    coef[j] = coef[j] * below[q] + coef[j - 1] * at[q]
                coef[0] *= below[q]
            share = 0.0
            for j in range(k + 1):
                share += coef[j] / (j + 1)
            out[i, f] = share
