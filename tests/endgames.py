"""Brute force over every roll of small Yatzy and Yahtzee endgames: a player's distribution of final
totals, its chance of a target, and the best worth of a final total over every way of playing."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from yamb.engine import GameBatch


def start_batch(lay, cells: tuple, n: int, others: tuple = ()) -> GameBatch:
    """``n`` games at the start of player 0's turn with ``cells`` (None: open) written, and the other
    players' sheets ``others``."""
    batch = GameBatch(lay, n)
    for p, sheet in enumerate((cells, *others)):
        for r, score in enumerate(sheet):
            if score is not None:
                batch.filled[:, p, 0] |= np.uint32(1 << r)
                batch.cells[:, p, 0, r] = score
    return batch


class BruteForce:
    """Every roll of an endgame enumerated: final totals from ``Rules.column_totals`` plus the extra
    Yahtzee bonuses; ``dist``, the distribution under a player's own choices (asked on a ``GameBatch``
    for every hand, player 0 to move, the others' sheets ``others``), and ``best``, the largest expected
    worth of the final total by an exhaustive keep search (``worth(total)``: a vector, each entry its own
    optimisation)."""

    def __init__(self, lay, player, most: int, others: tuple = ()) -> None:
        self.rules, self.lay, self.player, self.others = lay.rules, lay, player, others
        self.most = most  # final totals 0..most
        dice = self.rules.dice
        self.five = dice.multisets.max(axis=1) == 5
        self.face = dice.multisets.argmax(axis=1)
        self.yz = self.rules.row_index("yahtzee") if self.rules.has_jokers else None

    def _fill(self, cells: tuple, extra: int, m: int, r: int) -> tuple[tuple, int]:
        rules, yz = self.rules, self.yz
        bonus = int(yz is not None and self.five[m] and cells[yz] == 50)
        joker = yz is not None and self.five[m] and cells[yz] is not None and cells[self.face[m]] is not None
        score = int((rules.joker_scores if joker else rules.scores)[m, r])
        return cells[:r] + (score,) + cells[r + 1:], extra + bonus

    def total(self, cells: tuple, extra: int) -> int:
        return int(self.rules.column_totals(np.array(cells))["total"]) + self.rules.spec.extra_yahtzee_bonus * extra

    @cache
    def dist(self, cells: tuple, extra: int) -> np.ndarray:
        """Probabilities of each final total (0..most) under the player."""
        out = np.zeros(self.most + 1)
        if None not in cells:
            out[self.total(cells, extra)] = 1.0
            return out
        dice = self.rules.dice
        n = dice.n_multisets
        batch = start_batch(self.lay, cells, n, self.others)
        batch.bonuses[:, 0] = extra
        batch.dice[:] = np.arange(n)
        n_cells = self.lay.n_cells
        final = np.zeros((n, self.most + 1))
        layer = None
        for roll in range(self.rules.rolls, 0, -1):
            batch.roll[:] = roll
            actions = self.player.act(batch, np.arange(n))
            now = np.zeros((n, self.most + 1))
            for m in range(n):
                a = int(actions[m])
                if a < n_cells:
                    if not final[m].any():
                        final[m] = self.dist(*self._fill(cells, extra, m, a))
                    now[m] = final[m]
                else:
                    now[m] = dice.outcome_prob[a - n_cells] @ layer
            layer = now
        return dice.outcome_prob[0] @ layer

    def best(self, cells: tuple, extra: int, worth: Callable[[int], np.ndarray]) -> np.ndarray:
        """The largest expected ``worth`` of the final total, over every way of playing."""

        @cache
        def value(cells: tuple, extra: int) -> np.ndarray:
            if None not in cells:
                return np.asarray(worth(self.total(cells, extra)), dtype=float)
            dice = self.rules.dice
            leaf = None
            for m in range(dice.n_multisets):
                for r in [r for r, c in enumerate(cells) if c is None]:
                    v = value(*self._fill(cells, extra, m, r))
                    if leaf is None:
                        leaf = np.full((dice.n_multisets, len(v)), -np.inf)
                    leaf[m] = np.maximum(leaf[m], v)
            first_full = dice.n_keeps - dice.n_multisets
            subs = dice.sub_keeps
            proper = (subs >= 0) & (subs < first_full)
            out = leaf
            for _ in range(self.rules.rolls - 1):
                kept = dice.outcome_prob @ out  # (K, T)
                best = np.where(proper[:, :, None], kept[np.where(proper, subs, 0)], -np.inf).max(axis=1)
                out = np.maximum(leaf, best)
            return dice.outcome_prob[0] @ out

        return value(cells, extra)
