"""Boxes and outlines in frame pixels: areas, overlaps, turns; which box is which true card.

A box matches a true card when the two (the true card's outline's bounds clipped to the image, and
the detector's box) overlap by intersection over union ≥ 0.5 — the usual rule of detection
benchmarks (mAP50). Matching (:func:`match`) is greedy and blind to labels, each box used once: true
cards seen whole have the first claim, then those seen at least 40 %, then the rest, and within each
of these tiers the best overlap goes first. (A card lying squarely on another that shows a sliver has
nearly the same box as the card under it; without the tiers the hidden card could take the one
detection there and the card on top would count as missed.) Enrolment's practice scenes and the
evaluation (:mod:`vision.evaluate`) match by this one rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

MATCH_IOU = 0.5
SEEN_WHOLE = 0.999
"""Visible fraction from which a card counts as fully visible (rendering leaves a hair's breadth)."""
SEEN_ENOUGH = 0.4
"""Visible fraction of the second reported accuracy: cards seen at least 40 %."""
CLAIM_TIERS = (SEEN_WHOLE, SEEN_ENOUGH)
"""Visible fractions from which a true card claims a box before less visible ones (see the module)."""


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


def box_iou(a, b) -> float:
    """Intersection over union of two boxes (x0, y0, x1, y1)."""
    inter = box_intersection(a, b)
    return inter / (box_area(a) + box_area(b) - inter) if inter > 0 else 0.0


def claim_tier(visible: float) -> int:
    """0 for a card seen whole, 1 for one seen at least 40 %, 2 for the rest (lower claims first)."""
    return next((k for k, v in enumerate(CLAIM_TIERS) if visible >= v), len(CLAIM_TIERS))


def match(boxes: Sequence, truth: Sequence) -> list[int | None]:
    """For each true card (anything with ``box`` and ``visible``), the index of its matching box
    (or None); tiers and order as in the module."""
    pairs = []
    for ti, t in enumerate(truth):
        for pi, b in enumerate(boxes):
            iou = box_iou(b, t.box)
            if iou >= MATCH_IOU:
                pairs.append((-claim_tier(t.visible), iou, ti, pi))
    out: list[int | None] = [None] * len(truth)
    used = set()
    for _, _, ti, pi in sorted(pairs, reverse=True):
        if out[ti] is None and pi not in used:
            out[ti] = pi
            used.add(pi)
    return out
