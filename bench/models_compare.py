"""Card identity accuracy of two or more models folders, on the same rendered validation scenes.

Recognises the rendered validation scenes of ``bench/validation.py`` (seed ≡ 8 mod 10, any view
640 × 640 and top-down 1280 × 720, drawn in the first folder's training styles) with each folder's
models in turn, and counts the cards each names right (a card the detector misses counts as
wrong), and says whether each candidate (any folder after the first) passes against the first
(``validation.passes``, over both kinds of scene together: the rule that chooses models; the test
scenes of ``bench/recognition.py`` only report).

    python bench/models_compare.py --deck hanafuda models runs/candidate/models [--scenes 200] [--frames 100]
        [--json bench/out/models-compare-hanafuda.json]
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
    ap.add_argument("folders", nargs="+", help="models folders; the first is the one to beat")
    ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="output (default: bench/out/models-compare-DECK.json)")
    args = ap.parse_args()
    if len(set(args.folders)) < 2 or len(set(args.folders)) != len(args.folders):
        ap.error("give at least two models folders, each once")
    recs = {f: Recogniser(args.deck, f) for f in args.folders}
    t0 = time.perf_counter()
    any_view, topdown = variants_measured(recs[args.folders[0]].manifest.styles, args.deck,
                                          {f: (lambda r=r: r) for f, r in recs.items()}, args.scenes, args.frames,
                                          args.art_dir)
    print(f"{args.deck}: {args.scenes} any-view validation scenes and {args.frames} top-down frames")
    rows = rows_of(args.folders, any_view, topdown, str)
    base = rows[args.folders[0]]["both"]
    for f in args.folders[1:]:
        rows[f]["passes"] = passes(base, rows[f]["both"])
        print(f"  {f} {'passes' if rows[f]['passes'] else 'does not pass'} against {args.folders[0]}")
    write({"deck": args.deck, "folders": args.folders, "results": rows, "scenes": args.scenes,
           "frames": args.frames, "seconds": round(time.perf_counter() - t0, 1)},
          Path(args.json or REPO / "bench" / "out" / f"models-compare-{args.deck}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
