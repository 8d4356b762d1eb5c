"""Evolution of neural players with DEAP: GA, CMA-ES, separable CMA-ES and the OpenAI ES.

The names a user needs, imported on first use (they load numba and torch)::

    from evolution import evolve, from_recipe, plan, start, with_settings

    config = with_settings(from_recipe("quick"), {"game": "yatzy", "generations": 5})
    state = start(plan(config), "runs/mine")  # the settings checked, the start read, once
    result = evolve(state, "runs/mine")        # the summary; best.pt and the rest in runs/mine

- ``EvolveConfig``, ``RECIPES``, ``from_recipe``, ``with_settings``, ``read_toml``,
  ``parse_assignments``, ``ConfigError``: the settings (``evolution.config``);
- ``plan(config)``: a run's ``Plan``, or why there is none (``evolution.planning``);
- ``start``, ``resume``, ``evolve``, ``default_run_dir``: a run (``evolution.run``);
- ``RunDir``: a run directory's files (``evolution.run_dir``);
- ``candidates``, ``verdict_lines``, ``gene_index``: what the console says of a run.

Shelved: ``strategies/`` (the ask/tell strategies behind one protocol, the GA's operators),
``sweeps/`` (Optuna sweeps of runs).
"""

from __future__ import annotations

EXPORTS = {
    "ConfigError": "evolution.config",
    "EvolveConfig": "evolution.config",
    "RECIPES": "evolution.config",
    "from_recipe": "evolution.config",
    "parse_assignments": "evolution.config",
    "read_toml": "evolution.config",
    "with_settings": "evolution.config",
    "Plan": "evolution.state",
    "plan": "evolution.planning",
    "default_run_dir": "evolution.run",
    "evolve": "evolution.run",
    "resume": "evolution.run",
    "start": "evolution.run",
    "RunDir": "evolution.run_dir",
    "candidates": "evolution.report",
    "verdict_lines": "evolution.verdict",
    "gene_index": "evolution.strategies.genes",
}
__all__ = sorted(EXPORTS)


def __getattr__(name: str) -> object:
    """The exported names, their modules imported on first use."""
    if name in EXPORTS:
        import importlib

        return getattr(importlib.import_module(EXPORTS[name]), name)
    raise AttributeError(f"module 'evolution' has no attribute {name!r}")
