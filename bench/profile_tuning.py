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

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.calibrate import val_seeds  # noqa: E402
from vision.recognise.classifier import normalise, temper  # noqa: E402
from vision.recognise.enrol import enrol  # noqa: E402
from vision.recognise.evaluate import match, render_scenes, true_class  # noqa: E402
from vision.recognise.profile import blend, fit_head  # noqa: E402
from vision.synth.artset import find_style  # noqa: E402
from vision.synth.fixed_scenes import enrolment_scene  # noqa: E402
from vision.synth.scene import render  # noqa: E402
from vision.synth.tables import background_textures  # noqa: E402

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
        grid = render(enrolment_scene(args.seed + 3, "hanafuda", style, textures=background_textures(args.art_dir)),
                      {style: find_style("hanafuda", style, args.art_dir)})
        photo = Path("/tmp") / f"tune-grid-{style}.png"
        cv2.imwrite(str(photo), grid.image)
        profile, _ = enrol(rec, [photo])
        names = {n: i for i, n in enumerate(rec.classifier.names)}
        probs, embs, truth = [], [], []
        for image, labels in render_scenes("hanafuda", (style,), val_seeds(args.seed, args.scenes), args.art_dir):
            dets = rec.detector.detect([image])[0]
            polys = rec.outlines(image, dets)
            if not polys:
                continue
            p, e = rec.classifier.raw(rec.classifier.crops(image, polys))
            cards = [c for c in labels.cards if c.visible >= 0.4]
            for t, i in zip(cards, match([d.box for d in dets], cards), strict=True):
                if i is not None:
                    probs.append(p[i])
                    embs.append(e[i])
                    truth.append(names[true_class(t, "hanafuda")])
        probs = temper(np.array(probs), rec.classifier.temperature)
        e = normalise(np.array(embs))
        sims = profile.class_similarity(e)
        truth = np.array(truth)
        acc = {}
        for w in WEIGHTS:
            for tau in TAUS:
                p = blend(probs, sims, profile.enrolled, w, tau)
                acc[f"{w}/{tau}"] = float((p.argmax(axis=1) == truth).mean())
        head = fit_head(profile.embeddings, profile.labels, len(profile.names))
        logits = np.full((len(e), len(profile.names)), -np.inf)
        logits[:, profile.enrolled] = e @ head[0].T + head[1]
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
