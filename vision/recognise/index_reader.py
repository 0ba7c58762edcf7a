"""Playing cards by their printed corner index (rank over suit), as a player reads a fanned hand.

Two more networks, trained on the real photographs (:mod:`vision.train.corners`): a one-class
detector of corner indices and a classifier of square crops around each index
(:func:`vision.cardcrop.index_square`, read at any angle), optionally with a pair of classifiers
of the same crops that read the rank and the suit apart (:func:`factor_probs`, mixed in by
:func:`mix` at ``factor_weight``: each of their classes has 4 or 13 times the examples a card has).
Their readings are merged with the whole-card recognition (:func:`merge`):

- a reading whose centre lies inside a whole card's outline belongs to that card (to the card
  with a corner nearest to it, when outlines overlap: an index sits in a corner); a card with
  readings is named from them alone — the product of the readings' probabilities; confident
  readings inside one outline that name different cards are different cards (``split_prob``: an
  outline round a fanned hand), the outline keeping the name most of them give;
- the remaining readings name cards seen only by a corner (``index_only``): readings with the
  same card id are one card, outlined by the index box; a reading naming a card already named in
  the frame (by an index, or sure) is taken for that card's other corner (one deck holds each card
  once), and of two cards of one name whose boxes overlap, the less confident is dropped (the same
  card found twice); an unsure whole-card guess of a name a corner-only card has is dropped.

``min_prob`` drops readings the classifier is unsure of (a pip or a picture taken for an index);
``unsure_below`` is the confidence under which an index-named card is marked unsure. These
come from ``train index-tune`` on held-out train photographs and live in the manifest's ``index``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.cardcrop import index_square, square_crop
from vision.recognise.cards import RecognisedCard
from vision.recognise.classifier import CardClassifier
from vision.recognise.detector import CardDetector
from vision.recognise.duplicates import one_of_each
from vision.recognise.manifest import IndexParams

VIEW_ANGLES = (0.0, 45.0)
"""Angles (degrees) index squares are cut at when :attr:`IndexReader.turns` is 8."""
INDEX_FRACTION = 0.2
"""A card's index is taken to be this fraction of its long side tall."""
PLAYING_LONG_MM = 88.0
"""A playing card's long side (mm)."""
INDEX_PX_NEEDED = 24.0
"""How tall (px at the frame's own resolution) a corner index must show for the reader to read it
reliably, measured by ``bench/index_size.py`` on the real photographs' val split
(docs/decisions.md, "Playing cards want a 1080p camera")."""


JOKER_SUIT = "JOKER"
"""The suit classifier's class of the two jokers (which print no suit)."""


def card_factors(card: str) -> tuple[str, str]:
    """``(rank, suit)`` of a playing-card id as the factor classifiers name them: ``"10C"`` → ``("10", "C")``;
    a joker is its own rank with the suit :data:`JOKER_SUIT`. ValueError for an id that is neither."""
    if card.startswith("JOKER-"):
        return card, JOKER_SUIT
    rank, suit = card[:-1], card[-1:]
    if suit not in "CDHS" or rank not in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        raise ValueError(f"{card!r} is not a playing-card id (rank A-K then suit C, D, H or S, or JOKER-…)")
    return rank, suit


def factor_probs(rank_probs: np.ndarray, rank_names: Sequence[str], suit_probs: np.ndarray,
                 suit_names: Sequence[str], card_names: Sequence[str]) -> np.ndarray:
    """P(card) ∝ P(rank) · P(suit) over ``card_names`` (rows: one crop each), from the factor classifiers."""
    r = {n: i for i, n in enumerate(rank_names)}
    s = {n: i for i, n in enumerate(suit_names)}
    ri, si = zip(*((r[a], s[b]) for a, b in (card_factors(c) for c in card_names)), strict=True)
    p = np.asarray(rank_probs)[:, list(ri)] * np.asarray(suit_probs)[:, list(si)]
    return p / np.clip(p.sum(axis=1, keepdims=True), 1e-12, None)


@dataclass(frozen=True, slots=True, eq=False)
class IndexReading:
    """One corner index found and read in a frame."""

    box: tuple[float, float, float, float]
    """x0, y0, x1, y1 (frame px) of the index."""
    score: float
    """Detector confidence."""
    probs: np.ndarray
    """Classifier probabilities over the index classifier's names (card ids)."""

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


