"""Restyling classifier crops: random colour remaps that keep the drawing, so a classifier learns shapes.

Art styles of one deck draw the same motifs in different palettes (one paints the pines green, another
grey; reds, pinks and purples differ in shade), so a classifier trained on one style leans on colours
another style does not share. A restyled crop keeps every pixel's lightness order and every edge, and
changes colour only:

- hue: a random rotation of the hue circle (any, or at most ``turn`` steps either way) plus a smooth
  random warp, ``h' = h + offset + Σₖ aₖ sin(k·h + φₖ)`` (k = 1‥3, |aₖ| ≤ 18/k hue steps of 2°; the warp
  may fold, so two nearby hues can end up alike);
- saturation: multiplied by a smooth random function of the *original* hue, 0 … 1.4 (so greens may turn
  grey while reds stay red), then raised to a random power (0.6 … 1.6);
- value (brightness): raised to a random power (0.75 … 1.33).

A second, independent change (``filter_share``) is a *random convolution* (RandConv, Xu et al., ICLR
2021): the crop passed through one random 3 → 3 channel filter of side 1, 3 or 5 px (weights drawn from
N(0, 1/(k²·3))), each output channel brought back to the input channel's mean and spread, then mixed
with the input by a random weight α (0 … 0.7 of the input). It changes local texture, line weight and
the colours' mixing — what differs between two artists' prints of one motif — and keeps where the
shapes are. Applied after the palette when a crop gets both.

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


def random_palette(rng: np.random.Generator, turn: float = HUES) -> Palette:
    """Draw a remap (see the module docstring for the ranges). ``turn``: the largest rotation of the hue
    circle, in hue steps (2°); :data:`HUES` or more turns it anywhere, less keeps each hue near its own
    (so a red flower stays reddish and a purple one purplish, while the warp and the saturation still vary)."""
    warp = _smooth(rng, amplitude=18.0)
    offset = rng.uniform(0, HUES) if turn >= HUES else rng.uniform(-turn, turn)
    hue = (np.arange(HUES) + offset + warp) % HUES
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


@dataclass(frozen=True, slots=True)
class RandomFilter:
    """One random convolution: a 3 → 3 channel kernel and the share of the input kept."""

    kernel: np.ndarray
    """float32[3 (out), 3 (in), k, k], k ∈ {1, 3, 5}."""
    keep: float
    """Weight of the input in the mix, 0 … 0.7 (the filtered image gets 1 − keep)."""


FILTER_SIDES = (1, 3, 5)
"""Kernel sides (px) a random filter is drawn from; crops are 96-128 px, so 5 px alters strokes, not layout."""


def random_filter(rng: np.random.Generator) -> RandomFilter:
    """Draw a random convolution (see the module docstring)."""
    side = int(rng.choice(FILTER_SIDES))
    kernel = rng.normal(0.0, 1.0 / np.sqrt(side * side * 3), size=(3, 3, side, side)).astype(np.float32)
    return RandomFilter(kernel=kernel, keep=float(rng.uniform(0.0, 0.7)))


def apply_filter(bgr: np.ndarray, spec: RandomFilter) -> np.ndarray:
    """``bgr`` (uint8, H × W × 3) through ``spec``: each output channel standardised to the input channel's
    mean and standard deviation, mixed with the input; same shape and dtype."""
    x = bgr.astype(np.float32) / 255.0
    out = np.empty_like(x)
    for o in range(3):
        y = np.zeros(x.shape[:2], np.float32)
        for i in range(3):
            y += cv2.filter2D(x[..., i], -1, spec.kernel[o, i], borderType=cv2.BORDER_REFLECT)
        mean, std = float(x[..., o].mean()), float(x[..., o].std())
        y = (y - y.mean()) / max(float(y.std()), 1e-6) * std + mean
        out[..., o] = spec.keep * x[..., o] + (1.0 - spec.keep) * y
    return np.clip(np.round(out * 255.0), 0, 255).astype(np.uint8)


def file_rng(seed: int, name: str) -> np.random.Generator:
    """A generator seeded by ``seed`` and a file name (stable across runs and walk orders)."""
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def restyle_folder(folder: Path, share: float, seed: int, filter_share: float = 0.0, turn: float = HUES) -> dict:
    """Restyle, in place, a share of the images under ``folder`` (``<class>/<image>``); returns counts.

    Each image is chosen with probability ``share`` (drawn from its own generator) and rewritten with a
    fresh palette (hue turned at most ``turn`` steps); independently, with probability ``filter_share``, passed through a random
    convolution (drawn from a second generator of its own, so ``share``'s choices do not depend on
    ``filter_share``). Meant for a run's own rendered train crops: it overwrites files.
    """
    for name, value in (("restyle", share), ("filter", filter_share)):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} share must be within 0 … 1 (got {value})")
    seen = changed = filtered = 0
    for path in sorted(folder.glob("*/*")):
        if path.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        seen += 1
        name = f"{path.parent.name}/{path.name}"
        rng = file_rng(seed, name)
        recolour = rng.random() < share
        frng = file_rng(seed, "filter:" + name)
        refilter = frng.random() < filter_share
        if not (recolour or refilter):
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        if recolour:
            image = apply_palette(image, random_palette(rng, turn))
            changed += 1
        if refilter:
            image = apply_filter(image, random_filter(frng))
            filtered += 1
        cv2.imwrite(str(path), image)
    out = {"images": seen, "restyled": changed, "share": share, "seed": seed}
    if turn < HUES:
        out["turn"] = turn
    return {**out, "filtered": filtered, "filter_share": filter_share} if filter_share else out
