"""Compiled (numba) inner loops of the batched engine.

The turn rules live here, once: which cells a game may fill, which it may
announce, whether it must announce, whether it may roll again (``decision``,
and ``decide``, the same for a game of a batch), what a fill scores, jokers
included (``fill_score``, which the players call too), and what an action does
to a game (``apply``).
``yamb.engine.GameBatch`` is the readable face of these functions and
documents the arrays.

Performance notes:
- numba counts references of every array passed to a function that is not
  inlined (about 10 ns per array per call, far more when threads contend for
  the count). ``decision`` and ``decide`` are therefore inlined into their
  callers. Where a kernel reads the fields of the state and constant tuples,
  before its loop or inside it, was measured kernel by kernel: ``apply`` ran
  2.5 times slower reading them inside its parallel loop, ``decide`` inside
  the loops of ``legal`` and of the players as fast as the arguments bound
  before them.
- Loops over games run on all numba threads (``prange``); games are
  independent, so the results do not depend on the number of threads. The
  engine runs small batches on one thread (waking threads costs more), and
  ``OMP_WAIT_POLICY`` defaults to ``PASSIVE`` so that idle OpenMP threads
  sleep rather than spin.
- A parallel loop may silently lose its writes to arrays unpacked from a tuple
  (numba issue 5872), so ``apply`` takes the state arrays one by one; the
  other kernels write only to arrays passed directly.
- numba caches a compiled function per source file and does not notice when a
  function it calls changes in another file: after editing this module, delete
  the ``__pycache__/*.nbi`` and ``*.nbc`` files of modules whose compiled code
  calls ``decision``, ``decide``, ``fill_score`` or ``counter_hash`` (the players), or they
  keep the old copy.

The state and constant tuples are ``yamb.batch_arrays.BatchState`` and ``Constants``.
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit, prange

# OpenMP workers that sleep between parallel loops instead of spinning: spinning
# workers make every loop several times slower when other processes share the
# cores. Read when numba first runs a parallel loop; a value already set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Column classes, stored above the row bits of each ``order`` table entry.
ORDINARY, HAND, ANNOUNCE, LATE, COUNTER = 0, 1, 2, 3, 4
KIND_SHIFT = 24
ROW_BITS = (1 << KIND_SHIFT) - 1
NUMBER_ROWS = 6
START_TURN = -1  # pseudo-action of ``apply``: start the turn and roll all dice
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def mix64(x):
    """SplitMix64 finalizer: a bijective scramble of a uint64."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def counter_hash(base, turn, roll, salt):
    """Hash of a game's base key and its (turn, roll, salt) counter."""
    counter = (np.uint64(turn) << np.uint64(8)) | np.uint64(roll) | (np.uint64(salt) << np.uint64(40))
    return mix64(base + counter * GOLDEN)


@njit(cache=True)
def stream_keys(seed, streams):
    """Base hash key of each dice stream under ``seed``."""
    seed_key = mix64(seed * GOLDEN + np.uint64(1))
    out = np.empty(len(streams), dtype=np.uint64)
    for i in range(len(streams)):
        out[i] = mix64(mix64(streams[i] + np.uint64(1)) ^ seed_key)
    return out


