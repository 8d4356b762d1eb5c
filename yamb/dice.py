"""Dice multisets, keeps and the exact probabilities of each roll (the chance nodes).

A hand of ``n`` dice is a multiset, stored as counts of the faces 1..6. There are
252 multisets of five dice and 462 of six. A *keep* is the sub-multiset held
before a reroll (any size from 0 to ``n``): 462 keeps for five dice, 924 for six.
For every keep the table ``outcome_ways`` counts the ordered rolls of the other
dice that complete it to each full multiset, so ``outcome_prob`` is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from yamb.errors import UnknownPresetError

FACES = 6


def counts_of(dice: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Counts of faces 1..6 in a sequence of dice values."""
    return tuple(sum(1 for d in dice if d == f) for f in range(1, FACES + 1))


def _key(counts: np.ndarray, base: int) -> np.ndarray:
    """Integer key of count vectors (last axis of length 6)."""
    powers = base ** np.arange(FACES, dtype=np.int64)
    return counts.astype(np.int64) @ powers


@dataclass(frozen=True, eq=False)
class DiceTables:
    """Every multiset, keep and roll transition for ``n_dice`` dice."""

    n_dice: int
    faces: np.ndarray  # (M, n) sorted dice values of each multiset
    multisets: np.ndarray  # (M, 6) counts of each multiset
    keeps: np.ndarray  # (K, 6) counts of each keep, by size then lexicographic
    keep_size: np.ndarray  # (K,)
    keep_key: np.ndarray  # (K,) integer key of each keep's counts
    keep_of_multiset: np.ndarray  # (M,) index in ``keeps`` of each full multiset
    add_die: np.ndarray  # (K, 6) keep plus one die of face f, -1 when full
    remove_die: np.ndarray  # (K, 6) keep minus one die of face f, -1 when absent
    sub_keeps: np.ndarray  # (M, S) keeps contained in each multiset, padded with -1
    n_sub_keeps: np.ndarray  # (M,)
    outcome_ways: np.ndarray  # (K, M) ordered rolls from keep k to multiset m
    outcome_prob: np.ndarray  # (K, M) exact probability as float64
    key_base: int
    key_to_keep: np.ndarray  # count key -> keep index (-1 for impossible keys)
    roll_prefix_key: np.ndarray  # (n+1, 6**n) key of the counts of the first j base-6 digits
    # of a roll code: the engine rerolls n - |keep| dice by adding them to the keep's key

    @property
    def n_multisets(self) -> int:
        return len(self.multisets)

    @property
    def n_keeps(self) -> int:
        return len(self.keeps)

    def keep_index(self, counts: np.ndarray) -> np.ndarray:
        """Keep indices of count vectors (any leading shape)."""
        return self.key_to_keep[_key(np.asarray(counts), self.key_base)]

    def multiset_index(self, counts: np.ndarray) -> np.ndarray:
        """Multiset indices of full count vectors; -1 where the size is not ``n_dice``."""
        counts = np.asarray(counts)
        keep = self.keep_index(counts)
        full = counts.sum(axis=-1) == self.n_dice
        return np.where(full, keep - (self.n_keeps - self.n_multisets), -1)

    def index_of_dice(self, dice: list[int] | tuple[int, ...]) -> int:
        """Multiset index of a list of dice values."""
        return int(self.multiset_index(np.array(counts_of(tuple(dice)))))


def _sized_multisets(size: int) -> np.ndarray:
    rows = [counts_of(c) for c in combinations_with_replacement(range(1, FACES + 1), size)]
    return np.array(rows, dtype=np.int8).reshape(-1, FACES)


@cache
def dice_tables(n_dice: int) -> DiceTables:
    """The tables for ``n_dice`` dice, computed once per process."""
    if n_dice not in (5, 6):
        raise UnknownPresetError(f"dice must be 5 or 6, not {n_dice}")
    faces = np.array(
        list(combinations_with_replacement(range(1, FACES + 1), n_dice)), dtype=np.int8
    )
    keeps = np.concatenate([_sized_multisets(s) for s in range(n_dice + 1)])
    keep_size = keeps.sum(axis=1).astype(np.int8)
    base = n_dice + 1
    key_to_keep = np.full(base**FACES, -1, dtype=np.int32)
    key_to_keep[_key(keeps, base)] = np.arange(len(keeps), dtype=np.int32)
    n_multisets = len(faces)
    first_full = len(keeps) - n_multisets
    multisets = keeps[first_full:]

    unit = np.eye(FACES, dtype=np.int8)
    plus = keeps[:, None, :] + unit[None, :, :]
    add_die = np.where(keep_size[:, None] < n_dice, key_to_keep[_key(np.minimum(plus, n_dice), base)], -1)
    minus = keeps[:, None, :] - unit[None, :, :]
    remove_die = np.where(minus.min(axis=2) >= 0, key_to_keep[_key(np.maximum(minus, 0), base)], -1)

    contained = (keeps[None, :, :] <= multisets[:, None, :]).all(axis=2)  # (M, K)
    n_sub = contained.sum(axis=1)
    sub_keeps = np.full((n_multisets, n_sub.max()), -1, dtype=np.int32)
    for m in range(n_multisets):
        idx = np.flatnonzero(contained[m])
        sub_keeps[m, : len(idx)] = idx

    outcome_ways = np.zeros((len(keeps), n_multisets), dtype=np.int64)
    for k, keep in enumerate(keeps):
        rest = multisets - keep[None, :]
        ok = (rest >= 0).all(axis=1)
        for m in np.flatnonzero(ok):
            r = rest[m]
            ways = factorial(int(r.sum()))
            for c in r:
                ways //= factorial(int(c))
            outcome_ways[k, m] = ways
    denominators = 6 ** (n_dice - keep_size.astype(np.int64))
    outcome_prob = outcome_ways / denominators[:, None]

    codes = np.arange(FACES**n_dice)
    digits = (codes[:, None] // FACES ** np.arange(n_dice)) % FACES  # (6^n, n)
    onehot = digits[:, :, None] == np.arange(FACES)  # (6^n, n, 6)
    roll_prefix_key = np.stack(
        [_key(onehot[:, :j, :].sum(axis=1), base) for j in range(n_dice + 1)]
    )
    return DiceTables(
        n_dice=n_dice,
        faces=faces,
        multisets=multisets,
        keeps=keeps,
        keep_size=keep_size,
        keep_key=_key(keeps, base),
        keep_of_multiset=np.arange(first_full, len(keeps), dtype=np.int32),
        add_die=add_die.astype(np.int32),
        remove_die=remove_die.astype(np.int32),
        sub_keeps=sub_keeps,
        n_sub_keeps=n_sub.astype(np.int32),
        outcome_ways=outcome_ways,
        outcome_prob=outcome_prob,
        key_base=base,
        key_to_keep=key_to_keep,
        roll_prefix_key=roll_prefix_key,
    )
