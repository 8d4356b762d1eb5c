"""The libraries' kernels are pinned before they load, and only then (yamb/blas.py): numpy's
OpenBLAS, MKL's code path and torch's loops."""

from __future__ import annotations

import os
import subprocess
import sys

from yamb.blas import CORETYPE, cpu_flags

PINNED = ("OPENBLAS_CORETYPE", "MKL_CBWR", "ATEN_CPU_CAPABILITY")
PROBE = "import os, sys; {first}import yamb; print(*(os.environ.get(v) for v in {names}))"


def _probe(first: str = "", **env: str) -> list[str]:
    environment = {k: v for k, v in os.environ.items() if k not in PINNED} | env
    out = subprocess.run([sys.executable, "-c", PROBE.format(first=first, names=PINNED)], env=environment,
                         capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_the_kernels_are_pinned_where_the_cpu_has_them() -> None:
    flags = cpu_flags()
    assert _probe() == [CORETYPE if {"avx2", "fma"} <= flags else "None", "COMPATIBLE",
                        "avx2" if "avx2" in flags else "None"]


def test_a_choice_of_the_user_or_a_library_already_loaded_is_left_alone() -> None:
    assert _probe(OPENBLAS_CORETYPE="Zen", MKL_CBWR="AVX2")[:2] == ["Zen", "AVX2"]
    assert _probe(first="import numpy; ")[0] == "None"  # too late to take effect: not pretended
    assert _probe(first="import torch; ")[1:] == ["None", "None"]


CORENAME = """
import ctypes, glob, os, yamb, numpy
lib = ctypes.CDLL(glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*"))[0])
corename = [getattr(lib, n) for n in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename")
    if hasattr(lib, n)][0]
corename.restype = ctypes.c_char_p
print(corename().decode())
"""


def test_openblas_runs_the_pinned_kernels() -> None:
    """What OpenBLAS itself reports: the kernels of the recorded runs (tests/test_bit_identical.py)."""
    environment = {k: v for k, v in os.environ.items() if k not in PINNED}
    out = subprocess.run([sys.executable, "-c", CORENAME], env=environment, capture_output=True, text=True,
                         check=True).stdout.strip()
    if {"avx2", "fma"} <= cpu_flags():
        assert out == CORETYPE
