"""The Gymnasium and PettingZoo environments: API checks, full masked episodes, observations, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from yamb import multiagent
from yamb.env import YambEnv
from yamb.multiagent import YambAECEnv
from yamb.errors import IllegalMoveError, UnknownPresetError, YambError

CONFIGS = [
    {},
    {"preset": "yatzy"},
    {"preset": "yahtzee", "joker": "forced"},
    {"preset": "jamb6"},
    {"preset": "yamb", "dice": 6, "columns": ["hand", "middle", "late_announce"]},
]


def make(**kwargs) -> YambEnv:
    return gymnasium.make("Yamb-v0", **kwargs).unwrapped


def random_episode(env: YambEnv, seed: int) -> tuple[float, int, list[np.ndarray]]:
    """Play to the end with uniformly random legal actions; return (return, fills, observations)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total, fills, observations = 0.0, 0, [obs]
    terminated = False
    while not terminated:
        assert np.array_equal(info["action_mask"], env.action_masks())
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        fills += action < env.game.layout.n_cells
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated and "illegal_action" not in info
        total += reward
        observations.append(obs)
    return total, fills, observations


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_gymnasium_env_checker_passes(kwargs: dict) -> None:
    check_env(make(**kwargs))


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_a_random_masked_episode_returns_the_final_score(kwargs: dict) -> None:
    env = make(**kwargs)
    total, fills, observations = random_episode(env, seed=3)
    assert env.game.is_over()
    assert fills == env.game.layout.n_cells
    assert total == env.game.scores()[0] == sum(column["total"] for column in env.game.table().values()) + env.game.yahtzee_bonus()
    assert all(env.observation_space.contains(obs) for obs in observations)
    assert observations[-1][: env.game.layout.n_cells].all()  # every cell filled


def test_reset_with_a_seed_deals_the_same_game() -> None:
    a, b = make(), make()
    assert random_episode(a, seed=8)[0] == random_episode(b, seed=8)[0]
    assert a.game.to_dict() == b.game.to_dict()
    first, _ = a.reset(seed=1)
    dice = a.game.dice
    again, _ = a.reset(seed=1)
    assert np.array_equal(first, again) and a.game.dice == dice
    deals = {a.reset(seed=s)[0].tobytes() for s in range(6)}
    assert len(deals) > 1


def test_observation_entries_match_the_documented_table() -> None:
    env = make()
    lay = env.game.layout
    cr, c = lay.n_cells, lay.n_columns
    obs, _ = env.reset(seed=5)
    assert obs.shape == (3 * cr + c + 9,) == (169,)
    dice = env.game.dice
    assert np.allclose(obs[2 * cr : 2 * cr + 6], [dice.count(f) / 5 for f in range(1, 7)])
    assert np.allclose(obs[2 * cr + 6 : 2 * cr + 8], [1 / 3, 2 / 3])
    assert obs[3 * cr + c + 8] == 1.0  # the first roll throws every die
    announce = env.game.cell_index("announce", "straight")
    obs, reward, *_ = env.step(cr + lay.n_keeps + announce)
    assert reward == 0.0 and np.flatnonzero(obs[2 * cr + 8 : 3 * cr + 8]).tolist() == [announce]
    obs, *_ = env.step(cr + int(env.rules.dice.keep_index(np.eye(6, dtype=int)[dice[0] - 1])))
    assert np.allclose(obs[2 * cr + 6 : 2 * cr + 8], [2 / 3, 1 / 3])
    assert obs[3 * cr + c + 8] == 0.0  # one die was kept
    straight = env.rules.score("straight", env.game.dice)
    obs, reward, *_ = env.step(announce)
    assert reward == straight
    assert obs[announce] == 1.0 and obs[cr + announce] == pytest.approx(straight / 45)
    sixes = env.game.cell_index("free", "sixes")
    sixes_score = env.rules.score("sixes", env.game.dice)
    obs, *_ = env.step(sixes)
    free = env.game.columns.index("free")
    assert obs[cr + sixes] == pytest.approx(sixes_score / 30)
    assert obs[3 * cr + 8 + free] == pytest.approx(sixes_score / 60)
    assert obs[: cr].sum() == 2


