"""vision.follow, the one camera follower: every command that follows a game from frames (``fudaba
replay``, ``track``, ``run --camera``, ``demo``) builds the same Follower; a session that refuses the
camera's commit makes the tracker follow the session's game afresh; a player's answer from another
thread is handled on the follower's thread, once, in the order requests came (and by the caller
when no follower runs). The camera's parts are stand-ins here: no rendering, no recogniser."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from fudaba.live import SessionSink  # noqa: E402
from fudaba.session import Sessions  # noqa: E402
from fudaba.store import Store  # noqa: E402
from scorer.games import game as game_spec  # noqa: E402
from scorer.simulate import play_round  # noqa: E402
from scorer.table import TableState  # noqa: E402
from scorer.tracker import Explanation, Question, Update  # noqa: E402
from vision import follow as follow_module  # noqa: E402
from vision.answers import FromPlayers  # noqa: E402
from vision.capture import Frame, SourceStatus  # noqa: E402
from vision.follow import Follower  # noqa: E402
from vision.follow_settings import FollowSettings  # noqa: E402
from vision.game_setup import resolve  # noqa: E402
from vision.sinks import Commit  # noqa: E402

WAIT_S = 30.0
"""Longest wait for the follower's thread in these tests (never reached when all is well)."""


# --------------------------------------------------------------------------- stand-ins
class Stats:
    frames = states = readings = pile_readings = 0
    gate_ms = recognise_ms = 0.0


class FakeStabiliser:
    """Every frame settles into an empty table."""

    def __init__(self, layout: Any, recogniser: Any, **_: Any) -> None:
        self.cards = ()
        self.stats = Stats()

    def push(self, image: Any, t: float, calibration: Any) -> TableState:
        return TableState(t=t)


class FakeCalibrator:
    """The markers are found on every frame."""

    def __init__(self, area_mm: Any, every: int = 1) -> None:
        self.current = None

    def update(self, image: Any, t: float) -> Any:
        self.current = object()
        return self.current


class GatedSource:
    """A source whose frames come one per permit the test gives; it ends once told to and drained."""

    def __init__(self) -> None:
        self.permits = threading.Semaphore(0)
        self.ended = threading.Event()
        self.n = 0
        self.closed = False

    def give(self, frames: int = 1) -> None:
        for _ in range(frames):
            self.permits.release()

    def read(self, timeout: float | None = None) -> Frame | None:
        if not self.permits.acquire(timeout=timeout):
            return None
        self.n += 1
        return Frame(np.zeros((4, 4, 3), np.uint8), self.n / 10, self.n, 0)

    def status(self) -> SourceStatus:
        if self.ended.is_set() and not self.permits.acquire(blocking=False):
            return SourceStatus("ended", "test source: ended", self.n, 0, 0)
        return SourceStatus("running", "", self.n, 0, 0)

    def close(self) -> None:
        self.closed = True


class FakeTracker:
    """A tracker whose steps a test scripts: ``commit_on_update`` events are committed by the next
    update; ``ask`` opens as a question at the next update. Every call is noted with its thread."""

    def __init__(self, match: Any) -> None:
        self.match = match.fork()
        self.question: Question | None = None
        self.desync = None
        self.last_table: TableState | None = None
        self.hypotheses: tuple[Any, ...] = ()
        self.calls: list[tuple[str, Any, str]] = []
        self.commit_on_update: tuple[Any, ...] = ()
        self.ask: Question | None = None

    def _note(self, what: str, arg: Any = None) -> None:
        self.calls.append((what, arg, threading.current_thread().name))

    def update(self, table: TableState, at: float) -> Update:
        self._note("update")
        self.last_table = table
        committed, self.commit_on_update = self.commit_on_update, ()
        for ev in committed:
            self.match.apply(ev)
        if self.ask is not None:
            self.question, self.ask = self.ask, None
        if self.question is not None:
            return Update(committed=committed, state="question", question=self.question)
        return Update(committed=committed, best=Explanation((), 1.0))

    def finish(self, at: float) -> Update:
        self._note("finish")
        return Update(state="question", question=self.question) if self.question else Update()

    def choose(self, index: int) -> tuple[Any, ...]:
        self._note("choose", index)
        chosen = self.question.candidates[index]
        self.question = None
        for ev in chosen.events:
            self.match.apply(ev)
        return chosen.events

    def assert_table(self, table: TableState, at: float) -> Update:
        self._note("assert_table")
        return Update()

    def resync(self, match: Any = None) -> None:
        self._note("resync", None if match is None else list(match.events))
        if match is not None:
            self.match = match.fork()
        self.question = None

    def expected(self) -> TableState:
        return TableState()


