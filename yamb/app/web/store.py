"""Games kept in SQLite: one row per game (its ``Game.to_dict`` snapshot and seats), one row per move.

Every move is one transaction: the game's new snapshot and the move's log
entry are written together or not at all, and the update names the number of
moves it follows, so two writers can never both add move ``n``. The database
runs in WAL mode with ``synchronous=NORMAL``: a committed move survives the
server being killed (``kill -9``); only a power cut can lose the last moves.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    seats TEXT NOT NULL,
    moves INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_open ON games (over, updated);
CREATE TABLE IF NOT EXISTS moves (
    game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (game, n)
);
"""


class StaleGameError(Exception):
    """The game moved on since it was read (another writer added the move first)."""


@dataclass
class StoredGame:
    """A game as stored: its snapshot (``Game.to_dict``), seats and number of moves."""

    id: str
    snapshot: dict[str, Any]
    seats: list[dict[str, Any]]
    moves: int
    over: bool


class GameStore:
    """The games of one database file; safe to share between threads."""

    def __init__(self, path: Path | str) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, statements: list[tuple[str, tuple]], one_row_each: bool = False) -> list[int]:
        """Run ``statements`` in one transaction; their row counts. With ``one_row_each``, a
        statement that changes no row rolls the transaction back (``StaleGameError``)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                counts = []
                for sql, args in statements:
                    counts.append(self._db.execute(sql, args).rowcount)
                    if one_row_each and counts[-1] != 1:
                        raise StaleGameError(sql)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return counts

    def create(self, game_id: str, snapshot: dict, seats: list[dict], over: bool) -> None:
        now = time.time()
        self._write([("INSERT INTO games (id, snapshot, seats, over, created, updated) VALUES (?, ?, ?, ?, ?, ?)",
                      (game_id, json.dumps(snapshot), json.dumps(seats), int(over), now, now))])

    def get(self, game_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute("SELECT snapshot, seats, moves, over FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
        if row is None:
            return None
        return StoredGame(game_id, json.loads(row[0]), json.loads(row[1]), row[2], bool(row[3]))

    def add_move(self, game_id: str, moves_before: int, snapshot: dict, over: bool, entry: dict) -> None:
        """Write the snapshot after move ``moves_before + 1`` and its log entry, in one transaction."""
        try:
            self._write([
                ("UPDATE games SET snapshot = ?, moves = moves + 1, over = ?, updated = ? "
                 "WHERE id = ? AND moves = ?",
                 (json.dumps(snapshot), int(over), time.time(), game_id, moves_before)),
                ("INSERT INTO moves (game, n, entry) VALUES (?, ?, ?)",
                 (game_id, moves_before + 1, json.dumps(entry))),
            ], one_row_each=True)
        except sqlite3.IntegrityError:
            raise StaleGameError(game_id) from None

    def log(self, game_id: str, last: int) -> list[dict]:
        """The last ``last`` log entries of a game, oldest first."""
        with self._lock:
            rows = self._db.execute("SELECT entry FROM moves WHERE game = ? ORDER BY n DESC LIMIT ?",
                                    (game_id, last)).fetchall()
        return [json.loads(entry) for (entry,) in reversed(rows)]

    def count_open(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM games WHERE over = 0").fetchone()[0]

    def drop_idle(self, idle_seconds: float) -> int:
        """Delete unfinished games nobody has moved in for ``idle_seconds``; how many."""
        return self._write([("DELETE FROM games WHERE over = 0 AND updated < ?",
                             (time.time() - idle_seconds,))])[0]
