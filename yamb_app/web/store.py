"""Games kept in SQLite: one row per game (its ``Game.to_dict`` snapshot and seats), one row per move.

Every move is one transaction: the game's new snapshot and the move's log
entry are written together or not at all, and the update names the number of
moves it follows, so two writers can never both add move ``n``. The database
runs in WAL mode with ``synchronous=NORMAL``: a committed move survives the
server being killed (``kill -9``); only a power cut can lose the last moves.

Every row carries the SHA-256 of what it holds (``checksum``): a row that no
longer matches it is refused (``DamagedGameError``), never served changed.
A database that cannot be written (a full disk, an I/O error) or read (a
damaged file) raises ``StoreError`` with the HTTP status that says so.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APPLICATION_ID = 0x79616D62  # "yamb": PRAGMA application_id of a games database
VERSION = 3  # PRAGMA user_version: 2 = rows carry checksums, 3 = games name the client that made them
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    seats TEXT NOT NULL,
    moves INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    checksum TEXT,
    client TEXT
);
CREATE INDEX IF NOT EXISTS games_open ON games (over, updated);
CREATE INDEX IF NOT EXISTS games_client ON games (client, over);
CREATE TABLE IF NOT EXISTS moves (
    game TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    entry TEXT NOT NULL,
    checksum TEXT,
    PRIMARY KEY (game, n)
);
"""
TABLES = {"games", "moves"}


class StaleGameError(Exception):
    """The game moved on since it was read (another writer added the move first)."""


class StoreError(Exception):
    """The database cannot be read or written; ``status`` is the HTTP answer that says why."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class DamagedGameError(StoreError):
    """A game's stored rows do not match their checksums (or are missing): it cannot be shown or played."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 500)


class NotAGamesDatabase(Exception):
    """The file is not a games database (empty, or another program's)."""


def store_error(error: sqlite3.Error) -> StoreError:
    """The ``StoreError`` of an SQLite failure: 507 for a full disk, 500 for a damaged file, 503 else."""
    code = getattr(error, "sqlite_errorcode", None)
    if str(error).startswith("Could not decode to UTF-8"):  # a text column's bytes changed
        return StoreError("the game store is damaged (a stored text is not UTF-8)", 500)
    if code == sqlite3.SQLITE_FULL:
        return StoreError(f"the game store is full ({error}): free some disk space", 507)
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return StoreError(f"the game store is damaged ({error})", 500)
    return StoreError(f"the game store cannot be used now ({error})", 503)


