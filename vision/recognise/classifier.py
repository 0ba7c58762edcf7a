"""Second stage: which card. A YOLO classifier on square crops of each card's outline.

Crops come from :func:`vision.cardcrop.square_crop` at the network's input side, as in training.
The network returns softmax probabilities and the embedding it classifies from (the input of its
last linear layer); probabilities are re-tempered with the calibration temperature
(``p ∝ p_raw^(1/T)``) so that a confidence of 0.9 is right about nine times in ten.

With a deck profile (:mod:`vision.recognise.profile`), probabilities also come from the user's own
cards — the profile's linear head on the crop's embedding, or without a head the best cosine
similarity to a reference at temperature τ — and the two are blended
(``log p = w log p_profile + (1 − w) log p_network``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

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


def sure_threshold(conf: np.ndarray, right: np.ndarray, target: float = 0.995) -> float:
    """The lowest confidence such that the answers at or above it are right at least ``target`` of the
    time: the longest most-confident-first prefix that keeps that accuracy (1.0 when none does). The
    manifest's ``unsure_below`` (``fudaba calibrate``), a deck profile's own and the index reader's
    are fitted by it."""
    order = np.argsort(-np.asarray(conf))
    cum = np.cumsum(np.asarray(right)[order]) / np.arange(1, len(order) + 1)
    ok = np.nonzero(cum >= target)[0]
    return float(np.asarray(conf)[order[int(ok.max())]]) if len(ok) else 1.0


def normalise(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length."""
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


class CardClassifier:
    """Runs the classifier network on card outlines or ready crops."""

    def __init__(self, network: Network, names: Sequence[str], side: int, temperature: float = 1.0,
                 both_ways: bool = False, turn_below: float | None = None) -> None:
        self.network = network
        self.names = tuple(names)
        self.side = side
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

    def crops(self, frame: np.ndarray, polygons: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Square crops of each outline in ``frame``."""
        return [square_crop(frame, p, self.side) for p in polygons]

    def raw(self, crops: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities, embeddings) as the network gives them (averaged over both ways up with
        ``both_ways``), for any number of crops. With ``turn_below`` too, a crop is turned only where
        the network's highest probability for it as cut is below ``turn_below``; the others keep
        their one view."""
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
        if not crops:
            return np.zeros((0, len(self.names)), np.float32), np.zeros((0, 0), np.float32)
        probs, embs = [], []
        for i in range(0, len(crops), BATCH):
            out = self.network(to_batch(crops[i:i + BATCH]))
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
