"""``best-values``: exact turn planning over a network's state values (one free column, Yatzy or Yahtzee).

A state at the start of a turn is the solver's (``expected_scores.solitaire``):
``mask``, the filled rows; ``upper``, the numbers sum capped at the bonus
threshold; ``y``, for Yahtzee, 1 when the ``yahtzee`` cell holds 50.
``ValueNet`` maps a state to the points still to come. Evaluated once on every
reachable state it gives a table shaped like ``SolitaireSolution.values``, and
the player is ``expected_scores.optimal_play.SolvedPlayer`` over that table:
each final multiset of a turn is worth its best fill's points plus the
network's value of the state it leads to, and the turn is planned exactly
(``expected_scores.turn.plan_turn``). The network is fitted to play
(``robo_players.neural.value_fit``), never to the solver's values.

A values file (``robo_players.neural.value_nets``) holds such a network or an
after-state one (its spec's ``kind``, ``robo_players.neural.afterstate_values``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import SolitaireSolution
from expected_scores.upper_sum import reachable_upper
from robo_players.computed import computed_once, rules_key
from robo_players.neural.afterstate_values import afterstate_player
from robo_players.neural.value_nets import AFTERSTATE, ValueNet, ValuesFileError, load_values, value_function
from yamb.layout import Layout
from yamb.rules import N_NUMBER_ROWS, Rules
from yamb.table import Table


def features(rules: Rules, mask: np.ndarray, upper: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n, F) float32: the filled rows' bits, the capped upper sum as a thermometer, what the bonus
    still needs, whether and by how much the open number rows can reach it, the open rows' share and ``y``."""
    mask, upper = np.asarray(mask, np.int64), np.asarray(upper, np.int64)
    threshold = rules.spec.bonus_threshold
    filled = (mask[:, None] >> np.arange(rules.n_rows)) & 1
    open_upper = 1 - filled[:, :N_NUMBER_ROWS]
    reach = upper + open_upper @ (rules.n_dice * np.arange(1, N_NUMBER_ROWS + 1))
    columns = [
        filled,
        upper[:, None] > np.arange(threshold),
        ((threshold - upper) / threshold)[:, None],
        (reach >= threshold)[:, None],
        (np.clip(reach - threshold, -threshold, threshold) / threshold)[:, None],
        (1 - filled.mean(axis=1))[:, None],
        np.asarray(y, np.int64)[:, None],
    ]
    return np.concatenate([np.asarray(c, np.float32) for c in columns], axis=1)


def reachable_states(rules: Rules, filled: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, upper, y) of every state that can occur before the table is full (with the rows
    ``filled`` filled)."""
    n_masks = 1 << rules.n_rows
    all_masks = np.arange(n_masks - 1)
    all_masks = all_masks[all_masks & filled == filled]
    masks, uppers = np.nonzero(reachable_upper(rules)[all_masks & ((1 << N_NUMBER_ROWS) - 1)])
    masks = all_masks[masks]
    y = np.zeros(len(masks), dtype=np.int64)
    if rules.has_jokers:
        with_y = (masks >> rules.row_index("yahtzee")) & 1 == 1
        masks, uppers = np.concatenate([masks, masks[with_y]]), np.concatenate([uppers, uppers[with_y]])
        y = np.concatenate([y, np.ones(int(with_y.sum()), dtype=np.int64)])
    return masks.astype(np.int64), uppers.astype(np.int64), y


def predict(net: ValueNet, rules: Rules, mask: np.ndarray, upper: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(n,) float64: the network's values of states."""
    return value_function(net)(features(rules, mask, upper, y))


def value_table(net: ValueNet, rules: Rules, filled: int = 0) -> np.ndarray:
    """The network's values in the shape of ``SolitaireSolution.values``: 0 on the full table, NaN
    where a state cannot occur (or lacks one of the rows ``filled``)."""
    values = np.full((1 << rules.n_rows, rules.spec.bonus_threshold + 1, 2 if rules.has_jokers else 1), np.nan)
    values[-1] = 0.0
    states = reachable_states(rules, filled)
    values[states] = predict(net, rules, *states)
    return values


def table_player(rules: Rules, values: np.ndarray, name: str) -> SolvedPlayer:
    """The player that plans each turn exactly over the state values ``values``."""
    player = SolvedPlayer(SolitaireSolution(rules=rules, values=values, seconds=0.0, states=0))
    player.name = name
    return player


def load_values_player(path: str | Path, layout: Layout) -> SolvedPlayer:
    """The player of the values file ``path``, for ``layout``'s table, or a precise error."""
    net, spec, _ = load_values(Path(path))
    if spec.kind == AFTERSTATE:
        return afterstate_player(net, spec, layout, Path(path).stem)
    table = Table.of(layout).solo
    if table != spec.table:
        raise ValuesFileError(f"{path}: a value network for one free column of {spec.preset}, "
                              f"not this table ({table.preset}, {','.join(table.columns)})")
    key = Path(path).read_bytes() + rules_key(layout.rules)  # the weights and the table
    values = computed_once("state-values", key, lambda: {"values": value_table(net, layout.rules)})["values"]
    return table_player(layout.rules, values, Path(path).stem)
