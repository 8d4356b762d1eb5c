"""Players of the batched engine: baselines, the search players, the exact ones and neural networks.

The names a user needs, imported on first use (they load numba and torch)::

    from robo_players import make_player, simulate
    from yamb.layout import layout
    from yamb.rules import rules

    lay = layout(rules("yatzy"))
    scores = simulate(lay, make_player("best-values", lay), 100, seed=1)

- ``make_player(name, layout)``: a player by its registry name or a weights file;
- ``play(batch, seats)``: a batch of games played to the end, one player per seat;
- ``simulate(layout, player, games, seed)``: many solitaire games, reproducibly;
- ``compare(layout, names, games, seed)``: players on the same dice, compared.

Shelved by role: ``search/`` (expectimax, the exact columns, the look-ahead and the search they
share), ``neural/`` (network players and their files), ``coach/``, ``measure/`` (simulate,
compare, luck) and ``training/`` (fitting networks; playing never loads it).
"""

from __future__ import annotations

EXPORTS = {
    "make_player": "robo_players.registry",
    "play": "robo_players.base",
    "simulate": "robo_players.measure.simulate",
    "compare": "robo_players.measure.compare",
}
__all__ = sorted(EXPORTS)


def __getattr__(name: str) -> object:
    """The exported names, their modules imported on first use."""
    if name in EXPORTS:
        import importlib

        return getattr(importlib.import_module(EXPORTS[name]), name)
    raise AttributeError(f"module 'robo_players' has no attribute {name!r}")
