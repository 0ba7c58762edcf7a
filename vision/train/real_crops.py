"""Classifier crops from the real playing-card photographs, named through their corner labels.

The real photos (``shared/datasets/playing-real``) label only the printed corner indices. To teach
the classifier what real decks look like, the shipped playing-card detector (``models/playing``)
finds the cards in each train photo, each card's rotated rectangle is cut as a classifier crop
(:func:`vision.cardcrop.square_crop`, either way up) and named by the corner labels whose centres
lie inside the outline — when they all agree; a card with no corner label inside, or with two
different ones, is left out. Only the train split is used: the val split stays clean for
bench/recognition.py.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import half_turn, square_crop
from vision.train.datasets import IMAGE_SUFFIXES, read_names, real_name_to_card_id


def real_crops(real_dir: Path, out_train: Path, names: tuple[str, ...], side: int = 128,
               models: Path | None = None, seed: int = 0) -> dict:
    """Write named crops of the real train photos into ``out_train/<class>/``; returns counts."""
    from vision.recognise.backends import load_network
    from vision.recognise.detector import CardDetector
    from vision.recognise.manifest import load_manifest

    manifest = load_manifest("playing", models)
    if not manifest.detector.oriented:
        raise ValueError(f"{manifest.folder}: the playing-card detector gives no rotated rectangles (train obb)")
    detector = CardDetector.from_manifest(load_network(manifest.detector_stem, ("onnxruntime", "openvino", "torch"), "detector"),
                                          manifest.detector)
    real_dir = real_dir.resolve()
    real_names = read_names(real_dir / "data.yaml")
    to_id = real_name_to_card_id()
    index = set(names)
    rng = np.random.default_rng(seed)
    counts = {"photos": 0, "cards_found": 0, "crops": 0, "unnamed": 0, "ambiguous": 0}
    for img in sorted((real_dir / "images" / "train").iterdir()):
        if img.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        frame = cv2.imread(str(img), cv2.IMREAD_COLOR)
        if frame is None:
            continue
        h, w = frame.shape[:2]
        corners = []
        lab = real_dir / "labels" / "train" / f"{img.stem}.txt"
        for line in lab.read_text(encoding="utf-8").splitlines() if lab.is_file() else []:
            parts = line.split()
            if len(parts) == 5:
                cid = to_id.get(real_names[int(parts[0])])
                if cid in index:
                    corners.append((cid, float(parts[1]) * w, float(parts[2]) * h))
        counts["photos"] += 1
        dets = [d for d in detector.detect([frame])[0] if d.face_up]
        polys = (np.asarray(d.polygon, np.float64) for d in dets)
        for k, poly in enumerate(polys):
            counts["cards_found"] += 1
            contour = poly.astype(np.float32).reshape(-1, 1, 2)
            inside = {cid for cid, x, y in corners if cv2.pointPolygonTest(contour, (x, y), False) >= 0}
            if not inside:
                counts["unnamed"] += 1
                continue
            if len(inside) > 1:
                counts["ambiguous"] += 1
                continue
            (cid,) = inside
            folder = out_train / cid
            folder.mkdir(parents=True, exist_ok=True)
            way = poly if rng.random() < 0.5 else half_turn(poly)
            cv2.imwrite(str(folder / f"real_{img.stem}_{k}.png"), square_crop(frame, way, side),
                        [cv2.IMWRITE_PNG_COMPRESSION, 1])
            counts["crops"] += 1
    return counts
