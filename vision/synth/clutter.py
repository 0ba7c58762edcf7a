"""What else lies on a real table: coasters, card boxes, dice, glasses, rule sheets, phones, cups.

Each object is an :class:`~vision.synth.occluders.Occluder` lying on the table (a low height, so a
short shadow) whose parts may carry a printed *texture* (:attr:`~vision.synth.occluders.Part.texture`),
drawn by :func:`vision.synth.prints.texture_image` when the scene is rendered:

- ``knit``: a knitted coaster — rows of V stitches in one or two wool colours (the one that a
  recogniser took for seven face-up cards and six backs);
- ``box``: the top of a card box, printed with one of the deck's own card faces, a title band
  and a border (a box with hanafuda art gave two more "cards");
- ``text``: a printed rule sheet — a white page with a title and lines of small text;
- ``pips``: a die's top face, white with one to six pips;
- plain colour: a glass (rim and base rings), a cup, a phone.

:func:`clutter_scene` is a top-down table of :func:`~vision.synth.fixed_scenes.topdown_scene`
with ``n`` such objects laid where no card lies (so each card is as much in view as without them):
:func:`without_clutter` gives the same scene bare, for the comparison.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.synth.cardfaces import CARD_SIZE_MM
from vision.synth.fixed_scenes import topdown_scene
from vision.synth.layouts import card_corners_mm
from vision.synth.occluders import Occluder, Part, _circle, cup, phone
from vision.synth.scene import Scene

KINDS = ("coaster", "box", "sheet", "die", "glass", "cup", "phone")


def _rect(c: np.ndarray, w: float, h: float, angle_deg: float) -> np.ndarray:
    """Corners (mm) of a ``w`` × ``h`` rectangle centred at ``c``, turned: top-left first, clockwise."""
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T + c


def _textured(pts: np.ndarray, colour, texture: str, seed: int) -> Part:
    return Part(tuple(map(tuple, np.round(pts, 3).tolist())), tuple(int(v) for v in np.clip(colour, 0, 255)),
                texture, int(seed))


def coaster(rng: np.random.Generator, c: np.ndarray) -> Occluder:
    """A knitted coaster, round or square, 90-110 mm."""
    size = rng.uniform(90, 110)
    pts = _circle(c, size / 2, 40) if rng.random() < 0.5 else _rect(c, size, size, rng.uniform(0, 90))
    return Occluder("coaster", (_textured(pts, rng.uniform(60, 230, 3), "knit", rng.integers(2**31)),), 3.0)


def card_box(rng: np.random.Generator, c: np.ndarray, deck: str) -> Occluder:
    """A card box lying flat, printed with one of the deck's card faces."""
    w, h = CARD_SIZE_MM[deck]
    pts = _rect(c, w + rng.uniform(4, 10), h + rng.uniform(4, 12), rng.uniform(0, 360))
    return Occluder("box", (_textured(pts, rng.uniform(30, 220, 3), "box", rng.integers(2**31)),), 20.0)


def rule_sheet(rng: np.random.Generator, c: np.ndarray) -> Occluder:
    """A printed page (A5 to A4, folded or not) of rules."""
    w, h = rng.uniform(148, 210), rng.uniform(160, 297)
    pts = _rect(c, w, h, rng.uniform(0, 360))
    return Occluder("sheet", (_textured(pts, (235, 238, 240), "text", rng.integers(2**31)),), 1.0)


def die(rng: np.random.Generator, c: np.ndarray) -> Occluder:
    """A die, 14-18 mm, its top face showing one to six pips."""
    s = rng.uniform(14, 18)
    pts = _rect(c, s, s, rng.uniform(0, 90))
    return Occluder("die", (_textured(pts, (235, 235, 235), "pips", rng.integers(2**31)),), 16.0)


