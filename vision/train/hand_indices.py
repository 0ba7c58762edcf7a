"""Corner-index training data cut from rendered tables of fanned and spread hands.

The real photographs (:mod:`vision.train.corners`) are close-ups: an index is 20-60 px tall in them.
On a table seen from above, an index of a fanned hand is 12-30 px tall in the camera's frame, and
the index reader reads such a frame in tiles at its own resolution
(:meth:`vision.recognise.index_reader.IndexReader.read`). This module renders such tables
(:func:`vision.synth.hands.hands_scene`, and one frame in :data:`PLAIN_SHARE` an ordinary table of
cards lying apart, :func:`vision.synth.scene.sample_scene` without its occluders, which the
labels of an index's visibility do not see) and cuts from them, next to the real
photographs' datasets:

- detector tiles: ``tile`` × ``tile`` px squares of the frame at its own resolution, most of them
  centred near a visible index (:data:`TILES_NEAR` per frame, plus :data:`TILES_ANYWHERE` anywhere),
  labelled with every index box at least :data:`INSIDE` inside the tile;
- classifier crops: each visible index cut ``copies`` times as :func:`vision.train.corners.crop_dataset`
  cuts the photos' (any angle, scale ± 8 %, shift ± 5 %), held-out frames once as cut.

An index is *visible* when at least :data:`VISIBLE` of it is uncovered by the cards above and inside
the frame; its box is the axis-aligned bounds of the printed ink (:func:`vision.train.corners.art_index_box`
on the style's face) mapped through the card's outline, as the photos' labels box an index.
Frame sizes vary (:data:`SIZES`) so that indices come at the sizes a 720p or 1080p webcam gives.
Frames whose seed :func:`~vision.train.corners.is_tune` holds out at ``tune`` go to the val splits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import index_square, square_crop
from vision.train.corners import INDEX_REGION, art_index_box, is_tune

SIZES = ((1280, 720), (1280, 720), (1600, 900), (1920, 1080))
"""Frame sizes (w, h), drawn uniformly: a 720p frame twice as often as the others."""
PLAIN_SHARE = 0.2
"""Share of frames that are ordinary tables (cards apart) rather than hands."""
TILT_SHARE = 0.5
"""Share of hands frames seen from 18-32° off the vertical."""
VISIBLE = 0.6
"""An index at least this fraction uncovered and inside the frame is labelled (and cut)."""
INSIDE = 0.6
"""A tile is labelled with the index boxes at least this fraction inside it."""
TILES_NEAR = 4
TILES_ANYWHERE = 1


def face_boxes(style, cards: Sequence[str], region: tuple[float, float, float, float]) -> dict[str, tuple]:
    """``card id → (x0, y0, x1, y1)`` of its top-left index as fractions of the face's width and height."""
    from vision.synth.artset import load_face

    out = {}
    for card in cards:
        face = load_face(style.path(card), 480)
        h, w = face.shape[:2]
        x0, y0, x1, y1 = art_index_box(face, region)
        out[card] = (x0 / w, y0 / h, x1 / w, y1 / h)
    return out


def visible_indices(labels, size: tuple[int, int], boxes: dict[str, tuple], scale: float = 0.5) -> list[tuple[str, tuple]]:
    """``(card id, (x0, y0, x1, y1) px)`` of each visible corner index (module docstring) of a rendered
    scene's face-up cards, ``boxes`` giving each card's index ink; masks drawn at ``scale`` of the image."""
    from vision.synth.hands import seen_indices

    w, h = size
    out = []
    for card, quad in seen_indices(labels, size, boxes.get, scale, VISIBLE):
        (bx0, by0), (bx1, by1) = quad.min(axis=0), quad.max(axis=0)
        out.append((card, (max(0.0, float(bx0)), max(0.0, float(by0)), min(float(w), float(bx1)), min(float(h), float(by1)))))
    return out


def tile_origins(rng: np.random.Generator, size: tuple[int, int], tile: int, boxes: Sequence[tuple]) -> list[tuple[int, int]]:
    """Top-left corners of the frame's tiles: :data:`TILES_NEAR` round random index boxes, then
    :data:`TILES_ANYWHERE` anywhere, all inside the frame."""
    w, h = size
    out = []
    picks = rng.choice(len(boxes), min(TILES_NEAR, len(boxes)), replace=False) if boxes else []
    for i in picks:
        x0, y0, x1, y1 = boxes[int(i)]
        cx, cy = (x0 + x1) / 2 + rng.uniform(-0.4, 0.4) * tile, (y0 + y1) / 2 + rng.uniform(-0.4, 0.4) * tile
        out.append((int(np.clip(cx - tile / 2, 0, w - tile)), int(np.clip(cy - tile / 2, 0, h - tile))))
    for _ in range(TILES_ANYWHERE):
        out.append((int(rng.integers(0, w - tile + 1)), int(rng.integers(0, h - tile + 1))))
    return out


