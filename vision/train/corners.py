"""Corner-index datasets from the real playing-card photographs (``shared/datasets/playing-real``).

The real photos label the printed corner indices (rank over suit, one box per visible corner),
which is also all a player sees of a card in a fanned hand. Two datasets are cut from their train
split, for two networks the playing-card recogniser runs on top of the whole-card ones:

- ``detect/``: a one-class detector dataset (``index``): every corner box of a card (jokers
  included; the ``BACK`` boxes, which are whole backs, left out). Images are symlinks to the
  photos; labels are rewritten with class 0.
- ``crops/``: a classifier dataset, ``train/<card id>/*.png``: each corner box cut as a square
  (:func:`vision.cardcrop.index_square`), ``copies`` times with a random turn (any angle: an index
  is read at whatever angle the card lies), a scale and a shift like a detector's error.

Both hold out the same photographs (``tune`` fraction, chosen by a hash of the photograph's name,
so every augmented copy of a photograph is on the same side) as their ``val`` split, for model
selection and thresholds; the dataset's own val split is never read here: it is kept for
measuring (bench/recognition.py).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import yaml

from vision.cardcrop import index_square, square_crop
from vision.recognise.index_reader import card_factors
from vision.train.datasets import IMAGE_SUFFIXES, read_names, real_name_to_card_id

INDEX_NAMES = ("index",)
"""Class names of the corner-index detector."""
BACK_NAME = "BACK"
"""The real dataset's class of whole card backs (not a corner index)."""


def factor_datasets(crops: Path, out: Path) -> dict[str, dict[str, int]]:
    """Rank and suit classifier datasets (``out/rank``, ``out/suit``, each ``train|val/<class>/``) from a
    corner-index crop dataset (``crops/train|val/<card id>/``), the images symlinked, not copied;
    returns the number of classes and images of each."""
    crops, out = crops.resolve(), out.resolve()
    counts: dict[str, dict[str, int]] = {}
    for part, which in (("rank", 0), ("suit", 1)):
        classes, images = set(), 0
        for split in ("train", "val"):
            folder = crops / split
            if not folder.is_dir():
                raise ValueError(f"{folder}: no such folder (expected the crops/ of train corner-data)")
            for card_dir in sorted(d for d in folder.iterdir() if d.is_dir()):
                label = card_factors(card_dir.name)[which]
                classes.add(label)
                dest = out / part / split / label
                dest.mkdir(parents=True, exist_ok=True)
                for img in sorted(card_dir.iterdir()):
                    link = dest / f"{card_dir.name}_{img.name}"
                    if not link.is_symlink():
                        os.symlink(img, link)
                    images += 1
        counts[part] = {"classes": len(classes), "images": images}
    return counts


def photograph(image_name: str) -> str:
    """The photograph an image was made from: its file name before Roboflow's ``.rf.`` suffix."""
    return image_name.split(".rf.")[0]


def is_tune(photo: str, fraction: float) -> bool:
    """Whether ``photo`` is held out for tuning (stable: a hash of its name, not a random draw)."""
    h = int(hashlib.sha1(photo.encode("utf-8")).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < fraction


def corner_labels(real_dir: Path, split: str, image: Path, width: int, height: int) -> list[tuple[str, tuple]]:
    """``(card id, (x0, y0, x1, y1) px)`` of each corner box of ``image`` (backs left out).

    Raises ValueError naming the file and line of a malformed label or an unknown class.
    """
    names = read_names(real_dir / "data.yaml")
    to_id = real_name_to_card_id()
    lab = real_dir / "labels" / split / f"{image.stem}.txt"
    out = []
    for n, line in enumerate(lab.read_text(encoding="utf-8").splitlines() if lab.is_file() else [], 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
            cx, cy, w, h = (float(v) for v in parts[1:5])
            name = names[cls]
        except (ValueError, IndexError) as e:
            raise ValueError(f"{lab}:{n}: not a YOLO box line ({line!r})") from e
        if name == BACK_NAME:
            continue
        card = to_id.get(name)
        if card is None:
            raise ValueError(f"{lab}:{n}: class {name!r} is not in scorer/data/playing.csv")
        out.append((card, ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height)))
    return out


def split_images(real_dir: Path, split: str = "train") -> list[Path]:
    """The image files of a split of a real dataset, sorted; ValueError naming the folder when it is missing."""
    folder = real_dir / "images" / split
    if not folder.is_dir():
        raise ValueError(f"{folder}: no such folder (expected a dataset like shared/datasets/playing-real)")
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)


