"""Optimal play of one turn: the best keep after each roll and the turn's expected value.

A turn has ``T`` rolls (3, or 5 on jamb6's last turn; ``GameBatch.rolls_allowed``).
Right after roll ``t`` (1..T) the player holds a multiset ``m`` and either
*ends* the generic keep-and-reroll play, which is worth ``options[t - 1, b, m]``,
or (when ``t < T``) keeps a proper sub-multiset and rolls the other dice.
Batch item ``b`` is one game (or one state, or one row); options may differ
from roll to roll, which is how the caller expresses Yamb's turn rules:

- ordinary fills: the best ``score + future value`` over the fillable cells,
  the same at every roll;
- the ``hand`` column: its fills count in ``options[0]`` only;
- ``announce``: after roll 1, announcing row ``r`` is worth playing the rest
  of the turn for that row alone (``announce_values``; ``row_plan`` when the
  cell is worth its plain score); fold the best into ``options[0]``.
  ``late_announce``: the same after roll 2, folded into ``options[1]``;
- a cell that may not be filled at this roll: leave it out (``-inf`` when
  nothing is allowed, e.g. before a compulsory announcement);
- jamb6's pure hand: ``pure[t - 1, b, m]`` is an extra option available only
  when every die was thrown by roll ``t`` (always after roll 1; later only
  after rerolling all dice).

The recursion (exact in real arithmetic): the value of a keep of size ``s`` is
the mean over the six faces of the value of that keep plus one die, full keeps
being multisets valued after the next roll; the best keep of a multiset is a
max over sub-keeps, built by removing one die at a time. Keeping all dice is
not a move (the engine only rerolls at least one die). Ties prefer stopping,
then the larger keep.

Example (one game, fill ``ones`` of yamb only)::

    r = yamb.rules("yamb")
    plan = plan_turn(r.scores[None, :, 0].astype(float), r.dice, rolls=3)
    plan.start[0]                    # expected score of the turn
    plan.best_keep(np.array([1]), np.array([m]))  # keep after roll 1 holding m
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from yamb.dice import FACES, DiceTables
from yamb.errors import YambError
from yamb.rules import Rules

STOP = -1  # ``TurnPlan.keep`` entry: take the option now


@dataclass(frozen=True)
class TurnPlan:
    """Optimal play of a batch of turns.

    ``value[t, b, m]``: value of holding multiset ``m`` right after roll ``t + 1``
    (``T - 1 - t`` rolls left), playing on optimally. ``keep[t, b, m]``: the best
    keep index (into ``DiceTables.keeps``) then, or ``STOP``; always ``STOP`` after
    the last roll. ``start[b]``: expected value of the turn before its first roll.
    """

    value: np.ndarray  # (T, B, M) float64
    keep: np.ndarray  # (T, B, M) int16
    start: np.ndarray  # (B,) float64

    @property
    def rolls(self) -> int:
        return self.value.shape[0]

    def best_keep(self, roll: np.ndarray, dice: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """Best keep (or ``STOP``) of batch ``items`` (default all) after ``roll`` (1-based) holding ``dice``."""
        items = np.arange(self.value.shape[1]) if items is None else items
        return self.keep[np.asarray(roll) - 1, items, dice]

    def value_after(self, roll: np.ndarray, dice: np.ndarray, items: np.ndarray | None = None) -> np.ndarray:
        """Value of batch ``items`` (default all) right after ``roll`` (1-based) holding ``dice``."""
        items = np.arange(self.value.shape[1]) if items is None else items
        return self.value[np.asarray(roll) - 1, items, dice]


@njit(cache=True)
def _keep_values(next_value, t, b, add_die, first_full, kv):
    """Fill ``kv[k]``: the value of keep ``k`` before a roll whose result is valued ``next_value[t, b]``."""
    n_multisets = next_value.shape[2]
    for m in range(n_multisets):
        kv[first_full + m] = next_value[t, b, m]
    for k in range(first_full - 1, -1, -1):
        s = 0.0
        for f in range(FACES):
            s += kv[np.uintp(add_die[k, f])]  # unsigned: no check for negative indices
        kv[k] = s / FACES


@njit(cache=True)
def _layer(n_layers, t):
    """Layer of roll ``t`` in an array of ``n_layers`` layers: ``t``, or 0 when one serves every roll."""
    return t if n_layers > 1 else 0


@njit(cache=True)
def plan_one(options, pure, b, add_die, remove_die, first_prob, value, keep, kv, best, arg):
    """Optimal play of batch item ``b``: writes ``value[:, b]`` and ``keep[:, b]``, returns the start value.

    The compiled core of ``plan_turn`` for other numba code (the solvers): ``options``
    and ``pure`` as in ``plan_turn`` (``pure`` with a first axis of 0 when unused),
    ``first_prob = DiceTables.outcome_prob[0]``, and work arrays ``kv``, ``best``
    (float64) and ``arg`` (int32) of one entry per keep.

    The loops index the arrays directly: numba counts references to every array
    passed to a call, which costs more than the arithmetic of one element.
    """
    rolls, _, n_multisets = value.shape
    first_full = add_die.shape[0] - n_multisets
    has_pure = pure.shape[0] > 0
    # after the last roll: the option (and the pure hand when it is the only roll)
    t = rolls - 1
    to, tp = _layer(options.shape[0], t), _layer(pure.shape[0], t)
    for m in range(n_multisets):
        v = options[to, b, m]
        if rolls == 1 and has_pure and pure[tp, b, m] > v:
            v = pure[tp, b, m]
        value[t, b, m] = v
        keep[t, b, m] = STOP
    for t in range(rolls - 2, -1, -1):
        _keep_values(value, t + 1, b, add_die, first_full, kv)
        if has_pure:  # rerolling every die makes the hand pure
            to, tp = _layer(options.shape[0], t + 1), _layer(pure.shape[0], t + 1)
            s = 0.0
            for m in range(n_multisets):
                v = options[to, b, m]
                if pure[tp, b, m] > v:
                    v = pure[tp, b, m]
                s += first_prob[m] * max(value[t + 1, b, m], v)
            kv[0] = s
        # the best play of each proper keep: keep it, else its best sub-keep (the first face wins ties)
        for k in range(first_full):
            bk = kv[k]
            ak = k
            for f in range(FACES):
                j = remove_die[k, f]
                if j >= 0 and best[j] > bk:
                    bk = best[j]
                    ak = arg[j]
            best[k] = bk
            arg[k] = ak
        # each hand: stop, else its best proper sub-keep
        to, tp = _layer(options.shape[0], t), _layer(pure.shape[0], t)
        fresh = t == 0 and has_pure
        for m in range(n_multisets):
            v = options[to, b, m]
            if fresh and pure[tp, b, m] > v:
                v = pure[tp, b, m]
            a = STOP
            for f in range(FACES):
                j = remove_die[first_full + m, f]
                if j >= 0 and best[j] > v:
                    v = best[j]
                    a = arg[j]
            value[t, b, m] = v
            keep[t, b, m] = a
    start = 0.0
    for m in range(n_multisets):
        start += first_prob[m] * value[0, b, m]
    return start


@njit(cache=True, parallel=True)
def _plan_batch(options, pure, add_die, remove_die, first_prob, value, keep, start):
    n_keeps = add_die.shape[0]
    for b in prange(value.shape[1]):
        kv = np.empty(n_keeps)
        best = np.empty(n_keeps)
        arg = np.empty(n_keeps, dtype=np.int32)
        start[b] = plan_one(options, pure, b, add_die, remove_die, first_prob, value, keep, kv, best, arg)


@njit(cache=True, parallel=True)
def _keep_values_batch(next_value, add_die, out):
    first_full = add_die.shape[0] - next_value.shape[2]
    for b in prange(next_value.shape[1]):
        kv = np.empty(add_die.shape[0])
        _keep_values(next_value, 0, b, add_die, first_full, kv)
        out[b] = kv


def _per_roll(values: np.ndarray, rolls: int, n_multisets: int, what: str) -> np.ndarray:
    """``values`` as a (T or 1, B, M) float64 array; (B, M) means the same at every roll."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 2:
        values = values[None]
    if values.ndim != 3 or values.shape[0] not in (1, rolls) or values.shape[2] != n_multisets:
        raise YambError(
            f"{what} must have shape (B, {n_multisets}) or ({rolls}, B, {n_multisets}), not {values.shape}"
        )
    return np.ascontiguousarray(values)