def mix(joint: np.ndarray, factor: np.ndarray | None, weight: float) -> np.ndarray:
    """``joint`` (rows of the 54-way index classifier's probabilities) mixed in log space with
    ``factor`` (:func:`factor_probs` over the same names) at ``weight``; ``joint`` itself at 0."""
    if factor is None or weight <= 0 or len(joint) == 0:
        return joint
    logp = (1 - weight) * np.log(np.clip(joint, 1e-9, 1.0)) + weight * np.log(np.clip(factor, 1e-9, 1.0))
    p = np.exp(logp - logp.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


class IndexReader:
    """Finds and reads the corner indices in frames."""

    def __init__(self, detector: CardDetector, classifier: CardClassifier, turns: int = 1,
                 rank: CardClassifier | None = None, suit: CardClassifier | None = None,
                 factor_weight: float = 0.0) -> None:
        self.detector = detector
        self.classifier = classifier
        self.turns = turns
        """Views per index, their probabilities averaged: 1 once as cut; 2 or 4 also the crop turned
        by 90°, 180° …; 8 the four quarter turns of the square as cut and of the same square cut
        turned by 45° (:data:`VIEW_ANGLES`), so no view of a slanted index is far from upright."""
        if (rank is None) != (suit is None):
            raise ValueError("the rank and suit index classifiers come as a pair")
        if rank is not None and suit is not None and {rank.side, suit.side} != {classifier.side}:
            raise ValueError(f"the rank and suit index classifiers read {rank.side}/{suit.side}-px crops, "
                             f"the index classifier {classifier.side}-px ones: all three must read the same crops")
        self.rank = rank
        """Classifier of the rank an index prints (A-K, and each joker as its own rank), or None."""
        self.suit = suit
        """Classifier of the suit an index prints (C, D, H, S, or JOKER), or None."""
        self.factor_weight = factor_weight if rank is not None else 0.0
        """:func:`mix` weight of the rank × suit reading (0 without the factor classifiers)."""

    @property
    def names(self) -> tuple[str, ...]:
        return self.classifier.names

    @property
    def has_factors(self) -> bool:
        return self.rank is not None

    def read(self, frames: Sequence[np.ndarray]) -> list[list[IndexReading]]:
        """The corner indices of each frame, each with its class probabilities."""
        dets, joint, factor = self.read_parts(frames, factors=self.factor_weight > 0)
        return self.readings(dets, mix(joint, factor, self.factor_weight))

    def read_tiled(self, frame: np.ndarray, origins: Sequence[tuple[int, int]],
                   factor_weight: float | None = None) -> list[IndexReading]:
        """The corner indices found in tiles of the detector's input size cut from ``frame`` at its own
        resolution, their top-left corners at ``origins`` (:func:`vision.recognise.index_tiles.tile_origins`);
        an index found in two tiles is kept once (the detector's own IoU rule over the whole frame);
        ``factor_weight`` in place of :attr:`factor_weight` when given."""
        fw = self.factor_weight if factor_weight is None or self.rank is None else factor_weight
        dets, joint, factor = self.read_tiled_parts(frame, origins, factors=fw > 0)
        return self.readings(dets, mix(joint, factor, fw))[0]

    def read_tiled_parts(self, frame: np.ndarray, origins: Sequence[tuple[int, int]], factors: bool = True):
        """:meth:`read_parts` of one frame read in tiles (:meth:`read_tiled`)."""
        t = self.detector.size
        h, w = frame.shape[:2]
        if h < t or w < t:
            frame = cv2.copyMakeBorder(frame, 0, max(0, t - h), 0, max(0, t - w), cv2.BORDER_REPLICATE)
        found = self.detector.detect([frame[y:y + t, x:x + t] for x, y in origins])
        dets = [replace(d, box=(d.box[0] + x, d.box[1] + y, d.box[2] + x, d.box[3] + y))
                for (x, y), ds in zip(origins, found, strict=True) for d in ds
                if d.box[0] < w - x and d.box[1] < h - y]
        if dets:
            xywh = [[d.box[0], d.box[1], d.box[2] - d.box[0], d.box[3] - d.box[1]] for d in dets]
            keep = cv2.dnn.NMSBoxes(xywh, [float(d.score) for d in dets], 0.0, self.detector.iou)
            dets = [dets[int(i)] for i in np.asarray(keep).reshape(-1)]
        return self.read_found([frame], [dets], factors)

    def read_parts(self, frames: Sequence[np.ndarray], factors: bool = True):
        """``(detections per frame, 54-way probabilities, rank × suit probabilities or None)`` of the
        indices in ``frames``, one row per detection in frame order (views averaged)."""
        return self.read_found(frames, self.detector.detect(frames), factors)

    def read_found(self, frames: Sequence[np.ndarray], dets, factors: bool = True):
        """:meth:`read_parts` of indices already found: ``dets``, the detections of each frame."""
        side = self.classifier.side
        angles = VIEW_ANGLES if self.turns > 4 else VIEW_ANGLES[:1]
        crops = {a: [square_crop(f, index_square(d.box, angle=a), side)
                     for f, ds in zip(frames, dets, strict=True) for d in ds] for a in angles}
        joint = np.mean([self.probabilities(crops[a]) for a in angles], axis=0)
        factor = None
        if factors and self.rank is not None and self.suit is not None:
            rank = np.mean([self.probabilities(crops[a], self.rank) for a in angles], axis=0)
            suit = np.mean([self.probabilities(crops[a], self.suit) for a in angles], axis=0)
            factor = factor_probs(rank, self.rank.names, suit, self.suit.names, self.names)
        return dets, joint, factor

    @staticmethod
    def readings(dets, probs: np.ndarray) -> list[list[IndexReading]]:
        """:class:`IndexReading` per detection of each frame, ``probs`` holding one row per detection in order."""
        out, k = [], 0
        for ds in dets:
            out.append([IndexReading(d.box, d.score, probs[k + i]) for i, d in enumerate(ds)])
            k += len(ds)
        return out

    def scale(self, frame: np.ndarray) -> float:
        """Index-detector input pixels per frame pixel."""
        return self.detector.size / max(frame.shape[:2])

    def probabilities(self, crops: Sequence[np.ndarray], classifier: CardClassifier | None = None) -> np.ndarray:
        """Class probabilities of index crops by ``classifier`` (default: the 54-way one), averaged over up to
        4 quarter-turned views (:attr:`turns`)."""
        classifier = classifier or self.classifier
        if not crops:
            return np.zeros((0, len(classifier.names)))
        turns = min(self.turns, 4)
        views = [np.ascontiguousarray(np.rot90(c, k)) for k in range(turns) for c in crops]
        return classifier.classify(views).probs.reshape(turns, len(crops), -1).mean(axis=0)


def owner(reading: IndexReading, polygons: Sequence[np.ndarray]) -> int | None:
    """Index of the outline ``reading`` belongs to: among those containing its centre, the one with
    a corner nearest to it relative to the card's size; None when no outline contains it."""
    c = reading.centre
    best, best_d = None, np.inf
    for i, poly in enumerate(polygons):
        p = np.asarray(poly, np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(p, c, False) < 0:
            continue
        q = p.reshape(-1, 2)
        size = float(np.linalg.norm(q[2] - q[0]))
        d = float(np.min(np.linalg.norm(q - np.float32(c), axis=1))) / max(size, 1e-6)
        if d < best_d:
            best, best_d = i, d
    return best


def combine(readings: Sequence[IndexReading]) -> np.ndarray:
    """Probabilities over the index classifier's names from several readings of one card (their product)."""
    logp = np.sum([np.log(np.clip(r.probs, 1e-9, 1.0)) for r in readings], axis=0)
    logp = logp - logp.max()
    p = np.exp(logp)
    return p / p.sum()


def readable(polygon, scale: float, min_px: float) -> bool:
    """Whether a card outlined by ``polygon`` (frame px) shows an index at least ``min_px`` tall at ``scale``."""
    q = np.asarray(polygon, np.float64).reshape(4, 2)
    long_side = max(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1])))
    return INDEX_FRACTION * long_side * scale >= min_px


