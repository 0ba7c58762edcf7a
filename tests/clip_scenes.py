"""Short rendered clips of one Poka game for tests/test_tracking_clips.py (issue 36's acceptance):
the game's first seconds rendered once, and variants of them, each with one thing a real table
does to a camera; a replay of a clip through ``fudaba replay``'s loop that records what the
stabiliser and the tracker did; and the judgement of its committed events against the truth.

The game: Poka, 2 players, seed 101, 1280 × 720 at 15 fps, normal difficulty (camera shake,
light drift, sensor noise, a cup beside the mat). Its first :data:`SECONDS` seconds: seat 2 deals
(the table card 11-ribbon is down at 6.98 s), seat 1 hesitates over the table (no starting hand),
seat 2 plays 01-ribbon (10.67 s) and 12-phoenix (12.02 s) and hesitates (it passes at 15.48 s);
the clip of the game as rendered goes on to 21 s: seat 1 plays 01-crane (17.07 s) and 10-deer
(18.54 s).

Variants, all rendered in one pass over the frames (:func:`write_clips`; a frame is rendered once
for every clip that shows it unchanged):

* ``base``: the game as rendered;
* ``arm``: at :data:`ARM_AT` seat 2's hand has just laid 01-ribbon and rests there, still, for
  :data:`ARM_S` seconds (that frame's scene rendered again and again with fresh sensor noise);
  everything after comes that much later;
* ``bump``: the table card is knocked :data:`BUMP_MM` mm and :data:`BUMP_DEG` degrees aside at
  :data:`BUMP_AT`, while seat 1's hand hesitates over the table, between the settled table after
  the deal and the one before the first play (the timeline's later poses of that card moved);
* ``light``: the light dims to :data:`LIGHT_GAIN` of its brightness, a linear ramp over
  :data:`LIGHT_AT` (a cloud, a lamp switched off), and stays so;
* ``nudge``: the camera is nudged :data:`NUDGE_MM` mm along the table over two frames at
  :data:`NUDGE_AT` (the frames warped by the homography of that shift of the table plane) and
  stays there;
* ``marker``: an object covers ArUco marker :data:`MARKER` (its square, quiet zone and 6 mm more)
  from :data:`MARKER_AT` for 5 s, over both plays;
* ``quick``: seat 2 lays 12-phoenix 0.9 s after 01-ribbon instead of 1.35 s (the timeline's
  withdrawal between them shortened to :data:`QUICK_WITHDRAW_S` and the pause after it dropped;
  everything after comes earlier);
* ``objects``: a second cup stands in the pile zone beside the pile, a card box lies in seat 1's
  zone and another outside the play area (the renderer's static occluders, drawn under arms and
  carried cards, with their shadows).
"""

from __future__ import annotations

import functools
import math
import queue
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from bench.tracking import lcs_pairs, observable_events, observable_key
from scorer.events import Event
from scorer.games import game as game_spec
from vision.synth.camera import project
from vision.synth.choreography import Leg, Timeline
from vision.synth.markers import marker_corners_mm
from vision.synth.occluders import Occluder, Part, cup
from vision.synth.video import GameVideo, VideoSpec

GAME, PLAYERS, SEED, FPS = "poka", 2, 101, 15.0
SECONDS = 15.0
"""Length of the clips (s; the arm's rest comes on top)."""
LENGTH = {"base": 21.0}
"""Clips longer than :data:`SECONDS`: the game as rendered shows seat 1's first plays too."""
MARGIN_S = 2.0
"""An observable event whose action finished at least this long before a clip ends must be committed."""

ARM_AT, ARM_S = 10.733, 3.0
BUMP_AT, BUMP_MM, BUMP_DEG = 8.9, (5.0, 4.0), 4.0
LIGHT_AT, LIGHT_GAIN = (8.6, 9.6), 0.7
NUDGE_AT, NUDGE_MM = 9.2, (20.0, 0.0)
MARKER, MARKER_AT, MARKER_S = 2, 8.0, 5.0
QUICK_WITHDRAW_S = 0.3
CLIPS = ("base", "arm", "bump", "light", "nudge", "marker", "quick", "objects")


