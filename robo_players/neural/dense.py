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
(weights (P, inputs, outputs), the transpose of torch's ``Linear.weight``,
padded for ``_add_products``), so that a population is evaluated in one call.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from yamb.engine import PARALLEL_GAMES, serial_copy
from yamb.portable_math import tanh

TANH, RELU = 0, 1
BLOCK = 64  # rows of one parallel task
LANES = 8  # outputs ``_add_products`` sums at once
STEP = 4  # inputs it adds at once
_NO_GAIN = np.zeros((0, 0))
ACTIVATIONS = {"tanh": TANH, "relu": RELU}


class Dense(NamedTuple):
    """The layers of ``P`` stacked networks: ``weights[i]`` (P, inputs + 1, outputs rounded up to
    ``LANES``), the weights, then a row of zeros (what the inputs padding a row's last step to ``STEP``
    add) and columns of zeros; ``biases[i]`` (P, outputs); float64. ``activation`` (``TANH`` or ``RELU``)
    between layers, none after the last. With ``gain`` (P, n) the first ``n`` outputs add ``gain``
    times the inputs from ``gain_start`` on (``DirectPolicyNet``'s gain term), before they are
    rounded to float32."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    activation: int
    gain: np.ndarray | None = None
    gain_start: int = 0

    @property
    def members(self) -> int:
        return self.weights[0].shape[0]

    @property
    def n_inputs(self) -> int:
        return self.weights[0].shape[1] - 1

    @property
    def n_outputs(self) -> int:
        return self.biases[-1].shape[1]


def _padded(weight: np.ndarray) -> np.ndarray:
    """Torch-layout weights (P, outputs, inputs) as ``Dense`` holds them."""
    members, n_outputs, n_inputs = weight.shape
    out = np.zeros((members, n_inputs + 1, -(-n_outputs // LANES) * LANES))
    out[:, :n_inputs, :n_outputs] = np.swapaxes(np.asarray(weight, np.float64), 1, 2)
    return out


def dense(weights: list[np.ndarray], biases: list[np.ndarray], activation: str,
          gain: np.ndarray | None = None, gain_start: int = 0) -> Dense:
    """``Dense`` from stacked torch-layout weights (P, outputs, inputs), biases (P, outputs) and
    gain weights (P, n)."""
    return Dense(tuple(_padded(w) for w in weights),
                 tuple(np.ascontiguousarray(b, dtype=np.float64) for b in biases), ACTIVATIONS[activation],
                 None if gain is None else np.ascontiguousarray(gain, dtype=np.float64), gain_start)


@intrinsic
def _add_products(typingctx, acc, weight, j, k0, k1, k2, k3, v0, v1, v2, v3):  # noqa: ARG001
    """``acc[j:j + LANES] = (((acc + v0 weight[k0]) + v1 weight[k1]) + v2 weight[k2]) + v3 weight[k3]``
    over those ``LANES`` columns: one vector operation a step, a lane an output, with no check that
    ``acc`` and ``weight`` overlap (numba's loop over the outputs checked it at every step, which
    cost more than the sums). The products and sums are IEEE 754's, lane by lane, in this order, and
    never fused: a narrower CPU splits the vectors, and each output's bits stay the same."""
    if not all(isinstance(a, types.Array) and a.dtype == types.float64 and a.layout == "C" and a.ndim == n
               for a, n in ((acc, 1), (weight, 2))):
        return None  # a typing error: the vectors are read from contiguous float64 rows
    signature = types.none(acc, weight, j, k0, k1, k2, k3, v0, v1, v2, v3)

    def codegen(context, builder, signature, args):
        total_of = context.make_array(signature.args[0])(context, builder, args[0])
        rows = context.make_array(signature.args[1])(context, builder, args[1])
        j, ks, vs = args[2], args[3:7], args[7:11]
        vector = ir.VectorType(ir.DoubleType(), LANES)
        n_columns = cgutils.unpack_tuple(builder, rows.shape)[1]
        where = builder.bitcast(builder.gep(total_of.data, [j]), vector.as_pointer())
        total = builder.load(where, align=8)
        lane_0 = ir.Constant(ir.IntType(32), 0)
        everywhere = ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES)
        for k, v in zip(ks, vs):
            row = builder.gep(rows.data, [builder.add(builder.mul(k, n_columns), j)])
            w = builder.load(builder.bitcast(row, vector.as_pointer()), align=8)
            v_vector = builder.shuffle_vector(builder.insert_element(ir.Constant(vector, ir.Undefined), v, lane_0),
                                              ir.Constant(vector, ir.Undefined), everywhere)
            total = builder.fadd(total, builder.fmul(v_vector, w))
        builder.store(total, where, align=8)
        return context.get_dummy_value()

    return signature, codegen