def needs_reading(cards: Sequence, scale: float, params: IndexParams) -> bool:
    """Whether the index reader should read a frame in which the whole-card path found ``cards``
    (each with ``polygon`` in frame px, ``face_up`` and ``unsure``): always unless
    ``params.skip_unreadable``; then unless the frame is a table seen from afar that the whole-card
    path already reads: some face-up card named sure, and no card :func:`readable` at ``close_px``
    at ``scale`` (index-detector input px per frame px). A frame with no card named sure is read
    whatever the outlines imply: where the whole-card path fails (a close-up photograph, a deck
    unlike the training art) its outlines are no measure of the indices."""
    if not params.skip_unreadable or not any(c.face_up and not c.unsure for c in cards):
        return True
    return any(readable(c.polygon, scale, params.close_px) for c in cards)


def split(readings: Sequence[IndexReading], index_names: Sequence[str],
          split_prob: float) -> tuple[list[IndexReading], list[IndexReading]]:
    """(the outline's own readings, readings of other cards) of the readings inside one outline.

    Readings at least ``split_prob`` confident that name different cards are different cards: the
    outline keeps the name given by most of them (ties: the most confident reading), and the less
    confident readings go with the confident ones that name the same card, else with the outline.
    """
    def label(r: IndexReading) -> str:
        return index_names[int(r.probs.argmax())]

    sure = [r for r in readings if float(r.probs.max()) >= split_prob]
    groups: dict[str, list[IndexReading]] = {}
    for r in sure:
        groups.setdefault(label(r), []).append(r)
    if len(groups) < 2:
        return list(readings), []
    mine = max(groups, key=lambda n: (len(groups[n]), max(float(r.probs.max()) for r in groups[n])))
    own = [r for r in readings if label(r) == mine or label(r) not in groups]
    return own, [r for r in readings if label(r) != mine and label(r) in groups]


