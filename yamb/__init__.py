"""Yamb, Yatzy and Yahtzee: rules as tables and a batched engine."""

from yamb.errors import IllegalMoveError, InvalidDiceError, UnknownColumnError, UnknownPresetError, UnknownRowError, YambError
from yamb.rules import Rules, rules

__version__ = "0.1.0"
