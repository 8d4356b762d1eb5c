"""The web server on a shared machine: secret dice, moves tied to the state they were meant for, strict
JSON, the Host a request names, damaged runs, a full or damaged game store, answer headers.

FastAPI's test client for the app's answers; real ``yamb serve`` processes (127.0.0.1, stopped by
their pid) where the server itself is the subject: the Host check, parallel moves.
"""

from __future__ import annotations

import http.client
import json
import os
import sqlite3
import threading

import pytest
from fastapi.testclient import TestClient

from scripts.web_helpers import make_run, serving
from yamb.game import Game
from yamb_app.web import Settings, create_app
from yamb_app.web.store import GameStore, NotAGamesDatabase

PERSON_AND_BOT = [{"name": "You"}, {"name": "g", "bot": "greedy"}]


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(Settings(db=tmp_path / "games.sqlite3", runs=tmp_path / "runs"))) as c:
        yield c


def created(client, **body) -> dict:
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def replay(log: list[dict], game: Game) -> None:
    for step in log:
        if step["kind"] == "roll":
            game.roll(keep=step["kept"])
            assert list(game.dice) == step["dice"]
        elif step["kind"] == "fill":
            assert game.fill(step["column"], step["row"]) == step["score"]
        else:
            game.announce(step["column"], step["row"])


# ---------------------------------------------------------------------------------------- the dice's seed
def test_the_seed_is_secret_until_the_game_is_over(client):
    texts = []
    state = created(client, preset="yatzy", seats=[{"name": "a", "bot": "greedy"}])
    texts.append(json.dumps(state))
    while not state["over"]:
        assert state["seed"] is None
        texts += [client.get(f"/api/games/{state['id']}").text, client.get(f"/api/games/{state['id']}/log").text,
                  client.get(f"/api/games/{state['id']}/hint").text]
        response = client.post(f"/api/games/{state['id']}/bot", json={"moves": state["moves"]})
        texts.append(response.text)
        state = response.json()
    seed = state["seed"]
    assert isinstance(seed, int)
    assert not any(str(seed) in text for text in texts[:-1])  # the last answer is the game over
    # the seed told at the end is the one the dice came from
    game = Game("yatzy", players=1, seed=seed)
    replay(client.get(f"/api/games/{state['id']}/log").json(), game)
    assert game.is_over() and game.scores() == [state["seats"][0]["score"]]


# ---------------------------------------------------------------------------------------- moves and states
def test_a_move_for_another_state_is_refused(client):
    state = created(client, preset="yatzy", seed=6, seats=PERSON_AND_BOT)
    gid = state["id"]
    roll = {"moves": 0, "kind": "roll", "keep": state["dice"][:2]}
    rolled = client.post(f"/api/games/{gid}/moves", json=roll)
    assert rolled.status_code == 200
    rolled = rolled.json()
    again = client.post(f"/api/games/{gid}/moves", json=roll)  # the same request repeated
    assert again.status_code == 409 and "after 0 moves" in again.json()["detail"]
    for stale in (0, 2, 100_000):
        cell = rolled["fillable"][0]
        response = client.post(f"/api/games/{gid}/moves",
                               json={"moves": stale, "kind": "fill", "column": cell["column"], "row": cell["row"]})
        assert response.status_code == 409
    for bad in ({"kind": "roll", "keep": []}, {"moves": -1, "kind": "roll", "keep": []},
                {"moves": "1", "kind": "roll", "keep": []}, {"moves": 1.5, "kind": "roll", "keep": []}):
        assert client.post(f"/api/games/{gid}/moves", json=bad).status_code == 422
    assert client.get(f"/api/games/{gid}").json() == rolled
    cell = rolled["fillable"][0]
    filled = client.post(f"/api/games/{gid}/moves",
                         json={"moves": 1, "kind": "fill", "column": cell["column"], "row": cell["row"]}).json()
    # the bot's step: refused for another state, played for its own (and without one, as before)
    assert client.post(f"/api/games/{gid}/bot", json={"moves": 1}).status_code == 409
    assert client.get(f"/api/games/{gid}").json() == filled
    stepped = client.post(f"/api/games/{gid}/bot", json={"moves": 2})
    assert stepped.status_code == 200 and stepped.json()["moves"] == 3
    assert client.post(f"/api/games/{gid}/bot").json()["moves"] == 4



