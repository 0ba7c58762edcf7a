"""A quick look at how a classifier names an art style it may never have seen: top-1 on rendered crops.

For each ``MODELS=STYLE`` pair, validation scenes (seed ≡ 8 mod 10 from ``--seed``; never the
benchmark's test scenes, seed ≡ 9) of that style are rendered with the training crops' recipe (square
128-px crops of every card seen ≥ 35 %, outline disturbed by 2 % of the card's long side, either way
up) and every crop is named by the models' classifier alone, one view, resized to its input side.
No detector, no calibration, no profile: a minute's proxy for the ``unseen`` part of
bench/recognition.py, to compare training recipes before the full measurement.

    python bench/style_crops.py runs/x-mantia/models=classic runs/x-classic/models=mantia \
        [--scenes 50] [--seed 700000] [--art-dir ../shared/assets] [--json bench/out/style-crops.json]

Prints, per pair, the crops named right and the commonest confusions.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.recognise import Recogniser  # noqa: E402
from vision.synth.export import DatasetSpec, write_dataset  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def render_val_crops(style: str, scenes: int, seed: int, art_dir: str | None, out: Path) -> list[tuple[Path, str]]:
    """Render ``scenes`` validation scenes of ``style`` (seeds seed+8, seed+18, …); (crop file, class) pairs."""
    paths: list[tuple[Path, str]] = []
    for k in range(scenes):
        spec = DatasetSpec(deck="hanafuda", styles=(style,), out=str(out / f"s{k}"), count=1, seed=seed + 10 * k + 8,
                           size=(640, 640), art_dir=art_dir, crops=True, classes="recognition", crop_side=128,
                           crop_copies=1, crop_jitter=0.02, crop_min_visible=0.35)
        write_dataset(spec)
        for f in sorted((out / f"s{k}" / "crops").glob("*/*/*.png")):
            paths.append((f, f.parent.name))
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", nargs="+", metavar="MODELS=STYLE")
    ap.add_argument("--scenes", type=int, default=50)
    ap.add_argument("--seed", type=int, default=700000)
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    results = []
    crops_by_style: dict[str, list[tuple[Path, str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for pair in args.pairs:
            models, _, style = pair.rpartition("=")
            if not models or not style:
                print(f"{pair}: expected MODELS=STYLE", file=sys.stderr)
                return 2
            if style not in crops_by_style:
                start = time.perf_counter()
                crops_by_style[style] = render_val_crops(style, args.scenes, args.seed, args.art_dir,
                                                         Path(tmp) / style)
                print(f"{style}: {len(crops_by_style[style])} crops from {args.scenes} val scenes "
                      f"in {time.perf_counter() - start:.0f} s")
            clf = Recogniser("hanafuda", models).classifier
            items = crops_by_style[style]
            images = [cv2.resize(cv2.imread(str(f)), (clf.side, clf.side), interpolation=cv2.INTER_AREA)
                      for f, _ in items]
            probs, _ = clf.raw(images)
            said = [clf.names[i] for i in np.argmax(probs, axis=1)]
            truth = [c for _, c in items]
            right = sum(s == t for s, t in zip(said, truth, strict=True))
            confusions = Counter((t, s) for s, t in zip(said, truth, strict=True) if s != t).most_common(8)
            row = {"models": models, "style": style, "crops": len(items), "right": right,
                   "accuracy": right / max(1, len(items)),
                   "confusions": [{"truth": t, "said": s, "count": n} for (t, s), n in confusions]}
            results.append(row)
            print(f"{models} on {style}: {right}/{len(items)} = {row['accuracy']:.1%}; commonest confusions: "
                  + ", ".join(f"{t}→{s} ×{n}" for (t, s), n in confusions))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"scenes": args.scenes, "seed": args.seed, "results": results},
                                              indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
