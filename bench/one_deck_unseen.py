"""Hanafuda: one deck per frame (``recognition.one_deck``) for the known art styles and for an unseen one.

With ``one_deck`` the face-up cards of a frame are named together: of all ways to give each a face
with no face given to more cards than one deck holds, the one with the highest summed
log-probability (:mod:`vision.recognise.one_deck`). On the art the classifier was trained on it
changes almost nothing (2026-12-05, second session, ``bench/one_deck.py`` at 802ea1d: 3,914 against
3,913 of 4,015 validation cards seen ≥ 40 % named right, 1,195 against 1,196 fully visible; its
rule asked for a gain there, and it was not adopted). Where it could matter is a deck whose art the
classifier never saw — the case of every real deck — where two cards of a frame taking one face is
common. This bench measures both, on rendered **validation** scenes only (seed ≡ 8 mod 10, never
trained on, never a test scene):

1. known styles: the shipped hanafuda models with and without ``one_deck`` on the validation scenes
   of ``bench/validation.py`` (200 any-view 640 × 640 scenes, 100 top-down 1280 × 720 frames);
2. unseen style: for each ``--cross MODELS=STYLE`` (a models folder whose classifier was trained on
   one art only, as ``bench/recognition.py --cross`` takes), ``--unseen-scenes`` any-view 640 × 640
   scenes of STYLE (validation seeds from :data:`UNSEEN_SEED`), with and without ``one_deck``.

The rule (committed with this bench, before its first run): ``one_deck`` is adopted (set in the
hanafuda manifest) iff (a) on the known styles it **holds** against the models as shipped
(``validation.holds``: at most 0.1 % of the cards seen ≥ 40 % and one fully visible card fewer named
right), and (b) on the unseen style no direction names fewer fully visible cards or fewer cards seen
≥ 40 % right with it, and over the directions together it names at least :data:`UNSEEN_GAIN` of
the fully visible cards more right. The test scenes (``bench/recognition.py``: held-out scenes, the
unseen style before and after enrolment, the speed frame) are measured after the choice.

Said before the rule was written: a scratch check on 60 other validation scenes of each unseen
style (seeds from 800,008; not this bench's) with the 2026-12-05 one-style classifiers
(``runs/xe-mantia``, ``runs/xe-classic``) named 132 against 126 of 151 fully visible classic cards
and 100 against 99 of 113 mantia cards right. That is why this bench exists; its own scenes are others.

    python bench/one_deck_unseen.py --cross runs/xe-mantia/models=classic runs/xe-classic/models=mantia \\
        [--scenes 200] [--frames 100] [--unseen-scenes 200] [--json bench/out/one-deck-unseen.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validation import REPO, holds, measured, rows_of, summary, variants_measured, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.confidence import val_seeds  # noqa: E402

VARIANTS = {"as shipped": False, "one_deck": True}
"""Variant → ``one_deck``."""
UNSEEN_SEED = 860_000
"""First seed of the unseen-style validation scenes (seeds ≡ 8 mod 10 from here)."""
UNSEEN_GAIN = 0.005
"""Least gain, as a share of the unseen style's fully visible cards over all directions, to adopt."""


def toggled(rec: Recogniser) -> dict:
    """Variant → a setup that switches ``rec``'s ``one_deck`` and returns it."""
    def use(flag: bool):
        def setup() -> Recogniser:
            rec.one_deck = flag
            return rec
        return setup
    return {v: use(f) for v, f in VARIANTS.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cross", nargs="+", required=True, metavar="MODELS=STYLE",
                    help="models folder with a one-style classifier = the style it never saw")
    ap.add_argument("--models", help="the shipped models folder (default: the repository's models/)")
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes, known styles")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames, known styles")
    ap.add_argument("--unseen-scenes", type=int, default=200, help="any-view 640x640 validation scenes per --cross")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "one-deck-unseen.json"))
    args = ap.parse_args()
    t0 = time.perf_counter()
    rec = Recogniser("hanafuda", args.models)
    any_view, topdown = variants_measured(rec.manifest.styles, "hanafuda", toggled(rec), args.scenes, args.frames,
                                          args.art_dir)
    print(f"hanafuda, known styles: {args.scenes} any-view validation scenes and {args.frames} top-down frames "
          f"({rec.backend})")
    known = rows_of(VARIANTS, any_view, topdown, lambda v: f"{v:10s}")
    known_holds = bool(holds(known["as shipped"]["both"], known["one_deck"]["both"]))
    print(f"  one_deck {'holds' if known_holds else 'does not hold'} on the known styles")

    unseen: dict = {}
    for spec in args.cross:
        folder, _, style = spec.partition("=")
        other = Recogniser("hanafuda", folder)
        items = measured((style,), "hanafuda", toggled(other), val_seeds(UNSEEN_SEED, args.unseen_scenes),
                         args.art_dir, (640, 640))
        key = f"{'+'.join(other.manifest.styles)}->{style}"
        unseen[key] = {v: summary(items[v]) for v in VARIANTS}
        print(f"  unseen {key} ({args.unseen_scenes} scenes): " + "; ".join(
            f"{v} fully visible {r['fully_visible'][0]}/{r['fully_visible'][1]}, seen >=40 % "
            f"{r['visible_40'][0]}/{r['visible_40'][1]}" for v, r in unseen[key].items()))
    never_worse = all(r["one_deck"][k][0] >= r["as shipped"][k][0]
                      for r in unseen.values() for k in ("fully_visible", "visible_40"))
    gain = sum(r["one_deck"]["fully_visible"][0] - r["as shipped"]["fully_visible"][0] for r in unseen.values())
    cards = sum(r["as shipped"]["fully_visible"][1] for r in unseen.values())
    enough = gain >= UNSEEN_GAIN * cards
    adopt = known_holds and never_worse and enough
    print(f"  unseen: {gain:+d} fully visible cards named right of {cards} "
          f"({UNSEEN_GAIN * cards:.1f} asked); no direction worse: {never_worse}")
    print(f"  by the rule (docstring): one_deck {'adopted' if adopt else 'not adopted'}")
    write({"models": args.models or "models", "known": known, "known_holds": known_holds, "unseen": unseen,
           "unseen_gain_fully_visible": gain, "unseen_never_worse": never_worse, "adopt": adopt,
           "scenes": args.scenes, "frames": args.frames, "unseen_scenes": args.unseen_scenes,
           "seconds": round(time.perf_counter() - t0, 1)}, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
