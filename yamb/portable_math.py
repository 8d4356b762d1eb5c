"""Elementary functions that give the same bits on every machine.

numpy's ``exp`` and ``tanh`` have one loop per instruction set (AVX-512, AVX2,
plain x86-64) that round differently, and the C library's depend on its
version; IEEE 754 addition, multiplication, division and square root are
exact to the last bit everywhere. These are written with those alone, in a
fixed order (numba compiles them without ``fastmath``: no reordering, no fused
multiply-add), accurate to a few units in the last place of a float64.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_LN2_HI = 6.93147180369123816490e-01  # ln 2 split so that k * _LN2_HI is exact for |k| < 2**11
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_EXP_TERMS = 14  # Taylor terms of exp(r) for |r| <= ln(2) / 2: the next is below 1e-17
_COEFFICIENTS = np.array([1.0 / math.factorial(i) for i in range(_EXP_TERMS)])
_EXP_MAX = 710.0  # exp(x) overflows above about 709.78 (ldexp gives inf)
_EXP_MIN = -746.0  # and is 0 below about -745.13
_SQRT_HALF = 0.7071067811865476
_LOG_TERMS = 12  # terms of the series of log((1 + s) / (1 - s)) for |s| <= 0.1716: the next is below 1e-17
_TANH_ONE = 19.1  # tanh(x) rounds to 1 in float64 beyond this
_TANH_SMALL = 0.0625  # below this tanh is its odd series (six terms: the next is below 1e-17 of it)


@intrinsic
def _from_bits(typingctx, bits):  # noqa: ARG001 (numba's signature)
    """The float64 whose IEEE 754 bits are the int64 ``bits``."""

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _divide(typingctx, a, b):  # noqa: ARG001
    """``a / b`` of two float64, the IEEE 754 quotient, without numba's check of ``b == 0`` (whose
    raise would keep a loop of them from running a lane per value)."""

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.fdiv(args[0], args[1])

    return types.float64(types.float64, types.float64), codegen


@njit(cache=True, inline="always")
def _two_to(k: int) -> float:
    """2 ** k exactly, for -1022 <= k <= 1023 (the normal powers of two), from its bits."""
    return _from_bits(np.int64(k + 1023) << 52)


@njit(cache=True, inline="always")
def _exp_parts(x: float) -> tuple[float, int]:
    """``(p, k)`` with e ** x = p 2 ** k: x = k ln 2 + r, |r| <= ln(2) / 2, p = e ** r by its Taylor
    series. Without branches, so that a loop of them runs a lane per value (the same operations in
    each lane)."""
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _COEFFICIENTS[_EXP_TERMS - 1]
    for i in range(_EXP_TERMS - 2, -1, -1):
        p = p * r + _COEFFICIENTS[i]
    return p, k


@njit(cache=True, inline="always")
def exp(x: float) -> float:
    """e ** x: ``p 2 ** k`` from ``_exp_parts``; the product is exact, or rounded once where it is
    subnormal, as ``math.ldexp`` would round it."""
    if x != x:
        return x
    if x > _EXP_MAX:
        return math.inf
    if x < _EXP_MIN:
        return 0.0
    p, k = _exp_parts(x)
    if k > 1000:  # 2 ** k itself would overflow where e ** x does not
        return math.ldexp(math.ldexp(p, 1000), k - 1000)
    if k < -1022:  # 2 ** k is subnormal: one rounding, by ldexp
        return math.ldexp(p, k)
    return p * _two_to(k)


@njit(cache=True, inline="always")
def log(x: float) -> float:
    """The natural logarithm: x = m 2 ** k with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh((m - 1) / (m + 1))
    by its series."""
    if x != x or x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    if x == math.inf:
        return x
    m, k = math.frexp(x)  # x = m 2 ** k, m in [1/2, 1)
    if m < _SQRT_HALF:
        m *= 2.0
        k -= 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    p = 1.0 / (2 * _LOG_TERMS - 1)
    for i in range(_LOG_TERMS - 2, -1, -1):
        p = p * s2 + 1.0 / (2 * i + 1)
    return k * _LN2_HI + (2.0 * s * p + k * _LN2_LO)


@njit(cache=True)
def exp_array(x: np.ndarray) -> np.ndarray:
    """``exp`` of every element of a float64 array (numpy's ``exp`` rounds by the CPU's vector width)."""
    out = np.empty(x.shape)
    flat, into = np.ascontiguousarray(x).ravel(), out.ravel()
    for i in range(flat.size):
        into[i] = exp(flat[i])
    return out


@njit(cache=True)
def power_array(x: np.ndarray, y: float) -> np.ndarray:
    """``x ** y`` of every element of a contiguous float64 array of positive numbers, as
    ``exp(y log x)`` (accurate to about ``|y log x|`` units in the last place)."""
    out = np.empty_like(x)
    flat, into = x.ravel(), out.ravel()
    for i in range(flat.size):
        into[i] = exp(y * log(flat[i]))
    return out


@njit(cache=True, inline="always")
def tanh(x: float) -> float:
    """The hyperbolic tangent: its odd series near 0, (1 - e) / (1 + e) with e = exp(-2|x|) elsewhere.

    Both are computed and one is chosen, without branches: a loop of them runs a lane per value,
    each lane with the operations of one ``tanh``."""
    a = abs(x)
    s = x * x
    near = x * (1.0 + s * (-1.0 / 3.0 + s * (2.0 / 15.0 + s * (-17.0 / 315.0 + s * (62.0 / 2835.0
                                                                                  + s * (-1382.0 / 155925.0))))))
    p, k = _exp_parts(-2.0 * (a if a < _TANH_ONE else _TANH_ONE))  # k >= -56: 2 ** k is normal
    e = p * _two_to(k)
    t = 1.0 if a > _TANH_ONE else _divide(1.0 - e, 1.0 + e)
    t = -t if x < 0 else t
    t = near if a < _TANH_SMALL else t
    return x if a != a else t
