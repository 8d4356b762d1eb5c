"""Networks as flat genomes, and a whole population evaluated in one batched pass.

A genome is ``parameters_to_vector(net.parameters())``. ``Population`` holds the
genomes of ``P`` networks of one architecture as stacked layers
(``robo_players.neural.dense``) and evaluates them on a (P, G, features) input
in one call, no Python loop over individuals, with the same bits on every
machine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from robo_players.neural.dense import Dense, dense, forward
from yamb.errors import YambError

if TYPE_CHECKING:
    from torch import nn


def genome_size(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


def genome_of(net: nn.Module) -> np.ndarray:
    """The flat float32 weight vector of ``net``."""
    from torch.nn.utils import parameters_to_vector

    return parameters_to_vector(net.parameters()).detach().numpy().copy()


def load_genome(net: nn.Module, genome: np.ndarray) -> nn.Module:
    """Copy a flat weight vector into ``net`` (returned for chaining)."""
    import torch
    from torch.nn.utils import vector_to_parameters

    vector = torch.as_tensor(np.asarray(genome, dtype=np.float32))
    if vector.shape != (genome_size(net),):
        raise YambError(f"a genome of {tuple(vector.shape)} values for a network of {genome_size(net)} weights")
    vector_to_parameters(vector, net.parameters())
    return net


def stacked_parameters(net: nn.Module, genomes: np.ndarray) -> dict[str, np.ndarray]:
    """(P, D) genomes as ``{name: (P, *shape)}`` views, in ``net.parameters()`` order."""
    out, start = {}, 0
    for name, p in net.named_parameters():
        out[name] = genomes[:, start : start + p.numel()].reshape(len(genomes), *p.shape)
        start += p.numel()
    return out


def stacked_dense(net: nn.Module, params: dict[str, np.ndarray]) -> Dense:
    """The linear layers of ``net`` (its parameters named ``*.weight`` and ``*.bias``, in order) from
    stacked ``params``, with the network's ``activation`` between them, and its ``gain_weight`` added
    to the outputs from its ``gain_start`` input on (``DirectPolicyNet``), if it has one."""
    layers = [name[: -len(".weight")] for name in params if name.endswith(".weight")]
    return dense([params[f"{layer}.weight"] for layer in layers], [params[f"{layer}.bias"] for layer in layers],
                 net.activation, params.get("gain_weight"), getattr(net, "gain_start", 0))


class Population:
    """``P`` networks that share ``net``'s architecture, evaluated together."""

    def __init__(self, net: nn.Module, genomes: np.ndarray) -> None:
        genomes = np.atleast_2d(np.asarray(genomes, dtype=np.float32))
        if genomes.shape[1] != genome_size(net):
            raise YambError(
                f"genomes of {genomes.shape[1]} values for a network of {genome_size(net)} weights"
            )
        self.net = net
        self.size = len(genomes)
        self.genomes = genomes
        self.layers = stacked_dense(net, stacked_parameters(net, genomes))

    def member(self, index: int) -> Population:
        """Network ``index`` alone, as a population of one."""
        return Population(self.net, self.genomes[index : index + 1])

    def __call__(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """(P, G, features) to (P, G, outputs) float32 network outputs (into ``out`` if given)."""
        return forward(self.layers, x, out)
