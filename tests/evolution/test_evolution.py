"""Evolution runs: reproducible bit for bit, resumable exactly, with precise errors for bad settings."""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evolution.algorithms import make_toolbox, play
from evolution.checkpoint import CheckpointError
from evolution.config import ConfigError, EvolveConfig, from_recipe, to_toml, with_settings
from evolution.individual import Individual
from evolution.planning import plan
from evolution.run import default_run_dir, evolve, resume, start
from evolution.run_dir import RunDir
from evolution.run_files import CHECKPOINT
from evolution.state import new_state
from robo_players.base import play as play_games
from robo_players.measure.luck import LuckCounter
from robo_players.measure.simulate import simulate
from robo_players.neural.bots import BOTS_DIR, bot_name
from robo_players.neural.build import load_player, population_player
from robo_players.neural.files import load_weights
from robo_players.search.expectimax import ExpectimaxPlayer
from yamb.engine import GameBatch
from yamb.errors import YambError
from yamb_app.cli import main

TINY = dict(population=6, games=3, generations=3, hidden="4", final_games=8, hall_of_fame=2, elite=1)


def tiny(**settings) -> EvolveConfig:
    return with_settings(from_recipe("direct"), {**TINY, **settings})


class Interrupted(Exception):
    pass


def stop_after(generations: int):
    def report(state, entry) -> None:
        if state.generation == generations:
            raise Interrupted

    return report


def outputs(run_dir: Path) -> tuple:
    """What a finished run wrote that must not depend on how it was run."""
    logbook = pd.read_csv(run_dir / "logbook.csv").drop(columns=["seconds", "compile_seconds"])  # wall times
    best = load_weights(run_dir / "best.pt")
    with np.load(run_dir / "hall_of_fame.npz") as hall:
        genomes = hall["genomes"]
    return logbook, best.genome, best.cell_values, genomes


def assert_same(a: tuple, b: tuple) -> None:
    pd.testing.assert_frame_equal(a[0], b[0], check_exact=True)
    for x, y in zip(a[1:], b[1:]):
        assert np.array_equal(x, y)


NOISE = dict(reevaluate=2, games_max=7, accept_games=5, accept_p=0.9)  # every part of selection under noise at work


@pytest.mark.parametrize(("algorithm", "noise"), [("ga", {}), pytest.param("cma", {}, marks=pytest.mark.slow),
                                                  ("sep-cma", {}), ("es", {}), ("sep-cma", NOISE), ("ga", NOISE)])
def test_a_run_is_reproducible_and_resumes_exactly(tmp_path: Path, algorithm: str, noise: dict) -> None:
    game = "yatzy" if algorithm == "cma" else "yamb"  # a small network: CMA-ES is cubic in the weights
    config = tiny(algorithm=algorithm, game=game, hidden="2" if algorithm == "cma" else "4", **noise)
    whole = resumes_exactly(config, tmp_path)
    again = evolve(start(config, tmp_path / "again"), tmp_path / "again")
    assert_same(outputs(tmp_path / "whole"), outputs(tmp_path / "again"))
    assert whole["best"] == again["best"]
    assert (tmp_path / "cut" / "fitness.png").stat().st_size > 0 and (tmp_path / "cut" / "scores.png").stat().st_size > 0


def resumes_exactly(config: EvolveConfig, tmp_path: Path) -> dict:
    """The results of ``config`` run whole in ``tmp_path / "whole"``, after asserting that the same
    run stopped after its first generation and resumed (``tmp_path / "cut"``) wrote the same."""
    whole = evolve(start(config, tmp_path / "whole"), tmp_path / "whole")
    cut = tmp_path / "cut"
    with pytest.raises(Interrupted):
        evolve(start(config, cut), cut, stop_after(1))
    assert RunDir(cut).load_checkpoint().generation == 1
    resumed = evolve(resume(cut, {}), cut)
    assert_same(outputs(tmp_path / "whole"), outputs(cut))
    assert resumed["best"] == whole["best"]
    return whole


def test_the_hall_of_fame_ranks_by_advantage_over_expectimax_on_the_same_dice(tmp_path: Path) -> None:
    evolve(start(tiny(generations=3), tmp_path), tmp_path)
    logbook = pd.read_csv(tmp_path / "logbook.csv")
    state = RunDir(tmp_path).load_checkpoint()
    assert state.hall_of_fame[0].fitness.values[0] == pytest.approx((logbook["max"] - logbook["expectimax"]).max())
    assert logbook["expectimax"].nunique() == 3  # new dice every generation


