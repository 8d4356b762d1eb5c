"""A neural player as stored (``NeuralWeights``) and the error of a file that does not hold one;
the weight files' formats are ``robo_players.neural.files``."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from robo_players.neural.networks import NetSpec
from robo_players.neural.population import load_genome
from yamb import __version__
from yamb.errors import YambError

FILE_KIND = "yamb-neural-player"
FILE_VERSION = 3


class WeightsFileError(YambError):
    """A weights file that is missing, damaged, or for another network or table."""


@dataclass
class NeuralWeights:
    """A neural player as stored: its network spec, flat weights, cell values and run facts."""

    spec: NetSpec
    genome: np.ndarray  # (D,) float32
    cell_values: np.ndarray  # (CR,) float32
    info: dict = field(default_factory=dict)  # fitness, seed, run_preset, ...

    def metadata(self, sha256: str) -> dict:
        return {
            "file": FILE_KIND, "file_version": FILE_VERSION, "version": __version__,
            "spec": self.spec.to_dict(), "kind": self.spec.kind, "preset": self.spec.preset,
            "table": list(self.spec.columns), "architecture": self.architecture(), **self.info,
            "sha256": sha256,
        }

    def architecture(self) -> dict:
        net = self.spec.build()
        return {"network": type(net).__name__, "inputs": net.n_inputs, "hidden": list(self.spec.hidden),
                "outputs": net.n_outputs, "weights": int(self.genome.size)}

    def network(self) -> torch.nn.Module:
        return load_genome(self.spec.build(), self.genome)
