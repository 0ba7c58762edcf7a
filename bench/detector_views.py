"""Card identity accuracy with the oriented detector's rectangles fused and the frame seen mirrored.

An oriented detector's anchors give many overlapping rectangles round each card; suppression
keeps the most confident one alone. Two ways to place a card's outline more surely, both in
``vision/recognise/detector.py`` and switched on by the manifest's ``detector`` entry:

- ``fuse``: the rectangle kept is the score-weighted mean of those it suppressed and itself;
- ``mirror``: the detector also looks at the frame mirrored left to right (its rectangles,
  mirrored back, join the frame's own before suppression), twice the detector's work.

This bench recognises the same rendered **validation** scenes (``bench/validation.py``: seed ≡ 8
mod 10, 200 any-view 640 × 640 scenes and 100 top-down 1280 × 720 frames, never trained on, never a
test scene) under each of :data:`VARIANTS`, everything else as shipped, and counts the cards named
right (a card the detector misses counts as wrong).

How a variant is chosen (the rule, committed before the first run): a variant replaces the
shipped detector setting for a deck when it passes against it (``validation.passes``, over both
kinds of scene together: at least 0.25 % more cards seen ≥ 40 % named right, no fewer fully
visible); of those that pass, the one naming the most; then the speed bench (``bench/recognition.py
--against``, paired with the models before) must keep the deck's OpenVINO median under 100 ms, or
the next passing variant is tried.

    python bench/detector_views.py --deck hanafuda [--scenes 200] [--frames 100]
        [--json bench/out/detector-views-DECK.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import REPO, passes, rows_of, variants_measured, write  # noqa: E402  (bench/, the script's own folder)

from vision.recognise import Recogniser  # noqa: E402

VARIANTS = {"shipped": (False, False), "fuse": (True, False), "mirror": (False, True), "mirror+fuse": (True, True)}
"""Variant → (fuse, mirror)."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="output (default: bench/out/detector-views-DECK.json)")
    args = ap.parse_args()
    rec = Recogniser(args.deck, args.models)
    if not rec.detector.oriented:
        ap.error(f"the {args.deck} detector is not an oriented one")
    if rec.detector.fuse or rec.detector.mirror:
        ap.error(f"the {args.deck} manifest already fuses or mirrors: this bench measures against neither")
    t0 = time.perf_counter()

    def use(fuse: bool, mirror: bool):
        def setup() -> Recogniser:
            rec.detector.fuse, rec.detector.mirror = fuse, mirror
            return rec
        return setup

    any_view, topdown = variants_measured(rec.manifest.styles, args.deck, {v: use(*fm) for v, fm in VARIANTS.items()},
                                          args.scenes, args.frames, args.art_dir)
    print(f"{args.deck}: detector views on {args.scenes} any-view validation scenes and {args.frames} top-down "
          f"frames ({rec.backend})")
    rows = rows_of(VARIANTS, any_view, topdown, lambda v: f"{v:11s}")
    base = rows["shipped"]["both"]
    passing = [v for v in VARIANTS if v != "shipped" and passes(base, rows[v]["both"])]
    order = sorted(passing, key=lambda v: -rows[v]["both"]["visible_40"][0])
    for v in VARIANTS:
        rows[v]["passes"] = v in passing
    print(f"  by the rule (docstring): {order[0] if order else 'shipped'}"
          + (f" (then, if too slow: {', '.join(order[1:])})" if len(order) > 1 else ""))
    write({"deck": args.deck, "models": args.models or "models", "variants": rows, "order_by_rule": order,
           "scenes": args.scenes, "frames": args.frames, "seconds": round(time.perf_counter() - t0, 1)},
          Path(args.json or REPO / "bench" / "out" / f"detector-views-{args.deck}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