@pytest.mark.parametrize("algorithm", ["cma", "sep-cma", "es"])
def test_the_strategy_mean_is_checked_with_the_hall_of_fame_on_the_same_fresh_dice(tmp_path: Path,
                                                                                   algorithm: str) -> None:
    result = evolve(start(tiny(algorithm=algorithm, game="yatzy", hidden="2"), tmp_path), tmp_path)
    state = RunDir(tmp_path).load_checkpoint()
    checked = result["candidates"]
    assert len(checked) == len(state.hall_of_fame) + 1
    assert [c["cma_mean"] for c in checked] == [False] * len(state.hall_of_fame) + [True]
    assert checked[-1]["advantage_when_selected"] is None
    seed = result["final_check"]["seed"]
    mean = np.asarray(state.strategy.centroid)[None]
    alone, _ = play(make_toolbox(state), state, mean, state.cell_values[None], state.config.final_games, seed)
    assert checked[-1]["final_mean"] == pytest.approx(alone.mean())
    finals = [c["final_mean"] for c in checked]
    assert result["best"]["candidate"] == int(np.argmax(finals))
    assert result["best"]["mean"] == pytest.approx(max(finals))


def test_games_per_individual_may_change_on_resume(tmp_path: Path) -> None:
    with pytest.raises(Interrupted):
        evolve(start(tiny(), tmp_path), tmp_path, stop_after(1))
    evolve(resume(tmp_path, {"games": 5}), tmp_path)
    assert RunDir(tmp_path).load_checkpoint().config.games == 5 and len(pd.read_csv(tmp_path / "logbook.csv")) == 3


def test_a_finished_run_can_be_extended(tmp_path: Path) -> None:
    config = tiny(generations=2)
    evolve(start(config, tmp_path), tmp_path)
    result = evolve(resume(tmp_path, {"generations": 3}), tmp_path)
    assert result["generations"] == 3 and len(pd.read_csv(tmp_path / "logbook.csv")) == 3
    config = (tmp_path / "config.toml").read_text()
    with pytest.raises(ConfigError, match="has played 3 generations: --generations 2 would end it before them"):
        resume(tmp_path, {"generations": 2})  # config.toml would say 2 of a run of 3
    assert (tmp_path / "config.toml").read_text() == config


def test_the_population_scores_do_not_depend_on_the_workers_split() -> None:
    state = new_state(plan(tiny()))
    genomes = np.asarray(state.population)
    values = np.tile(state.cell_values, (len(genomes), 1))
    one, cells = play(make_toolbox(state), state, genomes, values, 4, seed=11)
    state.config = with_settings(state.config, {"workers": 4})
    split, split_cells = play(make_toolbox(state), state, genomes, values, 4, seed=11)
    assert np.array_equal(one, split) and np.allclose(cells, split_cells)
    assert one.shape == (6, 4) and len({tuple(row) for row in one}) > 1


def test_a_new_run_that_fails_before_saving_leaves_no_folder(tmp_path: Path, capsys, monkeypatch) -> None:
    import evolution.run

    def fails(plan):
        raise YambError("the disk is full")

    monkeypatch.setattr(evolution.run, "new_state", fails)
    assert main(["evolve", "--recipe", "direct", "--out", str(tmp_path / "new")]) == 2
    assert "the disk is full" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()  # a folder the person made is theirs: kept
    assert main(["evolve", "--recipe", "direct", "--out", str(tmp_path / "mine")]) == 2
    assert [p.name for p in (tmp_path / "mine").iterdir()] == [".lock"]


