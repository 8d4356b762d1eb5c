"""Saved games of ``yamb play``: JSON files, written atomically, behind a checksum.

A save holds the format's name and version, the game snapshot, the seats and
``sha256``, a SHA-256 of the snapshot and the seats (``content_sha256``): a
save whose content does not match it (one flipped digit) is refused with one
line naming the file. Saves of version 1, written before the checksum, are read
without it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from yamb.atomic import WriteError, write_atomically
from yamb.errors import YambError
from yamb.parsing import parse_json

FORMAT = "yamb-play"
VERSION = 2  # 2: sha256
READABLE_VERSIONS = (1, 2)  # version 1: no checksum
MAX_SAVE_BYTES = 16 * 2**20  # a bigger file is no save (a whole game is some kilobytes)


class SaveFileError(YambError):
    """A saved game that cannot be read or written."""


def write_save(path: str | Path, game: dict[str, Any], seats: list[dict[str, Any]]) -> None:
    """Write a game snapshot and its seats to ``path``, atomically, in an existing directory."""
    path = Path(path)
    data = {"format": FORMAT, "version": VERSION, "game": game, "seats": seats,
            "sha256": content_sha256(game, seats)}
    if not path.parent.is_dir():
        raise SaveFileError(f"cannot save the game to {path}: {path.parent} is not a directory")
    try:
        write_atomically(path, lambda tmp: tmp.write_text(json.dumps(data, indent=1)))
    except WriteError as error:
        raise SaveFileError(f"cannot save the game to {path}: {error.reason}") from None


def check_replaceable(path: str | Path) -> None:
    """Refuse ``path`` for ``--save`` when it holds a file that is not a saved game (someone's notes):
    the first save would replace it. A new or empty file, or a save (of any game), may be replaced."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        data = parse_json(path.read_bytes()) if path.stat().st_size <= MAX_SAVE_BYTES else None
    except YambError:  # not JSON, not UTF-8, too deep or too long to read
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveFileError(f"{path} holds a file that is not a saved game of yamb play, and --save would "
                            "replace it; name a new file or a save")


def content_sha256(game: object, seats: object) -> str:
    """SHA-256 of a save's game snapshot and seats, as canonical JSON."""
    text = json.dumps({"game": game, "seats": seats}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def read_save(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The game snapshot and seats saved in ``path``."""
    try:
        data = parse_json(Path(path).read_bytes())
    except OSError as error:
        raise SaveFileError(f"cannot read {path}: {error.strerror}") from None
    except YambError as error:
        raise SaveFileError(f"{path} is not a saved game: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SaveFileError(f"{path} is not a saved game of yamb play")
    if data.get("version") not in READABLE_VERSIONS:
        raise SaveFileError(f"{path} has save format version {data.get('version')}, not "
                            f"{' or '.join(map(str, READABLE_VERSIONS))}")
    game, seats = data.get("game"), data.get("seats")
    if ("sha256" in data or data["version"] != 1) and data.get("sha256") != content_sha256(game, seats):
        raise SaveFileError(f"{path} is damaged: its content does not match its SHA-256 checksum")
    valid_seats = isinstance(seats, list) and all(
        isinstance(seat, dict) and set(seat) == {"name", "bot"} and isinstance(seat["name"], str)
        and (seat["bot"] is None or isinstance(seat["bot"], str))
        for seat in seats
    )
    if not isinstance(game, dict) or not valid_seats or len(seats) != game.get("players"):
        raise SaveFileError(f"{path} is damaged: its game or its seats are not as saved")
    return game, seats
