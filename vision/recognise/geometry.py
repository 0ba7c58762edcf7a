"""From a card's axis-aligned box to its oriented outline.

A card of known aspect ``r`` (short side over long side) whose long axis makes an angle φ with the
image x-axis has a bounding box of aspect ``u = w / h = (cos φ + r sin φ) / (sin φ + r cos φ)``, so
``tan φ = (1 − u r) / (u − r)`` for φ in 0..90°. The box cannot tell φ from −φ (the card leaning
left or right): :func:`leans` gives both. Recognition classifies both and keeps the surer answer
(:meth:`vision.recognise.Recogniser.named_outlines`); :func:`outline` chooses without a classifier,
by how strongly the image changes across each outline's four edges (the card's border against
whatever lies around it, or a printed frame line just inside it). Frames must be top-down (after
rectification), where cards keep their true aspect.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cardcrop import upright

_BAND = np.linspace(-1.0, 1.0, 11)
"""Offsets across an edge, in units of :data:`_BAND_FRACTION` × the card's short side."""
_BAND_FRACTION = 0.07
_SAMPLES = 24
"""Points sampled along each edge (its middle 70 %)."""


def box_intersection(a, b) -> float:
    """Area (px²) shared by two boxes (x0, y0, x1, y1); 0 when they do not overlap."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    return float(iw * ih) if iw > 0 and ih > 0 else 0.0


def box_area(a) -> float:
    """Area (px²) of a box (x0, y0, x1, y1)."""
    return float((a[2] - a[0]) * (a[3] - a[1]))


def polygon_area(poly) -> float:
    """Area of an outline (its points in order)."""
    return abs(float(cv2.contourArea(np.asarray(poly, np.float32))))


def polygon_overlap(a, b) -> float:
    """Area shared by two convex outlines."""
    area, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32), np.asarray(b, np.float32))
    return float(area)


def polygon_turn(a, b) -> float:
    """The angle (degrees, 0-90) between the long sides of two outlines."""
    def direction(poly) -> float:
        (_, _), (w, h), angle = cv2.minAreaRect(np.asarray(poly, np.float32))
        return (angle + (90.0 if h > w else 0.0)) % 180.0
    d = abs(direction(a) - direction(b)) % 180.0
    return min(d, 180.0 - d)


def gradients(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Horizontal and vertical intensity gradients (float32) of a BGR frame, lightly smoothed."""
    grey = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    return cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)


def box_angle(box: tuple[float, float, float, float], aspect: float) -> float:
    """The long axis' angle φ (degrees, 0..90) of a card of ``aspect`` whose bounds are ``box``."""
    w, h = box[2] - box[0], box[3] - box[1]
    u = float(np.clip(w / max(h, 1e-6), aspect, 1.0 / aspect))
    return float(np.degrees(np.arctan2(1.0 - u * aspect, u - aspect)))


def rectangle(box: tuple[float, float, float, float], aspect: float, angle_deg: float) -> np.ndarray:
    """The card outline (4 × 2) centred in ``box`` with its long axis at ``angle_deg``, sized to fit the box."""
    w, h = box[2] - box[0], box[3] - box[1]
    t = np.radians(angle_deg)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    # Long side b from the width and from the height; average the two estimates.
    b = 0.5 * (w / (c + aspect * s) + h / (s + aspect * c))
    a = aspect * b
    long_axis = np.array([np.cos(t), np.sin(t)])
    short_axis = np.array([-np.sin(t), np.cos(t)])
    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    corners = [centre + sl * long_axis * b / 2 + ss * short_axis * a / 2
               for sl, ss in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return np.array(corners)


def edge_score(poly: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> float:
    """Mean gradient magnitude across the outline's edges (along each edge's normal)."""
    h, w = gx.shape
    t = np.linspace(0.15, 0.85, _SAMPLES)
    band = max(2.0, _BAND_FRACTION * min(float(np.linalg.norm(poly[1] - poly[0])),
                                         float(np.linalg.norm(poly[2] - poly[1]))))
    total, n = 0.0, 0
    for i in range(4):
        p, q = poly[i], poly[(i + 1) % 4]
        d = q - p
        length = float(np.hypot(*d))
        if length < 1e-6:
            continue
        normal = np.array([-d[1], d[0]]) / length
        # The strongest change across a band around the edge (wide enough to take in a printed
        # frame line just inside the card's border, which is parallel to the true edge).
        pts = p + t[:, None, None] * d + (band * _BAND)[None, :, None] * normal
        xi = np.clip(np.rint(pts[..., 0]).astype(int), 0, w - 1)
        yi = np.clip(np.rint(pts[..., 1]).astype(int), 0, h - 1)
        mid = pts[:, len(_BAND) // 2]
        inside = (mid[:, 0] >= 0) & (mid[:, 0] <= w - 1) & (mid[:, 1] >= 0) & (mid[:, 1] <= h - 1)
        if not inside.any():
            continue
        g = np.abs(gx[yi, xi] * normal[0] + gy[yi, xi] * normal[1]).max(axis=1)[inside]
        total += float(g.sum())
        n += int(inside.sum())
    return total / n if n else 0.0


def leans(box: tuple[float, float, float, float], aspect: float) -> list[np.ndarray]:
    """The outlines ``box`` allows: the card leaning at +φ and at −φ (one outline when φ is about 0° or 90°)."""
    phi = box_angle(box, aspect)
    bases = {round(phi, 3), round(-phi, 3)} if 1.0 < phi < 89.0 else {round(phi, 3)}
    return [rectangle(box, aspect, base) for base in bases]


def outline(box: tuple[float, float, float, float], aspect: float, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """The best-supported card outline for ``box``, listed portrait-first (:func:`vision.cardcrop.upright`)."""
    best, best_score = None, -1.0
    for poly in leans(box, aspect):
        score = edge_score(poly, gx, gy)
        if score > best_score:
            best, best_score = poly, score
    return upright(best)
