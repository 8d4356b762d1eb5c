"""Kind ``guided``: the expectimax search, with cell values corrected by a network.

``expectimax`` plans the rest of each turn with the exact turn optimizer,
ending it in the cell worth the most: a cell's value is its score against
the row's expectation, aware of the numbers bonus and the difference row
(``robo_players.search.cell_values``). Here ``CellValueNet`` looks at the table and
corrects every open cell's value: ``(1 + w) * value + d``, with ``d`` (times
the largest score) and ``w`` the network's two outputs for the cell. A zero
correction is expectimax exactly, which is where evolution starts.

The corrections depend on the table only, so they stay the same through a
turn and the turn's plan (made after its first roll) stays valid: they are
computed at a game's first decision of a turn and kept for the rest of it.
The search is expectimax's own (``ExpectimaxPlayer.search``), given the
corrections.

With ``exact`` column kinds (``NetSpec.exact``) the values the network corrects
are first those of ``expectimax-column``: the cells of those kinds valued by
the exact change of their column's value (``robo_players.search.column_exact``). The
two corrections compose, ``a_n * (a_c * value + d_c) + d_n`` with
``a = max(1 + w, 0)`` (``a_c`` is never negative), so a network whose outputs
are 0 plays as the column player does, bit for bit.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import numpy as np

from robo_players.neural.features import score_scale
from robo_players.neural.player import Forward, network_outputs
from robo_players.search.cell_values import cell_model
from robo_players.search.column_exact import PLAY_KINDS, ColumnExactPlayer, ExactColumns, exactly_solved
from robo_players.search.correction import Correction
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.row_means import search_values
from yamb.engine import GameBatch
from yamb.layout import Layout


class _Kept(NamedTuple):
    """One network's corrections of a batch's games, a row each (as ``compose`` gives them, at
    ``scale``), and the turn each row is for (-1: none yet)."""

    outputs: np.ndarray
    turn: np.ndarray
    scale: float


class SearchGuidedPlayer(ExpectimaxPlayer):
    """Expectimax over cell values corrected by one network, or by a population on one batch.

    ``cell_values`` is (P, CR), one row per member: what the network's
    features take an open cell to be worth (see ``robo_players.neural.player``).
    ``expected`` and ``bonus_levels``: the search's row expectations and bonus
    chances, as for ``ExpectimaxPlayer``.
    """

    def __init__(self, forward: Forward, cell_values: np.ndarray, layout: Layout,
                 name: str = "neural-guided", expected: np.ndarray | None = None,
                 bonus_levels: np.ndarray | None = None, exact: tuple[str, ...] = ()) -> None:
        super().__init__(layout, expected, bonus_levels)
        self.exact = ExactColumns(layout, self.tables, exact) if exact else None
        self.forward = forward
        self.cell_values = np.atleast_2d(np.asarray(cell_values, dtype=np.float32))
        self.scale = score_scale(layout)
        self.name = name
        self._outputs: weakref.WeakKeyDictionary[GameBatch, tuple] = weakref.WeakKeyDictionary()
        self._kept: weakref.WeakKeyDictionary[GameBatch, _Kept] = weakref.WeakKeyDictionary()

    def corrections(self, batch: GameBatch, games: np.ndarray) -> Correction:
        """The network's corrections of the cells of ``games``, as ``ExpectimaxPlayer.search`` takes
        them (``compose``)."""
        if len(self.cell_values) > 1:
            out, rows = self._population_outputs(batch, games)
            return self.compose(batch, games, out, rows)
        return self._kept_corrections(batch, np.asarray(games, dtype=np.int64))

    def _kept_corrections(self, batch: GameBatch, games: np.ndarray) -> Correction:
        """One network's corrections of ``games``, a game's computed (network and exact columns)
        only at its first decision of a turn and kept for the rest of it: they depend on its table
        only, which changes only when a turn ends."""
        kept = self._kept.get(batch)
        stale = games if kept is None else games[kept.turn[games] != batch.turn[games]]
        if len(stale):
            out, rows = network_outputs(self.forward, batch, stale, self.cell_values, False)
            fresh = self.compose(batch, stale, out, rows)
            if kept is None:
                outputs = np.zeros((batch.n_games, fresh.outputs.shape[1]), dtype=fresh.outputs.dtype)
                kept = self._kept[batch] = _Kept(outputs, np.full(batch.n_games, -1, dtype=batch.turn.dtype),
                                                 fresh.scale)
            kept.outputs[stale] = fresh.outputs[fresh.rows]
            kept.turn[stale] = batch.turn[stale]
        return Correction(kept.outputs, games, kept.scale)

    def compose(self, batch: GameBatch, games: np.ndarray, out: np.ndarray, rows: np.ndarray,
                column: np.ndarray | None = None) -> Correction:
        """Network outputs ``out[rows[i]]`` of ``games[i]`` as the search takes them: ``[d / scale | w]``
        per cell (float64, as every ``Correction``), the rows and the scale; with ``exact`` columns, float64
        corrections composed with theirs (``column``, (n, 2, C, R), if already computed), one row
        per game, scale 1."""
        if self.exact is None:
            return Correction(np.ascontiguousarray(out, dtype=np.float64), np.asarray(rows, dtype=np.int64), self.scale)
        if column is None:
            column = self.exact.corrections(batch, games)
        column = column.reshape(len(games), 2, -1)
        net = np.asarray(out[rows], dtype=np.float64).reshape(len(games), 2, -1)
        w_net = np.maximum(net[:, 1], -1.0)  # written so that outputs of 0 leave the column's exactly
        w = column[:, 1] + w_net * (1.0 + column[:, 1])
        d = column[:, 0] + w_net * column[:, 0] + net[:, 0] * self.scale
        return Correction(np.concatenate([d, w], axis=1), np.arange(len(games), dtype=np.int64), 1.0)

    def _population_outputs(self, batch: GameBatch, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A population's outputs for the whole batch, computed again only when a game of ``games``
        has changed its table since (a turn ended): a game's row depends only on its table, the
        networks always seeing the whole batch. Played turn by turn
        (``robo_players.base.play_by_turns``), that is once a turn."""
        cached = self._outputs.get(batch)
        if cached is None or (cached[1][games] != batch.turn[games]).any():
            out, _ = network_outputs(self.forward, batch, games, self.cell_values, False)
            cached = self._outputs[batch] = (out.astype(np.float64), batch.turn.copy())  # as ``compose`` gives them
        return cached[0], games

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        return self.search(batch, games, self.corrections(batch, games))


def base_search(layout: Layout, played: float, exact: tuple[str, ...], bonus: str = "normal") -> ExpectimaxPlayer:
    """The search whose values of fills the returns are measured against: over the exact values
    of the ``exact`` column kinds (``expectimax-columns-played`` with ``played``), else expectimax
    with the ``played`` row means and the ``bonus`` model."""
    if exact:
        return ColumnExactPlayer(layout, played=played, kinds=exact)
    return ExpectimaxPlayer(layout, *search_values(layout, played, bonus))


def feature_cell_values(layout: Layout) -> np.ndarray:
    """(CR,) float32: the values of open cells the recorded features read (each cell's expected score)."""
    return cell_model(layout.rules, layout.columns).expected.ravel().astype(np.float32)


def solved_kinds(layout: Layout) -> tuple[str, ...]:
    """The column kinds of ``layout`` that a fitted network's base search values exactly
    (``expectimax-columns``' kinds that the rules let the solver handle)."""
    return tuple(k for k in PLAY_KINDS if k in layout.columns and exactly_solved(layout.rules, k))
