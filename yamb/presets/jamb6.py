"""Preset ``jamb6``: the widespread six-dice variant, see docs/rules.md."""

from __future__ import annotations

from yamb.presets import patterns as p
from yamb.presets.spec import PresetSpec


def _straight(c: p.Counts) -> int:
    if p.has_run(c, 2, 5):
        return 50
    return 45 if p.has_run(c, 1, 5) else 0


def _full_house(c: p.Counts) -> int:
    faces = p.full_house_faces(c)
    return 0 if faces is None else 3 * faces[0] + 2 * faces[1] + 40


SPEC = PresetSpec(
    name="jamb6",
    scorers={
        **p.number_scorers(("ones", "twos", "threes", "fours", "fives", "sixes")),
        "max": p.total,
        "min": p.total,
        "trips": p.of_a_kind(3, 20),
        "straight": _straight,
        "full_house": _full_house,
        "poker": p.of_a_kind(4, 50),
        "yamb": p.of_a_kind(5, 60),
    },
    dice_options=(6,),
    columns=("down", "free", "up", "announce"),
    bonus_threshold=60,
    bonus=30,
    difference="clamped",
    last_turn_rolls=5,
    pure_hand_announce=True,
)