def photo_truths(real_dir: Path, split: str = "train", held_out: float | None = None):
    """``(image path, BGR frame, set of card ids labelled in it)`` for each image of ``split``; with
    ``held_out``, only the train photographs :func:`is_tune` holds out at that fraction."""
    for img in split_images(real_dir, split):
        if held_out is not None and not is_tune(photograph(img.name), held_out):
            continue
        frame = cv2.imread(str(img), cv2.IMREAD_COLOR)
        h, w = frame.shape[:2]
        yield img, frame, {card for card, _ in corner_labels(real_dir, split, img, w, h)}


def detect_dataset(real_dir: Path, out: Path, tune: float = 0.1) -> dict:
    """Write the one-class corner-index detector dataset into ``out``; returns counts per split."""
    real_dir = real_dir.resolve()
    out = out.resolve()
    counts = {s: {"images": 0, "boxes": 0, "photos": set()} for s in ("train", "val")}
    for img in split_images(real_dir):
        photo = photograph(img.name)
        split = "val" if is_tune(photo, tune) else "train"
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        link = out / "images" / split / img.name
        if not link.is_symlink():
            os.symlink(img, link)
        frame = cv2.imread(str(img), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{img}: not an image")
        h, w = frame.shape[:2]
        lines = []
        for _, (x0, y0, x1, y1) in corner_labels(real_dir, "train", img, w, h):
            x0, y0, x1, y1 = max(0.0, x0), max(0.0, y0), min(float(w), x1), min(float(h), y1)
            lines.append(f"0 {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}\n")
        (out / "labels" / split / f"{img.stem}.txt").write_text("".join(lines), encoding="utf-8")
        c = counts[split]
        c["images"] += 1
        c["boxes"] += len(lines)
        c["photos"].add(photo)
    doc = {"path": str(out), "train": "images/train", "val": "images/val", "nc": 1, "names": dict(enumerate(INDEX_NAMES))}
    (out / "data.yaml").write_text(
        f"# corner indices of the real playing-card photos' train split ({real_dir}); val: held-out photographs\n"
        + yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return {s: {**c, "photos": len(c["photos"])} for s, c in counts.items()}


def crop_dataset(real_dir: Path, out: Path, side: int = 64, copies: int = 4, tune: float = 0.1,
                 seed: int = 0, stretch: float = 0.0, invert: float = 0.0, blur: float = 0.0) -> dict:
    """Write the corner-index classifier dataset into ``out/{train,val}/<card id>/``; returns counts.

    Train boxes are cut ``copies`` times, turned by a uniform random angle, scaled by N(1, 0.08) and
    shifted by N(0, 0.05) of the square's side, stretched along the image axes by exp(±N(0,
    ``stretch``)) (:func:`stretched`: the photos are stretched to a square, by a different amount for
    each camera), a fraction ``invert`` of them turned light-on-dark (:func:`invert_lightness`) and a
    fraction ``blur`` of them blurred as by a phone out of focus or moving (:func:`degraded`);
    held-out (val) boxes once, as run time cuts them. Every card id of ``scorer/data/playing.csv``
    gets a folder in both splits.
    """
    real_dir = real_dir.resolve()
    rng = np.random.default_rng(seed)
    cards = sorted(set(real_name_to_card_id().values()) - {BACK_NAME})
    for split in ("train", "val"):
        for card in cards:
            (out / split / card).mkdir(parents=True, exist_ok=True)
    counts = {"train": 0, "val": 0}
    for img in split_images(real_dir):
        split = "val" if is_tune(photograph(img.name), tune) else "train"
        frame = cv2.imread(str(img), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{img}: not an image")
        h, w = frame.shape[:2]
        for k, (card, box) in enumerate(corner_labels(real_dir, "train", img, w, h)):
            if split == "val":
                squares = [index_square(box)]
            else:
                squares = [stretched(index_square(box, angle=rng.uniform(0, 360), scale=rng.normal(1.0, 0.08),
                                                  shift=rng.normal(0.0, 0.05, 2)),
                                     float(np.exp(rng.normal(0.0, stretch))) if stretch > 0 else 1.0)
                           for _ in range(copies)]
            for j, sq in enumerate(squares):
                crop = square_crop(frame, sq, side)
                if split == "train" and invert > 0 and rng.random() < invert:
                    crop = invert_lightness(crop)
                if split == "train" and blur > 0 and rng.random() < blur:
                    crop = degraded(crop, rng)
                cv2.imwrite(str(out / split / card / f"{img.stem}_{k}_{j}.png"), crop, [cv2.IMWRITE_PNG_COMPRESSION, 1])
                counts[split] += 1
    return counts


def stretched(square: np.ndarray, factor: float) -> np.ndarray:
    """``square`` (4 × 2 px) scaled about its centre by ``factor`` along the image's x axis and by
    1 / ``factor`` along y: cut through it, an index looks stretched as in a photo resized to
    another aspect ratio (``factor`` > 1: the crop shows the index narrower)."""
    q = np.asarray(square, np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    return (q - c) * np.array([factor, 1.0 / factor]) + c


def invert_lightness(crop: np.ndarray) -> np.ndarray:
    """A BGR crop with its lightness inverted and its colours kept (CIELAB L → 100 − L): dark ink on
    light paper becomes light ink on dark paper, red stays red, as printed on a black-faced deck."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


BLUR_SIGMA = (0.02, 0.05)
"""Range of a defocus blur's σ, as a fraction of the crop's side (2-5 px at 96 px)."""
MOTION_LENGTH = (0.04, 0.12)
"""Range of a motion blur's length, as a fraction of the crop's side (4-12 px at 96 px)."""


def degraded(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``crop`` as a phone camera out of focus or moving sees it: half the time a Gaussian (defocus)
    blur of σ in :data:`BLUR_SIGMA`, else a straight motion blur of a length in
    :data:`MOTION_LENGTH` at a uniform angle (both of the crop's side), then sensor noise of σ ≤ 6
    levels. Sizes scale with the crop, so any ``--side`` sees the same blur."""
    side = crop.shape[0]
    out = crop.astype(np.float32)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(*BLUR_SIGMA) * side)
    else:
        length = max(2, int(round(rng.uniform(*MOTION_LENGTH) * side)))
        k = np.zeros((length, length), np.float32)
        k[length // 2, :] = 1.0
        turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, turn, (length, length))
        out = cv2.filter2D(out, -1, k / max(float(k.sum()), 1e-6), borderType=cv2.BORDER_REFLECT)
    out = out + rng.normal(0.0, rng.uniform(0.0, 6.0), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


CONF_GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
MIN_PROB_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
UNREAD_MIN_GRID = (0.0, 0.8, 0.95, 1.01)
CLOSE_PX_GRID = (0.0, 12.0, 16.0, 20.0, 24.0)
CLOSE_PX_TOLERANCE = 0.005
"""``close_px`` is the largest value whose F1 is within this of the best: the held-out photos are
all close-ups, and a larger ``close_px`` keeps whole cards on tables seen from afar."""
UNREAD_MIN_TOLERANCE = 0.005
"""``unread_min`` is the smallest value whose F1 is within this of the grid's best, for the same
reason: the close-ups favour dropping whole cards no index confirms, a table seen from above does not."""
SPLIT_PROB_GRID = (1.01, 0.95, 0.9, 0.8, 0.7, 0.6, 0.5)
"""``split_prob`` values tried once the grid's best is known (1.01: never split an outline's readings)."""
TURNS_GRID = (1, 4, 8)
FACTOR_WEIGHT_GRID = (0.0, 0.5, 1.0)
"""``factor_weight`` values of the main grid when the models have rank and suit classifiers (else 0 only)."""


def first_within(candidates: Sequence[float], f1_of: Callable[[float], float], best: float, tolerance: float,
                 current: float) -> tuple[float, float]:
    """``(F1, value)`` of the first of ``candidates`` (in the order given) whose ``f1_of(value)`` is at
    least ``best - tolerance``; ``(best, current)`` when none is."""
    for value in candidates:
        f1 = f1_of(value)
        if f1 >= best - tolerance:
            return f1, value
    return best, current


HANDS_TUNE_SEED = 730000
"""First seed of the rendered hands ``index-tune --hands`` chooses on (``corner-data --hands`` trains on
720000 onwards, ``bench/recognition.py`` measures on 810000 onwards)."""


def hands_cases(hands: int, seed: int = HANDS_TUNE_SEED, art_dir: str | None = None):
    """``(frame, truth)`` of ``hands`` rendered 1280×720 tables of fanned and spread hands
    (:func:`vision.synth.hands.hands_scene`; styles ``knoll`` and ``jumbo`` in turn, every other pair
    tilted), truth the cards with an index readable (:func:`vision.synth.hands.index_truth`)."""
    from vision.synth.artset import find_style
    from vision.synth.hands import hands_scene, index_truth
    from vision.synth.scene import render
    from vision.synth.tables import background_textures

    textures = background_textures(art_dir)
    styles = ("knoll", "jumbo")
    found = {s: find_style("playing", s, art_dir) for s in styles}
    for k in range(hands):
        style = styles[k % 2]
        r = render(hands_scene(seed + k, "playing", (style,), (1280, 720), textures, tilted=bool(k // 2 % 2)),
                   {style: found[style]})
        yield r.image, index_truth(r.labels, (1280, 720))


def tune(rec, real_dir: Path, fraction: float = 0.1, target: float = 0.995, conf_min: float = 0.0,
         turns_max: int = max(TURNS_GRID), hands: int = 0, art_dir: str | None = None) -> dict:
    """Index thresholds that maximise the mean per-image F1 over the held-out train photographs.

    ``conf_min`` and ``turns_max`` narrow the grid to detector confidences of at least ``conf_min``
    and to at most ``turns_max`` views per index (a cheaper reader: fewer index crops per frame, fewer
    views of each); ValueError when that leaves no value.

    Every held-out image is recognised once per ``TURNS_GRID`` value (index detector at the lowest
    ``CONF_GRID`` value), then each combination of detector confidence, ``min_prob``, turns,
    ``unread_min`` and (with rank and suit classifiers) ``factor_weight``
    (:data:`FACTOR_WEIGHT_GRID`) re-merges the same readings (``close_px`` 0), then
    ``unread_min`` is lowered as far as :data:`UNREAD_MIN_TOLERANCE` allows, then ``split_prob`` is
    chosen from :data:`SPLIT_PROB_GRID` with the rest fixed, then
    ``close_px`` is raised as far as :data:`CLOSE_PX_TOLERANCE` allows; ``unsure_below`` is then the :func:`~vision.recognise.classifier.sure_threshold` of the
    index-named cards' confidences at ``target`` precision.

    With ``hands``, that many rendered tables of fanned and spread hands (:func:`hands_cases`) are
    read as the recogniser reads them (in tiles where ``index.tiles`` says so); with the values above
    fixed, the ``tile_*`` values (``min_prob`` from 0.1 and :data:`MIN_PROB_GRID`, ``split_prob``,
    ``factor_weight``) are those of the best mean per-image F1 on them, and ``tile_unsure_below`` the
    sure threshold of their index-named cards. The photographs alone choose the rest.
    """
    from vision.evaluate.recognition import image_f1
    from vision.recognise.classifier import sure_threshold
    from vision.recognise.index_reader import INDEX_FRACTION, merge, mix, needs_reading
    from vision.recognise.index_tiles import tiles_for
    from vision.recognise.manifest import IndexParams, for_tiles

    if rec.index_reader is None:
        raise ValueError(f"{rec.manifest.folder}: no index_detector/index_classifier to tune (train ship --index)")
    confs = tuple(c for c in CONF_GRID if c >= conf_min)
    turns_grid = tuple(t for t in TURNS_GRID if t <= turns_max)
    if not confs or not turns_grid:
        raise ValueError(f"no detector confidence of the grid {CONF_GRID} from {conf_min}, or no view count of "
                         f"{TURNS_GRID} up to {turns_max}")
    real_dir = real_dir.resolve()
    rec.index_reader.detector.conf = min(confs)
    weights = FACTOR_WEIGHT_GRID if rec.index_reader.has_factors else (0.0,)
    ir = rec.index_reader

    def case(frame: np.ndarray, truth: set, table: bool, close_px: float) -> tuple:
        cards, _ = rec.whole_cards([frame])
        size = (frame.shape[1], frame.shape[0])
        origins = tiles_for(size, ir.detector.size, cards[0], close_px, INDEX_FRACTION) if rec.index_params.tiles else []
        tiled = bool(origins)
        readings = {}
        for turns in turns_grid:
            ir.turns = turns
            dets, joint, factor = ir.read_tiled_parts(frame, origins) if tiled else ir.read_parts([frame])
            for fw in weights:
                readings[turns, fw] = ir.readings(dets, mix(joint, factor, fw))[0]
        return truth, cards[0], readings, 1.0 if tiled else ir.scale(frame), table, tiled

    cases = [case(frame, truth, False, rec.index_params.close_px)
             for _, frame, truth in photo_truths(real_dir, held_out=fraction)]
    if not cases:
        raise ValueError(f"no held-out photographs at fraction {fraction} in {real_dir}")

    def run(conf: float, params: IndexParams, table: bool = False) -> tuple[float, list]:
        """Mean per-image F1 and the index-named cards' (confidence, right) of the photographs, or
        with ``table`` of the rendered tables (read as ``for_tiles(params)`` where tiled)."""
        f1s, named = [], []
        for truth, cards, readings, scale, is_table, tiled in cases:
            if is_table != table:
                continue
            p = for_tiles(params) if tiled else params
            read = readings[p.turns, p.factor_weight] if tiled or needs_reading(cards, scale, p) else []
            merged = merge(cards, [r for r in read if r.score >= conf], rec.index_reader.names, p, scale, trust_sure=tiled)
            up = [c for c in merged if c.face_up and c.card_ids]
            f1s.append(image_f1(truth, {c.card_ids[0] for c in up})[3])
            named += [(c.confidence, c.card_ids[0] in truth) for c in up if c.named_by == "index"]
        return float(np.mean(f1s)) if f1s else 0.0, named

    def sure_from(named: list) -> float:
        return sure_threshold(np.array([c for c, _ in named]), np.array([r for _, r in named]), target) if named else 1.0

    skip = rec.index_params.skip_unreadable  # kept as the manifest has it (chosen on validation scenes: docs/decisions.md)
    tiles = rec.index_params.tiles  # likewise: the held-out photographs are close-ups, read whole
    grid = [(c, IndexParams(m, turns=t, unread_min=u, factor_weight=fw, skip_unreadable=skip, tiles=tiles))
            for c in confs for m in MIN_PROB_GRID for t in turns_grid for u in UNREAD_MIN_GRID for fw in weights]
    # ties go to the reader without the rank and suit classifiers (factor_weight 0)
    f1, conf, params = max(((run(c, p)[0], c, p) for c, p in grid), key=lambda x: (x[0], x[2].factor_weight == 0))
    lower = sorted(u for u in UNREAD_MIN_GRID if u < params.unread_min)
    f1, unread_min = first_within(lower, lambda u: run(conf, replace(params, unread_min=u))[0], f1,
                                  UNREAD_MIN_TOLERANCE, params.unread_min)
    params = replace(params, unread_min=unread_min)
    f1, params = max(((run(conf, q)[0], q) for q in (replace(params, split_prob=s) for s in SPLIT_PROB_GRID)),
                     key=lambda x: x[0])
    f1, close_px = first_within(sorted(CLOSE_PX_GRID, reverse=True),
                                lambda px: run(conf, replace(params, close_px=px))[0], f1, CLOSE_PX_TOLERANCE,
                                params.close_px)
    params = replace(params, close_px=close_px)
    params = replace(params, unsure_below=round(sure_from(run(conf, params)[1]), 4))
    # the tables are read as the recogniser will read them: tiled or not by the close_px just chosen
    # (a freshly shipped reader has none yet: `train ship --index` drops the old thresholds)
    cases += [case(frame, truth, True, params.close_px) for frame, truth in hands_cases(hands, art_dir=art_dir)]
    tile = {}
    if any(c[5] for c in cases):  # the tiled frames' own min_prob, split_prob and factor weight, then unsure_below
        tgrid = [replace(params, tile_min_prob=m, tile_split_prob=sp, tile_factor_weight=fw)
                 for m in (0.1, *MIN_PROB_GRID) for sp in SPLIT_PROB_GRID for fw in weights]
        table_f1, params = max(((run(conf, q, table=True)[0], q) for q in tgrid),
                               key=lambda x: (x[0], x[1].tile_factor_weight == 0))
        params = replace(params, tile_unsure_below=round(sure_from(run(conf, params, table=True)[1]), 4))
        tile = {"tile_min_prob": params.tile_min_prob, "tile_split_prob": params.tile_split_prob,
                "tile_factor_weight": params.tile_factor_weight, "tile_unsure_below": params.tile_unsure_below,
                "tables_f1": round(table_f1, 4)}
    rec.index_reader.turns = params.turns
    rec.index_reader.factor_weight = params.factor_weight
    return {"conf": conf, "min_prob": params.min_prob, "turns": params.turns,
            "unread_min": params.unread_min, "close_px": params.close_px,
            "split_prob": params.split_prob, "factor_weight": params.factor_weight, "skip_unreadable": params.skip_unreadable,
            "tiles": params.tiles, **tile,
            "unsure_below": params.unsure_below, "target": target, "per_image_f1": round(f1, 4),
            "images": sum(not c[4] for c in cases), "hands": hands,
            "fraction": fraction, "conf_min": conf_min, "turns_max": turns_max}


def write_index(rec, result: dict) -> None:
    """Store the tuned thresholds in the recogniser's manifest (``index``; the detector's ``conf`` too)."""
    import json

    path = rec.manifest.folder / "manifest.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["index_detector"]["conf"] = result["conf"]
    doc["index"] = {k: v for k, v in result.items() if k != "conf"}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


INDEX_REGION = {"jumbo": (0.0, 0.0, 0.28, 0.34), "knoll": (0.0, 0.0, 0.17, 0.24)}
"""Where each shipped playing-card style prints its top-left index, as fractions of the face
(x0, y0, x1, y1); the index box is the ink found inside it (:func:`art_index_box`)."""


def art_index_box(face: np.ndarray, region: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """The bounding box (px) of the ink inside ``region`` of a BGR(A) face: pixels at least 60 levels
    away, in some channel, from the region's median colour (the card's paper)."""
    h, w = face.shape[:2]
    x0, y0, x1, y1 = (int(round(v)) for v in (region[0] * w, region[1] * h, region[2] * w, region[3] * h))
    patch = face[y0:y1, x0:x1, :3].astype(np.int16)
    paper = np.median(patch.reshape(-1, 3), axis=0)
    ink = (np.abs(patch - paper) >= 60).any(axis=2)
    ink[: max(1, int(0.01 * h))] = False  # the printed border line, if any
    ink[:, : max(1, int(0.01 * w))] = False
    ys, xs = np.nonzero(ink)
    if not len(xs):
        raise ValueError("no index ink in the region")
    return (x0 + xs.min() - 1.0, y0 + ys.min() - 1.0, x0 + xs.max() + 2.0, y0 + ys.max() + 2.0)


def art_crops(styles: tuple[str, ...], out_train: Path, side: int = 64, copies: int = 10, seed: int = 0,
              art_dir: str | None = None) -> int:
    """Write ``copies`` disturbed index crops per corner of each card face (jokers and backs left out)
    of ``styles`` into ``out_train/<card id>/``; returns the number written.

    A face is laid on a random table colour, its index square cut at a random angle, scale and
    shift (as :func:`crop_dataset`), then lit (gain 0.6-1.3, offset ±30), blurred (σ ≤ 1.2 px),
    noised (σ ≤ 8 levels) and JPEG-compressed (quality 40-95) like a webcam frame.
    """
    from vision.synth.artset import find_style, load_face

    rng = np.random.default_rng(seed)
    cards = set(real_name_to_card_id().values()) - {BACK_NAME, "JOKER-BLACK", "JOKER-RED"}
    n = 0
    for name in styles:
        style = find_style("playing", name, art_dir)
        region = INDEX_REGION.get(name)
        if region is None:
            raise ValueError(f"no index region known for playing style {name!r} ({', '.join(INDEX_REGION)})")
        for card in (c for c in style.ids if c in cards):
            face = load_face(style.path(card), 480)
            for turn, img in enumerate((face, face[::-1, ::-1])):
                box = art_index_box(img, region)
                h, w = img.shape[:2]
                pad = int(0.3 * h)
                canvas = np.empty((h + 2 * pad, w + 2 * pad, 3), np.uint8)
                alpha = img[..., 3:4].astype(np.float32) / 255.0
                face_part = img[..., :3] * alpha
                for j in range(copies):
                    canvas[:] = rng.integers(0, 256, 3, dtype=np.uint8)
                    area = canvas[pad:pad + h, pad:pad + w]
                    area[:] = (face_part + area * (1 - alpha)).astype(np.uint8)
                    b = (box[0] + pad, box[1] + pad, box[2] + pad, box[3] + pad)
                    sq = index_square(b, angle=rng.uniform(0, 360), scale=rng.normal(1.0, 0.08),
                                      shift=rng.normal(0.0, 0.05, 2))
                    crop = square_crop(canvas, sq, side).astype(np.float32)
                    crop = crop * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
                    sigma = rng.uniform(0, 1.2)
                    if sigma > 0.3:
                        crop = cv2.GaussianBlur(crop, (0, 0), sigma)
                    crop = np.clip(crop + rng.normal(0, rng.uniform(0, 8), crop.shape), 0, 255).astype(np.uint8)
                    ok, enc = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
                    folder = out_train / card
                    folder.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(folder / f"art_{name}_{card}_{turn}_{j}.png"), cv2.imdecode(enc, cv2.IMREAD_COLOR))
                    n += 1
    return n
