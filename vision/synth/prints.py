"""What is printed on the things on a table that are not cards (:mod:`vision.synth.clutter`): a
texture image per :class:`~vision.synth.occluders.Part` with a ``texture``, from its seed —
``knit`` (a knitted coaster's rows of V stitches), ``box`` (a card box's top: border, title band and
one of the deck's card faces), ``text`` (a rule sheet's lines), ``pips`` (a die's face)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.occluders import Part

TEXTURE_PX = 256
"""Side of a texture image before it is warped onto its part (px)."""


def texture_image(part: Part, face=None) -> np.ndarray:  # noqa: ANN001
    """The BGR image printed on ``part`` (:data:`TEXTURE_PX` square), from its texture and seed;
    ``face(card_id, height)`` gives a card face (BGRA) for a card box."""
    rng = np.random.default_rng(part.texture_seed)
    colour = np.array(part.colour, float)
    n = TEXTURE_PX
    img = np.empty((n, n, 3), np.uint8)
    img[:] = np.clip(colour, 0, 255).astype(np.uint8)
    if part.texture == "knit":
        other = colour if rng.random() < 0.5 else rng.uniform(60, 230, 3)
        pitch = int(rng.integers(9, 15))
        for row, y in enumerate(range(0, n, pitch)):
            tone = (colour if (row // int(rng.integers(2, 5) or 1)) % 2 == 0 else other) * rng.uniform(0.85, 1.1)
            for x in range(0, n, pitch):
                v = np.array([[x, y], [x + pitch // 2, y + pitch], [x + pitch, y]], np.int32)
                cv2.polylines(img, [v], False, tuple(float(t) for t in tone * 0.7), 2, cv2.LINE_AA)
                cv2.polylines(img, [v + [0, 2]], False, tuple(float(t) for t in np.minimum(tone * 1.15, 255)), 1, cv2.LINE_AA)
        img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
    elif part.texture == "box":
        cv2.rectangle(img, (6, 6), (n - 7, n - 7), tuple(float(t) for t in colour * 0.5), 5)
        band = (int(n * 0.78), n - 14)
        cv2.rectangle(img, (14, band[0]), (n - 15, band[1]), (20, 20, 20), -1)
        cv2.putText(img, "".join(chr(int(c)) for c in rng.integers(65, 91, 7)), (24, band[1] - 12),
                    cv2.FONT_HERSHEY_DUPLEX, 0.9, (240, 240, 240), 2, cv2.LINE_AA)
        if face is not None:
            art = face(int(rng.integers(1 << 30)), int(n * 0.66))
            if art is not None:
                ah, aw = art.shape[:2]
                x0, y0 = (n - aw) // 2, 14
                alpha = art[..., 3:4].astype(np.float32) / 255.0
                under = img[y0:y0 + ah, x0:x0 + aw].astype(np.float32)
                img[y0:y0 + ah, x0:x0 + aw] = (under * (1 - alpha) + art[..., :3] * alpha).astype(np.uint8)
    elif part.texture == "text":
        y = 30
        cv2.putText(img, "RULES", (20, y), cv2.FONT_HERSHEY_DUPLEX, 0.8, (30, 30, 30), 2, cv2.LINE_AA)
        y += 22
        while y < n - 10:
            words = "".join(chr(int(c)) if c < 91 else " " for c in rng.integers(65, 97, int(rng.integers(18, 30))))
            cv2.putText(img, words, (16, y), cv2.FONT_HERSHEY_PLAIN, 0.8, (40, 40, 40), 1, cv2.LINE_AA)
            y += int(rng.integers(11, 15))
    elif part.texture == "pips":
        spots = {1: [(1, 1)], 2: [(0, 0), (2, 2)], 3: [(0, 0), (1, 1), (2, 2)], 4: [(0, 0), (0, 2), (2, 0), (2, 2)],
                 5: [(0, 0), (0, 2), (1, 1), (2, 0), (2, 2)], 6: [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)]}
        for gx, gy in spots[int(rng.integers(1, 7))]:
            cv2.circle(img, (int(n * (0.22 + 0.28 * gx)), int(n * (0.22 + 0.28 * gy))), n // 11, (25, 25, 25), -1, cv2.LINE_AA)
    return img
