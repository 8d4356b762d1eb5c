"""The minibatch loop every fit runs (``robo_players.training.descent``)."""

import numpy as np
import pytest
import torch

from robo_players.training.descent import descend
from yamb.errors import YambError

X = torch.arange(10, dtype=torch.float32)
Y = 3 * X + 1


def _line(w: float) -> tuple[torch.nn.Parameter, torch.nn.Parameter]:
    return torch.nn.Parameter(torch.tensor(w)), torch.nn.Parameter(torch.tensor(0.0))


def test_an_epoch_visits_every_row_once_and_returns_their_mean_loss() -> None:
    w, b = _line(2.0)
    seen: list[int] = []

    def loss_of(rows: np.ndarray) -> torch.Tensor:
        seen.extend(rows.tolist())
        return ((w * X[rows] + b - Y[rows]) ** 2).mean()

    order = np.array([7, 2, 9, 0, 4, 1, 8, 3, 6, 5])
    mean = descend(loss_of, order, 4, torch.optim.SGD([w, b], lr=0.0))  # batches of 4, 4, 2; nothing moves
    assert seen == order.tolist()
    assert mean == pytest.approx(float(((2 * X - Y) ** 2).mean()))  # (x + 1)^2 by hand, over every row


def test_descent_fits_a_line() -> None:
    w, b = _line(0.0)
    optimizer, generator = torch.optim.Adam([w, b], lr=0.1), torch.Generator().manual_seed(0)
    losses = [descend(lambda rows: ((w * X[rows] + b - Y[rows]) ** 2).mean(), torch.randperm(10, generator=generator), 5,
                      optimizer) for _ in range(400)]
    assert losses[-1] < 1e-3 * losses[0]
    assert w.item() == pytest.approx(3, abs=0.02) and b.item() == pytest.approx(1, abs=0.1)


def test_a_loss_that_is_not_finite_stops_the_fit_naming_the_learning_rate() -> None:
    w, b = _line(float("nan"))
    with pytest.raises(YambError, match=r"^training diverged: the loss is not finite \(lower the learning rate, now 0.25\)$"):
        descend(lambda rows: ((w * X[rows] + b - Y[rows]) ** 2).mean(), np.arange(10), 10, torch.optim.SGD([w, b], lr=0.25))


def test_weights_a_step_made_infinite_stop_the_fit() -> None:
    w, b = _line(1.0)  # the loss is finite, its gradient times the rate overflows float32
    with pytest.raises(YambError, match="training diverged: the weights are not finite"):
        descend(lambda rows: ((w * X[rows] + b - Y[rows]) ** 2).mean(), np.arange(10), 10, torch.optim.SGD([w, b], lr=1e38))
