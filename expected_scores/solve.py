"""Exact whole-game solvers by table, with the solved values cached on disk.

``solve(preset, columns, joker)`` picks the solver: one ``free`` column of
Yatzy or Yahtzee (``expected_scores.solitaire``), of a preset with a
difference row (``expected_scores.free_column``), one ``announce`` column of
such a preset (``expected_scores.announce_column``), or one ``down``/``up``
column (``expected_scores.ordered_column``). Solutions are saved as ``.npz`` under
``$YAMB_CACHE`` (default ``~/.cache/yamb``), keyed by the rules and checked
against a digest of the score tables, so a changed rule set is solved again.

Both solution kinds answer an optimal player the same way::

    sol = solve("yahtzee")
    state = sol.state_of(batch, games)          # tuple of arrays
    sol.value(*state)                           # expected points still to come
    options = sol.turn_options(*state)          # (n, M) -> expected_scores.turn.plan_turn
    fills = sol.fill_values(*state, dice)       # (n, R), -inf where a row may not be filled
"""

from __future__ import annotations

import hashlib
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from expected_scores.announce_column import solve_announce_column
from expected_scores.free_column import FreeColumnSolution, check_free_column, solve_free_column
from expected_scores.ordered_column import ORDERED_KINDS, ColumnSolution, check_column, solve_column
from expected_scores.solitaire import SolitaireSolution, solve_solitaire
from yamb.atomic import WriteError, write_atomically
from yamb.columns import check_kind
from yamb.errors import UnknownColumnError
from yamb.parsing import ParseError, read_npz
from yamb.rules import Rules
from yamb.rules import rules as make_rules

Solution = SolitaireSolution | ColumnSolution | FreeColumnSolution
CACHE_ENV = "YAMB_CACHE"
FORMAT = 1


def cache_dir() -> Path:
    """Folder of the cached solutions: ``$YAMB_CACHE`` or ``~/.cache/yamb``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "yamb")


def table_kind(rules: Rules, columns: tuple[str, ...] | list[str] | None) -> str:
    """The single column kind of a table the solvers handle, or a precise error (nothing is solved)."""
    kinds = tuple(columns) if columns is not None else rules.default_columns
    for kind in kinds:
        check_kind(kind)
    announce = kinds == ("announce",) and rules.spec.difference is not None
    if len(kinds) != 1 or kinds[0] not in ("free", *ORDERED_KINDS) and not announce:
        raise UnknownColumnError(
            f"the exact solver handles one free column, one down or up column of a preset without "
            f"jokers, or one announce column of a preset with a difference row; not {','.join(kinds)} "
            f"for {rules.name}"
        )
    if kinds[0] in ORDERED_KINDS:
        check_column(rules, kinds[0])
    elif rules.spec.difference is not None:  # solved by the free-column model (Yatzy's free column: solitaire)
        check_free_column(rules)
    return kinds[0]


def _digest(rules: Rules, kind: str) -> str:
    spec = rules.spec
    text = repr((FORMAT, kind, rules.rolls, spec.last_turn_rolls, spec.bonus, spec.bonus_threshold,
                 spec.difference, spec.extra_yahtzee_bonus, rules.joker))
    h = hashlib.sha256(text.encode())
    h.update(rules.scores.tobytes())
    h.update(rules.joker_scores.tobytes())
    return h.hexdigest()[:16]


def cache_path(rules: Rules, kind: str) -> Path:
    joker = rules.joker or "none"
    return cache_dir() / f"{rules.name}-{rules.n_dice}dice-{kind}-joker_{joker}-v{FORMAT}.npz"


def _save(solution: Solution, path: Path, digest: str) -> None:
    arrays = {"values": solution.values, "seconds": solution.seconds, "digest": digest}
    if isinstance(solution, ColumnSolution):
        arrays["keys"] = solution.keys
    else:
        arrays["states"] = solution.states

    def write(tmp: Path) -> None:
        with open(tmp, "wb") as f:  # a file object: numpy adds no ".npz" to its name
            np.savez_compressed(f, **arrays)

    try:
        write_atomically(path, write)
    except WriteError as error:
        warnings.warn(f"could not cache the solution in {path}: {error.reason}", stacklevel=3)


def _load(rules: Rules, kind: str, path: Path, digest: str) -> Solution | None:
    """The cached solution at ``path``, or None when there is none for ``digest``; a damaged one (cut
    short, a flipped bit, a member missing) is said in one line on stderr and solved again."""
    if not path.exists():
        return None
    try:
        f = read_npz(path)
        if str(f["digest"]) != digest:
            return None
        if kind in ORDERED_KINDS:
            return ColumnSolution(rules=rules, kind=kind, keys=f["keys"], values=f["values"],
                                  seconds=float(f["seconds"]))
        solution = SolitaireSolution if rules.spec.difference is None else FreeColumnSolution
        return solution(rules=rules, values=f["values"], seconds=float(f["seconds"]), states=int(f["states"]))
    except (ParseError, KeyError, ValueError, TypeError) as error:
        reason = f"{error.args[0]} is missing" if isinstance(error, KeyError) else str(error)
        print(f"the cached solution {path} is damaged ({reason}); solving it again", file=sys.stderr, flush=True)
        return None


def solve(
    preset: str = "yahtzee",
    columns: tuple[str, ...] | list[str] | None = None,
    joker: str | None = None,
    dice: int | None = None,
    use_cache: bool = True,
) -> Solution:
    """The exact solution of a one-column table; from the cache when ``use_cache`` and present.

    A fresh solution is always written to the cache. ``seconds`` is the time the
    solve took (when loaded, the time it took then).
    """
    rules = make_rules(preset, dice=dice, joker=joker)
    kind = table_kind(rules, columns)
    path, digest = cache_path(rules, kind), _digest(rules, kind)
    if use_cache and (cached := _load(rules, kind, path, digest)) is not None:
        return cached
    if kind not in ORDERED_KINDS:  # seconds (Yatzy) to minutes (a yamb or jamb6 column): say why play waits
        print(f"solving one {kind} column of {rules.name} ({rules.n_dice} dice) exactly, once; cached in {path}",
              file=sys.stderr, flush=True)
    if kind in ORDERED_KINDS:
        solution = solve_column(rules, kind)
    elif kind == "announce":
        solution = solve_announce_column(rules)
    elif rules.spec.difference is None:
        solution = solve_solitaire(rules)
    else:
        solution = solve_free_column(rules)
    _save(solution, path, digest)
    return solution
