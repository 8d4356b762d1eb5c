"""Who sits at a table: the one place a seat's bot name becomes a player, for the terminal and the web.

A bot is a name of the player registry (``best``, ``expectimax``, ``greedy``,
...), a weights file (``yamb play --bot``), or ``run:NAME``, the best player
of an evolution run that the web server lists under ``--runs`` (the server
resolves the name itself, so a client never names a file). ``Bots`` builds
each player once per table and keeps it (a search player's tables take a
while to build); the ``Player`` protocol keeps any per-game state by batch,
so one player serves many games.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from expected_scores.distributions import tables_path
from robo_players.base import Player
from robo_players.registry import PLAYERS, make_player, players_for
from robo_players.search.lookahead import split_name
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.table import Table

# The strongest bot of each shipped table, fast enough to play a person (a few ms a decision, tens at most):
# docs/lab/results.md measures them. Elsewhere the first of PREFERRED_BOTS that the table takes.
STRONGEST = {"yamb-5d-down-up-free-announce": "best+lookahead", "jamb6-6d-down-free-up-announce": "best+lookahead",
             "yatzy-5d-free": "best-values", "yahtzee-free-5d-free": "best-values"}
# The strongest bot playing to win of a shipped table, offered second at its tables of two or more (the same
# results page measures it against ``best``).
STRONGEST_TO_WIN = {"yamb-5d-down-up-free-announce": "best-win+lookahead",
                    "jamb6-6d-down-free-up-announce": "best-win+lookahead"}
PREFERRED_BOTS = ("best", "expectimax", "smart", "greedy", "random")
RUN_BOT_PREFIX = "run:"
TABLE_BOTS = ("optimal-win",)  # they play from the score tables: offered at tables of two or more where these are built
MAX_PLAYERS_KEPT = 32


def default_bot(layout: Layout) -> str:
    """Name of the strongest bot that plays ``layout``'s table."""
    strongest = STRONGEST.get(Table.of(layout).solo.stem)
    if strongest is not None:
        return strongest
    names = players_for(layout)
    return next(name for name in PREFERRED_BOTS if name in names)


def offered(name: str, layout: Layout) -> bool:
    """Whether a seat list offers ``name`` (registered for ``layout``'s table): a bot of ``TABLE_BOTS`` only at
    a table of two or more players whose score tables are built (building them takes most of an hour)."""
    return name not in TABLE_BOTS or (layout.players > 1 and tables_path(layout.rules).exists())


def bot_names(layout: Layout) -> list[str]:
    """The bots that play ``layout``'s table: the default bot first, at a table of two or more the
    strongest bot playing to win (where one is named), then the registered names offered."""
    names = [default_bot(layout)]
    to_win = STRONGEST_TO_WIN.get(Table.of(layout).solo.stem)
    if to_win is not None and layout.players > 1:
        names.append(to_win)
    return names + [name for name in players_for(layout) if name not in names and offered(name, layout)]


def load_bot(spec: str, layout: Layout) -> Player:
    """The bot named ``spec`` in the registry, or stored in the weights file ``spec``, for ``layout``."""
    return make_player(spec, layout)


class Bots:
    """Checks seats' bot names and builds (and keeps) their players.

    ``run_file(name)`` is the weights file of the listed run ``name``'s best
    player, or None when there is no such finished run. Safe to share between
    threads: a player is built once (by the first thread to ask), while the
    players already built are handed out to the others meanwhile.
    """

    def __init__(self, run_file: Callable[[str], Path | None]) -> None:
        self.run_file = run_file
        self._players: OrderedDict[tuple, Player] = OrderedDict()
        self._lock = threading.Lock()  # over ``_players`` and ``_building``
        self._building: dict[tuple, threading.Lock] = {}

    def _file(self, bot: str, layout: Layout) -> Path | None:
        """The weights file of a ``run:NAME`` bot, or None for a registered name; YambError otherwise
        (naming the bots ``layout``'s table takes)."""
        if bot in PLAYERS or (split_name(bot) is not None and split_name(bot)[0] in PLAYERS):
            return None
        if bot.startswith(RUN_BOT_PREFIX):
            path = self.run_file(bot.removeprefix(RUN_BOT_PREFIX))
            if path is not None:
                return path
            raise YambError(f"no finished run {bot.removeprefix(RUN_BOT_PREFIX)!r} under the server's runs")
        raise YambError(f"unknown bot {bot!r}; choose from {', '.join(bot_names(layout))} or run:NAME of a listed run")

    def player(self, bot: str, layout: Layout) -> Player:
        """The player of ``bot`` for ``layout``'s table, built on first use."""
        path = self._file(bot, layout)
        key = (bot, None if path is None else path.stat().st_mtime_ns, Table.of(layout))
        with self._lock:
            if key in self._players:
                self._players.move_to_end(key)
                return self._players[key]
            building = self._building.setdefault(key, threading.Lock())
        with building:
            with self._lock:
                if key in self._players:  # another thread built it meanwhile
                    return self._players[key]
            try:
                player = load_bot(bot if path is None else str(path), layout)
            except YambError as error:
                if path is None:
                    raise
                raise YambError(f"{bot}: {str(error).replace(str(path), path.name)}") from None  # not the server's path
            finally:
                with self._lock:
                    self._building.pop(key, None)
            with self._lock:
                self._players[key] = player
                if len(self._players) > MAX_PLAYERS_KEPT:
                    self._players.popitem(last=False)
            return player
