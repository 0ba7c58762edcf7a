"""Card faces cut from real photographs: a renderer style with real print, wear and light.

The shared set ``playing-real`` (CC BY 4.0) labels the two printed corner indices of each card in
its photographs (YOLO boxes, class = the card), not the card's outline. A face is cut where both
indices of one card are labelled:

1. of the photograph's copies (the set holds several photometrically disturbed copies of each
   photograph, same geometry) the one in colour with the least speckle noise is read;
2. the card's outline is a convex quadrilateral among the photograph's contours (of a bright card
   on a darker table, a dark card on a lighter one, or the edges) that holds both index boxes, with
   the two indices in opposite corners (a playing card prints them top left and bottom right);
3. the quadrilateral is rectified to the card's 63 × 88 mm shape with one index corner top left
   (up to a half turn, which a playing card does not show), and kept only where each index box then
   lies close to its corner's edges, taller than wide (rank over suit), as printed, and the card's
   margin is plain (:func:`border_spread`);
4. of the faces of one card the one with most pixels is kept.

The faces are written as ``<out>/playing/<style>/png/<card id>.png`` (BGRA, rounded corners), the
art-directory layout :mod:`vision.synth.artset` reads with ``--art-dir``, with ``faces.csv`` (the
photograph each face is cut from) and ``ATTRIBUTION.md``. A style lacking a card cannot render a
game that deals it; :func:`cut_faces` reports which ids are missing.
"""

from __future__ import annotations

import csv
import re
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import PLAYING
from vision.synth.artset import ArtStyle
from vision.synth.cardfaces import CARD_SIZE_MM, rounded_alpha

FACE_HEIGHT = 480
"""Height (px) of a written face: the renderer's largest level of detail."""
STYLE = "real"
"""Style name the faces are written under."""
CORNER_RADIUS_MM = 3.0
"""Radius of a playing card's rounded corners."""
INDEX_MARGIN = (0.14, 0.11)
"""A rectified index box starts within these fractions of the card's width and height of its top-left
corner (a printed index sits 3-5 mm in from the edges)."""
INDEX_HEIGHT = (0.08, 0.30)
"""A rectified index box is this share of the card's height (the labels box rank and suit together)."""
BORDER_SPREAD = 22.0
"""A face whose margin varies more than this (grey levels, :func:`border_spread`) is not kept: its
outline took in table or missed the card's edge."""


@dataclass(frozen=True, slots=True)
class IndexBox:
    """One labelled corner index: the card id and its box (x0, y0, x1, y1) in image pixels."""

    card_id: str
    box: tuple[float, float, float, float]

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


@dataclass(frozen=True, slots=True)
class Face:
    """A rectified face: the card, the image (BGRA, :data:`FACE_HEIGHT` tall), the photograph it
    was cut from and the card's area there (px², the measure of detail)."""

    card_id: str
    image: np.ndarray
    source: str
    area: float


def dataset_names(data_yaml: Path) -> list[str]:
    """The class names of a YOLO ``data.yaml`` (its ``names:`` list)."""
    text = data_yaml.read_text(encoding="utf-8")
    m = re.search(r"^names:\s*\[(.*?)\]", text, re.M | re.S)
    if m is None:
        raise ValueError(f"{data_yaml}: no 'names: [...]' list")
    return [n.strip().strip("'\"") for n in m.group(1).split(",") if n.strip()]


def real_name_to_card_id() -> dict[str, str]:
    """The real dataset's class names → card ids, from ``scorer/data/playing.csv`` (column
    ``cardcounterml_name``)."""
    text = resources.files("scorer").joinpath("data/playing.csv").read_text(encoding="utf-8")
    return {row["cardcounterml_name"]: row["id"] for row in csv.DictReader(text.splitlines())
            if row["cardcounterml_name"]}


