"""numpy's OpenBLAS kernels are pinned before numpy loads, and only then (yamb/blas.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from yamb.blas import CORETYPE, cpu_flags

PROBE = "import os, sys; {first}import yamb; print(os.environ.get('OPENBLAS_CORETYPE'))"


def _probe(first: str = "", **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"} | env
    out = subprocess.run([sys.executable, "-c", PROBE.format(first=first)], env=environment,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_the_avx2_kernels_are_pinned_where_the_cpu_has_them() -> None:
    expected = CORETYPE if {"avx2", "fma"} <= cpu_flags() else "None"
    assert _probe() == expected


def test_a_choice_of_the_user_or_a_numpy_already_loaded_is_left_alone() -> None:
    assert _probe(OPENBLAS_CORETYPE="Zen") == "Zen"
    assert _probe(first="import numpy; ") == "None"  # too late to take effect: not pretended


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
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    out = subprocess.run([sys.executable, "-c", CORENAME], env=environment, capture_output=True, text=True,
                         check=True).stdout.strip()
    if {"avx2", "fma"} <= cpu_flags():
        assert out == CORETYPE
