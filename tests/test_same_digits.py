"""The same digits on every machine: the functions, the networks' forward pass and the strategies'
linear algebra that play and evolution read, against independent computations, and run again
under settings that make this machine compute as another would.

What another x86-64 machine changes, each emulated here in a child process:

- numba's code generation for another CPU (``NUMBA_CPU_NAME=generic``: no AVX, no FMA);
- numpy's SIMD loops (``NPY_DISABLE_CPU_FEATURES``: numpy's ``exp`` rounds otherwise without AVX-512);
- OpenBLAS's kernels (``OPENBLAS_CORETYPE``) and thread counts;
- MKL's code path (``MKL_CBWR=AUTO``, MKL's own choice by CPU, instead of the ``COMPATIBLE`` that
  ``yamb.blas`` pins: torch's matrix products round otherwise);
- torch's own kernels (``ATEN_CPU_CAPABILITY=default`` instead of the pinned ``avx2``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from numba import njit
from numpy._core._multiarray_umath import __cpu_features__

from evolution.individual import Individual
from evolution.strategies.cma_es import CMAStrategy
from evolution.strategies.operators import cx_sbx
from expected_scores.distributions import endgame_tables
from robo_players.best_win import CellModel, estimate
from robo_players.neural.dense import BLOCK
from robo_players.neural.networks import NetSpec
from robo_players.neural.population import Population, genome_size, load_genome
from robo_players.neural.value_nets import ValueSpec, value_function
from robo_players.search.win_utility import OTHERS, win_chance
from yamb.engine import PARALLEL_GAMES
from yamb.layout import layout
from yamb.portable_linalg import symmetric_eigen, times_transposed, weighted_rows
from yamb.portable_math import exp, exp_array, power_array, tanh
from yamb.rules import rules

ROOT = Path(__file__).resolve().parent.parent
ULP = 2.0**-52
tanh_array = np.vectorize(tanh, otypes=[float])

# Settings that make this machine compute as another x86-64 machine would (each takes effect here:
# the digests of numpy's exp, OpenBLAS's products and torch's products change under them).
OTHER_LIBRARIES = {
    "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
    "OPENBLAS_CORETYPE": "Prescott",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_CBWR": "AUTO",
    "ATEN_CPU_CAPABILITY": "default",
}
OTHER_CPU = {**OTHER_LIBRARIES, "NUMBA_CPU_NAME": "generic"}


def relative_error(ours: np.ndarray, exact: np.ndarray) -> float:
    exact = np.asarray(exact, dtype=np.longdouble)
    return float(np.max(np.abs((ours - exact) / np.where(exact == 0, 1, exact))))


def test_exp_tanh_and_powers_are_within_a_few_units_in_the_last_place() -> None:
    x = np.concatenate([np.linspace(-40, 40, 200_001), np.geomspace(1e-300, 700, 20_001)])
    assert relative_error(exp_array(x), np.exp(np.longdouble(x))) < 2 * ULP
    assert relative_error(tanh_array(x), np.tanh(np.longdouble(x))) < 4 * ULP
    assert relative_error(tanh_array(-x), -np.tanh(np.longdouble(x))) < 4 * ULP
    base = np.geomspace(1e-8, 1e8, 10_001)
    assert relative_error(power_array(base, 1 / 3), np.longdouble(base) ** (np.longdouble(1) / 3)) < 64 * ULP
    grid = x[:60_000].reshape(200, 300)  # any shape, each element its scalar ``exp``
    assert np.array_equal(exp_array(grid), np.vectorize(exp, otypes=[float])(grid))
    specials = exp_array(np.array([0.0, -np.inf, np.inf, 710.0, -746.0, np.nan]))
    assert specials[:5].tolist() == [1.0, 0.0, np.inf, np.inf, 0.0] and np.isnan(specials[5])
    assert tanh_array(np.array([0.0, 19.2, -19.2, np.inf, -np.inf])).tolist() == [0.0, 1.0, -1.0, 1.0, -1.0]



@njit
def tanh_lanes(x: np.ndarray) -> np.ndarray:
    """``tanh`` of each element in a compiled loop, which runs several elements a vector instruction."""
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = tanh(x[i])
    return out


def test_tanh_in_a_vector_loop_is_tanh_one_value_at_a_time() -> None:
    edges = np.array([0.0, -0.0, 0.0625, -0.0625, 19.1, -19.1, 19.2, np.inf, -np.inf, np.nan, 5e-324, -1e-300])
    x = np.concatenate([np.linspace(-25, 25, 100_003), np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf),
                        edges])
    with np.errstate(all="ignore"):  # both branches are computed: the unused one may overflow
        one_at_a_time = tanh_array(x)
    assert np.array_equal(tanh_lanes(x).view(np.int64), one_at_a_time.view(np.int64))

def small_population(kind: str, members: int, seed: int = 3) -> tuple[NetSpec, np.ndarray]:
    spec = NetSpec.for_layout(kind, layout(rules("yatzy"), None), (8, 5))
    rng = np.random.default_rng(seed)
    return spec, rng.normal(0, 0.3, (members, genome_size(spec.build()))).astype(np.float32)


def hand_forward(net: torch.nn.Module, x: np.ndarray) -> np.ndarray:
    """The network's outputs summed in Python floats, input by input, with ``math.tanh``."""
    linear = [m for m in net.body if isinstance(m, torch.nn.Linear)]
    out = []
    for row in x.astype(float):
        h = list(row)
        for i, layer in enumerate(linear):
            w, b = layer.weight.detach().double().numpy(), layer.bias.detach().double().numpy()
            sums = [0.0] * len(b)
            for k, v in enumerate(h):
                for j in range(len(b)):
                    sums[j] += v * w[j, k]
            h = [s + bj for s, bj in zip(sums, b)]
            if i < len(linear) - 1:
                h = [math.tanh(v) for v in h]
        out.append(h)
    result = np.array(out)
    if hasattr(net, "gain_weight"):
        g, n = net.gain_start, net.n_cells
        result[:, :n] += net.gain_weight.detach().double().numpy() * x[:, g:g + n]
    return result.astype(np.float32)


