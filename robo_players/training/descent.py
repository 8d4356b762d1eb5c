"""One epoch of minibatch gradient descent, the loop every fit of a network runs.

``yamb imitate`` (cross-entropy), ``yamb fit``, ``fit-values`` and
``fit-afterstates`` (least squares) differ in their loss, their optimizer and
how they order the rows; each epoch then walks the order in minibatches the
same way, here. A loss or weights that stop being finite end the fit with a
``YambError`` naming the learning rate, before a broken network is written.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from yamb.errors import YambError

Order = np.ndarray | torch.Tensor  # the epoch's rows (indices), in the order they are visited


def descend(loss_of: Callable[[Order], torch.Tensor], order: Order, batch_size: int,
            optimizer: torch.optim.Optimizer, schedule: torch.optim.lr_scheduler.LRScheduler | None = None) -> float:
    """A step of ``optimizer`` (and of ``schedule``) on ``loss_of(rows)``, the mean loss of
    ``rows``, for each ``batch_size`` rows of ``order``; the epoch's mean loss over its rows."""
    total = 0.0
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        loss = loss_of(rows)
        if not torch.isfinite(loss):
            _diverged("the loss is", optimizer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if schedule is not None:
            schedule.step()
        total += float(loss.detach()) * len(rows)
    if not all(torch.isfinite(p).all() for group in optimizer.param_groups for p in group["params"]):
        _diverged("the weights are", optimizer)
    return total / max(len(order), 1)


def _diverged(what: str, optimizer: torch.optim.Optimizer) -> None:
    rate = optimizer.param_groups[0].get("initial_lr", optimizer.param_groups[0]["lr"])
    raise YambError(f"training diverged: {what} not finite (lower the learning rate, now {rate:g})")