def test_two_servers_on_one_database_serve_each_other_s_moves(tmp_path):
    """A game moved through one server is served moved by the other (which read it before), never
    answered 500 "damaged"; a move meant for the stale state is refused there (409), then played."""
    settings = Settings(db=tmp_path / "games.sqlite3", runs=tmp_path / "runs")
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        state = created(one, preset="yatzy", seed=6, seats=PERSON_AND_BOT)
        gid = state["id"]
        assert two.get(f"/api/games/{gid}").json() == state  # two keeps it now
        rolled = one.post(f"/api/games/{gid}/moves", json={"moves": 0, "kind": "roll", "keep": []})
        assert rolled.status_code == 200
        seen = two.get(f"/api/games/{gid}")
        assert seen.status_code == 200, seen.text
        assert seen.json() == rolled.json()
        cell = rolled.json()["fillable"][0]
        fill = {"kind": "fill", "column": cell["column"], "row": cell["row"]}
        assert two.post(f"/api/games/{gid}/moves", json={"moves": 0, **fill}).status_code == 409
        filled = two.post(f"/api/games/{gid}/moves", json={"moves": 1, **fill})
        assert filled.status_code == 200 and filled.json()["moves"] == 2
        assert one.get(f"/api/games/{gid}").json() == filled.json()
        assert one.post(f"/api/games/{gid}/bot", json={"moves": 2}).json()["moves"] == 3
        assert [step["n"] for step in two.get(f"/api/games/{gid}/log").json()] == [1, 2, 3]

def test_parallel_moves_on_a_real_server_play_once(tmp_path):
    """Fifteen fills of the same state sent at once: one is played, fourteen refused with 409."""
    with serving(tmp_path / "g.sqlite3") as server:
        state = server.post("/api/games", {"preset": "yatzy", "seed": 3, "seats": PERSON_AND_BOT})
        cells = state["fillable"]
        statuses = []

        def fill(cell: dict) -> None:
            statuses.append(post(port_of(server), f"/api/games/{state['id']}/moves",
                                 {"moves": 0, "kind": "fill", "column": cell["column"], "row": cell["row"]})[0])

        threads = [threading.Thread(target=fill, args=(cells[i % len(cells)],)) for i in range(15)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200] + [409] * 14
        after = server.get(f"/api/games/{state['id']}")
        assert after["moves"] == 1 and len(server.get(f"/api/games/{state['id']}/log")) == 1


