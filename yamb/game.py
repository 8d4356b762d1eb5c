"""One game as a friendly object: dice, legal moves, rolls, fills and the score table.

``Game`` wraps a ``GameBatch`` of one game. Every rule is the engine's: this
module only names things (columns, rows, dice faces) and turns names into the
integer actions of ``yamb.layout``. A game keeps the list of actions played,
so it can be undone, saved with ``to_dict`` and restored with ``from_dict``;
the dice come from (seed, stream, turn, roll), so a restored game rolls the
same dice as the original.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from yamb.checks import check_seed, is_int
from yamb.dice import FACES, counts_of
from yamb.engine import GameBatch
from yamb.errors import IllegalMoveError, InvalidDiceError, UnknownColumnError, YambError
from yamb.layout import Layout, layout
from yamb.rules import Rules
from yamb.rules import rules as preset_rules

SNAPSHOT_KEYS = ("preset", "dice", "joker", "columns", "players", "seed", "stream", "actions")


class Cell(NamedTuple):
    """A cell by name: a column label and a row name, e.g. ``Cell("free", "yamb")``.

    A column's label is its kind, or its kind followed by its position when the
    table has several columns of that kind (``free0``, ``free1``).
    """

    column: str
    row: str


def _check_action(action: object) -> int:
    if not is_int(action):
        raise YambError(f"an action must be an integer (see yamb.layout), not {action!r}")
    return int(action)


def _faces_text(faces: Sequence[int]) -> str:
    return " ".join(map(str, faces)) if len(faces) else "nothing"


class Game:
    """A game of Yamb, Yatzy or Yahtzee for one or more players.

    >>> game = Game("yamb", seed=7)
    >>> game.dice
    (3, 3, 5, 6, 6)
    >>> game.roll(keep=[6, 6])
    (2, 3, 3, 6, 6)
    >>> game.fill("free", "sixes")
    12

    ``rules`` is a ``Rules`` object or a preset name; ``columns`` defaults to
    the preset's table. Game ``stream`` of ``seed`` rolls the same dice as game
    ``stream`` of a ``GameBatch`` with that seed.
    """

    def __init__(
        self,
        rules: Rules | str = "yamb",
        columns: Sequence[str] | None = None,
        players: int = 1,
        seed: int = 0,
        stream: int = 0,
    ) -> None:
        self.rules = preset_rules(rules) if isinstance(rules, str) else rules
        if isinstance(columns, str):
            raise UnknownColumnError(f"columns must be a list of column kinds, not the string {columns!r}")
        if columns is not None and not isinstance(columns, (list, tuple)):
            raise UnknownColumnError(f"columns must be a list of column kinds, not {columns!r}")
        if not is_int(players) or players < 1:
            raise YambError(f"players must be a whole number of at least 1, not {players!r}")
        self.layout: Layout = layout(self.rules, columns, players)
        self.seed = check_seed("seed", seed)
        self.stream = check_seed("stream", stream)
        n_rows = self.layout.n_rows
        self.columns: tuple[str, ...] = tuple(
            self.layout.cell_name(c * n_rows).partition(":")[0] for c in range(self.layout.n_columns)
        )
        self._history: list[int] = []
        self.batch = self._new_batch()

    def _new_batch(self) -> GameBatch:
        return GameBatch(self.layout, 1, seed=self.seed, streams=np.array([self.stream]))

    def __repr__(self) -> str:
        state = "over" if self.is_over() else f"player {self.player}, roll {self.roll_number}"
        return (
            f"<Game {self.rules.name} [{', '.join(self.columns)}] {state}, "
            f"dice {_faces_text(self.dice)}, scores {self.scores()}>"
        )

    # ----------------------------------------------------------------- state
    @property
    def players(self) -> int:
        return self.layout.players

    @property
    def rows(self) -> tuple[str, ...]:
        return self.rules.rows

    @property
    def dice(self) -> tuple[int, ...]:
        """The current dice values, sorted."""
        return tuple(int(d) for d in self.rules.dice.faces[self.batch.dice[0]])

    @property
    def player(self) -> int:
        """The player to move (0-based)."""
        return int(self.batch.player[0])

    @property
    def roll_number(self) -> int:
        """Rolls made in the current turn (1 right after the first roll)."""
        return int(self.batch.roll[0])

    @property
    def rolls_left(self) -> int:
        return int(self.batch.rolls_allowed[0] - self.batch.roll[0])

    @property
    def turns_played(self) -> int:
        """Turns completed so far, all players together."""
        return int(self.batch.turn[0])

    @property
    def announced(self) -> Cell | None:
        """The cell announced this turn, if any."""
        return self._announced_or_answer(self.batch.announced[0])

    @property
    def must_answer(self) -> Cell | None:
        """The counter-announce cell this turn must fill, if any."""
        return self._announced_or_answer(self.batch.answer[0])

    @property
    def must_announce(self) -> bool:
        """Whether the only legal move now is an announcement."""
        return bool(self.batch.decisions().must_announce[0])

    @property
    def can_roll(self) -> bool:
        """Whether the player may keep some dice and roll the rest."""
        return bool(self.batch.decisions().may_roll[0])

    @property
    def history(self) -> tuple[int, ...]:
        """Every action played so far, in order."""
        return tuple(self._history)

    def is_over(self) -> bool:
        return bool(self.batch.done[0])

    def _announced_or_answer(self, cell: int) -> Cell | None:
        return self.cell_of(int(cell)) if cell >= 0 else None

    # ----------------------------------------------------------------- names
    def cell_of(self, index: int) -> Cell:
        """The named cell of a cell index ``column * len(rows) + row``."""
        c, r = divmod(index, self.layout.n_rows)
        return Cell(self.columns[c], self.rows[r])

    def cell_index(self, column: int | str, row: int | str) -> int:
        """Cell index of a column (label or index) and a row (name or index)."""
        if isinstance(column, str):
            if column not in self.columns:
                if column in self.layout.columns:
                    labels = [self.columns[c] for c, kind in enumerate(self.layout.columns) if kind == column]
                    raise UnknownColumnError(
                        f"column {column!r} is ambiguous: this table has {', '.join(labels)}"
                    )
                raise UnknownColumnError(
                    f"no column {column!r} in this table; columns are {', '.join(self.columns)}"
                )
            column = self.columns.index(column)
        return self.layout.cell(column, row)

    def _keep_counts(self, keep: Sequence[int] | None, keep_positions: Sequence[int] | None) -> tuple[int, ...]:
        """Face counts of a keep given by faces or by positions in ``dice``; checked against the dice."""
        dice = self.dice
        if keep is not None and keep_positions is not None:
            raise InvalidDiceError("give the dice to keep either by faces or by positions, not both")
        if keep_positions is not None:
            positions = list(keep_positions)
            for i in positions:
                if not is_int(i) or not 0 <= i < len(dice):
                    raise InvalidDiceError(f"die position {i!r} is not an integer from 0 to {len(dice) - 1}")
            if len(set(positions)) != len(positions):
                raise InvalidDiceError(f"die positions {positions} repeat a position")
            keep = [dice[i] for i in positions]
        faces = list(keep or [])
        for d in faces:
            if not is_int(d) or not 1 <= d <= FACES:
                raise InvalidDiceError(f"die value {d!r} is not an integer from 1 to 6")
        counts = counts_of(faces)
        if any(k > have for k, have in zip(counts, counts_of(dice))):
            raise InvalidDiceError(
                f"cannot keep {_faces_text(sorted(faces))}: the dice are {_faces_text(dice)}"
            )
        return counts

    # ----------------------------------------------------------------- legal moves
    def action_mask(self) -> np.ndarray:
        """Boolean mask over all actions (the encoding of ``yamb.layout``) of the legal ones."""
        return self.batch.legal_actions()[0]

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def legal_cells(self) -> list[Cell]:
        """Cells the player may fill now."""
        fills = self.action_mask()[: self.layout.n_cells]
        return [self.cell_of(int(i)) for i in np.flatnonzero(fills)]

    def legal_announcements(self) -> list[Cell]:
        """Cells the player may announce now."""
        announces = self.action_mask()[self.layout.n_cells + self.layout.n_keeps :]
        return [self.cell_of(int(i)) for i in np.flatnonzero(announces)]

    def explain_illegal(self, action: int) -> str:
        """The rule that ``action`` breaks now (for a legal action, a sentence that says nothing useful)."""
        return self.batch.explain_illegal(0, _check_action(action))

    # ----------------------------------------------------------------- moves
    def apply(self, action: int) -> None:
        """Play one integer action; an illegal one raises ``IllegalMoveError`` naming the rule."""
        action = _check_action(action)
        if not 0 <= action < self.layout.n_actions:
            raise IllegalMoveError(self.batch.explain_illegal(0, action))
        self.batch.step(np.array([action]), np.array([0]))
        self._history.append(action)

    def roll(self, keep: Sequence[int] | None = None, keep_positions: Sequence[int] | None = None) -> tuple[int, ...]:
        """Keep some dice (by faces, or by positions in ``dice``), reroll the others; return the dice."""
        counts = self._keep_counts(keep, keep_positions)
        if sum(counts) == self.rules.n_dice:
            raise IllegalMoveError(
                f"cannot keep all {self.rules.n_dice} dice: a roll throws at least one die"
            )
        keep_index = int(self.rules.dice.keep_index(np.array(counts)))
        self.apply(self.layout.n_cells + keep_index)
        return self.dice

    def announce(self, column: int | str, row: int | str) -> None:
        """Announce a cell; the turn must then end by filling it."""
        self.apply(self.layout.n_cells + self.layout.n_keeps + self.cell_index(column, row))

    def fill(self, column: int | str, row: int | str) -> int:
        """Write the dice into a cell, ending the turn; return the score written."""
        cell = self.cell_index(column, row)
        player = self.player
        self.apply(cell)
        c, r = divmod(cell, self.layout.n_rows)
        return int(self.batch.cells[0, player, c, r])

    def undo(self) -> int:
        """Take back the last action and return it; the dice it rolled come back the same."""
        if not self._history:
            raise IllegalMoveError("cannot undo: no action has been played")
        actions = self._history[:-1]
        last = self._history[-1]
        self._history = []
        self.batch = self._new_batch()
        for action in actions:
            self.apply(action)
        return last

    # ----------------------------------------------------------------- chance
    def chance_outcomes(
        self, keep: Sequence[int] | None = None, keep_positions: Sequence[int] | None = None
    ) -> list[tuple[tuple[int, ...], float]]:
        """Each dice outcome of rerolling all but ``keep``, with its exact probability."""
        counts = self._keep_counts(keep, keep_positions)
        tables = self.rules.dice
        probs = tables.outcome_prob[int(tables.keep_index(np.array(counts)))]
        return [
            (tuple(int(d) for d in tables.faces[m]), float(probs[m])) for m in np.flatnonzero(probs)
        ]

    # ----------------------------------------------------------------- scores
    def _check_player(self, player: int | None) -> int:
        if player is None:
            return self.player
        if not is_int(player) or not 0 <= player < self.players:
            raise YambError(f"player {player!r} out of range 0..{self.players - 1}")
        return int(player)

    def table(self, player: int | None = None) -> dict[str, dict[str, int | None]]:
        """A player's table (default: the player to move), by column label.

        Each column maps its rows to their scores (``None`` while open), then
        its computed rows (``numbers_sum``, ``difference`` where the preset has
        one, ``collections_sum``, ``total``) counting the filled cells.
        """
        p = self._check_player(player)
        cells = self.batch.cells[0, p]
        filled = self.batch.filled[0, p]
        computed = self.rules.column_totals(cells)
        return {
            label: {
                **{row: int(cells[c, r]) if filled[c] >> r & 1 else None for r, row in enumerate(self.rows)},
                **{name: int(values[c]) for name, values in computed.items()},
            }
            for c, label in enumerate(self.columns)
        }

    def yahtzee_bonus(self, player: int | None = None) -> int:
        """Extra-Yahtzee bonus points of a player (Yahtzee only; 0 elsewhere)."""
        p = self._check_player(player)
        return self.rules.spec.extra_yahtzee_bonus * int(self.batch.bonuses[0, p])

    def scores(self) -> list[int]:
        """Each player's total: column totals plus any Yahtzee bonus."""
        return [int(s) for s in self.batch.scores()[0]]

    # ----------------------------------------------------------------- saving
    def to_dict(self) -> dict[str, Any]:
        """A JSON-serializable snapshot: the rules, table, seed and every action played."""
        return {
            "preset": self.rules.name,
            "dice": self.rules.n_dice,
            "joker": self.rules.joker,
            "columns": list(self.layout.columns),
            "players": self.players,
            "seed": self.seed,
            "stream": self.stream,
            "actions": list(self._history),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        """Restore a game saved by ``to_dict``, replaying its actions."""
        missing = [key for key in SNAPSHOT_KEYS if key not in data]
        if missing:
            raise YambError(f"game snapshot is missing {', '.join(missing)}")
        rules = preset_rules(data["preset"], dice=data["dice"], joker=data["joker"])
        game = cls(rules, data["columns"], data["players"], seed=data["seed"], stream=data["stream"])
        if not isinstance(data["actions"], (list, tuple)):
            raise YambError(f"game snapshot: actions must be a list of integers, not {data['actions']!r}")
        for i, action in enumerate(data["actions"]):
            try:
                game.apply(action)
            except YambError as error:
                raise type(error)(f"game snapshot, action {i}: {error}") from None
        return game
