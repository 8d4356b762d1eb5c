"""The documented recipe for exported ONNX players, followed outside Python: ``tests/js/play.mjs``
reads the ``.onnx.json`` sidecar, computes the features of positions played by the Python player,
runs the graph with onnxruntime-web under Node and chooses the moves; they must be Python's."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from robo_players.neural.build import load_player
from robo_players.neural.features import encode
from robo_players.neural.files import NeuralWeights, onnx_network, save_weights
from robo_players.neural.networks import NetSpec
from tests.programs import require_binary
from tests.reference_game import ROWS
from yamb.engine import GameBatch
from yamb.layout import layout
from yamb.rules import rules

JS_DIR = Path(__file__).resolve().parents[1] / "js"


def node_recipe(model: Path, positions: list[dict], tmp_path: Path) -> dict:
    node = require_binary("node")
    if not (JS_DIR / "node_modules" / "onnxruntime-web").is_dir():
        require_binary("npm")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=JS_DIR, check=True, capture_output=True,
                       timeout=600)
    path = tmp_path / "positions.json"
    path.write_text(json.dumps(positions))
    done = subprocess.run([node, str(JS_DIR / "play.mjs"), str(model), str(path)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def network(kind: str, preset: str, seed: int, columns: list[str] | None = None) -> NeuralWeights:
    spec = NetSpec.for_layout(kind, layout(rules(preset), columns), (8,))
    rng = np.random.default_rng(seed)
    genome = spec.build().initial_genome(rng)
    genome = genome + 0.5 * rng.standard_normal(genome.shape)
    values = rng.uniform(0, 30, spec.layout().n_cells).astype(np.float32)
    return NeuralWeights(spec, genome.astype(np.float32), values, {"fitness": 1.0})


def played_positions(model: Path, weights: NeuralWeights, games: int) -> tuple[list[dict], list[int], np.ndarray]:
    """Every decision of ``games`` games the Python player plays: positions as the recipe describes
    them, the actions taken and the features the player saw."""
    lay = weights.spec.layout()
    player = load_player(model, lay)
    positions, actions, seen = [], [], []
    for seed in range(games):
        batch = GameBatch(lay, 1, seed=seed)
        one = np.array([0])
        while not batch.done[0]:
            mask = batch.legal_actions(one)[0]
            filled = (batch.filled[0, 0][:, None] >> np.arange(lay.n_rows, dtype=np.uint32)) & 1
            cells = batch.cells[0, 0].ravel()
            positions.append({
                "cells": [int(s) if f else None for s, f in zip(cells, filled.ravel())],
                "dice": [int(d) for d in lay.rules.dice.faces[batch.dice[0]]],
                "roll": int(batch.roll[0]),
                "rolls_left": int(batch.rolls_allowed[0] - batch.roll[0]),
                "legal_fills": np.flatnonzero(mask[: lay.n_cells]).tolist(),
                "legal_announces": np.flatnonzero(mask[lay.n_cells + lay.n_keeps :]).tolist(),
                "may_roll": bool(batch.decisions(one).may_roll[0]),
            })
            seen.append(encode(batch, one, weights.cell_values[None], weights.spec.kind == "direct")[0])
            action = int(player.act(batch, one)[0])
            actions.append(action)
            batch.step(np.array([action]), one)
    return positions, actions, np.array(seen)


def action_of(move: dict, weights: NeuralWeights) -> int:
    lay = weights.spec.layout()
    if "fill" in move:
        return move["fill"]
    if "announce" in move:
        return lay.n_cells + lay.n_keeps + move["announce"]
    return lay.n_cells + int(lay.rules.dice.keep_index(np.array(move["keep"])))


@pytest.mark.parametrize(("preset", "columns"), [("yatzy", None), ("yamb", ["down", "announce"])])
def test_a_direct_player_plays_the_same_moves_under_node(tmp_path: Path, preset: str, columns: list | None) -> None:
    weights = network("direct", preset, seed=1, columns=columns)
    model = save_weights(weights, tmp_path / "player.onnx")
    positions, actions, seen = played_positions(model, weights, games=2)
    result = node_recipe(model, positions, tmp_path)
    assert np.allclose(result["features"], seen, atol=1e-6)
    assert [action_of(move, weights) for move in result["moves"]] == actions
    _, forward, _ = onnx_network(model)
    assert np.allclose(result["outputs"], forward(seen[None].astype(np.float32))[0], atol=1e-5)
    lay = weights.spec.layout()
    kinds = {"fill" if a < lay.n_cells else "keep" if a < lay.n_cells + lay.n_keeps else "announce" for a in actions}
    assert kinds == ({"fill", "keep", "announce"} if columns else {"fill", "keep"})


def test_a_guided_players_inputs_and_outputs_match_under_node(tmp_path: Path) -> None:
    weights = network("guided", "yatzy", seed=4)
    model = save_weights(weights, tmp_path / "player.onnx")
    positions, _, seen = played_positions(model, weights, games=1)
    result = node_recipe(model, positions[::3], tmp_path)
    assert np.allclose(result["features"], seen[::3], atol=1e-6)
    _, forward, _ = onnx_network(model)
    assert np.allclose(result["outputs"], forward(seen[::3][None].astype(np.float32))[0], atol=1e-5)
    assert result["moves"] == []  # a guided file does not choose moves alone


def test_the_recipe_refuses_a_sidecar_of_another_file(tmp_path: Path) -> None:
    model = save_weights(network("direct", "yatzy", seed=6), tmp_path / "one.onnx")
    save_weights(network("direct", "yatzy", seed=7), tmp_path / "two.onnx")
    node_recipe(model, [], tmp_path)
    (tmp_path / "one.onnx.json").write_bytes((tmp_path / "two.onnx.json").read_bytes())
    with pytest.raises(AssertionError, match=f"{model}.json belongs with another ONNX file"):
        node_recipe(model, [], tmp_path)


def test_the_onnx_metadata_and_the_sidecar_describe_the_player(tmp_path: Path) -> None:
    import onnx

    for kind in ("direct", "guided"):
        weights = network(kind, "yatzy", seed=6)
        model = save_weights(weights, tmp_path / f"{kind}.onnx")
        side = json.loads((tmp_path / f"{kind}.onnx.json").read_text())
        props = {p.key: json.loads(p.value) for p in onnx.load(str(model)).metadata_props}
        # every sidecar key is a metadata property too, but the SHA-256 of the file that holds them
        assert {k: props[k] for k in side if k != "onnx_sha256"} == {k: v for k, v in side.items() if k != "onnx_sha256"}
        assert (side["score_scale"], side["bonus_threshold"], side["bonus"], side["dice"]) == (50, 63, 50, 5)
        assert side["rows"] == list(ROWS["yatzy"]) and side["columns"] == ["free"]
        assert np.allclose(side["cell_values"], weights.cell_values)
        n_inputs, n_outputs = weights.spec.build().n_inputs, weights.spec.build().n_outputs
        for part, size in ((side["input"], n_inputs), (side["output"], n_outputs)):
            ends = [s["start"] + s["length"] for s in part["layout"]]
            assert [s["start"] for s in part["layout"]] == [0, *ends[:-1]] and ends[-1] == size == part["shape"][1]
        assert ("cannot play alone" in side["playing"]) == (kind == "guided")
    m = side["dice_multisets"].index([0, 0, 0, 0, 0, 5])  # five sixes
    assert side["scores"][m][side["rows"].index("yatzy")] == 50 and side["scores"][m][5] == 30
