"""PettingZoo AEC environment: two or more players take whole turns, each on their own table.

    from yamb.multiagent import env

    game = env(players=2, columns=["down", "up", "free", "announce", "counter_announce"])
    game.reset(seed=0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        ...
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from yamb.env import SEED_BOUND, ObservationEncoder
from yamb.errors import YambError
from yamb.game import Game
from yamb.rules import rules as preset_rules


class YambAECEnv(AECEnv):
    """Multiplayer Yamb, Yatzy or Yahtzee; the agents are ``player_0`` .. ``player_{P-1}``.

    ## Description

    Players alternate whole turns (docs/rules.md); an agent acts on every decision of
    its turn (keep and roll, announce, fill), so ``agent_selection`` changes only
    after a fill. The highest final total wins.

    ## Action Space

    ``Discrete(2 * CR + K)``, the encoding of ``yamb.layout`` as in ``Yamb-v0``.
    An illegal action raises ``yamb.IllegalMoveError`` naming the broken rule.

    ## Observation Space

    ``Dict(observation=Box(0, 1, (3 * CR + C + 9 + (P - 1) * 2 * CR,)),
    action_mask=Box(0, 1, (2 * CR + K,), int8))``. ``observation`` is the
    observing player's vector as documented in ``yamb.env.YambEnv`` (its
    must-fill entries also mark a counter-announcement to answer), followed for
    each other player, in seat order after the observer, by that player's cell
    filled flags and normalized cell scores (the first ``2 * CR`` entries of
    their own vector). ``action_mask`` marks the legal actions of the observer:
    all zeros when it is not the observer's turn.

    ## Rewards

    The acting player's own total score increase (0 for the others), so each
    agent's return is its final score. ``infos[agent]["score"]`` is its total;
    once the game is over ``infos[agent]["final_scores"]`` maps every agent to
    its final total (what ``last()`` returns to each agent at its end; after
    the loop PettingZoo has removed the agents and their infos, and
    ``env.unwrapped.game.scores()`` still holds the totals).

    ## Starting State

    Empty tables, ``player_0`` to move right after the first roll; ``reset(seed=s)``
    always deals the same dice.

    ## Episode End

    Every agent is terminated when the last player fills the last cell.

    ## Parallel API

    Players take turns, so ``metadata["is_parallelizable"]`` is False and
    PettingZoo's ``aec_to_parallel`` refuses the environment;
    ``turn_based_aec_to_parallel`` works (only the mover's action is played).

    ## Arguments

    ``players`` (at least 2), ``preset``, ``columns``, ``dice``, ``joker`` as in ``Yamb-v0``.
    """

    metadata = {"name": "yamb_v0", "render_modes": [], "is_parallelizable": False}
    render_mode: str | None = None  # nothing to render; PettingZoo's wrappers read it (and warn without it)

    def __init__(
        self,
        players: int = 2,
        preset: str = "yamb",
        columns: Sequence[str] | None = None,
        dice: int | None = None,
        joker: str | None = None,
    ) -> None:
        super().__init__()
        if players < 2:
            raise YambError(f"a multiplayer game needs at least 2 players, not {players}; Yamb-v0 is solitaire")
        self.rules = preset_rules(preset, dice=dice, joker=joker)
        self.columns = columns
        self.game = Game(self.rules, columns, players)
        layout = self.game.layout
        self.encoder = ObservationEncoder(layout)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        size = self.encoder.size + (players - 1) * 2 * layout.n_cells
        observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(layout.n_actions,), dtype=np.int8),
        })
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(layout.n_actions) for agent in self.possible_agents}
        self._np_random, _ = seeding.np_random()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = self.possible_agents.index(agent)
        players = self.game.players
        others = [(player + k) % players for k in range(1, players)]
        observation = np.concatenate(
            [self.encoder.encode(self.game, player)]
            + [self.encoder.table_features(self.game, other) for other in others]
        )
        to_move = not self.game.is_over() and self.game.player == player
        mask = self.game.action_mask() if to_move else np.zeros(self.game.layout.n_actions, dtype=bool)
        return {"observation": observation, "action_mask": mask.astype(np.int8)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(SEED_BOUND))
        self.game = Game(self.rules, self.columns, len(self.possible_agents), seed=game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = self._infos()
        self.agent_selection = self.possible_agents[self.game.player]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        player = self.game.player
        before = self.game.scores()[player]
        self.game.apply(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = float(self.game.scores()[player] - before)
        if self.game.is_over():
            self.terminations = {a: True for a in self.agents}
        self.infos = self._infos()
        self._accumulate_rewards()
        self.agent_selection = self.possible_agents[self.game.player]

    def _infos(self) -> dict[str, dict[str, Any]]:
        scores = self.game.scores()
        infos = {agent: {"score": scores[self.possible_agents.index(agent)]} for agent in self.agents}
        if self.game.is_over():
            final = dict(zip(self.possible_agents, scores))
            for info in infos.values():
                info["final_scores"] = final
        return infos


def env(**kwargs: Any) -> AECEnv:
    """A ``YambAECEnv`` in PettingZoo's order-enforcing wrapper (errors for steps before reset)."""
    return OrderEnforcingWrapper(YambAECEnv(**kwargs))
