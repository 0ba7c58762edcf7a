"""The one camera follower: capture → table calibration → stabiliser → tracker → sink.

:class:`Follower` runs ARCHITECTURE.md's data flow for every command that follows a game from
frames — ``fudaba replay`` and ``fudaba track`` (:mod:`vision.replay`, into a record file:
:class:`vision.sinks.RecordSink`) and ``fudaba run --camera`` and ``fudaba demo``
(:mod:`fudaba.live`, into a dashboard session) — capture (:mod:`vision.capture`) → table
calibration (:mod:`vision.calibrate`) → stabiliser (:mod:`vision.stabilise`) → tracker
(:mod:`scorer.tracker`, on its own fork of the game) → a *sink* (:class:`vision.sinks.Sink`),
which takes each :class:`vision.sinks.Commit`. Who answers the tracker's questions is a policy
(:mod:`vision.answers`). Times are the source's seconds (``Frame.t``).

Commits: the events the tracker commits go to the sink with source ``camera`` and evidence
``{"t": seconds, "cost": c}``, where ``c`` is the cost (natural-log units, lower is better) of the
tracker's leading explanation right after the commit (omitted when the tracker gives none).
Events committed by answering a question carry source ``answer`` (the answers file, a typed
number, a player) or ``guess`` (nobody answered: candidate 0, the most likely) and evidence
``{"t", "cost", "question", "choice", "candidates"}`` (the candidates in words); those found for
"the table is like this" carry source ``table``. A commit may first take back committed events
(a repair, or an answer whose candidate starts with one). A sink may refuse a commit
(:class:`vision.sinks.Refused`: a player changed the session's game meanwhile): the tracker then
follows the sink's game afresh (:meth:`scorer.tracker.Tracker.resync`).

Threads: the tracker is touched by one thread at a time, holding the follower's own lock: the
thread in :meth:`Follower.run` while it runs. A player's answer, "the table is like this" and a
correction of the game (:meth:`Follower.answer`, :meth:`Follower.table_is_right`,
:meth:`Follower.resync`) are queued and handled by that thread between frames, in the order they
came; when no :meth:`Follower.run` is running (before it starts, after the source ended) the
caller handles them itself under the follower's lock. The follower takes a sink's own locks (a
session's) only inside the sink; nobody may call it while holding them and wait
(``wait_s=0`` does not wait). What the follower shows (:meth:`Follower.view`: the camera, the
tracker's state, its question, a desync) is published as a new dict after each change, never
changed once published.

Flight recorder (``FollowSettings.flight_dir``; :mod:`vision.flight`): every frame is kept for the
last :data:`~vision.follow_settings.FLIGHT_SECONDS` seconds, and a clip is saved when the tracker
goes out of sync (kind ``desync``), asks a question (``question``; a question answered at once,
from the answers file or guessed, is one clip holding its answer), when a player's answer settles
a question later (``correction``) and, with ``flight_commits``, at every commit (``commit``). Each
clip's evidence: ``source``, ``header`` (the record header: game, ruleset, options, players),
``state``, ``table`` (the last table seen, ``TableState.to_json``), ``expected`` (the table the
committed game implies), ``best`` (the leading explanation in words) and ``best_cost``,
``hypotheses`` (up to four: ``events`` in words, ``cost``), ``committed`` (every event so far,
as in the summary), plus ``desync`` (``text``, ``differences``, ``since``), ``question``
(``text``, ``kind``, ``since``, ``candidates``; with ``choice`` and ``source`` once answered) or
``events`` (those committed).

Bad input raises :class:`~vision.game_setup.ReplayError`: a recogniser that cannot be loaded, and
no calibration within ``markers_within_s`` seconds of the source's start (or by its end).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scorer.errors import ScorerError
from scorer.match import Match
from scorer.tracker import Question, Tracker, Update
from vision.answers import ASSERT_TABLE, Choice, QuestionPolicy
from vision.follow_settings import FLIGHT_SECONDS, FollowSettings
from vision.game_setup import ReplayError, Setup
from vision.sinks import Commit, Refused, Sink

READ_TIMEOUT_S = 0.5
"""Longest wait for a frame before the follower looks at the source's state, its queue and its stop flag."""
PROGRESS_EVERY_S = 10.0
"""A progress line every this many seconds of the source."""
CALIBRATE_EVERY = 3
"""Markers are searched on every this-many-th frame (the calibration is held between)."""
STAGES = ("read", "flight", "calibrate", "stabilise", "track")
"""The stages whose time a summary gives (``stage_ms_per_frame``; ``flight``: keeping frames and
saving clips for the flight recorder, 0 without one)."""
ANSWER_WAIT_S = 10.0
"""Longest wait of :meth:`Follower.answer` and :meth:`Follower.table_is_right` for the follower's
thread to handle them (after it they are still handled, later)."""

