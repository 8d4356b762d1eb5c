"""Preset ``yatzy``: Scandinavian Yatzy, one free column, see docs/rules.md."""

from __future__ import annotations

from yamb.presets import patterns as p
from yamb.presets.spec import PresetSpec


def _two_pairs(c: p.Counts) -> int:
    faces = p.two_pair_faces(c)
    return 0 if faces is None else 2 * (faces[0] + faces[1])


def _full_house(c: p.Counts) -> int:
    return 0 if p.full_house_faces(c) is None else p.total(c)


SPEC = PresetSpec(
    name="yatzy",
    scorers={
        **p.number_scorers(("ones", "twos", "threes", "fours", "fives", "sixes")),
        "one_pair": p.of_a_kind(2),
        "two_pairs": _two_pairs,
        "three_of_a_kind": p.of_a_kind(3),
        "four_of_a_kind": p.of_a_kind(4),
        "small_straight": lambda c: 15 if p.has_run(c, 1, 5) else 0,
        "large_straight": lambda c: 20 if p.has_run(c, 2, 5) else 0,
        "full_house": _full_house,
        "chance": p.total,
        "yatzy": lambda c: 50 if p.best_face_with(c, 5) else 0,
    },
    dice_options=(5,),
    columns=("free",),
    bonus_threshold=63,
    bonus=50,
    difference=None,
)