def test_an_illegal_action_is_penalized_and_changes_nothing() -> None:
    env = make()
    obs, _ = env.reset(seed=4)
    down_twos = env.game.cell_index("down", "twos")
    after, reward, terminated, truncated, info = env.step(down_twos)
    assert reward == -1.0 and not terminated and not truncated
    assert "down column's order" in info["illegal_action"]
    assert np.array_equal(obs, after) and env.game.history == ()
    _, _, _, _, info = env.step(env.action_space.n + 3)
    assert "out of range" in info["illegal_action"]


def test_an_illegal_action_can_raise() -> None:
    env = make(illegal_action="raise", preset="yatzy")
    env.reset(seed=4)
    keep_nothing = env.game.layout.n_cells
    env.step(keep_nothing)
    env.step(keep_nothing)
    with pytest.raises(IllegalMoveError, match="no rolls left this turn"):
        env.step(keep_nothing)


def test_bad_arguments_raise_precise_errors() -> None:
    with pytest.raises(YambError, match="unknown illegal_action 'ignore'"):
        make(illegal_action="ignore")
    with pytest.raises(UnknownPresetError):
        make(preset="chess")
    with pytest.raises(UnknownPresetError, match="no joker option"):
        make(joker="forced")


# ----------------------------------------------------------------- PettingZoo (multiplayer)
COUNTER_TABLE = ["free", "announce", "counter_announce"]


def play_aec(game: YambAECEnv, seed: int) -> dict[str, float]:
    """Play to the end with random legal actions; return each agent's summed rewards."""
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(game.possible_agents, 0.0)
    game.reset(seed=seed)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        returns[agent] += reward
        mask = observation["action_mask"]
        game.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))
    return returns


@pytest.mark.parametrize("kwargs", [{"players": 2}, {"players": 3, "columns": COUNTER_TABLE}])
def test_pettingzoo_api_test_passes(kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the dict observation and the missing render
        api_test(multiagent.env(**kwargs), num_cycles=1000)
        seed_test(lambda: multiagent.env(**kwargs), num_cycles=50)


def test_each_agents_return_is_its_final_score() -> None:
    game = YambAECEnv(players=3, columns=COUNTER_TABLE)
    returns = play_aec(game, seed=6)
    assert game.agents == [] and game.game.is_over()
    assert list(returns.values()) == game.game.scores()


def test_the_agent_to_move_answers_a_counter_announcement() -> None:
    game = YambAECEnv(players=2, columns=COUNTER_TABLE)
    game.reset(seed=2)
    layout = game.game.layout
    n_cells = layout.n_cells
    cell = game.game.cell_index("announce", "full_house")
    game.step(n_cells + layout.n_keeps + cell)
    assert game.agent_selection == "player_0"
    game.step(cell)
    assert game.agent_selection == "player_1"
    answer = game.game.cell_index("counter_announce", "full_house")
    mine, theirs = game.observe("player_1"), game.observe("player_0")
    assert np.flatnonzero(mine["action_mask"][:n_cells]).tolist() == [answer]
    assert not mine["action_mask"][n_cells + layout.n_keeps :].any()  # no announcing
    assert not theirs["action_mask"].any()
    encoder = game.encoder
    must_fill = mine["observation"][2 * n_cells + 8 : 3 * n_cells + 8]
    assert np.flatnonzero(must_fill).tolist() == [answer]
    others = mine["observation"][encoder.size :]
    assert np.array_equal(others, encoder.table_features(game.game, 0))
    assert others[cell] == 1.0  # player 0's filled announce cell, seen by player 1


def test_a_multiplayer_env_needs_two_players() -> None:
    with pytest.raises(YambError, match="at least 2 players"):
        YambAECEnv(players=1)
