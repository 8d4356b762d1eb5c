"""Fit a state-value network to play (fitted value iteration): no solver, no exact values.

Each round::

    table   = the network on every state                (state_values.value_table)
    states  = turn starts met playing ``games`` games over ``table``,
              a share ``explore`` of fills made at random among the allowed rows
    buffer  = the last ``memory`` rounds' states
    target  = each buffer state's exact one-turn expectation over ``table``
              (the best fill's points plus the next state's value, planned by plan_turn)
    fit the network to the targets (least squares, Adam)

The turn's exact expectation stands in for the luck of the turn (TD(0) with a
full one-turn backup); values travel one turn back per round. It needs only the
rules and the engine, so it works on any table whose turns plan exactly.
Deterministic for a seed (and a torch thread count).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import SolitaireSolution
from expected_scores.turn import plan_turn
from robo_players.base import play
from robo_players.neural.state_values import features, table_player, value_table
from robo_players.neural.value_nets import ValueNet, ValueSpec
from robo_players.training.descent import descend
from yamb.engine import GameBatch
from yamb.layout import Layout
from yamb.layout import layout as make_layout
from yamb.rules import Rules

BACKUP_CHUNK = 20_000


@dataclass(frozen=True)
class FitSettings:
    """The fit's knobs."""

    rounds: int = 40
    games: int = 2000  # played per round
    explore: float = 0.1  # share of fills made at random
    memory: int = 4  # rounds of states kept
    epochs: int = 4  # passes over the buffer per round
    batch: int = 512
    lr: float = 1e-3
    final_lr: float = 1e-4  # the learning rate decays geometrically to this by the last round
    seed: int = 0


@dataclass(frozen=True)
class Round:
    """What one round saw: the network's start value, the mean score of its games, the fit's loss."""

    round: int
    start_value: float
    mean_score: float
    loss: float
    states: int
    seconds: float


class ExploringPlayer:
    """Plays over a value table, filling a random allowed row on a share ``explore`` of its fills;
    records the state at every turn start."""

    name = "exploring"

    def __init__(self, rules: Rules, values: np.ndarray, explore: float, rng: np.random.Generator) -> None:
        self.player: SolvedPlayer = table_player(rules, values, "values")
        self.explore, self.rng = explore, rng
        self.states: list[tuple[np.ndarray, ...]] = []

    def act(self, batch: GameBatch, games: np.ndarray) -> np.ndarray:
        sol = self.player.solution
        state = sol.state_of(batch, games)
        first = batch.roll[games] == 1
        self.states.append(tuple(part[first] for part in state))
        actions = self.player.act(batch, games)
        filling = np.flatnonzero((actions < batch.layout.n_cells) & (self.rng.random(len(games)) < self.explore))
        if len(filling):
            sub = tuple(part[filling] for part in state)
            allowed = np.isfinite(sol.fill_values(*sub, batch.dice[games[filling]].astype(np.int64)))
            pick = self.rng.random(len(filling)) * allowed.sum(axis=1)
            actions[filling] = np.argmax(np.cumsum(allowed, axis=1) > pick[:, None], axis=1)  # column 0
        return actions

    def visited(self) -> np.ndarray:
        """(3, n): the turn starts recorded so far."""
        return np.array([np.concatenate([s[k] for s in self.states]) for k in range(3)])


def backup(rules: Rules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    """(n,): each state's exact one-turn expectation over ``values`` (points of the turn plus the next state's value)."""
    sol = SolitaireSolution(rules=rules, values=values, seconds=0.0, states=0)
    unique, back = np.unique(states, axis=1, return_inverse=True)
    out = np.empty(unique.shape[1])
    for start in range(0, len(out), BACKUP_CHUNK):
        part = unique[:, start : start + BACKUP_CHUNK]
        out[start : start + BACKUP_CHUNK] = plan_turn(sol.turn_options(*part), rules.dice, rules.rolls).start
    return out[back.ravel()]


def play_round(layout: Layout, values: np.ndarray, games: int, explore: float, seed: int,
               filled: int = 0) -> tuple[np.ndarray, float]:
    """The turn starts of ``games`` games over ``values`` and their mean final score; with ``filled``
    (a row bitmask) the games start with those rows filled with 0 (an endgame)."""
    player = ExploringPlayer(layout.rules, values, explore, np.random.default_rng(seed))
    batch = GameBatch(layout, games, seed=seed)
    batch.filled[:, 0, 0] = filled
    batch.turn[:] = filled.bit_count()
    scores = play(batch, [player], check=False)[:, 0]
    return player.visited(), float(scores.mean())


def train(net: ValueNet, rules: Rules, states: np.ndarray, targets: np.ndarray, epochs: int, batch: int,
          lr: float, rng: np.random.Generator) -> float:
    """Least squares of ``net`` on (states, targets); the last epoch's mean squared error."""
    x = torch.from_numpy(features(rules, *states))
    t = torch.from_numpy(targets.astype(np.float32))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss = float("nan")
    for _ in range(epochs):
        order = torch.from_numpy(rng.permutation(len(t)))
        loss = descend(lambda idx: torch.mean((net(x[idx]) - t[idx]) ** 2), order, batch, opt)
    return loss


@dataclass
class FitState:
    """What a fit carries from round to round: the network, the generator of its minibatch orders
    (its state) and the turn starts of the last rounds."""

    net: ValueNet
    rng: dict
    buffer: list[np.ndarray]


def fit_values(spec: ValueSpec, settings: FitSettings, net: ValueNet | None = None, filled: int = 0,
               progress: Callable[[Round], None] | None = None, done: int = 0, state: FitState | None = None,
               round_done: Callable[[int, FitState], None] | None = None) -> tuple[ValueNet, list[Round]]:
    """Fit a value network for ``spec``'s table by fitted value iteration on its own play (from the
    endgame where the rows ``filled`` hold 0, when given). With ``done`` rounds finished before,
    ``state`` is what they left and round ``done + 1`` comes next, as in an unbroken fit;
    ``round_done(k, state)`` follows each round ``k`` (from 1)."""
    rules = spec.rules()
    layout = make_layout(rules, ["free"])
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    net = spec.build() if net is None else net
    buffer: list[np.ndarray] = []
    if state is not None:
        net, buffer = state.net, list(state.buffer)
        rng.bit_generator.state = state.rng
    rounds: list[Round] = []
    decay = (settings.final_lr / settings.lr) ** (1 / max(1, settings.rounds - 1))
    for k in range(done, settings.rounds):
        start = time.perf_counter()
        values = value_table(net, rules, filled)
        states, mean_score = play_round(layout, values, settings.games, settings.explore,
                                        (settings.seed * 1_000_003 + k) % 2**64, filled)
        buffer = (buffer + [states])[-settings.memory :]
        memory = np.concatenate(buffer, axis=1)
        targets = backup(rules, values, memory)
        loss = train(net, rules, memory, targets, settings.epochs, settings.batch, settings.lr * decay**k, rng)
        rounds.append(Round(k, float(values[filled, 0, 0]), mean_score, loss, memory.shape[1],
                            time.perf_counter() - start))
        if progress is not None:
            progress(rounds[-1])
        if round_done is not None:
            round_done(k + 1, FitState(net, rng.bit_generator.state, buffer))
    return net, rounds
