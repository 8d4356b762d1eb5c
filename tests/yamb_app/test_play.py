"""``yamb play``: whole games driven over a pseudo-terminal, saves, and the input parsers."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pexpect
import pytest
from hypothesis import given
from hypothesis import strategies as st

import yamb
from robo_players.base import play
from robo_players.random_player import RandomPlayer
from tests.programs import spawn_play
from yamb.engine import GameBatch
from yamb.game import Game
from yamb.layout import layout
from yamb_app.cli import main
from yamb_app.moves import decode, fill_scores
from yamb_app.sheet import computed_rows, sheet_rows
from yamb_app.terminal.hand import arrange, positions_of
from yamb_app.terminal.prompts import InputError, match_name, parse_cell, parse_keep
from yamb_app.terminal.savefile import SaveFileError, read_save

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ["announce> ", "keep> ", "fill> ", "game over"]
DICE_LINE = re.compile(r"dice((?:\s+\[\d\])+)")
STATUS_LINE = re.compile(r"to move · roll (\d) of (\d)")


# ----------------------------------------------------------------------------- helpers
def spawn(*args: str) -> pexpect.spawn:
    """``yamb play`` without colours, wide enough for two sheets (``programs.spawn_play``)."""
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "160", "LINES": "60"}
    return spawn_play(*args, env=env, lines=60, columns=160)


def last_dice(text: str) -> tuple[int, ...]:
    """The dice of the last dice line on screen."""
    return tuple(int(d) for d in re.findall(r"\d", DICE_LINE.findall(text)[-1]))


def last_roll(text: str) -> int:
    return int(STATUS_LINE.findall(text)[-1][0])


def expect_rejected(child: pexpect.spawn, reply: str, reason: str, prompt: str) -> None:
    """Send a bad answer; the program must say why and ask again."""
    child.sendline(reply)
    child.expect_exact(reason)
    child.expect_exact(prompt)


def exit_code(child: pexpect.spawn) -> int | None:
    """The program's exit code, after the end of its output: waited for as long as its exit takes
    (``close`` alone gives it 0.1 s, then kills it: on a loaded machine the code was then None)."""
    code = child.wait()
    child.close()
    return code


def final_scores(child: pexpect.spawn, names: list[str]) -> dict[str, int]:
    child.expect(pexpect.EOF)
    text = child.before
    return {name: int(re.findall(rf"^{re.escape(name)}: (-?\d+)\s*$", text, re.M)[-1]) for name in names}


def finished(child: pexpect.spawn) -> int | None:
    child.expect(pexpect.EOF)
    return exit_code(child)


def test_the_exit_code_is_waited_for_after_the_output_ends() -> None:
    """A program whose output ends some time before it exits (as a loaded machine makes ``yamb play``'s
    exit) is not killed for it: its own exit code is the one seen."""
    slow_exit = "import os, time; os.close(0); os.close(1); os.close(2); time.sleep(1); os._exit(3)"
    child = pexpect.spawn(sys.executable, ["-c", slow_exit], timeout=900)
    assert finished(child) == 3


# ----------------------------------------------------------------------------- whole games
@pytest.mark.slow
def test_a_person_plays_yatzy_against_a_bot_with_bad_input_on_the_way(tmp_path: Path) -> None:
    rows = list(yamb.rules("yatzy").rows)
    save = tmp_path / "game.json"
    child = spawn("--preset", "yatzy", "--bot", "random", "--seed", "5", "--save", str(save))
    child.expect_exact("keep> ")
    shown = last_dice(child.before)
    # bad input at the keep prompt: each one re-prompts with its reason
    expect_rejected(child, "9", "'9' is not a position from 1 to 5", "keep> ")
    expect_rejected(child, "f 7", "'7' is not a face from 1 to 6", "keep> ")
    expect_rejected(child, "", "type positions to keep", "keep> ")
    expect_rejected(child, "2 2", "a position is given twice", "keep> ")
    missing = next(f for f in range(1, 7) if f not in shown)
    expect_rejected(child, f"f {missing}", f"you have 0 dice showing {missing}, not 1", "keep> ")
    child.sendline("?")
    child.expect_exact("hint: random would")
    child.expect_exact("keep> ")
    child.sendline("fill")
    turn = 0
    filled_by_me: list[str] = []
    while (which := child.expect(PROMPTS)) != 3:
        screen = child.before
        if which == 1 and last_roll(screen) == 1:
            # keep the most common face: by faces on even turns, by positions on odd ones
            shown = last_dice(screen)
            face = Counter(shown).most_common(1)[0][0]
            kept = [i for i, d in enumerate(shown) if d == face]
            if len(kept) == len(shown):
                child.sendline("fill")
                continue
            child.sendline("f " + " ".join([str(face)] * len(kept)) if turn % 2 else
                           " ".join(str(i + 1) for i in kept))
            child.expect(r"You ▸ keeps ([\d ]+), rolls ([\d ]+)\r\n")
            assert child.match.group(1).split() == [str(face)] * len(kept)
            rolled = [int(d) for d in child.match.group(2).split()]
            assert all(rolled[i] == face for i in kept)  # kept dice stay where they were
        elif which == 1:
            child.sendline("fill")
        elif which == 2:
            if turn == 1:
                expect_rejected(child, "xx", "no row 'xx'", "fill> ")
                expect_rejected(child, "t", "'t' could be twos, threes, two_pairs or three_of_a_kind",
                                "fill> ")
                expect_rejected(child, filled_by_me[0], "the cell is already filled", "fill> ")
                expect_rejected(child, "2 1", "there is no column 2", "fill> ")
            row = rows.pop(0)
            # a row by name, by number, or after its column (name or number)
            typed = [row, str(yamb.rules("yatzy").row_index(row) + 1), f"free {row}", f"1 {row}"][turn % 4]
            child.sendline(typed)
            child.expect_exact(f"You ▸ fills free:{row} with ")
            filled_by_me.append(row)
            turn += 1
        else:
            pytest.fail(f"unexpected announce prompt in yatzy: {screen}")
    assert len(rows) == 1  # the last turn has one cell left, filled without asking
    scores = final_scores(child, ["You", "random"])
    assert exit_code(child) == 0
    game = Game.from_dict(json.loads(save.read_text())["game"])  # saved after the last turn
    assert game.is_over()
    assert [scores["You"], scores["random"]] == game.scores()


@pytest.mark.slow
def test_announcing_is_asked_and_required_when_only_announce_cells_are_left() -> None:
    rows = list(yamb.rules("yamb").rows)
    child = spawn("--columns", "announce", "--humans", "1", "--bots", "0", "--seed", "2")
    child.logfile_read = log = io.StringIO()
    child.expect_exact("announce> ")
    expect_rejected(child, "", "only announce cells are left, so a cell must be announced", "announce> ")
    expect_rejected(child, "announce zzz", "no row 'zzz'", "announce> ")
    announced: list[str] = []

    def announce() -> None:
        row = rows.pop()  # bottom up; the row alone names it (the table has one column)
        child.sendline(row if len(rows) % 2 else f"announce {row}")
        child.expect_exact(f"You ▸ announces announce:{row}")
        announced.append(row)

    announce()
    while (which := child.expect(PROMPTS)) != 3:
        if which == 0:
            announce()
        elif which == 1 and len(rows) % 2:
            child.sendline("fill")  # stop rolling: the announced cell is the only one, filled at once
            child.expect_exact("You ▸ one cell can be filled")
        elif which == 1:
            child.sendline("none")  # reroll all, twice; after the last roll it is filled at once
        else:
            pytest.fail("the announced cell is the only one: no fill prompt")
    assert finished(child) == 0
    assert rows == ["ones"]  # announced without asking: no other cell was left
    assert announced == list(reversed(yamb.rules("yamb").rows))[:-1]
    assert "You ▸ must announce; one cell can be announced" in log.getvalue()
    assert re.findall(r"fills announce:(\w+)", log.getvalue()) == announced + ["ones"]


def test_bots_alone_finish_with_the_engine_totals() -> None:
    args = ["--humans", "0", "--bots", "2", "--bot", "random", "--columns", "down,up", "--seed", "11"]
    child = spawn(*args)
    scores = final_scores(child, ["random 1", "random 2"])
    assert exit_code(child) == 0
    batch = GameBatch(layout(yamb.rules("yamb"), ["down", "up"], players=2), 1, seed=11)
    expected = play(batch, [RandomPlayer(), RandomPlayer()])[0]
    assert [scores["random 1"], scores["random 2"]] == expected.tolist()


@pytest.mark.slow
def test_ctrl_c_saves_and_load_resumes_the_same_game(tmp_path: Path) -> None:
    save = tmp_path / "saved.json"
    child = spawn("--columns", "down", "--bot", "random", "--seed", "9", "--save", str(save))
    for _ in range(2):  # two turns each, then a reroll in the third
        child.expect_exact("keep> ")
        child.sendline("fill")
    child.expect_exact("keep> ")
    child.sendline("none")
    child.expect_exact("keep> ")
    dice = Counter(last_dice(child.before))
    child.sendcontrol("c")
    child.expect_exact(f"save the game to {save}? [Y/n] ")
    child.sendline("")
    child.expect_exact(f"saved; resume with: yamb play --load {save}")
    assert finished(child) == 0
    saved = json.loads(save.read_text())
    assert [seat["bot"] for seat in saved["seats"]] == [None, "random"]
    game = Game.from_dict(saved["game"])
    assert (game.turns_played, game.roll_number, Counter(game.dice)) == (4, 2, dice)

    child = spawn("--load", str(save))
    child.expect_exact("You: turn 3 of 13")
    child.expect_exact("keep> ")
    assert Counter(last_dice(child.before)) == dice
    assert "You ▸ fills" not in child.before
    child.sendline("fill")
    while child.expect(PROMPTS) == 1:
        child.sendline("fill")
    scores = final_scores(child, ["You", "random"])
    assert exit_code(child) == 0
    assert [scores["You"], scores["random"]] == Game.from_dict(json.loads(save.read_text())["game"]).scores()


@pytest.mark.slow
def test_ctrl_c_without_saving_exits_130(tmp_path: Path) -> None:
    child = spawn("--preset", "yatzy", "--humans", "1", "--bots", "0", "--seed", "1")
    child.expect_exact("keep> ")
    child.sendcontrol("c")
    child.expect_exact("save the game to file (Enter to quit without saving): ")
    child.sendline(str(tmp_path / "missing-dir" / "x.json"))
    child.expect_exact("cannot save the game to")
    child.expect_exact("save the game to file")
    child.sendline("")
    child.expect_exact("quit without saving")
    assert finished(child) == 130
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_hints_flag_shows_the_bot_advice_at_every_decision() -> None:
    child = spawn("--preset", "yatzy", "--bots", "0", "--hints", "--bot", "random", "--seed", "4")
    child.expect_exact("hint: random would ")
    child.expect_exact("keep> ")
    child.sendline("none")
    child.expect_exact("You ▸ keeps nothing, rolls ")
    child.expect_exact("hint: random would ")
    child.expect_exact("keep> ")
    child.sendcontrol("c")
    child.expect_exact("(Enter to quit without saving)")
    child.sendline("")
    assert finished(child) == 130


# ----------------------------------------------------------------------------- command line errors
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--humans", "0", "--bots", "0"], "someone must play"),
        (["--humans", "-1"], "argument --humans: '-1' is not a whole number from 0 to 64"),
        (["--bot", "nobody", "--humans", "0"], "unknown player 'nobody'"),
        (["--columns", "down,sideways"], "unknown column kind 'sideways'"),
        (["--columns", "counter_announce", "--bots", "0"], "counter_announce columns need at least two players"),
        (["--load", "no-such-file.json"], "argument --load: no such file: no-such-file.json"),
        (["--load", "/dev/zero"], "argument --load: /dev/zero is not a regular file"),
        (["--load", str(ROOT / "pyproject.toml")], "pyproject.toml is not a saved game: not JSON"),
    ],
)
def test_bad_command_line_is_one_line_and_exit_2(args: list[str], needle: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert len(err.strip().splitlines()) == 1


def test_an_unknown_bot_is_said_before_the_game_and_its_coach_are_made(monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    import yamb_app.coach

    monkeypatch.setattr(yamb_app.coach, "coach_for", lambda *args: pytest.fail("the coach was made"))
    monkeypatch.setattr(Game, "__init__", lambda *args, **kwargs: pytest.fail("the game was made"))
    assert main(["play", "--bot", "nobody", "--preset", "yamb"]) == 2
    assert "unknown player 'nobody'" in capsys.readouterr().err


def test_a_damaged_save_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "yamb-play", "version": 1, "game": {"players": 2},
                                "seats": [{"name": "You", "bot": None}]}))
    with pytest.raises(SaveFileError, match="is damaged"):
        read_save(path)
    game = Game("yatzy", players=2).to_dict()
    for damage in ({"actions": "abc"}, {"players": "2"}, {"actions": [10**6]}):
        seats = [{"name": "You", "bot": None}, {"name": "random", "bot": "random"}]
        path.write_text(json.dumps({"format": "yamb-play", "version": 1, "game": {**game, **damage},
                                    "seats": seats}))
        assert main(["play", "--load", str(path)]) == 2


# ----------------------------------------------------------------------------- parsers and the hand
def test_keep_by_positions_faces_or_words() -> None:
    shown = (3, 6, 1, 6, 6)
    assert parse_keep("1 3 4", shown) == (0, 2, 3)
    assert parse_keep("134", shown) == (0, 2, 3)
    assert parse_keep("f 6 6", shown) == (1, 3)
    assert parse_keep("f66", shown) == (1, 3)
    assert parse_keep("none", shown) == ()
    assert parse_keep("fill", shown) is None
    assert parse_keep("1 2 3 4 5", shown) is None  # keeping every die is stopping
    for bad, reason in [("6", "not a position"), ("f 2", "0 dice showing 2"), ("f 6 6 6 6", "3 dice showing 6"),
                        ("x", "not a position"), ("f", "no faces given")]:
        with pytest.raises(InputError, match=reason):
            parse_keep(bad, shown)


def test_cells_by_names_numbers_and_prefixes() -> None:
    columns, rows = ("down", "up", "free", "announce"), yamb.rules("yamb").rows
    assert parse_cell("free yamb", columns, rows, None) == (2, 12)
    assert parse_cell("3 13", columns, rows, None) == (2, 12)
    assert parse_cell("d:two pairs", columns, rows, None) == (0, 8)
    assert parse_cell("full", columns, rows, 3) == (3, 10)
    assert parse_cell("up full", columns, rows, 3) == (1, 10)
    assert parse_cell("two pairs", columns, rows, 3) == (3, 8)
    assert parse_cell("f y", columns, rows, None) == (2, 12)
    for text, only, reason in [("yamb", None, "not enough"), ("5 yamb", None, "no column 5"),
                               ("free t", None, "could be twos, threes or two_pairs"),
                               ("", 0, "a row by name or number")]:
        with pytest.raises(InputError, match=reason):
            parse_cell(text, columns, rows, only)
    assert match_name("free1", ("free0", "free1"), "column") == 1
    with pytest.raises(InputError, match="could be free0 or free1"):
        match_name("free", ("free0", "free1"), "column")


@given(st.lists(st.integers(1, 6), min_size=5, max_size=5), st.sets(st.integers(0, 4)),
       st.lists(st.integers(1, 6), min_size=5, max_size=5))
def test_kept_dice_stay_at_their_positions(shown: list[int], kept: set[int], rolled: list[int]) -> None:
    kept_positions = tuple(sorted(kept))
    dice = tuple([shown[i] for i in kept_positions] + rolled[len(kept_positions):])
    after = arrange(tuple(shown), kept_positions, dice)
    assert Counter(after) == Counter(dice)
    assert all(after[i] == shown[i] for i in kept_positions)
    faces = tuple(shown[i] for i in kept_positions)
    assert sorted(shown[i] for i in positions_of(tuple(shown), faces)) == sorted(faces)


@pytest.mark.parametrize("preset", ["yamb", "jamb6", "yatzy", "yahtzee"])
def test_a_sheet_shows_every_row_once_and_every_computed_row(preset: str) -> None:
    game = Game(preset)
    table = game.table()
    computed = computed_rows(table, game.rows)
    rows = sheet_rows(game.rows, computed)
    names = [name for name, _ in rows]
    assert sorted(names) == sorted(game.rows + computed)
    assert names[-1] == "total"
    assert all(game.rows[number - 1] == name for name, number in rows if number is not None)
    if "difference" in computed:
        assert names.index("difference") == names.index("min") + 1


@pytest.mark.parametrize("preset", ["yamb", "yahtzee"])
def test_fill_previews_are_what_a_fill_scores(preset: str) -> None:
    game = Game(preset, players=2, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):  # some turns in, mid-turn
        game.apply(int(rng.choice(game.legal_actions())))
    previews = fill_scores(game)
    assert set(previews) == set(game.legal_cells())
    for cell, score in previews.items():
        assert Game.from_dict(game.to_dict()).fill(*cell) == score


def test_every_legal_action_decodes_to_a_legal_move() -> None:
    game = Game("yamb", seed=1)
    game.roll(keep=[])
    moves = [decode(game, action) for action in game.legal_actions()]
    assert {m.cell for m in moves if m.kind == "fill"} == set(game.legal_cells())
    assert {m.cell for m in moves if m.kind == "announce"} == set(game.legal_announcements())
    keeps = [m.faces for m in moves if m.kind == "keep"]
    assert () in keeps and len(set(keeps)) == len(keeps)
    assert all(not Counter(faces) - Counter(game.dice) and len(faces) < 5 for faces in keeps)