@pytest.mark.slow
def test_with_look_ahead_a_member_plays_as_alone_whatever_the_split(tmp_path: Path) -> None:
    """Evolution with ``lookahead`` 2: every member of a population scores what it scores in a task of
    its own, and what the run's best player scores with ``+lookahead`` outside evolution."""
    config = tiny(player="guided", game="yatzy", lookahead=2, population=4, games=12, hidden="4", bonus="exact",
                  played=0.6, generations=1, final_games=12)
    state = new_state(plan(config))
    rng = np.random.default_rng(3)
    genomes = (np.asarray(state.population) + rng.standard_normal((4, len(state.population[0]))) * 0.3)
    values = np.tile(state.cell_values, (4, 1))
    whole, _ = play(make_toolbox(state), state, genomes, values, 12, seed=5)
    state.config = with_settings(state.config, {"workers": 4})
    alone, _ = play(make_toolbox(state), state, genomes, values, 12, seed=5)
    assert np.array_equal(whole, alone)
    state.config = with_settings(state.config, {"lookahead": 1, "workers": 1})
    one_turn, _ = play(make_toolbox(state), state, genomes, values, 12, seed=5)
    assert not np.array_equal(whole, one_turn)  # the look-ahead did play

    run = tmp_path / "ahead"
    result = evolve(start(config, run), run)
    assert result["verdict"]["start_player"] == "expectimax-exact+lookahead"
    assert f"{run / 'best.pt'}+lookahead --preset yatzy" in result["verdict"]["play"]


