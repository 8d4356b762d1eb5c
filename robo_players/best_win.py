"""``best-win``: ``best``'s turn search played for the chance of finishing first, on every table.

Each player's final total is estimated as normal from its sheet (``estimate``):
every open cell scores as it does in ``best``'s own games (each cell's mean and
variance over ``FIT_GAMES`` of ``best`` playing the table, fitted once with the
seed ``FIT_SEED``; shipped for the standard tables, else cached on disk by the table's
stem: ``robo_players.fitted``), the numbers bonus is
the chance that the numbers' normal sum reaches the threshold, the difference row
the product of its independent factors. ``best``'s search values an ending by a
cell's score against the row's one-turn expectation: an ending of value ``x``
gives the mover a final total of mean ``mean - ending[k] + x``, where
``ending[k]`` is the mean value of the endings ``best`` chose with ``k`` cells
open in those games, with the spread of the cells left after this turn. The turn
search maximises the ending's chance of beating the others' estimates, ties
shared (``robo_players.search.win_utility``); on the mover's last open cell the
final total is exact. The worth is not linear in points: a player far behind
takes risks, one far ahead avoids them; early in the game, with everyone's spread
wide, it plays as ``best``. Only ``best``'s play and simulation go into it, so it
works on every table ``best`` plays.

``best-win+lookahead`` (``BestWinPlayer.looking_ahead``) searches over ``best+lookahead``'s values
instead, the next turn's plan added to each ending, with the cell model of that player's games.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from robo_players.fitted import fitted_arrays, turn_reached
from robo_players.neural.bots import load_bot
from robo_players.search.cell_values import LEVELS
from robo_players.search.correction import corrections_of
from robo_players.search.expectimax import NO_WIN, ExpectimaxPlayer
from robo_players.search.explain import fill_values
from robo_players.search.lookahead import LookaheadPlayer
from robo_players.search.win_utility import CELL, COLLECTION, LEVEL, MEAN, MODE, NUMBER, OTHERS, SD, SHIFT, A, B
from yamb.engine import GameBatch, threads_for
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.portable_math import exp_array
from yamb.rules import N_NUMBER_ROWS, Rules
from yamb.table import Table

FIT_GAMES = 2000
SPREAD = 4.0  # the estimated variances scaled by this in the worth of endings (1 took more risk than it won back on yamb)
SETTLED = 2.5  # a mover this many estimated deviations ahead of every other, or behind one, plays for points
FLAT = 1e7  # a deviation that makes the worth of an ending linear in its value
FIT_SEED = 40_4017
FORMAT = 3
LEAST_SHEETS = 30  # a cell open with k open cells in fewer sheets is taken as it is over all of them


class CellModel(NamedTuple):
    """What the fitting player's games say of each cell (C, R) by ``k``, the open cells of its sheet
    (0 .. CR): ``mean[k]`` and ``var[k]``, its final score's mean and variance over the sheets where
    it was still open with ``k`` cells open (the cells left late are the hard ones); its extra
    Yahtzee bonuses' mean and variance per game; and ``ending[k]``: the mean search value of the
    ending it chose with ``k`` cells open (its values are a cell's score against the row's one-turn
    expectation, so a turn's ending is worth more than nothing on average)."""

    mean: np.ndarray
    var: np.ndarray
    extra_mean: float
    extra_var: float
    ending: np.ndarray


class Estimate(NamedTuple):
    """Each player's estimated final total: mean and variance (N, P), and its open cells (N, P)."""

    mean: np.ndarray
    var: np.ndarray
    open_cells: np.ndarray


def fit_layout(layout: Layout) -> Layout:
    """The table played alone (two players where a column needs another player)."""
    return Layout(layout.rules, layout.columns, 2 if "counter_announce" in layout.columns else 1)


def fit_cells(player: ExpectimaxPlayer | LookaheadPlayer, layout: Layout, games: int = FIT_GAMES, seed: int = FIT_SEED,
              say: Callable[[str], None] | None = None) -> CellModel:
    """``CellModel`` of ``player``'s ``games`` games of ``layout``'s table (``fit_layout``), dice ``seed``;
    ``say(step)`` hears each turn played."""
    lay = fit_layout(layout)
    batch = GameBatch(lay, games, seed=seed)
    n_cells = lay.n_cells
    ending_sum, ending_count = np.zeros(n_cells + 1), np.zeros(n_cells + 1)
    stage = np.zeros((games, lay.players, n_cells), dtype=np.int64)  # the open cells when each cell was filled
    rolls = max(lay.rules.rolls, lay.rules.spec.last_turn_rolls)
    for _ in range(lay.players * n_cells * (rolls + 1) + 1):  # as robo_players.base.play, the endings' values kept
        if batch.done.all():
            break
        for p in range(lay.players):
            movers = np.flatnonzero(~batch.done & (batch.player == p))
            if not len(movers):
                continue
            actions = player.act(batch, movers)
            fill = actions < n_cells
            if fill.any():
                values = fill_values(player, batch, movers[fill], actions[fill])
                left = n_cells - filled_count(batch, movers[fill])
                np.add.at(ending_sum, left, values)
                np.add.at(ending_count, left, 1)
                stage[movers[fill], p, actions[fill]] = left
            batch.step(actions, movers, check=False)
        if say is not None:
            say(turn_reached(batch))
    cells = batch.cells.astype(np.float64).reshape(-1, n_cells)
    stage = stage.reshape(-1, n_cells)
    shape = (n_cells + 1, lay.n_columns, lay.n_rows)
    mean, var = np.broadcast_to(cells.mean(axis=0), (n_cells + 1, n_cells)).copy(), np.zeros((n_cells + 1, n_cells))
    var[:] = cells.var(axis=0, ddof=1)
    for k in range(1, n_cells + 1):
        still = stage <= k  # (sheets, CR): the cell was open with k cells open
        count = still.sum(axis=0)
        enough = count >= LEAST_SHEETS
        total = np.where(still, cells, 0.0).sum(axis=0)
        squares = np.where(still, cells ** 2, 0.0).sum(axis=0)
        kept = np.maximum(count, 2)
        mean[k] = np.where(enough, total / kept, mean[k])
        var[k] = np.where(enough, (squares - total ** 2 / kept) / (kept - 1), var[k])
    extra = batch.bonuses.astype(np.float64).ravel() * layout.rules.spec.extra_yahtzee_bonus
    ending = np.divide(ending_sum, ending_count, out=np.zeros_like(ending_sum), where=ending_count > 0)
    return CellModel(mean.reshape(shape), np.maximum(var, 0.0).reshape(shape), float(extra.mean()),
                     float(extra.var(ddof=1)), ending)


def filled_count(batch: GameBatch, games: np.ndarray) -> np.ndarray:
    """The filled cells of each game's mover, counted."""
    own = batch.filled[games, batch.player[games]].astype(np.int64)  # (n, C)
    return ((own[..., None] >> np.arange(batch.layout.n_rows)) & 1).sum(axis=(1, 2))


def cells_name(layout: Layout, player: str = "best") -> str:
    """The name of ``player``'s ``CellModel`` of ``layout``'s table (``robo_players.fitted``)."""
    return f"{Table.of(fit_layout(layout)).stem}-{player}-cells-{FIT_GAMES}g-seed{FIT_SEED}-v{FORMAT}"


def cached_cells(layout: Layout, player: ExpectimaxPlayer | LookaheadPlayer, who: str = "best") -> CellModel:
    """The ``CellModel`` of ``layout``'s table by ``player`` (``best``, or ``best`` with look-ahead), named
    ``who``: shipped, cached, else fitted (``robo_players.fitted``)."""
    stem = Table.of(fit_layout(layout)).stem
    name = cells_name(layout, who)

    def fit(say: Callable[[str], None]) -> dict[str, np.ndarray]:
        return fit_cells(player, layout, FIT_GAMES, say=say)._asdict()

    arrays = fitted_arrays(name, fit, f"{who}'s cells on {stem} for best-win ({FIT_GAMES:,} games)")
    model = CellModel(arrays["mean"], arrays["var"], float(arrays["extra_mean"]), float(arrays["extra_var"]),
                      arrays["ending"])
    if model.mean.shape != (layout.n_cells + 1, layout.n_columns, layout.n_rows):
        raise YambError(f"{name}: a cell model for another table")
    return model


def estimate(rules: Rules, model: CellModel, cells: np.ndarray, filled: np.ndarray,
             bonuses: np.ndarray) -> Estimate:
    """Each player's final total estimated from its sheet: ``cells`` (..., C, R) scores, ``filled``
    (..., C) bitmasks of filled rows, ``bonuses`` (...) extra Yahtzee bonuses won (module docstring)."""
    spec = rules.spec
    n_rows = cells.shape[-1]
    open_ = ((filled[..., None].astype(np.int64) >> np.arange(n_rows)) & 1) == 0  # (..., C, R)
    left = open_.sum(axis=(-1, -2))
    value = np.where(open_, model.mean[left], cells.astype(np.float64))
    var = np.where(open_, model.var[left], 0.0)
    numbers, numbers_var = value[..., :N_NUMBER_ROWS].sum(axis=-1), var[..., :N_NUMBER_ROWS].sum(axis=-1)
    mean, total_var = numbers.copy(), numbers_var.copy()
    if spec.bonus:
        sd = np.sqrt(numbers_var)
        gap = numbers - spec.bonus_threshold + 0.5  # integer sums: at least the threshold
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd > 0, gap / np.where(sd > 0, sd, 1.0), np.where(gap > 0, np.inf, -np.inf))
        p = ndtr(z)
        density = np.where(sd > 0, exp_array(-0.5 * np.minimum(z * z, 1e4)) / np.sqrt(2 * np.pi), 0.0)
        mean += spec.bonus * p
        total_var += spec.bonus ** 2 * p * (1 - p) + 2 * spec.bonus * sd * density
    collections = list(range(N_NUMBER_ROWS, n_rows))
    if spec.difference is not None:
        hi, lo = rules.row_index("max"), rules.row_index("min")
        ones, ones_var = value[..., 0], var[..., 0]
        spread, spread_var = value[..., hi] - value[..., lo], var[..., hi] + var[..., lo]
        if spec.difference == "clamped":
            spread = np.maximum(spread, 0.0)
        mean += ones * spread
        total_var += ones_var * spread_var + ones_var * spread ** 2 + spread_var * ones ** 2
        total_var += 2 * spread * ones_var  # the ones count in the numbers too: cov(X, X D) = E[D] var(X)
        collections = [r for r in collections if r not in (hi, lo)]
    mean += value[..., collections].sum(axis=-1)
    total_var += var[..., collections].sum(axis=-1)
    open_cells = left
    share = open_cells / open_.shape[-1] / open_.shape[-2]  # extra Yahtzee bonuses: the game's rate, pro rata
    mean = mean.sum(axis=-1) + spec.extra_yahtzee_bonus * bonuses + model.extra_mean * share
    total_var = total_var.sum(axis=-1) + model.extra_var * share
    return Estimate(mean, total_var, open_cells)