def port_of(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def post(port: int, path: str, body: dict | None = None, host: str | None = None,
         method: str = "POST") -> tuple[int, dict]:
    """A request to 127.0.0.1:``port`` naming ``host`` in its Host header; (status, JSON answer)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    try:
        headers = {"content-type": "application/json", "host": host or f"127.0.0.1:{port}"}
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


# ---------------------------------------------------------------------------------------- strict JSON
BAD_BODIES = [
    (b'{"seats": [{"name": "a"}], "seed": NaN}', "NaN"),
    (b'{"seats": [{"name": "a"}], "seed": Infinity}', "Infinity"),
    (b'{"seats": [{"name": "a"}], "seed": -Infinity}', "Infinity"),
    (b'{"seats": [{"name": "a"}], "seed": 1e999}', "out of range"),
    (b'{"seats": [{"name": "a"}], "seed": -1e999}', "out of range"),
    (b'{"seats": [{"name": "a"}], "dice": NaN}', "NaN"),
    (b'{"seats": [{"name": "a"}], "seed": 1' + b"0" * 5000 + b"}", "digits"),
    (b'{"seats": [{"name": "\\ud800"}]}', "surrogate"),
    (b'{"seats": [{"name": "a", "bot": "\\udfff"}]}', "surrogate"),
    (b'{"seats": [{"name": "a"}], "\\udc00": 1}', "surrogate"),
    (b'{"seats": [{"name": "\xff\xfe"}]}', "UTF-8"),
    (b'{"seats": [{"name": "a"}], "x": ' + b"[" * 5000 + b"]" * 5000 + b"}", "nests"),
    (b'{"seats": [{"name": "a"}], "x": ' + b"[" * 40 + b"]" * 40 + b"}", "nests"),
    (b'{"seats": [{"name": "a"}', "not JSON"),
]


@pytest.mark.parametrize("body,word", BAD_BODIES)
def test_bad_json_is_a_400_with_the_reason(client, body, word):
    response = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert word in response.json()["detail"]



@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain; charset=utf-8",
                                          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
def test_a_body_not_sent_as_json_is_a_415_with_the_reason(client, content_type):
    """A form (a cross-site page can post ``text/plain`` without asking) or a body with no type is refused
    with the reason, not a raw 422 of the models; ``application/json`` (a charset or ``+json`` too) plays."""
    body = json.dumps({"preset": "yatzy", "seats": [{"name": "a"}]}).encode()
    headers = {} if content_type is None else {"content-type": content_type}
    response = client.post("/api/games", content=body, headers=headers)
    assert response.status_code == 415, response.text
    assert response.json()["detail"] == ("the body must be JSON sent as Content-Type: application/json, not "
                                         f"{(content_type or 'no Content-Type').split(';')[0]}")
    for declared in ("application/json", "application/json; charset=utf-8", "Application/JSON", "application/ld+json"):
        assert client.post("/api/games", content=body, headers={"content-type": declared}).status_code == 201

def test_bad_numbers_in_a_move_are_400_and_leave_the_game(client):
    state = created(client, preset="yatzy", seed=1, seats=PERSON_AND_BOT)
    for body in (b'{"moves": NaN, "kind": "roll", "keep": []}', b'{"moves": 0, "kind": "roll", "keep": [1e999]}',
                 b'{"moves": 0, "kind": "roll", "keep": [Infinity]}',
                 b'{"moves": 0, "kind": "fill", "column": "free", "row": "\\ud83d"}',
                 b'{"moves": 0, "kind": "roll", "keep": [6, -Infinity]}'):
        response = client.post(f"/api/games/{state['id']}/moves", content=body,
                               headers={"content-type": "application/json"})
        assert response.status_code == 400, (body, response.text)
        response = client.post(f"/api/games/{state['id']}/bot", content=body.replace(b'"kind"', b'"x"'),
                               headers={"content-type": "application/json"})
        assert response.status_code == 400, (body, response.text)
    assert client.get(f"/api/games/{state['id']}").json() == state
    # a name of characters beyond the basic plane (a pair of surrogates in JSON) is a name like any other
    game = client.post("/api/games", content=b'{"seats": [{"name": "\\ud83c\\udfb2 dice"}]}',
                       headers={"content-type": "application/json"})
    assert game.status_code == 201 and game.json()["seats"][0]["name"] == "\N{GAME DIE} dice"


# ---------------------------------------------------------------------------------------- the Host header
def host_client(tmp_path, **settings) -> TestClient:
    return TestClient(create_app(Settings(db=tmp_path / "h.sqlite3", **settings)), base_url="http://127.0.0.1:8000")


@pytest.mark.parametrize("host,loopback,everywhere,allowed", [
    ("127.0.0.1:8000", True, True, True), ("localhost:8000", True, True, True), ("[::1]:8000", True, True, True),
    ("LocalHost:8000", True, True, True),
    ("evil.example:8000", False, False, True), ("evil.example", False, False, True),
    ("127.0.0.1:8001", False, False, False), ("localhost", False, False, False),
    ("192.0.2.7:8000", False, True, False), ("[2001:db8::1]:8000", False, True, False),
    ("192.0.2.7:9", False, False, False), ("localhost.evil.example:8000", False, False, False),
    ("127.0.0.1:8000.", False, False, False), ("", False, False, False),
])
def test_the_host_header_names_this_server(tmp_path, host, loopback, everywhere, allowed):
    names = frozenset({"localhost:8000", "127.0.0.1:8000", "[::1]:8000"})
    for hosts, ip_literals, expected in ((names, False, loopback), (names, True, everywhere),
                                         (names | {"evil.example"}, False, loopback or allowed)):
        with host_client(tmp_path, hosts=hosts, port=8000, ip_literals=ip_literals) as client:
            response = client.get("/api/options", headers={"host": host})
            malformed = host in ("127.0.0.1:8000.", "")  # not a host and port: 400 (test_web_guards.py)
            assert response.status_code == (200 if expected else 400 if malformed else 421), (host, hosts, ip_literals)
            if not expected and not malformed:
                assert "--allow-host" in response.json()["detail"]


def test_a_rebound_name_is_refused_by_a_real_server(tmp_path):
    """``curl -H 'Host: evil.example:PORT' http://127.0.0.1:PORT/...``: 421, and no game is made."""
    with serving(tmp_path / "g.sqlite3") as server:
        port = port_of(server)
        body = {"preset": "yatzy", "seats": [{"name": "a"}]}
        for host in (f"evil.example:{port}", "evil.example", f"localhost:{port + 1}"):
            assert post(port, "/api/options", host=host, method="GET")[0] == 421
            status, answer = post(port, "/api/games", body, host=host)
            assert status == 421 and "id" not in answer
        assert post(port, "/api/options", host=f"localhost:{port}", method="GET")[0] == 200
        assert post(port, "/api/games", body, host=f"[::1]:{port}")[0] == 201
    with sqlite3.connect(tmp_path / "g.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1


# ---------------------------------------------------------------------------------------- answer headers
def test_every_answer_forbids_framing_sniffing_and_foreign_scripts(client):
    for path in ("/", "/runs", "/static/app.js", "/api/options", "/api/docs", "/api/docs/start.js", "/openapi.json",
                 "/api/games/nope", "/nowhere"):
        response = client.get(path)
        headers = response.headers
        policy = dict(part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";"))
        assert policy["frame-ancestors"] == "'none'" and policy["script-src"] == "'self'", path
        assert policy["default-src"] == "'self'" and "unsafe" not in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    # Swagger UI from this server: the page names no other host
    page = client.get("/api/docs").text
    assert "http" not in page and "<script>" not in page
    for asset in ("/api/docs/static/swagger-ui-bundle.js", "/api/docs/static/swagger-ui.css"):
        assert client.get(asset).status_code == 200


# ---------------------------------------------------------------------------------------- damaged runs
def test_damaged_runs_are_flagged_not_500(client, tmp_path):
    runs = tmp_path / "runs"
    make_run(runs, "good", generations=5)
    damage = {
        "bad-logbook": ("logbook.csv", b"gen,avg\n0,\xff\xfe1\n"),
        "bad-config": ("config.toml", b'game = "yatzy\xff"\n'),
        "huge-logbook": ("logbook.csv", b'gen,avg\n0,"' + b"9" * 200_000 + b'"\n'),
        "not-toml": ("config.toml", b"game = = 1\n"),
        "deep-config": ("config.toml", b"game = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"),
        "long-config": ("config.toml", b"generations = " + b"9" * 5000 + b"\n"),
        "nan-config": ("config.toml", b"game = \"yatzy\"\npopulation = nan\ngames = inf\n"),
        "bad-best": ("best.pt", b"not a torch file"),
    }
    for name, (file, content) in damage.items():
        (runs / name).mkdir()
        (runs / name / file).write_bytes(content)
    os.mkdir(os.fsencode(runs) + b"/\xff-run")
    (runs / os.fsdecode(b"\xff-run") / "config.toml").write_text('game = "yatzy"\n')
    listed = client.get("/api/runs")
    assert listed.status_code == 200
    by_name = {run["name"]: run for run in listed.json()}
    assert set(by_name) == {"good", *damage}  # the run whose name is not text is left out
    assert by_name["good"]["problem"] is None and by_name["good"]["generations"] == 5
    for name, word in (("bad-logbook", "logbook.csv is not UTF-8"), ("bad-config", "config.toml is not UTF-8"),
                       ("huge-logbook", "logbook.csv is not CSV"), ("not-toml", "config.toml is not TOML"),
                       ("deep-config", "config.toml is not readable: nested over 64 levels deep"),
                       ("long-config", "config.toml is not readable: an integer of over 4,300 digits")):
        assert word in by_name[name]["problem"], by_name[name]
        detail = client.get(f"/api/runs/{name}")
        assert detail.status_code == 200 and word in detail.json()["problem"]
    assert by_name["nan-config"]["settings"] == {"game": "yatzy"} and by_name["nan-config"]["problem"] is None
    best = client.get("/api/runs/bad-best").json()
    assert best["table"] is None and "best.pt" in best["problem"] and str(tmp_path) not in best["problem"]
    seated = client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "r", "bot": "run:bad-best"}]})
    assert seated.status_code == 400 and "best.pt" in seated.json()["detail"], seated.text
    assert str(tmp_path) not in seated.text  # the server's paths are not the client's business
    options = client.get("/api/options")
    assert options.status_code == 200 and {r["name"] for r in options.json()["runs"]} == set(by_name)
    # the good run's player still plays
    assert created(client, preset="yatzy", seats=[{"name": "r", "bot": "run:good"}])["moves"] == 0


