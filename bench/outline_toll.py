"""What the run-time outline costs the classifier: the same cards named from the outline recognition
fits into each detector box, and from the card's true polygon.

Validation scenes (seed ≡ 8 mod 10 from ``--seed``; never the benchmark's test scenes, seed ≡ 9)
are rendered — any-view 640 × 640 scenes and top-down 1280 × 720 frames, as in bench/recognition.py
— and recognised with the models' detector. Each card seen at least 40 % that a detection matches
(the benchmark's rule, :func:`vision.recognise.evaluate.match`) is classified three ways, with the
calibration and both-ways setting of the manifest:

- ``edges``: of the two leans the box allows, the one whose four edges the image's gradients
  support best (:func:`vision.recognise.geometry.outline`);
- ``outline``: the crop recognition takes (:meth:`vision.recognise.Recogniser.named_outlines`: of
  the two leans, the one the classifier is surer of);
- ``true``: the card's true polygon (what no detector gives; an upper bound on better outlines).

It also reports how far recognition's outline lies from the true one: the mean distance of its
corners to the true corners (the closer of the two ways round), over the card's long side —
median and 90th percentile.

    python bench/outline_toll.py [--models DIR] [--scenes 60] [--frames 30] [--seed 2000000] \
        [--art-dir ../shared/assets] [--json bench/out/outline-toll.json]

Prints, per kind of scene, the cards named right each way, fully visible and seen 40-99 % apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from vision.cardcrop import upright  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.recognise import geometry as geo  # noqa: E402
from vision.recognise.evaluate import SEEN_ENOUGH, SEEN_WHOLE, match, render_scenes, true_class  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
STYLES = ("mantia", "classic", "kokujou")
WAYS = ("edges", "outline", "true")


def toll(rec: Recogniser, scenes) -> dict:
    """Counts of cards named right each way (see the module), over ``scenes`` of (image, labels)."""
    c: Counter = Counter()
    errors: dict[str, list[float]] = defaultdict(list)
    names = rec.classifier.names
    for image, labels in scenes:
        dets = rec.detector.detect([image])[0]
        outlines, probs, _ = rec.named_outlines(image, dets)
        gx, gy = geo.gradients(image)
        truth = [t for t in labels.cards if t.visible >= SEEN_ENOUGH]
        for t, i in zip(truth, match([d.box for d in dets], truth), strict=True):
            part = "whole" if t.visible >= SEEN_WHOLE else "part"
            c[f"cards_{part}"] += 1
            if i is None:
                c[f"missed_{part}"] += 1
                continue
            true = upright(t.polygon)
            errors[part].append(corner_error(outlines[i], true))
            polys = [geo.outline(dets[i].box, rec.aspect, gx, gy), true]
            other, _ = rec.probabilities(rec.classifier.crops(image, polys))
            for way, p in zip(WAYS, (other[0], probs[i], other[1]), strict=True):
                c[f"{way}_{part}"] += int(names[int(p.argmax())] == true_class(t, rec.deck))
    out = {}
    for part in ("whole", "part"):
        n = c[f"cards_{part}"]
        out[part] = {"cards": n, "missed": c[f"missed_{part}"],
                     **{way: {"right": c[f"{way}_{part}"], "accuracy": round(c[f"{way}_{part}"] / n, 4) if n else None}
                        for way in WAYS}}
        e = np.array(errors[part]) if errors[part] else np.zeros(1)
        out[part]["corner_error"] = {"median": round(float(np.median(e)), 4),
                                     "p90": round(float(np.percentile(e, 90)), 4)}
    return out


def corner_error(outline: np.ndarray, true: np.ndarray) -> float:
    """Mean corner distance of ``outline`` to ``true`` (both portrait-first, :func:`upright`), taken
    the closer of the two ways round, over the true long side."""
    long_side = float(np.linalg.norm(true[1] - true[2]))
    return min(float(np.linalg.norm(np.roll(outline, k, 0) - true, axis=1).mean()) for k in (0, 2)) / long_side


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--scenes", type=int, default=60, help="any-view 640 x 640 validation scenes")
    ap.add_argument("--frames", type=int, default=30, help="top-down 1280 x 720 validation frames")
    ap.add_argument("--seed", type=int, default=2_000_000)
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()
    rec = Recogniser("hanafuda", args.models, indices=False)
    start = time.perf_counter()
    any_view = [args.seed + 8 + 10 * k for k in range(args.scenes)]
    top_down = [args.seed + 100_008 + 10 * k for k in range(args.frames)]
    result = {
        "models": str(rec.manifest.folder), "classifier_sha256": rec.classifier_sha256(), "styles": list(STYLES),
        "any_view_640": {"first_seed": any_view[0], "scenes": len(any_view),
                         **toll(rec, render_scenes("hanafuda", STYLES, any_view, args.art_dir))},
        "topdown_1280x720": {"first_seed": top_down[0], "frames": len(top_down),
                             **toll(rec, render_scenes("hanafuda", STYLES, top_down, args.art_dir, (1280, 720),
                                                       topdown_scene))},
    }
    result["seconds"] = round(time.perf_counter() - start, 1)
    for kind in ("any_view_640", "topdown_1280x720"):
        for part, label in (("whole", "fully visible"), ("part", "seen 40-99 %")):
            r = result[kind][part]
            print(f"{kind} {label}: {r['cards']} cards, {r['missed']} missed; named right from "
                  + ", ".join(f"{way} {r[way]['right']} ({_pct(r[way]['accuracy'])})" for way in WAYS)
                  + f"; outline corners off by {_pct(r['corner_error']['median'])} of the long side "
                    f"(median; 90th percentile {_pct(r['corner_error']['p90'])})")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
