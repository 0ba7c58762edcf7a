"""ArUco calibration markers (DICT_4X4_50, ids 0-3) and the printed mat, in table millimetres.

Marker k is centred on corner k of the play area: 0 top-left (0, 0), 1 top-right (width, 0),
2 bottom-right (width, height), 3 bottom-left (0, height) — the corners the calibration maps to a
top-down view. ``size_mm`` is the side of the black square; a white quiet zone of one cell
(size/6) surrounds it. Mode ``mat``: a printed mat covers the play area plus the markers;
``taped``: paper squares taped to the table; ``none``: no markers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

MODES = ("none", "mat", "taped")
ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)


@dataclass(frozen=True, slots=True)
class MarkerSpec:
    """Calibration markers and mat."""

    mode: str = "none"
    """One of :data:`MODES`."""
    size_mm: float = 50.0
    """Side of each marker's black square, mm."""
    mat_colour: tuple[int, int, int] = (235, 235, 235)
    """Mat colour (BGR) for mode ``mat``."""
    zone_lines: bool = True
    """Mat: draw the field outline as printed zone lines."""


def marker_centres(area: tuple[float, float]) -> np.ndarray:
    """4 × 2 centres (mm) of markers 0-3 (play-area corners, clockwise from top-left)."""
    w, h = area
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def marker_corners_mm(area: tuple[float, float], size_mm: float, quiet: bool = False) -> np.ndarray:
    """4 × 4 × 2 corners (mm) of markers 0-3, each clockwise from its top-left as ArUco reports
    them; ``quiet`` enlarges each square by its white quiet zone."""
    half = size_mm / 2 * (8 / 6 if quiet else 1.0)
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return marker_centres(area)[:, None, :] + local[None, :, :]


@lru_cache(maxsize=8)
def marker_image(marker_id: int, cell_px: int = 8) -> np.ndarray:
    """Marker ``marker_id`` with its quiet zone, 8 × 8 cells of ``cell_px`` pixels, uint8 grey."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    core = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * cell_px)
    img = np.full((8 * cell_px, 8 * cell_px), 255, np.uint8)
    img[cell_px:-cell_px, cell_px:-cell_px] = core
    img.setflags(write=False)
    return img
