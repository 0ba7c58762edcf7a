"""Card images for the renderer: art faces, procedural blanks and backs, and worn variants.

Every image is BGRA ``uint8`` with the card's outline as its frame (alpha 0 outside rounded
corners), upright as printed. Physical card sizes (millimetres, width × height): hanafuda 54 × 87,
playing cards 63 × 88. Art images are stretched to those sizes by the renderer.

Procedural cards (rules/README.md "Cards": no art ships for them):
- ``00-blank``: the white spare card of Japanese decks, off-white paper edged in the back colour
  (hanafuda backing paper is folded over the face, which leaves a thin coloured rim);
- backs: hanafuda plain black, brown or red; playing cards the jumbo ``BACK-BLUE``/``BACK-RED`` art
  when the jumbo style is available, else a procedural lattice;
- worn: any image with rounder corners, edge wear, fading and a slight bend (shading).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from scorer.cards import BLANK, HANAFUDA, PLAYING
from vision.synth.artset import ART_ROOT, ArtStyle, load_face

CARD_SIZE_MM: dict[str, tuple[float, float]] = {HANAFUDA: (54.0, 87.0), PLAYING: (63.0, 88.0)}
"""Card width and height in millimetres per deck."""

LODS = (48, 96, 192, 320, 480)
"""Heights (pixels) at which faces are prepared; the renderer picks the smallest that is at least
as tall as the card appears, so warps never minify much (minifying aliases)."""

HANAFUDA_BACKS: dict[str, tuple[int, int, int]] = {
    "black": (28, 26, 26),
    "brown": (28, 52, 92),
    "red": (40, 36, 150),
}
"""Hanafuda back colours (BGR)."""

PLAYING_BACKS = ("BACK-BLUE", "BACK-RED")


@dataclass(frozen=True, slots=True)
class CardLook:
    """How one physical card looks, apart from where it lies."""

    card_id: str
    """Card id (``scorer.cards``); a face-down card keeps its true id."""
    face_up: bool = True
    """False when the back shows."""
    back: str = "black"
    """Back design: a key of :data:`HANAFUDA_BACKS` or one of :data:`PLAYING_BACKS`."""
    wear: float = 0.0
    """0 = new; up to 1 = heavily worn (corners, edges, fading, bend)."""
    wear_seed: int = 0
    """Seed of the wear pattern, so the same card looks the same in every frame."""
    gloss: float = 0.0
    """0 = matte; up to 1 = glossy print (strength of glare on this card)."""


def lod_for(height_px: float) -> int:
    """The prepared height to use for a card that appears ``height_px`` pixels tall."""
    for h in LODS:
        if h >= height_px:
            return h
    return LODS[-1]


def rounded_alpha(h: int, w: int, radius: float) -> np.ndarray:
    """An ``h × w`` uint8 alpha of a rectangle with corners rounded by ``radius`` pixels."""
    alpha = np.full((h, w), 255, np.uint8)
    r = int(round(radius))
    if r < 1:
        return alpha
    scale = 4  # draw corners supersampled for a smooth edge
    corner = np.zeros((r * scale, r * scale), np.uint8)
    cv2.circle(corner, (r * scale, r * scale), r * scale, 255, -1, lineType=cv2.LINE_AA)
    corner = cv2.resize(corner, (r, r), interpolation=cv2.INTER_AREA)
    alpha[:r, :r] = np.minimum(alpha[:r, :r], corner)
    alpha[:r, w - r :] = np.minimum(alpha[:r, w - r :], corner[:, ::-1])
    alpha[h - r :, :r] = np.minimum(alpha[h - r :, :r], corner[::-1, :])
    alpha[h - r :, w - r :] = np.minimum(alpha[h - r :, w - r :], corner[::-1, ::-1])
    return alpha


def _paper(h: int, w: int, colour: tuple[int, int, int], seed: int, grain: float) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(seed))
    base = np.empty((h, w, 3), np.float32)
    base[:] = colour
    fine = rng.normal(0.0, grain, (h, w, 1)).astype(np.float32)
    low = cv2.resize(rng.normal(0.0, grain, (4, 3)).astype(np.float32), (w, h))[..., None]
    return np.clip(base + fine + low, 0, 255).astype(np.uint8)


@lru_cache(maxsize=256)
def blank_face(deck: str, height: int, rim: str = "black") -> np.ndarray:
    """The ``00-blank`` spare card: off-white paper with a thin rim in the back colour."""
    w_mm, h_mm = CARD_SIZE_MM[deck]
    w = max(2, round(height * w_mm / h_mm))
    img = _paper(height, w, (232, 238, 241), seed=1, grain=3.0)
    rim_px = max(1, round(height * 1.2 / h_mm))
    colour = HANAFUDA_BACKS.get(rim, HANAFUDA_BACKS["black"])
    cv2.rectangle(img, (0, 0), (w - 1, height - 1), colour, rim_px)
    out = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    out[..., 3] = rounded_alpha(height, w, height * 2.5 / h_mm)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def back_face(deck: str, design: str, height: int) -> np.ndarray:
    """A card back: hanafuda plain colours; playing cards the jumbo backs or a lattice."""
    w_mm, h_mm = CARD_SIZE_MM[deck]
    w = max(2, round(height * w_mm / h_mm))
    if deck == PLAYING:
        art = ART_ROOT / PLAYING / "jumbo" / f"{design}.png"
        if art.is_file():
            return load_face(str(art), height)
        img = _paper(height, w, (245, 245, 245), seed=2, grain=2.0)
        colour = (150, 60, 30) if design.endswith("BLUE") else (40, 40, 170)
        step = max(3, height // 24)
        for k in range(-height, w + height, step):
            cv2.line(img, (k, 0), (k + height, height), colour, 1, cv2.LINE_AA)
            cv2.line(img, (k, height), (k + height, 0), colour, 1, cv2.LINE_AA)
        border = max(2, height // 20)
        cv2.rectangle(img, (0, 0), (w - 1, height - 1), (245, 245, 245), border)
    else:
        colour = HANAFUDA_BACKS.get(design)
        if colour is None:
            raise ValueError(f"unknown hanafuda back {design!r}; expected one of {sorted(HANAFUDA_BACKS)}")
        img = _paper(height, w, colour, seed=3, grain=2.5)
        # The backing paper is folded over the face: the edge catches light a little.
        cv2.rectangle(img, (0, 0), (w - 1, height - 1), tuple(min(255, c + 18) for c in colour), 1)
    out = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    out[..., 3] = rounded_alpha(height, w, height * 2.5 / h_mm)
    out.setflags(write=False)
    return out


def face_image(style: ArtStyle, look: CardLook, height: int) -> np.ndarray:
    """The image of a card as it lies (face or back), worn if asked, ``height`` pixels tall."""
    if not look.face_up:
        base = back_face(style.deck, look.back, height)
    elif look.card_id == BLANK:
        base = blank_face(style.deck, height, look.back if look.back in HANAFUDA_BACKS else "black")
    else:
        path = style.path(look.card_id)
        if path is None:
            raise ValueError(f"art style {style.name!r} has no face for card {look.card_id!r}")
        base = load_face(path, height)
    if look.wear <= 0.0:
        return base
    return worn(base, look.wear, look.wear_seed)


def worn(img: np.ndarray, strength: float, seed: int) -> np.ndarray:
    """A worn copy of a BGRA card image: rounder corners, frayed light edges, fading, a bend.

    ``strength`` 0..1 scales every effect. The outline (frame) is unchanged, so labels stay exact.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    h, w = img.shape[:2]
    s = float(np.clip(strength, 0.0, 1.0))
    bgr = img[..., :3].astype(np.float32)
    alpha = img[..., 3].copy()
    # Fading towards the paper colour, and a yellowish cast of old cards.
    fade = np.float32(0.15 * s * rng.uniform(0.3, 1.0))
    bgr = bgr * (1 - fade) + np.array([200, 225, 235], np.float32) * fade
    # Edge wear: the print rubs off near the edges first, showing light paper.
    band = max(1.0, 0.06 * w * s)
    xx, yy, dist = _grid(h, w)
    noise = cv2.resize(rng.random((max(2, h // 6), max(2, w // 6))).astype(np.float32), (w, h))
    rub = np.clip((band - dist) * np.float32(s / band), 0, s) * (noise > 1 - 0.8 * s)
    rub = rub[..., None]
    bgr = bgr * (1 - rub) + 235 * rub
    # A slight bend: shading varies smoothly across the card.
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.float32(np.cos(angle)) * xx + np.float32(np.sin(angle)) * yy) * 2
    shade = 1 + np.float32(0.12 * s) * np.sin(ramp * np.float32(rng.uniform(1.0, 3.0)) + np.float32(rng.uniform(0, np.pi)))
    bgr *= shade[..., None]
    corner = rounded_alpha(h, w, (0.04 + 0.06 * s) * w)
    alpha = np.minimum(alpha, corner)
    return np.dstack([np.clip(bgr, 0, 255).astype(np.uint8), alpha])


@lru_cache(maxsize=64)
def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centred coordinates (−0.5..0.5, as 1 × w and h × 1) and the distance (px) to the nearest edge."""
    xs = np.arange(w, dtype=np.float32)
    ys = np.arange(h, dtype=np.float32)
    dist = np.minimum(np.minimum(xs, w - 1 - xs)[None, :], np.minimum(ys, h - 1 - ys)[:, None])
    return (xs / w - 0.5)[None, :], (ys / h - 0.5)[:, None], dist
