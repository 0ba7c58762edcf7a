"""The datasets a training run reads: rendered scenes, the real playing-card photos, merged files.

Layout under a run's ``data/`` folder (all paths written into dataset files are absolute, because
ultralytics resolves a relative ``path:`` against its own settings dir):

    data/synth/          a ``vision.synth`` dataset (``synth.json`` records deck, styles, seeds)
    data/real/images/train/*.jpg   symlinks to the real photos (never copies: they stay in shared/)
    data/real/labels/train/*.txt   their labels, class indices rewritten to the run's class names
    data/data.yaml       the detect/OBB dataset file training reads (train: rendered + real)

The real photos (``shared/datasets/playing-real``) label the printed corner indices (rank and suit),
not whole cards, under their own class names; ``scorer/data/playing.csv`` (column
``cardcounterml_name``) maps those to card ids. Only their train split is merged: the val split is
kept out of training and model selection, for measuring (bench/recognition.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from vision.synth.export import SPLITS, DatasetSpec, write_dataset
from vision.synth.real_faces import real_name_to_card_id

DEFAULT_STYLES = {"hanafuda": ("mantia",), "playing": ("knoll", "jumbo")}
"""Art styles shipped in the package, used when no ``--style`` is given."""

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")


@dataclass(frozen=True, slots=True)
class RenderRequest:
    """A synthetic dataset to render for a run (see ``vision.synth.export.DatasetSpec``)."""

    deck: str
    count: int
    """Number of scenes; scene seeds ``seed`` … ``seed + count − 1``, split by seed mod 10."""
    seed: int
    size: int
    """Square image side (px)."""
    task: str
    """``detect``, ``obb`` or ``classify`` (classify renders rectified crops too)."""
    classes: str
    """Class scheme: ``recognition``, ``ids`` or ``card``."""
    styles: tuple[str, ...]
    art_dir: str | None = None
    workers: int = 1
    crop_side: int = 0
    """Classify: 0 for upright exact crops, else square classifier crops of this side (jittered, turned)."""
    crop_copies: int = 1
    crop_jitter: float = 0.0
    crop_min_visible: float = 0.5
    clutter: float = 0.0
    """Share of scenes with things that are not cards beside the cards (``DatasetSpec.clutter``)."""


def render(req: RenderRequest, out: Path) -> dict:
    """Render ``req`` into ``out``; returns the renderer's summary (also in ``out/synth.json``)."""
    spec = DatasetSpec(
        deck=req.deck, styles=req.styles, out=str(out), count=req.count, seed=req.seed,
        size=(req.size, req.size), art_dir=req.art_dir, obb=req.task == "obb",
        crops=req.task == "classify", classes=req.classes, workers=max(1, req.workers),
        crop_side=req.crop_side, crop_copies=req.crop_copies, crop_jitter=req.crop_jitter,
        crop_min_visible=req.crop_min_visible, clutter=req.clutter,
    )
    return write_dataset(spec)


def read_names(data_yaml: Path) -> tuple[str, ...]:
    """Class names of an ultralytics ``data.yaml`` (a list or an index → name mapping), in index order."""
    names = yaml.safe_load(data_yaml.read_text(encoding="utf-8"))["names"]
    if isinstance(names, dict):
        return tuple(names[i] for i in sorted(names))
    return tuple(names)


def real_class_map(real_names: tuple[str, ...], names: tuple[str, ...]) -> dict[int, int]:
    """Real class index → run class index, by card id; raises ValueError when a card has no class.

    The ``card`` scheme (``card``/``BACK``) has no identities, and whole-card boxes are not corner
    indices, so real photos cannot be merged into it.
    """
    to_id = real_name_to_card_id()
    index = {n: i for i, n in enumerate(names)}
    out = {}
    for i, name in enumerate(real_names):
        card = to_id.get(name)
        if card is None:
            raise ValueError(f"real class {name!r} is not in scorer/data/playing.csv")
        if card not in index:
            raise ValueError(f"real class {name!r} (card {card}) has no class among {len(names)} run classes "
                             f"({', '.join(names[:3])}, …): merge real photos into the 'ids' or "
                             "'recognition' scheme")
        out[i] = index[card]
    return out


