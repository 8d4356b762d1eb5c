"""How far a table's final totals fall from the coach's expected final score, by the cells still open.

The winning-chance estimate of ``robo_players.coach.win_chances`` models a player's final total
as a normal distribution around the coach's expected final score. Its bias and spread come from
``FIT_GAMES`` games of the coach's own player (``best`` for the search coach, ``optimal`` for
the exact one) from the start of the table, alone (two players where the table needs them, as
``counter_announce`` columns do, the player at both seats): at the start of every turn the
coach's estimate between turns (``Means``) is set against the final total the game reached,
and the residuals with ``k`` cells open give ``bias[k]`` (their mean) and ``spread[k]`` (their
standard deviation). Fitted once per table and coach (seconds to a minute), shipped for the
standard tables, else cached on disk beside the solutions (``robo_players.fitted``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from robo_players.base import Player
from robo_players.coach.search_values import column_totals
from robo_players.coach.values import Coach, ExactCoach, SearchCoach
from robo_players.fitted import fitted_arrays, turn_reached
from robo_players.registry import make_player
from yamb.engine import GameBatch, single_thread
from yamb.errors import YambError
from yamb.layout import Layout, layout
from yamb.table import Table

FIT_GAMES = 2000
FIT_SEED = 40
FORMAT = 1


class Spread(NamedTuple):
    """``bias[k]`` and ``spread[k]`` of the final total about the coach's estimate with ``k`` cells open."""

    bias: np.ndarray  # (cells + 1,)
    spread: np.ndarray  # (cells + 1,)
    games: int
    player: str


class Means:
    """Each player's expected final total between turns, as the coach estimates it."""

    def __init__(self, coach: Coach) -> None:
        self.coach = coach

    def __call__(self, batch: GameBatch, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """(n,) the coach's expected final total of ``players[i]`` in ``games[i]``, from their sheet alone."""
        games, players = np.asarray(games, np.int64), np.asarray(players, np.int64)
        points = batch.scores()[games, players].astype(np.float64)
        if isinstance(self.coach, ExactCoach):
            sol = self.coach.solution
            return points + sol.value(*sol.state_of(batch, games, players))
        tables = self.coach.player.tables
        out = np.empty(len(games))
        column_totals(games, players, batch.state, tables, batch.rules.spec.extra_yahtzee_bonus, out)
        return out


def fit_player(coach: Coach, lay: Layout) -> Player:
    """The player whose games fit the spread: the search coach's own, ``optimal`` for the exact coach."""
    if isinstance(coach, SearchCoach):
        return coach.player
    return make_player("optimal", lay)


def fit_layout(lay: Layout) -> Layout:
    """The table alone, or with two players where it needs them (``counter_announce`` columns)."""
    try:
        return layout(lay.rules, lay.columns, 1)
    except YambError:
        return layout(lay.rules, lay.columns, 2)


def fit_spread(coach: Coach, lay: Layout, games: int = FIT_GAMES, seed: int = FIT_SEED,
               say: Callable[[str], None] | None = None) -> Spread:
    """The ``Spread`` of ``coach`` on ``lay``'s table, from ``games`` games of its player at every seat (the
    table alone where it can be played alone), seed ``seed``; ``say(step)`` hears each turn played."""
    table = fit_layout(lay)
    player = fit_player(coach, table)
    means = Means(coach)
    batch = GameBatch(table, games, seed=seed)
    cells, n_players = table.n_cells, table.players
    estimate = np.full((games, n_players, cells), np.nan)  # [g, p, t]: at the start of p's turn t
    seen = np.full(games, -1)
    with single_thread():
        while not batch.done.all():
            new = np.flatnonzero(~batch.done & (batch.turn != seen))
            if len(new):
                p = batch.player[new].astype(np.int64)
                estimate[new, p, batch.turn[new] // n_players] = means(batch, new, p)
                seen[new] = batch.turn[new]
            live = np.flatnonzero(~batch.done)
            batch.step(player.act(batch, live), live)
            if say is not None:
                say(turn_reached(batch))
    residual = batch.scores()[:, :, None] - estimate  # column t: with cells - t open
    bias, spread = np.zeros(cells + 1), np.zeros(cells + 1)
    for t in range(cells):
        r = residual[:, :, t][np.isfinite(residual[:, :, t])]
        bias[cells - t], spread[cells - t] = r.mean(), r.std(ddof=1)
    return Spread(bias, spread, games, player.name)


def spread_name(coach: Coach, lay: Layout) -> str:
    """The name of the ``Spread`` of ``coach`` on ``lay``'s table (``robo_players.fitted``)."""
    return f"spread-{Table.of(lay).solo.stem}-{coach.name}-{FIT_GAMES}g-seed{FIT_SEED}-v{FORMAT}"


def spread_for(coach: Coach, lay: Layout) -> Spread:
    """The ``Spread`` of ``coach`` on ``lay``'s table: shipped, cached, else fitted (``robo_players.fitted``)."""
    stem = Table.of(lay).solo.stem
    name = spread_name(coach, lay)

    def fit(say: Callable[[str], None]) -> dict[str, np.ndarray]:
        spread = fit_spread(coach, lay, FIT_GAMES, say=say)
        return dict(bias=spread.bias, spread=spread.spread, games=spread.games, player=spread.player)

    arrays = fitted_arrays(name, fit, f"the spread of final scores of {stem} for the chances to win "
                                      f"({FIT_GAMES:,} games of {coach.name})")
    return Spread(arrays["bias"], arrays["spread"], int(arrays["games"]), str(arrays["player"]))
