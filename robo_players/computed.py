"""Arrays the code computes the same way every time, kept on disk once computed.

A player may need a large table that its own code computes from a shipped
file, such as ``best-values``' network evaluated on every state of the game
(seconds of a deterministic forward pass at every start). Such arrays are kept in the tree's
numba cache folder (``yamb.numba_cache``): it is named after the digest of every
source file, so an edit of the code that computes them starts afresh and nothing
stale is ever read, and folders unused for a week are removed. The file's name
holds a hash of everything else the arrays are made of. A damaged or unwritable
copy is computed again; nothing is said, as nothing but the time changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from yamb.atomic import WriteError, write_atomically
from yamb.numba_cache import tree_folder
from yamb.parsing import ParseError, read_npz
from yamb.rules import Rules

FOLDER = "arrays"


def rules_key(rules: Rules) -> bytes:
    """Everything of ``rules`` that the tables computed for them depend on (the scorers by their
    score tables)."""
    spec = rules.spec
    settings = (spec.name, rules.rows, rules.n_dice, rules.joker, spec.rolls, spec.last_turn_rolls, spec.bonus,
                spec.bonus_threshold, spec.difference, spec.pure_hand_announce, sorted(spec.joker_rows.items()),
                spec.extra_yahtzee_bonus)
    return repr(settings).encode() + rules.scores.tobytes() + rules.joker_scores.tobytes()


def read_kept(path: Path) -> dict[str, np.ndarray] | None:
    """The arrays kept in ``path``; None when there are none, or they are damaged (to be made again)."""
    try:
        return read_npz(path)
    except (ParseError, OSError):
        return None


def keep(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` to ``path`` atomically (its folder made); a ``WriteError`` or ``OSError`` if it cannot."""
    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:  # a file object: numpy adds no ".npz" to its name
            np.savez(f, **arrays)

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, write)


def computed_once(name: str, key: bytes, compute: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """``compute()``'s arrays, read from the file ``name``-(hash of ``key``) if it was computed before."""
    path = tree_folder() / FOLDER / f"{name}-{hashlib.blake2b(key, digest_size=8).hexdigest()}.npz"
    kept = read_kept(path)
    if kept is not None:
        return kept
    arrays = {k: np.asarray(v) for k, v in compute().items()}
    try:
        keep(path, arrays)
    except (WriteError, OSError):
        pass  # kept for this process only
    return arrays
