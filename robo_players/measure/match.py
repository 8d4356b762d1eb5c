"""Matches: several players at one table, every deal played once per seat rotation on the same dice.

Deal ``d`` is dice stream ``d`` of the seed. It is played ``N`` times (``N``
players), the seats rotated by one each time, so every player has every seat
on the same dice. A game's win is shared among the players tied for the best
total; a deal's win share of a player is its mean over the rotations, and the
standard errors are over deals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from robo_players.base import Player, play
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import Layout


@dataclass(frozen=True)
class MatchResults:
    """Per deal (D, N): each player's win share (over the rotations) and mean score."""

    names: list[str]
    wins: np.ndarray
    scores: np.ndarray


def win_shares(scores: np.ndarray) -> np.ndarray:
    """(G, N) each player's share of each game's win: 1 / (players tied for the best total), else 0."""
    best = scores == scores.max(axis=1, keepdims=True)
    return best / best.sum(axis=1, keepdims=True)


def seat_names(names: list[str]) -> list[str]:
    """The players' labels in a match: a name given more than once is labelled ``name``, ``name #2``,
    ... in order (one ``optimal-win`` among two ``optimal``: ``optimal-win``, ``optimal``, ``optimal #2``)."""
    labels: list[str] = []
    for name in names:
        label, k = name, 1
        while label in labels:  # also past a label given as a name (``optimal #2`` and ``optimal`` twice)
            k += 1
            label = f"{name} #{k}"
        labels.append(label)
    return labels


def play_match(layout: Layout, players: dict[str, Player], deals: int, seed: int = 0, batch_size: int = 10_000,
               progress: Callable[[int], None] | None = None) -> MatchResults:
    """Play ``deals`` deals of ``layout`` (one seat per player) once per seat rotation; ``progress(n)``
    after every ``n`` games (a batch's games counted by the turns its slowest game has played)."""
    names = list(players)
    n = len(names)
    if n != layout.players or n < 2:
        raise YambError(f"a match needs one seat per player and two players or more, not {n} for a table of "
                        f"{layout.players}")
    wins = np.zeros((deals, n))
    scores = np.zeros((deals, n))
    for start in range(0, deals, batch_size):
        size = min(batch_size, deals - start)
        streams = np.arange(start, start + size, dtype=np.uint64)
        for shift in range(n):
            seated = [(seat + shift) % n for seat in range(n)]  # the player at each seat
            batch = GameBatch(layout, size, seed=seed, streams=streams)
            final = play(batch, [players[names[i]] for i in seated], progress=progress)
            share = win_shares(final)
            wins[start: start + size, seated] += share / n
            scores[start: start + size, seated] += final / n
    return MatchResults(names, wins, scores)


def _mean_sem(values: np.ndarray) -> tuple[float, float]:
    sem = float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0
    return float(values.mean()), sem


def match_report(results: MatchResults) -> dict:
    """Each player's win share and mean score (with standard errors over deals) and the paired
    difference of win shares of every two players."""
    players, differences = {}, {}
    for i, name in enumerate(results.names):
        share, share_sem = _mean_sem(results.wins[:, i])
        mean, mean_sem = _mean_sem(results.scores[:, i])
        players[name] = {"win_share": share, "win_share_sem": share_sem, "mean": mean, "mean_sem": mean_sem}
        differences[name] = {}
        for j, other in enumerate(results.names):
            if j != i:
                diff, diff_sem = _mean_sem(results.wins[:, i] - results.wins[:, j])
                differences[name][other] = {"mean": diff, "sem": diff_sem}
    return {"deals": len(results.wins), "players": players, "win_difference": differences}
