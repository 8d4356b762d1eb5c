"""Neural players from genomes (a population in evolution) or from weight files.

``population_player`` plays ``P`` networks at once on a batch of ``P * G``
games; ``load_player`` reads a ``pt``, ``safetensors``, ``npz`` or ``onnx``
file and checks it fits the table it is asked to play.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from robo_players.base import Player
from robo_players.neural.direct import DirectPolicyPlayer
from robo_players.neural.files import FORMATS, WeightsFileError, format_of, load_weights, onnx_network
from robo_players.neural.guided import SearchGuidedPlayer
from robo_players.neural.networks import NetSpec
from robo_players.neural.player import Forward
from robo_players.neural.population import Population
from robo_players.search.row_means import search_values
from yamb.layout import Layout
from yamb.table import Table


def neural_player(spec: NetSpec, forward: Forward, cell_values: np.ndarray, name: str) -> Player:
    """The player of ``spec.kind`` around ``forward`` with (P, CR) ``cell_values``."""
    if spec.kind == "guided":
        lay = spec.layout()
        expected, bonus_levels = search_values(lay, spec.played, spec.bonus)
        return SearchGuidedPlayer(forward, cell_values, lay, name, expected, bonus_levels, spec.exact)
    return DirectPolicyPlayer(forward, cell_values, name=name)


def network_player(spec: NetSpec, genome: np.ndarray, cell_values: np.ndarray, name: str) -> Player:
    """The player of one ``spec`` network: its ``genome`` (D,), reading ``cell_values`` (CR,)."""
    return neural_player(spec, Population(spec.build(), genome[None]), cell_values[None], name)


def population_player(spec: NetSpec, genomes: np.ndarray, cell_values: np.ndarray) -> Player:
    """``P`` networks of ``spec`` (genomes (P, D), cell values (P, CR)) evaluated in one pass."""
    return neural_player(spec, Population(spec.build(), genomes), cell_values, f"neural-{spec.kind}")


def is_weights_file(name: str) -> bool:
    """Whether a ``--player`` argument names a weights file rather than a registered player."""
    return Path(name).suffix.lstrip(".").lower() in FORMATS


def check_table(path: Path, spec: NetSpec, layout: Layout) -> None:
    """A precise error when the file's network was evolved for another table."""
    wanted = Table.of(layout).solo
    if spec.table != wanted:
        raise WeightsFileError(f"{path} was evolved for {spec.table.describe()}, not for {wanted.describe()}")


def file_spec(path: str | Path) -> NetSpec:
    """The network (and its table) that the weights file ``path`` holds."""
    return onnx_network(path)[0] if format_of(Path(path)) == "onnx" else load_weights(Path(path)).spec


def load_player(path: str | Path, layout: Layout) -> Player:
    """The neural player stored in ``path``, for ``layout``'s table."""
    path = Path(path)
    name = f"neural-{path.stem}"
    if format_of(path) == "onnx":
        spec, forward, cell_values = onnx_network(path)
    else:
        weights = load_weights(path)
        spec, cell_values = weights.spec, weights.cell_values
        forward = Population(weights.network(), weights.genome[None])
    check_table(path, spec, layout)
    return neural_player(spec, forward, cell_values[None], name)
