"""The flight recorder: the last seconds of frames kept in memory, saved as a clip with the
tracker's evidence whenever something worth a second look happens (TRACKING.md lesson 8).

A :class:`FlightRecorder` takes every frame (:meth:`FlightRecorder.push`), shrinks it by
``scale`` and keeps it JPEG-encoded (``cv2.imencode``, quality ``jpeg_quality``), so memory stays
bounded: frames older than ``seconds`` before the newest one are dropped, and then the oldest
ones while the JPEG bytes kept exceed ``max_bytes``. :meth:`FlightRecorder.save` writes what is
kept, with the caller's evidence, to a new folder of a clips folder::

    <folder>/<NNNN>-<kind>-<t:.2f>s/
        frames/000000.jpg, 000001.jpg, …   the kept frames, oldest first
        frames/times.txt                   "NAME SECONDS" per frame: the source's times
        evidence.json                      {"kind", "t", "frames", "first_t", "last_t", "scale", "evidence"}

``NNNN`` numbers the clips of a folder from 0001, continuing after the highest number already
there; ``kind`` is one of :data:`KINDS`; ``t`` is the source time (s) of the moment saved. The
``frames`` folder is an image folder as :mod:`vision.capture` reads it (its ``times.txt`` gives
every image's seconds), so ``fudaba replay <clip>/frames --game …`` follows the clip again with
the original times: a failure seen at a table becomes a test. A clip is written under a
``.partial`` name and renamed when complete, so a folder with a clip's name is always whole.

Kinds (:data:`KINDS`): ``desync`` (the tracker went out of sync), ``question`` (the tracker asked
the players), ``correction`` (a player undid, replaced, chose or answered) and ``commit`` (an
event committed; many per game, so saved only where the caller wants them:
:meth:`FlightRecorder.wants` is False for ``commit`` unless ``save_commits``).

Evidence is whatever the caller gives (:mod:`vision.replay` gives the table seen, the expected
table, the best explanations, the question or desync text and the events committed so far); it is
converted to plain JSON by :func:`jsonable` (numpy scalars and arrays, tuples, sets, paths and
objects with ``to_json()``; non-finite floats become ``null``) before anything is written, so
evidence that cannot be converted raises ``TypeError`` and leaves no clip behind.

Cost (``python -m vision.flight``: a rendered 1280 × 720 table frame, scale 0.5, quality 80, two
shared cores): a push takes about 1.3 ms (resize about 0.5 ms, JPEG encoding about 0.9 ms) and keeps
about 22 KB; 8 s at 15 fps is 121 frames, about 2.7 MB. A save of those 121 frames takes about
5-6 ms (the files are written as they are kept, nothing is re-encoded).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

KINDS = ("desync", "question", "correction", "commit")
"""What a clip is saved for (the ``kind`` of :meth:`FlightRecorder.save`)."""
TIMES_FILE = "times.txt"
"""The frame times file of a clip's ``frames`` folder (the name :mod:`vision.capture` reads)."""
FRAMES_DIR = "frames"
"""The clip's sub-folder of images."""
EVIDENCE_FILE = "evidence.json"
"""The clip's evidence file."""

_CLIP_NAME = re.compile(r"^(\d{4,})-")


@dataclass(frozen=True, slots=True)
class KeptFrame:
    """One frame the recorder keeps."""

    t: float
    """Source time (s)."""
    jpeg: bytes
    """The frame, shrunk by the recorder's scale, JPEG-encoded."""


