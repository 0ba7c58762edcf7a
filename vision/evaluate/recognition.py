"""Scoring recognition against rendered truth: which prediction is which true card, and how often it is right.

A prediction matches a true card by the rule of :func:`vision.recognise.geometry.match` (boxes
overlapping by intersection over union ≥ 0.5, cards seen whole claiming first, then those seen at
least 40 %). A true card counts as recognised when its match's label is its recognition class
(plains by month; a face-down card's class is the back). Cards with no match count as missed, and a
miss is an error. :func:`render_scenes` and :func:`rendered_grid_photo` render the scenes measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vision.recognise.geometry import SEEN_WHOLE, match
from vision.synth.classes import class_of
from vision.synth.labels import CardLabel, SceneLabels


def unmatched(labels: SceneLabels, cards: Sequence) -> int:
    """How many of the recognised ``cards`` no true card of the scene claims (:func:`match`): a card
    found twice, a card where there is none."""
    return len(cards) - sum(i is not None for i in match([c.box for c in cards], labels.cards))


def true_class(card: CardLabel, deck: str) -> str:
    """The recognition class a true card should be named."""
    return class_of(card.card_id, card.face_up, deck, "recognition")


@dataclass(frozen=True, slots=True)
class CardOutcome:
    """One true card and what recognition made of it."""

    truth: str
    visible: float
    predicted: str | None
    confidence: float
    unsure: bool
    style: str

    @property
    def correct(self) -> bool:
        return self.predicted == self.truth


def outcomes(labels: SceneLabels, cards: Sequence, min_visible: float = 0.0) -> list[CardOutcome]:
    """Outcomes of the true cards of a scene seen at least ``min_visible``, given recognised ``cards``."""
    truth = [c for c in labels.cards if c.visible >= min_visible and c.visible > 0]
    idx = match([c.box for c in cards], truth)
    out = []
    for t, i in zip(truth, idx, strict=True):
        c = cards[i] if i is not None else None
        out.append(CardOutcome(true_class(t, labels.deck), t.visible, c.label if c else None,
                               c.confidence if c else 0.0, c.unsure if c else True, labels.style))
    return out


def accuracy(items: Sequence[CardOutcome], min_visible: float) -> dict:
    """Identity accuracy over the cards seen at least ``min_visible`` (1.0 = fully visible: from :data:`SEEN_WHOLE`)."""
    sel = [o for o in items if o.visible >= min(min_visible, SEEN_WHOLE)]
    n = len(sel)
    right = sum(o.correct for o in sel)
    found = sum(o.predicted is not None for o in sel)
    sure = [o for o in sel if o.predicted is not None and not o.unsure]
    return {"cards": n, "correct": right, "accuracy": right / n if n else None,
            "found": found, "detection_recall": found / n if n else None,
            "sure": len(sure), "sure_accuracy": sum(o.correct for o in sure) / len(sure) if sure else None,
            "unsure_rate": 1 - len(sure) / n if n else None}


def image_f1(truth: set, found: set) -> tuple[int, int, int, float]:
    """(true positives, false positives, false negatives, F1) of the card ids ``found`` in one image
    against its ``truth`` (F1 = 1 for an image with nothing to find and nothing found)."""
    tp = len(truth & found)
    denom = len(truth) + len(found)
    return tp, len(found - truth), len(truth - found), 1.0 if denom == 0 else 2 * tp / denom


def render_scenes(deck: str, styles: Sequence[str], seeds: Sequence[int], art_dir: str | None = None,
                  size: tuple[int, int] = (640, 640), scene=None):
    """Yield (image, labels) of rendered scenes: ``scene(seed, deck, styles, size, textures)`` (default
    :func:`vision.synth.scene.sample_scene`) rendered with the named styles."""
    from vision.synth.artset import find_style
    from vision.synth.scene import render, sample_scene
    from vision.synth.tables import background_textures

    make = scene or sample_scene
    found = {s: find_style(deck, s, art_dir) for s in styles}
    textures = background_textures(art_dir)
    for seed in seeds:
        r = render(make(seed, deck, tuple(styles), size=size, textures=textures), found)
        yield r.image, r.labels


def rendered_grid_photo(deck: str, style: str, seed: int, art_dir: str | None = None, folder: str = "/tmp") -> Path:
    """A rendered enrolment-grid photo of ``style`` (written to ``folder``; its path)."""
    import cv2

    from vision.synth.artset import find_style
    from vision.synth.fixed_scenes import enrolment_scene
    from vision.synth.scene import render
    from vision.synth.tables import background_textures

    grid = render(enrolment_scene(seed, deck, style, textures=background_textures(art_dir)),
                  {style: find_style(deck, style, art_dir)})
    photo = Path(folder) / f"grid-{deck}-{style}-{seed}.png"
    cv2.imwrite(str(photo), grid.image)
    return photo
