"""The linear algebra of the evolution strategies, the same bits on every machine.

numpy's matrix products and ``eigh`` call the BLAS and LAPACK that numpy ships
(OpenBLAS), which pick their kernels by CPU (Haswell, SkylakeX, Zen...) and
split sums among their threads: on another machine, or with another thread
count, CMA-ES drew other samples after a few generations. These kernels sum
in a fixed order, with IEEE operations only (numba, no ``fastmath``): a wider
vector unit computes more independent sums at once, never one sum otherwise.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

EPS = 2.0**-52


@njit(cache=True)
def weighted_rows(weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``sum_i weights[i] * rows[i]`` (rows (m, n)), each sum in the order of ``i``."""
    out = np.zeros(rows.shape[1])
    for i in range(rows.shape[0]):
        w = weights[i]
        for j in range(rows.shape[1]):
            out[j] += w * rows[i, j]
    return out


@njit(cache=True)
def times_transposed(z: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``z @ m.T`` for z (l, n) and m (p, n): each entry summed over ``n`` in order."""
    mt = np.ascontiguousarray(m.T)
    out = np.zeros((z.shape[0], m.shape[0]))
    for a in range(z.shape[0]):
        for k in range(z.shape[1]):
            v = z[a, k]
            for b in range(m.shape[0]):
                out[a, b] += v * mt[k, b]
    return out


@njit(cache=True)
def matvec(m: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``m @ x``, each entry summed over ``x`` in order."""
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        s = 0.0
        for k in range(m.shape[1]):
            s += m[i, k] * x[k]
        out[i] = s
    return out


@njit(cache=True)
def norm(x: np.ndarray) -> float:
    """The Euclidean norm, its squares summed in order."""
    s = 0.0
    for v in x:
        s += v * v
    return math.sqrt(s)


@njit(cache=True)
def covariance_update(c: np.ndarray, keep: float, one: float, path: np.ndarray, mu: float,
                      weights: np.ndarray, steps: np.ndarray) -> None:
    """``c = keep * c + one * outer(path, path) + mu * sum_i weights[i] * outer(steps[i], steps[i])``
    in place, the sum over ``i`` in order; computed on and below the diagonal and mirrored, so that
    ``c`` stays exactly symmetric."""
    n = c.shape[0]
    for a in range(n):
        for b in range(a + 1):
            s = 0.0
            for i in range(steps.shape[0]):
                s += weights[i] * steps[i, a] * steps[i, b]
            c[a, b] = keep * c[a, b] + one * path[a] * path[b] + mu * s
            c[b, a] = c[a, b]


@njit(cache=True, inline="always")
def _hypot(a: float, b: float) -> float:
    """sqrt(a^2 + b^2) without overflow, with IEEE operations only."""
    a, b = abs(a), abs(b)
    if a < b:
        a, b = b, a
    if a == 0.0:
        return 0.0
    r = b / a
    return a * math.sqrt(1.0 + r * r)


@njit(cache=True)
def _tridiagonalize(v: np.ndarray, d: np.ndarray, e: np.ndarray) -> None:
    """Householder reduction of the symmetric matrix in ``v`` (column-major) to tridiagonal form:
    diagonal ``d``, subdiagonal ``e`` (``e[0]`` 0), the transformation accumulated in ``v``."""
    n = v.shape[0]
    for j in range(n):
        d[j] = v[n - 1, j]
    for i in range(n - 1, 0, -1):
        scale = 0.0
        h = 0.0
        for k in range(i):
            scale += abs(d[k])
        if scale == 0.0:
            e[i] = d[i - 1]
            for j in range(i):
                d[j] = v[i - 1, j]
                v[i, j] = 0.0
                v[j, i] = 0.0
        else:
            for k in range(i):
                d[k] /= scale
                h += d[k] * d[k]
            f = d[i - 1]
            g = math.sqrt(h)
            if f > 0:
                g = -g
            e[i] = scale * g
            h = h - f * g
            d[i - 1] = f - g
            for j in range(i):
                e[j] = 0.0
            for j in range(i):
                f = d[j]
                v[j, i] = f
                g = e[j] + v[j, j] * f
                for k in range(j + 1, i):
                    g += v[k, j] * d[k]
                    e[k] += v[k, j] * f
                e[j] = g
            f = 0.0
            for j in range(i):
                e[j] /= h
                f += e[j] * d[j]
            hh = f / (h + h)
            for j in range(i):
                e[j] -= hh * d[j]
            for j in range(i):
                f = d[j]
                g = e[j]
                for k in range(j, i):
                    v[k, j] -= f * e[k] + g * d[k]
                d[j] = v[i - 1, j]
                v[i, j] = 0.0
        d[i] = h
    for i in range(n - 1):
        v[n - 1, i] = v[i, i]
        v[i, i] = 1.0
        h = d[i + 1]
        if h != 0.0:
            for k in range(i + 1):
                d[k] = v[k, i + 1] / h
            for j in range(i + 1):
                g = 0.0
                for k in range(i + 1):
                    g += v[k, i + 1] * v[k, j]
                for k in range(i + 1):
                    v[k, j] -= g * d[k]
        for k in range(i + 1):
            v[k, i + 1] = 0.0
    for j in range(n):
        d[j] = v[n - 1, j]
        v[n - 1, j] = 0.0
    v[n - 1, n - 1] = 1.0
    e[0] = 0.0


@njit(cache=True)
def _diagonalize(v: np.ndarray, d: np.ndarray, e: np.ndarray) -> None:
    """Implicit QL iterations on the tridiagonal ``d``, ``e`` (from ``_tridiagonalize``): the
    eigenvalues into ``d``, the rotations accumulated into ``v``'s columns."""
    n = v.shape[0]
    for i in range(1, n):
        e[i - 1] = e[i]
    e[n - 1] = 0.0
    f = 0.0
    tst1 = 0.0
    for lo in range(n):
        tst1 = max(tst1, abs(d[lo]) + abs(e[lo]))
        m = lo
        while m < n - 1 and abs(e[m]) > EPS * tst1:
            m += 1
        if m > lo:
            while True:
                g = d[lo]
                p = (d[lo + 1] - g) / (2.0 * e[lo])
                r = _hypot(p, 1.0)
                if p < 0:
                    r = -r
                d[lo] = e[lo] / (p + r)
                d[lo + 1] = e[lo] * (p + r)
                dl1 = d[lo + 1]
                h = g - d[lo]
                for i in range(lo + 2, n):
                    d[i] -= h
                f += h
                p = d[m]
                c = 1.0
                c2 = c
                c3 = c
                el1 = e[lo + 1]
                s = 0.0
                s2 = 0.0
                for i in range(m - 1, lo - 1, -1):
                    c3 = c2
                    c2 = c
                    s2 = s
                    g = c * e[i]
                    h = c * p
                    r = _hypot(p, e[i])
                    e[i + 1] = s * r
                    s = e[i] / r
                    c = p / r
                    p = c * d[i] - s * g
                    d[i + 1] = h + s * (c * g + s * d[i])
                    for k in range(n):
                        h = v[k, i + 1]
                        v[k, i + 1] = s * v[k, i] + c * h
                        v[k, i] = c * v[k, i] - s * h
                p = -s * s2 * c3 * el1 * e[lo] / dl1
                e[lo] = s * p
                d[lo] = c * p
                if abs(e[lo]) <= EPS * tst1:
                    break
        d[lo] = d[lo] + f
        e[lo] = 0.0


def symmetric_eigen(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenvalues of the symmetric matrix ``c`` in ascending order and its eigenvectors as the
    columns of the second array (``numpy.linalg.eigh``'s answer, up to each vector's sign), by
    Householder tridiagonalisation and the implicit QL method (Wilkinson and Reinsch's tred2 and tql2)."""
    n = c.shape[0]
    v = np.asfortranarray(c, dtype=np.float64).copy(order="F")
    d, e = np.zeros(n), np.zeros(n)
    if n:
        _tridiagonalize(v, d, e)
        _diagonalize(v, d, e)
    order = np.argsort(d, kind="stable")
    return d[order], np.ascontiguousarray(v[:, order])
