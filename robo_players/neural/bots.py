"""The evolved bots shipped in ``robo_players/bots/``: ``--player best``.

A bot is a weights file named after its table,
``<preset>[-<joker>]-<dice>d-<column>-<column>....safetensors``, so the one for a
table is found without opening the others. ``best`` is the shipped bot of the
table, or ``expectimax`` for a table that has none (so ``yamb play``, whose
default bot is ``best``, works on every table).

``best-values`` is the shipped value network of a table (Yatzy, Yahtzee: state values;
yamb: after-state values), from ``robo_players/bots/values/`` (``robo_players.neural.state_values``).

``best-direct`` is the shipped network that plays alone, without search
(kind ``direct``: trained to imitate ``best``, then evolved), from
``robo_players/bots/direct/``, named the same way; a table without one is an
error.

The bots that shipped ones replaced are lab data, kept with the tests (``tests/data/previous_bots/``).
"""

from __future__ import annotations

from pathlib import Path

from robo_players.base import Player
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.table import Table

BOTS_DIR = Path(__file__).resolve().parent.parent / "bots"
DIRECT_BOTS_DIR = BOTS_DIR / "direct"
VALUES_DIR = BOTS_DIR / "values"
SUFFIX = ".safetensors"
VALUES_SUFFIX = ".npz"  # a values file (``robo_players.neural.value_nets``)


def bot_name(layout: Layout) -> str:
    """The file name of the bot for ``layout``'s table."""
    return Table.of(layout).stem + SUFFIX


def shipped_bots(bots_dir: Path = BOTS_DIR) -> list[str]:
    """The tables that have a shipped bot, as file stems."""
    return sorted(p.name.removesuffix(SUFFIX) for p in bots_dir.glob(f"*{SUFFIX}"))


def load_bot(layout: Layout, bots_dir: Path = BOTS_DIR) -> Player:
    """The shipped bot for ``layout``'s table (named ``best``), else ``expectimax``."""
    from robo_players.neural.build import load_player

    path = bots_dir / bot_name(layout)
    if not path.is_file():
        return ExpectimaxPlayer(layout)
    player = load_player(path, layout)
    player.name = "best"
    return player


def direct_bot_file(layout: Layout, bots_dir: Path = DIRECT_BOTS_DIR) -> Path:
    """The shipped direct network's file for ``layout``'s table, or a precise error."""
    path = bots_dir / bot_name(layout)
    if not path.is_file():
        tables = ", ".join(shipped_bots(bots_dir)) or "none"
        raise YambError(f"no shipped best-direct bot for {path.name.removesuffix(SUFFIX)} (shipped: {tables})")
    return path


def load_direct_bot(layout: Layout, bots_dir: Path = DIRECT_BOTS_DIR) -> Player:
    """The shipped direct network for ``layout``'s table (named ``best-direct``), or a precise error."""
    from robo_players.neural.build import load_player

    player = load_player(direct_bot_file(layout, bots_dir), layout)
    player.name = "best-direct"
    return player


def values_file(layout: Layout) -> Path:
    """The shipped values file of ``layout``'s table."""
    return VALUES_DIR / (Table.of(layout).stem + VALUES_SUFFIX)


def values_bot_file(layout: Layout, values_dir: Path | None = None) -> Path:
    """The shipped values file of ``layout``'s table (``best-values``), or a precise error."""
    path = values_file(layout) if values_dir is None else values_dir / values_file(layout).name
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in VALUES_DIR.glob(f"*{VALUES_SUFFIX}"))) or "none"
        raise YambError(f"no shipped best-values network for {path.stem} (shipped: {shipped})")
    return path


def load_values_bot(layout: Layout, values_dir: Path | None = None) -> Player:
    """``best-values``: the shipped value network of ``layout``'s table, or a precise error."""
    from robo_players.neural.state_values import load_values_player

    player = load_values_player(values_bot_file(layout, values_dir), layout)
    player.name = "best-values"
    return player
