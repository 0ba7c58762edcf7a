"""A camera seen before a game: the setup's live preview and zone check.

:class:`Preview` reads a source on its own thread (every frame; a picture at most ``fps`` times a
second), finds
the mat (:mod:`vision.calibrate`), and reads the cards the chosen game's zones hold
(:mod:`vision.stabilise` with the game's recogniser), as a camera game would. Its picture
(:meth:`Preview.picture`, for an MJPEG stream) is the camera's frame with the mat's markers outlined
until the mat is found, then the top-down play area with every zone outlined and named and every card
named where it lies (:mod:`vision.annotate`): lay a card in each zone and see it named there before
the game starts. :meth:`Preview.status` says the same in words: the markers found, and each zone's
cards (face-up names, face-down count). For playing cards it also says how tall a card's corner
index (rank over suit) shows in the camera's picture where the mat is seen in least detail
(:func:`index_px`), against the :data:`~vision.recognise.index_reader.INDEX_PX_NEEDED` the corner
reader needs (``index_small``: the page then asks for 1920 × 1080 or a closer camera).

A preview that nobody has asked for a picture or a status for :data:`IDLE_S` seconds stops and
closes its source (a webcam is free again for the game).
"""

from __future__ import annotations

import threading
import time
from typing import Any

IDLE_S = 15.0
"""A preview nobody watched for this long stops (s)."""
READ_TIMEOUT_S = 0.5
"""Longest wait for a frame before the thread looks at its stop flag (s)."""
MARKER_IDS = (0, 1, 2, 3)


class Preview:
    """One source looked at before a game (module docstring)."""

    def __init__(self, source: str, game: str, players: int, deck: str | None = None,
                 fps: float = 4.0) -> None:
        from vision.calibrate import TableCalibrator
        from vision.capture import open_source
        from vision.recognise.recogniser import Recogniser
        from vision.replay import resolve

        setup = resolve(game, players, None, {}, deck)  # ValueError (ReplayError) for a bad game
        self.source_name = source
        self.game, self.players, self.deck = setup.game, setup.players, setup.deck
        self.layout = setup.layout
        self._recogniser = Recogniser(setup.deck)
        self.calibrator = TableCalibrator(self.layout.area_mm, every=3)
        self._stabiliser: Any = None
        self.source = open_source(source, pace=True)  # ValueError (CaptureError) for a bad source
        self.interval = 1.0 / max(0.5, fps)
        self.frames = 0
        self.markers: tuple[int, ...] = ()
        self.calibrated = False
        self.zones: dict[str, dict[str, Any]] = {}
        self.index_px: float | None = None
        self.state = "starting"
        self.message = f"opening {source}"
        self._jpeg: bytes | None = None
        self._seq = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._watched = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="fudaba-preview", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ for the web
    def picture(self, after: int = 0, timeout: float = 2.0) -> tuple[int, bytes | None]:
        """The picture numbered after ``after`` (waiting up to ``timeout`` s for one): its number and
        JPEG bytes; the latest (or None) when none came."""
        self._watched = time.monotonic()
        with self._cond:
            self._cond.wait_for(lambda: self._seq > after or self._stop.is_set(), timeout)
            return self._seq, self._jpeg

    def status(self) -> dict[str, Any]:
        """The preview in words: state, markers found and missing, whether the mat is found, and
        each zone's cards (``up``: names, likeliest first; ``down``: face-down count)."""
        self._watched = time.monotonic()
        return {"source": self.source_name, "game": self.game, "players": self.players, "deck": self.deck,
                "state": self.state, "message": self.message, "frames": self.frames,
                "markers": list(self.markers), "missing": [m for m in MARKER_IDS if m not in self.markers],
                "calibrated": self.calibrated, "zones": self.zones, **self._index_status()}

    def _index_status(self) -> dict[str, Any]:
        """For playing cards: ``index_px`` (None before the mat is found), ``index_px_needed``, and
        ``index_small`` (the index shows smaller than the reader needs)."""
        if self.deck != "playing":
            return {}
        from vision.recognise.index_reader import INDEX_PX_NEEDED

        px = self.index_px
        return {"index_px": None if px is None else round(px, 1), "index_px_needed": INDEX_PX_NEEDED,
                "index_small": px is not None and px < INDEX_PX_NEEDED}

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading and close the source."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    # ------------------------------------------------------------------ thread
    def _run(self) -> None:
        last = 0.0
        try:
            while not self._stop.is_set():
                if time.monotonic() - self._watched > IDLE_S:
                    self.state, self.message = "stopped", "nobody was watching"
                    break
                frame = self.source.read(READ_TIMEOUT_S)
                status = self.source.status() if hasattr(self.source, "status") else None
                if frame is None:
                    if status is not None and status.state in ("ended", "failed"):
                        self.state, self.message = status.state, status.message
                        break
                    continue
                now = time.monotonic()
                draw = now - last >= self.interval
                if draw:
                    last = now
                self._frame(frame, draw)
        except Exception as exc:  # the preview stops; say why
            self.state, self.message = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            self.source.close()
            self._stop.set()
            with self._cond:
                self._cond.notify_all()

    def _frame(self, frame: Any, draw: bool) -> None:
        """Every frame goes to the calibration (markers searched every third frame, as a camera game
        does, and on each frame drawn) and the stabiliser (which compares frame with frame); a
        picture is drawn only when ``draw``."""
        from vision.annotate import jpeg, top_down
        from vision.calibrate import find_markers
        from vision.stabilise import Stabiliser

        self.frames += 1
        image = frame.image
        found: dict[int, Any] = {}
        if draw:  # the markers are searched once: for the picture and the calibration alike
            found = {k: v for k, v in find_markers(image).items() if k in MARKER_IDS}
            cal = self.calibrator.update_markers(found, frame.t)
        else:
            cal = self.calibrator.update(image, frame.t)
        self.calibrated = cal is not None
        if cal is not None:
            if self._stabiliser is None:
                self._stabiliser = Stabiliser(self.layout, self._recogniser)
            self._stabiliser.push(image, frame.t, cal)
        if not draw:
            return
        self.markers = tuple(sorted(found))
        if cal is None:
            picture = markers_drawn(image, found)
            missing = ", ".join(str(m) for m in MARKER_IDS if m not in found)
            self.message = f"markers {missing} not seen: the whole mat must be in view, flat and lit"
            self.state = "looking"
        else:
            cards = self._stabiliser.cards
            self.zones = _zones(self.layout, cards)
            picture = top_down(image, cal, self.layout.zones, cards)
            self.message = "the mat is found: lay a card in each zone to check it is named there"
            if self.deck == "playing":
                self.index_px = index_px(cal.table_to_frame, [z.center_mm for z in self.layout.zones])
            self.state = "running"
        data = jpeg(picture)
        with self._cond:
            self._jpeg = data
            self._seq += 1
            self._cond.notify_all()


