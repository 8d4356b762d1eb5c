"""Precise errors for user mistakes; the CLI prints their message and exits with 2."""

from __future__ import annotations


class YambError(ValueError):
    """Base class of every error caused by bad input rather than by a bug."""


class UnknownPresetError(YambError):
    """A preset name, dice count or option that docs/rules.md does not define."""


class UnknownColumnError(YambError):
    """A column kind that does not exist, or a column index out of range."""


class UnknownRowError(YambError):
    """A row name that the preset does not have."""


class InvalidDiceError(YambError):
    """Dice of the wrong count or with a value outside 1..6."""


class IllegalMoveError(YambError):
    """A legal-looking action that the rules forbid in the current state."""


def shown(text: object, most: int = 40) -> str:
    """``text`` quoted for an error message, cut to about ``most`` characters (a 5,000-digit number fits a line)."""
    quoted = repr(text)
    return quoted if len(quoted) <= most else f"{quoted[:most // 2]}...({len(quoted):,} characters)"
