"""Ground truth of a rendered scene: every card's id, outline, box and visible fraction.

Pixels follow OpenCV's convention (origin at the centre of the top-left pixel). A card's
``polygon`` is its whole outline — the four corners of the printed face in the order top-left,
top-right, bottom-right, bottom-left of the face as printed (so a card turned 180° lists its
corners starting at the bottom-right of the image), also for face-down cards — in distorted image
pixels, even where it is hidden or outside the image. ``box`` is the axis-aligned bounds of the
polygon clipped to the image, (x0, y0, x1, y1). ``visible`` is the fraction of the card's area
that the camera sees: pixels of the card not covered by other cards, occluders or the image
border, over the card's whole area.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class CardLabel:
    """Truth for one card."""

    card_id: str
    """Card id (``scorer.cards``), also for a face-down card (the renderer knows what it is)."""
    face_up: bool
    polygon: tuple[tuple[float, float], ...]
    """Four corners (px) of the face as printed: top-left, top-right, bottom-right, bottom-left."""
    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 (px), the polygon's bounds clipped to the image."""
    visible: float
    """Seen fraction of the card's area, 0..1."""
    z: int
    """Stacking order, 0 = lowest."""


@dataclass(frozen=True, slots=True)
class MarkerLabel:
    """Truth for one ArUco marker."""

    marker_id: int
    corners: tuple[tuple[float, float], ...]
    """Corners (px) of the black square, clockwise from its top-left (as ArUco reports them)."""
    visible: float
    """Seen fraction of the marker with its quiet zone, 0..1."""


@dataclass(frozen=True, slots=True)
class SceneLabels:
    """Truth for one image."""

    seed: int
    deck: str
    style: str
    layout: str
    size: tuple[int, int]
    """Image width and height, px."""
    homography: tuple[tuple[float, ...], ...]
    """Table mm → undistorted image px (3 × 3)."""
    k1: float
    """Lens distortion coefficient (``vision.synth.camera``)."""
    cards: tuple[CardLabel, ...]
    markers: tuple[MarkerLabel, ...]

    def to_json(self) -> str:
        """Canonical JSON text (sorted keys, rounded floats): identical scenes give identical bytes."""
        return json.dumps(asdict(self), sort_keys=True, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> SceneLabels:
        """Parse :meth:`to_json` output."""
        d = json.loads(text)
        cards = tuple(
            CardLabel(
                card_id=c["card_id"],
                face_up=c["face_up"],
                polygon=tuple(tuple(p) for p in c["polygon"]),
                box=tuple(c["box"]),
                visible=c["visible"],
                z=c["z"],
            )
            for c in d["cards"]
        )
        markers = tuple(
            MarkerLabel(m["marker_id"], tuple(tuple(p) for p in m["corners"]), m["visible"]) for m in d["markers"]
        )
        return cls(
            seed=d["seed"],
            deck=d["deck"],
            style=d["style"],
            layout=d["layout"],
            size=tuple(d["size"]),
            homography=tuple(tuple(r) for r in d["homography"]),
            k1=d["k1"],
            cards=cards,
            markers=markers,
        )
