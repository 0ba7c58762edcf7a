"""Command lines of recognition: ``fudaba recognise``, ``fudaba enrol``, ``fudaba calibrate``.

    recognise IMAGE... [--deck hanafuda|playing] [--profile FILE] [--backend B[,B]] [--models DIR] [--json]
    enrol --deck hanafuda|playing PHOTO... [--extras] [--absent ID...] [--practice 300] [--fine-tune [--minutes 8]] [--out FILE]
           [--models DIR]
    enrol --deck hanafuda|playing --sheet OUT.pdf|OUT.png [--paper a4x4|a3|letter]
    calibrate --deck hanafuda|playing [--scenes 300] [--seed 900000] [--style A,B] [--art-dir DIR] [--both-ways]

``recognise`` prints every card of each top-down image (``?`` when unsure, the label, the
confidence, the centre; a month's plain with the card ids it may be) and, once, what ``?`` means.
Images are read whatever their kind: greyscale and four-channel images are turned to colour (a
note says so), float images whose values lie in 0-1 or 0-255 are scaled (a note says so) and others
refused; a missing, unreadable or truncated image is reported and skipped, and the command then
exits 2. ``enrol`` builds a deck profile from photos of the deck laid out in the enrolment grid
(``vision/enrol_grid.py``; ``--sheet`` draws the sheet of it, also the last page of ``fudaba mat``)
and writes it (default ``<deck>-profile.npz``); pass it to ``recognise`` and to the game with
``--profile``. It reads every photo's grid first (a photo without it is refused before anything
long starts), times this machine on the work ahead and says how long it will take, then renders
``--practice`` scenes with the photographed faces to learn them in play; with ``--fine-tune``
(needs the ``train`` extra) it first trains the shipped classifier on those faces for ``--minutes``
and keeps the result beside the profile (``<profile>-classifier.onnx``). ``calibrate`` fits the
classifier's temperature and unsure threshold on rendered validation scenes and writes them into
``models/<deck>/manifest.json``.

Messages start with ``fudaba <command>:``. Exit codes: 0 done, 2 bad input or usage (missing or
unreadable file, a photo without the grid, a missing backend or model, a file that is not a
profile), 1 a failure while working.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from pathlib import Path

USAGE = {"recognise": "name the cards in top-down images", "enrol": "adapt to your own deck from grid photos",
         "calibrate": "fit the confidence calibration on rendered validation scenes"}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
INSTALL = {"onnxruntime": "install it with pip install onnxruntime (part of fudaba's install: pip install .)",
           "openvino": "install it with pip install 'fudaba[openvino]'",
           "torch": "install torch and ultralytics with pip install 'fudaba[train]' (best in a venv of its own: "
                    "docs/training.md)"}
"""What to install for each backend."""
UNSURE_HELP = ("? marks an unsure card: its confidence is below the threshold calibrated so that the sure "
               "answers are right 99.5 % of the time (a game asks the players about it); \"or\" gives the "
               "next likeliest name")
RECOGNISE_EPILOG = f"""Each card: {UNSURE_HELP}; the label (a month's plains, interchangeable
in play, are named as one: 01-plain, with the card ids it may be); the confidence; the centre in
image pixels. Greyscale and four-channel images are read as colour, float images in 0-1 or 0-255
are scaled (a note says so). An image that cannot be read is skipped, and the exit status is 2."""


class Refused(ValueError):
    """Bad input from the user: said on stderr, exit status 2."""


def _models_default() -> str:
    """The models folder in use, as ``--models``' help says it (``%`` escaped for argparse)."""
    from vision.recognise.manifest import models_dir

    where = str(models_dir()).replace("%", "%%")
    if os.environ.get("FUDABA_MODELS"):
        return f"{where}, from $FUDABA_MODELS"
    return f"{where}; $FUDABA_MODELS overrides it"


def _common(p: argparse.ArgumentParser) -> None:
    from vision.recognise.backends import BACKENDS, DEFAULT_ORDER

    p.add_argument("--models", metavar="DIR",
                   help=f"models folder, one sub-folder per deck (default: {_models_default()})")
    p.add_argument("--backend", metavar="B[,B]",
                   help=f"backends to try in order, comma-separated: {', '.join(BACKENDS)} "
                        f"(default: {','.join(DEFAULT_ORDER)}, the first one installed)")


