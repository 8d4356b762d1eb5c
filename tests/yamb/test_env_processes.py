"""Yamb-v0 in other processes: fork-started vector envs of Gymnasium and stable-baselines3, and
``gymnasium.make`` in a fresh interpreter.

Each check runs in a fresh Python process: the test process itself has run
parallel kernels (OpenMP), after which GNU OpenMP forbids ``fork``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from yamb.env import YambEnv

FIRST_LEGAL_GAME = """
def first_legal(masks):
    # the lowest legal action of each env; after a game's last step the mask is all zeros
    return np.array([np.flatnonzero(m)[0] if m.any() else 0 for m in masks])
"""


def run_python(*parts: str) -> dict:
    """Run the code ``parts`` in a fresh interpreter; return the JSON it prints last."""
    code = "\n".join(textwrap.dedent(part) for part in parts)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def first_legal_score(seed: int, **kwargs: object) -> int:
    """The final score of ``Yamb-v0`` reset with ``seed`` and played with the lowest legal action."""
    env = YambEnv(**kwargs)
    _, info = env.reset(seed=seed)
    terminated = False
    while not terminated:
        _, _, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    return info["score"]


def test_a_fork_started_async_vector_env_plays_whole_games() -> None:
    result = run_python("""
        import json
        import gymnasium, numpy as np
        import yamb  # registers Yamb-v0
        import numba.np.ufunc.parallel as numba_parallel
    """, FIRST_LEGAL_GAME, """
        envs = gymnasium.vector.AsyncVectorEnv(
            [lambda: gymnasium.make("Yamb-v0", preset="yatzy")] * 2, context="fork")
        _, info = envs.reset(seed=10)
        scores = [None, None]
        while None in scores:
            _, _, terminated, _, info = envs.step(first_legal(info["action_mask"]))
            for i in np.flatnonzero(terminated):
                scores[i] = scores[i] or int(info["score"][i])
        envs.close()
        print(json.dumps({"scores": scores, "threads_started": bool(numba_parallel._is_initialized)}))
    """)
    assert result["scores"] == [first_legal_score(10, preset="yatzy"), first_legal_score(11, preset="yatzy")]
    assert not result["threads_started"]  # the parent never started numba's threading layer


@pytest.mark.slow
def test_stable_baselines3_subproc_vec_env_with_fork_plays_whole_games() -> None:
    pytest.importorskip("stable_baselines3")
    result = run_python("""
        import json
        import gymnasium, numpy as np
        import yamb  # registers Yamb-v0
        from stable_baselines3.common.vec_env import SubprocVecEnv
    """, FIRST_LEGAL_GAME, """
        parent = gymnasium.make("Yamb-v0", preset="yatzy")  # a game in this process before the fork
        _, info = parent.reset(seed=0)
        while info["action_mask"].any():
            _, _, _, _, info = parent.step(first_legal([info["action_mask"]])[0])
        envs = SubprocVecEnv([lambda: gymnasium.make("Yamb-v0", preset="yatzy")] * 2, start_method="fork")
        envs.seed(20)
        envs.reset()
        scores = [None, None]
        while None in scores:
            _, _, dones, infos = envs.step(first_legal(np.stack(envs.env_method("action_masks"))))
            for i in np.flatnonzero(dones):
                scores[i] = scores[i] or int(infos[i]["score"])
        envs.close()
        print(json.dumps({"scores": scores}))
    """)
    assert result["scores"] == [first_legal_score(20, preset="yatzy"), first_legal_score(21, preset="yatzy")]


@pytest.mark.slow
def test_gymnasium_make_works_in_a_fresh_interpreter() -> None:
    result = run_python("""
        import json, sys
        import gymnasium
        before = "Yamb-v0" in gymnasium.registry
        env = gymnasium.make("yamb:Yamb-v0", preset="yatzy")  # imports yamb, which registers Yamb-v0
        obs, _ = env.reset(seed=0)
        again = gymnasium.make("Yamb-v0", preset="yatzy")
        print(json.dumps({"before": before, "size": len(obs), "entry_point": again.spec.entry_point,
                          "env_imported": "yamb.env" in sys.modules}))
    """)
    assert result == {"before": False, "size": 55, "entry_point": "yamb.env:YambEnv", "env_imported": True}
    result = run_python("""
        import json, sys
        import yamb, gymnasium
        registered = "Yamb-v0" in gymnasium.registry and "yamb.env" not in sys.modules
        env = gymnasium.make("Yamb-v0")
        print(json.dumps({"registered_before_make": registered, "actions": int(env.action_space.n)}))
    """)
    assert result == {"registered_before_make": True, "actions": 566}
