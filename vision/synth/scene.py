"""Scenes: a frozen description of a table photo, sampled from a seed, rendered to image + labels.

:func:`sample_scene` draws everything random from ``numpy.random.Generator(PCG64(seed))``: the
same seed gives the same :class:`Scene`, and :func:`render` is a pure function of the scene (its
noise patterns carry their own seeds), so the same seed gives byte-identical images and labels.
A video renderer reuses :func:`render` frame by frame, moving cards, arms and the camera between
frames by editing the scene (``dataclasses.replace``).

Drawing order: table, mat and markers, card shadows, cards (lowest first), occluder shadows,
occluders, light (colour, gradient, vignette), glare on glossy cards, then the camera (lens
distortion, defocus, motion blur, noise, JPEG). An id buffer records which object each pixel shows;
visible fractions count it, so occlusion by cards, arms, cups, phones and the image border counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.cards import BLANK, HANAFUDA, hanafuda_ids, playing_ids
from vision.synth import lighting, occluders
from vision.synth.artset import ArtStyle
from vision.synth.camera import (
    CameraEffects,
    CameraPose,
    apply_effects,
    distort_points,
    homography,
    project,
)
from vision.synth.cardfaces import (
    CARD_SIZE_MM,
    HANAFUDA_BACKS,
    PLAYING_BACKS,
    CardLook,
    face_image,
    lod_for,
)
from vision.synth.labels import CardLabel, MarkerLabel, SceneLabels
from vision.synth.layouts import CardPlacement, card_corners_mm, sample_spots
from vision.synth.lighting import Glare, LightSpec
from vision.synth.markers import MARKER_IDS, MarkerSpec, marker_corners_mm, marker_image
from vision.synth.occluders import Occluder
from vision.synth.prints import texture_image
from vision.synth.tables import TableSpec, render_table

CARD_SHADOW_HEIGHT_MM = 1.5
"""Apparent height of a lying card for its shadow: cards are thin but never quite flat."""
_OCCLUDED = -2
_TABLE = -1
_MARKER_BASE = -10  # marker k is -10 - k in the id buffer


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything that decides one image."""

    seed: int
    """The seed the scene was sampled from (0 for hand-made scenes)."""
    deck: str
    """``hanafuda`` or ``playing``."""
    style: str
    """Art style name of every card's face."""
    layout: str
    """Layout name, e.g. ``game``, ``grid``, ``scattered``."""
    area_mm: tuple[float, float]
    """Play area width and height (mm); markers sit on its corners."""
    table: TableSpec
    markers: MarkerSpec
    cards: tuple[CardPlacement, ...]
    """Cards bottom-first: later ones lie on earlier ones."""
    occluders: tuple[Occluder, ...]
    light: LightSpec
    camera: CameraPose
    effects: CameraEffects


@dataclass(frozen=True, slots=True)
class Rendered:
    """A rendered scene."""

    image: np.ndarray
    """BGR uint8, height × width × 3."""
    labels: SceneLabels


# --- sampling ---------------------------------------------------------------------------------

TABLE_COLOURS = {
    "wood": ((40, 80, 140), (30, 60, 100), (60, 110, 170), (70, 120, 150), (25, 40, 60)),
    "felt": ((40, 100, 30), (90, 60, 20), (40, 30, 120), (70, 70, 70), (30, 80, 60)),
    "cloth": ((200, 200, 205), (60, 60, 170), (150, 110, 60), (180, 210, 220), (70, 140, 90)),
    "paper": ((225, 230, 235), (200, 215, 225), (170, 180, 190)),
}


