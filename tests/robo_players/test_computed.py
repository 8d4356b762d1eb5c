"""Arrays computed once and kept in the tree's cache folder: read back exactly, computed again when
damaged or for anything else, and ``best-values`` plays the same from them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robo_players import computed
from robo_players.computed import computed_once, rules_key
from yamb.numba_cache import tree_folder
from yamb.rules import rules


@pytest.fixture()
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tree_folder() / computed.FOLDER


def counted(value: float, calls: list[int]):
    def compute() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"table": np.full((3, 4), value) / 7, "count": np.arange(5)}
    return compute


def test_arrays_are_computed_once_and_read_back_bit_for_bit(cache: Path) -> None:
    calls: list[int] = []
    first = computed_once("t", b"key", counted(1.0, calls))
    again = computed_once("t", b"key", counted(2.0, calls))  # a different computation under the same key: not run
    assert calls == [1] and len(list(cache.glob("t-*.npz"))) == 1
    assert all(np.array_equal(first[k], again[k]) and first[k].dtype == again[k].dtype for k in first)


def test_another_key_computes_its_own(cache: Path) -> None:
    calls: list[int] = []
    a, b = computed_once("t", b"one", counted(1.0, calls)), computed_once("t", b"two", counted(2.0, calls))
    assert calls == [1, 1] and not np.array_equal(a["table"], b["table"])


def test_a_damaged_file_is_computed_again(cache: Path) -> None:
    calls: list[int] = []
    computed_once("t", b"key", counted(1.0, calls))
    (path,) = cache.glob("t-*.npz")
    path.write_bytes(path.read_bytes()[:-40])
    assert computed_once("t", b"key", counted(1.0, calls))["table"][0, 0] == 1 / 7 and calls == [1, 1]


def test_the_rules_key_tells_the_tables_apart() -> None:
    keys = [rules_key(rules(p, **kw)) for p, kw in (("yatzy", {}), ("yahtzee", {}), ("yahtzee", {"joker": "forced"}),
                                                     ("yamb", {}), ("yamb", {"dice": 6}))]
    assert len(set(keys)) == len(keys) and rules_key(rules("yatzy")) == keys[0]


@pytest.mark.slow
def test_best_values_plays_from_the_kept_table_as_from_its_network(cache: Path) -> None:
    """The table read back is the one computed, bit for bit, and holds the network's values of the states
    (a random tenth of them computed afresh)."""
    from robo_players.neural.bots import load_values_bot, values_bot_file
    from robo_players.neural.state_values import predict, reachable_states
    from robo_players.neural.value_nets import load_values
    from yamb.layout import layout

    lay = layout(rules("yatzy"))
    built, read = load_values_bot(lay), load_values_bot(lay)  # computed, then read from the file
    assert np.array_equal(built.solution.values, read.solution.values, equal_nan=True)
    net, _, _ = load_values(values_bot_file(lay))
    states = reachable_states(lay.rules)
    some = np.random.default_rng(5).random(len(states[0])) < 0.1
    picked = tuple(a[some] for a in states)
    assert np.array_equal(read.solution.values[picked], predict(net, lay.rules, *picked))
    full = (1 << lay.rules.n_rows) - 1
    assert (read.solution.values[full] == 0).all() and np.isnan(read.solution.values).any()
