"""Helpers for the synth tests: compare a rectified card crop with every face of its art style."""

from __future__ import annotations

import numpy as np

SIZE = (36, 58)  # width, height of the comparison thumbnails (pixels)


def _norm(img: np.ndarray) -> np.ndarray:
    x = img.astype(np.float64).reshape(-1, img.shape[-1])
    x = x - x.mean(axis=0)
    x = x / (np.linalg.norm(x, axis=0) + 1e-9)  # per channel: colour casts and exposure cancel out
    return x.ravel() / np.sqrt(img.shape[-1])


def references(style, card_ids) -> dict[str, np.ndarray]:
    """Normalised thumbnails of the faces of ``card_ids`` (art over mid-grey)."""
    import cv2

    from vision.synth.cardfaces import CardLook, face_image

    out = {}
    for cid in card_ids:
        face = face_image(style, CardLook(cid), 192)
        a = face[..., 3:4].astype(np.float32) / 255
        bgr = face[..., :3] * a + 128 * (1 - a)
        out[cid] = _norm(cv2.resize(bgr.astype(np.uint8), SIZE, interpolation=cv2.INTER_AREA))
    return out


def correlations(image: np.ndarray, polygon, refs: dict[str, np.ndarray]) -> dict[str, float]:
    """Correlation (−1..1) of the card at ``polygon`` with each reference face."""
    import cv2

    from vision.synth.export import rectify

    crop = rectify(image, polygon, (SIZE[0] * 4, SIZE[1] * 4))
    crop = _norm(cv2.resize(crop, SIZE, interpolation=cv2.INTER_AREA))
    return {cid: float(crop @ ref) for cid, ref in refs.items()}
