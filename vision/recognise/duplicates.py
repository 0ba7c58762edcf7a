"""One card found twice: a part of it detected as well as the whole, or two rectangles round it.

A detector's suppression keeps two rectangles of one card when they overlap less than its
threshold (rotated IoU 0.7); both are then named, usually alike. Of two face-up cards with the
same label whose boxes overlap by at least :data:`OVERLAP` of the smaller box, the less confident
is taken for the same card found again and dropped. Backs are left alone (a pile holds many).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from vision.recognise.geometry import box_area, box_intersection

OVERLAP = 0.5
"""Share of the smaller box two same-named cards must share to be taken for one card."""


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
