"""Turns queued for planning, planned ``BLOCK`` at a time in SIMD lanes (``expected_scores.lanes``).

A queued turn is the options of its endings after each roll, for every hand (and those
open to a pure hand only); its plan is the turn optimizer's, bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from expected_scores.lanes import plan_lanes, plan_values

BLOCK = 64  # turns planned together, one per lane


class Queue(NamedTuple):
    """``BLOCK`` slots of turns to plan (``M`` hands, up to ``rolls`` rolls)."""

    options: np.ndarray  # (BLOCK, rolls, M) the best ending after each roll, by hand
    pure: np.ndarray  # (BLOCK, rolls or 0, M) the same, open to a freshly thrown hand only
    layers: np.ndarray  # (BLOCK,) int64 rolls of each slot's turn
    owner: np.ndarray  # (BLOCK,) int64 what each slot plans for: a game, or a next table
    target: np.ndarray  # (BLOCK,) int64 each slot's commitment (announced or answered cell, or -1)


class Lanes(NamedTuple):
    """Flat work buffers of ``plan_lanes``, reshaped to each roll count, and the lanes' slots."""

    options: np.ndarray
    pure: np.ndarray
    value: np.ndarray
    keep: np.ndarray  # int16
    kv: np.ndarray
    best: np.ndarray
    arg: np.ndarray  # int32
    slot: np.ndarray  # (BLOCK,) int64 the queue slot of each lane
    hands: np.ndarray  # (BLOCK,) int64 the hand each lane holds (when only it is planned)


@njit(cache=True)
def new_queue(rolls, n_multisets, pure_hand):
    """An empty ``Queue`` for turns of up to ``rolls`` rolls."""
    return Queue(np.empty((BLOCK, rolls, n_multisets)), np.empty((BLOCK, rolls if pure_hand else 0, n_multisets)),
                 np.zeros(BLOCK, dtype=np.int64), np.empty(BLOCK, dtype=np.int64), np.empty(BLOCK, dtype=np.int64))


@njit(cache=True)
def new_lanes(rolls, n_multisets, n_keeps, pure_hand):
    """``Lanes`` for ``BLOCK`` turns of up to ``rolls`` rolls."""
    size = rolls * n_multisets * BLOCK
    return Lanes(np.empty(size), np.empty(size if pure_hand else 0), np.empty(size), np.empty(size, dtype=np.int16),
                 np.empty(n_keeps * BLOCK), np.empty(n_keeps * BLOCK), np.empty(n_keeps * BLOCK, dtype=np.int32),
                 np.empty(BLOCK, dtype=np.int64), np.empty(BLOCK, dtype=np.int64))


@njit(cache=True, inline="always")
def gather_slots(queue, n_queued, layers, lanes):
    """The first ``n_queued`` queue slots whose turns have ``layers`` rolls into ``lanes.slot``, in
    queue order (one roll count is planned at a time); returns their number."""
    n_lanes = 0
    for q in range(n_queued):
        if queue.layers[q] == layers:
            lanes.slot[n_lanes] = q
            n_lanes += 1
    return n_lanes


@njit(cache=True, inline="always")
def _copy_in(queue, lanes, n_lanes, layers, held):
    """The options (and pure options) of slots ``lanes.slot[:n_lanes]`` into the lanes (layers, M,
    n_lanes); with ``held`` only hand ``lanes.hands[lane]``'s at the first roll. The copies run
    with the lane innermost: whole cache lines of the lanes are written, the queue's rows stay
    in the cache."""
    queued_options, queued_pure, slot, hands = queue.options, queue.pure, lanes.slot, lanes.hands
    n_multisets = queued_options.shape[2]
    size = layers * n_multisets * n_lanes
    with_pure = queued_pure.shape[1] > 0
    options = lanes.options[:size].reshape((layers, n_multisets, n_lanes))
    pure = lanes.pure[:size if with_pure else 0].reshape((layers if with_pure else 0, n_multisets, n_lanes))
    for t in range(layers):
        if t == 0 and held:
            for lane in range(n_lanes):
                m = hands[lane]
                options[0, m, lane] = queued_options[slot[lane], 0, m]
                if with_pure:
                    pure[0, m, lane] = queued_pure[slot[lane], 0, m]
            continue
        for m in range(n_multisets):
            for lane in range(n_lanes):
                options[t, m, lane] = queued_options[slot[lane], t, m]
            if with_pure:
                for lane in range(n_lanes):
                    pure[t, m, lane] = queued_pure[slot[lane], t, m]
    return options, pure


@njit(cache=True)
def plan_slots(queue, lanes, n_lanes, layers, held, tables, sub_keeps):
    """Plan the queued turns of slots ``lanes.slot[:n_lanes]`` (all of ``layers`` rolls) together;
    returns their ``value`` and ``keep`` (layers, M, n_lanes).

    With ``held`` only hand ``lanes.hands[lane]`` is planned at the first roll (so only its
    option there is copied in).
    """
    options, pure = _copy_in(queue, lanes, n_lanes, layers, held)
    n_multisets = options.shape[1]
    n_keeps = tables.add_die.shape[0]
    size = layers * n_multisets * n_lanes
    value = lanes.value[:size].reshape((layers, n_multisets, n_lanes))
    keep = lanes.keep[:size].reshape((layers, n_multisets, n_lanes))
    plan_lanes(options, pure, tables.add_die, tables.remove_die, tables.first_prob, value, keep,
               lanes.kv[: n_keeps * n_lanes].reshape((n_keeps, n_lanes)),
               lanes.best[: n_keeps * n_lanes].reshape((n_keeps, n_lanes)),
               lanes.arg[: n_keeps * n_lanes].reshape((n_keeps, n_lanes)), lanes.hands[:n_lanes if held else 0],
               sub_keeps)
    return value, keep


@njit(cache=True)
def plan_slot_values(queue, lanes, n_lanes, layers, tables):
    """The values (layers, M, n_lanes) of the plans of slots ``lanes.slot[:n_lanes]``, every hand
    (``plan_slots`` without ``held``, the keeps not chosen: ``plan_values``)."""
    options, pure = _copy_in(queue, lanes, n_lanes, layers, False)
    n_multisets = options.shape[1]
    n_keeps = tables.add_die.shape[0]
    value = lanes.value[:layers * n_multisets * n_lanes].reshape((layers, n_multisets, n_lanes))
    plan_values(options, pure, tables.add_die, tables.remove_die, tables.first_prob, value,
                lanes.kv[: n_keeps * n_lanes].reshape((n_keeps, n_lanes)),
                lanes.best[: n_keeps * n_lanes].reshape((n_keeps, n_lanes)))
    return value