def sample_table(rng: np.random.Generator, textures: tuple[str, ...]) -> TableSpec:
    kinds = ["wood", "felt", "cloth", "paper"] + (["texture"] if textures else [])
    kind = str(rng.choice(kinds, p=[0.35, 0.2, 0.2, 0.1, 0.15] if textures else [0.4, 0.25, 0.25, 0.1]))
    seed = int(rng.integers(2**31))
    if kind == "texture":
        colour = tuple(int(c) for c in rng.uniform(90, 230, 3))
        return TableSpec("texture", colour, float(rng.uniform(150, 500)), float(rng.uniform(0, 360)), seed,
                         texture=str(rng.choice(textures)))
    palette = TABLE_COLOURS[kind]
    base = np.array(palette[int(rng.integers(len(palette)))], float) * rng.uniform(0.8, 1.2)
    colour = tuple(int(c) for c in np.clip(base + rng.normal(0, 12, 3), 0, 255))
    scale = {"wood": rng.uniform(90, 220), "felt": 50.0, "cloth": rng.uniform(10, 40), "paper": 50.0}[kind]
    pattern = float(rng.uniform(0.2, 0.8)) if kind == "cloth" and rng.random() < 0.4 else 0.0
    return TableSpec(kind, colour, float(scale), float(rng.uniform(0, 360)), seed, pattern=pattern)


def _camera(rng: np.random.Generator, area: tuple[float, float], size: tuple[int, int], close: bool) -> CameraPose:
    fov = np.radians(rng.uniform(45, 75))
    focal = size[0] / 2 / np.tan(fov / 2)
    span = max(area) * (rng.uniform(0.3, 0.6) if close else rng.uniform(0.6, 1.5))
    distance = span / (2 * np.tan(fov / 2))
    target = (area[0] / 2 + rng.normal(0, area[0] * 0.12), area[1] / 2 + rng.normal(0, area[1] * 0.12))
    tilt = rng.uniform(0, 5) if rng.random() < 0.45 else rng.uniform(5, 35)
    roll = rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 4) if rng.random() < 0.5 else rng.uniform(0, 360)
    return CameraPose((float(target[0]), float(target[1])), float(distance), float(tilt),
                      float(rng.uniform(0, 360)), float(roll), float(focal), size)


def _light(rng: np.random.Generator, size: tuple[int, int]) -> LightSpec:
    glare: tuple[Glare, ...] = ()
    if rng.random() < 0.35:
        glare = tuple(
            Glare(
                (float(rng.uniform(0, size[0])), float(rng.uniform(0, size[1]))),
                (float(rng.uniform(20, 120)), float(rng.uniform(15, 70))),
                float(rng.uniform(0, 180)),
                float(rng.uniform(0.4, 0.95)),
            )
            for _ in range(int(rng.integers(1, 3)))
        )
    hard = rng.random() < 0.4
    return LightSpec(
        kelvin=float(rng.uniform(2700, 7500)),
        brightness=float(rng.uniform(0.65, 1.2)),
        gradient=(float(rng.uniform(0, 360)), float(rng.uniform(0, 0.35)), 0.0),
        vignette=float(rng.uniform(0, 0.4)),
        shadow_direction_deg=float(rng.uniform(0, 360)),
        shadow_slope=float(rng.uniform(0.1, 0.8)),
        shadow_softness_px=float(rng.uniform(0.5, 1.5) if hard else rng.uniform(3, 15)),
        shadow_strength=float(rng.uniform(0.2, 0.6)),
        glare=glare,
    )


def _effects(rng: np.random.Generator) -> CameraEffects:
    return CameraEffects(
        k1=float(rng.uniform(-0.06, 0.12)) if rng.random() < 0.5 else 0.0,
        focus_blur_px=float(rng.uniform(0.3, 1.8)) if rng.random() < 0.3 else 0.0,
        motion_px=float(rng.uniform(2, 12)) if rng.random() < 0.15 else 0.0,
        motion_deg=float(rng.uniform(0, 180)),
        noise=float(rng.uniform(0, 8)),
        jpeg_quality=int(rng.integers(40, 96)) if rng.random() < 0.6 else 0,
        seed=int(rng.integers(2**31)),
    )


