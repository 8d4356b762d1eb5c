"""What a sweep found: its best trials, and Optuna's plots of the study (matplotlib, no display)."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import optuna
from optuna.trial import FrozenTrial, TrialState

from evolution.sweeps.sweep import RUN_DIR
from evolution.sweeps.worker import trial_number
from robo_players.neural.files import write_atomically

PLOTS_DIR = "plots"


def best_trials(study: optuna.Study, top: int) -> list[FrozenTrial]:
    """The ``top`` complete trials, best value first."""
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    return sorted(complete, key=lambda t: t.value, reverse=True)[:top]


def state_counts(study: optuna.Study) -> dict[str, int]:
    """How many trials are complete, pruned, running, waiting or failed. A trial number finishes
    once (a retry finishes under its original's number), so complete and pruned count trial numbers;
    failed counts the trials that were retried, or were duplicate copies."""
    return dict(Counter(t.state.name.lower() for t in study.get_trials(deepcopy=False)))


def describe_params(params: dict[str, object]) -> str:
    """``name=value`` pairs, floats to three significant digits."""
    return " ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())


def trial_row(trial: FrozenTrial) -> list[str]:
    """Trial number, value ± sem, generations played, parameters and run directory, as text."""
    sem = trial.user_attrs.get("sem")
    value = f"{trial.value:.1f}" + ("" if sem is None else f" ± {sem:.1f}")
    number = trial_number(trial)
    shown = str(number) if number == trial.number else f"{number} (retried as {trial.number})"
    return [shown, value, str(len(trial.intermediate_values)), describe_params(trial.params),
            str(trial.user_attrs.get(RUN_DIR, ""))]


def _plots() -> dict[str, Callable]:
    import matplotlib

    matplotlib.use("Agg")
    from optuna.visualization import matplotlib as plots

    return {
        "optimization_history": plots.plot_optimization_history,
        "param_importances": plots.plot_param_importances,
        "parallel_coordinate": plots.plot_parallel_coordinate,
        "intermediate_values": plots.plot_intermediate_values,
    }


def write_plots(study: optuna.Study, out_dir: Path) -> dict[str, str]:
    """Write each plot as ``out_dir/<name>.png``; name to the path, or to why the plot was skipped."""
    import matplotlib.pyplot as plt

    written = {}
    for name, plot in _plots().items():
        try:
            with warnings.catch_warnings():  # "experimental", and flat axes of parameters that did not vary
                warnings.simplefilter("ignore")
                ax = plot(study)
        except (ValueError, RuntimeError) as error:  # e.g. no complete trial yet
            written[name] = f"skipped: {error}"
            continue
        figure = ax.figure
        figure.set_size_inches(10, 6)
        figure.tight_layout()
        path = Path(out_dir) / f"{name}.png"
        write_atomically(path, lambda tmp: figure.savefig(tmp, format="png", dpi=100))
        plt.close(figure)
        written[name] = str(path)
    return written