Say = Callable[[str], None]


END_QUESTIONS = 4
"""When the source ends, questions answered one after another at most (an answer may leave
another open: the round it settles shows a hand with a card the camera did not see)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """The last frame and what was made of it (for pictures of the table)."""

    image: Any
    """The frame (BGR pixels)."""
    calibration: Any
    """The calibration then (None before the first)."""
    cards: tuple[Any, ...]
    """The stabiliser's cards then (:class:`vision.stabilise.TableCard`)."""


@dataclass
class Tally:
    """Counters of one run (the summary's)."""

    events: int = 0
    questions: int = 0
    guesses: int = 0
    answered: int = 0
    bad_answers: int = 0
    desyncs: int = 0
    resyncs: int = 0
    """Times the tracker found its own way back after it was out of sync (record source ``resync``)."""
    retracted: int = 0
    """Committed events taken back by repairs, resyncs and answers."""
    frames: int = 0
    first_t: float | None = None
    last_t: float = 0.0
    committed: list[dict[str, Any]] = field(default_factory=list)
    """Every event committed and not taken back: ``t``, ``source``, ``event`` (JSON)."""
    question_kinds: dict[str, int] = field(default_factory=dict)
    """Questions by :attr:`scorer.tracker.Question.kind`."""
    stage_s: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))

    def timed(self, stage: str, started: float) -> float:
        """Add the time since ``started`` (``time.perf_counter``) to ``stage``; return the time now."""
        now = time.perf_counter()
        self.stage_s[stage] += now - started
        return now


@dataclass(eq=False)
class _Request:
    """Something from another thread for the follower's thread: ``answer`` (``candidate``, as the
    player saw it), ``something-else`` (none of the question's candidates, ``candidate`` the question
    as the player saw it), ``table`` (the table is like this) or ``resync`` (the sink's game changed)."""

    kind: str
    candidate: Any = None
    done: threading.Event = field(default_factory=threading.Event)
    error: Exception | None = None


def load_recogniser(deck: str, profile: str | None = None) -> Any:
    """The shipped recogniser of ``deck`` (with a deck ``profile``); ReplayError when it cannot be loaded."""
    from vision.recognise.recogniser import Recogniser

    try:
        return Recogniser(deck, profile=profile)
    except (OSError, ValueError) as exc:
        raise ReplayError(f"cannot load the {deck} recogniser: {exc}") from None


