"""Second stage: which card. A YOLO classifier on square crops of each card's outline.

Crops come from :func:`vision.cardcrop.square_crop` at the network's input side, as in training.
The network returns softmax probabilities and the embedding it classifies from (the input of its
last linear layer); probabilities are re-tempered with the calibration temperature
(``p ∝ p_raw^(1/T)``) so that a confidence of 0.9 is right about nine times in ten.

With a deck profile (:mod:`vision.recognise.profile`), probabilities also come from the user's own
cards — the profile's linear head on the crop's embedding, or without a head the best cosine
similarity to a reference at temperature τ — and the two are blended
(``log p = w log p_profile + (1 − w) log p_network``).

A *fine stage* (the manifest's ``fine_classifier``, optional) is a second network of the same
classes on larger crops: a crop whose highest probability from the first network is below
``recognition.fine_below`` is also classified by it, and the two networks' probabilities are
averaged before the calibration temperature. Crops are then cut at the fine stage's side and
shrunk for the first network; the embedding is always the first network's.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import cv2
import numpy as np

from vision.cardcrop import square_crop
from vision.recognise.backends import Network

BATCH = 32
"""Crops per network call."""


@dataclass(frozen=True, slots=True)
class Scores:
    """Classifier output for a batch of crops."""

    probs: np.ndarray
    """(N, classes) calibrated probabilities."""
    embeddings: np.ndarray
    """(N, D) L2-normalised embeddings."""


def to_batch(crops: Sequence[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops → float32 NCHW RGB in 0..1."""
    return np.stack(crops)[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def temper(probs: np.ndarray, temperature: float) -> np.ndarray:
    """Probabilities re-tempered: ``softmax(log p / T)`` row by row."""
    logp = np.log(np.clip(probs, 1e-12, 1.0)) / temperature
    logp -= logp.max(axis=1, keepdims=True)
    e = np.exp(logp)
    return e / e.sum(axis=1, keepdims=True)


def normalise(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length."""
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


@dataclass(frozen=True, slots=True)
class FineStage:
    """A second classifier for the crops the first is unsure of (see the module docstring)."""

    network: Network
    side: int
    """Input side (px) of its square crops."""
    below: float
    """A crop goes to it when the first network's highest probability is below this."""


def resized(crops: Sequence[np.ndarray], side: int) -> list[np.ndarray]:
    """``crops`` at ``side`` × ``side`` (area interpolation when shrinking); crops of that side are kept."""
    return [c if c.shape[0] == side and c.shape[1] == side else
            cv2.resize(c, (side, side), interpolation=cv2.INTER_AREA if c.shape[0] > side else cv2.INTER_LINEAR)
            for c in crops]


class CardClassifier:
    """Runs the classifier network on card outlines or ready crops."""

    def __init__(self, network: Network, names: Sequence[str], side: int, temperature: float = 1.0,
                 both_ways: bool = False, turn_below: float | None = None, fine: FineStage | None = None) -> None:
        self.network = network
        self.names = tuple(names)
        self.side = side
        self.fine = fine
        """The optional second network for unsure crops."""
        self.temperature = temperature
        self.both_ways = both_ways
        """Also classify each crop turned 180° and average the two (twice the work)."""
        self.turn_below = turn_below
        """With ``both_ways``: turn only the crops whose highest probability as cut (the network's
        own, before the calibration temperature) is below this; None: turn every crop."""

    @contextmanager
    def turning_every_crop(self) -> Iterator[None]:
        """Within the block, with ``both_ways``, every crop is turned (``turn_below`` set aside)."""
        kept, self.turn_below = self.turn_below, None
        try:
            yield
        finally:
            self.turn_below = kept

    @property
    def crop_side(self) -> int:
        """Side (px) crops are cut at: the fine stage's where it is larger, else the network's."""
        return max(self.side, self.fine.side) if self.fine else self.side

    def crops(self, frame: np.ndarray, polygons: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Square crops of each outline in ``frame``, at :attr:`crop_side`."""
        return [square_crop(frame, p, self.crop_side) for p in polygons]

    def raw(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, embeddings) as the network gives them (averaged over both ways up with
        ``both_ways``), for any number of crops of any side. With ``turn_below`` too, a crop is turned
        only where the network's highest probability for it as cut is below ``turn_below``; the
        others keep their one view. With a fine stage, the crops still below its ``below`` have
        their probabilities averaged with its reading of them as cut."""
        p, e = self._first(crops)
        if self.fine is not None and len(crops):
            again = np.flatnonzero(p.max(axis=1) < self.fine.below)
            if again.size:
                pf = self._run(self.fine.network, resized([crops[i] for i in again], self.fine.side))[0]
                p[again] = (p[again] + pf) / 2
        return p, e

    def _first(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`raw` of the first network alone."""
        crops = resized(crops, self.side)
        if self.both_ways and crops and self.turn_below is not None:
            p, e = self._raw(crops)
            again = np.flatnonzero(p.max(axis=1) < self.turn_below)
            if again.size:
                p2, e2 = self._raw([crops[i][::-1, ::-1] for i in again])
                p[again] = (p[again] + p2) / 2
                if e.size:
                    e[again] = (e[again] + e2) / 2
            return p, e
        if self.both_ways and crops:
            n = len(crops)
            p, e = self._raw(list(crops) + [c[::-1, ::-1] for c in crops])
            return (p[:n] + p[n:]) / 2, ((e[:n] + e[n:]) / 2 if e.size else e)
        return self._raw(crops)

    def _raw(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return self._run(self.network, crops)

    def _run(self, network: Network, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, embeddings) of ``network`` on ready crops of its side."""
        if not crops:
            return np.zeros((0, len(self.names)), np.float32), np.zeros((0, 0), np.float32)
        probs, embs = [], []
        for i in range(0, len(crops), BATCH):
            out = network(to_batch(crops[i:i + BATCH]))
            probs.append(out[0])
            embs.append(out[1] if len(out) > 1 else np.zeros((len(out[0]), 0), np.float32))
        p = np.concatenate(probs).reshape(len(crops), -1)
        if p.shape[1] != len(self.names):
            raise ValueError(f"classifier gives {p.shape[1]} classes, its manifest names {len(self.names)}")
        return p, np.concatenate(embs).reshape(len(crops), -1)

    def classify(self, crops: Sequence[np.ndarray]) -> Scores:
        """Calibrated probabilities and normalised embeddings of ``crops``."""
        p, e = self.raw(crops)
        return Scores(temper(p, self.temperature), normalise(e) if e.size else e)
