"""Card identity accuracy with and without a second look at unsure cards, on rendered validation scenes.

A second look (:mod:`vision.recognise.second_look`) cuts each card whose answer is under a
confidence again along six nearby outlines and pools the seven crops' probabilities. This bench
recognises the same rendered validation scenes (seed ≡ 8 mod 10; ``bench/validation.py``) with no
second look and with each variant given — trigger ``below`` × pooling ``mean``/``max`` at the
module's default scale and shift — and counts cards named right, and how many crops the second
looks added.

How a variant is chosen (the rule, fixed before the first run): a variant is adopted for a deck
when, over both kinds of scene together, it names more cards seen ≥ 40 % right than no second
look by at least 0.25 % of those cards, and no fewer fully visible cards; of the variants that
qualify, the one naming the most (fewer added crops breaking a tie); then the speed bench
(``bench/recognition.py --against``, paired with the models before) must keep the deck's OpenVINO
median under 100 ms, or the next qualifying variant is tried.

    python bench/second_look.py --deck hanafuda [--below 0.75,0.95] [--pools mean,max] [--scenes 200]
        [--frames 100] [--json bench/out/second-look-hanafuda.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.second_look import SecondLook  # noqa: E402
from validation import REPO, summary, variants_measured  # noqa: E402  (bench/, the script's own folder)

OFF = "off"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--below", default=None,
                    help="trigger confidences, comma-separated (default: the manifest's unsure threshold and 0.95)")
    ap.add_argument("--pools", default="mean,max")
    ap.add_argument("--scenes", type=int, default=200, help="any-view 640x640 validation scenes")
    ap.add_argument("--frames", type=int, default=100, help="top-down 1280x720 validation frames")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", help="output (default: bench/out/second-look-DECK.json)")
    args = ap.parse_args()
    rec = Recogniser(args.deck, args.models)
    shipped = rec.second_look
    belows = [round(rec.unsure_below, 4), 0.95] if args.below is None else [float(b) for b in args.below.split(",")]
    looks = {OFF: None} | {f"{p}<{b}": SecondLook(b, pool=p) for b in belows for p in args.pools.split(",")}
    added = {v: 0 for v in looks}
    classify = rec.classifier.classify

    def counting(v):
        def use(r: Recogniser) -> None:
            r.second_look = looks[v]

            def classify_counted(crops):
                added[v] += len(crops)
                return classify(crops)
            r.classifier.classify = classify_counted
        return use

    t0 = time.perf_counter()
    any_view, topdown = variants_measured(rec, args.deck, {v: counting(v) for v in looks}, args.scenes, args.frames,
                                          args.art_dir)
    rec.second_look = shipped
    rows = {}
    print(f"{args.deck}: second look on {args.scenes} any-view validation scenes and {args.frames} top-down frames "
          f"({rec.backend}; crops classified in all, both ways up counted once)")
    for v in looks:
        a, t, both = summary(any_view[v]), summary(topdown[v]), summary(any_view[v] + topdown[v])
        rows[v] = {"any_view": a, "topdown": t, "both": both, "crops": added[v],
                   "second_look": None if looks[v] is None else looks[v].as_dict()}
        print(f"  {v:10s}: any view {a['fully_visible'][0]}/{a['fully_visible'][1]} fully visible, "
              f"{a['visible_40'][0]}/{a['visible_40'][1]} seen >=40 %; top-down {t['fully_visible'][0]}/"
              f"{t['fully_visible'][1]}, {t['visible_40'][0]}/{t['visible_40'][1]}; together "
              f"{both['visible_40'][0]}/{both['visible_40'][1]}; {added[v]} crops")
    base = rows[OFF]["both"]
    need = base["visible_40"][0] + 0.0025 * base["visible_40"][1]
    chosen, best = OFF, (base["visible_40"][0], -added[OFF])
    for v in looks:
        b = rows[v]["both"]
        key = (b["visible_40"][0], -added[v])
        if b["visible_40"][0] >= need and b["fully_visible"][0] >= base["fully_visible"][0] and key > best:
            chosen, best = v, key
    print(f"  by the rule (docstring): {chosen}")
    out = {"deck": args.deck, "models": args.models or "models", "variants": rows, "chosen_by_rule": chosen,
           "scenes": args.scenes, "frames": args.frames, "seconds": round(time.perf_counter() - t0, 1)}
    path = Path(args.json or REPO / "bench" / "out" / f"second-look-{args.deck}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"  written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
