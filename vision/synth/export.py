"""Ultralytics datasets from rendered scenes: detect or OBB labels, classification crops, truth JSON.

Layout under the output directory (``<seed>`` zero-padded to 9 digits)::

    data.yaml                       ultralytics dataset file (absolute ``path``)
    synth.json                      what was rendered: deck, styles, seeds, class scheme, counts
    images/<split>/<seed>.jpg|png   the image (JPEG quality 95 by default)
    labels/<split>/<seed>.txt       detect: ``class cx cy w h``; OBB: ``class x1 y1 … x4 y4`` (0..1)
    truth/<split>/<seed>.json       full labels (:class:`vision.synth.labels.SceneLabels`)
    crops/<split>/<class>/<seed>_<z>.png   rectified cards (``--crops``; an ultralytics
                                    classification dataset: ``data=<out>/crops``)

Splits are a function of the scene seed alone (:func:`split_of`): seed mod 10 = 0-7 train, 8 val,
9 test. A scene therefore lands in the same split whatever ``--seed``/``--count`` produced it, so
datasets rendered with overlapping seed ranges can be merged without leaking a scene between splits.

A card is labelled for detection when at least ``min_visible`` of it is seen (default 0.25);
classification crops need ``crop_min_visible`` (default 0.5). Class names: :mod:`vision.synth.classes`.
"""

from __future__ import annotations

import json
import multiprocessing
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import half_turn, jitter_polygon, square_crop
from vision.synth.artset import ArtStyle, find_style
from vision.synth.cardfaces import CARD_SIZE_MM
from vision.synth.classes import class_names, class_of
from vision.synth.clutter import with_clutter
from vision.synth.labels import SceneLabels
from vision.synth.scene import render, sample_scene
from vision.synth.tables import background_textures

SPLITS = ("train", "val", "test")
CROP_HEIGHT = 160
"""Height (px) of classification crops; width follows the card's aspect."""


def split_of(seed: int) -> str:
    """The split of the scene rendered from ``seed``: mod 10 = 0-7 train, 8 val, 9 test."""
    r = int(seed) % 10
    return "train" if r < 8 else "val" if r == 8 else "test"


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    """What ``synth dataset`` renders."""

    deck: str
    styles: tuple[str, ...]
    out: str
    count: int = 100
    seed: int = 0
    """First scene seed; scenes use seeds ``seed`` … ``seed + count − 1``."""
    size: tuple[int, int] = (640, 640)
    art_dir: str | None = None
    obb: bool = False
    crops: bool = False
    classes: str = "recognition"
    min_visible: float = 0.25
    crop_min_visible: float = 0.5
    crop_side: int = 0
    """0: crops upright at :data:`CROP_HEIGHT` px tall, exact polygons. Above 0: classifier crops
    (:func:`vision.cardcrop.square_crop`) of this side, from polygons disturbed by ``crop_jitter``
    and turned a half-turn at random, ``crop_copies`` per card."""
    crop_copies: int = 1
    crop_jitter: float = 0.0
    clutter: float = 0.0
    """Share of scenes (drawn per seed) with one to five things that are not cards laid where no card
    lies (:func:`vision.synth.clutter.with_clutter`: coasters, card boxes printed with card art, rule
    sheets, dice, glasses, cups, phones), left unlabelled: the detector learns they are table."""
    image_format: str = "jpg"
    """``jpg`` (quality 95; encodes about 20× faster than PNG here) or ``png`` (lossless)."""
    workers: int = 1


def rectify(image: np.ndarray, polygon, size: tuple[int, int]) -> np.ndarray:
    """The card inside ``polygon`` (4 × 2 px, face top-left first) warped upright to ``size`` (w, h)."""
    w, h = size
    src = np.asarray(polygon, np.float32).reshape(4, 2)
    dst = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def crop_size(deck: str, height: int = CROP_HEIGHT) -> tuple[int, int]:
    """(w, h) of a rectified crop of a ``deck`` card ``height`` pixels tall."""
    w_mm, h_mm = CARD_SIZE_MM[deck]
    return round(height * w_mm / h_mm), height


