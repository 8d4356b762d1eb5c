"""The same players on the same games in several worktrees, paired game by game: what a change did to play.

    git worktree add --detach ../before main                 # the code before the change
    python -m scripts.compare_trees --trees before=../before after=. --preset jamb6 \\
        --players best expectimax --games 10000 --seed 12345

Each (player, tree) plays ``yamb compare``'s games (``robo_players.measure.compare.play_games``: game i
on dice stream i of the seed) in its own process, with ``PYTHONPATH`` and the working folder set to the
tree, one after another. Printed for each player: each tree's mean ± standard error (what ``yamb compare
PLAYER --preset P --games N --seed S`` prints in that tree), and each later tree's difference from the
first, game by game (mean ± standard error, and the share of games whose score changed), with the load
average beside it; the last line is the same as JSON. ``--scores DIR`` keeps each game's score,
``DIR/PLAYER-TREE.npy``, to pair players with each other too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

PLAY = """
import sys
import numpy as np
from robo_players.measure.compare import play_games
from robo_players.registry import make_player
from yamb.layout import layout
from yamb.rules import rules

preset, name, games, seed, out = sys.argv[1:]
lay = layout(rules(preset))
np.save(out, play_games(lay, make_player(name, lay), int(games), seed=int(seed)).scores)
"""


def scores(tree: Path, preset: str, player: str, games: int, seed: int, out: Path) -> np.ndarray:
    """The final scores of ``games`` games of ``player`` played by the code of ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", PLAY, preset, player, str(games), str(seed), str(out)],
                   cwd=tree, env=env, check=True)
    return np.load(out)


def mean_sem(x: np.ndarray) -> dict[str, float]:
    return {"mean": float(x.mean()), "sem": float(x.std(ddof=1) / np.sqrt(len(x)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trees", nargs="+", required=True, metavar="NAME=PATH",
                        help="the worktrees, the first the one the others are compared with")
    parser.add_argument("--preset", default="yamb")
    parser.add_argument("--players", nargs="+", required=True)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scores", type=Path, metavar="DIR", help="keep each game's score in DIR/PLAYER-TREE.npy")
    args = parser.parse_args()
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.trees)}
    report: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.scores or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for player in args.players:
            played = {name: scores(tree, args.preset, player, args.games, args.seed, folder / f"{player}-{name}.npy")
                      for name, tree in trees.items()}
            load = os.getloadavg()
            first, *later = trees
            report[player] = {name: mean_sem(s) for name, s in played.items()}
            print(f"{player}: " + ", ".join(f"{n} {r['mean']:.2f} ± {r['sem']:.2f}" for n, r in report[player].items()))
            for name in later:
                diff = played[name] - played[first]
                report[player][f"{name} - {first}"] = {**mean_sem(diff), "changed": float((diff != 0).mean())}
                r = report[player][f"{name} - {first}"]
                print(f"  {name} - {first}: {r['mean']:+.2f} ± {r['sem']:.2f}, {r['changed']:.1%} of the games "
                      f"changed (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})", flush=True)
            report[player]["load_average"] = list(load)
    print(json.dumps({"preset": args.preset, "games": args.games, "seed": args.seed, "players": report}))


if __name__ == "__main__":
    main()
