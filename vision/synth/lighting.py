"""Light: colour temperature, brightness gradients and vignetting, cast shadows, glare.

Shadows are offsets in table millimetres: an object ``height_mm`` above the table casts its
outline shifted by ``height_mm × slope`` towards ``direction_deg`` (table frame), blurred by
``softness_px`` (0 = hard light from a bare bulb or the sun, large = a window or diffuse ceiling).
Glare spots are specular highlights in image pixels that appear only on glossy cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True, slots=True)
class Glare:
    """A specular highlight (image pixels)."""

    center_px: tuple[float, float]
    radius_px: tuple[float, float]
    """Semi-axes of the highlight ellipse."""
    angle_deg: float
    strength: float
    """0..1: how far it washes the card out to white at its centre."""


@dataclass(frozen=True, slots=True)
class LightSpec:
    """How the table is lit."""

    kelvin: float = 5500.0
    """Colour temperature: 2700 warm bulb … 7500 overcast daylight."""
    brightness: float = 1.0
    """Overall gain (exposure)."""
    gradient: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """(direction in image degrees, strength, unused) of a linear brightness ramp: ±strength at the
    image edges."""
    vignette: float = 0.0
    """Darkening at the image corners (0..1)."""
    shadow_direction_deg: float = 45.0
    """Table-frame direction in which shadows fall."""
    shadow_slope: float = 0.3
    """Shadow offset per millimetre of height (tan of the light's zenith angle)."""
    shadow_softness_px: float = 3.0
    """Gaussian sigma of shadow edges, pixels."""
    shadow_strength: float = 0.4
    """0..1: light blocked in a full shadow."""
    glare: tuple[Glare, ...] = ()
    """Specular highlights on glossy cards."""


def kelvin_gains(kelvin: float) -> np.ndarray:
    """BGR channel gains of a light of ``kelvin`` relative to a camera balanced for 5500 K.

    A smooth approximation (warm light: more red, less blue); exact colourimetry is not the point,
    a camera's white balance never gets it right either.
    """
    warm = float(np.clip((5500.0 - kelvin) / 2800.0, -0.8, 1.0))
    return np.array([1 - 0.30 * warm, 1 - 0.05 * warm, 1 + 0.15 * warm], np.float32)


def shading_field(light: LightSpec, size: tuple[int, int]) -> np.ndarray:
    """An h × w × 3 float32 multiplier: colour temperature, exposure, gradient and vignette."""
    # Smooth: computed on a coarse grid and enlarged.
    w, h = size[0] // 8 + 2, size[1] // 8 + 2
    xs = np.linspace(-1, 1, w, dtype=np.float32)
    ys = np.linspace(-1, 1, h, dtype=np.float32)
    a = np.radians(light.gradient[0])
    field = 1 + light.gradient[1] * (np.cos(a) * xs[None, :] + np.sin(a) * ys[:, None])
    if light.vignette > 0:
        field = field * (1 - light.vignette * 0.5 * (xs[None, :] ** 2 + ys[:, None] ** 2))
    field = np.clip(field * light.brightness, 0.05, 3.0).astype(np.float32)
    field = field[..., None] * kelvin_gains(light.kelvin)[None, None, :]
    return cv2.resize(field, size, interpolation=cv2.INTER_LINEAR)


def glare_field(glares: tuple[Glare, ...], size: tuple[int, int]) -> np.ndarray:
    """An h × w float32 field 0..1 of glare strength."""
    w, h = size
    out = np.zeros((h, w), np.float32)
    if not glares:
        return out
    for g in glares:
        reach = 1.6 * max(g.radius_px)  # exp(-2.5 r²) is below 0.2 % past 1.6 radii
        x0, x1 = int(max(0, g.center_px[0] - reach)), int(min(w, g.center_px[0] + reach + 1))
        y0, y1 = int(max(0, g.center_px[1] - reach)), int(min(h, g.center_px[1] + reach + 1))
        if x0 >= x1 or y0 >= y1:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        a = np.radians(g.angle_deg)
        dx, dy = xx - g.center_px[0], yy - g.center_px[1]
        u = (dx * np.cos(a) + dy * np.sin(a)) / max(g.radius_px[0], 1.0)
        v = (-dx * np.sin(a) + dy * np.cos(a)) / max(g.radius_px[1], 1.0)
        np.maximum(out[y0:y1, x0:x1], g.strength * np.exp(-2.5 * (u * u + v * v)), out=out[y0:y1, x0:x1])
    return out
