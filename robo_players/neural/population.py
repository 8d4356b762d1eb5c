"""Networks as flat genomes, and a whole population evaluated in one batched pass.

A genome is ``parameters_to_vector(net.parameters())``. ``Population`` holds the
genomes of ``P`` networks of one architecture as stacked parameters (the
layout of ``torch.func.stack_module_state``) and evaluates them on a
(P, G, features) input with the network's ``forward_stacked``: one batched
matrix product per layer, no Python loop over individuals, bit for bit what
``vmap`` over ``functional_call`` of its ``forward`` gives.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

from yamb.errors import YambError


def genome_size(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


def genome_of(net: nn.Module) -> np.ndarray:
    """The flat float32 weight vector of ``net``."""
    return parameters_to_vector(net.parameters()).detach().numpy().copy()


def load_genome(net: nn.Module, genome: np.ndarray) -> nn.Module:
    """Copy a flat weight vector into ``net`` (returned for chaining)."""
    vector = torch.as_tensor(np.asarray(genome, dtype=np.float32))
    if vector.shape != (genome_size(net),):
        raise YambError(f"a genome of {tuple(vector.shape)} values for a network of {genome_size(net)} weights")
    vector_to_parameters(vector, net.parameters())
    return net


def stacked_parameters(net: nn.Module, genomes: torch.Tensor) -> dict[str, torch.Tensor]:
    """(P, D) genomes as ``{name: (P, *shape)}`` views, in ``net.parameters()`` order."""
    out, start = {}, 0
    for name, p in net.named_parameters():
        out[name] = genomes[:, start : start + p.numel()].reshape(len(genomes), *p.shape)
        start += p.numel()
    return out


class Population:
    """``P`` networks that share ``net``'s architecture and buffers, evaluated together."""

    def __init__(self, net: nn.Module, genomes: np.ndarray) -> None:
        genomes = np.atleast_2d(np.asarray(genomes, dtype=np.float32))
        if genomes.shape[1] != genome_size(net):
            raise YambError(
                f"genomes of {genomes.shape[1]} values for a network of {genome_size(net)} weights"
            )
        self.net = net
        self.size = len(genomes)
        self.genomes = genomes
        self.params = stacked_parameters(net, torch.from_numpy(genomes))

    def member(self, index: int) -> Population:
        """Network ``index`` alone, as a population of one."""
        return Population(self.net, self.genomes[index : index + 1])

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """(P, G, features) to (P, G, outputs) network outputs."""
        with torch.no_grad():
            return self.net.forward_stacked(self.params, torch.from_numpy(x)).numpy()
