"""MaskablePPO (sb3-contrib) on Yamb-v0 with and without the ``row_scores`` observation.

Trains one agent per observation with the same seed and default PPO settings,
then plays ``--games`` evaluation games (greedy action among the legal ones,
seeds unseen in training) and prints each mean score with its standard error
and the training time. Needs ``pip install sb3-contrib``.

    nice -n 5 python -m scripts.ppo_row_scores --preset yatzy --steps 100000 --games 1000
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

import yamb  # noqa: F401 - registers Yamb-v0
from robo_players.search.cell_values import expected_cell_scores

EVAL_SEED = 10**9  # evaluation games' seeds start here, far from training's


def evaluate(model: object, env_kwargs: dict, games: int) -> np.ndarray:
    """Final scores of ``games`` games played with the model's most likely legal action."""
    import gymnasium

    env = gymnasium.make("Yamb-v0", **env_kwargs)
    scores = np.empty(games)
    for g in range(games):
        obs, info = env.reset(seed=EVAL_SEED + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        scores[g] = info["score"]
    return scores


def train(env_kwargs: dict, steps: int, seed: int) -> tuple[object, float]:
    """A MaskablePPO agent trained for ``steps`` steps, and the seconds it took."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("Yamb-v0", **env_kwargs)
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="yatzy")
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"MaskablePPO on {args.preset}, {args.steps} steps, {args.games} evaluation games, seed {args.seed}")
    for row_scores in (None, expected_cell_scores):
        kwargs = {"preset": args.preset, "row_scores": row_scores}
        model, seconds = train(kwargs, args.steps, args.seed)
        scores = evaluate(model, kwargs, args.games)
        sem = scores.std(ddof=1) / np.sqrt(len(scores))
        print(f"row_scores={row_scores is not None}: mean {scores.mean():.2f} ± {sem:.2f}, "
              f"training {seconds:.0f} s, load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
