"""Value networks: a network's value of a table, and the values files that hold one.

``ValueNet`` maps features of a state to the points still to come; ``ValueSpec``
says what for: a ``state`` of one free column (``robo_players.neural.state_values``,
``best-values``) or an ``afterstate``, the whole table a fill leaves
(``robo_players.neural.afterstate_values``). ``value_function`` gives a network's
values the same bits on every machine (``robo_players.neural.dense``).

A values file (``.npz``) holds such a network: the weights and a JSON metadata entry
(the ``ValueSpec``, the fit's facts and ``sha256``, a checksum of the rest of
the metadata and the weights); ``load_values`` refuses a damaged file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from robo_players.neural.bots import VALUES_SUFFIX
from robo_players.neural.dense import forward
from robo_players.neural.features import table_size
from robo_players.neural.population import stacked_dense
from yamb.atomic import write_atomically
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.parsing import DamagedError, ParseError, parse_json, read_npz
from yamb.rules import Rules
from yamb.table import Table

SUFFIX = VALUES_SUFFIX
FILE_KIND = "yamb-state-values"
META = "meta"
SCALE = 100.0  # the network's output is the value in hundreds of points
CHUNK = 1 << 14  # rows per forward pass (its float64 activations: tens of MB)
AFTERSTATE = "afterstate"  # the kind of a whole table's value network (``ValueSpec``)


class ValuesFileError(YambError):
    """A values file that is missing, damaged or for another table."""


@dataclass(frozen=True)
class ValueSpec:
    """What a value network is for and its shape: of the ``state`` of one free column (this
    ``robo_players.neural.state_values``), or of the ``afterstate``, the whole table a fill leaves, valued as the rest of
    the game beyond a base search's estimate (``robo_players.neural.afterstate_values``: its
    table, and the base search's ``played`` blend and exactly valued column kinds)."""

    preset: str
    joker: str | None
    hidden: tuple[int, ...] = (256, 256)
    kind: str = "state"
    columns: tuple[str, ...] = ("free",)
    dice: int = 0  # 0: the preset's
    played: float = 0.0
    exact: tuple[str, ...] = ()

    @property
    def table(self) -> Table:
        """The table the network values (``dice`` 0: the preset's)."""
        return Table.named(self.preset, dice=self.dice or None, joker=self.joker, columns=self.columns)

    def rules(self) -> Rules:
        return self.table.rules

    def layout(self) -> Layout:
        return self.table.layout

    def n_inputs(self) -> int:
        if self.kind == AFTERSTATE:
            return table_size(self.layout())
        r = self.rules()
        return r.n_rows + r.spec.bonus_threshold + 5

    def build(self) -> ValueNet:
        """A fresh network; an after-state one outputs points (Adam's steps, in the weights' units,
        would move a scaled output by tens of points and roughen what decides a move: the
        differences between a turn's next tables)."""
        return ValueNet(self.n_inputs(), self.hidden, 1.0 if self.kind == AFTERSTATE else SCALE)


class ValueNet(nn.Module):
    """A multilayer perceptron from state features to the points still to come, its output in
    units of ``scale`` points."""

    def __init__(self, n_inputs: int, hidden: tuple[int, ...], scale: float = SCALE) -> None:
        super().__init__()
        self.scale = scale
        layers: list[nn.Module] = []
        width = n_inputs
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.layers = nn.Sequential(*layers)
        self.activation = "relu"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)[:, 0] * self.scale


def value_function(net: ValueNet) -> Callable[[np.ndarray], np.ndarray]:
    """The network's values, (n, F) feature rows to (n,) float64, as its ``forward`` computes them but
    the same bits on every machine (``robo_players.neural.dense``), ``CHUNK`` rows at a time; its
    weights are read once, as they are now."""
    layers = stacked_dense(net, {name: p.detach().numpy()[None] for name, p in net.named_parameters()})
    scale = np.float32(net.scale)

    def values(x: np.ndarray) -> np.ndarray:
        out = np.empty(len(x))
        for start in range(0, len(x), CHUNK):
            out[start : start + CHUNK] = forward(layers, x[None, start : start + CHUNK])[0, :, 0] * scale
        return out

    return values


def _digest(meta: dict, weights: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for key in sorted(weights):
        h.update(key.encode())
        h.update(np.ascontiguousarray(weights[key]).tobytes())
    return h.hexdigest()


def state_arrays(net: ValueNet) -> dict[str, np.ndarray]:
    """``net``'s weights by name, as float32 arrays (a values file holds them)."""
    return {k: v.detach().numpy().astype(np.float32) for k, v in net.state_dict().items()}


def net_of(spec: ValueSpec, arrays: dict[str, np.ndarray]) -> ValueNet:
    """The ``spec`` network of weights ``arrays`` (``state_arrays``), ready to evaluate."""
    net = spec.build()
    net.load_state_dict({k: torch.from_numpy(v) for k, v in arrays.items()})
    net.eval()
    return net


def save_values(path: Path, net: ValueNet, spec: ValueSpec, info: dict) -> None:
    """Write ``net`` with its spec and ``info`` (the fit's facts) to ``path`` (``.npz``)."""
    weights = state_arrays(net)
    meta = {"file": FILE_KIND, "spec": asdict(spec), **info}
    meta["sha256"] = _digest(meta, weights)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:  # a file object: numpy adds no ".npz" to its name
            np.savez_compressed(f, **{META: np.array(json.dumps(meta, sort_keys=True))}, **weights)

    write_atomically(Path(path), write)


def load_values(path: Path) -> tuple[ValueNet, ValueSpec, dict]:
    """The network, spec and metadata in ``path``, or a ``ValuesFileError``."""
    try:
        weights = read_npz(path)
        meta = parse_json(str(weights.pop(META)))
    except ParseError as error:  # damaged (cut short, a flipped bit), or not an archive
        raise ValuesFileError(f"{path}: {error}") from None
    except OSError as error:
        raise ValuesFileError(f"{path}: not a values file ({error.strerror or error})") from None
    except KeyError:
        raise ValuesFileError(f"{path}: not a values file (no {META} entry)") from None
    stored = meta.pop("sha256", None) if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or meta.get("file") != FILE_KIND or stored != _digest(meta, weights):
        raise ValuesFileError(f"{path}: damaged (its content does not match its checksum)")
    s = meta["spec"]
    spec = ValueSpec(preset=s["preset"], joker=s["joker"], hidden=tuple(s["hidden"]), kind=s.get("kind", "state"),
                     columns=tuple(s.get("columns", ("free",))), dice=int(s.get("dice", 0)),
                     played=float(s.get("played", 0.0)), exact=tuple(s.get("exact", ())))
    return net_of(spec, weights), spec, meta


def is_values_file(name: str) -> bool:
    """Whether ``name`` is a values file (an ``.npz`` with a values metadata entry); a ``ValuesFileError``
    for an ``.npz`` too damaged to tell (cut short, a flipped bit)."""
    path = Path(name)
    if path.suffix != SUFFIX or not path.is_file():
        return False
    try:
        arrays = read_npz(path)
        meta = parse_json(str(arrays[META])) if META in arrays else None
    except DamagedError as error:
        raise ValuesFileError(f"{path}: {error}") from None
    except (OSError, ParseError):
        return False
    return isinstance(meta, dict) and meta.get("file") == FILE_KIND
