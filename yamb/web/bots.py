"""The bots a game may seat: a name of the player registry, or the best player of a listed run.

A seat's bot is a string the server checks against what it knows: a
registered player name (``best``, ``expectimax``, ``greedy``, ...) or
``run:NAME`` for a run listed under ``--runs`` that has its ``best.pt``. A
client never names a file. Players are built once per table and kept (a
search player's tables take a while to build); the ``Player`` protocol keeps
any per-game state by batch, so one player serves many games.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from robo_players.base import Player
from robo_players.neural.files import load_weights
from robo_players.registry import PLAYERS, make_player
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.terminal.bots import default_bot
from yamb.web.runs import RUN_BOT_PREFIX, RunList

MAX_PLAYERS_KEPT = 32


def table_key(layout: Layout) -> tuple:
    r = layout.rules
    return r.name, r.n_dice, r.joker, tuple(layout.columns), layout.players


class Bots:
    """Checks bot names and builds (and keeps) their players."""

    def __init__(self, runs: RunList) -> None:
        self.runs = runs
        self._players: OrderedDict[tuple, Player] = OrderedDict()

    @staticmethod
    def names() -> list[str]:
        """The registered player names, the default bot first."""
        first = default_bot()
        return [first] + [name for name in PLAYERS if name != first]

    def _file(self, bot: str) -> Path | None:
        """The weights file of a ``run:NAME`` bot, or None for a registered name; YambError otherwise."""
        if bot in PLAYERS:
            return None
        if bot.startswith(RUN_BOT_PREFIX):
            path = self.runs.best_file(bot.removeprefix(RUN_BOT_PREFIX))
            if path is not None:
                return path
            raise YambError(f"no finished run {bot.removeprefix(RUN_BOT_PREFIX)!r} under the server's runs")
        raise YambError(f"unknown bot {bot!r}; choose from {', '.join(self.names())} or run:NAME of a listed run")

    def run_table(self, name: str) -> dict | None:
        """The table (preset, dice, joker, columns) a listed run's best player was evolved for."""
        path = self.runs.best_file(name)
        if path is None:
            return None
        spec = load_weights(path).spec
        return {"preset": spec.preset, "dice": spec.dice, "joker": spec.joker, "columns": list(spec.columns)}

    def player(self, bot: str, layout: Layout) -> Player:
        """The player of ``bot`` for ``layout``'s table, built on first use."""
        path = self._file(bot)
        key = (bot, None if path is None else path.stat().st_mtime_ns, table_key(layout))
        if key in self._players:
            self._players.move_to_end(key)
            return self._players[key]
        player = make_player(bot if path is None else str(path), layout)
        self._players[key] = player
        if len(self._players) > MAX_PLAYERS_KEPT:
            self._players.popitem(last=False)
        return player