# ---------------------------------------------------------------------------------------- the game store
def test_a_full_store_is_507_with_the_reason_and_loses_nothing(tmp_path, capfd):
    with TestClient(create_app(Settings(db=tmp_path / "g.sqlite3"))) as client:
        state = created(client, preset="yatzy", seed=2, seats=PERSON_AND_BOT)
        store = client.app.state.games.store
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's "database or disk is full", on demand
        answers = [client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "a"}]}) for _ in range(60)]
        full = [a for a in answers if a.status_code != 201]
        assert full and all(a.status_code == 507 and "full" in a.json()["detail"] for a in full)
        refused = 0
        for _ in range(30):  # each move played and kept, or 507 and the game as it was
            gid = state["id"]
            if state["to_move"] == 1:
                moved = client.post(f"/api/games/{gid}/bot", json={"moves": state["moves"]})
            else:
                cell = state["fillable"][0]
                moved = client.post(f"/api/games/{gid}/moves", json={"moves": state["moves"], "kind": "roll", "keep": []}
                                    if state["can_roll"] else {"moves": state["moves"], "kind": "fill",
                                                               "column": cell["column"], "row": cell["row"]})
            assert moved.status_code in (200, 507), moved.text
            if moved.status_code == 200:
                state = moved.json()
            refused += moved.status_code == 507
            assert client.get(f"/api/games/{gid}").json() == state
        assert refused
        store._db.execute("PRAGMA max_page_count = 1073741823")
        assert client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "a"}]}).status_code == 201
        store._db.execute("PRAGMA query_only = 1")  # a store that cannot be written for another reason: 503
        response = client.post("/api/games", json={"preset": "yatzy", "seats": [{"name": "a"}]})
        assert response.status_code == 503 and "cannot be used" in response.json()["detail"]
        store._db.execute("PRAGMA query_only = 0")
    err = capfd.readouterr().err
    assert "Traceback" not in err
    assert sum("is full" in line for line in err.splitlines()) == 1  # said once, not once per request


