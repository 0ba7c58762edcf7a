"""Table zones: where each game puts its cards on the play area, per player count (table mm).

Table coordinates follow ``vision.synth.camera``: millimetres on the table plane, x to the right,
y down in a top-down view; the play area is the rectangle (0, 0)-(width, height) whose corners
carry the ArUco markers 0-3 (design/ARCHITECTURE.md, "the table protocol").

Zones (ARCHITECTURE.md): the centre holds ``stock`` (face-down, left) and the game's shared zone
to its right (its :attr:`scorer.games.GameDescription.centre_zone`: ``field`` in Hachi-hachi,
``pile`` in Poka, ``discard`` in Bagaji) — and each seat has
a zone ``seat:N`` in front of it along a table edge for captures, melds and shown hands. Seats go
counter-clockwise as seen from above (y down): bottom edge (left to right), right edge (bottom to
top), top edge (right to left), left edge (top to bottom); seat 1 sits at the bottom. Each seat
has an arm entry point beyond its edge, where a player's arm comes from, and a card angle that is
upright for that player (clockwise degrees seen from above, 0 = top edge towards −y, as in
``vision.synth.layouts``).

This module is plain Python (no NumPy or OpenCV): the tracker and the dashboard reuse it.
"""

from __future__ import annotations

from dataclasses import dataclass

CARD_MM: dict[str, tuple[float, float]] = {"hanafuda": (54.0, 87.0), "playing": (63.0, 88.0)}
"""Card width and height (mm) per deck family."""

EDGE_ANGLES = {"bottom": 0.0, "right": 270.0, "top": 180.0, "left": 90.0}
"""Card angle (clockwise degrees) that is upright for a player sitting at each edge."""

SEAT_EDGES: dict[int, tuple[str, ...]] = {
    1: ("bottom",),
    2: ("bottom", "top"),
    3: ("bottom", "right", "left"),
    4: ("bottom", "right", "top", "left"),
    5: ("bottom", "right", "top", "top", "left"),
    6: ("bottom", "bottom", "right", "top", "top", "left"),
    7: ("bottom", "bottom", "right", "right", "top", "top", "left"),
    8: ("bottom", "bottom", "right", "right", "top", "top", "left", "left"),
}
"""The edge of each seat (seat 1 first) for each player count, counter-clockwise."""

ARM_REACH_MM = 320.0
"""How far beyond its edge a seat's arm entry point lies (shoulder distance from the table)."""

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Zone:
    """A named region of the play area."""

    name: str
    """``field``, ``pile``, ``discard``, ``stock`` or ``seat:N``."""
    polygon_mm: tuple[Point, ...]
    """Outline (mm), clockwise seen from above (y down)."""
    angle_deg: float
    """Card angle that is upright for whoever faces the zone (seat zones: their player)."""

    @property
    def center_mm(self) -> Point:
        """Mean of the outline's corners (mm)."""
        n = len(self.polygon_mm)
        return (sum(p[0] for p in self.polygon_mm) / n, sum(p[1] for p in self.polygon_mm) / n)

    def contains(self, point: Point) -> bool:
        """True when ``point`` (mm) lies inside the outline (even-odd rule; edges count as inside
        on the low sides only, so neighbouring zones never both claim a point)."""
        x, y = point
        inside = False
        pts = self.polygon_mm
        for i in range(len(pts)):
            (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % len(pts)]
            if (y0 <= y) != (y1 <= y):
                xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                if x < xc:
                    inside = not inside
        return inside


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's place at the table."""

    seat: int
    """Seat number, from 1, counter-clockwise."""
    edge: str
    """``bottom``, ``right``, ``top`` or ``left``."""
    angle_deg: float
    """Card angle upright for this player."""
    zone: str
    """Name of the seat's zone, ``seat:N``."""
    edge_mm: Point
    """Middle of the seat's stretch of table edge (mm)."""
    arm_entry_mm: Point
    """Where the player's arm comes from: :data:`ARM_REACH_MM` beyond the edge (mm)."""

    @property
    def outward(self) -> Point:
        """Unit vector from the table towards this player."""
        return {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}[self.edge]