@pytest.mark.parametrize("kind", ["guided", "direct"])
def test_the_forward_pass_is_the_sum_taken_by_hand_and_close_to_torch(kind: str) -> None:
    spec, genomes = small_population(kind, 3)
    rng = np.random.default_rng(4)
    population = Population(spec.build(), genomes)
    x = (rng.random((3, 7, population.net.n_inputs)) < 0.4) * rng.normal(0, 1, (3, 7, population.net.n_inputs))
    x = x.astype(np.float32)
    ours = population(x)
    for m in range(3):
        net = load_genome(spec.build(), genomes[m])
        # the same sums as by hand, up to tanh (the C library's against ours: a few units in the last place)
        np.testing.assert_allclose(ours[m], hand_forward(net, x[m]), rtol=3e-7, atol=1e-7)
        with torch.no_grad():
            np.testing.assert_allclose(ours[m], net(torch.from_numpy(x[m])).numpy(), rtol=1e-5, atol=1e-5)


def test_a_row_gets_the_same_bits_alone_in_parallel_blocks_and_as_another_member() -> None:
    spec, genomes = small_population("guided", 2)
    population = Population(spec.build(), genomes)
    rows = max(PARALLEL_GAMES, 3 * BLOCK + 5)
    x = np.random.default_rng(5).normal(0, 1, (2, rows, population.net.n_inputs)).astype(np.float32)
    together = population(x)  # the parallel kernel, blocks of rows on both threads
    for m in range(2):
        alone = population.member(m)
        for g in (0, BLOCK - 1, BLOCK, rows - 1):
            assert np.array_equal(alone(x[m : m + 1, g : g + 1])[0, 0], together[m, g])


def test_value_networks_read_through_the_same_pass_as_torch_would() -> None:
    spec = ValueSpec("yatzy", None, hidden=(16, 8))
    net = spec.build()
    x = np.random.default_rng(6).random((300, spec.n_inputs())).astype(np.float32)
    with torch.no_grad():
        np.testing.assert_allclose(value_function(net)(x), net(torch.from_numpy(x)).double().numpy(), rtol=1e-5, atol=1e-3)


