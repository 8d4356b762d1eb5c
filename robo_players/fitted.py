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
from robo_players.computed import keep, read_kept
from yamb.atomic import WriteError
from yamb.engine import GameBatch

SHIPPED = Path(__file__).parent / "bots" / "fitted"


PROGRESS_SECONDS = 10.0  # a fit's progress said at most this often


def turn_reached(batch: GameBatch) -> str:
    """A fit's step: the turn of the game that the slowest of ``batch``'s games has reached."""
    lay = batch.layout
    return f"turn {min(int(batch.turn.min()) // lay.players + 1, lay.n_cells)} of {lay.n_cells}"


def fitted_arrays(name: str, fit: Callable[[Callable[[str], None]], dict[str, np.ndarray]],
                  what: str) -> dict[str, np.ndarray]:
    """The arrays of the model ``name`` (its file ``name.npz``): shipped, cached, else ``fit(say)`` (said on
    stderr as fitting ``what``; ``say(step)`` puts the fit's progress there, at most every
    ``PROGRESS_SECONDS``) and cached."""
    cached = cache_dir() / f"{name}.npz"
    for path in (SHIPPED / f"{name}.npz", cached):
        if (arrays := read_kept(path)) is not None:
            return arrays  # (a damaged one is fitted again)
    print(f"fitting {what}, once; cached in {cached}", file=sys.stderr, flush=True)
    begin = said = time.perf_counter()

    def say(step: str) -> None:
        nonlocal said
        if (now := time.perf_counter()) - said >= PROGRESS_SECONDS:
            said = now
            print(f"  {step} ({now - begin:.0f} s)", file=sys.stderr, flush=True)

    arrays = {key: np.asarray(value) for key, value in fit(say).items()}
    print(f"  fitted in {time.perf_counter() - begin:.0f} s", file=sys.stderr, flush=True)
    try:
        keep(cached, arrays)
    except (WriteError, OSError) as error:
        print(f"could not cache {what} in {cached}: {getattr(error, 'reason', error)}", file=sys.stderr)
    return arrays
