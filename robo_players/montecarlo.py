"""``montecarlo``: choose each fill by playing the rest of the game many times.

The player keeps, rolls and announces like its base policy (``smart`` by
default). When the base policy ends a turn, every legal fill is tried: for
each, ``rollouts`` copies of the game continue with the base policy for
``horizon`` more turns (of all players; ``None``: to the end), the open cells
then counted at their expected scores (``cell_values``), and the fill
whose results have the best statistic wins: the mean, or the ``quantile`` q
as a risk attitude (q < 0.5 avoids bad games, q > 0.5 hunts good ones).

Rollout j of every candidate uses the same dice stream (common random
numbers), derived from the game's stream and turn, so the choice is
reproducible and the candidates are compared on the same luck.
"""

from __future__ import annotations

import numpy as np

from robo_players.base import Player
from robo_players.search.cell_values import cell_model
from robo_players.smart import SmartPlayer
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import Layout

MAX_ROWS = 1 << 15  # rollout games played at once
SEED_SALT = 0x6D43  # rollouts draw from a seed apart from the game's


class MonteCarloPlayer:
    """Rollouts with a base policy decide every fill."""

    def __init__(self, layout: Layout, base: Player | None = None, rollouts: int = 32,
                 horizon: int | None = 6, quantile: float | None = None) -> None:
        if rollouts < 1:
            raise YambError(f"rollouts must be at least 1, not {rollouts}")
        if horizon is not None and horizon < 1:
            raise YambError(f"horizon must be at least 1 turn, not {horizon}")
        if quantile is not None and not 0.0 <= quantile <= 1.0:
            raise YambError(f"quantile must be between 0 and 1, not {quantile}")
        self.layout = layout
        self.base = base if base is not None else SmartPlayer()
        self.rollouts = rollouts
        self.horizon = horizon
        self.quantile = quantile
        self.expected = np.rint(cell_model(layout.rules, layout.columns).expected)
        statistic = "mean" if quantile is None else f"q{quantile:g}"
        reach = "" if horizon is None else f",k{horizon}"
        self.name = f"montecarlo({self.base.name},n{rollouts}{reach},{statistic})"

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(self.base.act(batch, games), dtype=np.int64).copy()
        fills = np.flatnonzero(actions < batch.layout.n_cells)
        d = batch.decisions(games[fills])
        rows = np.arange(batch.layout.n_rows, dtype=np.uint32)
        legal = (d.fill_bits[:, :, None] >> rows & 1).astype(bool).reshape(len(fills), batch.layout.n_cells)
        choosing = fills[legal.sum(axis=1) > 1]
        per_game = legal[legal.sum(axis=1) > 1].sum(axis=1) * self.rollouts
        start = 0
        while start < len(choosing):  # groups of games whose rollouts fit in one batch
            stop = start + max(1, int(np.searchsorted(np.cumsum(per_game[start:]), MAX_ROWS, side="right")))
            group = choosing[start:stop]
            actions[group] = self._choose(batch, games[group], legal[np.searchsorted(fills, group)])
            start = stop
        return actions

    def _choose(self, batch: GameBatch, games: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The best fill of each game by the statistic of its rollouts."""
        n = self.rollouts
        game_of, cell = np.nonzero(legal)  # one candidate per (game, legal cell)
        rows = np.repeat(np.arange(len(cell)), n)
        source = games[game_of][rows]
        streams = (batch.streams[source] * np.uint64(0x9E3779B1) + batch.turn[source].astype(np.uint64)
                   ) * np.uint64(n) + np.tile(np.arange(n, dtype=np.uint64), len(cell))
        rollout = batch.fork(source, seed=batch.seed ^ SEED_SALT, streams=streams)
        mover = batch.player[source]
        limit = rollout.turn + (np.iinfo(np.int32).max if self.horizon is None else self.horizon)
        rollout.step(cell[rows], np.arange(len(rows)), check=False)
        while True:
            active = np.flatnonzero(~rollout.done & (rollout.turn < limit))
            if not len(active):
                break
            rollout.step(self.base.act(rollout, active), active, check=False)
        values = self._values(rollout, mover).reshape(len(cell), n)
        stat = values.mean(axis=1) if self.quantile is None else np.quantile(values, self.quantile, axis=1)
        best = np.full(len(games), -np.inf)
        choice = np.zeros(len(games), dtype=np.int64)
        for k in np.argsort(-stat, kind="stable"):  # the first (best) candidate of each game wins
            if best[game_of[k]] == -np.inf:
                best[game_of[k]] = stat[k]
                choice[game_of[k]] = cell[k]
        return choice

    def _values(self, rollout: GameBatch, mover: np.ndarray) -> np.ndarray:
        """Final score of the moving player; after a horizon, open cells count their expected score."""
        rows = np.arange(rollout.n_games)
        if self.horizon is None:
            return rollout.scores()[rows, mover].astype(np.float64)
        r = rollout.layout.n_rows
        filled = (rollout.filled[rows, mover][:, :, None] >> np.arange(r, dtype=np.uint32) & 1).astype(bool)
        cells = np.where(filled, rollout.cells[rows, mover], self.expected[None])
        totals = rollout.rules.column_totals(cells)["total"].sum(axis=-1)
        bonus = rollout.rules.spec.extra_yahtzee_bonus * rollout.bonuses[rows, mover]
        return totals + bonus
