"""Set-up shared by every test module; the reference game of the rule book is ``tests/reference_game.py``."""

import yamb  # noqa: F401  (first: it pins numpy's BLAS kernels before numpy loads, yamb/blas.py)