def checksum(*fields: object) -> str:
    """The SHA-256 (hex) of a row's fields (ids, numbers, JSON texts: none holds the separator), in order."""
    return hashlib.sha256("\x1f".join(map(str, fields)).encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class StoredGame:
    """A game as stored: its snapshot (``Game.to_dict``), seats and number of moves."""

    id: str
    snapshot: dict[str, Any]
    seats: list[dict[str, Any]]
    moves: int
    over: bool


class GameStore:
    """The games of one database file; safe to share between threads.

    A file that does not exist is made; an empty file (0 bytes: a lost or
    truncated database) or another program's database is refused
    (``NotAGamesDatabase``), so games are never silently started afresh.
    ``problems`` lists what SQLite's integrity check found at opening, one line
    each (empty when the file is whole)."""

    def __init__(self, path: Path | str) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size == 0:
            raise NotAGamesDatabase(f"{path} is an empty file (0 bytes), not a games database; "
                                    "move it away (or delete it) to start a new one")
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _open(self) -> None:
        db = self._db
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID and not tables <= TABLES:
            raise NotAGamesDatabase(f"{self.path} is not a yamb games database "
                                    f"(it holds the tables {', '.join(sorted(tables))})")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        self.problems = [" ".join(row.replace("*** in database main ***", " ").split())  # one line each
                         for (row,) in db.execute("PRAGMA integrity_check(5)")] if tables else []
        if self.problems == ["ok"]:
            self.problems = []
        if db.execute("PRAGMA user_version").fetchone()[0] < VERSION:
            self._upgrade(tables)

    def _upgrade(self, tables: set[str]) -> None:
        """Make the tables (a new file), or add checksums to the rows of a database from before them and
        the client column (unknown, NULL, for the games made before it)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for table in tables:
                if "checksum" not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN checksum TEXT")
            if "games" in tables and "client" not in {row[1] for row in db.execute("PRAGMA table_info(games)")}:
                db.execute("ALTER TABLE games ADD COLUMN client TEXT")
            for statement in SCHEMA.split(";"):
                db.execute(statement)
            for row in db.execute("SELECT id, snapshot, seats, moves, over FROM games").fetchall():
                db.execute("UPDATE games SET checksum = ? WHERE id = ?", (checksum(*row), row[0]))
            for row in db.execute("SELECT game, n, entry FROM moves").fetchall():
                db.execute("UPDATE moves SET checksum = ? WHERE game = ? AND n = ?", (checksum(*row), *row[:2]))
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as error:
                raise store_error(error) from None

    def _write(self, statements: list[tuple[str, tuple]], one_row_each: bool = False) -> list[int]:
        """Run ``statements`` in one transaction; their row counts. With ``one_row_each``, a
        statement that changes no row rolls the transaction back (``StaleGameError``)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    counts = []
                    for sql, args in statements:
                        counts.append(self._db.execute(sql, args).rowcount)
                        if one_row_each and counts[-1] != 1:
                            raise StaleGameError(sql)
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as error:
                raise store_error(error) from None
            return counts

    def create(self, game_id: str, snapshot: dict, seats: list[dict], over: bool, client: str | None = None) -> None:
        """Store a new game, made by ``client`` (``client_key``; None: unknown)."""
        now = time.time()
        snapshot_text, seats_text = json.dumps(snapshot), json.dumps(seats)
        self._write([(("INSERT INTO games (id, snapshot, seats, over, created, updated, checksum, client) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                      (game_id, snapshot_text, seats_text, int(over), now, now,
                       checksum(game_id, snapshot_text, seats_text, 0, int(over)), client))])

    def get(self, game_id: str) -> StoredGame | None:
        rows = self._read("SELECT id, snapshot, seats, moves, over, checksum FROM games WHERE id = ?", (game_id,))
        if not rows:
            return None
        *fields, stored = rows[0]
        if fields[0] != game_id or checksum(*fields) != stored:
            raise DamagedGameError(f"game {game_id} is damaged in the database (its row does not match its "
                                   "checksum); it cannot be shown or played")
        try:
            return StoredGame(game_id, json.loads(fields[1]), json.loads(fields[2]), fields[3], bool(fields[4]))
        except (ValueError, TypeError):
            raise DamagedGameError(f"game {game_id} is damaged in the database (its row is not JSON)") from None

    def moves(self, game_id: str) -> int | None:
        """How many moves the stored game has (None when there is no such game): another server on
        the same database may have moved it on since this one read it."""
        rows = self._read("SELECT moves FROM games WHERE id = ?", (game_id,))
        return rows[0][0] if rows else None

    def add_move(self, game_id: str, moves_before: int, snapshot: dict, over: bool, entry: dict,
                 seats: list[dict]) -> None:
        """Write the snapshot after move ``moves_before + 1`` and its log entry, in one transaction."""
        snapshot_text, entry_text = json.dumps(snapshot), json.dumps(entry)
        moves = moves_before + 1
        try:
            self._write([
                (("UPDATE games SET snapshot = ?, moves = ?, over = ?, updated = ?, checksum = ? "
                  "WHERE id = ? AND moves = ?"),
                 (snapshot_text, moves, int(over), time.time(),
                  checksum(game_id, snapshot_text, json.dumps(seats), moves, int(over)), game_id, moves_before)),
                ("INSERT INTO moves (game, n, entry, checksum) VALUES (?, ?, ?, ?)",
                 (game_id, moves, entry_text, checksum(game_id, moves, entry_text))),
            ], one_row_each=True)
        except sqlite3.IntegrityError:
            raise StaleGameError(game_id) from None

    def log(self, game_id: str, moves: int, last: int) -> list[dict]:
        """The last ``last`` log entries of a game of ``moves`` moves, oldest first (moves another server
        added since are not its); ``DamagedGameError`` when one does not match its checksum or one is missing."""
        rows = self._read("SELECT game, n, entry, checksum FROM moves WHERE game = ? AND n <= ? ORDER BY n DESC "
                          "LIMIT ?", (game_id, moves, last))
        rows.reverse()
        if [row[1] for row in rows] != list(range(max(0, moves - last) + 1, moves + 1)):
            raise DamagedGameError(f"game {game_id} is damaged in the database (moves of its log are missing)")
        entries = []
        for game, n, entry, stored in rows:
            if game != game_id or checksum(game, n, entry) != stored:
                raise DamagedGameError(f"game {game_id} is damaged in the database (move {n} of its log does "
                                       "not match its checksum); it cannot be shown or played")
            entries.append(json.loads(entry))
        return entries

    def count_open(self, client: str | None = None) -> int:
        """How many games are unfinished (of those ``client`` made, when given)."""
        if client is None:
            return self._read("SELECT COUNT(*) FROM games WHERE over = 0", ())[0][0]
        return self._read("SELECT COUNT(*) FROM games WHERE client = ? AND over = 0", (client,))[0][0]

    def drop_idle(self, idle_seconds: float, unplayed_seconds: float | None = None) -> int:
        """Delete unfinished games nobody has moved in for ``idle_seconds``, and games without a move
        made over ``unplayed_seconds`` ago; how many."""
        now = time.time()
        statements = [("DELETE FROM games WHERE over = 0 AND updated < ?", (now - idle_seconds,))]
        if unplayed_seconds is not None:
            statements.append(("DELETE FROM games WHERE over = 0 AND moves = 0 AND updated < ?",
                               (now - unplayed_seconds,)))
        return sum(self._write(statements))
