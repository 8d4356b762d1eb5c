"""How many threads the players' libraries use: torch's (networks, fits) and numba's (the kernels)."""

from __future__ import annotations


def use_threads(threads: int) -> None:
    """Limit this process to ``threads`` torch and numba threads (numba's at most the pool it started)."""
    import numba
    import torch

    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