def play_a_while(client, seed: int) -> dict:
    state = created(client, preset="yatzy", seed=seed, seats=PERSON_AND_BOT)
    for _ in range(12):
        if state["to_move"] == 1:
            state = client.post(f"/api/games/{state['id']}/bot", json={"moves": state["moves"]}).json()
        elif state["can_roll"] and state["roll"] == 1:
            state = client.post(f"/api/games/{state['id']}/moves",
                                json={"moves": state["moves"], "kind": "roll", "keep": state["dice"][:2]}).json()
        else:
            cell = state["fillable"][-1]
            state = client.post(f"/api/games/{state['id']}/moves", json={
                "moves": state["moves"], "kind": "fill", "column": cell["column"], "row": cell["row"]}).json()
    return state


def answers(client, game_ids: list[str]) -> dict:
    """Every game's state and log: (status, JSON)."""
    found = {}
    for gid in game_ids:
        for path in (f"/api/games/{gid}", f"/api/games/{gid}/log"):
            response = client.get(path)
            found[path] = (response.status_code, response.json())
    return found


def test_a_changed_row_is_refused_never_served(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(Settings(db=db))) as client:
        games = [play_a_while(client, seed) for seed in (1, 2, 3)]
        before = answers(client, [g["id"] for g in games])
    with sqlite3.connect(db) as raw:  # one digit changed in a logged score, one in a game's snapshot
        raw.execute("UPDATE moves SET entry = replace(entry, '\"dice\": [', '\"dice\": [1') "
                    "WHERE game = ? AND n = 1", (games[0]["id"],))
        raw.execute("UPDATE games SET moves = moves - 1 WHERE id = ?", (games[1]["id"],))
    with TestClient(create_app(Settings(db=db))) as client:
        after = answers(client, [g["id"] for g in games])
    for gid in (games[0]["id"], games[1]["id"]):
        for path in (f"/api/games/{gid}", f"/api/games/{gid}/log"):
            status, answer = after[path]
            assert status == 500 and "damaged" in answer["detail"] and gid in answer["detail"]
    for path in (f"/api/games/{games[2]['id']}", f"/api/games/{games[2]['id']}/log"):
        assert after[path] == before[path]


