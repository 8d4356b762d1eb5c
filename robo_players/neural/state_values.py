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

A values file (``.npz``) holds such a network or an after-state one (its spec's ``kind``,
``robo_players.neural.afterstate_values``): the weights and a JSON metadata entry
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

from expected_scores.optimal_play import SolvedPlayer
from expected_scores.solitaire import SolitaireSolution
from expected_scores.upper_sum import reachable_upper
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.bots import SUFFIX as BOT_SUFFIX
from robo_players.neural.dense import forward
from robo_players.neural.features import table_size
from robo_players.neural.population import stacked_dense
from yamb.atomic import write_atomically
from yamb.errors import YambError
from yamb.layout import Layout
from yamb.layout import layout as make_layout
from yamb.rules import N_NUMBER_ROWS, Rules
from yamb.rules import rules as make_rules

VALUES_DIR = BOTS_DIR / "values"
SUFFIX = ".npz"
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
    module), or of the ``afterstate``, the whole table a fill leaves, valued as the rest of
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

    def rules(self) -> Rules:
        return make_rules(self.preset, dice=self.dice or None, joker=self.joker)

    def layout(self) -> Layout:
        return make_layout(self.rules(), self.columns)

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
        with np.load(path) as f:
            meta = json.loads(str(f[META]))
            weights = {k: f[k] for k in f.files if k != META}
    except (OSError, ValueError, KeyError) as error:
        raise ValuesFileError(f"{path}: not a values file ({error})") from None
    stored = meta.pop("sha256", None)
    if meta.get("file") != FILE_KIND or stored != _digest(meta, weights):
        raise ValuesFileError(f"{path}: damaged (its content does not match its checksum)")
    s = meta["spec"]
    spec = ValueSpec(preset=s["preset"], joker=s["joker"], hidden=tuple(s["hidden"]), kind=s.get("kind", "state"),
                     columns=tuple(s.get("columns", ("free",))), dice=int(s.get("dice", 0)),
                     played=float(s.get("played", 0.0)), exact=tuple(s.get("exact", ())))
    return net_of(spec, weights), spec, meta


def is_values_file(name: str) -> bool:
    """Whether ``name`` is a values file (an ``.npz`` with a values metadata entry)."""
    path = Path(name)
    if path.suffix != SUFFIX or not path.is_file():
        return False
    try:
        with np.load(path) as f:
            return META in f.files and json.loads(str(f[META])).get("file") == FILE_KIND
    except (OSError, ValueError):
        return False


def load_values_player(path: str | Path, layout: Layout) -> SolvedPlayer:
    """The player of the values file ``path``, for ``layout``'s table, or a precise error."""
    net, spec, _ = load_values(Path(path))
    if spec.kind == AFTERSTATE:
        from robo_players.neural.afterstate_values import afterstate_player

        return afterstate_player(net, spec, layout, Path(path).stem)
    r = layout.rules
    if layout.columns != ("free",) or (r.name, r.joker) != (spec.preset, spec.joker):
        raise ValuesFileError(f"{path}: a value network for one free column of {spec.preset}, "
                              f"not this table ({r.name}, {','.join(layout.columns)})")
    return table_player(r, value_table(net, r), Path(path).stem)


def values_file(layout: Layout) -> Path:
    """The shipped values file of ``layout``'s table."""
    return VALUES_DIR / bot_name(layout).replace(BOT_SUFFIX, SUFFIX)


def values_bot_file(layout: Layout, values_dir: Path | None = None) -> Path:
    """The shipped values file of ``layout``'s table (``best-values``), or a precise error."""
    path = values_file(layout) if values_dir is None else values_dir / values_file(layout).name
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in VALUES_DIR.glob(f"*{SUFFIX}"))) or "none"
        raise YambError(f"no shipped best-values network for {path.stem} (shipped: {shipped})")
    return path


def load_values_bot(layout: Layout, values_dir: Path | None = None) -> SolvedPlayer:
    """``best-values``: the shipped value network of ``layout``'s table, or a precise error."""
    player = load_values_player(values_bot_file(layout, values_dir), layout)
    player.name = "best-values"
    return player
