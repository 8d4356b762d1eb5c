"""``yamb.Table``: one name for a table, resolved, hashable, and the stem of its files."""

from __future__ import annotations

from pathlib import Path

import pytest

import yamb
from yamb.errors import UnknownPresetError
from yamb.layout import layout
from yamb.rules import rules
from yamb.table import Table

BOTS = Path(__file__).resolve().parents[2] / "robo_players" / "bots"


def test_defaults_are_resolved_so_equal_tables_are_equal_values() -> None:
    assert Table.named("yahtzee") == Table.named("yahtzee", dice=5, joker="free", columns=["free"])
    assert Table.named("yamb") == Table("yamb", 5, None, ("down", "up", "free", "announce"))
    assert Table.named("jamb6").dice == 6 and Table.named("yatzy").joker is None
    assert len({Table.named("yamb"), Table.named("yamb", players=1), Table.named("yamb", players=2)}) == 2


def test_a_layout_and_its_table_name_each_other() -> None:
    lay = layout(rules("yahtzee", joker="forced"), ("free", "down"), players=3)
    table = Table.of(lay)
    assert (table.preset, table.dice, table.joker, table.columns, table.players) == (
        "yahtzee", 5, "forced", ("free", "down"), 3)
    assert table.layout is table.layout  # built once
    assert (table.layout.rules, table.layout.columns, table.layout.players) == (lay.rules, lay.columns, 3)
    assert table.solo.players == 1 and table.solo.columns == table.columns
    assert yamb.Table is Table


def test_the_stems_are_the_shipped_bots_file_names() -> None:
    """Every shipped bot's file is named by its table's stem (the files were named before ``Table``)."""
    shipped = sorted(p.name.removesuffix(".safetensors") for p in BOTS.glob("*.safetensors"))
    made = sorted(Table.named(p).stem for p in ("yamb", "jamb6", "yatzy", "yahtzee"))
    assert made == shipped and len(shipped) >= 4
    assert Table.named("yahtzee").stem == "yahtzee-free-5d-free"


def test_a_bad_table_is_the_rules_one_line_error() -> None:
    with pytest.raises(UnknownPresetError, match="unknown preset"):
        Table.named("chess")
    with pytest.raises(UnknownPresetError, match="played with 5 dice"):
        Table.named("yatzy", dice=6)