def test_individuals_share_their_dice_and_generations_do_not() -> None:
    state = new_state(plan(tiny(population=2)))
    same = np.tile(np.asarray(state.population[:1]), (2, 1))
    values = np.tile(state.cell_values, (2, 1))
    toolbox = make_toolbox(state)
    scores, _ = play(toolbox, state, same, values, 5, seed=1)
    other, _ = play(toolbox, state, same, values, 5, seed=2)
    assert np.array_equal(scores[0], scores[1]) and not np.array_equal(scores[0], other[0])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"populaton": 3}, "unknown setting 'populaton'"),
        ({"population": "many"}, "population = 'many' is not a whole number"),
        ({"player": "clever"}, "player must be one of direct, guided"),
        ({"elite": 6}, "elite must be between 0 and population - 1"),
        ({"algorithm": "cma", "hidden": "64"}, "CMA-ES keeps a full covariance matrix.*use algorithm = \"sep-cma\" or \"es\""),
        ({"algorithm": "es", "population": 7}, "population must be even for algorithm es \\(mirrored pairs\\), not 7"),
        ({"algorithm": "es", "es_learning_rate": 1.5}, "es_learning_rate in \\(0, 1\\]"),
        ({"algorithm": "es", "es_weight_decay": -0.1}, "es_weight_decay >= 0"),
        ({"game": "poker"}, "unknown preset 'poker'"),
        ({"player": "guided", "lookahead": 4}, "lookahead must be from 1 to 3 turns"),
        ({"lookahead": 2}, "lookahead applies to the guided player only"),
    ],
)
def test_bad_settings_are_refused(settings: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new_state(plan(tiny(**settings)))


@pytest.mark.parametrize("algorithm", ["sep-cma", "es"])
def test_the_linear_strategies_take_networks_too_large_for_cma(algorithm: str) -> None:
    state = new_state(plan(tiny(algorithm=algorithm, hidden="64")))
    weights = state.strategy.centroid.size
    assert weights > 2000 and len(make_toolbox(state).generate()) == 6
    assert np.array_equal(state.strategy.centroid, state.spec.build().initial_genome(np.random.default_rng(0)))


def test_config_round_trips_through_toml(tmp_path: Path) -> None:
    import tomllib

    config = tiny(columns="down,free", joker="")
    assert with_settings(EvolveConfig(), tomllib.loads(to_toml(config))) == config


def test_resume_refuses_changed_settings_and_damaged_checkpoints(tmp_path: Path) -> None:
    with pytest.raises(Interrupted):
        evolve(start(tiny(), tmp_path), tmp_path, stop_after(1))
    with pytest.raises(ConfigError, match="only generations, games, games_max, accept_games, workers, threads, final_games, backend, ray_address may change"):
        resume(tmp_path, {"population": 9})
    with pytest.raises(ConfigError, match="already holds a run"):
        start(tiny(), tmp_path)
    (tmp_path / CHECKPOINT).write_bytes(pickle.dumps({"version": 1})[:-3])
    with pytest.raises(CheckpointError, match="damaged checkpoint"):
        resume(tmp_path, {})


def test_default_run_directory_and_presets(tmp_path: Path) -> None:
    quick = from_recipe("quick").validate()
    assert default_run_dir(quick, tmp_path).name.startswith("quick-")
    assert from_recipe("full").validate().player == "guided"
    with pytest.raises(ConfigError, match="unknown run recipe 'slow'"):
        from_recipe("slow")


@pytest.mark.slow
def test_cli_runs_and_reports_errors(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    args = ["evolve", "--out", str(out), "--generations", "1", "--population", "3", "--games", "2",
            "--hidden", "2", "--workers", "1", "--set", "final_games=3", "--set", "hall_of_fame=1"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "gen   1/1  best" in printed and "━" not in printed  # off a terminal, the lines and no bar
    assert "against expectimax, where it started:" in printed and "started from (expectimax)" not in printed
    assert f"play against it: yamb play --bot {out}/best.pt" in printed
    assert main(["export", str(out), "--format", "npz"]) == 0 and (out / "best.npz").is_file()
    assert main(["evolve", "--set", "mutation=3"]) == 2
    assert "unknown setting 'mutation'" in capsys.readouterr().err


def test_a_run_can_start_from_a_weights_file(tmp_path: Path) -> None:
    """The first generation plays the file's player itself: its scores equal the file played alone."""
    first = tmp_path / "first"
    evolve(start(tiny(generations=2), first), first)
    saved = load_weights(first / "best.pt")
    state = new_state(plan(tiny(init=str(first / "best.pt"), seed=3)))
    assert np.array_equal(state.population[0], saved.genome) and np.array_equal(state.cell_values, saved.cell_values)
    assert not np.array_equal(state.population[1], saved.genome)  # the rest are mutants of it
    games, seed = 6, 99
    scores, _ = play(make_toolbox(state), state, np.asarray(state.population[:1]), state.cell_values[None], games, seed)
    layout = state.spec.layout()
    alone = simulate(layout, load_player(first / "best.pt", layout), games, seed=seed)
    assert np.array_equal(scores[0], alone)

    cma_state = new_state(plan(tiny(algorithm="cma", game="yatzy", hidden="8", player="guided", played=0.6, init="best")))
    shipped = load_weights(BOTS_DIR / bot_name(cma_state.spec.layout()))
    assert np.array_equal(cma_state.strategy.centroid, shipped.genome)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"init": "missing.pt"}, "init: .*missing.pt"),
        ({"init": "best", "game": "yatzy", "hidden": "3"}, r"holds a guided network \(hidden \[8\], 550 weights\).*"
                                                           r"this run evolves a direct network \(hidden \[3\]\)"),
        ({"init": "best", "game": "yamb", "columns": "down,up"}, "no shipped bot for yamb"),
    ],
)
def test_a_bad_starting_point_is_refused(settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        new_state(plan(tiny(**settings)))


def test_a_run_directory_is_worked_in_by_one_process_at_a_time(tmp_path: Path, capsys) -> None:
    run = tmp_path / "run"
    with RunDir(run).lock():
        with pytest.raises(ConfigError, match=f"{run} is in use by another process \\(pid \\d+\\)"):
            with RunDir(run).lock():
                pass
        (run / "config.toml").write_text(to_toml(tiny()))  # a run, started
        assert main(["evolve", "--resume", str(run)]) == 2
        assert "is in use by another process" in capsys.readouterr().err
    with RunDir(run).lock():  # released with the first holder
        pass
    assert main(["evolve", "--resume", str(tmp_path / "nothing")]) == 2
    assert "no such run directory" in capsys.readouterr().err and not (tmp_path / "nothing").exists()


@pytest.mark.slow
def test_a_cma_checkpoint_restores_the_strategy_bit_for_bit(tmp_path: Path) -> None:
    """The loaded CMA-ES strategy holds the covariance, its eigenvectors, the paths and its generator's
    state as saved: it draws the very samples the running strategy draws next."""
    config = tiny(algorithm="cma", game="yatzy", hidden="8")
    state = new_state(plan(config))
    strategy = state.strategy
    rng = np.random.default_rng(0)
    while strategy.update_count < strategy.eigen_every + 1:  # past an eigendecomposition
        population = strategy.generate(lambda x: Individual(np.asarray(x)))
        for ind in population:
            ind.fitness.values = (float(rng.normal()),)
        strategy.update(population)
    assert not np.array_equal(strategy.B, np.eye(len(strategy.centroid)))
    RunDir(tmp_path).save_checkpoint(state)
    loaded = RunDir(tmp_path).load_checkpoint().strategy
    for name in ("C", "B", "diagD", "pc", "ps", "centroid"):
        assert getattr(loaded, name).tobytes() == getattr(strategy, name).tobytes(), name
    assert (loaded.sigma, loaded.update_count) == (strategy.sigma, strategy.update_count)
    ours, theirs = strategy.generate(np.asarray), loaded.generate(np.asarray)
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))


