"""The lane planner gives bit for bit the turn optimizer's plans."""

from __future__ import annotations

import numpy as np
import pytest

from expected_scores.turn import plan_turn
from expected_scores.lanes import plan_many
from yamb.rules import rules


@pytest.mark.parametrize(("preset", "rolls", "with_pure"), [("yamb", 3, False), ("jamb6", 3, True), ("jamb6", 5, True),
                                                            ("yatzy", 2, False)])
def test_lanes_plan_exactly_as_the_turn_optimizer(preset: str, rolls: int, with_pure: bool) -> None:
    dice = rules(preset).dice
    rng = np.random.default_rng(rolls)
    options = rng.integers(0, 30, (rolls, 7, dice.n_multisets)).astype(np.float64)  # integers: many ties
    options[0] = -np.inf
    options[0, np.arange(7), rng.integers(0, dice.n_multisets, 7)] = 25.0
    pure = rng.integers(0, 40, options.shape).astype(np.float64) if with_pure else None
    reference = plan_turn(options, dice, rolls, pure=pure)
    value, keep = plan_many(options, dice, pure)
    assert np.array_equal(value, reference.value) and np.array_equal(keep, reference.keep)


@pytest.mark.parametrize(("preset", "rolls", "with_pure"), [("yamb", 3, False), ("jamb6", 5, True),
                                                            ("yamb", 2, False)])
def test_lanes_plan_the_held_hand_of_the_first_roll_as_the_turn_optimizer(preset: str, rolls: int,
                                                                           with_pure: bool) -> None:
    """Planning only the hand held after the first roll (as expectimax does) changes nothing of its plan."""
    dice = rules(preset).dice
    rng = np.random.default_rng(10 + rolls)
    options = rng.integers(0, 30, (rolls, 9, dice.n_multisets)).astype(np.float64)  # integers: many ties
    pure = rng.integers(0, 40, options.shape).astype(np.float64) if with_pure else None
    hands = rng.integers(0, dice.n_multisets, 9)
    reference = plan_turn(options, dice, rolls, pure=pure)
    value, keep = plan_many(options, dice, pure, hands)
    turns = np.arange(9)
    assert np.array_equal(value[1:], reference.value[1:]) and np.array_equal(keep[1:], reference.keep[1:])
    assert np.array_equal(value[0, turns, hands], reference.value[0, turns, hands])
    assert np.array_equal(keep[0, turns, hands], reference.keep[0, turns, hands])