def video() -> GameVideo:
    """The game (a fresh renderer)."""
    return GameVideo(VideoSpec(game=GAME, players=PLAYERS, seed=SEED, fps=FPS))


def frame_of(t: float) -> int:
    """The first frame shown at or after ``t`` seconds."""
    return math.ceil(t * FPS - 1e-6)


# --------------------------------------------------------------------------- the variants
def with_timeline(v: GameVideo, timeline: Timeline) -> GameVideo:
    """``v`` following ``timeline`` instead (the renderer's still layer is rebuilt as needed)."""
    v.timeline = timeline
    return v


def bumped(v: GameVideo, card_id: str, at: float, shift_mm: tuple[float, float], turn_deg: float) -> GameVideo:
    """``v`` with the settled ``card_id`` moved by ``shift_mm`` and turned by ``turn_deg`` from
    ``at`` on: every leg that ends after ``at`` shows it there (render only frames from ``at``)."""
    legs = []
    for leg in v.timeline.legs:
        if leg.t1 > at:
            settled = tuple(replace(s, pose=replace(s.pose, center_mm=(s.pose.center_mm[0] + shift_mm[0],
                                                                      s.pose.center_mm[1] + shift_mm[1]),
                                                    angle_deg=s.pose.angle_deg + turn_deg))
                            if s.card_id == card_id and s.zone == "pile" else s for s in leg.settled)
            leg = replace(leg, settled=settled)
        legs.append(leg)
    return with_timeline(v, replace(v.timeline, legs=tuple(legs)))


def quickened(v: GameVideo, after: float, withdraw_s: float) -> tuple[GameVideo, float]:
    """``v`` with the withdrawal that starts at ``after`` (s) lasting ``withdraw_s`` and the pause
    after it dropped; later legs and events come earlier by the time saved (returned)."""
    legs = list(v.timeline.legs)
    k = next(i for i, leg in enumerate(legs) if abs(leg.t0 - after) < 1e-6)
    withdraw, pause = legs[k], legs[k + 1]
    assert withdraw.seat is not None and not withdraw.carries and pause.seat is None, "not a withdrawal and a pause"
    saved = (withdraw.t1 - withdraw.t0 - withdraw_s) + (pause.t1 - pause.t0)

    def earlier(leg: Leg) -> Leg:
        return replace(leg, t0=round(leg.t0 - saved, 3), t1=round(leg.t1 - saved, 3))

    out = legs[:k] + [replace(withdraw, t1=round(withdraw.t0 + withdraw_s, 3))] + [earlier(g) for g in legs[k + 2:]]
    times = tuple(round(t - saved, 3) if t > after + 1e-6 else t for t in v.timeline.event_times)
    return with_timeline(v, Timeline(tuple(out), times, v.timeline.duration - saved)), saved


def card_box(center_mm: tuple[float, float], angle_deg: float, size_mm: tuple[float, float] = (64.0, 98.0)) -> Occluder:
    """A hanafuda card box seen from above: a red lid with a gold frame and a white label printed
    with dark lines, 26 mm high."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])

    def rect(w: float, h: float, dx: float = 0.0, dy: float = 0.0) -> tuple[tuple[float, float], ...]:
        pts = np.array([[-w / 2 + dx, -h / 2 + dy], [w / 2 + dx, -h / 2 + dy], [w / 2 + dx, h / 2 + dy],
                        [-w / 2 + dx, h / 2 + dy]]) @ rot.T + center_mm
        return tuple(map(tuple, np.round(pts, 3).tolist()))

    w, h = size_mm
    parts = [Part(rect(w, h), (34, 30, 150)), Part(rect(w - 8, h - 8), (60, 165, 205)),
             Part(rect(w - 12, h - 12), (36, 32, 160)), Part(rect(w * 0.5, h * 0.36, 0, -h * 0.12), (232, 236, 240))]
    parts += [Part(rect(w * 0.34, 2.5, 0, -h * 0.24 + 6 * k), (30, 30, 40)) for k in range(4)]
    return Occluder("box", tuple(parts), 26.0)


def objects(v: GameVideo) -> tuple[Occluder, ...]:
    """The objects added for ``objects``: a cup in the pile zone beside the pile, a card box in seat
    1's zone and one outside the play area (on the right)."""
    rng = np.random.Generator(np.random.PCG64(SEED))
    aw, ah = v.layout.area_mm
    return (cup(rng, (540.0, 335.0)), card_box((505.0, 462.0), 88.0), card_box((aw + 52.0, 120.0), 8.0))