def markers_drawn(image: Any, found: dict[int, Any]) -> Any:
    """``image`` at most 800 px wide with the markers found outlined in green and numbered."""
    import cv2

    shown = image.copy()
    for k, c in found.items():
        pts = c.reshape(-1, 1, 2).astype(int)
        cv2.polylines(shown, [pts], True, (60, 200, 60), 4)
        x, y = pts[0, 0]
        cv2.putText(shown, str(k), (int(x), int(y) - 8), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (60, 200, 60), 3)
    scale = min(1.0, 800 / shown.shape[1])
    if scale < 1:
        shown = cv2.resize(shown, (800, int(shown.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    return shown


def index_px(table_to_frame: Any, points_mm: Any) -> float:
    """How tall (camera px) a playing card's corner index shows at the worst of ``points_mm`` (table
    mm; the zones' centres): the index is :data:`~vision.recognise.index_reader.INDEX_FRACTION` of
    the card's 88-mm long side, seen where and how the camera gives fewest pixels per mm."""
    from vision.calibrate import px_per_mm_at
    from vision.recognise.index_reader import INDEX_FRACTION, PLAYING_LONG_MM

    return INDEX_FRACTION * PLAYING_LONG_MM * min(px_per_mm_at(table_to_frame, x, y)[1] for x, y in points_mm)


def _zones(layout: Any, cards: Any) -> dict[str, dict[str, Any]]:
    """Each zone of ``layout`` with the cards the stabiliser holds there: face-up cards by their
    likeliest name with its probability, face-down ones counted."""
    out: dict[str, dict[str, Any]] = {z.name: {"up": [], "down": 0} for z in layout.zones}
    for card in cards:
        if card.zone not in out or card.inferred:
            continue
        if card.face_up and card.name is not None:
            out[card.zone]["up"].append([card.name, round(card.confidence, 2)])
        else:
            out[card.zone]["down"] += 1
    return out
