"""Where a table frame is read for corner indices at its own resolution, in tiles.

The index detector reads a frame scaled to its input size (320 px on the long side), the scale of
the close-up photographs it was first trained on. Seen from above, a table's cards print indices
of 12-30 px in a 720p or 1080p frame, 3-8 px at that scale: unreadable. Such a frame is read in
tiles of the detector's input size cut from the frame as it is (scale 1), but only round the cards
the whole-card path leaves in doubt (:func:`doubtful`): a hand fanned or spread, a card named
unsure. A table of cards lying apart and named sure costs nothing more.

:func:`wants_tiles` decides: the frame is at least :data:`TILE_FROM` detector inputs on its long
side, the whole cards found there imply indices smaller than ``close_px`` at the whole-frame scale
(a close-up is read whole, :func:`vision.recognise.index_reader.needs_reading`), and some card is in
doubt. :func:`tile_origins` then covers each doubtful card's box, widened by :data:`MARGIN` of its
long side, with as few tiles as a greedy cover gives, at most :data:`MAX_TILES`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.recognise.geometry import box_area, box_intersection

TILE_FROM = 3.0
"""A frame is read in tiles only when its long side is at least this many detector inputs (960 px for
the 320-px detector: a 720p or larger camera frame, not a phone photo resized to 640 px)."""
MARGIN = 0.15
"""A doubtful card's box is widened by this fraction of its long side on each side before tiling."""
OVERLAP_SHARE = 0.2
"""A card whose box shares at least this fraction of the smaller box with another card's is in doubt."""
MAX_TILES = 24
"""At most this many tiles per frame (a 1920 × 1080 frame is covered by 28 tiles of 320 px)."""
STEP = 0.8
"""Tiles over one wide box step by this fraction of the tile, so an index cut by one edge is whole in the next."""


def doubtful(cards: Sequence) -> list[tuple[float, float, float, float]]:
    """Boxes (frame px) of the cards in doubt: named unsure, or overlapping another card by
    :data:`OVERLAP_SHARE` of the smaller box (a hand fanned or spread, a pile)."""
    boxes = [tuple(float(v) for v in c.box) for c in cards]
    out = []
    for i, c in enumerate(cards):
        crowded = any(j != i and box_intersection(boxes[i], boxes[j])
                      >= OVERLAP_SHARE * max(1e-6, min(box_area(boxes[i]), box_area(boxes[j])))
                      for j in range(len(cards)))
        if c.unsure or crowded:
            out.append(boxes[i])
    return out


def implied_index_px(cards: Sequence, scale: float, fraction: float) -> float:
    """Median height (px at ``scale``) of the index the cards' outlines imply (``fraction`` of the long side)."""
    if not cards:
        return 0.0
    sides = []
    for c in cards:
        q = np.asarray(c.polygon, np.float64).reshape(4, 2)
        sides.append(max(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1]))))
    return float(np.median(sides)) * fraction * scale


def wants_tiles(frame_size: tuple[int, int], tile: int, cards: Sequence, close_px: float, fraction: float) -> bool:
    """Whether a frame of ``frame_size`` (w, h) is read in tiles (module docstring)."""
    return bool(tiles_for(frame_size, tile, cards, close_px, fraction))


def tiles_for(frame_size: tuple[int, int], tile: int, cards: Sequence, close_px: float,
              fraction: float) -> list[tuple[int, int]]:
    """The tiles (:func:`tile_origins`) a frame of ``frame_size`` (w, h) is read in, round its cards in
    doubt; none where it is read whole or not at all (module docstring)."""
    if max(frame_size) < TILE_FROM * tile or not cards or implied_index_px(cards, tile / max(frame_size), fraction) >= close_px:
        return []
    return tile_origins(frame_size, doubtful(cards), tile)


def _spans(lo: float, hi: float, tile: int, limit: int) -> list[int]:
    """Tile starts along one axis covering ``lo``-``hi`` inside ``0``-``limit``."""
    if hi - lo <= tile:
        return [int(np.clip((lo + hi) / 2 - tile / 2, 0, max(0, limit - tile)))]
    n = int(np.ceil((hi - lo - tile) / (STEP * tile))) + 1
    starts = np.linspace(lo, hi - tile, n)
    return sorted({int(np.clip(s, 0, max(0, limit - tile))) for s in starts})


def tile_origins(frame_size: tuple[int, int], boxes: Sequence[tuple[float, float, float, float]],
                 tile: int) -> list[tuple[int, int]]:
    """Top-left corners of ``tile``-px tiles covering ``boxes`` (each widened by :data:`MARGIN`),
    a box already inside a chosen tile adding none; at most :data:`MAX_TILES`, the largest boxes first."""
    w, h = frame_size
    out: list[tuple[int, int]] = []
    for x0, y0, x1, y1 in sorted(boxes, key=lambda b: -box_area(b)):
        m = MARGIN * max(x1 - x0, y1 - y0)
        x0, y0, x1, y1 = max(0.0, x0 - m), max(0.0, y0 - m), min(float(w), x1 + m), min(float(h), y1 + m)
        if any(ox <= x0 and oy <= y0 and x1 <= ox + tile and y1 <= oy + tile for ox, oy in out):
            continue
        for oy in _spans(y0, y1, tile, h):
            for ox in _spans(x0, x1, tile, w):
                if (ox, oy) not in out:
                    out.append((ox, oy))
    return out[:MAX_TILES]
