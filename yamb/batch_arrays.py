"""The arrays of a batch of games and the constants of its layout, as the compiled kernels take them.

Both are named tuples: numba compiles them and reads their fields by name
at no cost (``state.filled``, ``consts.order``). This is the one list of a
batch's arrays; ``yamb.engine.GameBatch`` documents each, and forks and
copies derive theirs from ``BatchState._fields``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class BatchState(NamedTuple):
    """What changes as N games are played (``N`` games, ``P`` players, ``C`` columns, ``R`` rows)."""

    filled: np.ndarray  # (N, P, C) uint32 row bitmasks
    cells: np.ndarray  # (N, P, C, R) int16 scores
    dice: np.ndarray  # (N,) int32 multiset index
    roll: np.ndarray  # (N,) int8 rolls made this turn
    rolls_allowed: np.ndarray  # (N,) int8
    pure: np.ndarray  # (N,) bool: every die thrown by the latest roll
    announced: np.ndarray  # (N,) int32 announced cell or -1
    answer: np.ndarray  # (N,) int32 counter-announce cell to fill this turn or -1
    player: np.ndarray  # (N,) int32 player to move
    turn: np.ndarray  # (N,) int32 turns played by all players
    last_announced: np.ndarray  # (N, P) int32 row announced in each player's last turn or -1
    bonuses: np.ndarray  # (N, P) int16 extra Yahtzee bonuses
    done: np.ndarray  # (N,) bool
    base: np.ndarray  # (N,) uint64 hash key of each game's dice stream


class Constants(NamedTuple):
    """What the kernels read of a layout and its rules."""

    order: np.ndarray  # (C, 2**R) uint32: allowed rows of each column's filled bitmask, column class above KIND_SHIFT
    n_rows: int
    n_players: int
    scores: np.ndarray  # (multisets, R) score of each hand in each row
    joker_scores: np.ndarray  # (multisets, R) score of a joker Yahtzee
    five_face: np.ndarray  # (multisets,) face of five alike, 0 if none
    keeps_key: np.ndarray  # (keeps,) key offset of each keep
    keep_size: np.ndarray  # (keeps,) int64 dice kept
    prefix_key: np.ndarray  # (dice + 1, 6**dice) key of the faces rolled
    key_to_keep: np.ndarray  # keep index of a key
    n_dice: int
    first_full: int  # keep index of the first full hand (multiset index 0)
    has_jokers: bool
    forced_joker: bool
    yz_row: int  # Yahtzee row under joker rules, else -1
    pure_hand: bool  # an announce cell may be filled with a pure hand
    rolls: int  # rolls of a turn
    last_turn_rolls: int  # rolls of a player's last turn
    sub_keeps: np.ndarray  # (multisets, k) keeps inside each hand, padded with -1
    n_sub_keeps: np.ndarray  # (multisets,)
    popcount: np.ndarray  # (2**R,) rows filled in a bitmask


STATE_ARRAYS = BatchState._fields[:-1]  # the arrays a fork copies; ``base`` comes from its own seed and streams
