"""The LED stone counter in the game: the session drives it and takes its buttons.

:class:`CounterLink` watches a session (:mod:`fudaba.session`) and keeps the device
(:class:`firmware_bridge.client.StoneCounterClient`, which owns the serial port, retries and
reconnects) showing the game: after every change it sends the whole display state
(:func:`display_state`), and it turns the device's buttons, delivered once each by the client in
the order they came, into the session's own changes, written with source ``button``:

* the undo button (0), short press: undo the last event;
* a seat button (1-8), short press: confirm — the camera's open ``confirm`` question is answered
  "yes" (its first candidate), otherwise a ``confirm`` line for the last event;
* a seat button, long press: that seat passes — the first of its legal events that matches the
  game's :attr:`~scorer.games.GameDescription.passes` (Poka: ``pass``, else ``no-claim`` for its
  claims; Hachi-hachi: ``declare`` with ``play: false``, retire; Bagaji: none); refused when none
  is legal now;
* the undo button, long press: nothing (a long press on undo is easy to make by mistake).

A press the rules refuse changes nothing; the link's view (``last_press`` in the session's
snapshot, ``counter``) says what was refused and why.

Reads (issue 49): the display is only ever made from the session's snapshots — its subscription's
first one, then those its queue gets, never one older than the last shown (a lower ``rev``) — so
the device never shows a match newer or older than the lines it goes with. A long press reads the
legal events and submits the pass in one hold of the session's lock, so nothing can change the game
between the two; a short press reads the camera's question from one snapshot and answers it outside
the lock (the camera's follower refuses an answer to a question that changed meanwhile).

Display (PROTOCOL.md, ``SET``): ``turn`` is the seat the game expects to act (0: none); ``pool``
is Poka's pool of stones (0 for the other games); each seat's value is its running total mapped
to −``leds_per_seat`` … +``leds_per_seat`` LEDs: Poka one LED per stone; Hachi-hachi one LED per
30 points above or below zero; Bagaji (lowest total wins) one LED per 10 points below (green) or
above (red) the table's mean: each game's :attr:`scorer.games.GameDescription.counter`. Totals beyond
the strip are shown as a full row. While the camera is out of sync the brightness is halved (the
strip dims until a player puts the table right).
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from firmware_bridge.protocol import MAX_SEATS, DisplayState
from fudaba.session import Session, SessionError
from scorer.games import game as game_spec

log = logging.getLogger(__name__)

DIM = 0.5
"""Brightness while the camera is out of sync."""


def _clamp(v: float, limit: int) -> int:
    return max(-limit, min(limit, int(round(v))))


def display_state(snapshot: dict[str, Any], leds_per_seat: int = 10, pool_leds: int = 10) -> DisplayState:
    """The device's display for a session snapshot (module docstring)."""
    scale = game_spec(snapshot["session"]["game"]).description.counter
    totals = list(snapshot["status"]["totals"])[:MAX_SEATS]
    values = [_clamp(v, leds_per_seat) for v in scale.leds(totals)]
    pool = snapshot.get("pool") or 0
    seat = snapshot["status"]["expects"]["seat"] or 0
    live = snapshot.get("live") or {}
    brightness = int(255 * DIM) if live.get("state") == "out-of-sync" else 255
    return DisplayState(tuple(values), pool=max(0, min(pool_leds, int(pool))), turn=int(seat) if seat <= MAX_SEATS else 0,
                        brightness=brightness)


