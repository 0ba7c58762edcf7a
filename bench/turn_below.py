"""Turn a crop only where its one view is unsure: cards named right on validation scenes, and time per frame.

Both shipped manifests classify every card crop twice, as cut and turned 180°, and average the two
(``calibration.both_ways``): that names more cards (the model cards, "Calibration"), but it doubles
the classifier's work, the largest part of a frame's time. With ``recognition.turn_below`` = t
(:class:`vision.recognise.classifier.CardClassifier`) a crop is turned only where the network's
highest probability for it as cut is below t. This bench measures what each t in
:data:`CANDIDATES` costs in answers against turning every crop: for each deck it recognises the
rendered **validation** scenes of ``bench/validation.py`` (seed ≡ 8 mod 10, 200 any-view
640 × 640 scenes and 100 top-down 1280 × 720 frames, never trained on, never a test scene) with the
shipped models under each setting, counts the cards named right (a card the detector misses counts
as wrong); for playing cards it also measures the per-image F1 on the held-out train photographs
of ``playing-real`` (the 99 images ``index-tune`` chooses the index thresholds on; never the val
split); then it times bench/recognition.py's speed frame under each, frame by frame in turn, on
the backend recognition picks by default.

How ``turn_below`` is chosen (the rule, committed before this bench's first run): a t is adopted
for both decks when it **holds** for both — cards seen ≥ 40 % named right over both kinds of scene
at least the count of turning every crop less 0.1 % of those cards (``validation.holds``), fully
visible cards named right at least that count less one, for playing cards the held-out
photographs' F1 at least that F1 less :data:`F1_TOLERANCE` — and its median time on the speed
frame is at most :data:`SPEED_RATIO` of turning every crop's, for both decks; of those that do, the
first of :data:`CANDIDATES` (the smallest t, the fewest crops turned). A speed setting is not meant
to change answers, so it must lose no more than noise; it need not gain. Where none does, the
manifests keep turning every crop.

    python bench/turn_below.py [--decks hanafuda,playing] [--scenes 200] [--frames 100] [--repeats 20]
        [--json bench/out/turn_below.json]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from precision import F1_TOLERANCE, heldout_real_f1, paired_speed  # noqa: E402  (bench/, the script's own folder)
from recognition import SPEED_STYLES, speed_frame  # noqa: E402
from validation import add_setting_arguments, holds, rows_of, variants_measured, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402

EVERY = "every"
"""The setting measured against: every crop turned (no ``turn_below``)."""
CANDIDATES = (0.9, 0.99, 0.999)
"""Values of ``turn_below`` that may replace turning every crop, in the order of preference (the
fewest crops turned first)."""
SPEED_RATIO = 0.85
"""Most time per frame a candidate may take, as a share of turning every crop's (median of a paired run)."""


def label(v) -> str:
    return EVERY if v == EVERY else f"turn_below {v}"


def recognisers(deck: str, models: str | None) -> dict:
    """Setting → a recogniser of the shipped models set up for it (each its own networks, so that
    the paired timing runs each as it would run alone)."""
    recs = {}
    for v in (EVERY, *CANDIDATES):
        rec = Recogniser(deck, models)
        if not rec.classifier.both_ways:
            raise SystemExit(f"the {deck} manifest does not turn crops (calibration.both_ways): nothing to compare")
        rec.classifier.turn_below = None if v == EVERY else v
        recs[v] = rec
    return recs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_setting_arguments(ap, "turn_below.json", "setting")
    args = ap.parse_args()
    decks = [d for d in args.decks.split(",") if d]
    out: dict = {"scenes": args.scenes, "frames": args.frames, "repeats": args.repeats, "decks": {}}
    t0 = time.perf_counter()
    verdicts: dict = {}
    settings = (EVERY, *CANDIDATES)
    for deck in decks:
        recs = recognisers(deck, args.models)
        any_view, topdown = variants_measured(recs[EVERY].manifest.styles, deck,
                                              {v: (lambda r=r: r) for v, r in recs.items()},
                                              args.scenes, args.frames, args.art_dir)
        print(f"{deck}: {args.scenes} any-view validation scenes and {args.frames} top-down frames, "
              f"backend {recs[EVERY].backend}")
        rows = {label(v): r for v, r in rows_of(settings, any_view, topdown, label).items()}
        ok = {v: holds(rows[EVERY]["both"], rows[label(v)]["both"]) for v in CANDIDATES}
        if deck == "playing" and recs[EVERY].index_reader is not None:
            for v, rec in recs.items():
                rows[label(v)]["heldout_real"] = heldout_real_f1(rec, Path(args.real).resolve())
                print(f"  {label(v)}: held-out real photographs per-image F1 "
                      f"{rows[label(v)]['heldout_real']['per_image_f1']:.4f} ({rows[label(v)]['heldout_real']['images']} images)")
            for v in CANDIDATES:
                ok[v] = ok[v] and (rows[label(v)]["heldout_real"]["per_image_f1"]
                                   >= rows[EVERY]["heldout_real"]["per_image_f1"] - F1_TOLERANCE)
        frame, about = speed_frame(deck, SPEED_STYLES[deck], args.seed)
        ms = paired_speed(recs, frame, args.repeats)
        rows["speed"] = {**about, "backend": recs[EVERY].backend, "median_ms": {label(v): t for v, t in ms.items()}}
        print(f"  speed frame (seed {about['seed']}): " + ", ".join(f"{label(v)} {ms[v]} ms" for v in settings))
        for v in CANDIDATES:
            ratio = round(ms[v] / ms[EVERY], 3)
            rows[label(v)].update(holds=bool(ok[v]), speed_ratio=ratio, fast_enough=ratio <= SPEED_RATIO)
            verdicts.setdefault(v, []).append(ok[v] and ratio <= SPEED_RATIO)
            print(f"  {label(v)} {'holds' if ok[v] else 'does not hold'} against {EVERY}; speed ratio {ratio}: "
                  f"{'fast enough' if ratio <= SPEED_RATIO else 'not fast enough'} (≤ {SPEED_RATIO} asked)")
        out["decks"][deck] = rows
    out["adopt"] = next((v for v in CANDIDATES if v in verdicts and len(verdicts[v]) == len(decks)
                         and all(verdicts[v])), None)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print("recognition.turn_below: " + (str(out["adopt"]) if out["adopt"] is not None else
                                         "none (no candidate holds and is fast enough for every deck): turn every crop"))
    write(out, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
