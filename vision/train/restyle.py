"""Restyling classifier crops: random colour remaps that keep the drawing, so a classifier learns shapes.

Art styles of one deck draw the same motifs in different palettes (one paints the pines green, another
grey; reds, pinks and purples differ in shade), so a classifier trained on one style leans on colours
another style does not share. A restyled crop keeps every pixel's lightness order and every edge, and
changes colour only:

- hue: a random rotation of the hue circle plus a smooth random warp, ``h' = h + offset + Σₖ aₖ sin(k·h + φₖ)``
  (k = 1‥3, |aₖ| ≤ 18/k hue steps of 2°; the warp may fold, so two nearby hues can end up alike);
- saturation: multiplied by a smooth random function of the *original* hue, 0 … 1.4 (so greens may turn
  grey while reds stay red), then raised to a random power (0.6 … 1.6);
- value (brightness): raised to a random power (0.75 … 1.33).

Hanafuda identities never hinge on colour alone (each month has one ribbon card, so a ribbon's colour
is implied by its flowers), which is what makes the remap safe for that deck. Everything is seeded per
file (``seed`` and the file name), so a restyled folder is the same whatever order it is walked in.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.train.datasets import IMAGE_SUFFIXES

HUES = 180
"""OpenCV's 8-bit hue scale: 0 … 179 for 0 … 358°."""


@dataclass(frozen=True, slots=True)
class Palette:
    """One random colour remap: per-hue lookup tables and two power laws."""

    hue: np.ndarray
    """New hue (0 … 179) for each original hue, uint8[180]."""
    saturation_gain: np.ndarray
    """Saturation multiplier for each original hue, float32[180], 0 … 1.4."""
    saturation_power: float
    value_power: float


def _smooth(rng: np.random.Generator, amplitude: float) -> np.ndarray:
    """A random smooth periodic function on the hue circle: Σₖ aₖ sin(k·θ + φₖ), k = 1‥3, |aₖ| ≤ amplitude/k."""
    theta = np.arange(HUES) * (2 * np.pi / HUES)
    out = np.zeros(HUES)
    for k in (1, 2, 3):
        out += rng.uniform(-amplitude / k, amplitude / k) * np.sin(k * theta + rng.uniform(0, 2 * np.pi))
    return out


def random_palette(rng: np.random.Generator) -> Palette:
    """Draw a remap (see the module docstring for the ranges)."""
    warp = _smooth(rng, amplitude=18.0)
    hue = (np.arange(HUES) + rng.uniform(0, HUES) + warp) % HUES
    gain = np.clip(0.7 + _smooth(rng, amplitude=0.9), 0.0, 1.4)
    return Palette(
        hue=(np.round(hue).astype(np.int32) % HUES).astype(np.uint8),
        saturation_gain=gain.astype(np.float32),
        saturation_power=float(np.exp(rng.uniform(np.log(0.6), np.log(1.6)))),
        value_power=float(np.exp(rng.uniform(np.log(0.75), np.log(1.33)))),
    )


def apply_palette(bgr: np.ndarray, palette: Palette) -> np.ndarray:
    """``bgr`` (uint8, H × W × 3) recoloured by ``palette``; same shape and dtype."""
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1].astype(np.float32) / 255, hsv[..., 2].astype(np.float32) / 255
    s = np.clip(s * palette.saturation_gain[h], 0, 1) ** palette.saturation_power
    v = v ** palette.value_power
    out = np.stack([palette.hue[h], np.round(s * 255).astype(np.uint8), np.round(v * 255).astype(np.uint8)], -1)
    return cv2.cvtColor(out, cv2.COLOR_HSV2BGR)


def file_rng(seed: int, name: str) -> np.random.Generator:
    """A generator seeded by ``seed`` and a file name (stable across runs and walk orders)."""
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def restyle_folder(folder: Path, share: float, seed: int) -> dict:
    """Restyle, in place, a share of the images under ``folder`` (``<class>/<image>``); returns counts.

    Each image is chosen with probability ``share`` (drawn from its own generator) and rewritten with a
    fresh palette. Meant for a run's own rendered train crops: it overwrites files.
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"restyle share must be within 0 … 1 (got {share})")
    seen = changed = 0
    for path in sorted(folder.glob("*/*")):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        seen += 1
        rng = file_rng(seed, f"{path.parent.name}/{path.name}")
        if rng.random() >= share:
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        cv2.imwrite(str(path), apply_palette(image, random_palette(rng)))
        changed += 1
    return {"images": seen, "restyled": changed, "share": share, "seed": seed}
