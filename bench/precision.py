"""OpenVINO in bfloat16 against float32: cards named right on validation scenes, and time per frame.

On a CPU with AVX512-BF16 or AMX, OpenVINO can run the networks in bfloat16 (8 bits of mantissa
instead of 23), about twice as fast here. This bench measures what that costs in answers: for
each deck it recognises the rendered **validation** scenes of ``bench/validation.py`` (seed ≡ 8
mod 10, 200 any-view 640 × 640 scenes and 100 top-down 1280 × 720 frames, never trained on,
never a test scene) with the shipped models under each precision of :data:`PRECISIONS` —
``bf16`` every network, ``bf16-classifiers`` the classifiers only, detectors in float32 — counts the cards named right
(a card the detector misses counts as wrong); for playing cards it also measures the per-image F1
on the held-out train photographs of ``playing-real`` (the 99 images ``index-tune`` chooses the
index thresholds on; never the val split) with the shipped thresholds; then it times the speed
frame of ``bench/recognition.py`` under each, frame by frame in turn.

How the default is chosen (the rule, committed before this bench's first run): a precision
becomes OpenVINO's default where the CPU has it when it **holds** for both decks — cards seen
≥ 40 % named right over both kinds of scene at least float32's count less 0.1 % of those
cards (``validation.holds``), fully visible cards named right at least float32's less one, for playing cards the
held-out photographs' F1 at least float32's less :data:`F1_TOLERANCE` — and its median time on
the speed frame is at most :data:`SPEED_RATIO` of float32's for both decks; of those that do,
the first of :data:`CANDIDATES`. A speed setting is not meant to change answers, so it must lose
no more than noise; it need not gain. (``bf16-classifiers`` was added, with this order, after the
first run, 2026-12-04: ``bf16`` held for hanafuda but lost 17 of 4,108 playing cards, the
detector finding fewer.)

    python bench/precision.py [--decks hanafuda,playing] [--scenes 200] [--frames 100] [--repeats 20]
        [--json bench/out/precision.json]

Needs OpenVINO (the ``openvino`` or ``train`` extra).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recognition import SPEED_STYLES, speed_frame  # noqa: E402  (bench/, the script's own folder)
from validation import add_setting_arguments, holds, rows_of, variants_measured, write  # noqa: E402

from vision.recognise import Recogniser  # noqa: E402

PRECISIONS = ("f32", "bf16", "bf16-classifiers")
CANDIDATES = PRECISIONS[1:]
"""Precisions that may replace float32, in the order of preference (the fastest first)."""
F1_TOLERANCE = 0.005
"""Most per-image F1 on the held-out real photographs that bfloat16 may lose against float32."""
SPEED_RATIO = 0.85
"""Most time per frame bfloat16 may take, as a share of float32's (median of a paired run)."""


def recogniser(deck: str, precision: str, models: str | None) -> Recogniser:
    """The shipped models on OpenVINO, compiled in ``precision``."""
    from vision.recognise.backends import openvino_precision

    os.environ["FUDABA_OPENVINO_PRECISION"] = precision
    rec = Recogniser(deck, models, ("openvino",))
    for kind, network in (("classifier", rec.classifier.network), ("detector", rec.detector.network)):
        if network.precision != openvino_precision(kind):
            raise SystemExit(f"OpenVINO runs the {kind} in {network.precision}, not {openvino_precision(kind)}, "
                             "on this CPU: nothing to compare")
    return rec


def heldout_real_f1(rec: Recogniser, real_dir: Path) -> dict:
    """Mean per-image F1 (and its counts) of ``rec`` as configured over the held-out train photographs."""
    from vision.recognise.evaluate import image_f1
    from vision.train.corners import photo_truths

    tp = fp = fn = 0
    f1s = []
    for _, frame, truth in photo_truths(real_dir, held_out=0.1):
        named = {c.card_ids[0] for c in rec.recognise(frame) if c.face_up and c.card_ids}
        a, b, c, f1 = image_f1(truth, named)
        tp, fp, fn = tp + a, fp + b, fn + c
        f1s.append(f1)
    return {"images": len(f1s), "per_image_f1": round(float(np.mean(f1s)), 4), "tp": tp, "fp": fp, "fn": fn}


