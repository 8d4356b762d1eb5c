"""Players by name, for the command line and the comparison tools.

Listing them, or building one that needs no network, loads no network library (torch): the
networks' modules are imported when a network is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from robo_players.base import Player
from robo_players.best_win import BestWinPlayer, best_win_player
from robo_players.greedy import GreedyPlayer
from robo_players.montecarlo import MonteCarloPlayer
from robo_players.neural.bots import direct_bot_file, load_bot, load_direct_bot, load_values_bot, values_bot_file
from robo_players.optimal import check_table, optimal_player
from robo_players.optimal_win import REACH, check_tables, reach_player, win_player
from robo_players.random_player import RandomPlayer
from robo_players.search.column_exact import ColumnExactPlayer, column_played, columns_exact, columns_played
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.lookahead import SUFFIX, lookahead_player, split_name
from robo_players.search.row_means import exact_expectimax, played_expectimax
from robo_players.smart import SmartPlayer
from yamb.errors import YambError
from yamb.layout import Layout

PLAYERS: dict[str, Callable[[Layout], Player]] = {
    "random": lambda layout: RandomPlayer(),
    "greedy": lambda layout: GreedyPlayer(),
    "smart": lambda layout: SmartPlayer(),
    "expectimax": ExpectimaxPlayer,
    "expectimax-played": played_expectimax,
    "expectimax-exact": exact_expectimax,
    "expectimax-column": ColumnExactPlayer,
    "expectimax-column-played": column_played,
    "expectimax-columns": columns_exact,
    "expectimax-columns-played": columns_played,
    "optimal": optimal_player,
    "optimal-win": win_player,
    "montecarlo": MonteCarloPlayer,
    "best": load_bot,
    "best-direct": load_direct_bot,
    "best-values": load_values_bot,
    "best-win": best_win_player,
}

# The registered players that are expectimax searches (``ExpectimaxPlayer``s: they value each hand, so
# they can measure a roll's luck, ``robo_players.measure.luck``); tested against the players built.
SEARCHES = ("expectimax", "expectimax-played", "expectimax-exact", "expectimax-column", "expectimax-column-played",
            "expectimax-columns", "expectimax-columns-played", "best")

# The players that refuse some tables, each with its loader's own check: a precise error for a table it
# refuses, found without building anything (no solve, no network). The others play every table.
TABLE_CHECKS: dict[str, Callable[[Layout], object]] = {
    "optimal": check_table,
    "optimal-win": check_tables,
    "best-direct": direct_bot_file,
    "best-values": values_bot_file,
}


def plays(name: str, layout: Layout) -> bool:
    """Whether the registered player ``name`` plays ``layout``'s table (``make_player`` builds it)."""
    try:
        TABLE_CHECKS.get(name, lambda layout: None)(layout)
    except YambError:
        return False
    return True


def players_for(layout: Layout) -> list[str]:
    """The registered names whose players play ``layout``'s table, in the registry's order."""
    return [name for name in PLAYERS if plays(name, layout)]


def make_player(name: str, layout: Layout) -> Player:
    """The player called ``name`` for ``layout``, or the neural player stored in the weights file
    ``name`` (``.pt``, ``.safetensors``, ``.onnx``, ``.npz``), or the player of the values file ``name``
    (``robo_players.neural.state_values``), or a precise error. ``optimal-reach@T`` plays a solitaire Yatzy or
    Yahtzee for the largest chance of a final total of at least T (``robo_players.optimal_win``). A name ending
    in ``+lookahead`` is that player with two turns of look-ahead, ``+lookaheadN`` with N turns
    (``robo_players.search.lookahead``)."""
    ahead = split_name(name)
    if ahead is not None:
        base = make_player(ahead[0], layout)
        if isinstance(base, BestWinPlayer):
            return base.looking_ahead(layout, ahead[1], ahead[2])
        return lookahead_player(base, layout, ahead[1], ahead[2])
    if (reach := REACH.fullmatch(name)) is not None:
        return reach_player(layout, int(reach.group(1)))
    if name in PLAYERS:
        return PLAYERS[name](layout)
    if not Path(name).suffix:  # no file's name either: said before the network library loads (seconds)
        raise _unknown(name, layout)
    from robo_players.neural.build import is_weights_file, load_player  # the network library, only for a file
    from robo_players.neural.state_values import load_values_player
    from robo_players.neural.value_nets import is_values_file

    if is_values_file(name):
        return load_values_player(name, layout)
    if is_weights_file(name):
        return load_player(name, layout)
    raise _unknown(name, layout)


def check_name(name: str, layout: Layout) -> None:
    """The error ``make_player(name, layout)`` raises for a name it does not know, or for a table the
    named player refuses, found without building anything (a file is checked as it is read)."""
    ahead = split_name(name)
    if ahead is not None:
        check_name(ahead[0], layout)
    elif name in PLAYERS:
        TABLE_CHECKS.get(name, lambda layout: None)(layout)
    elif not Path(name).suffix and REACH.fullmatch(name) is None:
        raise _unknown(name, layout)


def _unknown(name: str, layout: Layout) -> YambError:
    return YambError(f"unknown player {name!r}; choose from {', '.join(players_for(layout))} or a weights file "
                     f"(a search player or weights file followed by {SUFFIX} or {SUFFIX}3: with look-ahead)")
