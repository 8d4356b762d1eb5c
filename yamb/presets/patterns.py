"""Dice patterns shared by the presets' scoring rules, on five-dice face counts.

``counts[f - 1]`` is how many dice show face ``f``. Each helper answers one
question about a hand; the presets turn the answers into points.
"""

from __future__ import annotations

from functools import partial

Counts = tuple[int, ...]


def total(counts: Counts) -> int:
    """Sum of all dice."""
    return sum(f * c for f, c in enumerate(counts, start=1))


def face_sum(counts: Counts, face: int) -> int:
    """Sum of the dice showing ``face``."""
    return face * counts[face - 1]


def best_face_with(counts: Counts, at_least: int) -> int:
    """Highest face shown at least ``at_least`` times, or 0."""
    faces = [f for f, c in enumerate(counts, start=1) if c >= at_least]
    return max(faces, default=0)


def of_a_kind_score(counts: Counts, k: int, bonus: int) -> int:
    """``k`` times the highest face shown at least ``k`` times, plus ``bonus``; 0 without one."""
    face = best_face_with(counts, k)
    return k * face + bonus if face else 0


def of_a_kind(k: int, bonus: int = 0) -> partial[int]:
    """The scorer ``of_a_kind_score`` with ``k`` and ``bonus`` fixed: Yamb's poker is ``of_a_kind(4, 40)``."""
    return partial(of_a_kind_score, k=k, bonus=bonus)


def two_pair_faces(counts: Counts) -> tuple[int, int] | None:
    """The two highest different faces each shown at least twice, or None."""
    faces = [f for f, c in enumerate(counts, start=1) if c >= 2]
    if len(faces) < 2:
        return None
    return faces[-1], faces[-2]


def full_house_faces(counts: Counts) -> tuple[int, int] | None:
    """(triple face, pair face) of a five-dice full house (3 + 2, different faces), or None."""
    triple = [f for f, c in enumerate(counts, start=1) if c == 3]
    pair = [f for f, c in enumerate(counts, start=1) if c == 2]
    if triple and pair:
        return triple[0], pair[0]
    return None


def has_run(counts: Counts, low: int, length: int) -> bool:
    """True when every face from ``low`` to ``low + length - 1`` is shown."""
    return all(counts[f - 1] >= 1 for f in range(low, low + length))


def number_scorers(names: tuple[str, ...]) -> dict[str, object]:
    """Scorers of the six number rows: row ``names[f - 1]`` scores the sum of the ``f``s."""
    return {name: partial(face_sum, face=f) for f, name in enumerate(names, start=1)}