def with_objects(v: GameVideo, extra: Sequence[Occluder]) -> GameVideo:
    """``v`` with ``extra`` lying on the table all video long, besides its own cup."""
    v.look = replace(v.look, statics=v.look.statics + tuple(extra))
    v.renderer.look = v.look
    v.renderer._static = None  # the still layer draws the statics: build it anew
    return v


def shaken(v: GameVideo, t: float, pts_px: np.ndarray) -> np.ndarray:
    """Undistorted image points moved by the camera shake at ``t``, as the renderer moves the frame."""
    m = v.renderer.shake(t)
    return pts_px if m is None else pts_px @ m[:, :2].T + m[:, 2]


def marker_patch(v: GameVideo, k: int, grow_mm: float = 6.0) -> np.ndarray:
    """The outline (table mm) of an object over marker ``k``: its square and quiet zone, grown."""
    quad = marker_corners_mm(v.layout.area_mm, v.look.markers.size_mm, quiet=True)[k]
    c = quad.mean(axis=0)
    return c + (quad - c) * (1 + grow_mm / np.linalg.norm(quad[0] - c))


def cover(image: np.ndarray, v: GameVideo, t: float, outline_mm: np.ndarray, colour=(62, 66, 72)) -> np.ndarray:
    """``image`` with the table outline filled (an object lying there)."""
    px = shaken(v, t, project(v.renderer.hom, outline_mm))
    out = image.copy()
    cv2.fillPoly(out, [np.round(px * 4).astype(np.int32)], colour, cv2.LINE_AA, shift=2)
    return out


def table_shift(v: GameVideo, shift_mm: tuple[float, float]) -> np.ndarray:
    """The image homography of the camera moved by ``shift_mm`` along the table: a table point's
    pixel goes where the point ``shift_mm`` before it was seen."""
    hom = v.renderer.hom
    move = np.array([[1.0, 0.0, -shift_mm[0]], [0.0, 1.0, -shift_mm[1]], [0.0, 0.0, 1.0]])
    return hom @ move @ np.linalg.inv(hom)


def px_per_mm(v: GameVideo) -> float:
    """Image pixels per table millimetre at the play area's centre."""
    c = np.array(v.layout.area_mm) / 2
    return float(np.linalg.norm(project(v.renderer.hom, c + (1.0, 0.0)) - project(v.renderer.hom, c)))


def light_gain(t: float) -> float:
    t0, t1 = LIGHT_AT
    return 1.0 if t <= t0 else LIGHT_GAIN if t >= t1 else 1.0 + (LIGHT_GAIN - 1.0) * (t - t0) / (t1 - t0)


@dataclass
class Clip:
    """One written clip."""

    name: str
    path: Path
    frames: int
    times: tuple[float, ...]
    """Each truth event's time (s) in this clip: when its action is done."""
    facts: dict[str, Any] = field(default_factory=dict)
    """What the test checks of the perturbation itself (see :func:`write_clips`)."""

    @property
    def seconds(self) -> float:
        """Time of the last frame (s)."""
        return (self.frames - 1) / FPS


class _Writers:
    """MP4 writers (OpenCV ``mp4v``) fed by one thread, so that encoding overlaps rendering."""

    def __init__(self, paths: dict[str, Path], size: tuple[int, int]) -> None:
        self.writers = {}
        for k, path in paths.items():
            w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, size)
            if not w.isOpened():
                raise OSError(f"cannot write {path}")
            self.writers[k] = w
        self.queue: queue.Queue[tuple[str, np.ndarray] | None] = queue.Queue(maxsize=32)
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            if self.error is None:
                try:
                    self.writers[item[0]].write(item[1])
                except Exception as exc:  # raised again in the rendering thread, at exit
                    self.error = exc

    def write(self, name: str, image: np.ndarray) -> None:
        self.queue.put((name, image))

    def __enter__(self) -> _Writers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.queue.put(None)
        self.thread.join()
        for w in self.writers.values():
            w.release()
        if self.error is not None and exc[0] is None:
            raise self.error


