"""Card recognition: accuracy on rendered and real images, enrolment, and speed per frame.

Sections (each can be skipped; figures are printed and written to ``--json``):

- ``heldout``: the shipped hanafuda models on rendered held-out scenes (test split, seed ≡ 9 mod 10)
  in the classifier's training styles, 640×640 as in training, and top-down 1280×720 frames with
  20 cards. Card identity accuracy over fully visible cards (≥ 99.9 % seen) and over cards at least
  40 % seen; a card the detector misses counts as wrong (:mod:`vision.evaluate.recognition`).
- ``heldout_playing``: the same for the playing-card models (their training styles).
- ``unseen``: classifiers trained on one style, tested on another (``--cross MODELS=STYLE``, MODELS
  a models folder made by ``train ship --models``), before and after enrolment from one rendered
  grid photo of the unseen style (:func:`vision.synth.fixed_scenes.enrolment_scene`; the profile's
  head fitted with practice scenes rendered from the photographed faces), and with
  ``--fine-tune-minutes M`` (needs the ``train`` extra) also after ``enrol --fine-tune``.
- ``real``: the playing-card models on the real photographs' val split (``--real``): per-image
  card-identity F1 — a card is in an image's truth if any of its corner labels is, and found if the
  recogniser names it face up.
- ``real2``: the playing-card models on the second real set (``--real2``, ``playing-real-2``: whole-card
  boxes, ranks 9 to ace, no suits; both its splits, none trained on): of the labelled cards, the share
  named face up with the right rank (a named card belongs to the labelled box holding its centre,
  the smallest when several do), the share of the cards given a name whose names all give another
  rank, and the named cards no labelled box holds (cards of other ranks never appear, but cards cut by
  the photo's edge are not labelled), per image; sure answers and all answers.
- ``hands``: four face-up hands of 13 playing cards, fanned or spread (:mod:`vision.synth.hands`),
  ``--hands`` frames per playing style (``knoll``, ``jumbo``) and view (top-down, tilted 18-32°),
  seeds from ``--hands-seed``: of the cards with a corner index readable, the share named sure and
  right, and of the names given, the share wrong.
- ``clutter``: ``--clutter`` top-down 1280×720 tables per deck (test-split seeds from
  ``--clutter-seed``) with up to five things that are not cards laid beside the cards
  (:mod:`vision.synth.clutter`): recognised cards no true card claims (sure face-up cards, backs)
  per 100 frames (a card named by its corner index alone is claimed by the true card of its name
  whose outline holds the index), and the cards named (as ``heldout``) with the clutter and on the same tables bare.
- ``real_style``: the playing-card models on top-down tables (20 cards) whose faces are cut from the
  real photographs' train split (``fudaba synth real-faces``: the ``real`` style, cards no
  photograph gives copied from ``knoll``), ``--frames`` frames at 1280×720 and at 1920×1080, seeds
  as ``heldout``'s top-down frames; cards named right as ``heldout``, and the cards whose face is a
  photograph's apart.
- ``speed``: one 1280×720 top-down frame with 20 cards per deck (hanafuda in ``mantia``, playing cards
  in ``knoll``, with their corner-index reader when shipped), recognised ``--repeats`` times after a
  warm-up, with every installed backend (ONNX Runtime, OpenVINO, PyTorch); medians in ms. With
  ``--against DIR`` a second models folder is timed in turn with ``--models``, frame by frame, and
  the ratio of the two medians is reported (a noisy machine slows both alike).

    python bench/recognition.py [--scenes 200] [--frames 40] [--cross runs/x-mantia=classic ...]
        [--fine-tune-minutes 8]
        [--art-dir ../shared/assets] [--real ../shared/datasets/playing-real]
        [--skip heldout,heldout_playing,unseen,real,real2,real_style,hands,clutter,speed] [--hands 10] [--clutter 50] [--repeats 20] [--against OTHER_MODELS]
        [--json bench/out/recognition.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluate.recognition import accuracy, outcomes, render_scenes, rendered_grid_photo  # noqa: E402
from vision.recognise import Recogniser  # noqa: E402
from vision.recognise.backends import available_backends  # noqa: E402
from vision.recognise.enrol import enrol  # noqa: E402
from vision.recognise.geometry import SEEN_ENOUGH  # noqa: E402
from vision.recognise.index_reader import needs_reading  # noqa: E402
from vision.synth.fixed_scenes import topdown_scene  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ARGS: argparse.Namespace


def test_seeds(first: int, count: int) -> list[int]:
    """``count`` test-split seeds (≡ 9 mod 10) from ``first`` on."""
    start = first + (9 - first) % 10
    return [start + 10 * k for k in range(count)]


def _summary(items, label: str) -> dict:
    full, part = accuracy(items, 1.0), accuracy(items, SEEN_ENOUGH)
    print(f"  {label}: fully visible {full['correct']}/{full['cards']} = {_pct(full['accuracy'])} "
          f"(sure {_pct(full['sure_accuracy'])}, unsure {_pct(full['unsure_rate'])}); "
          f">=40% visible {part['correct']}/{part['cards']} = {_pct(part['accuracy'])} "
          f"(detector found {_pct(part['detection_recall'])})")
    return {"fully_visible": full, "visible_40": part}


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.2f} %"


def _evaluate(rec: Recogniser, deck: str, styles, seeds, art_dir, size=(640, 640), scene=None) -> list:
    if ARGS.both_ways is not None:
        rec.classifier.both_ways = ARGS.both_ways == "on"
    items = []
    for image, labels in render_scenes(deck, styles, seeds, art_dir, size, scene):
        items += outcomes(labels, rec.recognise(image))
    return items


def heldout(args, deck: str = "hanafuda") -> dict:
    rec = Recogniser(deck, args.models)
    styles = rec.manifest.styles
    print(f"held-out {deck} scenes, styles {', '.join(styles)} ({rec.backend})")
    seeds = test_seeds(args.seed, args.scenes)
    t0 = time.perf_counter()
    items = _evaluate(rec, deck, styles, seeds, args.art_dir)
    out = {"styles": styles, "scenes": len(seeds), "first_seed": seeds[0], "size": [640, 640],
           **_summary(items, f"{len(seeds)} scenes 640x640")}
    per_style = {}
    for st in styles:
        per_style[st] = _summary([o for o in items if o.style == st], f"  style {st}")
    out["per_style"] = per_style
    td_seeds = test_seeds(args.seed + 500000, args.frames)
    td = _evaluate(rec, deck, styles, td_seeds, args.art_dir, (1280, 720), topdown_scene)
    out["topdown_1280x720"] = {"frames": len(td_seeds), **_summary(td, f"{len(td_seeds)} top-down frames 1280x720")}
    out["both_ways"] = rec.classifier.both_ways
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def real_style(args) -> dict:
    import shutil

    from vision.synth.artset import find_style
    from vision.synth.real_faces import cut_faces

    art = Path(args.tmp) / "bench-real-style"
    shutil.rmtree(art, ignore_errors=True)
    art.mkdir(parents=True)
    if (Path(args.art_dir) / "backgrounds").is_dir():
        (art / "backgrounds").symlink_to((Path(args.art_dir) / "backgrounds").resolve())
    report = cut_faces(Path(args.real), art, ("train",), "real", find_style("playing", "knoll", args.art_dir))
    print(f"real style: {len(report.written)} cards cut from photographs, copied from knoll: {' '.join(report.filled)}")
    rec = Recogniser("playing", args.models)
    out = {"cut_from_photographs": list(report.written), "copied_from_knoll": list(report.filled)}
    seeds = test_seeds(args.seed + 500000, args.frames)
    for size in ((1280, 720), (1920, 1080)):
        items = _evaluate(rec, "playing", ("real",), seeds, art, size, topdown_scene)
        key = f"topdown_{size[0]}x{size[1]}"
        out[key] = {"frames": len(seeds), **_summary(items, f"{len(seeds)} top-down frames {size[0]}x{size[1]}, real style")}
        out[key]["photographed_faces"] = _summary([o for o in items if o.truth in report.written],
                                                  "  of them cards cut from a photograph")
    return out


def unseen(args) -> dict:
    out = {}
    for spec in args.cross:
        models, _, style = spec.partition("=")
        rec = Recogniser("hanafuda", models)
        trained = rec.manifest.styles
        print(f"unseen style {style}: classifier trained on {', '.join(trained)} ({models})")
        seeds = test_seeds(args.seed, args.unseen_scenes)
        before = _evaluate(rec, "hanafuda", (style,), seeds, args.art_dir)
        b = _summary(before, "before enrolment")
        photo = rendered_grid_photo("hanafuda", style, args.seed + 7, args.art_dir, args.tmp)
        t0 = time.perf_counter()
        profile, report = enrol(rec, [photo])
        enrol_s = time.perf_counter() - t0
        rec.use_profile(profile)
        after = _evaluate(rec, "hanafuda", (style,), seeds, args.art_dir)
        a = _summary(after, "after enrolment")
        key = f"{'+'.join(trained)}->{style}"
        out[key] = {"models": models, "trained_on": trained, "tested_on": style, "scenes": len(seeds),
                    "before": b, "after": a,
                    "enrolment": {"cards": report[0].cards, "named_right_before": report[0].agreed,
                                  "practice_scenes": profile.meta["practice_scenes"], "seconds": round(enrol_s, 1)}}
        if args.fine_tune_minutes > 0:
            from vision.train.enrol import fine_tune

            t0 = time.perf_counter()
            tuned, _ = fine_tune(rec, [photo], Path(args.tmp) / f"bench-{style}-tuned.npz",
                                 minutes=args.fine_tune_minutes)
            tune_s = time.perf_counter() - t0
            rec.use_profile(tuned)
            out[key]["after_fine_tune"] = {
                **_summary(_evaluate(rec, "hanafuda", (style,), seeds, args.art_dir), "after enrolment with a fine-tune"),
                "minutes": args.fine_tune_minutes, "seconds": round(tune_s, 1)}
            rec.use_profile(None)
    return out


def real(args) -> dict:
    from vision.evaluate.recognition import image_f1
    from vision.train.corners import photo_truths, photograph

    rec = Recogniser("playing", args.models)
    root = Path(args.real).resolve()
    images = []
    scores = {"all": [0, 0, 0, []], "sure": [0, 0, 0, []]}  # tp, fp, fn, per-image F1
    named_by = {"card": 0, "index": 0, "index_only": 0}
    for img, frame, truth in photo_truths(root, "val"):
        images.append(img)
        cards = [c for c in rec.recognise(frame) if c.face_up and c.card_ids]
        for c in cards:
            named_by["index_only" if c.index_only else c.named_by] += 1
        for key, chosen in (("all", cards), ("sure", [c for c in cards if not c.unsure])):
            tp, fp, fn, f1 = image_f1(truth, {c.card_ids[0] for c in chosen})
            sc = scores[key]
            sc[0], sc[1], sc[2] = sc[0] + tp, sc[1] + fp, sc[2] + fn
            sc[3].append(f1)
    photos = {photograph(p.name) for p in images}
    res = {"images": len(images), "photographs": len(photos), "index_models": rec.index_reader is not None,
           "face_up_cards_named_by": named_by}
    for key, (tp, fp, fn, f1s) in scores.items():
        res[key] = {"per_image_f1": float(np.mean(f1s)), "precision": tp / max(1, tp + fp), "recall": tp / max(1, tp + fn)}
        print(f"real playing-card photos (val, {len(images)} images of {len(photos)} photographs), {key} answers: "
              f"per-image F1 {res[key]['per_image_f1']:.3f}, precision {res[key]['precision']:.3f}, "
              f"recall {res[key]['recall']:.3f}")
    print(f"face-up cards named by the whole-card classifier {named_by['card']}, by their index "
          f"{named_by['index']}, seen only by an index {named_by['index_only']}")
    return res


REAL2_RANKS = {"nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}


def real2_truth(root: Path) -> dict[Path, list[tuple[str, tuple[float, float, float, float]]]]:
    """``image path → [(rank, (x0, y0, x1, y1) px)]`` of both splits of ``playing-real-2``."""
    import csv

    out: dict[Path, list] = {}
    for split in ("train", "test"):
        with open(root / f"{split}_labels.csv", encoding="utf-8", newline="") as f:
            for n, row in enumerate(csv.DictReader(f), 2):
                if row["class"] not in REAL2_RANKS:
                    raise ValueError(f"{root / f'{split}_labels.csv'}:{n}: unknown class {row['class']!r}")
                box = tuple(float(row[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
                out.setdefault(root / "images" / split / row["filename"], []).append((REAL2_RANKS[row["class"]], box))
    return out


def real2(args) -> dict:
    import cv2

    rec = Recogniser("playing", args.models)
    truth = real2_truth(Path(args.real2).resolve())
    tally = {k: {"cards": 0, "named": 0, "wrong": 0, "stray": 0} for k in ("sure", "all")}
    for path, labelled in sorted(truth.items()):
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{path}: not an image")
        cards = [c for c in rec.recognise(frame) if c.face_up and c.card_ids]
        for key, chosen in (("all", cards), ("sure", [c for c in cards if not c.unsure])):
            given: dict[int, list[str]] = {}
            for c in chosen:
                cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
                holders = [i for i, (_, b) in enumerate(labelled) if b[0] <= cx <= b[2] and b[1] <= cy <= b[3]]
                if not holders:
                    tally[key]["stray"] += 1
                    continue
                i = min(holders, key=lambda i: (labelled[i][1][2] - labelled[i][1][0]) * (labelled[i][1][3] - labelled[i][1][1]))
                given.setdefault(i, []).append(c.card_ids[0][:-1] if not c.card_ids[0].startswith("JOKER") else "JOKER")
            t = tally[key]
            t["cards"] += len(labelled)
            t["named"] += sum(labelled[i][0] in ranks for i, ranks in given.items())
            t["wrong"] += sum(labelled[i][0] not in ranks for i, ranks in given.items())
    res = {"images": len(truth)}
    for key, t in tally.items():
        res[key] = {**t, "named_share": t["named"] / max(1, t["cards"]), "wrong_share": t["wrong"] / max(1, t["named"] + t["wrong"]),
                    "stray_per_image": t["stray"] / max(1, len(truth))}
        print(f"playing-real-2 ({len(truth)} images, {t['cards']} cards), {key} answers: {t['named']} named with the "
              f"right rank ({_pct(res[key]['named_share'])}), {t['wrong']} given only other ranks "
              f"({_pct(res[key]['wrong_share'])} of those named), {t['stray']} named cards outside every labelled box "
              f"({res[key]['stray_per_image']:.2f} per image)")
    return res


def hands(args) -> dict:
    """Four face-up hands of 13 playing cards, fanned or spread (:mod:`vision.synth.hands`), in both
    playing styles, top-down and tilted: of the cards with a corner index readable, the share named
    (face up, sure), and the share of the names given that are wrong (a card not readable there)."""
    from vision.synth.hands import hands_scene, index_truth

    rec = Recogniser("playing", args.models)
    size = tuple(int(v) for v in args.hands_size.lower().split("x"))
    out: dict = {"size": list(size)}
    seeds = list(range(args.hands_seed, args.hands_seed + args.hands))
    for style in ("knoll", "jumbo"):
        for tilted in (False, True):
            scene = lambda seed, deck, styles, size=size, textures=(), t=tilted: hands_scene(  # noqa: E731
                seed, deck, styles, size, textures, tilted=t)
            readable = named = right = 0
            ms = []
            for image, labels in render_scenes("playing", [style], seeds, args.art_dir, size, scene):
                truth = index_truth(labels, size)
                t0 = time.perf_counter()
                cards = rec.recognise(image)
                ms.append((time.perf_counter() - t0) * 1000)
                names = {c.card_ids[0] for c in cards if c.face_up and c.card_ids and not c.unsure}
                readable, named, right = readable + len(truth), named + len(names), right + len(truth & names)
            key = f"{style}-{'tilted' if tilted else 'top-down'}"
            out[key] = {"frames": len(seeds), "readable": readable, "named_right": right, "named": named,
                        "named_share": right / max(1, readable), "wrong_share": (named - right) / max(1, named),
                        "median_ms": statistics.median(ms)}
            print(f"hands {key} at {size[0]}x{size[1]}: {right}/{readable} readable cards named ({_pct(right / max(1, readable))}), "
                  f"{named - right}/{named} names wrong, median {statistics.median(ms):.0f} ms", flush=True)
    styles = [v for k, v in out.items() if k != "size"]
    all_readable = sum(v["readable"] for v in styles)
    all_right = sum(v["named_right"] for v in styles)
    all_named = sum(v["named"] for v in styles)
    out["all"] = {"named_share": all_right / max(1, all_readable), "wrong_share": (all_named - all_right) / max(1, all_named)}
    print(f"hands, all: {_pct(out['all']['named_share'])} named (goal >= 98 %), "
          f"{_pct(out['all']['wrong_share'])} wrong (goal <= 0.5 %)")
    return out


def seen_by_its_index(card, truth) -> bool:
    """Whether ``card``, named by a corner index alone (outlined by the index's box), is a true face-up
    card of that name whose outline holds the index box's centre: a card, not a thing that is not one."""
    import cv2

    if not getattr(card, "index_only", False):
        return False
    cx, cy = (card.box[0] + card.box[2]) / 2, (card.box[1] + card.box[3]) / 2
    return any(t.face_up and t.card_id == card.label
               and cv2.pointPolygonTest(np.asarray(t.polygon, np.float32).reshape(-1, 1, 2), (cx, cy), False) >= 0
               for t in truth)


def clutter(args) -> dict:
    """Top-down tables with things that are not cards beside the cards (:mod:`vision.synth.clutter`:
    knitted coasters, card boxes printed with card art, rule sheets, dice, glasses, cups, phones),
    each deck in its training styles: the recognised cards no true card claims (sure face-up ones,
    and backs) per 100 frames, and the cards named with the clutter and on the same table without it."""
    from vision.recognise.geometry import match
    from vision.synth.clutter import clutter_scene, without_clutter

    out: dict = {}
    for deck in ("hanafuda", "playing"):
        if not (Path(args.models or REPO / "models") / deck / "manifest.json").exists():
            continue
        rec = Recogniser(deck, args.models)
        styles = rec.manifest.styles
        seeds = test_seeds(args.clutter_seed, args.clutter)
        res = {}
        for name, make in (("clutter", clutter_scene), ("bare", lambda *a, **k: without_clutter(clutter_scene(*a, **k)))):
            items, false_up, false_down = [], 0, 0
            for image, labels in render_scenes(deck, styles, seeds, args.art_dir, (1280, 720), make):
                cards = rec.recognise(image)
                items += outcomes(labels, cards)
                claimed = set(match([c.box for c in cards], labels.cards))
                for i, c in enumerate(cards):
                    if i in claimed or seen_by_its_index(c, labels.cards):
                        continue
                    if c.face_up and not c.unsure:
                        false_up += 1
                    elif not c.face_up:
                        false_down += 1
            res[name] = {"frames": len(seeds), "sure_false_cards": false_up, "false_backs": false_down,
                         "sure_false_per_100": 100 * false_up / len(seeds), "false_backs_per_100": 100 * false_down / len(seeds),
                         **_summary(items, f"{deck} {name}, {len(seeds)} top-down frames")}
            print(f"  {deck} {name}: {false_up} sure face-up cards and {false_down} backs where no card lies "
                  f"({res[name]['sure_false_per_100']:.1f} and {res[name]['false_backs_per_100']:.1f} per 100 frames)", flush=True)
        out[deck] = res
    return out


SPEED_STYLES = {"hanafuda": "mantia", "playing": "knoll"}


def speed(args) -> dict:
    return {deck: speed_of(args, deck, style) for deck, style in SPEED_STYLES.items()}


def speed_frame(deck: str, style_name: str, first_seed: int) -> tuple[np.ndarray, dict]:
    """The frame speed is timed on: the first top-down 1280 × 720 table (seeds ``first_seed`` + 3,
    + 13, + 23 …) with at least 20 cards at least half in view, and what it holds."""
    from vision.synth.artset import find_style
    from vision.synth.scene import render

    style = {style_name: find_style(deck, style_name)}
    seed = first_seed + 3
    while True:
        r = render(topdown_scene(seed, deck, (style_name,), n_cards=48), style)
        in_view = sum(c.visible >= 0.5 for c in r.labels.cards)
        if in_view >= 20:
            break
        seed += 10
    return r.image, {"frame": [1280, 720], "style": style_name, "seed": seed, "cards_in_scene": len(r.labels.cards),
                     "cards_half_in_view": in_view}


def speed_of(args, deck: str, style_name: str) -> dict:
    frame, out = speed_frame(deck, style_name, args.seed)
    for backend in available_backends():
        rec = Recogniser(deck, args.models, (backend,))
        for _ in range(3):
            cards = rec.recognise(frame)
        other = Recogniser(deck, args.against, (backend,)) if args.against else None
        if other is not None:
            for _ in range(3):
                other.recognise(frame)
        times, other_times = [], []
        for _ in range(args.repeats):  # with --against, the two models folders take turns frame by frame
            t = time.perf_counter()
            rec.recognise(frame)
            times.append((time.perf_counter() - t) * 1000)
            if other is not None:
                t = time.perf_counter()
                other.recognise(frame)
                other_times.append((time.perf_counter() - t) * 1000)
        # the stages apart: detector, outlines cut and classified (crops: as classified, turned ones included),
        # corner indices
        network, seen = rec.classifier.network, []
        rec.classifier.network = lambda batch, network=network, seen=seen: seen.append(len(batch)) or network(batch)  # counts crops
        t = time.perf_counter()
        dets = rec.detector.detect([frame])[0]
        t_det = time.perf_counter()
        whole = rec.named_detections([frame], [dets])[0][0]
        t_cls = time.perf_counter()
        rec.classifier.network = network
        if rec.index_reader is not None and needs_reading(whole, rec.index_reader.scale(frame), rec.index_params):
            rec.index_reader.read([frame])
        t_idx = time.perf_counter()
        crops = sum(seen)
        out[backend] = {"both_ways": rec.classifier.both_ways, "turn_below": rec.classifier.turn_below,
                        "median_ms": round(statistics.median(times), 1),
                        "min_ms": round(min(times), 1), "cards_found": len(cards), "classifier_crops": crops,
                        "detector_ms": round((t_det - t) * 1000, 1),
                        "classifier_ms": round((t_cls - t_det) * 1000, 1),
                        "index_ms": round((t_idx - t_cls) * 1000, 1) if rec.index_reader is not None else None}
        idx = f", corner indices {out[backend]['index_ms']} ms" if rec.index_reader is not None else ""
        print(f"speed {deck} {backend}: median {out[backend]['median_ms']} ms per 1280x720 frame "
              f"({len(cards)} cards found; detector {out[backend]['detector_ms']} ms, "
              f"outlines cut and classified {out[backend]['classifier_ms']} ms ({crops} crops){idx})")
        if other is not None:
            other_ms = statistics.median(other_times)
            out[backend]["against"] = {"models": str(args.against), "median_ms": round(other_ms, 1),
                                       "ratio": round(statistics.median(times) / other_ms, 3)}
            print(f"speed {deck} {backend}: {args.against} in turn with it: median {other_ms:.1f} ms "
                  f"(ratio {out[backend]['against']['ratio']})")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", help="models folder (default: the repository's models/)")
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--frames", type=int, default=40, help="top-down 1280x720 frames for accuracy")
    ap.add_argument("--unseen-scenes", type=int, default=150)
    ap.add_argument("--fine-tune-minutes", type=float, default=0.0,
                    help="unseen: also enrol with a fine-tune of this many minutes (needs the train extra; 0: skip)")
    ap.add_argument("--seed", type=int, default=700000)
    ap.add_argument("--cross", nargs="*", default=[], help="MODELS=STYLE: a one-style classifier and the style to test")
    ap.add_argument("--art-dir", default=str(REPO.parent / "shared" / "assets"))
    ap.add_argument("--real", default=str(REPO.parent / "shared" / "datasets" / "playing-real"))
    ap.add_argument("--real2", default=str(REPO.parent / "shared" / "datasets" / "playing-real-2"))
    ap.add_argument("--against", help="speed: a second models folder timed in turn with --models, frame by frame")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--hands", type=int, default=10, help="hands: frames per style and view")
    ap.add_argument("--clutter", type=int, default=50, help="clutter: frames per deck")
    ap.add_argument("--clutter-seed", type=int, default=820000, help="clutter: the first seed (test split, no tuning saw 820000+)")
    ap.add_argument("--hands-seed", type=int, default=810000, help="hands: the first scene seed (no tuning saw 810000+)")
    ap.add_argument("--hands-size", default="1280x720", metavar="WxH",
                    help="hands: the frames' size (default 1280x720, a 720p camera)")
    ap.add_argument("--skip", default="", help="sections to skip, comma-separated")
    ap.add_argument("--tmp", default="/tmp")
    ap.add_argument("--both-ways", choices=("on", "off"),
                    help="override the manifest: classify each crop also turned 180° (accuracy sections)")
    ap.add_argument("--json", default=str(REPO / "bench" / "out" / "recognition.json"))
    args = ap.parse_args()
    global ARGS
    ARGS = args
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    result = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                          "load_average": os.getloadavg()}, "backends": available_backends()}
    sections = {"heldout": heldout, "heldout_playing": lambda a: heldout(a, "playing"), "unseen": unseen,
                "real": real, "real2": real2, "real_style": real_style, "hands": hands, "clutter": clutter,
                "speed": speed}
    for name, fn in sections.items():
        if name in skip or (name == "unseen" and not args.cross):
            continue
        if name in ("real", "real2", "real_style", "heldout_playing", "hands") and not (Path(args.models or REPO / "models") / "playing"
                                                        / "manifest.json").exists():
            print(f"{name}: no playing-card models shipped; skipped")
            continue
        result[name] = fn(args)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
