"""Ground-truth game videos: a rules-engine playout filmed at a synthetic table.

``GameVideo(spec)`` plays the game (:mod:`vision.synth.playout`), turns the events into physical
actions (:mod:`vision.synth.choreography`: the deal, arms carrying cards from the acting seat's
side, captures sliding into seat zones, piles growing, shown hands, Bagaji's hands laid face up
after each round so that a camera can settle it, hovering hands and pauses),
and renders frames (:mod:`vision.synth.frames`). :func:`write_video` writes ``video.mp4``
(OpenCV ``mp4v``; ``.avi`` with MJPG as a fallback), ``record.jsonl`` (the scorer's game record,
each event's ``at`` = the video time in seconds when its action completes) and ``truth.jsonl``
(one JSON object per frame, see :meth:`GameVideo.truth`).

``VideoSpec.deck`` picks the deck where the game offers a choice (Bagaji: ``playing-2x`` by default,
or ``hanafuda-1x``): it reaches the playout's match options, and the deck family decides the card
art, backs, card size and zone layout.

Frame ``i`` shows time ``i / fps`` seconds. Everything follows from the spec: the same spec gives
the same record, truth and frames.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import HANAFUDA
from scorer.record import Record, export
from scorer.table import PILE_ZONES
from vision.synth import occluders
from vision.synth.artset import find_style
from vision.synth.camera import CameraPose, homography, project
from vision.synth.cardfaces import CARD_SIZE_MM, HANAFUDA_BACKS, PLAYING_BACKS
from vision.synth.choreography import Timeline, build_timeline
from vision.synth.frames import FrameRenderer, Look
from vision.synth.labels import CardLabel
from vision.synth.lighting import LightSpec
from vision.synth.markers import MarkerSpec
from vision.synth.playout import Playout, play
from vision.synth.scene import sample_table
from vision.synth.tables import background_textures
from vision.zones import ZoneLayout, zone_layout

DIFFICULTIES = ("easy", "normal", "hard")
CAMERAS = ("top", "tilted")
DEFAULT_STYLE = {"hanafuda": "mantia", "playing": "knoll"}
RECORD_START = "2026-01-01T19:00:00+00:00"
"""Start time written in every video's record header (fixed, so records are reproducible)."""


@dataclass(frozen=True, slots=True)
class VideoSpec:
    """What to film."""

    game: str = "hachi-hachi"
    ruleset: str | None = None
    """None: the game's default ruleset."""
    players: int = 3
    rounds: int = 1
    seed: int = 0
    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    """Width and height, pixels."""
    style: str | None = None
    """Art style; None: ``mantia`` for hanafuda, ``knoll`` for playing cards."""
    art_dir: str | None = None
    """Folder laid out like shared/assets, for extra styles and table textures."""
    camera: str = "top"
    """``top`` (straight down, a few degrees off) or ``tilted`` (25-35° from seat 1's side)."""
    difficulty: str = "normal"
    """``easy``, ``normal`` or ``hard``: occluders, blur, shake, drift, noise, wear."""
    deck: str | None = None
    """The game's ``deck`` option (Bagaji: ``playing-2x``, ``hanafuda-1x`` or ``hanafuda-2x``);
    None: the ruleset's. It chooses the card art, card size and zone layout (a hanafuda deck:
    hanafuda faces, backs and sizes, the default style ``mantia``)."""


def _camera(rng: np.random.Generator, layout: ZoneLayout, size: tuple[int, int], kind: str) -> CameraPose:
    """A camera that sees the whole play area with a margin."""
    aw, ah = layout.area_mm
    fov = np.radians(rng.uniform(55, 70))
    focal = size[0] / 2 / np.tan(fov / 2)
    if kind == "top":
        tilt, az = float(rng.uniform(0, 4)), float(rng.uniform(0, 360))
    else:
        tilt, az = float(rng.uniform(25, 35)), float(270 + rng.normal(0, 8))
    roll = float(rng.normal(0, 1.5))
    target = (aw / 2 + float(rng.normal(0, 8)), ah / 2 + float(rng.normal(0, 8)))
    margin = 45.0
    corners = np.array([[-margin, -margin], [aw + margin, -margin], [aw + margin, ah + margin], [-margin, ah + margin]])
    distance = max(aw / size[0], ah / size[1]) * focal
    for _ in range(60):
        pose = CameraPose(target, float(distance), tilt, az, roll, float(focal), size)
        px = project(homography(pose), corners)
        if px.min() >= 0 and (px[:, 0] <= size[0] - 1).all() and (px[:, 1] <= size[1] - 1).all():
            return pose
        distance *= 1.05
    return pose


