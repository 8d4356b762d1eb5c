"""Yamb, Yatzy and Yahtzee: rules as tables and a batched engine."""

from yamb import blas, numba_cache

blas.pin_kernels()  # before numpy and torch load
numba_cache.configure()

from yamb.errors import (
    IllegalMoveError,
    InvalidDiceError,
    UnknownColumnError,
    UnknownPresetError,
    UnknownRowError,
    YambError,
)
from yamb.registration import register_envs
from yamb.rules import Rules, rules
from yamb.table import Table

register_envs()

__version__ = "0.1.0"
__all__ = ["Cell", "Game", "IllegalMoveError", "InvalidDiceError", "Rules", "Table", "UnknownColumnError", "UnknownPresetError",
           "UnknownRowError", "YambError", "rules"]


def __getattr__(name: str) -> object:
    """``yamb.Game`` and ``yamb.Cell``, imported on first use (they load numba; the CLI starts without it)."""
    if name in ("Game", "Cell"):
        from yamb import game

        return getattr(game, name)
    raise AttributeError(f"module 'yamb' has no attribute {name!r}")
