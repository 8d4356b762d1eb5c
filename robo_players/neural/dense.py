"""The networks' forward pass, the same bits on every machine.

A torch matrix product is summed in an order that the BLAS library picks for
the CPU it runs on (MKL's AVX-512 kernels on one machine, its AVX2 kernels on
another, a thread count's split of the sum on a third), so a network's
outputs, and the moves they decide, differed between machines. Here each
output is summed over its inputs in their order, in float64 (every product of
two float32 is exact there), the bias added after the sum, then the
activation (``yamb.portable_math.tanh``, or ReLU), compiled without
``fastmath``: the vector width changes how many outputs are computed at once,
never the operations of one. The outputs are rounded to float32 at the end.

``Dense`` holds the layers of ``P`` networks of one architecture stacked
(weights (P, inputs, outputs), the transpose of torch's ``Linear.weight``), so
that a population is evaluated in one call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from yamb.engine import PARALLEL_GAMES, serial_copy
from yamb.portable_math import tanh

TANH, RELU = 0, 1
BLOCK = 64  # rows of one parallel task
_NO_GAIN = np.zeros((0, 0))
ACTIVATIONS = {"tanh": TANH, "relu": RELU}


class Dense(NamedTuple):
    """The layers of ``P`` stacked networks: ``weights[i]`` (P, inputs, outputs) and ``biases[i]``
    (P, outputs), float64; ``activation`` (``TANH`` or ``RELU``) between layers, none after the last.
    With ``gain`` (P, n) the first ``n`` outputs add ``gain`` times the inputs from ``gain_start``
    on (``DirectPolicyNet``'s gain term), before they are rounded to float32."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: int
    gain: np.ndarray | None = None
    gain_start: int = 0

    @property
    def members(self) -> int:
        return self.weights[0].shape[0]

    @property
    def n_outputs(self) -> int:
        return self.weights[-1].shape[2]


def dense(weights: list[np.ndarray], biases: list[np.ndarray], activation: str,
          gain: np.ndarray | None = None, gain_start: int = 0) -> Dense:
    """``Dense`` from stacked torch-layout weights (P, outputs, inputs), biases (P, outputs) and
    gain weights (P, n)."""
    return Dense(tuple(np.ascontiguousarray(np.swapaxes(np.asarray(w, np.float64), 1, 2)) for w in weights),
                 tuple(np.ascontiguousarray(b, dtype=np.float64) for b in biases), ACTIVATIONS[activation],
                 None if gain is None else np.ascontiguousarray(gain, dtype=np.float64), gain_start)


@njit(cache=True, parallel=True)
def _layer(x, weight, bias, activation, gain, inputs, gain_start, out):
    """``out[p, g] = activation(sum_k x[p, g, k] * weight[p, k] + bias[p])``, the sum in the order of
    ``k`` (inputs that are 0 add nothing and are skipped); ``activation`` -1 for none. The first
    ``gain.shape[1]`` outputs then add ``gain[p] * inputs[p, g, gain_start:]`` (none with an empty
    ``gain``), and ``out`` (float32 or float64) takes them rounded to its type. Blocks of ``BLOCK``
    rows run in parallel: each row's operations are the same whichever thread runs it."""
    members, n_rows, n_inputs = x.shape
    n_outputs = weight.shape[2]
    n_gain = gain.shape[1]
    n_blocks = (n_rows + BLOCK - 1) // BLOCK
    for block in prange(members * n_blocks):
        p = block // n_blocks
        acc = np.empty(n_outputs)
        nonzero = np.empty(n_inputs, dtype=np.int64)  # the row's inputs that are not 0, in order
        values = np.empty(n_inputs)
        for g in range(block % n_blocks * BLOCK, min(n_rows, (block % n_blocks + 1) * BLOCK)):
            n = 0
            for k in range(n_inputs):  # without a branch: a sparse row's zeros cost no mispredictions
                v = np.float64(x[p, g, k])
                nonzero[n] = k
                values[n] = v
                n += v != 0.0
            acc[:] = 0.0
            i = 0
            while i + 4 <= n:  # four inputs a pass over the outputs, added one after the other
                v0, v1, v2, v3 = values[i], values[i + 1], values[i + 2], values[i + 3]
                w0, w1 = weight[p, nonzero[i]], weight[p, nonzero[i + 1]]
                w2, w3 = weight[p, nonzero[i + 2]], weight[p, nonzero[i + 3]]
                for j in range(n_outputs):
                    acc[j] = (((acc[j] + v0 * w0[j]) + v1 * w1[j]) + v2 * w2[j]) + v3 * w3[j]
                i += 4
            for i in range(i, n):
                v = values[i]
                w = weight[p, nonzero[i]]
                for j in range(n_outputs):
                    acc[j] += v * w[j]
            for j in range(n_outputs):  # one loop per step: each runs several outputs at once
                acc[j] += bias[p, j]
            if activation == TANH:
                for j in range(n_outputs):
                    acc[j] = tanh(acc[j])
            elif activation == RELU:
                for j in range(n_outputs):
                    acc[j] = max(acc[j], 0.0)
            for j in range(n_gain):
                acc[j] += gain[p, j] * np.float64(inputs[p, g, gain_start + j])
            for j in range(n_outputs):
                out[p, g, j] = acc[j]


_SERIAL_LAYER = serial_copy(_layer)


def forward(net: Dense, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """(P, G, inputs) features to (P, G, outputs) float32 outputs (into ``out`` if given)."""
    if x.ndim != 3 or x.shape[0] != net.members or x.shape[2] != net.weights[0].shape[1]:
        raise ValueError(f"inputs of shape {x.shape} for {net.members} networks of "
                         f"{net.weights[0].shape[1]} inputs")
    x = h = np.ascontiguousarray(x)
    if out is None:
        out = np.empty((x.shape[0], x.shape[1], net.n_outputs), dtype=np.float32)
    last = len(net.weights) - 1
    layer = _layer if x.shape[0] * x.shape[1] >= PARALLEL_GAMES else _SERIAL_LAYER
    for i, (weight, bias) in enumerate(zip(net.weights, net.biases)):
        if i < last:
            into = np.empty((h.shape[0], h.shape[1], weight.shape[2]))
            layer(h, weight, bias, net.activation, _NO_GAIN, x, 0, into)
            h = into
        else:
            gain = _NO_GAIN if net.gain is None else net.gain
            layer(h, weight, bias, -1, gain, x, net.gain_start, out)
    return out