def _look(spec: VideoSpec, layout: ZoneLayout, deck: str, rng: np.random.Generator) -> Look:
    hard, easy = spec.difficulty == "hard", spec.difficulty == "easy"
    textures = background_textures(spec.art_dir)
    table = sample_table(rng, textures)
    markers = MarkerSpec("mat" if rng.random() < 0.7 or easy else "taped", float(rng.uniform(35, 50)),
                         tuple(int(c) for c in rng.uniform(170, 245, 3)), True)
    light = LightSpec(
        kelvin=float(rng.uniform(3200, 6500)),
        brightness=float(rng.uniform(0.85, 1.1) if not hard else rng.uniform(0.65, 1.15)),
        gradient=(float(rng.uniform(0, 360)), float(rng.uniform(0, 0.3 if hard else 0.15)), 0.0),
        vignette=float(rng.uniform(0, 0.3)),
        shadow_direction_deg=float(rng.uniform(0, 360)),
        shadow_slope=float(rng.uniform(0.1, 0.5)),
        shadow_softness_px=float(rng.uniform(2, 8)) * spec.size[0] / 1280,
        shadow_strength=float(rng.uniform(0.2, 0.5)),
    )
    aw, ah = layout.area_mm
    statics: list[occluders.Occluder] = []
    if not easy:
        # A cup beside the mat, and (hard) a phone on it: near the corners, clear of the zones' middles.
        statics.append(occluders.cup(rng, (float(rng.choice([-60.0, aw + 60.0])), float(rng.uniform(0.2, 0.8) * ah))))
        if hard:
            statics.append(occluders.phone(rng, (float(rng.uniform(0.3, 0.7) * aw), float(rng.choice([-70.0, ah + 70.0]))),
                                           float(rng.uniform(0, 360))))
    back = str(rng.choice(list(HANAFUDA_BACKS) if deck == HANAFUDA else list(PLAYING_BACKS)))
    scale = spec.size[0] / 1280
    return Look(
        camera=_camera(rng, layout, spec.size, spec.camera),
        table=table,
        markers=markers,
        light=light,
        statics=tuple(statics),
        k1=float(rng.uniform(-0.05, 0.08)) if hard else 0.0,
        focus_blur_px=float(rng.uniform(0.4, 1.0)) * scale if hard else 0.0,
        shake_px=(0.0 if easy else 0.8 if not hard else 2.0) * scale,
        drift=0.02 if easy else 0.05 if not hard else 0.1,
        noise=1.0 if easy else 2.5 if not hard else 5.0,
        back=back,
        wear=0.0 if not hard else float(rng.uniform(0.2, 0.6)),
        seed=int(rng.integers(2**31)),
    )


def _deck_options(spec: VideoSpec) -> dict[str, str]:
    """The option overrides of ``spec``; ValueError when its game has no deck choice."""
    from scorer.games import game as find_game

    if spec.deck is None:
        return {}
    options = find_game(spec.game).options(spec.ruleset)
    if not hasattr(options, "deck"):
        raise ValueError(f"{spec.game} has no deck choice (deck {spec.deck!r}); leave VideoSpec.deck unset")
    return {"deck": spec.deck}


