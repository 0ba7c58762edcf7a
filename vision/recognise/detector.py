"""First stage: where the cards are. A YOLO detector of two classes, a face-up card and a back.

The detector was trained on boxes around each card's whole outline (hidden parts included), so a
box's shape carries the card's angle (:mod:`vision.recognise.geometry`). Frames are scaled so that
their long side is ``size`` px, padded to a multiple of 32 (grey 114, as ultralytics pads), batched,
and the raw output ``(N, 4 + 2, anchors)`` — box centre, size, then class scores — is decoded here
with class-agnostic non-maximum suppression (a card is either face up or face down).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.recognise.backends import Network

STRIDE = 32


@dataclass(frozen=True, slots=True)
class Detection:
    """One card found in a frame."""

    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 in frame pixels."""
    face_up: bool
    score: float
    """Detector confidence, 0..1."""


def input_shape(frame_size: tuple[int, int], size: int) -> tuple[float, int, int]:
    """(scale, input width, input height) for a ``frame_size`` (w, h) frame at long side ``size``."""
    w, h = frame_size
    scale = size / max(w, h)
    iw = int(np.ceil(round(w * scale) / STRIDE) * STRIDE)
    ih = int(np.ceil(round(h * scale) / STRIDE) * STRIDE)
    return scale, iw, ih


def prepare(frames: Sequence[np.ndarray], size: int) -> tuple[np.ndarray, float]:
    """A float32 NCHW RGB batch of ``frames`` (BGR, all the same size) and the scale applied."""
    h, w = frames[0].shape[:2]
    scale, iw, ih = input_shape((w, h), size)
    batch = np.full((len(frames), ih, iw, 3), 114, np.uint8)
    nw, nh = round(w * scale), round(h * scale)
    for i, f in enumerate(frames):
        if f.shape[:2] != (h, w):
            raise ValueError("frames of one batch must have the same size")
        batch[i, :nh, :nw] = cv2.resize(f, (nw, nh), interpolation=cv2.INTER_AREA)
    return batch[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0, scale


def decode(raw: np.ndarray, scale: float, frame_size: tuple[int, int], conf: float, iou: float,
           back_class: int = 1) -> list[Detection]:
    """Detections of one image from its raw output ``(4 + classes, anchors)``."""
    scores = raw[4:]
    cls = scores.argmax(axis=0)
    best = scores[cls, np.arange(scores.shape[1])]
    keep = best >= conf
    if not keep.any():
        return []
    cx, cy, bw, bh = (raw[k, keep] / scale for k in range(4))
    best, cls = best[keep], cls[keep]
    rects = np.stack([cx - bw / 2, cy - bh / 2, bw, bh], axis=1)
    idx = cv2.dnn.NMSBoxes(rects.tolist(), best.tolist(), conf, iou)
    w, h = frame_size
    out = []
    for i in np.asarray(idx, int).reshape(-1):
        x0, y0 = max(0.0, float(rects[i, 0])), max(0.0, float(rects[i, 1]))
        x1, y1 = min(w - 1.0, float(rects[i, 0] + rects[i, 2])), min(h - 1.0, float(rects[i, 1] + rects[i, 3]))
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        out.append(Detection((x0, y0, x1, y1), int(cls[i]) != back_class, float(best[i])))
    return out


class CardDetector:
    """Runs the detector network on frames."""

    def __init__(self, network: Network, size: int = 416, conf: float = 0.3, iou: float = 0.7) -> None:
        self.network = network
        self.size = size
        self.conf = conf
        self.iou = iou

    def detect(self, frames: Sequence[np.ndarray]) -> list[list[Detection]]:
        """Detections per frame (BGR uint8 frames of one size)."""
        if not frames:
            return []
        batch, scale = prepare(frames, self.size)
        raw = self.network(batch)[0]
        h, w = frames[0].shape[:2]
        return [decode(raw[i], scale, (w, h), self.conf, self.iou) for i in range(len(frames))]