def _parser(command: str) -> argparse.ArgumentParser:
    if command == "recognise":
        ap = argparse.ArgumentParser(prog=f"fudaba {command}", description=USAGE[command], epilog=RECOGNISE_EPILOG)
        ap.add_argument("images", nargs="+", metavar="IMAGE", help="top-down photos or frames of the table")
        ap.add_argument("--deck", default="hanafuda", choices=("hanafuda", "playing"))
        ap.add_argument("--profile", help="deck profile written by `fudaba enrol`")
        ap.add_argument("--json", action="store_true",
                        help="one JSON object per image (each card's card_ids, unsure, alternatives)")
    elif command == "enrol":
        from vision.mat import PAPERS

        ap = argparse.ArgumentParser(
            prog=f"fudaba {command}", description=USAGE[command],
            epilog="Lay the deck out as the grid sheet shows (`fudaba enrol --deck D --sheet grid.pdf` draws it; "
                   "it is also the last page of `fudaba mat`), face up, and photograph it from above. The time "
                   "it will take is measured on this machine and said before the long part starts.")
        ap.add_argument("photos", nargs="*", metavar="PHOTO", help="photos of the deck laid out in the enrolment grid")
        ap.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
        ap.add_argument("--sheet", metavar="OUT",
                        help="write the enrolment grid sheet of --deck to OUT (.pdf, or .png) and stop")
        ap.add_argument("--paper", default="a4x4", choices=tuple(PAPERS),
                        help="--sheet: the paper (default a4x4, that is A4)")
        ap.add_argument("--extras", action="store_true",
                        help="the grid has a fifth row: the blank (hanafuda) or both jokers (playing)")
        ap.add_argument("--absent", nargs="+", default=[], metavar="ID",
                        help="classes your deck does not have (e.g. 00-blank, JOKER-RED): recognition with the "
                             "profile names a card so only where nothing else is near")
        ap.add_argument("--out", help="profile file to write (default: <deck>-profile.npz)")
        ap.add_argument("--practice", type=int, default=None, metavar="N",
                        help="practice scenes rendered with your deck's faces (default 300; 0: none, fastest)")
        ap.add_argument("--fine-tune", action="store_true",
                        help="also train the classifier on your deck's faces (needs the train extra)")
        ap.add_argument("--minutes", type=float, default=None, help="--fine-tune: training time (default 8)")
    else:
        ap = argparse.ArgumentParser(prog=f"fudaba {command}", description=USAGE[command])
        ap.add_argument("--deck", required=True, choices=("hanafuda", "playing"))
        ap.add_argument("--scenes", type=int, default=300, help="rendered validation scenes")
        ap.add_argument("--seed", type=int, default=900000, help="first seed (validation seeds are ≡ 8 mod 10)")
        ap.add_argument("--style", help="art styles, comma-separated (default: the classifier's training styles)")
        ap.add_argument("--art-dir", help="folder laid out like shared/assets with more styles")
        ap.add_argument("--both-ways", action="store_true",
                        help="classify every crop also turned 180° and average (recorded in the manifest)")
    _common(ap)
    return ap