class Follower:
    """Follows the game in ``source`` (a :class:`vision.capture.Source`, closed when :meth:`run`
    ends) into ``sink`` (module docstring).

    ``setup``: the game (its zone layout); ``answers``: who answers questions; ``settings``: the
    follower's (profile, flight recorder, markers, real time, tracker and stabiliser settings).
    ``recogniser``: one already loaded, else the shipped one for the deck and profile.
    ``tracker``: one already made, else one on the sink's game with the settings' options and the
    sink's clock. ``name``: the source in messages. ``say`` gets a line for every event, question,
    answer and desync as it happens; ``progress`` a line every :data:`PROGRESS_EVERY_S` seconds of
    source time."""

    def __init__(self, source: Any, setup: Setup, sink: Sink, answers: QuestionPolicy, settings: FollowSettings,
                 *, recogniser: Any = None, tracker: Tracker | None = None, name: str = "",
                 say: Say | None = None, progress: Say | None = None) -> None:
        from vision.calibrate import TableCalibrator
        from vision.stabilise import Stabiliser

        self.source = source
        self.setup = setup
        self.sink = sink
        self.answers = answers
        self.settings = settings
        self.name = name
        self.say: Say = say or (lambda _line: None)
        self.progress = progress
        if recogniser is None:
            recogniser = load_recogniser(setup.deck, settings.profile)
        self.tracker = tracker if tracker is not None else Tracker(sink.game(), settings.tracker(), clock=sink.clock)
        self.calibrator = TableCalibrator(setup.layout.area_mm, every=CALIBRATE_EVERY)
        self.stabiliser = Stabiliser(setup.layout, recogniser, **dict(settings.stabiliser_options))
        self.recorder = None
        if settings.flight_dir is not None:
            from vision.flight import FlightRecorder

            self.recorder = FlightRecorder(FLIGHT_SECONDS, save_commits=settings.flight_commits)
        self.tally = Tally()
        self.calibrated = False
        self.interrupted = False
        """Ctrl-C ended the run."""
        self.camera = "starting"
        """The source's state for people: ``starting``, ``running``, ``reconnecting``, ``ended``, ``failed``."""
        self.message = f"opening {name}"
        self.error: str | None = None
        self.behind_s = 0.0
        """With ``settings.realtime``: how far behind real time the last frame was followed (s)."""
        self.seen: Seen | None = None
        self.wall_s = 0.0
        """Seconds :meth:`run` took."""
        self._corners: Any = None
        """Play-area corners a player clicked (frame px), installed at the next frame."""
        self._state = "synced"
        """The tracker's state after the last update (``Update.state``)."""
        self._best: Any = None
        """The leading explanation of the last update that had one (a desync has none)."""
        self._header = sink.header()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        """Held by the one thread that touches the tracker (module docstring)."""
        self._guard = threading.Lock()
        """Guards ``_running`` and ``_requests``."""
        self._running = False
        self._requests: deque[_Request] = deque()
        self._t0: float | None = None
        """With ``settings.realtime``: the monotonic time of the source's time 0."""
        self._started = time.perf_counter()
        self._next_progress = PROGRESS_EVERY_S
        """Source seconds (since its first frame) of the next progress line."""
        self._published: tuple[dict[str, Any], Question | None] = (self._view_now(), None)

    # ------------------------------------------------------------------ running
    def run(self) -> dict[str, Any]:
        """Follow until the source ends (then what leads is committed and what is open is asked:
        :meth:`scorer.tracker.Tracker.finish`), :meth:`stop`, or Ctrl-C (the summary says
        ``interrupted``); return the summary (:func:`vision.replay.replay_video`)."""
        self._started = time.perf_counter()
        with self._guard:
            self._running = True
        abandoned = False
        try:
            ended = False
            while not ended and not self._stop.is_set():
                frame, status = self._read()
                with self._lock:
                    self._serve()
                    if frame is not None:
                        self._frame(frame, status)
                    elif status is None or status.state in ("ended", "failed"):
                        self._set_camera(status.state if status else "ended",
                                         status.message if status else f"{self.name}: ended")
                        ended = True
                    elif self._set_camera(status.state, status.message):
                        self._publish()
            if ended:
                with self._lock:
                    self._end()
        except KeyboardInterrupt:
            self.interrupted = True
        except ReplayError:
            abandoned = not self.tally.events
            raise
        finally:
            with self._guard:
                self._running = False
            self._kick(blocking=True)
            self.source.close()
            self.sink.close(abandoned)
            self.wall_s = time.perf_counter() - self._started
        return self.summary()

    def stop(self) -> None:
        """Ask :meth:`run` to stop after the frame it is on (nothing more is committed)."""
        self._stop.set()

    def fail(self, exc: BaseException) -> None:
        """Show that following stopped on ``exc`` (the game and the record stay as they are)."""
        with self._lock:
            self.camera, self.error = "failed", f"{type(exc).__name__}: {exc}"
            self.message = f"following {self.name} stopped: {self.error}"
            self._publish()

    def _read(self) -> tuple[Any, Any]:
        """The next frame (None: none yet, or the end) and the source's status (None: it has none)."""
        clock = time.perf_counter()
        frame = self.source.read(READ_TIMEOUT_S)
        self.tally.timed("read", clock)
        status = self.source.status() if hasattr(self.source, "status") else None
        if frame is not None and self.settings.realtime:
            now = time.monotonic()
            if self._t0 is None:
                self._t0 = now - frame.t
            wait = self._t0 + frame.t - now
            if wait > 0:
                self._stop.wait(wait)
            self.behind_s = max(0.0, -wait)
        return frame, status

    def _frame(self, frame: Any, status: Any) -> None:
        """One frame through calibration, the stabiliser and (when it settles) the tracker."""
        tally = self.tally
        t = frame.t
        if tally.first_t is None:
            tally.first_t = t
        tally.frames += 1
        tally.last_t = t
        clock = time.perf_counter()
        if self.recorder is not None:
            self.recorder.push(frame.image, t)
            clock = tally.timed("flight", clock)
        cal = self._calibrate(frame)
        clock = tally.timed("calibrate", clock)
        if cal is not None:
            self.calibrated = True
        elif not self.calibrated and self.settings.markers_within_s is not None \
                and t - tally.first_t >= self.settings.markers_within_s:
            raise ReplayError(self._no_markers(ended=False))
        table = self.stabiliser.push(frame.image, t, cal)
        clock = tally.timed("stabilise", clock)
        held = cal if cal is not None else (self.seen.calibration if self.seen is not None else None)
        self.seen = Seen(frame.image, held, self.stabiliser.cards)
        if self.progress is not None and t - tally.first_t >= self._next_progress:
            self._next_progress += PROGRESS_EVERY_S
            wall = time.perf_counter() - self._started
            self.progress(f"{self.name or 'source'}: {t - tally.first_t:.0f} s in {wall:.0f} s "
                          f"({(t - tally.first_t) / max(wall, 1e-9):.1f}x real time), {tally.events} events, "
                          f"{tally.questions} questions, {tally.desyncs} desyncs")
        state, message = (status.state, status.message) if status is not None else ("running", "")
        if not self.calibrated:
            state, message = "running", "looking for the mat's four corner markers"
        changed = self._set_camera(state, message)
        typed = self.answers.typed(self.tracker.question)
        if typed is not None:
            self._typed(typed, t)
            changed = True
        if table is not None:
            upd = self.tracker.update(table, t)
            tally.timed("track", clock)
            self._handle(upd, t, "camera")
        if changed or table is not None:
            self._publish()

    def _calibrate(self, frame: Any) -> Any:
        """This frame's calibration: from corners a player set, else from the markers (None: none)."""
        corners, self._corners = self._corners, None
        if corners is not None:
            try:
                return self.calibrator.set_manual(corners, frame.t)
            except ValueError as exc:
                self.message = f"the corners were not used: {exc}"
        return self.calibrator.update(frame.image, frame.t)

    def _set_camera(self, state: str, message: str) -> bool:
        """Note the source's state; whether it changed."""
        if (state, message) == (self.camera, self.message):
            return False
        self.camera, self.message = state, message
        return True

    def _end(self) -> None:
        """The source ended: commit what leads, ask what is open (the policy may answer it)."""
        if not self.calibrated:
            if self.settings.markers_within_s is not None:
                raise ReplayError(self._no_markers(ended=True))
            self._publish()
            return
        t = self.tally.last_t
        for _ in range(END_QUESTIONS):  # an answer may leave another question (a hand's unseen card)
            self._handle(self.tracker.finish(t), t, "camera")
            q = self.tracker.question
            if q is None:
                break
            choice = self.answers.at_end(q, t)
            if choice is None:
                break
            self._answer(choice, t, "question")
        self._publish()

    def _no_markers(self, ended: bool) -> str:
        setup = self.setup
        where = f"in {self.name}" if ended else f"in the first {self.settings.markers_within_s:g} s of {self.name}"
        return (f"no calibration markers seen {where}: print the mat with `fudaba mat --game {setup.game} "
                f"--players {setup.players}` and keep its four corner markers (ArUco 0-3) in view")

    # ------------------------------------------------------------------ tracker → sink
    def _handle(self, upd: Update, t: float, source: str) -> None:
        """Commit, say and record what one tracker step did; a question the policy answers at once
        is answered."""
        if upd.reread:
            self.stabiliser.reread(upd.reread)  # the game contradicts these zones' reading: read them again
        if upd.retracted or upd.committed:
            cost = upd.best.cost if upd.best is not None else None
            resync = upd.source == "resync"
            why = ("out of sync: the events that lead to the table seen" if resync
                   else "a card committed earlier was misread")
            if resync:
                self.tally.resyncs += 1
            if not self._commit(Commit(t, "resync" if resync and source == "camera" else source, upd.committed,
                                       upd.retracted, why, cost)):
                return
            if self.recorder is not None and self.recorder.wants("commit"):
                self._fly("commit", t, {**self._evidence(upd.best, upd.state),
                                        "events": [ev.to_json() for ev in upd.committed]})
        if upd.best is not None:
            self._best = upd.best
        q = self.tracker.question
        if upd.state == "question" and q is not None:
            choice = self.answers.now(q, t)
            if choice is not None:
                self._answer(choice, t, "question")
            elif self._state != "question":
                self.say(f"{t:8.2f} s  question: {q.text}{self.answers.prompt}")
                if self.recorder is not None:
                    self._fly("question", t, {**self._evidence(upd.best, upd.state), "question": _question_json(q)})
        if upd.state == "out-of-sync" and self._state != "out-of-sync":
            self.tally.desyncs += 1
            d = upd.desync
            self.say(f"{t:8.2f} s  {d.text if d else 'out of sync'}")
            if self.recorder is not None:
                self._fly("desync", t, {**self._evidence(self._best, upd.state),
                                        "desync": {"text": d.text, "differences": list(d.differences), "since": d.since}
                                        if d is not None else None})
        elif self._state == "out-of-sync" and upd.state != "out-of-sync":
            self.say(f"{t:8.2f} s  back in sync")
        self._state = upd.state

    def _answer(self, choice: Choice, t: float, clip: str) -> None:
        """Answer the open question with ``choice``; ``clip``: ``question`` (answered as it opened or
        at the end: said, and its clip holds the answer) or ``correction`` (a player's, later)."""
        q = self.tracker.question
        assert q is not None
        evidence = self._evidence(self._best, "question") if self.recorder is not None else {}
        tally = self.tally
        tally.questions += 1
        tally.question_kinds[q.kind] = tally.question_kinds.get(q.kind, 0) + 1
        if choice.source == "guess":
            tally.guesses += 1
            tally.bad_answers += choice.bad
        else:
            tally.answered += 1
        if clip == "question":
            self.say(f"{t:8.2f} s  question: {q.text}")
        chosen = q.candidates[choice.index]
        events = self.tracker.choose(choice.index)
        answer = {"question": q.text, "choice": choice.index, "candidates": [c.describe() for c in q.candidates]}
        if self._commit(Commit(t, choice.source, events, chosen.retract, q.text, chosen.cost, answer)) \
                and self.recorder is not None:
            self._fly(clip, t, {**evidence, "question": {**_question_json(q), "choice": choice.index,
                                                         "source": choice.source},
                                "events": [ev.to_json() for ev in events]})

    def _table_is_right(self, t: float) -> None:
        """The table as last seen is right: commit the events that lead to it (or ask, or say why
        not); ValueError before the first settled table."""
        table = self.tracker.last_table
        if table is None:
            raise ValueError("the camera has not seen a settled table yet")
        self.say(f"{t:8.2f} s  the table is like this: looking for the events that lead to it")
        self._handle(self.tracker.assert_table(table, t), t, "table")

    def _typed(self, typed: int, t: float) -> None:
        """A number typed in a terminal: a candidate of the open question, or :data:`ASSERT_TABLE`."""
        if typed != ASSERT_TABLE:
            self._answer(Choice(typed, "answer"), t, "correction")
            return
        try:
            self._table_is_right(t)
        except ValueError as exc:
            self.say(f"{t:8.2f} s  {exc}")

    def _commit(self, commit: Commit) -> bool:
        """Hand ``commit`` to the sink and count it; False when the sink refused it (the tracker
        then follows the sink's game afresh)."""
        t = commit.t
        if not commit.events and not commit.retracted:
            return True
        # the sink may show the follower beside its game (a session's snapshot): the view after this step
        self._published = (self._view_now(), self.tracker.question)
        try:
            self.sink.commit(commit)
        except Refused as exc:
            self.message = f"the camera's events were not taken: {exc}"
            self.say(f"{t:8.2f} s  {self.message}")
            self._resync(self.sink.game())
            return False
        tally = self.tally
        n = commit.retracted
        if n:
            del tally.committed[max(0, len(tally.committed) - n):]
            tally.events -= n
            tally.retracted += n
            self.say(f"{t:8.2f} s  took back the last {n} events: {commit.repair}")
        for ev in commit.events:
            tally.events += 1
            tally.committed.append({"t": round(t, 3), "source": commit.source, "event": ev.to_json()})
            self.say(f"{t:8.2f} s  {ev.describe()}" + ("" if commit.source == "camera" else f"  [{commit.source}]"))
        return True

    def _resync(self, match: Match) -> None:
        """Follow a fork of ``match`` afresh (someone else changed the game)."""
        self.tracker.resync(match)
        self._state = "synced"

    # ------------------------------------------------------------------ flight recorder
    def _evidence(self, best: Any, state: str) -> dict[str, Any]:
        """The tracker's evidence now (its state ``state``), for a flight recorder clip (module docstring)."""
        tracker = self.tracker
        seen = tracker.last_table
        return {"source": self.name, "header": self._header, "state": state,
                "table": seen.to_json() if seen is not None else None, "expected": tracker.expected().to_json(),
                "best": best.describe() if best is not None else None,
                "best_cost": best.cost if best is not None else None,
                "hypotheses": [{"events": h.describe(), "cost": h.cost} for h in tracker.hypotheses[:4]],
                "committed": list(self.tally.committed)}

    def _fly(self, kind: str, t: float, evidence: dict[str, Any]) -> None:
        """Save a flight recorder clip of ``kind`` (when there is a recorder that wants it)."""
        if self.recorder is None or not self.recorder.wants(kind):
            return
        clock = time.perf_counter()
        path = self.recorder.save(self.settings.flight_dir, kind, t, evidence)
        self.tally.timed("flight", clock)
        self.say(f"{t:8.2f} s  flight recorder: {path}")

    # ------------------------------------------------------------------ requests from other threads
    def answer(self, choice: int, wait_s: float = ANSWER_WAIT_S) -> None:
        """A player's answer: candidate ``choice`` (from 0) of the question the view shows.
        ValueError when it shows none or has no such candidate, or (once handled, within
        ``wait_s``) when that question was settled or changed meanwhile. Handled on the follower's
        thread while :meth:`run` runs, else here (module docstring); ``wait_s=0``: returns once it
        is queued, without waiting for the follower's lock."""
        asked = self._published[1]
        if asked is None:
            raise ValueError("there is no open question")
        if choice == len(asked.candidates):  # "something else": the players enter it by hand
            self._request(_Request("something-else", candidate=asked), wait_s)
            return
        if not 0 <= choice < len(asked.candidates):
            raise ValueError(f"choose 0-{len(asked.candidates) - 1}, or {len(asked.candidates)} for something "
                             f"else, not {choice}")
        self._request(_Request("answer", candidate=asked.candidates[choice]), wait_s)

    def table_is_right(self, wait_s: float = ANSWER_WAIT_S) -> None:
        """A player's word that the table as last seen is right: the tracker finds the events that
        lead to it (or asks, or says why not). ValueError (within ``wait_s``) before the first
        settled table. Handled as :meth:`answer` is."""
        self._request(_Request("table"), wait_s)

    def resync(self) -> None:
        """Someone else changed the sink's game (a player's correction): follow it afresh
        (:meth:`vision.sinks.Sink.game`, as it is when this is handled). Never waits: it may be
        called under the session's lock."""
        self._request(_Request("resync"), 0.0)

    def set_corners(self, corners: list[list[float]]) -> None:
        """Calibrate by hand: the play area's four corners in frame pixels, clockwise from the
        top-left (the mat's marker 0); used from the next frame until the markers take over.
        ValueError for anything but four points inside the frame."""
        import numpy as np

        quad = np.asarray(corners, dtype=np.float64)
        if quad.shape != (4, 2) or not np.isfinite(quad).all():
            raise ValueError("give the play area's four corners as [x, y] pairs, clockwise from the top-left")
        seen = self.seen
        if seen is not None:
            h, w = seen.image.shape[:2]
            if (quad < 0).any() or (quad[:, 0] > w).any() or (quad[:, 1] > h).any():
                raise ValueError(f"the corners must lie inside the {w} x {h} frame")
        self._corners = quad

    def _request(self, req: _Request, wait_s: float) -> None:
        with self._guard:
            self._requests.append(req)
        self._kick(blocking=wait_s > 0)
        if wait_s > 0 and req.done.wait(wait_s) and req.error is not None:
            raise req.error

    def _kick(self, blocking: bool) -> None:
        """Handle the queued requests here when :meth:`run` is not running (under the follower's lock;
        ``blocking=False``: only if it is free now, else its holder handles them)."""
        while True:
            with self._guard:
                if self._running or not self._requests:
                    return
            if not self._lock.acquire(blocking=blocking):
                return
            try:
                self._serve()
            finally:
                self._lock.release()

    def _serve(self) -> None:
        """Handle the queued requests, in order (the caller holds the follower's lock)."""
        while True:
            with self._guard:
                if not self._requests:
                    return
                req = self._requests.popleft()
            try:
                self._do(req)
            except (ScorerError, ValueError) as exc:
                req.error = exc
                self.message = f"not done: {exc}"
            finally:
                req.done.set()
            self._publish()

    def _do(self, req: _Request) -> None:
        t = self.tally.last_t
        if req.kind == "resync":
            self._resync(self.sink.game())
        elif req.kind == "table":
            self._table_is_right(t)
        elif req.kind == "something-else":
            if self.tracker.question is None or self.tracker.question.candidates != req.candidate.candidates:
                raise ValueError("the question changed before the answer came: answer it again")
            self.tracker.something_else()
            self._state = "entry"
            self.message = "none of the camera's candidates: enter what happened by hand"
        else:
            q = self.tracker.question
            if q is None:
                raise ValueError("there is no open question (it was settled meanwhile)")
            want = req.candidate
            index = next((k for k, c in enumerate(q.candidates)
                          if c.retract == want.retract and c.events == want.events), None)
            if index is None:
                raise ValueError("the question changed before the answer came: answer it again")
            self._answer(Choice(index, "answer"), t, "correction")

    # ------------------------------------------------------------------ what it shows
    def view(self) -> dict[str, Any]:
        """The follower as plain JSON, as last published (never changed): ``camera`` (its state),
        ``message``, ``source``, ``calibrated``, ``frames``, ``t`` (s), ``error``, ``behind_s``,
        ``calibration`` (``markers`` or ``manual``), ``state`` (``following``, ``question``,
        ``out-of-sync``, ``entry``: a player answered "something else" and enters it by hand),
        ``question`` (``text``, ``kind``, ``candidates`` in words, ``options``: each candidate's
        ``retract`` and ``events``; as data, :meth:`scorer.tracker.Question.to_json`: ``choices``
        (each with ``steps``: kind, seat, cards) and ``something_else``, the answer after the
        candidates) and ``desync`` (``text``, ``differences``)."""
        return self._published[0]

    def _view_now(self) -> dict[str, Any]:
        q, d = self.tracker.question, self.tracker.desync
        return {
            "camera": self.camera, "message": self.message, "source": self.name, "calibrated": self.calibrated,
            "frames": self.tally.frames, "t": round(self.tally.last_t, 1), "error": self.error,
            "behind_s": round(self.behind_s, 1),
            "calibration": getattr(self.calibrator.current, "source", None) if self.calibrated else None,
            "state": "question" if q is not None else "out-of-sync" if d is not None
            else "entry" if self._state == "entry" else "following",
            "question": None if q is None else {"text": q.text, "kind": q.kind,
                                                "candidates": [c.describe() for c in q.candidates],
                                                "options": [{"retract": c.retract, "events": [e.to_json() for e in c.events]}
                                                            for c in q.candidates],
                                                **q.to_json()},
            "desync": None if d is None else {"text": d.text, "differences": list(d.differences), "zones": list(d.zones)},
        }

    def _publish(self) -> None:
        """Publish the view now (the caller holds the follower's lock); tell the sink when it changed."""
        view = self._view_now()
        if view != self._published[0]:
            self._published = (view, self.tracker.question)
            self.sink.viewed()
        else:
            self._published = (self._published[0], self.tracker.question)

    def summary(self) -> dict[str, Any]:
        """The run's summary (:func:`vision.replay.replay_video`)."""
        tally, st = self.tally, self.stabiliser.stats
        seconds = tally.last_t - (tally.first_t or 0.0)
        wall = self.wall_s
        setup = self.setup
        return {
            "source": self.name, "record": self.sink.record,
            "game": setup.game, "ruleset": setup.ruleset, "players": setup.players,
            "events": tally.events, "questions": tally.questions, "guesses": tally.guesses,
            "answered": tally.answered, "bad_answers": tally.bad_answers, "question_kinds": dict(tally.question_kinds),
            "desyncs": tally.desyncs, "resyncs": tally.resyncs, "retracted": tally.retracted,
            "seconds": round(seconds, 3), "wall_seconds": round(wall, 3),
            "speed_x_real_time": round(seconds / wall, 2) if wall > 0 else None,
            "frames": tally.frames, "states": st.states, "recognitions": st.readings,
            "pile_recognitions": st.pile_readings,
            "gate_ms_per_frame": round(st.gate_ms / max(1, st.frames), 2),
            "recognise_ms_per_reading": round(st.recognise_ms / max(1, st.readings + st.pile_readings), 1),
            "over": self.tracker.match.is_over, "results": [r.to_json() for r in self.tracker.match.results],
            "stage_ms_per_frame": {k: round(1000 * v / max(1, tally.frames), 2) for k, v in tally.stage_s.items()},
            "interrupted": self.interrupted, "committed": tally.committed,
            "flight_clips": [str(p) for p in self.recorder.saved] if self.recorder is not None else [],
        }


def _question_json(q: Question) -> dict[str, Any]:
    return {"text": q.text, "kind": q.kind, "since": q.since,
            "candidates": [{"events": c.describe(), "cost": c.cost} for c in q.candidates]}
