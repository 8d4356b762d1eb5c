"""The rules of one preset as tables: the single source of truth for scores.

``Rules.scores[m, r]`` is the score of dice multiset ``m`` in row ``r``. It is
computed once per preset from the preset's five-dice scorers (the best five of
six dice where six are rolled). The engine, the solver, the players and the
tests all read these tables; ``Rules.column_totals`` is the only place where the
computed rows (numbers sum with its bonus, difference, collections) are added.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from yamb.dice import FACES, DiceTables, dice_tables
from yamb.errors import InvalidDiceError, UnknownPresetError, UnknownRowError
from yamb.presets import PRESETS, PresetSpec

JOKER_OPTIONS = ("free", "forced")
N_NUMBER_ROWS = 6
LOWEST_FIVE_ROWS = frozenset({"min"})


def _multiset_score(spec: PresetSpec, row: str, counts: np.ndarray) -> int:
    """Score of one multiset in ``row``: its best five dice when there are six."""
    scorer = spec.scorers[row]
    if counts.sum() == 5:
        return int(scorer(tuple(int(c) for c in counts)))
    fives = [counts - np.eye(FACES, dtype=counts.dtype)[f] for f in range(FACES) if counts[f]]
    values = [int(scorer(tuple(int(c) for c in five))) for five in fives]
    return min(values) if row in LOWEST_FIVE_ROWS else max(values)


@dataclass(frozen=True, eq=False)
class Rules:
    """One preset with its dice count and options, and its score tables."""

    spec: PresetSpec
    n_dice: int
    joker: str | None
    dice: DiceTables
    scores: np.ndarray  # (M, R) int16
    joker_scores: np.ndarray  # (M, R) int16: scores when a Yahtzee is a joker

    def __repr__(self) -> str:
        joker = f", joker={self.joker!r}" if self.joker else ""
        return f"Rules({self.name!r}, dice={self.n_dice}{joker})"

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def rows(self) -> tuple[str, ...]:
        return tuple(self.spec.scorers)

    @property
    def n_rows(self) -> int:
        return len(self.spec.scorers)

    @property
    def rolls(self) -> int:
        return self.spec.rolls

    @property
    def default_columns(self) -> tuple[str, ...]:
        return self.spec.columns

    @property
    def has_jokers(self) -> bool:
        return bool(self.spec.joker_rows)

    @property
    def middle_start(self) -> tuple[int, int]:
        """Rows where a ``middle`` column starts: max and min, else the middle rows."""
        if "max" in self.spec.scorers and "min" in self.spec.scorers:
            return self.row_index("max"), self.row_index("min")
        return (self.n_rows - 1) // 2, self.n_rows // 2

    @property
    def five_alike_face(self) -> np.ndarray:
        """(M,) face shown by all dice of a multiset with five alike, else 0."""
        top = self.dice.multisets.max(axis=1) >= 5
        return np.where(top, self.dice.multisets.argmax(axis=1) + 1, 0).astype(np.int8)

    @property
    def largest_score(self) -> int:
        """The largest score of a row (in absolute value): the scale of the players' and the env's score features."""
        return int(np.abs(self.scores).max())

    def row_index(self, row: str) -> int:
        """Index of a row name, or a precise error."""
        try:
            return self.rows.index(row)
        except ValueError:
            raise UnknownRowError(
                f"unknown row {row!r} for preset {self.name}; rows are {', '.join(self.rows)}"
            ) from None

    def check_dice(self, dice: list[int] | tuple[int, ...]) -> tuple[int, ...]:
        """Validate dice values; return them as a tuple of ints."""
        values = tuple(dice)
        if len(values) != self.n_dice:
            raise InvalidDiceError(f"expected {self.n_dice} dice, got {len(values)}")
        for d in values:
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= FACES:
                raise InvalidDiceError(f"die value {d!r} is not an integer from 1 to 6")
        return tuple(int(d) for d in values)

    def score(self, row: str, dice: list[int] | tuple[int, ...]) -> int:
        """Score of ``dice`` in ``row`` (no joker)."""
        r = self.row_index(row)
        m = self.dice.index_of_dice(self.check_dice(dice))
        return int(self.scores[m, r])

    def column_totals(self, cells: np.ndarray) -> dict[str, np.ndarray]:
        """Computed rows of columns whose cell scores are ``cells[..., R]`` (open cells 0)."""
        cells = np.asarray(cells, dtype=np.int32)
        numbers = cells[..., :N_NUMBER_ROWS].sum(axis=-1)
        numbers_sum = numbers + self.spec.bonus * (numbers >= self.spec.bonus_threshold)
        collections = list(range(N_NUMBER_ROWS, self.n_rows))
        out = {"numbers_sum": numbers_sum}
        if self.spec.difference is not None:
            hi, lo = self.row_index("max"), self.row_index("min")
            spread = cells[..., hi] - cells[..., lo]
            if self.spec.difference == "clamped":
                spread = np.maximum(spread, 0)
            out["difference"] = cells[..., 0] * spread
            collections = [r for r in collections if r not in (hi, lo)]
        out["collections_sum"] = cells[..., collections].sum(axis=-1)
        out["total"] = sum(out.values())
        return out


def _score_table(spec: PresetSpec, dice: DiceTables) -> np.ndarray:
    table = np.zeros((dice.n_multisets, len(spec.scorers)), dtype=np.int16)
    for r, row in enumerate(spec.scorers):
        for m, counts in enumerate(dice.multisets):
            table[m, r] = _multiset_score(spec, row, counts)
    return table


def rules(preset: str = "yamb", dice: int | None = None, joker: str | None = None) -> Rules:
    """The rules of ``preset`` (``yamb``, ``jamb6``, ``yatzy``, ``yahtzee``), cached: one object per
    game, however its defaults are asked for.

    ``dice`` picks 5 or 6 dice where the preset allows it; ``joker`` is
    ``"free"`` (the default for ``yahtzee``) or ``"forced"``.
    """
    if preset not in PRESETS:
        raise UnknownPresetError(f"unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
    spec = PRESETS[preset]
    n_dice = spec.dice_options[0] if dice is None else dice
    if n_dice not in spec.dice_options:
        allowed = " or ".join(map(str, spec.dice_options))
        raise UnknownPresetError(f"preset {preset} is played with {allowed} dice, not {n_dice}")
    if spec.joker_rows:
        joker = joker or "free"
        if joker not in JOKER_OPTIONS:
            raise UnknownPresetError(f"unknown joker option {joker!r}; choose free or forced")
    elif joker is not None:
        raise UnknownPresetError(f"preset {preset} has no joker option")
    return _rules(preset, n_dice, joker)


@cache
def _rules(preset: str, n_dice: int, joker: str | None) -> Rules:
    """The rules of a preset with its dice count and joker rule resolved, made once."""
    spec = PRESETS[preset]
    tables = dice_tables(n_dice)
    scores = _score_table(spec, tables)
    scores.flags.writeable = False
    joker_scores = scores.copy()
    five_alike = tables.multisets.max(axis=1) >= 5
    for row, value in spec.joker_rows.items():
        joker_scores[five_alike, list(spec.scorers).index(row)] = value
    joker_scores.flags.writeable = False
    return Rules(spec=spec, n_dice=n_dice, joker=joker, dice=tables, scores=scores,
                 joker_scores=joker_scores)

