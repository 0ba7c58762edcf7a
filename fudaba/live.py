"""Following a session's game from a camera: the live feed.

:class:`LiveFeed` runs ARCHITECTURE.md's data flow on its own thread — capture
(:mod:`vision.capture`) → table calibration (:mod:`vision.calibrate`) → stabiliser
(:mod:`vision.stabilise`) → tracker (:mod:`scorer.tracker`) — on the tracker's own fork of the
session's match, and hands what the tracker commits to the session
(:meth:`fudaba.session.Session.apply_tracked`, under the session's lock), so the
camera's events, a player's taps and the stone counter's buttons form one record in one order:

* a commit is written with source ``camera`` and evidence ``{"t": seconds, "cost": c}`` (the
  tracker's leading explanation after it, natural-log units), a repair first as
  ``{"type": "undo", "count": n}``;
* an answer (:meth:`answer`) with source ``answer``, the events found for "the table is like this"
  (:meth:`table_is_right`) with source ``table``;
* a player's correction on the dashboard changes the shared match: the tracker starts explaining the
  table afresh from it (:meth:`scorer.tracker.Tracker.resync`).

Claims and settlements wait for a player's confirmation (``TrackerOptions.confirm_stones``) unless
``confirm=False`` (the demo, where nobody may be watching). The feed's view
(:meth:`view`, in the session's snapshot as ``live``) says the camera's state, whether the markers
are found, frames and drops, the tracker's state, its open question with its candidates, and a desync.
The source ending (a video file) is reported as ``ended``; a camera that vanishes as
``reconnecting`` until it is back (:mod:`vision.capture`).
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from fudaba.session import Session
from scorer.match import Match
from scorer.tracker import Tracker, TrackerOptions, Update

READ_TIMEOUT_S = 0.5
"""Longest wait for a frame before the feed looks at the source's state and its stop flag."""