def glass(rng: np.random.Generator, c: np.ndarray) -> Occluder:
    """An empty glass from above: a bright rim and a base ring, the table showing through."""
    r = rng.uniform(30, 42)
    ring = np.vstack([_circle(c, r, 32), _circle(c, r * 0.93, 32)[::-1]])
    base = np.vstack([_circle(c, r * 0.7, 32), _circle(c, r * 0.64, 32)[::-1]])
    tint = np.array([215, 220, 220]) + rng.uniform(-20, 20)
    return Occluder("glass", (Part(tuple(map(tuple, ring.tolist())), tuple(int(v) for v in tint)),
                              Part(tuple(map(tuple, base.tolist())), tuple(int(v) for v in tint * 0.85))), 100.0)


def make(kind: str, rng: np.random.Generator, c: np.ndarray, deck: str) -> Occluder:
    """One object of ``kind`` (:data:`KINDS`) centred at ``c`` (mm)."""
    if kind == "coaster":
        return coaster(rng, c)
    if kind == "box":
        return card_box(rng, c, deck)
    if kind == "sheet":
        return rule_sheet(rng, c)
    if kind == "die":
        return die(rng, c)
    if kind == "glass":
        return glass(rng, c)
    if kind == "cup":
        return cup(rng, tuple(c))
    if kind == "phone":
        return phone(rng, tuple(c), float(rng.uniform(0, 360)))
    raise ValueError(f"unknown clutter {kind!r}: one of {', '.join(KINDS)}")


def _clear(poly: np.ndarray, cards: list[np.ndarray], area: tuple[float, float], margin: float) -> bool:
    """Whether ``poly`` lies inside the view (``area`` grown by ``margin``) and off every card."""
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    if lo[0] < -margin or lo[1] < -margin or hi[0] > area[0] + margin or hi[1] > area[1] + margin:
        return False
    for quad in cards:
        inter, _ = cv2.intersectConvexConvex(cv2.convexHull(poly.astype(np.float32)), quad.astype(np.float32))
        if inter > 0:
            return False
    return True


def clutter_scene(seed: int, deck: str, styles: tuple[str, ...], size: tuple[int, int] = (1280, 720),
                  textures: tuple[str, ...] = (), n: int = 5) -> Scene:
    """A top-down table of 20 cards (:func:`topdown_scene`) with up to ``n`` objects of
    :data:`KINDS` laid where no card lies (module docstring)."""
    base = topdown_scene(seed, deck, styles, 20, size, textures)
    return dataclasses.replace(with_clutter(base, np.random.default_rng([seed, 23]), n, keep=False), layout="clutter")


def with_clutter(scene: Scene, rng: np.random.Generator, n: int, keep: bool = True) -> Scene:
    """``scene`` with up to ``n`` objects of :data:`KINDS` (each kind at most twice) laid inside its
    view where no card and no other object lies; its own occluders kept (``keep``) or replaced."""
    deck = scene.deck
    quads = [card_corners_mm(c.center_mm, c.angle_deg, CARD_SIZE_MM[deck]) for c in scene.cards]
    w, h = scene.area_mm
    placed: list[Occluder] = []
    kinds = [KINDS[i % len(KINDS)] for i in rng.permutation(len(KINDS) * 2)]
    for kind in kinds:
        if len(placed) >= n:
            break
        for _ in range(30):
            c = np.array([rng.uniform(-0.05, 1.05) * w, rng.uniform(-0.05, 1.05) * h])
            obj = make(kind, rng, c, deck)
            outline = np.vstack([np.asarray(p.points_mm) for p in obj.parts])
            if _clear(outline, quads + [np.asarray(o.parts[0].points_mm) for o in placed], scene.area_mm, 30.0):
                placed.append(obj)
                break
    return dataclasses.replace(scene, occluders=(tuple(scene.occluders) if keep else ()) + tuple(placed))


def without_clutter(scene: Scene) -> Scene:
    """``scene`` with nothing on the table but its cards."""
    return dataclasses.replace(scene, occluders=())