class CounterLink:
    """Keeps a stone counter showing a session and turns its buttons into the session's changes."""

    def __init__(self, session: Session, client: Any, leds: Any = None) -> None:
        self.session = session
        self.client = client
        self.leds = leds
        """For an emulated counter: a callable giving its LEDs' colours (shown on the page)."""
        self.last_press: dict[str, Any] | None = None
        self._last_view: dict[str, Any] | None = None
        self._shown_rev = -1
        """The ``rev`` of the last snapshot sent to the device (−1: none yet)."""
        self._sub = session.subscribe()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        session.attach_counter(self)

    def start(self) -> None:
        """Start the client, show the game now, and follow it."""
        self.client.start()
        self._show(self._sub.first)
        for target, name in ((self._follow, "display"), (self._buttons, "buttons")):
            t = threading.Thread(target=target, name=f"fudaba-counter-{name}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self, close_client: bool = True) -> None:
        """Stop following (and close the device unless ``close_client`` is False: another session
        is to use it)."""
        self._stop.set()
        self.session.unsubscribe(self._sub)
        for t in self._threads:
            t.join(5)
        if close_client:
            self.client.stop()

    def _show(self, snapshot: dict[str, Any]) -> None:
        """Send ``snapshot``'s display to the device, unless a later snapshot was already sent."""
        if snapshot["rev"] < self._shown_rev:
            return
        self._shown_rev = snapshot["rev"]
        layout = getattr(self.client.status(), "layout", None)
        per_seat = getattr(layout, "leds_per_seat", 10) or 10
        pool_leds = getattr(layout, "pool_leds", 10) or 10
        self.client.set_state(display_state(snapshot, per_seat, pool_leds))

    def _follow(self) -> None:
        try:
            while not self._stop.is_set():
                snap = self._sub.get(0.5)
                if self._sub.dropped:  # fell behind: show the game as it is now
                    self.session.unsubscribe(self._sub)
                    self._sub = self.session.subscribe()
                    snap = self._sub.first
                if snap is not None:
                    self._show(snap)
                view = self.view()
                if view != self._last_view:  # the link came or went, the device lit what it was sent
                    self._last_view = view
                    self.session.refresh()
        finally:
            self.session.unsubscribe(self._sub)

    def _buttons(self) -> None:
        while not self._stop.is_set():
            try:
                press = self.client.buttons.get(timeout=0.5)
            except queue.Empty:
                continue
            self.press(press.button, press.kind)

    def press(self, button: int, kind: str) -> None:
        """Do what a button press means (module docstring); a refusal is kept in the view."""
        what = "nothing"
        try:
            if button == 0 and kind == "P":
                what = "undo"
                self.session.undo(source="button")
            elif button == 0:
                what = "nothing (long press on undo)"
            elif kind == "P":
                what = f"confirm (seat {button})"
                self._confirm()
            else:
                what = f"seat {button} passes"
                self._pass(button)
            self.last_press = {"button": button, "kind": kind, "did": what, "refused": None}
        except SessionError as exc:
            self.last_press = {"button": button, "kind": kind, "did": what, "refused": str(exc)}
            log.info("stone counter press %s%s refused: %s", button, kind, exc)
        self.session.refresh()

    def _confirm(self) -> None:
        """Answer the camera's open ``confirm`` question "yes", else confirm the last event. The
        question is read from one snapshot and answered without holding the session's lock: the
        camera's follower handles an answer on its own thread, which takes the lock to commit it,
        and refuses it (SessionError 409) when that question was settled or changed meanwhile."""
        live = self.session.snapshot().get("live") or {}
        question = live.get("question")
        if question is not None and question.get("kind") == "confirm":
            self.session.answer(0)
        else:
            self.session.submit({"type": "confirm"}, source="button")

    def _pass(self, seat: int) -> None:
        """Submit ``seat``'s pass (module docstring) from the legal events of the game as it is, read
        and submitted in one hold of the session's lock; SessionError 409 when it has none."""
        with self.session.lock:
            legal = self.session.snapshot()["manual"]["legal"]
            mine = [item["event"] for item in legal if item.get("seat") == seat]
            for wanted in game_spec(self.session.match.GAME).description.passes:
                for ev in mine:
                    if all(ev.get(k) == v for k, v in wanted.items()):
                        self.session.submit(ev, source="button")
                        return
            raise SessionError(f"seat {seat} cannot pass now ({self.session.match.expecting()})", 409)

    def view(self) -> dict[str, Any]:
        """The link as plain JSON: connected, port, the device's firmware, the last problem, the last press."""
        st = self.client.status()
        out = {"connected": bool(st.connected), "port": st.port, "firmware": st.fw_version,
               "error": st.last_error, "shown": bool(st.state_acked), "last_press": self.last_press,
               "emulated": self.leds is not None}
        if self.leds is not None:
            out["leds"] = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in self.leds()]
        return out


