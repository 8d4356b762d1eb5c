"""The lane planner gives bit for bit the turn optimizer's plans."""

from __future__ import annotations

import numpy as np
import pytest

from expected_scores.lanes import plan_many, plan_values
from expected_scores.turn import plan_turn
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


@pytest.mark.parametrize(("preset", "rolls", "with_pure"), [("yamb", 3, False), ("jamb6", 5, True),
                                                            ("yatzy", 2, False), ("jamb6", 1, True)])
def test_values_alone_are_the_turn_optimizers_bit_for_bit(preset: str, rolls: int, with_pure: bool) -> None:
    """``plan_values`` (the look-ahead's next turns: values, no keeps) gives the turn optimizer's
    values, to the bit, ties and non-finite options included."""
    dice = rules(preset).dice
    rng = np.random.default_rng(20 + rolls)
    options = rng.integers(-30, 30, (rolls, 9, dice.n_multisets)).astype(np.float64)  # integers: many ties
    options[rng.random(options.shape) < 0.2] = -np.inf
    pure = rng.integers(0, 40, options.shape).astype(np.float64) if with_pure else None
    reference = plan_turn(options, dice, rolls, pure=pure)
    lanes = np.ascontiguousarray(options.transpose(0, 2, 1))
    pure_lanes = np.zeros((0,) + lanes.shape[1:]) if pure is None else np.ascontiguousarray(pure.transpose(0, 2, 1))
    value = np.empty_like(lanes)
    plan_values(lanes, pure_lanes, dice.add_die, dice.remove_die, dice.outcome_prob[0], value,
                np.empty((dice.n_keeps, 9)), np.empty((dice.n_keeps, 9)))
    assert value.transpose(0, 2, 1).tobytes() == reference.value.tobytes()
