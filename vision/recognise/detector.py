"""First stage: where the cards are. A YOLO detector of two classes, a face-up card and a back.

Three kinds of detector are read. An axis-aligned one (YOLO detect) was trained on boxes around each
card's whole outline (hidden parts included), so a box's shape carries the card's angle up to its
sign (:mod:`vision.recognise.geometry`); its raw output is ``(N, 4 + classes, anchors)`` — box
centre, size, then class scores. An oriented one (YOLO OBB, ``oriented`` in the manifest) gives
each card's rotated rectangle itself: raw output ``(N, 4 + classes + 1, anchors)`` — centre, the
rectangle's own width and height, class scores, then its angle (radians, clockwise in image
coordinates from the x-axis to the width side). A corner detector (YOLO pose, ``keypoints`` in the
manifest) gives an axis-aligned box and the card's four corners (in the order of
:func:`vision.synth.export.box_order`, which recognition does not rely on):
raw output ``(N, 4 + classes + 4 × 3, anchors)`` — the box, class scores, then x, y (input px) and
a confidence per corner; its outline is the four corners, so a card seen at a slant keeps its
trapezoid (:func:`corner_outline`). Frames are scaled so that their long side is
``size`` px, padded to a multiple of 32 (grey 114, as ultralytics pads), batched, and decoded here
with class-agnostic non-maximum suppression (a card is either face up or face down; rotated
rectangles by their rotated overlap).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.recognise.backends import Network
from vision.recognise.geometry import box_area, box_intersection

STRIDE = 32
CORNER_CONF = 0.5
"""A corner detector's corner counts as found at this confidence or more."""
MIN_FILL = 0.3
"""A corner outline must cover at least this share of its box (a card at 45° covers about half)."""
MIN_BOUNDS_IOU = 0.7
"""A corner outline's bounds must overlap the detector's box at least this much (intersection over
union, both clipped to the frame): corners pulled in between two of the card's (where the corner
order jumps) make a smaller outline."""