def merge(cards: list, readings: Sequence[IndexReading], index_names: Sequence[str], params: IndexParams,
          scale: float = 0.0, trust_sure: bool = False) -> list:
    """``cards`` (``RecognisedCard``) named again from their index readings, plus cards seen only by an index.

    In a close-up (not a whole table seen from above), a face-up card with no reading is dropped
    when its confidence is below ``params.unread_min``: the whole-card path's guess that the reader
    did not confirm. A frame with kept readings is a close-up when their median size is at least
    ``params.close_px`` at ``scale`` (the index detector's input scale); in a frame where nothing
    was read, each card is judged by the index its own outline implies (:func:`readable` at
    ``close_px``; never at ``scale`` 0): a card that big would have had its index read.

    With ``trust_sure`` (a table read in tiles), a face-up card the whole-card path named sure keeps
    its name, and the readings inside it that name another card are taken for cards of their own
    (the index of a card lying over it).
    """
    kept = [r for r in readings if float(r.probs.max()) >= params.min_prob]
    polys = [np.asarray(c.polygon) for c in cards]
    close = bool(kept) and float(np.median([max(r.box[2] - r.box[0], r.box[3] - r.box[1]) for r in kept])) * scale \
        >= params.close_px

    def close_up(card) -> bool:
        return close if kept else scale > 0 and readable(card.polygon, scale, params.close_px)

    mine: dict[int, list[IndexReading]] = {}
    loose: dict[str, list[IndexReading]] = {}
    for r in kept:
        i = owner(r, polys)
        if i is None:
            loose.setdefault(index_names[int(r.probs.argmax())], []).append(r)
        else:
            mine.setdefault(i, []).append(r)
    out = []
    for i, card in enumerate(cards):
        rs = mine.get(i)
        if not rs:
            if not (card.face_up and card.confidence < params.unread_min and close_up(card)):
                out.append(card)
            continue
        if trust_sure and card.face_up and not card.unsure:  # a sure whole card keeps its name
            for r in rs:
                name = index_names[int(r.probs.argmax())]
                if name != card.label:
                    loose.setdefault(name, []).append(r)
            out.append(card)
            continue
        rs, others = split(rs, index_names, params.split_prob)
        for r in others:
            loose.setdefault(index_names[int(r.probs.argmax())], []).append(r)
        p = combine(rs)
        out.append(_named(card, p, index_names, params))
    out = one_of_each(out)
    named = {c.label for c in out if c.face_up and (c.named_by == "index" or not c.unsure)}
    loose_named = set()
    for label, rs in loose.items():
        if label in named:  # the other corner of a card already named (one deck: each card once)
            continue
        p = combine(rs)
        card = _loose_card(label, max(rs, key=lambda r: r.score))
        out.append(_named(card, p, index_names, params))
        loose_named.add(label)
    # an unsure whole-card guess of a name an index reading gave elsewhere is that guess wrong
    return [c for c in out if not (c.face_up and c.unsure and c.named_by != "index" and c.label in loose_named)]


def _loose_card(label: str, reading: IndexReading):
    """A card seen only by its index: outlined by the index box (named by :func:`_named`)."""
    x0, y0, x1, y1 = reading.box
    return RecognisedCard(label=label, card_ids=(label,), face_up=True, polygon=((x0, y0), (x1, y0), (x1, y1), (x0, y1)),
                          box=reading.box, confidence=0.0, unsure=True, detection_score=reading.score,
                          detector_face_up=True, alternatives=(), named_by="index", index_only=True)


def _named(card, p: np.ndarray, index_names: Sequence[str], params: IndexParams):
    order = np.argsort(-p)
    label = index_names[int(order[0])]
    conf = float(p[order[0]])
    return replace(card, label=label, card_ids=(label,), face_up=True, confidence=conf,
                   unsure=conf < params.unsure_below, named_by="index",
                   alternatives=tuple((index_names[int(i)], float(p[i])) for i in order[1:4]))