def win_rows(rules: Rules, estimate: Estimate, movers: np.ndarray, cells: np.ndarray, filled: np.ndarray,
             bonuses: np.ndarray, level_score: np.ndarray, ending: np.ndarray, spread: float = SPREAD) -> np.ndarray:
    """(n, OTHERS + 2 (P - 1)) each game's row for ``robo_players.search.win_utility``: the mover's
    mean less ``ending[k]`` (the mean value of the ending its turn will choose with ``k`` cells
    open), so that its mean and an ending's value add up to its expected final total, and the
    deviation of the cells left after this turn's (variances scaled by ``spread``), then every
    other player's mean and deviation, in seat order after the mover; a mover whose standing is
    settled (more than ``SETTLED`` estimated deviations of the difference ahead of every other or
    behind one) gets them ``FLAT``: it plays for points. A mover with one open cell left
    gets its final total exactly, as a function of that cell's score (``cells`` (n, P, C, R),
    ``filled`` (n, P, C) and ``bonuses`` (n, P): the games' sheets; ``level_score`` (R, LEVELS):
    the number rows' scores by level)."""
    n, n_players = estimate.mean.shape
    at = np.arange(n)
    order = (movers[:, None] + np.arange(n_players)[None, :]) % n_players
    mean = estimate.mean[at[:, None], order]
    var = estimate.var[at[:, None], order] * spread
    left = estimate.open_cells[at, movers]
    var[:, 0] *= np.maximum(left - 1, 0) / np.maximum(left, 1)  # one cell is filled this turn
    rows = np.zeros((n, OTHERS + 2 * (n_players - 1)))
    rows[:, MODE] = SHIFT
    rows[:, MEAN], rows[:, SD] = mean[:, 0] - ending[left], np.sqrt(var[:, 0])
    rows[:, OTHERS::2], rows[:, OTHERS + 1::2] = mean[:, 1:], np.sqrt(var[:, 1:])
    z = (rows[:, MEAN] - rows[:, OTHERS::2].T) / np.sqrt((rows[:, SD] ** 2 + rows[:, OTHERS + 1::2].T ** 2) / spread + 1e-12)
    settled = (np.abs(z.min(axis=0)) > SETTLED) & (left > 1)  # far ahead of all, or far behind one; the last cell exact
    rows[settled, SD] = FLAT
    rows[settled, OTHERS + 1::2] = FLAT
    last = np.flatnonzero(left == 1)
    if len(last):
        _last_cell(rules, rows, last, cells[last, movers[last]], filled[last, movers[last]],
                   bonuses[last, movers[last]], level_score)
    return rows


