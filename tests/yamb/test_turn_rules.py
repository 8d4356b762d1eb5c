"""Turn rules of docs/rules.md, hand-worked: announcing, hand, late and counter announcements,
jamb6's pure hand and last turn, the Yahtzee jokers, and the messages of illegal moves."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from yamb import IllegalMoveError, UnknownColumnError, rules
from yamb.engine import GameBatch
from yamb.layout import Layout, layout

ALL_ROWS = (1 << 13) - 1


@cache
def _actions(lay: Layout) -> dict[str, int]:
    return {lay.describe_action(a): a for a in range(lay.n_actions)}


def new_game(preset: str = "yamb", columns: tuple[str, ...] | None = None, players: int = 1,
             joker: str | None = None, seed: int = 0) -> GameBatch:
    return GameBatch(layout(rules(preset, joker=joker), columns, players), 1, seed=seed)


def fill(batch: GameBatch, column: int, rows: list[str] | str = "all", score: int = 0, player: int = 0) -> None:
    """Mark cells of ``column`` filled (with ``score``), as if earlier turns had filled them."""
    names = batch.rules.rows if rows == "all" else rows
    for row in names:
        r = batch.rules.row_index(row)
        batch.filled[0, player, column] |= np.uint32(1 << r)
        batch.cells[0, player, column, r] = score


def set_dice(batch: GameBatch, *dice: int) -> None:
    batch.dice[0] = batch.rules.dice.index_of_dice(dice)


def play(batch: GameBatch, *moves: str) -> None:
    """Apply moves written like ``describe_action``: "fill free:yamb", "keep 5 5", "announce announce:max"."""
    for move in moves:
        batch.step(np.array([_actions(batch.layout)[move]]), np.array([0]))


def legal(batch: GameBatch) -> tuple[set[str], set[str], bool]:
    """Names of the fillable and announceable cells, and whether a reroll is allowed."""
    lay = batch.layout
    mask = batch.legal_actions(np.array([0]))[0]
    fills = {lay.cell_name(a) for a in np.flatnonzero(mask[: lay.n_cells])}
    start = lay.n_cells + lay.n_keeps
    announces = {lay.cell_name(a) for a in np.flatnonzero(mask[start:])}
    may_roll = bool(mask[lay.n_cells:start].any())
    assert batch.decisions(np.array([0])).may_roll[0] == may_roll
    return fills, announces, may_roll


def cell(batch: GameBatch, column: int, row: str, player: int = 0) -> int:
    return int(batch.cells[0, player, column, batch.rules.row_index(row)])


def refused(batch: GameBatch, move: str, needle: str) -> None:
    """The move raises IllegalMoveError naming the rule, and changes nothing."""
    before = [a.copy() for a in batch.state]
    with pytest.raises(IllegalMoveError, match=needle):
        play(batch, move)
    assert all((a == b).all() for a, b in zip(before, batch.state))


def column_cells(kind: str, rows: tuple[str, ...] = rules().rows) -> set[str]:
    return {f"{kind}:{row}" for row in rows}


# ----------------------------------------------------------------- announce
def test_announce_column_is_announced_after_the_first_roll_and_only_then() -> None:
    batch = new_game()
    fills, announces, may_roll = legal(batch)
    assert fills == {"down:ones", "up:yamb"} | column_cells("free")
    assert announces == column_cells("announce")
    assert may_roll
    refused(batch, "fill announce:ones", "filled only by announcing it")
    play(batch, "keep nothing")
    fills, announces, _ = legal(batch)
    assert announces == set() and "announce:ones" not in fills
    refused(batch, "announce announce:yamb", "announced right after the first roll")


def test_an_announced_cell_must_be_filled_and_scores_zero_when_missed() -> None:
    batch = new_game()
    play(batch, "announce announce:yamb")
    assert legal(batch) == ({"announce:yamb"}, set(), True)
    refused(batch, "fill free:ones", "must fill the announced announce:yamb")
    refused(batch, "announce announce:max", "announce:yamb is already announced")
    play(batch, "keep nothing", "keep nothing")
    assert legal(batch) == ({"announce:yamb"}, set(), False)
    refused(batch, "keep nothing", "no rolls left this turn")
    set_dice(batch, 1, 2, 3, 5, 6)
    play(batch, "fill announce:yamb")
    assert batch.filled[0, 0, 3] == 1 << 12 and cell(batch, 3, "yamb") == 0
    assert batch.roll[0] == 1 and batch.announced[0] == -1 and batch.turn[0] == 1


def test_when_only_announce_cells_remain_the_player_must_announce() -> None:
    batch = new_game()
    for c in range(3):
        fill(batch, c)
    fill(batch, 3, ["ones", "max"])
    fills, announces, may_roll = legal(batch)
    assert fills == set() and not may_roll
    assert announces == column_cells("announce") - {"announce:ones", "announce:max"}
    assert batch.decisions(np.array([0])).must_announce[0]
    refused(batch, "keep nothing", "a row must be announced first")
    refused(batch, "fill announce:twos", "a row must be announced first")
    play(batch, "announce announce:twos", "keep 2")
    assert legal(batch) == ({"announce:twos"}, set(), True)


# ----------------------------------------------------------------- hand
def test_hand_column_is_filled_only_with_the_first_roll() -> None:
    batch = new_game(columns=("down", "hand"))
    fills, _, may_roll = legal(batch)
    assert fills == {"down:ones"} | column_cells("hand") and may_roll
    play(batch, "keep nothing")
    assert legal(batch)[0] == {"down:ones"}
    refused(batch, "fill hand:yamb", "hand column is filled only with the first roll")


def test_with_only_hand_cells_left_there_is_no_reroll() -> None:
    batch = new_game(columns=("down", "hand"))
    fill(batch, 0)
    fill(batch, 1, ["yamb"])
    assert legal(batch) == (column_cells("hand") - {"hand:yamb"}, set(), False)
    refused(batch, "keep nothing", "no cell could be filled after another roll")


# ----------------------------------------------------------------- late announce
def test_late_announce_is_made_after_the_second_roll() -> None:
    batch = new_game(columns=("free", "late_announce"))
    fills, announces, may_roll = legal(batch)
    assert fills == column_cells("free") and announces == set() and may_roll
    refused(batch, "announce late_announce:max", "announced right after the second roll")
    play(batch, "keep nothing")
    fills, announces, may_roll = legal(batch)
    assert fills == column_cells("free") and announces == column_cells("late_announce") and may_roll
    play(batch, "announce late_announce:straight")
    assert legal(batch) == ({"late_announce:straight"}, set(), True)
    play(batch, "keep nothing")
    assert legal(batch) == ({"late_announce:straight"}, set(), False)


def test_with_only_late_cells_left_the_player_rolls_then_must_announce() -> None:
    batch = new_game(columns=("free", "late_announce"))
    fill(batch, 0)
    assert legal(batch) == (set(), set(), True)
    refused(batch, "fill late_announce:ones", "filled only by announcing it")
    play(batch, "keep nothing")
    fills, announces, may_roll = legal(batch)
    assert fills == set() and announces == column_cells("late_announce") and not may_roll
    refused(batch, "keep nothing", "a row must be announced first")


# ----------------------------------------------------------------- counter announce
def test_counter_announce_needs_two_players() -> None:
    with pytest.raises(UnknownColumnError, match="at least two players"):
        layout(rules(), ["free", "counter_announce"], players=1)


def test_the_next_player_must_answer_an_announced_row() -> None:
    batch = new_game(columns=("free", "announce", "counter_announce"), players=2)
    counters = column_cells("counter_announce")
    fills, announces, _ = legal(batch)
    assert not fills & counters and not announces & counters
    play(batch, "announce announce:full_house", "fill announce:full_house")
    assert batch.player[0] == 1
    assert legal(batch) == ({"counter_announce:full_house"}, set(), True)
    refused(batch, "fill free:ones", "must answer the counter-announcement counter_announce:full_house")
    refused(batch, "announce announce:ones", "must answer counter_announce:full_house")
    play(batch, "keep nothing", "fill counter_announce:full_house")
    # player 0 announced nothing in the turn player 1 answers: nothing to answer now
    assert batch.player[0] == 0
    fills, _, _ = legal(batch)
    assert fills == column_cells("free")


def test_an_announced_row_already_filled_in_the_counter_column_is_not_answered() -> None:
    batch = new_game(columns=("free", "announce", "counter_announce"), players=2)
    fill(batch, 2, ["yamb"], player=1)
    play(batch, "announce announce:yamb", "fill announce:yamb")
    fills, announces, _ = legal(batch)
    assert fills == column_cells("free") and announces == column_cells("announce")


def test_with_only_counter_cells_left_and_nothing_to_answer_the_player_announces() -> None:
    batch = new_game(columns=("free", "counter_announce"), players=2)
    fill(batch, 0)
    fills, announces, may_roll = legal(batch)
    assert fills == set() and announces == column_cells("counter_announce") and not may_roll
    play(batch, "announce counter_announce:carriage", "keep nothing", "fill counter_announce:carriage")
    # player 1 answers in its own counter column
    assert legal(batch) == ({"counter_announce:carriage"}, set(), True)


def test_with_three_players_the_answer_is_to_the_previous_player() -> None:
    batch = new_game(columns=("free", "announce", "counter_announce"), players=3)
    play(batch, "fill free:ones")  # player 0, no announcement
    play(batch, "announce announce:max", "fill announce:max")  # player 1
    assert batch.player[0] == 2
    assert legal(batch)[0] == {"counter_announce:max"}
    play(batch, "fill counter_announce:max")
    assert batch.player[0] == 0 and legal(batch)[0] == column_cells("free") - {"free:ones"}


# ----------------------------------------------------------------- jamb6
def test_jamb6_announce_cells_take_a_pure_hand() -> None:
    batch = new_game("jamb6")
    jamb6_announce = column_cells("announce", rules("jamb6").rows)
    fills, announces, _ = legal(batch)
    assert jamb6_announce <= fills and announces == jamb6_announce
    play(batch, "keep nothing")  # every die thrown again: still pure
    fills, announces, _ = legal(batch)
    assert jamb6_announce <= fills and announces == set()
    faces = batch.rules.dice.faces[batch.dice[0]]
    play(batch, f"keep {faces[0]}")
    assert not legal(batch)[0] & jamb6_announce
    refused(batch, "fill announce:yamb", "pure hand")


def test_yamb_has_no_pure_hand_rule() -> None:
    assert not legal(new_game())[0] & column_cells("announce")


def test_jamb6_must_announce_when_only_announce_cells_remain() -> None:
    batch = new_game("jamb6")
    for c in range(3):
        fill(batch, c)
    fills, announces, may_roll = legal(batch)
    assert fills == set() and not may_roll and len(announces) == 13
    refused(batch, "fill announce:ones", "a row must be announced first")


def test_jamb6_last_turn_gets_five_rolls() -> None:
    batch = new_game("jamb6")
    for c in range(3):
        fill(batch, c)
    fill(batch, 3, list(rules("jamb6").rows[:11]))
    assert batch.rolls_allowed[0] == 3
    play(batch, "announce announce:poker", "fill announce:poker")
    assert batch.rolls_allowed[0] == 5 and batch.turn[0] == 1
    play(batch, "announce announce:yamb")
    for _ in range(4):
        assert legal(batch)[2]
        play(batch, "keep nothing")
    assert batch.roll[0] == 5 and not legal(batch)[2]
    refused(batch, "keep nothing", r"no rolls left this turn \(5 rolls\)")


def test_yamb_last_turn_keeps_three_rolls() -> None:
    batch = new_game(columns=("free",))
    fill(batch, 0, list(rules().rows[:11]))
    play(batch, "fill free:carriage")
    assert batch.rolls_allowed[0] == 3


# ----------------------------------------------------------------- yahtzee jokers
def yahtzee(joker: str, yahtzee_score: int | None, filled: list[str]) -> GameBatch:
    """A Yahtzee game whose dice are five 3s, with the yahtzee cell and ``filled`` rows filled."""
    batch = new_game("yahtzee", joker=joker)
    if yahtzee_score is not None:
        fill(batch, 0, ["yahtzee"], score=yahtzee_score)
    fill(batch, 0, filled)
    set_dice(batch, 3, 3, 3, 3, 3)
    return batch


YAHTZEE_ROWS = rules("yahtzee").rows
LOWER = ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance")


@pytest.mark.parametrize(
    ("row", "joker_value"), [("full_house", 25), ("small_straight", 30), ("large_straight", 40)]
)
def test_free_joker_scores_full_value_with_its_upper_cell_filled(row: str, joker_value: int) -> None:
    batch = yahtzee("free", 50, ["threes"])
    fills, _, _ = legal(batch)
    assert fills == column_cells("free", YAHTZEE_ROWS) - {"free:yahtzee", "free:threes"}
    play(batch, f"fill free:{row}")
    assert cell(batch, 0, row) == joker_value
    assert batch.bonuses[0, 0] == 1
    assert batch.scores()[0, 0] == 50 + joker_value + 100


def test_free_joker_needs_the_upper_cell_filled_but_the_bonus_does_not() -> None:
    batch = yahtzee("free", 50, [])
    play(batch, "fill free:full_house")
    assert cell(batch, 0, "full_house") == 0 and batch.bonuses[0, 0] == 1


def test_scratched_yahtzee_gives_jokers_but_no_bonus() -> None:
    batch = yahtzee("free", 0, ["threes"])
    play(batch, "fill free:large_straight")
    assert cell(batch, 0, "large_straight") == 40 and batch.bonuses[0, 0] == 0


def test_first_yahtzee_scores_fifty_and_is_no_joker() -> None:
    batch = yahtzee("free", None, ["threes"])
    play(batch, "fill free:full_house")
    assert cell(batch, 0, "full_house") == 0
    batch = yahtzee("free", None, [])
    play(batch, "fill free:yahtzee")
    assert cell(batch, 0, "yahtzee") == 50 and batch.bonuses[0, 0] == 0


def test_forced_joker_goes_to_its_upper_cell_when_open() -> None:
    batch = yahtzee("forced", 50, [])
    assert legal(batch)[0] == {"free:threes"}
    refused(batch, "fill free:full_house", "forced joker rule")
    play(batch, "fill free:threes")
    assert cell(batch, 0, "threes") == 15 and batch.bonuses[0, 0] == 1


def test_forced_joker_then_goes_to_a_lower_cell_at_full_value() -> None:
    batch = yahtzee("forced", 0, ["threes", "chance"])
    assert legal(batch)[0] == {f"free:{row}" for row in LOWER} - {"free:chance"}
    refused(batch, "fill free:aces", "forced joker rule")
    play(batch, "fill free:large_straight")
    assert cell(batch, 0, "large_straight") == 40 and batch.bonuses[0, 0] == 0


def test_forced_joker_scratches_an_upper_cell_when_the_lower_section_is_full() -> None:
    batch = yahtzee("forced", 50, ["threes", *LOWER])
    assert legal(batch)[0] == {"free:aces", "free:twos", "free:fours", "free:fives", "free:sixes"}
    play(batch, "fill free:sixes")
    assert cell(batch, 0, "sixes") == 0 and batch.bonuses[0, 0] == 1


def test_forced_joker_does_not_apply_before_the_yahtzee_cell_is_filled() -> None:
    batch = yahtzee("forced", None, [])
    assert legal(batch)[0] == column_cells("free", YAHTZEE_ROWS)


# ----------------------------------------------------------------- order and bad actions
def test_order_violations_and_bad_actions_are_refused_with_the_rule() -> None:
    batch = new_game()
    refused(batch, "fill down:twos", "the down column's order does not allow that row now")
    refused(batch, "fill up:ones", "the up column's order does not allow that row now")
    fill(batch, 2, ["yamb"])
    refused(batch, "fill free:yamb", "the cell is already filled")
    faces = batch.rules.dice.faces[batch.dice[0]]
    missing = next(f for f in range(1, 7) if f not in faces)
    refused(batch, f"keep {missing}", "the dice do not contain those faces")
    refused(batch, "keep " + " ".join(map(str, faces)), "keeping all the dice is not a roll")
    with pytest.raises(IllegalMoveError, match="out of range"):
        batch.step(np.array([batch.layout.n_actions]), np.array([0]))


def test_one_illegal_action_in_a_step_changes_no_game() -> None:
    batch = GameBatch(layout(rules()), 3, seed=5)
    before = [a.copy() for a in batch.state]
    with pytest.raises(IllegalMoveError, match="order does not allow"):
        batch.step(np.array([13 + 0, 1, 13 + 12]))  # free:ones, down:twos, up:yamb
    assert all((a == b).all() for a, b in zip(before, batch.state))
    with pytest.raises(IllegalMoveError, match="only one action per step"):
        batch.step(np.array([13, 14]), np.array([0, 0]))


def test_a_finished_game_takes_no_action() -> None:
    batch = new_game(columns=("down",))
    for row in rules().rows:
        play(batch, f"fill down:{row}")
    assert batch.done[0]
    with pytest.raises(IllegalMoveError, match="the game is over"):
        batch.step(np.array([0]), np.array([0]))