def paired_speed(recs: dict, frame: np.ndarray, repeats: int) -> dict:
    """Median ms per frame of each recogniser, timed in turn frame by frame after 3 warm-up frames."""
    for rec in recs.values():
        for _ in range(3):
            rec.recognise(frame)
    times: dict = {p: [] for p in recs}
    for _ in range(repeats):
        for p, rec in recs.items():
            t = time.perf_counter()
            rec.recognise(frame)
            times[p].append((time.perf_counter() - t) * 1000)
    return {p: round(statistics.median(ts), 1) for p, ts in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_setting_arguments(ap, "precision.json", "precision")
    args = ap.parse_args()
    decks = [d for d in args.decks.split(",") if d]
    asked = os.environ.get("FUDABA_OPENVINO_PRECISION")
    out: dict = {"scenes": args.scenes, "frames": args.frames, "repeats": args.repeats, "decks": {}}
    t0 = time.perf_counter()
    verdicts: dict = {}
    for deck in decks:
        recs = {p: recogniser(deck, p, args.models) for p in PRECISIONS}
        any_view, topdown = variants_measured(recs["f32"].manifest.styles, deck, {p: (lambda r=r: r) for p, r in recs.items()},
                                              args.scenes, args.frames, args.art_dir)
        print(f"{deck}: {args.scenes} any-view validation scenes and {args.frames} top-down frames")
        rows = rows_of(PRECISIONS, any_view, topdown, str)
        ok = {p: holds(rows["f32"]["both"], rows[p]["both"]) for p in CANDIDATES}
        if deck == "playing" and recs["f32"].index_reader is not None:
            for p, rec in recs.items():
                rows[p]["heldout_real"] = heldout_real_f1(rec, Path(args.real).resolve())
                print(f"  {p}: held-out real photographs per-image F1 {rows[p]['heldout_real']['per_image_f1']:.4f} "
                      f"({rows[p]['heldout_real']['images']} images)")
            for p in CANDIDATES:
                ok[p] = ok[p] and (rows[p]["heldout_real"]["per_image_f1"]
                                   >= rows["f32"]["heldout_real"]["per_image_f1"] - F1_TOLERANCE)
        frame, about = speed_frame(deck, SPEED_STYLES[deck], args.seed)
        ms = paired_speed(recs, frame, args.repeats)
        rows["speed"] = {**about, "median_ms": ms}
        print(f"  speed frame (seed {about['seed']}): " + ", ".join(f"{p} {ms[p]} ms" for p in PRECISIONS))
        for p in CANDIDATES:
            ratio = round(ms[p] / ms["f32"], 3)
            rows[p].update(holds=bool(ok[p]), speed_ratio=ratio, fast_enough=ratio <= SPEED_RATIO)
            verdicts.setdefault(p, []).append(ok[p] and ratio <= SPEED_RATIO)
            print(f"  {p} {'holds' if ok[p] else 'does not hold'} against f32; speed ratio {ratio}: "
                  f"{'fast enough' if ratio <= SPEED_RATIO else 'not fast enough'} (≤ {SPEED_RATIO} asked)")
        out["decks"][deck] = rows
    out["adopt"] = next((p for p in CANDIDATES if p in verdicts and all(verdicts[p])), None)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"OpenVINO's default: {out['adopt'] or 'f32 (no candidate holds and is fast enough for every deck)'}")
    if asked is None:
        os.environ.pop("FUDABA_OPENVINO_PRECISION", None)
    else:
        os.environ["FUDABA_OPENVINO_PRECISION"] = asked
    write(out, Path(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