def test_the_eigendecomposition_and_products_match_lapack_and_blas() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 17, 120):
        a = rng.standard_normal((n, n))
        c = a @ a.T / n + np.eye(n) * (n == 3)
        values, vectors = symmetric_eigen(c)
        np.testing.assert_allclose(values, np.linalg.eigh(c)[0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose((vectors * values) @ vectors.T, c, atol=1e-11)
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(n), atol=1e-12)
    z, m = rng.standard_normal((5, 40)), rng.standard_normal((30, 40))
    np.testing.assert_allclose(times_transposed(z, m), z @ m.T, rtol=1e-12, atol=1e-12)
    w = rng.random(6)
    assert np.array_equal(weighted_rows(w, m[:6]), sum((w[i] * m[i] for i in range(6)), np.zeros(40)))


def test_cma_es_finds_the_minimum_of_a_rotated_ellipsoid() -> None:
    """CMA-ES learns the covariance: on an ill-conditioned rotated ellipsoid it gets within 1e-8."""
    n = 8
    rng = np.random.default_rng(8)
    rotation = np.linalg.qr(rng.standard_normal((n, n)))[0]
    scales = 10.0 ** np.linspace(0, 3, n)
    strategy = CMAStrategy(np.ones(n), 0.5, 12, np.random.default_rng(9))
    for _ in range(600):
        population = strategy.generate(Individual)
        for ind in population:
            ind.fitness.values = (-float(np.sum((scales * (rotation @ ind)) ** 2)),)
        strategy.update(population)
    assert float(np.sum((scales * (rotation @ strategy.centroid)) ** 2)) < 1e-8


def digests() -> dict[str, str]:
    """Digests of what play and evolution compute in floats, for the child processes to compare."""

    def h(a: np.ndarray) -> str:
        return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]

    rng = np.random.default_rng(10)
    x = np.concatenate([np.linspace(-25, 25, 10_001), rng.normal(0, 3, 10_000)])
    out = {"exp": h(exp_array(x)), "tanh": h(tanh_array(x)), "power": h(power_array(np.abs(x) + 1e-3, 0.37))}
    for kind in ("guided", "direct"):
        spec, genomes = small_population(kind, 4)
        population = Population(spec.build(), genomes)
        features = rng.normal(0, 1, (4, PARALLEL_GAMES // 2, population.net.n_inputs)).astype(np.float32)
        out[kind] = h(population(features))
    value_net = ValueSpec("yahtzee", None, hidden=(32, 16)).build()
    value_net.load_state_dict({name: torch.from_numpy(rng.normal(0, 0.3, p.shape).astype(np.float32))
                               for name, p in value_net.state_dict().items()})
    out["values"] = h(value_function(value_net)(rng.random((500, value_net.layers[0].in_features)).astype(np.float32)))
    strategy = CMAStrategy(np.zeros(60), 0.3, 10, np.random.default_rng(11))
    for _ in range(15):
        population = strategy.generate(Individual)
        for ind in population:
            ind.fitness.values = (-float(np.sum(np.cumsum(ind) ** 2)),)
        strategy.update(population)
    out["cma"] = h(np.concatenate([strategy.centroid, strategy.C.ravel(), strategy.B.ravel(), [strategy.sigma]]))
    a, b = rng.normal(0, 1, 500), rng.normal(0, 1, 500)
    out["sbx"] = h(np.concatenate(cx_sbx(a, b, 10.0, np.random.default_rng(12))))
    out["best-win"] = h(np.concatenate(best_win_estimate(rng)))
    rows = [np.concatenate([np.zeros(OTHERS), rng.normal(0, 30, 2 * others) + [0, 40] * others])
            for others in (1, 3) for _ in range(200)]  # a mover against one other (closed form) or three
    out["win-chance"] = h(np.array([win_chance(rng.normal(0, 30), rng.uniform(1, 40), np.abs(row)) for row in rows]))
    out["score-tables"] = h(score_tables_of_an_endgame())
    return out


def score_tables_of_an_endgame() -> np.ndarray:
    """The distributions, reach chances and means of a Yahtzee endgame with four cells open, the
    numbers bonus and the extra Yahtzee bonuses still in play, as the score tables are built."""
    r = rules("yahtzee")
    open_rows = sum(1 << r.row_index(name) for name in ("aces", "twos", "sixes", "chance"))
    tables = endgame_tables(r, ((1 << r.n_rows) - 1) & ~open_rows)
    return np.concatenate([tables.dist.flat, tables.tail, tables.reach.flat, tables.means])


def best_win_estimate(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``best-win``'s estimate of the final totals (mean, variance) of random Yatzy sheets, from a random
    cell model: the numbers bonus's chance and density enter it."""
    r = rules("yatzy")
    n_rows, cells_total = r.n_rows, r.n_rows + 1
    model = CellModel(rng.uniform(0, 30, (cells_total, 1, n_rows)), rng.uniform(1, 90, (cells_total, 1, n_rows)),
                      0.0, 0.0, np.zeros(cells_total))
    filled = rng.integers(0, 1 << n_rows, (2000, 2, 1))
    cells = rng.integers(0, 30, (2000, 2, 1, n_rows))
    out = estimate(r, model, cells, filled, np.zeros((2000, 2)))
    return out.mean, out.var


def run_elsewhere(settings: dict[str, str], script: str) -> subprocess.CompletedProcess:
    # kernels compiled for another CPU are filed apart in the same cache (tests/yamb/test_numba_cache.py)
    env = {**os.environ, **settings, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT)


@pytest.mark.slow
@pytest.mark.parametrize("settings", [OTHER_LIBRARIES, OTHER_CPU], ids=["other-libraries", "other-cpu"])
def test_the_digits_are_the_same_computed_as_on_another_machine(settings: dict[str, str]) -> None:
    script = "import json, tests.test_same_digits as t; print(json.dumps(t.digests()))"
    child = run_elsewhere(settings, script)
    assert child.returncode == 0, child.stderr[-3000:]
    assert json.loads(child.stdout.splitlines()[-1]) == digests()


def test_the_emulating_settings_do_take_effect_here() -> None:
    """Without the fixes above these settings change OpenBLAS's products, torch's products and, on a
    machine with AVX-512, numpy's exp: the emulation is real, not a no-op."""
    script = ("import hashlib, numpy as np, torch\n"
              "r = np.random.default_rng(0); a = r.normal(0, 1, (300, 200)); b = r.normal(0, 1, (200, 150))\n"
              "t = torch.from_numpy(a.astype(np.float32)) @ torch.from_numpy(b.astype(np.float32))\n"
              "print(*(hashlib.sha256(v.tobytes()).hexdigest()[:12] for v in (np.exp(a), a @ b, t.numpy())))")
    here = run_elsewhere({}, script).stdout.split()
    there = run_elsewhere(OTHER_LIBRARIES, script).stdout.split()
    assert len(here) == len(there) == 3
    assert [x != y for x, y in zip(here, there)] == [bool(__cpu_features__.get("AVX512F")), True, True]


@pytest.mark.slow
def test_recorded_play_is_the_same_computed_as_on_another_machine() -> None:
    """The recorded cases that read networks or the strategies, run under ``OTHER_LIBRARIES``."""
    env = {**os.environ, **OTHER_LIBRARIES}
    child = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_bit_identical.py",
                            "-k", "guided or best or direct or population or evolution or optimal"],
                           env=env, capture_output=True, text=True, cwd=ROOT)
    assert child.returncode == 0, child.stdout[-3000:]


@pytest.mark.slow
def test_a_fit_writes_the_same_weights_computed_as_on_another_machine(tmp_path: Path) -> None:
    """``yamb fit-values`` (play through the forward pass, torch's training with the pinned MKL path and
    loops, ``yamb.blas``) writes the same weights with numpy, OpenBLAS and numba's code generation of
    another machine."""
    command = ("import sys; from yamb_app.cli import main; sys.exit(main(['fit-values', '--preset', 'yatzy', "
               "'--rounds', '2', '--games', '60', '--hidden', '24,16', '--epochs', '2', '--out', sys.argv[1]]))")
    files = []
    for name, settings in (("here", {}), ("there", {k: v for k, v in OTHER_CPU.items() if not k.startswith(("MKL", "ATEN"))})):
        out = tmp_path / f"{name}.npz"
        env = {**os.environ, **settings, "PYTHONPATH": str(ROOT)}
        child = subprocess.run([sys.executable, "-c", command, str(out)], env=env, capture_output=True, text=True,
                               cwd=ROOT)
        assert child.returncode == 0, child.stderr[-3000:]
        files.append(out)
    with np.load(files[0]) as a, np.load(files[1]) as b:
        assert a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")
