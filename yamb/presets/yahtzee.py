"""Preset ``yahtzee``: the North American game with its joker rules, see docs/rules.md."""

from __future__ import annotations

from yamb.presets import patterns as p
from yamb.presets.spec import PresetSpec


def _of_a_kind_total(k: int):
    return lambda c: p.total(c) if p.best_face_with(c, k) else 0


def _small_straight(c: p.Counts) -> int:
    return 30 if any(p.has_run(c, low, 4) for low in (1, 2, 3)) else 0


def _large_straight(c: p.Counts) -> int:
    return 40 if p.has_run(c, 1, 5) or p.has_run(c, 2, 5) else 0


SPEC = PresetSpec(
    name="yahtzee",
    scorers={
        **p.number_scorers(("aces", "twos", "threes", "fours", "fives", "sixes")),
        "three_of_a_kind": _of_a_kind_total(3),
        "four_of_a_kind": _of_a_kind_total(4),
        "full_house": lambda c: 0 if p.full_house_faces(c) is None else 25,
        "small_straight": _small_straight,
        "large_straight": _large_straight,
        "yahtzee": lambda c: 50 if p.best_face_with(c, 5) else 0,
        "chance": p.total,
    },
    dice_options=(5,),
    columns=("free",),
    bonus_threshold=63,
    bonus=35,
    difference=None,
    joker_rows={"full_house": 25, "small_straight": 30, "large_straight": 40},
    extra_yahtzee_bonus=100,
)