class GameVideo:
    """A game video: playout, timeline and frame renderer for one :class:`VideoSpec`."""

    def __init__(self, spec: VideoSpec) -> None:
        if spec.difficulty not in DIFFICULTIES:
            raise ValueError(f"unknown difficulty {spec.difficulty!r}; expected one of {', '.join(DIFFICULTIES)}")
        if spec.camera not in CAMERAS:
            raise ValueError(f"unknown camera {spec.camera!r}; expected one of {', '.join(CAMERAS)}")
        if spec.fps <= 0:
            raise ValueError("fps must be positive")
        self.spec = spec
        self.playout: Playout = play(spec.game, spec.ruleset, spec.players, spec.rounds, spec.seed,
                                     _deck_options(spec))
        deck = "playing" if self.playout.match.deck.startswith("playing") else "hanafuda"
        self.deck = deck
        self.card_mm = CARD_SIZE_MM[deck]
        self.layout = zone_layout(self.playout.game, spec.players, deck)
        rng = np.random.Generator(np.random.PCG64([spec.seed, 0x71DE0]))
        self.timeline: Timeline = build_timeline(self.layout, self.card_mm, self.playout.events, self.playout.places,
                                                 int(rng.integers(2**31)), hover_p=0.05 if spec.difficulty == "easy" else 0.12)
        self.style = find_style(deck, spec.style or DEFAULT_STYLE[deck], spec.art_dir)
        self.look = _look(spec, self.layout, deck, rng)
        arm_seeds = {s.seat: int(rng.integers(2**31)) for s in self.layout.seats}
        self.renderer = FrameRenderer(self.layout, deck, self.card_mm, self.style, self.look, arm_seeds)
        self.frame_count = int(np.floor(self.timeline.duration * spec.fps)) + 1

    def time(self, frame: int) -> float:
        """Video time (s) of ``frame``."""
        return frame / self.spec.fps

    def record(self) -> Record:
        """The game record, each event's ``at`` = when its action completes in the video (s)."""
        rec = export(self.playout.match, self.playout.ruleset, start=RECORD_START)
        events = self.playout.match.events
        rec.entries = [(i + 2, replace(e, at=t).to_json()) for i, (e, t) in enumerate(zip(events, self.timeline.event_times, strict=True))]
        return rec

    def zones(self, frame: int) -> dict[str, dict[str, object]]:
        """The settled cards per zone at ``frame``: ``up`` (face-up cards that show, sorted; in the
        stock, pile and discard only the top one), ``down`` (face-down count) and ``under`` (face-up
        cards covered by a pile's top)."""
        leg = self.timeline.leg_at(self.time(frame))
        out: dict[str, dict[str, object]] = {}
        by_zone: dict[str, list] = {}
        for s in leg.settled:
            by_zone.setdefault(s.zone, []).append(s)
        for zone, cards in sorted(by_zone.items()):
            ups = [s.card_id for s in cards if s.pose.face_up]
            down = sum(1 for s in cards if not s.pose.face_up)
            under = 0
            if zone in PILE_ZONES and cards[-1].pose.face_up:
                under = len(ups) - 1
                ups = [cards[-1].card_id]
            elif zone in PILE_ZONES:
                under, ups = len(ups), []
            out[zone] = {"up": sorted(ups), "down": down, "under": under}
        return out

    def render(self, frame: int) -> tuple[np.ndarray, dict[str, object]]:
        """The image (BGR uint8) of ``frame`` and its truth object (see :meth:`truth`)."""
        t = self.time(frame)
        leg = self.timeline.leg_at(t)
        image, labels, zones = self.renderer.render(leg, t, frame)
        return image, self.truth(frame, labels, zones)

    def truth(self, frame: int, labels: list[CardLabel], label_zones: list[str | None]) -> dict[str, object]:
        """One line of ``truth.jsonl``: ``frame``, ``t`` (s), ``event`` (index of the last event
        whose action has completed, -1 before the first), ``zones`` (:meth:`zones`), ``transit``
        (cards carried now: id, face up, seat) and ``cards`` (every card in view or carried: the
        labels of :class:`vision.synth.labels.CardLabel` plus its ``zone``, null when carried)."""
        t = self.time(frame)
        leg = self.timeline.leg_at(t)
        done = sum(1 for at in self.timeline.event_times if at <= t + 1e-9) - 1
        cards = []
        for lab, zone in zip(labels, label_zones, strict=True):
            d = asdict(lab)
            d["zone"] = zone
            cards.append(d)
        return {
            "frame": frame,
            "t": round(t, 4),
            "event": done,
            "zones": self.zones(frame),
            "transit": [{"card_id": c.card_id, "face_up": c.start.face_up if not c.flips else None, "seat": leg.seat}
                        for c in leg.carries],
            "cards": cards,
        }


def _writer(out: Path, fps: float, size: tuple[int, int]) -> tuple[cv2.VideoWriter, Path]:
    for name, codec in (("video.mp4", "mp4v"), ("video.avi", "MJPG")):
        path = out / name
        w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codec), fps, size)
        if w.isOpened():
            return w, path
        w.release()
    raise OSError("OpenCV can write neither mp4v (.mp4) nor MJPG (.avi) video here")


def write_video(spec: VideoSpec, out: str | Path, progress: bool = False) -> dict[str, object]:
    """Render ``spec`` into folder ``out``: the video, ``record.jsonl`` and ``truth.jsonl``.

    Returns a summary (paths, frame count, duration, events, results)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    video = GameVideo(spec)
    rec = video.record()
    (out / "record.jsonl").write_text(rec.dumps(), encoding="utf-8")
    writer, path = _writer(out, spec.fps, spec.size)
    try:
        with open(out / "truth.jsonl", "w", encoding="utf-8") as truth:
            for i in range(video.frame_count):
                image, tr = video.render(i)
                writer.write(image)
                truth.write(json.dumps(tr, separators=(",", ":"), sort_keys=True) + "\n")
                if progress and i % 300 == 0:
                    print(f"  frame {i}/{video.frame_count}", flush=True)
    finally:
        writer.release()
    counts = Counter(e.TYPE for e in video.playout.events)
    return {
        "video": str(path),
        "record": str(out / "record.jsonl"),
        "truth": str(out / "truth.jsonl"),
        "frames": video.frame_count,
        "seconds": round(video.timeline.duration, 3),
        "events": dict(counts),
        "results": [r.to_json() for r in video.playout.match.results],
    }
