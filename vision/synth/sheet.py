"""A contact sheet of sample scenes: both decks, several styles, and the hard cases.

Rows: hanafuda ``mantia``, hanafuda ``classic`` (from an art directory, when given), playing
``knoll``/``jumbo``, then hard cases — strong tilt, an arm over the cards, glare on glossy cards,
motion and focus blur. Each tile is a sampled scene, edited with ``dataclasses.replace`` for the
hard cases, with the labelled outlines drawn in green (face up) or orange (face down) when asked.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.synth import occluders
from vision.synth.artset import available_styles, find_style
from vision.synth.camera import CameraEffects
from vision.synth.lighting import Glare
from vision.synth.scene import Rendered, Scene, render, sample_scene
from vision.synth.tables import background_textures


def _hard(scene: Scene, case: str) -> Scene:
    rng = np.random.Generator(np.random.PCG64(scene.seed + 7))
    if case == "tilt":
        return replace(scene, camera=replace(scene.camera, tilt_deg=35.0))
    if case == "arm":
        w, h = scene.area_mm
        arm = occluders.arm(rng, (w * 0.5, h + 350), (w * 0.5, h * 0.45))
        return replace(scene, occluders=(arm,))
    if case == "glare":
        cw, ch = scene.camera.size
        glare = (Glare((cw * 0.5, ch * 0.45), (cw * 0.22, ch * 0.12), 30.0, 0.9),)
        cards = tuple(replace(c, look=replace(c.look, gloss=1.0)) for c in scene.cards)
        return replace(scene, cards=cards, light=replace(scene.light, glare=glare))
    if case == "blur":
        return replace(scene, effects=CameraEffects(k1=0.1, focus_blur_px=1.5, motion_px=9, motion_deg=20,
                                                    noise=6, jpeg_quality=50, seed=scene.seed))
    return scene


def _tile(r: Rendered, caption: str, tile: int, outlines: bool) -> np.ndarray:
    img = r.image.copy()
    if outlines:
        for c in r.labels.cards:
            if c.visible >= 0.25:
                colour = (60, 220, 60) if c.face_up else (0, 140, 255)
                cv2.polylines(img, [np.round(np.array(c.polygon) * 4).astype(np.int32)], True, colour, 1,
                              cv2.LINE_AA, shift=2)
    img = cv2.resize(img, (tile, tile), interpolation=cv2.INTER_AREA)
    cv2.rectangle(img, (0, tile - 18), (tile, tile), (0, 0, 0), -1)
    cv2.putText(img, caption, (4, tile - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (255, 255, 255), 1, cv2.LINE_AA)
    return img


def contact_sheet(art_dir: str | None = None, seed: int = 1000, cols: int = 5, tile: int = 256,
                  outlines: bool = False) -> np.ndarray:
    """The contact sheet image (BGR): rows of ``cols`` tiles, ``tile`` pixels square."""
    textures = background_textures(art_dir)
    rows: list[tuple[str, str, str]] = [("hanafuda", "mantia", "")]
    if "classic" in available_styles("hanafuda", art_dir):
        rows.append(("hanafuda", "classic", ""))
    rows += [("playing", "knoll", ""), ("playing", "jumbo", "")]
    hard = ["tilt", "arm", "glare", "blur", "tilt"]
    hard_styles = [("hanafuda", "mantia"), ("hanafuda", "classic" if len(rows) == 4 else "mantia"),
                   ("playing", "knoll"), ("hanafuda", "mantia"), ("playing", "jumbo")]
    out_rows = []
    for r, (deck, style, _) in enumerate(rows):
        styles = {style: find_style(deck, style, art_dir)}
        tiles = []
        for c in range(cols):
            scene = sample_scene(seed + 100 * r + c, deck, (style,), (640, 640), textures)
            tiles.append(_tile(render(scene, styles), f"{deck} {style} {scene.layout}", tile, outlines))
        out_rows.append(np.hstack(tiles))
    tiles = []
    for c in range(cols):
        deck, style = hard_styles[c % len(hard_styles)]
        case = hard[c % len(hard)]
        scene = _hard(sample_scene(seed + 900 + c, deck, (style,), (640, 640), textures), case)
        tiles.append(_tile(render(scene, {style: find_style(deck, style, art_dir)}), f"hard: {case} ({style})",
                           tile, outlines))
    out_rows.append(np.hstack(tiles))
    return np.vstack(out_rows)
