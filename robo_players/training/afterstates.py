"""Fitting an after-state network (``robo_players.neural.afterstate_values``) to the returns of play.

``U``, the network of an ending's table, is fitted to the returns of play (policy iteration, as ``yamb fit`` fits
a guided network): a policy plays games; at each turn's start ``T_s`` the base
values of this and every later fill sum to ``final - E(T_s)`` (the base's
values telescope: a full table's estimate is its score), the target of
``U(T_s)``; the fitted player records the next round. Only the base search,
the rules and the games go in: never the whole game's solution (the base
search values the columns of the kinds in ``exact`` with their exact one-column solutions).

Those targets carry the luck of every later turn (a spread of about 80 points),
which swamps the few points between the tables a turn may leave. So the first
fit's values then stand in for later turns' luck: the network is fitted again
to TD(lambda) returns (``returns.lambda_returns``: this turn's fill value, then
``(1 - lambda)`` of the fit's value of the next table and ``lambda`` of that
table's own return), ``refits`` times, each from the previous fit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import torch

from robo_players.base import Player
from robo_players.neural.afterstate_values import afterstate_player
from robo_players.neural.guided import base_search, feature_cell_values
from robo_players.neural.value_nets import ValueNet, ValueSpec, value_function
from robo_players.training.descent import descend
from robo_players.training.imitation import TrainSettings, training_split
from robo_players.training.returns import FIT, Returns, lambda_returns, record_round, round_seed

CHUNK = 1 << 16  # rows per forward pass when the error is measured


def afterstate_targets(returns: Returns) -> np.ndarray:
    """(n,): for each recorded fill, the base values of it and of its game's later fills summed:
    ``final - E`` of the table at the start of its turn."""
    order = np.lexsort((-returns.turn, returns.game))  # each game's fills, last first
    out = np.empty(len(returns))
    game, base = returns.game[order], returns.base[order]
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    sums = np.cumsum(base)
    before = np.repeat(np.r_[0.0, sums[starts[1:] - 1]], np.diff(np.r_[starts, len(base)]))
    out[order] = sums - before
    return out


def afterstate_lambda_targets(returns: Returns, predicted: np.ndarray, lam: float) -> np.ndarray:
    """(n,): the TD(``lam``) return of each recorded turn's start, ``predicted`` (a fit's values of
    the rows) standing in for later turns': this turn's base fill value, then ``(1 - lam)`` of the
    next row's prediction and ``lam`` of its return; a game's last turn ends at its fill value."""
    return lambda_returns(replace(returns, target=afterstate_targets(returns)), predicted, lam)


def fit_afterstates(spec: ValueSpec, returns: Returns, targets: np.ndarray, settings: TrainSettings,
                    epoch_done: Callable[[int, float, float], None] = lambda epoch, train, val: None) -> ValueNet:
    """A fresh network of ``spec`` fitted to ``targets`` (a row of ``returns`` each), its games
    split for validation."""
    torch.manual_seed(settings.seed)
    net = spec.build()
    train, held = training_split(returns, settings.validation, settings.seed)
    x, y = torch.from_numpy(returns.features), torch.from_numpy(targets.astype(np.float32))
    with torch.no_grad():
        net.layers[-1].bias.fill_(float(y[train].mean()) / net.scale)
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    steps = max(1, settings.epochs * -(-len(train) // settings.batch_size))
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    generator = torch.Generator().manual_seed(settings.seed)

    def mse(rows: np.ndarray) -> float:
        if not len(rows):
            return float("nan")
        with torch.no_grad():  # in chunks: millions of rows at once would hold gigabytes of activations
            parts = np.array_split(rows, -(-len(rows) // CHUNK))
            return sum(float(((net(x[part]) - y[part]) ** 2).sum()) for part in parts) / len(rows)

    for epoch in range(settings.epochs):
        order = torch.from_numpy(train)[torch.randperm(len(train), generator=generator)]
        descend(lambda rows: ((net(x[rows]) - y[rows]) ** 2).mean(), order, settings.batch_size, optimizer, schedule)
        epoch_done(epoch + 1, mse(train), mse(held))
    net.eval()
    return net


def improve_afterstates(spec: ValueSpec, start: Player, games: int, rounds: int, settings: TrainSettings,
                        td_lambda: float = 1.0, refits: int = 0,
                        say: Callable[[str], None] = lambda text: None,
                        advance: Callable[[int], None] | None = None, done: int = 0,
                        round_done: Callable[[int, ValueNet], None] | None = None) -> ValueNet | None:
    """``rounds`` of policy iteration from ``start``: ``games`` games recorded by the policy, a
    fresh network fitted to their after-state targets and then ``refits`` times to the TD(``td_lambda``)
    returns of the previous fit's values; its player records the next round. Returns the last
    network (None if no round was left). With ``done`` rounds already finished, ``start`` is the
    last one's ``afterstate_player`` (named ``fitted-<done>``) and round ``done + 1`` comes next, as
    in an unbroken run; ``round_done(r, net)`` follows each round."""
    lay = spec.layout()
    base = base_search(lay, spec.played, spec.exact)
    values = feature_cell_values(lay)
    policy, net = start, None
    for r in range(done, rounds):
        say(f"round {r + 1}/{rounds}: {games:,} games played by {policy.name}")
        returns, mean = record_round(policy, base, lay, games, round_seed(settings.seed, r), values, advance)
        say(f"{policy.name}: mean {mean:.2f} over {games:,} games, {len(returns):,} turns")

        def epoch_done(epoch: int, train: float, held: float) -> None:
            say(f"epoch {epoch:>3}/{settings.epochs}  root mean squared error: train {train ** 0.5:.2f}, "
                f"validation {held ** 0.5:.2f} (points)")

        fit_settings = replace(settings, seed=round_seed(settings.seed, r, FIT))
        net = fit_afterstates(spec, returns, afterstate_targets(returns), fit_settings, epoch_done)
        for k in range(refits):
            say(f"refit {k + 1}/{refits} to TD(lambda = {td_lambda:g}) returns")
            targets = afterstate_lambda_targets(returns, value_function(net)(returns.features), td_lambda)
            net = fit_afterstates(spec, returns, targets, fit_settings, epoch_done)
        policy = afterstate_player(net, spec, lay, f"fitted-{r + 1}")
        if round_done is not None:
            round_done(r + 1, net)
    return net
