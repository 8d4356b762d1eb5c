"""JSON, TOML and ``.npz`` archives from files anyone may have written (saves, settings, sidecars, weights,
metadata): every way the file can fail to read is one ``ParseError`` line, never a traceback.

Python's readers raise more than their decode errors: ``RecursionError`` for nesting deeper than
the interpreter's recursion limit, a bare ``ValueError`` for an integer over its digit limit
(``sys.get_int_max_str_digits``), ``UnicodeDecodeError`` for bytes that are not UTF-8. Nesting
that the reader survives may still break code that walks the value, so a value nested deeper than
``MAX_DEPTH`` is refused too: no file of this project nests half as deep. A damaged archive (cut
short, a flipped bit) fails in zip's and zlib's own errors, or as ``EOFError``.
"""

from __future__ import annotations

import json
import sys
import tomllib
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from yamb.errors import YambError

MAX_DEPTH = 64  # lists and objects nest this deep at most


class ParseError(YambError):
    """Text that is not valid JSON or TOML, or that Python's reader cannot hold; its message is the
    reason in a few words that follow "is" ("not JSON (...)", "not readable: nested over 64 levels deep")."""


class DamagedError(ParseError):
    """A file cut short or with a flipped bit: an archive whose zip or zlib checks fail."""


def parse_json(data: str | bytes, **hooks: Any) -> Any:
    """The value of the JSON ``data`` (``hooks``: ``json.loads``'s ``parse_*`` arguments), or a ``ParseError``."""
    return _checked(_parse(lambda: json.loads(data, **hooks), json.JSONDecodeError, "JSON"))


def parse_toml(data: str | bytes) -> dict[str, Any]:
    """The table of the TOML ``data`` (bytes must be UTF-8), or a ``ParseError``."""
    return _checked(_parse(lambda: tomllib.loads(data.decode() if isinstance(data, bytes) else data),
                           tomllib.TOMLDecodeError, "TOML"))


def _parse(read: Callable[[], Any], decode_error: type[ValueError], kind: str) -> Any:
    """``read()``, its failures on bad text as a ``ParseError``."""
    try:
        return read()
    except (RecursionError, ValueError) as error:
        reason = unreadable(error, decode_error, kind)
        if reason is None:
            raise
        raise ParseError(reason) from None


def unreadable(error: BaseException, decode_error: type[ValueError] = json.JSONDecodeError,
               kind: str = "JSON") -> str | None:
    """Why a reader of ``kind`` text (whose decode errors are ``decode_error``) failed with ``error``, in a few
    words; None for an error that is not the text's (a hook's own). For readers called elsewhere (a library's)."""
    if isinstance(error, RecursionError):
        return f"not readable: nested over {MAX_DEPTH} levels deep"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text (byte {error.start})"
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at line {error.lineno}, column {error.colno})"
    if isinstance(error, decode_error):
        return f"not {kind} ({error})"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        return f"not readable: an integer of over {sys.get_int_max_str_digits():,} digits"
    return None


def _checked(value: Any) -> Any:
    """``value``, unless its lists and objects nest deeper than ``MAX_DEPTH`` (walked without recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParseError(f"not readable: nested over {MAX_DEPTH} levels deep")
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return value


def read_npz(path: str | Path) -> dict[str, np.ndarray]:
    """Every array of the ``.npz`` archive ``path``, read whole (so each member's CRC-32 is checked),
    no pickles; a ``ParseError`` for a damaged archive or another kind of file (an ``OSError`` is raised)."""
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ParseError("not an .npz archive (one .npy array)")
        with archive:
            return {name: archive[name] for name in archive.files}
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise DamagedError(f"damaged ({str(error) or 'cut short'})") from None
    except ParseError:
        raise
    except ValueError as error:  # no archive's signature (numpy takes it for pickled data), a header it does not read
        detail = "" if "pickle" in str(error) else f" ({str(error).split('. ')[0]})"
        raise ParseError(f"not an .npz archive{detail}") from None
