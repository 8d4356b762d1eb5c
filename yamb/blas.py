"""The same linear algebra on every x86-64 CPU: the libraries' kernels pinned before they load.

What plays and evolves is computed by the project's own kernels, the same on
every machine (``yamb.portable_math``, ``yamb.portable_linalg``,
``robo_players.neural.dense``). The libraries still do some work: numpy's
OpenBLAS (tables built once) and torch, which fits networks (``yamb fit``,
``fit-values``, ``fit-afterstates``, ``imitate``). Each picks its kernels by
CPU when it loads, and the kernels round sums differently: MKL's AVX-512 ones
on an Intel CPU, its AVX2 ones on an AMD CPU; torch's own AVX-512 and AVX2
loops; OpenBLAS's SkylakeX and Haswell kernels. So the package pins, before
the library loads and unless the user has chosen (the variable set):

- ``OPENBLAS_CORETYPE=Haswell`` where the CPU has AVX2 and FMA;
- ``MKL_CBWR=COMPATIBLE``: MKL's code path that gives the same results on every
  Intel and AMD processor (torch's matrix products; about half the speed);
- ``ATEN_CPU_CAPABILITY=avx2`` where the CPU has AVX2: torch's AVX2 loops on
  AVX-512 machines too.

Worker processes inherit the choices.
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


def _pin(variable: str, value: str, library: str) -> None:
    if variable not in os.environ and library not in sys.modules:
        os.environ[variable] = value


def pin_kernels() -> dict[str, str | None]:
    """Set the variables above where they can still take effect and the CPU runs those kernels;
    returns each variable's value in force (None: the library chooses)."""
    flags = cpu_flags()
    if {"avx2", "fma"} <= flags:
        _pin("OPENBLAS_CORETYPE", CORETYPE, "numpy")
    _pin("MKL_CBWR", "COMPATIBLE", "torch")
    if "avx2" in flags:
        _pin("ATEN_CPU_CAPABILITY", "avx2", "torch")
    return {name: os.environ.get(name) for name in ("OPENBLAS_CORETYPE", "MKL_CBWR", "ATEN_CPU_CAPABILITY")}
