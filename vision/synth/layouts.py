"""Where cards lie: placements in table millimetres, and the layouts players make.

Table coordinates as in :mod:`vision.synth.camera` (mm; x right, y down in a top-down view). The
play area is the rectangle (0, 0)-(width, height) mm whose corners carry the ArUco markers.
A card's ``angle_deg`` turns it clockwise as seen from above (y down): 0 = upright for the seat at
the bottom edge (its top towards −y), 90 = upright for the seat at the left edge, 180 for the top
edge, 270 for the right edge.

Layouts (each returns placements bottom-first, so later cards cover earlier ones):
field grid, overlapping capture rows, stacked piles (only the top card shows), fanned and spread
hands, a face-down stock and scattered cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.cardfaces import CardLook

SEAT_ANGLES = {"bottom": 0.0, "left": 90.0, "top": 180.0, "right": 270.0}
"""Card angle that is upright for a player sitting at each edge of the play area."""


@dataclass(frozen=True, slots=True)
class CardPlacement:
    """One physical card on the table."""

    look: CardLook
    """Which card, face up or down, its wear and gloss."""
    center_mm: tuple[float, float]
    """Centre of the card on the table (mm)."""
    angle_deg: float
    """Clockwise rotation seen from above; 0 = top edge towards −y."""


@dataclass(frozen=True, slots=True)
class Spot:
    """A card position chosen by a layout, before its look is decided."""

    center_mm: tuple[float, float]
    angle_deg: float
    face_up: bool = True


def card_corners_mm(center: tuple[float, float], angle_deg: float, size_mm: tuple[float, float]) -> np.ndarray:
    """The 4 × 2 corners (mm) of a card in its own order: top-left, top-right, bottom-right,
    bottom-left of the printed face (a face-down card keeps its face's order)."""
    w, h = size_mm
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.radians(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return local @ rot.T + np.asarray(center, np.float64)


def _unit(angle_deg: float) -> np.ndarray:
    """Direction of the card's +x axis (its right edge) on the table for a card at ``angle_deg``."""
    a = np.radians(angle_deg)
    return np.array([np.cos(a), np.sin(a)])


def field_grid(rng: np.random.Generator, n: int, center: tuple[float, float], size_mm: tuple[float, float],
               angle_deg: float) -> list[Spot]:
    """The field: ``n`` face-up cards in two rows (or three), small gaps, a little untidy."""
    rows = 2 if n <= 12 else 3
    cols = int(np.ceil(n / rows))
    gap = rng.uniform(4, 20)
    w, h = size_mm
    right, down = _unit(angle_deg), _unit(angle_deg + 90)
    spots = []
    for k in range(n):
        r, c = divmod(k, cols)
        off = (c - (cols - 1) / 2) * (w + gap) * right + (r - (rows - 1) / 2) * (h + gap) * down
        pos = np.asarray(center) + off + rng.normal(0, 2.0, 2)
        spots.append(Spot(tuple(pos), angle_deg + rng.normal(0, 4)))
    return spots


def row(rng: np.random.Generator, n: int, start: tuple[float, float], angle_deg: float, step_mm: float,
        face_up: bool = True) -> list[Spot]:
    """Overlapping row (captures, a spread hand): each card shifted ``step_mm`` to the right of the
    previous one and lying on top of it, so only a strip of the earlier cards shows."""
    right = _unit(angle_deg)
    spots = []
    for k in range(n):
        pos = np.asarray(start) + k * step_mm * right + rng.normal(0, 1.0, 2)
        spots.append(Spot(tuple(pos), angle_deg + rng.normal(0, 2.5), face_up))
    return spots


def pile(rng: np.random.Generator, n: int, center: tuple[float, float], angle_deg: float,
         face_up: bool) -> list[Spot]:
    """A stack: cards almost on top of each other; only the top one really shows."""
    return [
        Spot(tuple(np.asarray(center) + rng.normal(0, 1.2, 2)), angle_deg + rng.normal(0, 3), face_up)
        for _ in range(n)
    ]


def fan(rng: np.random.Generator, n: int, pivot: tuple[float, float], angle_deg: float, size_mm: tuple[float, float],
        face_up: bool = True) -> list[Spot]:
    """A fanned hand laid down: cards turned about a point below their bottom edges."""
    step = rng.uniform(6, 13)
    radius = size_mm[1] * rng.uniform(0.55, 0.8)
    spots = []
    for k in range(n):
        a = angle_deg + (k - (n - 1) / 2) * step
        up = -_unit(a + 90)  # the card's top direction
        pos = np.asarray(pivot) + up * radius
        spots.append(Spot(tuple(pos), a, face_up))
    return spots


def scattered(rng: np.random.Generator, n: int, area: tuple[float, float], face_up_p: float = 0.9) -> list[Spot]:
    """Cards dropped anywhere on the play area at any angle."""
    return [
        Spot((rng.uniform(0, area[0]), rng.uniform(0, area[1])), rng.uniform(0, 360), bool(rng.random() < face_up_p))
        for _ in range(n)
    ]


def seat_anchor(seat: str, area: tuple[float, float], size_mm: tuple[float, float], along: float) -> tuple[float, float]:
    """A point in front of ``seat`` (``bottom``/``left``/``top``/``right``), ``along`` 0..1 of its edge."""
    w, h = area
    inset = size_mm[1] * 0.6 + 10
    if seat == "bottom":
        return (w * along, h - inset)
    if seat == "top":
        return (w * (1 - along), inset)
    if seat == "left":
        return (inset, h * (1 - along))
    return (w - inset, h * along)


def game_layout(rng: np.random.Generator, area: tuple[float, float], size_mm: tuple[float, float],
                n_cards: int) -> list[Spot]:
    """A table in mid-game: field grid and stock in the centre, captures and shown hands at the seats."""
    cx, cy = area[0] / 2, area[1] / 2
    base = float(rng.choice([0.0, 0.0, 90.0, 180.0, 270.0]))
    spots: list[Spot] = []
    n_field = int(rng.integers(3, 13))
    # Stock first: it lies beside the field, under nothing.
    stock_side = _unit(base) * (size_mm[0] * (n_field / 4 + 1.5) + 20)
    spots += pile(rng, int(rng.integers(2, 12)), tuple(np.array([cx, cy]) - stock_side), base, face_up=False)
    spots += field_grid(rng, n_field, (cx + rng.normal(0, 10), cy + rng.normal(0, 10)), size_mm, base)
    if rng.random() < 0.4:  # a face-up discard pile beside the field
        spots += pile(rng, int(rng.integers(2, 5)), tuple(np.array([cx, cy]) + stock_side), base, face_up=True)
    seats = [s for s in SEAT_ANGLES if rng.random() < 0.7] or ["bottom"]
    for seat in seats:
        a = SEAT_ANGLES[seat]
        kind = rng.random()
        start = seat_anchor(seat, area, size_mm, rng.uniform(0.1, 0.35))
        if kind < 0.6:  # capture rows, one or two groups
            for g in range(int(rng.integers(1, 3))):
                anchor = np.asarray(start) + _unit(a) * g * size_mm[0] * rng.uniform(2.5, 4)
                spots += row(rng, int(rng.integers(1, 7)), tuple(anchor), a + rng.normal(0, 3), rng.uniform(12, 30))
        elif kind < 0.8:  # a shown hand, fanned
            pivot = np.asarray(seat_anchor(seat, area, size_mm, 0.5)) - _unit(a + 90) * (-size_mm[1] * 0.1)
            spots += fan(rng, int(rng.integers(3, 9)), tuple(pivot), a, size_mm)
        else:  # a shown hand, spread in a line
            spots += row(rng, int(rng.integers(3, 9)), start, a, rng.uniform(size_mm[0] * 0.45, size_mm[0] + 8))
    return spots[:n_cards]


def grid_layout(rng: np.random.Generator, area: tuple[float, float], size_mm: tuple[float, float],
                n_cards: int) -> list[Spot]:
    """Deck enrolment: many cards in a tidy grid over the play area."""
    w, h = size_mm
    gap = rng.uniform(3, 12)
    cols = max(1, int((area[0] - 20) // (w + gap)))
    rows = max(1, int((area[1] - 20) // (h + gap)))
    n = min(n_cards, cols * rows)
    spots = []
    for k in range(n):
        r, c = divmod(k, cols)
        pos = (10 + w / 2 + c * (w + gap) + rng.normal(0, 1.5), 10 + h / 2 + r * (h + gap) + rng.normal(0, 1.5))
        spots.append(Spot(pos, rng.normal(0, 2)))
    return spots


LAYOUTS = {"game": game_layout, "grid": grid_layout}


def sample_spots(rng: np.random.Generator, area: tuple[float, float], size_mm: tuple[float, float],
                 n_cards: int) -> tuple[str, list[Spot]]:
    """A random layout name and its spots (at most ``n_cards``)."""
    u = rng.random()
    if u < 0.6:
        return "game", game_layout(rng, area, size_mm, n_cards)
    if u < 0.85:
        return "scattered", scattered(rng, int(rng.integers(3, min(n_cards, 30) + 1)), area)
    return "grid", grid_layout(rng, area, size_mm, n_cards)