def test_a_start_from_a_file_is_measured_and_a_changed_search_is_said(tmp_path: Path) -> None:
    """polish takes the file's network and search; every run from a file prints its start's mean on
    the verdict's games before generation 1, and one line more when it plays the file another way."""
    first = tmp_path / "first"
    evolve(start(tiny(generations=1, player="guided", game="yatzy", hidden="2", played=0.6), first), first)
    file = str(first / "best.pt")
    polish = with_settings(from_recipe("polish"), dict(init=file, game="yatzy", population=4, games=3, generations=1,
                                                       final_games=8, games_max=6, reevaluate=2, accept_games=4))
    state, lines = start(polish, tmp_path / "polish"), []
    assert (state.config.player, state.config.hidden, state.config.played) == ("guided", [2], 0.6)
    result = evolve(state, tmp_path / "polish", say=lines.append)
    assert len(lines) == 1 and f"scores {result['verdict']['start']['mean']:.2f} ±" in lines[0]
    assert [(c["incumbent"], c["cma_mean"]) for c in result["candidates"]] == [(True, False), (False, True)]

    other, lines = tmp_path / "other", []
    changed = tiny(generations=1, player="guided", game="yatzy", hidden="2", played=0.0, init=file)
    result = evolve(start(changed, other), other, say=lines.append)
    verdict = result["verdict"]
    layout = load_weights(file).spec.layout()
    own = simulate(layout, load_player(first / "best.pt", layout), verdict["games"], seed=verdict["seed"]).mean()
    assert f"scores {verdict['start']['mean']:.2f} ±" in lines[0]
    assert "reads the last generation's averages for open cells" in lines[1]  # open_cells played
    assert "changes the start's search: played 0.0 (the file's: 0.6)" in lines[2]
    assert f"the file's own player scores {own:.2f} ±" in lines[2]


def test_with_luck_selection_reads_the_scores_less_their_luck_and_the_verdict_gives_both(tmp_path: Path) -> None:
    """``luck``: a member's fitness is its mean score less its games' luck (the same games played
    again here without the run, and their luck counted by a ``LuckCounter``); the run resumes
    exactly, and its verdict adds the luck-adjusted differences, which are tighter than the raw ones."""
    config = tiny(game="yatzy", player="guided", hidden="2", algorithm="cma", games=4, final_games=60,
                  luck="expectimax", **NOISE)
    whole = resumes_exactly(config, tmp_path)
    state = new_state(plan(config))
    toolbox = make_toolbox(state)
    genomes = np.stack([np.asarray(ind) for ind in toolbox.generate()])[:2]
    cell_values = np.tile(state.cell_values, (2, 1))
    fitness, _ = play(toolbox, state, genomes, cell_values, 5, 9)
    layout = state.spec.layout()
    for genome, row in zip(genomes, fitness):
        batch = GameBatch(layout, 5, seed=9)
        counter = LuckCounter(population_player(state.spec, genome[None].astype(np.float32),
                                                state.cell_values[None].astype(np.float32)),
                              ExpectimaxPlayer(layout), batch)
        scores = play_games(batch, [counter], check=False)[:, 0]
        assert np.allclose(row, scores - counter.luck[:, 0])
        assert not np.allclose(row, scores)
    verdict = whole["verdict"]
    adjusted = verdict["luck_adjusted"]
    assert adjusted["reference"] == "expectimax"
    for player in ("evolved", "start", "expectimax"):
        assert adjusted[player]["std"] < verdict[player]["std"] / 2


def test_luck_must_name_a_search_player_of_the_table() -> None:
    with pytest.raises(ConfigError, match="luck: .*valued by a search player"):
        new_state(plan(tiny(game="yatzy", luck="greedy")))
    with pytest.raises(ConfigError, match="luck: unknown player 'nobody'"):
        new_state(plan(tiny(game="yatzy", luck="nobody")))


