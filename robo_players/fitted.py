"""Small models fitted once from a player's own games, one file per table: shipped, cached, or fitted.

Two such models exist: the spread of final totals about the coach's estimate
(``robo_players.coach.spread``, behind the coach's estimated chances to win)
and ``best``'s cell model (``robo_players.best_win``). The standard tables'
models ship in ``robo_players/bots/fitted/`` (``python -m scripts.fit_models``
writes them); any other table's is fitted at its first use, said on stderr,
and cached beside the solutions (``$YAMB_CACHE``). A damaged copy is fitted
again. A model's file name holds everything that makes it: the table's stem,
the player, the number of games, the seed and the format.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from expected_scores.solve import cache_dir
from yamb.atomic import WriteError, write_atomically
from yamb.parsing import ParseError, read_npz

SHIPPED = Path(__file__).parent / "bots" / "fitted"


def fitted_arrays(name: str, fit: Callable[[], dict[str, np.ndarray]], what: str) -> dict[str, np.ndarray]:
    """The arrays of the model ``name`` (its file ``name.npz``): shipped, cached, else ``fit()`` (said on
    stderr as fitting ``what``, seconds to a minute or two) and cached."""
    cached = cache_dir() / f"{name}.npz"
    for path in (SHIPPED / f"{name}.npz", cached):
        if path.is_file():
            try:
                return read_npz(path)
            except (ParseError, OSError):
                pass  # damaged: fitted again
    print(f"fitting {what}, once (seconds to a minute or two); cached in {cached}", file=sys.stderr, flush=True)
    begin = time.perf_counter()
    arrays = {key: np.asarray(value) for key, value in fit().items()}
    print(f"  fitted in {time.perf_counter() - begin:.0f} s", file=sys.stderr, flush=True)

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)

    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(cached, write)
    except (WriteError, OSError) as error:
        print(f"could not cache {what} in {cached}: {getattr(error, 'reason', error)}", file=sys.stderr)
    return arrays
