"""Calibrating the classifier's confidence on rendered validation scenes.

Scenes with seed ≡ 8 (mod 10) — the validation split, never trained on — are recognised with the
shipped models. Over the matched cards seen at least 40 %, the temperature ``T`` that minimises the
negative log-likelihood of the true class under ``softmax(log p / T)`` is chosen from a grid, then
``unsure_below``: the lowest confidence above which the answers are right at least
``target`` of the time (0.995; :func:`vision.recognise.classifier.sure_threshold`). Both go into the
deck's ``manifest.json`` (``fudaba calibrate``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from vision.evaluate.recognition import true_class
from vision.recognise.classifier import sure_threshold, temper
from vision.recognise.geometry import SEEN_ENOUGH, match
from vision.recognise.recogniser import Recogniser

TEMPERATURES = np.round(np.arange(0.5, 3.01, 0.05), 2)
MIN_VISIBLE = SEEN_ENOUGH


def val_seeds(first: int, count: int) -> list[int]:
    """``count`` validation seeds (≡ 8 mod 10) from ``first`` on."""
    start = first + (8 - first) % 10
    return [start + 10 * k for k in range(count)]


def matched_scores(rec: Recogniser, frames: Sequence[np.ndarray], labels: Sequence,
                   min_visible: float = MIN_VISIBLE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(raw probabilities, embeddings, true class index) of every detected card that matches a true
    card seen at least ``min_visible``."""
    names = {n: i for i, n in enumerate(rec.classifier.names)}
    probs, embs, truth = [], [], []
    for frame, lab in zip(frames, labels, strict=True):
        dets = rec.detector.detect([frame])[0]
        if not dets:
            continue
        _, p, e = rec.named_outlines(frame, dets, rec.classifier.raw)
        cards = [c for c in lab.cards if c.visible >= min_visible]
        for t, i in zip(cards, match([d.box for d in dets], cards), strict=True):
            if i is not None:
                probs.append(p[i])
                embs.append(e[i])
                truth.append(names[true_class(t, lab.deck)])
    return np.array(probs), np.array(embs), np.array(truth)


def collect(rec: Recogniser, frames: Sequence[np.ndarray], labels: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """(raw probabilities, true class index) of every matched card seen at least :data:`MIN_VISIBLE`."""
    probs, _, truth = matched_scores(rec, frames, labels)
    return probs, truth


def fit(probs: np.ndarray, truth: np.ndarray, target: float = 0.995) -> dict:
    """Temperature and unsure threshold for raw ``probs`` with true classes ``truth``."""
    rows = np.arange(len(truth))
    nll = [float(-np.log(np.clip(temper(probs, t)[rows, truth], 1e-12, 1)).mean()) for t in TEMPERATURES]
    t_best = float(TEMPERATURES[int(np.argmin(nll))])
    p = temper(probs, t_best)
    conf, right = p.max(axis=1), p.argmax(axis=1) == truth
    threshold = sure_threshold(conf, right, target)
    bins = np.linspace(0, 1, 11)
    which = np.clip(np.digitize(conf, bins) - 1, 0, 9)
    ece = float(sum(abs(right[which == b].mean() - conf[which == b].mean()) * (which == b).mean()
                    for b in range(10) if (which == b).any()))
    return {"temperature": t_best, "unsure_below": round(threshold, 4), "target": target, "cards": int(len(truth)),
            "accuracy": float(right.mean()), "sure_fraction": float((conf >= threshold).mean()),
            "expected_calibration_error": round(ece, 4)}


def write(rec: Recogniser, result: dict) -> None:
    """Store ``result`` as the calibration in the recogniser's manifest."""
    path = rec.manifest.folder / "manifest.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["calibration"] = result
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
