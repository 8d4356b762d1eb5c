"""The web API through FastAPI's test client: whole games, illegal moves, bad ids and bodies, limits, runs.

Every game played here is mirrored move by move on a local ``yamb.Game`` with
the same seed: the server's dice must be the engine's, and at the end its
sheets and totals must be the engine's and the rule book's (the reference
column totals of ``tests/reference_game.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from scripts.web_helpers import make_run
from tests.reference_game import reference_column_total
from yamb.game import Game
from yamb.rules import rules
from yamb_app.web import Settings, create_app


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(db=tmp_path / "games.sqlite3", runs=tmp_path / "runs",
                                        max_open_games=50))) as c:
        yield c


def new_game(client, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def person_move(state: dict, rng: np.random.Generator) -> dict:
    """A random legal move read from the state the server gives a person (meant for that state)."""
    moves = state["moves"]
    if state["announceable"] and (state["must_announce"] or rng.random() < 0.15):
        cell = state["announceable"][rng.integers(len(state["announceable"]))]
        return {"moves": moves, "kind": "announce", "column": cell["column"], "row": cell["row"]}
    if state["can_roll"] and (rng.random() < 0.5 or not state["fillable"]):
        dice = state["dice"]
        keep = [d for d in dice if rng.random() < 0.5][: len(dice) - 1]
        return {"moves": moves, "kind": "roll", "keep": keep}
    cell = state["fillable"][rng.integers(len(state["fillable"]))]
    return {"moves": moves, "kind": "fill", "column": cell["column"], "row": cell["row"]}


def mirror(game: Game, step: dict) -> None:
    """Play a logged step on the local game."""
    if step["kind"] == "roll":
        game.roll(keep=step["kept"])
    elif step["kind"] == "fill":
        assert game.fill(step["column"], step["row"]) == step["score"]
    else:
        game.announce(step["column"], step["row"])


def play_to_end(client, state: dict, local: Game, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    while not state["over"]:
        assert state["dice"] == list(local.dice)
        seat = state["seats"][state["to_move"]]
        before = state["moves"]
        if seat["bot"] is None:
            response = client.post(f"/api/games/{state['id']}/moves", json=person_move(state, rng))
        else:
            response = client.post(f"/api/games/{state['id']}/bot", json={"moves": before})
        assert response.status_code == 200, response.text
        state = response.json()
        assert state["moves"] == before + 1
        step = state["log"][-1]
        assert step["n"] == state["moves"]
        mirror(local, step)
    return state


GAMES = [
    ("yamb", None, None, None, ["You", "greedy"]),
    ("yamb", None, None, None, ["best-values", "You"]),  # the after-state bot moves first
    ("jamb6", 6, None, None, ["You", "smart"]),
    ("yatzy", None, None, None, ["You", "best"]),
    ("yahtzee", None, "free", None, ["You", "expectimax"]),
    ("yahtzee", None, "forced", None, ["You"]),
    ("yamb", 5, None, ["hand", "late_announce", "counter_announce", "middle", "updown"], ["You", "Friend"]),
]


@pytest.mark.parametrize("preset,dice,joker,columns,seats", GAMES)
def test_whole_game_scores_are_the_engines(client, preset, dice, joker, columns, seats):
    body = {"preset": preset, "seed": 11, "seats": [
        {"name": name, "bot": None if name in ("You", "Friend") else name} for name in seats]}
    body.update({k: v for k, v in (("dice", dice), ("joker", joker), ("columns", columns)) if v is not None})
    state = new_game(client, **body)
    the_rules = rules(preset, dice=dice, joker=joker)
    local = Game(the_rules, columns, len(seats), seed=11)
    state = play_to_end(client, state, local, seed=len(seats))
    assert local.is_over()
    assert [s["score"] for s in state["seats"]] == local.scores()
    for p, seat in enumerate(state["seats"]):
        assert seat["table"] == local.table(p)
        by_column = [{row: score for row, score in column.items() if row in the_rules.rows}
                     for column in seat["table"].values()]
        assert all(None not in column.values() for column in by_column)
        reference = sum(reference_column_total(preset, column) for column in by_column)
        assert seat["score"] == reference + seat["yahtzee_bonus"]
    summary = state["summary"]
    assert [s["score"] for s in summary["standings"]] == sorted(local.scores(), reverse=True)
    assert state["to_move"] is None and state["fillable"] == []
    # the game is stored: read back as it ended, every move in its log
    assert client.get(f"/api/games/{state['id']}").json() == state
    log = client.get(f"/api/games/{state['id']}/log").json()
    assert [step["n"] for step in log] == list(range(1, state["moves"] + 1)) and log[-len(state["log"]):] == state["log"]


def test_illegal_moves_get_the_engines_message_and_leave_the_game(client):
    state = new_game(client, preset="yamb", seed=3, seats=[{"name": "You"}, {"name": "bot", "bot": "greedy"}])
    gid = state["id"]
    local = Game("yamb", players=2, seed=3)
    cases = [
        ({"kind": "fill", "column": "down", "row": "yamb"}, lambda: local.fill("down", "yamb")),
        ({"kind": "fill", "column": "sideways", "row": "ones"}, lambda: local.fill("sideways", "ones")),
        ({"kind": "fill", "column": "free", "row": "sevens"}, lambda: local.fill("free", "sevens")),
        ({"kind": "announce", "column": "free", "row": "ones"}, lambda: local.announce("free", "ones")),
        ({"kind": "roll", "keep": [7]}, lambda: local.roll(keep=[7])),
        ({"kind": "roll", "keep": list(local.dice)}, lambda: local.roll(keep=list(local.dice))),
        ({"kind": "roll", "keep": [d for d in range(1, 7) if d not in local.dice][:1] * 2},
         lambda: local.roll(keep=[d for d in range(1, 7) if d not in local.dice][:1] * 2)),
    ]
    for body, engine_move in cases:
        with pytest.raises(Exception) as engine_error:
            engine_move()
        response = client.post(f"/api/games/{gid}/moves", json={"moves": 0, **body})
        assert response.status_code == 400, (body, response.text)
        assert response.json() == {"detail": str(engine_error.value)}
        assert client.get(f"/api/games/{gid}").json() == state
    # a fill without a cell, a move of an unknown kind: 4xx, unchanged
    for body in ({"kind": "fill"}, {"kind": "jump"}, {"kind": "roll", "keep": "66"}, {"kind": "roll", "extra": 1},
                 {"kind": "roll", "keep": []}):  # the last without the state it is meant for
        response = client.post(f"/api/games/{gid}/moves", json={"moves": 0, **body} if "keep" not in body or
                               body["keep"] else body)
        assert 400 <= response.status_code < 500 and "detail" in response.json()
        assert client.get(f"/api/games/{gid}").json() == state
    # the bot's move is not the person's, and the person's not the bot's
    assert client.post(f"/api/games/{gid}/bot").status_code == 409
    moved = client.post(f"/api/games/{gid}/moves",
                        json={"moves": 0, "kind": "fill", "column": "free", "row": "ones"}).json()
    assert moved["to_move"] == 1
    response = client.post(f"/api/games/{gid}/moves", json={"moves": 1, "kind": "fill", "column": "free", "row": "twos"})
    assert response.status_code == 409 and "bot" in response.json()["detail"]


def test_a_finished_game_takes_no_more_moves(client):
    state = new_game(client, preset="yatzy", seed=5, seats=[{"name": "a", "bot": "greedy"}])
    while not state["over"]:
        state = client.post(f"/api/games/{state['id']}/bot").json()
    for path, body in (("bot", None), ("moves", {"moves": state["moves"], "kind": "roll", "keep": []})):
        response = client.post(f"/api/games/{state['id']}/{path}", json=body)
        assert response.status_code == 409 and response.json() == {"detail": "the game is over"}
    assert client.get(f"/api/games/{state['id']}/hint").status_code == 409


@pytest.mark.parametrize("game_id", ["nope", "A" * 22, "../../etc/passwd", "x" * 500, "%00"])
def test_bad_ids_are_404(client, game_id):
    new_game(client, seats=[{"name": "You"}])
    for method, path in (("GET", ""), ("POST", "/bot"), ("GET", "/hint"), ("GET", "/log")):
        response = client.request(method, f"/api/games/{game_id}{path}")
        assert response.status_code == 404, (game_id, path, response.text)
    response = client.post(f"/api/games/{game_id}/moves", json={"moves": 0, "kind": "roll", "keep": []})
    assert response.status_code == 404


def test_ids_are_unguessable(client):
    ids = {new_game(client, seats=[{"name": "You"}])["id"] for _ in range(20)}
    assert len(ids) == 20 and all(len(i) >= 22 for i in ids)


def test_oversized_bodies_are_refused_before_reading(client):
    state = new_game(client, seats=[{"name": "You"}])
    big = b'{"kind": "roll", "keep": [], "pad": "' + b"x" * 20000 + b'"}'
    response = client.post(f"/api/games/{state['id']}/moves", content=big,
                           headers={"content-type": "application/json"})
    assert response.status_code == 413 and "16384 bytes" in response.json()["detail"]

    def chunks():  # no content-length: the limit counts what arrives
        for _ in range(40):
            yield b" " * 1000

    response = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert client.get(f"/api/games/{state['id']}").json() == state


def test_new_game_input_is_checked(client):
    cases = [
        ({"preset": "poker", "seats": [{"name": "a"}]}, 400, "poker"),
        ({"preset": "yatzy", "dice": 6, "seats": [{"name": "a"}]}, 400, "dice"),
        ({"columns": ["down", "sideways"], "seats": [{"name": "a"}]}, 400, "sideways"),
        ({"seats": [{"name": "a", "bot": "grandmaster"}]}, 400, "grandmaster"),
        ({"seats": [{"name": "a", "bot": "robo_players/bots/yatzy-5d-free.safetensors"}]}, 400, "unknown bot"),
        ({"seats": [{"name": "a", "bot": "/etc/passwd.pt"}]}, 400, "unknown bot"),
        ({"seats": [{"name": "a", "bot": "run:../../robo_players"}]}, 400, "no finished run"),
        ({"seats": []}, 422, None),
        ({"seats": [{"name": "a"}] * 7}, 422, None),
        ({"seats": [{"name": "a"}], "color": "red"}, 422, None),
        ({"seats": [{"name": "a"}], "seed": -1}, 422, None),
    ]
    for body, status, word in cases:
        response = client.post("/api/games", json=body)
        assert response.status_code == status, (body, response.text)
        if word is not None:
            assert word in response.json()["detail"]


def test_a_table_is_offered_the_bots_it_takes(client):
    def bots(default: str = "best", **params) -> list[str]:
        answer = client.get("/api/bots", params=params).json()
        assert answer["bots"][0] == answer["default_bot"] == default
        return answer["bots"]

    yamb = bots("best+lookahead")
    assert {"best-direct", "best-values"} <= set(yamb) and "optimal" not in yamb
    yatzy = bots("best-values", preset="yatzy", columns="free", players=2)
    assert {"optimal", "best-values"} <= set(yatzy) and "best-direct" not in yatzy
    assert "optimal" in bots(preset="yahtzee", joker="forced") and "best-values" not in bots(preset="yahtzee", joker="forced")
    assert "best-direct" not in bots(dice=6)
    assert "optimal" not in bots(preset="yatzy", columns="free,free")
    for params, status, word in [({"preset": "poker"}, 400, "poker"), ({"preset": "yatzy", "dice": 6}, 400, "dice"),
                                 ({"columns": "down,sideways"}, 400, "sideways"), ({"columns": ""}, 400, "column"),
                                 ({"joker": "free"}, 400, "joker"), ({"players": 7}, 422, None)]:
        response = client.get("/api/bots", params=params)
        assert response.status_code == status, (params, response.text)
        if word is not None:
            assert word in response.json()["detail"]
    # a bot the table does not take is still refused when the game is made, with the reason
    for columns, bot, word in [(["free", "free"], "optimal", "exact solver"), (["free"], "best-direct", "no shipped")]:
        response = client.post("/api/games", json={"preset": "yatzy", "columns": columns,
                                                   "seats": [{"name": "b", "bot": bot}]})
        assert response.status_code == 400 and word in response.json()["detail"]
    response = client.post("/api/games", json={"seats": [{"name": "b", "bot": "grandmaster"}]})
    assert "best-direct" in response.json()["detail"] and "optimal" not in response.json()["detail"]


def test_open_games_are_bounded(tmp_path):
    with TestClient(create_app(Settings(db=tmp_path / "g.sqlite3", max_open_games=2))) as client:
        body = {"preset": "yatzy", "seats": [{"name": "b", "bot": "greedy"}]}
        first = new_game(client, **body)
        new_game(client, **body)
        response = client.post("/api/games", json=body)
        assert response.status_code == 429 and "2 games are open" in response.json()["detail"]
        while not first["over"]:
            first = client.post(f"/api/games/{first['id']}/bot").json()
        new_game(client, **body)  # a finished game frees its place


def test_hint_values_every_open_cell_of_the_mover(client):
    state = new_game(client, preset="yamb", seed=8, seats=[{"name": "You"}, {"name": "x", "bot": "expectimax"}])
    hint = client.get(f"/api/games/{state['id']}/hint").json()
    assert hint["bot"] == "expectimax" and hint["text"].startswith("expectimax would ")
    open_cells = {(c, r) for c, rows in state["seats"][0]["table"].items() for r, v in rows.items()
                  if r in state["rows"] and v is None}
    assert {(v["column"], v["row"]) for v in hint["values"]} == open_cells
    local = Game("yamb", players=2, seed=8)
    if hint["kind"] == "roll":  # the hint is the bot's move: playing it is legal
        local.roll(keep=hint["keep"])
    elif hint["kind"] == "fill":
        local.fill(hint["column"], hint["row"])
    else:
        local.announce(hint["column"], hint["row"])
    greedy = new_game(client, preset="yatzy", seats=[{"name": "You"}, {"name": "g", "bot": "greedy"}])
    assert client.get(f"/api/games/{greedy['id']}/hint").json()["values"] is None


def test_runs_are_listed_and_played_by_name(client, tmp_path):
    assert client.get("/api/runs").json() == []
    run = make_run(tmp_path / "runs", generations=12)
    (tmp_path / "runs" / "not-a-run").mkdir()
    runs = client.get("/api/runs").json()
    assert [r["name"] for r in runs] == ["yatzy-demo"] and runs[0]["has_best"] and runs[0]["generations"] == 12
    detail = client.get("/api/runs/yatzy-demo").json()
    lines = (run / "logbook.csv").read_text().splitlines()[1:]
    assert [p["gen"] for p in detail["curve"]] == [float(line.split(",")[0]) for line in lines]
    assert [p["avg"] for p in detail["curve"]] == [float(line.split(",")[2]) for line in lines]
    assert detail["table"] == {"preset": "yatzy", "dice": 5, "joker": None, "columns": ["free"]}
    for name in ("nope", "..", "not-a-run"):
        assert client.get(f"/api/runs/{name}").status_code == 404
    assert client.get("/api/options").json()["runs"][0]["bot"] == "run:yatzy-demo"
    # the run's best player at its table; refused at another table
    state = new_game(client, preset="yatzy", seed=2, seats=[{"name": "run", "bot": "run:yatzy-demo"}])
    state = client.post(f"/api/games/{state['id']}/bot").json()
    assert state["moves"] == 1
    response = client.post("/api/games", json={"preset": "yamb", "seats": [{"name": "r", "bot": "run:yatzy-demo"}]})
    assert response.status_code == 400 and "was evolved for yatzy" in response.json()["detail"]
    # a bot that cannot play the table is refused when the game is made
    response = client.post("/api/games", json={"preset": "yamb", "seats": [{"name": "You"},
                                                                           {"name": "o", "bot": "optimal"}]})
    assert response.status_code == 400 and "exact solver handles" in response.json()["detail"]


def test_games_survive_a_new_app_on_the_same_database(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(Settings(db=db))) as client:
        state = new_game(client, preset="yatzy", seed=4, seats=[{"name": "You"}, {"name": "g", "bot": "greedy"}])
        state = client.post(f"/api/games/{state['id']}/moves",
                            json={"moves": 0, "kind": "roll", "keep": state["dice"][:2]}).json()
    with TestClient(create_app(Settings(db=db))) as client:
        assert client.get(f"/api/games/{state['id']}").json() == state


def test_openapi_describes_the_api(client):
    spec = client.get("/openapi.json").json()
    assert {"/api/games", "/api/games/{game_id}", "/api/games/{game_id}/moves", "/api/games/{game_id}/bot",
            "/api/games/{game_id}/hint", "/api/games/{game_id}/log", "/api/runs", "/api/options", "/api/bots"} <= set(spec["paths"])
    assert "NewGame" in spec["components"]["schemas"]


@pytest.mark.parametrize("args,word", [(["--runs", "no-such-dir"], "--runs"), (["--port", "70000"], "--port"),
                                       (["--db", "."], "--db"), (["--max-open-games", "0"], "--max-open-games")])
def test_serve_refuses_bad_options_in_one_line(tmp_path, args, word):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "yamb", "serve", *args], capture_output=True, text=True,
                            cwd=tmp_path, timeout=900)
    assert result.returncode == 2
    assert result.stderr.startswith("yamb serve: error:") and word in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