def plan_turn(
    options: np.ndarray, dice: DiceTables, rolls: int = 3, pure: np.ndarray | None = None
) -> TurnPlan:
    """Optimal keeps and values of a batch of turns of ``rolls`` rolls.

    ``options``: (B, M), the same after every roll, or (rolls, B, M), one layer per
    roll; ``pure``: the same shapes, options open only to a freshly thrown hand.
    """
    if rolls < 1:
        raise YambError(f"a turn has at least one roll, not {rolls}")
    m = dice.n_multisets
    opts = _per_roll(options, rolls, m, "options")
    pure_opts = np.empty((0, 1, 1)) if pure is None else _per_roll(pure, rolls, m, "pure")
    if pure is not None and pure_opts.shape[1] != opts.shape[1]:
        raise YambError(f"pure has {pure_opts.shape[1]} batch items, options {opts.shape[1]}")
    n = opts.shape[1]
    value = np.empty((rolls, n, m))
    keep = np.empty((rolls, n, m), dtype=np.int16)
    start = np.empty(n)
    _plan_batch(opts, pure_opts, dice.add_die, dice.remove_die, dice.outcome_prob[0], value, keep, start)
    return TurnPlan(value=value, keep=keep, start=start)


def keep_values(next_value: np.ndarray, dice: DiceTables) -> np.ndarray:
    """(B, K) value of every keep before a roll whose resulting multisets are worth ``next_value`` (B, M)."""
    values = _per_roll(next_value, 1, dice.n_multisets, "next_value")
    out = np.empty((values.shape[1], dice.n_keeps))
    _keep_values_batch(values, dice.add_die, out)
    return out


def announce_values(row_options: np.ndarray, dice: DiceTables, rolls: int, roll: int, held: np.ndarray) -> np.ndarray:
    """(B, A): value of announcing each of A candidate rows right after ``roll`` holding ``held`` (B,).

    ``row_options`` (B, A, M): the value of filling each candidate row with each
    multiset. The announced row is then played alone for the ``rolls - roll``
    rerolls left (``announce``: roll 1; ``late_announce``: roll 2).
    """
    n, a, m = np.shape(row_options)
    plan = plan_turn(np.reshape(row_options, (n * a, m)), dice, rolls - roll + 1)
    return plan.value[0].reshape(n, a, m)[np.arange(n), :, np.asarray(held)]


def row_plan(rules: Rules, rolls: int = 3, lowest: bool = False) -> TurnPlan:
    """Each row played alone for its score: batch item ``r`` is row ``r``.

    With ``lowest`` the aim is the lowest score and the values are the negated
    scores (``-plan.start`` is the expected score). This is the value of an
    announced row when the cell is worth its score (plus a constant).
    """
    sign = -1.0 if lowest else 1.0
    return plan_turn(sign * rules.scores.T.astype(np.float64), rules.dice, rolls)
