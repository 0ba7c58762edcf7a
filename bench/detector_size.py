"""Card identity accuracy at several detector input sizes, on rendered validation scenes.

The detector scales each frame to its input size (px on the long side, ``"size"`` in the
manifest's ``detector`` entry) before it looks for cards; a larger input gives the rectangles
(each card's outline) more pixels to be placed with, at a cost of time roughly in proportion to
the input's area. This bench recognises the same rendered **validation** scenes (seed ≡ 8 mod 10,
never trained on, never a test scene) at each size given, with everything else as shipped, and
counts cards named right — any view (640 × 640, tilt up to 35°) and top-down 1280 × 720 frames,
a card the detector misses counting as wrong (:mod:`vision.recognise.evaluate`).

How a size is chosen (the rule, fixed before the first run): a size replaces the shipped one
for a deck when it passes against it (``validation.passes``, over both kinds of scene together);
of the sizes that pass, the one naming the most; then the speed bench (``bench/recognition.py
--against``, paired with the models before) must keep the deck's OpenVINO median under 100 ms,
or the next smaller passing size is tried.

    python bench/detector_size.py --deck hanafuda --sizes 416,480,544,640 [--scenes 200] [--frames 100]
        [--json bench/out/detector-size-hanafuda.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import REPO, passes, rows_of, variants_measured, write  # noqa: E402  (bench/, the script's own folder)

from vision.recognise import Recogniser  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--sizes", default="416,480,544,640", help="detector input sizes, comma-separated (multiples of 32)")
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="output (default: bench/out/detector-size-DECK.json)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(s % 32 for s in sizes):
        ap.error("sizes must be multiples of 32")
    rec = Recogniser(args.deck, args.models)
    shipped = rec.detector.size
    t0 = time.perf_counter()

    def at(size: int):
        def use() -> Recogniser:
            rec.detector.size = size
            return rec
        return use

    any_view, topdown = variants_measured(rec.manifest.styles, args.deck, {s: at(s) for s in sizes}, args.scenes, args.frames,
                                          args.art_dir)
    print(f"{args.deck}: detector sizes on {args.scenes} any-view validation scenes and {args.frames} top-down "
          f"frames (shipped size {shipped}, {rec.backend})")
    rows = rows_of(sizes, any_view, topdown, lambda s: f"{s:4d} px")
    base = rows.get(shipped, {}).get("both")
    chosen = shipped
    if base is not None:
        for s in sizes:
            if passes(base, rows[s]["both"]) and rows[s]["both"]["visible_40"][0] > rows[chosen]["both"]["visible_40"][0]:
                chosen = s
        print(f"  by the rule (docstring): {chosen} px" + (" (the shipped size)" if chosen == shipped else ""))
    else:
        print(f"  the shipped size {shipped} was not among those measured: no choice made")
    write({"deck": args.deck, "models": args.models or "models", "shipped_size": shipped, "sizes": rows,
           "chosen_by_rule": chosen if base is not None else None, "scenes": args.scenes, "frames": args.frames,
           "seconds": round(time.perf_counter() - t0, 1)},
          Path(args.json or REPO / "bench" / "out" / f"detector-size-{args.deck}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
