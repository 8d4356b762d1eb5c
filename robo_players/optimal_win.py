"""``optimal-reach@T`` and ``optimal-win``: Yatzy and Yahtzee played for a target or for the win.

Both plan each turn exactly (``expected_scores.turn.plan_turn``) over the worth
of each way of ending it, read from the score tables of
``expected_scores.distributions``:

- ``optimal-reach@T`` (alone): an ending is worth the largest chance of a final
  total of at least ``T`` from the state it leads to, so every decision
  maximises that chance; the chance at the start of the game is the tables'
  ``chances(start, T)``, exactly.
- ``optimal-win`` (any number of players): a final total ``f`` is worth the
  share of the win it gets against the others' final totals, each another
  player's points plus the distribution of the rest of its game under
  ``optimal`` play, independent of ours (``win_utility``: ties shared). The
  later turns of our own game are valued by that distribution under optimal
  play (``by_reach=False``: Pawlewicz's combination of single-player
  distributions) or by the reach chances, each threshold at its best
  (``by_reach=True``: Holderied's). On the game's last turn, with the others
  done, both are the exact chance of winning.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from functools import partial

import numpy as np

from expected_scores.distributions import (
    Endings,
    ScoreTables,
    Utility,
    cached_tables,
    ending_values,
    fill_values,
    new_endings,
    score_tables,
    win_utility,
)
from expected_scores.solitaire import SolitaireSolution
from expected_scores.solve import solve, table_kind
from expected_scores.turn import STOP, plan_turn
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import Layout

REACH = re.compile(r"optimal-reach@(\d+)")


def check_tables(layout: Layout) -> None:
    """Nothing when ``layout`` is one free column of Yatzy or Yahtzee, else a precise error."""
    rules = layout.rules
    if table_kind(rules, layout.columns) != "free" or rules.spec.difference is not None:
        raise YambError(f"the score tables exist for one free column of yatzy or yahtzee, not {rules.name} "
                        f"{','.join(layout.columns)}")


class TablePlayer:
    """Plays each turn for the utility ``utility(batch, games)`` of its final total; ``tables`` may be a
    function that loads them (at the first move: minutes to build when not cached)."""

    name = "table"

    def __init__(self, solution: SolitaireSolution, tables: ScoreTables | Callable[[], ScoreTables],
                 by_reach: bool) -> None:
        self.solution, self._tables, self.by_reach = solution, tables, by_reach
        # each batch's games: the turn their kept endings were valued for (-1: none yet), and the endings
        self._endings: weakref.WeakKeyDictionary[GameBatch, tuple[np.ndarray, Endings]] = weakref.WeakKeyDictionary()

    @property
    def tables(self) -> ScoreTables:
        if not isinstance(self._tables, ScoreTables):
            self._tables = self._tables()
        return self._tables

    def utility(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _turn_endings(self, batch: GameBatch, games: np.ndarray) -> Endings:
        """Every game of ``batch``'s ``Endings`` (N, ...), those of ``games`` for their turns now: valued at
        a turn's first decision and kept for its later rolls (nothing they depend on changes within a
        turn)."""
        if batch not in self._endings:
            self._endings[batch] = (np.full(batch.n_games, -1, dtype=np.int64), new_endings(batch.rules, batch.n_games))
        turn_of, kept = self._endings[batch]
        fresh = games[turn_of[games] != batch.turn[games]]
        if len(fresh):
            base = batch.scores()[fresh, batch.player[fresh]].astype(np.int64)
            utility = Utility(self.utility(batch, fresh), base, self.by_reach)
            made = ending_values(self.tables, self.solution, self.solution.state_of(batch, fresh), utility)
            kept.options[fresh], kept.endings[fresh] = made
            turn_of[fresh] = batch.turn[fresh]
        return kept

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        state = self.solution.state_of(batch, games)
        dice = batch.dice[games].astype(np.int64)
        kept = self._turn_endings(batch, games)
        options = kept.options[games]
        fills = fill_values(self.tables, self.solution, state, dice, kept.endings, games)
        actions = np.argmax(fills, axis=1).astype(np.int64)  # column 0
        left = (batch.rolls_allowed[games] - batch.roll[games]).astype(np.int64)
        for rerolls in np.unique(left[left > 0]):
            at = np.flatnonzero(left == rerolls)
            plan = plan_turn(options[at], batch.rules.dice, rolls=int(rerolls) + 1)
            keep = plan.best_keep(np.ones(len(at), dtype=np.int64), dice[at])
            rolling = keep != STOP
            actions[at[rolling]] = batch.layout.n_cells + keep[rolling]
        return actions


class ReachPlayer(TablePlayer):
    """Maximises the chance of a final total of at least ``target``."""

    def __init__(self, solution: SolitaireSolution, tables: ScoreTables | Callable[[], ScoreTables],
                 target: int) -> None:
        super().__init__(solution, tables, by_reach=True)
        self.target = target
        self.name = f"optimal-reach@{target}"

    def utility(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        out = np.zeros((len(games), self.target + 1))
        out[:, self.target] = 1.0
        return out

    def chance(self) -> float:
        """The chance of reaching the target from the start of a game, from the tables."""
        return float(self.tables.chances(self.tables.state(0, 0), self.target))


class WinPlayer(TablePlayer):
    """Maximises its share of the wins against players of ``optimal``."""

    name = "optimal-win"

    def utility(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        n_players = batch.layout.players
        me = batch.player[games].astype(np.int64)
        others = (me[:, None] + np.arange(1, n_players)[None, :]) % n_players  # (n, P - 1)
        totals = batch.scores()[games].astype(np.int64)
        earned = np.take_along_axis(totals, others, axis=1)
        done = np.take_along_axis(batch.filled[games, :, 0] == (1 << batch.rules.n_rows) - 1, others, axis=1)
        states = np.zeros(others.shape, dtype=np.int64)
        for j in range(others.shape[1]):
            mask, upper, y = self.solution.state_of(batch, games, others[:, j])
            states[:, j] = np.where(done[:, j], 0, self.tables.index[mask, upper, y])
        dist = self.tables.dist
        widest = int((dist.lo + np.diff(dist.start)).max())
        length = int(earned.max(initial=0)) + widest + 2  # above every other final total: worth 1
        out = np.empty((len(games), length))
        win_utility(dist, states, earned, done, out)
        return out


def tables_of(preset: str, joker: str | None) -> ScoreTables:
    """The score tables: mapped from the cache file when built (no load time, shared by every player of the
    process), else built (and cached)."""
    return cached_tables(preset, joker) or score_tables(preset, joker)


def reach_player(layout: Layout, target: int) -> ReachPlayer:
    """``optimal-reach@target`` for ``layout`` (a solitaire Yatzy or Yahtzee table)."""
    check_tables(layout)
    if layout.players != 1:
        raise YambError(f"optimal-reach@{target} plays alone, not at a table of {layout.players}")
    rules = layout.rules
    return ReachPlayer(solve(rules.name, joker=rules.joker), partial(tables_of, rules.name, rules.joker), target)


def win_player(layout: Layout, by_reach: bool = False) -> WinPlayer:
    """``optimal-win`` for ``layout`` (Yatzy or Yahtzee, any number of players)."""
    check_tables(layout)
    rules = layout.rules
    return WinPlayer(solve(rules.name, joker=rules.joker), partial(tables_of, rules.name, rules.joker), by_reach)
