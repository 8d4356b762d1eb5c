"""The coach through the web API: each person's move valued in the log, the review, the hint's keep outcomes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from robo_players.coach.outcomes import keep_outcomes
from robo_players.coach.review import review_game
from yamb.game import Game
from yamb.rules import rules
from yamb_app.web import Settings, create_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(db=tmp_path / "games.sqlite3", max_open_games=50))) as c:
        yield c


def test_a_yatzy_game_against_a_bot_is_coached_and_reviewed(client):
    """A person who writes random moves; each of their log entries carries the exact coach's loss,
    the review's totals are the coach's own review of the same game, for both seats."""
    state = client.post("/api/games", json={"preset": "yatzy", "seed": 11, "seats": [
        {"name": "Ana"}, {"name": "bot", "bot": "greedy"}]}).json()
    rng = np.random.default_rng(3)
    while not state["over"]:
        if state["seats"][state["to_move"]]["bot"]:
            state = client.post(f"/api/games/{state['id']}/bot", json={"moves": state["moves"]}).json()
            continue
        if state["can_roll"] and rng.random() < 0.5:
            body = {"moves": state["moves"], "kind": "roll", "keep": [d for d in state["dice"] if rng.random() < 0.5][:4]}
        else:
            cell = state["fillable"][rng.integers(len(state["fillable"]))]
            body = {"moves": state["moves"], "kind": "fill", "column": cell["column"], "row": cell["row"]}
        response = client.post(f"/api/games/{state['id']}/moves", json=body)
        assert response.status_code == 200, response.text
        state = response.json()
        note = state["log"][-1]["coach"] if state["log"][-1]["player"] == 0 else None
        assert note is None or (note["exact"] and note["coach"] == "optimal" and note["loss"] >= 0)
    log = client.get(f"/api/games/{state['id']}/log").json()
    assert all((step["coach"] is not None) == (step["player"] == 0) for step in log)
    review = client.get(f"/api/games/{state['id']}/review").json()
    game = Game("yatzy", players=2, seed=11)
    for step in log:
        if step["kind"] == "roll":
            game.roll(keep=step["kept"])
        else:
            game.fill(step["column"], step["row"])
    mine = review_game(game)
    assert review["exact"] and review["values"] == "exact values" and review["over"]
    assert [p["name"] for p in review["players"]] == ["Ana", "bot"]
    assert [p["loss"] for p in review["players"]] == pytest.approx([p.loss for p in mine.players])
    ours = [d for d in review["decisions"] if d["player"] == 0]
    assert [d["loss"] for d in ours] == pytest.approx([s["coach"]["loss"] for s in log if s["player"] == 0], abs=1e-3)
    assert review["thresholds"] == {"good": 0.5, "inaccuracy": 2.0, "mistake": 5.0}
    assert client.get(f"/api/games/{state['id']}/review", params={"coach": "nobody"}).status_code == 400
    assert client.get("/api/games/nosuchgame0000000/review").status_code == 404


def test_the_hint_of_a_keep_gives_its_pattern_chances(client):
    for seed in range(20):  # the first game whose hint is a keep (most first rolls are kept from)
        state = client.post("/api/games", json={"preset": "yatzy", "seed": seed, "seats": [{"name": "Ana"}]}).json()
        hint = client.get(f"/api/games/{state['id']}/hint").json()
        if hint["kind"] == "roll":
            break
    assert hint["kind"] == "roll"
    expected = keep_outcomes(rules("yatzy"), hint["keep"], 2)
    possible = {row for row, p in expected.by_end.items() if p > 0}
    assert {o["row"]: o["next_roll"] for o in hint["outcomes"]} == pytest.approx(
        {row: p for row, p in expected.next_roll.items() if row in possible})
    assert {o["row"]: o["by_end"] for o in hint["outcomes"]} == pytest.approx(
        {row: p for row, p in expected.by_end.items() if row in possible})


def test_a_hint_leaves_out_the_patterns_a_keep_can_no_longer_make():
    """Four ones kept with one roll left: no straight can be made, a Yatzy can; tiny chances are no 0.0 %."""
    from yamb import Game
    from yamb_app.coach import chances_text, keep_chances

    game = Game("yatzy", seed=3)
    game.roll()  # the turn's second roll: one left
    assert game.rolls_left == 1
    chances = keep_chances(game, (1, 1, 1, 1))
    everything = keep_outcomes(rules("yatzy"), (1, 1, 1, 1), 1)
    assert everything.by_end["small_straight"] == 0 and everything.by_end["large_straight"] == 0
    assert "small_straight" not in chances.by_end and "large_straight" not in chances.next_roll
    assert chances.by_end["yatzy"] == pytest.approx(1 / 6)
    text = chances_text(chances)
    assert " 0.0%" not in text and "straight" not in text and "yatzy 16.7%" in text, text


def test_the_review_s_coach_is_a_registry_name_never_a_path_or_a_look_ahead(client, tmp_path):
    """As for a seat's bot (docs/web.md, no paths from the client): a weights file on the server's disk, or a
    look-ahead of many turns (tens of GB), is refused with 400 before anything is built."""
    from robo_players.neural.files import load_weights, save_weights

    bot = tmp_path / "bot.npz"
    save_weights(load_weights(ROOT / "robo_players" / "bots" / "yatzy-5d-free.safetensors"), bot, "npz")
    state = client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "Ana"}]}).json()
    for coach in (str(bot), "best+lookahead9", "expectimax+lookahead"):
        answer = client.get(f"/api/games/{state['id']}/review", params={"coach": coach})
        assert answer.status_code == 400 and f"unknown coach {coach!r}" in answer.json()["detail"], coach
    assert client.get(f"/api/games/{state['id']}/review", params={"coach": "expectimax"}).status_code == 200


def test_the_review_is_in_the_openapi_description(client):
    spec = client.get("/openapi.json").json()
    assert "/api/games/{game_id}/review" in spec["paths"]
    assert {"ReviewOut", "DecisionOut", "CoachNote", "PatternOut"} <= set(spec["components"]["schemas"])
