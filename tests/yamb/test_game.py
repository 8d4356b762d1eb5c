"""The single-game API: turns played by hand, legality against docs/rules.md, errors, saving, chance."""

from __future__ import annotations

import doctest
import itertools
import json
import re
from collections import Counter

import numpy as np
import pytest

import yamb
import yamb.game
from yamb import Cell, Game
from yamb.engine import GameBatch
from yamb.errors import (
    IllegalMoveError,
    InvalidDiceError,
    UnknownColumnError,
    UnknownPresetError,
    UnknownRowError,
    YambError,
)

STANDARD = ["down", "up", "free", "announce"]
YAMB_ROWS = yamb.rules("yamb").rows


def play_randomly(game: Game, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over():
            return
        game.apply(int(rng.choice(game.legal_actions())))


def cells_of(game: Game, column: str) -> list[str]:
    return [cell.row for cell in game.legal_cells() if cell.column == column]


def test_docstring_example_runs() -> None:
    result = doctest.testmod(yamb.game)
    assert result.attempted > 0 and result.failed == 0


def test_a_new_game_starts_after_the_first_roll() -> None:
    game = Game(yamb.rules("yamb"), columns=STANDARD, players=2, seed=7)
    assert len(game.dice) == 5 and list(game.dice) == sorted(game.dice)
    assert all(1 <= d <= 6 for d in game.dice)
    assert (game.roll_number, game.rolls_left, game.player, game.turns_played) == (1, 2, 0, 0)
    assert game.announced is None and game.must_answer is None
    assert not game.is_over() and game.scores() == [0, 0]
    assert game.columns == tuple(STANDARD) and game.rows == YAMB_ROWS


def test_the_game_rolls_the_dice_of_its_batch_stream() -> None:
    layout = Game("yamb").layout
    batch = GameBatch(layout, 4, seed=11)
    for stream in range(4):
        expected = tuple(int(d) for d in batch.rules.dice.faces[batch.dice[stream]])
        assert Game("yamb", seed=11, stream=stream).dice == expected


def test_a_turn_played_by_hand() -> None:
    game = Game("yamb", columns=STANDARD, players=2, seed=3)
    top = max(game.dice)
    kept = [d for d in game.dice if d == top]
    dice = game.roll(keep=kept)
    assert dice == game.dice and Counter(dice)[top] >= len(kept)
    assert (game.roll_number, game.rolls_left, game.can_roll) == (2, 1, True)
    game.roll()
    assert (game.roll_number, game.rolls_left, game.can_roll) == (3, 0, False)
    with pytest.raises(IllegalMoveError, match="no rolls left"):
        game.roll(keep=[])
    dice = game.dice
    assert game.fill("free", "max") == sum(dice)  # docs/rules.md: max is the sum of all five dice
    assert game.table(player=0)["free"]["max"] == sum(dice)
    assert game.table(player=0)["free"]["min"] is None
    assert (game.player, game.roll_number, game.turns_played) == (1, 1, 1)
    assert game.scores() == [0, 0]  # max counts only through the difference, and ones is empty


def test_fill_returns_the_rule_book_score_of_the_dice() -> None:
    rules = yamb.rules("yamb")
    game = Game(rules, columns=["free"], seed=5)
    for turn, row in enumerate(rules.rows):
        if turn % 2:
            game.roll(keep=game.dice[:2])
        dice = game.dice
        assert game.fill("free", row) == rules.score(row, dice)
    assert game.is_over()


def test_table_adds_the_computed_rows_of_the_rule_book() -> None:
    game = Game("yamb", columns=["free"], seed=2)
    written = {row: game.fill("free", row) for row in YAMB_ROWS}
    numbers = sum(written[r] for r in YAMB_ROWS[:6])
    column = game.table()["free"]
    assert column["numbers_sum"] == numbers + (30 if numbers >= 60 else 0)
    assert column["difference"] == written["ones"] * (written["max"] - written["min"])
    collections = ("two_pairs", "straight", "full_house", "carriage", "yamb")
    assert column["collections_sum"] == sum(written[r] for r in collections)
    assert column["total"] == column["numbers_sum"] + column["difference"] + column["collections_sum"]
    assert game.scores() == [column["total"]]


def test_yatzy_total_with_its_bonus() -> None:
    game = Game("yatzy", seed=9)
    play_randomly(game, 500, seed=1)
    assert game.is_over() and len(game.history) >= 15
    column = game.table(player=0)["free"]
    upper = sum(column[r] for r in game.rows[:6])
    assert game.scores() == [sum(column[r] for r in game.rows) + (50 if upper >= 63 else 0)]


def test_down_and_up_columns_fill_in_order() -> None:
    game = Game("yamb", columns=STANDARD, seed=1)
    assert cells_of(game, "down") == ["ones"]
    assert cells_of(game, "up") == ["yamb"]
    assert cells_of(game, "free") == list(YAMB_ROWS)
    assert cells_of(game, "announce") == []
    with pytest.raises(IllegalMoveError, match="down column's order"):
        game.fill("down", "twos")
    game.fill("down", "ones")
    game.fill("up", "yamb")
    assert cells_of(game, "down") == ["twos"]
    assert cells_of(game, "up") == ["carriage"]


@pytest.mark.parametrize(
    ("kind", "first_rows"),
    [
        ("down", ["ones"]),
        ("up", ["yamb"]),
        ("updown", ["ones", "yamb"]),
        ("middle", ["max", "min"]),
        ("free", list(YAMB_ROWS)),
        ("hand", list(YAMB_ROWS)),
    ],
)
def test_the_first_fillable_rows_of_each_column_kind(kind: str, first_rows: list[str]) -> None:
    assert cells_of(Game("yamb", columns=[kind], seed=1), kind) == first_rows


def test_middle_column_grows_from_the_filled_block() -> None:
    game = Game("yamb", columns=["middle"], seed=1)
    game.fill("middle", "min")
    assert cells_of(game, "middle") == ["max", "two_pairs"]
    game.fill("middle", "two_pairs")
    assert cells_of(game, "middle") == ["max", "straight"]


def test_late_announce_comes_after_the_second_roll() -> None:
    game = Game("yamb", columns=["late_announce", "free"], seed=3)
    assert game.legal_announcements() == [] and cells_of(game, "late_announce") == []
    game.roll()
    assert game.legal_announcements() == [Cell("late_announce", row) for row in YAMB_ROWS]
    game.announce("late_announce", "full_house")
    assert game.legal_cells() == [Cell("late_announce", "full_house")] and game.rolls_left == 1


def test_announcing_commits_the_turn_to_one_cell() -> None:
    rules = yamb.rules("yamb")
    game = Game(rules, columns=STANDARD, seed=4)
    assert game.legal_announcements() == [Cell("announce", row) for row in YAMB_ROWS]
    game.announce("announce", "yamb")
    assert game.announced == Cell("announce", "yamb")
    assert game.legal_cells() == [Cell("announce", "yamb")]
    assert game.legal_announcements() == []
    with pytest.raises(IllegalMoveError, match="must fill the announced announce:yamb"):
        game.fill("free", "max")
    game.roll(keep=game.dice[-1:])
    dice = game.dice
    assert game.fill("announce", "yamb") == rules.score("yamb", dice)
    assert game.announced is None


def test_announcements_come_right_after_the_first_roll() -> None:
    game = Game("yamb", columns=STANDARD, seed=4)
    game.roll()
    assert game.legal_announcements() == []
    with pytest.raises(IllegalMoveError, match="right after the first roll"):
        game.announce("announce", "ones")
    with pytest.raises(IllegalMoveError, match="only by announcing"):
        game.fill("announce", "ones")


def test_only_announce_cells_left_forces_an_announcement() -> None:
    game = Game("yamb", columns=["announce"], seed=8)
    assert game.must_announce and not game.can_roll
    assert game.legal_cells() == []
    with pytest.raises(IllegalMoveError, match="a row must be announced first"):
        game.roll()
    game.announce(0, 3)
    assert game.announced == Cell("announce", "fours") and game.can_roll


def test_hand_column_only_with_the_first_roll() -> None:
    game = Game("yamb", columns=["hand", "down"], seed=6)
    assert cells_of(game, "hand") == list(YAMB_ROWS)
    game.roll()
    assert cells_of(game, "hand") == []
    with pytest.raises(IllegalMoveError, match="first roll of a turn"):
        game.fill("hand", "max")


def test_counter_announce_answers_the_previous_players_announcement() -> None:
    game = Game("yamb", columns=["free", "announce", "counter_announce"], players=2, seed=12)
    game.announce("announce", "straight")
    game.fill("announce", "straight")
    assert game.player == 1
    assert game.must_answer == Cell("counter_announce", "straight")
    assert game.legal_cells() == [Cell("counter_announce", "straight")]
    assert game.legal_announcements() == []
    with pytest.raises(IllegalMoveError, match="answer the counter-announcement"):
        game.fill("free", "max")
    game.fill("counter_announce", "straight")
    assert game.player == 0 and game.must_answer is None  # player 1 announced nothing


def test_repeated_column_kinds_are_named_by_position() -> None:
    game = Game("yamb", columns=["free", "free"], seed=1)
    assert game.columns == ("free0", "free1")
    with pytest.raises(UnknownColumnError, match="ambiguous: this table has free0, free1"):
        game.fill("free", "max")
    game.fill("free1", "max")
    assert game.table()["free1"]["max"] is not None and game.table()["free0"]["max"] is None


@pytest.mark.parametrize(
    ("move", "error", "message"),
    [
        (lambda g: g.fill("sideways", "max"), UnknownColumnError, "no column 'sideways' in this table; columns are down, up, free, announce"),
        (lambda g: g.fill(7, "max"), UnknownColumnError, "column 7 out of range"),
        (lambda g: g.fill("free", "chance"), UnknownRowError, "unknown row 'chance'"),
        (lambda g: g.fill("free", 13), UnknownRowError, "row 13 out of range"),
        (lambda g: g.roll(keep=[7]), InvalidDiceError, "die value 7 is not an integer from 1 to 6"),
        (lambda g: g.roll(keep=["6"]), InvalidDiceError, "die value '6'"),
        (lambda g: g.roll(keep=[True]), InvalidDiceError, "die value True"),
        (lambda g: g.roll(keep_positions=[5]), InvalidDiceError, "die position 5"),
        (lambda g: g.roll(keep_positions=[1, 1]), InvalidDiceError, "repeat a position"),
        (lambda g: g.roll(keep=[1], keep_positions=[0]), InvalidDiceError, "not both"),
        (lambda g: g.roll(keep=g.dice), IllegalMoveError, "cannot keep all 5 dice"),
        (lambda g: g.apply(566), IllegalMoveError, "action 566 is out of range 0..565"),
        (lambda g: g.table(player=2), YambError, "player 2 out of range 0..1"),
        (lambda g: g.chance_outcomes(keep=[0]), InvalidDiceError, "die value 0"),
    ],
)
def test_bad_input_raises_a_precise_error(move, error: type[Exception], message: str) -> None:
    game = Game("yamb", columns=STANDARD, players=2, seed=7)
    with pytest.raises(error, match=message):
        move(game)


def test_keeping_a_face_not_among_the_dice() -> None:
    game = Game("yamb", seed=7)
    missing = next(f for f in range(1, 7) if f not in game.dice)
    with pytest.raises(InvalidDiceError, match=f"cannot keep {missing}: the dice are"):
        game.roll(keep=[missing])
    with pytest.raises(InvalidDiceError, match="cannot keep"):
        game.roll(keep=[game.dice[0]] * 6)


def test_bad_game_options() -> None:
    with pytest.raises(UnknownPresetError):
        Game("chess")
    with pytest.raises(UnknownColumnError):
        Game("yamb", columns=["sideways"])
    with pytest.raises(YambError, match="seed must be an integer"):
        Game("yamb", seed=-1)
    with pytest.raises(YambError, match="players must be a whole number of at least 1, not 0"):
        Game("yamb", players=0)
    with pytest.raises(UnknownColumnError, match="not the string 'free'"):
        Game("yamb", columns="free")


def test_keep_by_positions_equals_keep_by_faces() -> None:
    a = Game("yamb", seed=21)
    b = Game.from_dict(a.to_dict())
    a.roll(keep_positions=[0, 2])
    b.roll(keep=[b.dice[0], b.dice[2]])
    assert a.dice == b.dice and a.history == b.history


def test_actions_and_names_agree() -> None:
    game = Game("yamb", columns=STANDARD, seed=13)
    mask = game.action_mask()
    n_cells = game.layout.n_cells
    assert [game.cell_index(*cell) for cell in game.legal_cells()] == list(np.flatnonzero(mask[:n_cells]))
    assert game.legal_actions() == list(np.flatnonzero(mask))


def test_a_restored_game_continues_identically() -> None:
    game = Game(yamb.rules("yamb", dice=6), columns=["down", "up", "free", "announce"], players=2, seed=99, stream=3)
    play_randomly(game, 60, seed=4)
    copy = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert copy.to_dict() == game.to_dict()
    rng = np.random.default_rng(5)
    while not game.is_over():
        assert (copy.dice, copy.player, copy.roll_number) == (game.dice, game.player, game.roll_number)
        assert copy.legal_actions() == game.legal_actions()
        action = int(rng.choice(game.legal_actions()))
        game.apply(action)
        copy.apply(action)
    assert copy.is_over() and copy.scores() == game.scores()
    assert copy.table(0) == game.table(0) and copy.table(1) == game.table(1)


def test_a_yahtzee_snapshot_keeps_the_joker_option() -> None:
    game = Game(yamb.rules("yahtzee", joker="forced"), seed=1)
    restored = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert restored.rules.joker == "forced"


def test_a_snapshot_with_a_missing_key_is_refused() -> None:
    data = Game("yamb").to_dict()
    del data["seed"]
    with pytest.raises(YambError, match="missing seed"):
        Game.from_dict(data)


@pytest.mark.parametrize("action", [1.5, "3", None, True, [0]])
def test_an_action_that_is_not_an_integer_is_a_yamb_error(action: object) -> None:
    game = Game("yatzy")
    with pytest.raises(YambError, match=f"an action must be an integer .*not {re.escape(repr(action))}$"):
        game.apply(action)
    with pytest.raises(YambError, match="an action must be an integer"):
        game.explain_illegal(action)
    assert game.history == ()


@pytest.mark.parametrize(("actions", "error", "message"), [
    ("12", YambError, "game snapshot: actions must be a list of integers, not '12'"),
    (None, YambError, "game snapshot: actions must be a list of integers, not None"),
    ([0, 1.5], YambError, "game snapshot, action 1: an action must be an integer (see yamb.layout), not 1.5"),
    ([[0]], YambError, "game snapshot, action 0: an action must be an integer (see yamb.layout), not [0]"),
    ([10**30], IllegalMoveError, f"game snapshot, action 0: action {10**30} is out of range 0..491"),
    ([0, 0], IllegalMoveError, "game snapshot, action 1: cannot fill free:ones: the cell is already filled"),
])
def test_a_snapshot_with_malformed_actions_is_refused(actions: object, error: type, message: str) -> None:
    data = Game("yatzy").to_dict() | {"actions": actions}
    with pytest.raises(error, match=f"^{re.escape(message)}$"):
        Game.from_dict(data)


def test_undo_takes_back_a_roll_and_the_same_dice_come_again() -> None:
    game = Game("yamb", seed=17)
    first = game.dice
    second = game.roll(keep=first[:1])
    last = game.history[-1]
    assert game.undo() == last
    assert game.dice == first and game.roll_number == 1 and game.history == ()
    assert game.roll(keep=first[:1]) == second
    game.undo()
    with pytest.raises(IllegalMoveError, match="no action has been played"):
        game.undo()


@pytest.mark.parametrize(("dice", "n_kept"), [(5, 0), (5, 3), (6, 2), (6, 5)])
def test_chance_outcomes_match_enumerating_every_reroll(dice: int, n_kept: int) -> None:
    game = Game(yamb.rules("yamb", dice=dice), seed=31)
    kept = game.dice[:n_kept]
    rerolled = dice - len(kept)
    counts = Counter(tuple(sorted((*kept, *roll))) for roll in itertools.product(range(1, 7), repeat=rerolled))
    outcomes = game.chance_outcomes(keep=list(kept))
    assert dict(outcomes) == pytest.approx({k: v / 6**rerolled for k, v in counts.items()}, abs=1e-15)
    assert sum(p for _, p in outcomes) == pytest.approx(1.0, abs=1e-12)


def test_a_reroll_lands_on_a_possible_outcome() -> None:
    game = Game("yamb", seed=40)
    kept = game.dice[:2]
    possible = dict(game.chance_outcomes(keep=list(kept)))
    assert game.roll(keep=list(kept)) in possible


def test_a_finished_game_refuses_moves() -> None:
    game = Game("yatzy", seed=2)
    for row in game.rows:
        game.fill("free", row)
    assert game.is_over() and game.legal_actions() == [] and game.legal_cells() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.fill("free", "chance")
    assert "over" in repr(game)


def test_a_snapshot_whose_columns_are_not_a_list_is_refused() -> None:
    data = Game("yatzy").to_dict() | {"columns": 5}
    with pytest.raises(UnknownColumnError, match="^columns must be a list of column kinds, not 5$"):
        Game.from_dict(data)


def test_the_layout_and_rules_have_short_reprs() -> None:
    game = Game(yamb.rules("yahtzee", joker="forced"), players=2)
    assert repr(game.layout) == (
        "Layout(Rules('yahtzee', dice=5, joker='forced'), columns=('free',), players=2: 13 cells, 488 actions)")
    assert repr(yamb.rules("yamb", dice=6)) == "Rules('yamb', dice=6)"