def read_boxes(label: Path, names: Sequence[str], ids: dict[str, str], size: tuple[int, int]) -> list[IndexBox]:
    """The labelled indices of one image (YOLO text, normalised centre and size) in pixels; backs
    and names with no card id are left out."""
    w, h = size
    out = []
    for line in label.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        k = int(parts[0])
        card = ids.get(names[k]) if 0 <= k < len(names) else None
        if card is None:
            continue
        cx, cy, bw, bh = (float(v) for v in parts[1:])
        out.append(IndexBox(card, ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)))
    return out


def speckle(image: np.ndarray) -> float:
    """Share of pixels far (> 40 grey levels) from their 3 × 3 median: salt-and-pepper noise."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return float(np.mean(cv2.absdiff(grey, cv2.medianBlur(grey, 3)) > 40))


def colourfulness(image: np.ndarray) -> float:
    """Mean difference between colour channels (0 for a grey image)."""
    b, g, r = (image[..., k].astype(np.int16) for k in range(3))
    return float(np.mean(np.abs(b - g)) + np.mean(np.abs(g - r)))


def best_copy(images: Sequence[Path]) -> Path:
    """Of a photograph's copies, one in colour (where any is) with the least speckle."""
    scored = []
    for p in images:
        img = cv2.imread(str(p))
        if img is None:
            continue
        scored.append((colourfulness(img) < 2.0, speckle(img), str(p), p))
    if not scored:
        raise ValueError(f"none of {[str(p) for p in images]} can be read")
    return min(scored)[3]


def _clockwise(quad: np.ndarray) -> np.ndarray:
    """The four points ordered clockwise as seen in the image (y down), starting anywhere."""
    c = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    return quad[np.argsort(angles)]


def candidate_quads(image: np.ndarray) -> list[np.ndarray]:
    """Convex quadrilaterals (4 × 2 float, clockwise) among the image's contours: of the bright
    regions (Otsu), the dark ones and the closed edges."""
    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    edges = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((3, 3), np.uint8))
    masks = [bright, 255 - bright, edges]
    area_min = 0.01 * image.shape[0] * image.shape[1]
    quads = []
    for mask in masks:
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        for cnt in contours:
            if cv2.contourArea(cnt) < area_min:
                continue
            hull = cv2.convexHull(cnt)
            peri = cv2.arcLength(hull, True)
            for eps in (0.02, 0.04, 0.06):
                approx = cv2.approxPolyDP(hull, eps * peri, True)
                if len(approx) == 4 and cv2.isContourConvex(approx):
                    quad = _clockwise(approx.reshape(4, 2).astype(np.float64))
                    quads.append(_fit_sides(quad, cnt.reshape(-1, 2).astype(np.float64)))
                    break
    return quads


