"""Frames from any source with timestamps, for the live tracker and the offline replay.

The first step of ARCHITECTURE.md "Data flow".

A source is named by one string, as given on the command line (``parse_spec``):

- ``"0"``, ``"1"``, … (or an ``int``) or ``/dev/videoN``: a webcam, through ``cv2.VideoCapture``;
- ``scheme://…`` (``http://phone:8080/video`` of a phone IP-camera app, ``rtsp://…``): a network
  stream, through OpenCV's FFMPEG backend with 5 s open and read timeouts;
- an existing folder: its ``*.jpg``/``*.jpeg``/``*.png`` images (suffix case ignored), in natural
  order (``f2.png`` before ``f10.png``; otherwise by name);
- any other existing file: a video file that OpenCV can open (``.mp4``, ``.avi``, …).

Units: times are seconds (``float``), frame indices count from 0, sizes are ``(width, height)``
pixels, images are BGR ``uint8`` arrays of shape ``(height, width, 3)`` (grey and BGRA frames are
converted).

Timestamps (``Frame.t``), seconds since the source started:

- video file: ``CAP_PROP_POS_MSEC`` of the frame, less that of the first frame, when it is sane
  (finite and later than the previous frame's); otherwise the previous frame's ``t`` plus
  ``1 / fps``. With ``fps`` given to ``open_source`` it is always ``index / fps``.
- image folder: ``index / fps`` (``fps`` default 15); or, when the folder holds ``times.txt``,
  the seconds written there: one line ``NAME SECONDS`` for every image (blank lines and lines
  starting with ``#`` ignored), not decreasing in image order.
- webcam, stream: ``time.monotonic()`` when the frame was read, less the time the source opened.
- a paced file or folder: its timestamps as above (playback keeps to them).

Offline sources (file, folder) deliver every frame, in order, nothing dropped, on the caller's
thread: the same file always gives the same frames and times, which the replay relies on.

Live sources (webcam, stream, and a file or folder opened with ``pace=True``, played at real
time) read on a daemon thread that never waits for the consumer: it keeps only the newest frame
and ``read`` returns that. Frames the consumer never took are counted in ``Frame.dropped`` of the
next frame it gets (``index`` minus the previous delivered ``index`` minus 1) and in
``Source.dropped_total``; a frame older than one already delivered is never delivered.

A webcam or stream that gives no frame for ``LiveTiming.stall`` seconds has vanished: the reader
releases it, reports ``"reconnecting"``, and tries to reopen it after ``LiveTiming.backoff_first``
seconds, doubling up to ``LiveTiming.backoff_cap`` between tries, until frames return (then
``"running"`` again and ``reconnects`` counts one) or the source is closed; a reopened source
that gives no frame for ``stall`` seconds is released and tried again. With ``reconnect=False`` it
reports ``"failed"`` instead. A file or folder that ends is ``"ended"``, not an error; an image of
a folder that cannot be read raises ``CaptureError`` from ``read`` (``"failed"`` when paced).
``on_status`` is called with the new ``SourceStatus`` whenever the state or its message changes
(from the reader thread for live sources; exceptions it raises are logged).

``read(timeout)`` on a live source waits for a frame newer than the last one delivered, up to
``timeout`` seconds (``None``: until one comes or the source ends); it returns ``None`` on timeout
and once the source has ended, failed or been closed (``status()`` tells which). ``close()`` stops
the reader (waiting up to ``LiveTiming.join`` seconds for it) and releases the capture; the reader
thread releases it itself if a read was still in progress.

A source that cannot be opened (no such path, an empty folder, a file OpenCV cannot read, a camera
or stream that does not open) raises ``CaptureError`` (a ``ValueError``) naming the source and what
is wrong.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

import cv2
import numpy as np

log = logging.getLogger(__name__)

DEFAULT_FPS = 15.0
"""Frame rate (frames per second) assumed where a source states none (folders, odd files)."""

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
"""Image files a folder source reads (compared in lower case)."""

TIMES_FILE = "times.txt"
"""Optional file in an image folder: ``NAME SECONDS`` per image."""

STREAM_TIMEOUT_MS = 5000
"""Open and read timeout (ms) the default opener gives OpenCV's FFMPEG backend for stream URLs."""

