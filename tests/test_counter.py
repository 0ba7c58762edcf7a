"""The stone counter in the game: the session's display on the device (the emulator on a pty, the
real serial path) and its buttons as the session's undo, confirm and pass."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.client import StoneCounterClient
from firmware_bridge.emulator import Emulator
from firmware_bridge.protocol import DisplayState
from fudaba.counter import CounterLink, display_state
from fudaba.session import Session, Sessions
from fudaba.store import Store
from scorer.games import game as game_spec
from tests.helpers import Browser, enter_deal
from tests.waiting import LONG
from tests.waiting import wait_until as wait

HACHI_POINTS_PER_LED = game_spec("hachi-hachi").description.counter.points_per_led
BAGAJI_POINTS_PER_LED = game_spec("bagaji").description.counter.points_per_led


def snap(game: str, totals: list[int], seat: int | None = None, pool: int | None = None,
         live: dict | None = None) -> dict:
    return {"session": {"game": game}, "status": {"totals": totals, "expects": {"seat": seat}}, "pool": pool,
            "results": [], "live": live}


def test_the_display_maps_each_game_s_totals_to_the_strip() -> None:
    assert display_state(snap("poka", [3, 1], seat=2, pool=6)) == DisplayState((3, 1), pool=6, turn=2)
    hh = display_state(snap("hachi-hachi", [2 * HACHI_POINTS_PER_LED, -HACHI_POINTS_PER_LED, 999], seat=1))
    assert hh.values == (2, -1, 10) and hh.turn == 1 and hh.pool == 0
    # Bagaji: lowest total wins; green below the table's mean, red above
    bj = display_state(snap("bagaji", [0, 3 * BAGAJI_POINTS_PER_LED, 6 * BAGAJI_POINTS_PER_LED]))
    assert bj.values == (3, 0, -3) and bj.turn == 0
    seven = display_state(snap("hachi-hachi", [0] * 7, seat=7))
    assert len(seven.values) == 7 and seven.turn == 7
    dim = display_state(snap("poka", [0, 0], live={"state": "out-of-sync"}))
    assert dim.brightness < 255


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[tuple[Session, CounterLink, Emulator]]:
    session = Sessions(Store(tmp_path / "h.sqlite3")).create("poka", ["Aki", "Ben"])
    emu = Emulator(seed=2).start()
    link = CounterLink(session, StoneCounterClient(emu.port), leds=emu.framebuffer)
    link.start()
    try:
        assert link.client.wait_connected(LONG)
        yield session, link, emu
    finally:
        link.stop()
        emu.stop()


def now(session: Session) -> tuple[int, list[dict]]:
    """The session's effective event count and its record lines, read together under its lock (the
    buttons change the game on the counter's own thread: read apart, the match could be a change
    ahead of the lines)."""
    with session.lock:
        return session.match.event_count, session.lines


def test_the_counter_shows_the_game_and_its_buttons_undo_confirm_and_pass(linked) -> None:
    session, link, emu = linked
    enter_deal(session, random.Random(1))
    with session.lock:
        seat = session.match.to_play()
    assert wait(lambda: emu.state.turn == seat and len(emu.state.values) == 2)
    assert wait(lambda: (session.snapshot()["counter"] or {}).get("connected"))
    assert len(session.snapshot()["counter"]["leds"]) == len(emu.framebuffer())
    # a seat's long press: that seat's pass (or no-claim) — here Poka's claims come first
    legal_before, _ = now(session)
    emu.press(seat, "L")
    assert wait(lambda: now(session)[0] == legal_before + 1)
    lines = now(session)[1]
    assert lines[-1]["source"] == "button" and lines[-1]["type"] in ("pass", "no-claim")
    # the undo button takes it back
    emu.press(0, "P")
    assert wait(lambda: now(session)[0] == legal_before)
    lines = now(session)[1]
    assert lines[-1] == {**lines[-1], "type": "undo", "source": "button"}
    # a seat's short press confirms the last event
    emu.press(1, "P")
    assert wait(lambda: now(session)[1][-1]["type"] == "confirm")
    assert now(session)[1][-1]["source"] == "button"
    # presses the rules refuse change nothing and say why (seat 5 of a two-player game)
    n = session.snapshot()["seq"]
    emu.press(5, "L")
    assert wait(lambda: (link.last_press or {}).get("button") == 5)
    assert "seat 5 cannot pass now" in link.last_press["refused"] and session.snapshot()["seq"] == n
    # each press did exactly one thing, in the order pressed
    sources = [line["type"] for line in now(session)[1] if line["source"] == "button"]
    assert sources[0] in ("pass", "no-claim") and sources[1:] == ["undo", "confirm"]



def test_undo_with_nothing_to_undo_is_refused_not_lost(linked) -> None:
    session, link, emu = linked
    emu.press(0, "P")
    assert wait(lambda: link.last_press is not None)
    assert "nothing to undo" in link.last_press["refused"] or "only 0 applied" in link.last_press["refused"]
    assert session.seq == 0


def test_the_counter_shows_the_newest_game_or_the_one_put_on_it(tmp_path: Path) -> None:
    from fudaba.counter import CounterControl, open_hub
    from web import WebConfig, create_app

    control = CounterControl(open_hub(None, emulated=True))
    hub = control.hub
    try:
        app = create_app(WebConfig(secret_key=b"k" * 32, counter=control), Sessions(Store(tmp_path / "h.sqlite3")))
        b = Browser(app.test_client())
        first = b.post("/api/sessions", {"game": "poka", "players": ["a", "b"]}).json["id"]
        assert hub.link is not None and hub.link.session.id == first
        second = b.post("/api/sessions", {"game": "hachi-hachi", "players": ["a", "b", "c"]}).json["id"]
        assert hub.link.session.id == second
        assert b.get(f"/api/sessions/{first}/state").json["counter"] is None
        assert wait(lambda: hub.emulator.state.values == (0, 0, 0))  # the three seats of the newest game
        assert b.post(f"/api/sessions/{first}/counter").status_code == 200
        assert hub.link.session.id == first and b.get(f"/api/sessions/{second}/state").json["counter"] is None
        assert wait(lambda: len(hub.emulator.state.values) == 2)
        assert b.get(f"/api/sessions/{first}/state").json["counter"]["emulated"] is True
        assert "to-counter" in b.get(f"/session/{first}").get_data(as_text=True)
    finally:
        control.close()
    plain = Browser(create_app(WebConfig(secret_key=b"k" * 32), Sessions(Store(tmp_path / "p.sqlite3"))).test_client())
    sid = plain.post("/api/sessions", {"game": "poka", "players": ["a", "b"]}).json["id"]
    r = plain.post(f"/api/sessions/{sid}/counter")
    assert r.status_code == 409 and "no stone counter" in r.json["error"]
    assert "to-counter" not in plain.get(f"/session/{sid}").get_data(as_text=True)
    assert plain.get("/api/counter").status_code == 409


def test_a_counter_chosen_from_the_page(tmp_path: Path) -> None:
    from fudaba.counter import CounterControl
    from web import WebConfig, create_app

    control = CounterControl()
    try:
        app = create_app(WebConfig(secret_key=b"k" * 32, counter=control), Sessions(Store(tmp_path / "h.sqlite3")))
        b = Browser(app.test_client())
        sid = b.post("/api/sessions", {"game": "poka", "players": ["a", "b"]}).json["id"]
        listing = b.get("/api/counter").json
        assert listing["status"] == {"connected": False, "port": None, "session": None}
        assert isinstance(listing["ports"], list)
        r = b.post(f"/api/sessions/{sid}/counter")
        assert r.status_code == 409 and "choose its port" in r.json["error"]
        assert b.post("/api/counter", {"port": ""}).status_code == 400
        assert b.post("/api/counter", {"port": "emulated", "session": "one"}).status_code == 400
        r = b.post("/api/counter", {"port": "emulated", "session": sid})
        assert r.status_code == 200 and r.json["status"]["session"] == sid
        assert wait(lambda: b.get("/api/counter").json["status"]["connected"])
        assert wait(lambda: (b.get(f"/api/sessions/{sid}/state").json["counter"] or {}).get("connected"))
        first = control.hub
        # another counter replaces it: the first is closed, the game goes on the new one
        assert b.post("/api/counter", {"port": "emulated", "session": sid}).status_code == 200
        assert control.hub is not first and not first.emulator.plugged
        assert wait(lambda: control.status()["connected"])
    finally:
        control.close()
