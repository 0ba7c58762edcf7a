"""Choosing how a deck profile is blended with the classifier (weight ``w`` and temperature ``tau``).

For each one-style classifier (``--cross MODELS=STYLE``, as in bench/recognition.py), the unseen
style's deck is enrolled from one rendered grid photo, validation scenes (seed ≡ 8 mod 10, never
the test scenes the benchmark reports) of that style are recognised, and the identity accuracy
over cards seen at least 40 % is computed for every (w, tau) on a grid. The pair with the best
mean accuracy over the classifiers is printed; it goes into ``models/<deck>/manifest.json``
(``profile``) by hand, with this script's output in the model card.

    python bench/profile_tuning.py --cross runs/x-mantia/models=classic runs/x-classic/models=mantia
        [--scenes 60] [--art-dir ../shared/assets] [--json bench/out/profile_tuning.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.classifier import normalise, temper  # noqa: E402
from vision.recognise.confidence import matched_scores, val_seeds  # noqa: E402
from vision.recognise.evaluate import enrol_rendered_grid, render_scenes  # noqa: E402
from vision.recognise.profile import blend  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
WEIGHTS = (0.0, 0.5, 0.7, 0.8, 0.9, 1.0)
TAUS = (0.02, 0.05, 0.1, 0.2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cross", nargs="+", required=True)
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--seed", type=int, default=800000)
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "profile_tuning.json"))
    args = ap.parse_args()
    table = {}
    for spec in args.cross:
        models, _, style = spec.partition("=")
        rec = Recogniser("hanafuda", models)
        profile, _ = enrol_rendered_grid(rec, style, args.seed + 3, args.art_dir)
        frames, labels = zip(*render_scenes("hanafuda", (style,), val_seeds(args.seed, args.scenes), args.art_dir),
                             strict=True)
        probs, embs, truth = matched_scores(rec, frames, labels)
        probs = temper(probs, rec.classifier.temperature)
        e = normalise(embs)
        sims = profile.class_similarity(e)
        acc = {}
        for w in WEIGHTS:
            for tau in TAUS:
                p = blend(probs, sims, profile.enrolled, w, tau)
                acc[f"{w}/{tau}"] = float((p.argmax(axis=1) == truth).mean())
        logits, _ = profile.class_scores(e)  # the head enrolment fitted
        for w in WEIGHTS:
            p = blend(probs, logits, profile.enrolled, w, 1.0)
            acc[f"{w}/head"] = float((p.argmax(axis=1) == truth).mean())
        table[spec] = {"cards": int(len(truth)), "accuracy": acc}
        print(f"{spec}: {len(truth)} matched cards; network alone {acc[f'0.0/{TAUS[0]}']:.4f}")
    keys = list(next(iter(table.values()))["accuracy"])
    mean = {k: float(np.mean([t["accuracy"][k] for t in table.values()])) for k in keys}
    best = max(mean, key=mean.get)
    for k in keys:
        print(f"  w/tau {k:>9}: mean accuracy {mean[k]:.4f}" + ("  <- best" if k == best else ""))
    w, tau = best.split("/")
    out = {"per_model": table, "mean": mean, "best": {"weight": float(w), "tau": tau}}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"best: weight {w}, tau {tau}; wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
