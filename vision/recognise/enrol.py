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
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.cardcrop import half_turn, jitter_polygon, square_crop
from vision.enrol_grid import GRID_COLUMNS, GRID_ROWS, GridCell, enrol_grid
from vision.recognise.classifier import sure_threshold
from vision.recognise.detector import Detection
from vision.recognise.duplicates import kept_apart, overlap
from vision.recognise.geometry import match
from vision.recognise.profile import DeckProfile, absent_classes, blend, fit_head
from vision.recognise.recogniser import CARD_ASPECT, Recogniser
from vision.synth.artset import find_style
from vision.synth.classes import class_of
from vision.synth.scene import render, sample_scene

COPIES = 6
"""Disturbed crops per card and way up."""
JITTER = 0.015
AUGMENTED = 10
"""Crops per card and way up that also get play conditions: light, blur, noise, a covering card."""
PRACTICE_SCENES = 300
"""Practice scenes rendered with the enrolled faces (about 13 cards seen in each)."""
PRACTICE_SEED = 90_000_000
"""First practice-scene seed; practice seeds are ≡ 0 (mod 10), never a test-split seed (≡ 9)."""
CALIBRATION_EVERY = 5
"""Every fifth practice scene is kept out of the head's fit to set the profile's unsure threshold."""
PRACTICE_MIN_VISIBLE = 0.3
"""Least visible fraction of a practice card used as a reference."""
FACE_HEIGHT = 320
"""Height (px) of a face cut from a grid photo."""
HEAD_STEPS, HEAD_L2 = 1500, 1e-5
"""Fitting of the profile's head (:func:`fit_head`): chosen on practice-style scenes of seeds outside the test split."""


def _network_scores(recogniser: Recogniser):
    """Crops → (calibrated probabilities, embeddings) of the recogniser's classifier alone (no profile)."""
    def score(crops):
        sc = recogniser.classifier.classify(crops)
        return sc.probs, sc.embeddings
    return score


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
    first = next(i for i, r in enumerate(rows) if r is main[0])
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


def grid_faces(frame: np.ndarray, faces: Sequence[tuple[str, np.ndarray]], deck: str) -> dict[str, np.ndarray]:
    """Each card's face cut from a grid photo: ``faces`` are (card id, outline listed from the
    face's top-left as far as the grid tells); returns card id → BGRA face, :data:`FACE_HEIGHT`
    tall, opaque. A card laid in the grid upside down gives its face upside down: practice scenes
    turn cards every way, and the classifier reads both ways up, so it does not matter."""
    h = FACE_HEIGHT
    w = int(round(h * CARD_ASPECT[deck]))
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    out = {}
    for card_id, poly in faces:
        m = cv2.getPerspectiveTransform(np.float32(poly).reshape(4, 2), dst)
        face = cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[card_id] = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    return out


def save_faces(faces: dict[str, np.ndarray], folder: Path) -> None:
    """Write faces as an art style folder (``<card id>.png``, :mod:`vision.synth.artset`)."""
    folder.mkdir(parents=True, exist_ok=True)
    for card_id, face in faces.items():
        cv2.imwrite(str(folder / f"{card_id}.png"), face)


@dataclass(frozen=True, slots=True)
class Practice:
    """What the classifier made of the enrolled cards in rendered practice scenes."""

    embeddings: np.ndarray
    """(N, D) normalised embeddings."""
    labels: np.ndarray
    """(N,) true class indices."""
    probs: np.ndarray
    """(N, classes) the network's calibrated probabilities."""
    scenes: np.ndarray
    """(N,) the practice scene (0 …) each card was seen in."""


