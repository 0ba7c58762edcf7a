"""Following a session's game from a camera: the live feed (``fudaba run --camera``, ``fudaba demo``).

:class:`LiveFeed` runs the one follower (:class:`vision.follow.Follower`: capture → calibration →
stabiliser → tracker, on the tracker's own fork of the session's match) on its own thread into a
:class:`SessionSink`, which hands each commit to the session
(:meth:`fudaba.session.Session.apply_tracked`: all or nothing, under the session's lock), so the
camera's events, a player's taps and the stone counter's buttons form one record in one order:

* a commit is written with source ``camera`` and evidence ``{"t": seconds, "cost": c}`` (the
  tracker's leading explanation after it, natural-log units), a repair first as
  ``{"type": "undo", "count": n}``;
* an answer (:meth:`LiveFeed.answer`) with source ``answer``, the events found for "the table is
  like this" (:meth:`LiveFeed.table_is_right`) with source ``table``; both are handed to the
  follower's thread and handled between frames (after the source ended: at once);
* a player's correction on the dashboard changes the session's match: the tracker starts explaining
  the table afresh from it (:meth:`scorer.tracker.Tracker.resync`), as it does when the session
  refuses the camera's commit (a player changed the game between the tracker's decision and now).

Claims and settlements wait for a player's confirmation unless the settings say otherwise
(``FollowSettings.confirm``: ``--no-confirm``; the demo, where nobody may be watching). The feed's
view (:meth:`LiveFeed.view`, in the session's snapshot as ``live``; published by the follower's
thread) says the camera's state, whether the markers are found, frames and drops, the tracker's
state, its open question with its candidates, and a desync. The source ending (a video file) is
reported as ``ended``; a camera that vanishes as ``reconnecting`` until it is back
(:mod:`vision.capture`).
"""

from __future__ import annotations

import threading
from typing import Any

from fudaba.session import Session, SessionError
from scorer.match import Match
from vision.answers import FromPlayers
from vision.follow import ANSWER_WAIT_S, Follower
from vision.follow_settings import FollowSettings
from vision.game_setup import Setup
from vision.sinks import Commit, Refused


class SessionSink:
    """The follower's commits into ``session``: one :meth:`Session.apply_tracked` per commit."""

    record = None
    """The record is the session's, in the history."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.clock = session.now_s
        """Committed events carry the match's time (what drives Bagaji's session clock)."""
        self._seq: int | None = None
        """The session's ``seq`` when the follower last took its game or committed: a commit made on
        an older game is refused."""

    def game(self) -> Match:
        """The session's match now (nobody changes it in place: the tracker forks it)."""
        with self.session.lock:
            self._seq = self.session.seq
            return self.session.match

    def header(self) -> dict[str, Any]:
        return self.session.header.to_json()

    def commit(self, commit: Commit) -> None:
        """Apply ``commit`` as one change: an ``undo`` of what it takes back, then its events.
        :class:`Refused` (nothing changes) when someone else changed the session's game since the
        follower took it (:meth:`game`) or last committed, or the match no longer takes them."""
        lines: list[dict[str, Any]] = [{"type": "undo", "count": commit.retracted}] if commit.retracted else []
        lines += [ev.to_json() for ev in commit.events]
        with self.session.lock:
            if self._seq is not None and self.session.seq != self._seq:
                raise Refused("the game was changed meanwhile")
            try:
                self.session.apply_tracked(lines, commit.source, commit.evidence())
            except SessionError as exc:
                raise Refused(str(exc)) from None
            self._seq = self.session.seq

    def viewed(self) -> None:
        """Tell the session's watchers (the follower's view is in its snapshot)."""
        self.session.refresh()

    def close(self, abandoned: bool = False) -> None:
        self.session.refresh()


class LiveFeed:
    """A camera following one session's game (module docstring): the session's follower."""

    def __init__(self, session: Session, source: Any, setup: Setup, recogniser: Any, settings: FollowSettings,
                 *, name: str = "camera") -> None:
        self.session = session
        self.name = name
        self.follower = Follower(source, setup, SessionSink(session), FromPlayers(), settings,
                                 recogniser=recogniser, name=name)
        self.layout = setup.layout
        self._thread: threading.Thread | None = None
        session.attach(self)

    # ------------------------------------------------------------------ the follower's parts (read-only)
    @property
    def tracker(self) -> Any:
        """The tracker (touched only by the follower's thread)."""
        return self.follower.tracker

    @property
    def stabiliser(self) -> Any:
        return self.follower.stabiliser

    @property
    def frames(self) -> int:
        """Frames followed so far."""
        return self.follower.tally.frames

    @property
    def calibrated(self) -> bool:
        return self.follower.calibrated

    # ------------------------------------------------------------------ thread
    def start(self) -> None:
        """Follow the source on a daemon thread."""
        self._thread = threading.Thread(target=self._run, name=f"fudaba-live-{self.session.id}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self.follower.run()
        except Exception as exc:  # the feed stops; the game and the record stay as they are
            self.follower.fail(exc)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop following and close the source."""
        self.follower.stop()
        if self._thread is not None:
            self._thread.join(timeout)

    # ------------------------------------------------------------------ the session's follower
    def changed(self, match: Match) -> None:
        """A player changed the game (``match`` is the session's now): the follower explains the
        table afresh from the session's game (never waits)."""
        self.follower.resync()

    def answer(self, choice: int) -> None:
        """Answer the open question with candidate ``choice`` (ValueError when there is none, or no
        such candidate, or it changed meanwhile). Waits up to :data:`vision.follow.ANSWER_WAIT_S`
        for the follower's thread to handle it, except when the caller holds the session's lock
        (the follower's thread needs it to apply the answer): then it only queues it."""
        self.follower.answer(choice, self._wait_s())

    def table_is_right(self) -> None:
        """The table as last seen is right: commit the events that lead to it (or ask, or say why
        not); ValueError before the first settled table. Waits as :meth:`answer` does."""
        self.follower.table_is_right(self._wait_s())

    def _wait_s(self) -> float:
        """How long a player's request may wait for the follower's thread (0 under the session's lock)."""
        return 0.0 if self.session.lock._is_owned() else ANSWER_WAIT_S  # type: ignore[attr-defined]

    def view(self) -> dict[str, Any]:
        """The follower's view as last published (:meth:`vision.follow.Follower.view`)."""
        return self.follower.view()

    def set_corners(self, corners: list[list[float]]) -> None:
        """Calibrate by hand (:meth:`vision.follow.Follower.set_corners`)."""
        self.follower.set_corners(corners)

    def picture(self) -> bytes | None:
        """The table now as a JPEG: top-down, zones and cards drawn (:mod:`vision.annotate`); None
        before the first frame."""
        from vision.annotate import jpeg, top_down

        seen = self.follower.seen
        if seen is None:
            return None
        return jpeg(top_down(seen.image, seen.calibration, self.layout.zones, seen.cards))

    def frame_picture(self, width: int = 960) -> tuple[bytes, tuple[int, int]] | None:
        """The camera's last frame as a JPEG ``width`` pixels wide, and the frame's own size (px);
        None before the first frame. Where a player clicks the play area's corners."""
        import cv2

        from vision.annotate import jpeg

        seen = self.follower.seen
        if seen is None:
            return None
        image = seen.image
        h, w = image.shape[:2]
        small = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
        return jpeg(small), (w, h)
