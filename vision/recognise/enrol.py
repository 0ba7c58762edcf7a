"""Deck enrolment: photographs of the user's deck laid out in the enrolment grid → a deck profile.

Each photo must show a whole deck in :func:`vision.enrol_grid.enrol_grid` order, seen from above.
The detector finds the cards; their centres are turned square to the grid (the main axis of the
centres is the row direction), split into rows where the gap between centres jumps, and each row
sorted left to right. A photo taken from the other side of the grid reads as the grid turned
180°; both readings are tried and the one the classifier agrees with more is kept. Every card
then gives several reference embeddings: its crop both ways up, with small disturbances of its
outline as the detector will give it, and under play conditions (other light, blur, noise, another
card covering one side). A linear head over the enrolled classes is fitted to those references
(:func:`vision.recognise.profile.fit_head`) and saved with them.

What goes wrong is said plainly: a row with a card too many or too few, a photo without the grid.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import half_turn, jitter_polygon, square_crop
from vision.enrol_grid import GRID_COLUMNS, GRID_ROWS, GridCell, enrol_grid
from vision.recognise.profile import DeckProfile, fit_head
from vision.recognise.recogniser import Recogniser
from vision.synth.classes import class_of

COPIES = 6
"""Disturbed crops per card and way up."""
JITTER = 0.015
AUGMENTED = 10
"""Crops per card and way up that also get play conditions: light, blur, noise, a covering card."""


def play_conditions(crop: np.ndarray, rng: np.random.Generator, cover: np.ndarray | None = None) -> np.ndarray:
    """``crop`` as it may look during play: other light (gain, offset, colour cast), some blur and
    noise, and often another card covering one side (20-55 % of the face)."""
    out = crop.astype(np.float32)
    out = out * rng.uniform(0.7, 1.25) + rng.uniform(-30, 30) + rng.normal(0, 8, 3)
    sigma = rng.uniform(0, 1.5)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out += rng.normal(0, rng.uniform(0, 6), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        side = out.shape[0]
        k = int(side * rng.uniform(0.2, 0.55))
        patch = cover if cover is not None else np.full_like(out, rng.integers(0, 255, 3, dtype=np.uint8))
        edge = int(rng.integers(4))
        if edge == 0:
            out[:k] = patch[-k:]
        elif edge == 1:
            out[-k:] = patch[:k]
        elif edge == 2:
            out[:, :k] = patch[:, -k:]
        else:
            out[:, -k:] = patch[:, :k]
    return out


@dataclass(frozen=True, slots=True)
class EnrolledPhoto:
    """What one photo gave."""

    photo: str
    cards: int
    agreed: int
    """Cards the classifier already named right before enrolment."""
    turned: bool
    """The grid was read turned 180° (photo taken from the far side)."""


def _rows(centres: np.ndarray, heights: np.ndarray) -> list[np.ndarray]:
    """Indices of ``centres`` grouped into rows (top to bottom), each sorted left to right."""
    c = centres - centres.mean(axis=0)
    _, _, vt = np.linalg.svd(c, full_matrices=False)
    axis = vt[0] if abs(vt[0, 0]) >= abs(vt[0, 1]) else vt[1]
    if axis[0] < 0:
        axis = -axis
    normal = np.array([-axis[1], axis[0]])
    along, across = c @ axis, c @ normal
    order = np.argsort(across)
    gap = 0.5 * float(np.median(heights))
    rows, current = [], [order[0]]
    for a, b in zip(order[:-1], order[1:], strict=True):
        if across[b] - across[a] > gap:
            rows.append(np.array(current))
            current = []
        current.append(b)
    rows.append(np.array(current))
    return [r[np.argsort(along[r])] for r in rows]


def assign_grid(polygons: Sequence[np.ndarray], deck: str, extras: bool) -> list[tuple[GridCell, int]]:
    """(grid cell, polygon index) pairs for the cards of one grid photo; ValueError if it is not the grid."""
    cells = enrol_grid(deck, extras)
    cols = GRID_COLUMNS[deck]
    if len(polygons) < GRID_ROWS * cols:
        raise ValueError(f"found {len(polygons)} cards, the {deck} grid has {len(cells)}: "
                         f"is the whole deck in the photo, face up, {cols} columns × {GRID_ROWS} rows?")
    centres = np.array([np.mean(p, axis=0) for p in polygons])
    heights = np.array([max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[1])) for p in polygons])
    rows = _rows(centres, heights)
    main = [r for r in rows if len(r) >= cols - 1]
    counts = ", ".join(str(len(r)) for r in rows)
    if len(main) != GRID_ROWS or any(len(r) != cols for r in main):
        raise ValueError(f"expected {GRID_ROWS} rows of {cols} cards, found rows of {counts} cards")
    first = rows.index(main[0])
    extra_rows = [r for i, r in enumerate(rows) if i < first or i > first + GRID_ROWS - 1]
    by_cell = {(c.row, c.column): c for c in cells}
    pairs = [(by_cell[(ri, ci)], int(idx)) for ri, r in enumerate(main) for ci, idx in enumerate(r)]
    extra_cells = [c for c in cells if c.row >= GRID_ROWS]
    if extra_cells:
        found = [int(i) for r in extra_rows for i in r]
        if len(found) != len(extra_cells):
            raise ValueError(f"expected {len(extra_cells)} extra cards ({', '.join(c.card_id for c in extra_cells)}) "
                             f"below the grid, found {len(found)}")
        found.sort(key=lambda i: centres[i, 0])
        pairs += list(zip(extra_cells, found, strict=True))
    elif extra_rows:
        raise ValueError(f"found {sum(len(r) for r in extra_rows)} cards outside the {cols} × {GRID_ROWS} grid "
                         "(rows of " + counts + "); use --extras for the blank or jokers")
    return pairs


def _turned(pairs: list[tuple[GridCell, int]], deck: str, extras: bool) -> list[tuple[GridCell, int]]:
    """The same photo read as the grid turned 180° (main grid only; extras keep their reading)."""
    cols = GRID_COLUMNS[deck]
    by_cell = {(c.row, c.column): c for c in enrol_grid(deck, extras)}
    out = []
    for cell, idx in pairs:
        if cell.row < GRID_ROWS:
            out.append((by_cell[(GRID_ROWS - 1 - cell.row, cols - 1 - cell.column)], idx))
        else:
            out.append((cell, idx))
    return out


def enrol(recogniser: Recogniser, photos: Sequence[str | Path], extras: bool = False,
          seed: int = 0) -> tuple[DeckProfile, list[EnrolledPhoto]]:
    """A deck profile from grid photos (file paths); ValueError naming the photo and the problem."""
    deck = recogniser.deck
    names = recogniser.classifier.names
    index = {n: i for i, n in enumerate(names)}
    rng = np.random.default_rng(seed)
    embeddings, labels, report = [], [], []
    side = recogniser.classifier.side
    for photo in photos:
        frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError(f"{photo}: not an image OpenCV can read")
        polys = recogniser.outlines(frame, recogniser.detector.detect([frame])[0])
        try:
            pairs = assign_grid(polys, deck, extras)
        except ValueError as e:
            raise ValueError(f"{photo}: {e}") from None
        crops = recogniser.classifier.crops(frame, [polys[i] for _, i in pairs])
        probs = recogniser.classifier.classify(crops).probs
        readings = {False: pairs, True: _turned(pairs, deck, extras)}
        agree = {t: sum(names[int(np.argmax(probs[k]))] == class_of(cell.card_id, True, deck) for k, (cell, _) in enumerate(r))
                 for t, r in readings.items()}
        turned = agree[True] > agree[False]
        pairs = readings[turned]
        for k, (cell, i) in enumerate(pairs):
            label = index[class_of(cell.card_id, True, deck)]
            base = polys[i]
            variants = []
            for way in (base, half_turn(base)):
                variants.append(square_crop(frame, way, side))
                variants += [square_crop(frame, jitter_polygon(way, rng, JITTER), side) for _ in range(COPIES)]
                for _ in range(AUGMENTED):
                    cover = None  # often another card of the grid covers a side
                    if len(crops) > 1 and rng.random() < 0.7:
                        j = int(rng.integers(len(crops)))
                        cover = crops[j] if j != k else None
                    variants.append(play_conditions(square_crop(frame, jitter_polygon(way, rng, JITTER), side),
                                                    rng, cover))
            emb = recogniser.classifier.classify(variants).embeddings
            embeddings.append(emb)
            labels += [label] * len(emb)
        report.append(EnrolledPhoto(str(photo), len(pairs), int(agree[turned]), turned))
    meta = {"photos": [str(p) for p in photos], "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "extras": extras, "copies": COPIES, "jitter": JITTER,
            "augmented": AUGMENTED}
    emb = np.concatenate(embeddings).astype(np.float32)
    lab = np.array(labels, np.int32)
    profile = DeckProfile(deck, recogniser.classifier_sha256(), names, emb, lab, meta,
                          fit_head(emb, lab, len(names), seed=seed))
    return profile, report
