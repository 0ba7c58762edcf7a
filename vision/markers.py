"""ArUco calibration markers (DICT_4X4_50, ids 0-3) of the table protocol, in table millimetres.

Table coordinates follow :mod:`vision.zones`: millimetres on the table plane, x to the right, y down
in a top-down view. Marker k is centred on corner k of the play area (0, 0)-(width, height):
0 top-left (0, 0), 1 top-right (width, 0), 2 bottom-right (width, height), 3 bottom-left
(0, height). A marker is a black square of side ``size`` (6 × 6 cells: a one-cell black border
around the 4 × 4 bit pattern) upright in table coordinates, surrounded by a white quiet zone one
cell (size / 6) wide. ArUco reports a marker's corners clockwise from its top-left, as seen in the
printed image; :func:`marker_corners_mm` lists them in that order.

The renderer (:mod:`vision.synth.markers`), the printed mat (:mod:`vision.mat`) and the
calibration (:mod:`vision.calibrate`) share these definitions.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

ARUCO_DICT = cv2.aruco.DICT_4X4_50
"""The ArUco dictionary of the markers."""
MARKER_IDS = (0, 1, 2, 3)
"""Marker ids, one per play-area corner, clockwise from top-left."""
QUIET_RATIO = 8 / 6
"""Side of a marker with its white quiet zone over the side of its black square."""


def marker_centres(area: tuple[float, float]) -> np.ndarray:
    """4 × 2 centres (mm) of markers 0-3: the play-area corners, clockwise from top-left."""
    w, h = area
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def marker_corners_mm(area: tuple[float, float], size_mm: float, quiet: bool = False) -> np.ndarray:
    """4 × 4 × 2 corners (mm) of markers 0-3, each clockwise from its top-left as ArUco reports
    them; ``quiet`` enlarges each square by its white quiet zone."""
    half = size_mm / 2 * (QUIET_RATIO if quiet else 1.0)
    local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return marker_centres(area)[:, None, :] + local[None, :, :]


@lru_cache(maxsize=8)
def marker_image(marker_id: int, cell_px: int = 8) -> np.ndarray:
    """Marker ``marker_id`` with its quiet zone, 8 × 8 cells of ``cell_px`` pixels, uint8 grey
    (read-only)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    core = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * cell_px)
    img = np.full((8 * cell_px, 8 * cell_px), 255, np.uint8)
    img[cell_px:-cell_px, cell_px:-cell_px] = core
    img.setflags(write=False)
    return img
