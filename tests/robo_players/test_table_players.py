"""Which registered players a table takes: ``players_for`` lists a name exactly when ``make_player`` builds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from expected_scores.distributions import tables_path
from expected_scores.solve import CACHE_ENV
from robo_players import registry
from robo_players.registry import PLAYERS, make_player, players_for
from yamb.errors import YambError
from yamb.layout import Layout, layout
from yamb.rules import rules
from yamb.table import Table
from yamb_app.seats import bot_names, offered

# (preset, dice, joker, columns, players). Slow: the search players with exact columns solve a Yamb or
# Jamb6 column on first use (minutes without the cache).
TABLES = [
    pytest.param("yamb", None, None, None, 1, marks=pytest.mark.slow),
    pytest.param("jamb6", None, None, None, 1, marks=pytest.mark.slow),
    pytest.param("yamb", None, None, ("down", "free"), 2, marks=pytest.mark.slow),
    pytest.param("yamb", None, None, ("free",), 1, marks=pytest.mark.slow),
    ("yamb", 6, None, ("hand", "middle"), 1),
    ("yatzy", None, None, None, 1),
    ("yatzy", None, None, None, 2),
    ("yatzy", None, None, ("down",), 1),
    ("yahtzee", None, None, None, 1),
    ("yahtzee", None, "forced", None, 1),
    ("yahtzee", None, None, ("down",), 1),
    ("yahtzee", None, None, ("free", "free"), 1),
]


def table(preset: str, dice: int | None, joker: str | None, columns: tuple[str, ...] | None, players: int) -> Layout:
    return layout(rules(preset, dice=dice, joker=joker), columns, players)


def builds(name: str, lay: Layout) -> bool:
    try:
        make_player(name, lay)
    except YambError:
        return False
    return True


@pytest.mark.parametrize("preset, dice, joker, columns, players", TABLES)
def test_a_name_is_listed_exactly_when_its_player_is_built(preset, dice, joker, columns, players) -> None:
    lay = table(preset, dice, joker, columns, players)
    assert players_for(lay) == [name for name in PLAYERS if builds(name, lay)]


def test_the_tables_refused_are_the_ones_documented() -> None:
    yamb, yatzy = table("yamb", None, None, None, 1), table("yatzy", None, None, None, 1)
    assert "optimal" not in players_for(yamb) and "best-values" in players_for(yamb)  # after-state values
    assert {"optimal", "best-values"} <= set(players_for(yatzy))
    assert "best-direct" in players_for(yamb) and "best-direct" not in players_for(yatzy)
    assert "best-values" not in players_for(table("yahtzee", None, "forced", None, 1))  # no network shipped for it


def test_listing_builds_no_player(monkeypatch) -> None:
    def refuse(lay: Layout) -> None:
        raise AssertionError("a player was built")

    lay = table("yatzy", None, None, None, 1)
    listed = players_for(lay)
    monkeypatch.setattr(registry, "PLAYERS", dict.fromkeys(PLAYERS, refuse))
    assert players_for(lay) == listed


def test_a_bot_of_the_score_tables_is_offered_at_a_table_of_two_or_more_once_they_are_built(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))  # no score tables built
    one, two = table("yatzy", None, None, None, 1), table("yatzy", None, None, None, 2)
    assert "optimal-win" in players_for(two) and not offered("optimal-win", two)
    assert "optimal-win" not in bot_names(two) and offered("optimal", two)
    tables_path(two.rules).touch()
    assert offered("optimal-win", two) and "optimal-win" in bot_names(two)
    assert "optimal-win" not in bot_names(one)


def test_the_default_bot_comes_first_among_the_tables_bots() -> None:
    for lay, default in ((table("yamb", None, None, None, 1), "best+lookahead"),
                         (table("yatzy", None, None, None, 3), "best-values"),
                         (table("yahtzee", None, "forced", ("down",), 1), "best")):
        names = bot_names(lay)
        offers = [name for name in players_for(lay) if offered(name, lay)]
        assert names[0] == default and sorted(set(names) - {"best+lookahead"}) == sorted(offers)
    for preset in ("yamb", "jamb6"):  # at a table of two, the strongest bot playing to win second
        two = table(preset, None, None, None, 2)
        assert bot_names(two)[:2] == ["best+lookahead", "best-win+lookahead"]
        assert sorted(set(bot_names(two)) - {"best+lookahead", "best-win+lookahead"}) == sorted(
            name for name in players_for(two) if offered(name, two))
    assert "best-win+lookahead" not in bot_names(table("jamb6", None, None, None, 1))


@pytest.mark.parametrize("preset", ["yamb", "jamb6", "yatzy", "yahtzee"])
def test_each_shipped_tables_strongest_bot_plays_it(preset: str) -> None:
    """The default bot of each preset's own table is the strongest measured (docs/lab/results.md), built
    and played to the end of a game at a table of two, against the strongest playing to win where one is named."""
    from robo_players.base import play
    from yamb.engine import GameBatch
    from yamb_app.seats import STRONGEST, STRONGEST_TO_WIN, default_bot

    lay = table(preset, None, None, None, 2)
    name = default_bot(lay)
    assert name == STRONGEST[Table.of(lay).stem] and name != "best"
    to_win = STRONGEST_TO_WIN.get(Table.of(lay).stem)
    batch = GameBatch(lay, 2, seed=3)
    play(batch, [make_player(name, lay), make_player(to_win or name, lay)], check=True)
    assert (batch.filled == lay.full_mask).all()


def test_an_unknown_name_is_answered_with_the_tables_names() -> None:
    with pytest.raises(YambError, match="unknown player 'grandmaster'") as error:
        make_player("grandmaster", table("yamb", None, None, None, 1))
    assert "best-direct" in str(error.value) and "optimal" not in str(error.value)


@pytest.mark.parametrize("preset", ["yamb", "yatzy"])
def test_the_registrys_searches_are_the_expectimax_players(preset: str) -> None:
    """``registry.SEARCHES`` (what evolution accepts as a luck reference without building it) names
    exactly the registered players that are built as expectimax searches."""
    from robo_players.registry import PLAYERS, SEARCHES
    from robo_players.search.expectimax import ExpectimaxPlayer

    lay = layout(rules(preset))
    built = {name: make_player(name, lay) for name in players_for(lay)
             if not name.startswith("optimal")}  # the exact players solve the whole game first
    assert set(SEARCHES) <= set(PLAYERS)
    assert {name for name, player in built.items() if isinstance(player, ExpectimaxPlayer)} == set(SEARCHES)


def test_a_name_is_checked_as_it_would_be_built_without_building_anything(monkeypatch) -> None:
    """``check_name`` raises what ``make_player`` raises for an unknown name or a refused table (look-ahead
    or not), before any player is built; a known name, a target or a file's name passes."""
    from robo_players.registry import check_name

    lay = table("yamb", None, None, None, 2)
    refused = ("grandmaster", "grandmaster+lookahead", "optimal", "optimal+lookahead3", "best-values@2")
    errors = {}
    for name in refused:
        with pytest.raises(YambError) as built:
            make_player(name, lay)
        errors[name] = str(built.value)

    def refuse(lay: Layout) -> None:
        raise AssertionError("a player was built")

    monkeypatch.setattr(registry, "PLAYERS", dict.fromkeys(PLAYERS, refuse))
    for name in refused:
        with pytest.raises(YambError) as checked:
            check_name(name, lay)
        assert str(checked.value) == errors[name]
    for name in ("best", "best+lookahead", "expectimax-columns+lookahead3", "optimal-reach@300", "mine.safetensors"):
        check_name(name, lay)
