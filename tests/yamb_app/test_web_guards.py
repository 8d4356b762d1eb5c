"""The web server against one client taking more than its share: a Host that is not a host, a page of
another site posting through a visitor's browser, one client opening every game allowed, a table's first
solve holding up the other games, a request sent half and then stalled.

FastAPI's test client for the answers; a real ``yamb serve`` (127.0.0.1, stopped by its pid) for the
connections it holds.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest
from fastapi.testclient import TestClient

import yamb_app.seats
from scripts.web_helpers import serving
from yamb_app.web import Settings, create_app
from yamb_app.web.guards import client_key

HANG_SECONDS = 600  # a deadline against a hang, never a measure
GAME = {"preset": "yatzy", "seats": [{"name": "a"}, {"name": "g", "bot": "greedy"}]}


# ---------------------------------------------------------------------------------------- the Host header
@pytest.mark.parametrize("host", ["127.0.0.1:8000:evil", "localhost:8000:8000", "127.0.0.1:8000:", "a b:8000",
                                  "127.0.0.1:80x", "[::1]:8000:evil", "127.0.0.1/x:8000"])
def test_a_host_that_is_not_a_host_and_port_is_a_400(tmp_path, host):
    names = frozenset({"localhost:8000", "127.0.0.1:8000", "[::1]:8000"})
    with TestClient(create_app(Settings(db=tmp_path / "h.sqlite3", hosts=names, port=8000))) as client:
        response = client.get("/api/options", headers={"host": host})
        assert response.status_code in (400, 421), host
        assert response.status_code == 400 and "not a host name or address" in response.json()["detail"], host
        assert client.get("/api/options", headers={"host": "127.0.0.1:8000"}).status_code == 200


# ---------------------------------------------------------------------------------------- another site's page
@pytest.mark.parametrize("header,value", [("origin", "http://evil.example"), ("origin", "null"),
                                          ("origin", "http://127.0.0.1:8001"), ("origin", "http://127.0.0.1:8000.evil"),
                                          ("referer", "http://evil.example/page.html"),
                                          ("origin", "ftp://127.0.0.1:8000")])
def test_a_post_from_another_site_is_a_403_and_plays_nothing(tmp_path, header, value):
    """A cross-site form or fetch (no body needed for a bot's step) is refused with the reason; the
    server's own page, and a client naming no origin (a script), play."""
    host = {"host": "127.0.0.1:8000"}
    with TestClient(create_app(Settings(db=tmp_path / "o.sqlite3")), base_url="http://127.0.0.1:8000") as client:
        state = client.post("/api/games", json={**GAME, "seats": [{"name": "g", "bot": "greedy"}]}).json()
        gid = state["id"]
        stepped = client.post(f"/api/games/{gid}/bot", headers={**host, header: value})
        assert stepped.status_code == 403, stepped.text
        detail = stepped.json()["detail"]
        assert "another site" in detail and header.title() in detail and value[:20] in detail
        made = client.post("/api/games", json=GAME, headers={**host, header: value})
        assert made.status_code == 403
        assert client.get(f"/api/games/{gid}").json()["moves"] == 0
        assert client.app.state.games.store.count_open() == 1
        for own in ({"origin": "http://127.0.0.1:8000"}, {"referer": "http://127.0.0.1:8000/"}, {}):
            assert client.post(f"/api/games/{gid}/bot", headers={**host, **own}).status_code == 200, own
        assert client.get(f"/api/games/{gid}", headers={**host, header: value}).status_code == 200  # reading


# ---------------------------------------------------------------------------------------- one client's share
def test_one_client_cannot_take_every_game(tmp_path):
    """A client holds at most its share of the open games; the others still make theirs; its games
    without a move are dropped after ``unplayed_seconds``, freeing its share."""
    settings = Settings(db=tmp_path / "c.sqlite3", max_open_games=10, max_open_per_client=3)
    app = create_app(settings)
    with TestClient(app, client=("192.0.2.7", 5000)) as greedy, TestClient(app, client=("192.0.2.8", 5000)) as other:
        made = [greedy.post("/api/games", json=GAME) for _ in range(5)]
        assert [r.status_code for r in made] == [201] * 3 + [429] * 2
        assert "limit of one client" in made[-1].json()["detail"] and "60 minutes" in made[-1].json()["detail"]
        assert other.post("/api/games", json=GAME).status_code == 201
        store = app.state.games.store
        assert store.count_open() == 4 and store.count_open("192.0.2.7") == 3
        # one of its games played (a move), the others left unplayed for over an hour
        played = made[0].json()
        assert greedy.post(f"/api/games/{played['id']}/moves", json={"moves": 0, "kind": "roll", "keep": []}
                           ).status_code == 200
        store._db.execute("UPDATE games SET updated = updated - 3700")
        assert greedy.post("/api/games", json=GAME).status_code == 201
        assert store.count_open("192.0.2.7") == 2  # the played game and the new one
        assert greedy.get(f"/api/games/{played['id']}").status_code == 200
        assert greedy.get(f"/api/games/{made[1].json()['id']}").status_code == 404


@pytest.mark.parametrize("address,key", [("192.0.2.7", "192.0.2.7"), ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
                                         ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"), ("::ffff:192.0.2.7", "192.0.2.7"),
                                         ("testclient", "testclient")])
def test_a_client_is_its_ipv4_address_or_ipv6_network(address, key):
    assert client_key(address) == key


# ---------------------------------------------------------------------------------------- a slow first build
def test_a_table_s_first_build_does_not_hold_up_other_games(tmp_path, monkeypatch):
    """While a new game's bot is being built (the exact solve of a table takes up to a minute the first
    time), the other games' requests are answered."""
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()
    load_bot = yamb_app.seats.load_bot

    def slow_load_bot(spec, layout):
        if spec == "expectimax":
            entered.set()
            release.wait(HANG_SECONDS)
            finished.set()
        return load_bot(spec, layout)

    monkeypatch.setattr(yamb_app.seats, "load_bot", slow_load_bot)
    with TestClient(create_app(Settings(db=tmp_path / "b.sqlite3"))) as client:
        state = client.post("/api/games", json=GAME).json()
        answers = []
        slow = threading.Thread(target=lambda: answers.append(client.post(
            "/api/games", json={"preset": "yatzy", "seats": [{"name": "e", "bot": "expectimax"}]})))
        slow.start()
        try:
            assert entered.wait(HANG_SECONDS)
            assert client.get("/api/options").status_code == 200
            assert client.post(f"/api/games/{state['id']}/moves",
                               json={"moves": 0, "kind": "roll", "keep": []}).status_code == 200
            assert not finished.is_set()  # answered while the build was still waiting
        finally:
            release.set()
            slow.join(HANG_SECONDS)
        assert answers[0].status_code == 201


# ---------------------------------------------------------------------------------------- stalled requests
def test_a_stalled_request_is_cut_off_while_others_are_answered(tmp_path):
    """Connections that send nothing, half a request's headers or half its body are closed by the server
    (after --read-timeout 1 s; the bound here is generous), and a whole request is answered meanwhile."""
    with serving(tmp_path / "s.sqlite3", args=("--read-timeout", "1")) as server:
        port = int(server.url.rsplit(":", 1)[1])
        host = f"127.0.0.1:{port}"
        stalled = {
            "nothing": b"",
            "half the headers": f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Ty".encode(),
            "half the body": (f"POST /api/games HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                              "Content-Length: 200\r\n\r\n{\"preset\": ").encode(),
        }
        sockets = {}
        for name, sent in stalled.items():
            sockets[name] = socket.create_connection(("127.0.0.1", port), timeout=HANG_SECONDS)
            sockets[name].sendall(sent)
        try:
            assert server.get("/api/options")["presets"]
            started = time.monotonic()
            for name, sock in sockets.items():
                try:
                    answer = sock.recv(4096)
                except TimeoutError:
                    pytest.fail(f"a connection that sent {name} was held {HANG_SECONDS} s")
                except ConnectionResetError:
                    answer = b""
                assert b"201" not in answer.split(b"\r\n")[0], name
                assert sock.recv(4096) == b"" if answer else True, name
            assert time.monotonic() - started < HANG_SECONDS
        finally:
            for sock in sockets.values():
                sock.close()
        with socket.create_connection(("127.0.0.1", port), timeout=HANG_SECONDS) as whole:
            whole.sendall(f"GET /api/options HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
            assert whole.recv(64).startswith(b"HTTP/1.1 200")
