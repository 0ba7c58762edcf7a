"""How tall a playing card's corner index must be, in camera pixels, for the corner-index reader.

Each labelled index of the real photographs' val split (``playing-real``, never trained on; one
copy of each photograph, in colour where one is) is shrunk with its photograph, by area averaging as
a camera's sensor does, until the index box is ``H`` px tall, and read as the careful reader reads a
table at the camera's own resolution: one detector-sized tile (320 px) round it
(:meth:`vision.recognise.index_reader.IndexReader.read_tiled`). An index is **read right** when a
reading whose centre lies in its box names its card with at least the manifest's ``min_prob``
(**sure** from ``unsure_below``), **wrong** when such a reading names another card. Index heights
larger than the photograph's are left out.

A card's printed index (rank over suit) is about a fifth of its long side (88 mm), ~18 mm; the
printed value says what a camera gives: px per mm at the mat × 18.

    python bench/index_size.py [--heights 10,14,18,22,26,30,40] [--real ../shared/datasets/playing-real]
        [--json bench/out/index-size.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.recognise import Recogniser  # noqa: E402
from vision.synth.real_faces import (  # noqa: E402
    best_copy,
    dataset_names,
    photographs,
    read_boxes,
    real_name_to_card_id,
)

REPO = Path(__file__).resolve().parents[1]


def read_at(reader, image: np.ndarray, box: tuple[float, float, float, float], height: float) -> tuple[np.ndarray, tuple] | None:
    """``image`` shrunk so ``box`` is ``height`` px tall, and the box there; None if that would enlarge it."""
    s = height / max(1e-6, box[3] - box[1])
    if s > 1.0:
        return None
    small = cv2.resize(image, (max(1, round(image.shape[1] * s)), max(1, round(image.shape[0] * s))),
                       interpolation=cv2.INTER_AREA)
    return small, tuple(v * s for v in box)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", default=str(REPO.parent / "shared" / "datasets" / "playing-real"))
    ap.add_argument("--heights", default="10,14,18,22,26,30,40")
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "index-size.json"))
    args = ap.parse_args(argv)
    heights = [float(h) for h in args.heights.split(",")]
    rec = Recogniser("playing", args.models)
    reader, params = rec.index_reader, rec.manifest.index
    if reader is None or params is None:
        print("the playing-card models have no corner-index reader", file=sys.stderr)
        return 2
    tile = reader.detector.size
    real = Path(args.real)
    names, ids = dataset_names(real / "data.yaml"), real_name_to_card_id()
    items = []
    for copies in photographs(real, "val").values():
        chosen = best_copy(copies)
        image = cv2.imread(str(chosen))
        boxes = read_boxes(real / "labels" / "val" / (chosen.stem + ".txt"), names, ids, (image.shape[1], image.shape[0]))
        items += [(image, b) for b in boxes if b.card_id != "BACK"]
    print(f"{len(items)} labelled indices in {len(photographs(real, 'val'))} val photographs; reader min_prob "
          f"{params.min_prob}, sure from {params.unsure_below}")
    out = {"indices": len(items), "min_prob": params.min_prob, "unsure_below": params.unsure_below, "heights": {}}
    for h in heights:
        right = sure = wrong = n = 0
        t0 = time.perf_counter()
        for image, b in items:
            got = read_at(reader, image, b.box, h)
            if got is None:
                continue
            small, (x0, y0, x1, y1) = got
            n += 1
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            ox = int(np.clip(cx - tile / 2, 0, max(0, small.shape[1] - tile)))
            oy = int(np.clip(cy - tile / 2, 0, max(0, small.shape[0] - tile)))
            inside = [r for r in reader.read_tiled(small, [(ox, oy)], params.factor_weight)
                      if x0 <= r.centre[0] <= x1 and y0 <= r.centre[1] <= y1 and float(r.probs.max()) >= params.min_prob]
            if not inside:
                continue
            best = max(inside, key=lambda r: float(r.probs.max()))
            name = reader.names[int(np.argmax(best.probs))]
            if name == b.card_id:
                right += 1
                sure += float(best.probs.max()) >= params.unsure_below
            else:
                wrong += 1
        row = {"indices": n, "read_right": right, "sure_right": sure, "wrong": wrong,
               "right_share": round(right / n, 4) if n else None, "sure_share": round(sure / n, 4) if n else None,
               "wrong_share": round(wrong / n, 4) if n else None, "seconds": round(time.perf_counter() - t0, 1)}
        out["heights"][str(h)] = row
        print(f"index {h:4.0f} px tall: {n} indices, read right {right} ({100 * right / max(1, n):.1f} %), "
              f"sure and right {sure} ({100 * sure / max(1, n):.1f} %), wrong {wrong} ({100 * wrong / max(1, n):.1f} %)"
              f"  [{row['seconds']} s]")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
