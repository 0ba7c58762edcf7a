"""Table surfaces: procedural wood, felt, cloth and paper, and photographed textures.

A surface is generated in table millimetres over the region the camera sees (so its grain shrinks
with distance and follows the perspective), then warped into the image. Textures from an art
directory (``<art dir>/backgrounds/**/*.png``, e.g. shared/assets/backgrounds, CC0) are tinted and
tiled at ``scale_mm`` millimetres per texture width.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.synth.camera import footprint

KINDS = ("wood", "felt", "cloth", "paper", "texture")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table surface."""

    kind: str
    """One of :data:`KINDS`."""
    colour: tuple[int, int, int]
    """Base colour (BGR)."""
    scale_mm: float
    """Feature size in millimetres: plank width, weave pitch, texture tile width."""
    angle_deg: float = 0.0
    """Direction of the grain or weave on the table."""
    seed: int = 0
    """Seed of the surface's noise."""
    texture: str = ""
    """Path of a texture image (kind ``texture``)."""
    pattern: float = 0.0
    """Cloth: strength of a gingham/stripe pattern (0 = plain)."""


def background_textures(art_dir: str | Path | None) -> tuple[str, ...]:
    """PNG/JPEG textures under ``<art_dir>/backgrounds`` (empty without an art directory)."""
    if art_dir is None:
        return ()
    root = Path(art_dir) / "backgrounds"
    if not root.is_dir():
        return ()
    return tuple(sorted(str(p) for p in root.rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg")))


@lru_cache(maxsize=16)
def _texture(path: str) -> np.ndarray:
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError(f"cannot read table texture {path!r}")
    return img


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cells: tuple[int, int]) -> np.ndarray:
    """Value noise in [-1, 1] with about ``cells`` (rows, cols) blobs over an h × w field."""
    small = rng.uniform(-1, 1, (max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _surface(spec: TableSpec, h: int, w: int, px_per_mm: float) -> np.ndarray:
    """The surface as an h × w float32 BGR field, ``px_per_mm`` texture pixels per millimetre."""
    rng = np.random.Generator(np.random.PCG64(spec.seed))
    colour = np.array(spec.colour, np.float32)
    xs = np.arange(w, dtype=np.float32)[None, :] / np.float32(px_per_mm)
    ys = np.arange(h, dtype=np.float32)[:, None] / np.float32(px_per_mm)
    a = np.radians(spec.angle_deg)
    ca, sa = np.float32(np.cos(a)), np.float32(np.sin(a))
    u = xs * ca + ys * sa  # mm across the grain
    v = ys * ca - xs * sa  # mm along the grain
    span_mm = max(h, w) / px_per_mm
    if spec.kind == "wood":
        warp = _smooth_noise(rng, h, w, (6, 6)) * np.float32(spec.scale_mm * 0.15)
        rings = np.sin((u + warp) * np.float32(2 * np.pi / (spec.scale_mm * rng.uniform(0.05, 0.12))))
        plank = np.floor((u + 1000) / spec.scale_mm)
        plank_shade = (np.sin(plank * 12.9898) * 43758.5453) % 1.0  # a fixed shade per plank
        seams = (np.abs((u + 1000) % spec.scale_mm) < 0.6).astype(np.float32)
        lum = 1 + 0.10 * rings + 0.12 * (plank_shade - 0.5) - 0.35 * seams
        lum += 0.05 * _smooth_noise(rng, h, w, (int(span_mm / 40) + 2, int(span_mm / 40) + 2))
        field = colour * lum[..., None]
    elif spec.kind == "felt":
        lum = 1 + 0.05 * _smooth_noise(rng, h, w, (5, 5))
        field = colour * lum[..., None] + (rng.standard_normal((h, w, 1), dtype=np.float32) * 6)
    elif spec.kind == "cloth":
        pitch = max(0.8, spec.scale_mm * 0.05)
        weave = np.sin(u * 2 * np.pi / pitch) * np.sin(v * 2 * np.pi / pitch)
        lum = 1 + 0.06 * weave + 0.04 * _smooth_noise(rng, h, w, (4, 4))
        field = colour * lum[..., None]
        if spec.pattern > 0:
            band = ((np.floor(u / spec.scale_mm) % 2) + (np.floor(v / spec.scale_mm) % 2)) / 2
            field = field * (1 - spec.pattern * 0.5 * band[..., None])
    elif spec.kind == "paper":
        lum = 1 + 0.03 * _smooth_noise(rng, h, w, (8, 8))
        field = colour * lum[..., None] + (rng.standard_normal((h, w, 1), dtype=np.float32) * 3)
    elif spec.kind == "texture":
        tex = _texture(spec.texture).astype(np.float32) / 128.0
        tile_px = max(8, int(spec.scale_mm * px_per_mm))
        tex = cv2.resize(tex, (tile_px, tile_px), interpolation=cv2.INTER_AREA)
        reps = (h // tile_px + 1, w // tile_px + 1)
        lum = np.tile(tex, reps)[:h, :w]
        field = colour * (0.55 + 0.45 * lum[..., None])
    else:
        raise ValueError(f"unknown table kind {spec.kind!r}; expected one of {KINDS}")
    return field


def render_table(spec: TableSpec, hom: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The table as seen through ``hom`` (table mm → image px): an image of ``size`` (w, h), BGR."""
    w, h = size
    fp = footprint(hom, size)
    x0, y0 = fp.min(axis=0)
    x1, y1 = fp.max(axis=0)
    # Somewhat fewer texture pixels than image pixels: the surface is the costliest layer, and
    # sensor noise and blur hide the difference.
    px_per_mm = min(4.0, 0.8 * max(w, h) / max(x1 - x0, y1 - y0))
    tw = int(np.clip((x1 - x0) * px_per_mm, 16, 720))
    th = int(np.clip((y1 - y0) * px_per_mm, 16, 720))
    sx, sy = tw / (x1 - x0), th / (y1 - y0)
    field = np.clip(_surface(spec, th, tw, (sx + sy) / 2), 0, 255).astype(np.uint8)
    # The texture covers exactly the seen region; texture pixels map back to table millimetres.
    to_tex = np.array([[sx, 0, -sx * x0], [0, sy, -sy * y0], [0, 0, 1]])
    m = hom @ np.linalg.inv(to_tex)
    return cv2.warpPerspective(field, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
