"""Saved games of ``yamb play``: JSON files, written atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from yamb.atomic import WriteError, write_atomically
from yamb.errors import YambError

FORMAT = "yamb-play"
VERSION = 1


class SaveFileError(YambError):
    """A saved game that cannot be read or written."""


def write_save(path: str | Path, game: dict[str, Any], seats: list[dict[str, Any]]) -> None:
    """Write a game snapshot and its seats to ``path``, atomically, in an existing directory."""
    path = Path(path)
    data = {"format": FORMAT, "version": VERSION, "game": game, "seats": seats}
    if not path.parent.is_dir():
        raise SaveFileError(f"cannot save the game to {path}: {path.parent} is not a directory")
    try:
        write_atomically(path, lambda tmp: tmp.write_text(json.dumps(data, indent=1)))
    except WriteError as error:
        raise SaveFileError(f"cannot save the game to {path}: {error.reason}") from None


def read_save(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The game snapshot and seats saved in ``path``."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as error:
        raise SaveFileError(f"cannot read {path}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise SaveFileError(f"{path} is not a saved game (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveFileError(f"{path} is not a saved game of yamb play")
    if data.get("version") != VERSION:
        raise SaveFileError(f"{path} has save format version {data.get('version')}, not {VERSION}")
    game, seats = data.get("game"), data.get("seats")
    valid_seats = isinstance(seats, list) and all(
        isinstance(seat, dict) and set(seat) == {"name", "bot"} and isinstance(seat["name"], str)
        and (seat["bot"] is None or isinstance(seat["bot"], str))
        for seat in seats
    )
    if not isinstance(game, dict) or not valid_seats or len(seats) != game.get("players"):
        raise SaveFileError(f"{path} is damaged: its game or its seats are not as saved")
    return game, seats
