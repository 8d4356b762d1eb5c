"""Fitting a search-guided network to the returns of play: a step of policy iteration.

A guided network over a base search (``expectimax`` or the exact column
values, ``robo_players.neural.guided``) adds ``d(table)[cell]`` to the value the
search gives filling ``cell``; with ``d`` the expected rest of the game after
the fill less what the search already counts for it, the search's choice of
cell is the one of the highest expected final score. ``record`` plays games
with a policy and keeps, at every fill, the table's features, the cell, and
the *return* ``y``: the points scored from that fill to the end of the game
less the base search's value of the fill (``robo_players.search.explain.fill_values``).
``fit`` trains the network's value outputs to ``E[y | table, cell]`` by least
squares on the cells played, with a shared baseline ``h(table)`` that takes
what is common to every cell of a table (the rest of the game's mean), so
a cell seldom played keeps a correction near zero: the base search's value.

Played greedily, the fitted network improves on the policy that recorded the
games when the fit is good (policy iteration); ``rounds`` repeat it with the
new player recording. The weight outputs stay 0: the fitted player values a
fill as the base search does, plus ``d``.

A return carries the luck of every later turn (its spread given the table is
75 to 85 points on yamb), which limits a fit to few games. With ``td_lambda``
below 1 a first fit's expected return of each later fill replaces part of that
luck: the TD(lambda) return of the fill (Sutton and Barto, ch. 12), to which a
second network is fitted (on jamb6 it helped a fit to 60,000 games, not one
to 150,000: docs/results.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch
from numba import njit
from torch import nn

from robo_players.base import Player
from robo_players.neural.build import network_player
from robo_players.neural.features import encode, score_scale
from robo_players.neural.guided import base_search, feature_cell_values
from robo_players.neural.networks import CellValueNet, NetSpec
from robo_players.neural.population import genome_of
from robo_players.search.expectimax import ExpectimaxPlayer
from robo_players.search.explain import fill_values
from robo_players.training.descent import descend
from robo_players.training.imitation import training_split
from robo_players.training.rows import Rows
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb.layout import Layout


@dataclass
class Returns(Rows):
    """Fills of recorded games, one row each: the table's features, the cell, the return."""

    features: np.ndarray  # (n, F) float32, table features (``features.encode`` without dice)
    fills: np.ndarray  # (n,) int64 cell filled
    target: np.ndarray  # (n,) float64 points from the fill to the end less the base search's value of it
    game: np.ndarray  # (n,) int64 game (its dice stream)
    turn: np.ndarray  # (n,) int64 cells filled before the fill
    base: np.ndarray  # (n,) float64 the base search's value of the fill


def record(policy: Player, base: ExpectimaxPlayer, batch: GameBatch, cell_values: np.ndarray,
           first_game: int = 0) -> tuple[Returns, np.ndarray]:
    """Play the solitaire ``batch`` to the end with ``policy``; at each fill keep the features
    (with ``cell_values``, (CR,)), the cell and the return against ``base``'s value of the fill.
    Returns them and the final scores."""
    lay = batch.layout
    if lay.players != 1:
        raise YambError("returns are recorded from solitaire games")
    values = np.asarray(cell_values, dtype=np.float32)[None]
    parts: list[tuple[np.ndarray, ...]] = []
    while not batch.done.all():
        active = np.flatnonzero(~batch.done)
        actions = np.asarray(policy.act(batch, active), dtype=np.int64)
        fill = actions < lay.n_cells
        if fill.any():
            games, cells = active[fill], actions[fill]
            parts.append((encode(batch, games, values, False), cells, fill_values(base, batch, games, cells),
                          batch.scores()[games, 0].astype(np.float64), games, batch.turn[games].astype(np.int64)))
        batch.step(actions, active)
    final = batch.scores()[:, 0].astype(np.float64)
    features, cells, base_values, before, games, turn = (np.concatenate(c) for c in zip(*parts))
    target = final[games] - before - base_values
    return Returns(features, cells, target, games + first_game, turn, base_values), final


@dataclass(frozen=True)
class FitSettings:
    """Adam on minibatches, the rate decayed by cosine to zero over ``epochs``; ``decay`` is an L2
    penalty on the value outputs' weights (what keeps an unplayed cell's correction small)."""

    epochs: int = 8
    batch_size: int = 1024
    learning_rate: float = 2e-3
    decay: float = 1e-4
    validation: float = 0.1
    seed: int = 0
    td_lambda: float = 1.0  # 1: the returns as recorded (Monte Carlo); below 1: refit to TD(lambda) returns