def _clip_polygon(poly: np.ndarray, w: int, h: int) -> np.ndarray:
    """Sutherland-Hodgman clip of a convex polygon to the image rectangle."""
    pts = [tuple(p) for p in poly]
    for axis, limit, keep_less in ((0, 0.0, False), (0, w - 1.0, True), (1, 0.0, False), (1, h - 1.0, True)):
        out = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            inside_c = cur[axis] <= limit if keep_less else cur[axis] >= limit
            inside_p = prev[axis] <= limit if keep_less else prev[axis] >= limit
            if inside_c != inside_p:
                t = (limit - prev[axis]) / (cur[axis] - prev[axis])
                out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
            if inside_c:
                out.append(cur)
        pts = out
        if not pts:
            return np.zeros((0, 2))
    return np.array(pts)


def label_lines(labels: SceneLabels, names: tuple[str, ...], scheme: str, obb: bool, min_visible: float) -> list[str]:
    """Ultralytics label lines (normalised 0..1) for the cards seen at least ``min_visible``: axis
    boxes, or oriented boxes (``obb``)."""
    w, h = labels.size
    index = {n: i for i, n in enumerate(names)}
    lines = []
    for c in labels.cards:
        if c.visible < min_visible:
            continue
        cls = index[class_of(c.card_id, c.face_up, labels.deck, scheme)]
        x0, y0, x1, y1 = c.box
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        if not obb:
            lines.append(f"{cls} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
            continue
        poly = np.array(c.polygon, np.float64)
        if (poly < 0).any() or (poly[:, 0] > w - 1).any() or (poly[:, 1] > h - 1).any():
            # Ultralytics rejects coordinates outside the image: keep the seen part's rotated box.
            clipped = _clip_polygon(poly, w, h)
            if len(clipped) < 3:
                continue
            poly = cv2.boxPoints(cv2.minAreaRect(clipped.astype(np.float32))).astype(np.float64)
            poly[:, 0] = poly[:, 0].clip(0, w - 1)
            poly[:, 1] = poly[:, 1].clip(0, h - 1)
        coords = " ".join(f"{x / w:.6f} {y / h:.6f}" for x, y in poly)
        lines.append(f"{cls} {coords}")
    return lines


def data_yaml(out: Path, names: tuple[str, ...], comment: str) -> str:
    """The text of an ultralytics ``data.yaml`` (absolute path; names quoted)."""
    lines = [f"# {comment}", f"path: {json.dumps(str(out.resolve()))}", "train: images/train",
             "val: images/val", "test: images/test", f"nc: {len(names)}", "names:"]
    lines += [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    return "\n".join(lines) + "\n"


_STATE: dict = {}


def _init(spec: DatasetSpec) -> None:
    _STATE["spec"] = spec
    _STATE["styles"] = {s: find_style(spec.deck, s, spec.art_dir) for s in spec.styles}
    _STATE["textures"] = background_textures(spec.art_dir)
    _STATE["names"] = class_names(spec.deck, spec.classes)


def render_one(seed: int) -> tuple[str, int, int]:
    """Render scene ``seed`` and write its files; returns (split, labelled cards, crops)."""
    spec: DatasetSpec = _STATE["spec"]
    out = Path(spec.out)
    scene = sample_scene(seed, spec.deck, spec.styles, spec.size, _STATE["textures"])
    if spec.clutter > 0:
        rng = np.random.default_rng([seed, 29])
        if rng.random() < spec.clutter:
            scene = with_clutter(scene, rng, int(rng.integers(1, 6)))
    r = render(scene, _STATE["styles"])
    split = split_of(seed)
    stem = f"{seed:09d}"
    params = [cv2.IMWRITE_PNG_COMPRESSION, 1] if spec.image_format == "png" else [cv2.IMWRITE_JPEG_QUALITY, 95]
    cv2.imwrite(str(out / "images" / split / f"{stem}.{spec.image_format}"), r.image, params)
    (out / "truth" / split / f"{stem}.json").write_text(r.labels.to_json(), encoding="utf-8")
    lines = label_lines(r.labels, _STATE["names"], spec.classes, spec.obb, spec.min_visible)
    (out / "labels" / split / f"{stem}.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    n_crops = 0
    if spec.crops:
        size = crop_size(spec.deck)
        rng = np.random.default_rng([seed, 7])
        for c in r.labels.cards:
            if c.visible < spec.crop_min_visible:
                continue
            name = class_of(c.card_id, c.face_up, spec.deck, spec.classes)
            folder = out / "crops" / split / name
            folder.mkdir(parents=True, exist_ok=True)
            if not spec.crop_side:
                crops = {f"{stem}_{c.z:03d}": rectify(r.image, c.polygon, size)}
            else:
                crops = {}
                for k in range(max(1, spec.crop_copies)):
                    poly = jitter_polygon(c.polygon, rng, spec.crop_jitter) if spec.crop_jitter else c.polygon
                    if rng.random() < 0.5:
                        poly = half_turn(poly)
                    crops[f"{stem}_{c.z:03d}_{k}"] = square_crop(r.image, poly, spec.crop_side)
            for file, crop in crops.items():
                cv2.imwrite(str(folder / f"{file}.png"), crop, [cv2.IMWRITE_PNG_COMPRESSION, 1])
                n_crops += 1
    return split, len(lines), n_crops


def write_dataset(spec: DatasetSpec) -> dict:
    """Render ``spec.count`` scenes into ``spec.out``; returns the summary also written to synth.json."""
    if spec.count < 1:
        raise ValueError("--count must be at least 1")
    if spec.image_format not in ("png", "jpg"):
        raise ValueError(f"unknown image format {spec.image_format!r}; expected png or jpg")
    names = class_names(spec.deck, spec.classes)  # validates deck and scheme early
    for s in spec.styles:
        find_style(spec.deck, s, spec.art_dir)
    out = Path(spec.out)
    for kind in ("images", "labels", "truth"):
        for split in SPLITS:
            (out / kind / split).mkdir(parents=True, exist_ok=True)
    if spec.crops:
        for split in SPLITS:
            (out / "crops" / split).mkdir(parents=True, exist_ok=True)
    seeds = range(spec.seed, spec.seed + spec.count)
    counts = {s: {"images": 0, "labels": 0, "crops": 0} for s in SPLITS}
    if spec.workers > 1:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        with ctx.Pool(spec.workers, initializer=_init, initargs=(spec,)) as pool:
            results = list(pool.imap(render_one, seeds, chunksize=4))
    else:
        _init(spec)
        results = [render_one(s) for s in seeds]
    for split, n_labels, n_crops in results:
        counts[split]["images"] += 1
        counts[split]["labels"] += n_labels
        counts[split]["crops"] += n_crops
    task = "obb" if spec.obb else "detect"
    (out / "data.yaml").write_text(
        data_yaml(out, names, f"fudaba synthetic {spec.deck} {task} dataset, seeds {spec.seed}-{spec.seed + spec.count - 1}"),
        encoding="utf-8",
    )
    summary = {
        "spec": {**asdict(spec), "out": str(out.resolve())},
        "task": task,
        "split_rule": "seed mod 10: 0-7 train, 8 val, 9 test",
        "names": list(names),
        "counts": counts,
    }
    (out / "synth.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def load_styles(deck: str, names: tuple[str, ...], art_dir: str | None) -> dict[str, ArtStyle]:
    """Styles by name (shipped, or from ``art_dir``)."""
    return {n: find_style(deck, n, art_dir) for n in names}