def jsonable(value: Any, where: str = "evidence") -> Any:
    """``value`` as plain JSON data: dicts (keys made strings), lists, strings, finite numbers,
    booleans and None. Converted: numpy scalars (``.item()``) and arrays (``.tolist()``), tuples,
    sets and frozensets (sets sorted where their items sort), ``Path`` (its string) and any object
    with a ``to_json()`` method (its result); non-finite floats become None. Anything else raises
    ``TypeError`` naming where it was found (``where``, then keys and indices)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic):
        return jsonable(value.item(), where)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist(), where)
    if isinstance(value, Mapping):
        return {str(jsonable(k, f"{where} key")): jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v, f"{where}[…]") for v in value]
        with contextlib.suppress(TypeError):  # items that do not sort keep the set's order
            items.sort()
        return items
    if isinstance(value, (list, tuple, deque)):
        return [jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, Path):
        return str(value)
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return jsonable(to_json(), where)
    raise TypeError(f"{where}: {type(value).__name__} is not JSON data")


class FlightRecorder:
    """The last ``seconds`` of frames, shrunk and JPEG-encoded, ready to be saved as a clip.

    ``seconds``: frames older than this before the newest pushed frame are dropped (> 0).
    ``max_bytes``: most JPEG bytes kept; the oldest frames are dropped beyond it (a single frame
    larger than this is not kept at all). ``scale``: each frame's width and height are multiplied
    by this (0 < scale ≤ 1; 1: kept at full size), with area interpolation. ``jpeg_quality``:
    ``cv2.IMWRITE_JPEG_QUALITY``, 1-100. ``save_commits``: whether the caller should save a clip
    for every committed event (:meth:`wants`)."""

    def __init__(self, seconds: float = 8.0, *, max_bytes: int = 200_000_000, scale: float = 0.5,
                 jpeg_quality: int = 80, save_commits: bool = False) -> None:
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"seconds must be a positive number, not {seconds!r}")
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be positive, not {max_bytes!r}")
        if not 0 < scale <= 1:
            raise ValueError(f"scale must be in (0, 1], not {scale!r}")
        if not 1 <= jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 1-100, not {jpeg_quality!r}")
        self.seconds = float(seconds)
        self.max_bytes = int(max_bytes)
        self.scale = float(scale)
        self.jpeg_quality = int(jpeg_quality)
        self.save_commits = save_commits
        self._frames: deque[KeptFrame] = deque()
        self._bytes = 0
        self._next_number: dict[Path, int] = {}
        self.saved: list[Path] = []
        """Every clip folder saved, in order."""
        self.push_s = 0.0
        """Total seconds spent in :meth:`push`."""
        self.pushes = 0
        """Frames pushed."""

    # ------------------------------------------------------------------ keeping frames
    def push(self, frame_bgr: np.ndarray, t: float) -> None:
        """Keep ``frame_bgr`` (BGR or grey ``uint8``) seen at source time ``t`` (s). A time
        before the newest kept frame's means a new source: what was kept is dropped first."""
        started = time.perf_counter()
        if self._frames and t < self._frames[-1].t:
            self.clear()
        image = frame_bgr
        if self.scale != 1.0:
            h, w = image.shape[:2]
            size = (max(1, round(w * self.scale)), max(1, round(h * self.scale)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, (cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality))
        if not ok:
            raise ValueError(f"cannot encode a frame of shape {frame_bgr.shape} as JPEG")
        kept = KeptFrame(float(t), buf.tobytes())
        self._frames.append(kept)
        self._bytes += len(kept.jpeg)
        oldest = kept.t - self.seconds
        while self._frames and (self._frames[0].t < oldest or self._bytes > self.max_bytes):
            self._bytes -= len(self._frames.popleft().jpeg)
        self.pushes += 1
        self.push_s += time.perf_counter() - started

    def clear(self) -> None:
        """Drop every kept frame."""
        self._frames.clear()
        self._bytes = 0

    @property
    def frames(self) -> tuple[KeptFrame, ...]:
        """The kept frames, oldest first."""
        return tuple(self._frames)

    @property
    def nbytes(self) -> int:
        """JPEG bytes kept."""
        return self._bytes

    def wants(self, kind: str) -> bool:
        """Whether a clip of ``kind`` should be saved: every kind but ``commit``, which only with
        ``save_commits``; ValueError for a kind not in :data:`KINDS`."""
        _check_kind(kind)
        return kind != "commit" or self.save_commits

    # ------------------------------------------------------------------ saving clips
    def save(self, folder: str | Path, kind: str, t: float, evidence: Mapping[str, Any]) -> Path:
        """Write the kept frames and ``evidence`` as a new clip of ``folder`` (created if need be;
        layout in the module docstring) and return the clip's folder. ``kind``: one of
        :data:`KINDS`; ``t``: the source time (s) of the moment saved. TypeError (and nothing
        written) when the evidence is not JSON data (:func:`jsonable`)."""
        _check_kind(kind)
        frames = tuple(self._frames)
        doc = {
            "kind": kind,
            "t": jsonable(float(t)),
            "frames": len(frames),
            "first_t": frames[0].t if frames else None,
            "last_t": frames[-1].t if frames else None,
            "scale": self.scale,
            "evidence": jsonable(evidence),
        }
        text = json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=False)
        root = Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        number = self._number(root)
        clip = root / f"{number:04d}-{kind}-{t:.2f}s"
        partial = root / (clip.name + ".partial")
        images = partial / FRAMES_DIR
        images.mkdir(parents=True)
        lines = []
        for i, kept in enumerate(frames):
            name = f"{i:06d}.jpg"
            with open(images / name, "wb") as fh:
                fh.write(kept.jpeg)
            lines.append(f"{name} {kept.t:.6f}\n")
        (images / TIMES_FILE).write_text("".join(lines), encoding="utf-8")
        (partial / EVIDENCE_FILE).write_text(text + "\n", encoding="utf-8")
        os.replace(partial, clip)
        self._next_number[root.resolve()] = number + 1
        self.saved.append(clip)
        return clip

    def _number(self, root: Path) -> int:
        """The next clip number of ``root``: one past the highest there (and past this
        recorder's last save there)."""
        used = [int(m.group(1)) for p in root.iterdir() if (m := _CLIP_NAME.match(p.name))]
        return max([0, *used, self._next_number.get(root.resolve(), 1) - 1]) + 1


def load_evidence(clip: str | Path) -> dict[str, Any]:
    """The ``evidence.json`` object of a saved clip."""
    return json.loads((Path(clip) / EVIDENCE_FILE).read_text(encoding="utf-8"))


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown clip kind {kind!r}; one of {', '.join(KINDS)}")


def _measure(pushes: int = 240, fps: float = 15.0) -> dict[str, float]:
    """Time pushes of a rendered 1280 × 720 table frame and one save of 8 s (default options)."""
    import tempfile

    from vision.synth.video import GameVideo, VideoSpec

    frame = GameVideo(VideoSpec(game="poka", players=2, seed=101, fps=fps)).render(int(9 * fps))[0]
    rec = FlightRecorder()
    for i in range(pushes):
        rec.push(frame, i / fps)
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        rec.save(tmp, "desync", pushes / fps, {"note": "timing"})
        save_ms = 1000 * (time.perf_counter() - started)
    return {"push_ms": round(1000 * rec.push_s / rec.pushes, 2), "frames_kept": len(rec.frames),
            "kb_per_frame": round(rec.nbytes / max(1, len(rec.frames)) / 1000, 1),
            "mb_kept": round(rec.nbytes / 1e6, 2), "save_ms": round(save_ms, 1)}


if __name__ == "__main__":
    print(json.dumps(_measure()))
