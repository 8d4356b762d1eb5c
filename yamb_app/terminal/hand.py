"""The dice as shown on screen: kept dice stay at their positions across rerolls.

The engine holds a hand as a multiset; positions exist only on screen, so that
a player can keep dice by position and find them where they were.
"""

from __future__ import annotations

from collections import Counter


def arrange(shown: tuple[int, ...], kept: tuple[int, ...], dice: tuple[int, ...]) -> tuple[int, ...]:
    """New screen order: the dice at positions ``kept`` (0-based) stay, the new ones fill the rest.

    ``dice`` is the hand after the reroll in any order; it contains the kept dice.
    """
    fresh = Counter(dice) - Counter(shown[i] for i in kept)
    new = iter(sorted(fresh.elements()))
    return tuple(shown[i] if i in kept else next(new) for i in range(len(shown)))


def positions_of(shown: tuple[int, ...], faces: tuple[int, ...]) -> tuple[int, ...]:
    """Positions (0-based, leftmost first) of dice showing ``faces``; ValueError if missing."""
    free = list(range(len(shown)))
    taken = []
    for face in faces:
        match = next((i for i in free if shown[i] == face), None)
        if match is None:
            have = sum(1 for d in shown if d == face)
            want = sum(1 for f in faces if f == face)
            raise ValueError(f"you have {have} {'die' if have == 1 else 'dice'} showing {face}, not {want}")
        free.remove(match)
        taken.append(match)
    return tuple(sorted(taken))

