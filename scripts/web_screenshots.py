"""The screenshots of the docs (docs/assets/web/), taken in headless Chromium from a real ``yamb serve``.

A yamb game against the shipped bot is played to its ninth turn through the
API (the person following the bot's hints), then shown in the page at the
person's first roll with a hint asked for, also as a laptop (1280x800) and a
phone (390x844) show it; a game played to its end shows the summary; the runs
page shows the runs under ``--runs`` (default: a made-up demo run,
``scripts/web_helpers.make_run``). A Yatzy game whose person blunders on the
first turn (writes the first roll in ``yatzy``) and then follows the hints is
reviewed at 1280x800, 1920x1080 and a 390 px phone.

    python -m scripts.web_screenshots --runs runs --out docs/assets/web
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from scripts.web_helpers import VIEWPORT, chromium, make_run, start_server

SCREENS = {"laptop": (1280, 800), "phone": (390, 844)}  # game-laptop.png and game-phone.png: what fits without scrolling


def follow_hints(server, state: dict, turns: int | None) -> dict:
    """Play the game's person by the bot's hints (the bots by their steps) for ``turns`` of the person's
    turns, or to the end."""
    gid = state["id"]
    while not state["over"] and (turns is None or state["turn"] <= turns or state["to_move"] != 0):
        if state["seats"][state["to_move"]]["bot"]:
            state = server.post(f"/api/games/{gid}/bot")
            continue
        hint = server.get(f"/api/games/{gid}/hint")
        move = {"moves": state["moves"], "kind": hint["kind"]}
        move.update({"keep": hint["keep"]} if hint["kind"] == "roll" else {"column": hint["column"], "row": hint["row"]})
        state = server.post(f"/api/games/{gid}/moves", move)
    return state


REVIEW_VIEWPORTS = {"review-1280.png": (1280, 800), "review-1920.png": (1920, 1080), "review-390.png": (390, 844)}


def blunder_then_hints(server, seed: int) -> dict:
    """A Yatzy game against the shipped bot: the person writes the first roll in ``yatzy`` (a blunder
    unless it is five alike), then follows the hints to the end."""
    state = server.post("/api/games", {"preset": "yatzy", "seed": seed,
                                       "seats": [{"name": "You"}, {"name": "best", "bot": "best"}]})
    state = server.post(f"/api/games/{state['id']}/moves",
                        {"moves": state["moves"], "kind": "fill", "column": "free", "row": "yatzy"})
    return follow_hints(server, state, turns=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=None, help="runs directory to show (default: a demo run)")
    parser.add_argument("--out", type=Path, default=Path("docs/assets/web"), help="where the PNG files go")
    parser.add_argument("--seed", type=int, default=2026, help="dice seed of the games shown")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        runs = args.runs
        if runs is None:
            runs = tmp / "runs"
            make_run(runs)
        server = start_server(tmp / "games.sqlite3", runs)
        try:
            seats = [{"name": "You"}, {"name": "best", "bot": "best"}]
            state = server.post("/api/games", {"preset": "yamb", "seed": args.seed, "seats": seats})
            state = follow_hints(server, state, turns=8)
            over = follow_hints(server, server.post("/api/games", {"preset": "yatzy", "seed": args.seed,
                                                                   "seats": seats}), turns=None)
            with chromium(tmp / "profile") as page:
                page.goto(f"{server.url}/#g={state['id']}")
                page.get_by_test_id("hint").click()
                page.wait_for_selector("[data-testid=hint-box]:not([hidden])")
                for die in page.locator(".die.suggest").all():
                    die.click()
                time.sleep(0.3)
                page.screenshot(path=args.out / "game.png", full_page=True)
                for name, (width, height) in SCREENS.items():
                    page.set_viewport_size({"width": width, "height": height})
                    time.sleep(0.3)
                    page.screenshot(path=args.out / f"game-{name}.png")
                page.set_viewport_size(VIEWPORT)
                page.goto(f"{server.url}/#g={over['id']}")
                page.wait_for_selector("[data-testid=summary]:not([hidden])")
                page.screenshot(path=args.out / "game-over.png", full_page=True)
                page.goto(f"{server.url}/runs")
                page.wait_for_selector("[data-testid=runs] .card, [data-testid=runs] .empty")
                time.sleep(0.5)
                page.screenshot(path=args.out / "runs.png", full_page=True)
                reviewed = blunder_then_hints(server, args.seed)
                for name, (width, height) in REVIEW_VIEWPORTS.items():
                    page.set_viewport_size({"width": width, "height": height})
                    page.goto(f"{server.url}/#g={reviewed['id']}")
                    page.reload()  # a new page: the review of the size before closed
                    page.wait_for_selector("[data-testid=summary]:not([hidden])")
                    page.get_by_test_id("review-summary").click()
                    page.wait_for_selector("[data-testid=review-curve]")
                    time.sleep(0.3)
                    page.screenshot(path=args.out / name)
        finally:
            server.stop()
    print(f"wrote {args.out}/game.png, {', '.join(f'game-{name}.png' for name in SCREENS)}, game-over.png, "
          f"runs.png, {', '.join(REVIEW_VIEWPORTS)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
