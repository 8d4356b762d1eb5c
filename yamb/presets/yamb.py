"""Preset ``yamb``: the default game (5 or 6 dice, 3 rolls), see docs/rules.md."""

from __future__ import annotations

from yamb.presets import patterns as p
from yamb.presets.spec import PresetSpec


def _two_pairs(c: p.Counts) -> int:
    faces = p.two_pair_faces(c)
    return 0 if faces is None else 2 * (faces[0] + faces[1]) + 10


def _straight(c: p.Counts) -> int:
    if p.has_run(c, 2, 5):
        return 45
    return 35 if p.has_run(c, 1, 5) else 0


def _full_house(c: p.Counts) -> int:
    return 0 if p.full_house_faces(c) is None else p.total(c) + 30


SPEC = PresetSpec(
    name="yamb",
    scorers={
        **p.number_scorers(("ones", "twos", "threes", "fours", "fives", "sixes")),
        "max": p.total,
        "min": p.total,
        "two_pairs": _two_pairs,
        "straight": _straight,
        "full_house": _full_house,
        "carriage": p.of_a_kind(4, 40),
        "yamb": p.of_a_kind(5, 50),
    },
    dice_options=(5, 6),
    columns=("down", "up", "free", "announce"),
    bonus_threshold=60,
    bonus=30,
    difference="plain",
)
