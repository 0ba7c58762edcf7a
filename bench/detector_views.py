"""Card identity accuracy with the oriented detector's rectangles fused, the frame seen mirrored,
and a card found twice kept once.

An oriented detector's anchors give many overlapping rectangles round each card; suppression
keeps the most confident one alone. Two ways to place a card's outline more surely, both in
``vision/recognise/detector.py`` and switched on by the manifest's ``detector`` entry:

- ``fuse``: the rectangle kept is the score-weighted mean of those it suppressed and itself;
- ``mirror``: the detector also looks at the frame mirrored left to right (its rectangles,
  mirrored back, join the frame's own before suppression), twice the detector's work;

and, after naming, ``once`` (the manifest's ``recognition.one_of_each``,
``vision/recognise/duplicates.py``): of two face-up cards of one name whose boxes overlap by half
the smaller, the less confident is dropped (the index reader's merge, which playing cards go
through, always does this).

This bench recognises the same rendered **validation** scenes (``bench/validation.py``: seed ≡ 8
mod 10, 200 any-view 640 × 640 scenes and 100 top-down 1280 × 720 frames, never trained on, never a
test scene) under each of :data:`VARIANTS`, everything else as shipped, and counts the cards named
right (a card the detector misses counts as wrong) and the boxes no true card claims (a card
found twice, or where there is none).

How a variant is chosen (the rule of the first run, committed before it): a variant replaces the
shipped detector setting for a deck when it passes against it (``validation.passes``, over both
kinds of scene together: at least 0.25 % more cards seen ≥ 40 % named right, no fewer fully
visible); of those that pass, the one naming the most; then the speed bench (``bench/recognition.py
--against``, paired with the models before) must keep the deck's OpenVINO median under 100 ms, or
the next passing variant is tried. The first run (fuse and mirror only, 2026-12-04) chose
``mirror`` for hanafuda, none for playing cards; the mirrored view also nearly doubled the boxes
no card claims (hanafuda any view 894 → 1,651, playing cards 206 → 621), which that rule did not
look at. The rule of the second run (committed before it): first ``once`` is adopted for a deck
when it holds against the shipped setting (``validation.holds``: at most 0.1 % of cards seen ≥ 40 %
and one fully visible card lost) and leaves at most three quarters of its boxes no card claims;
then the base is the shipped setting with ``once`` if adopted, and a view variant (with ``once``
as the base has it) must pass against the base and leave at most :data:`EXTRA_GROWTH` times the
base's boxes no card claims; of those, the one naming the most, then the speed bench as above.

    python bench/detector_views.py --deck hanafuda [--scenes 200] [--frames 100]
        [--json bench/out/detector-views-DECK.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import REPO, holds, passes, rows_of, variants_measured, write  # noqa: E402  (bench/, the script's own folder)

from vision.recognise import Recogniser  # noqa: E402

VIEWS = {"shipped": (False, False), "fuse": (True, False), "mirror": (False, True), "mirror+fuse": (True, True)}
"""View variant → (fuse, mirror)."""
VARIANTS = {**{v: (*fm, False) for v, fm in VIEWS.items()},
            **{("once" if v == "shipped" else f"{v}+once"): (*fm, True) for v, fm in VIEWS.items()}}
"""Variant → (fuse, mirror, one of each)."""
DEDUP_LEAVES = 0.75
"""``once`` must leave at most this share of the shipped setting's boxes no card claims."""
EXTRA_GROWTH = 1.1
"""A view variant may leave at most this many times its base's boxes no card claims."""


def chosen(rows: dict) -> tuple[str, list[str]]:
    """(the base — ``shipped`` or ``once`` — and the view variants in the order the rule tries them)."""
    shipped, once = rows["shipped"]["both"], rows["once"]["both"]
    base = "once" if holds(shipped, once) and once["extra_boxes"] <= DEDUP_LEAVES * shipped["extra_boxes"] else "shipped"
    ref = rows[base]["both"]
    views = [v if base == "shipped" else f"{v}+once" for v in VIEWS if v != "shipped"]
    ok = [v for v in views if passes(ref, rows[v]["both"])
          and rows[v]["both"]["extra_boxes"] <= EXTRA_GROWTH * ref["extra_boxes"]]
    return base, sorted(ok, key=lambda v: -rows[v]["both"]["visible_40"][0])


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
    if rec.detector.fuse or rec.detector.mirror or rec.one_of_each:
        ap.error(f"the {args.deck} manifest already fuses, mirrors or keeps one of each: this bench measures "
                 "against none of them")
    t0 = time.perf_counter()

    def use(fuse: bool, mirror: bool, once: bool):
        def setup() -> Recogniser:
            rec.detector.fuse, rec.detector.mirror, rec.one_of_each = fuse, mirror, once
            return rec
        return setup

    any_view, topdown = variants_measured(rec.manifest.styles, args.deck, {v: use(*fm) for v, fm in VARIANTS.items()},
                                          args.scenes, args.frames, args.art_dir)
    print(f"{args.deck}: detector views on {args.scenes} any-view validation scenes and {args.frames} top-down "
          f"frames ({rec.backend})")
    rows = rows_of(VARIANTS, any_view, topdown, lambda v: f"{v:16s}")
    base, order = chosen(rows)
    print(f"  by the rule (docstring): base {base}; {order[0] if order else 'no view variant'}"
          + (f" (then, if too slow: {', '.join(order[1:])})" if len(order) > 1 else ""))
    write({"deck": args.deck, "models": args.models or "models", "variants": rows, "base_by_rule": base,
           "order_by_rule": order,
           "scenes": args.scenes, "frames": args.frames, "seconds": round(time.perf_counter() - t0, 1)},
          Path(args.json or REPO / "bench" / "out" / f"detector-views-{args.deck}.json"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