def test_flipped_bytes_in_the_store_are_never_served(tmp_path):
    """Copies of a database with one byte flipped (in the rows' text, and anywhere): each game's answer is
    the same as before, or an error with its reason; the server never serves a changed game."""
    import numpy as np

    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(Settings(db=db))) as client:
        ids = [play_a_while(client, seed)["id"] for seed in (4, 5)]
        before = answers(client, ids)
    data = db.read_bytes()
    rng = np.random.default_rng(29)
    digits = [i for i in range(len(data)) if 48 <= data[i] <= 57]
    places = [*rng.choice(digits, 30, replace=False), *rng.integers(0, len(data), 30)]
    served = refused = 0
    for k, place in enumerate(places):
        damaged = bytearray(data)
        damaged[place] ^= 1 << int(rng.integers(0, 8))
        copy = tmp_path / f"copy{k}.sqlite3"
        copy.write_bytes(bytes(damaged))
        try:
            app = create_app(Settings(db=copy))
        except (NotAGamesDatabase, sqlite3.DatabaseError):
            refused += 1
            continue
        with TestClient(app) as client:
            for path, (status, answer) in answers(client, ids).items():
                if status == 200:
                    assert (status, answer) == before[path], (place, path)
                    served += 1
                else:
                    # 500 with the damage named; 404 when the flip hid the game's row from its index
                    assert status in (404, 500) and isinstance(answer.get("detail"), str), (place, path, answer)
    assert served > 0



def test_the_integrity_check_s_findings_are_one_line_each(tmp_path):
    """SQLite says a damaged page in two lines ("*** in database main ***", then the page): the server's
    warning quotes the first finding, so each is one line."""
    whole = tmp_path / "whole.sqlite3"
    with TestClient(create_app(Settings(db=whole))) as c:
        for _ in range(30):
            created(c, preset="yatzy", seats=[{"name": "a", "bot": "greedy"}])
    data, damaged, found = whole.read_bytes(), tmp_path / "damaged.sqlite3", []
    for at in range(4096, len(data), 4096):  # each page's freeblock and cell offsets
        for offset in (1, 8):
            flipped = bytearray(data)
            flipped[at + offset] ^= 0xFF
            damaged.write_bytes(bytes(flipped))
            try:
                store = GameStore(damaged)
            except (NotAGamesDatabase, sqlite3.DatabaseError):
                continue
            store.close()
            found += store.problems
    assert found, "no flipped byte that SQLite's integrity check finds"
    assert all("\n" not in problem and "***" not in problem and problem == problem.strip() for problem in found), found

def test_an_empty_or_foreign_database_is_refused(tmp_path):
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    with pytest.raises(NotAGamesDatabase, match="empty file"):
        GameStore(empty)
    assert empty.stat().st_size == 0  # left as it was
    foreign = tmp_path / "other.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(NotAGamesDatabase, match="not a yamb games database"):
        GameStore(foreign)
    with sqlite3.connect(foreign) as db:
        assert {n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} == {"users"}


def test_a_database_from_before_checksums_is_read_and_kept(tmp_path):
    db = tmp_path / "g.sqlite3"
    with TestClient(create_app(Settings(db=db))) as client:
        state = play_a_while(client, 7)
    with sqlite3.connect(db) as raw:  # as the store wrote it before rows carried checksums
        raw.execute("DROP INDEX games_open")
        raw.execute("ALTER TABLE games DROP COLUMN checksum")
        raw.execute("ALTER TABLE moves DROP COLUMN checksum")
        raw.execute("CREATE INDEX games_open ON games (over, updated)")
        raw.execute("PRAGMA user_version = 0")
        raw.execute("PRAGMA application_id = 0")
    with TestClient(create_app(Settings(db=db))) as client:
        assert client.get(f"/api/games/{state['id']}").json() == state
        assert client.get(f"/api/games/{state['id']}/log").status_code == 200
        assert play_a_while(client, 8)["moves"] == 12