class CounterHub:
    """A server's one stone counter: it shows one session at a time, the last one attached (a new
    game, or one a player puts on it from its page)."""

    def __init__(self, client: Any, leds: Any = None, emulator: Any = None) -> None:
        self.client = client
        self.leds = leds
        self.emulator = emulator
        self.link: CounterLink | None = None
        self._lock = threading.Lock()

    def attach(self, session: Session) -> None:
        """Show ``session`` on the counter from now on (its buttons act on it)."""
        with self._lock:
            if self.link is not None and self.link.session is session:
                return
            old, self.link = self.link, None
            if old is not None:
                old.stop(close_client=False)
                old.session.attach_counter(None)
                old.session.refresh()
            self.link = CounterLink(session, self.client, self.leds)
            self.link.start()
            session.refresh()

    def close(self) -> None:
        """Stop showing, close the device (and stop an emulated one)."""
        with self._lock:
            if self.link is not None:
                self.link.stop()
                self.link = None
            else:
                self.client.stop()
            if self.emulator is not None:
                self.emulator.stop()


def open_hub(port: str | None, emulated: bool = False) -> CounterHub:
    """A stone counter at ``port`` (None: found by USB id, asking each candidate HELLO), or an
    emulated one whose LEDs the page draws."""
    from firmware_bridge.client import StoneCounterClient

    if emulated:
        from firmware_bridge.emulator import Emulator

        emulator = Emulator().start()
        return CounterHub(StoneCounterClient(emulator.port), leds=emulator.framebuffer, emulator=emulator)
    return CounterHub(StoneCounterClient(port))


class CounterControl:
    """The server's choice of stone counter: given at start (``--counter``) or from a page (a
    serial port, ``auto``, or ``emulated``); new games and games put on it are shown on it."""

    def __init__(self, hub: CounterHub | None = None) -> None:
        self.hub = hub
        self._lock = threading.Lock()

    def ports(self) -> list[dict[str, Any]]:
        """The serial ports, stone counters (by USB id) first."""
        from firmware_bridge.ports import list_ports

        return [{"device": p.device, "usb_id": p.usb_id, "description": p.description, "counter": bool(p.matches)}
                for p in list_ports()]

    def connect(self, port: str, session: Session | None = None) -> None:
        """Use the stone counter at ``port`` (``auto``: found by USB id; ``emulated``: an emulated
        one) from now on, showing ``session`` when given; the one used before is closed."""
        if not isinstance(port, str) or not port.strip():
            raise SessionError("say which port: a serial port, auto or emulated", 400)
        port = port.strip()
        with self._lock:
            old, self.hub = self.hub, None
            if old is not None:
                link = old.link
                old.close()
                if link is not None:
                    link.session.attach_counter(None)
                    link.session.refresh()
            self.hub = open_hub(None if port == "auto" else port, emulated=port == "emulated")
        if session is not None:
            self.hub.attach(session)

    def attach(self, session: Session) -> None:
        """Show ``session`` on the stone counter (SessionError 409 when none is connected)."""
        hub = self.hub
        if hub is None:
            raise SessionError("no stone counter is connected: choose its port first", 409)
        hub.attach(session)

    def new_game(self, session: Session) -> None:
        """A new game goes on the stone counter, when there is one."""
        hub = self.hub  # read once: a counter chosen meanwhile replaces it
        if hub is not None:
            hub.attach(session)

    def status(self) -> dict[str, Any]:
        """Whether a counter is in use, its port and the game it shows."""
        hub = self.hub
        if hub is None:
            return {"connected": False, "port": None, "session": None}
        st = hub.client.status()
        link = hub.link  # read once: a game put on the counter meanwhile replaces it
        return {"connected": bool(st.connected), "port": st.port, "error": st.last_error,
                "session": link.session.id if link is not None else None, "emulated": hub.emulator is not None}

    def close(self) -> None:
        """Close the counter in use."""
        with self._lock:
            if self.hub is not None:
                self.hub.close()
                self.hub = None