def _corner_label(parts: list[str], cls: int, obb: bool) -> str:
    """One label line with class ``cls``; an axis box becomes its four corners for OBB."""
    if not obb:
        return " ".join([str(cls), *parts[1:5]])
    cx, cy, w, h = (float(v) for v in parts[1:5])
    x0, y0, x1, y1 = max(0.0, cx - w / 2), max(0.0, cy - h / 2), min(1.0, cx + w / 2), min(1.0, cy + h / 2)
    return f"{cls} {x0:.6f} {y0:.6f} {x1:.6f} {y0:.6f} {x1:.6f} {y1:.6f} {x0:.6f} {y1:.6f}"


def link_real(real_dir: Path, names: tuple[str, ...], out: Path, obb: bool = False) -> dict:
    """Link the real train photos into ``out/images/train`` with relabelled copies of their labels.

    Returns ``{"dir", "photos", "images", "labels"}``: ``photos`` counts distinct photographs (the file
    name before ``.rf.``; the rest are augmented copies of them).
    """
    real_dir = real_dir.resolve()
    mapping = real_class_map(read_names(real_dir / "data.yaml"), names)
    images_out, labels_out = out / "images" / "train", out / "labels" / "train"
    images_out.mkdir(parents=True, exist_ok=True)
    labels_out.mkdir(parents=True, exist_ok=True)
    n_images = n_labels = 0
    photos = set()
    for img in sorted((real_dir / "images" / "train").iterdir()):
        if img.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        link = images_out / img.name
        if not link.is_symlink():
            os.symlink(img, link)
        lines = []
        src = real_dir / "labels" / "train" / f"{img.stem}.txt"
        if src.is_file():
            for line in src.read_text(encoding="utf-8").splitlines():
                parts = line.split()
                if len(parts) == 5:
                    lines.append(_corner_label(parts, mapping[int(parts[0])], obb))
        (labels_out / f"{img.stem}.txt").write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
        n_images += 1
        n_labels += len(lines)
        photos.add(img.name.split(".rf.")[0])
    return {"dir": str(real_dir), "photos": len(photos), "images": n_images, "labels": n_labels}


def detect_yaml(path: Path, names: tuple[str, ...], train: list[Path], val: list[Path], comment: str) -> Path:
    """Write an ultralytics detect/OBB dataset file listing absolute image folders; returns ``path``."""
    doc = {
        "train": [str(p.resolve()) for p in train],
        "val": [str(p.resolve()) for p in val],
        "nc": len(names),
        "names": dict(enumerate(names)),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {comment}\n" + yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def dataset_yaml(data: Path) -> Path:
    """The ``data.yaml`` of a detect/OBB dataset given as a folder or as the file itself."""
    path = data / "data.yaml" if data.is_dir() else data
    if not path.is_file():
        raise ValueError(f"no ultralytics dataset file at {path}")
    return path


def split_dirs(data_yaml: Path, split: str) -> list[Path]:
    """Absolute image folders (or list files) of ``split`` in an ultralytics dataset file."""
    doc = yaml.safe_load(data_yaml.read_text(encoding="utf-8"))
    root = Path(doc.get("path") or data_yaml.parent)
    if not root.is_absolute():
        root = data_yaml.parent / root
    entries = doc.get(split) or []
    return [(root / e).resolve() for e in ([entries] if isinstance(entries, str) else entries)]


def classify_root(data: Path, names: tuple[str, ...] | None = None) -> Path:
    """The classification folder (``train/<class>/…``) of ``data``: itself, or its rendered ``crops/``.

    With ``names``, every class gets a folder in every split, so that ultralytics (which takes the
    class list from ``train/``'s folders) sees the same classes whatever a small render happened to hold.
    """
    root = data / "crops" if (data / "crops" / "train").is_dir() else data
    if not (root / "train").is_dir():
        raise ValueError(f"no classification dataset at {data} (expected train/<class>/ or crops/train/<class>/)")
    for split in SPLITS if names else ():
        for n in names:
            (root / split / n).mkdir(parents=True, exist_ok=True)
    return root


def synth_summary(data: Path) -> dict | None:
    """The renderer's ``synth.json`` for a dataset folder (or one above a ``crops/`` folder), if any."""
    for folder in (data, data.parent):
        f = folder / "synth.json"
        if f.is_file():
            return json.loads(f.read_text(encoding="utf-8"))
    return None