@dataclass(frozen=True, slots=True)
class ZoneLayout:
    """The zones of one game for one player count."""

    game: str
    """Game name (``hachi-hachi``, ``poka``, ``bagaji``)."""
    players: int
    deck: str
    """``hanafuda`` or ``playing``: sets the card size the zones are made for."""
    area_mm: Point
    """Play area (the marker rectangle) width and height, mm."""
    zones: tuple[Zone, ...]
    seats: tuple[Seat, ...]

    def zone(self, name: str) -> Zone:
        """The zone called ``name``."""
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(f"no zone {name!r}; zones: {', '.join(z.name for z in self.zones)}")

    def seat(self, number: int) -> Seat:
        """Seat ``number`` (from 1)."""
        return self.seats[number - 1]

    def zone_of(self, point: Point) -> str | None:
        """The name of the zone holding ``point`` (mm), or None outside every zone."""
        for z in self.zones:
            if z.contains(point):
                return z.name
        return None

    def to_json(self) -> dict[str, object]:
        """Plain data: area, zones (outlines, angles) and seats (edges, arm entries)."""
        return {
            "game": self.game,
            "players": self.players,
            "deck": self.deck,
            "area_mm": list(self.area_mm),
            "zones": [{"name": z.name, "polygon_mm": [list(p) for p in z.polygon_mm], "angle_deg": z.angle_deg}
                      for z in self.zones],
            "seats": [{"seat": s.seat, "edge": s.edge, "angle_deg": s.angle_deg, "zone": s.zone,
                       "edge_mm": list(s.edge_mm), "arm_entry_mm": list(s.arm_entry_mm)} for s in self.seats],
        }


def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def area_for(players: int, deck: str) -> Point:
    """Play area (mm) for ``players`` seats: two rows of cards in the centre, a seat band of a card
    height plus 40 mm on every edge. Four seats fit on 720 × 520 mm (a little more than 4 × A4)."""
    w, h = CARD_MM[deck]
    k = 1.0 if deck == "hanafuda" else 1.1
    if players <= 4:
        return (720.0 * k, 520.0 * k)
    if players <= 6:
        return (880.0 * k, 620.0 * k)
    return (960.0 * k, 660.0 * k)


def zone_layout(game: str, players: int, deck: str | None = None) -> ZoneLayout:
    """The zones of ``game`` for ``players`` seats (deck: the game's
    :attr:`~scorer.games.GameDescription.deck_family` unless given)."""
    from scorer.games import game as game_spec

    if players not in SEAT_EDGES:
        raise ValueError(f"zone layouts cover 1-8 seats, not {players}")
    spec = game_spec(game)
    key, description = spec.name, spec.description
    deck = deck or description.deck_family
    cw, ch = CARD_MM[deck]
    aw, ah = area_for(players, deck)
    band = ch + 40.0
    zones: list[Zone] = []
    # Centre: stock on the left, the shared zone on the right.
    cx0, cy0, cx1, cy1 = band, band, aw - band, ah - band
    stock_w = cw + 40.0
    zones.append(Zone("stock", _rect(cx0, cy0, cx0 + stock_w, cy1), 0.0))
    zones.append(Zone(description.centre_zone, _rect(cx0 + stock_w, cy0, cx1, cy1), 0.0))
    # Seats: split each edge's stretch between its seats.
    edges = SEAT_EDGES[players]
    per_edge = {e: edges.count(e) for e in set(edges)}
    taken = {e: 0 for e in per_edge}
    seats: list[Seat] = []
    gap = 10.0
    for i, edge in enumerate(edges):
        n, k = per_edge[edge], taken[edge]
        taken[edge] += 1
        horizontal = edge in ("bottom", "top")
        length = (aw if horizontal else ah) - 2 * band
        part = (length - gap * (n - 1)) / n
        # Position along the edge in the counter-clockwise direction of travel.
        start = band + k * (part + gap)
        a0, a1 = start, start + part
        if edge == "bottom":
            poly, mid = _rect(a0, ah - band, a1, ah), ((a0 + a1) / 2, ah)
        elif edge == "right":
            y1, y0 = ah - a0, ah - a1
            poly, mid = _rect(aw - band, y0, aw, y1), (aw, (y0 + y1) / 2)
        elif edge == "top":
            x1, x0 = aw - a0, aw - a1
            poly, mid = _rect(x0, 0.0, x1, band), ((x0 + x1) / 2, 0.0)
        else:
            poly, mid = _rect(0.0, a0, band, a1), (0.0, (a0 + a1) / 2)
        seat = Seat(i + 1, edge, EDGE_ANGLES[edge], f"seat:{i + 1}", mid, (0.0, 0.0))
        ox, oy = seat.outward
        seat = Seat(seat.seat, edge, seat.angle_deg, seat.zone, mid, (mid[0] + ox * ARM_REACH_MM, mid[1] + oy * ARM_REACH_MM))
        seats.append(seat)
        zones.append(Zone(seat.zone, poly, seat.angle_deg))
    return ZoneLayout(key, players, deck, (aw, ah), tuple(zones), tuple(seats))
