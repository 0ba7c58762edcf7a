"""Boxes and outlines in frame pixels: areas, overlaps, turns."""

from __future__ import annotations

import cv2
import numpy as np


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
