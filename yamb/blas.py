"""The same linear algebra on every x86-64 CPU: numpy's OpenBLAS kernels pinned before numpy loads.

numpy's OpenBLAS chooses its kernels by CPU at load time, and the AVX-512 ones
round some sums differently from the AVX2 ones in the last bits: enough to
change a CMA-ES run (its covariance update, ``deap.cma``) from its second
generation, so that the same seed gave another run on an AVX-512 machine. The
package pins OpenBLAS's AVX2 (``Haswell``) kernels where the CPU has AVX2 and
FMA, when numpy is not loaded yet and the user has not chosen
(``OPENBLAS_CORETYPE`` set). Worker processes inherit the choice.
"""

from __future__ import annotations

import os
import sys

CORETYPE = "Haswell"


def cpu_flags() -> set[str]:
    """The CPU's feature flags (Linux), or none."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def pin_openblas_kernels() -> str | None:
    """Set ``OPENBLAS_CORETYPE`` to ``CORETYPE`` where it can still take effect and the CPU runs those
    kernels; returns the core type in force (None: OpenBLAS chooses)."""
    if "OPENBLAS_CORETYPE" in os.environ or "numpy" in sys.modules:
        return os.environ.get("OPENBLAS_CORETYPE")
    if {"avx2", "fma"} <= cpu_flags():
        os.environ["OPENBLAS_CORETYPE"] = CORETYPE
    return os.environ.get("OPENBLAS_CORETYPE")
