"""The outcomes of a keep: the exact chance of each pattern the open rows score, after the rolls left.

A pattern is a row that scores only some hands (a straight, a full house, four of a kind, a
yamb or Yatzy...): the hands it scores above 0 in ``Rules.scores``. Number rows, and rows that
score every hand (chance, max, min), are no patterns. For the dice kept and the rolls left
(this roll included), by enumeration over every roll:

- ``next_roll``: the chance of each pattern right after this roll;
- ``by_end``: the chance of making it by the turn's last roll, the later keeps chosen to chase
  that pattern alone (the turn optimizer's plan for it, ``expected_scores.turn``);
- ``classes``: this roll's hands split by the rarest pattern each one makes (``none``: none),
  chances that add up to 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from expected_scores.turn import plan_turn
from yamb.dice import counts_of
from yamb.errors import InvalidDiceError
from yamb.rules import N_NUMBER_ROWS, Rules

NONE = "none"


@dataclass
class KeepOutcomes:
    """The chances of each pattern after a keep (see the module)."""

    kept: list[int]
    rolls_left: int
    next_roll: dict[str, float]
    by_end: dict[str, float]
    classes: dict[str, float]


def pattern_rows(rules: Rules, rows: list[str] | None = None) -> list[int]:
    """The rows of ``rules`` (of ``rows``, default all) that are patterns, rarest on a fresh roll first."""
    wanted = rules.rows if rows is None else rows
    scored = rules.scores > 0
    chosen = [r for r in range(N_NUMBER_ROWS, rules.n_rows)
              if rules.rows[r] in wanted and 0 < scored[:, r].sum() < len(scored)]
    fresh = rules.dice.outcome_prob[0]
    return sorted(chosen, key=lambda r: (float(fresh @ scored[:, r]), r))


def keep_outcomes(rules: Rules, kept: list[int] | tuple[int, ...], rolls_left: int,
                  rows: list[str] | None = None) -> KeepOutcomes:
    """The chances of the patterns among ``rows`` (default every row) after keeping ``kept`` with
    ``rolls_left`` rolls left in the turn, this one included (1 or more)."""
    if rolls_left < 1:
        raise InvalidDiceError(f"a keep needs a roll left, not {rolls_left}")
    if len(kept) >= rules.n_dice:
        raise InvalidDiceError(f"a keep holds fewer than {rules.n_dice} dice, not {len(kept)}")
    if any(not 1 <= d <= 6 for d in kept):
        raise InvalidDiceError(f"dice show 1 to 6, not {list(kept)}")
    dice = rules.dice
    keep = int(dice.keep_index(np.array(counts_of(tuple(kept)))))
    roll = dice.outcome_prob[keep]
    patterns = pattern_rows(rules, rows)
    scored = (rules.scores[:, patterns] > 0).astype(np.float64)  # (M, P)
    names = [rules.rows[r] for r in patterns]
    by_end = roll @ scored
    if rolls_left > 1 and patterns:
        plan = plan_turn(scored.T, dice, rolls=rolls_left)
        by_end = plan.value[0] @ roll
    rarest = np.full(dice.n_multisets, len(patterns))
    for j in range(len(patterns) - 1, -1, -1):
        rarest[scored[:, j] > 0] = j
    classes = np.bincount(rarest, weights=roll, minlength=len(patterns) + 1)
    return KeepOutcomes(
        kept=sorted(int(d) for d in kept), rolls_left=rolls_left,
        next_roll={n: float(p) for n, p in zip(names, roll @ scored)},
        by_end={n: float(p) for n, p in zip(names, by_end)},
        classes={n: float(p) for n, p in zip([*names, NONE], classes)})
