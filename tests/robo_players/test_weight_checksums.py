"""Weight files carry a SHA-256 of their spec and weights: damaged or non-finite files are refused
with one line naming the file, and the shipped bots carry the checksum and play as recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from evolution.config import EvolveConfig, to_toml
from robo_players.measure.simulate import simulate
from robo_players.neural.bots import BOTS_DIR, load_bot, load_direct_bot, shipped_bots
from robo_players.neural.build import load_player
from robo_players.neural.files import (
    CELL_VALUES,
    FORMATS,
    METADATA_KEY,
    NeuralWeights,
    WeightsFileError,
    content_sha256,
    load_weights,
    onnx_network,
    save_weights,
    weights_sha256,
)
from robo_players.neural.networks import NetSpec
from yamb.layout import layout
from yamb.rules import rules

# 60 games (seed 2026) of each shipped bot and a hash of its genome and cell values, recorded when it
# was shipped (re-saving the older files with a checksum changed neither): a shipped bot changes only
# on purpose.
SHIPPED_BOTS = {
    # yamb fit, then the polish recipe; its 60 games' total re-recorded on purpose (102462 before) when the
    # turn search began planning a pure hand again after a full reroll: the same weights, a better search
    "jamb6-6d-down-free-up-announce": (102600, "a02a7183a8f7fb37"),
    "yahtzee-free-5d-free": (15319, "9cad552f0ef1b3c7"),
    "yamb-5d-down-up-free-announce": (67663, "ca23b6ff8daa0bb7"),  # yamb fit, then the polish recipe
    "yatzy-5d-free": (14611, "3de85ca0c4974385"),  # the polish recipe
    "direct/yamb-5d-down-up-free-announce": (63925, "12833a03e46aed45"),  # best-direct: imitation of best
}


@pytest.fixture(scope="module")
def weights() -> NeuralWeights:
    spec = NetSpec.for_layout("direct", layout(rules("yatzy")), (8,))
    rng = np.random.default_rng(5)
    genome = spec.build().initial_genome(rng) + 0.3 * rng.standard_normal(spec.build().initial_genome(rng).shape)
    values = rng.uniform(0, 20, spec.layout().n_cells).astype(np.float32)
    return NeuralWeights(spec, genome.astype(np.float32), values, {"fitness": 99.5, "seed": 3})


def loaded(path: Path) -> tuple:
    """What a file plays with: spec, genome and cell values (onnx: spec, outputs on fixed inputs, cell values)."""
    if path.suffix == ".onnx":
        spec, forward, values = onnx_network(path)
        x = np.random.default_rng(0).uniform(-1, 1, (1, 4, spec.build().n_inputs)).astype(np.float32)
        return spec, forward(x), values
    w = load_weights(path)
    return w.spec, w.genome, w.cell_values


def same(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_flipped_byte_is_refused_or_changes_nothing(weights: NeuralWeights, tmp_path: Path, fmt: str) -> None:
    path = save_weights(weights, tmp_path / f"player.{fmt}")
    original, good = path.read_bytes(), loaded(path)
    first_weights = weights.genome[:8].tobytes()  # the first layer's first weights, as stored
    inside = original.find(first_weights)
    assert inside >= 0
    positions = sorted({*range(0, len(original), max(1, len(original) // 60)), inside + 1, inside + 13})
    refused = 0
    for position in positions:
        damaged = bytearray(original)
        damaged[position] ^= 0x10
        path.write_bytes(bytes(damaged))
        try:
            result = loaded(path)
        except WeightsFileError as error:
            message = str(error)
            assert message.startswith(f"{path}: ") and "\n" not in message
            refused += 1
            if position in (inside + 1, inside + 13) and fmt != "npz":  # npz: the zip's CRC refuses it first
                assert "does not match its SHA-256 checksum" in message
            continue
        assert same(result, good), f"a flip at byte {position} of {len(original)} changed the player silently"
    assert refused >= len(positions) // 3


def write_nan_file(weights: NeuralWeights, path: Path) -> Path:
    """A safetensors file of ``weights`` with one weight NaN and a checksum that matches it."""
    from safetensors.numpy import save_file

    save_weights(weights, path)
    arrays = {k: v.copy() for k, v in load_arrays(path).items()}
    first = next(k for k in arrays if k != CELL_VALUES)
    arrays[first].flat[3] = np.nan
    meta = weights.metadata("")
    meta["sha256"] = content_sha256({k: v for k, v in meta.items() if k != "sha256"}, arrays)
    save_file(arrays, str(path), metadata={METADATA_KEY: json.dumps(meta)})
    return path


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    from safetensors import safe_open

    with safe_open(str(path), framework="np") as f:
        return {k: f.get_tensor(k) for k in f.keys()}


def test_version_1_files_without_a_checksum_are_still_read(weights: NeuralWeights, tmp_path: Path) -> None:
    from safetensors.numpy import save_file

    path = save_weights(weights, tmp_path / "old.safetensors")
    arrays = load_arrays(path)
    meta = weights.metadata("")
    del meta["sha256"]
    save_file(arrays, str(path), metadata={METADATA_KEY: json.dumps(meta | {"file_version": 1})})
    assert np.array_equal(load_weights(path).genome, weights.genome)
    save_file(arrays, str(path), metadata={METADATA_KEY: json.dumps(meta)})  # version 2 without its checksum
    with pytest.raises(WeightsFileError, match="does not match its SHA-256 checksum"):
        load_weights(path)


def test_nan_or_infinite_weights_are_refused(weights: NeuralWeights, tmp_path: Path) -> None:
    path = write_nan_file(weights, tmp_path / "nan.safetensors")
    with pytest.raises(WeightsFileError, match=rf"^{path}: 1 of the weights are NaN or infinite$"):
        load_weights(path)
    bad = replace(weights, cell_values=np.full_like(weights.cell_values, np.inf))
    with pytest.raises(WeightsFileError, match="15 of the cell values are NaN or infinite"):
        save_weights(bad, tmp_path / "inf.pt")
    assert not (tmp_path / "inf.pt").exists()


@pytest.mark.slow
def test_evolve_init_refuses_a_nan_weights_file(weights: NeuralWeights, tmp_path: Path) -> None:
    path = write_nan_file(weights, tmp_path / "nan.safetensors")
    done = subprocess.run(
        [sys.executable, "-m", "yamb", "evolve", "--recipe", "quick", "--preset", "yatzy", "--init", str(path),
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "NaN or infinite" in lines[0]


@pytest.mark.slow
def test_export_refuses_a_run_directory_holding_another_tables_player(weights: NeuralWeights, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.toml").write_text(to_toml(EvolveConfig(game="yamb", player="direct", hidden=[8])))
    save_weights(weights, run / "best.pt")  # a Yatzy network
    done = subprocess.run([sys.executable, "-m", "yamb", "export", str(run), "--format", "onnx"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"yamb export: error: {run / 'best.pt'} holds a direct network (hidden [8]) for yatzy (free, 5 dice), but "
        f"{run / 'config.toml'} evolves a direct network (hidden [8]) for yamb (down,up,free,announce, 5 dice)")
    assert not (run / "best.onnx").exists()


@pytest.mark.parametrize("stem", sorted(SHIPPED_BOTS))
def test_the_shipped_bots_carry_a_checksum_and_play_as_recorded(stem: str) -> None:
    folder, _, name = stem.rpartition("/")
    assert name in shipped_bots(BOTS_DIR / folder)
    path = BOTS_DIR / f"{stem}.safetensors"
    from safetensors import safe_open

    with safe_open(str(path), framework="np") as f:
        meta = json.loads(f.metadata()[METADATA_KEY])
    w = load_weights(path)
    assert meta["file_version"] in (2, 3) and meta["sha256"] == content_sha256(meta, load_arrays(path))
    total, digest = SHIPPED_BOTS[stem]
    assert weights_sha256({}, {"genome": w.genome, "cell_values": w.cell_values})[:16] == digest
    lay = w.spec.layout()
    shipped = load_direct_bot(lay) if folder == "direct" else load_bot(lay)
    assert int(simulate(lay, shipped, 60, seed=2026).sum()) == total
    assert load_player(path, lay).name.startswith("neural-")