def practice(recogniser: Recogniser, faces: Sequence[dict[str, np.ndarray]], scenes: int = PRACTICE_SCENES,
             seed: int = 0, textures: tuple[str, ...] = ()) -> Practice:
    """The enrolled cards as the recogniser sees them in ``scenes`` rendered practice scenes.

    Each dict of ``faces`` (card id → BGRA face, one per photo) is an art style; every scene draws
    one of them. Cards are found by the recogniser's own detector and outlined as at run time;
    a detection matched to a face-up card at least :data:`PRACTICE_MIN_VISIBLE` visible gives
    one reference labelled with that card's class. ``textures``: table texture files (none: plain
    tables, as a user without an art directory has).
    """
    deck = recogniser.deck
    index = {n: i for i, n in enumerate(recogniser.classifier.names)}
    enrolled = {class_of(cid, True, deck) for f in faces for cid in f}
    embeddings, labels, probs, seen = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="fudaba-enrol-") as tmp:
        names = []
        for k, style_faces in enumerate(faces):
            save_faces(style_faces, Path(tmp) / deck / f"enrolled-{k}")
            names.append(f"enrolled-{k}")
        styles = {n: find_style(deck, n, tmp) for n in names}
        for k in range(scenes):
            r = render(sample_scene(PRACTICE_SEED + 10 * (k + 100_000 * seed), deck, tuple(names),
                                    textures=textures), styles)
            dets = recogniser.detector.detect([r.image])[0]
            truth = [c for c in r.labels.cards if c.face_up and c.visible >= PRACTICE_MIN_VISIBLE
                     and class_of(c.card_id, True, deck) in enrolled]
            pairs = [(t, i) for t, i in zip(truth, match([d.box for d in dets], truth), strict=True) if i is not None]
            if not pairs:
                continue
            _, p, e = recogniser.named_outlines(r.image, dets, _network_scores(recogniser))
            rows = [i for _, i in pairs]
            embeddings.append(e[rows])
            probs.append(p[rows])
            labels += [index[class_of(t.card_id, True, deck)] for t, _ in pairs]
            seen += [k] * len(pairs)
    if not embeddings:
        n = len(recogniser.classifier.names)
        return Practice(np.zeros((0, 0), np.float32), np.zeros(0, np.int32), np.zeros((0, n)), np.zeros(0, np.int32))
    return Practice(np.concatenate(embeddings).astype(np.float32), np.array(labels, np.int32),
                    np.concatenate(probs), np.array(seen, np.int32))


@dataclass(frozen=True, slots=True, eq=False)
class GridReading:
    """One grid photo read: which outline holds which card."""

    photo: str
    frame: np.ndarray
    cells: tuple[tuple[GridCell, np.ndarray], ...]
    """(grid cell, outline in the frame listed from the face's top-left as far as the grid tells)."""
    agreed: int
    """Cards the classifier already named right."""
    turned: bool
    """The grid was read turned 180° (photo taken from the far side)."""

    def faces(self, deck: str) -> dict[str, np.ndarray]:
        """Card id → BGRA face cut from the photo (:func:`grid_faces`)."""
        return grid_faces(self.frame, [(cell.card_id, poly) for cell, poly in self.cells], deck)


GRID_MIN_SCORE = 0.5
"""Least detector confidence of a card in a grid photo (cards laid out whole score about 0.8-0.9)."""
GRID_MAX_OVERLAP = 0.3
"""Share of the smaller box above which two detections in a grid photo are one card: the cards of
a grid lie apart, so a second rectangle over a card is the same card (part of it, or it and a
neighbour's edge) found again."""


def apart(detections: Sequence[Detection]) -> list[Detection]:
    """``detections`` less any that overlaps a surer one by more than :data:`GRID_MAX_OVERLAP` of the
    smaller box, in the order given."""
    return kept_apart(detections, lambda d: d.score, lambda d, k: overlap(d.box, k.box) > GRID_MAX_OVERLAP)