class LiveFeed:
    """A camera following one session's game (module docstring)."""

    def __init__(self, session: Session, source: Any, layout: Any, recogniser: Any, *,
                 confirm: bool = True, calibrate_every: int = 3, name: str = "camera",
                 realtime: bool = False) -> None:
        from vision.calibrate import TableCalibrator
        from vision.stabilise import Stabiliser

        self.session = session
        self.source = source
        self.name = name
        self.tracker = Tracker(session.match, TrackerOptions(confirm_stones=confirm), clock=session.now_s)
        self.calibrator = TableCalibrator(layout.area_mm, every=calibrate_every)
        self.stabiliser = Stabiliser(layout, recogniser)
        self.layout = layout
        self.calibrated = False
        self._seen: tuple[Any, Any] | None = None
        """The last frame and the calibration then (for :meth:`picture`)."""
        self._corners: Any = None
        """Play-area corners a player clicked (frame px), installed at the next frame."""
        self.frames = 0
        self.t = 0.0
        self.camera = "starting"
        self.message = f"opening {name}"
        self.error: str | None = None
        self.realtime = realtime
        """Keep an offline source (a file or folder read frame by frame) to its timestamps: every frame
        is followed, none faster than real time (slower when the machine cannot keep up)."""
        self.behind_s = 0.0
        """With ``realtime``: how far behind real time the last frame was followed (s)."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_view: dict[str, Any] | None = None
        session.attach(self)

    # ------------------------------------------------------------------ thread
    def start(self) -> None:
        """Follow the source on a daemon thread."""
        self._thread = threading.Thread(target=self.run, name=f"fudaba-live-{self.session.id}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop following and close the source."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self) -> None:
        """Follow until the source ends or :meth:`stop`; then commit what leads (the tracker's finish)."""
        started: float | None = None
        try:
            while not self._stop.is_set():
                frame = self.source.read(READ_TIMEOUT_S)
                if frame is not None and self.realtime:
                    now = time.monotonic()
                    started = now - frame.t if started is None else started
                    wait = started + frame.t - now
                    if wait > 0:
                        self._stop.wait(wait)
                    self.behind_s = max(0.0, -wait)
                status = self.source.status() if hasattr(self.source, "status") else None
                if frame is None:
                    if status is not None and status.state in ("ended", "failed"):
                        self.camera, self.message = status.state, status.message
                        break
                    if status is not None:
                        self._set_camera(status.state, status.message)
                    continue
                self._frame(frame, status)
            if self.calibrated and not self._stop.is_set():
                with self.session.lock:
                    self._handle(self.tracker.finish(self.t), "camera")
        except Exception as exc:  # the feed stops; the game and the record stay as they are
            self.camera, self.error = "failed", f"{type(exc).__name__}: {exc}"
            self.message = f"following {self.name} stopped: {self.error}"
        finally:
            self.source.close()
            self.session.refresh()

    def _frame(self, frame: Any, status: Any) -> None:
        self.frames += 1
        self.t = frame.t
        corners, self._corners = self._corners, None
        if corners is not None:
            try:
                cal = self.calibrator.set_manual(corners, frame.t)
            except ValueError as exc:
                self.message = f"the corners were not used: {exc}"
                cal = self.calibrator.update(frame.image, frame.t)
        else:
            cal = self.calibrator.update(frame.image, frame.t)
        if cal is not None and not self.calibrated:
            self.calibrated = True
        self._seen = (frame.image, cal if cal is not None else (self._seen[1] if self._seen else None))
        table = self.stabiliser.push(frame.image, frame.t, cal)
        state = status.state if status is not None else "running"
        msg = status.message if status is not None else ""
        if not self.calibrated:
            state, msg = "running", "looking for the mat's four corner markers"
        self._set_camera(state, msg, publish=table is None)
        if table is None:
            return
        with self.session.lock:
            self._handle(self.tracker.update(table, frame.t), "camera")

    def _set_camera(self, state: str, message: str, publish: bool = True) -> None:
        if (state, message) != (self.camera, self.message):
            self.camera, self.message = state, message
            if publish:
                self._publish_view()

    # ------------------------------------------------------------------ tracker → session
    def _handle(self, upd: Update, source: str, extra: dict[str, Any] | None = None) -> None:
        """Write what ``upd`` did to the session (the caller holds its lock), then show the view."""
        lines: list[dict[str, Any]] = []
        if upd.retracted:
            lines.append({"type": "undo", "count": upd.retracted})
        lines += [ev.to_json() for ev in upd.committed]
        if lines:
            evidence: dict[str, Any] = {"t": round(self.t, 3), **(extra or {})}
            if upd.best is not None and math.isfinite(upd.best.cost):
                evidence["cost"] = round(upd.best.cost, 3)
            self._apply(lines, source, evidence)
        else:
            self._publish_view()

    def _apply(self, lines: list[dict[str, Any]], source: str, evidence: dict[str, Any]) -> None:
        """Hand the tracker's lines to the session; where the session's match no longer takes them
        (a player changed the game between the tracker's decision and now), the tracker follows
        the session's game afresh."""
        from fudaba.session import SessionError

        try:
            self.session.apply_tracked(lines, source, evidence)
        except SessionError as exc:
            self.message = f"the camera's events were not taken: {exc}"
            with self.session.lock:
                self.tracker.resync(self.session.match)
            self._publish_view()

    def _publish_view(self) -> None:
        with self.session.lock:
            view = self.view()
            if view != self._last_view:
                self._last_view = view
                self.session.refresh()

    # ------------------------------------------------------------------ the session's follower
    def changed(self, match: Match) -> None:
        """A player changed the game: explain the table afresh from a fork of ``match``."""
        self.tracker.resync(match)

    def answer(self, choice: int) -> None:
        """Answer the open question with candidate ``choice`` (ValueError when there is none)."""
        q = self.tracker.question
        if q is None:
            raise ValueError("there is no open question")
        if not 0 <= choice < len(q.candidates):
            raise ValueError(f"choose 0-{len(q.candidates) - 1}, not {choice}")
        chosen = q.candidates[choice]
        events = self.tracker.choose(choice)
        lines: list[dict[str, Any]] = [{"type": "undo", "count": chosen.retract}] if chosen.retract else []
        lines += [ev.to_json() for ev in events]
        evidence = {"t": round(self.t, 3), "question": q.text, "choice": choice,
                    "candidates": [c.describe() for c in q.candidates]}
        if lines:
            self._apply(lines, "answer", evidence)
        else:
            self._publish_view()

    def table_is_right(self) -> None:
        """The table as last seen is right: commit the events that lead to it (or ask, or say why not)."""
        table = self.tracker.last_table
        if table is None:
            raise ValueError("the camera has not seen a settled table yet")
        self._handle(self.tracker.assert_table(table, self.t), "table")

    def picture(self) -> bytes | None:
        """The table now as a JPEG: top-down, zones and cards drawn (:mod:`vision.annotate`); None
        before the first frame."""
        from vision.annotate import jpeg, top_down

        seen = self._seen
        if seen is None:
            return None
        return jpeg(top_down(seen[0], seen[1], self.layout.zones, self.stabiliser.cards))

    def frame_picture(self, width: int = 960) -> tuple[bytes, tuple[int, int]] | None:
        """The camera's last frame as a JPEG ``width`` pixels wide, and the frame's own size (px);
        None before the first frame. Where a player clicks the play area's corners."""
        import cv2

        from vision.annotate import jpeg

        seen = self._seen
        if seen is None:
            return None
        image = seen[0]
        h, w = image.shape[:2]
        small = cv2.resize(image, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
        return jpeg(small), (w, h)

    def set_corners(self, corners: list[list[float]]) -> None:
        """Calibrate by hand: the play area's four corners in frame pixels, clockwise from the
        top-left (the mat's marker 0); used from the next frame until the markers take over.
        ValueError for anything but four points inside the frame."""
        import numpy as np

        quad = np.asarray(corners, dtype=np.float64)
        if quad.shape != (4, 2) or not np.isfinite(quad).all():
            raise ValueError("give the play area's four corners as [x, y] pairs, clockwise from the top-left")
        seen = self._seen
        if seen is not None:
            h, w = seen[0].shape[:2]
            if (quad < 0).any() or (quad[:, 0] > w).any() or (quad[:, 1] > h).any():
                raise ValueError(f"the corners must lie inside the {w} x {h} frame")
        self._corners = quad

    def view(self) -> dict[str, Any]:
        """The feed as plain JSON (module docstring)."""
        q, d = self.tracker.question, self.tracker.desync
        return {
            "camera": self.camera, "message": self.message, "source": self.name, "calibrated": self.calibrated,
            "frames": self.frames, "t": round(self.t, 1), "error": self.error,
            "behind_s": round(self.behind_s, 1),
            "calibration": getattr(self.calibrator.current, "source", None) if self.calibrated else None,
            "state": "question" if q is not None else "out-of-sync" if d is not None else "following",
            "question": None if q is None else {"text": q.text, "kind": q.kind,
                                                "candidates": [c.describe() for c in q.candidates],
                                                "options": [{"retract": c.retract, "events": [e.to_json() for e in c.events]}
                                                            for c in q.candidates]},
            "desync": None if d is None else {"text": d.text, "differences": list(d.differences)},
        }

