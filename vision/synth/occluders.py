"""Things between the camera and the cards: hands and arms, cups, phones.

Each occluder is a list of filled polygons in table millimetres, drawn in order, with a height
above the table (mm) that sets how far its shadow falls. Shapes are procedural: an arm is a
tapered sleeve and forearm from beyond the table edge, a palm and five finger capsules; a cup is
a rim, its inside and the drink; a phone is a rounded slab with a screen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SKIN_TONES = ((150, 180, 225), (120, 160, 210), (95, 135, 190), (70, 105, 160), (50, 75, 115), (40, 55, 85))
"""Skin colours (BGR), light to dark."""


@dataclass(frozen=True, slots=True)
class Part:
    """One filled polygon of an occluder."""

    points_mm: tuple[tuple[float, float], ...]
    colour: tuple[int, int, int]
    """BGR."""
    texture: str = ""
    """What is printed on it (:func:`vision.synth.prints.texture_image`: ``knit``, ``box``,
    ``text``, ``pips``); empty: plain ``colour``."""
    texture_seed: int = 0


@dataclass(frozen=True, slots=True)
class Occluder:
    """An object above the cards."""

    kind: str
    """``arm``, ``cup``, ``phone``, or a :data:`vision.synth.clutter.KINDS` thing."""
    parts: tuple[Part, ...]
    height_mm: float
    """Height above the table, for the shadow's offset."""


def _circle(center: np.ndarray, r: float, n: int = 24, squash: float = 1.0, angle: float = 0.0) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pts = np.column_stack([np.cos(t) * r, np.sin(t) * r * squash])
    c, s = np.cos(angle), np.sin(angle)
    return pts @ np.array([[c, s], [-s, c]]) + center


def capsule(p0: np.ndarray, p1: np.ndarray, r0: float, r1: float, n: int = 8) -> np.ndarray:
    """A tapered capsule polygon (mm) from ``p0`` (radius r0) to ``p1`` (radius r1)."""
    d = np.asarray(p1, float) - np.asarray(p0, float)
    a = np.arctan2(d[1], d[0])
    t0 = np.linspace(a + np.pi / 2, a + 3 * np.pi / 2, n)
    t1 = np.linspace(a - np.pi / 2, a + np.pi / 2, n)
    end0 = np.column_stack([np.cos(t0), np.sin(t0)]) * r0 + p0
    end1 = np.column_stack([np.cos(t1), np.sin(t1)]) * r1 + p1
    return np.vstack([end0, end1])


def _part(pts: np.ndarray, colour: np.ndarray) -> Part:
    return Part(tuple(map(tuple, np.round(pts, 3).tolist())), tuple(int(c) for c in np.clip(colour, 0, 255)))


def arm(rng: np.random.Generator, entry_mm: tuple[float, float], hand_mm: tuple[float, float]) -> Occluder:
    """An arm reaching from ``entry_mm`` (beyond the table edge) to a hand at ``hand_mm``."""
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], float) * rng.uniform(0.9, 1.1)
    sleeve = rng.uniform(20, 230, 3)
    p0, p1 = np.asarray(entry_mm, float), np.asarray(hand_mm, float)
    d = p1 - p0
    length = float(np.linalg.norm(d)) or 1.0
    u = d / length
    normal = np.array([-u[1], u[0]])
    wrist = p1 - u * 55
    parts = []
    cuff = p0 + d * rng.uniform(0.3, 0.75)
    parts.append(_part(capsule(p0, cuff, 55, 45), sleeve))
    parts.append(_part(capsule(cuff - u * 10, wrist, 38, 28), skin))
    palm_c = wrist + u * 45
    parts.append(_part(_circle(palm_c, 45, squash=0.85, angle=np.arctan2(u[1], u[0])), skin * 1.03))
    curl = rng.uniform(0.5, 1.0)  # curled fingers look shorter from above
    for k, (off, ln) in enumerate(zip((-27, -9, 9, 26), (62, 72, 68, 52), strict=True)):
        base = palm_c + u * 30 + normal * off
        spread = np.radians(rng.normal((k - 1.5) * 5, 3))
        dir_ = u * np.cos(spread) + normal * np.sin(spread)
        parts.append(_part(capsule(base, base + dir_ * ln * curl, 9.5, 8), skin * (0.97 + 0.02 * k)))
    side = 1 if rng.random() < 0.5 else -1
    tb = palm_c + normal * side * 35 - u * 10
    parts.append(_part(capsule(tb, tb + (u * 0.6 + normal * side * 0.8) * 50, 12, 9), skin * 0.98))
    return Occluder("arm", tuple(parts), float(rng.uniform(40, 180)))


def cup(rng: np.random.Generator, center_mm: tuple[float, float]) -> Occluder:
    """A cup or glass seen from above: rim, inner wall, drink."""
    c = np.asarray(center_mm, float)
    r = rng.uniform(32, 45)
    body = rng.uniform(30, 250, 3)
    drink = np.array([[20, 40, 70], [30, 90, 150], [200, 200, 200], [60, 120, 40]][int(rng.integers(4))], float)
    parts = (
        _part(_circle(c, r, 32), body),
        _part(_circle(c, r * 0.9, 32), body * 0.8),
        _part(_circle(c + rng.normal(0, 2, 2), r * 0.8, 32), drink),
    )
    return Occluder("cup", parts, float(rng.uniform(80, 120)))


def phone(rng: np.random.Generator, center_mm: tuple[float, float], angle_deg: float) -> Occluder:
    """A phone lying on the table, screen up (dark, with a faint reflection)."""
    c = np.asarray(center_mm, float)
    w, h = rng.uniform(68, 78), rng.uniform(140, 162)
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def rounded(wd: float, ht: float, r: float) -> np.ndarray:
        pts = []
        for cx, cy, t0 in ((wd / 2 - r, -ht / 2 + r, -90), (wd / 2 - r, ht / 2 - r, 0),
                           (-wd / 2 + r, ht / 2 - r, 90), (-wd / 2 + r, -ht / 2 + r, 180)):
            t = np.radians(np.linspace(t0, t0 + 90, 5))
            pts.append(np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)]))
        return np.vstack(pts) @ rot.T + c

    body = rng.uniform(15, 200, 3)
    screen = np.array([30, 25, 20], float) + rng.uniform(0, 40)
    return Occluder("phone", (_part(rounded(w, h, 9), body), _part(rounded(w - 6, h - 8, 6), screen)), 9.0)
