"""The verdict of a run: the evolved player against the player it started from and ``expectimax``.

After the final check has picked the best candidate, the best player, the
player the run started from (generation 0's CMA-ES mean or first GA
individual, or the ``init`` file's player) and ``expectimax`` play the same
fresh games: a dice seed used neither by a generation nor by the final check
(which selected the best and so flatters it). The differences are paired
game by game (``robo_players.measure.compare.paired_difference``: mean, standard
error, paired t-test p-value).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from deap import base

from evolution.algorithms import match_for, play_counted
from evolution.config import HALL_OF_FAME_FIELD, EvolveConfig
from evolution.evaluate import FINAL, Task, dice_seed, reference_played
from evolution.individual import Individual
from evolution.run_files import BEST_FILE
from evolution.state import RunState
from robo_players.measure.compare import paired_difference
from robo_players.measure.simulate import summary
from robo_players.search.lookahead import SUFFIX

VERDICT_CHECK = 1  # index of the verdict's dice under the final-check purpose (the final check is 0)
SIGNIFICANCE = 0.05


def starting_genome(state: RunState) -> tuple[np.ndarray, np.ndarray]:
    """The genome and cell values the run started from (``evolution.planning.starting_point``)."""
    return state.start.genome, state.start.cell_values


def start_strength(state: RunState, toolbox: base.Toolbox) -> list[str]:
    """The start's mean on the verdict's games, played before generation 1 (the same games, so the
    same mean the verdict will show, except against the hall of fame: the start plays itself here, the
    verdict the final hall); for an ``init`` file whose open cells will move with play
    (``open_cells`` played), a line saying so; and, when the run plays the file with another search
    (``played``, ``bonus``, ``exact``) than the file's, one line saying so with the file's own mean."""
    c = state.config
    seed = dice_seed(c.seed, FINAL, VERDICT_CHECK)
    genome, values = starting_genome(state)
    scores, luck, _ = play_counted(toolbox, state, genome[None], values[None], c.final_games, seed)
    mean = summary(scores[0])
    lines = [(f"the start, {describe_start(state)}, scores {mean['mean']:.2f} ± {mean['sem']:.2f} "
              f"on the verdict's {c.final_games:,} games")]
    if c.objective == "win" and c.field == HALL_OF_FAME_FIELD:
        lines[0] += (f" against itself in the other seats (the field until the hall of fame has a member: "
                     f"1/{c.opponents + 1} of the wins by symmetry)")
    if c.luck:
        adjusted = summary(scores[0] - luck[0])
        lines[0] += f" ({adjusted['mean']:.2f} ± {adjusted['sem']:.2f} less the luck {c.luck} sees in the dice)"
    if not c.init:
        return lines
    if c.open_cells == "played":
        lines.append("from generation 2 its network reads the last generation's averages for open cells, not the "
                     "file's values (a fitted network loses about a point so); --set open_cells=fixed keeps them")
    ours, theirs = state.spec, state.start.spec
    changed = [f"{name} {getattr(ours, name)} (the file's: {getattr(theirs, name)})"
               for name in ("played", "bonus", "exact") if getattr(ours, name) != getattr(theirs, name)]
    if changed:
        task = Task(theirs, genome[None].astype(np.float32), values[None].astype(np.float32), c.final_games, seed,
                    c.lookahead, match=match_for(state))
        own = summary(next(iter(toolbox.map(toolbox.play, [task]))).scores[0])
        lines.append(f"this run changes the start's search: {', '.join(changed)}; the file's own player scores "
                     f"{own['mean']:.2f} ± {own['sem']:.2f} on the same games")
    return lines


def describe_start(state: RunState) -> str:
    """A few words naming the player the run started from (with its look-ahead)."""
    return _start_player(state.config) + lookahead_suffix(state.config.lookahead)


def lookahead_suffix(turns: int) -> str:
    """What a player name takes to plan ``turns`` turns (``robo_players.search.lookahead``): none for one."""
    return "" if turns == 1 else SUFFIX if turns == 2 else f"{SUFFIX}{turns}"


def _start_player(c: EvolveConfig) -> str:
    if c.init:
        return f"the player of {c.init}"
    if c.player == "direct":
        return "a random network"
    if c.exact:
        return f"expectimax-column over {', '.join(c.exact)} (played {c.played:g}, bonus {c.bonus})"
    if c.bonus == "exact":
        return "expectimax-exact"
    return "expectimax" if c.played == 0 else f"expectimax-played ({c.played:g})"


def play_command(state: RunState, run_dir: Path) -> str:
    """The ``yamb play`` command that seats the run's best player."""
    c = state.config
    parts = ["yamb play --bot", str(Path(run_dir) / BEST_FILE) + lookahead_suffix(c.lookahead)]
    if c.game != "yamb":
        parts.append(f"--preset {c.game}")
    if c.dice:
        parts.append(f"--dice {c.dice}")
    if c.joker:
        parts.append(f"--joker {c.joker}")
    if c.columns:
        parts.append(f"--columns {','.join(c.columns)}")
    return " ".join(parts)


