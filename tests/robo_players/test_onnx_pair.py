"""An ONNX file and its sidecar cannot disagree: the sidecar names the SHA-256 of its ``.onnx``, the pair is
written so that a kill or a full disk leaves the old pair or the new one, the description in the ONNX
metadata is covered by the checksum, and the same player written twice gives the same bytes."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from robo_players.neural.files import FORMATS, NeuralWeights, WeightsFileError, onnx_network, save_weights
from robo_players.neural.networks import NetSpec
from robo_players.neural.onnx_meta import sidecar_path
from yamb import atomic
from yamb.atomic import WriteError
from yamb.layout import layout
from yamb.rules import rules

ROOT = Path(__file__).resolve().parents[2]

# Export ``argv[1]`` (a pt file) to ``argv[2]`` as ONNX, killed with SIGKILL right after the first move.
KILLED_EXPORT = """
import os, signal, sys
from yamb import atomic
from robo_players.neural.files import load_weights, save_weights

real_replace = atomic.os.replace

def replace(tmp, path):
    real_replace(tmp, path)
    os.kill(os.getpid(), signal.SIGKILL)

weights = load_weights(sys.argv[1])
atomic.os.replace = replace
save_weights(weights, sys.argv[2])
"""


def player(seed: int) -> NeuralWeights:
    spec = NetSpec.for_layout("direct", layout(rules("yatzy")), (4,))
    rng = np.random.default_rng(seed)
    genome = spec.build().initial_genome(rng)
    values = rng.uniform(0, 20, spec.layout().n_cells).astype(np.float32)
    return NeuralWeights(spec, genome.astype(np.float32), values, {"fitness": 100.0 + seed, "seed": seed})


def pair(path: Path) -> tuple[bytes, bytes]:
    return path.read_bytes(), sidecar_path(path).read_bytes()


def test_the_sidecar_names_its_onnx_and_another_ones_is_refused(tmp_path: Path) -> None:
    one, two = save_weights(player(1), tmp_path / "one.onnx"), save_weights(player(2), tmp_path / "two.onnx")
    side = json.loads(sidecar_path(one).read_text())
    assert side["onnx_sha256"] == hashlib.sha256(one.read_bytes()).hexdigest()
    onnx_network(one)
    sidecar_path(one).write_bytes(sidecar_path(two).read_bytes())
    with pytest.raises(WeightsFileError, match=rf"^{sidecar_path(one)} belongs with another one\.onnx"):
        onnx_network(one)



@pytest.mark.parametrize(("text", "reason"), [
    ("[" * 100_000 + "]" * 100_000, "not readable: nested over 64 levels deep"),
    ('{"format": ' + "1" * 5000 + "}", "not readable: an integer of over 4,300 digits"),
], ids=["deep", "long integer"])
def test_a_sidecar_too_deep_or_too_long_to_read_is_one_line(tmp_path: Path, text: str, reason: str) -> None:
    one = save_weights(player(1), tmp_path / "one.onnx")
    sidecar_path(one).write_text(text)
    with pytest.raises(WeightsFileError, match=rf"^{sidecar_path(one)}: not a readable sidecar \({reason}\)$"):
        onnx_network(one)

def test_a_kill_between_the_two_moves_leaves_the_new_pair_complete(tmp_path: Path) -> None:
    out = save_weights(player(1), tmp_path / "best.onnx")
    new = save_weights(player(2), tmp_path / "new.pt")
    done = subprocess.run([sys.executable, "-c", KILLED_EXPORT, str(new), str(out)], check=False, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == -signal.SIGKILL, done.stderr
    expected = save_weights(player(2), tmp_path / "expected" / "best.onnx")  # the new pair, written whole
    _, _, values = onnx_network(out)  # reading settles the interrupted write
    assert pair(out) == pair(expected) and np.array_equal(values, player(2).cell_values)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.onnx", "best.onnx.json", "expected", "new.pt"]


def test_a_full_disk_leaves_the_old_pair_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = save_weights(player(1), tmp_path / "best.onnx")
    old = pair(out)
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the disk fills while the sidecar is synced, after the graph was written
        if ".best.onnx.json." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(WriteError, match="No space left on device"):
        save_weights(player(2), out)
    assert pair(out) == old and sorted(p.name for p in tmp_path.iterdir()) == ["best.onnx", "best.onnx.json"]


@pytest.mark.parametrize(("key", "value"), [("rolls_per_turn", b"3"), ("bonus_threshold", b"63"),
                                            ("scores_note", b"scores")])
def test_a_changed_description_in_the_onnx_metadata_is_refused(tmp_path: Path, key: str, value: bytes) -> None:
    path = save_weights(player(1), tmp_path / "best.onnx")
    data = bytearray(path.read_bytes())
    at = data.index(value, data.index(key.encode()) + len(key))  # the property's value follows its key
    data[at] ^= 0x01  # "3" -> "2", "63" -> "73", "scores" -> "rcores"
    path.write_bytes(bytes(data))
    with pytest.raises(WeightsFileError, match="does not match its SHA-256 checksum"):
        onnx_network(path)


def test_the_same_player_written_twice_gives_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    weights = player(3)
    first = {fmt: save_weights(weights, tmp_path / "a" / f"best.{fmt}") for fmt in FORMATS}
    later = time.time() + 86_400
    monkeypatch.setattr(time, "time", lambda: later)  # a day later (zip archives date their entries)
    second = {fmt: save_weights(weights, tmp_path / "b" / f"player.{fmt}") for fmt in FORMATS}
    for fmt in FORMATS:
        assert first[fmt].read_bytes() == second[fmt].read_bytes(), fmt
    assert sidecar_path(first["onnx"]).read_bytes() == sidecar_path(second["onnx"]).read_bytes()


def test_reading_an_onnx_file_leaves_nothing_in_tmpdir(tmp_path: Path) -> None:
    """onnxruntime's import writes a session file (``.ses``) into the temporary folder: it gets a folder
    of its own, removed after. In a fresh process, with $TMPDIR an empty folder of the test's."""
    save_weights(player(1), tmp_path / "p.onnx")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = subprocess.run([sys.executable, "-c", "import sys; from robo_players.neural.files import onnx_network; "
                           "onnx_network(sys.argv[1])", str(tmp_path / "p.onnx")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}, timeout=600)
    assert done.returncode == 0, done.stderr
    assert list(tmp.iterdir()) == []
