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
