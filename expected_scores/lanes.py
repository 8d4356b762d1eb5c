"""The turn optimizer's recursion for several turns at once, one turn per SIMD lane.

``expected_scores.turn.plan_one`` plans one turn: keep values built one die at
a time, then the best sub-keep of every hand. The keep and hand tables are
the same for every turn, so with the turn as the innermost array axis each
step of the recursion is one vector operation over many turns. This computes
``plan_one`` of ``L`` turns with arrays of shape (rolls, M, L): the same
operations in the same order, so the values and keeps are bit for bit those
of ``plan_one`` (ties prefer stopping, then the larger keep), several times
faster.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from expected_scores.turn import STOP
from yamb.dice import FACES

NO_HANDS = np.empty(0, dtype=np.int64)  # ``plan_lanes``'s ``hands``: plan every hand of the first roll


@njit(cache=True, inline="always")
def _pure_counts(pure, after_full_throw):
    """Whether ``_option`` reads the pure hand's options after a roll: after a full throw, on a
    table with pure hands. Decided once per roll (a flag, not an array chosen: numba counts the
    references of an array chosen in a loop), so the compiler takes the branch out of the loops."""
    return after_full_throw and pure.shape[0] > 0


@njit(cache=True, inline="always")
def _option(options, pure, counts, t, m, lane):
    """``turn._option`` of one lane after roll ``t + 1`` for hand ``m`` (``counts``: ``_pure_counts``)."""
    v = options[t, m, lane]
    if counts:
        p = pure[t, m, lane]
        v = p if p > v else v
    return v


@njit(cache=True, inline="always")
def _keep_values(t, options, pure, add_die, first_prob, value, kv):
    """``kv[k, lane]``: the value of keeping ``k`` after roll ``t + 1``, the next roll's ``value[t + 1]``
    averaged over the dice added (the whole hands' first, then the smaller keeps' from them)."""
    n_multisets, lanes = options.shape[1], options.shape[2]
    first_full = add_die.shape[0] - n_multisets
    for m in range(n_multisets):
        for lane in range(lanes):
            kv[first_full + m, lane] = value[t + 1, m, lane]
    for k in range(first_full - 1, -1, -1):
        a0, a1, a2 = add_die[k, 0], add_die[k, 1], add_die[k, 2]
        a3, a4, a5 = add_die[k, 3], add_die[k, 4], add_die[k, 5]
        for lane in range(lanes):
            s = 0.0
            s += kv[a0, lane]
            s += kv[a1, lane]
            s += kv[a2, lane]
            s += kv[a3, lane]
            s += kv[a4, lane]
            s += kv[a5, lane]
            kv[k, lane] = s / FACES
    if pure.shape[0] > 0:  # rerolling every die makes the hand pure: each lane's sum in hand order
        pure_keep = kv[0]
        for lane in range(lanes):
            pure_keep[lane] = 0.0
        for m in range(n_multisets):
            p = first_prob[m]
            for lane in range(lanes):
                v, o = value[t + 1, m, lane], _option(options, pure, True, t + 1, m, lane)
                pure_keep[lane] += p * (o if o > v else v)


@njit(cache=True)
def plan_lanes(options, pure, add_die, remove_die, first_prob, value, keep, kv, best, arg, hands, sub_keeps):
    """``plan_one`` of every lane: options and pure (rolls or 0, M, L) to value and keep (rolls, M, L).

    Work arrays ``kv``, ``best`` (K, L) float64 and ``arg`` (K, L) int32. With
    ``hands`` (L,) int64 (not empty), only hand ``hands[lane]`` of the first roll is planned (the
    one held; the other hands of ``value[0]`` and ``keep[0]`` are left unset),
    from its sub-keeps ``sub_keeps`` (``DiceTables.sub_keeps``, increasing, the
    hand itself last): the same comparisons in the same order, so the same plan.
    """
    rolls, n_multisets, lanes = options.shape
    first_full = add_die.shape[0] - n_multisets
    counts = _pure_counts(pure, rolls == 1)
    for m in range(n_multisets):
        for lane in range(lanes):
            value[rolls - 1, m, lane] = _option(options, pure, counts, rolls - 1, m, lane)
            keep[rolls - 1, m, lane] = STOP
    for t in range(rolls - 2, -1, -1):
        _keep_values(t, options, pure, add_die, first_prob, value, kv)
        if t == 0 and hands.shape[0] > 0:
            _plan_hands(options, pure, remove_die, first_full, hands, sub_keeps, value, keep, kv, best, arg)
            continue
        for k in range(first_full):
            for lane in range(lanes):
                best[k, lane] = kv[k, lane]
                arg[k, lane] = k
            for f in range(FACES):
                j = remove_die[k, f]
                if j >= 0:
                    for lane in range(lanes):
                        better = best[j, lane] > best[k, lane]
                        best[k, lane] = best[j, lane] if better else best[k, lane]
                        arg[k, lane] = arg[j, lane] if better else arg[k, lane]
        counts = _pure_counts(pure, t == 0)
        for m in range(n_multisets):
            for lane in range(lanes):
                value[t, m, lane] = _option(options, pure, counts, t, m, lane)
                keep[t, m, lane] = STOP
            for f in range(FACES):
                j = remove_die[first_full + m, f]
                if j >= 0:
                    for lane in range(lanes):
                        better = best[j, lane] > value[t, m, lane]
                        value[t, m, lane] = best[j, lane] if better else value[t, m, lane]
                        keep[t, m, lane] = arg[j, lane] if better else keep[t, m, lane]


@njit(cache=True)
def plan_values(options, pure, add_die, remove_die, first_prob, value, kv, best):
    """``plan_lanes``' values alone, every hand of the first roll planned (no keeps): the same
    comparisons in the same order, so the same values, without choosing the keeps."""
    rolls, n_multisets, lanes = options.shape
    first_full = add_die.shape[0] - n_multisets
    counts = _pure_counts(pure, rolls == 1)
    for m in range(n_multisets):
        for lane in range(lanes):
            value[rolls - 1, m, lane] = _option(options, pure, counts, rolls - 1, m, lane)
    for t in range(rolls - 2, -1, -1):
        _keep_values(t, options, pure, add_die, first_prob, value, kv)
        for k in range(first_full):
            for lane in range(lanes):
                best[k, lane] = kv[k, lane]
            for f in range(FACES):
                j = remove_die[k, f]
                if j >= 0:
                    for lane in range(lanes):  # plan_lanes' comparison (ties keep the first)
                        best[k, lane] = best[j, lane] if best[j, lane] > best[k, lane] else best[k, lane]  # noqa: FURB136
        counts = _pure_counts(pure, t == 0)
        for m in range(n_multisets):
            for lane in range(lanes):
                value[t, m, lane] = _option(options, pure, counts, t, m, lane)
            for f in range(FACES):
                j = remove_die[first_full + m, f]
                if j >= 0:
                    for lane in range(lanes):
                        v = value[t, m, lane]
                        value[t, m, lane] = best[j, lane] if best[j, lane] > v else v  # noqa: FURB136


@njit(cache=True, inline="always")
def _plan_hands(options, pure, remove_die, first_full, hands, sub_keeps, value, keep, kv, best, arg):
    """The first roll's plan of hand ``hands[lane]`` alone in each lane: its sub-keeps' best plays,
    then its own (the lanes' loop inside: numba counts this function's arrays' references at
    each call)."""
    counts = _pure_counts(pure, True)
    for lane in range(len(hands)):
        m = hands[lane]
        for i in range(sub_keeps.shape[1]):
            k = sub_keeps[m, i]
            if k < 0 or k >= first_full:  # padding, or the whole hand (last)
                break
            best[k, lane] = kv[k, lane]
            arg[k, lane] = k
            for f in range(FACES):
                j = remove_die[k, f]
                if j >= 0 and best[j, lane] > best[k, lane]:
                    best[k, lane] = best[j, lane]
                    arg[k, lane] = arg[j, lane]
        value[0, m, lane] = _option(options, pure, counts, 0, m, lane)
        keep[0, m, lane] = STOP
        for f in range(FACES):
            j = remove_die[first_full + m, f]
            if j >= 0 and best[j, lane] > value[0, m, lane]:
                value[0, m, lane] = best[j, lane]
                keep[0, m, lane] = arg[j, lane]


def plan_many(options: np.ndarray, dice, pure: np.ndarray | None = None,
              hands: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Values and keeps (rolls, B, M) of B turns with options (and pure options) (rolls, B, M).

    With ``hands`` (B,), the first roll is planned for hand ``hands[b]`` of turn ``b`` only.
    """
    o = np.ascontiguousarray(np.asarray(options, dtype=np.float64).transpose(0, 2, 1))
    p = np.zeros((0,) + o.shape[1:]) if pure is None else np.ascontiguousarray(np.transpose(pure, (0, 2, 1)))
    value, keep = np.empty_like(o), np.empty(o.shape, dtype=np.int16)
    lanes = o.shape[2]
    plan_lanes(o, p, dice.add_die, dice.remove_die, dice.outcome_prob[0], value, keep,
               np.empty((dice.n_keeps, lanes)), np.empty((dice.n_keeps, lanes)),
               np.empty((dice.n_keeps, lanes), dtype=np.int32),
               NO_HANDS if hands is None else np.asarray(hands, dtype=np.int64), dice.sub_keeps)
    return value.transpose(0, 2, 1), keep.transpose(0, 2, 1)