class _Fitted(nn.Module):
    """A ``CellValueNet`` and a shared baseline head on its last hidden layer."""

    def __init__(self, net: CellValueNet) -> None:
        super().__init__()
        self.net = net
        self.hidden = net.body[:-1]
        self.out = net.body[-1]
        self.baseline = nn.Linear(self.out.in_features, 1)
        self.n_cells = net.n_outputs // 2
        with torch.no_grad():
            self.out.weight.zero_()
            self.out.bias.zero_()

    def forward(self, x: torch.Tensor, fills: torch.Tensor) -> torch.Tensor:
        """The predicted return of each row's fill: the baseline plus the fill's value output."""
        h = self.hidden(x)
        d = self.out(h)[:, : self.n_cells].gather(1, fills[:, None])[:, 0]
        return self.baseline(h)[:, 0] + d


def fit(spec: NetSpec, returns: Returns, settings: FitSettings,
        progress: Callable[[int, float, float], None] | None = None,
        predictions: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The genome of a ``spec`` network whose value outputs (over ``score_scale``) fit ``returns``,
    and with ``predictions`` the fitted return of every row (points; else None);
    ``progress(epoch, train_mse, val_mse)`` in points squared."""
    if spec.kind != "guided":
        raise YambError("returns are fitted by a guided network")
    torch.manual_seed(settings.seed)
    net = spec.build()
    model = _Fitted(net)
    scale = score_scale(spec.layout())
    train_rows, val_rows = training_split(returns, settings.validation, settings.seed, stream=2)
    x = torch.from_numpy(returns.features)
    fills = torch.from_numpy(returns.fills)
    turn_mean = np.zeros(int(returns.turn.max(initial=0)) + 1)  # the mean return of each turn, taken out first
    np.add.at(turn_mean, returns.turn[train_rows], returns.target[train_rows])
    turn_mean /= np.maximum(np.bincount(returns.turn[train_rows], minlength=len(turn_mean)), 1)
    y = torch.from_numpy(((returns.target - turn_mean[returns.turn]) / scale).astype(np.float32))
    value_weights = [model.out.weight]
    others = [p for p in model.parameters() if p is not model.out.weight]
    optimizer = torch.optim.Adam([{"params": others}, {"params": value_weights, "weight_decay": settings.decay}],
                                 lr=settings.learning_rate)
    steps = settings.epochs * -(-len(train_rows) // settings.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, max(steps, 1))
    rng = np.random.default_rng([settings.seed, 3])

    def mse(rows: np.ndarray) -> float:
        with torch.no_grad():
            pred = model(x[rows], fills[rows])
            return float(((pred - y[rows]) ** 2).mean()) * scale**2 if len(rows) else float("nan")

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        index = torch.from_numpy(rows)
        return ((model(x[index], fills[index]) - y[index]) ** 2).mean()

    for epoch in range(1, settings.epochs + 1):
        descend(loss_of, rng.permutation(train_rows), settings.batch_size, optimizer, schedule)
        if progress is not None:
            progress(epoch, mse(train_rows[:200_000]), mse(val_rows))
    with torch.no_grad():
        model.out.weight[model.n_cells :].zero_()
        model.out.bias[model.n_cells :].zero_()
    genome = genome_of(net)
    if not predictions:
        return genome, None
    with torch.no_grad():
        predicted = np.concatenate([model(x[i : i + 200_000], fills[i : i + 200_000]).numpy()
                                    for i in range(0, len(returns), 200_000)] or [np.zeros(0, np.float32)])
    return genome, predicted.astype(np.float64) * scale + turn_mean[returns.turn]


@njit(cache=True)
def _lambda_corrections(target, predicted, game, lam):
    """Along each game's rows (in turn order): ``c[t] = (1 - lam)(predicted[t+1] - target[t+1])
    + lam c[t+1]``, 0 at a game's last row."""
    out = np.zeros_like(target)
    for t in range(len(target) - 2, -1, -1):
        if game[t + 1] == game[t]:
            out[t] = (1 - lam) * (predicted[t + 1] - target[t + 1]) + lam * out[t + 1]
    return out


def lambda_returns(returns: Returns, predicted: np.ndarray, lam: float) -> np.ndarray:
    """The TD(lambda) return of each row, ``predicted`` (each row's expected return, a fit's) standing
    in for the later rows' returns: with ``d[t] = target[t] - target[t+1]`` (the points of fill
    ``t`` and the base search's change of value until the next fill, one turn's luck),
    ``G[t] = d[t] + (1 - lam) predicted[t+1] + lam G[t+1]``. ``lam = 1`` gives the recorded
    returns, ``lam = 0`` one turn and then the fit."""
    order = np.lexsort((returns.turn, returns.game))
    out = np.empty(len(returns))
    out[order] = returns.target[order] + _lambda_corrections(
        returns.target[order], np.asarray(predicted, dtype=np.float64)[order], returns.game[order], float(lam))
    return out


RECORD_BATCH = 5000  # games recorded at once


RECORD, FIT = 11, 12  # purposes of derived seeds


def round_seed(seed: int, r: int, purpose: int = RECORD) -> int:
    """The seed of round ``r``'s recorded games (its fit's with ``FIT``; the check's games: ``r = -1``)."""
    return int(np.random.SeedSequence([seed, purpose, r + 1]).generate_state(1, dtype=np.uint64)[0])


@dataclass(frozen=True)
class Round:
    """A round of ``improve``: who recorded, their mean score, and the fit's last errors."""

    policy: str
    mean: float
    rows: int
    train_mse: float
    val_mse: float


def record_round(policy: Player, base: ExpectimaxPlayer, lay: Layout, games: int, seed: int,
                 cell_values: np.ndarray, advance: Callable[[int], None] | None = None) -> tuple[Returns, float]:
    """``games`` solitaire games of ``policy`` on ``lay`` under dice ``seed``, ``RECORD_BATCH`` at a
    time (``record``); the returns and the mean final score."""
    parts, finals = [], []
    for first in range(0, games, RECORD_BATCH):
        n = min(RECORD_BATCH, games - first)
        batch = GameBatch(lay, n, seed=seed, streams=np.arange(first, first + n, dtype=np.uint64))
        part, final = record(policy, base, batch, cell_values, first)
        parts.append(part)
        finals.append(final)
        if advance is not None:
            advance(n)
    return Returns.concatenate(parts), float(np.concatenate(finals).mean())


def improve(
    spec: NetSpec,
    start: Player,
    games: int,
    rounds: int,
    settings: FitSettings,
    say: Callable[[str], None] = lambda text: None,
    advance: Callable[[int], None] | None = None,
    done: int = 0,
    round_done: Callable[[int, np.ndarray], None] | None = None,
) -> tuple[np.ndarray | None, np.ndarray, list[Round]]:
    """``rounds`` of policy iteration from ``start``: ``games`` games recorded by the policy, a
    fresh ``spec`` network fitted to their returns, which is the next round's policy. Returns the
    last genome (None if no round was left), the cell values its features read (each cell's
    expected score, as generation 0 of an evolution run has them) and the rounds. With ``done``
    rounds already finished, ``start`` is the last one's ``network_player`` and round ``done + 1``
    comes next, as in an unbroken run; ``round_done(r, genome)`` follows each round."""
    lay = spec.layout()
    base = base_search(lay, spec.played, spec.exact, spec.bonus)
    cell_values = feature_cell_values(lay)
    policy, genome = start, None
    history: list[Round] = []
    for r in range(done, rounds):
        say(f"round {r + 1}/{rounds}: {games:,} games played by {policy.name}")
        returns, mean = record_round(policy, base, lay, games, round_seed(settings.seed, r), cell_values, advance)
        say(f"{policy.name}: mean {mean:.2f} over {games:,} games, {len(returns):,} fills")
        errors: list[tuple[float, float]] = []

        def epoch_done(epoch: int, train_mse: float, val_mse: float) -> None:
            errors.append((train_mse, val_mse))
            say(f"epoch {epoch:>3}/{settings.epochs}  mean squared error: train {train_mse:,.1f}, "
                f"validation {val_mse:,.1f} (points squared)")

        fit_settings = replace(settings, seed=round_seed(settings.seed, r, FIT))
        refit = settings.td_lambda < 1
        genome, predicted = fit(spec, returns, fit_settings, epoch_done, predictions=refit)
        if refit:
            say(f"refit to TD(lambda = {settings.td_lambda:g}) returns")
            returns = replace(returns, target=lambda_returns(returns, predicted, settings.td_lambda))
            genome, _ = fit(spec, returns, fit_settings, epoch_done)
        history.append(Round(policy.name, mean, len(returns), *errors[-1]))
        policy = network_player(spec, genome, cell_values, f"fitted-{r + 1}")
        if round_done is not None:
            round_done(r + 1, genome)
    return genome, cell_values, history
