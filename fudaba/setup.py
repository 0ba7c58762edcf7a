"""What the dashboard's setup needs from the camera side: a look through a camera before a game,
a camera game started from the browser, and the printable mat.

:class:`TableSetup` is handed to the web app (``WebConfig.setup``), so that ``web`` never imports
``vision``:

* :meth:`TableSetup.look` opens a source (a webcam number, a stream URL, a video file or an image
  folder), reads a few frames (up to :data:`LOOK_FRAMES`, at most :data:`LOOK_SECONDS`) and says what
  it sees: the frame size, the calibration markers found (ids 0-3 of the mat) and a JPEG of the last
  frame with the markers outlined (green: found) — the preview and the markers' status;
* :meth:`TableSetup.preview` starts the live preview and zone check of a source for a game
  (:mod:`fudaba.preview`: the mat found, the game's zones drawn, the cards read in each), one at a
  time, stopped when a game takes the camera;
* :meth:`TableSetup.start` starts a camera game (:func:`fudaba.serve.start_camera`), with a deck
  profile of the player's own deck when one is named;
* :meth:`TableSetup.enrol` enrols a deck from a photo of it laid out on the mat's grid sheet (as
  ``fudaba enrol``: a deck profile, its head also fitted on practice scenes rendered with the
  photographed faces, about a minute on two cores; with the ``train`` extra, optionally with the
  classifier fine-tuned on the deck as ``fudaba enrol --fine-tune`` does, in its own process) on a
  background thread; :meth:`TableSetup.profiles`
  lists the profiles made (``profiles/NAME.npz`` beside the history) and the enrolments under way;
* :meth:`TableSetup.mat` writes the printable mat (``fudaba mat``) and returns the PDF's bytes.
"""

from __future__ import annotations

import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LOOK_FRAMES = 8
"""Frames a look reads (markers are searched on each; the last is shown)."""
LOOK_SECONDS = 4.0
"""Longest a look waits for those frames."""
MARKER_IDS = (0, 1, 2, 3)
MAX_FINE_TUNE_MINUTES = 120
"""Longest fine-tune the page may ask for (min)."""
PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _-]{0,39}\Z")
"""A deck profile's name: letters, digits, spaces, ``_`` and ``-``, at most 40."""


