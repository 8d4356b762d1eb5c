"""Row expectations that know an open row has many turns to come.

``expectimax`` values a cell against the row's expectation over one turn
(``robo_players.search.cell_values``). A row of a column that may be filled in any
order (``free``, ``hand`` and the announce kinds), though, can be filled on
any later turn, and in play it brings more than one turn's worth: the player
fills it when the dice favour it. ``expectimax-played`` (and a search-guided
network evolved with ``played > 0``) values the open cells of such columns
against a blend,

    expectation = (1 - played) * one-turn expectation + played * mean seen in play,

the mean seen in play being each cell's average final score over
``GAMES`` games of plain ``expectimax`` on dice seed ``SEED``. Ordered columns
(``down``, ``up``, ``updown``, ``middle``) keep the one-turn expectation: their
order settles when a row is played (blending them measured a loss).
The numbers bonus and the difference row are valued with the blended
expectations too, which is where most of the gain comes from (docs/players.md).

``expectimax-exact`` (and networks evolved with ``bonus = "exact"``) computes
the chance of the numbers bonus exactly instead of by a normal approximation:
from each open number row's chances of each level (one turn's, for columns
filled in any order blended in the same way with the levels seen in play).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from robo_players.base import play
from robo_players.computed import computed_once, rules_key
from robo_players.search.cell_values import BONUS_MODELS, LEVELS, cell_model
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.columns import order_rule
from yamb.engine import GameBatch
from yamb.layout import Layout, layout
from yamb.rules import N_NUMBER_ROWS, Rules

GAMES = 2000
SEED = 0
DEFAULT_PLAYED = 0.6


@cache
def seen_play(rules: Rules, columns: tuple[str, ...], players: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(C, R) mean final score of each cell in ``GAMES`` games of plain ``expectimax`` against itself
    (``players`` of them, each counted), and (C, 6, 6) how often each number row ended at each level;
    played once and kept (``robo_players.computed``)."""
    def compute() -> dict[str, np.ndarray]:
        lay = layout(rules, columns, players)
        batch = GameBatch(lay, GAMES, seed=SEED, streams=np.arange(GAMES, dtype=np.uint64))
        play(batch, [ExpectimaxPlayer(lay)] * players)
        cells = batch.cells.astype(np.float64)
        level_score = cell_model(rules, columns).level_score
        frequency = np.zeros((len(columns), N_NUMBER_ROWS, LEVELS))
        for r in range(N_NUMBER_ROWS):
            level = np.searchsorted(level_score[r, : len(np.unique(rules.scores[:, r]))], cells[..., r])
            for k in range(LEVELS):
                frequency[:, r, k] = (level == k).mean(axis=(0, 1))
        return {"means": cells.mean(axis=(0, 1)), "frequency": frequency}

    arrays = computed_once("seen-play", rules_key(rules) + repr((columns, players, GAMES, SEED)).encode(), compute)
    return arrays["means"], arrays["frequency"]


def seen_means(rules: Rules, columns: tuple[str, ...], players: int = 1) -> np.ndarray:
    """(C, R) mean final score of each cell in the games of ``seen_play``."""
    return seen_play(rules, columns, players)[0]


def _blend(turn: np.ndarray, seen: np.ndarray, rules: Rules, columns: tuple[str, ...], played: float) -> np.ndarray:
    """``turn`` with the columns filled in any order blended with ``played`` of ``seen``."""
    if not 0.0 <= played <= 1.0:
        raise ValueError(f"played must lie in [0, 1], not {played}")
    out = turn.copy()
    free = [c for c, kind in enumerate(columns) if any_order(rules, kind)]
    if played and free:
        out[free] = (1 - played) * turn[free] + played * seen[free]
    return out


def blended_expectations(rules: Rules, columns: tuple[str, ...], played: float, players: int = 1) -> np.ndarray:
    """(C, R) row expectations, those of columns filled in any order blended with ``played`` of
    the means seen in play."""
    turn = cell_model(rules, columns).expected
    return _blend(turn, seen_means(rules, columns, players) if played else turn, rules, columns, played)


def blended_bonus_levels(rules: Rules, columns: tuple[str, ...], played: float, players: int = 1) -> np.ndarray:
    """(C, 6, 6) each number row's chances of each level, blended as ``blended_expectations``
    blends the means: the exact bonus chances of ``bonus = "exact"``."""
    turn = cell_model(rules, columns).level_prob
    return _blend(turn, seen_play(rules, columns, players)[1] if played else turn, rules, columns, played)


def any_order(rules: Rules, kind: str) -> bool:
    """Whether ``kind``'s order rule lets a fresh column be filled in any row."""
    return order_rule(kind, 0, rules.n_rows, rules.middle_start) == (1 << rules.n_rows) - 1


def search_values(lay: Layout, played: float, bonus: str) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``ExpectimaxPlayer``'s ``expected`` and ``bonus_levels`` for a search that values cells against
    the expectations blended ``played`` with play, and reckons the bonus chances by a normal
    approximation or (``bonus = "exact"``) exactly from the blended levels (None: the defaults)."""
    if bonus not in BONUS_MODELS:
        raise ValueError(f"bonus must be one of {', '.join(BONUS_MODELS)}, not {bonus!r}")
    r, cols, n = lay.rules, lay.columns, lay.players
    expected = blended_expectations(r, cols, played, n) if played else None
    return expected, blended_bonus_levels(r, cols, played, n) if bonus == "exact" else None


def search_player(lay: Layout, played: float, bonus: str) -> ExpectimaxPlayer:
    """Expectimax with the values of ``search_values``."""
    return ExpectimaxPlayer(lay, *search_values(lay, played, bonus))


def played_expectimax(lay: Layout, played: float = DEFAULT_PLAYED) -> ExpectimaxPlayer:
    """``expectimax-played``: expectimax valuing cells against the blended expectations."""
    player = search_player(lay, played, "normal")
    player.name = "expectimax-played"
    return player


def exact_expectimax(lay: Layout, played: float = DEFAULT_PLAYED) -> ExpectimaxPlayer:
    """``expectimax-exact``: ``expectimax-played`` with the bonus chances computed exactly."""
    player = search_player(lay, played, "exact")
    player.name = "expectimax-exact"
    return player
