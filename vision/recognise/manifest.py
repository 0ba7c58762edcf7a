"""Where the shipped models are and what each one is: ``models/<deck>/manifest.json``.

A deck's folder holds ``detector.pt`` / ``detector.onnx``, ``classifier.pt`` / ``classifier.onnx``,
the model card ``README.md`` and ``manifest.json``, which the recogniser reads::

    {"deck": "hanafuda",
     "detector": {"stem": "detector", "size": 416, "names": ["card", "back"], "conf": 0.3, "iou": 0.7},
     "classifier": {"stem": "classifier", "side": 96, "names": [...], "sha256": "..."},
     "calibration": {"temperature": 1.0, "unsure_below": 0.9},
     "profile": {"weight": 0.8, "tau": 0.05}}

Playing cards may add ``index_detector``, ``index_classifier`` (same shapes as ``detector`` and
``classifier``) and ``index`` (their thresholds): the corner-index readers of
:mod:`vision.recognise.corners`.

The models folder is ``$FUDABA_MODELS`` when set, else ``models/`` beside the ``vision`` package
(a source checkout or an editable install), else ``<prefix>/share/fudaba/models`` (where
``pip install`` puts them).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

DECKS = ("hanafuda", "playing")


def models_dir() -> Path:
    """The folder holding one sub-folder per deck."""
    env = os.environ.get("FUDABA_MODELS")
    if env:
        return Path(env)
    checkout = Path(__file__).resolve().parents[2] / "models"
    if any((checkout / d / "manifest.json").is_file() for d in DECKS):
        return checkout
    return Path(sys.prefix) / "share" / "fudaba" / "models"


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a deck's recogniser is made of."""

    deck: str
    folder: Path
    detector: dict
    classifier: dict
    calibration: dict
    profile: dict
    index_detector: dict = field(default_factory=dict)
    """Playing cards: the corner-index detector (optional, :mod:`vision.recognise.corners`)."""
    index_classifier: dict = field(default_factory=dict)
    index_rank_classifier: dict = field(default_factory=dict)
    """Playing cards: classifier of an index's rank (optional; with ``index_suit_classifier``)."""
    index_suit_classifier: dict = field(default_factory=dict)
    """Playing cards: classifier of an index's suit (optional; with ``index_rank_classifier``)."""
    index: dict = field(default_factory=dict)
    """Thresholds of the index readings (``min_prob``, ``unsure_below``, …: :class:`vision.recognise.corners.IndexParams`)."""
    recognition: dict = field(default_factory=dict)
    """How the named cards are kept: ``one_deck`` (name a frame's face-up cards together, no name
    more often than one deck holds it, :mod:`vision.recognise.one_deck`), ``turn_below``
    (:class:`vision.recognise.classifier.CardClassifier`)."""

    @property
    def styles(self) -> tuple[str, ...]:
        """The art styles the classifier was trained on (``classifier.styles``; empty when not named)."""
        return tuple(self.classifier.get("styles") or ())

    @property
    def detector_stem(self) -> Path:
        return self.folder / self.detector["stem"]

    @property
    def classifier_stem(self) -> Path:
        return self.folder / self.classifier["stem"]


def load_manifest(deck: str, models: str | Path | None = None) -> Manifest:
    """The manifest of ``deck`` in ``models/<deck>/`` (default :func:`models_dir`); ValueError when missing."""
    if deck not in DECKS:
        raise ValueError(f"unknown deck {deck!r}; expected one of {', '.join(DECKS)}")
    root = (Path(models) if models else models_dir()) / deck
    path = root / "manifest.json"
    if not path.is_file():
        raise ValueError(f"no {deck} models at {root} (missing manifest.json); set FUDABA_MODELS to the models folder")
    d = json.loads(path.read_text(encoding="utf-8"))
    if d.get("deck") != deck:
        raise ValueError(f"{path} is for deck {d.get('deck')!r}, not {deck!r}")
    if "detector" not in d:
        raise ValueError(f"{path} names no detector")
    return Manifest(deck, root, d["detector"], d.get("classifier", {}), d.get("calibration", {}), d.get("profile", {}),
                    d.get("index_detector", {}), d.get("index_classifier", {}),
                    d.get("index_rank_classifier", {}), d.get("index_suit_classifier", {}), d.get("index", {}),
                    d.get("recognition", {}))


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