def write_clips(folder: Path, names: Iterable[str] = CLIPS) -> dict[str, Clip]:
    """Render the clips ``names`` (module docstring) into ``folder`` in one pass; the facts kept
    about them: ``arm`` (the rested frame's time, the pile's top card then, how much of it shows,
    whose arm is there), ``bump`` (the card and its pose before and after), ``light`` (mean grey
    before the ramp and at the end), ``nudge`` (the shift at the play area's centre in pixels, pixels
    per mm; the marker centres found before, during and at the end: ``found``), ``marker`` (the same
    ``found``: before, while covered, at the end), ``quick`` (the time saved), ``objects`` (every
    static object: kind and centre, mm)."""
    from vision.calibrate import find_markers

    names = tuple(names)
    v = video()
    base_times = tuple(v.timeline.event_times)
    clips = {k: Clip(k, folder / f"{k}.mp4", frame_of(LENGTH.get(k, SECONDS)) + 1, base_times) for k in names}
    sources: dict[str, tuple[int, GameVideo]] = {}  # a clip's frames from this one on: another video's
    if "bump" in names:
        card = "11-ribbon"
        before = next(s.pose for s in v.timeline.leg_at(BUMP_AT).settled if s.card_id == card and s.zone == "pile")
        bv = bumped(video(), card, BUMP_AT, BUMP_MM, BUMP_DEG)
        after = next(s.pose for s in bv.timeline.leg_at(BUMP_AT).settled if s.card_id == card and s.zone == "pile")
        sources["bump"] = (frame_of(BUMP_AT), bv)
        clips["bump"].facts.update(card=card, before=before, after=after)
    if "quick" in names:
        after = v.timeline.event_times[2]  # seat 2 lays 01-ribbon; its withdrawal starts then
        qv, saved = quickened(video(), after, QUICK_WITHDRAW_S)
        sources["quick"] = (frame_of(after), qv)
        clips["quick"].times = tuple(qv.timeline.event_times)
        clips["quick"].facts.update(saved=saved)
    if "objects" in names:
        ov = with_objects(video(), objects(v))
        sources["objects"] = (0, ov)
        clips["objects"].facts.update(objects=[(o.kind, tuple(float(x) for x in np.mean(np.array(o.parts[0].points_mm), axis=0)))
                                               for o in ov.look.statics])
    rest = frame_of(ARM_AT)
    if "arm" in names:
        inserted = round(ARM_S * FPS)
        clips["arm"].frames += inserted
        clips["arm"].times = tuple(t + ARM_S if t > rest / FPS else t for t in base_times)
        _, tr = v.render(rest)
        top = [c for c in tr["cards"] if c["zone"] == "pile"][-1]
        leg = v.timeline.leg_at(v.time(rest))
        clips["arm"].facts.update(t=v.time(rest), top=top["card_id"], visible=top["visible"], seat=leg.seat)
    if "nudge" in names:
        c = project(v.renderer.hom, np.array(v.layout.area_mm) / 2)
        moved = project(table_shift(v, NUDGE_MM), c)
        clips["nudge"].facts.update(shift_px=float(np.linalg.norm(moved - c)), px_per_mm=px_per_mm(v))
    look_at = {"nudge": frame_of(NUDGE_AT), "marker": frame_of(MARKER_AT)}
    patch = marker_patch(v, MARKER)
    size = v.spec.size
    with _Writers({k: clips[k].path for k in names}, size) as writers:
        for f in range(max(c.frames for c in clips.values())):
            t = v.time(f)
            wanted = [k for k in names if f < clips[k].frames - (round(ARM_S * FPS) if k == "arm" else 0)]
            frame = v.render(f)[0] if any(k not in sources or f < sources[k][0] for k in wanted) else None
            for k in wanted:
                src = sources.get(k)
                img = src[1].render(f)[0] if src is not None and f >= src[0] else frame
                if k == "light":
                    img = cv2.convertScaleAbs(img, alpha=light_gain(t))
                    if f in (frame_of(LIGHT_AT[0]) - 1, clips[k].frames - 1):
                        clips[k].facts.setdefault("grey", []).append(float(img.mean()))
                elif k == "nudge" and t >= NUDGE_AT:
                    part = min(1.0, (f - frame_of(NUDGE_AT) + 1) / 2)  # over two frames
                    m = table_shift(v, (NUDGE_MM[0] * part, NUDGE_MM[1] * part))
                    img = cv2.warpPerspective(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                elif k == "marker" and MARKER_AT <= t < MARKER_AT + MARKER_S:
                    img = cover(img, v, t, patch)
                writers.write(k, img)
                if k == "arm" and f == rest:
                    leg = v.timeline.leg_at(t)
                    for j in range(1, round(ARM_S * FPS) + 1):
                        writers.write(k, v.renderer.render(leg, t, f + j)[0])  # the same scene, new noise
                if k in look_at and f in (look_at[k] - 1, look_at[k] + 3, clips[k].frames - 1):
                    clips[k].facts.setdefault("found", []).append(
                        (round(t, 3), {i: c.mean(axis=0) for i, c in find_markers(img).items()}))
    return clips


# --------------------------------------------------------------------------- replaying a clip
@dataclass
class Run:
    """What one replay did."""

    summary: dict[str, Any]
    committed: list[tuple[float, Event]]
    """(time, event) of every event committed and not taken back."""
    updates: list[tuple[float, Any, Any]] = field(default_factory=list)
    """(time, table, update) of every tracker update."""
    readings: list[tuple[float, list[tuple[str, float]]]] = field(default_factory=list)
    """(frame time, [(label, confidence)]) of every recogniser call, as the stabiliser got it."""
    questions: list[tuple[float, Any]] = field(default_factory=list)
    """(time, question) of every question the tracker asked."""

    def log(self) -> str:
        """The tracker's updates where something happened, one line each (for failure messages)."""
        lines = []
        last = None
        for at, table, u in self.updates:
            sig = (table.signature(), u.state, bool(u.committed), table.actors)
            if sig == last:
                continue
            last = sig
            zones = {z: (sorted(s.names().elements()), s.down) for z, s in table.zones.items() if not s.empty}
            lines.append(f"{at:6.2f} {u.state:<11} actors={table.actors} history={dict(table.history)} {zones}"
                         + (f" COMMIT {[e.describe() for e in u.committed]}" if u.committed else "")
                         + (f" RETRACT {u.retracted}" if u.retracted else "")
                         + (f" QUESTION {u.question.text}" if u.question else "")
                         + (f" DESYNC {u.desync.text}" if u.desync else ""))
        return "\n".join(lines)


class Misreading:
    """A recogniser that names one card wrong while the frame time is in a window.

    ``truth`` is read as ``wrong`` with ``confidence`` (its own name then the runner-up, with the
    rest of the probability) in every reading taken between ``t0`` and ``t1`` (s; the stabiliser
    tells the time: :func:`replay`). ``misread`` counts the readings changed."""

    def __init__(self, recogniser: Any, truth: str, wrong: str, t0: float, t1: float, confidence: float = 0.85) -> None:
        from vision.recognise.recogniser import card_ids_of

        self.recogniser = recogniser
        self.detector = getattr(recogniser, "detector", None)
        self.truth, self.wrong, self.t0, self.t1 = truth, wrong, t0, t1
        self.confidence = confidence
        self.ids = card_ids_of("hanafuda")[wrong]
        self.now = 0.0
        self.misread: list[float] = []

    def recognise(self, frame: np.ndarray) -> list[Any]:
        cards = list(self.recogniser.recognise(frame))
        if not self.t0 <= self.now <= self.t1:
            return cards
        out = []
        for c in cards:
            if c.label == self.truth:
                c = replace(c, label=self.wrong, card_ids=self.ids, confidence=self.confidence,
                            alternatives=((self.truth, round(0.9 * (1 - self.confidence), 4)),))
                self.misread.append(self.now)
            out.append(c)
        return out


def replay(path: Path, recogniser: Any, **kwargs: Any) -> Run:
    """``vision.replay.replay_video`` over ``path`` (Poka, 2 players) with ``recogniser``, its
    tracker's updates and the recogniser's readings recorded. A recogniser with a ``now``
    attribute is told each frame's time before the stabiliser looks at it."""
    import pytest

    import vision.replay as vr
    import vision.stabilise as vs

    run = Run({}, [])

    class Recording(vr.Tracker):
        def update(self, table, at):
            u = super().update(table, at)
            run.updates.append((at, table, u))
            if u.question is not None and (not run.questions or run.questions[-1][1] is not u.question):
                run.questions.append((at, u.question))
            return u

    clock = {"t": 0.0}

    class Clocked(vs.Stabiliser):
        def push(self, image, t, calibration):
            clock["t"] = t
            if hasattr(recogniser, "now"):
                recogniser.now = t
            return super().push(image, t, calibration)

    class Reading:
        def __init__(self, inner: Any) -> None:
            self.inner = inner
            self.detector = getattr(inner, "detector", None)

        def recognise(self, frame):
            cards = list(self.inner.recognise(frame))
            run.readings.append((clock["t"], [(c.label, round(c.confidence, 3)) for c in cards]))
            return cards

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(vr, "Tracker", Recording)
        mp.setattr(vs, "Stabiliser", Clocked)
        run.summary = vr.replay_video(path, GAME, PLAYERS, recogniser=Reading(recogniser), **kwargs)
    events = game_spec(GAME).match(["a", "b"], game_spec(GAME).options()).EVENTS
    run.committed = [(c["t"], events.from_json({k: v for k, v in c["event"].items() if k != "at"}))
                     for c in run.summary["committed"]]
    return run


# --------------------------------------------------------------------------- judging
@dataclass(frozen=True)
class Verdict:
    """Committed events against the truth of a clip."""

    truth: list[tuple[float, Event]]
    """Every truth event whose action is done within the clip."""
    due: list[tuple[float, Event]]
    """The observable ones done at least :data:`MARGIN_S` before the clip ends."""
    phantoms: list[tuple[float, Event]]
    """Committed events no truth event matches (in order)."""
    missed: list[tuple[float, Event]]
    """Due events not committed."""

    def text(self) -> str:
        return (f"phantoms: {[(t, e.describe()) for t, e in self.phantoms]}; "
                f"missed: {[(round(t, 2), e.describe()) for t, e in self.missed]}")


@functools.cache
def truth() -> tuple[tuple[Event, ...], frozenset[int]]:
    """The game's events and the indices of those a camera can see (``bench.tracking``)."""
    v = video()
    return tuple(v.playout.events), frozenset(i for i, _ in observable_events(v))


def judge(clip: Clip, committed: Sequence[tuple[float, Event]], margin: float = MARGIN_S) -> Verdict:
    """Match ``committed`` with the truth events of ``clip`` by ``bench.tracking``'s keys (type, seat,
    cards by sight name) and longest common subsequence: its phantoms and missed events."""
    events, seen = truth()
    end = clip.seconds
    done = [(i, clip.times[i], e) for i, e in enumerate(events) if clip.times[i] <= end + 1e-9]
    pairs = lcs_pairs([observable_key(e) for _, _, e in done], [observable_key(e) for _, e in committed])
    found = {a for a, _ in pairs}
    matched = {b for _, b in pairs}
    due = [(k, t, e) for k, (i, t, e) in enumerate(done) if i in seen and t <= end - margin]
    return Verdict([(t, e) for _, t, e in done], [(t, e) for _, t, e in due],
                   [c for j, c in enumerate(committed) if j not in matched],
                   [(t, e) for k, t, e in due if k not in found])
