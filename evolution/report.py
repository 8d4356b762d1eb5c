"""The end of a run: the hall of fame played again on fresh dice, and the files that report it.

No individual is called best on the dice it was selected with: every
candidate plays ``final_games`` new games (the same dice for all, and for the
``expectimax`` reference), and the best mean wins. The candidates are the
hall-of-fame members and, for the strategies (``cma``, ``sep-cma``, ``es``), the
strategy's mean: it is never played
during the run, but it averages out the luck that put the hall-of-fame
members there, and after a long run it is often the strongest.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from deap import base

from evolution.algorithms import field_of, match_for, play, strategy_mean
from evolution.evaluate import FINAL, dice_seed, reference_scores
from evolution.individual import Individual
from evolution.run_dir import RunDir
from evolution.run_files import BEST_FILE, FITNESS_PLOT, HALL_OF_FAME_FILE, SCORES_PLOT, SUMMARY_FILE
from evolution.state import RunState
from robo_players.measure.compare import paired_difference
from robo_players.measure.simulate import summary
from robo_players.neural.files import NeuralWeights, save_weights, write_npz
from yamb.atomic import write_atomically


@dataclass
class FinalCheck:
    """Scores (H, games) of the candidates and (games,) of expectimax on the same fresh dice."""

    seed: int
    members: list[Individual]
    scores: np.ndarray
    expectimax: np.ndarray
    accept_p: float = 0.0  # > 0: the first member is the incumbent, beaten only with p below this

    @property
    def best(self) -> int:
        """The highest mean; with an incumbent, only if better than it with ``p < accept_p`` (paired)."""
        best = int(self.scores.mean(axis=1).argmax())
        if self.accept_p and best and paired_difference(self.scores[best], self.scores[0])["p"] >= self.accept_p:
            return 0
        return best


def candidates(state: RunState) -> list[Individual]:
    """The hall of fame (or with ``accept_games``, the incumbent instead: the hall of fame's members
    were picked by luck as much as by play), then for a strategy (cma, sep-cma, es) its mean with the
    latest cell values (no fitness)."""
    members = list(state.hall_of_fame) if state.incumbent is None else [Individual(state.incumbent)]
    if state.incumbent is not None:
        members[0].cell_values = state.incumbent.cell_values.copy()
    if state.strategy is not None:
        members.append(strategy_mean(state))
    return members


def final_check(state: RunState, toolbox: base.Toolbox) -> FinalCheck:
    """Play every candidate (with its own cell values) and expectimax on fresh dice (field
    hall-of-fame: against the final hall's best, the field the verdict plays too)."""
    c = state.config
    state.field = field_of(state)
    members = candidates(state)
    seed = dice_seed(c.seed, FINAL, 0)
    cell_values = np.stack([m.cell_values for m in members])
    scores, _ = play(toolbox, state, np.asarray(members), cell_values, c.final_games, seed)
    accept_p = c.accept_p if state.incumbent is not None else 0.0
    return FinalCheck(seed, members, scores, reference_scores(state.spec, c.final_games, seed, c.luck, match_for(state)),
                      accept_p)


def _selected(member: Individual) -> float | None:
    """A candidate's advantage over expectimax on the dice it was selected with (None: the strategy's mean)."""
    return member.fitness.values[0] if member.fitness.valid else None


def new_axes(height: float = 4.0):
    """A figure and its axes, drawn without a display."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(7, height))


def save_plot(fig, ax, path: Path, xlabel: str, ylabel: str, title: str, legend: str = "best") -> None:
    """Label the axes, place the legend at ``legend`` and write a PNG."""
    import matplotlib.pyplot as plt

    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(loc=legend)
    fig.tight_layout()
    try:  # whole or not at all: a full disk leaves no 0-byte plot, and its error names the file
        write_atomically(path, lambda tmp: fig.savefig(tmp, format="png", dpi=100))
    finally:
        plt.close(fig)


def plot_fitness(frame: pd.DataFrame, path: Path) -> None:
    """Best, mean and spread (mean ± std) of the fitness per generation, and expectimax on the same dice."""
    fig, ax = new_axes()
    ax.fill_between(frame.gen, frame["avg"] - frame["std"], frame["avg"] + frame["std"], alpha=0.25,
                    label="mean ± std")
    ax.plot(frame.gen, frame["max"], label="best")
    ax.plot(frame.gen, frame["avg"], label="mean")
    ax.plot(frame.gen, frame["expectimax"], color="grey", linestyle="--", label="expectimax")
    save_plot(fig, ax, path, "generation", "mean score on the generation's dice", "fitness")


def plot_scores(best: np.ndarray, reference: np.ndarray, path: Path) -> None:
    """Histogram of the best player's final scores, expectimax's outlined."""
    fig, ax = new_axes()
    bins = np.linspace(min(best.min(), reference.min()), max(best.max(), reference.max()) + 1, 40)
    ax.hist(best, bins=bins, alpha=0.6, label=f"best evolved (mean {best.mean():.1f})")
    ax.hist(reference, bins=bins, histtype="step", label=f"expectimax (mean {reference.mean():.1f})")
    save_plot(fig, ax, path, "final score", "games", "final scores on fresh dice")


def write_results(state: RunState, check: FinalCheck, run_dir: RunDir, check_seconds: float, verdict: dict) -> dict:
    """Best weights, hall of fame, plots and summary (with ``verdict``, evolution.verdict) of a finished run;
    returns the summary."""
    c = state.config
    members = check.members
    best, best_scores = members[check.best], check.scores[check.best]
    info = {"fitness": float(best_scores.mean()), "seed": c.seed, "run_preset": c.recipe,  # the weights file key keeps its first name
            "generation": state.generation, "games": c.final_games}
    save_weights(NeuralWeights(state.spec, np.asarray(best, dtype=np.float32),
                               best.cell_values.astype(np.float32), info), run_dir / BEST_FILE)

    def write_hall(tmp: Path) -> None:
        write_npz(tmp, {"genomes": np.asarray(members), "cell_values": np.stack([m.cell_values for m in members]),
                        "advantage_when_selected": np.array([m.fitness.values[0] if m.fitness.valid else np.nan
                                                             for m in members]),
                        "final_mean": check.scores.mean(axis=1)})

    run_dir.write(HALL_OF_FAME_FILE, write_hall)
    frame = pd.DataFrame(list(state.logbook), columns=state.logbook.header)
    run_dir.write(FITNESS_PLOT, lambda tmp: plot_fitness(frame, tmp))
    run_dir.write(SCORES_PLOT, lambda tmp: plot_scores(best_scores, check.expectimax, tmp))
    # "cma_mean": the candidate is the strategy's mean (cma, sep-cma or es); the key keeps its first name;
    # "incumbent": the run's incumbent (accept_games), the first candidate

    def kind(i: int) -> dict:
        incumbent = i == 0 and state.incumbent is not None
        return {"cma_mean": not (members[i].fitness.valid or incumbent), "incumbent": incumbent}

    result = {
        "config": asdict(c),
        "player": c.player, "table": state.spec.table.describe(), "weights": int(best.size),
        "generations": state.generation,
        "seconds_per_generation": float(frame.seconds.mean()),
        "first_generation": {k: float(frame[k].iloc[0]) for k in ("avg", "max")},
        "last_generation": {k: float(frame[k].iloc[-1]) for k in ("avg", "max")},
        "final_check": {"games": c.final_games, "seed": check.seed, "seconds": check_seconds},
        "best": {**summary(best_scores), "candidate": check.best, **kind(check.best),
                 "advantage_when_selected": _selected(best)},
        "candidates": [{**kind(i), "advantage_when_selected": _selected(m), "final_mean": float(s.mean())}
                       for i, (m, s) in enumerate(zip(members, check.scores))],
        "expectimax": summary(check.expectimax),
        "best_minus_expectimax": paired_difference(best_scores, check.expectimax),
        "verdict": verdict,
    }
    run_dir.write(SUMMARY_FILE, lambda tmp: tmp.write_text(json.dumps(result, indent=2) + "\n"))
    return result
