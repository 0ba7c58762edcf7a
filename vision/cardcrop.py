"""Classifier crops: a card's four corners warped to a square, the same way in training and at run time.

A crop is the card's face stretched to ``side × side`` pixels (BGR, uint8): corner 0 of the
polygon lands top-left, then clockwise. Stretching rather than padding keeps every pixel for the
face; the classifier only ever sees stretched faces, so the aspect does not matter to it.

The recogniser cannot tell which short edge of a card is its top (a card turned 180° is the same
card), so training crops are turned a half-turn at random and the classifier learns both ways up.
Its polygons also carry the detector's error: :func:`jitter_polygon` adds that error to the exact
polygons of rendered scenes.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_SIDE = 128
"""Side (px) of the stored classifier crops; the network input side may be smaller."""


def square_crop(image: np.ndarray, polygon, side: int = CROP_SIDE) -> np.ndarray:
    """The quadrilateral ``polygon`` (4 × 2 px, clockwise from the face's top-left) warped to ``side`` × ``side``."""
    src = np.asarray(polygon, np.float32).reshape(4, 2)
    s = side - 0.5
    dst = np.float32([[-0.5, -0.5], [s, -0.5], [s, s], [-0.5, s]])
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, m, (side, side), flags=cv2.INTER_AREA if _shrinks(src, side) else cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def _shrinks(src: np.ndarray, side: int) -> bool:
    """Whether the warp makes the card smaller (then area interpolation avoids aliasing)."""
    return float(np.linalg.norm(src[3] - src[0])) > 1.5 * side


def half_turn(polygon) -> np.ndarray:
    """The same card's polygon listed from the opposite corner (the face turned 180°)."""
    return np.roll(np.asarray(polygon, np.float64).reshape(4, 2), 2, axis=0)


def jitter_polygon(polygon, rng: np.random.Generator, sigma: float = 0.02) -> np.ndarray:
    """``polygon`` with the detector's kind of error: a shift, a scale change, a small turn, corner noise.

    ``sigma`` is the standard deviation of each disturbance as a fraction of the card's long side
    (shift and corner noise) or as a relative scale (size); the turn is ``sigma`` × 90° at one sigma.
    """
    p = np.asarray(polygon, np.float64).reshape(4, 2)
    c = p.mean(axis=0)
    long_side = max(float(np.linalg.norm(p[3] - p[0])), float(np.linalg.norm(p[1] - p[0])))
    a = np.deg2rad(rng.normal(0.0, sigma * 90.0))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    scale = 1.0 + rng.normal(0.0, sigma)
    q = (p - c) @ rot.T * scale + c + rng.normal(0.0, sigma * long_side, 2)
    return q + rng.normal(0.0, sigma * 0.5 * long_side, (4, 2))


def upright(polygon) -> np.ndarray:
    """``polygon`` listed so that its first edge is a short one (portrait face), clockwise on screen.

    Which short edge comes first is left as it is: the classifier reads both ways up.
    """
    p = np.asarray(polygon, np.float64).reshape(4, 2)
    # Clockwise on screen (y down) means a positive shoelace sum.
    area = sum(p[i, 0] * p[(i + 1) % 4, 1] - p[(i + 1) % 4, 0] * p[i, 1] for i in range(4))
    if area < 0:
        p = p[::-1].copy()
    if np.linalg.norm(p[1] - p[0]) > np.linalg.norm(p[2] - p[1]):
        p = np.roll(p, -1, axis=0)
    return p


CORNER_MARGIN = 0.15
"""Border added around a corner-index box on every side, as a fraction of its longer side."""


def index_square(box, margin: float = CORNER_MARGIN, angle: float = 0.0, scale: float = 1.0,
                 shift=(0.0, 0.0)) -> np.ndarray:
    """The square (4 × 2 px, clockwise) a corner-index crop is cut from: centred on ``box``.

    ``box`` is ``(x0, y0, x1, y1)`` px; the square's side is the box's longer side plus ``margin`` of
    it on each side, times ``scale``; it is turned by ``angle`` degrees about its centre and moved
    by ``shift`` (fractions of its side). Training disturbs angle, scale and shift; run time uses
    the defaults, the same square the training crops are centred on.
    """
    x0, y0, x1, y1 = (float(v) for v in box)
    side = max(x1 - x0, y1 - y0) * (1.0 + 2.0 * margin) * scale
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2]) + np.asarray(shift, np.float64) * side
    a = np.deg2rad(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = side / 2
    return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + c
