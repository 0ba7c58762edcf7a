"""The table as the dashboard shows it: a top-down picture of the play area with zones and cards.

:func:`top_down` warps a camera frame onto the play area (the calibration's homography, table
millimetres → pixels at ``px_per_mm``), outlines every zone (thin grey, its name at its centre) and
every card the stabiliser holds: a face-up card in green with its likeliest name when that name's
probability is at least :data:`SURE` and amber below it (with the probability), a face-down card in
blue, a card kept under others dashed. Without a calibration the frame itself is returned, smaller,
with a banner saying the markers are not found. :func:`jpeg` encodes a picture for the MJPEG stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import cv2
import numpy as np

SURE = 0.8
"""A card's likeliest name at or above this probability is drawn as sure (green)."""
GREEN, AMBER, BLUE, GREY, BLACK = (60, 170, 60), (0, 170, 240), (200, 120, 40), (150, 150, 150), (20, 20, 20)


def _label(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int], scale: float = 0.45) -> None:
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    x, y = int(at[0] - w / 2), int(at[1] + h / 2)
    cv2.rectangle(image, (x - 2, y - h - 2), (x + w + 2, y + base), BLACK, -1)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def top_down(frame: np.ndarray, calibration: Any, zones: Iterable[Any], cards: Sequence[Any],
             px_per_mm: float = 0.8) -> np.ndarray:
    """The annotated top-down picture (module docstring); BGR ``uint8``."""
    if calibration is None:
        scale = 640.0 / frame.shape[1]
        small = cv2.resize(frame, (640, int(frame.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        _label(small, "looking for the mat's four corner markers", (320, 20), AMBER, 0.55)
        return small
    w_mm, h_mm = calibration.area_mm
    size = (max(1, int(round(w_mm * px_per_mm))), max(1, int(round(h_mm * px_per_mm))))
    to_px = np.diag([px_per_mm, px_per_mm, 1.0]) @ np.asarray(calibration.frame_to_table, dtype=np.float64)
    out = cv2.warpPerspective(frame, to_px, size, flags=cv2.INTER_LINEAR, borderValue=(40, 40, 40))

    def pts(poly_mm: Sequence[Sequence[float]]) -> np.ndarray:
        return (np.asarray(poly_mm, dtype=np.float64) * px_per_mm).round().astype(np.int32).reshape(-1, 1, 2)

    for zone in zones:
        cv2.polylines(out, [pts(zone.polygon_mm)], True, GREY, 1, cv2.LINE_AA)
        cx, cy = zone.center_mm
        _label(out, zone.name, (int(cx * px_per_mm), int(cy * px_per_mm)), GREY, 0.4)
    for card in cards:
        poly = pts(card.polygon_mm)
        if not card.face_up:
            colour, text = BLUE, "back"
        else:
            name, p = card.probs[0] if card.probs else ("?", 0.0)
            colour = GREEN if p >= SURE else AMBER
            text = name if p >= SURE else f"{name} {p:.0%}"
        if getattr(card, "covered", False):
            for a, b in zip(poly[:, 0], np.roll(poly[:, 0], -1, axis=0), strict=True):
                for k in range(0, 10, 2):
                    p0 = a + (b - a) * k / 10
                    p1 = a + (b - a) * (k + 1) / 10
                    cv2.line(out, tuple(int(v) for v in p0), tuple(int(v) for v in p1), colour, 2, cv2.LINE_AA)
        else:
            cv2.polylines(out, [poly], True, colour, 2, cv2.LINE_AA)
        cx, cy = card.centre_mm
        _label(out, text, (int(cx * px_per_mm), int(cy * px_per_mm)), colour)
    return out


def jpeg(image: np.ndarray, quality: int = 75) -> bytes:
    """``image`` as JPEG bytes."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("the picture could not be encoded as JPEG")
    return data.tobytes()
