"""Moves as a person sees them: a bot's integer actions decoded, and what each fill would score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yamb.engine import GameBatch, single_thread
from yamb.game import Cell, Game


@dataclass(frozen=True)
class Move:
    """One action (see ``yamb.layout``): fill ``cell``, keep ``faces`` and roll, or announce ``cell``."""

    kind: str  # "fill", "keep" or "announce"
    cell: Cell | None = None
    faces: tuple[int, ...] = ()


def decode(game: Game, action: int) -> Move:
    """The move of an integer action in ``game``."""
    layout = game.layout
    if action < layout.n_cells:
        return Move("fill", cell=game.cell_of(action))
    if action < layout.n_cells + layout.n_keeps:
        counts = game.rules.dice.keeps[action - layout.n_cells]
        return Move("keep", faces=tuple(f + 1 for f, n in enumerate(counts) for _ in range(n)))
    return Move("announce", cell=game.cell_of(action - layout.n_cells - layout.n_keeps))


def fill_scores(game: Game) -> dict[Cell, int]:
    """What the dice would score in each cell the player may fill now.

    Every legal fill is played on its own copy of the game (a batch replaying
    the game's actions), so the engine alone decides the scores, jokers included.
    """
    cells = np.flatnonzero(game.action_mask()[: game.layout.n_cells])
    if not len(cells):
        return {}
    games = np.arange(len(cells))
    with single_thread():
        trial = GameBatch(game.layout, len(cells), seed=game.seed,
                          streams=np.full(len(cells), game.stream, dtype=np.uint64))
        for action in game.history:
            trial.step(np.full(len(cells), action), games, check=False)
        trial.step(cells, games, check=False)
    columns, rows = np.divmod(cells, game.layout.n_rows)
    scores = trial.cells[games, game.player, columns, rows]
    return {game.cell_of(int(c)): int(s) for c, s in zip(cells, scores)}


def cell_text(cell: Cell) -> str:
    """``column:row``, as the engine names cells in its messages."""
    return f"{cell.column}:{cell.row}"


def faces_text(faces: tuple[int, ...] | list[int]) -> str:
    return " ".join(map(str, faces)) if faces else "nothing"
