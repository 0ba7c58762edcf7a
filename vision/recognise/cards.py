"""A card as recognised in a frame (:class:`RecognisedCard`): what the recogniser returns, and what
the corner-index reader's merge (:mod:`vision.recognise.index_reader`) and the duplicate rules
(:mod:`vision.recognise.duplicates`) take and give."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RecognisedCard:
    """One card as recognised in a frame."""

    label: str
    """Recognition class: a card id, a month's plains (``03-plain``), or the back (``back``/``BACK``)."""
    card_ids: tuple[str, ...]
    """The card ids ``label`` stands for (empty for a back)."""
    face_up: bool
    polygon: tuple[tuple[float, float], ...]
    """Four corners in frame px, clockwise, starting at a corner of a short edge."""
    box: tuple[float, float, float, float]
    """Detector box x0, y0, x1, y1 (frame px)."""
    confidence: float
    """Calibrated probability that ``label`` is right."""
    unsure: bool
    """True when ``confidence`` is below the calibrated threshold: ask the players."""
    detection_score: float
    detector_face_up: bool
    alternatives: tuple[tuple[str, float], ...]
    """The next most likely labels with their probabilities (up to 3)."""
    named_by: str = "card"
    """``card``: the whole-card classifier named it; ``index``: its printed corner index did."""
    index_only: bool = False
    """Only a corner index was seen (no whole card found): ``polygon`` and ``box`` are the index's."""

    def as_dict(self) -> dict:
        return {"label": self.label, "card_ids": list(self.card_ids), "face_up": self.face_up,
                "polygon": [[round(x, 1), round(y, 1)] for x, y in self.polygon],
                "box": [round(v, 1) for v in self.box], "confidence": round(self.confidence, 4),
                "unsure": self.unsure, "detection_score": round(self.detection_score, 4),
                "alternatives": [[n, round(p, 4)] for n, p in self.alternatives],
                "named_by": self.named_by, "index_only": self.index_only}
