"""Every way JSON or TOML text fails to read is one ``ParseError`` line, never a RecursionError or a bare ValueError."""

from __future__ import annotations

import pytest

from yamb.errors import YambError
from yamb.parsing import MAX_DEPTH, ParseError, parse_json, parse_toml


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
