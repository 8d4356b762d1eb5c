"""Weight files: every format loads back and plays identically; bad files get one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from robo_players.measure.simulate import simulate
from robo_players.neural.bots import BOTS_DIR, bot_name, load_bot, shipped_bots
from robo_players.neural.build import load_player, population_player
from robo_players.neural.files import (
    FORMATS,
    NeuralWeights,
    WeightsFileError,
    content_sha256,
    load_weights,
    save_weights,
)
from robo_players.neural.networks import NetSpec
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.cli import main

GAMES = 12


@pytest.fixture(scope="module")
def weights() -> NeuralWeights:
    spec = NetSpec.for_layout("direct", layout(rules("yamb")), (8,))
    rng = np.random.default_rng(4)
    genome = spec.build().initial_genome(rng)
    genome += 0.3 * rng.standard_normal(genome.shape)
    values = rng.uniform(0, 40, spec.layout().n_cells).astype(np.float32)
    return NeuralWeights(spec, genome.astype(np.float32), values, {"fitness": 123.5, "seed": 7, "run_preset": "test"})


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_loads_back_and_plays_identically(weights: NeuralWeights, tmp_path: Path, fmt: str) -> None:
    lay = weights.spec.layout()
    original = population_player(weights.spec, weights.genome[None], weights.cell_values[None])
    expected = simulate(lay, original, GAMES, seed=3)
    path = save_weights(weights, tmp_path / f"player.{fmt}")
    assert np.array_equal(simulate(lay, load_player(path, lay), GAMES, seed=3), expected)
    if fmt != "onnx":
        back = load_weights(path)
        assert np.array_equal(back.genome, weights.genome) and np.array_equal(back.cell_values, weights.cell_values)
        assert back.spec == weights.spec and back.info["fitness"] == 123.5


def test_metadata_describes_the_player(weights: NeuralWeights) -> None:
    meta = weights.metadata("0" * 64)
    for key in ("kind", "preset", "table", "architecture", "fitness", "seed", "version"):
        assert key in meta
    assert meta["architecture"]["weights"] == weights.genome.size
    json.dumps(meta)


def test_a_file_for_another_table_is_refused(weights: NeuralWeights, tmp_path: Path) -> None:
    path = save_weights(weights, tmp_path / "player.safetensors")
    with pytest.raises(WeightsFileError, match=r"evolved for yamb \(down,up,free,announce, 5 dice\), not for yatzy"):
        load_player(path, layout(rules("yatzy")))


@pytest.mark.parametrize("fmt", FORMATS)
def test_damaged_files_are_refused(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"player.{fmt}"
    path.write_bytes(b"these are not weights")
    with pytest.raises(WeightsFileError, match=f"not a readable {fmt} weights file"):
        load_player(path, layout(rules("yamb")))


def test_weights_that_do_not_fit_their_network_are_refused(weights: NeuralWeights, tmp_path: Path) -> None:
    path = save_weights(weights, tmp_path / "player.npz")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays.pop("yamb")))
    meta["spec"]["hidden"] = [9]
    meta["sha256"] = content_sha256(meta, arrays)  # a consistent file, but the wrong shapes
    arrays["yamb"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)
    with pytest.raises(WeightsFileError, match=r"weights do not fit a direct network \[9\]"):
        load_weights(path)


def test_missing_and_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(WeightsFileError, match="no such weights file"):
        load_weights(tmp_path / "none.pt")
    with pytest.raises(WeightsFileError, match="unknown weights format 'h5'"):
        load_weights(tmp_path / "player.h5")


def test_cli_exports_and_simulates(weights: NeuralWeights, tmp_path: Path, capsys) -> None:
    save_weights(weights, tmp_path / "best.pt")
    assert main(["export", str(tmp_path), "--format", "onnx"]) == 0
    assert (tmp_path / "best.onnx").is_file()
    assert main(["simulate", "--player", str(tmp_path / "best.onnx"), "--games", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games"] == 5
    assert main(["simulate", "--player", str(tmp_path / "best.pt"), "--preset", "yatzy", "--games", "5"]) == 2
    assert "evolved for yamb" in capsys.readouterr().err


def test_shipped_bots_are_found_by_table(weights: NeuralWeights, tmp_path: Path) -> None:
    lay = weights.spec.layout()
    assert bot_name(lay) == "yamb-5d-down-up-free-announce.safetensors"
    save_weights(weights, tmp_path / bot_name(lay))
    assert shipped_bots(tmp_path) == ["yamb-5d-down-up-free-announce"]
    bot = load_bot(lay, tmp_path)
    assert bot.name == "best" and len(simulate(lay, bot, 3)) == 3
    assert load_bot(layout(rules("yatzy")), tmp_path).name == "expectimax"  # no bot for that table


def test_the_shipped_bots_load_for_their_tables() -> None:
    for stem in shipped_bots():
        weights = load_weights(BOTS_DIR / f"{stem}.safetensors")
        lay = weights.spec.layout()
        assert bot_name(lay) == f"{stem}.safetensors" and load_bot(lay).name == "best"


def test_compare_takes_weights_files_and_scores_them_as_simulate_does(weights: NeuralWeights, tmp_path: Path,
                                                                       capsys) -> None:
    path = save_weights(weights, tmp_path / "bot.safetensors")
    assert main(["compare", str(path), "greedy", "--games", "6", "--seed", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    alone = simulate(weights.spec.layout(), load_player(path, weights.spec.layout()), 6, seed=3)
    assert report[str(path)]["mean"] == pytest.approx(alone.mean())
    assert main(["compare", str(tmp_path / "none.pt"), "greedy", "--games", "6"]) == 2
    assert "no such weights file" in capsys.readouterr().err
