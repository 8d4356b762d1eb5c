"""Compare players on the same dice: score statistics, per-row means, head-to-head and Mann-Whitney U.

Every player plays the same games: game i uses dice stream i of the same seed
(common random numbers), so two players see the same rolls for as long as
they keep the same dice, and their difference has far less noise than two
independent samples. With a ``luck`` reference each game's luck is counted too
(``robo_players.measure.luck``): the scores less their luck have the same expectation
and a fraction of the noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu
from scipy.stats import t as student_t

from robo_players.base import Player, play
from robo_players.measure.luck import LuckCounter
from robo_players.measure.simulate import DEFAULT_BATCH, summary
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import Layout


@dataclass(frozen=True)
class Results:
    """Final scores (games,) and per-row sums over the columns (games, rows) of one player."""

    scores: np.ndarray
    rows: np.ndarray
    luck: np.ndarray | None = None  # (games,) the luck of each game's dice (``robo_players.measure.luck``), if counted

    @property
    def adjusted(self) -> np.ndarray:
        """(games,) the scores less the luck of their dice (the luck must have been counted)."""
        if self.luck is None:
            raise ValueError("the luck was not counted: play the games with a luck reference")
        return self.scores - self.luck


def play_games(
    layout: Layout,
    player: Player,
    games: int,
    seed: int = 0,
    batch_size: int = DEFAULT_BATCH,
    progress: Callable[[int], None] | None = None,
    luck: ExpectimaxPlayer | None = None,
) -> Results:
    """Play ``games`` solitaire games (game i on dice stream i) and keep every row's score; with
    ``luck`` (a search player) also each game's luck as it values the hands (``robo_players.measure.luck``)."""
    names = row_names(layout)
    scores = np.empty(games, dtype=np.int64)
    rows = np.empty((games, len(names)))
    lucks = np.zeros(games) if luck is not None else None
    for start in range(0, games, batch_size):
        n = min(batch_size, games - start)
        batch = GameBatch(layout, n, seed=seed, streams=np.arange(start, start + n, dtype=np.uint64))
        counter = LuckCounter(player, luck, batch) if luck is not None else None
        scores[start : start + n] = play(batch, [counter or player], progress=progress)[:, 0]
        if counter is not None:
            lucks[start : start + n] = counter.luck[:, 0]
        cells = batch.cells[:, 0].astype(np.int64)  # (n, C, R)
        computed = [total.sum(axis=-1) for key, total in batch.totals().items() if key != "total"]
        rows[start : start + n] = np.column_stack([cells.sum(axis=1), *[c[:, 0] for c in computed]])
    return Results(scores=scores, rows=rows, luck=lucks)


def row_names(layout: Layout) -> list[str]:
    """The rows of ``Results.rows``: the fillable rows, then the computed ones (but the total)."""
    computed = [key for key in layout.rules.column_totals(np.zeros(layout.n_rows)) if key != "total"]
    return list(layout.rules.rows) + computed


def win_rate(a: np.ndarray, b: np.ndarray) -> float:
    """Share of games ``a`` wins against ``b`` on the same dice, ties counting one half."""
    return float(np.mean(a > b) + 0.5 * np.mean(a == b))


ROUNDING = 1e-2  # points: a game's difference below it is rounding, none: the same play's luck, valued in float32
# by the network over other batches of games, differs by up to about 1e-4 a game (yatzy); other play differs by more


def paired_difference(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Mean and standard error of ``a - b`` game by game (on common dice, far tighter than two sems),
    and ``p``, the two-sided p-value of the paired t-test that its mean is 0. A game's difference
    below ``ROUNDING`` counts as none: one player against itself is no difference, p = 1."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    d[np.abs(d) < ROUNDING] = 0.0
    mean = float(d.mean())
    sem = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0
    if sem == 0.0:  # every game the same difference: certain, or no difference at all
        p = 1.0 if mean == 0.0 else 0.0
    else:
        p = float(2 * student_t.sf(abs(mean) / sem, len(d) - 1))
    return {"mean": mean, "sem": sem, "p": p}


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann-Whitney U p-value of ``a`` and ``b`` having the same distribution."""
    if np.array_equal(a, b):
        return 1.0
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def report(layout: Layout, results: dict[str, Results]) -> dict[str, dict]:
    """One entry per player: summary statistics, per-row means, and against each other player the win rate,
    the paired score difference (mean, sem) and the Mann-Whitney p-value; where the luck was counted,
    also the luck-adjusted scores' statistics (``adjusted``) and paired differences (``adjusted_difference``)."""
    names = row_names(layout)
    out = {}
    for name, res in results.items():
        others = {o: r for o, r in results.items() if o != name}
        out[name] = {
            **summary(res.scores),
            "rows": dict(zip(names, res.rows.mean(axis=0).round(3).tolist())),
            "win_rate": {o: win_rate(res.scores, r.scores) for o, r in others.items()},
            "difference": {o: paired_difference(res.scores, r.scores) for o, r in others.items()},
            "mann_whitney_p": {o: mann_whitney_p(res.scores, r.scores) for o, r in others.items()},
        }
        if res.luck is not None:
            out[name]["adjusted"] = summary(res.adjusted)
            out[name]["adjusted_difference"] = {o: paired_difference(res.adjusted, r.adjusted)
                                                for o, r in others.items()}
    return out


def check_names(names: list[str]) -> None:
    """Refuse an empty or repeated list of player names with a precise error."""
    if not names:
        raise YambError("name at least one player to compare")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise YambError(f"player {repeated[0]!r} is named more than once")


def compare(layout: Layout, names: list[str], games: int, seed: int = 0) -> dict[str, dict]:
    """The players ``names`` (of the registry, or weights files) on the same ``games`` games of
    ``layout`` (game i on dice stream i of ``seed``): what ``yamb compare --json`` reports (``report``)."""
    from robo_players.registry import make_player

    check_names(names)
    return report(layout, {name: play_games(layout, make_player(name, layout), games, seed) for name in names})
