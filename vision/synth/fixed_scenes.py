"""Scenes with a set purpose: a deck laid out in the enrolment grid, and top-down game tables.

Both reuse :func:`vision.synth.scene.sample_scene` for everything random (table, light, camera
effects, wear) and replace the cards and the camera:

- :func:`enrolment_scene`: every card of the deck face up in :func:`vision.enrol_grid.enrol_grid`
  order, 8 mm apart, nothing on top, photographed from above (tilt 0-8°, landscape, the grid's
  first row at the top of the image).
- :func:`topdown_scene`: a random scene's first ``n_cards`` cards, seen from straight above
  (tilt 0-3°, no lens distortion) with the whole play area in view — the frame a recogniser gets
  after rectification.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.enrol_grid import GRID_COLUMNS, GRID_ROWS, enrol_grid
from vision.synth.camera import CameraPose
from vision.synth.cardfaces import CARD_SIZE_MM, CardLook
from vision.synth.layouts import CardPlacement
from vision.synth.scene import Scene, sample_scene

GRID_GAP_MM = 8.0
GRID_MARGIN_MM = 15.0


def _top_down(rng: np.random.Generator, area: tuple[float, float], size: tuple[int, int], max_tilt: float,
              fill: float) -> CameraPose:
    """A camera above the middle of ``area`` that fits it into ``size`` with ``fill`` of the frame used."""
    fov = np.radians(rng.uniform(50, 70))
    focal = size[0] / 2 / np.tan(fov / 2)
    span_w = area[0] / fill
    span_h = area[1] / fill * size[0] / size[1]
    distance = max(span_w, span_h) / (2 * np.tan(fov / 2))
    return CameraPose((area[0] / 2, area[1] / 2), float(distance), float(rng.uniform(0, max_tilt)),
                      float(rng.uniform(0, 360)), float(rng.normal(0, 1.5)), float(focal), size)


def enrolment_scene(seed: int, deck: str, style: str, size: tuple[int, int] = (1280, 720),
                    textures: tuple[str, ...] = (), extras: bool = False) -> Scene:
    """``deck`` in ``style`` laid out in the enrolment grid (with the blank/jokers when ``extras``)."""
    base = sample_scene(seed, deck, (style,), size, textures)
    rng = np.random.default_rng([seed, 11])
    w, h = CARD_SIZE_MM[deck]
    cells = enrol_grid(deck, extras)
    rows = GRID_ROWS + (1 if extras else 0)
    area = (2 * GRID_MARGIN_MM + GRID_COLUMNS[deck] * (w + GRID_GAP_MM) - GRID_GAP_MM,
            2 * GRID_MARGIN_MM + rows * (h + GRID_GAP_MM) - GRID_GAP_MM)
    back = base.cards[0].look.back
    cards = tuple(
        CardPlacement(
            CardLook(c.card_id, True, back, 0.0, int(rng.integers(2**31)), base.cards[0].look.gloss),
            (GRID_MARGIN_MM + w / 2 + c.column * (w + GRID_GAP_MM) + rng.normal(0, 1.5),
             GRID_MARGIN_MM + h / 2 + c.row * (h + GRID_GAP_MM) + rng.normal(0, 1.5)),
            float((rng.normal(0, 1.5) + (180.0 if rng.random() < 0.5 else 0.0)) % 360),
        )
        for c in cells
    )
    return dataclasses.replace(base, layout="enrolment", area_mm=area, cards=cards, occluders=(),
                               camera=_top_down(rng, area, size, 8.0, 0.92))


def topdown_scene(seed: int, deck: str, styles: tuple[str, ...], n_cards: int = 20,
                  size: tuple[int, int] = (1280, 720), textures: tuple[str, ...] = ()) -> Scene:
    """A random game table with ``n_cards`` cards (fewer if the layout has fewer), seen from above."""
    base = sample_scene(seed, deck, styles, size, textures)
    rng = np.random.default_rng([seed, 13])
    cards = base.cards[:n_cards]
    return dataclasses.replace(base, cards=cards, camera=_top_down(rng, base.area_mm, size, 3.0, 0.95),
                               effects=dataclasses.replace(base.effects, k1=0.0))
