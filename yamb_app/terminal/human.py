"""A person at a plain console as a ``Player`` of the batched engine, one typed line per decision.

Commands (names may be shortened to a unique start, as in ``yamb play``):

- ``keep 6 6 5`` (or ``k 665``): keep those faces and roll the other dice;
  ``roll`` rerolls every die;
- ``fill free yamb`` (or ``f free yamb``): fill a cell, ending the turn;
- ``announce announce yamb`` (or ``a ann yamb``): announce a row;
- ``?``: list the legal moves.

Input and output go through two callables (``input`` and ``print`` by
default), so a script can play, and tests can type.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb_app.terminal.prompts import parse_cell

HELP = "keep FACES | roll | fill COLUMN ROW | announce COLUMN ROW | ? for the legal moves"
VERBS = {"keep": "keep", "k": "keep", "roll": "roll", "r": "roll", "fill": "fill", "f": "fill",
         "announce": "announce", "a": "announce"}


class HumanPlayer:
    """Reads each move from ``read(prompt)`` and reports through ``write(text)``."""

    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        return np.array([self._move(batch, int(g)) for g in games], dtype=np.int64)

    def _move(self, batch: GameBatch, game: int) -> int:
        """Ask until the answer is a legal action of ``game``."""
        self.write(self.status(batch, game))
        legal = batch.legal_actions(np.array([game]))[0]
        while True:
            text = self.read("> ").strip()
            if text == "?":
                self.write(self.moves(batch, game))
                continue
            try:
                action = self.parse(batch, text)
            except YambError as error:
                self.write(f"{error}; type {HELP}")
                continue
            if legal[action]:
                return action
            self.write(batch.explain_illegal(game, action))

    def parse(self, batch: GameBatch, text: str) -> int:
        """The action a command stands for (legal or not), or a ``YambError`` saying what is wrong."""
        lay = batch.layout
        words = text.split(maxsplit=1)
        if not words or words[0].lower() not in VERBS:
            raise YambError(f"unknown command {text!r}")
        verb, rest = VERBS[words[0].lower()], words[1] if len(words) > 1 else ""
        if verb in ("keep", "roll"):
            faces = [] if verb == "roll" else [c for c in rest if not c.isspace()]
            if any(c not in "123456" for c in faces):
                raise YambError(f"keep takes faces 1 to 6, not {rest!r}")
            counts = np.bincount(np.array(faces, dtype=np.int64) - 1, minlength=6)
            return lay.n_cells + int(batch.rules.dice.keep_index(counts))
        labels = tuple(lay.cell_name(c * lay.n_rows).split(":")[0] for c in range(lay.n_columns))
        only = 0 if lay.n_columns == 1 else None
        column, row = parse_cell(rest, labels, batch.rules.rows, only)
        cell = column * lay.n_rows + row
        return cell if verb == "fill" else lay.n_cells + lay.n_keeps + cell

    def status(self, batch: GameBatch, game: int) -> str:
        """The dice, the roll and any announcement of ``game``."""
        lay = batch.layout
        faces = " ".join(map(str, batch.rules.dice.faces[batch.dice[game]]))
        text = f"player {batch.player[game] + 1}, roll {batch.roll[game]} of {batch.rolls_allowed[game]}: {faces}"
        for what, cell in (("announced", batch.announced[game]), ("must answer", batch.answer[game])):
            if cell >= 0:
                text += f" ({what} {lay.cell_name(cell)})"
        return text

    def moves(self, batch: GameBatch, game: int) -> str:
        """The legal moves of ``game``, fills with what they would score."""
        lay = batch.layout
        legal = np.flatnonzero(batch.legal_actions(np.array([game]))[0])
        p = batch.player[game]
        lines = []
        for action in legal:
            line = lay.describe_action(action)
            if action < lay.n_cells:  # the engine says what the fill scores
                trial = batch.fork(np.array([game]))
                trial.step(np.array([action]), np.array([0]))
                line += f" (+{trial.cells[0, p].reshape(-1)[action]})"
            lines.append(line)
        return "\n".join(lines)

