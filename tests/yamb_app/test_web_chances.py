"""Every player's chance to win through the web API: the chances endpoint, the coach's word in the log,
the review's chances and curve, a player alone's target, and the seat lists' ``optimal-win``."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from expected_scores.distributions import cached_tables
from robo_players.coach import spread as spread_module
from yamb.layout import layout
from yamb.rules import rules
from yamb_app.seats import bot_names
from yamb_app.web import Settings, create_app


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setattr(spread_module, "FIT_GAMES", 300)  # where the tables are not built: a quick estimate
    with TestClient(create_app(Settings(db=tmp_path / "games.sqlite3", max_open_games=50))) as c:
        yield c


def _exact() -> bool:
    return cached_tables("yatzy") is not None


def test_a_two_player_game_shows_each_player_s_chance_and_the_coach_s_word(client):
    state = client.post("/api/games", json={"preset": "yatzy", "seed": 4, "seats": [
        {"name": "Ana"}, {"name": "bot", "bot": "greedy"}]}).json()
    chances = client.get(f"/api/games/{state['id']}/chances").json()
    assert chances["exact"] == _exact() and chances["method"].startswith("exact" if _exact() else "estimated")
    assert chances["target"] is None and [p["name"] for p in chances["players"]] == ["Ana", "bot"]
    assert sum(p["chance"] for p in chances["players"]) == pytest.approx(1.0, abs=1e-9)
    rng = np.random.default_rng(1)
    for _ in range(12):  # the person's moves, the bot's between them
        if state["seats"][state["to_move"]]["bot"]:
            state = client.post(f"/api/games/{state['id']}/bot", json={"moves": state["moves"]}).json()
            continue
        if state["can_roll"]:
            body = {"moves": state["moves"], "kind": "roll", "keep": [d for d in state["dice"] if rng.random() < 0.5][:4]}
        else:
            cell = state["fillable"][0]
            body = {"moves": state["moves"], "kind": "fill", "column": cell["column"], "row": cell["row"]}
        answer = client.post(f"/api/games/{state['id']}/moves", json=body)
        assert answer.status_code == 200, answer.text
        state = answer.json()
        note = state["log"][-1]["coach"]
        assert 0 <= note["win_after"] <= 1 and 0 <= note["win_before"] <= 1 and note["win_loss"] >= 0
        assert note["win_exact"] == _exact() and isinstance(note["win_best"], str)
    review = client.get(f"/api/games/{state['id']}/review").json()
    assert review["win"] and review["win_exact"] == _exact() and review["target"] is None
    ours = [d for d in review["decisions"] if d["player"] == 0]
    log = [s for s in client.get(f"/api/games/{state['id']}/log").json() if s["player"] == 0]
    assert [d["win_after"][0] for d in ours] == pytest.approx([s["coach"]["win_after"] for s in log], abs=1e-4)
    for d in review["decisions"]:
        assert sum(d["win_before"]) == pytest.approx(1.0, abs=1e-9)
    assert [t for t, _ in review["players"][0]["win_curve"]] == [t for t, _ in review["players"][0]["curve"]]


def test_a_player_alone_sees_the_chance_of_a_target(client):
    state = client.post("/api/games", json={"preset": "yatzy", "seed": 4, "seats": [{"name": "Ana"}]}).json()
    url = f"/api/games/{state['id']}/chances"
    alone = client.get(url)
    assert alone.status_code == 400 and "target" in alone.json()["detail"]
    assert client.get(url, params={"target": 0}).json()["players"][0]["chance"] == pytest.approx(1.0)
    assert client.get(url, params={"target": 1000}).json()["players"][0]["chance"] == pytest.approx(0.0, abs=1e-9)
    middle = client.get(url, params={"target": 250}).json()
    assert 0.2 < middle["players"][0]["chance"] < 0.8 and middle["target"] == 250
    assert client.get(url, params={"target": -1}).status_code == 422
    review = client.get(f"/api/games/{state['id']}/review", params={"target": 250}).json()
    assert review["target"] == 250 and review["win"]
    plain = client.get(f"/api/games/{state['id']}/review").json()
    assert plain["win"] is None and plain["players"][0]["win_curve"] == []


def test_a_target_is_for_a_player_alone(client):
    state = client.post("/api/games", json={"preset": "yatzy", "seats": [
        {"name": "Ana"}, {"name": "bot", "bot": "greedy"}]}).json()
    for path in ("chances", "review"):
        answer = client.get(f"/api/games/{state['id']}/{path}", params={"target": 200})
        assert answer.status_code == 400 and "player alone" in answer.json()["detail"]
    assert client.get("/api/games/nosuchgame0000000/chances").status_code == 404


def test_optimal_win_is_offered_where_its_tables_are_built(client):
    two = client.get("/api/bots", params={"preset": "yatzy", "players": 2}).json()["bots"]
    one = client.get("/api/bots", params={"preset": "yatzy", "players": 1}).json()["bots"]
    assert ("optimal-win" in two) == _exact() and "optimal-win" not in one
    assert two == bot_names(layout(rules("yatzy"), None, 2))


def test_the_chances_are_in_the_openapi_description(client):
    spec = client.get("/openapi.json").json()
    assert "/api/games/{game_id}/chances" in spec["paths"]
    assert {"ChancesOut", "PlayerChance"} <= set(spec["components"]["schemas"])
