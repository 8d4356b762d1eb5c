"""Column kinds: their order rules, checked as tables and in played games, and the action encoding."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tests.reference_game import order_allowed, play_randomly
from yamb import UnknownColumnError, UnknownRowError, YambError, rules
from yamb.columns import COLUMN_KINDS, fillable_table
from yamb.engine import GameBatch
from yamb.layout import layout

ORDERED = ("down", "up", "updown", "middle")


def _bits(rows: set[int]) -> int:
    return sum(1 << r for r in rows)


def _reachable(kind: str, n_rows: int, start: tuple[int, int]) -> set[frozenset[int]]:
    """Every filled set the reference order rule can reach from an empty column."""
    seen = {frozenset()}
    frontier = [frozenset()]
    while frontier:
        filled = frontier.pop()
        for r in order_allowed(kind, set(filled), n_rows, start):
            nxt = filled | {r}
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return seen


@pytest.mark.parametrize("kind", ORDERED)
@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_order_table_matches_the_reference_on_every_reachable_column(kind: str, preset: str) -> None:
    r = rules(preset)
    start = r.middle_start
    table = fillable_table(kind, r.n_rows, start)
    states = _reachable(kind, r.n_rows, start)
    if kind in ("down", "up"):
        assert len(states) == r.n_rows + 1
    for filled in states:
        assert table[_bits(filled)] == _bits(order_allowed(kind, set(filled), r.n_rows, start)), filled


@pytest.mark.parametrize("kind", sorted(set(COLUMN_KINDS) - set(ORDERED)))
def test_unordered_kinds_allow_every_open_row(kind: str) -> None:
    table = fillable_table(kind, 15, (7, 7))
    filled = np.arange(1 << 15, dtype=np.uint32)
    assert (table == ~filled & np.uint32((1 << 15) - 1)).all()


def test_middle_starts_at_max_or_min_and_grows_outwards() -> None:
    r = rules("yamb")
    table = fillable_table("middle", r.n_rows, r.middle_start)
    assert table[0] == _bits({r.row_index("max"), r.row_index("min")})
    filled = {r.row_index("min")}
    assert table[_bits(filled)] == _bits({r.row_index("max"), r.row_index("two_pairs")})
    filled = set(range(0, 12))  # everything but the last row
    assert table[_bits(filled)] == _bits({12})


@pytest.mark.parametrize("kind", ORDERED + ("free",))
def test_a_played_column_is_filled_in_its_kind_s_order(kind: str) -> None:
    lay = layout(rules("yamb"), [kind])
    batch = GameBatch(lay, 20, seed=3)
    rng = np.random.default_rng(0)
    orders: list[list[int]] = [[] for _ in range(20)]
    while not batch.done.all():
        games = np.flatnonzero(~batch.done)
        before = batch.filled[games, 0, 0].copy()
        mask = batch.legal_actions(games)
        batch.step((rng.random(mask.shape) * mask).argmax(axis=1), games)
        for g, old, new in zip(games, before, batch.filled[games, 0, 0]):
            if new != old:
                orders[g].append(int(new ^ old).bit_length() - 1)
    rows = list(range(13))
    for order in orders:
        assert sorted(order) == rows
        if kind == "down":
            assert order == rows
        if kind == "up":
            assert order == rows[::-1]
        for j, row in enumerate(order):
            filled = set(order[:j])
            assert row in order_allowed(kind, filled, 13, (6, 7))
    if kind == "free":
        assert len({tuple(o) for o in orders}) == 20  # no hidden order


def test_cell_names_and_action_encoding_round_trip() -> None:
    lay = layout(rules("yamb"), ["down", "free", "down", "announce"])
    n_cells, n_keeps = lay.n_cells, lay.n_keeps
    assert lay.n_actions == 2 * 4 * 13 + 462
    assert lay.cell("free", "yamb") == 1 * 13 + 12
    assert lay.cell(2, 0) == 26
    assert lay.cell_name(26) == "down2:ones"
    assert lay.cell_name(lay.cell("announce", "max")) == "announce:max"
    assert lay.describe_action(lay.cell("free", "yamb")) == "fill free:yamb"
    assert lay.describe_action(n_cells) == "keep nothing"
    keep_55 = int(np.flatnonzero((lay.rules.dice.keeps == [0, 0, 0, 0, 2, 0]).all(axis=1))[0])
    assert lay.describe_action(n_cells + keep_55) == "keep 5 5"
    assert lay.describe_action(n_cells + n_keeps + 3 * 13 + 7) == "announce announce:min"


@pytest.mark.parametrize(
    ("make", "error", "needle"),
    [
        (lambda: layout(rules(), ["down", "sideways"]), UnknownColumnError, "unknown column kind 'sideways'"),
        (lambda: layout(rules(), []), UnknownColumnError, "at least one column"),
        (lambda: layout(rules(), ["counter_announce"]), UnknownColumnError, "at least two players"),
        (lambda: layout(rules(), None, players=0), YambError, "players must be at least 1"),
        (lambda: layout(rules()).cell("middle", "ones"), UnknownColumnError, "no column 'middle'"),
        (lambda: layout(rules()).cell(4, "ones"), UnknownColumnError, "column 4 out of range"),
        (lambda: layout(rules()).cell(0, "chance"), UnknownRowError, "unknown row 'chance'"),
        (lambda: layout(rules()).cell(0, 13), UnknownRowError, "row 13 out of range"),
    ],
)
def test_bad_tables_raise_precise_errors(make: Callable[[], object], error: type, needle: str) -> None:
    with pytest.raises(error, match=needle):
        make()


@pytest.mark.parametrize("kind", COLUMN_KINDS)
def test_any_single_kind_table_can_be_played_to_the_end(kind: str) -> None:
    players = 2 if kind == "counter_announce" else 1
    batch = GameBatch(layout(rules("yamb"), [kind, kind], players=players), 6, seed=11)
    play_randomly(batch, np.random.default_rng(1))
    assert (batch.filled == (1 << 13) - 1).all()
