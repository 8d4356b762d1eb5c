"""The worth of ending a turn when playing to win: the chance of finishing first, plus a little for points.

A player's final total is taken as normal, independent of the others'. A game's
``row`` says how an ending of value ``x`` (the search's corrected cell value)
becomes the mover's final total:

- ``row[MODE] == SHIFT``: of mean ``row[MEAN] + x`` (the value counts points
  against what the rest of the game is expected to bring) and deviation ``row[SD]``;
- ``COLLECTION`` (the mover's last open cell, a collection row, cell ``row[CELL]``):
  exactly ``row[A] + row[B] * s``, the score ``s`` read back from the cell's
  linear value ``x = lin[0] * s + lin[1]``;
- ``NUMBER`` (the last open cell, a number row): exactly ``row[LEVEL + k]`` for the
  level ``k`` (of the first ``row[B]``) whose value is ``x``.

The other players' final totals have means ``row[OTHERS::2]`` and deviations
``row[OTHERS + 1::2]``. The ending is worth the chance that the mover's total is
above every other (``win_chance``: ties shared, each total blurred by ``TIE_SD``
so that equal totals share the win), plus ``POINT_WEIGHT`` per point of ``x``, so
that a game whose outcome is settled is still played for points.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.polynomial.legendre import leggauss

from robo_players.search.cell_values import LEVELS

POINT_WEIGHT = 1e-7  # utility per point of an ending's value besides its chance of winning
TIE_SD = 0.1  # a total's blur: equal totals share the win, a total one point higher wins (to 1e-12)
NODES, WEIGHTS = leggauss(12)  # Gauss-Legendre on [-1, 1], on each of PIECES pieces of the mover's range
PIECES = 4
REACH = 9.0  # the mover's total integrated over its mean +- REACH deviations
NARROW = 0.1  # another total this much narrower than the mover's counts as a step at its mean
SHIFT, COLLECTION, NUMBER = 0, 1, 2  # row[MODE]
MODE, CELL, A, B, LEVEL = 0, 1, 2, 3, 4  # a row's head (module docstring)
MEAN = LEVEL + LEVELS
SD = MEAN + 1
OTHERS = SD + 1  # the others' means and deviations, in pairs


@njit(cache=True, inline="always")
def normal_cdf(z):
    """The standard normal's distribution function at ``z`` (exact in the tails: ``erfc``)."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@njit(cache=True)
def win_chance(mean, sd, row):
    """The chance that a normal total (``mean``, ``sd``) is above every other of ``row`` (means at
    ``row[OTHERS::2]``, deviations at ``row[OTHERS + 1::2]``), each blurred by ``TIE_SD``. One other
    in closed form; more by Gauss-Legendre quadrature over the mover's total from the highest
    narrow other (a step there: one ``NARROW`` times as wide as the mover's or less) upwards."""
    n_others = (len(row) - OTHERS) // 2
    if n_others == 1:
        s = row[OTHERS + 1]
        return normal_cdf((mean - row[OTHERS]) / math.sqrt(sd * sd + s * s + 2 * TIE_SD * TIE_SD))
    spread = math.sqrt(sd * sd + TIE_SD * TIE_SD)
    low = -REACH
    for j in range(n_others):
        s = row[OTHERS + 1 + 2 * j]
        if math.sqrt(s * s + TIE_SD * TIE_SD) <= NARROW * spread:
            low = max(low, (row[OTHERS + 2 * j] - mean) / spread)
    if low >= REACH:
        return 0.0
    width = (REACH - low) / PIECES
    total = 0.0
    for piece in range(PIECES):
        middle = low + (piece + 0.5) * width
        for k in range(len(NODES)):
            z = middle + 0.5 * width * NODES[k]
            y = mean + spread * z
            chance = 0.5 * width * WEIGHTS[k] * math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
            for j in range(n_others):
                s = math.sqrt(row[OTHERS + 1 + 2 * j] ** 2 + TIE_SD * TIE_SD)
                if s > NARROW * spread:
                    chance *= normal_cdf((y - row[OTHERS + 2 * j]) / s)
            total += chance
    return total


@njit(cache=True, inline="always")
def worth(x, row, lin, num):
    """The worth of an ending of value ``x`` (module docstring); ``lin``, ``num``: the mover's cell values."""
    mode = row[MODE]
    if mode == SHIFT:
        return win_chance(row[MEAN] + x, row[SD], row) + POINT_WEIGHT * x
    n_rows = lin.shape[1]
    c, r = int(row[CELL]) // n_rows, int(row[CELL]) % n_rows
    if mode == COLLECTION:
        slope = lin[c, r, 0]
        score = (x - lin[c, r, 1]) / slope if slope != 0 else 0.0
        total = row[A] + row[B] * score
    else:
        k = 0
        for level in range(1, int(row[B])):
            if abs(num[c, r, level] - x) < abs(num[c, r, k] - x):
                k = level
        total = row[LEVEL + k]
    return win_chance(total, 0.0, row) + POINT_WEIGHT * x


@njit(cache=True)
def win_utility(options, pure, layers, row, lin, num):
    """The first ``layers`` rolls of a queued turn's ``options`` and ``pure`` (by roll and hand, ``-inf``
    where no ending is open) taken from values to their worth for winning (``worth``)."""
    for t in range(layers):
        for m in range(options.shape[1]):
            if options[t, m] > -np.inf:
                options[t, m] = worth(options[t, m], row, lin, num)
    for t in range(min(layers, pure.shape[0])):
        for m in range(pure.shape[1]):
            if pure[t, m] > -np.inf:
                pure[t, m] = worth(pure[t, m], row, lin, num)