State = Literal["running", "reconnecting", "ended", "failed"]
Kind = Literal["camera", "url", "file", "folder"]


class CaptureError(ValueError):
    """A source cannot be opened or read; the message names the source and what is wrong."""


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One frame as delivered to the consumer."""

    image: np.ndarray
    """BGR ``uint8`` pixels, shape ``(height, width, 3)``."""
    t: float
    """Seconds since the source started (see the module docstring for each kind of source)."""
    index: int
    """Frame number as read from the source, from 0; frames dropped are counted too."""
    dropped: int
    """Frames read but not delivered since the previous delivered frame (0 for offline sources)."""


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """Where a source stands, as ``Source.status()`` returns it and ``on_status`` receives it."""

    state: State
    """``"running"``, ``"reconnecting"`` (a live source vanished), ``"ended"`` or ``"failed"``."""
    message: str
    """One line for people: what happened, naming the source."""
    frames_read: int
    """Frames read from the source so far (delivered or dropped)."""
    dropped_total: int
    """Frames dropped so far (the sum of ``Frame.dropped`` over delivered frames)."""
    reconnects: int
    """Times a vanished live source came back."""


@dataclass(frozen=True, slots=True)
class LiveTiming:
    """Timing of live sources, in seconds (tests shorten them)."""

    stall: float = 2.0
    """No frame for this long: the camera or stream has vanished."""
    backoff_first: float = 0.5
    """Wait before the first try to reopen a vanished source."""
    backoff_cap: float = 5.0
    """Longest wait between tries (the wait doubles from ``backoff_first`` up to this)."""
    join: float = 2.0
    """How long ``close()`` waits for the reader thread to finish."""

    def backoff(self, attempt: int) -> float:
        """Seconds to wait before reopen try ``attempt`` (0 for the first) of one outage."""
        return min(self.backoff_cap, self.backoff_first * 2.0 ** min(attempt, 64))


@dataclass(frozen=True, slots=True)
class SourceSpec:
    """A source string, classified."""

    kind: Kind
    """``"camera"``, ``"url"``, ``"file"`` or ``"folder"``."""
    target: str | int
    """What the opener gets: the camera index or device path, the URL, or the path."""
    name: str
    """How messages name it (a URL's password is masked)."""


class VideoCaptureLike(Protocol):
    """The part of ``cv2.VideoCapture`` a source uses (tests pass fakes through ``opener``)."""

    def isOpened(self) -> bool: ...  # noqa: N802 (OpenCV's name)

    def read(self) -> tuple[bool, np.ndarray | None]: ...

    def get(self, prop_id: int) -> float: ...

    def release(self) -> None: ...


Opener = Callable[[str | int], VideoCaptureLike]

_USAGE = (
    "a source is a camera index such as 0, a video file, an image folder, "
    "or a stream URL such as http://phone:8080/video"
)


def _mask_password(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def parse_spec(spec: str | int) -> SourceSpec:
    """Classify a source string (module docstring); raise ``CaptureError`` for no such path."""
    if isinstance(spec, bool) or not isinstance(spec, (str, int)):
        raise CaptureError(f"source {spec!r}: expected a string or a camera index; {_USAGE}")
    if isinstance(spec, int):
        if spec < 0:
            raise CaptureError(f"camera {spec}: a camera index is 0 or more")
        return SourceSpec("camera", spec, f"camera {spec}")
    text = spec.strip()
    if not text:
        raise CaptureError(f"empty source; {_USAGE}")
    if text.isdigit():
        return SourceSpec("camera", int(text), f"camera {int(text)}")
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://.+", text):
        return SourceSpec("url", text, f"stream {_mask_password(text)}")
    if re.fullmatch(r"/dev/video\d+", text):
        return SourceSpec("camera", text, f"camera {text}")
    path = Path(text).expanduser()
    if path.is_dir():
        return SourceSpec("folder", str(path), f"image folder {path}")
    if path.is_file():
        return SourceSpec("file", str(path), f"video file {path}")
    raise CaptureError(f"no such file or folder: {text!r}; {_USAGE}")


def default_opener(target: str | int) -> cv2.VideoCapture:
    """Open a camera index, device path, URL or video file with OpenCV."""
    if isinstance(target, str) and "://" in target:
        params = [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
            cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
        ]
        return cv2.VideoCapture(target, cv2.CAP_FFMPEG, params)
    return cv2.VideoCapture(target)


def _sane_fps(value: float) -> float | None:
    return value if math.isfinite(value) and 0.0 < value <= 1000.0 else None


def _bgr(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def _size(image: np.ndarray) -> tuple[int, int]:
    return int(image.shape[1]), int(image.shape[0])


def _natural_key(name: str) -> tuple[list[str | int], str]:
    parts = re.split(r"(\d+)", name.lower())
    return [int(p) if p.isdigit() else p for p in parts], name


def _release(cap: VideoCaptureLike) -> None:
    try:
        cap.release()
    except Exception:  # a capture that fails to release must not stop the caller
        log.exception("releasing a capture failed")


def _read(cap: VideoCaptureLike) -> np.ndarray | None:
    try:
        ok, image = cap.read()
    except cv2.error:
        return None
    if not ok or image is None or image.size == 0:
        return None
    return _bgr(image)


# Frame readers: offline frames with their timestamps, one after another, on the caller's thread.


class _VideoReader:
    def __init__(self, spec: SourceSpec, fps: float | None, opener: Opener) -> None:
        self.name = spec.name
        self._cap = opener(spec.target)
        if not self._cap.isOpened():
            _release(self._cap)
            raise CaptureError(
                f"{spec.name}: OpenCV cannot open it (not a video, or its codec is missing)"
            )
        stated = _sane_fps(self._cap.get(cv2.CAP_PROP_FPS))
        self.fps = fps if fps is not None else (stated or DEFAULT_FPS)
        self._fixed = fps is not None
        self._first_msec: float | None = None
        self._t = 0.0
        self._count = 0
        self.size: tuple[int, int] | None = None
        w, h = self._cap.get(cv2.CAP_PROP_FRAME_WIDTH), self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
        if w > 0 and h > 0:
            self.size = (int(w), int(h))

    def next(self) -> tuple[np.ndarray, float] | None:
        image = _read(self._cap)
        if image is None:
            return None
        index = self._count
        self._count += 1
        if self._fixed:
            t = index / self.fps
        else:
            t = self._t + 1.0 / self.fps if index else 0.0
            msec = self._cap.get(cv2.CAP_PROP_POS_MSEC)
            if math.isfinite(msec) and msec >= 0.0:
                if index == 0:
                    self._first_msec = msec
                elif self._first_msec is not None and (msec - self._first_msec) / 1000.0 > self._t:
                    t = (msec - self._first_msec) / 1000.0
        self._t = t
        return image, t

    def ended(self) -> str:
        return f"{self.name}: ended after {self._count} frames"

    def close(self) -> None:
        _release(self._cap)


class _FolderReader:
    def __init__(self, spec: SourceSpec, fps: float | None) -> None:
        self.name = spec.name
        folder = Path(str(spec.target))
        self._paths = sorted(
            (p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
            key=lambda p: _natural_key(p.name),
        )
        if not self._paths:
            raise CaptureError(f"{spec.name}: no images in it (looked for *.jpg, *.jpeg, *.png)")
        self.fps = fps if fps is not None else DEFAULT_FPS
        times_path = folder / TIMES_FILE
        self._times = self._read_times(times_path) if times_path.is_file() else None
        self._count = 0
        self._closed = False
        self.size: tuple[int, int] | None = None

    def _read_times(self, path: Path) -> list[float]:
        given: dict[str, float] = {}
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            where = f"{path}:{number}"
            if len(fields) != 2:
                raise CaptureError(f"{where}: expected 'NAME SECONDS', got {line.strip()!r}")
            try:
                seconds = float(fields[1])
            except ValueError:
                raise CaptureError(f"{where}: {fields[1]!r} is not a number of seconds") from None
            if not math.isfinite(seconds):
                raise CaptureError(f"{where}: {fields[1]!r} is not a number of seconds")
            given[fields[0]] = seconds
        missing = [p.name for p in self._paths if p.name not in given]
        if missing:
            more = " …" if len(missing) > 5 else ""
            raise CaptureError(f"{path}: no time for {', '.join(missing[:5])}{more}")
        times = [given[p.name] for p in self._paths]
        for previous, later, p in zip(times, times[1:], self._paths[1:], strict=False):
            if later < previous:
                raise CaptureError(
                    f"{path}: the time of {p.name} ({later} s) is before that of the image"
                    f" before it ({previous} s)"
                )
        return times

    def next(self) -> tuple[np.ndarray, float] | None:
        if self._closed or self._count >= len(self._paths):
            return None
        index = self._count
        path = self._paths[index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CaptureError(f"{self.name}: cannot read image {path.name}")
        self._count += 1
        t = self._times[index] if self._times is not None else index / self.fps
        return image, t

    def ended(self) -> str:
        return f"{self.name}: ended after {self._count} images"

    def close(self) -> None:
        self._closed = True


_FrameReader = _VideoReader | _FolderReader


class Source(ABC):
    """Frames from one source: ``read()``, iteration, ``status()``, ``close()``, a context manager.

    Made by ``open_source``. Attributes: ``kind`` and ``name`` (``SourceSpec``), ``live``, ``fps``
    (nominal frames per second), ``size`` (``(width, height)`` once known), ``dropped_total``."""

    def __init__(
        self,
        spec: SourceSpec,
        *,
        live: bool,
        fps: float,
        on_status: Callable[[SourceStatus], None] | None,
    ) -> None:
        self.kind: Kind = spec.kind
        self.name = spec.name
        self.live = live
        self.fps = fps
        self.size: tuple[int, int] | None = None
        self.dropped_total = 0
        self._on_status = on_status
        self._lock = threading.Lock()
        self._state: State = "running"
        self._message = f"{spec.name}: opened"
        self._frames_read = 0
        self._reconnects = 0

    @abstractmethod
    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame; ``None`` at the end (or after ``timeout`` seconds on a live source)."""

    @abstractmethod
    def close(self) -> None:
        """Stop reading and release the source; reading afterwards gives ``None``."""

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def status(self) -> SourceStatus:
        """Where the source stands now."""
        with self._lock:
            return self._snapshot()

    def __enter__(self) -> Source:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {self._state}>"

    def _snapshot(self) -> SourceStatus:
        return SourceStatus(
            self._state, self._message, self._frames_read, self.dropped_total, self._reconnects
        )

    def _report(self, state: State, message: str, *, reconnected: bool = False) -> None:
        with self._lock:
            if (state, message) == (self._state, self._message) and not reconnected:
                return
            self._state, self._message = state, message
            self._reconnects += reconnected
            status = self._snapshot()
        self._notify(status)

    def _notify(self, status: SourceStatus) -> None:
        if self._on_status is not None:
            try:
                self._on_status(status)
            except Exception:  # the consumer's callback must not stop the reader
                log.exception("on_status callback failed for %s", self.name)


class _OfflineSource(Source):
    """A file or folder read on the caller's thread: every frame, in order."""

    def __init__(
        self,
        spec: SourceSpec,
        reader: _FrameReader,
        on_status: Callable[[SourceStatus], None] | None,
    ) -> None:
        super().__init__(spec, live=False, fps=reader.fps, on_status=on_status)
        self._reader = reader
        self.size = reader.size
        self._done = False

    def read(self, timeout: float | None = None) -> Frame | None:
        if self._done:
            return None
        try:
            item = self._reader.next()
        except CaptureError as e:
            self._finish("failed", str(e))
            raise
        if item is None:
            self._finish("ended", self._reader.ended())
            return None
        image, t = item
        image = _bgr(image)
        self.size = _size(image)
        with self._lock:
            index = self._frames_read
            self._frames_read += 1
        return Frame(image, t, index, 0)

    def close(self) -> None:
        if not self._done:
            self._finish("ended", f"{self.name}: closed")

    def _finish(self, state: State, message: str) -> None:
        self._done = True
        self._reader.close()
        self._report(state, message)


class _ThreadedSource(Source):
    """A live source: a daemon thread reads and keeps only the newest frame for the consumer."""

    def __init__(
        self,
        spec: SourceSpec,
        *,
        fps: float,
        timing: LiveTiming,
        on_status: Callable[[SourceStatus], None] | None,
    ) -> None:
        super().__init__(spec, live=True, fps=fps, on_status=on_status)
        self._timing = timing
        self._stop = threading.Event()
        self._ready = threading.Condition(self._lock)
        self._slot: tuple[np.ndarray, float, int] | None = None
        self._last_index = -1
        self._finished = False
        self._thread = threading.Thread(target=self._main, name=f"capture {spec.name}", daemon=True)

    @property
    def thread(self) -> threading.Thread:
        """The reader thread (not alive once the source has ended or been closed)."""
        return self._thread

    def _start(self) -> None:
        self._thread.start()

    def read(self, timeout: float | None = None) -> Frame | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            if self._stop.is_set():
                return None
            while self._slot is None:
                if self._finished or self._stop.is_set():
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0.0:
                    return None
                self._ready.wait(remaining)
            image, t, index = self._slot
            self._slot = None
            dropped = index - self._last_index - 1
            self._last_index = index
            self.dropped_total += dropped
        return Frame(image, t, index, dropped)

    def close(self) -> None:
        self._stop.set()
        with self._ready:
            self._ready.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(self._timing.join)
            if self._thread.is_alive():
                log.warning(
                    "%s: reader still busy after %.1f s; it releases the source when its read ends",
                    self.name,
                    self._timing.join,
                )
        with self._lock:
            running = self._state in ("running", "reconnecting")
        if running:
            self._report("ended", f"{self.name}: closed")

    def _publish(self, image: np.ndarray, t: float, index: int) -> None:
        self.size = _size(image)
        with self._ready:
            self._slot = (image, t, index)
            self._frames_read = index + 1
            self._ready.notify_all()

    def _main(self) -> None:
        try:
            self._run()
        except Exception as e:
            log.exception("%s: reader failed", self.name)
            self._report("failed", f"{self.name}: reader failed: {e}")
        finally:
            with self._ready:
                self._finished = True
                self._ready.notify_all()

    @abstractmethod
    def _run(self) -> None:
        """Read until the source ends or ``_stop`` is set, publishing each frame."""


class _PacedSource(_ThreadedSource):
    """A file or folder played at real time: each frame is published when its ``t`` comes."""

    def __init__(
        self,
        spec: SourceSpec,
        reader: _FrameReader,
        *,
        timing: LiveTiming,
        on_status: Callable[[SourceStatus], None] | None,
    ) -> None:
        super().__init__(spec, fps=reader.fps, timing=timing, on_status=on_status)
        self._reader = reader
        self.size = reader.size

    def _run(self) -> None:
        start = time.monotonic()
        first_t: float | None = None  # playback starts at once even if the first time is not 0
        index = 0
        try:
            while not self._stop.is_set():
                try:
                    item = self._reader.next()
                except CaptureError as e:
                    self._report("failed", str(e))
                    return
                if item is None:
                    self._report("ended", self._reader.ended())
                    return
                image, t = item
                first_t = t if first_t is None else first_t
                delay = start + (t - first_t) - time.monotonic()
                if delay > 0.0 and self._stop.wait(delay):
                    return
                self._publish(_bgr(image), t, index)
                index += 1
        finally:
            self._reader.close()


class _LiveSource(_ThreadedSource):
    """A webcam or stream: read as fast as it gives frames, reopened when it vanishes."""

    def __init__(
        self,
        spec: SourceSpec,
        *,
        fps: float | None,
        reconnect: bool,
        timing: LiveTiming,
        opener: Opener,
        on_status: Callable[[SourceStatus], None] | None,
    ) -> None:
        cap = opener(spec.target)
        if not cap.isOpened():
            _release(cap)
            if spec.kind == "url":
                why = "check the address, that the app streams, and that this machine reaches it"
            else:
                why = "no such camera, or another program is using it"
            raise CaptureError(f"{spec.name}: cannot open it ({why})")
        stated = _sane_fps(cap.get(cv2.CAP_PROP_FPS))
        super().__init__(spec, fps=fps or stated or DEFAULT_FPS, timing=timing, on_status=on_status)
        self._target = spec.target
        self._opener = opener
        self._reconnect = reconnect
        self._cap: VideoCaptureLike | None = cap
        w, h = cap.get(cv2.CAP_PROP_FRAME_WIDTH), cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
        if w > 0 and h > 0:
            self.size = (int(w), int(h))
        self._start_time = time.monotonic()

    def _reopen(self) -> VideoCaptureLike | None:
        try:
            cap = self._opener(self._target)
        except Exception:
            log.exception("%s: reopening failed", self.name)
            return None
        if cap.isOpened():
            return cap
        _release(cap)
        return None

    def _run(self) -> None:
        timing = self._timing
        poll = min(0.05, timing.stall / 10.0)
        cap, self._cap = self._cap, None
        index = 0
        attempt = 0  # reopen tries in this outage; 0 while frames come
        last_frame = waiting_since = time.monotonic()
        try:
            while not self._stop.is_set():
                if cap is None:
                    delay = timing.backoff(attempt)
                    attempt += 1
                    quiet = time.monotonic() - last_frame
                    message = f"no frame for {quiet:.1f} s; reopen try {attempt} in {delay:.1f} s"
                    self._report("reconnecting", f"{self.name}: {message}")
                    if self._stop.wait(delay):
                        return
                    cap = self._reopen()
                    waiting_since = time.monotonic()
                    continue
                image = _read(cap)
                now = time.monotonic()
                if image is not None:
                    self._publish(image, now - self._start_time, index)
                    index += 1
                    if attempt:
                        message = f"{self.name}: frames again after {now - last_frame:.1f} s"
                        self._report("running", message, reconnected=True)
                        attempt = 0
                    last_frame = waiting_since = now
                elif now - waiting_since < timing.stall:
                    self._stop.wait(poll)
                elif self._reconnect:
                    _release(cap)
                    cap = None
                else:
                    self._report("failed", f"{self.name}: no frame for {now - last_frame:.1f} s")
                    return
        finally:
            if cap is not None:
                _release(cap)


def open_source(
    spec: str | int,
    *,
    fps: float | None = None,
    pace: bool = False,
    reconnect: bool = True,
    on_status: Callable[[SourceStatus], None] | None = None,
    opener: Opener | None = None,
    timing: LiveTiming | None = None,
) -> Source:
    """Open the source named by ``spec`` (module docstring); raise ``CaptureError`` if it cannot be.

    ``fps``: frames per second for the timestamps of files and folders, and the nominal rate of
    live sources (default: what the source states, else 15). ``pace``: play a file or folder at
    real time as a live source. ``reconnect``: reopen a vanished webcam or stream (else it fails).
    ``on_status``: called with each new status. ``opener``: opens a camera index, URL or video file
    (default ``cv2.VideoCapture``; tests pass fakes). ``timing``: live-source timing."""
    if fps is not None and not (math.isfinite(fps) and fps > 0.0):
        raise CaptureError(f"source {spec!r}: fps must be a positive number, not {fps}")
    parsed = parse_spec(spec)
    open_capture = opener or default_opener
    timing = timing or LiveTiming()
    if parsed.kind in ("camera", "url"):
        live: _ThreadedSource = _LiveSource(
            parsed,
            fps=fps,
            reconnect=reconnect,
            timing=timing,
            opener=open_capture,
            on_status=on_status,
        )
    else:
        reader: _FrameReader = (
            _FolderReader(parsed, fps)
            if parsed.kind == "folder"
            else _VideoReader(parsed, fps, open_capture)
        )
        if not pace:
            offline = _OfflineSource(parsed, reader, on_status)
            offline._notify(offline.status())
            return offline
        live = _PacedSource(parsed, reader, timing=timing, on_status=on_status)
    live._notify(live.status())
    live._start()
    return live
