"""Hands laid face up the way players hold them: four hands of 13 playing cards, fanned or spread.

:func:`hands_scene` deals a shuffled 52-card deck into four hands of 13, one in front of each edge
of the play area (as at the end of a Bagaji round, when hands are laid down face up), each either

- a *fan*: cards turned about a point below their bottom edges, 4-10° apart;
- a *spread*: cards in a row, each shifted 13-24 mm along the row and a little off it;

and either way round (later cards cover the earlier ones from the left or from the right, so that
either the top-left or the bottom-right corner index is the one that shows), with each hand's
cards a little untidy. The camera looks from straight above (tilt 0-3°) or, with ``tilted``,
from 18-32° off the vertical, as a webcam on a stand beside the table does.

:func:`index_truth` says which cards of a rendered scene a reader of corner indices can see: a
face-up card one of whose two printed corner indices (the regions of :data:`INDEX_REGION`) is at
least :data:`INDEX_SEEN` uncovered. A card counts once however many of its corners show.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.synth.cardfaces import CARD_SIZE_MM, CardLook
from vision.synth.fixed_scenes import _top_down
from vision.synth.layouts import SEAT_ANGLES, CardPlacement, seat_anchor
from vision.synth.scene import Scene, sample_scene

HAND = 13
SEATS = ("bottom", "left", "top", "right")
INDEX_REGION = ((0.02, 0.02), (0.20, 0.26))
"""The top-left corner index of a playing card as a fraction of its width and height (x0, y0),
(x1, y1); the other index is the same region turned 180° (bottom-right)."""
INDEX_SEEN = 0.6
"""A corner index at least this fraction uncovered counts as readable."""


def _unit(angle_deg: float) -> np.ndarray:
    a = np.radians(angle_deg)
    return np.array([np.cos(a), np.sin(a)])


def _hand(rng: np.random.Generator, seat: str, area: tuple[float, float], size: tuple[float, float],
          kind: str) -> list[tuple[tuple[float, float], float]]:
    """Centres (mm) and angles of one hand of :data:`HAND` cards, bottom-first."""
    upright = SEAT_ANGLES[seat] + rng.normal(0, 6)
    centre = np.asarray(seat_anchor(seat, area, size, rng.uniform(0.35, 0.65)), float)
    right = _unit(upright)  # along the row, as the seat sees it: left to right
    up = -_unit(upright + 90)  # towards the card's top
    out = []
    if kind == "fan":
        step = rng.uniform(6, 11)
        radius = size[1] * rng.uniform(0.5, 0.8)
        pivot = centre - up * radius * 0.55
        for k in range(HAND):
            a = upright + (k - (HAND - 1) / 2) * step
            pos = pivot - _unit(a + 90) * radius + rng.normal(0, 0.8, 2)
            out.append(((float(pos[0]), float(pos[1])), float(a + rng.normal(0, 1.0))))
    else:
        step = rng.uniform(13, 24)
        for k in range(HAND):
            pos = centre + right * (k - (HAND - 1) / 2) * step + up * rng.normal(0, 1.5)
            out.append(((float(pos[0]), float(pos[1])), float(upright + rng.normal(0, 2.5))))
    other_way = rng.random() < 0.5
    if other_way and kind == "fan":  # held upside down: the other corner's index shows
        out = [(pos, a + 180.0) for pos, a in out]
    elif other_way:  # a spread the other way round: the right edges show
        out = out[::-1]
    return out


def hands_scene(seed: int, deck: str = "playing", styles: tuple[str, ...] = ("knoll",),
                size: tuple[int, int] = (1280, 720), textures: tuple[str, ...] = (), tilted: bool = False) -> Scene:
    """Four face-up hands of 13 playing cards, fanned or spread (module docstring)."""
    if deck != "playing":
        raise ValueError("hands of 13 are playing-card hands")
    base = sample_scene(seed, deck, styles, size, textures)
    rng = np.random.default_rng([seed, 17])
    w, h = CARD_SIZE_MM[deck]
    area = (700.0, 560.0)
    ids = [f"{r}{s}" for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]
    order = rng.permutation(len(ids))
    back = base.cards[0].look.back if base.cards else "blue"
    gloss = base.cards[0].look.gloss if base.cards else 0.3
    cards: list[CardPlacement] = []
    for n, seat in enumerate(SEATS):
        kind = "fan" if rng.random() < 0.5 else "spread"
        for k, (pos, angle) in enumerate(_hand(rng, seat, area, (w, h), kind)):
            card = ids[int(order[n * HAND + k])]
            cards.append(CardPlacement(CardLook(card, True, back, 0.0, int(rng.integers(2**31)), gloss),
                                       pos, float(angle % 360)))
    camera = _top_down(rng, area, size, 3.0, 0.95)
    if tilted:
        camera = dataclasses.replace(camera, tilt_deg=float(rng.uniform(18, 32)),
                                     distance_mm=camera.distance_mm * 1.08)
    return dataclasses.replace(base, layout="hands", area_mm=area, cards=tuple(cards), occluders=(),
                               camera=camera, effects=dataclasses.replace(base.effects, k1=0.0))


def face_region(poly: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The quad of a card's face region (fractions of its width and height) in image px."""
    tl, tr, br, bl = poly
    def at(u: float, v: float) -> np.ndarray:  # bilinear inside the face's outline
        return (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    return np.array([at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)], np.float32)


def seen_indices(labels, size: tuple[int, int], region_of, scale: float = 0.5, seen: float = INDEX_SEEN):  # noqa: ANN001
    """``(card id, quad)`` of each corner index of a rendered scene's face-up cards (``size`` = its
    image's width and height) at least ``seen`` uncovered by the cards above and inside the image,
    top card first; ``region_of(card id)`` is the top-left index as (x0, y0, x1, y1) fractions of
    the face (the bottom-right one is it turned 180°), None for a card to pass over. Masks are
    drawn at ``scale`` of the image."""
    shape = (int(size[1] * scale), int(size[0] * scale))
    above = np.zeros(shape, np.uint8)
    out = []
    for card in sorted(labels.cards, key=lambda c: -c.z):  # top first: what lies above each card is drawn before it
        poly = np.asarray(card.polygon, np.float32)
        region = region_of(card.card_id) if card.face_up else None
        if region is not None:
            x0, y0, x1, y1 = region
            for quad in (face_region(poly, x0, y0, x1, y1), face_region(poly, 1 - x1, 1 - y1, 1 - x0, 1 - y0)):
                pts = np.round(quad * scale).astype(np.int32)
                mask = cv2.fillPoly(np.zeros(shape, np.uint8), [pts], 1)
                area = cv2.countNonZero(cv2.fillPoly(np.zeros((shape[0] * 3, shape[1] * 3), np.uint8),
                                                     [pts + [shape[1], shape[0]]], 1))
                if area and (mask & (above == 0)).sum() >= seen * area:
                    out.append((card.card_id, quad))
        cv2.fillPoly(above, [np.round(poly * scale).astype(np.int32)], 1)
    return out


def index_truth(labels, size: tuple[int, int], scale: float = 0.5) -> set[str]:  # noqa: ANN001
    """The face-up cards of ``labels`` (a rendered scene's, ``size`` = its image's width and height)
    with a corner index readable inside the image (module docstring), by their ids; masks are drawn
    at ``scale`` of the image."""
    (x0, y0), (x1, y1) = INDEX_REGION
    return {card for card, _ in seen_indices(labels, size, lambda _: (x0, y0, x1, y1), scale)}
