"""Every way JSON or TOML text fails to read is one ``ParseError`` line, never a RecursionError or a bare ValueError."""

from __future__ import annotations

import numpy as np
import pytest

from yamb.errors import YambError
from yamb.parsing import MAX_DEPTH, DamagedError, ParseError, parse_json, parse_toml, read_npz


def test_good_text_reads_as_python_reads_it() -> None:
    assert parse_json('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    assert parse_json(b"[[1]]") == [[1]]
    assert parse_json("7") == 7
    assert parse_toml('a = [[1]]\nb = "x"') == {"a": [[1]], "b": "x"}
    assert parse_toml(b"a = 1") == {"a": 1}
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(nested) is not None
    assert parse_toml(f"a = {nested[1:-1]}") is not None  # the table is the first level


@pytest.mark.parametrize(("text", "reason"), [
    ("[" * 100_000 + "]" * 100_000, "not readable: nested over 64 levels deep"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "not readable: nested over 64 levels deep"),
    ('{"a": ' + "1" * 5000 + "}", "not readable: an integer of over 4,300 digits"),
    (b'"\xff"', "not UTF-8 text (byte 1)"),
    ("{'a': 1}", "not JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
])
def test_unreadable_json_is_one_parse_error(text: str | bytes, reason: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_json(text)
    assert str(caught.value) == reason
    assert isinstance(caught.value, YambError)


@pytest.mark.parametrize(("text", "reason"), [
    ("a = " + "[" * 100_000 + "]" * 100_000, "nested over 64 levels deep"),
    ("a = " + "{b = " * 600 + "1" + "}" * 600, "nested over 64 levels deep"),
    ("a = " + "1" * 5000, "an integer of over 4,300 digits"),
    (b'a = "\xff"', "not UTF-8 text"),
    ("a = ", "not TOML"),
])
def test_unreadable_toml_is_one_parse_error(text: str | bytes, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse_toml(text)


def test_a_hook_s_own_error_is_not_taken_for_bad_text() -> None:
    def refuse(text: str) -> int:
        raise KeyError(text)

    with pytest.raises(KeyError):
        parse_json("[1]", parse_int=refuse)


def test_a_damaged_npz_is_a_damaged_error(tmp_path) -> None:
    good = tmp_path / "a.npz"
    with good.open("wb") as file:
        np.savez_compressed(file, x=np.arange(10_000.0), meta=np.array("{}"))
    assert set(read_npz(good)) == {"x", "meta"}
    data = good.read_bytes()
    cut, flipped, one, text = (tmp_path / name for name in ("cut.npz", "flipped.npz", "one.npz", "text.npz"))
    cut.write_bytes(data[:len(data) // 2])
    flip = bytearray(data)
    flip[len(data) // 3] ^= 0x10
    flipped.write_bytes(bytes(flip))
    with one.open("wb") as file:
        np.save(file, np.zeros(3))
    text.write_text("someone's notes")
    for path in (cut, flipped):
        with pytest.raises(DamagedError, match=r"^damaged \("):
            read_npz(path)
    for path in (one, text):
        with pytest.raises(ParseError, match=r"^not an \.npz archive"):
            read_npz(path)
