"""The live streams under load (issue 51): the server ``fudaba run`` starts
(:func:`fudaba.serve.http_server`) holds :data:`web.api.MAX_STREAMS` open streams and still answers
the state, pages and taps; one stream more gets 503 with ``Retry-After`` at once; a stream whose
client went away frees what it held (its subscription, its count, its worker thread) within a
second or two; the PIN still guards the stream."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from fudaba.counter import CounterControl
from fudaba.serve import THREADS, build, http_server
from fudaba.session import Session
from web.api import MAX_STREAMS, streams_open

WAIT_S = 10.0
"""How long a condition may take before the test fails (never a timing assertion: a bound on a hang)."""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, int, Any]]:
    """The app, the port and the waitress server, started as ``fudaba run`` starts it."""
    app = build(tmp_path_factory.mktemp("history") / "h.sqlite3", None, (), CounterControl())
    srv = http_server(app, "127.0.0.1", 0)
    threading.Thread(target=srv.run, daemon=True).start()
    yield app, srv.effective_port, srv
    app.extensions["fudaba"]["config"].setup.close()
    app.extensions["fudaba"]["config"].counter.close()
    srv.task_dispatcher.shutdown(timeout=2)


def wait_for(condition: Callable[[], bool]) -> bool:
    """True once ``condition()`` holds, False after :data:`WAIT_S` without it."""
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class Stream:
    """One ``EventSource``-like client of a session's stream on a plain socket (many in one thread)."""

    def __init__(self, port: int, sid: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
        self.sock.sendall(f"GET /api/sessions/{sid}/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.data = b""

    def until(self, marker: bytes) -> bytes:
        """What arrived up to ``marker`` (waiting for it; a timeout fails the test)."""
        while marker not in self.data:
            chunk = self.sock.recv(65536)
            assert chunk, f"the stream ended before {marker!r}: {self.data[:300]!r}"
            self.data += chunk
        return self.data

    def status(self) -> int:
        return int(self.until(b"\r\n").split(b" ", 2)[1])

    def close(self) -> None:
        self.sock.close()


def client(port: int) -> tuple[http.client.HTTPConnection, dict[str, str]]:
    """A connection that loaded the home page: its cookie and CSRF token for POSTs."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
    conn.request("GET", "/")
    resp = conn.getresponse()
    page = resp.read().decode()
    assert resp.status == 200
    cookie = (resp.getheader("Set-Cookie") or "").split(";")[0]
    token = page.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
    return conn, {"X-CSRF-Token": token, "Cookie": cookie, "Content-Type": "application/json"}


def get(conn: http.client.HTTPConnection, path: str) -> tuple[int, bytes]:
    conn.request("GET", path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def first_deal(session: Session) -> dict[str, Any]:
    """The first step of a simulated Hachi-hachi round as the deal endpoint takes it."""
    from scorer.simulate import entered_rounds

    steps, _results = entered_rounds("hachi-hachi", 3, 1, 1)
    step = steps[0]
    assert step.kind == "deal"
    return {"dealer": step.dealer, "face_up": {k: list(v) for k, v in step.face_up.items()}}


def test_the_server_keeps_threads_beyond_the_streams() -> None:
    assert THREADS - MAX_STREAMS >= 32


def test_a_full_house_of_streams_and_the_table_still_answers(table: tuple[Any, int, Any]) -> None:
    app, port, srv = table
    sessions = app.extensions["fudaba"]["sessions"]
    session = sessions.create("hachi-hachi", ["Aki", "Ben", "Chi"])
    other = sessions.create("poka", ["Aki", "Ben"])
    streams = [Stream(port, (session if k % 2 else other).id) for k in range(MAX_STREAMS)]
    try:
        for s in streams:
            assert s.status() == 200
            s.until(b"event: state")
        assert streams_open(app) == MAX_STREAMS
        assert session.watchers + other.watchers == MAX_STREAMS

        # one more: 503 at once, with when to come back
        more = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        more.request("GET", f"/api/sessions/{session.id}/stream")
        resp = more.getresponse()
        assert resp.status == 503 and int(resp.getheader("Retry-After")) > 0
        assert "too many live streams" in json.loads(resp.read())["error"]
        more.close()

        # the state, a page and a tap meanwhile
        conn, headers = client(port)
        status, body = get(conn, f"/api/sessions/{session.id}/state")
        assert status == 200 and json.loads(body)["seq"] == session.seq
        status, body = get(conn, f"/session/{session.id}")
        assert status == 200 and b"<html" in body.lower()
        conn.request("POST", f"/api/sessions/{session.id}/deal", json.dumps(first_deal(session)), headers)
        resp = conn.getresponse()
        seq = json.loads(resp.read())["seq"]
        assert resp.status == 200 and seq == session.seq
        conn.close()
        for s in streams[1::2]:  # the session's own streams
            s.until(f"id: {seq}\n".encode())
    finally:
        for s in streams:
            s.close()
    assert wait_for(lambda: streams_open(app) == 0), streams_open(app)
    assert session.watchers == 0 and other.watchers == 0
    again = Stream(port, session.id)
    assert again.status() == 200
    again.close()


def test_a_stream_closed_frees_its_thread_and_subscription(table: tuple[Any, int, Any]) -> None:
    app, port, srv = table
    session = app.extensions["fudaba"]["sessions"].create("poka", ["Aki", "Ben"])
    streams = [Stream(port, session.id) for _ in range(5)]
    for s in streams:
        s.until(b"event: state")
    assert session.watchers == 5
    streams[0].close()
    assert wait_for(lambda: session.watchers == 4)
    for s in streams[1:]:
        s.close()
    assert wait_for(lambda: session.watchers == 0 and streams_open(app) == 0)
    assert wait_for(lambda: srv.task_dispatcher.active_count == 0)  # every worker thread free again


def test_a_stream_closed_before_it_started_is_not_counted(table: tuple[Any, int, Any]) -> None:
    app, port, srv = table
    session = app.extensions["fudaba"]["sessions"].create("poka", ["Aki", "Ben"])
    for _ in range(20):  # the request sent, the socket gone at once
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
        sock.sendall(f"GET /api/sessions/{session.id}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        sock.close()
    assert wait_for(lambda: session.watchers == 0 and streams_open(app) == 0)


def test_the_stream_still_needs_the_pin(tmp_path: Path) -> None:
    app = build(tmp_path / "h.sqlite3", "123456", (), CounterControl())
    session = app.extensions["fudaba"]["sessions"].create("poka", ["Aki", "Ben"])
    r = app.test_client().get(f"/api/sessions/{session.id}/stream")
    assert r.status_code == 401
    assert session.watchers == 0 and streams_open(app) == 0


def test_a_camera_picture_stream_counts_as_a_stream_and_is_freed_when_its_client_goes(
        table: tuple[Any, int, Any], tmp_path: Path) -> None:
    """The MJPEG streams (the setup's live preview, a followed game's table) hold a worker thread like
    the game's stream: they count against the cap and end once their client has gone."""
    import json

    from tests.conftest import write_plain_table

    app, port, srv = table
    folder = write_plain_table(tmp_path / "plain", 300)
    conn, headers = client(port)
    conn.request("POST", "/api/camera/preview", json.dumps({"source": str(folder), "game": "poka", "players": 2}),
                 headers)
    resp = conn.getresponse()
    assert resp.status == 201, resp.read()
    resp.read()
    cookie = headers["Cookie"]

    def picture_stream() -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT_S)
        sock.sendall(f"GET /api/camera/preview.mjpeg HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n"
                     .encode())
        return sock

    sock = picture_stream()
    data = b""
    while b"Content-Type: image/jpeg" not in data:
        chunk = sock.recv(65536)
        assert chunk, data[:300]
        data += chunk
    assert data.startswith(b"HTTP/1.1 200") and streams_open(app) == 1
    sock.close()
    assert wait_for(lambda: streams_open(app) == 0)
    session = app.extensions["fudaba"]["sessions"].create("poka", ["Aki", "Ben"])
    app.config["MAX_STREAMS"] = 1
    try:
        game = Stream(port, session.id)
        game.until(b"event: state")
        full = picture_stream()
        reply = full.recv(65536)
        assert reply.startswith(b"HTTP/1.1 503") and b"Retry-After: 5" in reply, reply[:300]
        full.close()
        game.close()
    finally:
        app.config.pop("MAX_STREAMS")
        conn.request("POST", "/api/camera/preview/stop", "{}", headers)
        conn.getresponse().read()
    assert wait_for(lambda: streams_open(app) == 0 and srv.task_dispatcher.active_count == 0)