# --------------------------------------------------------------------------- images
def read_image(path: str | Path):
    """The image at ``path`` as an 8-bit BGR array for the recogniser, and the notes to say about
    what was converted; :class:`Refused` saying what is wrong (no such file, a folder, not an image,
    truncated or damaged, float values outside 0-1 and 0-255).

    Pillow decodes what it knows (the same pixels as OpenCV's ``imread``, EXIF orientation applied,
    and it notices a file that ends early), OpenCV the rest (PFM, EXR, HDR). Greyscale becomes
    three equal channels, an alpha channel is dropped, 16-bit becomes 8-bit; float pixels in 0-1
    are scaled by 255, in 0-255 taken as they are, others refused."""
    import cv2
    import numpy as np
    from PIL import Image, ImageOps, UnidentifiedImageError

    p = Path(path)
    if not p.exists():
        raise Refused(f"{path}: no such file")
    if p.is_dir():
        raise Refused(f"{path}: a folder, not an image (give the images in it: {Path(path) / '*.jpg'})")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise Refused(f"{path}: cannot be read ({e.strerror or e})") from None
    if not data:
        raise Refused(f"{path}: an empty file, not an image")
    notes: list[str] = []
    try:
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            im = ImageOps.exif_transpose(im)
            mode = im.mode
            alpha = mode in ("RGBA", "RGBa", "LA", "La", "PA") or "transparency" in im.info
            if mode in ("1", "L", "LA", "La", "I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
                notes.append("greyscale: read as colour with three equal channels (colour helps tell some "
                             "cards apart)")
            if alpha:
                notes.append("its alpha channel (transparency) is ignored")
            if mode in ("RGB", "RGBA", "L", "I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
                arr = np.asarray(im)
            elif mode in ("1", "LA", "La"):
                arr = np.asarray(im.convert("L"))
            else:  # P, PA, CMYK, YCbCr, LAB, HSV, RGBa, ...
                arr = np.asarray(im.convert("RGBA" if alpha else "RGB"))
            rgb = True
    except UnidentifiedImageError:
        log = cv2.utils.logging
        level = log.getLogLevel()
        log.setLogLevel(log.LOG_LEVEL_SILENT)  # its warnings on what it cannot read: the message below says it
        try:
            arr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
        finally:
            log.setLogLevel(level)
        if arr is None:
            raise Refused(f"{path}: not an image (neither Pillow nor OpenCV can read it: a photo as JPEG or "
                          "PNG is best)") from None
        rgb = False
        if arr.ndim == 2:
            notes.append("greyscale: read as colour with three equal channels (colour helps tell some "
                         "cards apart)")
        elif arr.shape[2] == 4:
            notes.append("its alpha channel (transparency) is ignored")
    except Image.DecompressionBombError as e:
        raise Refused(f"{path}: too large an image to read safely ({e})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        if "truncated" in str(e).lower():
            raise Refused(f"{path}: a truncated image (the file ends before the picture does: copy or save "
                          "it again)") from None
        raise Refused(f"{path}: a damaged image ({e})") from None
    return _to_bgr8(arr, rgb, str(path), notes), notes


def _to_bgr8(arr, rgb: bool, path: str, notes: list[str]):
    """``arr`` (H×W, H×W×3 or H×W×4; RGB order when ``rgb``, else BGR) as 8-bit BGR; appends to ``notes``."""
    import cv2
    import numpy as np

    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)) or 0 in arr.shape[:2]:
        raise Refused(f"{path}: an image of shape {arr.shape}: expected grey, colour, or colour with alpha")
    if arr.dtype.kind == "f":
        arr = arr.astype(np.float32)
        if not np.isfinite(arr).all():
            raise Refused(f"{path}: float pixels with NaN or infinite values: save it as an 8-bit PNG or JPEG")
        lo, hi = float(arr.min()), float(arr.max())
        if lo >= 0.0 and hi <= 1.0:
            arr = np.rint(arr * 255.0)
            notes.append("float pixels in 0-1: scaled to 0-255")
        elif lo >= 0.0 and hi <= 255.0:
            arr = np.rint(arr)
            notes.append("float pixels in 0-255: taken as 8-bit values")
        else:
            raise Refused(f"{path}: float pixels from {lo:g} to {hi:g}, neither 0-1 nor 0-255: save it as an "
                          "8-bit PNG or JPEG")
        arr = arr.astype(np.uint8)
    elif arr.dtype == np.uint16 or (arr.dtype.kind in "iu" and arr.dtype.itemsize > 1):
        hi = int(arr.max()) if arr.size else 0
        if (arr.dtype.kind == "i" and int(arr.min()) < 0) or hi > 65535:
            raise Refused(f"{path}: integer pixels outside 0-65535: save it as an 8-bit PNG or JPEG")
        arr = (arr.astype(np.uint32) * 255 + 32767) // 65535 if arr.dtype == np.uint16 or hi > 255 else arr
        arr = arr.astype(np.uint8)
    elif arr.dtype == np.bool_:
        arr = arr.astype(np.uint8) * 255
    elif arr.dtype != np.uint8:
        raise Refused(f"{path}: pixels of type {arr.dtype}: save it as an 8-bit PNG or JPEG")
    if arr.ndim == 2:
        return cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    if arr.shape[2] == 4:
        return cv2.cvtColor(arr, cv2.COLOR_RGBA2BGR if rgb else cv2.COLOR_BGRA2BGR)
    return cv2.cvtColor(arr, cv2.COLOR_RGB2BGR) if rgb else np.ascontiguousarray(arr)


# --------------------------------------------------------------------------- the recogniser
def _backends(text: str | None, command: str) -> tuple[str, ...] | None:
    """The ``--backend`` order; :class:`Refused` for an unknown backend or when none of those asked
    is installed (saying what to install); a note for those skipped."""
    if not text:
        return None
    from vision.recognise.backends import BACKENDS, available_backends

    order = tuple(b.strip() for b in text.split(",") if b.strip())
    for b in order:
        if b not in BACKENDS:
            raise Refused(f"--backend {b}: unknown backend; backends: {', '.join(BACKENDS)}")
    installed = available_backends()
    missing = [b for b in order if b not in installed]
    if len(missing) == len(order):
        raise Refused("; ".join(f"--backend {b}: {b} is not installed here; {INSTALL[b]}" for b in missing)
                      + (f"; or leave out --backend to use {installed[0]}" if installed else ""))
    for b in missing:
        _say(command, f"--backend {b}: {b} is not installed here, trying the next ({INSTALL[b]})", err=True)
    return order


def _recogniser(args: argparse.Namespace, command: str):
    from vision.recognise import Recogniser

    return Recogniser(args.deck, args.models, _backends(args.backend, command))


def _say(command: str, text: str, err: bool = False) -> None:
    print(f"fudaba {command}: {text}", file=sys.stderr if err else sys.stdout, flush=True)


def _plain(card) -> str:
    """`` (a January plain: 01-plain-1 or 01-plain-2)`` for a label that stands for several card ids."""
    ids = tuple(card.card_ids)
    if len(ids) < 2:
        return ""
    month, _, kind = card.label.partition("-")
    choice = " or ".join([", ".join(ids[:-1]), ids[-1]])
    if kind == "plain" and month.isdigit() and 1 <= int(month) <= 12:
        return f"  ({'an' if int(month) in (4, 8, 10) else 'a'} {MONTHS[int(month) - 1]} plain: {choice})"
    return f"  (one of {choice})"


def _recognise(args: argparse.Namespace) -> int:
    import cv2

    from vision.recognise.profile import load_profile

    profile = load_profile(args.profile) if args.profile else None
    rec = _recogniser(args, "recognise")
    if profile is not None:
        try:
            rec.use_profile(profile)
        except ValueError as e:
            raise Refused(f"{args.profile}: {e}") from None
    skipped = failed = unsure = 0
    for image in args.images:
        try:
            frame, notes = read_image(image)
        except Refused as e:
            _say("recognise", f"{e}; skipped", err=True)
            skipped += 1
            continue
        for note in notes:
            _say("recognise", f"{image}: {note}", err=True)
        try:
            cards = rec.recognise(frame)
        except (RuntimeError, ValueError, MemoryError, cv2.error) as e:  # a backend failing on one image
            _say("recognise", f"{image}: recognition failed ({type(e).__name__}: {e})", err=True)
            failed += 1
            continue
        if args.json:
            print(json.dumps({"image": image, "backend": rec.backend, "cards": [c.as_dict() for c in cards]}))
            continue
        print(f"{image}: {len(cards)} cards ({rec.backend})")
        for c in sorted(cards, key=lambda c: (c.box[1], c.box[0])):
            mark = "?" if c.unsure else " "
            unsure += c.unsure
            centre = tuple(round(sum(v) / 4) for v in zip(*c.polygon, strict=True))
            alt = f"  (or {c.alternatives[0][0]} {c.alternatives[0][1]:.2f})" if c.unsure and c.alternatives else ""
            how = "  by its corner index only" if c.index_only else ("  by its index" if c.named_by == "index" else "")
            print(f"  {mark} {c.label:<16} {c.confidence:5.2f}  at {centre}{how}{_plain(c)}{alt}")
    if unsure:
        target = rec.manifest.calibration.target
        print(f"? unsure: confidence below {rec.card_unsure_below:.2f}, the threshold calibrated so that the sure "
              f"answers are right {100 * target:g} % of the time (a game asks the players); \"or\": the next "
              "likeliest name")
    if skipped or failed:
        return 2 if skipped else 1
    return 0


# --------------------------------------------------------------------------- enrolment
def _sheet_command(deck: str) -> str:
    return f"`fudaba enrol --deck {deck} --sheet grid.pdf` draws it, as does the last page of `fudaba mat`"


def _minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{max(5, round(seconds / 5) * 5):.0f} s"
    return f"{seconds / 60:.0f} min" if seconds >= 600 else f"{seconds / 60:.1f} min"


def _measure(rec, grids, read_s: float, scenes: int) -> tuple[float, str]:
    """Seconds the enrolment of ``grids`` with ``scenes`` practice scenes will take on this machine,
    and what they go to (``read_s``: the seconds reading the grids took). Timed now, then scaled:
    one card's references classified; two practice scenes rendered and read with the photographed
    faces (less the setting up, timed with none); four steps of the head's fit over as many
    references as it will have (at most 10,000), less its setting up. About two seconds on two cores."""
    import numpy as np

    from vision.cardcrop import square_crop
    from vision.recognise import enrol as en
    from vision.recognise.profile import fit_head

    cards = sum(len(g.cells) for g in grids)
    per_card = 2 * (1 + en.COPIES + en.AUGMENTED)  # crops per card: both ways up, plain, jittered, in play
    g = grids[0]
    crop = square_crop(g.frame, g.cells[0][1], rec.classifier.side)
    with rec.classifier.turning_every_crop():
        t0 = time.perf_counter()
        emb = rec.classifier.classify([crop] * per_card).embeddings
        card_s = time.perf_counter() - t0
        scene_s, refs_per_scene = 0.0, 0.0
        if scenes:
            faces = [g.faces(rec.deck)]
            t0 = time.perf_counter()
            en.practice(rec, faces, 0)
            setup_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            seen = en.practice(rec, faces, 2)
            scene_s = max(0.0, time.perf_counter() - t0 - setup_s) / 2
            refs_per_scene = len(seen.labels) / 2
    refs = cards * per_card + int(scenes * refs_per_scene * (en.CALIBRATION_EVERY - 1) / en.CALIBRATION_EVERY)
    n, k = min(refs, 10_000), len(rec.classifier.names) - 1  # the head: every class but the back
    x = (np.resize(emb, (n, emb.shape[1])) + np.random.default_rng(0).normal(0, 0.01, (n, emb.shape[1]))).astype(
        np.float32)
    took = []
    for steps in (0, 4):  # the steps alone, less the setting up
        t0 = time.perf_counter()
        fit_head(x, np.arange(n) % k, k, steps=steps)
        took.append(time.perf_counter() - t0)
    head_s = max(0.0, took[1] - took[0]) / 4 * (refs / n) * en.HEAD_STEPS
    photos_s = cards * card_s + read_s
    parts = [f"the references of {cards} cards ({_minutes(photos_s)})"]
    if scenes:
        parts.append(f"{scenes} practice scenes with your deck's faces ({_minutes(scenes * scene_s)})")
    parts.append(f"the head's fit ({_minutes(head_s)})")
    return photos_s + scenes * scene_s + head_s, ", ".join(parts)


def _read_grids(rec, photos: list[str], extras: bool) -> tuple[list, float]:
    """Every photo's grid read (:func:`vision.recognise.enrol.read_grid`) before anything long starts,
    and the seconds that took; :class:`Refused` for a photo without the grid."""
    from vision.recognise.enrol import read_grid

    deck = rec.deck
    grids = []
    t0 = time.perf_counter()
    for photo in photos:
        try:
            reading = read_grid(rec, photo, extras)
        except ValueError as e:
            reason = str(e).removeprefix(f"{photo}: ")
            raise Refused(f"{photo}: the grid sheet was not found ({reason}); lay the deck out as the grid sheet "
                          f"shows ({_sheet_command(deck)}) and photograph it from above") from None
        grids.append(reading)
    return grids, time.perf_counter() - t0


def _enrol(args: argparse.Namespace) -> int:
    if args.sheet:
        from vision.mat import write_grid_sheet

        if args.photos:
            raise Refused("--sheet writes the grid sheet only: give it without photos")
        out = write_grid_sheet(args.deck, args.sheet, args.paper)
        paper = {"a4x4": "A4", "a3": "A3"}.get(args.paper, args.paper.capitalize())
        deck = "hanafuda" if args.deck == "hanafuda" else "playing-card"
        print(f"wrote {out}: the {deck} enrolment grid on one {paper} sheet; lay your deck out as it shows, "
              f"face up, photograph it from above, then: fudaba enrol --deck {args.deck} PHOTO")
        return 0
    if not args.photos:
        raise Refused(f"give the photos of your deck laid out in the enrolment grid ({_sheet_command(args.deck)})")
    if args.practice is not None and args.practice < 0:
        raise Refused(f"--practice {args.practice}: give a number of scenes, 0 or more")
    for p in args.photos:
        _, notes = read_image(p)
        if any(n.startswith("float") for n in notes):
            raise Refused(f"{p}: float pixels: enrolment reads 8- or 16-bit photos; save it as PNG or JPEG")
        for note in notes:
            _say("enrol", f"{p}: {note}", err=True)
    from vision.recognise.enrol import PRACTICE_SCENES, enrol

    rec = _recogniser(args, "enrol")
    from vision.recognise.profile import absent_classes

    absent_classes(rec.classifier.names, args.absent, ())  # said before the long part
    scenes = PRACTICE_SCENES if args.practice is None else args.practice
    out = Path(args.out or f"{args.deck}-profile.npz")
    minutes = None
    if args.fine_tune:
        import importlib.util

        if importlib.util.find_spec("ultralytics") is None:
            raise Refused("--fine-tune needs ultralytics and torch: pip install 'fudaba[train]' "
                          "(or enrol without --fine-tune)")
        from vision.train.enrol import FINE_TUNE_MINUTES

        minutes = FINE_TUNE_MINUTES if args.minutes is None else args.minutes
        if minutes <= 0:
            raise Refused(f"--minutes {args.minutes}: give a training time above 0")
    print(f"reading the grid in {len(args.photos)} photo{'s' if len(args.photos) > 1 else ''}…", flush=True)
    grids, read_s = _read_grids(rec, list(args.photos), args.extras)
    seconds, parts = _measure(rec, grids, read_s, scenes)
    if minutes is not None:
        from vision.train.enrol import fine_tune, work_dir

        print(f"fine-tuning the classifier on your deck's faces for about {minutes:g} min (work in "
              f"{work_dir(out.with_suffix('.npz'))}; if cut short, the same command continues), then about "
              f"{_minutes(seconds)} on this machine: {parts}…", flush=True)
        profile, report = fine_tune(rec, args.photos, out, extras=args.extras, minutes=minutes, absent=args.absent,
                                    practice_scenes=scenes)
        out = out.with_suffix(".npz")
    else:
        print(f"about {_minutes(seconds)} on this machine: {parts}…", flush=True)
        profile, report = enrol(rec, args.photos, extras=args.extras, practice_scenes=scenes, absent=args.absent)
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
    from vision.evaluate import calibration as confidence
    from vision.evaluate.recognition import render_scenes

    rec = _recogniser(args, "calibrate")
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
    """Run ``command`` (recognise, enrol or calibrate) with ``argv``; returns the exit code: 0 done,
    2 bad input or usage, 1 a failure while working."""
    args = _parser(command).parse_args(argv)
    try:
        return {"recognise": _recognise, "enrol": _enrol, "calibrate": _calibrate}[command](args)
    except ValueError as e:  # Refused, and the models', profile's and grid's own checks
        _say(command, str(e), err=True)
        return 2
    except ImportError as e:
        _say(command, f"{e.name or e} is missing: reinstall fudaba (pip install .)", err=True)
        return 2
    except OSError as e:
        _say(command, (f"{e.filename}: " if e.filename else "") + str(e.strerror or e), err=True)
        return 1
