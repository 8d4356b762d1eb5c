"""A shipped bot replaced its predecessor (kept in ``tests/data/previous_bots``) for beating it: on
games of dice no run or measurement used, paired and less the luck of the dice, by more than three
standard errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from robo_players.measure.compare import paired_difference, play_games
from robo_players.measure.luck import luck_reference
from robo_players.neural.bots import BOTS_DIR, DIRECT_BOTS_DIR, bot_name
from robo_players.neural.build import load_player
from yamb.layout import layout
from yamb.rules import rules

# the bots the shipped ones replaced: test data, not in the package (the nearest tests/ folder above this file)
PREVIOUS_BOTS_DIR = next(p / "data" / "previous_bots" for p in Path(__file__).resolve().parents
                         if (p / "data" / "previous_bots").is_dir())
GAMES = {"jamb6": 10000, "yamb": 3000, "yatzy": 20000}  # gains of about 0.6 (jamb6), 2.3 (yamb), 0.3 (Yatzy)


@pytest.mark.slow
@pytest.mark.benchmark
@pytest.mark.parametrize("preset", sorted(GAMES))
def test_the_shipped_bot_beats_the_one_it_replaced(preset: str) -> None:
    lay = layout(rules(preset))
    luck = luck_reference("best", lay)
    shipped, previous = (play_games(lay, load_player(path / bot_name(lay), lay), GAMES[preset], seed=43, luck=luck)
                         for path in (BOTS_DIR, PREVIOUS_BOTS_DIR))
    diff = paired_difference(shipped.adjusted, previous.adjusted)
    assert diff["mean"] > 3 * diff["sem"], diff


def test_the_shipped_direct_network_beats_the_one_it_replaced() -> None:
    """``best-direct`` (yamb's network alone) was taught anew by today's ``best``: a gain of about 27,
    ten standard errors of the raw paired difference on these games."""
    lay = layout(rules("yamb"))
    shipped, previous = (play_games(lay, load_player(path / bot_name(lay), lay), 2000, seed=43)
                         for path in (DIRECT_BOTS_DIR, PREVIOUS_BOTS_DIR / "direct"))
    diff = paired_difference(shipped.scores, previous.scores)
    assert diff["mean"] > 3 * diff["sem"], diff