def _last_cell(rules: Rules, rows: np.ndarray, last: np.ndarray, sheet: np.ndarray, filled: np.ndarray,
               bonuses: np.ndarray, level_score: np.ndarray) -> None:
    """The heads of the ``last`` rows, whose movers (sheets ``sheet`` (k, C, R), ``filled`` (k, C),
    ``bonuses`` (k,)) have one open cell: its final total by score (``win_utility``'s ``COLLECTION``
    and ``NUMBER``)."""
    n_rows = sheet.shape[-1]
    open_ = ((filled[..., None].astype(np.int64) >> np.arange(n_rows)) & 1) == 0
    cell = open_.reshape(len(last), -1).argmax(axis=1)
    column, row = cell // n_rows, cell % n_rows
    k = np.arange(len(last))

    def total(score: np.ndarray) -> np.ndarray:
        trial = sheet.astype(np.int64).copy()
        trial[k, column, row] = score
        return rules.column_totals(trial)["total"].sum(axis=-1) + rules.spec.extra_yahtzee_bonus * bonuses

    rows[last, CELL] = cell
    number = row < N_NUMBER_ROWS
    levels = np.array([len(np.unique(rules.scores[:, r])) for r in range(N_NUMBER_ROWS)])
    rows[last, MODE] = np.where(number, NUMBER, COLLECTION)
    zero, high = total(np.zeros(len(last), dtype=np.int64)), total(np.full(len(last), 30))
    rows[last, A] = zero
    rows[last, B] = np.where(number, levels[np.minimum(row, N_NUMBER_ROWS - 1)], (high - zero) / 30)
    for level in range(LEVELS):
        rows[last, LEVEL + level] = total(level_score[row, level].astype(np.int64))