def read_grid(recogniser: Recogniser, photo: str | Path, extras: bool = False) -> GridReading:
    """The cards of one grid photo; ValueError naming the photo and the problem."""
    deck = recogniser.deck
    names = recogniser.classifier.names
    frame = cv2.imread(str(photo), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(f"{photo}: not an image OpenCV can read")
    # a grid photo shows every card whole: faint detections (a sliver at the frame's edge) are not its cards
    dets = apart([d for d in recogniser.detector.detect([frame])[0] if d.score >= GRID_MIN_SCORE])
    polys, all_probs, _ = recogniser.named_outlines(frame, dets, _network_scores(recogniser))
    try:
        pairs = assign_grid(polys, deck, extras)
    except ValueError as e:
        raise ValueError(f"{photo}: {e}") from None
    probs = all_probs[[i for _, i in pairs]] if pairs else all_probs[:0]
    readings = {False: pairs, True: _turned(pairs, deck, extras)}
    agree = {t: sum(names[int(np.argmax(probs[k]))] == class_of(cell.card_id, True, deck) for k, (cell, _) in enumerate(r))
             for t, r in readings.items()}
    turned = agree[True] > agree[False]
    # the outlines run from the top-left of the grid as photographed: of the face, unless turned
    cells = tuple((cell, half_turn(polys[i]) if turned else np.asarray(polys[i], np.float64))
                  for cell, i in readings[turned])
    return GridReading(str(photo), frame, cells, int(agree[turned]), turned)


def enrol(recogniser: Recogniser, photos: Sequence[str | Path], extras: bool = False, seed: int = 0,
          practice_scenes: int | None = None, absent: Sequence[str] = ()) -> tuple[DeckProfile, list[EnrolledPhoto]]:
    """A deck profile from grid photos (file paths); ValueError naming the photo and the problem.

    ``practice_scenes``: scenes rendered with the photographed faces to fit the head on (None:
    :data:`PRACTICE_SCENES`; 0: the head is fitted to the photos' own references only). The
    profile belongs to the recogniser's current classifier (a fine-tuned one included). Every crop
    is classified both ways up (the manifest's ``turn_below`` set aside), as recognition with a
    profile does (:meth:`Recogniser.probabilities`). ``absent``: classes the deck does not have
    (the blank, the jokers), which recognition with the profile lowers.
    """
    with recogniser.classifier.turning_every_crop():
        return _enrol(recogniser, photos, extras, seed, practice_scenes, absent)


def _enrol(recogniser: Recogniser, photos: Sequence[str | Path], extras: bool, seed: int,
           practice_scenes: int | None, absent: Sequence[str] = ()) -> tuple[DeckProfile, list[EnrolledPhoto]]:
    practice_scenes = PRACTICE_SCENES if practice_scenes is None else practice_scenes
    deck = recogniser.deck
    names = recogniser.classifier.names
    index = {n: i for i, n in enumerate(names)}
    rng = np.random.default_rng(seed)
    embeddings, labels, report, faces = [], [], [], []
    side = recogniser.classifier.side
    for photo in photos:
        grid = read_grid(recogniser, photo, extras)
        frame = grid.frame
        faces.append(grid.faces(deck))
        crops = recogniser.classifier.crops(frame, [poly for _, poly in grid.cells])
        for k, (cell, base) in enumerate(grid.cells):
            label = index[class_of(cell.card_id, True, deck)]
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
        report.append(EnrolledPhoto(str(photo), len(grid.cells), grid.agreed, grid.turned))
    emb = np.concatenate(embeddings).astype(np.float32)
    lab = np.array(labels, np.int32)
    meta = {"photos": [str(p) for p in photos], "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "extras": extras, "copies": COPIES, "jitter": JITTER, "augmented": AUGMENTED,
            "practice_scenes": practice_scenes, "practice_references": 0,
            "absent": absent_classes(names, absent, [names[i] for i in np.unique(lab)])}
    seen = practice(recogniser, faces, practice_scenes, seed) if practice_scenes > 0 else None
    if seen is not None and not len(seen.labels):
        seen = None  # the detector found none of the cards in the practice scenes
    fit_on = np.zeros(0, bool) if seen is None else seen.scenes % CALIBRATION_EVERY != CALIBRATION_EVERY - 1
    p_emb = emb[:0] if seen is None else seen.embeddings[fit_on]
    p_lab = lab[:0] if seen is None else seen.labels[fit_on]
    meta["practice_references"] = len(p_lab)
    head = fit_head(np.concatenate([emb, p_emb]), np.concatenate([lab, p_lab]), len(names), steps=HEAD_STEPS,
                    l2=HEAD_L2, seed=seed)
    # the saved references are the photos' own (the practice ones only shape the head: they are many)
    profile = DeckProfile(deck, recogniser.classifier_sha256(), names, emb, lab, meta, head,
                          recogniser.classifier_file if recogniser.classifier_tuned else None)
    if seen is not None and (~fit_on).any():
        profile = replace(profile, meta={**meta, **calibrate_unsure(
            recogniser, profile, seen.embeddings[~fit_on], seen.probs[~fit_on], seen.labels[~fit_on])})
    return profile, report


def calibrate_unsure(recogniser: Recogniser, profile: DeckProfile, embeddings: np.ndarray, probs: np.ndarray,
                     labels: np.ndarray) -> dict:
    """``unsure_below`` for recognition with ``profile``: the :func:`sure_threshold` of its blended
    confidences on practice cards its head was not fitted to, at the manifest's calibration target."""
    sims, temperature = profile.class_scores(embeddings)
    p = blend(probs, sims, profile.enrolled, recogniser.profile_weight, temperature or recogniser.profile_tau)
    conf, right = p.max(axis=1), p.argmax(axis=1) == labels
    target = recogniser.manifest.calibration.target
    threshold = sure_threshold(conf, right, target)
    return {"unsure_below": round(threshold, 4), "calibration": {
        "cards": int(len(labels)), "accuracy": round(float(right.mean()), 4), "target": target,
        "sure_fraction": round(float((conf >= threshold).mean()), 4)}}