@njit(cache=True, parallel=True)
def _layer(x, weight, bias, activation, gain, inputs, gain_start, out):
    """``out[p, g] = activation(sum_k x[p, g, k] * weight[p, k] + bias[p])``, the sum in the order of
    ``k`` (inputs that are 0 add nothing and are skipped), ``STEP`` inputs at a time; ``activation``
    -1 for none. The first ``gain.shape[1]`` outputs then add ``gain[p] * inputs[p, g, gain_start:]``
    (none with an empty ``gain``), and ``out`` (float32 or float64) takes them rounded to its type.
    Blocks of ``BLOCK`` rows run in parallel: each row's operations are the same whichever thread
    runs it."""
    members, n_rows, n_inputs = x.shape
    n_padded = weight.shape[2]
    n_outputs = bias.shape[1]
    n_gain = gain.shape[1]
    n_blocks = (n_rows + BLOCK - 1) // BLOCK
    for block in prange(members * n_blocks):
        p = block // n_blocks
        rows = weight[p]
        acc = np.empty(n_padded)
        nonzero = np.empty(n_inputs + STEP - 1, dtype=np.int64)  # the row's inputs that are not 0, in order
        values = np.empty(n_inputs + STEP - 1)
        for g in range(block % n_blocks * BLOCK, min(n_rows, (block % n_blocks + 1) * BLOCK)):
            n = 0
            for k in range(n_inputs):  # without a branch: a sparse row's zeros cost no mispredictions
                v = np.float64(x[p, g, k])
                nonzero[n] = k
                values[n] = v
                n += v != 0.0
            for t in range(n, n + STEP - 1):  # the last step's missing inputs: 0 times the row of zeros,
                nonzero[t] = n_inputs  # which leaves every sum as it is (a sum of products is never -0)
                values[t] = 0.0
            acc[:] = 0.0
            for i in range(0, n, STEP):  # the step's inputs into locals: else reread after each store to ``acc``
                k0, k1, k2, k3 = nonzero[i], nonzero[i + 1], nonzero[i + 2], nonzero[i + 3]
                v0, v1, v2, v3 = values[i], values[i + 1], values[i + 2], values[i + 3]
                for j in range(0, n_padded, LANES):
                    _add_products(acc, rows, j, k0, k1, k2, k3, v0, v1, v2, v3)
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
    if x.ndim != 3 or x.shape[0] != net.members or x.shape[2] != net.n_inputs:
        raise ValueError(f"inputs of shape {x.shape} for {net.members} networks of {net.n_inputs} inputs")
    x = h = np.ascontiguousarray(x)
    if out is None:
        out = np.empty((x.shape[0], x.shape[1], net.n_outputs), dtype=np.float32)
    last = len(net.weights) - 1
    layer = _layer if x.shape[0] * x.shape[1] >= PARALLEL_GAMES else _SERIAL_LAYER
    for i, (weight, bias) in enumerate(zip(net.weights, net.biases)):
        if i < last:
            into = np.empty((h.shape[0], h.shape[1], bias.shape[1]))
            layer(h, weight, bias, net.activation, _NO_GAIN, x, 0, into)
            h = into
        else:
            gain = _NO_GAIN if net.gain is None else net.gain
            layer(h, weight, bias, -1, gain, x, net.gain_start, out)
    return out