def _occluders(rng: np.random.Generator, area: tuple[float, float]) -> tuple[Occluder, ...]:
    out: list[Occluder] = []
    w, h = area
    if rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 3))):
            side = int(rng.integers(4))
            t = rng.uniform(0.1, 0.9)
            entry = [(w * t, h + 350), (-350, h * t), (w * t, -350), (w + 350, h * t)][side]
            hand = (rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h)
            out.append(occluders.arm(rng, entry, hand))
    if rng.random() < 0.15:
        out.append(occluders.cup(rng, (rng.uniform(0, w), rng.uniform(0, h))))
    if rng.random() < 0.12:
        out.append(occluders.phone(rng, (rng.uniform(0, w), rng.uniform(0, h)), float(rng.uniform(0, 360))))
    return tuple(out)


def card_pool(deck: str, rng: np.random.Generator) -> list[str]:
    """A shuffled deck: hanafuda 48 (sometimes with the blank), playing 52 (sometimes with jokers)."""
    if deck == HANAFUDA:
        ids = list(hanafuda_ids()) + ([BLANK] if rng.random() < 0.3 else [])
    else:
        ids = list(playing_ids(jokers=rng.random() < 0.3))
    return [ids[i] for i in rng.permutation(len(ids))]


def sample_scene(seed: int, deck: str, styles: tuple[str, ...], size: tuple[int, int] = (640, 640),
                 textures: tuple[str, ...] = ()) -> Scene:
    """A random scene from ``seed``: one deck in one of ``styles``, on a random table.

    ``textures`` are table texture files (:func:`vision.synth.tables.background_textures`).
    """
    if deck not in CARD_SIZE_MM:
        raise ValueError(f"unknown deck {deck!r}; expected 'hanafuda' or 'playing'")
    if not styles:
        raise ValueError("no art style given")
    rng = np.random.Generator(np.random.PCG64(seed))
    style = str(styles[int(rng.integers(len(styles)))])
    card_mm = CARD_SIZE_MM[deck]
    base_area = (520.0, 400.0) if deck == HANAFUDA else (600.0, 450.0)
    k = rng.uniform(0.8, 1.25)
    area = (base_area[0] * k, base_area[1] * k)
    pool = card_pool(deck, rng)
    layout, spots = sample_spots(rng, area, card_mm, len(pool))
    back = str(rng.choice(list(HANAFUDA_BACKS) if deck == HANAFUDA else list(PLAYING_BACKS)))
    deck_wear = rng.uniform(0.3, 1.0) if rng.random() < 0.4 else 0.0
    gloss = float(rng.uniform(0, 1))
    cards = tuple(
        CardPlacement(
            CardLook(card_id, s.face_up, back, float(deck_wear * rng.uniform(0.2, 1.0)),
                     int(rng.integers(2**31)), gloss),
            (float(s.center_mm[0]), float(s.center_mm[1])),
            float(s.angle_deg % 360),
        )
        for card_id, s in zip(pool, spots, strict=False)
    )
    mode = str(rng.choice(["none", "mat", "taped"], p=[0.35, 0.35, 0.3]))
    markers = MarkerSpec(mode, float(rng.uniform(30, 60)),
                         tuple(int(c) for c in rng.uniform(150, 245, 3)), bool(rng.random() < 0.6))
    close = layout != "grid" and rng.random() < 0.25
    return Scene(
        seed=int(seed),
        deck=deck,
        style=style,
        layout=layout,
        area_mm=(float(area[0]), float(area[1])),
        table=sample_table(rng, textures),
        markers=markers,
        cards=cards,
        occluders=_occluders(rng, area),
        light=_light(rng, size),
        camera=_camera(rng, area, size, close),
        effects=_effects(rng),
    )


# --- rendering --------------------------------------------------------------------------------


def paste_quad(img: np.ndarray, buf: np.ndarray, src: np.ndarray, quad: np.ndarray, value: int) -> None:
    """Warp BGRA ``src`` onto ``img`` (float32 BGR) so that its outline lands on ``quad`` (4 × 2
    px: top-left, top-right, bottom-right, bottom-left), and mark covered pixels in ``buf``."""
    h, w = buf.shape
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return
    sh, sw = src.shape[:2]
    src_q = np.float32([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]])
    dst_q = (quad - [x0, y0]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src_q, dst_q)
    warped = cv2.warpPerspective(src, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:4].astype(np.float32) * (1 / 255)
    roi = img[y0:y1, x0:x1]
    roi *= 1 - alpha
    roi += alpha * warped[..., :3]
    buf[y0:y1, x0:x1][alpha[..., 0] > 0.5] = value


