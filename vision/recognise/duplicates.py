"""One card found twice: a part of it detected as well as the whole, or two rectangles round it.

A detector's suppression keeps two rectangles of one card when they overlap less than its
threshold (rotated IoU 0.7); both are then named, usually alike. Of two face-up cards with the
same label whose boxes overlap by at least :data:`OVERLAP` of the smaller box, the less confident
is taken for the same card found again and dropped (:func:`one_of_each`). Backs are left alone (a
pile holds many).

A second rectangle turned about 45° over a card is named as another card as often as not: of two
outlines of the same face (up or down), whatever their names, whose centres lie within
:data:`NEAR` of the smaller one's short side, turned :data:`TURNED` degrees or more from each other
and sharing at least half of the smaller one, the less confident is the same card seen again
(:func:`one_outline_each`). Cards that truly overlap lie apart (a row, a pile's offset) or nearly
parallel (a fan turns each card 6-12° from the next); two cards dropped across each other, each
named by its own corner index, are two cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from vision.recognise.geometry import (
    box_area,
    box_intersection,
    polygon_area,
    polygon_overlap,
    polygon_turn,
)

OVERLAP = 0.5
"""Share of the smaller box two same-named cards must share to be taken for one card."""
NEAR = 0.25
"""Two outlines' centres at most this fraction of the smaller one's short side apart may be one card."""
TURNED = 20.0
"""Two overlapping outlines at least this far apart in direction (degrees) may be one card seen twice."""


def overlap(a, b) -> float:
    """Intersection of two boxes (x0, y0, x1, y1) over the smaller one's area (1: one lies inside the other)."""
    return box_intersection(a, b) / max(min(box_area(a), box_area(b)), 1e-9)


def kept_apart(items: Sequence, score: Callable[[Any], float], clash: Callable[[Any, Any], bool]) -> list:
    """``items`` in their order, less each for which ``clash(item, kept)`` holds with a surer one kept (surest first, by ``score``)."""
    keep: list = []
    for c in sorted(items, key=lambda c: -score(c)):
        if not any(clash(c, k) for k in keep):
            keep.append(c)
    return [c for c in items if any(c is k for k in keep)]


def one_of_each(cards: Sequence, share: float = OVERLAP) -> list:
    """``cards`` (anything with ``label``, ``face_up``, ``box``, ``confidence``) in their order, less the
    duplicates of a face-up card: of two with the same label whose boxes overlap by ``share`` of
    the smaller or more, the less confident."""
    return kept_apart(cards, lambda c: c.confidence,
                      lambda c, k: c.face_up and k.face_up and c.label == k.label and overlap(k.box, c.box) >= share)


def _short_side(poly: np.ndarray) -> float:
    return float(min(np.linalg.norm(poly[1] - poly[0]), np.linalg.norm(poly[2] - poly[1])))


def twins(a, b) -> bool:
    """Whether two cards (``face_up``, ``polygon``) are one card outlined twice, turned (module docstring)."""
    if a.face_up != b.face_up or getattr(a, "index_only", False) or getattr(b, "index_only", False):
        return False
    if getattr(a, "named_by", "card") == "index" and getattr(b, "named_by", "card") == "index":
        return False  # two corner indices read apart: two cards crossing, not one card outlined twice
    pa, pb = np.asarray(a.polygon, float), np.asarray(b.polygon, float)
    if len(pa) != 4 or len(pb) != 4:
        return False
    small = min(polygon_area(pa), polygon_area(pb))
    near = NEAR * min(_short_side(pa), _short_side(pb))
    return (float(np.linalg.norm(pa.mean(axis=0) - pb.mean(axis=0))) <= near
            and polygon_turn(pa, pb) >= TURNED and polygon_overlap(pa, pb) >= 0.5 * small)


def one_outline_each(cards: Sequence) -> list:
    """``cards`` (anything with ``face_up``, ``polygon``, ``confidence``) in their order, less a
    second, turned outline of one card: the less confident of two :func:`twins`, whatever their names."""
    return kept_apart(cards, lambda c: c.confidence, twins)
