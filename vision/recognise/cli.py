"""Command lines of recognition: ``fudaba recognise``, ``fudaba enroll``, ``fudaba calibrate``.

    recognise IMAGE... [--deck hanafuda|playing] [--profile FILE] [--backend B[,B]] [--models DIR] [--json]
    enroll --deck hanafuda|playing PHOTO... [--extras] [--practice 300] [--fine-tune [--minutes 8]] [--out FILE]
           [--models DIR]
    calibrate --deck hanafuda|playing [--scenes 300] [--seed 900000] [--style A,B] [--art-dir DIR] [--both-ways]

``recognise`` prints every card of each top-down image (label, confidence, ``?`` when unsure, the
outline). ``enroll`` builds a deck profile from photos of the deck laid out in the enrolment grid
(``vision/enrol_grid.py``) and writes it (default ``<deck>-profile.npz``); pass it to ``recognise``
and to the game with ``--profile``; it also renders ``--practice`` scenes with the photographed
faces to learn them in play (about a minute for 300 on two cores); with ``--fine-tune`` (needs the
``train`` extra) it first trains the shipped classifier on those faces for ``--minutes`` and keeps
the result beside the profile (``<profile>-classifier.onnx``). ``calibrate`` fits the classifier's temperature and unsure
threshold on rendered validation scenes and writes them into ``models/<deck>/manifest.json``.
Exit codes: 0 done, 2 bad input (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

USAGE = {"recognise": "name the cards in top-down images", "enroll": "adapt to your own deck from grid photos",
         "calibrate": "fit the confidence calibration on rendered validation scenes"}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--models", help="models folder (default: $FUDABA_MODELS or the repository's models/)")
    p.add_argument("--backend", help="backends to try in order, comma-separated: onnxruntime, openvino, torch")


def _parser(command: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=f"fudaba {command}", description=USAGE[command])
    if command == "recognise":
        ap.add_argument("images", nargs="+", help="top-down photos or frames of the table")
        ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
        ap.add_argument("--profile", help="deck profile written by `fudaba enroll`")
        ap.add_argument("--json", action="store_true", help="one JSON object per image")
    elif command == "enroll":
        ap.add_argument("photos", nargs="+", help="photos of the deck laid out in the enrolment grid")
        ap.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
        ap.add_argument("--extras", action="store_true",
                        help="the grid has a fifth row: the blank (hanafuda) or both jokers (playing)")
        ap.add_argument("--out", help="profile file to write (default: <deck>-profile.npz)")
        ap.add_argument("--practice", type=int, default=None, metavar="N",
                        help="practice scenes rendered with your deck's faces (default 300; 0: none, fastest)")
        ap.add_argument("--fine-tune", action="store_true",
                        help="also train the classifier on your deck's faces (needs the train extra)")
        ap.add_argument("--minutes", type=float, default=None, help="--fine-tune: training time (default 8)")
    else:
        ap.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
        ap.add_argument("--scenes", type=int, default=300, help="rendered validation scenes")
        ap.add_argument("--seed", type=int, default=900000, help="first seed (validation seeds are ≡ 8 mod 10)")
        ap.add_argument("--style", help="art styles, comma-separated (default: the classifier's training styles)")
        ap.add_argument("--art-dir", help="folder laid out like shared/assets with more styles")
        ap.add_argument("--both-ways", action="store_true",
                        help="classify every crop also turned 180° and average (recorded in the manifest)")
    _common(ap)
    return ap


def _recogniser(args: argparse.Namespace, profile: str | None = None):
    from vision.recognise import Recogniser

    order = tuple(b.strip() for b in args.backend.split(",")) if args.backend else None
    return Recogniser(args.deck, args.models, order, profile)


def _recognise(args: argparse.Namespace) -> int:
    import cv2

    rec = _recogniser(args, args.profile)
    for image in args.images:
        frame = cv2.imread(image, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"{image}: not an image OpenCV can read; skipped", file=sys.stderr)
            continue
        cards = rec.recognise(frame)
        if args.json:
            print(json.dumps({"image": image, "backend": rec.backend, "cards": [c.as_dict() for c in cards]}))
            continue
        print(f"{image}: {len(cards)} cards ({rec.backend})")
        for c in sorted(cards, key=lambda c: (c.box[1], c.box[0])):
            mark = "?" if c.unsure else " "
            centre = tuple(round(sum(v) / 4) for v in zip(*c.polygon, strict=True))
            alt = f"  (or {c.alternatives[0][0]} {c.alternatives[0][1]:.2f})" if c.unsure and c.alternatives else ""
            how = "  by its corner index only" if c.index_only else ("  by its index" if c.named_by == "index" else "")
            print(f"  {mark} {c.label:<16} {c.confidence:5.2f}  at {centre}{how}{alt}")
    return 0


def _enroll(args: argparse.Namespace) -> int:
    from vision.recognise.enrol import enrol

    rec = _recogniser(args)
    for p in args.photos:
        if not Path(p).is_file():
            raise ValueError(f"{p}: no such file")
    if args.practice is not None and args.practice < 0:
        raise ValueError(f"--practice {args.practice}: give a number of scenes, 0 or more")
    from vision.recognise.enrol import PRACTICE_SCENES

    scenes = PRACTICE_SCENES if args.practice is None else args.practice
    practice = (f"{scenes} practice scenes with your deck's faces (about {max(1, round(scenes * 0.2 / 60))} min "
                "on two cores)") if scenes else ""
    out = Path(args.out or f"{args.deck}-profile.npz")
    if args.fine_tune:
        import importlib.util

        if importlib.util.find_spec("ultralytics") is None:
            raise ValueError("--fine-tune needs ultralytics and torch: pip install 'fudaba[train]' "
                             "(or enrol without --fine-tune)")
        from vision.train.enrol import FINE_TUNE_MINUTES, fine_tune, work_dir

        minutes = FINE_TUNE_MINUTES if args.minutes is None else args.minutes
        if minutes <= 0:
            raise ValueError(f"--minutes {args.minutes}: give a training time above 0")
        print(f"reading the grid, fine-tuning the classifier on your deck's faces for about {minutes:g} min "
              f"(work in {work_dir(out.with_suffix('.npz'))}; if cut short, the same command continues)"
              + (f", then {practice}" if practice else "") + "…", flush=True)
        profile, report = fine_tune(rec, args.photos, out, extras=args.extras, minutes=minutes,
                                    practice_scenes=scenes)
        out = out.with_suffix(".npz")
    else:
        if practice:
            print(f"reading the grid, then {practice}…", flush=True)
        profile, report = enrol(rec, args.photos, extras=args.extras, practice_scenes=scenes)
        out = profile.save(out)
    for r in report:
        turned = ", read turned 180°" if r.turned else ""
        print(f"{r.photo}: {r.cards} cards; {r.agreed} named right before enrolment{turned}")
    print(f"wrote {out}: {len(profile.embeddings)} references of {int(profile.enrolled.sum())} classes "
          f"(head fitted with {profile.meta['practice_references']} more from {profile.meta['practice_scenes']} "
          f"practice scenes)"
          + (f" and its own classifier {profile.classifier.name}" if profile.classifier else "")
          + f"; use it with --profile {out}")
    return 0


def _calibrate(args: argparse.Namespace) -> int:
    from vision.recognise import confidence
    from vision.recognise.evaluate import render_scenes

    rec = _recogniser(args)
    styles = tuple(s.strip() for s in args.style.split(",")) if args.style else \
        rec.manifest.styles
    if not styles:
        raise ValueError("no --style given and the manifest does not name the classifier's training styles")
    rec.classifier.both_ways = args.both_ways
    seeds = confidence.val_seeds(args.seed, args.scenes)
    frames, labels = zip(*render_scenes(args.deck, styles, seeds, args.art_dir), strict=True)
    probs, truth = confidence.collect(rec, frames, labels)
    result = confidence.fit(probs, truth)
    result.update({"both_ways": args.both_ways, "scenes": len(seeds), "first_seed": seeds[0], "styles": list(styles)})
    confidence.write(rec, result)
    print(json.dumps(result, indent=1))
    return 0


def main(command: str, argv: list[str]) -> int:
    """Run ``command`` (recognise, enroll or calibrate) with ``argv``; returns the exit code."""
    args = _parser(command).parse_args(argv)
    try:
        return {"recognise": _recognise, "enroll": _enroll, "calibrate": _calibrate}[command](args)
    except (ValueError, OSError) as e:
        print(f"{command}: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        print(f"{command}: {e.name or e} is missing: reinstall fudaba (pip install .)", file=sys.stderr)
        return 2
