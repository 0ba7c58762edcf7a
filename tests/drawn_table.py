"""Helpers for tests that draw a table by hand: a calibration that maps table mm to frame px by a
scale and a margin, and a card's outline in table mm."""

from __future__ import annotations

import numpy as np

from vision.calibrate import Calibration


def calibration(area_mm: tuple[float, float], t: float = 0.0, scale: float = 1.0, margin: float = 0.0) -> Calibration:
    """Table mm → frame px: ``scale`` px per mm, the play area ``margin`` mm from the frame's corner."""
    to_frame = np.array([[scale, 0.0, scale * margin], [0.0, scale, scale * margin], [0.0, 0.0, 1.0]])
    to_table = np.linalg.inv(to_frame)
    to_frame.setflags(write=False)
    to_table.setflags(write=False)
    return Calibration(to_table, to_frame, area_mm, (0, 1, 2, 3), 0.0, t, "markers", False)


def card_poly(centre: tuple[float, float], card: tuple[float, float], angle: float = 0.0) -> np.ndarray:
    """The four corners (table mm) of a ``card`` (width, height mm) at ``centre``, turned ``angle`` degrees."""
    w, h = card
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return pts @ rot.T + centre