@njit(cache=True, inline="always")
def decision(filled, g, p, order, out, i, roll, rolls_allowed, announced, answer, pure, face,
             n_rows, pure_hand, forced_joker, yz_row):
    """Legal fills and announcements of player ``p`` in game ``g``; returns (must_announce, may_roll).

    ``face`` is the face of five alike among the dice (0 if none). Writes the
    fillable row bitmasks to ``out[i, 0]`` and the announceable ones to ``out[i, 1]``.
    Inlined into its callers, so that the arrays it reads cost no reference counts.
    """
    n_cols = order.shape[0]
    row_bits = np.uint32(ROW_BITS)
    # Pass 1: which column classes have a row their order rule allows.
    open_kinds = 0
    for c in range(n_cols):
        entry = order[c, filled[g, p, c]]
        if entry & row_bits:
            open_kinds |= 1 << (entry >> KIND_SHIFT)
    ordinary_open = open_kinds & (1 << ORDINARY) != 0
    late_open = open_kinds & (1 << LATE) != 0
    committed = announced >= 0 or answer >= 0
    first = roll == 1 and not committed
    # Classes whose rows may be announced now, and whether announcing is the only way on.
    announcing = 0
    if first:
        announcing |= 1 << ANNOUNCE
        if open_kinds == 1 << COUNTER:
            announcing |= 1 << COUNTER
    elif roll == 2 and not committed:
        announcing |= 1 << LATE
    announcing &= open_kinds
    pass_ok = ordinary_open or (first and (
        open_kinds & (1 << HAND) != 0 or (late_open and rolls_allowed >= 2)))
    must = announcing != 0 and not pass_ok
    # Classes whose allowed rows may be filled now.
    filling = 0
    if not committed and not must:
        filling = 1 << ORDINARY
        if roll == 1:
            filling |= 1 << HAND
        if pure_hand and pure and open_kinds & ~(1 << ANNOUNCE) != 0:
            filling |= 1 << ANNOUNCE
    cell = announced if announced >= 0 else answer
    # Pass 2: the bitmasks of each column.
    for c in range(n_cols):
        own = filled[g, p, c]
        entry = order[c, own]
        bits = entry & row_bits
        kind_bit = 1 << (entry >> KIND_SHIFT)
        out[i, 1, c] = bits if announcing & kind_bit else np.uint32(0)
        if committed:
            f = np.uint32(1) << np.uint32(cell % n_rows) if cell // n_rows == c else np.uint32(0)
        elif filling & kind_bit:
            f = bits
            if forced_joker and face > 0 and (own >> np.uint32(yz_row)) & np.uint32(1):
                f = forced_joker_rows(f, face)
        else:
            f = np.uint32(0)
        out[i, 0, c] = f
    may_roll = roll < rolls_allowed and not must and (
        committed or ordinary_open or (late_open and roll == 1)
    )
    return must, may_roll


@njit(cache=True, inline="always")
def forced_joker_rows(rows, face):
    """Rows of ``rows`` where the forced joker rule sends a Yahtzee of ``face``.

    Its face's upper row if allowed, else the allowed lower rows, else the
    allowed upper rows (which then score 0).
    """
    face_bit = np.uint32(1) << np.uint32(face - 1)
    lower = rows & ~np.uint32((1 << NUMBER_ROWS) - 1)
    if rows & face_bit:
        return face_bit
    return lower if lower else rows


@njit(cache=True, inline="always")
def decide(state, consts, g, out, i):
    """``decision`` of game ``g`` of a batch for its player to move, written to ``out[i]``.

    ``state`` and ``consts`` are a batch's ``BatchState`` and ``Constants``.
    Returns (must_announce, may_roll).
    """
    return decision(
        state.filled, g, state.player[g], consts.order, out, i, state.roll[g], state.rolls_allowed[g],
        state.announced[g], state.answer[g], state.pure[g], consts.five_face[state.dice[g]], consts.n_rows,
        consts.pure_hand, consts.forced_joker, consts.yz_row,
    )


@njit(cache=True, parallel=True)
def legal(games, state, consts, out, must_out, roll_out):
    """``decision`` for each game of ``games``; outputs are indexed like ``games``."""
    for i in prange(len(games)):
        must, may_roll = decide(state, consts, games[i], out, i)
        must_out[i] = must
        roll_out[i] = may_roll


