"""Saved games carry a SHA-256 of their content: any changed digit is refused in one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yamb.game import Game
from yamb_app.cli import main
from yamb_app.terminal.savefile import SaveFileError, read_save, write_save


def saved_game(path: Path) -> tuple[dict, list[dict]]:
    game = Game("yatzy", players=2, seed=59)
    for _ in range(7):
        game.apply(min(game.legal_actions()))
    seats = [{"name": "You", "bot": None}, {"name": "random", "bot": "random"}]
    write_save(path, game.to_dict(), seats)
    return game.to_dict(), seats


def test_a_save_reads_back_as_written(tmp_path: Path) -> None:
    game, seats = saved_game(tmp_path / "game.json")
    assert read_save(tmp_path / "game.json") == (game, seats)


def test_every_changed_digit_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    game, seats = saved_game(path)
    text = path.read_text()
    changes = [(i, str((int(c) + 1) % 10)) for i, c in enumerate(text) if c.isdigit()]
    assert len(changes) > 40  # the seed, the actions, the dice, the version and the checksum
    for i, digit in changes:
        path.write_text(text[:i] + digit + text[i + 1:])
        with pytest.raises(SaveFileError, match=f"^{path} (is damaged|has save format version)"):
            read_save(path)
    assert main(["play", "--load", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"yamb play: error: {path} is damaged: its content does not match its SHA-256 checksum"
    at = text.index('"version": 2') + len('"version": ')
    path.write_text(text[:at] + "1" + text[at + 1:])  # one bit from 2 to 1: the checksum is still checked
    assert read_save(path) == (game, seats)


def test_a_save_of_version_1_is_read_without_a_checksum(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game, seats = saved_game(path)
    old = json.loads(path.read_text())
    del old["sha256"]
    path.write_text(json.dumps({**old, "version": 1}))
    assert read_save(path) == (game, seats)


UNREADABLE = {  # text Python's JSON reader fails on beyond its decode errors, and what the line says
    "deep": ("[" * 100_000 + "]" * 100_000, "nested over 64 levels deep"),
    "nested": ('{"format": "yamb-play", "game": ' + "[" * 100 + "]" * 100 + "}", "nested over 64 levels deep"),
    "long integer": ('{"format": "yamb-play", "version": ' + "1" * 5000 + "}", "an integer of over 4,300 digits"),
}


@pytest.mark.parametrize("kind", UNREADABLE)
@pytest.mark.parametrize("command", [["review"], ["play", "--load"], ["play", "--bots", "1", "--humans", "0",
                                                                      "--save"]])
def test_a_save_too_deep_or_too_long_to_read_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         kind: str, command: list[str]) -> None:
    path = tmp_path / "game.json"
    text, reason = UNREADABLE[kind]
    path.write_text(text)
    assert main([*command, str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert err.startswith(f"yamb {command[0]}: error: {path}")
    assert reason in err or "not a saved game of yamb play" in err
    assert path.read_text() == text  # nothing replaced