@dataclass(frozen=True)
class Look:
    """What a source shows now."""

    ok: bool
    message: str
    size: tuple[int, int] | None = None
    markers: tuple[int, ...] = ()
    """Mat markers (0-3) seen in at least one frame."""
    jpeg: bytes | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form (without the picture)."""
        return {"ok": self.ok, "message": self.message, "size": list(self.size) if self.size else None,
                "markers": list(self.markers), "missing": [m for m in MARKER_IDS if m not in self.markers]}


class TableSetup:
    """The camera side of the dashboard's setup (module docstring)."""

    def __init__(self, profiles_dir: str | Path | None = None, practice_scenes: int | None = None) -> None:
        self.feeds: list[Any] = []
        """The live feeds of the camera games started here (stopped by :meth:`close`)."""
        self.profiles_dir = Path(profiles_dir) if profiles_dir is not None else None
        """Where enrolled deck profiles are kept (None: enrolment is not offered)."""
        self.practice_scenes = practice_scenes
        """Practice scenes per enrolment (None: ``fudaba enrol``'s default)."""
        self.jobs: dict[str, dict[str, Any]] = {}
        """Enrolments by profile name: ``state`` (running, done, failed) and ``message``."""
        self.current_preview: Any = None
        """The live preview running (:meth:`preview`), or None."""
        self._lock = threading.Lock()

    def close(self) -> None:
        """Stop the preview and following every camera game started here."""
        self.stop_preview()
        for feed in self.feeds:
            feed.stop()

    def preview(self, source: str, game: str, players: int, deck: str | None = None) -> Any:
        """Start the live preview and zone check of ``source`` for ``game`` with ``players`` seats
        (:class:`fudaba.preview.Preview`), in place of the one running; ValueError says what is wrong."""
        from fudaba.preview import Preview

        self.stop_preview()
        with self._lock:
            self.current_preview = Preview(source, game, players, deck)
            return self.current_preview

    def stop_preview(self) -> None:
        """Stop the live preview, if one runs (its camera is free again)."""
        with self._lock:
            preview, self.current_preview = self.current_preview, None
        if preview is not None:
            preview.stop()

    def look(self, source: str) -> Look:
        """Open ``source``, read a few frames, find the markers; never raises for a bad source."""
        import cv2

        from fudaba.preview import markers_drawn
        from vision.calibrate import find_markers
        from vision.capture import CaptureError, open_source

        try:
            src = open_source(source)
        except (CaptureError, ValueError) as exc:
            return Look(False, str(exc))
        seen: set[int] = set()
        last = None
        corners: dict[int, Any] = {}
        try:
            end = time.monotonic() + LOOK_SECONDS
            for _ in range(LOOK_FRAMES):
                frame = src.read(max(0.05, end - time.monotonic()))
                if frame is None:
                    break
                last = frame.image
                found = {k: v for k, v in find_markers(last).items() if k in MARKER_IDS}
                seen.update(found)
                corners = found
                if time.monotonic() > end:
                    break
        finally:
            src.close()
        if last is None:
            return Look(False, f"{source}: no picture came (is it in use, or switched off?)")
        shown = markers_drawn(last, corners)
        ok, data = cv2.imencode(".jpg", shown, [cv2.IMWRITE_JPEG_QUALITY, 80])
        markers = tuple(sorted(seen))
        if len(markers) == 4:
            message = "all four markers of the mat are in view"
        else:
            missing = ", ".join(str(m) for m in MARKER_IDS if m not in markers)
            message = f"markers {missing} not seen: the whole mat must be in view, flat and lit"
        return Look(True, message, (last.shape[1], last.shape[0]), markers, data.tobytes() if ok else None)

    def start(self, sessions: Any, source: str, game: str, names: list[str], ruleset: str | None,
              deck: str | None = None, confirm: bool = True, profile: str | None = None) -> Any:
        """A camera game (a new session followed from ``source``, recognised with the deck profile
        ``profile`` when given); ValueError says what is wrong."""
        from fudaba.serve import start_camera
        from vision.follow_settings import FollowSettings

        path = None
        if profile:
            path = self._profile_path(profile)
            if not path.is_file():
                raise ValueError(f"there is no deck profile {profile!r}")
        self.stop_preview()  # a webcam opens once: the game takes it
        settings = FollowSettings(game, len(names), names=tuple(names), ruleset=ruleset, deck=deck,
                                  profile=str(path) if path else None, confirm=confirm)
        session, feed = start_camera(sessions, source, settings)
        self.feeds.append(feed)
        return session

    def _profile_path(self, name: str) -> Path:
        if self.profiles_dir is None:
            raise ValueError("deck profiles are not kept on this server")
        if not PROFILE_NAME.match(name):
            raise ValueError("a profile's name is letters, digits, spaces, _ and -, at most 40")
        return self.profiles_dir / f"{name}.npz"

    def profiles(self) -> dict[str, Any]:
        """The profiles made (name, deck) and the enrolments under way or failed."""
        made = []
        if self.profiles_dir is not None and self.profiles_dir.is_dir():
            for p in sorted(self.profiles_dir.glob("*.npz")):
                deck = (self.profiles_dir / f"{p.stem}.deck").read_text().strip() \
                    if (self.profiles_dir / f"{p.stem}.deck").is_file() else "?"
                made.append({"name": p.stem, "deck": deck})
        with self._lock:
            jobs = {k: dict(v) for k, v in self.jobs.items()}
        return {"profiles": made, "enrolments": jobs, "offered": self.profiles_dir is not None,
                "fine_tune": self.profiles_dir is not None and self.fine_tune_available()}

    @staticmethod
    def fine_tune_available() -> bool:
        """Whether enrolment can also fine-tune the classifier (the ``train`` extra: ultralytics, torch)."""
        import importlib.util

        return importlib.util.find_spec("ultralytics") is not None and importlib.util.find_spec("torch") is not None

    def enrol(self, name: str, deck: str, photo: bytes, fine_tune: bool = False, minutes: float | None = None) -> None:
        """Enrol deck ``deck`` (``hanafuda`` or ``playing``) as profile ``name`` from a grid photo
        (its bytes), on a background thread; with ``fine_tune`` the classifier is also fine-tuned on
        the deck for ``minutes`` (``fudaba enrol --fine-tune``, run as its own process). ValueError
        for a bad name, deck, picture or training time, or fine-tuning without the ``train`` extra."""
        import cv2
        import numpy as np

        path = self._profile_path(name)
        if deck not in ("hanafuda", "playing"):
            raise ValueError(f"unknown deck {deck!r}: hanafuda or playing")
        if fine_tune and not self.fine_tune_available():
            raise ValueError("fine-tuning needs the training extra (ultralytics and torch): "
                             "pip install 'fudaba[train]', or enrol without fine-tuning")
        if minutes is not None and not 0 < minutes <= MAX_FINE_TUNE_MINUTES:
            raise ValueError(f"a fine-tune of {minutes:g} min: give 0-{MAX_FINE_TUNE_MINUTES} minutes")
        image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError("the photo is not a picture fudaba can read (JPEG or PNG)")
        with self._lock:
            if self.jobs.get(name, {}).get("state") == "running":
                raise ValueError(f"{name!r} is being enrolled already")
            self.jobs[name] = {"state": "running", "deck": deck, "message": "reading the grid, then practice scenes"}
        assert self.profiles_dir is not None
        self.profiles_dir.mkdir(parents=True, exist_ok=True)
        photo_path = self.profiles_dir / f"{name}.png"
        cv2.imwrite(str(photo_path), image)
        if fine_tune:
            self.jobs[name]["message"] = "reading the grid, then fine-tuning the classifier on your deck"
            target, args = self._fine_tune, (name, deck, photo_path, path, minutes)
        else:
            target, args = self._enrol, (name, deck, photo_path, path)
        threading.Thread(target=target, args=args, daemon=True, name=f"fudaba-enrol-{name}").start()

    def fine_tune_command(self, deck: str, photo: Path, out: Path, minutes: float | None) -> list[str]:
        """The ``fudaba enrol --fine-tune`` command an enrolment from the page runs (resumable:
        the same command continues a fine-tune cut short)."""
        cmd = [sys.executable, "-m", "fudaba", "enrol", "--deck", deck, str(photo), "--fine-tune", "--out", str(out)]
        if minutes is not None:
            cmd += ["--minutes", f"{minutes:g}"]
        if self.practice_scenes is not None:
            cmd += ["--practice", str(self.practice_scenes)]
        return cmd

    def _fine_tune(self, name: str, deck: str, photo: Path, out: Path, minutes: float | None) -> None:
        """Run :meth:`fine_tune_command`, its last line of output as the enrolment's message."""
        import subprocess

        lines: list[str] = []
        try:
            proc = subprocess.Popen(self.fine_tune_command(deck, photo, out, minutes), stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, bufsize=1)
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.strip():
                    lines.append(line.strip())
                    with self._lock:
                        self.jobs[name] = {"state": "running", "deck": deck, "message": lines[-1][:300]}
            code = proc.wait()
            if code == 0 and out.is_file():
                (out.parent / f"{name}.deck").write_text(deck + "\n")
                state = {"state": "done", "deck": deck, "message": f"profile {name} ready, with its own classifier"}
            else:
                why = lines[-1] if lines else f"exit status {code}"
                state = {"state": "failed", "deck": deck, "message": why[:300]}
        except OSError as exc:
            state = {"state": "failed", "deck": deck, "message": f"{type(exc).__name__}: {exc}"}
        with self._lock:
            self.jobs[name] = state

    def _enrol(self, name: str, deck: str, photo: Path, out: Path) -> None:
        try:
            from vision.recognise.enrol import enrol
            from vision.recognise.recogniser import Recogniser

            profile, report = enrol(Recogniser(deck), [photo], practice_scenes=self.practice_scenes)
            profile.save(out)
            (out.parent / f"{name}.deck").write_text(deck + "\n")
            cards = sum(r.cards for r in report)
            state = {"state": "done", "deck": deck, "message": f"{cards} cards read; profile {name} ready"}
        except Exception as exc:  # the reason goes to the page; nothing else is lost
            state = {"state": "failed", "deck": deck, "message": f"{type(exc).__name__}: {exc}"}
        with self._lock:
            self.jobs[name] = state

    def mat(self, game: str, players: int, paper: str) -> bytes:
        """The printable mat's PDF (ValueError for a bad game, seat count or paper)."""
        from vision.mat import mat_command

        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "mat.pdf"
            mat_command(game, players, paper, None, str(out))
            return out.read_bytes()