def tile_labels(origin: tuple[int, int], tile: int, boxes: Sequence[tuple]) -> list[str]:
    """YOLO lines (class 0) of the boxes at least :data:`INSIDE` inside the tile at ``origin``."""
    ox, oy = origin
    lines = []
    for x0, y0, x1, y1 in boxes:
        area = max(1e-6, (x1 - x0) * (y1 - y0))
        cx0, cy0, cx1, cy1 = max(x0, ox), max(y0, oy), min(x1, ox + tile), min(y1, oy + tile)
        if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) < INSIDE * area:
            continue
        lines.append(f"0 {((cx0 + cx1) / 2 - ox) / tile:.6f} {((cy0 + cy1) / 2 - oy) / tile:.6f} "
                     f"{(cx1 - cx0) / tile:.6f} {(cy1 - cy0) / tile:.6f}\n")
    return lines


def hands_data(out: Path, frames: int, seed: int, styles: Sequence[str] = ("knoll", "jumbo"),
               art_dir: str | None = None, side: int = 96, tile: int = 320, copies: int = 2,
               tune: float = 0.1) -> dict:
    """Render ``frames`` tables (seeds ``seed`` …, styles in turn) and write detector tiles into
    ``out/detect/{images,labels}/{train,val}`` and index crops into ``out/crops/{train,val}/<card id>/``
    (module docstring). Frames already written are skipped (a cut-short run resumes). Returns counts."""
    from vision.synth.artset import find_style
    from vision.synth.hands import hands_scene
    from vision.synth.scene import render, sample_scene
    from vision.synth.tables import background_textures

    out = out.resolve()
    textures = background_textures(art_dir)
    found = {s: find_style("playing", s, art_dir) for s in styles}
    regions = {}
    for s in styles:
        if s not in INDEX_REGION:
            raise ValueError(f"no index region known for playing style {s!r} ({', '.join(INDEX_REGION)})")
        regions[s] = face_boxes(found[s], [c for c in found[s].ids if not c.startswith(("JOKER", "BACK"))],
                                INDEX_REGION[s])
    counts = {"frames": 0, "skipped": 0, "tiles": {"train": 0, "val": 0}, "boxes": 0, "crops": {"train": 0, "val": 0}}
    for k in range(frames):
        s = seed + k
        split = "val" if is_tune(f"hands-{s}", tune) else "train"
        done = out / "done" / f"hands-{s}"
        if done.is_file():
            counts["skipped"] += 1
            continue
        rng = np.random.default_rng([s, 38])
        style = styles[k % len(styles)]
        size = SIZES[int(rng.integers(len(SIZES)))]
        if rng.random() < PLAIN_SHARE:
            scene = dataclasses.replace(sample_scene(s, "playing", (style,), size, textures), occluders=())
        else:
            scene = hands_scene(s, "playing", (style,), size, textures, tilted=bool(rng.random() < TILT_SHARE))
        r = render(scene, {style: found[style]})
        image, labels = r.image, r.labels
        found_boxes = visible_indices(labels, size, regions[style])
        boxes = [b for _, b in found_boxes]
        for folder in ("images", "labels"):
            (out / "detect" / folder / split).mkdir(parents=True, exist_ok=True)
        for j, origin in enumerate(tile_origins(rng, size, tile, boxes)):
            name = f"hands-{s}-{j}"
            ox, oy = origin
            cv2.imwrite(str(out / "detect" / "images" / split / f"{name}.jpg"), image[oy:oy + tile, ox:ox + tile],
                        [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 96))])
            lines = tile_labels(origin, tile, boxes)
            (out / "detect" / "labels" / split / f"{name}.txt").write_text("".join(lines), encoding="utf-8")
            counts["tiles"][split] += 1
            counts["boxes"] += len(lines)
        for i, (card, box) in enumerate(found_boxes):
            folder = out / "crops" / split / card
            folder.mkdir(parents=True, exist_ok=True)
            squares = [index_square(box)] if split == "val" else [
                index_square(box, angle=rng.uniform(0, 360), scale=rng.normal(1.0, 0.08), shift=rng.normal(0.0, 0.05, 2))
                for _ in range(copies)]
            for j, sq in enumerate(squares):
                cv2.imwrite(str(folder / f"hands-{s}-{i}-{j}.png"), square_crop(image, sq, side),
                            [cv2.IMWRITE_PNG_COMPRESSION, 1])
                counts["crops"][split] += 1
        done.parent.mkdir(parents=True, exist_ok=True)
        done.write_text("", encoding="utf-8")
        counts["frames"] += 1
    return counts