def _fit_sides(quad: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``quad``'s corners moved to where straight lines fitted to the contour ``points`` along its
    four sides meet: a card's rounded corners pull a polygon's corners inwards. The quad as it was
    where a side has too few points."""
    lines = []
    for k in range(4):
        p, q = quad[k], quad[(k + 1) % 4]
        d = q - p
        length = float(np.linalg.norm(d))
        if length < 1:
            return quad
        u = d / length
        along = (points - p) @ u
        across = np.abs((points - p) @ np.array([-u[1], u[0]]))
        near = points[(along > 0.15 * length) & (along < 0.85 * length) & (across < max(3.0, 0.03 * length))]
        if len(near) < 10:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + t[0] * d1)
    fitted = np.array(out)
    return fitted if np.max(np.linalg.norm(fitted - quad, axis=1)) < 0.2 * np.sqrt(cv2.contourArea(quad.astype(np.float32))) else quad


def _inside(quad: np.ndarray, point: tuple[float, float]) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), point, False) >= 0


def _rectifier(quad: np.ndarray, top_left: int, size: tuple[int, int]) -> np.ndarray:
    """The homography taking ``quad`` (clockwise) with corner ``top_left`` to a ``size`` (w, h) card."""
    w, h = size
    src = np.roll(quad, -top_left, axis=0).astype(np.float32)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    return cv2.getPerspectiveTransform(src, dst)


def _index_as_printed(homography: np.ndarray, box: tuple[float, float, float, float], size: tuple[int, int]) -> bool:
    """Whether ``box`` (image px) maps to the card's top-left corner, taller than wide, as tall as
    a printed index (:data:`INDEX_HEIGHT` of the card)."""
    x0, y0, x1, y1 = box
    pts = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), homography)[0]
    w, h = size
    bw, bh = np.ptp(pts[:, 0]), np.ptp(pts[:, 1])
    x0, y0 = pts.min(axis=0)
    return bool(-INDEX_MARGIN[0] * w <= x0 <= INDEX_MARGIN[0] * w and -INDEX_MARGIN[1] * h <= y0 <= INDEX_MARGIN[1] * h
                and bh > bw and INDEX_HEIGHT[0] * h <= bh <= INDEX_HEIGHT[1] * h)


def border_spread(face: np.ndarray) -> float:
    """Standard deviation (grey levels) of a rectified face's margin, a band from 2 to 5 % of its
    width in from each edge along the middle half of each side (clear of the corner indices): plain
    card stock on a card, table and shadow where the outline is wrong."""
    grey = cv2.cvtColor(face[..., :3], cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = grey.shape
    a, b = max(1, round(0.02 * w)), max(2, round(0.05 * w))
    band = np.concatenate([grey[a:b, w // 4:3 * w // 4].ravel(), grey[h - b:h - a, w // 4:3 * w // 4].ravel(),
                           grey[h // 4:3 * h // 4, a:b].ravel(), grey[h // 4:3 * h // 4, w - b:w - a].ravel()])
    return float(band.std())


def cut_card(image: np.ndarray, a: IndexBox, b: IndexBox, quads: Iterable[np.ndarray]) -> tuple[np.ndarray, float] | None:
    """The face of the card whose two indices are ``a`` and ``b`` (BGRA, :data:`FACE_HEIGHT`
    tall) and its area in the photograph, from the smallest quadrilateral that fits (both indices in
    opposite corners as printed) with a plain margin; None when none does."""
    w_mm, h_mm = CARD_SIZE_MM[PLAYING]
    size = (round(FACE_HEIGHT * w_mm / h_mm), FACE_HEIGHT)
    fits = []
    for quad in quads:
        if not (_inside(quad, a.centre) and _inside(quad, b.centre)):
            continue
        ka = int(np.argmin(np.linalg.norm(quad - np.array(a.centre), axis=1)))
        kb = int(np.argmin(np.linalg.norm(quad - np.array(b.centre), axis=1)))
        if (ka - kb) % 4 != 2:
            continue
        hom = _rectifier(quad, ka, size)
        if not (_index_as_printed(hom, a.box, size)
                and _index_as_printed(_rectifier(quad, kb, size), b.box, size)):
            continue
        fits.append((cv2.contourArea(quad.astype(np.float32)), hom))
    for fit_area, hom in sorted(fits, key=lambda f: f[0]):
        face = cv2.warpPerspective(image, hom, size, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)
        if border_spread(face) <= BORDER_SPREAD:
            area = fit_area
            break
    else:
        return None
    out = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    out[..., 3] = rounded_alpha(size[1], size[0], size[1] * CORNER_RADIUS_MM / h_mm)
    return out, float(area)


def faces_of_photograph(image_path: Path, boxes: Sequence[IndexBox], source: str) -> list[Face]:
    """Every face that can be cut from one photograph (cards with exactly two labelled indices)."""
    by_card: dict[str, list[IndexBox]] = {}
    for box in boxes:
        by_card.setdefault(box.card_id, []).append(box)
    pairs = {c: bs for c, bs in by_card.items() if len(bs) == 2}
    if not pairs:
        return []
    image = cv2.imread(str(image_path))
    if image is None:
        return []
    quads = candidate_quads(image)
    out = []
    for card, (a, b) in sorted(pairs.items()):
        cut = cut_card(image, a, b, quads)
        if cut is not None:
            out.append(Face(card, cut[0], source, cut[1]))
    return out


def photographs(root: Path, split: str) -> dict[str, list[Path]]:
    """A split's images grouped by photograph (the file name before ``.rf.``)."""
    groups: dict[str, list[Path]] = {}
    for p in sorted((root / "images" / split).glob("*.jpg")):
        groups.setdefault(p.name.split(".rf.")[0], []).append(p)
    return groups


@dataclass(frozen=True, slots=True)
class CutReport:
    """What :func:`cut_faces` did: photographs read, faces cut, the card ids cut from a photograph,
    those no photograph gave, and those of them copied from the fill style."""

    photographs: int
    faces: int
    written: tuple[str, ...]
    missing: tuple[str, ...]
    filled: tuple[str, ...]


def style_names(style: str, variants: int) -> list[str]:
    """The styles :func:`cut_faces` writes: ``style``, then ``style-2`` … ``style-N``."""
    return [style] + [f"{style}-{k}" for k in range(2, variants + 1)]


def cut_faces(real: Path, out: Path, splits: Sequence[str] = ("train",),
              style: str = STYLE, fill: ArtStyle | None = None, variants: int = 1) -> CutReport:
    """Cut the faces of the photographs of ``real`` (a ``playing-real`` folder) and write them as
    the style ``style`` under the art directory ``out`` (module docstring): each card's face with
    most pixels. With ``variants`` N > 1 also the styles ``style-2`` … ``style-N``: the k-th style
    takes each card's k-th face by pixels, or its last where the photographs gave fewer, so
    training scenes can show each card as several photographs caught it. A card no photograph
    gives is copied from ``fill`` (a printed style) where it is given, so each style can deal a
    whole deck; ``faces.csv`` says which faces are copies."""
    names = dataset_names(real / "data.yaml")
    ids = real_name_to_card_id()
    faces: dict[str, list[Face]] = {}
    count = cut = 0
    for split in splits:
        for copies in photographs(real, split).values():
            count += 1
            chosen = best_copy(copies)
            label = real / "labels" / split / (chosen.stem + ".txt")
            if not label.exists():
                continue
            img = cv2.imread(str(chosen))
            if img is None:
                continue
            boxes = read_boxes(label, names, ids, (img.shape[1], img.shape[0]))
            for face in faces_of_photograph(chosen, boxes, f"{split}/{chosen.name}"):
                cut += 1
                faces.setdefault(face.card_id, []).append(face)
    for card in faces:
        faces[card].sort(key=lambda f: -f.area)
    every = [c for c in sorted(set(ids.values())) if c != "BACK"]
    missing = tuple(c for c in every if c not in faces)
    filled = tuple(c for c in missing if fill is not None and fill.path(c) is not None)
    for k, name in enumerate(style_names(style, variants)):
        folder = out / PLAYING / name / "png"
        folder.mkdir(parents=True, exist_ok=True)
        rows = []
        for card, cut_of_card in sorted(faces.items()):
            face = cut_of_card[min(k, len(cut_of_card) - 1)]
            cv2.imwrite(str(folder / f"{card}.png"), face.image)
            rows.append([card, face.source, round(face.area)])
        for card in filled:
            shutil.copyfile(fill.path(card), folder / f"{card}.png")
            rows.append([card, f"copied from the {fill.name} style (no photograph gave it)", ""])
        with (out / PLAYING / name / "faces.csv").open("w", encoding="utf-8", newline="") as f:
            csv.writer(f).writerows([["id", "photograph", "area_px"], *rows])
        (out / PLAYING / name / "ATTRIBUTION.md").write_text(
            "Faces cut from the photographs of shared/datasets/playing-real (faces.csv names each one's\n"
            "photograph), rectified by `fudaba synth real-faces`. Licence: CC BY 4.0 — attribute\n"
            '"cadyzedevelopmenthub via Roboflow Universe" (the photographs\' source, see that folder\'s\n'
            "ATTRIBUTION.md) wherever these faces, or images or models made with them, are published.\n"
            + (f"Faces faces.csv marks as copied are the {fill.name} style's, under that style's licence.\n"
               if filled else ""),
            encoding="utf-8")
    return CutReport(count, cut, tuple(sorted(faces)), missing, filled)
