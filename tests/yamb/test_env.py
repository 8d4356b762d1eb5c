"""The Gymnasium and PettingZoo environments: API checks, full masked episodes, observations, illegal actions."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from expected_scores.tables import load_table
from robo_players.search.cell_values import expected_cell_scores
from yamb import multiagent
from yamb.env import YambEnv, longest_game
from yamb.errors import IllegalMoveError, UnknownPresetError, YambError
from yamb.multiagent import YambAECEnv

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


def test_action_space_sample_takes_the_int8_mask() -> None:
    env = gymnasium.make("Yamb-v0", preset="yatzy")
    _, info = env.reset(seed=2)
    env.action_space.seed(2)
    assert info["action_mask"].dtype == np.int8
    steps = 0
    while info["action_mask"].any():
        action = env.action_space.sample(mask=info["action_mask"])
        assert info["action_mask"][action] == 1
        _, _, terminated, truncated, info = env.step(action)
        steps += 1
    assert terminated and not truncated and steps >= 15
    assert not info["action_mask"].any() and info["score"] == env.unwrapped.game.scores()[0]


def test_a_maskless_random_policy_is_truncated() -> None:
    env = gymnasium.make("Yamb-v0")
    assert env.unwrapped.max_steps == 2 * 52 * 4  # 52 cells, at most 4 steps a turn
    _, info = env.reset(seed=0)
    env.action_space.seed(0)
    total, illegal, steps, done = 0.0, 0, 0, False
    while not done:
        _, reward, terminated, truncated, info = env.step(env.action_space.sample())
        total, steps, done = total + reward, steps + 1, terminated or truncated
        illegal += "illegal_action" in info
    assert truncated and not terminated and steps == 416
    assert illegal > 300 and not info["action_mask"].any()
    assert total == info["score"] - illegal  # each illegal action costs illegal_reward = -1


def test_the_longest_game_takes_longest_game_steps() -> None:
    """A lone announce column: every turn announces, rolls twice more and fills (4 steps)."""
    env = make(columns=["announce"])
    _, info = env.reset(seed=1)
    steps, terminated = 0, False
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        _, _, terminated, truncated, info = env.step(int(legal[-1]))  # announce, else roll, else fill
        steps += 1
        assert not truncated
    assert steps == longest_game(env.game.layout) == 13 * 4
    with pytest.raises(YambError, match="at least 52"):
        make(columns=["announce"], max_steps=51)


def test_vector_env_autoreset_after_the_all_zero_mask() -> None:
    envs = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("Yamb-v0", preset="yatzy")] * 2)
    _, info = envs.reset(seed=4)
    ended = None
    for _ in range(500):
        masks = info["action_mask"]
        actions = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in masks]  # 0: ignored by the reset
        _, _, terminated, _, info = envs.step(np.array(actions))
        if ended is not None:
            break
        if terminated.any():
            ended = int(np.argmax(terminated))
            assert not info["action_mask"][ended].any()
    assert info["action_mask"][ended].any()  # the step after the end reset the env: a new game
    assert envs.envs[ended].unwrapped.game.history == ()


def test_row_scores_add_the_dice_scores_and_the_gains_of_open_cells() -> None:
    env = make(preset="yatzy", row_scores=expected_cell_scores)
    plain = make(preset="yatzy")
    obs, _ = env.reset(seed=3)
    base, _ = plain.reset(seed=3)
    rows, n = env.rules.rows, 15
    assert obs.shape == (3 * n + 1 + 9 + 15 + n,) and np.array_equal(obs[: len(base)], base)
    chance = env.game.cell_index("free", "chance")
    obs, *_ = env.step(chance)
    dice = env.game.dice
    expected = load_table("yatzy", policy="turn")
    scores = np.array([env.rules.score(row, dice) for row in rows])
    assert np.allclose(obs[len(base) : len(base) + 15], scores / 50)  # the largest Yatzy score: 50
    gains = obs[len(base) + 15 :]
    assert gains[chance] == 0.0  # filled
    others = [r for r in range(n) if r != chance]
    assert np.allclose(gains[others], (scores[others] - expected.to_numpy()[others]) / 50, atol=1e-6)
    assert env.observation_space.contains(obs)


@pytest.mark.parametrize("row_scores", [True, lambda layout: np.zeros(3)])
def test_row_scores_must_be_a_function_giving_every_cell_an_expectation(row_scores) -> None:
    with pytest.raises(YambError, match="row_scores"):
        make(preset="yatzy", row_scores=row_scores)


# ----------------------------------------------------------------- PettingZoo (multiplayer)
COUNTER_TABLE = ["free", "announce", "counter_announce"]


def play_aec(game: YambAECEnv, seed: int, final_infos: dict | None = None) -> dict[str, float]:
    """Play to the end with random legal actions; return each agent's summed rewards
    (and put each agent's last info in ``final_infos``)."""
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(game.possible_agents, 0.0)
    game.reset(seed=seed)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        returns[agent] += reward
        if final_infos is not None:
            final_infos[agent] = info
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
    final_infos: dict = {}
    returns = play_aec(game, seed=6, final_infos=final_infos)
    assert game.agents == [] and game.game.is_over()
    assert list(returns.values()) == game.game.scores()
    final = dict(zip(game.possible_agents, game.game.scores()))
    assert all(info["final_scores"] == final and info["score"] == final[a] for a, info in final_infos.items())


def test_turn_based_aec_to_parallel_plays_and_aec_to_parallel_refuses() -> None:
    from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(multiagent.env(players=2, preset="yatzy"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # docs/environment.md's example: no "does not have a render_mode" warning
        env = turn_based_aec_to_parallel(multiagent.env(players=2, preset="yatzy"))
    observations, infos = env.reset(seed=5)
    steps = 0
    while env.agents:
        # every agent submits an action; only the agent to move has legal ones, the others' are ignored
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) if o["action_mask"].any() else 0
                   for a, o in observations.items()}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        steps += 1
    assert steps >= 2 * 15 and env.unwrapped.game.is_over()
    final = dict(zip(env.possible_agents, env.unwrapped.game.scores()))
    assert set(infos) == set(final) and all(info["final_scores"] == final for info in infos.values())


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