@dataclass(frozen=True, slots=True)
class Detection:
    """One card found in a frame."""

    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 in frame pixels."""
    face_up: bool
    score: float
    """Detector confidence, 0..1."""
    polygon: tuple[tuple[float, float], ...] | None = None
    """Four corners in frame px (may reach past the frame): an oriented detector's rectangle, or a
    corner detector's outline; None from an axis-aligned detector, and from a
    corner detector whose corners make no plausible card (:func:`corner_outline`)."""


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


def corner_outline(corners: np.ndarray, conf: np.ndarray, box: tuple[float, float, float, float],
                   frame_size: tuple[int, int] | None = None) -> np.ndarray | None:
    """A card's outline (4 × 2, frame px) from a corner detector's four corners and their confidences.

    A corner below :data:`CORNER_CONF` (outside the frame, or not made out) is put where the other
    three make a parallelogram. None — the box's own outline is used instead — when two or more
    corners are missing, or when the four do not make a convex quadrilateral covering at least
    :data:`MIN_FILL` of ``box`` (x0, y0, x1, y1) whose bounds overlap ``box`` by
    :data:`MIN_BOUNDS_IOU` (both clipped to ``frame_size`` (w, h) when given)."""
    found = conf >= CORNER_CONF
    if found.sum() < 3:
        return None
    q = np.asarray(corners, np.float64).reshape(4, 2).copy()
    if not found.all():
        i = int(np.flatnonzero(~found)[0])
        q[i] = q[(i - 1) % 4] + q[(i + 1) % 4] - q[(i + 2) % 4]
    area = 0.5 * abs(sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4)))
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)) or area < MIN_FILL * box_area(box):
        return None
    bounds = np.concatenate([q.min(axis=0), q.max(axis=0)])
    target = np.asarray(box, np.float64)
    if frame_size is not None:
        limit = np.array([frame_size[0] - 1.0, frame_size[1] - 1.0] * 2)
        bounds, target = np.clip(bounds, 0, limit), np.clip(target, 0, limit)
    shared = box_intersection(bounds, target)
    union = box_area(bounds) + box_area(target) - shared
    if union <= 0 or shared / union < MIN_BOUNDS_IOU:
        return None
    return q


def _rotated_iou(a, b) -> float:
    """Intersection over union of two OpenCV rotated rectangles ``((cx, cy), (w, h), degrees)``."""
    kind, points = cv2.rotatedRectangleIntersection(a, b)
    if kind == cv2.INTERSECT_NONE or points is None or len(points) < 3:
        return 0.0
    shared = float(cv2.contourArea(cv2.convexHull(points)))
    union = a[1][0] * a[1][1] + b[1][0] * b[1][1] - shared
    return shared / union if union > 0 else 0.0


def fused(rects: list, scores: np.ndarray, leader: int, iou: float) -> tuple:
    """The score-weighted mean of ``rects[leader]`` and every rectangle overlapping it by at least
    ``iou`` (rotated): centre and sides averaged with each rectangle taken long side first, the
    angle as its difference from the leader's, modulo 180° (a rectangle turned by a half turn is
    the same rectangle)."""
    (lx, ly), (lw, lh), lt = rects[leader]
    if lw < lh:
        lw, lh, lt = lh, lw, lt + 90.0
    reach = max(lw, lh)
    acc = np.zeros(5)
    total = 0.0
    for j, r in enumerate(rects):
        (x, y), (a, b), t = r
        if abs(x - lx) > reach or abs(y - ly) > reach:
            continue
        if j != leader and _rotated_iou(rects[leader], r) < iou:
            continue
        if a < b:
            a, b, t = b, a, t + 90.0
        d = (t - lt + 90.0) % 180.0 - 90.0
        wgt = float(scores[j])
        acc += wgt * np.array([x, y, a, b, d])
        total += wgt
    x, y, a, b, d = acc / total
    return (float(x), float(y)), (float(a), float(b)), float(lt + d)


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
           back_class: int = 1, oriented: bool = False, keypoints: int = 0, fuse: bool = False,
           mirrored: np.ndarray | None = None) -> list[Detection]:
    """Detections of one image from its raw output ``(4 + classes [+ 1 angle | + 3 × keypoints], anchors)``.

    Oriented detectors only: ``mirrored`` is the raw output of the same image mirrored left to
    right, whose rectangles, mirrored back, join the image's own before suppression (a card found
    in either view is kept); with ``fuse`` each rectangle kept is the score-weighted mean of those
    it suppressed and itself (:func:`fused`) rather than the most confident alone."""
    w, h = frame_size
    if (fuse or mirrored is not None) and not oriented:
        raise ValueError("fusing and mirrored views are for oriented detectors")
    if oriented:
        cx, cy, bw, bh, degrees, best, cls = _oriented_candidates(raw, scale, conf)
        if mirrored is not None:
            m = _oriented_candidates(mirrored, scale, conf)
            cx, cy, bw, bh = (np.concatenate(pair) for pair in ((cx, w - m[0]), (cy, m[1]), (bw, m[2]), (bh, m[3])))
            degrees, best, cls = np.concatenate([degrees, -m[4]]), np.concatenate([best, m[5]]), np.concatenate([cls, m[6]])
        if not len(best):
            return []
        rects = [((float(x), float(y)), (float(a), float(b)), float(t))
                 for x, y, a, b, t in zip(cx, cy, bw, bh, degrees, strict=True)]
        idx = cv2.dnn.NMSBoxesRotated(rects, best.tolist(), conf, iou)
    else:
        scores = raw[4:raw.shape[0] - 3 * keypoints]
        cls = scores.argmax(axis=0)
        best = scores[cls, np.arange(scores.shape[1])]
        keep = best >= conf
        if not keep.any():
            return []
        cx, cy, bw, bh = (raw[k, keep] / scale for k in range(4))
        best, cls = best[keep], cls[keep]
        boxes = np.stack([cx - bw / 2, cy - bh / 2, bw, bh], axis=1)
        idx = cv2.dnn.NMSBoxes(boxes.tolist(), best.tolist(), conf, iou)
    corners = None
    if keypoints:
        corners = raw[raw.shape[0] - 3 * keypoints:, keep].copy()
        corners[np.arange(3 * keypoints) % 3 < 2] /= scale  # x, y to frame px; confidences stay
    out = []
    for i in np.asarray(idx, int).reshape(-1):
        polygon = None
        if oriented:
            rect = fused(rects, best, i, iou) if fuse else rects[i]
            points = cv2.boxPoints(rect).astype(np.float64)
            polygon = tuple((float(x), float(y)) for x, y in points)
            x0, y0 = points.min(axis=0)
            x1, y1 = points.max(axis=0)
        else:
            x0, y0 = boxes[i, 0], boxes[i, 1]
            x1, y1 = boxes[i, 0] + boxes[i, 2], boxes[i, 1] + boxes[i, 3]
        if keypoints:
            k = corners[:, i].reshape(keypoints, 3)
            quad = corner_outline(k[:, :2], k[:, 2], (float(x0), float(y0), float(x1), float(y1)), (w, h))
            polygon = None if quad is None else tuple((float(x), float(y)) for x, y in quad)
        x0, y0 = max(0.0, float(x0)), max(0.0, float(y0))
        x1, y1 = min(w - 1.0, float(x1)), min(h - 1.0, float(y1))
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        out.append(Detection((x0, y0, x1, y1), int(cls[i]) != back_class, float(best[i]), polygon))
    return out


class CardDetector:
    """Runs the detector network on frames."""

    def __init__(self, network: Network, size: int = 416, conf: float = 0.3, iou: float = 0.7,
                 oriented: bool = False, keypoints: int = 0, fuse: bool = False, mirror: bool = False) -> None:
        self.network = network
        self.size = size
        self.conf = conf
        self.iou = iou
        self.oriented = oriented
        """Whether the network gives rotated rectangles (YOLO OBB) rather than axis-aligned boxes."""
        self.keypoints = keypoints
        """Corners the network gives after its class scores (YOLO pose): 4, or 0 for none."""
        self.fuse = fuse
        """Oriented only: each rectangle kept is the score-weighted mean of those it suppressed."""
        self.mirror = mirror
        """Oriented only: also look at each frame mirrored left to right (twice the network's work)."""
        if oriented and keypoints:
            raise ValueError("a detector gives rotated rectangles or corners, not both")
        if (fuse or mirror) and not oriented:
            raise ValueError("fuse and mirror are for oriented detectors")

    @classmethod
    def from_manifest(cls, network: Network, entry: dict, size: int | None = None,
                      default_size: int = 416) -> CardDetector:
        """The detector a manifest entry describes (``size``, ``conf``, ``iou``, ``oriented``, ``keypoints``,
        ``fuse``, ``mirror``); ``size`` overrides the entry's input size, ``default_size`` stands in when it
        names none."""
        return cls(network, size or entry.get("size", default_size), entry.get("conf", 0.3), entry.get("iou", 0.7),
                   bool(entry.get("oriented", False)), int(entry.get("keypoints", 0)), bool(entry.get("fuse", False)),
                   bool(entry.get("mirror", False)))

    def detect(self, frames: Sequence[np.ndarray]) -> list[list[Detection]]:
        """Detections per frame (BGR uint8 frames of one size)."""
        if not frames:
            return []
        n = len(frames)
        batch, scale = prepare(list(frames) + ([cv2.flip(f, 1) for f in frames] if self.mirror else []), self.size)
        raw = self.network(batch)[0]
        h, w = frames[0].shape[:2]
        return [decode(raw[i], scale, (w, h), self.conf, self.iou, oriented=self.oriented, keypoints=self.keypoints,
                       fuse=self.fuse, mirrored=raw[n + i] if self.mirror else None)
                for i in range(n)]
