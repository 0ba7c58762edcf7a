"""Issue 49: one session changed and read from every side at once, and every read consistent.

At the same time, on their own threads:

* a **camera** follows its own fork of the match (as :class:`fudaba.live.LiveFeed`'s tracker does)
  and commits what it "sees" through :meth:`Session.apply_tracked` — one to three events drawn by
  :meth:`scorer.match.Match.random_event` on the fork, now and then a repair (an ``undo`` first);
  it is told of every other change (:meth:`Follower.changed`) and follows a fork of the session's
  match afresh then, or when a commit is refused;
* **taps** submit what players do on the dashboard (:meth:`Session.submit`,
  :meth:`Session.submit_many`, :meth:`Session.edit`): undos, confirms, events drawn on a fork
  (refused where the camera changed the game meanwhile), lines the rules refuse or that are
  malformed (refused, and under the lock it is checked that nothing changed), and the stone
  counter's buttons pressed on its emulator;
* **readers** watch the stream (:meth:`Session.subscribe`, one of them slow enough to be dropped
  and subscribe again) and read :meth:`Session.snapshot` directly;
* the **stone counter** (:class:`fudaba.counter.CounterLink` on the device emulator) shows every
  change and takes the buttons.

Checked all along: every snapshot is self-consistent (its ``seq`` is its log's last line's, its
events view ends at its status's event count), every snapshot of one ``seq`` says the same status,
no reader ever sees ``seq`` (or, on its stream, ``rev``) go back, a refused change changes nothing,
and the counter is never sent an older snapshot than it was. Checked at the end: replaying the
stored lines gives, at every ``seq`` a snapshot was seen at, that snapshot's status; the store,
``session.lines`` and ``session.match`` agree; every reader and the device end on the final game;
no thread raised. Threads interleave freely: every assertion holds for every interleaving (each
writer also does a minimum of its own work, so the refusals checked always happen).

Sizes: :data:`QUICK_LINES` record lines in the quick tier, :data:`FULL_LINES` in the ``slow`` one.
"""

from __future__ import annotations

import json
import random
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.client import StoneCounterClient
from firmware_bridge.emulator import Emulator
from fudaba.counter import CounterLink, display_state
from fudaba.session import Session, SessionError, Sessions
from fudaba.store import Store
from scorer import record as records
from scorer.match import Match
from tests.waiting import LONG
from tests.waiting import wait_until as wait

QUICK_LINES = 1_000
"""Record lines (events and corrections) committed in the quick tier."""
FULL_LINES = 10_000
"""Record lines committed in the slow tier."""
READERS = 3
"""Stream readers (the first of them slow: it sleeps :data:`SLOW_READER_S` per snapshot)."""
SLOW_READER_S = 0.002
"""Seconds the slow reader takes over each snapshot (to fall behind and be dropped now and then)."""
MIN_WORK = 20
"""Each writer's least number of rounds, however the threads interleave."""
PRESS_EVERY = 40
"""One tap in this many is a press of the stone counter's buttons."""


class Camera:
    """A follower standing in for the camera's feed: told of every change a player makes (under the
    session's lock), it follows a fork of the session's match as its tracker would."""

    def __init__(self) -> None:
        self.told: Match | None = None
        """The session's match as last told (None: nothing new since the camera looked)."""

    def changed(self, match: Match) -> None:
        self.told = match  # the session's match is never changed in place: a fork of it later is safe

    def answer(self, choice: int) -> None:
        raise ValueError("there is no open question")

    def table_is_right(self) -> None:
        raise ValueError("the stress test's camera sees no table")

    def view(self) -> dict[str, Any]:
        return {"state": "following", "question": None}

    def picture(self) -> bytes | None:
        return None

    def frame_picture(self) -> tuple[bytes, tuple[int, int]] | None:
        return None

    def set_corners(self, corners: list[list[float]]) -> None:
        raise ValueError("the stress test's camera takes no corners")


class WatchedLink(CounterLink):
    """The stone counter's link, noting the ``rev`` of every snapshot the device is sent and every
    button press it handled."""

    def __init__(self, session: Session, client: Any, leds: Any = None) -> None:
        super().__init__(session, client, leds)
        self.sent: list[int] = []
        """The ``rev`` of each snapshot sent to the device, in order."""
        self.handled = 0
        """Button presses handled (done or refused)."""
        self._offered = -1
        send = client.set_state

        def noted(state: Any) -> Any:
            self.sent.append(self._offered)
            return send(state)

        client.set_state = noted

    def _show(self, snapshot: dict[str, Any]) -> None:
        self._offered = snapshot["rev"]
        super()._show(snapshot)

    def press(self, button: int, kind: str) -> None:
        super().press(button, kind)
        self.handled += 1