def test_open_cells_fixed_keeps_the_start_values_that_played_moves(tmp_path: Path) -> None:
    """``open_cells``: "played" values open cells by the last generation's averages, "fixed" by the
    start's throughout (a fitted network was trained on those: moved, they cost it points)."""
    start_values = {}
    for mode in ("played", "fixed"):
        config = tiny(game="yatzy", player="guided", hidden="2", algorithm="cma", generations=2, open_cells=mode)
        state = new_state(plan(config))
        start_values[mode] = state.cell_values.copy()
        evolve(state, tmp_path / mode, None)
        after = RunDir(tmp_path / mode).load_checkpoint().cell_values
        assert np.array_equal(after, start_values[mode]) == (mode == "fixed"), mode
    assert np.array_equal(start_values["played"], start_values["fixed"])
    with pytest.raises(ConfigError, match="open_cells must be one of played, fixed, not 'moving'"):
        tiny(open_cells="moving").validate()


def test_a_checkpoint_of_the_code_before_is_refused_in_one_line(tmp_path: Path) -> None:
    """Version 2 checkpoints (torch's forward pass, DEAP's CMA-ES) would not go on as their runs began."""
    state = new_state(plan(tiny()))
    RunDir(tmp_path).save_checkpoint(state)
    path = tmp_path / CHECKPOINT
    header, _, payload = path.read_bytes().partition(b"\n")
    words = header.split()
    path.write_bytes(b" ".join([words[0], b"2", *words[2:]]) + b"\n" + payload)
    with pytest.raises(CheckpointError, match="checkpoint version 2, this program reads 3 and 4"):
        RunDir(tmp_path).load_checkpoint()


def test_a_generation_s_reported_time_counts_its_update_and_its_checkpoint(tmp_path: Path, monkeypatch) -> None:
    """The line of a generation says its whole wall time: a slow checkpoint (a slow disk) or a slow
    update of the strategy shows in it (they did not, and a run took three times what its lines said)."""
    pause = 0.3
    save, update = RunDir.save_checkpoint, make_toolbox

    def slow_save(self, state) -> None:
        save(self, state)
        time.sleep(pause)

    def slow_toolbox(state, map_function):
        toolbox = update(state, map_function)
        strategy_update = toolbox.update

        def slow_update(population):
            time.sleep(pause)
            return strategy_update(population)
        toolbox.register("update", slow_update)
        return toolbox

    monkeypatch.setattr(RunDir, "save_checkpoint", slow_save)
    monkeypatch.setattr("evolution.run.make_toolbox", slow_toolbox)
    reported = []
    evolve(new_state(plan(tiny(game="yatzy", algorithm="cma", generations=2))), tmp_path / "run",
           lambda state, entry: reported.append(entry["seconds"]))
    assert len(reported) == 2 and min(reported) >= 2 * pause  # a lower bound: never fails on a busy machine
    logged = pd.read_csv(tmp_path / "run" / "logbook.csv")["seconds"]
    assert (logged >= pause).all()  # the logbook's seconds count the update


def test_settings_edited_in_config_toml_are_honoured_or_refused_on_resume(tmp_path: Path) -> None:
    """A resumable setting edited in the run's config.toml is taken (checked as on the command line, which
    wins over it); one out of range is refused in one line, never ignored and overwritten."""
    with pytest.raises(Interrupted):
        evolve(start(tiny(), tmp_path), tmp_path, stop_after(1))
    config = tmp_path / "config.toml"
    text = config.read_text()
    assert "generations = 3\n" in text
    config.write_text(text.replace("generations = 3\n", "generations = 99999999999\n"))
    with pytest.raises(ConfigError, match="^generations must be at most 1,000,000$"):
        resume(tmp_path, {})
    config.write_text(text.replace("generations = 3\n", "generations = 5\n").replace("final_games = 8\n",
                                                                                    "final_games = 9\n"))
    state = resume(tmp_path, {"final_games": 7})
    assert (state.config.generations, state.config.final_games) == (5, 7)
    assert "generations = 5\n" in config.read_text() and "final_games = 7\n" in config.read_text()
    config.write_text(config.read_text().replace("generations = 5\n", "generations = 0\n"))
    with pytest.raises(ConfigError, match="has played 1 generations: generations in .*config.toml = 0"):
        resume(tmp_path, {})