def verdict_of(evolved: np.ndarray, start: np.ndarray, expectimax: np.ndarray) -> dict:
    """Statistics of the three players' scores on the same games, and the differences paired."""
    return {
        "evolved": summary(evolved), "start": summary(start), "expectimax": summary(expectimax),
        "evolved_minus_start": paired_difference(evolved, start),
        "evolved_minus_expectimax": paired_difference(evolved, expectimax),
    }


def play_verdict(state: RunState, toolbox: base.Toolbox, best: Individual, run_dir: Path) -> dict:
    """``best``, the starting player and expectimax on ``final_games`` fresh games: the run's verdict."""
    c, started = state.config, time.perf_counter()
    seed = dice_seed(c.seed, FINAL, VERDICT_CHECK)
    start_genome, start_values = starting_genome(state)
    genomes = np.stack([np.asarray(best, dtype=np.float64), start_genome])
    scores, luck, _ = play_counted(toolbox, state, genomes, np.stack([best.cell_values, start_values]),
                                   c.final_games, seed)
    expectimax, expectimax_luck = reference_played(state.spec, c.final_games, seed, c.luck, match_for(state))
    result = verdict_of(scores[0], scores[1], expectimax)
    if c.luck:
        adjusted = scores - luck
        result["luck_adjusted"] = {"reference": c.luck,
                                   **verdict_of(adjusted[0], adjusted[1], expectimax - expectimax_luck)}
    field = {"objective": c.objective, "field": c.field} if c.objective == "win" else {}
    return {"games": c.final_games, "seed": seed, "start_player": describe_start(state), **field, **result,
            "play": play_command(state, run_dir), "seconds": time.perf_counter() - started}


def _judge(difference: dict) -> str:
    if difference["p"] >= SIGNIFICANCE:
        return "no clear difference"
    return "better" if difference["mean"] > 0 else "worse"


def verdict_lines(verdict: dict) -> list[str]:
    """The verdict in plain words, for the console. A start that played exactly as expectimax (the
    guided player's start, by design) is one player: its comparison is said once."""
    v, start = verdict, verdict["start_player"]
    win = v.get("objective") == "win"  # shares of wins, said in per cent

    def amount(x: float, sign: str = "") -> str:
        return f"{100 * x:{sign}.2f} %" if win else f"{x:{sign}.1f}"

    same = v["start"] == v["expectimax"] and v["evolved_minus_start"] == v["evolved_minus_expectimax"]
    players = "two" if same else "three"
    scores = (f"  evolved {amount(v['evolved']['mean'])} ± {amount(v['evolved']['sem'])}, "
              + (f"expectimax (where it started) {amount(v['expectimax']['mean'])} ± {amount(v['expectimax']['sem'])}"
                 if same else
                 f"started from ({start}) {amount(v['start']['mean'])} ± {amount(v['start']['sem'])}, "
                 f"expectimax {amount(v['expectimax']['mean'])} ± {amount(v['expectimax']['sem'])}"))
    field = "the run's hall of fame (its best at the end)" if v.get("field") == HALL_OF_FAME_FIELD else v.get("field")
    what = f"deals, the shares of the wins against {field}" if win else "games"
    lines = [f"verdict on {v['games']:,} fresh {what} (the same dice for the {players} players):", scores]
    against = ([("expectimax, where it started", "evolved_minus_expectimax")] if same else
               [(f"the player it started from ({start})", "evolved_minus_start"),
                ("expectimax", "evolved_minus_expectimax")])
    for other, key in against:
        d = v[key]
        lines.append(f"  against {other}: {amount(d['mean'], '+')} ± {amount(d['sem'])} game by game, "
                     f"p = {d['p']:.2g}: {_judge(d)}")
        if "luck_adjusted" in v:
            a = v["luck_adjusted"]
            lines.append(f"    less the luck {a['reference']} sees in the dice: {a[key]['mean']:+.2f} ± "
                         f"{a[key]['sem']:.2f}, p = {a[key]['p']:.2g}: {_judge(a[key])}")
    lines.append(f"play against it: {v['play']}")
    return lines