def status_key(status: dict[str, Any]) -> str:
    """A snapshot's status as one comparable string."""
    return json.dumps(status, sort_keys=True)


def self_consistent(snap: dict[str, Any]) -> list[str]:
    """What is wrong inside one snapshot (empty: nothing)."""
    bad = []
    seq, log, events = snap["seq"], snap["log"], snap["events"]
    if (log[-1]["seq"] if log else 0) != seq:
        bad.append(f"seq {seq} but the log ends at {log[-1]['seq'] if log else None}")
    if [e["seq"] for e in log] != list(range(seq - len(log) + 1, seq + 1)):
        bad.append(f"seq {seq}: the log's lines are not the latest in order")
    count = snap["status"]["events"]
    if (events[-1]["i"] + 1 if events else 0) != count:
        bad.append(f"seq {seq}: the events view ends at {events[-1]['i'] if events else None}, "
                   f"the status has {count} events")
    if snap["status"]["over"] != snap["manual"]["over"]:
        bad.append(f"seq {seq}: status and manual play disagree whether the match is over")
    return bad


class Stress:
    """One run: the session, its threads, what they saw (module docstring)."""

    def __init__(self, store: Store, lines: int) -> None:
        self.session = Sessions(store).create("poka", ["Aki", "Ben"])
        self.target = lines
        self.camera = Camera()
        self.session.attach(self.camera)
        self.errors: list[str] = []
        self.status_at: dict[int, str] = {}
        """Seq → the status every snapshot of that seq showed."""
        self._seen_lock = threading.Lock()
        self.writing = threading.Event()
        self.reading = threading.Event()
        self.writing.set()
        self.reading.set()
        self.last_seq: dict[str, int] = {}
        """Reader → the last seq it saw."""
        self.counts = {"camera": 0, "camera refused": 0, "taps": 0, "taps refused": 0, "illegal refused": 0,
                       "malformed refused": 0, "presses": 0, "resubscribed": 0, "snapshots": 0}

    # ---------------------------------------------------------------- helpers
    def fail(self, what: str) -> None:
        self.errors.append(what)

    def guarded(self, name: str, target: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                target()
            except BaseException:  # noqa: BLE001 - every exception is a finding
                self.fail(f"{name} raised:\n{traceback.format_exc()}")
                self.writing.clear()
                self.reading.clear()
        return threading.Thread(target=run, name=f"stress-{name}", daemon=True)

    def seq(self) -> int:
        with self.session.lock:
            return self.session.seq

    def more(self, done: int) -> bool:
        """Whether a writer goes on: until the record has the lines wanted and it did its share."""
        return self.writing.is_set() and (self.seq() < self.target or done < MIN_WORK)

    def saw(self, reader: str, snap: dict[str, Any]) -> None:
        """Check one snapshot a reader got (module docstring)."""
        for problem in self_consistent(snap):
            self.fail(f"{reader}: {problem}")
        key = status_key(snap["status"])
        with self._seen_lock:
            self.counts["snapshots"] += 1
            known = self.status_at.setdefault(snap["seq"], key)
        if known != key:
            self.fail(f"{reader}: two snapshots of seq {snap['seq']} disagree: {known} / {key}")

    # ---------------------------------------------------------------- the camera
    def run_camera(self) -> None:
        s, rng = self.session, random.Random(11)
        with s.lock:
            fork = s.match.fork()
        commits = 0
        while self.more(commits):
            told, self.camera.told = self.camera.told, None
            if told is not None:
                fork = told.fork()
            lines: list[dict[str, Any]] = []
            if fork.event_count and (fork.is_over or rng.random() < 0.05):
                n = rng.randint(1, min(3, fork.event_count))
                for _ in range(n):
                    fork.undo()
                lines.append({"type": "undo", "count": n})
            for _ in range(rng.randint(1, 3)):
                if fork.is_over:
                    break
                event = fork.random_event(rng)
                fork.apply(event)
                lines.append(event.to_json())
            try:
                s.apply_tracked(lines, "camera", {"t": commits})
                commits += 1
                self.counts["camera"] += 1
            except SessionError as exc:  # a player changed the game meanwhile: follow it afresh
                assert exc.status == 409, exc
                self.counts["camera refused"] += 1
                with s.lock:
                    fork = s.match.fork()

    # ---------------------------------------------------------------- the players
    def refused_changes_nothing(self, lines: list[Any], status: int) -> None:
        """Submit ``lines`` that must be refused with ``status``; under the lock, check that the
        session's match, lines, seq and snapshot are exactly what they were."""
        s = self.session
        with s.lock:
            before = (s.match, s.lines, s.seq, s.snapshot())
            events = s.match.events
            try:
                s.submit_many(lines)
            except SessionError as exc:
                assert exc.status == status, (exc.status, str(exc))
            else:
                raise AssertionError(f"not refused: {lines}")
            after = (s.match, s.lines, s.seq, s.snapshot())
            assert all(a is b for a, b in zip(before, after, strict=True)), "a refused change changed the session"
            assert s.match.events == events and s.lines[-1:] == before[1][-1:]

    def run_taps(self, emu: Emulator) -> None:
        s, rng = self.session, random.Random(12)
        taps = 0
        while self.more(taps):
            taps += 1
            if taps == 1 or rng.random() < 0.1:  # the rules refuse it: no seat 9 in a two-player game
                with s.lock:
                    fork = s.match.fork()
                legal = [fork.random_event(rng).to_json()] if not fork.is_over else []
                self.refused_changes_nothing([*legal, {"type": "pass", "seat": 9}], 409)
                self.counts["illegal refused"] += 1
                continue
            if taps == 2 or rng.random() < 0.05:  # malformed: nothing changes either
                self.refused_changes_nothing([rng.choice([{"type": 3}, {"type": "undo", "seq": 1}, "undo"])], 400)
                self.counts["malformed refused"] += 1
                continue
            if taps == 3:  # decided and made under the lock: always taken
                with s.lock:
                    if s.match.event_count:
                        s.confirm()
                    else:
                        s.play(s.match.fork().random_event(rng).to_json())
                self.counts["taps"] += 1
                continue
            if rng.random() < 1 / PRESS_EVERY:
                with s.lock:
                    seat = s.match.to_play() or 1
                emu.press(*rng.choice([(0, "P"), (seat, "L"), (1, "P")]))
                self.counts["presses"] += 1
                continue
            try:
                roll = rng.random()
                if roll < 0.2:
                    s.undo()
                elif roll < 0.3:
                    s.confirm()
                elif roll < 0.4:
                    with s.lock:  # put the same event back in place of a recent one
                        n = s.match.event_count
                        if n:
                            i = n - rng.randint(1, min(3, n))
                            s.edit(i, s.match.events[i].to_json())
                else:
                    with s.lock:
                        fork = s.match.fork()
                    if fork.is_over:
                        continue
                    burst = []
                    for _ in range(rng.randint(1, 2)):
                        if fork.is_over:
                            break
                        event = fork.random_event(rng)
                        fork.apply(event)
                        burst.append(event.to_json())
                    s.submit_many(burst)  # refused where the camera changed the game meanwhile
                self.counts["taps"] += 1
            except SessionError as exc:
                assert exc.status == 409, (exc.status, str(exc))
                self.counts["taps refused"] += 1

    # ---------------------------------------------------------------- the readers
    def run_reader(self, name: str, slow: bool) -> None:
        s = self.session
        sub = s.subscribe()
        stream_rev, stream_seq, direct_seq = -1, -1, -1

        def take(snap: dict[str, Any], fresh: bool) -> None:
            nonlocal stream_rev, stream_seq
            if snap["rev"] < stream_rev or (not fresh and snap["rev"] == stream_rev):
                self.fail(f"{name}: the stream went back from rev {stream_rev} to {snap['rev']}")
            if snap["seq"] < stream_seq:
                self.fail(f"{name}: the stream went back from seq {stream_seq} to {snap['seq']}")
            stream_rev, stream_seq = snap["rev"], snap["seq"]
            self.last_seq[name] = snap["seq"]
            self.saw(name, snap)

        take(sub.first, fresh=True)
        try:
            while self.reading.is_set():
                snap = sub.get(0.02)
                if sub.dropped:  # fell behind: start again from a fresh snapshot
                    s.unsubscribe(sub)
                    sub = s.subscribe()
                    self.counts["resubscribed"] += 1
                    take(sub.first, fresh=True)
                elif snap is not None:
                    take(snap, fresh=False)
                    if slow:
                        time.sleep(SLOW_READER_S)
                else:
                    direct = s.snapshot()
                    if direct["seq"] < direct_seq:
                        self.fail(f"{name}: snapshot() went back from seq {direct_seq} to {direct['seq']}")
                    direct_seq = direct["seq"]
                    self.saw(name, direct)
        finally:
            s.unsubscribe(sub)

    # ---------------------------------------------------------------- the run
    def run(self) -> None:
        s = self.session
        emu = Emulator(seed=2).start()
        link = WatchedLink(s, StoneCounterClient(emu.port), leds=emu.framebuffer)
        link.start()
        try:
            assert link.client.wait_connected(LONG)
            readers = [self.guarded(f"reader{k}", lambda k=k: self.run_reader(f"reader{k}", slow=k == 0))
                       for k in range(READERS)]
            writers = [self.guarded("camera", self.run_camera), self.guarded("taps", lambda: self.run_taps(emu))]
            for t in (*readers, *writers):
                t.start()
            for t in writers:
                t.join()
            # the presses still on their way are handled (done or refused) before the game is final
            assert wait(lambda: link.handled + emu.ignored_presses >= self.counts["presses"]), \
                (link.handled, emu.ignored_presses, self.counts)
            final = s.snapshot()
            assert wait(lambda: all(self.last_seq.get(f"reader{k}") == final["seq"] for k in range(READERS))), \
                (final["seq"], self.last_seq)
            self.reading.clear()
            for t in readers:
                t.join()
            assert all(t.is_alive() for t in link._threads), "a stone counter thread died"
            layout = link.client.status().layout
            want = display_state(final, getattr(layout, "leds_per_seat", 10) or 10,
                                 getattr(layout, "pool_leds", 10) or 10)
            assert wait(lambda: (emu.state.values, emu.state.pool, emu.state.turn) ==
                        (want.values, want.pool, want.turn)), (emu.state, want)
        finally:
            self.writing.clear()
            self.reading.clear()
            link.stop()
            emu.stop()
        assert not self.errors, "\n".join(self.errors[:10])
        assert link.sent == sorted(link.sent), "the stone counter was sent an older snapshot after a newer one"
        self.check_the_record(final)

    def check_the_record(self, final: dict[str, Any]) -> None:
        """The store, the session's lines and match, and every status seen agree (module docstring)."""
        s = self.session
        with s.lock:
            lines, match, seq = s.lines, s.match, s.seq
        stored = s.store.lines(s.id)
        assert stored == lines and seq == final["seq"] == len(lines) >= self.target
        assert [line["seq"] for line in stored] == list(range(1, seq + 1))
        replayed = s.header.new_match()
        checked = 0
        if 0 in self.status_at:
            assert self.status_at[0] == status_key(replayed.status().to_json())
        for line in stored:
            records.apply_line(replayed, s.spec, dict(line))
            want = self.status_at.get(line["seq"])
            if want is not None:
                assert want == status_key(replayed.status().to_json()), f"seq {line['seq']}"
                checked += 1
        assert replayed.events == match.events and status_key(replayed.status().to_json()) == status_key(final["status"])
        assert checked >= 1 and final["seq"] in self.status_at
        sources = {line["source"] for line in stored}
        assert "camera" in sources and "dashboard" in sources, sources
        assert self.counts["illegal refused"] >= 1 and self.counts["malformed refused"] >= 1, self.counts


@pytest.fixture
def collect_thread_errors(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every uncaught exception on any thread (the stone counter's, the client's) while the test runs."""
    caught: list[str] = []

    def hook(args: threading.ExceptHookArgs) -> None:
        caught.append("".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)))

    monkeypatch.setattr(threading, "excepthook", hook)
    return caught


def test_a_session_stays_consistent_under_concurrent_changes_and_reads(tmp_path: Path,
                                                                        collect_thread_errors: list[str]) -> None:
    """The quick tier: :data:`QUICK_LINES` lines, the history in a file (every line fsynced)."""
    run = Stress(Store(tmp_path / "h.sqlite3"), QUICK_LINES)
    run.run()
    assert not collect_thread_errors, collect_thread_errors[0]


@pytest.mark.slow
def test_a_session_stays_consistent_over_ten_thousand_lines(tmp_path: Path, collect_thread_errors: list[str]) -> None:
    """The slow tier: :data:`FULL_LINES` lines, the history in a file."""
    run = Stress(Store(tmp_path / "h.sqlite3"), FULL_LINES)
    run.run()
    assert not collect_thread_errors, collect_thread_errors[0]