def shadow_mask(size: tuple[int, int], polys: list[np.ndarray], softness: float) -> np.ndarray:
    w, h = size
    mask = np.zeros((h, w), np.float32)
    for p in polys:
        cv2.fillPoly(mask, [np.round(p * 4).astype(np.int32)], 1.0, lineType=cv2.LINE_AA, shift=2)
    if softness > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), softness)
    return mask


def polygon_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def _paste_texture(img: np.ndarray, part: occluders.Part, px: np.ndarray, style: ArtStyle, deck: str) -> None:
    """Print ``part``'s texture inside its outline ``px`` (image px): the texture square warped onto
    the outline's smallest enclosing rectangle, cut to the outline."""
    ids = hanafuda_ids() if deck == HANAFUDA else playing_ids()

    def face(pick: int, height: int) -> np.ndarray | None:
        try:
            return face_image(style, CardLook(ids[pick % len(ids)], True, "", 0.0, 0, 0.0), height)
        except ValueError:
            return None

    tex = texture_image(part, face)
    box = cv2.boxPoints(cv2.minAreaRect(px.astype(np.float32))).astype(np.float32)
    h, w = img.shape[:2]
    n = tex.shape[0]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [n, 0], [n, n], [0, n]]), box)
    warped = cv2.warpPerspective(tex, m, (w, h), flags=cv2.INTER_LINEAR)
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(px * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    img *= 1 - a
    img += warped.astype(np.float32) * a


def render(scene: Scene, styles: Mapping[str, ArtStyle]) -> Rendered:
    """The image and labels of ``scene``; ``styles`` maps style names to loaded styles."""
    if scene.style not in styles:
        raise ValueError(f"scene needs art style {scene.style!r}; loaded: {', '.join(styles) or 'none'}")
    style = styles[scene.style]
    size = scene.camera.size
    w, h = size
    hom = homography(scene.camera)
    img = render_table(scene.table, hom, size).astype(np.float32)
    buf = np.full((h, w), _TABLE, np.int32)
    light = scene.light
    a = np.radians(light.shadow_direction_deg)
    shadow_dir = np.array([np.cos(a), np.sin(a)]) * light.shadow_slope

    # Mat and markers.
    mk = scene.markers
    marker_quads = project(hom, marker_corners_mm(scene.area_mm, mk.size_mm, quiet=True).reshape(-1, 2)).reshape(4, 4, 2)
    if mk.mode == "mat":
        pad = mk.size_mm * 0.9
        aw, ah = scene.area_mm
        mat = project(hom, np.array([[-pad, -pad], [aw + pad, -pad], [aw + pad, ah + pad], [-pad, ah + pad]]))
        cv2.fillPoly(img, [np.round(mat * 4).astype(np.int32)], mk.mat_colour, cv2.LINE_AA, shift=2)
        if mk.zone_lines:
            inner = project(hom, np.array([[aw * 0.25, ah * 0.3], [aw * 0.75, ah * 0.3], [aw * 0.75, ah * 0.7], [aw * 0.25, ah * 0.7]]))
            line = tuple(int(c * 0.6) for c in mk.mat_colour)
            cv2.polylines(img, [np.round(inner * 4).astype(np.int32)], True, line, 1, cv2.LINE_AA, shift=2)
    if mk.mode != "none":
        for k in MARKER_IDS:
            mimg = cv2.cvtColor(marker_image(k), cv2.COLOR_GRAY2BGRA)
            paste_quad(img, buf, mimg, marker_quads[k], _MARKER_BASE - k)

    # Card shadows fall on the table; then the cards, lowest first.
    deck_mm = CARD_SIZE_MM[scene.deck]
    corners_mm = [card_corners_mm(c.center_mm, c.angle_deg, deck_mm) for c in scene.cards]
    if scene.cards:
        off = shadow_dir * CARD_SHADOW_HEIGHT_MM
        polys = [project(hom, cm + off) for cm in corners_mm]
        mask = shadow_mask(size, polys, max(1.0, light.shadow_softness_px * 0.3))
        img *= (1 - 0.6 * light.shadow_strength * mask)[..., None]
    corners_px = [project(hom, cm) for cm in corners_mm]
    for z, (card, quad) in enumerate(zip(scene.cards, corners_px, strict=True)):
        tall = max(np.linalg.norm(quad[3] - quad[0]), np.linalg.norm(quad[2] - quad[1]))
        paste_quad(img, buf, face_image(style, card.look, lod_for(tall)), quad, z)

    # Occluders: their shadows fall on cards and table alike.
    if scene.occluders:
        polys = [project(hom, np.array(p.points_mm) + shadow_dir * o.height_mm) for o in scene.occluders for p in o.parts]
        mask = shadow_mask(size, polys, light.shadow_softness_px)
        img *= (1 - light.shadow_strength * np.minimum(mask, 1.0))[..., None]
        for o in scene.occluders:
            for p in o.parts:
                px = project(hom, np.array(p.points_mm))
                pts = np.round(px * 4).astype(np.int32)
                if p.texture:
                    _paste_texture(img, p, px, style, scene.deck)
                else:
                    cv2.fillPoly(img, [pts], p.colour, cv2.LINE_AA, shift=2)
                cv2.fillPoly(buf, [pts], _OCCLUDED, cv2.LINE_8, shift=2)

    img *= lighting.shading_field(light, size)
    if light.glare and scene.cards:
        gloss = np.array([c.look.gloss for c in scene.cards] + [0.0], np.float32)
        on_card = np.where(buf >= 0, buf, len(scene.cards))
        g = lighting.glare_field(light.glare, size) * gloss[on_card]
        img = img * (1 - g[..., None]) + 255 * g[..., None]
    image = apply_effects(np.clip(img, 0, 255).astype(np.uint8), scene.effects)

    # Labels.
    k1 = scene.effects.k1
    counts = np.bincount((buf[buf >= 0]).ravel(), minlength=len(scene.cards))
    cards = []
    for z, (card, quad) in enumerate(zip(scene.cards, corners_px, strict=True)):
        full = polygon_area(quad)
        visible = float(min(1.0, counts[z] / full)) if full > 0 else 0.0
        poly = distort_points(quad, k1, size)
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        x0, x1 = min(max(lo[0], 0.0), w - 1.0), min(max(hi[0], 0.0), w - 1.0)
        y0, y1 = min(max(lo[1], 0.0), h - 1.0), min(max(hi[1], 0.0), h - 1.0)
        cards.append(CardLabel(
            card_id=card.look.card_id,
            face_up=card.look.face_up,
            polygon=tuple((round(float(x), 2), round(float(y), 2)) for x, y in poly),
            box=(round(float(x0), 2), round(float(y0), 2), round(float(x1), 2), round(float(y1), 2)),
            visible=round(visible, 4),
            z=z,
        ))
    markers = []
    if mk.mode != "none":
        black = project(hom, marker_corners_mm(scene.area_mm, mk.size_mm).reshape(-1, 2)).reshape(4, 4, 2)
        for k in MARKER_IDS:
            full = polygon_area(marker_quads[k])
            seen = float(np.count_nonzero(buf == _MARKER_BASE - k)) / full if full > 0 else 0.0
            poly = distort_points(black[k], k1, size)
            markers.append(MarkerLabel(k, tuple((round(float(x), 2), round(float(y), 2)) for x, y in poly),
                                       round(min(1.0, seen), 4)))
    labels = SceneLabels(
        seed=scene.seed,
        deck=scene.deck,
        style=scene.style,
        layout=scene.layout,
        size=size,
        homography=tuple(tuple(round(float(v), 9) for v in r) for r in hom),
        k1=k1,
        cards=tuple(cards),
        markers=tuple(markers),
    )
    return Rendered(image, labels)
