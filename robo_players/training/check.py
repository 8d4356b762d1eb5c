"""The check at the end of a fit: the fitted player and the one it started from on fresh games,
the same dice for both (the dice of no round's games)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from robo_players.base import Player
from robo_players.measure.compare import paired_difference
from robo_players.measure.simulate import simulate
from robo_players.training.returns import round_seed
from yamb.layout import Layout


class Check(NamedTuple):
    """Both players' scores on the check's games and their paired difference (``paired_difference``)."""

    ours: np.ndarray
    theirs: np.ndarray
    difference: dict


def check_fitted(layout: Layout, fitted: Player, start: Player, games: int, seed: int) -> Check:
    """``fitted`` and ``start`` on ``games`` fresh games of the fit of ``seed``."""
    dice = round_seed(seed, -1)
    ours = simulate(layout, fitted, games, seed=dice, check=True)
    theirs = simulate(layout, start, games, seed=dice, check=True)
    return Check(ours, theirs, paired_difference(ours, theirs))
