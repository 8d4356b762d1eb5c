"""The rounds a fit has finished, kept beside its output until it is written: run the same command
again after a stop or a crash and it goes on after the last round kept, as if never stopped.

``FILE.partial.npz`` (for ``--out FILE``) holds the command's options, the rounds done and the
network of the last one, with a checksum; it is written atomically after each round and removed
once ``FILE`` is. A later run with other options refuses it, naming one that differs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from yamb.errors import YambError
from yamb.parsing import ParseError, parse_json, read_npz

if TYPE_CHECKING:
    import numpy as np

META = "__partial__"
UNREADABLE = (OSError, ParseError, KeyError)  # a file cut short or damaged
KIND = "yamb-partial-rounds"


class Kept(NamedTuple):
    """Rounds a fit finished: how many, and the arrays of the last one's network."""

    rounds: int
    arrays: dict[str, np.ndarray]


def partial_path(out: Path) -> Path:
    """Where the rounds of a fit writing ``out`` are kept."""
    return out.with_name(out.name + ".partial.npz")


def options_of(parsed: Mapping[str, object]) -> dict:
    """The options that decide a fit's rounds, of a command's parsed options (``vars(args)``): every
    one but the output and the check's games (paths as text)."""
    plain = (str, int, float, bool, type(None))
    options = {}
    for name, value in sorted(parsed.items()):
        if name in ("out", "run", "check_games"):
            continue
        if isinstance(value, Path):
            value = str(value)
        if isinstance(value, tuple | list):
            value = list(value)
        if isinstance(value, plain) or (isinstance(value, list) and all(isinstance(v, plain) for v in value)):
            options[name] = value
    return options


def _digest(meta: dict, arrays: dict[str, np.ndarray]) -> str:
    from robo_players.neural.files import weights_sha256

    return weights_sha256(meta, arrays)


def keep_round(out: Path, options: dict, rounds: int, arrays: dict[str, np.ndarray]) -> None:
    """Keep ``rounds`` finished rounds of the fit of ``options`` (``options_of``), the last one's
    network ``arrays``."""
    import numpy as np

    from yamb.atomic import write_atomically

    meta = {"file": KIND, "options": options, "rounds": rounds}
    meta["sha256"] = _digest(meta, arrays)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **{META: np.array(json.dumps(meta, sort_keys=True))}, **arrays)

    write_atomically(partial_path(out), write)


def _read(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The metadata and arrays of a file of kept rounds (empty if it cannot be read)."""
    try:
        arrays = read_npz(path)
        meta = parse_json(str(arrays.pop(META)))
    except UNREADABLE:
        return {}, {}
    return (meta, arrays) if isinstance(meta, dict) else ({}, {})


def kept_rounds(out: Path, options: dict) -> Kept | None:
    """The rounds kept for the fit of ``options`` (``options_of``), writing ``out``; None if none are
    kept, and a ``YambError`` if the file kept is damaged or another fit's."""
    path = partial_path(out)
    if not path.exists():
        return None
    meta, arrays = _read(path)
    stored = meta.pop("sha256", None)
    if meta.get("file") != KIND or stored != _digest(meta, arrays):
        raise YambError(f"{path}: the rounds kept there are damaged; delete it to start the fit afresh")
    ours, theirs = options, meta["options"]
    for name in sorted(set(ours) | set(theirs)):
        if ours.get(name) != theirs.get(name):
            flag = "--" + name.replace("_", "-")
            raise YambError(f"{path} holds the rounds of a fit with {flag} {_text(theirs.get(name))}, not "
                            f"{_text(ours.get(name))}: give the same options to go on, or delete it to start afresh")
    return Kept(int(meta["rounds"]), arrays)


def _text(value: object) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def drop_rounds(out: Path) -> None:
    """Forget the rounds kept for ``out`` (it is written)."""
    partial_path(out).unlink(missing_ok=True)


def rounds_kept(out: Path) -> int:
    """How many rounds are kept for ``out`` (0 if none, or if the file cannot be read)."""
    return int(_read(partial_path(out))[0].get("rounds", 0))