@njit(cache=True, parallel=True)
def illegal(games, actions, state, consts, out, bad):
    """Set ``bad[i]`` when ``actions[i]`` is illegal in game ``games[i]`` (``out`` is scratch)."""
    dice, done = state.dice, state.done
    n_rows, keep_size, n_dice = consts.n_rows, consts.keep_size, consts.n_dice
    sub_keeps, n_sub_keeps = consts.sub_keeps, consts.n_sub_keeps
    n_cells = consts.order.shape[0] * n_rows
    n_keeps = len(keep_size)
    one = np.uint32(1)
    for i in prange(len(games)):
        g = games[i]
        a = actions[i]
        ok = False
        if not done[g] and 0 <= a < 2 * n_cells + n_keeps:
            _, may_roll = decide(state, consts, g, out, i)
            if a < n_cells:
                ok = (out[i, 0, a // n_rows] >> np.uint32(a % n_rows)) & one == one
            elif a >= n_cells + n_keeps:
                cell = a - n_cells - n_keeps
                ok = (out[i, 1, cell // n_rows] >> np.uint32(cell % n_rows)) & one == one
            elif may_roll and keep_size[a - n_cells] < n_dice:
                m = dice[g]
                for j in range(n_sub_keeps[m]):
                    ok |= sub_keeps[m, j] == a - n_cells
        bad[i] = not ok


@njit(cache=True, inline="always")
def is_joker(has_jokers, face, yz_row, own):
    """Whether five alike of ``face`` (0: not five alike) is a joker in a column with filled rows
    ``own``: a further Yahtzee, the column's Yahtzee row and the upper row of its face filled
    (``Rules.joker_scores``)."""
    one = np.uint32(1)
    return has_jokers and face > 0 and (own >> np.uint32(yz_row)) & one == one and (
        (own >> np.uint32(face - 1)) & one == one)


@njit(cache=True, inline="always")
def fill_score(scores, joker_scores, five_face, has_jokers, yz_row, own, m, r):
    """What filling row ``r`` of a column with filled rows ``own`` scores with hand ``m`` (a joker's
    score when ``is_joker``)."""
    if is_joker(has_jokers, five_face[m], yz_row, own):
        return joker_scores[m, r]
    return scores[m, r]


@njit(cache=True, parallel=True)
def apply(games, actions, filled, cells, dice, roll, rolls_allowed, pure, announced, answer,
          player, turn, last_announced, bonuses, done, base, consts):
    """Apply one action per game (distinct games): fill, keep and reroll, or announce.

    A fill passes the turn; the next turn starts at once with a roll of all dice.
    The pseudo-action ``START_TURN`` starts the current turn (a new game). The
    state arrays come one by one: a parallel loop may lose its writes to arrays
    unpacked from a tuple (numba issue 5872).
    """
    order, n_rows, n_players, n_dice = consts.order, consts.n_rows, consts.n_players, consts.n_dice
    scores, joker_scores, five_face = consts.scores, consts.joker_scores, consts.five_face
    has_jokers, yz_row, popcount = consts.has_jokers, consts.yz_row, consts.popcount
    keeps_key, keep_size, prefix_key = consts.keeps_key, consts.keep_size, consts.prefix_key
    key_to_keep, first_full = consts.key_to_keep, consts.first_full
    rolls, last_turn_rolls = consts.rolls, consts.last_turn_rolls
    n_cols = order.shape[0]
    n_cells = n_cols * n_rows
    n_keeps = len(keep_size)
    n_codes = np.uint64(6**n_dice)
    one = np.uint32(1)
    for i in prange(len(games)):
        g = games[i]
        a = actions[i]
        keep = 0
        if a >= n_cells + n_keeps:  # announce
            announced[g] = a - n_cells - n_keeps
            continue
        if a >= n_cells:  # keep and reroll the rest
            keep = a - n_cells
        else:
            if a >= 0:  # fill the cell and pass the turn
                p = player[g]
                c = a // n_rows
                r = a % n_rows
                m = dice[g]
                own = filled[g, p, c]
                if has_jokers and five_face[m] > 0 and cells[g, p, c, yz_row] == 50:
                    bonuses[g, p] += 1  # an extra Yahtzee
                cells[g, p, c, r] = fill_score(scores, joker_scores, five_face, has_jokers, yz_row, own, m, r)
                filled[g, p, c] = own | (one << np.uint32(r))
                last_announced[g, p] = announced[g] % n_rows if announced[g] >= 0 else -1
                turn[g] += 1
                player[g] = p + 1 if p + 1 < n_players else 0
                if turn[g] >= n_players * n_cells:
                    done[g] = True
                    continue
            # start the turn of the player to move
            p = player[g]
            roll[g] = 0
            announced[g] = -1
            answer[g] = -1
            rolls_allowed[g] = rolls
            if last_turn_rolls != rolls:
                open_cells = 0
                for c in range(n_cols):
                    open_cells += n_rows - popcount[filled[g, p, c]]
                if open_cells == 1:
                    rolls_allowed[g] = last_turn_rolls
            previous = last_announced[g, p - 1 if p > 0 else n_players - 1]
            if n_players > 1 and previous >= 0:
                for c in range(n_cols):
                    counter = order[c, 0] >> KIND_SHIFT == COUNTER
                    if counter and (filled[g, p, c] >> np.uint32(previous)) & one == 0:
                        answer[g] = c * n_rows + previous
                        break
        # roll the dice outside ``keep``
        roll[g] += 1
        code = counter_hash(base[g], turn[g], roll[g], 0) % n_codes
        key = keeps_key[keep] + prefix_key[n_dice - keep_size[keep], code]
        dice[g] = key_to_keep[key] - first_full
        pure[g] = keep_size[keep] == 0


@njit(cache=True)
def uniforms(games, state, salt, out):
    """Uniform floats in [0, 1), one per game, from the counter hash with ``salt``."""
    roll, turn, base = state.roll, state.turn, state.base
    for i in range(len(games)):
        g = games[i]
        h = counter_hash(base[g], turn[g], roll[g], salt)
        out[i] = np.float64(h >> np.uint64(11)) * 2.0**-53