class BestWinPlayer:
    """``best``'s search over the endings' chance of winning (module docstring); ``spread`` scales the
    estimated variances; ``model`` may be a function that makes it (at the first move of a game of
    two players or more: alone, the player plays as ``best``). With ``ahead`` (``best`` with
    look-ahead) an ending's value holds the next turns' too, as that player's does, and the model is
    that player's."""

    def __init__(self, base: ExpectimaxPlayer, model: CellModel | Callable[[], CellModel], spread: float = SPREAD,
                 name: str = "best-win", ahead: LookaheadPlayer | None = None) -> None:
        self.base, self._model, self.spread, self.name, self.ahead = base, model, spread, name, ahead

    @property
    def model(self) -> CellModel:
        if not isinstance(self._model, CellModel):
            self._model = self._model()
        return self._model

    def win_rows(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        """The ``win_utility`` rows of ``games`` (their movers' view)."""
        cells, filled, bonuses = batch.cells[games], batch.filled[games], batch.bonuses[games]
        est = estimate(batch.rules, self.model, cells, filled, bonuses)
        return win_rows(batch.rules, est, batch.player[games].astype(np.int64), cells, filled, bonuses,
                        self.base.tables.level_score, self.model.ending, self.spread)

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        adjust = corrections_of(self.base if self.ahead is None else self.ahead, batch, games)
        win = self.win_rows(batch, games) if batch.layout.players > 1 else NO_WIN  # alone: best's play
        with threads_for(len(games)):
            return self.base.search(batch, games, adjust, win)

    def looking_ahead(self, layout: Layout, turns: int, margin: float) -> BestWinPlayer:
        """This player with ``turns`` turns of look-ahead from the fills within ``margin`` of the best
        (``robo_players.search.lookahead``), and the cell model of ``best`` playing so."""
        if self.ahead is not None:
            raise YambError(f"{self.name!r} looks ahead already")
        ahead = LookaheadPlayer(self.base, layout, turns, margin)
        suffix = ahead.name.removeprefix(self.base.name)  # +lookahead, +lookahead3@5, ...
        return BestWinPlayer(self.base, partial(cached_cells, layout, ahead, f"best{suffix}"), self.spread,
                             f"{self.name}{suffix}", ahead)


def best_win_player(layout: Layout, spread: float = SPREAD) -> BestWinPlayer:
    """``best-win`` for ``layout``: ``best`` (``expectimax`` where no bot is shipped) and its cell model."""
    base = load_bot(layout)
    if not isinstance(base, ExpectimaxPlayer):
        raise YambError(f"best-win searches over best's values; best is not a search on {Table.of(layout).describe()}")
    return BestWinPlayer(base, partial(cached_cells, layout, base), spread)
