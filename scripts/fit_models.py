"""Fit the models shipped in ``robo_players/bots/fitted/`` for the standard tables (``robo_players.fitted``).

    python -m scripts.fit_models

For each preset's standard table: the spread of final totals about its default
coach's estimate (the coach's estimated chances to win) and ``best``'s cell model
(``best-win``), and on yamb's ``best+lookahead``'s (``best-win+lookahead``), each fitted from its fixed number of games and seed, as a first
use would fit it (never read back from the cache), then copied into the
package. Minutes on two cores.
"""

from __future__ import annotations

import shutil
import sys

import yamb
from expected_scores.solve import cache_dir
from robo_players.best_win import best_win_player, cells_name
from robo_players.coach.spread import spread_for, spread_name
from robo_players.coach.values import make_coach
from robo_players.fitted import SHIPPED
from robo_players.search.lookahead import MARGIN
from yamb.layout import layout

PRESETS = ("yamb", "jamb6", "yatzy", "yahtzee")
LOOKING_AHEAD = ("yamb", "jamb6")  # best-win+lookahead offered there (yamb_app.seats.STRONGEST_TO_WIN); elsewhere fitted at first use


def main() -> None:
    SHIPPED.mkdir(parents=True, exist_ok=True)
    for preset in PRESETS:
        alone, two = layout(yamb.rules(preset)), layout(yamb.rules(preset), players=2)
        coach = make_coach(alone)
        players, names = [best_win_player(two)], [spread_name(coach, alone), cells_name(two)]
        if preset in LOOKING_AHEAD:
            players.append(players[0].looking_ahead(two, 2, MARGIN))
            names.append(cells_name(two, "best+lookahead"))
        for name in names:
            for folder in (SHIPPED, cache_dir()):  # fitted anew, not read back
                (folder / f"{name}.npz").unlink(missing_ok=True)
        spread_for(coach, alone)
        for player in players:
            player.model
        for name in names:
            shutil.copyfile(cache_dir() / f"{name}.npz", SHIPPED / f"{name}.npz")
            print(f"shipped {SHIPPED / name}.npz", file=sys.stderr)


if __name__ == "__main__":
    main()
