"""First stage: where the cards are. A YOLO detector of two classes, a face-up card and a back.

Two kinds of detector are read. An oriented one (YOLO OBB, ``oriented`` in the manifest; both decks'
card detectors) gives each card's rotated rectangle, whole outline, hidden parts included: raw
output ``(N, 4 + classes + 1, anchors)`` — centre, the rectangle's own width and height, class
scores, then its angle (radians, clockwise in image coordinates from the x-axis to the width side).
An axis-aligned one (YOLO detect: the playing cards' corner-index detector,
:mod:`vision.recognise.index_reader`) gives boxes: raw output ``(N, 4 + classes, anchors)`` — box
centre, size, then class scores. Frames are scaled so that their long side is ``size`` px, padded
to a multiple of 32 (grey 114, as ultralytics pads), batched, and decoded here with class-agnostic
non-maximum suppression (a card is either face up or face down; rotated rectangles by their
rotated overlap).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.recognise.backends import Network
from vision.recognise.manifest import DetectorSettings

STRIDE = 32


@dataclass(frozen=True, slots=True)
class Detection:
    """One card found in a frame."""

    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 in frame pixels."""
    face_up: bool
    score: float
    """Detector confidence, 0..1."""
    polygon: tuple[tuple[float, float], ...] | None = None
    """Four corners in frame px (may reach past the frame): an oriented detector's rectangle; None
    from an axis-aligned detector."""


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


def _oriented_candidates(raw: np.ndarray, scale: float, conf: float) -> tuple[np.ndarray, ...]:
    """(cx, cy, w, h in frame px, angle in degrees, best score, class) of an oriented detector's
    anchors at ``conf`` or more."""
    scores = raw[4:-1]
    cls = scores.argmax(axis=0)
    best = scores[cls, np.arange(scores.shape[1])]
    keep = best >= conf
    cx, cy, bw, bh = (raw[k, keep] / scale for k in range(4))
    return cx, cy, bw, bh, np.degrees(raw[-1, keep]), best[keep], cls[keep]


def decode(raw: np.ndarray, scale: float, frame_size: tuple[int, int], conf: float, iou: float,
           back_class: int = 1, oriented: bool = False) -> list[Detection]:
    """Detections of one image from its raw output ``(4 + classes [+ 1 angle], anchors)``."""
    w, h = frame_size
    if oriented:
        cx, cy, bw, bh, degrees, best, cls = _oriented_candidates(raw, scale, conf)
        if not len(best):
            return []
        rects = [((float(x), float(y)), (float(a), float(b)), float(t))
                 for x, y, a, b, t in zip(cx, cy, bw, bh, degrees, strict=True)]
        idx = cv2.dnn.NMSBoxesRotated(rects, best.tolist(), conf, iou)
    else:
        scores = raw[4:]
        cls = scores.argmax(axis=0)
        best = scores[cls, np.arange(scores.shape[1])]
        keep = best >= conf
        if not keep.any():
            return []
        cx, cy, bw, bh = (raw[k, keep] / scale for k in range(4))
        best, cls = best[keep], cls[keep]
        boxes = np.stack([cx - bw / 2, cy - bh / 2, bw, bh], axis=1)
        idx = cv2.dnn.NMSBoxes(boxes.tolist(), best.tolist(), conf, iou)
    out = []
    for i in np.asarray(idx, int).reshape(-1):
        polygon = None
        if oriented:
            points = cv2.boxPoints(rects[i]).astype(np.float64)
            polygon = tuple((float(x), float(y)) for x, y in points)
            x0, y0 = points.min(axis=0)
            x1, y1 = points.max(axis=0)
        else:
            x0, y0 = boxes[i, 0], boxes[i, 1]
            x1, y1 = boxes[i, 0] + boxes[i, 2], boxes[i, 1] + boxes[i, 3]
        x0, y0 = max(0.0, float(x0)), max(0.0, float(y0))
        x1, y1 = min(w - 1.0, float(x1)), min(h - 1.0, float(y1))
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        out.append(Detection((x0, y0, x1, y1), int(cls[i]) != back_class, float(best[i]), polygon))
    return out


class CardDetector:
    """Runs the detector network on frames."""

    def __init__(self, network: Network, size: int = 416, conf: float = 0.3, iou: float = 0.7,
                 oriented: bool = False) -> None:
        self.network = network
        self.size = size
        self.conf = conf
        self.iou = iou
        self.oriented = oriented
        """Whether the network gives rotated rectangles (YOLO OBB) rather than axis-aligned boxes."""

    @classmethod
    def from_manifest(cls, network: Network, entry: DetectorSettings, size: int | None = None) -> CardDetector:
        """The detector a manifest entry describes; ``size`` overrides its input size."""
        return cls(network, size or entry.size, entry.conf, entry.iou, entry.oriented)

    def detect(self, frames: Sequence[np.ndarray]) -> list[list[Detection]]:
        """Detections per frame (BGR uint8 frames of one size)."""
        if not frames:
            return []
        batch, scale = prepare(frames, self.size)
        raw = self.network(batch)[0]
        h, w = frames[0].shape[:2]
        return [decode(raw[i], scale, (w, h), self.conf, self.iou, oriented=self.oriented) for i in range(len(frames))]
