"""How the renderer draws the calibration markers and the mat, in table millimetres.

The markers themselves (ids, positions, images) are :mod:`vision.markers`, re-exported here.
Marker k is centred on corner k of the play area: 0 top-left (0, 0), 1 top-right (width, 0),
2 bottom-right (width, height), 3 bottom-left (0, height) — the corners the calibration maps to a
top-down view. ``size_mm`` is the side of the black square; a white quiet zone of one cell
(size/6) surrounds it. Mode ``mat``: a printed mat covers the play area plus the markers;
``taped``: paper squares taped to the table; ``none``: no markers.
"""

from __future__ import annotations

from dataclasses import dataclass

from vision.markers import ARUCO_DICT, MARKER_IDS, marker_centres, marker_corners_mm, marker_image

__all__ = ["ARUCO_DICT", "MARKER_IDS", "MODES", "MarkerSpec", "marker_centres", "marker_corners_mm",
           "marker_image"]

MODES = ("none", "mat", "taped")


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
