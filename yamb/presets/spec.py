"""What a preset declares: its rows, their five-dice scorers and its table rules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

Scorer = Callable[[tuple[int, ...]], int]


@dataclass(frozen=True)
class PresetSpec:
    """The declarative rule book of one preset (see docs/rules.md).

    ``scorers`` maps each fillable row, top to bottom, to its score on five dice.
    With six dice a row scores its best five dice (the lowest five for ``min``).
    The first six rows are the number rows (bonus when their sum reaches
    ``bonus_threshold``); ``difference`` is ``ones x (max - min)``, "plain" or
    "clamped" at 0, or None when the preset has no max/min rows; every other row
    is a collection row.
    """

    name: str
    scorers: Mapping[str, Scorer]
    dice_options: tuple[int, ...]
    columns: tuple[str, ...]
    bonus_threshold: int
    bonus: int
    difference: str | None
    rolls: int = 3
    last_turn_rolls: int = 3
    pure_hand_announce: bool = False
    joker_rows: Mapping[str, int] = field(default_factory=dict)
    extra_yahtzee_bonus: int = 0
