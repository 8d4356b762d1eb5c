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
the outputs padded to whole vectors), so that a population is evaluated in
one call. A row's sums are held in vector registers, ``CHUNK`` vectors of
``LANES`` outputs a pass over its inputs.
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
LANES = 8  # outputs in one vector of ``_sum_products``
CHUNK = 4  # vectors of outputs ``_sum_row`` sums in one pass over the inputs
_NO_GAIN = np.zeros((0, 0))
ACTIVATIONS = {"tanh": TANH, "relu": RELU}


class Dense(NamedTuple):
    """The layers of ``P`` stacked networks: ``weights[i]`` (P, inputs, outputs rounded up to ``LANES``),
    the weights, then columns of zeros; ``biases[i]`` (P, outputs); float64. ``activation`` (``TANH`` or ``RELU``)
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
        return self.weights[0].shape[1]

    @property
    def n_outputs(self) -> int:
        return self.biases[-1].shape[1]


def _padded(weight: np.ndarray) -> np.ndarray:
    """Torch-layout weights (P, outputs, inputs) as ``Dense`` holds them."""
    members, n_outputs, n_inputs = weight.shape
    out = np.zeros((members, n_inputs, -(-n_outputs // LANES) * LANES))
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
def _sum_products(typingctx, acc, x, base, n, rows, j, width):  # noqa: ARG001
    """``acc[j:j + width LANES] = sum_k x.flat[base + k] * rows[k, j:j + width LANES]`` over ``k < n``, in
    the order of ``k``, from 0: ``width`` (a literal) vectors of ``LANES`` outputs held in registers, a
    lane an output. The products and sums are IEEE 754's, lane by lane, in this order, and never fused:
    a narrower CPU splits the vectors, and each output's bits stay the same."""
    if not (isinstance(acc, types.Array) and acc.dtype == types.float64 and acc.layout == "C" and acc.ndim == 1
            and isinstance(rows, types.Array) and rows.dtype == types.float64 and rows.layout == "C"
            and rows.ndim == 2 and isinstance(x, types.Array) and x.layout == "C"
            and x.dtype in (types.float32, types.float64) and isinstance(width, types.IntegerLiteral)):
        return None  # a typing error: contiguous float64 rows, a literal width
    signature = types.none(acc, x, base, n, rows, j, width)
    n_vectors = width.literal_value

    def codegen(context, builder, signature, args):
        total_of = context.make_array(signature.args[0])(context, builder, args[0])
        inputs = context.make_array(signature.args[1])(context, builder, args[1])
        table = context.make_array(signature.args[4])(context, builder, args[4])
        base, n, j = args[2], args[3], args[5]
        vector = ir.VectorType(ir.DoubleType(), LANES)
        n_columns = cgutils.unpack_tuple(builder, table.shape)[1]
        sums = [cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES)) for _ in range(n_vectors)]
        lane_0 = ir.Constant(ir.IntType(32), 0)
        everywhere = ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES)
        with cgutils.for_range(builder, n) as loop:
            k = loop.index
            v = builder.load(builder.gep(inputs.data, [builder.add(base, k)]))
            if signature.args[1].dtype == types.float32:
                v = builder.fpext(v, ir.DoubleType())
            v_vector = builder.shuffle_vector(builder.insert_element(ir.Constant(vector, ir.Undefined), v, lane_0),
                                              ir.Constant(vector, ir.Undefined), everywhere)
            row = builder.gep(table.data, [builder.add(builder.mul(k, n_columns), j)])
            for i, s in enumerate(sums):
                at = builder.gep(row, [ir.Constant(ir.IntType(64), i * LANES)])
                w = builder.load(builder.bitcast(at, vector.as_pointer()), align=8)
                builder.store(builder.fadd(builder.load(s), builder.fmul(v_vector, w)), s)
        for i, s in enumerate(sums):
            at = builder.gep(total_of.data, [builder.add(j, ir.Constant(ir.IntType(64), i * LANES))])
            builder.store(builder.load(s), builder.bitcast(at, vector.as_pointer()), align=8)
        return context.get_dummy_value()

    return signature, codegen


@njit(cache=True, inline="always")
def _sum_row(acc, x, base, n, rows, n_padded):
    """``_sum_products`` over all the outputs: ``CHUNK`` (4) vectors a pass over the inputs, then the
    one to three vectors left."""
    j = 0
    while j + CHUNK * LANES <= n_padded:
        _sum_products(acc, x, base, n, rows, j, CHUNK)
        j += CHUNK * LANES
    left = (n_padded - j) // LANES
    if left == 1:
        _sum_products(acc, x, base, n, rows, j, 1)
    elif left == 2:
        _sum_products(acc, x, base, n, rows, j, 2)
    elif left == 3:
        _sum_products(acc, x, base, n, rows, j, 3)


@njit(cache=True, parallel=True)
def _layer(x, weight, bias, activation, gain, inputs, gain_start, out):
    """``out[p, g] = activation(sum_k x[p, g, k] * weight[p, k] + bias[p])``, the sum in the order of
    ``k`` from +0 (so never -0: the inputs that are 0 change no bit of it); ``activation`` -1 for
    none. The first ``gain.shape[1]`` outputs then add ``gain[p] * inputs[p, g, gain_start:]``
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
        for g in range(block % n_blocks * BLOCK, min(n_rows, (block % n_blocks + 1) * BLOCK)):
            _sum_row(acc, x, (p * n_rows + g) * n_inputs, n_inputs, rows, n_padded)
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
