"""Every player's chance to win in ``yamb play`` and ``yamb review``: shown with the coach, hidden without,
a player alone's target, and the options refused in one line."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pexpect
import pytest

from tests.programs import spawn_play
from yamb.game import Game
from yamb_app.cli import main
from yamb_app.terminal.savefile import write_save

ROOT = Path(__file__).resolve().parents[2]
STANDING = re.compile(r"chance to win \((exact|estimated)\): You (\d+\.\d|<0\.1|>99\.9)% · greedy (\d+\.\d|<0\.1|>99\.9)%")


def _spawn(*args: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "dumb", "COLUMNS": "140", "LINES": "50", "PYTHONPATH": str(ROOT)}
    return spawn_play(*args, env=env, lines=50, columns=140)


def _quit(child: pexpect.spawn) -> None:
    child.sendcontrol("c")
    child.expect_exact("(Enter to quit without saving)")
    child.sendline("")
    child.expect(pexpect.EOF)


@pytest.mark.slow
@pytest.mark.parametrize("coached", [True, False])
def test_play_shows_every_player_s_chance_to_win_unless_the_coach_is_off(coached):
    child = _spawn("--preset", "yatzy", "--bots", "1", "--bot", "greedy", "--seed", "4",
                   *([] if coached else ["--no-coach"]))
    child.expect_exact("keep> ")
    text = child.before
    child.sendline("none")
    child.expect_exact("keep> ")
    text += child.before
    _quit(child)
    shown = STANDING.findall(text)
    if not coached:
        assert not shown and "chance to win" not in text and not re.search(r"You ◀ \S+%", text)
        return
    assert shown and re.search(r"You ◀ (\d+\.\d|<0\.1|>99\.9)%", text)  # beside the name on the sheet
    kind, mine, theirs = shown[-1]
    if "<" not in mine + theirs and ">" not in mine + theirs:
        assert float(mine) + float(theirs) == pytest.approx(100.0, abs=0.15)
    # the coach's word, a clause a line: the move's class, the mover's chance, the other player's
    assert re.search(rf"keep nothing: .*?chance to win \S+% -> \S+% \({kind}\)\s+others: \S+ \S+% -> \S+%",
                     text, re.S)


@pytest.mark.slow
def test_a_player_alone_sees_the_chance_of_the_target():
    child = _spawn("--preset", "yatzy", "--bots", "0", "--seed", "4", "--target", "200")
    child.expect_exact("keep> ")
    text = child.before
    _quit(child)
    found = re.search(r"chance of 200 or more \((exact|estimated)\): You (\d+\.\d)%", text)
    assert found and f"You ◀ {found.group(2)}%" in text


def test_a_target_at_a_table_of_two_is_refused_in_one_line(capsys):
    assert main(["play", "--preset", "yatzy", "--bots", "1", "--bot", "random", "--target", "100"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a target score is for a player alone" in err


def _saved(tmp_path: Path, players: int) -> Path:
    game = Game("yatzy", players=players, seed=6)
    rng = np.random.default_rng(6)
    while not game.is_over():
        game.apply(int(rng.choice(game.legal_actions())))
    path = tmp_path / "game.json"
    seats = [{"name": "Ana", "bot": None}, {"name": "bot", "bot": "random"}][:players]
    write_save(path, game.to_dict(), seats)
    return path


def test_yamb_review_charts_the_chance_to_win(tmp_path, capsys):
    path = _saved(tmp_path, 2)
    assert main(["review", str(path), "--chart", "win"]) == 0
    text = capsys.readouterr().out
    assert "Chance to win by turn (%):" in text and "Chance to win: " in text and "chance lost" in text
    assert main(["review", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ends = [p["win_curve"][-1][1] for p in data["players"]]
    scores = [p["score"] for p in data["players"]]
    assert ends == ([0.5, 0.5] if scores[0] == scores[1] else [float(s == max(scores)) for s in scores])
    assert main(["review", str(path), "--target", "150"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a target score is for a player alone" in err


def test_yamb_review_of_a_player_alone_gives_the_chance_of_a_target(tmp_path, capsys):
    path = _saved(tmp_path, 1)
    assert main(["review", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["win"] is None
    assert main(["review", str(path), "--chart", "win"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--chart win" in err
    assert main(["review", str(path), "--json", "--target", "150"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == 150 and data["players"][0]["win_curve"][-1][1] == float(data["players"][0]["score"] >= 150)
    first = data["decisions"][0]["win_before"][0]
    assert 0 < first < 1


def test_the_coachs_word_breaks_between_clauses_never_inside_a_move():
    """The longest names a table has (a counter-announcement on a full house, the look-ahead coach), a loss
    in points and in chance, three players: every line fits 80 columns with its indent, every move whole."""
    from robo_players.coach.review import Decision
    from yamb_app.coach import note_lines, win_text

    played, best, better_for_it = ("announce counter_announce:full_house", "fill late_announce:two_pairs",
                                   "keep 1 2 3 4 5")
    decision = Decision(index=3, player=1, turn=2, roll=1, dice=[1, 2, 3, 4, 5], kind="announce", action=0,
                        played=played, value=1049.93, best_action=1, best=best, best_value=1061.24, loss=11.31,
                        label="mistake", forced=False, win_before=[0.301, 0.402, 0.297],
                        win_after=[0.312, 0.371, 0.317], win_best=better_for_it, win_best_value=0.405,
                        win_loss=0.034)
    names = ["Ana", "best+lookahead 1", "best+lookahead 2"]
    for width in (76, 56):
        lines = note_lines(decision, "the best+lookahead bot's values", target=None, exact=False, names=names,
                           width=width)
        assert all(len(line) <= width for line in lines), lines
        for move in (played, best, better_for_it):
            assert sum(move in line for line in lines) == 1, (move, lines)
    text = "\n".join(note_lines(decision, "exact values", exact=True, names=names, width=120))
    assert "coach (exact values): announce counter_announce:full_house: mistake, -11.3 points" in text
    assert "better: fill late_announce:two_pairs, 1061.2 against 1049.9" in text
    assert "chance to win 40.2% -> 37.1% (exact)" in text
    assert "others: Ana 30.1% -> 31.2% · best+lookahead 2 29.7% -> 31.7%" in text
    assert "-3.4 points of chance; better for it: keep 1 2 3 4 5, 40.5%" in text
    assert win_text(decision, None, names) == ("chance to win 40.2% -> 37.1% (others: Ana 30.1% -> 31.2% · "
                                               "best+lookahead 2 29.7% -> 31.7%), -3.4 points of chance "
                                               "(better for it: keep 1 2 3 4 5, 40.5%)")


def test_the_text_chart_of_one_turn_names_it_once():
    from robo_players.coach.review import PlayerReview, Review
    from yamb_app.coach import text_chart

    players = [PlayerReview(player=p, loss=0.0, decisions=1, classes={}, curve=[(1, 240.0 + p)], score=0)
               for p in range(2)]
    lines = text_chart(Review(coach="optimal", exact=True, over=False, decisions=[], players=players), ["A", "B"])
    axis = lines[-2]
    assert axis.split() == ["turn", "1"], lines