class ListSink:
    """Commits kept in a list, with the thread that handed each over."""

    record = None
    clock = None

    def __init__(self, match: Any) -> None:
        self.match = match
        self.commits: list[tuple[Commit, str]] = []

    def game(self) -> Any:
        return self.match

    def header(self) -> dict[str, Any]:
        return {}

    def commit(self, commit: Commit) -> None:
        self.commits.append((commit, threading.current_thread().name))

    def viewed(self) -> None:
        pass

    def close(self, abandoned: bool = False) -> None:
        pass


@pytest.fixture
def no_recogniser(monkeypatch: pytest.MonkeyPatch) -> None:
    """No recogniser is loaded and the stabiliser settles every frame into an empty table."""
    import vision.stabilise

    monkeypatch.setattr(vision.stabilise, "Stabiliser", FakeStabiliser)
    monkeypatch.setattr(follow_module, "load_recogniser", lambda deck, profile=None: object())


@pytest.fixture
def stand_ins(no_recogniser: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``no_recogniser``, and the markers are found on every frame."""
    import vision.calibrate

    monkeypatch.setattr(vision.calibrate, "TableCalibrator", FakeCalibrator)


def poka_round() -> tuple[Any, list[Any]]:
    """A fresh two-player Poka match and the events of one random legal round from it."""
    spec = game_spec("poka")
    match = spec.match(["a", "b"], spec.options())
    events = play_round(match.fork(), random.Random(3))
    return match, events


def wait_for(condition: Any, what: str) -> None:
    end = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < end, f"waited {WAIT_S} s for {what}"
        time.sleep(0.01)


# --------------------------------------------------------------------------- the four commands
def test_replay_track_run_and_demo_all_build_the_one_follower(no_recogniser, tmp_path, monkeypatch, capsys):
    cv2 = pytest.importorskip("cv2")
    from fudaba import serve
    from fudaba.cli import main
    from tests.conftest import write_plain_table

    built: list[tuple[type, type]] = []
    original = Follower.__init__

    def spy(self: Follower, source: Any, setup: Any, sink: Any, *args: Any, **kwargs: Any) -> None:
        built.append((type(self), type(sink)))
        original(self, source, setup, sink, *args, **kwargs)

    monkeypatch.setattr(Follower, "__init__", spy)
    frames = write_plain_table(tmp_path / "frames", 6)  # no markers: replay and track give up at once
    assert main(["replay", str(frames), "--game", "poka", "-o", str(tmp_path / "r.jsonl"), "--markers-within", "0.1"]) == 2
    assert main(["track", str(frames), "--game", "poka", "--markers-within", "0.1"]) == 2
    assert "no calibration markers" in capsys.readouterr().err

    started: list[dict[str, Any]] = []
    monkeypatch.setattr(serve, "serve", lambda data, host, port, browser, camera, command, counter=None, new_pin=False,
                        sources="local":
                        (started.append(camera), ("", 0))[1])
    assert main(["run", "--data", str(tmp_path / "h.sqlite3"), "--no-browser", "--camera", str(frames),
                 "--game", "poka", "--names", "Aki", "Ben", "--flight", str(tmp_path / "fl")]) == 0
    demo = tmp_path / "demo" / "poka-2-seed-2000"
    demo.mkdir(parents=True)
    (demo / "done").write_text("")
    writer = cv2.VideoWriter(str(demo / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 15.0, (64, 48))
    writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    assert main(["demo", "--data", str(tmp_path / "d.sqlite3"), "--no-browser"]) == 0
    run, demo_camera = started
    assert run["settings"].names == ("Aki", "Ben") and run["settings"].confirm and run["settings"].flight_dir
    assert demo_camera["settings"] == serve.demo_settings() and not demo_camera["settings"].confirm
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    for camera in started:
        session, feed = serve.start_camera(sessions, **camera)
        feed.stop()
        assert session.follower is feed and isinstance(feed.follower, Follower)
    assert [b[0] for b in built] == [Follower] * 4
    assert [b[1].__name__ for b in built] == ["RecordSink", "RecordSink", "SessionSink", "SessionSink"]


# --------------------------------------------------------------------------- a refused commit
def test_a_commit_the_session_refuses_makes_the_tracker_follow_the_sessions_game(stand_ins, tmp_path):
    sessions = Sessions(Store(tmp_path / "h.sqlite3"))
    session = sessions.create("poka", ["Aki", "Ben"])
    _, events = poka_round()
    sink = SessionSink(session)
    tracker = FakeTracker(sink.game())
    source = GatedSource()
    said: list[str] = []
    follower = Follower(source, resolve("poka", 2), sink, FromPlayers(), FollowSettings("poka", 2),
                        tracker=tracker, name="test", say=said.append)
    # the camera saw the deal, but a player entered it first: the tracker's deal no longer applies
    session.play(events[0].to_json())
    tracker.commit_on_update = (events[0],)
    source.give(1)
    source.ended.set()
    summary = follower.run()
    assert [line["source"] for line in session.lines] == ["dashboard"]
    resyncs = [c for c in tracker.calls if c[0] == "resync"]
    assert len(resyncs) == 1 and resyncs[0][1] == list(session.match.events)
    assert list(tracker.match.events) == list(session.match.events)
    assert summary["events"] == 0 and summary["committed"] == []
    assert any("the camera's events were not taken" in line for line in said), said
    # the next commit applies to the session's game as it is now
    tracker.commit_on_update = (events[1],)
    source2 = GatedSource()
    follower.source = source2
    source2.give(1)
    source2.ended.set()
    summary = follower.run()
    assert [line["source"] for line in session.lines] == ["dashboard", "camera"]
    assert summary["events"] == 1


# --------------------------------------------------------------------------- answers from other threads
def test_an_answer_from_another_thread_is_handled_once_in_order_on_the_followers_thread(stand_ins):
    match, events = poka_round()
    sink = ListSink(match)
    tracker = FakeTracker(match)
    tracker.ask = Question("which-event", "Which happened?", (Explanation((events[0],), 1.0),
                                                               Explanation((events[0], events[1]), 1.5)), 0.0)
    source = GatedSource()
    follower = Follower(source, resolve("poka", 2), sink, FromPlayers(), FollowSettings("poka", 2),
                        tracker=tracker, name="test")
    thread = threading.Thread(target=follower.run, name="follower")
    thread.start()
    try:
        source.give(1)
        wait_for(lambda: follower.view()["question"] is not None, "the question")
        assert follower.view()["question"]["candidates"][1] == f"{events[0].describe()}; {events[1].describe()}"
        # a double tap on the second candidate, then "the table is like this": queued, the last waited for
        follower.answer(1, wait_s=0)
        with contextlib.suppress(ValueError):  # refused at once when the first was handled already
            follower.answer(1, wait_s=0)
        follower.table_is_right(wait_s=WAIT_S)
        with pytest.raises(ValueError, match="no open question"):
            follower.answer(0)
    finally:
        source.ended.set()
        thread.join(WAIT_S)
    assert not thread.is_alive()
    handled = [(what, arg) for what, arg, _ in tracker.calls if what != "update"]
    assert handled == [("choose", 1), ("assert_table", None), ("finish", None)]
    assert {name for _, _, name in tracker.calls} == {"follower"}
    assert [(c.source, c.events, name) for c, name in sink.commits] == [("answer", (events[0], events[1]), "follower")]
    assert sink.commits[0][0].answer["choice"] == 1
    summary = follower.summary()
    assert (summary["questions"], summary["answered"], summary["events"]) == (1, 1, 2)
    assert follower.view()["state"] == "following"
    # no follower thread runs any more: the caller's thread handles a request itself
    follower.table_is_right()
    assert tracker.calls[-1][:2] == ("assert_table", None) and tracker.calls[-1][2] == threading.current_thread().name


def test_a_correction_reaches_the_tracker_without_waiting_and_an_answer_to_a_changed_question_is_refused(stand_ins):
    match, events = poka_round()
    sink = ListSink(match)
    tracker = FakeTracker(match)
    first = Question("which-event", "Which?", (Explanation((events[0],), 1.0), Explanation((), 1.2)), 0.0)
    tracker.ask = first
    follower = Follower(GatedSource(), resolve("poka", 2), sink, FromPlayers(), FollowSettings("poka", 2),
                        tracker=tracker, name="test")
    follower.source.give(1)
    follower.source.ended.set()
    follower.run()  # the source ends with the question open: a player may still answer it
    assert follower.view()["question"]["text"] == "Which?"
    # the question the player saw changed before the answer came (here: by hand)
    tracker.question = Question("which-event", "Which now?", (Explanation((events[1],), 1.0),), 0.0)
    with pytest.raises(ValueError, match="question changed"):
        follower.answer(0)
    assert not sink.commits
    # a player's correction (the session calls this under its lock): handled at once, never waiting
    corrected = match.fork()
    corrected.apply(events[0])
    sink.match = corrected
    follower.resync()
    assert tracker.calls[-1][:2] == ("resync", [events[0]]) and list(tracker.match.events) == [events[0]]
    assert follower.view()["question"] is None
