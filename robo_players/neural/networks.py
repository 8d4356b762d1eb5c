"""The networks of the neural players, as ``nn.Module``s, and their picklable description.

Both kinds read the features of ``robo_players.neural.features``; the
per-cell values that stand in for open cells there (``cell_values``) belong to
the player, not to the network.

- ``DirectPolicyNet`` (kind ``direct``): table, dice and roll features to one
  score per fill, per announcement, for rolling again, and a keep table
  ``keep[f, k]``: the worth of keeping ``k`` dice of face ``f``.
- ``CellValueNet`` (kind ``guided``): table features to a correction of each
  cell's value and of the weight on its score, used by the exact turn
  optimizer (``robo_players.neural.guided``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from robo_players.neural.features import dice_size, table_size
from robo_players.neural.kinds import KINDS
from robo_players.search.cell_values import BONUS_MODELS
from robo_players.search.column_exact import EXACT_KINDS
from yamb.dice import FACES
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.table import Table

DEFAULT_HIDDEN = (32,)
DIRECT_OUTPUT_SCALE = 0.1  # initial output weights are this small: play starts near "gain" greedy


@dataclass(frozen=True)
class NetSpec:
    """Everything needed to rebuild a network: its kind, its table, its hidden layer sizes and,
    for a ``guided`` network, the ``played`` blend of the row expectations it searches with
    (``robo_players.search.row_means``; 0 for files written before it existed), how it reckons the
    chance of the numbers bonus, ``normal`` or ``exact`` (``normal`` for older files), and the
    column kinds whose cells it values by their exact single-column change before its own
    correction (``robo_players.search.column_exact``; none for older files)."""

    kind: str
    preset: str
    columns: tuple[str, ...]
    dice: int
    joker: str | None
    hidden: tuple[int, ...] = DEFAULT_HIDDEN
    played: float = 0.0
    bonus: str = "normal"
    exact: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise YambError(f"unknown neural player kind {self.kind!r}; choose from {', '.join(KINDS)}")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise YambError(f"hidden layer sizes must be positive integers, not {list(self.hidden)}")
        if not 0.0 <= self.played <= 1.0:
            raise YambError(f"played must lie between 0 and 1, not {self.played}")
        if self.bonus not in BONUS_MODELS:
            raise YambError(f"bonus must be one of {', '.join(BONUS_MODELS)}, not {self.bonus!r}")
        if self.exact and self.kind != "guided" or not set(self.exact) <= set(EXACT_KINDS):
            raise YambError(f"exact lists column kinds of a guided network among {', '.join(EXACT_KINDS)}, "
                            f"not {list(self.exact)}")

    @classmethod
    def for_layout(cls, kind: str, lay: Layout, hidden: tuple[int, ...] = DEFAULT_HIDDEN,
                   played: float = 0.0, bonus: str = "normal", exact: tuple[str, ...] = ()) -> NetSpec:
        t = Table.of(lay).solo
        return cls(kind, t.preset, t.columns, t.dice, t.joker, tuple(int(h) for h in hidden), float(played), bonus,
                   tuple(exact))

    @classmethod
    def from_dict(cls, data: dict) -> NetSpec:
        return cls(
            kind=data["kind"], preset=data["preset"], columns=tuple(data["columns"]),
            dice=int(data["dice"]), joker=data["joker"], hidden=tuple(int(h) for h in data["hidden"]),
            played=float(data.get("played", 0.0)), bonus=str(data.get("bonus", "normal")),
            exact=tuple(str(k) for k in data.get("exact", ())),
        )

    def to_dict(self) -> dict:
        """The spec as plain data (``exact`` only when set: older files' specs stay as they were)."""
        out = asdict(self)
        out.update(columns=list(self.columns), hidden=list(self.hidden), exact=list(self.exact))
        if not self.exact:
            del out["exact"]
        return out

    @property
    def table(self) -> Table:
        """The table the network plays."""
        return Table(self.preset, self.dice, self.joker, self.columns)

    def layout(self) -> Layout:
        return self.table.layout

    def build(self) -> DirectPolicyNet | CellValueNet:
        """A fresh network of this spec (weights from ``initial_genome`` are loaded separately)."""
        net_class = DirectPolicyNet if self.kind == "direct" else CellValueNet
        return net_class(self.layout(), self.hidden)


def mlp(sizes: list[int]) -> nn.Sequential:
    """Linear layers with tanh between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(nn.Tanh())
        layers.append(nn.Linear(a, b))
    return nn.Sequential(*layers)


def _init_genome(net: nn.Module, rng: np.random.Generator, output_scale: float) -> np.ndarray:
    """Weights N(0, 1/fan_in) (the last layer times ``output_scale``), biases 0, other parameters 1."""
    last = [name for name, _ in net.named_parameters() if name.endswith(".weight")][-1]
    parts = []
    for name, p in net.named_parameters():
        if name.endswith(".weight"):
            scale = output_scale if name == last else 1.0
            parts.append(rng.standard_normal(p.numel()) * scale / np.sqrt(p.shape[1]))
        elif name.endswith(".bias"):
            parts.append(np.zeros(p.numel()))
        else:
            parts.append(np.ones(p.numel()))
    return np.concatenate(parts).astype(np.float32)


class DirectPolicyNet(nn.Module):
    """Kind ``direct``: features to action scores, ``[fill CR | announce CR | roll 1 | keep 6 x (dice+1)]``.

    The fill scores add ``gain_weight * gain`` (the gain features) to the
    network's output, so a network with small output weights starts by
    filling the open cell whose score beats its expected value the most.
    """

    def __init__(self, lay: Layout, hidden: tuple[int, ...] = DEFAULT_HIDDEN) -> None:
        super().__init__()
        self.n_cells = lay.n_cells
        self.gain_start = table_size(lay)
        self.n_inputs = table_size(lay) + dice_size(lay)
        self.n_outputs = 2 * lay.n_cells + 1 + FACES * (lay.rules.n_dice + 1)
        self.body = mlp([self.n_inputs, *hidden, self.n_outputs])
        self.activation = "tanh"
        self.gain_weight = nn.Parameter(torch.ones(lay.n_cells))

    def initial_genome(self, rng: np.random.Generator) -> np.ndarray:
        return _init_genome(self, rng, DIRECT_OUTPUT_SCALE)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.body(x)
        cr, g = self.n_cells, self.gain_start
        out[..., :cr] += self.gain_weight * x[..., g : g + cr]
        return out


class CellValueNet(nn.Module):
    """Kind ``guided``: table features to ``[value correction CR | weight correction CR]``.

    The player values an open cell at ``cell_values + scale * value correction``
    and weighs its score by ``1 + weight correction``; a zero last layer makes
    it the expectimax player.
    """

    def __init__(self, lay: Layout, hidden: tuple[int, ...] = DEFAULT_HIDDEN) -> None:
        super().__init__()
        self.n_inputs = table_size(lay)
        self.n_outputs = 2 * lay.n_cells
        self.body = mlp([self.n_inputs, *hidden, self.n_outputs])
        self.activation = "tanh"

    def initial_genome(self, rng: np.random.Generator) -> np.ndarray:
        return _init_genome(self, rng, 0.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)
