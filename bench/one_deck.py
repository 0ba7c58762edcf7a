"""Hanafuda: name a frame's face-up cards as one deck (the manifest's ``recognition.one_deck``).

Each card is named by its own most likely class, so two cards of one frame can take the same face
(two ``08-geese``), though a deck holds one. With ``one_deck`` the face-up cards of a frame are named
together: the assignment with the highest summed log-probability in which no name is given to
more cards than one deck holds (:mod:`vision.recognise.one_deck`). This bench recognises the
rendered **validation** scenes of ``bench/validation.py`` (seed ≡ 8 mod 10: 200 any-view 640 × 640
scenes and 100 top-down 1280 × 720 frames, never trained on, never a test scene) with the shipped
hanafuda models, with and without ``one_deck``, and counts the cards named right (a card the
detector misses counts as wrong) and the fully visible cards marked unsure.

The rule (committed with this bench, before its first run): ``one_deck`` is adopted iff, over both
kinds of scene together, it **passes** against the models as shipped (``validation.passes``: at
least 0.25 % more of the cards seen ≥ 40 % named right, and no fewer fully visible cards). The
test scenes, the unseen art style and the speed frame of ``bench/recognition.py`` are measured
after the choice.

    python bench/one_deck.py [--models DIR] [--scenes 200] [--frames 100] [--json bench/out/one-deck.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import REPO, passes, rows_of, variants_measured, write  # noqa: E402  (bench/, the script's own folder)

from vision.recognise import Recogniser  # noqa: E402

VARIANTS = {"as shipped": False, "one_deck": True}
"""Variant → ``one_deck``."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "one-deck.json"))
    args = ap.parse_args()
    rec = Recogniser("hanafuda", args.models)
    t0 = time.perf_counter()

    def use(flag: bool):
        def setup() -> Recogniser:
            rec.one_deck = flag
            return rec
        return setup

    any_view, topdown = variants_measured(rec.manifest.styles, "hanafuda", {v: use(f) for v, f in VARIANTS.items()},
                                          args.scenes, args.frames, args.art_dir)
    print(f"hanafuda: one deck or not, {args.scenes} any-view validation scenes and {args.frames} top-down frames "
          f"({rec.backend})")
    rows = rows_of(VARIANTS, any_view, topdown, lambda v: f"{v:10s}")
    for v in VARIANTS:
        full = [o for o in any_view[v] + topdown[v] if o.visible >= 0.999]
        rows[v]["fully_visible_unsure"] = sum(o.unsure for o in full)
        print(f"  {v:10s}: fully visible cards marked unsure {rows[v]['fully_visible_unsure']} of {len(full)}")
    adopt = passes(rows["as shipped"]["both"], rows["one_deck"]["both"])
    print(f"  by the rule (docstring): one_deck {'adopted' if adopt else 'not adopted'}")
    write({"models": args.models or "models", "variants": rows, "one_deck_by_rule": adopt, "scenes": args.scenes,
           "frames": args.frames, "seconds": round(time.perf_counter() - t0, 1)}, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
