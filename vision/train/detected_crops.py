"""Classifier crops cut where the shipped detector puts each rendered card.

At run time the classifier sees crops of the outline recognition takes for each detection
(:meth:`vision.recognise.Recogniser.outlines`: the oriented detector's rectangle), not the card's
true polygon. On a tilted camera or a
partly covered card that outline can be far off (turned the wrong way, too small, a trapezoid taken
for a rectangle), and a classifier
trained only on true polygons with a small jitter names such crops much worse than it names the
same cards cut exactly. These crops teach it the run-time view: each rendered scene is run through
the shipped detector (``models/<deck>``), each detection is matched to a true card by the
benchmark's rule (:func:`vision.recognise.geometry.match`: IoU ≥ 0.5, cards seen whole claiming
first), and the crop of its outline, either way up, is named by that card's recognition class.
Detections that match no card, and cards seen less than ``min_visible``, give no crop.

Crops go into the dataset's own split folders (``train/``, ``val/``) beside the true-polygon crops,
named ``det_<seed>_<z>.png``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import half_turn, square_crop
from vision.synth.labels import SceneLabels

SPLITS = ("train", "val")


def detected_crops(data: Path, root: Path, deck: str, side: int = 128, min_visible: float = 0.35,
                   models: Path | None = None, seed: int = 0) -> dict:
    """Write crops of the shipped detector's outlines of ``data``'s rendered scenes into ``root/<split>/<class>/``.

    ``data`` is a rendered dataset (``images/<split>/``, ``truth/<split>/``); returns per-split counts
    of scenes, detections, crops written and true cards (seen ≥ ``min_visible``) the detector missed.
    Raises ValueError when ``data`` holds no rendered truth.
    """
    from vision.evaluate.recognition import true_class
    from vision.recognise.geometry import match
    from vision.recognise.recogniser import Recogniser

    if not any((data / "truth" / s).is_dir() for s in SPLITS):
        raise ValueError(f"{data}: no rendered truth (truth/<split>/*.json): detected crops need rendered scenes")
    rec = Recogniser(deck, models, backends=("onnxruntime", "openvino", "torch"), indices=False)
    counts = {}
    for split in SPLITS:
        c = {"scenes": 0, "detections": 0, "crops": 0, "missed": 0}
        truth_dir = data / "truth" / split
        for tfile in sorted(truth_dir.glob("*.json")) if truth_dir.is_dir() else []:
            image = _image(data / "images" / split, tfile.stem)
            if image is None:
                raise ValueError(f"{tfile}: no image {tfile.stem}.* in {data / 'images' / split}")
            labels = SceneLabels.from_json(tfile.read_text(encoding="utf-8"))
            dets = rec.detector.detect([image])[0]
            polys = rec.outlines(image, dets)
            truth = [t for t in labels.cards if t.visible >= min_visible]
            rng = np.random.default_rng([seed, int(tfile.stem), 11])
            c["scenes"] += 1
            c["detections"] += len(dets)
            for t, i in zip(truth, match([d.box for d in dets], truth), strict=True):
                if i is None:
                    c["missed"] += 1
                    continue
                poly = polys[i] if rng.random() < 0.5 else half_turn(polys[i])
                folder = root / split / true_class(t, deck)
                folder.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(folder / f"det_{tfile.stem}_{t.z:03d}.png"), square_crop(image, poly, side),
                            [cv2.IMWRITE_PNG_COMPRESSION, 1])
                c["crops"] += 1
        counts[split] = c
    return counts


def _image(folder: Path, stem: str) -> np.ndarray | None:
    for suffix in (".png", ".jpg", ".jpeg"):
        f = folder / f"{stem}{suffix}"
        if f.is_file():
            return cv2.imread(str(f), cv2.IMREAD_COLOR)
    return None
